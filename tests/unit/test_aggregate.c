/*
 * Unit tests of the aggregation rules on hand-made records: branches,
 * ranges between neighbouring LBR entries (newest first), reversed and
 * external ranges, ip counts per event, identical stack samples counted
 * once (on the shared test.binary, ET_EXEC at 0x400000: skipped without
 * it); and, on a copy of this program, so on a clone alone: an address
 * range mapped to another file and back (each distinct entry is mapped
 * once per mapping epoch, src/aggregate/agg_lbr.c: never under a mapping
 * that has gone), for the aggregate and for the sink of spgo_agg_on_lbr;
 * what the sink takes that the aggregate does not (records of a
 * mispredicted path, another event); an address taken as the program's
 * by default until its mapping matches, not kept; stack samples handed over in
 * batches, in the reading thread or on a thread of their own
 * (spgo_agg_on_stack_thread), the same calls in the same order.
 */
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "harness.h"
#include "spgo/aggregate.h"
#include "spgo/binary.h"

static struct spgo_aggregate *agg;
static const struct spgo_perf_attr *feed_attr; /* the samples' event, or NULL */
static char dir[] = "/tmp/spgo-test-agg-XXXXXX";
static char *self; /* a copy of this program */
static uint64_t x_vaddr, x_off; /* 0x400 bytes of its code: vaddr, file offset */

static void feed_mmap(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *name)
{
	struct spgo_perf_record rec;
	memset(&rec, 0, sizeof rec);
	rec.type = PERF_RECORD_MMAP2;
	rec.misc = PERF_RECORD_MISC_USER;
	rec.u.mmap.pid = rec.u.mmap.tid = pid;
	rec.u.mmap.start = start;
	rec.u.mmap.len = len;
	rec.u.mmap.pgoff = pgoff;
	rec.u.mmap.filename = name;
	spgo_agg_feed(agg, &rec);
}

static void feed_sample(uint32_t pid, uint64_t ip, const struct perf_branch_entry *br, size_t nbr,
			const uint64_t *chain, size_t nchain)
{
	struct spgo_perf_record rec;
	memset(&rec, 0, sizeof rec);
	rec.type = PERF_RECORD_SAMPLE;
	rec.sample.ip = ip;
	rec.sample.pid = rec.sample.tid = pid;
	rec.sample.cpumode = PERF_RECORD_MISC_USER;
	rec.sample.branches = br;
	rec.sample.branch_nr = nbr;
	rec.sample.callchain = chain;
	rec.sample.callchain_nr = nchain;
	rec.attr = feed_attr;
	spgo_agg_feed(agg, &rec);
}

static uint64_t get2(const struct spgo_kmap *m, uint64_t a, uint64_t b)
{
	uint64_t k[2] = {a, b};
	const uint64_t *v = spgo_kmap_find(m, k);
	return v ? *v : 0;
}

