/*
 * Streaming aggregation of one binary's samples: see spgo/aggregate.h.
 *
 * The hot path is spgo_agg_feed() on a SAMPLE: one address translation per
 * ip and stack frame, then hash-map increments; the LBR entries are counted
 * per distinct entry and neighbour pair (agg_lbr.c).  Translation is
 * cached as a runtime interval with a constant delta (one mapping crossed
 * with one segment), so consecutive addresses of the same code cost a
 * compare and an add.  Nothing is allocated per sample once the scratch
 * arrays and maps have grown to their working size.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "aggregate_impl.h"


static inline size_t ctab_slot(uint64_t a, uint64_t b, size_t mask)
{
	return (size_t)spgo_hash64(a ^ (b * 0x9e3779b97f4a7c15ULL)) & mask;
}

static void ctab_grow(struct ctab *t)
{
	struct ctab old = *t;
	t->cap = old.cap ? old.cap * 2 : 1024;
	t->rows = xcalloc(t->cap * 3, sizeof *t->rows);
	for (size_t i = 0; i < old.cap; i++) {
		const uint64_t *r = old.rows + 3 * i;
		if (!r[2])
			continue;
		size_t j = ctab_slot(r[0], r[1], t->cap - 1);
		while (t->rows[3 * j + 2])
			j = (j + 1) & (t->cap - 1);
		memcpy(t->rows + 3 * j, r, 3 * sizeof *r);
	}
	free(old.rows);
}

static inline void ctab_add(struct ctab *t, uint64_t a, uint64_t b, uint64_t n)
{
	if (SPGO_UNLIKELY((t->n + 1) * 2 > t->cap))
		ctab_grow(t);
	size_t mask = t->cap - 1, i = ctab_slot(a, b, mask);
	for (;;) {
		uint64_t *r = t->rows + 3 * i;
		if (r[0] == a && r[1] == b && r[2]) {
			r[2] += n;
			return;
		}
		if (!r[2]) {
			r[0] = a;
			r[1] = b;
			r[2] = n;
			t->n++;
			return;
		}
		i = (i + 1) & mask;
	}
}



int spgo_agg_new(struct spgo_aggregate **out, const char *binary_path, const char *debug_path)
{
	*out = NULL;
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, binary_path, debug_path) < 0)
		return -1;
	struct spgo_aggregate *a = xcalloc(1, sizeof *a);
	struct spgo_agg_impl *I = xcalloc(1, sizeof *I);
	a->bin = bin;
	a->impl = I;
	spgo_kmap_init(&a->ranges, 2);
	spgo_kmap_init(&a->branches, 2);
	spgo_kmap_init(&I->stack_index, 2);
	I->machine = spgo_perf_machine_new();
	I->sel_index = -1;
	I->segs = spgo_binary_segments(bin, &I->nsegs);
	I->build_id = spgo_binary_build_id(bin, &I->build_id_len);
	const char *p = spgo_binary_path(bin), *slash = strrchr(p, '/');
	I->base = slash ? slash + 1 : p;
	*out = a;
	return 0;
}

void spgo_agg_free(struct spgo_aggregate *a)
{
	if (!a)
		return;
	struct spgo_agg_impl *I = a->impl;
	agg_worker_stop(I); /* (what it was given is counted and handed over: fn's context must
			 * still be there) */
	for (size_t i = 0; i < a->events.n; i++) {
		free(a->events.v[i].name);
		spgo_kmap_free(&a->events.v[i].ips);
	}
	VEC_FREE(&a->events);
	spgo_kmap_free(&a->ranges);
	spgo_kmap_free(&a->branches);
	spgo_kmap_free(&I->stack_index);
	for (size_t i = 0; i < I->matches.n; i++)
		free((char *)I->matches.v[i].name);
	VEC_FREE(&I->matches);
	for (size_t i = 0; i < I->seen.n; i++)
		free(I->seen.v[i]);
	VEC_FREE(&I->seen);
	free(I->sel_name);
	free(I->assumed_name);
	free(I->filter_id);
	agg_spe_free(a);
	free(I->kernel_id_differs);
	VEC_FREE(&I->pool);
	VEC_FREE(&I->scratch);
	VEC_FREE(&I->mf);
	agg_lbr_free(I);
	free(I->ranges.rows);
	free(I->branches.rows);
	free(I->ips.rows);
	spgo_perf_machine_free(I->machine);
	spgo_binary_close(a->bin);
	free(I);
	free(a);
}

