/*
 * spgo/infer.h: control-flow graphs and profile inference.
 *
 * Sampled block counts are noisy and incomplete; the compiler wants block
 * AND edge counts that form a flow.  This stage takes a CFG whose blocks
 * carry sample weights (or "unknown") and infers counts for every block and
 * edge, following "Profile Inference Revisited" (He, Mestre, Pupyrev, Wang,
 * Yu; the paper's terms are used throughout: dangling blocks, islands,
 * dangling subgraphs, PIP).
 *
 * Contract
 *  - A CFG has blocks 0..nblocks-1, directed edges, one entry block and any
 *    number of exits.  An exit is a block with no successors or one flagged
 *    SPGO_BLOCK_EXIT (a block may both branch inside and leave the function,
 *    e.g. a conditional tail call).  Parallel edges are allowed (a jump table
 *    listing one target twice); self loops are allowed.
 *  - Block weights are the input: a count, or SPGO_WEIGHT_UNKNOWN for a
 *    dangling block (no information; distinct from 0, which says "sampled
 *    and never seen").  Edge probabilities are optional (prob < 0 = none);
 *    spgo_cfg_static_probs() fills the missing ones by heuristics.
 *  - spgo_infer() writes block->count and edge->count.  Every algorithm but
 *    SPGO_ALGO_NONE returns a VALID flow: (1) conservation: count(v) = sum
 *    of in-edge counts (+ what enters from outside, only at the entry) = sum
 *    of out-edge counts (+ what leaves, only at exits); (2) connectivity:
 *    every block with a positive count is reachable from the entry along
 *    positive edges, and then flow enters at the entry (a loop through the
 *    entry that nothing enters is an island too).  spgo_flow_check()
 *    verifies both.  Blocks the entry cannot reach, or that reach no exit,
 *    always get 0.
 *  - Nothing here reads files except spgo_cfg_parse_file(),
 *    spgo_cfg_read_insns() and spgo_cfg_read_binary(); errors go through
 *    spgo_error() naming the file and line (or byte offset).  ELF sections
 *    (the block map, .llvm_bb_addr_map) are read by src/binary
 *    (spgo/binary.h).
 *  - Inference allocates its working memory per call and frees it; a CFG
 *    may be reused (change weights, infer again) after spgo_cfg_finalize().
 *
 * Typical use (IP-sample profile generation, as src/gen/gen_ip.c does):
 *
 *     struct spgo_cfg cfg;
 *     spgo_cfg_from_binary(&cfg, bin, fn->start, bbmap);      // finalized
 *     for (b...) cfg.blocks[b].weight = samples_in_block / insns_in_block;
 *     spgo_cfg_static_probs(&cfg);
 *     struct spgo_infer_opts o; spgo_infer_defaults(&o, SPGO_ALGO_PROFI);
 *     spgo_infer(&cfg, &o);
 *     ... cfg.blocks[b].count, cfg.edges[e].count ...
 *     spgo_cfg_free(&cfg);
 */
#ifndef SPGO_INFER_H
#define SPGO_INFER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct spgo_insn; /* spgo/binary.h */

/* ---- the CFG ------------------------------------------------------------ */

#define SPGO_WEIGHT_UNKNOWN UINT64_MAX /* a dangling block */
#define SPGO_NONE UINT32_MAX           /* no block / no edge */

enum spgo_edge_kind {
	SPGO_EDGE_OTHER = 0,   /* hand-made / unspecified */
	SPGO_EDGE_FALLTHROUGH, /* into the next block */
	SPGO_EDGE_JUMP,        /* unconditional direct jump */
	SPGO_EDGE_TAKEN,       /* conditional branch, taken */
	SPGO_EDGE_NOT_TAKEN,   /* conditional branch, not taken (falls through) */
	SPGO_EDGE_TABLE,       /* indirect jump through a recovered jump table */
	SPGO_EDGE_GUESSED,     /* unresolved indirect jump -> possible target */
};

enum spgo_block_flags {
	SPGO_BLOCK_EXIT = 1 << 0,          /* flow may leave the function here */
	SPGO_BLOCK_UNKNOWN_SUCCS = 1 << 1, /* ends in an indirect jump whose targets
					      were not recovered */
	SPGO_BLOCK_NORETURN = 1 << 2,      /* ends in a trap or noreturn call */
	SPGO_BLOCK_RETURN = 1 << 3,        /* ends in a return */
};

