/*
 * gen_args.c: `spgo gen`'s options on the shared parser (opt.h), in front
 * of cmd_gen.c, which still reads its arguments by hand.  The table below
 * is gen's: it gives gen the conventions of every command (--opt=value,
 * -oFILE) and the names users migrate with (llvm-profgen's --perfdata,
 * --perfscript, --output, --format, --pid, --binary, --debug-binary, and
 * --target-llvm, spgo's name for --llvm), and hands cmd_gen.c the command
 * line rewritten in the one form it reads: "--name VALUE" with its own
 * names.  Options the table does not know go on unchanged, for cmd_gen.c
 * to accept or refuse.
 *
 * When cmd_gen.c takes the table (a switch on these keys), this file goes.
 */
#include <stdlib.h>

#include "cli/cli.h"

enum {
	G_BINARY = CLI_LONG, G_DEBUG, G_DATA, G_SCRIPT, G_TRUTH, G_PID, G_MODE, G_EVENT,
	G_UPDATE, G_INFER, G_NO_INFER, G_CONFIDENCE, G_QUIET, G_PREINLINE, G_PREINLINE_PARAMS,
};

static const struct cli_opt opts[] = {
	CLI_VAL("binary", G_BINARY),
	CLI_VAL("debug-binary", G_DEBUG),
	CLI_VAL("perf-data", G_DATA), CLI_VAL("perfdata", G_DATA),
	CLI_VAL("perf-script", G_SCRIPT), CLI_VAL("perfscript", G_SCRIPT),
	CLI_VAL("ground-truth", G_TRUTH),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("pid", G_PID),
	CLI_VAL("mode", G_MODE),
	CLI_VAL("event", G_EVENT),
	CLI_FLAG("update-total-samples", G_UPDATE),
	CLI_VAL("infer", G_INFER),
	CLI_FLAG("no-infer", G_NO_INFER),
	CLI_FLAG("confidence", G_CONFIDENCE),
	CLI_FLAG("quiet", G_QUIET),
	CLI_FLAG("preinline", G_PREINLINE),
	CLI_VAL("preinline-params", G_PREINLINE_PARAMS),
	CLI_SPLIT_OPTS,
	CLI_WRITE_OPTS,
	{0},
};

/* The name cmd_gen.c reads each key by; NULL: cmd_gen.c has none yet. */
static const char *gen_name(const struct cli_parser *p, int key)
{
	switch (key) {
	case G_BINARY: return "--binary";
	case G_DEBUG: return "--debug-binary";
	case G_DATA: return "--perf-data";
	case G_SCRIPT: return "--perf-script";
	case G_TRUTH: return "--ground-truth";
	case 'o': return "-o";
	case G_PID: return "--pid";
	case G_MODE: return "--mode";
	case G_EVENT: return "--event";
	case G_UPDATE: return "--update-total-samples";
	case G_INFER: return "--infer";
	case G_NO_INFER: return "--no-infer";
	case G_CONFIDENCE: return "--confidence";
	case G_QUIET: return "--quiet";
	case G_PREINLINE: return "--preinline";
	case G_PREINLINE_PARAMS: return "--preinline-params";
	case CLI_KEY_DWP: return "--dwp";
	case CLI_KEY_DWO_DIR: return "--dwo-dir";
	case CLI_KEY_TARGET_LLVM: return "--llvm";
	case CLI_KEY_GCOV_VERSION: return "--gcov-version";
	/* --format takes the value of its aliases (--text, --gcc, ...) */
	case CLI_KEY_FORMAT: return "--format";
	}
	return NULL; /* --md5, --compress, --partial */
}

static void usage(FILE *fp)
{
	char *hargv[] = {"gen", "--help", NULL};
	fflush(fp);
	cmd_gen(2, hargv);
}

static const struct cli_cmd gen = {.name = "gen", .usage = usage, .opts = opts, .pass_unknown = 1};

int cmd_gen_args(int argc, char **argv)
{
	char **v = xcalloc(2 * (size_t)argc + 1, sizeof *v);
	int n = 0, k, rc = 2;
	struct cli_parser p;
	v[n++] = argv[0];
	cli_init(&p, &gen, argc, argv);
	while ((k = cli_next(&p)) != CLI_END) {
		if (k == CLI_HELP) {
			rc = 0;
			goto out;
		}
		if (k == CLI_ERR)
			goto out;
		if (k == CLI_ARG) {
			v[n++] = (char *)p.val;
			continue;
		}
		const char *name = gen_name(&p, k);
		if (!name) {
			cli_bad(&p, "option '%s' is not available in gen yet", p.opt);
			goto out;
		}
		v[n++] = (char *)name;
		if (p.val)
			v[n++] = (char *)p.val;
	}
	rc = cmd_gen(n, v);
out:
	free(v);
	return rc;
}
