/*
 * spgo record: run `perf record` with the best sampling event this machine
 * offers, and say which and why (the choice and its reasons:
 * spgo/perf_record.h).  perf's own -e, -F, -c, -p and -a are passed on; an
 * event given with -e is used as it is, without probing.  perf runs the
 * command (or attaches to -p PID, or records the system with -a) and its
 * exit status is ours.  A command whose run gives a profile sparser than
 * spgo gen wants is recorded again at a higher rate, and run several times
 * under one perf record (record_enough below), unless the rate or the runs
 * were given.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "spgo/gen.h"
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
		    "  --runs N             run the command N times under one perf record (1: once,\n"
		    "                       no repeats).  Default without -F, -c, -p or -a: once,\n"
		    "                       then, if the profile of that run is sparser than the\n"
		    "                       default aims at (spgo gen's density threshold x%.0f with\n"
		    "                       IP samples, x%.1f with LBR; said on stderr), again with\n"
		    "                       about as many more samples as reach it: the rate raised\n"
		    "                       first (up to -F %d and the kernel's maximum), then the\n"
		    "                       command run up to %d times in a row (about %.0f s at\n"
		    "                       most); the command must be re-runnable (the same input,\n"
		    "                       no side effect that changes the next run)\n"
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
		    "The perf program is $PERF if set, else perf.\n",
		SPGO_REC_MARGIN_IP, SPGO_REC_MARGIN_LBR, SPGO_REC_RATE_CEILING, SPGO_REC_MAX_RUNS,
		SPGO_REC_MAX_SECONDS);
}

enum { O_CALL_GRAPH = CLI_LONG, O_DRY_RUN, O_BRANCH_FILTER, O_RUNS };
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
	CLI_VAL("runs", O_RUNS),
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

/* Run perf (argv) and wait: its exit status (the command's), 128 + the
 * signal that ended it, or -1 when it could not run (said on stderr). */
static int run_perf(char **argv)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "spgo: record: cannot fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "spgo: record: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The file execvp runs for cmd: cmd itself when it has a '/', else the
 * first executable of its name on PATH; NULL if none.  Free it. */
static char *command_path(const char *cmd)
{
	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/bin:/bin"; *p; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
		size_t n = strcspn(p, ":");
		char *f = xasprintf("%.*s/%s", (int)n, n ? p : ".", cmd);
		if (access(f, X_OK) == 0)
			return f;
		free(f);
	}
	return NULL;
}

/* cmd run n times in a row by sh, up to the first failure, whose status is
 * the loop's (NULL-ended; free() it, not its strings; nbuf holds n). */
