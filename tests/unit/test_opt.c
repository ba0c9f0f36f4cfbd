/*
 * Unit tests of the command line's option parser (src/cli/opt.h), in
 * process: --opt=value, --opt value, -oVALUE, -o VALUE, clustered flags,
 * "--" and "-", aliases and ignored options, options in order or anywhere,
 * unknown options passed on, -h/--help, the usage errors and their one
 * message style, and the value checks (numbers, choices).
 */
#include <unistd.h>

#include "cli/opt.h"
#include "harness.h"

enum { O_VERBOSE = CLI_LONG, O_FORMAT, O_LEVEL };
static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_FLAG("v", 'v'), CLI_FLAG("q", 'q'), CLI_FLAG("verbose", O_VERBOSE),
	CLI_VAL("format", O_FORMAT), CLI_ALIAS("text", O_FORMAT, "text"),
	CLI_FLAG("sample", CLI_IGNORE),
	CLI_VAL("level", O_LEVEL),
	{0},
};

static int usage_calls;
static FILE *usage_fp;
static void usage(FILE *fp)
{
	usage_calls++;
	usage_fp = fp;
}

static const struct cli_cmd cmd = {.name = "t", .usage = usage, .opts = opts};
static const struct cli_cmd cmd_in_order = {.name = "t", .usage = usage, .opts = opts, .in_order = 1};
static const struct cli_cmd cmd_pass = {.name = "t", .usage = usage, .opts = opts, .pass_unknown = 1};

/* What the parser said on stderr during the last parse(). */
static char err[1024];

/*
 * Parse the NULL-terminated arguments (after the command's name) with c,
 * and describe what cli_next() returned, one item per space-separated
 * word: "o=VAL" for an option (its key as a letter, or L+N for long keys),
 * "arg=VAL", "help", "err", and "end@I" (I: the index of argv where the
 * parse stopped).  The parse stops at the first error or help.
 */
static char *parse(const struct cli_cmd *c, const char *const *args)
{
	char *argv[32] = {"t"};
	int argc = 1;
	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	dup2(fileno(tmp), 2);

	static char out[1024];
	size_t n = 0;
	struct cli_parser p;
	cli_init(&p, c, argc, argv);
	for (;;) {
		int k = cli_next(&p);
		if (k == CLI_END) {
			n += (size_t)snprintf(out + n, sizeof out - n, "end@%d", p.i);
			break;
		}
		if (k == CLI_ERR || k == CLI_HELP) {
			n += (size_t)snprintf(out + n, sizeof out - n, "%s", k == CLI_ERR ? "err" : "help");
			break;
		}
		if (k == CLI_ARG)
			n += (size_t)snprintf(out + n, sizeof out - n, "arg=%s ", p.val);
		else if (k < CLI_LONG)
			n += (size_t)snprintf(out + n, sizeof out - n, "%c(%s)=%s ", k, p.opt,
					      p.val ? p.val : "-");
		else
			n += (size_t)snprintf(out + n, sizeof out - n, "L%d(%s)=%s ", k - CLI_LONG, p.opt,
					      p.val ? p.val : "-");
	}

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t m = fread(err, 1, sizeof err - 1, tmp);
	err[m] = 0;
	fclose(tmp);
	return out;
}
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_values(void)
{
	/* the four spellings of an option with a value */
	CHECK_STREQ(parse(&cmd, ARGS("--output=a.txt")), "o(--output)=a.txt end@2");
	CHECK_STREQ(parse(&cmd, ARGS("--output", "a.txt")), "o(--output)=a.txt end@3");
	CHECK_STREQ(parse(&cmd, ARGS("-oa.txt")), "o(-o)=a.txt end@2");
	CHECK_STREQ(parse(&cmd, ARGS("-o", "a.txt")), "o(-o)=a.txt end@3");
	/* a value may be empty, or look like an option */
	CHECK_STREQ(parse(&cmd, ARGS("--output=", "-o", "-v")), "o(--output)= o(-o)=-v end@4");
	/* the value after '=' keeps further '=' */
	CHECK_STREQ(parse(&cmd, ARGS("--format=a=b")), "L1(--format)=a=b end@2");
	CHECK_STREQ(err, "");
}

static void test_clusters(void)
{
	CHECK_STREQ(parse(&cmd, ARGS("-vq")), "v(-v)=- q(-q)=- end@2");
	/* an option with a value ends a cluster: the rest is its value */
	CHECK_STREQ(parse(&cmd, ARGS("-vqofile")), "v(-v)=- q(-q)=- o(-o)=file end@2");
	CHECK_STREQ(parse(&cmd, ARGS("-vo", "file", "x")), "v(-v)=- o(-o)=file arg=x end@4");
	/* an unknown letter inside a cluster is named */
	CHECK_STREQ(parse(&cmd, ARGS("-vxq")), "v(-v)=- err");
	CHECK_STREQ(err, "spgo t: unknown option '-x'\nTry 'spgo help t' for more information.\n");
}

