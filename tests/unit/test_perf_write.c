/*
 * Unit tests of the perf.data writer (spgo/perf_write.h): the file layout
 * perf reads (header, attrs, data size, feature table), record encoding,
 * and refusals.  That perf itself reads the output is tested by
 * tests/integration/emulate_perf.sh.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"

static char dir[] = "/tmp/spgo-test-pw-XXXXXX";

static uint64_t u64_at(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t u32_at(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static struct perf_event_attr sample_attr(void)
{
	struct perf_event_attr a = {0};
	a.size = PERF_ATTR_SIZE_VER7;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	a.sample_id_all = 1;
	return a;
}

static void test_layout(void)
{
	char *path = xasprintf("%s/a.data", dir);
	struct spgo_perf_writer *w;
	REQUIRE(spgo_pw_open(&w, path) == 0);
	struct perf_event_attr a = sample_attr();
	REQUIRE(spgo_pw_add_attr(w, &a, "branches:u", NULL, 0) == 0);
	struct spgo_pw_sample_id sid = {.pid = 7, .tid = 8, .time = 99};
	CHECK(spgo_pw_comm(w, 7, 7, "prog", 1, &sid) == 0);
	uint8_t bid[20] = {0xab, 0xcd};
	struct spgo_pw_mmap2 m = {.pid = 7, .tid = 7, .start = 0x400000, .len = 0x1000,
				  .pgoff = 0, .prot = 5, .flags = 2, .build_id = bid,
				  .build_id_len = 20, .filename = "/bin/prog"};
	CHECK(spgo_pw_mmap2(w, &m, &sid) == 0);
	uint64_t chain[3] = {PERF_CONTEXT_USER, 0x401000, 0x401234};
	struct perf_branch_entry br[2] = {{.from = 0x401010, .to = 0x401000},
					  {.from = 0x401100, .to = 0x401008}};
	struct spgo_pw_sample s = {.ip = 0x401000, .pid = 7, .tid = 8, .time = 100, .period = 1000,
				   .callchain = chain, .nr_callchain = 3, .branches = br,
				   .nr_branches = 2};
	CHECK(spgo_pw_sample(w, 0, &s) == 0);
	CHECK(spgo_pw_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 20, "/bin/prog") == 0);
	CHECK(spgo_pw_feature_string(w, SPGO_PW_FEAT_HOSTNAME, "host") == 0);
	REQUIRE(spgo_pw_commit(w) == 0);

	struct spgo_file f;
	REQUIRE(spgo_file_map(&f, path) == 0);
	const uint8_t *d = f.data;
	CHECK_EQ_U64(u64_at(d), 0x32454c4946524550ULL); /* PERFILE2 */
	CHECK_EQ_U64(u64_at(d + 8), 104);
	CHECK_EQ_U64(u64_at(d + 16), PERF_ATTR_SIZE_VER7 + 16);
	uint64_t attrs_off = u64_at(d + 24), attrs_size = u64_at(d + 32);
	uint64_t data_off = u64_at(d + 40), data_size = u64_at(d + 48);
	CHECK_EQ_U64(attrs_size, PERF_ATTR_SIZE_VER7 + 16);
	CHECK_EQ_U64(attrs_off + attrs_size, data_off);
	CHECK_EQ_U64(u32_at(d + attrs_off + 4), PERF_ATTR_SIZE_VER7); /* attr.size */
	/* Records: COMM (8 + 8 + 8 name + 16 trailer), MMAP2, SAMPLE. */
	const uint8_t *r = d + data_off;
	CHECK_EQ_U64(u32_at(r), PERF_RECORD_COMM);
	uint16_t sz;
	memcpy(&sz, r + 6, 2);
	CHECK_EQ_U64(sz, 8 + 8 + 8 + 16);
	CHECK_EQ_U64(u64_at(r + sz - 8), 99); /* trailer: time */
	r += sz;
	CHECK_EQ_U64(u32_at(r), PERF_RECORD_MMAP2);
	uint16_t misc;
	memcpy(&misc, r + 4, 2);
	CHECK(misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	CHECK_EQ_U64(r[8 + 8 + 24], 20); /* build_id_size after pid,tid,start,len,pgoff */
	memcpy(&sz, r + 6, 2);
	r += sz;
	CHECK_EQ_U64(u32_at(r), PERF_RECORD_SAMPLE);
	memcpy(&sz, r + 6, 2);
	/* header, ip, pid/tid, time, period, nr + 3 ips, nr + 2 * 24 */
	CHECK_EQ_U64(sz, 8 + 8 + 8 + 8 + 8 + 8 + 24 + 8 + 48);
	CHECK_EQ_U64(u64_at(r + 8), 0x401000);
	CHECK_EQ_U64(u64_at(r + 40), 3);
	CHECK_EQ_U64(u64_at(r + 48), PERF_CONTEXT_USER);
	CHECK_EQ_U64(u64_at(r + 72), 2);
	CHECK_EQ_U64(u64_at(r + 80), 0x401010);
	r += sz;
	CHECK_EQ_U64((uint64_t)(r - d), data_off + data_size);
	/* Features: BUILD_ID, HOSTNAME, EVENT_DESC set; table right after data. */
	uint64_t feat0 = u64_at(d + 72);
	CHECK(feat0 & (1ULL << SPGO_PW_FEAT_BUILD_ID));
	CHECK(feat0 & (1ULL << SPGO_PW_FEAT_HOSTNAME));
	CHECK(feat0 & (1ULL << SPGO_PW_FEAT_EVENT_DESC));
	const uint8_t *tab = d + data_off + data_size;
	uint64_t bid_off = u64_at(tab), bid_size = u64_at(tab + 8);
	CHECK(bid_size == 8 + 4 + 24 + 64);
	CHECK_EQ_U64(d[bid_off + 12], 0xab);
	CHECK_STREQ((const char *)d + bid_off + 36, "/bin/prog");
	uint64_t host_off = u64_at(tab + 16);
	CHECK_EQ_U64(u32_at(d + host_off), 64);
	CHECK_STREQ((const char *)d + host_off + 4, "host");
	spgo_file_unmap(&f);
	unlink(path);
	free(path);
}

