/*
 * spgo record: run `perf record` with the best sampling event this machine
 * offers, and say which and why.  The preference, best first:
 *
 *   1. LBR (branch stacks) with frame-pointer call stacks: on Intel
 *      br_inst_retired.near_taken:uppp -b; on AMD (Zen 3 branch sampling,
 *      Zen 4 LbrExtV2) and ARM (BRBE) cycles:u -b (AMD Zen 3: branch-brs).
 *   2. cycles:u (a hardware cycle counter, no branch stacks).
 *   3. cpu-clock (a timer; what virtual machines without a PMU offer).
 *
 * Each candidate is probed by recording `true` with it; the first perf
 * accepts wins.  Then perf runs the command (or attaches to -p PID) with
 * that event, and its exit status is ours.
 *
 * Call stacks (--call-graph): with branch stacks, fp (cheap; the branch
 * stack carries what spgo gen needs).  Without them (IP mode), dwarf,2048:
 * the user registers and the top 2 KB of the stack per sample, from which
 * spgo gen unwinds the sampled function's caller by .eh_frame and so finds
 * the targets of indirect calls (src/gen/gen_icall.c).  -O2 code keeps no
 * frame pointers, so fp chains name no caller there.  The cost is about
 * 2 KB of perf.data per sample.  --call-graph fp|dwarf|none overrides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "spgo/common.h"
#include "spgo/perf.h"

struct candidate {
	const char *vendor; /* "GenuineIntel", "AuthenticAMD", "arm", or NULL = any */
	const char *event;
	int lbr;
	const char *why;
};

static const struct candidate candidates[] = {
	{"GenuineIntel", "br_inst_retired.near_taken:uppp", 1, "Intel LBR on taken branches"},
	{"AuthenticAMD", "cycles:u", 1, "AMD branch stacks (LbrExtV2)"},
	{"AuthenticAMD", "branch-brs", 1, "AMD Zen 3 branch sampling"},
	{"arm", "cycles:u", 1, "ARM branch record buffer (BRBE)"},
	{NULL, "cycles:u", 0, "hardware cycle counter (no branch stacks)"},
	{NULL, "cpu-clock", 0, "timer sampling (no hardware counters available)"},
};

static const char *cpu_vendor(void)
{
	static char vendor[64];
#if defined(__aarch64__) || defined(__arm__)
	return "arm";
#endif
	FILE *fp = fopen("/proc/cpuinfo", "r");
	if (!fp)
		return "";
	char line[256];
	while (fgets(line, sizeof line, fp)) {
		if (!strncmp(line, "vendor_id", 9)) {
			char *c = strchr(line, ':');
			if (c && sscanf(c + 1, " %63s", vendor) == 1)
				break;
		}
	}
	fclose(fp);
	return vendor;
}

/* Run argv quietly; its exit status, or -1 if it could not run. */
static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int probe(const char *perf, const struct candidate *c)
{
	char tmp[] = "/tmp/spgo-probe-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0)
		return 0;
	close(fd);
	const char *argv[16];
	int n = 0;
	argv[n++] = perf;
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-e";
	argv[n++] = c->event;
	if (c->lbr)
		argv[n++] = "-b";
	argv[n++] = "--call-graph";
	argv[n++] = "fp";
	argv[n++] = "-o";
	argv[n++] = tmp;
	argv[n++] = "--";
	argv[n++] = "true";
	argv[n] = NULL;
	int rc = run_quiet((char *const *)argv), ok = 0;
	/* perf silently falls back from cycles to cpu-clock when there is no
	 * PMU: check that the file holds the event we asked for. */
	struct spgo_perf_reader *r;
	if (rc == 0 && spgo_perf_open(&r, tmp, 0) == 0) {
		const struct spgo_perf_attr *a = spgo_perf_attr(r, 0);
		ok = a && (a->attr.type != PERF_TYPE_SOFTWARE || !strcmp(c->event, "cpu-clock")) &&
		     (!c->lbr || (a->attr.sample_type & PERF_SAMPLE_BRANCH_STACK));
		spgo_perf_close(r);
	}
	unlink(tmp);
	return ok;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo record [-o FILE] [--dry-run] -- CMD [ARGS...]\n"
		    "       spgo record [-o FILE] [--dry-run] -p PID\n"
		    "       options: --call-graph fp|dwarf|none\n"
		    "Runs perf record with the best event this machine offers (LBR, else\n"
		    "cycles, else cpu-clock) and says which it chose.  Call stacks: fp with\n"
		    "LBR; without it dwarf,2048 (the callers of samples in code without frame\n"
		    "pointers: spgo gen takes indirect-call targets from them); --call-graph\n"
		    "sets the mode (none: no call stacks).\n"
		    "The perf program is $PERF if set, else perf.\n");
}

