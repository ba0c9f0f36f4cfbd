/*
 * gen_cs_truth.c: the reference context-sensitive profile of an exact
 * context-sensitive ground truth (spgo/ground_truth.h, one view), made by
 * the source-level rules of `spgo gen --cs` (src/context/profile.c) so
 * that the two compare block by block:
 *
 *  - the context of an instruction is its context's call sites followed by
 *    the instruction itself, each address expanded to its named inline
 *    frames (an address without one drops the context, as llvm-profgen
 *    does), recursion compressed on the frames but the leaf, the leaf
 *    frame without a location; "was inlined" when the leaf is an inlinee;
 *  - body samples: per location the MAX over its instructions of count x
 *    duplication factor, the total adds every instruction's count;
 *  - taken transfers into a function entry: a call target at the source's
 *    location in the source's context and head samples of the callee's
 *    context (that context plus ":line.disc @ callee"); from outside the
 *    binary, head samples of the callee's plain context;
 *  - a context without head samples (an inlined copy) gives its caller the
 *    call-site count estimated from its first body sample; body samples
 *    are raised to the sum of their call targets; __cxx_global_var_init and
 *    __tls_init profiles are dropped.
 *
 * Unlike `spgo gen --cs`, cold contexts are not merged into base profiles:
 * the reference keeps every context, and spgo_cs_overlap() projects it on
 * the contexts the measured profile has.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/context.h"
#include "spgo/gen.h"
#include "spgo/ground_truth.h"
#include "spgo/probe.h"

#define MAX_INLINE 64

struct xframe {
	uint32_t name, line, disc;
};

/* What an address contributes: its named inline frames (outermost first,
 * in the frames arena) and the innermost location. */
struct aloc {
	size_t off;
	uint32_t n; /* named frames; 0: no debug information */
	uint32_t line, disc, raw, dup;
	uint32_t chain; /* interned text of the frames, for the context cache */
};

struct tgen {
	struct spgo_binary *bin;
	struct spgo_profile *p;
	int compress;
	struct spgo_frame fr[MAX_INLINE];
	VEC(struct xframe) arena;
	VEC(struct aloc) locs;
	struct spgo_kmap loc_of;  /* addr -> locs index + 1 */
	struct spgo_strtab chains;
	struct spgo_kmap ctx_of;  /* (context, chain) -> profile + 1 (SPGO_NONE: none) */
	VEC(struct xframe) frames;
	VEC(char) str;
	uint64_t no_debug;
};

static const struct aloc *loc_at(struct tgen *g, uint64_t addr)
{
	uint64_t *slot = spgo_kmap_upsert(&g->loc_of, &addr);
	if (*slot)
		return &g->locs.v[*slot - 1];
	struct aloc l = {.off = g->arena.n};
	int n = spgo_binary_symbolize(g->bin, addr, g->fr, MAX_INLINE);
	if (n > MAX_INLINE)
		n = MAX_INLINE;
	if (n < 0)
		n = 0;
	int named = 0;
	while (named < n && g->fr[n - 1 - named].function)
		named++;
	g->str.n = 0;
	for (int j = n - 1; j >= n - named; j--) {
		const struct spgo_frame *f = &g->fr[j];
		const char *name = f->function;
		size_t len = spgo_profgen_canonical_len(name, strlen(name));
		struct xframe x = {spgo_name_id(g->p, name, len), (f->line - f->decl_line) & 0xffff,
				   f->base_discriminator};
		VEC_PUSH(&g->arena, x);
		char buf[48];
		int k = snprintf(buf, sizeof buf, "%u:%u.%u/", x.name, x.line, x.disc);
		VEC_GROW(&g->str, g->str.n + (size_t)k + 1);
		memcpy(g->str.v + g->str.n, buf, (size_t)k);
		g->str.n += (size_t)k;
	}
	if (named) {
		const struct spgo_frame *f = &g->fr[n - named]; /* the innermost named */
		l.n = (uint32_t)named;
		l.line = (f->line - f->decl_line) & 0xffff;
		l.disc = f->base_discriminator;
		l.raw = f->discriminator;
		l.dup = f->dup_factor ? f->dup_factor : 1;
	}
	/* The chain's text: every frame but the innermost location. */
	if (named) {
		struct xframe last = g->arena.v[g->arena.n - 1];
		char buf[16];
		int k = snprintf(buf, sizeof buf, "%u", last.name);
		/* drop the innermost "name:line.disc/" and write its name alone */
		char *cut = g->str.v + g->str.n - 1;
		while (cut > g->str.v && cut[-1] != '/')
			cut--;
		g->str.n = (size_t)(cut - g->str.v);
		VEC_GROW(&g->str, g->str.n + (size_t)k + 1);
		memcpy(g->str.v + g->str.n, buf, (size_t)k);
		g->str.n += (size_t)k;
	}
	VEC_GROW(&g->str, g->str.n + 1);
	g->str.v[g->str.n] = 0;
	l.chain = spgo_strtab_intern(&g->chains, g->str.v, g->str.n);
	VEC_PUSH(&g->locs, l);
	*slot = g->locs.n;
	return &g->locs.v[g->locs.n - 1];
}

