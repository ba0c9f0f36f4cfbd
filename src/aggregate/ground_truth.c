/*
 * ground_truth.c: reader and writer of the ground-truth file format that
 * spgo/ground_truth.h documents.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"
#include "spgo/ground_truth.h"

#define GT_MAGIC "spgo-ground-truth 1"

static int write_addr(FILE *fp, uint64_t a)
{
	return a == SPGO_GT_OUTSIDE ? fputs("-", fp) : fprintf(fp, "%" PRIx64, a);
}

int spgo_gt_write(const struct spgo_ground_truth *gt, const char *path)
{
	struct spgo_out out;
	if (spgo_out_open(&out, path) < 0)
		return -1;
	FILE *fp = out.fp;
	fprintf(fp, "%s\n", GT_MAGIC);
	fprintf(fp, "# i ADDR SIZE COUNT CLASS | e FROM TO COUNT KIND (see spgo/ground_truth.h)\n");
	for (size_t d = 0; d < gt->n_dsos; d++) {
		const struct spgo_gt_dso *s = &gt->dsos[d];
		char hex[41] = "-";
		if (s->build_id_len) {
			for (size_t i = 0; i < s->build_id_len; i++)
				sprintf(hex + 2 * i, "%02x", s->build_id[i]);
		}
		fprintf(fp, "dso %s %s\n", hex, s->path);
		for (size_t i = 0; i < s->n_insns; i++)
			fprintf(fp, "i %" PRIx64 " %u %" PRIu64 " %c\n", s->insns[i].addr,
				s->insns[i].size, s->insns[i].count, s->insns[i].cls);
		for (size_t i = 0; i < s->n_edges; i++) {
			fputs("e ", fp);
			write_addr(fp, s->edges[i].from);
			fputc(' ', fp);
			write_addr(fp, s->edges[i].to);
			fprintf(fp, " %" PRIu64 " %c\n", s->edges[i].count, s->edges[i].kind);
		}
	}
	return spgo_out_commit(&out);
}

void spgo_gt_free(struct spgo_ground_truth *gt)
{
	for (size_t d = 0; d < gt->n_dsos; d++) {
		free(gt->dsos[d].path);
		free(gt->dsos[d].insns);
		free(gt->dsos[d].edges);
	}
	free(gt->dsos);
	memset(gt, 0, sizeof *gt);
}

/* Parse a hex address or "-" at *p; advances past it and one space. */
static int parse_addr(const char **p, uint64_t *out)
{
	const char *s = *p;
	if (*s == '-' && (s[1] == ' ' || s[1] == 0)) {
		*out = SPGO_GT_OUTSIDE;
		*p = s + 1 + (s[1] == ' ');
		return 0;
	}
	char *end;
	errno = 0;
	if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
		return -1;
	*out = strtoull(s, &end, 16);
	if (errno || (*end != ' ' && *end != 0))
		return -1;
	*p = end + (*end == ' ');
	return 0;
}

static int parse_dec(const char **p, uint64_t *out)
{
	const char *s = *p;
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || (*end != ' ' && *end != 0))
		return -1;
	*p = end + (*end == ' ');
	return 0;
}

