/*
 * RebalanceDanglingSubgraphs (section 3.4, the last step of Algorithm 1):
 * where a sampled block u leads into a region of dangling blocks that is
 * entered only from u and left only into one sampled block v, how the flow
 * crosses the region does not change the paper's objective, so the solver's
 * route is arbitrary.  We route it by the branch probabilities instead, in
 * topological order (equation 1), rounding by largest remainder so that
 * every block still conserves.  With the dangling and layout terms
 * (k_unknown_inc, k_layout) routes may cost differently: then the flow is
 * split only over the edges on the cheapest routes to v, so rebalancing
 * never raises the L1 objective (spgo_flow_cost_l1); without them every
 * route is cheapest.  Cyclic regions, when asked, by the paper's
 * iterative method (rebalance_cyclic).  That is off by default: with static
 * probabilities (a loop's back edge 0.88 or more) it makes loops of dangling
 * blocks run far more often than they do, and it lowered the overlap on
 * bench_infer's CFGs (85.4% -> 85.0% vertex).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

/* Split total over the edges ids[0..n) that are tight (tight[e]; NULL: all
 * of them) by their probabilities, rounding by largest remainder so that
 * the parts add up exactly; the others get 0. */
static void split_by_prob(struct spgo_cfg *cfg, const uint32_t *ids, uint32_t n, uint64_t total,
			  const uint8_t *tight)
{
#define PROB(e) (tight && !tight[e] ? 0.0 : cfg->edges[e].prob > 0 ? cfg->edges[e].prob : 0.0)
	double sum = 0;
	uint32_t ntight = 0;
	for (uint32_t k = 0; k < n; k++) {
		sum += PROB(ids[k]);
		ntight += !tight || tight[ids[k]];
	}
	uint64_t given = 0;
	double best_rem = -1;
	uint32_t best = 0;
	for (uint32_t k = 0; k < n; k++) {
		int in = !tight || tight[ids[k]];
		double share = sum > 0 ? PROB(ids[k]) / sum : in ? 1.0 / ntight : 0.0;
		double exact = (double)total * share;
		uint64_t c = (uint64_t)floor(exact);
		if (given + c > total)
			c = total - given;
		cfg->edges[ids[k]].count = c;
		given += c;
		if (exact - (double)c > best_rem) {
			best_rem = exact - (double)c;
			best = k;
		}
	}
	/* at most n units short: hand them out from the largest remainder on */
	for (uint32_t k = 0; given < total; k = (k + 1) % n) {
		uint32_t j = (best + k) % n;
		if (sum > 0 ? !(PROB(ids[j]) > 0) : tight && !tight[ids[j]])
			continue;
		cfg->edges[ids[j]].count++;
		given++;
	}
#undef PROB
}

/* The probability of edge e among its source's out-edges (normalized). */
static double edge_share(const struct spgo_cfg *cfg, uint32_t e)
{
	const struct spgo_cfg_block *b = &cfg->blocks[cfg->edges[e].src];
	double sum = 0;
	for (uint32_t k = 0; k < b->nout; k++) {
		double p = cfg->edges[cfg->succ[b->out + k]].prob;
		sum += p > 0 ? p : 0;
	}
	double p = cfg->edges[e].prob;
	return sum > 0 ? (p > 0 ? p : 0) / sum : 1.0 / b->nout;
}

/*
 * The block frequencies of a cyclic region R between u and v: x(r) = sum
 * over predecessors p of x(p) * prob(p, r), with u sending its F units by
 * its probabilities, by the paper's queue iteration (a block whose value
 * moves by more than a small threshold puts its successors back on the
 * queue).  x and lid by local id (u = 0, R[i] = i + 1); 0 if the iteration
 * did not settle.
 */
