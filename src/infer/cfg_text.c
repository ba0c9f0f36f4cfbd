/*
 * The CFG text format (spgo/infer.h, README "CFG text format"): a reader
 * that names the file and line of every error, and writers for CFGs and for
 * inferred counts.
 */
#include "spgo/infer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"

struct parse {
	const char *path;
	size_t line;
	struct spgo_cfg_file *out;
	/* the CFG being read */
	struct spgo_cfg *cfg;
	struct spgo_strtab labels; /* label -> dense id; id == block index */
	VEC(uint64_t) tb;          /* truth per block */
	VEC(uint64_t) te;          /* truth per edge */
	int has_truth, entry_set, open;
};

static int perr(struct parse *p, const char *msg, const char *tok)
{
	if (tok)
		return spgo_error("%s: line %zu: %s '%s'", p->path, p->line, msg, tok);
	return spgo_error("%s: line %zu: %s", p->path, p->line, msg);
}

static int parse_u64(struct parse *p, const char *s, uint64_t *v)
{
	if (spgo_parse_u64(s, v) != 0)
		return perr(p, "bad number", s);
	return 0;
}

static void begin(struct parse *p, const char *name)
{
	struct spgo_cfg_file *f = p->out;
	f->cfgs = xrealloc(f->cfgs, (f->n + 1) * sizeof *f->cfgs);
	f->labels = xrealloc(f->labels, (f->n + 1) * sizeof *f->labels);
	f->truth_block = xrealloc(f->truth_block, (f->n + 1) * sizeof *f->truth_block);
	f->truth_edge = xrealloc(f->truth_edge, (f->n + 1) * sizeof *f->truth_edge);
	p->cfg = &f->cfgs[f->n];
	spgo_cfg_init(p->cfg);
	p->cfg->name = name ? xstrdup(name) : NULL;
	f->labels[f->n] = NULL;
	f->truth_block[f->n] = f->truth_edge[f->n] = NULL;
	f->n++;
	spgo_strtab_init(&p->labels);
	p->tb.n = p->te.n = 0;
	p->has_truth = p->entry_set = 0;
	p->open = 1;
}

/* Close the CFG being read: labels and truth to the file, finalize. */
static int end(struct parse *p)
{
	if (!p->open)
		return 0;
	struct spgo_cfg_file *f = p->out;
	size_t i = f->n - 1;
	size_t nb = p->cfg->nblocks;
	char **labels = xmalloc((nb + 1) * sizeof *labels);
	for (size_t b = 0; b < nb; b++)
		labels[b] = xstrdup(spgo_strtab_get(&p->labels, (uint32_t)b));
	f->labels[i] = labels;
	if (p->has_truth) {
		f->truth_block[i] = xmalloc((nb + 1) * sizeof(uint64_t));
		if (nb)
			memcpy(f->truth_block[i], p->tb.v, nb * sizeof(uint64_t));
		f->truth_edge[i] = xmalloc((p->cfg->nedges + 1) * sizeof(uint64_t));
		if (p->cfg->nedges) /* no edge: te.v is NULL */
			memcpy(f->truth_edge[i], p->te.v, p->cfg->nedges * sizeof(uint64_t));
	}
	spgo_strtab_free(&p->labels);
	p->open = 0;
	if (nb == 0)
		return spgo_error("%s: line %zu: CFG '%s' has no blocks", p->path, p->line,
				  p->cfg->name ? p->cfg->name : "");
	return spgo_cfg_finalize(p->cfg);
}

static int lookup(struct parse *p, const char *label, uint32_t *b)
{
	size_t before = p->labels.n;
	uint32_t id = spgo_strtab_intern(&p->labels, label, strlen(label));
	if (p->labels.n != before) {
		/* not declared: undo is not possible in strtab, so it is an error */
		return perr(p, "edge names an undeclared block", label);
	}
	*b = id;
	return 0;
}

static int line_block(struct parse *p, char **tok, int nt)
{
	if (nt < 3)
		return perr(p, "expected 'block LABEL WEIGHT'", NULL);
	size_t before = p->labels.n;
	uint32_t id = spgo_strtab_intern(&p->labels, tok[1], strlen(tok[1]));
	if (p->labels.n == before)
		return perr(p, "block declared twice", tok[1]);
	uint32_t b = spgo_cfg_add_block(p->cfg, 0, 0);
	(void)id; /* ids and block indices advance together */
	struct spgo_cfg_block *bl = &p->cfg->blocks[b];
	if (strcmp(tok[2], "?") != 0) {
		if (parse_u64(p, tok[2], &bl->weight))
			return -1;
		if (bl->weight == SPGO_WEIGHT_UNKNOWN)
			return perr(p, "weight too large", tok[2]);
	}
	uint64_t truth = 0;
	for (int i = 3; i < nt; i++) {
		if (!strcmp(tok[i], "exit"))
			bl->flags |= SPGO_BLOCK_EXIT;
		else if (!strncmp(tok[i], "addr=", 5)) {
			if (parse_u64(p, tok[i] + 5, &bl->addr))
				return -1;
		} else if (!strncmp(tok[i], "size=", 5)) {
			if (parse_u64(p, tok[i] + 5, &bl->size))
				return -1;
		} else if (!strncmp(tok[i], "truth=", 6)) {
			if (parse_u64(p, tok[i] + 6, &truth))
				return -1;
			p->has_truth = 1;
		} else
			return perr(p, "unknown block attribute", tok[i]);
	}
	VEC_PUSH(&p->tb, truth);
	return 0;
}

