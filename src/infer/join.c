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
#include "infer/join_impl.h"
#include "spgo/common.h"

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

#define block_cost block_cost_at /* (the L1 cost of a count) */

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
		c->last_ok = res_cycle_search(cfg, o, live, x, c) == 0;
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
			res_swap(c); /* kept aside while the next are searched */
			kept = 1;
		}
	}
	if (kept) {
		/* the caller applies the best search's cycle: it is at hand */
		res_swap(c);
		c->last_x = *bx;
		c->last_ok = 1;
	}
	return best;
}

/*
 * Before an island is dropped: one more call through x priced on the
 * residual graph rather than by cheapest()'s forward marginals, as two
 * searches over the arcs of res_cycle_search, Z -> in(x) and then (on the
 * flow with that path applied) in(x) -> Z.  The paths may take flow off
 * other routes (a loop that only raised a block above its weight can give
 * its unit to the way to x), which the forward prices cannot see.  Kept
 * when x is reached after it, nothing reached is cut off, and the L1
 * cost rose by less than dropping would cost; 1 if kept.
 */
static int residual_call(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, const uint8_t *live,
			 struct cyc *c, uint32_t x, double drop, const uint8_t *reached)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint32_t Z = (uint32_t)(2 * nb);
	res_sums(cfg, c);
	if (res_node_search(cfg, o, live, Z, c) || c->dist[2 * x] == INT64_MAX)
		return 0;
	res_save_counts(cfg, c->saved_e, c->saved_b);
	double before = spgo_flow_cost_l1(cfg, o);
	for (uint32_t n = 2 * x; c->prev[n] != SPGO_NONE; n = c->prev[n])
		res_arc_apply(cfg, c, n);
	cfg->blocks[x].count++;
	for (size_t e = 0; e < ne; e++) /* the second path may not undo the first */
		c->pin_e[e] = cfg->edges[e].count > c->saved_e[e];
	res_sums(cfg, c);
	int keep = res_node_search(cfg, o, live, 2 * x + 1, c) == 0 && c->dist[Z] != INT64_MAX;
	if (!keep) {
		c->clamp = 1;
		keep = res_node_search(cfg, o, live, 2 * x + 1, c) == 0 && c->dist[Z] != INT64_MAX;
		c->clamp = 0;
	}
	if (keep) {
		for (uint32_t n = Z; c->prev[n] != SPGO_NONE; n = c->prev[n])
			res_arc_apply(cfg, c, n);
		memset(c->chk, 0, nb);
		res_reach(cfg, c->chk, c->stack);
		keep = c->chk[x] && spgo_flow_cost_l1(cfg, o) - before < drop;
		for (size_t b = 0; b < nb && keep; b++)
			keep = !(reached[b] && cfg->blocks[b].count > 0 && !c->chk[b]);
	}
	res_unpin(cfg, c);
	if (!keep)
		res_restore_counts(cfg, c->saved_e, c->saved_b);
	return keep;
}

/*
 * One pass's scratch: every array in one block (infer_impl.h's arena),
 * measured, then taken; a pass is small next to what it allocated one by
 * one.  Small CFGs take the block from small, on join_pass's stack.
 */
struct join_ctx {
	uint8_t *mark, *from_entry, *island, *inq, *chk, *live;
	uint32_t *stack, *via1, *via2, *queue, *rounds, *exits;
	int64_t *d1, *d2; /* cheapest(): entry -> v, v -> exit */
	uint64_t *saved, *saved_b; /* the counts before a trial */
	struct price *price;
	struct cyc cy;
	struct arena A;
	_Alignas(16) char small[16384];
};