static void test_rules(void)
{
	feed_mmap(7, 0x400000, 0xa000, 0, "/somewhere/test.binary");
	feed_mmap(7, 0x7f0000000000, 0x100000, 0, "/lib/libc.so.6");
	struct perf_branch_entry br[4];
	memset(br, 0, sizeof br);
	/* newest first */
	br[0].from = 0x401020; br[0].to = 0x401100;
	br[1].from = 0x400f00; br[1].to = 0x401000;   /* range [0x401000, 0x401020] */
	br[2].from = 0x7f0000000100; br[2].to = 0x401050; /* range [0x401050, 0x400f00]: reversed */
	br[3].from = 0x400e00; br[3].to = 0x7f0000000010; /* range [libc, libc]: not counted */
	uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, 0x401104, 0x7f0000000200, 0x7f0000000300,
			    0x400f05};
	for (int i = 0; i < 3; i++)
		feed_sample(7, 0x401104, br, 4, chain, 5);
	feed_sample(7, 0x7f0000000050, NULL, 0, NULL, 0); /* in libc */
	feed_sample(8, 0x401104, NULL, 0, NULL, 0);	   /* unknown process */
	spgo_agg_finish(agg);

	const struct spgo_agg_stats *s = spgo_agg_stats(agg);
	CHECK_EQ_U64(s->samples, 5);
	CHECK_EQ_U64(s->samples_matched, 3);
	CHECK_EQ_U64(s->samples_unmatched, 2);
	CHECK_EQ_U64(s->samples_unmapped, 1);
	CHECK_EQ_U64(s->ranges, 3);
	CHECK_EQ_U64(s->ranges_reversed, 3);
	CHECK_EQ_U64(get2(&agg->ranges, 0x401000, 0x401020), 3);
	CHECK_EQ_U64(agg->ranges.n, 1);
	CHECK_EQ_U64(get2(&agg->branches, 0x401020, 0x401100), 3);
	CHECK_EQ_U64(get2(&agg->branches, 0x400f00, 0x401000), 3);
	CHECK_EQ_U64(get2(&agg->branches, SPGO_AGG_EXTERNAL, 0x401050), 3);
	CHECK_EQ_U64(get2(&agg->branches, 0x400e00, SPGO_AGG_EXTERNAL), 3);
	REQUIRE(agg->events.n == 1);
	uint64_t k = 0x401104;
	const uint64_t *v = spgo_kmap_find(&agg->events.v[0].ips, &k);
	CHECK(v && *v == 3);
	/* one distinct stack, counted 3 times; libc frames collapse to one */
	size_t it = 0, n = 0;
	struct spgo_agg_stack st;
	while (spgo_agg_next_stack(agg, &it, &st)) {
		n++;
		CHECK_EQ_U64(st.count, 3);
		REQUIRE(st.nframes == 3);
		CHECK_EQ_U64(st.frames[0], 0x401104);
		CHECK_EQ_U64(st.frames[1], SPGO_AGG_EXTERNAL);
		CHECK_EQ_U64(st.frames[2], 0x400f05);
		REQUIRE(st.nbranches == 4);
		CHECK_EQ_U64(st.branches[0], 0x401020);
		CHECK_EQ_U64(st.branches[5], 0x401050);
		CHECK_EQ_U64(st.branches[4], SPGO_AGG_EXTERNAL);
	}
	CHECK_EQ_U64(n, 1);
	size_t nm;
	const struct spgo_agg_match *m = spgo_agg_matches(agg, &nm);
	REQUIRE(nm == 1);
	CHECK_STREQ(m[0].how, "file name");
	CHECK(spgo_agg_check_matched(agg) == 0);
}

/* With function bounds, a range from one function into the next is out. */
static void test_function_ends(void)
{
	struct spgo_aggregate *b;
	REQUIRE(spgo_agg_new(&b, spgo_binary_path(agg->bin), NULL) == 0);
	static const struct spgo_function fns[] = {
		{.start = 0x400f00, .end = 0x401010, .name = "f", .decl_line = 1, .parent = -1},
		{.start = 0x401010, .end = 0x401200, .name = "g", .decl_line = 1, .parent = -1},
	};
	spgo_agg_set_functions(b, fns, 2);
	struct spgo_aggregate *save = agg;
	agg = b;
	feed_mmap(7, 0x400000, 0xa000, 0, "/x/test.binary");
	struct perf_branch_entry br[3];
	memset(br, 0, sizeof br);
	br[0].from = 0x401100; br[0].to = 0x401180;
	br[1].from = 0x401020; br[1].to = 0x401040; /* [0x401040, 0x401100] in g */
	br[2].from = 0x401100; br[2].to = 0x400f80; /* [0x400f80, 0x401020] f -> g */
	feed_sample(7, 0x401104, br, 3, NULL, 0);
	spgo_agg_finish(b);
	CHECK_EQ_U64(b->stats.ranges, 1);
	CHECK_EQ_U64(b->stats.ranges_crossing, 1);
	CHECK_EQ_U64(get2(&b->ranges, 0x401040, 0x401100), 1);
	agg = save;
	spgo_agg_free(b);
}

