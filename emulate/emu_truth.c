/*
 * emu_truth.c: the plugin's ground truth (see spgo_emu.c): exact edge
 * counts beyond each block's two-entry cache, the calling contexts and
 * their counts (cscounts=), and the two counts files written at exit
 * (layouts in src/emulate/trace.h).  Everything here runs under emu_lock
 * once more than one thread exists (emu_mt).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu.h"
#include "trace.h"

/* ---- ground-truth edges --------------------------------------------------------------- */

struct edge {
	uint64_t from, to, n;
};
static struct edge *edges;
static size_t edges_cap, edges_n;

void emu_edge_slow(uint64_t from, uint64_t to)
{
	if (edges_n * 2 >= edges_cap) {
		size_t cap = edges_cap ? edges_cap * 2 : 4096;
		struct edge *e = calloc(cap, sizeof *e);
		if (!e)
			emu_oom();
		for (size_t i = 0; i < edges_cap; i++) {
			if (!edges[i].n)
				continue;
			size_t h = (size_t)((edges[i].from * 0x9E3779B97F4A7C15ULL) ^ edges[i].to) *
				   0xff51afd7ed558ccdULL >> 20;
			while (e[h & (cap - 1)].n)
				h++;
			e[h & (cap - 1)] = edges[i];
		}
		free(edges);
		edges = e;
		edges_cap = cap;
	}
	size_t h = (size_t)((from * 0x9E3779B97F4A7C15ULL) ^ to) * 0xff51afd7ed558ccdULL >> 20;
	for (;; h++) {
		struct edge *e = &edges[h & (edges_cap - 1)];
		if (!e->n) {
			e->from = from, e->to = to, e->n = 1;
			edges_n++;
			return;
		}
		if (e->from == from && e->to == to) {
			e->n++;
			return;
		}
	}
}

/* ---- calling contexts (cscounts=) ------------------------------------------------------------ */

/* A small open-addressing table of three-word keys; an entry is in use when
 * v != 0, so callers store counts (>= 1) or ids + 1.  Caller holds lock
 * when emu_mt. */
struct kent {
	uint64_t a, b, c, v;
};
struct ktab {
	struct kent *e;
	size_t cap, n;
};

static inline size_t khash(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ b * 0xC2B2AE3D27D4EB4FULL ^ c * 0x165667B19E3779F9ULL;
	h ^= h >> 29;
	return (size_t)(h * 0xff51afd7ed558ccdULL >> 17);
}

void emu_oom(void)
{
	fprintf(stderr, "spgo-emulate: out of memory\n");
	_exit(70);
}

static void *xcalloc_or_die(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p)
		emu_oom();
	return p;
}

/* The value slot of key (a, b, c), inserted with v = 0 if new: the caller
 * then sets it non-zero before the next call. */
static uint64_t *ktab_get(struct ktab *t, uint64_t a, uint64_t b, uint64_t c)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct kent *e = xcalloc_or_die(cap, sizeof *e);
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->e[i].v)
				continue;
			size_t h = khash(t->e[i].a, t->e[i].b, t->e[i].c);
			while (e[h & (cap - 1)].v)
				h++;
			e[h & (cap - 1)] = t->e[i];
		}
		free(t->e);
		t->e = e;
		t->cap = cap;
	}
	for (size_t h = khash(a, b, c);; h++) {
		struct kent *x = &t->e[h & (t->cap - 1)];
		if (!x->v) {
			x->a = a, x->b = b, x->c = c;
			t->n++;
			return &x->v;
		}
		if (x->a == a && x->b == b && x->c == c)
			return &x->v;
	}
}

/* Context lists: id -> sites[off .. off + len), call sites root first (the
 * address of the call or tail-call jump).  Id 0 is the empty context. */
struct ctx {
	uint64_t off;
	uint32_t len;
};
static struct ctx *ctxs;
static uint32_t ctxs_n, ctxs_cap;
static uint64_t *ctx_sites;
static size_t ctx_sites_n, ctx_sites_cap;
static uint32_t *ctx_index; /* content hash: id + 1, open addressing */
static size_t ctx_index_cap;

