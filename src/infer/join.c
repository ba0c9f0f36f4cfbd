/*
 * JoinIsolatedComponents (section 3.2, the post-processing of Algorithm 1):
 * a min-cost flow may hold "islands", positive flow that no positive path
 * from the entry reaches.  Flow on blocks that cannot be reached from the
 * entry at all, or that cannot reach an exit, is a closed circulation (no
 * positive edge enters or leaves such a set, by conservation) and is
 * removed (flow_solve never puts flow there; mcf's and fp's callers may).
 * A loop through the entry that nothing enters is an island too.  Every
 * island is joined, one at a time, by the cheapest of three ways, priced by
 * the L1 objective: a cycle of +1/-1 changes that feeds it from the reached
 * part (or lets a unit enter at the entry), one more call along entry ->
 * island -> exit, or dropping it (before a drop, the call is priced once
 * more on the residual graph, where it may take flow off other routes).
 * Then negative cycles are cancelled while
 * the flow stays connected (a cycle that cuts something off is undone and
 * what it cut is pinned), so the result is a local minimum among connected
 * flows.  The greedy order matters (a dear island joined first can make a
 * cheap one free; a dropped island is frozen at 0), so when joining cost
 * anything, other passes run from the same start (dearest island first;
 * never dropping) and the cheapest result is kept.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

/* CFGs up to this many blocks get the dearer tries (see flow_join_islands) */
#define JOIN_PASSES_MAX 128

/* Blocks marked by a search from start along successors (dir = 1) or
 * predecessors (dir = 0), over all edges or positive ones only. */
static void search(const struct spgo_cfg *cfg, const uint32_t *starts, size_t nstarts, int fwd, int positive,
		   uint8_t *mark, uint32_t *stack)
{
	size_t sp = 0;
	for (size_t i = 0; i < nstarts; i++)
		if (!mark[starts[i]]) {
			mark[starts[i]] = 1;
			stack[sp++] = starts[i];
		}
	while (sp) {
		const struct spgo_cfg_block *b = &cfg->blocks[stack[--sp]];
		uint32_t n = fwd ? b->nout : b->nin;
		for (uint32_t k = 0; k < n; k++) {
			const struct spgo_cfg_edge *e =
				&cfg->edges[fwd ? cfg->succ[b->out + k] : cfg->pred[b->in + k]];
			if (positive && e->count == 0)
				continue;
			uint32_t w = fwd ? e->dst : e->src;
			if (!mark[w]) {
				mark[w] = 1;
				stack[sp++] = w;
			}
		}
	}
}

/* Mark the blocks that flow from outside reaches: along positive edges
 * from the entry, if anything enters there (a loop through the entry that
 * nothing enters is an island like any other). */
static void reach(const struct spgo_cfg *cfg, uint8_t *mark, uint32_t *stack)
{
	const struct spgo_cfg_block *eb = &cfg->blocks[cfg->entry];
	uint64_t in = 0;
	for (uint32_t k = 0; k < eb->nin; k++)
		in += cfg->edges[cfg->pred[eb->in + k]].count;
	if (eb->count > in)
		search(cfg, &cfg->entry, 1, 1, 1, mark, stack);
}

/* Remove the flow of blocks with mark[b] == 0 (a closed set). */
static void zero_outside(struct spgo_cfg *cfg, const uint8_t *mark)
{
	for (size_t b = 0; b < cfg->nblocks; b++)
		if (!mark[b])
			cfg->blocks[b].count = 0;
	for (size_t e = 0; e < cfg->nedges; e++)
		if (!mark[cfg->edges[e].src] || !mark[cfg->edges[e].dst])
			cfg->edges[e].count = 0;
}

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

static void prices(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct price *p)
{
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		p[b].w = cfg->blocks[b].weight;
		if (p[b].w == SPGO_WEIGHT_UNKNOWN) {
			p[b].w = 0;
			p[b].c = (struct block_costs){o->k_unknown_inc, -o->k_unknown_inc, -o->k_unknown_inc, 0};
		} else {
			p[b].c = block_costs(cfg, o, b);
		}
	}
}

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

#define block_cost block_cost_at

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
 * Cheapest paths by the L1 marginals, Moore-Bellman-Ford with a queue:
 * forward (fwd = 1) from the entry, dist[v] = cost of the path including
 * v; or backward from the exits, dist[v] = cost of the rest of the way
 * after v.  via[v] is the edge taken.  A min-cost flow has no negative
 * cycle; should one appear anyway (after an island was dropped the flow is
 * no longer minimal), the search gives up after |V| rounds of a block and
 * returns -1.  With clamp set, savings count as 0 (no cycle can be
 * negative then): the prices of a flow that is not minimal, too high
 * rather than none.
 */
static int cheapest(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const struct price *price,
		    const uint8_t *live, int fwd, int clamp, int64_t *dist, uint32_t *via, uint32_t *queue,
		    uint8_t *inq, uint32_t *rounds)
{
	size_t nb = cfg->nblocks, head = 0, len = 0, pops = 0;
	for (size_t b = 0; b < nb; b++) {
		dist[b] = INT64_MAX;
		via[b] = SPGO_NONE;
		inq[b] = 0;
		rounds[b] = 0;
	}
	for (uint32_t b = 0; b < nb; b++)
		if (live[b] && (fwd ? b == cfg->entry : spgo_cfg_is_exit(cfg, b))) {
			dist[b] = fwd ? marginal(cfg, price, b) : 0;
			if (clamp && dist[b] < 0)
				dist[b] = 0;
			queue[ring(head + len++, nb)] = b;
			inq[b] = 1;
		}
	while (len) {
		uint32_t u = queue[head];
		head = ring(head + 1, nb);
		len--;
		inq[u] = 0;
		if (++rounds[u] > nb + 1 || ++pops > 4 * nb + 64)
			return -1; /* a negative cycle, or too long to be worth it */
		const struct spgo_cfg_block *b = &cfg->blocks[u];
		uint32_t n = fwd ? b->nout : b->nin;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t e = fwd ? cfg->succ[b->out + k] : cfg->pred[b->in + k];
			uint32_t v = fwd ? cfg->edges[e].dst : cfg->edges[e].src;
			if (!live[v])
				continue;
			int64_t m = (fwd ? marginal(cfg, price, v) : marginal(cfg, price, u)) + edge_cost(cfg, o, e);
			int64_t nd = dist[u] + (clamp && m < 0 ? 0 : m);
			if (nd < dist[v]) {
				dist[v] = nd;
				via[v] = e;
				if (!inq[v]) {
					inq[v] = 1;
					queue[ring(head + len++, nb)] = v;
				}
			}
		}
	}
	return 0;
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
 * Results remembered by the flow they started from, within one
 * flow_join_islands: [0] polish's joins one level down, [1] the passes'
 * polishes.  Both are functions of the counts alone (a join one level
 * down is a fresh pass; polish starts with no pins, and the pass's other
 * state, its order and drops, does not reach it), and the same start
 * comes back often: the passes start from the same flow and often join it
 * the same way, and an undone cycle is often found again after what it
 * cut was pinned (on sqlite3's CFGs two thirds of the joins one level
 * down repeat one already done, a third of the polishes).  Per entry,
 * width counts (blocks, then edges) of the start, then as many of the
 * result; the oldest entry goes when all max are taken.
 */
