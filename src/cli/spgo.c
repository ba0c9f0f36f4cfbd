/*
 * spgo: the command-line front end.  The pipeline, in the order a sample
 * travels: record -> script/aggregate -> gen (binary model, generation,
 * inference) -> profile tools.  Every subcommand lives in cmd_NAME.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/binary.h"
#include "spgo/common.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *help;
} commands[] = {
	{"record", cmd_record, "run or attach perf with the best sampling event"},
	{"emulate", cmd_emulate, "LBR and call-stack samples plus ground truth under QEMU"},
	{"script", cmd_script, "print perf.data as `perf script` text"},
	{"symbolize", cmd_symbolize, "addresses to inline frames, lines and discriminators"},
	{"gen", cmd_gen, "generate a compiler profile from samples and the binary"},
	{"infer", cmd_infer, "infer consistent block and edge counts on a CFG"},
	{"show", cmd_show, "show a profile"},
	{"merge", cmd_merge, "merge profiles"},
	{"convert", cmd_convert, "convert a profile between formats"},
	{"overlap", cmd_overlap, "overlap of two profiles"},
	{"trim", cmd_trim, "drop or merge cold functions and contexts"},
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < SPGO_ARRAY_LEN(commands); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "\n`spgo COMMAND --help` describes each.\n");
}

int cli_fail(void)
{
	fprintf(stderr, "spgo: %s\n", spgo_errmsg());
	return 1;
}

int cli_split_arg(struct cli_split *s, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *val = NULL;
	int dwp;
	if (!strcmp(a, "--dwp") || !strcmp(a, "--dwo-dir")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "spgo: %s needs a value\n", a);
			return -1;
		}
		dwp = a[4] == 'p';
		val = argv[++*i];
	} else if (!strncmp(a, "--dwp=", 6)) {
		dwp = 1, val = a + 6;
	} else if (!strncmp(a, "--dwo-dir=", 10)) {
		dwp = 0, val = a + 10;
	} else {
		return 0;
	}
	if (dwp) {
		s->dwp = val;
	} else if (s->ndirs < CLI_MAX_DWO_DIRS) {
		s->dirs[s->ndirs++] = val;
	} else {
		fprintf(stderr, "spgo: more than %d --dwo-dir options\n", CLI_MAX_DWO_DIRS);
		return -1;
	}
	return 1;
}

void cli_split_apply(const struct cli_split *s, struct spgo_binary *bin)
{
	if (s->dwp)
		spgo_binary_set_dwp(bin, s->dwp);
	for (int k = 0; k < s->ndirs; k++)
		spgo_binary_add_dwo_dir(bin, s->dirs[k]);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("spgo 0.1\n");
		return 0;
	}
	for (size_t i = 0; i < SPGO_ARRAY_LEN(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "spgo: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
