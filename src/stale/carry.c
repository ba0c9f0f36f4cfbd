/*
 * spgo carry (spgo/stale.h): a profile collected on build OLD rewritten for
 * build NEW.
 *
 * Line profiles: for each function of both builds, OLD's and NEW's line
 * locations (offset from decl_line, discriminator), in line order, are
 * aligned by a longest common subsequence, as clang's
 * -salvage-stale-profile aligns call anchors: two locations pair when both
 * are call or inline sites of the same callees (an anchor, weight
 * ANCHOR_WEIGHT), or when neither is a site, both have the same
 * discriminator and the instructions whose innermost frame is there are
 * of the same classes (a row, weight 1).  A location left unpaired moves
 * by the delta of the nearer paired location around it (a virtual pair
 * 0 -> 0 at the function's start); a location moved onto no code of NEW
 * stays where it was when there is code there.  Body records, call
 * targets and inlinee locations are rewritten through that map, inlinees
 * through their own function's map; functions that spgo stale finds
 * renamed take NEW's name.  What lands on no code of NEW is dropped, and
 * counted.
 *
 * Probe profiles: functions whose CFG checksum is unchanged keep their
 * samples (their checksum is NEW's already); renamed functions (same
 * checksum) take NEW's name; functions whose checksum changed would need
 * block matching (not done yet): they are kept as they are and counted
 * as not carried.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/profile.h"
#include "stale/stale_impl.h"

#define ANCHOR_WEIGHT 4
#define MAX_DEPTH 512
#define MAX_LCS_CELLS (1u << 24) /* above: align the anchors only */

/* How a location was placed (index of spgo_carry_report.how_*). */
enum { HOW_SAME, HOW_ANCHOR, HOW_ROW, HOW_SHIFT };

/* A location of one function in one build, in line order. */
struct loc_row {
	uint64_t loc;
	uint64_t anchor; /* hash of the callees of its sites, 0: no site */
	uint64_t sig;    /* instruction signature (stale_build.sigs) */
};

/* A pair of the alignment: OLD location -> NEW location. */
struct loc_pair {
	uint64_t from, to;
	int how;
};

/* The map of one function (OLD guid -> NEW guid). */
struct fn_map {
	VEC(struct loc_pair) pairs; /* in OLD line order */
};

struct carrier {
	struct spgo_profile *p, *out;
	struct stale_build *ob, *nb;
	const struct spgo_stale_report *st;
	int probe, md5;
	struct spgo_kmap renamed;  /* OLD guid -> index into st->funcs + 1 */
	struct spgo_kmap map_index; /* OLD guid -> maps index + 1 */
	VEC(struct fn_map) maps;
	struct rows { /* every location of a build, by (guid, loc) */
		struct loc_row *v;
		uint64_t *guid; /* the guid of each row */
		size_t n;
	} orows, nrows;
	struct spgo_carry_report *r;
	char buf[32];
};

/* ---- the locations of each function ------------------------------------------ */

struct grow {
	uint64_t guid;
	struct loc_row row;
};

static int cmp_grow(const void *pa, const void *pb)
{
	const struct grow *a = pa, *b = pb;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->row.loc < b->row.loc ? -1 : a->row.loc > b->row.loc;
}

/* Every (guid, loc) of build b with its anchor and signature, sorted. */
static void collect_rows(struct stale_build *b, struct rows *out)
{
	VEC(struct loc_row) rows_v = {0};
	VEC(uint64_t) guids_v = {0};
	VEC(struct grow) g = {0};
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&b->locs, &it, &key, &val);) {
		struct grow x = {key[0], {key[1], 0, 0}};
		const uint64_t *s = spgo_kmap_find(&b->sigs, key);
		x.row.sig = s ? *s : 0;
		VEC_PUSH(&g, x);
	}
	spgo_sort(g.v, g.n, sizeof *g.v, cmp_grow);
	for (size_t i = 0; i < g.n; i++) {
		VEC_PUSH(&rows_v, g.v[i].row);
		VEC_PUSH(&guids_v, g.v[i].guid);
	}
	VEC_FREE(&g);
	out->v = rows_v.v;
	out->guid = guids_v.v;
	out->n = rows_v.n;
	struct loc_row *rows = out->v;
	const uint64_t *guids = out->guid;
	/* the anchors: every site of a location, hashed in (order-free) */
	for (size_t i = 0; i < b->anchors.n; i++) {
		const struct stale_anchor *a = &b->anchors.v[i];
		size_t lo = 0, hi = out->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (guids[mid] < a->guid || (guids[mid] == a->guid && rows[mid].loc < a->loc))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < out->n && guids[lo] == a->guid && rows[lo].loc == a->loc)
			rows[lo].anchor += spgo_hash64(a->callee ^ 0x5bd1e995u) | 1;
	}
}