#define JOIN_MEMO_MAX 32
struct join_memo {
	size_t n, next, max, width;
	uint64_t hash[JOIN_MEMO_MAX];
	uint64_t *flows; /* 2 * width per entry, allocated at the first */
};

struct cyc {
	uint32_t *prev, *arcid, *queue, *rounds;
	uint32_t *exits, nexits; /* live exit blocks */
	uint8_t *kind, *inq;
	int64_t *dist;
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
	int settled;     /* improve_once's last search ran to its end: no
			    negative cycle, its dist are potentials */
	uint32_t cyc_node; /* improve_once's cycle (through this node, along */
	uint64_t more;     /* prev), and how many more units it may take */
	int rev; /* islands taken from the last block down, the dearest join
		    first, and no join may cut off what was reached */
	/* scratch: counts before a trial, what the entry reaches after it */
	uint64_t *saved_e, *saved_b;
	uint8_t *chk;
	uint32_t *stack;
	struct join_memo *memo; /* the two memos (see there), or NULL */
};

/*
 * Relax the residual arcs out of node, the arcs that cycle_search and
 * improve_once both search: the outside node Z feeds the entry and takes
 * from exits; out(v) reaches in(d) of live successors and may lower v;
 * in(v) may undo flow on its in-edges and raise v.  The queue is the
 * caller's ring buffer (head, *len, size nn).
 */
static void relax_arcs(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		       struct cyc *c, uint32_t node, size_t head, size_t *len, size_t nn)
{
	uint32_t Z = (uint32_t)(2 * cfg->nblocks);
#define RELAX(w, k, id, cost)                                                                                  \
	do {                                                                                                   \
		int64_t nd_ = c->dist[node] + (c->clamp && (cost) < 0 ? 0 : (cost));                           \
		if (nd_ < c->dist[w]) {                                                                        \
			c->dist[w] = nd_;                                                                      \
			c->prev[w] = node;                                                                     \
			c->kind[w] = (k);                                                                      \
			c->arcid[w] = (id);                                                                    \
			if (!c->inq[w]) {                                                                      \
				c->inq[w] = 1;                                                                 \
				c->queue[ring(head + (*len)++, nn)] = (w);                                     \
			}                                                                                      \
		}                                                                                              \
	} while (0)
	if (node == Z) {
		for (uint32_t k = 0; k < c->nexits; k++) {
			uint32_t y = c->exits[k];
			if (cfg->blocks[y].count > c->outsum[y])
				RELAX(2 * y + 1, ARC_OUTSIDE, 0, 0);
		}
		RELAX(2 * cfg->entry, ARC_OUTSIDE, 0, 0);
		return;
	}
	uint32_t v = node / 2;
	const struct spgo_cfg_block *b = &cfg->blocks[v];
	if (node & 1) {
		for (uint32_t k = 0; k < b->nout; k++) {
			uint32_t e = cfg->succ[b->out + k], d = cfg->edges[e].dst;
			if (live[d] && !c->noplus[e])
				RELAX(2 * d, ARC_EDGE_PLUS, e, edge_cost(cfg, o, e));
		}
		if (spgo_cfg_is_exit(cfg, v))
			RELAX(Z, ARC_OUTSIDE, 0, 0);
		if (b->count > c->pin_b[v])
			RELAX(2 * v, ARC_DOWN, v, marginal_down(cfg, c->price, v));
	} else {
		for (uint32_t k = 0; k < b->nin; k++) {
			uint32_t e = cfg->pred[b->in + k];
			if (cfg->edges[e].count > c->pin_e[e] && e != c->ban_e)
				RELAX(2 * cfg->edges[e].src + 1, ARC_EDGE_MINUS, e, -edge_cost(cfg, o, e));
		}
		if (v == cfg->entry && b->count > c->insum[v] + c->pin_entry)
			RELAX(Z, ARC_OUTSIDE, 0, 0);
		if (!(b->count == 0 && c->frozen[v]))
			RELAX(2 * v + 1, ARC_UP, v, marginal(cfg, c->price, v));
	}
#undef RELAX
}

/* Shortest distances from node start; 0, or -1 if a negative cycle showed up. */
static int node_search(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		       uint32_t start, struct cyc *c)
{
	size_t nb = cfg->nblocks, nn = 2 * nb + 1, head = 0, len = 0, pops = 0;
	for (size_t v = 0; v < nn; v++) {
		c->dist[v] = INT64_MAX;
		c->inq[v] = 0;
		c->rounds[v] = 0;
		c->prev[v] = SPGO_NONE;
	}
	c->dist[start] = 0;
	c->queue[len++] = start;
	c->inq[start] = 1;
	while (len) {
		uint32_t node = c->queue[head];
		head = ring(head + 1, nn);
		len--;
		c->inq[node] = 0;
		if (++c->rounds[node] > nn + 1 || ++pops > 4 * nn + 64)
			return -1; /* a negative cycle, or too long to be worth it */
		relax_arcs(cfg, o, live, c, node, head, &len, nn);
	}
	return 0;
}

/* Shortest distances from in(x). */
static int cycle_search(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
			uint32_t x, struct cyc *c)
{
	return node_search(cfg, o, live, 2 * x, c);
}

/* Apply the change of the arc by which the search reached node n, units
 * times. */
static void arc_apply_n(struct spgo_cfg *cfg, const struct cyc *c, uint32_t n, uint64_t units)
{
	switch (c->kind[n]) {
	case ARC_EDGE_PLUS:
		cfg->edges[c->arcid[n]].count += units;
		break;
	case ARC_EDGE_MINUS:
		cfg->edges[c->arcid[n]].count -= units;
		break;
	case ARC_UP:
		cfg->blocks[c->arcid[n]].count += units;
		break;
	case ARC_DOWN:
		cfg->blocks[c->arcid[n]].count -= units;
		break;
	}
}

static void arc_apply(struct spgo_cfg *cfg, const struct cyc *c, uint32_t n)
{
	arc_apply_n(cfg, c, n, 1);
}

