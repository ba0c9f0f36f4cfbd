/* spgo merge: add up profiles of any formats, with weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/unsym.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo merge -o OUT [--weight W:FILE]... [--flatten|--cs-nested] [options] FILES...\n"
		    "Merges sample profiles (text, extended binary, gcov; CS or not), each\n"
		    "multiplied by its weight (default 1; also llvm-profdata's\n"
		    "--weighted-input=W,FILE; its --sample is accepted).  Merging GCC (gcov)\n"
		    "with LLVM profiles gives a warning: their line offsets and discriminators\n"
		    "do not mean the same.  --flatten merges CS contexts into\n"
		    "their leaf functions; --cs-nested turns CS contexts into the nested form\n"
		    "(inlinees of their caller contexts), as llvm-profdata's\n"
		    "--convert-sample-profile-layout=nest does.\n"
		    "Without --format the output has the richest of the inputs' formats,\n"
		    "extbinary > text > gcov (their order does not matter).\n"
		    "Unsymbolized profiles (spgo aggregate; llvm-profgen --skip-symbolization),\n"
		    "told by content, are added key by key per build-id, in any number, one\n"
		    "file at a time; the output is sorted, so any order or grouping of merges\n"
		    "gives the same bytes.  --format bin|text|profgen (default: bin when an\n"
		    "input is bin, else text); --trim-cold EPS drops each map's coldest keys that add up\n"
		    "to at most EPS (0 <= EPS < 1) of its total count.\n"
		    "-f, --input-files LIST: more inputs, one \"[W,]FILE\" a line, as\n"
		    "llvm-profdata's (blank lines and '#' lines skipped).\n%s",
		cli_write_help);
}

/* A context-less copy of a CS profile: every context merged into its leaf. */
static struct spgo_profile *flatten(struct spgo_profile *p)
{
	struct spgo_profile *f = spgo_profile_new();
	uint32_t *namemap = xmalloc((p->names.n + 1) * sizeof *namemap);
	memset(namemap, 0xff, (p->names.n + 1) * sizeof *namemap);
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t s = p->top.v[i];
		uint32_t d = spgo_func_get(f, spgo_name(p, p->funcs.v[s].name));
		spgo_func_merge(f, d, p, s, 1, namemap);
		spgo_fn(f, d)->attrs = 0;
	}
	f->flags = p->flags & ~(unsigned)(SPGO_PROF_CS | SPGO_PROF_PREINLINED);
	free(namemap);
	spgo_profile_free(p);
	return f;
}

/*
 * The inputs: files, their weights, and the lists read from --input-files
 * (llvm-profdata's -f LIST: one "[W,]FILE" a line; blank lines and lines
 * starting with '#' skipped), whose text the names point into.
 */
struct inputs {
	const char **files;
	uint64_t *weights;
	int n, cap;
	VEC(char *) lists;
};

static void inputs_add(struct inputs *in, const char *file, uint64_t w)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? 2 * in->cap : 16;
		in->files = xrealloc(in->files, (size_t)in->cap * sizeof *in->files);
		in->weights = xrealloc(in->weights, (size_t)in->cap * sizeof *in->weights);
	}
	in->files[in->n] = file;
	in->weights[in->n++] = w;
}

static void inputs_free(struct inputs *in)
{
	for (size_t i = 0; i < in->lists.n; i++)
		free(in->lists.v[i]);
	VEC_FREE(&in->lists);
	free(in->files);
	free(in->weights);
}

/* Add the inputs listed in the file path: 0, or -1 with an error naming
 * its line. */
static int inputs_list(struct inputs *in, const char *path)
{
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return -1;
	char *text = xmalloc(f.size + 1);
	memcpy(text, f.data, f.size);
	text[f.size] = 0;
	spgo_file_unmap(&f);
	VEC_PUSH(&in->lists, text);
	unsigned line = 0;
	for (char *l = text, *next; l; l = next) {
		line++;
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		l += strspn(l, " \t");
		for (size_t e = strlen(l); e && strchr(" \t\r\v\f", l[e - 1]); e--)
			l[e - 1] = 0;
		if (!*l || *l == '#')
			continue;
		uint64_t w = 1;
		char *comma = strchr(l, ','), *end;
		if (comma) { /* W,FILE (a file name with a comma needs W, too) */
			w = strtoull(l, &end, 10);
			if (end != comma || w == 0)
				return spgo_error("%s:%u: '%s' is not [W,]FILE with a weight W >= 1", path,
						  line, l);
			l = comma + 1;
		}
		inputs_add(in, l, w);
	}
	return 0;
}

enum { O_WEIGHT = CLI_LONG, O_WEIGHTED_INPUT, O_FLATTEN, O_NEST, O_TRIM, O_INPUT_FILES };
static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("w", O_WEIGHT), CLI_VAL("weight", O_WEIGHT),
	CLI_VAL("weighted-input", O_WEIGHTED_INPUT), /* llvm-profdata's W,FILE */
	CLI_FLAG("flatten", O_FLATTEN),
	CLI_FLAG("cs-nested", O_NEST),
	CLI_FLAG("sample", CLI_IGNORE),
	CLI_VAL("trim-cold", O_TRIM),
	CLI_VAL("f", O_INPUT_FILES), CLI_VAL("input-files", O_INPUT_FILES),
	CLI_WRITE_OPTS,
	{0},
};
static const struct cli_cmd cmd = {.name = "merge", .usage = usage, .opts = opts};