static void join_ctx_alloc(struct join_ctx *j, const struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges, nn = 2 * nb + 1;
	struct arena *A = &j->A;
	struct cyc *cy = &j->cy;
	*A = (struct arena){0};
	for (int round = 0; round < 2; round++) {
		if (round)
			arena_alloc(A, j->small, sizeof j->small);
		j->mark = arena_take(A, nb);
		j->from_entry = arena_take(A, nb);
		j->island = arena_take(A, nb);
		j->inq = arena_take(A, nb);
		j->chk = arena_take(A, nb);
		j->live = arena_take(A, nb);
		j->stack = arena_take(A, (nb + 1) * sizeof *j->stack);
		j->exits = arena_take(A, (nb + 1) * sizeof *j->exits);
		j->d1 = arena_take(A, nb * sizeof *j->d1);
		j->d2 = arena_take(A, nb * sizeof *j->d2);
		j->via1 = arena_take(A, nb * sizeof *j->via1);
		j->via2 = arena_take(A, nb * sizeof *j->via2);
		j->queue = arena_take(A, nb * sizeof *j->queue);
		j->rounds = arena_take(A, nb * sizeof *j->rounds);
		j->price = arena_take(A, nb * sizeof *j->price);
		j->saved_b = arena_take(A, nb * sizeof *j->saved_b);
		j->saved = arena_take(A, (ne + 1) * sizeof *j->saved);
		cy->prev = arena_take(A, nn * sizeof *cy->prev);
		cy->arcid = arena_take(A, nn * sizeof *cy->arcid);
		cy->queue = arena_take(A, nn * sizeof *cy->queue);
		cy->next = arena_take(A, (nn + 1) * sizeof *cy->next);
		cy->back = arena_take(A, (nn + 1) * sizeof *cy->back);
		cy->depth = arena_take(A, (nn + 1) * sizeof *cy->depth);
		cy->kind = arena_take(A, nn);
		cy->prev2 = arena_take(A, nn * sizeof *cy->prev2);
		cy->arcid2 = arena_take(A, nn * sizeof *cy->arcid2);
		cy->kind2 = arena_take(A, nn);
		cy->inq = arena_take(A, nn);
		cy->dist = arena_take(A, nn * sizeof *cy->dist);
		cy->pot = arena_take(A, nn * sizeof *cy->pot);
		cy->outsum = arena_take(A, nb * sizeof *cy->outsum);
		cy->insum = arena_take(A, nb * sizeof *cy->insum);
		cy->frozen = arena_take(A, nb);
		cy->pin_b = arena_take(A, nb);
		cy->pin_e = arena_take(A, ne + 1);
		cy->noplus = arena_take(A, ne + 1);
		cy->exits = arena_take(A, (nb + 1) * sizeof *cy->exits);
	}
}

/* Clear what must start at 0 (the block is not zeroed), price the blocks
 * and set the searches' state for a pass (rev: see struct cyc). */
static void join_ctx_reset(struct join_ctx *j, const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, int rev)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	struct cyc *cy = &j->cy;
	memset(j->mark, 0, nb);
	memset(j->from_entry, 0, nb);
	memset(j->island, 0, nb);
	memset(cy->frozen, 0, nb);
	memset(cy->pin_b, 0, nb);
	memset(cy->pin_e, 0, ne + 1);
	memset(cy->noplus, 0, ne + 1);
	res_prices(cfg, o, j->price);
	cy->price = j->price;
	cy->pot_ok = 0;
	cy->pin_entry = 0;
	cy->clamp = 0;
	cy->rev = rev;
	cy->last_x = SPGO_NONE;
	cy->ban_e = SPGO_NONE;
	cy->last_ok = cy->failed = cy->settled = 0;
	cy->saved_b = j->saved_b;
	cy->chk = j->chk;
	cy->nexits = 0;
	cy->saved_e = j->saved;
	cy->stack = j->stack;
}

static void join_ctx_free(struct join_ctx *j)
{
	arena_free(&j->A);
}

/* Flow the entry cannot reach, or that can reach no exit, is a closed
 * circulation: remove it.  The rest is live; its exits go to cy.exits. */
