/* spgo infer: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_infer(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'infer' is not implemented yet\n");
	return 2;
}
