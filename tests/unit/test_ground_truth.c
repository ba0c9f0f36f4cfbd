/* Unit tests of the ground-truth file reader and writer (spgo/ground_truth.h). */
#include <unistd.h>

#include "harness.h"
#include "spgo/common.h"
#include "spgo/ground_truth.h"

static char dir[] = "/tmp/spgo-test-gt-XXXXXX";

static char *write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

static void test_roundtrip(void)
{
	struct spgo_gt_insn in[3] = {{0x401000, 10, 4, '-'}, {0x401004, 10, 2, 'j'},
				     {0x401006, 3, 1, 'r'}};
	struct spgo_gt_edge e[3] = {{SPGO_GT_OUTSIDE, 0x401000, 10, 'T'},
				    {0x401004, 0x401000, 7, 'T'},
				    {0x401004, 0x401006, 3, 'F'}};
	struct spgo_gt_dso d = {.path = "/usr/bin/my prog", .build_id = {0x12, 0x34},
				.build_id_len = 2, .insns = in, .n_insns = 3, .edges = e,
				.n_edges = 3};
	struct spgo_ground_truth gt = {&d, 1};
	char *path = xasprintf("%s/rt.txt", dir);
	REQUIRE(spgo_gt_write(&gt, path) == 0);
	struct spgo_ground_truth r;
	REQUIRE(spgo_gt_read(&r, path) == 0);
	REQUIRE(r.n_dsos == 1);
	CHECK_STREQ(r.dsos[0].path, "/usr/bin/my prog");
	CHECK_EQ_U64(r.dsos[0].build_id_len, 2);
	CHECK_EQ_U64(r.dsos[0].build_id[1], 0x34);
	REQUIRE(r.dsos[0].n_insns == 3 && r.dsos[0].n_edges == 3);
	CHECK_EQ_U64(r.dsos[0].insns[1].count, 10);
	CHECK(r.dsos[0].insns[1].cls == 'j');
	CHECK_EQ_U64(r.dsos[0].edges[0].from, SPGO_GT_OUTSIDE);
	CHECK(r.dsos[0].edges[2].kind == 'F');
	const uint8_t id[2] = {0x12, 0x34};
	CHECK(spgo_gt_find_dso(&r, id, 2, NULL) == &r.dsos[0]);
	CHECK(spgo_gt_find_dso(&r, NULL, 0, "/elsewhere/my prog") == &r.dsos[0]);
	CHECK(spgo_gt_find_dso(&r, NULL, 0, "other") == NULL);
	const struct spgo_gt_insn *x = spgo_gt_insn_at(&r.dsos[0], 0x401006);
	CHECK(x && x->count == 3);
	CHECK(spgo_gt_insn_at(&r.dsos[0], 0x401005) == NULL);
	spgo_gt_free(&r);
	unlink(path);
	free(path);
}

static void expect_error(const char *text, const char *what)
{
	char *path = write_file("bad.txt", text);
	struct spgo_ground_truth r;
	CHECK(spgo_gt_read(&r, path) < 0);
	if (!strstr(spgo_errmsg(), what))
		fprintf(stderr, "  error was: %s (wanted '%s')\n", spgo_errmsg(), what);
	CHECK(strstr(spgo_errmsg(), what) != NULL);
	CHECK(strstr(spgo_errmsg(), "bad.txt") != NULL);
	unlink(path);
	free(path);
}

static void test_malformed(void)
{
	expect_error("", "empty file");
	expect_error("spgo-ground-truth 2\n", "line 1: not a spgo ground-truth");
	expect_error("spgo-ground-truth 1\ni 10 1 1 -\n", "line 2: record before the first 'dso'");
	expect_error("spgo-ground-truth 1\ndso - p\ni 10 1 x -\n", "line 3: malformed instruction");
	expect_error("spgo-ground-truth 1\ndso - p\ni 10 1 1 q\n", "line 3: malformed instruction");
	expect_error("spgo-ground-truth 1\ndso - p\ni 10 1 1 -\ni 10 1 1 -\n", "line 4: instructions not in ascending");
	expect_error("spgo-ground-truth 1\ndso - p\ne 10 - 1 Z\n", "line 3: malformed edge");
	expect_error("spgo-ground-truth 1\ndso xyz p\n", "line 2: bad build-id");
	expect_error("spgo-ground-truth 1\ndso - p\nzz\n", "line 3: unknown record");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_roundtrip);
	RUN(test_malformed);
	rmdir(dir);
	DONE();
}
