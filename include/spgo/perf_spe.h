/*
 * spgo/perf_spe.h: Arm SPE (Statistical Profiling Extension) trace data, as
 * perf stores it in the AUX area of a perf.data (PERF_RECORD_AUXTRACE_INFO of
 * type ARM_SPE, then PERF_RECORD_AUXTRACE records each followed by its bytes
 * of packets).  Part of the perf stage (spgo/perf.h); no perf program needed.
 *
 * The packet format is the Arm ARM's (Statistical Profiling Extension
 * chapter): a one-byte header (or a two-byte "extended" one) whose bits 5:4
 * give the payload size (1 << n bytes), then the payload, little-endian.
 *
 *     0x00 PAD | 0x01 END | 0x71 TIMESTAMP (8)
 *     01ss0010 EVENTS | 01ss0011 DATA-SOURCE | 011001ii CONTEXT (4)
 *     010010cc OP-TYPE (1; class 0 other, 1 load/store, 2 branch)
 *     10110iii ADDRESS (8; index 0 PC, 1 branch target, 2 data VA,
 *              3 data PA, 4 previous branch target)
 *     10011iii COUNTER (2; index 0 total latency, 1 issue, 2 translation)
 *     001000hh + one of the two above: the index gets hh << 3
 *
 * A record is the packets up to an END or a TIMESTAMP packet (a record with a
 * timestamp ends with it).  Instruction addresses (PC, target, previous
 * target) carry the exception level in bits 62:61 and the non-secure bit in
 * 63; the address is bits 55:0, sign-extended from bit 55 (perf's rule).
 *
 * Contract
 *  - spgo_spe_packet() never reads past n bytes; it says "needs more bytes"
 *    (0) for a packet cut by the end of the buffer and "unknown" (-1) for a
 *    header byte of no known packet.
 *  - The record decoder skips an unknown header byte (counting it, and
 *    dropping the record it was in: its other packets cannot be trusted) and
 *    goes on at the next byte, as perf's packet dump does; a buffer that ends
 *    inside a packet or a record stops there, counted.  Records without a PC
 *    are counted and not handed out.  Nothing loops: every step consumes at
 *    least one byte.
 *  - The perf.data reader (spgo/perf.h) turns each record into a SAMPLE
 *    (SPGO_PERF_SAMPLE_SPE in sample_type; see there), so every consumer of
 *    the reader gets SPE captures as samples.
 */
#ifndef SPGO_PERF_SPE_H
#define SPGO_PERF_SPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* PERF_RECORD_AUXTRACE_INFO's type for Arm SPE (perf's PERF_AUXTRACE_ARM_SPE). */
#define SPGO_AUXTRACE_ARM_SPE 4

enum spgo_spe_pkt_type {
	SPGO_SPE_PAD = 1,
	SPGO_SPE_END,
	SPGO_SPE_TIMESTAMP,
	SPGO_SPE_ADDRESS,
	SPGO_SPE_COUNTER,
	SPGO_SPE_CONTEXT,
	SPGO_SPE_OP_TYPE,
	SPGO_SPE_EVENTS,
	SPGO_SPE_DATA_SOURCE,
};

/* Address packet indices. */
enum { SPGO_SPE_ADDR_PC = 0, SPGO_SPE_ADDR_TARGET = 1, SPGO_SPE_ADDR_VA = 2, SPGO_SPE_ADDR_PA = 3,
       SPGO_SPE_ADDR_PREV_TARGET = 4 };
/* Operation classes (OP-TYPE header bits 1:0) and branch payload bits. */
enum { SPGO_SPE_OP_OTHER = 0, SPGO_SPE_OP_LDST = 1, SPGO_SPE_OP_BRANCH = 2 };
#define SPGO_SPE_BR_COND 0x01u     /* conditional */
#define SPGO_SPE_BR_INDIRECT 0x02u /* indirect */
#define SPGO_SPE_BR_CR_MASK 0x18u  /* bits 4:3: 1 call (BL), 2 return */
/* EVENTS payload bits. */
#define SPGO_SPE_EV_RETIRED (1u << 1)
#define SPGO_SPE_EV_NOT_TAKEN (1u << 6)
#define SPGO_SPE_EV_MISPRED (1u << 7)

