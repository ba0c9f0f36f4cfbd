/*
 * spgo/context.h: calling contexts.  The distinct (call stack, LBR) samples
 * of an aggregate (spgo/aggregate.h) in, a context-sensitive (CS) sample
 * profile (spgo/profile.h) out: the CSSPGO paper's section III, the way
 * llvm-profgen (LLVM 19) does it for binaries with DWARF lines, and for
 * binaries with pseudo-probes (probe-based contexts; src/context/probe.c
 * describes them; --use-dwarf-correlation keeps lines).
 *
 * What it implements
 *  - Virtual unwinding (the paper's Algorithm 1; llvm-profgen's
 *    VirtualUnwinder).  Each sample's stack (leaf first; return addresses
 *    turned into their call instructions' addresses, a stack cut at the
 *    first return address that follows no call) seeds a path in a frame
 *    trie; its LBR is then walked newest first.  Before every entry but the
 *    newest, the straight-line range [entry.to, current ip] is recorded on
 *    the current frame, split where the inline context changes so that
 *    each piece lands on a frame of its own address.  Then a call pops a
 *    frame (or, when the parent frame is not that call -- the sample was
 *    in a prologue or epilogue -- the leaf frame switches to the call and
 *    it is counted); a return whose target follows a call switches to that
 *    call's frame and pushes the return's source; anything else moves the
 *    leaf frame to the branch source.  The branch is then recorded on the
 *    leaf frame (external -> internal branches on the root, for head
 *    samples).  A range that cannot be (reversed, off instruction starts,
 *    across an unconditional jump, call or return, or with one external
 *    end) makes the state inconsistent: the rest of that LBR is unwound as
 *    if there were no stack.  External frames (other files, the kernel)
 *    stay in the trie and cut the contexts of the frames below them.
 *  - As llvm-profgen: the stack's leaf is replaced by the newest LBR
 *    target (the sample ip may have skidded); samples whose leaf lies in a
 *    prologue or epilogue (a function's first two instructions, a return
 *    and the one before it) are dropped; so are samples without an LBR
 *    entry inside the binary.  A leaf ip outside [LBR[0].to, LBR[0].to +
 *    0x100) is counted as a bogus trace, and dropped with drop_bogus.
 *  - Contexts: the trie path of a frame, root first, is a list of
 *    addresses (call sites, then the leaf).  Profile generation expands
 *    each address to its inline frames (DWARF).  In probe mode (trie
 *    probes = 1) ranges and branches are recorded whole on the leaf's
 *    parent frame and keyed by probes at generation.  As llvm-profgen's
 *    reader, addresses that are no instruction start of a function (PLT
 *    stubs, a return address inside an instruction) are external; a
 *    function symbol of size 0 (crt's _init, frame_dummy) is a function up
 *    to the next symbol of its section, as llvm-profgen disassembles it.
 *    Missing frames
 *    of tail calls (paper III-B): a graph of the call and tail-call edges
 *    seen in the LBR; between a call site and the next frame, the unique
 *    chain of tail calls that leads there is inserted; none or several
 *    chains insert nothing and are counted.  llvm-profgen 19 runs this
 *    for probe-based profiles only, and so does the default here.
 *    Recursion compression: adjacent repeated frame sequences of the
 *    expanded context (leaf excluded) are removed (llvm-profgen's
 *    compressRecursionContext, no size limit by default).
 *  - Per context: body samples from its disjoint ranges (per location the
 *    MAX over its instructions of count x duplication factor, total +=
 *    count per instruction); from branches into a function entry, call
 *    targets at the source's location and head samples of the callee's
 *    child context; for a context without head samples (an inlined
 *    callee), the caller's call-site count estimated from the callee's
 *    first body sample; every body sample raised to the sum of its call
 *    targets.  Then contexts whose total is under the profile's hot
 *    threshold (summary cutoff 99%, computed context-less) are merged into
 *    the base (context-less) profile of their leaf function
 *    (llvm-profgen's --csprof-merge-cold-context with the preinliner off),
 *    and profiles of __cxx_global_var_init / __tls_init are dropped.
 *
 *
 * IP samples with call stacks and no LBR (perf record -e cpu-clock
 * --call-graph fp, src/context/ip.c), when the data has no branch stack:
 *  - The context of a sample is its stack's call sites (return addresses
 *    turned into their call instructions; an external frame or a return
 *    address after no call starts the context below it), recursion
 *    compressed on the call sites, then the leaf; expanded to inline
 *    frames as above.  A leaf outside the binary or in a prologue or
 *    epilogue gives no count (counted).
 *  - Counts per unit (call-site path, leaf function): each block of the
 *    function's binary CFG gets the average of its instructions' samples
 *    (1/16 sample units, prologue and epilogue instructions left out); a
 *    call block on the stacks without samples of its own gets its callee
 *    contexts' entry estimate; profile inference (profi, opts.ip_infer)
 *    makes them a flow per unit.  Blocks become ranges and their calls
 *    branches (an indirect call's count split by the callees its stacks
 *    show) of the LBR layout, and the generation above runs on them
 *    unchanged (cold merging, pre-inliner, nesting).
 *  - Data whose stacks never name a caller in the binary (--call-graph
 *    dwarf: the callchain holds no user frame, the stack is left to DWARF
 *    unwinding, which this stage does not do; a build without frame
 *    pointers) is refused with an error that says how to record.
 *
 * What it owns: the frame trie (struct spgo_cs_trie), the code facts the
 * unwinder asks (struct spgo_cs_code), the tail-call graph.  It includes
 * common, binary, aggregate, profile and, for IP samples, infer only.
 *
 * Use:
 *     struct spgo_cs_opts o;
 *     spgo_cs_defaults(&o);
 *     struct spgo_profile *p;
 *     struct spgo_cs_stats st;
 *     if (spgo_cs_gen(agg, &o, &p, &st) < 0) fail();   (flat CS profile)
 *     spgo_cs_print_stats(&st, stderr);
 */
