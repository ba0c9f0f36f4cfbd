/*
 * test_bytes.c: the one bounded byte reader (src/common/bytes.h) that every
 * binary reader of spgo uses: LEB128 numbers at their limits (the 10-byte
 * rule, overflow, running past the end), fixed-size little-endian numbers,
 * strings and spans, where p is left after a failure, and that the first
 * reason of a failure is kept.  The encoder (spgo_uleb_encode) round-trips
 * through it.
 */
#include "common/bytes.h"
#include "harness.h"
#include "spgo/common.h"

/* One ULEB128 from the bytes: value, the reason bad holds, bytes used. */
static uint64_t uleb(const uint8_t *b, size_t n, int *bad, size_t *used)
{
	struct rd r = rd_init(b, n);
	uint64_t v = rd_uleb(&r);
	*bad = r.bad;
	*used = rd_off(&r);
	return v;
}

static void test_uleb(void)
{
	int bad;
	size_t used;
	static const uint8_t one[] = {0x7f}, two[] = {0x80, 0x01}, dwarf[] = {0xe5, 0x8e, 0x26};
	CHECK_EQ_U64(uleb(one, 1, &bad, &used), 127);
	CHECK(bad == 0 && used == 1);
	CHECK_EQ_U64(uleb(two, 2, &bad, &used), 128);
	CHECK(bad == 0 && used == 2);
	CHECK_EQ_U64(uleb(dwarf, 3, &bad, &used), 624485); /* DWARF 5's example */
	CHECK(bad == 0 && used == 3);
	/* The largest: nine 0xff and a tenth byte of 1 (bit 63). */
	static const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	CHECK_EQ_U64(uleb(max, 10, &bad, &used), UINT64_MAX);
	CHECK(bad == 0 && used == 10);
	/* A tenth byte with more than bit 63: overflow, p after it. */
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	uleb(over, 10, &bad, &used);
	CHECK(bad == RD_OVERFLOW && used == 10);
	/* Zero padded to eleven bytes: the tenth has its continuation bit. */
	static const uint8_t pad[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	uleb(pad, 11, &bad, &used);
	CHECK(bad == RD_OVERFLOW && used == 10);
	/* Running past the end: p at the end. */
	uleb(two, 1, &bad, &used);
	CHECK(bad == RD_SHORT && used == 1);
	uleb(two, 0, &bad, &used);
	CHECK(bad == RD_SHORT && used == 0);
	/* The encoder's output reads back, at every length. */
	for (int k = 0; k < 64; k++) {
		uint8_t buf[10];
		uint64_t v = ((uint64_t)1 << k) | ((uint64_t)1 << k >> 1);
		size_t n = spgo_uleb_encode(buf, v);
		CHECK_EQ_U64(uleb(buf, n, &bad, &used), v);
		CHECK(bad == 0 && used == n);
	}
}

static void test_sleb(void)
{
	static const uint8_t m1[] = {0x7f}, m128[] = {0x80, 0x7f}, p63[] = {0x3f}, p64[] = {0xc0, 0x00};
	struct rd r = rd_init(m1, 1);
	CHECK(rd_sleb(&r) == -1 && !r.bad);
	r = rd_init(m128, 2);
	CHECK(rd_sleb(&r) == -128 && !r.bad && rd_left(&r) == 0);
	r = rd_init(p63, 1);
	CHECK(rd_sleb(&r) == 63 && !r.bad);
	r = rd_init(p64, 2);
	CHECK(rd_sleb(&r) == 64 && !r.bad);
	/* INT64_MIN and INT64_MAX: a tenth byte that copies the sign. */
	static const uint8_t min[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f};
	static const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
	r = rd_init(min, 10);
	CHECK(rd_sleb(&r) == INT64_MIN && !r.bad);
	r = rd_init(max, 10);
	CHECK(rd_sleb(&r) == INT64_MAX && !r.bad);
	/* A tenth byte that is not a copy of the sign: overflow. */
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	r = rd_init(over, 10);
	rd_sleb(&r);
	CHECK(r.bad == RD_OVERFLOW && rd_off(&r) == 10);
	r = rd_init(m128, 1);
	rd_sleb(&r);
	CHECK(r.bad == RD_SHORT && rd_left(&r) == 0);
}

static void test_fixed_and_strings(void)
{
	static const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 'a', 'b', 0, 'c'};
	struct rd r = rd_init(b, sizeof b);
	CHECK_EQ_U64(rd_u16(&r), 0x0201);
	CHECK_EQ_U64(rd_u8(&r), 3);
	r = rd_init(b, sizeof b);
	CHECK_EQ_U64(rd_u64(&r), 0x0807060504030201ull);
	CHECK_STREQ(rd_cstr(&r), "ab");
	CHECK(rd_off(&r) == 11 && !r.bad);
	/* An unterminated string: NULL, bad, p at the end. */
	CHECK(rd_cstr(&r) == NULL && r.bad == RD_SHORT && rd_left(&r) == 0);
	/* A fixed-size read that does not fit: 0, p at the end. */
	r = rd_init(b, 3);
	CHECK_EQ_U64(rd_u32(&r), 0);
	CHECK(r.bad == RD_SHORT && rd_left(&r) == 0);
	CHECK_EQ_U64(rd_u8(&r), 0);
	/* Spans: in place, or NULL past the end. */
	r = rd_init(b, sizeof b);
	CHECK(rd_bytes(&r, 8) == b && rd_off(&r) == 8);
	CHECK(rd_bytes(&r, 5) == NULL && r.bad == RD_SHORT && rd_left(&r) == 0);
	/* The first reason is the one kept. */
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
	r = rd_init(over, sizeof over);
	rd_uleb(&r);
	rd_u64(&r);
	CHECK(r.bad == RD_OVERFLOW);
}

int main(void)
{
	RUN(test_uleb);
	RUN(test_sleb);
	RUN(test_fixed_and_strings);
	DONE();
}
