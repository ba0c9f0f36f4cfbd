/*
 * spgo/ground_truth.h: exact execution counts of a run, as `spgo emulate
 * --ground-truth FILE` writes them, for measuring profile quality (overlap
 * of a sampled profile with the truth).
 *
 * File format (text, one record per line, fields separated by one space;
 * lines starting with '#' are comments):
 *
 *     spgo-ground-truth 1
 *     dso BUILD-ID PATH
 *     i ADDR SIZE COUNT CLASS
 *     e FROM TO COUNT KIND
 *
 *  - "dso" starts the section of one binary (the main program first, then
 *    shared objects when asked for); BUILD-ID is lower-case hex or "-",
 *    PATH runs to the end of the line.  The "i" and "e" lines after it
 *    belong to it.  Addresses are hex (no 0x) in the binary's own virtual
 *    address space (p_vaddr), not runtime addresses.
 *  - "i": every executed instruction, ascending by address, with its size
 *    in bytes and its exact execution count.  CLASS is the instruction's
 *    control-flow class: '-' none, 'j' conditional branch, 'J' direct jump,
 *    'I' indirect jump, 'c' direct call, 'C' indirect call, 'r' return,
 *    's' syscall.
 *  - "e": every executed control transfer out of a branch instruction, and
 *    every transfer that did not go to the next instruction, ascending by
 *    (FROM, TO).  KIND is 'T' (taken: jumps, calls and returns always are),
 *    'F' (a conditional branch falling through) or 'X' (a non-branch
 *    instruction that did not continue at the next one: a rep iteration, a
 *    signal).  FROM is the branch instruction, TO the next instruction
 *    executed; either is "-" when it lies outside this binary (a call into a
 *    shared object, the entry from the dynamic loader, a return to libc).
 *
 * Flow conservation, which the emulator guarantees for a single-threaded
 * program without signals: for every instruction, COUNT equals the sum of
 * its in-edges plus, when the instruction before it is not a branch
 * (CLASS '-' or 's'), that instruction's COUNT minus its X out-edges; and
 * for every branch instruction COUNT equals the sum of its out-edges.  The
 * first instruction a thread runs and the last one (exit) are the
 * exceptions.
 *
 * Contract
 *  - spgo_gt_read() fails with "FILE: line N: what" on malformed input.
 *  - spgo_gt_write() sorts nothing: callers pass sorted arrays.
 */
#ifndef SPGO_GROUND_TRUTH_H
#define SPGO_GROUND_TRUTH_H

#include <stddef.h>
#include <stdint.h>

struct spgo_gt_insn {
	uint64_t addr;
	uint64_t count;
	uint8_t size;
	char cls; /* '-', 'j', 'J', 'I', 'c', 'C', 'r', 's' */
};

#define SPGO_GT_OUTSIDE UINT64_MAX /* FROM or TO written as "-" */

struct spgo_gt_edge {
	uint64_t from, to; /* SPGO_GT_OUTSIDE when outside the binary */
	uint64_t count;
	char kind; /* 'T', 'F' or 'X' */
};

struct spgo_gt_dso {
	char *path;
	uint8_t build_id[20];
	size_t build_id_len; /* 0: none */
	struct spgo_gt_insn *insns;
	size_t n_insns;
	struct spgo_gt_edge *edges;
	size_t n_edges;
};

struct spgo_ground_truth {
	struct spgo_gt_dso *dsos;
	size_t n_dsos;
};

int spgo_gt_read(struct spgo_ground_truth *gt, const char *path);
int spgo_gt_write(const struct spgo_ground_truth *gt, const char *path);
void spgo_gt_free(struct spgo_ground_truth *gt);

/* The section of the binary with this build-id (or, if len is 0 or no
 * section has it, whose path ends with path's basename); NULL if none. */
const struct spgo_gt_dso *spgo_gt_find_dso(const struct spgo_ground_truth *gt,
					   const uint8_t *build_id, size_t len, const char *path);
