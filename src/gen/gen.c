/*
 * Profile generation: see spgo/gen.h.
 *
 * The driver: per-instruction counts (gen_lbr.c or gen_ip.c), then the
 * source level.  Each instruction with a count is symbolized once into its
 * inline stack; the stack, outermost first, names the top-level profile and
 * the chain of inlinee profiles down to the innermost frame, whose body
 * sample at (line offset, discriminator) keeps the largest count of the
 * location's instructions.  Then the branches into function entries give
 * call targets and head samples, and a top-level body sample is raised to
 * the sum of its call targets.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_impl.h"
#include "spgo/probe.h"
#include "spgo/infer.h"
#include "spgo/ground_truth.h"

#define MAX_FRAMES 64

void spgo_gen_defaults(struct spgo_gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->mode = SPGO_GEN_AUTO;
	o->event = -1;
}

int spgo_gen_check_infer(const char *name)
{
	if (spgo_algo_parse(name) < 0)
		return spgo_error("unknown inference algorithm '%s' (profi, mcf, fp, quadratic, none)",
				  name ? name : "");
	return 0;
}

uint32_t spgo_gen_dup_factor(uint32_t disc)
{
	struct spgo_disc d;
	spgo_disc_decode(disc, SPGO_DISC_LLVM, &d);
	return d.dup_factor;
}

/* ---- instruction and function lookups ----------------------------------- */

size_t gen_insn_lower(const struct gen *g, uint64_t addr)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, g->insns, g->ninsns, addr, addr);
	return lo;
}

long gen_insn_index(const struct gen *g, uint64_t addr)
{
	size_t i = gen_insn_lower(g, addr);
	return i < g->ninsns && g->insns[i].addr == addr ? (long)i : -1;
}

static uint64_t name_hash(const char *s)
{
	return spgo_hash_bytes(s, strlen(s));
}

static void index_functions(struct gen *g)
{
	spgo_kmap_init(&g->byname, 1);
	spgo_kmap_init(&g->touched, 1);
	spgo_kmap_init(&g->probe_guids, 1);
	g->next = xmalloc((g->nfuncs + 1) * sizeof *g->next);
	for (size_t i = g->nfuncs; i-- > 0;) {
		uint64_t h = name_hash(g->funcs[i].name);
		uint64_t *v = spgo_kmap_upsert(&g->byname, &h);
		g->next[i] = *v ? (int32_t)(*v - 1) : -1;
		*v = i + 1;
	}
}

static void free_functions(struct gen *g)
{
	spgo_kmap_free(&g->byname);
	spgo_kmap_free(&g->touched);
	spgo_kmap_free(&g->probe_guids);
	free(g->next);
}

void gen_touch_function(struct gen *g, uint64_t addr)
{
	const struct spgo_function *f = gen_function_at(g, addr);
	if (!f)
		return;
	uint64_t h = name_hash(f->name);
	uint64_t *t = spgo_kmap_upsert(&g->touched, &h);
	if (*t)
		return;
	*t = 1;
	uint64_t *v = spgo_kmap_find(&g->byname, &h);
	for (int32_t i = v ? (int32_t)(*v - 1) : -1; i >= 0; i = g->next[i]) {
		if (strcmp(g->funcs[i].name, f->name))
			continue;
		for (size_t k = gen_insn_lower(g, g->funcs[i].start);
		     k < g->ninsns && g->insns[k].addr < g->funcs[i].end; k++)
			g->present[k] = 1;
	}
}

int spgo_gen_is_entry(const char *symbol, const char *name, size_t nparts)
{
	if (nparts <= 1)
		return 1;
	size_t n = spgo_profgen_canonical_len(symbol, strlen(symbol));
	return strlen(name) == n && !memcmp(symbol, name, n);
}

