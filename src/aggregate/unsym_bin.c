/*
 * Unsymbolized profiles: the binary form (spgo/unsym.h).
 *
 * The binary form, after the 9-byte magic "SPGO-UNS" 0x01, is a sequence of
 * sections to the end of the file, each:
 *
 *     'S'  str build_id  str path  uv base  uv has_base  uv kinds
 *          uv hosts  uv samples  uv matched  uv lbr_samples  uv stack_samples  uv lost
 *          uv nevents, per event: str name  uv samples  uv period
 *          uv nranges, per range (sorted): uv begin - previous begin,
 *                                          zz end - begin,  uv count
 *          uv nbranches, the same with from and to
 *          per event: uv nips, per ip (sorted): uv ip - previous ip, uv count
 *          uv nstacks, per stack (sorted): uv count  uv nframes  uv nbranches,
 *                                          then every word as zz (word - previous word)
 *          (version 2) uv ncontexts, per context (sorted by key):
 *                      uv key length (at most 1 MiB)  the key  ranges  branches (as above)
 *
 * uv is an unsigned LEB128 varint, zz a zigzag-coded signed difference
 * (wrapping 64-bit arithmetic, so the external address codes like any
 * other), str a uv length (at most 4096) and the bytes.  Events are written
 * in name order and the ip lists follow that order.  Version 2 (0x02 after
 * the magic) is written when a section has unwound contexts; version 1
 * files read as before.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "unsym_impl.h"

struct wbuf {
	VEC(uint8_t) b;
};

static void put_uv(struct wbuf *w, uint64_t x)
{
	VEC_GROW(&w->b, w->b.n + 10);
	w->b.n += spgo_uleb_encode(w->b.v + w->b.n, x);
}

static void put_zz(struct wbuf *w, uint64_t d)
{
	put_uv(w, (d << 1) ^ (uint64_t)((int64_t)d >> 63));
}

static void put_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);
	if (n > MAX_STR)
		n = MAX_STR;
	put_uv(w, n);
	VEC_GROW(&w->b, w->b.n + n);
	memcpy(w->b.v + w->b.n, s, n);
	w->b.n += n;
}

/* A sorted map of 1 or 2 key words: first word delta-coded, second as a
 * zigzag difference from the first. */
static void put_map(struct wbuf *w, const struct spgo_kmap *m)
{
	uint64_t *rows = spgo_kmap_sorted(m), prev = 0;
	unsigned row = m->kw + 1;
	put_uv(w, m->n);
	for (size_t i = 0; i < m->n; i++) {
		const uint64_t *r = rows + i * row;
		put_uv(w, r[0] - prev);
		prev = r[0];
		if (m->kw == 2)
			put_zz(w, r[1] - r[0]);
		put_uv(w, r[m->kw]);
	}
	free(rows);
}

static void write_bin_section(struct wbuf *w, const struct spgo_unsym_bin *s, int version)
{
	VEC_PUSH(&w->b, 'S');
	put_str(w, s->build_id);
	put_str(w, s->path);
	put_uv(w, s->base);
	put_uv(w, (uint64_t)s->has_base);
	put_uv(w, s->kinds);
	put_uv(w, s->hosts);
	put_uv(w, s->samples);
	put_uv(w, s->matched);
	put_uv(w, s->lbr_samples);
	put_uv(w, s->stack_samples);
	put_uv(w, s->lost);
	struct spgo_unsym_event **ev = unsym_sorted_events(s);
	put_uv(w, s->events.n);
	for (size_t i = 0; i < s->events.n; i++) {
		put_str(w, ev[i]->name);
		put_uv(w, ev[i]->samples);
		put_uv(w, ev[i]->period);
	}
	put_map(w, &s->ranges);
	put_map(w, &s->branches);
	for (size_t i = 0; i < s->events.n; i++)
		put_map(w, &ev[i]->ips);
	free(ev);
	size_t *st = unsym_sorted_stacks(s);
	put_uv(w, s->nstacks);
	for (size_t i = 0; i < s->nstacks; i++) {
		const uint64_t *e = s->pool.v + st[i];
		uint32_t nf = (uint32_t)e[1], nb = (uint32_t)(e[1] >> 32);
		put_uv(w, e[0]);
		put_uv(w, nf);
		put_uv(w, nb);
		uint64_t prev = 0;
		for (size_t k = 0; k < nf + 2 * (size_t)nb; k++) {
			put_zz(w, e[2 + k] - prev);
			prev = e[2 + k];
		}
	}
	free(st);
	if (version < VERSION_CTX)
		return;
	struct spgo_unsym_ctx **cv = unsym_sorted_ctxs(s);
	put_uv(w, s->ctxs.n);
	for (size_t i = 0; i < s->ctxs.n; i++) {
		size_t n = strlen(cv[i]->key);
		put_uv(w, n);
		VEC_GROW(&w->b, w->b.n + n);
		memcpy(w->b.v + w->b.n, cv[i]->key, n);
		w->b.n += n;
		put_map(w, &cv[i]->ranges);
		put_map(w, &cv[i]->branches);
	}
	free(cv);
}



