/*
 * exttsp.c: basic-block order by the extended TSP model (A. Newell and
 * S. Pupyrev, "Improved Basic Block Reordering", IEEE Transactions on
 * Computers 2020; the block layout of BOLT, LLVM's MachineBlockPlacement
 * with -enable-ext-tsp-block-placement, and Propeller).
 *
 * The score of a layout sums, over the jumps src -> dst with count c, with
 * src ending at address e and dst starting at address a:
 *   fall-through (e == a)            c * 1
 *   forward jump, d = a - e <= 1024  c * 0.1 * (1 - d / 1024)
 *   backward jump, d = e - a <= 640  c * 0.1 * (1 - d / 640)
 * and 0 for longer jumps (the distances and weights of the paper and of
 * LLVM's CodeLayout; LLVM gives unconditional fall-throughs 1.05, here all
 * are 1).
 *
 * The heuristic is the paper's greedy chain merging.  Every block starts
 * as a chain of its own.  Each round looks at every pair of chains joined
 * by a jump and at the ways of gluing them: X Y and Y X, and, X cut at
 * each position into X1 X2 (chains up to SPLIT_MAX blocks), X1 Y X2,
 * Y X2 X1 and X2 X1 Y; the pair and the way with the largest gain in
 * score are merged.  A layout must begin with the entry block (node 0),
 * so a merge whose result would not is never taken.  Rounds stop when no
 * merge gains; the chains left are then placed the entry's first, the
 * others by decreasing density (count per byte).  Gains are kept per pair
 * and recomputed only for the pairs of the chain a merge changed.  The
 * greedy result can score below the original order (the node numbering):
 * then the original is kept, as LLVM's MachineBlockPlacement does.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/layout_impl.h"

#define FORWARD_DISTANCE 1024.0
#define BACKWARD_DISTANCE 640.0
#define JUMP_WEIGHT 0.1
#define SPLIT_MAX 128 /* chains longer than this are not cut */
#define EPS 1e-9

/* One jump's share of the score with its ends at these addresses. */
static double jump_score(uint64_t src_end, uint64_t dst_addr, uint64_t count)
{
	if (src_end == dst_addr)
		return (double)count;
	if (src_end < dst_addr) {
		double d = (double)(dst_addr - src_end);
		return d > FORWARD_DISTANCE ? 0 : JUMP_WEIGHT * (1 - d / FORWARD_DISTANCE) * (double)count;
	}
	double d = (double)(src_end - dst_addr);
	return d > BACKWARD_DISTANCE ? 0 : JUMP_WEIGHT * (1 - d / BACKWARD_DISTANCE) * (double)count;
}

struct xt {
	const struct lay_xt_graph *g;
	long *chain_of;        /* node -> chain id */
	uint64_t *addr;        /* node -> address in the candidate being scored */
	VEC(long) *nodes;      /* chain id -> its nodes in order (empty: merged away) */
	double *score;         /* chain id -> its own score */
	uint64_t *count, *size; /* chain id -> totals */
	size_t *out_first;     /* node -> first index in the by-source jump list */
	size_t *by_src;        /* jump indices sorted by source node */
};

/* The score of the jumps inside the chains a and b (b may be -1) when laid
 * out as the concatenation of the given segments. */
static double score_of(struct xt *X, long a, long b, const long *const *seg, const size_t *len, int nseg)
{
	uint64_t at = 0;
	for (int s = 0; s < nseg; s++)
		for (size_t i = 0; i < len[s]; i++) {
			X->addr[seg[s][i]] = at;
			at += X->g->size[seg[s][i]];
		}
	double sum = 0;
	for (int s = 0; s < nseg; s++)
		for (size_t i = 0; i < len[s]; i++) {
			long n = seg[s][i];
			for (size_t k = X->out_first[n]; k < X->out_first[n + 1]; k++) {
				const struct lay_xt_jump *j = &X->g->jumps[X->by_src[k]];
				long cd = X->chain_of[j->dst];
				if (cd != a && cd != b)
					continue;
				sum += jump_score(X->addr[n] + X->g->size[n], X->addr[j->dst], j->count);
			}
		}
	return sum;
}

/* A merge of chains x (maybe cut at `cut`, 0: not cut) and y, as one of
 * the five ways of gluing. */
enum glue { X_Y, Y_X, X1_Y_X2, Y_X2_X1, X2_X1_Y };
struct merge {
	double gain;
	long x, y;
	size_t cut;
	enum glue how;
};