/* How many parts with debug information carry f's name. */
static size_t parts_named(struct gen *g, const struct spgo_function *f)
{
	uint64_t h = name_hash(f->name);
	uint64_t *v = spgo_kmap_find(&g->byname, &h);
	size_t n = 0;
	for (int32_t i = v ? (int32_t)(*v - 1) : -1; i >= 0; i = g->next[i])
		n += g->funcs[i].has_debug && !strcmp(g->funcs[i].name, f->name);
	return n;
}

const struct spgo_function *gen_entry_at(struct gen *g, uint64_t addr)
{
	const struct spgo_function *f = gen_function_at(g, addr);
	if (!f || f->start != addr || !f->has_debug)
		return NULL;
	/* llvm-profgen's rule (spgo/gen.h): a split part (foo.cold), a
	 * coroutine's foo.resume, gcc's foo.isra.0 are entered, but are not
	 * foo's entry; foo.part.N and foo.llvm.N are. */
	if (f->parent >= 0 && !strstr(f->symbol, ".part."))
		return NULL; /* a split part the symbols or DWARF tie to its parent */
	/* GCC mode: gcc's IPA clones (foo.isra.0, foo.constprop.0) are foo
	 * entered, also beside a foo.isra.0.cold: gcc reads the profile
	 * before making them, and create_gcov counts calls into them as
	 * foo's head samples. */
	if (g->o->gcc)
		return f;
	if (!spgo_gen_is_entry(f->symbol, f->name, parts_named(g, f)))
		return NULL;
	return f;
}

/* ---- the source level ------------------------------------------------------ */

uint32_t gen_name_id(struct gen *g, const char *name)
{
	uint64_t k = (uint64_t)(uintptr_t)name;
	uint64_t *v = spgo_kmap_upsert(&g->names, &k);
	if (!*v)
		*v = (uint64_t)spgo_name_id(g->p, name, spgo_profgen_canonical_len(name, strlen(name))) + 1;
	return (uint32_t)(*v - 1);
}

struct loc {
	uint32_t line, disc;
};

static struct loc frame_loc(const struct gen *g, const struct spgo_frame *f)
{
	struct loc l;
	l.line = (f->line - f->decl_line) & 0xffff;
	l.disc = g->o->gcc ? f->discriminator : f->base_discriminator;
	return l;
}

/*
 * The profile of the innermost named frame at addr, adding `total` to the
 * total samples of every profile on the way; *leaf gets the frame.  Returns
 * SPGO_NONE when no debug information names the code at addr.
 */
static uint32_t leaf_profile(struct gen *g, uint64_t addr, uint64_t total,
			     struct spgo_frame *frames, const struct spgo_frame **leaf)
{
	int n = spgo_binary_symbolize(g->bin, addr, frames, MAX_FRAMES);
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (n <= 0 || !frames[n - 1].function)
		return SPGO_NONE;
	uint32_t f = spgo_func_get_id(g->p, gen_name_id(g, gen_top_name(g, addr, frames[n - 1].function)));
	spgo_add_total(g->p, f, total);
	int j = n - 1;
	while (j > 0 && frames[j - 1].function) {
		struct loc l = frame_loc(g, &frames[j]);
		f = spgo_inlinee_get_id(g->p, f, l.line, l.disc, gen_name_id(g, frames[j - 1].function));
		spgo_add_total(g->p, f, total);
		j--;
	}
	*leaf = &frames[j];
	return f;
}

static void gen_bodies(struct gen *g)
{
	if (g->probes) {
		gen_probe_bodies(g);
		return;
	}
	struct spgo_frame frames[MAX_FRAMES];
	for (size_t i = 0; i < g->ninsns; i++) {
		if (!g->present[i])
			continue;
		uint64_t c = g->count[i];
		const struct spgo_frame *leaf;
		uint64_t total = g->o->gcc ? c : c * g->insns[i].size;
		uint32_t f = leaf_profile(g, g->insns[i].addr, total, frames, &leaf);
		if (f == SPGO_NONE) {
			g->st->count_no_debug += c;
			continue;
		}
		g->st->count_debug += c;
		struct loc l = frame_loc(g, leaf);
		if (!g->o->gcc)
			c *= leaf->dup_factor;
		uint32_t b = spgo_body_get(g->p, f, l.line, l.disc);
		if (g->p->bodies.v[b].count < c)
			g->p->bodies.v[b].count = c;
	}
}

