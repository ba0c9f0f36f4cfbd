/*
 * The virtual unwinder (spgo/context.h) on hand-made code and samples:
 * calls, returns, a tail call and its inferred frame, a prologue mismatch,
 * external frames, a bogus trace, an inconsistent LBR, the inline-context
 * split of ranges, and recursion compression.
 *
 * The code (addresses; one inline context unless a test says otherwise):
 *   main  0x1000 push, 0x1001 mov, 0x1004 x, 0x1008 call foo, 0x100d x,
 *         0x1010 jcc 0x1004, 0x1012 call bar, 0x1017 x, 0x1018 ret
 *   foo   0x2000 push, 0x2001 mov, 0x2004 x, 0x2008 jcc 0x2004, 0x200a pop,
 *         0x200b ret
 *   bar   0x3000 push, 0x3001 x, 0x3004 x, 0x3008 jmp foo (a tail call)
 */
#include "harness.h"
#include "spgo/context.h"

#define EXT SPGO_AGG_EXTERNAL

static const struct spgo_insn insns[] = {
	{0x1000, 0, 1, SPGO_INSN_OTHER, 0},   {0x1001, 0, 3, SPGO_INSN_OTHER, 0},
	{0x1004, 0, 4, SPGO_INSN_OTHER, 0},   {0x1008, 0x2000, 5, SPGO_INSN_CALL, 0},
	{0x100d, 0, 3, SPGO_INSN_OTHER, 0},   {0x1010, 0x1004, 2, SPGO_INSN_COND_BRANCH, 0},
	{0x1012, 0x3000, 5, SPGO_INSN_CALL, 0}, {0x1017, 0, 1, SPGO_INSN_OTHER, 0},
	{0x1018, 0, 1, SPGO_INSN_RETURN, 0},
	{0x2000, 0, 1, SPGO_INSN_OTHER, 0},   {0x2001, 0, 3, SPGO_INSN_OTHER, 0},
	{0x2004, 0, 4, SPGO_INSN_OTHER, 0},   {0x2008, 0x2004, 2, SPGO_INSN_COND_BRANCH, 0},
	{0x200a, 0, 1, SPGO_INSN_OTHER, 0},   {0x200b, 0, 1, SPGO_INSN_RETURN, 0},
	{0x3000, 0, 1, SPGO_INSN_OTHER, 0},   {0x3001, 0, 3, SPGO_INSN_OTHER, 0},
	{0x3004, 0, 4, SPGO_INSN_OTHER, 0},   {0x3008, 0x2000, 5, SPGO_INSN_JUMP, 0},
};
static const struct spgo_function funcs[] = {
	{0x1000, 0x1019, "main", 1, -1, "main", 1},
	{0x2000, 0x200c, "foo", 1, -1, "foo", 1},
	{0x3000, 0x300d, "bar", 1, -1, "bar", 1},
};
#define NINSNS (sizeof insns / sizeof insns[0])

struct fixture {
	struct spgo_cs_code code;
	struct spgo_cs_trie trie;
	struct spgo_cs_stats st;
	struct spgo_cs_opts o;
};

static void setup(struct fixture *f, const uint64_t *keys)
{
	memset(f, 0, sizeof *f);
	spgo_cs_defaults(&f->o);
	spgo_cs_code_init_arrays(&f->code, insns, NINSNS, funcs, 3, keys);
	spgo_cs_trie_init(&f->trie, &f->code, &f->o, &f->st);
}

static void teardown(struct fixture *f)
{
	spgo_cs_trie_free(&f->trie);
	spgo_cs_code_free(&f->code);
}

static int unwind(struct fixture *f, const uint64_t *frames, uint32_t nf, const uint64_t *lbr,
		  uint32_t nb, uint64_t count)
{
	struct spgo_agg_stack s = {count, frames, nf, nb, lbr};
	return spgo_cs_unwind(&f->trie, &s);
}

