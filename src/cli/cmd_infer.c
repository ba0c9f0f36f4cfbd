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
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/infer.h"

/*
 * --insns FILE: instruction lists in text, one function after another,
 * until the binary model can disassemble (then the same code runs on
 * spgo_binary_insns()):
 *
 *     func NAME ENTRY
 *     ADDR SIZE CLASS [TARGET] [noreturn] [table=T1,T2,...]
 *
 * addresses in hex (0x optional), SIZE in decimal, CLASS one of other jcc
 * jmp ijmp call icall ret trap.  Each function becomes a CFG (spgo_cfg_from_insns) labelled by
 * block address.
 */
struct insn_func {
	char *name;
	uint64_t entry;
	VEC(struct spgo_insn) insns;
	VEC(uint64_t) tables;   /* (insn index << 32 | count), then targets */
	VEC(uint64_t) noreturn; /* call targets that do not return */
};

static const char *const insn_classes[] = {"other", "jcc", "jmp", "ijmp", "call", "icall", "ret", "trap"};

static int hexnum(const char *s, uint64_t *v)
{
	char *end;
	if (!*s)
		return -1;
	*v = strtoull(s, &end, 16);
	return *end ? -1 : 0;
}

static size_t table_cb(void *ctx, const struct spgo_insn *jmp, uint64_t *targets, size_t max)
{
	const struct insn_func *f = ctx;
	size_t idx = (size_t)(jmp - f->insns.v);
	for (size_t k = 0; k < f->tables.n;) {
		uint64_t head = f->tables.v[k];
		size_t cnt = (size_t)(head & 0xffffffffu);
		if ((head >> 32) == idx) {
			size_t n = cnt < max ? cnt : max;
			memcpy(targets, &f->tables.v[k + 1], n * sizeof *targets);
			return n;
		}
		k += 1 + cnt;
	}
	return 0;
}

static int noreturn_cb(void *ctx, uint64_t target)
{
	const struct insn_func *f = ctx;
	for (size_t k = 0; k < f->noreturn.n; k++)
		if (f->noreturn.v[k] == target)
			return 1;
	return 0;
}

static void func_free(struct insn_func *f)
{
	free(f->name);
	VEC_FREE(&f->insns);
	VEC_FREE(&f->tables);
	VEC_FREE(&f->noreturn);
	memset(f, 0, sizeof *f);
}

/* Append a built CFG to out, labelled by block address. */
static void add_cfg(struct spgo_cfg_file *out, struct spgo_cfg *c)
{
	out->cfgs = xrealloc(out->cfgs, (out->n + 1) * sizeof *out->cfgs);
	out->labels = xrealloc(out->labels, (out->n + 1) * sizeof *out->labels);
	out->truth_block = xrealloc(out->truth_block, (out->n + 1) * sizeof *out->truth_block);
	out->truth_edge = xrealloc(out->truth_edge, (out->n + 1) * sizeof *out->truth_edge);
	char **labels = xmalloc((c->nblocks + 1) * sizeof *labels);
	for (size_t b = 0; b < c->nblocks; b++)
		labels[b] = xasprintf("%llx", (unsigned long long)c->blocks[b].addr);
	out->cfgs[out->n] = *c;
	out->labels[out->n] = labels;
	out->truth_block[out->n] = out->truth_edge[out->n] = NULL;
	out->n++;
}

/* Build the CFG of f and append it to out (labels: block addresses). */
static int func_cfg(struct insn_func *f, struct spgo_cfg_file *out)
{
	struct spgo_bincfg_opts o = {.jump_table = table_cb, .is_noreturn = noreturn_cb, .ctx = f};
	struct spgo_cfg c;
	if (spgo_cfg_from_insns(&c, f->insns.v, f->insns.n, f->entry, &o)) {
		char *msg = xstrdup(spgo_errmsg());
		spgo_error("function %s: %s", f->name, msg);
		free(msg);
		return -1;
	}
	c.name = xstrdup(f->name);
	add_cfg(out, &c);
	return 0;
}