struct spgo_cfg_block {
	uint64_t addr, size; /* [addr, addr + size) in a binary CFG; free otherwise;
			      * set before spgo_cfg_finalize(), which derives the
			      * edges' against_layout from them */
	uint64_t weight;     /* input: sample weight or SPGO_WEIGHT_UNKNOWN */
	uint64_t count;      /* output of spgo_infer() */
	uint32_t flags;      /* enum spgo_block_flags */
	uint32_t name;       /* label id in the text format (index into names) */
	/* Optional confidence in the weight: a multiplier of the costs of
	 * changing this block's count (k_inc, k_dec, k_inc0, the entry costs
	 * and k_dec_floor; each rounded, at least 1).  0 (what
	 * spgo_cfg_add_block sets) and 1 mean the costs of the options as
	 * they are; below 1 the weight is trusted less, above 1 more.  A
	 * producer that knows how noisy each weight is sets it to about
	 * 1 / (standard deviation of the weight), normalized so that a
	 * typical block of the function gets 1 (spgo gen's IP mode: see
	 * src/gen/gen_ip.c). */
	double cost_scale;
	/* Optional lower bound on the count (0: none): what the producer
	 * knows the block ran at least, as a call's count in it bounds it
	 * (spgo carry, src/stale/flow.c).  It takes the place of the floor
	 * of dec_floor_pct where higher (at most the weight): below it a
	 * unit costs k_dec_floor (at least k_dec; times cost_scale).  A
	 * known weight only.  SPGO_ALGO_PROFI only: the other algorithms
	 * ignore it. */
	uint64_t floor;
	/* Filled by spgo_cfg_finalize(): edge ids in cfg->succ[out .. out+nout)
	 * and cfg->pred[in .. in+nin). */
	uint32_t out, nout, in, nin;
};

struct spgo_cfg_edge {
	uint32_t src, dst;
	uint32_t kind; /* enum spgo_edge_kind */
	/* Filled by spgo_cfg_finalize() from the blocks' addr and size: 1 if
	 * the edge leaves a two-way branch on the side its layout predicts
	 * against (the cost k_layout of spgo_infer_opts). */
	uint8_t against_layout;
	double prob;   /* branch probability, or < 0 when there is none */
	uint64_t count; /* output of spgo_infer() */
};

struct spgo_cfg {
	struct spgo_cfg_block *blocks;
	struct spgo_cfg_edge *edges;
	size_t nblocks, nedges, cap_blocks, cap_edges;
	uint32_t entry;  /* 0 unless set */
	uint32_t *succ;  /* edge ids grouped by source (after finalize) */
	uint32_t *pred;  /* edge ids grouped by destination */
	char *name;      /* the function's name, or NULL */
	int finalized;
};

void spgo_cfg_init(struct spgo_cfg *cfg);
void spgo_cfg_free(struct spgo_cfg *cfg);
/* Add a block (weight unknown, no flags); returns its index. */
uint32_t spgo_cfg_add_block(struct spgo_cfg *cfg, uint64_t addr, uint64_t size);
/* Add an edge (no probability); returns its index.  Unfinalizes the CFG. */
uint32_t spgo_cfg_add_edge(struct spgo_cfg *cfg, uint32_t src, uint32_t dst, enum spgo_edge_kind kind);
/* Build the successor/predecessor lists; call after the last add, before
 * anything that walks the graph.  Returns -1 (spgo_error) on a bad entry. */
int spgo_cfg_finalize(struct spgo_cfg *cfg);
/* 1 if flow may leave the function at block b. */
static inline int spgo_cfg_is_exit(const struct spgo_cfg *cfg, uint32_t b)
{
	return cfg->blocks[b].nout == 0 || (cfg->blocks[b].flags & SPGO_BLOCK_EXIT);
}
/* The block whose [addr, addr+size) holds addr, or SPGO_NONE (binary CFGs;
 * blocks must be in address order, as spgo_cfg_from_insns makes them). */
uint32_t spgo_cfg_block_at(const struct spgo_cfg *cfg, uint64_t addr);

