/*
 * Unit tests of the perf.data reader: decoding the real LBR capture, and
 * fuzz-ish robustness (truncations at many offsets, random byte flips) on it
 * and on files perf records here (call stacks, zstd-compressed, pipe mode).
 * Run under ASan+UBSan by `make check`: any out-of-bounds read is a failure;
 * every run must end in records, a warning, or an error, never a crash.
 */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/aggregate.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_record.h"

static char tmpdir[] = "/tmp/spgo-test-perf-XXXXXX";

/* Read every record; touch every decoded field.  Returns the record count,
 * or -1 after an error (which must carry a message). */
static long consume(const char *path, struct spgo_aggregate *agg, uint64_t *sum)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	struct spgo_perf_machine *m = spgo_perf_machine_new();
	if (agg)
		spgo_agg_begin(agg, r);
	struct spgo_perf_record rec;
	long n = 0;
	int rc;
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		n++;
		spgo_perf_machine_feed(m, &rec);
		if (agg)
			spgo_agg_feed(agg, &rec);
		const struct spgo_perf_sample *s = &rec.sample;
		*sum += s->ip + s->time;
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			*sum += s->callchain[i];
			spgo_perf_machine_find(m, s->pid, PERF_RECORD_MISC_USER, s->callchain[i]);
		}
		for (uint64_t i = 0; i < s->branch_nr; i++)
			*sum += s->branches[i].from ^ s->branches[i].to;
		for (uint32_t i = 0; i < s->raw_size; i++)
			*sum += s->raw[i];
		if (rec.type == PERF_RECORD_MMAP || rec.type == PERF_RECORD_MMAP2)
			*sum += strlen(rec.u.mmap.filename);
	}
	if (agg)
		spgo_agg_finish(agg);
	spgo_perf_machine_free(m);
	spgo_perf_close(r);
	return rc < 0 ? -1 : n;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return NULL;
	uint8_t *b = xmalloc(f.size + 1);
	memcpy(b, f.data, f.size);
	*n = f.size;
	spgo_file_unmap(&f);
	return b;
}

static void put(const char *path, const uint8_t *b, size_t n)
{
	FILE *fp = fopen(path, "wb");
	fwrite(b, 1, n, fp);
	fclose(fp);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Truncate at `cuts` offsets and flip bytes `flips` times; count outcomes. */
static void fuzz(const char *name, const uint8_t *b, size_t n, int cuts, int flips,
		 const char *binary)
{
	char *path = xasprintf("%s/fuzz.data", tmpdir);
	uint8_t *w = xmalloc(n);
	int ok = 0, errs = 0, silent_errs = 0;
	uint64_t sum = 0;
	spgo_quiet = 1;
	for (int i = 0; i < cuts + flips; i++) {
		size_t len = n;
		memcpy(w, b, n);
		if (i < cuts) {
			len = (size_t)((double)n * i / cuts) + (next_rand() % 8);
			if (len > n)
				len = n;
		} else {
			int k = 1 + (int)(next_rand() % 4);
			for (int j = 0; j < k; j++) {
				/* flip in the first 4 KiB half the time: headers */
				size_t at = next_rand() % (j % 2 ? n : (n < 4096 ? n : 4096));
				w[at] ^= (uint8_t)(1 + next_rand() % 255);
			}
		}
		put(path, w, len);
		/* half the runs read the file through read(2), half mapped */
		if (i % 2)
			setenv("SPGO_PERF_NO_MMAP", "1", 1);
		else
			unsetenv("SPGO_PERF_NO_MMAP");
		struct spgo_aggregate *agg = NULL;
		if (binary && spgo_agg_new(&agg, binary, NULL) < 0)
			agg = NULL;
		long rc = consume(path, agg, &sum);
		spgo_agg_free(agg);
		if (rc >= 0) {
			ok++;
		} else {
			errs++;
			if (!strstr(spgo_errmsg(), "fuzz.data"))
				silent_errs++;
		}
	}
	spgo_quiet = 0;
	unsetenv("SPGO_PERF_NO_MMAP");
	printf("%s: %d runs read to the end, %d ended in an error (checksum %llx)\n", name, ok,
	       errs, (unsigned long long)sum);
	CHECK(ok > 0);
	CHECK(errs > 0 || flips == 0);
	CHECK_EQ_U64(silent_errs, 0); /* every error names the file */
	unlink(path);
	free(path);
	free(w);
}

static void test_lbr_decode(void)
{
	const char *sh = test_shared();
	if (!sh)
		return;
	char *path = xasprintf("%s/data/autofdo-gzip/test.lbr", sh);
	if (access(path, R_OK) != 0) {
		free(path);
		return;
	}
	struct spgo_perf_reader *r;
	REQUIRE(spgo_perf_open(&r, path, 0) == 0);
	REQUIRE(spgo_perf_nattrs(r) == 1);
	const struct spgo_perf_attr *a = spgo_perf_attr(r, 0);
	CHECK_EQ_U64(a->attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						  PERF_SAMPLE_BRANCH_STACK);
	CHECK_EQ_U64(a->attr.sample_period, 500000);
	CHECK_EQ_U64(a->nids, 24);
	CHECK_STREQ(a->name, "br_inst_exec:taken");
	CHECK(spgo_perf_cmdline(r) && strstr(spgo_perf_cmdline(r), "perf record -c 500000 -b"));
	struct spgo_perf_record rec;
	uint64_t samples = 0, entries = 0, mmaps = 0, first_ip = 0, first_off = 0;
	while (spgo_perf_next(r, &rec) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE) {
			if (!samples++) {
				first_ip = rec.sample.ip;
				first_off = rec.offset;
			}
			entries += rec.sample.branch_nr;
			CHECK(rec.sample.branch_nr == 16);
		} else if (rec.type == PERF_RECORD_MMAP) {
			if (strstr(rec.u.mmap.filename, "test.binary")) {
				CHECK_EQ_U64(rec.u.mmap.start, 0x400000);
				CHECK_EQ_U64(rec.u.mmap.len, 0xa000);
			}
			mmaps++;
		}
	}
	CHECK_EQ_U64(samples, 9232);
	CHECK_EQ_U64(entries, 9232 * 16);
	CHECK(mmaps > 10);
	CHECK_EQ_U64(first_ip, 0xffffffff8032d7e0ULL);
	CHECK(first_off >= 408); /* data starts at offset 408 */
	spgo_perf_close(r);

	/* Fuzz on the first 256 KiB (the reader takes the cut as truncation). */
	size_t n;
	uint8_t *b = slurp(path, &n);
	REQUIRE(b);
	char *bin = xasprintf("%s/data/autofdo-gzip/test.binary", sh);
	fuzz("test.lbr", b, n < 262144 ? n : 262144, 150, 400, bin);
	free(bin);
	free(b);
	free(path);
}

