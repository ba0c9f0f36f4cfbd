/*
 * Unsymbolized profiles: the text forms (spgo/unsym.h): spgo's, with one
 * section per binary, and llvm-profgen's --skip-symbolization output.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "unsym_impl.h"

/*
 * Newer llvm-profgen's form of plain IP samples (--basic-events
 * --skip-symbolization, llvm-project #222624): "# llvm-profgen-content:
 * basic-event", the number of offsets, then "OFFSET:COUNT" lines (hex
 * without 0x, ascending).  It holds one event: the one with the most
 * samples (gen's base event); the others are left out, with a warning.
 */
static void write_basic_events(FILE *fp, const struct spgo_unsym_bin *s)
{
	const uint64_t ext = 1 - s->base;
	struct spgo_unsym_event **ev = unsym_sorted_events(s), *best = NULL;
	for (size_t i = 0; i < s->events.n; i++)
		if (ev[i]->ips.n && (!best || ev[i]->samples > best->samples))
			best = ev[i];
	for (size_t i = 0; i < s->events.n; i++)
		if (ev[i]->ips.n && ev[i] != best)
			spgo_warn("llvm-profgen's basic-event form holds one event: '%s' written, '%s' left "
				  "out (spgo's own forms keep every event)",
				  best->name, ev[i]->name);
	free(ev);
	uint64_t *rows = best ? spgo_kmap_sorted(&best->ips) : NULL;
	size_t n = 0, nrows = best ? best->ips.n : 0;
	for (size_t i = 0; i < nrows; i++)
		n += rows[2 * i] != ext && rows[2 * i] != UINT64_MAX;
	fprintf(fp, "%s basic-event\n%zu\n", PROFGEN_CONTENT, n);
	for (size_t i = 0; i < nrows; i++)
		if (rows[2 * i] != ext && rows[2 * i] != UINT64_MAX)
			fprintf(fp, "%" PRIx64 ":%" PRIu64 "\n", rows[2 * i], rows[2 * i + 1]);
	free(rows);
}

/* llvm-profgen's two counted lists, each line after indent: ranges, then
 * branches.  profgen: as llvm-profgen writes them (branches to outside
 * the binary left out, branches from outside first). */
static void write_lists(FILE *fp, const struct spgo_kmap *ranges, const struct spgo_kmap *branches,
			uint64_t ext, int profgen, const char *indent)
{
	uint64_t *rows = spgo_kmap_sorted(ranges);
	fprintf(fp, "%s%zu\n", indent, ranges->n);
	for (size_t i = 0; i < ranges->n; i++)
		fprintf(fp, "%s%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", indent, rows[3 * i], rows[3 * i + 1],
			rows[3 * i + 2]);
	free(rows);
	rows = spgo_kmap_sorted(branches);
	size_t nb = 0;
	for (size_t i = 0; i < branches->n; i++)
		nb += !profgen || (rows[3 * i + 1] != ext && rows[3 * i + 1] != UINT64_MAX);
	fprintf(fp, "%s%zu\n", indent, nb);
	/* llvm-profgen sorts by virtual address, where its ExternalAddr (1)
	 * comes first: branches from outside before the others (1 - base,
	 * "negative", when the base is not known: text read from llvm-profgen) */
	for (int pass = !profgen; pass < 2; pass++)
		for (size_t i = 0; i < branches->n; i++)
			if ((!profgen || (rows[3 * i + 1] != ext && rows[3 * i + 1] != UINT64_MAX)) &&
			    (!profgen || (pass == 0) == (rows[3 * i] == ext || (int64_t)rows[3 * i] < 0)))
				fprintf(fp, "%s%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n", indent, rows[3 * i],
					rows[3 * i + 1], rows[3 * i + 2]);
	free(rows);
}

/* The unwound contexts as llvm-profgen writes them: "[KEY]" lines sorted
 * by key, each followed by its lists indented by two spaces. */
static void write_ctxs(FILE *fp, const struct spgo_unsym_bin *s, int profgen)
{
	struct spgo_unsym_ctx **cv = unsym_sorted_ctxs(s);
	for (size_t i = 0; i < s->ctxs.n; i++) {
		fprintf(fp, "[%s]\n", cv[i]->key);
		write_lists(fp, &cv[i]->ranges, &cv[i]->branches, 1 - s->base, profgen, "  ");
	}
	free(cv);
}

