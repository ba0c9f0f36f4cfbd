/*
 * Writing LLVM's extended binary sample profile; the layout is described
 * in extbin_read.c.  Sections are written in LLVM's default layout order
 * (summary, name table, CS name table, function offset table, LBR profile,
 * symbol list, function metadata), each optionally zlib-compressed.  MD5
 * profiles use the fixed-length GUID table, which
 * clang 14 and 19 both read.
 */
#include "spgo/profile.h"
#include "profile/profile_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef VEC(uint8_t) bytes;

static void put_uleb(bytes *b, uint64_t v)
{
	VEC_GROW(b, b->n + 10);
	b->n += spgo_uleb_encode(b->v + b->n, v);
}

static void put_u64le(bytes *b, uint64_t v)
{
	VEC_GROW(b, b->n + 8);
	for (int i = 0; i < 8; i++)
		b->v[b->n++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(bytes *b, const void *s, size_t n)
{
	if (!n)
		return;
	VEC_GROW(b, b->n + n);
	memcpy(b->v + b->n, s, n);
	b->n += n;
}

enum { S_SUMMARY, S_NAMES, S_CSNAMES, S_OFFSETS, S_LBR, S_SYMBOLS, S_META, S_COUNT };
static const uint64_t sec_type[S_COUNT] = {1, 2, 6, 4, 32, 3, 5};

/* One write: the sections as they are built (uncompressed), their flags
 * (the section table's second word), and the tables that index names. */
struct wr {
	struct spgo_profile *p;
	const struct spgo_write_opts *o;
	uint32_t *nidx;  /* name id -> name table index, or SPGO_NONE */
	uint32_t *cidx;  /* context id -> CS name table index */
	uint64_t *guid;  /* name id -> GUID (MD5 tables) */
	uint32_t *buf[256];
	size_t cap[256];
	int md5, cs;
	bytes sec[S_COUNT];
	uint64_t flags[S_COUNT];
	VEC(uint32_t) names;    /* name ids in name table order */
	VEC(uint32_t) ctxlist;  /* context ids of the top-level profiles */
	spgo_ctx_frames frames; /* scratch: one context's frames */
};

static void mark_name(struct wr *w, uint32_t id)
{
	w->nidx[id] = 0;
}

static void mark_func(struct wr *w, uint32_t f)
{
	struct spgo_profile *p = w->p;
	mark_name(w, p->funcs.v[f].name);
	for (uint32_t b = p->funcs.v[f].bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		for (uint32_t t = p->bodies.v[b].targets; t != SPGO_NONE; t = p->targets.v[t].next)
			mark_name(w, p->targets.v[t].name);
	for (uint32_t c = p->funcs.v[f].children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		mark_func(w, c);
}

static _Thread_local struct wr *sort_w;

static int cmp_names(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_w->md5) {
		uint64_t gx = sort_w->guid[x], gy = sort_w->guid[y];
		return gx < gy ? -1 : gx > gy;
	}
	return strcmp(spgo_name(sort_w->p, x), spgo_name(sort_w->p, y));
}

static int cmp_ctx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return spgo_ctx_cmp(spgo_strtab_get(&sort_w->p->contexts, x),
			    spgo_strtab_get(&sort_w->p->contexts, y));
}

static uint64_t name_guid(struct spgo_profile *p, uint32_t id)
{
	const char *s = spgo_name(p, id);
	size_t n = strlen(s);
	/* A decimal GUID (from an MD5 profile) stands for itself. */
	if ((p->flags & SPGO_PROF_MD5) && n && n <= 20) {
		uint64_t v = 0;
		size_t i;
		for (i = 0; i < n; i++) {
			unsigned d = (unsigned char)s[i] - '0';
			if (d > 9 || v > (UINT64_MAX - d) / 10)
				break;
			v = v * 10 + d;
		}
		if (i == n)
			return v;
	}
	return spgo_md5_guid(s, n);
}

static void write_body(struct wr *w, bytes *b, uint32_t f, int depth)
{
	struct spgo_profile *p = w->p;
	unsigned d = depth < 255 ? (unsigned)depth : 255;
	put_uleb(b, p->funcs.v[f].total);
	size_t nb = spgo_func_bodies(p, f, &w->buf[d], &w->cap[d]);
	put_uleb(b, nb);
	for (size_t i = 0; i < nb; i++) {
		uint32_t bi = w->buf[d][i];
		const struct spgo_body *bd = &p->bodies.v[bi];
		put_uleb(b, bd->line);
		put_uleb(b, bd->disc);
		put_uleb(b, bd->count);
		put_uleb(b, bd->ntargets);
		/* target order: count descending, as LLVM writes them */
		size_t nt = spgo_body_targets(p, bi, &w->buf[255], &w->cap[255]);
		for (size_t j = 0; j < nt; j++) {
			const struct spgo_target *t = &p->targets.v[w->buf[255][j]];
			put_uleb(b, w->nidx[t->name]);
			put_uleb(b, t->count);
		}
	}
	size_t nc = spgo_func_children(p, f, &w->buf[d], &w->cap[d]);
	put_uleb(b, nc);
	uint32_t *kids = xmalloc((nc ? nc : 1) * sizeof *kids);
	if (nc)
		memcpy(kids, w->buf[d], nc * sizeof *kids);
	for (size_t i = 0; i < nc; i++) {
		const struct spgo_func *c = &p->funcs.v[kids[i]];
		put_uleb(b, c->line);
		put_uleb(b, c->disc);
		put_uleb(b, w->nidx[c->name]);
		write_body(w, b, kids[i], depth + 1);
	}
	free(kids);
}

static void write_meta(struct wr *w, bytes *b, uint32_t f, int top)
{
	struct spgo_profile *p = w->p;
	const struct spgo_func *fn = &p->funcs.v[f];
	if (top)
		put_uleb(b, fn->ctx != SPGO_NONE ? w->cidx[fn->ctx] : w->nidx[fn->name]);
	else
		put_uleb(b, w->nidx[fn->name]);
	if (p->flags & SPGO_PROF_PROBE)
		put_uleb(b, fn->checksum);
	if (p->flags & (SPGO_PROF_CS | SPGO_PROF_PREINLINED))
		put_uleb(b, fn->attrs);
	if (!(p->flags & SPGO_PROF_CS)) {
		uint32_t *kids = NULL;
		size_t cap = 0, nc = spgo_func_children(p, f, &kids, &cap);
		put_uleb(b, nc);
		for (size_t i = 0; i < nc; i++) {
			put_uleb(b, p->funcs.v[kids[i]].line);
			put_uleb(b, p->funcs.v[kids[i]].disc);
			write_meta(w, b, kids[i], 0);
		}
		free(kids);
	}
}

/* The contexts of the top-level profiles, each once, in w->ctxlist (and
 * cidx set for them); for a CS profile, split once so that the frames'
 * names exist before the name table is built.  -1 on a bad context. */
static int collect_contexts(struct wr *w)
{
	struct spgo_profile *p = w->p;
	size_t nctx = p->contexts.n;
	w->cidx = xmalloc((nctx + 1) * sizeof *w->cidx);
	memset(w->cidx, 0xff, (nctx + 1) * sizeof *w->cidx);
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t c = p->funcs.v[p->top.v[i]].ctx;
		if (c != SPGO_NONE && w->cidx[c] == SPGO_NONE) {
			w->cidx[c] = 0;
			VEC_PUSH(&w->ctxlist, c);
		}
	}
	if (w->cs)
		for (size_t i = 0; i < w->ctxlist.n; i++)
			if (spgo_ctx_split(p, spgo_strtab_get(&p->contexts, w->ctxlist.v[i]), &w->frames))
				return -1;
	return 0;
}

/* The name table: every name the profile refers to (sets nidx). */
static void write_names(struct wr *w)
{
	struct spgo_profile *p = w->p;
	size_t nn = p->names.n;
	w->nidx = xmalloc((nn + 1) * sizeof *w->nidx);
	memset(w->nidx, 0xff, (nn + 1) * sizeof *w->nidx);
	for (size_t i = 0; i < p->top.n; i++)
		mark_func(w, p->top.v[i]);
	for (size_t i = 0; i < w->ctxlist.n; i++) {
		spgo_ctx_split(p, spgo_strtab_get(&p->contexts, w->ctxlist.v[i]), &w->frames);
		for (size_t j = 0; j < w->frames.n; j++)
			mark_name(w, w->frames.v[j].name);
	}
	nn = p->names.n;
	for (size_t i = 0; i < nn; i++)
		if (w->nidx[i] != SPGO_NONE)
			VEC_PUSH(&w->names, (uint32_t)i);
	if (w->md5) {
		w->guid = xmalloc((nn + 1) * sizeof *w->guid);
		for (size_t i = 0; i < w->names.n; i++)
			w->guid[w->names.v[i]] = name_guid(p, w->names.v[i]);
	}
	/* MD5 tables are sorted by GUID (which also finds GUID collisions),
	 * string tables by name, as LLVM's writer stabilizes its table: name
	 * ids follow the order names were first seen, so in that order a
	 * merge of A and B and one of B and A wrote different bytes (sorting
	 * 100k names takes milliseconds). */
	sort_w = w;
	spgo_sort(w->names.v, w->names.n, sizeof *w->names.v, cmp_names);
	const uint32_t *names = w->names.v;
	bytes *b = &w->sec[S_NAMES];
	size_t k = 0;
	/* count first: GUID collisions (a name and its own GUID) share a slot */
	for (size_t i = 0; i < w->names.n; i++)
		if (!w->md5 || i == 0 || w->guid[names[i]] != w->guid[names[i - 1]])
			k++;
	put_uleb(b, k);
	k = 0;
	for (size_t i = 0; i < w->names.n; i++) {
		uint32_t id = names[i];
		if (w->md5) {
			if (i && w->guid[id] == w->guid[names[i - 1]]) {
				w->nidx[id] = (uint32_t)(k - 1);
				continue;
			}
			put_u64le(b, w->guid[id]);
		} else {
			const char *s = spgo_name(p, id);
			put_bytes(b, s, strlen(s) + 1);
			if (strstr(s, ".__uniq."))
				w->flags[S_NAMES] |= 4ULL << 32;
		}
		w->nidx[id] = (uint32_t)k++;
	}
	if (w->md5)
		w->flags[S_NAMES] |= 3ULL << 32; /* MD5, fixed-length */
}

/* The CS name table: the contexts as frames (sets cidx), in the order of
 * LLVM's writer, a std::set<SampleContext>: frame by frame, names as
 * strings and call sites as numbers (main:6 before main:10, which strcmp
 * put the other way round). */
static void write_cs_names(struct wr *w)
{
	struct spgo_profile *p = w->p;
	spgo_sort(w->ctxlist.v, w->ctxlist.n, sizeof *w->ctxlist.v, cmp_ctx);
	bytes *b = &w->sec[S_CSNAMES];
	put_uleb(b, w->ctxlist.n);
	for (size_t i = 0; i < w->ctxlist.n; i++) {
		w->cidx[w->ctxlist.v[i]] = (uint32_t)i;
		spgo_ctx_split(p, spgo_strtab_get(&p->contexts, w->ctxlist.v[i]), &w->frames);
		put_uleb(b, w->frames.n);
		for (size_t j = 0; j < w->frames.n; j++) {
			put_uleb(b, w->nidx[w->frames.v[j].name]);
			put_uleb(b, w->frames.v[j].line);
			put_uleb(b, w->frames.v[j].disc);
		}
	}
}

static int cmp_entry(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Function profiles in order, and the offset table pointing into them;
 * -1 if a CS profile has a plain function.  The table follows the
 * profiles, except in a CS profile, whose table LLVM's writer puts in the
 * contexts' order (a std::map<SampleContext, offset>): the CS name
 * table's. */
static int write_profiles(struct wr *w, const uint32_t *order)
{
	struct spgo_profile *p = w->p;
	uint64_t *ent = xmalloc((p->top.n + 1) * 2 * sizeof *ent); /* index, offset */
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t f = order[i];
		const struct spgo_func *fn = &p->funcs.v[f];
		uint64_t idx = fn->ctx != SPGO_NONE ? w->cidx[fn->ctx] : w->nidx[fn->name];
		if (w->cs && fn->ctx == SPGO_NONE) {
			free(ent);
			return spgo_error("a profile mixes context-sensitive and plain functions ('%s')",
					  spgo_name(p, fn->name));
		}
		ent[2 * i] = idx;
		ent[2 * i + 1] = w->sec[S_LBR].n;
		put_uleb(&w->sec[S_LBR], fn->head);
		put_uleb(&w->sec[S_LBR], idx);
		write_body(w, &w->sec[S_LBR], f, 0);
	}
	if (w->cs) /* (the indexes are distinct: each context once) */
		spgo_sort(ent, p->top.n, 2 * sizeof *ent, cmp_entry);
	put_uleb(&w->sec[S_OFFSETS], p->top.n);
	for (size_t i = 0; i < p->top.n; i++) {
		put_uleb(&w->sec[S_OFFSETS], ent[2 * i]);
		put_uleb(&w->sec[S_OFFSETS], ent[2 * i + 1]);
	}
	free(ent);
	if (w->cs)
		w->flags[S_OFFSETS] |= 1ULL << 32; /* ordered */
	return 0;
}

/* The profile symbol list: names sorted as strings, each once. */
static void write_symbols(struct wr *w)
{
	struct spgo_profile *p = w->p;
	if (!p->symbols.n)
		return;
	uint32_t *sy = xmalloc(p->symbols.n * sizeof *sy);
	memcpy(sy, p->symbols.v, p->symbols.n * sizeof *sy); /* n > 0 here */
	int save = w->md5;
	w->md5 = 0;
	sort_w = w;
	spgo_sort(sy, p->symbols.n, sizeof *sy, cmp_names);
	w->md5 = save;
	for (size_t i = 0; i < p->symbols.n; i++) {
		if (i && sy[i] == sy[i - 1])
			continue;
		const char *s = spgo_name(p, sy[i]);
		put_bytes(&w->sec[S_SYMBOLS], s, strlen(s) + 1);
	}
	free(sy);
}

/* Metadata: checksums and context attributes, in the profiles' order, or
 * in the order of LLVM's map when the profile knows it (its top list). */
static void write_metadata(struct wr *w, const uint32_t *order)
{
	struct spgo_profile *p = w->p;
	if (!(p->flags & (SPGO_PROF_PROBE | SPGO_PROF_CS | SPGO_PROF_PREINLINED)))
		return;
	if (p->flags & SPGO_PROF_MAP_ORDER)
		order = p->top.v;
	for (size_t i = 0; i < p->top.n; i++)
		write_meta(w, &w->sec[S_META], order[i], 1);
	if (p->flags & SPGO_PROF_PROBE)
		w->flags[S_META] |= 1ULL << 32;
	if (p->flags & (SPGO_PROF_CS | SPGO_PROF_PREINLINED))
		w->flags[S_META] |= 2ULL << 32;
}

/* The summary, and the profile's flags in its section flags. */
static void write_summary(struct wr *w)
{
	const struct spgo_profile *p = w->p;
	const struct spgo_summary *s = &p->summary;
	bytes *b = &w->sec[S_SUMMARY];
	put_uleb(b, s->total);
	put_uleb(b, s->max_count);
	put_uleb(b, s->max_func_count);
	put_uleb(b, s->num_counts);
	put_uleb(b, s->num_funcs);
	put_uleb(b, s->nentries);
	for (unsigned i = 0; i < s->nentries; i++) {
		put_uleb(b, s->entries[i].cutoff);
		put_uleb(b, s->entries[i].min_count);
		put_uleb(b, s->entries[i].num_counts);
	}
	uint64_t f = 0;
	if ((p->flags & SPGO_PROF_PARTIAL) || w->o->partial)
		f |= 1;
	if (w->cs)
		f |= 2;
	if (p->flags & SPGO_PROF_FS)
		f |= 4;
	/* Bit 4 means "preinlined" to LLVM 19 and "CS nested" to LLVM 14. */
	if ((p->flags & SPGO_PROF_PREINLINED) && (!w->cs || w->o->target_llvm == 19))
		f |= 16;
	w->flags[S_SUMMARY] |= f << 32;
}

/* The file: magic, version, section table, sections (each compressed
 * when asked), written to fp. */
static int write_file(struct wr *w, FILE *fp)
{
	bytes file = {0};
	put_uleb(&file, SPGO_EXTBIN_MAGIC);
	put_uleb(&file, SPGO_EXTBIN_VERSION);
	put_u64le(&file, S_COUNT);
	size_t table = file.n;
	for (int i = 0; i < S_COUNT * 4; i++)
		put_u64le(&file, 0);
	/* File order: the offset table goes after the profiles it indexes. */
	static const int file_order[S_COUNT] = {S_SUMMARY, S_NAMES, S_CSNAMES, S_LBR,
						S_SYMBOLS, S_OFFSETS, S_META};
	uint64_t off[S_COUNT], size[S_COUNT];
	for (int k = 0; k < S_COUNT; k++) {
		int i = file_order[k];
		const bytes *sec = &w->sec[i];
		off[i] = file.n;
		if (sec->n && w->o->compress) {
			uLongf cl = compressBound((uLong)sec->n);
			uint8_t *z = xmalloc(cl);
			if (compress2(z, &cl, sec->v, (uLong)sec->n, Z_DEFAULT_COMPRESSION) != Z_OK) {
				free(z);
				VEC_FREE(&file);
				return spgo_error("zlib compression failed");
			}
			put_uleb(&file, sec->n);
			put_uleb(&file, cl);
			put_bytes(&file, z, cl);
			free(z);
			w->flags[i] |= 1;
		} else {
			put_bytes(&file, sec->v, sec->n);
			if (w->o->compress)
				w->flags[i] |= 1; /* (an empty section too, as LLVM's writer) */
		}
		size[i] = file.n - off[i]; /* (an empty one keeps its offset, as LLVM's) */
	}
	for (int i = 0; i < S_COUNT; i++) {
		uint64_t v[4] = {sec_type[i], w->flags[i], off[i], size[i]};
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 8; k++)
				file.v[table + (size_t)(i * 4 + j) * 8 + (size_t)k] = (uint8_t)(v[j] >> (8 * k));
	}
	fwrite(file.v, 1, file.n, fp);
	VEC_FREE(&file);
	return ferror(fp) ? spgo_error("write error: %s", strerror(errno)) : 0;
}

