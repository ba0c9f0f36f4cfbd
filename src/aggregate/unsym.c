/*
 * Unsymbolized profiles: the aggregate as a file, merged by addition.  See
 * spgo/unsym.h for the contract.
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
 *
 * uv is an unsigned LEB128 varint, zz a zigzag-coded signed difference
 * (wrapping 64-bit arithmetic, so the external address codes like any
 * other), str a uv length (at most 4096) and the bytes.  Events are written
 * in name order and the ip lists follow that order.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "spgo/unsym.h"

#define MAGIC "SPGO-UNS"
#define MAGIC_LEN 8
#define VERSION 1
#define MAX_STR 4096
#define MAX_WORDS (1u << 16) /* frames + 2 x branches of one stack sample */
#define TEXT_HEAD "# spgo-unsymbolized"

/* ---- sections ------------------------------------------------------------ */

struct spgo_unsym *spgo_unsym_new(void) { return xcalloc(1, sizeof(struct spgo_unsym)); }

static void bin_free(struct spgo_unsym_bin *s)
{
	free(s->build_id);
	free(s->path);
	spgo_kmap_free(&s->ranges);
	spgo_kmap_free(&s->branches);
	for (size_t i = 0; i < s->events.n; i++) {
		free(s->events.v[i].name);
		spgo_kmap_free(&s->events.v[i].ips);
	}
	VEC_FREE(&s->events);
	VEC_FREE(&s->pool);
	spgo_kmap_free(&s->stack_index);
	free(s);
}

void spgo_unsym_free(struct spgo_unsym *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->bins.n; i++)
		bin_free(u->bins.v[i]);
	VEC_FREE(&u->bins);
	free(u);
}

/* Sections are keyed by build-id, by path when there is none. */
static int same_key(const struct spgo_unsym_bin *s, const char *id, const char *path)
{
	return *id || *s->build_id ? !strcasecmp(s->build_id, id) : !strcmp(s->path, path);
}

struct spgo_unsym_bin *spgo_unsym_section(struct spgo_unsym *u, const char *build_id,
					  const char *path)
{
	for (size_t i = 0; i < u->bins.n; i++) {
		struct spgo_unsym_bin *s = u->bins.v[i];
		if (same_key(s, build_id, path)) {
			/* one build-id, several paths: the smallest, whatever the order */
			if (*path && (!*s->path || strcmp(path, s->path) < 0)) {
				free(s->path);
				s->path = xstrdup(path);
			}
			return s;
		}
	}
	struct spgo_unsym_bin *s = xcalloc(1, sizeof *s);
	s->build_id = xstrdup(build_id);
	for (char *c = s->build_id; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	s->path = xstrdup(path);
	spgo_kmap_init(&s->ranges, 2);
	spgo_kmap_init(&s->branches, 2);
	spgo_kmap_init(&s->stack_index, 2);
	VEC_PUSH(&u->bins, s);
	return s;
}

static struct spgo_unsym_event *event_named(struct spgo_unsym_bin *s, const char *name)
{
	for (size_t i = 0; i < s->events.n; i++)
		if (!strcmp(s->events.v[i].name, name))
			return &s->events.v[i];
	struct spgo_unsym_event e = {xstrdup(name), 0, 0, {0}};
	spgo_kmap_init(&e.ips, 1);
	VEC_PUSH(&s->events, e);
	return &s->events.v[s->events.n - 1];
}

/* Set or check the base of a section. */
static int set_base(struct spgo_unsym_bin *s, uint64_t base, const char *where)
{
	if (s->has_base && s->base != base)
		return spgo_error("%s: binary %s: base 0x%" PRIx64 " differs from 0x%" PRIx64
				  " of the same build-id merged before",
				  where, *s->build_id ? s->build_id : s->path, base, s->base);
	s->base = base;
	s->has_base = 1;
	return 0;
}

uint64_t spgo_unsym_base(const struct spgo_binary *bin)
{
	size_t n;
	const struct spgo_segment *seg = spgo_binary_segments(bin, &n);
	for (size_t i = 0; i < n; i++)
		if (seg[i].flags & 1) /* PF_X */
			return seg[i].vaddr & ~(uint64_t)0xfff;
	return 0;
}

void spgo_unsym_add_stack(struct spgo_unsym_bin *s, const uint64_t *frames, uint32_t nframes,
			  const uint64_t *branches, uint32_t nbranches, uint64_t count)
{
	uint64_t hdr = nframes | (uint64_t)nbranches << 32;
	size_t nw = nframes + 2 * (size_t)nbranches;
	uint64_t h = spgo_hash_bytes(frames, nframes * 8) ^
		     spgo_hash_bytes(branches, 2 * (size_t)nbranches * 8) * 31 ^ spgo_hash64(hdr);
	for (uint64_t salt = 0;; salt++) {
		uint64_t key[2] = {h, salt};
		uint64_t *v = spgo_kmap_find(&s->stack_index, key);
		if (!v) {
			*spgo_kmap_upsert(&s->stack_index, key) = s->pool.n;
			VEC_GROW(&s->pool, s->pool.n + 2 + nw);
			uint64_t *e = s->pool.v + s->pool.n;
			e[0] = count;
			e[1] = hdr;
			if (nframes)
				memcpy(e + 2, frames, nframes * 8);
			if (nbranches)
				memcpy(e + 2 + nframes, branches, 2 * (size_t)nbranches * 8);
			s->pool.n += 2 + nw;
			s->nstacks++;
			return;
		}
		uint64_t *e = s->pool.v + *v;
		if (e[1] == hdr && !memcmp(e + 2, frames, nframes * 8) &&
		    !memcmp(e + 2 + nframes, branches, 2 * (size_t)nbranches * 8)) {
			e[0] += count;
			return;
		}
	}
}

void spgo_unsym_add_agg(struct spgo_unsym *u, const struct spgo_aggregate *agg, uint64_t hosts)
{
	size_t idlen;
	const uint8_t *id = spgo_binary_build_id(agg->bin, &idlen);
	char *hex = xmalloc(2 * idlen + 1);
	spgo_build_id_hex(id, idlen, hex);
	/* the path the data names it by (the host's), else the one opened */
	size_t nm;
	const struct spgo_agg_match *m = spgo_agg_matches(agg, &nm);
	struct spgo_unsym_bin *s =
		spgo_unsym_section(u, hex, nm ? m[0].name : spgo_binary_path(agg->bin));
	free(hex);
	uint64_t base = spgo_unsym_base(agg->bin), ext = 1 - base;
	set_base(s, base, spgo_binary_path(agg->bin)); /* same build-id: same base */
#define OFF(v) ((v) == SPGO_AGG_EXTERNAL ? ext : (v) - base)
	const struct spgo_agg_stats *st = &agg->stats;
	s->hosts += hosts;
	s->samples += st->samples;
	s->matched += st->samples_matched;
	s->lbr_samples += st->lbr_samples;
	s->stack_samples += st->stack_samples;
	s->lost += st->lost;
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&agg->ranges, &it, &key, &val);) {
		uint64_t k[2] = {OFF(key[0]), OFF(key[1])};
		*spgo_kmap_upsert(&s->ranges, k) += *val;
	}
	for (size_t it = 0; spgo_kmap_next(&agg->branches, &it, &key, &val);) {
		uint64_t k[2] = {OFF(key[0]), OFF(key[1])};
		*spgo_kmap_upsert(&s->branches, k) += *val;
	}
	if (st->lbr_samples || agg->ranges.n || agg->branches.n)
		s->kinds |= SPGO_UNSYM_LBR;
	for (size_t i = 0; i < agg->events.n; i++) {
		const struct spgo_agg_event *ae = &agg->events.v[i];
		if (!ae->samples && !ae->ips.n)
			continue;
		struct spgo_unsym_event *e = event_named(s, ae->name);
		e->samples += ae->samples;
		e->period += ae->period;
		for (size_t it = 0; spgo_kmap_next(&ae->ips, &it, &key, &val);) {
			uint64_t k = OFF(key[0]);
			*spgo_kmap_upsert(&e->ips, &k) += *val;
		}
		if (ae->ips.n)
			s->kinds |= SPGO_UNSYM_IP;
	}
	VEC(uint64_t) w = {0};
	struct spgo_agg_stack st_;
	for (size_t it = 0; spgo_agg_next_stack(agg, &it, &st_);) {
		size_t nw = st_.nframes + 2 * (size_t)st_.nbranches;
		VEC_GROW(&w, nw + 1);
		for (uint32_t k = 0; k < st_.nframes; k++)
			w.v[k] = OFF(st_.frames[k]);
		for (uint32_t k = 0; k < 2 * st_.nbranches; k++)
			w.v[st_.nframes + k] = OFF(st_.branches[k]);
		spgo_unsym_add_stack(s, w.v, st_.nframes, w.v + st_.nframes, st_.nbranches, st_.count);
		s->kinds |= SPGO_UNSYM_CS;
	}
	VEC_FREE(&w);
