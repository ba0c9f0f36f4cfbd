/*
 * IP mode: sampled instruction pointers -> per-instruction counts (the
 * Taming paper, section 3), for machines without branch stacks.
 *
 * A sample lands on one instruction of a block, and which one is skewed
 * by skid and by several instructions retiring together; every instruction
 * of a block runs equally often, though, so the block's count is estimated
 * as the average of its instructions' samples (section 3.2).  Blocks are
 * the function's basic blocks as spgo_cfg_from_binary() finds them (the
 * CFG that profile inference then makes the averages a flow on): a block
 * starts at the function's start, at a target of a direct branch or of a
 * recovered jump table, at a .llvm_bb_addr_map block start, and after a
 * branch, return, trap or noreturn call (other calls do not end blocks, as
 * in the compiler's CFG).  Without inference (--no-infer, or no CFG) the
 * same rule without tables, noreturn calls and block maps gives them.
 *
 * The averages are kept in units of 1/IP_SCALE samples (a block of 10
 * instructions with 3 samples gets 0.3 samples; rounding it to 0 would call
 * it cold).  Where several events were recorded, a block whose share of
 * samples differs by more than a factor of two between events is one the
 * events disagree on (section 3.3: one of them over- or under-samples it);
 * its count (or inference weight) is then the mean of the events'
 * estimates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_impl.h"
#include "spgo/infer.h"

#define IP_SCALE GEN_IP_SCALE

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

/* The IP samples: raw[e][i] = samples of event e at instruction i. */
struct ip_raw {
	uint64_t **raw;
	size_t nev, base;
};

/*
 * The count estimate of the block of instructions idx[0 .. n) (global
 * instruction indexes), in the base event's samples per instruction;
 * *disagree is set when another event's estimate differs by over 2x.
 */
static double block_estimate(const struct gen *g, const struct ip_raw *r, const size_t *idx,
			     size_t n, int *disagree)
{
	const struct spgo_aggregate *agg = g->agg;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += r->raw[r->base][idx[k]];
	double est = (double)sum / (double)n, acc = est;
	int m = 1;
	*disagree = 0;
	for (size_t ev = 0; ev < r->nev; ev++) {
		if (ev == r->base || !r->raw[ev])
			continue;
		uint64_t s2 = 0;
		for (size_t k = 0; k < n; k++)
			s2 += r->raw[ev][idx[k]];
		double est2 = (double)s2 / (double)n * (double)agg->events.v[r->base].samples /
			      (double)agg->events.v[ev].samples;
		if (sum + s2 >= 8 && (est2 > 2 * est || est > 2 * est2))
			*disagree = 1;
		acc += est2;
		m++;
	}
	return *disagree ? acc / m : est;
}

static void set_block(struct gen *g, const size_t *idx, size_t n, uint64_t c)
{
	for (size_t k = 0; k < n; k++)
		g->count[idx[k]] = c;
	if (c)
		g->st->insns_counted += n;
	g->st->blocks++;
}

/* The parts of the function group starting at part f0 (same name), as
 * global instruction indexes in address order; returns how many. */
static size_t group_insns(struct gen *g, size_t f0, size_t **idx, size_t *cap)
{
	size_t n = 0;
	for (int32_t fi = (int32_t)f0; fi >= 0; fi = g->next[fi]) {
		const struct spgo_function *f = &g->funcs[fi];
		if (strcmp(f->name, g->funcs[f0].name))
			continue;
		for (size_t i = gen_insn_lower(g, f->start); i < g->ninsns && g->insns[i].addr < f->end;
		     i++) {
			if (n == *cap) {
				*cap = *cap ? 2 * *cap : 256;
				*idx = xrealloc(*idx, *cap * sizeof **idx);
			}
			(*idx)[n++] = i;
		}
	}
	return n;
}

/* How many instructions the CFG block holds. */
static uint64_t block_insns(const struct gen *g, const struct spgo_cfg_block *blk)
{
	size_t i = gen_insn_lower(g, blk->addr), k = i;
	while (k < g->ninsns && g->insns[k].addr < blk->addr + blk->size)
		k++;
	return k - i;
}

