/* spgo record: not implemented yet. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_record(int argc, char **argv)
{
	fprintf(stderr, "spgo: 'record' is not implemented yet\n");
	return 2;
}
