/*
 * spgo/gen.h: profile generation.  The aggregate of one binary's samples
 * (spgo/aggregate.h) and the binary model (spgo/binary.h) in, a sample
 * profile (spgo/profile.h) out: AutoFDO's construction (the AutoFDO paper,
 * section 3; the Taming paper, sections 3 and 4).
 *
 * Contract
 *  - LBR mode (the aggregate has ranges): every range [begin, end] whose ends
 *    are instruction starts and that crosses no unconditional direct jump
 *    adds its count to each instruction in it (Taming, algorithm 2); every
 *    instruction of a function touched by a range is present, with count 0
 *    when no range covers it (zero means "ran never", not "unknown").
 *  - IP mode (no ranges, IP samples): an instruction's count is the average
 *    of the sampled-ip counts over its basic block (Taming, section 3.2:
 *    robust to skid and multi-retirement); where several events were
 *    recorded, a block on which they disagree by over 2x (section 3.3)
 *    takes the mean of their estimates; block counts are then made a flow
 *    by profile inference (profi by default, spgo/infer.h) on the CFG of
 *    spgo_cfg_from_binary() (split parts, jump tables, noreturn calls,
 *    indirect tail calls, .llvm_bb_addr_map block starts), or kept as
 *    averages with no_infer.  With confidence (opt-in), profi gives each
 *    block a confidence (spgo_cfg_block.cost_scale: 1 / the Poisson
 *    standard deviation of its average, from its samples and instructions)
 *    and decrease costs suited to timer samples (k_dec 20, floor at 20% of
 *    the weight; see src/gen/gen_ip.c): the profile comes closer to the
 *    exact one, but the rebuilt programs were not faster (minivm slower
 *    in 4 of 5 recordings, bench/results/gen_ip.md), so it is not the
 *    default.  A function whose inferred flow keeps under a
 *    quarter of its sampled weight is inferred again with min-cost flow,
 *    else kept as averages (infer_lost counts these).  IP-mode counts are in units of
 *    1/16 sample (short blocks' averages keep their precision).
 *  - From per-instruction counts to the source level, the way llvm-profgen
 *    (LLVM 19) does it, so that clang reads what it expects: the inline
 *    stack at the instruction (outermost function first, canonical names:
 *    ".llvm.N" and ".part.N" stripped) gives the top-level function profile
 *    and its nested inlinee profiles; each gets count x instruction size
 *    added to its total samples; the innermost gets a body sample at
 *    (line - decl_line, base discriminator) whose count is the MAX over the
 *    location's instructions of count x duplication factor.  In GCC mode
 *    (for gcov output, create_gcov's way) totals add count per instruction,
 *    discriminators are kept raw, the duplication factor is 1 and call-site
 *    bodies are not raised to their call targets; and from samples (not
 *    from exact counts) a part of code (foo, foo.cold apart) at or below
 *    create_gcov's noise floor gets no profile: no counts, no zero lines,
 *    no calls from or to it, no head samples from outside the binary
 *    (src/gen/gen_gcc.c), so gcc reads create_gcov's profile.
 *  - Branches whose target is a function's entry are calls, tail calls
 *    included: call-target samples at the source's location and head
 *    samples of the callee.  As llvm-profgen 19 decides, a part of code
 *    with debug information starts its function's entry when it is the
 *    only part of that DWARF name, or when its ELF symbol, canonical
 *    (".llvm.N", ".part.N" stripped), is that name: foo and foo.llvm.123
 *    and foo.part.0 are foo's entry; foo.cold (a split part), foo.resume,
 *    foo.destroy, foo.cleanup (a coroutine's outlined parts, which clang
 *    names foo in DWARF too), foo.isra.0, foo.constprop.0 (gcc's clones,
 *    named after foo through their abstract origin) are not, unless foo
 *    has no other part.  IP mode has no
 *    branches: direct calls and tail jumps count with their block; an
 *    indirect call's block count goes to the targets that unwinding the
 *    samples' stacks found for it (opts.icalls, spgo_gen_icalls_*), in
 *    their shares of the samples, or to none without them.  As in
 *    llvm-profgen 19, a body sample of a top-level profile is raised to the
 *    sum of its call targets; inlinees' are not (later versions recurse).
 *  - Split parts (foo.cold, foo.part.N) fold into their parent through the
 *    DWARF names; code without debug information (PLT, libc pieces, asm) is
 *    ignored and counted in the statistics.
 *  - Pseudo-probe binaries (clang -fpseudo-probe-for-profiling; unless
 *    dwarf_lines or gcc): the profile is probe-based, as llvm-profgen 19's
 *    generateProbeBasedProfile makes it (src/gen/gen_probe.c): each probe
 *    at a counted instruction adds the count to the body sample (probe id,
 *    probe discriminator) of its function's profile through the probe
 *    inline tree, duplicated probes adding up; entry probes give head
 *    samples, calls give call targets at the call-site probe, every profile
 *    carries its CFG checksum; names are the probe descriptors'.  From LBR
 *    or from IP samples alike (IP-mode counts after inference).
 *  - spgo_gen() never returns an empty profile: when nothing could be
 *    attributed it fails with an error that says why and what to do.  It
 *    also fails when more than a tenth of the LBR ranges or sampled ips fall
 *    between instructions: the binary is not the build that was recorded.
 */
