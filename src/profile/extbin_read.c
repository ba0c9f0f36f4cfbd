/*
 * Reading LLVM's extended binary sample profile (SPF_Ext_Binary).
 *
 * Layout: ULEB128 magic ("SPROF42" << 8 | 4) and version (103); a section
 * header table (u64 LE count, then per section u64 LE type, flags, offset,
 * size; offsets from the file start); the sections.  A section whose flags
 * have bit 0 is zlib-compressed: ULEB128 uncompressed size, ULEB128
 * compressed size, a zlib stream.  Section types:
 *
 *   1 summary        total, max count, max function count, #counts,
 *                    #functions, #entries, then (cutoff, min count, #counts)
 *   2 name table     #names, NUL-terminated names; or (MD5 flag) GUIDs as
 *                    ULEB128, or (fixed-length MD5 flag) as u64 LE
 *   3 symbol list    NUL-terminated names to the end of the section
 *   4 offset table   #entries, (context index, offset in the LBR section)
 *   5 metadata       per function: context index, [checksum], [attributes],
 *                    and for non-CS profiles the same for each inlinee
 *   6 CS name table  #contexts, each #frames, (name index, line, disc)...
 *  32 LBR profile    per function: head, context index, then the body:
 *                    total, #records, (line, disc, count, #targets,
 *                    (name index, count)...), #inlinees, (line, disc, name
 *                    index, body)...
 * All numbers are ULEB128 unless said otherwise.  Sections of unknown type
 * are skipped, as LLVM skips them.
 */
#include "spgo/profile.h"
#include "profile/profile_impl.h"
#include "common/bytes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A section's bytes (common/bytes.h), and where they are in the file for
 * errors. */
struct cur {
	struct rd in;   /* in.base: the section's first byte */
	const char *path;
	size_t fileoff; /* file offset of in.base (uncompressed sections) */
	size_t secoff;  /* file offset of the compressed section, or SIZE_MAX */
};

static int cerr(const struct cur *c, const char *what)
{
	size_t at = rd_off(&c->in);
	if (c->secoff != SIZE_MAX)
		spgo_error("%s: offset 0x%zx: %s (byte 0x%zx of the decompressed section)",
			   c->path, c->secoff, what, at);
	else
		spgo_error("%s: offset 0x%zx: %s", c->path, c->fileoff + at, what);
	return -1;
}

/* ULEB128; an error names the byte after the last one read. */
static int uleb(struct cur *c, uint64_t *v)
{
	*v = rd_uleb(&c->in);
	if (c->in.bad)
		return cerr(c, c->in.bad == RD_OVERFLOW ? "number too large" : "truncated number");
	return 0;
}

static int uleb32(struct cur *c, uint32_t *v)
{
	uint64_t x;
	if (uleb(c, &x))
		return -1;
	if (x > UINT32_MAX) {
		c->in.p--;
		return cerr(c, "number out of range");
	}
	*v = (uint32_t)x;
	return 0;
}

/* u64 little-endian; an error names its first byte. */
static int u64le(struct cur *c, uint64_t *v)
{
	const uint8_t *at = c->in.p;
	*v = rd_u64(&c->in);
	if (c->in.bad) {
		c->in.p = at;
		return cerr(c, "truncated");
	}
	return 0;
}

struct ebr {
	struct spgo_profile *p;
	const char *path;
	uint32_t *names; /* name table index -> name id */
	size_t nnames;
	uint32_t *ctxs; /* CS name table index -> context id */
	size_t nctxs;
	int cs, probe, attrs;
};

static int name_idx(struct ebr *r, struct cur *c, uint32_t *out)
{
	uint64_t i;
	if (uleb(c, &i))
		return -1;
	if (i >= r->nnames)
		return cerr(c, "name index out of range");
	*out = r->names[i];
	return 0;
}

/* The top-level profile a context index names (creating it). */
static int context_func(struct ebr *r, struct cur *c, uint32_t *f, int create)
{
	uint64_t i;
	if (uleb(c, &i))
		return -1;
	if (r->cs) {
		if (i >= r->nctxs)
			return cerr(c, "context index out of range");
		if (create) {
			const char *s = spgo_strtab_get(&r->p->contexts, r->ctxs[i]);
			*f = spgo_func_get_ctx(r->p, s, strlen(s));
		} else {
			*f = spgo_func_find_ctx(r->p, r->ctxs[i]);
		}
		return 0;
	}
	if (i >= r->nnames)
		return cerr(c, "name index out of range");
	if (create) {
		*f = spgo_func_get_id(r->p, r->names[i]);
	} else {
		*f = spgo_func_find_id(r->p, r->names[i]);
	}
	return 0;
}

