/*
 * spgo_emu.c: the QEMU user-mode TCG plugin behind `spgo emulate`.
 *
 * QEMU 7.2's plugin API (version 1) cannot read registers, so everything is
 * derived from the sequence of executed translation blocks (TBs):
 *
 *  - A TB that does not start where the previous one (on the same vCPU,
 *    i.e. guest thread) fell through was reached by a taken branch from the
 *    previous TB's last instruction.  Calls, returns and jumps always count
 *    as taken, as in hardware LBR; a block that ended without a branch (page
 *    boundary, size limit, rep iteration, syscall) never yields one.
 *  - The last instruction's class (decoded from its bytes at translation
 *    time, below) drives a shadow stack: a call pushes its return address, a
 *    return pops.  A tail call is a jump and pushes nothing, so the caller's
 *    frame is replaced exactly as a frame-pointer unwinder sees it.
 *  - Every taken branch (or every instruction) counts down a randomized
 *    sampling period; at zero (plus an optional skid in blocks) a sample
 *    takes the IP, the last 16/32 taken branches (newest first) and the
 *    shadow stack.
 *  - Ground truth: each TB counts its executions (the per-instruction
 *    counts follow), and each (last instruction, next block) pair counts as
 *    an edge.
 *  - Context-sensitive ground truth (cscounts=FILE): the same counts per
 *    calling context.  A context is the list of call sites on the shadow
 *    stack, interned to a small id: a call maps (context, call site) to
 *    the child context through a cache, a return restores the id saved when
 *    the returning frame was pushed.  Two views run side by side: the
 *    frame-pointer view (a tail call replaces the caller's frame, as above)
 *    and the true view, where a jump to a function entry of the main binary
 *    (entries=FILE, from spgo) pushes the jump as a call site that the next
 *    return pops with its caller.  A (frame-pointer, true) pair of ids is
 *    interned once more, so blocks and edges count under one 32-bit key.
 *    Contexts stay bounded: adjacent repeated call-site sequences are
 *    removed as they form (llvm-profgen's compressRecursionContext, done
 *    incrementally), and only the innermost csdepth call sites are kept.
 *
 * The instruction set is a table (isa.h: isa_x86.c, isa_aarch64.c), chosen
 * by QEMU's target: the classes of the last instructions, the largest
 * branch stack, whether system calls leave branch records (BRBE: to the
 * kernel with target 0, back with source 0) and the system call numbers.
 *
 * One callback per executed TB does all this; nothing is done per
 * instruction.  The plugin writes two files (see src/emulate/trace.h);
 * `spgo emulate` turns them into perf.data and the ground-truth file.
 *
 * Arguments (plugin args, key=value): trace=FILE (required), counts=FILE,
 * cscounts=FILE, entries=FILE, csdepth=N, event=branches|instructions,
 * period=N, lbr=N (1..64; at most the ISA's), wrongpath=N, skid=N (blocks), maxstack=N, truncate=PERCENT,
 * seed=N.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <qemu/qemu-plugin.h>

#include "isa.h"
#include "trace.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define LBR_MAX 64 /* ring size; a power of two */
#define STACK_MAX 1024
#define MAX_VCPUS 4096

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct smap;

/* One translated block. */
struct tb {
	/* The first 64 bytes (one cache line) are all an execution touches. */
	uint64_t start; /* address of the first instruction */
	uint64_t last;  /* address of the last instruction */
	uint64_t count; /* executions (kept only for ground truth) */
	struct {
		uint64_t to, n;
	} succ[2]; /* edge cache: the first two successors */
	uint32_t n_insns;
	uint8_t cls;       /* enum emu_cls of the last instruction */
	uint8_t last_size; /* so the fall-through address is last + last_size */
	struct tb *next;   /* all blocks, for the dump at exit */
	/* Context-sensitive counts (cscounts=): the pair this block's call or
	 * tail call last led from and to (+ 1; 0 none). */
	uint32_t step_from, step_to;
	uint32_t cc_pair; /* the block's current (pair, count) slot */
	uint64_t cc_n;
	struct smap *cmap, *emap; /* (pair) -> count; (pair, to) -> count */
	uint32_t dump_idx; /* index in the dump's block table, + 1 */
	uint64_t taken_to; /* a conditional last instruction: where it went when taken */
	uint8_t entry;     /* starts at a function entry of the main binary */
	uint32_t insn[]; /* offset << 16 | size << 8 | cls */
};

struct lbr_entry {
	uint64_t from, to, cls; /* cls: enum emu_cls of the record */
};

