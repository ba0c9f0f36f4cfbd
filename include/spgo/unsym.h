/*
 * spgo/unsym.h: unsymbolized profiles, the aggregate (spgo/aggregate.h) as a
 * file: what is merged across hosts before anything is symbolized, as
 * AutoFDO's fleet pipeline defers symbolization to one job per binary
 * (AutoFDO paper, sections 3.2-3.5; GWP, Perforator, llvm-profgen's
 * --skip-symbolization).
 *
 * Contract
 *  - A profile holds sections, one per binary, keyed by build-id (hex; by
 *    path when the binary has none).  A section has a header (path, the
 *    preferred base, the kinds of data, hosts, sample counts, the events
 *    with their samples and periods) and counts keyed by binary offsets:
 *    ranges {begin, end}, branches {from, to}, IP counts per event {ip},
 *    and, for context-sensitive work, the distinct (call stack, LBR)
 *    samples, exactly as the aggregate keeps them.
 *  - Offsets are llvm-profgen's (--use-offset, its default): the binary's
 *    virtual address minus its preferred base, the page-aligned p_vaddr of
 *    its first executable PT_LOAD.  An address outside the binary is
 *    llvm-profgen's ExternalAddr (1) minus the base, wrapping (for a base of
 *    0x401000: ffffffffffbff001), in every form.
 *  - Merging adds counts key by key, and header counts field by field;
 *    events are matched by name; a path differing between inputs of one
 *    build-id keeps the smallest (byte order).  It is commutative and
 *    associative, and every writer sorts (sections by key, entries by key,
 *    events by name, stacks by their words), so any order and grouping of
 *    merges writes the same bytes.  Memory grows with the distinct keys,
 *    never with the number of inputs.
 *  - Three forms, told apart by content when read:
 *      binary   "SPGO-UNS" and a version byte, then sections: varints, keys
 *               sorted and delta-coded (the compact form for shuffles);
 *      text     llvm-profgen's unsymbolized text (a count line, then
 *               "BEGIN-END:COUNT" lines; a count line, then
 *               "FROM->TO:COUNT" lines; hex offsets) with spgo's header,
 *               IP and stack sections on lines that start with '#';
 *      profgen  exactly what llvm-profgen-19 --unsymbolized-profile reads:
 *               one binary's ranges and branches (branches to an external
 *               target left out, as llvm-profgen never records them), no
 *               '#' lines.  Header, IPs and stacks are not in it; a
 *               section with unwound contexts is written as their
 *               "[KEY]" blocks alone (llvm-profgen's CS form), one of IP
 *               samples without LBR in newer llvm-profgen's basic-event
 *               form ("# llvm-profgen-content: basic-event", N, then N
 *               "OFFSET:COUNT" lines; its one line starting with '#').
 *    The text reader takes llvm-profgen's own output too: '[context]' blocks
 *    (its CS form, already unwound) are kept as the section's contexts and
 *    added to its plain ranges and branches, and a "buildid:" prefix on a context's leaf frame
 *    (llvm-project #194205) routes the block to that build-id's section; a
 *    "buildid:" prefix on an address of another build-id makes it external.
 *    Text without a "# binary" line goes to an anonymous section, which
 *    spgo_unsym_fill() takes for any binary (as llvm-profgen does).
 *  - Readers check every count against the bytes left before allocating
 *    and fail with "FILE: offset N: what" (binary) or "FILE:LINE: what".
 *  - Cold-key trimming (spgo_unsym_trim) drops, per map of a section, the
 *    coldest keys whose counts add up to at most eps times the map's total:
 *    the L1 distance between the trimmed and the full counts is at most
 *    eps of the total, so every count derived linearly from them (an
 *    instruction's count from the ranges over it) moves by at most that
 *    much in total.
 *
 * Use (the map step, the reduce step, the finish):
 *     struct spgo_unsym *u = spgo_unsym_new();
 *     spgo_unsym_add_agg(u, agg, 1);                      one host's capture
 *     spgo_unsym_write(u, "host.unsym", SPGO_UNSYM_BIN);
 *     ...
 *     spgo_unsym_read(u, "a.unsym", 1); spgo_unsym_read(u, "b.unsym", 1);
 *     spgo_unsym_write(u, "all.unsym", SPGO_UNSYM_BIN);
 *     ...
 *     spgo_unsym_fill(u, agg, NULL);  then spgo_gen(agg, ...) as usual
 */
#ifndef SPGO_UNSYM_H
#define SPGO_UNSYM_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/aggregate.h"
#include "spgo/common.h"

enum spgo_unsym_format {
	SPGO_UNSYM_UNKNOWN = 0,
	SPGO_UNSYM_BIN,
	SPGO_UNSYM_TEXT,
	SPGO_UNSYM_PROFGEN,
};

/* Kinds of data in a section (its "mode"). */
enum {
	SPGO_UNSYM_LBR = 1, /* ranges and branches from branch stacks */
	SPGO_UNSYM_IP = 2,  /* sampled ips */
	SPGO_UNSYM_CS = 4,  /* (call stack, LBR) samples */
	SPGO_UNSYM_CTX = 8, /* unwound contexts (llvm-profgen's CS --skip-symbolization) */
};

/* One unwound context: llvm-profgen's "[KEY]" block.  KEY is the text
 * between the brackets: call-site offsets "0x347 @ 0x37c" for a binary with
 * pseudo-probes, symbolized frames "main:12 @ compile:6 @ next" for DWARF
 * lines, "" for samples without a caller context. */
