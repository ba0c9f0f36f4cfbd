/*
 * layout_impl.h: what the layout stage's files share: the functions as BOLT
 * sees them (functions.c), the LBR tables read once (layout.c) and the
 * writers (bolt.c, order.c).
 */
#ifndef SPGO_LAYOUT_IMPL_H
#define SPGO_LAYOUT_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/layout.h"

/*
 * A function as BOLT builds one (RewriteInstance's discovery): an STT_FUNC
 * symbol of an executable segment, or a PLT entry.  Its basic blocks are
 * built on first use (lay_blocks): BOLT's leaders are the entry, the
 * targets of the function's direct branches and jump tables, and the
 * instruction after each terminator (a conditional or unconditional jump,
 * an indirect jump, a return, a trap); a call does not end a block.
 */
struct lay_func {
	uint64_t start, end; /* [start, end) */
	char *name;          /* BOLT's name: "main", "next/1", "puts@PLT" */
	const char *symbol;  /* the ELF symbol (for a linker order), NULL for PLT */
	uint8_t plt;
	int8_t simple;       /* -1 not known yet; 0: no blocks (its first address
				is no instruction: its ranges give no fall-throughs) */
	uint32_t nblocks;
	uint64_t *blocks;      /* block start addresses, ascending, [0] = start */
	uint64_t *last;        /* the address of each block's last instruction */
	uint8_t *falls;        /* 1 if the block falls through into the next */
	uint8_t *ends_in_call; /* 1 if its last instruction is a call */
};

/* The LBR of a capture, counted once (layout.c). */
struct lay_lbr {
	/* {from, to} -> times taken; both the binary's addresses,
	 * SPGO_AGG_EXTERNAL outside (never both) */
	struct spgo_kmap taken;
	struct spgo_kmap mispred; /* {from, to} -> mispredicted times (only > 0) */
	/* fall-through ranges {begin, end, outside} -> times: begin the older
	 * branch's target, end the newer branch's source (both inside the binary
	 * and one function); outside 1 when the older branch came from outside
	 * that function (BOLT's "external origin") */
	struct spgo_kmap traces;
	uint64_t samples, entries;
};

struct lay {
	const struct spgo_layout_job *job;
	const struct spgo_layout_out *outs; /* what to write (the job's one, or its outs) */
	size_t nouts;
	const char *out; /* the output being written */
	char *report; /* the statistics, said when all went well */
	struct spgo_aggregate *agg;
	struct spgo_binary *bin;
	VEC(struct lay_func) fns; /* sorted by start */
	struct lay_lbr lbr;
	struct spgo_bb_addr_map bbmap; /* Propeller: the binary's BB address map */
	int lbr_mode;  /* 1 LBR, 0 IP samples */
	long ip_event; /* IP mode: the event whose samples are used */
};

/* functions.c */
int lay_functions_build(struct lay *L);
void lay_functions_free(struct lay *L);
/* The function containing addr, or -1. */
long lay_func_at(const struct lay *L, uint64_t addr);
/* Build f's blocks if not yet done; f->simple says whether it has any. */
void lay_blocks(struct lay *L, struct lay_func *f);
/* The block of f containing addr (f's blocks built and f simple). */
uint32_t lay_block_at(const struct lay_func *f, uint64_t addr);

/* lbr.c: the samples' LBR counted into L->lbr: attach to L->agg before
 * reading (its entries come from the aggregate's flushes, the last at
 * spgo_agg_finish); count: a sample's totals. */
void lay_lbr_attach(struct lay *L);
void lay_lbr_count(struct lay *L, const struct spgo_perf_sample *s, uint64_t times);

/* bolt.c: 0, or -1 with spgo_error() (the output is aborted by the caller) */
int lay_write_fdata(struct lay *L, FILE *fp);
int lay_write_preagg(struct lay *L, FILE *fp);
/* 1 if the binary has the relocations BOLT needs (.rela.text), else 0. */
int lay_has_relocs(struct lay *L);

/* order.c */
int lay_write_order(struct lay *L, FILE *fp, int ld_script);

/* exttsp.c: a block graph and its ext-TSP order. */
struct lay_xt_jump {
	long src, dst;
	uint64_t count;
};
struct lay_xt_graph {
	size_t n;               /* nodes (blocks); node 0 is the entry */
	const uint64_t *size;   /* bytes, per node */
	const uint64_t *count;  /* executions, per node */
	const struct lay_xt_jump *jumps;
	size_t njumps;
};
/* order[0..n) := the nodes in the order of the greedy chain merging,
 * order[0] = 0 (or 0..n-1, the original order, when that scores higher). */
void lay_exttsp(const struct lay_xt_graph *g, long *order);
/* The ext-TSP score of the nodes laid out in order. */
double lay_exttsp_score(const struct lay_xt_graph *g, const long *order);

/* propeller.c: the cluster profile to fp, the symbol order to ld. */
int lay_write_propeller(struct lay *L, FILE *fp, FILE *ld);

#endif
