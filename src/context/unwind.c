/*
 * Virtual unwinding (the CSSPGO paper, Algorithm 1; see spgo/context.h):
 * the code facts, the frame trie and the unwinder of one (stack, LBR)
 * sample, and recursion compression.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"

/* ---- code facts ------------------------------------------------------------ */

static int is_barrier(const struct spgo_insn *in)
{
	/* llvm-profgen's UncondBranchAddrSet: direct jumps, calls, returns. */
	return in->cls == SPGO_INSN_JUMP || in->cls == SPGO_INSN_CALL ||
	       in->cls == SPGO_INSN_INDIRECT_CALL || in->cls == SPGO_INSN_RETURN;
}

#define CS_BUCKET_SHIFT 4

/* Bucket tables for the lower bounds of instruction and function starts. */
static void code_buckets(struct spgo_cs_code *c)
{
	size_t n = c->ninsns, nf = c->nfuncs;
	if (!n)
		return;
	uint64_t lo = c->insns[0].addr, hi = c->insns[n - 1].addr;
	if (nf) {
		if (c->funcs[0].start < lo)
			lo = c->funcs[0].start;
		if (c->funcs[nf - 1].end > hi)
			hi = c->funcs[nf - 1].end;
	}
	size_t nb = (size_t)((hi - lo) >> CS_BUCKET_SHIFT) + 1;
	if (nb > ((size_t)1 << 28))
		return; /* sparse code: binary search */
	c->lo = lo;
	c->nbuckets = nb;
	c->ibucket = xmalloc((nb + 1) * sizeof *c->ibucket);
	c->fbucket = xmalloc((nb + 1) * sizeof *c->fbucket);
	size_t i = 0, f = 0;
	for (size_t b = 0; b <= nb; b++) {
		uint64_t a = lo + ((uint64_t)b << CS_BUCKET_SHIFT);
		while (i < n && c->insns[i].addr < a)
			i++;
		while (f < nf && c->funcs[f].start < a)
			f++;
		c->ibucket[b] = (uint32_t)i;
		c->fbucket[b] = (uint32_t)f;
	}
}

/* The first instruction starting at or after addr (ninsns if none). */
static inline size_t insn_lower_bound(const struct spgo_cs_code *c, uint64_t addr)
{
	size_t lo;
	if (c->nbuckets && addr >= c->lo && ((addr - c->lo) >> CS_BUCKET_SHIFT) < c->nbuckets) {
		size_t b = (size_t)((addr - c->lo) >> CS_BUCKET_SHIFT);
		size_t i = c->ibucket[b], e = c->ibucket[b + 1];
		while (i < e && c->insns[i].addr < addr)
			i++;
		return i;
	}
	SPGO_LOWER_BOUND(lo, c->insns, c->ninsns, addr, addr);
	return lo;
}

size_t cs_func_lower_bound(const struct spgo_cs_code *c, uint64_t addr)
{
	size_t lo;
	if (c->nbuckets && addr >= c->lo && ((addr - c->lo) >> CS_BUCKET_SHIFT) < c->nbuckets) {
		size_t b = (size_t)((addr - c->lo) >> CS_BUCKET_SHIFT);
		size_t i = c->fbucket[b], e = c->fbucket[b + 1];
		while (i < e && c->funcs[i].start < addr)
			i++;
		return i;
	}
	SPGO_LOWER_BOUND(lo, c->funcs, c->nfuncs, start, addr);
	return lo;
}

/* Prologue (a function part's first two instructions) and epilogue (a
 * return and the instruction before it) flags, barrier prefix counts. */
/*
 * Code outside the binary model's functions is external to the unwinder
 * (CS_NO_FUNC) unless llvm-profgen disassembles it: it decodes every
 * executable section but .plt symbol by symbol, from each .symtab symbol
 * of any type and size to the next (spgo_binary_profgen_code), so crt's
 * size-0 function symbols (_init, frame_dummy, register_tm_clones), code
 * under a label that is no function (an assembler's local symbol) and the
 * padding after a function are code of the binary to it.
 */
static void profgen_code(struct spgo_cs_code *c)
{
	for (size_t k = 0; k < c->ninsns; k++)
		if ((c->flags[k] & CS_NO_FUNC) && spgo_binary_profgen_code(c->bin, c->insns[k].addr))
			c->flags[k] &= (uint8_t)~CS_NO_FUNC;
}

