/*
 * The CSSPGO pre-inliner (the paper's Algorithm 2, as llvm-profgen 19's
 * CSPreInliner with SampleContextTracker and ProfiledCallGraph): global
 * top-down inline decisions on a flat CS profile, written back into it.
 *
 *  - The contexts form a trie ([main:3 @ foo] under [main]; preinline_trie.c);
 *    a node may hold a profile, which here is a list of input contexts
 *    merged into it (counts are summed only when the output is written).
 *  - Call graph: one node per function of the trie, an edge caller ->
 *    callee per trie edge, weighing max(call-target count at the site in
 *    the caller's profile, the callee's entry estimate) summed over
 *    contexts (0 when either side has no profile), edges up to the cold
 *    count trimmed.  Functions are visited top-down: Tarjan's SCCs from a
 *    root linked to every function in name order, children in name order,
 *    the SCC list reversed; the members of a cyclic SCC ordered by a
 *    maximum spanning tree of its edges walked breadth first (LLVM's
 *    scc_member_iterator), then reversed (src/context/callgraph.c).
 *  - Per function: every context of it not inlined so far moves to the
 *    base profile [f] (its subtree along, merged node by node into what is
 *    there; the first one moved keeps its attributes).  The base's size
 *    from the binary (src/binary/inline_size.c) times the growth limit,
 *    within [limit_min, limit_max], is the budget.  Candidates are the
 *    profiled children of the base, pushed in LLVM's child order (by
 *    call-site hash) and popped by priority as std::priority_queue pops
 *    them: zero-sized first, then the higher call count (max of the
 *    call-site count and the callee's entry estimate), the smaller size,
 *    the larger name GUID; equal ones (a callee at several call sites)
 *    leave in an order that follows the pushes.  A
 *    candidate is inlined when its size is below the threshold: the cold
 *    threshold at or below the cold count, else hot x hotness x 100 +
 *    cold + 1, hotness = (count - cold count) / (10% cutoff count - cold
 *    count) at most 1, times the multiplier when the binary had it inlined;
 *    it is then marked ShouldBeInlined, its size is spent and its children
 *    become candidates.  The loop stops when the budget is spent.
 *  - Afterwards profiles left at non-inlined, non-top contexts (callees
 *    visited before a caller: cycles, cold edges) are dropped, as
 *    llvm-profgen drops them.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "context/preinline_impl.h"

/* ---- the candidate queue (a max-heap, as std::priority_queue) ---------------------------- */

/* ProfiledCandidateComparer: a has lower priority than b. */
static int cand_less(const struct cand *a, const struct cand *b)
{
	if ((a->size == 0 || b->size == 0) && a->size != b->size)
		return b->size == 0;
	if (a->count != b->count)
		return a->count < b->count;
	if (a->size != b->size)
		return a->size > b->size;
	return a->guid < b->guid;
}

static void heap_push(struct pre *r, struct cand c)
{
	VEC_PUSH(&r->heap, c);
	struct cand *h = r->heap.v;
	size_t hole = r->heap.n - 1;
	while (hole > 0) {
		size_t parent = (hole - 1) / 2;
		if (!cand_less(&h[parent], &c))
			break;
		h[hole] = h[parent];
		hole = parent;
	}
	h[hole] = c;
}

