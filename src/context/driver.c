/*
 * Context-sensitive generation, start to end (see spgo/context.h): check
 * the binary (probes or DWARF lines), take the samples' stacks as they
 * stream in or from the aggregate, unwind them into the frame trie
 * (unwind.c; ip.c without LBR), make the profile of the trie (profile.c
 * for lines, probe.c for probes), pre-inline (preinline.c), merge the cold
 * contexts, and print the statistics.
 */
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"
#include "spgo/probe.h"

void spgo_cs_defaults(struct spgo_cs_opts *o)
{
	memset(o, 0, sizeof *o);
	o->infer_missing_frames = -1;
	o->compress_recursion = -1;
	o->max_context_depth = -1;
	o->merge_cold = -1;
	o->max_cold_depth = 1;
	o->hot_count = -1;
	o->cutoff_hot = 990000;
	o->unwind_thread = 1;
	spgo_preinline_defaults(&o->pre);
}

/*
 * Which kind of profile: probe-based when the binary has pseudo-probes and
 * DWARF lines were not asked for (as llvm-profgen), else line-based; 1
 * probes, 0 lines, -1 with the error.
 */
static int check_inputs(struct spgo_binary *bin, const struct spgo_cs_opts *o)
{
	const char *path = spgo_binary_path(bin);
	int probes = 0;
	if (!o->dwarf_lines) {
		probes = spgo_binary_load_probes(bin);
		if (probes < 0)
			return spgo_error("%s; pass --use-dwarf-correlation for a profile keyed by DWARF "
					  "lines",
					  spgo_errmsg());
	}
	/* Probe-based: names come from the probe descriptors; DWARF (if
	 * any) only names call targets. */
	if (spgo_binary_load_debug(bin) < 0 && !probes) {
		const char *looked = spgo_binary_debug_search(bin);
		return spgo_error("%s: no debug information (DWARF) to map samples to source lines: "
				  "build with -g (clang: -g -fdebug-info-for-profiling), or pass the "
				  "unstripped file or its .debug file with --debug-binary%s%s%s",
				  path, *looked ? " (" : "", looked, *looked ? ")" : "");
	}
	if (!probes && spgo_binary_disc_kind(bin) == SPGO_DISC_LLVM_FS)
		return spgo_error("%s: flow-sensitive discriminators are not supported in context-sensitive "
				  "profiles (as in llvm-profgen): build without -mllvm -enable-fs-discriminator",
				  path);
	return probes;
}

/*
 * The unwinding state of one generation: the code facts, the frame trie and
 * what the samples' stacks end in.  Filled either from the stacks an
 * aggregate kept (spgo_cs_gen) or while the samples stream in
 * (spgo_cs_stream_begin: the aggregate hands each sample over and keeps
 * none).  Unwinding is additive in the counts, so both give the same trie.
 */
/* Distinct samples the aggregate keeps before it hands them over: identical
 * samples close in time are unwound once. */
#define CS_STREAM_BYTES (16u << 20)

struct spgo_cs_stream {
	struct spgo_cs_opts eff;
	struct spgo_binary *bin;
	int code_state; /* code facts: 0 not made yet, 1 made, -1 failed */
	int probes, with_lbr;
	struct spgo_cs_stats st;
	struct spgo_cs_code code;
	struct spgo_cs_trie trie;
	struct spgo_kmap roots; /* outermost function + 1 -> samples */
	struct cs_ip *ip;       /* the stack samples without LBR (ip.c), if any */
	const struct spgo_unsym_bin *ctx_src; /* unsymbolized contexts to add, if any */
};

/* Check the binary, set up the trie (the code facts come with the first
 * sample, stream_code): 0, or -1 with the error. */
static int stream_init(struct spgo_cs_stream *cs, struct spgo_binary *bin, const struct spgo_cs_opts *o)
{
	memset(cs, 0, sizeof *cs);
	int probes = check_inputs(bin, o);
	if (probes < 0)
		return -1;
	cs->probes = probes;
	cs->st.probes = probes;
	/* llvm-profgen 19 infers missing frames by default for probe-based
	 * profiles only. */
	cs->eff = *o;
	if (cs->eff.infer_missing_frames < 0)
		cs->eff.infer_missing_frames = probes;
	/* (the code facts -- disassembling the binary -- when the first
	 * sample comes: on the unwinding thread while reading goes on) */
	cs->bin = bin;
	spgo_cs_trie_init(&cs->trie, &cs->code, &cs->eff, &cs->st);
	cs->trie.probes = probes;
	spgo_kmap_init(&cs->roots, 1);
	return 0;
}

