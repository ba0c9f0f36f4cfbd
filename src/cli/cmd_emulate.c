/*
 * spgo emulate: run a program under qemu-x86_64 or qemu-aarch64 with spgo's
 * TCG plugin and write what `perf record -b -g` would have on a machine
 * with LBR or BRBE, or `perf record -b` on AMD's BRS or LbrExtV2 (a
 * perf.data with IP, TID, TIME, PERIOD, CALLCHAIN and BRANCH_STACK samples,
 * COMM, FORK and MMAP2 records), plus, on request, the exact ground truth of
 * the same run (spgo/ground_truth.h).
 *
 * The plugin is looked up in this order: --plugin, $SPGO_EMULATE_PLUGIN,
 * emulate/spgo-emulate.so beside the spgo program (the build tree), and
 * ../lib/spgo/spgo-emulate.so relative to it (an installation).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "spgo/common.h"
#include "spgo/emulate.h"

static const char usage[] =
	"usage: spgo emulate [options] -o perf.data [--ground-truth FILE] -- CMD [ARGS...]\n"
	"  -o, --output FILE        perf.data to write (required)\n"
	"  --ground-truth FILE      also write exact instruction and edge counts\n"
	"  --ground-truth-all       ... for shared objects too (default: main program)\n"
	"  --ground-truth-cs FILE   also write the main program's counts per calling\n"
	"                           context (frame-pointer and true views; contexts\n"
	"                           of at most --max-stack - 1 call sites)\n"
	"  -e, --event EV           count 'branches' (taken, default) or 'instructions'\n"
	"  -c, --period N           mean sampling period (default 20011; randomized\n"
	"                           uniformly in [N/2, 3N/2])\n"
	"  --branch-shape S         the branch records of one machine: lbr (Intel,\n"
	"                           32 entries, x86-64's default), brbe (Arm, 64,\n"
	"                           type and privilege; AArch64's), brs (AMD Zen3,\n"
	"                           16, no stacks), amd-lbr (AMD Zen4 LbrExtV2, 16,\n"
	"                           no stacks)\n"
	"  --wrong-path N           amd-lbr: 1 in N fall-throughs of a conditional\n"
	"                           branch leave a wrong-path record (default 32, 0 none)\n"
	"  --lbr N                  branch stack entries, 1..the shape's (default: all)\n"
	"  --skid N                 delay each sample by 0..N blocks (default 0)\n"
	"  --max-stack N            callchain entries kept, IP included (default 127)\n"
	"  --truncate PCT           cut PCT%% of stacks at a random depth (default 0)\n"
	"  --seed N                 random seed (default 1)\n"
	"  --qemu PATH              QEMU to run (default: qemu-x86_64 or qemu-aarch64\n"
	"                           from PATH, by the program's machine)\n"
	"  --sysroot DIR            an AArch64 program's libraries (qemu -L; default\n"
	"                           $QEMU_LD_PREFIX, else /usr/aarch64-linux-gnu)\n"
	"  --plugin PATH            the spgo-emulate.so plugin\n"
	"  -v, --verbose            report progress\n";

static void print_usage(FILE *fp)
{
	fputs(usage, fp);
}

enum { O_TRUTH = CLI_LONG, O_TRUTH_ALL, O_TRUTH_CS, O_LBR, O_SKID, O_MAXSTACK, O_TRUNC, O_SEED, O_QEMU, O_PLUGIN,
       O_SHAPE, O_SYSROOT, O_WRONG_PATH };
static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("ground-truth", O_TRUTH),
	CLI_FLAG("ground-truth-all", O_TRUTH_ALL),
	CLI_VAL("ground-truth-cs", O_TRUTH_CS),
	CLI_VAL("e", 'e'), CLI_VAL("event", 'e'),
	CLI_VAL("c", 'c'), CLI_VAL("period", 'c'),
	/* the order of O_LBR..O_TRUNC is that of their ranges in cmd_emulate() */
	CLI_VAL("lbr", O_LBR),
	CLI_VAL("skid", O_SKID),
	CLI_VAL("max-stack", O_MAXSTACK),
	CLI_VAL("truncate", O_TRUNC),
	CLI_VAL("seed", O_SEED),
	CLI_VAL("qemu", O_QEMU),
	CLI_VAL("plugin", O_PLUGIN),
	CLI_VAL("branch-shape", O_SHAPE),
	CLI_VAL("sysroot", O_SYSROOT),
	CLI_VAL("wrong-path", O_WRONG_PATH),
	CLI_FLAG("v", 'v'), CLI_FLAG("verbose", 'v'),
	{0},
};
static const struct cli_cmd cmd = {.name = "emulate", .usage = print_usage, .opts = opts, .in_order = 1};

/* The warnings about the run and the closing summary line. */
static void report(const struct spgo_emu_options *o, const struct spgo_emu_run *r, const char *name)
{
	const struct spgo_emu_stats *st = &r->stats;
	if (st->forks || st->execs)
		spgo_warn("%s started %llu process%s and %llu program%s (execve) that the emulation "
			  "cannot follow: their samples are missing (a shell script or wrapper? "
			  "emulate the program itself)",
			  name, (unsigned long long)st->forks, st->forks == 1 ? "" : "es",
			  (unsigned long long)st->execs, st->execs == 1 ? "" : "s");
	if (r->status > 128 && !st->exited)
		spgo_warn("%s was killed by signal %d", name, r->status - 128);
	else if (r->status)
		spgo_warn("%s exited with status %d", name, r->status);
	fprintf(stderr, "spgo: emulate: %s: %llu samples, %llu thread%s, %.1f MB, %.2f s%s%s\n", o->output,
		(unsigned long long)st->samples, (unsigned long long)st->threads,
		st->threads == 1 ? "" : "s", (double)st->bytes / 1e6, r->seconds,
		o->truth ? "; ground truth in " : "", o->truth ? o->truth : "");
}

