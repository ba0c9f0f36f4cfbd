/*
 * IP mode's profile inference: see gen_infer.h.  Without the inference
 * stage in the tree (spgo/infer.h), gen_infer_counts() says so and IP mode
 * keeps plain block averages.
 */
#include "gen_infer.h"

#if defined(__has_include)
#if __has_include("spgo/infer.h")
#define GEN_HAVE_INFER 1
#endif
#endif

#ifdef GEN_HAVE_INFER
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/infer.h"

int gen_infer_check(const char *algo)
{
	if (spgo_algo_parse(algo) < 0)
		return spgo_error("unknown inference algorithm '%s' (profi, mcf, fp, quadratic, none)",
				  algo);
	return 0;
}

int gen_infer_counts(const struct spgo_insn *ins, size_t n, uint64_t entry, const char *algo,
		     gen_weight_fn weight, void *ctx, uint64_t *counts, size_t *nblocks)
{
	int a = spgo_algo_parse(algo);
	if (a < 0)
		return -1;
	struct spgo_cfg cfg;
	spgo_cfg_init(&cfg);
	if (spgo_cfg_from_insns(&cfg, ins, n, entry, NULL) < 0) {
		spgo_cfg_free(&cfg);
		return -1;
	}
	/* Blocks are in address order, as the instructions: walk both. */
	size_t k = 0;
	for (size_t b = 0; b < cfg.nblocks; b++) {
		struct spgo_cfg_block *blk = &cfg.blocks[b];
		while (k < n && ins[k].addr < blk->addr)
			k++;
		size_t e = k;
		while (e < n && ins[e].addr < blk->addr + blk->size)
			e++;
		uint64_t w = e > k ? weight(ctx, k, e - k) : GEN_WEIGHT_UNKNOWN;
		blk->weight = w == GEN_WEIGHT_UNKNOWN ? SPGO_WEIGHT_UNKNOWN : w;
		k = e;
	}
	struct spgo_infer_opts opts;
	spgo_infer_defaults(&opts, (enum spgo_algo)a);
	spgo_infer(&cfg, &opts);
	for (size_t i = 0; i < n; i++)
		counts[i] = 0;
	k = 0;
	for (size_t b = 0; b < cfg.nblocks; b++) {
		const struct spgo_cfg_block *blk = &cfg.blocks[b];
		while (k < n && ins[k].addr < blk->addr)
			k++;
		for (; k < n && ins[k].addr < blk->addr + blk->size; k++)
			counts[k] = blk->count;
	}
	*nblocks = cfg.nblocks;
	spgo_cfg_free(&cfg);
	return 1;
}
#else
int gen_infer_check(const char *algo)
{
	(void)algo;
	return 0;
}

int gen_infer_counts(const struct spgo_insn *ins, size_t n, uint64_t entry, const char *algo,
		     gen_weight_fn weight, void *ctx, uint64_t *counts, size_t *nblocks)
{
	(void)ins, (void)n, (void)entry, (void)algo, (void)weight, (void)ctx, (void)counts,
		(void)nblocks;
	return 0;
}
#endif
