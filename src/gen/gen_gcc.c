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
#include <string.h>

#include "gen_impl.h"

/* create_gcov's sample_threshold_frac default and its kMinSamples. */
#define FLOOR_FRAC 0.000005
#define FLOOR_MIN 10

static long part_index(const struct gen *g, uint64_t addr)
{
	const struct spgo_function *f = gen_function_at(g, addr);
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

/*
 * Names of internal-linkage C++ functions.  g++ writes DW_AT_linkage_name
 * only for public functions (dwarf2out's add_linkage_name): a static
 * function, a member of a class in an anonymous namespace, a template
 * instantiated on a lambda's or local type has only its DW_AT_name
 * ("gen", "step", "_M_invoke"), and many such functions share one.  gcc
 * 12's auto-profile looks a function up by its assembler name with the
 * part from the first '.' cut (get_original_name), then by that DW_AT_name
 * (lang_hooks.dwarf_name), then through its abstract origin.  Named by
 * DW_AT_name, two functions of one name became one profile (the second's
 * lines dropped, and neither an entry: no head samples, no call targets).
 * create_gcov names them by their ELF symbol, too.  Inlined instances keep
 * their DWARF name (gcc finds them by it; an inlined constructor's is the
 * abstract C4/D4 name, which is what gcc's inline stack holds).
 */
void gen_gcc_names(struct gen *g)
{
	g->bin_funcs = g->funcs;
	if (!g->o->gcc)
		return;
	size_t n = 0;
	for (size_t i = 0; i < g->nfuncs; i++)
		n += g->funcs[i].has_debug && !spgo_name_mangled(g->funcs[i].name) && spgo_name_mangled(g->funcs[i].symbol);
	if (!n)
		return;
	g->gcc_funcs = xmalloc((g->nfuncs + 1) * sizeof *g->gcc_funcs);
	g->gcc_names = xcalloc(g->nfuncs + 1, sizeof *g->gcc_names);
	memcpy(g->gcc_funcs, g->funcs, g->nfuncs * sizeof *g->funcs);
	for (size_t i = 0; i < g->nfuncs; i++) {
		const struct spgo_function *f = &g->funcs[i];
		if (!f->has_debug || spgo_name_mangled(f->name) || !spgo_name_mangled(f->symbol))
			continue;
		const char *dot = strchr(f->symbol, '.');
		size_t len = dot ? (size_t)(dot - f->symbol) : strlen(f->symbol);
		g->gcc_names[i] = xmalloc(len + 1);
		memcpy(g->gcc_names[i], f->symbol, len);
		g->gcc_names[i][len] = 0;
		g->gcc_funcs[i].name = g->gcc_names[i];
	}
	g->funcs = g->gcc_funcs;
}

void gen_gcc_names_free(struct gen *g)
{
	if (g->gcc_names)
		for (size_t i = 0; i < g->nfuncs; i++)
			free(g->gcc_names[i]);
	free(g->gcc_names);
	free(g->gcc_funcs);
	g->gcc_names = NULL;
	g->gcc_funcs = NULL;
	g->funcs = g->bin_funcs;
}

const struct spgo_function *gen_function_at(const struct gen *g, uint64_t addr)
{
	const struct spgo_function *f = spgo_binary_function_at(g->bin, addr);
	if (!f || !g->gcc_funcs || f < g->bin_funcs || f >= g->bin_funcs + g->nfuncs)
		return f;
	return g->gcc_funcs + (f - g->bin_funcs);
}

const char *gen_top_name(const struct gen *g, uint64_t addr, const char *dwarf)
{
	if (!g->gcc_funcs)
		return dwarf;
	const struct spgo_function *f = spgo_binary_function_at(g->bin, addr);
	if (!f || f < g->bin_funcs || f >= g->bin_funcs + g->nfuncs || !f->has_debug || strcmp(f->name, dwarf))
		return dwarf;
	return g->gcc_funcs[f - g->bin_funcs].name;
}