void gen_add_head(struct gen *g, const char *callee, uint64_t count)
{
	if (!g->probes)
		spgo_add_head(g->p, spgo_func_get_id(g->p, gen_name_id(g, callee)), count);
}

void gen_add_call(struct gen *g, uint64_t addr, const char *callee, uint64_t count)
{
	if (g->probes) {
		gen_probe_call(g, addr, callee, count);
		return;
	}
	struct spgo_frame frames[MAX_FRAMES];
	const struct spgo_frame *leaf;
	uint32_t f = leaf_profile(g, addr, 0, frames, &leaf);
	if (f == SPGO_NONE)
		return;
	struct loc l = frame_loc(g, leaf);
	uint32_t b = spgo_body_get(g->p, f, l.line, l.disc);
	spgo_add_target_id(g->p, b, gen_name_id(g, callee), count);
}

/* LBR mode: every branch into a function entry is a call (or tail call). */
static void gen_lbr_calls(struct gen *g)
{
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&g->agg->branches, &it, &key, &val);) {
		uint64_t from = key[0], to = key[1], c = *val;
		if (to == SPGO_AGG_EXTERNAL)
			continue;
		const struct spgo_function *callee = gen_entry_at(g, to);
		if (!callee)
			continue;
		/* GCC mode: only calls from and to parts above the noise floor,
		 * none from outside (create_gcov's, src/gen/gen_gcc.c) */
		if (g->emit && (from == SPGO_AGG_EXTERNAL || !gen_gcc_emitted(g, from) ||
				!gen_gcc_emitted(g, to)))
			continue;
		g->st->calls++;
		g->st->call_count += c;
		if (from != SPGO_AGG_EXTERNAL)
			gen_add_call(g, from, callee->name, c);
		gen_add_head(g, callee->name, c);
	}
}

/*
 * With the right binary every LBR range and every sampled ip starts at an
 * instruction; many that do not mean the binary is another build than the
 * one recorded (same file name, different code).
 */
static int check_mismatch(struct gen *g)
{
	const struct spgo_gen_stats *st = g->st;
	uint64_t bad, all;
	const char *what;
	if (st->mode == SPGO_GEN_LBR) {
		bad = st->ranges_off_boundary;
		all = bad + st->range_count + st->ranges_cross_jump;
		what = "LBR ranges";
	} else {
		bad = st->ip_off_boundary;
		all = st->ip_samples;
		what = "sampled instruction pointers";
	}
	if (all && bad * 10 > all)
		return spgo_error("%s: does not match the perf data: %.0f%% of the %s fall between "
				  "its instructions; pass --binary the exact build that was recorded",
				  spgo_binary_path(g->bin), 100.0 * (double)bad / (double)all, what);
	return 0;
}

