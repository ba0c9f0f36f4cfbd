/*
 * perf.data for older readers.  perf 6.x writes record types that tools
 * built against older perf headers stop at: create_llvm_prof and
 * create_gcov 0.19 (quipper) give up at FINISHED_INIT (type 82), and
 * HEADER_FEATURE, COMPRESSED, KSYMBOL, BPF_EVENT, CGROUP, TEXT_POKE are
 * newer than they are too.  The rewrite keeps the event attributes, the
 * build-id table and the command line, and the records of types 1-16
 * (MMAP .. NAMESPACES: what profile generation reads) and FINISHED_ROUND;
 * COMPRESSED records come out decompressed (spgo's reader expands them);
 * everything else is dropped and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/perf_rewrite.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"

static int keep(uint32_t type)
{
	return (type >= 1 && type <= 16) || type == SPGO_PERF_RECORD_FINISHED_ROUND;
}

int perf_rewrite(const char *in, const char *out)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, in, 0) < 0)
		return -1;
	size_t nattrs = spgo_perf_nattrs(r);
	if (spgo_perf_is_pipe(r) || nattrs == 0) {
		spgo_perf_close(r);
		return spgo_error("%s: --rewrite needs a perf.data file (not the pipe format)", in);
	}
	struct spgo_perf_writer *w;
	if (spgo_pw_open(&w, out) < 0) {
		spgo_perf_close(r);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < nattrs && rc == 0; i++) {
		const struct spgo_perf_attr *a = spgo_perf_attr(r, i);
		if (spgo_pw_add_attr(w, &a->attr, a->name, a->ids, a->nids) < 0)
			rc = -1;
	}
	struct spgo_perf_record rec;
	uint64_t kept = 0, dropped = 0;
	int more;
	while (rc == 0 && (more = spgo_perf_next(r, &rec)) != 0) {
		if (more < 0) {
			rc = -1;
			break;
		}
		if (!keep(rec.type)) {
			dropped++;
			continue;
		}
		if (spgo_pw_record(w, (const struct perf_event_header *)rec.data) < 0)
			rc = -1;
		kept++;
	}
	size_t nb;
	const struct spgo_perf_build_id *b = spgo_perf_build_ids(r, &nb);
	for (size_t i = 0; i < nb && rc == 0; i++)
		if (spgo_pw_build_id(w, b[i].pid, b[i].misc, b[i].id, b[i].size, b[i].filename) < 0)
			rc = -1;
	const char *cmd = spgo_perf_cmdline(r);
	if (rc == 0 && cmd) {
		char *argv[1] = {(char *)cmd};
		rc = spgo_pw_cmdline(w, 1, argv);
	}
	spgo_perf_close(r);
	if (rc < 0) {
		spgo_pw_abort(w);
		return -1;
	}
	if (spgo_pw_commit(w) < 0)
		return -1;
	spgo_info("rewrote %s: %llu records kept, %llu dropped", out, (unsigned long long)kept,
		  (unsigned long long)dropped);
	return 0;
}
