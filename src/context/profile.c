/*
 * From the frame trie to a flat context-sensitive profile (see
 * spgo/context.h; llvm-profgen 19's CSProfileGenerator for DWARF lines:
 * generateLineNumBasedProfile, populateBodySamplesForFunction,
 * populateBoundarySamplesForFunction, populateInferredFunctionSamples,
 * updateFunctionSamples, postProcessProfiles without the preinliner).
 *
 * Every trie frame with ranges or branches gets its context: its address
 * context (spgo_cs_context, tail-call frames inserted on request) expanded
 * to inline frames, recursion compressed, written "main:3 @ foo:2.1 @ bar".
 * Frames whose contexts are equal pool their ranges, then each context's
 * ranges are swept once (sorted boundary events) to give every instruction
 * its count.
 */
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"

#define CTX_EMPTY (SPGO_NONE - 1) /* no context: the root, or no debug info */

/* One expanded frame: name id, call-site location (0 for the leaf). */
struct xframe {
	uint32_t name, line, disc;
};

/* The innermost location at an instruction (cached per instruction). */
struct leafloc {
	uint32_t line, disc, raw, dup;
	uint8_t done, ok;
};

struct csgen {
	struct spgo_binary *bin;
	struct spgo_cs_code *code;
	struct spgo_cs_trie *trie;
	const struct spgo_cs_opts *o;
	struct spgo_cs_stats *st;
	struct spgo_profile *p;
	struct spgo_cs_tailcalls *tc;
	uint32_t *node_ctx;      /* per trie node: context profile + 1, 0 = not yet */
	struct leafloc *leaf;    /* per instruction */
	VEC(uint64_t) addrs, addrs2;
	VEC(struct xframe) frames;
	VEC(char) str;
	struct spgo_frame fr[CS_MAX_INLINE];
	/* --cs-call-estimate entry */
	struct spgo_kmap copy_entry; /* {copy hash} -> (line << 32 | disc) + 1 */
	struct spgo_kmap parts_done; /* {function part start} */
	struct spgo_kmap entries;    /* {context profile} -> (line << 32 | disc) + 1 */
	uint8_t *key_inlined;        /* per node with a context text: its leaf was inlined */
};


/* ---- names and locations ----------------------------------------------------- */

uint32_t cs_name_id(struct spgo_profile *p, const char *name)
{
	return spgo_name_id(p, name, spgo_profgen_canonical_len(name, strlen(name)));
}

static uint32_t name_id(struct csgen *g, const char *name)
{
	return cs_name_id(g->p, name);
}

/* Named inline frames at addr, outermost first in g->fr[n - 1 ..]; returns
 * how many (0: no debug information names the code). */
static int named_frames(struct csgen *g, uint64_t addr, int *n_out)
{
	int n = spgo_binary_symbolize(g->bin, addr, g->fr, CS_MAX_INLINE);
	if (n > CS_MAX_INLINE)
		n = CS_MAX_INLINE;
	if (n < 0)
		n = 0;
	int named = 0;
	while (named < n && g->fr[n - 1 - named].function)
		named++;
	*n_out = n;
	return named;
}

/* Contexts read unsymbolized (trie->keys) do not say whether their leaf
 * was inlined (WasLeafInlined): their code does.  A frame's range starts
 * at its own address, a branch leaves from it. */
static void mark_key_inlined(struct csgen *g)
{
	const struct spgo_cs_trie *t = g->trie;
	g->key_inlined = xcalloc(t->nodes.n, 1);
	const struct spgo_kmap *m[2] = {&t->ranges, &t->branches};
	const uint64_t *key;
	uint64_t *val;
	for (int k = 0; k < 2; k++)
		for (size_t it = 0; spgo_kmap_next(m[k], &it, &key, &val);) {
			uint32_t x = (uint32_t)key[0];
			if (x >= t->keys.n || !t->keys.v[x] || g->key_inlined[x] || key[1] == SPGO_AGG_EXTERNAL)
				continue;
			int n;
			g->key_inlined[x] = named_frames(g, key[1], &n) > 1;
		}
}

