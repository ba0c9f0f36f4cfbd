/*
 * spgo symbolize: addresses -> inline frames, printed the way
 * `llvm-symbolizer --inlines --functions=linkage` prints them; pseudo-probes
 * as llvm-profgen prints them; instruction, function and probe listings.
 * The printing is the library's (spgo/symbolize.h); this file reads the
 * options and the addresses.
 *
 * Environment: SPGO_THREADS=1 runs without helper threads, SPGO_VERBOSE=1
 * reports the size of the tables built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/symbolize.h"

static const char usage_text[] =
	"usage: spgo symbolize --binary FILE [--debug-binary FILE] [--dwp FILE] [--dwo-dir DIR]\n"
	"                      [--discriminators|--verbose] [--no-demangle] [ADDR...]\n"
	"       spgo symbolize --binary FILE --all-instructions | --functions\n"
	"       spgo symbolize --binary FILE --probes [--all-instructions | --functions | ADDR...]\n"
	"\n"
	"Print the inline frames at each address (arguments, else one per line on\n"
	"stdin; 0x-prefixed hex or decimal), innermost first: the function's linkage\n"
	"name, then file:line:column, and a blank line after each address, as\n"
	"llvm-symbolizer --inlines --functions=linkage does.\n"
	"  --binary FILE        the ELF binary (addresses are its virtual addresses;\n"
	"                       also llvm-symbolizer's --obj, --exe)\n"
	"  --debug-binary FILE  read DWARF from FILE (default: the binary, else a\n"
	"                       separate debug file found by build-id or .gnu_debuglink,\n"
	"                       then from the debuginfod servers of DEBUGINFOD_URLS)\n"
	"  --dwp FILE           split DWARF: the DWARF package (default: FILE.dwp of\n"
	"                       --binary if it exists; then the only source, as for\n"
	"                       llvm-symbolizer)\n"
	"  --dwo-dir DIR        split DWARF: look for .dwo files in DIR too, after\n"
	"                       DW_AT_comp_dir/DW_AT_dwo_name (repeatable)\n"
	"  --no-demangle        function names as stored (default: in source form,\n"
	"                       as llvm-symbolizer prints them; --demangle, -C taken)\n"
	"  --discriminators     append \" (discriminator N)\" where N is not 0\n"
	"  --verbose            per frame, the fields of llvm-symbolizer --verbose that\n"
	"                       profiles use: Filename, Function start line (the\n"
	"                       subprogram's DW_AT_decl_line), Line, Column, Discriminator\n"
	"  --all-instructions   list every instruction: address size class [target]\n"
	"  --functions          list the function table: start end name symbol\n"
	"                       decl_line=N [parent=SYMBOL of a split part]\n"
	"  --probes             pseudo-probes (clang -fpseudo-probe-for-profiling): per\n"
	"                       address its probes as llvm-profgen --show-pseudo-probe\n"
	"                       prints them, each followed by its inline frames,\n"
	"                       innermost first, as name:probe-id, and a blank line;\n"
	"                       with --all-instructions every probe (\"0xADDR FUNC: ...\");\n"
	"                       with --functions the descriptors: GUID name checksum\n"
	"                       probes=N max_index=N [start=0xADDR] [parts=SYM@0xADDR,...]\n";

static void usage(FILE *fp)
{
	fputs(usage_text, fp);
}

enum { O_BINARY = CLI_LONG, O_DEBUG, O_DISCR, O_VERBOSE, O_ALL, O_FUNCS, O_PROBES, O_RAW };
static const struct cli_opt opts[] = {
	CLI_VAL("binary", O_BINARY),
	CLI_VAL("obj", O_BINARY), CLI_VAL("exe", O_BINARY), /* llvm-symbolizer's */
	CLI_VAL("debug-binary", O_DEBUG),
	CLI_SPLIT_OPTS,
	CLI_FLAG("discriminators", O_DISCR),
	CLI_FLAG("verbose", O_VERBOSE),
	CLI_FLAG("all-instructions", O_ALL),
	CLI_FLAG("functions", O_FUNCS),
	CLI_FLAG("probes", O_PROBES),
	CLI_FLAG("no-demangle", O_RAW),
	CLI_FLAG("demangle", CLI_IGNORE), CLI_FLAG("C", CLI_IGNORE), /* llvm-symbolizer's; the default */
	{0},
};
static const struct cli_cmd cmd = {.name = "symbolize", .usage = usage, .opts = opts, .in_order = 1};

