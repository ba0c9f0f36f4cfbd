/*
 * The min-cost flow solver behind profi, mcf and quadratic.
 *
 * The reduction of section 3.1, with each block u split into u_in and
 * u_out.  For a sampled block with weight w:
 *
 *     s'' -> u_out   cap w,   cost 0      } the lower bound w on (u_in, u_out),
 *     u_in -> t''    cap w,   cost 0      } removed the usual way
 *     u_in -> u_out  cap inf, cost k_inc  (k_inc0 when w = 0): raise the count
 *     u_out -> u_in  cap w,   cost k_dec  lower the count
 *
 * (the paper's u_aux node only doubles both costs, so it is left out).  A
 * dangling block is one node (u_in -> u_out with cap inf would only say
 * that what comes in goes out); its cost k_unknown_inc per unit is on the
 * arcs into it (every unit through it comes in once).  Blocks the entry cannot reach or
 * that reach no exit get no node: a valid flow leaves them at 0.  Every CFG
 * edge (u, v) is u_out -> v_in (cap inf, cost 0), every exit x gets x_out ->
 * t', and s' -> entry_in and t' -> s' close the circulation.  A maximum
 * s''-t'' flow always saturates everything out of s'' (the decrease arcs
 * make that feasible), and its minimum cost gives the minimum L1 cost flow.
 * The count of u is then w + flow(inc) - flow(dec).
 *
 * profi (section 4, Algorithm 1) augments it with
 *  - greedy zero-cost augmentation first: s'' -> u_out -> v_in -> t'' for
 *    every edge (u, v), and s'' -> x_out -> t' -> s' -> entry_in -> t'';
 *    then, if the first search finds a path of cost 0, the rest of them at
 *    once, as a maximum flow over the arcs of cost 0 (net_zero_cost_flow),
 *    where successive shortest paths would spend one search per path;
 *  - the modified Moore-Bellman-Ford: no relaxation out of u once d(u) >
 *    d(t''), stop as soon as d(t'') = 0 (Lemmas 4.1-4.3); its queue puts a
 *    node whose label is smaller than the front's at the front (the "small
 *    label first" rule, which halves the work on our CFGs);
 *  - augmentation along the DAG of all shortest paths (net_extract_dag) when
 *    the shortest path is not unique: the flow is split at every node over
 *    its DAG arcs, evenly, except that a CFG edge already carrying flow gets
 *    a share in proportion to 1 + that flow, so that an excess is spread in
 *    the observed ratio (the paper's Figure 2b) rather than 1:1.  Each round
 *    sends what saturates an arc, and rounds repeat on the same DAG until
 *    it has no path with room left (a blocking flow).  The DAG is built
 *    over what s'' reaches only (net_extract_dag).
 * The network is built in place in one allocation per solve (arena).
 * mcf is the classical successive-shortest-path method on the same network:
 * Bellman-Ford from scratch (no pruning, no early exit) and one shortest
 * path per augmentation, no greedy step.  This file builds the network
 * and runs the solve; the network's type and its searches and
 * augmentations are network.h and augment.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "infer/network.h"
#include "spgo/common.h"

/*
 * Per edge: retreat[e] = 1 if a depth-first search from the entry finds it
 * going to a block on the stack (a loop's back edge, self loops included),
 * or if the entry cannot reach its source.  state, stack and it: nb each;
 * retreat comes zeroed.
 */
static void retreating_edges(const struct spgo_cfg *cfg, uint8_t *retreat, uint8_t *state, uint32_t *stack,
			     uint32_t *it)
{
	uint32_t sp = 0;
	memset(state, 0, cfg->nblocks);
	stack[sp++] = cfg->entry;
	state[cfg->entry] = 1;
	it[cfg->entry] = 0;
	while (sp) {
		uint32_t u = stack[sp - 1];
		const struct spgo_cfg_block *b = &cfg->blocks[u];
		if (it[u] < b->nout) {
			uint32_t e = cfg->succ[b->out + it[u]++];
			uint32_t v = cfg->edges[e].dst;
			if (state[v] == 1)
				retreat[e] = 1;
			else if (state[v] == 0) {
				state[v] = 1;
				it[v] = 0;
				stack[sp++] = v;
			}
		} else {
			state[u] = 2;
			sp--;
		}
	}
	for (size_t e = 0; e < cfg->nedges; e++)
		if (!state[cfg->edges[e].src])
			retreat[e] = 1;
}

