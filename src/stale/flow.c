/*
 * The counts a carried probe profile's matching leaves open, inferred on
 * NEW's CFG (spgo carry, stale_impl.h): the last step of BOLT's stale
 * matching (Ayupov, Panchenko, Pupyrev, CC 2024), which runs profile
 * inference on the new build's CFG with the matched blocks' counts as
 * inputs and the unmatched blocks free, so that the profile is a flow.
 *
 * For one function whose CFG checksum changed: its CFG in NEW
 * (spgo_cfg_from_binary(), split parts and jump tables included); each
 * block holding a probe of the function's own code (top level) that the
 * map places by its code (the same probe, a call anchor, a block hash or
 * code: HOW_ROW or surer) weighs what that probe carried (the most of
 * several); a block holding only probes placed by a guess (a delta, or
 * in order by code: HOW_GAP) weighs the guess, at a fifth of the cost
 * per unit of change (GUESS_SCALE);
 * every other block is unknown, a dangling block to profi.  Each probe
 * not placed by code (a guess, or no place at all) then takes its block's
 * inferred count (the sum over its blocks when the code duplicates it).
 * The probes placed by code keep their counts as carried: they are the
 * inputs, inference fills the rest (unless the flow outvotes one, below).
 * Call targets need no change: a call probe is placed only by its call
 * anchor (code) and is never outvoted, and a probe placed otherwise
 * takes an OLD block probe's samples, which have no targets
 * (stale_align_blocks(): no delta or block rule takes an anchor), so an
 * inferred probe has no targets to keep in step with its count.
 *
 * Why the guesses weigh at all, and why without profi's floor
 * (dec_floor_pct 0): on pcre2grep 10.42 -> 10.46, whose match() places
 * 25% of its samples by code, the carried profile was 65.0% similar to
 * the fresh one (spgo overlap) with the guesses as they are; with the
 * guesses left out (unknown blocks) 58.8%, since profi sends
 * the least flow through a loop of unknown blocks (even with the placed
 * probes' counts taken from the fresh profile, the rest came out no better
 * than the guesses); with the guesses weighed 75.2%: the delta rule is
 * mostly right, and where it is not (a block guessed 0 in a hot loop) the
 * flow says so.  profi's floor (a count kept above 40% of its weight,
 * for sampling noise) keeps wrong guesses too: 63.0% with it.
 *
 * A call site's calls bound its block from below (bound()): the call
 * probe's count or its targets' sum, plus the entry counts of the
 * inlinees carried there (clang's sum for an indirect call's value
 * profile: targets plus inlinees' head samples); its block is the call
 * probe's, or where NEW inlines the callee too, the inlined copy's entry
 * block.  The block weighs at least that, and profi takes it below only
 * at k_dec_floor (1000) a unit, against k_dec (15) for a count: a bound
 * holds unless the CFG has no way to it, so the blocks on the way to and
 * from a hot call get its flow, guessed ones too.  clang's sample loader
 * weighs a block by the most of its probes, call probes included
 * (getBlockWeight()), then infers, and gives a direct call its block's
 * inferred count (generateMDProfMetadata()): a call carried hot beside
 * blocks carried cold is a cold call to the inliner once clang's own
 * inference has sided with the blocks.  On pcre2grep 10.42 -> 10.46,
 * match()'s call of
 * match_ref (probe 5926, 4580 calls, by its anchor) sat in a block that
 * profi took to 37, as its neighbours were guessed cold (four blocks at
 * 0-143, fresh 4475-4516): the build did not inline match_ref, the fresh
 * build does.  With the bound the block carries 4580 and the path into
 * it 4580; the carried build inlines match_ref there, as the fresh one.
 * Where the bound stands: on every call's block, whether its block
 * probe is placed by code or by a guess (5926's is a guess): on blocks
 * placed by code only, the pcre2grep call stayed cold and most of the
 * gain in similarity to the fresh profiles was lost (speedtest1 +0.1
 * point instead of +0.4, lua5.4 at --min-confidence 0 none instead of
 * +1.6).
 *
 * A block probe placed by code whose block's inferred count is over
 * twice or under half what it carried (100 or more on either side) takes
 * the inferred count too (outvoted()): profi moved it at full cost, so
 * its neighbours outvote it, and keeping it would write the contradiction
 * the bound removes (a hot call after blocks carried cold).  On the four
 * pairs 7 probes (pcre2grep 3: match()'s 5921, 12425 carried, 0 inferred
 * and fresh; speedtest1 4), each nearer the fresh count after: pcre2grep
 * 89.2% -> 89.8% like the fresh profile, speedtest1 76.8% -> 76.9%, lua
 * and zstd the same.  Below twice, the carried count stays (raising the
 * probes of a bounded block to its count alone moved the similarity by
 * 0.05 point or less, both ways).
 *
 * A probe with a copy in several blocks gives no weight (how its samples
 * split between them is not known); a function whose placed probes carry
 * no samples, or whose CFG cannot be built, is left as the matching left
 * it, and so is one whose inferred flow keeps under a quarter of the
 * carried weight (profi dropping an island of it).  An inlinee's probes
 * are left as they are: its blocks are known only in its caller's CFG
 * (its entry count bounds its call site's block, above).
 *
 * A top-level record of a function NEW inlines everywhere (no symbol of
 * its own, only copies in its callers) is inferred on one copy, in its
 * caller's CFG (inlined_copy()): the copy that holds the most of the
 * carried samples, its own probes' and those of the inlinee records its
 * inlined calls match (the same call site and callee, all the way down).
 * The copies differ where each caller's constants pruned them, and the
 * one like the code that ran holds the samples.  Only that copy's probes
 * weigh; the caller's own blocks and other inlinees are unknown.  The
 * carried counts are the sum over OLD's copies; on one copy they still
 * make a flow, since each copy's counts do.  zstd 1.5.4 -> 1.5.7: its
 * four hottest records (ZSTD_compressBlock_lazy_generic,
 * lazy_extDict_generic, encodeSequences_body, HUF's body_loop: 99% of
 * the samples) are such functions and were never inferred (9 small
 * functions, 53 samples, were; now 17, 33k samples at --min-confidence
 * 0).  lazy_generic is inferred on its copy in
 * ZSTD_compressBlock_lazy2_row (the one the -9 run uses; by its own
 * probes alone, a tie, btlazy2's was taken): its own probes the fresh
 * profile runs but the carried one had at zero went from 2617 samples to
 * none, and its own body is 91.8% like the fresh one (86.7% before); the
 * rest of its gap is in inlinee records (1.5.7's salted row hash, a
 * callee inference does not reach).
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"
#include "spgo/infer.h"
#include "spgo/probe.h"
#include "spgo/profile.h"
#include "stale/stale_impl.h"

/* The cost scale of a block weighed by a guess (a delta's): a fifth of a
 * match's.  On pcre2grep 10.42 -> 10.46 (match()), the carried profile's
 * similarity to the fresh one was 72.0% at 1, 73.6% at 0.5, 75.2% at 0.2
 * and 0.1, 72.8% at 0.05.  Held out, on sqlite's speedtest1 3.40.1 ->
 * 3.46.1 (sqlite3VdbeExec): 74.8% at 1, 76.6% at 0.5 and 0.3, 76.5% at
 * 0.2, 76.0% at 0.1, 75.2% without inference, 74.5% with the guesses
 * unknown (bench/pgo/stale-findings.md). */
