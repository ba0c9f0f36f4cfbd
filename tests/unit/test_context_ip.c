/*
 * Contexts of IP samples with frame-pointer call stacks (src/context/ip.c,
 * cs_ip_add) on hand-made code: the call sites of a stack become the path,
 * the leaf one hit there; an external outermost frame is the normal end,
 * an external frame or a return address after no call inside the stack
 * starts the context below it; recursion is compressed; leaves outside the
 * code or in a prologue or epilogue give no hit; indirect calls remember
 * their callees.
 *
 * The code (addresses; as test_context.c):
 *   main  0x1000 push, 0x1001 mov, 0x1004 x, 0x1008 call foo, 0x100d x,
 *         0x1010 jcc 0x1004, 0x1012 call bar, 0x1017 call *%rax, 0x1019 x,
 *         0x101a ret
 *   foo   0x2000 push, 0x2001 mov, 0x2004 x, 0x2008 call foo, 0x200d x,
 *         0x200e jcc 0x2004, 0x2010 pop, 0x2011 ret
 *   bar   0x3000 push, 0x3001 x, 0x3004 x, 0x3008 jmp foo (a tail call)
 */
#include "harness.h"
#include "context/context_impl.h"

#define EXT SPGO_AGG_EXTERNAL

static const struct spgo_insn insns[] = {
	{0x1000, 0, 1, SPGO_INSN_OTHER, 0},   {0x1001, 0, 3, SPGO_INSN_OTHER, 0},
	{0x1004, 0, 4, SPGO_INSN_OTHER, 0},   {0x1008, 0x2000, 5, SPGO_INSN_CALL, 0},
	{0x100d, 0, 3, SPGO_INSN_OTHER, 0},   {0x1010, 0x1004, 2, SPGO_INSN_COND_BRANCH, 0},
	{0x1012, 0x3000, 5, SPGO_INSN_CALL, 0}, {0x1017, 0, 2, SPGO_INSN_INDIRECT_CALL, 0},
	{0x1019, 0, 1, SPGO_INSN_OTHER, 0},   {0x101a, 0, 1, SPGO_INSN_RETURN, 0},
	{0x2000, 0, 1, SPGO_INSN_OTHER, 0},   {0x2001, 0, 3, SPGO_INSN_OTHER, 0},
	{0x2004, 0, 4, SPGO_INSN_OTHER, 0},   {0x2008, 0x2000, 5, SPGO_INSN_CALL, 0},
	{0x200d, 0, 1, SPGO_INSN_OTHER, 0},   {0x200e, 0x2004, 2, SPGO_INSN_COND_BRANCH, 0},
	{0x2010, 0, 1, SPGO_INSN_OTHER, 0},   {0x2011, 0, 1, SPGO_INSN_RETURN, 0},
	{0x3000, 0, 1, SPGO_INSN_OTHER, 0},   {0x3001, 0, 3, SPGO_INSN_OTHER, 0},
	{0x3004, 0, 4, SPGO_INSN_OTHER, 0},   {0x3008, 0x2000, 5, SPGO_INSN_JUMP, 0},
};
static const struct spgo_function funcs[] = {
	{0x1000, 0x101b, "main", 1, -1, "main", 1},
	{0x2000, 0x2012, "foo", 1, -1, "foo", 1},
	{0x3000, 0x300d, "bar", 1, -1, "bar", 1},
};
#define NINSNS (sizeof insns / sizeof insns[0])

struct fixture {
	struct spgo_cs_code code;
	struct spgo_cs_stats st;
	struct spgo_cs_opts o;
	struct cs_ip *ip;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof *f);
	spgo_cs_defaults(&f->o);
	spgo_cs_code_init_arrays(&f->code, insns, NINSNS, funcs, 3, NULL);
	f->ip = cs_ip_new(&f->code, &f->o, &f->st);
}

static void teardown(struct fixture *f)
{
	cs_ip_free(f->ip);
	spgo_cs_code_free(&f->code);
}

static void add(struct fixture *f, const uint64_t *frames, uint32_t nf, uint64_t count)
{
	struct spgo_agg_stack s = {count, frames, nf, 0, NULL};
	cs_ip_add(f->ip, &s);
}

