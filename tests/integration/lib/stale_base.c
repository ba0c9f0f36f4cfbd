/*
 * The program of tests/integration/stale_report.sh: the OLD build.  The
 * test makes each NEW build from it by one small edit at a marker comment
 * (a function added, a loop changed, lines inserted at the top, a function
 * renamed, one removed, inlining changed); markers are whole lines or end
 * a line, so an edit moves no other function's lines.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

/*MIXATTR*/ static __attribute__((noinline)) unsigned mix(unsigned x)
{
	x ^= x >> 7;
	x *= 2654435761u;
	return x ^ (x >> 13);
}

__attribute__((noinline)) unsigned loop_sum(const unsigned *v, int n)
{
	unsigned s = 0;
	/*LOOP*/
	for (int i = 0; i < n; i++)
		s += v[i] * 3 + (v[i] >> 2);
	return s;
}

__attribute__((noinline)) unsigned old_name(unsigned x)
{
	unsigned r = 0;
	for (int i = 0; i < 8; i++)
		r += mix(x + (unsigned)i);
	return r;
}

/*DOOMED*/__attribute__((noinline)) unsigned doomed(unsigned x)
/*DOOMED*/{
/*DOOMED*/	unsigned r = x;
/*DOOMED*/	while (r > 1000)
/*DOOMED*/		r = r / 3 + (mix(r) & 255);
/*DOOMED*/	return r;
/*DOOMED*/}

/* a tail call through a pointer: an indirect jump (jmp *%rax) */
static __attribute__((noinline)) unsigned twice(unsigned x) { return 2 * x + 1; }
static __attribute__((noinline)) unsigned thrice(unsigned x) { return 3 * x + 1; }
unsigned (*volatile pick[2])(unsigned) = {twice, thrice};
__attribute__((noinline)) unsigned dispatch(unsigned x)
{
	return pick[x & 1](x);
}

/*INLINE*/static unsigned small_step(unsigned x)
{
	return (x * 7) ^ (x >> 3);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	unsigned v[64];
	for (int i = 0; i < 64; i++)
		v[i] = mix((unsigned)i);
	unsigned acc = 0;
	for (int r = 0; r < n; r++) {
		acc += loop_sum(v, 64 - (r & 7));
		acc += old_name(acc);
		acc += doomed(acc); /*CALLDOOMED*/
		acc = small_step(acc);
		acc += dispatch(acc);
	}
	sink = acc;
	printf("%u\n", acc);
	return 0;
}
/*ADDED*/
