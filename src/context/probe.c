/*
 * Probe-based CS profiles: the frame trie of a binary with pseudo-probes
 * (clang -fpseudo-probe-for-profiling) turned into a flat context-sensitive
 * profile keyed by probe ids, the way llvm-profgen 19 does it
 * (CSProfileGenerator::generateProbeBasedProfile,
 * populateBodySamplesWithProbes, populateBoundarySamplesWithProbes,
 * getContextNodeForLeafProbe; PerfReader's AddressStack).
 *
 * Only the probe records llvm-profgen decodes count: the inline trees of
 * the profiled functions (decoded_records).
 *
 * In probe mode the unwinder (unwind.c) records every range and branch
 * whole on the parent frame of the leaf: the trie path of that frame is
 * the context's list of call sites, and the probes inside the range carry
 * the rest of the context (their inline chains).  Here, per trie frame:
 *
 *  - its address context: the call sites root first, cut below the
 *    nearest external frame, recursion compressed on the addresses;
 *  - with missing-frame inference (llvm-profgen's default for probe
 *    profiles) the tail-call frames between those sites and the leaf
 *    probe's function are inserted (tailcall.c);
 *  - the context prefix: from the newest site back, each site's call
 *    probe (the first call probe at the address) expanded through its
 *    inline chain to (function, call-site probe id) frames; a site with no
 *    call probe (external, a return after no call, a call the compiler
 *    merged) ends the prefix there, the older sites are dropped;
 *  - each probe's leaf context: the prefix, then the probe's own inline
 *    chain, the leaf function last without a location; an inline site of
 *    probe id 0 (unknown) clears everything before it, as llvm-profgen's
 *    ProfiledBinary::getInlineContextForProbe does; then recursion is
 *    compressed on the frames (leaf excluded).
 *
 * Counts, all added (a duplicated probe's copies add up, no MAX):
 *  - body: every block probe at an instruction of the frame's ranges gets
 *    the instruction's count (the sum of the ranges covering it) at (probe
 *    id, probe discriminator) of its leaf context, and the context's total;
 *    the entry probe (id 1) adds head samples too, and when its function
 *    was inlined, the caller context gets the count as a body sample and a
 *    call target at the inline site (the call count of an inlined call);
 *  - boundary: a branch from a call probe's address adds the count to the
 *    call probe's body sample (and total) in its leaf context, and when the
 *    target is a function entry a call target at the call probe;
 *  - every probe of an inline-tree record that got a count in a context is
 *    written in that context, with 0 when it got none (the compiler then
 *    knows the block was cold, not optimized away);
 *  - every context carries its function's CFG checksum; a context whose
 *    leaf was inlined is marked so.
 * Call-site counts are not raised to their targets' sum (llvm-profgen does
 * that for line-based profiles only).
 */
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"
#include "spgo/probe.h"

/* One frame of a probe context: the function's name id and its location,
 * the probe id of the call site (0 for the leaf). */
struct pframe {
	uint32_t name, loc;
};

struct pgen {
	struct spgo_binary *bin;
	const struct spgo_cs_code *code;
	struct spgo_cs_trie *trie;
	const struct spgo_cs_opts *o;
	struct spgo_cs_stats *st;
	struct spgo_profile *p;
	struct spgo_cs_tailcalls *tc;
	const struct spgo_probe *probes;
	size_t nprobes;
	const struct spgo_probe_node *nodes;
	size_t nnodes;
	uint32_t *node_first;   /* probes of inline-tree record r:            */
	uint32_t *node_probes;  /*   node_probes[node_first[r] .. node_first[r + 1]) */
	uint8_t *node_ok;       /* record r's tree is one llvm-profgen decodes */
	struct spgo_kmap cache;   /* {trie node, probe record, leaf function} -> profile + 1 */
	struct spgo_kmap sampled; /* {probe record, profile}: counted block probes there */
	/* The prefix of one trie node (and leaf function, with inference). */
	uint32_t pre_node;
	long pre_func;
	int pre_valid;
	struct spgo_kmap cut_sites; /* call sites without a call probe seen */
	VEC(struct pframe) prefix, frames;
	VEC(uint64_t) addrs, addrs2;
	VEC(char) str;
	struct spgo_probe_frame fr[CS_MAX_INLINE];
};

/* ---- probes ------------------------------------------------------------------------ */

static int is_call_probe(const struct spgo_probe *p)
{
	return p->type == SPGO_PROBE_DIRECT_CALL || p->type == SPGO_PROBE_INDIRECT_CALL;
}

