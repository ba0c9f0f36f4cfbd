/*
 * The pre-inliner's context trie (preinline_impl.h): contexts as trie nodes
 * ([main:3 @ foo] under [main]), the input contexts merged at each node
 * (counts summed only when asked), the queries the inline decisions make
 * (head and call counts, sizes), and the promotion of a context with its
 * subtree to the base profile, as LLVM's SampleContextTracker
 * (promoteMergeContextSamplesTree) does.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "context/preinline_impl.h"

/* ---- the context trie --------------------------------------------------------------- */

static uint32_t child_find(const struct pre *r, uint32_t parent, uint32_t line, uint32_t disc,
			   uint32_t name)
{
	uint64_t key[3] = {parent, (uint64_t)disc << 32 | line, name};
	uint64_t *v = spgo_kmap_find(&r->index, key);
	return v && *v ? (uint32_t)(*v - 1) : SPGO_NONE;
}

static void link_child(struct pre *r, uint32_t parent, uint32_t k)
{
	struct pnode *n = &r->nodes.v[k];
	n->parent = parent;
	n->sibling = r->nodes.v[parent].child;
	r->nodes.v[parent].child = k;
	uint64_t key[3] = {parent, (uint64_t)n->disc << 32 | n->line, n->name};
	*spgo_kmap_upsert(&r->index, key) = (uint64_t)k + 1;
}

static void unlink_child(struct pre *r, uint32_t k)
{
	struct pnode *n = &r->nodes.v[k];
	uint32_t parent = n->parent;
	uint32_t *pp = &r->nodes.v[parent].child;
	while (*pp != SPGO_NONE && *pp != k)
		pp = &r->nodes.v[*pp].sibling;
	if (*pp == k)
		*pp = n->sibling;
	uint64_t key[3] = {parent, (uint64_t)n->disc << 32 | n->line, n->name};
	uint64_t *v = spgo_kmap_find(&r->index, key);
	if (v && *v == (uint64_t)k + 1)
		*v = 0;
	n->sibling = SPGO_NONE;
}

uint32_t pre_node_get(struct pre *r, uint32_t parent, uint32_t line, uint32_t disc, uint32_t name)
{
	uint32_t k = child_find(r, parent, line, disc, name);
	if (k != SPGO_NONE)
		return k;
	struct pnode nd = {name, line, disc, SPGO_NONE, SPGO_NONE, SPGO_NONE, SPGO_NONE};
	VEC_PUSH(&r->nodes, nd);
	k = (uint32_t)(r->nodes.n - 1);
	link_child(r, parent, k);
	return k;
}

/* The children of node k in LLVM's order (ContextTrieNode keeps them in a
 * std::map by spgo_callsite_hash) into r->kids; their number. */
static int cmp_kid(const void *a, const void *b)
{
	uint64_t x = ((const struct kid *)a)->hash, y = ((const struct kid *)b)->hash;
	return x < y ? -1 : x > y;
}

size_t pre_children_by_hash(struct pre *r, uint32_t k)
{
	r->kids.n = 0;
	for (uint32_t c = r->nodes.v[k].child; c != SPGO_NONE; c = r->nodes.v[c].sibling) {
		const struct pnode *n = &r->nodes.v[c];
		struct kid x = {spgo_callsite_hash(r->in, n->name, n->line, n->disc), c};
		VEC_PUSH(&r->kids, x);
	}
	spgo_sort(r->kids.v, r->kids.n, sizeof *r->kids.v, cmp_kid);
	return r->kids.n;
}

uint32_t pre_add_context(struct pre *r, const char *s)
{
	uint32_t cur = 0, line = 0, disc = 0;
	for (;;) {
		const char *end = strstr(s, " @ ");
		size_t len = end ? (size_t)(end - s) : strlen(s);
		size_t nlen = len;
		uint32_t fl = 0, fd = 0;
		if (end) { /* name:line[.disc] */
			const char *colon = NULL;
			for (const char *q = s; q < s + len; q++)
				if (*q == ':')
					colon = q;
			if (!colon)
				return SPGO_NONE;
			nlen = (size_t)(colon - s);
			char *e;
			fl = (uint32_t)strtoul(colon + 1, &e, 10);
			if (*e == '.')
				fd = (uint32_t)strtoul(e + 1, &e, 10);
		}
		uint32_t name = spgo_name_id(r->in, s, nlen);
		cur = pre_node_get(r, cur, line, disc, name);
		if (!end)
			return cur;
		line = fl;
		disc = fd;
		s = end + 3;
	}
}