static char **repeated(char **cmd, int n, char nbuf[16])
{
	size_t ncmd = 0;
	while (cmd[ncmd])
		ncmd++;
	char **v = xcalloc(ncmd + 6, sizeof *v);
	snprintf(nbuf, 16, "%d", n);
	v[0] = "sh", v[1] = "-c";
	v[2] = "n=$1; shift; while [ \"$n\" -gt 0 ]; do \"$@\" || exit; n=$((n - 1)); done";
	v[3] = "sh", v[4] = nbuf;
	memcpy(v + 5, cmd, ncmd * sizeof *v);
	return v;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The density of the recording at data for binary, as spgo gen computes it,
 * said on stderr after what ("1 run, 0.6 s at 4000 Hz").  0 with *d, 1
 * when the density could not be measured but samples were counted (*d has
 * them, its density 0), -1 when neither (said).
 */
static int measure(const char *data, const char *bin, const char *what, struct spgo_gen_density *d)
{
	int rc = spgo_gen_capture_density(bin, data, d);
	if (rc < 0 && !d->samples) {
		fprintf(stderr, "spgo: record: %s: the density of %s not measured (%s)\n", what, bin,
			spgo_errmsg());
		return -1;
	}
	if (rc < 0) {
		fprintf(stderr, "spgo: record: %s: %llu samples in %s, its profile density not measured (%s): "
				"%d samples wanted instead\n", what, (unsigned long long)d->samples, bin,
			spgo_errmsg(), SPGO_REC_TARGET_SAMPLES);
		return 1;
	}
	fprintf(stderr, "spgo: record: %s: %llu samples in %s, profile density %.3g (%s; spgo gen's "
			"threshold %.3g, the default aims at %.3g)\n", what, (unsigned long long)d->samples, bin,
		d->density, d->mode == SPGO_GEN_LBR ? "LBR" : "IP mode", d->min,
		spgo_rec_density_aim(d->min, d->mode == SPGO_GEN_LBR));
	return 0;
}

/*
 * The default of a command without -F, -c or --runs: record it once; when
 * the profile of that run is sparser than spgo gen wants (its density,
 * spgo_gen_capture_density), record it again with as many more samples as
 * reach the threshold, the rate raised first, then the command run several
 * times in a row (spgo_rec_plan_enough), into a temporary file that then
 * replaces the first recording.  What was measured and done is said on
 * stderr.  The exit status: the first recording's (the command's); when
 * the second fails, the first recording stays, with a warning.
 */
static int record_enough(const struct spgo_rec_opts *ro)
{
	char **pargv = spgo_rec_argv(ro);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = run_perf(pargv);
	double secs = seconds_since(&t0);
	free(pargv);
	if (rc != 0)
		return rc < 0 ? 1 : rc;
	double rate = spgo_rec_rate(ro);
	char *bin = command_path(ro->cmd[0]);
	if (!bin) {
		fprintf(stderr, "spgo: record: note: recorded once: %s not found on PATH, its samples not "
				"counted\n", ro->cmd[0]);
		return 0;
	}
	char what[128];
	snprintf(what, sizeof what, "1 run, %.2g s at %.0f Hz", secs, rate);
	struct spgo_gen_density d;
	int m = measure(ro->output, bin, what, &d);
	if (m < 0 || !d.samples) {
		if (m == 0)
			fprintf(stderr, "spgo: record: no samples in %s, so no second recording (the work is in "
					"other binaries?)\n", bin);
		free(bin);
		return 0;
	}
	double aim = spgo_rec_density_aim(d.min, d.mode == SPGO_GEN_LBR);
	int by_count = m || !(d.density > 0); /* (no density: the samples counted) */
	double need = by_count ? (double)SPGO_REC_TARGET_SAMPLES * 1.1 / (double)d.samples : aim / d.density;
	struct spgo_rec_plan pl;
	int k = spgo_rec_plan_enough(need, rate, secs, spgo_rec_max_rate(), &pl);
	if (k == 0) {
		fprintf(stderr, "spgo: record: %s\n", by_count ? "the sample target met" : "dense enough");
		free(bin);
		return 0;
	}
	if (k < 0) {
		fprintf(stderr, "spgo: record: about %.0fx the samples wanted, but a run takes %.0f s, too "
				"long to record again within about %.0f s: raise the rate (-F) or give --runs "
				"for more\n", pl.need, secs, SPGO_REC_MAX_SECONDS);
		free(bin);
		return 0;
	}
	double mb = (double)d.all * pl.reach * spgo_rec_sample_bytes(ro) / 1e6;
	fprintf(stderr, "spgo: record: about %.0fx the samples wanted: recording %d run%s at -F %.0f (%.0fx the "
			"samples; about %.0f s and %.0f MB; -F, -c or --runs: as given)\n", pl.need, pl.runs,
		pl.runs > 1 ? "s" : "", pl.rate, pl.reach, pl.secs, mb);
	/* (a name perf creates: an existing -o file it would move to .old) */
	char *tmp = xasprintf("%s.spgo-runs.%ld", ro->output, (long)getpid());
	char nbuf[16], fbuf[32];
	struct spgo_rec_opts r2 = *ro;
	snprintf(fbuf, sizeof fbuf, "%.0f", pl.rate);
	r2.output = tmp;
	r2.freq = fbuf;
	r2.cmd = pl.runs > 1 ? repeated(ro->cmd, pl.runs, nbuf) : ro->cmd;
	pargv = spgo_rec_argv(&r2);
	spgo_tmp_track(tmp); /* a signal meanwhile removes it */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run_perf(pargv);
	secs = seconds_since(&t0);
	snprintf(what, sizeof what, "%d run%s, %.2g s at %.0f Hz", pl.runs, pl.runs > 1 ? "s" : "", secs, pl.rate);
	struct spgo_gen_density d2;
	int m2 = rc == 0 ? measure(tmp, bin, what, &d2) : -1;
	if (m2 >= 0 && rename(tmp, ro->output) == 0) {
		double aim2 = spgo_rec_density_aim(d2.min, d2.mode == SPGO_GEN_LBR);
		if (m2 == 0 && d2.density < aim2)
			fprintf(stderr, "spgo: record: %.0f%% of the aim, %s gen's threshold (%s; -F and --runs "
					"give more)\n", 100 * d2.density / aim2,
				d2.density < d2.min ? "under" : "over",
				pl.reach < pl.need ? "bounded by the default's -F, runs and time"
						   : "the density grew slower than the samples");
		else if (m2 == 0)
			fprintf(stderr, "spgo: record: dense enough\n");
	} else {
		/* (perf failed; or its file could not be read, said by measure;
		 * or not renamed) */
		const char *why = rc ? "perf failed" : m2 < 0 ? "its data could not be read" : strerror(errno);
		unlink(tmp);
		spgo_warn("the second recording (%d runs at -F %.0f) failed (%s%s%.0d): %s holds the first run "
			  "only; is the command re-runnable? (--runs 1: no repeats)", pl.runs, pl.rate, why,
			  rc ? ", status " : "", rc, ro->output);
	}
	spgo_tmp_untrack(tmp);
	free(pargv);
	if (r2.cmd != ro->cmd)
		free(r2.cmd);
	free(tmp);
	free(bin);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	const char *out = "perf.data", *pid = NULL, *cg = NULL, *event = NULL, *freq = NULL, *count = NULL;
	const char *filter = NULL;
	int dry = 0, all = 0, lbr = 0, i, k, nextra = 0, runs = 0; /* 0: the default (record_enough) */
	uint64_t v;
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
		case O_RUNS:
			if (cli_u64(&op, 1, 1000, &v) < 0) {
				free(extra);
				return 2;
			}
			runs = (int)v;
			break;
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
	if (runs && !ro.cmd) {
		cli_usage(&op, "--runs repeats a command: not with -p PID or -a");
		goto out;
	}
	char nbuf[16];
	char **rep = runs > 1 ? repeated(ro.cmd, runs, nbuf) : NULL;
	if (rep)
		ro.cmd = rep;
	/* the default: runs enough for the sample target, unless the rate was
	 * chosen (or the data goes to a pipe, which cannot be counted) */
	if (!runs && !dry && ro.cmd && !freq && !count && strcmp(out, "-")) {
		rc = record_enough(&ro);
		goto out;
	}
	char **pargv = spgo_rec_argv(&ro);
	free(rep);
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