const struct spgo_agg_stats *spgo_agg_stats(const struct spgo_aggregate *a) { return &a->stats; }

const struct spgo_agg_match *spgo_agg_matches(const struct spgo_aggregate *a, size_t *n)
{
	*n = a->impl->matches.n;
	return a->impl->matches.v;
}


static inline int map_addr(struct spgo_aggregate *a, uint32_t pid, unsigned cpumode,
			   uint64_t addr, uint64_t *vaddr)
{
	struct spgo_agg_impl *I = a->impl;
	if (cpumode == PERF_RECORD_MISC_KERNEL) /* (everyone's mappings: one cache key) */
		pid = UINT32_MAX;
	if (SPGO_LIKELY(I->c_valid && pid == I->c_pid && addr - I->c_lo < I->c_len &&
			 I->c_mode == (cpumode == PERF_RECORD_MISC_KERNEL))) {
		if (!I->c_in)
			return -1;
		*vaddr = addr + I->c_delta;
		return 0;
	}
	int64_t dso;
	return agg_map_slow(a, pid, cpumode, addr, vaddr, &dso);
}

int spgo_agg_map(struct spgo_aggregate *a, uint32_t pid, unsigned cpumode, uint64_t addr,
		 uint64_t *vaddr)
{
	return map_addr(a, pid, cpumode, addr, vaddr);
}

uint64_t spgo_agg_map_epoch(const struct spgo_aggregate *a) { return a->impl->map_epoch; }

static struct spgo_agg_event *event_at(struct spgo_aggregate *a, size_t i,
				       const struct spgo_perf_attr *attr)
{
	while (a->events.n <= i) {
		struct spgo_agg_event e = {0};
		const struct spgo_perf_attr *at =
			a->impl->reader ? spgo_perf_attr(a->impl->reader, a->events.n) : NULL;
		if (!at && attr && attr->index == a->events.n)
			at = attr; /* text: the event column named it */
		e.name = at && at->name ? xstrdup(at->name) : xasprintf("event %zu", a->events.n);
		spgo_kmap_init(&e.ips, 1);
		VEC_PUSH(&a->events, e);
	}
	return &a->events.v[i];
}

void spgo_agg_keep_stacks(struct spgo_aggregate *a, int keep) { a->impl->no_stacks = !keep; }
void spgo_agg_keep_stack_branches(struct spgo_aggregate *a, int keep) { a->impl->no_stack_lbr = !keep; }

void spgo_agg_keep_ranges(struct spgo_aggregate *a, int keep)
{
	agg_lbr_flush(a); /* (what was counted under the setting before) */
	a->impl->no_lbr_maps = !keep;
}

void spgo_agg_sample_period(struct spgo_aggregate *a, uint64_t period) { a->impl->period = period; }

void spgo_pid_census_add(struct spgo_pid_census *c, uint32_t pid)
{
	c->samples++;
	for (size_t i = 0; i < c->n; i++)
		if (c->pid[i].pid == pid) {
			c->pid[i].samples++;
			return;
		}
	if (c->n < SPGO_PID_CENSUS_KEPT) {
		c->pid[c->n].pid = pid;
		c->pid[c->n++].samples = 1;
	} else {
		c->others++;
	}
}

int spgo_pid_census_check(const struct spgo_pid_census *c, const char *path, int have_pid, uint32_t pid)
{
	if (!c->samples)
		return spgo_error("%s: the capture has no samples at all (the program ran too briefly "
				  "for the sampling period, or the event never counted): record again, "
				  "longer or at a higher rate", path);
	if (!have_pid || c->n == 0 || c->others) /* (pid may be among those not kept) */
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->pid[i].pid == pid)
			return 0;
	char list[SPGO_PID_CENSUS_KEPT * 32] = "";
	size_t len = 0;
	for (size_t i = 0; i < c->n && len < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%u (%llu samples)", i ? ", " : "",
					c->pid[i].pid, (unsigned long long)c->pid[i].samples);
	return spgo_error("%s: no sample of pid %u; the samples are of pid %s", path, pid, list);
}

