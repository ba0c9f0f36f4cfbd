/*
 * spgo/stale.h: profiles across builds.  A sample profile collected on one
 * build (OLD) is used to build the next (NEW): "profile data is stale by
 * design" (the AutoFDO paper).  This stage says how much of a profile the
 * compiler will still find in NEW, function by function, and why the rest
 * is lost; `spgo carry` moves the rest using the same matching.
 *
 * Inputs: a profile (spgo/profile.h, any format), the NEW binary and
 * optionally OLD (spgo/binary.h, spgo/probe.h).  A binary is seen here as
 * the compiler's sample loader will see the code it came from:
 *  - its functions, keyed by GUID (spgo_md5_guid() of the canonical name,
 *    spgo_profgen_canonical_len(); an MD5 profile's names are GUIDs
 *    already), out-of-line (a DWARF subprogram or probe descriptor with
 *    code of its own) or only inlined into others;
 *  - line profiles (AutoFDO): every location (function, line offset from
 *    its DW_AT_decl_line, base discriminator) that holds code, from every
 *    frame of the DWARF inline stacks, as `spgo gen` keys body samples;
 *    the call sites: a direct call (or a tail jump into a function's
 *    entry) from a location to a callee, an indirect call from a location
 *    (any callee), and inline sites (a callee's inlined copy at a
 *    location of the caller);
 *  - probe profiles (CSSPGO): the CFG checksum of every function of
 *    .pseudo_probe_desc, the probes (function, probe id) present, call
 *    probes with the callee of their call, and the inline sites of the
 *    probe inline tree (caller, call-site probe id, callee).
 *
 * Matching rules (each a figure of the report, in samples: the body
 * samples of every function profile, top-level and inlined, so a sample is
 * counted once, in the innermost function that holds it):
 *  - exists: the function (by GUID) is in NEW, out-of-line or inlined;
 *  - matched: probe profiles: the profile's !CFGChecksum equals NEW's (clang
 *    drops every sample of a function whose checksum differs unless
 *    -salvage-stale-profile); line profiles: the body record's (line
 *    offset, discriminator) holds code of that function in NEW;
 *  - call sites: a call target's samples match when NEW still calls (or
 *    inlines) that callee at that location (an indirect call: any callee);
 *  - inlining: a top-level profile whose function NEW has no out-of-line
 *    copy of ("now inlined everywhere"); an inlinee whose call site NEW
 *    calls instead of inlining ("not inlined").  Neither loses samples
 *    (clang reads the function's profile before it inlines), both are
 *    reported;
 *  - renamed: a function gone from NEW whose checksum (probe profiles) or
 *    every call anchor (location and callee, line profiles) belongs to
 *    exactly one NEW function the profile does not name; else whose
 *    identifier (a plain mangled name's, "_ZL5ccall", or the stem before a
 *    unique-linkage suffix ".__uniq.N") does; else, for a name with such a
 *    suffix (a static function, one copy per module), the NEW function of
 *    its name under its module's new suffix, as the functions renamed so
 *    far pair old and new suffixes.  Its samples are not matched (clang
 *    will not find them), but carried they would be.
 * The verdict: "fresh" when matched samples are at least the threshold
 * (percent of all body samples), "stale" below, "no match" below
 * SPGO_STALE_NO_MATCH_PCT.  Line profiles: a body record at a negative line
 * offset is line-0 code (compiler-made; its offset moves with the
 * function's first line) and matches the function's line-0 code in NEW.
 *
 * With OLD: the profile must match OLD (at least half its samples; else
 * the files do not belong together, an error), and the report says which
 * profiled functions changed between OLD and NEW: their checksums, or their
 * code size and their set of line locations.
 *
 * Errors (spgo_error(), one line naming the file and what is needed): a
 * probe profile with a binary without pseudo-probes; a line profile with a
 * binary without DWARF (stripped, no debug file found); a profile with no
 * samples; a profile that does not match OLD.
 */
#ifndef SPGO_STALE_H
#define SPGO_STALE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct spgo_write_opts;

