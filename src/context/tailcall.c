/*
 * Missing frames of tail calls (the CSSPGO paper, section III-B;
 * llvm-profgen's MissingFrameInferrer).  A tail call (a jump into another
 * function) leaves no frame on the stack: main calls a, a jumps to b, and a
 * sample in b shows main -> b.  From the code and the sampled branches we
 * build a graph: call edges (call site -> functions it was seen to call)
 * and tail-call edges (jump site -> functions it was seen to jump to).
 * Between a call site and the frame under it, when the callee is not a
 * known target of the call, a depth-first search looks for the chains of
 * tail calls from the call's targets to the frame's function; exactly one
 * chain inserts its jump sites as frames, none or several insert nothing.
 * Cycles are cut (a function on the current path is not entered again),
 * results are cached per (function, function).
 */
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"

struct edge {
	uint64_t a, b; /* (site, function) or (function, site) */
};

struct spgo_cs_tailcalls {
	const struct spgo_cs_code *code;
	VEC(struct edge) calls;      /* (call site, callee function), sorted */
	VEC(struct edge) tails;      /* (jump site, target function), sorted */
	VEC(struct edge) func_tails; /* (function, jump site), sorted */
	uint8_t *tail_target;        /* per function: reached by some tail call */
	uint8_t *visiting;           /* per function: on the current search path */
	struct spgo_kmap unique;     /* {from, to} -> pool offset << 32 | length */
	struct spgo_kmap multi;      /* {from, to} -> number of paths (0, >1) */
	VEC(uint64_t) pool;          /* unique paths' jump sites */
	VEC(uint64_t) path;          /* the search's current path */
};

long cs_func_of(const struct spgo_cs_code *c, uint64_t addr)
{
	size_t lo = cs_func_lower_bound(c, addr + 1);
	if (lo == 0 || addr >= c->funcs[lo - 1].end)
		return -1;
	long f = (long)lo - 1;
	return c->funcs[f].parent >= 0 ? c->funcs[f].parent : f;
}

static int cmp_edge(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static void sort_unique(void *vec_v, size_t *n)
{
	struct edge *v = vec_v;
	if (!*n)
		return;
	qsort(v, *n, sizeof *v, cmp_edge);
	size_t k = 1;
	for (size_t i = 1; i < *n; i++)
		if (cmp_edge(&v[i], &v[k - 1]))
			v[k++] = v[i];
	*n = k;
}

/* [*first, returned end) of the edges whose a == key. */
static size_t edges_of(const struct edge *v, size_t n, uint64_t key, size_t *first)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, v, n, a, key);
	size_t hi = lo;
	while (hi < n && v[hi].a == key)
		hi++;
	*first = lo;
	return hi;
}

struct spgo_cs_tailcalls *spgo_cs_tailcalls_new(const struct spgo_cs_trie *t)
{
	const struct spgo_cs_code *c = t->code;
	struct spgo_cs_tailcalls *tc = xcalloc(1, sizeof *tc);
	tc->code = c;
	tc->tail_target = xcalloc(c->nfuncs + 1, 1);
	tc->visiting = xcalloc(c->nfuncs + 1, 1);
	spgo_kmap_init(&tc->unique, 2);
	spgo_kmap_init(&tc->multi, 2);
	/* Only edges the LBR saw: calls from call instructions, tail calls
	 * from jumps (direct or indirect) into another function. */
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&t->branches, &it, &key, &val);) {
		uint64_t from = key[1], to = key[2];
		if (from == SPGO_AGG_EXTERNAL || to == SPGO_AGG_EXTERNAL)
			continue;
		long k = cs_insn_index(c, from);
		long tf = cs_func_of(c, to), ff = cs_func_of(c, from);
		if (k < 0 || tf < 0 || ff < 0)
			continue;
		unsigned cls = c->insns[k].cls;
		if (cls == SPGO_INSN_CALL || cls == SPGO_INSN_INDIRECT_CALL) {
			struct edge e = {from, (uint64_t)tf};
			VEC_PUSH(&tc->calls, e);
		} else if ((cls == SPGO_INSN_JUMP || cls == SPGO_INSN_INDIRECT_JUMP) && tf != ff) {
			struct edge e = {from, (uint64_t)tf}, r = {(uint64_t)ff, from};
			VEC_PUSH(&tc->tails, e);
			VEC_PUSH(&tc->func_tails, r);
			tc->tail_target[tf] = 1;
		}
	}
	sort_unique(tc->calls.v, &tc->calls.n);
	sort_unique(tc->tails.v, &tc->tails.n);
	sort_unique(tc->func_tails.v, &tc->func_tails.n);
	return tc;
}