#undef OFF
}

/* ---- sorted views (every writer goes through them) ---------------------- */

static int cmp_bins(const void *x, const void *y)
{
	const struct spgo_unsym_bin *a = *(struct spgo_unsym_bin *const *)x,
				    *b = *(struct spgo_unsym_bin *const *)y;
	int c = strcmp(a->build_id, b->build_id);
	return c ? c : strcmp(a->path, b->path);
}

static int cmp_events(const void *x, const void *y)
{
	return strcmp((*(struct spgo_unsym_event *const *)x)->name,
		      (*(struct spgo_unsym_event *const *)y)->name);
}

static int cmp_stack(const void *x, const void *y, void *pool)
{
	const uint64_t *a = (uint64_t *)pool + *(const size_t *)x,
		       *b = (uint64_t *)pool + *(const size_t *)y;
	if (a[1] != b[1])
		return a[1] < b[1] ? -1 : 1;
	size_t n = (uint32_t)a[1] + 2 * (size_t)(a[1] >> 32);
	for (size_t i = 0; i < n; i++)
		if (a[2 + i] != b[2 + i])
			return a[2 + i] < b[2 + i] ? -1 : 1;
	return 0;
}

static struct spgo_unsym_bin **sorted_bins(const struct spgo_unsym *u)
{
	struct spgo_unsym_bin **v = xmalloc((u->bins.n + 1) * sizeof *v);
	if (u->bins.n)
		memcpy(v, u->bins.v, u->bins.n * sizeof *v);
	spgo_sort(v, u->bins.n, sizeof *v, cmp_bins);
	return v;
}

static struct spgo_unsym_event **sorted_events(const struct spgo_unsym_bin *s)
{
	struct spgo_unsym_event **v = xmalloc((s->events.n + 1) * sizeof *v);
	for (size_t i = 0; i < s->events.n; i++)
		v[i] = &s->events.v[i];
	spgo_sort(v, s->events.n, sizeof *v, cmp_events);
	return v;
}

/* Offsets of the stack entries in the pool, sorted by their words. */
static size_t *sorted_stacks(const struct spgo_unsym_bin *s)
{
	size_t *v = xmalloc((s->nstacks + 1) * sizeof *v), n = 0;
	for (size_t it = 0; it < s->pool.n; n++) {
		v[n] = it;
		it += 2 + (uint32_t)s->pool.v[it + 1] + 2 * (size_t)(s->pool.v[it + 1] >> 32);
	}
	if (n > 1)
		qsort_r(v, n, sizeof *v, cmp_stack, s->pool.v);
	return v;
}

/* ---- the binary form ------------------------------------------------------ */

struct wbuf {
	VEC(uint8_t) b;
};

static void put_uv(struct wbuf *w, uint64_t x)
{
	VEC_GROW(&w->b, w->b.n + 10);
	do {
		uint8_t c = x & 0x7f;
		x >>= 7;
		w->b.v[w->b.n++] = c | (x ? 0x80 : 0);
	} while (x);
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

static void write_bin_section(struct wbuf *w, const struct spgo_unsym_bin *s)
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
	struct spgo_unsym_event **ev = sorted_events(s);
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
	size_t *st = sorted_stacks(s);
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
}

