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
 * unconditional direct jump: straight-line code cannot run past a jmp, and
 * such ranges come from duplicate LBR entries on some Intel parts (the
 * rule llvm-profgen applies, rangeCrossUncondBranch).
 */
#include <stdlib.h>
#include <string.h>

#include "gen_impl.h"

int gen_lbr_counts(struct gen *g)
{
	size_t n = g->ninsns;
	/* jumps[i]: unconditional direct jumps among insns[0 .. i). */
	uint32_t *jumps = xmalloc((n + 1) * sizeof *jumps);
	jumps[0] = 0;
	for (size_t i = 0; i < n; i++)
		jumps[i + 1] = jumps[i] + (g->insns[i].cls == SPGO_INSN_JUMP);
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
	gen_gcc_floor(g);
	free(diff);
	free(jumps);
	return 0;
}
