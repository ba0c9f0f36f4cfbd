/*
 * cs_overlap.c: block overlap of a profile against a reference
 * context-sensitive profile (the exact one of `spgo gen --ground-truth-cs`),
 * context by context -- the CSSPGO paper's metric (section IV-C) with each
 * context's function as a flow graph of its own.  See spgo/profile.h.
 *
 * Both profiles are cut into units -- a unit is a function's profile in
 * one context -- and each unit's blocks are its body samples by (line
 * offset, discriminator).  The measured profile defines the units:
 *  - context view: every context it has (flat CS contexts as they are,
 *    inlinees of a nested or non-CS profile as "caller:loc @ callee"); a
 *    reference context goes to the longest suffix of it that the profile
 *    has (a nested profile's inlinee paths start at an out-of-line
 *    function: [main:1 @ a:2 @ b] is counted in a's inlinee "a:2 @ b"),
 *    and one with no such suffix falls to the base profile of its leaf
 *    function (what a cold context merged into the base gets);
 *  - post-inline view: the code the compiler would make.  A function's
 *    out-of-line copy is the unit named by the function; an inlinee that
 *    is inlined (marked ShouldBeInlined; or every one, or none, on
 *    request) is the unit of that copy, named by its path from the
 *    out-of-line function it sits in; an inlinee that is not inlined
 *    folds, with what hangs below it, into its own function's base.  A
 *    reference context goes to the copy that would run it: walking its
 *    frames from the root, each call stays in the current copy while the
 *    measured profile inlines it there, and starts the callee's out-of-line
 *    copy otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/profile_impl.h"
#include "spgo/profile.h"

typedef VEC(char) charbuf;

/* Counts near 2^64 (merge saturates each count, not their sums): a
 * block's count saturates as merge's do, and the sums of a unit and of a
 * profile are taken in 128 bits, so the figures are those of the exact
 * sums; the uint64_t sums reported saturate at UINT64_MAX. */
typedef unsigned __int128 wsum;

static void add_sat(uint64_t *to, uint64_t v)
{
	*to = *to > UINT64_MAX - v ? UINT64_MAX : *to + v;
}