void spgo_agg_drop_proepi_leaves(struct spgo_aggregate *a, const uint64_t *addrs, size_t n)
{
	a->impl->proepi = addrs;
	a->impl->nproepi = n;
}

/* 1 if the leaf frame of s's call stack is a prologue or epilogue
 * instruction of the binary (spgo_agg_drop_proepi_leaves).  text: its
 * frames are file offsets (perf script text). */
static int leaf_in_proepi(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int text)
{
	struct spgo_agg_impl *I = a->impl;
	unsigned mode = PERF_RECORD_MISC_USER;
	uint64_t v;
	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t ip = s->callchain[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) { /* a context marker */
			mode = ip == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
			     : ip == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER : mode;
			continue;
		}
		int ok = text ? spgo_perf_addr_cpumode(ip) == PERF_RECORD_MISC_USER &&
					spgo_segments_map(I->segs, I->nsegs, 0, 0, ip, &v) == 0
			      : map_addr(a, pid, mode, ip, &v) == 0;
		if (!ok) /* an external leaf: kept */
			return 0;
		size_t lo = 0, hi = I->nproepi;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (I->proepi[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < I->nproepi && I->proepi[lo] == v;
	}
	return 0;
}

/*
 * A sample's weight under --sample-period (llvm-profgen's rule): its count
 * times the period, divided (rounding down) by its LBR entries that touch
 * the binary less one when there are two or more.  entries: that number
 * (0 for an IP sample).  Saturates rather than wraps.
 */
uint64_t agg_period_weight(uint64_t times, uint64_t period, uint64_t entries)
{
	uint64_t w = times > UINT64_MAX / period ? UINT64_MAX : times * period;
	return entries > 1 ? w / (entries - 1) : w;
}

/* For agg_spe.c: a branch and a range counted w times (not with
 * spgo_agg_keep_ranges(agg, 0)), and the function-part check. */
void agg_count_branch(struct spgo_aggregate *a, uint64_t from, uint64_t to, uint64_t w)
{
	if (!a->impl->no_lbr_maps)
		ctab_add(&a->impl->branches, from, to, w);
}
void agg_count_range(struct spgo_aggregate *a, uint64_t begin, uint64_t end, uint64_t w)
{
	if (!a->impl->no_lbr_maps)
		ctab_add(&a->impl->ranges, begin, end, w);
}
int agg_same_function(struct spgo_aggregate *a, uint64_t begin, uint64_t end);

void spgo_agg_set_functions(struct spgo_aggregate *a, const struct spgo_function *fns, size_t n)
{
	agg_lbr_flush(a); /* (its ranges were pending, checked against the functions before) */
	a->impl->fns = fns;
	a->impl->nfns = n;
	a->impl->f_lo = a->impl->f_hi = 0;
}

/* Do begin and end lie in the same function part?  (Yes if unknown.) */
static inline int same_function(struct spgo_agg_impl *I, uint64_t begin, uint64_t end)
{
	if (!I->fns)
		return 1;
	if (begin - I->f_lo >= I->f_hi - I->f_lo) {
		size_t lo = 0, hi = I->nfns;
		while (lo < hi) { /* last part starting at or before begin */
			size_t mid = lo + (hi - lo) / 2;
			if (I->fns[mid].start <= begin)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || begin >= I->fns[lo - 1].end)
			return 0; /* begin is in no function */
		I->f_lo = I->fns[lo - 1].start;
		I->f_hi = I->fns[lo - 1].end;
	}
	return end < I->f_hi;
}

int agg_same_function(struct spgo_aggregate *a, uint64_t begin, uint64_t end)
{
	return same_function(a->impl, begin, end);
}

void spgo_agg_select_event(struct spgo_aggregate *a, long index, const char *name)
{
	struct spgo_agg_impl *I = a->impl;
	free(I->sel_name);
	I->sel_name = name ? xstrdup(name) : NULL;
	I->sel_index = name ? -1 : index;
	I->sel_valid = 0;
}

int spgo_agg_event_taken(struct spgo_aggregate *a, const struct spgo_perf_attr *at)
{
	struct spgo_agg_impl *I = a->impl;
	if (I->sel_index < 0 && !I->sel_name)
		return 1;
	if (!I->sel_valid || at != I->sel_attr) {
		I->sel_attr = at;
		I->sel_valid = 1;
		if (I->sel_name)
			I->sel_ok = at && at->name && !strcmp(at->name, I->sel_name);
		else
			I->sel_ok = (long)(at ? at->index : 0) == I->sel_index;
	}
	return I->sel_ok;
}

/* Note the event of a sample (for spgo_agg_events_seen); is it selected? */
static int event_selected(struct spgo_aggregate *a, const struct spgo_perf_attr *at)
{
	struct spgo_agg_impl *I = a->impl;
	if (at != I->seen_last || !I->seen.n) {
		I->seen_last = at;
		char *item = at && at->name ? xasprintf("%zu %s", at->index, at->name)
					    : xasprintf("%zu (unnamed)", at ? at->index : (size_t)0);
		size_t i = 0;
		while (i < I->seen.n && strcmp(I->seen.v[i], item))
			i++;
		if (i < I->seen.n)
			free(item);
		else
			VEC_PUSH(&I->seen, item);
	}
	return spgo_agg_event_taken(a, at);
}

char *spgo_agg_events_seen(const struct spgo_aggregate *a)
{
	const struct spgo_agg_impl *I = a->impl;
	VEC(char) out = {0};
	for (size_t i = 0; i < I->seen.n; i++) {
		const char *sp = strchr(I->seen.v[i], ' ');
		char *item = xasprintf("%s%s (index %.*s)", i ? ", " : "", sp + 1,
				       (int)(sp - I->seen.v[i]), I->seen.v[i]);
		for (char *c = item; *c; c++)
			VEC_PUSH(&out, *c);
		free(item);
	}
	VEC_PUSH(&out, '\0');
	return out.v;
}

int spgo_agg_check_event(const struct spgo_aggregate *a, const char *path)
{
	const struct spgo_agg_impl *I = a->impl;
	if ((I->sel_index < 0 && !I->sel_name) || a->stats.samples || !a->stats.samples_other_event)
		return 0;
	char *seen = spgo_agg_events_seen(a);
	char idx[32];
	snprintf(idx, sizeof idx, "number %ld", I->sel_index);
	spgo_error("%s: no samples of event %s%s%s; the data has: %s", path, I->sel_name ? "'" : "",
		   I->sel_name ? I->sel_name : idx, I->sel_name ? "'" : "", seen);
	free(seen);
	return -1;
}

/*
 * The process of a text sample without a pid: the only process the mmap
 * events name, else the only one that maps the binary; SPGO_AGG_NO_PID
 * when that is not one (worked out again after each mmap event).
 */
#define SPGO_AGG_NO_PID UINT32_MAX
static uint32_t pid_of_pidless(struct spgo_aggregate *a)
{
	struct spgo_agg_impl *I = a->impl;
	if (I->nopid_state)
		return I->nopid_state == 1 ? I->nopid_pid : SPGO_AGG_NO_PID;
	size_t np = spgo_perf_machine_nprocs(I->machine), nd;
	uint32_t pid = 0, found = 0;
	for (size_t i = 0; i < np; i++) {
		size_t nm;
		uint32_t p;
		const struct spgo_perf_map *m = spgo_perf_machine_proc(I->machine, i, &p, &nm);
		int ours = np == 1;
		for (size_t k = 0; k < nm && !ours; k++)
			ours = agg_verdict(a, &spgo_perf_machine_dsos(I->machine, &nd)[m[k].dso]) ==
			       VERDICT_YES;
		if (ours) {
			pid = p;
			found++;
		}
	}
	I->nopid_state = found == 1 ? 1 : 2;
	I->nopid_pid = pid;
	return found == 1 ? pid : SPGO_AGG_NO_PID;
}

/*
 * Stack lines of perf script text hold one of two things: perf prints a
 * user frame as the offset in its file; llvm-profgen's input (and `spgo
 * script --raw-stacks`) has runtime addresses, as perf.data does.  The
 * text does not say which, so the first sample that tells decides for the
 * whole input:
 *  - with LBR, the leaf frame (the sampled ip) follows the target of the
 *    last branch taken: within 64 KiB of it as a runtime address, far from
 *    it as an offset (the two differ by the load address);
 *  - without, the leaf frame is a runtime address when it lands in the
 *    binary through the mmap events and not as an offset, and the reverse.
 * Until a sample tells, frames are taken as offsets (perf's own text).
 */
static int text_frames_absolute(struct spgo_aggregate *a, uint32_t pid,
				const struct spgo_perf_record *rec)
{
	struct spgo_agg_impl *I = a->impl;
	const struct spgo_perf_sample *s = &rec->sample;
	if (I->text_abs)
		return I->text_abs > 0;
	uint64_t leaf = 0, v;
	for (uint64_t i = 0; i < s->callchain_nr && !leaf; i++)
		if (s->callchain[i] < (uint64_t)PERF_CONTEXT_MAX && !(s->callchain[i] >> 63))
			leaf = s->callchain[i];
	int as_off = leaf && spgo_segments_map(I->segs, I->nsegs, 0, 0, leaf, &v) == 0, as_abs;
	if (s->branch_nr) {
		uint64_t to = s->branches[0].to;
		as_abs = leaf && (leaf - to < 0x10000 || to - leaf < 0x10000);
		as_off &= !as_abs;
	} else {
		as_abs = leaf && spgo_perf_machine_find(I->machine, pid, PERF_RECORD_MISC_USER, leaf) &&
			 map_addr(a, pid, PERF_RECORD_MISC_USER, leaf, &v) == 0;
	}
	if (as_abs == as_off) { /* this one does not tell: offsets, counted */
		I->text_undecided += s->count ? s->count : 1;
		return 0;
	}
	I->text_abs = as_abs ? 1 : -1;
	I->text_abs_line = rec->offset;
	return as_abs;
}

int spgo_agg_text_frames(const struct spgo_aggregate *a, uint64_t *line, uint64_t *before)
{
	*line = a->impl->text_abs_line;
	*before = a->impl->text_undecided;
	return a->impl->text_abs;
}

/* The sample's ip counted per event (v, the binary's address, when ip_ok),
 * or, outside the binary, on the file it fell in. */
static void feed_ip(struct spgo_aggregate *a, const struct spgo_perf_record *rec, uint32_t pid, int ip_ok,
		    uint64_t v, int weigh, uint64_t times)
{
	struct spgo_agg_impl *I = a->impl;
	const struct spgo_perf_sample *s = &rec->sample;
	if (ip_ok) {
		size_t ei = rec->attr ? rec->attr->index : 0;
		struct spgo_agg_event *e = event_at(a, ei, rec->attr);
		a->stats.samples_matched += times;
		e->samples += times;
		e->period += s->period * times;
		ctab_add(&I->ips, v, ei, weigh ? agg_period_weight(times, I->period, 0) : times);
	} else {
		int64_t dso;
		a->stats.samples_unmatched += times;
		I->c_valid = 0;
		agg_map_slow(a, pid, s->cpumode, s->ip, &v, &dso);
		if (dso < 0) {
			a->stats.samples_unmapped += times;
		} else {
			size_t nd;
			spgo_perf_machine_dsos(I->machine, &nd)[dso].samples += times;
		}
	}
}

/* LBR: branches and the ranges between them, mapped into I->mf (from,
 * to per entry; agg_lbr.c); the entries kept for the stack (0 when the
 * sample is dropped for a leaf in a prologue or epilogue). */
static uint64_t feed_lbr(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int text,
			 int ip_ok, int weigh, uint64_t times, uint64_t branches_before)
{
	uint64_t n = s->branch_nr;
	if (!n)
		return 0;
	a->stats.lbr_samples += times;
	if (a->impl->proepi && s->callchain_nr && leaf_in_proepi(a, s, pid, text)) {
		a->stats.lbr_leaf_proepi += times;
		agg_lbr_sink_feed(a, s, pid, times);
		return 0;
	}
	a->stats.lbr_single += n == 1 ? times : 0;
	n = agg_lbr_feed(a, s, pid, weigh, times);
	if (!ip_ok && a->stats.branches != branches_before)
		a->stats.samples_unmatched_lbr += times;
	return n;
}

/* The call stack with its LBR (the n entries in I->mf). */
static void feed_stack(struct spgo_aggregate *a, const struct spgo_perf_sample *s, uint32_t pid, int text,
		       uint64_t n, uint64_t times, uint64_t branches_before)
{
	struct spgo_agg_impl *I = a->impl;
	uint64_t v;
	if (s->callchain_nr && !I->no_stacks) {
		unsigned mode = PERF_RECORD_MISC_USER;
		int inside = 0;
		I->scratch.n = 0;
		uint32_t nf = 0;
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			uint64_t ip = s->callchain[i];
			if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
				if (ip == (uint64_t)PERF_CONTEXT_KERNEL) {
					mode = PERF_RECORD_MISC_KERNEL;
				} else if (ip == (uint64_t)PERF_CONTEXT_USER) {
					mode = PERF_RECORD_MISC_USER;
				} else if (ip == (uint64_t)PERF_CONTEXT_HV) {
					mode = PERF_RECORD_MISC_HYPERVISOR;
				} else { /* a corrupt stack, as perf sees it: drop it */
					inside = 0;
					break;
				}
				continue;
			}
			int ok;
			if (text) /* perf prints file offsets there */
				ok = spgo_perf_addr_cpumode(ip) == PERF_RECORD_MISC_USER &&
				     spgo_segments_map(I->segs, I->nsegs, 0, 0, ip, &v) == 0;
			else
				ok = map_addr(a, pid, mode, ip, &v) == 0;
			if (!ok) {
				if (nf && I->scratch.v[nf - 1] == SPGO_AGG_EXTERNAL)
					continue;
				v = SPGO_AGG_EXTERNAL;
			} else {
				inside = 1;
			}
			VEC_PUSH(&I->scratch, v);
			nf++;
		}
		/* No frame inside (a library leaf whose frame chain broke
		 * before the binary): its LBR still says where the binary ran,
		 * unwound from an external root. */
		if (I->no_stack_lbr) /* (IP mode: the stack alone, as --call-graph fp gives it) */
			n = 0;
		if (inside || (n && a->stats.branches != branches_before)) {
			VEC_GROW(&I->scratch, nf + 2 * n);
			if (n)
				memcpy(I->scratch.v + nf, I->mf.v, 2 * n * 8);
			I->scratch.n = nf + 2 * n;
			agg_put_stack(I, nf, (uint32_t)n, times);
			a->stats.stack_samples += times;
		}
	}
}

