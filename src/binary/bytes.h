/*
 * bytes.h: bounded reading of little-endian DWARF-style data, shared by
 * the section readers of src/binary (debug_line.c, split.c).  Every read
 * stops at the end the reader was given and records in bad that it ran
 * past it (returning 0 or what it had), so malformed input can never make
 * a reader look outside its section; callers check bad where a value
 * matters.
 */
#ifndef SPGO_BINARY_BYTES_H
#define SPGO_BINARY_BYTES_H

#include <stdint.h>
#include <string.h>

struct rd {
	const uint8_t *p, *end;
	int bad; /* a read ran past end */
};

/* n bytes (n <= 8), little-endian. */
static inline uint64_t rd_le(struct rd *r, unsigned n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
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
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

/* ULEB128; bits beyond 64 are dropped. */
static inline uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (r->p < r->end) {
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return v;
}

static inline int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (r->p < r->end) {
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	r->bad = 1;
	return (int64_t)v;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* A NUL-terminated string inside the bounds, or NULL (and bad). */
static inline const char *rd_cstr(struct rd *r)
{
	const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
	if (!z) {
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

#endif