static void code_tables(struct spgo_cs_code *c)
{
	size_t n = c->ninsns;
	c->flags = xcalloc(n + 1, 1);
	c->barriers = xmalloc((n + 1) * sizeof *c->barriers);
	c->barriers[0] = 0;
	code_buckets(c);
	for (size_t i = 0; i < n; i++) {
		c->barriers[i + 1] = c->barriers[i] + is_barrier(&c->insns[i]);
		if (c->insns[i].cls == SPGO_INSN_RETURN) {
			c->flags[i] |= CS_PROEPI;
			if (i)
				c->flags[i - 1] |= CS_PROEPI;
		}
	}
	for (size_t i = 0; i < n && c->nfuncs; i++)
		if (cs_func_of(c, c->insns[i].addr) < 0)
			c->flags[i] |= CS_NO_FUNC;
	if (c->bin && c->nfuncs)
		profgen_code(c);
	for (size_t f = 0; f < c->nfuncs; f++) {
		long k = cs_insn_index(c, c->funcs[f].start);
		if (k < 0)
			continue;
		c->flags[k] |= CS_PROEPI;
		if ((size_t)k + 1 < n)
			c->flags[k + 1] |= CS_PROEPI;
	}
}

int spgo_cs_code_init(struct spgo_cs_code *c, struct spgo_binary *bin)
{
	memset(c, 0, sizeof *c);
	c->bin = bin;
	c->insns = spgo_binary_insns(bin, &c->ninsns);
	c->funcs = spgo_binary_functions(bin, &c->nfuncs);
	if (!c->ninsns)
		return spgo_error("%s: no instructions found in its executable sections",
				  spgo_binary_path(bin));
	c->keys = xcalloc(c->ninsns, sizeof *c->keys);
	code_tables(c);
	return 0;
}

void spgo_cs_code_init_arrays(struct spgo_cs_code *c, const struct spgo_insn *insns, size_t n,
			      const struct spgo_function *funcs, size_t nfuncs, const uint64_t *keys)
{
	memset(c, 0, sizeof *c);
	c->insns = insns;
	c->ninsns = n;
	c->funcs = funcs;
	c->nfuncs = nfuncs;
	c->keys = xcalloc(n ? n : 1, sizeof *c->keys);
	for (size_t i = 0; i < n; i++)
		c->keys[i] = keys ? keys[i] : 1;
	code_tables(c);
	for (size_t i = 0; i < n; i++)
		c->flags[i] |= CS_KEY_DONE;
}

uint64_t *spgo_cs_code_proepi(const struct spgo_cs_code *c, size_t *n)
{
	uint64_t *v = xmalloc((c->ninsns + 1) * sizeof *v);
	*n = 0;
	for (size_t i = 0; i < c->ninsns; i++) /* (insns ascend) */
		if (c->flags[i] & CS_PROEPI)
			v[(*n)++] = c->insns[i].addr;
	return v;
}

void spgo_cs_code_free(struct spgo_cs_code *c)
{
	free(c->keys);
	free(c->flags);
	free(c->barriers);
	free(c->ibucket);
	free(c->fbucket);
	memset(c, 0, sizeof *c);
}

long cs_insn_index(const struct spgo_cs_code *c, uint64_t addr)
{
	size_t lo = insn_lower_bound(c, addr);
	return lo < c->ninsns && c->insns[lo].addr == addr ? (long)lo : -1;
}

uint64_t cs_return_site(const struct spgo_cs_code *c, uint64_t ret)
{
	if (ret == SPGO_AGG_EXTERNAL)
		return 0;
	size_t lo = insn_lower_bound(c, ret);
	if (lo == 0)
		return 0;
	size_t k = lo - 1;
	const struct spgo_insn *in = &c->insns[k];
	if ((in->cls != SPGO_INSN_CALL && in->cls != SPGO_INSN_INDIRECT_CALL) ||
	    in->addr + in->size != ret || (c->flags[k] & CS_NO_FUNC))
		return 0;
	return in->addr;
}

/*
 * The inline-context key of instruction k: a hash of the inline frames at
 * it except the innermost (names and call-site locations), as
 * llvm-profgen's inlineContextEqual compares them; 0 without debug lines.
 */
