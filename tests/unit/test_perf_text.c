/*
 * Unit tests of the perf script text reader: the line shapes perf prints
 * for LBR samples, IP samples, call stacks (alone, before or after an LBR
 * line, indented by tabs or spaces), a leading pid[/tid], the event column,
 * mmap events, aggregated counts, lines skipped as no samples, and errors
 * that name the line.
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
	/* a line of no known form is skipped and counted, not fatal */
	struct spgo_perf_text *t = open_text(" 401000 0x1/0x2/P/-/-/0/\n this is not perf text\n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	CHECK(spgo_perf_text_next(t, &rec) == 1);
	CHECK(spgo_perf_text_next(t, &rec) == 0);
	uint64_t first;
	CHECK_EQ_U64(spgo_perf_text_skipped(t, &first), 1);
	CHECK_EQ_U64(first, 2);
	spgo_perf_text_close(t);
	/* bad data inside a sample is an error naming the line */
	t = open_text(" 401000 0xzz/0x2/P/-/-/0/\n");
	REQUIRE(t);
	CHECK(spgo_perf_text_next(t, &rec) < 0);
	CHECK(strstr(spgo_errmsg(), ": line 1: bad branch entry") != NULL);
	spgo_perf_text_close(t);
	/* nothing but lines of no known form: an error naming the first */
	t = open_text("Samples: 12K of event 'cycles'\nthis is not perf text\n");
	REQUIRE(t);
	CHECK(spgo_perf_text_next(t, &rec) < 0);
	CHECK(strstr(spgo_errmsg(), "no perf script samples") != NULL);
	CHECK(strstr(spgo_errmsg(), "line 1: 'Samples: 12K") != NULL);
	spgo_perf_text_close(t);
	struct spgo_perf_text *none;
	CHECK(spgo_perf_text_open(&none, "/nonexistent/perf.txt") < 0);
}

/* Comments, perf's header, a wrapper's banner and the event column of
 * multi-event data (`perf script -F event,ip,brstack`). */
static void test_tolerant(void)
{
	struct spgo_perf_text *t = open_text(
		"# ========\n"
		"# captured on    : Mon Jan  1 00:00:00 2024\n"
		"   # an indented comment\n"
		"=== run 3 of bench.sh ===\n"
		"       cpu-clock:            401136\n"
		"  cycles:u:  401140 0x401150/0x401130/P/-/-/0/ \n"
		" 4242/4243 cpu-clock:      401136\n"
		"PERF_RECORD_COMM exec: prog:4242/4242\n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.ip, 0x401136);
	REQUIRE(rec.attr);
	CHECK_STREQ(rec.attr->name, "cpu-clock");
	CHECK_EQ_U64(rec.attr->index, 0);
	CHECK(!(rec.sample.sample_type & PERF_SAMPLE_TID));
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	REQUIRE(rec.attr);
	CHECK_STREQ(rec.attr->name, "cycles:u");
	CHECK_EQ_U64(rec.attr->index, 1);
	CHECK_EQ_U64(rec.sample.branch_nr, 1);
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.attr->index, 0);
	CHECK_EQ_U64(rec.sample.pid, 4242);
	CHECK_EQ_U64(rec.sample.tid, 4243);
	CHECK(rec.sample.sample_type & PERF_SAMPLE_TID);
	CHECK(spgo_perf_text_next(t, &rec) == 0);
	CHECK_EQ_U64(spgo_perf_text_skipped(t, NULL), 5);
	CHECK_EQ_U64(spgo_perf_text_nattrs(t), 2);
	spgo_perf_text_close(t);
}

/* Every layout perf prints call stacks with branch stacks in: the stack
 * first (tab- or space-indented), or the branch stack first. */
static void test_stack_layouts(void)
{
	static const char *const texts[] = {
		/* perf 6: an empty line, the stack, the LBR line */
		"\n\t            1190\n\t            1215\n"
		" 0x40000011fa/0x4000001190/P/-/-/0/  0x4000001180/0x40000011f0/P/-/-/0/ \n"
		"\n\t            1190\n\t            1215\n"
		" 0x40000011fa/0x4000001190/P/-/-/0/  0x4000001180/0x40000011f0/P/-/-/0/ \n",
		/* the same with the tabs expanded to spaces */
		"\n                    1190\n                    1215\n"
		" 0x40000011fa/0x4000001190/P/-/-/0/  0x4000001180/0x40000011f0/P/-/-/0/ \n"
		"\n                    1190\n                    1215\n"
		" 0x40000011fa/0x4000001190/P/-/-/0/  0x4000001180/0x40000011f0/P/-/-/0/ \n",
		/* the branch stack first, then the stack, then an empty line */
		" 0x40000011fa/0x4000001190/P/-/-/0/  0x4000001180/0x40000011f0/P/-/-/0/ \n"
		"\t            1190\n\t            1215\n\n"
		" 0x40000011fa/0x4000001190/P/-/-/0/  0x4000001180/0x40000011f0/P/-/-/0/ \n"
		"        1190\n        1215\n\n",
	};
	for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
		struct spgo_perf_text *t = open_text(texts[k]);
		REQUIRE(t);
		struct spgo_perf_record rec;
		for (int i = 0; i < 2; i++) {
			REQUIRE(spgo_perf_text_next(t, &rec) == 1);
			CHECK_EQ_U64(rec.type, PERF_RECORD_SAMPLE);
			CHECK_EQ_U64(rec.sample.callchain_nr, 2);
			CHECK_EQ_U64(rec.sample.branch_nr, 2);
			CHECK_EQ_U64(rec.sample.ip, 0x1190);
			CHECK(rec.sample.sample_type & SPGO_PERF_SAMPLE_TEXT_FRAMES);
		}
		CHECK(spgo_perf_text_next(t, &rec) == 0);
		CHECK_EQ_U64(spgo_perf_text_skipped(t, NULL), 0);
		spgo_perf_text_close(t);
	}
	/* IP samples as `perf script -F ip` prints them: each its own */
	struct spgo_perf_text *t = open_text("          401136\n          401140\n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.ip, 0x401136);
	CHECK_EQ_U64(rec.sample.callchain_nr, 0);
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.ip, 0x401140);
	CHECK(spgo_perf_text_next(t, &rec) == 0);
	spgo_perf_text_close(t);
}

/* llvm-profgen's aggregated perf script: a count line before a sample. */
static void test_aggregated(void)
{
	struct spgo_perf_text *t = open_text(
		"3\n"
		" 401136 0x401150/0x401130/P/-/-/0/ \n"
		" 401140 0x401150/0x401130/P/-/-/0/ \n"
		"12\n"
		"\t          1190\n"
		" 0x401150/0x401130/P/-/-/0/ \n");
	REQUIRE(t);
	struct spgo_perf_record rec;
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.ip, 0x401136);
	CHECK_EQ_U64(rec.sample.count, 3);
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.ip, 0x401140);
	CHECK_EQ_U64(rec.sample.count, 1);
	REQUIRE(spgo_perf_text_next(t, &rec) == 1);
	CHECK_EQ_U64(rec.sample.count, 12);
	CHECK_EQ_U64(rec.sample.callchain_nr, 1);
	CHECK_EQ_U64(rec.sample.branch_nr, 1);
	CHECK(spgo_perf_text_next(t, &rec) == 0);
	spgo_perf_text_close(t);
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
	RUN(test_tolerant);
	RUN(test_stack_layouts);
	RUN(test_aggregated);
	unlink(path);
	DONE();
}