int spgo_write_extbinary(struct spgo_profile *p, FILE *fp, const struct spgo_write_opts *o)
{
	struct spgo_write_opts defo = {0};
	if (!o)
		o = &defo;
	struct wr w = {.p = p, .o = o};
	w.md5 = o->md5 || (p->flags & SPGO_PROF_MD5);
	w.cs = (p->flags & SPGO_PROF_CS) != 0;
	int rc = -1;

	/* Contexts first: splitting them may add frame names. */
	if (collect_contexts(&w))
		goto out;
	write_names(&w);
	if (w.cs)
		write_cs_names(&w);
	else /* its count 0 in a profile without contexts, as LLVM's writer puts it */
		put_uleb(&w.sec[S_CSNAMES], 0);
	uint32_t *order = spgo_profile_sorted(p);
	if (write_profiles(&w, order)) {
		free(order);
		goto out;
	}
	write_symbols(&w);
	write_metadata(&w, order);
	free(order);
	write_summary(&w);
	rc = write_file(&w, fp);
out:
	for (int i = 0; i < S_COUNT; i++)
		VEC_FREE(&w.sec[i]);
	for (int i = 0; i < 256; i++)
		free(w.buf[i]);
	VEC_FREE(&w.frames);
	VEC_FREE(&w.ctxlist);
	VEC_FREE(&w.names);
	free(w.nidx);
	free(w.cidx);
	free(w.guid);
	return rc;
}
