/*
 * The top-down order of the pre-inliner's profiled call graph (llvm-profgen
 * 19's, through LLVM's scc_iterator and scc_member_iterator): Tarjan's
 * SCCs from a root linked to every function in name order, children in
 * edge order, the list of SCCs reversed; the members of a cyclic SCC
 * ordered by a maximum spanning forest of its edges walked breadth first,
 * then reversed.  Callers come before their callees wherever the graph
 * allows it.
 */
#include <stdlib.h>

#include "context/context_impl.h"

/* Order the members of a cyclic SCC (LLVM's scc_member_iterator): a
 * maximum spanning forest of the SCC's edges (Kruskal, heavier first,
 * ties in insertion order), walked breadth first from its roots in the
 * order of the sorted edges, then reversed. */
struct uf {
	uint32_t group, rank;
};
static uint32_t uf_find(struct uf *u, uint32_t x)
{
	while (u[x].group != x) {
		u[x].group = u[u[x].group].group;
		x = u[x].group;
	}
	return x;
}

static const uint64_t *sort_w;
static int cmp_weight(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_w[x] != sort_w[y])
		return sort_w[x] > sort_w[y] ? -1 : 1;
	return 0;
}

static void order_scc(const struct cs_callgraph *g, uint32_t *scc, size_t n, int32_t *pos)
{
	/* pos[node] = index in scc, -1 outside */
	VEC(uint32_t) es = {0};
	for (size_t i = 0; i < n; i++)
		for (uint32_t e = g->edge_first[scc[i]]; e < g->edge_first[scc[i] + 1]; e++)
			if (pos[g->edge_to[e]] >= 0)
				VEC_PUSH(&es, e);
	/* a stable sort by weight, heavier first (a multiset keeps insertion order) */
	uint64_t *w = xmalloc((es.n + 1) * sizeof *w);
	uint32_t *idx = xmalloc((es.n + 1) * sizeof *idx);
	for (size_t i = 0; i < es.n; i++)
		idx[i] = (uint32_t)i, w[i] = g->edge_w[es.v[i]];
	sort_w = w;
	for (size_t i = 1; i < es.n; i++) /* insertion sort: stable */
		for (size_t j = i; j > 0 && cmp_weight(&idx[j - 1], &idx[j]) > 0; j--) {
			uint32_t t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	struct uf *u = xmalloc(n * sizeof *u);
	for (size_t i = 0; i < n; i++)
		u[i].group = (uint32_t)i, u[i].rank = 0;
	uint8_t *mst = xcalloc(es.n + 1, 1);
	uint32_t *src = xmalloc((es.n + 1) * sizeof *src);
	/* sources of the SCC edges */
	{
		size_t j = 0;
		for (size_t i = 0; i < n; i++)
			for (uint32_t e = g->edge_first[scc[i]]; e < g->edge_first[scc[i] + 1]; e++)
				if (pos[g->edge_to[e]] >= 0)
					src[j++] = (uint32_t)i;
	}
	uint32_t *incoming = xcalloc(n, sizeof *incoming);
	for (size_t k = 0; k < es.n; k++) {
		uint32_t i = idx[k];
		uint32_t a = uf_find(u, src[i]), b = uf_find(u, (uint32_t)pos[g->edge_to[es.v[i]]]);
		if (a == b)
			continue;
		if (u[a].rank < u[b].rank) {
			u[a].group = b;
		} else {
			u[b].group = a;
			if (u[a].rank == u[b].rank)
				u[a].rank++;
		}
		mst[i] = 1;
		incoming[pos[g->edge_to[es.v[i]]]]++;
	}
	uint8_t *visited = xcalloc(n, 1);
	uint32_t *queue = xmalloc((n + es.n + 1) * sizeof *queue), *out = xmalloc(n * sizeof *out);
	size_t qh = 0, qt = 0, no = 0;
	for (size_t k = 0; k < es.n; k++) {
		uint32_t s = src[idx[k]];
		if (!visited[s] && !incoming[s]) {
			visited[s] = 1;
			queue[qt++] = s;
		}
	}
	while (qh < qt && no < n) {
		uint32_t x = queue[qh++];
		out[no++] = scc[x];
		size_t j = 0; /* index of x's first SCC edge in es */
		for (size_t i = 0; i < es.n; i++)
			if (src[i] == x) {
				j = i;
				break;
			}
		for (uint32_t e = g->edge_first[scc[x]]; e < g->edge_first[scc[x] + 1]; e++) {
			if (pos[g->edge_to[e]] < 0)
				continue;
			uint32_t t = (uint32_t)pos[g->edge_to[e]];
			if (mst[j]) {
				incoming[t]--;
				if (!incoming[t])
					queue[qt++] = t;
			}
			j++;
		}
	}
	if (no == n) /* reversed */
		for (size_t i = 0; i < n; i++)
			scc[i] = out[n - 1 - i];
	free(w);
	free(idx);
	free(u);
	free(mst);
	free(src);
	free(incoming);
	free(visited);
	free(queue);
	free(out);
	VEC_FREE(&es);
}

/* Tarjan's SCCs as LLVM's scc_iterator finds them from a root linked to
 * every function (in name order); the order is the reverse of the SCCs'. */
uint32_t *cs_callgraph_top_down(const struct cs_callgraph *g, int sort_scc)
{
	uint32_t n = g->nfn, root = n;
	uint32_t *num = xcalloc(n + 1, sizeof *num); /* visit number, 0 unvisited, UINT32_MAX done */
	uint32_t *sccstack = xmalloc((n + 1) * sizeof *sccstack);
	struct vis {
		uint32_t node, next, min;
	} *vs = xmalloc((n + 1) * sizeof *vs);
	uint32_t *order = xmalloc((n + 1) * sizeof *order);
	int32_t *pos = xmalloc((n + 1) * sizeof *pos);
	for (uint32_t i = 0; i <= n; i++)
		pos[i] = -1;
	size_t nss = 0, nvs = 0, nord = 0, visit = 0;
	/* the root's children are 0..n-1 (name order) */
#define CHILDREN(x, i) ((x) == root ? (i) : g->edge_to[g->edge_first[x] + (i)])
#define NCHILD(x) ((x) == root ? n : g->edge_first[(x) + 1] - g->edge_first[x])
	num[root] = (uint32_t)++visit;
	sccstack[nss++] = root;
	vs[nvs++] = (struct vis){root, 0, num[root]};
	while (nvs) {
		struct vis *t = &vs[nvs - 1];
		if (t->next < NCHILD(t->node)) {
			uint32_t c = CHILDREN(t->node, t->next);
			t->next++;
			if (!num[c]) {
				num[c] = (uint32_t)++visit;
				sccstack[nss++] = c;
				vs[nvs++] = (struct vis){c, 0, num[c]};
			} else if (num[c] < t->min) {
				t->min = num[c];
			}
			continue;
		}
		uint32_t x = t->node, m = t->min;
		nvs--;
		if (nvs && vs[nvs - 1].min > m)
			vs[nvs - 1].min = m;
		if (m != num[x])
			continue;
		size_t start = nord;
		uint32_t y;
		do {
			y = sccstack[--nss];
			num[y] = UINT32_MAX;
			if (y != root)
				order[nord++] = y;
		} while (y != x);
		size_t len = nord - start;
		if (sort_scc && len > 1) {
			for (size_t i = 0; i < len; i++)
				pos[order[start + i]] = (int32_t)i;
			order_scc(g, order + start, len, pos);
			for (size_t i = 0; i < len; i++)
				pos[order[start + i]] = -1;
		}
	}
#undef CHILDREN
#undef NCHILD
	for (size_t i = 0; i < nord / 2; i++) {
		uint32_t t = order[i];
		order[i] = order[nord - 1 - i];
		order[nord - 1 - i] = t;
	}
	free(num);
	free(sccstack);
	free(vs);
	free(pos);
	return order; /* g->nfn entries */
}
