/*
 * Unit tests of src/profile/llvm_map.c, the replay of the iteration order of
 * libstdc++'s std::unordered_map (llvm-profgen-19's SampleProfileMap),
 * against the real one: map_oracle (tests/unit/map_oracle.cpp, built with
 * the tests when CMake finds a C++ compiler) runs the same script of
 * inserts, erases and prints on a std::unordered_map<uint64_t, unsigned>,
 * and every printed bucket count and order must equal the replay's.  The
 * scripts cross many rehashes, insert into buckets that already have nodes,
 * erase first, middle and last nodes of buckets, drain and refill, and
 * follow the sequences of the CS nesting (csnest.c) and of the cold-context
 * merge (context/map_order.c); each is also run once more with the replay
 * rebuilt half-way from its own order and bucket count (spgo_map_restore,
 * as csnest.c does from a profile).  Without the oracle the test skips.
 */
#include <errno.h>
#include <stdarg.h>

#include "harness.h"
#include "profile/profile_impl.h"

typedef VEC(char) charvec;
typedef VEC(uint64_t) u64vec;

static void appendf(charvec *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	VEC_GROW(v, v->n + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(v->v + v->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	v->n += (size_t)n;
}

static uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t rng_below(uint64_t *s, size_t n)
{
	return (size_t)(rng_next(s) % n);
}

/* One script run on the replay: the script for the oracle and what the
 * replay printed for it. */
struct run {
	struct spgo_map m;
	charvec script, expect;
	size_t ops, restore_at; /* after op restore_at, rebuild m (0: never) */
	size_t rehashes, shared;  /* bucket count changes; nodes behind one of their bucket */
	uint64_t rng;
};

static void run_init(struct run *r, uint64_t seed, size_t restore_at)
{
	memset(r, 0, sizeof *r);
	spgo_map_init(&r->m);
	r->rng = seed;
	r->restore_at = restore_at;
}

static void run_free(struct run *r)
{
	spgo_map_free(&r->m);
	VEC_FREE(&r->script);
	VEC_FREE(&r->expect);
}

/* The replay's keys in iteration order into *out. */
static void order_of(const struct spgo_map *m, u64vec *out)
{
	out->n = 0;
	for (uint32_t x = spgo_map_first(m); x != UINT32_MAX; x = spgo_map_next(m, x))
		VEC_PUSH(out, m->nodes.v[x].key);
}

static void after_op(struct run *r)
{
	if (++r->ops != r->restore_at)
		return;
	u64vec keys = {0};
	order_of(&r->m, &keys);
	size_t nbkt = r->m.nbkt;
	spgo_map_free(&r->m);
	spgo_map_init(&r->m);
	spgo_map_restore(&r->m, keys.v, keys.n, nbkt);
	VEC_FREE(&keys);
}

static void op_insert(struct run *r, uint64_t key)
{
	size_t before = r->m.nbkt;
	appendf(&r->script, "i %" PRIu64 "\n", key);
	CHECK(spgo_map_insert(&r->m, key, 0) >= 0);
	r->rehashes += r->m.nbkt != before;
	after_op(r);
}

static void op_erase(struct run *r, uint64_t key)
{
	appendf(&r->script, "e %" PRIu64 "\n", key);
	spgo_map_erase(&r->m, key);
	after_op(r);
}

static void op_print(struct run *r)
{
	appendf(&r->script, "p\n");
	/* (a fresh map: no bucket array here, libstdc++'s single bucket there) */
	appendf(&r->expect, "%zu:", r->m.nbkt ? r->m.nbkt : (size_t)1);
	uint64_t prev_b = UINT64_MAX;
	size_t n = 0;
	for (uint32_t x = spgo_map_first(&r->m); x != UINT32_MAX; x = spgo_map_next(&r->m, x), n++) {
		uint64_t k = r->m.nodes.v[x].key, b = k % r->m.nbkt;
		r->shared += b == prev_b;
		prev_b = b;
		appendf(&r->expect, " %" PRIu64, k);
	}
	appendf(&r->expect, "\n");
	CHECK_EQ_U64(n, r->m.count);
}

/* A key in the map, picked at random (the map is not empty). */
static uint64_t pick_present(struct run *r)
{
	size_t j = rng_below(&r->rng, r->m.count);
	uint32_t x = spgo_map_first(&r->m), last = x;
	for (; j-- && x != UINT32_MAX; x = spgo_map_next(&r->m, x))
		last = x;
	if (x == UINT32_MAX) /* (a replay that lost nodes: op_print says so) */
		x = last;
	return x == UINT32_MAX ? 0 : r->m.nodes.v[x].key;
}

/* ---- the oracle --------------------------------------------------------------- */

static const char *oracle_path(void)
{
#ifdef SPGO_MAP_ORACLE
	return SPGO_MAP_ORACLE;
#else
	return NULL;
#endif
}

/* What the oracle prints for script; NULL on failure (said). */
static char *oracle_run(const char *script, size_t len)
{
	const char *tmpdir = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/spgo-map-oracle-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "mkstemp %s: %s\n", path, strerror(errno));
		return NULL;
	}
	int ok = write(fd, script, len) == (ssize_t)len;
	close(fd);
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "'%s' < '%s'", oracle_path(), path);
	FILE *f = ok ? popen(cmd, "r") : NULL;
	charvec out = {0};
	if (f) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
			VEC_GROW(&out, out.n + n + 1);
			memcpy(out.v + out.n, buf, n);
			out.n += n;
		}
		ok = pclose(f) == 0;
	} else {
		ok = 0;
	}
	unlink(path);
	if (!ok) {
		fprintf(stderr, "the oracle failed: %s\n", cmd);
		VEC_FREE(&out);
		return NULL;
	}
	VEC_GROW(&out, out.n + 1);
	out.v[out.n] = '\0';
	return out.v;
}