static int line_edge(struct parse *p, char **tok, int nt)
{
	if (nt < 3)
		return perr(p, "expected 'edge SRC DST'", NULL);
	uint32_t s = 0, d = 0;
	if (lookup(p, tok[1], &s) || lookup(p, tok[2], &d))
		return -1;
	uint32_t e = spgo_cfg_add_edge(p->cfg, s, d, SPGO_EDGE_OTHER);
	uint64_t truth = 0;
	for (int i = 3; i < nt; i++) {
		if (!strncmp(tok[i], "p=", 2)) {
			char *end;
			errno = 0;
			double v = strtod(tok[i] + 2, &end);
			if (errno || *end || end == tok[i] + 2 || !(v >= 0 && v <= 1))
				return perr(p, "bad probability", tok[i]);
			p->cfg->edges[e].prob = v;
		} else if (!strncmp(tok[i], "truth=", 6)) {
			if (parse_u64(p, tok[i] + 6, &truth))
				return -1;
			p->has_truth = 1;
		} else
			return perr(p, "unknown edge attribute", tok[i]);
	}
	VEC_PUSH(&p->te, truth);
	return 0;
}

/*
 * Before the text is copied: its first directive (after blank lines and
 * comments) is one of the format's, and it holds no NUL byte, so that a
 * wrong file, even of gigabytes, fails at once.
 */
static int cfg_head(const char *text, size_t len, const char *path)
{
	static const char *const first[] = {"cfg", "block", "edge", "entry"};
	size_t i = 0, line = 1;
	for (;;) {
		while (i < len && strchr(" \t\r\n", text[i]) && text[i])
			line += text[i++] == '\n';
		if (i == len || text[i] != '#')
			break;
		const char *nl = memchr(text + i, '\n', len - i);
		i = nl ? (size_t)(nl - text) : len;
	}
	int known = i == len; /* blank or comments only: the parser's message */
	for (size_t k = 0; k < SPGO_ARRAY_LEN(first) && !known; k++) {
		size_t n = strlen(first[k]);
		known = len - i >= n && !memcmp(text + i, first[k], n) &&
			(len - i == n || (text[i + n] && strchr(" \t\r\n", text[i + n])));
	}
	const char *nul = memchr(text + i, 0, len - i < 64 ? len - i : 64);
	if (known)
		nul = memchr(text, 0, len); /* the whole file, once it looks right */
	if (nul)
		return spgo_error("%s: offset %zu: NUL byte in a text CFG", path, (size_t)(nul - text));
	if (!known) { /* the parser's message, from the head alone */
		size_t n = 0;
		while (n < 64 && i + n < len && !strchr(" \t\r\n", text[i + n]))
			n++;
		return spgo_error("%s: line %zu: unknown directive '%.*s%s'", path, line, (int)n,
				  text + i, n == 64 ? "..." : "");
	}
	return 0;
}

