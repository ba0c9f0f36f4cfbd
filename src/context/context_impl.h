/*
 * context_impl.h: what the files of the context stage share.  unwind.c has
 * the code facts, the frame trie and the unwinder; tailcall.c the
 * missing-frame inference; profile.c turns the trie into a CS profile
 * keyed by DWARF lines, probe.c into one keyed by pseudo-probes.
 */
#ifndef SPGO_CONTEXT_IMPL_H
#define SPGO_CONTEXT_IMPL_H

#include <string.h>

#include "spgo/context.h"
#include "spgo/unsym.h"

/* Per-instruction flags of struct spgo_cs_code. */
enum {
	CS_PROEPI = 1,   /* in a prologue or epilogue */
	CS_KEY_DONE = 2, /* keys[i] is computed */
	CS_NO_FUNC = 4,  /* in no function (code has functions): external */
};

/* The root frame's address (no code lives there). */
#define CS_ROOT_ADDR (UINT64_MAX - 1)
/* Inline frames looked at per address. */
#define CS_MAX_INLINE 64

/* Index of the instruction starting at addr, or -1. */
long cs_insn_index(const struct spgo_cs_code *c, uint64_t addr);
/* The call a return address of a stack returns to: the call instruction
 * ending at ret, in a function; 0 when there is none (external code, a
 * bogus frame).  Unlike a lookup of ret's own function, it finds the call
 * that ends a function (a call to a noreturn function, _Unwind_Resume,
 * exit) whose return address lies in the padding after it or in the next
 * function: llvm-profgen disassembles each symbol up to the next, so to it
 * such a return address is code of the calling function. */
uint64_t cs_return_site(const struct spgo_cs_code *c, uint64_t ret);

/* The function holding addr (its first part: split parts fold into it),
 * as an index in c->funcs, or -1. */
long cs_func_of(const struct spgo_cs_code *c, uint64_t addr);
/* The first function starting at or after addr (nfuncs if none). */
size_t cs_func_lower_bound(const struct spgo_cs_code *c, uint64_t addr);
/* The function entered at addr, as llvm-profgen's getCalleeNameForAddress
 * takes it (not a split part such as foo.cold; with need_debug, only a
 * function DWARF describes), or NULL. */
const struct spgo_function *cs_entry_at(struct spgo_binary *bin, uint64_t addr, int need_debug);
/* The profile name id of a function's linkage name, canonical (".llvm.N",
 * ".part.N" suffixes stripped) as llvm-profgen writes it. */
uint32_t cs_name_id(struct spgo_profile *p, const char *name);
/* The GUIDs of the functions the trie's samples touch (the start of a
 * range, either end of a branch, and with frames set a frame of the call
 * stack), by the linkage name of the DWARF function holding the address:
 * llvm-profgen's profiled functions, whose sizes the pre-inliner takes and
 * whose probe records alone it decodes.  llvm-profgen counts the frames of
 * probe-based samples only (their contexts are kept as addresses, those of
 * DWARF-line samples as symbolized frames it does not look up again).
 * Added to guids (one key word, value 0). */
void cs_trie_profiled_guids(const struct spgo_cs_code *c, const struct spgo_cs_trie *t,
			    int frames, struct spgo_kmap *guids);
/* probe.c: the flat probe-based CS profile of the trie (before cold
 * contexts are merged); contexts and counts as described there. */
struct spgo_profile *cs_probe_profile(struct spgo_binary *bin, const struct spgo_cs_code *code,
				      struct spgo_cs_trie *trie, const struct spgo_cs_opts *o,
				      struct spgo_cs_stats *st);

/* unwind.c: the inline-context key of instruction k (equal keys: same
 * chain of inline callers; 0: no debug information). */
uint64_t cs_insn_key(const struct spgo_cs_code *c, size_t k);

/*
 * ip.c: IP samples with call stacks and no LBR.  cs_ip_add() takes each
 * such sample (its call-site path into the IP trie, a hit of its leaf);
 * cs_ip_build() turns the hits into block counts per unit (path,
 * function), recorded as ranges and call branches in the IP trie in the
 * layout of the LBR unwinder (probes: on the path node; DWARF: on leaf
 * frames); the profile generators then take cs_ip_trie().
 */
struct cs_ip;
struct cs_ip *cs_ip_new(const struct spgo_cs_code *code, const struct spgo_cs_opts *o,
			struct spgo_cs_stats *st);
void cs_ip_free(struct cs_ip *ip);
void cs_ip_add(struct cs_ip *ip, const struct spgo_agg_stack *s);
int cs_ip_build(struct cs_ip *ip, struct spgo_binary *bin, const struct spgo_cs_opts *o, int probes);
struct spgo_cs_trie *cs_ip_trie(struct cs_ip *ip);

/* The pre-inliner's profiled call graph: functions 0 .. nfn-1 in name
 * order, edges in CSR form sorted by caller, then callee's name. */
