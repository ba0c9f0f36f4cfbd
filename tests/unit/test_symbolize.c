/*
 * The binary model's lookups and its bad-input errors, in-process so they
 * also run under ASan+UBSan: inline frames, functions, symbols and
 * instructions of the GCC 4.6 gzip binary (values checked against
 * llvm-symbolizer-19 and llvm-objdump-19) and of this test program itself;
 * truncated, non-ELF, debug-less and non-x86-64 files.
 */
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"

/* Write n bytes of data to a fresh temporary file; returns its path. */
static char *temp_file(const void *data, size_t n)
{
	char *path = xstrdup("/tmp/spgo-test-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || (n && write(fd, data, n) != (ssize_t)n)) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* The bytes of this test program. */
static struct spgo_file self;

static void test_base_discriminator(void)
{
	CHECK_EQ_U64(spgo_base_discriminator(0), 0);
	CHECK_EQ_U64(spgo_base_discriminator(1), 0); /* low bit set: no base */
	CHECK_EQ_U64(spgo_base_discriminator(2), 1);
	CHECK_EQ_U64(spgo_base_discriminator(4), 2);
	CHECK_EQ_U64(spgo_base_discriminator(2 * 31), 31);
	/* Two-part prefix encoding: bit 0x20 of the shifted value set. */
	CHECK_EQ_U64(spgo_base_discriminator((0x20u | 0x40u | 0x3u) << 1), 0x20 | 0x3);
	/* Pseudo-probe encoded (LLVM 19): the probe index, or the DWARF base
	 * kept in [18:16] when bit 28 says so. */
	CHECK_EQ_U64(spgo_base_discriminator(7u | (5u << 3)), 5);
	CHECK_EQ_U64(spgo_base_discriminator(7u | (0x1234u << 3) | (3u << 29)), 0x1234); /* attributes ignored */
	CHECK_EQ_U64(spgo_base_discriminator((1u << 28) | (2u << 16) | 7u | (5u << 3)), 2);
	/* Values clang-19 wrote on direct calls of a probe build: id 8 and 2,
	 * DWARF base 0 kept, factor 100, type 2. */
	struct spgo_disc d;
	spgo_disc_decode(0x1b200047u, SPGO_DISC_LLVM, &d);
	CHECK(d.is_probe);
	CHECK_EQ_U64(d.probe_id, 8);
	CHECK_EQ_U64(d.probe_dwarf_base, 0);
	CHECK_EQ_U64(d.probe_factor, 100);
	CHECK_EQ_U64(d.probe_type, 2);
	CHECK_EQ_U64(d.base, 0);
	spgo_disc_decode(0x1b200017u, SPGO_DISC_LLVM, &d);
	CHECK_EQ_U64(d.probe_id, 2);
	/* FS discriminators and gcc: the raw value, factor 1. */
	spgo_disc_decode(10752, SPGO_DISC_LLVM_FS, &d);
	CHECK_EQ_U64(d.base, 10752);
	CHECK_EQ_U64(d.dup_factor, 1);
	spgo_disc_decode(2 | (8 << 7), SPGO_DISC_GCC, &d);
	CHECK_EQ_U64(d.base, 2 | (8 << 7));
	CHECK_EQ_U64(d.dup_factor, 1);
	CHECK(!d.is_probe);
	/* LLVM: base 1, duplication factor 4, copy id 3. */
	spgo_disc_decode(2u | (8u << 7) | (6u << 14), SPGO_DISC_LLVM, &d);
	CHECK_EQ_U64(d.base, 1);
	CHECK_EQ_U64(d.dup_factor, 4);
	CHECK_EQ_U64(d.copy_id, 3);
}

static void test_gzip(void)
{
	if (!test_shared())
		return;
	char *path = xasprintf("%s/data/autofdo-gzip/test.binary", test_shared());
	struct spgo_binary *bin;
	if (access(path, R_OK) != 0) {
		free(path);
		return;
	}
	REQUIRE(spgo_binary_open(&bin, path, NULL) == 0);
	CHECK(spgo_binary_check_machine(bin) == 0);

	/* llvm-symbolizer-19 --inlines --functions=linkage --verbose 0x40616a */
	struct spgo_frame f[8];
	int n = spgo_binary_symbolize(bin, 0x40616a, f, 8);
	REQUIRE(n == 3);
	CHECK_STREQ(f[0].function, "decode_p");
	CHECK(strstr(f[0].file, "/164.gzip/run/00000001/unlzh.c") != NULL);
	CHECK_EQ_U64(f[0].line, 314);
	CHECK_EQ_U64(f[0].decl_line, 300);
	CHECK_EQ_U64(f[0].discriminator, 1);
	CHECK(f[0].inlined);
	CHECK_STREQ(f[1].function, "decode");
	CHECK_EQ_U64(f[1].line, 371);
	CHECK_EQ_U64(f[1].decl_line, 339);
	CHECK(f[1].inlined);
	CHECK_STREQ(f[2].function, "unlzh");
	CHECK_EQ_U64(f[2].line, 395);
	CHECK_EQ_U64(f[2].decl_line, 385);
	CHECK(!f[2].inlined);
	/* The call sites repeat the caller frames' locations. */
	CHECK_EQ_U64(f[0].call_line, 371);
	CHECK_EQ_U64(f[1].call_line, 395);
	CHECK_EQ_U64(f[2].call_line, 0);
	/* Fewer slots than frames: the count is still the full depth. */
	CHECK(spgo_binary_symbolize(bin, 0x40616a, f, 1) == 3);
	CHECK_STREQ(f[0].function, "decode_p");
	/* Outside all code. */
	CHECK(spgo_binary_symbolize(bin, 0x10, f, 8) == 0);

	/* Sections: .text holds main; .debug_line (in the binary itself). */
	uint64_t saddr;
	size_t ssize;
	const uint8_t *text = spgo_binary_section(bin, ".text", &saddr, &ssize);
	REQUIRE(text != NULL);
	CHECK(saddr <= 0x400b80 && 0x400b80 < saddr + ssize);
	CHECK(spgo_binary_section(bin, ".debug_line", &saddr, &ssize) != NULL && ssize > 0);
	CHECK(spgo_binary_section(bin, ".no_such_section", &saddr, &ssize) == NULL && ssize == 0);

	/* Symbols and functions. */
	const struct spgo_symbol *s = spgo_binary_symbol_at(bin, 0x400b80 + 3);
	REQUIRE(s != NULL);
	CHECK_STREQ(s->name, "main");
	size_t nf;
	const struct spgo_function *fn = spgo_binary_functions(bin, &nf);
	REQUIRE(nf > 50);
	for (size_t i = 1; i < nf; i++)
		CHECK(fn[i - 1].end <= fn[i].start);
	const struct spgo_function *m = spgo_binary_function_at(bin, 0x400b80 + 3);
	REQUIRE(m != NULL);
	CHECK_STREQ(m->name, "main");
	CHECK_EQ_U64(m->start, 0x400b80);
	CHECK(m->has_debug);
	CHECK(m->decl_line > 0);
	const struct spgo_function *u = spgo_binary_function_at(bin, 0x40616a);
	REQUIRE(u != NULL);
	CHECK_STREQ(u->name, "unlzh");

	/* Instructions: sorted, each found by address, classes sane; and every
	 * address symbolizes without error. */
	size_t ni;
	const struct spgo_insn *in = spgo_binary_insns(bin, &ni);
	REQUIRE(ni == 7789); /* llvm-objdump-19 -d lists 7789 */
	size_t calls = 0, rets = 0, with_frames = 0;
	for (size_t i = 0; i < ni; i++) {
		if (i)
			CHECK(in[i - 1].addr + in[i - 1].size <= in[i].addr);
		CHECK(spgo_binary_insn_at(bin, in[i].addr) == &in[i]);
		calls += in[i].cls == SPGO_INSN_CALL;
		rets += in[i].cls == SPGO_INSN_RETURN;
		if (in[i].cls == SPGO_INSN_CALL)
			CHECK(in[i].target != 0);
		int k = spgo_binary_symbolize(bin, in[i].addr, f, 8);
		CHECK(k >= 0);
		with_frames += k > 0;
	}
	CHECK(calls > 100);
	CHECK(rets > 50);
	CHECK(with_frames > ni / 2);
	CHECK(spgo_binary_insn_at(bin, in[0].addr + 1) == NULL || in[0].size == 1);
	spgo_binary_close(bin);
	free(path);
}

int self_marker(int x);
static const unsigned self_marker_line = __LINE__ + 1;
__attribute__((noinline)) int self_marker(int x)
{
	return x * 3 + 1;
}

static void test_self(void)
{
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, "/proc/self/exe", NULL) == 0);
	size_t ns;
	const struct spgo_symbol *syms = spgo_binary_symbols(bin, &ns);
	uint64_t addr = 0;
	for (size_t i = 0; i < ns; i++)
		if (!strcmp(syms[i].name, "self_marker"))
			addr = syms[i].addr;
	REQUIRE(addr != 0);
	struct spgo_frame f[16];
	int n = spgo_binary_symbolize(bin, addr, f, 16);
	REQUIRE(n >= 1);
	CHECK_STREQ(f[n - 1].function, "self_marker");
	CHECK(f[n - 1].file && strstr(f[n - 1].file, "tests/unit/test_symbolize.c"));
	CHECK_EQ_U64(f[n - 1].decl_line, self_marker_line);
	const struct spgo_function *fn = spgo_binary_function_at(bin, addr);
	REQUIRE(fn != NULL);
	CHECK_STREQ(fn->name, "self_marker");
	CHECK_EQ_U64(fn->decl_line, self_marker_line);
	CHECK(spgo_binary_insn_at(bin, addr) != NULL);
	CHECK(self_marker(1) == 4);
	spgo_binary_close(bin);
}

