/* Chains of tail calls for tests/integration/gen_cs_tailcall.sh: main calls
 * c1, which jumps to c2, c3 and work (a unique chain); main calls p1, which
 * jumps to q1 or q2 and both to work (two chains: ambiguous). */
#include <stdio.h>
#include <stdlib.h>
#define NI __attribute__((noinline))
volatile unsigned sink;
NI unsigned work(unsigned x) { for (int i = 0; i < 200; i++) x = x * 1103515245u + 12345u; sink = x; return x; }
NI unsigned c3(unsigned x) { x ^= 0x55; return work(x); }
NI unsigned c2(unsigned x) { x += 7; return c3(x); }
NI unsigned c1(unsigned x) { x *= 3; return c2(x); }
NI unsigned q1(unsigned x) { x ^= 9; return work(x); }
NI unsigned q2(unsigned x) { x ^= 11; return work(x); }
NI unsigned p1(unsigned x) { if (x & 1) return q1(x + 1); return q2(x + 3); }
int main(int argc, char **argv) {
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000, s = 0;
	for (unsigned i = 0; i < n; i++) { s += c1(i); s += p1(i); }
	printf("%u\n", s);
	return 0;
}