/* ---- profile queries (sums over the merged input contexts) ----------------------------- */

static uint64_t prof_head(const struct pre *r, uint32_t p)
{
	uint64_t h = 0;
	for (uint32_t m = r->profs.v[p].first; m != SPGO_NONE; m = r->next_member[m])
		h += r->in->funcs.v[m].head;
	return h;
}

static uint64_t prof_total(const struct pre *r, uint32_t p)
{
	uint64_t t = 0;
	for (uint32_t m = r->profs.v[p].first; m != SPGO_NONE; m = r->next_member[m])
		t += r->in->funcs.v[m].total;
	return t;
}

/* LLVM's getHeadSamplesEstimate for a CS profile: head samples, else the
 * body sample at the smallest location, else 1 if the total is not 0. */
static uint64_t head_estimate(const struct pre *r, uint32_t p)
{
	uint64_t h = prof_head(r, p);
	if (h)
		return h;
	const struct spgo_profile *in = r->in;
	uint64_t best = UINT64_MAX, count = 0;
	for (uint32_t m = r->profs.v[p].first; m != SPGO_NONE; m = r->next_member[m])
		for (uint32_t b = in->funcs.v[m].bodies; b != SPGO_NONE; b = in->bodies.v[b].next) {
			const struct spgo_body *x = &in->bodies.v[b];
			uint64_t loc = (uint64_t)x->line << 32 | x->disc;
			if (loc < best) {
				best = loc;
				count = 0;
			}
			if (loc == best)
				count += x->count;
		}
	return count ? count : prof_total(r, p) > 0;
}

/* The call-target count to callee at (line, disc) in profile p. */
static uint64_t site_count(const struct pre *r, uint32_t p, uint32_t line, uint32_t disc,
			   uint32_t callee)
{
	const struct spgo_profile *in = r->in;
	uint64_t c = 0;
	for (uint32_t m = r->profs.v[p].first; m != SPGO_NONE; m = r->next_member[m])
		for (uint32_t b = in->funcs.v[m].bodies; b != SPGO_NONE; b = in->bodies.v[b].next) {
			const struct spgo_body *x = &in->bodies.v[b];
			if (x->line != line || x->disc != disc)
				continue;
			for (uint32_t t = x->targets; t != SPGO_NONE; t = in->targets.v[t].next)
				if (in->targets.v[t].name == callee)
					c += in->targets.v[t].count;
		}
	return c;
}

uint64_t pre_call_count(const struct pre *r, uint32_t cp, uint32_t k)
{
	const struct pnode *n = &r->nodes.v[k];
	uint64_t entry = head_estimate(r, n->prof);
	uint64_t site = site_count(r, cp, n->line, n->disc, n->name);
	return site > entry ? site : entry;
}

uint64_t pre_ctx_size(struct pre *r, uint32_t k)
{
	if (!r->o->context_cost) {
		uint64_t nb = 0; /* distinct body locations */
		struct spgo_kmap locs;
		spgo_kmap_init(&locs, 1);
		const struct spgo_profile *in = r->in;
		for (uint32_t m = r->profs.v[r->nodes.v[k].prof].first; m != SPGO_NONE; m = r->next_member[m])
			for (uint32_t b = in->funcs.v[m].bodies; b != SPGO_NONE; b = in->bodies.v[b].next) {
				uint64_t key = (uint64_t)in->bodies.v[b].line << 32 | in->bodies.v[b].disc;
				uint64_t *v = spgo_kmap_upsert(&locs, &key);
				nb += !*v;
				*v = 1;
			}
		spgo_kmap_free(&locs);
		return nb;
	}
	r->frames.n = 0;
	uint32_t line = 0, disc = 0;
	for (uint32_t x = k; x != 0 && x != SPGO_NONE; x = r->nodes.v[x].parent) {
		struct spgo_size_frame f = {spgo_name(r->in, r->nodes.v[x].name), line, disc};
		VEC_PUSH(&r->frames, f);
		line = r->nodes.v[x].line;
		disc = r->nodes.v[x].disc;
	}
	int64_t s = spgo_inline_sizes_get(r->sizes, r->frames.v, r->frames.n, NULL);
	if (s < 0) {
		r->st->size_unknown++;
		s = 0;
	}
	return (uint64_t)s;
}