/* The rows of guid: first index, count in *n. */
static size_t rows_of(const struct rows *r, uint64_t guid, size_t *n)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->guid[mid] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < r->n && r->guid[e] == guid)
		e++;
	*n = e - lo;
	return lo;
}

/* ---- alignment ----------------------------------------------------------------- */

/* The weight of pairing a with b: anchors with the same callees, or rows
 * without sites with the same instructions; 0: no pair. */
static unsigned pair_weight(const struct loc_row *a, const struct loc_row *b, int anchors_only)
{
	if (a->anchor || b->anchor)
		return a->anchor == b->anchor ? ANCHOR_WEIGHT : 0;
	return !anchors_only && a->sig && a->sig == b->sig && (uint32_t)a->loc == (uint32_t)b->loc ? 1 : 0;
}

/* Weighted LCS of o[0..n) and w[0..m): the pairs, in order.  Of equal
 * alignments the one pairing the latest locations is taken: code is
 * mostly inserted, and the old code after the insertion point is then
 * paired with itself rather than with a look-alike inserted before it. */
static void lcs(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, int anchors_only,
		struct fn_map *fm)
{
	size_t cols = m + 1;
	uint32_t *s = xcalloc((n + 1) * cols, sizeof *s); /* s[i][j]: best of o[..i), w[..j) */
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			uint32_t best = s[(i - 1) * cols + j] > s[i * cols + j - 1] ? s[(i - 1) * cols + j]
										: s[i * cols + j - 1];
			unsigned wt = pair_weight(&o[i - 1], &w[j - 1], anchors_only);
			if (wt && s[(i - 1) * cols + j - 1] + wt > best)
				best = s[(i - 1) * cols + j - 1] + wt;
			s[i * cols + j] = best;
		}
	size_t first = fm->pairs.n;
	for (size_t i = n, j = m; i > 0 && j > 0;) {
		unsigned wt = pair_weight(&o[i - 1], &w[j - 1], anchors_only);
		if (wt && s[i * cols + j] == s[(i - 1) * cols + j - 1] + wt) {
			struct loc_pair pr = {o[i - 1].loc, w[j - 1].loc, o[i - 1].anchor ? HOW_ANCHOR : HOW_ROW};
			if (pr.from == pr.to)
				pr.how = HOW_SAME;
			VEC_PUSH(&fm->pairs, pr);
			i--, j--;
		} else if (s[(i - 1) * cols + j] >= s[i * cols + j - 1]) {
			i--;
		} else {
			j--;
		}
	}
	for (size_t a = first, b = fm->pairs.n; a + 1 < b; a++, b--) { /* into OLD line order */
		struct loc_pair t = fm->pairs.v[a];
		fm->pairs.v[a] = fm->pairs.v[b - 1];
		fm->pairs.v[b - 1] = t;
	}
	free(s);
}

/* The location map of OLD function og to NEW function ng: its index in
 * c->maps (a pointer would not outlive the next map made). */
static size_t fn_map_get(struct carrier *c, uint64_t og, uint64_t ng)
{
	uint64_t *v = spgo_kmap_find(&c->map_index, &og);
	if (v)
		return (size_t)(*v - 1);
	struct fn_map fm = {0};
	size_t n, m;
	size_t oi = rows_of(&c->orows, og, &n), ni = rows_of(&c->nrows, ng, &m);
	/* line-0 rows move with the function's first line: not aligned */
	while (n && (c->orows.v[oi + n - 1].loc >> 32) >= STALE_LINE0)
		n--;
	while (m && (c->nrows.v[ni + m - 1].loc >> 32) >= STALE_LINE0)
		m--;
	if (n && m && (uint64_t)n * m <= MAX_LCS_CELLS) {
		lcs(&c->orows.v[oi], n, &c->nrows.v[ni], m, 0, &fm);
	} else if (n && m) {
		/* too large for rows: the anchors alone */
		VEC(struct loc_row) oa = {0}, na = {0};
		for (size_t i = 0; i < n; i++)
			if (c->orows.v[oi + i].anchor)
				VEC_PUSH(&oa, c->orows.v[oi + i]);
		for (size_t j = 0; j < m; j++)
			if (c->nrows.v[ni + j].anchor)
				VEC_PUSH(&na, c->nrows.v[ni + j]);
		if ((uint64_t)oa.n * na.n <= MAX_LCS_CELLS)
			lcs(oa.v, oa.n, na.v, na.n, 1, &fm);
		VEC_FREE(&oa);
		VEC_FREE(&na);
	}
	VEC_PUSH(&c->maps, fm);
	*spgo_kmap_upsert(&c->map_index, &og) = c->maps.n;
	c->r->funcs_aligned++;
	return c->maps.n - 1;
}