#define GUESS_SCALE 0.2

/* The guesses' cost scale: GUESS_SCALE, or for an experiment
 * (bench/bench_stale.sh) the environment's SPGO_CARRY_GUESS_SCALE: a
 * number above 0, or "free" (0 or below: a guessed block is unknown, as
 * in the paper).  Not an option: nothing a user should tune; a carry that
 * takes it says so once, and one it cannot read is a warning (the default
 * then), so a profile never changes silently. */
static double guess_scale(void)
{
	static int said;
	const char *e = getenv("SPGO_CARRY_GUESS_SCALE");
	if (!e || !*e)
		return GUESS_SCALE;
	char *end = "";
	double v = 0; /* "free" */
	if (strcmp(e, "free"))
		v = strtod(e, &end);
	if (*end || v != v) {
		if (!said++)
			spgo_warn("SPGO_CARRY_GUESS_SCALE=%s is not a number or \"free\": the guesses weigh %g "
				  "(the default)", e, GUESS_SCALE);
		return GUESS_SCALE;
	}
	if (!said++)
		spgo_warn("SPGO_CARRY_GUESS_SCALE=%s: the guesses weigh %g, not the default %g (an experiment's "
			  "setting)", e, v > 0 ? v : 0, GUESS_SCALE);
	return v;
}

