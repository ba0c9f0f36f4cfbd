/*
 * LBR mode: ranges -> per-instruction counts (the Taming paper, algorithm
 * 2; llvm-profgen's ProfileGenerator::populateBodySamplesForAllFunctions).
 *
 * Each range [begin, end] of straight-line code adds its count to every
 * instruction in it.  Instead of splitting overlapping ranges into disjoint
 * ones, the count is added at the begin's instruction index and taken off
 * after the end's in a difference array, and one prefix sum gives every
 * instruction's count: O(ranges + instructions), no allocation per range.
 *
 * A range is dropped when an end is not an instruction start (the binary
 * does not match the data, or the LBR was corrupt) or when it crosses an
 * unconditional branch: a direct jump, a call (direct or not) or a return
 * in [begin, end) -- the end itself may be one, it is the branch that left
 * the range.  Straight-line code cannot run past them, and such ranges come
 * from duplicate LBR entries on some Intel parts.  This is llvm-profgen's
 * rule (rangeCrossUncondBranch over its UncondBranchAddrSet), the one the
 * CS unwinder applies too (context/unwind.c, is_barrier); indirect jumps do
 * not count.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_impl.h"

int gen_lbr_counts(struct gen *g)
{
	size_t n = g->ninsns;
	/* jumps[i]: unconditional branches (see the top) among insns[0 .. i). */
	uint32_t *jumps = xmalloc((n + 1) * sizeof *jumps);
	jumps[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t cls = g->insns[i].cls;
		jumps[i + 1] = jumps[i] + (cls == SPGO_INSN_JUMP || cls == SPGO_INSN_CALL ||
					   cls == SPGO_INSN_INDIRECT_CALL || cls == SPGO_INSN_RETURN);
	}
	int64_t *diff = xcalloc(n + 1, sizeof *diff);
	if (g->o->gcc)
		gen_gcc_weigh_begin(g);

	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&g->agg->ranges, &it, &key, &val);) {
		uint64_t begin = key[0], end = key[1], c = *val;
		if (end >= begin) /* every range weighs, as create_gcov's */
			gen_gcc_weigh(g, begin, c * (end - begin));
		long ib = gen_insn_index(g, begin), ie = gen_insn_index(g, end);
		if (ib < 0 || ie < 0 || ie < ib) {
			g->st->ranges_off_boundary += c;
			continue;
		}
		if (jumps[ie] != jumps[ib]) {
			g->st->ranges_cross_jump += c;
			continue;
		}
		g->st->ranges++;
		g->st->range_count += c;
		diff[ib] += (int64_t)c;
		diff[ie + 1] -= (int64_t)c;
		gen_touch_function(g, begin);
	}
	int64_t run = 0;
	for (size_t i = 0; i < n; i++) {
		run += diff[i];
		g->count[i] = (uint64_t)run;
		if (run > 0) {
			g->present[i] = 1;
			g->st->insns_counted++;
		}
	}
	free(diff);
	free(jumps);
	int rc = gen_spe_infer(g); /* SPE data: fill what one branch in N missed */
	gen_gcc_floor(g);
	return rc;
}
