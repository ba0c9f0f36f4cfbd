/*
 * The layout stage counts each distinct LBR entry once, mapped when first
 * seen (the aggregate's memo, src/aggregate/agg_lbr.c, read by
 * src/layout/lbr.c): what an entry mapped to must not outlive the mapping
 * it came from.  A capture maps this program's own code at one
 * address, samples a branch pair there, then maps another file over the
 * same range and samples the same runtime addresses, then maps the program
 * back at another address: BOLT's pre-aggregated profile must count the
 * first and last samples only (in the binary's addresses), never the ones
 * in the other file.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/context.h"
#include "spgo/gen.h"
#include "spgo/layout.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"
#include "spgo/profile.h"

static char dir[] = "/tmp/spgo-test-laylbr-XXXXXX";

/* A copy of this program (the binary profiled). */
static char *copy_self(void)
{
	struct spgo_file self;
	if (spgo_file_map(&self, "/proc/self/exe") < 0)
		return NULL;
	char *path = xasprintf("%s/lbrbin", dir);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(self.data, 1, self.size, f) == self.size;
	ok = f && fclose(f) == 0 && ok;
	spgo_file_unmap(&self);
	if (!ok) {
		free(path);
		return NULL;
	}
	return path;
}

/* A function of at least 64 bytes in an executable segment, and that
 * segment. */
static int pick(struct spgo_binary *bin, uint64_t *fn, const struct spgo_segment **seg)
{
	size_t ns, nseg;
	const struct spgo_symbol *syms = spgo_binary_symbols(bin, &ns);
	const struct spgo_segment *segs = spgo_binary_segments(bin, &nseg);
	for (size_t i = 0; i < ns; i++) {
		if (syms[i].type != STT_FUNC || syms[i].size < 64)
			continue;
		for (size_t k = 0; k < nseg; k++)
			if ((segs[k].flags & PF_X) && syms[i].addr >= segs[k].vaddr &&
			    syms[i].addr + 64 <= segs[k].vaddr + segs[k].filesz) {
				*fn = syms[i].addr;
				*seg = &segs[k];
				return 0;
			}
	}
	return -1;
}

/* n samples of pid 7 with two LBR entries in the function at runtime
 * address f: f+8 -> f+0x10, then f+0x20 -> f+0x30 (newest first). */
static int samples(struct spgo_perf_writer *w, uint64_t f, int n)
{
	struct perf_branch_entry b[2] = {{.from = f + 0x20, .to = f + 0x30}, {.from = f + 0x8, .to = f + 0x10}};
	struct spgo_pw_sample s = {.ip = f + 0x30, .pid = 7, .tid = 7, .period = 1, .branches = b, .nr_branches = 2};
	for (int i = 0; i < n; i++)
		if (spgo_pw_sample(w, 0, &s) < 0)
			return -1;
	return 0;
}

static void test_remapped(void)
{
	char *bin_path = copy_self(), *data = xasprintf("%s/lbr.data", dir), *out = xasprintf("%s/out.pa", dir);
	REQUIRE(bin_path);
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, bin_path, NULL) == 0);
	uint64_t fn = 0;
	const struct spgo_segment *seg = NULL;
	REQUIRE(pick(bin, &fn, &seg) == 0);
	/* mapped whole from offset 0: runtime = base + file offset */
	uint64_t off = fn - seg->vaddr + seg->offset, len = (seg->offset + seg->filesz + 0xfff) & ~0xfffULL;
	uint64_t base1 = 0x7f0000000000, base2 = 0x7e0000000000;

	struct spgo_perf_writer *w;
	REQUIRE(spgo_pw_open(&w, data) == 0);
	struct perf_event_attr a = {0};
	a.size = PERF_ATTR_SIZE_VER7;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	char *mapped_name = xstrdup("/opt/x/lbrbin");
	struct spgo_pw_mmap2 prog = {.pid = 7, .tid = 7, .start = base1, .len = len, .prot = 5, .flags = 2,
				     .filename = mapped_name};
	struct spgo_pw_mmap2 other = {.pid = 7, .tid = 7, .start = base1, .len = len, .prot = 5, .flags = 2,
				      .filename = "/lib/other.so"};
	struct spgo_pw_mmap2 again = {.pid = 7, .tid = 7, .start = base2, .len = len, .prot = 5, .flags = 2,
				      .filename = mapped_name};
	int ok = spgo_pw_add_attr(w, &a, "branches", NULL, 0) == 0 && spgo_pw_mmap2(w, &prog, NULL) == 0 &&
		 samples(w, base1 + off, 3) == 0 && spgo_pw_mmap2(w, &other, NULL) == 0 &&
		 samples(w, base1 + off, 5) == 0 && spgo_pw_mmap2(w, &again, NULL) == 0 &&
		 samples(w, base2 + off, 4) == 0;
	if (!ok)
		spgo_pw_abort(w);
	REQUIRE(ok && spgo_pw_commit(w) == 0);

	struct spgo_layout_job j = {.fmt = SPGO_LAYOUT_BOLT_PA, .binary = bin_path, .perf_data = data,
				    .event = -1, .out = out};
	REQUIRE(spgo_layout_run(&j) == 0);
	struct spgo_file f;
	REQUIRE(spgo_file_map(&f, out) == 0);
	char *text = xstrndup((const char *)f.data, f.size);
	size_t n = f.size;
	spgo_file_unmap(&f);
	/* 3 + 4 samples in the binary; the 5 in other.so are its, not counted
	 * (their branches have both ends outside: no line at all) */
	char *want = xasprintf("B %llx %llx 7 0\nB %llx %llx 7 0\nF %llx %llx 7\n", (unsigned long long)(fn + 8),
			       (unsigned long long)(fn + 0x10), (unsigned long long)(fn + 0x20),
			       (unsigned long long)(fn + 0x30), (unsigned long long)(fn + 0x10),
			       (unsigned long long)(fn + 0x20));
	CHECK(n && !strcmp(text, want));
	if (strcmp(text, want))
		fprintf(stderr, "got:\n%swant:\n%s", text, want);
	free(want);
	free(text);
	free(mapped_name);
	spgo_binary_close(bin);
	unlink(data);
	unlink(out);
	unlink(bin_path);
	free(data);
	free(out);
	free(bin_path);
}