/* A probe of the function in a block of its CFG. */
struct pin {
	uint64_t loc;
	uint32_t blk;
	uint32_t call; /* a call probe */
};

static int cmp_pin(const void *pa, const void *pb)
{
	const struct pin *a = pa, *b = pb;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return a->blk < b->blk ? -1 : a->blk > b->blk;
}

/* Sort pins by (loc, block) and keep one per (loc, block): the new count. */
static size_t sort_pins(struct pin *v, size_t n)
{
	spgo_sort(v, n, sizeof *v, cmp_pin);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || v[i].loc != v[k - 1].loc || v[i].blk != v[k - 1].blk)
			v[k++] = v[i];
	return k;
}

/* One walk over the probes in the blocks of cfg, for function ng (top
 * level; or with scope >= 0, the inlined copy of ng that is probe node
 * scope): in *own its own probes (loc, block, call probe), and in *ent the
 * entries of the callees NEW inlines into it (call site id << 32, block);
 * each sorted, one per (loc, block). */
static void block_pins(struct spgo_binary *bin, const struct spgo_cfg *cfg, uint64_t ng, int32_t scope,
		       struct pin **own, size_t *nown, struct pin **ent, size_t *nent)
{
	size_t np, nn;
	const struct spgo_probe *p = spgo_binary_probes(bin, &np);
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(bin, &nn);
	VEC(struct pin) v = {0};
	VEC(struct pin) e = {0};
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct spgo_cfg_block *bk = &cfg->blocks[b];
		size_t i;
		SPGO_LOWER_BOUND(i, p, np, addr, bk->addr);
		for (; i < np && p[i].addr < bk->addr + bk->size; i++) {
			if (p[i].node >= nn)
				continue;
			const struct spgo_probe_node *n = &nodes[p[i].node];
			if (p[i].guid == ng && (scope < 0 ? n->parent < 0 : p[i].node == (uint32_t)scope)) {
				struct pin x = {stale_loc(p[i].index, p[i].discriminator), b,
						p[i].type != SPGO_PROBE_BLOCK};
				VEC_PUSH(&v, x);
			}
			/* an inlinee's entry block probe, its parent ng's code */
			if (p[i].index == 1 && p[i].type == SPGO_PROBE_BLOCK && n->parent >= 0 &&
			    (size_t)n->parent < nn &&
			    (scope < 0 ? nodes[n->parent].guid == ng && nodes[n->parent].parent < 0
				       : n->parent == scope)) {
				struct pin x = {stale_loc(n->callsite, 0), b, 0};
				VEC_PUSH(&e, x);
			}
		}
	}
	*own = v.v;
	*nown = sort_pins(v.v, v.n);
	*ent = e.v;
	*nent = sort_pins(e.v, e.n);
}

/* The body records of profile function f: (loc) -> record index + 1. */
static void body_index(const struct spgo_profile *p, uint32_t f, struct spgo_kmap *m)
{
	for (uint32_t b = p->funcs.v[f].bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		uint64_t loc = stale_loc(p->bodies.v[b].line, p->bodies.v[b].disc);
		*spgo_kmap_upsert(m, &loc) = (uint64_t)b + 1;
	}
}