#ifndef SPGO_GEN_H
#define SPGO_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/aggregate.h"
#include "spgo/context.h"
#include "spgo/profile.h"

/*
 * IP mode's inference: profi.  Min-cost flow (the Taming paper's choice)
 * came closer to the exact counts of emulated runs (speedtest1: 81% vs 72%
 * similarity) but made slower programs: clang-19 built speedtest1 7.6%
 * faster with profi's profile, 5.8% with mcf's, minivm 22% vs 9% (see
 * bench/results/gen_ip.md).  What the compiler needs is not the closest
 * counts but no blocks wrongly zero: profi spreads flow evenly.
 */
#define SPGO_GEN_INFER_DEFAULT "profi"

/* llvm-profgen's --profile-density-threshold default: a profile sparser
 * than this gets a warning with the remedy.  IP mode counts one
 * instruction per sample where an LBR sample counts its 16-32 ranges of
 * some 5-10 instructions each, about 200: its threshold is 50 / 200. */
#define SPGO_GEN_DENSITY_MIN 50
#define SPGO_GEN_DENSITY_MIN_IP 0.25

enum spgo_gen_mode {
	SPGO_GEN_AUTO = 0, /* LBR when the data has branch stacks, else IP */
	SPGO_GEN_LBR,
	SPGO_GEN_IP,
};

struct spgo_gen_opts {
	enum spgo_gen_mode mode;
	int gcc;          /* GCC conventions (gcov output): see the contract */
	int event;        /* IP mode: the event to count (index), -1 = all/best */
	int no_infer;     /* IP mode, Arm SPE: keep block averages (SPE: the
			     range counts), no inference */
	const char *infer_algo; /* IP mode, Arm SPE: "profi" (NULL), "mcf", "fp",
				   "quadratic" */
	int confidence;   /* IP mode, profi: per-block confidences and timer
			     decrease costs (see the contract; default off) */
	/* IP mode: indirect-call targets seen by unwinding sampled stacks
	 * (spgo_gen_icalls_*), or NULL */
	const struct spgo_gen_icalls *icalls;
	/* llvm-profgen's --update-total-samples: each profile's total samples
	 * become the sum of its body samples and its inlinees' totals (taken
	 * after body samples are raised to their call targets), instead of
	 * count x instruction size */
	int update_totals;
	/* The event to count by name (as the data names it: "cpu-clock",
	 * "cycles:u"), or NULL; overrides event.  LBR mode too: only samples
	 * of that event then give ranges and branches. */
	const char *event_name;
	/* Build-id-keyed perf script addresses: the build-id whose addresses
	 * are the binary's (llvm-profgen's --filter-build-id), or NULL for the
	 * binary's own (spgo_agg_filter_build_id) */
	const char *filter_build_id;
	/* A binary with pseudo-probes gets a probe-based profile (see
	 * src/gen/gen_probe.c) unless dwarf_lines (llvm-profgen's
	 * --use-dwarf-correlation) or gcc. */
	int dwarf_lines;
	/* LBR mode: every function of the binary gets a profile, zero where
	 * no range ran (llvm-profgen's --fill-zero-for-all-funcs); default:
	 * the functions a range touched */
	int fill_zero;
};

