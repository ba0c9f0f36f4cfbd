/*
 * The program of tests/integration/stale_carry_agree.sh: the OLD build.
 * hot's loop runs look-alike blocks (T: the same code, taken one time in
 * four) around its call of fc, thirty of them after it (some 90 probe
 * ids), then B: a block of other code, almost never taken, at the end of
 * the loop.  The test makes NEW by inserting a
 * block at the marker INS (the checksum changes, the ids after it move),
 * giving A (a T, as hot as the others) B's code, and deleting B.  A's code
 * is then that of one block left unpaired on each side: NEW's A and OLD's
 * B, far apart in id.  Paired by that code alone, A carries B's count
 * (about 0) where the fresh profile has some 4800: hot weight carried to
 * zero.  The pairs around A say otherwise (their delta sends A to OLD's
 * A, of other code), and B is further than 64 ids from where they say:
 * neighbour agreement leaves A to them.
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
		/*INS*/
		T(0x00300000u, 1)
		/*A*/T(0x00c00000u, 2)
		T(0x03000000u, 3)
		s += fc(x);
		T(0x00000003u, 4) T(0x00000006u, 5) T(0x0000000cu, 6) T(0x00000018u, 7)
		T(0x00000030u, 8) T(0x00000060u, 9) T(0x000000c0u, 10) T(0x00000180u, 11)
		T(0x00000300u, 12) T(0x00000600u, 13) T(0x00000c00u, 14) T(0x00001800u, 15)
		T(0x00003000u, 16) T(0x00006000u, 17) T(0x0000c000u, 18) T(0x00018000u, 19)
		T(0x00030000u, 20) T(0x00060000u, 21) T(0x000c0000u, 22) T(0x00180000u, 23)
		T(0x00300000u, 24) T(0x00600000u, 25) T(0x00c00000u, 26) T(0x01800000u, 27)
		T(0x03000000u, 28) T(0x06000000u, 29) T(0x0c000000u, 30) T(0x18000000u, 31)
		T(0x30000000u, 32) T(0x60000000u, 33)
		/*B*/if (s > 0xfffff000u) { sink = x * 3u; s -= x >> 5; }
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
