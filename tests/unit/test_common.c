/* Unit tests of the shared helpers: hash map, string table, atomic output. */
#include <unistd.h>

#include "harness.h"
#include "spgo/common.h"

static void test_kmap_insert_find_grow(void)
{
	struct spgo_kmap m;
	spgo_kmap_init(&m, 2);
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t k[2] = {i, i * 7};
		*spgo_kmap_upsert(&m, k) += i + 1;
	}
	CHECK_EQ_U64(m.n, 10000);
	uint64_t k[2] = {1234, 1234 * 7};
	uint64_t *v = spgo_kmap_find(&m, k);
	REQUIRE(v);
	CHECK_EQ_U64(*v, 1235);
	k[1] = 1;
	CHECK(spgo_kmap_find(&m, k) == NULL);
	uint64_t *rows = spgo_kmap_sorted(&m);
	int sorted = 1;
	for (size_t i = 1; i < m.n; i++)
		sorted &= rows[i * 3] > rows[(i - 1) * 3];
	CHECK(sorted);
	CHECK_EQ_U64(rows[0], 0);
	CHECK_EQ_U64(rows[2], 1);
	free(rows);
	size_t it = 0, count = 0;
	const uint64_t *key;
	uint64_t *val;
	while (spgo_kmap_next(&m, &it, &key, &val))
		count++;
	CHECK_EQ_U64(count, 10000);
	spgo_kmap_free(&m);
}

static void test_strtab(void)
{
	struct spgo_strtab t;
	spgo_strtab_init(&t);
	uint32_t a = spgo_strtab_intern(&t, "main", 4);
	uint32_t b = spgo_strtab_intern(&t, "mainly", 4); /* prefix: same as "main" */
	uint32_t c = spgo_strtab_intern(&t, "foo", 3);
	CHECK_EQ_U64(a, b);
	CHECK(a != c);
	CHECK_STREQ(spgo_strtab_get(&t, c), "foo");
	for (int i = 0; i < 5000; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "f%d", i);
		uint32_t id = spgo_strtab_intern(&t, buf, (size_t)n);
		CHECK_STREQ(spgo_strtab_get(&t, id), buf);
	}
	CHECK_EQ_U64(t.n, 5002);
	spgo_strtab_free(&t);
}

static void test_out_atomic(void)
{
	char dir[] = "/tmp/spgo-test-XXXXXX";
	REQUIRE(mkdtemp(dir));
	char *path = xasprintf("%s/out.txt", dir);
	struct spgo_out o;
	REQUIRE(spgo_out_open(&o, path) == 0);
	fputs("half", o.fp);
	spgo_out_abort(&o);
	CHECK(access(path, F_OK) != 0); /* aborted: nothing left behind */
	REQUIRE(spgo_out_open(&o, path) == 0);
	fputs("whole\n", o.fp);
	CHECK(access(path, F_OK) != 0); /* not visible before commit */
	REQUIRE(spgo_out_commit(&o) == 0);
	struct spgo_file f;
	REQUIRE(spgo_file_map(&f, path) == 0);
	CHECK(f.size == 6 && memcmp(f.data, "whole\n", 6) == 0);
	spgo_file_unmap(&f);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* spgo_out_same: one file by any of its names, existing or not yet. */
static void test_out_same(void)
{
	char dir[] = "/tmp/spgo-test-XXXXXX";
	REQUIRE(mkdtemp(dir));
	char *a = xasprintf("%s/a", dir), *dot = xasprintf("%s/./a", dir), *b = xasprintf("%s/b", dir);
	char *sym = xasprintf("%s/l", dir), *hard = xasprintf("%s/h", dir);
	CHECK(spgo_out_same(a, dot));  /* neither exists */
	CHECK(!spgo_out_same(a, b));
	CHECK(spgo_out_same("-", "-"));
	CHECK(!spgo_out_same("-", a));
	FILE *fp = fopen(a, "w");
	REQUIRE(fp);
	fclose(fp);
	CHECK(spgo_out_same(a, dot)); /* it exists */
	CHECK(!spgo_out_same(a, b));  /* one exists */
	REQUIRE(symlink(a, sym) == 0);
	REQUIRE(link(a, hard) == 0);
	CHECK(spgo_out_same(sym, a));
	CHECK(spgo_out_same(hard, dot));
	unlink(sym), unlink(hard), unlink(a), rmdir(dir);
	free(a), free(dot), free(b), free(sym), free(hard);
}

static void test_errors_and_parse(void)
{
	struct spgo_file f;
	CHECK(spgo_file_map(&f, "/nonexistent/spgo") < 0);
	CHECK(strstr(spgo_errmsg(), "/nonexistent/spgo") != NULL);
	uint64_t v;
	CHECK(spgo_parse_u64("0x401000", &v) == 0 && v == 0x401000);
	CHECK(spgo_parse_u64("42", &v) == 0 && v == 42);
	CHECK(spgo_parse_u64("4x2", &v) < 0);
	CHECK(spgo_parse_u64("", &v) < 0);
}

int main(void)
{
	RUN(test_kmap_insert_find_grow);
	RUN(test_strtab);
	RUN(test_out_atomic);
	RUN(test_out_same);
	RUN(test_errors_and_parse);
	DONE();
}