/* What generation saw and did; all counts are in samples unless named. */
struct spgo_gen_stats {
	enum spgo_gen_mode mode;          /* the mode used */
	uint64_t ranges, range_count;     /* distinct ranges used, their count */
	uint64_t ranges_off_boundary;     /* dropped: an end is no instruction start */
	uint64_t ranges_cross_jump;       /* dropped: crosses a jump, call or return */
	uint64_t insns_counted;           /* instructions with a count > 0 */
	uint64_t count_no_debug;          /* instruction counts in code without DWARF
					     (a probe-based profile: without probes) */
	uint64_t count_debug;             /* ... and in code with DWARF (probes) */
	int probes;                       /* 1 if the profile is probe-based */
	uint64_t probe_undecoded;         /* ... instruction counts at probes of
					     records llvm-profgen does not decode
					     (another function's, in sampled code;
					     src/gen/gen_probe.c): left out */
	double density;                   /* samples per byte of the functions that
					     hold 99% of the samples (llvm-profgen's
					     --show-density); below SPGO_GEN_DENSITY_MIN
					     spgo_gen_print_stats() warns */
	uint64_t calls, call_count;       /* branches to a function entry, their count */
	uint64_t ip_samples;              /* IP mode: samples in the binary */
	uint64_t ip_samples_no_func;      /* ... outside every known function */
	uint64_t ip_off_boundary;         /* ... not at an instruction start */
	uint64_t blocks, blocks_disagree; /* IP mode: blocks counted, events disagreeing */
	uint64_t functions;               /* top-level function profiles written */
	uint64_t infer_lost;              /* IP mode: inference results dropped for
					     keeping under 1/4 of the sampled weight
					     (retried with mcf, then averages) */
	int inferred;                     /* IP mode: 1 if inference ran */
	uint64_t icalls, icall_count;     /* IP mode: indirect-call targets written, their count */
	uint64_t floor;                   /* GCC mode: the noise floor (src/gen/gen_gcc.c) */
	uint64_t parts_below_floor;       /* ... parts with samples left out under it */
};

void spgo_gen_defaults(struct spgo_gen_opts *o);
/* 0 if name is an inference algorithm this build has, else -1 (spgo_error). */
int spgo_gen_check_infer(const char *name);

/*
 * Generate the profile of agg->bin from agg.  On success *out is a
 * finalized profile (totals as described, summary computed) and 0 is
 * returned; on failure -1 with spgo_error() saying why (no samples in the
 * binary, no debug information, nothing attributable).  stats may be NULL.
 */
int spgo_gen(struct spgo_aggregate *agg, const struct spgo_gen_opts *o, struct spgo_profile **out,
	     struct spgo_gen_stats *stats);

/*
 * The same profile from exact counts (spgo/ground_truth.h: the section of
 * this binary): every executed instruction's count in place of the LBR
 * estimate, every taken transfer into a function entry as a call.  This is
 * the reference that sampled profiles are measured against.
 */
struct spgo_gt_dso;
int spgo_gen_truth(struct spgo_binary *bin, const struct spgo_gt_dso *truth,
		   const struct spgo_gen_opts *o, struct spgo_profile **out,
		   struct spgo_gen_stats *stats);

/*
 * The reference context-sensitive profile of one view of a context-
 * sensitive ground truth (spgo/ground_truth.h), by the source-level rules
 * of spgo_cs_gen() (src/gen/gen_cs_truth.c says which) on exact counts;
 * every context kept (no cold merging), recursion compressed with the
 * given limit (-1: none, as spgo_cs_opts.compress_recursion).  Keyed by
 * pseudo-probes when the binary has them and dwarf_lines is 0 (the rules of
 * spgo_cs_gen() on a probe binary, without missing-frame inference), else
 * by DWARF lines.
 */
struct spgo_gt_cs_view;
int spgo_gen_truth_cs(struct spgo_binary *bin, const struct spgo_gt_cs_view *view, int compress,
		      int dwarf_lines,
		      struct spgo_profile **out);

/* Is a part of code whose ELF symbol is symbol, one of nparts with debug
 * information named name, the entry of name? (the rule above) */
int spgo_gen_is_entry(const char *symbol, const char *name, size_t nparts);

/* LLVM's duplication factor of a (non flow-sensitive) discriminator. */
uint32_t spgo_gen_dup_factor(uint32_t disc);

/*
 * IP mode's indirect-call targets (src/gen/gen_icall.c).  Samples recorded
 * with user registers and stack (`perf record --call-graph dwarf`) are fed
 * in while reading; each sampled function whose caller (one frame up, by
 * the binary's .eh_frame) returns to just after an indirect call is a
 * target of that call, weighed by its samples.  spgo_gen() gives each such
 * call site's block count to its targets in those shares (call targets at
 * the site, head samples of the targets).  Without the binary's CFI, or
 * for samples without registers and stack, feeding does nothing.
 */
