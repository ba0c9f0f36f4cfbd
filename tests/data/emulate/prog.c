/*
 * prog.c: the deterministic test program of the spgo emulate tests.
 * Known call chains: main -> outer -> tail, which tail-calls rec (so a
 * frame-pointer view shows rec called from outer), rec recursing 4 deep into
 * leaf; and main -> loops, a loop with data-dependent branches.
 * Usage: prog N   (N outer iterations)
 */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((noipa)) int leaf(int x)
{
	int s = 0;
	for (int i = 0; i < 40; i++)
		s += (x ^ i) & 7;
	return s;
}

__attribute__((noipa)) int rec(int d, int x)
{
	if (d == 0)
		return leaf(x);
	int r = rec(d - 1, x + 1);
	sink = r; /* keeps the recursion a real call */
	return r + 1;
}

__attribute__((noipa)) int tail(int x)
{
	sink = x;
	return rec(3, x); /* a tail call at -O2: jmp rec */
}

__attribute__((noipa)) int outer(int x)
{
	int r = tail(x);
	sink = r;
	return r;
}

__attribute__((noipa)) long loops(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		if (i & 1)
			s += i * 3;
		else if (i % 5 == 0)
			s -= i;
		else
			s ^= i;
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long t = 0;
	for (int j = 0; j < n; j++) {
		t += outer(j);
		t += loops(200);
	}
	printf("%ld\n", t);
	return 0;
}
