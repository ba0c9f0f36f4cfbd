/*
 * lbr.c: each sample's LBR counted the way BOLT aggregates it (see
 * layout.c), into L->lbr.
 *
 * A capture repeats a few hundred distinct branches millions of times, so
 * the work per entry is kept to two lookups in small dense tables that stay
 * in the cache:
 *  - an edge: a distinct (pid, from, to) of the raw entries, mapped to the
 *    binary once, when first seen, with its taken and mispredicted counts;
 *  - a pair: two neighbouring entries (older, newer) as edge numbers, with
 *    its count: the fall-through range between them is [older's to,
 *    newer's from], entered from older's from.
 * The edges and pairs go into L->lbr's maps (where the binary's functions
 * decide which pairs are ranges) when the aggregate's mappings change
 * (spgo_agg_map_epoch: what an edge mapped to holds only until then), when
 * the tables grow large, and at the end; what they add up to is the same as
 * counting each entry on its own.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/layout_impl.h"

struct lbr_edge {
	uint64_t from, to;   /* the entry's raw addresses */
	uint64_t mfrom, mto; /* the binary's, or SPGO_AGG_EXTERNAL */
	uint64_t count, mis; /* times taken, mispredicted */
	uint32_t pid;
};

struct lbr_pair {
	uint64_t key; /* older edge << 32 | newer edge */
	uint64_t count;
};

/* Past these many edges or pairs, the tables go into the maps (bounds
 * their memory on a capture of many distinct branches). */
#define EDGES_MAX (1u << 16)
#define PAIRS_MAX (1u << 20)

struct lay_lbr_memo {
	uint64_t epoch;
	VEC(struct lbr_edge) e;
	VEC(struct lbr_pair) p;
	uint32_t *etab, *ptab; /* open addressing: index + 1, 0 empty */
	unsigned ebits, pbits; /* the tables have 1 << bits slots */
	VEC(uint32_t) ids;     /* a sample's entries as edges */
};

static inline size_t edge_slot(uint64_t from, uint64_t to, uint32_t pid, unsigned bits)
{
	uint64_t h = from * 0x9e3779b97f4a7c15ULL ^ (to + pid) * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 31;
	return (size_t)((h * 0xff51afd7ed558ccdULL) >> (64 - bits));
}