static const struct leafloc *leaf_at(struct csgen *g, size_t k)
{
	struct leafloc *l = &g->leaf[k];
	if (l->done)
		return l;
	l->done = 1;
	int n, named = named_frames(g, g->code->insns[k].addr, &n);
	if (!named)
		return l;
	const struct spgo_frame *f = &g->fr[n - named]; /* the innermost named */
	l->ok = 1;
	l->line = (f->line - f->decl_line) & 0xffff;
	l->disc = f->base_discriminator;
	l->raw = f->discriminator;
	l->dup = f->dup_factor ? f->dup_factor : 1;
	return l;
}

static void str_add(struct csgen *g, const char *s, size_t n)
{
	VEC_GROW(&g->str, g->str.n + n + 1);
	memcpy(g->str.v + g->str.n, s, n);
	g->str.n += n;
}

static void str_loc(struct csgen *g, uint32_t line, uint32_t disc)
{
	char buf[32];
	str_add(g, buf, (size_t)spgo_profgen_loc(buf, sizeof buf, line, disc, ""));
}

/* ---- where inline copies start (--cs-call-estimate entry) ------------------------- */

/* A hash of the named frames in g->fr (the outermost at n - 1), the
 * innermost one's location left out: the same for every instruction of one
 * copy of a function (inlined or not). */
static uint64_t copy_hash(const struct csgen *g, int n, int named)
{
	uint64_t h = spgo_hash64((uint64_t)named + 0x51ed);
	for (int j = n - 1; j >= n - named; j--) {
		const struct spgo_frame *f = &g->fr[j];
		h = spgo_hash64(h ^ spgo_hash_bytes(f->function, strlen(f->function)));
		if (j > n - named)
			h = spgo_hash64(h ^ ((uint64_t)((f->line - f->decl_line) & 0xffff) << 32 |
					     f->discriminator));
	}
	return h;
}

static const struct leafloc *leaf_at(struct csgen *g, size_t k);

/* Every copy's smallest location in the function part holding addr,
 * scanned once per part. */
static void scan_part(struct csgen *g, uint64_t addr)
{
	const struct spgo_function *part = spgo_binary_function_at(g->bin, addr);
	if (!part)
		return;
	uint64_t key = part->start;
	uint64_t *done = spgo_kmap_upsert(&g->parts_done, &key);
	if (*done)
		return;
	*done = 1;
	long k = cs_insn_index(g->code, part->start);
	if (k < 0)
		return;
	for (size_t i = (size_t)k; i < g->code->ninsns && g->code->insns[i].addr < part->end; i++) {
		const struct leafloc *l = leaf_at(g, i);
		if (!l->ok)
			continue;
		int n, named = named_frames(g, g->code->insns[i].addr, &n);
		if (!named)
			continue;
		uint64_t h = copy_hash(g, n, named), loc = ((uint64_t)l->line << 32 | l->disc) + 1;
		uint64_t *slot = spgo_kmap_upsert(&g->copy_entry, &h);
		if (!*slot || loc < *slot)
			*slot = loc;
	}
}

/* Context profile f starts where the copy of code at addr starts. */
static void note_entry(struct csgen *g, uint32_t f, uint64_t addr)
{
	int n, named = named_frames(g, addr, &n);
	if (!named)
		return;
	uint64_t h = copy_hash(g, n, named);
	scan_part(g, addr);
	const uint64_t *loc = spgo_kmap_find(&g->copy_entry, &h);
	if (!loc)
		return;
	uint64_t key = f;
	uint64_t *slot = spgo_kmap_upsert(&g->entries, &key);
	if (!*slot || *loc < *slot)
		*slot = *loc;
}

/* ---- contexts ---------------------------------------------------------------------- */

