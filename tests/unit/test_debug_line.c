/*
 * spgo's .debug_line reader (src/binary/debug_line.c) on hand-made tables:
 * DWARF 5 and 4 headers, the path rules, every kind of opcode, a
 * discriminator of 32 bits, tombstoned and empty sequences, define_file;
 * then thousands of damaged copies (bytes changed, cut short), which must
 * give a warning or a table, never a read outside the input (this test
 * also runs under ASan+UBSan).
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "binary/binary_impl.h"
#include "harness.h"

/* A byte buffer to build tables in. */
struct buf {
	uint8_t b[1024];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}
static void u8(struct buf *b, unsigned v) { b->b[b->n++] = (uint8_t)v; }
static void le(struct buf *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		u8(b, (unsigned)(v >> (8 * i)));
}
static void uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;
		v >>= 7;
		u8(b, x | (v ? 0x80 : 0));
	} while (v);
}
static void str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static const uint8_t std_lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

/* The line program shared by both versions (see the expected rows). */
static void program(struct buf *b, int v5)
{
	/* Sequence 1: [0x1000, 0x1020). */
	u8(b, 0), uleb(b, 9), u8(b, DW_LNE_set_address), le(b, 0x1000, 8);
	u8(b, DW_LNS_set_file), uleb(b, v5 ? 0 : 1);
	u8(b, DW_LNS_advance_line), uleb(b, 9); /* line 10 */
	u8(b, 0), uleb(b, 6), u8(b, DW_LNE_set_discriminator), uleb(b, 0xffffffffu);
	u8(b, DW_LNS_copy);                     /* row 0x1000 line 10 */
	u8(b, 13 + (1 + 5) + 14 * 4);           /* special: +4 bytes, +1 line */
	u8(b, DW_LNS_set_file), uleb(b, v5 ? 1 : 2);
	u8(b, DW_LNS_set_column), uleb(b, 7);
	u8(b, DW_LNS_fixed_advance_pc), le(b, 0x10, 2);
	u8(b, DW_LNS_negate_stmt), u8(b, DW_LNS_set_prologue_end);
	u8(b, DW_LNS_copy);                     /* row 0x1014 */
	u8(b, DW_LNS_advance_pc), uleb(b, 0x0c);
	u8(b, 0), uleb(b, 1), u8(b, DW_LNE_end_sequence); /* end 0x1020 */
	/* Sequence 2: code lld discarded (tombstone address): dropped. */
	u8(b, 0), uleb(b, 9), u8(b, DW_LNE_set_address), le(b, UINT64_MAX, 8);
	u8(b, DW_LNS_copy), u8(b, DW_LNS_advance_pc), uleb(b, 4);
	u8(b, 0), uleb(b, 1), u8(b, DW_LNE_end_sequence);
	/* Sequence 3: no addresses covered: dropped. */
	u8(b, 0), uleb(b, 9), u8(b, DW_LNE_set_address), le(b, 0x900, 8);
	u8(b, DW_LNS_copy), u8(b, 0), uleb(b, 1), u8(b, DW_LNE_end_sequence);
	/* Sequence 4: a file defined by the program; an unknown extended op. */
	u8(b, 0), uleb(b, 9), u8(b, DW_LNE_set_address), le(b, 0x2000, 8);
	u8(b, 0), uleb(b, 8), u8(b, DW_LNE_define_file), str(b, "c.c"), uleb(b, 0), uleb(b, 0), uleb(b, 0);
	u8(b, 0), uleb(b, 3), u8(b, 0x80), u8(b, 1), u8(b, 2);
	u8(b, DW_LNS_set_file), uleb(b, v5 ? 2 : 4);
	u8(b, DW_LNS_const_add_pc);             /* +17 bytes */
	u8(b, DW_LNS_copy);                     /* row 0x2011 line 1 */
	u8(b, DW_LNS_advance_pc), uleb(b, 2);
	u8(b, 0), uleb(b, 1), u8(b, DW_LNE_end_sequence); /* end 0x2013 */
}

