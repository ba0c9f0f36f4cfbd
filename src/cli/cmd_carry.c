/*
 * spgo carry: a profile collected on one build rewritten for the next
 * (spgo/stale.h): line offsets moved as OLD's and NEW's DWARF say they
 * moved, probes as their call anchors and blocks say, renamed functions renamed; the
 * report says what was carried and how, with a warning below the
 * threshold.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "spgo/profile.h"
#include "spgo/stale.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo carry --profile P --old-binary OLD --binary NEW -o P2\n"
		    "                  [--threshold PCT] [--min-confidence PCT] [--no-infer]\n"
		    "                  [--format text|extbinary|gcov] [options]\n"
		    "Rewrites profile P, collected on build OLD, for build NEW: each function's\n"
		    "line locations aligned between OLD and NEW (call and inline anchors, then\n"
		    "instruction rows; the rest shifted), body records, call targets and\n"
		    "inlinees moved, renamed functions renamed, what has no place in NEW\n"
		    "dropped.  Probe profiles: a function whose CFG checksum changed has its\n"
		    "probes matched by their code (call anchors and block hashes of OLD and\n"
		    "NEW, the rest by the nearer pair's delta) and takes NEW's checksum;\n"
		    "the probes its code places by no match (none, or a delta) then take\n"
		    "the counts profile inference (profi) gives them on NEW's CFG.\n"
		    "CS profiles: every context frame carried.  The report gives spgo\n"
		    "stale's figures before and what was carried and how.\n"
		    "  --threshold PCT   warn when less than PCT%% of samples are carried\n"
		    "                    (default 90)\n"
		    "  --min-confidence PCT  probe profiles: keep a function whose checksum\n"
		    "                    changed as it is (clang drops it) when less than PCT%%\n"
		    "                    of its samples are placed by its code (default 25;\n"
		    "                    0: carry every function)\n"
		    "  --no-infer        probe profiles: no inference on NEW's CFG (the\n"
		    "                    probes matched by no code keep a delta's guess)\n%s",
		cli_write_help);
}

enum { O_PROFILE = CLI_LONG + 100, O_BINARY, O_OLD, O_THRESHOLD, O_CONFIDENCE, O_NO_INFER };
static const struct cli_opt opts[] = {
	CLI_VAL("profile", O_PROFILE),
	CLI_VAL("binary", O_BINARY),
	CLI_VAL("old-binary", O_OLD),
	CLI_VAL("threshold", O_THRESHOLD),
	CLI_VAL("min-confidence", O_CONFIDENCE),
	CLI_FLAG("no-infer", O_NO_INFER),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_WRITE_OPTS,
	{0},
};
static const struct cli_cmd cmd = {.name = "carry", .usage = usage, .opts = opts};

int cmd_carry(int argc, char **argv)
{
	struct spgo_carry_opts o = {.format = SPGO_FMT_UNKNOWN, .min_confidence = SPGO_CARRY_MIN_CONFIDENCE};
	struct spgo_write_opts wo = {0};
	enum spgo_format fmt = SPGO_FMT_UNKNOWN;
	double threshold = 90;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case O_PROFILE: o.profile = op.val; break;
		case O_BINARY: o.binary = op.val; break;
		case O_OLD: o.old_binary = op.val; break;
		case 'o': o.out = op.val; break;
		case O_THRESHOLD:
			if (cli_double(&op, 0, 100, &threshold) < 0)
				return 2;
			break;
		case O_CONFIDENCE:
			if (cli_double(&op, -1e-12, 100, &o.min_confidence) < 0) /* (0: off) */
				return 2;
			break;
		case O_NO_INFER: o.no_infer = 1; break;
		case CLI_ARG: return cli_usage(&op, "unexpected argument '%s'", op.val);
		default:
			if (cli_write_take(&op, k, &fmt, &wo) < 0)
				return 2;
		}
	}
	if (!o.profile || !o.binary || !o.old_binary || !o.out)
		return cli_usage(&op, "%s", !o.profile ? "no profile: --profile P"
					    : !o.old_binary ? "no old build: --old-binary OLD (the build P was collected on)"
					    : !o.binary ? "no new build: --binary NEW"
							: "no output: -o P2");
	if (spgo_out_reserve(o.out) < 0) /* before the work: fails now if it cannot be written */
		return cli_fail();
	o.format = fmt;
	o.wopts = &wo;
	struct spgo_carry_report r;
	if (spgo_carry(&o, &r) < 0)
		return cli_fail();
	/* the report goes to stderr when the profile goes to stdout */
	spgo_carry_print(&r, o.out[0] == '-' && !o.out[1] ? stderr : stdout);
	if (spgo_carry_pct(&r) < threshold)
		spgo_warn("only %.1f%% of the samples of %s were carried (threshold %.1f%%): profile %s again",
			  spgo_carry_pct(&r), o.profile, threshold, o.binary);
	spgo_carry_report_free(&r);
	return 0;
}
