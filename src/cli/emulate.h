/*
 * emulate.h: the parts of `spgo emulate` (cmd_emulate.c runs QEMU with the
 * plugin, emulate_convert.c turns its output into perf.data and ground truth).
 */
#ifndef SPGO_CLI_EMULATE_H
#define SPGO_CLI_EMULATE_H

#include <stdint.h>

struct emu_options {
	const char *output;   /* perf.data */
	const char *truth;    /* ground-truth file, or NULL */
	const char *truth_cs; /* context-sensitive ground-truth file, or NULL */
	const char *cscounts; /* ... made from the plugin's file there */
	int truth_all;        /* ground truth for shared objects too */
	int instructions;     /* sample on instructions, not taken branches */
	uint64_t period;      /* mean sampling period */
	unsigned lbr;         /* branch stack depth (16 or 32) */
	unsigned skid;        /* maximal skid in blocks */
	unsigned max_stack;   /* callchain entries kept (IP included) */
	unsigned truncate;    /* percent of stacks cut short */
	uint64_t seed;
};

/* Convert the plugin's files into opt->output (and opt->truth); argv is
 * recorded as the perf.data command line. */
int emu_convert(const struct emu_options *opt, const char *trace, const char *counts, int argc,
		char **argv);

#endif
