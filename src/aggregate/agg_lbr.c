/*
 * agg_lbr.c: a sample's LBR into the aggregate's branches and ranges, and
 * into a later stage's counts (spgo_agg_on_lbr: the layout stage's).
 *
 * A capture repeats a few hundred distinct branches millions of times, so
 * each entry costs two lookups in small dense tables that stay in the
 * cache, instead of two address translations, a function check and two
 * counting-table updates:
 *  - an edge: a distinct (pid, from, to) of the raw entries, mapped to the
 *    binary once, when first seen, with the weight of its branch (and, for
 *    the sink, the times it was taken and mispredicted);
 *  - a pair: two neighbouring entries (older, newer) as edge numbers, with
 *    its samples and weight (and the sink's count): the range between them
 *    is [older's to, newer's from].
 * One memo serves both: with a sink, the entries of a sample are looked up
 * once for the aggregate and the sink.  The two differ on what they take:
 * the sink takes every entry of every sample with a branch stack it is
 * fed, the aggregate leaves out records of a mispredicted path (its pairs
 * bridge them) and whole samples (SPE, a leaf in a prologue:
 * agg_lbr_sink_feed); a pair only one of them counted has the other's
 * counts 0.  Neither takes samples of another event than the one
 * selected.
 * The edges and pairs go into the counting tables (where the ranges are
 * checked and their statistics counted) and to the sink when the
 * aggregate's mappings change (map_epoch: what an edge mapped to holds
 * only until then), when the tables grow large, when the functions or what
 * is kept change, and at spgo_agg_finish; the sums are those of counting
 * each entry on its own.  An address taken as the binary's own by default
 * (agg_map.c: own_by_default, which a later match ends without a new
 * epoch) is mapped each time it is seen, for the sink too.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/aggregate.h"
#include "aggregate_impl.h"

struct lbr_edge {
	struct spgo_agg_lbr_edge m; /* mapped (the binary's, or SPGO_AGG_EXTERNAL); the sink's counts */
	uint64_t from, to;	    /* the entry's raw addresses */
	uint64_t w;		    /* the branch's weight so far */
	uint32_t pid;
	uint32_t own;		    /* mapped by default: in no table, never found */
};

struct lbr_pair {
	uint64_t key;	      /* older edge << 32 | newer edge */
	uint64_t samples, w; /* the range's samples (statistics) and weight */
	uint64_t count;	      /* the sink's */
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
	VEC(uint32_t) ids;     /* a sample's entries as edges: the aggregate's, then all */
	struct spgo_agg_lbr_sink sink; /* spgo_agg_on_lbr; edge NULL: none */
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

static struct agg_lbr_memo *memo_of(struct spgo_agg_impl *I)
{
	if (SPGO_LIKELY(I->lbr != NULL))
		return I->lbr;
	struct agg_lbr_memo *M = xcalloc(1, sizeof *M);
	M->ebits = EBITS_MIN;
	M->pbits = PBITS_MIN;
	M->etab = xcalloc((size_t)1 << M->ebits, sizeof *M->etab);
	M->ptab = xcalloc((size_t)1 << M->pbits, sizeof *M->ptab);
	I->lbr = M;
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

void spgo_agg_on_lbr(struct spgo_aggregate *a, const struct spgo_agg_lbr_sink *sink)
{
	agg_lbr_flush(a); /* (what was counted before goes to the sink before) */
	struct agg_lbr_memo *M = memo_of(a->impl);
	if (sink && sink->edge && sink->pair)
		M->sink = *sink;
	else
		memset(&M->sink, 0, sizeof M->sink);
}

/* A new edge (pid, from, to), mapped, at slot j of the table (the miss of
 * edge_of, out of its way). */
static __attribute__((noinline)) uint32_t edge_add(struct spgo_aggregate *a, struct agg_lbr_memo *M, uint32_t pid,
						   uint64_t from, uint64_t to, size_t j)
{
	uint64_t assumed = a->impl->assumed;
	struct lbr_edge x = {.from = from, .to = to, .pid = pid};
	if (spgo_agg_map(a, pid, spgo_perf_addr_cpumode(from), from, &x.m.from) < 0)
		x.m.from = SPGO_AGG_EXTERNAL;
	if (spgo_agg_map(a, pid, spgo_perf_addr_cpumode(to), to, &x.m.to) < 0)
		x.m.to = SPGO_AGG_EXTERNAL;
	x.own = a->impl->assumed != assumed;
	uint32_t id = (uint32_t)M->e.n;
	VEC_PUSH(&M->e, x);
	if (x.own)
		return id;
	M->etab[j] = id + 1;
	if (M->e.n * 2 > ((size_t)1 << M->ebits)) {
		free(M->etab);
		M->etab = rehash(M, 1, ++M->ebits);
	}
	return id;
}

/* The edge of (pid, from, to), added (and mapped) if new. */
static inline uint32_t edge_of(struct spgo_aggregate *a, struct agg_lbr_memo *M, uint32_t pid, uint64_t from,
			       uint64_t to)
{
	size_t mask = ((size_t)1 << M->ebits) - 1, j = edge_slot(from, to, pid, M->ebits);
	for (;; j = (j + 1) & mask) {
		uint32_t k = M->etab[j];
		if (!k)
			return edge_add(a, M, pid, from, to, j);
		const struct lbr_edge *x = &M->e.v[k - 1];
		if (SPGO_LIKELY(x->from == from && x->to == to && x->pid == pid))
			return k - 1;
	}
}

/* A new pair at slot j (the miss of pair_add). */
static __attribute__((noinline)) void pair_new(struct agg_lbr_memo *M, const struct lbr_pair *x, size_t j)
{
	VEC_PUSH(&M->p, *x);
	M->ptab[j] = (uint32_t)M->p.n;
	if (M->p.n * 2 > ((size_t)1 << M->pbits)) {
		free(M->ptab);
		M->ptab = rehash(M, 0, ++M->pbits);
	}
}

/* The pair key: samples and w the aggregate's, count the sink's. */
static inline void pair_add(struct agg_lbr_memo *M, uint64_t key, uint64_t samples, uint64_t w, uint64_t count)
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
			x->count += count;
			return;
		}
	}
	struct lbr_pair x = {key, samples, w, count};
	pair_new(M, &x, j);
}