/* Above this count a block's weight or floor is not a sample count (2^40:
 * a million years of samples at 30 kHz): a function that has one is not
 * inferred, so that sums and the flow's capacities cannot wrap. */
#define COUNT_MAX (1ull << 40)

/* a + b, at most UINT64_MAX */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Infer on cfg: 0, or -1 when the flow keeps under a quarter of the weight
 * or a weight or floor is over COUNT_MAX. */
static int infer(struct spgo_cfg *cfg)
{
	uint64_t wsum = 0, fsum = 0;
	for (size_t b = 0; b < cfg->nblocks; b++) {
		if (cfg->blocks[b].floor > COUNT_MAX ||
		    (cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN && cfg->blocks[b].weight > COUNT_MAX))
			return -1;
		if (cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN)
			wsum += cfg->blocks[b].weight;
	}
	if (!wsum)
		return -1;
	struct spgo_infer_opts o;
	spgo_infer_defaults(&o, SPGO_ALGO_PROFI);
	o.dec_floor_pct = 0; /* (see the top of the file) */
	spgo_cfg_static_probs(cfg);
	spgo_infer(cfg, &o);
	for (size_t b = 0; b < cfg->nblocks; b++)
		if (cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN)
			fsum += cfg->blocks[b].count;
	return fsum >= wsum / 4 ? 0 : -1;
}

/* The probes of one function in its CFG, with what the matching gave them. */
struct fprobes {
	struct pin *pin;
	size_t n;
	struct pin *ent;  /* the inlinees' entries (block_pins()) */
	size_t nent;
	char *sure;       /* per pin: placed by code (HOW_ROW or surer) */
	char *guessed;    /* per pin: placed by a delta (or a neighbour) */
	size_t *copies;   /* at a probe's first pin: its blocks */
	struct spgo_kmap bodies; /* loc -> body record of the function + 1 */
};

/* The block weights of cfg: a sure probe's count (cost scale 1), else a
 * guessed probe's (GUESS_SCALE); the most of several; unknown if none. */
static void weigh(struct spgo_cfg *cfg, const struct fprobes *fp, const struct spgo_profile *out)
{
	char *held = xcalloc(cfg->nblocks ? cfg->nblocks : 1, 1); /* a sure probe's block */
	double gs = guess_scale();
	for (size_t b = 0; b < cfg->nblocks; b++)
		cfg->blocks[b].weight = SPGO_WEIGHT_UNKNOWN;
	for (int pass = 0; pass < (gs > 0 ? 2 : 1); pass++) /* the sure probes, then the guesses */
		for (size_t i = 0; i < fp->n; i++) {
			size_t first = i;
			while (first && fp->pin[first - 1].loc == fp->pin[i].loc)
				first--;
			const uint64_t *v = spgo_kmap_find(&fp->bodies, &fp->pin[i].loc);
			if (fp->copies[first] != 1 || !(pass ? fp->guessed[i] && v : fp->sure[i]))
				continue;
			uint32_t b = fp->pin[i].blk;
			if (pass && held[b])
				continue;
			held[b] |= !pass;
			uint64_t c = v ? out->bodies.v[*v - 1].count : 0;
			struct spgo_cfg_block *bk = &cfg->blocks[b];
			if (bk->weight == SPGO_WEIGHT_UNKNOWN || c > bk->weight)
				bk->weight = c;
			bk->cost_scale = pass ? gs : 1;
		}
	free(held);
}

/* The calls a call site of out's function dst at loc makes: its call
 * probe's count or its targets' sum, the more, plus the entry counts (head
 * samples, or the entry probe's) of the inlinees carried there. */