#ifndef SPGO_CONTEXT_H
#define SPGO_CONTEXT_H

#include <stdint.h>
#include <stdio.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/profile.h"

/*
 * The pre-inliner (src/context/preinline.c; the CSSPGO paper's Algorithm
 * 2, llvm-profgen 19's CSPreInliner): its thresholds, named after the LLVM
 * options they mirror, with llvm-profgen 19's defaults.
 */
struct spgo_preinline_opts {
	uint32_t hot_threshold;    /* sample-profile-hot-inline-threshold: 1500 (the
				      pre-inliner's default; clang's loader: 3000) */
	uint32_t cold_threshold;   /* sample-profile-cold-inline-threshold: 0 (clang: 45) */
	uint32_t growth_limit;     /* sample-profile-inline-growth-limit: 12 */
	uint32_t limit_min;        /* sample-profile-inline-limit-min: 100 (bytes) */
	uint32_t limit_max;        /* sample-profile-inline-limit-max: 50000 (the
				      pre-inliner's default; clang's loader: 10000) */
	uint32_t prev_inline_mult; /* csspgo-preinliner-multiplier-for-previous-inlining: 100 */
	uint32_t cutoff_cold;      /* profile-summary-cutoff-cold: 999999 (per million):
				      the cold count, the summary entry at that cutoff */
	uint32_t cutoff_norm;      /* 100000: the count at which hotness reaches 1 */
	int64_t cold_count;        /* profile-summary-cold-count: the cold count itself
				      instead of cutoff_cold's entry (-1: not set) */
	int context_cost;          /* use-context-cost-for-preinliner: 1 (sizes from the
				      binary); 0: the number of body samples */
	int replay;                /* csspgo-replay-preinline: 0 (1: inline what the
				      binary inlined) */
	int zero_callers;          /* 0; 1: the paper's size rule (caller contexts
				      without code of their own weigh 0) */
	int inclusive;             /* 0: inline when size < threshold + 1 (LLVM 19);
				      1: size <= threshold (older llvm-profgen) */
	int sort_scc;              /* sort-profiled-scc-member: 1 */
};

/* What the pre-inliner did. */
struct spgo_preinline_stats {
	uint64_t contexts_in, contexts_out; /* context profiles before and after */
	uint64_t functions;    /* functions with a base profile processed */
	uint64_t promoted;     /* contexts moved or merged into a base profile */
	uint64_t inlined;      /* candidates marked ShouldBeInlined */
	uint64_t not_inlined;  /* candidates over their threshold */
	uint64_t not_considered; /* candidates left when a size budget ran out */
	uint64_t hit_limit;    /* functions whose budget ran out */
	uint64_t dropped;      /* non-inlined contexts reached after their function
				      was processed (dropped, as llvm-profgen) */
	uint64_t size_unknown; /* size lookups without any known size (taken as 0) */
	uint64_t cold_count, norm_upper; /* the counts used */
};

enum { SPGO_CS_CALL_EST_FIRST = 0, SPGO_CS_CALL_EST_ENTRY = 1 };

