/*
 * Unit tests of what `spgo infer` runs, in process (spgo/infer.h, "CFG
 * files from instructions" and "runs over a file of CFGs"): the evaluation
 * against truth= counts (overlaps worked out by hand, which CFGs count, the
 * means), the interleaved timing, the output of each task, the --insns
 * reader (blocks, edges, flags; its errors) and the --binary builder on
 * this test's own executable.
 */
#include <math.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/common.h"
#include "spgo/infer.h"

static char dir[] = "/tmp/spgo-test-infer-run-XXXXXX";

/* The paper's Figures 2a and 2b with their truth (profi infers both
 * exactly), a function with no samples, one that never ran. */
static const char fig_text[] = "cfg fig2a\n"
			       "block s 0 truth=1\n"
			       "block h 1000 truth=1001\n"
			       "block l 1000 truth=1000\n"
			       "block t 0 truth=1\n"
			       "edge s h truth=1\n"
			       "edge h l truth=1000\n"
			       "edge l h truth=1000\n"
			       "edge h t truth=1\n"
			       "cfg fig2b\n"
			       "block r 3000 truth=3000\n"
			       "block a 900 truth=2700\n"
			       "block b 100 truth=300\n"
			       "edge r a truth=2700\n"
			       "edge r b truth=300\n"
			       "cfg unsampled\n"
			       "block x 0 truth=5\n"
			       "block y ? truth=5\n"
			       "edge x y truth=5\n"
			       "cfg cold\n"
			       "block x 7 truth=0\n";

/* Run task on text with algorithms algos into a string (malloc'd); rc
 * gets spgo_infer_file's result. */
static char *run_text(const char *text, enum spgo_infer_task task, const enum spgo_algo *algos,
		      size_t nalgos, int *rc)
{
	struct spgo_cfg_file f;
	if (spgo_cfg_parse(&f, text, strlen(text), "t.cfg") < 0)
		return NULL;
	struct spgo_infer_opts o[4];
	for (size_t k = 0; k < nalgos; k++)
		spgo_infer_defaults(&o[k], algos[k]);
	struct spgo_infer_run run = {.task = task, .algos = o, .nalgos = nalgos, .runs = 3,
				     .eval_min = 1, .path = "t.cfg"};
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	*rc = spgo_infer_file(&f, fp, &run);
	fclose(fp);
	spgo_cfg_file_free(&f);
	return out;
}

static void test_eval_file(void)
{
	enum spgo_algo profi = SPGO_ALGO_PROFI;
	int rc;
	char *t = run_text(fig_text, SPGO_INFER_EVAL, &profi, 1, &rc);
	REQUIRE(t);
	CHECK(rc == 0);
	/* the unsampled and the cold function do not count */
	CHECK_STREQ(t, "overlap fig2a 4 1.000000 1.000000 1.000000\n"
		       "overlap fig2b 3 1.000000 1.000000 1.000000\n"
		       "mean profi cfgs=2 vertex=1.0000 edge=1.0000 coverage=1.0000 "
		       "weighted_vertex=1.0000 weighted_edge=1.0000 invalid=0\n");
	free(t);
	/* a CFG without truth is an error, after what came before it */
	t = run_text("cfg a\nblock x 1 truth=1\ncfg b\nblock y 1\n", SPGO_INFER_EVAL, &profi, 1, &rc);
	REQUIRE(t);
	CHECK(rc < 0);
	CHECK_STREQ(spgo_errmsg(), "t.cfg: cfg b: --eval needs truth= counts");
	CHECK_STREQ(t, "overlap a 1 1.000000 1.000000 1.000000\n"); /* no edges: both all zero */
	free(t);
}

/* Overlaps by hand: with no inference (block count = weight, edge count =
 * source count x probability), x 3 and y 1 against truth 1 and 1 overlap
 * min(3/4, 1/2) + min(1/4, 1/2) = 0.75 at the blocks, 1 at the one edge. */
