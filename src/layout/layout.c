/*
 * layout.c: the layout stage's job: read perf.data once (the aggregate maps
 * every address to the binary's own), count each sample's LBR the way BOLT
 * aggregates it, and write the format asked for.
 *
 * Why the LBR is counted here and not taken from the aggregate's ranges
 * and branches: BOLT counts mispredictions per branch, and a fall-through
 * range that begins where a branch from another function landed (a
 * return, a call) is treated differently from one entered by a local jump
 * (BOLT may extend it back over the call before it).  The aggregate keeps
 * neither; it hands its distinct entries and pairs over instead
 * (spgo_agg_on_lbr, lbr.c), each looked up once for both.  Alone, the
 * aggregate's ranges and branches are not needed: the entries are counted
 * for this stage only (spgo_agg_lbr_sink_feed), and the aggregate sees the
 * rest of each sample (mappings, IP samples, statistics).  With gen's
 * compiler profile, gen reads and aggregates (its tap calls lay_sample),
 * and the layouts take its aggregate's entries, looked up once for the
 * profile and the layouts.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/gen.h"
#include "layout/layout_impl.h"

static const char *const format_names[] = {
	[SPGO_LAYOUT_BOLT] = "bolt",
	[SPGO_LAYOUT_BOLT_PA] = "bolt-pa",
	[SPGO_LAYOUT_ORDER] = "order",
	[SPGO_LAYOUT_ORDER_LD] = "order-ld",
	[SPGO_LAYOUT_PROPELLER] = "propeller",
};

int spgo_layout_format_parse(const char *name, enum spgo_layout_format *out)
{
	for (size_t i = 1; i < sizeof format_names / sizeof *format_names; i++)
		if (!strcmp(name, format_names[i])) {
			*out = (enum spgo_layout_format)i;
			return 0;
		}
	return -1;
}

/* A sample of the process(es) read, before the aggregate takes it: its
 * LBR's totals counted (not with --mode ip; the entries come from the
 * aggregate), when the aggregate takes its event (--event: the layouts
 * count the samples the profile counts).  gen's tap too. */
static void lay_sample(void *ctx, const struct spgo_perf_record *rec)
{
	struct lay *L = ctx;
	const struct spgo_perf_sample *s = &rec->sample;
	if (!s->branch_nr || L->job->mode == 2 || !spgo_agg_event_taken(L->agg, rec->attr))
		return;
	lay_lbr_count(L, s, s->count ? s->count : 1);
}

/* Read the perf.data of the job into L->agg and L->lbr. */
static int read_perf(struct lay *L)
{
	const struct spgo_layout_job *j = L->job;
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, j->perf_data, SPGO_PERF_ORDERED) < 0)
		return -1;
	if (spgo_agg_begin(L->agg, r) < 0) { /* another architecture's capture */
		spgo_perf_close(r);
		return -1;
	}
	struct spgo_perf_record rec;
	int rc;
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE) {
			struct spgo_perf_sample *s = &rec.sample;
			if (j->have_pid && s->pid != j->pid)
				continue;
			s->callchain_nr = 0;
			lay_sample(L, &rec);
			if (j->mode != 2 && spgo_agg_event_taken(L->agg, rec.attr))
				spgo_agg_lbr_sink_feed(L->agg, s);
			s->branch_nr = 0; /* (counted: the aggregate's ranges are not needed) */
		}
		spgo_agg_feed(L->agg, &rec);
	}
	spgo_agg_finish(L->agg);
	L->agg->stats.bytes += spgo_perf_bytes_read(r);
	spgo_perf_close(r);
	return rc < 0 ? -1 : 0;
}

/* IP mode: the event with the most samples in the binary, unless one was
 * selected (then the only one with samples). */
static long pick_event(const struct spgo_aggregate *agg)
{
	long best = -1;
	for (size_t i = 0; i < agg->events.n; i++)
		if (agg->events.v[i].samples &&
		    (best < 0 || agg->events.v[i].samples > agg->events.v[(size_t)best].samples))
			best = (long)i;
	return best;
}

/* Propeller: the cluster profile to OUT, the symbol order to OUT.order;
 * both renamed into place only when both are complete. */