struct spgo_cs_opts {
	int infer_missing_frames; /* insert unique tail-call chains: 1, 0, or -1
				     (default): on for probe-based profiles only */
	int dwarf_lines;          /* 1: key contexts by DWARF lines even when the
				     binary has pseudo-probes (default 0) */
	int compress_recursion;   /* -1: no size limit (default), 0: off, N: max length */
	int max_context_depth;    /* llvm-profgen's --csprof-max-context-depth: keep
				     the last K frames of each context (its callers
				     nearest the leaf, and the leaf); -1: all (default) */
	int merge_cold;           /* merge contexts under the hot threshold: 1, 0, or
				     -1 (default): on unless preinline (llvm-profgen's
				     --csprof-merge-cold-context) */
	int max_cold_depth;       /* ... into the context of their last K frames (1,
				     the default: the base profile of their leaf;
				     --csprof-max-cold-context-depth) */
	int trim_cold;            /* drop cold contexts (--trim-cold-profile): those
				     under the hot threshold, and what merging them
				     made when it stays under it and is new; with
				     the pre-inliner and no merging, base profiles
				     only (its decisions kept) */
	int64_t hot_count;        /* the hot threshold: -1 (default): the summary's
				     entry at cutoff_hot; else this count
				     (--profile-summary-hot-count) */
	uint32_t cutoff_hot;      /* per million (990000; --profile-summary-cutoff-hot) */
	int drop_bogus;           /* drop samples whose leaf is far from LBR[0].to (0) */
	int call_estimate;        /* line-keyed profiles: the call-site count a
				     context without head samples (an inlined
				     copy, or a call never sampled) gives its
				     caller: SPGO_CS_CALL_EST_FIRST (default,
				     llvm-profgen's rule), its first sampled body
				     line; SPGO_CS_CALL_EST_ENTRY, the line its
				     code starts at in the binary (1 when that
				     line got no sample) */
	int preinline;            /* run the pre-inliner (0; llvm-profgen 19: on);
				     cold contexts are then not merged */
	int unwind_thread;        /* spgo_cs_stream_begin: unwind on a thread of its
				     own while the samples are read (1, default;
				     the profile is the same either way) */
	const char *ip_infer;     /* IP samples (no LBR): the inference algorithm per
				     context (spgo/infer.h's names; NULL: profi;
				     "none": the block averages) */
	struct spgo_preinline_opts pre;
};

/* What unwinding and generation saw; counts are in samples (a distinct
 * sample counts as many times as it was seen) unless named otherwise. */
struct spgo_cs_stats {
	uint64_t samples;          /* stack samples offered */
	uint64_t unwound;          /* ... unwound */
	uint64_t no_lbr;           /* dropped: no LBR entry touching the binary */
	uint64_t prolog_epilog;    /* dropped: leaf ip in a prologue or epilogue */
	uint64_t bogus;            /* leaf ip not within 0x100 after LBR[0].to */
	uint64_t stack_cut;        /* stacks cut at a return address after no call */
	uint64_t inconsistent;     /* samples whose LBR became inconsistent with the
				      stack (unwound on without stack from there) */
	uint64_t branches;         /* LBR entries unwound */
	uint64_t bad_range;        /* ... ranges that cannot be (reversed, off
				      instruction starts, across a jump) */
	uint64_t unpaired_ext;     /* ... ranges with one external end */
	uint64_t paired_ext;       /* ... external ranges skipped (paired) */
	uint64_t call_mismatch;    /* calls not matching the parent frame (prologue) */
	uint64_t ext_call_mismatch;/* ... from external code */
	uint64_t frames;           /* frame trie nodes */
	uint64_t contexts;         /* distinct contexts written (before merging) */
	uint64_t contexts_cold;    /* ... merged into base profiles */
	uint64_t hot_threshold;    /* the cold threshold used */
	uint64_t tail_unique;      /* frame pairs joined by a unique tail-call chain */
	uint64_t tail_ambiguous;   /* ... with several chains (left alone) */
	uint64_t tail_unreached;   /* ... reached by no chain (left alone) */
	uint64_t tail_frames;      /* frames inserted */
	uint64_t count_no_debug;   /* instruction counts in code without DWARF lines */
	uint64_t truncated;        /* samples whose stack ends inside the program
				      in a function other than the outermost one
				      most stacks end in (truncated stacks) */
	char root_func[96];        /* that outermost function ("" if none) */
	/* probe-based profiles */
	int probes;                /* 1: the profile is keyed by pseudo-probes */
	uint64_t ranges_no_probe;  /* sampled ranges in functions without probes
				      (built without them, or asm): no counts */
	uint64_t cut_no_callprobe; /* call sites without a call probe that cut contexts
				      (the older frames dropped; a call the
				      compiler merged, or code without probes) */
	uint64_t cut_zero_site;    /* leaf contexts cut at an inline site of probe id 0 */
	uint64_t probe_undecoded;  /* instruction counts at block probes of records
				      llvm-profgen does not decode (another
				      function's, in sampled code): left out */
	/* IP samples with call stacks, no LBR (src/context/ip.c) */
	int ip_mode;               /* 1: the profile came from them */
	uint64_t ip_samples;       /* stack samples without LBR */
	uint64_t ip_counted;       /* ... counted as a hit of their leaf */
	uint64_t ip_callers;       /* ... of those, with a caller frame in the binary */
	uint64_t ip_ext_leaf;      /* dropped: leaf outside the binary's functions */
	uint64_t ip_proepi;        /* dropped: leaf in a prologue or epilogue (the
				      frame chain misses the caller there) */
	uint64_t ip_units;         /* (context, function) units given block counts */
	uint64_t ip_site_blocks;   /* call blocks without hits given their callees'
				      entry estimate (the stack shows they ran) */
	uint64_t ip_infer_lost;    /* inferences that lost most of the weight (retried) */
	uint64_t ip_no_cfg;        /* functions without a CFG (hits kept per instruction) */
	uint64_t ip_unblocked;     /* hits outside every block of their function's CFG */
	/* with preinline */
	struct spgo_preinline_stats pre;
	uint64_t size_contexts;    /* inline contexts with a known code size */
};

