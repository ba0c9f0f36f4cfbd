/* rep.c: rep-prefixed string instructions, which QEMU runs as one block
 * execution per iteration; ground truth must still equal callgrind's counts
 * (n + 1 for a count of n) and conserve flow through the 'X' self-edges. */
#include <stdio.h>

char a[1000], b[1000];

int main(void)
{
	for (int j = 0; j < 10; j++) {
		void *d = a, *s = b;
		unsigned long n = 100 + (unsigned long)j * 7;
		__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n)::"memory");
	}
	printf("%d\n", a[0]);
	return 0;
}
