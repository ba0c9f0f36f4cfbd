/*
 * Post-processing of a conserving flow (Algorithm 1's last two steps).
 *
 * JoinIsolatedComponents (section 3.2): a min-cost flow may hold "islands",
 * positive cycles that no positive path from the entry reaches.  For each,
 * we find the cheapest path from the entry to it (edges that already carry
 * flow cost 0, others 1: a 0-1 BFS) and from it to an exit, and push one
 * unit along both.  Flow on blocks that cannot be reached from the entry
 * at all, or that cannot reach an exit, is a closed circulation (no positive
 * edge enters or leaves such a set, by conservation) and is removed.
 *
 * RebalanceDanglingSubgraphs (section 3.4): where a sampled block u leads
 * into a region of dangling blocks that is entered only from u and left
 * only into one sampled block v, how the flow crosses the region does not
 * change the objective, so the solver's route is arbitrary.  We route it
 * by the branch probabilities instead, in topological order (equation 1).
 * Cyclic regions are left as the solver routed them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

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
 * 0-1 BFS from start; returns the first block popped for which want(b)
 * holds (SPGO_NONE if none), with via[] the edge into each block.
 */
static uint32_t bfs01(const struct spgo_cfg *cfg, uint32_t start, const uint8_t *target, int target_exit,
		      uint32_t *dist, uint32_t *via, uint32_t *dq, uint8_t *settled)
{
	size_t nb = cfg->nblocks, cap = nb + cfg->nedges + 2;
	size_t head = 0, len = 0; /* a ring; each edge pushes at most once */
	for (size_t b = 0; b < nb; b++)
		dist[b] = UINT32_MAX, settled[b] = 0;
	dist[start] = 0;
	via[start] = SPGO_NONE;
	dq[0] = start;
	len = 1;
	while (len) {
		uint32_t u = dq[head];
		head = (head + 1) % cap;
		len--;
		if (settled[u])
			continue;
		settled[u] = 1;
		if (target_exit ? spgo_cfg_is_exit(cfg, u) : target[u])
			return u;
		const struct spgo_cfg_block *b = &cfg->blocks[u];
		for (uint32_t k = 0; k < b->nout; k++) {
			uint32_t e = cfg->succ[b->out + k];
			uint32_t v = cfg->edges[e].dst, w = cfg->edges[e].count > 0 ? 0 : 1;
			if (dist[u] + w < dist[v]) {
				dist[v] = dist[u] + w;
				via[v] = e;
				if (w == 0) {
					head = (head + cap - 1) % cap;
					dq[head] = v;
				} else {
					dq[(head + len) % cap] = v;
				}
				len++;
			}
		}
	}
	return SPGO_NONE;
}

/* Add one unit along the path ending at v (via[] from the BFS), not
 * counting its first block. */
static void push_path(struct spgo_cfg *cfg, uint32_t v, const uint32_t *via)
{
	while (via[v] != SPGO_NONE) {
		struct spgo_cfg_edge *e = &cfg->edges[via[v]];
		e->count++;
		cfg->blocks[v].count++;
		v = e->src;
	}
}

