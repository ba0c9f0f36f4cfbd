/*
 * Runs of inference over a file of CFGs, as `spgo infer` makes them (see
 * spgo/infer.h, "runs over a file of CFGs"): the inferred counts, the
 * evaluation against the file's truth= counts, the interleaved timing of
 * several algorithms, or the CFGs themselves.
 */
#include <stdio.h>
#include <stdlib.h>

#include "spgo/common.h"
#include "spgo/infer.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * Run k of algorithm a at times[a * runs + k].  The runs go round the
 * algorithms (profi, mcf, profi, mcf, ...) rather than one algorithm's
 * runs after another's, so that a change of the machine's speed meanwhile
 * (frequency, a neighbour's load) falls on all of them alike.
 */
void spgo_infer_time(struct spgo_cfg *cfg, const struct spgo_infer_opts *algos, size_t nalgos,
		     size_t runs, double *median_us)
{
	double *times = xmalloc(nalgos * runs * sizeof *times);
	for (size_t r = 0; r < runs; r++)
		for (size_t a = 0; a < nalgos; a++) {
			double t0 = spgo_now();
			spgo_infer(cfg, &algos[a]);
			times[a * runs + r] = spgo_now() - t0;
		}
	for (size_t a = 0; a < nalgos; a++) {
		double *t = times + a * runs;
		spgo_sort(t, runs, sizeof *t, cmp_double);
		median_us[a] = t[runs / 2] * 1e6;
	}
	free(times);
}

int spgo_infer_eval_add(struct spgo_infer_eval *e, const struct spgo_cfg *cfg,
			const uint64_t *truth_block, const uint64_t *truth_edge,
			struct spgo_flow_overlap *ov)
{
	uint64_t gsum = 0, wsum = 0;
	for (size_t b = 0; b < cfg->nblocks; b++) {
		gsum += truth_block[b];
		if (cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN)
			wsum += cfg->blocks[b].weight;
	}
	/* Compare the functions that ran and have samples: a function
	 * without any is not in the profile, nothing to infer. */
	if (gsum == 0 || wsum == 0 || wsum < e->min_weight)
		return 0;
	spgo_flow_overlap(cfg, truth_block, truth_edge, ov);
	e->n++;
	e->vertex += ov->vertex, e->edge += ov->edge, e->coverage += ov->coverage;
	e->wvertex += ov->vertex * (double)gsum, e->wedge += ov->edge * (double)gsum;
	e->weight += (double)gsum;
	return 1;
}

/* CFG i of f, inferred with run->algos[0], its counts or overlap printed. */
static int infer_one(struct spgo_cfg_file *f, size_t i, FILE *out, const struct spgo_infer_run *run,
		     struct spgo_infer_eval *e)
{
	struct spgo_cfg *cfg = &f->cfgs[i];
	const struct spgo_infer_opts *o = &run->algos[0];
	const char *name = cfg->name ? cfg->name : "-";
	if (spgo_infer(cfg, o))
		return -1;
	char why[160];
	if (o->algo != SPGO_ALGO_NONE && spgo_flow_check(cfg, why, sizeof why) != 0) {
		e->invalid++;
		spgo_warn("%s: cfg %s: invalid flow: %s", run->path, name, why);
	}
	if (run->task == SPGO_INFER_COUNTS) {
		spgo_cfg_write_counts(out, cfg, f->labels[i]);
		return 0;
	}
	if (!f->truth_block[i])
		return spgo_error("%s: cfg %s: --eval needs truth= counts", run->path, name);
	struct spgo_flow_overlap ov;
	if (spgo_infer_eval_add(e, cfg, f->truth_block[i], f->truth_edge[i], &ov))
		fprintf(out, "overlap %s %zu %.6f %.6f %.6f\n", name, cfg->nblocks, ov.vertex, ov.edge,
			ov.coverage);
	return 0;
}

int spgo_infer_file(struct spgo_cfg_file *f, FILE *out, const struct spgo_infer_run *run)
{
	struct spgo_infer_eval e = {.min_weight = run->eval_min};
	double *median = xmalloc(run->nalgos * sizeof *median);
	int rc = 0;
	for (size_t i = 0; i < f->n && rc == 0; i++) {
		struct spgo_cfg *cfg = &f->cfgs[i];
		switch (run->task) {
		case SPGO_INFER_EMIT:
			spgo_cfg_static_probs(cfg); /* while the block flags are known */
			spgo_cfg_write(out, cfg, f->labels[i]);
			break;
		case SPGO_INFER_TIME:
			spgo_infer_time(cfg, run->algos, run->nalgos, run->runs, median);
			fprintf(out, "time %s %zu %zu", cfg->name ? cfg->name : "-", cfg->nblocks,
				cfg->nedges);
			for (size_t a = 0; a < run->nalgos; a++)
				fprintf(out, " %.1f", median[a]);
			fputc('\n', out);
			break;
		default:
			rc = infer_one(f, i, out, run, &e);
		}
	}
	if (rc == 0 && run->task == SPGO_INFER_EVAL && e.n)
		fprintf(out,
			"mean %s cfgs=%zu vertex=%.4f edge=%.4f coverage=%.4f weighted_vertex=%.4f "
			"weighted_edge=%.4f invalid=%zu\n",
			spgo_algo_name(run->algos[0].algo), e.n, e.vertex / e.n, e.edge / e.n,
			e.coverage / e.n, e.wvertex / e.weight, e.wedge / e.weight, e.invalid);
	free(median);
	return rc;
}