/* The instruction at addr (binary search), or NULL if it never executed. */
const struct spgo_gt_insn *spgo_gt_insn_at(const struct spgo_gt_dso *d, uint64_t addr);

/*
 * Context-sensitive ground truth: the same counts of the main binary per
 * calling context, as `spgo emulate --ground-truth-cs FILE` writes them
 * (src/aggregate/ground_truth_cs.c).
 *
 *     spgo-ground-truth-cs 1
 *     dso BUILD-ID PATH
 *     depth N
 *     view fp|true
 *     c ID [SITE...]
 *     i ID ADDR COUNT
 *     e ID FROM TO COUNT KIND
 *
 *  - "dso" as above (the main program only); "depth": at most N call
 *    sites per context (the innermost ones are kept).
 *  - Two views follow, each with its own context table and counts.  In
 *    view "fp" a context is the call sites a frame-pointer unwinder would
 *    report: a tail call (a jump to a function entry) replaces the caller's
 *    frame.  In view "true" that jump is kept as a call site of its own,
 *    popped with its caller by the next return.
 *  - "c": context ID (0, 1, 2... in order, 0 the empty context: code
 *    called from outside the binary, or main), its call sites root first:
 *    hex addresses in the binary (a call instruction, or in view "true" the
 *    jump of a tail call).  A context is cut below its innermost call site
 *    outside the binary (a callback from libc starts afresh), recursion is
 *    compressed (adjacent repeated sequences of call sites collapse to one,
 *    as llvm-profgen's compressRecursionContext, applied as each call is
 *    made), and only the innermost "depth" sites are kept.  The leaf
 *    function is not in the context: it is where ADDR lies.
 *  - "i": instruction ADDR executed COUNT times in context ID (ascending by
 *    ID, then ADDR).  Summed over the contexts of a view, the counts equal
 *    the "i" counts of the plain ground truth.
 *  - "e": the transfer FROM -> TO, as in the plain file, COUNT times while
 *    FROM ran in context ID (so a call's edge is in the caller's context, a
 *    return's in the callee's); ascending by (ID, FROM, TO, KIND).
 *
 * Contract: spgo_gt_cs_read() fails with "FILE: line N: what" on malformed
 * input (unknown context ids, records out of order); the arrays it fills
 * are sorted as the file is.
 */
enum { SPGO_GT_VIEW_FP = 0, SPGO_GT_VIEW_TRUE = 1 };

struct spgo_gt_cs_insn {
	uint32_t ctx;
	uint64_t addr, count;
};

struct spgo_gt_cs_edge {
	uint32_t ctx;
	char kind;         /* 'T', 'F' or 'X' */
	uint64_t from, to; /* SPGO_GT_OUTSIDE when outside the binary */
	uint64_t count;
};

struct spgo_gt_cs_view {
	uint64_t *sites;  /* every context's call sites, one after another */
	size_t *ctx_off;  /* context i: sites[ctx_off[i] .. ctx_off[i + 1]) */
	size_t n_ctx;
	struct spgo_gt_cs_insn *insns;
	size_t n_insns;
	struct spgo_gt_cs_edge *edges;
	size_t n_edges;
};

struct spgo_gt_cs {
	char *path;
	uint8_t build_id[20];
	size_t build_id_len;
	unsigned depth;
	struct spgo_gt_cs_view views[2]; /* SPGO_GT_VIEW_FP, SPGO_GT_VIEW_TRUE */
};

int spgo_gt_cs_read(struct spgo_gt_cs *gt, const char *path);
int spgo_gt_cs_write(const struct spgo_gt_cs *gt, const char *path);
void spgo_gt_cs_free(struct spgo_gt_cs *gt);
/* The order of edges in a view: by context, from, to, kind. */
int spgo_gt_cs_edge_before(const struct spgo_gt_cs_edge *a, const struct spgo_gt_cs_edge *b);
/* View by name ("fp" or "true"), or -1. */
int spgo_gt_cs_view_parse(const char *s);

#endif