static uint64_t insn_key(const struct spgo_cs_code *c, size_t k)
{
	if (c->flags[k] & CS_KEY_DONE)
		return c->keys[k];
	struct spgo_frame fr[CS_MAX_INLINE];
	int n = spgo_binary_symbolize(c->bin, c->insns[k].addr, fr, CS_MAX_INLINE);
	if (n > CS_MAX_INLINE)
		n = CS_MAX_INLINE;
	/* Named frames from the outermost in, as llvm-profgen's symbolize(). */
	int named = 0;
	while (named < n && fr[n - 1 - named].function)
		named++;
	uint64_t h = 0;
	if (named > 0) {
		h = spgo_hash64((uint64_t)named + 0x9e37);
		for (int j = n - 1; j > n - named; j--) { /* all but the innermost */
			const struct spgo_frame *f = &fr[j];
			h = spgo_hash64(h ^ spgo_hash_bytes(f->function, strlen(f->function)));
			h = spgo_hash64(h ^ ((uint64_t)((f->line - f->decl_line) & 0xffff) << 32 |
					     f->discriminator));
		}
		if (!h)
			h = 1;
	}
	c->keys[k] = h;
	c->flags[k] |= CS_KEY_DONE;
	return h;
}

uint64_t cs_insn_key(const struct spgo_cs_code *c, size_t k)
{
	return insn_key(c, k);
}

/* ---- the frame trie ---------------------------------------------------------- */

/*
 * A direct-mapped cache in front of the trie's maps: an LBR repeats the
 * same ranges and branches (loops) and neighbouring samples the same
 * frames, and a map lookup is a cache miss in a big table.  An entry holds
 * the value pointer upsert gave, valid while the map keeps its capacity
 * (slots move only when it grows).
 */
#define CS_KCACHE_BITS 9
struct cs_kent {
	uint64_t k[3];
	uint64_t *val;
	size_t cap;
};
struct spgo_cs_kcache {
	struct cs_kent e[3][1u << CS_KCACHE_BITS]; /* index, ranges, branches */
};

static inline uint64_t *cached_upsert(struct spgo_cs_trie *t, int which, struct spgo_kmap *m,
				      uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^
		     (c * 0x165667b19e3779f9ULL);
	struct cs_kent *e = &t->kcache->e[which][h >> (64 - CS_KCACHE_BITS)];
	if (e->val && e->cap == m->cap && e->k[0] == a && e->k[1] == b && e->k[2] == c)
		return e->val;
	uint64_t key[3] = {a, b, c};
	uint64_t *v = spgo_kmap_upsert(m, key);
	e->k[0] = a;
	e->k[1] = b;
	e->k[2] = c;
	e->val = v;
	e->cap = m->cap;
	return v;
}

void spgo_cs_trie_init(struct spgo_cs_trie *t, const struct spgo_cs_code *code,
		       const struct spgo_cs_opts *o, struct spgo_cs_stats *st)
{
	memset(t, 0, sizeof *t);
	t->code = code;
	t->st = st;
	t->drop_bogus = o ? o->drop_bogus : 0;
	spgo_kmap_init(&t->index, 2);
	spgo_kmap_init(&t->ranges, 3);
	spgo_kmap_init(&t->branches, 3);
	t->kcache = xcalloc(1, sizeof *t->kcache);
	struct spgo_cs_node root = {CS_ROOT_ADDR, SPGO_NONE};
	VEC_PUSH(&t->nodes, root);
}

void spgo_cs_trie_free(struct spgo_cs_trie *t)
{
	for (size_t i = 0; i < t->keys.n; i++)
		free(t->keys.v[i]);
	VEC_FREE(&t->keys);
	VEC_FREE(&t->nodes);
	spgo_kmap_free(&t->index);
	spgo_kmap_free(&t->ranges);
	spgo_kmap_free(&t->branches);
	VEC_FREE(&t->stack);
	VEC_FREE(&t->lbr);
	free(t->kcache);
	t->kcache = NULL;
}

static uint32_t child(struct spgo_cs_trie *t, uint32_t parent, uint64_t addr)
{
	uint64_t *v = cached_upsert(t, 0, &t->index, parent, addr, 0);
	if (!*v) {
		struct spgo_cs_node nd = {addr, parent};
		VEC_PUSH(&t->nodes, nd);
		*v = t->nodes.n;
		t->st->frames++;
	}
	return (uint32_t)(*v - 1);
}

uint32_t cs_trie_child(struct spgo_cs_trie *t, uint32_t parent, uint64_t addr)
{
	return child(t, parent, addr);
}

