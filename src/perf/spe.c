/*
 * Arm SPE packets and records (spgo/perf_spe.h): the packet decoder, the
 * words perf's raw dump uses for each packet, and the record decoder that
 * groups packets up to END or TIMESTAMP.
 */
#include <stdio.h>
#include <string.h>

#include "spgo/common.h"
#include "spgo/perf_spe.h"

/* Payload bytes from the size field, bits 5:4 of a (last) header byte. */
static inline unsigned payload_len(uint8_t h)
{
	return 1u << ((h >> 4) & 3);
}

/* The payload after hdr_len header bytes: the packet's length, or 0 when
 * the buffer ends first.  Eight bytes are read at once when there is room
 * (little-endian host: spgo reads no other). */
static inline __attribute__((always_inline)) int with_payload(const uint8_t *p, size_t n, unsigned hdr_len, struct spgo_spe_packet *pkt)
{
	unsigned len = payload_len(p[hdr_len - 1]);
	if (SPGO_UNLIKELY(n < hdr_len + len))
		return 0;
	uint64_t v = 0;
	if (SPGO_LIKELY(n >= hdr_len + 8)) {
		memcpy(&v, p + hdr_len, 8);
		if (len < 8)
			v &= (1ULL << (8 * len)) - 1;
	} else {
		for (unsigned i = 0; i < len; i++)
			v |= (uint64_t)p[hdr_len + i] << (8 * i);
	}
	pkt->payload = v;
	pkt->len = (uint8_t)(hdr_len + len);
	return pkt->len;
}

/* The packet decoder; the most frequent kinds (addresses, counters,
 * events) are tested first. */
static inline __attribute__((always_inline)) int decode(const uint8_t *p, size_t n, struct spgo_spe_packet *pkt)
{
	uint8_t h = p[0];
	pkt->index = 0;
	pkt->payload = 0;
	if ((h & 0xf8) == 0xb0 || (h & 0xf8) == 0x98) {
		pkt->type = (h & 0xf8) == 0xb0 ? SPGO_SPE_ADDRESS : SPGO_SPE_COUNTER;
		pkt->index = h & 7;
		return with_payload(p, n, 1, pkt);
	}
	if ((h & 0xcf) == 0x42 || (h & 0xcf) == 0x43) {
		pkt->type = (h & 1) ? SPGO_SPE_DATA_SOURCE : SPGO_SPE_EVENTS;
		pkt->index = (uint8_t)payload_len(h);
		return with_payload(p, n, 1, pkt);
	}
	if ((h & 0xfc) == 0x48 || (h & 0xfc) == 0x64) {
		pkt->type = (h & 0xfc) == 0x48 ? SPGO_SPE_OP_TYPE : SPGO_SPE_CONTEXT;
		pkt->index = h & 3;
		return with_payload(p, n, 1, pkt);
	}
	switch (h) {
	case 0x00:
		pkt->type = SPGO_SPE_PAD;
		return pkt->len = 1;
	case 0x01:
		pkt->type = SPGO_SPE_END;
		return pkt->len = 1;
	case 0x71:
		pkt->type = SPGO_SPE_TIMESTAMP;
		return with_payload(p, n, 1, pkt);
	default:
		break;
	}
	if ((h & 0xf8) == 0x20) { /* extended header: the index's high bits */
		if (n < 2)
			return 0;
		uint8_t h1 = p[1];
		if ((h1 & 0xf8) == 0xb0 || (h1 & 0xf8) == 0x98) {
			pkt->type = (h1 & 0xf8) == 0xb0 ? SPGO_SPE_ADDRESS : SPGO_SPE_COUNTER;
			pkt->index = (uint8_t)(((h & 3u) << 3) | (h1 & 7));
			return with_payload(p, n, 2, pkt);
		}
	}
	return -1;
}

int spgo_spe_packet(const uint8_t *p, size_t n, struct spgo_spe_packet *pkt)
{
	memset(pkt, 0, sizeof *pkt);
	if (n == 0)
		return 0;
	return decode(p, n, pkt);
}

static inline __attribute__((always_inline)) uint64_t address(unsigned index, uint64_t payload)
{
	uint64_t a = payload & ((1ULL << 56) - 1);
	switch (index) {
	case SPGO_SPE_ADDR_PC:
	case SPGO_SPE_ADDR_TARGET:
	case SPGO_SPE_ADDR_PREV_TARGET:
		if (a >> 55 & 1)
			a |= 0xffULL << 56;
		return a;
	case SPGO_SPE_ADDR_VA:
		if ((a >> 48 & 0xff) == 0xff) /* the tag byte is not part of it */
			a |= 0xffULL << 56;
		return a;
	default:
		return a;
	}
}

