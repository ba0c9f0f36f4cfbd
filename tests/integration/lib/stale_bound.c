/*
 * The program of tests/integration/stale_carry_bound.sh: the OLD build.
 * In hot's loop, a region that (almost) never runs: three blocks, each a
 * store and a rare branch, none taken in OLD's run; after it, every
 * iteration calls fc.  The test makes two NEW builds by inverting the
 * region's condition (it then runs at every iteration but one in 65536)
 * and moving the call of fc into it (marker lines): the call is placed by
 * its anchor (every iteration), the three blocks on the only way to it
 * by their code (OLD's blocks, at 0), or, where the test also changes
 * their code, by a guess (the nearer delta: the same blocks, at 0).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink, sink2;

__attribute__((noinline)) unsigned fb(unsigned x) { return x ^ (x >> 3); }
__attribute__((noinline)) unsigned fc(unsigned x) { return x + 17; }

__attribute__((noinline)) unsigned hot(unsigned x, int n)
{
	unsigned s = fb(x);
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		s += fb(x);
		if ((x & 0xffff0000) == 0xffff0000) {
			sink = s;
			if ((x & 0x7000) == 0x7000) { sink2 = x; s -= x >> 4; }
			sink2 = s ^ x;
			if ((x & 0x0700) == 0x0700) { sink = x + 1; s += x >> 6; }
			sink = s - x;
			if ((x & 0x0070) == 0x0070) { sink2 = x + 3; s += x >> 7; }
			/*CALL*/
		}
		s += fc(x); /*OUT*/
		if ((x & 0x1800) != 0) { sink = x; s -= x << 2; }
	}
	return s + fc(s);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	unsigned acc = 1;
	for (int r = 0; r < n; r++)
		acc += hot(acc + (unsigned)r, 64);
	printf("%u\n", acc);
	return 0;
}
