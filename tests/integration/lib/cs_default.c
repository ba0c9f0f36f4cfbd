/* A small program with calls, a loop and inlining for the CS default test. */
#include <stdio.h>
#include <stdlib.h>

static unsigned hash_step(unsigned h, unsigned c)
{
	return (h ^ c) * 16777619u;
}

__attribute__((noinline)) static unsigned hash(const unsigned char *s, int n)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = hash_step(h, s[i]);
	return h;
}

__attribute__((noinline)) static int classify(unsigned h)
{
	if (h % 7 == 0)
		return 2;
	if (h % 3 == 0)
		return 1;
	return 0;
}

__attribute__((noinline)) static void fill(unsigned char *buf, int n, unsigned seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	unsigned char buf[64];
	long counts[3] = {0};
	for (int r = 0; r < rounds; r++) {
		fill(buf, sizeof buf, (unsigned)r);
		counts[classify(hash(buf, (int)sizeof buf))]++;
	}
	printf("%ld %ld %ld\n", counts[0], counts[1], counts[2]);
	return 0;
}