/*
 * Each block's confidence (struct spgo_cfg_block's cost_scale), from a
 * noise model of its weight.  A block of n instructions that got S samples
 * has weight w = S / n samples per instruction.  If each execution of each
 * instruction is sampled independently with a small probability, S is
 * Poisson and the weight's standard deviation is sqrt(S) / n (sqrt of 1
 * for S = 0: a block without samples is as uncertain as one sample).  The
 * cost of moving the count by one unit is 1 / that deviation: a change of
 * one standard deviation costs the same at every block (an L1 fit in
 * z-units).  So a 1-instruction block with 0 samples is cheap to change
 * (deviation 1 sample per instruction), a 30-instruction block with 500
 * samples dear (deviation 0.75), a 30-instruction block with 0 samples
 * dearer still (1/30: 30 instructions without a sample are strong
 * evidence that it is cold).
 * The scales are divided by their geometric mean over the sampled blocks
 * weighted by samples, so that where most samples lie the costs are the
 * tuned defaults of spgo/infer.h, and clamped to [1/16, 16].
 *
 * Tried on the similarity to the exact profile (bench/results/gen_ip.md):
 * an unweighted mean as the reference gives about the same; adding a
 * multiplicative per-instruction spread (skid and stalls: variance
 * (S + cv^2 S^2 / n) / n^2, cv^2 estimated from the blocks' dispersion)
 * made minivm worse.  min-cost flow (no decrease floor) gets worse with
 * the scales, so only profi uses them.
 */
#define IP_CONF_CLAMP 16.0

/*
 * profi's decrease costs for IP samples: k_dec 20 (spgo/infer.h's default
 * 15) and the decrease floor at 20% of a block's weight (default 40%).
 * The defaults were tuned on samples proportional to executions; a timer
 * (cpu-clock) samples time, and a block with a stalled load or a cache
 * miss gets several times its share of the executions (the aggregation
 * effect of the Taming paper's section 3.2.2, also between functions:
 * sqlite's pcache1Fetch 10% of the samples for 0.9% of the executions).
 * So a count well below the sampled weight is likelier than the default
 * floor allows.  With the confidences above, similarity to the exact
 * profile (bench/results/gen_ip.md): speedtest1 77.1% -> 79.3%, minivm
 * 82.8% -> 86.0% (four more minivm recordings: +3 to +4 points each);
 * floors of 10, 15, 25, 30% and k_dec 15 were each worse on one of them.
 */
#define IP_K_DEC 20
#define IP_DEC_FLOOR_PCT 20
static void set_confidence(struct spgo_cfg *cfg, const uint64_t *bs, const uint32_t *bn)
{
	double lsum = 0, lw = 0;
	for (size_t b = 0; b < cfg->nblocks; b++) {
		if (!bn[b])
			continue;
		double s = bs[b] > 1 ? (double)bs[b] : 1;
		cfg->blocks[b].cost_scale = (double)bn[b] / sqrt(s); /* 1 / std-dev */
		if (bs[b])
			lsum += (double)bs[b] * log(cfg->blocks[b].cost_scale), lw += (double)bs[b];
	}
	double ref = lw > 0 ? exp(lsum / lw) : 1;
	for (size_t b = 0; b < cfg->nblocks; b++) {
		if (!bn[b])
			continue;
		double c = cfg->blocks[b].cost_scale / ref;
		cfg->blocks[b].cost_scale = c > IP_CONF_CLAMP	  ? IP_CONF_CLAMP
					    : c < 1 / IP_CONF_CLAMP ? 1 / IP_CONF_CLAMP
								    : c;
	}
}

/*
 * Blocks and counts by profile inference (profi by default; see spgo/gen.h)
 * on the function's binary CFG as spgo_cfg_from_binary() builds it, the
 * same CFG `spgo infer` uses: split parts, recovered jump tables, noreturn
 * calls (their blocks pass no flow on), indirect tail calls (exits) and
 * the exact block starts of .llvm_bb_addr_map when the binary has one.
 * The block estimates are the weights, with profi each block's confidence
 * as set_confidence() derives it.  Where the events disagree the estimate
 * is their mean (leaving such blocks unknown instead loses them when they
 * are a function's only sampled blocks).  Instructions of the group the CFG does not hold (a part that
 * has the function's name but is no split part of it) are marked in
 * covered[] as 0 for the caller to average.  Returns 0, or -1 when there
 * is no CFG (the caller falls back to plain averages).
 */
