/* Conditional branches taken and not taken in known shares, for the SPE
 * tests (tests/integration/emulate_spe.sh). */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long f(unsigned long x, int n)
{
	unsigned long s = 0;
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		if ((x >> 60) < 3)
			s += x >> 3;
		else if ((x >> 61) == 7)
			s ^= x;
		else
			s += 1;
	}
	return s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;
	printf("%lu\n", f(1, n) & 1);
	return 0;
}