static void feed_sample(struct spgo_aggregate *a, const struct spgo_perf_record *rec)
{
	struct spgo_agg_impl *I = a->impl;
	const struct spgo_perf_sample *s = &rec->sample;
	uint32_t pid = s->pid;
	uint64_t v = 0, times = s->count ? s->count : 1;
	if (!event_selected(a, rec->attr)) {
		a->stats.samples_other_event += times; /* (the sink's too: not counted) */
		return;
	}
	a->stats.samples += times;
	if (s->cpumode == PERF_RECORD_MISC_KERNEL)
		a->stats.samples_kernel += times;
	if (rec->attr && rec->attr->attr.exclude_kernel)
		I->excl_kernel = 1;
	else if (rec->attr)
		I->incl_kernel = 1;
	if (rec->attr && rec->attr->attr.exclude_user)
		I->excl_user = 1;
	else
		I->incl_user = 1;
	/* perf script text without the pid field: place it (see above); with
	 * no process to take, the addresses are the binary's own (agg_map_slow) */
	if (I->text && !(s->sample_type & PERF_SAMPLE_TID) && spgo_perf_machine_nprocs(I->machine) &&
	    I->space == SPGO_AGG_SPACE_USER) { /* (the kernel's mappings are everyone's) */
		pid = pid_of_pidless(a);
		if (pid == SPGO_AGG_NO_PID) {
			I->nopid_ambiguous += times;
			pid = 0;
		}
	}

	/* The ip, per event.  In perf script text with call stacks the ip is
	 * the first stack line, an offset in its file (see spgo/perf.h). */
	int text = (s->sample_type & SPGO_PERF_SAMPLE_TEXT_FRAMES) != 0 &&
		   !text_frames_absolute(a, pid, rec);
	int ip_ok = text ? spgo_perf_addr_cpumode(s->ip) == PERF_RECORD_MISC_USER &&
				   spgo_segments_map(I->segs, I->nsegs, 0, 0, s->ip, &v) == 0
			 : map_addr(a, pid, s->cpumode, s->ip, &v) == 0;
	/* --sample-period: not for perf script's hybrid samples (llvm-profgen
	 * reads those apart and does not weight them) */
	int weigh = I->period && !(I->text && s->callchain_nr);
	feed_ip(a, rec, pid, ip_ok, v, weigh, times);
	uint64_t branches_before = a->stats.branches;
	uint64_t n = 0;
	if ((s->sample_type & SPGO_PERF_SAMPLE_SPE) || (I->spe_text && s->branch_nr)) {
		agg_feed_spe(a, s, pid, ip_ok, times);
		agg_lbr_sink_feed(a, s, pid, times); /* (the sink takes it as LBR) */
	} else
		n = feed_lbr(a, s, pid, text, ip_ok, weigh, times, branches_before);
	feed_stack(a, s, pid, text, n, times, branches_before);
}

