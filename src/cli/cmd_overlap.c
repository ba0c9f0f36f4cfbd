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
		    "first, unless --top).  --sample is accepted.\n"
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
	printf("Profile overlap information for base_profile: %s and test_profile: %s\n", a, b);
	printf("Program level:\n");
	printf("  Whole program profile similarity: %.3f%%\n", o.similarity * 100);
	printf("  Whole program sample overlap: %.3f%%\n", o.sample_overlap * 100);
	printf("    percentage of samples unique in base profile: %.3f%%\n", o.base_unique * 100);
	printf("    percentage of samples unique in test profile: %.3f%%\n", o.test_unique * 100);
	printf("    total samples in base profile: %llu%s\n", (unsigned long long)o.base_sample,
	       o.base_sample == UINT64_MAX ? " (or more: the sum saturates)" : "");
	printf("    total samples in test profile: %llu%s\n", (unsigned long long)o.test_sample,
	       o.test_sample == UINT64_MAX ? " (or more: the sum saturates)" : "");
	printf("  Function overlap: %.3f%%\n", o.func_overlap * 100);
	printf("    overlap functions: %llu\n", (unsigned long long)o.overlap_funcs);
	printf("    functions unique in base profile: %llu\n", (unsigned long long)o.base_unique_funcs);
	printf("    functions unique in test profile: %llu\n", (unsigned long long)o.test_unique_funcs);
	printf("  Hot-function overlap: %.3f%%\n",
	       o.hot_func_union ? (double)o.hot_func_overlap / (double)o.hot_func_union * 100 : 0.0);
	printf("    overlap hot functions: %llu\n", (unsigned long long)o.hot_func_overlap);
	printf("    hot functions unique in base profile: %llu\n",
	       (unsigned long long)(o.hot_func_base - o.hot_func_overlap));
	printf("    hot functions unique in test profile: %llu\n",
	       (unsigned long long)(o.hot_func_test - o.hot_func_overlap));
	printf("  Hot-block overlap: %.3f%%\n",
	       o.hot_block_union ? (double)o.hot_block_overlap / (double)o.hot_block_union * 100 : 0.0);
	printf("    overlap hot blocks: %llu\n", (unsigned long long)o.hot_block_overlap);
	printf("    hot blocks unique in base profile: %llu\n",
	       (unsigned long long)(o.hot_block_base - o.hot_block_overlap));
	printf("    hot blocks unique in test profile: %llu\n",
	       (unsigned long long)(o.hot_block_test - o.hot_block_overlap));
	if (fname) { /* only the functions whose name contains fname */
		size_t kept = 0;
		for (size_t i = 0; i < o.nfuncs; i++) {
			const struct spgo_overlap_func *f = &o.funcs[i];
			const char *name = f->test_func != SPGO_NONE ? spgo_func_key(pb, f->test_func)
								    : spgo_func_key(pa, f->base_func);
			if (strstr(name, fname))
				o.funcs[kept++] = *f;
		}
		o.nfuncs = kept;
		if (!top)
			top = kept;
		if (!kept) {
			fprintf(stderr, "spgo: overlap: no function whose name contains '%s' in either profile\n",
				fname);
			rc = 1;
		}
	}
	if (top > 0 && o.nfuncs) {
		/* the hottest functions of either profile first */
		size_t n = o.nfuncs, k = top < n ? (size_t)top : n;
		for (size_t i = 0; i < k; i++) { /* partial selection sort: k is small */
			size_t best = i;
			for (size_t j = i + 1; j < n; j++) {
				double wj = o.funcs[j].base_weight + o.funcs[j].test_weight;
				double wb = o.funcs[best].base_weight + o.funcs[best].test_weight;
				if (wj > wb)
					best = j;
			}
			struct spgo_overlap_func t = o.funcs[i];
			o.funcs[i] = o.funcs[best];
			o.funcs[best] = t;
		}
		printf("Function-level details:\n");
		printf("%-12s %-12s %-11s %-9s %-12s %-12s %-13s %-13s %s\n", "Base weight",
		       "Test weight", "Similarity", "Overlap", "Base unique", "Test unique",
		       "Base samples", "Test samples", "Function name");
		for (size_t i = 0; i < k; i++) {
			const struct spgo_overlap_func *f = &o.funcs[i];
			char w[5][16];
			snprintf(w[0], 16, "%.2f%%", f->base_weight * 100);
			snprintf(w[1], 16, "%.2f%%", f->test_weight * 100);
			snprintf(w[2], 16, "%.2f%%", f->similarity * 100);
			snprintf(w[3], 16, "%.2f%%", 100 * f->overlap_frac);
			snprintf(w[4], 16, "%.2f%%", 100 * f->base_unique_frac);
			char tu[16];
			snprintf(tu, 16, "%.2f%%", 100 * f->test_unique_frac);
			const char *name = f->test_func != SPGO_NONE ? spgo_func_key(pb, f->test_func)
								    : spgo_func_key(pa, f->base_func);
			printf("%-12s %-12s %-11s %-9s %-12s %-12s %-13llu %-13llu %s%s\n", w[0], w[1],
			       w[2], w[3], w[4], tu, (unsigned long long)f->base_sample,
			       (unsigned long long)f->test_sample, name,
			       f->base_func == SPGO_NONE ? " (test only)"
			       : f->test_func == SPGO_NONE ? " (base only)" : "");
		}
	}
	spgo_overlap_free(&o);
	spgo_profile_free(pa);
	spgo_profile_free(pb);
	return cli_stdout_done(rc);
}