/* The length of the line at s, at most 200. */
static int line_len(const char *s)
{
	const char *nl = strchr(s, '\n');
	size_t n = nl ? (size_t)(nl - s) : strlen(s);
	return n < 200 ? (int)n : 200;
}

/* The oracle's output for r's script equals the replay's, line by line. */
static void check_run(const char *name, struct run *r)
{
	VEC_GROW(&r->expect, r->expect.n + 1);
	r->expect.v[r->expect.n] = '\0';
	char *got = oracle_run(r->script.v, r->script.n);
	REQUIRE(got);
	const char *e = r->expect.v, *g = got;
	size_t line = 1;
	while (*e && *e == *g) {
		line += *e == '\n';
		e++;
		g++;
	}
	if (*e || *g) {
		const char *el = e, *gl = g; /* back to the start of the line */
		while (el > r->expect.v && el[-1] != '\n')
			el--;
		while (gl > got && gl[-1] != '\n')
			gl--;
		fprintf(stderr, "%s: print %zu differs at column %zu\n  replay:    %.*s\n  libstdc++: %.*s\n",
			name, line, (size_t)(e - el), line_len(el), el, line_len(gl), gl);
		t_failed_checks++;
		t_cur_failed = 1;
	}
	free(got);
}

/* ---- scripts --------------------------------------------------------------------- */

/* Growth one insertion at a time, n keys from key(i): printed around every
 * rehash and every 1000 insertions. */
static void script_growth(struct run *r, size_t n, int random_keys)
{
	op_print(r);
	for (size_t i = 0; i < n; i++) {
		size_t nbkt = r->m.nbkt;
		uint64_t k = random_keys ? rng_next(&r->rng) : i * 3 + 1;
		if (r->m.count + 1 > nbkt) /* a rehash comes: the order before it */
			op_print(r);
		op_insert(r, k);
		if (r->m.nbkt != nbkt || i % 1000 == 0 || i + 1 == n)
			op_print(r);
	}
}

/* Keys that share buckets: c + P * j for the bucket counts P a small map
 * goes through, so that most insertions go behind a bucket's first node,
 * some repeated (no insertion). */
static void script_shared_buckets(struct run *r)
{
	static const uint64_t P[] = {13, 29, 59, 127, 257, 541};
	for (size_t i = 0; i < 900; i++) {
		uint64_t p = P[rng_below(&r->rng, sizeof P / sizeof *P)];
		op_insert(r, rng_below(&r->rng, 3) + p * rng_below(&r->rng, 150));
		if (i < 80 || i % 25 == 0)
			op_print(r);
	}
	op_print(r);
}

/* Random inserts and erases over a small universe of keys (many in shared
 * buckets): erases of a bucket's first, middle and last nodes, of a bucket's
 * only node, and of keys not there. */
