/*
 * spgo gen: perf samples of an optimized binary -> a compiler sample
 * profile.  Options in, one call of spgo_gen_job_run() (src/gen/job.c)
 * that does the work; the names llvm-profgen users bring are aliases
 * (--perfdata, --perfscript, --output, --use-md5, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "spgo/gen.h"
#include "spgo/ground_truth.h"
#include "spgo/layout.h"

static const char usage_text[] =
	"usage: spgo gen --binary BIN [--debug-binary DBG] [--dwp F] [--dwo-dir D] (--perf-data P | --perf-script S)\n"
	"                -o OUT [--format text|extbinary|gcov|bolt|bolt-pa|order|order-ld|propeller]\n"
	"                [[--format F] -o OUT]...\n"
	"                [--pid PID] [--mode auto|lbr|ip]\n"
	"                [--event N|NAME] [--infer ALGO | --no-infer] [--target-llvm 14|19]\n"
	"                [--gcov-version 1|2] [--update-total-samples] [--use-dwarf-correlation]\n"
	"                [--cs | --no-cs] [--cs-nested | --cs-flat] [--preinline | --no-preinline]\n"
	"                [--cs-infer-tail-calls | --cs-no-infer-tail-calls] [--cs-call-estimate first|entry]\n"
	"                [--preinline-params LIST]\n"
	"                [--quiet]\n"
	"       spgo gen --kernel --binary vmlinux [--module KO]... --perf-data P -o OUT\n"
	"       spgo gen --binary BIN [--debug-binary DBG] --ground-truth GT -o OUT [--format F]\n"
	"       spgo gen --binary BIN --ground-truth-cs GT [--truth-view fp|true] -o OUT [--format F]\n"
	"\n"
	"Generate an AutoFDO sample profile of BIN from perf samples of it.\n"
	"  --binary BIN        the profiled (optimized) binary, as it ran\n"
	"  --debug-binary DBG  read DWARF from DBG (a separate debug file; default: the\n"
	"                      binary's, else one found by build-id or .gnu_debuglink,\n"
	"                      then from the debuginfod servers of DEBUGINFOD_URLS)\n"
	CLI_SPLIT_USAGE	"  --perf-data P       perf.data (\"-\" = stdin; file or pipe format); given\n"
	"                      several times (and with --perf-script), the captures are\n"
	"                      added up as spgo aggregate does (one host each)\n"
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
	"  -o OUT              the profile to write (\"-\" = stdout; also --output, and\n"
	"                      create_llvm_prof's --out and --gcov: the format is --format's)\n"
	"  -o OUT ... -o OUT   several outputs from one read of the samples (up to 8): each\n"
	"                      -o in the --format given last before it (none: the default\n"
	"                      format): the profile and layouts of one --perf-data, as\n"
	"                      -o a.prof --format bolt -o a.fdata --format order -o a.order;\n"
	"                      all written, or none\n"
	"  (no input)          ./perf.data, as perf report reads it (said on stderr)\n"
	"  --profile P         create_llvm_prof's --perf-data (--profiler perf: accepted)\n"
	"  --format F          extbinary (clang -fprofile-sample-use; the default unless\n"
	"                      gcc built the binary), text, or gcov (gcc -fauto-profile;\n"
	"                      the default for a gcc-built binary; GCC conventions:\n"
	"                      create_gcov's, its noise floor included: code with at\n"
	"                      most max(10, 5e-6 of all) samples gets no profile);\n"
	"                      layout profiles (--perf-data only): bolt (BOLT's fdata,\n"
	"                      llvm-bolt --data), bolt-pa (perf2bolt --pa), order\n"
	"                      (--symbol-ordering-file), order-ld (GNU ld script),\n"
	"                      propeller (clang -fbasic-block-sections=list=OUT, and\n"
	"                      OUT.order for --symbol-ordering-file; LBR, and a binary\n"
	"                      built with -fbasic-block-sections=labels)\n"
	"  --kernel            the Linux kernel's profile (llvm-profgen's option): BIN is\n"
	"                      vmlinux (with DWARF), P a system-wide capture (perf record\n"
	"                      -a -b with a :k event); the kernel's samples and branches\n"
	"                      go to vmlinux (KASLR undone), user space is left out\n"
	"  --module KO         with --kernel: also the samples of module KO (the .ko\n"
	"                      with DWARF, named by its file: ext4.ko); repeatable;\n"
	"                      one profile for vmlinux and its modules\n"
	"                      (CLANG_AUTOFDO_PROFILE)\n"
	"  --pid PID           only samples of process PID\n"
	"  --mode M            lbr: from branch stacks (perf record -b); ip: from sampled\n"
	"                      instruction pointers (any event); auto (default): lbr when\n"
	"                      the data has branch stacks\n"
	"  --event N|NAME      count only the samples of event number N, or of the event\n"
	"                      named NAME as perf script prints it (cpu-clock, cycles:u);\n"
	"                      LBR mode too (default: IP mode counts the event with the\n"
	"                      most samples, others classify blocks; LBR mode takes all)\n"
	"  --filter-build-id HEX  perf script addresses keyed \"BUILDID:0xADDR\": those of\n"
	"                      this build-id are the binary's, others external (default:\n"
	"                      the binary's own build-id)\n"
	"  --use-dwarf-correlation  a line-based profile from a binary with pseudo-\n"
	"                      probes (default there: probe-based, keyed by probe id)\n"
	"  --update-total-samples  total samples = the sum of the body samples (as\n"
	"                      llvm-profgen's option), not count x instruction size\n"
	"  --target-llvm V     the LLVM version that reads an extbinary profile (default\n"
	"                      both; also --llvm); --compress, --md5, --partial as in merge\n"
	"  --gcov-version V    2: GCC 12 layout (default); 1: the autofdo tools' layout\n"
	"  --infer ALGO        IP mode, Arm SPE (and --cs without LBR): the inference algorithm:\n"
	"                      profi (default), mcf (min-cost flow, as the Taming paper),\n"
	"                      fp, quadratic\n"
	"  --no-infer          IP mode, Arm SPE (and --cs without LBR): keep block averages\n"
	"  --confidence        IP mode, profi: weigh each block's cost by the samples\n"
	"                      behind it (closer to exact counts; not faster so far)\n"
	"  (no --cs/--no-cs)   as llvm-profgen 19: on LBR with call stacks (perf record\n"
	"                      -b -g, spgo emulate) of a binary with pseudo-probes, the\n"
	"                      --cs profile (said on stderr); else context-insensitive\n"
	"                      (a DWARF build: AutoFDO; --cs for contexts)\n"
	"  --cs                context-sensitive (CSSPGO) profile from LBR + call stacks\n"
	"                      (perf record -b -g), as llvm-profgen 19 writes it: nested\n"
	"                      and pre-inlined (--cs-flat, --no-preinline: not); keyed\n"
	"                      by pseudo-probes when BIN has them (--use-dwarf-correlation:\n"
	"                      by DWARF lines).  Data without LBR: from IP samples with\n"
	"                      frame-pointer call stacks (perf record -e cpu-clock\n"
	"                      --call-graph fp, spgo record --call-graph fp; a build with\n"
	"                      -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer): the\n"
	"                      contexts from the stacks, block counts per context by\n"
	"                      --infer's algorithm (said on stderr)\n"
	"  --no-cs             the context-insensitive profile (probe-based on a probe build)\n"
	"  --cs-nested         --cs in the nested form, contexts as inlinees (the default)\n"
	"  --cs-flat           --cs with flat contexts [main:3 @ foo]\n"
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
	"  --preinline         --cs with the CSSPGO pre-inliner (the default, as llvm-profgen\n"
	"                      19): contexts to inline marked ShouldBeInlined, the\n"
	"                      others merged into base profiles\n"
	"  --no-preinline      --cs without it (every context kept)\n"
	"  --preinline-params LIST  its thresholds, NAME=VALUE,...: hot (1500), cold (0),\n"
	"                      growth (12), min (100), max (50000), prev-mult (100),\n"
	"                      cutoff-cold (999999), cutoff-norm (100000), context-cost (1),\n"
	"                      replay (0), zero-callers (0), inclusive (0), sort-scc (1)\n"
	"  --quiet             no statistics on stderr\n"
	"llvm-profgen's options, with its meaning (booleans also as --NAME=true|false|1|0):\n"
	"  --pd, --ps, --up, --unsymbolized-profile  = --perf-data, --perf-script, --unsymbolized\n"
	"                      (an llvm-profgen CS unsymbolized file is read as plain ranges)\n"
	"  --ignore-stack-samples  = --no-cs (an error with --cs); on data with call stacks,\n"
	"                      the samples whose stack's leaf is in a prologue or epilogue\n"
	"                      are left out, as llvm-profgen checks hybrid samples\n"
	"  --csspgo-preinliner[=B]  --cs with (or without) the pre-inliner\n"
	"  --gen-cs-nested-profile[=B]  --cs, nested (true) or flat contexts (false; with\n"
	"                      the pre-inliner: flat contexts marked ShouldBeInlined)\n"
	"  --infer-missing-frames[=B]  --cs: false = --cs-no-infer-tail-calls\n"
	"  --compress-recursion N  --cs: compress repeated frame sequences up to N frames\n"
	"                      (-1: no limit, the default; 0: off)\n"
	"  --csprof-max-context-depth K  --cs: keep the K callers nearest the leaf (-1: all)\n"
	"  --csprof-merge-cold-context[=B]  --cs: merge contexts under the hot threshold\n"
	"                      (default: on, off with the pre-inliner)\n"
	"  --csprof-max-cold-context-depth K  ... into their last K frames (1: base profile)\n"
	"  --trim-cold-profile[=B]  drop profiles under the cold count (--cs: contexts under\n"
	"                      the hot threshold)\n"
	"  --profile-summary-hot-count N, --profile-summary-cold-count N  those thresholds\n"
	"                      fixed; --profile-summary-cutoff-hot P, -cutoff-cold P: the\n"
	"                      summary entries giving them (per million: 990000, 999999)\n"
	"  --fill-zero-for-all-funcs[=B]  LBR mode: every function, zero where nothing ran\n"
	"  --populate-profile-symbol-list[=B]  extbinary: list every function with debug\n"
	"                      information (the compiler then takes unprofiled ones as cold)\n"
	"  --skip-symbolization[=B]  write the LBR ranges and branches unsymbolized in\n"
	"                      llvm-profgen's text (for --up), not a profile; with --cs (or\n"
	"                      its default) unwound, per context; IP samples without LBR in\n"
	"                      its basic-event form\n"
	"  --llvm-sample-profile F  the input is a flat CS profile: its post-passes run\n"
	"                      again (cold contexts merged, trimmed, --gen-cs-nested-profile;\n"
	"                      not the pre-inliner: --csspgo-preinliner=false)\n"
	"  --spe               perf script text (--itrace=bl1 -F ip,brstack) is Arm SPE:\n"
	"                      one sampled branch per sample, ranges inferred up to the\n"
	"                      next branch (llvm-profgen's --spe-branch-profile; SPE in\n"
	"                      perf.data is known without it)\n"
	"  --sample-period N   the capture's period (perf record -c N): counts in events,\n"
	"                      an LBR sample's N / (its entries in the binary - 1), an IP\n"
	"                      sample's N (newer llvm-profgen's; not with --cs; perf script\n"
	"                      text with call stacks is not weighted, as llvm-profgen)\n"
	"  --show-density[=B]  print llvm-profgen's density line on stdout\n"
	"                      (--profile-density-cutoff-hot P: at P per million, 990000)\n"
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
	G_PROFILER, G_FILTER_ID, G_NO_CS, G_CS_FLAT, G_NO_PREINLINE, G_KERNEL, G_MODULE,
	/* llvm-profgen's names (below) */
	G_PG_IGNORE_STACKS, G_PG_PREINLINER, G_PG_NESTED, G_PG_INFER_FRAMES, G_PG_MERGE_COLD,
	G_PG_COMPRESS, G_PG_DEPTH, G_PG_COLD_DEPTH, G_PG_TRIM, G_PG_HOT_COUNT, G_PG_COLD_COUNT,
	G_PG_CUTOFF_HOT, G_PG_CUTOFF_COLD, G_PG_FILL_ZERO, G_PG_SYMBOLS, G_PG_SHOW_DENSITY,
	G_PG_DENSITY_CUTOFF, G_PG_SAMPLE_PERIOD, G_PG_SPE, G_PG_LLVM_PROFILE, G_PG_SKIP_SYMBOLIZATION,
};
static const struct cli_opt opts[] = {
	CLI_VAL("binary", G_BINARY),
	CLI_VAL("debug-binary", G_DEBUG),
	CLI_VAL("perf-data", G_DATA), CLI_VAL("perfdata", G_DATA),
	CLI_VAL("perf-script", G_SCRIPT), CLI_VAL("perfscript", G_SCRIPT),
	CLI_VAL("profile", G_DATA), CLI_VAL("out", 'o'), CLI_VAL("gcov", 'o'), /* create_llvm_prof's */
	CLI_VAL("profiler", G_PROFILER),
	CLI_VAL("unsymbolized", G_UNSYM),
	CLI_VAL("ground-truth", G_TRUTH),
	CLI_VAL("ground-truth-cs", G_TRUTH_CS),
	CLI_VAL("truth-view", G_VIEW),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_VAL("pid", G_PID),
	CLI_FLAG("kernel", G_KERNEL),
	CLI_VAL("module", G_MODULE),
	CLI_VAL("mode", G_MODE),
	CLI_VAL("event", G_EVENT),
	CLI_VAL("filter-build-id", G_FILTER_ID),
	CLI_FLAG("use-dwarf-correlation", G_DWARF),
	CLI_FLAG("update-total-samples", G_UPDATE),
	CLI_VAL("infer", G_INFER),
	CLI_FLAG("no-infer", G_NO_INFER),
	CLI_FLAG("confidence", G_CONFIDENCE),
	CLI_FLAG("cs", G_CS),
	CLI_FLAG("cs-nested", G_CS_NESTED),
	CLI_FLAG("cs-flat", G_CS_FLAT),
	CLI_FLAG("no-cs", G_NO_CS),
	CLI_FLAG("cs-infer-tail-calls", G_CS_TAIL),
	CLI_FLAG("cs-no-infer-tail-calls", G_CS_NO_TAIL),
	CLI_VAL("cs-call-estimate", G_CS_CALL_EST),
	CLI_FLAG("preinline", G_PREINLINE),
	CLI_FLAG("no-preinline", G_NO_PREINLINE),
	CLI_VAL("preinline-params", G_PREINLINE_PARAMS),
	CLI_FLAG("quiet", G_QUIET),
	/* llvm-profgen's names: its inputs' aliases, and its options with its
	 * meaning (booleans also as --name=true|false|1|0) */
	CLI_VAL("pd", G_DATA), CLI_VAL("ps", G_SCRIPT),
	CLI_VAL("unsymbolized-profile", G_UNSYM), CLI_VAL("up", G_UNSYM),
	CLI_BOOL("ignore-stack-samples", G_PG_IGNORE_STACKS),
	CLI_BOOL("csspgo-preinliner", G_PG_PREINLINER),
	CLI_BOOL("gen-cs-nested-profile", G_PG_NESTED),
	CLI_BOOL("infer-missing-frames", G_PG_INFER_FRAMES),
	CLI_BOOL("csprof-merge-cold-context", G_PG_MERGE_COLD),
	CLI_VAL("compress-recursion", G_PG_COMPRESS),
	CLI_VAL("csprof-max-context-depth", G_PG_DEPTH),
	CLI_VAL("csprof-max-cold-context-depth", G_PG_COLD_DEPTH),
	CLI_BOOL("trim-cold-profile", G_PG_TRIM),
	CLI_VAL("profile-summary-hot-count", G_PG_HOT_COUNT),
	CLI_VAL("profile-summary-cold-count", G_PG_COLD_COUNT),
	CLI_VAL("profile-summary-cutoff-hot", G_PG_CUTOFF_HOT),
	CLI_VAL("profile-summary-cutoff-cold", G_PG_CUTOFF_COLD),
	CLI_BOOL("fill-zero-for-all-funcs", G_PG_FILL_ZERO),
	CLI_BOOL("populate-profile-symbol-list", G_PG_SYMBOLS),
	CLI_BOOL("show-density", G_PG_SHOW_DENSITY),
	CLI_VAL("profile-density-cutoff-hot", G_PG_DENSITY_CUTOFF),
	CLI_VAL("sample-period", G_PG_SAMPLE_PERIOD),
	CLI_BOOL("spe-branch-profile", G_PG_SPE),
	CLI_BOOL("spe", G_PG_SPE),
	CLI_VAL("llvm-sample-profile", G_PG_LLVM_PROFILE),
	CLI_BOOL("skip-symbolization", G_PG_SKIP_SYMBOLIZATION),
	CLI_SPLIT_OPTS,
	CLI_WRITE_OPTS,
	{0},
};
static const struct cli_cmd cmd = {.name = "gen", .usage = usage, .opts = opts};