/* Pairs: id -> (frame-pointer context, true context); pair 0 is (0, 0). */
struct pair {
	uint32_t fp, tv;
};
static struct pair *pairs;
static uint32_t pairs_n, pairs_cap;
static struct ktab pair_index; /* (fp, tv) -> pair + 1 */
static struct ktab pair_next;  /* (pair, site, 0 call | 1 tail call) -> pair + 1 */

static size_t sites_hash(const uint64_t *s, uint32_t n)
{
	uint64_t h = n;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001B3ULL + (h >> 31);
	return khash(h, n, 0);
}

static uint32_t ctx_intern(const uint64_t *s, uint32_t n)
{
	if ((ctxs_n + 1) * 2 > ctx_index_cap) {
		size_t cap = ctx_index_cap ? ctx_index_cap * 2 : 1024;
		uint32_t *ix = xcalloc_or_die(cap, sizeof *ix);
		for (uint32_t id = 0; id < ctxs_n; id++) {
			size_t h = sites_hash(ctx_sites + ctxs[id].off, ctxs[id].len);
			while (ix[h & (cap - 1)])
				h++;
			ix[h & (cap - 1)] = id + 1;
		}
		free(ctx_index);
		ctx_index = ix;
		ctx_index_cap = cap;
	}
	size_t h = sites_hash(s, n);
	for (;; h++) {
		uint32_t *slot = &ctx_index[h & (ctx_index_cap - 1)];
		if (!*slot) {
			if (ctxs_n == ctxs_cap) {
				ctxs_cap = ctxs_cap ? ctxs_cap * 2 : 1024;
				ctxs = realloc(ctxs, ctxs_cap * sizeof *ctxs);
			}
			if (ctx_sites_n + n > ctx_sites_cap || !ctx_sites) {
				while (ctx_sites_n + n > ctx_sites_cap || !ctx_sites_cap)
					ctx_sites_cap = ctx_sites_cap ? ctx_sites_cap * 2 : 4096;
				ctx_sites = realloc(ctx_sites, ctx_sites_cap * sizeof *ctx_sites);
			}
			if (!ctxs || !ctx_sites)
				emu_oom();
			if (n)
				memcpy(ctx_sites + ctx_sites_n, s, n * sizeof *s);
			ctxs[ctxs_n].off = ctx_sites_n;
			ctxs[ctxs_n].len = n;
			ctx_sites_n += n;
			*slot = ++ctxs_n;
			return ctxs_n - 1;
		}
		const struct ctx *c = &ctxs[*slot - 1];
		if (c->len == n && (!n || !memcmp(ctx_sites + c->off, s, n * sizeof *s)))
			return *slot - 1;
	}
}

/*
 * The context of parent followed by site.  Parent has no adjacent repeated
 * sequence, so one can only end at the new site: the shortest one found is
 * removed (what is left is a prefix of parent, free of repeats again).
 * Then only the innermost emu_cs_depth sites are kept.
 */
static uint32_t ctx_child(uint32_t parent, uint64_t site)
{
	static uint64_t buf[STACK_MAX + 1];
	uint32_t n = ctxs[parent].len;
	memcpy(buf, ctx_sites + ctxs[parent].off, n * sizeof *buf);
	buf[n++] = site;
	for (uint32_t len = 1; 2 * len <= n; len++)
		if (!memcmp(buf + n - 2 * len, buf + n - len, len * sizeof *buf)) {
			n -= len;
			break;
		}
	uint32_t from = n > emu_cs_depth ? n - emu_cs_depth : 0;
	return ctx_intern(buf + from, n - from);
}

static uint32_t pair_of(uint32_t fp, uint32_t tv)
{
	uint64_t *v = ktab_get(&pair_index, fp, tv, 0);
	if (!*v) {
		if (pairs_n == pairs_cap) {
			pairs_cap = pairs_cap ? pairs_cap * 2 : 1024;
			pairs = realloc(pairs, pairs_cap * sizeof *pairs);
			if (!pairs)
				emu_oom();
		}
		pairs[pairs_n] = (struct pair){fp, tv};
		*v = ++pairs_n;
	}
	return (uint32_t)(*v - 1);
}

