/*
 * Which code in the data is the profiled binary's, and where it is in the
 * binary: see aggregate.c for the cache in front of this.
 *
 * A mapping of the data is the binary's by build-id when both have one,
 * else by file name (the verdict, kept on the dso).  An address in such a
 * mapping becomes the binary's own address through the segment that holds
 * its file offset; the interval where the same delta applies is cached
 * (spgo_agg_impl's c_* fields), with the previous interval kept as a
 * victim (v_*), so that code alternating between two mappings (a program
 * and its libc) stays on the fast path.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "aggregate_impl.h"

/*
 * Do the data's build-id (d, dn bytes) and the binary's (b, bn) name the
 * same file?  perf keeps build-ids in 20-byte fields and pads a shorter one
 * (lld's 8-byte --build-id=fast, Go's, many vendors') with zeros; its
 * build-id table may say 20 bytes for it, or the true size.  So the ids are
 * compared on the binary's own length: 1 if they agree there and the data
 * has nothing but zeros past it (or stops there), -1 if they agree there
 * but the data goes on with other bytes (or stops short of the binary's
 * length with only zeros missing: the name must decide), 0 if they differ.
 */
static int build_id_match(const uint8_t *d, size_t dn, const uint8_t *b, size_t bn)
{
	size_t n = dn < bn ? dn : bn;
	if (memcmp(d, b, n))
		return 0;
	if (dn == bn)
		return 1;
	const uint8_t *rest = dn > bn ? d + bn : b + dn;
	for (size_t i = 0, k = dn > bn ? dn - bn : bn - dn; i < k; i++)
		if (rest[i])
			return dn > bn ? -1 : 0;
	return dn > bn ? 1 : -1;
}

/* Is this dso the profiled binary?  Build-id when both have one, else name. */
int agg_verdict(struct spgo_aggregate *a, struct spgo_perf_dso *d)
{
	struct spgo_agg_impl *I = a->impl;
	uintptr_t v = (uintptr_t)d->user;
	if (v != VERDICT_UNKNOWN)
		return (int)v;
	const char *how = NULL;
	if (I->space != SPGO_AGG_SPACE_USER) { /* the kernel's code (kernel.c) */
		v = (uintptr_t)agg_kernel_verdict(a, d, &how);
	} else if (d->kernel || d->anon) {
		v = VERDICT_NO;
	} else if (d->build_id_size && I->build_id_len) {
		int m = build_id_match(d->build_id, d->build_id_size, I->build_id, I->build_id_len);
		v = m > 0 ? VERDICT_YES : VERDICT_NO;
		how = "build-id";
		if (m < 0) { /* the same id but for what follows it: the name decides */
			const char *slash = strrchr(d->name, '/');
			v = !strcmp(slash ? slash + 1 : d->name, I->base) ? VERDICT_YES : VERDICT_NO;
			how = "file name (build-ids differ only past the binary's own length)";
		}
	} else {
		const char *slash = strrchr(d->name, '/');
		v = !strcmp(slash ? slash + 1 : d->name, I->base) ? VERDICT_YES : VERDICT_NO;
		how = "file name";
	}
	d->user = (void *)v;
	if (v == VERDICT_YES) {
		struct spgo_agg_match m = {xstrdup(d->name), how};
		VEC_PUSH(&I->matches, m);
		spgo_info("%s: matched '%s' in the data by %s", spgo_binary_path(a->bin), d->name,
			  how);
	}
	return (int)v;
}

/* addr as the binary's own address, at its preferred base: in one of its
 * executable segments? */
static int in_own_segment(const struct spgo_agg_impl *I, uint64_t addr)
{
	for (size_t i = 0; i < I->nsegs; i++) {
		const struct spgo_segment *s = &I->segs[i];
		if ((s->flags & 1) && addr >= s->vaddr && addr < s->vaddr + s->filesz)
			return 1;
	}
	return 0;
}

/*
 * llvm-profgen, given perf script text whose mmap events never name the
 * binary, takes the addresses as the binary's own, at its preferred base.
 * So does spgo for an address in a mapping d that is not the binary by
 * file name alone (neither has a build-id) while no mapping of the data
 * has matched the binary so far: a --binary renamed since the recording.
 * Counted and warned about (spgo_agg_read_text); never cached, so a
 * mapping matched later ends it.
 */
static int own_by_default(struct spgo_agg_impl *I, const struct spgo_perf_dso *d, uint64_t addr)
{
	if (!I->text || I->matches.n || I->build_id_len || d->build_id_size || d->kernel ||
	    d->anon || !in_own_segment(I, addr))
		return 0;
	if (!I->assumed_name)
		I->assumed_name = xstrdup(d->name);
	I->assumed++;
	return 1;
}

