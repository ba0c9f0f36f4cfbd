/*
 * The network of flow_solve (flow.c builds it from a CFG: the reduction of
 * section 3.1) and the searches and augmentations that solve it
 * (augment.c).  Private to src/infer; the contract of the whole is
 * flow_solve() in infer_impl.h.
 */
#ifndef SPGO_INFER_NETWORK_H
#define SPGO_INFER_NETWORK_H

#include <stdint.h>

#define INF_CAP (INT64_MAX / 4)
#define INF_DIST INT64_MAX

/* A network in arrays: the arcs of each node in one slice, each arc with
 * its reverse (rev), residual capacity and length. */
struct net {
	uint32_t n, m;
	uint32_t *first; /* arcs of v: [first[v], first[v+1]) */
	uint32_t *to, *rev;
	int64_t *res, *cost;
	uint32_t *fill; /* construction: the next slot of each node, or NULL
			   while counting */
	uint32_t s2, t2;
	/* Arc lengths (see net_choose_lengths): cost * H + hop, where hop = 1 and
	 * H exceeds any path's arc count (profi), or H = 1 and hop = 0 (mcf). */
	int64_t H, hop;
	int64_t maxc; /* counting: the largest cost seen */
};

/* The cost part of a path length of g: 1 if it is 0. */
static inline int costs_nothing(const struct net *g, int64_t len)
{
	return len >= 0 && len < g->H;
}

/*
 * Add an arc u -> v and its reverse; returns the forward arc.  The network
 * is built twice over: first counting the arcs of every node (fill NULL;
 * the return value is meaningless), then placing each arc in its node's
 * slice of the arrays, in the order of the calls, with its length (cost
 * * H + hop, the reverse arc's -cost * H + hop: net_choose_lengths).
 */
static inline uint32_t arc(struct net *g, uint32_t u, uint32_t v, int64_t cap, int64_t cost)
{
	if (!g->fill) {
		g->first[u + 1]++;
		g->first[v + 1]++;
		g->m += 2;
		if (cost > g->maxc)
			g->maxc = cost;
		return 0;
	}
	uint32_t a = g->fill[u]++, b = g->fill[v]++;
	g->to[a] = v, g->rev[a] = b, g->res[a] = cap, g->cost[a] = cost * g->H + g->hop;
	g->to[b] = u, g->rev[b] = a, g->res[b] = 0, g->cost[b] = -cost * g->H + g->hop;
	return a;
}

static inline void push(struct net *g, uint32_t a, int64_t amt)
{
	g->res[a] -= amt;
	g->res[g->rev[a]] += amt;
}

/* Working memory of the solver, allocated once per solve. */
struct solver {
	struct net *g;
	int64_t *dist;
	uint32_t *queue, *parent; /* parent: arc into v on the shortest path */
	uint8_t *inq;
	/* DAG extraction */
	uint8_t *state, *good;
	uint32_t *stack, *it, *order, norder;
	/* the DAG's arcs out of order[i]: darc[dbeg[i] .. dbeg[i + 1]) */
	uint32_t *darc, *dbeg;
	uint8_t *dag;     /* per arc: in the DAG */
	double *delta; /* per node: share of one unit */
	double *wsum;  /* per DAG node (order index): the split weights of its
			  usable arcs, this round (0: not worked out) */
	int64_t *amt, *node_amt;
	const uint8_t *is_edge_arc; /* per arc: a CFG edge's forward arc */
	int branching;              /* the DAG has a node with two arcs out */
	int tie;                    /* the last search met two equal ways somewhere */
	uint8_t *tie_at;            /* per node: two equal ways into it (last search) */
	int prune;
};

/* ---- augment.c ------------------------------------------------------------ */

/* Everything out of s'' is saturated (the flow is maximum). */
int net_saturated(const struct net *g);
/* Shortest s''-t'' paths from scratch (pruned when s->prune); 1 if t''
 * is reachable.  Labels in s->dist, the path in s->parent. */
int net_shortest_paths(struct solver *s);
/* 1 if the last search's shortest path is the only one. */
int net_unique_path(const struct solver *s);
/* Push the bottleneck along the last search's path. */
void net_augment_path(struct solver *s);
/* The DAG of the fewest-arc shortest paths (see there); 0 if none. */
int net_extract_dag(struct solver *s);
/* One augmentation along the DAG of shortest paths, split evenly; the
 * rounds alone reuse the DAG net_extract_dag left. */
void net_augment_dag(struct solver *s);
void net_augment_dag_rounds(struct solver *s);
/* profi's zero-cost phase: a maximum flow over the arcs of cost 0. */
void net_zero_cost_flow(struct solver *s);
/* Arc lengths: cost then number of arcs, or cost alone (see there). */
void net_choose_lengths(struct net *g, int fewest_arcs, int64_t maxc);

#endif
