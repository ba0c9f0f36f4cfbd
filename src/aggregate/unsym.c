/*
 * Unsymbolized profiles: the aggregate as a file, merged by addition.  See
 * spgo/unsym.h for the contract.  This file holds the model (sections,
 * adding aggregates, trimming, filling an aggregate back) and the entry
 * points; the binary form is read and written in unsym_bin.c, the text
 * forms in unsym_text.c.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "unsym_impl.h"

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
	unsym_ctxs_free(s);
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

struct spgo_unsym_event *unsym_event_named(struct spgo_unsym_bin *s, const char *name)
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
int unsym_set_base(struct spgo_unsym_bin *s, uint64_t base, const char *where)
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
	unsym_set_base(s, base, spgo_binary_path(agg->bin)); /* same build-id: same base */
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
		struct spgo_unsym_event *e = unsym_event_named(s, ae->name);
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

struct spgo_unsym_bin **unsym_sorted_bins(const struct spgo_unsym *u)
{
	struct spgo_unsym_bin **v = xmalloc((u->bins.n + 1) * sizeof *v);
	if (u->bins.n)
		memcpy(v, u->bins.v, u->bins.n * sizeof *v);
	spgo_sort(v, u->bins.n, sizeof *v, cmp_bins);
	return v;
}

struct spgo_unsym_event **unsym_sorted_events(const struct spgo_unsym_bin *s)
{
	struct spgo_unsym_event **v = xmalloc((s->events.n + 1) * sizeof *v);
	for (size_t i = 0; i < s->events.n; i++)
		v[i] = &s->events.v[i];
	spgo_sort(v, s->events.n, sizeof *v, cmp_events);
	return v;
}

/* Offsets of the stack entries in the pool, sorted by their words. */
size_t *unsym_sorted_stacks(const struct spgo_unsym_bin *s)
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

/* A path or event name the text form can carry, the n bytes at s:
 * printable (no NUL), not blank-edged, not "-" (which stands for none
 * there). */
int unsym_str_ok(const char *s, size_t n)
{
	if ((n == 1 && s[0] == '-') || (n && (s[0] == ' ' || s[n - 1] == ' ')))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}
