/* A small program compiled with the profiles of the profile tests. */
#include <stdio.h>
#include <stdlib.h>

int longest_match(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i * (x & 3);
	return s;
}

int deflate(int n)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		t += longest_match(i);
	return t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	printf("%d\n", deflate(n));
	return 0;
}