/* The context profile of trie node x, or CTX_EMPTY. */
static uint32_t node_context(struct csgen *g, uint32_t x)
{
	if (g->node_ctx[x])
		return g->node_ctx[x] - 1;
	uint32_t result = CTX_EMPTY;
	if (x < g->trie->keys.n && g->trie->keys.v[x]) { /* a context read unsymbolized */
		const char *key = g->trie->keys.v[x];
		result = spgo_func_get_ctx(g->p, key, strlen(key));
		if (g->key_inlined[x])
			spgo_fn(g->p, result)->attrs |= SPGO_ATTR_WAS_INLINED;
		if (g->o->call_estimate == SPGO_CS_CALL_EST_ENTRY)
			note_entry(g, result, g->trie->nodes.v[x].addr);
		g->node_ctx[x] = result + 1;
		return result;
	}
	size_t n = spgo_cs_context(g->trie, x, g->addrs.v, g->addrs.cap);
	if (n > g->addrs.cap) {
		VEC_GROW(&g->addrs, n);
		n = spgo_cs_context(g->trie, x, g->addrs.v, g->addrs.cap);
	}
	const uint64_t *ctx = g->addrs.v;
	if (n && g->tc) {
		size_t cap = 2 * n + 64;
		VEC_GROW(&g->addrs2, cap);
		n = spgo_cs_infer_frames(g->tc, ctx, n, g->addrs2.v, cap, g->st);
		ctx = g->addrs2.v;
	}
	g->frames.n = 0;
	int leaf_inlined = 0;
	for (size_t i = 0; i < n; i++) {
		int nf, named = named_frames(g, ctx[i], &nf);
		if (!named) { /* llvm-profgen drops contexts with an unknown frame */
			g->frames.n = 0;
			break;
		}
		for (int j = nf - 1; j >= nf - named; j--) {
			const struct spgo_frame *f = &g->fr[j];
			struct xframe xf = {name_id(g, f->function), (f->line - f->decl_line) & 0xffff,
					    f->base_discriminator};
			VEC_PUSH(&g->frames, xf);
		}
		leaf_inlined = named > 1;
	}
	if (g->frames.n) {
		size_t m = g->frames.n - 1; /* the leaf keeps no location */
		m = spgo_cs_compress(g->frames.v, m, sizeof *g->frames.v, g->o->compress_recursion);
		struct xframe leaf_frame = g->frames.v[g->frames.n - 1];
		m = cs_trim_depth(g->frames.v, m, sizeof *g->frames.v, g->o->max_context_depth);
		g->frames.v[m] = leaf_frame;
		g->frames.n = m + 1;
		g->str.n = 0;
		for (size_t i = 0; i < m; i++) {
			const struct xframe *f = &g->frames.v[i];
			str_add(g, spgo_name(g->p, f->name), spgo_name_len(g->p, f->name));
			str_loc(g, f->line, f->disc);
			str_add(g, " @ ", 3);
		}
		uint32_t leaf = g->frames.v[m].name;
		str_add(g, spgo_name(g->p, leaf), spgo_name_len(g->p, leaf));
		result = spgo_func_get_ctx(g->p, g->str.v, g->str.n);
		if (leaf_inlined)
			spgo_fn(g->p, result)->attrs |= SPGO_ATTR_WAS_INLINED;
		if (g->o->call_estimate == SPGO_CS_CALL_EST_ENTRY)
			note_entry(g, result, ctx[n - 1]);
	}
	g->node_ctx[x] = result + 1;
	return result;
}

/* ---- body samples ------------------------------------------------------------------ */

void cs_range_add(cs_event_vec *ev, size_t begin, size_t end, uint64_t count)
{
	struct cs_event b = {begin, (int64_t)count}, e = {end + 1, -(int64_t)count};
	VEC_PUSH(ev, b);
	VEC_PUSH(ev, e);
}

static int cmp_event(const void *x, const void *y)
{
	const struct cs_event *a = x, *b = y;
	return a->k < b->k ? -1 : a->k > b->k;
}

void cs_sweep(cs_event_vec *ev, void (*each)(void *arg, size_t k, uint64_t count), void *arg)
{
	spgo_sort(ev->v, ev->n, sizeof *ev->v, cmp_event);
	int64_t sum = 0;
	for (size_t e = 0; e < ev->n; e++) {
		if (sum > 0)
			for (size_t k = ev->v[e - 1].k; k < ev->v[e].k; k++)
				each(arg, k, (uint64_t)sum);
		sum += ev->v[e].delta;
	}
	ev->n = 0;
}

