/*
 * One run of `spgo gen` as a whole (spgo_gen_job_run): the binary opened,
 * the samples read and aggregated (perf.data or perf-script text) or the
 * exact counts read, the profile of the kind asked for generated (AutoFDO
 * or probe-based by gen.c, context-sensitive by the context stage, or the
 * reference from exact counts), the statistics reported, the profile
 * written atomically.  The command line only fills struct spgo_gen_job.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/context.h"
#include "spgo/gen.h"
#include "spgo/ground_truth.h"
#include "spgo/perf.h"
#include "spgo/probe.h"
#include "spgo/profile.h"
#include "spgo/unsym.h"
#include "gen_impl.h"

/* The job's settings of the binary: split DWARF, and the note naming a
 * separate debug file found goes with the statistics (none with --quiet). */
static void apply_split(const struct spgo_gen_job *j, struct spgo_binary *bin)
{
	spgo_binary_set_notes(bin, j->report);
	if (j->dwp)
		spgo_binary_set_dwp(bin, j->dwp);
	for (size_t k = 0; k < j->ndwo_dirs; k++)
		spgo_binary_add_dwo_dir(bin, j->dwo_dirs[k]);
}

/*
 * --skip-symbolization: the aggregate, unsymbolized, in llvm-profgen's text
 * (its ranges and branches in offsets from the preferred base), instead of
 * a profile.  As llvm-profgen keeps only what its disassembly knows: a
 * range with an end elsewhere (a PLT stub) is left out, and so is a branch
 * into such code; a branch from it counts as from outside the binary.  Code
 * without debug information between symbols of size 0 is known to it (the
 * dynamic loader's calls to _init and frame_dummy, register_tm_clones).
 * IP samples without LBR (or --mode ip) are written in newer llvm-profgen's
 * basic-event form (unsym_text.c), not as an empty list of ranges.
 */
static int write_unsymbolized(const struct spgo_gen_job *j, struct spgo_aggregate *agg)
{
	struct spgo_unsym *u = spgo_unsym_new();
	spgo_unsym_add_agg(u, agg, 1);
	if (u->bins.n == 1 && j->opts.mode == SPGO_GEN_IP)
		u->bins.v[0]->kinds &= ~(unsigned)SPGO_UNSYM_LBR; /* its IP samples: basic-event */
	if (u->bins.n == 1) {
		struct spgo_unsym_bin *s = u->bins.v[0];
		uint64_t base = s->base, ext = 1 - base; /* llvm-profgen's ExternalAddr, as an offset */
		struct spgo_binary *b = agg->bin;
		struct spgo_kmap ranges, branches;
		spgo_kmap_init(&ranges, 2);
		spgo_kmap_init(&branches, 2);
		const uint64_t *k;
		uint64_t *v;
		for (size_t it = 0; spgo_kmap_next(&s->ranges, &it, &k, &v);)
			if (spgo_binary_profgen_code(b, k[0] + base) && spgo_binary_profgen_code(b, k[1] + base))
				*spgo_kmap_upsert(&ranges, k) += *v;
		for (size_t it = 0; spgo_kmap_next(&s->branches, &it, &k, &v);) {
			if (k[1] == ext || !spgo_binary_profgen_code(b, k[1] + base))
				continue;
			uint64_t key[2] = {k[0] != ext && spgo_binary_profgen_code(b, k[0] + base) ? k[0] : ext, k[1]};
			*spgo_kmap_upsert(&branches, key) += *v;
		}
		/* Samples in the binary, none of them where llvm-profgen decodes
		 * code (it disassembles from .symtab symbols only): a stripped
		 * binary.  Not an empty profile: say so. */
		int none = s->ranges.n && !ranges.n && !branches.n;
		spgo_kmap_free(&s->ranges);
		spgo_kmap_free(&s->branches);
		s->ranges = ranges;
		s->branches = branches;
		if (none) {
			spgo_unsym_free(u);
			return spgo_error("%s: --skip-symbolization: no sampled address lies in code llvm-profgen "
					  "decodes (from .symtab symbols): the binary is stripped; pass the unstripped one",
					  spgo_binary_path(b));
		}
	}
	int rc = spgo_unsym_write(u, j->out, SPGO_UNSYM_PROFGEN);
	spgo_unsym_free(u);
	return rc;
}

