/*
 * spgo/perf_write.h: a perf.data writer (file mode, "PERFILE2").
 *
 * Writes what `perf record` writes, in the layout perf 3.x to 6.x, quipper
 * (AutoFDO's create_llvm_prof) and spgo's own reader all accept:
 *
 *     file header | attrs (+ their id arrays) | data records | feature
 *     section table | feature payloads
 *
 * It serves two jobs: `spgo emulate` synthesizes a whole recording (COMM,
 * FORK, MMAP2 and SAMPLE records, build-ids), and tools that rewrite an
 * existing perf.data (for example to drop record types old tools do not
 * know) copy attrs, raw records and raw feature payloads through it.
 *
 * Contract
 *  - All attrs are added before the first record; records are then streamed
 *    to a temporary file beside the target, and spgo_pw_commit() writes the
 *    feature sections, fills in the file header and renames the file into
 *    place.  On any failure (or spgo_pw_abort()) no output file is left.
 *    Writing to "-" (stdout) is refused: the header needs a seekable file.
 *  - Records are written in host byte order (little-endian x86-64/AArch64).
 *  - Helpers that synthesize a record append the sample_id trailer
 *    (TID/TIME/ID/STREAM_ID/CPU/IDENTIFIER as selected by the first attr's
 *    sample_type) when that attr has sample_id_all set.
 *  - spgo_pw_sample() encodes the fields the attr's sample_type selects, in
 *    the kernel's order; it supports IDENTIFIER, IP, TID, TIME, ADDR, ID,
 *    STREAM_ID, CPU, PERIOD, CALLCHAIN, BRANCH_STACK (with hw_idx when
 *    branch_sample_type has PERF_SAMPLE_BRANCH_HW_INDEX), WEIGHT and
 *    DATA_SRC, and fails on others.
 *  - Feature payloads are kept in memory until commit; features that spgo
 *    knows the layout of have helpers, any other can be given raw.
 */
#ifndef SPGO_PERF_WRITE_H
#define SPGO_PERF_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* Feature bits of the perf.data header (tools/perf/util/header.h). */
enum spgo_pw_feature {
	SPGO_PW_FEAT_TRACING_DATA = 1,
	SPGO_PW_FEAT_BUILD_ID = 2,
	SPGO_PW_FEAT_HOSTNAME = 3,
	SPGO_PW_FEAT_OSRELEASE = 4,
	SPGO_PW_FEAT_VERSION = 5,
	SPGO_PW_FEAT_ARCH = 6,
	SPGO_PW_FEAT_NRCPUS = 7,
	SPGO_PW_FEAT_CPUDESC = 8,
	SPGO_PW_FEAT_CPUID = 9,
	SPGO_PW_FEAT_TOTAL_MEM = 10,
	SPGO_PW_FEAT_CMDLINE = 11,
	SPGO_PW_FEAT_EVENT_DESC = 12,
	SPGO_PW_FEAT_BRANCH_STACK = 15,
	SPGO_PW_FEAT_SAMPLE_TIME = 21,
	SPGO_PW_FEAT_CLOCKID = 23,
	SPGO_PW_FEAT_MAX = 256,
};

struct spgo_perf_writer;

/*
 * One sample.  Fields the attr's sample_type does not select are ignored.
 * callchain holds nr_callchain raw entries (PERF_CONTEXT_USER markers
 * included, exactly as the kernel writes them); branches holds nr_branches
 * entries, newest first.
 */
struct spgo_pw_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id, stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *callchain;
	uint64_t nr_callchain;
	const struct perf_branch_entry *branches;
	uint64_t nr_branches;
	uint64_t hw_idx; /* only with PERF_SAMPLE_BRANCH_HW_INDEX */
	uint64_t weight, data_src;
	uint16_t misc;   /* header.misc; 0 means PERF_RECORD_MISC_USER */
};

/* The sample_id trailer of a non-sample record (sample_id_all). */
struct spgo_pw_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id, stream_id;
	uint32_t cpu;
};

/* Start writing PATH (through a temporary file, see spgo/common.h). */
int spgo_pw_open(struct spgo_perf_writer **out, const char *path);

/*
 * Add an event attribute (attr->size bytes of it are written; 0 means
 * PERF_ATTR_SIZE_VER7) with its sample ids (may be none) and its name
 * (may be NULL; used for the EVENT_DESC feature, written when every attr
 * has a name).  Returns the attr's index, or -1.
 */