static uint64_t site_calls(const struct spgo_profile *out, uint32_t dst, uint64_t loc, const struct spgo_kmap *bodies)
{
	uint64_t n = 0, t = 0;
	const uint64_t *v = spgo_kmap_find(bodies, &loc);
	if (v) {
		const struct spgo_body *bd = &out->bodies.v[*v - 1];
		for (uint32_t k = bd->targets; k != SPGO_NONE; k = out->targets.v[k].next)
			t = sat_add(t, out->targets.v[k].count);
		n = bd->count > t ? bd->count : t;
	}
	for (uint32_t k = out->funcs.v[dst].children; k != SPGO_NONE; k = out->funcs.v[k].sibling) {
		const struct spgo_func *kf = &out->funcs.v[k];
		if (stale_loc(kf->line, kf->disc) != loc)
			continue;
		uint64_t e = kf->head;
		for (uint32_t b = kf->bodies; b != SPGO_NONE; b = out->bodies.v[b].next)
			if (out->bodies.v[b].line == 1 && !out->bodies.v[b].disc && out->bodies.v[b].count > e)
				e = out->bodies.v[b].count;
		n = sat_add(n, e);
	}
	return n;
}

/* Each call site's calls (site_calls()) as a lower bound on the count of
 * its block (the block of its call probe; where NEW inlines the callee,
 * of the inlined copy's entry): the block weighs at least that, and profi
 * takes it below only at k_dec_floor a unit. */
static void bound(struct spgo_cfg *cfg, const struct fprobes *fp, const struct spgo_profile *out, uint32_t dst)
{
	VEC(struct pin) sites = {0};
	const struct pin *ent = fp->ent;
	size_t nent = fp->nent;
	for (size_t i = 0, j; i < fp->n; i = j) {
		for (j = i; j < fp->n && fp->pin[j].loc == fp->pin[i].loc;)
			j++;
		if (fp->pin[i].call)
			VEC_PUSH(&sites, ((struct pin){fp->pin[i].loc, j - i == 1 ? fp->pin[i].blk : SPGO_NONE, 1}));
	}
	for (uint32_t k = out->funcs.v[dst].children; k != SPGO_NONE; k = out->funcs.v[k].sibling) {
		uint64_t loc = stale_loc(out->funcs.v[k].line, out->funcs.v[k].disc);
		int have = 0;
		for (size_t i = 0; i < sites.n && !have; i++)
			have = sites.v[i].loc == loc;
		if (have)
			continue;
		/* NEW inlines the callee there too: its copy's entry block, if one */
		uint64_t key = loc >> 32 << 32;
		size_t e;
		SPGO_LOWER_BOUND(e, ent, nent, loc, key);
		int one = e < nent && ent[e].loc == key && (e + 1 == nent || ent[e + 1].loc != key);
		VEC_PUSH(&sites, ((struct pin){loc, one ? ent[e].blk : SPGO_NONE, 0}));
	}
	for (size_t i = 0; i < sites.n; i++) {
		uint32_t b = sites.v[i].blk;
		uint64_t n = b == SPGO_NONE ? 0 : site_calls(out, dst, sites.v[i].loc, &fp->bodies);
		if (!n)
			continue;
		if (n > COUNT_MAX) /* (not SPGO_WEIGHT_UNKNOWN; infer() declines it) */
			n = COUNT_MAX + 1;
		struct spgo_cfg_block *bk = &cfg->blocks[b];
		if (bk->weight == SPGO_WEIGHT_UNKNOWN) {
			bk->weight = n;
			bk->cost_scale = 1;
		} else if (bk->weight < n) {
			bk->weight = n;
		}
		if (bk->floor < n)
			bk->floor = n;
	}
	free(sites.v);
}

/* 1 if a probe placed by code, carried at count b, is outvoted by its
 * block's inferred count c (see the top of the file): over twice or under
 * half of it, 100 or more on either side; a block probe in one block. */
static int outvoted(const struct fprobes *fp, size_t i, size_t copies, uint64_t b, uint64_t c)
{
	return !fp->pin[i].call && copies == 1 && (b > c ? b - c > c : c - b > b) && (b >= 100 || c >= 100);
}

/* Write the inferred counts of the probes not placed by code, and of those
 * placed by code that the flow outvotes, into out's function dst. */
