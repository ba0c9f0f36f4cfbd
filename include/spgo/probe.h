/*
 * spgo/probe.h: clang's pseudo-probes (-fpseudo-probe-for-profiling), part
 * of the binary model.  A pseudo-probe marks a basic block or a call site of
 * the source function as the compiler saw it before optimizing; the binary
 * keeps, per probe, the address of the code it ended up at and the inline
 * context it was inlined through.  Probe-based sample profiles (CSSPGO) are
 * keyed on (function GUID, probe id) instead of source lines.
 *
 * Sections (ELF, as clang 12 and later write them):
 *   .pseudo_probe_desc  per function: GUID, CFG checksum, name
 *   .pseudo_probe       per function part: a tree of records, one per
 *                       function inlined into it, each with its probes
 * The encoding is described at the top of src/binary/probe.c.
 *
 * Contract
 *  - Everything is built once, on the first call of any function below,
 *    from the binary's sections (or its debug file's).  Afterwards the
 *    lookups allocate nothing and the returned pointers stay valid until
 *    spgo_binary_close().  One thread at a time, like the rest of the model,
 *    until spgo_binary_load_probes() has returned; then any number may read.
 *  - Addresses are the binary's virtual addresses.  Probe addresses in the
 *    newer encoding are deltas from the start of the function part, found
 *    by the MD5 GUID of the ELF symbol names (.symtab, else .dynsym);
 *    records of a function whose part has no symbol cannot be placed and
 *    are left out, with one warning that counts them.
 *  - Bad input (cut or corrupt sections, LEB128 values that overflow, counts
 *    larger than the section can hold, unknown probe types) fails the load
 *    with one spgo_error() naming the file, the section and the byte offset
 *    in it; nothing is kept then.  Oddities that leave the probes usable
 *    (probes of a GUID with no descriptor, descriptors whose name does not
 *    hash to their GUID) are counted and reported with one spgo_warn() each.
 *  - GUID = spgo_guid(linkage name), see spgo/common.h.
 */
#ifndef SPGO_PROBE_H
#define SPGO_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "spgo/binary.h"

enum spgo_probe_type {
	SPGO_PROBE_BLOCK = 0,
	SPGO_PROBE_INDIRECT_CALL = 1,
	SPGO_PROBE_DIRECT_CALL = 2,
};

/* Attribute bits of a probe (bits 4-6 of its type byte). */
#define SPGO_PROBE_ATTR_RESERVED 1
#define SPGO_PROBE_ATTR_SENTINEL 2      /* marks a split part; never in the probe table */
#define SPGO_PROBE_ATTR_DISCRIMINATOR 4 /* a discriminator follows the address */

/* One probe at one address.  An inlined function has a copy of its probes
 * at every place it was inlined: same guid and index, different node. */
struct spgo_probe {
	uint64_t addr;
	uint64_t guid;          /* the function the probe belongs to (innermost) */
	uint32_t index;         /* probe id in that function: 1 is its entry block */
	uint32_t discriminator; /* 0 unless attr has SPGO_PROBE_ATTR_DISCRIMINATOR */
	uint32_t node;          /* its record in the inline tree (spgo_binary_probe_nodes) */
	uint8_t type;           /* enum spgo_probe_type */
	uint8_t attr;           /* SPGO_PROBE_ATTR_* */
};

/*
 * A record of the inline tree: a function body, top-level (the function
 * the code belongs to) or inlined at probe `callsite` of its parent.
 * Nodes are numbered in the order of the section, depth first, so a parent
 * always comes before its inlinees.
 */
struct spgo_probe_node {
	uint64_t guid;
	int32_t parent;    /* -1 for a top-level record */
	uint32_t callsite; /* the call's probe id in the parent; 0 at the top */
	int32_t desc;      /* index in spgo_binary_probe_descs(), or -1 */
};