static void test_refusals(void)
{
	struct spgo_perf_writer *w;
	CHECK(spgo_pw_open(&w, "-") < 0);
	CHECK(strstr(spgo_errmsg(), "stdout") != NULL);

	char *path = xasprintf("%s/b.data", dir);
	REQUIRE(spgo_pw_open(&w, path) == 0);
	struct perf_event_attr a = sample_attr();
	a.sample_type |= PERF_SAMPLE_REGS_USER;
	REQUIRE(spgo_pw_add_attr(w, &a, NULL, NULL, 0) == 0);
	struct spgo_pw_sample s = {.ip = 1};
	CHECK(spgo_pw_sample(w, 0, &s) < 0);
	CHECK(strstr(spgo_errmsg(), "cannot encode") != NULL);
	CHECK(spgo_pw_add_attr(w, &a, NULL, NULL, 0) < 0); /* after a record */
	CHECK(spgo_pw_sample(w, 3, &s) < 0);
	spgo_pw_abort(w);
	struct stat st;
	CHECK(stat(path, &st) != 0); /* nothing left behind */

	/* A raw record copied through, with a bad size refused. */
	REQUIRE(spgo_pw_open(&w, path) == 0);
	a = sample_attr();
	REQUIRE(spgo_pw_add_attr(w, &a, NULL, NULL, 0) == 0);
	struct {
		struct perf_event_header h;
		uint64_t x;
	} rec = {{.type = 68 /* FINISHED_ROUND-like */, .size = 12}, 0};
	CHECK(spgo_pw_record(w, &rec.h) < 0);
	rec.h.size = 16;
	CHECK(spgo_pw_record(w, &rec.h) == 0);
	CHECK(spgo_pw_commit(w) == 0);
	CHECK(stat(path, &st) == 0);
	unlink(path);
	free(path);
}

/* Two attrs with sample ids, as a rewrite of a multi-event perf.data has:
 * each attr's ids section points at its own ids. */