static int write_propeller(struct lay *L)
{
	size_t len = strlen(L->out) + sizeof ".order";
	char *ld_path = xmalloc(len);
	snprintf(ld_path, len, "%s.order", L->out);
	struct spgo_out o, ld;
	int rc = spgo_out_open(&o, L->out);
	if (rc == 0 && (rc = spgo_out_open(&ld, ld_path)) < 0)
		spgo_out_abort(&o);
	if (rc == 0 && (rc = lay_write_propeller(L, o.fp, ld.fp)) < 0) {
		spgo_out_abort(&o);
		spgo_out_abort(&ld);
	}
	if (rc == 0 && (rc = spgo_out_commit(&ld)) < 0)
		spgo_out_abort(&o);
	if (rc == 0)
		rc = spgo_out_commit(&o);
	free(ld_path);
	return rc;
}

static int write_output(struct lay *L, enum spgo_layout_format fmt)
{
	if (fmt == SPGO_LAYOUT_PROPELLER)
		return write_propeller(L);
	struct spgo_out o;
	if (spgo_out_open(&o, L->out) < 0)
		return -1;
	int rc;
	switch (fmt) {
	case SPGO_LAYOUT_BOLT: rc = lay_write_fdata(L, o.fp); break;
	case SPGO_LAYOUT_BOLT_PA: rc = lay_write_preagg(L, o.fp); break;
	case SPGO_LAYOUT_ORDER: rc = lay_write_order(L, o.fp, 0); break;
	case SPGO_LAYOUT_ORDER_LD: rc = lay_write_order(L, o.fp, 1); break;
	default: rc = spgo_error("layout: no output format"); break;
	}
	if (rc < 0) {
		spgo_out_abort(&o);
		return -1;
	}
	return spgo_out_commit(&o);
}

/* The counts once, after the outputs named: "spgo: gen: a.fdata, a.order: ..." */
static void report(const struct lay *L, FILE *fp)
{
	const struct spgo_agg_stats *st = spgo_agg_stats(L->agg);
	fputs("spgo: gen: ", fp);
	for (size_t k = 0; k < L->nouts; k++)
		fprintf(fp, "%s%s", k ? ", " : "", L->outs[k].out);
	if (L->lbr_mode)
		fprintf(fp, ": %llu LBR samples, %llu branch entries; %zu distinct branches, "
			    "%zu fall-through ranges\n", (unsigned long long)L->lbr.samples,
			(unsigned long long)L->lbr.entries, L->lbr.taken.n, L->lbr.traces.n);
	else
		fprintf(fp, ": %llu IP samples in the binary (event %s)\n", (unsigned long long)st->samples_matched,
			L->ip_event >= 0 ? L->agg->events.v[(size_t)L->ip_event].name : "-");
}

static int wants(const struct lay *L, enum spgo_layout_format fmt)
{
	for (size_t k = 0; k < L->nouts; k++)
		if (L->outs[k].fmt == fmt)
			return 1;
	return 0;
}

/* Propeller's inputs, checked before perf.data is read: a file to write
 * (two, in fact), LBR (not --mode ip) and the BB address map. */
static int propeller_inputs(struct lay *L)
{
	const struct spgo_layout_job *j = L->job;
	for (size_t k = 0; k < L->nouts; k++)
		if (L->outs[k].fmt == SPGO_LAYOUT_PROPELLER && !strcmp(L->outs[k].out, "-"))
			return spgo_error("gen --format propeller writes two files (OUT and OUT.order): -o needs a file name");
	if (j->mode == 2)
		return spgo_error("gen --format propeller: --mode ip: Propeller needs LBR (perf record -b; "
				  "spgo emulate on machines without)");
	if (spgo_bb_addr_map_read(&L->bbmap, spgo_binary_path(L->bin)) < 0)
		return -1;
	if (!L->bbmap.nfuncs)
		return spgo_error("%s: no basic-block address map (SHT_LLVM_BB_ADDR_MAP): build with "
				  "-fbasic-block-sections=labels (clang 19) or -fbasic-block-address-map (clang 20+)",
				  j->binary);
	return 0;
}

/* Before reading, the binary at hand (agg): BOLT's functions, and what the
 * formats asked for need.  gen's tap too. */
static int lay_begin(void *ctx, struct spgo_aggregate *agg)
{
	struct lay *L = ctx;
	L->agg = agg;
	L->bin = agg->bin;
	int rc = spgo_binary_check_machine(L->bin);
	if (rc == 0)
		rc = lay_functions_build(L);
	if (rc == 0 && (wants(L, SPGO_LAYOUT_BOLT) || wants(L, SPGO_LAYOUT_BOLT_PA)) && !lay_has_relocs(L))
		spgo_warn("%s: no relocations (.rela.text): BOLT cannot reorder its functions; link "
			  "with -Wl,--emit-relocs", L->job->binary);
	if (rc == 0 && wants(L, SPGO_LAYOUT_PROPELLER))
		rc = propeller_inputs(L);
	if (rc == 0 && L->job->mode != 2)
		lay_lbr_attach(L);
	return rc;
}

