/*
 * spgo/perf.h: reading perf samples.  A streaming reader of perf.data (file
 * and pipe mode, zstd-COMPRESSED records), a reader of `perf script` text,
 * and the process/mapping tracker that turns a runtime address into "this
 * mapping of this file".  Nothing here runs the `perf` program.
 *
 * Contract
 *  - spgo_perf_open() reads the header, the attributes (events) and the
 *    feature sections it knows (build-id table, cmdline, event names; the
 *    others are skipped by their size); spgo_perf_next() then hands out one
 *    decoded record at a time.  Memory is bounded by the largest record, not
 *    by the file: nothing is kept after the next call, except in ordered mode
 *    (below), which holds one "round" of records like perf does (at most
 *    128 MiB of them: past that the oldest half goes out).
 *  - Every record carries the byte offset where it starts in the input
 *    (records that came out of a COMPRESSED record carry the offset of that
 *    record), for error messages.
 *  - A truncated input (perf killed mid-write) yields every complete record,
 *    then one warning naming the offset where the data stopped, then the end.
 *    Garbage (a record size that cannot be, a sample whose fields run past
 *    its record) is an error naming the file and offset.  Nothing loops
 *    forever: every step consumes at least one 8-byte header.
 *  - Only the host's byte order (little-endian on x86-64 and arm64) is read;
 *    a file in the other order is refused with a clear error.
 *  - Pointers inside a record (filenames, callchain, branch stack, raw data)
 *    point into the reader's buffer and stay valid until the next call.
 *
 * Use:
 *     struct spgo_perf_reader *r;
 *     struct spgo_perf_record rec;
 *     if (spgo_perf_open(&r, "perf.data", SPGO_PERF_ORDERED) < 0) fail();
 *     while ((rc = spgo_perf_next(r, &rec)) > 0)
 *             if (rec.type == PERF_RECORD_SAMPLE) use(&rec.sample);
 *     spgo_perf_close(r);   (rc < 0: spgo_errmsg() says what and where)
 */
#ifndef SPGO_PERF_H
#define SPGO_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Record types perf itself writes (not in the kernel uapi header). */
enum {
	SPGO_PERF_RECORD_HEADER_ATTR = 64,
	SPGO_PERF_RECORD_HEADER_EVENT_TYPE = 65,
	SPGO_PERF_RECORD_HEADER_TRACING_DATA = 66, /* followed by its data */
	SPGO_PERF_RECORD_HEADER_BUILD_ID = 67,
	SPGO_PERF_RECORD_FINISHED_ROUND = 68,
	SPGO_PERF_RECORD_ID_INDEX = 69,
	SPGO_PERF_RECORD_AUXTRACE_INFO = 70,
	SPGO_PERF_RECORD_AUXTRACE = 71, /* followed by its data */
	SPGO_PERF_RECORD_EVENT_UPDATE = 78,
	SPGO_PERF_RECORD_HEADER_FEATURE = 80,
	SPGO_PERF_RECORD_COMPRESSED = 81,
	SPGO_PERF_RECORD_FINISHED_INIT = 82,
};

/* One event of the file (a perf_event_attr and the sample ids it owns). */
struct spgo_perf_attr {
	struct perf_event_attr attr; /* zero-extended to this header's size */
	uint64_t *ids;
	size_t nids;
	char *name; /* from the event-description feature, or NULL */
	size_t index; /* position: spgo_perf_attr(r, index) is this one */
};

/* A build-id table entry (file feature or pipe-mode HEADER_BUILD_ID). */
struct spgo_perf_build_id {
	int32_t pid;
	uint8_t size; /* bytes used in id (20 for SHA-1) */
	uint8_t id[20];
	uint16_t misc; /* cpumode of the entry (kernel, user) */
	char *filename;
};

/* The cpumode of an address with no record to say it (a branch entry's
 * ends, an address of perf script text): the upper half of the 64-bit
 * address space is the kernel's, on x86-64 and AArch64 alike. */
static inline unsigned spgo_perf_addr_cpumode(uint64_t addr)
{
	return addr >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
}

/*
 * A decoded sample.  Fields absent from the event's sample_type are 0/NULL;
 * `sample_type` says which are present.
 */