static void test_eval_add(void)
{
	struct spgo_cfg_file f;
	const char *text = "block x 3 truth=1\nblock y 1 truth=1\nedge x y truth=1\n";
	REQUIRE(spgo_cfg_parse(&f, text, strlen(text), "t.cfg") == 0);
	struct spgo_cfg *cfg = &f.cfgs[0];
	struct spgo_infer_opts o;
	spgo_infer_defaults(&o, SPGO_ALGO_NONE);
	spgo_infer(cfg, &o);
	CHECK_EQ_U64(cfg->edges[0].count, 3);
	struct spgo_infer_eval e = {.min_weight = 1};
	struct spgo_flow_overlap ov;
	CHECK(spgo_infer_eval_add(&e, cfg, f.truth_block[0], f.truth_edge[0], &ov) == 1);
	CHECK(fabs(ov.vertex - 0.75) < 1e-12);
	CHECK(fabs(ov.edge - 1.0) < 1e-12);
	CHECK(fabs(ov.coverage - 1.0) < 1e-12);
	CHECK(e.n == 1 && e.weight == 2.0 && fabs(e.wvertex - 1.5) < 1e-12 && e.edge == 1.0);
	/* twice: the sums grow, weighted by the truth's total (2) */
	CHECK(spgo_infer_eval_add(&e, cfg, f.truth_block[0], NULL, &ov) == 1);
	CHECK(e.n == 2 && e.weight == 4.0 && fabs(e.vertex - 1.5) < 1e-12 && e.edge == 1.0);
	CHECK(ov.edge == 0.0); /* no edge truth */
	/* samples adding up to less than min_weight (4): not counted */
	struct spgo_infer_eval e2 = {.min_weight = 5};
	CHECK(spgo_infer_eval_add(&e2, cfg, f.truth_block[0], f.truth_edge[0], &ov) == 0);
	CHECK(e2.n == 0 && e2.weight == 0.0);
	/* a function that never ran: not counted */
	uint64_t zero[2] = {0, 0};
	CHECK(spgo_infer_eval_add(&e2, cfg, zero, NULL, &ov) == 0);
	spgo_cfg_file_free(&f);
}

static void test_time(void)
{
	struct spgo_cfg_file f;
	REQUIRE(spgo_cfg_parse(&f, fig_text, strlen(fig_text), "t.cfg") == 0);
	struct spgo_infer_opts o[2];
	spgo_infer_defaults(&o[0], SPGO_ALGO_PROFI);
	spgo_infer_defaults(&o[1], SPGO_ALGO_MCF);
	double med[2] = {-1, -1};
	struct spgo_cfg *cfg = &f.cfgs[0];
	spgo_infer_time(cfg, o, 2, 5, med);
	CHECK(med[0] >= 0 && med[0] < 1e6 && med[1] >= 0 && med[1] < 1e6);
	/* the counts are the last run's (mcf), a valid flow */
	char why[160];
	CHECK(spgo_flow_check(cfg, why, sizeof why) == 0);
	uint64_t h = cfg->blocks[1].count;
	spgo_infer(cfg, &o[1]);
	CHECK_EQ_U64(cfg->blocks[1].count, h);
	spgo_cfg_file_free(&f);

	/* the task: "time NAME BLOCKS EDGES" and a median per algorithm */
	enum spgo_algo algos[2] = {SPGO_ALGO_PROFI, SPGO_ALGO_FP};
	int rc;
	char *t = run_text(fig_text, SPGO_INFER_TIME, algos, 2, &rc);
	REQUIRE(t);
	CHECK(rc == 0);
	char name[4][16];
	size_t nb[4], ne[4];
	double t1, t2;
	int lines = 0, n;
	for (const char *p = t; sscanf(p, "time %15s %zu %zu %lf %lf\n%n", name[lines], &nb[lines],
				     &ne[lines], &t1, &t2, &n) == 5 && lines < 4;
	     p += n)
		lines++;
	CHECK(lines == 4);
	CHECK_STREQ(name[1], "fig2b");
	CHECK(nb[1] == 3 && ne[1] == 2 && nb[3] == 1 && ne[3] == 0);
	free(t);
}

static void test_counts_and_emit(void)
{
	enum spgo_algo profi = SPGO_ALGO_PROFI;
	int rc;
	char *t = run_text("cfg f\nblock a 10\nblock b ?\nedge a b\n", SPGO_INFER_COUNTS, &profi, 1, &rc);
	REQUIRE(t);
	CHECK(rc == 0);
	CHECK_STREQ(t, "cfg f\nblock a 10\nblock b 10\nedge a b 10\n");
	free(t);
	/* emit: static probabilities filled in */
	t = run_text("cfg f\nblock a 10\nblock b ?\nedge a b\n", SPGO_INFER_EMIT, &profi, 1, &rc);
	REQUIRE(t);
	CHECK(rc == 0);
	CHECK_STREQ(t, "cfg f\nblock a 10\nblock b ?\nedge a b p=1\n");
	free(t);
}

static int write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

/*
 * f: A [1000,1002) branches to C or falls into B; B jumps to E; C ends
 * in a call that does not return; D (after it) jumps through a table to
 * A and E; E returns.  g: a trap.
 */
