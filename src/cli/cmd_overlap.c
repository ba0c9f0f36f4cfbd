/* spgo overlap: how similar two profiles are (llvm-profdata overlap --sample). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo overlap BASE TEST [--top N]\n"
		    "Prints the program-level overlap measures of llvm-profdata overlap\n"
		    "--sample: similarity, sample overlap, function, hot-function and\n"
		    "hot-block overlap (hot: each profile's 99%% summary threshold);\n"
		    "--top N adds the function-level figures of the N functions with\n"
		    "the most samples in either profile; --function STR (llvm-profdata's)\n"
		    "those of the functions whose name contains STR (all of them, hottest\n"
		    "first, unless --top).  Then spgo's own figures: the share of each\n"
		    "profile's samples where the other has zero (per function with --top\n"
		    "or --function).  --sample is accepted.\n"
		    "\n"
		    "usage: spgo overlap --cs-truth REF PROFILE [--view context|inline]\n"
		    "                    [--inline marked|all|none] [--top N]\n"
		    "Block overlap of PROFILE against REF (spgo gen --ground-truth-cs),\n"
		    "context by context (the CSSPGO paper's metric), weighted by samples;\n"
		    "--view inline: the post-inline view (each inlined copy of PROFILE's\n"
		    "nested form against the truth of that copy; inlinees count as inlined\n"
		    "when marked ShouldBeInlined, or --inline all / none).\n");
}

enum { O_TOP = CLI_LONG, O_CS_TRUTH, O_VIEW, O_INLINE, O_FUNCTION };
static const struct cli_opt opts[] = {
	CLI_VAL("top", O_TOP),
	CLI_VAL("cs-truth", O_CS_TRUTH),
	CLI_VAL("view", O_VIEW),
	CLI_VAL("inline", O_INLINE),
	CLI_VAL("function", O_FUNCTION),
	CLI_FLAG("sample", CLI_IGNORE), /* llvm-profdata overlap --sample */
	{0},
};
static const struct cli_cmd cmd = {.name = "overlap", .usage = usage, .opts = opts};

int cmd_overlap(int argc, char **argv)
{
	const char *a = NULL, *b = NULL, *cs_truth = NULL, *fname = NULL;
	uint64_t top = 0;
	int cs_view = SPGO_CSO_CONTEXT, cs_inline = SPGO_CSO_INLINE_MARKED;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case O_TOP:
			if (cli_u64(&op, 0, UINT32_MAX, &top) < 0)
				return 2;
			break;
		case O_CS_TRUTH: cs_truth = op.val; break;
		case O_FUNCTION: fname = op.val; break;
		case O_VIEW: /* context = SPGO_CSO_CONTEXT, inline = SPGO_CSO_INLINE */
			if (cli_choice(&op, "context\0inline\0", &cs_view) < 0)
				return 2;
			break;
		case O_INLINE: /* marked, all, none: SPGO_CSO_INLINE_* in that order */
			if (cli_choice(&op, "marked\0all\0none\0", &cs_inline) < 0)
				return 2;
			break;
		case CLI_ARG:
			if (b)
				return cli_usage(&op, "two profiles only (BASE TEST), not '%s' too", op.val);
			*(a ? &b : &a) = op.val;
		}
	}
	if (cs_truth) {
		if (!a || b)
			return cli_usage(&op, "--cs-truth REF takes one profile: PROFILE");
		struct spgo_profile *ref = spgo_profile_read(cs_truth, NULL), *p = NULL;
		struct spgo_cs_overlap co;
		if (!ref || !(p = spgo_profile_read(a, NULL)) ||
		    spgo_cs_overlap(ref, p, cs_view, cs_inline, &co) < 0) {
			spgo_profile_free(ref);
			spgo_profile_free(p);
			return cli_fail();
		}
		spgo_cs_overlap_print(&co, stdout, top ? (long)top : -1);
		spgo_cs_overlap_free(&co);
		spgo_profile_free(ref);
		spgo_profile_free(p);
		return cli_stdout_done(0);
	}
	if (!a || !b)
		return cli_usage(&op, "two profiles needed: BASE TEST");
	struct spgo_profile *pa = spgo_profile_read(a, NULL), *pb = NULL;
	if (!pa || !(pb = spgo_profile_read(b, NULL))) {
		spgo_profile_free(pa);
		return cli_fail();
	}
	struct spgo_overlap o;
	int rc = spgo_profile_overlap(pa, pb, &o);
	if (rc < 0) {
		spgo_profile_free(pa);
		spgo_profile_free(pb);
		return cli_fail();
	}
	size_t kept = 0;
	if (fname) { /* only the functions whose name contains fname */
		kept = spgo_overlap_keep_named(&o, pa, pb, fname);
		if (!top)
			top = kept;
	}
	spgo_overlap_print(&o, pa, pb, a, b, (size_t)top, stdout);
	if (fname && !kept) {
		fprintf(stderr, "spgo: overlap: no function whose name contains '%s' in either profile\n",
			fname);
		rc = 1;
	}
	spgo_overlap_free(&o);
	spgo_profile_free(pa);
	spgo_profile_free(pb);
	return cli_stdout_done(rc);
}