static void str_add(struct tgen *g, const char *s, size_t n)
{
	VEC_GROW(&g->str, g->str.n + n + 1);
	memcpy(g->str.v + g->str.n, s, n);
	g->str.n += n;
}

static void str_loc(struct tgen *g, uint32_t line, uint32_t disc)
{
	char buf[32];
	str_add(g, buf, (size_t)spgo_profgen_loc(buf, sizeof buf, line, disc, ""));
}

/* The profile of context c of view w at addr, or SPGO_NONE. */
static uint32_t context_at(struct tgen *g, const struct spgo_gt_cs_view *w, uint32_t c, uint64_t addr)
{
	const struct aloc *leaf = loc_at(g, addr);
	uint64_t key[2] = {c, leaf->chain};
	uint64_t *slot = spgo_kmap_upsert(&g->ctx_of, key);
	if (*slot)
		return (uint32_t)(*slot - 1);
	uint32_t result = SPGO_NONE;
	g->frames.n = 0;
	int ok = leaf->n > 0;
	for (size_t k = w->ctx_off[c]; ok && k <= w->ctx_off[c + 1]; k++) {
		const struct aloc *l = k < w->ctx_off[c + 1] ? loc_at(g, w->sites[k]) : loc_at(g, addr);
		if (!l->n) {
			ok = 0;
			break;
		}
		for (uint32_t j = 0; j < l->n; j++)
			VEC_PUSH(&g->frames, g->arena.v[l->off + j]);
	}
	leaf = loc_at(g, addr); /* loc_at may have moved the array */
	if (ok && g->frames.n) {
		size_t m = g->frames.n - 1; /* the leaf keeps no location */
		struct xframe lf = g->frames.v[m];
		m = spgo_cs_compress(g->frames.v, m, sizeof *g->frames.v, g->compress);
		g->str.n = 0;
		for (size_t i = 0; i < m; i++) {
			const struct xframe *f = &g->frames.v[i];
			str_add(g, spgo_name(g->p, f->name), spgo_name_len(g->p, f->name));
			str_loc(g, f->line, f->disc);
			str_add(g, " @ ", 3);
		}
		str_add(g, spgo_name(g->p, lf.name), spgo_name_len(g->p, lf.name));
		result = spgo_func_get_ctx(g->p, g->str.v, g->str.n);
		if (leaf->n > 1)
			spgo_fn(g->p, result)->attrs |= SPGO_ATTR_WAS_INLINED;
	}
	slot = spgo_kmap_upsert(&g->ctx_of, key);
	*slot = (uint64_t)result + 1;
	return result;
}

/* The function entered at addr (not a split part such as foo.cold), or NULL. */
static const struct spgo_function *entry_at(struct tgen *g, uint64_t addr)
{
	const struct spgo_function *f = spgo_binary_function_at(g->bin, addr);
	if (!f || f->start != addr || !f->has_debug)
		return NULL;
	if (f->parent >= 0 && !strstr(f->symbol, ".part."))
		return NULL;
	return f;
}