/* The segments of a merge, in layout order; returns how many. */
static int segments(struct xt *X, const struct merge *m, const long **seg, size_t *len)
{
	const long *xs = X->nodes[m->x].v, *ys = X->nodes[m->y].v;
	size_t xn = X->nodes[m->x].n, yn = X->nodes[m->y].n, c = m->cut;
	switch (m->how) {
	case X_Y: seg[0] = xs, len[0] = xn, seg[1] = ys, len[1] = yn; return 2;
	case Y_X: seg[0] = ys, len[0] = yn, seg[1] = xs, len[1] = xn; return 2;
	case X1_Y_X2: seg[0] = xs, len[0] = c, seg[1] = ys, len[1] = yn, seg[2] = xs + c, len[2] = xn - c; return 3;
	case Y_X2_X1: seg[0] = ys, len[0] = yn, seg[1] = xs + c, len[1] = xn - c, seg[2] = xs, len[2] = c; return 3;
	case X2_X1_Y: seg[0] = xs + c, len[0] = xn - c, seg[1] = xs, len[1] = c, seg[2] = ys, len[2] = yn; return 3;
	}
	return 0;
}

/* The best way to merge chains x and y, both orders and every cut. */
static struct merge best_merge(struct xt *X, long x, long y)
{
	struct merge best = {.gain = -1, .x = x, .y = y};
	double base = X->score[x] + X->score[y];
	for (int side = 0; side < 2; side++) {
		long a = side ? y : x, b = side ? x : y; /* a is the one cut */
		size_t an = X->nodes[a].n;
		size_t cuts = an <= SPLIT_MAX ? an : 1;
		for (size_t c = 0; c < cuts; c++)
			for (int h = 0; h < 5; h++) {
				if (c == 0 && h >= X1_Y_X2)
					continue;
				if (c > 0 && h < X1_Y_X2)
					continue;
				if (side == 1 && c == 0)
					continue; /* X Y and Y X are the same from either side */
				struct merge m = {.x = a, .y = b, .cut = c, .how = (enum glue)h};
				const long *seg[3];
				size_t len[3];
				int ns = segments(X, &m, seg, len);
				if (seg[0][0] != 0 && (X->chain_of[0] == a || X->chain_of[0] == b))
					continue; /* the entry block must stay first */
				m.gain = score_of(X, a, b, seg, len, ns) - base;
				if (m.gain > best.gain + EPS)
					best = m;
			}
	}
	return best;
}

static void do_merge(struct xt *X, const struct merge *m)
{
	const long *seg[3];
	size_t len[3];
	int ns = segments(X, m, seg, len);
	VEC(long) v = {0};
	for (int s = 0; s < ns; s++)
		for (size_t i = 0; i < len[s]; i++)
			VEC_PUSH(&v, seg[s][i]);
	for (size_t i = 0; i < v.n; i++)
		X->chain_of[v.v[i]] = m->x;
	VEC_FREE(&X->nodes[m->x]);
	VEC_FREE(&X->nodes[m->y]);
	X->nodes[m->x].v = v.v, X->nodes[m->x].n = v.n, X->nodes[m->x].cap = v.cap;
	X->count[m->x] += X->count[m->y], X->size[m->x] += X->size[m->y];
	const long *all = v.v;
	size_t n = v.n;
	X->score[m->x] = score_of(X, m->x, -1, &all, &n, 1);
	X->score[m->y] = 0;
}

static const struct xt *sort_xt;

static int by_src(const void *a, const void *b)
{
	long x = sort_xt->g->jumps[*(const size_t *)a].src, y = sort_xt->g->jumps[*(const size_t *)b].src;
	return x < y ? -1 : x > y;
}

