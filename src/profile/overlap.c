/*
 * Profile overlap, the measures of llvm-profdata overlap --sample: for
 * functions matched by name (or context), a function-internal similarity
 * over the body keys (offset, discriminator) or probes, inlinees matched by
 * (location, callee) recursively; a function similarity weighted by how
 * much the function's share of samples differs; the program similarity as
 * the sum of function similarities weighted by the average share.  Hot
 * functions and blocks use each profile's 99% (990000) summary threshold.
 *
 * Sums of counts are taken in 128 bits (wsum): a profile's counts may each
 * be near 2^64 (merge saturates each count, not their sums), and a wrapped
 * sum gave similarities like -2.4e18%.  The figures are ratios of the exact
 * sums; the totals reported in struct spgo_overlap saturate at UINT64_MAX.
 */
#include "spgo/profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 wsum; /* a sum of uint64_t counts: cannot wrap */

/* A sum as the public struct holds it: saturated. */
static uint64_t sat64(wsum v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* a / b, 0 when b is 0. */
static double ratio(wsum a, wsum b)
{
	return b ? (double)a / (double)b : 0.0;
}

struct fstats {
	wsum sum;
	uint64_t max, hot;
};

struct fo { /* per-function accumulators */
	wsum base_sample, test_sample, overlap_sample, union_sample;
	wsum base_unique, test_unique;
	wsum base_zero, test_zero; /* samples on locations the other has at 0 */
};

struct ov {
	const struct spgo_profile *b, *t;
	uint64_t bhot, thot;
	struct spgo_overlap *o;
	uint32_t *buf[4][128];
	size_t cap[4][128];
	/* Per top-level function of each profile, and the totals. */
	struct fstats *bs, *ts;
	wsum base_total, test_total;
	uint32_t *matched; /* base top index -> test index + 1, or 0 */
	VEC(struct spgo_overlap_func) fl;
	/* Program-level sums over the functions. */
	wsum overlap_sample, union_sample, base_unique_s, test_unique_s;
	wsum base_zero_s, test_zero_s;
	double sim;
	uint64_t union_count;
};

/* Similarities this close to 0 or 1 are taken as such (llvm-profdata's). */
static const double eps = 0.000005;

static void func_stats(const struct spgo_profile *p, uint32_t f, uint64_t hot, struct fstats *s)
{
	for (uint32_t b = p->funcs.v[f].bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		uint64_t c = p->bodies.v[b].count;
		s->sum += c;
		if (c > s->max)
			s->max = c;
		if (c >= hot)
			s->hot++;
	}
	for (uint32_t c = p->funcs.v[f].children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		func_stats(p, c, hot, s);
}

static uint64_t hot_threshold(const struct spgo_summary *s)
{
	return spgo_summary_min_count(s, 990000, 0);
}

static void hot_block(struct ov *v, wsum bs, wsum ts, uint64_t n)
{
	int bh = bs >= v->bhot, th = ts >= v->thot;
	if (!bh && !th)
		return;
	v->o->hot_block_union += n;
	if (bh)
		v->o->hot_block_base += n;
	if (th)
		v->o->hot_block_test += n;
	if (bh && th)
		v->o->hot_block_overlap += n;
}

static double block_sim(wsum bs, wsum ts, const struct fo *f)
{
	double bf = f->base_sample ? (double)bs / (double)f->base_sample : 0.0;
	double tf = f->test_sample ? (double)ts / (double)f->test_sample : 0.0;
	return 1.0 - fabs(bf - tf);
}

/* status: 0 match, 1 base only, 2 test only */
static void update(struct ov *v, wsum bs, wsum ts, uint64_t hotn, struct fo *f,
		   double *diff, int status)
{
	if (status == 1) {
		ts = 0;
		f->base_unique += bs;
	} else if (status == 2) {
		bs = 0;
		f->test_unique += ts;
	}
	if (!ts)
		f->base_zero += bs;
	if (!bs)
		f->test_zero += ts;
	f->union_sample += bs > ts ? bs : ts;
	f->overlap_sample += bs < ts ? bs : ts;
	*diff += 1.0 - block_sim(bs, ts, f);
	hot_block(v, bs, ts, hotn);
}

static void unmatched(struct ov *v, const struct spgo_profile *p, uint32_t fn, struct fo *f,
		      double *diff, int status)
{
	struct fstats s = {0, 0, 0};
	func_stats(p, fn, status == 1 ? v->bhot : v->thot, &s);
	if (status == 1)
		update(v, s.sum, 0, s.hot, f, diff, 1);
	else
		update(v, 0, s.sum, s.hot, f, diff, 2);
}

static int cmp_loc(uint32_t l1, uint32_t d1, uint32_t l2, uint32_t d2)
{
	if (l1 != l2)
		return l1 < l2 ? -1 : 1;
	return d1 < d2 ? -1 : d1 > d2;
}

static double internal(struct ov *v, uint32_t bf, uint32_t tf, struct fo *f, int depth)
{
	const struct spgo_profile *B = v->b, *T = v->t;
	unsigned d = depth < 127 ? (unsigned)depth : 127;
	double diff = 0;
	size_t nb = spgo_func_bodies(B, bf, &v->buf[0][d], &v->cap[0][d]);
	size_t nt = spgo_func_bodies(T, tf, &v->buf[1][d], &v->cap[1][d]);
	size_t i = 0, j = 0;
	while (i < nb || j < nt) {
		const struct spgo_body *x = i < nb ? &B->bodies.v[v->buf[0][d][i]] : NULL;
		const struct spgo_body *y = j < nt ? &T->bodies.v[v->buf[1][d][j]] : NULL;
		int c = !x ? 1 : !y ? -1 : cmp_loc(x->line, x->disc, y->line, y->disc);
		if (c < 0) {
			update(v, x->count, 0, 1, f, &diff, 1);
			i++;
		} else if (c > 0) {
			update(v, 0, y->count, 1, f, &diff, 2);
			j++;
		} else {
			update(v, x->count, y->count, 1, f, &diff, 0);
			i++, j++;
		}
	}
	nb = spgo_func_children(B, bf, &v->buf[2][d], &v->cap[2][d]);
	nt = spgo_func_children(T, tf, &v->buf[3][d], &v->cap[3][d]);
	uint32_t *bk = xmalloc((nb + 1) * sizeof *bk), *tk = xmalloc((nt + 1) * sizeof *tk);
	if (nb)
		memcpy(bk, v->buf[2][d], nb * sizeof *bk);
	if (nt)
		memcpy(tk, v->buf[3][d], nt * sizeof *tk);
	i = j = 0;
	while (i < nb || j < nt) {
		const struct spgo_func *x = i < nb ? &B->funcs.v[bk[i]] : NULL;
		const struct spgo_func *y = j < nt ? &T->funcs.v[tk[j]] : NULL;
		int c = !x ? 1 : !y ? -1 : cmp_loc(x->line, x->disc, y->line, y->disc);
		if (c == 0)
			c = strcmp(spgo_name(B, x->name), spgo_name(T, y->name));
		if (c < 0) {
			unmatched(v, B, bk[i++], f, &diff, 1);
		} else if (c > 0) {
			unmatched(v, T, tk[j++], f, &diff, 2);
		} else {
			diff += 2.0 - 2 * internal(v, bk[i], tk[j], f, depth + 1);
			i++, j++;
		}
	}
	free(bk);
	free(tk);
	return (2.0 - diff) / 2;
}

/* The statistics of p's top-level functions into s: their sum. */
static wsum profile_stats(const struct spgo_profile *p, uint64_t hot, struct fstats *s)
{
	wsum total = 0;
	for (size_t i = 0; i < p->top.n; i++) {
		func_stats(p, p->top.v[i], hot, &s[i]);
		total += s[i].sum;
	}
	return total;
}

/* The base function of key k (idx: its hash -> base top index + 1), or
 * SIZE_MAX. */
static size_t base_index(const struct ov *v, const struct spgo_kmap *idx, const char *k)
{
	const struct spgo_profile *base = v->b;
	uint64_t h = spgo_hash_bytes(k, strlen(k));
	uint64_t *slot = spgo_kmap_find(idx, &h);
	if (slot && strcmp(spgo_func_key(base, base->top.v[*slot - 1]), k) == 0)
		return *slot - 1;
	if (slot) /* collisions resolved by scanning */
		for (size_t i = 0; i < base->top.n; i++)
			if (strcmp(spgo_func_key(base, base->top.v[i]), k) == 0)
				return i;
	return SIZE_MAX;
}

/* Test function j, with no base function to match. */
static void add_test_only(struct ov *v, size_t j, double tw)
{
	const struct fstats *ts = &v->ts[j];
	v->o->test_unique_funcs++;
	v->test_unique_s += ts->sum;
	v->test_zero_s += ts->sum;
	hot_block(v, 0, ts->sum, ts->hot);
	v->union_count++;
	v->union_sample += ts->sum;
	struct spgo_overlap_func of = {
		.base_func = SPGO_NONE, .test_func = v->t->top.v[j], .test_weight = tw,
		.test_sample = sat64(ts->sum), .union_sample = sat64(ts->sum),
		.test_unique = sat64(ts->sum), .test_unique_frac = ratio(ts->sum, ts->sum),
		.test_zero_frac = ratio(ts->sum, ts->sum),
	};
	VEC_PUSH(&v->fl, of);
}

/* Base function bi matched with test function j. */
static void add_matched(struct ov *v, size_t bi, size_t j, double tw)
{
	const struct spgo_profile *base = v->b, *test = v->t;
	v->o->overlap_funcs++;
	v->matched[bi] = (uint32_t)j + 1;
	struct fo f = {0};
	f.base_sample = v->bs[bi].sum;
	f.test_sample = v->ts[j].sum;
	double fis = internal(v, base->top.v[bi], test->top.v[j], &f, 0);
	if (fabs(fis) < eps)
		fis = 0;
	double bw = (double)f.base_sample / (double)v->base_total;
	double fs = fis * (1 - fabs(bw - tw));
	v->sim += fs * (bw / 2.0 + tw / 2.0);
	v->overlap_sample += f.overlap_sample;
	v->union_sample += f.union_sample;
	v->base_unique_s += f.base_unique;
	v->test_unique_s += f.test_unique;
	v->base_zero_s += f.base_zero;
	v->test_zero_s += f.test_zero;
	struct spgo_overlap_func of = {
		.base_func = base->top.v[bi], .test_func = test->top.v[j],
		.similarity = fs, .base_weight = bw, .test_weight = tw,
		.base_sample = sat64(f.base_sample), .test_sample = sat64(f.test_sample),
		.overlap_sample = sat64(f.overlap_sample), .union_sample = sat64(f.union_sample),
		.base_unique = sat64(f.base_unique), .test_unique = sat64(f.test_unique),
		.overlap_frac = ratio(f.overlap_sample, f.union_sample),
		.base_unique_frac = ratio(f.base_unique, f.base_sample),
		.test_unique_frac = ratio(f.test_unique, f.test_sample),
		.base_zero_frac = ratio(f.base_zero, f.base_sample),
		.test_zero_frac = ratio(f.test_zero, f.test_sample),
	};
	VEC_PUSH(&v->fl, of);
}

/* Base function i, matched by no test function. */
static void add_base_only(struct ov *v, size_t i)
{
	const struct fstats *bs = &v->bs[i];
	v->o->base_unique_funcs++;
	v->base_unique_s += bs->sum;
	v->base_zero_s += bs->sum;
	hot_block(v, bs->sum, 0, bs->hot);
	v->union_sample += bs->sum;
	struct spgo_overlap_func of = {
		.base_func = v->b->top.v[i], .test_func = SPGO_NONE,
		.base_weight = (double)bs->sum / (double)v->base_total,
		.base_sample = sat64(bs->sum), .union_sample = sat64(bs->sum),
		.base_unique = sat64(bs->sum), .base_unique_frac = ratio(bs->sum, bs->sum),
		.base_zero_frac = ratio(bs->sum, bs->sum),
	};
	VEC_PUSH(&v->fl, of);
}

/* Every test function matched by key with a base function (each base
 * function once), in the test profile's order, then the base functions
 * left. */
static void match_functions(struct ov *v)
{
	const struct spgo_profile *base = v->b, *test = v->t;
	struct spgo_kmap idx; /* base key -> base top index + 1 */
	spgo_kmap_init(&idx, 1);
	for (size_t i = 0; i < base->top.n; i++) {
		const char *k = spgo_func_key(base, base->top.v[i]);
		uint64_t h = spgo_hash_bytes(k, strlen(k));
		uint64_t *slot = spgo_kmap_upsert(&idx, &h);
		if (!*slot)
			*slot = i + 1; /* collisions resolved by scanning */
	}
	v->union_count = base->top.n;
	for (size_t j = 0; j < test->top.n; j++) {
		size_t bi = base_index(v, &idx, spgo_func_key(test, test->top.v[j]));
		double tw = (double)v->ts[j].sum / (double)v->test_total;
		if (bi == SIZE_MAX || v->matched[bi])
			add_test_only(v, j, tw);
		else
			add_matched(v, bi, j, tw);
	}
	for (size_t i = 0; i < base->top.n; i++)
		if (!v->matched[i])
			add_base_only(v, i);
	spgo_kmap_free(&idx);
}

/* Hot functions: max sample at or above the threshold. */
static void hot_functions(struct ov *v)
{
	struct spgo_overlap *o = v->o;
	for (size_t i = 0; i < v->b->top.n; i++)
		if (v->bs[i].max >= v->bhot)
			o->hot_func_base++;
	for (size_t j = 0; j < v->t->top.n; j++)
		if (v->ts[j].max >= v->thot)
			o->hot_func_test++;
	o->hot_func_union = o->hot_func_test;
	for (size_t i = 0; i < v->b->top.n; i++) {
		if (v->bs[i].max < v->bhot)
			continue;
		if (v->matched[i] && v->ts[v->matched[i] - 1].max >= v->thot)
			o->hot_func_overlap++;
		else
			o->hot_func_union++;
	}
}

int spgo_profile_overlap(struct spgo_profile *base, struct spgo_profile *test,
			 struct spgo_overlap *o)
{
	memset(o, 0, sizeof *o);
	if ((base->flags & SPGO_PROF_PROBE) != (test->flags & SPGO_PROF_PROBE))
		return spgo_error("cannot compare probe-based profile with non-probe-based profile");
	if ((base->flags & SPGO_PROF_CS) != (test->flags & SPGO_PROF_CS))
		return spgo_error("cannot compare CS profile with non-CS profile");
	struct ov *v = xcalloc(1, sizeof *v);
	v->b = base;
	v->t = test;
	v->o = o;
	v->bhot = hot_threshold(&base->summary);
	v->thot = hot_threshold(&test->summary);
	v->bs = xcalloc(base->top.n + 1, sizeof *v->bs);
	v->ts = xcalloc(test->top.n + 1, sizeof *v->ts);
	v->base_total = profile_stats(base, v->bhot, v->bs);
	v->test_total = profile_stats(test, v->thot, v->ts);
	o->base_sample = sat64(v->base_total);
	o->test_sample = sat64(v->test_total);
	int rc = 0;
	if (!v->base_total || !v->test_total) {
		rc = spgo_error("sum of sample counts for profile %s is 0", !v->base_total ? "base" : "test");
		goto out;
	}
	v->matched = xcalloc(base->top.n + 1, sizeof *v->matched);
	match_functions(v);
	if (fabs(v->sim - 1) < eps)
		v->sim = 1;
	o->similarity = v->sim;
	o->sample_overlap = ratio(v->overlap_sample, v->union_sample);
	o->base_unique = ratio(v->base_unique_s, v->base_total);
	o->test_unique = ratio(v->test_unique_s, v->test_total);
	o->base_zero = ratio(v->base_zero_s, v->base_total);
	o->test_zero = ratio(v->test_zero_s, v->test_total);
	o->func_overlap = v->union_count ? (double)o->overlap_funcs / (double)v->union_count : 0;
	hot_functions(v);
	o->funcs = v->fl.v;
	o->nfuncs = v->fl.n;
out:
	free(v->matched);
	free(v->bs);
	free(v->ts);
	for (int a = 0; a < 4; a++)
		for (int d = 0; d < 128; d++)
			free(v->buf[a][d]);
	free(v);
	return rc;
}

/* ---- the report ---------------------------------------------------------- */

/* The name a function goes by in the report: its key in test, else in base. */
static const char *func_name(const struct spgo_overlap_func *f, const struct spgo_profile *base,
			     const struct spgo_profile *test)
{
	return f->test_func != SPGO_NONE ? spgo_func_key(test, f->test_func)
					 : spgo_func_key(base, f->base_func);
}

size_t spgo_overlap_keep_named(struct spgo_overlap *o, const struct spgo_profile *base,
			       const struct spgo_profile *test, const char *str)
{
	size_t kept = 0;
	for (size_t i = 0; i < o->nfuncs; i++)
		if (strstr(func_name(&o->funcs[i], base, test), str))
			o->funcs[kept++] = o->funcs[i];
	o->nfuncs = kept;
	return kept;
}

/* Program level: similarity, sample, function, hot-function and
 * hot-block overlap. */
static void print_program(const struct spgo_overlap *o, const char *base_name, const char *test_name,
			  FILE *fp)
{
	fprintf(fp, "Profile overlap information for base_profile: %s and test_profile: %s\n", base_name,
		test_name);
	fprintf(fp, "Program level:\n");
	fprintf(fp, "  Whole program profile similarity: %.3f%%\n", o->similarity * 100);
	fprintf(fp, "  Whole program sample overlap: %.3f%%\n", o->sample_overlap * 100);
	fprintf(fp, "    percentage of samples unique in base profile: %.3f%%\n", o->base_unique * 100);
	fprintf(fp, "    percentage of samples unique in test profile: %.3f%%\n", o->test_unique * 100);
	fprintf(fp, "    total samples in base profile: %llu%s\n", (unsigned long long)o->base_sample,
		o->base_sample == UINT64_MAX ? " (or more: the sum saturates)" : "");
	fprintf(fp, "    total samples in test profile: %llu%s\n", (unsigned long long)o->test_sample,
		o->test_sample == UINT64_MAX ? " (or more: the sum saturates)" : "");
	fprintf(fp, "  Function overlap: %.3f%%\n", o->func_overlap * 100);
	fprintf(fp, "    overlap functions: %llu\n", (unsigned long long)o->overlap_funcs);
	fprintf(fp, "    functions unique in base profile: %llu\n", (unsigned long long)o->base_unique_funcs);
	fprintf(fp, "    functions unique in test profile: %llu\n", (unsigned long long)o->test_unique_funcs);
	fprintf(fp, "  Hot-function overlap: %.3f%%\n",
		o->hot_func_union ? (double)o->hot_func_overlap / (double)o->hot_func_union * 100 : 0.0);
	fprintf(fp, "    overlap hot functions: %llu\n", (unsigned long long)o->hot_func_overlap);
	fprintf(fp, "    hot functions unique in base profile: %llu\n",
		(unsigned long long)(o->hot_func_base - o->hot_func_overlap));
	fprintf(fp, "    hot functions unique in test profile: %llu\n",
		(unsigned long long)(o->hot_func_test - o->hot_func_overlap));
	fprintf(fp, "  Hot-block overlap: %.3f%%\n",
		o->hot_block_union ? (double)o->hot_block_overlap / (double)o->hot_block_union * 100 : 0.0);
	fprintf(fp, "    overlap hot blocks: %llu\n", (unsigned long long)o->hot_block_overlap);
	fprintf(fp, "    hot blocks unique in base profile: %llu\n",
		(unsigned long long)(o->hot_block_base - o->hot_block_overlap));
	fprintf(fp, "    hot blocks unique in test profile: %llu\n",
		(unsigned long long)(o->hot_block_test - o->hot_block_overlap));
}

/* spgo's own figures, after llvm-profdata's: the samples of each profile
 * on the locations the other has at zero (the hot weight carried to
 * zero). */
static void print_zeros(const struct spgo_overlap *o, FILE *fp)
{
	fprintf(fp, "Samples where the other profile has zero:\n");
	fprintf(fp, "  base samples where test has zero: %.3f%%\n", o->base_zero * 100);
	fprintf(fp, "  test samples where base has zero: %.3f%%\n", o->test_zero * 100);
}

/* The figures of print_zeros() of the first k functions of o->funcs. */
static void print_function_zeros(const struct spgo_overlap *o, const struct spgo_profile *base,
				 const struct spgo_profile *test, size_t k, FILE *fp)
{
	fprintf(fp, "Function-level samples where the other profile has zero:\n");
	fprintf(fp, "%-12s %-12s %-13s %-13s %s\n", "Base at 0", "Test at 0", "Base samples", "Test samples",
		"Function name");
	for (size_t i = 0; i < k; i++) {
		const struct spgo_overlap_func *f = &o->funcs[i];
		char w[2][16];
		snprintf(w[0], 16, "%.2f%%", f->base_zero_frac * 100);
		snprintf(w[1], 16, "%.2f%%", f->test_zero_frac * 100);
		fprintf(fp, "%-12s %-12s %-13llu %-13llu %s\n", w[0], w[1], (unsigned long long)f->base_sample,
			(unsigned long long)f->test_sample, func_name(f, base, test));
	}
}

/* Function level: the k hottest functions of either profile, moved to
 * the front of o->funcs first. */
static void print_functions(struct spgo_overlap *o, const struct spgo_profile *base,
			    const struct spgo_profile *test, size_t k, FILE *fp)
{
	size_t n = o->nfuncs;
	for (size_t i = 0; i < k; i++) { /* partial selection sort: k is small */
		size_t best = i;
		for (size_t j = i + 1; j < n; j++) {
			double wj = o->funcs[j].base_weight + o->funcs[j].test_weight;
			double wb = o->funcs[best].base_weight + o->funcs[best].test_weight;
			if (wj > wb)
				best = j;
		}
		struct spgo_overlap_func t = o->funcs[i];
		o->funcs[i] = o->funcs[best];
		o->funcs[best] = t;
	}
	fprintf(fp, "Function-level details:\n");
	fprintf(fp, "%-12s %-12s %-11s %-9s %-12s %-12s %-13s %-13s %s\n", "Base weight", "Test weight",
		"Similarity", "Overlap", "Base unique", "Test unique", "Base samples", "Test samples",
		"Function name");
	for (size_t i = 0; i < k; i++) {
		const struct spgo_overlap_func *f = &o->funcs[i];
		char w[6][16];
		snprintf(w[0], 16, "%.2f%%", f->base_weight * 100);
		snprintf(w[1], 16, "%.2f%%", f->test_weight * 100);
		snprintf(w[2], 16, "%.2f%%", f->similarity * 100);
		snprintf(w[3], 16, "%.2f%%", 100 * f->overlap_frac);
		snprintf(w[4], 16, "%.2f%%", 100 * f->base_unique_frac);
		snprintf(w[5], 16, "%.2f%%", 100 * f->test_unique_frac);
		fprintf(fp, "%-12s %-12s %-11s %-9s %-12s %-12s %-13llu %-13llu %s%s\n", w[0], w[1], w[2],
			w[3], w[4], w[5], (unsigned long long)f->base_sample,
			(unsigned long long)f->test_sample, func_name(f, base, test),
			f->base_func == SPGO_NONE ? " (test only)"
			: f->test_func == SPGO_NONE ? " (base only)" : "");
	}
}

void spgo_overlap_print(struct spgo_overlap *o, const struct spgo_profile *base,
			const struct spgo_profile *test, const char *base_name, const char *test_name,
			size_t top, FILE *fp)
{
	print_program(o, base_name, test_name, fp);
	if (top > 0 && o->nfuncs)
		print_functions(o, base, test, top < o->nfuncs ? top : o->nfuncs, fp);
	print_zeros(o, fp);
	if (top > 0 && o->nfuncs)
		print_function_zeros(o, base, test, top < o->nfuncs ? top : o->nfuncs, fp);
}

void spgo_overlap_free(struct spgo_overlap *o)
{
	free(o->funcs);
	o->funcs = NULL;
	o->nfuncs = 0;
}
