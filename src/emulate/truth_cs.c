/*
 * truth_cs.c: the emulator's side of the context-sensitive ground truth
 * (spgo/ground_truth.h states the file's format): the main binary's
 * function entries handed to the QEMU plugin, so that it tells tail calls,
 * and the plugin's raw per-context counts turned into the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "emulate/trace.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/emulate.h"
#include "spgo/ground_truth.h"

#define GTCS_MAGIC "spgo-ground-truth-cs 1"


/* ---- from the emulator --------------------------------------------------------- */

int spgo_gt_cs_write_entries(const char *binary, const char *out)
{
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, binary, NULL) < 0)
		return -1;
	size_t n, nseg;
	const struct spgo_function *fn = spgo_binary_functions(bin, &n);
	const struct spgo_segment *seg = spgo_binary_segments(bin, &nseg);
	uint64_t lowest = UINT64_MAX;
	for (size_t i = 0; i < nseg; i++)
		if ((seg[i].flags & 1 /* PF_X */) && seg[i].vaddr < lowest)
			lowest = seg[i].vaddr;
	VEC(uint64_t) v = {0};
	VEC_PUSH(&v, lowest);
	VEC_PUSH(&v, 0);
	/* Entries: the start of every function, not of its split parts. */
	for (size_t i = 0; i < n; i++)
		if (fn[i].parent < 0 && (!v.n || v.v[v.n - 1] != fn[i].start))
			VEC_PUSH(&v, fn[i].start);
	v.v[1] = v.n - 2;
	FILE *fp = fopen(out, "wb");
	int rc = fp && fwrite(v.v, 8, v.n, fp) == v.n ? 0 : -1;
	if (fp && fclose(fp) != 0)
		rc = -1;
	if (rc < 0)
		spgo_error("%s: cannot write: %s", out, strerror(errno));
	VEC_FREE(&v);
	spgo_binary_close(bin);
	return rc;
}

/* Reading the plugin's file (common/bytes.h).  Its words are in host byte
 * order (emulate/trace.h), read here as little-endian: the hosts spgo
 * emulate runs on (x86-64, AArch64 Linux) all are.  A short read leaves p
 * at the word, whose offset the error names. */
static uint64_t rd64(struct rd *r)
{
	if (rd_left(r) < 8) {
		rd_fail(r, RD_SHORT);
		return 0;
	}
	return rd_u64(r);
}

/* A view's counts while converting, keyed by context text id (the text of
 * a context is its sites in hex, interned in one table for both views). */
struct cview {
	struct spgo_kmap insns; /* (ctx, addr) -> count */
	struct spgo_kmap edges; /* (ctx, from, to, kind) -> count */
};

static int cmp_insn(const void *a, const void *b)
{
	const struct spgo_gt_cs_insn *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_edge(const void *a, const void *b)
{
	return spgo_gt_cs_edge_before(a, b) ? -1 : spgo_gt_cs_edge_before(b, a) ? 1 : 0;
}

struct named {
	const char *s;
	uint32_t id;
};

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->s, ((const struct named *)b)->s);
}

static const char cls_kind_taken[] = {0, 0, 'T', 'T', 'T', 'T', 'T', 0}; /* by enum emu_cls */

/* The conversion's state: the mapped plugin file and reader, the tables
 * built from its sections in order, and the two views' counts. */
struct conv {
	struct spgo_file f;
	struct rd r;
	spgo_gt_map_fn map;
	void *arg;
	struct cview cv[2];
	struct spgo_strtab texts;
	uint32_t empty;                /* text id of the empty context */
	uint32_t *raw_view;            /* raw context -> text id */
	uint64_t n_raw;
	VEC(uint32_t) pair_fp, pair_tv;
	VEC(size_t) block_at;          /* block index -> offset of its record */
	struct spgo_kmap last_cls;     /* runtime last insn -> end << 8 | cls */
	struct spgo_kmap cond_end;     /* conditional branch p_vaddr -> fall-through p_vaddr + 1 */
	struct spgo_kmap taken[2];     /* per view: (ctx, conditional branch) -> taken count */
	VEC(char) txt;
};

