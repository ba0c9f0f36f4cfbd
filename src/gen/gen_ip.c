/*
 * IP mode: sampled instruction pointers -> per-instruction counts (the
 * Taming paper, section 3), for machines without branch stacks.
 *
 * A sample lands on one instruction of a block, and which one is skewed
 * by skid and by several instructions retiring together; every instruction
 * of a block runs equally often, though, so the block's count is estimated
 * as the average of its instructions' samples (section 3.2).  Blocks are
 * the function's basic blocks as the binary shows them: a block starts at
 * the function's start, at a target of a direct branch, and after a branch,
 * return or trap (calls do not end blocks, as in the compiler's CFG).
 *
 * The averages are kept in units of 1/IP_SCALE samples (a block of 10
 * instructions with 3 samples gets 0.3 samples; rounding it to 0 would call
 * it cold).  Where several events were recorded, a block whose share of
 * samples differs by more than a factor of two between events is one the
 * events disagree on (section 3.3: one of them over- or under-samples it);
 * its count is then the mean of the events' estimates.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_impl.h"

#define IP_SCALE 16

/* The instruction holding addr, or -1. */
static long insn_holding(const struct gen *g, uint64_t addr)
{
	size_t i = gen_insn_lower(g, addr);
	if (i < g->ninsns && g->insns[i].addr == addr)
		return (long)i;
	if (i > 0 && addr < g->insns[i - 1].addr + g->insns[i - 1].size)
		return (long)i - 1;
	return -1;
}

static int ends_block(unsigned cls)
{
	return cls == SPGO_INSN_COND_BRANCH || cls == SPGO_INSN_JUMP ||
	       cls == SPGO_INSN_INDIRECT_JUMP || cls == SPGO_INSN_RETURN || cls == SPGO_INSN_TRAP;
}

int gen_ip_counts(struct gen *g)
{
	struct spgo_aggregate *agg = g->agg;
	size_t nev = agg->events.n;
	if (!nev)
		return spgo_error("%s: no IP samples in this binary", spgo_binary_path(g->bin));
	size_t base = 0;
	if (g->o->event >= 0) {
		if ((size_t)g->o->event >= nev)
			return spgo_error("event %d: the data has %zu events", g->o->event, nev);
		base = (size_t)g->o->event;
	} else {
		for (size_t e = 1; e < nev; e++)
			if (agg->events.v[e].samples > agg->events.v[base].samples)
				base = e;
	}
	/* Raw samples per instruction, per event used. */
	size_t n = g->ninsns;
	uint64_t **raw = xcalloc(nev, sizeof *raw);
	for (size_t e = 0; e < nev; e++) {
		if (e != base && (g->o->event >= 0 || agg->events.v[e].samples < 1000))
			continue;
		raw[e] = xcalloc(n, sizeof **raw);
		const uint64_t *key;
		uint64_t *val;
		for (size_t it = 0; spgo_kmap_next(&agg->events.v[e].ips, &it, &key, &val);) {
			long i = insn_holding(g, key[0]);
			if (e == base) {
				g->st->ip_samples += *val;
				if (i < 0 || g->insns[i].addr != key[0])
					g->st->ip_off_boundary += *val;
			}
			if (i < 0 || !spgo_binary_function_at(g->bin, key[0])) {
				if (e == base)
					g->st->ip_samples_no_func += *val;
				continue;
			}
			raw[e][i] += *val;
			if (e == base)
				gen_touch_function(g, key[0]);
		}
	}

	/* Blocks of every function part with samples. */
	uint8_t *leader = xcalloc(n + 1, 1);
	for (size_t fi = 0; fi < g->nfuncs; fi++) {
		const struct spgo_function *f = &g->funcs[fi];
		size_t lo = gen_insn_lower(g, f->start), hi = lo;
		while (hi < n && g->insns[hi].addr < f->end)
			hi++;
		if (lo == hi || !g->present[lo])
			continue;
		leader[lo] = 1;
		for (size_t i = lo; i < hi; i++) {
			const struct spgo_insn *in = &g->insns[i];
			if (ends_block(in->cls))
				leader[i + 1] = 1;
			if ((in->cls == SPGO_INSN_COND_BRANCH || in->cls == SPGO_INSN_JUMP) &&
			    in->target >= f->start && in->target < f->end) {
				long t = gen_insn_index(g, in->target);
				if (t >= 0)
					leader[t] = 1;
			}
		}
		for (size_t b = lo; b < hi;) {
			size_t e = b + 1;
			while (e < hi && !leader[e])
				e++;
			uint64_t len = e - b, sum = 0;
			for (size_t i = b; i < e; i++)
				sum += raw[base][i];
			double est = (double)sum / (double)len;
			/* Other events' estimates, in the base event's units. */
			double acc = est;
			int k = 1, disagree = 0;
			for (size_t ev = 0; ev < nev; ev++) {
				if (ev == base || !raw[ev])
					continue;
				uint64_t s2 = 0;
				for (size_t i = b; i < e; i++)
					s2 += raw[ev][i];
				double est2 = (double)s2 / (double)len * (double)agg->events.v[base].samples /
					      (double)agg->events.v[ev].samples;
				if (sum + s2 >= 8 && (est2 > 2 * est || est > 2 * est2))
					disagree = 1;
				acc += est2;
				k++;
			}
			if (disagree) {
				g->st->blocks_disagree++;
				est = acc / k;
			}
			uint64_t c = (uint64_t)(est * IP_SCALE + 0.5);
			for (size_t i = b; i < e; i++) {
				g->count[i] = c;
				leader[i] = 0;
			}
			if (c)
				g->st->insns_counted += len;
			g->st->blocks++;
			b = e;
		}
		leader[hi] = 0;
	}
	free(leader);
	for (size_t e = 0; e < nev; e++)
		free(raw[e]);
	free(raw);
	return 0;
}

void gen_ip_calls(struct gen *g)
{
	for (size_t i = 0; i < g->ninsns; i++) {
		const struct spgo_insn *in = &g->insns[i];
		if (!g->present[i] || !g->count[i] || in->cls != SPGO_INSN_CALL)
			continue;
		const struct spgo_function *callee = gen_entry_at(g, in->target);
		if (!callee)
			continue;
		g->st->calls++;
		g->st->call_count += g->count[i];
		gen_add_call(g, in->addr, callee->name, g->count[i]);
		uint32_t f = spgo_func_get_id(g->p, gen_name_id(g, callee->name));
		spgo_add_head(g->p, f, g->count[i]);
	}
}
