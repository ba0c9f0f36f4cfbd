/*
 * spgo/aggregate.h: samples of one profiled binary, aggregated while they
 * stream by.  This is what profile generation reads: how often each range of
 * code ran (from LBR), how often each branch was taken, how often each
 * address was the sampled ip (per event), and, for context-sensitive work,
 * each distinct call stack together with its sample's LBR.
 *
 * Contract
 *  - Every address in an aggregate is the binary's own virtual address (the
 *    p_vaddr space of its ELF), whatever base it ran at: runtime addresses
 *    are mapped through the process's mapping (start, page offset) and the
 *    binary's program headers (spgo_segments_map), per process, so several
 *    processes of one binary at different bases add up.  An address outside
 *    the profiled binary is SPGO_AGG_EXTERNAL.
 *  - The profiled binary is recognised in the data by build-id (from MMAP2
 *    or the build-id table) when the data has one for a mapping, else by
 *    file name (same base name); spgo_agg_matches() says which matched how.
 *    Build-ids are compared on the binary's own length: perf pads shorter
 *    ones (lld's --build-id=fast: 8 bytes) with zeros to 20; when the two
 *    agree on the shorter length but not past it, the file name decides.
 *  - Samples count as many times as sample.count says (aggregated perf
 *    script text), once when it is 0.
 *  - perf script text without the pid field: with mmap events, its samples
 *    are taken in the only process the events name, else in the only
 *    process that maps the binary (spgo_agg_read_text warns about samples
 *    that could not be placed that way); without mmap events the addresses
 *    are the binary's own (its preferred base), as llvm-profgen takes them.
 *  - Memory grows with the number of distinct keys only, never with the
 *    number of samples: identical samples are counted, not stored twice
 *    (with spgo_agg_on_stack, stack samples are not stored at all).
 *  - LBR entries are newest first, as perf stores them.  For a branch stack
 *    b[0..n-1], each entry is a branch b[i].from -> b[i].to, and each pair of
 *    neighbours gives the range of straight-line code that ran between them:
 *    from the older branch's target to the newer branch's source,
 *    [b[i+1].to, b[i].from], both ends inclusive (the end is the address of
 *    the last instruction of the range, the branch itself).  A range whose
 *    begin lies after its end cannot be and is discarded and counted; so is
 *    one with an end outside the binary, and, once the function bounds are
 *    known (spgo_agg_set_functions), one that crosses a function's end.
 *  - Ranges and branches with both ends external are not kept; a branch with
 *    one external end is kept with SPGO_AGG_EXTERNAL there (calls to and
 *    returns from other libraries matter to call-site counts).
 *
 * Use:
 *     struct spgo_aggregate *agg;
 *     if (spgo_agg_new(&agg, "./prog", NULL) < 0 ||
 *         spgo_agg_read_perf(agg, "perf.data") < 0 ||
 *         spgo_agg_check_matched(agg) < 0)
 *             fail();                        (spgo_errmsg() says why)
 *     for (size_t it = 0; spgo_kmap_next(&agg->ranges, &it, &key, &count);)
 *             ... key[0] = begin, key[1] = end, *count = times it ran ...
 *     spgo_agg_free(agg);
 */
#ifndef SPGO_AGGREGATE_H
#define SPGO_AGGREGATE_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/common.h"
#include "spgo/perf.h"

#define SPGO_AGG_EXTERNAL UINT64_MAX