/* The node at the end of path (root first), or SPGO_NONE. */
static uint32_t node_at(struct fixture *f, const uint64_t *path, size_t n)
{
	const struct spgo_cs_trie *t = cs_ip_trie(f->ip);
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

/* The context of node (root first) through spgo_cs_context. */
static size_t context(struct fixture *f, uint32_t node, uint64_t *buf)
{
	return spgo_cs_context(cs_ip_trie(f->ip), node, buf, 8);
}

/* A sample in foo's loop, called from main, main called by libc: the path
 * is the call in main, the leaf one hit in foo's context. */
static void test_call_chain(void)
{
	struct fixture f;
	setup(&f);
	const uint64_t frames[] = {0x2004, 0x100d, EXT};
	add(&f, frames, 3, 3);
	add(&f, frames, 3, 2);
	const uint64_t path[] = {0x1008};
	uint32_t x = node_at(&f, path, 1);
	REQUIRE(x != SPGO_NONE);
	uint64_t ctx[8];
	CHECK_EQ_U64(context(&f, x, ctx), 1);
	CHECK(ctx[0] == 0x1008);
	CHECK_EQ_U64(f.st.ip_samples, 5);
	CHECK_EQ_U64(f.st.ip_counted, 5);
	CHECK_EQ_U64(f.st.ip_callers, 5);
	CHECK_EQ_U64(f.st.stack_cut, 0); /* libc's frame outermost: no cut */
	/* A sample in main itself: no caller in the binary, the root context. */
	const uint64_t top[] = {0x1004, EXT};
	add(&f, top, 2, 1);
	CHECK_EQ_U64(f.st.ip_counted, 6);
	CHECK_EQ_U64(f.st.ip_callers, 5);
	teardown(&f);
}

/* Leaves outside the code and in prologues or epilogues give no hit. */
static void test_dropped(void)
{
	struct fixture f;
	setup(&f);
	const uint64_t ext[] = {EXT, 0x100d}, pro[] = {0x2000, 0x100d}, epi[] = {0x2011, 0x100d},
		       mid[] = {0x2002, 0x100d};
	add(&f, ext, 2, 1);
	add(&f, pro, 2, 2);
	add(&f, epi, 2, 4);
	add(&f, mid, 2, 8); /* inside an instruction */
	CHECK_EQ_U64(f.st.ip_samples, 15);
	CHECK_EQ_U64(f.st.ip_ext_leaf, 9);
	CHECK_EQ_U64(f.st.ip_proepi, 6);
	CHECK_EQ_U64(f.st.ip_counted, 0);
	teardown(&f);
}

/* An external frame inside the stack (a callback through libc) and a
 * return address after no call both start the context below them. */
static void test_cut(void)
{
	struct fixture f;
	setup(&f);
	/* foo called from libc, which main's call of bar... led to */
	const uint64_t cb[] = {0x2004, EXT, 0x1017};
	add(&f, cb, 3, 1);
	/* a return address 0x1004 follows no call */
	const uint64_t broken[] = {0x2004, 0x1004, 0x1017};
	add(&f, broken, 3, 1);
	CHECK_EQ_U64(f.st.stack_cut, 2);
	CHECK_EQ_U64(f.st.ip_counted, 2);
	CHECK_EQ_U64(f.st.ip_callers, 0);
	/* both at the root: no path node was made */
	CHECK_EQ_U64(cs_ip_trie(f.ip)->nodes.n, 1);
	teardown(&f);
}

/* Recursion: foo calling itself three times under main compresses to one
 * recursive site. */
static void test_recursion(void)
{
	struct fixture f;
	setup(&f);
	const uint64_t frames[] = {0x2004, 0x200d, 0x200d, 0x200d, 0x100d};
	add(&f, frames, 5, 1);
	const uint64_t path[] = {0x1008, 0x2008}, deeper[] = {0x1008, 0x2008, 0x2008};
	CHECK(node_at(&f, path, 2) != SPGO_NONE);
	CHECK(node_at(&f, deeper, 3) == SPGO_NONE);
	/* without compression the full path */
	struct fixture g;
	setup(&g);
	cs_ip_free(g.ip);
	g.o.compress_recursion = 0;
	g.ip = cs_ip_new(&g.code, &g.o, &g.st);
	add(&g, frames, 5, 1);
	const uint64_t full[] = {0x1008, 0x2008, 0x2008, 0x2008};
	CHECK(node_at(&g, full, 4) != SPGO_NONE);
	teardown(&g);
	teardown(&f);
}

int main(void)
{
	RUN(test_call_chain);
	RUN(test_dropped);
	RUN(test_cut);
	RUN(test_recursion);
	DONE();
}
