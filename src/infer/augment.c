/*
 * The searches and augmentations of flow_solve's network (network.h):
 * Moore-Bellman-Ford shortest paths (profi's pruned version and mcf's
 * plain one), augmentation along one path or along the DAG of shortest
 * paths with even splitting, profi's zero-cost phase, and the arc lengths
 * that let one label order paths by cost, then by number of arcs.  The
 * top of flow.c says which algorithm uses what.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "infer/network.h"
#include "spgo/common.h"

/* Everything out of s'' is saturated: the flow is maximum (no search can
 * find a path), which is where every solve ends. */
int net_saturated(const struct net *g)
{
	for (uint32_t a = g->first[g->s2]; a < g->first[g->s2 + 1]; a++)
		if (g->res[a] > 0)
			return 0;
	return 1;
}

/*
 * Moore-Bellman-Ford with a FIFO queue.  With prune set (profi), u is not
 * expanded when d(u) > d(t''), and the search stops once d(t'') = 0.
 * Returns 1 if t'' is reachable.
 */
int net_shortest_paths(struct solver *s)
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
int net_unique_path(const struct solver *s)
{
	const struct net *g = s->g;
	for (uint32_t v = g->t2; v != g->s2; v = g->to[g->rev[s->parent[v]]])
		if (s->tie_at[v])
			return 0;
	return 1;
}

/* Push the bottleneck along the parent chain from t'' (one shortest path). */
void net_augment_path(struct solver *s)
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
 * twentieth of them: the rounds of net_augment_dag walk only those.  s->order
 * gets them by decreasing h, a topological order, each with its DAG arcs in
 * arc order.  Returns 0 if s'' was not found (no DAG).
 */
int net_extract_dag(struct solver *s)
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
		double W = s->wsum[i];
		for (uint32_t k = k0; k < k1 && W == 0; k++)
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
			if (net_shortest_paths(s))
				net_augment_path(s);
			return 0; /* the labels changed: the DAG is stale */
		}
		s->parent[g->to[found]] = found;
		u = g->to[found];
	}
	net_augment_path(s);
	return 1;
}

/* One augmentation along the DAG of shortest paths (profi). */
void net_augment_dag(struct solver *s)
{
	if (!net_extract_dag(s)) { /* cannot happen: s'' lies on a shortest path */
		net_augment_path(s);
		return;
	}
	if (!s->branching) { /* one shortest path: nothing to split */
		dag_path(s);
		return;
	}
	net_augment_dag_rounds(s);
}

void net_augment_dag_rounds(struct solver *s)
{
	struct net *g = s->g;
	/* Rounds of even splitting on the same DAG until no s''-t'' path with
	 * room is left in it (a blocking flow, like Dinic's, but split evenly
	 * at every node): each round saturates an arc, and all the DAG's paths
	 * are shortest ones, so the flow stays of minimum cost. */
	for (int round = 0; round < 64; round++) {
		/* which nodes still reach t'' over arcs with room (all of a
		 * fresh DAG: net_extract_dag keeps only such arcs) */
		for (uint32_t i = round ? s->norder : 0; i-- > 0;) {
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
		for (uint32_t i = 0; i < s->norder; i++) {
			s->delta[s->order[i]] = 0;
			s->wsum[i] = 0;
		}
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
			s->wsum[i] = W; /* for distribute, this round */
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
void net_zero_cost_flow(struct solver *s)
{
	struct net *g = s->g;
	uint32_t n = g->n;
	uint32_t *level = s->it, *cur = s->stack, *q = s->queue, *path = s->order;
	uint32_t tail = 0;
	for (uint32_t v = 0; v < n; v++)
		level[v] = UINT32_MAX;
	while (!net_saturated(g)) {
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
 * Arc lengths that order paths by cost, then by number of arcs (profi):
 * an arc's length is cost * H + 1, its reverse's -cost * H + 1, with H a
 * power of two above the number of nodes (a shortest path has fewer arcs
 * than that), so that one integer label compares both.  The searches then
 * find a fewest-arc shortest path, the one net_extract_dag's DAG of fewest-arc
 * shortest paths would give when it holds a single path, and report a tie
 * only when two such paths meet: most DAGs need not be built.  Without
 * room for H in 64 bits (huge costs or networks), the lengths are the
 * costs (H = 1, hop = 0), and net_extract_dag's hop levels do the same job.
 * maxc: the largest cost of an arc.
 */
void net_choose_lengths(struct net *g, int fewest_arcs, int64_t maxc)
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