static int group_infer(struct gen *g, const struct ip_raw *r, const size_t *idx, size_t n,
		       uint64_t entry, enum spgo_algo algo, const struct spgo_bb_addr_map *bbmap,
		       uint8_t *covered)
{
	struct spgo_cfg cfg;
	if (spgo_cfg_from_binary(&cfg, g->bin, entry, bbmap) < 0) {
		spgo_cfg_free(&cfg);
		return -1;
	}
	/* Each block's instructions are consecutive in the binary's list. */
	size_t *bidx = NULL, bcap = 0;
	uint64_t disagree = 0;
	uint64_t *bs = xcalloc(cfg.nblocks, sizeof *bs); /* samples of the base event */
	uint32_t *bn = xcalloc(cfg.nblocks, sizeof *bn);  /* instructions */
	for (size_t b = 0; b < cfg.nblocks; b++) {
		struct spgo_cfg_block *blk = &cfg.blocks[b];
		size_t m = 0;
		for (size_t i = gen_insn_lower(g, blk->addr);
		     i < g->ninsns && g->insns[i].addr < blk->addr + blk->size; i++) {
			if (m == bcap) {
				bcap = bcap ? 2 * bcap : 64;
				bidx = xrealloc(bidx, bcap * sizeof *bidx);
			}
			bidx[m++] = i;
		}
		blk->weight = SPGO_WEIGHT_UNKNOWN;
		if (m) {
			int dis;
			double est = block_estimate(g, r, bidx, m, &dis);
			disagree += dis;
			blk->weight = (uint64_t)(est * IP_SCALE + 0.5);
			for (size_t k = 0; k < m; k++)
				bs[b] += r->raw[r->base][bidx[k]];
			bn[b] = (uint32_t)m;
		}
	}
	free(bidx);
	/*
	 * Inference must keep the sampled flow.  profi's joining of islands
	 * once dropped all of it on minivm's main (the interpreter loop,
	 * entered once from an unsampled entry, dispatching through a jump
	 * table): after dropping one island piece the flow had a negative
	 * cycle, no join could be priced and every island went to 0, so the
	 * hottest function got no counts (tests/data/infer_profi_drops_main.cfg;
	 * join.c handles that case since).  As a guard against such losses:
	 * when the result holds under a quarter of the sampled weight (in
	 * weight x instructions), min-cost flow is tried on the same CFG,
	 * then plain averages (return -1).
	 */
	uint64_t wsum = 0;
	for (size_t b = 0; b < cfg.nblocks; b++)
		if (cfg.blocks[b].weight != SPGO_WEIGHT_UNKNOWN)
			wsum += cfg.blocks[b].weight * block_insns(g, &cfg.blocks[b]);
	struct spgo_infer_opts opts;
	enum spgo_algo tries[2] = {algo, SPGO_ALGO_MCF};
	int kept = 0;
	for (size_t t = 0; t < 2 && !kept; t++) {
		if (t && tries[t] == algo)
			break;
		spgo_infer_defaults(&opts, tries[t]);
		if (tries[t] == SPGO_ALGO_PROFI && g->o->confidence) {
			opts.k_dec = IP_K_DEC, opts.dec_floor_pct = IP_DEC_FLOOR_PCT;
			set_confidence(&cfg, bs, bn);
		} else
			for (size_t b = 0; b < cfg.nblocks; b++)
				cfg.blocks[b].cost_scale = 0;
		spgo_infer(&cfg, &opts);
		uint64_t fsum = 0;
		for (size_t b = 0; b < cfg.nblocks; b++)
			fsum += cfg.blocks[b].count * block_insns(g, &cfg.blocks[b]);
		kept = fsum >= wsum / 4;
		if (!kept)
			g->st->infer_lost++;
	}
	free(bs);
	free(bn);
	if (!kept) {
		spgo_cfg_free(&cfg);
		return -1;
	}
	memset(covered, 0, n);
	for (size_t b = 0; b < cfg.nblocks; b++) {
		const struct spgo_cfg_block *blk = &cfg.blocks[b];
		for (size_t i = gen_insn_lower(g, blk->addr);
		     i < g->ninsns && g->insns[i].addr < blk->addr + blk->size; i++) {
			g->count[i] = blk->count;
			g->st->insns_counted += blk->count != 0;
		}
	}
	/* idx is sorted: mark what the blocks held. */
	size_t k = 0;
	for (size_t b = 0; b < cfg.nblocks; b++) {
		const struct spgo_cfg_block *blk = &cfg.blocks[b];
		while (k < n && g->insns[idx[k]].addr < blk->addr)
			k++;
		for (; k < n && g->insns[idx[k]].addr < blk->addr + blk->size; k++)
			covered[k] = 1;
	}
	g->st->blocks += cfg.nblocks;
	g->st->blocks_disagree += disagree;
	g->st->inferred = 1;
	spgo_cfg_free(&cfg);
	return 0;
}

