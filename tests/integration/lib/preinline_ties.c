/* gen_cs_preinline_dwarf.sh: base calls helper (too large for base's size
 * budget to take two copies) at four call sites; the hand-written samples
 * give three of them equal counts. */
#include <stdio.h>

volatile long sink;

#define S1(k) sink = sink * (k) + ((x >> ((k) & 15)) ^ (k));
#define S4(k) S1(k) S1(k + 1) S1(k + 2) S1(k + 3)
#define S16(k) S4(k) S4(k + 4) S4(k + 8) S4(k + 12)

__attribute__((noinline)) long helper(long x)
{
	S16(1) S16(17)
	return sink;
}

__attribute__((noinline)) long base(long x)
{
	long s = helper(x);
	s += helper(x + 1) * 3;
	s += helper(x + 2) * 5;
	s += helper(x + 3) * 7;
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%ld\n", base(argc));
	return 0;
}