/* What happened to a function of the profile (bits of spgo_stale_func.status). */
enum {
	SPGO_STALE_GONE = 1 << 0,        /* no function of that GUID in NEW */
	SPGO_STALE_RENAMED = 1 << 1,     /* gone, but one NEW function looks the same */
	SPGO_STALE_CHECKSUM = 1 << 2,    /* probe: CFG checksum differs (clang drops it) */
	SPGO_STALE_LINES = 1 << 3,       /* line: some sampled locations hold no code */
	SPGO_STALE_CALLS = 1 << 4,       /* some sampled call sites have no such call */
	SPGO_STALE_NOW_INLINED = 1 << 5, /* top-level profile, NEW has no out-of-line copy */
	SPGO_STALE_NOT_INLINED = 1 << 6, /* inlined copy at a site NEW calls instead */
	SPGO_STALE_CHANGED = 1 << 7,     /* with OLD: its code changed between OLD and NEW */
};

struct spgo_stale_func {
	char *name;              /* as the profile names it */
	char *renamed_to;        /* NEW's name (SPGO_STALE_RENAMED), else NULL */
	uint64_t guid;
	uint64_t samples;        /* body samples of all its profiles (copies) */
	uint64_t matched;        /* of which still land in NEW */
	uint64_t call_samples;   /* call-target samples */
	uint64_t call_matched;   /* of which at a call (or inline site) still there */
	uint64_t moved_inline;   /* samples of its copies inlined differently */
	unsigned status;         /* SPGO_STALE_* */
	uint64_t profile_checksum, new_checksum, old_checksum; /* probe profiles */
	uint64_t new_size, old_size;   /* bytes of out-of-line code (0: none) */
	uint32_t new_locs, old_locs;   /* line locations holding its code */
};

struct spgo_stale_report {
	char *profile, *binary, *old_binary; /* paths, for the report */
	int probe;                 /* a probe-based profile */
	uint64_t samples;          /* all body samples */
	uint64_t exists;           /* of which in functions NEW has */
	uint64_t matched;          /* of which still land (the gate's figure) */
	uint64_t renamed;          /* of which in renamed functions */
	uint64_t dropped;          /* what clang drops: unmatched samples */
	uint64_t call_samples, call_matched;
	uint64_t moved_inline;     /* samples inlined differently */
	size_t nfuncs;             /* functions of the profile */
	size_t nstale;             /* of which with a status bit other than CHANGED */
	struct spgo_stale_func *funcs; /* samples descending, then name */
	/* With OLD: */
	int have_old;
	uint64_t old_matched;      /* samples matching OLD */
	size_t changed;            /* profiled functions whose code changed */
	size_t added, removed;     /* functions of NEW not in OLD, of OLD not in NEW */
};

struct spgo_stale_opts {
	const char *profile;    /* profile path */
	const char *binary;     /* NEW */
	const char *old_binary; /* OLD, or NULL */
};

/* Match the profile against NEW (and OLD): 0 and *r filled (free it with
 * spgo_stale_report_free()), or -1 with spgo_error set and nothing to free. */
int spgo_stale_check(const struct spgo_stale_opts *o, struct spgo_stale_report *r);
/* matched / samples in percent (0 when there are no samples). */
double spgo_stale_matched_pct(const struct spgo_stale_report *r);
/* Below this share of matched samples a profile is "no match" whatever the
 * threshold: an unrelated program still matches a little (its main, the
 * libc functions inlined into both). */
#define SPGO_STALE_NO_MATCH_PCT 10.0
/* 0 fresh (matched >= threshold percent), 1 stale, 2 no match. */
int spgo_stale_verdict(const struct spgo_stale_report *r, double threshold);
/* The report: totals, the top functions (all if top is 0), with OLD the
 * changed functions, and last the one line to gate on. */
void spgo_stale_print(const struct spgo_stale_report *r, FILE *fp, size_t top, double threshold);
void spgo_stale_report_free(struct spgo_stale_report *r);

/*
 * spgo carry: the profile rewritten for NEW (see src/stale/carry.c for the
 * matching).  Line profiles: each function's locations aligned between OLD
 * and NEW (call and inline anchors, then instruction rows, by longest
 * common subsequence; the rest shifted by the nearer pair's delta), body
 * records, call targets and inlinees moved through that map, renamed
 * functions (as spgo_stale_check() finds them) given NEW's name, and what
 * lands on no code of NEW dropped.  Probe profiles: a function whose CFG
 * checksum is NEW's keeps its probe ids; one whose checksum changed is
 * aligned as clang's -salvage-stale-profile would read it (call anchors
 * paired by LCS between OLD's and NEW's probes, the other probes moved by
 * the nearer paired anchor's delta; src/stale/align.c) and written under
 * NEW's checksum; renamed functions take NEW's name; the probes it places
 * by no code (none, or a delta) then take the counts profile inference
 * (profi) gives them on the function's CFG in NEW from the others (see
 * src/stale/flow.c).  Context-sensitive
 * profiles: each context's caller frames have their call sites carried
 * through their own function's map, the leaf's samples through its own.
 * The output is written atomically (spgo_profile_write()).
 */
