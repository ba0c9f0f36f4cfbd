/* spgo symbolize: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_symbolize(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'symbolize' is not implemented yet\n");
	return 2;
}
