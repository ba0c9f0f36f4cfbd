/*
 * emu.h: what the plugin's two halves share: spgo_emu.c (sampling: the
 * branch stack, the shadow stack, periods and the trace) and emu_truth.c
 * (ground truth: exact counts per block, edge and calling context).
 * Internal to the QEMU plugin.
 */
#ifndef SPGO_EMU_H
#define SPGO_EMU_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "isa.h"
#include "trace.h"

#define LBR_MAX 64 /* ring size; a power of two */
#define STACK_MAX 1024
#define MAX_VCPUS 4096

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct smap;

/* One translated block. */
struct tb {
	/* The first 64 bytes (one cache line) are all an execution touches. */
	uint64_t start; /* address of the first instruction */
	uint64_t last;  /* address of the last instruction */
	uint64_t count; /* executions (kept only for ground truth) */
	struct {
		uint64_t to, n;
	} succ[2]; /* edge cache: the first two successors */
	uint32_t n_insns;
	uint8_t cls;       /* enum emu_cls of the last instruction */
	uint8_t last_size; /* so the fall-through address is last + last_size */
	struct tb *next;   /* all blocks, for the dump at exit */
	/* Context-sensitive counts (cscounts=): the pair this block's call or
	 * tail call last led from and to (+ 1; 0 none). */
	uint32_t step_from, step_to;
	uint32_t cc_pair; /* the block's current (pair, count) slot */
	uint64_t cc_n;
	struct smap *cmap, *emap; /* (pair) -> count; (pair, to) -> count */
	uint32_t dump_idx; /* index in the dump's block table, + 1 */
	uint64_t taken_to; /* a conditional last instruction: where it went when taken */
	uint8_t entry;     /* starts at a function entry of the main binary */
	uint32_t insn[]; /* offset << 16 | size << 8 | cls */
};

struct lbr_entry {
	uint64_t from, to, cls; /* cls: enum emu_cls of the record */
};

struct vcpu {
	struct tb *prev;
	int64_t countdown;    /* events to the next sample */
	uint64_t cur_period;  /* the period counting down now */
	int32_t skid_left;    /* blocks to wait once the counter overflowed; -1 none */
	uint32_t lbr_pos;     /* next slot in lbr[] */
	uint32_t lbr_n;       /* valid entries (<= LBR_MAX) */
	uint32_t tid;
	uint64_t depth;       /* shadow stack depth (may exceed STACK_MAX) */
	uint64_t rng;
	int64_t sys_num;      /* syscall in flight */
	uint64_t sys_a[6];
	struct lbr_entry lbr[LBR_MAX];
	uint64_t stack[STACK_MAX]; /* ring: the innermost STACK_MAX frames */
	/* Contexts (cscounts=): the current (fp, true) pair id and, per
	 * shadow-stack depth, the pair id to restore when that frame returns. */
	uint32_t pair;
	uint32_t *saved;
	uint64_t saved_cap;
};

/* Shared state (spgo_emu.c). */
extern int emu_mt;                 /* more than one thread seen: atomic counts, locked tables */
extern pthread_mutex_t emu_lock;
extern uint32_t emu_cs_depth;      /* call sites kept per context */
extern struct tb *emu_all_tbs;     /* every translated block */

/*
 * emu_truth.c: ground truth, each called under emu_lock when emu_mt.
 *  - emu_edge_slow: count the edge from -> to that a block's two-entry
 *    successor cache could not hold.
 *  - emu_pair_step: the (frame-pointer, true) context pair after a call
 *    (tail 0) or a tail call (tail 1) at site, from pair; emu_cs_init
 *    makes context 0 (empty) and pair 0 first.
 *  - emu_smap_add: add n to the count of (to, pair) in a block's table.
 *  - emu_dump_counts / emu_dump_cscounts: write the counts files at exit;
 *    an error is said on stderr.
 *  - emu_write_all: write(2) all of p, -1 on error.
 */
/* Out of memory: said on stderr, exit 70 (the plugin runs inside qemu:
 * nothing to unwind). */
__attribute__((noreturn, cold)) void emu_oom(void);
void emu_edge_slow(uint64_t from, uint64_t to);
uint32_t emu_pair_step(uint32_t pair, uint64_t site, int tail);
void emu_cs_init(void);
void emu_smap_add(struct smap **mp, uint64_t to, uint32_t pair, uint64_t n);
void emu_dump_counts(const char *path);
void emu_dump_cscounts(const char *path);
int emu_write_all(int fd, const void *p, size_t n);

#endif
