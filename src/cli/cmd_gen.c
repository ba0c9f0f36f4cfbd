/*
 * spgo gen: perf samples of an optimized binary -> a compiler sample
 * profile.  Options in, one call of spgo_gen_job_run() (src/gen/job.c)
 * that does the work; the names llvm-profgen users bring are aliases
 * (--perfdata, --perfscript, --output, --use-md5, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "spgo/gen.h"
#include "spgo/ground_truth.h"

static const char usage_text[] =
	"usage: spgo gen --binary BIN [--debug-binary DBG] [--dwp F] [--dwo-dir D] (--perf-data P | --perf-script S)\n"
	"                -o OUT [--format text|extbinary|gcov] [--pid PID] [--mode auto|lbr|ip]\n"
	"                [--event N|NAME] [--infer ALGO | --no-infer] [--target-llvm 14|19]\n"
	"                [--gcov-version 1|2] [--update-total-samples] [--use-dwarf-correlation]\n"
	"                [--cs [--cs-nested] [--cs-infer-tail-calls | --cs-no-infer-tail-calls]\n"
	"                      [--cs-call-estimate first|entry]]\n"
	"                [--preinline [--preinline-params LIST]]\n"
	"                [--quiet]\n"
	"       spgo gen --binary BIN [--debug-binary DBG] --ground-truth GT -o OUT [--format F]\n"
	"       spgo gen --binary BIN --ground-truth-cs GT [--truth-view fp|true] -o OUT [--format F]\n"
	"\n"
	"Generate an AutoFDO sample profile of BIN from perf samples of it.\n"
	"  --binary BIN        the profiled (optimized) binary, as it ran\n"
	"  --debug-binary DBG  read DWARF from DBG (a separate debug file; default: the\n"
	"                      binary's, else one found by build-id or .gnu_debuglink)\n"
	CLI_SPLIT_USAGE	"  --perf-data P       perf.data (\"-\" = stdin; file or pipe format)\n"
	"  --unsymbolized F... unsymbolized profiles (spgo aggregate, spgo merge, llvm-profgen\n"
	"                      --skip-symbolization) instead, added up\n"
	"  --perf-script S     `perf script -F ip,brstack` (or `-F ip`) text instead;\n"
	"                      with --show-mmap-events for a PIE; also reads the pid,\n"
	"                      tid and event fields, call stacks, llvm-profgen's\n"
	"                      aggregated counts\n"
	"  --ground-truth GT   exact counts from `spgo emulate --ground-truth` instead:\n"
	"                      the reference profile sampled ones are measured against\n"
	"  --ground-truth-cs GT  the reference CS profile from `spgo emulate\n"
	"                      --ground-truth-cs` (every context; --cs's rules)\n"
	"  --truth-view V      its frame-pointer view (fp, default) or true view\n"
	"  -o OUT              the profile to write (\"-\" = stdout; also --output)\n"
	"  --format F          extbinary (default; clang -fprofile-sample-use), text,\n"
	"                      or gcov (gcc -fauto-profile; implies GCC conventions:\n"
	"                      create_gcov's, its noise floor included: code with at\n"
	"                      most max(10, 5e-6 of all) samples gets no profile)\n"
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
	"  --target-llvm V     the LLVM version that reads an extbinary profile (default\n"
	"                      both; also --llvm); --compress, --md5, --partial as in merge\n"
	"  --gcov-version V    2: GCC 12 layout (default); 1: the autofdo tools' layout\n"
	"  --infer ALGO        IP mode (and --cs without LBR): the inference algorithm:\n"
	"                      profi (default), mcf (min-cost flow, as the Taming paper),\n"
	"                      fp, quadratic\n"
	"  --no-infer          IP mode (and --cs without LBR): keep block averages\n"
	"  --confidence        IP mode, profi: weigh each block's cost by the samples\n"
	"                      behind it (closer to exact counts; not faster so far)\n"
	"  --cs                context-sensitive (CSSPGO) profile from LBR + call stacks\n"
	"                      (perf record -b -g); flat contexts [main:3 @ foo]; keyed\n"
	"                      by pseudo-probes when BIN has them (--use-dwarf-correlation:\n"
	"                      by DWARF lines).  Data without LBR: from IP samples with\n"
	"                      frame-pointer call stacks (perf record -e cpu-clock\n"
	"                      --call-graph fp, spgo record --call-graph fp; a build with\n"
	"                      -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer): the\n"
	"                      contexts from the stacks, block counts per context by\n"
	"                      --infer's algorithm (said on stderr)\n"
	"  --cs-nested         ... in the nested form (contexts as inlinees)\n"
	"  --cs-infer-tail-calls  ... with frames lost to tail calls inserted where a\n"
	"                      unique chain of sampled tail calls explains them (the\n"
	"                      default for probe-based profiles, as llvm-profgen)\n"
	"  --cs-no-infer-tail-calls  ... without (llvm-profgen --infer-missing-frames=0)\n"
	"  --cs-call-estimate E  line-keyed CS: the call count a context with no sampled\n"
	"                      call (an inlined copy) gives its call site: its first\n"
	"                      sampled line's count (first, the default, as llvm-profgen)\n"
	"                      or the count of the line its code starts at in the binary,\n"
	"                      1 if unsampled (entry: the first sampled line may be a\n"
	"                      loop header, giving a call the loop's count)\n"
	"  --preinline         --cs with the CSSPGO pre-inliner, nested, as llvm-profgen\n"
	"                      19's default: contexts to inline marked ShouldBeInlined,\n"
	"                      the others merged into base profiles (opt-in for now;\n"
	"                      plain --cs stays flat without it)\n"
	"  --preinline-params LIST  its thresholds, NAME=VALUE,...: hot (1500), cold (0),\n"
	"                      growth (12), min (100), max (50000), prev-mult (100),\n"
	"                      cutoff-cold (999999), cutoff-norm (100000), context-cost (1),\n"
	"                      replay (0), zero-callers (0), inclusive (0), sort-scc (1)\n"
	"  --quiet             no statistics on stderr\n"
	"\n"
	"--cs unwinds the samples on a second thread while perf.data is read\n"
	"(SPGO_THREADS=1: in one thread; the profile is the same).\n";

static void usage(FILE *fp)
{
	fputs(usage_text, fp);
}

enum {
	G_BINARY = CLI_LONG, G_DEBUG, G_DATA, G_SCRIPT, G_TRUTH, G_TRUTH_CS, G_VIEW, G_PID, G_MODE,
	G_EVENT, G_DWARF, G_UPDATE, G_INFER, G_NO_INFER, G_CONFIDENCE, G_CS, G_CS_NESTED, G_CS_TAIL,
	G_CS_NO_TAIL, G_CS_CALL_EST, G_QUIET, G_UNSYM, G_PREINLINE, G_PREINLINE_PARAMS,
};
static const struct cli_opt opts[] = {
	CLI_VAL("binary", G_BINARY),
	CLI_VAL("debug-binary", G_DEBUG),
	CLI_VAL("perf-data", G_DATA), CLI_VAL("perfdata", G_DATA),
	CLI_VAL("perf-script", G_SCRIPT), CLI_VAL("perfscript", G_SCRIPT),
	CLI_VAL("unsymbolized", G_UNSYM),
	CLI_VAL("ground-truth", G_TRUTH),
	CLI_VAL("ground-truth-cs", G_TRUTH_CS),
	CLI_VAL("truth-view", G_VIEW),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("pid", G_PID),
	CLI_VAL("mode", G_MODE),
	CLI_VAL("event", G_EVENT),
	CLI_FLAG("use-dwarf-correlation", G_DWARF),
	CLI_FLAG("update-total-samples", G_UPDATE),
	CLI_VAL("infer", G_INFER),
	CLI_FLAG("no-infer", G_NO_INFER),
	CLI_FLAG("confidence", G_CONFIDENCE),
	CLI_FLAG("cs", G_CS),
	CLI_FLAG("cs-nested", G_CS_NESTED),
	CLI_FLAG("cs-infer-tail-calls", G_CS_TAIL),
	CLI_FLAG("cs-no-infer-tail-calls", G_CS_NO_TAIL),
	CLI_VAL("cs-call-estimate", G_CS_CALL_EST),
	CLI_FLAG("preinline", G_PREINLINE),
	CLI_VAL("preinline-params", G_PREINLINE_PARAMS),
	CLI_FLAG("quiet", G_QUIET),
	CLI_SPLIT_OPTS,
	CLI_WRITE_OPTS,
	{0},
};
static const struct cli_cmd cmd = {.name = "gen", .usage = usage, .opts = opts};

/*
 * Options into the job; -1 when the command is done (usage error or
 * --help) with *status its exit status.  unsym gets the --unsymbolized
 * files (room for argc).
 */
