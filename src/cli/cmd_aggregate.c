/*
 * spgo aggregate: perf samples -> an unsymbolized profile (spgo/unsym.h),
 * the map step of a fleet pipeline: what `spgo script --aggregate` computes,
 * per binary, keyed by build-id, in binary offsets, as a file that
 * `spgo merge` adds up and `spgo gen --unsymbolized` turns into a profile.
 *
 * Also here, because they are the same format's: the merge of unsymbolized
 * profiles (cli_merge_unsym, from cmd_merge.c when its inputs are such).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/aggregate.h"
#include "spgo/perf.h"
#include "spgo/unsym.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: spgo aggregate --binary BIN [--binary BIN]... -o OUT [--format bin|text|profgen]\n"
		"                      [--perf-script] [--cs] [--event N|NAME] [--pid N] [--hosts N] INPUT...\n"
		"Aggregates the samples of each BIN in each INPUT (perf.data, \"-\" = stdin) into an\n"
		"unsymbolized profile: per binary, keyed by build-id, the LBR ranges and branches,\n"
		"the sampled ips per event and, with --cs, the distinct (call stack, LBR)\n"
		"samples, in offsets from the binary's preferred base (llvm-profgen's), with\n"
		"a header (events, kinds, sample counts, hosts).  Each INPUT counts as one host.\n"
		"`spgo merge` adds such profiles up; `spgo gen --unsymbolized` generates from them.\n"
		"  --binary BIN     a binary to aggregate (repeatable); one that has no samples\n"
		"                   in the data is left out with a warning\n"
		"  --perf-script    the inputs are `perf script` text, not perf.data\n"
		"  --cs             keep the (call stack, LBR) samples for `spgo gen --cs`\n"
		"  --event N|NAME   only the samples of that event\n"
		"  --pid N          perf.data: only the samples of process N (an input with no\n"
		"                   sample of it, or none at all, is an error naming its pids)\n"
		"  --hosts N        count the whole as N hosts (default: one per input)\n"
		"  --format F       bin (default: the compact form), text (llvm-profgen's\n"
		"                   syntax with spgo's header, ips and stacks on '#' lines),\n"
		"                   profgen (what llvm-profgen --unsymbolized-profile reads:\n"
		"                   one binary's ranges and branches only)\n"
		"  --quiet          no summary on stderr\n");
}

enum { A_BINARY = CLI_LONG, A_SCRIPT, A_CS, A_EVENT, A_HOSTS, A_QUIET, A_INPUT, A_PID };
static const struct cli_opt opts[] = {
	CLI_VAL("binary", A_BINARY),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("i", A_INPUT), CLI_VAL("input", A_INPUT),
	CLI_FLAG("perf-script", A_SCRIPT),
	CLI_FLAG("cs", A_CS),
	CLI_VAL("event", A_EVENT),
	CLI_VAL("pid", A_PID),
	CLI_VAL("hosts", A_HOSTS),
	CLI_VAL("format", CLI_KEY_FORMAT),
	CLI_FLAG("quiet", A_QUIET),
	{0},
};
static const struct cli_cmd cmd = {.name = "aggregate", .usage = usage, .opts = opts};

/* Read one perf.data into every aggregate, the samples of pid only when
 * have_pid; a capture with no samples (of pid) is an error saying so. */
static int read_perf(struct spgo_aggregate **aggs, int n, const char *path, int have_pid, uint32_t pid)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	for (int k = 0; k < n; k++)
		if (spgo_agg_begin(aggs[k], r) < 0) {
			spgo_perf_close(r);
			return -1;
		}
	struct spgo_perf_record rec;
	int rc;
	struct spgo_pid_census pids = {0};
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE) {
			spgo_pid_census_add(&pids, rec.sample.pid);
			if (have_pid && rec.sample.pid != pid)
				continue;
		}
		for (int k = 0; k < n; k++)
			spgo_agg_feed(aggs[k], &rec);
	}
	for (int k = 0; k < n; k++) {
		spgo_agg_finish(aggs[k]);
		aggs[k]->stats.bytes += spgo_perf_bytes_read(r);
	}
	spgo_perf_close(r);
	return rc < 0 ? -1 : spgo_pid_census_check(&pids, path, have_pid, pid);
}

