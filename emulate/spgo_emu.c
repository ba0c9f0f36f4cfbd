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
 * instruction.  The plugin writes the trace and the counts files (see
 * src/emulate/trace.h); `spgo emulate` turns them into perf.data and the
 * ground-truth file.  This file samples; emu_truth.c holds the tables of
 * the ground truth behind their fast paths here, and writes the counts
 * (emu.h is what the two share).
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

#include "emu.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

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
uint32_t emu_cs_depth = 126; /* call sites kept per context */

static char *trace_path, *counts_path, *cscounts_path, *entries_path;
static int trace_fd = -1;
static pid_t our_pid;
static int disabled; /* in a forked child: write nothing */
int emu_mt;       /* more than one thread seen: atomic counts, locked edges */
static int started;

static struct vcpu *vcpus[MAX_VCPUS];
struct tb *emu_all_tbs;
pthread_mutex_t emu_lock = PTHREAD_MUTEX_INITIALIZER;

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

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Append a record (size rounded up to 8, zero padding); caller holds lock.
 * Its time is taken here, under the lock, so that the trace's times never
 * go back (the perf.data's rounds rely on it: convert.c). */
static void out_rec(const void *rec, size_t size)
{
	size_t pad = (size + 7) & ~(size_t)7;
	if (obuf_n + pad > obuf_cap)
		out_flush();
	memcpy(obuf + obuf_n, rec, size);
	memset(obuf + obuf_n + size, 0, pad - size);
	((struct emu_rec *)(obuf + obuf_n))->size = (uint32_t)pad;
	((struct emu_rec *)(obuf + obuf_n))->time = now_ns();
	obuf_n += pad;
}

static void rec_head(struct emu_rec *h, uint32_t type, uint32_t tid)
{
	h->type = type;
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
		if (!v)
			emu_oom();
		vcpus[vi] = v;
	} else {
		uint32_t *saved = v->saved; /* keep the context stack's memory */
		uint64_t cap = v->saved_cap;
		memset(v, 0, sizeof *v);
		v->saved = saved;
		v->saved_cap = cap;
	}
	/* xorshift's state must not be 0: the low bit is set.  That once made
	 * seeds 2k and 2k + 1 draw the same periods, so an even seed now also
	 * flips high bits (odd seeds, the default 1 among them, keep theirs). */
	v->rng = (seed ^ (0x9E3779B97F4A7C15ULL * (vi + 1))) | 1;
	if (!(seed & 1))
		v->rng ^= 0xD1B54A32D192ED02ULL;
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
	pthread_mutex_lock(&emu_lock);
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
		emu_mt = 1;
	}
	pthread_mutex_unlock(&emu_lock);
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
	if (emu_mt)
		pthread_mutex_lock(&emu_lock);
	out_rec(s, sizeof *s + 8 * (n + 3 * (uint64_t)nb));
	if (emu_mt)
		pthread_mutex_unlock(&emu_lock);
}

/* ---- ground truth: the fast paths (the rest in emu_truth.c) ------------------------------ */

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
		emu_edge_slow(p->last, to);
}

/* pair_step through the cache in the block p whose last instruction is the
 * call or jump (one site, one kind per block). */
static inline uint32_t pair_step_at(struct tb *p, uint32_t pair, int tail)
{
	if (p->step_from == pair + 1 && p->step_to)
		return p->step_to - 1;
	uint32_t r = emu_pair_step(pair, p->last, tail);
	if (!emu_mt)
		p->step_from = pair + 1, p->step_to = r + 1;
	return r;
}

/* A call at site: remember the pair to restore when this frame returns. */
static inline void cs_call(struct vcpu *v, struct tb *p)
{
	if (UNLIKELY(v->depth >= v->saved_cap)) {
		uint64_t cap = v->saved_cap ? v->saved_cap * 2 : 1024;
		while (cap <= v->depth)
			cap *= 2;
		uint32_t *s = realloc(v->saved, cap * sizeof *s);
		if (!s)
			emu_oom();
		v->saved = s;
		v->saved_cap = cap;
	}
	v->saved[v->depth] = v->pair;
	v->pair = pair_step_at(p, v->pair, 0);
}