size_t spgo_cs_context(const struct spgo_cs_trie *t, uint32_t node, uint64_t *buf, size_t max)
{
	size_t n = 0;
	for (uint32_t x = node; x != SPGO_CS_ROOT; x = t->nodes.v[x].parent) {
		uint64_t a = t->nodes.v[x].addr;
		if (a == SPGO_AGG_EXTERNAL)
			break; /* the context starts below an external frame */
		if (a == 0)
			continue; /* a return to no call site: no frame of its own */
		n++;
	}
	/* Fill root first. */
	size_t i = n;
	for (uint32_t x = node; x != SPGO_CS_ROOT && i > 0; x = t->nodes.v[x].parent) {
		uint64_t a = t->nodes.v[x].addr;
		if (a == SPGO_AGG_EXTERNAL)
			break;
		if (a == 0)
			continue;
		i--;
		if (i < max)
			buf[i] = a;
	}
	return n;
}

static void mark_func(const struct spgo_cs_code *c, struct spgo_kmap *guids, uint64_t addr)
{
	long f = cs_func_of(c, addr);
	if (f < 0 || !c->funcs[f].has_debug)
		return;
	uint64_t key = spgo_guid(c->funcs[f].name);
	spgo_kmap_upsert(guids, &key);
}

void cs_trie_profiled_guids(const struct spgo_cs_code *c, const struct spgo_cs_trie *t,
			    int frames, struct spgo_kmap *guids)
{
	if (frames)
		for (size_t k = 1; k < t->nodes.n; k++)
			mark_func(c, guids, t->nodes.v[k].addr);
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&t->ranges, &it, &key, &val);)
		mark_func(c, guids, key[1]);
	for (size_t it = 0; spgo_kmap_next(&t->branches, &it, &key, &val);) {
		mark_func(c, guids, key[1]);
		mark_func(c, guids, key[2]);
	}
}

/* ---- the unwinder --------------------------------------------------------------- */

/* The state of one sample's unwinding (llvm-profgen's UnwindState). */
struct state {
	struct spgo_cs_trie *t;
	uint32_t cur;   /* the leaf frame */
	uint64_t ip;    /* where execution is, going backwards */
	long ip_k;      /* ... its instruction index (-1: external) */
	int invalid;    /* the LBR no longer agrees with the stack */
	uint64_t count; /* times the sample was seen */
};

static void switch_to(struct state *s, uint64_t addr)
{
	struct spgo_cs_trie *t = s->t;
	if (t->nodes.v[s->cur].addr == addr)
		return;
	s->cur = child(t, t->nodes.v[s->cur].parent, addr);
}

static void record_range(struct state *s, uint64_t begin, uint64_t end)
{
	*cached_upsert(s->t, 1, &s->t->ranges, s->cur, begin, end) += s->count;
}

/* The straight-line code [target, ip] ran: record it, split by inline
 * context, each piece on the frame of its first instruction.  ib: the
 * instruction index of target (-1 when external). */
static void unwind_linear(struct state *s, uint64_t target, long ib)
{
	struct spgo_cs_trie *t = s->t;
	const struct spgo_cs_code *c = t->code;
	uint64_t end = s->ip;
	if (end == SPGO_AGG_EXTERNAL && target == SPGO_AGG_EXTERNAL) {
		t->st->paired_ext += s->count; /* ran outside and came back */
		return;
	}
	if (end == SPGO_AGG_EXTERNAL || target == SPGO_AGG_EXTERNAL) {
		t->st->unpaired_ext += s->count;
		s->invalid = 1;
		return;
	}
	long ie = s->ip_k;
	if (ib < 0 || ie < 0 || ib > ie || c->barriers[ie] != c->barriers[ib]) {
		t->st->bad_range += s->count;
		s->invalid = 1;
		return;
	}
	if (t->probes) {
		/* Probe mode (llvm-profgen's AddressStack): the whole range on
		 * the parent frame; the probes at its instructions carry their
		 * own inline contexts, expanded at generation. */
		uint32_t parent = t->nodes.v[s->cur].parent;
		*cached_upsert(t, 1, &t->ranges, parent, target, end) += s->count;
		s->ip = target;
		s->ip_k = ib;
		return;
	}
	long e = ie;
	for (long k = ie; k > ib; k--) {
		uint64_t kk = insn_key(c, (size_t)k), kp = insn_key(c, (size_t)k - 1);
		if (!kk || kk != kp) {
			switch_to(s, c->insns[k].addr);
			record_range(s, c->insns[k].addr, c->insns[e].addr);
			e = k - 1;
		}
	}
	switch_to(s, target);
	record_range(s, target, c->insns[e].addr);
	s->ip = target;
	s->ip_k = ib;
}

