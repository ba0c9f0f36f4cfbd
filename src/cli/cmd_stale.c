/*
 * spgo stale: how much of a profile the compiler will still find in a new
 * build, and why the rest is lost (spgo/stale.h).  The last line is the one
 * to gate a release on; the exit status says the same.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "spgo/stale.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo stale --profile P --binary NEW [--old-binary OLD]\n"
		    "                  [--threshold PCT] [--top N]\n"
		    "Matches profile P (line-based AutoFDO or probe-based CSSPGO) against the\n"
		    "build NEW: per function and in total, the share of samples whose\n"
		    "function is still there, whose CFG checksum (probe profiles) or line\n"
		    "offsets (line profiles) still match, whose call sites are still there;\n"
		    "functions renamed, gone, inlined differently; what clang will drop.\n"
		    "With --old-binary (the build P was collected on): P must match it, and\n"
		    "the functions whose code changed from OLD to NEW are listed.\n"
		    "  --threshold PCT   fresh when at least PCT%% of samples match (default 90)\n"
		    "  --top N           list the N hottest functions and the N hottest stale\n"
		    "                    ones (default 20; 0: all)\n"
		    "The last line: \"matched: X%% of samples; fresh\" (or stale, or no match).\n"
		    "Exit status: 0 fresh, 1 stale or no match (or an error), 2 usage error.\n");
}

enum { O_PROFILE = CLI_LONG, O_BINARY, O_OLD, O_THRESHOLD, O_TOP };
static const struct cli_opt opts[] = {
	CLI_VAL("profile", O_PROFILE),
	CLI_VAL("binary", O_BINARY),
	CLI_VAL("old-binary", O_OLD),
	CLI_VAL("threshold", O_THRESHOLD),
	CLI_VAL("top", O_TOP),
	{0},
};
static const struct cli_cmd cmd = {.name = "stale", .usage = usage, .opts = opts};

int cmd_stale(int argc, char **argv)
{
	struct spgo_stale_opts o = {0};
	double threshold = 90;
	uint64_t top = 20;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case O_PROFILE: o.profile = op.val; break;
		case O_BINARY: o.binary = op.val; break;
		case O_OLD: o.old_binary = op.val; break;
		case O_THRESHOLD:
			if (cli_double(&op, 0, 100, &threshold) < 0)
				return 2;
			break;
		case O_TOP:
			if (cli_u64(&op, 0, UINT32_MAX, &top) < 0)
				return 2;
			break;
		case CLI_ARG: return cli_usage(&op, "unexpected argument '%s'", op.val);
		}
	}
	if (!o.profile || !o.binary)
		return cli_usage(&op, "%s", !o.profile ? "no profile: --profile P" : "no new build: --binary NEW");
	struct spgo_stale_report r;
	if (spgo_stale_check(&o, &r) < 0)
		return cli_fail();
	spgo_stale_print(&r, stdout, (size_t)top, threshold);
	int v = spgo_stale_verdict(&r, threshold);
	spgo_stale_report_free(&r);
	return v == 0 ? 0 : 1;
}
