/*
 * agg_spe.c: Arm SPE samples in the aggregate (spgo/aggregate.h, spgo_agg_spe):
 * one sampled branch each, whose ranges are inferred from the binary's
 * instructions, as llvm-profgen's SPE mode does.
 *
 * Why the counts are right: SPE samples every branch executed with the same
 * probability, taken or not.  The code between two consecutive branch
 * instructions of a run (the "sub-range" after a branch) is entered right
 * after exactly one branch: its target when taken, its next instruction when
 * not.  So counting, for each sampled branch, the sub-range after it counts
 * every sub-range in proportion to its executions.  The previous branch
 * target gives the sub-range before the branch as well (where it started:
 * after the last branch instruction before the PC, or at the previous
 * target if that comes later), another such count.
 */
#include <string.h>

#include "aggregate/aggregate_impl.h"
#include "spgo/binary.h"

#define NO_END UINT64_MAX
#define MAX_SCAN 4096

/* Index of the instruction starting at v, or n. */
static size_t insn_index(const struct spgo_insn *ins, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ins[mid].addr < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ins[lo].addr == v ? lo : n;
}

/* The first branch instruction at or after v (its address), NO_END when
 * none is found straight on (see spgo_agg_spe). */
static uint64_t next_branch(struct spgo_aggregate *a, uint64_t v)
{
	struct spgo_agg_impl *I = a->impl;
	if (!I->spe_next_init) {
		spgo_kmap_init(&I->spe_next, 1);
		memset(I->spe_cache, 0xff, sizeof I->spe_cache);
		I->spe_next_init = 1;
	}
	/* a direct-mapped cache in front of the map: a few hot targets */
	size_t slot = (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 54) & (SPGO_AGG_SPE_CACHE - 1);
	if (I->spe_cache[slot][0] == v)
		return I->spe_cache[slot][1];
	uint64_t *hit = spgo_kmap_find(&I->spe_next, &v);
	if (hit) {
		I->spe_cache[slot][0] = v;
		I->spe_cache[slot][1] = *hit;
		return *hit;
	}
	size_t n;
	const struct spgo_insn *ins = spgo_binary_insns(a->bin, &n);
	size_t i = insn_index(ins, n, v);
	uint64_t end = NO_END;
	for (size_t j = i, k = 0; j < n && k < MAX_SCAN; j++, k++) {
		if (j > i && ins[j].addr != ins[j - 1].addr + ins[j - 1].size)
			break; /* a gap: data, padding not decoded */
		if (ins[j].cls == SPGO_INSN_TRAP)
			break;
		if (ins[j].cls != SPGO_INSN_OTHER) {
			end = ins[j].addr;
			break;
		}
	}
	if (end != NO_END && !agg_same_function(a, v, end))
		end = NO_END;
	*spgo_kmap_upsert(&I->spe_next, &v) = end;
	I->spe_cache[slot][0] = v;
	I->spe_cache[slot][1] = end;
	return end;
}

/* Where the code that ran straight to the branch at pc began: after the
 * last branch instruction before it, or at pbt if that is later; NO_END
 * when pbt does not lead to pc. */
static uint64_t range_before(struct spgo_aggregate *a, uint64_t pbt, uint64_t pc)
{
	if (pbt > pc || pc - pbt > (1u << 20) || !agg_same_function(a, pbt, pc))
		return NO_END;
	size_t n;
	const struct spgo_insn *ins = spgo_binary_insns(a->bin, &n);
	size_t i = insn_index(ins, n, pc), t = insn_index(ins, n, pbt);
	if (i == n || t == n)
		return NO_END;
	for (size_t j = i; j > t; j--) {
		if (ins[j - 1].addr + ins[j - 1].size != ins[j].addr)
			return NO_END; /* a gap between them */
		if (ins[j - 1].cls == SPGO_INSN_TRAP)
			return NO_END;
		if (ins[j - 1].cls != SPGO_INSN_OTHER)
			return ins[j].addr;
	}
	return pbt;
}

void agg_feed_spe(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int ip_ok,
		  uint64_t times)
{
	(void)ip_ok;
	if (!s->branch_nr)
		return;
	const struct perf_branch_entry *e = &s->branches[0];
	int not_taken = SPGO_PERF_BRANCH_NOT_TAKEN(e);
	int pbt = s->branch_nr >= 2 && s->branches[1].from == 0;
	uint64_t from, to, prev = 0, w = times;
	unsigned mf = spgo_perf_addr_cpumode(e->from);
	unsigned mt = spgo_perf_addr_cpumode(e->to);
	int from_in = spgo_agg_map(a, pid, mf, e->from, &from) == 0;
	int to_in = spgo_agg_map(a, pid, mt, e->to, &to) == 0;
	int prev_in = pbt && spgo_agg_map(a, pid, mt, s->branches[1].to, &prev) == 0 && from_in;
	a->stats.lbr_samples += times;
	a->stats.spe_records += times;
	if (not_taken)
		a->stats.spe_not_taken += times;
	if (!from_in && !to_in)
		return;
	if (!not_taken) {
		agg_count_branch(a, from_in ? from : SPGO_AGG_EXTERNAL, to_in ? to : SPGO_AGG_EXTERNAL,
				 pbt ? 2 * w : w);
		a->stats.branches += times;
	}
	/* the range after it; with the previous target, the one before too */
	uint64_t end = to_in ? next_branch(a, to) : NO_END;
	uint64_t begin = prev_in ? range_before(a, prev, from) : NO_END;
	if (pbt && (end == NO_END) != (begin == NO_END)) /* one of two: it counts twice */
		w *= 2;
	if (end != NO_END) {
		agg_count_range(a, to, end, w);
		a->stats.ranges += times;
	} else if (to_in) {
		a->stats.spe_no_range += times;
	}
	if (begin != NO_END) {
		agg_count_range(a, begin, from, w);
		a->stats.ranges += times;
	}
}

int spgo_agg_spe_countable(struct spgo_aggregate *a, uint64_t addr)
{
	return next_branch(a, addr) != NO_END;
}

void spgo_agg_spe(struct spgo_aggregate *a, int on)
{
	a->impl->spe_text = on;
}

void agg_spe_free(struct spgo_aggregate *a)
{
	if (a->impl->spe_next_init)
		spgo_kmap_free(&a->impl->spe_next);
}