/* Frames a and b the same (the fields spgo symbolize prints). */
static int same_frames(const struct spgo_frame *a, int na, const struct spgo_frame *b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na && i < 8; i++)
		if (a[i].function != b[i].function || a[i].file != b[i].file || a[i].line != b[i].line ||
		    a[i].column != b[i].column || a[i].discriminator != b[i].discriminator)
			return 0;
	return 1;
}

/*
 * spgo_binary_symbolize_until / spgo_binary_symbol_at_until on this
 * program: every byte address in [addr, until) has the answer of addr, and
 * lookups through a cursor (two, interleaved, starting anywhere) answer as
 * the binary's own hint does.
 */
static void test_until(void)
{
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, "/proc/self/exe", NULL) == 0);
	REQUIRE(spgo_binary_load_debug(bin) == 0);
	size_t ni, ns;
	const struct spgo_insn *in = spgo_binary_insns(bin, &ni);
	spgo_binary_symbols(bin, &ns);
	REQUIRE(ni > 1000);
	struct spgo_cursor c[2] = {{0}};
	struct spgo_frame f[8], g[8];
	size_t runs = 0, checked = 0;
	for (size_t i = 0; i < ni && i < 20000; i += 7) {
		uint64_t a = in[i].addr, until, sym_until, u2;
		int n = spgo_binary_symbolize_until(bin, &c[i & 1], a, f, 8, &until);
		const struct spgo_symbol *s = spgo_binary_symbol_at_until(bin, &c[i & 1], a, &sym_until);
		CHECK(until > a);
		CHECK(sym_until > a);
		int m = spgo_binary_symbolize(bin, a, g, 8);
		CHECK(same_frames(f, n, g, m));
		CHECK(spgo_binary_symbol_at(bin, a) == s);
		runs += until - a > 1;
		for (uint64_t b = a + 1; b < until && b < a + 64; b++, checked++) {
			m = spgo_binary_symbolize_until(bin, &c[!(i & 1)], b, g, 8, &u2);
			CHECK(same_frames(f, n, g, m));
			CHECK(u2 == until);
		}
		for (uint64_t b = a + 1; b < sym_until && b < a + 64; b++)
			CHECK(spgo_binary_symbol_at(bin, b) == s);
	}
	CHECK(runs > 100);
	CHECK(checked > 1000);
	spgo_binary_close(bin);
}