/* A function that begins with 10 instructions that fall through, their
 * offsets o[] (gen checks that the ips and the LBR ranges land on
 * instructions, the ranges on possible ones). */
static int pick_straight(struct spgo_binary *bin, uint64_t *fn, const struct spgo_segment **seg, uint64_t *o)
{
	size_t ns, nseg;
	const struct spgo_symbol *syms = spgo_binary_symbols(bin, &ns);
	const struct spgo_segment *segs = spgo_binary_segments(bin, &nseg);
	for (size_t i = 0; i < ns; i++) {
		if (syms[i].type != STT_FUNC || syms[i].size < 64)
			continue;
		uint64_t at = syms[i].addr;
		int n = 0;
		while (n < 10 && at < syms[i].addr + syms[i].size) {
			const struct spgo_insn *in = spgo_binary_insn_at(bin, at);
			if (!in || !in->size || in->cls != SPGO_INSN_OTHER)
				break;
			o[n++] = at - syms[i].addr;
			at += in->size;
		}
		for (size_t k = 0; n == 10 && k < nseg; k++)
			if ((segs[k].flags & PF_X) && syms[i].addr >= segs[k].vaddr &&
			    syms[i].addr + syms[i].size <= segs[k].vaddr + segs[k].filesz) {
				*fn = syms[i].addr;
				*seg = &segs[k];
				return 0;
			}
	}
	return -1;
}

/* The layout file out, malloc'd ("" when there is none). */
static char *slurp(const char *path)
{
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return xstrdup("");
	char *text = xstrndup((const char *)f.data, f.size);
	spgo_file_unmap(&f);
	return text;
}

/* The pre-aggregated layout of data for the event selected (index, or
 * name; -1 and NULL: none), read alone or with gen's text profile (one
 * read for both, spgo/gen.h's tap), malloc'd, or NULL when it fails. */
static char *layout_of(const char *bin, const char *data, long event, const char *name, int with_gen)
{
	char *out = xasprintf("%s/ev.pa", dir), *prof = xasprintf("%s/ev.txt", dir);
	struct spgo_gen_job g = {.binary = bin, .perf_data = data, .out = prof, .fmt = SPGO_FMT_TEXT, .cs = 0,
				 .cold_count = -1, .cutoff_cold = 999999, .density_cutoff = 990000};
	spgo_gen_defaults(&g.opts);
	spgo_cs_defaults(&g.cs_opts);
	g.opts.event = (int)event;
	g.opts.event_name = name;
	struct spgo_layout_job j = {.fmt = SPGO_LAYOUT_BOLT_PA, .binary = bin, .perf_data = data, .event = event,
				    .event_name = name, .out = out, .gen = with_gen ? &g : NULL};
	char *text = spgo_layout_run(&j) == 0 ? slurp(out) : NULL;
	if (!text)
		fprintf(stderr, "layout: %s\n", spgo_errmsg());
	unlink(out);
	unlink(prof);
	free(out);
	free(prof);
	return text;
}

/*
 * --event selects what the layouts count as it selects what the compiler
 * profile counts.  A capture of three events: "cycles" and "instructions"
 * with branch stacks, at different branches of one function, and
 * "cpu-clock" without.  BOLT's profile of one event holds that event's
 * branches only; of cpu-clock, its IP samples (no branch stacks in it);
 * without --event, every event's branches, as perf2bolt reads them.
 */
