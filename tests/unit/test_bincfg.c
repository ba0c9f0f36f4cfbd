/*
 * Binary CFGs from hand-made instruction arrays (the shape
 * spgo_binary_insns() returns), and clang's basic-block address map: a
 * hand-decoded section and a real one from clang-19, checked against
 * llvm-readobj-19 --bb-addr-map.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/infer.h"

#define I(a, sz, c, t) {.addr = (a), .target = (t), .size = (sz), .cls = (c)}

static uint32_t edge_between(const struct spgo_cfg *c, uint64_t from, uint64_t to, uint32_t *kind)
{
	uint32_t s = spgo_cfg_block_at(c, from), d = spgo_cfg_block_at(c, to);
	for (uint32_t e = 0; e < c->nedges; e++)
		if (c->edges[e].src == s && c->edges[e].dst == d) {
			if (kind)
				*kind = c->edges[e].kind;
			return e;
		}
	return SPGO_NONE;
}

/*
 * 0x100: cmp            ; block A
 * 0x103: jne 0x110      ; -> C taken, B not taken
 * 0x105: call 0x900     ; block B (call returns: no split)
 * 0x10a: jmp 0x118      ; -> D
 * 0x10c: nop4           ; block (dead padding), no predecessor
 * 0x110: add            ; block C (branch target)
 * 0x113: jb 0x110       ; self loop C -> C, falls to D
 * 0x118: call abort     ; block D: noreturn call ends the block
 * 0x11d: ret            ; block E: after a noreturn call
 */
static void test_basic_blocks(void)
{
	static const struct spgo_insn in[] = {
		I(0x100, 3, SPGO_INSN_OTHER, 0),   I(0x103, 2, SPGO_INSN_COND_BRANCH, 0x110),
		I(0x105, 5, SPGO_INSN_CALL, 0x900), I(0x10a, 2, SPGO_INSN_JUMP, 0x118),
		I(0x10c, 4, SPGO_INSN_OTHER, 0),   I(0x110, 3, SPGO_INSN_OTHER, 0),
		I(0x113, 5, SPGO_INSN_COND_BRANCH, 0x110), I(0x118, 5, SPGO_INSN_CALL, 0x990),
		I(0x11d, 1, SPGO_INSN_RETURN, 0),
	};
	struct spgo_cfg c;
	REQUIRE(spgo_cfg_from_insns(&c, in, SPGO_ARRAY_LEN(in), 0x100, NULL) == 0);
	/* without is_noreturn, the call at 0x118 falls through into 0x11d */
	CHECK_EQ_U64(c.nblocks, 5);
	CHECK_EQ_U64(c.blocks[0].addr, 0x100);
	CHECK_EQ_U64(c.blocks[0].size, 5);
	CHECK_EQ_U64(c.blocks[1].addr, 0x105);
	CHECK_EQ_U64(c.blocks[1].size, 7);
	uint32_t k = 0;
	CHECK(edge_between(&c, 0x103, 0x110, &k) != SPGO_NONE && k == SPGO_EDGE_TAKEN);
	CHECK(edge_between(&c, 0x103, 0x105, &k) != SPGO_NONE && k == SPGO_EDGE_NOT_TAKEN);
	CHECK(edge_between(&c, 0x10a, 0x118, &k) != SPGO_NONE && k == SPGO_EDGE_JUMP);
	CHECK(edge_between(&c, 0x113, 0x110, &k) != SPGO_NONE && k == SPGO_EDGE_TAKEN);
	CHECK(edge_between(&c, 0x113, 0x118, &k) != SPGO_NONE && k == SPGO_EDGE_NOT_TAKEN);
	CHECK(edge_between(&c, 0x10c, 0x110, &k) != SPGO_NONE && k == SPGO_EDGE_FALLTHROUGH);
	uint32_t d = spgo_cfg_block_at(&c, 0x118);
	CHECK(c.blocks[d].flags & SPGO_BLOCK_RETURN);
	CHECK(spgo_cfg_is_exit(&c, d));
	spgo_cfg_free(&c);
}

static int is_abort(void *ctx, uint64_t target)
{
	(void)ctx;
	return target == 0x990;
}