/* W:FILE (W,FILE for --weighted-input): the weight, >= 1, and the file. */
static int weighted(const struct cli_parser *op, char sep, uint64_t *w, const char **file)
{
	const char *c = strchr(op->val, sep);
	char *end;
	*w = c ? strtoull(op->val, &end, 10) : 0;
	if (!c || end != c || *w == 0)
		return cli_bad(op, "option '%s' takes W%cFILE with a weight W >= 1, not '%s'", op->opt,
			       sep, op->val);
	*file = c + 1;
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	enum spgo_format fmt = SPGO_FMT_UNKNOWN;
	struct spgo_write_opts o = {0};
	int flat = 0, nest = 0;
	const char *format = NULL; /* as given, for unsymbolized outputs */
	double trim = 0;
	struct inputs in = {0};
	uint64_t w = 0;
	const char *file = NULL;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP:
			inputs_free(&in);
			return 0;
		case CLI_ERR: goto bad;
		case 'o': out = op.val; break;
		case O_WEIGHT:
		case O_WEIGHTED_INPUT:
			if (weighted(&op, k == O_WEIGHT ? ':' : ',', &w, &file) < 0)
				goto bad;
			inputs_add(&in, file, w);
			break;
		case O_INPUT_FILES:
			if (inputs_list(&in, op.val) < 0) {
				inputs_free(&in);
				return cli_fail();
			}
			break;
		case O_FLATTEN: flat = 1; break;
		case O_NEST: nest = 1; break;
		case O_TRIM:
			if (cli_double(&op, -1e-12, 0.999, &trim) < 0)
				goto bad;
			break;
		case CLI_KEY_FORMAT:
			format = op.val;
			if (strcmp(op.val, "text") &&
			    !spgo_unsym_format_parse(op.val, &(enum spgo_unsym_format){0}))
				break; /* bin, profgen: unsymbolized only (text is both) */
			if (cli_write_take(&op, k, &fmt, &o) < 0)
				goto bad;
			break;
		case CLI_ARG: inputs_add(&in, op.val, 1); break;
		default:
			if (cli_write_take(&op, k, &fmt, &o) < 0)
				goto bad;
		}
	}
	if (!out || in.n == 0) {
		cli_bad(&op, "%s", !out ? "no output: -o OUT" : "no input profiles");
		goto bad;
	}
	if (spgo_out_reserve(out) < 0) { /* before the work: fails now if it cannot be written */
		inputs_free(&in);
		return cli_fail();
	}
	if (spgo_unsym_sniff_file(in.files[0]) != SPGO_UNSYM_UNKNOWN) {
		int rc = cli_merge_unsym(out, in.files, in.weights, in.n, format, trim, 0);
		inputs_free(&in);
		return rc;
	}
	if (trim > 0 || (format && fmt == SPGO_FMT_UNKNOWN)) {
		cli_bad(&op, "%s", trim > 0 ? "--trim-cold is for unsymbolized profiles"
					    : "formats bin and profgen are for unsymbolized profiles");
		goto bad;
	}
	/* Each input is read straight into the accumulated profile, its counts
	 * times its weight; with --flatten, CS inputs are flattened first. */
	struct spgo_profile *acc = spgo_profile_new();
	int kind = -1; /* 1: context-sensitive, 0: plain, -1: not yet known */
	enum spgo_format first = SPGO_FMT_UNKNOWN;
	enum spgo_format *fmts = xcalloc((size_t)in.n + 1, sizeof *fmts);
	for (int i = 0; i < in.n; i++) {
		enum spgo_format f;
		size_t before = acc->top.n;
		int rc;
		if (flat) {
			struct spgo_profile *p = spgo_profile_read(in.files[i], &f);
			rc = p ? 0 : -1;
			if (p) {
				if (p->flags & SPGO_PROF_CS)
					p = flatten(p);
				spgo_profile_merge(acc, p, in.weights[i]);
				spgo_profile_free(p);
			}
		} else {
			rc = spgo_profile_read_into(acc, in.files[i], in.weights[i], &f);
		}
		if (rc < 0) {
			spgo_profile_free(acc);
			inputs_free(&in);
			free(fmts);
			return cli_fail();
		}
		fmts[i] = f;
		if (i > 0 && (f == SPGO_FMT_GCOV) != (first == SPGO_FMT_GCOV))
			spgo_warn("merging a GCC profile (gcov) with an LLVM one (%s is %s, %s is %s): "
				  "their line offsets and discriminators follow different conventions",
				  in.files[0], spgo_format_name(first), in.files[i], spgo_format_name(f));
		if (i == 0)
			first = f;
		for (size_t j = before; j < acc->top.n; j++) {
			int cs = spgo_fn(acc, acc->top.v[j])->ctx != SPGO_NONE;
			if (kind >= 0 && cs != kind) {
				fprintf(stderr, "spgo: %s: cannot merge a context-sensitive profile with a "
						"plain one (use --flatten)\n", in.files[i]);
				spgo_profile_free(acc);
				free(fmts);
				goto bad;
			}
			kind = cs;
		}
	}
	if (fmt == SPGO_FMT_UNKNOWN) /* the inputs' formats decide, not their order */
		fmt = spgo_format_merged(fmts, (size_t)in.n);
	free(fmts);
	if (kind == 0)
		acc->flags &= ~(unsigned)SPGO_PROF_CS;
	if (nest && (acc->flags & SPGO_PROF_CS)) {
		struct spgo_profile *nested = spgo_profile_cs_nest(acc);
		spgo_profile_free(acc);
		if (!nested) {
			inputs_free(&in);
			return cli_fail();
		}
		acc = nested;
	}
	/* Only the extended binary format carries the summary. */
	spgo_profile_finalize(acc, fmt == SPGO_FMT_EXTBINARY ? 0 : SPGO_FIN_NO_SUMMARY);
	int rc = spgo_profile_write(acc, out, fmt, &o);
	spgo_profile_free(acc);
	inputs_free(&in);
	return rc < 0 ? cli_fail() : 0;
bad:
	inputs_free(&in);
	return 2;
}