/* Counters of what went where; all in samples unless named otherwise. */
struct spgo_agg_stats {
	uint64_t bytes;		    /* input bytes read */
	uint64_t records;	    /* records seen */
	uint64_t samples;	    /* SAMPLE records seen */
	uint64_t samples_matched;   /* ip inside the profiled binary */
	uint64_t samples_unmatched; /* ip in another file, the kernel, or nowhere */
	uint64_t samples_unmapped;  /* ... of those: ip in no known mapping */
	uint64_t samples_unmatched_lbr; /* ... of those: with branches in the
				       binary all the same (used in LBR mode) */
	uint64_t samples_other_event; /* left out: not the selected event
					 (spgo_agg_select_event), not in samples */
	uint64_t lbr_samples;	    /* samples with a branch stack */
	uint64_t lbr_single;	    /* ... of those: with a single entry (SPE's
				       form in perf script text, read as LBR) */
	uint64_t lbr_leaf_proepi;   /* ... of those: left out, their call stack's
				       leaf in a prologue or epilogue
				       (spgo_agg_drop_proepi_leaves) */
	uint64_t lbr_zero;	    /* branch entries with a zero address (BRBE: the
				       kernel's end of a system call or an
				       exception in a user-only capture), each
				       end 0 taken as outside the binary */
	uint64_t lbr_wrong_path;    /* branch entries left out: records of a
				       mispredicted path (spec WRONG_PATH, AMD
				       LbrExtV2), which never retired */
	uint64_t branches;	    /* branch entries counted (at least one end inside) */
	uint64_t ranges;	    /* ranges counted */
	uint64_t ranges_reversed;   /* discarded: begin after end */
	uint64_t ranges_external;   /* discarded: an end outside the binary */
	uint64_t ranges_crossing;   /* discarded: begin and end in different
				       functions (only with spgo_agg_set_functions) */
	uint64_t stack_samples;	    /* samples with a call stack or its LBR touching
				       the binary */
	uint64_t lost;		    /* samples the kernel reported lost (LOST records) */
	uint64_t spe_records;	    /* Arm SPE branch records (one-entry samples) */
	uint64_t spe_not_taken;	    /* ... of those: not taken (range, no branch) */
	uint64_t spe_no_range;	    /* ... whose range could not be inferred: the
				       target is no instruction start, or code runs
				       into a gap, a trap or the function's end before
				       a branch (see spgo_agg_spe) */
	uint64_t samples_kernel;    /* samples taken in the kernel (cpumode) */
	uint64_t branches_user_kernel; /* LBR entries between user and kernel space
				       (a syscall, an interrupt, a return to user):
				       counted, never made part of a range */
	uint64_t ranges_user_kernel; /* ... ranges dropped for one end in each space
				       (of ranges_external) */
	int emulated;		    /* a perf.data written by spgo emulate (its cmdline) */
};

/* IP samples of one event (the IP path may weigh several events). */
struct spgo_agg_event {
	char *name;	      /* event name if the data has one, else "event N" */
	uint64_t samples;     /* samples of this event inside the binary */
	uint64_t period;      /* sum of their periods (0 without PERIOD) */
	struct spgo_kmap ips; /* key {vaddr} -> samples */
};

/*
 * One distinct call stack + LBR sample.  frames: leaf first; frames[0] is
 * the leaf (the sampled ip, or SPGO_AGG_EXTERNAL when the sample was in the
 * kernel or another file), the others are return addresses as the stack
 * walk found them (the call instruction is just before each); a run of
 * frames outside the binary is one SPGO_AGG_EXTERNAL.  Only stacks with at
 * least one frame inside, or an LBR entry with an end inside, are kept (a
 * stack walked from a library leaf that never reached the binary still has
 * its LBR unwound from an external root, as llvm-profgen does).  branches: the sample's LBR as (from,
 * to) pairs, newest first, mapped like the rest (nbranches 0 without LBR).
 */
struct spgo_agg_stack {
	uint64_t count;
	const uint64_t *frames;
	uint32_t nframes;
	uint32_t nbranches;
	const uint64_t *branches; /* 2 * nbranches words */
};

/* How the profiled binary was found in the data. */
struct spgo_agg_match {
	const char *name; /* the file name in the data */
	const char *how;  /* "build-id" or "file name" */
};

/*
 * The aggregate of one binary.  The key/value maps are public so later
 * stages iterate them directly (spgo_kmap_next / spgo_kmap_sorted).
 */
struct spgo_aggregate {
	struct spgo_binary *bin;
	struct spgo_kmap ranges;   /* key {begin, end} -> count */
	struct spgo_kmap branches; /* key {from, to} -> count */
	VEC(struct spgo_agg_event) events; /* index = event index in the data */
	struct spgo_agg_stats stats;
	struct spgo_agg_impl *impl; /* the rest (machine, stack table, caches) */
};