struct spgo_perf_sample {
	uint64_t sample_type;
	uint64_t ip, addr, id, stream_id, time, period;
	uint32_t pid, tid, cpu;
	uint16_t cpumode; /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint16_t exact_ip;
	/* PERF_SAMPLE_READ: the raw words, as read_format lays them out. */
	const uint64_t *read;
	size_t read_words;
	/* PERF_SAMPLE_CALLCHAIN: leaf first, PERF_CONTEXT_* markers included. */
	const uint64_t *callchain;
	uint64_t callchain_nr;
	/* PERF_SAMPLE_RAW */
	const uint8_t *raw;
	uint32_t raw_size;
	/* PERF_SAMPLE_BRANCH_STACK: newest branch first.  The entry layout and
	 * its flag bits (mispred, predicted, in_tx, abort, cycles, type, ...)
	 * are the kernel's struct perf_branch_entry. */
	const struct perf_branch_entry *branches;
	uint64_t branch_nr;
	uint64_t branch_hw_idx; /* with PERF_SAMPLE_BRANCH_HW_INDEX, else ~0 */
	/* PERF_SAMPLE_REGS_USER / REGS_INTR: abi, then one word per mask bit. */
	uint64_t regs_user_abi, regs_intr_abi;
	const uint64_t *regs_user, *regs_intr;
	size_t regs_user_nr, regs_intr_nr;
	/* PERF_SAMPLE_STACK_USER */
	const uint8_t *stack_user;
	uint64_t stack_user_size, stack_user_dyn_size;
	uint64_t weight, data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
	const uint8_t *aux;
	uint64_t aux_size;
	/* How many times this sample occurred: 1, or the count of aggregated
	 * perf script text (0 is taken as 1). */
	uint64_t count;
};

/* MMAP and MMAP2 (prot/flags/maj/min/ino only from MMAP2). */
struct spgo_perf_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	uint8_t build_id_size; /* > 0 for the MMAP2 build-id form */
	uint8_t build_id[20];
	const char *filename; /* NUL-terminated copy, valid until the next call */
};

struct spgo_perf_comm {
	uint32_t pid, tid;
	const char *comm;
	int exec; /* PERF_RECORD_MISC_COMM_EXEC */
};

/* FORK and EXIT. */
struct spgo_perf_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct spgo_perf_lost {
	uint64_t id, lost;
};

/* AUXTRACE: the record's fields and its data (the bytes that follow it). */
struct spgo_perf_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
	const uint8_t *data; /* NULL unless the reader decodes this data (SPE) */
	uint64_t avail;      /* bytes of it present (less: the file is cut) */
};

/*
 * Arm SPE (spgo/perf_spe.h).  Once an AUXTRACE_INFO of type ARM_SPE has been
 * read, each AUXTRACE record's data is decoded and every SPE record with a
 * PC is handed out as a SAMPLE of a synthetic event "arm_spe" (appended to
 * the events), after the AUXTRACE record and after the records queued in
 * ordered mode before it (they go out first: the mappings its addresses
 * need come before it in the file).  Such a sample has
 * SPGO_PERF_SAMPLE_SPE in sample_type; ip is the PC (cpumode from its
 * exception level), addr the branch target or data address, period 1, cpu
 * and tid from the AUXTRACE record, tid from a CONTEXT packet when there is
 * one, pid from the COMM/FORK records of that tid (else the tid).  A branch
 * record (OP-TYPE class branch) has PERF_SAMPLE_BRANCH_STACK: branches[0] is
 * pc -> target, with mispred, the type (COND, IND, CALL, RET...) and
 * SPGO_PERF_BRANCH_NOT_TAKEN for a not-taken conditional branch (NOT-TAKEN
 * event; its target is then the next instruction); with a previous branch
 * target packet, branches[1] is 0 -> that target (its source is not known).
 * spgo_perf_spe_stats() counts what the decoder met; at the end the reader
 * warns once about unknown packets, cut buffers and AUX records flagged
 * truncated or collided, naming the file offset of the first.  A record
 * with PC 0 is left out; a branch record without a target (or target 0)
 * becomes an IP sample; both are counted and warned about the same way.
 * ITRACE_START records give a thread's process as COMM does.
 * SPGO_PERF_RAW_AUX leaves AUX data alone.
 */
#define SPGO_PERF_SAMPLE_SPE (1ULL << 62)
#define SPGO_PERF_BRANCH_NOT_TAKEN(e) (((e)->reserved & 1) != 0)
struct spgo_spe_stats;
struct spgo_perf_reader;
const struct spgo_spe_stats *spgo_perf_spe_stats(const struct spgo_perf_reader *r);

struct spgo_perf_reader;

