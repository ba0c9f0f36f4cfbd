/*
 * The profile summary as LLVM's SampleProfileSummaryBuilder computes it:
 * every body sample count of every function and inlinee is one "count";
 * the detailed summary gives, for each cutoff (per million of the total),
 * the smallest count among the hottest counts that reach that share.  CS
 * profiles are first merged by leaf function name (LLVM's context-less
 * summary, its default for CS), and inlinees marked duplicated-into-base
 * are not counted twice.
 */
#include "spgo/profile.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t default_cutoffs[] = {
	10000,  100000, 200000, 300000, 400000, 500000, 600000, 700000,
	800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999,
};

/* count -> how many times: open addressing on count + 1 (0 = empty). */
struct freq {
	uint64_t *key, *n;
	size_t cap, used;
	uint64_t nmax; /* how many counts are UINT64_MAX (whose key + 1 wraps) */
};

static void freq_add(struct freq *f, uint64_t count)
{
	if (count == UINT64_MAX) {
		f->nmax++;
		return;
	}
	if ((f->used + 1) * 2 > f->cap) {
		struct freq o = *f;
		f->cap = o.cap ? o.cap * 2 : 1024;
		f->key = xcalloc(f->cap, sizeof *f->key);
		f->n = xcalloc(f->cap, sizeof *f->n);
		for (size_t i = 0; i < o.cap; i++)
			if (o.key[i]) {
				size_t j = spgo_hash64(o.key[i]) & (f->cap - 1);
				while (f->key[j])
					j = (j + 1) & (f->cap - 1);
				f->key[j] = o.key[i];
				f->n[j] = o.n[i];
			}
		free(o.key);
		free(o.n);
	}
	uint64_t k = count + 1;
	size_t i = spgo_hash64(k) & (f->cap - 1);
	while (f->key[i] && f->key[i] != k)
		i = (i + 1) & (f->cap - 1);
	if (!f->key[i]) {
		f->key[i] = k;
		f->used++;
	}
	f->n[i]++;
}

struct acc {
	struct spgo_summary *s;
	struct freq freq;
};

static void add_func(struct acc *a, const struct spgo_profile *p, uint32_t f, int callsite)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	if (!callsite) {
		a->s->num_funcs++;
		if (fn->head > a->s->max_func_count)
			a->s->max_func_count = fn->head;
	} else if (fn->attrs & SPGO_ATTR_DUPLICATED_INTO_BASE) {
		return;
	}
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		uint64_t c = p->bodies.v[b].count;
		uint64_t t = a->s->total + c;
		a->s->total = t < c ? UINT64_MAX : t;
		if (c > a->s->max_count)
			a->s->max_count = c;
		a->s->num_counts++;
		freq_add(&a->freq, c);
	}
	for (uint32_t c = fn->children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		add_func(a, p, c, 1);
}

static int cmp_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a > b ? -1 : a < b;
}

uint64_t spgo_summary_min_count(const struct spgo_summary *s, uint32_t cutoff, uint64_t none)
{
	for (unsigned i = 0; i < s->nentries; i++)
		if (s->entries[i].cutoff >= cutoff)
			return s->entries[i].min_count;
	if (none != SPGO_SUMMARY_LAST)
		return none;
	return s->nentries ? s->entries[s->nentries - 1].min_count : 0;
}

void spgo_summary_compute(struct spgo_profile *p)
{
	struct spgo_summary *s = &p->summary;
	memset(s, 0, sizeof *s);
	struct acc a = {.s = s};

	const struct spgo_profile *use = p;
	struct spgo_profile *flat = NULL;
	if (p->flags & SPGO_PROF_CS) {
		/* Merge every context into a profile of its leaf function. */
		flat = spgo_profile_new();
		uint32_t *namemap = xmalloc((p->names.n + 1) * sizeof *namemap);
		memset(namemap, 0xff, (p->names.n + 1) * sizeof *namemap);
		for (size_t i = 0; i < p->top.n; i++) {
			uint32_t f = p->top.v[i];
			const char *nm = spgo_name(p, p->funcs.v[f].name);
			uint32_t df = spgo_func_get(flat, nm);
			spgo_func_merge(flat, df, p, f, 1, namemap);
		}
		free(namemap);
		use = flat;
	}
	for (size_t i = 0; i < use->top.n; i++)
		add_func(&a, use, use->top.v[i], 0);

	/* Distinct counts, hottest first, with their frequencies. */
	size_t n = a.freq.used + (a.freq.nmax > 0), k = 0;
	uint64_t *rows = xmalloc((n ? n : 1) * 2 * sizeof *rows);
	if (a.freq.nmax) {
		rows[0] = UINT64_MAX;
		rows[1] = a.freq.nmax;
		k = 1;
	}
	for (size_t it = 0; it < a.freq.cap; it++)
		if (a.freq.key[it]) {
			rows[k * 2] = a.freq.key[it] - 1;
			rows[k * 2 + 1] = a.freq.n[it];
			k++;
		}
	spgo_sort(rows, n, 2 * sizeof *rows, cmp_desc);

	size_t i = 0;
	uint64_t sum = 0, seen = 0, count = 0;
	for (size_t c = 0; c < SPGO_ARRAY_LEN(default_cutoffs); c++) {
		uint32_t cut = default_cutoffs[c];
		unsigned __int128 want128 = (unsigned __int128)s->total * cut / 1000000;
		uint64_t want = (uint64_t)want128;
		while (sum < want && i < n) {
			count = rows[i * 2];
			uint64_t f = rows[i * 2 + 1];
			unsigned __int128 add = (unsigned __int128)count * f;
			sum = add + sum > UINT64_MAX ? UINT64_MAX : (uint64_t)(add + sum);
			seen += f;
			i++;
		}
		s->entries[s->nentries++] = (struct spgo_summary_entry){cut, count, seen};
	}
	free(rows);
	free(a.freq.key);
	free(a.freq.n);
	spgo_profile_free(flat);
}
