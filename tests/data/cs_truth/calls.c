/*
 * Known call chains for the context-sensitive ground truth
 * (tests/integration/emulate_truth_cs.sh).  Per call of main's loop body
 * (10 iterations with no argument):
 *   leaf   from main directly (site A), from mid (site B), and reached from
 *          tailer by a tail call (jmp: in the frame-pointer view tailer's
 *          frame is gone, in the true view it stays);
 *   rec(3) from main: rec(k) calls leaf then rec(k - 1), so leaf runs under
 *          main>rec once and, recursion compressed, under main>rec>rec twice.
 * gcc -O2 -fno-omit-frame-pointer; noipa keeps every call a call (and
 * tailer's a jump).
 */
#define NI __attribute__((noipa))

volatile int sink, sink2;

NI void leaf(int x)
{
	sink += x;
}

NI void mid(int x)
{
	leaf(x);
	sink2 = x;
}

NI void tailer(int x)
{
	sink2 = x;
	leaf(x + 1);
}

NI int rec(int n)
{
	if (n == 0)
		return 0;
	leaf(n);
	int r = rec(n - 1);
	sink2 = r;
	return r + 1;
}

int main(int argc, char **argv)
{
	int n = argc + 2;
	for (int i = 0; i < 10; i++) {
		leaf(1);
		mid(2);
		tailer(3);
		rec(n);
	}
	return 0;
}