static int read_body(struct ebr *r, struct cur *c, uint32_t f, int depth)
{
	struct spgo_profile *p = r->p;
	uint64_t total, nrec, ncs;
	if (depth > 200)
		return cerr(c, "inlinees nested too deep");
	if (uleb(c, &total) || uleb(c, &nrec))
		return -1;
	spgo_add_total(p, f, spgo_wcount(p->read_weight, total));
	for (uint64_t i = 0; i < nrec; i++) {
		uint32_t line, disc, ntg;
		uint64_t cnt;
		if (uleb32(c, &line) || uleb32(c, &disc) || uleb(c, &cnt) || uleb32(c, &ntg))
			return -1;
		if (line > 0xffff)
			return cerr(c, "line offset out of range");
		uint32_t b = spgo_body_get(p, f, line, disc);
		for (uint32_t j = 0; j < ntg; j++) {
			uint32_t nm;
			uint64_t tc;
			if (name_idx(r, c, &nm) || uleb(c, &tc))
				return -1;
			spgo_add_target_id(p, b, nm, spgo_wcount(p->read_weight, tc));
		}
		struct spgo_body *bd = &p->bodies.v[b];
		cnt = spgo_wcount(p->read_weight, cnt);
		bd->count = bd->count + cnt < cnt ? UINT64_MAX : bd->count + cnt;
	}
	if (uleb(c, &ncs))
		return -1;
	for (uint64_t i = 0; i < ncs; i++) {
		uint32_t line, disc, nm;
		if (uleb32(c, &line) || uleb32(c, &disc) || name_idx(r, c, &nm))
			return -1;
		uint32_t k = spgo_inlinee_get_id(p, f, line, disc, nm);
		if (read_body(r, c, k, depth + 1))
			return -1;
	}
	return 0;
}

static int read_lbr(struct ebr *r, struct cur *c)
{
	while (c->in.p < c->in.end) {
		uint64_t head;
		uint32_t f;
		if (uleb(c, &head) || context_func(r, c, &f, 1))
			return -1;
		spgo_add_head(r->p, f, spgo_wcount(r->p->read_weight, head));
		if (read_body(r, c, f, 0))
			return -1;
	}
	return 0;
}

static int read_names(struct ebr *r, struct cur *c, uint64_t flags)
{
	uint64_t n;
	int md5 = (flags >> 32) & 1, fixed = (flags >> 32) & 2;
	if (uleb(c, &n))
		return -1;
	if (n > rd_left(&c->in))
		return cerr(c, "name table larger than its section");
	free(r->names);
	r->names = xmalloc((n ? n : 1) * sizeof *r->names);
	r->nnames = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (md5 || fixed) {
			uint64_t g;
			if (fixed ? u64le(c, &g) : uleb(c, &g))
				return -1;
			char t[24];
			int l = snprintf(t, sizeof t, "%" PRIu64, g);
			r->names[r->nnames++] = spgo_name_id(r->p, t, (size_t)l);
		} else {
			const uint8_t *z = memchr(c->in.p, 0, rd_left(&c->in));
			if (!z)
				return cerr(c, "unterminated name");
			if (z == c->in.p) /* no function is nameless; no format could write it */
				return cerr(c, "empty name in the name table");
			r->names[r->nnames++] = spgo_name_id(r->p, (const char *)c->in.p, (size_t)(z - c->in.p));
			c->in.p = z + 1;
		}
	}
	if (md5 || fixed)
		r->p->flags |= SPGO_PROF_MD5;
	return 0;
}