static int region_frequencies(const struct spgo_cfg *cfg, uint32_t u, const uint32_t *R, size_t nr, uint32_t v,
			      const uint8_t *inR, const uint32_t *lid, uint64_t F, double *x)
{
	size_t nl = nr + 2;
	double *src = xcalloc(nl, sizeof *src);
	const struct spgo_cfg_block *ub = &cfg->blocks[u];
	for (uint32_t k = 0; k < ub->nout; k++) {
		uint32_t e = cfg->succ[ub->out + k], d = cfg->edges[e].dst;
		if (d != v)
			src[lid[d]] += (double)F * edge_share(cfg, e);
	}
	uint32_t *queue = xmalloc((nr + 1) * sizeof *queue);
	uint8_t *inq = xcalloc(nl, 1);
	size_t head = 0, len = 0, updates = 0, limit = 2000 * nr + 10000;
	for (size_t i = 0; i < nr; i++) {
		queue[len++] = R[i];
		inq[i + 1] = 1;
	}
	double eps = 1e-9 * (double)F + 1e-12;
	int settled = 1;
	while (len) {
		if (++updates > limit) {
			settled = 0;
			break;
		}
		uint32_t r = queue[head];
		head = (head + 1) % (nr + 1);
		len--;
		inq[lid[r]] = 0;
		const struct spgo_cfg_block *rb = &cfg->blocks[r];
		double nx = src[lid[r]];
		for (uint32_t k = 0; k < rb->nin; k++) {
			uint32_t e = cfg->pred[rb->in + k], p = cfg->edges[e].src;
			if (inR[p])
				nx += x[lid[p]] * edge_share(cfg, e);
		}
		if (fabs(nx - x[lid[r]]) <= eps)
			continue;
		x[lid[r]] = nx;
		for (uint32_t k = 0; k < rb->nout; k++) {
			uint32_t d = cfg->edges[cfg->succ[rb->out + k]].dst;
			if (inR[d] && !inq[lid[d]]) {
				inq[lid[d]] = 1;
				queue[(head + len++) % (nr + 1)] = d;
			}
		}
	}
	free(src);
	free(queue);
	free(inq);
	return settled;
}

/* A cyclic region's edge flows being rounded: local block ids u = 0,
 * R[i] = i + 1, v = nl - 1. */
struct rounding {
	const struct spgo_cfg *cfg;
	uint32_t u, v;
	const uint32_t *lid;
	size_t nl, ne;
	const uint32_t *es; /* the region's edges: u's and R's out-edges */
	double *y;          /* per region edge: the exact flow */
	int64_t *z;         /* per region edge: the rounded flow */
	int64_t *ex;        /* per local block: its excess (v: none kept) */
	uint32_t *prev, *bq; /* per local block: the search's way back, queue */
};

/* The local ids of the ends of region edge k. */
static inline void local_ends(const struct rounding *rd, size_t k, uint32_t *ls, uint32_t *ld)
{
	uint32_t e = rd->es[k], s0 = rd->cfg->edges[e].src, d = rd->cfg->edges[e].dst;
	*ls = s0 == rd->u ? 0 : rd->lid[s0];
	*ld = d == rd->v ? (uint32_t)(rd->nl - 1) : rd->lid[d];
}

/* Every edge flow x(src) * prob to its floor, and the excess that leaves:
 * u must send exactly F, R blocks conserve, v absorbs.  0 if u already
 * sends more than F. */
static int round_down(struct rounding *rd, uint64_t F, const double *x)
{
	const struct spgo_cfg *cfg = rd->cfg;
	for (size_t k = 0; k < rd->ne; k++) {
		uint32_t e = rd->es[k], s0 = cfg->edges[e].src;
		rd->y[k] = (s0 == rd->u ? (double)F : x[rd->lid[s0]]) * edge_share(cfg, e);
		rd->z[k] = (int64_t)floor(rd->y[k] + 1e-4); /* 3999.99999 is 4000 */
		if ((double)rd->z[k] > rd->y[k])
			rd->y[k] = (double)rd->z[k];
	}
	int64_t left = (int64_t)F;
	for (size_t k = 0; k < rd->ne; k++) {
		uint32_t ls, ld;
		local_ends(rd, k, &ls, &ld);
		if (ls == 0) /* (only u has local id 0) */
			left -= rd->z[k];
		else
			rd->ex[ls] -= rd->z[k];
		if (ld != rd->nl - 1)
			rd->ex[ld] += rd->z[k];
	}
	rd->ex[0] = left;
	return left >= 0;
}

/* A breadth-first search from block from, over edges that may take one
 * more unit (below their ceiling) or give one back (above their floor),
 * to v or a block in deficit; returns it (prev holds the way), or
 * SPGO_NONE. */
