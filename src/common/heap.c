/*
 * spgo_heap_reserve: grow malloc's heap once, in transparent huge pages.
 *
 * Loading the DWARF of a large binary makes libdw allocate a node per line
 * row and then a sorted copy of them, tens of megabytes in small blocks;
 * with 4 KiB pages every new page of the heap costs a page fault, about a
 * seventh of the CPU time of `spgo symbolize` on a large binary.  glibc can
 * put its heap in huge pages (the glibc.malloc.hugetlb tunable) but only
 * when asked through the environment before the program starts; this does
 * the same from inside: make malloc's next growth of the heap (sbrk) big,
 * and advise the kernel to back that range with 2 MiB pages, for every
 * thread (one malloc arena).  Where the kernel does not do THP on request
 * (transparent_hugepage=never) or malloc is not glibc's sbrk heap
 * (sanitizers), the advice fails or is skipped and nothing changes but the
 * heap's growth step.
 */
#include "spgo/common.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

void spgo_heap_reserve(size_t bytes)
{
	if (bytes > (size_t)1 << 30)
		bytes = (size_t)1 << 30;
	/* Large tables come from the heap too (not separate mmaps, which
	 * fault 4 KiB at a time), and freed memory is kept for reuse. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * bytes));
	mallopt(M_TOP_PAD, (int)bytes);
	/* One arena: other threads' blocks come from this heap too, instead
	 * of a heap of their own in 4 KiB pages. */
	mallopt(M_ARENA_MAX, 1);
	/* A block that does not fit in the heap's free top makes malloc grow
	 * the heap by it plus the pad: [p, sbrk(0)) is then free memory. */
	char *p = malloc(1 << 20);
	char *top = sbrk(0);
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t hi = (uintptr_t)top & ~(HUGE_PAGE - 1);
	/* Only when p really lies just below the program break. */
	if (p && (uintptr_t)p < (uintptr_t)top && (uintptr_t)top - (uintptr_t)p <= bytes + (2u << 20) && lo < hi)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(p);
}