int spgo_agg_begin(struct spgo_aggregate *a, struct spgo_perf_reader *r)
{
	/* Samples of another architecture cannot be this binary's: an
	 * aarch64 capture given an x86-64 binary (or the reverse) maps
	 * nothing, or worse, by chance. */
	uint64_t off;
	const char *arch = spgo_perf_arch(r, &off), *want = spgo_binary_perf_arch(a->bin);
	if (arch && want && strcmp(arch, want) != 0)
		return spgo_error("%s: offset 0x%llx: recorded on %s (HEADER_ARCH), but %s is an %s binary "
				  "(runs on %s): its samples cannot be this binary's",
				  spgo_perf_path(r), (unsigned long long)off, arch, spgo_binary_path(a->bin),
				  spgo_binary_machine_name(a->bin), want);
	a->impl->reader = r;
	/* spgo emulate records its own command line (cmd_emulate.c) */
	const char *cmdline = spgo_perf_cmdline(r);
	if (cmdline && !strncmp(cmdline, "spgo emulate", 12))
		a->stats.emulated = 1;
	size_t n;
	const struct spgo_perf_build_id *ids = spgo_perf_build_ids(r, &n);
	spgo_perf_machine_build_ids(a->impl->machine, ids, n);
	a->impl->map_epoch++;
	return 0;
}

