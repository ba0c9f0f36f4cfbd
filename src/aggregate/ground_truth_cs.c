/*
 * ground_truth_cs.c: the context-sensitive ground truth of spgo/ground_truth.h
 * -- its reader and writer, and the conversion of the emulator plugin's
 * context-sensitive counts (layout in src/cli/emulate_trace.h) into it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/ground_truth.h"

#define GTCS_MAGIC "spgo-ground-truth-cs 1"

static const char *const view_names[2] = {"fp", "true"};

int spgo_gt_cs_view_parse(const char *s)
{
	for (int v = 0; v < 2; v++)
		if (strcmp(s, view_names[v]) == 0)
			return v;
	return -1;
}

/* ---- writing ------------------------------------------------------------------ */

static void write_addr(FILE *fp, uint64_t a)
{
	if (a == SPGO_GT_OUTSIDE)
		fputc('-', fp);
	else
		fprintf(fp, "%" PRIx64, a);
}

int spgo_gt_cs_write(const struct spgo_gt_cs *gt, const char *path)
{
	struct spgo_out out;
	if (spgo_out_open(&out, path) < 0)
		return -1;
	FILE *fp = out.fp;
	char hex[41] = "-";
	for (size_t i = 0; i < gt->build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", gt->build_id[i]);
	fprintf(fp, "%s\n# c ID SITES | i ID ADDR COUNT | e ID FROM TO COUNT KIND (see spgo/ground_truth.h)\n",
		GTCS_MAGIC);
	fprintf(fp, "dso %s %s\ndepth %u\n", hex, gt->path, gt->depth);
	for (int v = 0; v < 2; v++) {
		const struct spgo_gt_cs_view *w = &gt->views[v];
		fprintf(fp, "view %s\n", view_names[v]);
		for (size_t c = 0; c < w->n_ctx; c++) {
			fprintf(fp, "c %zu", c);
			for (size_t k = w->ctx_off[c]; k < w->ctx_off[c + 1]; k++)
				fprintf(fp, " %" PRIx64, w->sites[k]);
			fputc('\n', fp);
		}
		for (size_t i = 0; i < w->n_insns; i++)
			fprintf(fp, "i %u %" PRIx64 " %" PRIu64 "\n", w->insns[i].ctx, w->insns[i].addr,
				w->insns[i].count);
		for (size_t i = 0; i < w->n_edges; i++) {
			fprintf(fp, "e %u ", w->edges[i].ctx);
			write_addr(fp, w->edges[i].from);
			fputc(' ', fp);
			write_addr(fp, w->edges[i].to);
			fprintf(fp, " %" PRIu64 " %c\n", w->edges[i].count, w->edges[i].kind);
		}
	}
	return spgo_out_commit(&out);
}

void spgo_gt_cs_free(struct spgo_gt_cs *gt)
{
	free(gt->path);
	for (int v = 0; v < 2; v++) {
		free(gt->views[v].sites);
		free(gt->views[v].ctx_off);
		free(gt->views[v].insns);
		free(gt->views[v].edges);
	}
	memset(gt, 0, sizeof *gt);
}

/* ---- reading ------------------------------------------------------------------ */

/* A hex address or "-" (when outside is allowed) at *p, then a space or the end. */
static int parse_addr(const char **p, uint64_t *out, int outside)
{
	const char *s = *p;
	if (outside && *s == '-' && (s[1] == ' ' || s[1] == 0)) {
		*out = SPGO_GT_OUTSIDE;
		*p = s + 1 + (s[1] == ' ');
		return 0;
	}
	if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
		return -1;
	char *end;
	errno = 0;
	*out = strtoull(s, &end, 16);
	if (errno || (*end != ' ' && *end != 0) || *out == SPGO_GT_OUTSIDE)
		return -1;
	*p = end + (*end == ' ');
	return 0;
}

static int parse_dec(const char **p, uint64_t *out)
{
	const char *s = *p;
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || (*end != ' ' && *end != 0))
		return -1;
	*p = end + (*end == ' ');
	return 0;
}

struct vbuild {
	VEC(uint64_t) sites;
	VEC(size_t) off;
	VEC(struct spgo_gt_cs_insn) insns;
	VEC(struct spgo_gt_cs_edge) edges;
};

