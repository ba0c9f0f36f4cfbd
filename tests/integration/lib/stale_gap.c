/*
 * The program of tests/integration/stale_carry_gap.sh: the OLD build.
 * hot's loop runs a row of 22 look-alike blocks between its calls of fb
 * and fc: the same code (`and`, `cmp`, a branch; the store and the xor),
 * masks of two or three bits, taken one time in four or in eight, in no
 * repeating order.  No block of the row has a hash of its own, and the
 * row is too long to be paired on all its hashes.  The test makes NEW by
 * inserting, at the marker line, one block of other code near the start
 * of the row: every block after it moves by one block's probes, and those
 * nearer fb than fc take fb's delta, a look-alike of other odds.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

__attribute__((noinline)) unsigned fb(unsigned x) { return x ^ (x >> 3); }
__attribute__((noinline)) unsigned fc(unsigned x) { return x + 17; }

#define T(m, k)                         \
	if ((x & (m)) == (m)) {         \
		sink = s;               \
		s ^= x + (k);           \
	}

__attribute__((noinline)) unsigned hot(unsigned x, int n)
{
	unsigned s = fb(x);
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		s += fb(x);
		T(0x00300000u, 1) T(0x00e00000u, 2)
		/*INS*/
		T(0x01c00000u, 3) T(0x01800000u, 4) T(0x03000000u, 5) T(0x06000000u, 6)
		T(0x1c000000u, 7) T(0x00003000u, 8) T(0x0000e000u, 9) T(0x0001c000u, 10)
		T(0x00038000u, 11) T(0x00030000u, 12) T(0x00060000u, 13) T(0x001c0000u, 14)
		T(0x00180000u, 15) T(0x00000300u, 16) T(0x00000e00u, 17) T(0x00001c00u, 18)
		T(0x00001800u, 19) T(0x00000070u, 20) T(0x00000060u, 21) T(0x000000c0u, 22)
		s += fc(x);
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