struct spgo_perf_record;
struct spgo_gen_icalls;
int spgo_gen_icalls_new(struct spgo_gen_icalls **out, struct spgo_aggregate *agg);
void spgo_gen_icalls_feed(struct spgo_gen_icalls *c, const struct spgo_perf_record *rec);
void spgo_gen_icalls_free(struct spgo_gen_icalls *c);
/* Map the samples fed from now on through agg's processes (one capture's
 * aggregate of the same binary after another's); c may be NULL. */
void spgo_gen_icalls_set_agg(struct spgo_gen_icalls *c, struct spgo_aggregate *agg);
/* Samples in the binary, those whose caller was found, how many of those
 * came from a direct call to the sampled function (a check of the
 * unwinding) or not, and distinct (indirect call site, target) pairs. */
void spgo_gen_icalls_stats(const struct spgo_gen_icalls *c, uint64_t *samples, uint64_t *unwound,
			   uint64_t *direct_ok, uint64_t *direct_bad, uint64_t *sites);

/* The advice for more samples that fits the capture agg was read from:
 * an emulated one (spgo emulate's period), LBR data (a longer or denser
 * recording), IP samples (a higher rate, and branch stacks). */
const char *spgo_gen_more_samples(const struct spgo_aggregate *agg);

/*
 * The density spgo gen reports (spgo_gen_stats.density) for the profile of
 * binary from the perf.data at perf_data, made as spgo gen makes it by
 * default (its mode from the data: LBR when it has branch stacks, else IP;
 * flat, not context-sensitive, for the density is the flat profile's), and
 * the threshold under which spgo gen calls it sparse (spgo_gen_density_min).
 * samples: the samples whose ip fell in the binary, of all.  For spgo
 * record's default, which records until the profile is dense enough.  0
 * (with density 0 when no sample fell in the binary), or -1 with
 * spgo_error() when the binary or the data cannot be read.
 */
struct spgo_gen_density {
	double density, min;     /* the profile's, and the mode's threshold */
	enum spgo_gen_mode mode; /* the mode the data gave */
	uint64_t samples, all;   /* samples in the binary, samples read */
};
int spgo_gen_capture_density(const char *binary, const char *perf_data, struct spgo_gen_density *d);
/* The density under which a profile of mode is sparse (the warning of
 * spgo_gen_print_stats()): SPGO_GEN_DENSITY_MIN, or _MIN_IP in IP mode. */
double spgo_gen_density_min(enum spgo_gen_mode mode);

/* Print the statistics as a few lines of "spgo: ..." (for the command line). */
void spgo_gen_print_stats(const struct spgo_gen_stats *st, const struct spgo_aggregate *agg,
			  FILE *fp);

/* ---- the whole job -------------------------------------------------------- */

/*
 * One run of `spgo gen` (src/gen/job.c): the binary opened (split DWARF
 * options applied), the samples read and aggregated -- perf_data (only
 * process pid when have_pid; call stacks kept for cs only) or perf_script
 * text -- or exact counts read (truth, or truth_cs in view truth_view),
 * the profile generated: context-sensitive with cs (the context stage,
 * spgo/context.h; nested with cs_nested), else spgo_gen() with opts;
 * statistics and notes on report (NULL: none); the profile written to out
 * atomically in fmt (gcov implies opts.gcc).  Exactly one input must be
 * set.  0, or -1 with spgo_error() set and no output file.
 *
 * Several outputs of one read (spgo gen with several -o): more[] are the
 * same profile written again in other formats (fmt SPGO_FMT_UNKNOWN: the
 * format out gets; gcov and LLVM's formats are two profiles, an error when
 * both are asked); tap another consumer of the same samples (the layout
 * stage's outputs, spgo/layout.h).  Every output is complete before the
 * first is renamed into place, and none is when one fails (spgo_out_hold;
 * an output written in place, stdout or a device, cannot wait: it is
 * written last).
 *
 * Several captures (captures[], perf script text where capture_text[k],
 * perf.data otherwise; instead of perf_data and perf_script) are each
 * aggregated on their own, as one host, and added up as spgo aggregate
 * does (spgo/unsym.h: events matched by name, each capture's processes
 * kept apart), so the profile is that of `spgo aggregate` of them and
 * `spgo gen --unsymbolized`; have_pid and the event apply to each.
 */