/* Apply the cycle found by cycle_search, closing with +1 on edge add. */
static void cycle_apply(struct spgo_cfg *cfg, const struct cyc *c, uint32_t node, uint32_t add)
{
	cfg->edges[add].count++;
	for (uint32_t n = node; c->prev[n] != SPGO_NONE; n = c->prev[n]) {
		arc_apply(cfg, c, n);
	}
}

/* Trade a search's predecessor links with the spare set. */
static void cyc_swap(struct cyc *c)
{
	uint32_t *t = c->prev;
	c->prev = c->prev2, c->prev2 = t;
	t = c->arcid;
	c->arcid = c->arcid2, c->arcid2 = t;
	uint8_t *k = c->kind;
	c->kind = c->kind2, c->kind2 = k;
}

/* Over up to 3 island blocks x entered from the reached part: the cheapest
 * cycle.  Returns its cost (INT64_MAX if none) with *bx, *bp, *be set. */
static int64_t best_cycle(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
			  const uint8_t *island, const uint8_t *reached, int any_p, struct cyc *c, uint32_t *bx,
			  uint32_t *be)
{
	int64_t best = INT64_MAX;
	int tried = 0, kept = 0;
	for (uint32_t i = 0; i < cfg->nblocks && tried < 3; i++) {
		uint32_t x = c->rev ? (uint32_t)cfg->nblocks - 1 - i : i;
		if (!island[x])
			continue;
		const struct spgo_cfg_block *xb = &cfg->blocks[x];
		int cand = 0;
		for (uint32_t k = 0; k < xb->nin && !cand; k++) {
			uint32_t p = cfg->edges[cfg->pred[xb->in + k]].src;
			cand = any_p ? !island[p] : reached[p];
		}
		if (!cand)
			continue;
		tried++;
		c->last_x = x;
		c->last_ok = cycle_search(cfg, o, live, x, c) == 0;
		if (!c->last_ok) {
			c->failed = 1;
			continue;
		}
		int64_t bx_cost = INT64_MAX;
		uint32_t bx_e = SPGO_NONE;
		for (uint32_t k = 0; k < xb->nin; k++) {
			uint32_t e = cfg->pred[xb->in + k], p = cfg->edges[e].src;
			int64_t d = c->dist[2 * p + 1];
			if ((any_p ? !island[p] : reached[p]) && d != INT64_MAX && d < bx_cost) {
				bx_cost = d;
				bx_e = e;
			}
		}
		/* the cheapest island first, or (rev) the dearest */
		if (bx_e != SPGO_NONE && (best == INT64_MAX || (c->rev ? bx_cost > best : bx_cost < best))) {
			best = bx_cost;
			*bx = x;
			*be = bx_e;
			cyc_swap(c); /* kept aside while the next are searched */
			kept = 1;
		}
	}
	if (kept) {
		/* the caller applies the best search's cycle: it is at hand */
		cyc_swap(c);
		c->last_x = *bx;
		c->last_ok = 1;
	}
	return best;
}

/*
 * How many units the negative cycle through node v (along prev) may carry
 * at the same cost per unit without changing the support of the flow
 * after its first unit: every arc keeps its marginal (block costs are
 * piecewise linear: breakpoints at the weight and the decrease floor),
 * and no edge, block or entering count that the first unit leaves
 * positive reaches 0 (what the entry reaches stays the same).  What the
 * first unit takes to 0 or raises from 0 is the caller's to check.  At
 * least 1.  Counts are before the first unit; outsum, insum current.
 */
static uint64_t cycle_units(const struct spgo_cfg *cfg, const struct cyc *c, uint32_t v)
{
	uint32_t Z = (uint32_t)(2 * cfg->nblocks);
	uint64_t k = UINT64_MAX;
#define BOUND(u) (k = (u) < k ? (u) : k)
#define KEEP_ONE(f) BOUND((f) > 1 ? (f) - 1 : 1) /* stop one unit short of 0 */
	uint32_t n = v;
	size_t steps = 0;
	do {
		uint32_t from = c->prev[n], id = c->arcid[n];
		const struct price *p = c->price + (c->kind[n] == ARC_UP || c->kind[n] == ARC_DOWN ? id : 0);
		uint64_t f;
		switch (c->kind[n]) {
		case ARC_EDGE_MINUS:
			KEEP_ONE(cfg->edges[id].count);
			break;
		case ARC_UP: /* up to the next breakpoint (none above w) */
			f = cfg->blocks[id].count;
			if (f < p->w)
				BOUND(f < p->c.floor ? p->c.floor - f : p->w - f);
			break;
		case ARC_DOWN: /* down to the next breakpoint, or to 1 */
			f = cfg->blocks[id].count;
			KEEP_ONE(f);
			if (f > p->w)
				BOUND(f - p->w);
			else if (f > p->c.floor)
				BOUND(f - p->c.floor);
			break;
		case ARC_OUTSIDE:
			if (from == Z && (n & 1)) /* Z -> out(y): less leaves at exit y */
				BOUND(cfg->blocks[n / 2].count - c->outsum[n / 2]);
			else if (n == Z && from == 2 * cfg->entry) /* in(entry) -> Z: less enters */
				KEEP_ONE(cfg->blocks[cfg->entry].count - c->insum[cfg->entry]);
			break;
		}
		n = from;
	} while (n != v && n != SPGO_NONE && ++steps <= 2 * cfg->nblocks + 1);
#undef KEEP_ONE
#undef BOUND
	return k == UINT64_MAX ? 1 : k; /* (a negative cycle has a bounded arc) */
}

/*
 * After islands were joined the flow may be improvable again (the unit
 * pushed for one island may make another push cheaper).  Find a negative
 * cycle over the same arcs as cycle_search (Moore-Bellman-Ford from all
 * nodes at once; a node taken from the queue more than |nodes| times lies
 * behind one) and apply it; 1 if applied.
 */
