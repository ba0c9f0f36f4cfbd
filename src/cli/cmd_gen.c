/*
 * spgo gen: perf samples of an optimized binary -> a compiler sample
 * profile (spgo/gen.h): read and aggregate the samples of the binary,
 * generate, write atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/aggregate.h"
#include "spgo/common.h"
#include "spgo/binary.h"
#include "spgo/context.h"
#include "spgo/gen.h"
#include "spgo/ground_truth.h"
#include "spgo/perf.h"
#include "spgo/profile.h"

static const char usage[] =
	"usage: spgo gen --binary BIN [--debug-binary DBG] [--dwp F] [--dwo-dir D] (--perf-data P | --perf-script S)\n"
	"                -o OUT [--format text|extbinary|gcov] [--pid PID] [--mode auto|lbr|ip]\n"
	"                [--event N|NAME] [--infer ALGO | --no-infer] [--llvm 14|19]\n"
	"                [--gcov-version 1|2] [--update-total-samples] [--use-dwarf-correlation]\n"
	"                [--cs [--cs-nested] [--cs-infer-tail-calls | --cs-no-infer-tail-calls]]\n"
	"                [--preinline [--preinline-params LIST]]\n"
	"                [--quiet]\n"
	"       spgo gen --binary BIN [--debug-binary DBG] --ground-truth GT -o OUT [--format F]\n"
	"       spgo gen --binary BIN --ground-truth-cs GT [--truth-view fp|true] -o OUT [--format F]\n"
	"\n"
	"Generate an AutoFDO sample profile of BIN from perf samples of it.\n"
	"  --binary BIN        the profiled (optimized) binary, as it ran\n"
	"  --debug-binary DBG  read DWARF from DBG (a separate debug file)\n"
	CLI_SPLIT_USAGE	"  --perf-data P       perf.data (\"-\" = stdin; file or pipe format)\n"
	"  --perf-script S     `perf script -F ip,brstack` (or `-F ip`) text instead;\n"
	"                      with --show-mmap-events for a PIE; also reads the pid,\n"
	"                      tid and event fields, call stacks, llvm-profgen's\n"
	"                      aggregated counts\n"
	"  --ground-truth GT   exact counts from `spgo emulate --ground-truth` instead:\n"
	"                      the reference profile sampled ones are measured against\n"
	"  --ground-truth-cs GT  the reference CS profile from `spgo emulate\n"
	"                      --ground-truth-cs` (every context; --cs's rules)\n"
	"  --truth-view V      its frame-pointer view (fp, default) or true view\n"
	"  -o OUT              the profile to write (\"-\" = stdout)\n"
	"  --format F          extbinary (default; clang -fprofile-sample-use), text,\n"
	"                      or gcov (gcc -fauto-profile; implies GCC conventions)\n"
	"  --pid PID           only samples of process PID\n"
	"  --mode M            lbr: from branch stacks (perf record -b); ip: from sampled\n"
	"                      instruction pointers (any event); auto (default): lbr when\n"
	"                      the data has branch stacks\n"
	"  --event N|NAME      count only the samples of event number N, or of the event\n"
	"                      named NAME as perf script prints it (cpu-clock, cycles:u);\n"
	"                      LBR mode too (default: IP mode counts the event with the\n"
	"                      most samples, others classify blocks; LBR mode takes all)\n"
	"  --use-dwarf-correlation  a line-based profile from a binary with pseudo-\n"
	"                      probes (default there: probe-based, keyed by probe id)\n"
	"  --update-total-samples  total samples = the sum of the body samples (as\n"
	"                      llvm-profgen's option), not count x instruction size\n"
	"  --llvm V            the LLVM version that reads an extbinary profile (default both)\n"
	"  --gcov-version V    2: GCC 12 layout (default); 1: the autofdo tools' layout\n"
	"  --infer ALGO        IP mode: the inference algorithm: profi (default), mcf\n"
	"                      (min-cost flow, as the Taming paper), fp, quadratic\n"
	"  --no-infer          IP mode: keep block averages, no profile inference\n"
	"  --confidence        IP mode, profi: weigh each block's cost by the samples\n"
	"                      behind it (closer to exact counts; not faster so far)\n"
	"  --cs                context-sensitive (CSSPGO) profile from LBR + call stacks\n"
	"                      (perf record -b -g); flat contexts [main:3 @ foo]; keyed\n"
	"                      by pseudo-probes when BIN has them (--use-dwarf-correlation:\n"
	"                      by DWARF lines)\n"
	"  --cs-nested         ... in the nested form (contexts as inlinees)\n"
	"  --cs-infer-tail-calls  ... with frames lost to tail calls inserted where a\n"
	"                      unique chain of sampled tail calls explains them (the\n"
	"                      default for probe-based profiles, as llvm-profgen)\n"
	"  --cs-no-infer-tail-calls  ... without (llvm-profgen --infer-missing-frames=0)\n"
	"  --preinline         --cs with the CSSPGO pre-inliner, nested, as llvm-profgen\n"
	"                      19's default: contexts to inline marked ShouldBeInlined,\n"
	"                      the others merged into base profiles (opt-in for now;\n"
	"                      plain --cs stays flat without it)\n"
	"  --preinline-params LIST  its thresholds, NAME=VALUE,...: hot (1500), cold (0),\n"
	"                      growth (12), min (100), max (50000), prev-mult (100),\n"
	"                      cutoff-cold (999999), cutoff-norm (100000), context-cost (1),\n"
	"                      replay (0), zero-callers (0), inclusive (0), sort-scc (1)\n"
	"  --quiet             no statistics on stderr\n";

/*
 * Read perf.data into agg, only samples of pid when have_pid.  Call stacks
 * are left out: an AutoFDO profile does not use them, and the aggregate
 * would keep every distinct stack with its branch stack (for
 * context-sensitive work), which costs time and memory per sample.
 */
