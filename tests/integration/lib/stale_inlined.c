/*
 * The program of tests/integration/stale_carry_inlined.sh: the OLD build.
 * hot is inlined everywhere (into run, hot, and once, cold): it has no
 * code of its own, only copies in its callers.  The test makes the NEW
 * build by inserting, at the marker line in hot's loop, a branch taken
 * three times in four: a block of new code and the block where the branch
 * joins the loop again (a split block).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

__attribute__((noinline)) unsigned fb(unsigned x) { return x ^ (x >> 3); }
__attribute__((noinline)) unsigned fc(unsigned x) { return x + 17; }

static inline __attribute__((always_inline)) unsigned hot(unsigned x, int n)
{
	unsigned s = fb(x);
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (x & 0x400) { sink = s; s ^= x * 5; }
		s += fc(x);
		/*INS*/
		if ((x & 0x1800) != 0) { sink = x; s -= x << 2; }
		if ((x & 0x6000) == 0) { sink = s; s = s * 3 + (x >> 9); }
	}
	return s + fc(s);
}

__attribute__((noinline)) unsigned once(unsigned x) { return hot(x ^ 5u, 2); }
__attribute__((noinline)) unsigned run(unsigned x, int n) { return hot(x, n); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	unsigned acc = 1;
	for (int r = 0; r < n; r++)
		acc += run(acc + (unsigned)r, 64) + once(acc);
	printf("%u\n", acc);
	return 0;
}
