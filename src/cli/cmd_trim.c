/*
 * spgo trim: drop cold functions, or for CS profiles drop or merge cold
 * contexts into their leaf function's base profile.  A function or context
 * is cold when its total samples are below the count threshold of the
 * given hot percentile in the profile summary (e.g. 99.9: the smallest
 * count among the hottest counts holding 99.9% of all samples).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo trim IN -o OUT [--percentile P] [--merge-cold] [options]\n"
		    "Drops functions (and CS contexts) whose total samples are below the\n"
		    "count threshold of percentile P of the summary (default 99.9).  With\n"
		    "--merge-cold, cold CS contexts are merged into their base context\n"
		    "[leaf] instead of dropped.\n%s",
		cli_write_help);
}

enum { O_PERCENTILE = CLI_LONG, O_MERGE_COLD };
static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("percentile", O_PERCENTILE),
	CLI_FLAG("merge-cold", O_MERGE_COLD),
	CLI_WRITE_OPTS,
	{0},
};
static const struct cli_cmd cmd = {.name = "trim", .usage = usage, .opts = opts};

int cmd_trim(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	double pct = 99.9;
	int merge_cold = 0;
	enum spgo_format fmt = SPGO_FMT_UNKNOWN, infmt;
	struct spgo_write_opts o = {0};
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case 'o': out = op.val; break;
		case O_PERCENTILE:
			if (cli_double(&op, 0, 99.9999, &pct) < 0)
				return 2;
			break;
		case O_MERGE_COLD: merge_cold = 1; break;
		case CLI_ARG:
			if (in)
				return cli_usage(&op, "one input only ('%s' and '%s')", in, op.val);
			in = op.val;
			break;
		default:
			if (cli_write_take(&op, k, &fmt, &o) < 0)
				return 2;
		}
	}
	if (!in || !out)
		return cli_usage(&op, "%s", !in ? "no input profile" : "no output: -o OUT");
	if (spgo_out_reserve(out) < 0) /* before the work: fails now if it cannot be written */
		return cli_fail();
	struct spgo_profile *p = spgo_profile_read(in, &infmt);
	if (!p)
		return cli_fail();
	if (fmt == SPGO_FMT_UNKNOWN)
		fmt = infmt;
	/* The threshold: min count of the first cutoff at or above P. */
	uint32_t cut = (uint32_t)(pct * 10000 + 0.5);
	uint64_t thr = spgo_summary_min_count(&p->summary, cut, 0);
	struct spgo_profile *q = spgo_profile_new();
	q->flags = p->flags;
	uint32_t *namemap = xmalloc((p->names.n + 1) * sizeof *namemap);
	memset(namemap, 0xff, (p->names.n + 1) * sizeof *namemap);
	size_t dropped = 0, merged = 0;
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t f = p->top.v[i];
		const struct spgo_func *fn = spgo_fn(p, f);
		uint32_t d;
		if (fn->total >= thr) {
			d = fn->ctx != SPGO_NONE
				    ? spgo_func_get_ctx(q, spgo_func_key(p, f), strlen(spgo_func_key(p, f)))
				    : spgo_func_get(q, spgo_name(p, fn->name));
		} else if (merge_cold && fn->ctx != SPGO_NONE) {
			const char *leaf = spgo_name(p, fn->name);
			d = spgo_func_get_ctx(q, leaf, strlen(leaf));
			merged++;
		} else {
			dropped++;
			continue;
		}
		spgo_func_merge(q, d, p, f, 1, namemap);
	}
	free(namemap);
	fprintf(stderr, "spgo: trim: threshold %llu samples; %zu profiles out, %zu cold contexts "
		"merged, %zu dropped\n", (unsigned long long)thr, q->top.n, merged, dropped);
	spgo_profile_free(p);
	spgo_profile_finalize(q, 0);
	int rc = spgo_profile_write(q, out, fmt, &o);
	spgo_profile_free(q);
	return rc < 0 ? cli_fail() : 0;
}