/* Number of segments of the piecewise-linear L2 cost. */
#define QSEG 8

/* The nodes of the blocks and the arcs of the network that the solver
 * reads back or pushes on (SPGO_NONE: none). */
struct gadgets {
	uint32_t *nin, *nout;          /* per block: u_in, u_out (one node for a
					  dangling block; none for a dead one) */
	uint32_t *inc, *dec;           /* per block: first arc of a count change */
	uint8_t *nseg_inc, *nseg_dec;  /* how many (consecutive) segment arcs */
	uint32_t *s2arc, *t2arc;       /* s'' -> u_out, u_in -> t'' */
	uint32_t *exarc;               /* x_out -> t' of an exit */
	uint32_t *earc;                /* per edge: u_out -> v_in */
	uint32_t srcarc, loop;         /* s' -> entry_in, t' -> s' */
	uint32_t S1, T1;               /* s', t' */
};

/*
 * Number the nodes: blocks that are live (the entry reaches them and they
 * reach an exit) get u_in and u_out, or one node when dangling (the arc
 * u_in -> u_out of cap inf and cost 0 would only say that the flows in and
 * out are equal, which one node says too); the others get none: a valid
 * flow leaves them at 0 (spgo/infer.h), so the solver never sees them and
 * the minimum it finds is over the flows that can still be valid.  Then
 * s', t', s'', t''.  Returns the number of nodes, 0 if the entry is dead.
 */
static uint32_t number_nodes(struct gadgets *x, const struct spgo_cfg *cfg, uint8_t *mark, uint32_t *stack,
			     uint8_t *retreat, uint32_t *it)
{
	size_t nb = cfg->nblocks, sp = 0;
	/* forward from the entry (mark bit 1), backward from the exits (2);
	 * forward by retreating_edges' search when retreat is wanted (profi's
	 * greedy step: one search for both) */
	if (retreat) {
		retreating_edges(cfg, retreat, mark, stack, it);
		for (size_t b = 0; b < nb; b++)
			mark[b] = mark[b] != 0;
	} else {
		memset(mark, 0, nb);
		mark[cfg->entry] = 1;
		stack[sp++] = cfg->entry;
	}
	while (sp) {
		const struct spgo_cfg_block *b = &cfg->blocks[stack[--sp]];
		for (uint32_t k = 0; k < b->nout; k++) {
			uint32_t v = cfg->edges[cfg->succ[b->out + k]].dst;
			if (!mark[v]) {
				mark[v] = 1;
				stack[sp++] = v;
			}
		}
	}
	for (uint32_t b = 0; b < nb; b++)
		if (mark[b] == 1 && spgo_cfg_is_exit(cfg, b)) {
			mark[b] = 3;
			stack[sp++] = b;
		}
	while (sp) {
		const struct spgo_cfg_block *b = &cfg->blocks[stack[--sp]];
		for (uint32_t k = 0; k < b->nin; k++) {
			uint32_t v = cfg->edges[cfg->pred[b->in + k]].src;
			if (mark[v] == 1) {
				mark[v] = 3;
				stack[sp++] = v;
			}
		}
	}
	if (mark[cfg->entry] != 3)
		return 0;
	uint32_t k = 0;
	for (size_t b = 0; b < nb; b++) {
		if (mark[b] != 3) {
			x->nin[b] = x->nout[b] = SPGO_NONE;
			continue;
		}
		x->nin[b] = k++;
		x->nout[b] = cfg->blocks[b].weight == SPGO_WEIGHT_UNKNOWN ? x->nin[b] : k++;
	}
	x->S1 = k, x->T1 = k + 1;
	return k + 4;
}

/* The reduction of section 3.1 (see the top of the file), called once to
 * count the arcs and once to place them. */
