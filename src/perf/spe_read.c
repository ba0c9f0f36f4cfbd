/*
 * Arm SPE in the perf.data reader: an AUXTRACE_INFO of type ARM_SPE turns
 * the data of the AUXTRACE records that follow into samples (spgo/perf.h
 * says what they hold), through the packet decoder of spe.c.
 */
#include <stdlib.h>
#include <string.h>

#include "perf/perf_impl.h"

void perf_spe_info(struct spgo_perf_reader *r, const uint8_t *p, const struct perf_event_header *h,
		   uint64_t off)
{
	(void)off;
	uint32_t type;
	if (h->size < 16)
		return;
	memcpy(&type, p + 8, 4);
	if (type != SPGO_AUXTRACE_ARM_SPE || r->spe.active)
		return;
	struct perf_spe *s = &r->spe;
	s->active = 1;
	/* priv[0] is the PMU type (perf up to 6.13); the versioned layout
	 * (priv[0] = version 2..5, priv[1] = size) has it in priv[2]. */
	uint64_t priv[3] = {0};
	size_t np = (h->size - 16u) / 8;
	memcpy(priv, p + 16, (np < 3 ? np : 3) * 8);
	s->pmu_type = (uint32_t)(priv[0] >= 2 && priv[0] < 6 && np >= 3 ? priv[2] : priv[0]);
	spgo_kmap_init(&s->tid2pid, 1);
	/* the synthetic event the samples belong to */
	struct spgo_perf_attr *a = xcalloc(1, sizeof *a);
	a->attr.size = PERF_ATTR_SIZE_VER0;
	a->attr.type = s->pmu_type;
	a->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
	a->ids = xmalloc(8);
	a->name = xstrdup("arm_spe");
	a->index = r->attrs.n;
	s->attr = a->index;
	VEC_PUSH(&r->attrs, a);
}

void perf_spe_buffer(struct spgo_perf_reader *r, const uint8_t *p, const struct perf_event_header *h,
		     uint64_t off)
{
	struct perf_spe *s = &r->spe;
	if (!s->active || (r->flags & SPGO_PERF_RAW_AUX) || !s->data || h->size < 48)
		return;
	(void)off;
	memcpy(&s->tid, p + 36, 4);
	memcpy(&s->cpu, p + 40, 4);
	spgo_spe_decoder_init(&s->dec, s->data, (size_t)s->avail);
	s->pending = 1;
	s->buffers++;
}

/* Add one buffer's decoder counts to the totals (first offsets as file offsets). */
static void fold_stats(struct perf_spe *s)
{
	struct spgo_spe_stats *t = &s->st, *d = &s->dec.st;
	if (d->unknown && !t->unknown)
		s->unknown_off = s->data_off + d->unknown_first;
	if (d->cut && !t->cut)
		s->cut_off = s->data_off + d->cut_first;
	if (s->avail < s->size && !d->cut && !t->cut) { /* the file ends inside the buffer */
		s->cut_off = s->data_off + s->avail;
		d->cut = 1;
	}
	t->packets += d->packets;
	t->records += d->records;
	t->branches += d->branches;
	t->not_taken += d->not_taken;
	t->no_pc += d->no_pc;
	t->unknown += d->unknown;
	t->dropped += d->dropped;
	t->cut += d->cut;
}

static uint16_t branch_type(const struct spgo_spe_record *x)
{
	unsigned cr = (x->op & SPGO_SPE_BR_CR_MASK) >> 3;
	int ind = (x->op & SPGO_SPE_BR_INDIRECT) != 0;
	if (cr == 1)
		return ind ? PERF_BR_IND_CALL : PERF_BR_CALL;
	if (cr == 2)
		return PERF_BR_RET;
	if (x->op & SPGO_SPE_BR_COND)
		return PERF_BR_COND;
	return ind ? PERF_BR_IND : PERF_BR_UNCOND;
}

