/*
 * The residual graph of a flow on the CFG itself (join_impl.h): the
 * searches over its arcs, applying what they find, the negative cycles of
 * polishing, and the pins that keep a search off arcs that would cut the
 * flow apart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "infer/join_impl.h"
#include "spgo/common.h"

/* Blocks marked by a search from start along successors (dir = 1) or
 * predecessors (dir = 0), over all edges or positive ones only. */
void res_search(const struct spgo_cfg *cfg, const uint32_t *starts, size_t nstarts, int fwd, int positive,
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
void res_reach(const struct spgo_cfg *cfg, uint8_t *mark, uint32_t *stack)
{
	const struct spgo_cfg_block *eb = &cfg->blocks[cfg->entry];
	uint64_t in = 0;
	for (uint32_t k = 0; k < eb->nin; k++)
		in += cfg->edges[cfg->pred[eb->in + k]].count;
	if (eb->count > in)
		res_search(cfg, &cfg->entry, 1, 1, 1, mark, stack);
}

void res_prices(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct price *p)
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

/*
 * Both searches below are Moore-Bellman-Ford with Tarjan's subtree
 * disassembly (Cherkassky & Goldberg, "Negative-cycle detection
 * algorithms", 1999: BFCT).  The shortest-path tree (along prev) is kept
 * as its nodes in preorder on a doubly linked ring (next, back) through a
 * root with their depths, so that the subtree of w is the run of deeper
 * nodes after it.  When an arc u -> w lowers dist[w], the labels of w's
 * subtree were computed from w's old one: walking it either meets u, and
 * then the tree path w -> ... -> u and the arc close a negative cycle at
 * once (rather than after |nodes| rounds of some node), or takes its
 * nodes out of the tree and (as stale) out of the queue: they are not
 * scanned until an arc lowers them again, which w's next scan does.
 * Only a scanned node gets children, so the walks cost no more than the
 * scans.  When the queue runs empty every node reached is in the tree and
 * every arc out of a scanned node satisfies dist[to] <= dist[from] + cost.
 */
#define NOT_IN_TREE UINT32_MAX

/* Node w, in the tree or not, lowered to nd by the arc of kind k, id from
 * node u (in the tree): w's old subtree leaves the tree, and w becomes u's
 * first child, queued if it is not.  Returns 1 if u was in w's subtree:
 * then prev holds a negative cycle through w, and the tree is left as it
 * is (the search ends). */
static inline int res_lower(struct cyc *c, uint32_t u, uint32_t w, int64_t nd, uint8_t k, uint32_t id,
			    size_t head, size_t *len, size_t nn)
{
	c->dist[w] = nd;
	c->prev[w] = u;
	c->kind[w] = k;
	c->arcid[w] = id;
	if (w == u)
		return 1;
	uint32_t dw = c->depth[w];
	if (dw != NOT_IN_TREE) {
		uint32_t x = c->next[w];
		for (; c->depth[x] > dw; x = c->next[x]) {
			if (x == u)
				return 1;
			c->depth[x] = NOT_IN_TREE;
			if (c->inq[x] == 1)
				c->inq[x] = 2;
		}
		c->next[c->back[w]] = x; /* cut out w and its subtree */
		c->back[x] = c->back[w];
	}
	uint32_t after = c->next[u];
	c->depth[w] = c->depth[u] + 1;
	c->back[w] = u;
	c->next[w] = after;
	c->back[after] = w;
	c->next[u] = w;
	if (c->inq[w] == 0)
		c->queue[ring(head + (*len)++, nn)] = w;
	c->inq[w] = 1;
	return 0;
}

/*
 * Relax the residual arcs out of node, the arcs that res_cycle_search and
 * res_improve_once both search: the outside node Z feeds the entry and takes
 * from exits; out(v) reaches in(d) of live successors and may lower v;
 * in(v) may undo flow on its in-edges and raise v.  The queue is the
 * caller's ring buffer (head, *len, size nn).  Returns the node through
 * which prev holds a negative cycle, or SPGO_NONE.
 */
static uint32_t relax_arcs(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
			   struct cyc *c, uint32_t node, size_t head, size_t *len, size_t nn)
{
	uint32_t Z = (uint32_t)(2 * cfg->nblocks);
	int64_t dn = c->dist[node];
#define RELAX(w, k, id, cost)                                                                                  \
	do {                                                                                                   \
		int64_t c_ = (cost), nd_ = dn + (c->clamp && c_ < 0 ? 0 : c_);                                 \
		if (nd_ < c->dist[w] && res_lower(c, node, (w), nd_, (k), (id), head, len, nn))                \
			return (w);                                                                            \
	} while (0)
	if (node == Z) {
		for (uint32_t k = 0; k < c->nexits; k++) {
			uint32_t y = c->exits[k];
			if (cfg->blocks[y].count > c->outsum[y])
				RELAX(2 * y + 1, ARC_OUTSIDE, 0, 0);
		}
		RELAX(2 * cfg->entry, ARC_OUTSIDE, 0, 0);
		return SPGO_NONE;
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
	return SPGO_NONE;
}

/*
 * The search's loop over the queue (head 0, len entries): scan what is
 * queued and in the tree, skip the stale, until the queue is empty (0), a
 * negative cycle shows up (1, through *hit), or more than limit scans
 * (-1).  Only live blocks' nodes are scanned unless all_nodes.
 */
static int res_scan(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		    struct cyc *c, size_t len, size_t limit, int all_nodes, uint32_t *hit)
{
	size_t nn = 2 * cfg->nblocks + 1, head = 0, scans = 0;
	uint32_t Z = (uint32_t)(2 * cfg->nblocks);
	while (len) {
		uint32_t node = c->queue[head];
		head = ring(head + 1, nn);
		len--;
		int stale = c->inq[node] == 2;
		c->inq[node] = 0;
		if (stale || (!all_nodes && node != Z && !live[node / 2]))
			continue;
		if (++scans > limit)
			return -1;
		*hit = relax_arcs(cfg, o, live, c, node, head, &len, nn);
		if (*hit != SPGO_NONE)
			return 1;
	}
	return 0;
}

/* Shortest distances from node start; 0, or -1 if a negative cycle showed
 * up or the search ran too long to be worth it. */
int res_node_search(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		    uint32_t start, struct cyc *c)
{
	size_t nb = cfg->nblocks, nn = 2 * nb + 1;
	uint32_t root = (uint32_t)nn, hit;
	for (size_t v = 0; v < nn; v++) {
		c->dist[v] = INT64_MAX;
		c->inq[v] = 0;
		c->depth[v] = NOT_IN_TREE;
		c->prev[v] = SPGO_NONE;
	}
	c->depth[root] = 0;
	c->next[root] = c->back[root] = start;
	c->next[start] = c->back[start] = root;
	c->depth[start] = 1;
	c->dist[start] = 0;
	c->queue[0] = start;
	c->inq[start] = 1;
	return res_scan(cfg, o, live, c, 1, 4 * nn + 64, 1, &hit) == 0 ? 0 : -1;
}

/* Shortest distances from in(x). */
int res_cycle_search(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		     uint32_t x, struct cyc *c)
{
	return res_node_search(cfg, o, live, 2 * x, c);
}

/* Apply the change of the arc by which the search reached node n, units
 * times. */
void res_arc_apply_n(struct spgo_cfg *cfg, const struct cyc *c, uint32_t n, uint64_t units)
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

void res_arc_apply(struct spgo_cfg *cfg, const struct cyc *c, uint32_t n)
{
	res_arc_apply_n(cfg, c, n, 1);
}

/* Apply the cycle found by res_cycle_search, closing with +1 on edge add. */
void res_cycle_apply(struct spgo_cfg *cfg, const struct cyc *c, uint32_t node, uint32_t add)
{
	cfg->edges[add].count++;
	for (uint32_t n = node; c->prev[n] != SPGO_NONE; n = c->prev[n]) {
		res_arc_apply(cfg, c, n);
	}
}

/* Trade a search's predecessor links with the spare set. */
void res_swap(struct cyc *c)
{
	uint32_t *t = c->prev;
	c->prev = c->prev2, c->prev2 = t;
	t = c->arcid;
	c->arcid = c->arcid2, c->arcid2 = t;
	uint8_t *k = c->kind;
	c->kind = c->kind2, c->kind2 = k;
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
 * cycle over the same arcs as res_cycle_search (Moore-Bellman-Ford from all
 * nodes at once, with subtree disassembly: see res_lower) and apply it;
 * 1 if applied.  The search is one from a root with an arc to every node,
 * which finds a negative cycle whatever those arcs cost: they cost the
 * labels the last call ended with (c->pot), not 0.  The flow changed
 * since only along that call's cycle (or a reroute), so most labels
 * still hold and fewer nodes are lowered again (on sqlite3's CFGs 17%
 * fewer instructions here, and the same flows on them).
 */
int res_improve_once(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
		     struct cyc *c)
{
	size_t nb = cfg->nblocks, nn = 2 * nb + 1;
	uint32_t root = (uint32_t)nn, hit = SPGO_NONE;
	/* every node a child of the root, in order */
	for (size_t v = 0; v < nn; v++) {
		c->dist[v] = c->pot_ok ? c->pot[v] : 0;
		c->inq[v] = 1;
		c->depth[v] = 1;
		c->prev[v] = SPGO_NONE;
		c->queue[v] = (uint32_t)v;
		c->next[v] = (uint32_t)v + 1;
		c->back[v] = v ? (uint32_t)v - 1 : root;
	}
	c->depth[root] = 0;
	c->next[root] = 0;
	c->back[root] = (uint32_t)nn - 1;
	c->next[nn - 1] = root;
	c->settled = 0;
	c->more = 0;
	int r = res_scan(cfg, o, live, c, nn, 32 * nn + 64, 0, &hit);
	memcpy(c->pot, c->dist, nn * sizeof *c->pot); /* the next call's start */
	c->pot_ok = 1;
	if (r == 0) {
		/* the queue ran empty: every arc satisfies
		 * dist[to] <= dist[from] + cost, so no cycle is negative */
		c->settled = !c->clamp;
		return 0;
	}
	if (r < 0)
		return 0;
	/* apply one unit of the cycle (polish adds the c->more others when
	 * the flow stays connected) */
	uint32_t v = hit;
	c->cyc_node = v;
	c->more = cycle_units(cfg, c, v) - 1;
	uint32_t n = v;
	size_t steps = 0;
	do {
		res_arc_apply(cfg, c, n);
		n = c->prev[n];
	} while (n != v && n != SPGO_NONE && ++steps <= nn);
	return 1;
}

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
int res_pin_cut(const struct spgo_cfg *cfg, struct cyc *c, const uint8_t *chk, const uint64_t *saved,
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

void res_unpin(const struct spgo_cfg *cfg, struct cyc *c)
{
	memset(c->frozen, 0, cfg->nblocks);
	memset(c->pin_b, 0, cfg->nblocks);
	memset(c->pin_e, 0, cfg->nedges);
	memset(c->noplus, 0, cfg->nedges);
	c->pin_entry = 0;
}

/* The flow's counts, saved and put back around a tentative change. */
void res_save_counts(const struct spgo_cfg *cfg, uint64_t *edges, uint64_t *blocks)
{
	for (size_t e = 0; e < cfg->nedges; e++)
		edges[e] = cfg->edges[e].count;
	for (size_t b = 0; b < cfg->nblocks; b++)
		blocks[b] = cfg->blocks[b].count;
}
void res_restore_counts(struct spgo_cfg *cfg, const uint64_t *edges, const uint64_t *blocks)
{
	for (size_t e = 0; e < cfg->nedges; e++)
		cfg->edges[e].count = edges[e];
	for (size_t b = 0; b < cfg->nblocks; b++)
		cfg->blocks[b].count = blocks[b];
}
void res_get_flow(const struct spgo_cfg *cfg, uint64_t *v)
{
	res_save_counts(cfg, v + cfg->nblocks, v);
}
void res_set_flow(struct spgo_cfg *cfg, const uint64_t *v)
{
	res_restore_counts(cfg, v + cfg->nblocks, v);
}

/* outsum, insum: what leaves and enters each block over its edges. */
void res_sums(const struct spgo_cfg *cfg, struct cyc *c)
{
	for (size_t b = 0; b < cfg->nblocks; b++)
		c->outsum[b] = c->insum[b] = 0;
	for (size_t e = 0; e < cfg->nedges; e++) {
		c->outsum[cfg->edges[e].src] += cfg->edges[e].count;
		c->insum[cfg->edges[e].dst] += cfg->edges[e].count;
	}
}