static void cs_opts_of(const struct spgo_gen_job *j, struct spgo_cs_opts *o);

/*
 * --skip-symbolization of LBR with call stacks (--cs): the samples unwound,
 * each frame's ranges and branches under its context, in llvm-profgen's
 * CS text ("[0x347 @ 0x37c]" blocks; spgo_cs_stream_unsym).
 */
static int write_unsymbolized_cs(const struct spgo_gen_job *j, struct spgo_aggregate *agg,
				 struct spgo_cs_stream *stream)
{
	struct spgo_unsym *u = spgo_unsym_new();
	spgo_unsym_add_agg(u, agg, 1); /* (the section: its build-id, path and base) */
	struct spgo_unsym_bin *s = u->bins.v[0];
	/* (what the aggregate kept besides: the contexts stand for it) */
	spgo_kmap_free(&s->ranges);
	spgo_kmap_free(&s->branches);
	spgo_kmap_free(&s->stack_index);
	s->pool.n = 0;
	s->nstacks = 0;
	struct spgo_cs_opts o;
	cs_opts_of(j, &o);
	struct spgo_cs_stats st;
	int rc = spgo_cs_stream_unsym(stream, agg, &o, s, &st);
	if (rc == 0 && j->report)
		fprintf(j->report, "spgo: gen: %llu stack samples, %llu unwound: %zu contexts, unsymbolized\n",
			(unsigned long long)st.samples, (unsigned long long)st.unwound, s->ctxs.n);
	if (rc == 0)
		rc = spgo_unsym_write(u, j->out, SPGO_UNSYM_PROFGEN);
	spgo_unsym_free(u);
	return rc;
}

/*
 * Read perf.data into agg, only samples of pid when have_pid.  Call stacks
 * are kept for context-sensitive work only: an AutoFDO profile does not use
 * them, and the aggregate would keep every distinct stack with its branch
 * stack, which costs time and memory per sample.  *stacks_lbr is set when
 * samples had both.  icalls may be NULL.
 */
static int read_perf(struct spgo_aggregate *agg, const struct spgo_gen_job *j, const char *path,
		     struct spgo_gen_icalls *icalls, int *stacks_lbr, struct spgo_aggregate **mods)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	int rc = spgo_agg_begin(agg, r);
	for (size_t k = 0; k < j->nmodules && rc == 0; k++)
		rc = spgo_agg_begin(mods[k], r);
	if (rc < 0) {
		spgo_perf_close(r);
		return -1;
	}
	struct spgo_perf_record rec;
	struct spgo_pid_census pids = {0};
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE) {
			spgo_pid_census_add(&pids, rec.sample.pid);
			if (j->have_pid && rec.sample.pid != j->pid)
				continue;
			if (rec.sample.callchain_nr && rec.sample.branch_nr)
				*stacks_lbr = 1;
			if (j->tap)
				j->tap->sample(j->tap->ctx, &rec);
			if (!j->cs && !j->proepi) /* (see spgo_agg_drop_proepi_leaves) */
				rec.sample.callchain_nr = 0;
		}
		spgo_agg_feed(agg, &rec);
		for (size_t k = 0; k < j->nmodules; k++) /* (--kernel's modules) */
			spgo_agg_feed(mods[k], &rec);
		if (icalls && rec.type == PERF_RECORD_SAMPLE)
			spgo_gen_icalls_feed(icalls, &rec);
	}
	spgo_agg_finish(agg);
	for (size_t k = 0; k < j->nmodules; k++)
		spgo_agg_finish(mods[k]);
	agg->stats.bytes += spgo_perf_bytes_read(r);
	spgo_perf_close(r);
	if (rc < 0)
		return -1;
	return spgo_pid_census_check(&pids, path, j->have_pid, j->pid);
}

/*
 * After reading with an event selected: an event the data does not have is
 * an error listing those it has; the selected one is the only one left, so
 * IP mode takes it as event -1 ("the one with samples").
 */
