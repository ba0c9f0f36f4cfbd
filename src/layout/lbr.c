/*
 * lbr.c: each sample's LBR counted the way BOLT aggregates it (see
 * layout.c), into L->lbr.
 *
 * The aggregate looks up each entry once, for its own ranges and branches
 * and for this stage (spgo_agg_on_lbr): a distinct (pid, from, to) mapped
 * to the binary once per mapping epoch, a pair of neighbouring entries
 * (older, newer) counted as one; it hands them here whenever it flushes
 * its own (a mapping changed, its tables are full, spgo_agg_finish).  An
 * entry gives a taken branch (and its mispredictions); a pair, the
 * fall-through range [older's to, newer's from], entered from older's
 * from, when both ends lie in one function (the binary's functions as
 * BOLT sees them, which the aggregate does not know).  What they add up
 * to is the same as counting each entry on its own.
 */
#include "layout/layout_impl.h"

static int same_func(const struct lay *L, long f, uint64_t addr)
{
	return f >= 0 && addr != SPGO_AGG_EXTERNAL && addr >= L->fns.v[f].start && addr < L->fns.v[f].end;
}

static void lbr_edge(void *ctx, const struct spgo_agg_lbr_edge *e)
{
	struct lay *L = ctx;
	uint64_t key[2] = {e->from, e->to};
	if ((e->from & e->to) == SPGO_AGG_EXTERNAL)
		return;
	*spgo_kmap_upsert(&L->lbr.taken, key) += e->taken;
	if (e->mispred)
		*spgo_kmap_upsert(&L->lbr.mispred, key) += e->mispred;
}

/* A pair is a range when both its ends lie in one function. */
static void lbr_pair(void *ctx, const struct spgo_agg_lbr_edge *older, const struct spgo_agg_lbr_edge *newer,
		     uint64_t count)
{
	struct lay *L = ctx;
	uint64_t begin = older->to, end = newer->from;
	long fn = begin == SPGO_AGG_EXTERNAL ? -1 : lay_func_at(L, begin);
	if (!same_func(L, fn, end))
		return;
	uint64_t key[3] = {begin, end, !same_func(L, fn, older->from)};
	*spgo_kmap_upsert(&L->lbr.traces, key) += count;
}

void lay_lbr_attach(struct lay *L)
{
	struct spgo_agg_lbr_sink sink = {.ctx = L, .edge = lbr_edge, .pair = lbr_pair};
	spgo_agg_on_lbr(L->agg, &sink);
}

/*
 * One sample's branch stack, newest first (spgo/aggregate.h), `times`
 * times: each entry is a taken branch; each pair of neighbours b[i+1], b[i]
 * a fall-through range [b[i+1].to, b[i].from] (counted when both ends lie in
 * one function, as perf2bolt counts its traces).  The entries themselves
 * are counted by the aggregate (lay_lbr_attach); here, the totals.
 */
void lay_lbr_count(struct lay *L, const struct spgo_perf_sample *s, uint64_t times)
{
	L->lbr.samples += times;
	L->lbr.entries += s->branch_nr * times;
}
