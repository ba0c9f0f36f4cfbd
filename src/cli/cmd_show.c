/* spgo show: a readable view of a profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/unsym.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo show PROFILE [--top N] [--summary]\n"
		    "       spgo show PROFILE [--all-functions | --function NAME] [--topn N]\n"
		    "                 [--detailed-summary]\n"
		    "Prints the kind of profile, its totals and its N hottest functions\n"
		    "(default 20; 0 = all); --summary the profile summary.\n"
		    "The function records, as llvm-profdata show --sample prints them (its\n"
		    "options, with their meaning): --all-functions every function, --function\n"
		    "NAME one (a name or a CS context) with its line offsets, counts, call\n"
		    "targets and inlinees; then --detailed-summary the summary and --topn N\n"
		    "the hot functions (largest count >= the summary's 99%% count) and the N\n"
		    "hottest in a table.\n"
		    "An unsymbolized profile (spgo aggregate) shows its sections: binary,\n"
		    "kinds of data, sample counts, sizes (spgo merge --format text -o - F\n"
		    "prints its keys).\n"
		    "\n"
		    "total samples: the sum of the functions' total samples (inlined code\n"
		    "included), as llvm-profdata show --sample counts them.  The summary\n"
		    "(--summary) is what the compiler takes its hot and cold thresholds from:\n"
		    "every line and call-site count of the profile, inlined ones each on their\n"
		    "own, so its sum (\"counts add up to\") differs from total samples.\n"
		    "--sample (llvm-profdata's) is accepted and changes nothing.\n");
}

static void flags_line(const struct spgo_profile *p, enum spgo_format fmt)
{
	printf("format: %s", spgo_format_name(fmt));
	if (p->flags & SPGO_PROF_CS)
		printf(", context-sensitive");
	if (p->flags & SPGO_PROF_PROBE)
		printf(", probe-based");
	if (p->flags & SPGO_PROF_PREINLINED)
		printf(", preinlined");
	if (p->flags & SPGO_PROF_MD5)
		printf(", MD5 names");
	if (p->flags & SPGO_PROF_FS)
		printf(", FS discriminators");
	if (p->flags & SPGO_PROF_PARTIAL)
		printf(", partial");
	printf("\n");
}

enum { O_FUNCTION = CLI_LONG, O_TOP, O_SUMMARY, O_ALL, O_TOPN, O_DETAILED };
static const struct cli_opt opts[] = {
	CLI_VAL("function", O_FUNCTION),
	CLI_VAL("top", O_TOP),
	CLI_FLAG("summary", O_SUMMARY),
	CLI_FLAG("all-functions", O_ALL),
	CLI_VAL("topn", O_TOPN),
	CLI_FLAG("detailed-summary", O_DETAILED),
	CLI_FLAG("sample", CLI_IGNORE), /* llvm-profdata show --sample */
	{0},
};
static const struct cli_cmd cmd = {.name = "show", .usage = usage, .opts = opts};

/* An unsymbolized profile: its sections; it has no functions to print. */
static int show_unsym(const struct cli_parser *op, const char *in, int functions)
{
	if (functions)
		return cli_usage(op, "%s is an unsymbolized profile: it has addresses, not functions; "
				 "spgo gen --binary BIN --unsymbolized %s makes the profile to show", in, in);
	struct spgo_unsym *u = spgo_unsym_new();
	if (spgo_unsym_read(u, in, 1) < 0) {
		spgo_unsym_free(u);
		return cli_fail();
	}
	spgo_unsym_print_summary(u, stdout);
	spgo_unsym_free(u);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	const char *in = NULL, *fname = NULL;
	uint64_t top = 20, topn = 0;
	int summary = 0, all = 0, detailed = 0;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case O_FUNCTION: fname = op.val; break;
		case O_TOP:
			if (cli_u64(&op, 0, UINT32_MAX, &top) < 0)
				return 2;
			break;
		case O_SUMMARY: summary = 1; break;
		case O_ALL: all = 1; break;
		case O_DETAILED: detailed = 1; break;
		case O_TOPN:
			if (cli_u64(&op, 1, UINT32_MAX, &topn) < 0)
				return 2;
			break;
		case CLI_ARG:
			if (in)
				return cli_usage(&op, "one profile only ('%s' and '%s')", in, op.val);
			in = op.val;
			break;
		}
	}
	if (!in)
		return cli_usage(&op, "no profile to show");
	if (spgo_unsym_sniff_file(in) != SPGO_UNSYM_UNKNOWN)
		return show_unsym(&op, in, fname || all || topn || detailed);
	enum spgo_format fmt;
	struct spgo_profile *p = spgo_profile_read(in, &fmt);
	if (!p && spgo_unsym_sniff_file(in) != SPGO_UNSYM_UNKNOWN) {
		fprintf(stderr, "spgo: %s: an unsymbolized profile (addresses, not functions: spgo "
				"aggregate's or llvm-profgen's), not a sample profile: symbolize it "
				"first with `spgo gen --binary BIN --unsymbolized %s -o OUT`, then show "
				"OUT\n", in, in);
		return 1;
	}
	if (!p)
		return cli_fail();
	int rc = 0;
	if (fname || all || topn || detailed) { /* llvm-profdata show --sample's output */
		uint32_t f = fname ? spgo_func_find(p, fname) : SPGO_NONE;
		if (fname && f == SPGO_NONE) {
			fprintf(stderr, "spgo: %s: no function '%s' in the profile\n", in, fname);
			rc = 1;
		} else if (fname) {
			spgo_profile_dump_func(p, f, stdout);
		} else {
			spgo_profile_dump(p, stdout);
		}
		if (rc == 0 && detailed)
			spgo_profile_dump_summary(p, stdout);
		if (rc == 0 && topn)
			spgo_profile_dump_hot(p, (size_t)topn, stdout);
		spgo_profile_free(p);
		return cli_stdout_done(rc);
	}
	uint64_t total = 0;
	for (size_t i = 0; i < p->top.n; i++)
		total += spgo_fn(p, p->top.v[i])->total;
	flags_line(p, fmt);
	printf("functions: %zu\ntotal samples: %llu\n", p->top.n, (unsigned long long)total);
	printf("max function head samples: %llu\nmax count: %llu\n",
	       (unsigned long long)p->summary.max_func_count, (unsigned long long)p->summary.max_count);
	if (summary) {
		const struct spgo_summary *s = &p->summary;
		/* not a second "total": see the usage */
		printf("summary: %llu counts (lines and call sites) add up to %llu, %llu functions\n",
		       (unsigned long long)s->num_counts, (unsigned long long)s->total,
		       (unsigned long long)s->num_funcs);
		for (unsigned i = 0; i < s->nentries; i++)
			printf("  %8.4f%% of the samples: %llu counts >= %llu\n",
			       s->entries[i].cutoff / 1e4, (unsigned long long)s->entries[i].num_counts,
			       (unsigned long long)s->entries[i].min_count);
	}
	uint32_t *order = spgo_profile_sorted(p);
	size_t n = top == 0 || top > p->top.n ? p->top.n : (size_t)top;
	if (n)
		printf("%-14s %-12s %s\n", "total", "head", "function");
	for (size_t i = 0; i < n; i++) {
		const struct spgo_func *f = spgo_fn(p, order[i]);
		printf("%-14llu %-12llu %s\n", (unsigned long long)f->total, (unsigned long long)f->head,
		       spgo_func_key(p, order[i]));
	}
	free(order);
	spgo_profile_free(p);
	return cli_stdout_done(0);
}
