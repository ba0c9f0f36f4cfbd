/*
 * agg_lbr.c: a sample's LBR into the aggregate's branches and ranges.
 *
 * A capture repeats a few hundred distinct branches millions of times, so
 * each entry costs two lookups in small dense tables that stay in the
 * cache, instead of two address translations, a function check and two
 * counting-table updates:
 *  - an edge: a distinct (pid, from, to) of the raw entries, mapped to the
 *    binary once, when first seen, with the weight of its branch;
 *  - a pair: two neighbouring entries (older, newer) as edge numbers, with
 *    its samples and weight: the range between them is [older's to,
 *    newer's from].
 * The edges and pairs go into the counting tables (where the ranges are
 * checked and their statistics counted) when the aggregate's mappings
 * change (map_epoch: what an edge mapped to holds only until then), when
 * the tables grow large, when the functions or what is kept change, and at
 * spgo_agg_finish; the sums are those of counting each entry on its own.
 * An address taken as the binary's own by default (agg_map.c:
 * own_by_default, which a later match ends without a new epoch) is mapped
 * each time it is seen, as before.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/aggregate.h"
#include "aggregate_impl.h"

struct lbr_edge {
	uint64_t from, to;   /* the entry's raw addresses */
	uint64_t mfrom, mto; /* the binary's, or SPGO_AGG_EXTERNAL */
	uint64_t w;	     /* the branch's weight so far */
	uint32_t pid;
	uint32_t own;	     /* mapped by default: in no table, never found */
};

struct lbr_pair {
	uint64_t key;	      /* older edge << 32 | newer edge */
	uint64_t samples, w; /* the range's samples (statistics) and weight */
};

/* Past these many edges or pairs, the tables are flushed (bounds their
 * memory on a capture of many distinct branches). */
#define EDGES_MAX (1u << 16)
#define PAIRS_MAX (1u << 18)
#define EBITS_MIN 8 /* the tables' smallest sizes */
#define PBITS_MIN 10

struct agg_lbr_memo {
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

/* A table of 1 << bits slots for M's edges (e) or pairs. */
static uint32_t *rehash(const struct agg_lbr_memo *M, int e, unsigned bits)
{
	uint32_t *t = xcalloc((size_t)1 << bits, sizeof *t);
	size_t n = e ? M->e.n : M->p.n, mask = ((size_t)1 << bits) - 1;
	for (size_t i = 0; i < n; i++) {
		if (e && M->e.v[i].own)
			continue;
		size_t j = e ? edge_slot(M->e.v[i].from, M->e.v[i].to, M->e.v[i].pid, bits)
			     : pair_slot(M->p.v[i].key, bits);
		while (t[j])
			j = (j + 1) & mask;
		t[j] = (uint32_t)i + 1;
	}
	return t;
}

/* A table emptied after n entries went: at the size for them (a capture
 * whose mappings change every few samples flushes small tables often). */
static void table_reset(uint32_t **t, unsigned *bits, unsigned min_bits, size_t n)
{
	unsigned b = min_bits;
	while (((size_t)1 << b) < 2 * n)
		b++;
	if (b == *bits) {
		memset(*t, 0, ((size_t)1 << b) * sizeof **t);
	} else {
		free(*t);
		*t = xcalloc((size_t)1 << b, sizeof **t);
		*bits = b;
	}
}

static struct agg_lbr_memo *memo_new(void)
{
	struct agg_lbr_memo *M = xcalloc(1, sizeof *M);
	M->ebits = EBITS_MIN;
	M->pbits = PBITS_MIN;
	M->etab = xcalloc((size_t)1 << M->ebits, sizeof *M->etab);
	M->ptab = xcalloc((size_t)1 << M->pbits, sizeof *M->ptab);
	return M;
}

void agg_lbr_free(struct spgo_agg_impl *I)
{
	struct agg_lbr_memo *M = I->lbr;
	if (!M)
		return;
	VEC_FREE(&M->e);
	VEC_FREE(&M->p);
	VEC_FREE(&M->ids);
	free(M->etab);
	free(M->ptab);
	free(M);
	I->lbr = NULL;
}

/* The edge of (pid, from, to), added (and mapped) if new. */
static inline uint32_t edge_of(struct spgo_aggregate *a, struct agg_lbr_memo *M, uint32_t pid, uint64_t from,
			       uint64_t to)
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
	uint64_t assumed = a->impl->assumed;
	struct lbr_edge x = {.from = from, .to = to, .pid = pid};
	if (spgo_agg_map(a, pid, spgo_perf_addr_cpumode(from), from, &x.mfrom) < 0)
		x.mfrom = SPGO_AGG_EXTERNAL;
	if (spgo_agg_map(a, pid, spgo_perf_addr_cpumode(to), to, &x.mto) < 0)
		x.mto = SPGO_AGG_EXTERNAL;
	x.own = a->impl->assumed != assumed;
	uint32_t id = (uint32_t)M->e.n;
	VEC_PUSH(&M->e, x);
	if (x.own)
		return id;
	M->etab[j] = id + 1;
	if (M->e.n * 2 > mask + 1) {
		free(M->etab);
		M->etab = rehash(M, 1, ++M->ebits);
	}
	return id;
}

