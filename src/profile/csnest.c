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
/* The children of node k in the order of the trie's std::map (by
 * spgo_callsite_hash); *nc of them, NULL when none.  Caller frees. */
static struct child_key *kids_of(const struct nest *n, uint32_t k, size_t *nc)
{
	*nc = 0;
	for (uint32_t c = n->nodes.v[k].child; c != SPGO_NONE; c = n->nodes.v[c].sibling)
		(*nc)++;
	if (!*nc)
		return NULL;
	struct child_key *kids = xmalloc(*nc * sizeof *kids);
	size_t i = 0;
	for (uint32_t c = n->nodes.v[k].child; c != SPGO_NONE; c = n->nodes.v[c].sibling) {
		const struct node *cn = &n->nodes.v[c];
		kids[i].hash = spgo_callsite_hash(n->out, cn->name, cn->line, cn->disc);
		kids[i++].node = c;
	}
	qsort(kids, *nc, sizeof *kids, child_cmp);
	return kids;
}

static void first_merged(struct nest *n, uint32_t k, struct spgo_kmap *done, int depth)
{
	if (depth > 10000)
		return;
	size_t nc;
	struct child_key *kids = kids_of(n, k, &nc);
	if (!kids)
		return;
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

/*
 * The order of llvm-profgen's ProfileMap once converted, which its writer
 * follows for the function metadata (llvm_map.c).  The map is filled from
 * the context trie depth first, a context before its callees, children in
 * the trie's order (CSProfileGenerator::convertToProfileMap), each keyed by
 * its context's hash; then ProfileConverter walks the same trie children
 * first: a child placed into its caller's profile is erased from the map;
 * a child without a profiled caller is merged into its function's plain
 * profile (inserted, keyed by the name's hash, if not there) before its own
 * entry is erased.  What is left are the plain profiles, in map order.
 */
struct order {
	struct nest *n;
	struct spgo_map map;
	VEC(uint64_t) path; /* hash codes of the frames above, outermost first */
	uint64_t *key;      /* node -> its context's key in the map */
	int keys_only;      /* order_fill: the keys, no insertions */
	int bad;
};

static void order_fill(struct order *o, uint32_t k, int depth)
{
	const struct node *nd = &o->n->nodes.v[k];
	if (depth > 10000) {
		o->bad = 1;
		return;
	}
	if (nd->prof != SPGO_NONE) {
		VEC_PUSH(&o->path, spgo_callsite_hash(o->n->out, nd->name, 0, 0));
		o->key[k] = spgo_llvm_hash_u64s(o->path.v, o->path.n);
		o->path.n--;
		if (!o->keys_only && spgo_map_insert(&o->map, o->key[k], SPGO_NONE) < 0)
			o->bad = 1;
	}
	size_t nc;
	struct child_key *kids = kids_of(o->n, k, &nc);
	for (size_t i = 0; i < nc && !o->bad; i++) {
		const struct node *cn = &o->n->nodes.v[kids[i].node];
		VEC_PUSH(&o->path, spgo_callsite_hash(o->n->out, o->n->nodes.v[k].name, cn->line, cn->disc));
		order_fill(o, kids[i].node, depth + 1);
		o->path.n--;
	}
	free(kids);
}

static void order_convert(struct order *o, uint32_t k, int depth)
{
	if (depth > 10000) {
		o->bad = 1;
		return;
	}
	size_t nc;
	struct child_key *kids = kids_of(o->n, k, &nc);
	int profiled = o->n->nodes.v[k].prof != SPGO_NONE;
	for (size_t i = 0; i < nc && !o->bad; i++) {
		uint32_t c = kids[i].node;
		order_convert(o, c, depth + 1);
		const struct node *cn = &o->n->nodes.v[c];
		if (cn->prof == SPGO_NONE)
			continue;
		uint64_t base = 0;
		if (!profiled) {
			base = spgo_callsite_hash(o->n->out, cn->name, 0, 0);
			if (spgo_map_insert(&o->map, base, cn->name) < 0)
				o->bad = 1;
		}
		if (base != o->key[c])
			spgo_map_erase(&o->map, o->key[c]);
	}
	free(kids);
}

/* The map of o's input, from its top list in map order (every profile of
 * which has a context and a trie node). */
static void restore_map(struct order *o)
{
	const struct spgo_profile *in = o->n->in;
	uint32_t *node_of = xmalloc((in->funcs.n + 1) * sizeof *node_of);
	memset(node_of, 0xff, (in->funcs.n + 1) * sizeof *node_of);
	for (size_t k = 0; k < o->n->nodes.n; k++)
		if (o->n->nodes.v[k].prof != SPGO_NONE)
			node_of[o->n->nodes.v[k].prof] = (uint32_t)k;
	uint64_t *keys = xmalloc((in->top.n + 1) * sizeof *keys);
	for (size_t i = 0; i < in->top.n && !o->bad; i++) {
		uint32_t k = node_of[in->top.v[i]];
		if (k == SPGO_NONE)
			o->bad = 1;
		else
			keys[i] = o->key[k];
	}
	if (!o->bad)
		spgo_map_restore(&o->map, keys, in->top.n, in->map_buckets);
	free(keys);
	free(node_of);
}

/* Put n->out's top-level profiles in that order and say so
 * (SPGO_PROF_MAP_ORDER); left as they are when the orders cannot be
 * matched up. */
static void map_order(struct nest *n)
{
	const struct spgo_profile *in = n->in;
	struct spgo_profile *out = n->out;
	struct order o = {.n = n};
	spgo_map_init(&o.map);
	o.key = xmalloc(n->nodes.n * sizeof *o.key);
	for (size_t i = 0; i < in->top.n && !o.bad; i++) { /* plain profiles: keyed by name */
		const struct spgo_func *fn = &in->funcs.v[in->top.v[i]];
		if (fn->ctx == SPGO_NONE) {
			uint32_t nm = oname(n, fn->name);
			if (spgo_map_insert(&o.map, spgo_callsite_hash(out, nm, 0, 0), nm) < 0)
				o.bad = 1;
		}
	}
	/* A flat profile in llvm-profgen's map order (cold contexts merged
	 * or trimmed, spgo_pmap_*) gives the map as it was: its order and
	 * bucket count; else the map is filled from the trie. */
	o.keys_only = (in->flags & SPGO_PROF_MAP_ORDER) && in->map_buckets;
	size_t nc;
	struct child_key *kids = kids_of(n, 0, &nc);
	for (size_t i = 0; i < nc && !o.bad; i++)
		order_fill(&o, kids[i].node, 1);
	free(kids);
	if (o.keys_only && !o.bad && !o.map.count)
		restore_map(&o);
	else if (o.keys_only)
		o.bad = 1;
	if (!o.bad)
		order_convert(&o, 0, 0);
	uint8_t *seen = xcalloc(out->funcs.n + 1, 1);
	VEC(uint32_t) top = {0};
	for (uint32_t x = spgo_map_first(&o.map); x != UINT32_MAX && !o.bad; x = spgo_map_next(&o.map, x)) {
		uint32_t tag = o.map.nodes.v[x].tag, f;
		if (tag == SPGO_NONE || (f = spgo_func_find_id(out, tag)) == SPGO_NONE || seen[f])
			o.bad = 1;
		else {
			seen[f] = 1;
			VEC_PUSH(&top, f);
		}
	}
	if (!o.bad && top.n == out->top.n) {
		memcpy(out->top.v, top.v, top.n * sizeof *top.v);
		out->flags |= SPGO_PROF_MAP_ORDER;
	}
	VEC_FREE(&top);
	free(seen);
	free(o.key);
	VEC_FREE(&o.path);
	spgo_map_free(&o.map);
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
	n.out->flags = in->flags & ~(unsigned)(SPGO_PROF_CS | SPGO_PROF_MAP_ORDER);
	map_order(&n);
	spgo_profile_finalize(n.out, 0);
out:
	VEC_FREE(&n.nodes);
	VEC_FREE(&n.frames);
	spgo_kmap_free(&n.index);
	free(n.namemap);
	return n.out;
}
