/*
 * Graph facts of a CFG: depth-first order and retreating edges, dominators
 * and post-dominators (Cooper, Harvey and Kennedy's iterative algorithm on
 * reverse postorder), and natural loops.  Used by the static branch
 * heuristics and by frequency propagation.
 */
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
#include "spgo/common.h"

/*
 * A graph in CSR form, so that the same code computes dominators of the CFG
 * and of its reverse (with a virtual exit).
 */
struct csr {
	size_t n;
	uint32_t *so, *s; /* successors of v: s[so[v] .. so[v+1]) */
	uint32_t *po, *p; /* predecessors */
};

static void csr_free(struct csr *c)
{
	free(c->so);
	free(c->s);
	free(c->po);
	free(c->p);
}

/* Iterative DFS from root: postorder and (optionally) retreating edges,
 * reported as pairs (v, index into s[]). */
static uint32_t dfs_postorder(const struct csr *c, uint32_t root, uint32_t *post, uint8_t *retreat_slot)
{
	size_t n = c->n;
	uint8_t *state = xcalloc(n, 1); /* 0 new, 1 on stack, 2 done */
	uint32_t *stack = xmalloc(n * sizeof *stack);
	uint32_t *it = xmalloc(n * sizeof *it);
	uint32_t sp = 0, np = 0;
	stack[sp++] = root;
	state[root] = 1;
	it[root] = c->so[root];
	while (sp) {
		uint32_t v = stack[sp - 1];
		if (it[v] < c->so[v + 1]) {
			uint32_t k = it[v]++;
			uint32_t w = c->s[k];
			if (state[w] == 0) {
				state[w] = 1;
				it[w] = c->so[w];
				stack[sp++] = w;
			} else if (state[w] == 1 && retreat_slot) {
				retreat_slot[k] = 1;
			}
		} else {
			state[v] = 2;
			post[np++] = v;
			sp--;
		}
	}
	free(state);
	free(stack);
	free(it);
	return np;
}

/* Cooper-Harvey-Kennedy: idom[] over the nodes reachable from root. */
static void dominators(const struct csr *c, uint32_t root, const uint32_t *rpo, uint32_t nrpo,
		       const uint32_t *rpo_index, uint32_t *idom)
{
	for (size_t v = 0; v < c->n; v++)
		idom[v] = SPGO_NONE;
	idom[root] = root;
	int changed = 1;
	while (changed) {
		changed = 0;
		for (uint32_t i = 1; i < nrpo; i++) {
			uint32_t v = rpo[i], nd = SPGO_NONE;
			for (uint32_t k = c->po[v]; k < c->po[v + 1]; k++) {
				uint32_t u = c->p[k];
				if (idom[u] == SPGO_NONE)
					continue;
				if (nd == SPGO_NONE) {
					nd = u;
					continue;
				}
				uint32_t a = u, b = nd;
				while (a != b) {
					while (rpo_index[a] > rpo_index[b])
						a = idom[a];
					while (rpo_index[b] > rpo_index[a])
						b = idom[b];
				}
				nd = a;
			}
			if (nd != SPGO_NONE && idom[v] != nd) {
				idom[v] = nd;
				changed = 1;
			}
		}
	}
}

/* Interval numbering of the tree given by idom (root is its own parent). */
static void tree_number(size_t n, uint32_t root, const uint32_t *idom, uint32_t *pre, uint32_t *post)
{
	uint32_t *cnt = xcalloc(n + 1, sizeof *cnt), *kid = xmalloc((n + 1) * sizeof *kid);
	for (size_t v = 0; v < n; v++)
		if (idom[v] != SPGO_NONE && v != root)
			cnt[idom[v] + 1]++;
	for (size_t v = 0; v < n; v++)
		cnt[v + 1] += cnt[v];
	uint32_t *fill = xmalloc((n + 1) * sizeof *fill);
	memcpy(fill, cnt, (n + 1) * sizeof *fill);
	for (size_t v = 0; v < n; v++)
		if (idom[v] != SPGO_NONE && v != root)
			kid[fill[idom[v]]++] = (uint32_t)v;
	for (size_t v = 0; v < n; v++)
		pre[v] = post[v] = SPGO_NONE;
	uint32_t *stack = xmalloc((n + 1) * sizeof *stack), *it = xmalloc((n + 1) * sizeof *it);
	uint32_t sp = 0, clock = 0;
	stack[sp++] = root;
	it[root] = cnt[root];
	pre[root] = clock++;
	while (sp) {
		uint32_t v = stack[sp - 1];
		if (it[v] < cnt[v + 1]) {
			uint32_t w = kid[it[v]++];
			pre[w] = clock++;
			it[w] = cnt[w];
			stack[sp++] = w;
		} else {
			post[v] = clock++;
			sp--;
		}
	}
	free(cnt);
	free(kid);
	free(fill);
	free(stack);
	free(it);
}

