/*
 * GCC's AutoFDO profile ("gcov" format), as gcc -fauto-profile reads it
 * (gcc/auto-profile.cc) and the autofdo tools write it.  Everything is
 * 32-bit little-endian words; a "counter" is two words, low first.
 *
 *   magic "gcda" (0x67636461), version, 0
 *   0xaa000000 length #names, names          string table
 *   0xac000000 length #functions, functions  function profiles
 *   0xae000000 length 0                      module grouping (empty)
 *   0xaf000000 length, 128 x (unsigned, counter)   working set (autofdo)
 *
 * A function is its head count (counter; top level only), then name index,
 * #positions, #callsites; each position is offset ((line << 16) | disc),
 * #targets, count (counter), and per target the histogram type (7, indirect
 * call), name index (counter) and count (counter); each callsite is an
 * offset followed by the inlined callee's function (no head count).  Totals
 * are not stored: GCC sums them from the positions.
 *
 * Strings: GCC 12 (AUTO_PROFILE_VERSION 2) stores a byte length including
 * the NUL, then the bytes; the autofdo tools (version "*704", or 1) store a
 * length in words, then the string NUL-padded to whole words.
 */
#include "spgo/profile.h"
#include "profile/profile_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct gcur {
	const uint8_t *d;
	size_t pos, n;
	const char *path;
	uint32_t *names;
	size_t nnames;
	int bytestr;
	const struct spgo_profile *p; /* the profile read into (names) */
};

static int gerr(struct gcur *c, const char *what)
{
	spgo_error("%s: offset 0x%zx: %s", c->path, c->pos, what);
	return -1;
}

static int word(struct gcur *c, uint32_t *v)
{
	if (c->n - c->pos < 4)
		return gerr(c, "truncated gcov profile");
	const uint8_t *p = c->d + c->pos;
	*v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	c->pos += 4;
	return 0;
}

static int counter(struct gcur *c, uint64_t *v)
{
	uint32_t lo, hi;
	if (word(c, &lo) || word(c, &hi))
		return -1;
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

static int name_of(struct gcur *c, uint64_t idx, uint32_t *out)
{
	if (idx >= c->nnames) {
		c->pos -= 4;
		return gerr(c, "name index out of range");
	}
	*out = c->names[idx];
	/* create_gcov puts an empty string in the table, but no function or
	 * call target is nameless (and no format could write one). */
	if (!c->p->names.len[*out]) {
		c->pos -= 4;
		return gerr(c, "a function or call target with an empty name");
	}
	return 0;
}

/* Totals are not stored: as GCC does, every position count adds to the
 * total of its function and of all the functions it is inlined into. */
static int read_fn(struct spgo_profile *p, struct gcur *c, uint32_t f, int depth)
{
	uint32_t npos, ncs;
	if (depth > 200)
		return gerr(c, "inlinees nested too deep");
	if (word(c, &npos) || word(c, &ncs))
		return -1;
	for (uint32_t i = 0; i < npos; i++) {
		uint32_t off, nt;
		uint64_t cnt;
		if (word(c, &off) || word(c, &nt) || counter(c, &cnt))
			return -1;
		cnt = spgo_wcount(p->read_weight, cnt);
		uint32_t b = spgo_body_get(p, f, off >> 16, off & 0xffff);
		struct spgo_body *bd = &p->bodies.v[b];
		bd->count = bd->count + cnt < cnt ? UINT64_MAX : bd->count + cnt;
		for (uint32_t a = f; a != SPGO_NONE; a = p->funcs.v[a].parent)
			spgo_add_total(p, a, cnt);
		for (uint32_t j = 0; j < nt; j++) {
			uint32_t type, nm;
			uint64_t idx, tc;
			if (word(c, &type) || counter(c, &idx) || name_of(c, idx, &nm) || counter(c, &tc))
				return -1;
			spgo_add_target_id(p, b, nm, spgo_wcount(p->read_weight, tc));
		}
	}
	for (uint32_t i = 0; i < ncs; i++) {
		uint32_t off, nameidx, nm;
		if (word(c, &off) || word(c, &nameidx) || name_of(c, nameidx, &nm))
			return -1;
		uint32_t k = spgo_inlinee_get_id(p, f, off >> 16, off & 0xffff, nm);
		if (read_fn(p, c, k, depth + 1))
			return -1;
	}
	return 0;
}

int spgo_read_gcov(struct spgo_profile *p, const char *path, const uint8_t *d, size_t n)
{
	struct gcur c = {d, 0, n, path, NULL, 0, 0, p};
	uint32_t magic, version, zero, tag, len, count;
	int rc = -1;
	if (word(&c, &magic) || magic != SPGO_GCOV_MAGIC)
		return spgo_error("%s: offset 0x0: not a GCC AutoFDO (gcov) profile", path);
	if (word(&c, &version) || word(&c, &zero))
		return -1;
	if (version == 2)
		c.bytestr = 1;
	else if (version != 1 && version != SPGO_GCOV_VERSION_AUTOFDO)
		return spgo_error("%s: offset 0x4: unsupported AutoFDO profile version 0x%x", path,
				  version);
	if (word(&c, &tag) || word(&c, &len) || word(&c, &count))
		return -1;
	if (tag != SPGO_GCOV_TAG_NAMES) {
		c.pos -= 12;
		return gerr(&c, "expected the string table tag 0xaa000000");
	}
	if (count > (n - c.pos) / 4) {
		c.pos -= 4;
		return gerr(&c, "string table larger than the file");
	}
	c.names = xmalloc((count ? count : 1) * sizeof *c.names);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t l;
		if (word(&c, &l))
			goto out;
		size_t bytes = c.bytestr ? l : (size_t)l * 4;
		if (bytes > c.n - c.pos) {
			c.pos -= 4;
			gerr(&c, "string longer than the file");
			goto out;
		}
		const char *s = (const char *)d + c.pos;
		size_t sl = bytes ? strnlen(s, bytes) : 0;
		if (bytes && sl == bytes) {
			gerr(&c, "unterminated string");
			goto out;
		}
		c.names[c.nnames++] = spgo_name_id(p, s, sl);
		c.pos += bytes;
	}
	if (word(&c, &tag) || word(&c, &len) || word(&c, &count))
		goto out;
	if (tag != SPGO_GCOV_TAG_FUNCTION) {
		c.pos -= 12;
		gerr(&c, "expected the function profile tag 0xac000000");
		goto out;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint64_t head;
		uint32_t nameidx, nm;
		if (counter(&c, &head) || word(&c, &nameidx) || name_of(&c, nameidx, &nm))
			goto out;
		uint32_t f = spgo_func_get_id(p, nm);
		spgo_add_head(p, f, spgo_wcount(p->read_weight, head));
		if (read_fn(p, &c, f, 0))
			goto out;
	}
	/* Module grouping and working set follow; GCC skips them, so do we. */
	rc = 0;
out:
	free(c.names);
	return rc;
}