void spgo_agg_feed(struct spgo_aggregate *a, const struct spgo_perf_record *rec)
{
	struct spgo_agg_impl *I = a->impl;
	a->stats.records++;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		feed_sample(a, rec);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
		spgo_perf_machine_feed(I->machine, rec);
		I->c_valid = I->v_valid = 0;
		I->map_epoch++;
		I->nopid_state = 0;
		break;
	case PERF_RECORD_LOST:
		a->stats.lost += rec->u.lost.lost;
		break;
	case SPGO_PERF_RECORD_HEADER_BUILD_ID:
		if (I->reader) {
			size_t n;
			const struct spgo_perf_build_id *ids = spgo_perf_build_ids(I->reader, &n);
			spgo_perf_machine_build_ids(I->machine, ids, n);
			I->map_epoch++;
		}
		break;
	default:
		break;
	}
}

void spgo_agg_finish(struct spgo_aggregate *a)
{
	struct spgo_agg_impl *I = a->impl;
	agg_lbr_flush(a);
	struct ctab *t[3] = {&I->ranges, &I->branches, &I->ips};
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < t[k]->cap; i++) {
			uint64_t *r = t[k]->rows + 3 * i;
			if (!r[2])
				continue;
			if (k == 0)
				*spgo_kmap_upsert(&a->ranges, r) += r[2];
			else if (k == 1)
				*spgo_kmap_upsert(&a->branches, r) += r[2];
			else
				*spgo_kmap_upsert(&event_at(a, (size_t)r[1], NULL)->ips, r) += r[2];
			r[0] = r[1] = r[2] = 0;
		}
		t[k]->n = 0;
	}
}