static int read_cs_names(struct ebr *r, struct cur *c)
{
	uint64_t n;
	if (uleb(c, &n))
		return -1;
	if (n > rd_left(&c->in))
		return cerr(c, "context table larger than its section");
	free(r->ctxs);
	r->ctxs = xmalloc((n ? n : 1) * sizeof *r->ctxs);
	r->nctxs = 0;
	VEC(char) s = {0};
	for (uint64_t i = 0; i < n; i++) {
		uint64_t nf;
		if (uleb(c, &nf))
			goto fail;
		if (nf == 0 || nf > rd_left(&c->in)) {
			cerr(c, "bad context size");
			goto fail;
		}
		s.n = 0;
		for (uint64_t j = 0; j < nf; j++) {
			uint32_t nm, line, disc;
			if (name_idx(r, c, &nm) || uleb32(c, &line) || uleb32(c, &disc))
				goto fail;
			if (line > 0xffff) {
				cerr(c, "line offset out of range");
				goto fail;
			}
			char t[40];
			const char *name = spgo_name(r->p, nm);
			size_t nl = strlen(name);
			VEC_GROW(&s, s.n + nl + 48);
			if (j)
				memcpy(s.v + s.n, " @ ", 3), s.n += 3;
			memcpy(s.v + s.n, name, nl);
			s.n += nl;
			if (j + 1 < nf) {
				int l = spgo_profgen_loc(t, sizeof t, line, disc, "");
				memcpy(s.v + s.n, t, (size_t)l);
				s.n += (size_t)l;
			}
		}
		r->ctxs[r->nctxs++] = spgo_strtab_intern(&r->p->contexts, s.v, s.n);
	}
	VEC_FREE(&s);
	return 0;
fail:
	VEC_FREE(&s);
	return -1;
}

static int read_meta_func(struct ebr *r, struct cur *c, uint32_t f, int depth)
{
	struct spgo_profile *p = r->p;
	if (depth > 200)
		return cerr(c, "inlinees nested too deep");
	if (r->probe) {
		uint64_t sum;
		if (uleb(c, &sum))
			return -1;
		if (f != SPGO_NONE && !p->funcs.v[f].checksum)
			p->funcs.v[f].checksum = sum; /* on a mismatch the first one stays */
	}
	if (r->attrs) {
		uint32_t a;
		if (uleb32(c, &a))
			return -1;
		if (f != SPGO_NONE)
			p->funcs.v[f].attrs = a;
	}
	if (!r->cs) {
		uint64_t n;
		if (uleb(c, &n))
			return -1;
		for (uint64_t i = 0; i < n; i++) {
			uint32_t line, disc, nm;
			if (uleb32(c, &line) || uleb32(c, &disc) || name_idx(r, c, &nm))
				return -1;
			uint32_t k = SPGO_NONE;
			if (f != SPGO_NONE)
				k = spgo_inlinee_find(p, f, line, disc, nm);
			if (read_meta_func(r, c, k, depth + 1))
				return -1;
		}
	}
	return 0;
}

static int read_meta(struct ebr *r, struct cur *c, uint64_t flags)
{
	r->probe = (flags >> 32) & 1;
	r->attrs = (flags >> 32) & 2;
	if (r->probe)
		r->p->flags |= SPGO_PROF_PROBE;
	while (c->in.p < c->in.end) {
		uint32_t f;
		if (context_func(r, c, &f, 0) || read_meta_func(r, c, f, 0))
			return -1;
	}
	return 0;
}

static int read_summary(struct ebr *r, struct cur *c, uint64_t flags)
{
	struct spgo_summary *s = &r->p->summary;
	uint64_t n;
	if (uleb(c, &s->total) || uleb(c, &s->max_count) || uleb(c, &s->max_func_count) ||
	    uleb(c, &s->num_counts) || uleb(c, &s->num_funcs) || uleb(c, &n))
		return -1;
	if (n > SPGO_SUMMARY_MAX)
		return cerr(c, "too many summary entries");
	s->nentries = (unsigned)n;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t cut;
		if (uleb32(c, &cut) || uleb(c, &s->entries[i].min_count) ||
		    uleb(c, &s->entries[i].num_counts))
			return -1;
		s->entries[i].cutoff = cut;
	}
	uint32_t f = (uint32_t)(flags >> 32);
	if (f & 1)
		r->p->flags |= SPGO_PROF_PARTIAL;
	if (f & 2) {
		r->cs = 1;
		r->p->flags |= SPGO_PROF_CS;
	}
	if (f & 4)
		r->p->flags |= SPGO_PROF_FS;
	if (f & 16)
		r->p->flags |= SPGO_PROF_PREINLINED;
	return 0;
}

static int read_symbols(struct ebr *r, struct cur *c)
{
	while (c->in.p < c->in.end) {
		const uint8_t *z = memchr(c->in.p, 0, rd_left(&c->in));
		if (!z)
			return cerr(c, "unterminated symbol name");
		VEC_PUSH(&r->p->symbols, spgo_name_id(r->p, (const char *)c->in.p, (size_t)(z - c->in.p)));
		c->in.p = z + 1;
	}
	return 0;
}