/* What the CS options said that is settled after all are read: 1, 0, or
 * -1 (not given: llvm-profgen 19's default, on). */
struct profgen_opts {
	int ignore_stacks; /* --ignore-stack-samples, --no-cs */
	int nested;        /* --gen-cs-nested-profile, --cs-nested, --cs-flat */
	int preinline;     /* --csspgo-preinliner, --preinline, --no-preinline */
};

/* A signed count in [-1, hi] (llvm-profgen's "-1 means no limit"). */
static int int_or_none(const struct cli_parser *op, uint64_t hi, int *out)
{
	uint64_t v;
	if (!strcmp(op->val, "-1")) {
		*out = -1;
		return 0;
	}
	if (cli_u64(op, 0, hi, &v) < 0)
		return CLI_ERR;
	*out = (int)v;
	return 0;
}

/*
 * llvm-profgen's options (the table's block "llvm-profgen's names"), with
 * its meaning: 1 taken, 0 not one of them, CLI_ERR.  Its CS-only options
 * imply --cs, as spgo's own --cs-* do.
 */
static int take_profgen(const struct cli_parser *op, int k, struct spgo_gen_job *j, struct profgen_opts *pg)
{
	struct spgo_cs_opts *cs = &j->cs_opts;
	uint64_t v;
	int b = 0;
	if (op->cmd->opts && k >= G_PG_IGNORE_STACKS && k <= G_PG_SKIP_SYMBOLIZATION) {
		for (const struct cli_opt *o = op->cmd->opts; o->name; o++)
			if (o->key == k && o->arg == CLI_OPT && cli_bool(op, &b) < 0)
				return CLI_ERR;
	}
	switch (k) {
	case G_PG_IGNORE_STACKS: pg->ignore_stacks = j->ignore_stacks = b; return 1;
	case G_PG_PREINLINER: j->cs = 1, pg->preinline = b; return 1;
	case G_PG_NESTED: j->cs = 1, pg->nested = b; return 1;
	/* llvm-profgen 19 infers missing frames for probe-based profiles only */
	case G_PG_INFER_FRAMES: j->cs = 1, cs->infer_missing_frames = b ? -1 : 0; return 1;
	case G_PG_MERGE_COLD: j->cs = 1, cs->merge_cold = b; return 1;
	case G_PG_COMPRESS: j->cs = 1; return int_or_none(op, INT32_MAX, &cs->compress_recursion) < 0 ? CLI_ERR : 1;
	case G_PG_DEPTH: j->cs = 1; return int_or_none(op, INT32_MAX, &cs->max_context_depth) < 0 ? CLI_ERR : 1;
	case G_PG_COLD_DEPTH:
		if (cli_u64(op, 1, INT32_MAX, &v) < 0)
			return CLI_ERR;
		j->cs = 1, cs->max_cold_depth = (int)v;
		return 1;
	case G_PG_TRIM: j->trim_cold = cs->trim_cold = b; return 1;
	case G_PG_HOT_COUNT:
	case G_PG_COLD_COUNT:
		if (cli_u64(op, 0, INT64_MAX, &v) < 0)
			return CLI_ERR;
		if (k == G_PG_HOT_COUNT)
			cs->hot_count = (int64_t)v;
		else
			j->cold_count = cs->pre.cold_count = (int64_t)v;
		return 1;
	case G_PG_CUTOFF_HOT:
	case G_PG_CUTOFF_COLD:
	case G_PG_DENSITY_CUTOFF: /* per million */
		if (cli_u64(op, 0, 1000000, &v) < 0)
			return CLI_ERR;
		if (k == G_PG_CUTOFF_HOT)
			cs->cutoff_hot = (uint32_t)v;
		else if (k == G_PG_CUTOFF_COLD)
			j->cutoff_cold = cs->pre.cutoff_cold = (uint32_t)v;
		else
			j->density_cutoff = (uint32_t)v;
		return 1;
	case G_PG_SAMPLE_PERIOD:
		if (cli_u64(op, 1, UINT64_MAX, &v) < 0)
			return CLI_ERR;
		j->sample_period = v;
		return 1;
	case G_PG_LLVM_PROFILE: j->llvm_profile = op->val; return 1; /* (an input) */
	case G_PG_FILL_ZERO: j->opts.fill_zero = b; return 1;
	case G_PG_SPE: j->spe = b; return 1;
	case G_PG_SYMBOLS: j->symbol_list = b; return 1;
	case G_PG_SHOW_DENSITY: j->show_density = b; return 1;
	case G_PG_SKIP_SYMBOLIZATION: j->skip_symbolization = b; return 1;
	}
	return 0;
}