static int check_event(struct spgo_aggregate *agg, struct spgo_gen_opts *o, const char *path)
{
	if (!o->event_name && o->event < 0)
		return 0;
	if (spgo_agg_check_event(agg, path) < 0)
		return -1;
	o->event = -1;
	return 0;
}

/*
 * The output format: without --format, gcov for a binary gcc built (gcc
 * reads no LLVM profile: "AutoFDO profile magic number does not match"),
 * else extbinary; --kernel always extbinary (only clang has kernel
 * AutoFDO, and --kernel refuses gcov); --cs and the options of extbinary (--target-llvm,
 * --use-md5, --compress-all-sections) are LLVM's alone.  A format given
 * (or so implied) that the binary's
 * compiler does not read is warned about, with its DW_AT_producer.
 */
static int choose_format(struct spgo_gen_job *j, struct spgo_binary *bin)
{
	const char *name;
	enum spgo_producer who = spgo_binary_producer(bin, &name);
	/* options of extbinary alone ask for it */
	int extbinary = j->wo.target_llvm || j->wo.compress || j->wo.md5;
	if (j->fmt == SPGO_FMT_UNKNOWN && extbinary)
		j->fmt = SPGO_FMT_EXTBINARY;
	if (j->fmt == SPGO_FMT_UNKNOWN && j->kernel) {
		/* Kernel AutoFDO is clang's (CONFIG_AUTOFDO_CLANG), whoever built
		 * the vmlinux profiled; as llvm-profgen --kernel. */
		j->fmt = SPGO_FMT_EXTBINARY;
		if (who == SPGO_PRODUCER_GCC && j->report)
			fprintf(j->report, "spgo: gen: vmlinux built by gcc (%s): writing extbinary for "
					   "clang's kernel AutoFDO (--format to choose)\n", name);
	} else if (j->fmt == SPGO_FMT_UNKNOWN) {
		j->fmt = who == SPGO_PRODUCER_GCC && !j->cs ? SPGO_FMT_GCOV : SPGO_FMT_EXTBINARY;
		if (j->fmt == SPGO_FMT_GCOV && j->report)
			fprintf(j->report, "spgo: gen: binary built by gcc (%s): writing gcov (--format to "
					   "choose)\n", name);
	} else if (j->fmt == SPGO_FMT_GCOV && who == SPGO_PRODUCER_LLVM) {
		spgo_warn("%s was built by clang (%s), which reads LLVM profiles (--format extbinary "
			  "or text), not gcov", j->binary, name);
	} else if (j->fmt == SPGO_FMT_EXTBINARY && who == SPGO_PRODUCER_GCC && !j->kernel) {
		/* (text is a form for reading too: not warned about) */
		spgo_warn("%s was built by gcc (%s), which reads gcov profiles (--format gcov), not "
			  "LLVM's extbinary", j->binary, name);
	}
	if (j->fmt == SPGO_FMT_GCOV)
		j->opts.gcc = 1;
	return gen_job_check_more(j);
}

/* --ground-truth-cs: the reference CS profile of one view. */
static int run_truth_cs(struct spgo_gen_job *j)
{
	struct spgo_binary *bin;
	struct spgo_gt_cs gt;
	struct spgo_profile *p = NULL;
	if (spgo_binary_open(&bin, j->binary, j->debug) < 0)
		return -1;
	apply_split(j, bin);
	int rc = choose_format(j, bin);
	if (rc == 0)
		rc = spgo_gt_cs_read(&gt, j->truth_cs);
	if (rc == 0) {
		rc = spgo_gen_truth_cs(bin, &gt.views[j->truth_view], -1, j->opts.dwarf_lines, &p);
		spgo_gt_cs_free(&gt);
	}
	spgo_binary_close(bin);
	return rc < 0 ? -1 : gen_job_write_out(j, p);
}

