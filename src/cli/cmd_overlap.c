/* spgo overlap: how similar two profiles are (llvm-profdata overlap --sample). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/profile_cli.h"

int cmd_overlap(int argc, char **argv)
{
	const char *a = NULL, *b = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: spgo overlap BASE TEST\n"
			       "Prints the program-level overlap measures of llvm-profdata overlap\n"
			       "--sample: similarity, sample overlap, function, hot-function and\n"
			       "hot-block overlap (hot: each profile's 99%% summary threshold).\n");
			return 0;
		}
		if (!a)
			a = argv[i];
		else if (!b)
			b = argv[i];
		else
			a = NULL;
	}
	if (!a || !b) {
		fprintf(stderr, "usage: spgo overlap BASE TEST\n");
		return 2;
	}
	struct spgo_profile *pa = spgo_profile_read(a, NULL), *pb = NULL;
	if (!pa || !(pb = spgo_profile_read(b, NULL))) {
		spgo_profile_free(pa);
		return cli_fail();
	}
	struct spgo_overlap o;
	int rc = spgo_profile_overlap(pa, pb, &o);
	spgo_profile_free(pa);
	spgo_profile_free(pb);
	if (rc < 0)
		return cli_fail();
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
	return 0;
}