/* One record as spgo_perf_next() hands it out. */
struct spgo_perf_record {
	uint32_t type; /* PERF_RECORD_* or SPGO_PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	uint64_t offset;		   /* byte offset in the input (see above) */
	const uint8_t *data;		   /* the whole record, header first */
	const struct spgo_perf_attr *attr; /* its event, or NULL */
	/* For PERF_RECORD_SAMPLE: the sample.  For other kernel records with
	 * sample_id_all: pid, tid, time, cpu, id, stream_id from the trailer. */
	struct spgo_perf_sample sample;
	union {
		struct spgo_perf_mmap mmap;
		struct spgo_perf_comm comm;
		struct spgo_perf_task task;
		struct spgo_perf_lost lost;
		struct spgo_perf_auxtrace aux;
	} u;
};

/* Options of spgo_perf_open(). */
enum {
	/* Deliver kernel records in time order the way `perf script` and
	 * `perf report` do: queue records that carry a timestamp, and at each
	 * FINISHED_ROUND deliver, time-sorted (stable), those not newer than
	 * the newest timestamp seen before the previous round; the rest at the
	 * end.  Records without a timestamp go out at once. */
	SPGO_PERF_ORDERED = 1,
	/* Hand out AUXTRACE records only: no samples from SPE data (a copy of
	 * the file, spgo script --rewrite). */
	SPGO_PERF_RAW_AUX = 2,
};

/* Open PATH ("-" = standard input; file and pipe format are both detected). */
int spgo_perf_open(struct spgo_perf_reader **out, const char *path, unsigned flags);
void spgo_perf_close(struct spgo_perf_reader *r);
/* Next record: 1 and *rec filled, 0 at the end, -1 on error (spgo_error). */
int spgo_perf_next(struct spgo_perf_reader *r, struct spgo_perf_record *rec);

const char *spgo_perf_path(const struct spgo_perf_reader *r);
int spgo_perf_is_pipe(const struct spgo_perf_reader *r);
/* The events known so far (pipe mode learns them from HEADER_ATTR records):
 * how many, and the i-th (NULL when out of range).  rec->attr->index is the
 * position of a record's event. */
size_t spgo_perf_nattrs(const struct spgo_perf_reader *r);
const struct spgo_perf_attr *spgo_perf_attr(const struct spgo_perf_reader *r, size_t i);
/* The build-id table known so far. */
const struct spgo_perf_build_id *spgo_perf_build_ids(const struct spgo_perf_reader *r,
						    size_t *n);
/* The recorded command line (cmdline feature), or NULL. */
const char *spgo_perf_cmdline(const struct spgo_perf_reader *r);
/* The recording machine's architecture (HEADER_ARCH feature: uname -m,
 * "x86_64", "aarch64"), or NULL when the file has none (known so far, in
 * pipe mode); *off (may be NULL) gets the feature's file offset. */
const char *spgo_perf_arch(const struct spgo_perf_reader *r, uint64_t *off);
/* Bytes of the input consumed so far (for throughput figures). */
uint64_t spgo_perf_bytes_read(const struct spgo_perf_reader *r);

/* Name of a record type ("MMAP2", "SAMPLE", ...) or NULL if unknown. */
const char *spgo_perf_record_name(uint32_t type);

/* ---- processes and their mappings ------------------------------------- */

/*
 * A mapped file as the data names it.  Same name (and build-id, if known)
 * = same dso, across processes.
 */
struct spgo_perf_dso {
	char *name;
	uint8_t build_id[20];
	uint8_t build_id_size; /* 0 = unknown */
	uint8_t kernel;	       /* mapped by the kernel (vmlinux, modules) */
	uint8_t anon;	       /* //anon, [heap], [stack]...: identity-mapped */
	uint64_t samples;      /* samples whose ip fell in it (counted by the
				  aggregator for samples outside the binary) */
	void *user;	       /* free for the caller (the aggregator keeps its
				  per-dso matching verdict here) */
};

/* One executable mapping of a process: [start, end) at file offset pgoff. */
struct spgo_perf_map {
	uint64_t start, end, pgoff;
	uint32_t dso; /* index into spgo_perf_machine.dsos */
};

/*
 * The processes of a recording and their mappings, fed with the records in
 * order (spgo_perf_machine_feed; MMAP/MMAP2/COMM/FORK/EXIT and the build-id
 * table matter, the rest is ignored).  Follows perf's rules: threads share
 * their process's maps, FORK into a new process copies them, a new mapping
 * over an old one cuts the old one, kernel mappings (pid -1 or kernel
 * cpumode) are shared by all.
 */
