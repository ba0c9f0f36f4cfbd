/*
 * perf_impl.h: what the files of src/perf share (not a public header).
 */
#ifndef SPGO_PERF_IMPL_H
#define SPGO_PERF_IMPL_H

/* How often a mapped file's pages are given back (bytes read or delivered). */
#define RELEASE_STEP ((size_t)16 << 20)

#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_spe.h"

/* Arm SPE: what the reader keeps to turn AUX data into samples (spe_read.c). */
struct perf_spe {
	int active;          /* an AUXTRACE_INFO of type ARM_SPE was read */
	int pending;         /* a buffer's records are being handed out */
	uint32_t pmu_type;   /* the SPE event's attr.type */
	size_t attr;         /* index of the synthetic "arm_spe" event in attrs */
	const uint8_t *data; /* the AUXTRACE record's bytes (the mapping or copy) */
	uint64_t size, avail; /* the size the record gives, and bytes present */
	uint64_t data_off;   /* file offset of data[0] */
	uint32_t tid, cpu;   /* of the AUXTRACE record (~0: unknown) */
	struct spgo_spe_decoder dec;
	struct spgo_spe_stats st; /* all buffers so far */
	uint64_t buffers, cut_off, unknown_off; /* file offsets of the first cut / unknown */
	uint64_t aux_lost, aux_lost_off; /* AUX records flagged truncated or collided */
	uint64_t zero_pc_off, no_target_off; /* the first record with PC 0 / no target */
	uint8_t *copy;       /* the data of a buffer read through read(2) */
	size_t copy_cap;
	struct perf_branch_entry br[2];
	struct spgo_kmap tid2pid; /* from COMM and FORK records */
	uint32_t last_tid, last_pid; /* the last lookup in it */
	int last_valid;
	/* A zero sample, copied into a caller's record the first time it is
	 * used for SPE (then only the fields an SPE sample has are set). */
	struct spgo_perf_sample tmpl;
	const struct spgo_perf_record *last_rec;
	int tmpl_ready;
	int warned;
};

/* A record waiting in the time-ordering queue. */
struct perf_qent {
	uint64_t time, seq, off;
	const uint8_t *ptr; /* the record in the mapped file, or NULL: */
	size_t at;	    /* ... its offset in the queue arena */
};

struct spgo_perf_reader {
	char *path;
	int fd;
	int pipe;
	unsigned flags;

	/* Input buffer: bytes [pos, len) of buf are unread; buf[0] is at input
	 * offset buf_off.  data_end is where the data section ends. */
	uint8_t *buf;
	size_t cap, pos, len;
	uint64_t buf_off, data_end, bytes_read, nrecords;
	/* A regular file is mapped whole instead (buf = the mapping, read-only,
	 * eof set): no copies, queued records stay where they are, and pages
	 * below the read position are given back (MADV_DONTNEED) every
	 * RELEASE_STEP bytes read or delivered to bound RSS; a queued record
	 * given back is read again from the page cache when it goes out (the
	 * mapping is private and never written: nothing is lost).  Pages
	 * below `released` were given back, except those of records delivered
	 * from touch_lo on (refaulted); `delivered` counts bytes since. */
	int mapped;
	size_t map_size, released, touch_lo, delivered;
	int eof, hit_eof_early, read_errno, ended, warned_trunc;
	int warned_features; /* the file ends inside its feature sections: said */
	uint64_t rec_copy[65536 / 8]; /* a record that must outlive a refill */

	/* Events and where their id sits in records. */
	VEC(struct spgo_perf_attr *) attrs;
	struct spgo_kmap id2attr; /* id -> index in attrs */
	int id_pos, id_pos_end;	  /* word index of the id in a sample / from
				     the end of a sample_id trailer; -1 none */
	VEC(struct spgo_perf_build_id) build_ids;
	char *cmdline;
	char *arch;        /* HEADER_ARCH: the recording machine's uname -m, or NULL */
	uint64_t arch_off; /* where that feature is in the file */
	uint64_t feat_off; /* offset of the feature being read (for the above) */

	/* Unpacked COMPRESSED data: [zpos, zlen) of zbuf not yet handed out. */
	void *zds;
	uint8_t *zbuf;
	size_t zcap, zpos, zlen;
	uint64_t zoff;

	/* Ordered mode (see SPGO_PERF_ORDERED). */
	VEC(struct perf_qent) q;
	size_t q_next, q_ready; /* entries [q_next, q_ready) may go out */
	uint8_t *arena;
	size_t arena_len, arena_cap, arena_dead;
	uint8_t *spare; /* the other buffer the arena is packed into */
	size_t spare_cap;
	uint64_t seq, next_flush, max_time, q_max;
	uint64_t queued; /* bytes of the records waiting in the queue */
	int finished;

	struct perf_spe spe;

	/* Filename/comm copies, NUL-terminated for the caller. */
	char name[4096 + 1];
};

void perf_layout_attrs(struct spgo_perf_reader *r);
void perf_feature(struct spgo_perf_reader *r, unsigned feat, const uint8_t *p, size_t n);
int perf_raw_next(struct spgo_perf_reader *r, const uint8_t **p, struct perf_event_header *hdr,
		  uint64_t *off);
int perf_user_record(struct spgo_perf_reader *r, const uint8_t *p,
		     const struct perf_event_header *h, uint64_t off);
void perf_queue_free(struct spgo_perf_reader *r);
void perf_release_pages(struct spgo_perf_reader *r);
/* spe_read.c: an AUXTRACE_INFO record; an AUXTRACE record whose data the
 * reader has in r->spe; the next synthesized sample (1, or 0 when the buffer
 * is done); a delivered record (for the threads' processes); the warnings
 * at the end; freeing. */
void perf_spe_info(struct spgo_perf_reader *r, const uint8_t *p, const struct perf_event_header *h,
		   uint64_t off);
void perf_spe_buffer(struct spgo_perf_reader *r, const uint8_t *p, const struct perf_event_header *h,
		     uint64_t off);
int perf_spe_sample(struct spgo_perf_reader *r, struct spgo_perf_record *rec);
void perf_spe_track(struct spgo_perf_reader *r, const struct spgo_perf_record *rec);
void perf_spe_end(struct spgo_perf_reader *r);
void perf_spe_free(struct spgo_perf_reader *r);

#endif