/* Files recorded here by perf (skipped without a working perf). */
static void test_recorded(void)
{
	char *cmd = xasprintf("cd %s && perf record -q -e cpu-clock -g -z -o gz.data -- "
			      "sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' "
			      ">/dev/null 2>&1 && perf record -q -e cpu-clock -g -o - -- "
			      "sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' "
			      "2>/dev/null > pipe.data",
			      tmpdir);
	int rc = system(cmd);
	free(cmd);
	if (rc != 0) {
		printf("no working perf: recorded-file fuzzing skipped\n");
		return;
	}
	/* user registers and stack (--call-graph dwarf), group reads (:S) and
	 * two events: the sample layouts beyond ip and stack */
	cmd = xasprintf("cd %s && perf record -q -e '{cpu-clock,task-clock}:S' --call-graph "
			"dwarf,1024 -o dwarf.data -- sh -c 'i=0; while [ $i -lt 3000 ]; do "
			"i=$((i+1)); done' >/dev/null 2>&1",
			tmpdir);
	rc = system(cmd);
	free(cmd);
	if (rc == 0) {
		char *p = xasprintf("%s/dwarf.data", tmpdir);
		struct spgo_perf_reader *r;
		REQUIRE(spgo_perf_open(&r, p, SPGO_PERF_ORDERED) == 0);
		CHECK(spgo_perf_nattrs(r) == 2);
		struct spgo_perf_record rec;
		uint64_t with_stack = 0, with_regs = 0, with_read = 0, per_event[2] = {0, 0};
		while (spgo_perf_next(r, &rec) > 0) {
			if (rec.type != PERF_RECORD_SAMPLE)
				continue;
			per_event[rec.attr->index < 2 ? rec.attr->index : 0]++;
			with_stack += rec.sample.stack_user_size > 0;
			with_regs += rec.sample.regs_user_nr > 0;
			with_read += rec.sample.read_words > 0;
		}
		printf("dwarf.data: %llu/%llu samples per event, %llu with user stack, %llu with "
		       "user regs, %llu with read values\n",
		       (unsigned long long)per_event[0], (unsigned long long)per_event[1],
		       (unsigned long long)with_stack, (unsigned long long)with_regs,
		       (unsigned long long)with_read);
		CHECK(per_event[0] > 0); /* group samples come from the leader */
		CHECK(with_stack > 0 && with_regs > 0 && with_read > 0);
		spgo_perf_close(r);
		size_t sz;
		uint8_t *b = slurp(p, &sz);
		REQUIRE(b);
		fuzz("dwarf.data", b, sz < 200000 ? sz : 200000, 100, 200, NULL);
		free(b);
		unlink(p);
		free(p);
	}
	const char *names[] = {"gz.data", "pipe.data"};
	for (int i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s", tmpdir, names[i]);
		uint64_t sum = 0;
		long n = consume(p, NULL, &sum);
		CHECK(n > 10);
		size_t sz;
		uint8_t *b = slurp(p, &sz);
		REQUIRE(b);
		fuzz(names[i], b, sz, 200, 400, NULL);
		free(b);
		unlink(p);
		free(p);
	}
}

