/*
 * spgo: the command-line front end.  The pipeline, in the order a sample
 * travels: record -> script/aggregate -> gen (binary model, generation,
 * inference) -> profile tools.  Every subcommand lives in cmd_NAME.c.
 *
 *   spgo COMMAND [ARGS...]   run COMMAND
 *   spgo help [COMMAND]      this list, or COMMAND's help (= COMMAND --help)
 *   spgo --version           the version and the git revision it was built from
 *
 * An unknown command is a usage error (exit 2).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/common.h"
#include "spgo_revision.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *help;
} commands[] = {
	{"record", cmd_record, "run or attach perf with the best sampling event"},
	{"emulate", cmd_emulate, "LBR and call-stack samples plus ground truth under QEMU"},
	{"script", cmd_script, "print perf.data as `perf script` text"},
	{"symbolize", cmd_symbolize, "addresses to inline frames, lines and discriminators"},
	{"aggregate", cmd_aggregate, "samples to an unsymbolized profile (per build-id, mergeable)"},
	{"gen", cmd_gen, "generate a compiler profile from samples and the binary"},
	{"infer", cmd_infer, "infer consistent block and edge counts on a CFG"},
	{"show", cmd_show, "show a profile"},
	{"merge", cmd_merge, "merge profiles"},
	{"convert", cmd_convert, "convert a profile between formats"},
	{"overlap", cmd_overlap, "overlap of two profiles"},
	{"trim", cmd_trim, "drop or merge cold functions and contexts"},
	{"stale", cmd_stale, "how much of a profile still matches a new build"},
	{"carry", cmd_carry, "carry a profile forward to a new build"},
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < SPGO_ARRAY_LEN(commands); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "\n`spgo help COMMAND` (or `spgo COMMAND --help`) describes each;\n"
		    "`spgo --version` prints the version.\n");
}

static int find(const char *name)
{
	for (size_t i = 0; i < SPGO_ARRAY_LEN(commands); i++)
		if (!strcmp(name, commands[i].name))
			return (int)i;
	return -1;
}

static int unknown(const char *name)
{
	fprintf(stderr, "spgo: unknown command '%s'\nTry 'spgo help' for the list of commands.\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *a = argv[1];
	if (!strcmp(a, "-h") || !strcmp(a, "--help") || (!strcmp(a, "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(a, "help")) {
		int k = find(argv[2]);
		if (k < 0)
			return unknown(argv[2]);
		char *hargv[] = {argv[2], "--help", NULL};
		return commands[k].run(2, hargv);
	}
	if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
		printf("spgo %s (git %s)\n", SPGO_VERSION, SPGO_GIT_REVISION);
		return 0;
	}
	if (a[0] == '-') {
		fprintf(stderr, "spgo: unknown option '%s'\nTry 'spgo help' for more information.\n", a);
		return 2;
	}
	int k = find(a);
	if (k < 0)
		return unknown(a);
	return commands[k].run(argc - 1, argv + 1);
}