uint64_t spgo_spe_address(unsigned index, uint64_t payload)
{
	return address(index, payload);
}

/* Append to a description: out of room is cut, never overrun. */
struct desc {
	char *buf;
	size_t n, at;
};

static void put(struct desc *d, const char *fmt, unsigned long long v, int w)
{
	if (d->at >= d->n)
		return;
	int k = snprintf(d->buf + d->at, d->n - d->at, fmt, v, w);
	if (k > 0)
		d->at += (size_t)k;
}

static void desc_events(struct desc *d, const struct spgo_spe_packet *pkt)
{
	static const char *const names[] = {
		[0] = " EXCEPTION-GEN", [1] = " RETIRED", [2] = " L1D-ACCESS", [3] = " L1D-REFILL",
		[4] = " TLB-ACCESS",    [5] = " TLB-REFILL", [6] = " NOT-TAKEN", [7] = " MISPRED",
		[8] = " LLC-ACCESS",    [9] = " LLC-REFILL", [10] = " REMOTE-ACCESS",
		[11] = " ALIGNMENT",    [17] = " SVE-PARTIAL-PRED", [18] = " SVE-EMPTY-PRED",
	};
	put(d, "EV", 0, 0);
	for (unsigned b = 0; b < sizeof names / sizeof *names; b++) {
		if (!names[b] || !(pkt->payload >> b & 1))
			continue;
		/* bits past the first byte only in wider payloads, as perf prints */
		if ((b >= 8 && pkt->index < 2) || (b >= 11 && pkt->index < 4))
			continue;
		put(d, names[b], 0, 0);
	}
}

void spgo_spe_packet_desc(const struct spgo_spe_packet *pkt, char *buf, size_t n)
{
	struct desc d = {buf, n, 0};
	if (n)
		buf[0] = '\0';
	uint64_t v = pkt->payload;
	switch (pkt->type) {
	case SPGO_SPE_PAD: put(&d, "PAD", 0, 0); break;
	case SPGO_SPE_END: put(&d, "END", 0, 0); break;
	case SPGO_SPE_TIMESTAMP: put(&d, "TS %llu", v, 0); break;
	case SPGO_SPE_DATA_SOURCE: put(&d, "DATA-SOURCE %llu", v, 0); break;
	case SPGO_SPE_CONTEXT: put(&d, "CONTEXT 0x%llx el%d", v, pkt->index + 1); break;
	case SPGO_SPE_EVENTS: desc_events(&d, pkt); break;
	case SPGO_SPE_OP_TYPE:
		if (pkt->index == SPGO_SPE_OP_BRANCH) {
			put(&d, "B", 0, 0);
			if (v & SPGO_SPE_BR_COND)
				put(&d, " COND", 0, 0);
			if (v & SPGO_SPE_BR_INDIRECT)
				put(&d, " IND", 0, 0);
		} else if (pkt->index == SPGO_SPE_OP_LDST) {
			put(&d, v & 1 ? "ST" : "LD", 0, 0);
		} else {
			put(&d, v & 1 ? "OTHER COND-SELECT" : "OTHER UNCOND", 0, 0);
		}
		break;
	case SPGO_SPE_ADDRESS: {
		static const char *const idx[] = {"PC", "TGT", "VA", "PA", "PBT"};
		uint64_t a = v & ((1ULL << 56) - 1);
		if (pkt->index == SPGO_SPE_ADDR_VA) {
			put(&d, "VA 0x%llx", a, 0);
		} else if (pkt->index == SPGO_SPE_ADDR_PA) {
			put(&d, "PA 0x%llx", a, 0);
			put(&d, " ns=%llu", v >> 63, 0);
		} else if (pkt->index < 5) {
			put(&d, idx[pkt->index], 0, 0);
			put(&d, " 0x%llx", a, 0);
			put(&d, " el%llu", v >> 61 & 3, 0);
			put(&d, " ns=%llu", v >> 63, 0);
		} else {
			put(&d, "ADDR 0x%llx", a, 0);
			put(&d, " (index %llu)", pkt->index, 0);
		}
		break;
	}
	case SPGO_SPE_COUNTER: {
		static const char *const idx[] = {"TOT", "ISSUE", "XLAT"};
		put(&d, "LAT %llu ", v & 0xffff, 0);
		if (pkt->index < 3)
			put(&d, idx[pkt->index], 0, 0);
		break;
	}
	default: put(&d, "BAD", 0, 0); break;
	}
}