int spgo_pw_add_attr(struct spgo_perf_writer *w, const struct perf_event_attr *attr,
		     const char *name, const uint64_t *ids, size_t n_ids);

/* The bits `perf record -- CMD` sets for a user-space event that follows
 * its task and children: exclude_kernel and _hv, sample_id_all, comm,
 * comm_exec, mmap, mmap2, task, inherit. */
void spgo_pw_attr_user_tasks(struct perf_event_attr *attr);

/* Append a complete record (header.size bytes, a multiple of 8) as is. */
int spgo_pw_record(struct spgo_perf_writer *w, const struct perf_event_header *rec);

/* Synthesized records.  sid may be NULL (zero trailer). */
int spgo_pw_comm(struct spgo_perf_writer *w, uint32_t pid, uint32_t tid, const char *comm,
		 int exec, const struct spgo_pw_sample_id *sid);
int spgo_pw_fork(struct spgo_perf_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid, uint64_t time, const struct spgo_pw_sample_id *sid);
int spgo_pw_exit(struct spgo_perf_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid, uint64_t time, const struct spgo_pw_sample_id *sid);

/*
 * An MMAP2 record of a user-space executable mapping.  With a build-id
 * (bid_len 1..20) it is carried in the record (PERF_RECORD_MISC_MMAP_BUILD_ID,
 * as perf record --buildid-mmap writes it); without one, maj/min/ino are.
 */
struct spgo_pw_mmap2 {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const uint8_t *build_id;
	size_t build_id_len;
	const char *filename;
};
int spgo_pw_mmap2(struct spgo_perf_writer *w, const struct spgo_pw_mmap2 *m,
		  const struct spgo_pw_sample_id *sid);

/* PERF_RECORD_AUXTRACE_INFO of an AUX area type (4: Arm SPE) with its
 * private words (at most 32). */
int spgo_pw_auxtrace_info(struct spgo_perf_writer *w, uint32_t type, const uint64_t *priv, size_t npriv);
/* PERF_RECORD_AUXTRACE followed by its size bytes of data (a multiple of 8;
 * perf pads with zero bytes, which SPE reads as PAD packets). */
struct spgo_pw_auxtrace {
	uint64_t offset, reference;
	uint32_t idx, tid, cpu;
};
int spgo_pw_auxtrace(struct spgo_perf_writer *w, const struct spgo_pw_auxtrace *a, const void *data,
		     uint64_t size);

/* A SAMPLE record of attr number attr_index. */
int spgo_pw_sample(struct spgo_perf_writer *w, int attr_index, const struct spgo_pw_sample *s);

/* ---- features ----------------------------------------------------------- */

/* A HEADER_BUILD_ID entry (misc: PERF_RECORD_MISC_USER or _KERNEL; pid -1 = host). */
int spgo_pw_build_id(struct spgo_perf_writer *w, int32_t pid, uint16_t misc, const uint8_t *id,
		     size_t len, const char *filename);
/* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one string. */
int spgo_pw_feature_string(struct spgo_perf_writer *w, enum spgo_pw_feature feat, const char *s);
int spgo_pw_cmdline(struct spgo_perf_writer *w, int argc, char *const *argv);
int spgo_pw_nrcpus(struct spgo_perf_writer *w, uint32_t avail, uint32_t online);
/* Any feature's payload, copied as is (size may be 0, e.g. BRANCH_STACK). */
int spgo_pw_feature_raw(struct spgo_perf_writer *w, unsigned feat, const void *data, size_t size);

/* Finish the file and rename it into place; frees w either way. */
int spgo_pw_commit(struct spgo_perf_writer *w);
/* Drop everything written; frees w. */
void spgo_pw_abort(struct spgo_perf_writer *w);

/*
 * perf.data for older readers (src/perf/rewrite.c; `spgo script --rewrite`):
 * copy in (a perf.data file, not the pipe format) to out keeping the event
 * attributes, build-ids, command line and the record types 1-16 and
 * FINISHED_ROUND, which create_llvm_prof and create_gcov 0.19 know; samples
 * lose the user registers and stack of --call-graph dwarf.  0, or -1 with
 * spgo_error().
 */
int spgo_perf_rewrite(const char *in, const char *out);

#endif
