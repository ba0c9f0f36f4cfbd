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
 *    once, as a maximum flow over the arcs of cost 0 (zero_cost_flow),
 *    where successive shortest paths would spend one search per path;
 *  - the modified Moore-Bellman-Ford: no relaxation out of u once d(u) >
 *    d(t''), stop as soon as d(t'') = 0 (Lemmas 4.1-4.3); its queue puts a
 *    node whose label is smaller than the front's at the front (the "small
 *    label first" rule, which halves the work on our CFGs);
 *  - augmentation along the DAG of all shortest paths (extract_dag) when
 *    the shortest path is not unique: the flow is split at every node over
 *    its DAG arcs, evenly, except that a CFG edge already carrying flow gets
 *    a share in proportion to 1 + that flow, so that an excess is spread in
 *    the observed ratio (the paper's Figure 2b) rather than 1:1.  Each round
 *    sends what saturates an arc, and rounds repeat on the same DAG until
 *    it has no path with room left (a blocking flow).  The DAG is built
 *    over what s'' reaches only (extract_dag).
 * The network is built in place in one allocation per solve (arena).
 * mcf is the classical successive-shortest-path method on the same network:
 * Bellman-Ford from scratch (no pruning, no early exit) and one shortest
 * path per augmentation, no greedy step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

#define INF_CAP (INT64_MAX / 4)
#define INF_DIST INT64_MAX

struct net {
	uint32_t n, m;
	uint32_t *first; /* arcs of v: [first[v], first[v+1]) */
	uint32_t *to, *rev;
	int64_t *res, *cost;
	uint32_t *fill; /* construction: the next slot of each node, or NULL
			   while counting */
	uint32_t s2, t2;
	/* Arc lengths (see choose_lengths): cost * H + hop, where hop = 1 and
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
 * * H + hop, the reverse arc's -cost * H + hop: choose_lengths).
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

/* Everything out of s'' is saturated: the flow is maximum (no search can
 * find a path), which is where every solve ends. */
static int s2_saturated(const struct net *g)
{
	for (uint32_t a = g->first[g->s2]; a < g->first[g->s2 + 1]; a++)
		if (g->res[a] > 0)
			return 0;
	return 1;
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
	int64_t *amt, *node_amt;
	const uint8_t *is_edge_arc; /* per arc: a CFG edge's forward arc */
	int branching;              /* the DAG has a node with two arcs out */
	int tie;                    /* the last search met two equal ways somewhere */
	uint8_t *tie_at;            /* per node: two equal ways into it (last search) */
	int prune;
};

/*
 * Moore-Bellman-Ford with a FIFO queue.  With prune set (profi), u is not
 * expanded when d(u) > d(t''), and the search stops once d(t'') = 0.
 * Returns 1 if t'' is reachable.
 */
static int shortest_paths(struct solver *s)
{
	struct net *g = s->g;
	uint32_t n = g->n, head = 0, tail = 0, len = 0;
	for (uint32_t v = 0; v < n; v++) {
		s->dist[v] = INF_DIST;
		s->inq[v] = 0;
		s->parent[v] = UINT32_MAX;
		s->tie_at[v] = 0;
	}
	s->dist[g->s2] = 0;
	s->tie = 0;
	s->queue[tail++] = g->s2;
	len = 1;
	s->inq[g->s2] = 1;
	int64_t *d = s->dist;
	while (len) {
		if (s->prune && costs_nothing(g, d[g->t2]))
			break;
		uint32_t u = s->queue[head];
		head = head + 1 == n ? 0 : head + 1;
		len--;
		s->inq[u] = 0;
		if (s->prune && d[u] > d[g->t2])
			continue;
		int64_t du = d[u];
		for (uint32_t a = g->first[u]; a < g->first[u + 1]; a++) {
			if (g->res[a] <= 0)
				continue;
			uint32_t v = g->to[a];
			int64_t nd = du + g->cost[a];
			if (nd == d[v] && nd != INF_DIST && s->parent[v] != a) {
				s->tie = s->tie_at[v] = 1; /* a second shortest way into v */
			} else if (nd < d[v]) {
				d[v] = nd;
				s->parent[v] = a;
				s->tie_at[v] = 0;
				if (!s->inq[v] && v != g->t2) {
					s->inq[v] = 1;
					if (len && nd < d[s->queue[head]]) {
						/* smaller label first: to the front */
						head = head == 0 ? n - 1 : head - 1;
						s->queue[head] = v;
					} else {
						s->queue[tail] = v;
						tail = tail + 1 == n ? 0 : tail + 1;
					}
					len++;
				}
			}
		}
	}
	return d[g->t2] != INF_DIST;
}

/*
 * 1 if the shortest path found is the only one: no node on it has a second
 * tight arc coming in.  (Another shortest path would leave this one and
 * join it again, by a tight arc into a node of it.)  The search marks a
 * node when a second way of its label comes in (tie_at) and unmarks it
 * when the label drops, so a mark left is such an arc: when u's label
 * drops after it tied into v, relaxing u again lowers v's label too; and
 * a node on a shortest path has its exact label, reached by every tight
 * arc into it, the second of them marking it (Lemma 4.2).
 */
static int unique_path(const struct solver *s)
{
	const struct net *g = s->g;
	for (uint32_t v = g->t2; v != g->s2; v = g->to[g->rev[s->parent[v]]])
		if (s->tie_at[v])
			return 0;
	return 1;
}

/* Push the bottleneck along the parent chain from t'' (one shortest path). */
static void augment_path(struct solver *s)
{
	struct net *g = s->g;
	int64_t amt = INF_CAP;
	for (uint32_t v = g->t2; v != g->s2;) {
		uint32_t a = s->parent[v];
		if (g->res[a] < amt)
			amt = g->res[a];
		v = g->to[g->rev[a]];
	}
	for (uint32_t v = g->t2; v != g->s2;) {
		uint32_t a = s->parent[v];
		push(g, a, amt);
		v = g->to[g->rev[a]];
	}
}

/*
 * The DAG of shortest paths.  The tight arcs (d(v) = d(u) + cost) form every
 * shortest s''-t'' path, but zero-cost cycles make them cyclic.  A backward
 * search from t'' over tight arcs numbers the nodes by hops h(v) to t'';
 * the DAG keeps the tight arcs that go to a smaller h by one: acyclic, and
 * every node still reaches t'' (the paper breaks the cycles inside strongly
 * connected components instead; this keeps the same property, s''-t''
 * connectivity, with one search that only visits nodes on shortest paths).
 * Every node found has its exact distance (it lies on a shortest s''-t''
 * path, Lemma 4.2).
 *
 * Only what s'' reaches matters: the backward search stops at the level of
 * s'' (a DAG path from s'' only goes down), and a forward pass from s'' in
 * decreasing h keeps the nodes it reaches.  On our CFGs the tight arcs
 * cover most of the network (plateaus of equal cost), and s'' reaches a
 * twentieth of them: the rounds of augment_dag walk only those.  s->order
 * gets them by decreasing h, a topological order, each with its DAG arcs in
 * arc order.  Returns 0 if s'' was not found (no DAG).
 */
static int extract_dag(struct solver *s)
{
	struct net *g = s->g;
	uint32_t head = 0, tail = 0;
	uint32_t *h = s->it;      /* hops to t'' */
	uint8_t *inb = s->state;  /* 1 found by the backward search, 2 reached from s'' */
	uint32_t *q = s->queue;
	int64_t dt = s->dist[g->t2];
	/* the previous DAG */
	for (uint32_t k = 0; k < s->dbeg[s->norder]; k++)
		s->dag[s->darc[k]] = 0;
	for (uint32_t i = 0; i < s->norder; i++)
		s->good[s->order[i]] = 0;
	s->norder = 0;
	s->dbeg[0] = 0;
	s->branching = 0;
	h[g->t2] = 0;
	inb[g->t2] = 1;
	q[tail++] = g->t2;
	uint32_t hs = UINT32_MAX; /* h(s'') once found */
	while (head < tail) {
		uint32_t v = q[head];
		if (h[v] >= hs)
			break;
		head++;
		int64_t dv = s->dist[v];
		for (uint32_t b = g->first[v]; b < g->first[v + 1]; b++) {
			uint32_t u = g->to[b];
			if (inb[u])
				continue;
			/* r = u -> v, tight: cost(r) = -cost(b); with room (tested
			 * last: most arcs fail the label tests) */
			int64_t du = s->dist[u];
			if (du > dt || du + g->cost[g->rev[b]] != dv || g->res[g->rev[b]] <= 0)
				continue;
			inb[u] = 1;
			h[u] = h[v] + 1;
			q[tail++] = u;
			if (u == g->s2)
				hs = h[u];
		}
	}
	int found = hs != UINT32_MAX;
	/* Forward from s'', by decreasing h: the queue holds the found nodes
	 * by increasing h. */
	if (found) {
		inb[g->s2] = 2;
		uint32_t k = 0;
		for (uint32_t i = tail; i-- > 0;) {
			uint32_t u = q[i];
			if (inb[u] != 2)
				continue;
			s->dbeg[s->norder] = k;
			s->order[s->norder++] = u;
			s->good[u] = 1;
			if (u == g->t2)
				continue;
			int64_t du = s->dist[u];
			uint32_t hv = h[u] - 1, k0 = k;
			for (uint32_t a = g->first[u]; a < g->first[u + 1]; a++) {
				uint32_t v = g->to[a];
				if (!inb[v] || h[v] != hv || g->res[a] <= 0 || du + g->cost[a] != s->dist[v])
					continue;
				s->dag[a] = 1;
				s->darc[k++] = a;
				inb[v] = 2;
			}
			if (k - k0 > 1)
				s->branching = 1;
		}
		s->dbeg[s->norder] = k;
	}
	for (uint32_t i = 0; i < tail; i++)
		inb[q[i]] = 0;
	return found;
}

/* A DAG arc that can still take flow towards t''. */
#define USABLE(a) (s->dag[a] && s->good[g->to[a]] && g->res[a] > 0)

/* Split weight of a DAG arc: 1, or 1 + flow for a CFG edge's arc. */
static inline double split_weight(const struct solver *s, uint32_t a)
{
	if (s->is_edge_arc[a])
		return 1.0 + (double)s->g->res[s->g->rev[a]];
	return 1.0;
}

/*
 * Send D units from s'' along the DAG, split at every node by
 * split_weight, in integers; 0 on success (amounts in s->amt), -1 if some
 * node could not place its flow within the residual capacities.
 */
static int distribute(struct solver *s, int64_t D)
{
	struct net *g = s->g;
	for (uint32_t i = 0; i < s->norder; i++)
		s->node_amt[s->order[i]] = 0;
	s->node_amt[g->s2] = D;
	for (uint32_t i = 0; i < s->norder; i++) {
		uint32_t u = s->order[i];
		int64_t have = s->node_amt[u];
		uint32_t k0 = s->dbeg[i], k1 = s->dbeg[i + 1];
		for (uint32_t k = k0; k < k1; k++)
			s->amt[s->darc[k]] = 0;
		if (u == g->t2 || have == 0)
			continue;
		double W = 0;
		for (uint32_t k = k0; k < k1; k++)
			if (USABLE(s->darc[k]))
				W += split_weight(s, s->darc[k]);
		int64_t placed = 0;
		for (uint32_t k = k0; k < k1; k++) {
			uint32_t a = s->darc[k];
			if (!USABLE(a))
				continue;
			int64_t x = (int64_t)floor((double)have * split_weight(s, a) / W);
			if (x > have - placed)
				x = have - placed;
			if (x > g->res[a])
				x = g->res[a];
			s->amt[a] = x;
			placed += x;
		}
		/* the remainder, a unit (or the room left) at a time */
		for (int pass = 0; placed < have && pass < 2; pass++)
			for (uint32_t k = k0; k < k1 && placed < have; k++) {
				uint32_t a = s->darc[k];
				if (!USABLE(a))
					continue;
				int64_t room = g->res[a] - s->amt[a];
				int64_t x = pass == 0 ? (room > 0 ? 1 : 0) : room;
				if (x > have - placed)
					x = have - placed;
				s->amt[a] += x;
				placed += x;
			}
		if (placed < have)
			return -1;
		for (uint32_t k = k0; k < k1; k++)
			if (USABLE(s->darc[k]))
				s->node_amt[g->to[s->darc[k]]] += s->amt[s->darc[k]];
	}
	return 0;
}

/*
 * Push the bottleneck along one path of the DAG that still has room (a
 * walk from s''); when the walk is stuck, along a fresh shortest path
 * (and return 0: the DAG is stale).  Either saturates an arc.
 */
static int dag_path(struct solver *s)
{
	struct net *g = s->g;
	uint32_t u = g->s2;
	while (u != g->t2) {
		uint32_t a, found = UINT32_MAX;
		for (a = g->first[u]; a < g->first[u + 1]; a++)
			if (s->dag[a] && s->good[g->to[a]] && g->res[a] > 0) {
				found = a;
				break;
			}
		if (found == UINT32_MAX) {
			if (shortest_paths(s))
				augment_path(s);
			return 0; /* the labels changed: the DAG is stale */
		}
		s->parent[g->to[found]] = found;
		u = g->to[found];
	}
	augment_path(s);
	return 1;
}

/* One augmentation along the DAG of shortest paths (profi). */
static void augment_dag_rounds(struct solver *s);
static void augment_dag(struct solver *s)
{
	if (!extract_dag(s)) { /* cannot happen: s'' lies on a shortest path */
		augment_path(s);
		return;
	}
	if (!s->branching) { /* one shortest path: nothing to split */
		dag_path(s);
		return;
	}
	augment_dag_rounds(s);
}

static void augment_dag_rounds(struct solver *s)
{
	struct net *g = s->g;
	/* Rounds of even splitting on the same DAG until no s''-t'' path with
	 * room is left in it (a blocking flow, like Dinic's, but split evenly
	 * at every node): each round saturates an arc, and all the DAG's paths
	 * are shortest ones, so the flow stays of minimum cost. */
	for (int round = 0; round < 64; round++) {
		/* which nodes still reach t'' over arcs with room */
		for (uint32_t i = s->norder; i-- > 0;) {
			uint32_t u = s->order[i];
			if (u == g->t2)
				continue;
			int ok = 0;
			for (uint32_t k = s->dbeg[i]; k < s->dbeg[i + 1] && !ok; k++)
				ok = g->res[s->darc[k]] > 0 && s->good[g->to[s->darc[k]]];
			s->good[u] = (uint8_t)ok;
		}
		if (!s->good[g->s2])
			return;
		/* one unit, split fractionally, to find how much fits */
		for (uint32_t i = 0; i < s->norder; i++)
			s->delta[s->order[i]] = 0;
		s->delta[g->s2] = 1;
		double best = INFINITY;
		for (uint32_t i = 0; i < s->norder; i++) {
			uint32_t u = s->order[i];
			if (u == g->t2 || s->delta[u] == 0)
				continue;
			double W = 0;
			uint32_t k0 = s->dbeg[i], k1 = s->dbeg[i + 1];
			for (uint32_t k = k0; k < k1; k++)
				if (USABLE(s->darc[k]))
					W += split_weight(s, s->darc[k]);
			for (uint32_t k = k0; k < k1; k++) {
				uint32_t a = s->darc[k];
				if (USABLE(a)) {
					double f = s->delta[u] * split_weight(s, a) / W;
					s->delta[g->to[a]] += f;
					if (g->res[a] < INF_CAP / 2 && (double)g->res[a] / f < best)
						best = (double)g->res[a] / f;
				}
			}
		}
		int64_t D = best >= (double)INF_CAP ? INF_CAP : (int64_t)floor(best);
		int pushed = 0;
		while (D >= 1 && !pushed) {
			if (distribute(s, D) == 0) {
				int saturated = 0;
				for (uint32_t i = 0; i < s->norder; i++) {
					uint32_t u = s->order[i];
					if (u == g->t2 || s->node_amt[u] == 0)
						continue;
					for (uint32_t k = s->dbeg[i]; k < s->dbeg[i + 1]; k++) {
						uint32_t a = s->darc[k];
						if (USABLE(a) && s->amt[a]) {
							push(g, a, s->amt[a]);
							saturated |= g->res[a] == 0;
						}
					}
				}
				/* Rounding can keep the arc that limited D just
				 * short of full; then one path finishes the round,
				 * so that every round saturates an arc. */
				if (!saturated && !dag_path(s))
					return;
				pushed = 1;
			} else {
				D /= 2;
			}
		}
		if (!pushed && !dag_path(s)) /* rounding left nothing */
			return;
	}
}

/*
 * The zero-cost phase (profi): as long as the shortest s''-t'' path costs
 * 0, successive shortest paths only compute a maximum flow over the arcs of
 * cost 0 (costs never go below 0 before the first costly augmentation, and
 * path costs only grow).  Computing it at once, by Dinic's blocking flows
 * (levels by a breadth-first search, then depth-first augmentation with a
 * current arc per node), replaces one full Moore-Bellman-Ford per path.
 * Which zero-cost paths carry the flow is arbitrary in both cases.
 */
static void zero_cost_flow(struct solver *s)
{
	struct net *g = s->g;
	uint32_t n = g->n;
	uint32_t *level = s->it, *cur = s->stack, *q = s->queue, *path = s->order;
	uint32_t tail = 0;
	for (uint32_t v = 0; v < n; v++)
		level[v] = UINT32_MAX;
	while (!s2_saturated(g)) {
		/* (what the last phase labelled, back to unlabelled) */
		for (uint32_t i = 0; i < tail; i++)
			level[q[i]] = UINT32_MAX;
		uint32_t head = 0;
		tail = 0;
		level[g->s2] = 0;
		cur[g->s2] = g->first[g->s2];
		q[tail++] = g->s2;
		while (head < tail && level[g->t2] == UINT32_MAX) {
			uint32_t u = q[head++];
			for (uint32_t a = g->first[u]; a < g->first[u + 1]; a++) {
				uint32_t v = g->to[a];
				if (g->res[a] > 0 && g->cost[a] == g->hop && level[v] == UINT32_MAX) {
					level[v] = level[u] + 1;
					cur[v] = g->first[v];
					q[tail++] = v;
				}
			}
		}
		if (level[g->t2] == UINT32_MAX)
			return;
		/* Depth-first: path[] holds the arcs from s'' to u. */
		uint32_t depth = 0, u = g->s2;
		for (;;) {
			if (u == g->t2) {
				int64_t amt = INF_CAP;
				for (uint32_t i = 0; i < depth; i++)
					if (g->res[path[i]] < amt)
						amt = g->res[path[i]];
				uint32_t back = depth;
				for (uint32_t i = 0; i < depth; i++) {
					push(g, path[i], amt);
					if (g->res[path[i]] == 0 && i < back)
						back = i;
				}
				/* resume at the tail of the first saturated arc */
				depth = back;
				u = depth ? g->to[path[depth - 1]] : g->s2;
				continue;
			}
			uint32_t a = cur[u];
			for (; a < g->first[u + 1]; a++) {
				uint32_t v = g->to[a];
				if (g->res[a] > 0 && g->cost[a] == g->hop && level[v] == level[u] + 1)
					break;
			}
			cur[u] = a;
			if (a < g->first[u + 1]) {
				path[depth++] = a;
				u = g->to[a];
				continue;
			}
			/* dead end: retreat */
			if (depth == 0)
				break;
			level[u] = UINT32_MAX;
			depth--;
			u = depth ? g->to[path[depth - 1]] : g->s2;
			cur[u]++;
		}
	}
}

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
 * Arc lengths that order paths by cost, then by number of arcs (profi):
 * an arc's length is cost * H + 1, its reverse's -cost * H + 1, with H a
 * power of two above the number of nodes (a shortest path has fewer arcs
 * than that), so that one integer label compares both.  The searches then
 * find a fewest-arc shortest path, the one extract_dag's DAG of fewest-arc
 * shortest paths would give when it holds a single path, and report a tie
 * only when two such paths meet: most DAGs need not be built.  Without
 * room for H in 64 bits (huge costs or networks), the lengths are the
 * costs (H = 1, hop = 0), and extract_dag's hop levels do the same job.
 * maxc: the largest cost of an arc.
 */
static void choose_lengths(struct net *g, int fewest_arcs, int64_t maxc)
{
	g->H = 1, g->hop = 0;
	if (!fewest_arcs)
		return;
	int64_t H = 1;
	while (H <= (int64_t)g->n)
		H *= 2;
	/* a distance is at most n arcs of (maxc + 1) * H */
	if ((double)(maxc + 1) * (double)H * (double)(g->n + 1) > 0x1p60)
		return;
	g->H = H, g->hop = 1;
}

/* A bump allocator over one block, so that a solve makes at most one
 * allocation whatever the size of the CFG.  The block is not zeroed: the
 * few arrays that must start at 0 are cleared by flow_solve (clearing it
 * all was a tenth of the time of a small solve). */
struct arena {
	char *p;
	size_t off, size;
	int heap; /* p is from the heap (else the caller's buffer) */
};
static void *take(struct arena *a, size_t bytes)
{
	void *r = a->p ? a->p + a->off : NULL;
	a->off += (bytes + 15) & ~(size_t)15;
	return r;
}
/* Small CFGs use buf (aligned, len bytes) instead of the heap. */
static void arena_alloc(struct arena *a, void *buf, size_t len)
{
	a->size = a->off;
	a->heap = a->size > len;
	a->p = a->heap ? xmalloc(a->size) : buf;
	a->off = 0;
}
static void arena_free(struct arena *a)
{
	if (a->heap)
		free(a->p);
}

int flow_solve(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	struct net g = {0};
	struct solver s = {.g = &g, .prune = o->algo != SPGO_ALGO_MCF};
	struct gadgets x;
	uint8_t *retreat, *bstate;
	uint32_t *bstack, *bit, n = (uint32_t)(2 * nb + 4); /* at most */
	/* arcs, at most: a block's gadget (4 arcs and a floor arc, or the L2 segments, with
	 * s'' and t''), edges, exits, s' and t' (each with its reverse) */
	size_t nsampled = 0;
	for (size_t b = 0; b < nb; b++)
		nsampled += cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN;
	size_t mmax = 2 * (nsampled * (o->algo == SPGO_ALGO_QUADRATIC ? 2 * QSEG + 3 : 5) + ne + nb + 2);
	uint8_t *is_edge;

	/* Everything in one block: measured, then taken. */
	struct arena A = {0};
	_Alignas(16) char small[16384];
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			arena_alloc(&A, small, sizeof small);
		x.nin = take(&A, nb * sizeof *x.nin);
		x.nout = take(&A, nb * sizeof *x.nout);
		x.inc = take(&A, nb * sizeof *x.inc);
		x.dec = take(&A, nb * sizeof *x.dec);
		x.s2arc = take(&A, nb * sizeof *x.s2arc);
		x.t2arc = take(&A, nb * sizeof *x.t2arc);
		x.exarc = take(&A, nb * sizeof *x.exarc);
		x.nseg_inc = take(&A, nb);
		x.nseg_dec = take(&A, nb);
		x.earc = take(&A, ne * sizeof *x.earc);
		retreat = take(&A, ne);
		bstate = take(&A, nb);
		bstack = take(&A, nb * sizeof *bstack);
		bit = take(&A, nb * sizeof *bit);
		g.first = take(&A, (n + 1) * sizeof *g.first);
		s.dist = take(&A, n * sizeof *s.dist);
		s.queue = take(&A, n * sizeof *s.queue);
		s.parent = take(&A, n * sizeof *s.parent);
		s.inq = take(&A, n);
		s.tie_at = take(&A, n);
		s.state = take(&A, n);
		s.good = take(&A, n);
		s.stack = take(&A, n * sizeof *s.stack);
		s.it = take(&A, n * sizeof *s.it);
		s.order = take(&A, n * sizeof *s.order);
		s.delta = take(&A, n * sizeof *s.delta);
		s.node_amt = take(&A, n * sizeof *s.node_amt);
		s.dbeg = take(&A, (n + 1) * sizeof *s.dbeg);
		g.to = take(&A, mmax * sizeof *g.to);
		g.rev = take(&A, mmax * sizeof *g.rev);
		g.res = take(&A, mmax * sizeof *g.res);
		g.cost = take(&A, mmax * sizeof *g.cost);
		s.dag = take(&A, mmax);
		s.darc = take(&A, (mmax + 1) * sizeof *s.darc);
		s.amt = take(&A, mmax * sizeof *s.amt);
		is_edge = take(&A, mmax);
	}
	int greedy = o->greedy && o->algo != SPGO_ALGO_MCF;
	/* the greedy step's edges join two sampled blocks: only then does it
	 * need the retreating edges */
	int greedy_edges = 0;
	for (size_t e = 0; e < ne && greedy && !greedy_edges; e++) {
		uint64_t ws = cfg->blocks[cfg->edges[e].src].weight, wd = cfg->blocks[cfg->edges[e].dst].weight;
		greedy_edges = ws != SPGO_WEIGHT_UNKNOWN && ws > 0 && wd != SPGO_WEIGHT_UNKNOWN && wd > 0;
	}
	if (greedy_edges)
		memset(retreat, 0, ne);
	n = g.n = number_nodes(&x, cfg, bstate, bstack, greedy_edges ? retreat : NULL, bit);
	/* what must start at 0 (all of g.first: the counting pass adds to it) */
	memset(g.first, 0, (n + 1) * sizeof *g.first);
	memset(s.state, 0, n);
	memset(s.good, 0, n);
	s.dbeg[0] = 0;
	if (n == 0) { /* no flow can leave the function */
		for (size_t b = 0; b < nb; b++)
			cfg->blocks[b].count = 0;
		for (size_t e = 0; e < ne; e++)
			cfg->edges[e].count = 0;
		arena_free(&A);
		return 0;
	}
	g.s2 = n - 2, g.t2 = n - 1;
	/* Count the arcs of every node, then place them. */
	build(&g, &x, cfg, o);
	/* (the counting pass leaves out the layout cost) */
	choose_lengths(&g, s.prune, g.maxc + o->k_layout);
	if (g.m > mmax)
		spgo_die("flow_solve: %u arcs, room for %zu", g.m, mmax);
	for (uint32_t v = 0; v < n; v++)
		g.first[v + 1] += g.first[v];
	g.fill = s.it;
	memcpy(g.fill, g.first, n * sizeof *g.fill);
	build(&g, &x, cfg, o);
	memset(s.dag, 0, g.m);
	memset(is_edge, 0, g.m);
	for (size_t e = 0; e < ne; e++)
		if (x.earc[e] != SPGO_NONE)
			is_edge[x.earc[e]] = 1;
	s.is_edge_arc = is_edge;

	/* Greedy zero-cost augmentation (profi), on the edges that close no
	 * cycle in a depth-first search: greedy flow on every edge of a loop
	 * would be a circulation that no path from the entry feeds (an
	 * island, costly to join later). */
	if (greedy) {
		int any = 0;
		for (size_t e = 0; e < ne && !any && greedy_edges; e++)
			any = x.s2arc[cfg->edges[e].src] != SPGO_NONE && x.t2arc[cfg->edges[e].dst] != SPGO_NONE &&
			      x.earc[e] != SPGO_NONE;
		/* (retreat: from number_nodes' search) */
		for (size_t e = 0; e < ne && any; e++) {
			uint32_t u = cfg->edges[e].src, v = cfg->edges[e].dst;
			uint32_t a1 = x.s2arc[u], a3 = x.t2arc[v];
			if (retreat[e] || a1 == SPGO_NONE || a3 == SPGO_NONE || x.earc[e] == SPGO_NONE)
				continue;
			if (g.cost[x.earc[e]] != g.hop) /* zero-cost paths only */
				continue;
			int64_t f = g.res[a1] < g.res[a3] ? g.res[a1] : g.res[a3];
			if (f <= 0)
				continue;
			push(&g, a1, f);
			push(&g, x.earc[e], f);
			push(&g, a3, f);
		}
		uint32_t ta = x.t2arc[cfg->entry];
		for (size_t b = 0; b < nb && ta != SPGO_NONE; b++) {
			uint32_t a1 = x.s2arc[b];
			if (x.exarc[b] == SPGO_NONE || a1 == SPGO_NONE)
				continue;
			int64_t f = g.res[a1] < g.res[ta] ? g.res[a1] : g.res[ta];
			if (f <= 0)
				continue;
			push(&g, a1, f);
			push(&g, x.exarc[b], f);
			push(&g, x.loop, f);
			push(&g, x.srcarc, f);
			push(&g, ta, f);
		}
	}
	/* Successive shortest paths (or DAGs of them).  The first search
	 * tells whether a path of cost 0 is left: then profi's zero-cost
	 * phase takes them all at once. */
	int zero_phase = o->algo != SPGO_ALGO_MCF;
	while (!s2_saturated(&g) && shortest_paths(&s)) {
		if (zero_phase && costs_nothing(&g, s.dist[g.t2])) {
			zero_cost_flow(&s);
			zero_phase = 0;
			continue;
		}
		zero_phase = 0;
		if (o->algo == SPGO_ALGO_MCF || !o->even_split || !s.tie || costs_nothing(&g, s.dist[g.t2]) ||
		    unique_path(&s))
			augment_path(&s); /* one shortest path: nothing to split */
		else {
			augment_dag(&s);
			/* The labels still price every arc: a path of tight arcs
			 * (d(v) = d(u) + cost) from s'' to t'' costs d(t''),
			 * the shortest distance, which augmenting never lowers.
			 * So while the tight arcs still join s'' to t'', the
			 * next DAG needs no new search.  (On small networks a
			 * search costs less than a try that fails.) */
			while (g.n >= 256 && !s2_saturated(&g) && extract_dag(&s) && s.branching)
				augment_dag_rounds(&s);
		}
	}

	/* Read the counts back: edges, then sampled blocks by their gadget,
	 * dangling ones by what comes in. */
	for (size_t e = 0; e < ne; e++)
		cfg->edges[e].count = x.earc[e] == SPGO_NONE ? 0 : (uint64_t)g.res[g.rev[x.earc[e]]];
	for (size_t b = 0; b < nb; b++) {
		const struct spgo_cfg_block *bl = &cfg->blocks[b];
		uint64_t w = bl->weight;
		int64_t f = 0;
		if (x.nin[b] == SPGO_NONE) {
			f = 0;
		} else if (w == SPGO_WEIGHT_UNKNOWN) {
			for (uint32_t k = 0; k < bl->nin; k++)
				f += (int64_t)cfg->edges[cfg->pred[bl->in + k]].count;
			if (b == cfg->entry)
				f += g.res[g.rev[x.srcarc]];
		} else {
			f = (int64_t)w;
			for (uint32_t k = 0; k < x.nseg_inc[b]; k++)
				f += g.res[g.rev[x.inc[b] + k]];
			for (uint32_t k = 0; k < x.nseg_dec[b]; k++)
				f -= g.res[g.rev[x.dec[b] + k]];
		}
		cfg->blocks[b].count = f > 0 ? (uint64_t)f : 0;
	}
	arena_free(&A);
	return 0;
}
