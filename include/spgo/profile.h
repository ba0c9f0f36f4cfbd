/*
 * spgo/profile.h: the sample-profile model and its file formats.
 *
 * Model
 *  A profile (struct spgo_profile) is a set of function profiles kept in
 *  flat arrays; everything refers to everything else by 32-bit index, never
 *  by pointer, so the arrays may grow while a profile is being filled.
 *
 *  - A function profile (struct spgo_func) has a name, total samples, head
 *    samples (the samples of its entry, top level only), body samples keyed
 *    by (line offset from the function's start line, discriminator) -- or by
 *    probe id in a probe-based profile, where the discriminator is 0 -- and
 *    inlined callsites keyed by (line offset, discriminator, callee name),
 *    each a nested function profile.  A body sample (struct spgo_body) holds
 *    a count and call targets (struct spgo_target: callee name -> count).
 *  - Context-sensitive (CS) profiles: each top-level function profile
 *    belongs to one calling context, written "main:12 @ bar:3 @ foo" (the
 *    leaf frame has no location).  The function's name is the leaf frame.
 *    Context attributes (SPGO_ATTR_*) say whether the context was inlined
 *    or should be inlined (CSSPGO preinliner).  A preinlined profile is the
 *    nested form with attributes on inlinees.
 *  - Probe-based profiles: body keyed by probe id, the function's CFG
 *    checksum in spgo_func.checksum.
 *  - Names are plain strings.  MD5 profiles (LLVM's 64-bit GUIDs) hold the
 *    GUID as its decimal string, as LLVM prints it; the MD5 flag makes the
 *    binary writer store them as GUIDs (spgo_md5_guid() hashes real names).
 *  - The summary is what LLVM's ProfileSummaryBuilder computes (default
 *    cutoffs, CS profiles flattened by leaf name first), since clang reads it
 *    from the file to decide what is hot.
 *
 * Filling a profile (what profile generation does)
 *
 *     struct spgo_profile *p = spgo_profile_new();
 *     uint32_t f = spgo_func_get(p, "main");          // get or create
 *     spgo_add_head(p, f, 10);
 *     spgo_add_body(p, f, 3, 0, 120);                 // line offset 3, disc 0
 *     spgo_add_target(p, f, 4, 1, "foo", 50);         // call at 4.1 -> foo
 *     uint32_t g = spgo_inlinee_get(p, f, 5, 0, "bar"); // inlined at 5
 *     spgo_add_body(p, g, 1, 0, 70);
 *     uint32_t c = spgo_func_get_ctx(p, "main:3 @ foo"); // CS profile
 *     spgo_profile_finalize(p, SPGO_FIN_TOTALS);       // totals + summary
 *
 *  Indexes returned stay valid for the profile's life; struct pointers from
 *  spgo_fn() are valid until the next call that adds to the profile.
 *
 *  Lookups are hash-indexed only for lists longer than a dozen entries;
 *  shorter chains are walked, so filling and merging touch little memory.
 *  To merge many files, read them all into one profile with
 *  spgo_profile_read_into() (counts times a weight), then finalize once.
 *
 * Formats: LLVM text, LLVM extended binary (read: every section clang 14 and
 * 19 read, zlib-compressed ones included, unknown ones skipped; write: the
 * summary, name table (plain, or fixed-length MD5), CS name table, offset
 * table, profiles, symbol list and metadata sections in LLVM's default
 * layout), GCC AutoFDO gcov (GCC 12 "version 2" layout with byte-length
 * strings, or the autofdo tools' "version *704" layout dump_gcov reads).
 * spgo_profile_read() detects the format by content.  Both LLVM 14 and 19
 * read what spgo writes by default; the only difference of target_llvm=19
 * is that a preinlined CS profile then carries the summary's "preinlined"
 * flag, which LLVM 14 would take for its "CS nested" flag.
 * Errors follow spgo/common.h: "FILE: line N: ..." or "FILE: offset 0x..: ...".
 */
#ifndef SPGO_PROFILE_H
#define SPGO_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/common.h"

#define SPGO_NONE UINT32_MAX

/* Context attributes (LLVM's ContextAttributeMask). */
enum {
	SPGO_ATTR_WAS_INLINED = 0x1,
	SPGO_ATTR_SHOULD_INLINE = 0x2,
	SPGO_ATTR_DUPLICATED_INTO_BASE = 0x4,
};