static int read_insns(struct spgo_cfg_file *out, const char *path)
{
	memset(out, 0, sizeof *out);
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!fp)
		return spgo_error("%s: cannot open", path);
	struct insn_func f = {0};
	char line[1 << 16];
	size_t lineno = 0;
	int rc = 0, have = 0;
	while (rc == 0 && fgets(line, sizeof line, fp)) {
		lineno++;
		char *save = NULL, *tok[8];
		int nt = 0;
		for (char *t = strtok_r(line, " \t\r\n", &save); t && nt < 8; t = strtok_r(NULL, " \t\r\n", &save))
			tok[nt++] = t;
		if (nt == 0 || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "func")) {
			if (have && f.insns.n)
				rc = func_cfg(&f, out);
			func_free(&f);
			if (rc)
				break;
			if (nt != 3 || hexnum(tok[2], &f.entry)) {
				rc = spgo_error("%s: line %zu: expected 'func NAME ENTRY'", path, lineno);
				break;
			}
			f.name = xstrdup(tok[1]);
			have = 1;
			continue;
		}
		struct spgo_insn in = {0};
		uint64_t a, sz;
		int cls = -1;
		char *szend;
		sz = strtoull(tok[1], &szend, 10);
		if (!have || nt < 3 || hexnum(tok[0], &a) || *szend || sz == 0 || sz > 15) {
			rc = spgo_error("%s: line %zu: expected 'ADDR SIZE CLASS [TARGET]' after a 'func' line",
					path, lineno);
			break;
		}
		for (size_t k = 0; k < SPGO_ARRAY_LEN(insn_classes); k++)
			if (!strcmp(tok[2], insn_classes[k]))
				cls = (int)k;
		if (cls < 0) {
			rc = spgo_error("%s: line %zu: unknown instruction class '%s'", path, lineno, tok[2]);
			break;
		}
		if (f.insns.n && a <= f.insns.v[f.insns.n - 1].addr) {
			rc = spgo_error("%s: line %zu: addresses must increase", path, lineno);
			break;
		}
		in.addr = a, in.size = (uint8_t)sz, in.cls = (uint8_t)cls;
		for (int k = 3; k < nt && rc == 0; k++) {
			uint64_t t;
			if (!strcmp(tok[k], "noreturn")) {
				if (in.target)
					VEC_PUSH(&f.noreturn, in.target);
			} else if (!strncmp(tok[k], "table=", 6)) {
				size_t at = f.tables.n;
				VEC_PUSH(&f.tables, (uint64_t)f.insns.n << 32);
				char *s2 = NULL;
				for (char *t2 = strtok_r(tok[k] + 6, ",", &s2); t2; t2 = strtok_r(NULL, ",", &s2)) {
					if (hexnum(t2, &t)) {
						rc = spgo_error("%s: line %zu: bad table entry '%s'", path, lineno, t2);
						break;
					}
					VEC_PUSH(&f.tables, t);
					f.tables.v[at]++;
				}
			} else if (!hexnum(tok[k], &t)) {
				in.target = t;
			} else {
				rc = spgo_error("%s: line %zu: unexpected '%s'", path, lineno, tok[k]);
			}
		}
		VEC_PUSH(&f.insns, in);
	}
	if (rc == 0 && have && f.insns.n)
		rc = func_cfg(&f, out);
	func_free(&f);
	if (fp != stdin)
		fclose(fp);
	if (rc == 0 && out->n == 0)
		rc = spgo_error("%s: no functions", path);
	if (rc)
		spgo_cfg_file_free(out);
	return rc;
}

/* What --binary saw, for the summary line of --emit-cfg. */
struct bin_stats {
	size_t funcs, ijmps, tables, tailcalls, noreturn;
};

/*
 * --binary FILE: the CFG of every function (split parts with their parent)
 * or of those named fname (linkage or symbol name), from the binary model.
 */
