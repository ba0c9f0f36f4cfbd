/*
 * The sampling event of `spgo record` and its perf command line: see
 * spgo/perf_record.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_record.h"

/* The candidates, best first, with the attribute perf makes of each. */
static const struct {
	struct spgo_rec_event ev;
	uint32_t type;
	uint64_t config;
	int precise;
} candidates[] = {
	{{"GenuineIntel", "br_inst_retired.near_taken:uppp", 1, "Intel LBR on taken branches"},
	 PERF_TYPE_RAW, 0x20c4, 3},
	{{"AuthenticAMD", "cycles:u", 1, "AMD branch stacks (LbrExtV2)"},
	 PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
	{{"AuthenticAMD", "branch-brs", 1, "AMD Zen 3 branch sampling"}, PERF_TYPE_RAW, 0xc4, 0},
	{{"arm", "cycles:u", 1, "ARM branch record buffer (BRBE)"},
	 PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
	{{NULL, "cycles:u", 0, "hardware cycle counter (no branch stacks)"},
	 PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
	{{NULL, "cpu-clock", 0, "timer sampling (no hardware counters available)"},
	 PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0},
};

static const char *cpu_vendor(void)
{
#if defined(__aarch64__) || defined(__arm__)
	return "arm";
#else
	static char vendor[64];
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
#endif
}

/* Does the kernel open candidate k for this process, as perf would? */
static int kernel_accepts(size_t k)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = candidates[k].type;
	a.config = candidates[k].config;
	a.sample_period = 100003;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.precise_ip = (unsigned)candidates[k].precise;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	if (candidates[k].ev.lbr) {
		a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	}
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
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

/* The fallback: does perf record `true` with candidate c? */
static int perf_accepts(const char *perf, const struct spgo_rec_event *c)
{
	char tmp[] = "/tmp/spgo-probe-XXXXXX";
	spgo_tmp_track(tmp); /* a signal meanwhile removes it */
	int fd = mkstemp(tmp);
	if (fd < 0) {
		spgo_tmp_untrack(tmp);
		return 0;
	}
	close(fd);
	const char *argv[] = {perf, "record", "-q", "-e", c->event, "--call-graph", "fp", "-o", tmp,
			      c->lbr ? "-b" : "--", c->lbr ? "--" : "true", c->lbr ? "true" : NULL,
			      NULL};
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
	spgo_tmp_untrack(tmp);
	return ok;
}

const struct spgo_rec_event *spgo_rec_best_event(const char *perf, char *refused, size_t cap)
{
	const char *vendor = cpu_vendor();
	for (int pass = 0; pass < 2; pass++) {
		size_t n = 0;
		refused[0] = 0;
		for (size_t k = 0; k < SPGO_ARRAY_LEN(candidates); k++) {
			const struct spgo_rec_event *c = &candidates[k].ev;
			if (c->vendor && strcmp(c->vendor, vendor))
				continue;
			if (pass == 0 ? kernel_accepts(k) : perf_accepts(perf, c))
				return c;
			if (n < cap)
				n += (size_t)snprintf(refused + n, cap - n, "%s'%s%s' unavailable",
						      n ? ", " : "", c->event, c->lbr ? " -b" : "");
		}
	}
	return NULL;
}

const char *spgo_rec_call_graph_arg(const char *mode)
{
	return !strcmp(mode, "dwarf") ? "dwarf,2048" : !strncmp(mode, "dwarf,", 6) ? mode
	       : !strcmp(mode, "fp") ? "fp" : NULL;
}

char **spgo_rec_argv(const struct spgo_rec_opts *o)
{
	size_t ncmd = 0, nextra = 0;
	while (o->cmd && o->cmd[ncmd])
		ncmd++;
	while (o->extra && o->extra[nextra])
		nextra++;
	const char **v = xcalloc(ncmd + nextra + 24, sizeof *v);
	size_t n = 0;
	const char *cg = spgo_rec_call_graph_arg(o->call_graph);
	v[n++] = o->perf;
	v[n++] = "record";
	v[n++] = "-e";
	v[n++] = o->event;
	if (o->lbr && o->branch_filter) {
		v[n++] = "-j";
		v[n++] = o->branch_filter;
	} else if (o->lbr) {
		v[n++] = "-b";
	}
	if (cg) {
		v[n++] = "--call-graph";
		v[n++] = cg;
	}
	if (o->freq) {
		v[n++] = "-F";
		v[n++] = o->freq;
	}
	if (o->count) {
		v[n++] = "-c";
		v[n++] = o->count;
	}
	v[n++] = "-o";
	v[n++] = o->output;
	if (o->all_cpus)
		v[n++] = "-a";
	if (o->pid) {
		v[n++] = "-p";
		v[n++] = o->pid;
	}
	for (size_t i = 0; i < nextra; i++)
		v[n++] = o->extra[i];
	if (ncmd) {
		v[n++] = "--";
		for (size_t i = 0; i < ncmd; i++)
			v[n++] = o->cmd[i];
	}
	v[n] = NULL;
	return (char **)v;
}

/*
 * The size of one sample as perf writes it for o (bytes): the record
 * header and the fields perf record always takes (ip, tid, time, period;
 * cpu and id with -a), plus what the call-stack mode and -b add.  The
 * figures are x86-64's: dwarf keeps the 20 user registers perf samples
 * there (8 bytes each and the ABI word) and the stack copy with its size
 * and dynamic-size words; a branch stack is its count, the hardware index
 * and 32 entries of 24 bytes (Intel's depth; AMD's 16 is half of it); an
 * fp chain is taken as 16 frames.  Measured with perf 6.1: 2297 bytes per
 * cpu-clock sample with dwarf,2048 against 2304 estimated.
 */
double spgo_rec_sample_bytes(const struct spgo_rec_opts *o)
{
	double b = 8 + 4 * 8 + (o->all_cpus ? 16 : 0);
	const char *cg = o->call_graph ? spgo_rec_call_graph_arg(o->call_graph) : NULL;
	if (o->call_graph && !strncmp(o->call_graph, "dwarf", 5)) {
		const char *size = strchr(o->call_graph, ',');
		if (!size && cg)
			size = strchr(cg, ',');
		double stack = size ? strtod(size + 1, NULL) : 8192; /* perf's default */
		b += 32 /* the kernel's part of the chain */ + 8 + 20 * 8 + 8 + stack + 8;
	} else if (cg) {
		b += 8 + 16 * 8;
	}
	if (o->lbr)
		b += 8 + 8 + 32 * 24;
	return b;
}

/* Samples per second of one busy thread, 0 when it cannot be told (-c on
 * an event whose rate is not a clock's). */
double spgo_rec_rate(const struct spgo_rec_opts *o)
{
	if (o->freq)
		return strtod(o->freq, NULL);
	if (!o->count)
		return 4000; /* perf record's default -F */
	double c = strtod(o->count, NULL);
	if (c > 0 && o->event && (!strncmp(o->event, "cpu-clock", 9) || !strncmp(o->event, "task-clock", 10)))
		return 1e9 / c; /* a period in nanoseconds */
	return 0;
}

double spgo_rec_max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	double r = 0;
	if (f) {
		if (fscanf(f, "%lf", &r) != 1 || r < 0)
			r = 0;
		fclose(f);
	}
	return r;
}

/* The wall time of a run of secs seconds at rate0 when recorded at rate:
 * perf's cost per sample is time taken from the program. */
static double secs_at(double secs, double rate0, double rate)
{
	return secs * (1 + SPGO_REC_SAMPLE_COST * rate) / (1 + SPGO_REC_SAMPLE_COST * rate0);
}

double spgo_rec_density_aim(double min, int lbr)
{
	return min * (lbr ? SPGO_REC_MARGIN_LBR : SPGO_REC_MARGIN_IP);
}

int spgo_rec_plan_enough(double need, double rate, double secs, double max_rate, struct spgo_rec_plan *p)
{
	memset(p, 0, sizeof *p);
	p->need = need;
	if (!(need > 1) || rate <= 0)
		return 0;
	/* the rate first: up to the ceiling and the kernel's maximum, in
	 * whole hundreds of Hz, never below the first run's */
	double ceiling = SPGO_REC_RATE_CEILING;
	if (max_rate > 0 && max_rate < ceiling)
		ceiling = max_rate;
	double r = rate * need;
	if (r > ceiling)
		r = ceiling;
	r = (double)(long long)(r / 100 + 0.999) * 100;
	if (r > ceiling)
		r = ceiling;
	if (r < rate)
		r = rate;
	/* then the runs, within the bounds */
	double one = secs_at(secs, rate, r);
	double k = need * rate / r - 1e-9;
	long long runs = (long long)k + (k > (double)(long long)k);
	if (runs > SPGO_REC_MAX_RUNS)
		runs = SPGO_REC_MAX_RUNS;
	if (one > 0 && (double)runs * one > SPGO_REC_MAX_SECONDS)
		runs = (long long)(SPGO_REC_MAX_SECONDS / one);
	if (runs < 1 || (runs == 1 && r <= rate))
		return -1; /* (nothing the first run has not) */
	p->rate = r;
	p->runs = (int)runs;
	p->secs = (double)runs * one;
	p->reach = r / rate * (double)runs;
	return 1;
}