static void test_arguments(void)
{
	/* options anywhere; "-" is an argument; "--" ends the options */
	CHECK_STREQ(parse(&cmd, ARGS("a", "-v", "-", "b")), "arg=a v(-v)=- arg=- arg=b end@5");
	CHECK_STREQ(parse(&cmd, ARGS("-v", "--", "-q", "--output=x")),
		    "v(-v)=- arg=-q arg=--output=x end@5");
	/* in order: the options end at the first argument, or after "--" */
	CHECK_STREQ(parse(&cmd_in_order, ARGS("-v", "cmd", "-q")), "v(-v)=- end@2");
	CHECK_STREQ(parse(&cmd_in_order, ARGS("-v", "--", "-q")), "v(-v)=- end@3");
	CHECK_STREQ(err, "");
}

static void test_aliases(void)
{
	/* an alias stands for an option with its value; ignored options vanish */
	CHECK_STREQ(parse(&cmd, ARGS("--text", "--sample", "--format", "gcov")),
		    "L1(--text)=text L1(--format)=gcov end@5");
	CHECK_STREQ(parse(&cmd, ARGS("--sample")), "end@2");
	CHECK_STREQ(err, "");
}

static void test_errors(void)
{
	/* unknown: long names match exactly, no abbreviations */
	CHECK_STREQ(parse(&cmd, ARGS("-v", "--out", "x")), "v(-v)=- err");
	CHECK_STREQ(err, "spgo t: unknown option '--out'\nTry 'spgo help t' for more information.\n");
	CHECK_STREQ(parse(&cmd, ARGS("--nope=3")), "err");
	CHECK_STREQ(err, "spgo t: unknown option '--nope'\nTry 'spgo help t' for more information.\n");
	/* missing values, in both forms */
	CHECK_STREQ(parse(&cmd, ARGS("--output")), "err");
	CHECK_STREQ(err, "spgo t: option '--output' needs a value\n"
			 "Try 'spgo help t' for more information.\n");
	CHECK_STREQ(parse(&cmd, ARGS("-v", "-o")), "v(-v)=- err");
	CHECK_STREQ(err, "spgo t: option '-o' needs a value\nTry 'spgo help t' for more information.\n");
	/* a value given to a flag */
	CHECK_STREQ(parse(&cmd, ARGS("--verbose=1")), "err");
	CHECK_STREQ(err, "spgo t: option '--verbose' takes no value\n"
			 "Try 'spgo help t' for more information.\n");
}

static void test_pass_unknown(void)
{
	/* gen_args.c: unknown options come back whole as arguments */
	CHECK_STREQ(parse(&cmd_pass, ARGS("--nope=3", "-Z", "-v", "--output", "f")),
		    "arg=--nope=3 arg=-Z v(-v)=- o(--output)=f end@6");
	CHECK_STREQ(err, "");
}

static void test_help(void)
{
	usage_calls = 0;
	CHECK_STREQ(parse(&cmd, ARGS("-v", "--help", "--nope")), "v(-v)=- help");
	CHECK(usage_calls == 1 && usage_fp == stdout);
	CHECK_STREQ(parse(&cmd, ARGS("-h")), "help");
	CHECK(usage_calls == 2);
	CHECK_STREQ(err, "");
}

/* The value checks on the option just parsed. */
static void test_checks(void)
{
	char *argv[] = {"t", "--level", "12", "--level", "0x10", "--level", "x", "--format", "dwarf",
			"--format", "elf", NULL};
	struct cli_parser p;
	cli_init(&p, &cmd, 11, argv);
	uint64_t v;
	double d;
	int c;
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	dup2(fileno(tmp), 2);
	int ok1 = cli_next(&p) == O_LEVEL && cli_u64(&p, 1, 100, &v) == 0 && v == 12;
	int ok2 = cli_next(&p) == O_LEVEL && cli_u64(&p, 1, 100, &v) == 0 && v == 16;
	int ok3 = cli_next(&p) == O_LEVEL && cli_u64(&p, 1, 100, &v) == CLI_ERR;
	int ok4 = cli_double(&p, 0, 1, &d) == CLI_ERR;
	int ok5 = cli_next(&p) == O_FORMAT && cli_choice(&p, "fp\0dwarf\0none\0", &c) == 0 && c == 1;
	int ok6 = cli_next(&p) == O_FORMAT && cli_choice(&p, "fp\0dwarf\0none\0", &c) == CLI_ERR;
	int ok7 = cli_usage(&p, "no input") == 2;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t m = fread(err, 1, sizeof err - 1, tmp);
	err[m] = 0;
	fclose(tmp);
	CHECK(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7);
	CHECK_STREQ(err, "spgo t: option '--level': 'x' is not a number in [1, 100]\n"
			 "Try 'spgo help t' for more information.\n"
			 "spgo t: option '--level': 'x' is not a number in (0, 1]\n"
			 "Try 'spgo help t' for more information.\n"
			 "spgo t: option '--format': 'elf' is not one of fp, dwarf, none\n"
			 "Try 'spgo help t' for more information.\n"
			 "spgo t: no input\n"
			 "Try 'spgo help t' for more information.\n");
}

int main(void)
{
	RUN(test_values);
	RUN(test_clusters);
	RUN(test_arguments);
	RUN(test_aliases);
	RUN(test_errors);
	RUN(test_pass_unknown);
	RUN(test_help);
	RUN(test_checks);
	DONE();
}
