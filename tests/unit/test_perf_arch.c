/*
 * perf.data of one architecture given a binary of another: the recording
 * machine's HEADER_ARCH (written here with spgo's perf.data writer) is
 * compared with the binary's e_machine when the aggregate begins, and a
 * mismatch (aarch64 capture, x86-64 binary; and the reverse) is an error
 * naming the perf.data, the feature's offset, both architectures and the
 * binary.  A matching file, and one without HEADER_ARCH, read as before.
 */
#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/aggregate.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"

static char dir[] = "/tmp/spgo-test-arch-XXXXXX";

/* A perf.data with one sample and HEADER_ARCH = arch (none if NULL). */
static char *write_data(const char *name, const char *arch)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct spgo_perf_writer *w;
	if (spgo_pw_open(&w, path) < 0)
		return NULL;
	struct perf_event_attr a = {0};
	a.size = PERF_ATTR_SIZE_VER7;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
	if (spgo_pw_add_attr(w, &a, "cycles:u", NULL, 0) < 0)
		goto fail;
	struct spgo_pw_sample s = {0};
	s.ip = 0x401000;
	s.pid = s.tid = 42;
	s.period = 1000;
	s.misc = PERF_RECORD_MISC_USER;
	if (spgo_pw_sample(w, 0, &s) < 0 || (arch && spgo_pw_feature_string(w, SPGO_PW_FEAT_ARCH, arch) < 0) ||
	    spgo_pw_commit(w) < 0)
		goto fail;
	return path;
fail:
	spgo_pw_abort(w);
	free(path);
	return NULL;
}

/* A copy of this program with e_machine set to m. */
static char *binary_as(uint16_t m)
{
	struct spgo_file self;
	if (spgo_file_map(&self, "/proc/self/exe") < 0)
		return NULL;
	char *path = xasprintf("%s/bin-%u", dir, m);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(self.data, 1, self.size, f) == self.size;
	if (f) {
		ok = ok && fseek(f, (long)offsetof(Elf64_Ehdr, e_machine), SEEK_SET) == 0 && fwrite(&m, 2, 1, f) == 1;
		ok = fclose(f) == 0 && ok;
	}
	spgo_file_unmap(&self);
	if (!ok) {
		free(path);
		return NULL;
	}
	return path;
}

/* 0 if the aggregate of bin reads data, else -1 (spgo_errmsg() says why). */
static int read_with(const char *bin, const char *data)
{
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, bin, NULL) < 0)
		return -2;
	int rc = spgo_agg_read_perf(agg, data);
	spgo_agg_free(agg);
	return rc;
}

static void test_arch_mismatch(void)
{
	char *x86 = binary_as(EM_X86_64), *arm = binary_as(EM_AARCH64);
	char *d_arm = write_data("arm.data", "aarch64"), *d_x86 = write_data("x86.data", "x86_64");
	char *d_none = write_data("none.data", NULL);
	REQUIRE(x86 && arm && d_arm && d_x86 && d_none);

	/* The reader sees the feature. */
	struct spgo_perf_reader *r;
	REQUIRE(spgo_perf_open(&r, d_arm, 0) == 0);
	uint64_t off = 0;
	const char *arch = spgo_perf_arch(r, &off);
	CHECK(arch && !strcmp(arch, "aarch64") && off > 0);
	spgo_perf_close(r);

	/* aarch64 capture, x86-64 binary. */
	CHECK(read_with(x86, d_arm) == -1);
	const char *m = spgo_errmsg();
	char *at = xasprintf("offset 0x%llx", (unsigned long long)off);
	CHECK(strstr(m, d_arm) && strstr(m, at) && strstr(m, "recorded on aarch64") && strstr(m, x86) &&
	      strstr(m, "x86-64 binary"));
	free(at);
	/* x86_64 capture, AArch64 binary. */
	CHECK(read_with(arm, d_x86) == -1);
	m = spgo_errmsg();
	CHECK(strstr(m, d_x86) && strstr(m, "recorded on x86_64") && strstr(m, arm) && strstr(m, "AArch64 binary"));
	/* Matching, and without the feature: read. */
	CHECK(read_with(x86, d_x86) == 0);
	CHECK(read_with(arm, d_arm) == 0);
	CHECK(read_with(x86, d_none) == 0);
	CHECK(read_with(arm, d_none) == 0);

	char *all[] = {x86, arm, d_arm, d_x86, d_none};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(all); i++) {
		unlink(all[i]);
		free(all[i]);
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_arch_mismatch);
	rmdir(dir);
	DONE();
}