static void test_noreturn_and_tail_call(void)
{
	static const struct spgo_insn in[] = {
		I(0x100, 2, SPGO_INSN_COND_BRANCH, 0x500), /* conditional tail call */
		I(0x102, 5, SPGO_INSN_CALL, 0x990),        /* abort() */
		I(0x107, 5, SPGO_INSN_JUMP, 0x600),        /* tail call */
	};
	struct spgo_bincfg_opts o = {.is_noreturn = is_abort};
	struct spgo_cfg c;
	REQUIRE(spgo_cfg_from_insns(&c, in, 3, 0x100, &o) == 0);
	CHECK_EQ_U64(c.nblocks, 3);
	CHECK(c.blocks[0].flags & SPGO_BLOCK_EXIT); /* leaves by the jcc */
	CHECK_EQ_U64(c.blocks[0].nout, 1);          /* and falls through */
	CHECK(c.blocks[1].flags & SPGO_BLOCK_NORETURN);
	CHECK_EQ_U64(c.blocks[1].nout, 0);
	CHECK(c.blocks[2].flags & SPGO_BLOCK_EXIT);
	/* static probabilities: the edge into the abort() block is unlikely */
	spgo_cfg_static_probs(&c);
	CHECK(c.edges[0].prob == 1.0);
	spgo_cfg_free(&c);
}

/* A jump table: recovered by the callback, or guessed when not. */
static size_t table(void *ctx, const struct spgo_insn *jmp, uint64_t *t, size_t max)
{
	(void)ctx;
	if (jmp->addr != 0x104 || max < 4)
		return 0;
	t[0] = 0x106, t[1] = 0x10a, t[2] = 0x10e, t[3] = 0x10a; /* 0x10a twice */
	return 4;
}

static void test_jump_table(void)
{
	static const struct spgo_insn in[] = {
		I(0x100, 4, SPGO_INSN_OTHER, 0),         I(0x104, 2, SPGO_INSN_INDIRECT_JUMP, 0),
		I(0x106, 2, SPGO_INSN_OTHER, 0),         I(0x108, 2, SPGO_INSN_JUMP, 0x112),
		I(0x10a, 2, SPGO_INSN_OTHER, 0),         I(0x10c, 2, SPGO_INSN_JUMP, 0x112),
		I(0x10e, 4, SPGO_INSN_OTHER, 0),         I(0x112, 1, SPGO_INSN_RETURN, 0),
	};
	struct spgo_bincfg_opts o = {.jump_table = table};
	struct spgo_cfg c;
	REQUIRE(spgo_cfg_from_insns(&c, in, SPGO_ARRAY_LEN(in), 0x100, &o) == 0);
	CHECK_EQ_U64(c.nblocks, 5);
	CHECK_EQ_U64(c.blocks[0].nout, 3); /* duplicates folded */
	uint32_t k = 0;
	CHECK(edge_between(&c, 0x104, 0x10e, &k) != SPGO_NONE && k == SPGO_EDGE_TABLE);
	CHECK(!(c.blocks[0].flags & SPGO_BLOCK_UNKNOWN_SUCCS));
	/* Infer on it: weights 100 / 60 / 30 / 10 / 100 */
	const uint64_t w[] = {100, 60, 30, 10, 100};
	for (int b = 0; b < 5; b++)
		c.blocks[b].weight = w[b];
	struct spgo_infer_opts io;
	spgo_infer_defaults(&io, SPGO_ALGO_PROFI);
	REQUIRE(spgo_infer(&c, &io) == 0);
	char why[160];
	CHECK(spgo_flow_check(&c, why, sizeof why) == 0);
	CHECK_EQ_U64(c.edges[edge_between(&c, 0x104, 0x10a, NULL)].count, 30);
	spgo_cfg_free(&c);

	/* Unresolved: the block says so, and gets guessed edges to the
	 * blocks nothing else enters (0x106, 0x10a, 0x10e, which are exactly
	 * the table's targets here). */
	REQUIRE(spgo_cfg_from_insns(&c, in, SPGO_ARRAY_LEN(in), 0x100, NULL) == 0);
	CHECK(c.blocks[0].flags & SPGO_BLOCK_UNKNOWN_SUCCS);
	CHECK(spgo_cfg_is_exit(&c, 0));
	CHECK(edge_between(&c, 0x104, 0x106, &k) != SPGO_NONE && k == SPGO_EDGE_GUESSED);
	CHECK(edge_between(&c, 0x104, 0x10e, &k) != SPGO_NONE && k == SPGO_EDGE_GUESSED);
	CHECK_EQ_U64(c.blocks[0].nout, 3);
	spgo_cfg_free(&c);
}