/* Translate without the cache; fills the cache.  *dso = -1 if unmapped. */
int agg_map_slow(struct spgo_aggregate *a, uint32_t pid, unsigned cpumode, uint64_t addr,
		 uint64_t *vaddr, int64_t *dso)
{
	struct spgo_agg_impl *I = a->impl;
	*dso = -1;
	int kmode = cpumode == PERF_RECORD_MISC_KERNEL;
	if (kmode) /* (the kernel's mappings are every process's) */
		pid = UINT32_MAX;
	if (I->v_valid && pid == I->v_pid && addr - I->v_lo < I->v_len && I->v_mode == (uint32_t)kmode) {
		/* The previous entry: swap it back in. */
		int valid = I->c_valid, in = I->c_in;
		uint32_t cpid = I->c_pid, cdso = I->c_dso, cmode = I->c_mode;
		uint64_t lo = I->c_lo, len = I->c_len, delta = I->c_delta;
		I->c_valid = 1, I->c_in = I->v_in, I->c_pid = I->v_pid, I->c_dso = I->v_dso;
		I->c_mode = I->v_mode, I->c_lo = I->v_lo, I->c_len = I->v_len, I->c_delta = I->v_delta;
		I->v_valid = valid, I->v_in = in, I->v_pid = cpid, I->v_dso = cdso;
		I->v_mode = cmode, I->v_lo = lo, I->v_len = len, I->v_delta = delta;
		*dso = I->c_dso;
		if (!I->c_in)
			return -1;
		*vaddr = addr + I->c_delta;
		return 0;
	}
	if (I->c_valid) { /* (kept as the previous entry) */
		I->v_valid = 1, I->v_in = I->c_in, I->v_pid = I->c_pid, I->v_dso = I->c_dso;
		I->v_mode = I->c_mode, I->v_lo = I->c_lo, I->v_len = I->c_len, I->v_delta = I->c_delta;
	}
	const struct spgo_perf_map *m = spgo_perf_machine_find(I->machine, pid, cpumode, addr);
	if (!m) {
		/* perf script text without mmap events: take the addresses as
		 * the binary's own (the preferred base), as llvm-profgen does. */
		if (I->text && in_own_segment(I, addr)) {
			*vaddr = addr;
			return 0;
		}
		return -1;
	}
	size_t nd;
	struct spgo_perf_dso *d = &spgo_perf_machine_dsos(I->machine, &nd)[m->dso];
	*dso = m->dso;
	I->c_valid = 1;
	I->c_pid = pid;
	I->c_mode = cpumode == PERF_RECORD_MISC_KERNEL;
	I->c_dso = m->dso;
	if (I->space != SPGO_AGG_SPACE_USER) { /* kernel.c: the first executable segment */
		I->c_in = 0, I->c_lo = m->start, I->c_len = m->end - m->start;
		if (agg_verdict(a, d) == VERDICT_YES && agg_kernel_map(I, m, addr, vaddr) == 0)
			return 0;
		if (agg_verdict(a, d) == VERDICT_YES)
			I->c_valid = 0; /* (ours, between its segments: not cached) */
		return -1;
	}
	if (agg_verdict(a, d) != VERDICT_YES && own_by_default(I, d, addr)) {
		I->c_valid = 0;
		*vaddr = addr;
		return 0;
	}
	if (agg_verdict(a, d) != VERDICT_YES ||
	    spgo_segments_map(I->segs, I->nsegs, m->start, m->pgoff, addr, vaddr) < 0) {
		/* Cache "outside" for the whole mapping when it is not ours; for
		 * our mapping but no segment, do not cache. */
		if (agg_verdict(a, d) != VERDICT_YES) {
			I->c_in = 0;
			I->c_lo = m->start;
			I->c_len = m->end - m->start;
		} else {
			I->c_valid = 0;
		}
		return -1;
	}
	/* The interval where the same segment (same delta) applies. */
	uint64_t file_off = addr - m->start + m->pgoff;
	for (size_t i = 0; i < I->nsegs; i++) {
		const struct spgo_segment *s = &I->segs[i];
		if (!(s->flags & 1) || file_off < s->offset || file_off >= s->offset + s->filesz ||
		    *vaddr != file_off - s->offset + s->vaddr)
			continue;
		uint64_t lo = addr - (file_off - s->offset), hi = addr + (s->offset + s->filesz - file_off);
		if (lo < m->start)
			lo = m->start;
		if (hi > m->end)
			hi = m->end;
		I->c_in = 1;
		I->c_lo = lo;
		I->c_len = hi - lo;
		I->c_delta = *vaddr - addr;
		return 0;
	}
	I->c_valid = 0;
	return 0;
}