static void test_errors(void)
{
	char *p = xasprintf("%s/bad.data", tmpdir);
	put(p, (const uint8_t *)"hello world, not perf data", 26);
	struct spgo_perf_reader *r;
	CHECK(spgo_perf_open(&r, p, 0) < 0);
	CHECK(strstr(spgo_errmsg(), "not a perf.data") != NULL);
	/* the other byte order: a clear refusal */
	put(p, (const uint8_t *)"2ELIFREP\0\0\0\0\0\0\0\x68", 16);
	CHECK(spgo_perf_open(&r, p, 0) < 0);
	CHECK(strstr(spgo_errmsg(), "big-endian") != NULL);
	/* a pipe header and nothing else: no records, no error */
	put(p, (const uint8_t *)"PERFILE2\x10\0\0\0\0\0\0\0", 16);
	REQUIRE(spgo_perf_open(&r, p, 0) == 0);
	struct spgo_perf_record rec;
	CHECK(spgo_perf_next(r, &rec) == 0);
	spgo_perf_close(r);
	unlink(p);
	free(p);
}

/* spgo record's default: the rate first, then runs, within the bounds. */
static void test_rec_plan(void)
{
	struct spgo_rec_plan p;
	double ceil_ = SPGO_REC_RATE_CEILING;
	/* the aim: gen's threshold with the margin of the mode */
	CHECK(spgo_rec_density_aim(0.25, 0) == 0.25 * SPGO_REC_MARGIN_IP);
	CHECK(spgo_rec_density_aim(50, 1) == 50 * SPGO_REC_MARGIN_LBR);
	/* dense enough: nothing more */
	CHECK(spgo_rec_plan_enough(0.9, 4000, 0.5, 100000, &p) == 0);
	CHECK(spgo_rec_plan_enough(0, 4000, 0.5, 100000, &p) == 0);
	/* 13x short: the rate to its ceiling, then runs */
	REQUIRE(spgo_rec_plan_enough(13, 4000, 0.5, 100000, &p) == 1);
	CHECK(p.need == 13);
	double want = 4000 * p.need < ceil_ ? 4000 * p.need : ceil_;
	CHECK(p.rate >= want && p.rate < want + 100);
	CHECK(p.runs >= p.need * 4000 / p.rate && p.runs < p.need * 4000 / p.rate + 1);
	CHECK(p.reach >= p.need);
	CHECK(p.secs > 0.5 * p.runs); /* perf's cost per sample */
	/* a little short: the rate alone, in whole hundreds of Hz */
	REQUIRE(spgo_rec_plan_enough(1.6, 4000, 0.5, 100000, &p) == 1);
	CHECK(p.runs == 1 && p.rate == 6400 && p.reach == 1.6);
	REQUIRE(spgo_rec_plan_enough(1.61, 4000, 0.5, 100000, &p) == 1);
	CHECK(p.runs == 1 && p.rate == 6500);
	/* the kernel's maximum below the ceiling */
	REQUIRE(spgo_rec_plan_enough(130, 4000, 0.5, 8000, &p) == 1);
	CHECK(p.rate == 8000 && p.runs == SPGO_REC_MAX_RUNS && p.reach == 20);
	/* the time bound: runs of 20 s */
	REQUIRE(spgo_rec_plan_enough(130, 4000, 20, 100000, &p) == 1);
	CHECK(p.runs >= 1 && p.runs * 20 < SPGO_REC_MAX_SECONDS && p.secs <= SPGO_REC_MAX_SECONDS);
	/* too long to record again */
	CHECK(spgo_rec_plan_enough(130, 4000, 2 * SPGO_REC_MAX_SECONDS, 100000, &p) == -1);
	CHECK(p.need == 130);
	/* the rate already above the ceiling: runs only, never a lower rate */
	REQUIRE(spgo_rec_plan_enough(2.6, 2 * ceil_, 0.5, 100000, &p) == 1);
	CHECK(p.rate == 2 * ceil_ && p.runs == 3);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(test_errors);
	RUN(test_lbr_decode);
	RUN(test_recorded);
	RUN(test_rec_plan);
	rmdir(tmpdir);
	DONE();
}