/*
 * The code facts the unwinder needs: instructions (sorted; classes tell
 * calls, returns and jumps), functions (sorted) and, per instruction, its
 * inline-context key (equal keys: same chain of inline callers; 0: no debug
 * information, equal to nothing).  spgo_cs_code_init() takes them from a
 * binary (keys computed on demand); tests fill the arrays by hand with
 * spgo_cs_code_init_arrays() (keys may be NULL: all instructions in one
 * context).
 */
struct spgo_cs_code {
	struct spgo_binary *bin; /* NULL for hand-made code */
	const struct spgo_insn *insns;
	size_t ninsns;
	const struct spgo_function *funcs;
	size_t nfuncs;
	uint64_t *keys;    /* per instruction, computed on demand when bin */
	uint8_t *flags;    /* per instruction: CS_* bits (src/context) */
	uint32_t *barriers;/* barriers[i]: jumps, calls, returns among insns[0..i) */
	/* Lookup buckets of 16 bytes from lo: ibucket[b] / fbucket[b], the
	 * first instruction / function starting at or after lo + 16 b
	 * (nbuckets + 1 entries each). */
	uint64_t lo;
	size_t nbuckets;
	uint32_t *ibucket, *fbucket;
};
int spgo_cs_code_init(struct spgo_cs_code *c, struct spgo_binary *bin);
void spgo_cs_code_init_arrays(struct spgo_cs_code *c, const struct spgo_insn *insns, size_t n,
			      const struct spgo_function *funcs, size_t nfuncs, const uint64_t *keys);
void spgo_cs_code_free(struct spgo_cs_code *c);
/* The addresses of c's prologue and epilogue instructions (a function's
 * first two, a return and the one before it: llvm-profgen's guess),
 * ascending, in a new array of *n (free() it). */
uint64_t *spgo_cs_code_proepi(const struct spgo_cs_code *c, size_t *n);

/* A frame of the trie: an address in a function (a call site, or for the
 * leaf the first instruction of a range) under its caller frame. */
#define SPGO_CS_ROOT 0u
struct spgo_cs_node {
	uint64_t addr;   /* SPGO_AGG_EXTERNAL for an external frame */
	uint32_t parent; /* SPGO_NONE for the root */
};

struct spgo_cs_trie {
	const struct spgo_cs_code *code;
	VEC(struct spgo_cs_node) nodes; /* [0] is the root */
	struct spgo_kmap index;    /* {parent, addr} -> node + 1 */
	struct spgo_kmap ranges;   /* {node, begin, end} -> count (ends inclusive) */
	struct spgo_kmap branches; /* {node, from, to} -> count */
	struct spgo_cs_stats *st;
	int drop_bogus;
	int probes; /* probe mode: ranges and branches on the leaf's parent frame */
	/* scratch (no allocation per sample once grown) */
	VEC(uint64_t) stack;
	VEC(uint64_t) lbr;
	struct spgo_cs_kcache *kcache; /* recently counted keys (unwind.c) */
	/* Contexts read unsymbolized from a DWARF build (spgo_cs_stream_contexts):
	 * per node its context text, NULL for the others (keys.n == 0 when none). */
	VEC(char *) keys;
};

