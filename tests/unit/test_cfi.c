/*
 * test_cfi.c: the call frame information of a binary as src/binary reads
 * it for src/gen/gen_icall.c (spgo_cfi_open, spgo_cfi_cfa): at the first
 * instruction of every x86-64 function the return address was just pushed,
 * so the CFA is the stack pointer (DWARF register 7) + 8.  The binary is
 * this test program itself.
 */
#include <elf.h>

#include "harness.h"
#include "spgo/binary.h"
#include "spgo/common.h"

static void test_cfa_at_function_entry(void)
{
	struct spgo_binary *bin;
	REQUIRE(spgo_binary_open(&bin, "/proc/self/exe", NULL) == 0);
	if (spgo_binary_machine(bin) != EM_X86_64) {
		printf("skip: not x86-64\n");
		spgo_binary_close(bin);
		return;
	}
	struct spgo_cfi *cfi = spgo_cfi_open(bin);
	REQUIRE(cfi != NULL);
	size_t n, with_cfi = 0;
	const struct spgo_function *fs = spgo_binary_functions(bin, &n);
	for (size_t i = 0; i < n; i++) {
		unsigned reg = 99;
		int64_t off = -1;
		if (fs[i].parent >= 0 || spgo_cfi_cfa(cfi, fs[i].start, &reg, &off) < 0)
			continue;
		with_cfi++;
		CHECK(reg == 7 && off == 8);
	}
	CHECK(with_cfi >= 3); /* main and the test functions at least */
	spgo_cfi_close(cfi);
	spgo_binary_close(bin);
}

int main(void)
{
	RUN(test_cfa_at_function_entry);
	DONE();
}