/* Blocks and counts by plain averages: leaders at the group's entries,
 * at direct branch targets inside it, and after block-ending instructions. */
static void group_average(struct gen *g, const struct ip_raw *r, const size_t *idx, size_t n,
			  uint8_t *leader)
{
	for (size_t k = 0; k < n; k++)
		leader[k] = k == 0 || idx[k] != idx[k - 1] + 1 || ends_block(g->insns[idx[k - 1]].cls);
	for (size_t k = 0; k < n; k++) {
		const struct spgo_insn *in = &g->insns[idx[k]];
		if (in->cls != SPGO_INSN_COND_BRANCH && in->cls != SPGO_INSN_JUMP)
			continue;
		long t = gen_insn_index(g, in->target);
		if (t < 0)
			continue;
		/* binary search the target among the group's instructions */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (idx[mid] < (size_t)t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && idx[lo] == (size_t)t)
			leader[lo] = 1;
	}
	for (size_t b = 0; b < n;) {
		size_t e = b + 1;
		while (e < n && !leader[e])
			e++;
		int disagree;
		double est = block_estimate(g, r, idx + b, e - b, &disagree);
		if (disagree)
			g->st->blocks_disagree++;
		set_block(g, idx + b, e - b, (uint64_t)(est * IP_SCALE + 0.5));
		b = e;
	}
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
	if (g->o->gcc)
		gen_gcc_weigh_begin(g);
	/* Raw samples per instruction, per event used. */
	size_t n = g->ninsns;
	struct ip_raw r = {xcalloc(nev, sizeof *r.raw), nev, base};
	for (size_t e = 0; e < nev; e++) {
		if (e != base && (g->o->event >= 0 || agg->events.v[e].samples < 1000))
			continue;
		r.raw[e] = xcalloc(n, sizeof **r.raw);
		const uint64_t *key;
		uint64_t *val;
		for (size_t it = 0; spgo_kmap_next(&agg->events.v[e].ips, &it, &key, &val);) {
			long i = insn_holding(g, key[0]);
			if (e == base) {
				gen_gcc_weigh(g, key[0], *val);
				g->st->ip_samples += *val;
				if (i < 0 || g->insns[i].addr != key[0])
					g->st->ip_off_boundary += *val;
			}
			if (i < 0 || !spgo_binary_function_at(g->bin, key[0])) {
				if (e == base)
					g->st->ip_samples_no_func += *val;
				continue;
			}
			r.raw[e][i] += *val;
			if (e == base)
				gen_touch_function(g, key[0]);
		}
	}

	/* Inference: the algorithm, and the binary's exact block starts when
	 * it has them (a section this build cannot read only loses them). */
	int algo = -1;
	struct spgo_bb_addr_map bbmap = {0};
	if (!g->o->no_infer) {
		algo = spgo_algo_parse(g->o->infer_algo ? g->o->infer_algo : SPGO_GEN_INFER_DEFAULT);
		if (algo < 0) {
			for (size_t e = 0; e < nev; e++)
				free(r.raw[e]);
			free(r.raw);
			return spgo_gen_check_infer(g->o->infer_algo);
		}
		if (spgo_bb_addr_map_read(&bbmap, spgo_binary_path(g->bin)) < 0)
			spgo_bb_addr_map_free(&bbmap);
	}
	/* Each group of function parts with samples (first part of a name). */
	size_t *idx = NULL, cap = 0;
	uint8_t *leader = NULL;
	size_t lcap = 0;
	for (size_t fi = 0; fi < g->nfuncs; fi++) {
		const struct spgo_function *f = &g->funcs[fi];
		uint64_t h = spgo_hash_bytes(f->name, strlen(f->name));
		uint64_t *first = spgo_kmap_find(&g->byname, &h);
		if (!first || *first - 1 != fi)
			continue; /* not the first part of its name */
		size_t lo = gen_insn_lower(g, f->start);
		if (lo >= n || !g->present[lo])
			continue;
		size_t m = group_insns(g, fi, &idx, &cap);
		if (!m)
			continue;
		/* the entry: the part that is no split part, else the first */
		uint64_t entry = f->start;
		for (int32_t p = (int32_t)fi; p >= 0; p = g->next[p])
			if (!strcmp(g->funcs[p].name, f->name) && g->funcs[p].parent < 0) {
				entry = g->funcs[p].start;
				break;
			}
		if (m > lcap) {
			lcap = m;
			leader = xrealloc(leader, lcap);
		}
		if (algo >= 0 && group_infer(g, &r, idx, m, entry, (enum spgo_algo)algo, &bbmap,
					     leader) == 0) {
			/* average what the CFG did not hold, in place in idx */
			size_t u = 0;
			for (size_t k = 0; k < m; k++)
				if (!leader[k])
					idx[u++] = idx[k];
			if (u)
				group_average(g, &r, idx, u, leader);
			continue;
		}
		group_average(g, &r, idx, m, leader);
	}
	free(idx);
	free(leader);
	spgo_bb_addr_map_free(&bbmap);
	for (size_t e = 0; e < nev; e++)
		free(r.raw[e]);
	free(r.raw);
	gen_gcc_floor(g);
	return 0;
}

