/*
 * Probe-based profiles (CSSPGO's pseudo-probes, without contexts): the
 * per-instruction counts that gen_lbr.c or gen_ip.c made, turned into
 * counts per (function, probe id) instead of per source line, the way
 * llvm-profgen 19's ProfileGenerator::generateProbeBasedProfile does:
 *
 *  - every probe at a counted instruction (call probes too) adds the instruction's count to
 *    the body sample (probe id, probe discriminator) of the profile of its
 *    function, reached through the probe's inline context (the outermost
 *    function's top-level profile, then an inlinee per call-site probe id);
 *    each profile on the way adds the count to its total samples.  A probe
 *    duplicated by the optimizer (loop unrolling, tail duplication) sits at
 *    several addresses: its counts are added, as the CSSPGO paper argues
 *    against the max-of-copies of line-based profiles;
 *  - the entry probe (id 1) adds the count to the head samples of its
 *    function's profile;
 *  - a call (a branch into a function's entry) adds a call target at the
 *    call-site probe of the call instruction; callees get no head samples
 *    from calls (their entry probe gives them);
 *  - every function profile carries its CFG checksum from
 *    .pseudo_probe_desc (the compiler drops a profile whose checksum
 *    differs: the source changed);
 *  - names are the descriptors' (the functions' linkage names as the
 *    compiler hashed them into the GUIDs);
 *  - only the probe records llvm-profgen decodes count: those whose
 *    top-level GUID is a sampled function's (one with samples and DWARF),
 *    all of them when none is.  A top-level record of another function
 *    can lie in a sampled function's code (the code generator merged
 *    identical tails that inlined it through different chains); its
 *    probes would give a profile of their own, all zeros where the code
 *    is not sampled (sqlite3ReleaseTempReg in speedtest1).
 * IP samples give the same (their block averages after inference are
 * per-instruction counts too): probe profiles from plain `perf record`,
 * which llvm-profgen cannot make (LLVM issue 82901).
 */
#include <string.h>

#include "gen/gen_impl.h"
#include "spgo/probe.h"

#define MAX_PROBE_FRAMES 64

/* The profile name id of a descriptor's name (no canonicalization: the
 * descriptor has the name the GUID was made from). */
static uint32_t probe_name_id(struct gen *g, const struct spgo_probe_frame *f)
{
	if (f->function)
		return spgo_name_id(g->p, f->function, strlen(f->function));
	/* A GUID without descriptor: named by its number, as LLVM prints an
	 * MD5 name. */
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)f->guid);
	return spgo_name_id(g->p, buf, (size_t)n);
}

static void set_checksum(struct gen *g, uint32_t f, uint64_t guid)
{
	const struct spgo_probe_desc *d = spgo_binary_probe_desc(g->bin, guid);
	if (d)
		spgo_fn(g->p, f)->checksum = d->checksum;
}

/*
 * The profile of probe p's function through its inline context, adding
 * total to every profile on the way (getLeafProfileAndAddTotalSamples).
 */
static uint32_t probe_profile(struct gen *g, const struct spgo_probe *p, uint64_t total)
{
	struct spgo_probe_frame fr[MAX_PROBE_FRAMES];
	int n = spgo_probe_inline_chain(g->bin, p, fr, MAX_PROBE_FRAMES);
	if (n > MAX_PROBE_FRAMES)
		n = MAX_PROBE_FRAMES;
	if (n < 1 || (g->probe_guids.n && !spgo_kmap_find(&g->probe_guids, &fr[n - 1].guid)))
		return SPGO_NONE; /* a record llvm-profgen does not decode */
	/* A call site of id 0 is unknown (the call's probe was lost, e.g. in
	 * a function that was itself optimized): the context starts below it,
	 * at the function called there, as llvm-profgen cuts it. */
	for (int j = 1; j < n; j++)
		if (fr[j].probe == 0) {
			n = j;
			break;
		}
	uint32_t f = spgo_func_get_id(g->p, probe_name_id(g, &fr[n - 1]));
	spgo_add_total(g->p, f, total);
	set_checksum(g, f, fr[n - 1].guid);
	for (int j = n - 1; j > 0; j--) {
		/* fr[j].probe is the call site in fr[j] of fr[j - 1]. */
		f = spgo_inlinee_get_id(g->p, f, fr[j].probe, 0, probe_name_id(g, &fr[j - 1]));
		spgo_add_total(g->p, f, total);
		set_checksum(g, f, fr[j - 1].guid);
	}
	return f;
}