void unsym_write_text(FILE *fp, const struct spgo_unsym_bin *s, int profgen)
{
	const uint64_t ext = 1 - s->base;
	uint64_t *rows;
	if (profgen && !(s->kinds & SPGO_UNSYM_LBR) && (s->kinds & SPGO_UNSYM_IP) && !s->ctxs.n) {
		write_basic_events(fp, s);
		return;
	}
	if (!profgen) {
		fprintf(fp, "# binary %s %s\n", *s->build_id ? s->build_id : "-",
			*s->path ? s->path : "-");
		if (s->has_base)
			fprintf(fp, "# base 0x%" PRIx64 "\n", s->base);
		char mode[16] = "";
		static const char *const kind[] = {"lbr", "ip", "cs", "ctx"};
		for (int k = 0; k < 4; k++)
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
	struct spgo_unsym_event **ev = unsym_sorted_events(s);
	if (!profgen)
		for (size_t i = 0; i < s->events.n; i++)
			fprintf(fp, "# event %" PRIu64 " %" PRIu64 " %s\n", ev[i]->samples,
				ev[i]->period, ev[i]->name);
	if (profgen && s->ctxs.n) { /* llvm-profgen's CS form: the contexts alone */
		free(ev);
		uint64_t plain = 0, in_ctx = 0;
		const uint64_t *key;
		uint64_t *val;
		for (size_t it = 0; spgo_kmap_next(&s->ranges, &it, &key, &val);)
			plain += *val;
		for (size_t i = 0; i < s->ctxs.n; i++)
			for (size_t it = 0; spgo_kmap_next(&s->ctxs.v[i].ranges, &it, &key, &val);)
				in_ctx += *val;
		if (plain > in_ctx || s->nstacks)
			spgo_warn("llvm-profgen's CS form holds the unwound contexts alone: %s%s left out "
				  "(spgo's own forms keep them)",
				  plain > in_ctx ? "range counts of samples without contexts" : "",
				  s->nstacks ? (plain > in_ctx ? " and stack samples" : "stack samples") : "");
		write_ctxs(fp, s, 1);
		return;
	}
	/* llvm-profgen's part: ranges, then branches */
	write_lists(fp, &s->ranges, &s->branches, ext, profgen, "");
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
		size_t *st = unsym_sorted_stacks(s);
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
	if (s->ctxs.n) {
		fprintf(fp, "# contexts %zu\n", s->ctxs.n);
		write_ctxs(fp, s, 0);
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

static int has_mode(const struct spgo_unsym_bin *s, const struct spgo_unsym_bin *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == s)
			return 1;
	return 0;
}

/* llvm-profgen's two counted lists: ranges, then branches; they make the
 * section an LBR one when imply (no "# mode" line said what it is). */
static int text_lists(struct tr *t, const struct spgo_unsym_bin *s, struct spgo_kmap *ranges,
		      struct spgo_kmap *branches, uint64_t weight)
{
	uint64_t n;
	if (text_count(t, &n) < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		if (!tr_next(t) || text_pair(t, s, ranges, "-", weight) < 0)
			return tr_fail(t, "missing range");
	if (!tr_next(t) || text_count(t, &n) < 0)
		return tr_fail(t, "missing the branch count");
	for (uint64_t i = 0; i < n; i++)
		if (!tr_next(t) || text_pair(t, s, branches, "->", weight) < 0)
			return tr_fail(t, "missing branch");
	return 0;
}

static int text_block(struct tr *t, struct spgo_unsym_bin *s, uint64_t weight, int imply)
{
	if (text_lists(t, s, &s->ranges, &s->branches, weight) < 0)
		return -1;
	if (imply)
		s->kinds |= SPGO_UNSYM_LBR;
	else if (!(s->kinds & SPGO_UNSYM_LBR) && (s->ranges.n || s->branches.n))
		spgo_warn("%s: line %zu: ranges or branches in a section whose '# mode' line does not "
			  "say lbr: kept, but the section is not used as LBR data",
			  t->name, t->lineno);
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

/* The reader's state across lines: the section being read, its events in
 * the order of their "# event" lines, and the stack words (reused). */
struct text_reader {
	struct tr t;
	struct spgo_unsym *u;
	uint64_t weight;
	struct spgo_unsym_bin *cur;
	VEC(size_t) evs; /* this section's events in the file -> index */
	struct words { /* a VEC(uint64_t) */
		uint64_t *v;
		size_t n, cap;
	} w;
	/* Sections whose "# mode" line was read: what they hold is what it
	 * says, not what their blocks imply (an empty block of ranges is
	 * written for a section without LBR). */
	VEC(const struct spgo_unsym_bin *) moded;
};

static int imply(const struct text_reader *x, const struct spgo_unsym_bin *s)
{
	return !has_mode(s, x->moded.v, x->moded.n);
}

/* "# binary BUILDID PATH" ("-" for none): starts a section. */
static void text_binary(struct text_reader *x, const char *a, const char *e)
{
	const char *sp = a;
	while (sp < e && *sp != ' ')
		sp++;
	char *id = xstrndup(a, (size_t)(sp - a));
	const char *pp = skip_ws(sp, e);
	char *path = xstrndup(pp, (size_t)(e - pp));
	if (memchr(a, 0, (size_t)(sp - a)) || (strcmp(id, "-") && !unsym_hex_id(id)) ||
	    (strcmp(path, "-") && !unsym_str_ok(pp, (size_t)(e - pp)))) {
		tr_fail(&x->t, "bad binary line (a build-id in hex, a path)");
	} else {
		x->cur = spgo_unsym_section(x->u, strcmp(id, "-") ? id : "", strcmp(path, "-") ? path : "");
		x->evs.n = 0;
	}
	free(id);
	free(path);
}

/* "# mode lbr ip cs": what the section holds. */
static void text_mode(struct text_reader *x, const char *a, const char *e)
{
	struct spgo_unsym_bin *cur = x->cur;
	if (!cur)
		return;
	if (imply(x, cur))
		VEC_PUSH(&x->moded, cur);
	/* the line is not NUL-terminated: compare within it */
	for (const char *q = a; q < e; q++) {
		size_t left = (size_t)(e - q);
		if (left >= 3 && !memcmp(q, "lbr", 3))
			cur->kinds |= SPGO_UNSYM_LBR;
		else if (left >= 2 && !memcmp(q, "ip", 2))
			cur->kinds |= SPGO_UNSYM_IP;
		else if (left >= 2 && !memcmp(q, "cs", 2))
			cur->kinds |= SPGO_UNSYM_CS;
		else if (left >= 3 && !memcmp(q, "ctx", 3))
			cur->kinds |= SPGO_UNSYM_CTX;
	}
}

/* "# event SAMPLES PERIOD NAME". */
static void text_event(struct text_reader *x, const char *a, const char *e)
{
	struct tr *t = &x->t;
	uint64_t v[2];
	const char *q = a;
	if (!x->cur || parse_num(&q, e, 10, &v[0]) < 0 || parse_num((q = skip_ws(q, e), &q), e, 10, &v[1]) < 0 ||
	    (q = skip_ws(q, e)) == e) {
		tr_fail(t, "bad event line");
		return;
	}
	if (!unsym_str_ok(q, (size_t)(e - q))) {
		tr_fail(t, "bad event name");
		return;
	}
	char *en = xstrndup(q, (size_t)(e - q));
	struct spgo_unsym_event *ev = unsym_event_named(x->cur, en);
	free(en);
	ev->samples += v[0] * x->weight;
	ev->period += v[1] * x->weight;
	VEC_PUSH(&x->evs, (size_t)(ev - x->cur->events.v));
}

/* "# ips EVENT N", then N lines "ADDR:COUNT". */
static void text_ips(struct text_reader *x, const char *a, const char *e)
{
	struct tr *t = &x->t;
	struct spgo_unsym_bin *cur = x->cur;
	uint64_t v[2];
	if (!cur || nums(a, e, 10, 2, v) < 0 || v[0] >= x->evs.n || v[1] > (uint64_t)(t->end - t->p) / 4 + 1) {
		tr_fail(t, "bad ips line (after its event lines)");
		return;
	}
	struct spgo_kmap *m = &cur->events.v[x->evs.v[v[0]]].ips;
	for (uint64_t i = 0; i < v[1] && !t->err; i++) {
		uint64_t k, c;
		if (!tr_next(t)) {
			tr_fail(t, "missing ip");
			break;
		}
		const char *q = skip_ws(t->line, t->line + t->len), *qe = t->line + t->len;
		if (parse_addr(&q, qe, cur, &k) < 0 || q >= qe || *q++ != ':' || parse_num(&q, qe, 10, &c) < 0 ||
		    skip_ws(q, qe) != qe)
			tr_fail(t, "bad ip entry");
		else
			*spgo_kmap_upsert(m, &k) += c * x->weight;
	}
	if (imply(x, cur))
		cur->kinds |= SPGO_UNSYM_IP;
}

/* One stack line: "COUNT FRAME... | FROM->TO ...". */
static void text_stack(struct text_reader *x)
{
	struct tr *t = &x->t;
	struct spgo_unsym_bin *cur = x->cur;
	const char *q = skip_ws(t->line, t->line + t->len), *qe = t->line + t->len;
	uint64_t c, a;
	if (parse_num(&q, qe, 10, &c) < 0) {
		tr_fail(t, "bad stack count");
		return;
	}
	struct words w = x->w; /* in a local for the loop; stored back below */
	w.n = 0;
	uint32_t nf = 0, nb = 0;
	int branches = 0;
	for (q = skip_ws(q, qe); q < qe && !t->err; q = skip_ws(q, qe)) {
		if (*q == '|' && !branches) {
			branches = 1;
			q++;
			continue;
		}
		if (w.n + 2 > MAX_WORDS || parse_addr(&q, qe, cur, &a) < 0) {
			tr_fail(t, "bad stack entry");
			break;
		}
		VEC_PUSH(&w, a);
		if (!branches) {
			nf++;
			continue;
		}
		if (qe - q < 2 || memcmp(q, "->", 2)) {
			tr_fail(t, "bad stack branch");
			break;
		}
		q += 2;
		if (parse_addr(&q, qe, cur, &a) < 0) {
			tr_fail(t, "bad stack branch");
			break;
		}
		VEC_PUSH(&w, a);
		nb++;
	}
	if (!t->err && !branches)
		tr_fail(t, "stack without '|'");
	if (!t->err) {
		VEC_GROW(&w, 1);
		spgo_unsym_add_stack(cur, w.v, nf, w.v + nf, nb, c * x->weight);
	}
	x->w = w;
}

/* "# stacks N", then N stack lines. */
static void text_stacks(struct text_reader *x, const char *a, const char *e)
{
	struct tr *t = &x->t;
	uint64_t n;
	if (!x->cur || nums(a, e, 10, 1, &n) < 0 || n > (uint64_t)(t->end - t->p) / 4 + 1) {
		tr_fail(t, "bad stacks line");
		return;
	}
	for (uint64_t i = 0; i < n && !t->err; i++) {
		if (!tr_next(t)) {
			tr_fail(t, "missing stack");
			break;
		}
		text_stack(x);
	}
	if (imply(x, x->cur))
		x->cur->kinds |= SPGO_UNSYM_CS;
}

/*
 * "# llvm-profgen-content: KIND": newer llvm-profgen's IP samples when KIND
 * is basic-event (see write_basic_events): the count line and that many
 * "OFFSET:COUNT" lines (an offset may repeat: added up), as an event
 * "basic-event" of the section; nothing may follow.
 */
static void text_basic(struct text_reader *x, const char *a, const char *e)
{
	struct tr *t = &x->t;
	static const char kind[] = "basic-event";
	const char *ke = e;
	while (ke > a && (ke[-1] == ' ' || ke[-1] == '\t'))
		ke--;
	if ((size_t)(ke - a) != strlen(kind) || memcmp(a, kind, strlen(kind))) {
		tr_fail(t, "unknown llvm-profgen content (spgo reads basic-event)");
		return;
	}
	if (!x->cur)
		x->cur = spgo_unsym_section(x->u, "", "");
	uint64_t n, total = 0;
	if (!tr_next(t)) {
		tr_fail(t, "missing the count of basic-event samples");
		return;
	}
	if (text_count(t, &n) < 0)
		return;
	struct spgo_unsym_event *ev = unsym_event_named(x->cur, kind);
	for (uint64_t i = 0; i < n && !t->err; i++) {
		uint64_t k, c;
		if (!tr_next(t)) {
			tr_fail(t, "missing basic-event sample");
			break;
		}
		const char *q = skip_ws(t->line, t->line + t->len), *qe = t->line + t->len;
		if (parse_addr(&q, qe, x->cur, &k) < 0 || q >= qe || *q++ != ':' || parse_num(&q, qe, 10, &c) < 0 ||
		    skip_ws(q, qe) != qe) {
			tr_fail(t, "bad basic-event sample (OFFSET:COUNT)");
			break;
		}
		uint64_t *slot = spgo_kmap_upsert(&ev->ips, &k);
		if ((x->weight && c > UINT64_MAX / x->weight) || *slot + c * x->weight < *slot ||
		    total + c * x->weight < total) {
			tr_fail(t, "the sample count overflows");
			break;
		}
		*slot += c * x->weight;
		total += c * x->weight;
	}
	if (t->err)
		return;
	ev->samples += total;
	x->cur->samples += total;
	x->cur->matched += total;
	x->cur->kinds |= SPGO_UNSYM_IP;
	while (tr_next(t))
		if (skip_ws(t->line, t->line + t->len) != t->line + t->len) {
			tr_fail(t, "unexpected content after the basic-event samples");
			return;
		}
}

/* km += m (counts saturate). */
static void map_add(struct spgo_kmap *km, const struct spgo_kmap *m)
{
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(m, &it, &key, &val);) {
		uint64_t *slot = spgo_kmap_upsert(km, key);
		*slot = *slot + *val < *slot ? UINT64_MAX : *slot + *val;
	}
}

/* One "[KEY]" block into the context KEY of section to; with plain (llvm-
 * profgen's text), its counts are added to the section's plain ones too. */
static int ctx_block(struct text_reader *x, struct spgo_unsym_bin *to, const char *key, size_t len,
		     int plain)
{
	struct tr *t = &x->t;
	if (!unsym_ctx_key_ok(key, len))
		return tr_fail(t, "bad context");
	if (!tr_next(t))
		return tr_fail(t, "context without counts");
	struct spgo_kmap r, b;
	spgo_kmap_init(&r, 2);
	spgo_kmap_init(&b, 2);
	int rc = text_lists(t, to, &r, &b, x->weight);
	if (rc == 0) {
		struct spgo_unsym_ctx *c = spgo_unsym_context(to, key, len);
		map_add(&c->ranges, &r);
		map_add(&c->branches, &b);
		if (plain) {
			map_add(&to->ranges, &r);
			map_add(&to->branches, &b);
			if (imply(x, to))
				to->kinds |= SPGO_UNSYM_LBR;
		}
	}
	spgo_kmap_free(&r);
	spgo_kmap_free(&b);
	return rc;
}

/* "# contexts N", then N "[KEY]" blocks (spgo's text form: the contexts
 * alone, their sum is in the section's plain lists already). */
static void text_ctxs(struct text_reader *x, const char *a, const char *e)
{
	struct tr *t = &x->t;
	uint64_t n;
	if (!x->cur || nums(a, e, 10, 1, &n) < 0 || n > (uint64_t)(t->end - t->p) / 4 + 1) {
		tr_fail(t, "bad contexts line");
		return;
	}
	for (uint64_t i = 0; i < n && !t->err; i++) {
		if (!tr_next(t)) {
			tr_fail(t, "missing context");
			break;
		}
		const char *p = t->line, *le = t->line + t->len;
		if (t->len < 2 || p[0] != '[' || le[-1] != ']') {
			tr_fail(t, "expected a [context] line");
			break;
		}
		ctx_block(x, x->cur, p + 1, (size_t)(le - p - 2), 0);
	}
}

/* llvm-profgen's CS block "[ctx]" at p: a context of the section its leaf
 * frame's build-id names, added to its plain counts too. */
static void text_context(struct text_reader *x, const char *p, const char *e)
{
	struct tr *t = &x->t;
	const char *close = e;
	while (close > p && close[-1] != ']')
		close--;
	if (close == p) {
		tr_fail(t, "bad context line");
		return;
	}
	close--; /* the last ']' of the line */
	if (skip_ws(close + 1, e) != e) {
		tr_fail(t, "bad context line");
		return;
	}
	const char *leaf = close, *colon = NULL;
	while (leaf > p + 1 && leaf[-1] != ' ' && leaf[-1] != '[')
		leaf--;
	for (const char *q = leaf; q < close; q++)
		if (*q == ':') {
			colon = q;
			break;
		}
	struct spgo_unsym_bin *to = x->cur;
	if (colon && colon > leaf && colon + 2 < close && colon[1] == '0' && colon[2] == 'x') {
		char *id = xstrndup(leaf, (size_t)(colon - leaf));
		to = unsym_hex_id(id) ? spgo_unsym_section(x->u, id, "") : x->cur;
		free(id);
	}
	if (!to)
		to = x->cur = spgo_unsym_section(x->u, "", "");
	ctx_block(x, to, p + 1, (size_t)(close - p - 1), 1);
}

/* One line that is not a "# binary" one: a directive, a comment, a
 * context or llvm-profgen's counted lists. */
static void text_line(struct text_reader *x, const char *p, const char *e)
{
	struct tr *t = &x->t;
	struct spgo_unsym_bin *cur = x->cur;
	const char *a;
	uint64_t v[5];
	if ((a = directive(t, "base"))) {
		if (!cur || nums(a, e, 16, 1, v) < 0)
			tr_fail(t, "bad base");
		else if (unsym_set_base(cur, v[0], t->name) < 0)
			t->err = 1;
	} else if ((a = directive(t, "mode"))) {
		text_mode(x, a, e);
	} else if ((a = directive(t, "hosts"))) {
		if (!cur || nums(a, e, 10, 1, v) < 0)
			tr_fail(t, "bad hosts");
		else
			cur->hosts += v[0];
	} else if ((a = directive(t, "samples"))) {
		if (!cur || nums(a, e, 10, 5, v) < 0) {
			tr_fail(t, "bad samples line");
		} else {
			cur->samples += v[0] * x->weight;
			cur->matched += v[1] * x->weight;
			cur->lbr_samples += v[2] * x->weight;
			cur->stack_samples += v[3] * x->weight;
			cur->lost += v[4] * x->weight;
		}
	} else if ((a = directive(t, "event"))) {
		text_event(x, a, e);
	} else if ((a = directive(t, "ips"))) {
		text_ips(x, a, e);
	} else if ((a = directive(t, "stacks"))) {
		text_stacks(x, a, e);
	} else if ((a = directive(t, "contexts"))) {
		text_ctxs(x, a, e);
	} else if ((a = directive(t, "llvm-profgen-content:"))) {
		text_basic(x, a, e);
	} else if (p[0] == '#') {
		/* a comment (the "# spgo-unsymbolized" line too) */
	} else if (p[0] == '[') {
		text_context(x, p, e);
	} else {
		text_block(t, cur, x->weight, imply(x, cur));
	}
}

int unsym_read_text(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
		     uint64_t weight)
{
	struct text_reader x = {.t = {name, (const char *)data, (const char *)data + size, NULL, 0, 0, 0},
				.u = u,
				.weight = weight};
	struct tr *t = &x.t;
	while (!t->err && tr_next(t)) {
		const char *e = t->line + t->len, *p = skip_ws(t->line, e), *a;
		if (p == e)
			continue;
		if ((a = directive(t, "binary"))) {
			text_binary(&x, a, e);
			continue;
		}
		if (!x.cur && p[0] != '#' && p[0] != '[')
			x.cur = spgo_unsym_section(u, "", "");
		text_line(&x, p, e);
	}
	VEC_FREE(&x.moded);
	VEC_FREE(&x.evs);
	VEC_FREE(&x.w);
	return t->err ? -1 : 0;
}
