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
		    "  --call-graph dwarf,SIZE  dwarf with SIZE bytes of stack per sample\n"
		    "                       (a multiple of 8, at most 65528; default 2048)\n"
		    "  --dry-run            print the perf command instead of running it\n"
		    "perf's own options, passed on:\n"
		    "  -e EVENT             this event instead of the best one (no probing)\n"
		    "  -F FREQ, -c COUNT    sampling frequency or period\n"
		    "  -p PID, -a           attach to a process, or the whole system\n"
		    "  -g                   --call-graph fp (perf's meaning)\n"
		    "  -b, -j any[,u|,k]    branch stacks (LBR) required: an error when the\n"
		    "                       machine has none (spgo emulate records them under\n"
		    "                       QEMU); other -j filters are refused (spgo gen\n"
		    "                       needs every taken branch)\n"
		    "  -z                   zstd-compressed perf.data (spgo reads it)\n"
		    "Any other option before the command is passed to perf record as it is,\n"
		    "with a note (its value attached: --mmap-pages=128, -m128); one close to\n"
		    "an option of spgo record is taken for a typo of it and refused.\n"
		    "--call-graph lbr is refused: it turns the LBR into a call stack, and\n"
		    "spgo gen reads the LBR as branches (use fp, which -b pairs with).\n"
		    "The perf program is $PERF if set, else perf.\n");
}

enum { O_CALL_GRAPH = CLI_LONG, O_DRY_RUN, O_BRANCH_FILTER };
static const struct cli_opt opts[] = {
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("p", 'p'), CLI_VAL("pid", 'p'),
	CLI_VAL("e", 'e'), CLI_VAL("event", 'e'),
	CLI_VAL("F", 'F'), CLI_VAL("freq", 'F'),
	CLI_VAL("c", 'c'), CLI_VAL("count", 'c'),
	CLI_FLAG("a", 'a'), CLI_FLAG("all-cpus", 'a'),
	CLI_VAL("call-graph", O_CALL_GRAPH),
	CLI_ALIAS("g", O_CALL_GRAPH, "fp"),
	CLI_FLAG("b", 'b'), CLI_FLAG("branch-any", 'b'),
	CLI_VAL("j", O_BRANCH_FILTER), CLI_VAL("branch-filter", O_BRANCH_FILTER),
	CLI_FLAG("z", 'z'),
	CLI_FLAG("dry-run", O_DRY_RUN),
	{0},
};
static const struct cli_cmd cmd = {.name = "record", .usage = usage, .opts = opts, .in_order = 1,
				   .pass_unknown = 1};

/* --call-graph MODE: fp, dwarf, dwarf,SIZE or none; lbr refused.  0, or
 * CLI_ERR reported. */
static int call_graph(const struct cli_parser *op)
{
	const char *v = op->val;
	if (!strncmp(v, "dwarf,", 6)) {
		uint64_t size;
		if (spgo_parse_u64(v + 6, &size) < 0 || size == 0 || size % 8 || size > 65528)
			return cli_bad(op, "option '%s': the stack size of '%s' is not a multiple of 8 in "
				       "[8, 65528]", op->opt, v);
		return 0;
	}
	if (!strcmp(v, "lbr"))
		return cli_bad(op, "option '%s': lbr turns the branch stack into a call stack, which "
			       "spgo gen cannot read as branches: use --call-graph fp (with -b)", op->opt);
	int k;
	return cli_choice(op, "fp\0dwarf\0none\0", &k);
}

/* -j FILTER: spgo gen reads every taken branch, so "any" with privilege
 * levels (u, k, hv) only.  0, or CLI_ERR reported. */
