/*
 * spgo record: run `perf record` with the best sampling event this machine
 * offers, and say which and why (the choice and its reasons:
 * spgo/perf_record.h).  perf's own -e, -F, -c, -p and -a are passed on; an
 * event given with -e is used as it is, without probing.  perf runs the
 * command (or attaches to -p PID, or records the system with -a) and its
 * exit status is ours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "spgo/common.h"
#include "spgo/perf_record.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo record [-o FILE] [perf options] [--dry-run] [--] CMD [ARGS...]\n"
		    "       spgo record [-o FILE] [perf options] [--dry-run] -p PID | -a\n"
		    "Runs perf record with the best event this machine offers (LBR, else\n"
		    "cycles, else cpu-clock) and says which it chose.\n"
		    "  -o, --output FILE    the perf.data to write (default perf.data)\n"
		    "  --call-graph fp|dwarf|none\n"
		    "                       call stacks: fp with LBR; without it dwarf (the\n"
		    "                       callers of samples in code without frame pointers:\n"
		    "                       spgo gen takes indirect-call targets from them).\n"
		    "                       dwarf copies 2 KB of stack per sample: about 10 MB/s\n"
		    "                       of perf.data at perf's default rate and up to twice\n"
		    "                       the wall time; none records no stacks.  Without LBR,\n"
		    "                       fp is what spgo gen --cs needs (IP samples with\n"
		    "                       call stacks; build with -fno-omit-frame-pointer\n"
		    "                       -mno-omit-leaf-frame-pointer)\n"
		    "  --dry-run            print the perf command instead of running it\n"
		    "perf's own options, passed on:\n"
		    "  -e EVENT             this event instead of the best one (no probing)\n"
		    "  -F FREQ, -c COUNT    sampling frequency or period\n"
		    "  -p PID, -a           attach to a process, or the whole system\n"
		    "The perf program is $PERF if set, else perf.\n");
}

enum { O_CALL_GRAPH = CLI_LONG, O_DRY_RUN };
static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("p", 'p'), CLI_VAL("pid", 'p'),
	CLI_VAL("e", 'e'), CLI_VAL("event", 'e'),
	CLI_VAL("F", 'F'), CLI_VAL("freq", 'F'),
	CLI_VAL("c", 'c'), CLI_VAL("count", 'c'),
	CLI_FLAG("a", 'a'), CLI_FLAG("all-cpus", 'a'),
	CLI_VAL("call-graph", O_CALL_GRAPH),
	CLI_FLAG("dry-run", O_DRY_RUN),
	{0},
};
static const struct cli_cmd cmd = {.name = "record", .usage = usage, .opts = opts, .in_order = 1};

/* The data rate the recording will write, said before it starts; a warning
 * when it is heavy (spgo_rec_sample_bytes() has the figures). */
static void report_rate(const struct spgo_rec_opts *ro)
{
	double bytes = spgo_rec_sample_bytes(ro), rate = spgo_rec_rate(ro);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		cpus = 1;
	if (!rate) {
		fprintf(stderr, "spgo: record: about %.0f bytes of perf.data per sample\n", bytes);
		return;
	}
	double mbs = bytes * rate / 1e6;
	if (ro->all_cpus)
		fprintf(stderr, "spgo: record: about %.1f MB/s of perf.data (%.0f bytes per sample x "
				"%.0f samples/s x %ld CPUs)\n", mbs * (double)cpus, bytes, rate, cpus);
	else
		fprintf(stderr, "spgo: record: about %.1f MB/s of perf.data per busy thread (%.0f bytes "
				"per sample x %.0f samples/s; up to %.1f MB/s with all %ld CPUs busy)\n",
			mbs, bytes, rate, mbs * (double)cpus, cpus);
	if (bytes * rate > SPGO_REC_HEAVY_RATE)
		fprintf(stderr, "spgo: warning: a heavy recording: %.0f MB per minute of a busy thread%s; "
				"a lower -F%s keeps it smaller\n", mbs * 60,
			ro->all_cpus ? " (each CPU)" : "",
			ro->call_graph && !strcmp(ro->call_graph, "dwarf")
				? ", or --call-graph fp or none (dwarf copies 2 KB of stack per sample),"
				: "");
}

int cmd_record(int argc, char **argv)
{
	const char *out = "perf.data", *pid = NULL, *cg = NULL, *event = NULL, *freq = NULL, *count = NULL;
	int dry = 0, all = 0, i, k;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	while ((k = cli_next(&op)) != CLI_END) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case 'o': out = op.val; break;
		case 'p': pid = op.val; break;
		case 'e': event = op.val; break;
		case 'F': freq = op.val; break;
		case 'c': count = op.val; break;
		case 'a': all = 1; break;
		case O_CALL_GRAPH:
			if (cli_choice(&op, "fp\0dwarf\0none\0", &k) < 0)
				return 2;
			cg = op.val;
			break;
		case O_DRY_RUN: dry = 1; break;
		}
	}
	i = op.i;
	if (pid && i < argc)
		return cli_usage(&op, "-p PID and a command: one or the other");
	if (!pid && !all && i >= argc)
		return cli_usage(&op, "no command to record (-- CMD ARGS..., -p PID or -a)");
	struct spgo_rec_opts ro = {.perf = getenv("PERF") ? getenv("PERF") : "perf", .output = out,
				   .event = event, .freq = freq, .count = count, .pid = pid,
				   .all_cpus = all, .cmd = i < argc ? argv + i : NULL};
	if (!event) {
		char refused[512];
		const struct spgo_rec_event *best = spgo_rec_best_event(ro.perf, refused, sizeof refused);
		if (!best) {
			fprintf(stderr, "spgo: record: perf accepts none of the events (%s); is perf "
					"installed and perf_event_paranoid low enough?\n", refused);
			return 1;
		}
		ro.event = best->event;
		ro.lbr = best->lbr;
		/* the call-stack mode: see spgo/perf_record.h */
		ro.call_graph = cg ? cg : best->lbr ? "fp" : "dwarf";
		const char *cgarg = spgo_rec_call_graph_arg(ro.call_graph);
		fprintf(stderr, "spgo: record: using %s%s%s%s: %s%s%s%s\n", best->event,
			best->lbr ? " -b" : "", cgarg ? " --call-graph " : "", cgarg ? cgarg : "",
			best->why, *refused ? " (" : "", refused, *refused ? ")" : "");
	} else {
		ro.call_graph = cg ? cg : "dwarf";
	}
	report_rate(&ro);
	char **pargv = spgo_rec_argv(&ro);
	if (dry) {
		for (int k = 0; pargv[k]; k++)
			printf("%s%s", k ? " " : "", pargv[k]);
		printf("\n");
		free(pargv);
		return 0;
	}
	fflush(NULL);
	execvp(ro.perf, pargv);
	fprintf(stderr, "spgo: record: cannot run %s: %s\n", ro.perf, strerror(errno));
	free(pargv);
	return 1;
}