/* Instruction tables, debug information; 0 or -1 with the error. */
static int gen_setup(struct gen *g, struct spgo_binary *bin, const struct spgo_gen_opts *o,
		     struct spgo_gen_stats *st)
{
	g->bin = bin;
	g->o = o;
	g->st = st;
	memset(g->st, 0, sizeof *g->st);
	const char *path = spgo_binary_path(bin);
	if (!o->gcc && !o->dwarf_lines) {
		int pr = spgo_binary_load_probes(bin);
		if (pr < 0)
			return spgo_error("%s; pass --use-dwarf-correlation for a line-based profile", spgo_errmsg());
		g->probes = g->st->probes = pr == 1;
	}
	/* Probe-based profiles need no DWARF: names come from the probe
	 * descriptors and the symbols. */
	if (spgo_binary_load_debug(bin) < 0 && !g->probes) {
		const char *looked = spgo_binary_debug_search(bin);
		return spgo_error("%s: no debug information (DWARF) to map samples to source lines: "
				  "build with -g (clang: -g -fdebug-info-for-profiling), or pass the "
				  "unstripped file or its .debug file with --debug-binary%s%s%s",
				  path, *looked ? " (" : "", looked, *looked ? ")" : "");
	}
	g->insns = spgo_binary_insns(bin, &g->ninsns);
	g->funcs = spgo_binary_functions(bin, &g->nfuncs);
	if (!g->ninsns)
		return spgo_error("%s: no instructions found in its executable sections", path);
	g->count = xcalloc(g->ninsns, sizeof *g->count);
	g->present = xcalloc(g->ninsns, 1);
	g->p = spgo_profile_new();
	spgo_kmap_init(&g->names, 1);
	gen_gcc_names(g);
	index_functions(g);
	return 0;
}

static void gen_cleanup(struct gen *g)
{
	if (!g->count)
		return;
	free_functions(g);
	gen_gcc_names_free(g);
	free(g->count);
	free(g->present);
	free(g->emit);
	free(g->weight);
	spgo_kmap_free(&g->names);
	g->count = NULL;
}

/*
 * The profile's density, as llvm-profgen's --show-density defines it: per
 * function, its samples per byte of code (here the sum over its
 * instructions of count x size, which is what a line profile's total
 * samples hold, divided by the bytes of all its parts, so that probe-based,
 * line-based and IP-mode profiles are measured alike; IP-mode counts are
 * in 1/GEN_IP_SCALE sample); the functions sorted by density; the density
 * of the one at which the densest reach 99% of all the samples.  0 when
 * nothing was counted.  Needs the per-instruction counts.
 */
static double profile_density(struct gen *g)
{
	struct spgo_kmap fn; /* canonical name hash -> 1 + index in sums */
	spgo_kmap_init(&fn, 1);
	VEC(uint64_t) sums = {0}; /* per function: samples x bytes, bytes */
	for (size_t i = 0; i < g->nfuncs; i++) {
		const char *nm = g->funcs[i].name;
		uint64_t k = spgo_hash_bytes(nm, spgo_profgen_canonical_len(nm, strlen(nm)));
		uint64_t *v = spgo_kmap_upsert(&fn, &k);
		if (!*v) {
			*v = sums.n / 2 + 1;
			VEC_PUSH(&sums, 0);
			VEC_PUSH(&sums, 0);
		}
		sums.v[2 * (*v - 1) + 1] += g->funcs[i].end - g->funcs[i].start;
	}
	const struct spgo_function *f = NULL;
	uint64_t *cur = NULL;
	for (size_t i = 0; i < g->ninsns; i++) {
		if (!g->present[i] || !g->count[i])
			continue;
		uint64_t a = g->insns[i].addr;
		if (!f || a < f->start || a >= f->end) {
			f = gen_function_at(g, a);
			cur = NULL;
			if (f) {
				uint64_t k = spgo_hash_bytes(f->name, spgo_profgen_canonical_len(f->name, strlen(f->name)));
				uint64_t *v = spgo_kmap_find(&fn, &k);
				cur = v ? &sums.v[2 * (*v - 1)] : NULL;
			}
		}
		if (cur)
			cur[0] += g->count[i] * g->insns[i].size;
	}
	size_t nf = sums.n / 2;
	double *dens = xmalloc((nf + 1) * 2 * sizeof *dens);
	size_t n = 0;
	double all = 0, scale = g->st->mode == SPGO_GEN_IP ? GEN_IP_SCALE : 1;
	for (size_t i = 0; i < nf; i++) {
		const uint64_t *v = &sums.v[2 * i];
		if (!v[0] || !v[1])
			continue;
		dens[2 * n] = (double)v[0] / scale / (double)v[1];
		dens[2 * n + 1] = (double)v[0];
		all += (double)v[0];
		n++;
	}
	/* Densest first (one entry per function: insertion into place). */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && dens[2 * (j - 1)] < dens[2 * j]; j--) {
			double d = dens[2 * j], t = dens[2 * j + 1];
			dens[2 * j] = dens[2 * (j - 1)], dens[2 * j + 1] = dens[2 * (j - 1) + 1];
			dens[2 * (j - 1)] = d, dens[2 * (j - 1) + 1] = t;
		}
	double acc = 0, density = 0;
	for (size_t i = 0; i < n; i++) {
		acc += dens[2 * i + 1];
		density = dens[2 * i];
		if (acc >= 0.99 * all)
			break;
	}
	free(dens);
	VEC_FREE(&sums);
	spgo_kmap_free(&fn);
	return density;
}