static void vbuild_done(struct vbuild *b, struct spgo_gt_cs_view *w)
{
	VEC_PUSH(&b->off, b->sites.n);
	w->sites = b->sites.v;
	w->ctx_off = b->off.v;
	w->n_ctx = b->off.n - 1;
	w->insns = b->insns.v, w->n_insns = b->insns.n;
	w->edges = b->edges.v, w->n_edges = b->edges.n;
	memset(b, 0, sizeof *b);
}

int spgo_gt_cs_edge_before(const struct spgo_gt_cs_edge *a, const struct spgo_gt_cs_edge *b)
{
	if (a->ctx != b->ctx)
		return a->ctx < b->ctx;
	if (a->from != b->from)
		return a->from < b->from;
	if (a->to != b->to)
		return a->to < b->to;
	return a->kind < b->kind;
}

/* The reader's state across lines: where it is, what it has seen, and
 * the view being built. */
struct gt_reader {
	struct spgo_gt_cs *gt;
	const char *path;
	size_t line;
	int view, seen[2], have_dso;
	struct vbuild b;
};

/* "dso BUILDID PATH" ("-" for no build-id), once, before all else. */
static int read_dso(struct gt_reader *r, const char *p)
{
	struct spgo_gt_cs *gt = r->gt;
	const char *sp = strchr(p + 4, ' ');
	if (r->have_dso || !sp || !sp[1])
		return spgo_error("%s: line %zu: one 'dso' line with a build-id and a path expected",
				  r->path, r->line);
	size_t hl = (size_t)(sp - (p + 4));
	if (!(hl == 1 && p[4] == '-')) {
		if (hl % 2 || hl > 40)
			return spgo_error("%s: line %zu: bad build-id", r->path, r->line);
		for (size_t i = 0; i < hl / 2; i++) {
			unsigned x;
			if (sscanf(p + 4 + 2 * i, "%2x", &x) != 1)
				return spgo_error("%s: line %zu: bad build-id", r->path, r->line);
			gt->build_id[i] = (uint8_t)x;
		}
		gt->build_id_len = hl / 2;
	}
	gt->path = xstrdup(sp + 1);
	r->have_dso = 1;
	return 0;
}

/* "view fp" or "view true": ends the view before. */
static int read_view(struct gt_reader *r, const char *p)
{
	int v = spgo_gt_cs_view_parse(p + 5);
	if (v < 0 || r->seen[v])
		return spgo_error("%s: line %zu: expected 'view fp' or 'view true', once each", r->path,
				  r->line);
	if (r->view >= 0)
		vbuild_done(&r->b, &r->gt->views[r->view]);
	r->view = v;
	r->seen[v] = 1;
	return 0;
}

/* "c ID SITE...": the next context. */
static int read_context(struct gt_reader *r, uint64_t id, const char *p)
{
	struct vbuild *b = &r->b;
	if (id != b->off.n)
		return spgo_error("%s: line %zu: context %" PRIu64 " out of order (expected %zu)", r->path,
				  r->line, id, b->off.n);
	VEC_PUSH(&b->off, b->sites.n);
	while (*p) {
		uint64_t a;
		if (parse_addr(&p, &a, 0) < 0)
			return spgo_error("%s: line %zu: malformed call site", r->path, r->line);
		VEC_PUSH(&b->sites, a);
	}
	return 0;
}

/* "i CTX ADDR COUNT", in ascending order. */
static int read_insn(struct gt_reader *r, uint64_t id, const char *p)
{
	struct vbuild *b = &r->b;
	struct spgo_gt_cs_insn in = {.ctx = (uint32_t)id};
	if (parse_addr(&p, &in.addr, 0) < 0 || parse_dec(&p, &in.count) < 0 || *p)
		return spgo_error("%s: line %zu: malformed instruction record", r->path, r->line);
	if (b->insns.n && (b->insns.v[b->insns.n - 1].ctx > in.ctx ||
			   (b->insns.v[b->insns.n - 1].ctx == in.ctx && b->insns.v[b->insns.n - 1].addr >= in.addr)))
		return spgo_error("%s: line %zu: instructions not in ascending order", r->path, r->line);
	VEC_PUSH(&b->insns, in);
	return 0;
}

/* "e CTX FROM TO COUNT KIND", in ascending order. */
static int read_edge(struct gt_reader *r, uint64_t id, const char *p)
{
	struct vbuild *b = &r->b;
	struct spgo_gt_cs_edge e = {.ctx = (uint32_t)id};
	if (parse_addr(&p, &e.from, 1) < 0 || parse_addr(&p, &e.to, 1) < 0 || parse_dec(&p, &e.count) < 0 ||
	    !*p || !strchr("TFX", *p) || p[1])
		return spgo_error("%s: line %zu: malformed edge record", r->path, r->line);
	e.kind = *p;
	if (b->edges.n && !spgo_gt_cs_edge_before(&b->edges.v[b->edges.n - 1], &e))
		return spgo_error("%s: line %zu: edges not in ascending order", r->path, r->line);
	VEC_PUSH(&b->edges, e);
	return 0;
}