static void script_mixed(struct run *r, size_t nops)
{
	uint64_t pool[320];
	for (size_t i = 0; i < 320; i++)
		pool[i] = i < 160 ? rng_next(&r->rng) : (i % 7) + 59 * rng_below(&r->rng, 400);
	for (size_t i = 0; i < nops; i++) {
		size_t c = rng_below(&r->rng, 20);
		if (c < 11 || !r->m.count)
			op_insert(r, pool[rng_below(&r->rng, 320)]);
		else if (c < 18)
			op_erase(r, pick_present(r));
		else
			op_erase(r, pool[rng_below(&r->rng, 320)]);
		if (i % 9 == 0)
			op_print(r);
	}
	op_print(r);
}

/* Small tables kept at one bucket count, 13 to 257, about full: keys below
 * 3 * P, so that every bucket holds up to 3 and nearly every operation
 * meets a bucket's neighbours in the list. */
static void script_small(struct run *r, uint64_t P)
{
	for (size_t i = 0; i < 40 * P; i++) {
		uint64_t k = rng_below(&r->rng, 3 * P);
		if (r->m.count + 1 >= P || (r->m.count && rng_below(&r->rng, 2)))
			op_erase(r, rng_below(&r->rng, 4) ? pick_present(r) : k);
		else
			op_insert(r, k);
		if (i % 3 == 0)
			op_print(r);
	}
	op_print(r);
}

/* A map drained to empty and filled again (the bucket count never shrinks):
 * erased at random, from the front, from the back. */
static void script_drain(struct run *r)
{
	u64vec order = {0};
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < 200; i++)
			op_insert(r, round == 1 ? (i % 5) + 13 * i : rng_next(&r->rng) >> (round * 20));
		op_print(r);
		order_of(&r->m, &order);
		for (size_t i = 0; i < order.n; i++) {
			size_t j = round == 0 ? i : round == 1 ? i : order.n - 1 - i;
			if (round == 0) { /* a random order: shuffle as we go */
				size_t s = i + rng_below(&r->rng, order.n - i);
				uint64_t t = order.v[i];
				order.v[i] = order.v[s];
				order.v[s] = t;
			}
			op_erase(r, order.v[j]);
			if (i % 5 == 0)
				op_print(r);
		}
		op_print(r);
	}
	VEC_FREE(&order);
}

/*
 * The sequences of llvm-profgen's nesting (csnest.c, ProfileConverter):
 * plain profiles keyed by name first, contexts inserted, then per context
 * (in another order than the map's) its function's plain profile inserted
 * when it has no profiled caller (often there already), and the context
 * erased; and of the cold-context merge (context/map_order.c,
 * SampleContextTrimmer): the cold ones in map order erased while their
 * merged contexts gather in a second map, whose entries come back in its
 * order, some skipped.
 */
static void script_nesting(struct run *r)
{
	uint64_t base[40];
	for (size_t i = 0; i < 40; i++)
		base[i] = rng_next(&r->rng);
	for (size_t i = 0; i < 10; i++)
		op_insert(r, base[i]);
	u64vec ctx = {0};
	for (size_t i = 0; i < 1500; i++) {
		uint64_t k = i % 4 == 0 ? (i % 11) + 127 * i : rng_next(&r->rng);
		VEC_PUSH(&ctx, k);
		op_insert(r, k);
	}
	op_print(r);
	for (size_t i = 0; i < ctx.n; i++) { /* trie order: the insertion order reversed */
		uint64_t child = ctx.v[ctx.n - 1 - i];
		if (rng_below(&r->rng, 2))
			op_insert(r, base[rng_below(&r->rng, 40)]);
		op_erase(r, child);
		if (i % 25 == 0)
			op_print(r);
	}
	op_print(r);

	/* the trimmer: refill, then merge the cold third into a second map */
	for (size_t i = 0; i < 1200; i++)
		op_insert(r, rng_next(&r->rng) >> (i % 3 ? 0 : 40));
	op_print(r);
	u64vec order = {0}, merged = {0};
	order_of(&r->m, &order);
	struct spgo_map mm;
	spgo_map_init(&mm);
	for (size_t i = 0; i < order.n; i++) {
		if (order.v[i] % 3)
			continue;
		spgo_map_insert(&mm, base[order.v[i] % 40] ^ 0x5a5a, 0);
		op_erase(r, order.v[i]);
		if (i % 20 == 0)
			op_print(r);
	}
	order_of(&mm, &merged);
	for (size_t i = 0; i < merged.n; i++)
		if (merged.v[i] % 5)
			op_insert(r, merged.v[i]);
	op_print(r);
	spgo_map_free(&mm);
	VEC_FREE(&order);
	VEC_FREE(&merged);
	VEC_FREE(&ctx);
}