int spgo_cfg_parse(struct spgo_cfg_file *out, const char *text, size_t len, const char *path)
{
	memset(out, 0, sizeof *out);
	struct parse p = {.path = path, .out = out};
	if (cfg_head(text, len, path) < 0)
		return -1;
	char *buf = xmalloc(len + 1);
	memcpy(buf, text, len);
	buf[len] = 0;
	int rc = 0;
	char *save = NULL;
	char *cur = buf;
	while (cur && rc == 0) {
		char *nl = memchr(cur, '\n', (size_t)(buf + len - cur));
		if (nl)
			*nl = 0;
		p.line++;
		char *hash = strchr(cur, '#');
		if (hash)
			*hash = 0;
		char *tok[64];
		int nt = 0;
		for (char *t = strtok_r(cur, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (nt == 64) {
				rc = perr(&p, "too many fields", NULL);
				break;
			}
			tok[nt++] = t;
		}
		cur = nl ? nl + 1 : NULL;
		if (rc || nt == 0)
			continue;
		if (!strcmp(tok[0], "cfg")) {
			if (nt != 2) {
				rc = perr(&p, "expected 'cfg NAME'", NULL);
				break;
			}
			if ((rc = end(&p)) != 0)
				break;
			begin(&p, tok[1]);
			continue;
		}
		if (!p.open)
			begin(&p, NULL);
		if (!strcmp(tok[0], "block"))
			rc = line_block(&p, tok, nt);
		else if (!strcmp(tok[0], "edge"))
			rc = line_edge(&p, tok, nt);
		else if (!strcmp(tok[0], "entry")) {
			uint32_t b = 0;
			if (nt != 2)
				rc = perr(&p, "expected 'entry LABEL'", NULL);
			else if (p.entry_set)
				rc = perr(&p, "entry given twice", NULL);
			else if ((rc = lookup(&p, tok[1], &b)) == 0) {
				p.cfg->entry = b;
				p.entry_set = 1;
			}
		} else
			rc = perr(&p, "unknown directive", tok[0]);
	}
	if (rc == 0)
		rc = end(&p);
	else if (p.open) {
		spgo_strtab_free(&p.labels);
		p.open = 0;
	}
	if (rc == 0 && out->n == 0)
		rc = spgo_error("%s: no CFG in the file", path);
	VEC_FREE(&p.tb);
	VEC_FREE(&p.te);
	free(buf);
	if (rc)
		spgo_cfg_file_free(out);
	return rc;
}

int spgo_cfg_parse_file(struct spgo_cfg_file *out, const char *path)
{
	struct spgo_file f;
	if (spgo_file_map(&f, path))
		return -1;
	int rc = spgo_cfg_parse(out, (const char *)f.data, f.size, path);
	spgo_file_unmap(&f);
	return rc;
}

void spgo_cfg_file_free(struct spgo_cfg_file *f)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->labels[i]) {
			for (size_t b = 0; b < f->cfgs[i].nblocks; b++)
				free(f->labels[i][b]);
			free(f->labels[i]);
		}
		free(f->truth_block[i]);
		free(f->truth_edge[i]);
		spgo_cfg_free(&f->cfgs[i]);
	}
	free(f->cfgs);
	free(f->labels);
	free(f->truth_block);
	free(f->truth_edge);
	memset(f, 0, sizeof *f);
}

static const char *label(char **labels, const struct spgo_cfg *cfg, uint32_t b, char *buf, size_t n)
{
	if (labels)
		return labels[cfg->blocks[b].name];
	snprintf(buf, n, "%u", b);
	return buf;
}

void spgo_cfg_write_counts(FILE *fp, const struct spgo_cfg *cfg, char **labels)
{
	char a[32], c[32];
	if (cfg->name)
		fprintf(fp, "cfg %s\n", cfg->name);
	for (uint32_t b = 0; b < cfg->nblocks; b++)
		fprintf(fp, "block %s %" PRIu64 "\n", label(labels, cfg, b, a, sizeof a),
			cfg->blocks[b].count);
	for (size_t e = 0; e < cfg->nedges; e++) {
		const struct spgo_cfg_edge *ed = &cfg->edges[e];
		fprintf(fp, "edge %s %s %" PRIu64 "\n", label(labels, cfg, ed->src, a, sizeof a),
			label(labels, cfg, ed->dst, c, sizeof c), ed->count);
	}
}

void spgo_cfg_write(FILE *fp, const struct spgo_cfg *cfg, char **labels)
{
	char a[32], c[32];
	if (cfg->name)
		fprintf(fp, "cfg %s\n", cfg->name);
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct spgo_cfg_block *bl = &cfg->blocks[b];
		fprintf(fp, "block %s ", label(labels, cfg, b, a, sizeof a));
		if (bl->weight == SPGO_WEIGHT_UNKNOWN)
			fputc('?', fp);
		else
			fprintf(fp, "%" PRIu64, bl->weight);
		if (bl->addr || bl->size)
			fprintf(fp, " addr=0x%" PRIx64 " size=%" PRIu64, bl->addr, bl->size);
		if (bl->flags & SPGO_BLOCK_EXIT)
			fputs(" exit", fp);
		fputc('\n', fp);
	}
	if (cfg->entry != 0)
		fprintf(fp, "entry %s\n", label(labels, cfg, cfg->entry, a, sizeof a));
	for (size_t e = 0; e < cfg->nedges; e++) {
		const struct spgo_cfg_edge *ed = &cfg->edges[e];
		fprintf(fp, "edge %s %s", label(labels, cfg, ed->src, a, sizeof a),
			label(labels, cfg, ed->dst, c, sizeof c));
		if (ed->prob >= 0)
			fprintf(fp, " p=%.6g", ed->prob);
		fputc('\n', fp);
	}
}