/* Entry chain first, then denser first (ties: lower chain id). */
static int by_density(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	if (x == sort_xt->chain_of[0] || y == sort_xt->chain_of[0])
		return x == sort_xt->chain_of[0] ? -1 : 1;
	unsigned __int128 dx = (unsigned __int128)sort_xt->count[x] * (sort_xt->size[y] ? sort_xt->size[y] : 1);
	unsigned __int128 dy = (unsigned __int128)sort_xt->count[y] * (sort_xt->size[x] ? sort_xt->size[x] : 1);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

void lay_exttsp(const struct lay_xt_graph *g, long *order)
{
	size_t n = g->n;
	struct xt X = {.g = g};
	X.chain_of = xcalloc(n, sizeof *X.chain_of);
	X.addr = xcalloc(n, sizeof *X.addr);
	X.nodes = xcalloc(n, sizeof *X.nodes);
	X.score = xcalloc(n, sizeof *X.score);
	X.count = xcalloc(n, sizeof *X.count);
	X.size = xcalloc(n, sizeof *X.size);
	X.out_first = xcalloc(n + 1, sizeof *X.out_first);
	X.by_src = xcalloc(g->njumps + 1, sizeof *X.by_src);
	for (size_t i = 0; i < g->njumps; i++)
		X.by_src[i] = i;
	sort_xt = &X;
	qsort(X.by_src, g->njumps, sizeof *X.by_src, by_src);
	for (size_t i = 0; i < g->njumps; i++)
		X.out_first[g->jumps[i].src + 1]++;
	for (size_t i = 0; i < n; i++)
		X.out_first[i + 1] += X.out_first[i];
	for (size_t i = 0; i < n; i++) {
		X.chain_of[i] = (long)i;
		VEC_PUSH(&X.nodes[i], (long)i);
		X.count[i] = g->count[i], X.size[i] = g->size[i];
	}
	for (size_t i = 0; i < n; i++) {
		const long *one = X.nodes[i].v;
		size_t len = 1;
		X.score[i] = score_of(&X, (long)i, -1, &one, &len, 1);
	}
	/* the candidate pairs: one per pair of chains joined by a jump */
	struct spgo_kmap seen;
	spgo_kmap_init(&seen, 2);
	VEC(struct merge) cand = {0};
	for (size_t i = 0; i < g->njumps; i++) {
		long a = g->jumps[i].src, b = g->jumps[i].dst;
		if (a == b)
			continue;
		uint64_t key[2] = {(uint64_t)(a < b ? a : b), (uint64_t)(a < b ? b : a)};
		uint64_t *v = spgo_kmap_upsert(&seen, key);
		if (*v)
			continue;
		*v = 1;
		struct merge m = best_merge(&X, (long)key[0], (long)key[1]);
		VEC_PUSH(&cand, m);
	}
	spgo_kmap_free(&seen);
	for (;;) {
		size_t bi = SIZE_MAX;
		for (size_t i = 0; i < cand.n; i++)
			if (cand.v[i].gain > EPS && (bi == SIZE_MAX || cand.v[i].gain > cand.v[bi].gain + EPS))
				bi = i;
		if (bi == SIZE_MAX)
			break;
		struct merge m = cand.v[bi];
		do_merge(&X, &m);
		/* pairs of the merged chains now name m.x; drop self and duplicate
		 * pairs and recompute the gains that changed */
		size_t k = 0;
		spgo_kmap_init(&seen, 2);
		for (size_t i = 0; i < cand.n; i++) {
			struct merge c = cand.v[i];
			long a = c.x == m.y ? m.x : c.x, b = c.y == m.y ? m.x : c.y;
			if (a == b)
				continue;
			uint64_t key[2] = {(uint64_t)(a < b ? a : b), (uint64_t)(a < b ? b : a)};
			uint64_t *v = spgo_kmap_upsert(&seen, key);
			if (*v)
				continue;
			*v = 1;
			if (a == m.x || b == m.x)
				c = best_merge(&X, (long)key[0], (long)key[1]);
			cand.v[k++] = c;
		}
		cand.n = k;
		spgo_kmap_free(&seen);
	}
	VEC_FREE(&cand);
	/* the chains left: the entry's first, then by density */
	long *chains = xcalloc(n, sizeof *chains);
	size_t nc = 0;
	for (size_t i = 0; i < n; i++)
		if (X.nodes[i].n)
			chains[nc++] = (long)i;
	qsort(chains, nc, sizeof *chains, by_density);
	size_t at = 0;
	for (size_t c = 0; c < nc; c++)
		for (size_t i = 0; i < X.nodes[chains[c]].n; i++)
			order[at++] = X.nodes[chains[c]].v[i];
	free(chains);
	/* keep the original order when the merging did not beat it */
	long *ident = xcalloc(n + 1, sizeof *ident);
	for (size_t i = 0; i < n; i++)
		ident[i] = (long)i;
	if (lay_exttsp_score(g, ident) > lay_exttsp_score(g, order) + EPS)
		memcpy(order, ident, n * sizeof *order);
	free(ident);
	for (size_t i = 0; i < n; i++)
		VEC_FREE(&X.nodes[i]);
	free(X.chain_of), free(X.addr), free(X.nodes), free(X.score), free(X.count), free(X.size);
	free(X.out_first), free(X.by_src);
}

double lay_exttsp_score(const struct lay_xt_graph *g, const long *order)
{
	uint64_t *addr = xcalloc(g->n + 1, sizeof *addr), at = 0;
	for (size_t i = 0; i < g->n; i++)
		addr[order[i]] = at, at += g->size[order[i]];
	double sum = 0;
	for (size_t i = 0; i < g->njumps; i++) {
		const struct lay_xt_jump *j = &g->jumps[i];
		sum += jump_score(addr[j->src] + g->size[j->src], addr[j->dst], j->count);
	}
	free(addr);
	return sum;
}