void spgo_spe_decoder_init(struct spgo_spe_decoder *d, const uint8_t *buf, size_t len)
{
	memset(d, 0, sizeof *d);
	d->buf = buf;
	d->len = len;
}

/* Fold one packet into the record being built. */
static inline __attribute__((always_inline)) void take_packet(struct spgo_spe_record *rec, const struct spgo_spe_packet *pkt)
{
	uint64_t v = pkt->payload;
	switch (pkt->type) {
	case SPGO_SPE_TIMESTAMP:
		rec->timestamp = v;
		rec->has |= SPGO_SPE_HAS_TIMESTAMP;
		break;
	case SPGO_SPE_ADDRESS:
		switch (pkt->index) {
		case SPGO_SPE_ADDR_PC:
			rec->pc = address(pkt->index, v);
			rec->el = (uint8_t)(v >> 61 & 3);
			rec->has |= SPGO_SPE_HAS_PC;
			break;
		case SPGO_SPE_ADDR_TARGET:
			rec->target = address(pkt->index, v);
			rec->has |= SPGO_SPE_HAS_TARGET;
			break;
		case SPGO_SPE_ADDR_PREV_TARGET:
			rec->prev_target = address(pkt->index, v);
			rec->has |= SPGO_SPE_HAS_PREV_TARGET;
			break;
		case SPGO_SPE_ADDR_VA: rec->vaddr = address(pkt->index, v); break;
		case SPGO_SPE_ADDR_PA: rec->paddr = address(pkt->index, v); break;
		default: break;
		}
		break;
	case SPGO_SPE_COUNTER:
		if (pkt->index == 0)
			rec->latency = (uint16_t)v;
		break;
	case SPGO_SPE_CONTEXT:
		rec->context = (uint32_t)v;
		rec->has |= SPGO_SPE_HAS_CONTEXT;
		break;
	case SPGO_SPE_OP_TYPE:
		rec->op_class = pkt->index;
		rec->op = (uint8_t)v;
		rec->has |= SPGO_SPE_HAS_OP;
		break;
	case SPGO_SPE_EVENTS:
		rec->events = (uint32_t)v;
		break;
	default:
		break;
	}
}

/*
 * The packets of a usual record, folded straight into rec: one jump on the
 * header byte, one 8-byte load (at least 9 bytes are left).  Returns the
 * packet's length, 0 for a header this does not handle (decode() then),
 * and sets *ends for END and TIMESTAMP.
 */
static inline __attribute__((always_inline)) unsigned fold_short(struct spgo_spe_record *rec,
								  const uint8_t *p, int *ends)
{
	uint64_t v;
	memcpy(&v, p + 1, 8);
	uint8_t h = p[0];
	switch (h) {
	case 0xb0:
		rec->pc = address(SPGO_SPE_ADDR_PC, v);
		rec->el = (uint8_t)(v >> 61 & 3);
		rec->has |= SPGO_SPE_HAS_PC;
		return 9;
	case 0xb1:
		rec->target = address(SPGO_SPE_ADDR_TARGET, v);
		rec->has |= SPGO_SPE_HAS_TARGET;
		return 9;
	case 0xb2: rec->vaddr = address(SPGO_SPE_ADDR_VA, v); return 9;
	case 0xb3: rec->paddr = address(SPGO_SPE_ADDR_PA, v); return 9;
	case 0xb4:
		rec->prev_target = address(SPGO_SPE_ADDR_PREV_TARGET, v);
		rec->has |= SPGO_SPE_HAS_PREV_TARGET;
		return 9;
	case 0xb5: case 0xb6: case 0xb7: return 9;
	case 0x98: rec->latency = (uint16_t)v; return 3;
	case 0x99: case 0x9a: case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: return 3;
	case 0x42: rec->events = (uint32_t)(v & 0xff); return 2;
	case 0x52: rec->events = (uint32_t)(v & 0xffff); return 3;
	case 0x62: rec->events = (uint32_t)v; return 5;
	case 0x72: rec->events = (uint32_t)v; return 9;
	case 0x43: return 2;
	case 0x53: return 3;
	case 0x63: return 5;
	case 0x73: return 9;
	case 0x48: case 0x49: case 0x4a: case 0x4b:
		rec->op_class = h & 3;
		rec->op = (uint8_t)v;
		rec->has |= SPGO_SPE_HAS_OP;
		return 2;
	case 0x64: case 0x65: case 0x66: case 0x67:
		rec->context = (uint32_t)v;
		rec->has |= SPGO_SPE_HAS_CONTEXT;
		return 5;
	case 0x71:
		rec->timestamp = v;
		rec->has |= SPGO_SPE_HAS_TIMESTAMP;
		*ends = 1;
		return 9;
	case 0x01:
		*ends = 1;
		return 1;
	default:
		return 0; /* PAD, extended headers, unknown bytes */
	}
}