/* A path or event name the text form can carry: printable, not blank-
 * edged, not "-" (which stands for none there). */
static int str_ok(const char *s)
{
	size_t n = strlen(s);
	if (!strcmp(s, "-") || (n && (s[0] == ' ' || s[n - 1] == ' ')))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

/* Reading: a cursor over the bytes; every failure sets err once. */
struct rd {
	const char *name;
	const uint8_t *start, *p, *end;
	int err;
};

static int rd_fail(struct rd *r, const char *what)
{
	if (!r->err)
		spgo_error("%s: offset %zu: %s", r->name, (size_t)(r->p - r->start), what);
	r->err = 1;
	r->p = r->end;
	return -1;
}

static uint64_t get_uv(struct rd *r)
{
	uint64_t x = 0;
	for (unsigned sh = 0; sh < 64; sh += 7) {
		if (r->p >= r->end)
			return rd_fail(r, "truncated"), 0;
		uint8_t c = *r->p++;
		if (sh == 63 && c > 1)
			return rd_fail(r, "varint too long"), 0;
		x |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return x;
	}
	return rd_fail(r, "varint too long"), 0;
}

static uint64_t get_zz(struct rd *r)
{
	uint64_t z = get_uv(r);
	return (z >> 1) ^ (0 - (z & 1));
}

/* A count of items of at least min_bytes each: no more than the bytes left. */
static uint64_t get_count(struct rd *r, size_t min_bytes, const char *what)
{
	uint64_t n = get_uv(r);
	if (!r->err && n > (uint64_t)(r->end - r->p) / min_bytes) {
		char msg[128];
		snprintf(msg, sizeof msg, "%s count %" PRIu64 " exceeds the data left", what, n);
		rd_fail(r, msg);
		return 0;
	}
	return n;
}

static char *get_str(struct rd *r)
{
	uint64_t n = get_uv(r);
	if (!r->err && (n > MAX_STR || n > (uint64_t)(r->end - r->p)))
		rd_fail(r, "bad string length");
	if (r->err)
		return xstrdup("");
	char *s = xstrndup((const char *)r->p, (size_t)n);
	r->p += n;
	if (strlen(s) != n || !str_ok(s))
		rd_fail(r, "bad string");
	return s;
}

/* A build-id is hex digits (stored in lower case). */
static int hex_id(const char *id)
{
	for (const char *c = id; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return 0;
	return 1;
}

static void get_map(struct rd *r, struct spgo_kmap *m, uint64_t weight, uint64_t *total)
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

static int read_bin(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
		    uint64_t weight)
{
	struct rd r = {name, data, data + MAGIC_LEN + 1, data + size, 0};
	if (size < MAGIC_LEN + 1 || memcmp(data, MAGIC, MAGIC_LEN))
		return spgo_error("%s: not an unsymbolized profile", name);
	if (data[MAGIC_LEN] != VERSION)
		return spgo_error("%s: unsymbolized profile version %u (this spgo reads %u)", name,
				  data[MAGIC_LEN], VERSION);
	VEC(uint64_t) w = {0};
	VEC(struct spgo_unsym_event *) evs = {0};
	while (r.p < r.end && !r.err) {
		if (*r.p++ != 'S') {
			r.p--;
			rd_fail(&r, "not a section");
			break;
		}
		char *id = get_str(&r), *path = get_str(&r);
		if (!r.err && !hex_id(id))
			rd_fail(&r, "build-id not in hex");
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
		if (has_base > 1 || kinds > 7) {
			rd_fail(&r, "bad section header");
			break;
		}
		if (has_base && set_base(s, base, name) < 0) {
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
				rd_fail(&r, "event without a name");
			uint64_t sm = get_uv(&r), pd = get_uv(&r);
			if (!r.err) {
				struct spgo_unsym_event *e = event_named(s, en);
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
			if (nf + 2 * nb > MAX_WORDS || nf + 2 * nb > (uint64_t)(r.end - r.p)) {
				rd_fail(&r, "bad stack size");
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
	}
	VEC_FREE(&w);
	VEC_FREE(&evs);
	return r.err ? -1 : 0;
}

/* ---- the text forms ------------------------------------------------------- */

static void write_text_section(FILE *fp, const struct spgo_unsym_bin *s, int profgen)
{
	const uint64_t ext = 1 - s->base;
	uint64_t *rows;
	if (!profgen) {
		fprintf(fp, "# binary %s %s\n", *s->build_id ? s->build_id : "-",
			*s->path ? s->path : "-");
		if (s->has_base)
			fprintf(fp, "# base 0x%" PRIx64 "\n", s->base);
		char mode[16] = "";
		static const char *const kind[] = {"lbr", "ip", "cs"};
		for (int k = 0; k < 3; k++)
			if (s->kinds & (1u << k))
				snprintf(mode + strlen(mode), sizeof mode - strlen(mode), "%s%s",
					 *mode ? "," : "", kind[k]);
		fprintf(fp, "# mode %s\n", *mode ? mode : "none");
		fprintf(fp, "# hosts %" PRIu64 "\n", s->hosts);
		fprintf(fp,
			"# samples %" PRIu64 " matched %" PRIu64 " lbr %" PRIu64 " stacks %" PRIu64
			" lost %" PRIu64 "\n",
			s->samples, s->matched, s->lbr_samples, s->stack_samples, s->lost);
	}
	struct spgo_unsym_event **ev = sorted_events(s);
	if (!profgen)
		for (size_t i = 0; i < s->events.n; i++)
			fprintf(fp, "# event %" PRIu64 " %" PRIu64 " %s\n", ev[i]->samples,
				ev[i]->period, ev[i]->name);
	/* llvm-profgen's part: ranges, then branches */
	rows = spgo_kmap_sorted(&s->ranges);
	fprintf(fp, "%zu\n", s->ranges.n);
	for (size_t i = 0; i < s->ranges.n; i++)
		fprintf(fp, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", rows[3 * i], rows[3 * i + 1],
			rows[3 * i + 2]);
	free(rows);
	rows = spgo_kmap_sorted(&s->branches);
	size_t nb = 0;
	for (size_t i = 0; i < s->branches.n; i++)
		nb += !profgen || (rows[3 * i + 1] != ext && rows[3 * i + 1] != UINT64_MAX);
	fprintf(fp, "%zu\n", nb);
	for (size_t i = 0; i < s->branches.n; i++)
		if (!profgen || (rows[3 * i + 1] != ext && rows[3 * i + 1] != UINT64_MAX))
			fprintf(fp, "%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n", rows[3 * i],
				rows[3 * i + 1], rows[3 * i + 2]);
	free(rows);
	if (profgen) {
		free(ev);
		return;
	}
	for (size_t i = 0; i < s->events.n; i++) {
		if (!ev[i]->ips.n)
			continue;
		rows = spgo_kmap_sorted(&ev[i]->ips);
		fprintf(fp, "# ips %zu %zu\n", i, ev[i]->ips.n);
		for (size_t k = 0; k < ev[i]->ips.n; k++)
			fprintf(fp, "%" PRIx64 ":%" PRIu64 "\n", rows[2 * k], rows[2 * k + 1]);
		free(rows);
	}
	free(ev);
	if (s->nstacks) {
		size_t *st = sorted_stacks(s);
		fprintf(fp, "# stacks %zu\n", s->nstacks);
		for (size_t i = 0; i < s->nstacks; i++) {
			const uint64_t *e = s->pool.v + st[i];
			uint32_t nf = (uint32_t)e[1], nbr = (uint32_t)(e[1] >> 32);
			fprintf(fp, "%" PRIu64, e[0]);
			for (uint32_t k = 0; k < nf; k++)
				fprintf(fp, " %" PRIx64, e[2 + k]);
			fputs(" |", fp);
			for (uint32_t k = 0; k < nbr; k++)
				fprintf(fp, " %" PRIx64 "->%" PRIx64, e[2 + nf + 2 * k],
					e[2 + nf + 2 * k + 1]);
			fputc('\n', fp);
		}
		free(st);
	}
}

/* Text reading: a line cursor. */
struct tr {
	const char *name;
	const char *p, *end;
	const char *line; /* the current line, [line, eol) */
	size_t len, lineno;
	int err;
};

static int tr_next(struct tr *t)
{
	if (t->p >= t->end)
		return 0;
	t->line = t->p;
	const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
	const char *eol = nl ? nl : t->end;
	t->p = nl ? nl + 1 : t->end;
	if (eol > t->line && eol[-1] == '\r')
		eol--;
	t->len = (size_t)(eol - t->line);
	t->lineno++;
	return 1;
}

static int tr_fail(struct tr *t, const char *what)
{
	if (!t->err)
		spgo_error("%s:%zu: %s: '%.*s'", t->name, t->lineno, what,
			   (int)(t->len > 80 ? 80 : t->len), t->line);
	t->err = 1;
	return -1;
}

/* Parse digits of a base at *s (< e); no digits or overflow: -1. */
static int parse_num(const char **s, const char *e, int base, uint64_t *out)
{
	uint64_t x = 0;
	const char *p = *s;
	if (base == 16 && e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	const char *d0 = p;
	for (; p < e; p++) {
		int c = (unsigned char)*p, v;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			break;
		if (x > (UINT64_MAX - (uint64_t)v) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)v;
	}
	if (p == d0)
		return -1;
	*s = p;
	*out = x;
	return 0;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* An address "[buildid:][0x]HEX" at *s: an offset, or the external offset
 * when its build-id names another binary than s. */
static int parse_addr(const char **s, const char *e, const struct spgo_unsym_bin *sec,
		      uint64_t *out)
{
	const char *p = *s, *colon = NULL;
	for (const char *q = p; q < e && isxdigit((unsigned char)*q); q++)
		if (e - q > 3 && q[1] == ':' && q[2] == '0' && q[3] == 'x') {
			colon = q + 1;
			break;
		}
	int other = 0;
	if (colon) {
		other = !*sec->build_id || (size_t)(colon - p) != strlen(sec->build_id) ||
			strncasecmp(p, sec->build_id, (size_t)(colon - p));
		p = colon + 1;
	}
	if (parse_num(&p, e, 16, out) < 0)
		return -1;
	if (other)
		*out = sec->has_base ? 1 - sec->base : UINT64_MAX;
	*s = p;
	return 0;
}

/* "A-B:C" (sep "-") or "A->B:C" (sep "->") into m, counts times weight. */
static int text_pair(struct tr *t, const struct spgo_unsym_bin *sec, struct spgo_kmap *m,
		     const char *sep, uint64_t weight)
{
	const char *p = skip_ws(t->line, t->line + t->len), *e = t->line + t->len;
	uint64_t k[2], c;
	size_t sl = strlen(sep);
	if (parse_addr(&p, e, sec, &k[0]) < 0 || (size_t)(e - p) < sl || memcmp(p, sep, sl))
		return tr_fail(t, "bad entry");
	p += sl;
	if (parse_addr(&p, e, sec, &k[1]) < 0 || p >= e || *p != ':')
		return tr_fail(t, "bad entry");
	p++;
	if (parse_num(&p, e, 10, &c) < 0 || skip_ws(p, e) != e)
		return tr_fail(t, "bad count");
	*spgo_kmap_upsert(m, k) += c * weight;
	return 0;
}

/* A count line: the number of entries that follow (at most one per line left). */
static int text_count(struct tr *t, uint64_t *n)
{
	const char *p = skip_ws(t->line, t->line + t->len), *e = t->line + t->len;
	if (parse_num(&p, e, 10, n) < 0 || skip_ws(p, e) != e)
		return tr_fail(t, "expected a count");
	if (*n > (uint64_t)(t->end - t->p) / 4 + 1)
		return tr_fail(t, "count exceeds the lines left");
	return 0;
}

/* llvm-profgen's two counted lists: ranges, then branches. */
static int text_block(struct tr *t, struct spgo_unsym_bin *s, uint64_t weight)
{
	uint64_t n;
	if (text_count(t, &n) < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		if (!tr_next(t) || text_pair(t, s, &s->ranges, "-", weight) < 0)
			return tr_fail(t, "missing range");
	if (!tr_next(t) || text_count(t, &n) < 0)
		return tr_fail(t, "missing the branch count");
	for (uint64_t i = 0; i < n; i++)
		if (!tr_next(t) || text_pair(t, s, &s->branches, "->", weight) < 0)
			return tr_fail(t, "missing branch");
	s->kinds |= SPGO_UNSYM_LBR;
	return 0;
}

/* "# KEY ..." : the rest after KEY and blanks, or NULL. */
static const char *directive(const struct tr *t, const char *key)
{
	size_t k = strlen(key);
	if (t->len < 2 + k || memcmp(t->line, "# ", 2) || memcmp(t->line + 2, key, k))
		return NULL;
	const char *p = t->line + 2 + k, *e = t->line + t->len;
	if (p < e && *p != ' ')
		return NULL;
	return skip_ws(p, e);
}

/* Numbers of a directive, in order; -1 if they are not all there. */
static int nums(const char *p, const char *e, int base, int n, uint64_t *out)
{
	for (int i = 0; i < n; i++) {
		p = skip_ws(p, e);
		/* skip a word between numbers ("samples N matched N ...") */
		while (p < e && isalpha((unsigned char)*p)) {
			while (p < e && *p != ' ')
				p++;
			p = skip_ws(p, e);
		}
		if (parse_num(&p, e, base, &out[i]) < 0)
			return -1;
	}
	return 0;
}

static int read_text(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
		     uint64_t weight)
{
	struct tr t = {name, (const char *)data, (const char *)data + size, NULL, 0, 0, 0};
	struct spgo_unsym_bin *cur = NULL;
	VEC(size_t) evs = {0}; /* this section's events in the file -> index */
	VEC(uint64_t) w = {0};
	while (!t.err && tr_next(&t)) {
		const char *e = t.line + t.len, *p = skip_ws(t.line, e), *a;
		if (p == e)
			continue;
		if ((a = directive(&t, "binary"))) {
			const char *sp = a;
			while (sp < e && *sp != ' ')
				sp++;
			char *id = xstrndup(a, (size_t)(sp - a));
			const char *pp = skip_ws(sp, e);
			char *path = xstrndup(pp, (size_t)(e - pp));
			if ((strcmp(id, "-") && !hex_id(id)) || (strcmp(path, "-") && !str_ok(path))) {
				free(id);
				free(path);
				tr_fail(&t, "bad binary line (a build-id in hex, a path)");
				break;
			}
			cur = spgo_unsym_section(u, strcmp(id, "-") ? id : "",
						 strcmp(path, "-") ? path : "");
			free(id);
			free(path);
			evs.n = 0;
			continue;
		}
		if (!cur && p[0] != '#' && p[0] != '[')
			cur = spgo_unsym_section(u, "", "");
		uint64_t v[5];
		if ((a = directive(&t, "base"))) {
			if (!cur || nums(a, e, 16, 1, v) < 0)
				tr_fail(&t, "bad base");
			else if (set_base(cur, v[0], name) < 0)
				t.err = 1;
		} else if ((a = directive(&t, "mode"))) {
			if (cur) {
				for (const char *q = a; q < e; q++) {
					if (!strncmp(q, "lbr", 3))
						cur->kinds |= SPGO_UNSYM_LBR;
					else if (!strncmp(q, "ip", 2))
						cur->kinds |= SPGO_UNSYM_IP;
					else if (!strncmp(q, "cs", 2))
						cur->kinds |= SPGO_UNSYM_CS;
				}
			}
		} else if ((a = directive(&t, "hosts"))) {
			if (!cur || nums(a, e, 10, 1, v) < 0)
				tr_fail(&t, "bad hosts");
			else
				cur->hosts += v[0];
		} else if ((a = directive(&t, "samples"))) {
			if (!cur || nums(a, e, 10, 5, v) < 0)
				tr_fail(&t, "bad samples line");
			else {
				cur->samples += v[0] * weight;
				cur->matched += v[1] * weight;
				cur->lbr_samples += v[2] * weight;
				cur->stack_samples += v[3] * weight;
				cur->lost += v[4] * weight;
			}
		} else if ((a = directive(&t, "event"))) {
			const char *q = a;
			if (!cur || parse_num(&q, e, 10, &v[0]) < 0 ||
			    parse_num((q = skip_ws(q, e), &q), e, 10, &v[1]) < 0 ||
			    (q = skip_ws(q, e)) == e) {
				tr_fail(&t, "bad event line");
			} else {
				char *en = xstrndup(q, (size_t)(e - q));
				if (!str_ok(en)) {
					free(en);
					tr_fail(&t, "bad event name");
					break;
				}
				struct spgo_unsym_event *ev = event_named(cur, en);
				free(en);
				ev->samples += v[0] * weight;
				ev->period += v[1] * weight;
				VEC_PUSH(&evs, (size_t)(ev - cur->events.v));
			}
		} else if ((a = directive(&t, "ips"))) {
			if (!cur || nums(a, e, 10, 2, v) < 0 || v[0] >= evs.n ||
			    v[1] > (uint64_t)(t.end - t.p) / 4 + 1) {
				tr_fail(&t, "bad ips line (after its event lines)");
				break;
			}
			struct spgo_kmap *m = &cur->events.v[evs.v[v[0]]].ips;
			for (uint64_t i = 0; i < v[1] && !t.err; i++) {
				uint64_t k, c;
				if (!tr_next(&t)) {
					tr_fail(&t, "missing ip");
					break;
				}
				const char *q = skip_ws(t.line, t.line + t.len), *qe = t.line + t.len;
				if (parse_addr(&q, qe, cur, &k) < 0 || q >= qe || *q++ != ':' ||
				    parse_num(&q, qe, 10, &c) < 0 || skip_ws(q, qe) != qe)
					tr_fail(&t, "bad ip entry");
				else
					*spgo_kmap_upsert(m, &k) += c * weight;
			}
			cur->kinds |= SPGO_UNSYM_IP;
		} else if ((a = directive(&t, "stacks"))) {
			if (!cur || nums(a, e, 10, 1, v) < 0 || v[0] > (uint64_t)(t.end - t.p) / 4 + 1) {
				tr_fail(&t, "bad stacks line");
				break;
			}
			for (uint64_t i = 0; i < v[0] && !t.err; i++) {
				if (!tr_next(&t)) {
					tr_fail(&t, "missing stack");
					break;
				}
				const char *q = skip_ws(t.line, t.line + t.len), *qe = t.line + t.len;
				uint64_t c, x;
				if (parse_num(&q, qe, 10, &c) < 0) {
					tr_fail(&t, "bad stack count");
					break;
				}
				w.n = 0;
				uint32_t nf = 0, nb = 0;
				int branches = 0;
				for (q = skip_ws(q, qe); q < qe && !t.err; q = skip_ws(q, qe)) {
					if (*q == '|' && !branches) {
						branches = 1;
						q++;
						continue;
					}
					if (w.n + 2 > MAX_WORDS || parse_addr(&q, qe, cur, &x) < 0) {
						tr_fail(&t, "bad stack entry");
						break;
					}
					VEC_PUSH(&w, x);
					if (!branches) {
						nf++;
						continue;
					}
					if (qe - q < 2 || memcmp(q, "->", 2)) {
						tr_fail(&t, "bad stack branch");
						break;
					}
					q += 2;
					if (parse_addr(&q, qe, cur, &x) < 0) {
						tr_fail(&t, "bad stack branch");
						break;
					}
					VEC_PUSH(&w, x);
					nb++;
				}
				if (!t.err && !branches)
					tr_fail(&t, "stack without '|'");
				if (!t.err) {
					VEC_GROW(&w, 1);
					spgo_unsym_add_stack(cur, w.v, nf, w.v + nf, nb, c * weight);
				}
			}
			cur->kinds |= SPGO_UNSYM_CS;
		} else if (p[0] == '#') {
			continue; /* a comment (the "# spgo-unsymbolized" line too) */
		} else if (p[0] == '[') {
			/* llvm-profgen's CS block: added to the plain counts of the
			 * section its leaf frame's build-id names */
			const char *close = memchr(p, ']', (size_t)(e - p));
			if (!close || skip_ws(close + 1, e) != e) {
				tr_fail(&t, "bad context line");
				break;
			}
			const char *leaf = close, *colon = NULL;
			while (leaf > p + 1 && leaf[-1] != ' ' && leaf[-1] != '[')
				leaf--;
			for (const char *q = leaf; q < close; q++)
				if (*q == ':') {
					colon = q;
					break;
				}
			struct spgo_unsym_bin *to = cur;
			if (colon && colon > leaf && colon + 2 < close && colon[1] == '0' &&
			    colon[2] == 'x') {
				char *id = xstrndup(leaf, (size_t)(colon - leaf));
				to = hex_id(id) ? spgo_unsym_section(u, id, "") : cur;
				free(id);
			}
			if (!to)
				to = cur = spgo_unsym_section(u, "", "");
			if (!tr_next(&t)) {
				tr_fail(&t, "context without counts");
				break;
			}
			text_block(&t, to, weight);
		} else {
			text_block(&t, cur, weight);
		}
	}
	VEC_FREE(&evs);
	VEC_FREE(&w);
	return t.err ? -1 : 0;
}

/* ---- public entry points ------------------------------------------------- */

enum spgo_unsym_format spgo_unsym_sniff(const uint8_t *data, size_t size)
{
	if (size >= MAGIC_LEN && !memcmp(data, MAGIC, MAGIC_LEN))
		return SPGO_UNSYM_BIN;
	if (size >= strlen(TEXT_HEAD) && !memcmp(data, TEXT_HEAD, strlen(TEXT_HEAD)))
		return SPGO_UNSYM_TEXT;
	/* llvm-profgen's: a count line, or a context line "[...]" alone */
	const char *p = (const char *)data, *e = p + size;
	while (p < e && isspace((unsigned char)*p))
		p++;
	const char *nl = memchr(p, '\n', (size_t)(e - p));
	const char *le = nl ? nl : e;
	while (le > p && isspace((unsigned char)le[-1]))
		le--;
	if (p == le)
		return SPGO_UNSYM_UNKNOWN;
	if (*p == '[')
		return le[-1] == ']' ? SPGO_UNSYM_PROFGEN : SPGO_UNSYM_UNKNOWN;
	for (const char *q = p; q < le; q++)
		if (!isdigit((unsigned char)*q))
			return SPGO_UNSYM_UNKNOWN;
	return SPGO_UNSYM_PROFGEN;
}

enum spgo_unsym_format spgo_unsym_sniff_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return SPGO_UNSYM_UNKNOWN;
	uint8_t buf[512];
	size_t n = fread(buf, 1, sizeof buf, fp);
	fclose(fp);
	return spgo_unsym_sniff(buf, n);
}

int spgo_unsym_read_mem(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
			uint64_t weight)
{
	switch (spgo_unsym_sniff(data, size)) {
	case SPGO_UNSYM_BIN:
		return read_bin(u, name, data, size, weight);
	case SPGO_UNSYM_TEXT:
	case SPGO_UNSYM_PROFGEN:
		return read_text(u, name, data, size, weight);
	default:
		return spgo_error("%s: not an unsymbolized profile (spgo's binary or text form, or "
				  "llvm-profgen's --skip-symbolization output)",
				  name);
	}
}

int spgo_unsym_read(struct spgo_unsym *u, const char *path, uint64_t weight)
{
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return -1;
	int rc = spgo_unsym_read_mem(u, path, f.data, f.size, weight);
	spgo_file_unmap(&f);
	return rc;
}

int spgo_unsym_write_fp(const struct spgo_unsym *u, FILE *fp, enum spgo_unsym_format fmt)
{
	struct spgo_unsym_bin **bins = sorted_bins(u);
	int rc = 0;
	if (fmt == SPGO_UNSYM_PROFGEN) {
		if (u->bins.n != 1)
			rc = spgo_error("llvm-profgen's unsymbolized format holds one binary; the "
					"profile has %zu (write spgo's text or binary form)",
					u->bins.n);
		else
			write_text_section(fp, bins[0], 1);
	} else if (fmt == SPGO_UNSYM_TEXT) {
		fprintf(fp, "%s %d\n", TEXT_HEAD, VERSION);
		for (size_t i = 0; i < u->bins.n; i++)
			write_text_section(fp, bins[i], 0);
	} else {
		struct wbuf w = {{0}};
		VEC_GROW(&w.b, 1 << 16);
		memcpy(w.b.v, MAGIC, MAGIC_LEN);
		w.b.v[MAGIC_LEN] = VERSION;
		w.b.n = MAGIC_LEN + 1;
		for (size_t i = 0; i < u->bins.n; i++) {
			write_bin_section(&w, bins[i]);
			if (w.b.n > (1 << 20)) { /* flush as it grows */
				fwrite(w.b.v, 1, w.b.n, fp);
				w.b.n = 0;
			}
		}
		fwrite(w.b.v, 1, w.b.n, fp);
		VEC_FREE(&w.b);
	}
	free(bins);
	return rc;
}

int spgo_unsym_write(const struct spgo_unsym *u, const char *path, enum spgo_unsym_format fmt)
{
	struct spgo_out o;
	if (spgo_out_open(&o, path) < 0)
		return -1;
	if (spgo_unsym_write_fp(u, o.fp, fmt) < 0) {
		spgo_out_abort(&o);
		return -1;
	}
	return spgo_out_commit(&o);
}

int spgo_unsym_format_parse(const char *name, enum spgo_unsym_format *fmt)
{
	if (!strcmp(name, "bin") || !strcmp(name, "binary") || !strcmp(name, "unsym"))
		*fmt = SPGO_UNSYM_BIN;
	else if (!strcmp(name, "text"))
		*fmt = SPGO_UNSYM_TEXT;
	else if (!strcmp(name, "profgen"))
		*fmt = SPGO_UNSYM_PROFGEN;
	else
		return -1;
	return 0;
}

/* ---- trimming ------------------------------------------------------------- */

static int cmp_count_rows(const void *x, const void *y, void *kwp)
{
	unsigned kw = *(unsigned *)kwp;
	const uint64_t *a = x, *b = y;
	if (a[kw] != b[kw])
		return a[kw] < b[kw] ? -1 : 1;
	for (unsigned i = 0; i < kw; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* Rebuild m without its coldest keys worth at most eps of its total. */
static uint64_t trim_map(struct spgo_kmap *m, double eps)
{
	if (m->n < 2)
		return 0;
	unsigned kw = m->kw, row = kw + 1;
	uint64_t *rows = spgo_kmap_sorted(m), total = 0;
	for (size_t i = 0; i < m->n; i++)
		total += rows[i * row + kw];
	qsort_r(rows, m->n, row * 8, cmp_count_rows, &kw);
	double budget = eps * (double)total, cut = 0;
	size_t drop = 0;
	while (drop < m->n && cut + (double)rows[drop * row + kw] <= budget)
		cut += (double)rows[drop++ * row + kw];
	if (drop) {
		size_t n = m->n;
		spgo_kmap_free(m);
		spgo_kmap_init(m, kw);
		for (size_t i = drop; i < n; i++)
			*spgo_kmap_upsert(m, rows + i * row) = rows[i * row + kw];
	}
	free(rows);
	return drop;
}

static uint64_t trim_stacks(struct spgo_unsym_bin *s, double eps)
{
	if (s->nstacks < 2)
		return 0;
	size_t *st = sorted_stacks(s), n = s->nstacks;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += s->pool.v[st[i]];
	/* coldest first, ties in the stable key order */
	uint64_t *order = xmalloc(n * 2 * sizeof *order);
	for (size_t i = 0; i < n; i++) { /* {index, count}: by count, then index */
		order[2 * i] = i;
		order[2 * i + 1] = s->pool.v[st[i]];
	}
	unsigned kw = 1;
	qsort_r(order, n, 16, cmp_count_rows, &kw);
	double budget = eps * (double)total, cut = 0;
	uint8_t *gone = xcalloc(n, 1);
	size_t drop = 0;
	while (drop < n && cut + (double)order[2 * drop + 1] <= budget) {
		cut += (double)order[2 * drop + 1];
		gone[order[2 * drop]] = 1;
		drop++;
	}
	if (drop) {
		VEC(uint64_t) old = {s->pool.v, s->pool.n, s->pool.cap};
		s->pool.v = NULL;
		s->pool.n = s->pool.cap = 0;
		spgo_kmap_free(&s->stack_index);
		spgo_kmap_init(&s->stack_index, 2);
		s->nstacks = 0;
		for (size_t i = 0; i < n; i++) {
			if (gone[i])
				continue;
			const uint64_t *e = old.v + st[i];
			uint32_t nf = (uint32_t)e[1], nb = (uint32_t)(e[1] >> 32);
			spgo_unsym_add_stack(s, e + 2, nf, e + 2 + nf, nb, e[0]);
		}
		free(old.v);
	}
	free(gone);
	free(order);
	free(st);
	return drop;
}

uint64_t spgo_unsym_trim(struct spgo_unsym *u, double eps)
{
	uint64_t dropped = 0;
	if (eps <= 0)
		return 0;
	for (size_t i = 0; i < u->bins.n; i++) {
		struct spgo_unsym_bin *s = u->bins.v[i];
		dropped += trim_map(&s->ranges, eps);
		dropped += trim_map(&s->branches, eps);
		for (size_t k = 0; k < s->events.n; k++)
			dropped += trim_map(&s->events.v[k].ips, eps);
		dropped += trim_stacks(s, eps);
	}
	return dropped;
}

/* ---- back to an aggregate -------------------------------------------------- */

struct spgo_unsym_bin *spgo_unsym_find(struct spgo_unsym *u, const struct spgo_binary *bin)
{
	size_t idlen;
	const uint8_t *id = spgo_binary_build_id(bin, &idlen);
	char *hex = xmalloc(2 * idlen + 1);
	spgo_build_id_hex(id, idlen, hex);
	const char *path = spgo_binary_path(bin), *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct spgo_unsym_bin *by_id = NULL, *by_name = NULL, *anon = NULL;
	for (size_t i = 0; i < u->bins.n; i++) {
		struct spgo_unsym_bin *s = u->bins.v[i];
		const char *ss = strrchr(s->path, '/'), *sb = ss ? ss + 1 : s->path;
		if (*hex && *s->build_id && !strcmp(hex, s->build_id))
			by_id = s;
		else if ((!*hex || !*s->build_id) && *s->path && !strcmp(sb, base))
			by_name = s;
		else if (!*s->build_id && !*s->path)
			anon = s;
	}
	struct spgo_unsym_bin *s = by_id ? by_id : by_name ? by_name : anon;
	if (!s) {
		VEC(char) msg = {0};
		for (size_t i = 0; i < u->bins.n; i++) {
			char *item = xasprintf("%s%s (%s)", i ? ", " : "", u->bins.v[i]->path,
					       u->bins.v[i]->build_id);
			for (char *c = item; *c; c++)
				VEC_PUSH(&msg, *c);
			free(item);
		}
		VEC_PUSH(&msg, '\0');
		spgo_error("%s (build-id %s): no section of the unsymbolized profile is for it; it has "
			   "%s",
			   path, *hex ? hex : "none", msg.v);
		VEC_FREE(&msg);
	}
	free(hex);
	return s;
}

int spgo_unsym_fill(struct spgo_unsym *u, struct spgo_aggregate *agg, const char *event_name)
{
	struct spgo_unsym_bin *s = spgo_unsym_find(u, agg->bin);
	if (!s)
		return -1;
	uint64_t base = spgo_unsym_base(agg->bin);
	if (s->has_base && s->base != base)
		return spgo_error("%s: its preferred base 0x%" PRIx64 " is not the profile's 0x%" PRIx64
				  ": not the binary that was profiled",
				  spgo_binary_path(agg->bin), base, s->base);
	const uint64_t ext = 1 - base;
#define VA(o) ((o) == ext || (o) == UINT64_MAX ? SPGO_AGG_EXTERNAL : (o) + base)
	const uint64_t *key;
	uint64_t *val;
	struct spgo_agg_stats *st = &agg->stats;
	for (size_t it = 0; spgo_kmap_next(&s->ranges, &it, &key, &val);) {
		uint64_t k[2] = {VA(key[0]), VA(key[1])};
		if (k[0] == SPGO_AGG_EXTERNAL || k[1] == SPGO_AGG_EXTERNAL || !*val)
			continue;
		*spgo_kmap_upsert(&agg->ranges, k) += *val;
		st->ranges += *val;
	}
	for (size_t it = 0; spgo_kmap_next(&s->branches, &it, &key, &val);) {
		uint64_t k[2] = {VA(key[0]), VA(key[1])};
		if ((k[0] & k[1]) == SPGO_AGG_EXTERNAL || !*val)
			continue;
		*spgo_kmap_upsert(&agg->branches, k) += *val;
		st->branches += *val;
	}
	struct spgo_unsym_event **ev = sorted_events(s);
	uint64_t ev_samples = 0, other = 0;
	for (size_t i = 0; i < s->events.n; i++) {
		if (event_name && strcmp(event_name, ev[i]->name)) {
			other += ev[i]->samples;
			continue;
		}
		struct spgo_agg_event e = {xstrdup(ev[i]->name), ev[i]->samples, ev[i]->period, {0}};
		spgo_kmap_init(&e.ips, 1);
		for (size_t it = 0; spgo_kmap_next(&ev[i]->ips, &it, &key, &val);) {
			uint64_t k = VA(key[0]);
			if (k != SPGO_AGG_EXTERNAL && *val)
				*spgo_kmap_upsert(&e.ips, &k) += *val;
		}
		ev_samples += e.samples;
		VEC_PUSH(&agg->events, e);
	}
	free(ev);
	VEC(uint64_t) w = {0};
	for (size_t it = 0; it < s->pool.n;) {
		const uint64_t *e = s->pool.v + it;
		uint32_t nf = (uint32_t)e[1], nb = (uint32_t)(e[1] >> 32);
		size_t nw = nf + 2 * (size_t)nb;
		VEC_GROW(&w, nw + 1);
		for (size_t k = 0; k < nw; k++)
			w.v[k] = VA(e[2 + k]);
		spgo_agg_add_stack(agg, w.v, nf, w.v + nf, nb, e[0]);
		it += 2 + nw;
	}
	VEC_FREE(&w);
#undef VA
	st->samples = event_name ? ev_samples : s->samples;
	st->samples_other_event = event_name ? other : 0;
	st->samples_matched = event_name ? ev_samples : s->matched;
	st->lbr_samples = s->lbr_samples;
	st->stack_samples = s->stack_samples;
	st->lost = s->lost;
	/* llvm-profgen's text has no header: counts stand for the samples */
	if (!st->lbr_samples && (agg->ranges.n || agg->branches.n))
		st->lbr_samples = 1;
	return 0;
}

void spgo_unsym_totals(const struct spgo_unsym_bin *s, uint64_t *keys, uint64_t *count)
{
	const uint64_t *key;
	uint64_t *val;
	*keys = s->ranges.n + s->branches.n + s->nstacks;
	*count = 0;
	for (size_t it = 0; spgo_kmap_next(&s->ranges, &it, &key, &val);)
		*count += *val;
	for (size_t it = 0; spgo_kmap_next(&s->branches, &it, &key, &val);)
		*count += *val;
	for (size_t i = 0; i < s->events.n; i++) {
		*keys += s->events.v[i].ips.n;
		for (size_t it = 0; spgo_kmap_next(&s->events.v[i].ips, &it, &key, &val);)
			*count += *val;
	}
}
