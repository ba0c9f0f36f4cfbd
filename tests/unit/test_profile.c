/*
 * Unit tests of the profile model and formats: MD5, the summary, building
 * through the API, merging, a randomized round-trip corpus (text ->
 * extended binary -> text, text -> gcov -> text), malformed lines, and
 * random byte flips and truncations of every format.
 *
 * `test_profile --corpus DIR` writes the random corpus as text files for
 * the integration tests that feed it to llvm-profdata, clang and gcc;
 * `test_profile --bench DIR N FUNCS POOL` the inputs of bench_profile.sh.
 */
#include "harness.h"
#include "spgo/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

static char *write_mem(struct spgo_profile *p, enum spgo_format fmt,
		       const struct spgo_write_opts *o, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	int rc = -1;
	switch (fmt) {
	case SPGO_FMT_TEXT: rc = spgo_write_text(p, fp); break;
	case SPGO_FMT_EXTBINARY: rc = spgo_write_extbinary(p, fp, o); break;
	case SPGO_FMT_GCOV: rc = spgo_write_gcov(p, fp, o); break;
	default: break;
	}
	fclose(fp);
	if (rc < 0) {
		fprintf(stderr, "write failed: %s\n", spgo_errmsg());
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static struct spgo_profile *read_mem(const char *buf, size_t n, enum spgo_format fmt)
{
	struct spgo_profile *p = spgo_profile_new();
	int rc = -1;
	switch (fmt) {
	case SPGO_FMT_TEXT: rc = spgo_read_text(p, "mem", (const uint8_t *)buf, n); break;
	case SPGO_FMT_EXTBINARY: rc = spgo_read_extbinary(p, "mem", (const uint8_t *)buf, n); break;
	case SPGO_FMT_GCOV: rc = spgo_read_gcov(p, "mem", (const uint8_t *)buf, n); break;
	default: break;
	}
	if (rc < 0) {
		spgo_profile_free(p);
		return NULL;
	}
	spgo_profile_finalize(p, 0);
	return p;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return rng_state >> 33;
}
static uint64_t rndn(uint64_t n)
{
	return rnd() % n;
}

/* ---- random profiles ----------------------------------------------------- */

enum kind {
	K_FLAT,      /* plain, body lines and call targets only */
	K_NESTED,    /* inlinees, call targets, odd names */
	K_MD5,       /* GUID names, no inlinees (LLVM reads the text back) */
	K_CS,        /* flat context-sensitive */
	K_PROBE,     /* probe-based, nested, checksums */
	K_PREINL,    /* probe-based nested with context attributes (preinlined) */
	K_CSPROBE,   /* context-sensitive, probe-based, attributes */
	K_MD5NEST,   /* GUID names with inlinees (LLVM's text reader cannot) */
	K_COUNT
};
static const char *kind_name[K_COUNT] = {"flat", "nested", "md5", "cs", "probe",
					 "preinlined", "csprobe", "md5nested"};

static void rand_name(enum kind k, char *out, size_t n, int i)
{
	static const char *base[] = {"main", "foo", "bar", "_ZN4llvm3fooEv", "ns::f(int, char)",
				     "f.llvm.1234", "g.__uniq.987", "qux.cold", "a_b_c"};
	if (k == K_MD5 || k == K_MD5NEST) {
		snprintf(out, n, "%llu", (unsigned long long)(rnd() * 2654435761ULL + (uint64_t)i));
		return;
	}
	snprintf(out, n, "%s%d", base[rndn(SPGO_ARRAY_LEN(base))], i);
	/* LLVM's text reader splits context frames at the first ':', so CS
	 * profiles use mangled-style names only (as real ones do). */
	if ((k == K_CS || k == K_CSPROBE) && strchr(out, ':'))
		snprintf(out, n, "_ZN2ns1fEic%d", i);
}

static void rand_body(struct spgo_profile *p, enum kind k, uint32_t f, int depth, int nnames)
{
	int nb = 1 + (int)rndn(8);
	int probe = k == K_PROBE || k == K_PREINL || k == K_CSPROBE;
	for (int i = 0; i < nb; i++) {
		uint32_t line = probe ? 1 + (uint32_t)rndn(40) : (uint32_t)rndn(200);
		uint32_t disc = probe || rndn(3) ? 0 : (uint32_t)rndn(20);
		spgo_add_body(p, f, line, disc, rndn(5000));
		if (rndn(4) == 0) {
			int nt = 1 + (int)rndn(3);
			for (int j = 0; j < nt; j++) {
				char nm[64];
				rand_name(k, nm, sizeof nm, (int)rndn((uint64_t)nnames));
				/* distinct counts: LLVM orders equal ones by name or GUID */
				spgo_add_target(p, f, line, disc, nm, rndn(1000) * 16 + (uint64_t)j);
			}
		}
	}
	int nested = k == K_NESTED || k == K_PROBE || k == K_PREINL || k == K_MD5NEST;
	if (nested && depth < 3) {
		int nc = (int)rndn(3);
		for (int i = 0; i < nc; i++) {
			char nm[64];
			rand_name(k, nm, sizeof nm, 100 + i);
			uint32_t c = spgo_inlinee_get(p, f, (uint32_t)rndn(100),
						      probe ? 0 : (uint32_t)rndn(2), nm);
			if (probe)
				spgo_fn(p, c)->checksum = rnd();
			if (k == K_PREINL)
				spgo_fn(p, c)->attrs = rndn(2) ? SPGO_ATTR_SHOULD_INLINE : SPGO_ATTR_WAS_INLINED;
			rand_body(p, k, c, depth + 1, nnames);
		}
	}
}

static struct spgo_profile *rand_profile(enum kind k, uint64_t seed, int nfuncs)
{
	rng_state = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)k;
	struct spgo_profile *p = spgo_profile_new();
	int probe = k == K_PROBE || k == K_PREINL || k == K_CSPROBE;
	for (int i = 0; i < nfuncs; i++) {
		char nm[64];
		uint32_t f;
		if (k == K_CS || k == K_CSPROBE) {
			char ctx[256];
			int depth = (int)rndn(4);
			size_t o = 0;
			for (int d = 0; d < depth; d++) {
				rand_name(k, nm, sizeof nm, (int)rndn(8));
				uint32_t disc = rndn(3) ? 0 : (uint32_t)rndn(5);
				o += (size_t)(disc ? snprintf(ctx + o, sizeof ctx - o, "%s:%u.%u @ ", nm,
							      (unsigned)rndn(50), disc)
						   : snprintf(ctx + o, sizeof ctx - o, "%s:%u @ ", nm,
							      (unsigned)rndn(50)));
			}
			snprintf(ctx + o, sizeof ctx - o, "leaf%d", i);
			f = spgo_func_get_ctx(p, ctx, strlen(ctx));
			if (k == K_CSPROBE)
				spgo_fn(p, f)->attrs = (uint32_t)rndn(3);
		} else {
			rand_name(k, nm, sizeof nm, i);
			f = spgo_func_get(p, nm);
		}
		spgo_add_head(p, f, rndn(100));
		/* a dominant record makes totals distinct, so every tool orders
		 * the functions the same way */
		spgo_add_body(p, f, probe ? 1 : 0, 0, 10000019ULL * (uint64_t)(i + 1));
		if (probe)
			spgo_fn(p, f)->checksum = rnd() | 1;
		rand_body(p, k, f, 0, nfuncs);
	}
	spgo_profile_finalize(p, SPGO_FIN_TOTALS);
	return p;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_md5(void)
{
	static const struct {
		const char *in, *hex;
	} v[] = {
		{"", "d41d8cd98f00b204e9800998ecf8427e"},
		{"abc", "900150983cd24fb0d6963f7d28e17f72"},
		{"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
		{"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		 "57edf4a22be3c955ac49da2e2107b67a"},
	};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(v); i++) {
		uint8_t d[16];
		char hex[33];
		spgo_md5(v[i].in, strlen(v[i].in), d);
		for (int j = 0; j < 16; j++)
			snprintf(hex + 2 * j, 3, "%02x", d[j]);
		CHECK_STREQ(hex, v[i].hex);
	}
	/* what llvm-profdata-19 --use-md5 writes for "main" */
	CHECK_EQ_U64(spgo_md5_guid("main", 4), 15822663052811949562ULL);
}

static void test_build_and_summary(void)
{
	struct spgo_profile *p = spgo_profile_new();
	uint32_t f = spgo_func_get(p, "main");
	spgo_add_head(p, f, 10);
	spgo_add_body(p, f, 3, 0, 100);
	spgo_add_target(p, f, 4, 1, "foo", 50);
	spgo_add_body(p, f, 4, 1, 50);
	uint32_t g = spgo_inlinee_get(p, f, 5, 0, "bar");
	spgo_add_body(p, g, 1, 0, 10);
	CHECK(spgo_inlinee_get(p, f, 5, 0, "bar") == g);
	CHECK(spgo_func_get(p, "main") == f);
	spgo_profile_finalize(p, SPGO_FIN_TOTALS);
	CHECK_EQ_U64(spgo_fn(p, f)->total, 160);
	CHECK_EQ_U64(spgo_fn(p, g)->total, 10);
	const struct spgo_summary *s = &p->summary;
	CHECK_EQ_U64(s->total, 160);
	CHECK_EQ_U64(s->max_count, 100);
	CHECK_EQ_U64(s->num_counts, 3);
	CHECK_EQ_U64(s->num_funcs, 1);
	CHECK_EQ_U64(s->max_func_count, 10);
	REQUIRE(s->nentries == 16);
	/* 1%: 1.6 -> 1 sample wanted, reached by the 100 */
	CHECK_EQ_U64(s->entries[0].cutoff, 10000);
	CHECK_EQ_U64(s->entries[0].min_count, 100);
	CHECK_EQ_U64(s->entries[0].num_counts, 1);
	/* 99.9999%: 159 wanted, needs all three */
	CHECK_EQ_U64(s->entries[15].min_count, 10);
	CHECK_EQ_U64(s->entries[15].num_counts, 3);
	size_t n;
	char *t = write_mem(p, SPGO_FMT_TEXT, NULL, &n);
	REQUIRE(t);
	const char *want = "main:160:10\n 3: 100\n 4.1: 50 foo:50\n 5: bar:10\n  1: 10\n";
	CHECK(n == strlen(want) && memcmp(t, want, n) == 0);
	free(t);
	spgo_profile_free(p);
}

static void test_cs_summary_flattens(void)
{
	/* Two contexts of foo: LLVM merges them by leaf before counting. */
	const char *txt = "[main:1 @ foo]:30:3\n 1: 30\n[bar:2 @ foo]:20:2\n 1: 20\n";
	struct spgo_profile *p = read_mem(txt, strlen(txt), SPGO_FMT_TEXT);
	REQUIRE(p);
	CHECK(p->flags & SPGO_PROF_CS);
	CHECK_EQ_U64(p->summary.num_funcs, 1);
	CHECK_EQ_U64(p->summary.num_counts, 1);
	CHECK_EQ_U64(p->summary.max_count, 50);
	CHECK_EQ_U64(p->summary.max_func_count, 5);
	spgo_profile_free(p);
}

static void test_merge(void)
{
	struct spgo_profile *a = rand_profile(K_NESTED, 7, 20);
	struct spgo_profile *m = spgo_profile_new();
	spgo_profile_merge(m, a, 1);
	spgo_profile_merge(m, a, 2);
	spgo_profile_finalize(m, 0);
	CHECK_EQ_U64(m->top.n, a->top.n);
	CHECK_EQ_U64(m->bodies.n, a->bodies.n);
	CHECK_EQ_U64(m->summary.total, 3 * a->summary.total);
	for (size_t i = 0; i < a->top.n; i++) {
		uint32_t f = a->top.v[i];
		uint32_t g = spgo_func_find(m, spgo_func_key(a, f));
		REQUIRE(g != SPGO_NONE);
		CHECK_EQ_U64(spgo_fn(m, g)->total, 3 * spgo_fn(a, f)->total);
		CHECK_EQ_U64(spgo_fn(m, g)->head, 3 * spgo_fn(a, f)->head);
	}
	spgo_profile_free(a);
	spgo_profile_free(m);
}

/* text -> format -> text must be byte-identical */
static int round_trip(struct spgo_profile *p, enum spgo_format fmt, const struct spgo_write_opts *o,
		      const char *label)
{
	size_t tn, bn, tn2;
	char *t = write_mem(p, SPGO_FMT_TEXT, NULL, &tn);
	struct spgo_profile *q = t ? read_mem(t, tn, SPGO_FMT_TEXT) : NULL;
	char *b = q ? write_mem(q, fmt, o, &bn) : NULL;
	struct spgo_profile *r = b ? read_mem(b, bn, fmt) : NULL;
	char *t2 = r ? write_mem(r, SPGO_FMT_TEXT, NULL, &tn2) : NULL;
	int ok = t2 && tn == tn2 && memcmp(t, t2, tn) == 0;
	if (!ok) {
		fprintf(stderr, "round trip %s failed: %s\n", label, r ? "texts differ" : spgo_errmsg());
		if (t2) {
			FILE *f1 = fopen("/tmp/spgo-rt-a.txt", "w"), *f2 = fopen("/tmp/spgo-rt-b.txt", "w");
			if (f1 && f2) {
				fwrite(t, 1, tn, f1);
				fwrite(t2, 1, tn2, f2);
			}
			if (f1)
				fclose(f1);
			if (f2)
				fclose(f2);
		}
	}
	/* the summary survives too */
	if (ok && fmt == SPGO_FMT_EXTBINARY)
		ok = memcmp(&q->summary, &r->summary, sizeof q->summary) == 0;
	free(t);
	free(b);
	free(t2);
	spgo_profile_free(q);
	spgo_profile_free(r);
	return ok;
}

static void test_round_trip_corpus(void)
{
	struct spgo_write_opts plain = {0}, z = {.compress = 1}, md5 = {.md5 = 1, .compress = 1};
	struct spgo_write_opts l14 = {.target_llvm = 14}, g1 = {.gcov_version = 1};
	for (int k = 0; k < K_COUNT; k++)
		for (uint64_t seed = 1; seed <= 6; seed++) {
			struct spgo_profile *p = rand_profile((enum kind)k, seed, 5 + (int)seed * 7);
			char label[64];
			snprintf(label, sizeof label, "%s/%llu", kind_name[k], (unsigned long long)seed);
			CHECK(round_trip(p, SPGO_FMT_EXTBINARY, &plain, label));
			CHECK(round_trip(p, SPGO_FMT_EXTBINARY, &z, label));
			CHECK(round_trip(p, SPGO_FMT_EXTBINARY, &l14, label));
			if (k == K_MD5 || k == K_MD5NEST)
				CHECK(round_trip(p, SPGO_FMT_EXTBINARY, &md5, label));
			if (k == K_FLAT || k == K_NESTED || k == K_MD5 || k == K_MD5NEST) {
				CHECK(round_trip(p, SPGO_FMT_GCOV, NULL, label));
				CHECK(round_trip(p, SPGO_FMT_GCOV, &g1, label));
			}
			spgo_profile_free(p);
		}
}

static void expect_text_error(const char *txt, const char *want)
{
	struct spgo_profile *p = spgo_profile_new();
	int rc = spgo_read_text(p, "bad.txt", (const uint8_t *)txt, strlen(txt));
	CHECK(rc < 0);
	if (rc < 0 && !strstr(spgo_errmsg(), want)) {
		fprintf(stderr, "error '%s' lacks '%s'\n", spgo_errmsg(), want);
		CHECK(0);
	}
	spgo_profile_free(p);
}

static void test_bad_text(void)
{
	expect_text_error("main:10\n", "bad.txt: line 1: expected 'name:NUM:NUM'");
	expect_text_error("main:x:1\n", "line 1:");
	expect_text_error(":1:1\n", "line 1:");
	expect_text_error(" 1: 5\n", "line 1: indented line before any function");
	expect_text_error("main:1:1\n 1: x\n", "line 2:");
	expect_text_error("main:1:1\n 1: 5 foo\n", "line 2: bad call target");
	expect_text_error("main:1:1\n 1: 5 foo:x\n", "line 2: bad call target");
	expect_text_error("main:1:1\n 1.x: 5\n", "line 2:");
	expect_text_error("main:1:1\n 70000: 5\n", "line 2:");
	expect_text_error("main:1:1\n 1 5\n", "line 2:");
	expect_text_error("main:1:1\n 1: foo:x\n", "line 2: expected 'offset: callee:NUM'");
	expect_text_error("main:1:1\n !CFGChecksum: x\n", "line 2: bad metadata");
	expect_text_error("main:1:1\n !Bogus: 1\n", "line 2: bad metadata");
	expect_text_error("main:1:1\n !CFGChecksum: 1\n 1: 5\n", "line 3: found non-metadata after metadata");
	expect_text_error("[main:1 @ foo:1:1\n", "line 1: bad context");
	expect_text_error("main:1:1\n# fine\n\n 1: 99999999999999999999999\n", "line 4:");
	/* absurdly deep inlining is refused, not recursed into */
	{
		size_t cap = 1100 * 1100, n = 0;
		char *deep = malloc(cap);
		n += (size_t)snprintf(deep, cap, "main:1:1\n");
		for (int d = 1; d <= 1001; d++) {
			memset(deep + n, ' ', (size_t)d);
			n += (size_t)d;
			n += (size_t)snprintf(deep + n, cap - n, "1: f:1\n");
		}
		deep[n] = 0;
		expect_text_error(deep, "line 1001: inlinees nested too deep");
		free(deep);
	}
	/* LLVM's target anchoring: a name may hold spaces and colons */
	const char *ok = "main:9:1\n 1: 9 ns::f(int, char):5 x:y:4\n";
	struct spgo_profile *p = spgo_profile_new();
	CHECK(spgo_read_text(p, "ok.txt", (const uint8_t *)ok, strlen(ok)) == 0);
	CHECK_EQ_U64(p->targets.n, 2);
	if (p->targets.n == 2) {
		CHECK(strcmp(spgo_name(p, p->targets.v[0].name), "ns::f(int, char)") == 0);
		CHECK(strcmp(spgo_name(p, p->targets.v[1].name), "x:y") == 0);
	}
	spgo_profile_free(p);
}

/* Names the text form cannot carry are refused by its writer (the
 * extended binary form carries them), not written to be misread. */
static void test_text_names(void)
{
	static const struct {
		const char *name;
		int target;
		int ok;
	} cases[] = {
		{"ns::f(int, char)", 0, 1}, {"ns::f(int, char)", 1, 1}, {"x:y", 1, 1},
		{"1234567890", 0, 1},       {" @ ", 0, 0},              {"", 0, 0},
		{"[main]", 0, 0},           {"!x", 0, 0},               {"1abc", 0, 0},
		{"a\tb", 0, 0},             {"a:12 b", 1, 0},           {"a:12 b", 0, 1},
		{":ar", 1, 0},              {"#ain", 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct spgo_profile *p = spgo_profile_new();
		uint32_t f = spgo_func_get_id(p, spgo_name_id(p, "main", 4));
		spgo_add_total(p, f, 10);
		uint32_t b = spgo_body_get(p, f, 1, 0);
		p->bodies.v[b].count = 10;
		uint32_t nm = spgo_name_id(p, cases[i].name, strlen(cases[i].name));
		if (cases[i].target) {
			spgo_add_target_id(p, b, nm, 5);
		} else {
			uint32_t g = spgo_func_get_id(p, nm);
			spgo_add_total(p, g, 3);
			p->bodies.v[spgo_body_get(p, g, 2, 0)].count = 3;
		}
		size_t n;
		char *t = write_mem(p, SPGO_FMT_TEXT, NULL, &n);
		if (cases[i].ok) {
			CHECK(t != NULL);
			struct spgo_profile *q = spgo_profile_new();
			CHECK(t && spgo_read_text(q, "back", (const uint8_t *)t, n) == 0);
			CHECK_EQ_U64(q->names.n, p->names.n);
			spgo_profile_free(q);
		} else {
			CHECK(t == NULL);
			CHECK(strstr(spgo_errmsg(), "cannot be written in the LLVM text format") != NULL);
			char *x = write_mem(p, SPGO_FMT_EXTBINARY, &(struct spgo_write_opts){0}, &n);
			CHECK(x != NULL);
			free(x);
		}
		free(t);
		spgo_profile_free(p);
	}
}

/* gcc 12 asserts that a name's string-table index is above 0 (an ICE in
 * get_name when it names a callee at index 0): the table starts with an
 * empty string, as create_gcov's does, and reads back. */
static void test_gcov_first_name(void)
{
	struct spgo_profile *p = spgo_profile_new();
	uint32_t f = spgo_func_get_id(p, spgo_name_id(p, "main", 4));
	spgo_add_total(p, f, 10);
	uint32_t b = spgo_body_get(p, f, 1, 0);
	p->bodies.v[b].count = 10;
	spgo_add_target_id(p, b, spgo_name_id(p, "callee", 6), 4);
	size_t n;
	char *g = write_mem(p, SPGO_FMT_GCOV, NULL, &n);
	REQUIRE(g && n > 32);
	uint32_t wd[8];
	memcpy(wd, g, sizeof wd);
	/* magic, version, 0, names tag, length, count, then the first string
	 * (gcc 12's layout: its length in bytes, NUL included) */
	CHECK_EQ_U64(wd[5], 3);
	CHECK_EQ_U64(wd[6], 1);
	CHECK_EQ_U64((uint8_t)g[28], 0);
	struct spgo_profile *q = spgo_profile_new();
	CHECK(spgo_read_gcov(q, "back", (const uint8_t *)g, n) == 0);
	CHECK_EQ_U64(q->top.n, 1);
	size_t m;
	char *t1 = write_mem(p, SPGO_FMT_TEXT, NULL, &m), *t2 = write_mem(q, SPGO_FMT_TEXT, NULL, &m);
	CHECK(t1 && t2 && !strcmp(t1, t2));
	free(t1);
	free(t2);
	free(g);
	spgo_profile_free(q);
	spgo_profile_free(p);
}

static void test_bad_binary(void)
{
	struct spgo_profile *p = rand_profile(K_NESTED, 3, 10);
	size_t n;
	char *b = write_mem(p, SPGO_FMT_EXTBINARY, NULL, &n);
	REQUIRE(b);
	/* unsupported version */
	char *v = malloc(n);
	memcpy(v, b, n);
	v[9] = 102;
	struct spgo_profile *q = spgo_profile_new();
	CHECK(spgo_read_extbinary(q, "v.prof", (uint8_t *)v, n) < 0);
	CHECK(strstr(spgo_errmsg(), "v.prof: offset 0x9: unsupported extended binary version 102"));
	spgo_profile_free(q);
	free(v);
	/* every truncation fails cleanly with an offset */
	for (size_t cut = 0; cut < n; cut += 1 + cut / 64) {
		q = spgo_profile_new();
		int rc = spgo_read_extbinary(q, "t.prof", (uint8_t *)b, cut);
		CHECK(rc < 0);
		if (rc < 0 && !strstr(spgo_errmsg(), "offset 0x")) {
			fprintf(stderr, "no offset in '%s'\n", spgo_errmsg());
			CHECK(0);
		}
		spgo_profile_free(q);
	}
	free(b);
	spgo_profile_free(p);
}

/* Random byte flips: never a crash; errors name an offset or line. */
static void flip_format(enum spgo_format fmt, enum kind k, const struct spgo_write_opts *o)
{
	struct spgo_profile *p = rand_profile(k, 11, 12);
	size_t n;
	char *b = write_mem(p, fmt, o, &n);
	REQUIRE(b);
	char *m = malloc(n);
	int errors = 0;
	for (int it = 0; it < 400; it++) {
		memcpy(m, b, n);
		int flips = 1 + (int)rndn(3);
		for (int j = 0; j < flips; j++)
			m[rndn(n)] ^= (char)(1 + rndn(255));
		struct spgo_profile *q = spgo_profile_new();
		int rc = -1;
		if (fmt == SPGO_FMT_TEXT)
			rc = spgo_read_text(q, "f", (uint8_t *)m, n);
		else if (fmt == SPGO_FMT_EXTBINARY)
			rc = spgo_read_extbinary(q, "f", (uint8_t *)m, n);
		else
			rc = spgo_read_gcov(q, "f", (uint8_t *)m, n);
		if (rc < 0) {
			errors++;
			if (!strstr(spgo_errmsg(), "offset 0x") && !strstr(spgo_errmsg(), "line ")) {
				fprintf(stderr, "vague error '%s'\n", spgo_errmsg());
				CHECK(0);
			}
		} else {
			/* what was read can be written again */
			size_t n2;
			free(write_mem(q, SPGO_FMT_TEXT, NULL, &n2));
		}
		spgo_profile_free(q);
	}
	CHECK(errors > 0);
	free(m);
	free(b);
	spgo_profile_free(p);
}

static void test_byte_flips(void)
{
	struct spgo_write_opts z = {.compress = 1}, md5 = {.md5 = 1}, g1 = {.gcov_version = 1};
	rng_state = 99;
	flip_format(SPGO_FMT_EXTBINARY, K_NESTED, NULL);
	flip_format(SPGO_FMT_EXTBINARY, K_NESTED, &z);
	flip_format(SPGO_FMT_EXTBINARY, K_CSPROBE, NULL);
	flip_format(SPGO_FMT_EXTBINARY, K_PREINL, &md5);
	flip_format(SPGO_FMT_GCOV, K_NESTED, NULL);
	flip_format(SPGO_FMT_GCOV, K_NESTED, &g1);
	flip_format(SPGO_FMT_TEXT, K_PROBE, NULL);
	flip_format(SPGO_FMT_TEXT, K_CS, NULL);
}

static void test_detect(void)
{
	CHECK(spgo_format_detect((const uint8_t *)"main:1:1\n", 9) == SPGO_FMT_TEXT);
	CHECK(spgo_format_detect((const uint8_t *)"adcg\2\0\0\0", 8) == SPGO_FMT_GCOV);
	CHECK(spgo_format_detect((const uint8_t *)"\x7f" "ELF", 4) == SPGO_FMT_UNKNOWN);
	struct spgo_profile *p = rand_profile(K_FLAT, 1, 3);
	size_t n;
	char *b = write_mem(p, SPGO_FMT_EXTBINARY, NULL, &n);
	CHECK(b && spgo_format_detect((uint8_t *)b, n) == SPGO_FMT_EXTBINARY);
	free(b);
	spgo_profile_free(p);
}

static int write_corpus(const char *dir)
{
	for (int k = 0; k < K_COUNT; k++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct spgo_profile *p = rand_profile((enum kind)k, seed, 4 + (int)seed * 5);
			char *path = xasprintf("%s/%s-%llu.txt", dir, kind_name[k], (unsigned long long)seed);
			int rc = spgo_profile_write(p, path, SPGO_FMT_TEXT, NULL);
			free(path);
			spgo_profile_free(p);
			if (rc < 0) {
				fprintf(stderr, "%s\n", spgo_errmsg());
				return 1;
			}
		}
	return 0;
}

/* The benchmark's inputs: n text profiles of nfuncs functions each, drawn
 * from a pool of names so that merging them builds one large profile. */
static int write_bench(const char *dir, int n, int nfuncs, int pool)
{
	for (int i = 0; i < n; i++) {
		rng_state = 0x5eed0000ULL + (uint64_t)i;
		struct spgo_profile *p = spgo_profile_new();
		for (int j = 0; j < nfuncs; j++) {
			char nm[64];
			snprintf(nm, sizeof nm, "_ZN5bench8functionEi%d", (int)rndn((uint64_t)pool));
			uint32_t f = spgo_func_get(p, nm);
			spgo_add_head(p, f, rndn(1000));
			rand_body(p, K_NESTED, f, 0, pool);
		}
		spgo_profile_finalize(p, SPGO_FIN_TOTALS);
		char *path = xasprintf("%s/in%03d.txt", dir, i);
		int rc = spgo_profile_write(p, path, SPGO_FMT_TEXT, NULL);
		free(path);
		spgo_profile_free(p);
		if (rc < 0) {
			fprintf(stderr, "%s\n", spgo_errmsg());
			return 1;
		}
	}
	return 0;
}

/*
 * Degenerate profiles the fuzzers and users met (#16): empty profiles
 * written as extbinary (plain and MD5) and gcov, an empty profile flagged
 * context-sensitive or probe-based, each read back.  Under UBSan a qsort
 * or memcpy of an empty table (NULL, 0) made these fail.
 */
static void test_empty_profiles(void)
{
	static const unsigned flags[] = {0, SPGO_PROF_CS, SPGO_PROF_PROBE, SPGO_PROF_CS | SPGO_PROF_MD5};
	for (size_t f = 0; f < SPGO_ARRAY_LEN(flags); f++) {
		for (int md5 = 0; md5 < 2; md5++) {
			struct spgo_profile *p = spgo_profile_new();
			p->flags |= flags[f];
			spgo_profile_finalize(p, SPGO_FIN_TOTALS);
			struct spgo_write_opts o = {.md5 = md5, .gcov_version = 2};
			for (int fmt = 0; fmt < 3; fmt++) {
				char *buf = NULL;
				size_t n = 0;
				FILE *fp = open_memstream(&buf, &n);
				int rc = fmt == 0 ? spgo_write_text(p, fp)
					 : fmt == 1 ? spgo_write_extbinary(p, fp, &o) : spgo_write_gcov(p, fp, &o);
				fclose(fp);
				/* gcov has no contexts: refused, with a reason */
				if (fmt == 2 && (flags[f] & SPGO_PROF_CS)) {
					CHECK(rc < 0 && *spgo_errmsg());
					free(buf);
					continue;
				}
				CHECK(rc == 0);
				if (fmt > 0) { /* an empty text profile is empty: nothing to read */
					struct spgo_profile *q = spgo_profile_new();
					CHECK((fmt == 1 ? spgo_read_extbinary(q, "m", (uint8_t *)buf, n)
						       : spgo_read_gcov(q, "m", (uint8_t *)buf, n)) == 0);
					CHECK_EQ_U64(q->top.n, 0);
					spgo_profile_free(q);
				}
				free(buf);
			}
			spgo_profile_free(p);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--corpus"))
		return write_corpus(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "--bench"))
		return write_bench(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	spgo_quiet = 1;
	RUN(test_md5);
	RUN(test_build_and_summary);
	RUN(test_cs_summary_flattens);
	RUN(test_merge);
	RUN(test_round_trip_corpus);
	RUN(test_bad_text);
	RUN(test_text_names);
	RUN(test_gcov_first_name);
	RUN(test_bad_binary);
	RUN(test_byte_flips);
	RUN(test_detect);
	RUN(test_empty_profiles);
	DONE();
}
