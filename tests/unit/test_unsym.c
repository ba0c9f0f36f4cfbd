/*
 * Unit tests of unsymbolized profiles (spgo/unsym.h) on synthetic hosts:
 *  - binary and text forms read back to the same bytes, and each other;
 *  - merging 50 files in random orders and random groupings (a tree of
 *    partial merges written and read back) gives byte-identical output;
 *  - weights multiply, events match by name, paths keep the smallest;
 *  - cold-key trimming drops no more than its bound;
 *  - llvm-profgen's text (with CS blocks and buildid: prefixes) is read;
 *  - damaged inputs fail with an error, never crash (the fuzzer does more).
 */
#include "harness.h"
#include "spgo/unsym.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A host's profile: two binaries, a skewed distribution of keys. */
static struct spgo_unsym *host(int h)
{
	struct spgo_unsym *u = spgo_unsym_new();
	for (int b = 0; b < 2; b++) {
		struct spgo_unsym_bin *s = spgo_unsym_section(u, b ? "00ff" : "abcdef0123",
							      h % 3 ? "/usr/bin/prog" : "/opt/prog");
		s->base = 0x401000;
		s->has_base = 1;
		s->kinds = SPGO_UNSYM_LBR | SPGO_UNSYM_IP | SPGO_UNSYM_CS;
		s->hosts = 1;
		s->samples = 100 + (uint64_t)h;
		for (int i = 0; i < 60; i++) {
			uint64_t a = (rnd() % 64) * (rnd() % 64), k[2] = {a, a + rnd() % 40};
			*spgo_kmap_upsert(&s->ranges, k) += 1 + rnd() % 100;
			uint64_t br[2] = {rnd() % 4096, i % 7 ? rnd() % 4096 : 1 - s->base};
			*spgo_kmap_upsert(&s->branches, br) += 1 + rnd() % 10;
		}
		for (int e = 0; e < 2; e++) {
			if ((h + e) % 4 == 0)
				continue; /* not every host has every event */
			struct spgo_unsym_event ev = {xstrdup(e ? "cycles:u" : "instructions:u"),
						      50, 5000, {0}};
			spgo_kmap_init(&ev.ips, 1);
			for (int i = 0; i < 30; i++) {
				uint64_t ip = rnd() % 512;
				*spgo_kmap_upsert(&ev.ips, &ip) += 1 + rnd() % 5;
			}
			VEC_PUSH(&s->events, ev);
		}
		for (int i = 0; i < 10; i++) {
			uint64_t fr[3] = {rnd() % 64, 1 - s->base, rnd() % 8}, br[4];
			for (int k = 0; k < 4; k++)
				br[k] = rnd() % 16;
			spgo_unsym_add_stack(s, fr, 1 + (uint32_t)(rnd() % 3), br, 2, 1 + rnd() % 3);
		}
		/* unwound contexts (llvm-profgen's CS form), on most hosts */
		static const char *const keys[] = {"", "0x347", "0x347 @ 0x37c", "main:12 @ compile",
						   "f:1.2 @ g"};
		for (int i = 0; i < 6 && h % 5 != 4; i++) {
			const char *key = keys[rnd() % 5];
			struct spgo_unsym_ctx *c = spgo_unsym_context(s, key, strlen(key));
			uint64_t r[2] = {rnd() % 256, 0};
			r[1] = r[0] + rnd() % 16;
			*spgo_kmap_upsert(&c->ranges, r) += 1 + rnd() % 9;
			uint64_t br[2] = {i % 3 ? rnd() % 256 : 1 - s->base, rnd() % 256};
			*spgo_kmap_upsert(&c->branches, br) += 1 + rnd() % 9;
		}
	}
	return u;
}