static void stream_release(struct spgo_cs_stream *cs)
{
	spgo_cs_trie_free(&cs->trie);
	cs_ip_free(cs->ip);
	cs->ip = NULL;
	spgo_cs_code_free(&cs->code);
	spgo_kmap_free(&cs->roots);
}

/*
 * One stack sample: count where its stack ends, then unwind it.
 * Truncated stacks (perf's --max-stack, a broken frame chain): a complete
 * stack ends in the program's outermost function (_start) or in external
 * code (a thread started by libc).  Stacks ending inside the program in
 * another function are counted: their contexts start at the cut, as
 * llvm-profgen takes them too.  The outermost function is the one holding
 * the ELF entry point (_start); in a binary without one (a library), the
 * one most stacks end in.  (Not the most frequent end alone: where stacks
 * are often broken -- C++ exceptions unwound by libgcc, which keeps no
 * frame pointers -- most of them can end in one function inside the
 * program.)
 */
/* The code facts, made on first use: 1, or 0 when they cannot be (the
 * error said so in the thread that tried). */
static int stream_code(struct spgo_cs_stream *cs)
{
	if (!cs->code_state)
		cs->code_state = spgo_cs_code_init(&cs->code, cs->bin) < 0 ? -1 : 1;
	return cs->code_state > 0;
}

static void stream_sample(struct spgo_cs_stream *cs, const struct spgo_agg_stack *s)
{
	if (!stream_code(cs))
		return; /* (spgo_cs_gen reports it) */
	if (s->nframes && s->frames[s->nframes - 1] != SPGO_AGG_EXTERNAL) {
		uint64_t f = (uint64_t)(cs_func_of(&cs->code, s->frames[s->nframes - 1]) + 1);
		*spgo_kmap_upsert(&cs->roots, &f) += s->count;
	}
	cs->with_lbr |= s->nbranches > 0;
	spgo_cs_unwind(&cs->trie, s);
	if (!s->nbranches) { /* for a profile from IP samples, if no sample has LBR */
		if (!cs->ip)
			cs->ip = cs_ip_new(&cs->code, &cs->eff, &cs->st);
		cs_ip_add(cs->ip, s);
	}
}

static void stream_cb(void *ctx, const struct spgo_agg_stack *s) { stream_sample(ctx, s); }

static void count_truncated(struct spgo_cs_stream *cs)
{
	struct spgo_cs_stats *st = &cs->st;
	const uint64_t *key;
	uint64_t *val;
	if (cs->code_state <= 0)
		return;
	uint64_t entry = spgo_binary_entry(cs->bin);
	long f = entry ? cs_func_of(&cs->code, entry) : -1;
	uint64_t root = f >= 0 ? (uint64_t)f + 1 : 0, most = 0, total = 0;
	for (size_t it = 0; spgo_kmap_next(&cs->roots, &it, &key, &val);) {
		total += *val;
		if (f < 0 && (*val > most || (*val == most && key[0] < root)))
			root = key[0], most = *val;
	}
	for (size_t it = 0; spgo_kmap_next(&cs->roots, &it, &key, &val);)
		if (key[0] == root)
			total -= *val;
	st->truncated += total;
	if (root && st->truncated)
		snprintf(st->root_func, sizeof st->root_func, "%s", cs->code.funcs[root - 1].name);
}

struct spgo_cs_stream *spgo_cs_stream_begin(struct spgo_aggregate *agg, const struct spgo_cs_opts *o)
{
	struct spgo_cs_opts defaults;
	if (!o) {
		spgo_cs_defaults(&defaults);
		o = &defaults;
	}
	struct spgo_cs_stream *cs = xmalloc(sizeof *cs);
	if (stream_init(cs, agg->bin, o) < 0) {
		free(cs);
		return NULL;
	}
	spgo_agg_on_stack(agg, stream_cb, cs, CS_STREAM_BYTES);
	if (o->unwind_thread)
		spgo_agg_on_stack_thread(agg); /* (else in this thread) */
	return cs;
}