/* The node at the end of path (root first), or SPGO_NONE. */
static uint32_t node_at(const struct spgo_cs_trie *t, const uint64_t *path, size_t n)
{
	uint32_t x = SPGO_CS_ROOT;
	for (size_t i = 0; i < n; i++) {
		uint64_t key[2] = {x, path[i]};
		uint64_t *v = spgo_kmap_find(&t->index, key);
		if (!v)
			return SPGO_NONE;
		x = (uint32_t)(*v - 1);
	}
	return x;
}

static uint64_t range_at(const struct spgo_cs_trie *t, uint32_t node, uint64_t b, uint64_t e)
{
	uint64_t key[3] = {node, b, e};
	uint64_t *v = spgo_kmap_find(&t->ranges, key);
	return v ? *v : 0;
}

static uint64_t branch_at(const struct spgo_cs_trie *t, uint32_t node, uint64_t from, uint64_t to)
{
	uint64_t key[3] = {node, from, to};
	uint64_t *v = spgo_kmap_find(&t->branches, key);
	return v ? *v : 0;
}

/* A sample in foo's loop, called from main: the call pops foo's frame, and
 * main's loop before the call lands on main's frame without a caller. */
static void test_call(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x2004, 0x100d};
	const uint64_t lbr[] = {0x2008, 0x2004, 0x1008, 0x2000, 0x1010, 0x1004};
	CHECK(unwind(&f, frames, 2, lbr, 3, 5) == 1);
	const uint64_t foo_path[] = {0x1008, 0x2000}, main_path[] = {0x1004};
	uint32_t foo = node_at(&f.trie, foo_path, 2), mn = node_at(&f.trie, main_path, 1);
	REQUIRE(foo != SPGO_NONE && mn != SPGO_NONE);
	CHECK_EQ_U64(range_at(&f.trie, foo, 0x2000, 0x2008), 5);
	CHECK_EQ_U64(range_at(&f.trie, mn, 0x1004, 0x1008), 5);
	const uint64_t site[] = {0x1008}, loop[] = {0x1008, 0x2008}, mloop[] = {0x1010};
	CHECK_EQ_U64(branch_at(&f.trie, node_at(&f.trie, site, 1), 0x1008, 0x2000), 5);
	CHECK_EQ_U64(branch_at(&f.trie, node_at(&f.trie, loop, 2), 0x2008, 0x2004), 5);
	CHECK_EQ_U64(branch_at(&f.trie, node_at(&f.trie, mloop, 1), 0x1010, 0x1004), 5);
	uint64_t ctx[8];
	CHECK_EQ_U64(spgo_cs_context(&f.trie, foo, ctx, 8), 2);
	CHECK(ctx[0] == 0x1008 && ctx[1] == 0x2000);
	CHECK_EQ_U64(f.st.unwound, 5);
	CHECK_EQ_U64(f.st.inconsistent, 0);
	teardown(&f);
}

/* A sample just after foo returned: the return brings foo's frame back
 * under the call site. */
static void test_return(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x100d};
	const uint64_t lbr[] = {0x200b, 0x100d, 0x1008, 0x2000};
	CHECK(unwind(&f, frames, 1, lbr, 2, 3) == 1);
	const uint64_t foo_path[] = {0x1008, 0x2000};
	uint32_t foo = node_at(&f.trie, foo_path, 2);
	REQUIRE(foo != SPGO_NONE);
	CHECK_EQ_U64(range_at(&f.trie, foo, 0x2000, 0x200b), 3);
	const uint64_t ret[] = {0x1008, 0x200b};
	CHECK_EQ_U64(branch_at(&f.trie, node_at(&f.trie, ret, 2), 0x200b, 0x100d), 3);
	teardown(&f);
}

/* main calls bar, bar jumps to foo: the stack shows main -> foo; bar's
 * range stays under main's call site, and the tail-call graph puts bar's
 * jump back between main and foo. */
