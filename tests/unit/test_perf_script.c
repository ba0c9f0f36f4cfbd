/*
 * Unit tests of the perf-script printer (spgo/perf_script.h), in process:
 * a small perf.data made with the perf writer (spgo/perf_write.h) printed
 * with each option, compared with the text `perf script` 6.1 prints for the
 * same file (perf script -F ... run on it when the test was written, the
 * same bytes for every option here): branch flags
 * and types, call stacks with kernel frames and user frames as file
 * offsets, a corrupt stack, time order, mmap events in both forms, -F
 * parsing.
 */
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/common.h"
#include "spgo/perf_script.h"
#include "spgo/perf_write.h"

static char dir[] = "/tmp/spgo-test-script-XXXXXX";
static char *data; /* the perf.data of make_data() */

/*
 * One process (pid 7, threads 7 and 8) mapping /bin/prog (build-id in the
 * MMAP2 record) at 0x400000 from file offset 0x1000 and /lib/libx.so
 * (device and inode form) at 0x7f0000000000; four samples, the last two
 * written out of time order.
 */
static int make_data(const char *path)
{
	struct spgo_perf_writer *w;
	if (spgo_pw_open(&w, path) < 0)
		return -1;
	struct perf_event_attr a = {0};
	a.size = PERF_ATTR_SIZE_VER7;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	a.sample_id_all = 1;
	a.exclude_kernel = 0;
	if (spgo_pw_add_attr(w, &a, "branches", NULL, 0) < 0)
		goto fail;
	struct spgo_pw_sample_id sid = {.pid = 7, .tid = 7, .time = 10};
	uint8_t bid[20] = {0xab, 0xcd, 0xef, 0x01, 0x23};
	struct spgo_pw_mmap2 prog = {.pid = 7, .tid = 7, .start = 0x400000, .len = 0x10000,
				     .pgoff = 0x1000, .prot = 5, .flags = 2, .build_id = bid,
				     .build_id_len = 20, .filename = "/bin/prog"};
	struct spgo_pw_mmap2 lib = {.pid = 7, .tid = 7, .start = 0x7f0000000000, .len = 0x2000,
				    .maj = 8, .min = 1, .ino = 1234, .ino_generation = 5,
				    .prot = 5, .flags = 2, .filename = "/lib/libx.so"};
	if (spgo_pw_comm(w, 7, 7, "prog", 1, &sid) < 0 || spgo_pw_mmap2(w, &prog, &sid) < 0 ||
	    spgo_pw_mmap2(w, &lib, &sid) < 0)
		goto fail;
	/* A user stack through the program, the library and an unmapped
	 * address; branches: mispredicted, predicted with cycles and a type,
	 * in a transaction and aborted. */
	uint64_t c1[] = {PERF_CONTEXT_USER, 0x401234, 0x402000, 0x7f0000000100, 0x12345};
	struct perf_branch_entry b1[3] = {
		{.from = 0x401230, .to = 0x401200, .mispred = 1},
		{.from = 0x7f0000000104, .to = 0x401220, .predicted = 1, .cycles = 12, .type = 1},
		{.from = 0x401100, .to = 0x7f0000000100, .in_tx = 1, .abort = 1, .cycles = 345, .type = 4},
	};
	struct spgo_pw_sample s1 = {.ip = 0x401234, .pid = 7, .tid = 7, .time = 20, .period = 1000,
				    .callchain = c1, .nr_callchain = 5, .branches = b1, .nr_branches = 3};
	/* A kernel frame above the user ones. */
	uint64_t c2[] = {PERF_CONTEXT_KERNEL, 0xffffffff81000010, PERF_CONTEXT_USER, 0x401000};
	struct spgo_pw_sample s2 = {.ip = 0xffffffff81000010, .pid = 7, .tid = 8, .time = 40,
				    .period = 1000, .callchain = c2, .nr_callchain = 4,
				    .misc = PERF_RECORD_MISC_KERNEL};
	/* An unknown context marker: perf drops the stack whole. */
	uint64_t c3[] = {PERF_CONTEXT_USER, 0x401010, (uint64_t)PERF_CONTEXT_GUEST, 0x401020};
	struct perf_branch_entry b3[1] = {{.from = 0x401010, .to = 0x401000}};
	struct spgo_pw_sample s3 = {.ip = 0x401010, .pid = 7, .tid = 8, .time = 30, .period = 1000,
				    .callchain = c3, .nr_callchain = 4, .branches = b3, .nr_branches = 1};
	if (spgo_pw_sample(w, 0, &s1) < 0 || spgo_pw_sample(w, 0, &s2) < 0 ||
	    spgo_pw_sample(w, 0, &s3) < 0)
		goto fail;
	return spgo_pw_commit(w);
fail:
	spgo_pw_abort(w);
	return -1;
}