static void apply(const struct spgo_cfg *cfg, const struct fprobes *fp, struct spgo_profile *out, uint32_t dst,
		  struct spgo_carry_inferred *st)
{
	size_t before = st->probes;
	for (size_t i = 0, j; i < fp->n; i = j) {
		uint64_t c = 0;
		for (j = i; j < fp->n && fp->pin[j].loc == fp->pin[i].loc; j++)
			c += cfg->blocks[fp->pin[j].blk].count;
		const uint64_t *v = spgo_kmap_find(&fp->bodies, &fp->pin[i].loc);
		if (fp->sure[i] && !outvoted(fp, i, j - i, v ? out->bodies.v[*v - 1].count : 0, c))
			continue;
		uint32_t b = spgo_body_get(out, dst, (uint32_t)(fp->pin[i].loc >> 32), (uint32_t)fp->pin[i].loc);
		struct spgo_body *bd = &out->bodies.v[b];
		st->changed += bd->count != c;
		bd->count = c;
		st->probes++;
		st->samples += c;
	}
	st->funcs += st->probes > before;
}

/* What of out's function f (and its inlinees) NEW's probe node k holds:
 * the carried samples on the probes of k's code (have: (node, loc) ->
 * 1), plus those of each inlinee record of f that a child node of k
 * holds (the same call site and function), recursively. */
static uint64_t held_by(const struct spgo_profile *out, uint32_t f, const struct spgo_probe_node *nodes, size_t nn,
			size_t k, const struct spgo_kmap *have, int depth)
{
	uint64_t w = 0;
	const struct spgo_func *fn = &out->funcs.v[f];
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = out->bodies.v[b].next) {
		uint64_t key[2] = {k, stale_loc(out->bodies.v[b].line, out->bodies.v[b].disc)};
		if (spgo_kmap_find(have, key))
			w += out->bodies.v[b].count;
	}
	if (depth > 64)
		return w;
	for (uint32_t c = fn->children; c != SPGO_NONE; c = out->funcs.v[c].sibling) {
		const struct spgo_func *cf = &out->funcs.v[c];
		uint64_t g = stale_guid(spgo_name(out, cf->name), spgo_name_len(out, cf->name),
					!!(out->flags & SPGO_PROF_MD5), 1);
		/* k's inlinees follow it (depth first), up to the next node of
		 * a parent at or above k's */
		for (size_t j = k + 1; j < nn && nodes[j].parent >= (int64_t)k; j++)
			if ((size_t)nodes[j].parent == k && nodes[j].guid == g && nodes[j].callsite == cf->line) {
				w += held_by(out, c, nodes, nn, j, have, depth + 1);
				break;
			}
	}
	return w;
}

/* The inlined copy of ng in NEW that holds the most of out's function dst
 * (held_by(): its own probes' samples and its inlinees'), then the first
 * in the inline tree: its probe node, and in *start the entry of the
 * function it is inlined in; -1 if none.  A function NEW inlines
 * everywhere: its copies differ where each caller's constants pruned
 * them (zstd's lazy_generic: which match finder its searchMax inlines),
 * and the one like the code that ran holds the carried samples. */