/*
 * Static branch probabilities of a finalized CFG (Wu and Larus style, at
 * the level a binary allows): for every block with several successors
 * whose edges have no probability, combine the loop-branch (take the back
 * edge: 0.88), loop-exit (stay in the innermost loop: 0.80), noreturn
 * (avoid a successor that ends in a trap or noreturn call: 0.9995) and
 * return (avoid a successor that returns: 0.72) heuristics by
 * Dempster-Shafer; otherwise equal shares.  Edges that already have a
 * probability keep it (the others share what is left); single successors
 * get 1.
 */
void spgo_cfg_static_probs(struct spgo_cfg *cfg);

/* ---- inference ---------------------------------------------------------- */

enum spgo_algo {
	SPGO_ALGO_PROFI,     /* the paper's profi (section 4) */
	SPGO_ALGO_MCF,       /* classical min-cost flow (Levin et al.) */
	SPGO_ALGO_FP,        /* AutoFDO's frequency propagation */
	SPGO_ALGO_QUADRATIC, /* profi's solver on a piecewise-linear L2 objective,
				k (f - w)^2 / max(1, w / 8) */
	SPGO_ALGO_NONE,      /* no inference, the evaluation baseline (NOT a
				valid flow): block count = weight (0 if unknown),
				edge count = source count x probability */
};

struct spgo_infer_opts {
	enum spgo_algo algo;
	/* Costs per unit of change of a sampled block (section 4): increase,
	 * decrease, increase of a block sampled as 0.  The L1 objective of a
	 * block with weight w and count f is
	 *     k_inc (f - w)                       f >= w  (k_inc0 when w = 0)
	 *     k_dec (w - f)                       floor <= f < w
	 *     k_dec (w - floor) + k_dec_floor (floor - f)     f < floor
	 * with floor = w * dec_floor_pct / 100: a block that got samples ran,
	 * and taking its count below a share of the weight costs more (the
	 * Poisson noise of sampling allows small counts to grow a lot, but
	 * makes a count far below the samples unlikely; with dec_floor_pct = 0
	 * it is the paper's L1).  The entry block has its own k_entry_inc and
	 * k_entry_dec (as LLVM's profi-cost-block-entry-inc/dec).
	 *
	 * profi's defaults (spgo_infer_defaults) were tuned, as the paper
	 * tuned its three with a black-box optimizer on SPEC, by a coordinate
	 * search on a training set of real programs (lua5.4, bzip2, minivm;
	 * callgrind ground truth, binomial sampling at 0.1%, 1%, 10%, with
	 * and without 30% dangling blocks; bench/bench_infer.sh), maximizing
	 * mean vertex + edge overlap; speedtest1 is held out.  They are
	 *     k_inc 10, k_dec 15, k_inc0 30, k_entry_inc 10, k_entry_dec 5,
	 *     dec_floor_pct 40, k_dec_floor 1000, k_unknown_inc 1, k_layout 1.
	 * Why: the floor is the big one (sparse samples: under the paper's L1
	 * a function with one sampled block behind a few blocks sampled as 0
	 * came out all zero, overlap 0; on the training set, mean vertex +
	 * edge overlap over all functions went from 1.61 to 1.72).  k_inc0 above k_inc: a 0 is stronger evidence at a block
	 * than a small count is.  The dangling and layout costs break ties
	 * between routes the samples allow (the paper's secondary objective,
	 * probabilities).  The entry and k_dec values moved the objective
	 * little.  mcf (symmetric costs), fp's repair and quadratic keep the
	 * paper's 10, 20, 11 without the extra terms. */
	int64_t k_inc, k_dec, k_inc0;
	int64_t k_entry_inc, k_entry_dec;
	int64_t k_dec_floor;
	int dec_floor_pct;
	/* Cost per unit of count of a dangling block (LLVM's
	 * profi-cost-block-unknown-inc): of the routes the samples allow, the
	 * one through fewer blocks without samples is preferred (0: all routes
	 * cost the same). */
	int64_t k_unknown_inc;
	/* Cost per unit of flow on the successor of a two-way branch that its
	 * layout in a binary predicts against (addresses known): a forward
	 * branch's target, a backward branch's fall-through ("backward taken,
	 * forward not taken": compilers lay the likelier successor out as the
	 * fall-through, and loops branch back).  LLVM's profi likewise prices
	 * fall-through and other jumps apart.  Among routes the samples allow,
	 * the predicted one is preferred (0: no preference). */
	int64_t k_layout;
	int join_islands;    /* connect flow islands to the entry (default 1) */
	int rebalance;       /* rebalance dangling subgraphs (profi; default 1) */
	int rebalance_cyclic; /* ... also cyclic ones, by the paper's iteration
				 (default 0: static loop probabilities are too
				 high for it, see rebalance.c) */
	int even_split;      /* augment along DAGs of shortest paths (default 1) */
	int greedy;          /* greedy zero-cost augmentation first (default 1) */
};

