/* spgo show: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_show(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'show' is not implemented yet\n");
	return 2;
}