struct cs_callgraph {
	uint32_t nfn;
	uint32_t *fname;       /* graph node -> name id */
	uint32_t *edge_first;  /* edges of node i at [edge_first[i], edge_first[i + 1]) */
	uint32_t *edge_to;
	uint64_t *edge_w;
};
/* callgraph.c: the nodes top-down (nfn entries, malloc'd); sort_scc orders
 * a cyclic SCC's members (else they stay in Tarjan's order). */
uint32_t *cs_callgraph_top_down(const struct cs_callgraph *g, int sort_scc);

/* llvm-profgen's trimContext (--csprof-max-context-depth): keep the last
 * depth of the n items (size bytes each) of a caller chain, the ones
 * nearest the leaf; depth < 0 keeps all.  Returns the new n. */
static inline size_t cs_trim_depth(void *items, size_t n, size_t size, int depth)
{
	if (depth < 0 || n <= (size_t)depth)
		return n;
	memmove(items, (char *)items + (n - (size_t)depth) * size, (size_t)depth * size);
	return (size_t)depth;
}

/* profile.c: the DWARF-line CS profile of the trie (before cold contexts
 * are merged); the hot threshold of a finalized one (o's cutoff or
 * count); cold contexts (under thr) merged or trimmed as o says. */
struct spgo_profile *cs_line_profile(struct spgo_binary *bin, struct spgo_cs_code *code,
				     struct spgo_cs_trie *trie, const struct spgo_cs_opts *o,
				     struct spgo_cs_stats *st);
uint64_t cs_hot_threshold(const struct spgo_profile *p, const struct spgo_cs_opts *o);
/* profile.c: the context text of every trie node with ranges or branches
 * ("main:12 @ compile", "" for the root and for contexts without debug
 * information), in a new array of strings per node (NULL for the others;
 * the caller frees them and it). */
char **cs_line_keys(struct spgo_binary *bin, struct spgo_cs_code *code, struct spgo_cs_trie *trie,
		    const struct spgo_cs_opts *o, struct spgo_cs_stats *st);
/* unwind.c: the child frame of parent at addr, made if new (while the
 * trie's index lives: during unwinding). */
uint32_t cs_trie_child(struct spgo_cs_trie *t, uint32_t parent, uint64_t addr);
/* unsym.c: the contexts of s into the trie (probes: frames of call-site
 * offsets; DWARF: a node per context text, t->keys); -1 with the error
 * when a key is not of this kind of build. */
int cs_trie_add_contexts(struct spgo_cs_trie *t, struct spgo_binary *bin, const struct spgo_unsym_bin *s,
			 int probes);
/* unsym.c: the trie's ranges and branches per context key, llvm-profgen's
 * --skip-symbolization, into s's contexts (offsets from s->base). */
void cs_unsym_contexts(struct spgo_binary *bin, struct spgo_cs_code *code, struct spgo_cs_trie *trie,
		       const struct spgo_cs_opts *o, struct spgo_cs_stats *st, int probes,
		       struct spgo_unsym_bin *s);
struct spgo_profile *cs_merge_cold(struct spgo_profile *p, const struct spgo_cs_opts *o, uint64_t thr,
				   int base_only, struct spgo_cs_stats *st);
/* profile.c: the key of the last k frames of context key (k >= 1):
 * "b:2 @ c" of "a:1 @ b:2 @ c" for k = 2 (a pointer into key). */
const char *cs_last_frames(const char *key, int k);
/* map_order.c: q's top list (q: p after cs_merge_cold, colds by p's top
 * index, merged by their last depth frames, 0: not merged; trimmed or
 * not) in the order of llvm-profgen's SampleProfileMap, flagged
 * SPGO_PROF_MAP_ORDER with q->map_buckets; left alone if the replay fails. */
void cs_map_order(struct spgo_profile *q, const struct spgo_profile *p, const uint8_t *colds, uint64_t thr,
		  int depth, int trim);

/* preinline.c: the code sizes of the functions the trie's samples touch. */
struct spgo_inline_sizes *cs_trie_sizes(struct spgo_binary *bin, const struct spgo_cs_code *c,
					const struct spgo_cs_trie *t, int probes, int zero_callers);

/*
 * Disjoint counts from overlapping ranges (profile.c): ranges of
 * instruction indices [begin, end] with their counts go in as events; the
 * sweep calls each(arg, k, count) for every instruction index k covered,
 * count being the sum over the ranges that cover it.  Clears the events.
 */
struct cs_event {
	size_t k;
	int64_t delta;
};
typedef VEC(struct cs_event) cs_event_vec;
void cs_range_add(cs_event_vec *ev, size_t begin, size_t end, uint64_t count);
void cs_sweep(cs_event_vec *ev, void (*each)(void *arg, size_t k, uint64_t count), void *arg);

#endif
