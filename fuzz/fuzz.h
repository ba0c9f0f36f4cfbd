/*
 * fuzz.h: what the harnesses of fuzz/ share.  Each harness defines
 * LLVMFuzzerTestOneInput(); it is built twice: with libFuzzer (clang-19
 * -fsanitize=fuzzer, `make fuzz`) and with replay.c's main(), which runs
 * it on files and folders of inputs (the seed corpora and every input that
 * ever crashed, replayed by `make check` under ASan+UBSan).
 *
 * Most readers of spgo take a path: fuzz_path() puts the input in a memory
 * file (memfd) and names it "/proc/self/fd/N", so no disk is touched.
 */
#ifndef SPGO_FUZZ_H
#define SPGO_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spgo/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file: the same memfd every call, truncated and rewritten. */
static inline const char *fuzz_path(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz-input", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		spgo_quiet = 1; /* warnings are expected; only crashes matter */
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("fuzz input");
		abort();
	}
	return path;
}

#endif
