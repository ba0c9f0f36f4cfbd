/*
 * spgo emulate: run a program under qemu-x86_64 with spgo's TCG plugin and
 * write what `perf record -b -g` would have on a machine with LBR (a
 * perf.data with IP, TID, TIME, PERIOD, CALLCHAIN and BRANCH_STACK samples,
 * COMM, FORK and MMAP2 records), plus, on request, the exact ground truth of
 * the same run (spgo/ground_truth.h).
 *
 * The plugin is looked up in this order: --plugin, $SPGO_EMULATE_PLUGIN,
 * emulate/spgo-emulate.so beside the spgo program (the build tree), and
 * ../lib/spgo/spgo-emulate.so relative to it (an installation).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/emulate.h"
#include "spgo/common.h"
#include "spgo/ground_truth.h"

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
	"  --lbr N                  branch stack entries, 1..32 (default 32)\n"
	"  --skid N                 delay each sample by 0..N blocks (default 0)\n"
	"  --max-stack N            callchain entries kept, IP included (default 127)\n"
	"  --truncate PCT           cut PCT%% of stacks at a random depth (default 0)\n"
	"  --seed N                 random seed (default 1)\n"
	"  --qemu PATH              qemu-x86_64 to run (default: from PATH)\n"
	"  --plugin PATH            the spgo-emulate.so plugin\n"
	"  -v, --verbose            report progress\n";

static char *find_plugin(const char *given)
{
	if (given)
		return xstrdup(given);
	const char *env = getenv("SPGO_EMULATE_PLUGIN");
	if (env && *env)
		return xstrdup(env);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		const char *rel[] = {"emulate/spgo-emulate.so", "../lib/spgo/spgo-emulate.so"};
		for (size_t i = 0; i < SPGO_ARRAY_LEN(rel); i++) {
			char *p = xasprintf("%s/%s", self, rel[i]);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
	return NULL;
}

static int parse_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (spgo_parse_u64(s, out) < 0 || *out < lo || *out > hi)
		return spgo_error("%s: '%s' is not a number in [%llu, %llu]", opt, s,
				  (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static void rmtree(const char *dir, const char *const *files)
{
	for (size_t i = 0; files[i]; i++)
		unlink(files[i]);
	rmdir(dir);
}

int cmd_emulate(int argc, char **argv)
{
	struct emu_options o = {.period = 20011, .lbr = 32, .max_stack = 127, .seed = 1};
	const char *qemu = "qemu-x86_64", *plugin_opt = NULL;
	enum { O_TRUTH = 256, O_TRUTH_ALL, O_TRUTH_CS, O_LBR, O_SKID, O_MAXSTACK, O_TRUNC, O_SEED, O_QEMU, O_PLUGIN };
	static const struct option longopts[] = {
		{"output", required_argument, 0, 'o'},
		{"ground-truth", required_argument, 0, O_TRUTH},
		{"ground-truth-all", no_argument, 0, O_TRUTH_ALL},
		{"ground-truth-cs", required_argument, 0, O_TRUTH_CS},
		{"event", required_argument, 0, 'e'},
		{"period", required_argument, 0, 'c'},
		{"lbr", required_argument, 0, O_LBR},
		{"skid", required_argument, 0, O_SKID},
		{"max-stack", required_argument, 0, O_MAXSTACK},
		{"truncate", required_argument, 0, O_TRUNC},
		{"seed", required_argument, 0, O_SEED},
		{"qemu", required_argument, 0, O_QEMU},
		{"plugin", required_argument, 0, O_PLUGIN},
		{"verbose", no_argument, 0, 'v'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	uint64_t u;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:e:c:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case O_TRUTH:
			o.truth = optarg;
			break;
		case O_TRUTH_ALL:
			o.truth_all = 1;
			break;
		case O_TRUTH_CS:
			o.truth_cs = optarg;
			break;
		case 'e':
			if (strcmp(optarg, "instructions") == 0)
				o.instructions = 1;
			else if (strcmp(optarg, "branches") == 0)
				o.instructions = 0;
			else
				spgo_die("--event: '%s' is not 'branches' or 'instructions'", optarg);
			break;
		case 'c':
			if (parse_uint("--period", optarg, 1, 1ULL << 40, &o.period) < 0)
				return cli_fail();
			break;
		case O_LBR:
			if (parse_uint("--lbr", optarg, 1, 32, &u) < 0)
				return cli_fail();
			o.lbr = (unsigned)u;
			break;
		case O_SKID:
			if (parse_uint("--skid", optarg, 0, 100000, &u) < 0)
				return cli_fail();
			o.skid = (unsigned)u;
			break;
		case O_MAXSTACK:
			if (parse_uint("--max-stack", optarg, 1, 1024, &u) < 0)
				return cli_fail();
			o.max_stack = (unsigned)u;
			break;
		case O_TRUNC:
			if (parse_uint("--truncate", optarg, 0, 100, &u) < 0)
				return cli_fail();
			o.truncate = (unsigned)u;
			break;
		case O_SEED:
			if (parse_uint("--seed", optarg, 0, UINT64_MAX, &o.seed) < 0)
				return cli_fail();
			break;
		case O_QEMU:
			qemu = optarg;
			break;
		case O_PLUGIN:
			plugin_opt = optarg;
			break;
		case 'v':
			spgo_verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!o.output || optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (strcmp(o.output, "-") == 0)
		spgo_die("-o -: perf.data cannot be written to stdout (the header needs a seekable file)");
	/* Fail before a long emulation, not after, when outputs cannot be written. */
	const char *outs[] = {o.output, o.truth, o.truth_cs};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(outs); i++) {
		if (!outs[i])
			continue;
		char *d = xstrdup(outs[i]);
		char *slash = strrchr(d, '/');
		const char *dd = slash ? (slash == d ? "/" : (*slash = 0, d)) : ".";
		if (access(dd, W_OK) != 0)
			spgo_die("%s: cannot create output: %s", outs[i], strerror(errno));
		free(d);
	}
	char *plugin = find_plugin(plugin_opt);
	if (!plugin)
		spgo_die("the QEMU plugin spgo-emulate.so was not built (it needs qemu-user, "
			 "libglib2.0-dev and Debian's qemu source package); give it with --plugin");
	if (access(plugin, R_OK) != 0)
		spgo_die("%s: cannot read the plugin: %s", plugin, strerror(errno));

	const char *tmpdir = getenv("TMPDIR");
	char *dir = xasprintf("%s/spgo-emulate.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir))
		spgo_die("%s: cannot create a temporary directory: %s", dir, strerror(errno));
	char *trace = xasprintf("%s/trace", dir), *counts = xasprintf("%s/counts", dir);
	char *cscounts = xasprintf("%s/cscounts", dir), *entries = xasprintf("%s/entries", dir);
	const char *files[] = {trace, counts, cscounts, entries, NULL};
	char *csargs = xstrdup("");
	if (o.truth_cs) {
		/* The plugin tells tail calls by the program's function entries. */
		if (spgo_gt_cs_write_entries(argv[optind], entries) < 0) {
			rmtree(dir, files);
			spgo_die("%s", spgo_errmsg());
		}
		free(csargs);
		csargs = xasprintf(",cscounts=%s,entries=%s,csdepth=%u", cscounts, entries,
				   o.max_stack > 1 ? o.max_stack - 1 : 1);
	}
	if (strchr(dir, ',') || strchr(plugin, ','))
		spgo_die("%s: paths given to the QEMU plugin cannot contain ','", dir);

	char *pargs = xasprintf("%s,trace=%s%s%s%s,event=%s,period=%llu,lbr=%u,skid=%u,maxstack=%u,"
				"truncate=%u,seed=%llu",
				plugin, trace, o.truth ? ",counts=" : "", o.truth ? counts : "", csargs,
				o.instructions ? "instructions" : "branches",
				(unsigned long long)o.period, o.lbr, o.skid, o.max_stack, o.truncate,
				(unsigned long long)o.seed);
	int nargs = argc - optind;
	char **qargv = xcalloc((size_t)nargs + 4, sizeof *qargv);
	qargv[0] = (char *)qemu;
	qargv[1] = "-plugin";
	qargv[2] = pargs;
	for (int i = 0; i < nargs; i++)
		qargv[3 + i] = argv[optind + i];

	spgo_info("running %s with %s", qemu, plugin);
	double t0 = spgo_now();
	pid_t pid = fork();
	if (pid < 0)
		spgo_die("fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(qemu, qargv);
		fprintf(stderr, "spgo: %s: cannot run: %s\n", qemu, strerror(errno));
		_exit(127);
	}
	/* Ctrl-C goes to the program; we wait for it and still convert. */
	signal(SIGINT, SIG_IGN);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	signal(SIGINT, SIG_DFL);
	spgo_info("emulation took %.2f s", spgo_now() - t0);
	int rc = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		rc = 1; /* exec failed, already reported */
	} else {
		if (WIFSIGNALED(status))
			spgo_warn("%s was killed by signal %d", argv[optind], WTERMSIG(status));
		else if (WEXITSTATUS(status) != 0)
			spgo_warn("%s exited with status %d", argv[optind], WEXITSTATUS(status));
		struct stat st;
		if (stat(trace, &st) != 0) {
			fprintf(stderr, "spgo: the QEMU plugin wrote no trace (did qemu load it?)\n");
			rc = 1;
		} else if (st.st_size <= 8) {
			fprintf(stderr, "spgo: %s: did not run under %s\n", argv[optind], qemu);
			rc = 1;
		} else {
			/* The command line recorded in perf.data: "spgo emulate ...". */
			char **cmd = xcalloc((size_t)argc + 2, sizeof *cmd);
			cmd[0] = "spgo";
			memcpy(cmd + 1, argv, (size_t)argc * sizeof *argv);
			o.cscounts = cscounts;
			if (emu_convert(&o, trace, counts, argc + 1, cmd) < 0)
				rc = cli_fail();
			free(cmd);
		}
	}
	rmtree(dir, files);
	free(qargv);
	free(pargs);
	free(trace);
	free(counts);
	free(cscounts);
	free(entries);
	free(csargs);
	free(dir);
	free(plugin);
	return rc;
}