static int parse(int argc, char **argv, struct spgo_gen_job *jp, struct cli_split *sp, const char **unsym,
		 int *status)
{
	struct spgo_gen_job j = *jp;
	struct cli_split split = {0};
	size_t nunsym = 0; /* --unsymbolized F...: the files after it until the next option */
	uint64_t v;
	int k, r, choice;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	while ((k = cli_next(&op)) != CLI_END) {
		if ((r = cli_split_take(&split, &op, k)) != 0 || (r = cli_write_take(&op, k, &j.fmt, &j.wo)) != 0) {
			if (r == CLI_ERR)
				{ *status = 2; return -1; }
			continue;
		}
		switch (k) {
		case CLI_HELP: { *status = 0; return -1; }
		case CLI_ERR: { *status = 2; return -1; }
		case CLI_ARG:
			if (!nunsym)
				{ *status = cli_usage(&op, "unexpected argument '%s'", op.val); return -1; }
			/* another unsymbolized profile */
			/* fall through */
		case G_UNSYM: unsym[nunsym++] = op.val; break;
		case G_BINARY: j.binary = op.val; break;
		case G_DEBUG: j.debug = op.val; break;
		case G_DATA: j.perf_data = op.val; break;
		case G_SCRIPT: j.perf_script = op.val; break;
		case G_TRUTH: j.truth = op.val; break;
		case G_TRUTH_CS: j.truth_cs = op.val; break;
		case G_VIEW: /* in SPGO_GT_VIEW_* order */
			if (cli_choice(&op, "fp\0true\0", &j.truth_view) < 0)
				{ *status = 2; return -1; }
			break;
		case 'o': j.out = op.val; break;
		case G_PID:
			if (cli_u64(&op, 0, UINT32_MAX, &v) < 0)
				{ *status = 2; return -1; }
			j.have_pid = 1, j.pid = (uint32_t)v;
			break;
		case G_MODE: /* in enum spgo_gen_mode order */
			if (cli_choice(&op, "auto\0lbr\0ip\0", &choice) < 0)
				{ *status = 2; return -1; }
			j.opts.mode = (enum spgo_gen_mode)choice;
			break;
		case G_EVENT: /* a number, else a name as the data has it */
			if (!spgo_parse_u64(op.val, &v)) {
				if (cli_u64(&op, 0, 1000, &v) < 0)
					{ *status = 2; return -1; }
				j.opts.event = (int)v;
			} else if (!*op.val) {
				{ *status = cli_bad(&op, "option '%s' needs an event number or name", op.opt); return -1; }
			} else {
				j.opts.event_name = op.val;
			}
			break;
		case G_DWARF: j.opts.dwarf_lines = 1; break;
		case G_UPDATE: j.opts.update_totals = 1; break;
		case G_INFER:
			if (spgo_gen_check_infer(op.val) < 0)
				{ *status = cli_bad(&op, "option '%s': %s", op.opt, spgo_errmsg()); return -1; }
			j.opts.infer_algo = op.val;
			break;
		case G_NO_INFER: j.opts.no_infer = 1; break;
		case G_CONFIDENCE: j.opts.confidence = 1; break;
		case G_CS: j.cs = 1; break;
		case G_CS_NESTED: j.cs = j.cs_nested = 1; break;
		case G_CS_TAIL: j.cs = j.cs_opts.infer_missing_frames = 1; break;
		case G_CS_NO_TAIL: j.cs = 1, j.cs_opts.infer_missing_frames = 0; break;
		case G_CS_CALL_EST:
			if (cli_choice(&op, "first\0entry\0", &j.cs_opts.call_estimate) < 0)
				{ *status = 2; return -1; }
			j.cs = 1;
			break;
		case G_PREINLINE: j.cs = j.cs_nested = j.cs_opts.preinline = 1; break;
		case G_PREINLINE_PARAMS:
			if (spgo_preinline_parse(&j.cs_opts.pre, op.val) < 0)
				{ *status = cli_bad(&op, "option '%s': %s", op.opt, spgo_errmsg()); return -1; }
			break;
		case G_QUIET: j.report = NULL; break;
		}
	}
	if (j.fmt == SPGO_FMT_UNKNOWN)
		j.fmt = SPGO_FMT_EXTBINARY;
	if (!j.binary || !j.out)
		{ *status = cli_usage(&op, "--binary BIN and -o OUT are needed"); return -1; }
	j.unsym = unsym;
	j.nunsym = nunsym;
	if ((j.perf_data != NULL) + (j.perf_script != NULL) + (j.truth != NULL) + (j.truth_cs != NULL) +
	    (nunsym > 0) != 1)
		{ *status = cli_usage(&op, "one input: --perf-data, --perf-script, --unsymbolized, "
				 "--ground-truth or --ground-truth-cs"); return -1; }
	if (j.perf_script && j.have_pid)
		{ *status = cli_usage(&op, "--pid works with --perf-data only"); return -1; }
	if (j.cs && (j.truth || j.truth_cs || j.fmt == SPGO_FMT_GCOV))
		{ *status = cli_usage(&op, "--cs needs --perf-data or --perf-script and an LLVM format"); return -1; }
	*sp = split; /* the job points into the caller's copy */
	j.dwp = sp->dwp;
	j.dwo_dirs = sp->dirs;
	j.ndwo_dirs = (size_t)sp->ndirs;
	*jp = j;
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct spgo_gen_job j = {.truth_view = SPGO_GT_VIEW_FP, .fmt = SPGO_FMT_UNKNOWN, .report = stderr};
	spgo_gen_defaults(&j.opts);
	spgo_cs_defaults(&j.cs_opts);
	const char *nthreads = getenv("SPGO_THREADS");
	if (nthreads && strcmp(nthreads, "1") == 0)
		j.cs_opts.unwind_thread = 0; /* (the profile is the same) */
	j.wo.gcov_version = 2;
	const char **unsym = xcalloc((size_t)argc + 1, sizeof *unsym);
	struct cli_split split;
	int status = 0;
	/* The output is opened first: one that cannot be written fails now. */
	if (parse(argc, argv, &j, &split, unsym, &status) == 0)
		status = spgo_out_reserve(j.out) < 0 || spgo_gen_job_run(&j) < 0 ? cli_fail() : 0;
	free(unsym);
	return status;
}
