/*
 * Code bytes per inline context (the CSSPGO paper's Algorithm 3, as
 * llvm-profgen 19's BinarySizeContextTracker keeps them): the cost the
 * pre-inliner (src/context/preinline.c) charges for inlining a context.
 *
 * A reversed context trie: under the root, one node per leaf function;
 * under it, one per caller at a call site, and so on outwards.  Every
 * instruction added is symbolized (its DWARF inline chain) and its bytes
 * go to the node of that chain, leaf function first: the out-of-line code
 * of foo lands on [foo], the copy of foo inlined into bar at line 3 on
 * [bar:3 @ foo].  The chain is taken as llvm-symbolizer gives it to
 * llvm-profgen: linkage names (not made canonical), call sites as (line -
 * the function's decl_line) & 0xffff with the raw DWARF discriminator, or
 * in a binary with pseudo-probes the probe id the call discriminator
 * encodes ((d >> 3) & 0xffff, discriminator 0); the chain is cut above the
 * first frame without a name, counting from the outermost.
 *
 * Inlinees optimized away entirely leave no instruction, but their probes
 * stay in the inline tree of .pseudo_probe: every record with probes gets
 * a node of known size 0 (llvm-profgen's trackInlineesOptimizedAway).  The
 * paper's rule for DWARF (every caller context of an instruction known, 0
 * when it holds nothing itself) is there on request; llvm-profgen does not
 * apply it.
 *
 * Lookups take the longest known match along the context, leaf first;
 * with none, the first child by LLVM's call-site hash (MD5 GUID of the
 * name + loc * 33, loc = disc << 32 | line) is followed down to a known
 * size, as llvm-profgen's getFuncSizeForContext pivots to "a sibling".
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/probe.h"

#define MAX_FRAMES 64
#define NONE UINT32_MAX

struct snode {
	const char *name;
	uint64_t guid;
	uint32_t line, disc; /* the call site in this frame (0, 0 for the leaf level) */
	uint32_t parent;
	uint32_t first_child;   /* child with the smallest LLVM hash, or NONE */
	uint64_t first_hash;
	int64_t size;           /* -1: unknown */
};

struct spgo_inline_sizes {
	struct spgo_binary *bin;
	int probe_sites, zero_callers;
	VEC(struct snode) nodes; /* [0] is the root */
	struct spgo_kmap index;  /* {parent, guid, disc << 32 | line} -> node + 1 */
	struct spgo_cursor cur;
	/* probe inline tree, built on first use */
	uint32_t *pchild, *psibling; /* first child, next sibling of each record */
	uint8_t *phas;               /* record has probes */
	size_t pn;
};

/* LLVM's FunctionSamples::getCallSiteHash: the order of a node's children. */
static uint64_t site_hash(uint64_t guid, uint32_t line, uint32_t disc)
{
	uint64_t loc = (uint64_t)disc << 32 | line;
	return guid + (loc << 5) + loc;
}

static uint32_t child_find(const struct spgo_inline_sizes *s, uint32_t parent, uint64_t guid,
			   uint32_t line, uint32_t disc)
{
	uint64_t key[3] = {parent, guid, (uint64_t)disc << 32 | line};
	uint64_t *v = spgo_kmap_find(&s->index, key);
	return v ? (uint32_t)(*v - 1) : NONE;
}

static uint32_t child_get(struct spgo_inline_sizes *s, uint32_t parent, const char *name,
			  uint32_t line, uint32_t disc)
{
	uint64_t guid = spgo_guid(name);
	uint64_t key[3] = {parent, guid, (uint64_t)disc << 32 | line};
	uint64_t *v = spgo_kmap_upsert(&s->index, key);
	if (*v)
		return (uint32_t)(*v - 1);
	struct snode nd = {name, guid, line, disc, parent, NONE, 0, -1};
	VEC_PUSH(&s->nodes, nd);
	uint32_t k = (uint32_t)(s->nodes.n - 1);
	*v = (uint64_t)k + 1;
	struct snode *p = &s->nodes.v[parent];
	uint64_t h = site_hash(guid, line, disc);
	if (p->first_child == NONE || h < p->first_hash) {
		p->first_child = k;
		p->first_hash = h;
	}
	return k;
}

static void add_size(struct spgo_inline_sizes *s, uint32_t k, uint64_t bytes)
{
	struct snode *n = &s->nodes.v[k];
	n->size = (n->size < 0 ? 0 : n->size) + (int64_t)bytes;
}

