/*
 * spgo gen --kernel (spgo/gen.h, struct spgo_gen_job's kernel and
 * modules): vmlinux's aggregate set to the kernel image, one aggregate per
 * module fed the same records, and their profiles merged into one, as the
 * kernel build reads one profile (CLANG_AUTOFDO_PROFILE) for vmlinux and
 * its modules alike.  The mapping rules are spgo_agg_space's
 * (src/aggregate/kernel.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "spgo/gen.h"
#include "spgo/profile.h"
#include "gen_impl.h"

void gen_kernel_free(const struct spgo_gen_job *j, struct spgo_aggregate **mods)
{
	for (size_t k = 0; mods && k < j->nmodules; k++)
		spgo_agg_free(mods[k]);
	free(mods);
}

/* --kernel: vmlinux in agg, an aggregate per module in *mods, with the
 * options the job sets on agg; its inputs checked. */
int gen_kernel_begin(struct spgo_gen_job *j, struct spgo_aggregate *agg, struct spgo_aggregate ***mods)
{
	*mods = NULL;
	if (!j->kernel)
		return 0;
	if (!j->perf_data && !(j->perf_script && !j->nmodules))
		return spgo_error("--kernel reads one perf.data (--perf-data) of a system-wide capture "
				  "(perf record -a), or its perf script text (--perf-script) for vmlinux "
				  "alone");
	spgo_agg_space(agg, SPGO_AGG_SPACE_KERNEL);
	struct spgo_aggregate **m = xcalloc(j->nmodules + 1, sizeof *m);
	for (size_t k = 0; k < j->nmodules; k++) {
		if (spgo_agg_new(&m[k], j->modules[k], NULL) < 0) {
			gen_kernel_free(j, m);
			return -1;
		}
		spgo_agg_space(m[k], SPGO_AGG_SPACE_MODULE);
		spgo_agg_keep_stacks(m[k], 0);
		if (j->opts.event_name || j->opts.event >= 0)
			spgo_agg_select_event(m[k], j->opts.event, j->opts.event_name);
		if (j->sample_period)
			spgo_agg_sample_period(m[k], j->sample_period);
	}
	*mods = m;
	return 0;
}