static void conv_init(struct conv *c)
{
	spgo_kmap_init(&c->last_cls, 1);
	spgo_kmap_init(&c->cond_end, 1);
	spgo_kmap_init(&c->taken[0], 2);
	spgo_kmap_init(&c->taken[1], 2);
	spgo_strtab_init(&c->texts);
	c->empty = spgo_strtab_intern(&c->texts, "", 0);
	for (int v = 0; v < 2; v++) {
		spgo_kmap_init(&c->cv[v].insns, 2);
		spgo_kmap_init(&c->cv[v].edges, 4);
	}
}

static void conv_free(struct conv *c)
{
	free(c->raw_view);
	spgo_strtab_free(&c->texts);
	for (int v = 0; v < 2; v++) {
		spgo_kmap_free(&c->cv[v].insns);
		spgo_kmap_free(&c->cv[v].edges);
	}
	spgo_kmap_free(&c->last_cls);
	spgo_kmap_free(&c->cond_end);
	spgo_kmap_free(&c->taken[0]);
	spgo_kmap_free(&c->taken[1]);
	VEC_FREE(&c->pair_fp);
	VEC_FREE(&c->pair_tv);
	VEC_FREE(&c->block_at);
	VEC_FREE(&c->txt);
}

/* Contexts: in both views, the sites mapped into the binary and cut
 * below the innermost one outside it. */
static void read_contexts(struct conv *c)
{
	struct rd *r = &c->r;
	uint64_t n = c->n_raw = rd64(r);
	if (n > c->f.size / 8) {
		r->bad = 1;
		return;
	}
	c->raw_view = xcalloc(n + 1, sizeof *c->raw_view);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t len = rd64(r);
		if (len > rd_left(r) / 8) {
			r->bad = 1;
			break;
		}
		size_t keep = 0;
		c->txt.n = 0;
		for (uint64_t k = 0; k < len; k++) {
			uint64_t a = rd64(r), va;
			if (!c->map(c->arg, a, &va)) {
				c->txt.n = 0; /* cut: start afresh below an outside site */
				keep = 0;
				continue;
			}
			char hx[24];
			int m = snprintf(hx, sizeof hx, "%s%" PRIx64, keep ? " " : "", va);
			VEC_GROW(&c->txt, c->txt.n + (size_t)m + 1);
			memcpy(c->txt.v + c->txt.n, hx, (size_t)m);
			c->txt.n += (size_t)m;
			keep++;
		}
		VEC_GROW(&c->txt, c->txt.n + 1);
		c->txt.v[c->txt.n] = 0;
		c->raw_view[i] = spgo_strtab_intern(&c->texts, c->txt.v, c->txt.n);
	}
}

/* Pairs: a (frame-pointer, true) raw context per word. */
static void read_pairs(struct conv *c)
{
	struct rd *r = &c->r;
	uint64_t n = rd64(r);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t w = rd64(r);
		uint32_t fp = (uint32_t)w, tv = (uint32_t)(w >> 32);
		if (fp >= c->n_raw || tv >= c->n_raw)
			r->bad = 1;
		VEC_PUSH(&c->pair_fp, fp);
		VEC_PUSH(&c->pair_tv, tv);
	}
}

/* Blocks: offsets of their records, and the class of their last
 * instruction for the edges' kinds. */
static void read_blocks(struct conv *c)
{
	struct rd *r = &c->r;
	uint64_t n = rd64(r);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		size_t at = rd_off(r);
		uint64_t start = rd64(r), w = rd64(r);
		uint32_t ni = (uint32_t)w, idx = (uint32_t)(w >> 32);
		size_t bytes = ((size_t)ni * 4 + 7) & ~(size_t)7;
		if (r->bad || !ni || bytes > rd_left(r) || idx >= n) {
			r->bad = 1;
			break;
		}
		if (c->block_at.n <= idx) {
			VEC_GROW(&c->block_at, (size_t)idx + 1);
			while (c->block_at.n <= idx)
				c->block_at.v[c->block_at.n++] = SIZE_MAX;
		}
		c->block_at.v[idx] = at;
		uint32_t last;
		memcpy(&last, r->p + 4 * (size_t)(ni - 1), 4);
		uint64_t la = start + (last >> 16);
		uint64_t end = la + ((last >> 8) & 0xff), lva, eva;
		*spgo_kmap_upsert(&c->last_cls, &la) = end << 8 | (last & 0xff);
		if ((last & 0xff) == EMU_CLS_COND && c->map(c->arg, la, &lva))
			*spgo_kmap_upsert(&c->cond_end, &lva) =
				(c->map(c->arg, end, &eva) ? eva : SPGO_GT_OUTSIDE) + 1;
		rd_skip(r, bytes);
	}
}

