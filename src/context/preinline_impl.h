/*
 * preinline_impl.h: the pre-inliner's state (src/context/preinline.c), shared
 * with its context trie (preinline_trie.c): nodes of the trie of contexts,
 * the profiles merged into them, and the queries and moves the per-function
 * inline decisions make on them.
 */
#ifndef SPGO_PREINLINE_IMPL_H
#define SPGO_PREINLINE_IMPL_H

#include "context/context_impl.h"

enum { ST_RAW = 1, ST_SYNTH = 2, ST_INLINED = 4, ST_MERGED = 8 };

struct pnode {
	uint32_t name;       /* name id in the input profile */
	uint32_t line, disc; /* call site in the parent frame (0 at the top) */
	uint32_t parent;     /* SPGO_NONE for the root */
	uint32_t child, sibling;
	uint32_t prof;       /* profile here, or SPGO_NONE */
};

struct pprof {
	uint32_t node;
	uint32_t first, last; /* input contexts merged here (next_member list) */
	uint32_t attrs;
	uint8_t state;
};

typedef VEC(char) charbuf;

struct kid {
	uint64_t hash;
	uint32_t node;
};

struct cand {
	uint32_t prof;
	uint64_t count, size;
	uint64_t guid;
};

struct pre {
	struct spgo_profile *in;
	const struct spgo_inline_sizes *sizes;
	const struct spgo_preinline_opts *o;
	struct spgo_preinline_stats *st;
	VEC(struct pnode) nodes;
	VEC(struct pprof) profs;
	uint32_t *next_member;   /* per input function */
	struct spgo_kmap index;  /* {parent, disc << 32 | line, name} -> node + 1 (0: moved away) */
	struct spgo_kmap byname; /* {name} -> head of the name's profile list + 1 */
	uint32_t *name_next;     /* per profile: next profile of the same function */
	uint64_t cold_count;
	double norm_upper;
	VEC(struct cand) heap;
	VEC(struct spgo_size_frame) frames;
	VEC(struct kid) kids; /* children_by_hash's result */
};

/* ---- the context trie and its profiles (preinline_trie.c) ------------------------- */

/* The child of parent at call site (line, disc) of function name, made
 * when missing. */
uint32_t pre_node_get(struct pre *r, uint32_t parent, uint32_t line, uint32_t disc, uint32_t name);
/* The children of node k into r->kids, sorted by call-site hash (LLVM's
 * child order); their number. */
size_t pre_children_by_hash(struct pre *r, uint32_t k);
/* Parse "a:1 @ b:2.3 @ c" into trie nodes; the leaf node, or SPGO_NONE. */
uint32_t pre_add_context(struct pre *r, const char *s);
/* max(call-site count, entry estimate) of the profiled child k of the
 * profiled node holding caller profile cp. */
uint64_t pre_call_count(const struct pre *r, uint32_t cp, uint32_t k);
/* The size of the context at node k: with context_cost, its inlined size
 * in the binary (0 when unknown, counted); else its distinct body
 * locations. */
uint64_t pre_ctx_size(struct pre *r, uint32_t k);
/* The base profile [name] (SampleContextTracker::getBaseSamplesFor with
 * merging): every context of name not inlined so far promoted into it. */
uint32_t pre_base_profile(struct pre *r, uint32_t name);

#endif