/*
 * addr, or SPGO_AGG_EXTERNAL when it is not the start of an instruction of
 * a function (llvm-profgen's addressIsCode): llvm-profgen disassembles
 * function symbols only, so code outside them (the PLT stubs) is external
 * to it -- a call into the PLT is a call into a library -- and so is an
 * address inside an instruction (a bogus return address of a stack walked
 * in a prologue).
 */
static uint64_t outside(const struct spgo_cs_code *c, uint64_t addr, long *k)
{
	*k = -1;
	if (addr == SPGO_AGG_EXTERNAL)
		return addr;
	long i = cs_insn_index(c, addr);
	if (i < 0 || (c->flags[i] & CS_NO_FUNC))
		return SPGO_AGG_EXTERNAL;
	*k = i;
	return addr;
}

/* The call instruction before instruction k (the call a return to its
 * address, known to be an instruction start); SPGO_AGG_EXTERNAL for k -1. */
static uint64_t call_before_insn(const struct spgo_cs_code *c, long k)
{
	if (k < 0)
		return SPGO_AGG_EXTERNAL;
	if (k == 0)
		return 0;
	const struct spgo_insn *in = &c->insns[k - 1];
	return in->cls == SPGO_INSN_CALL || in->cls == SPGO_INSN_INDIRECT_CALL ? in->addr : 0;
}

int spgo_cs_unwind(struct spgo_cs_trie *t, const struct spgo_agg_stack *smp)
{
	const struct spgo_cs_code *c = t->code;
	struct spgo_cs_stats *st = t->st;
	uint64_t cnt = smp->count;
	st->samples += cnt;

	/* The LBR, both-external entries left out (llvm-profgen's reader),
	 * with the instruction indices of its addresses. */
	t->lbr.n = 0;
	VEC_GROW(&t->lbr, 4 * (size_t)smp->nbranches);
	uint64_t *lbr = t->lbr.v; /* per entry: from, to, from's index, to's index */
	size_t nb = 0;
	for (uint32_t i = 0; i < smp->nbranches; i++) {
		long kf, kt;
		uint64_t from = outside(c, smp->branches[2 * i], &kf),
			 to = outside(c, smp->branches[2 * i + 1], &kt);
		if (from == SPGO_AGG_EXTERNAL && to == SPGO_AGG_EXTERNAL)
			continue;
		lbr[4 * nb] = from;
		lbr[4 * nb + 1] = to;
		lbr[4 * nb + 2] = (uint64_t)kf;
		lbr[4 * nb + 3] = (uint64_t)kt;
		nb++;
	}
	if (!nb || !smp->nframes) {
		st->no_lbr += cnt;
		return 0;
	}

	/* The stack: return addresses -> call sites, external runs as one. */
	t->stack.n = 0;
	for (uint32_t i = 0; i < smp->nframes; i++) {
		long k;
		uint64_t site = i > 0 ? cs_return_site(c, smp->frames[i]) : 0;
		if (site) { /* (also a call ending its function: see cs_return_site) */
			VEC_PUSH(&t->stack, site);
			continue;
		}
		uint64_t a = outside(c, smp->frames[i], &k);
		if (a == SPGO_AGG_EXTERNAL) {
			if (!t->stack.n || t->stack.v[t->stack.n - 1] != SPGO_AGG_EXTERNAL)
				VEC_PUSH(&t->stack, a);
			continue;
		}
		if (i > 0) { /* bad unwinding (no frame pointer yet): stop here */
			st->stack_cut += cnt;
			break;
		}
		VEC_PUSH(&t->stack, a);
	}
	if (t->stack.n > 1 && t->stack.v[t->stack.n - 1] == SPGO_AGG_EXTERNAL)
		t->stack.n--;
	uint64_t leaf = t->stack.v[0];
	if (leaf != SPGO_AGG_EXTERNAL) {
		long k = cs_insn_index(c, leaf);
		if (k >= 0 && (c->flags[k] & CS_PROEPI)) {
			st->prolog_epilog += cnt;
			return 0;
		}
	}
	/* The leaf is the newest LBR target (the ip may have skidded past). */
	uint64_t to0 = lbr[1];
	if (leaf != SPGO_AGG_EXTERNAL && to0 != SPGO_AGG_EXTERNAL &&
	    (leaf < to0 || leaf - to0 >= 0x100)) {
		st->bogus += cnt;
		if (t->drop_bogus)
			return 0;
	}
	t->stack.v[0] = to0;

	struct state s = {t, SPGO_CS_ROOT, to0, (long)lbr[3], 0, cnt};
	for (size_t j = t->stack.n; j-- > 0;)
		s.cur = child(t, s.cur, t->stack.v[j]);

	int cleared = 0;
	for (size_t i = 0; i < nb; i++) {
		uint64_t from = lbr[4 * i], to = lbr[4 * i + 1];
		long kf = (long)lbr[4 * i + 2], kt = (long)lbr[4 * i + 3];
		st->branches += cnt;
		if (i > 0) /* the newest range is cut short by the sample */
			unwind_linear(&s, to, kt);
		int src_ext = from == SPGO_AGG_EXTERNAL;
		const struct spgo_insn *in = kf >= 0 ? &c->insns[kf] : NULL;
		int is_call = in ? in->cls == SPGO_INSN_CALL || in->cls == SPGO_INSN_INDIRECT_CALL
				 : src_ext && call_before_insn(c, kt) == 0;
		int is_ret = in ? in->cls == SPGO_INSN_RETURN : src_ext && call_before_insn(c, kt) != 0;
		if (!s.invalid && is_call) {
			/* A call: back to the caller's frame at the call site. */
			uint32_t parent = t->nodes.v[s.cur].parent;
			if (parent == SPGO_CS_ROOT || t->nodes.v[parent].addr != from) {
				/* The caller's frame is missing (sampled in a
				 * prologue or epilogue, or external code called). */
				switch_to(&s, from);
				if (parent != SPGO_CS_ROOT) {
					if (src_ext)
						st->ext_call_mismatch += cnt;
					else
						st->call_mismatch += cnt;
				}
			} else {
				s.cur = parent;
			}
			s.ip = from;
			s.ip_k = kf;
		} else if (!s.invalid && is_ret) {
			/* A return: the callee's frame comes back, under the
			 * frame of the call the return went after. */
			switch_to(&s, call_before_insn(c, kt));
			s.cur = child(t, s.cur, from);
			s.ip = from;
			s.ip_k = kf;
		} else if (!s.invalid) {
			switch_to(&s, from); /* within the frame (or a tail call) */
			s.ip = from;
			s.ip_k = kf;
		} else {
			/* Inconsistent: go on as if there were no stack. */
			if (!cleared)
				st->inconsistent += cnt;
			cleared = 1;
			s.ip = from;
			s.ip_k = kf;
			s.cur = child(t, SPGO_CS_ROOT, from);
		}
		if (to == SPGO_AGG_EXTERNAL)
			continue;
		/* On the leaf frame (DWARF), on its parent in probe mode: the
		 * call probe at the source carries the leaf's inline context. */
		uint32_t at = s.cur;
		if (src_ext)
			at = SPGO_CS_ROOT;
		else if (t->probes)
			at = t->nodes.v[s.cur].parent;
		*cached_upsert(t, 2, &t->branches, at, from, to) += cnt;
	}
	st->unwound += cnt;
	return 1;
}

