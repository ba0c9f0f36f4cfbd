/*
 * fp: AutoFDO's frequency propagation (Chen et al., CGO 2016, Algorithm 5;
 * Novillo 2014), the heuristic the paper compares against.
 *
 * 1. Equivalence classes: b2 joins b1's class when b1 dominates b2, b2
 *    post-dominates b1 and both have the same innermost loop; such blocks
 *    run equally often.  A class's weight is the largest weight of its
 *    sampled members; it is "annotated" when it has one.
 * 2. Until nothing changes (or 100 rounds): for every block and direction
 *    (in, out) - if all edges that way are annotated, their sum becomes
 *    the class weight when it is unannotated or smaller (weights only grow);
 *    if the class is annotated and exactly one edge is not, that edge gets
 *    the class weight minus the others (at least 0).  A self loop is just
 *    the one unannotated incoming edge when the others are known.  The
 *    entry's incoming side and an exit's outgoing side are skipped: flow
 *    enters and leaves the function there without an edge.
 *
 * The result need not be a flow (the paper's Figure 8a); spgo_infer()
 * repairs it (infer.c).
 */
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

void fp_propagate(struct spgo_cfg *cfg, const struct graph_info *g, uint8_t *bknown, uint8_t *eknown)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint32_t *ec = xmalloc(nb * sizeof *ec);
	uint64_t *ecw = xcalloc(nb, sizeof *ecw);
	uint8_t *eca = xcalloc(nb, 1), *ann = xcalloc(ne + 1, 1);
	for (uint32_t b = 0; b < nb; b++)
		ec[b] = b;

	/* Dominator-tree preorder: dominated blocks have pre numbers inside
	 * their dominator's interval. */
	uint32_t span = 2 * (uint32_t)nb + 2;
	uint32_t *bypre = xmalloc(span * sizeof *bypre);
	for (uint32_t i = 0; i < span; i++)
		bypre[i] = SPGO_NONE;
	for (uint32_t b = 0; b < nb; b++)
		if (g->dpre[b] != SPGO_NONE)
			bypre[g->dpre[b]] = b;
	for (uint32_t i = 0; i < g->nrpo; i++) {
		uint32_t b1 = g->rpo[i];
		if (ec[b1] != b1)
			continue;
		for (uint32_t c = g->dpre[b1] + 1; c < g->dpost[b1]; c++) {
			uint32_t b2 = bypre[c];
			if (b2 == SPGO_NONE || ec[b2] != b2)
				continue;
			if (g->loop[b1] == g->loop[b2] && graph_postdominates(g, b2, b1))
				ec[b2] = b1;
		}
	}
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t w = cfg->blocks[b].weight;
		if (w == SPGO_WEIGHT_UNKNOWN)
			continue;
		uint32_t c = ec[b];
		if (!eca[c] || w > ecw[c])
			ecw[c] = w;
		eca[c] = 1;
	}
	for (size_t e = 0; e < ne; e++)
		cfg->edges[e].count = 0;

	int changed = 1;
	for (int round = 0; changed && round < 100; round++) {
		changed = 0;
		for (uint32_t i = 0; i < g->nrpo; i++) {
			uint32_t b = g->rpo[i], c = ec[b];
			const struct spgo_cfg_block *bl = &cfg->blocks[b];
			for (int incoming = 1; incoming >= 0; incoming--) {
				if (incoming && b == cfg->entry)
					continue;
				if (!incoming && spgo_cfg_is_exit(cfg, b))
					continue;
				uint32_t n = incoming ? bl->nin : bl->nout;
				const uint32_t *ids = incoming ? &cfg->pred[bl->in] : &cfg->succ[bl->out];
				if (n == 0)
					continue;
				uint64_t total = 0;
				uint32_t unknown = 0, last = SPGO_NONE;
				for (uint32_t k = 0; k < n; k++) {
					if (ann[ids[k]])
						total += cfg->edges[ids[k]].count;
					else {
						unknown++;
						last = ids[k];
					}
				}
				if (unknown == 0) {
					if (!eca[c] || total > ecw[c]) {
						ecw[c] = total;
						eca[c] = 1;
						changed = 1;
					}
					continue;
				}
				if (eca[c] && unknown == 1) {
					cfg->edges[last].count = ecw[c] > total ? ecw[c] - total : 0;
					ann[last] = 1;
					changed = 1;
				}
			}
		}
	}
	for (uint32_t b = 0; b < nb; b++) {
		cfg->blocks[b].count = eca[ec[b]] ? ecw[ec[b]] : 0;
		bknown[b] = eca[ec[b]];
	}
	memcpy(eknown, ann, ne);
	free(ec);
	free(ecw);
	free(eca);
	free(bypre);
	free(ann);
}
