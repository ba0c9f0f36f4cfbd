/*
 * spgo/perf_record.h: what `spgo record` asks perf for: the best sampling
 * event this machine offers and the `perf record` command line.
 *
 * The preference, best first:
 *
 *   1. LBR (branch stacks): on Intel br_inst_retired.near_taken:uppp -b; on
 *      AMD (Zen 4 LbrExtV2) cycles:u -b, (Zen 3 branch sampling)
 *      branch-brs; on ARM (BRBE) cycles:u -b.
 *   2. cycles:u (a hardware cycle counter, no branch stacks).
 *   3. cpu-clock (a timer; what virtual machines without a PMU offer).
 *
 * Each candidate is probed by opening it with perf_event_open(2) on the
 * calling process (disabled, then closed): microseconds, not the seconds
 * of recording `true` with perf once per candidate.  The kernel's answer
 * is the one perf would get; only when the kernel refuses every candidate
 * (perf_event_paranoid, or a perf binary with capabilities the caller has
 * not) does the probe fall back to running `perf record -- true` with each.
 *
 * Call stacks: with branch stacks, fp (cheap; the branch stack carries what
 * spgo gen needs).  Without them, dwarf,2048: the user registers and top
 * 2 KB of the stack per sample, from which spgo gen unwinds the sampled
 * function's caller by .eh_frame (indirect-call targets); -O2 code keeps
 * no frame pointers, so fp chains would name no caller.  Its cost: about
 * 2 KB of perf.data per sample (some 10 MB/s at perf's default 4000 Hz)
 * and up to twice the program's wall time; "none" records no stacks.
 *
 * Depends on spgo/common.h and spgo/perf.h (the fallback reads the probe's
 * perf.data back).
 */
#ifndef SPGO_PERF_RECORD_H
#define SPGO_PERF_RECORD_H

#include <stddef.h>

struct spgo_rec_event {
	const char *vendor; /* "GenuineIntel", "AuthenticAMD", "arm", or NULL = any */
	const char *event;  /* as perf's -e takes it */
	int lbr;            /* with -b */
	const char *why;
};

/*
 * The best event for perf (the program; used only by the fallback): the
 * chosen candidate, or NULL when none is accepted.  refused (cap bytes)
 * receives the list of the candidates refused before it, "'EV -b'
 * unavailable, ..." ("" if none).
 */
const struct spgo_rec_event *spgo_rec_best_event(const char *perf, char *refused, size_t cap);

/* What to record. */
struct spgo_rec_opts {
	const char *perf;       /* the perf program */
	const char *output;     /* -o */
	const char *event;      /* -e */
	int lbr;                /* -b */
	const char *branch_filter; /* with lbr: -j FILTER instead of -b ("any,u") */
	const char *call_graph; /* "fp", "dwarf", "dwarf,SIZE" or "none" */
	const char *freq;       /* -F, or NULL */
	const char *count;      /* -c, or NULL */
	const char *pid;        /* -p, or NULL */
	int all_cpus;           /* -a */
	char **cmd;             /* the command and its arguments, NULL-ended (or NULL) */
	char **extra;           /* perf options passed on as they are, before the
				 * command (-z, ...), NULL-ended (or NULL) */
};

/* The perf record command line (NULL-ended; free() it, not its strings). */
char **spgo_rec_argv(const struct spgo_rec_opts *o);
/* The --call-graph argument of a call-stack mode ("dwarf,2048"; "dwarf,SIZE"
 * as it is), NULL for none. */
const char *spgo_rec_call_graph_arg(const char *mode);
/* The estimated size of one sample in the perf.data that o writes, in
 * bytes (x86-64's register set; see record.c for the figures). */
double spgo_rec_sample_bytes(const struct spgo_rec_opts *o);
/* Samples per second of one busy thread that o asks for (-F, perf's
 * default 4000, or -c of a clock event); 0 when unknown. */