int spgo_agg_read_perf(struct spgo_aggregate *a, const char *path)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	if (spgo_agg_begin(a, r) < 0) {
		spgo_perf_close(r);
		return -1;
	}
	struct spgo_perf_record rec;
	int rc;
	while ((rc = spgo_perf_next(r, &rec)) > 0)
		spgo_agg_feed(a, &rec);
	a->stats.bytes += spgo_perf_bytes_read(r);
	spgo_agg_finish(a);
	a->impl->reader = NULL;
	spgo_perf_close(r);
	return rc < 0 ? -1 : 0;
}

void spgo_agg_filter_build_id(struct spgo_aggregate *a, const char *hex_id)
{
	free(a->impl->filter_id);
	a->impl->filter_id = xstrdup(hex_id);
}

int spgo_agg_read_text(struct spgo_aggregate *a, const char *path)
{
	struct spgo_perf_text *t;
	if (spgo_perf_text_open(&t, path) < 0)
		return -1;
	char own[129] = "";
	if (a->impl->build_id_len && a->impl->build_id_len <= 64)
		spgo_build_id_hex(a->impl->build_id, a->impl->build_id_len, own);
	spgo_perf_text_build_id(t, a->impl->filter_id ? a->impl->filter_id : own);
	a->impl->text = 1;
	struct spgo_perf_record rec;
	int rc;
	while ((rc = spgo_perf_text_next(t, &rec)) > 0) {
		a->stats.bytes += rec.size;
		spgo_agg_feed(a, &rec);
	}
	spgo_perf_text_close(t);
	spgo_agg_finish(a);
	/* (a mapping of the binary that matched later ended it: say so, not
	 * that none names it) */
	if (rc == 0 && a->impl->assumed && !a->impl->matches.n)
		spgo_warn("%s: no mmap event names %s and neither it nor '%s' (where %llu addresses "
			  "fell) has a build-id: they were taken as %s's own addresses, at its preferred "
			  "base, as llvm-profgen does; if %s is not the program recorded there, the "
			  "profile is wrong",
			  path, a->impl->base, a->impl->assumed_name,
			  (unsigned long long)a->impl->assumed, a->impl->base, a->impl->base);
	else if (rc == 0 && a->impl->assumed)
		spgo_warn("%s: %llu addresses fell in '%s' before a mapping of %s ('%s') was seen, and "
			  "neither file has a build-id: those were taken as %s's own addresses, at its "
			  "preferred base; if %s is not the program recorded there, they are wrong",
			  path, (unsigned long long)a->impl->assumed, a->impl->assumed_name, a->impl->base,
			  a->impl->matches.v[0].name, a->impl->base, a->impl->base);
	if (rc == 0 && a->impl->nopid_ambiguous)
		spgo_warn("%s: %llu samples without a pid could not be placed (several processes map "
			  "%s): print the pid too (perf script -F pid,ip,...)",
			  path, (unsigned long long)a->impl->nopid_ambiguous, a->impl->base);
	return rc < 0 ? -1 : 0;
}

