/*
 * profile_cli.h: option handling shared by the profile subcommands (show,
 * merge, convert, overlap, trim).
 */
#ifndef SPGO_PROFILE_CLI_H
#define SPGO_PROFILE_CLI_H

#include "spgo/profile.h"

/* If argv[*i] is option `name` ("--name V" or "--name=V"), store its value
 * in *val, advance *i past it and return 1; 0 if it is another argument;
 * -1 (after printing an error) if the value is missing. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **val);
/* Parse the output options common to merge/convert/trim:
 * --format F, --md5, --compress, --target-llvm=14|19, --gcov-version=1|2,
 * --partial.  Returns 1 if argv[*i] was one of them, 0 if not, -1 on error. */
int cli_write_opt(int argc, char **argv, int *i, enum spgo_format *fmt,
		  struct spgo_write_opts *o);
extern const char cli_write_help[];

#endif
