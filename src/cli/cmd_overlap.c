/* spgo overlap: how similar two profiles are (llvm-profdata overlap --sample). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/profile_cli.h"

int cmd_overlap(int argc, char **argv)
{
	const char *a = NULL, *b = NULL, *v, *cs_truth = NULL;
	long top = 0;
	int cs_view = SPGO_CSO_CONTEXT, cs_inline = SPGO_CSO_INLINE_MARKED;
	for (int i = 1; i < argc; i++) {
		int r;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: spgo overlap BASE TEST [--top N]\n"
			       "Prints the program-level overlap measures of llvm-profdata overlap\n"
			       "--sample: similarity, sample overlap, function, hot-function and\n"
			       "hot-block overlap (hot: each profile's 99%% summary threshold);\n"
			       "--top N adds the function-level figures of the N functions with\n"
			       "the most samples in either profile.\n"
			       "\n"
			       "usage: spgo overlap --cs-truth REF PROFILE [--view context|inline]\n"
			       "                    [--inline marked|all|none] [--top N]\n"
			       "Block overlap of PROFILE against REF (spgo gen --ground-truth-cs),\n"
			       "context by context (the CSSPGO paper's metric), weighted by samples;\n"
			       "--view inline: the post-inline view (each inlined copy of PROFILE's\n"
			       "nested form against the truth of that copy; inlinees count as inlined\n"
			       "when marked ShouldBeInlined, or --inline all / none).\n");
			return 0;
		}
		if ((r = cli_opt(argc, argv, &i, "--cs-truth", &v)) != 0) {
			if (r < 0)
				return 2;
			cs_truth = v;
			continue;
		}
		if ((r = cli_opt(argc, argv, &i, "--view", &v)) != 0) {
			if (r < 0 || (strcmp(v, "context") && strcmp(v, "inline"))) {
				fprintf(stderr, "spgo: overlap: --view takes context or inline\n");
				return 2;
			}
			cs_view = strcmp(v, "inline") ? SPGO_CSO_CONTEXT : SPGO_CSO_INLINE;
			continue;
		}
		if ((r = cli_opt(argc, argv, &i, "--inline", &v)) != 0) {
			if (r < 0 || (strcmp(v, "marked") && strcmp(v, "all") && strcmp(v, "none"))) {
				fprintf(stderr, "spgo: overlap: --inline takes marked, all or none\n");
				return 2;
			}
			cs_inline = !strcmp(v, "all") ? SPGO_CSO_INLINE_ALL
				  : !strcmp(v, "none") ? SPGO_CSO_INLINE_NONE : SPGO_CSO_INLINE_MARKED;
			continue;
		}
		if ((r = cli_opt(argc, argv, &i, "--top", &v)) != 0) {
			char *end;
			if (r < 0)
				return 2;
			top = strtol(v, &end, 10);
			if (*end || top < 0) {
				fprintf(stderr, "spgo: overlap: --top takes a number\n");
				return 2;
			}
			continue;
		}
		if (!a)
			a = argv[i];
		else if (!b)
			b = argv[i];
		else
			a = NULL;
	}
	if (cs_truth && a && !b)
		b = a, a = cs_truth;
	else if (cs_truth)
		a = NULL;
	if (!a || !b) {
		fprintf(stderr, "usage: spgo overlap BASE TEST | --cs-truth REF PROFILE\n");
		return 2;
	}
	if (cs_truth) {
		struct spgo_profile *ref = spgo_profile_read(a, NULL), *p = NULL;
		struct spgo_cs_overlap co;
		if (!ref || !(p = spgo_profile_read(b, NULL)) ||
		    spgo_cs_overlap(ref, p, cs_view, cs_inline, &co) < 0) {
			spgo_profile_free(ref);
			spgo_profile_free(p);
			return cli_fail();
		}
		spgo_cs_overlap_print(&co, stdout, top ? top : -1);
		spgo_cs_overlap_free(&co);
		spgo_profile_free(ref);
		spgo_profile_free(p);
		return 0;
	}
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
	printf("    total samples in base profile: %llu\n", (unsigned long long)o.base_sample);
	printf("    total samples in test profile: %llu\n", (unsigned long long)o.test_sample);
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
	if (top > 0 && o.nfuncs) {
		/* the hottest functions of either profile first */
		size_t n = o.nfuncs, k = (size_t)top < n ? (size_t)top : n;
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
			snprintf(w[3], 16, "%.2f%%", f->union_sample ? 100.0 * (double)f->overlap_sample /
									  (double)f->union_sample : 0.0);
			snprintf(w[4], 16, "%.2f%%", f->base_sample ? 100.0 * (double)f->base_unique /
									 (double)f->base_sample : 0.0);
			char tu[16];
			snprintf(tu, 16, "%.2f%%", f->test_sample ? 100.0 * (double)f->test_unique /
								   (double)f->test_sample : 0.0);
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
	return 0;
}