/* ---- writing ------------------------------------------------------------- */

typedef VEC(uint32_t) words;

static void w32(words *w, uint32_t v)
{
	VEC_PUSH(w, v);
}

static void w64(words *w, uint64_t v)
{
	VEC_PUSH(w, (uint32_t)v);
	VEC_PUSH(w, (uint32_t)(v >> 32));
}

struct gw {
	struct spgo_profile *p;
	uint32_t *idx; /* name id -> string table index */
	uint32_t *buf[64];
	size_t cap[64];
	int err;
};

static void write_fn(struct gw *g, words *w, uint32_t f, int depth)
{
	struct spgo_profile *p = g->p;
	unsigned d = depth < 63 ? (unsigned)depth : 63;
	const struct spgo_func *fn = &p->funcs.v[f];
	w32(w, g->idx[fn->name]);
	size_t nb = spgo_func_bodies(p, f, &g->buf[d], &g->cap[d]);
	w32(w, (uint32_t)nb);
	w32(w, fn->nchildren);
	for (size_t i = 0; i < nb; i++) {
		uint32_t b = g->buf[d][i];
		const struct spgo_body *bd = &p->bodies.v[b];
		if (bd->line > 0xffff || bd->disc > 0xffff)
			g->err = 1;
		w32(w, bd->line << 16 | (bd->disc & 0xffff));
		w32(w, bd->ntargets);
		w64(w, bd->count);
		size_t nt = spgo_body_targets(p, b, &g->buf[63], &g->cap[63]);
		for (size_t j = 0; j < nt; j++) {
			const struct spgo_target *t = &p->targets.v[g->buf[63][j]];
			w32(w, 7); /* indirect call histogram */
			w64(w, g->idx[t->name]);
			w64(w, t->count);
		}
	}
	size_t nc = spgo_func_children(p, f, &g->buf[d], &g->cap[d]);
	uint32_t *kids = xmalloc((nc ? nc : 1) * sizeof *kids);
	if (nc)
		memcpy(kids, g->buf[d], nc * sizeof *kids);
	for (size_t i = 0; i < nc; i++) {
		const struct spgo_func *c = &p->funcs.v[kids[i]];
		if (c->line > 0xffff || c->disc > 0xffff)
			g->err = 1;
		w32(w, c->line << 16 | (c->disc & 0xffff));
		write_fn(g, w, kids[i], depth + 1);
	}
	free(kids);
}

