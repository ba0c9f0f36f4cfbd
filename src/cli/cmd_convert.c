/* spgo convert: read a profile of any format, write it in another. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/unsym.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo convert IN -o OUT [--format text|extbinary|gcov] [options]\n"
		    "       spgo convert IN.unsym -o OUT [--format bin|text|profgen]\n"
		    "Converts a sample profile; the input format is detected by content.\n"
		    "An unsymbolized profile (spgo aggregate) is written in another of its\n"
		    "forms (default: the other of bin and text); `spgo gen --unsymbolized`\n"
		    "makes a sample profile of it.\n%s",
		cli_write_help);
}

static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_FLAG("sample", CLI_IGNORE), /* llvm-profdata merge --sample */
	CLI_WRITE_OPTS,
	{0},
};
static const struct cli_cmd cmd = {.name = "convert", .usage = usage, .opts = opts};

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *format = NULL;
	enum spgo_format fmt = SPGO_FMT_UNKNOWN, infmt;
	struct spgo_write_opts o = {0};
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case 'o': out = op.val; break;
		case CLI_ARG:
			if (in)
				return cli_usage(&op, "one input only ('%s' and '%s')", in, op.val);
			in = op.val;
			break;
		case CLI_KEY_FORMAT: /* bin, profgen: unsymbolized forms (text is both) */
			format = op.val;
			if (strcmp(op.val, "text") &&
			    !spgo_unsym_format_parse(op.val, &(enum spgo_unsym_format){0}))
				break;
			/* fall through */
		default:
			if (cli_write_take(&op, k, &fmt, &o) < 0)
				return 2;
		}
	}
	if (!in || !out)
		return cli_usage(&op, "%s", !in ? "no input profile" : "no output: -o OUT");
	if (spgo_out_reserve(out) < 0) /* before the work: fails now if it cannot be written */
		return cli_fail();
	enum spgo_unsym_format uf = spgo_unsym_sniff_file(in);
	if (uf != SPGO_UNSYM_UNKNOWN) {
		if (format && fmt != SPGO_FMT_UNKNOWN && fmt != SPGO_FMT_TEXT)
			return cli_usage(&op, "%s is an unsymbolized profile: it converts to bin, text or profgen; "
					 "spgo gen --binary BIN --unsymbolized %s makes a %s profile of it",
					 in, in, spgo_format_name(fmt));
		uint64_t w = 1;
		return cli_merge_unsym(out, &in, &w, 1, format ? format : uf == SPGO_UNSYM_BIN ? "text" : "bin",
				       0, 1);
	}
	if (format && fmt == SPGO_FMT_UNKNOWN)
		return cli_usage(&op, "formats bin and profgen are for unsymbolized profiles");
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
