/* spgo show: a readable view of a profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo show PROFILE [--function NAME] [--top N] [--summary]\n"
		    "Prints the kind of profile, its totals and its N hottest functions\n"
		    "(default 20; 0 = all); --function prints one function's line offsets,\n"
		    "counts, call targets and inlinees; --summary the profile summary.\n"
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

static void show_func(struct spgo_profile *p, uint32_t f, int ind)
{
	const struct spgo_func *fn = spgo_fn(p, f);
	uint32_t *bb = NULL, *tb = NULL, *cb = NULL;
	size_t bc = 0, tc = 0, cc = 0;
	if (ind == 0)
		printf("function %s: total %llu, head %llu", spgo_func_key(p, f),
		       (unsigned long long)fn->total, (unsigned long long)fn->head);
	else
		printf("%*sinlined %s at %u.%u: total %llu", ind, "", spgo_name(p, fn->name),
		       fn->line, fn->disc, (unsigned long long)fn->total);
	if (p->flags & SPGO_PROF_PROBE)
		printf(", checksum %llu", (unsigned long long)fn->checksum);
	if (fn->attrs)
		printf(", attributes %u", fn->attrs);
	printf("\n");
	size_t nb = spgo_func_bodies(p, f, &bb, &bc);
	for (size_t i = 0; i < nb; i++) {
		const struct spgo_body *b = &p->bodies.v[bb[i]];
		printf("%*s%s %u.%u: %llu", ind + 2, "", (p->flags & SPGO_PROF_PROBE) ? "probe" : "line",
		       b->line, b->disc, (unsigned long long)b->count);
		size_t nt = spgo_body_targets(p, bb[i], &tb, &tc);
		for (size_t j = 0; j < nt; j++)
			printf("%s%s:%llu", j ? " " : "  calls ", spgo_name(p, p->targets.v[tb[j]].name),
			       (unsigned long long)p->targets.v[tb[j]].count);
		printf("\n");
	}
	size_t nc = spgo_func_children(p, f, &cb, &cc);
	for (size_t i = 0; i < nc; i++)
		show_func(p, cb[i], ind + 2);
	free(bb);
	free(tb);
	free(cb);
}

enum { O_FUNCTION = CLI_LONG, O_TOP, O_SUMMARY };
static const struct cli_opt opts[] = {
	CLI_VAL("function", O_FUNCTION),
	CLI_VAL("top", O_TOP),
	CLI_FLAG("summary", O_SUMMARY),
	CLI_FLAG("sample", CLI_IGNORE), /* llvm-profdata show --sample */
	{0},
};
static const struct cli_cmd cmd = {.name = "show", .usage = usage, .opts = opts};

int cmd_show(int argc, char **argv)
{
	const char *in = NULL, *fname = NULL;
	uint64_t top = 20;
	int summary = 0;
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
		case CLI_ARG:
			if (in)
				return cli_usage(&op, "one profile only ('%s' and '%s')", in, op.val);
			in = op.val;
			break;
		}
	}
	if (!in)
		return cli_usage(&op, "no profile to show");
	enum spgo_format fmt;
	struct spgo_profile *p = spgo_profile_read(in, &fmt);
	if (!p)
		return cli_fail();
	int rc = 0;
	if (fname) {
		uint32_t f = spgo_func_find(p, fname);
		if (f == SPGO_NONE) {
			fprintf(stderr, "spgo: %s: no function '%s' in the profile\n", in, fname);
			rc = 1;
		} else {
			show_func(p, f, 0);
		}
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