typedef VEC(uint32_t) idlist;
static void mark(struct gw *g, uint32_t f, idlist *list)
{
	struct spgo_profile *p = g->p;
	uint32_t id = p->funcs.v[f].name;
	if (g->idx[id] == SPGO_NONE) {
		g->idx[id] = 0;
		VEC_PUSH(list, id);
	}
	for (uint32_t b = p->funcs.v[f].bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		for (uint32_t t = p->bodies.v[b].targets; t != SPGO_NONE; t = p->targets.v[t].next) {
			uint32_t n = p->targets.v[t].name;
			if (g->idx[n] == SPGO_NONE) {
				g->idx[n] = 0;
				VEC_PUSH(list, n);
			}
		}
	for (uint32_t c = p->funcs.v[f].children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		mark(g, c, list);
}

static _Thread_local struct spgo_profile *gsort_p;
static int cmp_str(const void *a, const void *b)
{
	return strcmp(spgo_name(gsort_p, *(const uint32_t *)a), spgo_name(gsort_p, *(const uint32_t *)b));
}

int spgo_write_gcov(struct spgo_profile *p, FILE *fp, const struct spgo_write_opts *o)
{
	int version = o && o->gcov_version ? o->gcov_version : 2;
	if (p->flags & SPGO_PROF_CS)
		return spgo_error("a context-sensitive profile cannot be written as gcov "
				  "(flatten it first: spgo merge --flatten)");
	struct gw g = {.p = p};
	g.idx = xmalloc((p->names.n + 1) * sizeof *g.idx);
	memset(g.idx, 0xff, (p->names.n + 1) * sizeof *g.idx);
	idlist list = {0};
	for (size_t i = 0; i < p->top.n; i++)
		mark(&g, p->top.v[i], &list);
	gsort_p = p;
	spgo_sort(list.v, list.n, sizeof *list.v, cmp_str);
	/* Index 0 is an empty string, as create_gcov writes: gcc 12's
	 * string_table::get_name asserts a name's index is above 0, so a
	 * callee at index 0 that gcc names (an inlined callee at an indirect
	 * call, find_icall_target_map) is an internal compiler error. */
	for (size_t i = 0; i < list.n; i++)
		g.idx[list.v[i]] = (uint32_t)i + 1;

	words w = {0};
	w32(&w, SPGO_GCOV_MAGIC);
	w32(&w, version == 2 ? 2 : SPGO_GCOV_VERSION_AUTOFDO);
	w32(&w, 0);
	/* string table */
	w32(&w, SPGO_GCOV_TAG_NAMES);
	size_t lenat = w.n;
	w32(&w, 0);
	w32(&w, (uint32_t)list.n + 1);
	VEC(uint8_t) strbytes = {0}; /* version 2: unaligned, built as bytes */
	for (size_t i = 0; i <= list.n; i++) {
		const char *s = i ? spgo_name(p, list.v[i - 1]) : "";
		size_t l = strlen(s);
		if (version == 2) {
			uint32_t bl = (uint32_t)l + 1;
			VEC_GROW(&strbytes, strbytes.n + 4 + bl);
			for (int k = 0; k < 4; k++)
				strbytes.v[strbytes.n++] = (uint8_t)(bl >> (8 * k));
			memcpy(strbytes.v + strbytes.n, s, bl);
			strbytes.n += bl;
		} else {
			uint32_t nw = (uint32_t)(l + 4) / 4;
			w32(&w, nw);
			VEC_GROW(&w, w.n + nw);
			memset(w.v + w.n, 0, nw * 4);
			memcpy(w.v + w.n, s, l);
			w.n += nw;
		}
	}
	words fw = {0};
	/* length of the string section, in words (rounded up for bytes) */
	w.v[lenat] = (uint32_t)(w.n - lenat - 1 + (strbytes.n + 3) / 4);
	/* functions */
	w32(&fw, SPGO_GCOV_TAG_FUNCTION);
	w32(&fw, 0);
	uint32_t *order = spgo_profile_sorted(p);
	w32(&fw, (uint32_t)p->top.n);
	for (size_t i = 0; i < p->top.n; i++) {
		w64(&fw, p->funcs.v[order[i]].head);
		write_fn(&g, &fw, order[i], 0);
	}
	free(order);
	fw.v[1] = (uint32_t)(fw.n - 2);
	w32(&fw, SPGO_GCOV_TAG_MODULE);
	w32(&fw, 1);
	w32(&fw, 0);
	w32(&fw, SPGO_GCOV_TAG_WORKING_SET);
	w32(&fw, 3 * 128);
	for (int i = 0; i < 128; i++) {
		w32(&fw, 0);
		w64(&fw, 0);
	}
	int rc = 0;
	if (g.err) {
		rc = spgo_error("a line offset or discriminator exceeds 16 bits; gcov cannot hold it");
	} else {
		/* words are host order; write little-endian */
		words *parts[2] = {&w, &fw};
		for (int k = 0; k < 2; k++) {
			uint8_t *le = xmalloc(parts[k]->n * 4 + 1);
			for (size_t i = 0; i < parts[k]->n; i++) {
				uint32_t v = parts[k]->v[i];
				le[i * 4] = (uint8_t)v;
				le[i * 4 + 1] = (uint8_t)(v >> 8);
				le[i * 4 + 2] = (uint8_t)(v >> 16);
				le[i * 4 + 3] = (uint8_t)(v >> 24);
			}
			fwrite(le, 1, parts[k]->n * 4, fp);
			free(le);
			if (k == 0 && strbytes.n)
				fwrite(strbytes.v, 1, strbytes.n, fp);
		}
		if (ferror(fp))
			rc = spgo_error("write error");
	}
	VEC_FREE(&w);
	VEC_FREE(&fw);
	VEC_FREE(&strbytes);
	VEC_FREE(&list);
	for (int i = 0; i < 64; i++)
		free(g.buf[i]);
	free(g.idx);
	return rc;
}