/* One line after the magic: a comment, the dso, depth or view line, or a
 * record of the current view. */
static int read_line(struct gt_reader *r, const char *p)
{
	if (*p == '#' || *p == 0)
		return 0;
	if (!strncmp(p, "dso ", 4))
		return read_dso(r, p);
	if (!r->have_dso)
		return spgo_error("%s: line %zu: record before the 'dso' line", r->path, r->line);
	if (!strncmp(p, "depth ", 6)) {
		uint64_t d;
		p += 6;
		if (parse_dec(&p, &d) < 0 || *p || d == 0 || d > 1u << 20)
			return spgo_error("%s: line %zu: malformed depth", r->path, r->line);
		r->gt->depth = (unsigned)d;
		return 0;
	}
	if (!strncmp(p, "view ", 5))
		return read_view(r, p);
	if (r->view < 0)
		return spgo_error("%s: line %zu: record before the first 'view' line", r->path, r->line);
	uint64_t id;
	if ((p[0] != 'c' && p[0] != 'i' && p[0] != 'e') || p[1] != ' ')
		return spgo_error("%s: line %zu: unknown record", r->path, r->line);
	char kind = p[0];
	p += 2;
	if (parse_dec(&p, &id) < 0)
		return spgo_error("%s: line %zu: malformed context id", r->path, r->line);
	if (kind == 'c')
		return read_context(r, id, p);
	if (id >= r->b.off.n)
		return spgo_error("%s: line %zu: unknown context %" PRIu64, r->path, r->line, id);
	return kind == 'i' ? read_insn(r, id, p) : read_edge(r, id, p);
}

int spgo_gt_cs_read(struct spgo_gt_cs *gt, const char *path)
{
	memset(gt, 0, sizeof *gt);
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return -1;
	/* The magic first, in place: a wrong file (of gigabytes, without a
	 * newline) fails at once, not after its first "line" is copied. */
	size_t mlen = strlen(GTCS_MAGIC);
	if (f.size && (f.size < mlen || memcmp(f.data, GTCS_MAGIC, mlen) != 0 ||
		       (f.size > mlen && f.data[mlen] != '\n'))) {
		spgo_file_unmap(&f);
		return spgo_error("%s: line 1: not a spgo context-sensitive ground-truth file "
				  "(expected '%s')", path, GTCS_MAGIC);
	}
	struct gt_reader r = {.gt = gt, .path = path, .view = -1};
	int rc = -1;
	size_t pos = 0, bufcap = 0;
	char *buf = NULL;
	while (pos < f.size) {
		const uint8_t *nl = memchr(f.data + pos, '\n', f.size - pos);
		size_t len = nl ? (size_t)(nl - (f.data + pos)) : f.size - pos;
		if (len + 1 > bufcap) {
			bufcap = len + 64;
			buf = xrealloc(buf, bufcap);
		}
		memcpy(buf, f.data + pos, len);
		buf[len] = 0;
		pos += len + 1;
		r.line++;
		if (r.line == 1) {
			if (strcmp(buf, GTCS_MAGIC) != 0) {
				spgo_error("%s: line 1: not a spgo context-sensitive ground-truth file "
					   "(expected '%s')", path, GTCS_MAGIC);
				goto out;
			}
			continue;
		}
		if (read_line(&r, buf) < 0)
			goto out;
	}
	if (!r.have_dso || !r.seen[0] || !r.seen[1]) {
		spgo_error("%s: %s", path, r.line ? "a 'dso' line and both views ('view fp', 'view true') expected"
						  : "empty file, not a spgo context-sensitive ground-truth file");
		goto out;
	}
	vbuild_done(&r.b, &gt->views[r.view]);
	rc = 0;
out:
	free(buf);
	VEC_FREE(&r.b.sites);
	VEC_FREE(&r.b.off);
	VEC_FREE(&r.b.insns);
	VEC_FREE(&r.b.edges);
	if (rc < 0)
		spgo_gt_cs_free(gt);
	spgo_file_unmap(&f);
	return rc;
}