static uint32_t excess_path(struct rounding *rd, uint32_t from)
{
	size_t nl = rd->nl;
	for (size_t i = 0; i < nl; i++)
		rd->prev[i] = SPGO_NONE;
	size_t qh = 0, qt = 0;
	rd->bq[qt++] = from;
	rd->prev[from] = UINT32_MAX - 1;
	while (qh < qt) {
		uint32_t a = rd->bq[qh++];
		for (size_t k = 0; k < rd->ne; k++) {
			uint32_t ls, ld, b = SPGO_NONE;
			local_ends(rd, k, &ls, &ld);
			if (ls == a && (double)rd->z[k] < ceil(rd->y[k]) - 1e-12)
				b = ld; /* one more on e */
			else if (ld == a && ld != nl - 1 && (double)rd->z[k] > floor(rd->y[k]) + 1e-12)
				b = ls; /* one less on e */
			if (b == SPGO_NONE || rd->prev[b] != SPGO_NONE)
				continue;
			rd->prev[b] = (uint32_t)k;
			rd->bq[qt++] = b;
			if (b == nl - 1 || (b != 0 && rd->ex[b] < 0))
				return b;
		}
	}
	return SPGO_NONE;
}

/* Move every positive excess one unit at a time to v or a deficit, along
 * excess_path's ways; 1 if then every block conserves. */
static int move_excess(struct rounding *rd)
{
	size_t nl = rd->nl;
	for (size_t guard = 0;; guard++) {
		uint32_t from = SPGO_NONE;
		for (size_t i = 0; i < nl - 1 && from == SPGO_NONE; i++)
			if (rd->ex[i] > 0)
				from = (uint32_t)i;
		if (from == SPGO_NONE)
			break;
		if (guard > 4 * rd->ne + 16)
			return 0;
		uint32_t to = excess_path(rd, from);
		if (to == SPGO_NONE)
			return 0;
		for (uint32_t b = to; b != from;) {
			size_t k = rd->prev[b];
			uint32_t ls, ld;
			local_ends(rd, k, &ls, &ld);
			if (ld == b && ls != b && (double)rd->z[k] < ceil(rd->y[k]) - 1e-12 && rd->prev[ls] != SPGO_NONE) {
				rd->z[k]++;
				b = ls;
			} else {
				rd->z[k]--;
				b = ld;
			}
		}
		rd->ex[from]--;
		if (to != nl - 1)
			rd->ex[to]++;
	}
	for (size_t i = 0; i < nl - 1; i++)
		if (rd->ex[i] != 0)
			return 0; /* every block conserves */
	return 1;
}

/*
 * A cyclic dangling subgraph R between u and v (section 3.4): block
 * frequencies by the paper's queue iteration (region_frequencies).  Edge
 * flows x(src) * prob are then rounded to integers that conserve at every
 * block: each edge starts at floor and the leftover units travel, one at a
 * time, along edges that still have a fractional part (a BFS towards v);
 * an integral rounding within [floor, ceil] always exists.  When the
 * iteration does not settle or a unit finds no way, the solver's routing
 * stays.
 */
static void rebalance_cyclic(struct spgo_cfg *cfg, uint32_t u, const uint32_t *R, size_t nr, uint32_t v,
			     const uint8_t *inR)
{
	size_t nb = cfg->nblocks;
	/* local ids: u = 0, R[i] = i + 1, v = nr + 1 */
	uint32_t *lid = xmalloc(nb * sizeof *lid);
	for (size_t i = 0; i < nr; i++)
		lid[R[i]] = (uint32_t)(i + 1);
	lid[u] = 0;
	size_t nl = nr + 2;
	double *x = xcalloc(nl, sizeof *x);
	const struct spgo_cfg_block *ub = &cfg->blocks[u];
	uint64_t F = 0;
	for (uint32_t k = 0; k < ub->nout; k++)
		F += cfg->edges[cfg->succ[ub->out + k]].count;
	int settled = region_frequencies(cfg, u, R, nr, v, inR, lid, F, x);
	/* the region's edges: u's and R's out-edges */
	VEC(uint32_t) es = {0};
	for (uint32_t k = 0; k < ub->nout; k++)
		VEC_PUSH(&es, cfg->succ[ub->out + k]);
	for (size_t i = 0; i < nr; i++)
		for (uint32_t k = 0; k < cfg->blocks[R[i]].nout; k++)
			VEC_PUSH(&es, cfg->succ[cfg->blocks[R[i]].out + k]);
	size_t ne = es.n;
	struct rounding rd = {
		.cfg = cfg, .u = u, .v = v, .lid = lid, .nl = nl, .ne = ne, .es = es.v,
		.y = xmalloc((ne + 1) * sizeof *rd.y), .z = xmalloc((ne + 1) * sizeof *rd.z),
		.ex = xcalloc(nl, sizeof *rd.ex), .prev = xmalloc(nl * sizeof *rd.prev), .bq = xmalloc(nl * sizeof *rd.bq),
	};
	if (settled && round_down(&rd, F, x) && move_excess(&rd)) {
		for (size_t k = 0; k < ne; k++)
			cfg->edges[es.v[k]].count = (uint64_t)rd.z[k];
		for (size_t i = 0; i < nr; i++) {
			const struct spgo_cfg_block *rb = &cfg->blocks[R[i]];
			uint64_t c = 0;
			for (uint32_t k = 0; k < rb->nin; k++)
				c += cfg->edges[cfg->pred[rb->in + k]].count;
			cfg->blocks[R[i]].count = c;
		}
	}
	VEC_FREE(&es);
	free(lid);
	free(x);
	free(rd.y);
	free(rd.z);
	free(rd.ex);
	free(rd.prev);
	free(rd.bq);
}

