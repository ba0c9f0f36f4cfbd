/*
 * stale_impl.h: a build as profile matching sees it (spgo/stale.h), shared
 * by the staleness report (match.c) and, later, `spgo carry`.
 *
 * Everything is keyed by function GUID, so line and MD5 profiles, DWARF
 * names and probe descriptors meet on one key.  A location is packed as
 * (line offset or probe id) << 32 | discriminator.
 */
#ifndef SPGO_STALE_IMPL_H
#define SPGO_STALE_IMPL_H

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/stale.h"

/* A function of the build. */
struct stale_fn {
	uint64_t guid;
	const char *name;  /* points into the binary */
	uint64_t checksum; /* probe builds: the descriptor's CFG checksum */
	uint64_t size;     /* bytes of its out-of-line parts (0: inlined only) */
	uint32_t nlocs;    /* locations holding its code */
	uint64_t loc_hash; /* order-independent hash of those locations */
};

/* Kinds of call site (values of stale_build.sites). */
enum {
	STALE_SITE_CALL = 1,   /* a call to the callee (callee 0: indirect, any) */
	STALE_SITE_INLINE = 2, /* the callee's inlined copy */
};

/* A call site row, for finding functions by their call anchors. */
struct stale_anchor {
	uint64_t loc, callee, guid;
};

struct stale_build {
	struct spgo_binary *bin;
	int probe;                 /* keyed by probe ids, else by lines */
	VEC(struct stale_fn) fns;
	struct spgo_kmap fn_index; /* guid -> fns index + 1 */
	struct spgo_kmap locs;     /* (guid, loc) -> 1: code there */
	struct spgo_kmap sites;    /* (guid, loc, callee guid) -> STALE_SITE_* bits */
	VEC(struct stale_anchor) anchors; /* every site, sorted by (loc, callee, guid) */
	struct spgo_kmap name_guid; /* name pointer -> guid (a cache) */
	/* line builds: (guid, loc) -> the classes (bit 1 << SPGO_INSN_*) of
	 * the instructions whose innermost frame is there: a signature for
	 * aligning locations that hold no call (spgo carry); probe builds:
	 * (guid, loc) -> the block hash of the probe (blocks.c; odd, or
	 * STALE_NO_SIG) */
	struct spgo_kmap sigs;
	struct spgo_kmap wsigs; /* probe builds: (guid, loc) -> its block's code hash */
	struct spgo_kmap blocks; /* probe builds: (guid, loc) -> its block's address */
};

/* A probe whose block has no signature (blocks.c). */
#define STALE_NO_SIG 2

/* Open path and model it for a probe (probe = 1) or line profile (gcc: a
 * gcov profile, keyed on raw discriminators); role ("new", "old") names
 * the binary in errors.  0, or -1 with spgo_error set. */
int stale_build_open(struct stale_build *b, const char *path, int probe, int gcc, const char *role);
void stale_build_close(struct stale_build *b);

/* Probe builds: the block signatures of every probe with an address
 * (sigs, wsigs), see blocks.c. */
void stale_probe_block_sigs(struct stale_build *b);

/* The build's function of guid, or NULL. */
const struct stale_fn *stale_build_fn(const struct stale_build *b, uint64_t guid);
/* 1 if code of function guid is at loc. */
int stale_build_has_loc(const struct stale_build *b, uint64_t guid, uint64_t loc);
/* The STALE_SITE_* bits of (guid, loc, callee), 0 if none; an indirect
 * call at loc counts as a call to any callee. */
unsigned stale_build_site(const struct stale_build *b, uint64_t guid, uint64_t loc, uint64_t callee);

/* The stem of a name made unique by clang (-funique-internal-linkage-names,
 * implied by -fpseudo-probe-for-profiling): a static function's name takes
 * ".__uniq." and a hash of its module's path, which changes when the
 * source tree moves (a new release unpacked elsewhere).  Its length, or 0
 * when the name has no such suffix. */
size_t stale_uniq_stem_len(const char *name);

