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

#endif