/*
 * The probe-keyed reference: the view's counts as a frame trie in probe
 * mode -- a node per context's call sites, every counted instruction a
 * range of its own on its context's node, every taken transfer a branch
 * there (a call's in the caller's context, as the unwinder records it) --
 * made a profile by the rules of `spgo gen --cs` on a probe binary
 * (src/context/probe.c), without missing-frame inference: the counts are
 * exact and the view says which frames there are.
 */
static int truth_cs_probes(struct spgo_binary *bin, const struct spgo_gt_cs_view *w, int compress,
			   struct spgo_profile **out)
{
	struct spgo_cs_code code;
	if (spgo_cs_code_init(&code, bin) < 0)
		return -1;
	struct spgo_cs_opts o;
	spgo_cs_defaults(&o);
	o.infer_missing_frames = 0;
	o.compress_recursion = compress;
	struct spgo_cs_stats st;
	memset(&st, 0, sizeof st);
	struct spgo_cs_trie t;
	spgo_cs_trie_init(&t, &code, &o, &st);
	t.probes = 1;
	uint32_t *node = xmalloc((w->n_ctx + 1) * sizeof *node);
	for (size_t c = 0; c < w->n_ctx; c++) {
		uint32_t x = SPGO_CS_ROOT;
		for (size_t k = w->ctx_off[c]; k < w->ctx_off[c + 1]; k++) {
			uint64_t key[2] = {x, w->sites[k]};
			uint64_t *v = spgo_kmap_upsert(&t.index, key);
			if (!*v) {
				struct spgo_cs_node nd = {w->sites[k], x};
				VEC_PUSH(&t.nodes, nd);
				*v = t.nodes.n;
			}
			x = (uint32_t)(*v - 1);
		}
		node[c] = x;
	}
	for (size_t i = 0; i < w->n_insns; i++) {
		const struct spgo_gt_cs_insn *in = &w->insns[i];
		uint64_t key[3] = {node[in->ctx], in->addr, in->addr};
		*spgo_kmap_upsert(&t.ranges, key) += in->count;
	}
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct spgo_gt_cs_edge *e = &w->edges[i];
		if (e->kind != 'T' || e->from == SPGO_GT_OUTSIDE || e->to == SPGO_GT_OUTSIDE)
			continue;
		uint64_t key[3] = {node[e->ctx], e->from, e->to};
		*spgo_kmap_upsert(&t.branches, key) += e->count;
	}
	free(node);
	struct spgo_profile *p = spgo_cs_probe_profile(bin, &code, &t, &o, &st);
	spgo_cs_trie_free(&t);
	spgo_cs_code_free(&code);
	if (!p->top.n) {
		spgo_profile_free(p);
		return spgo_error("%s: no counted instruction has a pseudo-probe", spgo_binary_path(bin));
	}
	spgo_profile_finalize(p, 0);
	*out = p;
	return 0;
}