/* ---- promotion (SampleContextTracker::promoteMergeContextSamplesTree) ------------------- */

static void set_state_subtree(struct pre *r, uint32_t k)
{
	if (r->nodes.v[k].prof != SPGO_NONE)
		r->profs.v[r->nodes.v[k].prof].state |= ST_SYNTH;
	for (uint32_t c = r->nodes.v[k].child; c != SPGO_NONE; c = r->nodes.v[c].sibling)
		set_state_subtree(r, c);
}

static void merge_node(struct pre *r, uint32_t from, uint32_t to)
{
	uint32_t fp = r->nodes.v[from].prof, tp = r->nodes.v[to].prof;
	if (fp != SPGO_NONE && tp != SPGO_NONE) {
		struct pprof *f = &r->profs.v[fp], *t = &r->profs.v[tp];
		/* t may be a profile merged away already (a recursive context
		 * promoted into its own parent): what goes there is lost, as
		 * in llvm-profgen */
		if (f->first == SPGO_NONE) {
		} else if (t->first == SPGO_NONE) {
			t->first = f->first;
			t->last = f->last;
		} else {
			r->next_member[t->last] = f->first;
			t->last = f->last;
		}
		f->first = f->last = SPGO_NONE;
		t->state |= ST_SYNTH;
		f->state |= ST_MERGED;
		t->attrs |= f->attrs & SPGO_ATTR_SHOULD_INLINE;
	} else if (fp != SPGO_NONE) {
		r->nodes.v[to].prof = fp;
		r->nodes.v[from].prof = SPGO_NONE;
		r->profs.v[fp].node = to;
		r->profs.v[fp].state |= ST_SYNTH;
	}
}

static uint32_t promote(struct pre *r, uint32_t from, uint32_t to_parent, int depth)
{
	struct pnode *fn = &r->nodes.v[from];
	int to_root = to_parent == 0;
	uint32_t line = to_root ? 0 : fn->line, disc = to_root ? 0 : fn->disc;
	uint32_t to = child_find(r, to_parent, line, disc, fn->name);
	if (to == SPGO_NONE) {
		unlink_child(r, from);
		fn = &r->nodes.v[from];
		fn->line = line;
		fn->disc = disc;
		link_child(r, to_parent, from);
		set_state_subtree(r, from);
		return from;
	}
	merge_node(r, from, to);
	if (depth < 10000)
		for (uint32_t c = r->nodes.v[from].child, next; c != SPGO_NONE; c = next) {
			next = r->nodes.v[c].sibling;
			promote(r, c, to, depth + 1);
		}
	r->nodes.v[from].child = SPGO_NONE;
	if (to_root)
		unlink_child(r, from);
	return to;
}

uint32_t pre_base_profile(struct pre *r, uint32_t name)
{
	uint32_t node = child_find(r, 0, 0, 0, name);
	uint64_t key = name;
	uint64_t *v = spgo_kmap_find(&r->byname, &key);
	for (uint32_t p = v ? (uint32_t)(*v - 1) : SPGO_NONE; p != SPGO_NONE; p = r->name_next[p]) {
		if (r->profs.v[p].state & (ST_INLINED | ST_MERGED))
			continue;
		uint32_t from = r->profs.v[p].node;
		if (from == node)
			continue;
		node = promote(r, from, 0, 0);
		r->st->promoted++;
	}
	return node == SPGO_NONE ? SPGO_NONE : r->nodes.v[node].prof;
}