static uint64_t sat64(wsum v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* A profile flattened: every context (a flat CS context, or the path of an
 * inlinee) with its own body samples. */
struct flat {
	struct spgo_strtab keys;
	VEC(uint8_t) marked;     /* per key: marked ShouldBeInlined */
	struct spgo_kmap blocks; /* (key, line << 32 | disc) -> count */
};

struct cso {
	int view, mode;
	struct spgo_strtab units;
	VEC(uint8_t) inl;           /* per unit: an inlined copy, not a base */
	struct spgo_kmap blocks[2]; /* side 0 test, 1 ref: (unit, loc) -> count */
	const struct flat *test;    /* for the inline decisions */
	charbuf key;
	spgo_ctx_frames fr;
	struct spgo_profile *scratch; /* names for spgo_ctx_split */
};

static void buf_set(charbuf *b, const char *s, size_t n)
{
	VEC_GROW(b, n + 1);
	memcpy(b->v, s, n);
	b->v[n] = 0;
	b->n = n;
}

/* b + ":line[.disc] @ name" */
static void buf_push(charbuf *b, uint32_t line, uint32_t disc, const char *name)
{
	char loc[32];
	int k = spgo_profgen_loc(loc, sizeof loc, line, disc, " @ ");
	size_t nl = strlen(name);
	VEC_GROW(b, b->n + (size_t)k + nl + 1);
	memcpy(b->v + b->n, loc, (size_t)k);
	memcpy(b->v + b->n + k, name, nl + 1);
	b->n += (size_t)k + nl;
}

static uint32_t flat_key(struct flat *f, const char *s, size_t n, int marked)
{
	uint32_t k = spgo_strtab_intern(&f->keys, s, n);
	while (f->marked.n <= k)
		VEC_PUSH(&f->marked, 0);
	f->marked.v[k] |= (uint8_t)marked;
	return k;
}

static void flat_walk(struct flat *f, const struct spgo_profile *p, uint32_t fn, charbuf *key,
		      int marked)
{
	uint32_t k = flat_key(f, key->v, key->n, marked);
	const struct spgo_func *x = &p->funcs.v[fn];
	for (uint32_t b = x->bodies; b != SPGO_NONE; b = p->bodies.v[b].next) {
		uint64_t kk[2] = {k, (uint64_t)p->bodies.v[b].line << 32 | p->bodies.v[b].disc};
		add_sat(spgo_kmap_upsert(&f->blocks, kk), p->bodies.v[b].count);
	}
	size_t saved = key->n;
	for (uint32_t ch = x->children; ch != SPGO_NONE; ch = p->funcs.v[ch].sibling) {
		const struct spgo_func *c = &p->funcs.v[ch];
		key->n = saved;
		key->v[saved] = 0;
		buf_push(key, c->line, c->disc, spgo_name(p, c->name));
		flat_walk(f, p, ch, key, (c->attrs & SPGO_ATTR_SHOULD_INLINE) != 0);
	}
	key->n = saved;
	key->v[saved] = 0;
}

static void flatten(struct flat *f, const struct spgo_profile *p)
{
	spgo_strtab_init(&f->keys);
	spgo_kmap_init(&f->blocks, 2);
	charbuf key = {0};
	for (size_t i = 0; i < p->top.n; i++) {
		const struct spgo_func *x = &p->funcs.v[p->top.v[i]];
		const char *k = spgo_func_key(p, p->top.v[i]);
		buf_set(&key, k, strlen(k));
		flat_walk(f, p, p->top.v[i], &key, (x->attrs & SPGO_ATTR_SHOULD_INLINE) != 0);
	}
	VEC_FREE(&key);
}

static void flat_free(struct flat *f)
{
	spgo_strtab_free(&f->keys);
	VEC_FREE(&f->marked);
	spgo_kmap_free(&f->blocks);
}

/* Is the context s (a key of the measured profile) a copy of its own? */
static int inlined(const struct cso *c, const char *s, size_t n)
{
	const struct flat *t = c->test;
	/* A lookup in the test's key table (spgo_strtab has none). */
	uint64_t h = spgo_hash_bytes(s, n);
	const uint64_t *head = spgo_kmap_find(&t->keys.index, &h);
	uint64_t id1 = head ? *head : 0;
	for (; id1; id1 = t->keys.next[id1 - 1]) {
		const char *x = t->keys.strs[id1 - 1];
		if (strncmp(x, s, n) == 0 && x[n] == 0)
			break;
	}
	if (!id1)
		return 0; /* not a context of the measured profile */
	uint32_t k = (uint32_t)(id1 - 1);
	if (!memmem(s, n, " @ ", 3))
		return 0;
	if (c->view == SPGO_CSO_CONTEXT || c->mode == SPGO_CSO_INLINE_ALL)
		return 1;
	if (c->mode == SPGO_CSO_INLINE_NONE)
		return 0;
	return t->marked.v[k];
}

static uint32_t unit_of(struct cso *c, const char *s, size_t n, int inl)
{
	uint32_t u = spgo_strtab_intern(&c->units, s, n);
	while (c->inl.n <= u)
		VEC_PUSH(&c->inl, 0);
	c->inl.v[u] |= (uint8_t)inl;
	return u;
}

/* The unit a context (flat key) counts for. */
static uint32_t project(struct cso *c, const char *key)
{
	size_t len = strlen(key);
	if (c->view == SPGO_CSO_CONTEXT) {
		/* The longest suffix of the context that the profile has: the
		 * whole context for a flat CS profile, the path below an
		 * out-of-line function for a nested or non-CS one (whose
		 * inlinees start at their top-level function, not at main). */
		for (const char *s = key; s;) {
			size_t n = len - (size_t)(s - key);
			if (inlined(c, s, n))
				return unit_of(c, s, n, 1);
			s = strstr(s, " @ ");
			if (s)
				s += 3;
		}
	}
	if (spgo_ctx_split(c->scratch, key, &c->fr) < 0 || !c->fr.n)
		return unit_of(c, key, len, 0);
	const spgo_ctx_frames *fr = &c->fr;
	if (c->view == SPGO_CSO_CONTEXT) { /* the leaf's base profile */
		const char *ln = spgo_name(c->scratch, fr->v[fr->n - 1].name);
		return unit_of(c, ln, strlen(ln), 0);
	}
	/* Post-inline: from the root, stay in the copy while the call is
	 * inlined there, else start the callee's out-of-line copy. */
	const char *n0 = spgo_name(c->scratch, fr->v[0].name);
	buf_set(&c->key, n0, strlen(n0));
	int in = 0;
	for (size_t i = 1; i < fr->n; i++) {
		const char *name = spgo_name(c->scratch, fr->v[i].name);
		buf_push(&c->key, fr->v[i - 1].line, fr->v[i - 1].disc, name);
		in = inlined(c, c->key.v, c->key.n);
		if (!in)
			buf_set(&c->key, name, strlen(name));
	}
	return unit_of(c, c->key.v, c->key.n, in);
}

static void add_side(struct cso *c, const struct flat *f, int side)
{
	uint32_t *proj = xcalloc(f->keys.n + 1, sizeof *proj);
	for (size_t k = 0; k < f->keys.n; k++)
		proj[k] = project(c, spgo_strtab_get(&f->keys, (uint32_t)k));
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&f->blocks, &it, &key, &val);) {
		uint64_t k[2] = {proj[key[0]], key[1]};
		add_sat(spgo_kmap_upsert(&c->blocks[side], k), *val);
	}
	free(proj);
}