/* 1 if any probe lies in [start, end). */
static int has_probes(struct gen *g, uint64_t start, uint64_t end)
{
	size_t n, lo;
	const struct spgo_probe *p = spgo_binary_probes(g->bin, &n);
	SPGO_LOWER_BOUND(lo, p, n, addr, start);
	return lo < n && p[lo].addr < end;
}

static void profiled_guid(struct gen *g, const struct spgo_function *fn)
{
	if (fn && fn->has_debug) {
		uint64_t guid = spgo_guid(fn->name);
		spgo_kmap_upsert(&g->probe_guids, &guid);
	}
}

void gen_probe_decoded(struct gen *g)
{
	const struct spgo_function *fn = NULL;
	for (size_t i = 0; i < g->ninsns; i++) {
		if (!g->present[i])
			continue;
		uint64_t a = g->insns[i].addr;
		if (fn && a >= fn->start && a < fn->end)
			continue;
		fn = spgo_binary_function_at(g->bin, a);
		profiled_guid(g, fn);
	}
	/* (exact counts, spgo_gen_truth, have no aggregate: every function
	 * that made a call ran, so it has counts) */
	if (!g->agg)
		return;
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&g->agg->branches, &it, &key, &val);)
		for (int e = 0; e < 2; e++)
			if (key[e] != SPGO_AGG_EXTERNAL)
				profiled_guid(g, spgo_binary_function_at(g->bin, key[e]));
}

void gen_probe_bodies(struct gen *g)
{
	const struct spgo_function *fn = NULL;
	int fn_probes = 0;
	for (size_t i = 0; i < g->ninsns; i++) {
		if (!g->present[i])
			continue;
		uint64_t a = g->insns[i].addr, c = g->count[i];
		/* The statistics: counts in functions that have probes, and in
		 * those that have none (built without, or asm). */
		if (!fn || a < fn->start || a >= fn->end) {
			fn = spgo_binary_function_at(g->bin, a);
			fn_probes = fn && has_probes(g, fn->start, fn->end);
		}
		if (fn_probes)
			g->st->count_debug += c;
		else
			g->st->count_no_debug += c;
		size_t n;
		const struct spgo_probe *p = spgo_binary_probes_at(g->bin, a, &n);
		for (size_t k = 0; k < n; k++) {
			uint32_t f = probe_profile(g, &p[k], c);
			if (f == SPGO_NONE) {
				g->st->probe_undecoded += c;
				continue;
			}
			spgo_add_body(g->p, f, p[k].index, p[k].discriminator, c);
			if (p[k].index == 1)
				spgo_add_head(g->p, f, c);
		}
	}
}

void gen_probe_call(struct gen *g, uint64_t addr, const char *callee, uint64_t count)
{
	size_t n;
	const struct spgo_probe *p = spgo_binary_probes_at(g->bin, addr, &n);
	/* The first call probe at the call (several only when same-named
	 * static functions share a GUID). */
	for (size_t k = 0; k < n; k++) {
		if (p[k].type != SPGO_PROBE_DIRECT_CALL && p[k].type != SPGO_PROBE_INDIRECT_CALL)
			continue;
		uint32_t f = probe_profile(g, &p[k], 0);
		if (f == SPGO_NONE)
			return;
		uint32_t b = spgo_body_get(g->p, f, p[k].index, 0);
		spgo_add_target_id(g->p, b, gen_name_id(g, callee), count);
		return;
	}
}