/* --ground-truth: the reference profile from exact counts. */
static int run_truth(struct spgo_gen_job *j)
{
	struct spgo_binary *bin;
	struct spgo_ground_truth gt = {0};
	if (spgo_binary_open(&bin, j->binary, j->debug) < 0)
		return -1;
	apply_split(j, bin);
	if (choose_format(j, bin) < 0 || spgo_gt_read(&gt, j->truth) < 0) {
		spgo_binary_close(bin);
		return -1;
	}
	size_t idlen;
	const uint8_t *id = spgo_binary_build_id(bin, &idlen);
	const struct spgo_gt_dso *d = spgo_gt_find_dso(&gt, id, idlen, j->binary);
	struct spgo_profile *p = NULL;
	struct spgo_gen_stats st;
	int rc = d ? spgo_gen_truth(bin, d, &j->opts, &p, &st)
		   : spgo_error("%s: no section for %s in it (by build-id or file name)", j->truth, j->binary);
	spgo_gt_free(&gt);
	spgo_binary_close(bin);
	if (rc < 0)
		return -1;
	if (j->report)
		fprintf(j->report, "spgo: gen: ground truth: %llu executed instructions, %llu functions\n",
			(unsigned long long)st.insns_counted, (unsigned long long)st.functions);
	return gen_job_write_out(j, p);
}

/* --cs: the context stage (spgo/context.h) on an aggregate that kept its
 * stacks. */
static void cs_opts_of(const struct spgo_gen_job *j, struct spgo_cs_opts *o)
{
	*o = j->cs_opts;
	o->dwarf_lines = j->opts.dwarf_lines;
	/* IP samples without LBR: IP mode's inference choice, per context */
	o->ip_infer = j->opts.no_infer ? "none" : j->opts.infer_algo;
}

/* stream: the samples were unwound as they were read (NULL: the aggregate
 * kept them). */
static int run_cs(const struct spgo_gen_job *j, struct spgo_aggregate *agg,
		  struct spgo_cs_stream *stream)
{
	struct spgo_profile *p = NULL;
	struct spgo_cs_stats st;
	struct spgo_cs_opts o;
	cs_opts_of(j, &o);
	int rc = stream ? spgo_cs_stream_gen(stream, agg, &p, &st) : spgo_cs_gen(agg, &o, &p, &st);
	if (st.ip_mode && j->report) /* the mode, even when it failed */
		fprintf(j->report, "spgo: gen --cs: IP mode: no branch stacks (LBR) in the data; contexts "
				   "from the IP samples' call stacks, counts from block averages per context "
				   "and %s inference\n",
			o.ip_infer ? o.ip_infer : SPGO_GEN_INFER_DEFAULT);
	if (rc < 0)
		return -1;
	if (j->report)
		spgo_cs_print_stats(&st, j->report);
	if (j->cs_nested) {
		struct spgo_profile *n = spgo_profile_cs_nest(p);
		spgo_profile_free(p);
		if (!n)
			return -1;
		p = n;
	}
	return gen_job_finish_out(j, p, agg->bin);
}

/* --llvm-sample-profile: an existing CS profile post-processed again. */
static int run_rerun(const struct spgo_gen_job *j, struct spgo_binary *bin)
{
	struct spgo_profile *p = spgo_profile_read(j->llvm_profile, NULL), *q = NULL;
	if (!p)
		return -1;
	if (spgo_cs_rerun(p, &j->cs_opts, &q) < 0) {
		char *why = xstrdup(spgo_errmsg()); /* (spgo_error writes over it) */
		spgo_error("%s: %s", j->llvm_profile, why);
		free(why);
		spgo_profile_free(p);
		return -1;
	}
	spgo_profile_free(p);
	if (j->cs_nested) {
		struct spgo_profile *n = spgo_profile_cs_nest(q);
		spgo_profile_free(q);
		if (!n)
			return -1;
		q = n;
	}
	return gen_job_finish_out(j, q, bin);
}

/* What IP mode learned of indirect calls from the samples' stacks. */
/* perf script text: how its stack lines were read (they may be runtime
 * addresses or file offsets; the data decides, see spgo/aggregate.h). */