/*
 * Which inline trees count: llvm-profgen decodes the .pseudo_probe records
 * of the profiled functions only (its GUID filter: the GUIDs of the DWARF
 * functions the samples touch, cs_trie_profiled_guids), every record when
 * no function is profiled.  So a top-level record of another GUID lying
 * in a profiled function's code is not seen: its probes give no context
 * [.. @ foo] and are no call sites.  The code generator leaves such records
 * when it merges identical tails that inlined one function through
 * different chains (the merged probe's location keeps no inline chain),
 * often of a function with no body of its own.
 */
static void decoded_records(struct pgen *g)
{
	struct spgo_kmap guids;
	spgo_kmap_init(&guids, 1);
	cs_trie_profiled_guids(g->code, g->trie, 1, &guids);
	g->node_ok = xmalloc(g->nnodes + 1);
	for (size_t r = 0; r < g->nnodes; r++) {
		int32_t up = g->nodes[r].parent; /* parents come first */
		if (up >= 0)
			g->node_ok[r] = g->node_ok[up];
		else
			g->node_ok[r] = !guids.n || spgo_kmap_find(&guids, &g->nodes[r].guid);
	}
	spgo_kmap_free(&guids);
}

static int decoded(const struct pgen *g, const struct spgo_probe *p)
{
	return p->node >= g->nnodes || g->node_ok[p->node];
}

/* The call probe of a call site: the first call probe at addr (several
 * only when same-named static functions share a GUID), or NULL. */
static const struct spgo_probe *call_probe_at(struct pgen *g, uint64_t addr)
{
	if (addr == 0 || addr == SPGO_AGG_EXTERNAL)
		return NULL;
	size_t n;
	const struct spgo_probe *p = spgo_binary_probes_at(g->bin, addr, &n);
	for (size_t k = 0; k < n; k++)
		if (is_call_probe(&p[k]) && decoded(g, &p[k]))
			return &p[k];
	return NULL;
}

/* 1 if a probe lies in [start, end). */
static int has_probes(struct pgen *g, uint64_t start, uint64_t end)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, g->probes, g->nprobes, addr, start);
	return lo < g->nprobes && g->probes[lo].addr < end;
}

/* The probes of each inline-tree record (for the zero counts). */
static void index_records(struct pgen *g)
{
	g->node_first = xcalloc(g->nnodes + 2, sizeof *g->node_first);
	g->node_probes = xmalloc((g->nprobes + 1) * sizeof *g->node_probes);
	for (size_t i = 0; i < g->nprobes; i++)
		if (g->probes[i].node < g->nnodes)
			g->node_first[g->probes[i].node + 2]++;
	for (size_t r = 2; r < g->nnodes + 2; r++)
		g->node_first[r] += g->node_first[r - 1];
	for (size_t i = 0; i < g->nprobes; i++)
		if (g->probes[i].node < g->nnodes)
			g->node_probes[g->node_first[g->probes[i].node + 1]++] = (uint32_t)i;
}

/* The profile name of an inline frame: the descriptor's name (the name the
 * GUID was made from), else the GUID as a number (as LLVM prints an MD5
 * name). */
static uint32_t frame_name(struct pgen *g, const struct spgo_probe_frame *f)
{
	if (f->function)
		return spgo_name_id(g->p, f->function, strlen(f->function));
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)f->guid);
	return spgo_name_id(g->p, buf, (size_t)n);
}

/*
 * Append probe pr's inline chain to *v, root first: (function, call-site
 * probe id) per inline level, then (pr's function, pr's id).  An inline
 * site of id 0 (its call probe was lost) clears *v -- the prefix too -- and
 * the context starts at the function inlined there.
 */
static void append_chain(struct pgen *g, void *vec, const struct spgo_probe *pr)
{
	VEC(struct pframe) *v = vec;
	int n = spgo_probe_inline_chain(g->bin, pr, g->fr, CS_MAX_INLINE);
	if (n > CS_MAX_INLINE)
		n = CS_MAX_INLINE;
	for (int j = n - 1; j >= 0; j--) {
		if (j > 0 && g->fr[j].probe == 0) {
			v->n = 0;
			g->st->cut_zero_site++;
			continue;
		}
		struct pframe f = {frame_name(g, &g->fr[j]), g->fr[j].probe};
		VEC_PUSH(v, f);
	}
}

/* ---- contexts ---------------------------------------------------------------------- */