static void remove_closed_flow(struct spgo_cfg *cfg, struct join_ctx *j)
{
	size_t nb = cfg->nblocks, nexit = 0;
	res_search(cfg, &cfg->entry, 1, 1, 0, j->from_entry, j->stack);
	for (uint32_t b = 0; b < nb; b++)
		if (spgo_cfg_is_exit(cfg, b))
			j->stack[nexit++] = b;
	memcpy(j->exits, j->stack, nexit * sizeof *j->exits);
	res_search(cfg, j->exits, nexit, 0, 0, j->mark, j->stack);
	for (size_t b = 0; b < nb; b++)
		j->live[b] = j->mark[b] &= j->from_entry[b];
	zero_outside(cfg, j->mark);
	for (uint32_t b = 0; b < nb; b++)
		if (j->live[b] && spgo_cfg_is_exit(cfg, b))
			j->cy.exits[j->cy.nexits++] = b;
}

/* Mark from_entry (what the entry reaches over positive edges) and island
 * (positive blocks it does not); returns how many island blocks. */
static size_t find_islands(const struct spgo_cfg *cfg, struct join_ctx *j)
{
	size_t nb = cfg->nblocks, nisland = 0;
	memset(j->from_entry, 0, nb);
	res_reach(cfg, j->from_entry, j->stack);
	for (size_t b = 0; b < nb; b++) {
		j->island[b] = cfg->blocks[b].count > 0 && !j->from_entry[b];
		nisland += j->island[b];
	}
	return nisland;
}

/*
 * Prices on the current flow: one more call through the cheapest island
 * block (with rev, the last of the cheapest).  Returns it (SPGO_NONE if
 * none) with its price in *best; *ok: the prices could be had (d1, via1
 * and d2, via2 hold them).
 */
static uint32_t cheapest_call(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct join_ctx *j,
			      int rev, int *ok, int64_t *best)
{
	size_t nb = cfg->nblocks;
	*ok = 0;
	for (int clamp = 0; clamp <= 1 && !*ok; clamp++)
		*ok = cheapest(cfg, o, j->price, j->live, 1, clamp, j->d1, j->via1, j->queue, j->inq, j->rounds) == 0 &&
		      cheapest(cfg, o, j->price, j->live, 0, clamp, j->d2, j->via2, j->queue, j->inq, j->rounds) == 0;
	uint32_t x = SPGO_NONE;
	*best = INT64_MAX;
	for (uint32_t b = 0; *ok && b < nb; b++)
		if (j->island[b] && j->d1[b] != INT64_MAX && j->d2[b] != INT64_MAX &&
		    (j->d1[b] + j->d2[b] < *best || (rev && j->d1[b] + j->d2[b] == *best))) {
			*best = j->d1[b] + j->d2[b];
			x = b;
		}
	return x;
}

/* What dropping x's island (its component over positive edges, left in
 * mark) would cost. */
static double drop_cost(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct join_ctx *j, uint32_t x)
{
	uint8_t *mark = j->mark;
	uint32_t *stack = j->stack;
	size_t sp = 0;
	double drop = 0;
	memset(mark, 0, cfg->nblocks);
	mark[x] = 1;
	stack[sp++] = x;
	while (sp) {
		uint32_t v = stack[--sp];
		const struct spgo_cfg_block *bl = &cfg->blocks[v];
		drop += block_cost(cfg, o, v, 0) - block_cost(cfg, o, v, bl->count);
		for (uint32_t k = 0; k < bl->nout + bl->nin; k++) {
			uint32_t e = k < bl->nout ? cfg->succ[bl->out + k] : cfg->pred[bl->in + k - bl->nout];
			uint32_t w = k < bl->nout ? cfg->edges[e].dst : cfg->edges[e].src;
			if (cfg->edges[e].count > 0 && j->island[w] && !mark[w]) {
				mark[w] = 1;
				stack[sp++] = w;
			}
		}
	}
	return drop;
}

/* After a trial change: the entry's reach in chk; how many positive blocks
 * it leaves out (and in *cut, how many of them it reached before). */
static size_t left_out(const struct spgo_cfg *cfg, struct join_ctx *j, size_t *cut)
{
	size_t nb = cfg->nblocks, left = 0;
	memset(j->chk, 0, nb);
	res_reach(cfg, j->chk, j->stack);
	*cut = 0;
	for (size_t b = 0; b < nb; b++) {
		left += cfg->blocks[b].count > 0 && !j->chk[b];
		*cut += j->from_entry[b] && cfg->blocks[b].count > 0 && !j->chk[b];
	}
	return left;
}

