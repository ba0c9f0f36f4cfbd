/*
 * Switches that compile to jump tables (dense cases with holes, a byte
 * read from memory, a loop over opcodes) and calls that never return, for
 * tests/integration/jump_tables.sh.  main() drives every case value, the
 * holes and the default, so a run under callgrind --collect-jumps sees every
 * table entry's target.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

volatile int g;

__attribute__((noinline)) int dense(int x)
{
	switch (x) {
	case 0: g += 3; break;
	case 1: g ^= x; break;
	case 2: g = g * 7 + 1; break;
	case 3: g -= 11; break;
	case 4: g = g / 3 + x; break;
	case 6: g |= 0x40; break;
	case 7: g = (g << 2) ^ 5; break;
	case 9: g = g % 97 + 2; break;
	case 10: g += g >> 1; break;
	case 11: g &= 0x7ff; break;
	case 12: g = -g; break;
	default: g += 100; break;
	}
	return g;
}

__attribute__((noinline)) int bytes(const unsigned char *p)
{
	int n = 0;
	for (; *p; p++) {
		switch (*p) {
		case 'a': n += 1; g++; break;
		case 'b': n ^= 2; g--; break;
		case 'c': n *= 3; g += 2; break;
		case 'd': n -= 4; g ^= 1; break;
		case 'e': n += g; break;
		case 'f': n = n * 5 + 1; g += 7; break;
		case 'g': n >>= 1; g -= 3; break;
		case 'h': n = -n; g *= 3; break;
		default: n += 7; break;
		}
	}
	return n;
}

/* A tail call through a function pointer loaded from memory. */
struct ops {
	int (*fn)(int);
};
__attribute__((noinline)) int via(const struct ops *o, int x)
{
	return o->fn(x + 1);
}

/* A local function that never returns (every path ends in exit or abort). */
__attribute__((noinline)) static void die(const char *msg, int code)
{
	fprintf(stderr, "switch_prog: %s\n", msg);
	if (code)
		exit(code);
	abort();
}

int main(int argc, char **argv)
{
	int sum = 0;
	for (int r = 0; r < 3; r++)
		for (int x = -2; x < 16; x++)
			sum += dense(x);
	sum += bytes((const unsigned char *)"abcdefghxyzhgfedcba");
	static const struct ops ops = {dense};
	sum += via(&ops, argc);
	if (argc > 3)
		die("too many arguments", 2);
	if (argc > 2 && argv[2][0] == 'x')
		abort();
	assert(argc < 5);
	printf("%d\n", sum);
	return 0;
}