int spgo_gen_truth_cs(struct spgo_binary *bin, const struct spgo_gt_cs_view *w, int compress,
		      int dwarf_lines, struct spgo_profile **out)
{
	*out = NULL;
	if (!dwarf_lines) {
		int probes = spgo_binary_load_probes(bin);
		if (probes < 0)
			return -1;
		if (probes)
			return truth_cs_probes(bin, w, compress, out);
	}
	if (spgo_binary_load_debug(bin) < 0) {
		const char *looked = spgo_binary_debug_search(bin);
		return spgo_error("%s: no debug information (DWARF) to map counts to source lines: "
				  "build with -g, or pass the debug file with --debug-binary%s%s%s",
				  spgo_binary_path(bin), *looked ? " (" : "", looked, *looked ? ")" : "");
	}
	struct tgen g = {.bin = bin, .compress = compress};
	g.p = spgo_profile_new();
	spgo_kmap_init(&g.loc_of, 1);
	spgo_kmap_init(&g.ctx_of, 2);
	spgo_strtab_init(&g.chains);

	/* Bodies. */
	for (size_t i = 0; i < w->n_insns; i++) {
		const struct spgo_gt_cs_insn *in = &w->insns[i];
		uint32_t f = context_at(&g, w, in->ctx, in->addr);
		const struct aloc *l = loc_at(&g, in->addr);
		if (f == SPGO_NONE || !l->n) {
			g.no_debug += in->count;
			continue;
		}
		uint64_t v = in->count * l->dup;
		uint32_t b = spgo_body_get(g.p, f, l->line, l->disc);
		if (g.p->bodies.v[b].count < v)
			g.p->bodies.v[b].count = v;
		spgo_add_total(g.p, f, in->count);
	}
	/* Calls and head samples. */
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct spgo_gt_cs_edge *e = &w->edges[i];
		if (e->kind != 'T' || e->to == SPGO_GT_OUTSIDE)
			continue;
		const struct spgo_function *callee = entry_at(&g, e->to);
		if (!callee)
			continue;
		uint32_t cname = spgo_name_id(g.p, callee->name,
					      spgo_profgen_canonical_len(callee->name, strlen(callee->name)));
		uint32_t f = e->from == SPGO_GT_OUTSIDE ? SPGO_NONE : context_at(&g, w, e->ctx, e->from);
		g.str.n = 0;
		if (f != SPGO_NONE) {
			const struct aloc *l = loc_at(&g, e->from);
			uint32_t line = 0, raw = 0;
			if (l->n) {
				uint32_t b = spgo_body_get(g.p, f, l->line, l->disc);
				spgo_add_target_id(g.p, b, cname, e->count);
				line = l->line;
				raw = l->raw;
			}
			const char *key = spgo_func_key(g.p, f);
			g.str.n = 0;
			str_add(&g, key, strlen(key));
			str_loc(&g, line, raw);
			str_add(&g, " @ ", 3);
		}
		str_add(&g, spgo_name(g.p, cname), spgo_name_len(g.p, cname));
		spgo_add_head(g.p, spgo_func_get_ctx(g.p, g.str.v, g.str.n), e->count);
	}
	spgo_cs_infer_callsites(g.p, NULL); /* exact heads: only inlined copies lack them */
	for (size_t b = 0; b < g.p->bodies.n; b++) { /* bodies cover their call targets */
		struct spgo_body *body = &g.p->bodies.v[b];
		uint64_t sum = 0;
		for (uint32_t t = body->targets; t != SPGO_NONE; t = g.p->targets.v[t].next)
			sum += g.p->targets.v[t].count;
		if (sum > body->count)
			body->count = sum;
	}
	/* The result, without the ambiguous profiles. */
	struct spgo_profile *q = spgo_profile_new();
	uint32_t *namemap = xmalloc((g.p->names.n + 1) * sizeof *namemap);
	for (size_t i = 0; i < g.p->names.n; i++)
		namemap[i] = SPGO_NONE;
	for (size_t i = 0; i < g.p->top.n; i++) {
		uint32_t f = g.p->top.v[i];
		if (spgo_profgen_ambiguous(spgo_name(g.p, g.p->funcs.v[f].name)))
			continue;
		const char *key = spgo_func_key(g.p, f);
		uint32_t d = spgo_func_get_ctx(q, key, strlen(key));
		spgo_func_merge(q, d, g.p, f, 1, namemap);
	}
	free(namemap);
	spgo_profile_free(g.p);
	spgo_kmap_free(&g.loc_of);
	spgo_kmap_free(&g.ctx_of);
	spgo_strtab_free(&g.chains);
	VEC_FREE(&g.arena);
	VEC_FREE(&g.locs);
	VEC_FREE(&g.frames);
	VEC_FREE(&g.str);
	if (!q->top.n) {
		spgo_profile_free(q);
		return spgo_error("%s: no counted instruction has a DWARF line: build with -g",
				  spgo_binary_path(bin));
	}
	spgo_profile_finalize(q, 0);
	*out = q;
	return 0;
}
