/*
 * Static branch probabilities, after Wu and Larus ("Static branch frequency
 * and program profile analysis", 1994), with the heuristics a binary CFG
 * supports: loop branch (a back edge is taken, 0.88), loop exit (staying in
 * the loop, 0.80), noreturn (a successor that ends in a trap or a noreturn
 * call is almost never taken) and return (a successor that returns, or
 * passes control unconditionally to a block that does, is not taken, 0.72).  Several heuristics combine by Dempster-Shafer: the product
 * of the beliefs, normalized, which for two successors is Wu and Larus'
 * formula p1 p2 / (p1 p2 + (1 - p1)(1 - p2)).
 */
#include <stdlib.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

#define P_LOOP_BRANCH 0.88
#define P_LOOP_EXIT 0.80
#define P_RETURN 0.72
#define P_NORETURN 0.9995

/*
 * Apply one heuristic: the edges with favored[k] set share probability p,
 * the others 1 - p; combined into belief[] by Dempster-Shafer.
 */
static void combine(double *belief, const uint8_t *favored, uint32_t n, double p)
{
	uint32_t nf = 0;
	for (uint32_t k = 0; k < n; k++)
		nf += favored[k];
	if (nf == 0 || nf == n)
		return;
	double sum = 0;
	for (uint32_t k = 0; k < n; k++) {
		belief[k] *= favored[k] ? p / nf : (1 - p) / (n - nf);
		sum += belief[k];
	}
	for (uint32_t k = 0; k < n; k++)
		belief[k] /= sum;
}

static int returns_here(const struct spgo_cfg *cfg, uint32_t b)
{
	const struct spgo_cfg_block *bl = &cfg->blocks[b];
	return (bl->flags & SPGO_BLOCK_RETURN) ||
	       (bl->nout == 0 && !(bl->flags & (SPGO_BLOCK_NORETURN | SPGO_BLOCK_UNKNOWN_SUCCS)));
}

/* Wu and Larus' "contains a return or unconditionally passes control to a
 * block that contains a return": b, or the chain of single successors from
 * b, returns.  (In a triangle u -> d -> v, u -> v where v returns, both of
 * u's successors return and the heuristic says nothing.) */
static int returns(const struct spgo_cfg *cfg, uint32_t b)
{
	for (size_t steps = 0; steps < cfg->nblocks; steps++) {
		if (returns_here(cfg, b))
			return 1;
		const struct spgo_cfg_block *bl = &cfg->blocks[b];
		if (bl->nout != 1 || (bl->flags & SPGO_BLOCK_EXIT))
			return 0;
		b = cfg->edges[cfg->succ[bl->out]].dst;
	}
	return 0;
}

void spgo_cfg_static_probs(struct spgo_cfg *cfg)
{
	struct graph_info g;
	graph_info_build(&g, cfg);
	size_t maxd = 1;
	for (size_t b = 0; b < cfg->nblocks; b++)
		if (cfg->blocks[b].nout > maxd)
			maxd = cfg->blocks[b].nout;
	double *belief = xmalloc(maxd * sizeof *belief);
	uint8_t *fav = xmalloc(maxd);
	for (uint32_t u = 0; u < cfg->nblocks; u++) {
		const struct spgo_cfg_block *ub = &cfg->blocks[u];
		uint32_t n = ub->nout;
		const uint32_t *ids = &cfg->succ[ub->out];
		double given = 0;
		uint32_t missing = 0;
		for (uint32_t k = 0; k < n; k++) {
			if (cfg->edges[ids[k]].prob >= 0)
				given += cfg->edges[ids[k]].prob;
			else
				missing++;
		}
		if (missing == 0)
			continue;
		for (uint32_t k = 0; k < n; k++)
			belief[k] = 1.0 / n;
		if (n > 1) {
			/* loop branch: take the back edge */
			for (uint32_t k = 0; k < n; k++)
				fav[k] = g.retreat[ids[k]];
			combine(belief, fav, n, P_LOOP_BRANCH);
			/* loop exit: stay in the innermost loop */
			uint32_t h = g.loop[u];
			if (h != SPGO_NONE) {
				for (uint32_t k = 0; k < n; k++)
					fav[k] = graph_in_loop(&g, h, cfg->edges[ids[k]].dst);
				combine(belief, fav, n, P_LOOP_EXIT);
			}
			/* noreturn: avoid traps and noreturn calls */
			for (uint32_t k = 0; k < n; k++)
				fav[k] = !(cfg->blocks[cfg->edges[ids[k]].dst].flags & SPGO_BLOCK_NORETURN);
			combine(belief, fav, n, P_NORETURN);
			/* return: avoid the successor that returns */
			for (uint32_t k = 0; k < n; k++)
				fav[k] = !returns(cfg, cfg->edges[ids[k]].dst);
			combine(belief, fav, n, P_RETURN);
		}
		/* The edges without a probability share what is left, in the
		 * ratio of their beliefs. */
		double left = given < 1 ? 1 - given : 0, bsum = 0;
		for (uint32_t k = 0; k < n; k++)
			if (cfg->edges[ids[k]].prob < 0)
				bsum += belief[k];
		for (uint32_t k = 0; k < n; k++)
			if (cfg->edges[ids[k]].prob < 0)
				cfg->edges[ids[k]].prob = bsum > 0 ? left * belief[k] / bsum : left / missing;
	}
	free(belief);
	free(fav);
	graph_info_free(&g);
}