static void build(struct net *g, struct gadgets *x, const struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	int quad = o->algo == SPGO_ALGO_QUADRATIC;
	for (size_t b = 0; b < nb; b++) {
		uint64_t w = cfg->blocks[b].weight;
		uint32_t in = x->nin[b], out = x->nout[b];
		x->s2arc[b] = x->t2arc[b] = x->inc[b] = x->dec[b] = SPGO_NONE;
		x->nseg_inc[b] = x->nseg_dec[b] = 0;
		if (in == SPGO_NONE)
			continue;
		if (w == SPGO_WEIGHT_UNKNOWN)
			continue; /* one node; k_unknown_inc is on the arcs into it */
		if (w > 0) {
			x->s2arc[b] = arc(g, g->s2, out, (int64_t)w, 0);
			x->t2arc[b] = arc(g, in, g->t2, (int64_t)w, 0);
		}
		struct block_costs bc = block_costs(cfg, o, (uint32_t)b);
		int64_t ki = bc.inc;
		if (!quad) {
			x->inc[b] = arc(g, in, out, INF_CAP, ki);
			x->nseg_inc[b] = 1;
			if (w > 0) {
				/* down to the floor at k_dec, below it at
				 * k_dec_floor (consecutive arcs of out) */
				x->dec[b] = arc(g, out, in, (int64_t)(w - bc.floor), bc.dec);
				x->nseg_dec[b] = 1;
				if (bc.floor > 0) {
					arc(g, out, in, (int64_t)bc.floor, bc.dec_floor);
					x->nseg_dec[b] = 2;
				}
			}
			continue;
		}
		/* L2: k (f - w)^2 / d with d = max(1, w / QSEG), as QSEG
		 * segments of d units with marginal cost k (2i + 1), then a
		 * last unbounded one; they follow each other in in's arcs. */
		int64_t d = (int64_t)(w / QSEG) > 1 ? (int64_t)(w / QSEG) : 1;
		for (int i = 0; i < QSEG; i++) {
			uint32_t a = arc(g, in, out, d, ki * (2 * i + 1));
			if (i == 0)
				x->inc[b] = a;
		}
		arc(g, in, out, INF_CAP, ki * (2 * QSEG + 1));
		x->nseg_inc[b] = QSEG + 1;
		if (w > 0) {
			int64_t left = (int64_t)w;
			uint8_t k = 0;
			for (int i = 0; left > 0; i++, k++) {
				int64_t c = i == QSEG - 1 || d > left ? left : d;
				uint32_t a = arc(g, out, in, c, bc.dec * (2 * i + 1));
				if (i == 0)
					x->dec[b] = a;
				left -= c;
			}
			x->nseg_dec[b] = k;
		}
	}
	for (size_t e = 0; e < ne; e++) {
		uint32_t u = x->nout[cfg->edges[e].src], v = x->nin[cfg->edges[e].dst];
		/* (a dangling block's self loop would be a loop on its node) */
		if (u == SPGO_NONE || v == SPGO_NONE || u == v) {
			x->earc[e] = SPGO_NONE;
			continue;
		}
		/* (the costs matter only when placing: g->fill set) */
		int64_t c = g->fill && o->k_layout && edge_against_layout(cfg, (uint32_t)e) ? o->k_layout : 0;
		if (cfg->blocks[cfg->edges[e].dst].weight == SPGO_WEIGHT_UNKNOWN)
			c += o->k_unknown_inc; /* every unit into a dangling block */
		x->earc[e] = arc(g, u, v, INF_CAP, c);
	}
	for (size_t b = 0; b < nb; b++)
		x->exarc[b] = x->nout[b] != SPGO_NONE && spgo_cfg_is_exit(cfg, (uint32_t)b)
				      ? arc(g, x->nout[b], x->T1, INF_CAP, 0)
				      : SPGO_NONE;
	x->srcarc = arc(g, x->S1, x->nin[cfg->entry], INF_CAP,
			cfg->blocks[cfg->entry].weight == SPGO_WEIGHT_UNKNOWN ? o->k_unknown_inc : 0);
	x->loop = arc(g, x->T1, x->S1, INF_CAP, 0);
}

