/*
 * Flat context-sensitive profile -> nested profile, as LLVM's
 * ProfileConverter does it (llvm-profdata merge
 * --convert-sample-profile-layout=nest):
 *
 *  - the contexts form a trie: [main:3 @ foo:2 @ bar] hangs under
 *    [main:3 @ foo], which hangs under [main];
 *  - bottom up, a context whose caller context has a profile becomes an
 *    inlinee of it at the callsite; the caller's total grows by the
 *    callee's total, and the call target to the callee at that callsite is
 *    removed from the caller's body sample (whose count drops by the
 *    target's count; a body sample left at zero is dropped);
 *  - a context whose caller has no profile becomes (or merges into) the
 *    plain top-level profile of its function; that profile's attributes
 *    are those of the first context merged into it (FunctionSamples::merge
 *    copies the context, attributes and all, into an empty profile only),
 *    in the converter's order: depth first, children before their parent,
 *    siblings in the order of their hash (first_merged below).
 */
#include "profile/profile_impl.h"
#include "spgo/profile.h"

#include <stdlib.h>
#include <string.h>

struct node {
	uint32_t name;      /* function name id (in the output profile) */
	uint32_t line, disc; /* callsite in the parent frame */
	uint32_t parent;
	uint32_t prof;      /* context profile in the input, or SPGO_NONE */
	uint32_t child, sibling;
};

struct nest {
	const struct spgo_profile *in;
	struct spgo_profile *out;
	VEC(struct node) nodes;
	struct spgo_kmap index; /* (parent, line<<32|disc, name) -> node + 1 */
	uint32_t *namemap;      /* input name id -> output name id */
	spgo_ctx_frames frames; /* scratch for add_context */
};

static uint32_t oname(struct nest *n, uint32_t id)
{
	if (n->namemap[id] == SPGO_NONE) {
		const char *s = spgo_name(n->in, id);
		n->namemap[id] = spgo_name_id(n->out, s, spgo_name_len(n->in, id));
	}
	return n->namemap[id];
}

static uint32_t node_get(struct nest *n, uint32_t parent, uint32_t line, uint32_t disc,
			 uint32_t name)
{
	uint64_t key[3] = {parent, (uint64_t)line << 32 | disc, name};
	uint64_t *v = spgo_kmap_upsert(&n->index, key);
	if (!*v) {
		struct node nd = {name, line, disc, parent, SPGO_NONE, SPGO_NONE, SPGO_NONE};
		if (parent != SPGO_NONE)
			nd.sibling = n->nodes.v[parent].child;
		VEC_PUSH(&n->nodes, nd);
		uint32_t k = (uint32_t)(n->nodes.n - 1);
		if (parent != SPGO_NONE)
			n->nodes.v[parent].child = k;
		*v = (uint64_t)k + 1;
	}
	return (uint32_t)(*v - 1);
}

/* Parse "a:1 @ b:2.3 @ c" into trie nodes; returns the leaf node.  Each
 * node is keyed by its parent, the call site in the parent, and its name. */
static int add_context(struct nest *n, uint32_t root, const char *s, uint32_t *leaf)
{
	if (spgo_ctx_split(n->out, s, &n->frames) < 0)
		return -1;
	uint32_t cur = root, line = 0, disc = 0;
	for (size_t i = 0; i < n->frames.n; i++) {
		const struct spgo_ctx_frame *fr = &n->frames.v[i];
		cur = node_get(n, cur, line, disc, fr->name);
		line = fr->line;
		disc = fr->disc;
	}
	*leaf = cur;
	return 0;
}

/* Copy the input profile of node k into output profile `home`, leaving out
 * the call targets to the children that get inlined, and dropping body
 * samples those removals leave at zero.  Returns the samples removed. */