/* Aggregate samples of the ELF at binary_path (debug_path may be NULL). */
int spgo_agg_new(struct spgo_aggregate **out, const char *binary_path, const char *debug_path);
void spgo_agg_free(struct spgo_aggregate *agg);

/*
 * Function bounds for the "range crosses a function end" check, sorted by
 * start, [start, end) each (spgo_binary_functions() gives them; the array
 * must outlive agg).  Without them ranges are only checked for order.
 */
struct spgo_function;
void spgo_agg_set_functions(struct spgo_aggregate *agg, const struct spgo_function *fns,
			    size_t n);

/*
 * Only samples of one event from now on: index >= 0 (the event's position
 * in the data; in text, the order the event column names them, 0 without
 * it) or name (as perf script prints it: "cpu-clock", "cycles:u"); index
 * -1 and name NULL: all.  The others are counted in samples_other_event
 * and left out everywhere, the LBR sink's counts too (spgo_agg_on_lbr).
 */
void spgo_agg_select_event(struct spgo_aggregate *agg, long index, const char *name);
/* Does the aggregate take samples of this event (the record's attr, NULL
 * for data without one): the one selected, or any when none is?  For a
 * stage that reads the samples beside the aggregate (the layout stage's
 * totals, spgo_agg_lbr_sink_feed) and must count the same ones. */
int spgo_agg_event_taken(struct spgo_aggregate *agg, const struct spgo_perf_attr *attr);
/* perf script text with build-id-keyed addresses ("BUILDID:0xADDR", newer
 * llvm-profgen's): those of build-id hex_id are the binary's, others are
 * external; by default hex_id is the binary's own build-id (llvm-profgen's
 * --filter-build-id overrides it the same way).  Copied. */
void spgo_agg_filter_build_id(struct spgo_aggregate *agg, const char *hex_id);
/* The events samples came from so far, "NAME (index I), ..." (malloc'd). */
char *spgo_agg_events_seen(const struct spgo_aggregate *agg);
/* After reading with an event selected (spgo_agg_select_event): -1 with an
 * error naming path, the event and the events the data has when no sample
 * of the selected event was taken but others were; else 0. */
int spgo_agg_check_event(const struct spgo_aggregate *agg, const char *path);

/*
 * Whose code the profiled binary is (spgo gen --kernel): user space (the
 * default), the kernel image, or a kernel module.  The kernel image is
 * the mapping perf names [kernel.kallsyms]_text (also _stext, or
 * [kernel.kallsyms]) of pid -1; its start is where the binary's first
 * executable segment runs (whatever that segment's file offset and the
 * mapping's page offset: perf puts the address of _text there), so a
 * KASLR offset is the mapping's start less that segment's address.  A
 * module is the pid -1 mapping perf names by the module's file
 * (/lib/modules/.../NAME.ko[.xz|.zst|.gz]) or as [NAME], matched by NAME
 * ('-' and '_' alike, as the kernel does) against the binary's file name
 * up to ".ko"; its start runs the binary's first executable segment too.
 * Samples keep their task's pid: kernel mappings are everyone's.  When
 * both the data and the binary have a build-id, they must agree (the
 * data's [kernel.kallsyms] entry for the kernel image).  Before reading.
 */
enum spgo_agg_space { SPGO_AGG_SPACE_USER = 0, SPGO_AGG_SPACE_KERNEL, SPGO_AGG_SPACE_MODULE };
void spgo_agg_space(struct spgo_aggregate *agg, enum spgo_agg_space space);
/* The module name a path stands for ("/x/ext-4.ko.zst", "[ext_4]": "ext_4"),
 * in out (n bytes); "" when it names no module. */
void spgo_agg_module_name(const char *path, char *out, size_t n);

