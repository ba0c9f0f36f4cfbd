/*
 * spgo_infer(): one entry for every algorithm (spgo/infer.h).
 *
 *   profi      flow_solve (greedy + pruned Bellman-Ford + DAG augmentation),
 *              join islands, rebalance dangling subgraphs
 *   quadratic  the same on the piecewise-linear L2 objective
 *   mcf        flow_solve on symmetric costs, one shortest path at a time;
 *              islands joined so that the result is valid
 *   fp         frequency propagation, then a repair: the counts fp decided
 *              become the weights of a CFG whose edges are split by a block
 *              each, solved like profi; a consistent fp result comes back
 *              unchanged, an inconsistent one (Figure 8a) is changed as
 *              little as the L1 objective allows
 */
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

/* profi's cost coefficients (struct spgo_infer_opts). */
#define PROFI_K_INC 10
#define PROFI_K_DEC 15
#define PROFI_K_INC0 30
#define PROFI_K_ENTRY_INC 10
#define PROFI_K_ENTRY_DEC 5
#define PROFI_K_DEC_FLOOR 1000
#define PROFI_DEC_FLOOR_PCT 40
#define PROFI_K_UNKNOWN_INC 1
#define PROFI_K_LAYOUT 1

static const char *const algo_names[] = {"profi", "mcf", "fp", "quadratic", "none"};

int spgo_algo_parse(const char *name)
{
	for (size_t i = 0; i < SPGO_ARRAY_LEN(algo_names); i++)
		if (!strcmp(name, algo_names[i]))
			return (int)i;
	return -1;
}

const char *spgo_algo_name(enum spgo_algo algo)
{
	return (size_t)algo < SPGO_ARRAY_LEN(algo_names) ? algo_names[algo] : "?";
}

void spgo_infer_defaults(struct spgo_infer_opts *o, enum spgo_algo algo)
{
	memset(o, 0, sizeof *o);
	o->algo = algo;
	/* The paper's coefficients (section 5.2)... */
	o->k_inc = 10;
	o->k_dec = 20;
	o->k_inc0 = 11;
	o->k_entry_inc = o->k_inc;
	o->k_entry_dec = o->k_dec;
	o->k_dec_floor = o->k_dec;
	o->dec_floor_pct = 0;
	o->k_unknown_inc = 0;
	o->k_layout = 0;
	o->join_islands = 1;
	o->rebalance = 1;
	o->even_split = 1;
	o->greedy = 1;
	if (algo == SPGO_ALGO_PROFI) {
		/* ... and profi's tuned ones: see the comment at the top */
		o->k_inc = PROFI_K_INC;
		o->k_dec = PROFI_K_DEC;
		o->k_inc0 = PROFI_K_INC0;
		o->k_entry_inc = PROFI_K_ENTRY_INC;
		o->k_entry_dec = PROFI_K_ENTRY_DEC;
		o->k_dec_floor = PROFI_K_DEC_FLOOR;
		o->dec_floor_pct = PROFI_DEC_FLOOR_PCT;
		o->k_unknown_inc = PROFI_K_UNKNOWN_INC;
		o->k_layout = PROFI_K_LAYOUT;
	}
	if (algo == SPGO_ALGO_MCF) {
		/* Levin et al.: one cost per unit of change either way */
		o->k_dec = o->k_inc0 = o->k_entry_inc = o->k_entry_dec = o->k_dec_floor = o->k_inc;
		o->rebalance = 0;
		o->even_split = 0;
		o->greedy = 0;
	}
}

