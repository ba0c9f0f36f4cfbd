/*
 * The profile model: function profiles, body records, call targets and
 * inlinees in flat arrays, found again through four hash maps.  See
 * spgo/profile.h for the contract.
 */
#include "spgo/profile.h"
#include "profile/profile_impl.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r < a ? UINT64_MAX : r;
}

static inline uint64_t sat_mul(uint64_t a, uint64_t w)
{
	if (w == 1)
		return a;
	if (a && w > UINT64_MAX / a)
		return UINT64_MAX;
	return a * w;
}

/* ---- the indexes ---------------------------------------------------------- */

/*
 * Small lists are searched by walking their chain; only lists that grow
 * past SMALL are entered in the hash indexes (all their members at once).
 * Most functions have few records and most records few targets, so most
 * lookups touch no hash table at all.
 */
enum { SMALL = 24 };

static inline size_t ptab_hash(uint64_t a, uint64_t b, uint32_t c)
{
	return (size_t)spgo_hash64(a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) *
				   0xc2b2ae3d27d4eb4fULL ^ c);
}

static void ptab_grow(struct spgo_ptab *t)
{
	struct spgo_ptab o = *t;
	t->cap = o.cap ? o.cap * 2 : 64;
	t->s = xcalloc(t->cap, sizeof *t->s);
	size_t mask = t->cap - 1;
	for (size_t i = 0; i < o.cap; i++) {
		struct spgo_ptab_slot *x = &o.s[i];
		if (!x->val)
			continue;
		size_t j = ptab_hash(x->a, x->b, x->c) & mask;
		while (t->s[j].val)
			j = (j + 1) & mask;
		t->s[j] = *x;
	}
	free(o.s);
}

/* The value slot of (a, b, c), inserted as 0 if absent. */
static uint32_t *ptab_upsert(struct spgo_ptab *t, uint64_t a, uint64_t b, uint32_t c)
{
	if ((t->n + 1) * 10 > t->cap * 7)
		ptab_grow(t);
	size_t mask = t->cap - 1, i = ptab_hash(a, b, c) & mask;
	for (;;) {
		struct spgo_ptab_slot *x = &t->s[i];
		if (!x->val) {
			x->a = a;
			x->b = b;
			x->c = c;
			t->n++;
			return &x->val;
		}
		if (x->a == a && x->b == b && x->c == c)
			return &x->val;
		i = (i + 1) & mask;
	}
}

static uint32_t ptab_find(const struct spgo_ptab *t, uint64_t a, uint64_t b, uint32_t c)
{
	if (!t->cap)
		return 0;
	size_t mask = t->cap - 1, i = ptab_hash(a, b, c) & mask;
	for (;;) {
		const struct spgo_ptab_slot *x = &t->s[i];
		if (!x->val)
			return 0;
		if (x->a == a && x->b == b && x->c == c)
			return x->val;
		i = (i + 1) & mask;
	}
}

uint32_t spgo_func_find_id(const struct spgo_profile *p, uint32_t name)
{
	return name < p->top_by_name.n ? p->top_by_name.v[name] : SPGO_NONE;
}

uint32_t spgo_func_find_ctx(const struct spgo_profile *p, uint32_t ctx)
{
	return ptab_find(&p->topmap, (1ULL << 63) | ctx, 0, 0) - 1;
}

uint32_t spgo_inlinee_find(const struct spgo_profile *p, uint32_t func, uint32_t line,
			   uint32_t disc, uint32_t callee)
{
	const struct spgo_func *pf = &p->funcs.v[func];
	if (pf->nchildren >= SMALL)
		return ptab_find(&p->childmap, func, (uint64_t)line << 32 | disc, callee) - 1;
	for (uint32_t c = pf->children; c != SPGO_NONE; c = p->funcs.v[c].sibling) {
		const struct spgo_func *x = &p->funcs.v[c];
		if (x->name == callee && x->line == line && x->disc == disc)
			return c;
	}
	return SPGO_NONE;
}

