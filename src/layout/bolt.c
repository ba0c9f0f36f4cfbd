/*
 * bolt.c: BOLT's profile of the capture, in the two forms BOLT reads.
 *
 * fdata (`llvm-bolt --data`, what perf2bolt writes), one line per branch:
 *     <is_sym> <func> <offset> <is_sym> <func> <offset> <mispreds> <count>
 * offsets in hex from the function's start; an end outside every function
 * is "0 [unknown] 0".  As perf2bolt-19 aggregates:
 *  - a taken branch whose source is a return is left out (BOLT ignores
 *    returns); one with both ends outside the functions too;
 *  - a fall-through range [begin, end] of one function becomes the
 *    fall-through edges between BOLT's blocks it crosses, each written as a
 *    branch from the block's last instruction to the next block's start
 *    with 0 mispredictions; a range that reaches a block that cannot fall
 *    through (its last instruction jumps or returns) is inconsistent and
 *    dropped whole; one entered from another function (a return) at a
 *    block start right after a block ending in a call begins at that call's
 *    block;
 *  - the same (from, to) adds up.
 * IP samples give the `no_lbr <event>` form: `1 <func> <offset> <count>`.
 *
 * Pre-aggregated (`perf2bolt --pa`, `llvm-bolt --pa`), addresses in hex
 * (the binary's own, which is also the offset from its base for a PIE),
 * 0 for an address outside the binary:
 *     B <from> <to> <count> <mispreds>     a taken branch
 *     F <begin> <end> <count>              a fall-through range
 *     f <begin> <end> <count>              ... entered from outside its function
 *     E <event> / S <addr> <count>         IP samples of an event
 * BOLT then does the block work itself; these are the forms BOLT 19 reads
 * and later versions still do (T/R lines are newer).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_impl.h"

int lay_has_relocs(struct lay *L)
{
	uint64_t addr;
	size_t size;
	return spgo_binary_section(L->bin, ".rela.text", &addr, &size) != NULL;
}

/* fdata rows: {from func + 1, from offset, to func + 1, to offset} -> count
 * (func 0: outside every function) and the same key -> mispredictions. */
struct rows {
	struct spgo_kmap count, mispred;
};

static void add_row(struct rows *R, long ff, uint64_t fo, long ft, uint64_t to, uint64_t n, uint64_t mis)
{
	uint64_t key[4] = {(uint64_t)(ff + 1), fo, (uint64_t)(ft + 1), to};
	*spgo_kmap_upsert(&R->count, key) += n;
	if (mis)
		*spgo_kmap_upsert(&R->mispred, key) += mis;
}

/* Taken branches, as perf2bolt's doBranch takes them. */
static void add_branches(struct lay *L, struct rows *R)
{
	const uint64_t *k;
	uint64_t *v;
	for (size_t it = 0; spgo_kmap_next(&L->lbr.taken, &it, &k, &v);) {
		long ff = k[0] == SPGO_AGG_EXTERNAL ? -1 : lay_func_at(L, k[0]);
		long ft = k[1] == SPGO_AGG_EXTERNAL ? -1 : lay_func_at(L, k[1]);
		if (ff < 0 && ft < 0)
			continue;
		if (ff >= 0) {
			const struct spgo_insn *in = spgo_binary_insn_at(L->bin, k[0]);
			if (in && in->cls == SPGO_INSN_RETURN)
				continue;
		}
		uint64_t *mis = spgo_kmap_find(&L->lbr.mispred, k);
		add_row(R, ff, ff >= 0 ? k[0] - L->fns.v[ff].start : 0, ft,
			ft >= 0 ? k[1] - L->fns.v[ft].start : 0, *v, mis ? *mis : 0);
	}
}

/* Fall-through ranges -> the fall-through edges between blocks. */
static void add_traces(struct lay *L, struct rows *R)
{
	const uint64_t *k;
	uint64_t *v;
	for (size_t it = 0; spgo_kmap_next(&L->lbr.traces, &it, &k, &v);) {
		long fi = lay_func_at(L, k[0]);
		if (fi < 0 || k[0] > k[1])
			continue;
		struct lay_func *f = &L->fns.v[fi];
		lay_blocks(L, f);
		if (!f->simple)
			continue;
		uint32_t from = lay_block_at(f, k[0]), to = lay_block_at(f, k[1]);
		/* entered by a return at the block after a call: from the call */
		if (k[2] && from > 0 && k[0] == f->blocks[from] && f->falls[from - 1] && f->ends_in_call[from - 1])
			from--;
		uint32_t b;
		for (b = from; b < to && f->falls[b]; b++)
			;
		if (b < to)
			continue; /* a block on the way cannot fall through */
		for (b = from; b < to; b++)
			add_row(R, fi, f->last[b] - f->start, fi, f->blocks[b + 1] - f->start, *v, 0);
	}
}