/* What a sink of spgo_agg_on_lbr was handed: edges {from, to} -> taken,
 * mispredicted; pairs {older from, older to, newer from, newer to} ->
 * count; and how many calls. */
struct sink_log {
	struct spgo_kmap taken, mispred, pairs;
	uint64_t calls;
};

static void log_edge(void *ctx, const struct spgo_agg_lbr_edge *e)
{
	struct sink_log *l = ctx;
	uint64_t k[2] = {e->from, e->to};
	*spgo_kmap_upsert(&l->taken, k) += e->taken;
	*spgo_kmap_upsert(&l->mispred, k) += e->mispred;
	l->calls++;
}

static void log_pair(void *ctx, const struct spgo_agg_lbr_edge *o, const struct spgo_agg_lbr_edge *n, uint64_t c)
{
	struct sink_log *l = ctx;
	uint64_t k[4] = {o->from, o->to, n->from, n->to};
	*spgo_kmap_upsert(&l->pairs, k) += c;
	l->calls++;
}

/* A fresh aggregate of the copy of this program, with a sink logging to l. */
static struct spgo_aggregate *self_agg(struct sink_log *l)
{
	struct spgo_aggregate *b;
	if (spgo_agg_new(&b, self, NULL) < 0)
		return NULL;
	spgo_kmap_init(&l->taken, 2);
	spgo_kmap_init(&l->mispred, 2);
	spgo_kmap_init(&l->pairs, 4);
	l->calls = 0;
	struct spgo_agg_lbr_sink sink = {.ctx = l, .edge = log_edge, .pair = log_pair};
	spgo_agg_on_lbr(b, &sink);
	return b;
}

static void sink_free(struct sink_log *l)
{
	spgo_kmap_free(&l->taken);
	spgo_kmap_free(&l->mispred);
	spgo_kmap_free(&l->pairs);
}

static uint64_t get4(const struct spgo_kmap *m, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t k[4] = {a, b, c, d};
	const uint64_t *v = spgo_kmap_find(m, k);
	return v ? *v : 0;
}

/* The program mapped, 3 samples; another file mapped over the same range,
 * 5 samples of the same addresses (not the program's); the program
 * mapped elsewhere, 4 samples there: 7 of each branch and range, in the
 * program's addresses, for the aggregate and its sink alike (the sink
 * also sees the 5 entries with both ends outside). */