/* loc of the OLD function through its map: the new location, *how set. */
static uint64_t map_loc(const struct fn_map *fm, uint64_t loc, int *how)
{
	uint32_t line = (uint32_t)(loc >> 32), disc = (uint32_t)loc;
	if (stale_is_line0(line) || !fm) {
		*how = HOW_SAME;
		return loc;
	}
	const struct loc_pair *p = fm->pairs.v;
	size_t lo;
	SPGO_LOWER_BOUND(lo, p, fm->pairs.n, from, loc);
	if (lo < fm->pairs.n && p[lo].from == loc) {
		*how = p[lo].how;
		return p[lo].to;
	}
	/* between pairs lo - 1 and lo (a virtual 0 -> 0 before the first):
	 * the nearer one's delta */
	int64_t prev_line = 0, prev_delta = 0;
	if (lo > 0) {
		prev_line = (int64_t)(p[lo - 1].from >> 32);
		prev_delta = (int64_t)(p[lo - 1].to >> 32) - prev_line;
	}
	int64_t delta = prev_delta;
	if (lo < fm->pairs.n) {
		int64_t next_line = (int64_t)(p[lo].from >> 32);
		if (next_line - (int64_t)line < (int64_t)line - prev_line)
			delta = (int64_t)(p[lo].to >> 32) - next_line;
	}
	int64_t nl = (int64_t)line + delta;
	if (nl < 0 || nl >= 0x8000)
		nl = line;
	*how = nl == line ? HOW_SAME : HOW_SHIFT;
	return stale_loc((uint32_t)nl, disc);
}

/* ---- rewriting ------------------------------------------------------------------- */

/* The name NEW knows the function of profile name id by: its new name when
 * renamed (an MD5 profile: its GUID), else the same; *guid_to its GUID. */
static const char *new_name(struct carrier *c, uint32_t name, uint64_t *guid_from, uint64_t *guid_to)
{
	uint64_t g = stale_guid(spgo_name(c->p, name), spgo_name_len(c->p, name), c->md5, c->probe);
	*guid_from = *guid_to = g;
	const uint64_t *v = spgo_kmap_find(&c->renamed, &g);
	if (!v)
		return spgo_name(c->p, name);
	const char *to = c->st->funcs[*v - 1].renamed_to;
	*guid_to = stale_guid(to, strlen(to), 0, c->probe);
	if (!c->md5)
		return to;
	snprintf(c->buf, sizeof c->buf, "%" PRIu64, *guid_to);
	return c->buf;
}

/* Is there code of NEW function g at loc (line-0 records: any line-0 code)? */
static int placed(const struct carrier *c, uint64_t g, uint64_t loc)
{
	if (stale_build_has_loc(c->nb, g, loc))
		return 1;
	return stale_is_line0((uint32_t)(loc >> 32)) && stale_build_has_loc(c->nb, g, stale_loc(STALE_LINE0, (uint32_t)loc));
}

static void add_how(struct spgo_carry_report *r, int how, uint64_t count)
{
	switch (how) {
	case HOW_SAME: r->as_is += count; break;
	case HOW_ANCHOR: r->by_anchor += count; break;
	case HOW_ROW: r->by_row += count; break;
	default: r->by_shift += count; break;
	}
}