/* The part of a name a renamed function keeps: a plain mangled name's
 * identifier ("_ZL5ccall" of "_ZL5ccallP9lua_Stateii.__uniq.N": the
 * parameters may change too), else the stem of a unique name; its length,
 * 0 when the name has neither. */
size_t stale_rename_key_len(const char *name);

/* The key a callee guid of build b is compared by across builds (call
 * anchors): the hash of its rename key (stale_rename_key_len()) when it
 * has one, else the guid. */
uint64_t stale_build_anchor_key(const struct stale_build *b, uint64_t guid);

/* The GUID of a name as profiles key it: the digits of an MD5 name, else
 * spgo_md5_guid() of the canonical name (line profiles) or of the name
 * itself (probe profiles: the descriptor's name). */
uint64_t stale_guid(const char *name, size_t len, int md5, int probe);

/*
 * Line 0 (code the compiler made, attributed to no line) gets offset
 * (0 - decl_line) & 0xffff in a profile: a number that moves with the
 * function's first line although nothing changed.  A line build keeps such
 * code under this offset, which no real offset takes, and a body record at
 * a negative offset (a line before the function's own, which only line 0
 * gives) matches it.
 */
#define STALE_LINE0 0x10000u
static inline int stale_is_line0(uint32_t offset)
{
	return offset >= 0x8000 && offset <= 0xffff;
}

static inline uint64_t stale_loc(uint32_t line, uint32_t disc)
{
	return (uint64_t)line << 32 | disc;
}

/* ---- aligning the locations of one function (align.c) ------------------- */

/* How a location was placed (which figure of spgo_carry_report), surest
 * first. */
enum { HOW_SAME, HOW_ANCHOR, HOW_HASH, HOW_ROW, HOW_GAP, HOW_SHIFT };

/* A location of one function in one build, in location order. */
struct loc_row {
	uint64_t loc;
	uint64_t anchor; /* hash of the callees of its sites, 0: no site */
	uint64_t sig;    /* instruction signature (stale_build.sigs); probe
			  * builds: the block hash */
	uint64_t wsig;   /* probe builds: the block's own code hash, 0: none */
	uint64_t blk;    /* probe builds: the block's address, 0: none */
};

/* A pair of the alignment: OLD location -> NEW location. */
struct loc_pair {
	uint64_t from, to;
	int how;
};

/* The map of one function (OLD guid -> NEW guid): pairs sorted by OLD
 * location (then NEW); a probe map may pair one OLD location with several
 * NEW ones. */
struct fn_map {
	VEC(struct loc_pair) pairs;
	/* probe maps: OLD probes no NEW probe takes, whose block of OLD
	 * another one carries (its samples are that one's): from and how,
	 * sorted by from; counted carried, not written */
	VEC(struct loc_pair) shadows;
};

/* Above this many cells (n x m) an alignment is not tried. */
#define STALE_MAX_LCS_CELLS (1u << 24)

/* What stale_lcs() pairs besides anchors: rows (LCS_ROWS) or nothing. */
enum { LCS_ROWS, LCS_ANCHORS };

/* Weighted longest common subsequence of o[0..n) and w[0..m): anchors
 * pair when their callees are the same (weight 4); in mode LCS_ROWS rows
 * without sites pair when they have the same discriminator and
 * instruction signature (weight 1).  The pairs are appended to fm in
 * order. */
void stale_lcs(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, int mode, struct fn_map *fm);

/* Probe builds: the OLD probe whose samples each NEW probe takes, by the
 * block signatures and call anchors (see align.c); appended to fm and
 * sorted by OLD location, the shadows to fm->shadows. */
void stale_align_blocks(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, struct fn_map *fm);


/* ---- counts inferred on NEW's CFG (flow.c) ------------------------------------ */

struct spgo_profile;
/* Probe profiles: the probes of NEW function ng that map fm places by no
 * code (unpaired, or by a delta) get the counts profi infers on ng's CFG
 * in NEW from those it places by code (their counts in out's function
 * dst, as carried); written into dst, counted in st. */
void stale_infer_probes(struct stale_build *nb, uint64_t ng, const struct fn_map *fm, struct spgo_profile *out,
			uint32_t dst, struct spgo_carry_inferred *st);

#endif
