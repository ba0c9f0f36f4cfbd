/*
 * spgo record: run `perf record` with the best sampling event this machine
 * offers, and say which and why (the choice and its reasons:
 * spgo/perf_record.h).  perf's own -e, -F, -c, -p and -a are passed on; an
 * event given with -e is used as it is, without probing.  perf runs the
 * command (or attaches to -p PID, or records the system with -a) and its
 * exit status is ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/*
 * What perf is given as -o.  perf renames an existing output to OUT.old,
 * creates OUT and seeks back to write its header: given a device, a FIFO, a
 * socket or /dev/stdout, /dev/stderr, /dev/fd/N it would rename the node
 * away (as root, /dev/null itself) or fail at the end.  Those get perf's
 * pipe mode (-o -) with that output as its standard output (not for a dry
 * run); a symbolic link is resolved, so that the link stays a link.  NULL
 * when the output cannot be opened; *buf holds what is malloc'd.
 */
static const char *perf_output(const char *out, int dry, char **buf)
{
	struct stat st;
	int fd = -1;
	if (!strcmp(out, "-") || !strcmp(out, "/dev/stdout"))
		return "-";
	if (!strcmp(out, "/dev/stderr"))
		fd = 2;
	else if (!strncmp(out, "/dev/fd/", 8) && out[8] >= '0' && out[8] <= '9')
		fd = atoi(out + 8);
	else if (stat(out, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		fd = dry ? 1 : open(out, O_WRONLY | O_NOCTTY);
	else if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode) && (*buf = realpath(out, NULL)))
		return *buf;
	else
		return out;
	if (dry)
		return "-";
	if (fd < 0 || dup2(fd, 1) < 0) {
		fprintf(stderr, "spgo: record: %s: cannot open output: %s\n", out, strerror(errno));
		return NULL;
	}
	return "-";
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
	char *resolved = NULL;
	if (!(out = perf_output(out, dry, &resolved)))
		return 1;
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
	char **pargv = spgo_rec_argv(&ro);
	if (dry) {
		for (int k = 0; pargv[k]; k++)
			printf("%s%s", k ? " " : "", pargv[k]);
		printf("\n");
		free(pargv);
		free(resolved);
		return cli_stdout_done(0);
	}
	fflush(NULL);
	execvp(ro.perf, pargv);
	fprintf(stderr, "spgo: record: cannot run %s: %s\n", ro.perf, strerror(errno));
	free(pargv);
	free(resolved);
	return 1;
}
