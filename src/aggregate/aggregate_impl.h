/*
 * What aggregate.c (reading, address translation, counting) and stacks.c
 * (the distinct call stacks and the thread they may be handed to) share:
 * the aggregate's private state.  Not a public interface.
 */
#ifndef SPGO_AGGREGATE_IMPL_H
#define SPGO_AGGREGATE_IMPL_H

#include "spgo/aggregate.h"

/*
 * The counting tables of the hot path: open addressing on (a, b) keys,
 * rows of {a, b, count} (count 0 = empty), at most half full, compared
 * inline.  spgo_agg_finish() adds them into the public spgo_kmaps and
 * empties them.
 */
struct ctab {
	uint64_t *rows;
	size_t cap, n;
};

struct stack_worker;
struct agg_lbr_memo;

struct spgo_agg_impl {
	struct spgo_perf_machine *machine;
	struct spgo_perf_reader *reader; /* while streaming, for event names */
	const struct spgo_segment *segs;
	size_t nsegs;
	const uint8_t *build_id;
	size_t build_id_len;
	const char *base; /* base name of the binary */
	int text;	  /* input is perf script text (see agg_map_slow) */
	int text_abs;	  /* its stack lines: 0 not known yet (file offsets), 1 runtime
			   * addresses, -1 file offsets (text_frames_absolute) */
	uint64_t text_abs_line;	 /* ... the line of the sample that told */
	uint64_t text_undecided; /* ... stack samples read before it, as offsets */
	int no_stacks;	  /* spgo_agg_keep_stacks(agg, 0): call stacks ignored */
	int no_lbr_maps;  /* spgo_agg_keep_ranges(agg, 0): ranges, branches not kept */
	int no_stack_lbr; /* spgo_agg_keep_stack_branches(agg, 0): stacks kept without their LBR */
	uint64_t period;  /* spgo_agg_sample_period, or 0 */
	const uint64_t *proepi; /* spgo_agg_drop_proepi_leaves, or NULL */
	size_t nproepi;
	spgo_agg_stack_fn on_stack; /* spgo_agg_on_stack: handed over, not stored */
	void *on_stack_ctx;
	size_t on_stack_words; /* ... when the distinct ones kept exceed this */
	struct stack_worker *worker; /* spgo_agg_on_stack_thread: fn's thread */
	VEC(uint64_t) raw;  /* ... the stacks read, for it to count (agg_put_stack) */
	size_t raw_words;   /* ... handed over when it holds this many words */
	VEC(struct spgo_agg_match) matches;

	/* Bumped by every record that may change how an address maps (see
	 * spgo_agg_map_epoch). */
	uint64_t map_epoch;
	/* Translation cache: pid, runtime [lo, lo + len), delta, dso. */
	int c_valid, c_in;
	uint32_t c_pid, c_dso, c_mode;
	uint64_t c_lo, c_len, c_delta;
	/* ... and the entry it held before (a sample's addresses alternate
	 * between the binary and a library: the bottom of each stack, calls
	 * into libc); v_valid 0 when none. */
	int v_valid, v_in;
	uint32_t v_pid, v_dso, v_mode;
	uint64_t v_lo, v_len, v_delta;

	/* Distinct stack samples: pool of entries
	 * [count, nframes | nbranches << 32, frames..., branch pairs...],
	 * indexed by {hash, salt} -> offset in pool.  (The worker's while it
	 * runs: cache lines of their own.) */
	char pad0[64];
	VEC(uint64_t) pool;
	struct spgo_kmap stack_index;
	char pad1[64];
	VEC(uint64_t) scratch;
	struct ctab ranges, branches, ips; /* ips: key (vaddr, event index) */
	VEC(uint64_t) mf; /* mapped LBR from/to */
	struct agg_lbr_memo *lbr; /* agg_lbr.c: the distinct entries and pairs, and the sink */
	const struct spgo_function *fns; /* for the function-end check, or NULL */
	size_t nfns;
	uint64_t f_lo, f_hi; /* the function part found last: [f_lo, f_hi) */

	/* Only samples of one event (spgo_agg_select_event): by index when
	 * sel_index >= 0, by name when sel_name; sel_attr/sel_ok cache the
	 * verdict on the last event seen. */
	long sel_index;
	char *sel_name;
	const struct spgo_perf_attr *sel_attr;
	int sel_ok, sel_valid;
	/* The events samples came from: "index name" strings, for messages. */
	VEC(char *) seen;
	const struct spgo_perf_attr *seen_last;

	/* Text without pids: the process their addresses are taken in
	 * (nopid_state 0: to be worked out, 1: nopid_pid, 2: none). */
	int nopid_state;
	uint32_t nopid_pid;
	uint64_t nopid_ambiguous; /* samples left unplaced: several processes */

