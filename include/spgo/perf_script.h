/*
 * spgo/perf_script.h: perf.data printed as `perf script` prints it, byte
 * for byte, for the fields llvm-profgen and other tools read: what `spgo
 * script` writes.
 *
 *     perf script -F ip,brstack          ->  spgo_perf_script(path, out, &o)
 *     perf script -F pid,tid,ip --show-mmap-events
 *
 * Contract
 *  - Fields: ip, brstack, pid, tid (SPGO_PERF_SCRIPT_*).  By default
 *    (SPGO_PERF_SCRIPT_AUTO) ip, and brstack when the first event of the
 *    data has branch stacks, as perf chooses.
 *  - Records go out in perf's order (time-sorted per round: the reader's
 *    SPGO_PERF_ORDERED).  A sample with a call stack prints its frames on
 *    lines of their own, leaf first, at most 127, kernel and user as the
 *    PERF_CONTEXT_* markers switch; a stack with an unknown marker is
 *    dropped whole, as perf drops a corrupt one.  User frames inside a file
 *    mapping print as the offset in that file, as perf prints them (with
 *    raw_stacks: as runtime addresses, which llvm-profgen takes them for).
 *  - A sample with PERF_SAMPLE_READ prints once per counter value of a
 *    known event that moved since that id's last sample, as perf delivers
 *    it.
 *  - show_mmap: MMAP and MMAP2 records print as perf's PERF_RECORD_MMAP[2]
 *    lines, build-id form included.
 *  - Speed: the text is formatted by hand into a 1 MiB buffer (perf script
 *    text is mostly hex numbers; printf would be the bottleneck) and
 *    written with fwrite; into a pipe, the pipe's buffer is raised to
 *    1 MiB (best effort) to save context switches with the reader.
 *  - Errors: -1 with spgo_error() (the reader's, naming file and offset);
 *    what was printed before the error has been written to out.  Write
 *    errors are out's (ferror), for the caller to check.
 *
 * Owns src/perf/script_print.c; depends on spgo/perf.h and spgo/common.h.
 */
#ifndef SPGO_PERF_SCRIPT_H
#define SPGO_PERF_SCRIPT_H

#include <stdio.h>

/* Fields of a printed sample (perf script -F), and the default. */
#define SPGO_PERF_SCRIPT_IP 1u
#define SPGO_PERF_SCRIPT_BRSTACK 2u
#define SPGO_PERF_SCRIPT_PID 4u
#define SPGO_PERF_SCRIPT_TID 8u
#define SPGO_PERF_SCRIPT_AUTO 0x80000000u /* ip[,brstack] by the data */

struct spgo_perf_script_opts {
	unsigned fields; /* SPGO_PERF_SCRIPT_* bits, or SPGO_PERF_SCRIPT_AUTO */
	int show_mmap;   /* --show-mmap-events */
	int raw_stacks;  /* user frames as runtime addresses, not file offsets */
};

/* Parse a -F list ("ip,brstack,pid,tid", any order, any subset; empty
 * prints bare lines): 0, or -1 with spgo_error() naming the field. */
int spgo_perf_script_fields(const char *spec, unsigned *fields);

/* Print the perf.data at path ("-" = stdin) to out. */
int spgo_perf_script(const char *path, FILE *out, const struct spgo_perf_script_opts *opts);

#endif