static int improve_once(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
			struct cyc *c)
{
	size_t nb = cfg->nblocks, nn = 2 * nb + 1, head = 0, len = 0, pops = 0, lap = 0;
	uint32_t Z = (uint32_t)(2 * nb);
	for (size_t v = 0; v < nn; v++) {
		c->dist[v] = 0;
		c->inq[v] = 1;
		c->rounds[v] = 0;
		c->prev[v] = SPGO_NONE;
		c->queue[len++] = (uint32_t)v;
	}
	uint32_t hit = SPGO_NONE;
	c->settled = 0;
	c->more = 0;
	while (len && hit == SPGO_NONE) {
		uint32_t node = c->queue[head];
		head = ring(head + 1, nn);
		len--;
		c->inq[node] = 0;
		if (++c->rounds[node] > nn + 1) {
			hit = node;
			break;
		}
		/* every nn steps, look for a cycle among the predecessor links
		 * (Floyd's two pointers): one there has negative cost */
		if (++pops, ++lap == nn) {
			lap = 0;
			uint32_t slow = node, fast = node;
			for (size_t k = 0; k <= nn && hit == SPGO_NONE; k++) {
				if (fast == SPGO_NONE || c->prev[fast] == SPGO_NONE)
					break;
				fast = c->prev[c->prev[fast]];
				slow = c->prev[slow];
				if (fast != SPGO_NONE && slow == fast)
					hit = slow;
			}
			if (hit != SPGO_NONE)
				break;
			if (pops > 32 * nn + 64)
				return 0;
		}
		if (node != Z && !live[node / 2])
			continue;
		relax_arcs(cfg, o, live, c, node, head, &len, nn);
	}
	if (hit == SPGO_NONE) {
		/* the queue ran empty: every arc satisfies
		 * dist[to] <= dist[from] + cost, so no cycle is negative */
		c->settled = !c->clamp;
		return 0;
	}
	/* walk back into the cycle, then apply one unit of it (polish adds
	 * the c->more others when the flow stays connected) */
	uint32_t v = hit;
	for (size_t k = 0; k < nn && c->prev[v] != SPGO_NONE; k++)
		v = c->prev[v];
	if (c->prev[v] == SPGO_NONE)
		return 0;
	c->cyc_node = v;
	c->more = cycle_units(cfg, c, v) - 1;
	uint32_t n = v;
	size_t steps = 0;
	do {
		arc_apply(cfg, c, n);
		n = c->prev[n];
	} while (n != v && n != SPGO_NONE && ++steps <= nn);
	return 1;
}

/*
 * JoinIsolatedComponents with costs: for the island block x that is
 * cheapest to connect (a path entry -> x plus a path x -> exit, one unit,
 * priced by the marginals), compare with dropping x's island (all blocks
 * of its positive component to 0) and do the cheaper.  Dropping is right
 * when the island only exists to raise blocks that are cheaper to lower
 * (Theorem 3.1 says the exact choice is APX-hard; this is the heuristic).
 */
/*
 * A cycle was applied and left positive blocks unreached (chk: what the
 * entry reaches now; saved, saved_b: the counts before).  Pin what cut them
 * off, so that the next search avoids it: edges into them that the cycle
 * brought to 0, blocks it raised from 0 into the new island (frozen);
 * failing those, whatever it brought to 0.  Returns 1 if something new was
 * pinned.  Before freezing a block raised into the new island, the edges
 * from unreached blocks that the cycle raised from 0 into it lose their +1
 * arc: a cycle that only moved an island's circulation onto unreached
 * blocks (an island loop 17 -> 17 rerouted over 17 -> 29 -> 17) must not
 * freeze 29, which the cycle that joins the island through the reached
 * part may need too (... -> 13 -> 23 -> 27 -> 29 -> 17 -> 13).
 */
static int pin_cut(const struct spgo_cfg *cfg, struct cyc *c, const uint8_t *chk, const uint64_t *saved,
		   const uint64_t *saved_b, uint64_t entered)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	int pinned = 0;
	for (size_t e = 0; e < ne; e++) {
		uint32_t s = cfg->edges[e].src, d = cfg->edges[e].dst;
		if (saved[e] == 0 && cfg->edges[e].count > 0 && !chk[s] && !chk[d] && saved_b[d] == 0 &&
		    !c->noplus[e])
			pinned = c->noplus[e] = 1;
	}
	for (size_t b = 0; b < nb && !pinned; b++)
		if (cfg->blocks[b].count > 0 && !chk[b] && saved_b[b] == 0 && !c->frozen[b])
			pinned = c->frozen[b] = 1;
	for (size_t e = 0; e < ne; e++) {
		uint32_t d = cfg->edges[e].dst;
		if (cfg->edges[e].count == 0 && saved[e] > 0 && !c->pin_e[e] && cfg->blocks[d].count > 0 && !chk[d])
			pinned = c->pin_e[e] = 1;
	}
	for (size_t e = 0; e < ne && !pinned; e++)
		if (cfg->edges[e].count == 0 && saved[e] > 0 && !c->pin_e[e])
			pinned = c->pin_e[e] = 1;
	for (size_t b = 0; b < nb && !pinned; b++)
		if (cfg->blocks[b].count == 0 && saved_b[b] > 0 && !c->pin_b[b])
			pinned = c->pin_b[b] = 1;
	const struct spgo_cfg_block *eb = &cfg->blocks[cfg->entry];
	uint64_t in = 0;
	for (uint32_t k = 0; k < eb->nin; k++)
		in += cfg->edges[cfg->pred[eb->in + k]].count;
	if (entered > 0 && eb->count <= in && !c->pin_entry)
		pinned = c->pin_entry = 1;
	return pinned;
}

static void unpin(const struct spgo_cfg *cfg, struct cyc *c)
{
	memset(c->frozen, 0, cfg->nblocks);
	memset(c->pin_b, 0, cfg->nblocks);
	memset(c->pin_e, 0, cfg->nedges);
	memset(c->noplus, 0, cfg->nedges);
	c->pin_entry = 0;
}

static int join_pass(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, int may_drop, int rev, int depth,
		     struct join_memo *memo);

/* FNV-1a over n counts. */
static uint64_t counts_hash(const uint64_t *v, size_t n)
{
	uint64_t h = 14695981039346656037u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211u;
	return h;
}

/* The result memo holds for the flow start (width counts, hash h), or
 * NULL. */
static const uint64_t *memo_find(const struct join_memo *m, const uint64_t *start, uint64_t h)
{
	for (size_t i = 0; i < m->n; i++) {
		const uint64_t *f = m->flows + 2 * m->width * i;
		if (m->hash[i] == h && !memcmp(f, start, m->width * sizeof *f))
			return f + m->width;
	}
	return NULL;
}

/* Remember that start (hash h) gave the flow of cfg. */
static void memo_put(struct join_memo *m, const struct spgo_cfg *cfg, const uint64_t *start, uint64_t h)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	if (!m->flows)
		m->flows = xmalloc(m->max * 2 * m->width * sizeof *m->flows);
	size_t i = m->n < m->max ? m->n++ : m->next;
	m->next = (i + 1) % m->max;
	uint64_t *f = m->flows + 2 * m->width * i;
	m->hash[i] = h;
	memcpy(f, start, m->width * sizeof *f);
	for (size_t b = 0; b < nb; b++)
		f[m->width + b] = cfg->blocks[b].count;
	for (size_t e = 0; e < ne; e++)
		f[m->width + nb + e] = cfg->edges[e].count;
}

