/* Indirect calls for spgo gen's IP-mode test (tests/integration/gen_ip_icall.sh):
 * one call site through a function pointer, three targets called 6:3:1 and
 * doing the same work per call, so that their shares by samples are their
 * shares by calls. */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*op_fn)(unsigned);

#define WORK(name, k)                                            \
	__attribute__((noinline)) static unsigned name(unsigned x) \
	{                                                          \
		for (int i = 0; i < 40; i++)                           \
			x = x * 2654435761u + (k) + (x >> 13);             \
		return x;                                              \
	}
WORK(op_often, 1)
WORK(op_sometimes, 3)
WORK(op_rarely, 7)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	static const op_fn table[10] = {op_often,     op_often,     op_often,    op_often,
					op_often,     op_often,     op_sometimes, op_sometimes,
					op_sometimes, op_rarely};
	unsigned x = 1, s = 0;
	for (long i = 0; i < n; i++) {
		op_fn f = table[(unsigned)(i * 7) % 10];
		x = f(x);
		s += x;
	}
	printf("%u\n", s);
	return 0;
}