static void put_loc(const struct lay *L, FILE *fp, uint64_t fplus1, uint64_t off)
{
	if (fplus1)
		fprintf(fp, "1 %s %" PRIx64 " ", L->fns.v[fplus1 - 1].name, off);
	else
		fputs("0 [unknown] 0 ", fp);
}

static const char *event_name(const struct lay *L)
{
	return L->ip_event >= 0 ? L->agg->events.v[(size_t)L->ip_event].name : "cycles";
}

/* IP samples: {func + 1, offset} -> samples, written `1 f off n`. */
static int write_no_lbr(struct lay *L, FILE *fp)
{
	struct spgo_kmap m;
	spgo_kmap_init(&m, 2);
	if (L->ip_event >= 0) {
		const uint64_t *k;
		uint64_t *v;
		for (size_t it = 0; spgo_kmap_next(&L->agg->events.v[(size_t)L->ip_event].ips, &it, &k, &v);) {
			long f = lay_func_at(L, k[0]);
			if (f < 0)
				continue;
			uint64_t key[2] = {(uint64_t)f + 1, k[0] - L->fns.v[f].start};
			*spgo_kmap_upsert(&m, key) += *v;
		}
	}
	fprintf(fp, "no_lbr %s:\n", event_name(L)); /* as perf script prints it */
	uint64_t *rows = spgo_kmap_sorted(&m);
	for (size_t i = 0; i < m.n; i++) {
		put_loc(L, fp, rows[3 * i], rows[3 * i + 1]);
		fprintf(fp, "%" PRIu64 "\n", rows[3 * i + 2]);
	}
	free(rows);
	spgo_kmap_free(&m);
	return 0;
}

int lay_write_fdata(struct lay *L, FILE *fp)
{
	if (!L->lbr_mode)
		return write_no_lbr(L, fp);
	struct rows R;
	spgo_kmap_init(&R.count, 4);
	spgo_kmap_init(&R.mispred, 4);
	add_branches(L, &R);
	add_traces(L, &R);
	uint64_t *rows = spgo_kmap_sorted(&R.count);
	for (size_t i = 0; i < R.count.n; i++) {
		const uint64_t *r = &rows[5 * i];
		uint64_t *mis = spgo_kmap_find(&R.mispred, r);
		put_loc(L, fp, r[0], r[1]);
		put_loc(L, fp, r[2], r[3]);
		fprintf(fp, "%" PRIu64 " %" PRIu64 "\n", mis ? *mis : 0, r[4]);
	}
	free(rows);
	spgo_kmap_free(&R.count);
	spgo_kmap_free(&R.mispred);
	return 0;
}

static uint64_t pa_addr(uint64_t a)
{
	return a == SPGO_AGG_EXTERNAL ? 0 : a;
}

int lay_write_preagg(struct lay *L, FILE *fp)
{
	if (!L->lbr_mode) {
		fprintf(fp, "E %s\n", event_name(L));
		if (L->ip_event >= 0) {
			struct spgo_kmap *ips = &L->agg->events.v[(size_t)L->ip_event].ips;
			uint64_t *rows = spgo_kmap_sorted(ips);
			for (size_t i = 0; i < ips->n; i++)
				fprintf(fp, "S %" PRIx64 " %" PRIu64 "\n", rows[2 * i], rows[2 * i + 1]);
			free(rows);
		}
		return 0;
	}
	uint64_t *rows = spgo_kmap_sorted(&L->lbr.taken);
	for (size_t i = 0; i < L->lbr.taken.n; i++) {
		const uint64_t *r = &rows[3 * i];
		uint64_t *mis = spgo_kmap_find(&L->lbr.mispred, r);
		fprintf(fp, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", pa_addr(r[0]), pa_addr(r[1]),
			r[2], mis ? *mis : 0);
	}
	free(rows);
	rows = spgo_kmap_sorted(&L->lbr.traces);
	for (size_t i = 0; i < L->lbr.traces.n; i++) {
		const uint64_t *r = &rows[4 * i];
		fprintf(fp, "%c %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", r[2] ? 'f' : 'F', r[0], r[1], r[3]);
	}
	free(rows);
	return 0;
}