void spgo_cs_stream_free(struct spgo_cs_stream *cs)
{
	if (!cs)
		return;
	stream_release(cs);
	free(cs);
}

/*
 * Unwinding to its end: the samples the aggregate still keeps go to the
 * stream (streamed), or every stack sample to own, set up here; the stream
 * used, or NULL with the error.
 */
static struct spgo_cs_stream *cs_unwind(struct spgo_aggregate *agg, struct spgo_cs_stream *streamed,
					const struct spgo_cs_opts *o, struct spgo_cs_stream *own)
{
	if (streamed) /* the samples still kept come to the stream now */
		spgo_agg_on_stack(agg, NULL, NULL, 0);
	struct spgo_binary *bin = agg->bin;
	const char *path = spgo_binary_path(bin);
	if (spgo_agg_check_matched(agg) < 0)
		return NULL;
	const struct spgo_agg_stats *as = spgo_agg_stats(agg);
	const struct spgo_unsym_bin *ctx_src = streamed ? streamed->ctx_src : NULL;
	if (!as->stack_samples && !(ctx_src && ctx_src->ctxs.n))
		return spgo_error("%s: the samples have no call stacks in this binary: a context-sensitive "
				  "profile needs call stacks, with LBR (perf record -b -g; spgo record and "
				  "spgo emulate record both) or without (perf record --call-graph fp, spgo "
				  "record --call-graph fp, on a build with -fno-omit-frame-pointer; "
				  "--call-graph dwarf stacks are not unwound here)",
				  path), NULL;
	struct spgo_cs_stream *cs = streamed;
	if (!cs) {
		if (stream_init(own, bin, o) < 0)
			return NULL;
		cs = own;
	}
	if (cs->code_state < 0)
		cs->code_state = 0; /* failed on the unwinding thread: again here, for the error */
	if (!stream_code(cs)) {
		if (!streamed)
			stream_release(cs);
		return NULL;
	}
	/* Stacks the aggregate kept (all of them unless streamed). */
	struct spgo_agg_stack s;
	for (size_t it = 0; spgo_agg_next_stack(agg, &it, &s);)
		stream_sample(cs, &s);
	count_truncated(cs);
	if (ctx_src && ctx_src->ctxs.n) { /* (while the frame index lives) */
		if (cs_trie_add_contexts(&cs->trie, bin, ctx_src, cs->probes) < 0) {
			if (!streamed)
				stream_release(cs);
			return NULL;
		}
		cs->with_lbr = 1;
	}
	/* Unwinding is over: the trie's frame index is no longer needed. */
	spgo_kmap_free(&cs->trie.index);
	free(cs->trie.kcache);
	cs->trie.kcache = NULL;
	return cs;
}

