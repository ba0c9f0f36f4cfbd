/*
 * Inside island joining (join.c, polish.c, residual.c): the residual graph
 * of a flow on the CFG itself, priced by the L1 objective's marginals.
 * Private to src/infer; the contract of the whole is flow_join_islands()
 * in infer_impl.h.
 */
#ifndef SPGO_INFER_JOIN_IMPL_H
#define SPGO_INFER_JOIN_IMPL_H

#include <stdint.h>

#include "infer/infer_impl.h"
#include "spgo/infer.h"

/* CFGs up to this many blocks get the dearer tries (see flow_join_islands) */
#define JOIN_PASSES_MAX 128

/*
 * A block's L1 cost terms (block_costs, which does floating-point work),
 * worked out once per pass: the searches price every arc they relax by
 * them.  A block without a weight is priced as weight 0 with k_unknown_inc
 * per unit either way (a unit down, which only happens above 0, saves it).
 */
struct price {
	uint64_t w;
	struct block_costs c;
};

/* What one more unit through v costs in the L1 objective (negative when v
 * sits below its weight). */
static inline int64_t marginal(const struct spgo_cfg *cfg, const struct price *p, uint32_t v)
{
	uint64_t f = cfg->blocks[v].count;
	if (f >= p[v].w)
		return p[v].c.inc;
	return f >= p[v].c.floor ? -p[v].c.dec : -p[v].c.dec_floor;
}

/* What one unit less through v costs (positive when v sits at or below its
 * weight). */
static inline int64_t marginal_down(const struct spgo_cfg *cfg, const struct price *p, uint32_t v)
{
	uint64_t f = cfg->blocks[v].count;
	if (f > p[v].w)
		return -p[v].c.inc;
	return f > p[v].c.floor ? p[v].c.dec : p[v].c.dec_floor;
}

/* What one more unit on edge e costs in the L1 objective (its layout term). */
static inline int64_t edge_cost(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, uint32_t e)
{
	return o->k_layout && edge_against_layout(cfg, e) ? o->k_layout : 0;
}

/* Position i of a ring buffer of n slots, for i < 2n (a head and a length
 * each below n): a subtraction, not the division of i % n, which the
 * searches below would pay on every relaxed arc. */
static inline size_t ring(size_t i, size_t n)
{
	return i < n ? i : i - n;
}

/*
 * The cheapest reconnection as a cycle of +1/-1 changes that adds one unit
 * on an edge p -> x (p reached from the entry, x in an island): the paper's
 * "push flow around a cycle of the residual network", done on the CFG.  The
 * search runs over the "in" and "out" sides of blocks and Z, the outside of
 * the function (sinks at exits, the source at the entry):
 *     out(y) -> in(z)    +1 on an edge y -> z                       cost 0
 *     in(v)  -> out(y)   -1 on an edge y -> v that carries flow     cost 0
 *     out(y) -> Z        +1 leaving at exit y;  Z -> out(y): -1 there
 *     Z -> in(entry)     +1 entering;  in(entry) -> Z: -1 entering
 *     in(v)  -> out(v)   count of v +1, at its L1 marginal cost
 *     out(v) -> in(v)    count of v -1, likewise (a saving above the weight)
 * A cycle that only swaps which edges carry the flow costs nothing; one
 * through Z is "one more call along entry -> x -> exit".  Moore-Bellman-Ford
 * from in(x) to the out(p); the cycle closes with +1 on p -> x.
 */
enum { ARC_EDGE_PLUS = 1, ARC_EDGE_MINUS, ARC_UP, ARC_DOWN, ARC_OUTSIDE };

/*
 * The passes' polishes remembered by the flow they started from, within
 * one flow_join_islands.  A polish is a function of the counts alone (it
 * starts with no pins, and the pass's other state, its order and drops,
 * does not reach it), and the passes start from the same flow and often
 * join it the same way (on sqlite3's CFGs a third of the polishes repeat
 * one already done).  Per entry, width counts (blocks, then edges) of the
 * start, then as many of the result; the oldest entry goes when all max
 * are taken.
 */
#define JOIN_MEMO_MAX 3
struct join_memo {
	size_t n, next, max, width;
	uint64_t hash[JOIN_MEMO_MAX];
	uint64_t *flows; /* 2 * width per entry, allocated at the first */
};