int perf_spe_sample(struct spgo_perf_reader *r, struct spgo_perf_record *rec)
{
	struct perf_spe *s = &r->spe;
	struct spgo_spe_record x;
	do {
		if (!spgo_spe_next(&s->dec, &x)) {
			fold_stats(s);
			s->pending = 0;
			return 0;
		}
		if (SPGO_UNLIKELY(!x.pc) && !s->st.zero_pc++)
			s->zero_pc_off = s->data_off + x.offset;
	} while (SPGO_UNLIKELY(!x.pc));
	/* (the record and its sample set field by field: clearing the whole
	 * of them per record was a fifth of the time) */
	rec->type = PERF_RECORD_SAMPLE;
	rec->size = 0;
	rec->data = NULL;
	rec->offset = s->data_off + x.offset;
	rec->attr = r->attrs.v[s->attr];
	struct spgo_perf_sample *sm = &rec->sample;
	if (!s->tmpl_ready) {
		memset(&s->tmpl, 0, sizeof s->tmpl);
		s->tmpl_ready = 1;
	}
	if (s->last_rec != rec) { /* fields never set below: zero once per caller's record */
		*sm = s->tmpl;
		s->last_rec = rec;
	}
	sm->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			  PERF_SAMPLE_PERIOD | SPGO_PERF_SAMPLE_SPE;
	sm->ip = x.pc;
	sm->cpumode = x.el ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	rec->misc = sm->cpumode;
	uint32_t tid = (x.has & SPGO_SPE_HAS_CONTEXT) ? x.context : s->tid;
	if (tid != s->last_tid || !s->last_valid) {
		uint64_t key = tid, *pid = spgo_kmap_find(&s->tid2pid, &key);
		s->last_tid = tid;
		s->last_pid = pid ? (uint32_t)*pid : tid;
		s->last_valid = 1;
	}
	sm->tid = tid;
	sm->pid = s->last_pid;
	sm->cpu = s->cpu;
	sm->period = 1;
	sm->branch_hw_idx = ~0ULL;
	int branch = (x.has & SPGO_SPE_HAS_OP) && x.op_class == SPGO_SPE_OP_BRANCH;
	if (SPGO_UNLIKELY(branch && !x.target)) { /* no target: nothing to infer from */
		if (!s->st.no_target++)
			s->no_target_off = s->data_off + x.offset;
		branch = 0;
	}
	if (branch) {
		memset(s->br, 0, sizeof s->br);
		s->br[0].from = x.pc;
		s->br[0].to = x.target;
		s->br[0].mispred = (x.events & SPGO_SPE_EV_MISPRED) != 0;
		s->br[0].predicted = !s->br[0].mispred;
		s->br[0].type = branch_type(&x) & 15;
		if (x.events & SPGO_SPE_EV_NOT_TAKEN)
			s->br[0].reserved = 1;
		sm->branch_nr = 1;
		if (x.has & SPGO_SPE_HAS_PREV_TARGET) {
			s->br[1].to = x.prev_target;
			sm->branch_nr = 2;
		}
		sm->branches = s->br;
		sm->addr = x.target;
		sm->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	} else {
		sm->branch_nr = 0;
		sm->branches = NULL;
		sm->addr = x.vaddr;
	}
	return 1;
}

void perf_spe_track(struct spgo_perf_reader *r, const struct spgo_perf_record *rec)
{
	struct perf_spe *s = &r->spe;
	uint64_t tid, pid;
	if (rec->type == PERF_RECORD_COMM) {
		tid = rec->u.comm.tid;
		pid = rec->u.comm.pid;
	} else if (rec->type == PERF_RECORD_FORK) {
		tid = rec->u.task.tid;
		pid = rec->u.task.pid;
	} else if (rec->type == PERF_RECORD_ITRACE_START && rec->size >= 16) {
		uint32_t v[2]; /* pid, tid of the thread whose tracing starts */
		memcpy(v, rec->data + 8, 8);
		pid = v[0];
		tid = v[1];
	} else if (rec->type == PERF_RECORD_AUX && rec->size >= 32) {
		uint64_t flags; /* aux_offset, aux_size, flags */
		memcpy(&flags, rec->data + 24, 8);
		if (flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION)) {
			if (!s->aux_lost)
				s->aux_lost_off = rec->offset;
			s->aux_lost++;
		}
		return;
	} else {
		return;
	}
	*spgo_kmap_upsert(&s->tid2pid, &tid) = pid;
	s->last_valid = 0;
}

void perf_spe_end(struct spgo_perf_reader *r)
{
	struct perf_spe *s = &r->spe;
	if (!s->active || s->warned)
		return;
	s->warned = 1;
	const struct spgo_spe_stats *t = &s->st;
	if (t->unknown)
		spgo_warn("%s: offset 0x%llx: %llu bytes of SPE data that start no known packet were "
			  "skipped (%llu records with one dropped); this is the first",
			  r->path, (unsigned long long)s->unknown_off, (unsigned long long)t->unknown,
			  (unsigned long long)t->dropped);
	if (t->cut)
		spgo_warn("%s: offset 0x%llx: %llu SPE buffers end inside a packet or a record (the "
			  "rest of each was left out); this is the first",
			  r->path, (unsigned long long)s->cut_off, (unsigned long long)t->cut);
	if (t->zero_pc)
		spgo_warn("%s: offset 0x%llx: %llu SPE records with PC 0 were left out; this is the first",
			  r->path, (unsigned long long)s->zero_pc_off, (unsigned long long)t->zero_pc);
	if (t->no_target)
		spgo_warn("%s: offset 0x%llx: %llu SPE branch records have no target address (or 0): "
			  "taken as IP samples, no branch nor range; this is the first",
			  r->path, (unsigned long long)s->no_target_off, (unsigned long long)t->no_target);
	if (s->aux_lost)
		spgo_warn("%s: offset 0x%llx: %llu AUX records say the kernel truncated the SPE data or "
			  "lost some (records missing: a larger AUX buffer, perf record -m,SIZE, or a "
			  "longer period); this is the first",
			  r->path, (unsigned long long)s->aux_lost_off, (unsigned long long)s->aux_lost);
	if (s->buffers && !t->records)
		spgo_warn("%s: %llu SPE buffers hold no record", r->path, (unsigned long long)s->buffers);
}

const struct spgo_spe_stats *spgo_perf_spe_stats(const struct spgo_perf_reader *r)
{
	return &r->spe.st;
}

void perf_spe_free(struct spgo_perf_reader *r)
{
	free(r->spe.copy);
	if (r->spe.active)
		spgo_kmap_free(&r->spe.tid2pid);
}
