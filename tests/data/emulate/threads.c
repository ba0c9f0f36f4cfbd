/*
 * threads.c: two threads running different loops, for the per-thread LBR
 * and stacks of spgo emulate.  Usage: threads N
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int n;
volatile long sink_a;
volatile unsigned long sink_b;

__attribute__((noipa)) long work_a(int k)
{
	long s = 0;
	for (int i = 0; i < k; i++)
		s += (i & 3) ? i : -i;
	return s;
}

__attribute__((noipa)) unsigned long work_b(int k)
{
	unsigned long s = 1;
	for (int i = 0; i < k; i++)
		s ^= (i % 7) ? s << 1 : i;
	return s;
}

static void *run_a(void *arg)
{
	for (int j = 0; j < n; j++)
		sink_a += work_a(300);
	return arg;
}

static void *run_b(void *arg)
{
	for (int j = 0; j < n; j++)
		sink_b += work_b(300);
	return arg;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atoi(argv[1]) : 100;
	pthread_t a, b;
	pthread_create(&a, NULL, run_a, NULL);
	pthread_create(&b, NULL, run_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%ld %lu\n", sink_a, sink_b);
	return 0;
}
