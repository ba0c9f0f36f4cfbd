/*
 * LLVM's text sample profile.
 *
 *     main:1000:10                 function: name:total:head
 *      1: 100                      body: offset[.disc]: count [target:count]...
 *      2.3: 200 foo:50 bar:7
 *      3: inl:300                  inlined callsite: offset[.disc]: callee:total
 *       1: 300                     ... its body, one space deeper
 *      !CFGChecksum: 5             metadata (probe checksum, context attributes)
 *     [main:3 @ foo]:100:0         a context-sensitive profile
 *
 * Lines are indented by their depth; blank lines and lines starting with
 * '#' are skipped, as LLVM does.  Call targets are "name:count" where the
 * name may itself hold colons or spaces: the ":<integer>" that ends a word
 * anchors each target (LLVM's rule).
 */
#include "spgo/profile.h"
#include "profile/profile_impl.h"

#include <stdlib.h>
#include <string.h>

struct reader {
	struct spgo_profile *p;
	const char *path;
	size_t lineno;
	VEC(uint32_t) stack; /* stack.v[d-1] = profile at depth d */
	size_t meta_depth;   /* the depth of the last metadata line (0: none) */
	int nprobe, ntop;    /* functions with a CFG checksum, all functions */
};

static int bad(struct reader *r, const char *what, const char *s, size_t n)
{
	if (n > 60)
		n = 60;
	return spgo_error("%s: line %zu: %s: '%.*s'", r->path, r->lineno, what, (int)n, s);
}

/*
 * A context "main:3 @ foo:2.1 @ bar": frames joined by " @ ", each a
 * non-empty name not starting with '@' nor starting or ending with a
 * space, every one but the leaf followed by ":LINE[.DISC]".
 */
static int valid_context(const char *c, size_t n)
{
	const char *end = c + n;
	for (;;) {
		const char *sep = NULL;
		for (const char *q = c; q + 3 <= end; q++)
			if (q[0] == ' ' && q[1] == '@' && q[2] == ' ') {
				sep = q;
				break;
			}
		const char *fe = sep ? sep : end;
		if (fe == c || *c == ' ' || *c == '@' || fe[-1] == ' ')
			return 0; /* an empty frame, or one the splitting at '@' would cut */
		if (sep) {
			const char *colon = NULL;
			for (const char *q = c; q < fe; q++)
				if (*q == ':')
					colon = q;
			if (!colon || colon == c || colon + 1 == fe)
				return 0;
			for (const char *q = colon + 1; q < fe; q++)
				if (!((*q >= '0' && *q <= '9') || *q == '.'))
					return 0;
			c = sep + 3;
			continue;
		}
		return 1;
	}
}

