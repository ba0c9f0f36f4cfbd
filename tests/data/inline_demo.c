/*
 * The bundled example: small functions that the compilers inline into each
 * other (several levels, from two files), a loop with several basic blocks
 * on one line (discriminators), a switch (jump table), an indirect call and
 * a cold error path (GCC splits it into foo.cold).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inline_demo.h"

static unsigned table[256];

static inline unsigned hash_bytes(const char *s, size_t n)
{
	unsigned h = 2166136261u;
	for (size_t i = 0; i < n; i++) h = mix(h, (unsigned char)s[i]);
	return h;
}

static inline int score(const char *s)
{
	size_t n = strlen(s);
	unsigned h = hash_bytes(s, n);
	table[h & 255]++;
	return clamp((int)(h % 1000) - 500, -100, 100);
}

__attribute__((cold, noinline)) static void report(const char *why, int r)
{
	fprintf(stderr, "inline_demo: %s at round %d\n", why, r);
}

static inline void fail(const char *why, int r)
{
	report(why, r);
	memset(table, 0, sizeof table);
	exit(2);
}

static int classify(int v)
{
	switch (v & 7) {
	case 0: return v * 3;
	case 1: return v - 7;
	case 2: return v ^ 0x55;
	case 3: return -v;
	case 4: return v << 2;
	case 5: return v / 3;
	default: return v;
	}
}

static int twice(int v) { return 2 * v; }
static int negate(int v) { return -v; }
static int (*const ops[2])(int) = {twice, negate};

__attribute__((noinline)) int work(const char *word, int rounds)
{
	int total = 0;
	if (__builtin_expect(word == NULL, 0))
		fail("no word", 0);
	for (int r = 0; r < rounds; r++) {
		int s = score(word);
		total += classify(s + r) + ops[r & 1](s);
		if (__builtin_expect(total > 1000000000, 0))
			fail("overflow", r);
	}
	return total;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	long sum = 0;
	const char *words[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
	for (int i = 0; i < 5; i++)
		sum += work(argc > 2 ? argv[2] : words[i], rounds);
	unsigned t = 0;
	for (int i = 0; i < 256; i++) t = mix(t, table[i]);
	printf("%ld %u\n", sum, t);
	return 0;
}