struct vcpu {
	struct tb *prev;
	int64_t countdown;    /* events to the next sample */
	uint64_t cur_period;  /* the period counting down now */
	int32_t skid_left;    /* blocks to wait once the counter overflowed; -1 none */
	uint32_t lbr_pos;     /* next slot in lbr[] */
	uint32_t lbr_n;       /* valid entries (<= LBR_MAX) */
	uint32_t tid;
	uint64_t depth;       /* shadow stack depth (may exceed STACK_MAX) */
	uint64_t rng;
	int64_t sys_num;      /* syscall in flight */
	uint64_t sys_a[6];
	struct lbr_entry lbr[LBR_MAX];
	uint64_t stack[STACK_MAX]; /* ring: the innermost STACK_MAX frames */
	/* Contexts (cscounts=): the current (fp, true) pair id and, per
	 * shadow-stack depth, the pair id to restore when that frame returns. */
	uint32_t pair;
	uint32_t *saved;
	uint64_t saved_cap;
};

/* Settings. */
static const struct emu_isa *isa;
static int ev_insns;          /* 0: count taken branches; 1: instructions */
static uint64_t period = 20011;
static uint32_t lbr_size = 32;
static uint32_t skid;
static uint32_t max_stack = 127;
static uint32_t truncate_pct;
static uint64_t seed = 1;
static uint32_t wrong_path; /* 1 in N fall-throughs of a conditional get a wrong-path record */
static int want_counts;

static int want_cs;            /* context-sensitive counts */
static uint32_t cs_depth = 126; /* call sites kept per context */

static char *trace_path, *counts_path, *cscounts_path, *entries_path;
static int trace_fd = -1;
static pid_t our_pid;
static int disabled; /* in a forked child: write nothing */
static int mt;       /* more than one thread seen: atomic counts, locked edges */
static int started;

static struct vcpu *vcpus[MAX_VCPUS];
static struct tb *all_tbs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- output buffer ---------------------------------------------------------- */

static uint8_t *obuf;
static size_t obuf_n, obuf_cap = 1 << 20;

static void out_flush(void)
{
	size_t off = 0;
	while (off < obuf_n) {
		ssize_t k = write(trace_fd, obuf + off, obuf_n - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fprintf(stderr, "spgo-emulate: %s: write failed: %s\n", trace_path, strerror(errno));
			_exit(70);
		}
		off += (size_t)k;
	}
	obuf_n = 0;
}

