/*
 * spgo/layout.h: post-link layout profiles from the samples spgo already
 * reads: BOLT's profile (fdata, or the pre-aggregated form) and a function
 * order for the linker (lld/gold --symbol-ordering-file, or a GNU ld script).
 *
 * Contract
 *  - This stage reads perf.data through the aggregate (spgo/aggregate.h: the
 *    binary is found and every address mapped to the binary's own virtual
 *    address as there, IP samples per event from its ips) and the binary
 *    model (spgo/binary.h: symbols, instructions, jump tables).  It counts
 *    the LBR itself, from the aggregate's distinct entries and neighbour
 *    pairs (spgo_agg_on_lbr: each entry looked up and mapped once, for the
 *    aggregate and this stage), because BOLT wants what the aggregate's
 *    ranges and branches do not keep: the mispredicted flag of each
 *    branch, and whether the branch that began a fall-through range came
 *    from inside the range's function.
 *  - Nothing below this stage includes this header; the CLI only parses
 *    options and calls spgo_layout_run().
 *  - Functions are BOLT's: one per STT_FUNC symbol of an executable section
 *    ([value, value + size)), plus one per PLT entry ("name@PLT") and the .plt header
 *    ("__BOLT_PSEUDO_.plt"); a local
 *    symbol is named "name/N", N counting the local symbols of that name in
 *    address order from 1 (perf2bolt's names).
 *  - fdata (SPGO_LAYOUT_BOLT) equals perf2bolt's on the same capture, line
 *    for line once both are sorted (perf2bolt writes in hash order, spgo by
 *    function address and offsets): taken branches (returns left out, as
 *    BOLT does), fall-throughs between BOLT's basic blocks of each range,
 *    entries from outside the binary (0 [unknown] 0); IP samples give the
 *    no_lbr form.  The binary must have relocations (linked with
 *    --emit-relocs) for BOLT to reorder functions: without, a warning.
 *  - Propeller (SPGO_LAYOUT_PROPELLER) needs LBR and a binary with the
 *    basic-block address map (SHT_LLVM_BB_ADDR_MAP: clang 19
 *    -fbasic-block-sections=labels, clang 20+ -fbasic-block-address-map);
 *    without either, an error naming what to add.  It writes two files:
 *    the cluster profile to out, the symbol order to out + ".order".
 *  - The output file is written whole or not at all (spgo_out_*).
 *  - Several outputs (outs[]) come from one read, their LBR counted once;
 *    with gen, the read is that of spgo_gen_job_run() (spgo/gen.h: its
 *    tap), which makes the compiler profile from the same aggregate: one
 *    read, one aggregation, for the profile and the layouts.  The outputs
 *    are all written, or none (spgo_out_hold).
 *  - The samples counted are those the compiler profile counts: with an
 *    event selected (event, event_name: gen's --event), that event's only,
 *    its LBR and IP samples (spgo_agg_event_taken); without, every event's
 *    branch stacks, as perf2bolt reads them (`perf script -F pid,brstack`,
 *    no event filter), and in IP mode the event with the most samples.
 */
#ifndef SPGO_LAYOUT_H
#define SPGO_LAYOUT_H

#include <stdint.h>
#include <stdio.h>

enum spgo_layout_format {
	SPGO_LAYOUT_NONE = 0,
	SPGO_LAYOUT_BOLT,     /* fdata, as `llvm-bolt --data` reads it */
	SPGO_LAYOUT_BOLT_PA,  /* pre-aggregated, as `perf2bolt --pa` reads it */
	SPGO_LAYOUT_ORDER,    /* one symbol a line: lld/gold --symbol-ordering-file */
	SPGO_LAYOUT_ORDER_LD, /* GNU ld script (-T, INSERT) ordering .text.NAME */
	SPGO_LAYOUT_PROPELLER, /* clang's -fbasic-block-sections=list= cluster
				  profile, and OUT.order for the linker */
};

/* name ("bolt", "bolt-pa", "order", "order-ld", "propeller") -> format; 0, or -1 when it
 * is not a layout format (no error set). */
int spgo_layout_format_parse(const char *name, enum spgo_layout_format *out);

struct spgo_gen_job;
struct spgo_layout_out {
	enum spgo_layout_format fmt;
	const char *out;
};

/* What to read and write; the fields spgo gen's options fill. */
struct spgo_layout_job {
	enum spgo_layout_format fmt; /* the output (fmt, out), or several: */
	const struct spgo_layout_out *outs; /* nouts > 0: these instead */
	size_t nouts;
	/* also the compiler profile of this job (its binary and perf_data
	 * those above), from the same read; NULL: none */
	const struct spgo_gen_job *gen;
	const char *binary, *debug;
	const char *perf_data;   /* perf.data ("-" = stdin) */
	int have_pid;
	uint32_t pid;
	int mode;                /* 0 auto (LBR when there are branch stacks), 1 LBR, 2 IP */
	long event;              /* event index, -1 all (IP mode: the one with most samples); LBR too */
	const char *event_name;  /* or by name, NULL */
	const char *out;         /* "-" = stdout */
	FILE *report;            /* statistics and notes, NULL = quiet */
};

/* Read, build the layout profiles (and gen's), write them.  0, or -1 with
 * spgo_error() and no output written. */
int spgo_layout_run(const struct spgo_layout_job *job);

#endif