static int cmp_u64_pair(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* [lo, hi) pairs sorted and merged in place; their number of words. */
static size_t merge_pairs(uint64_t *v, size_t words)
{
	if (words > 2)
		qsort(v, words / 2, 2 * sizeof *v, cmp_u64_pair);
	size_t k = 0;
	for (size_t i = 0; i < words; i += 2) {
		if (k && v[i] <= v[k - 1]) {
			if (v[i + 1] > v[k - 1])
				v[k - 1] = v[i + 1];
			continue;
		}
		v[k++] = v[i];
		v[k++] = v[i + 1];
	}
	return k;
}

/*
 * A vmlinux has some six million instructions, of which a profile touches
 * a few thousand functions: decode those alone (spgo_binary_restrict_code),
 * every part of each function (foo and foo.cold alike: the profile lists
 * every instruction of a function it has) that a range, a branch end or a
 * sampled ip touches.  The profile is the same: nothing else is counted.
 * Not with --fill-zero-for-all-funcs, which writes every function.
 */
static void restrict_code(const struct spgo_gen_job *j, struct spgo_aggregate *a)
{
	if (j->opts.fill_zero)
		return;
	VEC(uint64_t) iv = {0};
	const uint64_t *k;
	uint64_t *v;
	for (size_t it = 0; spgo_kmap_next(&a->ranges, &it, &k, &v);) {
		VEC_PUSH(&iv, k[0]);
		VEC_PUSH(&iv, k[1] + 1);
	}
	for (size_t it = 0; spgo_kmap_next(&a->branches, &it, &k, &v);)
		for (int e = 0; e < 2; e++)
			if (k[e] != SPGO_AGG_EXTERNAL) {
				VEC_PUSH(&iv, k[e]);
				VEC_PUSH(&iv, k[e] + 1);
			}
	for (size_t i = 0; i < a->events.n; i++)
		for (size_t it = 0; spgo_kmap_next(&a->events.v[i].ips, &it, &k, &v);) {
			VEC_PUSH(&iv, k[0]);
			VEC_PUSH(&iv, k[0] + 1);
		}
	iv.n = merge_pairs(iv.v, iv.n);
	/* the names of the function parts they touch (a sweep: both sorted) */
	size_t nf;
	const struct spgo_function *f = spgo_binary_functions(a->bin, &nf);
	VEC(const char *) names = {0};
	for (size_t i = 0, r = 0; i < nf; i++) {
		while (r < iv.n && iv.v[r + 1] <= f[i].start)
			r += 2;
		if (r < iv.n && iv.v[r] < f[i].end && f[i].name)
			VEC_PUSH(&names, f[i].name);
	}
	if (names.n > 1)
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
	for (size_t i = 0; i < nf; i++)
		if (f[i].name && names.n && bsearch(&f[i].name, names.v, names.n, sizeof *names.v, cmp_str)) {
			VEC_PUSH(&iv, f[i].start);
			VEC_PUSH(&iv, f[i].end);
		}
	spgo_binary_restrict_code(a->bin, iv.v, iv.n / 2);
	VEC_FREE(&names);
	VEC_FREE(&iv);
}

/* Has the aggregate anything to make a profile of? */
static int agg_has_samples(const struct spgo_aggregate *a)
{
	return a->stats.samples_matched || a->stats.branches || a->stats.ranges;
}

/*
 * --kernel: vmlinux's profile and each module's with samples, merged into
 * one (the kernel build reads one profile for all its objects).  A module
 * without samples is left out (said); vmlinux without any, when modules
 * have some, too; nothing anywhere is vmlinux's error, which says why.
 */
int gen_kernel_profile(const struct spgo_gen_job *j, struct spgo_aggregate *agg, struct spgo_aggregate **mods,
	       struct spgo_profile **out, struct spgo_gen_stats *st)
{
	const struct spgo_agg_stats *s = &agg->stats;
	size_t used = 0;
	for (size_t k = 0; k < j->nmodules; k++)
		used += agg_has_samples(mods[k]) != 0;
	struct spgo_profile *p = NULL;
	restrict_code(j, agg);
	for (size_t k = 0; k < j->nmodules; k++)
		restrict_code(j, mods[k]);
	if (agg_has_samples(agg) || !used) {
		if (spgo_gen(agg, &j->opts, &p, st) < 0)
			return -1;
	} else {
		memset(st, 0, sizeof *st);
		p = spgo_profile_new();
		if (j->report)
			fprintf(j->report, "spgo: gen: --kernel: no sample in %s itself, only in modules\n",
				j->binary);
	}
	if (j->report)
		fprintf(j->report, "spgo: gen: --kernel: %llu of %llu samples in the kernel; %llu LBR "
				   "entries between user and kernel space (not made ranges: %llu ranges with an end "
				   "in each)\n",
			(unsigned long long)s->samples_kernel, (unsigned long long)s->samples,
			(unsigned long long)s->branches_user_kernel, (unsigned long long)s->ranges_user_kernel);
	for (size_t k = 0; k < j->nmodules; k++) {
		struct spgo_profile *pm = NULL;
		struct spgo_gen_stats ms;
		if (!agg_has_samples(mods[k])) {
			if (j->report)
				fprintf(j->report, "spgo: gen: --kernel: module %s: no sample in the capture, left "
						   "out\n", j->modules[k]);
			continue;
		}
		if (spgo_gen(mods[k], &j->opts, &pm, &ms) < 0) {
			char *why = xstrdup(spgo_errmsg());
			spgo_error("module %s: %s", j->modules[k], why);
			free(why);
			spgo_profile_free(p);
			return -1;
		}
		if (j->report)
			fprintf(j->report, "spgo: gen: --kernel: module %s: %llu samples, %llu ranges (count "
					   "%llu), %llu functions\n", j->modules[k],
				(unsigned long long)mods[k]->stats.samples_matched, (unsigned long long)ms.ranges,
				(unsigned long long)ms.range_count, (unsigned long long)ms.functions);
		st->count_debug += ms.count_debug;
		spgo_profile_merge(p, pm, 1);
		spgo_profile_free(pm);
	}
	if (used)
		spgo_profile_finalize(p, 0);
	*out = p;
	return 0;
}

