/*
 * spgo infer: profile inference on CFGs in the text format (docs/formats/cfg-text.md,
 * also in spgo-infer(1)).  Prints the inferred counts; with --eval, the overlap with
 * the truth= counts of the file instead; with --time N, the median time of
 * N runs per CFG.  The CFGs built from --insns and --binary, the runs, the
 * evaluation and the timing are the inference stage's (spgo/infer.h); this
 * file reads the options.
 */
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
		"                  [--eval [--eval-min W]] [--time N] [--k-inc N] [--k-dec N]\n"
		"                  [--k-inc0 N] [--k-entry-inc N] [--k-entry-dec N]\n"
		"                  [--k-dec-floor N] [--dec-floor PCT] [--k-unknown-inc N]\n"
		"                  [--k-layout N]\n"
		"                  [--no-join] [--no-rebalance] [--rebalance-cyclic]\n"
		"                  [--no-greedy] [--no-even]\n"
		"                  [--insns FILE | --binary FILE [--function NAME]] [--emit-cfg]\n"
		"\n"
		"Reads CFGs with block weights (FILE, default stdin; format in spgo-infer(1))\n"
		"and prints inferred counts: 'block LABEL COUNT', 'edge SRC DST COUNT'.\n"
		"  --eval    print vertex/edge overlap and coverage against the truth=\n"
		"            counts of the file, per CFG that ran and has samples, and\n"
		"            their means; --eval-min W: only CFGs whose weights add up to W\n"
		"  --time N  print 'time NAME BLOCKS EDGES MICROSECONDS', median of N runs;\n"
		"            with --algo A,B,...: the runs of the algorithms interleaved\n"
		"            (so that they meet the same machine) and a column each\n"
		"  --insns FILE  build binary CFGs from instruction lists instead\n"
		"            ('func NAME ENTRY' then 'ADDR SIZE CLASS [TARGET] [noreturn]\n"
		"            [table=T,...]' lines, hex)\n"
		"  --binary FILE  build the CFGs of the binary's functions (jump tables,\n"
		"            noreturn calls, .llvm_bb_addr_map) from spgo's disassembly;\n"
		"            --function NAME: only that one (linkage or symbol name)\n"
		"  --emit-cfg  print the built CFGs in the text format instead of inferring\n"
		"            (with --binary, a first '#' line counts functions, indirect\n"
		"            jumps, recovered jump tables and noreturn blocks)\n");
}

/* The options of the command line that change an algorithm's defaults
 * (-1, 0: not given), in the order of the keys O_K_INC.. */
enum { K_INC, K_DEC, K_INC0, K_ENTRY_INC, K_ENTRY_DEC, K_DEC_FLOOR, DEC_FLOOR, K_UNKNOWN_INC, K_LAYOUT, NK };
struct overrides {
	int64_t k[NK];
	int no_join, no_rebalance, no_greedy, no_even, cyclic;
};

static void infer_opts(struct spgo_infer_opts *o, int algo, const struct overrides *v)
{
	spgo_infer_defaults(o, (enum spgo_algo)algo);
	int64_t *field[NK] = {&o->k_inc, &o->k_dec, &o->k_inc0, &o->k_entry_inc, &o->k_entry_dec,
			      &o->k_dec_floor, NULL, &o->k_unknown_inc, &o->k_layout};
	for (int i = 0; i < NK; i++)
		if (v->k[i] >= 0 && field[i])
			*field[i] = v->k[i];
	if (v->k[DEC_FLOOR] >= 0)
		o->dec_floor_pct = (int)v->k[DEC_FLOOR];
	if (v->no_join)
		o->join_islands = 0;
	if (v->no_rebalance)
		o->rebalance = 0;
	if (v->no_greedy)
		o->greedy = 0;
	o->rebalance_cyclic = v->cyclic;
	if (v->no_even)
		o->even_split = 0;
}

enum {
	O_ALGO = CLI_LONG, O_CFG, O_INSNS, O_BINARY, O_FUNCTION, O_EMIT_CFG, O_EVAL, O_EVAL_MIN, O_TIME,
	O_NO_JOIN, O_NO_REBALANCE, O_CYCLIC, O_NO_GREEDY, O_NO_EVEN,
	O_K = CLI_LONG + 100, /* + K_INC.. */
};
static const struct cli_opt opts[] = {
	CLI_VAL("algo", O_ALGO),
	CLI_VAL("cfg", O_CFG),
	CLI_VAL("insns", O_INSNS),
	CLI_VAL("binary", O_BINARY),
	CLI_VAL("function", O_FUNCTION),
	CLI_FLAG("emit-cfg", O_EMIT_CFG),
	CLI_VAL("o", 'o'), CLI_VAL("output", 'o'),
	CLI_FLAG("eval", O_EVAL),
	CLI_VAL("eval-min", O_EVAL_MIN),
	CLI_VAL("time", O_TIME),
	CLI_VAL("k-inc", O_K + K_INC),
	CLI_VAL("k-dec", O_K + K_DEC),
	CLI_VAL("k-inc0", O_K + K_INC0),
	CLI_VAL("k-entry-inc", O_K + K_ENTRY_INC),
	CLI_VAL("k-entry-dec", O_K + K_ENTRY_DEC),
	CLI_VAL("k-dec-floor", O_K + K_DEC_FLOOR),
	CLI_VAL("dec-floor", O_K + DEC_FLOOR),
	CLI_VAL("k-unknown-inc", O_K + K_UNKNOWN_INC),
	CLI_VAL("k-layout", O_K + K_LAYOUT),
	CLI_FLAG("no-join", O_NO_JOIN),
	CLI_FLAG("no-rebalance", O_NO_REBALANCE),
	CLI_FLAG("rebalance-cyclic", O_CYCLIC),
	CLI_FLAG("no-greedy", O_NO_GREEDY),
	CLI_FLAG("no-even", O_NO_EVEN),
	{0},
};
static const struct cli_cmd cmd = {.name = "infer", .usage = usage, .opts = opts};

