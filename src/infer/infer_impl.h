/*
 * infer_impl.h: what the files of src/infer share and nobody else sees.
 */
#ifndef SPGO_INFER_IMPL_H
#define SPGO_INFER_IMPL_H

#include <stdlib.h>

#include "spgo/common.h"
#include "spgo/infer.h"

/*
 * Graph facts about a finalized CFG: depth-first order, dominators,
 * post-dominators, loops.  Blocks unreachable from the entry have
 * rpo_index == SPGO_NONE and idom == SPGO_NONE; blocks that reach no exit
 * have ipdom == SPGO_NONE.
 */
struct graph_info {
	size_t nb;
	uint32_t *rpo, nrpo;  /* reachable blocks in reverse postorder */
	uint32_t *rpo_index;  /* block -> position in rpo, or SPGO_NONE */
	uint32_t *idom;       /* immediate dominator (entry: itself) */
	uint32_t *ipdom;      /* immediate post-dominator (SPGO_NONE: the virtual exit) */
	uint8_t *pdom_ok;     /* 1 if the block reaches an exit */
	uint32_t *dpre, *dpost; /* dominator-tree interval numbers */
	uint32_t *ppre, *ppost; /* post-dominator-tree interval numbers */
	uint32_t *loop;       /* innermost loop header, or SPGO_NONE */
	uint32_t *loop_parent; /* per header: the enclosing loop's header */
	uint8_t *retreat;     /* per edge: goes to a block on the DFS stack
				 (a loop back edge, reducible or not) */
};

void graph_info_build(struct graph_info *g, const struct spgo_cfg *cfg);
void graph_info_free(struct graph_info *g);
/* a dominates b (both reachable) */
int graph_dominates(const struct graph_info *g, uint32_t a, uint32_t b);
/* a post-dominates b (both reach an exit) */
int graph_postdominates(const struct graph_info *g, uint32_t a, uint32_t b);
/* b is inside the natural loop headed by header */
int graph_in_loop(const struct graph_info *g, uint32_t header, uint32_t b);

/*
 * The L1 cost terms of a sampled block (struct spgo_infer_opts): per unit
 * above w (inc), per unit between floor and w (dec), per unit below floor
 * (dec_floor); the floor is dec_floor_pct of w or the block's own, the
 * higher.  One place for flow.c, join.c and cfg.c.
 */
struct block_costs {
	int64_t inc, dec, dec_floor;
	uint64_t floor;
};
static inline struct block_costs block_costs(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o,
					     uint32_t b)
{
	uint64_t w = cfg->blocks[b].weight;
	struct block_costs c = {w == 0 ? o->k_inc0 : o->k_inc, o->k_dec, o->k_dec, 0};
	if (b == cfg->entry)
		c.inc = o->k_entry_inc, c.dec = o->k_entry_dec;
	if (o->dec_floor_pct > 0 && w != SPGO_WEIGHT_UNKNOWN && w > 0) {
		c.floor = (uint64_t)((double)w * o->dec_floor_pct / 100.0);
		c.dec_floor = o->k_dec_floor > c.dec ? o->k_dec_floor : c.dec; /* convex */
	}
	uint64_t lb = cfg->blocks[b].floor; /* the block's own lower bound */
	if (lb > c.floor && w != SPGO_WEIGHT_UNKNOWN && w > 0) {
		c.floor = lb < w ? lb : w;
		c.dec_floor = o->k_dec_floor > c.dec ? o->k_dec_floor : c.dec;
	}
	double s = cfg->blocks[b].cost_scale; /* the block's confidence, 0 = none */
	if (s > 0 && s != 1) {
		c.inc = (int64_t)((double)c.inc * s + 0.5), c.inc += c.inc < 1;
		c.dec = (int64_t)((double)c.dec * s + 0.5), c.dec += c.dec < 1;
		c.dec_floor = (int64_t)((double)c.dec_floor * s + 0.5), c.dec_floor += c.dec_floor < 1;
	}
	return c;
}
/* The L1 cost of count f at block b (k_unknown_inc f when dangling). */
static inline double block_cost_at(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, uint32_t b,
				   uint64_t f)
{
	uint64_t w = cfg->blocks[b].weight;
	if (w == SPGO_WEIGHT_UNKNOWN)
		return (double)o->k_unknown_inc * (double)f;
	struct block_costs c = block_costs(cfg, o, b);
	if (f >= w)
		return (double)c.inc * (double)(f - w);
	if (f >= c.floor)
		return (double)c.dec * (double)(w - f);
	return (double)c.dec * (double)(w - c.floor) + (double)c.dec_floor * (double)(c.floor - f);
}

/* 1 if edge e leaves a two-way branch against its layout (set by
 * spgo_cfg_finalize, cfg.c). */
static inline int edge_against_layout(const struct spgo_cfg *cfg, uint32_t e)
{
	return cfg->edges[e].against_layout;
}

/*
 * A bump allocator over one block, so that a solve or a joining pass makes
 * at most one allocation whatever the size of the CFG: the arrays are
 * measured by a first round of arena_take calls (a.p NULL: they return
 * NULL), then arena_alloc takes the block and a second round of the same
 * calls hands them out.  The block is not zeroed: the caller clears the
 * arrays that must start at 0 (clearing it all was a tenth of the time of
 * a small solve).  Small CFGs use the caller's buffer instead of the heap.
 */
struct arena {
	char *p;
	size_t off, size;
	int heap; /* p is from the heap (else the caller's buffer) */
};
static inline void *arena_take(struct arena *a, size_t bytes)
{
	void *r = a->p ? a->p + a->off : NULL;
	a->off += (bytes + 15) & ~(size_t)15;
	return r;
}
/* buf: aligned, len bytes. */
static inline void arena_alloc(struct arena *a, void *buf, size_t len)
{
	a->size = a->off;
	a->heap = a->size > len;
	a->p = a->heap ? xmalloc(a->size) : buf;
	a->off = 0;
}
static inline void arena_free(struct arena *a)
{
	if (a->heap)
		free(a->p);
}

/*
 * The min-cost flow solver behind profi, mcf and quadratic (flow.c), on the
 * reduction of section 3.1.  It reads block weights and edge probabilities
 * and writes block and edge counts; the flow conserves but may have islands.
 */
int flow_solve(struct spgo_cfg *cfg, const struct spgo_infer_opts *o);
/* Post-processing: connect islands to the entry (section 3.2: join.c,
 * with polish.c and residual.c), and route flow through dangling
 * subgraphs by the branch probabilities (section 3.4, rebalance.c). */
void flow_join_islands(struct spgo_cfg *cfg, const struct spgo_infer_opts *o);
void flow_rebalance_dangling(struct spgo_cfg *cfg, const struct spgo_infer_opts *o);
/* Frequency propagation (fp.c): writes counts that need not conserve, and
 * which block and edge counts it could decide (annotated). */
void fp_propagate(struct spgo_cfg *cfg, const struct graph_info *g, uint8_t *bknown, uint8_t *eknown);

#endif
