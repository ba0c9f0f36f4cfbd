/* A computed-goto interpreter, built as Lua's luaV_execute is (labels as
 * values, a trap test before each dispatch): the dispatch is an indirect
 * jump whose targets spgo's CFG does not know, so a handler's block starts
 * at the alignment padding after the handler laid out before it, padding
 * that carries that handler's last line (tests/integration/gen_spe_pad.sh;
 * clang-19 -mllvm -align-all-nofallthru-blocks=4 pads every handler).  The
 * dead_ ops never run; each is laid out before a hot one. */
#include <stdlib.h>

volatile long sink;
volatile int trap;

__attribute__((noinline)) static long slow(long acc)
{
	return acc + sink;
}

static long run(const unsigned char *code, long n)
{
	static void *const ops[] = {&&op_add, &&op_mul, &&op_xor, &&op_loop, &&dead_div, &&dead_sub, &&dead_mod,
				    &&dead_not, &&op_end};
	long acc = 1, pc = 0, left = n;
#define NEXT                                                                                                           \
	do {                                                                                                           \
		if (trap)                                                                                              \
			acc = slow(acc);                                                                               \
		goto *ops[code[pc++]];                                                                                 \
	} while (0)
	NEXT;
op_add:
	acc += pc;
	NEXT;
dead_div:
	acc = acc / (sink + 3); /* dead */
	NEXT;                   /* dead */
op_mul:
	acc = acc * 3 + 1;
	NEXT;
dead_sub:
	acc -= sink * 5; /* dead */
	NEXT;            /* dead */
op_xor:
	acc ^= acc >> 7;
	NEXT;
dead_mod:
	acc = acc % (sink + 7); /* dead */
	NEXT;                   /* dead */
op_loop:
	if (--left > 0)
		pc = 0;
	NEXT;
dead_not:
	acc = ~acc + sink; /* dead */
	NEXT;              /* dead */
op_end:
	return acc;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned char code[] = {0, 1, 2, 0, 2, 1, 3, 8};
	code[7] = (unsigned char)(argc > 2 ? 4 : 8);
	sink = run(code, n);
	return 0;
}
