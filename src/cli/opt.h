/*
 * opt.h: the one option parser of the spgo command line.
 *
 * Conventions (those of GNU getopt_long, so that spgo reads as perf, gcc and
 * the coreutils do):
 *
 *   --name VALUE   --name=VALUE   -x VALUE   -xVALUE   -vq (clustered flags)
 *   "--" ends the options; "-" alone is an argument (stdin or stdout).
 *   -name VALUE, -name=VALUE: one dash before the whole name of a long
 *   option is that option (the gflags tools' way: create_llvm_prof
 *   -binary=prog -out=p.prof), not a cluster ("-o ut=p.prof").
 *
 * An unknown option is an error that names the command's option it is a
 * typo of, if one is close (cli_did_you_mean).
 *
 * Long names match exactly (no abbreviations: an abbreviation that works
 * today could become ambiguous when an option is added).  A command
 * describes its options in a table, several names (aliases) per key if it
 * likes, and loops on cli_next(), switching on the key it returns:
 *
 *   static const struct cli_opt opts[] = {
 *           CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
 *           CLI_ALIAS("text", O_FORMAT, "text"),   // = --format text
 *           CLI_FLAG("sample", CLI_IGNORE),        // accepted, no effect
 *           {0}};
 *   static const struct cli_cmd cmd = {.name = "merge", .usage = usage, .opts = opts};
 *   struct cli_parser p;
 *   cli_init(&p, &cmd, argc, argv);
 *   for (int k; (k = cli_next(&p)) != CLI_END;)
 *           switch (k) {
 *           case CLI_HELP: return 0;   // usage printed on stdout
 *           case CLI_ERR: return 2;    // usage error reported
 *           case 'o': out = p.val; break;
 *           case CLI_ARG: ...p.val...
 *           }
 *
 * -h and --help are every command's: they print the usage on stdout.
 *
 * One error style.  Every usage error names the option as the user wrote it
 * and the problem, then gives a one-line hint, and the command exits 2:
 *
 *   spgo merge: option '--weight' needs a value
 *   Try 'spgo help merge' for more information.
 *
 * Errors in the work itself (files, data) are not usage errors: they are
 * printed as "spgo: <message>" by cli_fail() and the command exits 1.
 */
#ifndef SPGO_CLI_OPT_H
#define SPGO_CLI_OPT_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/common.h"

/* cli_next() results other than an option's key (keys are > 0). */
#define CLI_END 0     /* no more options (and arguments, when permuting) */
#define CLI_ARG (-1)  /* an argument, in p->val */
#define CLI_ERR (-2)  /* a usage error, already reported: exit 2 */
#define CLI_HELP (-3) /* -h/--help: the usage is printed: exit 0 */

/* A key of options that are accepted and do nothing (llvm-profdata's
 * --sample, where spgo reads only sample profiles). */
#define CLI_IGNORE (-4)

/* First key for options without a short letter. */
#define CLI_LONG 256

/* CLI_NONE: a flag; CLI_REQ: takes a value (inline or the next argument);
 * CLI_OPT: a flag that may carry an inline value only ("--name" or
 * "--name=VALUE", never the next argument: LLVM's cl::opt<bool> form,
 * "--trim-cold-profile=false"), p->val NULL without one. */
enum { CLI_NONE, CLI_REQ, CLI_OPT };

struct cli_opt {
	const char *name;  /* one character: -x; longer: --name; NULL ends */
	int key;           /* returned by cli_next() */
	int arg;           /* CLI_NONE or CLI_REQ (takes a value) */
	const char *value; /* CLI_NONE only: returned in p->val (an alias of
			    * an option with this value, e.g. --text for
			    * --format=text) */
};

/* Table entries: an option with a value, a flag, a flag that stands for
 * an option with a value. */
#define CLI_VAL(name, key) {name, key, CLI_REQ, NULL}
#define CLI_FLAG(name, key) {name, key, CLI_NONE, NULL}
#define CLI_ALIAS(name, key, value) {name, key, CLI_NONE, value}
#define CLI_BOOL(name, key) {name, key, CLI_OPT, NULL}

struct cli_cmd {
	const char *name;        /* "merge": messages say "spgo merge: ..." */
	void (*usage)(FILE *fp); /* the full help */
	const struct cli_opt *opts;
	int in_order; /* options end at the first argument (CMD ARGS...,
		       * addresses), instead of being taken anywhere */
	int pass_unknown; /* an unknown option is returned as CLI_ARG (the
			   * whole element), not reported (spgo record's
			   * options for perf); -h and --help stay help */
};

struct cli_parser {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	int i;           /* the next element of argv */
	const char *val; /* the value of the option, or the argument */
	char opt[64];    /* the option as written: "--output", "-o" */
	const char *cluster; /* the rest of a "-vq" cluster */
	int dashdash;    /* "--" seen: arguments only */
};

void cli_init(struct cli_parser *p, const struct cli_cmd *cmd, int argc, char **argv);
/* The next option's key (p->val its value, p->opt its name), CLI_ARG, or
 * CLI_END; with cmd->in_order, CLI_END at the first argument, which is
 * then p->argv[p->i] (the rest follow it). */
int cli_next(struct cli_parser *p);
/* The long option of cmd's table that name (len bytes, without the
 * dashes) is a typo of, or NULL: unknown options are reported with it
 * ("did you mean '--output'?"), for every command. */
const char *cli_did_you_mean(const struct cli_cmd *cmd, const char *name, size_t len);
/* Report a usage error of the command: "spgo CMD: MESSAGE" and the hint.
 * Returns CLI_ERR. */
int cli_bad(const struct cli_parser *p, const char *fmt, ...) SPGO_PRINTF(2, 3);
/* The same, returning the exit status of a usage error (2), for
 * `return cli_usage(&op, "no input");`. */
int cli_usage(const struct cli_parser *p, const char *fmt, ...) SPGO_PRINTF(2, 3);
/* The same for a command without a parser at hand. */
int cli_bad_cmd(const char *cmd, const char *fmt, ...) SPGO_PRINTF(2, 3);

/*
 * Values.  Each returns 0, or reports a usage error naming the option
 * (p->opt) and returns CLI_ERR.
 */
/* A decimal or 0x-hex integer in [lo, hi]. */
int cli_u64(const struct cli_parser *p, uint64_t lo, uint64_t hi, uint64_t *out);
/* A number in (lo, hi]. */
int cli_double(const struct cli_parser *p, double lo, double hi, double *out);
/* A CLI_BOOL option's value as LLVM's cl::opt<bool> reads it: none, "true",
 * "TRUE", "True", "1" give 1; "false", "FALSE", "False", "0" give 0. */
int cli_bool(const struct cli_parser *p, int *out);
/* One of the words of choices ("fp\0dwarf\0none\0"): its index in *out. */
int cli_choice(const struct cli_parser *p, const char *choices, int *out);

#endif
