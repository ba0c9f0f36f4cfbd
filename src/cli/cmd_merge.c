/* spgo merge: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_merge(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'merge' is not implemented yet\n");
	return 2;
}