/* Instruction counts. */
static void read_insns(struct conv *c)
{
	struct rd *r = &c->r;
	uint64_t n = rd64(r);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t w = rd64(r), count = rd64(r);
		uint32_t bi = (uint32_t)w, pair = (uint32_t)(w >> 32);
		if (r->bad || bi >= c->block_at.n || c->block_at.v[bi] == SIZE_MAX || pair >= c->pair_fp.n) {
			r->bad = 1;
			break;
		}
		const uint8_t *blk = c->f.data + c->block_at.v[bi];
		uint64_t start, hdr;
		memcpy(&start, blk, 8);
		memcpy(&hdr, blk + 8, 8);
		uint32_t ni = (uint32_t)hdr;
		for (uint32_t k = 0; k < ni; k++) {
			uint32_t ins;
			memcpy(&ins, blk + 16 + 4 * (size_t)k, 4);
			uint64_t va;
			if (!c->map(c->arg, start + (ins >> 16), &va))
				continue;
			uint32_t raw[2] = {c->pair_fp.v[pair], c->pair_tv.v[pair]};
			for (int v = 0; v < 2; v++) {
				uint64_t key[2] = {c->raw_view[raw[v]], va};
				*spgo_kmap_upsert(&c->cv[v].insns, key) += count;
			}
		}
	}
}

/* Edges, with the kinds of the plain ground truth. */
static void read_edges(struct conv *c)
{
	struct rd *r = &c->r;
	uint64_t n = rd64(r);
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t from = rd64(r), to = rd64(r), pair = rd64(r), count = rd64(r);
		if (r->bad || pair >= c->pair_fp.n) {
			r->bad = 1;
			break;
		}
		uint64_t *lc = spgo_kmap_find(&c->last_cls, &from);
		uint64_t end = lc ? *lc >> 8 : 0;
		unsigned cls = lc ? *lc & 0xff : 0;
		char kind;
		if (cls_kind_taken[cls & 7])
			kind = 'T';
		else if (cls == EMU_CLS_COND && to == end)
			continue; /* the plugin leaves these out; derived below */
		else if (cls == EMU_CLS_COND)
			kind = 'T';
		else if (to == end)
			continue; /* a block split: sequential flow */
		else
			kind = 'X';
		uint64_t fva, tva;
		int fin = c->map(c->arg, from, &fva), tin = c->map(c->arg, to, &tva);
		if (!fin && !tin)
			continue;
		uint32_t raw[2] = {c->pair_fp.v[pair], c->pair_tv.v[pair]};
		for (int v = 0; v < 2; v++) {
			/* A transfer from outside runs in no context of the binary. */
			uint64_t key[4] = {fin ? c->raw_view[raw[v]] : c->empty,
					   fin ? fva : SPGO_GT_OUTSIDE, tin ? tva : SPGO_GT_OUTSIDE,
					   (uint64_t)kind};
			*spgo_kmap_upsert(&c->cv[v].edges, key) += count;
			if (fin && cls == EMU_CLS_COND) {
				uint64_t tk[2] = {key[0], fva};
				*spgo_kmap_upsert(&c->taken[v], tk) += count;
			}
		}
	}
}

/* Fall-throughs of conditional branches: executions less taken ones. */
static void add_fallthroughs(struct conv *c)
{
	for (int v = 0; v < 2; v++) {
		const uint64_t *key;
		uint64_t *val;
		for (size_t it = 0; spgo_kmap_next(&c->cv[v].insns, &it, &key, &val);) {
			uint64_t *ce = spgo_kmap_find(&c->cond_end, &key[1]);
			if (!ce)
				continue;
			uint64_t *tk = spgo_kmap_find(&c->taken[v], key);
			uint64_t t = tk ? *tk : 0;
			if (*val <= t)
				continue;
			uint64_t ek[4] = {key[0], key[1], *ce - 1, 'F'};
			*spgo_kmap_upsert(&c->cv[v].edges, ek) += *val - t;
		}
	}
}

/* One view of the file: the contexts used, numbered by their text (the
 * empty one first), then the sorted records. */
