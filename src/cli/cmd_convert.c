/* spgo convert: read a profile of any format, write it in another. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/profile_cli.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo convert IN -o OUT [--format text|extbinary|gcov] [options]\n"
		    "Converts a sample profile; the input format is detected by content.\n%s",
		cli_write_help);
}

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *v;
	enum spgo_format fmt = SPGO_FMT_UNKNOWN, infmt;
	struct spgo_write_opts o = {0};
	for (int i = 1; i < argc; i++) {
		int r;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((r = cli_opt(argc, argv, &i, "-o", &v)) != 0 ||
		    (r = cli_opt(argc, argv, &i, "--output", &v)) != 0) {
			if (r < 0)
				return 2;
			out = v;
			continue;
		}
		if ((r = cli_write_opt(argc, argv, &i, &fmt, &o)) != 0) {
			if (r < 0)
				return 2;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "spgo: convert: unknown option '%s'\n", argv[i]);
			return 2;
		}
		if (in) {
			fprintf(stderr, "spgo: convert: one input only\n");
			return 2;
		}
		in = argv[i];
	}
	if (!in || !out) {
		usage(stderr);
		return 2;
	}
	struct spgo_profile *p = spgo_profile_new();
	if (spgo_profile_read_into(p, in, 1, &infmt) < 0) {
		spgo_profile_free(p);
		return cli_fail();
	}
	if (fmt == SPGO_FMT_UNKNOWN)
		fmt = infmt;
	/* Only the extended binary format carries the summary. */
	spgo_profile_finalize(p, fmt == SPGO_FMT_EXTBINARY ? 0 : SPGO_FIN_NO_SUMMARY);
	int rc = spgo_profile_write(p, out, fmt, &o);
	spgo_profile_free(p);
	return rc < 0 ? cli_fail() : 0;
}
