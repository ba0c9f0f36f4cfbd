/*
 * Unit tests of the perf script text reader: the line shapes perf prints
 * for LBR samples, IP samples, call stacks (alone and followed by an LBR
 * line), a leading pid, mmap events, and errors that name the line.
 */
#include <unistd.h>

#include "harness.h"
#include "spgo/common.h"
#include "spgo/perf.h"

static char path[] = "/tmp/spgo-test-text-XXXXXX";

static struct spgo_perf_text *open_text(const char *text)
{
	FILE *fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
	struct spgo_perf_text *t;
	return spgo_perf_text_open(&t, path) == 0 ? t : NULL;
}

static void test_lbr_lines(void)
{
	struct spgo_perf_text *t = open_text(
		" ffffffff8032d7e0 0xffffffff80330812/0xffffffff8032d7c0/P/-/-/0/  "
		"0x401000/0x400f00/M/X/A/12/COND \n"
		"   4242      7ffff7b11b17 0x7ffff7b11bbd/0x7ffff7b11b10/P/-/-/0/ \n"
		"     400a50\n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.type, PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(rec.sample.ip, 0xffffffff8032d7e0ULL);
	CHECK_EQ_U64(rec.sample.cpumode, PERF_RECORD_MISC_KERNEL);
	REQUIRE(rec.sample.branch_nr == 2);
	CHECK_EQ_U64(rec.sample.branches[0].from, 0xffffffff80330812ULL);
	CHECK_EQ_U64(rec.sample.branches[0].to, 0xffffffff8032d7c0ULL);
	CHECK(rec.sample.branches[0].predicted && !rec.sample.branches[0].mispred);
	CHECK(rec.sample.branches[1].mispred && rec.sample.branches[1].in_tx &&
	      rec.sample.branches[1].abort);
	CHECK_EQ_U64(rec.sample.branches[1].cycles, 12);
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.pid, 4242);
	CHECK_EQ_U64(rec.sample.ip, 0x7ffff7b11b17ULL);
	CHECK_EQ_U64(rec.sample.branch_nr, 1);
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.ip, 0x400a50);
	CHECK_EQ_U64(rec.sample.branch_nr, 0);
	CHECK(spgo_perf_text_next(t, &rec) == 0);
	spgo_perf_text_close(t);
}

static void test_stacks_and_mmaps(void)
{
	struct spgo_perf_text *t = open_text(
		"PERF_RECORD_MMAP2 77/77: [0x55d98f1bf000(0x73b000) @ 0x2d000 fe:00 247196 0]: "
		"r-xp /usr/bin/cmake\n"
		"\n"
		"\t           1462a\n"
		"\t               0\n"
		"\n"
		"   77 \n"
		"\t            1100\n"
		"\tffffffff81000130\n"
		"\t            1200\n"
		" 0x1105/0x1100/P/-/-/0/  0x10f0/0x1000/P/-/-/0/ \n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.type, PERF_RECORD_MMAP2);
	CHECK_EQ_U64(rec.u.mmap.pid, 77);
	CHECK_EQ_U64(rec.u.mmap.start, 0x55d98f1bf000ULL);
	CHECK_EQ_U64(rec.u.mmap.len, 0x73b000);
	CHECK_EQ_U64(rec.u.mmap.pgoff, 0x2d000);
	CHECK_STREQ(rec.u.mmap.filename, "/usr/bin/cmake");
	/* a stack ended by an empty line */
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.type, PERF_RECORD_SAMPLE);
	REQUIRE(rec.sample.callchain_nr == 2);
	CHECK(rec.sample.sample_type & SPGO_PERF_SAMPLE_TEXT_FRAMES);
	CHECK_EQ_U64(rec.sample.ip, 0x1462a);
	CHECK_EQ_U64(rec.sample.callchain[1], 0);
	/* a stack with a pid, ended by its LBR line */
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.pid, 77);
	REQUIRE(rec.sample.callchain_nr == 3);
	CHECK_EQ_U64(rec.sample.callchain[1], 0xffffffff81000130ULL);
	CHECK_EQ_U64(rec.sample.ip, 0x1100);
	REQUIRE(rec.sample.branch_nr == 2);
	CHECK_EQ_U64(rec.sample.branches[1].to, 0x1000);
	CHECK(spgo_perf_text_next(t, &rec) == 0);
	spgo_perf_text_close(t);
}

static void test_errors(void)
{
	struct spgo_perf_text *t = open_text(" 401000 0x1/0x2/P/-/-/0/\n this is not perf text\n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	CHECK(spgo_perf_text_next(t, &rec) == 1);
	CHECK(spgo_perf_text_next(t, &rec) < 0);
	CHECK(strstr(spgo_errmsg(), ": line 2: ") != NULL);
	spgo_perf_text_close(t);
	t = open_text(" 401000 0xzz/0x2/P/-/-/0/\n");
	REQUIRE(t);
	CHECK(spgo_perf_text_next(t, &rec) < 0);
	CHECK(strstr(spgo_errmsg(), ": line 1: bad branch entry") != NULL);
	spgo_perf_text_close(t);
	struct spgo_perf_text *none;
	CHECK(spgo_perf_text_open(&none, "/nonexistent/perf.txt") < 0);
}

int main(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	RUN(test_lbr_lines);
	RUN(test_stacks_and_mmaps);
	RUN(test_errors);
	unlink(path);
	DONE();
}
