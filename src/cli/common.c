/*
 * The options several commands share (cli.h): split DWARF and the output
 * options of the commands that write profiles; cli_fail(), cli_stdout_done().
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/binary.h"

int cli_fail(void)
{
	fprintf(stderr, "spgo: %s\n", spgo_errmsg());
	return 1;
}

int cli_stdout_done(int rc)
{
	if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
		fprintf(stderr, "spgo: <stdout>: write error\n");
		return 1;
	}
	return rc;
}

static int split_add(struct cli_split *s, int dwp, const char *val)
{
	if (dwp) {
		s->dwp = val;
	} else if (s->ndirs < CLI_MAX_DWO_DIRS) {
		s->dirs[s->ndirs++] = val;
	} else {
		return -1;
	}
	return 1;
}

int cli_split_take(struct cli_split *s, const struct cli_parser *p, int key)
{
	if (key != CLI_KEY_DWP && key != CLI_KEY_DWO_DIR)
		return 0;
	if (split_add(s, key == CLI_KEY_DWP, p->val) < 0)
		return cli_bad(p, "more than %d --dwo-dir options", CLI_MAX_DWO_DIRS);
	return 1;
}

void cli_split_apply(const struct cli_split *s, struct spgo_binary *bin)
{
	if (s->dwp)
		spgo_binary_set_dwp(bin, s->dwp);
	for (int k = 0; k < s->ndirs; k++)
		spgo_binary_add_dwo_dir(bin, s->dirs[k]);
}

const char cli_write_help[] =
	"output options:\n"
	"  --format text|extbinary|gcov   output format (default: that of the first input);\n"
	"                                 also --text, --extbinary, --gcc (llvm-profdata's)\n"
	"  --target-llvm 14|19            extended binary for this LLVM's readers (default: both)\n"
	"  --compress                     zlib-compress extended binary sections\n"
	"                                 (also --compress-all-sections)\n"
	"  --md5                          store names as MD5 GUIDs (extended binary; also --use-md5)\n"
	"  --partial                      mark the profile partial (extended binary)\n"
	"  --gcov-version 2|1             2: GCC 12 -fauto-profile (default); 1: autofdo tools (dump_gcov;\n"
	"                                 also create_gcov's --gcov_version 875575082)\n";

int cli_write_take(const struct cli_parser *p, int key, enum spgo_format *fmt,
		   struct spgo_write_opts *o)
{
	int k;
	switch (key) {
	case CLI_KEY_FORMAT:
		if (spgo_format_parse(p->val, fmt) < 0)
			return cli_bad(p, "option '%s': %s", p->opt, spgo_errmsg());
		return 1;
	case CLI_KEY_TARGET_LLVM:
		if (cli_choice(p, "14\0" "19\0", &k) < 0)
			return CLI_ERR;
		o->target_llvm = k ? 19 : 14;
		return 1;
	case CLI_KEY_GCOV_VERSION: {
		/* create_gcov's --gcov_version is the file's version word: its
		 * own, 0x3430372a ("*704"), is layout 1 */
		uint64_t v;
		if (!spgo_parse_u64(p->val, &v) && v == 0x3430372a)
			k = 0;
		else if (cli_choice(p, "1\0" "2\0", &k) < 0)
			return CLI_ERR;
		o->gcov_version = k + 1;
		if (*fmt == SPGO_FMT_UNKNOWN)
			*fmt = SPGO_FMT_GCOV;
		return 1;
	}
	case CLI_KEY_MD5:
		return o->md5 = 1;
	case CLI_KEY_COMPRESS:
		return o->compress = 1;
	case CLI_KEY_PARTIAL:
		return o->partial = 1;
	}
	return 0;
}