/*
 * After all options: what llvm-profgen's settle. 0, or the usage status.
 * A CS profile is nested and pre-inlined unless told otherwise, as
 * llvm-profgen 19 writes it; without a choice (j->cs -1) the job makes one
 * when the data is LBR with call stacks of a binary with pseudo-probes
 * (spgo_gen_job_run), unless an option asks for what only the
 * context-insensitive profile does.
 */
static int settle_profgen(const struct cli_parser *op, struct spgo_gen_job *j, const struct profgen_opts *pg)
{
	if (pg->ignore_stacks && j->cs > 0)
		return cli_usage(op, "--ignore-stack-samples (--no-cs) makes a context-insensitive profile: "
				     "it contradicts --cs and the CS options");
	if (j->cs < 0 && (pg->ignore_stacks || j->opts.mode == SPGO_GEN_IP || j->opts.update_totals ||
			  j->opts.fill_zero))
		j->cs = 0;
	if (j->skip_symbolization && (j->truth || j->truth_cs))
		return cli_usage(op, "--skip-symbolization writes the samples unsymbolized (llvm-profgen's "
				     "text); not exact counts");
	if (j->sample_period && (j->cs > 0 || j->truth || j->truth_cs))
		return cli_usage(op, "--sample-period weights LBR and IP samples (llvm-profgen's meaning); "
				     "not with --cs (llvm-profgen does not weight stack samples) nor exact counts");
	if (j->sample_period)
		j->cs = 0; /* (weighted LBR samples: the profile without contexts) */
	j->cs_nested = pg->nested != 0;
	j->cs_opts.preinline = pg->preinline != 0;
	return 0;
}

