/*
 * For the pseudo-probe tests: a function with a cold block of plain
 * arithmetic (no calls), which clang-19 -fprofile-sample-use with a profile
 * that gives that block no samples and -mllvm -hot-cold-split=true outlines
 * into crunch.cold.N: records with sentinel probes.  Called through a
 * pointer so that it is not inlined into main.
 */
#include <stdio.h>
#include <stdlib.h>

unsigned crunch(const char *s, unsigned rounds)
{
	unsigned h = 2166136261u;
	for (unsigned r = 0; r < rounds; r++) {
		for (const char *p = s; *p; p++) {
			h = (h ^ (unsigned char)*p) * 16777619u;
			if (h % 65521u == 7u) {
				h = h * 31u + r;
				h ^= h >> 13;
				h *= 0x5bd1e995u;
				h ^= h >> 15;
				h += (unsigned)(p - s) * 3u;
				h = (h << 7) | (h >> 25);
				h ^= 0x9e3779b9u + (h << 6) + (h >> 2);
			}
		}
	}
	return h;
}

unsigned (*volatile crunch_ptr)(const char *, unsigned) = crunch;

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 1000u;
	printf("%u\n", crunch_ptr(argc > 2 ? argv[2] : "pseudo-probe", rounds));
	return 0;
}