static int read_offsets(struct ebr *r, struct cur *c)
{
	uint64_t n;
	if (uleb(c, &n))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx, off;
		if (uleb(c, &idx) || uleb(c, &off))
			return -1;
		if (idx >= (r->cs ? r->nctxs : r->nnames))
			return cerr(c, "offset table index out of range");
	}
	return 0;
}

struct sec {
	uint64_t type, flags, off, size;
	uint8_t *buf; /* decompressed data, or NULL */
	size_t bufsize;
};

int spgo_read_extbinary(struct spgo_profile *p, const char *path, const uint8_t *d, size_t n)
{
	struct cur c = {rd_init(d, n), path, 0, SIZE_MAX};
	uint64_t magic, version, nsec;
	if (uleb(&c, &magic))
		return -1;
	if (magic != SPGO_EXTBIN_MAGIC)
		return spgo_error("%s: offset 0x0: not an LLVM extended binary profile", path);
	if (uleb(&c, &version))
		return -1;
	if (version != SPGO_EXTBIN_VERSION)
		return spgo_error("%s: offset 0x%zx: unsupported extended binary version %" PRIu64
				  " (supported: %d)", path, rd_off(&c.in) - 1, version,
				  SPGO_EXTBIN_VERSION);
	if (u64le(&c, &nsec))
		return -1;
	if (nsec > rd_left(&c.in) / 32)
		return cerr(&c, "section header table larger than the file");
	struct sec *secs = xcalloc(nsec ? nsec : 1, sizeof *secs);
	struct ebr r = {.p = p, .path = path};
	int rc = -1;
	for (uint64_t i = 0; i < nsec; i++) {
		struct sec *s = &secs[i];
		size_t at = rd_off(&c.in);
		if (u64le(&c, &s->type) || u64le(&c, &s->flags) || u64le(&c, &s->off) ||
		    u64le(&c, &s->size))
			goto out;
		if (s->off > n || s->size > n - s->off) {
			spgo_error("%s: offset 0x%zx: section %" PRIu64 " (type %" PRIu64
				   ") lies outside the file", path, at, i, s->type);
			goto out;
		}
	}
	/* Sections in table order, as LLVM reads them; metadata last, since it
	 * annotates profiles the LBR section creates. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t i = 0; i < nsec; i++) {
			struct sec *s = &secs[i];
			if (!s->size || (s->type == 5) != (pass == 1))
				continue;
			struct cur sc = {rd_init(d + s->off, s->size), path, s->off, SIZE_MAX};
			if (s->flags & 1) { /* zlib-compressed */
				if (!s->buf) {
					uint64_t usize, csize;
					if (uleb(&sc, &usize) || uleb(&sc, &csize))
						goto out;
					if (csize > rd_left(&sc.in)) {
						cerr(&sc, "compressed size exceeds the section");
						goto out;
					}
					if (usize > (uint64_t)1 << 34 || usize / 1032 > csize + 1) {
						cerr(&sc, "implausible uncompressed size");
						goto out;
					}
					s->buf = xmalloc(usize ? usize : 1);
					uLongf got = (uLongf)usize;
					if (uncompress(s->buf, &got, sc.in.p, (uLong)csize) != Z_OK || got != usize) {
						cerr(&sc, "zlib data is corrupt");
						goto out;
					}
					s->bufsize = usize;
				}
				sc = (struct cur){rd_init(s->buf, s->bufsize), path, 0, s->off};
			}
			int e = 0;
			switch (s->type) {
			case 1: e = read_summary(&r, &sc, s->flags); break;
			case 2: e = read_names(&r, &sc, s->flags); break;
			case 3: e = read_symbols(&r, &sc); break;
			case 4: e = read_offsets(&r, &sc); break;
			case 5: e = read_meta(&r, &sc, s->flags); break;
			case 6: e = read_cs_names(&r, &sc); break;
			case 32: e = read_lbr(&r, &sc); break;
			default: sc.in.p = sc.in.end; break; /* unknown: skipped */
			}
			if (e)
				goto out;
			if (sc.in.p != sc.in.end) {
				cerr(&sc, "section has trailing bytes");
				goto out;
			}
		}
	}
	/* The summary in the file is what clang would use; spgo_profile_read()
	 * recomputes it from the counts, as LLVM's writer does. */
	rc = 0;
out:
	for (uint64_t i = 0; i < nsec; i++)
		free(secs[i].buf);
	free(secs);
	free(r.names);
	free(r.ctxs);
	return rc;
}
