/*
 * IP mode: the targets of indirect calls, from the callers of sampled
 * functions.
 *
 * Without branch stacks an IP sample says where the program was, not how
 * it got there, so an indirect call (a call through a function pointer:
 * sqlite's xRecordCompare, its SQL functions' xFunc) would have no call
 * targets and the compiler could not promote it.  A sample recorded with
 * the user registers and a copy of the top of the user stack (`perf record
 * --call-graph dwarf`) says who called the sampled function: the frame's
 * canonical frame address (CFA) follows from the stack pointer by the
 * binary's call frame information (.eh_frame, which -O2 code keeps; frame
 * pointers it omits), and the return address lies just below the CFA.
 * When the instruction before the return address is an indirect call, the
 * sampled function is one of its targets.  Only the leaf's frame is
 * unwound: its caller is all this needs, and one step has no error to
 * accumulate.
 *
 * Each observation weighs one sample, so a site's targets are weighed by
 * the time spent in them (as leaves), not by calls; spgo_gen() only takes
 * their shares and gives the site's block count to them in those shares.
 * A function reached by a tail call from the real target is credited in
 * its place, as its samples are.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_impl.h"
#include "spgo/binary.h"
#include "spgo/gen.h"
#include "spgo/perf.h"

struct spgo_gen_icalls {
	struct spgo_aggregate *agg;
	struct spgo_cfi *cfi; /* NULL: the binary has none (nothing unwound) */
	struct spgo_kmap pairs; /* {call site, target function start} -> samples */
	uint64_t samples, unwound, direct_ok, direct_bad;
};

int spgo_gen_icalls_new(struct spgo_gen_icalls **out, struct spgo_aggregate *agg)
{
	struct spgo_gen_icalls *c = xcalloc(1, sizeof *c);
	c->agg = agg;
	spgo_kmap_init(&c->pairs, 2);
	c->cfi = spgo_cfi_open(agg->bin);
	*out = c;
	return 0;
}

void spgo_gen_icalls_free(struct spgo_gen_icalls *c)
{
	if (!c)
		return;
	spgo_cfi_close(c->cfi);
	spgo_kmap_free(&c->pairs);
	free(c);
}

void spgo_gen_icalls_set_agg(struct spgo_gen_icalls *c, struct spgo_aggregate *agg)
{
	if (c)
		c->agg = agg;
}

/* The value of perf register index k in the sample, or -1 if not recorded. */
static int sample_reg(const struct spgo_perf_record *rec, int k, uint64_t *v)
{
	uint64_t mask = rec->attr ? rec->attr->attr.sample_regs_user : 0;
	if (k < 0 || !(mask & (1ull << k)) || !rec->sample.regs_user_abi)
		return -1;
	size_t i = (size_t)__builtin_popcountll(mask & ((1ull << k) - 1));
	if (i >= rec->sample.regs_user_nr)
		return -1;
	*v = rec->sample.regs_user[i];
	return 0;
}

void spgo_gen_icalls_feed(struct spgo_gen_icalls *c, const struct spgo_perf_record *rec)
{
	const struct spgo_perf_sample *s = &rec->sample;
	/* The instruction set's rules; only a call that pushes its return
	 * address (x86-64) is unwound here for now. */
	const struct spgo_arch_regs *ar = spgo_binary_arch_regs(c->agg->bin);
	if (!c->cfi || rec->type != PERF_RECORD_SAMPLE || !s->stack_user || !s->regs_user_abi || !ar ||
	    ar->ra_cfa_offset >= 0)
		return;
	uint64_t ip;
	if (spgo_agg_map(c->agg, s->pid, s->cpumode, s->ip, &ip) < 0)
		return;
	const struct spgo_function *leaf = spgo_binary_function_at(c->agg->bin, ip);
	if (!leaf)
		return;
	c->samples++;
	/* The CFA of the leaf's frame at ip: register + offset. */
	unsigned reg = 0;
	int64_t off = 0;
	if (spgo_cfi_cfa(c->cfi, ip, &reg, &off) < 0)
		return;
	uint64_t base, sp;
	if (sample_reg(rec, spgo_binary_perf_reg(c->agg->bin, reg), &base) < 0 ||
	    sample_reg(rec, ar->perf_sp, &sp) < 0)
		return;
	/* The return address is at CFA + ra_cfa_offset (x86-64: CFA - 8), in
	 * the stack copy made from sp upwards. */
	uint64_t at = base + (uint64_t)off + (uint64_t)(int64_t)ar->ra_cfa_offset;
	uint64_t have = s->stack_user_dyn_size ? s->stack_user_dyn_size : s->stack_user_size;
	if (have > s->stack_user_size)
		have = s->stack_user_size;
	if (at < sp || at - sp + 8 > have)
		return;
	uint64_t ra;
	memcpy(&ra, s->stack_user + (at - sp), 8);
	uint64_t rv;
	if (spgo_agg_map(c->agg, s->pid, s->cpumode, ra, &rv) < 0 || rv == 0)
		return;
	/* The call is the instruction that ends at the return address. */
	const struct spgo_insn *in = NULL;
	for (uint64_t back = ar->call_min; back <= ar->call_max && !in; back++) {
		const struct spgo_insn *t = spgo_binary_insn_at(c->agg->bin, rv - back);
		if (t && t->addr + t->size == rv &&
		    (t->cls == SPGO_INSN_CALL || t->cls == SPGO_INSN_INDIRECT_CALL))
			in = t;
	}
	if (!in)
		return;
	c->unwound++;
	if (in->cls == SPGO_INSN_CALL) {
		/* A check of the method: direct calls name their target. */
		if (in->target == leaf->start)
			c->direct_ok++;
		else
			c->direct_bad++;
		return;
	}
	uint64_t key[2] = {in->addr, leaf->start};
	(*spgo_kmap_upsert(&c->pairs, key))++;
}

void spgo_gen_icalls_stats(const struct spgo_gen_icalls *c, uint64_t *samples, uint64_t *unwound,
			   uint64_t *direct_ok, uint64_t *direct_bad, uint64_t *sites)
{
	*samples = c->samples;
	*unwound = c->unwound;
	*direct_ok = c->direct_ok;
	*direct_bad = c->direct_bad;
	*sites = c->pairs.n;
}

const struct spgo_kmap *gen_icall_pairs(const struct spgo_gen_icalls *c)
{
	return &c->pairs;
}