/*
 * The address context of trie node x into g->addrs (root first): its call
 * sites up to the nearest external frame, return-after-no-call frames (0)
 * kept, recursion compressed (llvm-profgen's AddressStack::getContextKey).
 */
static size_t addr_context(struct pgen *g, uint32_t x)
{
	const struct spgo_cs_trie *t = g->trie;
	g->addrs.n = 0;
	for (uint32_t y = x; y != SPGO_CS_ROOT; y = t->nodes.v[y].parent) {
		uint64_t a = t->nodes.v[y].addr;
		if (a == SPGO_AGG_EXTERNAL)
			break;
		VEC_PUSH(&g->addrs, a);
	}
	size_t n = g->addrs.n;
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t a = g->addrs.v[i];
		g->addrs.v[i] = g->addrs.v[n - 1 - i];
		g->addrs.v[n - 1 - i] = a;
	}
	g->addrs.n = spgo_cs_compress(g->addrs.v, n, sizeof *g->addrs.v, g->o->compress_recursion);
	return g->addrs.n;
}

/* The context prefix of trie node x for a leaf at leaf_addr (in function
 * leaf_func) into g->prefix (extractPrefixContextStack). */
static void build_prefix(struct pgen *g, uint32_t x, uint64_t leaf_addr, long leaf_func)
{
	if (g->pre_valid && g->pre_node == x && (!g->tc || g->pre_func == leaf_func))
		return;
	g->pre_valid = 1;
	g->pre_node = x;
	g->pre_func = leaf_func;
	size_t n = addr_context(g, x);
	const uint64_t *ctx = g->addrs.v;
	if (g->tc && n) {
		/* The leaf completes the last pair of the inference. */
		VEC_PUSH(&g->addrs, leaf_addr);
		size_t cap = 2 * (n + 1) + 64;
		VEC_GROW(&g->addrs2, cap);
		n = spgo_cs_infer_frames(g->tc, g->addrs.v, n + 1, g->addrs2.v, cap, g->st) - 1;
		ctx = g->addrs2.v;
	}
	size_t k = n;
	while (k > 0 && call_probe_at(g, ctx[k - 1]))
		k--;
	if (k > 0) {
		/* Count each call site without a call probe once. */
		uint64_t site = ctx[k - 1];
		uint64_t *seen = spgo_kmap_upsert(&g->cut_sites, &site);
		if (!*seen)
			g->st->cut_no_callprobe++;
		*seen = 1;
	}
	g->prefix.n = 0;
	for (size_t i = k; i < n; i++)
		append_chain(g, &g->prefix, call_probe_at(g, ctx[i]));
}

static void str_add(struct pgen *g, const char *s, size_t n)
{
	VEC_GROW(&g->str, g->str.n + n + 1);
	memcpy(g->str.v + g->str.n, s, n);
	g->str.n += n;
}

/* The profile of frames[0..n) (the last one the leaf), "f:1 @ g:3 @ h". */
static uint32_t frames_profile(struct pgen *g, const struct pframe *fr, size_t n)
{
	g->str.n = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		char buf[16];
		str_add(g, spgo_name(g->p, fr[i].name), spgo_name_len(g->p, fr[i].name));
		int k = snprintf(buf, sizeof buf, ":%u @ ", fr[i].loc);
		str_add(g, buf, (size_t)k);
	}
	str_add(g, spgo_name(g->p, fr[n - 1].name), spgo_name_len(g->p, fr[n - 1].name));
	return spgo_func_get_ctx(g->p, g->str.v, g->str.n);
}

static void set_checksum(struct pgen *g, uint32_t f, uint64_t guid)
{
	const struct spgo_probe_desc *d = spgo_binary_probe_desc(g->bin, guid);
	if (d)
		spgo_fn(g->p, f)->checksum = d->checksum;
}

/*
 * The profile of probe pr's leaf context under trie node x
 * (getContextNodeForLeafProbe).  With parent non-NULL, also the caller
 * context's profile (created; SPGO_NONE when the leaf has no caller
 * context) and the inline site in it.
 */