/*
 * Options into the job; -1 when the command is done (usage error or
 * --help) with *status its exit status.  unsym gets the --unsymbolized
 * files (room for argc).
 */
/*
 * The rules between gen's inputs, once the options are read: the default
 * input (./perf.data, as perf report), exactly one kind of input, --module
 * and --pid with what they need, --cs with an LLVM format.  0, or the exit
 * status of the usage error said.
 */
static int check_inputs(struct cli_parser *op, struct spgo_gen_job *j, const char **unsym, size_t nunsym,
			const char **caps, unsigned char *text, size_t *ncaps, const char **mods, size_t nouts)
{
	if (j->cs < 0 && (j->fmt == SPGO_FMT_GCOV || j->truth || j->truth_cs))
		j->cs = 0; /* (GCC reads no contexts; those inputs have no stacks) */
	if (!j->binary || !nouts)
		return cli_usage(op, "--binary BIN and -o OUT are needed");
	j->unsym = unsym;
	j->nunsym = nunsym;
	if (!*ncaps && !nunsym && !j->truth && !j->truth_cs && !j->llvm_profile) { /* perf report's default */
		if (access("perf.data", F_OK) != 0)
			return cli_usage(op, "no input given, and no ./perf.data to read (perf report's default): "
					      "--perf-data P, --perf-script S, --unsymbolized F or --ground-truth GT");
		fprintf(stderr, "spgo gen: no input given: reading ./perf.data (as perf report does)\n");
		caps[(*ncaps)++] = "perf.data";
	}
	if (*ncaps == 1)
		*(text[0] ? &j->perf_script : &j->perf_data) = caps[0];
	else if (*ncaps > 1)
		j->captures = caps, j->capture_text = text, j->ncaptures = *ncaps;
	if ((*ncaps > 0) + (j->truth != NULL) + (j->truth_cs != NULL) + (nunsym > 0) + (j->llvm_profile != NULL) != 1)
		return cli_usage(op, "one input: --perf-data, --perf-script, --unsymbolized, "
				 "--ground-truth, --ground-truth-cs or --llvm-sample-profile");
	j->modules = mods;
	if (j->nmodules && !j->kernel)
		return cli_usage(op, "--module goes with --kernel (a module's samples are the kernel's)");
	if (j->kernel && (j->cs > 0 || !(j->perf_data || (j->perf_script && !j->nmodules)) ||
			 j->fmt == SPGO_FMT_GCOV))
		return cli_usage(op, "--kernel reads one --perf-data (or, without --module, one "
				     "--perf-script) and writes an LLVM profile without contexts (as "
				     "llvm-profgen --kernel)");
	if (j->kernel)
		j->cs = 0;
	if (j->have_pid && memchr(text, 1, *ncaps))
		return cli_usage(op, "--pid works with --perf-data only");
	if (j->cs > 0 && (j->truth || j->truth_cs || j->fmt == SPGO_FMT_GCOV))
		return cli_usage(op, "--cs needs --perf-data or --perf-script and an LLVM format");
	return 0;
}