/* Exact block starts (from .llvm_bb_addr_map) split straight-line code. */
static void test_block_starts(void)
{
	static const struct spgo_insn in[] = {
		I(0x100, 4, SPGO_INSN_OTHER, 0), I(0x104, 4, SPGO_INSN_OTHER, 0),
		I(0x108, 4, SPGO_INSN_OTHER, 0), I(0x10c, 1, SPGO_INSN_RETURN, 0),
	};
	const uint64_t starts[] = {0x100, 0x108};
	struct spgo_bincfg_opts o = {.block_starts = starts, .nblock_starts = 2};
	struct spgo_cfg c;
	REQUIRE(spgo_cfg_from_insns(&c, in, 4, 0x100, &o) == 0);
	CHECK_EQ_U64(c.nblocks, 2);
	CHECK_EQ_U64(c.blocks[1].addr, 0x108);
	CHECK_EQ_U64(c.blocks[1].size, 5);
	uint32_t k = 0;
	CHECK(edge_between(&c, 0x104, 0x108, &k) != SPGO_NONE && k == SPGO_EDGE_FALLTHROUGH);
	spgo_cfg_free(&c);
	CHECK(spgo_cfg_from_insns(&c, in, 4, 0x101, NULL) != 0);
	CHECK_STREQ(spgo_errmsg(), "CFG of 0x101: the entry is not an instruction address");
}

/* The first function of a clang-19 section (f of a 3-function program):
 * version 2, no features, 9 blocks; as llvm-readobj-19 shows it. */
static void test_bb_addr_map_bytes(void)
{
	static const uint8_t sec[] = {
		0x02, 0x00, 0x30, 0x11, 0, 0, 0, 0, 0, 0, 0x09,
		0x00, 0x00, 0x08, 0x08, 0x01, 0x00, 0x10, 0x08, 0x03, 0x00, 0x3e, 0x08,
		0x04, 0x0a, 0x4f, 0x08, 0x05, 0x00, 0x1e, 0x08, 0x02, 0x00, 0x05, 0x08,
		0x07, 0x0e, 0x10, 0x08, 0x06, 0x00, 0x01, 0x01, 0x08, 0x00, 0x03, 0x01,
	};
	struct spgo_bb_addr_map m;
	REQUIRE(spgo_bb_addr_map_parse(&m, sec, sizeof sec, "sec") == 0);
	REQUIRE(m.nfuncs == 1);
	CHECK_EQ_U64(m.funcs[0].addr, 0x1130);
	REQUIRE(m.funcs[0].nblocks == 9);
	CHECK_EQ_U64(m.funcs[0].blocks[2].id, 3);
	CHECK_EQ_U64(m.funcs[0].blocks[2].addr, 0x1130 + 0x18);
	CHECK_EQ_U64(m.funcs[0].blocks[3].addr, 0x1130 + 0x60); /* offset 0x0a after 0x18 + 0x3e */
	CHECK_EQ_U64(m.funcs[0].blocks[8].meta, 1);             /* HasReturn */
	CHECK(spgo_bb_addr_map_find(&m, 0x1130) == &m.funcs[0]);
	spgo_bb_addr_map_free(&m);
	/* truncated, and an unknown version */
	CHECK(spgo_bb_addr_map_parse(&m, sec, 20, "sec") != 0);
	CHECK_STREQ(spgo_errmsg(), "sec: offset 0x0: truncated bb address map entry");
	static const uint8_t v9[] = {9, 0};
	CHECK(spgo_bb_addr_map_parse(&m, v9, 2, "sec") != 0);
	CHECK_STREQ(spgo_errmsg(), "sec: offset 0x0: bb address map version 9 (only 2 is supported)");
	/* A block id of ten bytes whose last holds more than bit 63: refused,
	 * not cut to its low bits. */
	static const uint8_t big[] = {2, 0, 0x30, 0x11, 0, 0, 0, 0, 0, 0, 1,
				      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 1, 0};
	CHECK(spgo_bb_addr_map_parse(&m, big, sizeof big, "sec") != 0);
	CHECK_STREQ(spgo_errmsg(), "sec: offset 0x0: a number over 64 bits in a bb address map entry");
}