/*
 * After the per-instruction counts (rc: how that went): bodies, calls (the
 * mode's calls function), the finishing rules; *out gets the profile.
 */
static int gen_finish(struct gen *g, int rc, void (*calls)(struct gen *), struct spgo_profile **out)
{
	const char *path = spgo_binary_path(g->bin);
	if (rc == 0 && spgo_binary_line_errors(g->bin)) {
		/* Samples in code whose line table is damaged would be
		 * attributed to wrong or missing lines: refuse. */
		uint64_t bad = 0;
		for (size_t i = 0; i < g->ninsns; i++)
			bad += g->present[i] && spgo_binary_line_damaged(g->bin, g->insns[i].addr);
		if (bad)
			rc = spgo_error("%s: %llu sampled instructions lie in compile units whose line table "
					"could not be read (see the warnings above); a profile from them would "
					"be wrong: rebuild the binary, or pass its intact debug file with "
					"--debug-binary",
					path, (unsigned long long)bad);
	}
	if (rc == 0) {
		if (g->probes)
			gen_probe_decoded(g);
		gen_bodies(g);
		calls(g);
		g->st->density = profile_density(g);
		if (!g->o->gcc) /* create_gcov does not raise them */
			spgo_profgen_raise_to_targets(g->p);
		/* llvm-profgen --update-total-samples: totals from the bodies,
		 * once raised to their call targets */
		if (g->o->update_totals)
			spgo_profile_finalize(g->p, SPGO_FIN_TOTALS | SPGO_FIN_NO_SUMMARY);
	}
	gen_cleanup(g);
	if (rc < 0) {
		spgo_profile_free(g->p);
		return -1;
	}

	/* Drop the ambiguous profiles (rebuilding is simpler than deleting). */
	int drop = 0;
	for (size_t i = 0; i < g->p->top.n; i++)
		drop |= spgo_profgen_ambiguous(spgo_name(g->p, g->p->funcs.v[g->p->top.v[i]].name));
	if (drop) {
		struct spgo_profile *q = spgo_profile_new();
		for (size_t i = 0; i < g->p->top.n; i++) {
			uint32_t f = g->p->top.v[i];
			const char *nm = spgo_name(g->p, g->p->funcs.v[f].name);
			if (!spgo_profgen_ambiguous(nm))
				spgo_func_merge(q, spgo_func_get(q, nm), g->p, f, 1, NULL);
		}
		spgo_profile_free(g->p);
		g->p = q;
	}

	if (!spgo_profile_has_samples(g->p)) {
		spgo_profile_free(g->p);
		if (g->st->parts_below_floor)
			return spgo_error("%s: every part of code with samples is at or below create_gcov's "
					  "noise floor (weight %llu; %llu parts): too few samples for a gcov "
					  "profile: record longer or at a higher rate",
					  path, (unsigned long long)g->st->floor,
					  (unsigned long long)g->st->parts_below_floor);
		if (g->st->count_no_debug)
			return spgo_error("%s: the samples fall only in code without debug information "
					  "(no DWARF line for any sampled instruction): build the profiled "
					  "program with -g, or pass its debug file with --debug-binary",
					  path);
		return spgo_error("%s: no sample could be attributed to the binary's code (%s): "
				  "check that the data was recorded from this exact build",
				  path,
				  g->st->mode == SPGO_GEN_LBR ? "every LBR range was impossible for this binary"
				  : g->st->mode == SPGO_GEN_IP ? "no IP sample inside a known function"
							       : "no executed instruction with debug information");
	}
	if (!g->o->gcc && !g->probes && spgo_binary_disc_kind(g->bin) == SPGO_DISC_LLVM_FS)
		g->p->flags |= SPGO_PROF_FS; /* as llvm-profgen marks them */
	if (g->probes)
		g->p->flags |= SPGO_PROF_PROBE;
	spgo_profile_finalize(g->p, 0);
	g->st->functions = g->p->top.n;
	*out = g->p;
	return 0;
}