static void count_insn(struct csgen *g, uint32_t f, size_t k, uint64_t c)
{
	const struct leafloc *l = leaf_at(g, k);
	if (!l->ok) {
		g->st->count_no_debug += c;
		return;
	}
	/* MAX over the location's instructions, scaled by the duplication
	 * factor; the total adds the count of every instruction. */
	uint64_t v = c * l->dup;
	uint32_t b = spgo_body_get(g->p, f, l->line, l->disc);
	if (g->p->bodies.v[b].count < v)
		g->p->bodies.v[b].count = v;
	spgo_add_total(g->p, f, c);
}

struct body_arg {
	struct csgen *g;
	uint32_t f;
};

static void count_each(void *arg, size_t k, uint64_t c)
{
	struct body_arg *a = arg;
	count_insn(a->g, a->f, k, c);
}

static void gen_bodies(struct csgen *g)
{
	const struct spgo_cs_code *c = g->code;
	struct spgo_kmap per = {0};
	spgo_kmap_init(&per, 3);
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&g->trie->ranges, &it, &key, &val);) {
		uint32_t f = node_context(g, (uint32_t)key[0]);
		if (f == CTX_EMPTY)
			continue;
		long ib = cs_insn_index(c, key[1]), ie = cs_insn_index(c, key[2]);
		if (ib < 0 || ie < ib)
			continue;
		uint64_t k[3] = {f, (uint64_t)ib, (uint64_t)ie};
		*spgo_kmap_upsert(&per, k) += *val;
	}
	uint64_t *rows = spgo_kmap_sorted(&per);
	cs_event_vec ev = {0};
	struct body_arg arg = {g, 0};
	for (size_t i = 0; i < per.n;) {
		uint64_t f = rows[4 * i];
		for (; i < per.n && rows[4 * i] == f; i++)
			cs_range_add(&ev, (size_t)rows[4 * i + 1], (size_t)rows[4 * i + 2], rows[4 * i + 3]);
		arg.f = (uint32_t)f;
		cs_sweep(&ev, count_each, &arg);
	}
	VEC_FREE(&ev);
	free(rows);
	spgo_kmap_free(&per);
}

/* ---- boundary samples: calls and head samples ---------------------------------------- */

const struct spgo_function *cs_entry_at(struct spgo_binary *bin, uint64_t addr, int need_debug)
{
	const struct spgo_function *f = spgo_binary_function_at(bin, addr);
	if (!f || f->start != addr || (need_debug && !f->has_debug))
		return NULL;
	if (f->parent >= 0 && !strstr(f->symbol, ".part."))
		return NULL;
	return f;
}

/* The context text of profile f into g->str (not NUL-terminated). */
static void str_ctx(struct csgen *g, uint32_t f)
{
	const char *s = spgo_func_key(g->p, f);
	g->str.n = 0;
	str_add(g, s, strlen(s));
}

static void gen_boundaries(struct csgen *g)
{
	const uint64_t *key;
	uint64_t *val;
	uint64_t *rows = spgo_kmap_sorted(&g->trie->branches);
	size_t nrows = g->trie->branches.n;
	(void)key;
	(void)val;
	for (size_t i = 0; i < nrows; i++) {
		uint32_t node = (uint32_t)rows[4 * i];
		uint64_t from = rows[4 * i + 1], to = rows[4 * i + 2], c = rows[4 * i + 3];
		/* (The frame's context exists whatever the branch: llvm-profgen
		 * makes a profile for every frame with a range or a branch, and
		 * an empty one still tells its caller the call site is live:
		 * spgo_cs_infer_callsites.) */
		uint32_t f = node == SPGO_CS_ROOT ? CTX_EMPTY : node_context(g, node);
		const struct spgo_function *callee = cs_entry_at(g->bin, to, 1);
		if (!callee)
			continue;
		uint32_t callee_name = name_id(g, callee->name);
		uint32_t line = 0, raw = 0;
		if (f != CTX_EMPTY) {
			long k = cs_insn_index(g->code, from);
			const struct leafloc *l = k >= 0 ? leaf_at(g, (size_t)k) : NULL;
			if (l && l->ok) {
				uint32_t b = spgo_body_get(g->p, f, l->line, l->disc);
				spgo_add_target_id(g->p, b, callee_name, c);
				line = l->line;
				raw = l->raw;
			}
			str_ctx(g, f);
			str_loc(g, line, raw);
			str_add(g, " @ ", 3);
		} else {
			g->str.n = 0;
		}
		str_add(g, spgo_name(g->p, callee_name), spgo_name_len(g->p, callee_name));
		uint32_t callee_ctx = spgo_func_get_ctx(g->p, g->str.v, g->str.n);
		spgo_add_head(g->p, callee_ctx, c);
	}
	free(rows);
}

