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

struct acc {
	struct spgo_summary *s;
	struct spgo_kmap freq; /* count -> how many times */
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
		(*spgo_kmap_upsert(&a->freq, &c))++;
	}
	for (uint32_t c = fn->children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		add_func(a, p, c, 1);
}

static int cmp_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a > b ? -1 : a < b;
}

void spgo_summary_compute(struct spgo_profile *p)
{
	struct spgo_summary *s = &p->summary;
	memset(s, 0, sizeof *s);
	struct acc a = {.s = s};
	spgo_kmap_init(&a.freq, 1);

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
	size_t n = a.freq.n, k = 0;
	uint64_t *rows = xmalloc((n ? n : 1) * 2 * sizeof *rows);
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&a.freq, &it, &key, &val);) {
		rows[k * 2] = key[0];
		rows[k * 2 + 1] = *val;
		k++;
	}
	qsort(rows, n, 2 * sizeof *rows, cmp_desc);

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
	spgo_kmap_free(&a.freq);
	spgo_profile_free(flat);
}
