/*
 * kperf: a perf.data of a system-wide capture, made from a text spec on
 * stdin with spgo's writer (spgo/perf_write.h), for the kernel tests
 * (tests/integration/gen_kernel.sh).  One event, LBR samples:
 *
 *   event NAME EXCLUDE_USER EXCLUDE_KERNEL   (first line)
 *   mmap2 PID k|u START LEN PGOFF PROT NAME  (k: misc KERNEL, as perf writes
 *   mmap  PID k|u START LEN PGOFF NAME        the kernel's and modules')
 *   buildid PID k|u HEX NAME                 (the build-id table)
 *   sample PID k|u IP FROM/TO...             (newest branch first)
 *
 * PID -1 is written as perf writes it (0xffffffff); numbers in hex (0x) or
 * decimal.  Exits 1 with a message on a bad line.  `kperf OUT REPEAT`
 * writes the samples REPEAT times over (bench: a big capture of a few
 * distinct samples).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"
#include "spgo/perf_write.h"

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static int mmap_rec(struct spgo_perf_writer *w, int v2, char **f, int n)
{
	if (n < (v2 ? 8 : 7))
		return -1;
	const char *name = f[v2 ? 7 : 6];
	size_t nl = strlen(name) + 1, fixed = v2 ? 8 + 4 * 2 + 3 * 8 + 2 * 4 + 2 * 8 + 2 * 4 : 8 + 2 * 4 + 3 * 8;
	size_t size = (fixed + nl + 7) & ~(size_t)7;
	uint8_t *r = calloc(1, size);
	struct perf_event_header h = {v2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP,
				      f[2][0] == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
				      (uint16_t)size};
	memcpy(r, &h, 8);
	uint32_t pid = (uint32_t)strtol(f[1], NULL, 0);
	uint64_t q[3] = {num(f[3]), num(f[4]), num(f[5])};
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &pid, 4);
	memcpy(r + 16, q, 24);
	size_t at = 40;
	if (v2) {
		at += 24; /* maj, min, ino, ino_generation: 0 */
		uint32_t prot = (uint32_t)num(f[6]), flags = 2; /* MAP_PRIVATE */
		memcpy(r + at, &prot, 4);
		memcpy(r + at + 4, &flags, 4);
		at += 8;
	}
	memcpy(r + at, name, nl);
	int rc = spgo_pw_record(w, (const struct perf_event_header *)r);
	free(r);
	return rc;
}

static int hexbytes(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	for (; s[0] && s[1] && n < max; s += 2) {
		unsigned v;
		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
	}
	return (int)n;
}

/* One line of the spec; 0, or -1 (spgo_error) on a bad or failed one. */
static int handle(struct spgo_perf_writer *w, char *line, int *attr)
{
	static struct perf_branch_entry br[64];
	char *f[80];
	int n = 0;
	for (char *t = strtok(line, " \t\n"); t && n < 80; t = strtok(NULL, " \t\n"))
		f[n++] = t;
	if (!n || f[0][0] == '#')
		return 0;
	if (!strcmp(f[0], "event") && n == 4 && *attr < 0) {
		struct perf_event_attr a = {0};
		a.type = PERF_TYPE_RAW;
		a.size = PERF_ATTR_SIZE_VER5;
		a.config = 0xc4;
		a.sample_period = 500009;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
		a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
		a.exclude_user = f[2][0] == '1';
		a.exclude_kernel = f[3][0] == '1';
		return (*attr = spgo_pw_add_attr(w, &a, f[1], NULL, 0)) < 0 ? -1 : 0;
	}
	if (!strcmp(f[0], "mmap2") || !strcmp(f[0], "mmap"))
		return mmap_rec(w, f[0][4] == '2', f, n);
	if (!strcmp(f[0], "buildid") && n == 5) {
		uint8_t id[20];
		int len = hexbytes(f[3], id, sizeof id);
		return len < 0 ? -1 : spgo_pw_build_id(w, (int32_t)strtol(f[1], NULL, 0),
							f[2][0] == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
							id, (size_t)len, f[4]);
	}
	if (!strcmp(f[0], "sample") && n >= 4 && n - 4 <= 64 && *attr >= 0) {
		struct spgo_pw_sample s = {0};
		s.pid = s.tid = (uint32_t)strtol(f[1], NULL, 0);
		s.misc = f[2][0] == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		s.ip = num(f[3]);
		s.period = 500009;
		memset(br, 0, sizeof br);
		for (int i = 4; i < n; i++) {
			char *slash = strchr(f[i], '/');
			if (!slash)
				return -1;
			br[i - 4].from = num(f[i]);
			br[i - 4].to = num(slash + 1);
		}
		s.branches = br;
		s.nr_branches = (uint64_t)(n - 4);
		return spgo_pw_sample(w, *attr, &s);
	}
	return spgo_error("not a spec line");
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: kperf OUT.data [REPEAT] < spec\n");
		return 2;
	}
	unsigned long repeat = argc == 3 ? strtoul(argv[2], NULL, 0) : 1;
	struct spgo_perf_writer *w;
	if (spgo_pw_open(&w, argv[1]) < 0) {
		fprintf(stderr, "kperf: %s\n", spgo_errmsg());
		return 1;
	}
	static char line[65536];
	unsigned long ln = 0;
	int attr = -1;
	VEC(char *) again = {0};
	while (fgets(line, sizeof line, stdin)) {
		ln++;
		if (repeat > 1 && !strncmp(line, "sample ", 7))
			VEC_PUSH(&again, xstrdup(line));
		if (handle(w, line, &attr) < 0) {
			fprintf(stderr, "kperf: line %lu: bad or failed: %s\n", ln, spgo_errmsg());
			spgo_pw_abort(w);
			return 1;
		}
	}
	for (unsigned long r = 1; r < repeat; r++) /* the samples over again */
		for (size_t i = 0; i < again.n; i++) {
			snprintf(line, sizeof line, "%s", again.v[i]);
			if (handle(w, line, &attr) < 0) {
				fprintf(stderr, "kperf: %s\n", spgo_errmsg());
				spgo_pw_abort(w);
				return 1;
			}
		}
	for (size_t i = 0; i < again.n; i++)
		free(again.v[i]);
	VEC_FREE(&again);
	spgo_pw_feature_string(w, SPGO_PW_FEAT_ARCH, "x86_64");
	if (spgo_pw_commit(w) < 0) {
		fprintf(stderr, "kperf: %s\n", spgo_errmsg());
		return 1;
	}
	return 0;
}