/* Print data with opts into a string (malloc'd), or NULL on error. */
static char *print(const struct spgo_perf_script_opts *opts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		return NULL;
	int rc = spgo_perf_script(data, fp, opts);
	fclose(fp);
	if (rc < 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The expected text of each sample: its stack, leaf first (user frames as
 * offsets in their file, 0x402000 -> 0x3000 in /bin/prog, the library's
 * 0x100 its own), then its branches. */
#define STACK1 "\t            2234\n\t            3000\n\t             100\n\t           12345\n"
#define STACK2 "\tffffffff81000010\n\t            2000\n"
#define BR1                                                                              \
	" 0x401230/0x401200/M/-/-/0/  0x7f0000000104/0x401220/P/-/-/12/COND  "             \
	"0x401100/0x7f0000000100/-/X/A/345/CALL "
#define BR3 " 0x401010/0x401000/-/-/-/0/ "

static void test_default_fields(void)
{
	/* ip,brstack: the event has branch stacks; samples in time order */
	struct spgo_perf_script_opts o = {.fields = SPGO_PERF_SCRIPT_AUTO};
	char *t = print(&o);
	REQUIRE(t);
	CHECK_STREQ(t, "\n" STACK1 BR1 "\n"
		       "\n" BR3 "\n"
		       "\n" STACK2 "\n");
	free(t);
}

static void test_raw_stacks(void)
{
	/* user frames as the runtime addresses; pid and tid before them */
	struct spgo_perf_script_opts o = {
		.fields = SPGO_PERF_SCRIPT_IP | SPGO_PERF_SCRIPT_PID | SPGO_PERF_SCRIPT_TID,
		.raw_stacks = 1};
	char *t = print(&o);
	REQUIRE(t);
	CHECK_STREQ(t, "    7/7     \n"
		       "\t          401234\n\t          402000\n\t    7f0000000100\n\t           12345\n"
		       "\n"
		       "    7/8     \n"
		       "\n"
		       "    7/8     \n"
		       "\tffffffff81000010\n\t          401000\n"
		       "\n");
	free(t);
}

static void test_mmap_events(void)
{
	/* perf's PERF_RECORD_MMAP2 lines, build-id and device forms */
	struct spgo_perf_script_opts o = {.fields = SPGO_PERF_SCRIPT_PID | SPGO_PERF_SCRIPT_BRSTACK,
					  .show_mmap = 1};
	char *t = print(&o);
	REQUIRE(t);
	CHECK_STREQ(t, "    7 PERF_RECORD_MMAP2 7/7: [0x400000(0x10000) @ 0x1000 "
		       "<abcdef0123000000000000000000000000000000>]: r-xp /bin/prog\n"
		       "    7 PERF_RECORD_MMAP2 7/7: [0x7f0000000000(0x2000) @ 0 08:01 1234 5]: "
		       "r-xp /lib/libx.so\n"
		       "    7 " BR1 "\n"
		       "    7 " BR3 "\n"
		       "    7 \n");
	free(t);
}

static void test_fields(void)
{
	unsigned f = 0;
	CHECK(spgo_perf_script_fields("tid,ip,brstack,pid", &f) == 0);
	CHECK_EQ_U64(f, SPGO_PERF_SCRIPT_IP | SPGO_PERF_SCRIPT_BRSTACK | SPGO_PERF_SCRIPT_PID |
				SPGO_PERF_SCRIPT_TID);
	CHECK(spgo_perf_script_fields("", &f) == 0);
	CHECK_EQ_U64(f, 0);
	CHECK(spgo_perf_script_fields("ip,sym", &f) < 0);
	CHECK_STREQ(spgo_errmsg(), "field 'sym' is not supported (ip, brstack, pid, tid)");
	/* no fields: one empty line per sample */
	struct spgo_perf_script_opts o = {.fields = 0};
	char *t = print(&o);
	REQUIRE(t);
	CHECK_STREQ(t, "\n\n\n");
	free(t);
}

static void test_errors(void)
{
	struct spgo_perf_script_opts o = {.fields = SPGO_PERF_SCRIPT_AUTO};
	char *bad = xasprintf("%s/none.data", dir);
	CHECK(spgo_perf_script(bad, stdout, &o) < 0);
	CHECK(strstr(spgo_errmsg(), "none.data") != NULL);
	free(bad);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	data = xasprintf("%s/script.data", dir);
	if (make_data(data) < 0) {
		fprintf(stderr, "cannot write %s: %s\n", data, spgo_errmsg());
		return 1;
	}
	RUN(test_default_fields);
	RUN(test_raw_stacks);
	RUN(test_mmap_events);
	RUN(test_fields);
	RUN(test_errors);
	if (!getenv("SPGO_KEEP")) {
		unlink(data);
		rmdir(dir);
	}
	free(data);
	DONE();
}