/* Profile-wide flags. */
enum {
	SPGO_PROF_CS = 1 << 0,         /* full context-sensitive (flat CS) */
	SPGO_PROF_PROBE = 1 << 1,      /* pseudo-probe based, checksums */
	SPGO_PROF_MD5 = 1 << 2,        /* names are decimal MD5 GUIDs */
	SPGO_PROF_FS = 1 << 3,         /* flow-sensitive discriminators */
	SPGO_PROF_PREINLINED = 1 << 4, /* has should-inline attributes */
	SPGO_PROF_PARTIAL = 1 << 5,    /* partial profile */
	/* top is in the order LLVM's SampleProfileMap iterates (nested CS
	 * profiles from spgo_profile_cs_nest); the extbinary writer puts the
	 * function metadata in that order, as LLVM's */
	SPGO_PROF_MAP_ORDER = 1 << 6,
};

struct spgo_target {
	uint32_t name, next; /* callee name id; next target of the body record */
	uint64_t count;
};

struct spgo_body {
	uint32_t line, disc; /* line offset (or probe id), discriminator */
	uint64_t count;
	uint32_t func;    /* owning function profile */
	uint32_t next;    /* next body record of the function, or SPGO_NONE */
	uint32_t targets; /* first call target, or SPGO_NONE */
	uint32_t ntargets;
};

struct spgo_func {
	uint32_t name;         /* function name id (leaf frame for CS) */
	uint32_t ctx;          /* context id (CS top level) or SPGO_NONE */
	uint32_t parent;       /* caller profile for inlinees, else SPGO_NONE */
	uint32_t line, disc;   /* inlinee: callsite location in the parent */
	uint64_t total, head;  /* total samples, head (entry) samples */
	uint64_t checksum;     /* CFG checksum (probe-based) */
	uint32_t attrs;        /* SPGO_ATTR_* */
	uint32_t bodies;       /* first body record, or SPGO_NONE */
	uint32_t nbodies;
	uint32_t children;     /* first inlinee, or SPGO_NONE */
	uint32_t nchildren;
	uint32_t sibling;      /* next inlinee of the same parent */
};

#define SPGO_SUMMARY_MAX 64
struct spgo_summary_entry {
	uint32_t cutoff; /* per million */
	uint64_t min_count, num_counts;
};
struct spgo_summary {
	uint64_t total, max_count, max_func_count, num_counts, num_funcs;
	unsigned nentries;
	struct spgo_summary_entry entries[SPGO_SUMMARY_MAX];
};

/* The profile's indexes: open addressing on a key (a, b, c), value + 1
 * (0 = empty slot).  Internal to src/profile; use the functions below. */
struct spgo_ptab_slot {
	uint64_t a, b;
	uint32_t c, val;
};
struct spgo_ptab {
	struct spgo_ptab_slot *s;
	size_t cap, n;
};

/* Function names, interned: id -> NUL-terminated string in an arena. */
struct spgo_names {
	char **strs;     /* id -> name */
	uint32_t *len;   /* id -> strlen(name) */
	size_t n, cap;
	char *free_at;   /* the free part of the current arena block */
	size_t free_left;
	VEC(char *) blocks;
};

struct spgo_profile {
	struct spgo_names names;     /* function names (find them with spgo_name_id) */
	struct spgo_strtab contexts; /* CS contexts "a:1 @ b:2.1 @ c" */
	VEC(struct spgo_func) funcs;
	VEC(struct spgo_body) bodies;
	VEC(struct spgo_target) targets;
	VEC(uint32_t) top;           /* top-level function profiles, in creation order */
	VEC(uint32_t) symbols;       /* profile symbol list (name ids) */
	struct spgo_ptab topmap;     /* (1<<63 | ctx id) -> func + 1 */
	VEC(uint32_t) top_by_name;   /* name id -> plain top-level func, or SPGO_NONE */
	struct spgo_ptab bodymap;    /* (func, line<<32|disc) -> body + 1 */
	struct spgo_ptab tgtmap;     /* (body, name) -> target + 1 */
	struct spgo_ptab childmap;   /* (func, line<<32|disc, name) -> func + 1 */
	struct spgo_ptab namemap;    /* (hash, length, n) -> name id + 1 */
	uint64_t read_weight;        /* readers multiply counts by it (1) */
	unsigned flags;              /* SPGO_PROF_* */
	size_t map_buckets;          /* SPGO_PROF_MAP_ORDER, flat CS: the map's bucket count */
	struct spgo_summary summary; /* valid after spgo_profile_finalize() */
};