struct spgo_gen_job {
	const char *binary, *debug;
	const char *dwp;               /* split DWARF: the package, or NULL */
	const char *const *dwo_dirs;   /* ... and directories to find .dwo in */
	size_t ndwo_dirs;
	const char *perf_data, *perf_script, *truth, *truth_cs;
	const char *const *unsym;      /* or unsymbolized profiles (spgo/unsym.h), added up */
	size_t nunsym;
	const char *const *captures;   /* or several captures (see above) */
	const unsigned char *capture_text;
	size_t ncaptures;
	int truth_view;                /* SPGO_GT_VIEW_* */
	int have_pid;
	uint32_t pid;
	/* cs: 1 context-sensitive, 0 not, -1 by the data (llvm-profgen's
	 * default: CS from LBR with call stacks of a binary with pseudo-probes;
	 * said on report) */
	int cs, cs_nested;
	/* llvm-profgen's options on the profile as written: drop top-level
	 * profiles under the cold count (trim_cold, non-CS; --cs: see
	 * cs_opts.trim_cold), that count fixed (cold_count >= 0) or the
	 * summary's entry at cutoff_cold; the profile symbol list (extbinary:
	 * every function with debug information); the density line on stdout
	 * (show_density, at density_cutoff per million of the samples) */
	int trim_cold;
	int64_t cold_count;
	uint32_t cutoff_cold;
	int symbol_list;
	int show_density;
	uint32_t density_cutoff;
	/* write the samples unsymbolized (llvm-profgen's text, its
	 * --skip-symbolization), not a profile; not with cs */
	int skip_symbolization;
	/* llvm-profgen's --sample-period (perf record -c): counts in events,
	 * not samples (spgo_agg_sample_period); 0: not given; not with cs */
	uint64_t sample_period;
	/* perf script text with a branch stack per sample is Arm SPE's (one
	 * sampled branch each: spgo_agg_spe); SPE in perf.data needs nothing */
	int spe;
	/* llvm-profgen's --ignore-stack-samples (not with cs): the samples
	 * with call stacks are checked as llvm-profgen checks them, their
	 * LBR left out when the stack's leaf is in a prologue or epilogue */
	int ignore_stacks;
	const uint64_t *proepi; /* (set by spgo_gen_job_run) */
	/* or an existing flat CS profile, its post-passes run again
	 * (llvm-profgen's --llvm-sample-profile, spgo_cs_rerun) */
	const char *llvm_profile;
	size_t nproepi;
	/* The kernel's profile (llvm-profgen's --kernel): binary is vmlinux,
	 * the kernel's samples and branches of a system-wide perf.data go to
	 * it (spgo_agg_space); each of modules (the .ko files, with DWARF)
	 * gets the samples of the module of its name, and the profiles are
	 * merged into one, as CLANG_AUTOFDO_PROFILE takes it (a module
	 * without samples is left out, said on report).  Not with cs. */
	int kernel;
	const char *const *modules;
	size_t nmodules;
	struct spgo_gen_opts opts;
	struct spgo_cs_opts cs_opts;   /* cs_opts.dwarf_lines follows opts.dwarf_lines */
	const char *out;
	enum spgo_format fmt; /* SPGO_FMT_UNKNOWN: gcov if gcc built the binary, else extbinary */
	const struct spgo_gen_out *more; /* the profile's other outputs (see above) */
	size_t nmore;
	const struct spgo_gen_tap *tap;  /* or NULL */
	struct spgo_write_opts wo;
	FILE *report;
};
struct spgo_gen_out {
	const char *out;
	enum spgo_format fmt;
};
/*
 * A consumer of the samples gen reads, beside the profile: one --perf-data
 * read, no --kernel, --skip-symbolization or --sample-period (an error
 * otherwise, before anything is read).  begin: the aggregate is set up (its
 * binary free to use), nothing read yet; sample: each sample record of the
 * process(es) read, of every event (spgo_agg_event_taken says whether the
 * profile takes it), before the aggregate takes it (it may map addresses
 * with spgo_agg_map; the binary may be in use by --cs's unwinding thread:
 * not to be touched); end: the profile is made, the reading done, the
 * binary free again: write the consumer's outputs (spgo_out_*: they are
 * held with the profile's).  begin and end: 0, or -1 with spgo_error().
 */
struct spgo_gen_tap {
	void *ctx;
	int (*begin)(void *ctx, struct spgo_aggregate *agg);
	void (*sample)(void *ctx, const struct spgo_perf_record *rec);
	int (*end)(void *ctx);
};
int spgo_gen_job_run(const struct spgo_gen_job *job);

#endif