static int32_t inlined_copy(struct spgo_binary *bin, uint64_t ng, const struct spgo_profile *out, uint32_t dst,
			    uint64_t *start)
{
	size_t np, nn;
	const struct spgo_probe *p = spgo_binary_probes(bin, &np);
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(bin, &nn);
	/* the copies' inline trees: each node and its inlinees (depth first,
	 * up to the next node of a parent at or above its own) */
	char *in = xcalloc(nn ? nn : 1, 1);
	for (size_t k = 0; k < nn; k++)
		if (nodes[k].guid == ng && nodes[k].parent >= 0)
			for (size_t j = k; j < nn && (j == k || nodes[j].parent >= (int64_t)k) && !in[j]; j++)
				in[j] = 1;
	struct spgo_kmap have; /* (node, loc) -> 1, in the copies' trees */
	spgo_kmap_init(&have, 2);
	for (size_t i = 0; i < np; i++)
		if (p[i].node < nn && in[p[i].node]) {
			uint64_t key[2] = {p[i].node, stale_loc(p[i].index, p[i].discriminator)};
			*spgo_kmap_upsert(&have, key) = 1;
		}
	int32_t best = -1;
	uint64_t bw = 0;
	*start = 0;
	for (size_t k = 0; k < nn; k++) {
		if (nodes[k].guid != ng || nodes[k].parent < 0)
			continue;
		uint64_t w = held_by(out, dst, nodes, nn, k, &have, 0);
		if (best >= 0 && w <= bw)
			continue;
		size_t r = k; /* its top-level record: the function holding it */
		for (int depth = 0; nodes[r].parent >= 0 && (size_t)nodes[r].parent < r && depth < 1000; depth++)
			r = (size_t)nodes[r].parent;
		const struct spgo_probe_desc *rd = nodes[r].parent < 0 ? spgo_binary_probe_desc(bin, nodes[r].guid) : NULL;
		if (rd && rd->start) {
			best = (int32_t)k;
			bw = w;
			*start = rd->start;
		}
	}
	spgo_kmap_free(&have);
	free(in);
	return best;
}

void stale_infer_probes(struct stale_build *nb, uint64_t ng, const struct fn_map *fm, struct spgo_profile *out,
			uint32_t dst, struct spgo_carry_inferred *st)
{
	const struct spgo_probe_desc *d = spgo_binary_probe_desc(nb->bin, ng);
	struct spgo_cfg cfg;
	spgo_cfg_init(&cfg);
	struct fprobes fp = {0};
	spgo_kmap_init(&fp.bodies, 1);
	body_index(out, dst, &fp.bodies);
	/* a function NEW inlines everywhere: one copy, in its caller's CFG */
	int32_t scope = -1;
	uint64_t start = d ? d->start : 0;
	if (d && !start)
		scope = inlined_copy(nb->bin, ng, out, dst, &start);
	if (!start || spgo_cfg_from_binary(&cfg, nb->bin, start, NULL) < 0 || !cfg.nblocks) {
		spgo_kmap_free(&fp.bodies);
		spgo_cfg_free(&cfg);
		st->left++;
		return;
	}
	block_pins(nb->bin, &cfg, ng, scope, &fp.pin, &fp.n, &fp.ent, &fp.nent);
	struct spgo_kmap how; /* NEW loc -> the surest way a pair placed it + 1 */
	spgo_kmap_init(&how, 1);
	for (size_t i = 0; i < fm->pairs.n; i++) {
		uint64_t *v = spgo_kmap_upsert(&how, &fm->pairs.v[i].to);
		if (!*v || (uint64_t)fm->pairs.v[i].how + 1 < *v)
			*v = (uint64_t)fm->pairs.v[i].how + 1;
	}
	fp.sure = xcalloc(fp.n ? fp.n : 1, 1);
	fp.guessed = xcalloc(fp.n ? fp.n : 1, 1);
	fp.copies = xcalloc(fp.n ? fp.n : 1, sizeof *fp.copies);
	for (size_t i = 0, j; i < fp.n; i = j) {
		for (j = i; j < fp.n && fp.pin[j].loc == fp.pin[i].loc;)
			j++;
		const uint64_t *h = spgo_kmap_find(&how, &fp.pin[i].loc);
		for (size_t k = i; k < j; k++) {
			fp.sure[k] = h && *h - 1 <= HOW_ROW;
			fp.guessed[k] = h && *h - 1 > HOW_ROW;
		}
		fp.copies[i] = j - i;
	}
	weigh(&cfg, &fp, out);
	bound(&cfg, &fp, out, dst);
	if (fp.n && infer(&cfg) == 0)
		apply(&cfg, &fp, out, dst, st);

	else
		st->left++;
	free(fp.sure);
	free(fp.guessed);
	free(fp.copies);
	free(fp.pin);
	free(fp.ent);
	spgo_kmap_free(&how);
	spgo_kmap_free(&fp.bodies);
	spgo_cfg_free(&cfg);
}