static int branch_filter(const struct cli_parser *op)
{
	int any = 0;
	for (const char *t = op->val; *t; t += strcspn(t, ",") + (t[strcspn(t, ",")] == ',')) {
		size_t n = strcspn(t, ",");
		if (n == 3 && !memcmp(t, "any", 3))
			any = 1;
		else if (!((n == 1 && (*t == 'u' || *t == 'k')) || (n == 2 && !memcmp(t, "hv", 2))))
			return cli_bad(op, "option '%s': '%.*s' records only some branches; spgo gen needs "
				       "every taken branch: -j any (or -b)", op->opt, (int)n, t);
	}
	if (!any)
		return cli_bad(op, "option '%s': '%s' names no branch type; spgo gen needs -j any (or -b)",
			       op->opt, op->val);
	return 0;
}

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
	const char *filter = NULL;
	int dry = 0, all = 0, lbr = 0, i, k, nextra = 0;
	char **extra = xcalloc((size_t)argc + 1, sizeof *extra);
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	while ((k = cli_next(&op)) != CLI_END) {
		switch (k) {
		case CLI_HELP: free(extra); return 0;
		case CLI_ERR: free(extra); return 2;
		case CLI_ARG: { /* an option of perf's own, unless a typo of ours */
			const char *w = op.val + 1 + (op.val[1] == '-');
			const char *guess = w[0] && w[1] ? cli_did_you_mean(&cmd, w, strcspn(w, "=")) : NULL;
			if (guess) {
				free(extra);
				return cli_usage(&op, "unknown option '%s'; did you mean '--%s'?", op.val, guess);
			}
			fprintf(stderr, "spgo: record: note: passing '%s' to perf record as it is\n", op.val);
			extra[nextra++] = (char *)op.val;
			break;
		}
		case 'b': lbr = 1; break;
		case O_BRANCH_FILTER:
			if (branch_filter(&op) < 0) {
				free(extra);
				return 2;
			}
			lbr = 1, filter = op.val;
			break;
		case 'z': extra[nextra++] = "-z"; break;
		case 'o': out = op.val; break;
		case 'p': pid = op.val; break;
		case 'e': event = op.val; break;
		case 'F': freq = op.val; break;
		case 'c': count = op.val; break;
		case 'a': all = 1; break;
		case O_CALL_GRAPH:
			if (call_graph(&op) < 0) {
				free(extra);
				return 2;
			}
			cg = op.val;
			break;
		case O_DRY_RUN: dry = 1; break;
		}
	}
	i = op.i;
	char *resolved = NULL;
	int rc = 2;
	if (pid && i < argc) {
		cli_usage(&op, "-p PID and a command: one or the other");
		goto out;
	}
	if (!pid && !all && i >= argc) {
		cli_usage(&op, "no command to record (-- CMD ARGS..., -p PID or -a)");
		goto out;
	}
	rc = 1;
	if (!(out = perf_output(out, dry, &resolved)))
		goto out;
	struct spgo_rec_opts ro = {.perf = getenv("PERF") ? getenv("PERF") : "perf", .output = out,
				   .event = event, .freq = freq, .count = count, .pid = pid,
				   .all_cpus = all, .cmd = i < argc ? argv + i : NULL, .extra = extra,
				   .lbr = lbr, .branch_filter = filter};
	rc = 1;
	if (!event) {
		char refused[512];
		const struct spgo_rec_event *best = spgo_rec_best_event(ro.perf, refused, sizeof refused);
		if (!best) {
			fprintf(stderr, "spgo: record: perf accepts none of the events (%s); is perf "
					"installed and perf_event_paranoid low enough?\n", refused);
			goto out;
		}
		if (lbr && !best->lbr) {
			fprintf(stderr, "spgo: record: branch stacks (-b) asked for, but this machine offers "
					"none (%s); record without -b (spgo gen then works from IP samples), "
					"or get LBR under QEMU with spgo emulate\n", refused);
			goto out;
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
		rc = cli_stdout_done(0);
	} else {
		fflush(NULL);
		execvp(ro.perf, pargv);
		fprintf(stderr, "spgo: record: cannot run %s: %s\n", ro.perf, strerror(errno));
	}
	free(pargv);
out:
	free(extra);
	free(resolved);
	return rc;
}