static int read_perf(struct spgo_aggregate *agg, const char *path, int have_pid, uint32_t pid,
		     struct spgo_gen_icalls *icalls, int keep_stacks, int *stacks_lbr)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	spgo_agg_begin(agg, r);
	struct spgo_perf_record rec;
	int rc;
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE) {
			if (have_pid && rec.sample.pid != pid)
				continue;
			if (rec.sample.callchain_nr && rec.sample.branch_nr)
				*stacks_lbr = 1;
			if (!keep_stacks)
				rec.sample.callchain_nr = 0;
		}
		spgo_agg_feed(agg, &rec);
		if (rec.type == PERF_RECORD_SAMPLE)
			spgo_gen_icalls_feed(icalls, &rec);
	}
	spgo_agg_finish(agg);
	agg->stats.bytes += spgo_perf_bytes_read(r);
	spgo_perf_close(r);
	return rc < 0 ? -1 : 0;
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
	const struct spgo_agg_stats *st = spgo_agg_stats(agg);
	if (!st->samples && st->samples_other_event) {
		char *seen = spgo_agg_events_seen(agg);
		char idx[32];
		snprintf(idx, sizeof idx, "number %d", o->event);
		spgo_error("%s: no samples of event %s%s%s; the data has: %s", path,
			   o->event_name ? "'" : "", o->event_name ? o->event_name : idx,
			   o->event_name ? "'" : "", seen);
		free(seen);
		return -1;
	}
	o->event = -1;
	return 0;
}

/* --ground-truth-cs: the reference CS profile of one view. */
static int gen_truth_cs(const char *binary, const char *debug, const struct cli_split *split,
			const char *truth, int view, const char *out, enum spgo_format fmt,
			const struct spgo_write_opts *wo)
{
	struct spgo_binary *bin;
	struct spgo_gt_cs gt;
	struct spgo_profile *p = NULL;
	if (spgo_binary_open(&bin, binary, debug) < 0)
		return cli_fail();
	cli_split_apply(split, bin);
	int rc = spgo_gt_cs_read(&gt, truth);
	if (rc == 0) {
		rc = spgo_gen_truth_cs(bin, &gt.views[view], -1, &p);
		spgo_gt_cs_free(&gt);
	}
	spgo_binary_close(bin);
	if (rc == 0)
		rc = spgo_profile_write(p, out, fmt, wo);
	spgo_profile_free(p);
	return rc < 0 ? cli_fail() : 0;
}

static int gen_truth(const char *binary, const char *debug, const struct cli_split *split, const char *truth,
		     const struct spgo_gen_opts *o, const char *out, enum spgo_format fmt,
		     const struct spgo_write_opts *wo, int quiet)
{
	struct spgo_binary *bin;
	struct spgo_ground_truth gt = {0};
	if (spgo_binary_open(&bin, binary, debug) < 0)
		return cli_fail();
	cli_split_apply(split, bin);
	if (spgo_gt_read(&gt, truth) < 0) {
		spgo_binary_close(bin);
		return cli_fail();
	}
	size_t idlen;
	const uint8_t *id = spgo_binary_build_id(bin, &idlen);
	const struct spgo_gt_dso *d = spgo_gt_find_dso(&gt, id, idlen, binary);
	struct spgo_profile *p = NULL;
	struct spgo_gen_stats st;
	int rc = d ? spgo_gen_truth(bin, d, o, &p, &st)
		   : spgo_error("%s: no section for %s in it (by build-id or file name)", truth, binary);
	spgo_gt_free(&gt);
	spgo_binary_close(bin);
	if (rc < 0)
		return cli_fail();
	if (!quiet)
		fprintf(stderr, "spgo: gen: ground truth: %llu executed instructions, %llu functions\n",
			(unsigned long long)st.insns_counted, (unsigned long long)st.functions);
	rc = spgo_profile_write(p, out, fmt, wo);
	spgo_profile_free(p);
	return rc < 0 ? cli_fail() : 0;
}