static uint32_t leaf_profile(struct pgen *g, uint32_t x, const struct spgo_probe *pr, uint32_t *parent,
			     uint32_t *site)
{
	long lf = cs_func_of(g->code, pr->addr);
	uint64_t key[3] = {x, pr->node, (uint64_t)lf};
	uint64_t *v = spgo_kmap_upsert(&g->cache, key);
	if (*v && !parent)
		return (uint32_t)(*v - 1);
	build_prefix(g, x, pr->addr, lf);
	g->frames.n = 0;
	VEC_GROW(&g->frames, g->prefix.n + 1);
	if (g->prefix.n) /* (an empty prefix may have no buffer yet) */
		memcpy(g->frames.v, g->prefix.v, g->prefix.n * sizeof *g->frames.v);
	g->frames.n = g->prefix.n;
	append_chain(g, &g->frames, pr);
	size_t m = g->frames.n - 1; /* the leaf keeps no location */
	struct pframe leaf = {g->frames.v[m].name, 0};
	m = spgo_cs_compress(g->frames.v, m, sizeof *g->frames.v, g->o->compress_recursion);
	m = cs_trim_depth(g->frames.v, m, sizeof *g->frames.v, g->o->max_context_depth);
	g->frames.v[m] = leaf;
	g->frames.n = m + 1;
	uint32_t f = frames_profile(g, g->frames.v, g->frames.n);
	set_checksum(g, f, pr->guid);
	if (pr->node < g->nnodes && g->nodes[pr->node].parent >= 0)
		spgo_fn(g->p, f)->attrs |= SPGO_ATTR_WAS_INLINED;
	*v = (uint64_t)f + 1;
	if (parent) {
		*parent = SPGO_NONE;
		if (m > 0) {
			*site = g->frames.v[m - 1].loc;
			struct pframe caller = {g->frames.v[m - 1].name, 0};
			g->frames.v[m - 1] = caller;
			*parent = frames_profile(g, g->frames.v, m);
		}
	}
	return f;
}

/* ---- body samples -------------------------------------------------------------------- */

/* The block probes at instruction k counted c times under trie node x. */
static void count_insn(struct pgen *g, uint32_t x, size_t k, uint64_t c)
{
	size_t n;
	const struct spgo_probe *pr = spgo_binary_probes_at(g->bin, g->code->insns[k].addr, &n);
	for (size_t i = 0; i < n; i++) {
		if (pr[i].type != SPGO_PROBE_BLOCK)
			continue;
		if (!decoded(g, &pr[i])) {
			g->st->probe_undecoded += c;
			continue;
		}
		int entry = pr[i].index == 1 && pr[i].node < g->nnodes && g->nodes[pr[i].node].parent >= 0;
		uint32_t parent = SPGO_NONE, site = 0;
		uint32_t f = leaf_profile(g, x, &pr[i], entry ? &parent : NULL, &site);
		uint64_t sk[2] = {pr[i].node, f};
		*spgo_kmap_upsert(&g->sampled, sk) = 1;
		spgo_add_body(g->p, f, pr[i].index, pr[i].discriminator, c);
		spgo_add_total(g->p, f, c);
		if (pr[i].index == 1)
			spgo_add_head(g->p, f, c);
		if (parent == SPGO_NONE)
			continue;
		/* An inlined function entered: the inliner's call-site count. */
		const struct spgo_probe_node *r = &g->nodes[pr[i].node];
		set_checksum(g, parent, g->nodes[r->parent].guid);
		spgo_add_body(g->p, parent, site, 0, c);
		spgo_add_total(g->p, parent, c);
		uint32_t b = spgo_body_get(g->p, parent, site, 0);
		spgo_add_target_id(g->p, b, spgo_fn(g->p, f)->name, c);
	}
}

struct body_arg {
	struct pgen *g;
	uint32_t x;
};

static void count_each(void *arg, size_t k, uint64_t c)
{
	struct body_arg *a = arg;
	count_insn(a->g, a->x, k, c);
}

/* Per trie node, its ranges swept once: each instruction's count is the
 * sum of the ranges that cover it. */
static void gen_bodies(struct pgen *g)
{
	const struct spgo_cs_code *c = g->code;
	uint64_t *rows = spgo_kmap_sorted(&g->trie->ranges);
	size_t nrows = g->trie->ranges.n;
	if (!g->o->preinline) /* only the pre-inliner's sizes read them again */
		spgo_kmap_free(&g->trie->ranges);
	cs_event_vec ev = {0};
	struct body_arg arg = {g, 0};
	for (size_t i = 0; i < nrows;) {
		uint64_t x = rows[4 * i];
		for (; i < nrows && rows[4 * i] == x; i++) {
			uint64_t begin = rows[4 * i + 1], end = rows[4 * i + 2], cnt = rows[4 * i + 3];
			long ib = cs_insn_index(c, begin), ie = cs_insn_index(c, end);
			if (ib < 0 || ie < ib)
				continue;
			if (!has_probes(g, begin, end + 1)) {
				const struct spgo_function *fn = spgo_binary_function_at(g->bin, begin);
				if (!fn || !has_probes(g, fn->start, fn->end))
					g->st->ranges_no_probe += cnt;
			}
			cs_range_add(&ev, (size_t)ib, (size_t)ie, cnt);
		}
		arg.x = (uint32_t)x;
		cs_sweep(&ev, count_each, &arg);
	}
	VEC_FREE(&ev);
	free(rows);
}