/* ---- inferred call-site samples -------------------------------------------------------- */

static size_t ctx_depth(const char *s)
{
	size_t d = 0;
	for (const char *q = strstr(s, " @ "); q; q = strstr(q + 3, " @ "))
		d++;
	return d;
}

/* LLVM's getHeadSamplesEstimate for a flat CS profile without head samples:
 * the body sample at the smallest location, at least 1 if the total is not
 * 0, and 1 for a profile without body samples. */
static uint64_t head_estimate(const struct spgo_profile *p, uint32_t f)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	if (fn->head)
		return fn->head;
	const struct spgo_body *best = NULL;
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		const struct spgo_body *x = &p->bodies.v[b];
		if (!best || x->line < best->line || (x->line == best->line && x->disc < best->disc))
			best = x;
	}
	uint64_t c = best ? best->count : 0;
	if (!c)
		c = fn->total > 0;
	if (!c && !fn->nbodies)
		c = 1;
	return c;
}

/* 1 when f's code starts at loc ((line << 32 | disc) + 1) and that line
 * has no body sample (its entry never sampled: called rarely), else LLVM's
 * estimate. */
static uint64_t entry_estimate(const struct spgo_profile *p, uint32_t f, uint64_t loc)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	loc--;
	if (fn->head)
		return fn->head;
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		const struct spgo_body *x = &p->bodies.v[b];
		if (x->line == (uint32_t)(loc >> 32) && x->disc == (uint32_t)loc && x->count)
			return head_estimate(p, f);
	}
	return 1;
}

/*
 * A callee context without head samples was inlined (no call reached it):
 * its caller context gets the call-site count estimated from the callee's
 * entry (LLVM's rule, or with entries that of entry_estimate), children
 * before parents (the parents made here are handled at their own depth).
 */
void spgo_cs_infer_callsites(struct spgo_profile *p, const struct spgo_kmap *entries)
{
	size_t maxd = 0;
	for (size_t i = 0; i < p->top.n; i++) {
		size_t d = ctx_depth(spgo_func_key(p, p->top.v[i]));
		if (d > maxd)
			maxd = d;
	}
	VEC(char) str = {0};
	for (size_t d = maxd; d >= 1; d--) {
		for (size_t i = 0; i < p->top.n; i++) {
			uint32_t f = p->top.v[i];
			if (p->funcs.v[f].head)
				continue;
			const char *key = spgo_func_key(p, f);
			size_t kl = strlen(key);
			str.n = 0;
			VEC_GROW(&str, kl + 1);
			memcpy(str.v, key, kl + 1);
			if (ctx_depth(str.v) != d)
				continue;
			/* "a:1 @ b:2.3 @ c" -> parent "a:1 @ b", call site 2.3, callee c */
			char *s = str.v;
			char *at = NULL;
			for (char *q = strstr(s, " @ "); q; q = strstr(q + 3, " @ "))
				at = q;
			*at = '\0';
			char *colon = strrchr(s, ':');
			if (!colon)
				continue;
			uint32_t line = (uint32_t)strtoul(colon + 1, NULL, 10), disc = 0;
			char *dot = strchr(colon + 1, '.');
			if (dot)
				disc = (uint32_t)strtoul(dot + 1, NULL, 10);
			size_t plen = (size_t)(colon - s);
			uint64_t fk = f;
			const uint64_t *entry = entries ? spgo_kmap_find(entries, &fk) : NULL;
			uint64_t est = entry ? entry_estimate(p, f, *entry) : head_estimate(p, f);
			uint32_t callee = p->funcs.v[f].name;
			uint32_t parent = spgo_func_get_ctx(p, s, plen);
			uint32_t b = spgo_body_get(p, parent, line, disc);
			spgo_add_target_id(p, b, callee, est);
			p->bodies.v[b].count += est;
			spgo_add_total(p, parent, est);
		}
	}
	VEC_FREE(&str);
}

