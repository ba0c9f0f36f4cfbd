/*
 * The emulator's conversion (spgo/emulate.h), in-process: a trace written
 * here as the QEMU plugin writes it (src/emulate/trace.h) becomes a
 * perf.data that spgo's reader reads back with the sample, its branch
 * stack and call chain, and the MMAP2 of the program; the statistics count
 * samples, threads, children and the exit code; a cut trace is an error
 * naming the offset and leaves no file.  An AArch64 guest's trace, in
 * BRBE's shape, says aarch64 in HEADER_ARCH and gives the records their
 * branch type and privilege; AMD's shapes have no call chains.
 */
#include "harness.h"
#include "emulate/trace.h"
#include "spgo/common.h"
#include "spgo/emulate.h"
#include "spgo/perf.h"

static char dir[] = "/tmp/spgo-test-emulate-XXXXXX";

/* Append a record (size rounded up to 8) to f. */
static void put(FILE *f, void *rec, size_t size)
{
	static const char zero[8];
	size_t pad = (size + 7) & ~(size_t)7;
	((struct emu_rec *)rec)->size = (uint32_t)pad;
	fwrite(rec, 1, size, f);
	fwrite(zero, 1, pad - size, f);
}

/* A trace: start, a thread, a fork, one sample, exit(5); cut after
 * cut bytes when cut is not 0; the guest's e_machine is machine.
 * Returns its path. */
static char *write_trace_of(const char *name, long cut, unsigned machine)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w+");
	uint64_t magic = EMU_TRACE_MAGIC;
	fwrite(&magic, 8, 1, f);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	struct emu_start *s = xcalloc(1, sizeof *s + strlen(exe) + 1);
	s->h = (struct emu_rec){EMU_REC_START, 0, 1000, 42, 42};
	s->start_code = 0x555555554000 + 0x1000; /* the bias plus the text segment's vaddr, roughly */
	s->entry_code = 0x7ffff7fe0000;
	s->e_machine = machine;
	strcpy(s->path, exe);
	put(f, s, sizeof *s + strlen(exe) + 1);
	free(s);
	struct emu_thread t = {{EMU_REC_THREAD, 0, 1100, 42, 43}, 42, 42};
	put(f, &t, sizeof t);
	struct emu_child c = {{EMU_REC_CHILD, 0, 1150, 42, 42}, 0, 0};
	put(f, &c, sizeof c);
	/* a sample with one stack entry and one branch: the flexible array
	 * member filled in a buffer of its own (a struct holding it would be a
	 * GNU extension) */
	uint64_t sbuf[(sizeof(struct emu_sample) + 4 * sizeof(uint64_t) + 7) / 8];
	struct emu_sample *smp = (struct emu_sample *)sbuf;
	*smp = (struct emu_sample){{EMU_REC_SAMPLE, 0, 1200, 42, 43}, 0x555555555100, 20011, 1, 1};
	smp->data[0] = 0x555555555200, smp->data[1] = 0x555555555050, smp->data[2] = 0x555555555100;
	smp->data[3] = EMU_CLS_JUMP;
	put(f, smp, sizeof *smp + 4 * sizeof(uint64_t));
	struct emu_exit e = {{EMU_REC_EXIT, 0, 1300, 42, 42}, 5, 0};
	put(f, &e, sizeof e);
	fflush(f);
	if (cut && ftruncate(fileno(f), cut) != 0)
		perror("ftruncate");
	fclose(f);
	return path;
}

static char *write_trace(const char *name, long cut)
{
	return write_trace_of(name, cut, 62 /* EM_X86_64 */);
}

static void test_convert(void)
{
	char *trace = write_trace("trace", 0), *out = xasprintf("%s/perf.data", dir);
	struct spgo_emu_options o = {.output = out, .period = 20011, .lbr = 32, .max_stack = 127};
	char *argv[] = {"spgo", "emulate", "--", "prog"};
	struct spgo_emu_stats st;
	REQUIRE(spgo_emu_convert(&o, trace, NULL, 4, argv, &st) == 0);
	CHECK_EQ_U64(st.samples, 1);
	CHECK_EQ_U64(st.threads, 2);
	CHECK_EQ_U64(st.forks, 1);
	CHECK_EQ_U64(st.execs, 0);
	CHECK(st.exited && st.exit_code == 5);
	CHECK(st.bytes > 0);
	struct spgo_perf_reader *r;
	REQUIRE(spgo_perf_open(&r, out, 0) == 0);
	struct spgo_perf_record rec;
	int samples = 0, mmaps = 0, forks = 0;
	while (spgo_perf_next(r, &rec) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE) {
			samples++;
			CHECK_EQ_U64(rec.sample.ip, 0x555555555100);
			CHECK_EQ_U64(rec.sample.tid, 43);
			CHECK_EQ_U64(rec.sample.branch_nr, 1);
			CHECK_EQ_U64(rec.sample.branches[0].from, 0x555555555050);
			CHECK_EQ_U64(rec.sample.branches[0].to, 0x555555555100);
			/* PERF_CONTEXT_USER, the ip, the return address */
			CHECK_EQ_U64(rec.sample.callchain_nr, 3);
			CHECK_EQ_U64(rec.sample.callchain[2], 0x555555555200);
		}
		mmaps += rec.type == PERF_RECORD_MMAP2;
		forks += rec.type == PERF_RECORD_FORK;
	}
	CHECK_EQ_U64(samples, 1);
	CHECK(mmaps >= 1);
	CHECK_EQ_U64(forks, 1);
	CHECK_STREQ(spgo_perf_cmdline(r), "spgo emulate -- prog");
	spgo_perf_close(r);
	unlink(out);
	unlink(trace);
	free(trace);
	free(out);
}