/* ---- building ------------------------------------------------------------ */

struct spgo_profile *spgo_profile_new(void);
void spgo_profile_free(struct spgo_profile *p);
uint32_t spgo_name_id(struct spgo_profile *p, const char *s, size_t len);
static inline const char *spgo_name(const struct spgo_profile *p, uint32_t id)
{
	return p->names.strs[id];
}
static inline size_t spgo_name_len(const struct spgo_profile *p, uint32_t id)
{
	return p->names.len[id];
}
static inline struct spgo_func *spgo_fn(struct spgo_profile *p, uint32_t f)
{
	return &p->funcs.v[f];
}
/* Get or create a top-level function profile by name / by CS context
 * ("main:12 @ bar:3 @ foo", no brackets; sets SPGO_PROF_CS). */
uint32_t spgo_func_get(struct spgo_profile *p, const char *name);
uint32_t spgo_func_get_id(struct spgo_profile *p, uint32_t name);
uint32_t spgo_func_get_ctx(struct spgo_profile *p, const char *ctx, size_t len);
/* Find a top-level profile, or SPGO_NONE: by name or context text (a
 * linear scan), by name id, by context id; an inlinee of func. */
uint32_t spgo_func_find(const struct spgo_profile *p, const char *name_or_ctx);
uint32_t spgo_func_find_id(const struct spgo_profile *p, uint32_t name);
uint32_t spgo_func_find_ctx(const struct spgo_profile *p, uint32_t ctx);
uint32_t spgo_inlinee_find(const struct spgo_profile *p, uint32_t func, uint32_t line,
			   uint32_t disc, uint32_t callee);
/* Get or create the inlinee of `func` at (line, disc) calling `callee`. */
uint32_t spgo_inlinee_get(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc,
			  const char *callee);
uint32_t spgo_inlinee_get_id(struct spgo_profile *p, uint32_t func, uint32_t line,
			     uint32_t disc, uint32_t callee);
/* Get or create the body record at (line, disc). */
uint32_t spgo_body_get(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc);
void spgo_add_body(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc,
		   uint64_t count);
void spgo_add_target(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc,
		     const char *callee, uint64_t count);
void spgo_add_target_id(struct spgo_profile *p, uint32_t body, uint32_t callee, uint64_t count);
void spgo_add_head(struct spgo_profile *p, uint32_t func, uint64_t count);
void spgo_add_total(struct spgo_profile *p, uint32_t func, uint64_t count);

enum {
	SPGO_FIN_TOTALS = 1,     /* recompute totals from bodies and inlinees */
	SPGO_FIN_NO_SUMMARY = 2, /* skip the summary (for text or gcov output) */
};
/* Settle flags (probe, preinlined), optionally totals, and the summary. */
void spgo_profile_finalize(struct spgo_profile *p, unsigned how);
void spgo_summary_compute(struct spgo_profile *p);
/* The count threshold of a cutoff (parts per million of the samples): the
 * min count of the first summary entry whose cutoff is at least cutoff;
 * when none is, none (SPGO_SUMMARY_LAST: the last entry's, as LLVM's
 * getEntryForPercentile; 0 for an empty summary). */
#define SPGO_SUMMARY_LAST UINT64_MAX
uint64_t spgo_summary_min_count(const struct spgo_summary *s, uint32_t cutoff, uint64_t none);
/* 1 if a top-level profile has samples (total or head), else 0. */
int spgo_profile_has_samples(const struct spgo_profile *p);

/* Merge all of src into dst, counts times weight (saturating). */
void spgo_profile_merge(struct spgo_profile *dst, const struct spgo_profile *src, uint64_t weight);
/* Merge one function profile of src (any level) into dst's function dfunc. */
void spgo_func_merge(struct spgo_profile *dst, uint32_t dfunc, const struct spgo_profile *src,
		     uint32_t sfunc, uint64_t weight, uint32_t *namemap);

/* A flat CS profile turned into the nested form, as LLVM's converter does
 * (llvm-profdata merge --convert-sample-profile-layout=nest): contexts
 * become inlinees of their caller contexts; caller-less contexts become
 * top-level profiles.  Returns a new, finalized profile, or NULL. */
struct spgo_profile *spgo_profile_cs_nest(const struct spgo_profile *cs);

/* ---- llvm-profgen's profile map ------------------------------------------ */