/* A build-id is hex digits (stored in lower case). */
int unsym_hex_id(const char *id)
{
	for (const char *c = id; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return 0;
	return 1;
}
/* ---- public entry points ------------------------------------------------- */

enum spgo_unsym_format spgo_unsym_sniff(const uint8_t *data, size_t size)
{
	if (size >= MAGIC_LEN && !memcmp(data, MAGIC, MAGIC_LEN))
		return SPGO_UNSYM_BIN;
	if (size >= strlen(TEXT_HEAD) && !memcmp(data, TEXT_HEAD, strlen(TEXT_HEAD)))
		return SPGO_UNSYM_TEXT;
	if (size >= strlen(PROFGEN_CONTENT) && !memcmp(data, PROFGEN_CONTENT, strlen(PROFGEN_CONTENT)))
		return SPGO_UNSYM_PROFGEN;
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
		return unsym_read_bin(u, name, data, size, weight);
	case SPGO_UNSYM_TEXT:
	case SPGO_UNSYM_PROFGEN:
		return unsym_read_text(u, name, data, size, weight);
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
	struct spgo_unsym_bin **bins = unsym_sorted_bins(u);
	int rc = 0;
	if (fmt == SPGO_UNSYM_PROFGEN) {
		if (u->bins.n != 1)
			rc = spgo_error("llvm-profgen's unsymbolized format holds one binary; the "
					"profile has %zu (write spgo's text or binary form)",
					u->bins.n);
		else
			unsym_write_text(fp, bins[0], 1);
	} else if (fmt == SPGO_UNSYM_TEXT) {
		fprintf(fp, "%s %d\n", TEXT_HEAD, VERSION);
		for (size_t i = 0; i < u->bins.n; i++)
			unsym_write_text(fp, bins[i], 0);
	} else {
		unsym_write_bin(fp, bins, u->bins.n);
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
	size_t *st = unsym_sorted_stacks(s), n = s->nstacks;
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
		dropped += unsym_ctxs_trim(s, trim_map, eps);
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

/* Of the ends of a section's ranges and branches, how many start an
 * instruction of bin when read as offset + add (externals left out). */
static uint64_t insn_hits(const struct spgo_unsym_bin *s, struct spgo_binary *bin, uint64_t ext,
			  uint64_t add)
{
	const struct spgo_kmap *m[2] = {&s->ranges, &s->branches};
	const uint64_t *key;
	uint64_t *val, hits = 0;
	for (int k = 0; k < 2; k++)
		for (size_t it = 0; spgo_kmap_next(m[k], &it, &key, &val);)
			for (int e = 0; e < 2; e++)
				if (key[e] != ext && key[e] != UINT64_MAX &&
				    spgo_binary_insn_at(bin, key[e] + add))
					hits++;
	return hits;
}

/*
 * llvm-profgen writes its unsymbolized text as offsets from the binary's
 * preferred base by default, and as virtual addresses with --use-offset=0
 * (an external address then is 1), with nothing in the file to say which.
 * A section without spgo's "# base" line is read the way that puts more of
 * its range and branch ends on instruction starts; offsets on a tie.
 */
static int profgen_absolute(const struct spgo_unsym_bin *s, struct spgo_binary *bin,
			    uint64_t base)
{
	if (s->has_base || !base || (!s->ranges.n && !s->branches.n))
		return 0;
	uint64_t off = insn_hits(s, bin, 1 - base, base), abs = insn_hits(s, bin, 1, 0);
	if (abs <= off)
		return 0;
	spgo_warn("%s: the unsymbolized profile is read as virtual addresses, not offsets from the "
		  "base 0x%" PRIx64 " (llvm-profgen --use-offset=0): %llu of its range and branch "
		  "ends start an instruction so, %llu as offsets",
		  spgo_binary_path(bin), base, (unsigned long long)abs, (unsigned long long)off);
	return 1;
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
	if (profgen_absolute(s, agg->bin, base))
		base = 0; /* (its external address, 1, is then 1 - 0) */
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
	struct spgo_unsym_event **ev = unsym_sorted_events(s);
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

void spgo_unsym_print_summary(const struct spgo_unsym *u, FILE *fp)
{
	static const char *const kind[] = {"LBR", "IP", "CS", "contexts"};
	fprintf(fp, "unsymbolized profile: %zu binar%s\n", u->bins.n, u->bins.n == 1 ? "y" : "ies");
	for (size_t i = 0; i < u->bins.n; i++) {
		const struct spgo_unsym_bin *s = u->bins.v[i];
		uint64_t keys, count;
		spgo_unsym_totals(s, &keys, &count);
		fprintf(fp, "binary %s: build-id %s", *s->path ? s->path : "(unnamed)",
			*s->build_id ? s->build_id : "none");
		if (s->has_base)
			fprintf(fp, ", base 0x%llx", (unsigned long long)s->base);
		fprintf(fp, "\n  data:");
		for (unsigned k = 0; k < 4; k++)
			if (s->kinds & (1u << k))
				fprintf(fp, " %s", kind[k]);
		fprintf(fp, "%s\n  hosts %llu, samples %llu (%llu in the binary, %llu with LBR, %llu with "
			    "stacks), %llu lost\n", s->kinds ? "" : " none",
			(unsigned long long)s->hosts, (unsigned long long)s->samples,
			(unsigned long long)s->matched, (unsigned long long)s->lbr_samples,
			(unsigned long long)s->stack_samples, (unsigned long long)s->lost);
		fprintf(fp, "  %zu ranges, %zu branches, %zu stacks: %llu keys counting %llu\n", s->ranges.n,
			s->branches.n, s->nstacks, (unsigned long long)keys, (unsigned long long)count);
		if (s->ctxs.n)
			fprintf(fp, "  %zu unwound contexts\n", s->ctxs.n);
		for (size_t e = 0; e < s->events.n; e++)
			fprintf(fp, "  event %s: %llu samples, %zu ips\n", s->events.v[e].name,
				(unsigned long long)s->events.v[e].samples, s->events.v[e].ips.n);
	}
}

enum spgo_unsym_format spgo_unsym_merged_format(const enum spgo_unsym_format *forms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (forms[i] == SPGO_UNSYM_BIN)
			return SPGO_UNSYM_BIN;
	return SPGO_UNSYM_TEXT;
}
