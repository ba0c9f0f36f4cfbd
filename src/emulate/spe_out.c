/*
 * spe_out.c: `spgo emulate --spe`: Arm SPE branch records from the emulated
 * run, as SPE packets in the AUX area of the perf.data (the layout of
 * `perf record -e arm_spe_0/branch_filter=1/ --per-thread`: one
 * AUXTRACE_INFO of type ARM_SPE, then AUXTRACE records, one queue per
 * thread, cpu -1).
 *
 * Which branches: SPE samples every Nth operation and keeps the branches;
 * what counts is that each executed branch is recorded with the same
 * probability, taken or not.  The plugin samples every ~Nth taken branch
 * with the branch stack up to it; the records written for such a sample are
 * every branch of its last stretch of straight-line code: the conditional
 * branches not taken between the target of the previous taken branch and
 * the sampled one (found in the binary's instructions; any other branch
 * there went to its next instruction, which the branch stack cannot tell
 * from falling through: an indirect jump to the next case of a table), then
 * the sampled taken branch.  Each stretch ends at exactly one taken branch, so every
 * branch executed is written with probability 1/N, like SPE's (which
 * spreads its samples out more evenly in time; the expected counts agree).
 *
 * A record: PC, LAT TOT, EV (RETIRED, NOT-TAKEN), OP-TYPE branch (COND,
 * IND), TGT (the next instruction for a branch not taken, as SPE gives it),
 * PBT (the target of the previous taken branch, with pbt), CONTEXT (the
 * thread id, as with the kernel's pct=1) and TS (the run's time in ns).
 */
#include <stdlib.h>
#include <string.h>

#include "emulate/spe_out.h"
#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_spe.h"

#define FLUSH_BYTES (1u << 20)

struct spe_thread {
	uint32_t tid, idx;
	VEC(uint8_t) buf;
	uint64_t offset; /* AUX offset of the next byte written */
};

struct spe_out {
	struct spgo_perf_writer *w;
	int pbt;
	spe_code_fn code;
	void *arg;
	VEC(struct spe_thread) threads;
	uint64_t records;
};

struct spe_out *spe_out_new(struct spgo_perf_writer *w, int pbt, spe_code_fn code, void *arg)
{
	struct spe_out *o = xcalloc(1, sizeof *o);
	o->w = w;
	o->pbt = pbt;
	o->code = code;
	o->arg = arg;
	return o;
}

int spe_out_begin(struct spe_out *o, uint64_t period)
{
	struct perf_event_attr attr = {0};
	attr.size = PERF_ATTR_SIZE_VER7;
	attr.type = SPE_OUT_PMU_TYPE;
	attr.config = 1ULL << 32; /* arm_spe_0's branch_filter */
	attr.sample_period = period;
	/* no TIME: perf decodes the trace of a queue at its end ("timeless") */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	spgo_pw_attr_user_tasks(&attr);
	uint64_t id = 1;
	if (spgo_pw_add_attr(o->w, &attr, "arm_spe_0/branch_filter=1/u", &id, 1) < 0)
		return -1;
	uint64_t priv[2] = {SPE_OUT_PMU_TYPE, 0 /* per-cpu mmaps: no */};
	return spgo_pw_auxtrace_info(o->w, SPGO_AUXTRACE_ARM_SPE, priv, 2);
}

static struct spe_thread *thread_of(struct spe_out *o, uint32_t tid)
{
	for (size_t i = 0; i < o->threads.n; i++)
		if (o->threads.v[i].tid == tid)
			return &o->threads.v[i];
	struct spe_thread t = {.tid = tid, .idx = (uint32_t)o->threads.n};
	VEC_PUSH(&o->threads, t);
	return &o->threads.v[o->threads.n - 1];
}

static void put_bytes(struct spe_thread *t, const void *p, size_t n)
{
	VEC_GROW(&t->buf, t->buf.n + n);
	memcpy(t->buf.v + t->buf.n, p, n);
	t->buf.n += n;
}

/* A packet: header byte(s), then n payload bytes of v, little-endian. */
static void pkt(struct spe_thread *t, uint8_t h, uint64_t v, unsigned n)
{
	uint8_t b[9];
	b[0] = h;
	for (unsigned i = 0; i < n; i++)
		b[1 + i] = (uint8_t)(v >> (8 * i));
	put_bytes(t, b, 1 + n);
}

/* An instruction address packet: user space (EL0), non-secure. */
static void addr_pkt(struct spe_thread *t, unsigned index, uint64_t a)
{
	pkt(t, (uint8_t)(0xb0 | index), (a & ((1ULL << 56) - 1)) | 1ULL << 63, 8);
}

struct op {
	uint64_t pc, target;
	uint8_t op, not_taken;
};

