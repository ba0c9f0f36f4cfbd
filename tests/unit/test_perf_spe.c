/*
 * Unit tests of the Arm SPE decoder (spgo/perf_spe.h) on packets made by
 * hand from the Arm ARM's encoding (not from any tool's output), and of the
 * perf.data reader's samples from SPE AUX data (spgo/perf.h).  That perf
 * decodes spgo's emulated SPE the same way is tests/integration/emulate_spe.sh.
 */
#include <sys/stat.h>

#include "harness.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_spe.h"
#include "spgo/perf_write.h"

/* Append a packet: header byte(s), then n little-endian payload bytes of v. */
static size_t put(uint8_t *b, size_t at, const uint8_t *hdr, size_t nh, uint64_t v, unsigned n)
{
	memcpy(b + at, hdr, nh);
	for (unsigned i = 0; i < n; i++)
		b[at + nh + i] = (uint8_t)(v >> (8 * i));
	return at + nh + n;
}
#define P1(b, at, h, v, n) put(b, at, (const uint8_t[]){h}, 1, v, n)

static void test_packets(void)
{
	static const struct {
		uint8_t bytes[10];
		size_t n;
		int len;
		uint8_t type, index;
		uint64_t payload;
		const char *desc;
	} cases[] = {
		{{0x00}, 1, 1, SPGO_SPE_PAD, 0, 0, "PAD"},
		{{0x01}, 1, 1, SPGO_SPE_END, 0, 0, "END"},
		{{0x71, 0x39, 0x30, 0, 0, 0, 0, 0, 0}, 9, 9, SPGO_SPE_TIMESTAMP, 0, 12345, "TS 12345"},
		/* events, payload size in bits 5:4 (1, 2, 4 bytes) */
		{{0x42, 0x42}, 2, 2, SPGO_SPE_EVENTS, 1, 0x42, "EV RETIRED NOT-TAKEN"},
		{{0x52, 0x82, 0x01}, 3, 3, SPGO_SPE_EVENTS, 2, 0x182, "EV RETIRED MISPRED LLC-ACCESS"},
		{{0x62, 0x01, 0, 0, 0}, 5, 5, SPGO_SPE_EVENTS, 4, 1, "EV EXCEPTION-GEN"},
		{{0x43, 0x05}, 2, 2, SPGO_SPE_DATA_SOURCE, 1, 5, "DATA-SOURCE 5"},
		{{0x64, 0xb5, 0x07, 0, 0}, 5, 5, SPGO_SPE_CONTEXT, 0, 0x7b5, "CONTEXT 0x7b5 el1"},
		{{0x65, 0x01, 0, 0, 0}, 5, 5, SPGO_SPE_CONTEXT, 1, 1, "CONTEXT 0x1 el2"},
		{{0x4a, 0x01}, 2, 2, SPGO_SPE_OP_TYPE, SPGO_SPE_OP_BRANCH, 1, "B COND"},
		{{0x4a, 0x02}, 2, 2, SPGO_SPE_OP_TYPE, SPGO_SPE_OP_BRANCH, 2, "B IND"},
		{{0x49, 0x01}, 2, 2, SPGO_SPE_OP_TYPE, SPGO_SPE_OP_LDST, 1, "ST"},
		{{0x48, 0x00}, 2, 2, SPGO_SPE_OP_TYPE, SPGO_SPE_OP_OTHER, 0, "OTHER UNCOND"},
		/* addresses: 8 bytes, NS bit 63, EL bits 62:61 */
		{{0xb0, 0x5f, 0x1c, 0x82, 0x02, 0x40, 0, 0, 0x80}, 9, 9, SPGO_SPE_ADDRESS, 0,
		 0x8000004002821c5fULL, "PC 0x4002821c5f el0 ns=1"},
		{{0xb1, 0x10, 0, 0, 0, 0, 0, 0, 0x20}, 9, 9, SPGO_SPE_ADDRESS, 1, 0x2000000000000010ULL,
		 "TGT 0x10 el1 ns=0"},
		{{0xb2, 0x08, 0x10, 0, 0, 0, 0, 0, 0}, 9, 9, SPGO_SPE_ADDRESS, 2, 0x1008, "VA 0x1008"},
		{{0xb4, 0x68, 0x9a, 0x81, 0x02, 0x40, 0, 0, 0x80}, 9, 9, SPGO_SPE_ADDRESS, 4,
		 0x8000004002819a68ULL, "PBT 0x4002819a68 el0 ns=1"},
		/* the extended header: index bits 4:3 from the first byte */
		{{0x20, 0xb4, 0x01, 0, 0, 0, 0, 0, 0, 0}, 10, 10, SPGO_SPE_ADDRESS, 4, 1, "PBT 0x1 el0 ns=0"},
		{{0x21, 0xb0, 0x01, 0, 0, 0, 0, 0, 0, 0}, 10, 10, SPGO_SPE_ADDRESS, 8, 1, "ADDR 0x1 (index 8)"},
		/* counters: 2 bytes */
		{{0x98, 0x0c, 0x00}, 3, 3, SPGO_SPE_COUNTER, 0, 12, "LAT 12 TOT"},
		{{0x99, 0x03, 0x00}, 3, 3, SPGO_SPE_COUNTER, 1, 3, "LAT 3 ISSUE"},
		/* no packet starts with these */
		{{0x02}, 1, -1, 0, 0, 0, NULL},
		{{0x20, 0x02}, 2, -1, 0, 0, 0, NULL},
		{{0xff, 0, 0}, 3, -1, 0, 0, 0, NULL},
		/* cut short: need more bytes */
		{{0xb0, 1, 2, 3}, 4, 0, 0, 0, 0, NULL},
		{{0x20}, 1, 0, 0, 0, 0, NULL},
		{{0x71, 1}, 2, 0, 0, 0, 0, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct spgo_spe_packet p;
		int k = spgo_spe_packet(cases[i].bytes, cases[i].n, &p);
		if (k != cases[i].len)
			fprintf(stderr, "case %zu: length %d, want %d\n", i, k, cases[i].len);
		CHECK(k == cases[i].len);
		if (k <= 0)
			continue;
		CHECK_EQ_U64(p.type, cases[i].type);
		CHECK_EQ_U64(p.index, cases[i].index);
		CHECK_EQ_U64(p.payload, cases[i].payload);
		char d[128];
		spgo_spe_packet_desc(&p, d, sizeof d);
		CHECK_STREQ(d, cases[i].desc);
	}
	/* a description never runs past its buffer */
	struct spgo_spe_packet p = {.type = SPGO_SPE_EVENTS, .index = 8, .payload = ~0ULL};
	char small[8];
	memset(small, 'x', sizeof small);
	spgo_spe_packet_desc(&p, small, 6);
	CHECK(small[6] == 'x' && strlen(small) < 6);
}

static void test_addresses(void)
{
	/* instruction addresses sign-extend from bit 55; the top byte holds NS/EL */
	CHECK_EQ_U64(spgo_spe_address(SPGO_SPE_ADDR_PC, 0xa0ffff8000123456ULL), 0xffffff8000123456ULL);
	CHECK_EQ_U64(spgo_spe_address(SPGO_SPE_ADDR_TARGET, 0x8000004000001000ULL), 0x4000001000ULL);
	CHECK_EQ_U64(spgo_spe_address(SPGO_SPE_ADDR_PREV_TARGET, 0x8080000000000010ULL),
		     0xff80000000000010ULL);
	/* a data address loses its tag byte unless the address is a high one */
	CHECK_EQ_U64(spgo_spe_address(SPGO_SPE_ADDR_VA, 0x5aff800000001000ULL), 0xffff800000001000ULL);
	CHECK_EQ_U64(spgo_spe_address(SPGO_SPE_ADDR_VA, 0x5a00000000001000ULL), 0x1000);
	CHECK_EQ_U64(spgo_spe_address(SPGO_SPE_ADDR_PA, 0x8000000012345000ULL), 0x12345000);
}

/* A branch record as the spec lays it out: PC, LAT, EV, OP, TGT, [PBT], TS. */
static size_t branch_rec(uint8_t *b, size_t at, uint64_t pc, uint64_t tgt, uint64_t pbt, int nt, uint64_t ts)
{
	at = P1(b, at, 0xb0, pc | 1ULL << 63, 8);
	at = P1(b, at, 0x98, 7, 2);
	at = P1(b, at, 0x52, 0x2 | (nt ? 0x40 : 0), 2);
	at = P1(b, at, 0x4a, 0x1, 1);
	at = P1(b, at, 0xb1, tgt | 1ULL << 63, 8);
	if (pbt)
		at = P1(b, at, 0xb4, pbt | 1ULL << 63, 8);
	return P1(b, at, 0x71, ts, 8);
}

static void test_records(void)
{
	uint8_t b[512];
	size_t at = branch_rec(b, 0, 0x401000, 0x401020, 0x400ff0, 0, 11);
	at = P1(b, at, 0x00, 0, 0); /* PADs between records */
	at = P1(b, at, 0x00, 0, 0);
	size_t r2 = at;
	at = P1(b, at, 0xb0, 0x401004 | 1ULL << 63, 8); /* a load: PC, OP LD, VA, END */
	at = P1(b, at, 0x49, 0, 1);
	at = P1(b, at, 0xb2, 0x7fff0000, 8);
	at = P1(b, at, 0x65, 42, 4);
	at = P1(b, at, 0x01, 0, 0);
	at = P1(b, at, 0x98, 1, 2); /* a record without a PC */
	at = P1(b, at, 0x01, 0, 0);
	at = P1(b, at, 0xb0, 0x401008, 8); /* an unknown byte inside a record */
	size_t bad = at;
	at = P1(b, at, 0x02, 0, 0);
	at = P1(b, at, 0x01, 0, 0);
	size_t r4 = at;
	at = branch_rec(b, at, 0x40100c, 0x401010, 0, 1, 12);
	size_t cut = at;
	at = branch_rec(b, at, 0x401010, 0x401000, 0, 0, 13);

	struct spgo_spe_decoder d;
	struct spgo_spe_record x;
	spgo_spe_decoder_init(&d, b, at - 3); /* the last record cut inside its TS */
	REQUIRE(spgo_spe_next(&d, &x) == 1);
	CHECK_EQ_U64(x.offset, 0);
	CHECK_EQ_U64(x.pc, 0x401000);
	CHECK_EQ_U64(x.target, 0x401020);
	CHECK_EQ_U64(x.prev_target, 0x400ff0);
	CHECK_EQ_U64(x.timestamp, 11);
	CHECK_EQ_U64(x.latency, 7);
	CHECK(x.op_class == SPGO_SPE_OP_BRANCH && (x.op & SPGO_SPE_BR_COND));
	CHECK(!(x.events & SPGO_SPE_EV_NOT_TAKEN));
	CHECK(x.has == (SPGO_SPE_HAS_PC | SPGO_SPE_HAS_TARGET | SPGO_SPE_HAS_PREV_TARGET |
			SPGO_SPE_HAS_TIMESTAMP | SPGO_SPE_HAS_OP));
	REQUIRE(spgo_spe_next(&d, &x) == 1);
	CHECK_EQ_U64(x.offset, r2);
	CHECK(x.op_class == SPGO_SPE_OP_LDST);
	CHECK_EQ_U64(x.vaddr, 0x7fff0000);
	CHECK(x.has & SPGO_SPE_HAS_CONTEXT);
	CHECK_EQ_U64(x.context, 42);
	REQUIRE(spgo_spe_next(&d, &x) == 1); /* the PC-less and the damaged ones are not handed out */
	CHECK_EQ_U64(x.offset, r4);
	CHECK(x.events & SPGO_SPE_EV_NOT_TAKEN);
	CHECK_EQ_U64(x.prev_target, 0);
	CHECK(spgo_spe_next(&d, &x) == 0);
	CHECK(spgo_spe_next(&d, &x) == 0); /* and stays at the end */
	CHECK_EQ_U64(d.st.records, 4);
	CHECK_EQ_U64(d.st.branches, 2);
	CHECK_EQ_U64(d.st.not_taken, 1);
	CHECK_EQ_U64(d.st.no_pc, 1);
	CHECK_EQ_U64(d.st.unknown, 1);
	CHECK_EQ_U64(d.st.unknown_first, bad);
	CHECK_EQ_U64(d.st.dropped, 1);
	CHECK_EQ_U64(d.st.cut, 1);
	CHECK_EQ_U64(d.st.cut_first, at - 9); /* where the cut TS packet starts */
	(void)cut;

	/* a buffer cut between packets of a record: counted at the record */
	spgo_spe_decoder_init(&d, b, 9 + 3);
	CHECK(spgo_spe_next(&d, &x) == 0);
	CHECK_EQ_U64(d.st.cut, 1);
	CHECK_EQ_U64(d.st.cut_first, 0);
	/* nothing at all */
	spgo_spe_decoder_init(&d, b, 0);
	CHECK(spgo_spe_next(&d, &x) == 0);
	CHECK_EQ_U64(d.st.cut, 0);
}

/* The reader: an SPE perf.data written by hand, read back as samples. */
static void test_reader(void)
{
	char dir[] = "/tmp/spgo-test-spe-XXXXXX";
	REQUIRE(mkdtemp(dir));
	char *path = xasprintf("%s/spe.data", dir);
	struct spgo_perf_writer *w;
	REQUIRE(spgo_pw_open(&w, path) == 0);
	struct perf_event_attr a = {0};
	a.size = PERF_ATTR_SIZE_VER7;
	a.type = 9;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.sample_id_all = 1;
	REQUIRE(spgo_pw_add_attr(w, &a, "arm_spe_0//", NULL, 0) == 0);
	uint64_t priv[2] = {9, 0};
	CHECK(spgo_pw_auxtrace_info(w, SPGO_AUXTRACE_ARM_SPE, priv, 2) == 0);
	struct spgo_pw_sample_id sid = {.pid = 100, .tid = 101};
	CHECK(spgo_pw_comm(w, 100, 101, "prog", 0, &sid) == 0);
	uint8_t b[512] = {0};
	size_t at = branch_rec(b, 0, 0x401000, 0x401020, 0x400ff0, 0, 1);
	at = branch_rec(b, at, 0x40100c, 0x401010, 0, 1, 2);
	at = P1(b, at, 0xb0, 0x401004, 8); /* not a branch: an IP sample */
	at = P1(b, at, 0x01, 0, 0);
	at = P1(b, at, 0xb0, 0, 8); /* PC 0: left out, counted */
	at = P1(b, at, 0x4a, 0, 1);
	at = P1(b, at, 0xb1, 0x401000, 8);
	at = P1(b, at, 0x01, 0, 0);
	at = P1(b, at, 0xb0, 0x401008, 8); /* a branch without a target: an IP sample */
	at = P1(b, at, 0x4a, 0, 1);
	at = P1(b, at, 0x01, 0, 0);
	at = (at + 7) & ~(size_t)7;
	struct spgo_pw_auxtrace ax = {.idx = 0, .tid = 101, .cpu = UINT32_MAX};
	CHECK(spgo_pw_auxtrace(w, &ax, b, at) == 0);
	REQUIRE(spgo_pw_commit(w) == 0);

	struct spgo_perf_reader *r;
	REQUIRE(spgo_perf_open(&r, path, SPGO_PERF_ORDERED) == 0);
	struct spgo_perf_record rec;
	int n = 0, aux = 0;
	while (spgo_perf_next(r, &rec) > 0) {
		if (rec.type == SPGO_PERF_RECORD_AUXTRACE) {
			aux++;
			CHECK(rec.u.aux.data != NULL);
			CHECK_EQ_U64(rec.u.aux.size, at);
			CHECK_EQ_U64(rec.u.aux.tid, 101);
			continue;
		}
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		const struct spgo_perf_sample *s = &rec.sample;
		CHECK(s->sample_type & SPGO_PERF_SAMPLE_SPE);
		CHECK_EQ_U64(s->pid, 100);
		CHECK_EQ_U64(s->tid, 101);
		CHECK_STREQ(rec.attr->name, "arm_spe");
		CHECK_EQ_U64(s->cpumode, PERF_RECORD_MISC_USER);
		if (n == 0) {
			CHECK_EQ_U64(s->ip, 0x401000);
			REQUIRE(s->branch_nr == 2);
			CHECK_EQ_U64(s->branches[0].from, 0x401000);
			CHECK_EQ_U64(s->branches[0].to, 0x401020);
			CHECK(!SPGO_PERF_BRANCH_NOT_TAKEN(&s->branches[0]));
			CHECK_EQ_U64(s->branches[0].type, PERF_BR_COND);
			CHECK_EQ_U64(s->branches[1].from, 0);
			CHECK_EQ_U64(s->branches[1].to, 0x400ff0);
		} else if (n == 1) {
			REQUIRE(s->branch_nr == 1);
			CHECK(SPGO_PERF_BRANCH_NOT_TAKEN(&s->branches[0]));
			CHECK_EQ_U64(s->addr, 0x401010);
		} else if (n == 2) {
			CHECK_EQ_U64(s->ip, 0x401004);
			CHECK_EQ_U64(s->branch_nr, 0);
		} else {
			CHECK_EQ_U64(s->ip, 0x401008);
			CHECK_EQ_U64(s->branch_nr, 0);
			CHECK(!(s->sample_type & PERF_SAMPLE_BRANCH_STACK));
		}
		n++;
	}
	CHECK_EQ_U64(aux, 1);
	CHECK_EQ_U64(n, 4);
	const struct spgo_spe_stats *st = spgo_perf_spe_stats(r);
	CHECK_EQ_U64(st->records, 5);
	CHECK_EQ_U64(st->branches, 4);
	CHECK_EQ_U64(st->zero_pc, 1);
	CHECK_EQ_U64(st->no_target, 1);
	spgo_perf_close(r);

	/* SPGO_PERF_RAW_AUX: the records only */
	REQUIRE(spgo_perf_open(&r, path, SPGO_PERF_RAW_AUX) == 0);
	n = 0;
	while (spgo_perf_next(r, &rec) > 0)
		n += rec.type == PERF_RECORD_SAMPLE;
	CHECK_EQ_U64(n, 0);
	spgo_perf_close(r);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	RUN(test_packets);
	RUN(test_addresses);
	RUN(test_records);
	RUN(test_reader);
	DONE();
}