static int cs_gen(struct spgo_aggregate *agg, struct spgo_cs_stream *streamed,
		  const struct spgo_cs_opts *o, struct spgo_profile **out, struct spgo_cs_stats *st_out)
{
	struct spgo_cs_stats local;
	struct spgo_cs_opts defaults;
	if (!st_out)
		st_out = &local;
	if (!o) {
		spgo_cs_defaults(&defaults);
		o = &defaults;
	}
	memset(st_out, 0, sizeof *st_out);
	*out = NULL;
	struct spgo_cs_stream own, *cs = cs_unwind(agg, streamed, o, &own);
	if (!cs)
		return -1;
	struct spgo_binary *bin = agg->bin;
	const char *path = spgo_binary_path(bin);
	struct spgo_cs_stats *st = &cs->st;
	struct spgo_cs_opts eff = cs->eff;
	struct spgo_cs_code *code = &cs->code;
	int probes = cs->probes, with_lbr = cs->with_lbr;
	struct spgo_cs_trie *trie = &cs->trie;
	int rc = 0;
	if (!with_lbr) {
		/* IP samples with call stacks: contexts from the stacks, counts
		 * from block averages per context (ip.c). */
		st->ip_mode = 1;
		st->samples = st->ip_samples;
		st->no_lbr = 0;
		if (!cs->ip || !st->ip_counted)
			rc = spgo_error("%s: none of the %llu stack samples without LBR has its leaf in the "
					"binary's code outside prologues and epilogues (%llu outside it, %llu in "
					"a prologue or epilogue): check that the data was recorded from this "
					"exact build",
					path, (unsigned long long)st->ip_samples,
					(unsigned long long)st->ip_ext_leaf, (unsigned long long)st->ip_proepi);
		else if (!st->ip_callers)
			rc = spgo_error("%s: the %llu IP samples have no caller frame in the binary: their call "
					"stacks hold only the sampled ip (perf record --call-graph dwarf keeps the "
					"stack for unwinding by DWARF, which the context stage does not do) or no "
					"frame-pointer chain; record with --call-graph fp (spgo record --call-graph "
					"fp) a build with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer, or "
					"record LBR (perf record -b -g, spgo emulate)",
					path, (unsigned long long)st->ip_counted);
		else if (cs_ip_build(cs->ip, bin, &eff, probes) < 0)
			rc = -1;
		else {
			st->unwound = st->ip_counted;
			trie = cs_ip_trie(cs->ip);
		}
	} else if (!st->unwound && !(cs->ctx_src && cs->ctx_src->ctxs.n))
		rc = spgo_error("%s: none of the %llu stack samples could be unwound (%llu without an LBR "
				"entry in the binary, %llu in a prologue or epilogue): check that the data "
				"was recorded from this exact build",
				path, (unsigned long long)st->samples, (unsigned long long)st->no_lbr,
				(unsigned long long)st->prolog_epilog);
	struct spgo_profile *q = NULL;
	if (rc == 0) {
		struct spgo_profile *p = probes ? cs_probe_profile(bin, code, trie, &eff, st)
						: cs_line_profile(bin, code, trie, &eff, st);
		st->contexts = p->top.n;
		/* the hot threshold of the context-less summary, before the
		 * pre-inliner moves contexts (as llvm-profgen) */
		spgo_profile_finalize(p, 0);
		uint64_t thr = cs_hot_threshold(p, &eff);
		if (eff.merge_cold < 0) /* llvm-profgen: off with the pre-inliner */
			eff.merge_cold = !eff.preinline;
		if (eff.preinline) {
			/* llvm-profgen 19: the pre-inliner, then no cold-context
			 * merging unless asked (not offered here) */
			struct spgo_inline_sizes *sz = cs_trie_sizes(bin, code, trie, probes,
								     eff.pre.zero_callers);
			st->size_contexts = spgo_inline_sizes_print(sz, NULL);
			spgo_cs_trie_free(trie); /* done with (see below) */
			spgo_profile_finalize(p, 0);
			struct spgo_profile *pi = spgo_cs_preinline(p, sz, &eff.pre, &st->pre);
			spgo_inline_sizes_free(sz);
			spgo_profile_free(p);
			p = pi;
		}
		/* The trie is done with: its memory back before merging copies
		 * the profile. */
		spgo_cs_trie_free(trie);
		q = cs_merge_cold(p, &eff, thr, eff.preinline, st);
		spgo_profile_free(p);
		if (!spgo_profile_has_samples(q)) {
			spgo_profile_free(q);
			q = NULL;
			if (probes)
				rc = spgo_error("%s: the unwound samples fall only in code without pseudo-probes "
						"(%llu sampled ranges in functions without probes): build every "
						"file with -fpseudo-probe-for-profiling, or pass "
						"--use-dwarf-correlation for a profile keyed by DWARF lines",
						path, (unsigned long long)st->ranges_no_probe);
			else
				rc = spgo_error("%s: the unwound samples fall only in code without debug "
						"information (no DWARF line for any sampled instruction): build "
						"with -g, or pass the debug file with --debug-binary",
						path);
		}
	}
	*st_out = *st;
	if (!streamed)
		stream_release(cs);
	if (rc < 0)
		return -1;
	spgo_profile_finalize(q, 0);
	*out = q;
	return 0;
}

int spgo_cs_gen(struct spgo_aggregate *agg, const struct spgo_cs_opts *o, struct spgo_profile **out,
		struct spgo_cs_stats *st)
{
	return cs_gen(agg, NULL, o, out, st);
}

int spgo_cs_stream_gen(struct spgo_cs_stream *cs, struct spgo_aggregate *agg,
		       struct spgo_profile **out, struct spgo_cs_stats *st)
{
	return cs_gen(agg, cs, &cs->eff, out, st);
}

void spgo_cs_stream_contexts(struct spgo_cs_stream *cs, const struct spgo_unsym_bin *s)
{
	cs->ctx_src = s;
}

