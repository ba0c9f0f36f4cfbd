/*
 * A build as profile matching sees it (stale_impl.h): from DWARF for line
 * profiles, from the pseudo-probe sections for probe profiles.
 *
 * Line builds are read the way `spgo gen` keys samples (src/gen/gen.c):
 * each instruction's inline stack, from the outermost named frame inward,
 * gives every frame's location ((line - decl_line) & 0xffff, base
 * discriminator) and, between two frames, an inline site.  The stacks are
 * looked up once per address range that shares them
 * (spgo_binary_symbolize_until()), so a large binary costs about one
 * lookup per line-table row.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/probe.h"
#include "spgo/profile.h"
#include "stale/stale_impl.h"

#define MAX_FRAMES 64

uint64_t stale_guid(const char *name, size_t len, int md5, int probe)
{
	if (md5 && len && len <= 20) {
		size_t i = 0;
		while (i < len && name[i] >= '0' && name[i] <= '9')
			i++;
		if (i == len)
			return strtoull(name, NULL, 10);
	}
	if (!probe)
		len = spgo_profgen_canonical_len(name, len);
	return spgo_md5_guid(name, len);
}

size_t stale_uniq_stem_len(const char *name)
{
	const char *u = strstr(name, ".__uniq.");
	return u ? (size_t)(u - name) : 0;
}

size_t stale_rename_key_len(const char *name)
{
	/* _Z[L]<len><identifier>...: a plain (unnested) mangled name */
	if (spgo_name_mangled(name)) {
		size_t i = name[2] == 'L' ? 3 : 2, k = 0;
		if (name[i] >= '1' && name[i] <= '9') {
			while (name[i] >= '0' && name[i] <= '9' && k < 4096)
				k = k * 10 + (size_t)(name[i++] - '0');
			if (!memchr(name + i, '\0', k))
				return i + k;
		}
	}
	return stale_uniq_stem_len(name);
}

uint64_t stale_build_anchor_key(const struct stale_build *b, uint64_t guid)
{
	const struct stale_fn *f = guid ? stale_build_fn(b, guid) : NULL;
	size_t len = f && f->name ? stale_rename_key_len(f->name) : 0;
	return len ? spgo_md5_guid(f->name, len) : guid;
}

/* The GUID of a name of the binary, cached by its (stable) pointer. */
static uint64_t name_guid(struct stale_build *b, const char *name)
{
	uint64_t k = (uint64_t)(uintptr_t)name;
	uint64_t *v = spgo_kmap_find(&b->name_guid, &k);
	if (v)
		return *v;
	uint64_t g = stale_guid(name, strlen(name), 0, b->probe);
	*spgo_kmap_upsert(&b->name_guid, &k) = g;
	return g;
}

/* The function of guid, created (named name) if new: its index. */
static size_t fn_get(struct stale_build *b, uint64_t guid, const char *name)
{
	uint64_t *v = spgo_kmap_upsert(&b->fn_index, &guid);
	if (!*v) {
		struct stale_fn f = {.guid = guid, .name = name};
		VEC_PUSH(&b->fns, f);
		*v = b->fns.n;
	}
	return (size_t)(*v - 1);
}

static void add_loc(struct stale_build *b, size_t fn, uint64_t loc)
{
	uint64_t key[2] = {b->fns.v[fn].guid, loc};
	uint64_t *v = spgo_kmap_upsert(&b->locs, key);
	if (!*v) {
		*v = 1;
		b->fns.v[fn].nlocs++;
		b->fns.v[fn].loc_hash += spgo_hash64(loc + 0x9e3779b97f4a7c15ULL);
	}
}

static void add_site(struct stale_build *b, uint64_t guid, uint64_t loc, uint64_t callee, unsigned kind)
{
	uint64_t key[3] = {guid, loc, callee};
	uint64_t *v = spgo_kmap_upsert(&b->sites, key);
	if (!*v) {
		struct stale_anchor a = {loc, callee, guid};
		VEC_PUSH(&b->anchors, a);
	}
	*v |= kind;
}

/* ---- line builds ----------------------------------------------------------- */

static uint64_t frame_loc(const struct spgo_frame *f, int gcc)
{
	uint32_t disc = gcc ? f->discriminator : f->base_discriminator;
	if (f->line == 0) /* compiler-made code: see STALE_LINE0 */
		return stale_loc(STALE_LINE0, disc);
	return stale_loc((f->line - f->decl_line) & 0xffff, disc);
}

/* The callee of a call or jump at insn, as a profile names it: the
 * function starting at its target (or the PLT stub's symbol); 0 if the
 * target is no function's entry. */
static uint64_t callee_guid(struct stale_build *b, const struct spgo_insn *insn)
{
	if (!insn->target)
		return 0;
	const struct spgo_function *f = spgo_binary_function_at(b->bin, insn->target);
	if (f && f->start == insn->target)
		return name_guid(b, f->name);
	const char *plt = spgo_binary_plt_name(b->bin, insn->target);
	return plt ? name_guid(b, plt) : 0;
}

