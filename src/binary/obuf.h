/*
 * obuf.h: the symbolizer's output buffer (symbolize_out.c), internal to
 * the binary model.
 */
#ifndef SPGO_BINARY_OBUF_H
#define SPGO_BINARY_OBUF_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "spgo/common.h"

/*
 * The output buffer.  Symbolizing many addresses is mostly printing, and
 * the kernel's copy of the text into the output file costs as much as
 * making it: a writer thread writes one buffer while the next one fills.
 * A buffer made with spgo_ob_init_grow() has no writer: it grows instead (the
 * text of one chunk, see struct pool).
 */
#define OBUF_SIZE (1u << 20)
struct obuf {
	FILE *fp;
	char *buf; /* being filled */
	size_t n, cap;
	unsigned long flushes;
	int grow;    /* grows instead of being flushed */
	char *other; /* being written (while pending) or free */
	const char *pending;
	size_t pending_n;
	int threaded, done, write_error;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* obuf.c: a buffer that writes to fp (with a writer thread if threads and
 * one can be made), or one that grows from cap bytes and writes nothing. */
void spgo_ob_init(struct obuf *o, FILE *fp, int threads);
void spgo_ob_init_grow(struct obuf *o, size_t cap);
/* Hand the buffer to the writer (or write it); the next one fills. */
void spgo_ob_flush(struct obuf *o);
/* Flush and wait until the writer has written everything. */
void spgo_ob_drain(struct obuf *o);
/* Flush, stop the writer, free; returns non-zero after a write error. */
int spgo_ob_finish(struct obuf *o);
/* ob_mem's path when len does not fit: flush (or grow), then copy. */
void spgo_ob_mem_slow(struct obuf *o, const char *s, size_t len);

static inline void ob_mem(struct obuf *o, const char *s, size_t len)
{
	if (SPGO_LIKELY(len <= o->cap - o->n)) {
		memcpy(o->buf + o->n, s, len);
		o->n += len;
		return;
	}
	spgo_ob_mem_slow(o, s, len);
}

static inline void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static inline void ob_char(struct obuf *o, char c)
{
	if (SPGO_UNLIKELY(o->n == o->cap)) {
		spgo_ob_mem_slow(o, &c, 1);
		return;
	}
	o->buf[o->n++] = c;
}

/* Decimal, two digits at a time (line and column numbers, many of them). */
static inline void ob_u64(struct obuf *o, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	char tmp[24];
	int i = sizeof tmp;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		tmp[--i] = pairs[2 * r + 1];
		tmp[--i] = pairs[2 * r];
	}
	if (v >= 10) {
		tmp[--i] = pairs[2 * v + 1];
		tmp[--i] = pairs[2 * v];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	ob_mem(o, tmp + i, sizeof tmp - (size_t)i);
}

static inline void ob_hex(struct obuf *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof tmp;
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	ob_str(o, "0x");
	for (; i < (int)sizeof tmp; i++)
		ob_char(o, tmp[i]);
}

#endif