/* The pair after a call (tail = 0: both views push the site) or a tail call
 * (tail = 1: only the true view does). */
uint32_t emu_pair_step(uint32_t pair, uint64_t site, int tail)
{
	if (emu_mt)
		pthread_mutex_lock(&emu_lock);
	uint64_t *v = ktab_get(&pair_next, pair, site, (uint64_t)tail);
	if (!*v) {
		struct pair p = pairs[pair];
		uint32_t fp = tail ? p.fp : ctx_child(p.fp, site);
		uint32_t tv = ctx_child(p.tv, site);
		uint32_t next = pair_of(fp, tv);
		v = ktab_get(&pair_next, pair, site, (uint64_t)tail); /* the table may have grown */
		*v = (uint64_t)next + 1;
	}
	uint32_t r = (uint32_t)(*v - 1);
	if (emu_mt)
		pthread_mutex_unlock(&emu_lock);
	return r;
}



/*
 * Counts live with their block: a slot for the pair it ran under last (its
 * cache line is loaded anyway, and a loop runs its blocks in one context),
 * then a small hash table per block, (pair) -> count, which stays hot with
 * the block.  Edges go to a table per source block, (pair, to) -> count,
 * but for fall-throughs out of a conditional branch (spgo derives them
 * from the counts).
 */
struct sent {
	uint64_t to, pair, n;
};
struct smap {
	uint32_t cap, n;
	struct sent e[];
};

void emu_smap_add(struct smap **mp, uint64_t to, uint32_t pair, uint64_t n)
{
	struct smap *m = *mp;
	if (!m || (m->n + 1) * 4 > m->cap * 3) {
		uint32_t cap = m ? m->cap * 2 : 4;
		struct smap *x = xcalloc_or_die(1, sizeof *x + cap * sizeof(struct sent));
		x->cap = cap;
		for (uint32_t i = 0; m && i < m->cap; i++) {
			if (!m->e[i].n)
				continue;
			size_t h = khash(m->e[i].to, m->e[i].pair, 0);
			while (x->e[h & (cap - 1)].n)
				h++;
			x->e[h & (cap - 1)] = m->e[i];
			x->n++;
		}
		free(m);
		*mp = m = x;
	}
	for (size_t h = khash(to, pair, 0);; h++) {
		struct sent *e = &m->e[h & (m->cap - 1)];
		if (!e->n) {
			e->to = to, e->pair = pair, e->n = n;
			m->n++;
			return;
		}
		if (e->to == to && e->pair == pair) {
			e->n += n;
			return;
		}
	}
}


/* Context 0 is the empty one, pair 0 is (0, 0). */
void emu_cs_init(void)
{
	ctx_intern(NULL, 0);
	pair_of(0, 0);
}

/* ---- at exit: the counts files --------------------------------------------------------- */

int emu_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k, n -= (size_t)k;
	}
	return 0;
}

/* Buffered writes for the counts dump. */
static uint8_t cbuf[1 << 16];
static size_t cbuf_n;
static int cfd = -1, cbad;
static void cput(const void *p, size_t n)
{
	if (cbuf_n + n > sizeof cbuf) {
		if (emu_write_all(cfd, cbuf, cbuf_n) < 0)
			cbad = 1;
		cbuf_n = 0;
	}
	memcpy(cbuf + cbuf_n, p, n);
	cbuf_n += n;
}