/* spgo carry's default min_confidence (percent): chosen on lua 5.4.4 ->
 * 5.4.7, whose luaV_execute (12% placed by its code) built faster dropped
 * than carried by deltas, and on the tests' edits (52-100%). */
#define SPGO_CARRY_MIN_CONFIDENCE 25

struct spgo_carry_opts {
	const char *profile, *old_binary, *binary, *out;
	int format;                          /* enum spgo_format; SPGO_FMT_UNKNOWN: the input's */
	const struct spgo_write_opts *wopts; /* or NULL */
	/* probe profiles: a function whose checksum changed and whose samples
	 * are placed by the code (spgo carry's report: the same location, a
	 * call anchor, a block hash or code) less than this percent is kept
	 * as it is, OLD's checksum and probes: clang drops it as it would the
	 * stale profile.  0: every function carried.  SPGO_CARRY_MIN_CONFIDENCE
	 * is spgo carry's default. */
	double min_confidence;
	/* probe profiles: leave the probes the matching places by no code (or
	 * by a delta) as it leaves them, with no count or a guessed one,
	 * instead of inferring their counts on NEW's CFG (profi; see
	 * src/stale/flow.c) */
	int no_infer;
};

/* Probe profiles: what inference on NEW's CFG filled in (src/stale/flow.c). */
struct spgo_carry_inferred {
	size_t funcs;     /* functions with a probe count inferred */
	size_t probes;    /* probes whose count was inferred: those not placed
			   * by code, and those placed by code that the flow
			   * outvoted (src/stale/flow.c) */
	size_t changed;   /* of which given a count other than the matching's */
	uint64_t samples; /* the inferred counts' sum */
	size_t left;      /* functions left as matched: no CFG in NEW, counts
			   * over 2^40, or a flow that lost most of the
			   * matched weight */
};

struct spgo_carry_report {
	struct spgo_stale_report before; /* the profile as it is, against NEW (and OLD) */
	int probe;
	uint64_t samples;      /* body samples of the profile */
	uint64_t carried;      /* written at a location with code of the function in NEW */
	uint64_t as_is;        /* of which at the same location */
	uint64_t by_anchor;    /* moved with a call or inline anchor paired with NEW's */
	uint64_t by_hash;      /* probe profiles: moved with a block of the same hash */
	uint64_t by_row;       /* moved with a row of the same instructions (probe
				* profiles: a block of the same code, moved) */
	uint64_t by_gap;       /* probe profiles: moved with a block of the same code
				* between two pairs, in order (a guess: not counted
				* placed by code) */
	uint64_t by_shift;     /* moved by the delta of the nearer pair */
	uint64_t renamed;      /* under a renamed function (any of the above) */
	uint64_t dropped;      /* no place in NEW: not written */
	uint64_t kept;         /* in functions kept as they are (min_confidence) */
	uint64_t call_samples, call_carried; /* call targets; at a call site of NEW */
	size_t funcs_aligned, funcs_renamed, funcs_kept;
	size_t contexts, contexts_dropped; /* CS profiles: contexts written, dropped */
	struct spgo_carry_inferred inferred;
};

/* Carry the profile: 0, the output written and *r filled (free it with
 * spgo_carry_report_free()); or -1 with spgo_error set, nothing written. */
int spgo_carry(const struct spgo_carry_opts *o, struct spgo_carry_report *r);
/* carried / samples in percent. */
double spgo_carry_pct(const struct spgo_carry_report *r);
/* The report: the stale figures before, then what was carried and how, and
 * last the line "carried: X% of samples". */
void spgo_carry_print(const struct spgo_carry_report *r, FILE *fp);
void spgo_carry_report_free(struct spgo_carry_report *r);

#endif