/*
 * One solve's network, solver and scratch: everything in one block
 * (infer_impl.h's arena), measured, then taken; small CFGs take it from
 * small, on flow_solve's stack.
 */
struct flow_ctx {
	struct net g;
	struct solver s;
	struct gadgets x;
	uint8_t *retreat, *bstate, *is_edge;
	uint32_t *bstack, *bit;
	size_t mmax; /* arcs, at most */
	struct arena A;
	_Alignas(16) char small[16384];
};

static void flow_ctx_alloc(struct flow_ctx *c, const struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	struct net *g = &c->g;
	struct solver *s = &c->s;
	struct gadgets *x = &c->x;
	struct arena *A = &c->A;
	*g = (struct net){0};
	*s = (struct solver){.g = g, .prune = o->algo != SPGO_ALGO_MCF};
	*A = (struct arena){0};
	uint32_t n = (uint32_t)(2 * nb + 4); /* nodes, at most */
	/* arcs, at most: a block's gadget (4 arcs and a floor arc, or the L2 segments, with
	 * s'' and t''), edges, exits, s' and t' (each with its reverse) */
	size_t nsampled = 0;
	for (size_t b = 0; b < nb; b++)
		nsampled += cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN;
	size_t mmax = c->mmax = 2 * (nsampled * (o->algo == SPGO_ALGO_QUADRATIC ? 2 * QSEG + 3 : 5) + ne + nb + 2);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			arena_alloc(A, c->small, sizeof c->small);
		x->nin = arena_take(A, nb * sizeof *x->nin);
		x->nout = arena_take(A, nb * sizeof *x->nout);
		x->inc = arena_take(A, nb * sizeof *x->inc);
		x->dec = arena_take(A, nb * sizeof *x->dec);
		x->s2arc = arena_take(A, nb * sizeof *x->s2arc);
		x->t2arc = arena_take(A, nb * sizeof *x->t2arc);
		x->exarc = arena_take(A, nb * sizeof *x->exarc);
		x->nseg_inc = arena_take(A, nb);
		x->nseg_dec = arena_take(A, nb);
		x->earc = arena_take(A, ne * sizeof *x->earc);
		c->retreat = arena_take(A, ne);
		c->bstate = arena_take(A, nb);
		c->bstack = arena_take(A, nb * sizeof *c->bstack);
		c->bit = arena_take(A, nb * sizeof *c->bit);
		g->first = arena_take(A, (n + 1) * sizeof *g->first);
		s->dist = arena_take(A, n * sizeof *s->dist);
		s->queue = arena_take(A, n * sizeof *s->queue);
		s->parent = arena_take(A, n * sizeof *s->parent);
		s->inq = arena_take(A, n);
		s->tie_at = arena_take(A, n);
		s->state = arena_take(A, n);
		s->good = arena_take(A, n);
		s->stack = arena_take(A, n * sizeof *s->stack);
		s->it = arena_take(A, n * sizeof *s->it);
		s->order = arena_take(A, n * sizeof *s->order);
		s->delta = arena_take(A, n * sizeof *s->delta);
		s->wsum = arena_take(A, n * sizeof *s->wsum);
		s->node_amt = arena_take(A, n * sizeof *s->node_amt);
		s->dbeg = arena_take(A, (n + 1) * sizeof *s->dbeg);
		g->to = arena_take(A, mmax * sizeof *g->to);
		g->rev = arena_take(A, mmax * sizeof *g->rev);
		g->res = arena_take(A, mmax * sizeof *g->res);
		g->cost = arena_take(A, mmax * sizeof *g->cost);
		s->dag = arena_take(A, mmax);
		s->darc = arena_take(A, (mmax + 1) * sizeof *s->darc);
		s->amt = arena_take(A, mmax * sizeof *s->amt);
		c->is_edge = arena_take(A, mmax);
	}
}

static void flow_ctx_free(struct flow_ctx *c)
{
	arena_free(&c->A);
}

/* Whether the greedy step has an edge to work on: one that joins two
 * sampled blocks (only then does it need the retreating edges). */