/* Read a whole perf.data ("-" = stdin) / `perf script` text into agg. */
int spgo_agg_read_perf(struct spgo_aggregate *agg, const char *path);
int spgo_agg_read_text(struct spgo_aggregate *agg, const char *path);
/* How the stack lines of the perf script text were read: 1 as runtime
 * addresses (llvm-profgen's input, spgo script --raw-stacks), -1 as offsets
 * in their file (perf's own text), 0 when no sample told (offsets).  *line:
 * the line of the sample that told; *before: stack samples read as
 * offsets before it (see aggregate.c). */
int spgo_agg_text_frames(const struct spgo_aggregate *agg, uint64_t *line, uint64_t *before);

/* Streaming by hand: begin with the reader (for event names and the
 * build-id table), feed every record in order, then finish: the counts of
 * the hot path live in private tables until spgo_agg_finish() adds them to
 * ranges, branches and events[].ips (it may be called again after more
 * feeding).  spgo_agg_read_perf/_text do all three.  spgo_agg_begin()
 * fails (-1, spgo_error naming the perf.data and the feature's offset)
 * when the file was recorded on another architecture than the binary's
 * (its HEADER_ARCH against e_machine); a file without HEADER_ARCH (or a
 * pipe, which sends it later) is not checked. */
int spgo_agg_begin(struct spgo_aggregate *agg, struct spgo_perf_reader *r);
void spgo_agg_feed(struct spgo_aggregate *agg, const struct spgo_perf_record *rec);
void spgo_agg_finish(struct spgo_aggregate *agg);

/* Map a runtime address of process pid to the binary (0, *vaddr set) or
 * say it is outside (-1).  cpumode as in the sample (kernel or user). */
int spgo_agg_map(struct spgo_aggregate *agg, uint32_t pid, unsigned cpumode, uint64_t addr,
		 uint64_t *vaddr);
/* A number that changes whenever a record fed may change what
 * spgo_agg_map() answers (a mapping, a fork, build-ids); between two
 * changes, the same (pid, cpumode, addr) maps the same way, so a caller
 * may keep what it mapped while the number stays. */
uint64_t spgo_agg_map_epoch(const struct spgo_aggregate *agg);

/*
 * The distinct LBR entries, for a later stage that counts them its own way
 * (the layout stage: BOLT wants each branch's mispredictions and whether a
 * fall-through range was entered from its own function, which ranges and
 * branches do not keep).  The aggregate looks each entry up once, for
 * itself and the sink: each distinct (pid, from, to) is mapped once per
 * mapping epoch (spgo_agg_map_epoch; an address taken as the binary's own
 * by default, perf script text only, each time it is seen).  The sink
 * takes every entry of every sample with a branch stack fed, in the order
 * given, also those the aggregate leaves out (SPE samples, leaves in a
 * prologue or epilogue, records of a mispredicted path), but not the
 * samples of another event than the one selected (spgo_agg_select_event:
 * the profile and the later stage count the same samples); what it is
 * handed adds up to counting each entry on its own.  Pending counts go to the sink whenever the
 * aggregate flushes its own (a mapping changed, tables full,
 * spgo_agg_finish): edge() per distinct entry (from, to the binary's
 * addresses, SPGO_AGG_EXTERNAL outside, maybe both), then pair() per
 * distinct pair of neighbours (older, newer: the range between them is
 * [older->to, newer->from]), with their counts since the last call.  Both
 * run in the reading thread; the edges are valid during the call only.
 * Set before reading; NULL: none (the default).
 */
struct spgo_agg_lbr_edge {
	uint64_t from, to;
	uint64_t taken, mispred; /* times seen, mispredicted */
};
struct spgo_agg_lbr_sink {
	void *ctx;
	void (*edge)(void *ctx, const struct spgo_agg_lbr_edge *e);
	void (*pair)(void *ctx, const struct spgo_agg_lbr_edge *older, const struct spgo_agg_lbr_edge *newer,
		     uint64_t count);
};
void spgo_agg_on_lbr(struct spgo_aggregate *agg, const struct spgo_agg_lbr_sink *sink);
/* A sample's branch stack counted for the sink alone, as for a sample the
 * aggregate leaves out (pid and count the sample's): for a reader that
 * wants the sink's counts only (the layout stage without gen's profile),
 * which then feeds the sample without its branch stack.  The caller
 * leaves out the samples of events not taken (spgo_agg_event_taken). */