/* A replay of llvm-profgen's SampleProfileMap, a libstdc++ unordered_map
 * keyed by LLVM's hash of each context, for its iteration order only (the
 * order of LLVM's extbinary function metadata): entries are contexts as
 * texts ("main:3 @ foo"), each with a tag. */
struct spgo_pmap;
struct spgo_pmap *spgo_pmap_new(void);
void spgo_pmap_free(struct spgo_pmap *m);
/* 1 inserted, 0 there already, -1 past the bucket counts known (the
 * replay is then void: see spgo_pmap_tags). */
int spgo_pmap_insert(struct spgo_pmap *m, const char *ctx, uint32_t tag);
int spgo_pmap_has(const struct spgo_pmap *m, const char *ctx);
void spgo_pmap_erase(struct spgo_pmap *m, const char *ctx);
/* The tags in iteration order (*n of them; caller frees), or NULL when an
 * insertion failed. */
uint32_t *spgo_pmap_tags(const struct spgo_pmap *m, size_t *n);
/* Its bucket count (the rest of its state is the order of its entries). */
size_t spgo_pmap_buckets(const struct spgo_pmap *m);
/* The indexes into p->top of p's contexts in the order llvm-profgen's
 * convertToProfileMap inserts them: depth first over its context trie, a
 * context before its callees, siblings by their frame's key in the
 * caller (the callee's name with the caller's call site, as
 * spgo_callsite_hash keys it).  NULL when
 * a top-level profile has no context.  Caller frees. */
uint32_t *spgo_pmap_trie_order(const struct spgo_profile *p);

/* ---- inspecting ------------------------------------------------------------ */

/* The top-level functions sorted as LLVM writes them: total samples
 * descending, then name/context ascending.  Caller frees. */
uint32_t *spgo_profile_sorted(const struct spgo_profile *p);
/* Body records / inlinees of a function in (line, disc[, name]) order, into
 * a caller-owned growable buffer; returns the count. */
size_t spgo_func_bodies(const struct spgo_profile *p, uint32_t func, uint32_t **buf, size_t *cap);
size_t spgo_func_children(const struct spgo_profile *p, uint32_t func, uint32_t **buf, size_t *cap);
/* Call targets of a body record, count descending then name. */
size_t spgo_body_targets(const struct spgo_profile *p, uint32_t body, uint32_t **buf, size_t *cap);
/* The display key of a top-level profile: its name, or its context. */
const char *spgo_func_key(const struct spgo_profile *p, uint32_t func);
/* The profile as llvm-profdata show --sample prints it (src/profile/dump.c):
 * every top-level function (in spgo_profile_sorted's order) or one, with
 * its bodies, call targets and inlinees; the summary of --detailed-summary;
 * the hot functions of --topn (hot: the largest count inside at least the
 * summary's 99% count), the topn hottest in a table. */
void spgo_profile_dump(const struct spgo_profile *p, FILE *fp);
void spgo_profile_dump_func(const struct spgo_profile *p, uint32_t func, FILE *fp);
void spgo_profile_dump_summary(const struct spgo_profile *p, FILE *fp);
void spgo_profile_dump_hot(const struct spgo_profile *p, size_t topn, FILE *fp);
/* The format a merge of profiles of these formats is written in when none
 * is asked for: the richest of them, extbinary > text > gcov (one format:
 * that one) -- the same whatever the inputs' order. */
enum spgo_format spgo_format_merged(const enum spgo_format *fmts, size_t n);
/* Sum of body samples of a function and all its inlinees. */
uint64_t spgo_func_body_sum(const struct spgo_profile *p, uint32_t func);

/* (spgo_md5() and spgo_md5_guid(), the GUIDs of names, are in spgo/common.h.) */

/* ---- llvm-profgen's conventions (src/profile/profgen.c) -------------------
 *
 * The source-level rules by which llvm-profgen 19 writes profiles, on which
 * byte-identical output rests.  Every stage that makes a profile (gen, the
 * context stage, the ground-truth generators, the pre-inliner, the readers
 * that print contexts) takes them from here, and nowhere else. */

/* The length of name's canonical form (FunctionSamples::getCanonicalFnName
 * as llvm-profgen calls it): a ".llvm." or ".part." suffix is stripped when
 * its closing dot is the last dot of the name; other suffixes (".cold",
 * ".isra.0", ".__uniq.N") stay. */
size_t spgo_profgen_canonical_len(const char *name, size_t len);

