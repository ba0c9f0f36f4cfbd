/* spgo trim: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_trim(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'trim' is not implemented yet\n");
	return 2;
}