/* Fill opts with the defaults of algo (mcf: symmetric costs, one path at a
 * time, no greedy step, no rebalancing). */
void spgo_infer_defaults(struct spgo_infer_opts *opts, enum spgo_algo algo);
/* Parse "profi", "mcf", "fp", "quadratic", "none"; -1 if unknown. */
int spgo_algo_parse(const char *name);
const char *spgo_algo_name(enum spgo_algo algo);

/* Infer block and edge counts of a finalized CFG.  Edges without a
 * probability get static ones first (the CFG is modified).  Returns 0. */
int spgo_infer(struct spgo_cfg *cfg, const struct spgo_infer_opts *opts);

/* Check that the counts form a valid flow (see the contract).  Returns 0,
 * or -1 with a description of the first violation in why. */
int spgo_flow_check(const struct spgo_cfg *cfg, char *why, size_t why_len);

/* The L1 objective of the paper (section 2.2) with the costs of opts:
 * sum over sampled blocks of k_inc(f-w) or k_dec(w-f) (k_inc0 when w = 0;
 * the entry, floor, dangling and layout terms of struct
 * spgo_infer_opts included). */
double spgo_flow_cost_l1(const struct spgo_cfg *cfg, const struct spgo_infer_opts *opts);

/* ---- quality (section 5.3) ------------------------------------------------ */

/*
 * Degree of overlap between inferred counts f and ground truth gt over the
 * same CFG: vertex overlap = sum_v min(f(v)/sum f, gt(v)/sum gt), edge
 * overlap likewise over edges (counts of the edges of the CFG; gt edges may
 * be given for every CFG edge), coverage = share of blocks with gt > 0 that
 * have f > 0.  Each is in [0, 1]; 1 when f and gt are both all zero, 0 when
 * exactly one of them is.
 */
struct spgo_flow_overlap {
	double vertex, edge, coverage;
};
void spgo_flow_overlap(const struct spgo_cfg *cfg, const uint64_t *gt_block, const uint64_t *gt_edge,
		       struct spgo_flow_overlap *out);
/* The same, on plain arrays (n values each). */
double spgo_flow_overlap_vec(const uint64_t *f, const uint64_t *gt, size_t n);
double spgo_flow_coverage_vec(const uint64_t *f, const uint64_t *gt, size_t n);

/* ---- the text format ------------------------------------------------------ */

/*
 * One or more CFGs in a line-oriented text format (docs/formats/cfg-text.md):
 *
 *     # comment
 *     cfg NAME                         starts a CFG (optional for the first)
 *     block LABEL WEIGHT [key=value]... WEIGHT is a count or ? (dangling)
 *     edge LABEL LABEL [key=value]...
 *     entry LABEL                      default: the first block
 *
 * Block keys: exit (flag), addr=HEX, size=N, truth=N.  Edge keys: p=PROB
 * (branch probability), truth=N.  Labels are any tokens without spaces.
 * truth= gives exact counts for evaluation (spgo infer --eval).
 */
struct spgo_cfg_file {
	struct spgo_cfg *cfgs;
	size_t n;
	/* Per CFG, the block labels (cfg.blocks[b].name indexes labels[i]) and
	 * ground truth when given (NULL if no truth= appears in that CFG). */
	char ***labels;
	uint64_t **truth_block, **truth_edge;
};
int spgo_cfg_parse(struct spgo_cfg_file *out, const char *text, size_t len, const char *path);
int spgo_cfg_parse_file(struct spgo_cfg_file *out, const char *path);
void spgo_cfg_file_free(struct spgo_cfg_file *f);
/* Print counts: "cfg NAME", "block LABEL COUNT", "edge SRC DST COUNT". */
void spgo_cfg_write_counts(FILE *fp, const struct spgo_cfg *cfg, char **labels);
/* Print the CFG itself in the text format (weights, flags, probabilities). */
void spgo_cfg_write(FILE *fp, const struct spgo_cfg *cfg, char **labels);

