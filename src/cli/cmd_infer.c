/*
 * spgo infer: profile inference on CFGs in the text format (README, "CFG
 * text format").  Prints the inferred counts; with --eval, the overlap with
 * the truth= counts of the file instead; with --time N, the median time of
 * N runs per CFG.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/common.h"
#include "spgo/infer.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: spgo infer [--algo profi|mcf|fp|quadratic|none] [--cfg FILE] [-o OUT]\n"
		"                  [--eval] [--time N] [--k-inc N] [--k-dec N] [--k-inc0 N]\n"
		"                  [--no-join] [--no-rebalance] [--no-greedy] [--no-even]\n"
		"\n"
		"Reads CFGs with block weights (FILE, default stdin; format in README)\n"
		"and prints inferred counts: 'block LABEL COUNT', 'edge SRC DST COUNT'.\n"
		"  --eval    print vertex/edge overlap and coverage against the truth=\n"
		"            counts of the file, per CFG and their means\n"
		"  --time N  print 'time NAME BLOCKS EDGES MICROSECONDS', median of N runs\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int num_arg(const char *s, int64_t *out)
{
	uint64_t v;
	if (spgo_parse_u64(s, &v) || v > 1000000000)
		return spgo_error("bad number '%s'", s);
	*out = (int64_t)v;
	return 0;
}

int cmd_infer(int argc, char **argv)
{
	const char *cfg_path = "-", *out_path = "-";
	int eval = 0, algo = SPGO_ALGO_PROFI;
	uint64_t time_runs = 0;
	int64_t k_inc = -1, k_dec = -1, k_inc0 = -1;
	int no_join = 0, no_rebalance = 0, no_greedy = 0, no_even = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--algo") && v) {
			if ((algo = spgo_algo_parse(v)) < 0) {
				fprintf(stderr, "spgo: infer: unknown algorithm '%s'\n", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--cfg") && v) {
			cfg_path = v, i++;
		} else if (!strcmp(a, "-o") && v) {
			out_path = v, i++;
		} else if (!strcmp(a, "--eval")) {
			eval = 1;
		} else if (!strcmp(a, "--time") && v) {
			if (spgo_parse_u64(v, &time_runs) || time_runs == 0 || time_runs > 100000) {
				fprintf(stderr, "spgo: infer: bad --time '%s'\n", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--k-inc") && v) {
			if (num_arg(v, &k_inc))
				return cli_fail();
			i++;
		} else if (!strcmp(a, "--k-dec") && v) {
			if (num_arg(v, &k_dec))
				return cli_fail();
			i++;
		} else if (!strcmp(a, "--k-inc0") && v) {
			if (num_arg(v, &k_inc0))
				return cli_fail();
			i++;
		} else if (!strcmp(a, "--no-join")) {
			no_join = 1;
		} else if (!strcmp(a, "--no-rebalance")) {
			no_rebalance = 1;
		} else if (!strcmp(a, "--no-greedy")) {
			no_greedy = 1;
		} else if (!strcmp(a, "--no-even")) {
			no_even = 1;
		} else {
			fprintf(stderr, "spgo: infer: unexpected argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	struct spgo_infer_opts o;
	spgo_infer_defaults(&o, (enum spgo_algo)algo);
	if (k_inc >= 0)
		o.k_inc = k_inc;
	if (k_dec >= 0)
		o.k_dec = k_dec;
	if (k_inc0 >= 0)
		o.k_inc0 = k_inc0;
	if (no_join)
		o.join_islands = 0;
	if (no_rebalance)
		o.rebalance = 0;
	if (no_greedy)
		o.greedy = 0;
	if (no_even)
		o.even_split = 0;

	struct spgo_cfg_file f;
	if (spgo_cfg_parse_file(&f, cfg_path))
		return cli_fail();
	struct spgo_out out;
	if (spgo_out_open(&out, out_path)) {
		spgo_cfg_file_free(&f);
		return cli_fail();
	}
	int rc = 0;
	double sv = 0, se = 0, sc = 0, wv = 0, we = 0, wsum = 0;
	size_t neval = 0, ninvalid = 0;
	double *times = time_runs ? xmalloc(time_runs * sizeof *times) : NULL;
	for (size_t i = 0; i < f.n && rc == 0; i++) {
		struct spgo_cfg *cfg = &f.cfgs[i];
		const char *name = cfg->name ? cfg->name : "-";
		if (time_runs) {
			for (uint64_t r = 0; r < time_runs; r++) {
				double t0 = spgo_now();
				spgo_infer(cfg, &o);
				times[r] = spgo_now() - t0;
			}
			qsort(times, time_runs, sizeof *times, cmp_double);
			fprintf(out.fp, "time %s %zu %zu %.1f\n", name, cfg->nblocks, cfg->nedges,
				times[time_runs / 2] * 1e6);
			continue;
		}
		if (spgo_infer(cfg, &o)) {
			rc = cli_fail();
			break;
		}
		char why[160];
		int valid = o.algo == SPGO_ALGO_NONE || spgo_flow_check(cfg, why, sizeof why) == 0;
		if (!valid) {
			ninvalid++;
			spgo_warn("%s: cfg %s: invalid flow: %s", cfg_path, name, why);
		}
		if (!eval) {
			spgo_cfg_write_counts(out.fp, cfg, f.labels[i]);
			continue;
		}
		if (!f.truth_block[i]) {
			rc = spgo_error("%s: cfg %s: --eval needs truth= counts", cfg_path, name);
			rc = cli_fail();
			break;
		}
		uint64_t gsum = 0;
		for (size_t b = 0; b < cfg->nblocks; b++)
			gsum += f.truth_block[i][b];
		if (gsum == 0)
			continue; /* never ran: nothing to compare */
		struct spgo_overlap ov;
		spgo_overlap(cfg, f.truth_block[i], f.truth_edge[i], &ov);
		fprintf(out.fp, "overlap %s %zu %.6f %.6f %.6f\n", name, cfg->nblocks, ov.vertex, ov.edge,
			ov.coverage);
		neval++;
		sv += ov.vertex, se += ov.edge, sc += ov.coverage;
		wv += ov.vertex * (double)gsum, we += ov.edge * (double)gsum, wsum += (double)gsum;
	}
	if (rc == 0 && eval && neval)
		fprintf(out.fp,
			"mean %s cfgs=%zu vertex=%.4f edge=%.4f coverage=%.4f weighted_vertex=%.4f "
			"weighted_edge=%.4f invalid=%zu\n",
			spgo_algo_name(o.algo), neval, sv / neval, se / neval, sc / neval, wv / wsum, we / wsum,
			ninvalid);
	free(times);
	if (rc == 0 && spgo_out_commit(&out))
		rc = cli_fail();
	else if (rc)
		spgo_out_abort(&out);
	spgo_cfg_file_free(&f);
	return rc;
}