/* fp's repair: see the comment at the top. */
static void fp_infer(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	struct graph_info g;
	graph_info_build(&g, cfg);
	uint8_t *bknown = xmalloc(nb + 1), *eknown = xmalloc(ne + 1);
	fp_propagate(cfg, &g, bknown, eknown);
	graph_info_free(&g);

	struct spgo_cfg h;
	spgo_cfg_init(&h);
	for (size_t b = 0; b < nb; b++) {
		uint32_t x = spgo_cfg_add_block(&h, 0, 0);
		h.blocks[x].weight = bknown[b] ? cfg->blocks[b].count : SPGO_WEIGHT_UNKNOWN;
		h.blocks[x].flags = cfg->blocks[b].flags & SPGO_BLOCK_EXIT;
		if (cfg->blocks[b].nout == 0)
			h.blocks[x].flags |= SPGO_BLOCK_EXIT;
	}
	for (size_t e = 0; e < ne; e++) {
		uint32_t mid = spgo_cfg_add_block(&h, 0, 0);
		h.blocks[mid].weight = eknown[e] ? cfg->edges[e].count : SPGO_WEIGHT_UNKNOWN;
		spgo_cfg_add_edge(&h, cfg->edges[e].src, mid, SPGO_EDGE_OTHER);
		spgo_cfg_add_edge(&h, mid, cfg->edges[e].dst, SPGO_EDGE_OTHER);
	}
	h.entry = cfg->entry;
	spgo_cfg_finalize(&h);
	struct spgo_infer_opts ho;
	spgo_infer_defaults(&ho, SPGO_ALGO_PROFI);
	ho.k_inc = o->k_inc, ho.k_dec = o->k_dec, ho.k_inc0 = o->k_inc0;
	ho.k_entry_inc = o->k_entry_inc, ho.k_entry_dec = o->k_entry_dec;
	ho.k_dec_floor = o->k_dec_floor, ho.dec_floor_pct = o->dec_floor_pct;
	ho.k_unknown_inc = o->k_unknown_inc;
	ho.k_layout = 0; /* h's edges are split by blocks: no layout left */
	flow_solve(&h, &ho);
	if (o->join_islands)
		flow_join_islands(&h, &ho);
	for (size_t b = 0; b < nb; b++)
		cfg->blocks[b].count = h.blocks[b].count;
	for (size_t e = 0; e < ne; e++)
		cfg->edges[e].count = h.blocks[nb + e].count;
	spgo_cfg_free(&h);
	free(bknown);
	free(eknown);
}

int spgo_infer(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	if (!cfg->finalized && spgo_cfg_finalize(cfg))
		return -1;
	int need = 0;
	for (size_t e = 0; e < cfg->nedges && !need; e++)
		need = cfg->edges[e].prob < 0;
	if (need)
		spgo_cfg_static_probs(cfg);
	/* Nothing sampled: the zero flow is the answer (and valid). */
	int sampled = 0;
	for (size_t b = 0; b < cfg->nblocks && !sampled; b++)
		sampled = cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN && cfg->blocks[b].weight > 0;
	if (!sampled) {
		for (size_t b = 0; b < cfg->nblocks; b++)
			cfg->blocks[b].count = 0;
		for (size_t e = 0; e < cfg->nedges; e++)
			cfg->edges[e].count = 0;
		return 0;
	}
	switch (o->algo) {
	case SPGO_ALGO_NONE:
		for (size_t b = 0; b < cfg->nblocks; b++) {
			uint64_t w = cfg->blocks[b].weight;
			cfg->blocks[b].count = w == SPGO_WEIGHT_UNKNOWN ? 0 : w;
		}
		for (size_t e = 0; e < cfg->nedges; e++) {
			const struct spgo_cfg_edge *ed = &cfg->edges[e];
			double c = (double)cfg->blocks[ed->src].count * (ed->prob > 0 ? ed->prob : 0);
			cfg->edges[e].count = (uint64_t)(c + 0.5);
		}
		return 0;
	case SPGO_ALGO_FP:
		fp_infer(cfg, o);
		return 0;
	case SPGO_ALGO_PROFI:
	case SPGO_ALGO_MCF:
	case SPGO_ALGO_QUADRATIC:
		flow_solve(cfg, o);
		if (o->join_islands)
			flow_join_islands(cfg, o);
		if (o->rebalance)
			flow_rebalance_dangling(cfg, o);
		return 0;
	}
	return spgo_error("unknown inference algorithm %d", (int)o->algo);
}