/* Carry the bodies of profile function f into dst (NEW guid ng) through fm. */
static void carry_bodies(struct carrier *c, uint32_t f, uint32_t dst, uint64_t ng, const struct fn_map *fm,
			 int is_renamed)
{
	const struct spgo_func *fn = spgo_fn(c->p, f);
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = c->p->bodies.v[b].next) {
		const struct spgo_body bd = c->p->bodies.v[b];
		int how = HOW_SAME;
		uint64_t loc = stale_loc(bd.line, bd.disc);
		uint64_t to = c->probe ? loc : map_loc(fm, loc, &how);
		c->r->samples += bd.count;
		if (!c->probe && to != loc && !placed(c, ng, to) && placed(c, ng, loc)) {
			to = loc; /* moved onto no code, but there is code where it was */
			how = HOW_SAME;
		}
		int ok = c->probe ? stale_build_fn(c->nb, ng)->checksum == fn->checksum : placed(c, ng, to);
		if (!ok && !c->probe) {
			c->r->dropped += bd.count;
			for (uint32_t t = bd.targets; t != SPGO_NONE; t = c->p->targets.v[t].next)
				c->r->call_samples += c->p->targets.v[t].count;
			continue;
		}
		if (ok) {
			c->r->carried += bd.count;
			if (is_renamed)
				c->r->renamed += bd.count;
			else
				add_how(c->r, how, bd.count);
		} else {
			c->r->kept_unmatched += bd.count; /* probe: checksum changed */
		}
		uint32_t nl = (uint32_t)(to >> 32), nd = (uint32_t)to;
		spgo_add_body(c->out, dst, nl, nd, bd.count);
		for (uint32_t t = bd.targets; t != SPGO_NONE; t = c->p->targets.v[t].next) {
			const struct spgo_target tg = c->p->targets.v[t];
			uint64_t cf, ct;
			const char *callee = new_name(c, tg.name, &cf, &ct);
			c->r->call_samples += tg.count;
			if (ok && stale_build_site(c->nb, ng, to, ct))
				c->r->call_carried += tg.count;
			spgo_add_target(c->out, dst, nl, nd, callee, tg.count);
		}
	}
}

/* Count the body samples of f and its inlinees as dropped. */
static void drop_all(struct carrier *c, uint32_t f)
{
	uint64_t s = spgo_func_body_sum(c->p, f);
	c->r->samples += s;
	c->r->dropped += s;
	for (uint32_t k = spgo_fn(c->p, f)->children; k != SPGO_NONE; k = spgo_fn(c->p, k)->sibling)
		drop_all(c, k);
}

/* Carry function profile f into dst of the new profile, and its inlinees. */
static int carry_func(struct carrier *c, uint32_t f, uint32_t dst, uint64_t og, uint64_t ng, int is_renamed,
		      int depth)
{
	if (depth > MAX_DEPTH)
		return spgo_error("%s: inlinees nested deeper than %d levels", c->st->profile, MAX_DEPTH);
	const struct spgo_func *fn = spgo_fn(c->p, f);
	struct spgo_func *d = spgo_fn(c->out, dst);
	d->checksum = fn->checksum;
	d->attrs |= fn->attrs;
	if (fn->parent == SPGO_NONE)
		spgo_add_head(c->out, dst, fn->head);
	size_t fmi = c->probe ? SIZE_MAX : fn_map_get(c, og, ng);
	carry_bodies(c, f, dst, ng, c->probe ? NULL : &c->maps.v[fmi], is_renamed);
	for (uint32_t k = fn->children; k != SPGO_NONE; k = spgo_fn(c->p, k)->sibling) {
		const struct spgo_func *kf = spgo_fn(c->p, k);
		uint64_t kog, kng;
		const char *name = new_name(c, kf->name, &kog, &kng);
		int how = HOW_SAME;
		uint64_t at = stale_loc(kf->line, kf->disc);
		if (!c->probe) {
			uint64_t was = at;
			at = map_loc(&c->maps.v[fmi], at, &how); /* inlinees add maps: index again */
			if (at != was && !placed(c, ng, at) && placed(c, ng, was))
				at = was;
		}
		if (!stale_build_fn(c->nb, kng) || (!c->probe && !placed(c, ng, at))) {
			drop_all(c, k);
			continue;
		}
		uint32_t kd = spgo_inlinee_get(c->out, dst, (uint32_t)(at >> 32), (uint32_t)at, name);
		if (carry_func(c, k, kd, kog, kng, is_renamed || kog != kng, depth + 1) < 0)
			return -1;
	}
	return 0;
}