/*
 * When the island holds the entry (a loop through it that nothing enters),
 * first the cheapest cycle that lets a unit enter there: Z -> in(entry) ->
 * ... -> Z.  It costs nothing when the same counts have a flow that enters
 * (exact weights whose min-cost routing came out as a circulation).  Kept
 * when no dearer than the call (best) and the drop and fewer island blocks
 * are left; 1 if kept.
 */
static int enter_at_entry(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct join_ctx *j, size_t nisland,
			  int64_t best, double drop)
{
	struct cyc *cy = &j->cy;
	if (res_cycle_search(cfg, o, j->live, cfg->entry, cy))
		return 0;
	uint32_t Z = (uint32_t)(2 * cfg->nblocks);
	int64_t ec = cy->dist[Z];
	if (ec == INT64_MAX || ec > best || (double)ec > drop)
		return 0;
	res_save_counts(cfg, j->saved, j->saved_b);
	for (uint32_t n = Z; cy->prev[n] != SPGO_NONE; n = cy->prev[n])
		res_arc_apply(cfg, cy, n);
	size_t cut;
	if (left_out(cfg, j, &cut) < nisland)
		return 1;
	res_restore_counts(cfg, j->saved, j->saved_b);
	return 0;
}

/*
 * The cheapest cycle that feeds an island block x from p -> x, through any
 * p first (p may be reached through the cycle itself), then through reached
 * p; kept when no dearer than the call (best, or with rev the call through
 * the same x) and the drop, and fewer island blocks are left (so every
 * round makes progress; with rev, nothing that was reached cut off).  A
 * cycle that joins x may cut something else off (another zero-cost way
 * around would not have): then what it cut is pinned and the search runs
 * again, a few times.  1 if kept.  Unless bounded (the prices are
 * trusted), nothing is tried, but the pins and the clamp are still reset.
 */
static int join_by_cycle(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct join_ctx *j, size_t nisland,
			 int ok, int64_t best, double drop, int rev, int bounded)
{
	struct cyc *cy = &j->cy;
	int kept = 0;
	cy->failed = 0;
	for (int k = 0; k < 4 && !kept && bounded; k++) {
		int any_p = !(k & 1);
		if (k == 1 && cy->failed)
			continue; /* the same searches would fail again */
		cy->clamp = k >= 2; /* when a negative cycle stopped the searches */
		res_unpin(cfg, cy);
		for (int attempt = 0; attempt < 8 && !kept; attempt++) {
			uint32_t cx = SPGO_NONE, ce = SPGO_NONE;
			int64_t cbest = best_cycle(cfg, o, j->live, j->island, j->from_entry, any_p, cy, &cx, &ce);
			if (cbest == INT64_MAX)
				break;
			int64_t call = best; /* one more call instead (through cx, when rev) */
			if (rev && ok && j->d1[cx] != INT64_MAX && j->d2[cx] != INT64_MAX)
				call = j->d1[cx] + j->d2[cx];
			if (cbest > call || (double)cbest > drop)
				break;
			res_save_counts(cfg, j->saved, j->saved_b);
			const struct spgo_cfg_block *eb = &cfg->blocks[cfg->entry];
			uint64_t entered = eb->count - cy->insum[cfg->entry];
			int pinned = 0;
			if ((cy->last_x == cx && cy->last_ok) || res_cycle_search(cfg, o, j->live, cx, cy) == 0) {
				res_cycle_apply(cfg, cy, 2 * cfg->edges[ce].src + 1, ce);
				size_t cut, left = left_out(cfg, j, &cut);
				if (left < nisland && !(rev && cut)) {
					kept = 1;
					break;
				}
				pinned = res_pin_cut(cfg, cy, j->chk, j->saved, j->saved_b, entered);
			}
			res_restore_counts(cfg, j->saved, j->saved_b);
			if (!pinned)
				break;
		}
	}
	res_unpin(cfg, cy);
	cy->clamp = 0;
	return kept;
}