static void build_view(const struct conv *c, const struct cview *cv, struct spgo_gt_cs_view *w)
{
	size_t nt = c->texts.n;
	uint8_t *used = xcalloc(nt + 1, 1);
	used[c->empty] = 1;
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&cv->insns, &it, &key, &val);)
		used[key[0]] = 1;
	for (size_t it = 0; spgo_kmap_next(&cv->edges, &it, &key, &val);)
		used[key[0]] = 1;
	/* Order: by the text of the sites (the empty context sorts first). */
	VEC(struct named) order = {0};
	for (uint32_t t = 0; t < nt; t++)
		if (used[t]) {
			struct named x = {spgo_strtab_get(&c->texts, t), t};
			VEC_PUSH(&order, x);
		}
	spgo_sort(order.v, order.n, sizeof *order.v, cmp_named);
	uint32_t *dense = xcalloc(nt + 1, sizeof *dense);
	VEC(uint64_t) sites = {0};
	VEC(size_t) off = {0};
	for (size_t k = 0; k < order.n; k++) {
		dense[order.v[k].id] = (uint32_t)k;
		VEC_PUSH(&off, sites.n);
		const char *s = order.v[k].s;
		while (*s) {
			char *e;
			VEC_PUSH(&sites, strtoull(s, &e, 16));
			s = *e ? e + 1 : e;
		}
	}
	VEC_PUSH(&off, sites.n);
	w->sites = sites.v;
	w->ctx_off = off.v;
	w->n_ctx = order.n;
	uint64_t *rows = spgo_kmap_sorted(&cv->insns);
	w->insns = xcalloc(cv->insns.n + 1, sizeof *w->insns);
	for (size_t i = 0; i < cv->insns.n; i++)
		w->insns[i] = (struct spgo_gt_cs_insn){dense[rows[3 * i]], rows[3 * i + 1], rows[3 * i + 2]};
	w->n_insns = cv->insns.n;
	free(rows);
	rows = spgo_kmap_sorted(&cv->edges);
	w->edges = xcalloc(cv->edges.n + 1, sizeof *w->edges);
	for (size_t i = 0; i < cv->edges.n; i++)
		w->edges[i] = (struct spgo_gt_cs_edge){dense[rows[5 * i]], (char)rows[5 * i + 3],
						       rows[5 * i + 1], rows[5 * i + 2], rows[5 * i + 4]};
	w->n_edges = cv->edges.n;
	free(rows);
	/* Dense ids do not follow the text ids' order: sort again. */
	spgo_sort(w->insns, w->n_insns, sizeof *w->insns, cmp_insn);
	spgo_sort(w->edges, w->n_edges, sizeof *w->edges, cmp_edge);
	free(dense);
	free(used);
	VEC_FREE(&order);
}

int spgo_gt_cs_convert(const char *cscounts, spgo_gt_map_fn map, void *arg, const char *path,
		       const uint8_t *build_id, size_t build_id_len, unsigned depth, const char *out)
{
	struct conv c = {.map = map, .arg = arg};
	if (spgo_file_map(&c.f, cscounts) < 0)
		return -1;
	c.r = rd_init(c.f.data, c.f.size);
	conv_init(&c);
	int rc = -1;
	struct spgo_gt_cs gt = {0};
	if (rd64(&c.r) != EMU_CSCOUNTS_MAGIC) {
		spgo_error("%s: offset 0: not a spgo emulate context-sensitive counts file", cscounts);
		goto out;
	}
	/* The sections in the file's order; each stops at the first bad word. */
	void (*const section[])(struct conv *) = {read_contexts, read_pairs, read_blocks, read_insns,
						  read_edges};
	for (size_t s = 0; s < sizeof section / sizeof *section && !c.r.bad; s++)
		section[s](&c);
	if (c.r.bad) {
		spgo_error("%s: offset 0x%zx: truncated or malformed context-sensitive counts file",
			   cscounts, rd_off(&c.r));
		goto out;
	}
	add_fallthroughs(&c);
	gt.path = xstrdup(path);
	gt.build_id_len = build_id_len > 20 ? 20 : build_id_len;
	if (gt.build_id_len)
		memcpy(gt.build_id, build_id, gt.build_id_len);
	gt.depth = depth;
	for (int v = 0; v < 2; v++)
		build_view(&c, &c.cv[v], &gt.views[v]);
	rc = spgo_gt_cs_write(&gt, out);
out:
	spgo_gt_cs_free(&gt);
	conv_free(&c);
	spgo_file_unmap(&c.f);
	return rc;
}