/* After reading: the counts checked, the outputs written (held together
 * unless gen holds them), the statistics said.  gen's tap too. */
static int lay_end(void *ctx)
{
	struct lay *L = ctx;
	const struct spgo_layout_job *j = L->job;
	spgo_agg_on_lbr(L->agg, NULL); /* (what is pending comes, then no more) */
	int rc = 0;
	if (!L->lbr.taken.n) /* (branches in the binary are a match too) */
		rc = spgo_agg_check_matched(L->agg);
	if (rc == 0 && j->mode == 1 && !L->lbr.samples)
		rc = spgo_error("%s: --mode lbr: the data has no branch stacks (record with perf record -b)",
				j->perf_data);
	if (rc == 0 && !L->lbr.samples && wants(L, SPGO_LAYOUT_PROPELLER))
		rc = spgo_error("%s: no branch stacks (LBR) in the data: Propeller needs LBR (perf record -b; "
				"spgo emulate on machines without)", j->perf_data);
	if (rc == 0 && !L->lbr.samples) {
		L->lbr_mode = 0;
		L->ip_event = pick_event(L->agg);
		for (size_t k = 0; k < L->nouts; k++)
			if (L->outs[k].fmt == SPGO_LAYOUT_BOLT || L->outs[k].fmt == SPGO_LAYOUT_BOLT_PA)
				spgo_warn("%s: no branch stacks (LBR) in the data: BOLT's basic-sample profile "
					  "(%s), which lays out blocks less well than LBR (perf record -b)",
					  j->perf_data, L->outs[k].fmt == SPGO_LAYOUT_BOLT ? "fdata no_lbr" : "S lines");
	}
	int together = !j->gen && L->nouts > 1;
	if (rc == 0 && together)
		spgo_out_hold();
	for (size_t k = 0; k < L->nouts && rc == 0; k++) {
		L->out = L->outs[k].out;
		rc = write_output(L, L->outs[k].fmt);
	}
	if (together && spgo_out_release(rc == 0) < 0)
		rc = -1;
	/* (said when the run succeeds: gen's outputs are written after these) */
	size_t len;
	FILE *fp = rc == 0 && j->report ? open_memstream(&L->report, &len) : NULL;
	if (fp) {
		report(L, fp);
		fclose(fp);
	}
	return rc;
}

int spgo_layout_run(const struct spgo_layout_job *j)
{
	struct spgo_layout_out one = {j->fmt, j->out};
	struct lay L = {.job = j, .outs = j->nouts ? j->outs : &one, .nouts = j->nouts ? j->nouts : 1,
			.lbr_mode = j->mode != 2, .ip_event = -1};
	if (!j->perf_data)
		return spgo_error("gen --format %s: reads --perf-data only", format_names[L.outs[0].fmt]);
	spgo_kmap_init(&L.lbr.taken, 2);
	spgo_kmap_init(&L.lbr.mispred, 2);
	spgo_kmap_init(&L.lbr.traces, 3);
	int rc;
	if (j->gen) { /* gen reads, aggregates and makes its profile; the tap counts the LBR */
		struct spgo_gen_job g = *j->gen;
		struct spgo_gen_tap tap = {.ctx = &L, .begin = lay_begin, .sample = lay_sample, .end = lay_end};
		g.tap = &tap;
		rc = spgo_gen_job_run(&g);
		L.agg = NULL; /* (gen's, freed) */
	} else {
		struct spgo_aggregate *agg;
		rc = spgo_agg_new(&agg, j->binary, j->debug);
		if (rc == 0) {
			spgo_agg_keep_stacks(agg, 0);
			spgo_agg_keep_ranges(agg, 0); /* (counted here, see the top) */
			if (j->event_name || j->event >= 0)
				spgo_agg_select_event(agg, j->event, j->event_name);
			rc = lay_begin(&L, agg);
			if (rc == 0)
				rc = read_perf(&L);
			if (rc == 0)
				rc = spgo_agg_check_event(agg, j->perf_data);
			if (rc == 0)
				rc = lay_end(&L);
			spgo_agg_free(agg);
		}
	}
	if (rc == 0 && L.report)
		fputs(L.report, j->report);
	free(L.report);
	spgo_kmap_free(&L.lbr.taken);
	spgo_kmap_free(&L.lbr.mispred);
	spgo_kmap_free(&L.lbr.traces);
	lay_functions_free(&L);
	spgo_bb_addr_map_free(&L.bbmap);
	return rc;
}