/* The range of a pair: counted if both ends lie in the binary, in order,
 * in one function part; else the statistic of why not. */
static void flush_range(struct spgo_aggregate *a, const struct lbr_edge *older, const struct lbr_edge *newer,
			const struct lbr_pair *p)
{
	uint64_t begin = older->m.to, end = newer->m.from;
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
	const struct spgo_agg_lbr_sink *k = M->sink.edge ? &M->sink : NULL;
	for (size_t i = 0; i < M->e.n; i++) {
		const struct lbr_edge *x = &M->e.v[i];
		if ((x->m.from & x->m.to) != SPGO_AGG_EXTERNAL && x->w)
			agg_count_branch(a, x->m.from, x->m.to, x->w);
		if (k && x->m.taken)
			k->edge(k->ctx, &x->m);
	}
	for (size_t i = 0; i < M->p.n; i++) {
		const struct lbr_pair *p = &M->p.v[i];
		const struct lbr_edge *older = &M->e.v[p->key >> 32], *newer = &M->e.v[(uint32_t)p->key];
		if (p->samples) /* (0: a pair of the sink's alone) */
			flush_range(a, older, newer, p);
		if (k && p->count)
			k->pair(k->ctx, &older->m, &newer->m, p->count);
	}
	table_reset(&M->etab, &M->ebits, EBITS_MIN, M->e.n);
	table_reset(&M->ptab, &M->pbits, PBITS_MIN, M->p.n);
	M->e.n = M->p.n = 0;
}

/* The memo of a sample: flushed first when the mappings changed since, or
 * it is full. */
static inline struct agg_lbr_memo *memo_for_sample(struct spgo_aggregate *a)
{
	struct spgo_agg_impl *I = a->impl;
	struct agg_lbr_memo *M = memo_of(I);
	if (M->epoch != I->map_epoch || M->e.n > EDGES_MAX || M->p.n > PAIRS_MAX) {
		agg_lbr_flush(a);
		M->epoch = I->map_epoch;
	}
	return M;
}

/* The sink's count of a sample's n entries as edges ids[0..n). */
static inline void sink_pairs(struct agg_lbr_memo *M, const uint32_t *ids, uint64_t n, uint64_t times)
{
	for (uint64_t i = 0; i + 1 < n; i++)
		pair_add(M, (uint64_t)ids[i + 1] << 32 | ids[i], 0, 0, times);
}