/* ---- cold contexts ------------------------------------------------------------------- */

/*
 * The hot threshold of a finalized flat CS profile (its summary is the
 * context-less one): llvm-profgen's getHotCountThreshold, the count of the
 * summary's first entry at or over o->cutoff_hot, or o->hot_count when set.
 */
uint64_t cs_hot_threshold(const struct spgo_profile *p, const struct spgo_cs_opts *o)
{
	if (o->hot_count >= 0)
		return (uint64_t)o->hot_count;
	return spgo_summary_min_count(&p->summary, o->cutoff_hot, SPGO_SUMMARY_LAST);
}

const char *cs_last_frames(const char *key, int k)
{
	const char *at = key + strlen(key);
	while (at > key) {
		const char *q = at - 1;
		while (q > key && !(q[0] == '@' && q[-1] == ' '))
			q--;
		if (q == key)
			return key;
		if (--k == 0)
			return q + 2;
		at = q - 1;
	}
	return key;
}

/*
 * Cold contexts (total under thr, the hot threshold computed before the
 * pre-inliner) as llvm-profgen's SampleContextTrimmer handles them: with
 * merging (o->merge_cold > 0), each merges into the context of its last
 * o->max_cold_depth frames (1: the base profile of its leaf function; a
 * hot profile there keeps its attributes, a new one has none); with
 * o->trim_cold, cold contexts are dropped, and so is a merged profile
 * that stays under thr where no hot one was.  Trimming without merging
 * after the pre-inliner (base_only) takes base profiles only, so that its
 * decisions stand.  Profiles of __cxx_global_var_init / __tls_init are
 * dropped (llvm-profgen's filterAmbiguousProfile).
 */
struct spgo_profile *cs_merge_cold(struct spgo_profile *p, const struct spgo_cs_opts *o, uint64_t thr,
				   int base_only, struct spgo_cs_stats *st)
{
	int merge = o->merge_cold > 0, trim = o->trim_cold;
	if (!merge && !trim)
		thr = 0;
	if (merge)
		base_only = 0;
	st->hot_threshold = thr;
	struct spgo_profile *q = spgo_profile_new(), *m = spgo_profile_new();
	uint32_t *namemap = xmalloc((p->names.n + 1) * sizeof *namemap);
	uint32_t *mnamemap = xmalloc((p->names.n + 1) * sizeof *mnamemap);
	for (size_t i = 0; i < p->names.n; i++)
		namemap[i] = mnamemap[i] = SPGO_NONE;
	uint8_t *colds = xcalloc(p->top.n + 1, 1);
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t f = p->top.v[i];
		const struct spgo_func *fn = &p->funcs.v[f];
		const char *key = spgo_func_key(p, f);
		int cold = thr && fn->total < thr && (!base_only || fn->ctx == SPGO_NONE ||
						      !strstr(key, " @ "));
		colds[i] = (uint8_t)cold;
		if (spgo_profgen_ambiguous(spgo_name(p, fn->name)))
			continue;
		if (!cold) {
			spgo_func_merge(q, spgo_func_get_ctx(q, key, strlen(key)), p, f, 1, namemap);
			continue;
		}
		st->contexts_cold++;
		if (!merge)
			continue;
		const char *to = cs_last_frames(key, o->max_cold_depth > 0 ? o->max_cold_depth : 1);
		uint32_t d = spgo_func_get_ctx(m, to, strlen(to));
		uint32_t attrs = m->funcs.v[d].attrs;
		spgo_func_merge(m, d, p, f, 1, mnamemap);
		m->funcs.v[d].attrs = attrs;
	}
	/* The merged cold profiles into the hot ones (a hot one keeps its
	 * attributes), or as new profiles unless trimmed. */
	uint32_t *qnamemap = xmalloc((m->names.n + 1) * sizeof *qnamemap);
	for (size_t i = 0; i < m->names.n; i++)
		qnamemap[i] = SPGO_NONE;
	for (size_t i = 0; i < m->top.n; i++) {
		uint32_t f = m->top.v[i];
		const char *key = spgo_func_key(m, f);
		uint32_t have = spgo_func_find_ctx(q, spgo_strtab_intern(&q->contexts, key, strlen(key)));
		if (trim && m->funcs.v[f].total < thr && have == SPGO_NONE)
			continue;
		uint32_t d = have != SPGO_NONE ? have : spgo_func_get_ctx(q, key, strlen(key));
		uint32_t attrs = q->funcs.v[d].attrs;
		spgo_func_merge(q, d, m, f, 1, qnamemap);
		q->funcs.v[d].attrs = have != SPGO_NONE ? attrs : 0;
	}
	free(qnamemap);
	free(namemap);
	free(mnamemap);
	spgo_profile_free(m);
	cs_map_order(q, p, colds, thr, merge ? (o->max_cold_depth > 0 ? o->max_cold_depth : 1) : 0, trim);
	free(colds);
	return q;
}