/* Names whose profiles llvm-profgen drops: compiler-made initializers, of
 * which a binary may have several under one canonical name
 * (__cxx_global_var_init*, __tls_init*). */
int spgo_profgen_ambiguous(const char *name);

/* A top-level body sample is at least the sum of its call targets;
 * inlinees' bodies are left alone (llvm-profgen 19's
 * updateCallsiteSamples; later versions recurse). */
void spgo_profgen_raise_to_targets(struct spgo_profile *p);

/* A location as contexts spell it: ":LINE" or ":LINE.DISC" (no ".0"),
 * followed by sep (e.g. " @ ", or ""), into buf; its length. */
int spgo_profgen_loc(char *buf, size_t size, uint32_t line, uint32_t disc, const char *sep);

/* LLVM's FunctionSamples::getCallSiteHash of callee name id at call site
 * (line, disc): the name's hash (its MD5 GUID, or the number itself for a
 * name that is an MD5, all digits) + 33 x (disc << 32 | line), wrapping.
 * LLVM's context tries keep a node's children in this order. */
uint64_t spgo_callsite_hash(const struct spgo_profile *p, uint32_t name, uint32_t line, uint32_t disc);

/* ---- files --------------------------------------------------------------- */

enum spgo_format {
	SPGO_FMT_UNKNOWN = 0,
	SPGO_FMT_TEXT,
	SPGO_FMT_EXTBINARY,
	SPGO_FMT_GCOV,
};

struct spgo_write_opts {
	int target_llvm;  /* 14 or 19 (0: what both read) */
	int compress;     /* zlib-compress sections (extbinary) */
	int md5;          /* store names as MD5 GUIDs (extbinary) */
	int gcov_version; /* 2 (GCC 12, byte-length strings) or 1 (autofdo tools' "*704") */
	int partial;      /* mark the profile partial */
};

enum spgo_format spgo_format_detect(const uint8_t *data, size_t size);
const char *spgo_format_name(enum spgo_format f);
int spgo_format_parse(const char *s, enum spgo_format *f);

/* Read a profile of any format from path ("-" = stdin), finalized; NULL
 * on error. */
struct spgo_profile *spgo_profile_read(const char *path, enum spgo_format *fmt_out);
/* Read a profile into p, adding to what p holds, counts times weight (the
 * fast way to merge many files); not finalized.  Returns 0 or -1 (p may
 * then hold part of the file). */
int spgo_profile_read_into(struct spgo_profile *p, const char *path, uint64_t weight,
			   enum spgo_format *fmt_out);
/* Read from memory into p (adding, times p->read_weight), not finalized;
 * `path` names it in errors.  Returns 0 or -1. */
int spgo_read_text(struct spgo_profile *p, const char *path, const uint8_t *d, size_t n);
int spgo_read_extbinary(struct spgo_profile *p, const char *path, const uint8_t *d, size_t n);
int spgo_read_gcov(struct spgo_profile *p, const char *path, const uint8_t *d, size_t n);

/* Write (the profile must be finalized).  Returns 0 or -1. */
int spgo_write_text(struct spgo_profile *p, FILE *fp);
int spgo_write_extbinary(struct spgo_profile *p, FILE *fp, const struct spgo_write_opts *o);
int spgo_write_gcov(struct spgo_profile *p, FILE *fp, const struct spgo_write_opts *o);
/* Write atomically to path ("-" = stdout). */
int spgo_profile_write(struct spgo_profile *p, const char *path, enum spgo_format fmt,
		       const struct spgo_write_opts *o);

/* ---- overlap ------------------------------------------------------------- */

/* The figures of llvm-profdata overlap --sample (program level).  The
 * fractions are those of the exact sums; the sums below (uint64_t) saturate
 * at UINT64_MAX where counts near 2^64 add up to more. */