void emu_dump_counts(const char *counts_path)
{
	cfd = open(counts_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0) {
		fprintf(stderr, "spgo-emulate: %s: %s\n", counts_path, strerror(errno));
		return;
	}
	uint64_t magic = EMU_COUNTS_MAGIC, nb = 0, ne = 0;
	for (struct tb *t = emu_all_tbs; t; t = t->next)
		if (t->count)
			nb++;
	cput(&magic, 8);
	cput(&nb, 8);
	for (struct tb *t = emu_all_tbs; t; t = t->next) {
		if (!t->count)
			continue;
		uint32_t hdr[2] = {t->n_insns, 0};
		cput(&t->start, 8);
		cput(&t->count, 8);
		cput(hdr, 8);
		cput(t->insn, 4 * (size_t)t->n_insns);
		if (t->n_insns & 1)
			cput(hdr + 1, 4);
		for (int i = 0; i < 2; i++)
			ne += t->succ[i].n != 0;
	}
	ne += edges_n;
	cput(&ne, 8);
	for (struct tb *t = emu_all_tbs; t; t = t->next)
		for (int i = 0; i < 2; i++)
			if (t->succ[i].n) {
				uint64_t e[3] = {t->last, t->succ[i].to, t->succ[i].n};
				cput(e, sizeof e);
			}
	for (size_t i = 0; i < edges_cap; i++)
		if (edges[i].n) {
			uint64_t e[3] = {edges[i].from, edges[i].to, edges[i].n};
			cput(e, sizeof e);
		}
	if (emu_write_all(cfd, cbuf, cbuf_n) < 0)
		cbad = 1;
	if (close(cfd) < 0 || cbad)
		fprintf(stderr, "spgo-emulate: %s: write failed\n", counts_path);
}

/*
 * The context-sensitive counts (layout in emulate_trace.h): contexts, pairs,
 * the blocks that ran with their instructions, then (block, pair) and
 * (from, to, pair) counts, the tb caches and the tables together.
 */
void emu_dump_cscounts(const char *cscounts_path)
{
	cfd = open(cscounts_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0) {
		fprintf(stderr, "spgo-emulate: %s: %s\n", cscounts_path, strerror(errno));
		return;
	}
	cbuf_n = 0;
	cbad = 0;
	uint64_t magic = EMU_CSCOUNTS_MAGIC, n = ctxs_n;
	cput(&magic, 8);
	cput(&n, 8);
	for (uint32_t i = 0; i < ctxs_n; i++) {
		uint64_t len = ctxs[i].len;
		cput(&len, 8);
		cput(ctx_sites + ctxs[i].off, 8 * len);
	}
	n = pairs_n;
	cput(&n, 8);
	for (uint32_t i = 0; i < pairs_n; i++)
		cput(&pairs[i], 8);
	/* The blocks that ran, numbered, then their counts and edges. */
	n = 0;
	for (struct tb *t = emu_all_tbs; t; t = t->next) {
		if (t->cc_n)
			emu_smap_add(&t->cmap, 0, t->cc_pair, t->cc_n);
		t->cc_n = 0;
		if (t->cmap)
			t->dump_idx = (uint32_t)++n;
	}
	cput(&n, 8);
	for (struct tb *t = emu_all_tbs; t; t = t->next) {
		if (!t->dump_idx)
			continue;
		uint32_t hdr[2] = {t->n_insns, t->dump_idx - 1};
		cput(&t->start, 8);
		cput(hdr, 8);
		cput(t->insn, 4 * (size_t)t->n_insns);
		if (t->n_insns & 1)
			cput(hdr + 1, 4);
	}
	n = 0;
	for (struct tb *t = emu_all_tbs; t; t = t->next)
		n += t->cmap ? t->cmap->n : 0;
	cput(&n, 8);
	for (struct tb *t = emu_all_tbs; t; t = t->next)
		for (uint32_t i = 0; t->cmap && i < t->cmap->cap; i++)
			if (t->cmap->e[i].n) {
				uint32_t r[2] = {t->dump_idx - 1, (uint32_t)t->cmap->e[i].pair};
				cput(r, 8);
				cput(&t->cmap->e[i].n, 8);
			}
	n = 0;
	for (struct tb *t = emu_all_tbs; t; t = t->next)
		n += t->emap ? t->emap->n : 0;
	cput(&n, 8);
	for (struct tb *t = emu_all_tbs; t; t = t->next)
		for (uint32_t i = 0; t->emap && i < t->emap->cap; i++)
			if (t->emap->e[i].n) {
				const struct sent *e = &t->emap->e[i];
				uint64_t r[4] = {t->last, e->to, e->pair, e->n};
				cput(r, sizeof r);
			}
	if (emu_write_all(cfd, cbuf, cbuf_n) < 0)
		cbad = 1;
	cbuf_n = 0;
	if (close(cfd) < 0 || cbad)
		fprintf(stderr, "spgo-emulate: %s: write failed\n", cscounts_path);
}