/* What a unit on edge e of a region costs on its way to the region's
 * sampled exit v: the edge's layout term, and, into a region block, the
 * dangling block's term plus the cheapest way on from there (dist). */
static int64_t edge_cost(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o, uint32_t e,
			 const uint8_t *inR, const int64_t *dist)
{
	uint32_t d = cfg->edges[e].dst;
	int64_t c = o->k_layout && edge_against_layout(cfg, e) ? o->k_layout : 0;
	if (inR[d])
		c += o->k_unknown_inc + dist[d];
	return c;
}

void flow_rebalance_dangling(struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	int cyclic = o->rebalance_cyclic;
	size_t nb = cfg->nblocks;
	/* Anything to do: a sampled block with flow into a dangling one? */
	int any = 0;
	for (uint32_t u = 0; u < nb && !any; u++) {
		const struct spgo_cfg_block *ub = &cfg->blocks[u];
		if (ub->weight == SPGO_WEIGHT_UNKNOWN || ub->count == 0)
			continue;
		for (uint32_t k = 0; k < ub->nout && !any; k++) {
			uint32_t d = cfg->edges[cfg->succ[ub->out + k]].dst;
			any = cfg->blocks[d].weight == SPGO_WEIGHT_UNKNOWN && d != u;
		}
	}
	if (!any)
		return;
	/* With dangling or layout costs, routes through a region differ in
	 * the objective: the flow is split only over the cheapest ones (so
	 * that rebalancing never makes the L1 cost higher). */
	int costed = o->k_unknown_inc != 0 || o->k_layout != 0;
	/* one zeroed block for all: R, indeg, topo; dist (costed, aligned);
	 * done, inR; tight (costed) */
	size_t ne = cfg->nedges, ndist = costed ? nb + 1 : 0;
	size_t bytes = 3 * (nb + 1) * sizeof(uint32_t) + 8 + ndist * sizeof(int64_t) + 2 * nb + (costed ? ne + 1 : 0);
	_Alignas(16) char small[4096]; /* small CFGs: no allocation */
	uint32_t *R = bytes <= sizeof small ? memset(small, 0, bytes) : xcalloc(bytes, 1);
	uint32_t *indeg = R + nb + 1, *topo = indeg + nb + 1;
	int64_t *dist = costed ? (int64_t *)(void *)(topo + nb + 1 + ((nb + 1) & 1)) : NULL;
	uint8_t *done = costed ? (uint8_t *)(dist + ndist) : (uint8_t *)(topo + nb + 1), *inR = done + nb;
	uint8_t *tight_buf = costed ? inR + nb : NULL;

#define DANGLING(b) (cfg->blocks[b].weight == SPGO_WEIGHT_UNKNOWN)
	for (uint32_t u = 0; u < nb; u++) {
		const struct spgo_cfg_block *ub = &cfg->blocks[u];
		if (DANGLING(u) || ub->count == 0)
			continue;
		int any = 0;
		for (uint32_t k = 0; k < ub->nout; k++) {
			uint32_t d = cfg->edges[cfg->succ[ub->out + k]].dst;
			any |= DANGLING(d) && !done[d] && d != u;
		}
		if (!any)
			continue;
		/* Collect the region and its sampled exits. */
		size_t nr = 0;
		uint32_t v = SPGO_NONE;
		int bad = 0;
		/* Breadth-first from u over dangling blocks: u itself, then
		 * each region block in turn (index -1 stands for u). */
		for (ptrdiff_t i = -1; i < (ptrdiff_t)nr; i++) {
			uint32_t r = i < 0 ? u : R[i];
			const struct spgo_cfg_block *rb = &cfg->blocks[r];
			if (i >= 0 && (spgo_cfg_is_exit(cfg, r) || done[r] || r == cfg->entry))
				bad = 1;
			for (uint32_t k = 0; k < rb->nout; k++) {
				uint32_t d = cfg->edges[cfg->succ[rb->out + k]].dst;
				if (!DANGLING(d)) {
					if (v != SPGO_NONE && v != d)
						bad = 1;
					v = d;
				} else if (!inR[d]) {
					inR[d] = 1;
					R[nr++] = d;
				}
			}
		}
		/* Single entry: every predecessor of a region block is u or in
		 * the region.  Then Kahn's algorithm for a topological order. */
		for (size_t i = 0; i < nr && !bad; i++) {
			const struct spgo_cfg_block *rb = &cfg->blocks[R[i]];
			indeg[R[i]] = 0;
			for (uint32_t k = 0; k < rb->nin; k++) {
				uint32_t p = cfg->edges[cfg->pred[rb->in + k]].src;
				if (p != u && !inR[p])
					bad = 1;
				if (inR[p])
					indeg[R[i]]++;
			}
		}
		size_t nt = 0;
		if (!bad) {
			for (size_t i = 0; i < nr; i++)
				if (indeg[R[i]] == 0)
					topo[nt++] = R[i];
			for (size_t i = 0; i < nt; i++) {
				const struct spgo_cfg_block *rb = &cfg->blocks[topo[i]];
				for (uint32_t k = 0; k < rb->nout; k++) {
					uint32_t d = cfg->edges[cfg->succ[rb->out + k]].dst;
					if (inR[d] && --indeg[d] == 0)
						topo[nt++] = d;
				}
			}
			if (nt != nr) {
				/* a cycle: the paper's iterative method */
				if (cyclic && v != SPGO_NONE && v != u)
					rebalance_cyclic(cfg, u, R, nr, v, inR);
				bad = 1;
			}
		}
		if (!bad && v != SPGO_NONE) {
			/* The cheapest way on to v from each block, by the
			 * objective's terms (in reverse topological order), and
			 * the edges on such ways. */
			uint8_t *tight = NULL;
			if (costed) {
				tight = tight_buf;
				for (size_t j = 0; j <= nt; j++) {
					uint32_t r = j < nt ? topo[nt - 1 - j] : u;
					const struct spgo_cfg_block *rb = &cfg->blocks[r];
					int64_t best = INT64_MAX;
					for (uint32_t k = 0; k < rb->nout; k++) {
						uint32_t e = cfg->succ[rb->out + k];
						int64_t c = edge_cost(cfg, o, e, inR, dist);
						if (c < best)
							best = c;
					}
					for (uint32_t k = 0; k < rb->nout; k++) {
						uint32_t e = cfg->succ[rb->out + k];
						tight[e] = edge_cost(cfg, o, e, inR, dist) == best;
					}
					dist[r] = best;
				}
			}
			uint64_t F = 0;
			for (uint32_t k = 0; k < ub->nout; k++)
				F += cfg->edges[cfg->succ[ub->out + k]].count;
			split_by_prob(cfg, &cfg->succ[ub->out], ub->nout, F, tight);
			for (size_t i = 0; i < nt; i++) {
				struct spgo_cfg_block *rb = &cfg->blocks[topo[i]];
				uint64_t c = 0;
				for (uint32_t k = 0; k < rb->nin; k++)
					c += cfg->edges[cfg->pred[rb->in + k]].count;
				rb->count = c;
				split_by_prob(cfg, &cfg->succ[rb->out], rb->nout, c, tight);
			}
		}
		for (size_t i = 0; i < nr; i++) {
			done[R[i]] = 1;
			inR[R[i]] = 0;
		}
	}
#undef DANGLING
	if ((char *)R != small)
		free(R);
}