	/* Text whose mmap events never name the binary, neither side having a
	 * build-id: addresses in a mapping of another name taken as the
	 * binary's own (agg_map.c: agg_map_slow, own_by_default); how many, the first such
	 * mapping's name (for the warning). */
	uint64_t assumed;
	char *assumed_name;
	char *filter_id; /* spgo_agg_filter_build_id, or NULL: the binary's */

	/* Arm SPE (agg_spe.c): text samples taken as SPE (spgo_agg_spe), and
	 * the range-end cache: vaddr -> the next branch at or after it. */
	int spe_text;
	struct spgo_kmap spe_next;
	int spe_next_init;
#define SPGO_AGG_SPE_CACHE 1024
	uint64_t spe_cache[SPGO_AGG_SPE_CACHE][2]; /* (vaddr, next branch) */

	/* spgo_agg_space (kernel.c): whose code the binary is; the address
	 * its mapping's start runs (the first executable segment's); the
	 * module name (MODULE); what the samples' events said of the kernel
	 * (some exclude it, some do not); a kernel build-id that differs. */
	int space;
	uint64_t kbase;
	char modname[128];
	int excl_kernel, incl_kernel, excl_user, incl_user;
	char *kernel_id_differs; /* the data's build-id, in hex, or NULL */
};

/* agg_map.c: is dso d the profiled binary?  The verdict is kept on the
 * dso (d->user), so each is decided once and said once. */
enum { VERDICT_UNKNOWN = 0, VERDICT_YES = 1, VERDICT_NO = 2 };
int agg_verdict(struct spgo_aggregate *a, struct spgo_perf_dso *d);
/* agg_map.c: translate addr of (pid, cpumode) to the binary's own address
 * without the cache, and fill the cache: 0 and *vaddr, or -1 (not the
 * binary's code); *dso is the mapping's dso, -1 if unmapped. */
int agg_map_slow(struct spgo_aggregate *a, uint32_t pid, unsigned cpumode, uint64_t addr,
		 uint64_t *vaddr, int64_t *dso);

/* kernel.c: the verdict on dso d in kernel or module space (1 yes, 2 no;
 * *how says why), and its address translation: 0 (*vaddr, and the cache
 * filled for the segment) or -1 (outside the executable segments). */
int agg_kernel_verdict(struct spgo_aggregate *a, struct spgo_perf_dso *d, const char **how);
int agg_kernel_map(struct spgo_agg_impl *I, const struct spgo_perf_map *m, uint64_t addr,
		   uint64_t *vaddr);
/* kernel.c: spgo_agg_check_matched's error when nothing matched, for
 * kernel captures (a hint to --kernel) and kernel spaces (why nothing
 * matched); 0 when it has nothing to say. */
int agg_kernel_unmatched(struct spgo_aggregate *a, const char *files);

/* stacks.c: one stack(+LBR) sample held in I->scratch (nframes frames,
 * then nbranches from/to pairs), counted times times (or, with a worker,
 * queued for it). */
void agg_put_stack(struct spgo_agg_impl *I, uint32_t nframes, uint32_t nbranches, uint64_t times);
/* agg_spe.c: one SPE-shaped sample (spgo/perf.h, SPGO_PERF_SAMPLE_SPE):
 * its branch, and the ranges inferred from the binary's instructions. */
void agg_feed_spe(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int ip_ok,
		  uint64_t times);
void agg_spe_free(struct spgo_aggregate *a);
/* aggregate.c, for agg_spe.c */
void agg_count_branch(struct spgo_aggregate *a, uint64_t from, uint64_t to, uint64_t w);
void agg_count_range(struct spgo_aggregate *a, uint64_t begin, uint64_t end, uint64_t w);
int agg_same_function(struct spgo_aggregate *a, uint64_t begin, uint64_t end);

/* aggregate.c: a sample's weight under --sample-period (see there). */
uint64_t agg_period_weight(uint64_t times, uint64_t period, uint64_t entries);
/* agg_lbr.c: a sample's LBR counted (its entries mapped into I->mf; the
 * number kept); the distinct entries pending go into the counting tables
 * (flush: at spgo_agg_finish and when what they are checked against
 * changes); free. */
uint64_t agg_lbr_feed(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int weigh,
		      uint64_t times);
void agg_lbr_flush(struct spgo_aggregate *a);
void agg_lbr_free(struct spgo_agg_impl *I);
/* agg_lbr.c: a sample the aggregate leaves out (another event, SPE, a leaf
 * in a prologue) counted for the sink of spgo_agg_on_lbr alone, if any. */
void agg_lbr_sink_feed(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, uint64_t times);

/* stacks.c: let the worker (if any) finish what it was given and stop. */
void agg_worker_stop(struct spgo_agg_impl *I);

#endif