/* 1 if every positive block is reached from the entry (chk: scratch). */
static int connected(const struct spgo_cfg *cfg, uint8_t *chk, uint32_t *stack)
{
	memset(chk, 0, cfg->nblocks);
	reach(cfg, chk, stack);
	for (size_t b = 0; b < cfg->nblocks; b++)
		if (cfg->blocks[b].count > 0 && !chk[b])
			return 0;
	return 1;
}

/*
 * When no negative cycle is left but pinned ones: reroute one unit of a
 * positive edge u -> v by the cheapest other way from out(u) to in(v) (a
 * cycle through the edge's -1 arc that keeps u feeding v, so it cuts off
 * less often than the cycles improve_once finds first).  Applies the
 * first that lowers the cost; 1 if one was applied.
 */
static int reroute(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, struct cyc *c)
{
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t u = cfg->edges[e].src, v = cfg->edges[e].dst;
		if (cfg->edges[e].count == 0 || u == v || !live[u] || !live[v])
			continue;
		/* When improve_once has just settled (no negative cycle), the
		 * cycle sought here is one only if it goes through the -1 arc
		 * of e, so e must be an edge that had none there: pinned at
		 * its last unit.  (Any walk out(u) -> in(v) costs at least
		 * dist[in v] - dist[out u] by the settled dist, and e's -1 arc
		 * gave dist[out u] <= dist[in v] - edge_cost: the walk plus
		 * that arc cannot be negative.)  Skipping the others finds the
		 * same first edge with one search per pinned edge. */
		if (c->settled && cfg->edges[e].count > c->pin_e[e])
			continue;
		c->ban_e = e;
		int ok = node_search(cfg, o, live, 2 * u + 1, c) == 0;
		c->ban_e = SPGO_NONE;
		if (!ok || c->dist[2 * v] == INT64_MAX || c->dist[2 * v] - edge_cost(cfg, o, e) >= 0)
			continue;
		cfg->edges[e].count--;
		for (uint32_t n = 2 * v; c->prev[n] != SPGO_NONE; n = c->prev[n])
			arc_apply(cfg, c, n);
		return 1;
	}
	return 0;
}

/* The flow's counts, saved and put back around a tentative change. */
static void save_counts(const struct spgo_cfg *cfg, uint64_t *edges, uint64_t *blocks)
{
	for (size_t e = 0; e < cfg->nedges; e++)
		edges[e] = cfg->edges[e].count;
	for (size_t b = 0; b < cfg->nblocks; b++)
		blocks[b] = cfg->blocks[b].count;
}
static void restore_counts(struct spgo_cfg *cfg, const uint64_t *edges, const uint64_t *blocks)
{
	for (size_t e = 0; e < cfg->nedges; e++)
		cfg->edges[e].count = edges[e];
	for (size_t b = 0; b < cfg->nblocks; b++)
		cfg->blocks[b].count = blocks[b];
}

/*
 * Polish: cancel negative cycles of the residual graph (cheaper flows
 * of the same value) while the flow stays connected.  A cycle that
 * breaks it is first tried with what it cut joined again (depth 0, CFGs
 * up to JOIN_PASSES_MAX blocks: a join_pass one level down, whose polish
 * does not do this), kept if the result is still cheaper than before
 * the cycle; otherwise it is undone, and what broke it is pinned: the
 * edges, blocks or entry it brought to 0 may no longer lose their last
 * unit, the blocks it raised into a new island are frozen at 0.  A kept
 * cycle lowers the cost and lifts the pins (what was pinned may move
 * again); each undone one pins something, so this ends.  When only
 * pinned cycles are left, reroute() tries single edges.  The result is
 * a flow that no single cycle improves among the connected flows that
 * keep the pinned support (joining islands is APX-hard, Theorem 3.1:
 * this makes the heuristic's result a local minimum).
 */
static void polish(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, struct cyc *c,
		   int depth)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint64_t *saved = c->saved_e, *saved_b = c->saved_b;
	uint8_t *chk = c->chk;
	unpin(cfg, c);
	for (size_t round = 0; round < 64 * nb + 256; round++) {
		for (size_t b = 0; b < nb; b++)
			c->outsum[b] = c->insum[b] = 0;
		for (size_t e = 0; e < ne; e++) {
			c->outsum[cfg->edges[e].src] += cfg->edges[e].count;
			c->insum[cfg->edges[e].dst] += cfg->edges[e].count;
		}
		save_counts(cfg, saved, saved_b);
		uint64_t entered = cfg->blocks[cfg->entry].count - c->insum[cfg->entry];
		if (!improve_once(cfg, o, live, c) && !(depth == 0 && nb <= JOIN_PASSES_MAX && reroute(cfg, o, live, c)))
			break;
		memset(chk, 0, nb);
		reach(cfg, chk, c->stack);
		int bad = 0;
		for (size_t b = 0; b < nb; b++)
			bad |= cfg->blocks[b].count > 0 && !chk[b];
		if (bad && depth == 0 && nb <= JOIN_PASSES_MAX) {
			/* The cycle cut something off: join what it cut (one
			 * level down, whose polish does not try this again),
			 * and keep the result when it is still cheaper than the
			 * flow before the cycle. */
			uint64_t *cut = xmalloc((nb + ne + 1) * sizeof *cut);
			for (size_t b = 0; b < nb; b++) {
				cut[b] = cfg->blocks[b].count;
				cfg->blocks[b].count = saved_b[b];
			}
			for (size_t e = 0; e < ne; e++) {
				cut[nb + e] = cfg->edges[e].count;
				cfg->edges[e].count = saved[e];
			}
			double before = spgo_flow_cost_l1(cfg, o);
			uint64_t h = counts_hash(cut, nb + ne);
			const uint64_t *joined = c->memo ? memo_find(&c->memo[0], cut, h) : NULL;
			if (!joined)
				joined = cut;
			for (size_t b = 0; b < nb; b++)
				cfg->blocks[b].count = joined[b];
			for (size_t e = 0; e < ne; e++)
				cfg->edges[e].count = joined[nb + e];
			if (joined == cut) {
				join_pass(cfg, o, 1, 0, 1, NULL);
				if (c->memo)
					memo_put(&c->memo[0], cfg, cut, h);
			}
			int keep = spgo_flow_cost_l1(cfg, o) < before && connected(cfg, chk, c->stack);
			for (size_t b = 0; b < nb && !keep; b++)
				cfg->blocks[b].count = cut[b];
			for (size_t e = 0; e < ne && !keep; e++)
				cfg->edges[e].count = cut[nb + e];
			free(cut);
			if (keep) {
				unpin(cfg, c);
				continue;
			}
			memset(chk, 0, nb);
			reach(cfg, chk, c->stack);
		}
		if (!bad) {
			/* improve_once's cycle kept the flow connected: it
			 * takes the other units it may carry at the same
			 * price, which leave the support as it is (rather
			 * than being found again once per unit) */
			for (uint32_t n = c->cyc_node, k = 0; c->more && (n != c->cyc_node || !k++); n = c->prev[n])
				arc_apply_n(cfg, c, n, c->more);
			/* a kept cycle lowered the cost: what was pinned on
			 * the way may be free to move again (the cost bounds
			 * the kept cycles, the pins the undone ones between) */
			unpin(cfg, c);
			continue;
		}
		int pinned = pin_cut(cfg, c, chk, saved, saved_b, entered);
		restore_counts(cfg, saved, saved_b);
		if (!pinned)
			break;
	}
}