/* A function of .pseudo_probe_desc, with what the probes say about it. */
struct spgo_probe_desc {
	uint64_t guid;
	uint64_t checksum;   /* CFG checksum (what a probe profile's !CFGChecksum must equal) */
	const char *name;    /* as the descriptor gives it */
	uint64_t start;      /* address of the symbol whose GUID this is, 0 if none
				(a function inlined everywhere has none) */
	uint32_t nprobes;    /* probes with this guid, all inlined copies counted */
	uint32_t max_index;  /* the highest probe id among them */
	uint32_t part, nparts; /* its split parts: spgo_binary_probe_parts()[part, part + nparts) */
};

/* A split part of a function (foo.cold), known by the sentinel probe of a
 * record of the function that starts at the part. */
struct spgo_probe_part {
	uint64_t guid;      /* the function */
	uint64_t part_guid; /* GUID of the part's symbol name */
	uint64_t start;     /* the part's address, 0 if no symbol has that GUID */
	const char *symbol; /* "foo.cold", or NULL */
};

/* One frame of a probe's inline context, innermost first (as struct
 * spgo_frame): frame 0 is the probe's function and the probe's own id;
 * frame i > 0 the function frame i - 1 was inlined into, and the probe id
 * of that call site in it. */
struct spgo_probe_frame {
	const char *function; /* the descriptor's name, or NULL if the GUID has none */
	uint64_t guid;
	uint32_t probe;
};

/*
 * Decode the probe sections now: 1 if the binary has pseudo-probes, 0 if it
 * has neither section (no error set), -1 on bad input (spgo_error set; the
 * same message on every later call).
 */
int spgo_binary_load_probes(struct spgo_binary *bin);

/* All probes sorted by address; probes at one address in section order. */
const struct spgo_probe *spgo_binary_probes(struct spgo_binary *bin, size_t *n);
/* The probes at exactly addr (*n of them, 0 and NULL if none). */
const struct spgo_probe *spgo_binary_probes_at(struct spgo_binary *bin, uint64_t addr, size_t *n);
/* The records of the inline tree, in section order. */
const struct spgo_probe_node *spgo_binary_probe_nodes(struct spgo_binary *bin, size_t *n);
/*
 * Fill frames[0..max) with the inline context of probe p, innermost first;
 * returns the number of frames (1 + inline depth, possibly more than max:
 * then only max are filled).  Allocates nothing.
 */
int spgo_probe_inline_chain(struct spgo_binary *bin, const struct spgo_probe *p, struct spgo_probe_frame *frames,
			    int max);

/* The function descriptors, sorted by GUID (one per GUID). */
const struct spgo_probe_desc *spgo_binary_probe_descs(struct spgo_binary *bin, size_t *n);
/* The descriptor of guid, or NULL. */
const struct spgo_probe_desc *spgo_binary_probe_desc(struct spgo_binary *bin, uint64_t guid);
/* Split parts, sorted by function GUID then address. */
const struct spgo_probe_part *spgo_binary_probe_parts(struct spgo_binary *bin, size_t *n);

/* What the decoder counted, for reports (zero before loading). */
struct spgo_probe_stats {
	size_t records;            /* function records, top-level and inlined */
	size_t top_records;        /* of which top-level */
	size_t sentinels;          /* split parts seen */
	size_t unplaced_records;   /* top-level records with no symbol: left out */
	size_t unplaced_probes;    /* the probes they (and their inlinees) held */
	size_t no_desc;            /* records whose GUID has no descriptor */
	size_t desc_bad_guid;      /* descriptors whose name does not hash to the GUID */
	size_t desc_no_symbol;     /* descriptors of functions with no symbol (inlined away) */
	int address_based;         /* 1: the legacy encoding with absolute addresses */
};
const struct spgo_probe_stats *spgo_binary_probe_stats(struct spgo_binary *bin);

/* "Block", "IndirectCall", "DirectCall" (llvm-profgen's words), or "?". */
const char *spgo_probe_type_name(unsigned type);

#endif