static void test_remapped(void)
{
	struct sink_log l;
	struct spgo_aggregate *b = self_agg(&l);
	REQUIRE(b);
	struct spgo_aggregate *save = agg;
	agg = b;
	struct perf_branch_entry br[2];
	memset(br, 0, sizeof br);
	const uint64_t base[3] = {0x7f0000000000, 0x7f0000000000, 0x7e0000000000}, n[3] = {3, 5, 4};
	const char *file[3] = {"/x/aggbin", "/lib/other.so", "/x/aggbin"};
	const uint64_t v = x_vaddr, E = SPGO_AGG_EXTERNAL;
	for (int k = 0; k < 3; k++) {
		feed_mmap(7, base[k], 0x10000000, 0, file[k]);
		uint64_t r = base[k] + x_off; /* runtime of v */
		br[0].from = r + 0x220; br[0].to = r + 0x300;
		br[1].from = r + 0x100; br[1].to = r + 0x200; /* [v + 0x200, v + 0x220] */
		br[1].mispred = k == 2;
		for (uint64_t i = 0; i < n[k]; i++)
			feed_sample(7, r + 0x304, br, 2, NULL, 0);
	}
	spgo_agg_finish(b);
	CHECK_EQ_U64(b->stats.branches, 14);
	CHECK_EQ_U64(b->stats.ranges, 7);
	CHECK_EQ_U64(get2(&b->branches, v + 0x220, v + 0x300), 7);
	CHECK_EQ_U64(get2(&b->branches, v + 0x100, v + 0x200), 7);
	CHECK_EQ_U64(b->branches.n, 2);
	CHECK_EQ_U64(get2(&b->ranges, v + 0x200, v + 0x220), 7);
	CHECK_EQ_U64(b->ranges.n, 1);
	/* the sink: the same, and the other file's entries outside */
	CHECK_EQ_U64(get2(&l.taken, v + 0x220, v + 0x300), 7);
	CHECK_EQ_U64(get2(&l.taken, v + 0x100, v + 0x200), 7);
	CHECK_EQ_U64(get2(&l.taken, E, E), 10);
	CHECK_EQ_U64(l.taken.n, 3);
	CHECK_EQ_U64(get2(&l.mispred, v + 0x100, v + 0x200), 4);
	CHECK_EQ_U64(get4(&l.pairs, v + 0x100, v + 0x200, v + 0x220, v + 0x300), 7);
	CHECK_EQ_U64(get4(&l.pairs, E, E, E, E), 5);
	CHECK_EQ_U64(l.pairs.n, 2);
	agg = save;
	spgo_agg_free(b);
	sink_free(&l);
}

/* What the sink takes that the aggregate leaves out: a record of a
 * mispredicted path (the aggregate's range bridges it, the sink's pairs
 * do not); the samples of an event not selected, neither takes (the
 * layouts count what the profile counts); detached, it is handed what was
 * pending and no more. */
static void test_sink(void)
{
	struct sink_log l;
	struct spgo_aggregate *b = self_agg(&l);
	REQUIRE(b);
	struct spgo_aggregate *save = agg;
	agg = b;
	spgo_agg_select_event(b, 0, NULL);
	struct spgo_perf_attr ev[2];
	memset(ev, 0, sizeof ev);
	ev[1].index = 1;
	const uint64_t base = 0x7f0000000000, r = base + x_off, v = x_vaddr;
	feed_mmap(7, base, 0x10000000, 0, "/x/aggbin");
	struct perf_branch_entry br[3];
	memset(br, 0, sizeof br);
	br[0].from = r + 0x240; br[0].to = r + 0x300;
	br[1].from = r + 0x380; br[1].to = r + 0x3c0; /* never retired */
	br[1].spec = PERF_BR_SPEC_WRONG_PATH;
	br[2].from = r + 0x100; br[2].to = r + 0x200; /* aggregate: [v + 0x200, v + 0x240] */
	feed_attr = &ev[0];
	for (int i = 0; i < 2; i++)
		feed_sample(7, r + 0x304, br, 3, NULL, 0);
	feed_attr = &ev[1]; /* another event: neither's */
	feed_sample(7, r + 0x304, br + 1, 2, NULL, 0);
	feed_attr = NULL;
	spgo_agg_on_lbr(b, NULL);
	uint64_t calls = l.calls;
	CHECK(calls > 0);
	feed_attr = &ev[0];
	feed_sample(7, r + 0x304, br, 3, NULL, 0); /* (detached: not the sink's) */
	feed_attr = NULL;
	spgo_agg_finish(b);
	CHECK_EQ_U64(l.calls, calls);
	CHECK_EQ_U64(b->stats.lbr_wrong_path, 3);
	CHECK_EQ_U64(b->stats.samples_other_event, 1);
	CHECK_EQ_U64(get2(&b->ranges, v + 0x200, v + 0x240), 3);
	CHECK_EQ_U64(b->ranges.n, 1);
	CHECK_EQ_U64(get2(&b->branches, v + 0x380, v + 0x3c0), 0);
	CHECK_EQ_U64(get2(&l.taken, v + 0x240, v + 0x300), 2);
	CHECK_EQ_U64(get2(&l.taken, v + 0x380, v + 0x3c0), 2);
	CHECK_EQ_U64(get2(&l.taken, v + 0x100, v + 0x200), 2);
	CHECK_EQ_U64(l.taken.n, 3);
	CHECK_EQ_U64(get4(&l.pairs, v + 0x380, v + 0x3c0, v + 0x240, v + 0x300), 2);
	CHECK_EQ_U64(get4(&l.pairs, v + 0x100, v + 0x200, v + 0x380, v + 0x3c0), 2);
	CHECK_EQ_U64(l.pairs.n, 2);
	agg = save;
	spgo_agg_free(b);
	sink_free(&l);
}