/* A whole table: unit length, header, program. */
static void table(struct buf *out, int v5)
{
	struct buf h = {0}, p = {0};
	u8(&h, 1), u8(&h, 1), u8(&h, 1), u8(&h, 0xfb), u8(&h, 14), u8(&h, 13);
	put(&h, std_lengths, sizeof std_lengths);
	if (v5) {
		u8(&h, 1), uleb(&h, DW_LNCT_path), uleb(&h, DW_FORM_string);
		uleb(&h, 2), str(&h, "/src"), str(&h, "inc");
		u8(&h, 2), uleb(&h, DW_LNCT_path), uleb(&h, DW_FORM_string);
		uleb(&h, DW_LNCT_directory_index), uleb(&h, DW_FORM_data1);
		uleb(&h, 2), str(&h, "a.c"), u8(&h, 0), str(&h, "b.h"), u8(&h, 1);
	} else {
		str(&h, "inc"), u8(&h, 0);
		str(&h, "a.c"), uleb(&h, 0), uleb(&h, 0), uleb(&h, 0);
		str(&h, "/abs/b.h"), uleb(&h, 1), uleb(&h, 0), uleb(&h, 0);
		str(&h, "d.h"), uleb(&h, 1), uleb(&h, 0), uleb(&h, 0);
		u8(&h, 0);
	}
	program(&p, v5);
	size_t rest = 2 + (v5 ? 2 : 0) + 4 + h.n + p.n;
	out->n = 0;
	le(out, rest, 4), le(out, v5 ? 5 : 4, 2);
	if (v5)
		u8(out, 8), u8(out, 0);
	le(out, h.n, 4), put(out, h.b, h.n), put(out, p.b, p.n);
}

struct result {
	struct spgo_strtab files;
	spgo_row_vec rows;
	spgo_seq_vec seqs;
	struct spgo_cu cu;
	int rc;
};

static void read_table(struct result *r, const uint8_t *t, size_t n, const char *comp_dir)
{
	memset(r, 0, sizeof *r);
	spgo_strtab_init(&r->files);
	struct spgo_line_input in = {.line = t, .line_size = n, .path = "test"};
	struct spgo_line_unit u = {.cu_off = 0x10, .stmt_list = 0, .comp_dir = comp_dir};
	struct spgo_line_output out = {&r->files, &r->rows, &r->seqs};
	r->rc = spgo_read_line_table(&in, &u, &out, &r->cu);
}

static void free_result(struct result *r)
{
	free(r->cu.files);
	VEC_FREE(&r->rows);
	VEC_FREE(&r->seqs);
	spgo_strtab_free(&r->files);
}

static const char *file_of(const struct result *r, uint32_t id)
{
	return id < SPGO_BAD_FILE ? spgo_strtab_get(&r->files, id) : "(bad)";
}

/* The rows both versions give: the path of each row's file differs. */
static void check_rows(const struct result *r, const char *f0, const char *f1, const char *f2)
{
	REQUIRE(r->rc == 0);
	REQUIRE(r->seqs.n == 2);
	const struct spgo_line_seq *s = r->seqs.v;
	CHECK_EQ_U64(s[0].lo, 0x1000);
	CHECK_EQ_U64(s[0].hi, 0x1020);
	CHECK_EQ_U64(s[0].row_end - s[0].row_begin, 4);
	CHECK_EQ_U64(s[1].lo, 0x2011);
	CHECK_EQ_U64(s[1].hi, 0x2013);
	const struct spgo_line_row *w = r->rows.v + s[0].row_begin;
	CHECK_EQ_U64(w[0].addr, 0x1000);
	CHECK_EQ_U64(w[0].line, 10);
	CHECK_EQ_U64(w[0].discriminator, 0xffffffffu); /* all 32 bits */
	CHECK_STREQ(file_of(r, w[0].file), f0);
	CHECK_EQ_U64(w[1].addr, 0x1004);
	CHECK_EQ_U64(w[1].line, 11);
	CHECK_EQ_U64(w[1].discriminator, 0); /* reset after each row */
	CHECK_EQ_U64(w[2].addr, 0x1014);
	CHECK_EQ_U64(w[2].column, 7);
	CHECK_STREQ(file_of(r, w[2].file), f1);
	CHECK_EQ_U64(w[3].addr, 0x1020);
	CHECK_EQ_U64(w[3].file, SPGO_NO_FILE); /* the end row */
	w = r->rows.v + s[1].row_begin;
	CHECK_EQ_U64(w[0].addr, 0x2011);
	CHECK_EQ_U64(w[0].line, 1);
	CHECK_STREQ(file_of(r, w[0].file), f2);
}