/* ---- boundary samples: calls --------------------------------------------------------- */

static void gen_boundaries(struct pgen *g)
{
	uint64_t *rows = spgo_kmap_sorted(&g->trie->branches);
	size_t nrows = g->trie->branches.n;
	int need_debug = spgo_binary_load_debug(g->bin) == 0;
	for (size_t i = 0; i < nrows; i++) {
		uint32_t x = (uint32_t)rows[4 * i];
		uint64_t from = rows[4 * i + 1], to = rows[4 * i + 2], cnt = rows[4 * i + 3];
		/* A target outside every function (a PLT stub) is external to
		 * llvm-profgen, which disassembles function symbols only: the
		 * branch does not count. */
		const struct spgo_probe *cp = call_probe_at(g, from);
		if (!cp || cs_func_of(g->code, to) < 0)
			continue;
		uint32_t f = leaf_profile(g, x, cp, NULL, NULL);
		spgo_add_body(g->p, f, cp->index, 0, cnt);
		spgo_add_total(g->p, f, cnt);
		const struct spgo_function *callee = cs_entry_at(g->bin, to, need_debug);
		if (!callee)
			continue;
		uint32_t b = spgo_body_get(g->p, f, cp->index, cp->discriminator);
		spgo_add_target_id(g->p, b, cs_name_id(g->p, callee->name), cnt);
	}
	free(rows);
}

/* Every probe of a record that was counted in a context, 0 if not hit. */
static void gen_zeros(struct pgen *g)
{
	uint64_t *rows = spgo_kmap_sorted(&g->sampled);
	for (size_t i = 0; i < g->sampled.n; i++) {
		uint64_t r = rows[3 * i];
		uint32_t f = (uint32_t)rows[3 * i + 1];
		for (uint32_t k = g->node_first[r]; k < g->node_first[r + 1]; k++) {
			const struct spgo_probe *pr = &g->probes[g->node_probes[k]];
			spgo_body_get(g->p, f, pr->index, pr->discriminator);
		}
	}
	free(rows);
}

/* ---- the driver ---------------------------------------------------------------------- */

struct spgo_profile *cs_probe_profile(struct spgo_binary *bin, const struct spgo_cs_code *code,
				      struct spgo_cs_trie *trie, const struct spgo_cs_opts *o,
				      struct spgo_cs_stats *st)
{
	struct pgen g;
	memset(&g, 0, sizeof g);
	g.bin = bin;
	g.code = code;
	g.trie = trie;
	g.o = o;
	g.st = st;
	g.p = spgo_profile_new();
	g.probes = spgo_binary_probes(bin, &g.nprobes);
	g.nodes = spgo_binary_probe_nodes(bin, &g.nnodes);
	index_records(&g);
	decoded_records(&g);
	spgo_kmap_init(&g.cache, 3);
	spgo_kmap_init(&g.sampled, 2);
	spgo_kmap_init(&g.cut_sites, 1);
	if (o->infer_missing_frames)
		g.tc = spgo_cs_tailcalls_new(trie);
	gen_bodies(&g);
	gen_boundaries(&g);
	gen_zeros(&g);
	spgo_cs_tailcalls_free(g.tc);
	spgo_kmap_free(&g.cache);
	spgo_kmap_free(&g.sampled);
	spgo_kmap_free(&g.cut_sites);
	free(g.node_first);
	free(g.node_probes);
	free(g.node_ok);
	VEC_FREE(&g.prefix);
	VEC_FREE(&g.frames);
	VEC_FREE(&g.addrs);
	VEC_FREE(&g.addrs2);
	VEC_FREE(&g.str);
	return g.p;
}

struct spgo_profile *spgo_cs_probe_profile(struct spgo_binary *bin, const struct spgo_cs_code *code,
					   struct spgo_cs_trie *trie, const struct spgo_cs_opts *o,
					   struct spgo_cs_stats *st)
{
	return cs_probe_profile(bin, code, trie, o, st);
}