/* ---- binary CFGs ------------------------------------------------------------ */

/*
 * Options of spgo_cfg_from_insns.  All fields may be 0/NULL.
 *  - block_starts: exact block start addresses (sorted), e.g. from
 *    .llvm_bb_addr_map; when given, blocks start exactly there (and also
 *    after every branch, so that edges stay well-defined).
 *  - jump_table: recovers the targets of an indirect jump; returns the
 *    number of targets written to targets[0..max) (0 = unknown).
 *  - is_noreturn: 1 if a call to target never returns (exit(), abort()...).
 *  - is_tail_call: 1 if an indirect jump without a recovered table leaves
 *    the function (a tail call through a pointer): its block is then an
 *    exit with no guessed successors.
 */
struct spgo_bincfg_opts {
	const uint64_t *block_starts;
	size_t nblock_starts;
	size_t (*jump_table)(void *ctx, const struct spgo_insn *jmp, uint64_t *targets, size_t max);
	int (*is_noreturn)(void *ctx, uint64_t target);
	void *ctx;
	int (*is_tail_call)(void *ctx, const struct spgo_insn *jmp);
};

/*
 * Build the CFG of one function from its instructions (sorted by address;
 * may hold several parts, e.g. foo and foo.cold: a branch to any listed
 * instruction is internal).  Blocks start at the entry, at branch targets,
 * after branches, returns, traps and noreturn calls, and at block_starts;
 * edges are fall-throughs, direct jumps, taken/not-taken branches and
 * recovered jump tables.  A block ending in an indirect tail call
 * (is_tail_call) is an exit.  A block ending in an unresolved indirect jump is
 * flagged SPGO_BLOCK_UNKNOWN_SUCCS | SPGO_BLOCK_EXIT and gets GUESSED edges
 * to every block with no predecessor (where jump-table targets land); a
 * branch or jump out of the instructions is a tail call (an exit).  The
 * result is finalized, blocks in address order, weights unknown.
 * Returns -1 (spgo_error) when entry is not an instruction address.
 */
int spgo_cfg_from_insns(struct spgo_cfg *cfg, const struct spgo_insn *insns, size_t n, uint64_t entry,
			const struct spgo_bincfg_opts *opts);

/*
 * The CFG of the function starting at entry, straight from the binary
 * model: the instructions of the function and of its split parts (foo.cold,
 * foo.part.N: spgo_binary_functions() parents), jump tables from
 * spgo_binary_jump_table(), indirect tail calls from
 * spgo_binary_is_tail_call(), noreturn calls from spgo_binary_is_noreturn(),
 * and, when bbmap (may be NULL) has the function, its exact block starts.
 * cfg->name is the function's linkage name.  Same result contract as
 * spgo_cfg_from_insns(); -1 (spgo_error) when no function starts at entry.
 */
struct spgo_binary;
struct spgo_bb_addr_map; /* spgo/binary.h */
int spgo_cfg_from_binary(struct spgo_cfg *cfg, struct spgo_binary *bin, uint64_t entry,
			 const struct spgo_bb_addr_map *bbmap);

/* ---- CFG files from instructions (spgo infer --insns, --binary) ------------ */

/*
 * Instruction lists in text (path "-" = stdin), one function after another:
 *
 *     func NAME ENTRY
 *     ADDR SIZE CLASS [TARGET] [noreturn] [table=T1,T2,...]
 *
 * addresses in hex (0x optional), SIZE in decimal (1..15), CLASS one of
 * other jcc jmp ijmp call icall ret trap; addresses increase within a
 * function; "noreturn" says the call's target does not return, "table="
 * lists an indirect jump's targets; blank and '#' lines are skipped.  Each
 * function becomes a CFG (spgo_cfg_from_insns) named NAME, its blocks
 * labelled by address in hex, without truth.  Errors name the file and
 * line (or the function whose CFG could not be built); no functions is an
 * error.  On error out is left empty.
 */
