/*
 * Unit tests of profile generation (spgo/gen.h): name canonicalization,
 * function-entry rules and discriminator decoding against LLVM's rules, and spgo_gen() on a
 * hand-made aggregate of a program compiled here (ranges, off-boundary
 * ranges, calls, external calls, GCC totals, the empty-profile refusal).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "spgo/gen.h"
#include "spgo/infer.h"
#include "spgo/profile.h"

static void test_canonical(void)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"foo", "foo"},
		{"foo.llvm.1234", "foo"},
		{"foo.part.0", "foo"},
		{"foo.cold", "foo.cold"},        /* not one of LLVM's suffixes */
		{"foo.isra.0", "foo.isra.0"},
		{"foo.part.0.isra.1", "foo.part.0.isra.1"}, /* suffix not last */
		{"foo.__uniq.123", "foo.__uniq.123"},      /* kept */
		{"foo.__uniq.123.llvm.5", "foo.__uniq.123"},
	};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(t); i++) {
		size_t n = spgo_profgen_canonical_len(t[i].in, strlen(t[i].in));
		CHECK(n == strlen(t[i].out) && !strncmp(t[i].in, t[i].out, n));
	}
}

/*
 * Which part of code is its function's entry (calls into it are head
 * samples), as llvm-profgen 19 decides: the only part of its DWARF name,
 * or a part whose ELF symbol, canonical, is that name.  One rule per
 * suffix clang and gcc give parts and clones.
 */
static void test_entry_rules(void)
{
	static const struct {
		const char *symbol, *name;
		size_t nparts;
		int entry;
	} t[] = {
		{"foo", "foo", 2, 1},
		{"foo", "foo", 1, 1},
		/* .cold (gcc, clang -fsplit-machine-functions): a part, jumped to */
		{"foo.cold", "foo", 2, 0},
		{"foo.cold.1", "foo", 3, 0},
		/* .part.N (gcc partial inlining): stripped by getCanonicalFnName */
		{"foo.part.0", "foo", 2, 1},
		/* .isra / .constprop (gcc clones named foo through their abstract
		 * origin): not foo's entry when foo has another part ... */
		{"foo.isra.0", "foo", 2, 0},
		{"foo.constprop.0", "foo", 2, 0},
		{"foo.constprop.0.isra.0", "foo", 2, 0},
		/* ... but the only code of foo is */
		{"foo.isra.0", "foo", 1, 1},
		{"foo.constprop.0", "foo", 1, 1},
		/* .llvm.N (ThinLTO promotion): stripped */
		{"foo.llvm.123456", "foo", 2, 1},
		/* .__uniq.N: kept, so an entry when DWARF names it so too */
		{"foo.__uniq.789", "foo.__uniq.789", 2, 1},
		{"foo.__uniq.789", "foo", 2, 0},
		/* coroutine parts (clang's CoroSplit), all named foo in DWARF */
		{"foo.resume", "foo", 3, 0},
		{"foo.destroy", "foo", 3, 0},
		{"foo.cleanup", "foo", 3, 0},
		{"foo", "foo", 3, 1},
	};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(t); i++)
		if (spgo_gen_is_entry(t[i].symbol, t[i].name, t[i].nparts) != t[i].entry) {
			fprintf(stderr, "entry rule: %s (name %s, %zu parts) should be %s\n",
				t[i].symbol, t[i].name, t[i].nparts, t[i].entry ? "an entry" : "no entry");
			CHECK(0);
		}
}

static void test_dup_factor(void)
{
	/* LLVM encodes base | dup << 7 (each prefix-encoded: v << 1, or a
	 * 1 bit for "zero"); see DILocation::encodeDiscriminator. */
	CHECK_EQ_U64(spgo_gen_dup_factor(0), 1);
	CHECK_EQ_U64(spgo_gen_dup_factor(2), 1);   /* base 1, no factor */
	CHECK_EQ_U64(spgo_gen_dup_factor(1 | (4 << 1)), 2);  /* base 0, dup 2 */
	CHECK_EQ_U64(spgo_gen_dup_factor(2 | (8 << 7)), 4);  /* base 1, dup 4 */
	CHECK_EQ_U64(spgo_gen_dup_factor(3), 1);
}

