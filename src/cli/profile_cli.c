/* Option handling shared by the profile subcommands: see profile_cli.h. */
#include "cli/profile_cli.h"

#include <stdio.h>
#include <string.h>

const char cli_write_help[] =
	"output options:\n"
	"  --format text|extbinary|gcov   output format (default: that of the first input)\n"
	"  --target-llvm 14|19            extended binary for this LLVM's readers (default: both)\n"
	"  --compress                     zlib-compress extended binary sections\n"
	"  --md5                          store names as MD5 GUIDs (extended binary)\n"
	"  --partial                      mark the profile partial (extended binary)\n"
	"  --gcov-version 2|1             2: GCC 12 -fauto-profile (default); 1: autofdo tools (dump_gcov)\n";

int cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != 0)
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "spgo: option %s needs a value\n", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int cli_write_opt(int argc, char **argv, int *i, enum spgo_format *fmt,
		  struct spgo_write_opts *o)
{
	const char *v;
	int r;
	if ((r = cli_opt(argc, argv, i, "--format", &v)) != 0) {
		if (r < 0)
			return -1;
		if (spgo_format_parse(v, fmt) < 0) {
			fprintf(stderr, "spgo: %s\n", spgo_errmsg());
			return -1;
		}
		return 1;
	}
	if ((r = cli_opt(argc, argv, i, "--target-llvm", &v)) != 0) {
		if (r < 0)
			return -1;
		if (strcmp(v, "14") && strcmp(v, "19")) {
			fprintf(stderr, "spgo: --target-llvm takes 14 or 19\n");
			return -1;
		}
		o->target_llvm = v[0] == '1' && v[1] == '4' ? 14 : 19;
		return 1;
	}
	if ((r = cli_opt(argc, argv, i, "--gcov-version", &v)) != 0) {
		if (r < 0)
			return -1;
		if (strcmp(v, "1") && strcmp(v, "2")) {
			fprintf(stderr, "spgo: --gcov-version takes 1 or 2\n");
			return -1;
		}
		o->gcov_version = v[0] - '0';
		if (*fmt == SPGO_FMT_UNKNOWN)
			*fmt = SPGO_FMT_GCOV;
		return 1;
	}
	if (!strcmp(argv[*i], "--md5"))
		return o->md5 = 1;
	if (!strcmp(argv[*i], "--compress"))
		return o->compress = 1;
	if (!strcmp(argv[*i], "--partial"))
		return o->partial = 1;
	return 0;
}