static int read_binary(struct spgo_cfg_file *out, const char *path, const char *fname, struct bin_stats *st)
{
	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, path, NULL))
		return -1;
	if (spgo_binary_check_machine(bin)) {
		spgo_binary_close(bin);
		return -1;
	}
	struct spgo_bb_addr_map bbmap;
	if (spgo_bb_addr_map_read(&bbmap, path)) {
		spgo_binary_close(bin);
		return -1;
	}
	size_t nf, ni;
	const struct spgo_function *fs = spgo_binary_functions(bin, &nf);
	const struct spgo_insn *insns = spgo_binary_insns(bin, &ni);
	int rc = 0;
	uint64_t last = UINT64_MAX;
	for (size_t i = 0; i < nf && rc == 0; i++) {
		const struct spgo_function *f = &fs[i];
		if (f->parent >= 0 || f->start == last)
			continue;
		if (fname && strcmp(fname, f->name) && (!f->symbol || strcmp(fname, f->symbol)))
			continue;
		const struct spgo_insn *in = spgo_binary_insn_at(bin, f->start);
		if (!in)
			continue; /* data, or not in an executable section */
		last = f->start;
		struct spgo_cfg c;
		if (spgo_cfg_from_binary(&c, bin, f->start, &bbmap)) {
			rc = -1;
			break;
		}
		st->funcs++;
		for (size_t b = 0; b < c.nblocks; b++) {
			const struct spgo_cfg_block *bl = &c.blocks[b];
			if (bl->flags & SPGO_BLOCK_NORETURN)
				st->noreturn++;
			/* the block's last instruction: the one before its end */
			size_t lo = 0, hi = ni;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (insns[mid].addr < bl->addr + bl->size)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > 0 && insns[lo - 1].cls == SPGO_INSN_INDIRECT_JUMP) {
				st->ijmps++;
				if (bl->nout && c.edges[c.succ[bl->out]].kind == SPGO_EDGE_TABLE)
					st->tables++;
				else if (!(bl->flags & SPGO_BLOCK_UNKNOWN_SUCCS))
					st->tailcalls++;
			}
		}
		add_cfg(out, &c);
	}
	spgo_bb_addr_map_free(&bbmap);
	spgo_binary_close(bin);
	if (rc == 0 && out->n == 0)
		rc = spgo_error(fname ? "%s: no function named %s" : "%s: no functions", path, fname);
	if (rc)
		spgo_cfg_file_free(out);
	return rc;
}

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
		"Reads CFGs with block weights (FILE, default stdin; format in README)\n"
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
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
	struct spgo_infer_opts o, oa[SPGO_ARRAY_LEN(algos)];
	for (int k = 0; k < nalgo; k++)
		infer_opts(&oa[k], algos[k], &ov);
	o = oa[0];

	struct spgo_cfg_file f;
	struct bin_stats st;
	if (bin_path ? read_binary(&f, bin_path, fname, &st)
		     : insns_path ? read_insns(&f, insns_path) : spgo_cfg_parse_file(&f, cfg_path))
		return cli_fail();
	if (bin_path)
		cfg_path = bin_path;
	struct spgo_out out;
	if (spgo_out_open(&out, out_path)) {
		spgo_cfg_file_free(&f);
		return cli_fail();
	}
	int rc = 0;
	if (emit_cfg && bin_path)
		fprintf(out.fp,
			"# %zu functions, %zu indirect jumps, %zu with a recovered jump table, %zu noreturn blocks, "
			"%zu indirect tail calls\n",
			st.funcs, st.ijmps, st.tables, st.noreturn, st.tailcalls);
	double sv = 0, se = 0, sc = 0, wv = 0, we = 0, wsum = 0;
	size_t neval = 0, ninvalid = 0;
	double *times = time_runs ? xmalloc((size_t)nalgo * time_runs * sizeof *times) : NULL;
	for (size_t i = 0; i < f.n && rc == 0; i++) {
		struct spgo_cfg *cfg = &f.cfgs[i];
		const char *name = cfg->name ? cfg->name : "-";
		if (emit_cfg) {
			spgo_cfg_static_probs(cfg); /* while the block flags are known */
			spgo_cfg_write(out.fp, cfg, f.labels[i]);
			continue;
		}
		if (time_runs) {
			for (uint64_t r = 0; r < time_runs; r++)
				for (int k = 0; k < nalgo; k++) {
					double t0 = spgo_now();
					spgo_infer(cfg, &oa[k]);
					times[k * time_runs + r] = spgo_now() - t0;
				}
			fprintf(out.fp, "time %s %zu %zu", name, cfg->nblocks, cfg->nedges);
			for (int k = 0; k < nalgo; k++) {
				double *t = times + k * time_runs;
				spgo_sort(t, time_runs, sizeof *t, cmp_double);
				fprintf(out.fp, " %.1f", t[time_runs / 2] * 1e6);
			}
			fputc('\n', out.fp);
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
		uint64_t gsum = 0, wsum_in = 0;
		for (size_t b = 0; b < cfg->nblocks; b++) {
			gsum += f.truth_block[i][b];
			if (cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN)
				wsum_in += cfg->blocks[b].weight;
		}
		/* Compare the functions that ran and have samples: a function
		 * without any is not in the profile, nothing to infer. */
		if (gsum == 0 || wsum_in == 0 || wsum_in < eval_min)
			continue;
		struct spgo_flow_overlap ov;
		spgo_flow_overlap(cfg, f.truth_block[i], f.truth_edge[i], &ov);
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
