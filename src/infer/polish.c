/*
 * Polishing a joined flow (join_impl.h): negative cycles of the residual
 * graph cancelled while the flow stays connected, and the memo of the
 * polishes that one flow_join_islands reuses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "infer/join_impl.h"
#include "spgo/common.h"

/* FNV-1a over n counts. */
uint64_t join_memo_hash(const uint64_t *v, size_t n)
{
	uint64_t h = 14695981039346656037u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211u;
	return h;
}

/* The result memo holds for the flow start (width counts, hash h), or
 * NULL. */
const uint64_t *join_memo_find(const struct join_memo *m, const uint64_t *start, uint64_t h)
{
	for (size_t i = 0; i < m->n; i++) {
		const uint64_t *f = m->flows + 2 * m->width * i;
		if (m->hash[i] == h && !memcmp(f, start, m->width * sizeof *f))
			return f + m->width;
	}
	return NULL;
}

/* Remember that start (hash h) gave the flow of cfg. */
void join_memo_put(struct join_memo *m, const struct spgo_cfg *cfg, const uint64_t *start, uint64_t h)
{
	if (!m->flows)
		m->flows = xmalloc(m->max * 2 * m->width * sizeof *m->flows);
	size_t i = m->n < m->max ? m->n++ : m->next;
	m->next = (i + 1) % m->max;
	uint64_t *f = m->flows + 2 * m->width * i;
	m->hash[i] = h;
	memcpy(f, start, m->width * sizeof *f);
	res_get_flow(cfg, f + m->width);
}

/*
 * When no negative cycle is left but pinned ones: reroute one unit of a
 * positive edge u -> v by the cheapest other way from out(u) to in(v) (a
 * cycle through the edge's -1 arc that keeps u feeding v, so it cuts off
 * less often than the cycles res_improve_once finds first).  Applies the
 * first that lowers the cost; 1 if one was applied.
 */
static int reroute(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, struct cyc *c)
{
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t u = cfg->edges[e].src, v = cfg->edges[e].dst;
		if (cfg->edges[e].count == 0 || u == v || !live[u] || !live[v])
			continue;
		/* When res_improve_once has just settled (no negative cycle), the
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
		int ok = res_node_search(cfg, o, live, 2 * u + 1, c) == 0;
		c->ban_e = SPGO_NONE;
		if (!ok || c->dist[2 * v] == INT64_MAX || c->dist[2 * v] - edge_cost(cfg, o, e) >= 0)
			continue;
		cfg->edges[e].count--;
		for (uint32_t n = 2 * v; c->prev[n] != SPGO_NONE; n = c->prev[n])
			res_arc_apply(cfg, c, n);
		return 1;
	}
	return 0;
}

/*
 * Polish: cancel negative cycles of the residual graph (cheaper flows
 * of the same value) while the flow stays connected.  A cycle that
 * breaks it is undone, and what broke it is pinned: the edges, blocks or
 * entry it brought to 0 may no longer lose their last unit, the blocks it
 * raised into a new island are frozen at 0.  A kept cycle lowers the cost
 * and lifts the pins (what was pinned may move again); each undone one
 * pins something, so this ends.  When only pinned cycles are left (CFGs
 * up to JOIN_PASSES_MAX blocks), reroute() tries single edges.  (Trying
 * a cutting cycle again with what it cut joined once more, a join_pass
 * one level down, changed no flow of sqlite3's 1,459 CFGs and lowered the
 * L1 total of 100,000 random CFGs by 5 units in 7.3 billion, for 20-30%
 * of the time of profi on CFGs under 173 blocks: it is gone.)  The result is
 * a flow that no single cycle improves among the connected flows that
 * keep the pinned support (joining islands is APX-hard, Theorem 3.1:
 * this makes the heuristic's result a local minimum).
 */
void join_polish(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live, struct cyc *c)
{
	size_t nb = cfg->nblocks;
	uint64_t *saved = c->saved_e, *saved_b = c->saved_b;
	uint8_t *chk = c->chk;
	res_unpin(cfg, c);
	c->pot_ok = 0;
	for (size_t round = 0; round < 64 * nb + 256; round++) {
		res_sums(cfg, c);
		res_save_counts(cfg, saved, saved_b);
		uint64_t entered = cfg->blocks[cfg->entry].count - c->insum[cfg->entry];
		if (!res_improve_once(cfg, o, live, c) && !(nb <= JOIN_PASSES_MAX && reroute(cfg, o, live, c)))
			break;
		memset(chk, 0, nb);
		res_reach(cfg, chk, c->stack);
		int bad = 0;
		for (size_t b = 0; b < nb; b++)
			bad |= cfg->blocks[b].count > 0 && !chk[b];
		if (!bad) {
			/* res_improve_once's cycle kept the flow connected: it
			 * takes the other units it may carry at the same
			 * price, which leave the support as it is (rather
			 * than being found again once per unit) */
			for (uint32_t n = c->cyc_node, k = 0; c->more && (n != c->cyc_node || !k++); n = c->prev[n])
				res_arc_apply_n(cfg, c, n, c->more);
			/* a kept cycle lowered the cost: what was pinned on
			 * the way may be free to move again (the cost bounds
			 * the kept cycles, the pins the undone ones between) */
			res_unpin(cfg, c);
			continue;
		}
		int pinned = res_pin_cut(cfg, c, chk, saved, saved_b, entered);
		res_restore_counts(cfg, saved, saved_b);
		if (!pinned)
			break;
	}
}