int spgo_gen(struct spgo_aggregate *agg, const struct spgo_gen_opts *o, struct spgo_profile **out,
	     struct spgo_gen_stats *stats)
{
	struct spgo_gen_stats local;
	struct gen g = {0};
	*out = NULL;
	g.agg = agg;
	int matched = spgo_agg_check_matched(agg);
	if (matched == -2) /* (its error says what to do) */
		return -1;
	if (matched < 0) {
		char *why = xstrdup(spgo_errmsg());
		spgo_error("%s; pass --binary the program that was recorded (the same build: "
			   "its build-id or file name must match the data)", why);
		free(why);
		return -1;
	}
	enum spgo_gen_mode mode = o->mode;
	if (mode == SPGO_GEN_AUTO)
		mode = agg->ranges.n || agg->branches.n ? SPGO_GEN_LBR : SPGO_GEN_IP;
	if (mode == SPGO_GEN_LBR && !agg->ranges.n && !agg->branches.n)
		return spgo_error("%s: the samples have no branch stacks (LBR) in this binary: record "
				  "with `perf record -b` (or `spgo record`), or use IP mode (--mode ip)",
				  spgo_binary_path(agg->bin));
	if (gen_setup(&g, agg->bin, o, stats ? stats : &local) < 0) {
		gen_cleanup(&g);
		return -1;
	}
	g.st->mode = mode;
	/* Never a silent change of mode: data with branch stacks that gives
	 * an IP-mode profile says so. */
	uint64_t lbr = agg->stats.lbr_samples;
	if (mode == SPGO_GEN_IP && lbr && o->mode == SPGO_GEN_IP)
		spgo_warn("%llu samples have branch stacks (LBR); --mode ip leaves them out and writes "
			  "an IP-mode profile",
			  (unsigned long long)lbr);
	else if (mode == SPGO_GEN_IP && lbr)
		spgo_warn("%llu samples have branch stacks (LBR), but no branch of them falls in %s: "
			  "writing an IP-mode profile from the sampled addresses instead (the LBR "
			  "addresses are not this binary's, or are runtime addresses of a PIE without "
			  "their mmap events: perf script --show-mmap-events)",
			  (unsigned long long)lbr, spgo_binary_path(agg->bin));
	int rc = mode == SPGO_GEN_LBR ? gen_lbr_counts(&g) : gen_ip_counts(&g);
	if (rc == 0)
		rc = check_mismatch(&g);
	/* llvm-profgen's --fill-zero-for-all-funcs: every function present,
	 * with zero counts where nothing ran */
	if (rc == 0 && mode == SPGO_GEN_LBR && o->fill_zero)
		for (size_t i = 0; i < g.nfuncs; i++)
			gen_touch_function(&g, g.funcs[i].start);
	return gen_finish(&g, rc, mode == SPGO_GEN_LBR ? gen_lbr_calls : gen_ip_calls, out);
}