/* Record the frames of one inline stack; returns the leaf's function
 * index and sets *leaf_loc, or SIZE_MAX when no frame is named. */
static size_t add_stack(struct stale_build *b, const struct spgo_frame *fr, int n, int gcc, uint64_t *leaf_loc)
{
	if (n <= 0 || !fr[n - 1].function)
		return SIZE_MAX;
	size_t outer = SIZE_MAX;
	uint64_t outer_loc = 0;
	for (int j = n - 1; j >= 0 && fr[j].function; j--) {
		size_t fn = fn_get(b, name_guid(b, fr[j].function), fr[j].function);
		uint64_t loc = frame_loc(&fr[j], gcc);
		add_loc(b, fn, loc);
		if (outer != SIZE_MAX)
			add_site(b, b->fns.v[outer].guid, outer_loc, b->fns.v[fn].guid, STALE_SITE_INLINE);
		outer = fn;
		outer_loc = loc;
	}
	*leaf_loc = outer_loc;
	return outer;
}

static int load_lines(struct stale_build *b, const char *path, const char *role, int gcc)
{
	if (spgo_binary_load_debug(b->bin) < 0)
		return spgo_error("%s: the %s binary has no usable debug info (%s): a line profile is matched "
				  "on DWARF lines; give a build with -g (or install its debug file)",
				  path, role, spgo_errmsg());
	size_t nf;
	const struct spgo_function *funcs = spgo_binary_functions(b->bin, &nf);
	for (size_t i = 0; i < nf; i++) {
		size_t fn = fn_get(b, name_guid(b, funcs[i].name), funcs[i].name);
		b->fns.v[fn].size += funcs[i].end - funcs[i].start;
	}
	size_t ni;
	const struct spgo_insn *insns = spgo_binary_insns(b->bin, &ni);
	struct spgo_frame fr[MAX_FRAMES];
	uint64_t until = 0, leaf_loc = 0;
	size_t leaf = SIZE_MAX;
	for (size_t i = 0; i < ni; i++) {
		const struct spgo_insn *in = &insns[i];
		if (in->addr >= until || (i && in->addr < insns[i - 1].addr)) {
			int n = spgo_binary_symbolize_until(b->bin, NULL, in->addr, fr, MAX_FRAMES, &until);
			if (n < 0)
				return -1;
			if (until <= in->addr)
				until = in->addr + 1;
			leaf = add_stack(b, fr, n < MAX_FRAMES ? n : MAX_FRAMES, gcc, &leaf_loc);
		}
		if (leaf == SIZE_MAX)
			continue;
		uint64_t g = b->fns.v[leaf].guid;
		uint64_t sk[2] = {g, leaf_loc};
		*spgo_kmap_upsert(&b->sigs, sk) |= 1ull << (in->cls & 63);
		/* an indirect jump may be a tail call through a pointer: any callee */
		if (in->cls == SPGO_INSN_INDIRECT_CALL || in->cls == SPGO_INSN_INDIRECT_JUMP) {
			add_site(b, g, leaf_loc, 0, STALE_SITE_CALL);
		} else if (in->cls == SPGO_INSN_CALL || in->cls == SPGO_INSN_JUMP) {
			uint64_t c = callee_guid(b, in);
			/* a jump is a (tail) call only into another function's entry */
			const struct spgo_function *here = spgo_binary_function_at(b->bin, in->addr);
			if (c && (in->cls == SPGO_INSN_CALL || !here || here->start != in->target))
				add_site(b, g, leaf_loc, c, STALE_SITE_CALL);
		}
	}
	return 0;
}

/* ---- probe builds ---------------------------------------------------------- */