static inline size_t pair_slot(uint64_t key, unsigned bits)
{
	return (size_t)(((key ^ key >> 29) * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

/* Rebuild a table of 1 << bits slots for n entries (edges when e). */
static uint32_t *rehash(struct lay_lbr_memo *M, int e, unsigned bits)
{
	uint32_t *t = xcalloc((size_t)1 << bits, sizeof *t);
	size_t n = e ? M->e.n : M->p.n, mask = ((size_t)1 << bits) - 1;
	for (size_t i = 0; i < n; i++) {
		size_t j = e ? edge_slot(M->e.v[i].from, M->e.v[i].to, M->e.v[i].pid, bits)
			     : pair_slot(M->p.v[i].key, bits);
		while (t[j])
			j = (j + 1) & mask;
		t[j] = (uint32_t)i + 1;
	}
	return t;
}

struct lay_lbr_memo *lay_lbr_memo_new(void)
{
	struct lay_lbr_memo *M = xcalloc(1, sizeof *M);
	M->ebits = 10;
	M->pbits = 12;
	M->etab = xcalloc((size_t)1 << M->ebits, sizeof *M->etab);
	M->ptab = xcalloc((size_t)1 << M->pbits, sizeof *M->ptab);
	return M;
}

void lay_lbr_memo_free(struct lay_lbr_memo *M)
{
	if (!M)
		return;
	VEC_FREE(&M->e);
	VEC_FREE(&M->p);
	VEC_FREE(&M->ids);
	free(M->etab);
	free(M->ptab);
	free(M);
}

/* The edge of (pid, from, to), added (and mapped) if new. */
static inline uint32_t edge_of(struct lay *L, struct lay_lbr_memo *M, uint32_t pid, uint64_t from, uint64_t to)
{
	size_t mask = ((size_t)1 << M->ebits) - 1, j = edge_slot(from, to, pid, M->ebits);
	for (;; j = (j + 1) & mask) {
		uint32_t k = M->etab[j];
		if (!k)
			break;
		const struct lbr_edge *x = &M->e.v[k - 1];
		if (SPGO_LIKELY(x->from == from && x->to == to && x->pid == pid))
			return k - 1;
	}
	struct lbr_edge x = {.from = from, .to = to, .pid = pid};
	if (spgo_agg_map(L->agg, pid, spgo_perf_addr_cpumode(from), from, &x.mfrom) < 0)
		x.mfrom = SPGO_AGG_EXTERNAL;
	if (spgo_agg_map(L->agg, pid, spgo_perf_addr_cpumode(to), to, &x.mto) < 0)
		x.mto = SPGO_AGG_EXTERNAL;
	uint32_t id = (uint32_t)M->e.n;
	VEC_PUSH(&M->e, x);
	M->etab[j] = id + 1;
	if (M->e.n * 2 > mask + 1) {
		free(M->etab);
		M->etab = rehash(M, 1, ++M->ebits);
	}
	return id;
}

static inline void pair_add(struct lay_lbr_memo *M, uint64_t key, uint64_t times)
{
	size_t mask = ((size_t)1 << M->pbits) - 1, j = pair_slot(key, M->pbits);
	for (;; j = (j + 1) & mask) {
		uint32_t k = M->ptab[j];
		if (!k)
			break;
		if (SPGO_LIKELY(M->p.v[k - 1].key == key)) {
			M->p.v[k - 1].count += times;
			return;
		}
	}
	struct lbr_pair x = {key, times};
	VEC_PUSH(&M->p, x);
	M->ptab[j] = (uint32_t)M->p.n;
	if (M->p.n * 2 > mask + 1) {
		free(M->ptab);
		M->ptab = rehash(M, 0, ++M->pbits);
	}
}

static int same_func(const struct lay *L, long f, uint64_t addr)
{
	return f >= 0 && addr != SPGO_AGG_EXTERNAL && addr >= L->fns.v[f].start && addr < L->fns.v[f].end;
}

void lay_lbr_flush(struct lay *L)
{
	struct lay_lbr_memo *M = L->memo;
	struct lay_lbr *T = &L->lbr;
	for (size_t i = 0; i < M->e.n; i++) {
		const struct lbr_edge *x = &M->e.v[i];
		uint64_t key[2] = {x->mfrom, x->mto};
		if ((x->mfrom & x->mto) == SPGO_AGG_EXTERNAL)
			continue;
		*spgo_kmap_upsert(&T->taken, key) += x->count;
		if (x->mis)
			*spgo_kmap_upsert(&T->mispred, key) += x->mis;
	}
	/* A pair is a range when both its ends lie in one function. */
	for (size_t i = 0; i < M->p.n; i++) {
		const struct lbr_edge *older = &M->e.v[M->p.v[i].key >> 32], *newer = &M->e.v[(uint32_t)M->p.v[i].key];
		uint64_t begin = older->mto, end = newer->mfrom;
		long fn = begin == SPGO_AGG_EXTERNAL ? -1 : lay_func_at(L, begin);
		if (!same_func(L, fn, end))
			continue;
		uint64_t key[3] = {begin, end, !same_func(L, fn, older->mfrom)};
		*spgo_kmap_upsert(&T->traces, key) += M->p.v[i].count;
	}
	M->e.n = M->p.n = 0;
	memset(M->etab, 0, ((size_t)1 << M->ebits) * sizeof *M->etab);
	memset(M->ptab, 0, ((size_t)1 << M->pbits) * sizeof *M->ptab);
}

/*
 * One sample's branch stack, newest first (spgo/aggregate.h), `times`
 * times: each entry is a taken branch; each pair of neighbours b[i+1], b[i]
 * a fall-through range [b[i+1].to, b[i].from] (counted when both ends lie in
 * one function, as perf2bolt counts its traces).
 */
void lay_lbr_count(struct lay *L, const struct spgo_perf_sample *s, uint64_t times)
{
	struct lay_lbr_memo *M = L->memo;
	uint64_t epoch = spgo_agg_map_epoch(L->agg), n = s->branch_nr;
	if (epoch != M->epoch || M->e.n > EDGES_MAX || M->p.n > PAIRS_MAX) {
		lay_lbr_flush(L);
		M->epoch = epoch;
	}
	VEC_GROW(&M->ids, n);
	uint32_t *ids = M->ids.v;
	for (uint64_t i = 0; i < n; i++) {
		const struct perf_branch_entry *b = &s->branches[i];
		uint32_t id = edge_of(L, M, s->pid, b->from, b->to);
		struct lbr_edge *x = &M->e.v[id];
		x->count += times;
		if (b->mispred)
			x->mis += times;
		ids[i] = id;
	}
	for (uint64_t i = 0; i + 1 < n; i++)
		pair_add(M, (uint64_t)ids[i + 1] << 32 | ids[i], times);
	L->lbr.samples += times;
	L->lbr.entries += n * times;
}