struct spgo_profile *spgo_profile_new(void)
{
	struct spgo_profile *p = xcalloc(1, sizeof *p);
	spgo_strtab_init(&p->contexts);
	p->read_weight = 1;
	return p;
}

void spgo_profile_free(struct spgo_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->names.blocks.n; i++)
		free(p->names.blocks.v[i]);
	VEC_FREE(&p->names.blocks);
	free(p->names.strs);
	free(p->names.len);
	spgo_strtab_free(&p->contexts);
	VEC_FREE(&p->funcs);
	VEC_FREE(&p->bodies);
	VEC_FREE(&p->targets);
	VEC_FREE(&p->top);
	VEC_FREE(&p->symbols);
	free(p->topmap.s);
	VEC_FREE(&p->top_by_name);
	free(p->bodymap.s);
	free(p->tgtmap.s);
	free(p->childmap.s);
	free(p->namemap.s);
	free(p);
}

/* A word-at-a-time hash for names, which are looked up millions of times. */
static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL, w;
	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 29);
}

/* A new name: its bytes go to the arena (1 MB blocks; long names alone). */
static uint32_t name_new(struct spgo_names *t, const char *s, size_t len)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
		t->len = xrealloc(t->len, t->cap * sizeof *t->len);
	}
	char *d;
	if (len + 1 > t->free_left) {
		size_t bs = len + 1 > (1u << 16) ? len + 1 : (size_t)1 << 20;
		d = xmalloc(bs);
		VEC_PUSH(&t->blocks, d);
		if (bs == len + 1) {
			t->free_at = NULL; /* a block of its own; the next name starts a new one */
			t->free_left = 0;
		} else {
			t->free_at = d + len + 1;
			t->free_left = bs - len - 1;
		}
	} else {
		d = t->free_at;
		t->free_at += len + 1;
		t->free_left -= len + 1;
	}
	memcpy(d, s, len);
	d[len] = 0;
	t->strs[t->n] = d;
	t->len[t->n] = (uint32_t)len;
	return (uint32_t)t->n++;
}

uint32_t spgo_name_id(struct spgo_profile *p, const char *s, size_t len)
{
	uint64_t h = name_hash(s, len);
	for (uint32_t k = 0;; k++) {
		uint32_t *v = ptab_upsert(&p->namemap, h, len, k);
		if (!*v) {
			*v = name_new(&p->names, s, len) + 1;
			return *v - 1;
		}
		if (memcmp(p->names.strs[*v - 1], s, len) == 0)
			return *v - 1; /* same hash, same length, same bytes */
	}
}

static uint32_t new_func(struct spgo_profile *p, uint32_t name, uint32_t ctx, uint32_t parent)
{
	struct spgo_func f = {
		.name = name, .ctx = ctx, .parent = parent,
		.bodies = SPGO_NONE, .children = SPGO_NONE, .sibling = SPGO_NONE,
	};
	VEC_PUSH(&p->funcs, f);
	return (uint32_t)(p->funcs.n - 1);
}

uint32_t spgo_func_get_id(struct spgo_profile *p, uint32_t name)
{
	/* Plain functions are found by name id in an array, no hashing. */
	if (name >= p->top_by_name.n) {
		size_t n = p->top_by_name.n, want = (size_t)name + 1;
		if (want < p->names.n)
			want = p->names.n;
		VEC_GROW(&p->top_by_name, want);
		memset(p->top_by_name.v + n, 0xff, (want - n) * sizeof *p->top_by_name.v);
		p->top_by_name.n = want;
	}
	uint32_t f = p->top_by_name.v[name];
	if (f == SPGO_NONE) {
		f = new_func(p, name, SPGO_NONE, SPGO_NONE);
		p->top_by_name.v[name] = f;
		VEC_PUSH(&p->top, f);
	}
	return f;
}