/* std::pop_heap: the top out, the last element sifted down from the top. */
static struct cand heap_pop(struct pre *r)
{
	struct cand *h = r->heap.v, top = h[0], v = h[r->heap.n - 1];
	size_t len = --r->heap.n, hole = 0, child = 0;
	if (!len)
		return top;
	while (child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (cand_less(&h[child], &h[child - 1]))
			child--;
		h[hole] = h[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		h[hole] = h[child - 1];
		hole = child - 1;
	}
	while (hole > 0) { /* push v back up from the hole */
		size_t parent = (hole - 1) / 2;
		if (!cand_less(&h[parent], &v))
			break;
		h[hole] = h[parent];
		hole = parent;
	}
	h[hole] = v;
	return top;
}

/* The profiled children of caller profile cp onto the queue, in LLVM's
 * child order: candidates of equal priority (the same function at several
 * call sites, with equal counts and sizes) leave the heap in an order that
 * depends on the order they went in. */
static void add_candidates(struct pre *r, uint32_t cp)
{
	size_t nk = pre_children_by_hash(r, r->profs.v[cp].node);
	for (size_t i = 0; i < nk; i++) {
		uint32_t c = r->kids.v[i].node;
		if (r->nodes.v[c].prof == SPGO_NONE)
			continue;
		struct cand x = {r->nodes.v[c].prof, pre_call_count(r, cp, c), pre_ctx_size(r, c),
				 spgo_guid(spgo_name(r->in, r->nodes.v[c].name))};
		heap_push(r, x);
	}
}

static int should_inline(struct pre *r, const struct cand *c)
{
	const struct spgo_preinline_opts *o = r->o;
	int was = (r->profs.v[c->prof].attrs & SPGO_ATTR_WAS_INLINED) != 0;
	if (o->replay)
		return was;
	uint32_t thr = o->cold_threshold;
	if (c->count > r->cold_count) {
		double norm = ((double)c->count - (double)r->cold_count) /
			      (r->norm_upper - (double)r->cold_count);
		if (!(norm <= 1.0))
			norm = 1.0;
		if (norm < 0)
			norm = 0;
		double t = (double)o->hot_threshold * norm * 100 + o->cold_threshold +
			   (o->inclusive ? 0 : 1);
		thr = t >= 4294967295.0 ? UINT32_MAX : (uint32_t)t;
		if (was)
			thr *= o->prev_inline_mult;
	}
	return o->inclusive ? c->size <= thr : c->size < thr;
}

static void process_function(struct pre *r, uint32_t name)
{
	uint32_t base = pre_base_profile(r, name);
	if (base == SPGO_NONE)
		return;
	const struct spgo_preinline_opts *o = r->o;
	uint32_t size = (uint32_t)pre_ctx_size(r, r->profs.v[base].node), final = size;
	uint32_t limit = size * o->growth_limit;
	if (limit > o->limit_max)
		limit = o->limit_max;
	if (limit < o->limit_min)
		limit = o->limit_min;
	r->heap.n = 0;
	add_candidates(r, base);
	while (r->heap.n && final < limit) {
		struct cand c = heap_pop(r);
		if (should_inline(r, &c)) {
			struct pprof *p = &r->profs.v[c.prof];
			p->state |= ST_INLINED;
			p->attrs |= SPGO_ATTR_SHOULD_INLINE;
			final += (uint32_t)c.size;
			r->st->inlined++;
			add_candidates(r, c.prof);
		} else {
			r->st->not_inlined++;
		}
	}
	if (r->heap.n) {
		r->st->hit_limit++;
		r->st->not_considered += r->heap.n;
	}
	r->st->functions++;
}

/* ---- the profiled call graph (its top-down order: callgraph.c) ------------------------------ */


static const struct spgo_profile *sort_prof;
static int cmp_name(const void *a, const void *b)
{
	return strcmp(spgo_name(sort_prof, *(const uint32_t *)a), spgo_name(sort_prof, *(const uint32_t *)b));
}

/* Edge rows {from, to, weight} sorted by from, then to's name. */
static const uint32_t *sort_rank;
static int cmp_edge(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	uint32_t rx = sort_rank[x[1]], ry = sort_rank[y[1]];
	return rx < ry ? -1 : rx > ry;
}

static void build_graph(struct pre *r, struct cs_callgraph *g)
{
	struct spgo_kmap fns, edges;
	spgo_kmap_init(&fns, 1);
	spgo_kmap_init(&edges, 2);
	VEC(uint32_t) names = {0};
	for (size_t k = 1; k < r->nodes.n; k++) {
		uint64_t key = r->nodes.v[k].name;
		uint64_t *v = spgo_kmap_upsert(&fns, &key);
		if (!*v) {
			VEC_PUSH(&names, r->nodes.v[k].name);
			*v = names.n;
		}
	}
	/* graph nodes in name order (the root's edges, DFS order) */
	sort_prof = r->in;
	spgo_sort(names.v, names.n, sizeof *names.v, cmp_name);
	g->nfn = (uint32_t)names.n;
	g->fname = names.v;
	uint32_t *rank = xmalloc((names.n + 1) * sizeof *rank);
	for (size_t i = 0; i < names.n; i++) {
		uint64_t key = names.v[i];
		*spgo_kmap_upsert(&fns, &key) = i + 1;
		rank[i] = (uint32_t)i;
	}
	for (size_t k = 1; k < r->nodes.n; k++) {
		const struct pnode *n = &r->nodes.v[k];
		for (uint32_t c = n->child; c != SPGO_NONE; c = r->nodes.v[c].sibling) {
			uint64_t w = 0;
			if (n->prof != SPGO_NONE && r->nodes.v[c].prof != SPGO_NONE)
				w = pre_call_count(r, n->prof, c);
			uint64_t a = n->name, b = r->nodes.v[c].name;
			uint64_t key[2] = {*spgo_kmap_find(&fns, &a) - 1, *spgo_kmap_find(&fns, &b) - 1};
			uint64_t *v = spgo_kmap_upsert(&edges, key);
			if (!*v)
				*v = 1; /* present (weights are stored + 1) */
			*v += w;
		}
	}
	uint64_t *rows = spgo_kmap_sorted(&edges);
	size_t ne = edges.n, kept = 0;
	for (size_t i = 0; i < ne; i++) {
		uint64_t *row = rows + 3 * i;
		row[2] -= 1;
		if (r->cold_count && row[2] <= r->cold_count)
			continue; /* trimColdEges */
		memmove(rows + 3 * kept, row, 3 * sizeof *row);
		kept++;
	}
	sort_rank = rank;
	spgo_sort(rows, kept, 3 * sizeof *rows, cmp_edge);
	g->edge_first = xcalloc(g->nfn + 1, sizeof *g->edge_first);
	g->edge_to = xmalloc((kept + 1) * sizeof *g->edge_to);
	g->edge_w = xmalloc((kept + 1) * sizeof *g->edge_w);
	for (size_t i = 0; i < kept; i++) {
		g->edge_first[rows[3 * i] + 1]++;
		g->edge_to[i] = (uint32_t)rows[3 * i + 1];
		g->edge_w[i] = rows[3 * i + 2];
	}
	for (uint32_t i = 0; i < g->nfn; i++)
		g->edge_first[i + 1] += g->edge_first[i];
	free(rows);
	free(rank);
	spgo_kmap_free(&fns);
	spgo_kmap_free(&edges);
}

/* ---- the driver ------------------------------------------------------------------------------ */

void spgo_preinline_defaults(struct spgo_preinline_opts *o)
{
	memset(o, 0, sizeof *o);
	o->hot_threshold = 1500;
	o->cold_threshold = 0;
	o->growth_limit = 12;
	o->limit_min = 100;
	o->limit_max = 50000;
	o->prev_inline_mult = 100;
	o->cutoff_cold = 999999;
	o->cutoff_norm = 100000;
	o->cold_count = -1;
	o->context_cost = 1;
	o->sort_scc = 1;
}

int spgo_preinline_parse(struct spgo_preinline_opts *o, const char *list)
{
	static const struct {
		const char *name;
		size_t off;
	} keys[] = {
		{"hot", offsetof(struct spgo_preinline_opts, hot_threshold)},
		{"cold", offsetof(struct spgo_preinline_opts, cold_threshold)},
		{"growth", offsetof(struct spgo_preinline_opts, growth_limit)},
		{"min", offsetof(struct spgo_preinline_opts, limit_min)},
		{"max", offsetof(struct spgo_preinline_opts, limit_max)},
		{"prev-mult", offsetof(struct spgo_preinline_opts, prev_inline_mult)},
		{"cutoff-cold", offsetof(struct spgo_preinline_opts, cutoff_cold)},
		{"cutoff-norm", offsetof(struct spgo_preinline_opts, cutoff_norm)},
		{"context-cost", offsetof(struct spgo_preinline_opts, context_cost)},
		{"replay", offsetof(struct spgo_preinline_opts, replay)},
		{"zero-callers", offsetof(struct spgo_preinline_opts, zero_callers)},
		{"inclusive", offsetof(struct spgo_preinline_opts, inclusive)},
		{"sort-scc", offsetof(struct spgo_preinline_opts, sort_scc)},
	};
	const char *s = list;
	while (*s) {
		const char *eq = strchr(s, '='), *end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (!eq || eq > end)
			return spgo_error("--preinline-params: '%.*s' is not NAME=VALUE", (int)(end - s), s);
		size_t k;
		for (k = 0; k < SPGO_ARRAY_LEN(keys); k++)
			if (strlen(keys[k].name) == (size_t)(eq - s) && !memcmp(keys[k].name, s, (size_t)(eq - s)))
				break;
		char *e;
		unsigned long v = strtoul(eq + 1, &e, 10);
		if (k == SPGO_ARRAY_LEN(keys) || e != end || eq + 1 == end || v > UINT32_MAX)
			return spgo_error("--preinline-params: bad '%.*s' (names: hot, cold, growth, min, max, "
					  "prev-mult, cutoff-cold, cutoff-norm, context-cost, replay, "
					  "zero-callers, inclusive, sort-scc)",
					  (int)(end - s), s);
		if (keys[k].off >= offsetof(struct spgo_preinline_opts, context_cost))
			*(int *)((char *)o + keys[k].off) = (int)v;
		else
			*(uint32_t *)((char *)o + keys[k].off) = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* The first summary entry whose cutoff is at least cutoff (getEntryForPercentile). */
static uint64_t summary_count(const struct spgo_summary *s, uint32_t cutoff)
{
	return spgo_summary_min_count(s, cutoff, SPGO_SUMMARY_LAST);
}

/* The context string of node k, root first. */
static void node_ctx(const struct pre *r, uint32_t k, charbuf *out)
{
	uint32_t chain[4096];
	size_t n = 0;
	for (uint32_t x = k; x && n < SPGO_ARRAY_LEN(chain); x = r->nodes.v[x].parent)
		chain[n++] = x;
	out->n = 0;
	char loc[32];
	for (size_t i = n; i-- > 0;) {
		const char *nm = spgo_name(r->in, r->nodes.v[chain[i]].name);
		size_t l = strlen(nm);
		VEC_GROW(out, out->n + l + 40);
		memcpy(out->v + out->n, nm, l);
		out->n += l;
		if (i) {
			const struct pnode *c = &r->nodes.v[chain[i - 1]];
			int m = spgo_profgen_loc(loc, sizeof loc, c->line, c->disc, " @ ");
			memcpy(out->v + out->n, loc, (size_t)m);
			out->n += (size_t)m;
		}
	}
	VEC_GROW(out, out->n + 1);
	out->v[out->n] = 0;
}

static void write_out(struct pre *r, struct spgo_profile *out, uint32_t k, uint32_t *namemap,
		      charbuf *buf, int depth)
{
	const struct pnode *n = &r->nodes.v[k];
	if (k && n->prof != SPGO_NONE) {
		const struct pprof *p = &r->profs.v[n->prof];
		if (n->parent != 0 && !(p->state & ST_INLINED)) {
			r->st->dropped++;
		} else {
			node_ctx(r, k, buf);
			uint32_t f = spgo_func_get_ctx(out, buf->v, buf->n);
			for (uint32_t m = p->first; m != SPGO_NONE; m = r->next_member[m])
				spgo_func_merge(out, f, r->in, m, 1, namemap);
			out->funcs.v[f].attrs = p->attrs;
		}
	}
	if (depth > 10000)
		return;
	for (uint32_t c = r->nodes.v[k].child; c != SPGO_NONE; c = r->nodes.v[c].sibling)
		write_out(r, out, c, namemap, buf, depth + 1);
}

struct spgo_profile *spgo_cs_preinline(struct spgo_profile *in, const struct spgo_inline_sizes *sizes,
				       const struct spgo_preinline_opts *o, struct spgo_preinline_stats *st)
{
	struct spgo_preinline_stats local;
	if (!st)
		st = &local;
	memset(st, 0, sizeof *st);
	struct pre r = {.in = in, .sizes = sizes, .o = o, .st = st};
	spgo_kmap_init(&r.index, 3);
	spgo_kmap_init(&r.byname, 1);
	r.next_member = xmalloc((in->funcs.n + 1) * sizeof *r.next_member);
	memset(r.next_member, 0xff, (in->funcs.n + 1) * sizeof *r.next_member);
	struct pnode root = {SPGO_NONE, 0, 0, SPGO_NONE, SPGO_NONE, SPGO_NONE, SPGO_NONE};
	VEC_PUSH(&r.nodes, root);
	for (size_t i = 0; i < in->top.n; i++) {
		uint32_t f = in->top.v[i];
		const struct spgo_func *fn = &in->funcs.v[f];
		uint32_t k = fn->ctx == SPGO_NONE ? pre_node_get(&r, 0, 0, 0, fn->name)
						  : pre_add_context(&r, spgo_strtab_get(&in->contexts, fn->ctx));
		if (k == SPGO_NONE)
			continue;
		if (r.nodes.v[k].prof == SPGO_NONE) {
			struct pprof p = {k, f, f, fn->attrs, ST_RAW};
			VEC_PUSH(&r.profs, p);
			r.nodes.v[k].prof = (uint32_t)(r.profs.n - 1);
		} else { /* the same context twice: one profile */
			struct pprof *p = &r.profs.v[r.nodes.v[k].prof];
			r.next_member[p->last] = f;
			p->last = f;
		}
	}
	st->contexts_in = r.profs.n;
	/* contexts of each function, breadth first in LLVM's child order
	 * (by call-site hash), as populateFuncToCtxtMap lists them */
	r.name_next = xmalloc((r.profs.n + 1) * sizeof *r.name_next);
	{
		uint32_t *queue = xmalloc(r.nodes.n * sizeof *queue);
		size_t qh = 0, qt = 0;
		struct spgo_kmap tail;
		spgo_kmap_init(&tail, 1);
		queue[qt++] = 0;
		while (qh < qt) {
			uint32_t k = queue[qh++];
			const struct pnode *n = &r.nodes.v[k];
			if (k && n->prof != SPGO_NONE) {
				uint64_t key = n->name;
				uint64_t *h = spgo_kmap_upsert(&r.byname, &key), *t = spgo_kmap_upsert(&tail, &key);
				r.name_next[n->prof] = SPGO_NONE;
				if (!*h)
					*h = (uint64_t)n->prof + 1;
				else
					r.name_next[*t - 1] = n->prof;
				*t = (uint64_t)n->prof + 1;
			}
			size_t nk = pre_children_by_hash(&r, k);
			for (size_t i = 0; i < nk; i++)
				queue[qt++] = r.kids.v[i].node;
		}
		free(queue);
		spgo_kmap_free(&tail);
	}
	r.cold_count = o->cold_count >= 0 ? (uint64_t)o->cold_count : summary_count(&in->summary, o->cutoff_cold);
	r.norm_upper = (double)summary_count(&in->summary, o->cutoff_norm);
	st->cold_count = r.cold_count;
	st->norm_upper = (uint64_t)r.norm_upper;

	struct cs_callgraph g = {0};
	build_graph(&r, &g);
	uint32_t *order = cs_callgraph_top_down(&g, o->sort_scc);
	for (uint32_t i = 0; i < g.nfn; i++)
		process_function(&r, g.fname[order[i]]);
	free(order);
	free(g.fname);
	free(g.edge_first);
	free(g.edge_to);
	free(g.edge_w);

	struct spgo_profile *out = spgo_profile_new();
	out->flags = in->flags;
	uint32_t *namemap = xmalloc((in->names.n + 1) * sizeof *namemap);
	memset(namemap, 0xff, (in->names.n + 1) * sizeof *namemap);
	charbuf buf = {0};
	write_out(&r, out, 0, namemap, &buf, 0);
	st->contexts_out = out->top.n;
	VEC_FREE(&buf);
	free(namemap);
	free(r.next_member);
	free(r.name_next);
	VEC_FREE(&r.nodes);
	VEC_FREE(&r.profs);
	VEC_FREE(&r.heap);
	VEC_FREE(&r.frames);
	VEC_FREE(&r.kids);
	spgo_kmap_free(&r.index);
	spgo_kmap_free(&r.byname);
	spgo_profile_finalize(out, 0);
	return out;
}

/* ---- sizes of the profiled functions ----------------------------------------------------- */

/*
 * The code sizes llvm-profgen computes: every instruction of every function
 * the samples touched (the start of a range, either end of a branch; with
 * probes a frame too), all the DWARF parts of the function by name; with
 * probes, the zero sizes of its inline tree.  In a DWARF build a function
 * seen only as a frame (a caller whose code ran outside every LBR window)
 * has no size: its contexts take the size of the "sibling" lookup
 * (src/binary/inline_size.c), as in llvm-profgen.
 */
struct spgo_inline_sizes *cs_trie_sizes(struct spgo_binary *bin, const struct spgo_cs_code *c,
					const struct spgo_cs_trie *t, int probes, int zero_callers)
{
	struct spgo_kmap names;
	spgo_kmap_init(&names, 1);
	cs_trie_profiled_guids(c, t, probes, &names);
	struct spgo_inline_sizes *s = spgo_inline_sizes_new(bin, probes, zero_callers);
	for (size_t i = 0; i < c->nfuncs; i++) {
		const struct spgo_function *f = &c->funcs[i];
		uint64_t g = spgo_guid(f->name);
		uint64_t *v = f->has_debug ? spgo_kmap_find(&names, &g) : NULL;
		if (!v)
			continue;
		spgo_inline_sizes_add_range(s, f->start, f->end);
		if (probes && *v == 0) {
			spgo_inline_sizes_add_probe_tree(s, g);
			*v = 1;
		}
	}
	spgo_kmap_free(&names);
	return s;
}