/*
 * Before an island is dropped: one more call through x priced on the
 * residual graph rather than by cheapest()'s forward marginals, as two
 * searches over the arcs of cycle_search, Z -> in(x) and then (on the
 * flow with that path applied) in(x) -> Z.  The paths may take flow off
 * other routes (a loop that only raised a block above its weight can give
 * its unit to the way to x), which the forward prices cannot see.  Kept
 * when x is reached after it, nothing reached is cut off, and the L1
 * cost rose by less than dropping would cost; 1 if kept.
 */
static void cyc_sums(const struct spgo_cfg *cfg, struct cyc *c)
{
	for (size_t b = 0; b < cfg->nblocks; b++)
		c->outsum[b] = c->insum[b] = 0;
	for (size_t e = 0; e < cfg->nedges; e++) {
		c->outsum[cfg->edges[e].src] += cfg->edges[e].count;
		c->insum[cfg->edges[e].dst] += cfg->edges[e].count;
	}
}

static int residual_call(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
			 struct cyc *c, uint32_t x, double drop, const uint8_t *reached)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint32_t Z = (uint32_t)(2 * nb);
	cyc_sums(cfg, c);
	if (node_search(cfg, o, live, Z, c) || c->dist[2 * x] == INT64_MAX)
		return 0;
	for (size_t e = 0; e < ne; e++)
		c->saved_e[e] = cfg->edges[e].count;
	for (size_t b = 0; b < nb; b++)
		c->saved_b[b] = cfg->blocks[b].count;
	double before = spgo_flow_cost_l1(cfg, o);
	for (uint32_t n = 2 * x; c->prev[n] != SPGO_NONE; n = c->prev[n])
		arc_apply(cfg, c, n);
	cfg->blocks[x].count++;
	for (size_t e = 0; e < ne; e++) /* the second path may not undo the first */
		c->pin_e[e] = cfg->edges[e].count > c->saved_e[e];
	cyc_sums(cfg, c);
	int keep = node_search(cfg, o, live, 2 * x + 1, c) == 0 && c->dist[Z] != INT64_MAX;
	if (!keep) {
		c->clamp = 1;
		keep = node_search(cfg, o, live, 2 * x + 1, c) == 0 && c->dist[Z] != INT64_MAX;
		c->clamp = 0;
	}
	if (keep) {
		for (uint32_t n = Z; c->prev[n] != SPGO_NONE; n = c->prev[n])
			arc_apply(cfg, c, n);
		memset(c->chk, 0, nb);
		reach(cfg, c->chk, c->stack);
		keep = c->chk[x] && spgo_flow_cost_l1(cfg, o) - before < drop;
		for (size_t b = 0; b < nb && keep; b++)
			keep = !(reached[b] && cfg->blocks[b].count > 0 && !c->chk[b]);
	}
	unpin(cfg, c);
	if (!keep) {
		for (size_t e = 0; e < ne; e++)
			cfg->edges[e].count = c->saved_e[e];
		for (size_t b = 0; b < nb; b++)
			cfg->blocks[b].count = c->saved_b[b];
	}
	return keep;
}

static int join_pass(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, int may_drop, int rev, int depth,
		     struct join_memo *memo)
{
	size_t nb = cfg->nblocks;
	int drops = 0;
	uint8_t *mark = xcalloc(nb, 1), *from_entry = xcalloc(nb, 1), *island = xcalloc(nb, 1);
	uint32_t *stack = xmalloc((nb + 1) * sizeof *stack);
	int64_t *d1 = xmalloc(nb * sizeof *d1), *d2 = xmalloc(nb * sizeof *d2);
	uint32_t *via1 = xmalloc(nb * sizeof *via1), *via2 = xmalloc(nb * sizeof *via2);
	uint32_t *queue = xmalloc(nb * sizeof *queue), *rounds = xmalloc(nb * sizeof *rounds);
	uint8_t *inq = xmalloc(nb);
	struct cyc cy;
	size_t nn = 2 * nb + 1;
	cy.prev = xmalloc(nn * sizeof *cy.prev);
	cy.arcid = xmalloc(nn * sizeof *cy.arcid);
	cy.queue = xmalloc(nn * sizeof *cy.queue);
	cy.rounds = xmalloc(nn * sizeof *cy.rounds);
	cy.kind = xmalloc(nn);
	cy.prev2 = xmalloc(nn * sizeof *cy.prev2);
	cy.arcid2 = xmalloc(nn * sizeof *cy.arcid2);
	cy.kind2 = xmalloc(nn);
	cy.inq = xmalloc(nn);
	cy.dist = xmalloc(nn * sizeof *cy.dist);
	cy.outsum = xmalloc(nb * sizeof *cy.outsum);
	cy.insum = xmalloc(nb * sizeof *cy.insum);
	struct price *price = xmalloc(nb * sizeof *price);
	prices(cfg, o, price);
	cy.price = price;
	cy.frozen = xcalloc(nb, 1);
	cy.pin_b = xcalloc(nb, 1);
	cy.pin_e = xcalloc(cfg->nedges + 1, 1);
	cy.noplus = xcalloc(cfg->nedges + 1, 1);
	cy.pin_entry = 0;
	cy.clamp = 0;
	cy.rev = rev;
	cy.last_x = SPGO_NONE;
	cy.ban_e = SPGO_NONE;
	cy.last_ok = cy.failed = cy.settled = 0;
	uint64_t *saved_b = cy.saved_b = xmalloc(nb * sizeof *saved_b);
	uint8_t *chk = cy.chk = xmalloc(nb);

	cy.exits = xmalloc((nb + 1) * sizeof *cy.exits);
	cy.nexits = 0;
	size_t ne = cfg->nedges;
	uint64_t *saved = cy.saved_e = xmalloc((ne + 1) * sizeof *saved);
	cy.stack = stack;
	cy.memo = memo;

