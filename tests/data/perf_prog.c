/* A small CPU-bound program for the perf tests: two leaf functions called
 * from a loop, so samples land in known functions.  Built as a program or,
 * with -DAS_LIB, as a shared library whose work() the main program calls. */
#include <stdio.h>
#include <stdlib.h>

#ifndef USE_LIB
__attribute__((noinline)) unsigned long leaf_a(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long leaf_b(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x ^= (x << 13) ^ (x >> 7) ^ (unsigned long)i;
	return x;
}

__attribute__((noinline)) unsigned long work(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = (i & 1) ? leaf_a(x) : leaf_b(x);
	return x;
}
#endif

#ifndef AS_LIB
#ifdef USE_LIB
unsigned long lib_work(unsigned long x, int n);
#define WORK lib_work
#else
#define WORK work
#endif
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	printf("%lu\n", WORK(1, n) & 1);
	return 0;
}
#else
unsigned long lib_work(unsigned long x, int n)
{
	return work(x, n);
}
#endif