int spgo_cfg_read_insns(struct spgo_cfg_file *out, const char *path);

/* What spgo_cfg_read_binary() saw: functions built, indirect jumps, those
 * with a recovered jump table, those taken for indirect tail calls, blocks
 * ending in a trap or noreturn call. */
struct spgo_cfg_bin_stats {
	size_t funcs, ijmps, tables, tailcalls, noreturn;
};

/*
 * The CFGs of an ELF binary's functions (spgo_cfg_from_binary, with the
 * binary's .llvm_bb_addr_map when it has one): every function that starts
 * at an instruction, split parts inside their parent's CFG; with function
 * (may be NULL) only those of that linkage or symbol name.  Labels as in
 * spgo_cfg_read_insns.  Errors: the binary's (unreadable, another machine),
 * or none found ("no functions", "no function named NAME").
 */
int spgo_cfg_read_binary(struct spgo_cfg_file *out, const char *path, const char *function,
			 struct spgo_cfg_bin_stats *st);

/* ---- runs over a file of CFGs (spgo infer) ---------------------------------- */

/*
 * Time spgo_infer() on cfg with each of nalgos option sets: runs runs
 * each (>= 1), the algorithms taking turns run by run (so that they meet
 * the same machine), and the median of each in microseconds in
 * median_us[0..nalgos).  The CFG keeps the counts of the last run.
 */
void spgo_infer_time(struct spgo_cfg *cfg, const struct spgo_infer_opts *algos, size_t nalgos,
		     size_t runs, double *median_us);

/*
 * The evaluation against truth (spgo infer --eval): overlaps of inferred
 * counts with exact ones, added up over CFGs for the means.  A CFG counts
 * when it ran (truth > 0 somewhere) and has samples adding up to at least
 * min_weight (and to more than 0): a function without samples is not in a
 * profile, there is nothing to infer.
 */
struct spgo_infer_eval {
	uint64_t min_weight;           /* set by the caller; 0 or 1: any samples */
	size_t n;                      /* CFGs that counted */
	size_t invalid;                /* CFGs whose inference gave an invalid flow
					  (counted by spgo_infer_file) */
	double vertex, edge, coverage; /* sums of their overlaps */
	double wvertex, wedge, weight; /* sums weighted by the truth's total, and
					  the sum of those totals */
};
/* Compare cfg's inferred counts with truth_block (one per block) and
 * truth_edge (one per edge; NULL: edge overlap 0): 1 and *ov filled if the
 * CFG counts (then added to e), 0 if not. */
int spgo_infer_eval_add(struct spgo_infer_eval *e, const struct spgo_cfg *cfg,
			const uint64_t *truth_block, const uint64_t *truth_edge,
			struct spgo_flow_overlap *ov);

enum spgo_infer_task {
	SPGO_INFER_COUNTS, /* infer; print the counts (spgo_cfg_write_counts) */
	SPGO_INFER_EVAL,   /* infer; per CFG that counts "overlap NAME BLOCKS VERTEX
			      EDGE COVERAGE", then "mean ALGO cfgs=N vertex=
			      edge= coverage= weighted_vertex= weighted_edge=
			      invalid=N"; a CFG without truth is an error */
	SPGO_INFER_TIME,   /* per CFG "time NAME BLOCKS EDGES US..." (a median of
			      runs per algorithm, spgo_infer_time) */
	SPGO_INFER_EMIT,   /* static probabilities, then the CFG itself
			      (spgo_cfg_write) */
};
struct spgo_infer_run {
	enum spgo_infer_task task;
	const struct spgo_infer_opts *algos; /* the algorithms and their costs: all
						are timed, the others use the first */
	size_t nalgos;                       /* >= 1 */
	size_t runs;                         /* SPGO_INFER_TIME: runs per algorithm */
	uint64_t eval_min;                   /* SPGO_INFER_EVAL: min_weight */
	const char *path;                    /* names the input in messages */
};
/*
 * Do run's task on every CFG of f in order, printing to out (CFGs without
 * a name print as "-").  An invalid flow is a warning naming path and CFG.
 * Returns 0, or -1 with spgo_error() (what was printed before stays).
 */
int spgo_infer_file(struct spgo_cfg_file *f, FILE *out, const struct spgo_infer_run *run);

#endif