/*
 * perf script text whose first mapping names another file than the
 * program (neither having a build-id: a program renamed since): its
 * addresses are the program's own, by default, until a mapping of the
 * program's name matches (agg_map.c: own_by_default), with no new mapping
 * epoch.  The same entry before and after that match: the program's, then
 * outside -- for the sink too, so an entry claimed by default is never
 * kept (the layout stage once kept it in its own table).
 */
static void test_own_by_default(void)
{
	/* the copy without its build-id (the note's type changed) */
	struct spgo_file f;
	REQUIRE(spgo_file_map(&f, self) == 0);
	uint8_t *img = xmalloc(f.size);
	memcpy(img, f.data, f.size);
	size_t size = f.size;
	spgo_file_unmap(&f);
	int patched = 0;
	for (size_t i = 0; i + 16 <= size; i += 4) {
		uint32_t h[3];
		memcpy(h, img + i, 12);
		if (h[0] == 4 && h[2] == NT_GNU_BUILD_ID && h[1] >= 8 && h[1] <= 64 && !memcmp(img + i + 12, "GNU", 4)) {
			h[2] = 0x7f;
			memcpy(img + i, h, 12);
			patched++;
		}
	}
	char *bin = xasprintf("%s/aggnoid", dir), *text = xasprintf("%s/own.script", dir);
	FILE *fp = fopen(bin, "wb");
	int ok = fp && fwrite(img, 1, size, fp) == size;
	ok = fp && fclose(fp) == 0 && ok;
	free(img);
	REQUIRE(ok && patched);
	/* "recorded" at the preferred base (runtime = vaddr), the program at
	 * another; samples: recorded, program, recorded */
	const uint64_t v = x_vaddr, r = 0x7e0000000000 + x_off;
	fp = fopen(text, "w");
	REQUIRE(fp);
	fprintf(fp, "PERF_RECORD_MMAP2 7/7: [0x0(0x10000000) @ 0 fd:01 77 0]: r-xp /opt/app/recorded\n");
	fprintf(fp, "PERF_RECORD_MMAP2 7/7: [0x7e0000000000(0x10000000) @ 0 fd:01 78 0]: r-xp /x/aggnoid\n");
	for (int k = 0; k < 3; k++) {
		uint64_t b = k == 1 ? r : v;
		fprintf(fp, "   7      %llx 0x%llx/0x%llx/P/-/-/0/  0x%llx/0x%llx/P/-/-/0/ \n",
			(unsigned long long)(b + 0x304), (unsigned long long)(b + 0x220),
			(unsigned long long)(b + 0x300), (unsigned long long)(b + 0x100),
			(unsigned long long)(b + 0x200));
	}
	REQUIRE(fclose(fp) == 0);
	struct sink_log l;
	struct spgo_aggregate *b;
	REQUIRE(spgo_agg_new(&b, bin, NULL) == 0);
	spgo_kmap_init(&l.taken, 2);
	spgo_kmap_init(&l.mispred, 2);
	spgo_kmap_init(&l.pairs, 4);
	struct spgo_agg_lbr_sink sink = {.ctx = &l, .edge = log_edge, .pair = log_pair};
	spgo_agg_on_lbr(b, &sink);
	/* what it warns, from stderr */
	char *errs = xasprintf("%s/own.err", dir);
	int saved = dup(2), fd = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	REQUIRE(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	CHECK(spgo_agg_read_text(b, text) == 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	REQUIRE(spgo_file_map(&f, errs) == 0);
	char *said = xstrndup((const char *)f.data, f.size);
	spgo_file_unmap(&f);
	/* a mapping of aggnoid matched after the first sample: the warning
	 * says so, never that no mmap event names it */
	CHECK(strstr(said, "no mmap event names") == NULL);
	CHECK(strstr(said, " addresses fell in '/opt/app/recorded' before a mapping of aggnoid "
			   "('/x/aggnoid') was seen") != NULL);
	fputs(said, stderr);
	free(said);
	unlink(errs);
	free(errs);
	const uint64_t E = SPGO_AGG_EXTERNAL;
	/* first sample by default, second the program's: 2 of each */
	CHECK_EQ_U64(get2(&b->branches, v + 0x220, v + 0x300), 2);
	CHECK_EQ_U64(get2(&b->ranges, v + 0x200, v + 0x220), 2);
	CHECK_EQ_U64(get2(&l.taken, v + 0x220, v + 0x300), 2);
	CHECK_EQ_U64(get2(&l.taken, v + 0x100, v + 0x200), 2);
	CHECK_EQ_U64(get4(&l.pairs, v + 0x100, v + 0x200, v + 0x220, v + 0x300), 2);
	/* the third, after the match: outside */
	CHECK_EQ_U64(get2(&l.taken, E, E), 2);
	CHECK_EQ_U64(get4(&l.pairs, E, E, E, E), 1);
	spgo_agg_free(b);
	sink_free(&l);
	unlink(bin);
	unlink(text);
	free(bin);
	free(text);
}

/* What an on_stack callback saw: a hash of the calls in order, their
 * number, the counts' sum, whether one came on another thread. */
struct stack_log {
	uint64_t hash, calls, total;
	pthread_t reader;
	int other_thread;
};

static void log_stack(void *ctx, const struct spgo_agg_stack *s)
{
	struct stack_log *l = ctx;
	uint64_t h = l->hash ^ s->count ^ ((uint64_t)s->nframes << 40 | s->nbranches);
	for (uint32_t i = 0; i < s->nframes; i++)
		h = spgo_hash64(h ^ s->frames[i]);
	for (uint32_t i = 0; i < 2 * s->nbranches; i++)
		h = spgo_hash64(h ^ s->branches[i]);
	l->hash = spgo_hash64(h);
	l->calls++;
	l->total += s->count;
	if (!pthread_equal(pthread_self(), l->reader))
		l->other_thread = 1;
}

/* Stacks drawn from a small set (so that some repeat within a batch),
 * batches of 4 KiB: threaded, the same calls in the same order. */
static void feed_stacks(struct spgo_aggregate *b, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t r = x >> 33, k = r % 97;
		uint64_t fr[6], br[8];
		uint32_t nf = 1 + (uint32_t)(k % 6), nb = (uint32_t)(k % 5);
		for (uint32_t j = 0; j < nf; j++)
			fr[j] = 0x401000 + 16 * ((k * 7 + j) % 61);
		for (uint32_t j = 0; j < 2 * nb; j++)
			br[j] = j == 3 ? SPGO_AGG_EXTERNAL : 0x401000 + 8 * ((k * 13 + j) % 53);
		spgo_agg_add_stack(b, fr, nf, br, nb, 1 + (r >> 20) % 3);
	}
}

static void test_stack_thread(void)
{
	struct stack_log logs[2];
	for (int threaded = 0; threaded < 2; threaded++) {
		struct spgo_aggregate *b;
		REQUIRE(spgo_agg_new(&b, self, NULL) == 0);
		struct stack_log *l = &logs[threaded];
		memset(l, 0, sizeof *l);
		l->reader = pthread_self();
		spgo_agg_on_stack(b, log_stack, l, 4096);
		if (threaded)
			CHECK(spgo_agg_on_stack_thread(b) == 0);
		feed_stacks(b, 42);
		spgo_agg_on_stack(b, NULL, NULL, 0); /* the last batch; the thread ends */
		struct spgo_agg_stack st;
		size_t it = 0;
		CHECK(!spgo_agg_next_stack(b, &it, &st)); /* nothing kept */
		/* Keeping all again: a stack fed now stays in the aggregate. */
		uint64_t fr = 0x401000;
		spgo_agg_add_stack(b, &fr, 1, NULL, 0, 5);
		it = 0;
		CHECK(spgo_agg_next_stack(b, &it, &st) && st.count == 5);
		spgo_agg_free(b);
		CHECK_EQ_U64(l->other_thread, threaded);
	}
	CHECK(logs[0].calls > 200); /* many batches, repeats merged within each */
	CHECK(logs[0].calls < 20000);
	CHECK_EQ_U64(logs[1].calls, logs[0].calls);
	CHECK_EQ_U64(logs[1].total, logs[0].total);
	CHECK_EQ_U64(logs[1].hash, logs[0].hash);

	/* Freed while the thread runs: the batch in hand is still handed over. */
	struct spgo_aggregate *b;
	REQUIRE(spgo_agg_new(&b, self, NULL) == 0);
	struct stack_log l = {0};
	l.reader = pthread_self();
	spgo_agg_on_stack(b, log_stack, &l, 4096);
	CHECK(spgo_agg_on_stack_thread(b) == 0);
	feed_stacks(b, 7);
	spgo_agg_free(b);
	CHECK(l.calls > 0 && l.other_thread);
}

/* A copy of this program as dir/aggbin, and 0x400 bytes of its code
 * (x_vaddr, x_off); 0, or -1. */
static int copy_self(void)
{
	struct spgo_file f;
	if (spgo_file_map(&f, "/proc/self/exe") < 0)
		return -1;
	self = xasprintf("%s/aggbin", dir);
	FILE *out = fopen(self, "wb");
	int ok = out && fwrite(f.data, 1, f.size, out) == f.size;
	ok = out && fclose(out) == 0 && ok;
	spgo_file_unmap(&f);
	struct spgo_binary *bin;
	if (!ok || spgo_binary_open(&bin, self, NULL) < 0)
		return -1;
	size_t n;
	const struct spgo_segment *seg = spgo_binary_segments(bin, &n);
	int found = 0;
	for (size_t i = 0; i < n && !found; i++)
		if ((seg[i].flags & PF_X) && seg[i].filesz >= 0x800) {
			x_vaddr = seg[i].vaddr + 0x100;
			x_off = seg[i].offset + 0x100;
			found = 1;
		}
	spgo_binary_close(bin);
	return found ? 0 : -1;
}

int main(void)
{
	if (!mkdtemp(dir) || copy_self() < 0) {
		fprintf(stderr, "cannot copy this program to %s\n", dir);
		return 1;
	}
	RUN(test_remapped);
	RUN(test_sink);
	RUN(test_own_by_default);
	RUN(test_stack_thread);
	unlink(self);
	rmdir(dir);
	free(self);
	const char *sh = test_shared();
	char *bin = sh ? xasprintf("%s/data/autofdo-gzip/test.binary", sh) : NULL;
	if (!bin || access(bin, R_OK) != 0) {
		printf("skip: test_rules, test_function_ends: no shared test.binary\n");
		free(bin);
		DONE();
	}
	if (spgo_agg_new(&agg, bin, NULL) < 0) {
		fprintf(stderr, "%s\n", spgo_errmsg());
		return 1;
	}
	RUN(test_rules);
	RUN(test_function_ends);
	spgo_agg_free(agg);
	free(bin);
	DONE();
}