struct spgo_unsym_ctx {
	char *key;
	struct spgo_kmap ranges;   /* {begin, end} -> count */
	struct spgo_kmap branches; /* {from, to} -> count */
};

struct spgo_unsym_event {
	char *name;
	uint64_t samples, period;
	struct spgo_kmap ips; /* {offset} -> samples */
};

struct spgo_unsym_bin {
	char *build_id; /* lower-case hex, "" if none */
	char *path;     /* as the data names it (mmap), else as opened; "" if unknown */
	uint64_t base;  /* preferred base (offsets are vaddr - base) */
	int has_base;   /* 0: not known (llvm-profgen text): the binary's own */
	unsigned kinds; /* SPGO_UNSYM_* */
	uint64_t hosts, samples, matched, lbr_samples, stack_samples, lost;
	struct spgo_kmap ranges;   /* {begin, end} -> count */
	struct spgo_kmap branches; /* {from, to} -> count */
	VEC(struct spgo_unsym_event) events;
	/* Stack samples: pool of [count, nframes | nbranches << 32, frames...,
	 * branch pairs...], indexed by {hash, salt} -> offset. */
	VEC(uint64_t) pool;
	struct spgo_kmap stack_index;
	size_t nstacks;
	/* Unwound contexts (SPGO_UNSYM_CTX), by key: {hash, salt} -> index.
	 * Read from llvm-profgen's text, their sum is added to ranges and
	 * branches too (what a profile without contexts takes). */
	VEC(struct spgo_unsym_ctx) ctxs;
	struct spgo_kmap ctx_index;
};

struct spgo_unsym {
	VEC(struct spgo_unsym_bin *) bins;
};

struct spgo_unsym *spgo_unsym_new(void);
void spgo_unsym_free(struct spgo_unsym *u);

/* The section of (build_id, path), created empty if absent. */
struct spgo_unsym_bin *spgo_unsym_section(struct spgo_unsym *u, const char *build_id,
					  const char *path);

/* The preferred base of a binary, as llvm-profgen computes it. */
uint64_t spgo_unsym_base(const struct spgo_binary *bin);

/* Add an aggregate (after spgo_agg_finish) as `hosts` hosts' data. */
void spgo_unsym_add_agg(struct spgo_unsym *u, const struct spgo_aggregate *agg, uint64_t hosts);

/* Add one stack sample (offsets) to a section. */
void spgo_unsym_add_stack(struct spgo_unsym_bin *s, const uint64_t *frames, uint32_t nframes,
			  const uint64_t *branches, uint32_t nbranches, uint64_t count);

/* The context of key[0..len) of a section, created empty if absent. */
struct spgo_unsym_ctx *spgo_unsym_context(struct spgo_unsym_bin *s, const char *key, size_t len);

/* What a file holds, by its first bytes (SPGO_UNSYM_UNKNOWN: not an
 * unsymbolized profile; text of llvm-profgen is SPGO_UNSYM_PROFGEN). */
enum spgo_unsym_format spgo_unsym_sniff(const uint8_t *data, size_t size);
enum spgo_unsym_format spgo_unsym_sniff_file(const char *path);

/* Read a file of any form ("-" = stdin) and add it, counts times weight. */
int spgo_unsym_read(struct spgo_unsym *u, const char *path, uint64_t weight);
/* The same from memory; name is for messages. */
int spgo_unsym_read_mem(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
			uint64_t weight);

/* Write (sorted, deterministic).  PROFGEN takes the only section (-1 and
 * an error if there are several). */
int spgo_unsym_write_fp(const struct spgo_unsym *u, FILE *fp, enum spgo_unsym_format fmt);
int spgo_unsym_write(const struct spgo_unsym *u, const char *path, enum spgo_unsym_format fmt);

/* Drop cold keys of every map of every section (see the contract); eps in
 * [0, 1).  Returns the number of keys dropped. */
uint64_t spgo_unsym_trim(struct spgo_unsym *u, double eps);

/* The section for agg's binary: by build-id, else by file name when either
 * has no build-id, else the anonymous one; NULL with an error listing the
 * sections if none fits. */
struct spgo_unsym_bin *spgo_unsym_find(struct spgo_unsym *u, const struct spgo_binary *bin);

/*
 * Fill a fresh aggregate (spgo_agg_new, nothing read) from the section of
 * its binary: ranges, branches, events with their ips, stacks and the
 * sample counts, addresses back to virtual addresses.  event_name, when not
 * NULL, keeps only that event's ips.  Then spgo_gen()/spgo_cs_gen() work
 * as on the aggregate of the captures themselves.
 */
int spgo_unsym_fill(struct spgo_unsym *u, struct spgo_aggregate *agg, const char *event_name);

/* "bin", "text", "profgen" (and "unsym" for bin) -> format; -1 if none. */
int spgo_unsym_format_parse(const char *name, enum spgo_unsym_format *fmt);

/* What `spgo show` prints of an unsymbolized profile: per section its
 * binary, kinds, header counts and the sizes of its maps. */
void spgo_unsym_print_summary(const struct spgo_unsym *u, FILE *fp);

/* The form a merge of inputs of these forms is written in when none is
 * asked for: binary when any input is, else text (llvm-profgen's inputs
 * too) -- the same whatever the inputs' order. */
enum spgo_unsym_format spgo_unsym_merged_format(const enum spgo_unsym_format *forms, size_t n);

/* Totals over a section's maps, for reports: keys, sum of counts. */
void spgo_unsym_totals(const struct spgo_unsym_bin *s, uint64_t *keys, uint64_t *count);

#endif