int cmd_emulate(int argc, char **argv)
{
	struct spgo_emu_options o = {.period = 20011, .max_stack = 127, .seed = 1, .wrong_path = -1};
	const char *qemu = NULL, *plugin_opt = NULL;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	uint64_t u;
	int k;
	while ((k = cli_next(&op)) != CLI_END) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case 'o': o.output = op.val; break;
		case O_TRUTH: o.truth = op.val; break;
		case O_TRUTH_ALL: o.truth_all = 1; break;
		case O_TRUTH_CS: o.truth_cs = op.val; break;
		case 'e':
			if (cli_choice(&op, "branches\0instructions\0", &o.instructions) < 0)
				return 2;
			break;
		case 'c':
			if (cli_u64(&op, 1, 1ULL << 40, &o.period) < 0)
				return 2;
			break;
		case O_SEED:
			if (cli_u64(&op, 0, UINT64_MAX, &o.seed) < 0)
				return 2;
			break;
		case O_LBR: case O_SKID: case O_MAXSTACK: case O_TRUNC: {
			static const uint64_t lo[] = {1, 0, 1, 0}, hi[] = {64, 100000, 1024, 100};
			unsigned *field[] = {&o.lbr, &o.skid, &o.max_stack, &o.truncate};
			if (cli_u64(&op, lo[k - O_LBR], hi[k - O_LBR], &u) < 0)
				return 2;
			*field[k - O_LBR] = (unsigned)u;
			break;
		}
		case O_QEMU: qemu = op.val; break;
		case O_PLUGIN: plugin_opt = op.val; break;
		case O_SYSROOT: o.sysroot = op.val; break;
		case O_WRONG_PATH:
			if (cli_u64(&op, 0, 1u << 30, &u) < 0)
				return 2;
			o.wrong_path = (int)u;
			break;
		case O_SHAPE: {
			int sh;
			if (cli_choice(&op, "lbr\0brbe\0brs\0amd-lbr\0", &sh) < 0)
				return 2;
			o.shape = (enum spgo_emu_shape)(sh + 1);
			break;
		}
		case 'v': spgo_verbose = 1; break;
		}
	}
	int optind = op.i;
	if (!o.output)
		return cli_usage(&op, "no output: -o perf.data");
	if (optind >= argc)
		return cli_usage(&op, "no command to run (-- CMD ARGS...)");
	if (strcmp(o.output, "-") == 0)
		spgo_die("-o -: perf.data cannot be written to stdout (the header needs a seekable file)");
	/* Fail before a long emulation, not after, when outputs cannot be
	 * written: they are opened now. */
	const char *outs[] = {o.output, o.truth, o.truth_cs};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(outs); i++)
		if (outs[i] && spgo_out_reserve(outs[i]) < 0)
			return cli_fail();
	/* The program as a shell finds it (qemu-user looks in the current
	 * directory only), and one qemu can run: a script or a missing file
	 * is said as such, not as a run that failed. */
	char *prog = spgo_emu_which(argv[optind]);
	unsigned machine = 0;
	int bad = prog ? spgo_emu_check_program(prog, argv + optind + 1, &machine) : 127;
	if (bad) {
		free(prog);
		fprintf(stderr, "spgo: %s\n", spgo_errmsg());
		return bad;
	}
	if (spgo_emu_settle(&o, machine) < 0) {
		free(prog);
		return cli_usage(&op, "%s", spgo_errmsg());
	}
	struct spgo_emu_run r = {.qemu = qemu ? qemu : spgo_emu_qemu_for(machine),
				 .plugin = spgo_emu_find_plugin(plugin_opt)};
	if (!r.plugin)
		spgo_die("the QEMU plugin spgo-emulate.so was not built (it needs qemu-user, "
			 "libglib2.0-dev and Debian's qemu source package); give it with --plugin");
	if (access(r.plugin, R_OK) != 0)
		spgo_die("%s: cannot read the plugin: %s", r.plugin, strerror(errno));
	r.cmd = xcalloc((size_t)(argc - optind) + 1, sizeof *r.cmd);
	r.cmd[0] = prog;
	memcpy(r.cmd + 1, argv + optind + 1, (size_t)(argc - optind - 1) * sizeof *argv);
	/* The command line recorded in perf.data: "spgo emulate ...". */
	r.argc = argc + 1;
	r.argv = xcalloc((size_t)argc + 2, sizeof *r.argv);
	r.argv[0] = "spgo";
	memcpy(r.argv + 1, argv, (size_t)argc * sizeof *argv);
	int rc = spgo_emu_run(&o, &r) < 0 ? cli_fail() : 0;
	if (rc == 0)
		report(&o, &r, argv[optind]);
	/* Interrupted: what was kept is said, and the status is the shell's
	 * for the signal (130 for SIGINT), kept or not. */
	if (rc == 0 && r.signal == SIGINT)
		fprintf(stderr, "spgo: emulate: interrupted (SIGINT): %s holds the samples up to the "
				"interrupt\n", o.output);
	if (r.signal)
		rc = 128 + r.signal;
	free(r.argv);
	free(r.cmd);
	free(prog);
	free((char *)r.plugin);
	return rc;
}