static int greedy_has_edges(const struct spgo_cfg *cfg, int greedy)
{
	int greedy_edges = 0;
	for (size_t e = 0; e < cfg->nedges && greedy && !greedy_edges; e++) {
		uint64_t ws = cfg->blocks[cfg->edges[e].src].weight, wd = cfg->blocks[cfg->edges[e].dst].weight;
		greedy_edges = ws != SPGO_WEIGHT_UNKNOWN && ws > 0 && wd != SPGO_WEIGHT_UNKNOWN && wd > 0;
	}
	return greedy_edges;
}

/* Build the network on the numbered nodes (g.n of them, s'' and t'' the
 * last two): count the arcs of every node, then place them. */
static void build_network(struct flow_ctx *c, const struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	struct net *g = &c->g;
	struct solver *s = &c->s;
	uint32_t n = g->n;
	g->s2 = n - 2, g->t2 = n - 1;
	build(g, &c->x, cfg, o);
	/* (the counting pass leaves out the layout cost) */
	net_choose_lengths(g, s->prune, g->maxc + o->k_layout);
	if (g->m > c->mmax)
		spgo_die("flow_solve: %u arcs, room for %zu", g->m, c->mmax);
	for (uint32_t v = 0; v < n; v++)
		g->first[v + 1] += g->first[v];
	g->fill = s->it;
	memcpy(g->fill, g->first, n * sizeof *g->fill);
	build(g, &c->x, cfg, o);
	memset(s->dag, 0, g->m);
	memset(c->is_edge, 0, g->m);
	for (size_t e = 0; e < cfg->nedges; e++)
		if (c->x.earc[e] != SPGO_NONE)
			c->is_edge[c->x.earc[e]] = 1;
	s->is_edge_arc = c->is_edge;
}

/* Greedy zero-cost augmentation (profi), on the edges that close no
 * cycle in a depth-first search (retreat: from number_nodes' search):
 * greedy flow on every edge of a loop would be a circulation that no path
 * from the entry feeds (an island, costly to join later).  Then from the
 * exits around to the entry. */
static void greedy_augment(struct flow_ctx *c, const struct spgo_cfg *cfg, int greedy_edges)
{
	struct net *g = &c->g;
	const struct gadgets *x = &c->x;
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	int any = 0;
	for (size_t e = 0; e < ne && !any && greedy_edges; e++)
		any = x->s2arc[cfg->edges[e].src] != SPGO_NONE && x->t2arc[cfg->edges[e].dst] != SPGO_NONE &&
		      x->earc[e] != SPGO_NONE;
	for (size_t e = 0; e < ne && any; e++) {
		uint32_t u = cfg->edges[e].src, v = cfg->edges[e].dst;
		uint32_t a1 = x->s2arc[u], a3 = x->t2arc[v];
		if (c->retreat[e] || a1 == SPGO_NONE || a3 == SPGO_NONE || x->earc[e] == SPGO_NONE)
			continue;
		if (g->cost[x->earc[e]] != g->hop) /* zero-cost paths only */
			continue;
		int64_t f = g->res[a1] < g->res[a3] ? g->res[a1] : g->res[a3];
		if (f <= 0)
			continue;
		push(g, a1, f);
		push(g, x->earc[e], f);
		push(g, a3, f);
	}
	uint32_t ta = x->t2arc[cfg->entry];
	for (size_t b = 0; b < nb && ta != SPGO_NONE; b++) {
		uint32_t a1 = x->s2arc[b];
		if (x->exarc[b] == SPGO_NONE || a1 == SPGO_NONE)
			continue;
		int64_t f = g->res[a1] < g->res[ta] ? g->res[a1] : g->res[ta];
		if (f <= 0)
			continue;
		push(g, a1, f);
		push(g, x->exarc[b], f);
		push(g, x->loop, f);
		push(g, x->srcarc, f);
		push(g, ta, f);
	}
}

/* Successive shortest paths (or DAGs of them) until the flow is maximum.
 * The first search tells whether a path of cost 0 is left: then profi's
 * zero-cost phase takes them all at once. */