/* ---- the profile of a trie ------------------------------------------------------------- */

char **cs_line_keys(struct spgo_binary *bin, struct spgo_cs_code *code, struct spgo_cs_trie *trie,
		    const struct spgo_cs_opts *o, struct spgo_cs_stats *st)
{
	struct csgen g = {0};
	struct spgo_cs_opts keyed = *o;
	keyed.call_estimate = SPGO_CS_CALL_EST_FIRST; /* (no entries to note) */
	g.bin = bin;
	g.code = code;
	g.trie = trie;
	g.o = &keyed;
	g.st = st;
	g.p = spgo_profile_new();
	g.node_ctx = xcalloc(trie->nodes.n, sizeof *g.node_ctx);
	VEC_GROW(&g.addrs, 64);
	char **keys = xcalloc(trie->nodes.n, sizeof *keys);
	const struct spgo_kmap *m[2] = {&trie->ranges, &trie->branches};
	const uint64_t *key;
	uint64_t *val;
	for (int k = 0; k < 2; k++)
		for (size_t it = 0; spgo_kmap_next(m[k], &it, &key, &val);) {
			uint32_t x = (uint32_t)key[0];
			if (keys[x])
				continue;
			uint32_t f = x == SPGO_CS_ROOT ? CTX_EMPTY : node_context(&g, x);
			keys[x] = xstrdup(f == CTX_EMPTY ? "" : spgo_func_key(g.p, f));
		}
	free(g.node_ctx);
	VEC_FREE(&g.addrs);
	VEC_FREE(&g.addrs2);
	VEC_FREE(&g.frames);
	VEC_FREE(&g.str);
	spgo_profile_free(g.p);
	return keys;
}

/* The DWARF-line CS profile of the trie (before cold contexts are merged). */
struct spgo_profile *cs_line_profile(struct spgo_binary *bin, struct spgo_cs_code *code,
				     struct spgo_cs_trie *trie, const struct spgo_cs_opts *o,
				     struct spgo_cs_stats *st)
{
	struct csgen g = {0};
	g.bin = bin;
	g.code = code;
	g.trie = trie;
	g.o = o;
	g.st = st;
	g.p = spgo_profile_new();
	g.node_ctx = xcalloc(trie->nodes.n, sizeof *g.node_ctx);
	g.leaf = xcalloc(code->ninsns, sizeof *g.leaf);
	VEC_GROW(&g.addrs, 64);
	spgo_kmap_init(&g.copy_entry, 1);
	spgo_kmap_init(&g.parts_done, 1);
	spgo_kmap_init(&g.entries, 1);
	if (o->infer_missing_frames > 0)
		g.tc = spgo_cs_tailcalls_new(trie);
	mark_key_inlined(&g);
	gen_bodies(&g);
	gen_boundaries(&g);
	spgo_cs_infer_callsites(g.p, o->call_estimate == SPGO_CS_CALL_EST_ENTRY ? &g.entries : NULL);
	spgo_profgen_raise_to_targets(g.p);
	spgo_cs_tailcalls_free(g.tc);
	spgo_kmap_free(&g.copy_entry);
	spgo_kmap_free(&g.parts_done);
	spgo_kmap_free(&g.entries);
	free(g.node_ctx);
	free(g.key_inlined);
	free(g.leaf);
	VEC_FREE(&g.addrs);
	VEC_FREE(&g.addrs2);
	VEC_FREE(&g.frames);
	VEC_FREE(&g.str);
	return g.p;
}
