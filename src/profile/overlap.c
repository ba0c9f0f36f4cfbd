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
};

struct ov {
	const struct spgo_profile *b, *t;
	uint64_t bhot, thot;
	struct spgo_overlap *o;
	uint32_t *buf[4][128];
	size_t cap[4][128];
};

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
	for (unsigned i = 0; i < s->nentries; i++)
		if (s->entries[i].cutoff >= 990000)
			return s->entries[i].min_count;
	return 0;
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
	const double eps = 0.000005;

	struct fstats *bs = xcalloc(base->top.n + 1, sizeof *bs);
	struct fstats *ts = xcalloc(test->top.n + 1, sizeof *ts);
	wsum base_total = 0, test_total = 0;
	for (size_t i = 0; i < base->top.n; i++) {
		func_stats(base, base->top.v[i], v->bhot, &bs[i]);
		base_total += bs[i].sum;
	}
	for (size_t i = 0; i < test->top.n; i++) {
		func_stats(test, test->top.v[i], v->thot, &ts[i]);
		test_total += ts[i].sum;
	}
	o->base_sample = sat64(base_total);
	o->test_sample = sat64(test_total);
	int rc = 0;
	if (!base_total || !test_total) {
		rc = spgo_error("sum of sample counts for profile %s is 0", !base_total ? "base" : "test");
		goto out;
	}
	/* base key -> base top index */
	uint32_t *matched = xcalloc(base->top.n + 1, sizeof *matched); /* test index + 1 */
	VEC(struct spgo_overlap_func) fl = {0};
	struct spgo_kmap idx;
	spgo_kmap_init(&idx, 1);
	for (size_t i = 0; i < base->top.n; i++) {
		const char *k = spgo_func_key(base, base->top.v[i]);
		uint64_t h = spgo_hash_bytes(k, strlen(k));
		uint64_t *slot = spgo_kmap_upsert(&idx, &h);
		if (!*slot)
			*slot = i + 1; /* collisions resolved below by scanning */
	}
	uint64_t union_count = base->top.n;
	wsum overlap_sample = 0, union_sample = 0, base_unique_s = 0, test_unique_s = 0;
	double sim = 0;
	for (size_t j = 0; j < test->top.n; j++) {
		const char *k = spgo_func_key(test, test->top.v[j]);
		uint64_t h = spgo_hash_bytes(k, strlen(k));
		uint64_t *slot = spgo_kmap_find(&idx, &h);
		size_t bi = SIZE_MAX;
		if (slot && strcmp(spgo_func_key(base, base->top.v[*slot - 1]), k) == 0)
			bi = *slot - 1;
		else if (slot)
			for (size_t i = 0; i < base->top.n; i++)
				if (strcmp(spgo_func_key(base, base->top.v[i]), k) == 0) {
					bi = i;
					break;
				}
		double tw = (double)ts[j].sum / (double)test_total;
		if (bi == SIZE_MAX || matched[bi]) {
			o->test_unique_funcs++;
			test_unique_s += ts[j].sum;
			hot_block(v, 0, ts[j].sum, ts[j].hot);
			union_count++;
			union_sample += ts[j].sum;
			struct spgo_overlap_func of = {
				.base_func = SPGO_NONE, .test_func = test->top.v[j], .test_weight = tw,
				.test_sample = sat64(ts[j].sum), .union_sample = sat64(ts[j].sum),
				.test_unique = sat64(ts[j].sum), .test_unique_frac = ratio(ts[j].sum, ts[j].sum),
			};
			VEC_PUSH(&fl, of);
		} else {
			o->overlap_funcs++;
			matched[bi] = (uint32_t)j + 1;
			struct fo f = {0};
			f.base_sample = bs[bi].sum;
			f.test_sample = ts[j].sum;
			double fis = internal(v, base->top.v[bi], test->top.v[j], &f, 0);
			if (fabs(fis) < eps)
				fis = 0;
			double bw = (double)f.base_sample / (double)base_total;
			double fs = fis * (1 - fabs(bw - tw));
			sim += fs * (bw / 2.0 + tw / 2.0);
			overlap_sample += f.overlap_sample;
			union_sample += f.union_sample;
			base_unique_s += f.base_unique;
			test_unique_s += f.test_unique;
			struct spgo_overlap_func of = {
				.base_func = base->top.v[bi], .test_func = test->top.v[j],
				.similarity = fs, .base_weight = bw, .test_weight = tw,
				.base_sample = sat64(f.base_sample), .test_sample = sat64(f.test_sample),
				.overlap_sample = sat64(f.overlap_sample), .union_sample = sat64(f.union_sample),
				.base_unique = sat64(f.base_unique), .test_unique = sat64(f.test_unique),
				.overlap_frac = ratio(f.overlap_sample, f.union_sample),
				.base_unique_frac = ratio(f.base_unique, f.base_sample),
				.test_unique_frac = ratio(f.test_unique, f.test_sample),
			};
			VEC_PUSH(&fl, of);
		}
	}
	for (size_t i = 0; i < base->top.n; i++) {
		if (matched[i])
			continue;
		o->base_unique_funcs++;
		base_unique_s += bs[i].sum;
		hot_block(v, bs[i].sum, 0, bs[i].hot);
		union_sample += bs[i].sum;
		struct spgo_overlap_func of = {
			.base_func = base->top.v[i], .test_func = SPGO_NONE,
			.base_weight = (double)bs[i].sum / (double)base_total,
			.base_sample = sat64(bs[i].sum), .union_sample = sat64(bs[i].sum),
			.base_unique = sat64(bs[i].sum), .base_unique_frac = ratio(bs[i].sum, bs[i].sum),
		};
		VEC_PUSH(&fl, of);
	}
	if (fabs(sim - 1) < eps)
		sim = 1;
	o->similarity = sim;
	o->sample_overlap = ratio(overlap_sample, union_sample);
	o->base_unique = ratio(base_unique_s, base_total);
	o->test_unique = ratio(test_unique_s, test_total);
	o->func_overlap = union_count ? (double)o->overlap_funcs / (double)union_count : 0;
	/* hot functions: max sample at or above the threshold */
	for (size_t i = 0; i < base->top.n; i++)
		if (bs[i].max >= v->bhot)
			o->hot_func_base++;
	for (size_t j = 0; j < test->top.n; j++)
		if (ts[j].max >= v->thot)
			o->hot_func_test++;
	o->hot_func_union = o->hot_func_test;
	for (size_t i = 0; i < base->top.n; i++) {
		if (bs[i].max < v->bhot)
			continue;
		if (matched[i] && ts[matched[i] - 1].max >= v->thot)
			o->hot_func_overlap++;
		else
			o->hot_func_union++;
	}
	free(matched);
	spgo_kmap_free(&idx);
	o->funcs = fl.v;
	o->nfuncs = fl.n;
out:
	free(bs);
	free(ts);
	for (int a = 0; a < 4; a++)
		for (int d = 0; d < 128; d++)
			free(v->buf[a][d]);
	free(v);
	return rc;
}

void spgo_overlap_free(struct spgo_overlap *o)
{
	free(o->funcs);
	o->funcs = NULL;
	o->nfuncs = 0;
}
