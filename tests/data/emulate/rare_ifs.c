/* A loop of ifs whose then-blocks run about one time in a thousand, with
 * sampled branches all around them (tests/integration/gen_spe_infer.sh). */
#include <stdlib.h>

volatile unsigned sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	unsigned x = 1;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if ((x >> 4) % 1009 == 1)
			sink = 1; /* then */
		if ((x >> 9) % 1013 == 2)
			sink = 2; /* then */
		if ((x >> 14) % 1019 == 3)
			sink = 3; /* then */
		if ((x >> 19) % 1021 == 4)
			sink = 4; /* then */
		sink = sink + x;
	}
	return 0;
}