/* One more call along the cheapest paths entry -> x -> exit. */
static void add_call(struct spgo_cfg *cfg, const struct join_ctx *j, uint32_t x)
{
	for (uint32_t v = x;;) { /* entry -> x */
		cfg->blocks[v].count++;
		if (j->via1[v] == SPGO_NONE)
			break;
		cfg->edges[j->via1[v]].count++;
		v = cfg->edges[j->via1[v]].src;
	}
	for (uint32_t v = x; j->via2[v] != SPGO_NONE;) { /* x -> exit */
		cfg->edges[j->via2[v]].count++;
		v = cfg->edges[j->via2[v]].dst;
		cfg->blocks[v].count++;
	}
}

/* Polish the joined flow, or take the polish memo remembers for the same
 * start (see join_memo). */
static void polish_memo(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, struct join_ctx *j,
			struct join_memo *memo)
{
	if (!memo) {
		join_polish(cfg, o, j->live, &j->cy);
		return;
	}
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint64_t *start = xmalloc((nb + ne + 1) * sizeof *start);
	res_get_flow(cfg, start);
	uint64_t h = join_memo_hash(start, nb + ne);
	const uint64_t *done = join_memo_find(memo, start, h);
	if (done) {
		res_set_flow(cfg, done);
	} else {
		join_polish(cfg, o, j->live, &j->cy);
		join_memo_put(memo, cfg, start, h);
	}
	free(start);
}

/*
 * JoinIsolatedComponents with costs: for the island block x that is
 * cheapest to connect (a path entry -> x plus a path x -> exit, one unit,
 * priced by the marginals), compare with dropping x's island (all blocks
 * of its positive component to 0) and with a cycle that feeds an island
 * from the reached part, and do the cheapest.  Dropping is right when the
 * island only exists to raise blocks that are cheaper to lower (Theorem 3.1
 * says the exact choice is APX-hard; this is the heuristic).  Then the
 * flow is polished.
 */
int join_pass(struct spgo_cfg *cfg, const struct spgo_infer_opts *o, int may_drop, int rev, struct join_memo *memo)
{
	size_t nb = cfg->nblocks;
	int drops = 0;
	struct join_ctx j;
	join_ctx_alloc(&j, cfg);
	join_ctx_reset(&j, cfg, o, rev);
	remove_closed_flow(cfg, &j);

	for (size_t guard = 0;; guard++) {
		size_t nisland = find_islands(cfg, &j);
		if (!nisland)
			break;
		/* past this many rounds the prices are not trusted */
		int bounded = guard <= 4 * nb + 4;

		res_sums(cfg, &j.cy); /* (the prices and the drop below change no count) */
		/* one more call through the cheapest island block x ... */
		int ok;
		int64_t best;
		uint32_t x = cheapest_call(cfg, o, &j, rev, &ok, &best);
		/* ... or dropping x's island ... */
		double drop = x != SPGO_NONE && may_drop ? drop_cost(cfg, o, &j, x) : INFINITY;
		/* ... or a cycle: letting a unit enter at the entry, or feeding
		 * an island block from the reached part */
		if (bounded && j.island[cfg->entry] && enter_at_entry(cfg, o, &j, nisland, best, drop))
			continue;
		if (join_by_cycle(cfg, o, &j, nisland, ok, best, drop, rev, bounded))
			continue;
		if (x == SPGO_NONE || !bounded) {
			/* no trustworthy prices: drop every island */
			for (size_t b = 0; b < nb; b++)
				j.mark[b] = !j.island[b];
			zero_outside(cfg, j.mark);
			break;
		}
		if (drop < (double)best && residual_call(cfg, o, j.live, &j.cy, x, drop, j.from_entry))
			continue;
		if (drop < (double)best) {
			drops++;
			for (size_t b = 0; b < nb; b++)
				j.mark[b] = !j.mark[b]; /* (mark: x's island, from drop_cost) */
			zero_outside(cfg, j.mark);
			continue;
		}
		add_call(cfg, &j, x);
	}
	polish_memo(cfg, o, &j, memo);
	join_ctx_free(&j);
	return drops;
}