static char *to_mem(const struct spgo_unsym *u, enum spgo_unsym_format f, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	int rc = spgo_unsym_write_fp(u, fp, f);
	fclose(fp);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int add_mem(struct spgo_unsym *u, const char *buf, size_t len, uint64_t w)
{
	return spgo_unsym_read_mem(u, "mem", (const uint8_t *)buf, len, w);
}

#define N 50
static char *files[N];
static size_t lens[N];

static void make_hosts(void)
{
	for (int h = 0; h < N; h++) {
		struct spgo_unsym *u = host(h);
		files[h] = to_mem(u, h % 2 ? SPGO_UNSYM_TEXT : SPGO_UNSYM_BIN, &lens[h]);
		spgo_unsym_free(u);
	}
}

static void test_round_trip(void)
{
	struct spgo_unsym *u = host(7);
	size_t nb, nt, nb2, nt2;
	char *b = to_mem(u, SPGO_UNSYM_BIN, &nb), *t = to_mem(u, SPGO_UNSYM_TEXT, &nt);
	REQUIRE(b && t);
	CHECK(spgo_unsym_sniff((uint8_t *)b, nb) == SPGO_UNSYM_BIN);
	CHECK(spgo_unsym_sniff((uint8_t *)t, nt) == SPGO_UNSYM_TEXT);
	struct spgo_unsym *fb = spgo_unsym_new(), *ft = spgo_unsym_new();
	CHECK(add_mem(fb, t, nt, 1) == 0); /* text -> binary */
	CHECK(add_mem(ft, b, nb, 1) == 0); /* binary -> text */
	char *b2 = to_mem(fb, SPGO_UNSYM_BIN, &nb2), *t2 = to_mem(ft, SPGO_UNSYM_TEXT, &nt2);
	CHECK(nb == nb2 && !memcmp(b, b2, nb));
	CHECK(nt == nt2 && !memcmp(t, t2, nt));
	CHECK(nb * 2 < nt); /* the binary form is the compact one */
	/* unwound contexts: version 2 of the binary form, a "# contexts" text section */
	CHECK(nb > 8 && b[8] == 2 && strstr(t, "\n# contexts ") != NULL);
	/* llvm-profgen's form holds one binary */
	size_t np;
	CHECK(to_mem(u, SPGO_UNSYM_PROFGEN, &np) == NULL);
	free(b), free(t), free(b2), free(t2);
	spgo_unsym_free(u), spgo_unsym_free(fb), spgo_unsym_free(ft);
}

/* Merge files[perm[lo..hi)] as a random tree of partial merges, each
 * written (random form) and read back; returns the bytes of the root. */
static char *tree(const int *perm, int lo, int hi, size_t *len)
{
	struct spgo_unsym *u = spgo_unsym_new();
	if (hi - lo <= 3) {
		for (int i = lo; i < hi; i++)
			CHECK(add_mem(u, files[perm[i]], lens[perm[i]], 1) == 0);
	} else {
		int mid = lo + 1 + (int)(rnd() % (uint64_t)(hi - lo - 1)), parts[3] = {lo, mid, hi};
		for (int k = 0; k < 2; k++) {
			size_t n;
			char *sub = tree(perm, parts[k], parts[k + 1], &n);
			CHECK(add_mem(u, sub, n, 1) == 0);
			free(sub);
		}
	}
	char *out = to_mem(u, rnd() % 2 ? SPGO_UNSYM_TEXT : SPGO_UNSYM_BIN, len);
	spgo_unsym_free(u);
	return out;
}

static void test_merge_orders(void)
{
	/* reference: all files in order, in one merge */
	struct spgo_unsym *u = spgo_unsym_new();
	for (int i = 0; i < N; i++)
		CHECK(add_mem(u, files[i], lens[i], 1) == 0);
	size_t nref;
	char *ref = to_mem(u, SPGO_UNSYM_BIN, &nref);
	CHECK_EQ_U64(u->bins.n, 2);
	CHECK_EQ_U64(u->bins.v[0]->hosts, N);
	CHECK_STREQ(u->bins.v[0]->path, "/opt/prog"); /* the smallest path */
	spgo_unsym_free(u);
	for (int round = 0; round < 20; round++) {
		int perm[N];
		for (int i = 0; i < N; i++)
			perm[i] = i;
		for (int i = N - 1; i > 0; i--) {
			int j = (int)(rnd() % (uint64_t)(i + 1)), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		size_t n;
		char *root = tree(perm, 0, N, &n);
		struct spgo_unsym *v = spgo_unsym_new();
		CHECK(add_mem(v, root, n, 1) == 0);
		size_t nb;
		char *b = to_mem(v, SPGO_UNSYM_BIN, &nb);
		CHECK(nb == nref && !memcmp(b, ref, nref));
		free(b), free(root);
		spgo_unsym_free(v);
	}
	free(ref);
}

static void test_weight_and_trim(void)
{
	struct spgo_unsym *a = spgo_unsym_new(), *b = spgo_unsym_new();
	CHECK(add_mem(a, files[0], lens[0], 3) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(add_mem(b, files[0], lens[0], 1) == 0);
	size_t na, nb;
	char *x = to_mem(a, SPGO_UNSYM_BIN, &na), *y = to_mem(b, SPGO_UNSYM_BIN, &nb);
	/* weight 3 = the same file thrice, but for the hosts count */
	CHECK_EQ_U64(a->bins.v[0]->hosts, 1);
	CHECK_EQ_U64(b->bins.v[0]->hosts, 3);
	b->bins.v[0]->hosts = b->bins.v[1]->hosts = 1;
	free(y);
	y = to_mem(b, SPGO_UNSYM_BIN, &nb);
	CHECK(na == nb && !memcmp(x, y, na));
	free(x), free(y);
	/* trimming: what is dropped weighs at most eps of each map */
	struct spgo_unsym_bin *s = a->bins.v[0];
	uint64_t keys0, total0, keys1, total1;
	spgo_unsym_totals(s, &keys0, &total0);
	uint64_t dropped = spgo_unsym_trim(a, 0.05);
	spgo_unsym_totals(s, &keys1, &total1);
	CHECK(dropped > 0);
	CHECK(keys1 < keys0);
	CHECK((double)(total0 - total1) <= 0.05 * (double)total0 + 1e-9);
	spgo_unsym_free(a), spgo_unsym_free(b);
}

static void test_profgen_text(void)
{
	/* llvm-profgen's CS output: contexts (one of another build-id, by its
	 * leaf frame), indented counts; a buildid: prefix on an address */
	const char *txt = "[0x10 @ 0x20]\n  1\n  20-2f:5\n  1\n  2f->10:5\n"
			  "[ab:0x10 @ cd:0x30]\n  1\n  30-3f:7\n  0\n"
			  "[]\n  1\n  20-2f:1\n  1\n  ee:0x40->10:2\n";
	CHECK(spgo_unsym_sniff((const uint8_t *)txt, strlen(txt)) == SPGO_UNSYM_PROFGEN);
	struct spgo_unsym *u = spgo_unsym_new();
	REQUIRE(add_mem(u, txt, strlen(txt), 1) == 0);
	REQUIRE(u->bins.n == 2);
	struct spgo_unsym_bin *anon = u->bins.v[0], *cd = u->bins.v[1];
	CHECK_STREQ(cd->build_id, "cd");
	uint64_t k[2] = {0x20, 0x2f}, k2[2] = {0x30, 0x3f}, k3[2] = {UINT64_MAX, 0x10};
	CHECK(spgo_kmap_find(&anon->ranges, k) && *spgo_kmap_find(&anon->ranges, k) == 6);
	CHECK(spgo_kmap_find(&cd->ranges, k2) && *spgo_kmap_find(&cd->ranges, k2) == 7);
	CHECK(spgo_kmap_find(&anon->branches, k3) != NULL); /* another build-id: external */
	/* a plain count-first file is llvm-profgen's too; an LLVM profile is not */
	CHECK(spgo_unsym_sniff((const uint8_t *)"3\n", 2) == SPGO_UNSYM_PROFGEN);
	CHECK(spgo_unsym_sniff((const uint8_t *)"main:10:2\n 1: 5\n", 16) == SPGO_UNSYM_UNKNOWN);
	CHECK(spgo_unsym_sniff((const uint8_t *)"[main:1 @ f]:10:2\n", 18) == SPGO_UNSYM_UNKNOWN);
	spgo_unsym_free(u);
}

static void test_damaged(void)
{
	spgo_quiet = 1;
	const char *bad[] = {
		"5\n1-2:3\n",			   /* fewer entries than counted */
		"1\n1-2:x\n0\n",		   /* bad count */
		"99999999999999999999\n",	   /* overflow */
		"# spgo-unsymbolized 1\n# ips 0 1\n1:1\n", /* ips before any event */
		"# spgo-unsymbolized 1\n# binary a p\n# stacks 1\n3 1 2\n", /* no '|' */
	};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(bad); i++) {
		struct spgo_unsym *u = spgo_unsym_new();
		CHECK(add_mem(u, bad[i], strlen(bad[i]), 1) < 0);
		spgo_unsym_free(u);
	}
	/* every cut of a binary file fails cleanly or reads a prefix */
	for (size_t cut = 0; cut < lens[0]; cut += 7) {
		struct spgo_unsym *u = spgo_unsym_new();
		add_mem(u, files[0], cut, 1);
		spgo_unsym_free(u);
	}
	/* a huge count is refused before anything is allocated */
	const char big[] = "SPGO-UNS\1S\0\0\0\0\0\0\0\0\0\0\0\xff\xff\xff\xff\x0f";
	struct spgo_unsym *u = spgo_unsym_new();
	CHECK(add_mem(u, big, sizeof big - 1, 1) < 0);
	CHECK(strstr(spgo_errmsg(), "exceeds") != NULL);
	spgo_unsym_free(u);
}

int main(void)
{
	make_hosts();
	RUN(test_round_trip);
	RUN(test_merge_orders);
	RUN(test_weight_and_trim);
	RUN(test_profgen_text);
	RUN(test_damaged);
	for (int i = 0; i < N; i++)
		free(files[i]);
	DONE();
}
