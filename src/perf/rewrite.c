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
 *
 * Samples lose the user registers and stack that `--call-graph dwarf`
 * adds (PERF_SAMPLE_REGS_USER, STACK_USER): quipper refuses such files
 * ("PERF_SAMPLE_REGS_USER is not yet supported").  Their events are
 * written without those fields and the samples re-encoded, so an older
 * tool reads the same samples (ip, tid, time, kernel call chain, branch
 * stack, weight, data source) as spgo does from the original.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"

/* Sample fields dropped for older readers (see the top of the file). */
#define DROP_FIELDS ((uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))

/* Write a sample of an event whose DROP_FIELDS are gone, from its parsed
 * fields (spgo_pw_sample encodes what the new sample_type selects). */
static int resample(struct spgo_perf_writer *w, const struct spgo_perf_record *rec)
{
	const struct spgo_perf_sample *s = &rec->sample;
	struct spgo_pw_sample ps = {
		.ip = s->ip, .pid = s->pid, .tid = s->tid, .time = s->time, .addr = s->addr,
		.id = s->id, .stream_id = s->stream_id, .cpu = s->cpu, .period = s->period,
		.callchain = s->callchain, .nr_callchain = s->callchain_nr,
		.branches = s->branches, .nr_branches = s->branch_nr,
		.hw_idx = s->branch_hw_idx, .weight = s->weight, .data_src = s->data_src,
		.misc = rec->misc,
	};
	return spgo_pw_sample(w, (int)rec->attr->index, &ps);
}

static int keep(uint32_t type)
{
	return (type >= 1 && type <= 16) || type == SPGO_PERF_RECORD_FINISHED_ROUND;
}

int spgo_perf_rewrite(const char *in, const char *out)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, in, SPGO_PERF_RAW_AUX) < 0)
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
		struct perf_event_attr attr = a->attr;
		if (attr.sample_type & DROP_FIELDS) {
			attr.sample_type &= ~DROP_FIELDS;
			attr.sample_regs_user = 0;
			attr.sample_stack_user = 0;
		}
		if (spgo_pw_add_attr(w, &attr, a->name, a->ids, a->nids) < 0)
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
		if (rec.type == PERF_RECORD_SAMPLE && rec.attr && (rec.attr->attr.sample_type & DROP_FIELDS)) {
			if (resample(w, &rec) < 0)
				rc = -1;
		} else if (spgo_pw_record(w, (const struct perf_event_header *)rec.data) < 0)
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