void agg_lbr_sink_feed(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, uint64_t times)
{
	if (!a->impl->lbr || !a->impl->lbr->sink.edge || !s->branch_nr)
		return;
	struct agg_lbr_memo *M = memo_for_sample(a);
	uint64_t n = s->branch_nr;
	VEC_GROW(&M->ids, n);
	uint32_t *ids = M->ids.v;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t id = edge_of(a, M, pid, s->branches[i].from, s->branches[i].to);
		struct lbr_edge *x = &M->e.v[id];
		x->m.taken += times;
		if (s->branches[i].mispred)
			x->m.mispred += times;
		ids[i] = id;
	}
	sink_pairs(M, ids, n, times);
}

void spgo_agg_lbr_sink_feed(struct spgo_aggregate *a, const struct spgo_perf_sample *s)
{
	agg_lbr_sink_feed(a, s, s->pid, s->count ? s->count : 1);
}

/*
 * One sample's n LBR entries (newest first), times times: mapped into
 * I->mf (from, to per entry kept), the branches counted (as samples in the
 * statistics, weighted in the table), and the ranges between neighbours;
 * with a sink, every entry and pair counted for it too; returns the
 * entries kept (a record of a mispredicted path is not).
 */
uint64_t agg_lbr_feed(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int weigh,
		      uint64_t times)
{
	struct spgo_agg_impl *I = a->impl;
	struct agg_lbr_memo *M = memo_for_sample(a);
	uint64_t n = s->branch_nr;
	int sink = M->sink.edge != NULL, bridged = 0;
	VEC_GROW(&I->mf, 2 * n);
	VEC_GROW(&M->ids, 2 * n);
	uint64_t *mf = I->mf.v;
	uint32_t *ids = M->ids.v, *all = M->ids.v + n; /* the aggregate's entries; all of them */
	uint64_t inside = 0; /* entries touching the binary */
	uint64_t k = 0;	     /* entries kept */
	for (uint64_t i = 0; i < n; i++) {
		const struct perf_branch_entry *b = &s->branches[i];
		/* A record of a mispredicted path (AMD LbrExtV2) never
		 * retired: the ranges go from the record before it to the one
		 * after (the sink takes it as any other). */
		if (SPGO_UNLIKELY(b->spec == PERF_BR_SPEC_WRONG_PATH)) {
			a->stats.lbr_wrong_path += times;
			bridged = 1;
			if (sink) {
				uint32_t id = edge_of(a, M, pid, b->from, b->to);
				M->e.v[id].m.taken += times;
				M->e.v[id].m.mispred += b->mispred ? times : 0;
				all[i] = id;
			}
			continue;
		}
		uint64_t f = b->from, t = b->to;
		if (SPGO_UNLIKELY(!f || !t))
			a->stats.lbr_zero += times;
		if ((f ^ t) >> 63) /* between user and kernel space */
			a->stats.branches_user_kernel += times;
		uint32_t id = edge_of(a, M, pid, f, t);
		struct lbr_edge *x = &M->e.v[id];
		x->m.taken += times;
		x->m.mispred += b->mispred ? times : 0;
		mf[2 * k] = x->m.from;
		mf[2 * k + 1] = x->m.to;
		inside += (x->m.from & x->m.to) != SPGO_AGG_EXTERNAL;
		all[i] = id;
		ids[k++] = id;
	}
	/* the ranges' and branches' weight (the statistics stay in samples) */
	uint64_t w = weigh ? agg_period_weight(times, I->period, inside) : times;
	for (uint64_t i = 0; i < k; i++) {
		struct lbr_edge *x = &M->e.v[ids[i]];
		if ((x->m.from & x->m.to) != SPGO_AGG_EXTERNAL) {
			x->w += w;
			a->stats.branches += times;
		}
	}
	/* One pass for both, unless a record was bridged: the pairs differ. */
	uint64_t count = bridged ? 0 : times;
	for (uint64_t i = 0; i + 1 < k; i++)
		pair_add(M, (uint64_t)ids[i + 1] << 32 | ids[i], times, w, count);
	if (bridged && sink)
		sink_pairs(M, all, n, times);
	return k;
}