void spgo_agg_lbr_sink_feed(struct spgo_aggregate *agg, const struct spgo_perf_sample *s);

const struct spgo_agg_stats *spgo_agg_stats(const struct spgo_aggregate *agg);
/* The mappings in the data that were taken for the binary. */
const struct spgo_agg_match *spgo_agg_matches(const struct spgo_aggregate *agg, size_t *n);
/*
 * After reading: 0 if some samples landed in the binary; else -1 with an
 * error that lists the files seen in the data, their build-ids and sample
 * counts, or -2 with an error that says why and what to do: a capture of
 * the kernel read for user space (use --kernel), or, read for the kernel
 * (spgo_agg_space), a capture without kernel samples, recorded without
 * the kernel (:u), without the kernel's mapping, of another build.
 */
int spgo_agg_check_matched(struct spgo_aggregate *agg);

/* The processes with samples in a capture (the first
 * SPGO_PID_CENSUS_KEPT, the others counted), for errors that name them;
 * zero-initialized, then spgo_pid_census_add() per sample record. */
#define SPGO_PID_CENSUS_KEPT 16
struct spgo_pid_census {
	uint64_t samples, others; /* samples seen; ... of processes not kept */
	size_t n;
	struct { uint32_t pid; uint64_t samples; } pid[SPGO_PID_CENSUS_KEPT];
};
void spgo_pid_census_add(struct spgo_pid_census *c, uint32_t pid);
/* After reading path: a capture without any sample, or (have_pid) without
 * a sample of pid, is an error (-1, spgo_error) that says so and names the
 * processes that have samples -- not a binary that does not match the
 * data; else 0.  spgo gen and spgo aggregate share it. */
int spgo_pid_census_check(const struct spgo_pid_census *c, const char *path, int have_pid, uint32_t pid);

/* Iterate the distinct stack samples: for (size_t it = 0; spgo_agg_next_stack(a, &it, &s);) */
int spgo_agg_next_stack(const struct spgo_aggregate *agg, size_t *iter, struct spgo_agg_stack *s);

/* Keep the distinct (stack, LBR) samples (the default) or not: without
 * them memory and time are those of ranges, branches and ips alone. */
void spgo_agg_keep_stacks(struct spgo_aggregate *agg, int keep);

/* Keep each stack sample's LBR with it (the default) or the call stack
 * alone (gen --cs --mode ip: IP samples with call stacks, as from a
 * machine without LBR, out of data that has branch stacks too). */
void spgo_agg_keep_stack_branches(struct spgo_aggregate *agg, int keep);

/* Fill ranges and branches from the samples' LBRs (the default) or not
 * (their statistics still count): the context stage unwinds the LBRs
 * itself and does not read them. */
void spgo_agg_keep_ranges(struct spgo_aggregate *agg, int keep);

/* llvm-profgen's --sample-period: each sample's ranges, branches and ip
 * count period times its count, an LBR sample's divided by its entries
 * inside the binary less one (an LBR sample counts about that many
 * ranges), so that LBR and IP profiles get the sampled event's magnitude;
 * 0 (the default): counts are samples.  As llvm-profgen, perf script text
 * with call stacks (hybrid samples) is not weighted. */
void spgo_agg_sample_period(struct spgo_aggregate *agg, uint64_t period);

/* llvm-profgen's check of hybrid samples (call stack + LBR) under
 * --ignore-stack-samples: a sample whose call stack's leaf frame is one of
 * addrs (sorted: the binary's prologue and epilogue instructions, see
 * spgo_cs_code_proepi) gives no ranges nor branches (counted in
 * lbr_leaf_proepi).  addrs stays the caller's, alive while the aggregate
 * reads; NULL (the default): no check. */
void spgo_agg_drop_proepi_leaves(struct spgo_aggregate *agg, const uint64_t *addrs, size_t n);