/* Append a record (size rounded up to 8, zero padding); caller holds lock. */
static void out_rec(const void *rec, size_t size)
{
	size_t pad = (size + 7) & ~(size_t)7;
	if (obuf_n + pad > obuf_cap)
		out_flush();
	memcpy(obuf + obuf_n, rec, size);
	memset(obuf + obuf_n + size, 0, pad - size);
	((struct emu_rec *)(obuf + obuf_n))->size = (uint32_t)pad;
	obuf_n += pad;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void rec_head(struct emu_rec *h, uint32_t type, uint32_t tid)
{
	h->type = type;
	h->time = now_ns();
	h->pid = (uint32_t)our_pid;
	h->tid = tid;
}

/* ---- random periods ------------------------------------------------------------ */

static uint64_t rnd(struct vcpu *v)
{
	/* xorshift64* */
	uint64_t x = v->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	v->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A period drawn uniformly from [period/2, period*3/2] (the Taming paper's
 * remedy against sampling in step with the program's loops). */
static void new_period(struct vcpu *v)
{
	uint64_t p = period;
	if (p > 1)
		p = p - p / 2 + rnd(v) % (p + 1);
	v->cur_period = p;
	v->countdown += (int64_t)p;
}

/* ---- per-thread state -------------------------------------------------------------- */

__attribute__((noinline, cold)) static struct vcpu *vcpu_new(unsigned int vi)
{
	struct vcpu *v = vcpus[vi];
	if (!v) {
		v = calloc(1, sizeof *v);
		if (!v) {
			fprintf(stderr, "spgo-emulate: out of memory\n");
			_exit(70);
		}
		vcpus[vi] = v;
	} else {
		uint32_t *saved = v->saved; /* keep the context stack's memory */
		uint64_t cap = v->saved_cap;
		memset(v, 0, sizeof *v);
		v->saved = saved;
		v->saved_cap = cap;
	}
	v->rng = (seed ^ (0x9E3779B97F4A7C15ULL * (vi + 1))) | 1;
	v->skid_left = -1;
	v->sys_num = -1;
	new_period(v);
	return v;
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vi)
{
	if (vi < MAX_VCPUS)
		vcpu_new(vi);
}

/* The first block a thread executes: name the thread (and, for the first
 * thread, the program) in the trace. */
__attribute__((noinline, cold)) static void thread_start(struct vcpu *v, struct tb *tb)
{
	v->tid = (uint32_t)syscall(SYS_gettid);
	if (disabled)
		return;
	pthread_mutex_lock(&lock);
	if (!started) {
		started = 1;
		const char *path = qemu_plugin_path_to_binary();
		size_t len = strlen(path) + 1;
		struct emu_start *s = calloc(1, sizeof *s + len);
		rec_head(&s->h, EMU_REC_START, v->tid);
		s->first_pc = tb->start;
		s->e_machine = isa->e_machine;
		s->start_code = qemu_plugin_start_code();
		s->end_code = qemu_plugin_end_code();
		s->entry_code = qemu_plugin_entry_code();
		memcpy(s->path, path, len);
		out_rec(s, sizeof *s + len);
		free(s);
	} else {
		struct emu_thread t = {0};
		rec_head(&t.h, EMU_REC_THREAD, v->tid);
		t.ppid = (uint32_t)getppid();
		t.ptid = (uint32_t)our_pid;
		out_rec(&t, sizeof t);
		mt = 1;
	}
	pthread_mutex_unlock(&lock);
}

/* ---- samples ----------------------------------------------------------------------- */

static void take_sample(struct vcpu *v, uint64_t ip)
{
	if (disabled)
		return;
	uint64_t buf[sizeof(struct emu_sample) / 8 + STACK_MAX + 3 * LBR_MAX];
	struct emu_sample *s = (struct emu_sample *)buf;
	rec_head(&s->h, EMU_REC_SAMPLE, v->tid);
	s->ip = ip;
	s->period = v->cur_period;

	/* Stack: the innermost frames the ring still holds, capped. */
	uint64_t n = v->depth < STACK_MAX ? v->depth : STACK_MAX;
	uint64_t cap = max_stack ? max_stack - 1 : 0; /* the IP is one entry */
	if (n > cap)
		n = cap;
	if (truncate_pct && rnd(v) % 100 < truncate_pct && n)
		n = rnd(v) % n; /* an unwinder that gave up early */
	for (uint64_t i = 0; i < n; i++)
		s->data[i] = v->stack[(v->depth - 1 - i) % STACK_MAX];
	s->n_stack = (uint32_t)n;

	uint32_t nb = v->lbr_n < lbr_size ? v->lbr_n : lbr_size;
	for (uint32_t i = 0; i < nb; i++) {
		struct lbr_entry *e = &v->lbr[(v->lbr_pos - 1 - i) & (LBR_MAX - 1)];
		s->data[n + 3 * i] = e->from;
		s->data[n + 3 * i + 1] = e->to;
		s->data[n + 3 * i + 2] = e->cls;
	}
	s->n_br = nb;
	if (mt)
		pthread_mutex_lock(&lock);
	out_rec(s, sizeof *s + 8 * (n + 3 * (uint64_t)nb));
	if (mt)
		pthread_mutex_unlock(&lock);
}

/* ---- ground-truth edges --------------------------------------------------------------- */

struct edge {
	uint64_t from, to, n;
};
static struct edge *edges;
static size_t edges_cap, edges_n;

__attribute__((noinline)) static void edge_slow(uint64_t from, uint64_t to)
{
	if (edges_n * 2 >= edges_cap) {
		size_t cap = edges_cap ? edges_cap * 2 : 4096;
		struct edge *e = calloc(cap, sizeof *e);
		if (!e) {
			fprintf(stderr, "spgo-emulate: out of memory\n");
			_exit(70);
		}
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

static inline void edge_add(struct tb *p, uint64_t to)
{
	if (p->succ[0].to == to && p->succ[0].n)
		p->succ[0].n++;
	else if (p->succ[1].to == to && p->succ[1].n)
		p->succ[1].n++;
	else if (!p->succ[0].n)
		p->succ[0].to = to, p->succ[0].n = 1;
	else if (!p->succ[1].n)
		p->succ[1].to = to, p->succ[1].n = 1;
	else
		edge_slow(p->last, to);
}


/* ---- calling contexts (cscounts=) ------------------------------------------------------------ */

/* A small open-addressing table of three-word keys; an entry is in use when
 * v != 0, so callers store counts (>= 1) or ids + 1.  Caller holds lock
 * when mt. */
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

static void *xcalloc_or_die(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p) {
		fprintf(stderr, "spgo-emulate: out of memory\n");
		_exit(70);
	}
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
			if (!ctxs || !ctx_sites) {
				fprintf(stderr, "spgo-emulate: out of memory\n");
				_exit(70);
			}
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
 * Then only the innermost cs_depth sites are kept.
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
	uint32_t from = n > cs_depth ? n - cs_depth : 0;
	return ctx_intern(buf + from, n - from);
}

static uint32_t pair_of(uint32_t fp, uint32_t tv)
{
	uint64_t *v = ktab_get(&pair_index, fp, tv, 0);
	if (!*v) {
		if (pairs_n == pairs_cap) {
			pairs_cap = pairs_cap ? pairs_cap * 2 : 1024;
			pairs = realloc(pairs, pairs_cap * sizeof *pairs);
			if (!pairs) {
				fprintf(stderr, "spgo-emulate: out of memory\n");
				_exit(70);
			}
		}
		pairs[pairs_n] = (struct pair){fp, tv};
		*v = ++pairs_n;
	}
	return (uint32_t)(*v - 1);
}

/* The pair after a call (tail = 0: both views push the site) or a tail call
 * (tail = 1: only the true view does). */
__attribute__((noinline)) static uint32_t pair_step(uint32_t pair, uint64_t site, int tail)
{
	if (mt)
		pthread_mutex_lock(&lock);
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
	if (mt)
		pthread_mutex_unlock(&lock);
	return r;
}

/* pair_step through the cache in the block p whose last instruction is the
 * call or jump (one site, one kind per block). */
static inline uint32_t pair_step_at(struct tb *p, uint32_t pair, int tail)
{
	if (p->step_from == pair + 1 && p->step_to)
		return p->step_to - 1;
	uint32_t r = pair_step(pair, p->last, tail);
	if (!mt)
		p->step_from = pair + 1, p->step_to = r + 1;
	return r;
}

/* A call at site: remember the pair to restore when this frame returns. */
static void cs_call(struct vcpu *v, struct tb *p)
{
	if (UNLIKELY(v->depth >= v->saved_cap)) {
		uint64_t cap = v->saved_cap ? v->saved_cap * 2 : 1024;
		while (cap <= v->depth)
			cap *= 2;
		uint32_t *s = realloc(v->saved, cap * sizeof *s);
		if (!s) {
			fprintf(stderr, "spgo-emulate: out of memory\n");
			_exit(70);
		}
		v->saved = s;
		v->saved_cap = cap;
	}
	v->saved[v->depth] = v->pair;
	v->pair = pair_step_at(p, v->pair, 0);
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

__attribute__((noinline)) static void smap_add(struct smap **mp, uint64_t to, uint32_t pair, uint64_t n)
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

/* Count an execution of tb under pair, and the edge from p (run under
 * p_pair) to tb; caller holds lock when mt. */
static inline void cs_count(struct tb *p, uint32_t p_pair, struct tb *tb, uint32_t pair)
{
	if (LIKELY(tb->cc_pair == pair && tb->cc_n)) {
		tb->cc_n++;
	} else {
		if (tb->cc_n)
			smap_add(&tb->cmap, 0, tb->cc_pair, tb->cc_n);
		tb->cc_pair = pair, tb->cc_n = 1;
	}
	if (!p || (tb->start == p->last + p->last_size && p->cls == EMU_CLS_COND))
		return;
	smap_add(&p->emap, tb->start, p_pair, 1);
}

/* Function entries of the main binary (entries=FILE from spgo: u64 lowest
 * executable p_vaddr, u64 n, n sorted entry p_vaddrs): where a jump is a
 * tail call in the true view. */
static uint64_t *entries, n_entries, entries_lowest;
static int64_t entries_bias;
static int entries_biased;

static int load_entries(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t hdr[2];
	if (!f || fread(hdr, 8, 2, f) != 2 || hdr[1] > (1u << 28)) {
		if (f)
			fclose(f);
		return -1;
	}
	entries_lowest = hdr[0];
	n_entries = hdr[1];
	entries = malloc((n_entries + 1) * 8);
	int rc = entries && fread(entries, 8, n_entries, f) == n_entries ? 0 : -1;
	fclose(f);
	return rc;
}

static int is_entry(uint64_t addr)
{
	if (!n_entries)
		return 0;
	if (!entries_biased) {
		/* QEMU's start_code is the lowest executable segment's runtime
		 * address (the image is loaded before any block is translated). */
		entries_bias = (int64_t)(qemu_plugin_start_code() - entries_lowest);
		entries_biased = 1;
	}
	uint64_t va = addr - (uint64_t)entries_bias;
	size_t lo = 0, hi = n_entries;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (entries[mid] < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n_entries && entries[lo] == va;
}

/* ---- the per-block callback -------------------------------------------------------------- */

static inline void lbr_push(struct vcpu *v, uint64_t from, uint64_t to, unsigned cls)
{
	struct lbr_entry *e = &v->lbr[v->lbr_pos & (LBR_MAX - 1)];
	e->from = from;
	e->to = to;
	e->cls = cls;
	v->lbr_pos++;
	if (v->lbr_n < LBR_MAX)
		v->lbr_n++;
}

/* A system call where the hardware records it (isa.h): the branch to the
 * kernel, its target not recorded, and the return, its source not. */
__attribute__((noinline)) static void syscall_records(struct vcpu *v, struct tb *p, struct tb *tb)
{
	lbr_push(v, p->last, 0, EMU_CLS_SYSCALL);
	lbr_push(v, 0, tb->start, EMU_CLS_ERET);
}

/*
 * A conditional branch fell through: with wrongpath=N, one time in N it
 * leaves the record of a mispredicted path, as AMD's LbrExtV2 keeps them
 * (valid = 0, spec = 1): predicted taken, it went to its target on the
 * wrong path before the fall-through retired.  Only branches seen taken
 * before have a known target.
 */
__attribute__((noinline)) static void maybe_wrong_path(struct vcpu *v, struct tb *p)
{
	if (p->taken_to && rnd(v) % wrong_path == 0)
		lbr_push(v, p->last, p->taken_to, EMU_CLS_WRONG_PATH);
}

static void taken_branch(struct vcpu *v, struct tb *p, struct tb *tb)
{
	lbr_push(v, p->last, tb->start, p->cls);
	if (p->cls == EMU_CLS_COND)
		p->taken_to = tb->start;
	if (p->cls == EMU_CLS_CALL || p->cls == EMU_CLS_ICALL) {
		if (want_cs)
			cs_call(v, p);
		v->stack[v->depth % STACK_MAX] = p->last + p->last_size;
		v->depth++;
	} else if (p->cls == EMU_CLS_RET && v->depth) {
		/* Pop to the matching frame if it is near (longjmp and
		 * exceptions skip frames); otherwise pop one. */
		uint64_t lim = v->depth < 8 ? v->depth : 8;
		uint64_t k = 0;
		while (k < lim && v->stack[(v->depth - 1 - k) % STACK_MAX] != tb->start)
			k++;
		v->depth -= k < lim ? k + 1 : 1;
		if (want_cs)
			v->pair = v->saved[v->depth];
	} else if (want_cs && tb->entry &&
		   (p->cls == EMU_CLS_JUMP || p->cls == EMU_CLS_IJUMP || p->cls == EMU_CLS_COND)) {
		v->pair = pair_step_at(p, v->pair, 1); /* a tail call */
	}
	if (!ev_insns)
		v->countdown--;
}

/* The counter overflowed in this block, or a skid is running out. */
__attribute__((noinline, cold)) static void overflow(struct vcpu *v, struct tb *tb)
{
	uint64_t ip = tb->start;
	if (v->skid_left < 0) {
		if (ev_insns) {
			/* The overflowing instruction: countdown <= 0 events ago. */
			int64_t k = (int64_t)tb->n_insns - 1 + v->countdown;
			if (k < 0)
				k = 0;
			ip = tb->start + (tb->insn[k] >> 16);
		}
		if (skid) {
			v->skid_left = (int32_t)(rnd(v) % (skid + 1));
			if (v->skid_left > 0) {
				v->skid_left--;
				new_period(v);
				return;
			}
		}
	} else if (v->skid_left-- > 0) {
		return;
	}
	v->skid_left = -1;
	take_sample(v, ip);
	if (v->countdown <= 0)
		new_period(v);
}

/*
 * QEMU 7.2 stops translating an instruction whose bytes cross into the next
 * page when it is not the first of its block: the block ends before it and
 * the instruction starts a block of its own.  But the plugin has already
 * been shown the partial instruction (the bytes decoded so far) as the last
 * of the first block, so it would count twice per execution, and a partial
 * call opcode would push a frame.  Seen when the next block starts at that
 * very address with a longer first instruction (a rep iteration starts
 * there with the same one): from then on the block ends one instruction
 * earlier and falls through.  Its executions so far were followed by this
 * block each time, so nothing counted for it before is wrong but its
 * count, which now covers one instruction less.
 */
__attribute__((noinline, cold)) static void drop_partial_insn(struct tb *p)
{
	if (mt)
		pthread_mutex_lock(&lock);
	if (p->n_insns > 1) {
		uint32_t w = p->insn[--p->n_insns - 1];
		p->last = p->start + (w >> 16);
		p->last_size = (uint8_t)(w >> 8);
		p->cls = (uint8_t)w;
	}
	if (mt)
		pthread_mutex_unlock(&lock);
}

static void tb_exec(unsigned int vi, void *udata)
{
	struct tb *tb = udata;
	if (UNLIKELY(vi >= MAX_VCPUS))
		return;
	struct vcpu *v = vcpus[vi];
	if (UNLIKELY(!v))
		v = vcpu_new(vi);
	if (want_counts) {
		if (LIKELY(!mt))
			tb->count++;
		else
			__atomic_fetch_add(&tb->count, 1, __ATOMIC_RELAXED);
	}

	struct tb *p = v->prev;
	uint32_t p_pair = v->pair; /* the context p ran in */
	v->prev = tb;
	if (UNLIKELY(!p)) {
		thread_start(v, tb);
	} else {
		if (UNLIKELY(tb->start == p->last && p->n_insns > 1 &&
			     (p->insn[p->n_insns - 1] >> 8 & 0xff) != (tb->insn[0] >> 8 & 0xff)))
			drop_partial_insn(p);
		if ((tb->start != p->last + p->last_size && p->cls != EMU_CLS_OTHER &&
		     p->cls != EMU_CLS_SYSCALL) ||
		    p->cls == EMU_CLS_CALL || p->cls == EMU_CLS_ICALL)
			taken_branch(v, p, tb);
		else if (UNLIKELY(p->cls == EMU_CLS_SYSCALL) && isa->syscall_records)
			syscall_records(v, p, tb);
		else if (UNLIKELY(wrong_path) && p->cls == EMU_CLS_COND)
			maybe_wrong_path(v, p);
		if (want_counts) {
			if (LIKELY(!mt)) {
				edge_add(p, tb->start);
			} else {
				pthread_mutex_lock(&lock);
				edge_add(p, tb->start);
				pthread_mutex_unlock(&lock);
			}
		}
	}
	if (want_cs) {
		if (LIKELY(!mt)) {
			cs_count(p, p_pair, tb, v->pair);
		} else {
			pthread_mutex_lock(&lock);
			cs_count(p, p_pair, tb, v->pair);
			pthread_mutex_unlock(&lock);
		}
	}

	if (ev_insns)
		v->countdown -= tb->n_insns;
	if (UNLIKELY(v->countdown <= 0 || v->skid_left >= 0))
		overflow(v, tb);
}

/* ---- translation ------------------------------------------------------------------------- */

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *qtb)
{
	size_t n = qemu_plugin_tb_n_insns(qtb);
	if (!n)
		return;
	size_t size = (sizeof(struct tb) + n * sizeof(uint32_t) + 63) & ~(size_t)63;
	struct tb *tb = aligned_alloc(64, size);
	if (tb)
		memset(tb, 0, size);
	if (!tb) {
		fprintf(stderr, "spgo-emulate: out of memory\n");
		_exit(70);
	}
	tb->start = qemu_plugin_tb_vaddr(qtb);
	tb->n_insns = (uint32_t)n;
	if (want_cs)
		tb->entry = (uint8_t)is_entry(tb->start);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(qtb, i);
		uint64_t a = qemu_plugin_insn_vaddr(in);
		size_t sz = qemu_plugin_insn_size(in);
		uint8_t cls = isa->classify(qemu_plugin_insn_data(in), sz);
		tb->insn[i] = (uint32_t)((a - tb->start) << 16 | (sz & 0xff) << 8 | cls);
		if (i == n - 1) {
			tb->last = a;
			tb->last_size = (uint8_t)sz;
			tb->cls = cls;
		}
	}
	pthread_mutex_lock(&lock);
	tb->next = all_tbs;
	all_tbs = tb;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(qtb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, tb);
}

/* ---- syscalls: mappings and forks ------------------------------------------------------------ */

static void sys_enter(qemu_plugin_id_t id, unsigned int vi, int64_t num, uint64_t a1, uint64_t a2,
		      uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	if (vi >= MAX_VCPUS || !vcpus[vi])
		return;
	struct vcpu *v = vcpus[vi];
	v->sys_num = num;
	v->sys_a[0] = a1, v->sys_a[1] = a2, v->sys_a[2] = a3;
	v->sys_a[3] = a4, v->sys_a[4] = a5, v->sys_a[5] = a6;
	if (disabled)
		return;
	if (num == isa->sys_execve || num == isa->sys_execveat) {
		/* qemu-user runs the new program natively: nothing of it is
		 * seen, and this process image ends if the call succeeds, so
		 * the trace is written out now. */
		struct emu_child c = {.exec = 1};
		rec_head(&c.h, EMU_REC_CHILD, v->tid ? v->tid : (uint32_t)syscall(SYS_gettid));
		pthread_mutex_lock(&lock);
		out_rec(&c, sizeof c);
		out_flush();
		pthread_mutex_unlock(&lock);
	} else if (num == isa->sys_exit_group) {
		struct emu_exit e = {.code = (int32_t)a1};
		rec_head(&e.h, EMU_REC_EXIT, v->tid ? v->tid : (uint32_t)syscall(SYS_gettid));
		pthread_mutex_lock(&lock);
		out_rec(&e, sizeof e);
		pthread_mutex_unlock(&lock);
	}
}

static void sys_exit(qemu_plugin_id_t id, unsigned int vi, int64_t num, int64_t ret)
{
	if (vi >= MAX_VCPUS || !vcpus[vi])
		return;
	struct vcpu *v = vcpus[vi];
	if (v->sys_num != num)
		return;
	v->sys_num = -1;
	if (disabled)
		return;
	if ((num == isa->sys_clone && !(v->sys_a[0] & CLONE_VM)) || num == isa->sys_fork ||
	    num == isa->sys_vfork) {
		/* The child of a fork: its samples belong to another process,
		 * which this plugin does not follow. */
		if (ret == 0 && getpid() != our_pid) {
			disabled = 1;
			obuf_n = 0;
		} else if (ret > 0) {
			struct emu_child c = {.exec = 0};
			rec_head(&c.h, EMU_REC_CHILD, v->tid ? v->tid : (uint32_t)syscall(SYS_gettid));
			pthread_mutex_lock(&lock);
			out_rec(&c, sizeof c);
			pthread_mutex_unlock(&lock);
		}
		return;
	}
	if (num != isa->sys_mmap || (ret < 0 && ret > -4096))
		return;
	uint64_t prot = v->sys_a[2], flags = v->sys_a[3];
	int fd = (int)v->sys_a[4];
	if (!(prot & PROT_EXEC) || (flags & MAP_ANONYMOUS) || fd < 0)
		return;
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, path, sizeof path - 1);
	if (len <= 0)
		return;
	path[len] = 0;
	struct stat st;
	memset(&st, 0, sizeof st);
	fstat(fd, &st);
	struct emu_mmap *m = calloc(1, sizeof *m + (size_t)len + 1);
	rec_head(&m->h, EMU_REC_MMAP, v->tid ? v->tid : (uint32_t)syscall(SYS_gettid));
	m->addr = (uint64_t)ret;
	m->len = v->sys_a[1];
	m->pgoff = v->sys_a[5];
	m->prot = (uint32_t)prot;
	m->flags = (uint32_t)flags;
	m->maj = major(st.st_dev);
	m->min = minor(st.st_dev);
	m->ino = st.st_ino;
	memcpy(m->path, path, (size_t)len + 1);
	pthread_mutex_lock(&lock);
	out_rec(m, sizeof *m + (size_t)len + 1);
	pthread_mutex_unlock(&lock);
	free(m);
}

/* ---- exit: flush the trace, dump the counts ----------------------------------------------------- */

static int write_all(int fd, const void *p, size_t n)
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
		if (write_all(cfd, cbuf, cbuf_n) < 0)
			cbad = 1;
		cbuf_n = 0;
	}
	memcpy(cbuf + cbuf_n, p, n);
	cbuf_n += n;
}

static void dump_counts(void)
{
	cfd = open(counts_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (cfd < 0) {
		fprintf(stderr, "spgo-emulate: %s: %s\n", counts_path, strerror(errno));
		return;
	}
	uint64_t magic = EMU_COUNTS_MAGIC, nb = 0, ne = 0;
	for (struct tb *t = all_tbs; t; t = t->next)
		if (t->count)
			nb++;
	cput(&magic, 8);
	cput(&nb, 8);
	for (struct tb *t = all_tbs; t; t = t->next) {
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
	for (struct tb *t = all_tbs; t; t = t->next)
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
	if (write_all(cfd, cbuf, cbuf_n) < 0)
		cbad = 1;
	if (close(cfd) < 0 || cbad)
		fprintf(stderr, "spgo-emulate: %s: write failed\n", counts_path);
}

/*
 * The context-sensitive counts (layout in emulate_trace.h): contexts, pairs,
 * the blocks that ran with their instructions, then (block, pair) and
 * (from, to, pair) counts, the tb caches and the tables together.
 */
static void dump_cscounts(void)
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
	for (struct tb *t = all_tbs; t; t = t->next) {
		if (t->cc_n)
			smap_add(&t->cmap, 0, t->cc_pair, t->cc_n);
		t->cc_n = 0;
		if (t->cmap)
			t->dump_idx = (uint32_t)++n;
	}
	cput(&n, 8);
	for (struct tb *t = all_tbs; t; t = t->next) {
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
	for (struct tb *t = all_tbs; t; t = t->next)
		n += t->cmap ? t->cmap->n : 0;
	cput(&n, 8);
	for (struct tb *t = all_tbs; t; t = t->next)
		for (uint32_t i = 0; t->cmap && i < t->cmap->cap; i++)
			if (t->cmap->e[i].n) {
				uint32_t r[2] = {t->dump_idx - 1, (uint32_t)t->cmap->e[i].pair};
				cput(r, 8);
				cput(&t->cmap->e[i].n, 8);
			}
	n = 0;
	for (struct tb *t = all_tbs; t; t = t->next)
		n += t->emap ? t->emap->n : 0;
	cput(&n, 8);
	for (struct tb *t = all_tbs; t; t = t->next)
		for (uint32_t i = 0; t->emap && i < t->emap->cap; i++)
			if (t->emap->e[i].n) {
				const struct sent *e = &t->emap->e[i];
				uint64_t r[4] = {t->last, e->to, e->pair, e->n};
				cput(r, sizeof r);
			}
	if (write_all(cfd, cbuf, cbuf_n) < 0)
		cbad = 1;
	cbuf_n = 0;
	if (close(cfd) < 0 || cbad)
		fprintf(stderr, "spgo-emulate: %s: write failed\n", cscounts_path);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	if (disabled || getpid() != our_pid)
		return;
	pthread_mutex_lock(&lock);
	out_flush();
	close(trace_fd);
	if (want_counts)
		dump_counts();
	if (want_cs)
		dump_cscounts();
	pthread_mutex_unlock(&lock);
}

/* ---- installation ------------------------------------------------------------------------------ */

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	static const struct emu_isa *const isas[] = {&emu_isa_x86_64, &emu_isa_aarch64};
	for (size_t i = 0; i < sizeof isas / sizeof *isas; i++)
		if (strcmp(info->target_name, isas[i]->target) == 0)
			isa = isas[i];
	if (info->system_emulation || !isa) {
		fprintf(stderr, "spgo-emulate: %s%s: only qemu-x86_64 and qemu-aarch64 user mode are "
				"supported\n", info->system_emulation ? "system emulation of " : "",
			info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "spgo-emulate: bad argument '%s'\n", argv[i]);
			return -1;
		}
		size_t kl = (size_t)(eq - argv[i]);
		const char *val = eq + 1;
		uint64_t u = 0;
#define KEY(k) (kl == strlen(k) && strncmp(argv[i], k, kl) == 0)
		if (KEY("trace")) {
			trace_path = strdup(val);
		} else if (KEY("counts")) {
			counts_path = strdup(val);
			want_counts = 1;
		} else if (KEY("cscounts")) {
			cscounts_path = strdup(val);
			want_cs = 1;
		} else if (KEY("entries")) {
			entries_path = strdup(val);
		} else if (KEY("event")) {
			if (strcmp(val, "instructions") == 0)
				ev_insns = 1;
			else if (strcmp(val, "branches") == 0)
				ev_insns = 0;
			else
				goto bad;
		} else if (parse_u64(val, &u) < 0) {
			goto bad;
		} else if (KEY("period") && u > 0) {
			period = u;
		} else if (KEY("lbr") && u >= 1 && u <= isa->max_branches) {
			lbr_size = (uint32_t)u;
		} else if (KEY("skid") && u < 1000000) {
			skid = (uint32_t)u;
		} else if (KEY("maxstack") && u >= 1 && u <= STACK_MAX) {
			max_stack = (uint32_t)u;
		} else if (KEY("truncate") && u <= 100) {
			truncate_pct = (uint32_t)u;
		} else if (KEY("wrongpath") && u < (1u << 30)) {
			wrong_path = (uint32_t)u;
		} else if (KEY("seed")) {
			seed = u;
		} else if (KEY("csdepth") && u >= 1 && u <= STACK_MAX) {
			cs_depth = (uint32_t)u;
		} else {
			goto bad;
		}
		continue;
	bad:
		fprintf(stderr, "spgo-emulate: bad argument '%s'\n", argv[i]);
		return -1;
#undef KEY
	}
	if (!trace_path) {
		fprintf(stderr, "spgo-emulate: the trace=FILE argument is required\n");
		return -1;
	}
	trace_fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (trace_fd < 0) {
		fprintf(stderr, "spgo-emulate: %s: %s\n", trace_path, strerror(errno));
		return -1;
	}
	obuf = malloc(obuf_cap);
	if (!obuf)
		return -1;
	uint64_t magic = EMU_TRACE_MAGIC;
	if (write_all(trace_fd, &magic, 8) < 0)
		return -1;
	if (entries_path && load_entries(entries_path) < 0) {
		fprintf(stderr, "spgo-emulate: %s: cannot read the function entries\n", entries_path);
		return -1;
	}
	if (want_cs) { /* context 0 is the empty one, pair 0 is (0, 0) */
		ctx_intern(NULL, 0);
		pair_of(0, 0);
	}
	our_pid = getpid();

	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, sys_enter);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, sys_exit);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