static int cmp_unit(const void *a, const void *b)
{
	const struct spgo_cso_unit *x = a, *y = b;
	if (x->test_sum != y->test_sum)
		return x->test_sum < y->test_sum ? 1 : -1;
	if (x->ref_sum != y->ref_sum)
		return x->ref_sum < y->ref_sum ? 1 : -1;
	return strcmp(x->key, y->key);
}

int spgo_cs_overlap(struct spgo_profile *ref, struct spgo_profile *test, int view, int mode,
		    struct spgo_cs_overlap *o)
{
	memset(o, 0, sizeof *o);
	if ((ref->flags & SPGO_PROF_PROBE) != (test->flags & SPGO_PROF_PROBE))
		return spgo_error("cannot compare probe-based profile with non-probe-based profile");
	struct flat ft = {0}, fr = {0};
	flatten(&ft, test);
	flatten(&fr, ref);
	struct cso c = {.view = view, .mode = mode, .test = &ft};
	spgo_strtab_init(&c.units);
	spgo_kmap_init(&c.blocks[0], 2);
	spgo_kmap_init(&c.blocks[1], 2);
	c.scratch = spgo_profile_new();
	add_side(&c, &ft, 0);
	add_side(&c, &fr, 1);

	/* Per unit: sums, then the overlap of the normalized blocks. */
	const uint64_t *key;
	uint64_t *val;
	size_t nu = c.units.n;
	struct spgo_cso_unit *us = xcalloc(nu + 1, sizeof *us);
	wsum *sum[2] = {xcalloc(nu + 1, sizeof(wsum)), xcalloc(nu + 1, sizeof(wsum))};
	wsum total[2] = {0, 0};
	for (int side = 0; side < 2; side++)
		for (size_t it = 0; spgo_kmap_next(&c.blocks[side], &it, &key, &val);) {
			sum[side][key[0]] += *val;
			total[side] += *val;
		}
	for (size_t it = 0; spgo_kmap_next(&c.blocks[0], &it, &key, &val);) {
		uint64_t *rv = spgo_kmap_find(&c.blocks[1], key);
		wsum ts = sum[0][key[0]], rs = sum[1][key[0]];
		if (!rv || !rs || !ts)
			continue;
		double a = (double)*val / (double)ts, b = (double)*rv / (double)rs;
		us[key[0]].overlap += a < b ? a : b;
	}
	o->test_total = sat64(total[0]);
	o->ref_total = sat64(total[1]);
	size_t n = 0;
	for (size_t u = 0; u < nu; u++) {
		if (!sum[0][u] && !sum[1][u])
			continue;
		struct spgo_cso_unit x = us[u];
		x.test_sum = sat64(sum[0][u]);
		x.ref_sum = sat64(sum[1][u]);
		x.key = xstrdup(spgo_strtab_get(&c.units, (uint32_t)u));
		x.inlined = c.inl.v[u];
		if (total[0])
			o->overlap += x.overlap * (double)sum[0][u] / (double)total[0];
		if (total[1])
			o->ref_weighted += x.overlap * (double)sum[1][u] / (double)total[1];
		us[n++] = x;
	}
	free(sum[0]);
	free(sum[1]);
	for (size_t u = 0; u < n; u++) {
		if (us[u].test_sum && us[u].ref_sum)
			o->matched++;
		else if (us[u].test_sum)
			o->test_only++;
		else
			o->ref_only++;
	}
	spgo_sort(us, n, sizeof *us, cmp_unit);
	o->units = us;
	o->n_units = n;
	spgo_strtab_free(&c.units);
	VEC_FREE(&c.inl);
	VEC_FREE(&c.key);
	VEC_FREE(&c.fr);
	spgo_kmap_free(&c.blocks[0]);
	spgo_kmap_free(&c.blocks[1]);
	spgo_profile_free(c.scratch);
	flat_free(&ft);
	flat_free(&fr);
	if (!o->test_total || !o->ref_total) {
		/* An error leaves nothing for the caller to free. */
		int rc = spgo_error("the %s profile has no body samples", !o->ref_total ? "reference" : "measured");
		spgo_cs_overlap_free(o);
		return rc;
	}
	return 0;
}