static void record(struct spe_out *o, struct spe_thread *t, const struct op *x, uint64_t pbt,
		   int have_pbt, uint64_t time)
{
	addr_pkt(t, SPGO_SPE_ADDR_PC, x->pc);
	pkt(t, 0x98, 1, 2); /* LAT 1 TOT */
	pkt(t, 0x52, SPGO_SPE_EV_RETIRED | (x->not_taken ? SPGO_SPE_EV_NOT_TAKEN : 0), 2);
	pkt(t, 0x48 | SPGO_SPE_OP_BRANCH, x->op, 1);
	addr_pkt(t, SPGO_SPE_ADDR_TARGET, x->target);
	if (o->pbt && have_pbt)
		addr_pkt(t, SPGO_SPE_ADDR_PREV_TARGET, pbt);
	pkt(t, 0x64, t->tid, 4); /* CONTEXT (CONTEXTIDR_EL1) */
	pkt(t, 0x71, time, 8);
	o->records++;
}

/* The instruction at runtime address a, or NULL (and its table, bias). */
static const struct spgo_insn *insn_at(struct spe_out *o, uint64_t a, const struct spgo_insn **tab,
				       size_t *n, uint64_t *bias)
{
	if (o->code(o->arg, a, tab, n, bias) < 0)
		return NULL;
	uint64_t v = a - *bias;
	size_t lo = 0, hi = *n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((*tab)[mid].addr < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < *n && (*tab)[lo].addr == v ? &(*tab)[lo] : NULL;
}

static uint8_t op_bits(unsigned cls)
{
	switch (cls) {
	case SPGO_INSN_COND_BRANCH: return SPGO_SPE_BR_COND;
	case SPGO_INSN_INDIRECT_JUMP:
	case SPGO_INSN_INDIRECT_CALL:
	case SPGO_INSN_RETURN: return SPGO_SPE_BR_INDIRECT;
	default: return 0;
	}
}

int spe_out_sample(struct spe_out *o, const struct emu_sample *s)
{
	if (!s->n_br)
		return 0;
	/* n_br records of {from, to, class}, newest first (trace.h) */
	const uint64_t *br = s->data + s->n_stack;
	uint64_t from = br[0], to = br[1];
	/* A system call's two records (AArch64: svc -> 0, then 0 -> the return
	 * point) are no branch SPE would sample as such: leave the sample out. */
	if (!from || !to)
		return 0;
	struct spe_thread *t = thread_of(o, s->h.tid);
	const struct spgo_insn *tab, *in;
	size_t n;
	uint64_t bias;
	int have_pbt = s->n_br >= 2 && br[4] != 0 && br[5] != EMU_CLS_WRONG_PATH;
	uint64_t pbt = have_pbt ? br[4] : 0;
	/* the branches not taken on the way from the previous target */
	if (have_pbt && pbt <= from && from - pbt < (1u << 20) &&
	    (in = insn_at(o, pbt, &tab, &n, &bias)) != NULL) {
		for (size_t i = (size_t)(in - tab); i < n && tab[i].addr + bias < from; i++) {
			unsigned cls = tab[i].cls;
			if (cls == SPGO_INSN_OTHER || cls == SPGO_INSN_TRAP)
				continue;
			/* a conditional branch not taken; any other branch here went
			 * to the next instruction (an indirect jump there: taken, but
			 * the branch stack cannot tell it from falling through) */
			struct op x = {tab[i].addr + bias, tab[i].addr + bias + tab[i].size, op_bits(cls),
				       cls == SPGO_INSN_COND_BRANCH};
			record(o, t, &x, pbt, 1, s->h.time);
		}
	}
	in = insn_at(o, from, &tab, &n, &bias);
	struct op x = {from, to, in ? op_bits(in->cls) : 0, 0};
	record(o, t, &x, pbt, have_pbt, s->h.time);
	if (t->buf.n >= FLUSH_BYTES)
		return spe_out_flush(o);
	return 0;
}

int spe_out_flush(struct spe_out *o)
{
	static const uint8_t pad[8];
	for (size_t i = 0; i < o->threads.n; i++) {
		struct spe_thread *t = &o->threads.v[i];
		if (!t->buf.n)
			continue;
		put_bytes(t, pad, (8 - t->buf.n % 8) % 8); /* PAD packets */
		struct spgo_pw_auxtrace a = {.offset = t->offset, .idx = t->idx, .tid = t->tid, .cpu = UINT32_MAX};
		if (spgo_pw_auxtrace(o->w, &a, t->buf.v, t->buf.n) < 0)
			return -1;
		t->offset += t->buf.n;
		t->buf.n = 0;
	}
	return 0;
}

uint64_t spe_out_records(const struct spe_out *o)
{
	return o->records;
}

void spe_out_free(struct spe_out *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->threads.n; i++)
		VEC_FREE(&o->threads.v[i].buf);
	VEC_FREE(&o->threads);
	free(o);
}