uint32_t spgo_func_get(struct spgo_profile *p, const char *name)
{
	return spgo_func_get_id(p, spgo_name_id(p, name, strlen(name)));
}

/* Split "a:1 @ b:2.3 @ c" into frames: see profile_impl.h. */
int spgo_ctx_split(struct spgo_profile *p, const char *s, spgo_ctx_frames *out)
{
	out->n = 0;
	for (;;) {
		const char *e = strstr(s, " @ ");
		size_t len = e ? (size_t)(e - s) : strlen(s);
		struct spgo_ctx_frame fr = {0, 0, 0};
		size_t nl = len;
		if (e) {
			/* name:line[.disc] -- the last colon starts the location */
			const char *c = NULL;
			for (size_t i = len; i > 0; i--)
				if (s[i - 1] == ':') {
					c = s + i - 1;
					break;
				}
			if (!c)
				return spgo_error("context frame '%.*s' has no location", (int)len, s);
			nl = (size_t)(c - s);
			char *end;
			unsigned long l = strtoul(c + 1, &end, 10), d = 0;
			if (*end == '.')
				d = strtoul(end + 1, &end, 10);
			if (end != s + len || l > 0xffff || d > UINT32_MAX)
				return spgo_error("context frame '%.*s' has a bad location", (int)len, s);
			fr.line = (uint32_t)l;
			fr.disc = (uint32_t)d;
		}
		fr.name = spgo_name_id(p, s, nl);
		VEC_PUSH(out, fr);
		if (!e)
			return 0;
		s = e + 3;
	}
}

/* The leaf frame of a context: the text after the last " @ ". */
static void ctx_leaf(const char *ctx, size_t len, const char **leaf, size_t *leaflen)
{
	size_t i = len;
	while (i >= 3) {
		if (ctx[i - 3] == ' ' && ctx[i - 2] == '@' && ctx[i - 1] == ' ')
			break;
		i--;
	}
	if (i < 3)
		i = 0;
	*leaf = ctx + i;
	*leaflen = len - i;
}

uint32_t spgo_func_get_ctx(struct spgo_profile *p, const char *ctx, size_t len)
{
	uint32_t c = spgo_strtab_intern(&p->contexts, ctx, len);
	uint32_t *v = ptab_upsert(&p->topmap, (1ULL << 63) | c, 0, 0);
	p->flags |= SPGO_PROF_CS;
	if (!*v) {
		const char *leaf;
		size_t ll;
		ctx_leaf(ctx, len, &leaf, &ll);
		uint32_t f = new_func(p, spgo_name_id(p, leaf, ll), c, SPGO_NONE);
		*v = f + 1;
		VEC_PUSH(&p->top, f);
	}
	return (uint32_t)(*v - 1);
}

uint32_t spgo_func_find(const struct spgo_profile *p, const char *s)
{
	for (size_t i = 0; i < p->top.n; i++)
		if (strcmp(spgo_func_key(p, p->top.v[i]), s) == 0)
			return p->top.v[i];
	return SPGO_NONE;
}


uint32_t spgo_inlinee_get_id(struct spgo_profile *p, uint32_t func, uint32_t line,
			     uint32_t disc, uint32_t callee)
{
	struct spgo_func *pf = &p->funcs.v[func];
	uint64_t loc = (uint64_t)line << 32 | disc;
	if (pf->nchildren < SMALL) {
		for (uint32_t c = pf->children; c != SPGO_NONE; c = p->funcs.v[c].sibling) {
			const struct spgo_func *x = &p->funcs.v[c];
			if (x->name == callee && x->line == line && x->disc == disc)
				return c;
		}
	} else {
		uint32_t *v = ptab_upsert(&p->childmap, func, loc, callee);
		if (*v)
			return *v - 1;
	}
	uint32_t c = new_func(p, callee, SPGO_NONE, func);
	struct spgo_func *cf = &p->funcs.v[c];
	pf = &p->funcs.v[func];
	cf->line = line;
	cf->disc = disc;
	cf->sibling = pf->children;
	pf->children = c;
	if (++pf->nchildren >= SMALL) {
		if (pf->nchildren == SMALL) /* index the whole list now */
			for (uint32_t k = pf->children; k != SPGO_NONE; k = p->funcs.v[k].sibling) {
				const struct spgo_func *x = &p->funcs.v[k];
				*ptab_upsert(&p->childmap, func, (uint64_t)x->line << 32 | x->disc,
					     x->name) = k + 1;
			}
		else
			*ptab_upsert(&p->childmap, func, loc, callee) = c + 1;
	}
	return c;
}