/* Reading: a cursor over the bytes (common/bytes.h); every failure sets
 * err once, naming the offset reached. */
struct urd {
	const char *name;
	struct rd in; /* in.base: the file's first byte */
	int err;
};

static int rd_err(struct urd *r, const char *what)
{
	if (!r->err)
		spgo_error("%s: offset %zu: %s", r->name, rd_off(&r->in), what);
	r->err = 1;
	r->in.p = r->in.end;
	return -1;
}

static uint64_t get_uv(struct urd *r)
{
	uint64_t x = rd_uleb(&r->in);
	if (r->in.bad && !r->err)
		return rd_err(r, r->in.bad == RD_OVERFLOW ? "varint too long" : "truncated"), 0;
	return r->err ? 0 : x;
}

static uint64_t get_zz(struct urd *r)
{
	uint64_t z = get_uv(r);
	return (z >> 1) ^ (0 - (z & 1));
}

/* A count of items of at least min_bytes each: no more than the bytes left. */
static uint64_t get_count(struct urd *r, size_t min_bytes, const char *what)
{
	uint64_t n = get_uv(r);
	if (!r->err && n > (uint64_t)rd_left(&r->in) / min_bytes) {
		char msg[128];
		snprintf(msg, sizeof msg, "%s count %" PRIu64 " exceeds the data left", what, n);
		rd_err(r, msg);
		return 0;
	}
	return n;
}

static char *get_str(struct urd *r)
{
	uint64_t n = get_uv(r);
	if (!r->err && (n > MAX_STR || n > (uint64_t)rd_left(&r->in)))
		rd_err(r, "bad string length");
	if (r->err)
		return xstrdup("");
	if (!unsym_str_ok((const char *)r->in.p, (size_t)n)) {
		rd_err(r, "bad string");
		return xstrdup("");
	}
	char *s = xstrndup((const char *)r->in.p, (size_t)n);
	r->in.p += n;
	return s;
}


static void get_map(struct urd *r, struct spgo_kmap *m, uint64_t weight, uint64_t *total)
{
	uint64_t n = get_count(r, m->kw + 1, "entry"), prev = 0;
	for (uint64_t i = 0; i < n && !r->err; i++) {
		uint64_t k[2];
		k[0] = prev + get_uv(r);
		prev = k[0];
		if (m->kw == 2)
			k[1] = k[0] + get_zz(r);
		uint64_t c = get_uv(r) * weight;
		if (r->err)
			break;
		*spgo_kmap_upsert(m, k) += c;
		if (total)
			*total += c;
	}
}

/* Version 2's list of contexts at the end of a section. */
static void get_ctxs(struct urd *r, struct spgo_unsym_bin *s, uint64_t weight)
{
	uint64_t n = get_count(r, 3, "context");
	for (uint64_t i = 0; i < n && !r->err; i++) {
		uint64_t len = get_uv(r);
		if (!r->err && (len > MAX_CTX_KEY || len > (uint64_t)rd_left(&r->in) ||
				!unsym_ctx_key_ok((const char *)r->in.p, (size_t)len))) {
			rd_err(r, "bad context key");
			break;
		}
		if (r->err)
			break;
		struct spgo_unsym_ctx *c = spgo_unsym_context(s, (const char *)r->in.p, (size_t)len);
		r->in.p += len;
		get_map(r, &c->ranges, weight, NULL);
		get_map(r, &c->branches, weight, NULL);
	}
}