static void test_insns(void)
{
	char *path = xasprintf("%s/f.insns", dir);
	REQUIRE(write_file(path, "# two functions\n"
				 "func f 1000\n"
				 "1000 2 jcc 1008\n"
				 "1002 3 other\n"
				 "0x1005 3 jmp 1010\n"
				 "1008 5 call 2000 noreturn\n"
				 "100d 3 ijmp table=1000,1010\n"
				 "\n"
				 "1010 1 ret\n"
				 "func g 2000\n"
				 "2000 1 trap\n") == 0);
	struct spgo_cfg_file f;
	REQUIRE(spgo_cfg_read_insns(&f, path) == 0);
	REQUIRE(f.n == 2);
	const struct spgo_cfg *c = &f.cfgs[0];
	CHECK_STREQ(c->name, "f");
	REQUIRE(c->nblocks == 5);
	const char *labels[5] = {"1000", "1002", "1008", "100d", "1010"};
	for (size_t b = 0; b < 5; b++)
		CHECK_STREQ(f.labels[0][b], labels[b]);
	CHECK(f.truth_block[0] == NULL);
	CHECK(c->blocks[2].flags & SPGO_BLOCK_NORETURN);
	CHECK(c->blocks[2].nout == 0);
	CHECK(c->blocks[4].flags & SPGO_BLOCK_RETURN);
	/* edges by (src, dst, kind) */
	int seen = 0;
	for (size_t e = 0; e < c->nedges; e++) {
		const struct spgo_cfg_edge *ed = &c->edges[e];
		seen |= (ed->src == 0 && ed->dst == 2 && ed->kind == SPGO_EDGE_TAKEN) << 0;
		seen |= (ed->src == 0 && ed->dst == 1 && ed->kind == SPGO_EDGE_NOT_TAKEN) << 1;
		seen |= (ed->src == 1 && ed->dst == 4 && ed->kind == SPGO_EDGE_JUMP) << 2;
		seen |= (ed->src == 3 && ed->dst == 0 && ed->kind == SPGO_EDGE_TABLE) << 3;
		seen |= (ed->src == 3 && ed->dst == 4 && ed->kind == SPGO_EDGE_TABLE) << 4;
	}
	CHECK_EQ_U64(c->nedges, 5);
	CHECK_EQ_U64(seen, 31);
	CHECK_STREQ(f.cfgs[1].name, "g");
	CHECK(f.cfgs[1].nblocks == 1 && (f.cfgs[1].blocks[0].flags & SPGO_BLOCK_NORETURN));
	spgo_cfg_file_free(&f);

	/* errors name the file and line; out is left empty */
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"1000 1 ret\n", "line 1: expected 'ADDR SIZE CLASS [TARGET]' after a 'func' line"},
		{"func f\n", "line 1: expected 'func NAME ENTRY'"},
		{"func f 10\n10 1 jump\n", "line 2: unknown instruction class 'jump'"},
		{"func f 10\n10 1 other\n10 1 ret\n", "line 3: addresses must increase"},
		{"func f 10\n10 16 ret\n", "line 2: expected 'ADDR SIZE CLASS"},
		{"func f 10\n10 1 ijmp table=11,zz\n", "line 2: bad table entry 'zz'"},
		{"func f 10\n10 1 ret xyz\n", "line 2: unexpected 'xyz'"},
		{"func f 20\n10 1 ret\n", "function f: "},
		{"# nothing\n", "f.insns: no functions"},
	};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(bad); i++) {
		REQUIRE(write_file(path, bad[i].text) == 0);
		f.n = 99;
		CHECK(spgo_cfg_read_insns(&f, path) < 0);
		CHECK(f.n == 0);
		if (!strstr(spgo_errmsg(), bad[i].msg))
			fprintf(stderr, "case %zu: '%s' does not say '%s'\n", i, spgo_errmsg(), bad[i].msg);
		CHECK(strstr(spgo_errmsg(), bad[i].msg) != NULL);
	}
	unlink(path);
	CHECK(spgo_cfg_read_insns(&f, path) < 0);
	CHECK(strstr(spgo_errmsg(), "cannot open") != NULL);
	free(path);
}

/* This test's own executable: main alone, and all its functions. */
static void test_binary(void)
{
	char exe[4096];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	REQUIRE(k > 0);
	exe[k] = 0;
	struct spgo_cfg_file f;
	struct spgo_cfg_bin_stats st;
	REQUIRE(spgo_cfg_read_binary(&f, exe, "main", &st) == 0);
	CHECK(f.n == 1 && st.funcs == 1);
	CHECK_STREQ(f.cfgs[0].name, "main");
	CHECK(f.cfgs[0].nblocks > 1);
	CHECK(f.labels[0][0] && f.cfgs[0].blocks[0].addr == strtoull(f.labels[0][0], NULL, 16));
	spgo_cfg_file_free(&f);
	REQUIRE(spgo_cfg_read_binary(&f, exe, NULL, &st) == 0);
	CHECK(f.n == st.funcs && f.n > 10);
	CHECK(st.tables <= st.ijmps);
	spgo_cfg_file_free(&f);
	CHECK(spgo_cfg_read_binary(&f, exe, "no_such_function", &st) < 0);
	CHECK(strstr(spgo_errmsg(), "no function named no_such_function") != NULL);
	CHECK(f.n == 0);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_eval_file);
	RUN(test_eval_add);
	RUN(test_time);
	RUN(test_counts_and_emit);
	RUN(test_insns);
	RUN(test_binary);
	rmdir(dir);
	DONE();
}