static void test_not_elf(void)
{
	struct spgo_binary *bin = NULL;
	char *p = temp_file("#!/bin/sh\necho hello\n", 21);
	REQUIRE(p);
	CHECK(spgo_binary_open(&bin, p, NULL) < 0);
	CHECK(bin == NULL);
	CHECK(strstr(spgo_errmsg(), p) && strstr(spgo_errmsg(), "not an ELF file"));
	unlink(p);
	free(p);
	p = temp_file("", 0);
	REQUIRE(p);
	CHECK(spgo_binary_open(&bin, p, NULL) < 0);
	CHECK(strstr(spgo_errmsg(), "not an ELF file"));
	unlink(p);
	free(p);
}

static void test_truncated(void)
{
	REQUIRE(self.size > 4096);
	size_t cuts[] = {20, 64, 1000, self.size / 2, self.size - 1};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(cuts); i++) {
		char *p = temp_file(self.data, cuts[i]);
		REQUIRE(p);
		struct spgo_binary *bin = NULL;
		CHECK(spgo_binary_open(&bin, p, NULL) < 0);
		CHECK(bin == NULL);
		CHECK(strstr(spgo_errmsg(), p) && strstr(spgo_errmsg(), "truncated ELF file"));
		if (bin)
			spgo_binary_close(bin);
		unlink(p);
		free(p);
	}
}