/* A real section: compile with clang-19 -fbasic-block-address-map and
 * compare every block with llvm-readobj-19 --bb-addr-map. */
static void test_bb_addr_map_clang(void)
{
	if (system("command -v clang-19 >/dev/null && command -v llvm-readobj-19 >/dev/null") != 0) {
		printf("skip: clang-19 or llvm-readobj-19 missing\n");
		return;
	}
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = xasprintf("%s/spgo-bbmap-XXXXXX", tmp);
	REQUIRE(mkdtemp(dir));
	char *src = xasprintf("%s/t.c", dir), *bin = xasprintf("%s/t", dir);
	FILE *fp = fopen(src, "w");
	REQUIRE(fp);
	fputs("int f(int x){int s=0;for(int i=0;i<x;i++){if(i&1)s+=i;else s-=3;}return s;}\n"
	      "int g(int x){switch(x){case 0:return 4;case 1:return 7;case 2:return 9;case 3:return 1;"
	      "case 4:return 11;default:return f(x);}}\n"
	      "int main(int c,char**v){(void)v;return g(c)+f(c);}\n",
	      fp);
	fclose(fp);
	char *cmd = xasprintf("clang-19 -O2 -fbasic-block-address-map %s -o %s", src, bin);
	REQUIRE(system(cmd) == 0);
	free(cmd);
	struct spgo_bb_addr_map m;
	REQUIRE(spgo_bb_addr_map_read(&m, bin) == 0);
	CHECK(m.nfuncs >= 3);
	/* llvm-readobj prints At:, then per block ID, Offset, Size */
	cmd = xasprintf("llvm-readobj-19 --bb-addr-map %s", bin);
	FILE *p = popen(cmd, "r");
	free(cmd);
	REQUIRE(p);
	char line[256];
	const struct spgo_bb_func *f = NULL;
	size_t bi = 0, checked = 0;
	uint64_t off = 0;
	int mismatches = 0;
	while (fgets(line, sizeof line, p)) {
		unsigned long long v;
		if (sscanf(line, " At: 0x%llx", &v) == 1) {
			f = spgo_bb_addr_map_find(&m, v);
			CHECK(f != NULL);
			bi = 0;
		} else if (f && sscanf(line, " Offset: 0x%llx", &v) == 1) {
			off = v;
		} else if (f && sscanf(line, " Size: 0x%llx", &v) == 1) {
			if (bi < f->nblocks && f->blocks[bi].addr == f->addr + off && f->blocks[bi].size == v)
				checked++;
			else
				mismatches++;
			bi++;
		}
	}
	pclose(p);
	CHECK(mismatches == 0);
	CHECK(checked >= 10);
	spgo_bb_addr_map_free(&m);
	/* a file without the section reads as empty */
	cmd = xasprintf("clang-19 -O2 %s -o %s", src, bin);
	REQUIRE(system(cmd) == 0);
	CHECK(spgo_bb_addr_map_read(&m, bin) == 0 && m.nfuncs == 0);
	free(cmd);
	cmd = xasprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(src);
	free(bin);
	free(dir);
}

/* Names of noreturn functions, with and without a symbol version. */
static void test_noreturn_names(void)
{
	CHECK(spgo_noreturn_name("exit"));
	CHECK(spgo_noreturn_name("exit@GLIBC_2.2.5"));
	CHECK(spgo_noreturn_name("__assert_fail"));
	CHECK(spgo_noreturn_name("__stack_chk_fail"));
	CHECK(spgo_noreturn_name("_ZSt20__throw_length_errorPKc"));
	CHECK(spgo_noreturn_name("__ubsan_handle_add_overflow_abort"));
	CHECK(!spgo_noreturn_name("exit_group_helper"));
	CHECK(!spgo_noreturn_name("exi"));
	CHECK(!spgo_noreturn_name("printf"));
	CHECK(!spgo_noreturn_name("__ubsan_handle_add_overflow"));
	CHECK(!spgo_noreturn_name(NULL));
}