static void report_text_frames(const struct spgo_aggregate *agg, const struct spgo_gen_job *j,
			       const char *path)
{
	uint64_t line, before;
	int how = spgo_agg_text_frames(agg, &line, &before);
	if (how && j->report)
		fprintf(j->report, "spgo: gen: note: %s: call-stack lines read as %s (told by the sample at line %llu)\n",
			path, how > 0 ? "runtime addresses" : "offsets in their files (perf's text)",
			(unsigned long long)line);
	if (how > 0 && before)
		spgo_warn("%s: %llu stack samples before line %llu did not tell whether their stack lines "
			  "are runtime addresses or file offsets and were read as offsets",
			  path, (unsigned long long)before, (unsigned long long)line);
}

/*
 * Several captures (see spgo/gen.h): each read into an aggregate of its
 * own, as spgo aggregate reads each input, and added up in an unsymbolized
 * profile that then fills agg.  Reading them all into agg instead would mix
 * their processes (the same pid in two captures is two processes) and
 * their event numbers.  A capture with no sample in the binary is left out
 * with a warning naming it; none at all is an error.
 */
static int read_captures(struct spgo_aggregate *agg, const struct spgo_gen_job *j,
			 struct spgo_gen_icalls *icalls, int *stacks_lbr)
{
	struct spgo_unsym *u = spgo_unsym_new();
	size_t used = 0;
	int rc = 0;
	for (size_t k = 0; k < j->ncaptures && rc == 0; k++) {
		const char *path = j->captures[k];
		struct spgo_aggregate *a;
		if ((rc = spgo_agg_new(&a, j->binary, j->debug)) < 0)
			break;
		spgo_agg_keep_stacks(a, j->cs);
		spgo_agg_keep_stack_branches(a, !(j->cs && j->opts.mode == SPGO_GEN_IP));
		if (j->opts.event_name || j->opts.event >= 0)
			spgo_agg_select_event(a, j->opts.event, j->opts.event_name);
		if (j->opts.filter_build_id) /* (each capture, as the one-capture path) */
			spgo_agg_filter_build_id(a, j->opts.filter_build_id);
		if (j->sample_period)
			spgo_agg_sample_period(a, j->sample_period);
		spgo_agg_spe(a, j->spe);
		if (j->proepi)
			spgo_agg_drop_proepi_leaves(a, j->proepi, j->nproepi);
		if (j->capture_text[k]) {
			rc = spgo_agg_read_text(a, path);
			report_text_frames(a, j, path);
		} else {
			spgo_gen_icalls_set_agg(icalls, a);
			rc = read_perf(a, j, path, icalls, stacks_lbr, NULL);
		}
		struct spgo_gen_opts o = j->opts; /* (check_event changes it) */
		if (rc == 0)
			rc = check_event(a, &o, path);
		if (rc == 0 && (a->stats.samples_matched || a->stats.branches)) {
			spgo_unsym_add_agg(u, a, 1);
			used++;
		} else if (rc == 0) {
			spgo_warn("%s: no sample falls in %s: this capture is left out", path, j->binary);
		}
		spgo_agg_free(a);
	}
	spgo_gen_icalls_set_agg(icalls, agg);
	if (rc == 0 && !used)
		rc = spgo_error("no sample of the %zu captures falls in %s", j->ncaptures, j->binary);
	if (rc == 0)
		rc = spgo_unsym_fill(u, agg, j->opts.event_name);
	spgo_unsym_free(u);
	return rc;
}

/*
 * Is the capture at path LBR with call stacks (perf record -b -g, spgo
 * emulate)?  Its first sample tells, as llvm-profgen tells its input's kind.
 * 1 yes, 0 no (also on a read error, which the reading proper reports),
 * -1 for stdin or a pipe, which cannot be read twice.
 */
