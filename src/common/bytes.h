/*
 * common/bytes.h: the one bounded reader of binary data in spgo: fixed-size
 * little-endian numbers, LEB128 numbers, strings and byte spans, as the
 * sections and files spgo reads hold them (DWARF, .pseudo_probe,
 * .llvm_bb_addr_map, LLVM extended binary profiles, unsymbolized profiles,
 * the emulator's counts).  Its writing half, spgo_uleb_encode(), is in
 * spgo/common.h.
 *
 * Contract
 *  - Every read stops at the end the reader was given and records in bad
 *    why it failed (RD_SHORT: it ran past the end; RD_OVERFLOW: a LEB128
 *    number does not fit in 64 bits), returning 0 or what it had, so
 *    malformed input can never make a reader look outside its bytes.
 *    Callers check bad where a value matters, and turn it into an error
 *    that names the file and offset (rd_off()).  The first reason is kept.
 *  - Where a failed read leaves p: a fixed-size read or a skip that does
 *    not fit moves p to the end; a LEB128 number that runs past the end
 *    leaves p at the end; one that overflows leaves p just after its
 *    tenth byte.  A caller that wants the offset of the field itself saves
 *    p before the read.
 *  - A LEB128 number is at most 10 bytes, its tenth byte holding bit 63
 *    alone (ULEB128: 0 or 1; SLEB128: 0 or 0x7f, a copy of the sign); any
 *    other tenth byte is RD_OVERFLOW.  This is the rule every reader of
 *    spgo applied before this header was shared.
 *  - Nothing here allocates or reports errors; the reader is a value on
 *    the caller's stack.
 *
 *     struct rd r = rd_init(data, size);
 *     uint64_t n = rd_uleb(&r);
 *     if (r.bad) return spgo_error("%s: offset 0x%zx: ...", path, rd_off(&r));
 */
#ifndef SPGO_COMMON_BYTES_H
#define SPGO_COMMON_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RD_SHORT 1    /* a read ran past the end */
#define RD_OVERFLOW 2 /* a LEB128 number does not fit in 64 bits */

struct rd {
	const uint8_t *p, *end;
	int bad;             /* 0, RD_SHORT or RD_OVERFLOW: the first failure */
	const uint8_t *base; /* where rd_off() counts from (rd_init) */
};

/* A reader of data[0, size), offsets counted from data. */
static inline struct rd rd_init(const void *data, size_t size)
{
	const uint8_t *d = data;
	return (struct rd){d, d + size, 0, d};
}

static inline void rd_fail(struct rd *r, int why)
{
	if (!r->bad)
		r->bad = why;
}

/* Bytes left, and the offset of p from base. */
static inline size_t rd_left(const struct rd *r)
{
	return (size_t)(r->end - r->p);
}

static inline size_t rd_off(const struct rd *r)
{
	return (size_t)(r->p - r->base);
}

/* n bytes (n <= 8), little-endian. */
static inline uint64_t rd_le(struct rd *r, unsigned n)
{
	if (rd_left(r) < n) {
		rd_fail(r, RD_SHORT);
		r->p = r->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static inline uint8_t rd_u8(struct rd *r)
{
	if (r->p >= r->end) {
		rd_fail(r, RD_SHORT);
		return 0;
	}
	return *r->p++;
}

static inline uint16_t rd_u16(struct rd *r)
{
	return (uint16_t)rd_le(r, 2);
}

static inline uint32_t rd_u32(struct rd *r)
{
	return (uint32_t)rd_le(r, 4);
}

static inline uint64_t rd_u64(struct rd *r)
{
	return rd_le(r, 8);
}

/* ULEB128 (see the contract for its 10-byte limit). */
static inline uint64_t rd_uleb(struct rd *r)
{
	if (r->p < r->end && !(*r->p & 0x80)) /* the common one-byte number */
		return *r->p++;
	uint64_t v = 0;
	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;
		if (shift == 63 && b > 1) {
			rd_fail(r, RD_OVERFLOW);
			return v;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	rd_fail(r, RD_SHORT);
	return v;
}

/* SLEB128 (see the contract for its 10-byte limit). */
static inline int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;
		if (shift == 63 && b != 0 && b != 0x7f) {
			rd_fail(r, RD_OVERFLOW);
			return (int64_t)v;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift + 7 < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << (shift + 7);
			return (int64_t)v;
		}
	}
	rd_fail(r, RD_SHORT);
	return (int64_t)v;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)rd_left(r) < n) {
		rd_fail(r, RD_SHORT);
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* n bytes in place, or NULL (and bad, p at the end) when fewer are left. */
static inline const uint8_t *rd_bytes(struct rd *r, uint64_t n)
{
	if ((uint64_t)rd_left(r) < n) {
		rd_fail(r, RD_SHORT);
		r->p = r->end;
		return NULL;
	}
	const uint8_t *s = r->p;
	r->p += n;
	return s;
}

/* A NUL-terminated string inside the bounds, or NULL (and bad). */
static inline const char *rd_cstr(struct rd *r)
{
	const uint8_t *z = memchr(r->p, 0, rd_left(r));
	if (!z) {
		rd_fail(r, RD_SHORT);
		r->p = r->end;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

#endif