static void test_no_debug_info(void)
{
	/* A bare ELF header: an x86-64 executable with no sections at all. */
	Elf64_Ehdr eh = {0};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof eh;
	char *p = temp_file(&eh, sizeof eh);
	REQUIRE(p);
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, p, NULL) == 0);
	CHECK(spgo_binary_check_machine(bin) == 0);
	struct spgo_frame f[4];
	CHECK(spgo_binary_symbolize(bin, 0x401000, f, 4) < 0);
	CHECK(strstr(spgo_errmsg(), p) && strstr(spgo_errmsg(), "no debug info"));
	/* Reported again on the next call, not forgotten. */
	CHECK(spgo_binary_symbolize(bin, 0x401000, f, 4) < 0);
	CHECK(strstr(spgo_errmsg(), "no debug info"));
	size_t n = 1;
	spgo_binary_functions(bin, &n);
	CHECK_EQ_U64(n, 0);
	spgo_binary_insns(bin, &n);
	CHECK_EQ_U64(n, 0);
	CHECK(spgo_binary_symbol_at(bin, 0x401000) == NULL);
	spgo_binary_close(bin);
	/* A debug file that is not ELF. */
	REQUIRE(spgo_binary_open(&bin, "/proc/self/exe", p) == 0);
	spgo_binary_close(bin);
	char *q = temp_file("junk", 4);
	REQUIRE(q);
	REQUIRE(spgo_binary_open(&bin, "/proc/self/exe", q) == 0);
	CHECK(spgo_binary_symbolize(bin, 0x1000, f, 4) < 0);
	CHECK(strstr(spgo_errmsg(), q) != NULL);
	spgo_binary_close(bin);
	unlink(q);
	free(q);
	unlink(p);
	free(p);
}

static void test_other_machine(void)
{
	/* This program with e_machine patched to AArch64 (accepted: its
	 * decoder runs over x86 bytes without trouble) and to RISC-V (refused,
	 * naming the file and the machine). */
	uint16_t machines[] = {EM_AARCH64, EM_RISCV};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(machines); i++) {
		uint8_t *copy = xmalloc(self.size);
		memcpy(copy, self.data, self.size);
		memcpy(copy + offsetof(Elf64_Ehdr, e_machine), &machines[i], 2);
		char *p = temp_file(copy, self.size);
		free(copy);
		REQUIRE(p);
		struct spgo_binary *bin;
		REQUIRE(spgo_binary_open(&bin, p, NULL) == 0);
		CHECK(spgo_binary_machine(bin) == machines[i]);
		if (machines[i] == EM_AARCH64) {
			CHECK(spgo_binary_check_machine(bin) == 0);
			const struct spgo_arch_regs *r = spgo_binary_arch_regs(bin);
			CHECK(r && r->perf_sp == 31 && r->perf_lr == 30 && r->ra_cfa_offset == 0);
			CHECK(spgo_binary_perf_reg(bin, 29) == 29 && spgo_binary_perf_reg(bin, 32) == -1);
			/* Every word is listed (AArch64 is fixed-width). */
			size_t n;
			const struct spgo_insn *v = spgo_binary_insns(bin, &n);
			CHECK(n > 0);
			for (size_t k = 0; k < n; k++)
				if (v[k].size != 4) {
					CHECK(!"an AArch64 instruction is one word");
					break;
				}
		} else {
			CHECK(spgo_binary_check_machine(bin) < 0);
			CHECK(strstr(spgo_errmsg(), p) && strstr(spgo_errmsg(), "unsupported machine"));
			CHECK(strstr(spgo_errmsg(), "RISC-V") != NULL);
			CHECK(spgo_binary_arch_regs(bin) == NULL);
			size_t n;
			spgo_binary_insns(bin, &n);
		}
		spgo_binary_close(bin);
		unlink(p);
		free(p);
	}
}

int main(void)
{
	if (spgo_file_map(&self, "/proc/self/exe") < 0) {
		fprintf(stderr, "%s\n", spgo_errmsg());
		return 1;
	}
	RUN(test_base_discriminator);
	RUN(test_gzip);
	RUN(test_self);
	RUN(test_until);
	RUN(test_not_elf);
	RUN(test_truncated);
	RUN(test_no_debug_info);
	RUN(test_other_machine);
	spgo_file_unmap(&self);
	DONE();
}