/* The unwound trie of cs as contexts of s (spgo_cs_stream_unsym). */
static int cs_contexts(struct spgo_cs_stream *cs, struct spgo_aggregate *agg, struct spgo_unsym_bin *s,
		       struct spgo_cs_stats *st)
{
	*st = cs->st;
	const char *path = spgo_binary_path(agg->bin);
	if (!cs->with_lbr)
		return spgo_error("%s: the stack samples have no LBR: llvm-profgen's unsymbolized contexts "
				  "are unwound LBR ranges and branches (record with perf record -b -g)",
				  path);
	if (!st->unwound)
		return spgo_error("%s: none of the %llu stack samples could be unwound (%llu without an LBR "
				  "entry in the binary, %llu in a prologue or epilogue): check that the data "
				  "was recorded from this exact build",
				  path, (unsigned long long)st->samples, (unsigned long long)st->no_lbr,
				  (unsigned long long)st->prolog_epilog);
	cs_unsym_contexts(agg->bin, &cs->code, &cs->trie, &cs->eff, &cs->st, cs->probes, s);
	st->frames = cs->trie.nodes.n;
	st->contexts = s->ctxs.n;
	return 0;
}

int spgo_cs_stream_unsym(struct spgo_cs_stream *streamed, struct spgo_aggregate *agg,
			 const struct spgo_cs_opts *o, struct spgo_unsym_bin *s, struct spgo_cs_stats *st)
{
	memset(st, 0, sizeof *st);
	struct spgo_cs_opts defaults;
	if (!o) {
		spgo_cs_defaults(&defaults);
		o = &defaults;
	}
	struct spgo_cs_stream own, *cs = cs_unwind(agg, streamed, streamed ? &streamed->eff : o, &own);
	if (!cs)
		return -1;
	int rc = cs_contexts(cs, agg, s, st);
	if (!streamed)
		stream_release(cs);
	return rc;
}

int spgo_cs_rerun(struct spgo_profile *p, const struct spgo_cs_opts *o, struct spgo_profile **out)
{
	struct spgo_cs_opts eff = *o;
	struct spgo_cs_stats st;
	memset(&st, 0, sizeof st);
	if (!(p->flags & SPGO_PROF_CS))
		return spgo_error("not a flat context-sensitive profile (a nested or context-less one): "
				  "the post-passes run again on flat CS profiles only");
	if (eff.preinline)
		return spgo_error("the pre-inliner does not run on an existing profile (it takes the "
				  "binary's context sizes from the samples): --csspgo-preinliner=false");
	spgo_profile_finalize(p, 0);
	uint64_t thr = cs_hot_threshold(p, &eff);
	if (eff.merge_cold < 0)
		eff.merge_cold = 1;
	struct spgo_profile *q = cs_merge_cold(p, &eff, thr, 0, &st);
	spgo_profile_finalize(q, 0);
	*out = q;
	return 0;
}

static void print_ip_stats(const struct spgo_cs_stats *st, FILE *fp)
{
	fprintf(fp, "spgo: gen --cs: %llu IP samples with call stacks, %llu counted (%llu with a caller "
		    "in the binary); dropped %llu with the leaf outside the binary, %llu with the leaf in a "
		    "prologue or epilogue (frame chain without the caller); %llu stacks cut at an external "
		    "frame or a return after no call\n",
		(unsigned long long)st->ip_samples, (unsigned long long)st->ip_counted,
		(unsigned long long)st->ip_callers, (unsigned long long)st->ip_ext_leaf,
		(unsigned long long)st->ip_proepi, (unsigned long long)st->stack_cut);
	fprintf(fp, "spgo: gen --cs: %llu (context, function) units inferred, %llu call blocks given "
		    "their callees' entry estimate, %llu inferences retried (flow lost), %llu functions "
		    "without a CFG, %llu samples outside their CFG's blocks\n",
		(unsigned long long)st->ip_units, (unsigned long long)st->ip_site_blocks,
		(unsigned long long)st->ip_infer_lost, (unsigned long long)st->ip_no_cfg,
		(unsigned long long)st->ip_unblocked);
}

