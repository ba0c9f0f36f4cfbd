/* spgo emulate: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_emulate(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'emulate' is not implemented yet\n");
	return 2;
}