static void test_ids(void)
{
	char *path = xasprintf("%s/c.data", dir);
	struct spgo_perf_writer *w;
	REQUIRE(spgo_pw_open(&w, path) == 0);
	struct perf_event_attr a = sample_attr();
	a.sample_type |= PERF_SAMPLE_IDENTIFIER;
	uint64_t ids1[2] = {11, 12}, ids2[1] = {21};
	REQUIRE(spgo_pw_add_attr(w, &a, "a", ids1, 2) == 0);
	REQUIRE(spgo_pw_add_attr(w, &a, "b", ids2, 1) == 1);
	struct spgo_pw_sample s = {.ip = 5, .id = 21};
	CHECK(spgo_pw_sample(w, 1, &s) == 0);
	REQUIRE(spgo_pw_commit(w) == 0);
	struct spgo_file f;
	REQUIRE(spgo_file_map(&f, path) == 0);
	const uint8_t *d = f.data;
	uint64_t attr_size = u64_at(d + 16), attrs_off = u64_at(d + 24);
	CHECK_EQ_U64(u64_at(d + 32), 2 * attr_size);
	for (int i = 0; i < 2; i++) {
		const uint8_t *fa = d + attrs_off + i * attr_size;
		uint64_t ioff = u64_at(fa + attr_size - 16), isz = u64_at(fa + attr_size - 8);
		CHECK_EQ_U64(isz, i == 0 ? 16 : 8);
		CHECK_EQ_U64(u64_at(d + ioff), i == 0 ? 11 : 21);
	}
	const uint8_t *r = d + u64_at(d + 40);
	CHECK_EQ_U64(u64_at(r + 8), 21); /* IDENTIFIER comes first */
	CHECK_EQ_U64(u64_at(r + 16), 5);
	spgo_file_unmap(&f);
	unlink(path);
	free(path);
}

/*
 * A perf.data truncated in place while it is read (#25): the reader maps it,
 * and a read of the lost tail was a SIGBUS that killed spgo and left its
 * temporary outputs.  Now the run ends as an error: exit status 1, "PATH:
 * truncated while reading (offset N)", no temporary file left.  In a child
 * process, which the fault ends; touch = 0 reads through the perf reader,
 * 1 touches a spgo_file_map() mapping directly.
 */
static void truncated_while_reading(const char *path, int touch)
{
	char *err = xasprintf("%s/err", dir), *out = xasprintf("%s/out", dir);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		struct spgo_out o; /* pending: the fault must remove it */
		if (spgo_out_open(&o, out) < 0)
			_exit(4);
		struct spgo_perf_reader *r = NULL;
		struct spgo_file f;
		if (touch ? spgo_file_map(&f, path) < 0 : spgo_perf_open(&r, path, 0) < 0)
			_exit(5);
		if (truncate(path, 4096) != 0)
			_exit(6);
		if (touch) {
			volatile uint8_t last = f.data[f.size - 1];
			(void)last;
			_exit(3);
		}
		struct spgo_perf_record rec;
		int rc;
		while ((rc = spgo_perf_next(r, &rec)) > 0)
			;
		_exit(rc < 0 ? 2 : 3); /* 2: a clean error, 3: read to the end */
	}
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ_U64(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 1);
	struct spgo_file e;
	REQUIRE(spgo_file_map(&e, err) == 0);
	char *msg = xcalloc(1, e.size + 1);
	memcpy(msg, e.data, e.size);
	char *want = xasprintf("spgo: %s: truncated while reading (offset ", path);
	CHECK(strstr(msg, want) == msg);
	spgo_file_unmap(&e);
	DIR *d = opendir(dir);
	REQUIRE(d);
	int left = 0;
	for (struct dirent *de; (de = readdir(d));)
		left += strncmp(de->d_name, "out", 3) == 0;
	closedir(d);
	CHECK_EQ_U64(left, 0);
	unlink(err);
	free(msg), free(want), free(err), free(out);
}

static void test_truncated_while_reading(void)
{
	char *path = xasprintf("%s/big.data", dir);
	for (int touch = 0; touch < 2; touch++) {
		struct spgo_perf_writer *w;
		REQUIRE(spgo_pw_open(&w, path) == 0);
		struct perf_event_attr a = sample_attr();
		REQUIRE(spgo_pw_add_attr(w, &a, "branches:u", NULL, 0) == 0);
		uint64_t chain[3] = {PERF_CONTEXT_USER, 0x401000, 0x401234};
		for (uint64_t i = 0; i < 4000; i++) { /* about 300 KB */
			struct spgo_pw_sample s = {.ip = 0x401000 + i, .pid = 7, .tid = 7, .time = i,
						   .period = 1000, .callchain = chain, .nr_callchain = 3};
			REQUIRE(spgo_pw_sample(w, 0, &s) == 0);
		}
		REQUIRE(spgo_pw_commit(w) == 0);
		truncated_while_reading(path, touch);
		unlink(path);
	}
	free(path);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_layout);
	RUN(test_refusals);
	RUN(test_ids);
	RUN(test_truncated_while_reading);
	rmdir(dir);
	DONE();
}
