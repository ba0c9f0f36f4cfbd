/*
 * cli.h: the subcommands of the spgo program, one file each (cmd_NAME.c).
 * Each takes the arguments after its name (argv[0] is the subcommand name)
 * and returns the process exit status.  Errors are printed as
 * "spgo: <message>" (spgo_errmsg() of the failing library call).
 */
#ifndef SPGO_CLI_H
#define SPGO_CLI_H

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

/* Print "spgo: <spgo_errmsg()>" to stderr and return 1. */
int cli_fail(void);

/*
 * Split DWARF options, taken wherever --debug-binary is: --dwp FILE (the
 * DWARF package; default BINARY.dwp when it exists) and --dwo-dir DIR
 * (repeatable: more directories to find .dwo files in), also as
 * --dwp=FILE and --dwo-dir=DIR.
 */
struct spgo_binary;
#define CLI_MAX_DWO_DIRS 16
struct cli_split {
	const char *dwp;
	const char *dirs[CLI_MAX_DWO_DIRS]; /* pointers into argv */
	int ndirs;
};
#define CLI_SPLIT_USAGE                                                                      \
	"  --dwp FILE          split DWARF: the DWARF package (default: BIN.dwp if it exists)\n" \
	"  --dwo-dir DIR       split DWARF: look for .dwo files in DIR too (repeatable)\n"
/* 1 if argv[*i] is one of them (*i then moves past its value), 0 if not,
 * -1 (message printed) when the value is missing. */
int cli_split_arg(struct cli_split *s, int argc, char **argv, int *i);
/* Pass them to bin. */
void cli_split_apply(const struct cli_split *s, struct spgo_binary *bin);

#endif