struct cyc {
	uint32_t *prev, *arcid, *queue;
	/* the searches' shortest-path tree (along prev) as its nodes in
	 * preorder on a doubly linked ring through a root (node 2|blocks|+1,
	 * depth 0), with their depths (residual.c: res_lower) */
	uint32_t *next, *back, *depth;
	uint32_t *exits, nexits; /* live exit blocks */
	uint8_t *kind, *inq; /* inq: 0, 1 queued, 2 queued but stale */
	int64_t *dist;
	int64_t *pot; /* res_improve_once's last labels: the next one's start */
	int pot_ok;   /* (0: start from 0; join_polish clears it) */
	const struct price *price; /* per block */
	uint32_t *prev2, *arcid2; /* a spare set of the links (best_cycle) */
	uint8_t *kind2;
	uint64_t *outsum, *insum;
	/* Polishing: no arc may take the last unit of a pinned edge, block
	 * or entry, nor raise a frozen block from 0 (all 0 while joining). */
	uint8_t *pin_e, *pin_b, *frozen, pin_entry;
	uint8_t *noplus; /* per edge: no +1 arc (it only fed a new island) */
	/* savings count as 0 (prices of a flow that a negative cycle could
	 * still improve: too high rather than none) */
	int clamp;
	uint32_t ban_e;  /* an edge whose -1 arc is left out (reroute) */
	uint32_t last_x; /* best_cycle's last search: from in(last_x), */
	int last_ok;     /* whether it completed (dist and prev hold it) */
	int failed;      /* some search met a negative cycle or its limit */
	int settled;     /* res_improve_once's last search ran to its end: no
			    negative cycle, its dist are potentials */
	uint32_t cyc_node; /* res_improve_once's cycle (through this node, along */
	uint64_t more;     /* prev), and how many more units it may take */
	int rev; /* islands taken from the last block down, the dearest join
		    first, and no join may cut off what was reached */
	/* scratch: counts before a trial, what the entry reaches after it */
	uint64_t *saved_e, *saved_b;
	uint8_t *chk;
	uint32_t *stack;
};

/* ---- residual.c ---------------------------------------------------------- */

/* Blocks marked by a search from starts along successors (fwd) or
 * predecessors, over all edges or positive ones only. */
void res_search(const struct spgo_cfg *cfg, const uint32_t *starts, size_t nstarts, int fwd, int positive,
		uint8_t *mark, uint32_t *stack);
/* The blocks flow from outside reaches (see there). */
void res_reach(const struct spgo_cfg *cfg, uint8_t *mark, uint32_t *stack);
void res_prices(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct price *p);
/* Shortest distances over the residual arcs from node start, or from
 * in(x); 0, or -1 if a negative cycle (or the step limit) stopped it. */
int res_node_search(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		    uint32_t start, struct cyc *c);
int res_cycle_search(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, uint32_t x,
		     struct cyc *c);
/* Apply the change of the arc by which the search reached node n (units
 * times); a cycle found by res_cycle_search closed by +1 on edge add. */
void res_arc_apply_n(struct spgo_cfg *cfg, const struct cyc *c, uint32_t n, uint64_t units);
void res_arc_apply(struct spgo_cfg *cfg, const struct cyc *c, uint32_t n);
void res_cycle_apply(struct spgo_cfg *cfg, const struct cyc *c, uint32_t node, uint32_t add);
/* Trade a search's predecessor links with the spare set. */
void res_swap(struct cyc *c);
/* Find a negative cycle and apply one unit of it; 1 if applied. */
int res_improve_once(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, struct cyc *c);
/* Pin what an applied cycle cut off (see there); 1 if something new. */
int res_pin_cut(const struct spgo_cfg *cfg, struct cyc *c, const uint8_t *chk, const uint64_t *saved,
		const uint64_t *saved_b, uint64_t entered);
void res_unpin(const struct spgo_cfg *cfg, struct cyc *c);
void res_sums(const struct spgo_cfg *cfg, struct cyc *c);
void res_save_counts(const struct spgo_cfg *cfg, uint64_t *edges, uint64_t *blocks);
/* The flow as one vector: blocks' counts, then edges' (memo keys). */
void res_get_flow(const struct spgo_cfg *cfg, uint64_t *v);
void res_set_flow(struct spgo_cfg *cfg, const uint64_t *v);
void res_restore_counts(struct spgo_cfg *cfg, const uint64_t *edges, const uint64_t *blocks);

/* ---- polish.c ------------------------------------------------------------- */

uint64_t join_memo_hash(const uint64_t *v, size_t n);
const uint64_t *join_memo_find(const struct join_memo *m, const uint64_t *start, uint64_t h);
void join_memo_put(struct join_memo *m, const struct spgo_cfg *cfg, const uint64_t *start, uint64_t h);
/* Cancel negative cycles while the flow stays connected (see there). */
void join_polish(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, struct cyc *c);

/* ---- join.c --------------------------------------------------------------- */

/* One pass of joining islands, then polishing; returns the drops. */
int join_pass(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, int may_drop, int rev, struct join_memo *memo);

#endif