static void test_tail_call(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x2004, 0x1017};
	const uint64_t lbr[] = {0x3008, 0x2000, 0x1012, 0x3000};
	CHECK(unwind(&f, frames, 2, lbr, 2, 7) == 1);
	const uint64_t bar_path[] = {0x1012, 0x3000};
	uint32_t bar = node_at(&f.trie, bar_path, 2);
	REQUIRE(bar != SPGO_NONE);
	CHECK_EQ_U64(range_at(&f.trie, bar, 0x3000, 0x3008), 7);
	struct spgo_cs_tailcalls *tc = spgo_cs_tailcalls_new(&f.trie);
	const uint64_t ctx[] = {0x1012, 0x2004};
	uint64_t out[8];
	size_t n = spgo_cs_infer_frames(tc, ctx, 2, out, 8, &f.st);
	CHECK_EQ_U64(n, 3);
	CHECK(out[0] == 0x1012 && out[1] == 0x3008 && out[2] == 0x2004);
	CHECK_EQ_U64(f.st.tail_unique, 1);
	CHECK_EQ_U64(f.st.tail_frames, 1);
	/* A direct call needs nothing. */
	const uint64_t direct[] = {0x1012, 0x3004};
	CHECK_EQ_U64(spgo_cs_infer_frames(tc, direct, 2, out, 8, &f.st), 2);
	spgo_cs_tailcalls_free(tc);
	teardown(&f);
}

/* The stack says foo was called from 0x1012 but the LBR says 0x1008 (the
 * sample was taken before the frame was set up): the leaf frame switches
 * to the real call site, counted. */
static void test_prologue_mismatch(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x2004, 0x1017};
	const uint64_t lbr[] = {0x2008, 0x2004, 0x1008, 0x2000};
	CHECK(unwind(&f, frames, 2, lbr, 2, 2) == 1);
	CHECK_EQ_U64(f.st.call_mismatch, 2);
	const uint64_t p[] = {0x1012, 0x1008};
	CHECK(node_at(&f.trie, p, 2) != SPGO_NONE);
	/* A leaf in a prologue or epilogue is dropped. */
	const uint64_t pro[] = {0x2001, 0x100d}, plbr[] = {0x1008, 0x2000, 0x1010, 0x1004};
	CHECK(unwind(&f, pro, 2, plbr, 2, 4) == 0);
	CHECK_EQ_U64(f.st.prolog_epilog, 4);
	teardown(&f);
}

/* foo called from external code (a callback): the external frame cuts the
 * context, the call from outside lands on the root for head samples. */
static void test_external(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x2004, EXT, 0x100d};
	const uint64_t lbr[] = {0x2008, 0x2004, EXT, 0x2000, EXT, EXT};
	CHECK(unwind(&f, frames, 3, lbr, 3, 1) == 1);
	const uint64_t path[] = {0x1008, EXT, 0x2000};
	uint32_t foo = node_at(&f.trie, path, 3);
	REQUIRE(foo != SPGO_NONE);
	CHECK_EQ_U64(range_at(&f.trie, foo, 0x2000, 0x2008), 1);
	uint64_t ctx[8];
	CHECK_EQ_U64(spgo_cs_context(&f.trie, foo, ctx, 8), 1);
	CHECK(ctx[0] == 0x2000);
	CHECK_EQ_U64(branch_at(&f.trie, SPGO_CS_ROOT, EXT, 0x2000), 1);
	CHECK_EQ_U64(f.st.inconsistent, 0);
	/* No LBR entry touching the binary: dropped. */
	const uint64_t only_ext[] = {EXT, EXT};
	CHECK(unwind(&f, frames, 3, only_ext, 1, 6) == 0);
	CHECK_EQ_U64(f.st.no_lbr, 6);
	teardown(&f);
}

/* A leaf ip far from the newest LBR target is a bogus trace: counted (and
 * the leaf replaced, as llvm-profgen does), dropped with drop_bogus. */
static void test_bogus(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x100d};
	const uint64_t lbr[] = {0x2008, 0x2004, 0x1008, 0x2000};
	CHECK(unwind(&f, frames, 1, lbr, 2, 2) == 1);
	CHECK_EQ_U64(f.st.bogus, 2);
	f.trie.drop_bogus = 1;
	CHECK(unwind(&f, frames, 1, lbr, 2, 3) == 0);
	CHECK_EQ_U64(f.st.bogus, 5);
	teardown(&f);
}

