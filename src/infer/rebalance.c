/*
 * RebalanceDanglingSubgraphs (section 3.4, the last step of Algorithm 1):
 * where a sampled block u leads into a region of dangling blocks that is
 * entered only from u and left only into one sampled block v, how the flow
 * crosses the region does not change the objective, so the solver's route is
 * arbitrary.  We route it by the branch probabilities instead, in
 * topological order (equation 1), rounding by largest remainder so that
 * every block still conserves.  Cyclic regions (the paper's Markov-chain
 * case) are left as the solver routed them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

/* Split total over edges ids[0..n) by their probabilities, rounding by
 * largest remainder so that the parts add up exactly. */
static void split_by_prob(struct spgo_cfg *cfg, const uint32_t *ids, uint32_t n, uint64_t total)
{
	double sum = 0;
	for (uint32_t k = 0; k < n; k++) {
		double p = cfg->edges[ids[k]].prob;
		sum += p > 0 ? p : 0;
	}
	uint64_t given = 0;
	double best_rem = -1;
	uint32_t best = 0;
	for (uint32_t k = 0; k < n; k++) {
		double p = cfg->edges[ids[k]].prob;
		double share = sum > 0 ? (p > 0 ? p : 0) / sum : 1.0 / n;
		double exact = (double)total * share;
		uint64_t c = (uint64_t)floor(exact);
		if (given + c > total)
			c = total - given;
		cfg->edges[ids[k]].count = c;
		given += c;
		if (exact - (double)c > best_rem) {
			best_rem = exact - (double)c;
			best = k;
		}
	}
	/* at most n units short: hand them out from the largest remainder on */
	for (uint32_t k = 0; given < total; k = (k + 1) % n) {
		uint32_t j = (best + k) % n;
		double p = cfg->edges[ids[j]].prob;
		if (sum > 0 && !(p > 0))
			continue;
		cfg->edges[ids[j]].count++;
		given++;
	}
}

void flow_rebalance_dangling(struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks;
	uint8_t *done = xcalloc(nb, 1), *inR = xcalloc(nb, 1);
	uint32_t *R = xmalloc((nb + 1) * sizeof *R), *indeg = xcalloc(nb, sizeof *indeg);
	uint32_t *topo = xmalloc((nb + 1) * sizeof *topo);
#define DANGLING(b) (cfg->blocks[b].weight == SPGO_WEIGHT_UNKNOWN)
	for (uint32_t u = 0; u < nb; u++) {
		const struct spgo_cfg_block *ub = &cfg->blocks[u];
		if (DANGLING(u) || ub->count == 0)
			continue;
		int any = 0;
		for (uint32_t k = 0; k < ub->nout; k++) {
			uint32_t d = cfg->edges[cfg->succ[ub->out + k]].dst;
			any |= DANGLING(d) && !done[d] && d != u;
		}
		if (!any)
			continue;
		/* Collect the region and its sampled exits. */
		size_t nr = 0, head = 0;
		uint32_t v = SPGO_NONE;
		int bad = 0;
		for (uint32_t k = 0; k < ub->nout; k++) {
			uint32_t d = cfg->edges[cfg->succ[ub->out + k]].dst;
			if (!DANGLING(d)) {
				if (v != SPGO_NONE && v != d)
					bad = 1;
				v = d;
			} else if (!inR[d]) {
				inR[d] = 1;
				R[nr++] = d;
			}
		}
		while (head < nr) {
			uint32_t r = R[head++];
			const struct spgo_cfg_block *rb = &cfg->blocks[r];
			if (spgo_cfg_is_exit(cfg, r) || done[r] || r == cfg->entry)
				bad = 1;
			for (uint32_t k = 0; k < rb->nout; k++) {
				uint32_t d = cfg->edges[cfg->succ[rb->out + k]].dst;
				if (!DANGLING(d)) {
					if (v != SPGO_NONE && v != d)
						bad = 1;
					v = d;
				} else if (!inR[d]) {
					inR[d] = 1;
					R[nr++] = d;
				}
			}
		}
		/* Single entry: every predecessor of a region block is u or in
		 * the region.  Then Kahn's algorithm for a topological order. */
		for (size_t i = 0; i < nr && !bad; i++) {
			const struct spgo_cfg_block *rb = &cfg->blocks[R[i]];
			indeg[R[i]] = 0;
			for (uint32_t k = 0; k < rb->nin; k++) {
				uint32_t p = cfg->edges[cfg->pred[rb->in + k]].src;
				if (p != u && !inR[p])
					bad = 1;
				if (inR[p])
					indeg[R[i]]++;
			}
		}
		size_t nt = 0;
		if (!bad) {
			for (size_t i = 0; i < nr; i++)
				if (indeg[R[i]] == 0)
					topo[nt++] = R[i];
			for (size_t i = 0; i < nt; i++) {
				const struct spgo_cfg_block *rb = &cfg->blocks[topo[i]];
				for (uint32_t k = 0; k < rb->nout; k++) {
					uint32_t d = cfg->edges[cfg->succ[rb->out + k]].dst;
					if (inR[d] && --indeg[d] == 0)
						topo[nt++] = d;
				}
			}
			if (nt != nr)
				bad = 1; /* a cycle */
		}
		if (!bad && v != SPGO_NONE) {
			uint64_t F = 0;
			for (uint32_t k = 0; k < ub->nout; k++)
				F += cfg->edges[cfg->succ[ub->out + k]].count;
			split_by_prob(cfg, &cfg->succ[ub->out], ub->nout, F);
			for (size_t i = 0; i < nt; i++) {
				struct spgo_cfg_block *rb = &cfg->blocks[topo[i]];
				uint64_t c = 0;
				for (uint32_t k = 0; k < rb->nin; k++)
					c += cfg->edges[cfg->pred[rb->in + k]].count;
				rb->count = c;
				split_by_prob(cfg, &cfg->succ[rb->out], rb->nout, c);
			}
		}
		for (size_t i = 0; i < nr; i++) {
			done[R[i]] = 1;
			inR[R[i]] = 0;
		}
	}
#undef DANGLING
	free(done);
	free(inR);
	free(R);
	free(indeg);
	free(topo);
}