static uint64_t copy_into(struct nest *n, uint32_t k, uint32_t home)
{
	const struct spgo_profile *in = n->in;
	struct spgo_profile *out = n->out;
	const struct node *nd = &n->nodes.v[k];
	const struct spgo_func *s = &in->funcs.v[nd->prof];
	uint64_t removed = 0;
	for (uint32_t b = s->bodies; b != SPGO_NONE; b = in->bodies.v[b].next) {
		const struct spgo_body *sb = &in->bodies.v[b];
		uint64_t cnt = sb->count, cut = 0;
		int inlined_here = 0;
		for (uint32_t c = nd->child; c != SPGO_NONE; c = n->nodes.v[c].sibling) {
			const struct node *cn = &n->nodes.v[c];
			if (cn->prof == SPGO_NONE || cn->line != sb->line || cn->disc != sb->disc)
				continue;
			inlined_here = 1;
			for (uint32_t t = sb->targets; t != SPGO_NONE; t = in->targets.v[t].next)
				if (oname(n, in->targets.v[t].name) == cn->name)
					cut += in->targets.v[t].count;
		}
		uint64_t left = cnt > cut ? cnt - cut : 0;
		removed += cnt - left;
		if (inlined_here && left == 0)
			continue;
		uint32_t db = spgo_body_get(out, home, sb->line, sb->disc);
		out->bodies.v[db].count += left;
		for (uint32_t t = sb->targets; t != SPGO_NONE; t = in->targets.v[t].next) {
			uint32_t tn = oname(n, in->targets.v[t].name);
			int drop = 0;
			for (uint32_t c = nd->child; c != SPGO_NONE && !drop; c = n->nodes.v[c].sibling) {
				const struct node *cn = &n->nodes.v[c];
				drop = cn->prof != SPGO_NONE && cn->line == sb->line && cn->disc == sb->disc &&
				       cn->name == tn;
			}
			if (!drop)
				spgo_add_target_id(out, db, tn, in->targets.v[t].count);
		}
	}
	/* inlinees already in the input (preinlined contexts) come along whole */
	for (uint32_t c = s->children; c != SPGO_NONE; c = in->funcs.v[c].sibling) {
		const struct spgo_func *sc = &in->funcs.v[c];
		uint32_t dc = spgo_inlinee_get_id(out, home, sc->line, sc->disc, oname(n, sc->name));
		spgo_func_merge(out, dc, in, c, 1, n->namemap);
	}
	struct spgo_func *h = &out->funcs.v[home];
	if (!h->checksum)
		h->checksum = s->checksum;
	h->attrs |= s->attrs;
	return removed;
}

static void scan(struct nest *n, uint32_t k, int depth);

/* Place the profile of node k at output profile `home`, its profiled
 * children as inlinees (recursively), and return its total: its own, plus
 * its inlinees', less the call-target samples removed. */
static uint64_t place(struct nest *n, uint32_t k, uint32_t home, int depth)
{
	uint64_t removed = copy_into(n, k, home);
	uint64_t total = n->in->funcs.v[n->nodes.v[k].prof].total;
	for (uint32_t c = n->nodes.v[k].child; c != SPGO_NONE; c = n->nodes.v[c].sibling) {
		struct node *cn = &n->nodes.v[c];
		if (cn->prof == SPGO_NONE) {
			scan(n, c, depth + 1);
			continue;
		}
		uint32_t ch = spgo_inlinee_get_id(n->out, home, cn->line, cn->disc, cn->name);
		total += place(n, c, ch, depth + 1);
	}
	total = total > removed ? total - removed : 0;
	spgo_add_total(n->out, home, total);
	return total;
}

/* Below a node without a profile, a profiled node starts a top-level
 * profile of its function (merged with others of the same function). */
static void scan(struct nest *n, uint32_t k, int depth)
{
	if (depth > 10000)
		return;
	for (uint32_t c = n->nodes.v[k].child; c != SPGO_NONE; c = n->nodes.v[c].sibling) {
		struct node *cn = &n->nodes.v[c];
		if (cn->prof == SPGO_NONE) {
			scan(n, c, depth + 1);
			continue;
		}
		uint32_t h = spgo_func_get_id(n->out, cn->name);
		spgo_add_head(n->out, h, n->in->funcs.v[cn->prof].head);
		place(n, c, h, depth + 1);
	}
}

struct child_key {
	uint64_t hash;
	uint32_t node;
};