static int carry_all(struct carrier *c)
{
	for (size_t i = 0; i < c->st->nfuncs; i++)
		if (c->st->funcs[i].renamed_to) {
			uint64_t g = c->st->funcs[i].guid;
			*spgo_kmap_upsert(&c->renamed, &g) = i + 1;
		}
	for (size_t i = 0; i < c->p->top.n; i++) {
		uint32_t f = c->p->top.v[i];
		uint64_t og, ng;
		const char *name = new_name(c, spgo_fn(c->p, f)->name, &og, &ng);
		if (!stale_build_fn(c->nb, ng)) {
			drop_all(c, f);
			continue;
		}
		if (og != ng)
			c->r->funcs_renamed++;
		uint32_t dst = spgo_func_get(c->out, name);
		if (carry_func(c, f, dst, og, ng, og != ng, 0) < 0)
			return -1;
	}
	return 0;
}

int spgo_carry(const struct spgo_carry_opts *o, struct spgo_carry_report *r)
{
	memset(r, 0, sizeof *r);
	struct spgo_stale_opts so = {.profile = o->profile, .binary = o->binary, .old_binary = o->old_binary};
	if (!o->old_binary)
		return spgo_error("%s: carrying a profile needs the build it was collected on (--old-binary)",
				  o->profile);
	if (spgo_stale_check(&so, &r->before) < 0)
		return -1;
	enum spgo_format fmt;
	struct spgo_profile *p = spgo_profile_read(o->profile, &fmt);
	if (!p) {
		spgo_carry_report_free(r);
		return -1;
	}
	int rc = -1;
	struct carrier c = {.p = p, .st = &r->before, .r = r};
	c.probe = !!(p->flags & SPGO_PROF_PROBE);
	c.md5 = !!(p->flags & SPGO_PROF_MD5);
	r->probe = c.probe;
	if (p->flags & SPGO_PROF_CS) {
		spgo_error("%s: a context-sensitive profile: spgo carry rewrites plain (or nested) profiles only "
			   "(spgo convert it to the nested form first)", o->profile);
		goto out;
	}
	struct stale_build ob, nb;
	int gcc = fmt == SPGO_FMT_GCOV;
	if (stale_build_open(&nb, o->binary, c.probe, gcc, "new") < 0)
		goto out;
	if (stale_build_open(&ob, o->old_binary, c.probe, gcc, "old") < 0) {
		stale_build_close(&nb);
		goto out;
	}
	c.ob = &ob;
	c.nb = &nb;
	c.out = spgo_profile_new();
	c.out->flags = p->flags;
	spgo_kmap_init(&c.renamed, 1);
	spgo_kmap_init(&c.map_index, 1);
	if (!c.probe) {
		collect_rows(&ob, &c.orows);
		collect_rows(&nb, &c.nrows);
	}
	rc = carry_all(&c);
	if (rc == 0) {
		enum spgo_format of = o->format != (int)SPGO_FMT_UNKNOWN ? (enum spgo_format)o->format : fmt;
		spgo_profile_finalize(c.out, SPGO_FIN_TOTALS | (of == SPGO_FMT_EXTBINARY ? 0 : SPGO_FIN_NO_SUMMARY));
		if (!spgo_profile_has_samples(c.out))
			rc = spgo_error("%s: nothing of the profile lands in %s: no profile written", o->profile,
					o->binary);
		else
			rc = spgo_profile_write(c.out, o->out, of, o->wopts);
	}
	for (size_t i = 0; i < c.maps.n; i++)
		VEC_FREE(&c.maps.v[i].pairs);
	VEC_FREE(&c.maps);
	free(c.orows.v);
	free(c.orows.guid);
	free(c.nrows.v);
	free(c.nrows.guid);
	spgo_kmap_free(&c.renamed);
	spgo_kmap_free(&c.map_index);
	spgo_profile_free(c.out);
	stale_build_close(&ob);
	stale_build_close(&nb);
out:
	spgo_profile_free(p);
	if (rc < 0)
		spgo_carry_report_free(r);
	return rc;
}

double spgo_carry_pct(const struct spgo_carry_report *r)
{
	return r->samples ? 100.0 * (double)r->carried / (double)r->samples : 0;
}

void spgo_carry_report_free(struct spgo_carry_report *r)
{
	spgo_stale_report_free(&r->before);
	memset(r, 0, sizeof *r);
}