/*
 * The outputs as given: each -o with the --format given last before it
 * (NULL: none); with one -o, the last --format anywhere (as always:
 * `-o OUT --format F` too).  Settled into the job's and the layouts'.
 */
struct outs {
	const char **path, **fmt;
	size_t n;
	const char *last_fmt; /* the last --format given */
	int fmt_after;        /* a --format after the last -o */
	/* settled */
	struct spgo_gen_out *more; /* the profile's outputs after j->out */
	struct spgo_layout_out *lay;
	size_t nlay, nprof;
};

#define GEN_MAX_OUTPUTS 8 /* (spgo_out_hold's table holds 16 files: propeller writes two) */

/* The name of output k's second file (propeller's OUT.order), or NULL;
 * buf: room for it. */
static const char *second_file(const struct outs *o, size_t k, char *buf, size_t len)
{
	enum spgo_layout_format lf;
	if (!o->fmt[k] || spgo_layout_format_parse(o->fmt[k], &lf) < 0 || lf != SPGO_LAYOUT_PROPELLER)
		return NULL;
	snprintf(buf, len, "%s.order", o->path[k]);
	return buf;
}

/* Two outputs of one file (propeller's OUT.order counted): 0, or the usage
 * status. */
static int check_same(const struct cli_parser *op, const struct outs *o)
{
	for (size_t a = 0; a < o->n; a++)
		for (size_t b = 0; b < o->n; b++) {
			char buf[4096];
			const char *sb = second_file(o, b, buf, sizeof buf);
			if ((a < b && spgo_out_same(o->path[a], o->path[b])) || (sb && a != b && spgo_out_same(o->path[a], sb)))
				return cli_usage(op, "-o %s and -o %s%s name one file: each output needs its own",
						 o->path[a], o->path[b], a < b && spgo_out_same(o->path[a], o->path[b])
						 ? "" : " (its .order)");
		}
	return 0;
}