static inline void pair_add(struct agg_lbr_memo *M, uint64_t key, uint64_t samples, uint64_t w)
{
	size_t mask = ((size_t)1 << M->pbits) - 1, j = pair_slot(key, M->pbits);
	for (;; j = (j + 1) & mask) {
		uint32_t k = M->ptab[j];
		if (!k)
			break;
		struct lbr_pair *x = &M->p.v[k - 1];
		if (SPGO_LIKELY(x->key == key)) {
			x->samples += samples;
			x->w += w;
			return;
		}
	}
	struct lbr_pair x = {key, samples, w};
	VEC_PUSH(&M->p, x);
	M->ptab[j] = (uint32_t)M->p.n;
	if (M->p.n * 2 > mask + 1) {
		free(M->ptab);
		M->ptab = rehash(M, 0, ++M->pbits);
	}
}

/* The range of a pair: counted if both ends lie in the binary, in order,
 * in one function part; else the statistic of why not. */
static void flush_range(struct spgo_aggregate *a, const struct lbr_edge *older, const struct lbr_edge *newer,
			const struct lbr_pair *p)
{
	uint64_t begin = older->mto, end = newer->mfrom;
	if (begin == SPGO_AGG_EXTERNAL || end == SPGO_AGG_EXTERNAL) {
		if ((begin & end) != SPGO_AGG_EXTERNAL) {
			a->stats.ranges_external += p->samples;
			/* (one end in user space, the other in the kernel) */
			if ((older->to ^ newer->from) >> 63)
				a->stats.ranges_user_kernel += p->samples;
		}
	} else if (begin > end) {
		a->stats.ranges_reversed += p->samples;
	} else if (!agg_same_function(a, begin, end)) {
		a->stats.ranges_crossing += p->samples;
	} else {
		agg_count_range(a, begin, end, p->w);
		a->stats.ranges += p->samples;
	}
}

void agg_lbr_flush(struct spgo_aggregate *a)
{
	struct agg_lbr_memo *M = a->impl->lbr;
	if (!M)
		return;
	for (size_t i = 0; i < M->e.n; i++) {
		const struct lbr_edge *x = &M->e.v[i];
		if ((x->mfrom & x->mto) != SPGO_AGG_EXTERNAL && x->w)
			agg_count_branch(a, x->mfrom, x->mto, x->w);
	}
	for (size_t i = 0; i < M->p.n; i++) {
		const struct lbr_pair *p = &M->p.v[i];
		flush_range(a, &M->e.v[p->key >> 32], &M->e.v[(uint32_t)p->key], p);
	}
	table_reset(&M->etab, &M->ebits, EBITS_MIN, M->e.n);
	table_reset(&M->ptab, &M->pbits, PBITS_MIN, M->p.n);
	M->e.n = M->p.n = 0;
}

/*
 * One sample's n LBR entries (newest first), times times: mapped into
 * I->mf (from, to per entry kept), the branches counted (as samples in the
 * statistics, weighted in the table), and the ranges between neighbours;
 * returns the entries kept (a record of a mispredicted path is not).
 */
uint64_t agg_lbr_feed(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int weigh,
		      uint64_t times)
{
	struct spgo_agg_impl *I = a->impl;
	if (!I->lbr)
		I->lbr = memo_new();
	struct agg_lbr_memo *M = I->lbr;
	if (M->epoch != I->map_epoch || M->e.n > EDGES_MAX || M->p.n > PAIRS_MAX) {
		agg_lbr_flush(a);
		M->epoch = I->map_epoch;
	}
	uint64_t n = s->branch_nr;
	VEC_GROW(&I->mf, 2 * n);
	VEC_GROW(&M->ids, n);
	uint64_t *mf = I->mf.v;
	uint32_t *ids = M->ids.v;
	uint64_t inside = 0; /* entries touching the binary */
	uint64_t k = 0;	     /* entries kept */
	for (uint64_t i = 0; i < n; i++) {
		/* A record of a mispredicted path (AMD LbrExtV2) never
		 * retired: the ranges go from the record before it to the one
		 * after. */
		if (SPGO_UNLIKELY(s->branches[i].spec == PERF_BR_SPEC_WRONG_PATH)) {
			a->stats.lbr_wrong_path += times;
			continue;
		}
		uint64_t f = s->branches[i].from, t = s->branches[i].to;
		if (SPGO_UNLIKELY(!f || !t))
			a->stats.lbr_zero += times;
		if ((f ^ t) >> 63) /* between user and kernel space */
			a->stats.branches_user_kernel += times;
		uint32_t id = edge_of(a, M, pid, f, t);
		const struct lbr_edge *x = &M->e.v[id];
		mf[2 * k] = x->mfrom;
		mf[2 * k + 1] = x->mto;
		inside += (x->mfrom & x->mto) != SPGO_AGG_EXTERNAL;
		ids[k++] = id;
	}
	/* the ranges' and branches' weight (the statistics stay in samples) */
	uint64_t w = weigh ? agg_period_weight(times, I->period, inside) : times;
	for (uint64_t i = 0; i < k; i++) {
		struct lbr_edge *x = &M->e.v[ids[i]];
		if ((x->mfrom & x->mto) != SPGO_AGG_EXTERNAL) {
			x->w += w;
			a->stats.branches += times;
		}
	}
	for (uint64_t i = 0; i + 1 < k; i++)
		pair_add(M, (uint64_t)ids[i + 1] << 32 | ids[i], times, w);
	return k;
}