static void test_event(void)
{
	char *bin_path = copy_self(), *data = xasprintf("%s/ev.data", dir);
	REQUIRE(bin_path);
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, bin_path, NULL) == 0);
	uint64_t fn = 0;
	const struct spgo_segment *seg = NULL;
	uint64_t o[10];
	REQUIRE(pick_straight(bin, &fn, &seg, o) == 0);
	uint64_t off = fn - seg->vaddr + seg->offset, len = (seg->offset + seg->filesz + 0xfff) & ~0xfffULL;
	uint64_t base = 0x7f0000000000, f = base + off;
	spgo_binary_close(bin);

	struct spgo_perf_writer *w;
	REQUIRE(spgo_pw_open(&w, data) == 0);
	struct perf_event_attr a = {0};
	a.size = PERF_ATTR_SIZE_VER7;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	struct perf_event_attr ins = a, clk = a;
	ins.config = PERF_COUNT_HW_INSTRUCTIONS;
	clk.type = PERF_TYPE_SOFTWARE;
	clk.config = PERF_COUNT_SW_CPU_CLOCK;
	clk.sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
	clk.branch_sample_type = 0;
	uint64_t id_cyc = 101, id_ins = 102, id_clk = 103;
	char *mapped_name = xstrdup("/opt/x/lbrbin");
	struct spgo_pw_mmap2 prog = {.pid = 7, .tid = 7, .start = base, .len = len, .prot = 5, .flags = 2,
				     .filename = mapped_name};
	struct perf_branch_entry bc[2] = {{.from = f + o[5], .to = f + o[7]}, {.from = f + o[1], .to = f + o[3]}};
	struct perf_branch_entry bi[2] = {{.from = f + o[6], .to = f + o[8]}, {.from = f + o[2], .to = f + o[4]}};
	struct spgo_pw_sample sc = {.ip = f + o[7], .pid = 7, .tid = 7, .period = 1, .id = id_cyc,
				    .branches = bc, .nr_branches = 2};
	struct spgo_pw_sample si = sc, sk = {.ip = f + o[9], .pid = 7, .tid = 7, .period = 1, .id = id_clk};
	si.id = id_ins;
	si.ip = f + o[8];
	si.branches = bi;
	int ok = spgo_pw_add_attr(w, &a, "cycles", &id_cyc, 1) == 0 &&
		 spgo_pw_add_attr(w, &ins, "instructions", &id_ins, 1) == 1 &&
		 spgo_pw_add_attr(w, &clk, "cpu-clock", &id_clk, 1) == 2 && spgo_pw_mmap2(w, &prog, NULL) == 0;
	for (int i = 0; ok && i < 3; i++)
		ok = spgo_pw_sample(w, 0, &sc) == 0 && spgo_pw_sample(w, 2, &sk) == 0;
	for (int i = 0; ok && i < 2; i++)
		ok = spgo_pw_sample(w, 1, &si) == 0;
	if (!ok)
		spgo_pw_abort(w);
	REQUIRE(ok && spgo_pw_commit(w) == 0);

#define X(i) (unsigned long long)(fn + o[i])
	char *cyc = xasprintf("B %llx %llx 3 0\nB %llx %llx 3 0\nF %llx %llx 3\n", X(1), X(3), X(5), X(7), X(3),
			      X(5));
	char *insn = xasprintf("B %llx %llx 2 0\nB %llx %llx 2 0\nF %llx %llx 2\n", X(2), X(4), X(6), X(8), X(4),
			       X(6));
	char *all = xasprintf("B %llx %llx 3 0\nB %llx %llx 2 0\nB %llx %llx 3 0\nB %llx %llx 2 0\n"
			      "F %llx %llx 3\nF %llx %llx 2\n",
			      X(1), X(3), X(2), X(4), X(5), X(7), X(6), X(8), X(3), X(5), X(4), X(6));
	char *clock = xasprintf("E cpu-clock\nS %llx 3\n", X(9));
#undef X
	struct {
		long index;
		const char *name;
		const char *want;
	} cases[] = {
		{-1, "instructions", insn}, {0, NULL, cyc}, {-1, "cycles", cyc},
		{-1, "cpu-clock", clock},   {-1, NULL, all},
	};
	for (int with_gen = 0; with_gen < 2; with_gen++)
		for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
			char *text = layout_of(bin_path, data, cases[k].index, cases[k].name, with_gen);
			CHECK(text && !strcmp(text, cases[k].want));
			if (!text || strcmp(text, cases[k].want))
				fprintf(stderr, "event %ld %s%s: got:\n%swant:\n%s", cases[k].index,
					cases[k].name ? cases[k].name : "-", with_gen ? " (with gen)" : "",
					text ? text : "(failed)\n", cases[k].want);
			free(text);
		}
	/* an event the data does not have: an error that names it and lists
	 * the events there, alone as with gen (not a layout of nothing) */
	for (int with_gen = 0; with_gen < 2; with_gen++) {
		char *text = layout_of(bin_path, data, -1, "nosuch", with_gen);
		CHECK(!text);
		CHECK(strstr(spgo_errmsg(), "no samples of event 'nosuch'") &&
		      strstr(spgo_errmsg(), "cycles (index 0)"));
		free(text);
	}
	free(cyc);
	free(insn);
	free(all);
	free(clock);
	free(mapped_name);
	unlink(data);
	unlink(bin_path);
	free(data);
	free(bin_path);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_remapped);
	RUN(test_event);
	rmdir(dir);
	DONE();
}