/*
 * The outputs settled: formats given to each -o (several -o: a --format
 * after the last is an error, it would be unused), the layouts apart, the
 * profile's first output (one without --format first: it takes the
 * default, as the others without one) into j->out, the others into
 * o->more.  0, or the usage status.
 */
static int settle_outputs(const struct cli_parser *op, struct spgo_gen_job *j, struct outs *o)
{
	if (o->n > GEN_MAX_OUTPUTS)
		return cli_usage(op, "%zu outputs: at most %d in one run", o->n, GEN_MAX_OUTPUTS);
	if (o->n > 1 && o->fmt_after)
		return cli_usage(op, "--format %s after the last -o names no output: with several -o, each "
				 "takes the --format given before it", o->last_fmt);
	if (o->n == 1 && o->last_fmt)
		o->fmt[0] = o->last_fmt;
	int r = check_same(op, o);
	if (r)
		return r;
	const enum spgo_format implied = j->fmt; /* (--gcov-version: gcov) */
	int gcov = 0, llvm = 0;
	size_t first = o->n;
	for (size_t k = 0; k < o->n; k++) {
		enum spgo_layout_format lf;
		enum spgo_format f = implied;
		if (o->fmt[k] && spgo_layout_format_parse(o->fmt[k], &lf) == 0) {
			o->lay[o->nlay++] = (struct spgo_layout_out){lf, o->path[k]};
			continue;
		}
		if (o->fmt[k])
			spgo_format_parse(o->fmt[k], &f); /* (checked when given) */
		gcov |= f == SPGO_FMT_GCOV;
		llvm |= f == SPGO_FMT_TEXT || f == SPGO_FMT_EXTBINARY;
		if (first == o->n || (!o->fmt[k] && o->fmt[first]))
			first = k; /* (a default one first) */
	}
	if (gcov && llvm)
		return cli_usage(op, "gcov and an LLVM format (text, extbinary) are two profiles (gcov is made "
				 "by GCC's conventions): one of them per run");
	for (size_t k = 0; k < o->n; k++) {
		enum spgo_layout_format lf;
		enum spgo_format f = implied;
		if (o->fmt[k] && spgo_layout_format_parse(o->fmt[k], &lf) == 0)
			continue;
		if (o->fmt[k])
			spgo_format_parse(o->fmt[k], &f);
		if (k == first)
			j->out = o->path[k], j->fmt = f;
		else
			o->more[j->nmore++] = (struct spgo_gen_out){o->path[k], f == implied ? SPGO_FMT_UNKNOWN : f};
		o->nprof++;
	}
	j->more = o->more;
	if (o->nprof > 1 && j->skip_symbolization)
		return cli_usage(op, "--skip-symbolization writes the samples, not a profile: one -o");
	return 0;
}