void spgo_cs_trie_init(struct spgo_cs_trie *t, const struct spgo_cs_code *code,
		       const struct spgo_cs_opts *o, struct spgo_cs_stats *st);
void spgo_cs_trie_free(struct spgo_cs_trie *t);
/* Unwind one distinct sample into the trie: 1 unwound, 0 dropped (counted). */
int spgo_cs_unwind(struct spgo_cs_trie *t, const struct spgo_agg_stack *s);
/* The address context of node, root first, cut below the nearest external
 * frame: fills buf[0..min(n, max)) and returns n (0 for the root and for
 * external frames). */
size_t spgo_cs_context(const struct spgo_cs_trie *t, uint32_t node, uint64_t *buf, size_t max);

/*
 * Missing tail-call frames.  Built from the code (call sites, direct jumps
 * into other functions, indirect jumps) refined by the branches the trie
 * recorded (only sampled edges count).  spgo_cs_infer_frames() rewrites an
 * address context ctx[0..n) into out (capacity max), returning the new
 * length (at most max), and counts pairs and inserted frames in st.
 */
struct spgo_cs_tailcalls;
struct spgo_cs_tailcalls *spgo_cs_tailcalls_new(const struct spgo_cs_trie *t);
void spgo_cs_tailcalls_free(struct spgo_cs_tailcalls *tc);
size_t spgo_cs_infer_frames(struct spgo_cs_tailcalls *tc, const uint64_t *ctx, size_t n,
			    uint64_t *out, size_t max, struct spgo_cs_stats *st);

/* Recursion compression on a sequence of n items of size bytes each
 * (llvm-profgen's in-place algorithm; limit -1 = none); returns new n. */
size_t spgo_cs_compress(void *items, size_t n, size_t size, int limit);

void spgo_cs_defaults(struct spgo_cs_opts *o);
/*
 * The flat CS profile of agg->bin from the stack samples of agg (read with
 * call stacks kept): from LBR + stacks when any sample has both, else from
 * IP samples with call stacks (st->ip_mode set).  Fails with an error that
 * says what to record when the data has no call stacks, stacks without
 * callers, or nothing could be unwound; never returns an empty profile.  The profile is finalized (summary computed).
 */
int spgo_cs_gen(struct spgo_aggregate *agg, const struct spgo_cs_opts *o, struct spgo_profile **out,
		struct spgo_cs_stats *st);
/*
 * The pre-inliner on a flat CS profile `cs` (finalized: its context-less
 * summary gives the cold count and the hotness scale), sizes from the
 * binary (spgo_inline_sizes_*, spgo/binary.h): a new finalized flat CS
 * profile where the contexts chosen for inlining are marked
 * SPGO_ATTR_SHOULD_INLINE under their caller's context and every other
 * context is merged into the base profile of its function (names may be
 * added to cs).  spgo_profile_cs_nest() then gives the form clang reads.
 */
void spgo_preinline_defaults(struct spgo_preinline_opts *o);
/* "hot=3000,cold=45,growth=12,min=100,max=10000,prev-mult=100,cutoff-cold=
 * 999999,cutoff-norm=100000,context-cost=1,replay=0,zero-callers=0,
 * inclusive=0,sort-scc=1" (any subset) into o; -1 with spgo_error. */
int spgo_preinline_parse(struct spgo_preinline_opts *o, const char *list);
/*
 * The flat probe-based CS profile of a frame trie filled by the caller
 * (the reference of exact CS counts: src/gen/gen_cs_truth.c), by the rules
 * of spgo_cs_gen() on a binary with pseudo-probes (src/context/probe.c),
 * before cold contexts are merged; the binary's probes must be loaded
 * (spgo_binary_load_probes), and the trie in probe mode (probes = 1:
 * ranges and branches on the node of the leaf's call sites).
 */
struct spgo_profile *spgo_cs_probe_profile(struct spgo_binary *bin, const struct spgo_cs_code *code,
					   struct spgo_cs_trie *trie, const struct spgo_cs_opts *o,
					   struct spgo_cs_stats *st);