int spgo_agg_check_matched(struct spgo_aggregate *a)
{
	/* (ranges alone are samples: an unsymbolized profile may hold no branch) */
	if (a->stats.samples_matched || a->stats.branches || a->stats.ranges)
		return 0;
	size_t nd;
	struct spgo_perf_dso *d = spgo_perf_machine_dsos(a->impl->machine, &nd);
	VEC(char) msg = {0};
	size_t shown = 0;
	for (size_t i = 0; i < nd && shown < 12; i++) {
		if (!d[i].samples)
			continue;
		char hexid[41] = "none";
		if (d[i].build_id_size)
			spgo_build_id_hex(d[i].build_id, d[i].build_id_size, hexid);
		char *item = xasprintf("%s%s (build-id %s): %llu samples", shown ? "; " : "",
				       d[i].name, hexid, (unsigned long long)d[i].samples);
		for (char *c = item; *c; c++)
			VEC_PUSH(&msg, *c);
		free(item);
		shown++;
	}
	VEC_PUSH(&msg, '\0');
	if (agg_kernel_unmatched(a, shown ? msg.v : "no samples in any known file") < 0) {
		VEC_FREE(&msg);
		return -2;
	}
	char own[41] = "none";
	if (a->impl->build_id_len)
		spgo_build_id_hex(a->impl->build_id, a->impl->build_id_len, own);
	spgo_error("%s (build-id %s): no sample falls in it; the data has %s%s",
		   spgo_binary_path(a->bin), own, shown ? "" : "no samples in any known file",
		   msg.v);
	VEC_FREE(&msg);
	return -1;
}
