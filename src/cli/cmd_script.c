/*
 * spgo script: print perf.data as `perf script` prints it, byte for byte,
 * for the fields llvm-profgen and other tools read: ip, brstack, pid, tid,
 * call stacks (printed when the samples have them) and --show-mmap-events.
 * The printer is the perf stage's (spgo/perf_script.h); this file reads the
 * options and reports.
 *
 * Debug/test options:
 *   --aggregate BINARY   aggregate the samples of BINARY and dump the
 *                        aggregate as text (spgo/aggregate.h) instead.
 *   --map-to BINARY      print each sample's ip as BINARY's own virtual
 *                        address ("-" when outside it), one per line.
 *   --text               the input is `perf script` text (with --aggregate).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "spgo/aggregate.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_script.h"
#include "spgo/perf_spe.h"
#include "spgo/perf_write.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: spgo script [-i perf.data] [-F ip,brstack,pid,tid] "
		    "[--show-mmap-events] [--raw-stacks] [-o OUT]\n"
		    "       spgo script [-i perf.data|--text FILE] --aggregate BINARY [-o OUT]\n"
		    "       spgo script [-i perf.data] --map-to BINARY\n"
		    "       spgo script [-i perf.data] --spe-packets   (the Arm SPE packets of the\n"
		    "         AUX data, as perf script -D dumps them)\n"
		    "       spgo script [-i perf.data] --rewrite OUT   (copy without the record\n"
		    "         types older tools stop at, e.g. FINISHED_INIT for create_llvm_prof)\n"
		    "Prints perf.data as `perf script` does for these fields (default: ip,brstack\n"
		    "when the samples have branch stacks, else ip).\n");
}

/* --aggregate: the aggregate of BINARY's samples, dumped as text; how fast
 * it was read and what matched the binary go to stderr. */
static int run_aggregate(const char *in, int text, const char *binary, FILE *out)
{
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, binary, NULL) < 0)
		return -1;
	double t0 = spgo_now();
	int rc = text ? spgo_agg_read_text(agg, in) : spgo_agg_read_perf(agg, in);
	if (rc == 0) {
		const struct spgo_agg_stats *st = spgo_agg_stats(agg);
		double dt = spgo_now() - t0;
		spgo_info("aggregated %llu bytes in %.3f s (%.0f MB/s)",
			  (unsigned long long)st->bytes, dt, dt > 0 ? st->bytes / dt / 1e6 : 0.0);
		rc = spgo_agg_check_matched(agg);
		size_t nm;
		const struct spgo_agg_match *m = spgo_agg_matches(agg, &nm);
		for (size_t i = 0; i < nm; i++)
			fprintf(stderr, "spgo: %s: matched '%s' in the data by %s\n", binary,
				m[i].name, m[i].how);
	}
	if (rc == 0)
		spgo_agg_dump(agg, out);
	spgo_agg_free(agg);
	return rc;
}

/* --spe-packets: each AUXTRACE record's SPE packets, as perf -D dumps them. */
static int run_spe_dump(const char *in, FILE *out)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, in, 0) < 0)
		return -1;
	struct spgo_perf_record rec;
	int rc;
	while ((rc = spgo_perf_next(r, &rec)) > 0)
		if (rec.type == SPGO_PERF_RECORD_AUXTRACE && rec.u.aux.data)
			spgo_spe_dump(rec.u.aux.data, (size_t)rec.u.aux.avail, out);
	spgo_perf_close(r);
	return rc < 0 ? -1 : 0;
}

/* --map-to: each sample's ip in BINARY's own addresses. */
static int run_map_to(const char *in, const char *binary, FILE *out)
{
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, binary, NULL) < 0)
		return -1;
	int rc = spgo_agg_map_samples(agg, in, out);
	spgo_agg_free(agg);
	return rc;
}

enum { O_MMAP = CLI_LONG, O_AGGREGATE, O_MAP_TO, O_TEXT, O_REWRITE, O_RAW_STACKS, O_SPE_DUMP };
static const struct cli_opt opts[] = {
	CLI_VAL("i", 'i'), CLI_VAL("input", 'i'),
	CLI_VAL("F", 'F'), CLI_VAL("fields", 'F'),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_FLAG("show-mmap-events", O_MMAP),
	CLI_FLAG("raw-stacks", O_RAW_STACKS),
	CLI_FLAG("spe-packets", O_SPE_DUMP),
	CLI_VAL("aggregate", O_AGGREGATE),
	CLI_VAL("map-to", O_MAP_TO),
	CLI_FLAG("text", O_TEXT),
	CLI_VAL("rewrite", O_REWRITE),
	CLI_FLAG("v", 'v'), CLI_FLAG("verbose", 'v'),
	{0},
};
static const struct cli_cmd cmd = {.name = "script", .usage = usage, .opts = opts};

int cmd_script(int argc, char **argv)
{
	const char *in = "perf.data", *out = "-", *fspec = NULL, *aggregate = NULL, *map_to = NULL;
	const char *rewrite = NULL;
	int text = 0, spe_dump = 0;
	struct spgo_perf_script_opts po = {.fields = SPGO_PERF_SCRIPT_AUTO};
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case 'i': in = op.val; break;
		case 'F': fspec = op.val; break;
		case 'o': out = op.val; break;
		case O_MMAP: po.show_mmap = 1; break;
		case O_RAW_STACKS: po.raw_stacks = 1; break;
		case O_AGGREGATE: aggregate = op.val; break;
		case O_MAP_TO: map_to = op.val; break;
		case O_TEXT: text = 1; break;
		case O_REWRITE: rewrite = op.val; break;
		case O_SPE_DUMP: spe_dump = 1; break;
		case 'v': spgo_verbose = 1; break;
		case CLI_ARG: return cli_usage(&op, "unexpected argument '%s' (the input is -i FILE)", op.val);
		}
	}
	/* The output is opened first: one that cannot be written fails now. */
	if (rewrite)
		return spgo_out_reserve(rewrite) < 0 || spgo_perf_rewrite(in, rewrite) < 0 ? cli_fail() : 0;
	if (fspec && spgo_perf_script_fields(fspec, &po.fields) < 0)
		return cli_usage(&op, "option '-F': %s", spgo_errmsg());

	struct spgo_out so;
	if (spgo_out_open(&so, out) < 0)
		return cli_fail();
	int rc = aggregate ? run_aggregate(in, text, aggregate, so.fp)
		 : map_to  ? run_map_to(in, map_to, so.fp)
		 : spe_dump ? run_spe_dump(in, so.fp)
			   : spgo_perf_script(in, so.fp, &po);
	if (rc < 0) {
		spgo_out_abort(&so);
		return cli_fail();
	}
	if (spgo_out_commit(&so) < 0)
		return cli_fail();
	return 0;
}