/*
 * Layout outputs with the rest, once the inputs are settled: they come from
 * one --perf-data read (with the profile's, when there is one).  0, or the
 * usage status.
 */
static int check_layouts(const struct cli_parser *op, const struct spgo_gen_job *j, const struct outs *o)
{
	if (!o->nlay)
		return 0;
	const char *why = j->kernel ? "--kernel" : j->nunsym ? "--unsymbolized" : j->truth ? "--ground-truth"
			  : j->truth_cs ? "--ground-truth-cs" : j->llvm_profile ? "--llvm-sample-profile"
			  : j->perf_script ? "--perf-script" : j->ncaptures ? "several captures"
			  : j->skip_symbolization ? "--skip-symbolization" : j->sample_period ? "--sample-period"
			  : NULL;
	if (why)
		return cli_usage(op, "the layout formats (bolt, bolt-pa, order, order-ld, propeller) are made "
				 "from one --perf-data read: not with %s", why);
	if (!o->nprof && j->cs > 0)
		return cli_usage(op, "--cs is the compiler profile's: a layout format alone does not take it "
				 "(add -o OUT for the profile)");
	return 0;
}

static int parse(int argc, char **argv, struct spgo_gen_job *jp, struct cli_split *sp, const char **unsym,
		 const char **caps, unsigned char *text, struct outs *outs, int *status, const char **mods)
{
	struct spgo_gen_job j = *jp;
	struct cli_split split = {0};
	struct profgen_opts pg = {.nested = -1, .preinline = -1};
	size_t nunsym = 0; /* --unsymbolized F...: the files after it until the next option */
	size_t ncaps = 0;  /* --perf-data and --perf-script, each as often as given */
	uint64_t v;
	int k, r, choice;
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	while ((k = cli_next(&op)) != CLI_END) {
		if (k == CLI_KEY_FORMAT) { /* a profile's, or a layout's (src/layout/) */
			enum spgo_layout_format lf;
			enum spgo_format f;
			if (spgo_layout_format_parse(op.val, &lf) < 0 && spgo_format_parse(op.val, &f) < 0)
				{ *status = cli_usage(&op, "option '%s': %s; or a layout format: bolt, bolt-pa, "
						    "order, order-ld, propeller", op.opt, spgo_errmsg()); return -1; }
			outs->last_fmt = op.val, outs->fmt_after = 1;
			continue;
		}
		if ((r = cli_split_take(&split, &op, k)) != 0 || (r = cli_write_take(&op, k, &j.fmt, &j.wo)) != 0) {
			if (r == CLI_ERR)
				{ *status = 2; return -1; }
			continue;
		}
		if ((r = take_profgen(&op, k, &j, &pg)) != 0) {
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
		case G_BINARY:
		case G_DEBUG: /* one binary's profile: a second one is not taken silently */
			if (k == G_BINARY ? j.binary && strcmp(j.binary, op.val)
					  : j.debug && strcmp(j.debug, op.val))
				{ *status = cli_usage(&op, "%s given twice ('%s' and '%s'): spgo gen makes the "
						      "profile of one binary (spgo aggregate takes several)",
						      op.opt, k == G_BINARY ? j.binary : j.debug, op.val); return -1; }
			*(k == G_BINARY ? &j.binary : &j.debug) = op.val;
			break;
		case G_DATA:
		case G_SCRIPT: /* several: added up (spgo_gen_job's captures) */
			text[ncaps] = k == G_SCRIPT;
			caps[ncaps++] = op.val;
			break;
		case G_KERNEL: j.kernel = 1; break;
		case G_MODULE: mods[j.nmodules++] = op.val; break;
		case G_TRUTH: j.truth = op.val; break;
		case G_TRUTH_CS: j.truth_cs = op.val; break;
		case G_VIEW: /* in SPGO_GT_VIEW_* order */
			if (cli_choice(&op, "fp\0true\0", &j.truth_view) < 0)
				{ *status = 2; return -1; }
			break;
		case 'o':
			outs->path[outs->n] = op.val;
			outs->fmt[outs->n++] = outs->fmt_after ? outs->last_fmt : NULL;
			outs->fmt_after = 0;
			break;
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
				{ *status = cli_usage(&op, "option '%s' needs an event number or name", op.opt); return -1; }
			} else {
				j.opts.event_name = op.val;
			}
			break;
		case G_FILTER_ID: /* llvm-profgen's: whose keyed addresses are the binary's */
			if (!*op.val || strlen(op.val) > 128 ||
			    strspn(op.val, "0123456789abcdefABCDEF") != strlen(op.val))
				{ *status = cli_bad(&op, "option '%s' needs a build-id in hex", op.opt); return -1; }
			j.opts.filter_build_id = op.val;
			break;
		case G_DWARF: j.opts.dwarf_lines = 1; break;
		case G_UPDATE: j.opts.update_totals = 1; break;
		case G_INFER:
			if (spgo_gen_check_infer(op.val) < 0)
				{ *status = cli_usage(&op, "option '%s': %s", op.opt, spgo_errmsg()); return -1; }
			j.opts.infer_algo = op.val;
			break;
		case G_NO_INFER: j.opts.no_infer = 1; break;
		case G_CONFIDENCE: j.opts.confidence = 1; break;
		case G_CS: j.cs = 1; break;
		case G_CS_NESTED: j.cs = pg.nested = 1; break;
		case G_CS_FLAT: j.cs = 1, pg.nested = 0; break;
		case G_NO_CS: pg.ignore_stacks = 1; break;
		case G_CS_TAIL: j.cs = j.cs_opts.infer_missing_frames = 1; break;
		case G_CS_NO_TAIL: j.cs = 1, j.cs_opts.infer_missing_frames = 0; break;
		case G_CS_CALL_EST:
			if (cli_choice(&op, "first\0entry\0", &j.cs_opts.call_estimate) < 0)
				{ *status = 2; return -1; }
			j.cs = 1;
			break;
		case G_PREINLINE: j.cs = pg.preinline = 1; break;
		case G_NO_PREINLINE: j.cs = 1, pg.preinline = 0; break;
		case G_PREINLINE_PARAMS:
			if (spgo_preinline_parse(&j.cs_opts.pre, op.val) < 0)
				{ *status = cli_usage(&op, "option '%s': %s", op.opt, spgo_errmsg()); return -1; }
			break;
		case G_QUIET: j.report = NULL; break;
		case G_PROFILER: /* create_llvm_prof's input kind: perf.data is spgo's too */
			if (strcmp(op.val, "perf"))
				{ *status = cli_usage(&op, "option '%s': '%s' is not read; spgo gen reads perf.data "
						    "(--perf-data) or perf script text (--perf-script)", op.opt, op.val);
				  return -1; }
			break;
		}
	}
	if ((*status = settle_outputs(&op, &j, outs)) != 0 || (*status = settle_profgen(&op, &j, &pg)) != 0 ||
	    (*status = check_inputs(&op, &j, unsym, nunsym, caps, text, &ncaps, mods, outs->n)) != 0 ||
	    (*status = check_layouts(&op, &j, outs)) != 0)
		return -1;
	*sp = split; /* the job points into the caller's copy */
	j.dwp = sp->dwp;
	j.dwo_dirs = sp->dirs;
	j.ndwo_dirs = (size_t)sp->ndirs;
	*jp = j;
	return 0;
}