/* The node of ctx[0..n) (leaf first), created on the way. */
static uint32_t path_get(struct spgo_inline_sizes *s, const struct spgo_size_frame *ctx, size_t n)
{
	uint32_t k = 0;
	for (size_t i = 0; i < n; i++)
		k = child_get(s, k, ctx[i].name, i ? ctx[i].line : 0, i ? ctx[i].disc : 0);
	return k;
}

struct spgo_inline_sizes *spgo_inline_sizes_new(struct spgo_binary *bin, int probe_sites,
						int zero_callers)
{
	struct spgo_inline_sizes *s = xcalloc(1, sizeof *s);
	s->bin = bin;
	s->probe_sites = probe_sites;
	s->zero_callers = zero_callers;
	struct snode root = {"", 0, 0, 0, NONE, NONE, 0, -1};
	VEC_PUSH(&s->nodes, root);
	spgo_kmap_init(&s->index, 3);
	return s;
}

void spgo_inline_sizes_free(struct spgo_inline_sizes *s)
{
	if (!s)
		return;
	VEC_FREE(&s->nodes);
	spgo_kmap_free(&s->index);
	free(s->pchild);
	free(s->psibling);
	free(s->phas);
	free(s);
}

/* The inline chain at addr as leaf-first size frames; 0 without debug
 * information.  *until: the end of the run with the same answer. */
static size_t chain_at(struct spgo_inline_sizes *s, uint64_t addr, struct spgo_size_frame *out,
		       uint64_t *until)
{
	struct spgo_frame fr[MAX_FRAMES];
	int n = spgo_binary_symbolize_until(s->bin, &s->cur, addr, fr, MAX_FRAMES, until);
	if (n <= 0)
		return 0;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	/* llvm-profgen scans outermost first and stops at a nameless frame */
	int lo = 0;
	for (int i = n - 1; i >= 0; i--)
		if (!fr[i].function) {
			lo = i + 1;
			break;
		}
	size_t m = 0;
	for (int i = lo; i < n; i++, m++) {
		out[m].name = fr[i].function;
		if (s->probe_sites) {
			out[m].line = (fr[i].discriminator >> 3) & 0xffff;
			out[m].disc = 0;
		} else {
			out[m].line = (fr[i].line - fr[i].decl_line) & 0xffff;
			out[m].disc = fr[i].discriminator;
		}
	}
	return m;
}

int spgo_inline_sizes_add_range(struct spgo_inline_sizes *s, uint64_t start, uint64_t end)
{
	size_t ni;
	const struct spgo_insn *in = spgo_binary_insns(s->bin, &ni);
	size_t lo;
	SPGO_LOWER_BOUND(lo, in, ni, addr, start);
	struct spgo_size_frame ctx[MAX_FRAMES];
	size_t n = 0;
	uint64_t until = 0;
	uint32_t k = 0;
	for (size_t i = lo; i < ni && in[i].addr < end; i++) {
		if (in[i].addr >= until || i == lo) {
			n = chain_at(s, in[i].addr, ctx, &until);
			k = path_get(s, ctx, n);
			if (s->zero_callers) /* the paper: caller contexts are known */
				for (size_t j = 1; j < n; j++) {
					uint32_t c = path_get(s, ctx + j, n - j);
					if (s->nodes.v[c].size < 0)
						s->nodes.v[c].size = 0;
				}
		}
		add_size(s, k, in[i].size);
	}
	return 0;
}

/* The records of the probe inline tree as first-child / next-sibling lists
 * and which records hold probes. */
static void probe_tree(struct spgo_inline_sizes *s)
{
	if (s->pchild)
		return;
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(s->bin, &s->pn);
	size_t np;
	const struct spgo_probe *pr = spgo_binary_probes(s->bin, &np);
	s->pchild = xmalloc((s->pn + 1) * sizeof *s->pchild);
	s->psibling = xmalloc((s->pn + 1) * sizeof *s->psibling);
	s->phas = xcalloc(s->pn + 1, 1);
	memset(s->pchild, 0xff, (s->pn + 1) * sizeof *s->pchild);
	memset(s->psibling, 0xff, (s->pn + 1) * sizeof *s->psibling);
	for (size_t i = s->pn; i-- > 0;)
		if (nodes[i].parent >= 0) {
			s->psibling[i] = s->pchild[nodes[i].parent];
			s->pchild[nodes[i].parent] = (uint32_t)i;
		}
	for (size_t i = 0; i < np; i++)
		if (pr[i].node < s->pn)
			s->phas[pr[i].node] = 1;
}