void gen_ip_calls(struct gen *g)
{
	for (size_t i = 0; i < g->ninsns; i++) {
		const struct spgo_insn *in = &g->insns[i];
		if (!g->present[i] || !g->count[i])
			continue;
		if (in->cls != SPGO_INSN_CALL && in->cls != SPGO_INSN_JUMP)
			continue;
		const struct spgo_function *callee = gen_entry_at(g, in->target);
		if (!callee || !gen_gcc_emitted(g, in->target))
			continue;
		/* A direct jump to a function entry is a tail call, unless it
		 * jumps to the start of the function it is in (a loop). */
		if (in->cls == SPGO_INSN_JUMP &&
		    gen_function_at(g, in->addr) == callee)
			continue;
		g->st->calls++;
		g->st->call_count += g->count[i];
		gen_add_call(g, in->addr, callee->name, g->count[i]);
		gen_add_head(g, callee->name, g->count[i]);
	}
	if (!g->o->icalls)
		return;
	/*
	 * Indirect calls: the call's block count split among the targets its
	 * unwound samples named, in their shares (spgo_gen_icalls_feed).
	 */
	const struct spgo_kmap *pairs = gen_icall_pairs(g->o->icalls);
	struct spgo_kmap site_total;
	spgo_kmap_init(&site_total, 1);
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(pairs, &it, &key, &val);)
		*spgo_kmap_upsert(&site_total, key) += *val;
	size_t npairs = pairs->n;
	uint64_t *rows = spgo_kmap_sorted(pairs);
	for (size_t r = 0; r < npairs; r++) {
		uint64_t site = rows[3 * r], target = rows[3 * r + 1], n = rows[3 * r + 2];
		long i = gen_insn_index(g, site);
		if (i < 0 || !g->present[i] || !g->count[i] ||
		    g->insns[i].cls != SPGO_INSN_INDIRECT_CALL)
			continue;
		const struct spgo_function *callee = gen_entry_at(g, target);
		if (!callee || !gen_gcc_emitted(g, target))
			continue;
		uint64_t total = *spgo_kmap_find(&site_total, &site);
		uint64_t c = (g->count[i] * n + total / 2) / total;
		if (!c)
			continue;
		g->st->icalls++;
		g->st->icall_count += c;
		gen_add_call(g, site, callee->name, c);
		gen_add_head(g, callee->name, c);
	}
	free(rows);
	spgo_kmap_free(&site_total);
}
