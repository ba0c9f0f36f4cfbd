/* The ELF identity of a binary: segments, build-id, kind, mapping. */
#include <elf.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"

static void test_gzip_binary(void)
{
	const char *shared = test_shared();
	if (!shared)
		return;
	char *path = xasprintf("%s/data/autofdo-gzip/test.binary", shared);
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, path, NULL) == 0);
	CHECK(spgo_binary_kind(bin) == SPGO_ELF_EXEC);
	CHECK(spgo_binary_machine(bin) == EM_X86_64);
	size_t n;
	const struct spgo_segment *segs = spgo_binary_segments(bin, &n);
	REQUIRE(n >= 1);
	CHECK_EQ_U64(segs[0].vaddr, 0x400000);
	CHECK(segs[0].flags & PF_X);
	uint64_t va;
	/* Non-PIE: runtime address == file address when mapped at 0x400000. */
	CHECK(spgo_segments_map(segs, n, 0x400000, 0, 0x401234, &va) == 0);
	CHECK_EQ_U64(va, 0x401234);
	spgo_binary_close(bin);
	free(path);
}

static void test_lld_like_layout(void)
{
	/* An lld layout: the text segment's p_vaddr - p_offset is 0x1000 more
	 * than its p_offset.  A PIE mapped at 0x5555_0000_0000 with the text
	 * mapping at file offset 0x1000. */
	struct spgo_segment segs[] = {
		{0x0, 0x0, 0x800, 0x800, 0x1000, PF_R},
		{0x1800, 0x800, 0x2000, 0x2000, 0x1000, PF_R | PF_X},
	};
	uint64_t va;
	uint64_t start = 0x555500001000ULL; /* mapping of file page 0 .. */
	CHECK(spgo_segments_map(segs, 2, start, 0x0, start + 0x900, &va) == 0);
	CHECK_EQ_U64(va, 0x1900);
	CHECK(spgo_segments_map(segs, 2, start, 0x0, start + 0x100, &va) < 0); /* not executable */
}

static void test_aarch64_layouts(void)
{
	/* lld's AArch64 PIE: a read-only PT_LOAD at 0, then the text at
	 * p_vaddr 0x108c0, p_offset 0x8c0, both aligned for 64 KiB pages.
	 * The kernel maps the text's page (file offset 0) at base + 0x10000,
	 * with 4 KiB and with 64 KiB pages alike. */
	struct spgo_segment lld[] = {
		{0x0, 0x0, 0x898, 0x898, 0x10000, PF_R},
		{0x108c0, 0x8c0, 0x5d0, 0x5d0, 0x10000, PF_R | PF_X},
	};
	uint64_t va, base = 0xaaaab0000000ULL;
	CHECK(spgo_segments_map(lld, 2, base + 0x10000, 0x0, base + 0x109e8, &va) == 0);
	CHECK_EQ_U64(va, 0x109e8);
	CHECK(spgo_segments_map(lld, 2, base + 0x10000, 0x0, base + 0x10100, &va) < 0); /* the R bytes */
	/* GNU ld's: one R+X PT_LOAD at 0 from file offset 0. */
	struct spgo_segment bfd[] = {
		{0x0, 0x0, 0xdb4, 0xdb4, 0x10000, PF_R | PF_X},
		{0x1fdb8, 0xfdb8, 0x290, 0x298, 0x10000, PF_R | PF_W},
	};
	CHECK(spgo_segments_map(bfd, 2, base, 0x0, base + 0x7a0, &va) == 0);
	CHECK_EQ_U64(va, 0x7a0);
}

static void test_not_elf(void)
{
	struct spgo_binary *bin;
	char path[] = "/tmp/spgo-notelf-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, "hello, not an ELF\n", 18) == 18);
	close(fd);
	CHECK(spgo_binary_open(&bin, path, NULL) < 0);
	unlink(path);
	CHECK(strstr(spgo_errmsg(), "not an ELF file") != NULL);
	CHECK(spgo_binary_open(&bin, "/nonexistent", NULL) < 0);
}

int main(void)
{
	RUN(test_gzip_binary);
	RUN(test_lld_like_layout);
	RUN(test_aarch64_layouts);
	RUN(test_not_elf);
	DONE();
}