/* Ground truth: control transfers into function entries are the calls. */
static void gen_truth_calls(struct gen *g)
{
	const struct spgo_gt_dso *d = g->truth;
	for (size_t e = 0; e < d->n_edges; e++) {
		const struct spgo_gt_edge *x = &d->edges[e];
		if (x->to == SPGO_GT_OUTSIDE || x->kind != 'T' || !x->count)
			continue;
		const struct spgo_function *callee = gen_entry_at(g, x->to);
		if (!callee)
			continue;
		g->st->calls++;
		g->st->call_count += x->count;
		if (x->from != SPGO_GT_OUTSIDE)
			gen_add_call(g, x->from, callee->name, x->count);
		gen_add_head(g, callee->name, x->count);
	}
}

int spgo_gen_truth(struct spgo_binary *bin, const struct spgo_gt_dso *truth,
		   const struct spgo_gen_opts *o, struct spgo_profile **out,
		   struct spgo_gen_stats *stats)
{
	struct spgo_gen_stats local;
	struct gen g = {0};
	*out = NULL;
	if (gen_setup(&g, bin, o, stats ? stats : &local) < 0) {
		gen_cleanup(&g);
		return -1;
	}
	g.st->mode = SPGO_GEN_AUTO;
	int rc = 0;
	for (size_t i = 0; i < truth->n_insns; i++) {
		long k = gen_insn_index(&g, truth->insns[i].addr);
		if (k < 0) {
			g.st->ranges_off_boundary += truth->insns[i].count;
			continue;
		}
		g.count[k] = truth->insns[i].count;
		g.present[k] = 1;
		gen_touch_function(&g, truth->insns[i].addr);
		g.st->insns_counted++;
	}
	if (g.st->ranges_off_boundary)
		rc = spgo_error("%s: the ground truth names instructions this binary does not have: "
				"pass the binary the truth was recorded from",
				spgo_binary_path(bin));
	g.truth = truth;
	return gen_finish(&g, rc, gen_truth_calls, out);
}

const char *spgo_gen_more_samples(const struct spgo_aggregate *agg)
{
	const struct spgo_agg_stats *a = spgo_agg_stats(agg);
	if (a->emulated)
		return "emulate a longer run, or sample more often (a smaller spgo emulate -c period; "
		       "its default is 20011 taken branches)";
	if (a->lbr_samples || a->ranges || a->branches) /* LBR data already */
		return "record longer, or take more samples (a smaller period: perf record -b -c N, or a "
		       "higher -F)";
	return "record longer or at a higher rate (perf record -F above perf's default 4000, or a "
	       "smaller -c), and record branch stacks where the CPU has them (perf record -b; spgo "
	       "record picks them when it can; spgo emulate where the CPU has none)";
}