static void test_v5(void)
{
	struct buf t;
	table(&t, 1);
	struct result r;
	read_table(&r, t.b, t.n, "/comp");
	/* dir 0 is the compilation directory as the table names it; dir 1 is
	 * relative, so DW_AT_comp_dir goes in front. */
	check_rows(&r, "/src/a.c", "/comp/inc/b.h", "/src/c.c");
	CHECK_EQ_U64(r.cu.nfiles, 3);
	free_result(&r);
	/* A relative DW_AT_comp_dir is kept relative, as LLVM keeps it. */
	read_table(&r, t.b, t.n, "build/");
	check_rows(&r, "/src/a.c", "build/inc/b.h", "/src/c.c");
	free_result(&r);
}

static void test_v4(void)
{
	struct buf t;
	table(&t, 0);
	struct result r;
	read_table(&r, t.b, t.n, "/comp");
	/* Before DWARF 5 file 0 does not exist and dir i is entry i - 1. */
	check_rows(&r, "/comp/a.c", "/abs/b.h", "/comp/c.c");
	CHECK_EQ_U64(r.cu.nfiles, 5);
	CHECK_EQ_U64(r.cu.files[0], SPGO_NO_FILE);
	CHECK_STREQ(file_of(&r, r.cu.files[3]), "/comp/inc/d.h");
	free_result(&r);
	read_table(&r, t.b, t.n, NULL);
	check_rows(&r, "a.c", "/abs/b.h", "c.c");
	free_result(&r);
}

/* Damaged tables: a warning (rc -1) or a table, and what is kept is sane. */
static void test_damaged(void)
{
	struct buf t[2];
	table(&t[0], 0);
	table(&t[1], 1);
	uint64_t x = 88172645463325252ull; /* xorshift64 */
	int errors = 0, ok = 0;
	int was_quiet = spgo_quiet;
	spgo_quiet = 1;
	long iters = getenv("SPGO_TEST_ITERS") ? atol(getenv("SPGO_TEST_ITERS")) : 20000;
	for (long i = 0; i < iters; i++) {
		const struct buf *src = &t[i & 1];
		uint8_t *d = malloc(src->n); /* exactly the size: ASan sees overruns */
		memcpy(d, src->b, src->n);
		size_t n = src->n;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int flips = (int)(x % 4);
		for (int k = 0; k < flips; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			d[x % n] = (uint8_t)(x >> 32);
		}
		if (x & 0x10000)
			n = (x >> 20) % n;
		struct result r;
		read_table(&r, d, n, "/comp");
		if (r.rc < 0) {
			errors++;
			CHECK(r.cu.line_error);
		} else {
			ok++;
		}
		for (size_t s = 0; s < r.seqs.n; s++) {
			CHECK(r.seqs.v[s].lo < r.seqs.v[s].hi);
			CHECK(r.seqs.v[s].row_end <= r.rows.n);
			CHECK(r.seqs.v[s].row_end - r.seqs.v[s].row_begin >= 2);
		}
		for (size_t k = 0; k < r.rows.n; k++) {
			uint32_t f = r.rows.v[k].file;
			CHECK(f >= SPGO_BAD_FILE || f < r.files.n);
		}
		free_result(&r);
		free(d);
	}
	spgo_quiet = was_quiet;
	CHECK(errors > 0 && ok > 0);
	printf("damaged tables: %d warned, %d read\n", errors, ok);
}

int main(void)
{
	RUN(test_v5);
	RUN(test_v4);
	RUN(test_damaged);
	DONE();
}