/* ---- tests ----------------------------------------------------------------------- */

static void test_growth_sequential_keys(void)
{
	struct run r;
	run_init(&r, 1, 0);
	script_growth(&r, 12000, 0);
	CHECK_EQ_U64(r.m.nbkt, 20753); /* 1, 13, 29, ..., 10273, 20753 */
	CHECK_EQ_U64(r.rehashes, 11);
	check_run("growth, keys 3i+1", &r);
	run_free(&r);
}

static void test_growth_random_keys(void)
{
	struct run r;
	run_init(&r, 2, 0);
	script_growth(&r, 11000, 1);
	CHECK_EQ_U64(r.rehashes, 11);
	CHECK(r.shared > 1000);
	check_run("growth, random keys", &r);
	run_free(&r);
}

static void test_shared_buckets(void)
{
	struct run r;
	run_init(&r, 3, 0);
	script_shared_buckets(&r);
	CHECK(r.shared > 2000);
	CHECK(r.rehashes >= 5);
	check_run("shared buckets", &r);
	run_free(&r);
}

static void test_inserts_and_erases(void)
{
	for (uint64_t seed = 10; seed < 16; seed++) {
		struct run r;
		run_init(&r, seed, 0);
		script_mixed(&r, 3000);
		CHECK(r.shared > 1000);
		char name[64];
		snprintf(name, sizeof name, "inserts and erases, seed %" PRIu64, seed);
		check_run(name, &r);
		run_free(&r);
	}
}

static void test_small_tables(void)
{
	static const uint64_t P[] = {13, 29, 59, 127, 257};
	for (size_t i = 0; i < sizeof P / sizeof *P; i++) {
		struct run r;
		run_init(&r, 20 + i, 0);
		op_insert(&r, 0); /* to P buckets, then kept there */
		for (uint64_t k = 1; k + 1 < P[i]; k++)
			op_insert(&r, k);
		script_small(&r, P[i]);
		CHECK_EQ_U64(r.m.nbkt, P[i]);
		char name[64];
		snprintf(name, sizeof name, "small table, %" PRIu64 " buckets", P[i]);
		check_run(name, &r);
		run_free(&r);
	}
}

static void test_drain_and_refill(void)
{
	struct run r;
	run_init(&r, 4, 0);
	script_drain(&r);
	CHECK_EQ_U64(r.m.count, 0);
	CHECK_EQ_U64(r.m.nbkt, 257);
	check_run("drain and refill", &r);
	run_free(&r);
}

static void test_nesting_sequences(void)
{
	struct run r;
	run_init(&r, 5, 0);
	script_nesting(&r);
	check_run("nesting", &r);
	run_free(&r);
}

/* The replay rebuilt from its order and bucket count half-way through
 * goes on as the map it was. */
static void test_restore(void)
{
	struct run r;
	run_init(&r, 10, 1700);
	script_mixed(&r, 3000);
	check_run("inserts and erases, restored after 1700 ops", &r);
	run_free(&r);
	run_init(&r, 5, 2000);
	script_nesting(&r);
	check_run("nesting, restored after 2000 ops", &r);
	run_free(&r);
	run_init(&r, 6, 1);
	op_insert(&r, 7); /* restored from one node: 13 buckets */
	op_insert(&r, 20);
	op_insert(&r, 33);
	op_print(&r);
	check_run("restored from one node", &r);
	run_free(&r);
}

int main(void)
{
	if (!oracle_path()) {
		printf("skip: no C++ compiler at configure time, so no map_oracle (libstdc++'s "
		       "std::unordered_map) to check llvm_map.c against\n");
		return 77;
	}
	RUN(test_growth_sequential_keys);
	RUN(test_growth_random_keys);
	RUN(test_shared_buckets);
	RUN(test_inserts_and_erases);
	RUN(test_small_tables);
	RUN(test_drain_and_refill);
	RUN(test_nesting_sequences);
	RUN(test_restore);
	DONE();
}