void spgo_gen_print_stats(const struct spgo_gen_stats *st, const struct spgo_aggregate *agg,
			  FILE *fp)
{
	const struct spgo_agg_stats *a = spgo_agg_stats(agg);
	size_t nm;
	const struct spgo_agg_match *m = spgo_agg_matches(agg, &nm);
	/* Samples whose ip is elsewhere but whose branches are in the binary
	 * are used all the same (LBR mode): said, not lumped with the rest. */
	char used[96] = "";
	if (st->mode == SPGO_GEN_LBR && a->samples_unmatched_lbr)
		snprintf(used, sizeof used, "; %llu of them used for their branch stacks",
			 (unsigned long long)a->samples_unmatched_lbr);
	/* An llvm-profgen unsymbolized profile holds ranges and branches with
	 * their counts but no samples: there is no sample count to show, nor
	 * a share of them in the binary. */
	if (!a->samples && (a->ranges || a->branches))
		fprintf(fp, "spgo: gen: the input has no sample counts (ranges and branches only, as "
			    "llvm-profgen's unsymbolized profiles)\n");
	else
		fprintf(fp, "spgo: gen: %llu samples, %llu in the binary%s%s%s, %llu elsewhere (%llu in no mapping%s), %llu lost\n",
			(unsigned long long)a->samples, (unsigned long long)a->samples_matched,
			nm ? " (matched by " : "", nm ? m[0].how : "", nm ? ")" : "",
			(unsigned long long)a->samples_unmatched, (unsigned long long)a->samples_unmapped,
			used, (unsigned long long)a->lost);
	if (a->samples_other_event)
		fprintf(fp, "spgo: gen: %llu samples of other events left out (--event)\n",
			(unsigned long long)a->samples_other_event);
	if (st->mode == SPGO_GEN_LBR) {
		fprintf(fp, "spgo: gen: LBR mode: %llu ranges used (count %llu); dropped: %llu reversed, %llu outside the binary, %llu off instruction boundaries, %llu across a jump, call or return\n",
			(unsigned long long)st->ranges, (unsigned long long)st->range_count,
			(unsigned long long)a->ranges_reversed, (unsigned long long)a->ranges_external,
			(unsigned long long)st->ranges_off_boundary,
			(unsigned long long)st->ranges_cross_jump);
		fprintf(fp, "spgo: gen: %llu calls into function entries (count %llu)\n",
			(unsigned long long)st->calls, (unsigned long long)st->call_count);
		if (a->lbr_wrong_path)
			fprintf(fp, "spgo: gen: %llu branch records of mispredicted paths left out (AMD "
				    "LbrExtV2's speculative records, which never retired)\n",
				(unsigned long long)a->lbr_wrong_path);
		if (a->lbr_zero)
			fprintf(fp, "spgo: gen: %llu branch records with a zero address (BRBE's system calls and "
				    "exceptions: the kernel's end is not recorded) taken as leading outside the "
				    "binary\n", (unsigned long long)a->lbr_zero);
	} else {
		fprintf(fp, "spgo: gen: IP mode: %llu samples, %llu outside known functions; %llu blocks%s, %llu where events disagree; %llu inference results that lost the samples\n",
			(unsigned long long)st->ip_samples, (unsigned long long)st->ip_samples_no_func,
			(unsigned long long)st->blocks, st->inferred ? " (inferred)" : "",
			(unsigned long long)st->blocks_disagree, (unsigned long long)st->infer_lost);
	}
	if (st->floor)
		fprintf(fp, "spgo: gen: gcov: create_gcov's noise floor (weight %llu) leaves out %llu part%s "
			    "of code with samples\n",
			(unsigned long long)st->floor, (unsigned long long)st->parts_below_floor,
			st->parts_below_floor == 1 ? "" : "s");
	if (agg) {
		char share[64] = ""; /* (none without sample counts) */
		if (a->samples)
			snprintf(share, sizeof share, "; %.1f%% of the samples fell in the binary",
				 100.0 * (double)a->samples_matched / (double)a->samples);
		fprintf(fp, "spgo: gen: profile density %.3g (the densest functions holding 99%% of the samples "
			    "have at least %.3g samples per byte of code)%s\n",
			st->density, st->density, share);
		/* llvm-profgen's threshold: below it, clang's hot/cold decisions
		 * rest on too few samples. */
		double min = spgo_gen_density_min(st->mode);
		if (st->density > 0 && st->density < min)
			spgo_warn("the profile is sparse (density %.3g < %.3g): the compiler would optimize better "
				  "with about %.0fx more samples: %s",
				  st->density, min, min / st->density + 0.5, spgo_gen_more_samples(agg));
	}
	if (st->probe_undecoded)
		fprintf(fp, "spgo: gen: %llu instruction counts at probes of records llvm-profgen does not read "
			    "(another function's, left in sampled code) left out\n",
			(unsigned long long)st->probe_undecoded);
	uint64_t all = st->count_debug + st->count_no_debug;
	fprintf(fp, "spgo: gen: %llu functions%s; %.1f%% of the instruction counts in code without %s (ignored)\n",
		(unsigned long long)st->functions, st->probes ? " (probe-based)" : "", all ? 100.0 * (double)st->count_no_debug / (double)all : 0.0,
		st->probes ? "pseudo-probes" : "debug information");
}