uint32_t spgo_inlinee_get(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc,
			  const char *callee)
{
	return spgo_inlinee_get_id(p, func, line, disc, spgo_name_id(p, callee, strlen(callee)));
}

uint32_t spgo_body_get(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc)
{
	struct spgo_func *f = &p->funcs.v[func];
	uint64_t loc = (uint64_t)line << 32 | disc;
	if (f->nbodies < SMALL) {
		for (uint32_t b = f->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
			if (p->bodies.v[b].line == line && p->bodies.v[b].disc == disc)
				return b;
	} else {
		uint32_t *v = ptab_upsert(&p->bodymap, func, loc, 0);
		if (*v)
			return *v - 1;
	}
	struct spgo_body nb = {
		.line = line, .disc = disc, .func = func, .next = f->bodies,
		.targets = SPGO_NONE,
	};
	VEC_PUSH(&p->bodies, nb);
	uint32_t b = (uint32_t)(p->bodies.n - 1);
	f->bodies = b;
	if (++f->nbodies >= SMALL) {
		if (f->nbodies == SMALL)
			for (uint32_t k = f->bodies; k != SPGO_NONE; k = p->bodies.v[k].next)
				*ptab_upsert(&p->bodymap, func,
					     (uint64_t)p->bodies.v[k].line << 32 | p->bodies.v[k].disc, 0) = k + 1;
		else
			*ptab_upsert(&p->bodymap, func, loc, 0) = b + 1;
	}
	return b;
}

void spgo_add_body(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc,
		   uint64_t count)
{
	uint32_t b = spgo_body_get(p, func, line, disc);
	p->bodies.v[b].count = sat_add(p->bodies.v[b].count, count);
}

void spgo_add_target_id(struct spgo_profile *p, uint32_t body, uint32_t callee, uint64_t count)
{
	struct spgo_body *b = &p->bodies.v[body];
	uint32_t t = SPGO_NONE;
	if (b->ntargets < SMALL) {
		for (uint32_t k = b->targets; k != SPGO_NONE; k = p->targets.v[k].next)
			if (p->targets.v[k].name == callee) {
				t = k;
				break;
			}
	} else {
		uint32_t *v = ptab_upsert(&p->tgtmap, body, callee, 0);
		t = *v ? *v - 1 : SPGO_NONE;
	}
	if (t == SPGO_NONE) {
		struct spgo_target nt = {.name = callee, .next = b->targets};
		VEC_PUSH(&p->targets, nt);
		t = (uint32_t)(p->targets.n - 1);
		b->targets = t;
		if (++b->ntargets >= SMALL) {
			if (b->ntargets == SMALL)
				for (uint32_t k = b->targets; k != SPGO_NONE; k = p->targets.v[k].next)
					*ptab_upsert(&p->tgtmap, body, p->targets.v[k].name, 0) = k + 1;
			else
				*ptab_upsert(&p->tgtmap, body, callee, 0) = t + 1;
		}
	}
	struct spgo_target *tt = &p->targets.v[t];
	tt->count = sat_add(tt->count, count);
}

void spgo_add_target(struct spgo_profile *p, uint32_t func, uint32_t line, uint32_t disc,
		     const char *callee, uint64_t count)
{
	uint32_t b = spgo_body_get(p, func, line, disc);
	spgo_add_target_id(p, b, spgo_name_id(p, callee, strlen(callee)), count);
}

void spgo_add_head(struct spgo_profile *p, uint32_t func, uint64_t count)
{
	p->funcs.v[func].head = sat_add(p->funcs.v[func].head, count);
}

void spgo_add_total(struct spgo_profile *p, uint32_t func, uint64_t count)
{
	p->funcs.v[func].total = sat_add(p->funcs.v[func].total, count);
}

/* ---- merging ------------------------------------------------------------- */

static uint32_t map_name(struct spgo_profile *dst, const struct spgo_profile *src, uint32_t *namemap,
			 uint32_t id)
{
	if (namemap[id] == SPGO_NONE) {
		const char *s = spgo_name(src, id);
		namemap[id] = spgo_name_id(dst, s, strlen(s));
	}
	return namemap[id];
}

void spgo_func_merge(struct spgo_profile *dst, uint32_t df, const struct spgo_profile *src,
		     uint32_t sf, uint64_t w, uint32_t *namemap)
{
	const struct spgo_func *s = &src->funcs.v[sf];
	struct spgo_func *d = &dst->funcs.v[df];
	d->total = sat_add(d->total, sat_mul(s->total, w));
	d->head = sat_add(d->head, sat_mul(s->head, w));
	if (s->checksum && !d->checksum)
		d->checksum = s->checksum; /* on a mismatch the first one stays */
	d->attrs |= s->attrs;
	for (uint32_t b = s->bodies; b != SPGO_NONE; b = src->bodies.v[b].next) {
		const struct spgo_body *sb = &src->bodies.v[b];
		uint32_t db = spgo_body_get(dst, df, sb->line, sb->disc);
		dst->bodies.v[db].count = sat_add(dst->bodies.v[db].count, sat_mul(sb->count, w));
		for (uint32_t t = sb->targets; t != SPGO_NONE; t = src->targets.v[t].next)
			spgo_add_target_id(dst, db, map_name(dst, src, namemap, src->targets.v[t].name),
					   sat_mul(src->targets.v[t].count, w));
	}
	for (uint32_t c = s->children; c != SPGO_NONE; c = src->funcs.v[c].sibling) {
		const struct spgo_func *sc = &src->funcs.v[c];
		uint32_t dc = spgo_inlinee_get_id(dst, df, sc->line, sc->disc,
						  map_name(dst, src, namemap, sc->name));
		spgo_func_merge(dst, dc, src, c, w, namemap);
	}
}

void spgo_profile_merge(struct spgo_profile *dst, const struct spgo_profile *src, uint64_t w)
{
	uint32_t *namemap = xmalloc((src->names.n + 1) * sizeof *namemap);
	memset(namemap, 0xff, (src->names.n + 1) * sizeof *namemap);
	for (size_t i = 0; i < src->top.n; i++) {
		uint32_t sf = src->top.v[i];
		const struct spgo_func *s = &src->funcs.v[sf];
		uint32_t df;
		if (s->ctx != SPGO_NONE) {
			const char *c = spgo_strtab_get(&src->contexts, s->ctx);
			df = spgo_func_get_ctx(dst, c, strlen(c));
		} else {
			df = spgo_func_get_id(dst, map_name(dst, src, namemap, s->name));
		}
		const struct spgo_func *d = &dst->funcs.v[df];
		if (s->checksum && d->checksum && s->checksum != d->checksum)
			spgo_warn("%s: CFG checksum mismatch (%llu vs %llu), keeping the first",
				  spgo_func_key(dst, df), (unsigned long long)d->checksum,
				  (unsigned long long)s->checksum);
		spgo_func_merge(dst, df, src, sf, w, namemap);
	}
	for (size_t i = 0; i < src->symbols.n; i++)
		VEC_PUSH(&dst->symbols, map_name(dst, src, namemap, src->symbols.v[i]));
	/* (top: merge order; what dst had in map order no longer is, once
	 * src's functions are added) */
	dst->flags |= src->flags & ~(unsigned)SPGO_PROF_MAP_ORDER;
	if (src->funcs.n)
		dst->flags &= ~(unsigned)SPGO_PROF_MAP_ORDER;
	free(namemap);
}

/* ---- finalizing ---------------------------------------------------------- */

static uint64_t fix_totals(struct spgo_profile *p, uint32_t f)
{
	uint64_t t = 0;
	for (uint32_t b = p->funcs.v[f].bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		t = sat_add(t, p->bodies.v[b].count);
	for (uint32_t c = p->funcs.v[f].children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		t = sat_add(t, fix_totals(p, c));
	p->funcs.v[f].total = t;
	return t;
}

int spgo_profile_has_samples(const struct spgo_profile *p)
{
	for (size_t i = 0; i < p->top.n; i++) {
		const struct spgo_func *f = &p->funcs.v[p->top.v[i]];
		if (f->total || f->head)
			return 1;
	}
	return 0;
}

void spgo_profile_finalize(struct spgo_profile *p, unsigned how)
{
	int has_checksum = 0, preinl = 0;
	for (size_t i = 0; i < p->funcs.n; i++) {
		if (p->funcs.v[i].checksum && p->funcs.v[i].parent == SPGO_NONE)
			has_checksum = 1;
		if (p->funcs.v[i].attrs & SPGO_ATTR_SHOULD_INLINE)
			preinl = 1;
	}
	if (has_checksum)
		p->flags |= SPGO_PROF_PROBE;
	if (preinl)
		p->flags |= SPGO_PROF_PREINLINED;
	if (how & SPGO_FIN_TOTALS)
		for (size_t i = 0; i < p->top.n; i++)
			fix_totals(p, p->top.v[i]);
	if (!(how & SPGO_FIN_NO_SUMMARY))
		spgo_summary_compute(p);
}

/* ---- ordered views ------------------------------------------------------- */

const char *spgo_func_key(const struct spgo_profile *p, uint32_t f)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	if (fn->ctx != SPGO_NONE)
		return spgo_strtab_get(&p->contexts, fn->ctx);
	return spgo_name(p, fn->name);
}

static _Thread_local const struct spgo_profile *sort_p;

/* One frame of a context text at *s: name [s, name_end), location (0, 0
 * for the leaf); *s moves past it and its " @ ". */
void spgo_ctx_next_frame(const char **s, const char **name_end, unsigned long *line,
			 unsigned long *disc)
{
	const char *f = *s, *at = strstr(f, " @ ");
	const char *end = at ? at : f + strlen(f);
	*line = *disc = 0;
	*name_end = end;
	if (at) {
		const char *colon = end;
		while (colon > f && *colon != ':')
			colon--;
		if (*colon == ':') {
			*name_end = colon;
			char *q;
			*line = strtoul(colon + 1, &q, 10);
			if (*q == '.')
				*disc = strtoul(q + 1, NULL, 10);
		}
	}
	*s = at ? at + 3 : end;
}

int spgo_ctx_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		const char *ae, *be;
		unsigned long al, ad, bl, bd;
		const char *as = a, *bs = b;
		spgo_ctx_next_frame(&a, &ae, &al, &ad);
		spgo_ctx_next_frame(&b, &be, &bl, &bd);
		size_t an = (size_t)(ae - as), bn = (size_t)(be - bs);
		int c = memcmp(as, bs, an < bn ? an : bn);
		if (c || an != bn)
			return c ? c : an < bn ? -1 : 1;
		if (al != bl)
			return al < bl ? -1 : 1;
		if (ad != bd)
			return ad < bd ? -1 : 1;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int cmp_top(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct spgo_func *fx = &sort_p->funcs.v[x], *fy = &sort_p->funcs.v[y];
	if (fx->total != fy->total)
		return fx->total > fy->total ? -1 : 1;
	if (fx->ctx != SPGO_NONE && fy->ctx != SPGO_NONE)
		return spgo_ctx_cmp(spgo_func_key(sort_p, x), spgo_func_key(sort_p, y));
	return strcmp(spgo_func_key(sort_p, x), spgo_func_key(sort_p, y));
}

uint32_t *spgo_profile_sorted(const struct spgo_profile *p)
{
	uint32_t *v = xmalloc((p->top.n + 1) * sizeof *v);
	if (p->top.n)
		memcpy(v, p->top.v, p->top.n * sizeof *v);
	sort_p = p;
	spgo_sort(v, p->top.n, sizeof *v, cmp_top);
	return v;
}

static int cmp_body(const void *a, const void *b)
{
	const struct spgo_body *x = &sort_p->bodies.v[*(const uint32_t *)a];
	const struct spgo_body *y = &sort_p->bodies.v[*(const uint32_t *)b];
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->disc < y->disc ? -1 : x->disc > y->disc;
}

static int cmp_child(const void *a, const void *b)
{
	const struct spgo_func *x = &sort_p->funcs.v[*(const uint32_t *)a];
	const struct spgo_func *y = &sort_p->funcs.v[*(const uint32_t *)b];
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->disc != y->disc)
		return x->disc < y->disc ? -1 : 1;
	return strcmp(spgo_name(sort_p, x->name), spgo_name(sort_p, y->name));
}

static int cmp_target(const void *a, const void *b)
{
	const struct spgo_target *x = &sort_p->targets.v[*(const uint32_t *)a];
	const struct spgo_target *y = &sort_p->targets.v[*(const uint32_t *)b];
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(spgo_name(sort_p, x->name), spgo_name(sort_p, y->name));
}

static void grow_buf(uint32_t **buf, size_t *cap, size_t n)
{
	if (n > *cap) {
		*cap = n < 64 ? 64 : n * 2;
		*buf = xrealloc(*buf, *cap * sizeof **buf);
	}
}

static void isort(uint32_t *v, size_t n, int (*cmp)(const void *, const void *))
{
	/* Insertion sort for the short lists that dominate; qsort beyond. */
	if (n > 24) {
		spgo_sort(v, n, sizeof *v, cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;
		while (j > 0 && cmp(&v[j - 1], &x) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

size_t spgo_func_bodies(const struct spgo_profile *p, uint32_t f, uint32_t **buf, size_t *cap)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	grow_buf(buf, cap, fn->nbodies);
	size_t n = 0;
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		(*buf)[n++] = b;
	sort_p = p;
	isort(*buf, n, cmp_body);
	return n;
}

size_t spgo_func_children(const struct spgo_profile *p, uint32_t f, uint32_t **buf, size_t *cap)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	grow_buf(buf, cap, fn->nchildren);
	size_t n = 0;
	for (uint32_t c = fn->children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		(*buf)[n++] = c;
	sort_p = p;
	isort(*buf, n, cmp_child);
	return n;
}

size_t spgo_body_targets(const struct spgo_profile *p, uint32_t b, uint32_t **buf, size_t *cap)
{
	const struct spgo_body *bd = &p->bodies.v[b];
	grow_buf(buf, cap, bd->ntargets);
	size_t n = 0;
	for (uint32_t t = bd->targets; t != SPGO_NONE; t = p->targets.v[t].next)
		(*buf)[n++] = t;
	sort_p = p;
	isort(*buf, n, cmp_target);
	return n;
}

uint64_t spgo_func_body_sum(const struct spgo_profile *p, uint32_t f)
{
	uint64_t t = 0;
	for (uint32_t b = p->funcs.v[f].bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		t = sat_add(t, p->bodies.v[b].count);
	for (uint32_t c = p->funcs.v[f].children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		t = sat_add(t, spgo_func_body_sum(p, c));
	return t;
}
