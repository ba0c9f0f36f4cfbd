/*
 * perf_rewrite.h: `spgo script --rewrite OUT`: copy a perf.data keeping
 * only the record types older tools know (see perf_rewrite.c).
 */
#ifndef SPGO_CLI_PERF_REWRITE_H
#define SPGO_CLI_PERF_REWRITE_H

/* Rewrite in (a perf.data file) to out; returns 0, or -1 with spgo_error. */
int perf_rewrite(const char *in, const char *out);

#endif
