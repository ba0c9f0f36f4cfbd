/* gen_cs_preinline_dwarf.sh: mid is only ever a frame of the call stacks
 * (it calls work once, which runs for the whole first phase) and never in
 * an LBR entry; big4025, large, has the smallest MD5 GUID of the functions
 * the samples touch (the first child of llvm-profgen's size trie). */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}

__attribute__((noinline)) long mid(long n)
{
	return work(n) + 1;
}

#define S1(k) sink = sink * (k) + ((x >> ((k) & 15)) ^ (k));
#define S4(k) S1(k) S1(k + 1) S1(k + 2) S1(k + 3)
#define S16(k) S4(k) S4(k + 4) S4(k + 8) S4(k + 12)
#define S64(k) S16(k) S16(k + 16) S16(k + 32) S16(k + 48)

__attribute__((noinline)) long big4025(long x)
{
	for (int r = 0; r < 20; r++) {
		S64(1) S64(65) S64(129)
	}
	return sink;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	long s = mid(n);
	for (long i = 0; i < n / 3000; i++)
		s += big4025(i);
	printf("%ld\n", s);
	return 0;
}