int unsym_read_bin(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
		    uint64_t weight)
{
	if (size < MAGIC_LEN + 1 || memcmp(data, MAGIC, MAGIC_LEN))
		return spgo_error("%s: not an unsymbolized profile", name);
	int version = data[MAGIC_LEN];
	if (version != VERSION && version != VERSION_CTX)
		return spgo_error("%s: unsymbolized profile version %u (this spgo reads %u and %u)", name,
				  data[MAGIC_LEN], VERSION, VERSION_CTX);
	struct urd r = {name, rd_init(data, size), 0};
	rd_skip(&r.in, MAGIC_LEN + 1);
	VEC(uint64_t) w = {0};
	VEC(struct spgo_unsym_event *) evs = {0};
	while (r.in.p < r.in.end && !r.err) {
		if (*r.in.p++ != 'S') {
			r.in.p--;
			rd_err(&r, "not a section");
			break;
		}
		char *id = get_str(&r), *path = get_str(&r);
		if (!r.err && !unsym_hex_id(id))
			rd_err(&r, "build-id not in hex");
		struct spgo_unsym_bin *s = r.err ? NULL : spgo_unsym_section(u, id, path);
		free(id);
		free(path);
		if (!s)
			break;
		uint64_t base = get_uv(&r), has_base = get_uv(&r), kinds = get_uv(&r);
		uint64_t hdr[6];
		for (int i = 0; i < 6; i++)
			hdr[i] = get_uv(&r);
		if (r.err)
			break;
		if (has_base > 1 || kinds > 15) {
			rd_err(&r, "bad section header");
			break;
		}
		if (has_base && unsym_set_base(s, base, name) < 0) {
			r.err = 1;
			break;
		}
		s->kinds |= (unsigned)kinds;
		s->hosts += hdr[0];
		s->samples += hdr[1] * weight;
		s->matched += hdr[2] * weight;
		s->lbr_samples += hdr[3] * weight;
		s->stack_samples += hdr[4] * weight;
		s->lost += hdr[5] * weight;
		uint64_t nev = get_count(&r, 3, "event");
		evs.n = 0;
		for (uint64_t i = 0; i < nev && !r.err; i++) {
			char *en = get_str(&r);
			if (!r.err && !*en)
				rd_err(&r, "event without a name");
			uint64_t sm = get_uv(&r), pd = get_uv(&r);
			if (!r.err) {
				struct spgo_unsym_event *e = unsym_event_named(s, en);
				e->samples += sm * weight;
				e->period += pd * weight;
				VEC_PUSH(&evs, NULL); /* pointers move as events grow: */
				evs.v[evs.n - 1] = (void *)(uintptr_t)(e - s->events.v);
			}
			free(en);
		}
		get_map(&r, &s->ranges, weight, NULL);
		get_map(&r, &s->branches, weight, NULL);
		for (size_t i = 0; i < evs.n && !r.err; i++)
			get_map(&r, &s->events.v[(uintptr_t)evs.v[i]].ips, weight, NULL);
		uint64_t nst = get_count(&r, 3, "stack");
		for (uint64_t i = 0; i < nst && !r.err; i++) {
			uint64_t c = get_uv(&r) * weight, nf = get_uv(&r), nb = get_uv(&r);
			if (r.err)
				break;
			if (nf > MAX_WORDS || nb > MAX_WORDS || nf + 2 * nb > MAX_WORDS ||
			    nf + 2 * nb > (uint64_t)rd_left(&r.in)) { /* each first: 2 * nb may wrap */
				rd_err(&r, "bad stack size");
				break;
			}
			size_t nw = (size_t)(nf + 2 * nb);
			VEC_GROW(&w, nw + 1);
			uint64_t prev = 0;
			for (size_t k = 0; k < nw; k++)
				prev = w.v[k] = prev + get_zz(&r);
			if (!r.err)
				spgo_unsym_add_stack(s, w.v, (uint32_t)nf, w.v + nf, (uint32_t)nb, c);
		}
		if (version >= VERSION_CTX)
			get_ctxs(&r, s, weight);
	}
	VEC_FREE(&w);
	VEC_FREE(&evs);
	return r.err ? -1 : 0;
}


/* The binary form of the sections (sorted), the magic first. */
void unsym_write_bin(FILE *fp, struct spgo_unsym_bin *const *bins, size_t n)
{
	struct wbuf w = {{0}};
	VEC_GROW(&w.b, 1 << 16);
	memcpy(w.b.v, MAGIC, MAGIC_LEN);
	int version = VERSION;
	for (size_t i = 0; i < n; i++)
		if (bins[i]->ctxs.n)
			version = VERSION_CTX;
	w.b.v[MAGIC_LEN] = (uint8_t)version;
	w.b.n = MAGIC_LEN + 1;
	for (size_t i = 0; i < n; i++) {
		write_bin_section(&w, bins[i], version);
		if (w.b.n > (1 << 20)) { /* flush as it grows */
			fwrite(w.b.v, 1, w.b.n, fp);
			w.b.n = 0;
		}
	}
	fwrite(w.b.v, 1, w.b.n, fp);
	VEC_FREE(&w.b);
}