void spgo_cs_overlap_print(const struct spgo_cs_overlap *o, FILE *fp, long top)
{
	fprintf(fp, "CS block overlap: %.2f%% (weighted by the profile's samples), %.2f%% (by the "
		    "reference's)\n", 100 * o->overlap, 100 * o->ref_weighted);
	fprintf(fp, "  units: %zu in both, %zu in the profile only, %zu in the reference only\n",
		o->matched, o->test_only, o->ref_only);
	fprintf(fp, "  samples: profile %llu, reference %llu\n", (unsigned long long)o->test_total,
		(unsigned long long)o->ref_total);
	size_t k = top < 0 ? 0 : top == 0 || (size_t)top > o->n_units ? o->n_units : (size_t)top;
	if (!k)
		return;
	fprintf(fp, "%-9s %-9s %-9s %-14s %-14s %s\n", "Overlap", "Weight", "RefWeight", "Samples",
		"RefSamples", "Context");
	for (size_t i = 0; i < k; i++) {
		const struct spgo_cso_unit *u = &o->units[i];
		char a[16], b[16], c[16];
		snprintf(a, sizeof a, "%.2f%%", 100 * u->overlap);
		snprintf(b, sizeof b, "%.2f%%", o->test_total ? 100.0 * (double)u->test_sum / (double)o->test_total : 0.0);
		snprintf(c, sizeof c, "%.2f%%", o->ref_total ? 100.0 * (double)u->ref_sum / (double)o->ref_total : 0.0);
		fprintf(fp, "%-9s %-9s %-9s %-14llu %-14llu %s%s\n", a, b, c, (unsigned long long)u->test_sum,
			(unsigned long long)u->ref_sum, u->inlined ? "" : "base ", u->key);
	}
}

void spgo_cs_overlap_free(struct spgo_cs_overlap *o)
{
	for (size_t i = 0; i < o->n_units; i++)
		free(o->units[i].key);
	free(o->units);
	memset(o, 0, sizeof *o);
}
