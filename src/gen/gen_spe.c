/*
 * gen_spe.c: LBR mode on Arm SPE data (one sampled branch per sample, the
 * ranges after each inferred: spgo/aggregate.h, spgo_agg_spe): the counts
 * from the ranges, then inference over each sampled function's CFG.
 *
 * SPE samples one branch in N; a stretch of code between two branches that
 * ran less often than about N times may have no sample at all, where an
 * LBR sample (16-32 branches in a row) would have covered it.  The range
 * counts of gen_lbr.c become block weights (a block without a count is
 * unknown, not zero: unsampled is not unexecuted), and the inference
 * algorithm of IP mode (profi by default, --infer, --no-infer) makes them
 * a consistent flow, filling the unsampled blocks from their neighbours.
 * As in IP mode, a result that keeps under a quarter of the sampled weight
 * is dropped for the counts as they were.
 */
#include <string.h>

#include "gen_impl.h"
#include "spgo/aggregate.h"
#include "spgo/infer.h"

/* The instructions of blk: [*lo, *hi) in g->insns. */
static void block_span(const struct gen *g, const struct spgo_cfg_block *blk, size_t *lo, size_t *hi)
{
	*lo = gen_insn_lower(g, blk->addr);
	size_t i = *lo;
	while (i < g->ninsns && g->insns[i].addr < blk->addr + blk->size)
		i++;
	*hi = i;
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
		blk->weight = w ? w : SPGO_WEIGHT_UNKNOWN;
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