double spgo_rec_rate(const struct spgo_rec_opts *o);
/* Above this many bytes per second of one busy thread, spgo record warns
 * (dwarf stacks at perf's default 4000 Hz write about 9 MB/s). */
#define SPGO_REC_HEAVY_RATE 25e6


/*
 * spgo record's default (no -F, -c, --runs, -p or -a): the command is
 * recorded once at perf's rate, then, when the profile of that run is
 * sparser than the default aims at (spgo_gen_capture_density: spgo gen's
 * density; the aim is gen's threshold times a margin), recorded again with
 * about `need` times the samples: the sampling rate raised first, up to
 * SPGO_REC_RATE_CEILING and the kernel's perf_event_max_sample_rate, then
 * the command run several times in a row, up to SPGO_REC_MAX_RUNS runs and
 * about SPGO_REC_MAX_SECONDS.  The constants were chosen on the PGO suite's
 * training half (docs/commands/spgo-record.md has the figures):
 *
 *   SPGO_REC_MARGIN_IP  IP samples: the aim is gen's threshold (0.25) times
 *                      this.  The overlap of the training programs' IP
 *                      profiles with their exact counts grows up to a
 *                      density of about 1 and little after (hot-block
 *                      overlap: minivm 76% at 0.17, 90% at 0.8, 93% at 1.6);
 *   SPGO_REC_MARGIN_LBR  branch stacks: gen's threshold (50) times this (a
 *                      little over it: runs vary).  LBR profiles converge
 *                      with far fewer samples than IP ones
 *                      (bench/results/sources.md: 290-5,000 samples for
 *                      95% of their best similarity);
 *   SPGO_REC_RATE_CEILING  the highest rate the default takes (Hz): perf's
 *                      cost per sample (SPGO_REC_SAMPLE_COST seconds, with
 *                      dwarf stacks on a VM's cpu-clock) slows the training
 *                      programs by some 5-40% there, and 40 kHz by 65-150%;
 *   SPGO_REC_MAX_RUNS, SPGO_REC_MAX_SECONDS  the bounds of the repeats;
 *   SPGO_REC_TARGET_SAMPLES  when the density cannot be measured (a binary
 *                      without debug information, of which spgo gen makes
 *                      no profile), the samples in the binary wanted.
 */
#define SPGO_REC_MARGIN_IP 4.0
#define SPGO_REC_MARGIN_LBR 1.3
#define SPGO_REC_RATE_CEILING 20000
#define SPGO_REC_SAMPLE_COST 15e-6
#define SPGO_REC_MAX_RUNS 10
#define SPGO_REC_MAX_SECONDS 60.0
#define SPGO_REC_TARGET_SAMPLES 10000

/* The density the default aims at: gen's threshold min times the margin
 * (lbr: of a profile from branch stacks). */
double spgo_rec_density_aim(double min, int lbr);

struct spgo_rec_plan {
	double need;  /* the samples wanted over the first run's */
	double rate;  /* the second recording's -F */
	int runs;     /* ... and its runs of the command */
	double secs;  /* ... and its estimated wall time */
	double reach; /* the samples it should give over the first run's */
};
/*
 * The second recording after a first run of secs seconds at rate samples/s
 * wants need times the samples of that run (spgo_rec_density_aim() / the
 * run's density; for a binary without debug information, whose density
 * cannot be measured, SPGO_REC_TARGET_SAMPLES / its samples), on a machine
 * whose kernel allows at most max_rate (spgo_rec_max_rate(); 0: unknown).
 * 1 and *p when a second recording adds samples; 0 when none is needed
 * (need <= 1); -1 when none can be made within the bounds (a run too long
 * to repeat, and the rate already at its ceiling).  p->need is set in
 * every case.
 */
int spgo_rec_plan_enough(double need, double rate, double secs, double max_rate, struct spgo_rec_plan *p);
/* The kernel's perf_event_max_sample_rate, 0 when it cannot be read. */
double spgo_rec_max_rate(void);

#endif