static int env_is(const char *name, const char *value)
{
	const char *v = getenv(name);
	return v && !strcmp(v, value);
}

/* The addresses on stdin: a regular file is read whole (and may go to the
 * threads), anything else line by line. */
static int from_stdin(struct spgo_symout *s)
{
	struct stat st;
	if (fstat(0, &st) != 0 || !S_ISREG(st.st_mode))
		return spgo_symout_stream(s, stdin);
	struct spgo_file in;
	if (spgo_file_map(&in, "-") < 0)
		return -1;
	char *text = xmalloc(in.size + 1);
	memcpy(text, in.data, in.size);
	text[in.size] = 0;
	spgo_file_unmap(&in);
	int rc = spgo_symout_text(s, text, strlen(text)); /* up to a NUL, if any */
	free(text);
	return rc;
}

int cmd_symbolize(int argc, char **argv)
{
	const char *binary = NULL, *debug = NULL;
	int all = 0, funcs = 0, raw = 0;
	enum spgo_sym_mode mode = SPGO_SYM_PLAIN;
	struct cli_split split = {0};
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k, probes = 0; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case O_BINARY: binary = op.val; break;
		case O_DEBUG: debug = op.val; break;
		case O_DISCR: mode = probes ? mode : SPGO_SYM_DISCRIMINATORS; break;
		case O_VERBOSE: mode = probes ? mode : SPGO_SYM_VERBOSE; break;
		case O_ALL: all = 1; break;
		case O_FUNCS: funcs = 1; break;
		case O_PROBES: mode = SPGO_SYM_PROBES, probes = 1; break;
		case O_RAW: raw = SPGO_SYM_RAW_NAMES; break;
		default:
			if (cli_split_take(&split, &op, k) < 0)
				return 2;
		}
	}
	if (!binary)
		return cli_usage(&op, "no binary: --binary FILE");
	if (env_is("SPGO_VERBOSE", "1"))
		spgo_verbose = 1; /* say how the tables were built (to stderr) */
	/* The DWARF of a large binary takes tens of megabytes of small
	 * blocks in libdw: have them in huge pages (see spgo_heap_reserve). */
	struct stat st;
	if (stat(debug ? debug : binary, &st) == 0)
		spgo_heap_reserve(((size_t)64 << 20) + 8 * (size_t)st.st_size);
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, binary, debug) < 0)
		return cli_fail();
	cli_split_apply(&split, bin);
	if (spgo_binary_check_machine(bin) < 0) {
		spgo_binary_close(bin);
		return cli_fail();
	}
	struct spgo_symout *s = spgo_symout_new(bin, (enum spgo_sym_mode)(mode | raw), stdout,
						!env_is("SPGO_THREADS", "1"));
	int rc;
	if (all)
		rc = spgo_symout_list_insns(s);
	else if (funcs)
		rc = spgo_symout_list_functions(s);
	else if (op.i < argc)
		for (int i = op.i; i < argc && (rc = spgo_symout_addr(s, argv[i])) == 0; i++)
			;
	else
		rc = from_stdin(s);
	char *err = rc < 0 ? xstrdup(spgo_errmsg()) : NULL;
	int werr = spgo_symout_finish(s);
	spgo_binary_close(bin);
	if (err) {
		spgo_error("%s", err);
		free(err);
		return cli_fail();
	}
	if (werr < 0) {
		fprintf(stderr, "spgo: <stdout>: write error\n");
		return 1;
	}
	return 0;
}
