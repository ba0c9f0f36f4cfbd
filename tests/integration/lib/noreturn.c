/*
 * Calls that end their function: finish() never returns, so clang ends
 * driver() with the call to it (and, driver() then never returning either,
 * main() with the call to driver()).  The return address each call pushes
 * lies past its function's last byte: in the alignment padding, or at the
 * next function.  Used by gen_cs_noreturn.sh.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

__attribute__((noinline)) static unsigned mix(unsigned x)
{
	for (int k = 0; k < 50; k++)
		x = x * 1103515245u + 12345u;
	return x;
}

__attribute__((noinline, noreturn)) void finish(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += mix(i);
	printf("%u\n", s);
	exit(0);
}

__attribute__((noinline)) void driver(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s ^= mix(i + 7);
	sink = s;
	finish(n);
}

int main(int argc, char **argv)
{
	driver(argc > 1 ? (unsigned)atoi(argv[1]) : 100000);
}