/* --cs: the context stage (spgo/context.h) on an aggregate that kept its
 * stacks; rc is how reading went. */
static int gen_cs(struct spgo_aggregate *agg, const struct spgo_cs_opts *o, int nested,
		  const char *out, enum spgo_format fmt, const struct spgo_write_opts *wo, int quiet,
		  int rc)
{
	struct spgo_profile *p = NULL;
	struct spgo_cs_stats st;
	if (rc == 0)
		rc = spgo_cs_gen(agg, o, &p, &st);
	spgo_agg_free(agg);
	if (rc < 0)
		return cli_fail();
	if (!quiet)
		spgo_cs_print_stats(&st, stderr);
	if (nested) {
		struct spgo_profile *n = spgo_profile_cs_nest(p);
		spgo_profile_free(p);
		if (!n)
			return cli_fail();
		p = n;
	}
	rc = spgo_profile_write(p, out, fmt, wo);
	spgo_profile_free(p);
	return rc < 0 ? cli_fail() : 0;
}

int cmd_gen(int argc, char **argv)
{
	const char *binary = NULL, *debug = NULL, *data = NULL, *script = NULL, *out = NULL;
	const char *truth = NULL, *truth_cs = NULL;
	int truth_view = SPGO_GT_VIEW_FP;
	const char *format = "extbinary";
	int have_pid = 0, quiet = 0, cs = 0, cs_nested = 0, stacks_lbr = 0;
	struct spgo_cs_opts cso;
	spgo_cs_defaults(&cso);
	uint64_t pid = 0, v;
	struct spgo_gen_opts o;
	struct spgo_write_opts wo = {0};
	struct cli_split split = {0};
	spgo_gen_defaults(&o);
	wo.gcov_version = 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && val && (i++, 1))
		int r = cli_split_arg(&split, argc, argv, &i);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (ARG("--binary")) {
			binary = val;
		} else if (ARG("--debug-binary")) {
			debug = val;
		} else if (ARG("--perf-data")) {
			data = val;
		} else if (ARG("--perf-script")) {
			script = val;
		} else if (ARG("--ground-truth")) {
			truth = val;
		} else if (ARG("--ground-truth-cs")) {
			truth_cs = val;
		} else if (ARG("--truth-view")) {
			if ((truth_view = spgo_gt_cs_view_parse(val)) < 0)
				goto bad;
		} else if (ARG("-o") || ARG("--output")) {
			out = val;
		} else if (ARG("--format")) {
			format = val;
		} else if (ARG("--pid")) {
			if (spgo_parse_u64(val, &pid) || pid > UINT32_MAX)
				goto bad;
			have_pid = 1;
		} else if (ARG("--mode")) {
			if (!strcmp(val, "auto"))
				o.mode = SPGO_GEN_AUTO;
			else if (!strcmp(val, "lbr"))
				o.mode = SPGO_GEN_LBR;
			else if (!strcmp(val, "ip"))
				o.mode = SPGO_GEN_IP;
			else
				goto bad;
		} else if (ARG("--event")) {
			if (!spgo_parse_u64(val, &v)) {
				if (v > 1000)
					goto bad;
				o.event = (int)v;
			} else if (!*val) {
				goto bad;
			} else {
				o.event_name = val;
			}
		} else if (!strcmp(a, "--use-dwarf-correlation")) {
			o.dwarf_lines = 1;
		} else if (!strcmp(a, "--update-total-samples")) {
			o.update_totals = 1;
		} else if (ARG("--llvm")) {
			if (spgo_parse_u64(val, &v) || (v != 14 && v != 19))
				goto bad;
			wo.target_llvm = (int)v;
		} else if (ARG("--gcov-version")) {
			if (spgo_parse_u64(val, &v) || (v != 1 && v != 2))
				goto bad;
			wo.gcov_version = (int)v;
		} else if (ARG("--infer")) {
			if (spgo_gen_check_infer(val) < 0)
				return cli_fail();
			o.infer_algo = val;
		} else if (!strcmp(a, "--no-infer")) {
			o.no_infer = 1;
		} else if (!strcmp(a, "--confidence")) {
			o.confidence = 1;
		} else if (!strcmp(a, "--cs")) {
			cs = 1;
		} else if (!strcmp(a, "--cs-nested")) {
			cs = cs_nested = 1;
		} else if (!strcmp(a, "--cs-infer-tail-calls")) {
			cs = cso.infer_missing_frames = 1;
		} else if (!strcmp(a, "--cs-no-infer-tail-calls")) {
			cs = 1;
			cso.infer_missing_frames = 0;
		} else if (!strcmp(a, "--preinline")) {
			cs = cs_nested = cso.preinline = 1;
		} else if (ARG("--preinline-params")) {
			if (spgo_preinline_parse(&cso.pre, val) < 0)
				return cli_fail();
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else {
			fprintf(stderr, "spgo gen: unknown or incomplete option '%s'\n%s", a, usage);
			return 2;
		}
		continue;
	bad:
		fprintf(stderr, "spgo gen: bad value for %s: '%s'\n", a, val);
		return 2;
#undef ARG
	}
	if (!binary || !out || (data != NULL) + (script != NULL) + (truth != NULL) + (truth_cs != NULL) != 1) {
		fputs(usage, stderr);
		return 2;
	}
	enum spgo_format fmt;
	if (spgo_format_parse(format, &fmt) < 0)
		return cli_fail();
	if (fmt == SPGO_FMT_GCOV)
		o.gcc = 1;
	if (script && have_pid) {
		fprintf(stderr, "spgo gen: --pid works with --perf-data only\n");
		return 2;
	}

	if (cs && (truth || fmt == SPGO_FMT_GCOV)) {
		fprintf(stderr, "spgo gen: --cs needs --perf-data or --perf-script and an LLVM format\n");
		return 2;
	}
	if (truth_cs)
		return gen_truth_cs(binary, debug, &split, truth_cs, truth_view, out, fmt, &wo);
	if (truth)
		return gen_truth(binary, debug, &split, truth, &o, out, fmt, &wo, quiet);

	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, binary, debug) < 0)
		return cli_fail();
	cli_split_apply(&split, agg->bin);
	int rc;
	struct spgo_gen_icalls *icalls = NULL;
	if (o.event_name || o.event >= 0)
		spgo_agg_select_event(agg, o.event, o.event_name);
	if (script) {
		rc = spgo_agg_read_text(agg, script);
	} else {
		spgo_gen_icalls_new(&icalls, agg);
		rc = read_perf(agg, data, have_pid, (uint32_t)pid, icalls, cs, &stacks_lbr);
		o.icalls = icalls;
	}
	if (rc == 0)
		rc = check_event(agg, &o, script ? script : data);
	if (cs) {
		spgo_gen_icalls_free(icalls);
		cso.dwarf_lines = o.dwarf_lines;
		return gen_cs(agg, &cso, cs_nested, out, fmt, &wo, quiet, rc);
	}
	struct spgo_profile *p = NULL;
	struct spgo_gen_stats st;
	if (rc == 0)
		rc = spgo_gen(agg, &o, &p, &st);
	if (rc < 0) {
		spgo_gen_icalls_free(icalls);
		spgo_agg_free(agg);
		return cli_fail();
	}
	if (!quiet)
		spgo_gen_print_stats(&st, agg, stderr);
	if (!quiet && (stacks_lbr || agg->stats.stack_samples) && agg->stats.lbr_samples)
		fprintf(stderr, "spgo: gen: note: the data has call stacks with LBR: a context-sensitive "
			"(CSSPGO) profile is available with --cs\n");
	if (!quiet && icalls && st.mode == SPGO_GEN_IP) {
		uint64_t ns, nu, dok, dbad, np;
		spgo_gen_icalls_stats(icalls, &ns, &nu, &dok, &dbad, &np);
		if (nu)
			fprintf(stderr,
				"spgo: indirect calls: %llu of %llu samples unwound to their caller "
				"(direct calls: %llu to the sampled function, %llu not); %llu call "
				"targets written, count %llu\n",
				(unsigned long long)nu, (unsigned long long)ns,
				(unsigned long long)dok, (unsigned long long)dbad,
				(unsigned long long)st.icalls, (unsigned long long)st.icall_count);
	}
	spgo_gen_icalls_free(icalls);
	/* A profile of a handful of samples guides the compiler badly. */
	if (st.count_debug < 1000 && !quiet)
		spgo_warn("the profile is tiny (%llu counts in code with debug information): record "
			  "longer or at a higher frequency (perf record -F, -c)",
			  (unsigned long long)st.count_debug);
	spgo_agg_free(agg);
	rc = spgo_profile_write(p, out, fmt, &wo);
	spgo_profile_free(p);
	return rc < 0 ? cli_fail() : 0;
}