/* Parse all of [s, s+n) as a decimal number. */
static int num(const char *s, size_t n, uint64_t *out)
{
	if (n == 0 || n > 20)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return -1;
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "offset[.disc]" */
static int location(const char *s, size_t n, uint32_t *line, uint32_t *disc)
{
	const char *dot = memchr(s, '.', n);
	uint64_t l, d = 0;
	if (dot) {
		if (num(s, (size_t)(dot - s), &l) || num(dot + 1, n - (size_t)(dot - s) - 1, &d))
			return -1;
	} else if (num(s, n, &l)) {
		return -1;
	}
	if (l > 0xffff || d > UINT32_MAX)
		return -1;
	*line = (uint32_t)l;
	*disc = (uint32_t)d;
	return 0;
}

/* Call targets of a body line: " name:count name:count ..." */
static int targets(struct reader *r, uint32_t body, const char *s, const char *end)
{
	while (s < end) {
		while (s < end && *s == ' ')
			s++;
		if (s >= end)
			break;
		const char *start = s, *c = s;
		uint64_t cnt;
		for (;;) {
			c = memchr(c, ':', (size_t)(end - c));
			if (!c || c == start)
				return bad(r, "bad call target", start, (size_t)(end - start));
			const char *w = c + 1, *we = memchr(w, ' ', (size_t)(end - w));
			if (!we)
				we = end;
			if (num(w, (size_t)(we - w), &cnt) == 0) {
				uint32_t nm = spgo_name_id(r->p, start, (size_t)(c - start));
				spgo_add_target_id(r->p, body, nm, spgo_wcount(r->p->read_weight, cnt));
				s = we;
				break;
			}
			c++;
		}
	}
	return 0;
}

/* A function's first line, "name:total:head" or "[context]:total:head":
 * its profile becomes the only one on the stack. */
static int read_function(struct reader *r, const char *s, const char *le)
{
	struct spgo_profile *p = r->p;
	size_t n = (size_t)(le - s);
	const char *c2 = NULL, *c1 = NULL;
	for (const char *q = le - 1; q >= s; q--)
		if (*q == ':') {
			if (!c2)
				c2 = q;
			else {
				c1 = q;
				break;
			}
		}
	uint64_t total, head;
	if (!c1 || c1 == s || num(c1 + 1, (size_t)(c2 - c1 - 1), &total) || num(c2 + 1, (size_t)(le - c2 - 1), &head))
		return bad(r, "expected 'name:NUM:NUM'", s, n);
	uint32_t f;
	if (s[0] == '[') {
		if (c1[-1] != ']' || c1 - s < 3 || !valid_context(s + 1, (size_t)(c1 - s - 2)))
			return bad(r, "bad context", s, n);
		f = spgo_func_get_ctx(p, s + 1, (size_t)(c1 - s - 2));
	} else {
		f = spgo_func_get_id(p, spgo_name_id(p, s, (size_t)(c1 - s)));
	}
	spgo_add_total(p, f, spgo_wcount(p->read_weight, total));
	spgo_add_head(p, f, spgo_wcount(p->read_weight, head));
	r->stack.n = 0;
	VEC_PUSH(&r->stack, f);
	r->meta_depth = 0;
	r->ntop++;
	return 0;
}

/* A metadata line t (tn bytes) at depth, "!CFGChecksum: N",
 * "!Attributes: N" or "!Flat", of the profile at that depth (s, n: the
 * whole line). */
static int read_metadata(struct reader *r, const char *s, size_t n, size_t depth, const char *t, size_t tn)
{
	struct spgo_profile *p = r->p;
	uint32_t f = r->stack.v[(depth < r->stack.n ? depth : r->stack.n) - 1];
	uint64_t v;
	if (tn == 5 && memcmp(t, "!Flat", 5) == 0) {
		/* informational only */
	} else if (tn > 14 && memcmp(t, "!CFGChecksum: ", 14) == 0 && num(t + 14, tn - 14, &v) == 0) {
		if (p->funcs.v[f].checksum && p->funcs.v[f].checksum != v)
			spgo_warn("%s: line %zu: CFG checksum differs from the one already "
				  "read for this function; keeping the first", r->path, r->lineno);
		else
			p->funcs.v[f].checksum = v;
		if (depth == 1)
			r->nprobe++;
	} else if (tn > 13 && memcmp(t, "!Attributes: ", 13) == 0 && num(t + 13, tn - 13, &v) == 0 &&
		   v <= UINT32_MAX) {
		p->funcs.v[f].attrs = (uint32_t)v;
	} else {
		return bad(r, "bad metadata", s, n);
	}
	r->meta_depth = depth;
	return 0;
}

/* A body line's rest, "count [target:count]...", at line.disc of f. */
static int read_body(struct reader *r, uint32_t f, uint32_t line, uint32_t disc, const char *rest, const char *le,
		     const char *s, size_t n)
{
	struct spgo_profile *p = r->p;
	const char *sp = memchr(rest, ' ', (size_t)(le - rest));
	const char *ce = sp ? sp : le;
	uint64_t cnt;
	if (num(rest, (size_t)(ce - rest), &cnt))
		return bad(r, "bad sample count", s, n);
	uint32_t b = spgo_body_get(p, f, line, disc);
	struct spgo_body *bd = &p->bodies.v[b];
	cnt = spgo_wcount(p->read_weight, cnt);
	bd->count = bd->count + cnt < cnt ? UINT64_MAX : bd->count + cnt;
	return sp ? targets(r, b, sp, le) : 0;
}

/* An inlined callsite's rest, "callee:total", at line.disc of f: the
 * inlinee goes on the stack. */
static int read_inlinee(struct reader *r, uint32_t f, uint32_t line, uint32_t disc, const char *rest,
			const char *le, const char *s, size_t n)
{
	struct spgo_profile *p = r->p;
	const char *lc = NULL;
	for (const char *q = le - 1; q >= rest; q--)
		if (*q == ':') {
			lc = q;
			break;
		}
	uint64_t total;
	if (!lc || lc == rest || num(lc + 1, (size_t)(le - lc - 1), &total))
		return bad(r, "expected 'offset: callee:NUM'", s, n);
	if (r->stack.n >= 1000)
		return bad(r, "inlinees nested too deep", s, n);
	uint32_t c = spgo_inlinee_get_id(p, f, line, disc, spgo_name_id(p, rest, (size_t)(lc - rest)));
	spgo_add_total(p, c, spgo_wcount(p->read_weight, total));
	VEC_PUSH(&r->stack, c);
	r->meta_depth = 0;
	return 0;
}

/* An indented line [s, le) at depth: metadata, a body line or an inlined
 * callsite of the profile at depth - 1. */
static int read_indented(struct reader *r, const char *s, const char *le, size_t depth)
{
	size_t n = (size_t)(le - s);
	if (r->stack.n == 0)
		return bad(r, "indented line before any function", s, n);
	const char *t = s + depth;
	size_t tn = n - depth;
	if (t[0] == '!')
		return read_metadata(r, s, n, depth, t, tn);
	if (depth == r->meta_depth)
		return bad(r, "found non-metadata after metadata", s, n);
	if (depth < r->stack.n)
		r->stack.n = depth;
	uint32_t f = r->stack.v[r->stack.n - 1];
	const char *colon = memchr(t, ':', tn);
	uint32_t line, disc;
	if (!colon || location(t, (size_t)(colon - t), &line, &disc) || (size_t)(colon - t) + 2 > tn ||
	    colon[1] != ' ')
		return bad(r, "expected 'offset[.disc]: ...'", s, n);
	const char *rest = colon + 2;
	/* A body line starts with its count; an inlinee with its callee's
	 * name -- which in MD5 profiles is a number too, so a first word
	 * "NUM:NUM" is an inlinee (LLVM itself cannot read those back). */
	const char *w1 = memchr(rest, ' ', (size_t)(le - rest));
	int digits_first = rest < le && *rest >= '0' && *rest <= '9';
	if (digits_first && !w1) {
		const char *q = rest;
		while (q < le && *q >= '0' && *q <= '9')
			q++;
		if (q < le && *q == ':')
			digits_first = 0;
	}
	if (digits_first)
		return read_body(r, f, line, disc, rest, le, s, n);
	return read_inlinee(r, f, line, disc, rest, le, s, n);
}

/* A line [s, le) that is not empty nor a comment: lines of only spaces
 * are blank; a function's first line is not indented. */
static int read_line(struct reader *r, const char *s, const char *le)
{
	size_t n = (size_t)(le - s), depth = 0;
	while (depth < n && s[depth] == ' ')
		depth++;
	if (depth == n) /* only spaces: blank */
		return 0;
	return depth == 0 ? read_function(r, s, le) : read_indented(r, s, le, depth);
}

/* Whether every name is a decimal GUID: an MD5 profile. */
static int all_names_guids(const struct spgo_profile *p)
{
	int md5 = p->names.n > 0;
	for (size_t i = 0; i < p->names.n && md5; i++) {
		const char *q = spgo_name(p, (uint32_t)i);
		if (!*q || strlen(q) > 20)
			md5 = 0;
		for (; *q && md5; q++)
			if (*q < '0' || *q > '9')
				md5 = 0;
	}
	return md5;
}

int spgo_read_text(struct spgo_profile *p, const char *path, const uint8_t *data, size_t size)
{
	struct reader r = {.p = p, .path = path};
	const char *s = (const char *)data, *end = s + size;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		const char *next = e ? e + 1 : end;
		if (!e)
			e = end;
		r.lineno++;
		const char *le = e;
		if (le > s && le[-1] == '\r')
			le--;
		size_t n = (size_t)(le - s);
		int rc = 0;
		if (n && memchr(s, 0, n))
			rc = bad(&r, "NUL byte in a text profile", s, n);
		else if (n && s[0] != '#') /* (else empty, or a comment) */
			rc = read_line(&r, s, le);
		if (rc) {
			VEC_FREE(&r.stack);
			return -1;
		}
		s = next;
	}
	VEC_FREE(&r.stack);
	if (all_names_guids(p))
		p->flags |= SPGO_PROF_MD5;
	if (r.nprobe && r.nprobe != r.ntop)
		spgo_warn("%s: only some functions have a CFG checksum", path);
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

struct out {
	FILE *fp;
	char buf[1 << 16];
	size_t n;
	uint32_t *tmp[64]; /* sort buffers per depth */
	size_t cap[64];
	uint32_t *tbuf;
	size_t tcap;
};

static void flush(struct out *o)
{
	fwrite(o->buf, 1, o->n, o->fp);
	o->n = 0;
}

static inline void put(struct out *o, const char *s, size_t n)
{
	if (o->n + n > sizeof o->buf) {
		flush(o);
		if (n > sizeof o->buf) {
			fwrite(s, 1, n, o->fp);
			return;
		}
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

static inline void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static inline void putu(struct out *o, uint64_t v)
{
	char t[24];
	int i = 24;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, t + i, (size_t)(24 - i));
}

static inline void indent(struct out *o, unsigned n)
{
	static const char sp[] = "                                                                ";
	while (n > 64) {
		put(o, sp, 64);
		n -= 64;
	}
	put(o, sp, n);
}

static void loc(struct out *o, uint32_t line, uint32_t disc)
{
	putu(o, line);
	if (disc) {
		put(o, ".", 1);
		putu(o, disc);
	}
}

static void write_func(struct out *o, struct spgo_profile *p, uint32_t f, unsigned ind)
{
	struct spgo_func fn = p->funcs.v[f];
	unsigned d = ind < 63 ? ind : 63;
	if (ind == 0) {
		if (fn.ctx != SPGO_NONE) {
			put(o, "[", 1);
			puts_(o, spgo_strtab_get(&p->contexts, fn.ctx));
			put(o, "]", 1);
		} else {
			put(o, spgo_name(p, fn.name), spgo_name_len(p, fn.name));
		}
		put(o, ":", 1);
		putu(o, fn.total);
		put(o, ":", 1);
		putu(o, fn.head);
	} else {
		put(o, spgo_name(p, fn.name), spgo_name_len(p, fn.name));
		put(o, ":", 1);
		putu(o, fn.total);
	}
	put(o, "\n", 1);
	size_t nb = spgo_func_bodies(p, f, &o->tmp[d], &o->cap[d]);
	for (size_t i = 0; i < nb; i++) {
		const struct spgo_body *b = &p->bodies.v[o->tmp[d][i]];
		indent(o, ind + 1);
		loc(o, b->line, b->disc);
		put(o, ": ", 2);
		putu(o, b->count);
		if (b->ntargets) {
			size_t nt = spgo_body_targets(p, o->tmp[d][i], &o->tbuf, &o->tcap);
			for (size_t j = 0; j < nt; j++) {
				const struct spgo_target *t = &p->targets.v[o->tbuf[j]];
				put(o, " ", 1);
				put(o, spgo_name(p, t->name), spgo_name_len(p, t->name));
				put(o, ":", 1);
				putu(o, t->count);
			}
		}
		put(o, "\n", 1);
	}
	size_t nc = spgo_func_children(p, f, &o->tmp[d], &o->cap[d]);
	/* Children recurse into deeper buffers, but at the depth cap they
	 * would share this one: copy the list first in that case. */
	uint32_t *kids = o->tmp[d], *copy = NULL;
	if (d == 63 && nc) {
		copy = xmalloc(nc * sizeof *copy);
		memcpy(copy, kids, nc * sizeof *copy);
		kids = copy;
	}
	for (size_t i = 0; i < nc; i++) {
		uint32_t c = kids[i];
		indent(o, ind + 1);
		loc(o, p->funcs.v[c].line, p->funcs.v[c].disc);
		put(o, ": ", 2);
		write_func(o, p, c, ind + 1);
		kids = copy ? copy : o->tmp[d]; /* the buffer may have moved */
	}
	free(copy);
	if (p->flags & SPGO_PROF_PROBE) {
		indent(o, ind + 1);
		puts_(o, "!CFGChecksum: ");
		putu(o, fn.checksum);
		put(o, "\n", 1);
	}
	if (fn.attrs) {
		indent(o, ind + 1);
		puts_(o, "!Attributes: ");
		putu(o, fn.attrs);
		put(o, "\n", 1);
	}
}

/* A name the text form carries: not empty, no control character, not
 * starting with a space (indentation), '[' (a context), '!' (metadata),
 * '#' (a comment) or ':' (where a call target's name would end),
 * a leading digit only in an all-digit MD5 name (else an inlinee reads as
 * a body line), and in a call target no ':' with digits then a space
 * (where the reader ends a target).  NULL when it can, else what is
 * wrong. */
static const char *text_name_problem(const char *s, size_t n, int target)
{
	if (!n)
		return "empty";
	if (s[0] == ' ' || s[0] == '[' || s[0] == '!' || s[0] == ':' || s[0] == '#')
		return "a leading space, '[', '!', ':' or '#'";
	int digits = s[0] >= '0' && s[0] <= '9';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < ' ' || c == 0x7f)
			return "a control character";
		if (c == ':' && target) {
			size_t j = i + 1;
			while (j < n && s[j] >= '0' && s[j] <= '9')
				j++;
			if (j > i + 1 && j < n && s[j] == ' ')
				return "':NUM ' in a call target";
		}
		if (digits && (c < '0' || c > '9'))
			return "a leading digit";
	}
	return NULL;
}

static int text_name_check(struct spgo_profile *p, uint32_t name, int target)
{
	const char *s = spgo_name(p, name);
	size_t n = spgo_name_len(p, name);
	const char *why = text_name_problem(s, n, target);
	if (!why)
		return 0;
	return spgo_error("the function name '%.*s' cannot be written in the LLVM text format (%s); "
			  "write extbinary",
			  (int)(n > 80 ? 80 : n), s, why);
}

int spgo_write_text(struct spgo_profile *p, FILE *fp)
{
	for (size_t i = 0; i < p->funcs.n; i++)
		if (text_name_check(p, p->funcs.v[i].name, 0) < 0)
			return -1;
	for (size_t i = 0; i < p->targets.n; i++)
		if (text_name_check(p, p->targets.v[i].name, 1) < 0)
			return -1;
	struct out *o = xcalloc(1, sizeof *o);
	o->fp = fp;
	uint32_t *order = spgo_profile_sorted(p);
	for (size_t i = 0; i < p->top.n; i++)
		write_func(o, p, order[i], 0);
	flush(o);
	free(order);
	for (int i = 0; i < 64; i++)
		free(o->tmp[i]);
	free(o->tbuf);
	free(o);
	return ferror(fp) ? spgo_error("write error") : 0;
}