struct spgo_spe_packet {
	uint8_t type;  /* enum spgo_spe_pkt_type */
	uint8_t index; /* address/counter index, context index, op class,
			  events payload size */
	uint8_t len;   /* bytes, header included */
	uint64_t payload;
};

/* One packet at p (n bytes available): its length (> 0), 0 when the buffer
 * ends inside it, -1 when p[0] starts no known packet. */
int spgo_spe_packet(const uint8_t *p, size_t n, struct spgo_spe_packet *pkt);
/* The packet in the words of perf's raw dump (`perf script -D`: "PC 0x...
 * el0 ns=1", "B COND", "EV RETIRED NOT-TAKEN", ...) into buf. */
void spgo_spe_packet_desc(const struct spgo_spe_packet *pkt, char *buf, size_t n);
/* The packets of buf as `perf script -D` dumps SPE data (". ... ARM SPE
 * data: size ..." then one line per packet: offset, bytes, description;
 * a run of PADs on one line, an unknown byte as "Bad packet!"). */
void spgo_spe_dump(const uint8_t *buf, size_t len, FILE *out);
/* An instruction or data address packet's address (see above). */
uint64_t spgo_spe_address(unsigned index, uint64_t payload);

/* Which fields of a record its packets gave. */
#define SPGO_SPE_HAS_PC 0x01u
#define SPGO_SPE_HAS_TARGET 0x02u
#define SPGO_SPE_HAS_PREV_TARGET 0x04u
#define SPGO_SPE_HAS_CONTEXT 0x08u
#define SPGO_SPE_HAS_TIMESTAMP 0x10u
#define SPGO_SPE_HAS_OP 0x20u

struct spgo_spe_record {
	uint64_t offset; /* of its first packet in the buffer */
	uint64_t pc, target, prev_target, vaddr, paddr, timestamp;
	uint32_t context; /* CONTEXTIDR: the thread id when the kernel puts it there */
	uint32_t events;  /* EVENTS bits */
	uint16_t latency; /* total latency counter */
	uint8_t op_class; /* SPGO_SPE_OP_* (with SPGO_SPE_HAS_OP) */
	uint8_t op;       /* OP-TYPE payload */
	uint8_t el;       /* exception level of the PC */
	uint8_t has;      /* SPGO_SPE_HAS_* */
};

/* Counts of what a decoder met (added up over buffers by the reader). */
struct spgo_spe_stats {
	uint64_t packets, records, branches, not_taken;
	uint64_t no_pc;         /* records without a PC: not handed out */
	uint64_t unknown;       /* header bytes of no known packet, skipped */
	uint64_t unknown_first; /* the first one's offset in its buffer */
	uint64_t dropped;       /* records dropped for an unknown packet inside */
	uint64_t cut;           /* buffers ending inside a packet or a record */
	uint64_t cut_first;     /* the first such end's offset in its buffer */
	/* (counted by the perf.data reader, spgo/perf.h) */
	uint64_t zero_pc;       /* records whose PC is 0: not handed out */
	uint64_t no_target;     /* branch records without a target (or 0): IP samples */
};

struct spgo_spe_decoder {
	const uint8_t *buf;
	size_t len, pos;
	struct spgo_spe_stats st;
};

void spgo_spe_decoder_init(struct spgo_spe_decoder *d, const uint8_t *buf, size_t len);
/* The next record with a PC: 1 and *rec filled, 0 at the end of the buffer. */
int spgo_spe_next(struct spgo_spe_decoder *d, struct spgo_spe_record *rec);

#endif