static const char prog[] =
	"int leaf(int n) { int s = 0;\n"
	"  for (int i = 0; i < n; i++)\n"
	"    s += i * 3;\n"
	"  return s; }\n"
	"__attribute__((noinline)) int caller(int n) { return leaf(n) + 1; }\n"
	"int main(int c, char **v) { (void)v; return caller(c); }\n";

static char dir[64], path[96];

static int build_prog(void)
{
	strcpy(dir, "/tmp/spgo-test-gen-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char src[96], cmd[400];
	snprintf(src, sizeof src, "%s/p.c", dir);
	snprintf(path, sizeof path, "%s/p", dir);
	FILE *fp = fopen(src, "w");
	if (!fp)
		return -1;
	fputs(prog, fp);
	fclose(fp);
	snprintf(cmd, sizeof cmd, "cc -O1 -g -fno-inline -o %s %s 2>/dev/null", path, src);
	return system(cmd) == 0 ? 0 : -1;
}

static const struct spgo_function *find_func(struct spgo_binary *bin, const char *name)
{
	size_t n;
	const struct spgo_function *f = spgo_binary_functions(bin, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

static void add(struct spgo_kmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t k[2] = {a, b};
	*spgo_kmap_upsert(m, k) += c;
}

static void test_gen_lbr(void)
{
	struct spgo_aggregate *agg;
	REQUIRE(spgo_agg_new(&agg, path, NULL) == 0);
	struct spgo_binary *bin = agg->bin;
	const struct spgo_function *leaf = find_func(bin, "leaf"), *caller = find_func(bin, "caller");
	REQUIRE(leaf && caller);
	size_t n;
	const struct spgo_insn *in = spgo_binary_insns(bin, &n);
	/* leaf's instructions up to its first branch: one range, count 10. */
	size_t i0 = 0;
	while (i0 < n && in[i0].addr != leaf->start)
		i0++;
	REQUIRE(i0 < n);
	size_t i1 = i0;
	while (i1 + 1 < n && in[i1].cls == SPGO_INSN_OTHER)
		i1++;
	uint64_t bytes = in[i1].addr + in[i1].size - in[i0].addr;
	add(&agg->ranges, in[i0].addr, in[i1].addr, 10);
	add(&agg->ranges, in[i0].addr + 1, in[i1].addr, 1); /* not an instruction start */
	/* caller's call into leaf: 7, and 3 calls from outside the binary. */
	uint64_t call = 0;
	for (size_t i = 0; i < n; i++)
		if (in[i].addr >= caller->start && in[i].addr < caller->end &&
		    in[i].cls == SPGO_INSN_CALL && in[i].target == leaf->start)
			call = in[i].addr;
	REQUIRE(call);
	add(&agg->branches, call, leaf->start, 7);
	add(&agg->branches, SPGO_AGG_EXTERNAL, leaf->start, 3);
	agg->stats.samples = agg->stats.samples_matched = 1;

	struct spgo_gen_opts o;
	spgo_gen_defaults(&o);
	struct spgo_profile *p;
	struct spgo_gen_stats st;
	int rc = spgo_gen(agg, &o, &p, &st);
	if (rc < 0)
		fprintf(stderr, "%s\n", spgo_errmsg());
	REQUIRE(rc == 0);
	CHECK(st.mode == SPGO_GEN_LBR);
	CHECK_EQ_U64(st.range_count, 10);
	CHECK_EQ_U64(st.ranges_off_boundary, 1);
	CHECK_EQ_U64(st.call_count, 10);
	uint32_t fl = spgo_func_find(p, "leaf"), fc = spgo_func_find(p, "caller");
	REQUIRE(fl != SPGO_NONE && fc != SPGO_NONE);
	CHECK_EQ_U64(spgo_fn(p, fl)->head, 10);
	CHECK_EQ_U64(spgo_fn(p, fl)->total, 10 * bytes); /* count x size */
	/* Every body sample of leaf is 10 (ran) or 0 (in leaf, not covered). */
	int tens = 0, others = 0;
	for (uint32_t b = spgo_fn(p, fl)->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		tens += p->bodies.v[b].count == 10;
		others += p->bodies.v[b].count != 10 && p->bodies.v[b].count != 0;
	}
	CHECK(tens > 0);
	CHECK(others == 0);
	/* The call site in caller: target leaf 7, body raised to 7. */
	int found = 0;
	for (uint32_t b = spgo_fn(p, fc)->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		for (uint32_t t = p->bodies.v[b].targets; t != SPGO_NONE; t = p->targets.v[t].next)
			if (!strcmp(spgo_name(p, p->targets.v[t].name), "leaf")) {
				CHECK_EQ_U64(p->targets.v[t].count, 7);
				CHECK_EQ_U64(p->bodies.v[b].count, 7);
				found = 1;
			}
	}
	CHECK(found);
	spgo_profile_free(p);

	/* GCC conventions: totals count instructions, not bytes; and
	 * create_gcov's noise floor (src/gen/gen_gcc.c): caller has no range
	 * of its own, so it gets no profile and its call gives leaf no head
	 * samples, nor do the calls from outside the binary. */
	o.gcc = 1;
	REQUIRE(spgo_gen(agg, &o, &p, &st) == 0);
	fl = spgo_func_find(p, "leaf");
	REQUIRE(fl != SPGO_NONE);
	CHECK_EQ_U64(spgo_fn(p, fl)->total, 10 * (i1 - i0 + 1));
	CHECK_EQ_U64(spgo_fn(p, fl)->head, 0);
	CHECK(spgo_func_find(p, "caller") == SPGO_NONE);
	CHECK_EQ_U64(st.floor, 10);
	CHECK_EQ_U64(st.parts_below_floor, 0);
	spgo_profile_free(p);
	/* A range of caller's from the call's return to its last
	 * instruction, weighing count x (end - begin) bytes: at the floor
	 * (10) caller is still left out, above it caller has its profile and
	 * its call target, and leaf its head samples. */
	uint64_t r0 = 0, r1 = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (in[i].addr == call)
			r0 = in[i + 1].addr;
	for (size_t i = 0; i < n; i++)
		if (in[i].addr >= r0 && in[i].addr < caller->end)
			r1 = in[i].addr;
	uint64_t span = r1 - r0;
	REQUIRE(r0 && r1 > r0 && span <= 10);
	add(&agg->ranges, r0, r1, 10 / span);
	REQUIRE(spgo_gen(agg, &o, &p, &st) == 0);
	CHECK(spgo_func_find(p, "caller") == SPGO_NONE);
	CHECK_EQ_U64(st.parts_below_floor, 1);
	CHECK_EQ_U64(spgo_fn(p, spgo_func_find(p, "leaf"))->head, 0);
	spgo_profile_free(p);
	add(&agg->ranges, r0, r1, 5);
	REQUIRE(spgo_gen(agg, &o, &p, &st) == 0);
	fc = spgo_func_find(p, "caller");
	REQUIRE(fc != SPGO_NONE);
	CHECK_EQ_U64(st.parts_below_floor, 0);
	CHECK_EQ_U64(spgo_fn(p, spgo_func_find(p, "leaf"))->head, 7);
	found = 0;
	for (uint32_t b = spgo_fn(p, fc)->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		for (uint32_t t = p->bodies.v[b].targets; t != SPGO_NONE; t = p->targets.v[t].next)
			found += !strcmp(spgo_name(p, p->targets.v[t].name), "leaf") &&
				 p->targets.v[t].count == 7;
	CHECK(found == 1);
	spgo_profile_free(p);

	/* IP mode with no IP samples: an error, never an empty profile. */
	o.gcc = 0;
	o.mode = SPGO_GEN_IP;
	p = NULL;
	CHECK(spgo_gen(agg, &o, &p, &st) < 0);
	CHECK(p == NULL);
	CHECK(strlen(spgo_errmsg()) > 0);

	/* Most ranges between instructions: another build, refused. */
	o.mode = SPGO_GEN_AUTO;
	add(&agg->ranges, in[i0].addr + 1, in[i1].addr, 100);
	CHECK(spgo_gen(agg, &o, &p, &st) < 0);
	CHECK(strstr(spgo_errmsg(), "does not match the perf data") != NULL);
	spgo_agg_free(agg);
}

/* IP mode: samples on leaf's loop and on caller's call; block averages
 * (or inferred counts) reach every instruction of a sampled block, and the
 * direct call gives a call target and head samples. */
static void test_gen_ip(void)
{
	struct spgo_aggregate *agg;
	REQUIRE(spgo_agg_new(&agg, path, NULL) == 0);
	struct spgo_binary *bin = agg->bin;
	const struct spgo_function *leaf = find_func(bin, "leaf"), *caller = find_func(bin, "caller");
	REQUIRE(leaf && caller);
	size_t n;
	const struct spgo_insn *in = spgo_binary_insns(bin, &n);
	struct spgo_agg_event ev = {0};
	ev.name = xstrdup("cpu-clock");
	spgo_kmap_init(&ev.ips, 1);
	uint64_t call = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = in[i].addr;
		if (a >= leaf->start && a < leaf->end) {
			*spgo_kmap_upsert(&ev.ips, &a) += 200;
			ev.samples += 200;
		}
		if (a >= caller->start && a < caller->end && in[i].cls == SPGO_INSN_CALL &&
		    in[i].target == leaf->start) {
			call = a;
			*spgo_kmap_upsert(&ev.ips, &a) += 2;
			ev.samples += 2;
		}
	}
	REQUIRE(call);
	VEC_PUSH(&agg->events, ev);
	agg->stats.samples = agg->stats.samples_matched = ev.samples;

	struct spgo_gen_opts o;
	spgo_gen_defaults(&o);
	struct spgo_profile *p;
	struct spgo_gen_stats st;
	int rc = spgo_gen(agg, &o, &p, &st);
	if (rc < 0)
		fprintf(stderr, "%s\n", spgo_errmsg());
	REQUIRE(rc == 0);
	CHECK(st.mode == SPGO_GEN_IP);
	CHECK_EQ_U64(st.ip_samples, ev.samples);
	CHECK(st.blocks > 0);
	uint32_t fl = spgo_func_find(p, "leaf"), fc = spgo_func_find(p, "caller");
	REQUIRE(fl != SPGO_NONE && fc != SPGO_NONE);
	int hot = 0;
	for (uint32_t b = spgo_fn(p, fl)->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		hot += p->bodies.v[b].count > 0;
	CHECK(hot > 0);
	CHECK(spgo_fn(p, fl)->head > 0);
	int found = 0;
	for (uint32_t b = spgo_fn(p, fc)->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		for (uint32_t t = p->bodies.v[b].targets; t != SPGO_NONE; t = p->targets.v[t].next)
			found |= !strcmp(spgo_name(p, p->targets.v[t].name), "leaf");
	CHECK(found);
	spgo_profile_free(p);
	CHECK_EQ_U64(st.blocks_disagree, 0);

	/* GCC mode: caller's 2 samples are below create_gcov's noise floor
	 * (10): no profile for caller, no head samples for leaf from it. */
	o.gcc = 1;
	REQUIRE(spgo_gen(agg, &o, &p, &st) == 0);
	CHECK_EQ_U64(st.parts_below_floor, 1);
	CHECK(spgo_func_find(p, "caller") == SPGO_NONE);
	fl = spgo_func_find(p, "leaf");
	REQUIRE(fl != SPGO_NONE);
	CHECK_EQ_U64(spgo_fn(p, fl)->head, 0);
	spgo_profile_free(p);
	o.gcc = 0;

	/* A second event that puts all its samples on caller's call: the
	 * events disagree about leaf's blocks and caller's (section 3.3). */
	struct spgo_agg_event ev2 = {0};
	ev2.name = xstrdup("task-clock");
	spgo_kmap_init(&ev2.ips, 1);
	*spgo_kmap_upsert(&ev2.ips, &call) += 5000;
	ev2.samples = 5000;
	VEC_PUSH(&agg->events, ev2);
	rc = spgo_gen(agg, &o, &p, &st);
	REQUIRE(rc == 0);
	CHECK(st.blocks_disagree > 0);
	spgo_profile_free(p);
	spgo_agg_free(agg);

	/* GCC mode, nothing above the floor: an error that says so, never an
	 * empty profile. */
	REQUIRE(spgo_agg_new(&agg, path, NULL) == 0);
	struct spgo_agg_event ev3 = {0};
	ev3.name = xstrdup("cpu-clock");
	spgo_kmap_init(&ev3.ips, 1);
	*spgo_kmap_upsert(&ev3.ips, &call) += 3;
	ev3.samples = 3;
	VEC_PUSH(&agg->events, ev3);
	agg->stats.samples = agg->stats.samples_matched = 3;
	o.gcc = 1;
	p = NULL;
	CHECK(spgo_gen(agg, &o, &p, &st) < 0);
	CHECK(p == NULL);
	CHECK(strstr(spgo_errmsg(), "noise floor") != NULL);
	spgo_agg_free(agg);
}


/*
 * IP mode infers on the CFG with jump tables (spgo_cfg_from_binary).  The
 * switch below compiles to a range check E (`cmp; ja default`), a dispatch
 * T (`jmp *table`) and case blocks; the holes (5, 8) of the table lead to
 * the default block D, which is ALSO the target of E's `ja`.  Samples as of
 * dense(5) called over and over: E, T, D and what follows D, every
 * instruction alike.  With the table, E -> T -> D is a flow of equal
 * counts.  Without it (the CFG IP mode used to build), T is an exit whose
 * guessed edges reach only blocks nobody else enters, so D can get flow
 * only through E's `ja`: inference either doubles E or drops D, and the
 * `switch` and `default` lines differ by a factor of two or more.
 */
static const char switch_src[] =
	"volatile int g;\n"
	"__attribute__((noinline)) int dense(int x)\n" /* line 2: decl */
	"{\n"
	"	switch (x) {\n" /* line 4: offset 2 */
	"	case 0: g += 3; break;\n"
	"	case 1: g ^= x; break;\n"
	"	case 2: g = g * 7 + 1; break;\n"
	"	case 3: g -= 11; break;\n"
	"	case 4: g = g / 3 + x; break;\n"
	"	case 6: g |= 0x40; break;\n"
	"	case 7: g = (g << 2) ^ 5; break;\n"
	"	case 9: g = g % 97 + 2; break;\n"
	"	case 10: g += g >> 1; break;\n"
	"	case 11: g &= 0x7ff; break;\n"
	"	case 12: g = -g; break;\n"
	"	default: g += 100; break;\n" /* line 16: offset 14 */
	"	}\n"
	"	return g;\n"
	"}\n"
	"int main(int c, char **v) { (void)v; return dense(c + 4); }\n";

static uint32_t edge_to(const struct spgo_cfg *c, uint32_t b, uint32_t kind, uint32_t dst)
{
	for (uint32_t k = 0; k < c->blocks[b].nout; k++) {
		const struct spgo_cfg_edge *e = &c->edges[c->succ[c->blocks[b].out + k]];
		if (e->kind == kind && (dst == SPGO_NONE || e->dst == dst))
			return e->dst;
	}
	return SPGO_NONE;
}

static void test_gen_ip_jump_table(void)
{
	char src[128], bin_path[128], cmd[512];
	snprintf(src, sizeof src, "%s/sw.c", dir);
	snprintf(bin_path, sizeof bin_path, "%s/sw", dir);
	FILE *fp = fopen(src, "w");
	REQUIRE(fp);
	fputs(switch_src, fp);
	fclose(fp);
	snprintf(cmd, sizeof cmd, "cc -O2 -g -o %s %s 2>/dev/null", bin_path, src);
	if (system(cmd) != 0) {
		fprintf(stderr, "test_gen: cannot compile the switch program; skipped\n");
		return;
	}
	struct spgo_aggregate *agg;
	REQUIRE(spgo_agg_new(&agg, bin_path, NULL) == 0);
	const struct spgo_function *f = find_func(agg->bin, "dense");
	REQUIRE(f);
	struct spgo_cfg c;
	REQUIRE(spgo_cfg_from_binary(&c, agg->bin, f->start, NULL) == 0);
	/* E ends in `ja D`; its fall-through T dispatches through the table,
	 * which lists D too (the holes). */
	uint32_t e = c.entry, d = edge_to(&c, e, SPGO_EDGE_TAKEN, SPGO_NONE);
	uint32_t t = edge_to(&c, e, SPGO_EDGE_NOT_TAKEN, SPGO_NONE);
	REQUIRE(d != SPGO_NONE && t != SPGO_NONE);
	REQUIRE(edge_to(&c, t, SPGO_EDGE_TABLE, d) == d);
	/* The sampled blocks: E, T, D and D's single-successor chain. */
	uint8_t *hot = xcalloc(c.nblocks, 1);
	hot[e] = hot[t] = 1;
	for (uint32_t b = d; b != SPGO_NONE && !hot[b];) {
		hot[b] = 1;
		b = c.blocks[b].nout == 1 ? c.edges[c.succ[c.blocks[b].out]].dst : SPGO_NONE;
	}
	struct spgo_agg_event ev = {0};
	ev.name = xstrdup("cpu-clock");
	spgo_kmap_init(&ev.ips, 1);
	size_t n;
	const struct spgo_insn *in = spgo_binary_insns(agg->bin, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t b = spgo_cfg_block_at(&c, in[i].addr);
		if (b != SPGO_NONE && hot[b] && in[i].addr >= f->start && in[i].addr < f->end) {
			*spgo_kmap_upsert(&ev.ips, &in[i].addr) += 100;
			ev.samples += 100;
		}
	}
	free(hot);
	spgo_cfg_free(&c);
	VEC_PUSH(&agg->events, ev);
	agg->stats.samples = agg->stats.samples_matched = ev.samples;

	struct spgo_gen_opts o;
	spgo_gen_defaults(&o);
	o.mode = SPGO_GEN_IP;
	struct spgo_profile *p;
	struct spgo_gen_stats st;
	REQUIRE(spgo_gen(agg, &o, &p, &st) == 0);
	CHECK(st.inferred);
	uint32_t fd = spgo_func_find(p, "dense");
	REQUIRE(fd != SPGO_NONE);
	uint64_t sw = 0, def = 0;
	for (uint32_t b = spgo_fn(p, fd)->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		const struct spgo_body *bd = &p->bodies.v[b];
		if (bd->line == 2 && bd->count > sw)
			sw = bd->count;
		if (bd->line == 14 && bd->count > def)
			def = bd->count;
	}
	/* 100 samples per instruction = 1600 in IP mode's 1/16 units. */
	CHECK_EQ_U64(sw, 1600);
	CHECK_EQ_U64(def, 1600);
	if (sw != 1600 || def != 1600)
		fprintf(stderr, "test_gen_ip_jump_table: switch line %llu, default line %llu\n",
			(unsigned long long)sw, (unsigned long long)def);
	spgo_profile_free(p);
	spgo_agg_free(agg);
}

int main(void)
{
	RUN(test_canonical);
	RUN(test_dup_factor);
	RUN(test_entry_rules);
	if (build_prog() == 0) {
		RUN(test_gen_lbr);
		RUN(test_gen_ip);
		RUN(test_gen_ip_jump_table);
	} else {
		fprintf(stderr, "test_gen: cannot compile the test program; skipping spgo_gen tests\n");
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "test_gen: cannot remove %s\n", dir);
	DONE();
}
