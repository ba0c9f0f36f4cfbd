/*
 * cli.h: the subcommands of the spgo program, one file each (cmd_NAME.c).
 * Each takes the arguments after its name (argv[0] is the subcommand name)
 * and returns the process exit status: 0, 1 when the work failed, 2 on a
 * usage error.  Options are read with the shared parser (cli/opt.h), which
 * reports usage errors; errors of the work are printed as "spgo: <message>"
 * (spgo_errmsg() of the failing library call) by cli_fail().
 *
 * Nothing here keeps state or does the work: each command is its option
 * table, calls into the library (include/spgo/) and the report.
 */
#ifndef SPGO_CLI_H
#define SPGO_CLI_H

#include "cli/opt.h"
#include "spgo/profile.h"

int cmd_symbolize(int argc, char **argv); /* binary model: addresses -> inline frames */
int cmd_record(int argc, char **argv);    /* run perf with the best event */
int cmd_script(int argc, char **argv);    /* perf.data -> perf script text */
int cmd_emulate(int argc, char **argv);   /* QEMU-based LBR/stack emulation */
int cmd_gen(int argc, char **argv);       /* samples + binary -> profile */
int cmd_infer(int argc, char **argv);     /* profile inference on a CFG */
int cmd_show(int argc, char **argv);      /* profile tools */
int cmd_merge(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_overlap(int argc, char **argv);
int cmd_trim(int argc, char **argv);
int cmd_stale(int argc, char **argv);     /* profile vs a new build: staleness */
int cmd_carry(int argc, char **argv);     /* profile rewritten for a new build */
int cmd_aggregate(int argc, char **argv); /* samples -> unsymbolized profile */

/* cmd_aggregate.c: the merge of unsymbolized profiles (spgo/unsym.h) for
 * merge: add up files (weights), trim cold keys (trim > 0), write in format
 * ("bin", "text", "profgen"; NULL: spgo_unsym_merged_format's); returns the exit
 * status. */
int cli_merge_unsym(const char *out, const char **files, const uint64_t *weights, int n,
		    const char *format, double trim, int quiet);


/* Print "spgo: <spgo_errmsg()>" to stderr and return 1. */
int cli_fail(void);
/* The exit status of a command that printed its report on stdout: rc, or 1
 * after "spgo: <stdout>: write error" when stdout could not be written (a
 * full disk, /dev/full, a closed pipe). */
int cli_stdout_done(int rc);

/* Keys of the options several commands share (after their own keys). */
enum {
	CLI_KEY_DWP = CLI_LONG + 1000,
	CLI_KEY_DWO_DIR,
	CLI_KEY_FORMAT,
	CLI_KEY_TARGET_LLVM,
	CLI_KEY_COMPRESS,
	CLI_KEY_MD5,
	CLI_KEY_PARTIAL,
	CLI_KEY_GCOV_VERSION,
};

/*
 * Split DWARF options, taken wherever --debug-binary is: --dwp FILE (the
 * DWARF package; default BINARY.dwp when it exists) and --dwo-dir DIR
 * (repeatable: more directories to find .dwo files in).
 */
struct spgo_binary;
#define CLI_MAX_DWO_DIRS 16
struct cli_split {
	const char *dwp;
	const char *dirs[CLI_MAX_DWO_DIRS]; /* pointers into argv */
	int ndirs;
};
#define CLI_SPLIT_OPTS CLI_VAL("dwp", CLI_KEY_DWP), CLI_VAL("dwo-dir", CLI_KEY_DWO_DIR)
#define CLI_SPLIT_USAGE                                                                      \
	"  --dwp FILE          split DWARF: the DWARF package (default: BIN.dwp if it exists)\n" \
	"  --dwo-dir DIR       split DWARF: look for .dwo files in DIR too (repeatable)\n"
/* Take option key if it is one of them: 1, 0 if it is not, CLI_ERR. */
int cli_split_take(struct cli_split *s, const struct cli_parser *p, int key);
/* Pass them to bin. */
void cli_split_apply(const struct cli_split *s, struct spgo_binary *bin);

/*
 * The output options of every command that writes a profile: --format F
 * (and llvm-profdata's --text, --extbinary, --gcc), --target-llvm 14|19,
 * --compress (--compress-all-sections), --md5 (--use-md5), --partial,
 * --gcov-version 1|2 (also the autofdo tools' --gcov_version with their
 * version word).
 */
#define CLI_WRITE_OPTS                                                                     \
	CLI_VAL("format", CLI_KEY_FORMAT), CLI_ALIAS("text", CLI_KEY_FORMAT, "text"),  \
	CLI_ALIAS("extbinary", CLI_KEY_FORMAT, "extbinary"),                              \
	CLI_ALIAS("gcc", CLI_KEY_FORMAT, "gcov"),                                         \
	CLI_VAL("target-llvm", CLI_KEY_TARGET_LLVM), CLI_VAL("llvm", CLI_KEY_TARGET_LLVM), \
	CLI_FLAG("compress", CLI_KEY_COMPRESS),                                          \
	CLI_FLAG("compress-all-sections", CLI_KEY_COMPRESS),                             \
	CLI_FLAG("md5", CLI_KEY_MD5), CLI_FLAG("use-md5", CLI_KEY_MD5),                \
	CLI_FLAG("partial", CLI_KEY_PARTIAL),                                            \
	CLI_VAL("gcov-version", CLI_KEY_GCOV_VERSION), CLI_VAL("gcov_version", CLI_KEY_GCOV_VERSION)
extern const char cli_write_help[];
/* Take option key if it is one of them: 1, 0 if it is not, CLI_ERR. */
int cli_write_take(const struct cli_parser *p, int key, enum spgo_format *fmt,
		   struct spgo_write_opts *o);

#endif