struct spgo_overlap {
	double similarity;          /* whole program profile similarity */
	double sample_overlap;      /* overlap samples / union samples */
	double base_unique, test_unique; /* unique sample fractions */
	/* the fraction of base's samples on locations (body keys, inlinees,
	 * functions) test has at zero or lacks, and the reverse: the hot
	 * weight carried to zero, which a layout follows more than similarity */
	double base_zero, test_zero;
	uint64_t base_sample, test_sample;
	uint64_t overlap_funcs, base_unique_funcs, test_unique_funcs;
	double func_overlap;
	uint64_t hot_func_overlap, hot_func_base, hot_func_test, hot_func_union;
	uint64_t hot_block_overlap, hot_block_base, hot_block_test, hot_block_union;
	/* Function level: every function of both profiles, matched ones with
	 * their similarity (block level, weighted by the functions' shares). */
	struct spgo_overlap_func {
		uint32_t base_func, test_func; /* top-level index, or SPGO_NONE */
		double similarity, base_weight, test_weight;
		uint64_t base_sample, test_sample, overlap_sample, union_sample;
		uint64_t base_unique, test_unique;
		/* overlap / union samples, unique / own samples (0 when none) */
		double overlap_frac, base_unique_frac, test_unique_frac;
		double base_zero_frac, test_zero_frac; /* as base_zero, test_zero */
	} *funcs;
	size_t nfuncs;
};
/* Compare two finalized profiles; out->funcs is allocated (free it with
 * spgo_overlap_free). */
int spgo_profile_overlap(struct spgo_profile *base, struct spgo_profile *test,
			 struct spgo_overlap *out);
/* Keep in o->funcs only the functions whose name (key in test, else in
 * base) contains str (llvm-profdata's --function); how many are left. */
size_t spgo_overlap_keep_named(struct spgo_overlap *o, const struct spgo_profile *base,
			       const struct spgo_profile *test, const char *str);
/* llvm-profdata overlap --sample's report of o on fp, the profiles named
 * base_name and test_name; then the function-level figures of the top
 * hottest functions of either profile (o->funcs is reordered), if top. */
void spgo_overlap_print(struct spgo_overlap *o, const struct spgo_profile *base,
			const struct spgo_profile *test, const char *base_name, const char *test_name,
			size_t top, FILE *fp);
void spgo_overlap_free(struct spgo_overlap *o);

/* ---- context-sensitive block overlap ---------------------------------------- */

/*
 * The CSSPGO paper's block overlap (section IV-C), context by context:
 * for each unit V (a function's profile in one context), D(V) = sum over
 * its blocks v (body samples by line offset and discriminator) of
 * min(f(v) / sum f, gt(v) / sum gt), f the measured profile, gt the
 * reference (`spgo gen --ground-truth-cs`); the program's figure is the
 * mean of D(V) weighted by each unit's share of the measured profile's
 * samples (and, second figure, of the reference's).  The measured profile
 * defines the units (src/profile/cs_overlap.c tells how a reference
 * context finds its unit):
 *  - SPGO_CSO_CONTEXT: its contexts (inlinees of nested or non-CS profiles
 *    as "caller:loc @ callee"); a reference context it lacks counts for the
 *    base profile of its leaf function;
 *  - SPGO_CSO_INLINE (post-inline): each function's out-of-line copy and
 *    each inlined copy, inlinees being inlined when marked ShouldBeInlined
 *    (SPGO_CSO_INLINE_MARKED), always (_ALL: a non-CS profile's inline
 *    tree, or every context) or never (_NONE: context-insensitive).
 */
enum { SPGO_CSO_CONTEXT = 0, SPGO_CSO_INLINE = 1 };
enum { SPGO_CSO_INLINE_MARKED = 0, SPGO_CSO_INLINE_ALL = 1, SPGO_CSO_INLINE_NONE = 2 };

struct spgo_cso_unit {
	char *key;                 /* "main:3 @ foo", or "foo" for a base profile */
	uint64_t test_sum, ref_sum; /* body samples of the unit */
	double overlap;            /* D(V), 0 when one side has no samples */
	int inlined;               /* a context (inlined copy), not a base profile */
};

struct spgo_cs_overlap {
	double overlap;      /* weighted by the measured profile's samples */
	double ref_weighted; /* weighted by the reference's samples */
	uint64_t test_total, ref_total;
	size_t matched, test_only, ref_only; /* units with samples in both / one */
	struct spgo_cso_unit *units;         /* measured samples descending */
	size_t n_units;
};

/* 0, out to be freed with spgo_cs_overlap_free(); or -1 (a profile has no
 * body samples, or the probe kinds differ) with nothing to free. */
int spgo_cs_overlap(struct spgo_profile *ref, struct spgo_profile *test, int view, int inline_mode,
		    struct spgo_cs_overlap *out);
/* The figures, then the top units (all when top is 0... none when -1). */
void spgo_cs_overlap_print(const struct spgo_cs_overlap *o, FILE *fp, long top);
void spgo_cs_overlap_free(struct spgo_cs_overlap *o);

#endif
