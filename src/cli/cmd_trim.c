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
#include "cli/profile_cli.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo trim IN -o OUT [--percentile P] [--merge-cold] [options]\n"
		    "Drops functions (and CS contexts) whose total samples are below the\n"
		    "count threshold of percentile P of the summary (default 99.9).  With\n"
		    "--merge-cold, cold CS contexts are merged into their base context\n"
		    "[leaf] instead of dropped.\n%s",
		cli_write_help);
}

int cmd_trim(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *v;
	double pct = 99.9;
	int merge_cold = 0;
	enum spgo_format fmt = SPGO_FMT_UNKNOWN, infmt;
	struct spgo_write_opts o = {0};
	for (int i = 1; i < argc; i++) {
		int r;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((r = cli_opt(argc, argv, &i, "-o", &v)) != 0) {
			if (r < 0)
				return 2;
			out = v;
		} else if ((r = cli_opt(argc, argv, &i, "--percentile", &v)) != 0) {
			char *end;
			if (r < 0)
				return 2;
			pct = strtod(v, &end);
			if (*end || pct <= 0 || pct > 99.9999) {
				fprintf(stderr, "spgo: trim: --percentile takes a number in (0, 99.9999]\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--merge-cold")) {
			merge_cold = 1;
		} else if ((r = cli_write_opt(argc, argv, &i, &fmt, &o)) != 0) {
			if (r < 0)
				return 2;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "spgo: trim: unknown option '%s'\n", argv[i]);
			return 2;
		} else {
			in = argv[i];
		}
	}
	if (!in || !out) {
		usage(stderr);
		return 2;
	}
	struct spgo_profile *p = spgo_profile_read(in, &infmt);
	if (!p)
		return cli_fail();
	if (fmt == SPGO_FMT_UNKNOWN)
		fmt = infmt;
	/* The threshold: min count of the first cutoff at or above P. */
	uint32_t cut = (uint32_t)(pct * 10000 + 0.5);
	uint64_t thr = 0;
	for (unsigned i = 0; i < p->summary.nentries; i++)
		if (p->summary.entries[i].cutoff >= cut) {
			thr = p->summary.entries[i].min_count;
			break;
		}
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