/* The shape's fields: BRBE's type and privilege on an AArch64 guest,
 * no call chain in AMD's. */
static void test_shapes(void)
{
	static const struct {
		enum spgo_emu_shape shape;
		unsigned machine;
		const char *arch;
		int chain;
	} cases[] = {
		{SPGO_EMU_SHAPE_BRBE, 183, "aarch64", 1},
		{SPGO_EMU_SHAPE_BRS, 62, "x86_64", 0},
		{SPGO_EMU_SHAPE_AMD_LBR, 62, "x86_64", 0},
	};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(cases); i++) {
		char *trace = write_trace_of("shape", 0, cases[i].machine), *out = xasprintf("%s/shape.data", dir);
		struct spgo_emu_options o = {.output = out, .period = 20011, .max_stack = 127, .shape = cases[i].shape};
		char *argv[] = {"spgo"};
		REQUIRE(spgo_emu_convert(&o, trace, NULL, 1, argv, NULL) == 0);
		struct spgo_perf_reader *r;
		REQUIRE(spgo_perf_open(&r, out, 0) == 0);
		uint64_t off;
		CHECK_STREQ(spgo_perf_arch(r, &off), cases[i].arch);
		struct spgo_perf_record rec;
		int samples = 0;
		while (spgo_perf_next(r, &rec) > 0) {
			if (rec.type != PERF_RECORD_SAMPLE)
				continue;
			samples++;
			CHECK_EQ_U64(rec.sample.branch_nr, 1);
			CHECK_EQ_U64(rec.sample.callchain_nr, cases[i].chain ? 3 : 0);
			const struct perf_branch_entry *b = &rec.sample.branches[0];
			if (cases[i].shape == SPGO_EMU_SHAPE_BRBE) {
				CHECK_EQ_U64(b->type, PERF_BR_UNCOND);
				CHECK_EQ_U64(b->priv, PERF_BR_PRIV_USER);
			} else {
				CHECK_EQ_U64(b->type, PERF_BR_UNKNOWN);
				CHECK_EQ_U64(b->predicted, cases[i].shape == SPGO_EMU_SHAPE_AMD_LBR);
				CHECK_EQ_U64(b->spec, cases[i].shape == SPGO_EMU_SHAPE_AMD_LBR ? PERF_BR_NON_SPEC_CORRECT_PATH : 0);
			}
		}
		CHECK_EQ_U64(samples, 1);
		spgo_perf_close(r);
		unlink(out);
		unlink(trace);
		free(trace);
		free(out);
	}
	/* settling: the shape of the other ISA is refused */
	struct spgo_emu_options o = {.shape = SPGO_EMU_SHAPE_BRBE};
	CHECK(spgo_emu_settle(&o, 62) < 0);
	o = (struct spgo_emu_options){.shape = SPGO_EMU_SHAPE_BRS};
	CHECK(spgo_emu_settle(&o, 183) < 0);
	o = (struct spgo_emu_options){.wrong_path = -1};
	CHECK(spgo_emu_settle(&o, 183) == 0);
	CHECK(o.shape == SPGO_EMU_SHAPE_BRBE && o.lbr == 64 && o.wrong_path == 0 && o.sysroot);
}

static void test_cut_trace(void)
{
	char *trace = write_trace("cut", 8 + 100), *out = xasprintf("%s/cut.data", dir);
	struct spgo_emu_options o = {.output = out, .period = 20011, .lbr = 32, .max_stack = 127};
	char *argv[] = {"spgo"};
	CHECK(spgo_emu_convert(&o, trace, NULL, 1, argv, NULL) < 0);
	CHECK(strstr(spgo_errmsg(), "cut: offset 0x") != NULL);
	CHECK(access(out, F_OK) != 0);
	unlink(trace);
	free(trace);
	free(out);
}

static void test_which(void)
{
	char *p = spgo_emu_which("sh");
	CHECK(p && p[0] == '/' && strstr(p, "/sh"));
	free(p);
	p = spgo_emu_which("./relative/prog");
	CHECK_STREQ(p, "./relative/prog");
	free(p);
	CHECK(spgo_emu_which("no-such-program-here") == NULL);
	CHECK(strstr(spgo_errmsg(), "command not found") != NULL);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_convert);
	RUN(test_shapes);
	RUN(test_cut_trace);
	RUN(test_which);
	rmdir(dir);
	DONE();
}
