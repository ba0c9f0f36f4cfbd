/*
 * The program of tests/integration/stale_carry_probe.sh: the OLD build.
 * The test makes each NEW build by one small edit at a marker comment (a
 * block inserted between two calls of work, a call added to work, the
 * function fa moved to the end of the file, the static function fe's
 * parameter type and body changed, a block inserted in the middle of
 * chain's loop, two of chain's blocks swapped); markers are whole lines
 * or end a line.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

/*MOVE*/__attribute__((noinline)) unsigned fa(unsigned x)
/*MOVE*/{
/*MOVE*/	unsigned r = x * 3 + 1;
/*MOVE*/	if (r & 4)
/*MOVE*/		r ^= r >> 5;
/*MOVE*/	return r;
/*MOVE*/}
__attribute__((noinline)) unsigned fb(unsigned x) { return x ^ (x >> 3); }
__attribute__((noinline)) unsigned fc(unsigned x) { return x + 17; }
__attribute__((noinline)) unsigned fd(unsigned x) { return x * 5 + 3; }
static __attribute__((noinline)) unsigned fe(unsigned x, int k) /*SIG*/
{
	unsigned r = x * 9;
	if (k & 1) /*SIGBODY*/
		r += (unsigned)k;
	return r;
}

__attribute__((noinline)) unsigned work(unsigned x, int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++) {
		if (x & 1)
			s += fa(x);
		else
			s ^= x >> 1;
		/*BLOCK*/
		x = fb(x + s);
		if ((x & 7) == 3)
			s += 5;
		/*CALL*/
		s += fc(s);
		s ^= fe(s, i);
		if ((s & 3) == 1)
			s -= x;
	}
	return s;
}

/* A loop of blocks and no call: its anchors (fb, fc) far from its middle.
 * The blocks are taken at different rates, each does something else. */
__attribute__((noinline)) unsigned chain(unsigned x, int n)
{
	unsigned s = fb(x);
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if ((x & 0x300) == 0x300) { sink = x; s += x >> 3; } /*B1*/
		if (x & 0x400) { sink = s; s ^= x * 5; } /*B2*/
		if ((x & 0x1800) != 0) { sink = x; s -= x << 2; } /*B3*/
		if ((x & 0x6000) == 0) { sink = s; s = s * 3 + (x >> 9); } /*B4*/
		/*INS*/
		if ((x & 0x18000) != 0x18000) { sink = x; s = (s << 5) | (s >> 27); } /*B5*/
		if ((x & 0x60000) == 0x20000) { sink = s; s += x / 7u; } else { sink = 1; } /*B6*/
		if (x & 0x80000) { sink = x; s ^= s >> 11; } /*B7*/
		if ((x & 0x300000) != 0) { sink = s; s = s * 9 - x; } /*B8*/
	}
	return s + fc(s);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	unsigned acc = fd(1);
	for (int r = 0; r < n; r++)
		acc += work(acc + (unsigned)r, 64) + chain(acc, 48);
	sink = acc;
	printf("%u\n", acc);
	return 0;
}