void flow_join_islands(struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks;
	uint8_t *mark = xcalloc(nb, 1), *from_entry = xcalloc(nb, 1), *island = xcalloc(nb, 1);
	uint32_t *stack = xmalloc((nb + 1) * sizeof *stack);
	uint32_t *dist = xmalloc(nb * sizeof *dist), *via = xmalloc(nb * sizeof *via);
	uint32_t *dq = xmalloc((nb + cfg->nedges + 2) * sizeof *dq);
	uint8_t *settled = xmalloc(nb);

	/* Blocks reachable from the entry that reach an exit. */
	search(cfg, &cfg->entry, 1, 1, 0, from_entry, stack);
	size_t nexit = 0;
	for (uint32_t b = 0; b < nb; b++)
		if (spgo_cfg_is_exit(cfg, b))
			stack[nexit++] = b;
	uint32_t *exits = xmalloc((nexit + 1) * sizeof *exits);
	memcpy(exits, stack, nexit * sizeof *exits);
	search(cfg, exits, nexit, 0, 0, mark, stack);
	free(exits);
	for (size_t b = 0; b < nb; b++)
		mark[b] &= from_entry[b];
	zero_outside(cfg, mark);

	for (;;) {
		memset(from_entry, 0, nb);
		search(cfg, &cfg->entry, 1, 1, 1, from_entry, stack);
		size_t nisland = 0;
		for (size_t b = 0; b < nb; b++) {
			island[b] = cfg->blocks[b].count > 0 && !from_entry[b];
			nisland += island[b];
		}
		if (!nisland)
			break;
		uint32_t x = bfs01(cfg, cfg->entry, island, 0, dist, via, dq, settled);
		if (x == SPGO_NONE)
			break; /* cannot happen after zero_outside */
		cfg->blocks[cfg->entry].count++;
		push_path(cfg, x, via);
		uint32_t t = bfs01(cfg, x, NULL, 1, dist, via, dq, settled);
		if (t == SPGO_NONE)
			break; /* cannot happen either */
		push_path(cfg, t, via);
	}
	free(mark);
	free(from_entry);
	free(island);
	free(stack);
	free(dist);
	free(via);
	free(dq);
	free(settled);
}

/* Split total over edges ids[0..n) by their probabilities, rounding by
 * largest remainder so that the parts add up exactly. */
static void split_by_prob(struct spgo_cfg *cfg, const uint32_t *ids, uint32_t n, uint64_t total)
{
	double sum = 0;
	for (uint32_t k = 0; k < n; k++) {
		double p = cfg->edges[ids[k]].prob;
		sum += p > 0 ? p : 0;
	}
	uint64_t given = 0;
	double best_rem = -1;
	uint32_t best = 0;
	for (uint32_t k = 0; k < n; k++) {
		double p = cfg->edges[ids[k]].prob;
		double share = sum > 0 ? (p > 0 ? p : 0) / sum : 1.0 / n;
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
		double p = cfg->edges[ids[j]].prob;
		if (sum > 0 && !(p > 0))
			continue;
		cfg->edges[ids[j]].count++;
		given++;
	}
}

void flow_rebalance_dangling(struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks;
	uint8_t *done = xcalloc(nb, 1), *inR = xcalloc(nb, 1);
	uint32_t *R = xmalloc((nb + 1) * sizeof *R), *indeg = xcalloc(nb, sizeof *indeg);
	uint32_t *topo = xmalloc((nb + 1) * sizeof *topo);
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
		size_t nr = 0, head = 0;
		uint32_t v = SPGO_NONE;
		int bad = 0;
		for (uint32_t k = 0; k < ub->nout; k++) {
			uint32_t d = cfg->edges[cfg->succ[ub->out + k]].dst;
			if (!DANGLING(d)) {
				if (v != SPGO_NONE && v != d)
					bad = 1;
				v = d;
			} else if (!inR[d]) {
				inR[d] = 1;
				R[nr++] = d;
			}
		}
		while (head < nr) {
			uint32_t r = R[head++];
			const struct spgo_cfg_block *rb = &cfg->blocks[r];
			if (spgo_cfg_is_exit(cfg, r) || done[r])
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
			if (nt != nr)
				bad = 1; /* a cycle */
		}
		if (!bad && v != SPGO_NONE) {
			uint64_t F = 0;
			for (uint32_t k = 0; k < ub->nout; k++)
				F += cfg->edges[cfg->succ[ub->out + k]].count;
			split_by_prob(cfg, &cfg->succ[ub->out], ub->nout, F);
			for (size_t i = 0; i < nt; i++) {
				struct spgo_cfg_block *rb = &cfg->blocks[topo[i]];
				uint64_t c = 0;
				for (uint32_t k = 0; k < rb->nin; k++)
					c += cfg->edges[cfg->pred[rb->in + k]].count;
				rb->count = c;
				split_by_prob(cfg, &cfg->succ[rb->out], rb->nout, c);
			}
		}
		for (size_t i = 0; i < nr; i++) {
			done[R[i]] = 1;
			inR[R[i]] = 0;
		}
	}
#undef DANGLING
	free(done);
	free(inR);
	free(R);
	free(indeg);
	free(topo);
}