static int child_cmp(const void *a, const void *b)
{
	const struct child_key *x = a, *y = b;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/*
 * The attributes of each top-level profile made of contexts: the first
 * context's merged into it in ProfileConverter's order.  Its trie keeps a
 * node's children in a std::map by the hash of (callee, call site):
 * spgo_callsite_hash; each child's subtree is converted before the child
 * itself is placed.  done: top-level profiles whose attributes are settled.
 */
static void first_merged(struct nest *n, uint32_t k, struct spgo_kmap *done, int depth)
{
	if (depth > 10000)
		return;
	size_t nc = 0;
	for (uint32_t c = n->nodes.v[k].child; c != SPGO_NONE; c = n->nodes.v[c].sibling)
		nc++;
	if (!nc)
		return;
	struct child_key *kids = xmalloc(nc * sizeof *kids);
	nc = 0;
	for (uint32_t c = n->nodes.v[k].child; c != SPGO_NONE; c = n->nodes.v[c].sibling) {
		const struct node *cn = &n->nodes.v[c];
		kids[nc].hash = spgo_callsite_hash(n->out, cn->name, cn->line, cn->disc);
		kids[nc++].node = c;
	}
	qsort(kids, nc, sizeof *kids, child_cmp);
	int profiled = n->nodes.v[k].prof != SPGO_NONE;
	for (size_t i = 0; i < nc; i++) {
		uint32_t c = kids[i].node;
		first_merged(n, c, done, depth + 1);
		const struct node *cn = &n->nodes.v[c];
		if (profiled || cn->prof == SPGO_NONE)
			continue;
		uint32_t h = spgo_func_get_id(n->out, cn->name);
		uint64_t key = h;
		uint64_t *v = spgo_kmap_upsert(done, &key);
		if (*v)
			continue;
		*v = 1;
		n->out->funcs.v[h].attrs = n->in->funcs.v[cn->prof].attrs;
	}
	free(kids);
}

struct spgo_profile *spgo_profile_cs_nest(const struct spgo_profile *in)
{
	struct nest n = {.in = in};
	n.out = spgo_profile_new();
	spgo_kmap_init(&n.index, 3);
	n.namemap = xmalloc((in->names.n + 1) * sizeof *n.namemap);
	memset(n.namemap, 0xff, (in->names.n + 1) * sizeof *n.namemap);
	struct node root = {SPGO_NONE, 0, 0, SPGO_NONE, SPGO_NONE, SPGO_NONE, SPGO_NONE};
	VEC_PUSH(&n.nodes, root);
	for (size_t i = 0; i < in->top.n; i++) {
		uint32_t f = in->top.v[i], leaf = 0;
		const struct spgo_func *fn = &in->funcs.v[f];
		if (fn->ctx == SPGO_NONE) { /* a plain profile stays as it is */
			uint32_t h = spgo_func_get_id(n.out, oname(&n, fn->name));
			spgo_func_merge(n.out, h, in, f, 1, n.namemap);
			continue;
		}
		if (add_context(&n, 0, spgo_strtab_get(&in->contexts, fn->ctx), &leaf) < 0) {
			spgo_profile_free(n.out);
			n.out = NULL;
			goto out;
		}
		n.nodes.v[leaf].prof = f;
	}
	scan(&n, 0, 0);
	struct spgo_kmap done;
	spgo_kmap_init(&done, 1);
	for (size_t i = 0; i < in->top.n; i++) /* plain profiles came first */
		if (in->funcs.v[in->top.v[i]].ctx == SPGO_NONE) {
			uint64_t key = spgo_func_get_id(n.out, oname(&n, in->funcs.v[in->top.v[i]].name));
			*spgo_kmap_upsert(&done, &key) = 1;
		}
	first_merged(&n, 0, &done, 0);
	spgo_kmap_free(&done);
	n.out->flags = in->flags & ~(unsigned)SPGO_PROF_CS;
	spgo_profile_finalize(n.out, 0);
out:
	VEC_FREE(&n.nodes);
	VEC_FREE(&n.frames);
	spgo_kmap_free(&n.index);
	free(n.namemap);
	return n.out;
}