static void augment_to_max(struct flow_ctx *c, const struct spgo_infer_opts *o)
{
	struct net *g = &c->g;
	struct solver *s = &c->s;
	int zero_phase = o->algo != SPGO_ALGO_MCF;
	while (!net_saturated(g) && net_shortest_paths(s)) {
		if (zero_phase && costs_nothing(g, s->dist[g->t2])) {
			net_zero_cost_flow(s);
			zero_phase = 0;
			continue;
		}
		zero_phase = 0;
		if (o->algo == SPGO_ALGO_MCF || !o->even_split || !s->tie || costs_nothing(g, s->dist[g->t2]) ||
		    net_unique_path(s))
			net_augment_path(s); /* one shortest path: nothing to split */
		else {
			net_augment_dag(s);
			/* The labels still price every arc: a path of tight arcs
			 * (d(v) = d(u) + cost) from s'' to t'' costs d(t''),
			 * the shortest distance, which augmenting never lowers.
			 * So while the tight arcs still join s'' to t'', the
			 * next DAG needs no new search.  (On small networks a
			 * search costs less than a try that fails.) */
			while (g->n >= 256 && !net_saturated(g) && net_extract_dag(s) && s->branching)
				net_augment_dag_rounds(s);
		}
	}
}

/* Read the counts back: edges, then sampled blocks by their gadget,
 * dangling ones by what comes in. */
static void read_counts(const struct flow_ctx *c, struct spgo_cfg *cfg)
{
	const struct net *g = &c->g;
	const struct gadgets *x = &c->x;
	for (size_t e = 0; e < cfg->nedges; e++)
		cfg->edges[e].count = x->earc[e] == SPGO_NONE ? 0 : (uint64_t)g->res[g->rev[x->earc[e]]];
	for (size_t b = 0; b < cfg->nblocks; b++) {
		const struct spgo_cfg_block *bl = &cfg->blocks[b];
		uint64_t w = bl->weight;
		int64_t f = 0;
		if (x->nin[b] == SPGO_NONE) {
			f = 0;
		} else if (w == SPGO_WEIGHT_UNKNOWN) {
			for (uint32_t k = 0; k < bl->nin; k++)
				f += (int64_t)cfg->edges[cfg->pred[bl->in + k]].count;
			if (b == cfg->entry)
				f += g->res[g->rev[x->srcarc]];
		} else {
			f = (int64_t)w;
			for (uint32_t k = 0; k < x->nseg_inc[b]; k++)
				f += g->res[g->rev[x->inc[b] + k]];
			for (uint32_t k = 0; k < x->nseg_dec[b]; k++)
				f -= g->res[g->rev[x->dec[b] + k]];
		}
		cfg->blocks[b].count = f > 0 ? (uint64_t)f : 0;
	}
}

int flow_solve(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	struct flow_ctx c;
	flow_ctx_alloc(&c, cfg, o);
	int greedy = o->greedy && o->algo != SPGO_ALGO_MCF;
	int greedy_edges = greedy_has_edges(cfg, greedy);
	if (greedy_edges)
		memset(c.retreat, 0, ne);
	uint32_t n = c.g.n = number_nodes(&c.x, cfg, c.bstate, c.bstack, greedy_edges ? c.retreat : NULL, c.bit);
	/* what must start at 0 (all of g.first: the counting pass adds to it) */
	memset(c.g.first, 0, (n + 1) * sizeof *c.g.first);
	memset(c.s.state, 0, n);
	memset(c.s.good, 0, n);
	c.s.dbeg[0] = 0;
	if (n == 0) { /* no flow can leave the function */
		for (size_t b = 0; b < nb; b++)
			cfg->blocks[b].count = 0;
		for (size_t e = 0; e < ne; e++)
			cfg->edges[e].count = 0;
		flow_ctx_free(&c);
		return 0;
	}
	build_network(&c, cfg, o);
	if (greedy)
		greedy_augment(&c, cfg, greedy_edges);
	augment_to_max(&c, o);
	read_counts(&c, cfg);
	flow_ctx_free(&c);
	return 0;
}