static int capture_hybrid(const char *path, int text)
{
	struct stat sb;
	if (!strcmp(path, "-") || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return -1; /* (a pipe cannot be read ahead) */
	const uint64_t both = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
	struct spgo_perf_record rec;
	int hybrid = 0;
	if (text) {
		struct spgo_perf_text *t;
		if (spgo_perf_text_open(&t, path) < 0)
			return 0;
		while (spgo_perf_text_next(t, &rec) > 0)
			if (rec.type == PERF_RECORD_SAMPLE) {
				hybrid = rec.sample.callchain_nr && rec.sample.branch_nr;
				break;
			}
		spgo_perf_text_close(t);
	} else {
		struct spgo_perf_reader *r;
		if (spgo_perf_open(&r, path, 0) < 0)
			return 0;
		while (spgo_perf_next(r, &rec) > 0)
			if (rec.type == PERF_RECORD_SAMPLE) {
				hybrid = (rec.sample.sample_type & both) == both;
				break;
			}
		spgo_perf_close(r);
	}
	return hybrid;
}

/*
 * No choice of profile kind given (cs < 0): llvm-profgen 19's default on a
 * binary with pseudo-probes, a context-sensitive profile when every capture
 * is LBR with call stacks (unsymbolized input: when it holds unwound
 * contexts, or stack samples with LBR) (the job's cs_nested and cs_opts.preinline say
 * its form: nested and pre-inlined unless told otherwise), said on the
 * report.  A binary without probes keeps the AutoFDO profile (llvm-profgen
 * makes a line-based CS one there): that is the AutoFDO build, and spgo
 * emulate always records call stacks.
 */
static void choose_cs(struct spgo_gen_job *j, struct spgo_binary *bin, struct spgo_unsym *unsym)
{
	int hybrid = j->ncaptures || j->perf_data || j->perf_script;
	if (unsym) { /* unsymbolized: unwound contexts, or LBR with stack samples */
		struct spgo_unsym_bin *s = unsym->bins.n ? spgo_unsym_find(unsym, bin) : NULL;
		hybrid = s && (s->ctxs.n || (s->nstacks && (s->kinds & SPGO_UNSYM_LBR)));
	} else if (j->ncaptures)
		for (size_t k = 0; k < j->ncaptures && hybrid > 0; k++)
			hybrid = capture_hybrid(j->captures[k], j->capture_text[k]);
	else if (hybrid)
		hybrid = capture_hybrid(j->perf_script ? j->perf_script : j->perf_data, j->perf_script != NULL);
	int probes = !j->opts.dwarf_lines && spgo_binary_load_probes(bin) > 0;
	if (hybrid < 0 && probes && j->report) /* not silently another default */
		fprintf(j->report, "spgo: gen: the input is a pipe, which cannot be looked at before it is "
				   "read: the probe-based profile without contexts (--cs for the "
				   "context-sensitive one, llvm-profgen's default on LBR with call stacks)\n");
	j->cs = hybrid > 0 && probes;
	if (j->cs && j->report)
		fprintf(j->report, "spgo: gen: LBR with call stacks of a binary with pseudo-probes: a "
				   "context-sensitive profile, %s%s (llvm-profgen's default; --no-cs: the "
				   "probe-based profile without contexts)\n",
			j->cs_nested ? "nested" : "flat", j->cs_opts.preinline ? ", pre-inlined" : "");
}

static void report_icalls(FILE *fp, const struct spgo_gen_icalls *icalls, const struct spgo_gen_stats *st)
{
	uint64_t ns, nu, dok, dbad, np;
	spgo_gen_icalls_stats(icalls, &ns, &nu, &dok, &dbad, &np);
	if (nu)
		fprintf(fp, "spgo: indirect calls: %llu of %llu samples unwound to their caller (direct calls: "
			    "%llu to the sampled function, %llu not); %llu call targets written, count %llu\n",
			(unsigned long long)nu, (unsigned long long)ns, (unsigned long long)dok,
			(unsigned long long)dbad, (unsigned long long)st->icalls,
			(unsigned long long)st->icall_count);
}

/* The job's options on the aggregate, before reading; --ignore-stack-samples:
 * the prologue and epilogue addresses (j->proepi, returned to be freed). */
static uint64_t *set_up_agg(struct spgo_gen_job *j, struct spgo_aggregate *agg)
{
	if (j->opts.event_name || j->opts.event >= 0)
		spgo_agg_select_event(agg, j->opts.event, j->opts.event_name);
	if (j->opts.filter_build_id)
		spgo_agg_filter_build_id(agg, j->opts.filter_build_id);
	if (j->sample_period)
		spgo_agg_sample_period(agg, j->sample_period);
	spgo_agg_spe(agg, j->spe);
	spgo_agg_keep_stack_branches(agg, !(j->cs && j->opts.mode == SPGO_GEN_IP));
	/* --ignore-stack-samples: llvm-profgen's check of hybrid samples */
	uint64_t *proepi = NULL;
	if (j->ignore_stacks && !j->cs) {
		struct spgo_cs_code code;
		if (spgo_cs_code_init(&code, agg->bin) == 0) {
			proepi = spgo_cs_code_proepi(&code, &j->nproepi);
			spgo_cs_code_free(&code);
		}
		j->proepi = proepi;
		spgo_agg_drop_proepi_leaves(agg, proepi, j->nproepi);
		spgo_agg_keep_stacks(agg, 0); /* (their leaves are looked at, not kept) */
	}
	return proepi;
}

int spgo_gen_job_run(const struct spgo_gen_job *job)
{
	struct spgo_gen_job j = *job;
	if (j.tap && (!j.perf_data || j.kernel || j.skip_symbolization || j.sample_period || j.llvm_profile ||
		      j.nunsym || j.truth || j.truth_cs))
		return spgo_error("gen: the layout outputs come from the one read of a --perf-data: not with "
				  "--kernel, --perf-script, several captures, --unsymbolized, --ground-truth, "
				  "--llvm-sample-profile, --skip-symbolization or --sample-period");
	if (j.truth_cs)
		return run_truth_cs(&j);
	if (j.truth)
		return run_truth(&j);
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, j.binary, j.debug) < 0)
		return -1;
	apply_split(&j, agg->bin);
	/* Unsymbolized profiles (fleet merges) are read first: what they hold
	 * chooses the profile's kind as a capture's samples do.  They fill the
	 * aggregate below; with --cs their unwound contexts join the stack
	 * samples (kept until the CS profile is made). */
	struct spgo_unsym *unsym = NULL;
	if (j.nunsym) {
		unsym = spgo_unsym_new();
		for (size_t i = 0; i < j.nunsym; i++)
			if (spgo_unsym_read(unsym, j.unsym[i], 1) < 0) {
				spgo_unsym_free(unsym);
				spgo_agg_free(agg);
				return -1;
			}
	}
	if (j.cs < 0) /* (before the format: a CS profile is LLVM's) */
		choose_cs(&j, agg->bin, unsym);
	if (choose_format(&j, agg->bin) < 0) {
		spgo_unsym_free(unsym);
		spgo_agg_free(agg);
		return -1;
	}
	int rc, stacks_lbr = 0;
	struct spgo_gen_icalls *icalls = NULL;
	if (j.llvm_profile) {
		rc = run_rerun(&j, agg->bin);
		spgo_unsym_free(unsym);
		spgo_agg_free(agg);
		return rc;
	}
	struct spgo_aggregate **mods = NULL; /* --kernel's modules */
	if (gen_kernel_begin(&j, agg, &mods) < 0) {
		spgo_agg_free(agg);
		return -1;
	}
	uint64_t *proepi = set_up_agg(&j, agg);
	/* The tap's turn with the binary, before --cs's thread may take it. */
	if (j.tap && j.tap->begin(j.tap->ctx, agg) < 0) {
		gen_kernel_free(&j, mods);
		spgo_agg_free(agg);
		free(proepi);
		return -1;
	}
	/* --cs: each stack sample is unwound as it is read, none is kept (when
	 * the binary cannot be used, spgo_cs_gen says why after reading). */
	struct spgo_cs_stream *stream = NULL;
	if (j.cs) {
		struct spgo_cs_opts o;
		cs_opts_of(&j, &o);
		stream = spgo_cs_stream_begin(agg, &o);
		spgo_agg_keep_ranges(agg, 0); /* (the context stage does not read them) */
	}
	if (j.nunsym) {
		rc = spgo_unsym_fill(unsym, agg, j.opts.event_name);
		if (rc == 0 && stream)
			spgo_cs_stream_contexts(stream, spgo_unsym_find(unsym, agg->bin));
	} else if (j.perf_script) {
		rc = spgo_agg_read_text(agg, j.perf_script);
		report_text_frames(agg, &j, j.perf_script);
		if (rc == 0 && !agg->stats.samples && !agg->stats.samples_other_event)
			rc = spgo_error("%s: no samples in it (an empty capture)", j.perf_script);
	} else {
		/* (IP mode's indirect calls: not for --cs, whose unwinding
		 * thread may be using the binary meanwhile) */
		if (!j.cs)
			spgo_gen_icalls_new(&icalls, agg);
		rc = j.ncaptures ? read_captures(agg, &j, icalls, &stacks_lbr)
				 : read_perf(agg, &j, j.perf_data, icalls, &stacks_lbr, mods);
		j.opts.icalls = icalls;
	}
	if (rc == 0)
		rc = check_event(agg, &j.opts, j.perf_script ? j.perf_script : j.perf_data ? j.perf_data
						 : j.ncaptures ? j.captures[0] : j.unsym[0]);
	/* One entry per branch stack is how perf script --itrace=bl1 prints
	 * Arm SPE's branch records; read as LBR such an entry makes no range,
	 * and the profile holds branch counts alone. */
	if (rc == 0 && !j.spe && agg->stats.lbr_samples && agg->stats.lbr_single == agg->stats.lbr_samples)
		spgo_warn("%s: every one of the %llu branch stacks has a single entry, as perf script "
			  "--itrace=bl1 prints Arm SPE's branch records; read as LBR they give no "
			  "ranges: if this is SPE, give --spe",
			  j.perf_script ? j.perf_script : j.perf_data ? j.perf_data : "the input",
			  (unsigned long long)agg->stats.lbr_samples);
	if (j.skip_symbolization) {
		spgo_gen_icalls_free(icalls);
		rc = rc < 0 ? -1 : j.cs ? write_unsymbolized_cs(&j, agg, stream) : write_unsymbolized(&j, agg);
		spgo_cs_stream_free(stream);
		spgo_unsym_free(unsym);
		spgo_agg_free(agg);
		free(proepi);
		return rc;
	}
	if (j.cs) {
		spgo_gen_icalls_free(icalls);
		rc = rc < 0 ? -1 : run_cs(&j, agg, stream);
		spgo_agg_free(agg);
		spgo_cs_stream_free(stream);
		spgo_unsym_free(unsym);
		return rc;
	}
	spgo_unsym_free(unsym);
	unsym = NULL;
	struct spgo_profile *p = NULL;
	struct spgo_gen_stats st;
	if (rc == 0 && j.kernel)
		rc = gen_kernel_profile(&j, agg, mods, &p, &st);
	else if (rc == 0)
		rc = spgo_gen(agg, &j.opts, &p, &st);
	gen_kernel_free(&j, mods);
	if (rc == 0 && j.trim_cold)
		p = gen_job_trim_cold(&j, p);
	if (rc == 0 && j.report) {
		spgo_gen_print_stats(&st, agg, j.report);
		if (agg->stats.lbr_leaf_proepi)
			fprintf(j.report, "spgo: gen: %llu LBR samples left out: their call stack's leaf is in "
					  "a prologue or epilogue (llvm-profgen's check under --ignore-stack-samples)\n",
				(unsigned long long)agg->stats.lbr_leaf_proepi);
		if ((stacks_lbr || agg->stats.stack_samples) && agg->stats.lbr_samples)
			fprintf(j.report, "spgo: gen: note: the data has call stacks with LBR: a "
					  "context-sensitive (CSSPGO) profile is available with --cs\n");
		if (icalls && st.mode == SPGO_GEN_IP)
			report_icalls(j.report, icalls, &st);
		/* A profile of a handful of samples guides the compiler badly. */
		if (st.count_debug < 1000)
			spgo_warn("the profile is tiny (%llu counts in code with debug information): %s",
				  (unsigned long long)st.count_debug, spgo_gen_more_samples(agg));
	}
	spgo_gen_icalls_free(icalls);
	rc = rc < 0 ? -1 : gen_job_finish_out(&j, p, agg->bin);
	spgo_agg_free(agg);
	free(proepi);
	return rc;
}
