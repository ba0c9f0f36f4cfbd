/*
 * gen_spe.c: LBR mode on Arm SPE data (one sampled branch per sample, the
 * ranges after each inferred: spgo/aggregate.h, spgo_agg_spe): the counts
 * from the ranges, then inference over each sampled function's CFG.
 *
 * SPE samples one branch in N; a stretch of code between two branches that
 * ran less often than about N times may have no sample at all, where an
 * LBR sample (16-32 branches in a row) would have covered it.  The range
 * counts of gen_lbr.c become block weights, and the inference algorithm of
 * IP mode (profi by default, --infer, --no-infer) makes them a consistent
 * flow, giving unsampled blocks a count where the flow needs one.  As in
 * IP mode, a result that keeps under a quarter of the sampled weight is
 * dropped for the counts as they were.
 *
 * A block without a count weighs 0, not unknown: every run through a block
 * follows one branch (taken to it, or not taken just before it), sampled
 * like any other, so its count estimates its executions as well as any
 * block's does, and no count says it ran fewer than about N times.  As
 * unknown, profi split a sampled branch's flow evenly over the paths
 * through it (rebalance.c): the then-block of an if that went unsampled
 * after hundreds of samples of its branch got half of them.  Only blocks
 * SPE cannot count at all (spgo_agg_spe_countable: no branch straight on
 * from them) are unknown.
 *
 * The weights go to profi in 1/SPE_INFER_SCALE sample, and its counts come
 * back rounded to samples.  Its flow is in whole units: in samples, a hot
 * loop in a function entered fewer than N times still needs one sample on
 * the path from the entry to it, for which profi raised every unsampled
 * block of that path to 1 or, where that cost more, dropped the loop's
 * small counts to 0.  A sixteenth of a sample rounds back to 0.
 */
#include <string.h>

#include "gen_impl.h"
#include "spgo/aggregate.h"
#include "spgo/infer.h"

#define SPE_INFER_SCALE 16

/* The instructions of blk: [*lo, *hi) in g->insns. */
static void block_span(const struct gen *g, const struct spgo_cfg_block *blk, size_t *lo, size_t *hi)
{
	*lo = gen_insn_lower(g, blk->addr);
	size_t i = *lo;
	while (i < g->ninsns && g->insns[i].addr < blk->addr + blk->size)
		i++;
	*hi = i;
}

/* Where a block's inferred count starts: a sampled block's ranges start
 * where code was entered, so straight-line code before its first counted
 * instruction (the padding in front of a computed goto's target, which
 * the CFG does not know) was not entered through, and keeps its 0.  A
 * branch or call in that stretch ends a sub-range of its own, sampled
 * apart (a rare block's two halves around a call): the block's count. */
static size_t counted_from(const struct gen *g, const struct spgo_cfg_block *blk, size_t lo, size_t hi)
{
	if (!blk->weight || blk->weight == SPGO_WEIGHT_UNKNOWN)
		return lo;
	size_t f = lo;
	while (f < hi && !g->count[f])
		f++;
	if (f == hi)
		return lo;
	for (size_t i = lo; i < f; i++)
		if (g->insns[i].cls != SPGO_INSN_OTHER)
			return lo;
	return f;
}

static void infer_function(struct gen *g, uint64_t entry, enum spgo_algo algo)
{
	struct spgo_cfg cfg;
	if (spgo_cfg_from_binary(&cfg, g->bin, entry, NULL) < 0) {
		spgo_cfg_free(&cfg);
		return;
	}
	uint64_t wsum = 0, known = 0;
	for (size_t b = 0; b < cfg.nblocks; b++) {
		struct spgo_cfg_block *blk = &cfg.blocks[b];
		size_t lo, hi;
		block_span(g, blk, &lo, &hi);
		uint64_t w = 0;
		for (size_t i = lo; i < hi; i++)
			if (g->count[i] > w)
				w = g->count[i];
		int countable = w || spgo_agg_spe_countable(g->agg, blk->addr);
		blk->weight = countable ? w * SPE_INFER_SCALE : SPGO_WEIGHT_UNKNOWN;
		blk->cost_scale = 0;
		wsum += w * (hi - lo);
		known += w != 0;
	}
	if (!known) {
		spgo_cfg_free(&cfg);
		return;
	}
	struct spgo_infer_opts opts;
	spgo_infer_defaults(&opts, algo);
	spgo_infer(&cfg, &opts);
	uint64_t fsum = 0;
	for (size_t b = 0; b < cfg.nblocks; b++) {
		cfg.blocks[b].count = (cfg.blocks[b].count + SPE_INFER_SCALE / 2) / SPE_INFER_SCALE;
		size_t lo, hi;
		block_span(g, &cfg.blocks[b], &lo, &hi);
		fsum += cfg.blocks[b].count * (hi - lo);
	}
	if (fsum < wsum / 4) { /* lost the sampled flow: keep the counts */
		g->st->infer_lost++;
		spgo_cfg_free(&cfg);
		return;
	}
	for (size_t b = 0; b < cfg.nblocks; b++) {
		size_t lo, hi;
		block_span(g, &cfg.blocks[b], &lo, &hi);
		lo = counted_from(g, &cfg.blocks[b], lo, hi);
		for (size_t i = lo; i < hi; i++) {
			g->st->insns_counted += cfg.blocks[b].count && !g->count[i];
			g->count[i] = cfg.blocks[b].count;
			g->present[i] |= cfg.blocks[b].count != 0;
		}
	}
	g->st->blocks += cfg.nblocks;
	g->st->inferred = 1;
	spgo_cfg_free(&cfg);
}

int gen_spe_infer(struct gen *g)
{
	if (!g->agg->stats.spe_records || g->o->no_infer)
		return 0;
	int algo = spgo_algo_parse(g->o->infer_algo ? g->o->infer_algo : SPGO_GEN_INFER_DEFAULT);
	if (algo < 0)
		return spgo_gen_check_infer(g->o->infer_algo);
	for (size_t f = 0; f < g->nfuncs; f++) {
		const struct spgo_function *fn = &g->funcs[f];
		if (fn->parent >= 0)
			continue; /* a split part: in its parent's CFG */
		size_t i = gen_insn_lower(g, fn->start);
		int sampled = 0;
		for (; i < g->ninsns && g->insns[i].addr < fn->end && !sampled; i++)
			sampled = g->count[i] != 0;
		if (sampled)
			infer_function(g, fn->start, (enum spgo_algo)algo);
	}
	return 0;
}