/* spgo_cfg_from_binary on a clang-19 binary with a block map: every block
 * the map lists starts a CFG block, and a wrong entry is an error. */
static void test_cfg_from_binary(void)
{
	if (system("command -v clang-19 >/dev/null") != 0) {
		printf("skip: clang-19 missing\n");
		return;
	}
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = xasprintf("%s/spgo-bincfg-XXXXXX", tmp);
	REQUIRE(mkdtemp(dir));
	char *src = xasprintf("%s/t.c", dir), *bin = xasprintf("%s/t", dir);
	FILE *fp = fopen(src, "w");
	REQUIRE(fp);
	fputs("#include <stdlib.h>\n"
	      "volatile int g;\n"
	      "__attribute__((noinline)) int f(int x){switch(x){case 0:g+=3;break;case 1:g^=5;break;"
	      "case 2:g*=7;break;case 3:g-=1;break;case 4:g/=3;break;case 5:g|=64;break;default:g=0;}"
	      "if(g==12345)abort();return g;}\n"
	      "int main(int c,char**v){(void)v;return f(c);}\n",
	      fp);
	fclose(fp);
	char *cmd = xasprintf("clang-19 -O2 -fbasic-block-address-map %s -o %s", src, bin);
	REQUIRE(system(cmd) == 0);
	free(cmd);
	struct spgo_bb_addr_map m;
	struct spgo_binary *b;
	REQUIRE(spgo_bb_addr_map_read(&m, bin) == 0);
	REQUIRE(spgo_binary_open(&b, bin, NULL) == 0);
	size_t nf;
	const struct spgo_function *fs = spgo_binary_functions(b, &nf);
	const struct spgo_function *f = NULL;
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(fs[i].name, "f"))
			f = &fs[i];
	REQUIRE(f);
	const struct spgo_bb_func *bf = spgo_bb_addr_map_find(&m, f->start);
	REQUIRE(bf);
	struct spgo_cfg c;
	REQUIRE(spgo_cfg_from_binary(&c, b, f->start, &m) == 0);
	CHECK_STREQ(c.name, "f");
	for (size_t k = 0; k < bf->nblocks; k++) {
		uint32_t blk = spgo_cfg_block_at(&c, bf->blocks[k].addr);
		CHECK(blk != SPGO_NONE && c.blocks[blk].addr == bf->blocks[k].addr);
	}
	/* the switch: one block with table edges, none with unknown successors */
	size_t ntable = 0, nunknown = 0, nnoret = 0;
	for (size_t e = 0; e < c.nedges; e++)
		ntable += c.edges[e].kind == SPGO_EDGE_TABLE;
	for (size_t k = 0; k < c.nblocks; k++) {
		nunknown += !!(c.blocks[k].flags & SPGO_BLOCK_UNKNOWN_SUCCS);
		nnoret += !!(c.blocks[k].flags & SPGO_BLOCK_NORETURN);
	}
	CHECK(ntable >= 6);
	CHECK(nunknown == 0);
	CHECK(nnoret >= 1); /* the call to abort@plt */
	spgo_cfg_free(&c);
	CHECK(spgo_cfg_from_binary(&c, b, f->start + 1, &m) == -1);
	spgo_cfg_free(&c);
	spgo_binary_close(b);
	spgo_bb_addr_map_free(&m);
	cmd = xasprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(src);
	free(bin);
	free(dir);
}

int main(void)
{
	spgo_quiet = 1;
	RUN(test_basic_blocks);
	RUN(test_noreturn_and_tail_call);
	RUN(test_jump_table);
	RUN(test_block_starts);
	RUN(test_bb_addr_map_bytes);
	RUN(test_bb_addr_map_clang);
	RUN(test_noreturn_names);
	RUN(test_cfg_from_binary);
	DONE();
}