/* --algo A or A,B,... (with --time): 0, or CLI_ERR reported. */
static int algo_list(const struct cli_parser *op, int *algos, int max, int *nalgo)
{
	char *list = xstrdup(op->val), *save = NULL;
	int rc = 0;
	*nalgo = 0;
	for (char *t = strtok_r(list, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		if (*nalgo == max)
			rc = cli_bad(op, "option '%s': more than %d algorithms", op->opt, max);
		else if ((algos[(*nalgo)++] = spgo_algo_parse(t)) < 0)
			rc = cli_bad(op, "option '%s': unknown algorithm '%s'", op->opt, t);
	}
	if (rc == 0 && *nalgo == 0)
		rc = cli_bad(op, "option '%s': no algorithm", op->opt);
	free(list);
	return rc;
}

int cmd_infer(int argc, char **argv)
{
	const char *cfg_path = "-", *out_path = "-", *insns_path = NULL, *bin_path = NULL, *fname = NULL;
	int emit_cfg = 0;
	int eval = 0;
	int algos[5], nalgo = 0; /* --algo A,B,... (with --time) */
	uint64_t time_runs = 0, eval_min = 1, v;
	struct overrides ov = {{-1, -1, -1, -1, -1, -1, -1, -1, -1}, 0, 0, 0, 0, 0};
	struct cli_parser op;
	cli_init(&op, &cmd, argc, argv);
	for (int k; (k = cli_next(&op)) != CLI_END;) {
		switch (k) {
		case CLI_HELP: return 0;
		case CLI_ERR: return 2;
		case O_ALGO:
			if (algo_list(&op, algos, (int)SPGO_ARRAY_LEN(algos), &nalgo) < 0)
				return 2;
			break;
		case O_CFG: cfg_path = op.val; break;
		case O_INSNS: insns_path = op.val; break;
		case O_BINARY: bin_path = op.val; break;
		case O_FUNCTION: fname = op.val; break;
		case O_EMIT_CFG: emit_cfg = 1; break;
		case 'o': out_path = op.val; break;
		case O_EVAL: eval = 1; break;
		case O_EVAL_MIN:
			if (cli_u64(&op, 0, UINT64_MAX, &eval_min) < 0)
				return 2;
			break;
		case O_TIME:
			if (cli_u64(&op, 1, 100000, &time_runs) < 0)
				return 2;
			break;
		case O_NO_JOIN: ov.no_join = 1; break;
		case O_NO_REBALANCE: ov.no_rebalance = 1; break;
		case O_CYCLIC: ov.cyclic = 1; break;
		case O_NO_GREEDY: ov.no_greedy = 1; break;
		case O_NO_EVEN: ov.no_even = 1; break;
		case CLI_ARG: return cli_usage(&op, "unexpected argument '%s' (the input is --cfg FILE)", op.val);
		default:
			if (cli_u64(&op, 0, k == O_K + DEC_FLOOR ? 100 : 1000000000, &v) < 0)
				return 2;
			ov.k[k - O_K] = (int64_t)v;
		}
	}
	if (nalgo > 1 && !time_runs)
		return cli_usage(&op, "a list of algorithms (--algo A,B) needs --time");
	if (fname && !bin_path)
		return cli_usage(&op, "--function needs --binary");
	if (!nalgo)
		algos[nalgo++] = SPGO_ALGO_PROFI;
	if (spgo_out_reserve(out_path) < 0) /* before the work: fails now if it cannot be written */
		return cli_fail();
	struct spgo_infer_opts oa[SPGO_ARRAY_LEN(algos)];
	for (int k = 0; k < nalgo; k++)
		infer_opts(&oa[k], algos[k], &ov);

	struct spgo_cfg_file f;
	struct spgo_cfg_bin_stats st;
	if (bin_path ? spgo_cfg_read_binary(&f, bin_path, fname, &st)
		     : insns_path ? spgo_cfg_read_insns(&f, insns_path) : spgo_cfg_parse_file(&f, cfg_path))
		return cli_fail();
	struct spgo_out out;
	if (spgo_out_open(&out, out_path)) {
		spgo_cfg_file_free(&f);
		return cli_fail();
	}
	if (emit_cfg && bin_path)
		fprintf(out.fp,
			"# %zu functions, %zu indirect jumps, %zu with a recovered jump table, %zu noreturn blocks, "
			"%zu indirect tail calls\n",
			st.funcs, st.ijmps, st.tables, st.noreturn, st.tailcalls);
	struct spgo_infer_run run = {
		.task = emit_cfg ? SPGO_INFER_EMIT
			: time_runs ? SPGO_INFER_TIME
			: eval ? SPGO_INFER_EVAL : SPGO_INFER_COUNTS,
		.algos = oa,
		.nalgos = (size_t)nalgo,
		.runs = (size_t)time_runs,
		.eval_min = eval_min,
		.path = bin_path ? bin_path : cfg_path,
	};
	int rc = 0;
	if (spgo_infer_file(&f, out.fp, &run) < 0)
		rc = cli_fail();
	if (rc == 0 && spgo_out_commit(&out))
		rc = cli_fail();
	else if (rc)
		spgo_out_abort(&out);
	spgo_cfg_file_free(&f);
	return rc;
}
