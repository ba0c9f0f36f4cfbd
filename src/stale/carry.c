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
 * checksum) take NEW's name; a function whose checksum changed gets the
 * probe map of stale_align_blocks() (its probes matched by call anchors
 * and block hashes of both builds, the rest by clang's delta rule): each
 * NEW probe takes the samples of its OLD probe, the function NEW's
 * checksum.  An OLD probe may so land on several NEW ones; it is counted
 * once.  With min_confidence, a function placed mostly by deltas is kept
 * as it is (OLD's checksum), for clang to drop.  The probes of a carried
 * function that the map places by no code (none, or a delta) then take
 * the counts profi infers on NEW's CFG from those it does (flow.c).
 *
 * Context-sensitive profiles: a context "a:1 @ b:2 @ c" becomes the
 * context of NEW's names with each caller frame's call site carried
 * through its function's map (its first place in NEW); a context with a
 * function NEW lacks, or a call site with no place, is dropped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/profile.h"
#include "stale/stale_impl.h"

#define MAX_DEPTH 512


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
	double min_confidence; /* spgo_carry_opts */
	int no_infer;          /* spgo_carry_opts */
	int keeping;           /* in a function kept as it is (its inlinees too) */
	char buf[32];
	char *long_name; /* a context frame's name, when longer than buf */
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
		struct grow x = {key[0], {key[1], 0, 0, 0, 0}};
		const uint64_t *s = spgo_kmap_find(&b->sigs, key);
		x.row.sig = s && !(b->probe && *s == STALE_NO_SIG) ? *s : 0;
		if (b->probe && (s = spgo_kmap_find(&b->wsigs, key)))
			x.row.wsig = *s;
		if (b->probe && (s = spgo_kmap_find(&b->blocks, key)))
			x.row.blk = *s;
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
			rows[lo].anchor += spgo_hash64(stale_build_anchor_key(b, a->callee) ^ 0x5bd1e995u) | 1;
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
	if (c->probe) {
		stale_align_blocks(&c->orows.v[oi], n, &c->nrows.v[ni], m, &fm);
		goto done;
	}
	/* line-0 rows move with the function's first line: not aligned */
	while (n && (c->orows.v[oi + n - 1].loc >> 32) >= STALE_LINE0)
		n--;
	while (m && (c->nrows.v[ni + m - 1].loc >> 32) >= STALE_LINE0)
		m--;
	if (n && m && (uint64_t)n * m <= STALE_MAX_LCS_CELLS) {
		stale_lcs(&c->orows.v[oi], n, &c->nrows.v[ni], m, LCS_ROWS, &fm);
	} else if (n && m) {
		/* too large for rows: the anchors alone */
		VEC(struct loc_row) oa = {0}, na = {0};
		for (size_t i = 0; i < n; i++)
			if (c->orows.v[oi + i].anchor)
				VEC_PUSH(&oa, c->orows.v[oi + i]);
		for (size_t j = 0; j < m; j++)
			if (c->nrows.v[ni + j].anchor)
				VEC_PUSH(&na, c->nrows.v[ni + j]);
		if ((uint64_t)oa.n * na.n <= STALE_MAX_LCS_CELLS)
			stale_lcs(oa.v, oa.n, na.v, na.n, LCS_ANCHORS, &fm);
		VEC_FREE(&oa);
		VEC_FREE(&na);
	}
done:
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
static const char *new_name_str(struct carrier *c, const char *name, size_t len, uint64_t *guid_from,
				uint64_t *guid_to)
{
	uint64_t g = stale_guid(name, len, c->md5, c->probe);
	*guid_from = *guid_to = g;
	const uint64_t *v = spgo_kmap_find(&c->renamed, &g);
	if (!v) {
		if (name[len] == '\0')
			return name;
		snprintf(c->buf, sizeof c->buf, "%.*s", (int)len, name);
		if (strlen(c->buf) == len)
			return c->buf;
		free(c->long_name);
		c->long_name = xstrndup(name, len);
		return c->long_name;
	}
	const char *to = c->st->funcs[*v - 1].renamed_to;
	*guid_to = stale_guid(to, strlen(to), 0, c->probe);
	if (!c->md5)
		return to;
	snprintf(c->buf, sizeof c->buf, "%" PRIu64, *guid_to);
	return c->buf;
}

static const char *new_name(struct carrier *c, uint32_t name, uint64_t *guid_from, uint64_t *guid_to)
{
	return new_name_str(c, spgo_name(c->p, name), spgo_name_len(c->p, name), guid_from, guid_to);
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
	case -1: r->renamed += count; break;
	case HOW_SAME: r->as_is += count; break;
	case HOW_ANCHOR: r->by_anchor += count; break;
	case HOW_HASH: r->by_hash += count; break;
	case HOW_ROW: r->by_row += count; break;
	case HOW_GAP: r->by_gap += count; break;
	default: r->by_shift += count; break;
	}
}

/* Most NEW locations one OLD location goes to (a probe map may pull one
 * OLD probe into several NEW ones, as clang would). */
#define MAX_DESTS 8

/* Where OLD location loc of a function goes in NEW function ng, through
 * its map fm (NULL: a probe function whose checksum is NEW's, unchanged):
 * up to MAX_DESTS locations into to[], how each was placed into how[];
 * the count (0: no place in NEW). */
static size_t dests(const struct carrier *c, const struct fn_map *fm, uint64_t ng, uint64_t loc, uint64_t *to,
		    int *how)
{
	if (c->probe && !fm) {
		to[0] = loc;
		how[0] = HOW_SAME;
		return 1;
	}
	if (c->probe) {
		const struct loc_pair *p = fm->pairs.v;
		size_t lo, k = 0;
		SPGO_LOWER_BOUND(lo, p, fm->pairs.n, from, loc);
		for (; lo < fm->pairs.n && p[lo].from == loc && k < MAX_DESTS; lo++)
			if (stale_build_has_loc(c->nb, ng, p[lo].to)) {
				to[k] = p[lo].to;
				how[k++] = p[lo].how;
			}
		return k;
	}
	int h = HOW_SAME;
	uint64_t t = map_loc(fm, loc, &h);
	if (t != loc && !placed(c, ng, t) && placed(c, ng, loc)) {
		t = loc; /* moved onto no code, but there is code where it was */
		h = HOW_SAME;
	}
	if (!placed(c, ng, t))
		return 0;
	to[0] = t;
	how[0] = h;
	return 1;
}

/* The shadow of OLD location loc in probe map fm, or NULL. */
static const struct loc_pair *shadow_of(const struct fn_map *fm, uint64_t loc)
{
	const struct loc_pair *p = fm->shadows.v;
	size_t lo;
	SPGO_LOWER_BOUND(lo, p, fm->shadows.n, from, loc);
	return lo < fm->shadows.n && p[lo].from == loc ? &p[lo] : NULL;
}

/* Carry the bodies of profile function f into dst (NEW guid ng) through fm. */
static void carry_bodies(struct carrier *c, uint32_t f, uint32_t dst, uint64_t ng, const struct fn_map *fm,
			 int is_renamed)
{
	const struct spgo_func *fn = spgo_fn(c->p, f);
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = c->p->bodies.v[b].next) {
		const struct spgo_body bd = c->p->bodies.v[b];
		uint64_t to[MAX_DESTS];
		int how[MAX_DESTS];
		size_t k = dests(c, fm, ng, stale_loc(bd.line, bd.disc), to, how);
		c->r->samples += bd.count;
		if (c->keeping) { /* written as it is, for clang to drop */
			c->r->kept += bd.count;
			spgo_add_body(c->out, dst, bd.line, bd.disc, bd.count);
			for (uint32_t t = bd.targets; t != SPGO_NONE; t = c->p->targets.v[t].next) {
				uint64_t cf, ct;
				const char *callee = new_name(c, c->p->targets.v[t].name, &cf, &ct);
				c->r->call_samples += c->p->targets.v[t].count;
				spgo_add_target(c->out, dst, bd.line, bd.disc, callee, c->p->targets.v[t].count);
			}
			continue;
		}
		for (uint32_t t = bd.targets; t != SPGO_NONE; t = c->p->targets.v[t].next)
			c->r->call_samples += c->p->targets.v[t].count;
		const struct loc_pair *sh = k || !fm ? NULL : shadow_of(fm, stale_loc(bd.line, bd.disc));
		if (sh) { /* its block's samples are carried by another probe */
			c->r->carried += bd.count;
			add_how(c->r, is_renamed ? -1 : sh->how, bd.count);
			continue;
		}
		if (!k) {
			c->r->dropped += bd.count;
			continue;
		}
		c->r->carried += bd.count;
		int best = how[0]; /* (several places: counted by the surest) */
		for (size_t i = 1; i < k; i++)
			best = how[i] < best ? how[i] : best;
		if (is_renamed)
			c->r->renamed += bd.count;
		else
			add_how(c->r, best, bd.count);
		for (size_t i = 0; i < k; i++) {
			uint32_t nl = (uint32_t)(to[i] >> 32), nd = (uint32_t)to[i];
			spgo_add_body(c->out, dst, nl, nd, bd.count);
			for (uint32_t t = bd.targets; t != SPGO_NONE; t = c->p->targets.v[t].next) {
				const struct spgo_target tg = c->p->targets.v[t];
				uint64_t cf, ct;
				const char *callee = new_name(c, tg.name, &cf, &ct);
				if (i == 0 && stale_build_site(c->nb, ng, to[0], ct))
					c->r->call_carried += tg.count;
				spgo_add_target(c->out, dst, nl, nd, callee, tg.count);
			}
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

/* The map of OLD function og (profile checksum ck) to NEW function ng: an
 * index into c->maps, or SIZE_MAX when there is none to make (a probe
 * function whose checksum is NEW's: its probes are NEW's). */
static size_t map_of(struct carrier *c, uint64_t og, uint64_t ng, uint64_t ck)
{
	if (c->probe && stale_build_fn(c->nb, ng)->checksum == ck)
		return SIZE_MAX;
	return fn_map_get(c, og, ng);
}

/* The share (percent) of the body samples of profile function f that its
 * probe map fm places by the code (the same probe, a call anchor, a block
 * hash, a block's code), not by a delta; 100 when it has none. */
static double confidence(const struct carrier *c, uint32_t f, const struct fn_map *fm, uint64_t ng)
{
	uint64_t all = 0, sure = 0;
	for (uint32_t b = spgo_fn(c->p, f)->bodies; b != SPGO_NONE; b = c->p->bodies.v[b].next) {
		const struct spgo_body *bd = &c->p->bodies.v[b];
		uint64_t to[MAX_DESTS];
		int how[MAX_DESTS], best = HOW_SHIFT;
		size_t k = dests(c, fm, ng, stale_loc(bd->line, bd->disc), to, how);
		for (size_t i = 0; i < k; i++)
			best = how[i] < best ? how[i] : best;
		const struct loc_pair *sh = k ? NULL : shadow_of(fm, stale_loc(bd->line, bd->disc));
		if (sh)
			best = sh->how;
		all += bd->count;
		sure += best <= HOW_ROW ? bd->count : 0;
	}
	return all ? 100.0 * (double)sure / (double)all : 100;
}

/* Carry function profile f into dst of the new profile, and its inlinees
 * (c->keeping: as they are, OLD's probes and checksums). */
static int carry_func(struct carrier *c, uint32_t f, uint32_t dst, uint64_t og, uint64_t ng, int is_renamed,
		      int depth)
{
	if (depth > MAX_DEPTH)
		return spgo_error("%s: inlinees nested deeper than %d levels", c->st->profile, MAX_DEPTH);
	const struct spgo_func *fn = spgo_fn(c->p, f);
	const struct stale_fn *nf = stale_build_fn(c->nb, ng);
	struct spgo_func *d = spgo_fn(c->out, dst);
	/* probe profiles: NEW's checksum, which the map's probe ids are of */
	d->checksum = c->probe ? nf->checksum : fn->checksum;
	d->attrs |= fn->attrs;
	if (fn->parent == SPGO_NONE)
		spgo_add_head(c->out, dst, fn->head);
	size_t fmi = c->keeping ? SIZE_MAX : map_of(c, og, ng, fn->checksum);
	int keep = 0;
	if (fmi != SIZE_MAX && c->probe && c->min_confidence > 0 &&
	    confidence(c, f, &c->maps.v[fmi], ng) < c->min_confidence) {
		keep = 1; /* a guess: clang drops it, as it would the profile as it is */
		c->keeping++;
		c->r->funcs_kept++;
		fmi = SIZE_MAX;
	}
	if (c->keeping)
		d->checksum = fn->checksum;
	carry_bodies(c, f, dst, ng, fmi == SIZE_MAX ? NULL : &c->maps.v[fmi], is_renamed);
	for (uint32_t k = fn->children; k != SPGO_NONE; k = spgo_fn(c->p, k)->sibling) {
		const struct spgo_func *kf = spgo_fn(c->p, k);
		uint64_t kog, kng, to[MAX_DESTS];
		int how[MAX_DESTS];
		const char *name = new_name(c, kf->name, &kog, &kng);
		/* inlinees add maps: index c->maps again */
		size_t n = dests(c, fmi == SIZE_MAX ? NULL : &c->maps.v[fmi], ng, stale_loc(kf->line, kf->disc), to, how);
		if (!stale_build_fn(c->nb, kng) || !n) {
			drop_all(c, k);
			continue;
		}
		uint32_t kd = spgo_inlinee_get(c->out, dst, (uint32_t)(to[0] >> 32), (uint32_t)to[0], name);
		if (carry_func(c, k, kd, kog, kng, is_renamed || kog != kng, depth + 1) < 0)
			return -1;
	}
	/* the probes placed by no code: counts inferred on NEW's CFG (an
	 * inlinee's blocks are its caller's: top-level functions only), after
	 * the inlinees, whose calls bound their blocks */
	if (c->probe && fmi != SIZE_MAX && !c->keeping && !c->no_infer && fn->parent == SPGO_NONE)
		stale_infer_probes(c->nb, ng, &c->maps.v[fmi], c->out, dst, &c->r->inferred);
	c->keeping -= keep;
	return 0;
}

/* ---- context-sensitive profiles -------------------------------------------------- */

/* One frame "name:LINE[.DISC]" (or the leaf "name") of context text. */
struct frame {
	const char *name;
	size_t len;
	uint32_t line, disc;
};

/* Split context text at " @ " into frames (the last one the leaf): the
 * count, or 0 when a frame is malformed. */
static size_t split_ctx(const char *s, struct frame *fr, size_t max)
{
	size_t n = 0;
	for (;;) {
		const char *e = strstr(s, " @ ");
		const char *end = e ? e : s + strlen(s);
		if (n == max)
			return 0;
		struct frame f = {s, (size_t)(end - s), 0, 0};
		if (e) { /* a caller frame: its call site after the last ':' */
			const char *colon = end;
			while (colon > s && *colon != ':')
				colon--;
			if (colon == s)
				return 0;
			char *x;
			f.len = (size_t)(colon - s);
			f.line = (uint32_t)strtoul(colon + 1, &x, 10);
			if (*x == '.')
				f.disc = (uint32_t)strtoul(x + 1, &x, 10);
			if (x != end)
				return 0;
		}
		fr[n++] = f;
		if (!e)
			return n;
		s = e + 3;
	}
}

/* The map of a caller frame's function (OLD og, NEW ng) for its call site:
 * NULL when a probe function's checksum is the same in OLD and NEW. */
static const struct fn_map *frame_map(struct carrier *c, uint64_t og, uint64_t ng)
{
	const struct stale_fn *of = stale_build_fn(c->ob, og), *nf = stale_build_fn(c->nb, ng);
	if (c->probe && of && of->checksum == nf->checksum)
		return NULL;
	return &c->maps.v[fn_map_get(c, og, ng)];
}

/* Carry a context profile f: each caller frame's call site through its
 * function's map, every frame under its NEW name, the leaf's samples into
 * the new context.  A context with a function NEW lacks, or a call site
 * with no place in NEW, is dropped. */
static int carry_ctx(struct carrier *c, uint32_t f)
{
	struct frame fr[MAX_DEPTH];
	size_t n = split_ctx(spgo_func_key(c->p, f), fr, MAX_DEPTH);
	if (!n)
		return spgo_error("%s: a malformed context: %s", c->st->profile, spgo_func_key(c->p, f));
	VEC(char) buf = {0};
	uint64_t og = 0, ng = 0;
	int is_renamed = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = new_name_str(c, fr[i].name, fr[i].len, &og, &ng);
		is_renamed |= og != ng;
		if (!stale_build_fn(c->nb, ng))
			goto drop;
		for (const char *q = name; *q; q++)
			VEC_PUSH(&buf, *q);
		if (i + 1 == n)
			break;
		uint64_t to[MAX_DESTS];
		int how[MAX_DESTS];
		if (!dests(c, frame_map(c, og, ng), ng, stale_loc(fr[i].line, fr[i].disc), to, how))
			goto drop;
		char loc[48];
		int len = spgo_profgen_loc(loc, sizeof loc, (uint32_t)(to[0] >> 32), (uint32_t)to[0], " @ ");
		for (int j = 0; j < len; j++)
			VEC_PUSH(&buf, loc[j]);
	}
	uint32_t dst = spgo_func_get_ctx(c->out, buf.v, buf.n);
	VEC_FREE(&buf);
	c->r->contexts++;
	return carry_func(c, f, dst, og, ng, is_renamed, 0);
drop:
	VEC_FREE(&buf);
	c->r->contexts_dropped++;
	drop_all(c, f);
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
		if (spgo_fn(c->p, f)->ctx != SPGO_NONE) {
			if (carry_ctx(c, f) < 0)
				return -1;
			continue;
		}
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
	struct carrier c = {.p = p, .st = &r->before, .r = r, .min_confidence = o->min_confidence,
			   .no_infer = o->no_infer};
	c.probe = !!(p->flags & SPGO_PROF_PROBE);
	c.md5 = !!(p->flags & SPGO_PROF_MD5);
	r->probe = c.probe;
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
	collect_rows(&ob, &c.orows);
	collect_rows(&nb, &c.nrows);
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
	for (size_t i = 0; i < c.maps.n; i++) {
		VEC_FREE(&c.maps.v[i].pairs);
		VEC_FREE(&c.maps.v[i].shadows);
	}
	VEC_FREE(&c.maps);
	free(c.orows.v);
	free(c.orows.guid);
	free(c.nrows.v);
	free(c.nrows.guid);
	free(c.long_name);
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
