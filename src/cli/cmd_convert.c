/* spgo convert: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_convert(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'convert' is not implemented yet\n");
	return 2;
}
