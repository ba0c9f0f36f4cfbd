/* spgo overlap: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_overlap(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'overlap' is not implemented yet\n");
	return 2;
}