	/* Flow the entry cannot reach, or that can reach no exit, is a closed
	 * circulation: remove it. */
	search(cfg, &cfg->entry, 1, 1, 0, from_entry, stack);
	size_t nexit = 0;
	for (uint32_t b = 0; b < nb; b++)
		if (spgo_cfg_is_exit(cfg, b))
			stack[nexit++] = b;
	uint32_t *exits = xmalloc((nexit + 1) * sizeof *exits);
	memcpy(exits, stack, nexit * sizeof *exits);
	search(cfg, exits, nexit, 0, 0, mark, stack);
	free(exits);
	uint8_t *live = xmalloc(nb);
	for (size_t b = 0; b < nb; b++)
		live[b] = mark[b] &= from_entry[b];
	zero_outside(cfg, mark);
	for (uint32_t b = 0; b < nb; b++)
		if (live[b] && spgo_cfg_is_exit(cfg, b))
			cy.exits[cy.nexits++] = b;

	for (size_t guard = 0;; guard++) {
		memset(from_entry, 0, nb);
		reach(cfg, from_entry, stack);
		size_t nisland = 0;
		for (size_t b = 0; b < nb; b++) {
			island[b] = cfg->blocks[b].count > 0 && !from_entry[b];
			nisland += island[b];
		}
		if (!nisland)
			break;

		for (size_t b = 0; b < nb; b++)
			cy.outsum[b] = cy.insum[b] = 0;
		for (size_t e = 0; e < ne; e++) {
			cy.outsum[cfg->edges[e].src] += cfg->edges[e].count;
			cy.insum[cfg->edges[e].dst] += cfg->edges[e].count;
		}
		/* Prices on the current flow: one more call through the
		 * cheapest island block x ... */
		int ok = 0;
		for (int clamp = 0; clamp <= 1 && !ok; clamp++)
			ok = cheapest(cfg, o, price, live, 1, clamp, d1, via1, queue, inq, rounds) == 0 &&
			     cheapest(cfg, o, price, live, 0, clamp, d2, via2, queue, inq, rounds) == 0;
		uint32_t x = SPGO_NONE;
		int64_t best = INT64_MAX;
		for (uint32_t b = 0; ok && b < nb; b++)
			if (island[b] && d1[b] != INT64_MAX && d2[b] != INT64_MAX &&
			    (d1[b] + d2[b] < best || (rev && d1[b] + d2[b] == best))) {
				best = d1[b] + d2[b];
				x = b;
			}
		/* ... or dropping x's island (its component over positive edges) */
		double drop = INFINITY;
		if (x != SPGO_NONE && may_drop) {
			memset(mark, 0, nb);
			size_t sp = 0;
			mark[x] = 1;
			stack[sp++] = x;
			drop = 0;
			while (sp) {
				uint32_t v = stack[--sp];
				const struct spgo_cfg_block *bl = &cfg->blocks[v];
				drop += block_cost(cfg, o, v, 0) - block_cost(cfg, o, v, bl->count);
				for (uint32_t k = 0; k < bl->nout + bl->nin; k++) {
					uint32_t e = k < bl->nout ? cfg->succ[bl->out + k]
								  : cfg->pred[bl->in + k - bl->nout];
					uint32_t w = k < bl->nout ? cfg->edges[e].dst : cfg->edges[e].src;
					if (cfg->edges[e].count > 0 && island[w] && !mark[w]) {
						mark[w] = 1;
						stack[sp++] = w;
					}
				}
			}
		}
		/* ... or the cheapest cycle, through any p -> x first (p may be
		 * reached through the cycle itself), then through reached p;
		 * kept when no dearer than the others and fewer island blocks
		 * are left (so every round makes progress). */
		for (size_t b = 0; b < nb; b++)
			cy.outsum[b] = cy.insum[b] = 0;
		for (size_t e = 0; e < ne; e++) {
			cy.outsum[cfg->edges[e].src] += cfg->edges[e].count;
			cy.insum[cfg->edges[e].dst] += cfg->edges[e].count;
		}
		int kept = 0;
		/* When the island holds the entry (a loop through it that
		 * nothing enters), first the cheapest cycle that lets a unit
		 * enter there: Z -> in(entry) -> ... -> Z.  It costs nothing
		 * when the same counts have a flow that enters (exact weights
		 * whose min-cost routing came out as a circulation). */
		if (island[cfg->entry] && guard <= 4 * nb + 4 && cycle_search(cfg, o, live, cfg->entry, &cy) == 0) {
			uint32_t Z = (uint32_t)(2 * nb);
			int64_t ec = cy.dist[Z];
			if (ec != INT64_MAX && ec <= best && (double)ec <= drop) {
				save_counts(cfg, saved, saved_b);
				for (uint32_t n = Z; cy.prev[n] != SPGO_NONE; n = cy.prev[n])
					arc_apply(cfg, &cy, n);
				memset(chk, 0, nb);
				reach(cfg, chk, stack);
				size_t left = 0;
				for (size_t b = 0; b < nb; b++)
					left += cfg->blocks[b].count > 0 && !chk[b];
				if (left < nisland) {
					continue;
				}
				restore_counts(cfg, saved, saved_b);
			}
		}
		/* A cycle that joins x may cut something else off (another
		 * zero-cost way around would not have): then what it cut is
		 * pinned and the search runs again, a few times. */
		cy.failed = 0;
		for (int k = 0; k < 4 && !kept && guard <= 4 * nb + 4; k++) {
			int any_p = !(k & 1);
			if (k == 1 && cy.failed)
				continue; /* the same searches would fail again */
			cy.clamp = k >= 2; /* when a negative cycle stopped the searches */
			unpin(cfg, &cy);
			for (int attempt = 0; attempt < 8 && !kept; attempt++) {
				uint32_t cx = SPGO_NONE, ce = SPGO_NONE;
				int64_t cbest = best_cycle(cfg, o, live, island, from_entry, any_p, &cy, &cx, &ce);
				if (cbest == INT64_MAX)
					break;
				int64_t call = best; /* one more call instead (through cx, when rev) */
				if (rev && ok && d1[cx] != INT64_MAX && d2[cx] != INT64_MAX)
					call = d1[cx] + d2[cx];
				if (cbest > call || (double)cbest > drop)
					break;
				save_counts(cfg, saved, saved_b);
				const struct spgo_cfg_block *eb = &cfg->blocks[cfg->entry];
				uint64_t entered = eb->count - cy.insum[cfg->entry];
				int pinned = 0;
				if ((cy.last_x == cx && cy.last_ok) || cycle_search(cfg, o, live, cx, &cy) == 0) {
					cycle_apply(cfg, &cy, 2 * cfg->edges[ce].src + 1, ce);
					memset(chk, 0, nb);
					reach(cfg, chk, stack);
					/* progress: fewer island blocks (and, in the
					 * rev pass, nothing that was reached cut off) */
					size_t left = 0, cut = 0;
					for (size_t b = 0; b < nb; b++) {
						left += cfg->blocks[b].count > 0 && !chk[b];
						cut += from_entry[b] && cfg->blocks[b].count > 0 && !chk[b];
					}
					if (left < nisland && !(rev && cut)) {
						kept = 1;
						break;
					}
					pinned = pin_cut(cfg, &cy, chk, saved, saved_b, entered);
				}
				restore_counts(cfg, saved, saved_b);
				if (!pinned)
					break;
			}
		}
		unpin(cfg, &cy);
		cy.clamp = 0;
		if (kept) {
			continue;
		}
		if (x == SPGO_NONE || guard > 4 * nb + 4) {
			/* no trustworthy prices: drop every island */
			for (size_t b = 0; b < nb; b++)
				mark[b] = !island[b];
			zero_outside(cfg, mark);
			break;
		}
		if (drop < (double)best && residual_call(cfg, o, live, &cy, x, drop, from_entry))
			continue;
		if (drop < (double)best) {
			drops++;
			for (size_t b = 0; b < nb; b++)
				mark[b] = !mark[b];
			zero_outside(cfg, mark);
			continue;
		}
		/* entry -> x */
		for (uint32_t v = x;;) {
			cfg->blocks[v].count++;
			if (via1[v] == SPGO_NONE)
				break;
			cfg->edges[via1[v]].count++;
			v = cfg->edges[via1[v]].src;
		}
		/* x -> exit */
		for (uint32_t v = x; via2[v] != SPGO_NONE;) {
			cfg->edges[via2[v]].count++;
			v = cfg->edges[via2[v]].dst;
			cfg->blocks[v].count++;
		}
	}
	if (memo && depth == 0) {
		/* the same start polishes the same way (see join_memo) */
		uint64_t *start = xmalloc((nb + ne + 1) * sizeof *start);
		for (size_t b = 0; b < nb; b++)
			start[b] = cfg->blocks[b].count;
		for (size_t e = 0; e < ne; e++)
			start[nb + e] = cfg->edges[e].count;
		uint64_t h = counts_hash(start, nb + ne);
		const uint64_t *done = memo_find(&memo[1], start, h);
		if (done) {
			for (size_t b = 0; b < nb; b++)
				cfg->blocks[b].count = done[b];
			for (size_t e = 0; e < ne; e++)
				cfg->edges[e].count = done[nb + e];
		} else {
			polish(cfg, o, live, &cy, depth);
			memo_put(&memo[1], cfg, start, h);
		}
		free(start);
	} else {
		polish(cfg, o, live, &cy, depth);
	}
	free(mark);
	free(from_entry);
	free(island);
	free(stack);
	free(d1);
	free(d2);
	free(via1);
	free(via2);
	free(queue);
	free(rounds);
	free(inq);
	free(cy.exits);
	free(cy.prev);
	free(cy.arcid);
	free(cy.queue);
	free(cy.rounds);
	free(cy.kind);
	free(cy.prev2);
	free(cy.arcid2);
	free(cy.kind2);
	free(cy.inq);
	free(cy.dist);
	free(cy.outsum);
	free(cy.insum);
	free(price);
	free(cy.frozen);
	free(cy.pin_b);
	free(cy.pin_e);
	free(cy.noplus);
	free(saved_b);
	free(chk);
	free(saved);
	free(live);
	return drops;
}

