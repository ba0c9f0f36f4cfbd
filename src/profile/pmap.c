/*
 * llvm-profgen's SampleProfileMap replayed on contexts given as texts
 * (spgo_pmap_*, include/spgo/profile.h), over the libstdc++ hashtable of
 * llvm_map.c: each context keyed as LLVM 19 keys it, hash_combine_range
 * over its frames' hash codes (a frame: its function's name hash and the
 * call site in it, spgo_callsite_hash; the leaf's call site is 0).
 */
#include "profile/profile_impl.h"
#include "spgo/profile.h"

#include <stdlib.h>
#include <string.h>

typedef VEC(uint64_t) u64vec;

struct spgo_pmap {
	struct spgo_map map;
	int bad;
};

/* The frames' hash codes of ctx into *v (trie: the trie's child keys
 * instead, each name with the call site in its caller). */
static void frame_hashes(const char *ctx, int trie, u64vec *v)
{
	v->n = 0;
	unsigned long pline = 0, pdisc = 0;
	const char *s = ctx;
	do {
		const char *f = s, *end;
		unsigned long line, disc;
		spgo_ctx_next_frame(&s, &end, &line, &disc);
		size_t len = (size_t)(end - f);
		VEC_PUSH(v, trie ? spgo_callsite_hash_str(f, len, (uint32_t)pline, (uint32_t)pdisc)
				 : spgo_callsite_hash_str(f, len, (uint32_t)line, (uint32_t)disc));
		pline = line;
		pdisc = disc;
	} while (*s);
}

static uint64_t ctx_key(const char *ctx)
{
	u64vec v = {0};
	frame_hashes(ctx, 0, &v);
	uint64_t k = spgo_llvm_hash_u64s(v.v, v.n);
	VEC_FREE(&v);
	return k;
}

struct spgo_pmap *spgo_pmap_new(void)
{
	struct spgo_pmap *m = xcalloc(1, sizeof *m);
	spgo_map_init(&m->map);
	return m;
}

void spgo_pmap_free(struct spgo_pmap *m)
{
	if (!m)
		return;
	spgo_map_free(&m->map);
	free(m);
}

int spgo_pmap_insert(struct spgo_pmap *m, const char *ctx, uint32_t tag)
{
	int rc = spgo_map_insert(&m->map, ctx_key(ctx), tag);
	if (rc < 0)
		m->bad = 1;
	return rc;
}

int spgo_pmap_has(const struct spgo_pmap *m, const char *ctx)
{
	return spgo_map_has(&m->map, ctx_key(ctx));
}

void spgo_pmap_erase(struct spgo_pmap *m, const char *ctx)
{
	spgo_map_erase(&m->map, ctx_key(ctx));
}

uint32_t *spgo_pmap_tags(const struct spgo_pmap *m, size_t *n)
{
	*n = 0;
	if (m->bad)
		return NULL;
	uint32_t *v = xmalloc((m->map.count + 1) * sizeof *v);
	for (uint32_t x = spgo_map_first(&m->map); x != UINT32_MAX; x = spgo_map_next(&m->map, x))
		v[(*n)++] = m->map.nodes.v[x].tag;
	return v;
}

size_t spgo_pmap_buckets(const struct spgo_pmap *m)
{
	return m->map.nbkt;
}

/* ---- the trie's depth-first order ------------------------------------------ */

/* A preorder walk of a trie whose children are ordered by key visits the
 * contexts in the lexicographic order of their paths' keys, a context
 * before those it is a prefix of. */
struct path {
	size_t off, n; /* keys[off, off + n) */
};
static _Thread_local const uint64_t *sort_keys;
static _Thread_local const struct path *sort_paths;

static int cmp_path(const void *a, const void *b)
{
	const struct path *x = &sort_paths[*(const uint32_t *)a], *y = &sort_paths[*(const uint32_t *)b];
	const uint64_t *kx = sort_keys + x->off, *ky = sort_keys + y->off;
	for (size_t i = 0; i < x->n && i < y->n; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

uint32_t *spgo_pmap_trie_order(const struct spgo_profile *p)
{
	size_t n = p->top.n;
	struct path *paths = xmalloc((n + 1) * sizeof *paths);
	u64vec keys = {0}, one = {0};
	for (size_t i = 0; i < n; i++) {
		const struct spgo_func *fn = &p->funcs.v[p->top.v[i]];
		if (fn->ctx == SPGO_NONE) {
			free(paths);
			VEC_FREE(&keys);
			VEC_FREE(&one);
			return NULL;
		}
		frame_hashes(spgo_strtab_get(&p->contexts, fn->ctx), 1, &one);
		paths[i].off = keys.n;
		paths[i].n = one.n;
		for (size_t k = 0; k < one.n; k++)
			VEC_PUSH(&keys, one.v[k]);
	}
	uint32_t *order = xmalloc((n + 1) * sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	sort_keys = keys.v;
	sort_paths = paths;
	spgo_sort(order, n, sizeof *order, cmp_path);
	free(paths);
	VEC_FREE(&keys);
	VEC_FREE(&one);
	return order;
}
