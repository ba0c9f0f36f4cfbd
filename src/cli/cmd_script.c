/* spgo script: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_script(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'script' is not implemented yet\n");
	return 2;
}