struct spgo_perf_machine;

struct spgo_perf_machine *spgo_perf_machine_new(void);
void spgo_perf_machine_free(struct spgo_perf_machine *m);
/* Take in one record (any type; the irrelevant ones are ignored). */
void spgo_perf_machine_feed(struct spgo_perf_machine *m, const struct spgo_perf_record *rec);
/* Attach build-ids (from spgo_perf_build_ids()) to the dsos of those names. */
void spgo_perf_machine_build_ids(struct spgo_perf_machine *m,
				 const struct spgo_perf_build_id *ids, size_t n);
/*
 * The mapping holding addr in process pid.  cpumode selects the kernel maps
 * (PERF_RECORD_MISC_KERNEL) or the process's (anything else); NULL when
 * nothing is mapped there.  Cheap: a hash lookup (cached) and a binary search.
 */
const struct spgo_perf_map *spgo_perf_machine_find(struct spgo_perf_machine *m, uint32_t pid,
						   unsigned cpumode, uint64_t addr);
/* The processes with mappings so far: how many, and the i-th one's pid and
 * mappings (sorted by start; valid until the next feed). */
size_t spgo_perf_machine_nprocs(const struct spgo_perf_machine *m);
const struct spgo_perf_map *spgo_perf_machine_proc(const struct spgo_perf_machine *m, size_t i,
						   uint32_t *pid, size_t *nmaps);
/* The dsos seen so far; the array moves when a new dso appears. */
struct spgo_perf_dso *spgo_perf_machine_dsos(struct spgo_perf_machine *m, size_t *n);

/* ---- perf script text --------------------------------------------------- */

/*
 * A reader of the text `perf script` prints for `-F ip,brstack` (LBR
 * samples), `-F ip` (IP samples), either with call stacks (an indented
 * address per line, leaf first, before or after the LBR line), with
 * optional leading pid[/tid] and event fields, with `--show-mmap-events`
 * lines (PERF_RECORD_MMAP/MMAP2), and llvm-profgen's aggregated form (a
 * count line before each sample, sample.count).  Lines of no known form
 * (comments, headers, banners) are skipped, counted and warned about once;
 * a file of nothing else is an error.  It hands out the same records as the
 * perf.data reader: SAMPLE (ip, branches, callchain, pid; PERF_SAMPLE_TID
 * in sample_type only when the text has the pid) and MMAP/MMAP2.  Call stack addresses in the
 * text are what perf prints: for user code the offset within the mapped
 * file, not the runtime address, and the text does not say which file; such
 * samples (ip = the first stack line) have the bit
 * SPGO_PERF_SAMPLE_TEXT_FRAMES set in sample.sample_type, and the aggregator
 * takes their user frames as offsets in the profiled binary.  Errors name
 * the file and line.
 */
#define SPGO_PERF_SAMPLE_TEXT_FRAMES (1ULL << 63)
struct spgo_perf_text;
int spgo_perf_text_open(struct spgo_perf_text **out, const char *path);
void spgo_perf_text_close(struct spgo_perf_text *t);
int spgo_perf_text_next(struct spgo_perf_text *t, struct spgo_perf_record *rec);
/* The events the text named in its event column ("cpu-clock:"), in order of
 * appearance: rec->attr of a sample is one of them (NULL without the
 * column), its index its position. */
size_t spgo_perf_text_nattrs(const struct spgo_perf_text *t);
const struct spgo_perf_attr *spgo_perf_text_attr(const struct spgo_perf_text *t, size_t i);
/* Lines skipped so far as no part of a sample, and the first one's number. */
uint64_t spgo_perf_text_skipped(const struct spgo_perf_text *t, uint64_t *first_line);
/*
 * Addresses keyed by build-id, newer llvm-profgen's "[buildid:]0xADDR" (an
 * ip, a stack line, either end of an LBR entry): one whose build-id is not
 * hex_id (the profiled binary's, in hex; "" for none) is handed out as
 * SPGO_PERF_TEXT_FOREIGN, which maps into no file; one with hex_id, as its
 * address.  Addresses without a prefix are not touched.  Before the first
 * spgo_perf_text_next; hex_id is copied.
 */
#define SPGO_PERF_TEXT_FOREIGN 0xfffffffffffe0000ULL
void spgo_perf_text_build_id(struct spgo_perf_text *t, const char *hex_id);

#endif