int cmd_aggregate(int argc, char **argv)
{
	const char *out = NULL, *event = NULL;
	enum spgo_unsym_format fmt = SPGO_UNSYM_BIN;
	int script = 0, cs = 0, quiet = 0, nbin = 0, nin = 0, have_pid = 0;
	uint64_t hosts = 0, pid = 0;
	const char **bins = xcalloc((size_t)argc + 1, sizeof *bins);
	const char **ins = xcalloc((size_t)argc + 1, sizeof *ins);
	struct cli_parser op;
	int rc = 2;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: rc = 0; goto done;
		case CLI_ERR: goto done;
		case 'o': out = op.val; break;
		case A_BINARY: bins[nbin++] = op.val; break;
		case A_INPUT:
		case CLI_ARG: ins[nin++] = op.val; break;
		case A_SCRIPT: script = 1; break;
		case A_CS: cs = 1; break;
		case A_EVENT: event = op.val; break;
		case A_QUIET: quiet = 1; break;
		case A_HOSTS:
			if (cli_u64(&op, 1, UINT32_MAX, &hosts) < 0)
				goto done;
			break;
		case A_PID:
			if (cli_u64(&op, 0, UINT32_MAX, &pid) < 0)
				goto done;
			have_pid = 1;
			break;
		case CLI_KEY_FORMAT:
			if (spgo_unsym_format_parse(op.val, &fmt) < 0) {
				cli_bad(&op, "option '%s': unknown form '%s' (bin, text, profgen)", op.opt,
					op.val);
				goto done;
			}
			break;
		}
	}
	if (have_pid && script) {
		cli_bad(&op, "--pid works with perf.data inputs only (not --perf-script)");
		goto done;
	}
	if (!out || !nbin || !nin) {
		cli_bad(&op, "%s", !out ? "no output: -o OUT" : !nbin ? "no --binary" : "no input");
		goto done;
	}
	rc = 1;
	if (spgo_out_reserve(out) < 0) { /* before the work: fails now if it cannot be written */
		cli_fail();
		goto done;
	}
	struct spgo_unsym *u = spgo_unsym_new();
	struct spgo_aggregate **aggs = xcalloc((size_t)nbin, sizeof *aggs);
	uint64_t *hits = xcalloc((size_t)nbin, sizeof *hits);
	/* One aggregate per (input, binary): each input is a host; its events
	 * are matched to the others' by name when it is added. */
	for (int i = 0; i < nin; i++) {
		int ok = 0;
		for (int b = 0; b < nbin; b++) {
			if (spgo_agg_new(&aggs[b], bins[b], NULL) < 0)
				goto fail;
			spgo_agg_keep_stacks(aggs[b], cs); /* as spgo gen without --cs */
			if (event) {
				uint64_t v;
				if (!spgo_parse_u64(event, &v))
					spgo_agg_select_event(aggs[b], (long)v, NULL);
				else
					spgo_agg_select_event(aggs[b], -1, event);
			}
		}
		if (script) {
			for (int b = 0; b < nbin; b++)
				if (spgo_agg_read_text(aggs[b], ins[i]) < 0)
					goto fail;
		} else if (read_perf(aggs, nbin, ins[i], have_pid, (uint32_t)pid) < 0) {
			goto fail;
		}
		for (int b = 0; b < nbin; b++) {
			if (aggs[b]->stats.samples_matched || aggs[b]->stats.branches) {
				spgo_unsym_add_agg(u, aggs[b], hosts ? 0 : 1);
				hits[b]++;
				ok = 1;
			}
			spgo_agg_free(aggs[b]);
			aggs[b] = NULL;
		}
		if (!ok)
			spgo_warn("%s: no sample falls in any of the binaries", ins[i]);
	}
	for (int b = 0; b < nbin; b++)
		if (!hits[b])
			spgo_warn("%s: no samples in the data: left out", bins[b]);
	if (!u->bins.n) {
		spgo_error("no sample of the data falls in the binaries given");
		goto fail;
	}
	if (hosts)
		for (size_t s = 0; s < u->bins.n; s++)
			u->bins.v[s]->hosts = hosts;
	if (spgo_unsym_write(u, out, fmt) < 0)
		goto fail;
	if (!quiet)
		for (size_t s = 0; s < u->bins.n; s++) {
			uint64_t keys, count;
			const struct spgo_unsym_bin *x = u->bins.v[s];
			spgo_unsym_totals(x, &keys, &count);
			fprintf(stderr,
				"spgo: aggregate: %s: %llu samples (%llu with LBR, %llu with stacks), "
				"%zu ranges, %zu branches, %zu events, %zu stacks\n",
				x->path, (unsigned long long)x->samples,
				(unsigned long long)x->lbr_samples,
				(unsigned long long)x->stack_samples, x->ranges.n, x->branches.n,
				x->events.n, x->nstacks);
		}
	rc = 0;
fail:
	if (rc)
		cli_fail();
	for (int b = 0; b < nbin; b++)
		spgo_agg_free(aggs[b]);
	free(aggs);
	free(hits);
	spgo_unsym_free(u);
done:
	free(bins);
	free(ins);
	return rc;
}

int cli_merge_unsym(const char *out, const char **files, const uint64_t *weights, int n,
		    const char *format, double trim, int quiet)
{
	enum spgo_unsym_format fmt = SPGO_UNSYM_UNKNOWN;
	if (format && spgo_unsym_format_parse(format, &fmt) < 0)
		return cli_bad_cmd("merge", "unsymbolized profiles are written as bin, text or "
				   "profgen, not '%s'", format);
	if (!fmt) { /* the inputs' forms decide, not their order */
		enum spgo_unsym_format *forms = xcalloc((size_t)n + 1, sizeof *forms);
		for (int i = 0; i < n; i++)
			forms[i] = spgo_unsym_sniff_file(files[i]);
		fmt = spgo_unsym_merged_format(forms, (size_t)n);
		free(forms);
	}
	/* One input at a time into the sum: memory is the distinct keys. */
	struct spgo_unsym *u = spgo_unsym_new();
	for (int i = 0; i < n; i++)
		if (spgo_unsym_read(u, files[i], weights[i]) < 0) {
			spgo_unsym_free(u);
			return cli_fail();
		}
	uint64_t dropped = trim > 0 ? spgo_unsym_trim(u, trim) : 0;
	int rc = spgo_unsym_write(u, out, fmt);
	if (rc == 0 && !quiet && trim > 0)
		fprintf(stderr, "spgo: merge: %llu cold keys dropped (at most %g of each map's count)\n",
			(unsigned long long)dropped, trim);
	spgo_unsym_free(u);
	return rc < 0 ? cli_fail() : 0;
}