/* Layout outputs (--format bolt, bolt-pa, order, order-ld, propeller): the
 * layout stage, same inputs; with the profile's outputs, from one read. */
static int run_layout(const struct spgo_gen_job *g, const struct outs *o)
{
	struct spgo_layout_job l = {.outs = o->lay, .nouts = o->nlay, .gen = o->nprof ? g : NULL,
				    .binary = g->binary, .debug = g->debug, .perf_data = g->perf_data,
				    .have_pid = g->have_pid, .pid = g->pid, .mode = (int)g->opts.mode,
				    .event = g->opts.event, .event_name = g->opts.event_name, .report = g->report};
	return spgo_layout_run(&l) < 0 ? cli_fail() : 0;
}

int cmd_gen(int argc, char **argv)
{
	struct spgo_gen_job j = {.cs = -1, .truth_view = SPGO_GT_VIEW_FP, .fmt = SPGO_FMT_UNKNOWN, .report = stderr,
				 .cold_count = -1, .cutoff_cold = 999999, .density_cutoff = 990000};
	spgo_gen_defaults(&j.opts);
	spgo_cs_defaults(&j.cs_opts);
	const char *nthreads = getenv("SPGO_THREADS");
	if (nthreads && strcmp(nthreads, "1") == 0)
		j.cs_opts.unwind_thread = 0; /* (the profile is the same) */
	j.wo.gcov_version = 2;
	size_t room = (size_t)argc + 1;
	const char **unsym = xcalloc(room, sizeof *unsym);
	const char **caps = xcalloc(room, sizeof *caps);
	unsigned char *text = xcalloc(room, 1);
	const char **mods = xcalloc(room, sizeof *mods);
	struct outs outs = {.path = xcalloc(room, sizeof *outs.path), .fmt = xcalloc(room, sizeof *outs.fmt),
			    .more = xcalloc(room, sizeof *outs.more), .lay = xcalloc(room, sizeof *outs.lay)};
	struct cli_split split;
	int status = 0;
	/* The outputs are opened first: one that cannot be written fails now. */
	if (parse(argc, argv, &j, &split, unsym, caps, text, &outs, &status, mods) == 0) {
		for (size_t k = 0; k < outs.n && status == 0; k++)
			if (spgo_out_reserve(outs.path[k]) < 0)
				status = cli_fail();
		if (status == 0)
			status = outs.nlay ? run_layout(&j, &outs) : spgo_gen_job_run(&j) < 0 ? cli_fail() : 0;
	}
	free(unsym);
	free(caps);
	free(text);
	free(mods);
	free(outs.path);
	free(outs.fmt);
	free(outs.more);
	free(outs.lay);
	return status;
}