int cmd_record(int argc, char **argv)
{
	const char *out = "perf.data", *pid = NULL, *cg = NULL;
	int dry = 0, i;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			pid = argv[++i];
		} else if (!strcmp(argv[i], "--call-graph") && i + 1 < argc) {
			cg = argv[++i];
			if (strcmp(cg, "fp") && strcmp(cg, "dwarf") && strcmp(cg, "none")) {
				fprintf(stderr, "spgo: record: --call-graph %s: expected fp, dwarf or none\n",
					cg);
				return 2;
			}
		} else if (!strcmp(argv[i], "--dry-run")) {
			dry = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] != '-') {
			break;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if ((i >= argc) == !pid) {
		usage(stderr);
		return 2;
	}
	const char *perf = getenv("PERF") ? getenv("PERF") : "perf";
	const char *vendor = cpu_vendor();
	const struct candidate *best = NULL;
	VEC(char) refused = {0};
	for (size_t k = 0; k < SPGO_ARRAY_LEN(candidates); k++) {
		const struct candidate *c = &candidates[k];
		if (c->vendor && strcmp(c->vendor, vendor))
			continue;
		if (probe(perf, c)) {
			best = c;
			break;
		}
		char *s = xasprintf("%s'%s%s' unavailable", refused.n ? ", " : "", c->event,
				    c->lbr ? " -b" : "");
		for (char *p = s; *p; p++)
			VEC_PUSH(&refused, *p);
		free(s);
	}
	VEC_PUSH(&refused, '\0');
	if (!best) {
		fprintf(stderr, "spgo: record: perf accepts none of the events (%s); is perf "
				"installed and perf_event_paranoid low enough?\n", refused.v);
		VEC_FREE(&refused);
		return 1;
	}
	/* the call-stack mode: see the top of this file */
	if (!cg)
		cg = best->lbr ? "fp" : "dwarf";
	const char *cgarg = !strcmp(cg, "dwarf") ? "dwarf,2048" : !strcmp(cg, "fp") ? "fp" : NULL;
	fprintf(stderr, "spgo: record: using %s%s%s%s: %s%s%s%s\n", best->event, best->lbr ? " -b" : "",
		cgarg ? " --call-graph " : "", cgarg ? cgarg : "", best->why, refused.n > 1 ? " (" : "",
		refused.n > 1 ? refused.v : "", refused.n > 1 ? ")" : "");
	VEC_FREE(&refused);

	const char **pargv = xcalloc((size_t)(argc - i) + 16, sizeof *pargv);
	int n = 0;
	pargv[n++] = perf;
	pargv[n++] = "record";
	pargv[n++] = "-e";
	pargv[n++] = best->event;
	if (best->lbr)
		pargv[n++] = "-b";
	if (cgarg) {
		pargv[n++] = "--call-graph";
		pargv[n++] = cgarg;
	}
	pargv[n++] = "-o";
	pargv[n++] = out;
	if (pid) {
		pargv[n++] = "-p";
		pargv[n++] = pid;
	} else {
		pargv[n++] = "--";
		for (; i < argc; i++)
			pargv[n++] = argv[i];
	}
	pargv[n] = NULL;
	if (dry) {
		for (int k = 0; k < n; k++)
			printf("%s%s", k ? " " : "", pargv[k]);
		printf("\n");
		free(pargv);
		return 0;
	}
	fflush(NULL);
	execvp(perf, (char *const *)pargv);
	fprintf(stderr, "spgo: record: cannot run %s: %s\n", perf, strerror(errno));
	free(pargv);
	return 1;
}