static void print_lbr_stats(const struct spgo_cs_stats *st, FILE *fp)
{
	unsigned long long dropped = st->no_lbr + st->prolog_epilog +
				     (st->samples - st->unwound - st->no_lbr - st->prolog_epilog);
	fprintf(fp, "spgo: gen --cs: %llu stack samples, %llu unwound; dropped %llu: %llu without an LBR "
		    "entry in the binary, %llu with the leaf in a prologue or epilogue, %llu bogus traces\n",
		(unsigned long long)st->samples, (unsigned long long)st->unwound, dropped,
		(unsigned long long)st->no_lbr, (unsigned long long)st->prolog_epilog,
		(unsigned long long)(st->samples - st->unwound - st->no_lbr - st->prolog_epilog));
	fprintf(fp, "spgo: gen --cs: %llu samples inconsistent with their stack, unwound on without "
		    "it from there (of %llu LBR entries: %llu impossible ranges, %llu ranges with one "
		    "external end); %llu stacks cut at a return after no call; %llu calls not matching "
		    "the parent frame (prologue/epilogue), %llu from external code; %llu leaf ips far "
		    "from the newest LBR target\n",
		(unsigned long long)st->inconsistent, (unsigned long long)st->branches,
		(unsigned long long)st->bad_range, (unsigned long long)st->unpaired_ext,
		(unsigned long long)st->stack_cut, (unsigned long long)st->call_mismatch,
		(unsigned long long)st->ext_call_mismatch, (unsigned long long)st->bogus);
}

void spgo_cs_print_stats(const struct spgo_cs_stats *st, FILE *fp)
{
	if (st->ip_mode)
		print_ip_stats(st, fp);
	else
		print_lbr_stats(st, fp);
	fprintf(fp, "spgo: gen --cs: %llu frames, %llu contexts, %llu cold ones (total < %llu) merged "
		    "into base profiles\n",
		(unsigned long long)st->frames, (unsigned long long)st->contexts,
		(unsigned long long)st->contexts_cold, (unsigned long long)st->hot_threshold);
	if (st->pre.contexts_in)
		fprintf(fp, "spgo: gen --cs: pre-inliner: %llu contexts in, %llu out; %llu functions, "
			    "%llu candidates inlined, %llu not (over threshold), %llu left when %llu size "
			    "budgets ran out, %llu contexts dropped; cold count %llu, hotness 1 at %llu; "
			    "%llu contexts with a code size, %llu size lookups without one\n",
			(unsigned long long)st->pre.contexts_in, (unsigned long long)st->pre.contexts_out,
			(unsigned long long)st->pre.functions, (unsigned long long)st->pre.inlined,
			(unsigned long long)st->pre.not_inlined, (unsigned long long)st->pre.not_considered,
			(unsigned long long)st->pre.hit_limit, (unsigned long long)st->pre.dropped,
			(unsigned long long)st->pre.cold_count, (unsigned long long)st->pre.norm_upper,
			(unsigned long long)st->size_contexts, (unsigned long long)st->pre.size_unknown);
	if (st->truncated)
		fprintf(fp, "spgo: gen --cs: %llu samples (%.1f%%) have a truncated stack: it ends inside the "
			    "program, not in %s or external code; their contexts start where it was cut "
			    "(record with a larger perf --max-stack)\n",
			(unsigned long long)st->truncated,
			st->samples ? 100.0 * (double)st->truncated / (double)st->samples : 0.0,
			st->root_func[0] ? st->root_func : "the outermost function");
	if (st->probes)
		fprintf(fp, "spgo: gen --cs: probe-based; contexts cut at %llu call sites without a call "
			    "probe (older frames dropped), %llu inline chains cut at an unknown inline site (probe id 0); %llu "
			    "sampled ranges in functions without pseudo-probes (not counted); %llu instruction "
			    "counts at probes of records llvm-profgen does not read (left out)\n",
			(unsigned long long)st->cut_no_callprobe, (unsigned long long)st->cut_zero_site,
			(unsigned long long)st->ranges_no_probe, (unsigned long long)st->probe_undecoded);
	if (st->tail_unique || st->tail_ambiguous || st->tail_unreached)
		fprintf(fp, "spgo: gen --cs: tail calls: %llu frame pairs joined by a unique chain "
			    "(%llu frames inserted), %llu with several chains, %llu with none\n",
			(unsigned long long)st->tail_unique, (unsigned long long)st->tail_frames,
			(unsigned long long)st->tail_ambiguous, (unsigned long long)st->tail_unreached);
}