int spgo_spe_next(struct spgo_spe_decoder *d, struct spgo_spe_record *rec)
{
	struct spgo_spe_stats *st = &d->st;
	memset(rec, 0, sizeof *rec);
	int started = 0, dropped = 0;
	while (d->pos < d->len) {
		size_t left = d->len - d->pos;
		int ends = 0;
		unsigned k = left >= 9 ? fold_short(rec, d->buf + d->pos, &ends) : 0;
		if (k) {
			st->packets++;
			if (!started) {
				started = 1;
				rec->offset = d->pos;
			}
			d->pos += k;
			if (!ends)
				continue;
		} else {
			struct spgo_spe_packet pkt;
			int n = decode(d->buf + d->pos, left, &pkt);
			if (n < 0) {
				if (!st->unknown)
					st->unknown_first = d->pos;
				st->unknown++;
				d->pos++;
				if (started && !dropped) {
					st->dropped++;
					dropped = 1;
				}
				continue;
			}
			if (n == 0) { /* the buffer ends inside this packet */
				if (!st->cut)
					st->cut_first = d->pos;
				st->cut++;
				d->pos = d->len;
				return 0;
			}
			st->packets++;
			if (pkt.type == SPGO_SPE_PAD) {
				d->pos += (size_t)n;
				continue;
			}
			if (!started) {
				started = 1;
				rec->offset = d->pos;
			}
			d->pos += (size_t)n;
			take_packet(rec, &pkt);
			if (pkt.type != SPGO_SPE_END && pkt.type != SPGO_SPE_TIMESTAMP)
				continue;
		}
		/* the record is complete */
		if (dropped) {
			memset(rec, 0, sizeof *rec);
			started = dropped = 0;
			continue;
		}
		st->records++;
		if (!(rec->has & SPGO_SPE_HAS_PC)) {
			st->no_pc++;
			memset(rec, 0, sizeof *rec);
			started = 0;
			continue;
		}
		if ((rec->has & SPGO_SPE_HAS_OP) && rec->op_class == SPGO_SPE_OP_BRANCH) {
			st->branches++;
			st->not_taken += (rec->events & SPGO_SPE_EV_NOT_TAKEN) != 0;
		}
		return 1;
	}
	if (started && !dropped) { /* a record the buffer cut short */
		if (!st->cut)
			st->cut_first = rec->offset;
		st->cut++;
	}
	return 0;
}

void spgo_spe_dump(const uint8_t *buf, size_t len, FILE *out)
{
	fprintf(out, ". ... ARM SPE data: size %#zx bytes\n", len);
	size_t pos = 0;
	char desc[256];
	while (pos < len) {
		struct spgo_spe_packet pkt;
		int k = spgo_spe_packet(buf + pos, len - pos, &pkt);
		size_t n = k > 0 ? (size_t)k : 1;
		if (k > 0 && pkt.type == SPGO_SPE_PAD) /* a run of PADs: one line of up to 16 */
			while (n < 16 && pos + n < len && buf[pos + n] == 0)
				n++;
		fprintf(out, ".  %08zx: ", pos);
		for (size_t i = 0; i < 16; i++) {
			if (i < n)
				fprintf(out, " %02x", buf[pos + i]);
			else
				fputs("   ", out);
		}
		if (k > 0) {
			spgo_spe_packet_desc(&pkt, desc, sizeof desc);
			fprintf(out, " %s\n", desc);
		} else {
			fputs(" Bad packet!\n", out);
		}
		pos += n;
	}
}