/* ---- recursion compression ------------------------------------------------------ */

static int item_eq(const unsigned char *b, size_t size, size_t i, size_t j)
{
	return !memcmp(b + i * size, b + j * size, size);
}

/*
 * Remove adjacent repeats of sequences of length 1, 2, ... up to limit (or
 * half the length): [a, b, c, b, c] -> [a, b, c].  Sliding windows of 2L
 * items; on a repeat the right half is skipped, else the part that differs
 * is copied down (llvm-profgen's CSProfileGenerator::compressRecursionContext).
 */
size_t spgo_cs_compress(void *items, size_t n, size_t size, int limit)
{
	unsigned char *b = items;
	size_t max = n / 2;
	if (limit >= 0 && (size_t)limit < max)
		max = (size_t)limit;
	for (size_t len = 1; len <= max; len++) {
		long right = (long)len - 1, bound = 0;
		size_t end = len;
		while ((size_t)right + len < n) {
			long left = right;
			while (left >= bound && item_eq(b, size, (size_t)left, (size_t)left + len))
				left--;
			int dup = left < bound;
			bound = right + 1;
			if (dup) {
				right += (long)len;
			} else {
				size_t cnt = (size_t)(left + (long)len - right);
				memmove(b + end * size, b + (size_t)(right + 1) * size, cnt * size);
				end += cnt;
				right = left + (long)len;
			}
		}
		size_t rest = n - (size_t)right - 1;
		memmove(b + end * size, b + (size_t)(right + 1) * size, rest * size);
		end += rest;
		n = end;
		if (n / 2 < max)
			max = n / 2;
	}
	return n;
}