static int load_probes(struct stale_build *b, const char *path, const char *role)
{
	uint64_t addr;
	size_t size;
	/* probe records name functions by address: a stripped binary's are nameless */
	if (spgo_binary_section(b->bin, ".pseudo_probe", &addr, &size) &&
	    !spgo_binary_section(b->bin, ".symtab", &addr, &size))
		return spgo_error("%s: the %s binary is stripped (no .symtab): a probe profile is matched on "
				  "the probes of named functions; give the unstripped build", path, role);
	int r = spgo_binary_load_probes(b->bin);
	if (r < 0)
		return -1;
	if (r == 0)
		return spgo_error("%s: the %s binary has no pseudo-probes (.pseudo_probe_desc): a probe profile "
				  "is matched on probes; give a build made with -fpseudo-probe-for-profiling",
				  path, role);
	size_t nd, np, nn;
	const struct spgo_probe_desc *d = spgo_binary_probe_descs(b->bin, &nd);
	for (size_t i = 0; i < nd; i++) {
		size_t fn = fn_get(b, d[i].guid, d[i].name);
		b->fns.v[fn].checksum = d[i].checksum;
		const struct spgo_function *f = d[i].start ? spgo_binary_function_at(b->bin, d[i].start) : NULL;
		if (f)
			b->fns.v[fn].size = f->end - f->start;
	}
	const struct spgo_probe *p = spgo_binary_probes(b->bin, &np);
	for (size_t i = 0; i < np; i++) {
		size_t fn = fn_get(b, p[i].guid, NULL);
		uint64_t loc = stale_loc(p[i].index, p[i].discriminator);
		add_loc(b, fn, loc);
		if (p[i].type == SPGO_PROBE_INDIRECT_CALL) {
			add_site(b, p[i].guid, loc, 0, STALE_SITE_CALL);
		} else if (p[i].type == SPGO_PROBE_DIRECT_CALL) {
			const struct spgo_insn *in = spgo_binary_insn_at(b->bin, p[i].addr);
			uint64_t c = in && in->cls != SPGO_INSN_OTHER ? callee_guid(b, in) : 0;
			add_site(b, p[i].guid, loc, c, STALE_SITE_CALL); /* 0: callee unknown */
		}
	}
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(b->bin, &nn);
	for (size_t i = 0; i < nn; i++)
		if (nodes[i].parent >= 0) {
			fn_get(b, nodes[i].guid, NULL);
			/* the inlined call's probe is gone; its id is the caller's anchor */
			size_t caller = fn_get(b, nodes[nodes[i].parent].guid, NULL);
			add_loc(b, caller, stale_loc(nodes[i].callsite, 0));
			add_site(b, nodes[nodes[i].parent].guid, stale_loc(nodes[i].callsite, 0), nodes[i].guid,
				 STALE_SITE_INLINE);
		}
	stale_probe_block_sigs(b);
	return 0;
}

static int cmp_anchor(const void *pa, const void *pb)
{
	const struct stale_anchor *a = pa, *b = pb;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	if (a->callee != b->callee)
		return a->callee < b->callee ? -1 : 1;
	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

int stale_build_open(struct stale_build *b, const char *path, int probe, int gcc, const char *role)
{
	memset(b, 0, sizeof *b);
	b->probe = probe;
	spgo_kmap_init(&b->fn_index, 1);
	spgo_kmap_init(&b->locs, 2);
	spgo_kmap_init(&b->sites, 3);
	spgo_kmap_init(&b->name_guid, 1);
	spgo_kmap_init(&b->sigs, 2);
	spgo_kmap_init(&b->wsigs, 2);
	spgo_kmap_init(&b->blocks, 2);
	if (spgo_binary_open(&b->bin, path, NULL) < 0 || spgo_binary_check_machine(b->bin) < 0) {
		stale_build_close(b);
		return -1;
	}
	spgo_binary_set_notes(b->bin, NULL);
	int rc = probe ? load_probes(b, path, role) : load_lines(b, path, role, gcc);
	if (rc < 0) {
		stale_build_close(b);
		return -1;
	}
	spgo_sort(b->anchors.v, b->anchors.n, sizeof *b->anchors.v, cmp_anchor);
	return 0;
}

void stale_build_close(struct stale_build *b)
{
	if (b->bin)
		spgo_binary_close(b->bin);
	VEC_FREE(&b->fns);
	VEC_FREE(&b->anchors);
	spgo_kmap_free(&b->fn_index);
	spgo_kmap_free(&b->locs);
	spgo_kmap_free(&b->sites);
	spgo_kmap_free(&b->name_guid);
	spgo_kmap_free(&b->sigs);
	spgo_kmap_free(&b->wsigs);
	spgo_kmap_free(&b->blocks);
	memset(b, 0, sizeof *b);
}

const struct stale_fn *stale_build_fn(const struct stale_build *b, uint64_t guid)
{
	const uint64_t *v = spgo_kmap_find(&b->fn_index, &guid);
	return v ? &b->fns.v[*v - 1] : NULL;
}

int stale_build_has_loc(const struct stale_build *b, uint64_t guid, uint64_t loc)
{
	uint64_t key[2] = {guid, loc};
	return spgo_kmap_find(&b->locs, key) != NULL;
}

unsigned stale_build_site(const struct stale_build *b, uint64_t guid, uint64_t loc, uint64_t callee)
{
	if (!b->probe && stale_is_line0((uint32_t)(loc >> 32)) &&
	    !spgo_kmap_find(&b->locs, (uint64_t[2]){guid, loc}))
		loc = stale_loc(STALE_LINE0, (uint32_t)loc);
	uint64_t key[3] = {guid, loc, callee};
	const uint64_t *v = spgo_kmap_find(&b->sites, key);
	unsigned bits = v ? (unsigned)*v : 0;
	key[2] = 0; /* an indirect call (or a call probe of unknown callee) takes any */
	if (callee && (v = spgo_kmap_find(&b->sites, key)))
		bits |= (unsigned)*v & STALE_SITE_CALL;
	return bits;
}