struct spgo_profile *spgo_cs_preinline(struct spgo_profile *cs, const struct spgo_inline_sizes *sizes,
				       const struct spgo_preinline_opts *o,
				       struct spgo_preinline_stats *st);

/*
 * The same, unwinding the stack samples while they are read instead of
 * keeping them in the aggregate (memory then grows with the frame trie, not
 * with the samples): spgo_cs_stream_begin() before reading (it registers a
 * callback with spgo_agg_on_stack and checks the binary; NULL with the
 * error when it cannot: then read as usual and call spgo_cs_gen, which
 * reports it in its turn), spgo_cs_stream_gen() after (the same profile and
 * statistics spgo_cs_gen would give), spgo_cs_stream_free() at the end.
 * With o->unwind_thread, batches of samples are unwound on a second thread
 * (spgo_agg_on_stack_thread) in the order they were read, while reading
 * goes on: nothing else may use the binary until spgo_cs_stream_gen.
 */
struct spgo_cs_stream;
struct spgo_cs_stream *spgo_cs_stream_begin(struct spgo_aggregate *agg, const struct spgo_cs_opts *o);
int spgo_cs_stream_gen(struct spgo_cs_stream *cs, struct spgo_aggregate *agg,
		       struct spgo_profile **out, struct spgo_cs_stats *st);
void spgo_cs_stream_free(struct spgo_cs_stream *cs);

/*
 * llvm-profgen's --skip-symbolization of LBR samples with call stacks: the
 * streamed samples unwound (as spgo_cs_stream_gen), then every frame's
 * ranges and branches added to the contexts of s (offsets from s->base),
 * keyed as llvm-profgen 19 writes them: call-site offsets "0x347 @ 0x37c"
 * for a binary with pseudo-probes, the profile's contexts "main:12 @
 * compile" for DWARF lines, "" for no caller (src/context/unsym.c).
 * Stack samples without LBR are refused.  cs may be NULL (the stream
 * could not start): the aggregate's stacks are unwound here, with o.
 */
struct spgo_unsym_bin;
/*
 * The other way: the contexts of an unsymbolized section s (SPGO_UNSYM_CTX,
 * as written above, offsets from s's base or the binary's) join the
 * unwound samples at spgo_cs_stream_gen, which then makes the profile it
 * makes from the capture: a probe build's call-site offsets become trie
 * frames, a DWARF build's context texts are taken as they are.  s must
 * live until then.  Keys of the other kind of build are an error there.
 */
void spgo_cs_stream_contexts(struct spgo_cs_stream *cs, const struct spgo_unsym_bin *s);
int spgo_cs_stream_unsym(struct spgo_cs_stream *cs, struct spgo_aggregate *agg,
			 const struct spgo_cs_opts *o, struct spgo_unsym_bin *s, struct spgo_cs_stats *st);

/* A few "spgo: gen --cs: ..." lines: what was dropped and why. */
void spgo_cs_print_stats(const struct spgo_cs_stats *st, FILE *fp);

/*
 * llvm-profgen's --llvm-sample-profile for a CS profile: its post-passes
 * run again on an existing flat CS profile p (finalized here): the hot
 * threshold from p's summary (or o->hot_count), cold contexts merged
 * (o->merge_cold, default on) and trimmed (o->trim_cold) as after
 * unwinding.  The pre-inliner needs the binary's context sizes from
 * samples and is refused (-1, spgo_error), as is a profile that is not
 * flat CS.  *out is a new finalized profile; p is left as it is.
 */
int spgo_cs_rerun(struct spgo_profile *p, const struct spgo_cs_opts *o, struct spgo_profile **out);

/*
 * The call-site samples of inlined callees, for a flat CS profile: a
 * context without head samples was inlined (no call reached it), so its
 * caller context gets, at the call site, a call target and body count
 * estimated from the callee's entry (LLVM's getHeadSamplesEstimate),
 * deepest contexts first (llvm-profgen's populateInferredFunctionSamples).
 * Used by spgo_cs_gen() and by the reference profile of exact CS counts.
 * entries (NULL: LLVM's rule): {context profile} -> (line << 32 | disc) + 1
 * of the first line of the context's code in the binary; a context found
 * there is estimated by its body sample at that line instead (1 when that
 * line has none: its entry was never sampled, where the first sampled line
 * may be a loop header whose count LLVM's rule would give the call).
 */
void spgo_cs_infer_callsites(struct spgo_profile *p, const struct spgo_kmap *entries);

#endif
