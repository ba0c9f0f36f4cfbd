/*
 * Decoding records (the sample layout a sample_type implies, the records of
 * the kernel, the sample_id trailer) and the time-ordering queue that makes
 * spgo see records in the order `perf script` does.
 */
#include <stdlib.h>
#include <string.h>

#include "perf/perf_impl.h"

/* A bounds-checked cursor over one record. */
struct cur {
	const uint8_t *p, *end;
	int bad;
};

static inline uint64_t take64(struct cur *c)
{
	if (SPGO_UNLIKELY(c->end - c->p < 8)) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	uint64_t v;
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

/* Skip n bytes, returning where they start (NULL if they do not fit). */
static inline const uint8_t *take(struct cur *c, uint64_t n)
{
	if (SPGO_UNLIKELY((uint64_t)(c->end - c->p) < n)) {
		c->bad = 1;
		c->p = c->end;
		return NULL;
	}
	const uint8_t *at = c->p;
	c->p += n;
	return at;
}

/* The event of a record: by its id when there are several events. */
static const struct spgo_perf_attr *record_attr(const struct spgo_perf_reader *r,
						const uint8_t *p, uint32_t type, uint16_t size)
{
	if (r->attrs.n <= 1)
		return r->attrs.n ? r->attrs.v[0] : NULL;
	uint64_t id;
	if (type == PERF_RECORD_SAMPLE) {
		if (r->id_pos < 0 || 8u + 8u * (unsigned)(r->id_pos + 1) > size)
			return r->attrs.v[0];
		memcpy(&id, p + 8 + 8 * r->id_pos, 8);
	} else {
		if (r->id_pos_end < 0 || !r->attrs.v[0]->attr.sample_id_all ||
		    8u + 8u * (unsigned)r->id_pos_end > size)
			return r->attrs.v[0];
		memcpy(&id, p + size - 8 * r->id_pos_end, 8);
	}
	const uint64_t *idx = spgo_kmap_find(&r->id2attr, &id);
	return idx && *idx < r->attrs.n ? r->attrs.v[*idx] : r->attrs.v[0];
}

static int bad_sample(const struct spgo_perf_reader *r, uint64_t off, const char *what)
{
	return spgo_error("%s: offset 0x%llx: %s", r->path, (unsigned long long)off, what);
}

/* Decode the body of a SAMPLE record by its event's sample_type. */
static int decode_sample(const struct spgo_perf_reader *r, const struct perf_event_attr *a,
			 const uint8_t *p, uint16_t size, uint64_t off, struct spgo_perf_sample *s)
{
	uint64_t t = a->sample_type;
	struct cur c = {p + 8, p + size, 0};
	uint64_t w;
	s->sample_type = t;
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(&c);
	if (t & PERF_SAMPLE_IP)
		s->ip = take64(&c);
	if (t & PERF_SAMPLE_TID) {
		w = take64(&c);
		s->pid = (uint32_t)w;
		s->tid = (uint32_t)(w >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = take64(&c);
	if (t & PERF_SAMPLE_ADDR)
		s->addr = take64(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = take64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take64(&c);
	if (t & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)take64(&c);
	if (t & PERF_SAMPLE_PERIOD)
		s->period = take64(&c);
	if (t & PERF_SAMPLE_READ) {
		uint64_t f = a->read_format, per = 1, fixed = 0;
		fixed += !!(f & PERF_FORMAT_TOTAL_TIME_ENABLED);
		fixed += !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING);
		per += !!(f & PERF_FORMAT_ID);
		per += !!(f & PERF_FORMAT_LOST);
		const uint8_t *start = c.p;
		uint64_t words;
		if (f & PERF_FORMAT_GROUP) {
			uint64_t nr = take64(&c);
			if (nr > 65536 / 8)
				return bad_sample(r, off, "sample read group too large");
			words = 1 + fixed + nr * per;
		} else {
			words = fixed + per;
		}
		c.p = start;
		s->read = (const uint64_t *)take(&c, words * 8);
		s->read_words = (size_t)words;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take64(&c);
		if (nr > 65536 / 8)
			return bad_sample(r, off, "callchain longer than its record");
		s->callchain = (const uint64_t *)take(&c, nr * 8);
		s->callchain_nr = s->callchain ? nr : 0;
	}
	if (t & PERF_SAMPLE_RAW) {
		const uint8_t *q = take(&c, 4);
		uint32_t n = 0;
		if (q)
			memcpy(&n, q, 4);
		s->raw = take(&c, n);
		s->raw_size = s->raw ? n : 0;
		/* The u32 size and the data are padded together to 8 bytes. */
		size_t used = (size_t)(c.p - (p + 8));
		if (!c.bad && used % 8)
			take(&c, 8 - used % 8);
	}
	s->branch_hw_idx = ~0ULL;
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = take64(&c);
		if (nr > 65536 / 24)
			return bad_sample(r, off, "branch stack longer than its record");
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s->branch_hw_idx = take64(&c);
		s->branches = (const struct perf_branch_entry *)take(&c, nr * 24);
		s->branch_nr = s->branches ? nr : 0;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		s->regs_user_abi = take64(&c);
		if (s->regs_user_abi) {
			size_t n = (size_t)__builtin_popcountll(a->sample_regs_user);
			s->regs_user = (const uint64_t *)take(&c, n * 8);
			s->regs_user_nr = n;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_user_size = take64(&c);
		if (s->stack_user_size) {
			s->stack_user = take(&c, s->stack_user_size);
			s->stack_user_dyn_size = take64(&c);
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = take64(&c);
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = take64(&c);
	if (t & PERF_SAMPLE_TRANSACTION)
		s->transaction = take64(&c);
	if (t & PERF_SAMPLE_REGS_INTR) {
		s->regs_intr_abi = take64(&c);
		if (s->regs_intr_abi) {
			size_t n = (size_t)__builtin_popcountll(a->sample_regs_intr);
			s->regs_intr = (const uint64_t *)take(&c, n * 8);
			s->regs_intr_nr = n;
		}
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = take64(&c);
	if (t & PERF_SAMPLE_CGROUP)
		s->cgroup = take64(&c);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = take64(&c);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = take64(&c);
	if (t & PERF_SAMPLE_AUX) {
		s->aux_size = take64(&c);
		s->aux = take(&c, s->aux_size);
	}
	if (c.bad)
		return bad_sample(r, off, "sample fields run past the end of the record");
	return 0;
}

/* Bytes of the sample_id trailer of non-sample records of this event. */
static inline unsigned trailer_size(const struct perf_event_attr *a)
{
	if (!a->sample_id_all)
		return 0;
	uint64_t t = a->sample_type;
	return 8u * (unsigned)__builtin_popcountll(t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						     PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						     PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
}

static void decode_trailer(const struct perf_event_attr *a, const uint8_t *p, uint16_t size,
			   struct spgo_perf_sample *s)
{
	unsigned n = trailer_size(a);
	if (!n || n + 8u > size)
		return;
	uint64_t t = a->sample_type, w;
	struct cur c = {p + size - n, p + size, 0};
	s->sample_type = t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	if (t & PERF_SAMPLE_TID) {
		w = take64(&c);
		s->pid = (uint32_t)w;
		s->tid = (uint32_t)(w >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = take64(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = take64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take64(&c);
	if (t & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)take64(&c);
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(&c);
}

/* Copy a NUL-terminated name of at most n bytes into r->name. */
static const char *copy_name(struct spgo_perf_reader *r, const uint8_t *p, size_t n)
{
	if (n > sizeof r->name - 1)
		n = sizeof r->name - 1;
	size_t len = strnlen((const char *)p, n);
	memcpy(r->name, p, len);
	r->name[len] = '\0';
	return r->name;
}

/* Decode a kernel record (type < 64) into rec. */
static int decode_record(struct spgo_perf_reader *r, const uint8_t *p,
			 const struct perf_event_header *h, uint64_t off,
			 struct spgo_perf_record *rec)
{
	rec->type = h->type;
	rec->misc = h->misc;
	rec->size = h->size;
	rec->offset = off;
	rec->data = p;
	const struct spgo_perf_attr *attr = record_attr(r, p, h->type, h->size);
	rec->attr = attr;
	memset(&rec->sample, 0, sizeof rec->sample);
	rec->sample.cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!attr)
			return spgo_error("%s: offset 0x%llx: a sample before any event is "
					  "described", r->path, (unsigned long long)off);
		rec->sample.exact_ip = !!(h->misc & PERF_RECORD_MISC_EXACT_IP);
		return decode_sample(r, &attr->attr, p, h->size, off, &rec->sample);
	}
	if (attr)
		decode_trailer(&attr->attr, p, h->size, &rec->sample);
	size_t end = h->size - (attr ? trailer_size(&attr->attr) : 0);
	if (end < 8 || end > h->size)
		end = h->size;
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct spgo_perf_mmap *m = &rec->u.mmap;
		size_t fixed = h->type == PERF_RECORD_MMAP ? 40 : 72;
		if (end < fixed)
			return spgo_error("%s: offset 0x%llx: %s record too short", r->path,
					  (unsigned long long)off, spgo_perf_record_name(h->type));
		memset(m, 0, sizeof *m);
		memcpy(&m->pid, p + 8, 4);
		memcpy(&m->tid, p + 12, 4);
		memcpy(&m->start, p + 16, 8);
		memcpy(&m->len, p + 24, 8);
		memcpy(&m->pgoff, p + 32, 8);
		if (h->type == PERF_RECORD_MMAP2) {
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				m->build_id_size = p[40] <= 20 ? p[40] : 20;
				memcpy(m->build_id, p + 44, 20);
			} else {
				memcpy(&m->maj, p + 40, 4);
				memcpy(&m->min, p + 44, 4);
				memcpy(&m->ino, p + 48, 8);
				memcpy(&m->ino_generation, p + 56, 8);
			}
			memcpy(&m->prot, p + 64, 4);
			memcpy(&m->flags, p + 68, 4);
		}
		m->filename = copy_name(r, p + fixed, end - fixed);
		if (!(attr && attr->attr.sample_id_all)) {
			rec->sample.pid = m->pid;
			rec->sample.tid = m->tid;
		}
		break;
	}
	case PERF_RECORD_COMM:
		if (end < 16)
			return spgo_error("%s: offset 0x%llx: COMM record too short", r->path,
					  (unsigned long long)off);
		memcpy(&rec->u.comm.pid, p + 8, 4);
		memcpy(&rec->u.comm.tid, p + 12, 4);
		rec->u.comm.comm = copy_name(r, p + 16, end - 16);
		rec->u.comm.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (end < 32)
			return spgo_error("%s: offset 0x%llx: %s record too short", r->path,
					  (unsigned long long)off, spgo_perf_record_name(h->type));
		memcpy(&rec->u.task.pid, p + 8, 4);
		memcpy(&rec->u.task.ppid, p + 12, 4);
		memcpy(&rec->u.task.tid, p + 16, 4);
		memcpy(&rec->u.task.ptid, p + 20, 4);
		memcpy(&rec->u.task.time, p + 24, 8);
		break;
	case PERF_RECORD_LOST:
		if (end >= 24) {
			memcpy(&rec->u.lost.id, p + 8, 8);
			memcpy(&rec->u.lost.lost, p + 16, 8);
		}
		break;
	default:
		break; /* kept whole in rec->data; skipped by its size */
	}
	return 0;
}

/* The timestamp perf orders a kernel record by (0 = none). */
static uint64_t record_time(const struct spgo_perf_reader *r, const uint8_t *p,
			    const struct perf_event_header *h)
{
	const struct spgo_perf_attr *attr = record_attr(r, p, h->type, h->size);
	if (!attr || !attr->attr.sample_id_all || !(attr->attr.sample_type & PERF_SAMPLE_TIME))
		return 0;
	uint64_t t = attr->attr.sample_type, v = 0;
	unsigned pos;
	if (h->type == PERF_RECORD_SAMPLE) {
		pos = 8 + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
			       !!(t & PERF_SAMPLE_TID));
	} else {
		unsigned n = trailer_size(&attr->attr);
		if (n + 8u > h->size)
			return 0;
		pos = h->size - n + 8 * !!(t & PERF_SAMPLE_TID);
	}
	if (pos + 8u > h->size)
		return 0;
	memcpy(&v, p + pos, 8);
	return v == ~0ULL ? 0 : v;
}

/* ---- the ordering queue ------------------------------------------------ */

static int cmp_qent(const void *a, const void *b)
{
	const struct perf_qent *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void enqueue(struct spgo_perf_reader *r, const uint8_t *p, uint16_t size, uint64_t time,
		    uint64_t off)
{
	/* perf's queue: an event landing at the tail sets the max timestamp. */
	size_t pending = r->q.n - r->q_next;
	if (pending == 0 || time >= r->q_max) {
		r->max_time = time;
		r->q_max = time;
	}
	r->queued += size;
	/* A record of the mapped file stays where it is. */
	if (r->mapped && p >= r->buf && p < r->buf + r->map_size) {
		struct perf_qent e = {time, r->seq++, off, p, 0};
		VEC_PUSH(&r->q, e);
		return;
	}
	if (r->arena_len + size > r->arena_cap) {
		r->arena_cap = r->arena_cap ? r->arena_cap * 2 : (1u << 20);
		while (r->arena_len + size > r->arena_cap)
			r->arena_cap *= 2;
		r->arena = xrealloc(r->arena, r->arena_cap);
	}
	memcpy(r->arena + r->arena_len, p, size);
	struct perf_qent e = {time, r->seq++, off, NULL, r->arena_len};
	r->arena_len += size;
	VEC_PUSH(&r->q, e);
}

static inline const uint8_t *qent_data(const struct spgo_perf_reader *r, const struct perf_qent *e)
{
	return e->ptr ? e->ptr : r->arena + e->at;
}

static size_t qent_size(const struct spgo_perf_reader *r, const struct perf_qent *e)
{
	uint16_t sz;
	memcpy(&sz, qent_data(r, e) + 6, 2);
	return sz;
}

/* Make the queued records up to `limit` ready to go out, in time order. */
static void flush_upto(struct spgo_perf_reader *r, uint64_t limit)
{
	/* Drop what went out already.  Their arena bytes are only counted as
	 * dead; the arena is packed when more than half of it is dead, so each
	 * byte is copied O(1) times in all. */
	if (r->q_next > 0) {
		for (size_t i = 0; i < r->q_next; i++)
			if (!r->q.v[i].ptr)
				r->arena_dead += qent_size(r, &r->q.v[i]);
		size_t keep = r->q.n - r->q_next;
		memmove(r->q.v, r->q.v + r->q_next, keep * sizeof *r->q.v);
		r->q.n = keep;
		r->q_next = r->q_ready = 0;
		if (keep == 0) {
			r->arena_len = r->arena_dead = 0;
		} else if (r->arena_dead > r->arena_len / 2 && r->arena_len > (1u << 20)) {
			/* pack into the spare buffer, keep the old one as spare */
			if (r->spare_cap < r->arena_cap) {
				free(r->spare);
				r->spare = xmalloc(r->arena_cap);
				r->spare_cap = r->arena_cap;
			}
			uint8_t *na = r->spare;
			size_t len = 0;
			for (size_t i = 0; i < keep; i++) {
				struct perf_qent *e = &r->q.v[i];
				if (e->ptr)
					continue;
				size_t sz = qent_size(r, e);
				memcpy(na + len, r->arena + e->at, sz);
				e->at = len;
				len += sz;
			}
			r->spare = r->arena;
			size_t c = r->spare_cap;
			r->spare_cap = r->arena_cap;
			r->arena = na;
			r->arena_cap = c;
			r->arena_len = len;
			r->arena_dead = 0;
		}
	}
	/* Usually in order already (one CPU, or perf wrote it sorted). */
	int sorted = 1;
	for (size_t i = 1; i < r->q.n && sorted; i++)
		sorted = cmp_qent(&r->q.v[i - 1], &r->q.v[i]) <= 0;
	if (!sorted)
		spgo_sort(r->q.v, r->q.n, sizeof *r->q.v, cmp_qent);
	size_t n = 0;
	while (n < r->q.n && r->q.v[n].time <= limit)
		n++;
	r->q_ready = n;
	r->q_max = 0;
	for (size_t i = n; i < r->q.n; i++)
		if (r->q.v[i].time > r->q_max)
			r->q_max = r->q.v[i].time;
}

/*
 * Memory bound: data without FINISHED_ROUND records (old perf, or a broken
 * writer) would queue the whole file.  Past QUEUE_LIMIT bytes the oldest
 * half goes out, as perf does when it reaches its own allocation limit.
 */
#define QUEUE_LIMIT (128u << 20)

static void flush_half(struct spgo_perf_reader *r)
{
	flush_upto(r, 0); /* packs and sorts */
	size_t n = r->q.n / 2;
	uint64_t limit = r->q.v[n].time;
	while (n < r->q.n && r->q.v[n].time <= limit)
		n++;
	r->q_ready = n;
}

void perf_queue_free(struct spgo_perf_reader *r)
{
	VEC_FREE(&r->q);
	free(r->arena);
	free(r->spare);
	r->arena = r->spare = NULL;
}

/* ---- the public iterator ----------------------------------------------- */

static int next_record(struct spgo_perf_reader *r, struct spgo_perf_record *rec)
{
	int ordered = r->flags & SPGO_PERF_ORDERED;
	for (;;) {
		if (ordered && r->q_next < r->q_ready) {
			struct perf_qent *e = &r->q.v[r->q_next++];
			const uint8_t *p = qent_data(r, e);
			struct perf_event_header h;
			memcpy(&h, p, sizeof h);
			r->queued -= h.size;
			if (e->ptr && r->mapped) {
				size_t o = (size_t)(e->ptr - r->buf);
				if (o < r->touch_lo)
					r->touch_lo = o;
				r->delivered += h.size;
				perf_release_pages(r);
			}
			return decode_record(r, p, &h, e->off, rec) < 0 ? -1 : 1;
		}
		if (r->finished)
			return 0;
		if (r->mapped)
			perf_release_pages(r);
		const uint8_t *p;
		struct perf_event_header h;
		uint64_t off;
		int rc = perf_raw_next(r, &p, &h, &off);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (!ordered)
				return 0;
			r->finished = 1;
			flush_upto(r, UINT64_MAX);
			continue;
		}
		if (h.type >= 64) {
			if (perf_user_record(r, p, &h, off) < 0)
				return -1;
			if (ordered && h.type == SPGO_PERF_RECORD_FINISHED_ROUND) {
				flush_upto(r, r->next_flush);
				r->next_flush = r->max_time;
			}
			memset(rec, 0, sizeof *rec);
			rec->type = h.type;
			rec->misc = h.misc;
			rec->size = h.size;
			rec->offset = off;
			rec->data = p;
			if (h.type == SPGO_PERF_RECORD_AUXTRACE_INFO && !(r->flags & SPGO_PERF_RAW_AUX))
				perf_spe_info(r, p, &h, off);
			else if (h.type == SPGO_PERF_RECORD_AUXTRACE)
				perf_spe_buffer(r, p, &h, off);
			if (r->spe.pending && ordered) /* what came before goes out first */
				flush_upto(r, UINT64_MAX);
			if (h.type == SPGO_PERF_RECORD_AUXTRACE && h.size >= 48) {
				struct spgo_perf_auxtrace *a = &rec->u.aux;
				memcpy(&a->size, p + 8, 8);
				memcpy(&a->offset, p + 16, 8);
				memcpy(&a->reference, p + 24, 8);
				memcpy(&a->idx, p + 32, 4);
				memcpy(&a->tid, p + 36, 4);
				memcpy(&a->cpu, p + 40, 4);
				a->data = r->spe.pending ? r->spe.data : NULL;
				a->avail = r->spe.pending ? r->spe.avail : 0;
			}
			return 1;
		}
		if (ordered) {
			uint64_t t = record_time(r, p, &h);
			if (t) {
				enqueue(r, p, h.size, t, off);
				if (SPGO_UNLIKELY(r->queued > QUEUE_LIMIT))
					flush_half(r);
				continue;
			}
		}
		return decode_record(r, p, &h, off, rec) < 0 ? -1 : 1;
	}
}

/* The records in order, with the samples of SPE data (spe_read.c) after
 * the AUXTRACE record that holds it and the records queued before it. */
int spgo_perf_next(struct spgo_perf_reader *r, struct spgo_perf_record *rec)
{
	if (r->spe.pending && !((r->flags & SPGO_PERF_ORDERED) && r->q_next < r->q_ready) &&
	    perf_spe_sample(r, rec))
		return 1;
	int rc = next_record(r, rec);
	r->spe.last_rec = NULL; /* rec holds another record now */
	if (rc > 0 && r->spe.active)
		perf_spe_track(r, rec);
	else if (rc == 0)
		perf_spe_end(r);
	return rc;
}

const char *spgo_perf_record_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};
	if (type < SPGO_ARRAY_LEN(kernel))
		return kernel[type];
	switch (type) {
	case SPGO_PERF_RECORD_HEADER_ATTR: return "HEADER_ATTR";
	case SPGO_PERF_RECORD_HEADER_EVENT_TYPE: return "HEADER_EVENT_TYPE";
	case SPGO_PERF_RECORD_HEADER_TRACING_DATA: return "HEADER_TRACING_DATA";
	case SPGO_PERF_RECORD_HEADER_BUILD_ID: return "HEADER_BUILD_ID";
	case SPGO_PERF_RECORD_FINISHED_ROUND: return "FINISHED_ROUND";
	case SPGO_PERF_RECORD_ID_INDEX: return "ID_INDEX";
	case SPGO_PERF_RECORD_AUXTRACE_INFO: return "AUXTRACE_INFO";
	case SPGO_PERF_RECORD_AUXTRACE: return "AUXTRACE";
	case SPGO_PERF_RECORD_EVENT_UPDATE: return "EVENT_UPDATE";
	case SPGO_PERF_RECORD_HEADER_FEATURE: return "FEATURE";
	case SPGO_PERF_RECORD_COMPRESSED: return "COMPRESSED";
	case SPGO_PERF_RECORD_FINISHED_INIT: return "FINISHED_INIT";
	default: return NULL;
	}
}