static void probe_walk(struct spgo_inline_sizes *s, uint32_t r, struct spgo_size_frame *ctx,
		       size_t depth)
{
	size_t nd;
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(s->bin, &nd);
	const struct spgo_probe_desc *desc = spgo_binary_probe_desc(s->bin, nodes[r].guid);
	if (!desc || !desc->name || depth >= MAX_FRAMES)
		return;
	/* ctx holds the callers outermost first at [0, depth) */
	ctx[depth].name = desc->name;
	ctx[depth].line = ctx[depth].disc = 0;
	if (s->phas[r]) {
		struct spgo_size_frame rev[MAX_FRAMES];
		for (size_t i = 0; i <= depth; i++) {
			rev[i].name = ctx[depth - i].name;
			rev[i].line = ctx[depth - i].line;
			rev[i].disc = 0;
		}
		uint32_t k = path_get(s, rev, depth + 1);
		if (s->nodes.v[k].size < 0)
			s->nodes.v[k].size = 0;
	}
	for (uint32_t c = s->pchild[r]; c != NONE; c = s->psibling[c]) {
		ctx[depth].line = nodes[c].callsite;
		probe_walk(s, c, ctx, depth + 1);
	}
}

void spgo_inline_sizes_add_probe_tree(struct spgo_inline_sizes *s, uint64_t guid)
{
	if (spgo_binary_load_probes(s->bin) <= 0)
		return;
	probe_tree(s);
	size_t nd;
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(s->bin, &nd);
	struct spgo_size_frame ctx[MAX_FRAMES];
	for (size_t i = 0; i < nd; i++)
		if (nodes[i].parent < 0 && nodes[i].guid == guid)
			probe_walk(s, (uint32_t)i, ctx, 0);
}

int64_t spgo_inline_sizes_get(const struct spgo_inline_sizes *s, const struct spgo_size_frame *ctx,
			      size_t n, int *exact)
{
	uint32_t cur = 0, prev = 0;
	int64_t size = -1;
	size_t matched = 0;
	for (size_t i = 0; i < n && cur != NONE; i++) {
		prev = cur;
		cur = child_find(s, cur, spgo_guid(ctx[i].name), i ? ctx[i].line : 0, i ? ctx[i].disc : 0);
		if (cur != NONE && s->nodes.v[cur].size >= 0) {
			size = s->nodes.v[cur].size;
			matched = i + 1;
		}
	}
	if (exact)
		*exact = size >= 0 && matched == n;
	if (size >= 0)
		return size;
	/* no size along the path: follow first children down */
	if (cur == NONE)
		cur = prev;
	while (size < 0 && cur != NONE && s->nodes.v[cur].first_child != NONE) {
		cur = s->nodes.v[cur].first_child;
		size = s->nodes.v[cur].size;
	}
	return size;
}

/* Walk up from node k writing "outer:loc @ ... @ leaf". */
static void print_ctx(const struct spgo_inline_sizes *s, uint32_t k, FILE *fp)
{
	/* the reversed trie: k's ancestors are the leaf and its inner frames */
	uint32_t chain[MAX_FRAMES * 4];
	size_t n = 0;
	for (uint32_t x = k; x && n < SPGO_ARRAY_LEN(chain); x = s->nodes.v[x].parent)
		chain[n++] = x;
	/* chain[0] is the outermost frame, chain[n - 1] the leaf */
	for (size_t i = 0; i < n; i++) {
		const struct snode *nd = &s->nodes.v[chain[i]];
		fputs(nd->name, fp);
		if (i + 1 < n) {
			fprintf(fp, ":%u", nd->line);
			if (nd->disc)
				fprintf(fp, ".%u", nd->disc);
			fputs(" @ ", fp);
		}
	}
}

size_t spgo_inline_sizes_print(const struct spgo_inline_sizes *s, FILE *fp)
{
	size_t known = 0;
	for (size_t k = 1; k < s->nodes.n; k++) {
		if (s->nodes.v[k].size < 0)
			continue;
		known++;
		if (!fp)
			continue;
		print_ctx(s, (uint32_t)k, fp);
		fprintf(fp, " %lld\n", (long long)s->nodes.v[k].size);
	}
	return known;
}
