/*
 * GCC mode's noise floor: which parts of code get a profile at all, the
 * way create_gcov (AutoFDO) decides it, so that gcc -fauto-profile reads
 * from spgo what it reads from the tool it was tuned with.
 *
 * create_gcov weighs each part of code (an ELF symbol: foo and foo.cold
 * apart) by its samples: in LBR mode the sum over the ranges that begin in
 * it of count x (end - begin), in bytes; from IP samples the samples in it.
 * A part is written only when that weight exceeds max(10, 5e-6 x the
 * weight of all the binary's ranges or samples).  Below it:
 *  - the part's instructions get no counts and no zero lines (a function
 *    run a handful of times in a sampled run is noise, not "cold");
 *  - its branches give no call targets and no head samples, and no call
 *    target or head sample names it;
 * and branches from outside the binary give no head samples.
 *
 * What it changes, measured (bench/pgo/findings.md): from a profile with
 * those parts (spgo's gcov before the floor) gcc 12 built a slower
 * speedtest1 than from create_gcov's (best of 21 runs 0.939 against 0.987
 * of -O2's speed); with the floor, it builds create_gcov's code.  Leaving
 * out just those parts and the call targets naming them was best of all
 * (0.992); the zero lines and head counts create_gcov also differs in
 * did not help on their own (0.930, 0.948).
 * An exact profile (spgo_gen_truth) has no noise and no floor.
 */
#include <stdlib.h>

#include "gen_impl.h"

/* create_gcov's sample_threshold_frac default and its kMinSamples. */
#define FLOOR_FRAC 0.000005
#define FLOOR_MIN 10

static long part_index(const struct gen *g, uint64_t addr)
{
	const struct spgo_function *f = spgo_binary_function_at(g->bin, addr);
	if (!f || f < g->funcs || f >= g->funcs + g->nfuncs)
		return -1;
	return f - g->funcs;
}

void gen_gcc_weigh_begin(struct gen *g)
{
	g->weight = xcalloc(g->nfuncs + 1, sizeof *g->weight);
	g->weight_total = 0;
}

void gen_gcc_weigh(struct gen *g, uint64_t addr, uint64_t x)
{
	if (!g->weight)
		return;
	g->weight_total += x;
	long p = part_index(g, addr);
	if (p >= 0)
		g->weight[p] += x;
}

void gen_gcc_floor(struct gen *g)
{
	if (!g->weight)
		return;
	uint64_t floor = (uint64_t)((double)g->weight_total * FLOOR_FRAC);
	if (floor < FLOOR_MIN)
		floor = FLOOR_MIN;
	g->st->floor = floor;
	g->emit = xcalloc(g->nfuncs + 1, 1);
	for (size_t p = 0; p < g->nfuncs; p++) {
		g->emit[p] = g->weight[p] > floor;
		if (g->emit[p])
			continue;
		g->st->parts_below_floor += g->weight[p] > 0;
		/* no counts, no zero lines */
		for (size_t i = gen_insn_lower(g, g->funcs[p].start);
		     i < g->ninsns && g->insns[i].addr < g->funcs[p].end; i++) {
			g->present[i] = 0;
			g->count[i] = 0;
		}
	}
	free(g->weight);
	g->weight = NULL;
}

int gen_gcc_emitted(const struct gen *g, uint64_t addr)
{
	if (!g->emit)
		return 1;
	long p = part_index(g, addr);
	return p >= 0 && g->emit[p];
}