int spgo_gt_read(struct spgo_ground_truth *gt, const char *path)
{
	memset(gt, 0, sizeof *gt);
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return -1;
	/* The magic first, in place: a wrong file (of gigabytes, without a
	 * newline) fails at once, not after its first "line" is copied. */
	size_t mlen = strlen(GT_MAGIC);
	if (f.size && (f.size < mlen || memcmp(f.data, GT_MAGIC, mlen) != 0 ||
		       (f.size > mlen && f.data[mlen] != '\n'))) {
		spgo_file_unmap(&f);
		return spgo_error("%s: line 1: not a spgo ground-truth file (expected '%s')", path,
				  GT_MAGIC);
	}
	VEC(struct spgo_gt_dso) dsos = {0};
	VEC(struct spgo_gt_insn) insns = {0};
	VEC(struct spgo_gt_edge) edges = {0};
	size_t line = 0, pos = 0;
	int rc = -1;
	char *buf = NULL;
	size_t bufcap = 0;
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
			if (strcmp(buf, GT_MAGIC) != 0) {
				spgo_error("%s: line 1: not a spgo ground-truth file (expected '%s')", path,
					   GT_MAGIC);
				goto out;
			}
			continue;
		}
		if (*p == '#' || *p == 0)
			continue;
		if (strncmp(p, "dso ", 4) == 0) {
			if (dsos.n) {
				dsos.v[dsos.n - 1].insns = insns.v, dsos.v[dsos.n - 1].n_insns = insns.n;
				dsos.v[dsos.n - 1].edges = edges.v, dsos.v[dsos.n - 1].n_edges = edges.n;
				memset(&insns, 0, sizeof insns);
				memset(&edges, 0, sizeof edges);
			}
			struct spgo_gt_dso d = {0};
			p += 4;
			const char *sp = strchr(p, ' ');
			if (!sp || sp[1] == 0) {
				spgo_error("%s: line %zu: 'dso' needs a build-id and a path", path, line);
				goto out;
			}
			if (!(sp - p == 1 && *p == '-')) {
				size_t hl = (size_t)(sp - p);
				if (hl % 2 || hl > 40) {
					spgo_error("%s: line %zu: bad build-id", path, line);
					goto out;
				}
				for (size_t i = 0; i < hl / 2; i++) {
					unsigned v;
					if (sscanf(p + 2 * i, "%2x", &v) != 1) {
						spgo_error("%s: line %zu: bad build-id", path, line);
						goto out;
					}
					d.build_id[i] = (uint8_t)v;
				}
				d.build_id_len = hl / 2;
			}
			d.path = xstrdup(sp + 1);
			VEC_PUSH(&dsos, d);
			continue;
		}
		if (!dsos.n) {
			spgo_error("%s: line %zu: record before the first 'dso' line", path, line);
			goto out;
		}
		if (p[0] == 'i' && p[1] == ' ') {
			struct spgo_gt_insn in = {0};
			uint64_t size;
			p += 2;
			if (parse_addr(&p, &in.addr) < 0 || in.addr == SPGO_GT_OUTSIDE ||
			    parse_dec(&p, &size) < 0 || size == 0 || size > 15 ||
			    parse_dec(&p, &in.count) < 0 || !strchr("-jJIcCrs", *p) || !*p || p[1]) {
				spgo_error("%s: line %zu: malformed instruction record", path, line);
				goto out;
			}
			in.size = (uint8_t)size;
			in.cls = *p;
			if (insns.n && insns.v[insns.n - 1].addr >= in.addr) {
				spgo_error("%s: line %zu: instructions not in ascending order", path, line);
				goto out;
			}
			VEC_PUSH(&insns, in);
		} else if (p[0] == 'e' && p[1] == ' ') {
			struct spgo_gt_edge e = {0};
			p += 2;
			if (parse_addr(&p, &e.from) < 0 || parse_addr(&p, &e.to) < 0 ||
			    parse_dec(&p, &e.count) < 0 || !*p || !strchr("TFX", *p) || p[1]) {
				spgo_error("%s: line %zu: malformed edge record", path, line);
				goto out;
			}
			e.kind = *p;
			VEC_PUSH(&edges, e);
		} else {
			spgo_error("%s: line %zu: unknown record", path, line);
			goto out;
		}
	}
	if (line == 0) {
		spgo_error("%s: empty file, not a spgo ground-truth file", path);
		goto out;
	}
	if (dsos.n) {
		dsos.v[dsos.n - 1].insns = insns.v, dsos.v[dsos.n - 1].n_insns = insns.n;
		dsos.v[dsos.n - 1].edges = edges.v, dsos.v[dsos.n - 1].n_edges = edges.n;
		memset(&insns, 0, sizeof insns);
		memset(&edges, 0, sizeof edges);
	}
	gt->dsos = dsos.v;
	gt->n_dsos = dsos.n;
	memset(&dsos, 0, sizeof dsos);
	rc = 0;
out:
	free(buf);
	VEC_FREE(&insns);
	VEC_FREE(&edges);
	if (rc < 0) {
		struct spgo_ground_truth tmp = {dsos.v, dsos.n};
		spgo_gt_free(&tmp);
	}
	spgo_file_unmap(&f);
	return rc;
}

const struct spgo_gt_dso *spgo_gt_find_dso(const struct spgo_ground_truth *gt,
					   const uint8_t *build_id, size_t len, const char *path)
{
	if (len)
		for (size_t d = 0; d < gt->n_dsos; d++)
			if (gt->dsos[d].build_id_len == len &&
			    memcmp(gt->dsos[d].build_id, build_id, len) == 0)
				return &gt->dsos[d];
	if (!path)
		return NULL;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t d = 0; d < gt->n_dsos; d++) {
		const char *b = strrchr(gt->dsos[d].path, '/');
		b = b ? b + 1 : gt->dsos[d].path;
		if (strcmp(b, base) == 0)
			return &gt->dsos[d];
	}
	return NULL;
}

const struct spgo_gt_insn *spgo_gt_insn_at(const struct spgo_gt_dso *d, uint64_t addr)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, d->insns, d->n_insns, addr, addr);
	return lo < d->n_insns && d->insns[lo].addr == addr ? &d->insns[lo] : NULL;
}