/*
 * How many islands the flow has: components of the positive blocks that
 * the entry does not reach, joined by positive edges either way.  mark,
 * stack: nb each, scratch.
 */
static size_t count_islands(const struct spgo_cfg *cfg, uint8_t *mark, uint32_t *stack)
{
	size_t nb = cfg->nblocks, n = 0;
	memset(mark, 0, nb);
	res_reach(cfg, mark, stack);
	for (uint32_t x = 0; x < nb; x++) {
		if (mark[x] || cfg->blocks[x].count == 0)
			continue;
		n++;
		size_t sp = 0;
		mark[x] = 1;
		stack[sp++] = x;
		while (sp) {
			const struct spgo_cfg_block *bl = &cfg->blocks[stack[--sp]];
			for (uint32_t k = 0; k < bl->nout + bl->nin; k++) {
				uint32_t e = k < bl->nout ? cfg->succ[bl->out + k] : cfg->pred[bl->in + k - bl->nout];
				uint32_t w = k < bl->nout ? cfg->edges[e].dst : cfg->edges[e].src;
				if (cfg->edges[e].count > 0 && !mark[w]) {
					mark[w] = 1;
					stack[sp++] = w;
				}
			}
		}
	}
	return n;
}

void flow_join_islands(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges, nisl;
	{
		/* The common case first: every positive block is reached from
		 * the entry over positive edges (then each also reaches an exit,
		 * by conservation), and there is nothing to do. */
		uint32_t small_st[256];
		uint8_t small_r[256];
		uint32_t *st = nb < 256 ? small_st : xmalloc((nb + 1) * sizeof *st);
		uint8_t *r = nb < 256 ? small_r : xmalloc(nb);
		nisl = count_islands(cfg, r, st);
		if (nb >= 256) {
			free(r);
			free(st);
		}
		if (nisl == 0)
			return;
	}
	/* The joins are greedy, one island at a time, and their order
	 * matters: joining a dear island first can make a cheap one free (it
	 * is fed through the first), and dropping an island, the cheaper
	 * choice where it is taken, freezes it at 0 for the joins that follow.
	 * So when joining cost anything, two more passes run from the same
	 * start: the dearest island first (where a join may not cut off what
	 * an earlier one reached; when there are two islands or more: over
	 * 100,000 random CFGs, running it for one island too lowered the L1
	 * total by 19 units in 7.3 billion, and changed no flow of sqlite3's
	 * 1,459 CFGs), and (if the first pass dropped one) never dropping.  The cheapest result is kept.  Each pass costs about what
	 * the first did (less what join_memo finds done already), which on a
	 * CFG of hundreds of blocks with islands is more than the solve (on
	 * speedtest1's CFGs: 25 ms more over all, for an L1 gain of 2): the
	 * passes run on CFGs up to JOIN_PASSES_MAX blocks. */
	uint64_t *start = xmalloc((nb + ne + 1) * sizeof *start), *best = xmalloc((nb + ne + 1) * sizeof *best);
	res_get_flow(cfg, start);
	double c0 = spgo_flow_cost_l1(cfg, o);
	struct join_memo memo = {.max = JOIN_MEMO_MAX, .width = nb + ne};
	int drops = join_pass(cfg, o, 1, 0, nb <= JOIN_PASSES_MAX ? &memo : NULL);
	double cbest = spgo_flow_cost_l1(cfg, o);
	for (int pass = nisl > 1 ? 1 : 2; pass <= 2 && cbest > c0 && nb <= JOIN_PASSES_MAX; pass++) {
		if (pass == 2 && !drops)
			break;
		res_get_flow(cfg, best);
		res_set_flow(cfg, start);
		join_pass(cfg, o, pass == 1, pass == 1, &memo);
		double c = spgo_flow_cost_l1(cfg, o);
		if (c < cbest) {
			cbest = c;
			continue;
		}
		res_set_flow(cfg, best);
	}
	free(memo.flows);
	free(start);
	free(best);
}
