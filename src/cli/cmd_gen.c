/* spgo gen: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_gen(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'gen' is not implemented yet\n");
	return 2;
}