/* Hand the distinct stack samples to fn (ctx passed along) whenever those
 * kept take more than max_bytes, then forget them: memory then stays
 * bounded whatever the number of samples, and spgo_agg_next_stack yields
 * only those kept since the last hand-over.  A distinct sample may thus
 * come several times, each with the count seen since the previous time
 * (consumers must add counts up).  The sample (its arrays) is valid
 * during the call only.  fn NULL: hand over those kept, then keep all
 * again.  How a later stage (the context stage) consumes samples while
 * they are read. */
typedef void (*spgo_agg_stack_fn)(void *ctx, const struct spgo_agg_stack *s);
void spgo_agg_on_stack(struct spgo_aggregate *agg, spgo_agg_stack_fn fn, void *ctx,
		       size_t max_bytes);
/* After spgo_agg_on_stack(agg, fn, ...): keep the distinct stacks and
 * run fn on a thread of its own while reading goes on: the stacks read
 * go to it in chunks, it merges the identical ones and hands each batch
 * (max_bytes of distinct stacks) to fn while the next one fills, with the
 * same calls in the same order as in the reading thread (memory: two
 * batches and two chunks of a quarter batch).  fn must then touch nothing
 * that reading touches (the aggregate, the reader).  The thread ends at
 * spgo_agg_on_stack(agg, NULL, ...) (every stack handed over) or
 * spgo_agg_free (which may thus still call fn: free fn's context after).
 * 0, or -1 when no thread could be started (fn then runs in the reading
 * thread, as before). */
int spgo_agg_on_stack_thread(struct spgo_aggregate *agg);

/* Count one stack sample (frames and branch pairs already the binary's
 * addresses, SPGO_AGG_EXTERNAL outside) count times, as if fed: how an
 * aggregate is filled from an unsymbolized profile (spgo/unsym.h). */
void spgo_agg_add_stack(struct spgo_aggregate *agg, const uint64_t *frames, uint32_t nframes,
			const uint64_t *branches, uint32_t nbranches, uint64_t count);

/*
 * Arm SPE: samples with SPGO_PERF_SAMPLE_SPE (the perf.data reader's, see
 * spgo/perf.h), and with spgo_agg_spe(agg, 1) every sample of perf script
 * text with a branch stack (`perf script --itrace=bl1 -F ip,brstack`, one
 * entry per sample, "N" in its flags when not taken), are one sampled branch
 * each, as llvm-profgen's SPE mode takes them: a taken branch counts as a
 * branch; the straight-line code from its target (or, not taken, from the
 * next instruction) up to the next branch instruction in the binary (a
 * call, jump, return or conditional branch), both ends included, counts as
 * a range; the search stops, and no range is counted (spe_no_range), at a
 * trap, a gap in the code, the function's end or 4096 instructions.  With
 * the previous branch target (the second entry, source 0), the code from it
 * (or from the last branch instruction before the PC, if that comes later)
 * to the PC counts as a range too, and the branch twice, so that ranges and
 * branches keep their proportion (each is an unbiased count of executions:
 * every branch executed is sampled alike).
 */
void spgo_agg_spe(struct spgo_aggregate *agg, int on);
/* Would SPE count code run from addr (the binary's address)?  1 if the
 * range search above finds a branch instruction from addr on, 0 if it stops
 * first (a trap, a gap ...): code there never gets a count from SPE, however
 * often it runs, where code that can be counted and has none ran rarely. */
int spgo_agg_spe_countable(struct spgo_aggregate *agg, uint64_t addr);

/* Text dump (sorted; for tests and debugging): stats, ranges, branches,
 * ips per event, stacks. */
void spgo_agg_dump(const struct spgo_aggregate *agg, FILE *fp);
/* Each sample's ip of the perf.data at path as the binary's own virtual
 * address, one per line in hex ("-" when it is outside the binary), in
 * perf's order; agg sees the records (for tests and debugging: `spgo
 * script --map-to`).  0, or -1 with spgo_error(). */
int spgo_agg_map_samples(struct spgo_aggregate *agg, const char *path, FILE *fp);

#endif