void spgo_cs_tailcalls_free(struct spgo_cs_tailcalls *tc)
{
	if (!tc)
		return;
	VEC_FREE(&tc->calls);
	VEC_FREE(&tc->tails);
	VEC_FREE(&tc->func_tails);
	free(tc->tail_target);
	free(tc->visiting);
	spgo_kmap_free(&tc->unique);
	spgo_kmap_free(&tc->multi);
	VEC_FREE(&tc->pool);
	VEC_FREE(&tc->path);
	free(tc);
}

static uint64_t paths_from_site(struct spgo_cs_tailcalls *tc, uint64_t site, uint64_t to, unsigned depth);

/* Chains of tail calls from function `from` to function `to` (0, 1 or
 * more; stops counting at 2); the unique one is appended to tc->path. */
static uint64_t paths_from_func(struct spgo_cs_tailcalls *tc, uint64_t from, uint64_t to, unsigned depth)
{
	if (from == to)
		return 1;
	if (tc->visiting[from])
		return 0; /* a cycle: the same path again */
	uint64_t key[2] = {from, to};
	uint64_t *u = spgo_kmap_find(&tc->unique, key);
	if (u) {
		size_t off = (size_t)(*u >> 32), len = (size_t)(*u & 0xffffffff);
		for (size_t i = 0; i < len; i++)
			VEC_PUSH(&tc->path, tc->pool.v[off + i]);
		return 1;
	}
	uint64_t *m = spgo_kmap_find(&tc->multi, key);
	if (m)
		return *m;
	size_t first, end = edges_of(tc->func_tails.v, tc->func_tails.n, from, &first);
	if (first == end || depth > 4096)
		return 0;
	size_t pos = tc->path.n;
	tc->visiting[from] = 1;
	uint64_t n = 0;
	for (size_t i = first; i < end && n <= 1; i++)
		n += paths_from_site(tc, tc->func_tails.v[i].b, to, depth + 1);
	tc->visiting[from] = 0;
	if (n != 1) {
		tc->path.n = pos;
		*spgo_kmap_upsert(&tc->multi, key) = n;
	} else {
		size_t len = tc->path.n - pos;
		uint64_t off = tc->pool.n;
		for (size_t i = 0; i < len; i++)
			VEC_PUSH(&tc->pool, tc->path.v[pos + i]);
		*spgo_kmap_upsert(&tc->unique, key) = off << 32 | len;
	}
	return n;
}

static uint64_t paths_from_site(struct spgo_cs_tailcalls *tc, uint64_t site, uint64_t to, unsigned depth)
{
	size_t first, end = edges_of(tc->tails.v, tc->tails.n, site, &first);
	if (first == end)
		return 0;
	size_t pos = tc->path.n;
	VEC_PUSH(&tc->path, site);
	uint64_t n = 0;
	for (size_t i = first; i < end && n <= 1; i++)
		n += paths_from_func(tc, tc->tails.v[i].b, to, depth);
	if (n != 1)
		tc->path.n = pos;
	return n;
}

/* Append the frames between call site `from` and frame address `to` to
 * tc->path (after `from` itself). */
static void infer_pair(struct spgo_cs_tailcalls *tc, uint64_t from, uint64_t to, struct spgo_cs_stats *st)
{
	VEC_PUSH(&tc->path, from);
	size_t pos = tc->path.n;
	long tf = cs_func_of(tc->code, to);
	size_t first, end = edges_of(tc->calls.v, tc->calls.n, from, &first);
	if (tf < 0 || first == end)
		return;
	for (size_t i = first; i < end; i++)
		if (tc->calls.v[i].b == (uint64_t)tf)
			return; /* called directly */
	if (!tc->tail_target[tf]) {
		st->tail_unreached++;
		return;
	}
	uint64_t n = 0;
	for (size_t i = first; i < end && n <= 1; i++)
		n += paths_from_func(tc, tc->calls.v[i].b, (uint64_t)tf, 0);
	if (n == 1) {
		st->tail_unique++;
		st->tail_frames += tc->path.n - pos;
	} else {
		tc->path.n = pos;
		if (n)
			st->tail_ambiguous++;
		else
			st->tail_unreached++;
	}
}

size_t spgo_cs_infer_frames(struct spgo_cs_tailcalls *tc, const uint64_t *ctx, size_t n,
			    uint64_t *out, size_t max, struct spgo_cs_stats *st)
{
	tc->path.n = 0;
	for (size_t i = 1; i < n; i++)
		infer_pair(tc, ctx[i - 1], ctx[i], st);
	if (n)
		VEC_PUSH(&tc->path, ctx[n - 1]);
	size_t m = tc->path.n < max ? tc->path.n : max;
	memcpy(out, tc->path.v, m * sizeof *out);
	return m;
}