void graph_info_build(struct graph_info *g, const struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	memset(g, 0, sizeof *g);
	g->nb = nb;

	/* Forward CSR: s[] is cfg->succ order, so slot k is edge cfg->succ[k]. */
	struct csr f = {.n = nb};
	f.so = xmalloc((nb + 1) * sizeof *f.so);
	f.po = xmalloc((nb + 1) * sizeof *f.po);
	f.s = xmalloc((ne + 1) * sizeof *f.s);
	f.p = xmalloc((ne + 1) * sizeof *f.p);
	for (size_t b = 0; b < nb; b++) {
		f.so[b] = cfg->blocks[b].out;
		f.po[b] = cfg->blocks[b].in;
	}
	f.so[nb] = f.po[nb] = (uint32_t)ne;
	for (size_t k = 0; k < ne; k++) {
		f.s[k] = cfg->edges[cfg->succ[k]].dst;
		f.p[k] = cfg->edges[cfg->pred[k]].src;
	}

	uint8_t *slot_retreat = xcalloc(ne + 1, 1);
	uint32_t *post = xmalloc(nb * sizeof *post);
	uint32_t np = dfs_postorder(&f, cfg->entry, post, slot_retreat);
	g->retreat = xcalloc(ne + 1, 1);
	for (size_t k = 0; k < ne; k++)
		if (slot_retreat[k])
			g->retreat[cfg->succ[k]] = 1;
	free(slot_retreat);
	g->nrpo = np;
	g->rpo = xmalloc((np + 1) * sizeof *g->rpo);
	g->rpo_index = xmalloc(nb * sizeof *g->rpo_index);
	for (size_t b = 0; b < nb; b++)
		g->rpo_index[b] = SPGO_NONE;
	for (uint32_t i = 0; i < np; i++) {
		g->rpo[i] = post[np - 1 - i];
		g->rpo_index[g->rpo[i]] = i;
	}
	g->idom = xmalloc(nb * sizeof *g->idom);
	dominators(&f, cfg->entry, g->rpo, np, g->rpo_index, g->idom);
	g->dpre = xmalloc(nb * sizeof *g->dpre);
	g->dpost = xmalloc(nb * sizeof *g->dpost);
	tree_number(nb, cfg->entry, g->idom, g->dpre, g->dpost);

	/* Reverse CSR with a virtual exit X = nb: X -> every exit. */
	size_t nexit = 0;
	for (size_t b = 0; b < nb; b++)
		nexit += spgo_cfg_is_exit(cfg, (uint32_t)b);
	struct csr r = {.n = nb + 1};
	r.so = xmalloc((nb + 2) * sizeof *r.so);
	r.po = xmalloc((nb + 2) * sizeof *r.po);
	r.s = xmalloc((ne + nexit + 1) * sizeof *r.s);
	r.p = xmalloc((ne + nexit + 1) * sizeof *r.p);
	uint32_t ks = 0, kp = 0;
	for (size_t b = 0; b < nb; b++) {
		const struct spgo_cfg_block *bl = &cfg->blocks[b];
		r.so[b] = ks;
		for (uint32_t k = 0; k < bl->nin; k++)
			r.s[ks++] = cfg->edges[cfg->pred[bl->in + k]].src;
		r.po[b] = kp;
		for (uint32_t k = 0; k < bl->nout; k++)
			r.p[kp++] = cfg->edges[cfg->succ[bl->out + k]].dst;
		if (spgo_cfg_is_exit(cfg, (uint32_t)b))
			r.p[kp++] = (uint32_t)nb;
	}
	r.so[nb] = ks;
	r.po[nb] = kp;
	for (size_t b = 0; b < nb; b++)
		if (spgo_cfg_is_exit(cfg, (uint32_t)b))
			r.s[ks++] = (uint32_t)b;
	r.so[nb + 1] = ks;
	r.po[nb + 1] = kp;
	uint32_t *rpost = xmalloc((nb + 1) * sizeof *rpost);
	uint32_t rnp = dfs_postorder(&r, (uint32_t)nb, rpost, NULL);
	uint32_t *rrpo = xmalloc((rnp + 1) * sizeof *rrpo), *rrpo_index = xmalloc((nb + 1) * sizeof *rrpo_index);
	for (size_t b = 0; b <= nb; b++)
		rrpo_index[b] = SPGO_NONE;
	for (uint32_t i = 0; i < rnp; i++) {
		rrpo[i] = rpost[rnp - 1 - i];
		rrpo_index[rrpo[i]] = i;
	}
	uint32_t *ridom = xmalloc((nb + 1) * sizeof *ridom);
	dominators(&r, (uint32_t)nb, rrpo, rnp, rrpo_index, ridom);
	uint32_t *rpre = xmalloc((nb + 1) * sizeof *rpre), *rpostn = xmalloc((nb + 1) * sizeof *rpostn);
	tree_number(nb + 1, (uint32_t)nb, ridom, rpre, rpostn);
	g->ipdom = xmalloc(nb * sizeof *g->ipdom);
	g->pdom_ok = xcalloc(nb, 1);
	g->ppre = xmalloc(nb * sizeof *g->ppre);
	g->ppost = xmalloc(nb * sizeof *g->ppost);
	for (size_t b = 0; b < nb; b++) {
		g->pdom_ok[b] = ridom[b] != SPGO_NONE;
		g->ipdom[b] = ridom[b] == nb ? SPGO_NONE : ridom[b];
		g->ppre[b] = rpre[b];
		g->ppost[b] = rpostn[b];
	}
	free(rpost);
	free(rrpo);
	free(rrpo_index);
	free(ridom);
	free(rpre);
	free(rpostn);
	csr_free(&r);

	/* Natural loops: for each header (in RPO order, so that inner loops
	 * come later and overwrite), walk back from its latches. */
	g->loop = xmalloc(nb * sizeof *g->loop);
	g->loop_parent = xmalloc(nb * sizeof *g->loop_parent);
	for (size_t b = 0; b < nb; b++)
		g->loop[b] = g->loop_parent[b] = SPGO_NONE;
	uint32_t *stack = xmalloc((nb + 1) * sizeof *stack);
	uint32_t *mark = xmalloc(nb * sizeof *mark);
	for (size_t b = 0; b < nb; b++)
		mark[b] = SPGO_NONE;
	for (uint32_t i = 0; i < np; i++) {
		uint32_t h = g->rpo[i];
		const struct spgo_cfg_block *hb = &cfg->blocks[h];
		uint32_t sp = 0;
		for (uint32_t k = 0; k < hb->nin; k++) {
			uint32_t u = cfg->edges[cfg->pred[hb->in + k]].src;
			if (g->rpo_index[u] != SPGO_NONE && graph_dominates(g, h, u) && mark[u] != h) {
				mark[u] = h;
				stack[sp++] = u;
			}
		}
		if (!sp)
			continue;
		mark[h] = h;
		g->loop_parent[h] = g->loop[h];
		g->loop[h] = h;
		while (sp) {
			uint32_t v = stack[--sp];
			g->loop[v] = h;
			if (v == h)
				continue; /* a self loop: the header is its own latch */
			const struct spgo_cfg_block *vb = &cfg->blocks[v];
			for (uint32_t k = 0; k < vb->nin; k++) {
				uint32_t u = cfg->edges[cfg->pred[vb->in + k]].src;
				if (mark[u] != h && g->rpo_index[u] != SPGO_NONE) {
					mark[u] = h;
					stack[sp++] = u;
				}
			}
		}
	}
	free(stack);
	free(mark);
	free(post);
	csr_free(&f);
}

void graph_info_free(struct graph_info *g)
{
	free(g->rpo);
	free(g->rpo_index);
	free(g->idom);
	free(g->ipdom);
	free(g->pdom_ok);
	free(g->dpre);
	free(g->dpost);
	free(g->ppre);
	free(g->ppost);
	free(g->loop);
	free(g->loop_parent);
	free(g->retreat);
	memset(g, 0, sizeof *g);
}

int graph_dominates(const struct graph_info *g, uint32_t a, uint32_t b)
{
	if (g->rpo_index[a] == SPGO_NONE || g->rpo_index[b] == SPGO_NONE)
		return 0;
	return g->dpre[a] <= g->dpre[b] && g->dpost[b] <= g->dpost[a];
}

int graph_postdominates(const struct graph_info *g, uint32_t a, uint32_t b)
{
	if (!g->pdom_ok[a] || !g->pdom_ok[b])
		return 0;
	return g->ppre[a] <= g->ppre[b] && g->ppost[b] <= g->ppost[a];
}

int graph_in_loop(const struct graph_info *g, uint32_t header, uint32_t b)
{
	for (uint32_t l = g->loop[b]; l != SPGO_NONE; l = g->loop_parent[l])
		if (l == header)
			return 1;
	return 0;
}