/* Count an execution of tb under pair, and the edge from p (run under
 * p_pair) to tb; caller holds lock when emu_mt. */
static inline void cs_count(struct tb *p, uint32_t p_pair, struct tb *tb, uint32_t pair)
{
	if (LIKELY(tb->cc_pair == pair && tb->cc_n)) {
		tb->cc_n++;
	} else {
		if (tb->cc_n)
			emu_smap_add(&tb->cmap, 0, tb->cc_pair, tb->cc_n);
		tb->cc_pair = pair, tb->cc_n = 1;
	}
	if (!p || (tb->start == p->last + p->last_size && p->cls == EMU_CLS_COND))
		return;
	emu_smap_add(&p->emap, tb->start, p_pair, 1);
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
	if (emu_mt)
		pthread_mutex_lock(&emu_lock);
	if (p->n_insns > 1) {
		uint32_t w = p->insn[--p->n_insns - 1];
		p->last = p->start + (w >> 16);
		p->last_size = (uint8_t)(w >> 8);
		p->cls = (uint8_t)w;
	}
	if (emu_mt)
		pthread_mutex_unlock(&emu_lock);
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
		if (LIKELY(!emu_mt))
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
			if (LIKELY(!emu_mt)) {
				edge_add(p, tb->start);
			} else {
				pthread_mutex_lock(&emu_lock);
				edge_add(p, tb->start);
				pthread_mutex_unlock(&emu_lock);
			}
		}
	}
	if (want_cs) {
		if (LIKELY(!emu_mt)) {
			cs_count(p, p_pair, tb, v->pair);
		} else {
			pthread_mutex_lock(&emu_lock);
			cs_count(p, p_pair, tb, v->pair);
			pthread_mutex_unlock(&emu_lock);
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
	if (!tb)
		emu_oom();
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
	pthread_mutex_lock(&emu_lock);
	tb->next = emu_all_tbs;
	emu_all_tbs = tb;
	pthread_mutex_unlock(&emu_lock);
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
		pthread_mutex_lock(&emu_lock);
		out_rec(&c, sizeof c);
		out_flush();
		pthread_mutex_unlock(&emu_lock);
	} else if (num == isa->sys_exit_group) {
		struct emu_exit e = {.code = (int32_t)a1};
		rec_head(&e.h, EMU_REC_EXIT, v->tid ? v->tid : (uint32_t)syscall(SYS_gettid));
		pthread_mutex_lock(&emu_lock);
		out_rec(&e, sizeof e);
		pthread_mutex_unlock(&emu_lock);
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
			pthread_mutex_lock(&emu_lock);
			out_rec(&c, sizeof c);
			pthread_mutex_unlock(&emu_lock);
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
	pthread_mutex_lock(&emu_lock);
	out_rec(m, sizeof *m + (size_t)len + 1);
	pthread_mutex_unlock(&emu_lock);
	free(m);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	if (disabled || getpid() != our_pid)
		return;
	pthread_mutex_lock(&emu_lock);
	out_flush();
	close(trace_fd);
	if (want_counts)
		emu_dump_counts(counts_path);
	if (want_cs)
		emu_dump_cscounts(cscounts_path);
	pthread_mutex_unlock(&emu_lock);
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
			emu_cs_depth = (uint32_t)u;
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
	if (emu_write_all(trace_fd, &magic, 8) < 0)
		return -1;
	if (entries_path && load_entries(entries_path) < 0) {
		fprintf(stderr, "spgo-emulate: %s: cannot read the function entries\n", entries_path);
		return -1;
	}
	if (want_cs)
		emu_cs_init();
	our_pid = getpid();

	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, sys_enter);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, sys_exit);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