/* A range that cannot be (its start after its end) makes the rest of the
 * LBR unwind without the stack: the older branch sits on a root frame. */
static void test_inconsistent(void)
{
	struct fixture f;
	setup(&f, NULL);
	const uint64_t frames[] = {0x2004, 0x100d};
	const uint64_t lbr[] = {0x2008, 0x2004, 0x200b, 0x200a, 0x1008, 0x2000};
	CHECK(unwind(&f, frames, 2, lbr, 3, 1) == 1);
	CHECK_EQ_U64(f.st.inconsistent, 1);
	CHECK_EQ_U64(f.st.bad_range, 1);
	const uint64_t p[] = {0x200b}, q[] = {0x2000};
	CHECK(node_at(&f.trie, p, 1) != SPGO_NONE);
	/* ... and the next range, [0x2000, 0x200b], on a frame without caller. */
	uint32_t x = node_at(&f.trie, q, 1);
	REQUIRE(x != SPGO_NONE);
	CHECK_EQ_U64(range_at(&f.trie, x, 0x2000, 0x200b), 1);
	teardown(&f);
}

/* Instructions of different inline contexts split a range: each piece
 * goes to the frame of its own first instruction. */
static void test_inline_split(void)
{
	uint64_t keys[NINSNS];
	for (size_t i = 0; i < NINSNS; i++)
		keys[i] = 1;
	keys[2] = 2; /* 0x1004 is inlined code */
	struct fixture f;
	setup(&f, keys);
	const uint64_t frames[] = {0x2004, 0x100d};
	const uint64_t lbr[] = {0x2008, 0x2004, 0x1008, 0x2000, 0x1010, 0x1004};
	CHECK(unwind(&f, frames, 2, lbr, 3, 1) == 1);
	const uint64_t a[] = {0x1008}, b[] = {0x1004};
	CHECK_EQ_U64(range_at(&f.trie, node_at(&f.trie, a, 1), 0x1008, 0x1008), 1);
	CHECK_EQ_U64(range_at(&f.trie, node_at(&f.trie, b, 1), 0x1004, 0x1004), 1);
	teardown(&f);
}

static int seq_eq(const int *a, size_t n, const int *b, size_t m)
{
	return n == m && !memcmp(a, b, n * sizeof *a);
}

static void test_compress(void)
{
	int a[] = {1, 2, 3, 2, 3};
	const int ra[] = {1, 2, 3};
	CHECK(seq_eq(a, spgo_cs_compress(a, 5, sizeof *a, -1), ra, 3));
	int b[] = {1, 1, 2, 2};
	const int rb[] = {1, 2};
	CHECK(seq_eq(b, spgo_cs_compress(b, 4, sizeof *b, -1), rb, 2));
	int c[] = {1, 2, 1, 2, 1, 2, 3};
	const int rc[] = {1, 2, 3};
	CHECK(seq_eq(c, spgo_cs_compress(c, 7, sizeof *c, -1), rc, 3));
	int d[] = {1, 2, 1, 2};
	const int rd[] = {1, 2, 1, 2};
	CHECK(seq_eq(d, spgo_cs_compress(d, 4, sizeof *d, 1), rd, 4)); /* length 1 only */
	int e[] = {4};
	CHECK_EQ_U64(spgo_cs_compress(e, 1, sizeof *e, -1), 1);
	CHECK_EQ_U64(spgo_cs_compress(e, 0, sizeof *e, -1), 0);
}

int main(void)
{
	RUN(test_call);
	RUN(test_return);
	RUN(test_tail_call);
	RUN(test_prologue_mismatch);
	RUN(test_external);
	RUN(test_bogus);
	RUN(test_inconsistent);
	RUN(test_inline_split);
	RUN(test_compress);
	DONE();
}