void flow_join_islands(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	{
		/* The common case first: every positive block is reached from
		 * the entry over positive edges (then each also reaches an exit,
		 * by conservation), and there is nothing to do. */
		uint32_t small_st[256];
		uint8_t small_r[256];
		uint32_t *st = nb < 256 ? small_st : xmalloc((nb + 1) * sizeof *st);
		uint8_t *r = nb < 256 ? small_r : xmalloc(nb);
		memset(r, 0, nb);
		reach(cfg, r, st);
		int fine = 1;
		for (size_t b = 0; b < nb && fine; b++)
			fine = cfg->blocks[b].count == 0 || r[b];
		if (nb >= 256) {
			free(r);
			free(st);
		}
		if (fine)
			return;
	}
	/* The joins are greedy, one island at a time, and their order
	 * matters: joining a dear island first can make a cheap one free (it
	 * is fed through the first), and dropping an island, the cheaper
	 * choice where it is taken, freezes it at 0 for the joins that follow.
	 * So when joining cost anything, two more passes run from the same
	 * start: the dearest island first (where a join may not cut off what
	 * an earlier one reached), and (if the first pass dropped one) never
	 * dropping.  The cheapest result is kept.  Each pass costs about what
	 * the first did (less what join_memo finds done already), which on a
	 * CFG of hundreds of blocks with islands is more than the solve (on
	 * speedtest1's CFGs: 25 ms more over all, for an L1 gain of 2): the
	 * passes run on CFGs up to JOIN_PASSES_MAX blocks. */
	uint64_t *start = xmalloc((nb + ne + 1) * sizeof *start), *best = xmalloc((nb + ne + 1) * sizeof *best);
	for (size_t b = 0; b < nb; b++)
		start[b] = cfg->blocks[b].count;
	for (size_t e = 0; e < ne; e++)
		start[nb + e] = cfg->edges[e].count;
	double c0 = spgo_flow_cost_l1(cfg, o);
	struct join_memo memo[2] = {{.max = JOIN_MEMO_MAX, .width = nb + ne}, {.max = 3, .width = nb + ne}};
	int drops = join_pass(cfg, o, 1, 0, 0, nb <= JOIN_PASSES_MAX ? memo : NULL);
	double cbest = spgo_flow_cost_l1(cfg, o);
	for (int pass = 1; pass <= 2 && cbest > c0 && nb <= JOIN_PASSES_MAX; pass++) {
		if (pass == 2 && !drops)
			break;
		for (size_t b = 0; b < nb; b++) {
			best[b] = cfg->blocks[b].count;
			cfg->blocks[b].count = start[b];
		}
		for (size_t e = 0; e < ne; e++) {
			best[nb + e] = cfg->edges[e].count;
			cfg->edges[e].count = start[nb + e];
		}
		join_pass(cfg, o, pass == 1, pass == 1, 0, memo);
		double c = spgo_flow_cost_l1(cfg, o);
		if (c < cbest) {
			cbest = c;
			continue;
		}
		for (size_t b = 0; b < nb; b++)
			cfg->blocks[b].count = best[b];
		for (size_t e = 0; e < ne; e++)
			cfg->edges[e].count = best[nb + e];
	}
	free(memo[0].flows);
	free(memo[1].flows);
	free(start);
	free(best);
}
