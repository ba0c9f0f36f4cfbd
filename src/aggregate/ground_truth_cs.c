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
	struct vbuild b = {0};
	int view = -1, seen[2] = {0, 0}, rc = -1, have_dso = 0;
	size_t line = 0, pos = 0, bufcap = 0;
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
		line++;
		const char *p = buf;
		if (line == 1) {
			if (strcmp(buf, GTCS_MAGIC) != 0) {
				spgo_error("%s: line 1: not a spgo context-sensitive ground-truth file "
					   "(expected '%s')", path, GTCS_MAGIC);
				goto out;
			}
			continue;
		}
		if (*p == '#' || *p == 0)
			continue;
		if (!strncmp(p, "dso ", 4)) {
			const char *sp = strchr(p + 4, ' ');
			if (have_dso || !sp || !sp[1]) {
				spgo_error("%s: line %zu: one 'dso' line with a build-id and a path expected",
					   path, line);
				goto out;
			}
			size_t hl = (size_t)(sp - (p + 4));
			if (!(hl == 1 && p[4] == '-')) {
				if (hl % 2 || hl > 40) {
					spgo_error("%s: line %zu: bad build-id", path, line);
					goto out;
				}
				for (size_t i = 0; i < hl / 2; i++) {
					unsigned x;
					if (sscanf(p + 4 + 2 * i, "%2x", &x) != 1) {
						spgo_error("%s: line %zu: bad build-id", path, line);
						goto out;
					}
					gt->build_id[i] = (uint8_t)x;
				}
				gt->build_id_len = hl / 2;
			}
			gt->path = xstrdup(sp + 1);
			have_dso = 1;
			continue;
		}
		if (!have_dso) {
			spgo_error("%s: line %zu: record before the 'dso' line", path, line);
			goto out;
		}
		if (!strncmp(p, "depth ", 6)) {
			uint64_t d;
			p += 6;
			if (parse_dec(&p, &d) < 0 || *p || d == 0 || d > 1u << 20) {
				spgo_error("%s: line %zu: malformed depth", path, line);
				goto out;
			}
			gt->depth = (unsigned)d;
			continue;
		}
		if (!strncmp(p, "view ", 5)) {
			int v = spgo_gt_cs_view_parse(p + 5);
			if (v < 0 || seen[v]) {
				spgo_error("%s: line %zu: expected 'view fp' or 'view true', once each", path,
					   line);
				goto out;
			}
			if (view >= 0)
				vbuild_done(&b, &gt->views[view]);
			view = v;
			seen[v] = 1;
			continue;
		}
		if (view < 0) {
			spgo_error("%s: line %zu: record before the first 'view' line", path, line);
			goto out;
		}
		uint64_t id;
		if ((p[0] != 'c' && p[0] != 'i' && p[0] != 'e') || p[1] != ' ') {
			spgo_error("%s: line %zu: unknown record", path, line);
			goto out;
		}
		char kind = p[0];
		p += 2;
		if (parse_dec(&p, &id) < 0) {
			spgo_error("%s: line %zu: malformed context id", path, line);
			goto out;
		}
		if (kind == 'c') {
			if (id != b.off.n) {
				spgo_error("%s: line %zu: context %" PRIu64 " out of order (expected %zu)", path,
					   line, id, b.off.n);
				goto out;
			}
			VEC_PUSH(&b.off, b.sites.n);
			while (*p) {
				uint64_t a;
				if (parse_addr(&p, &a, 0) < 0) {
					spgo_error("%s: line %zu: malformed call site", path, line);
					goto out;
				}
				VEC_PUSH(&b.sites, a);
			}
			continue;
		}
		if (id >= b.off.n) {
			spgo_error("%s: line %zu: unknown context %" PRIu64, path, line, id);
			goto out;
		}
		if (kind == 'i') {
			struct spgo_gt_cs_insn in = {.ctx = (uint32_t)id};
			if (parse_addr(&p, &in.addr, 0) < 0 || parse_dec(&p, &in.count) < 0 || *p) {
				spgo_error("%s: line %zu: malformed instruction record", path, line);
				goto out;
			}
			if (b.insns.n && (b.insns.v[b.insns.n - 1].ctx > in.ctx ||
					  (b.insns.v[b.insns.n - 1].ctx == in.ctx &&
					   b.insns.v[b.insns.n - 1].addr >= in.addr))) {
				spgo_error("%s: line %zu: instructions not in ascending order", path, line);
				goto out;
			}
			VEC_PUSH(&b.insns, in);
		} else {
			struct spgo_gt_cs_edge e = {.ctx = (uint32_t)id};
			if (parse_addr(&p, &e.from, 1) < 0 || parse_addr(&p, &e.to, 1) < 0 ||
			    parse_dec(&p, &e.count) < 0 || !*p || !strchr("TFX", *p) || p[1]) {
				spgo_error("%s: line %zu: malformed edge record", path, line);
				goto out;
			}
			e.kind = *p;
			if (b.edges.n && !spgo_gt_cs_edge_before(&b.edges.v[b.edges.n - 1], &e)) {
				spgo_error("%s: line %zu: edges not in ascending order", path, line);
				goto out;
			}
			VEC_PUSH(&b.edges, e);
		}
	}
	if (!have_dso || !seen[0] || !seen[1]) {
		spgo_error("%s: %s", path, line ? "a 'dso' line and both views ('view fp', 'view true') expected"
						: "empty file, not a spgo context-sensitive ground-truth file");
		goto out;
	}
	vbuild_done(&b, &gt->views[view]);
	rc = 0;
out:
	free(buf);
	VEC_FREE(&b.sites);
	VEC_FREE(&b.off);
	VEC_FREE(&b.insns);
	VEC_FREE(&b.edges);
	if (rc < 0)
		spgo_gt_cs_free(gt);
	spgo_file_unmap(&f);
	return rc;
}
