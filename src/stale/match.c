/*
 * The staleness report (spgo/stale.h): every function profile of the
 * profile, top-level and inlined, matched against the NEW build (and OLD),
 * the figures summed per function (by GUID) and for the whole profile.
 *
 * A sample is counted once, in the body record that holds it: totals and
 * head samples are not added, since a function's total is its bodies plus
 * its inlinees', which are counted where they are.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/profile.h"
#include "stale/stale_impl.h"

#define MAX_DEPTH 512

struct matcher {
	struct spgo_profile *p;
	struct stale_build *nb, *ob; /* NEW, OLD (or NULL) */
	int probe, md5;
	uint64_t *guid_of;     /* name id -> guid */
	uint8_t *guid_known;   /* name id -> guid_of set */
	struct spgo_kmap index; /* guid -> funcs index + 1 */
	VEC(struct spgo_stale_func) funcs;
	VEC(uint32_t) first_top; /* funcs index -> a top-level profile of it, or SPGO_NONE */
	struct spgo_stale_report *r;
	struct spgo_kmap stems; /* renamed_by_stem()'s index */
	int stems_made;
};

#define STEM_AMBIGUOUS UINT64_MAX

static uint64_t guid_of(struct matcher *m, uint32_t name)
{
	if (!m->guid_known[name]) {
		m->guid_of[name] = stale_guid(spgo_name(m->p, name), spgo_name_len(m->p, name), m->md5, m->probe);
		m->guid_known[name] = 1;
	}
	return m->guid_of[name];
}

/* The report entry of the function a profile names: its index. */
static size_t func_get(struct matcher *m, uint32_t name)
{
	uint64_t g = guid_of(m, name);
	uint64_t *v = spgo_kmap_upsert(&m->index, &g);
	if (!*v) {
		struct spgo_stale_func f = {.guid = g};
		const struct stale_fn *nf = stale_build_fn(m->nb, g);
		/* an MD5 profile's names are numbers: show NEW's name when it has one */
		f.name = xstrdup(m->md5 && nf && nf->name ? nf->name : spgo_name(m->p, name));
		VEC_PUSH(&m->funcs, f);
		VEC_PUSH(&m->first_top, SPGO_NONE);
		*v = m->funcs.n;
	}
	return (size_t)(*v - 1);
}

/* Does a body record at loc of function g (profile checksum ck) land in build b? */
static int lands(const struct matcher *m, const struct stale_build *b, uint64_t g, uint64_t ck, uint64_t loc)
{
	const struct stale_fn *f = stale_build_fn(b, g);
	if (!f)
		return 0;
	if (m->probe)
		return f->checksum == ck;
	if (stale_build_has_loc(b, g, loc))
		return 1;
	return stale_is_line0((uint32_t)(loc >> 32)) &&
	       stale_build_has_loc(b, g, stale_loc(STALE_LINE0, (uint32_t)loc));
}

/* The body records of profile f, their call targets. */
static void match_bodies(struct matcher *m, uint32_t f, size_t a, const struct stale_fn *nf)
{
	const struct spgo_func *fn = spgo_fn(m->p, f);
	struct spgo_stale_func *e = &m->funcs.v[a];
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = m->p->bodies.v[b].next) {
		const struct spgo_body *bd = &m->p->bodies.v[b];
		uint64_t loc = stale_loc(bd->line, bd->disc), c = bd->count;
		e->samples += c;
		m->r->samples += c;
		if (nf)
			m->r->exists += c;
		int ok = lands(m, m->nb, e->guid, fn->checksum, loc);
		if (ok) {
			e->matched += c;
			m->r->matched += c;
		} else if (nf && !m->probe && c) {
			e->status |= SPGO_STALE_LINES;
		}
		if (m->ob && lands(m, m->ob, e->guid, fn->checksum, loc))
			m->r->old_matched += c;
		for (uint32_t t = bd->targets; t != SPGO_NONE; t = m->p->targets.v[t].next) {
			const struct spgo_target *tg = &m->p->targets.v[t];
			e->call_samples += tg->count;
			m->r->call_samples += tg->count;
			if (nf && (!m->probe || ok) && stale_build_site(m->nb, e->guid, loc, guid_of(m, tg->name))) {
				e->call_matched += tg->count;
				m->r->call_matched += tg->count;
			} else if (nf && tg->count) {
				e->status |= SPGO_STALE_CALLS;
			}
		}
	}
}

/* Match function profile f (an inlinee when parent_guid is not 0) and its
 * inlinees. */
static int match_func(struct matcher *m, uint32_t f, uint64_t parent_guid, int depth)
{
	if (depth > MAX_DEPTH)
		return spgo_error("%s: inlinees nested deeper than %d levels", m->r->profile, MAX_DEPTH);
	const struct spgo_func *fn = spgo_fn(m->p, f);
	size_t a = func_get(m, fn->name);
	struct spgo_stale_func *e = &m->funcs.v[a];
	const struct stale_fn *nf = stale_build_fn(m->nb, e->guid);
	if (m->probe)
		e->profile_checksum = fn->checksum;
	if (!nf) {
		e->status |= SPGO_STALE_GONE;
	} else if (m->probe) {
		e->new_checksum = nf->checksum;
		if (nf->checksum != fn->checksum)
			e->status |= SPGO_STALE_CHECKSUM;
	}
	uint64_t body = spgo_func_body_sum(m->p, f);
	if (nf && !parent_guid && fn->parent == SPGO_NONE && nf->size == 0) {
		/* a top-level profile of a function NEW inlines everywhere (a
		 * CS context with callers is inlined by definition) */
		const char *key = spgo_func_key(m->p, f);
		if (fn->ctx == SPGO_NONE || !strstr(key, " @ ")) {
			e->status |= SPGO_STALE_NOW_INLINED;
			e->moved_inline += body;
			m->r->moved_inline += body;
		}
	}
	if (nf && parent_guid) {
		unsigned site = stale_build_site(m->nb, parent_guid, stale_loc(fn->line, fn->disc), e->guid);
		if ((site & STALE_SITE_CALL) && !(site & STALE_SITE_INLINE)) {
			e->status |= SPGO_STALE_NOT_INLINED;
			e->moved_inline += body;
			m->r->moved_inline += body;
		}
	}
	if (!parent_guid && m->first_top.v[a] == SPGO_NONE)
		m->first_top.v[a] = f;
	match_bodies(m, f, a, nf);
	uint64_t g = m->funcs.v[a].guid;
	for (uint32_t c = fn->children; c != SPGO_NONE; c = spgo_fn(m->p, c)->sibling)
		if (match_func(m, c, g, depth + 1) < 0)
			return -1;
	return 0;
}

/* ---- renamed functions -------------------------------------------------------- */

/* Probe profiles: one NEW function, not in the profile, with its checksum. */
static const struct stale_fn *renamed_by_checksum(struct matcher *m, uint64_t checksum)
{
	const struct stale_fn *hit = NULL;
	for (size_t i = 0; i < m->nb->fns.n; i++) {
		const struct stale_fn *f = &m->nb->fns.v[i];
		if (f->checksum != checksum || !f->name || spgo_kmap_find(&m->index, &f->guid))
			continue;
		if (hit)
			return NULL; /* ambiguous */
		hit = f;
	}
	return hit;
}

/* Line profiles: one NEW function, not in the profile, that has every call
 * anchor (location, callee) of top-level profile f. */
static const struct stale_fn *renamed_by_anchors(struct matcher *m, uint32_t f)
{
	VEC(struct stale_anchor) an = {0};
	const struct spgo_func *fn = spgo_fn(m->p, f);
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = m->p->bodies.v[b].next) {
		const struct spgo_body *bd = &m->p->bodies.v[b];
		for (uint32_t t = bd->targets; t != SPGO_NONE; t = m->p->targets.v[t].next) {
			struct stale_anchor x = {stale_loc(bd->line, bd->disc), guid_of(m, m->p->targets.v[t].name), 0};
			VEC_PUSH(&an, x);
		}
	}
	for (uint32_t c = fn->children; c != SPGO_NONE; c = spgo_fn(m->p, c)->sibling) {
		const struct spgo_func *cf = spgo_fn(m->p, c);
		struct stale_anchor x = {stale_loc(cf->line, cf->disc), guid_of(m, cf->name), 0};
		VEC_PUSH(&an, x);
	}
	const struct stale_fn *hit = NULL;
	int ambiguous = 0;
	if (an.n) {
		/* candidates: the functions with the first anchor */
		const struct stale_anchor *v = m->nb->anchors.v;
		size_t lo = 0, hi = m->nb->anchors.n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].loc < an.v[0].loc || (v[mid].loc == an.v[0].loc && v[mid].callee < an.v[0].callee))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < m->nb->anchors.n && v[i].loc == an.v[0].loc && v[i].callee == an.v[0].callee; i++) {
			uint64_t g = v[i].guid;
			if (spgo_kmap_find(&m->index, &g) || (hit && hit->guid == g))
				continue;
			size_t k = 1;
			while (k < an.n && stale_build_site(m->nb, g, an.v[k].loc, an.v[k].callee))
				k++;
			if (k < an.n)
				continue;
			if (hit)
				ambiguous = 1;
			hit = stale_build_fn(m->nb, g);
		}
	}
	VEC_FREE(&an);
	return ambiguous ? NULL : hit;
}

/* One NEW function, not in the profile, of the same rename key as name
 * (stale_rename_key_len(): its identifier, or the stem of a unique name);
 * NULL if none or several.  The keys of NEW are indexed on first use: key
 * hash -> fns index + 1, STEM_AMBIGUOUS when several. */
static const struct stale_fn *renamed_by_stem(struct matcher *m, const char *name)
{
	size_t len = stale_rename_key_len(name);
	if (!len)
		return NULL;
	if (!m->stems_made) {
		m->stems_made = 1;
		for (size_t i = 0; i < m->nb->fns.n; i++) {
			const struct stale_fn *f = &m->nb->fns.v[i];
			size_t l = f->name ? stale_rename_key_len(f->name) : 0;
			if (!l || spgo_kmap_find(&m->index, &f->guid))
				continue;
			uint64_t h = spgo_md5_guid(f->name, l);
			uint64_t *v = spgo_kmap_upsert(&m->stems, &h);
			*v = *v ? STEM_AMBIGUOUS : i + 1;
		}
	}
	uint64_t h = spgo_md5_guid(name, len);
	const uint64_t *v = spgo_kmap_find(&m->stems, &h);
	if (!v || *v == STEM_AMBIGUOUS)
		return NULL;
	const struct stale_fn *f = &m->nb->fns.v[*v - 1];
	return stale_rename_key_len(f->name) == len && strncmp(f->name, name, len) == 0 ? f : NULL;
}

/* The ".__uniq.DIGITS" suffix of name: its start (NULL if none), its
 * length in *len. */
static const char *uniq_suffix(const char *name, size_t *len)
{
	const char *u = strstr(name, ".__uniq.");
	if (!u)
		return NULL;
	size_t n = 8;
	while (u[n] >= '0' && u[n] <= '9')
		n++;
	*len = n;
	return u;
}

static void set_renamed(struct matcher *m, struct spgo_stale_func *e, const char *to)
{
	e->status |= SPGO_STALE_RENAMED;
	e->renamed_to = xstrdup(to);
	m->r->renamed += e->samples;
}

/* Static functions of a header are compiled into many modules, each copy
 * under its module's suffix: their identifier is ambiguous.  A module's
 * old suffix -> its new one is learnt from the functions renamed already
 * (the first pair seen for an old suffix); a gone function then takes the
 * NEW function of its own name under its module's new suffix, when NEW
 * has it and the profile does not name it. */
static void renamed_by_module(struct matcher *m)
{
	struct spgo_kmap mods; /* hash of an old suffix -> funcs index + 1 */
	spgo_kmap_init(&mods, 1);
	size_t ol = 0, nl = 0;
	for (size_t a = 0; a < m->funcs.n; a++) {
		const struct spgo_stale_func *e = &m->funcs.v[a];
		const char *os = e->renamed_to ? uniq_suffix(e->name, &ol) : NULL;
		if (!os || !uniq_suffix(e->renamed_to, &nl))
			continue;
		uint64_t h = spgo_md5_guid(os, ol);
		uint64_t *v = spgo_kmap_upsert(&mods, &h);
		if (!*v)
			*v = a + 1;
	}
	VEC(char) buf = {0};
	for (size_t a = 0; a < m->funcs.n && mods.n; a++) {
		struct spgo_stale_func *e = &m->funcs.v[a];
		const char *os = uniq_suffix(e->name, &ol);
		if (!(e->status & SPGO_STALE_GONE) || e->renamed_to || !e->samples || !os)
			continue;
		uint64_t h = spgo_md5_guid(os, ol);
		const uint64_t *v = spgo_kmap_find(&mods, &h);
		if (!v)
			continue;
		const char *ns = uniq_suffix(m->funcs.v[*v - 1].renamed_to, &nl);
		buf.n = 0;
		for (const char *q = e->name; q < os; q++)
			VEC_PUSH(&buf, *q);
		for (size_t i = 0; i < nl; i++)
			VEC_PUSH(&buf, ns[i]);
		for (const char *q = os + ol; *q; q++)
			VEC_PUSH(&buf, *q);
		VEC_PUSH(&buf, '\0');
		uint64_t g = stale_guid(buf.v, buf.n - 1, 0, m->probe);
		const struct stale_fn *to = stale_build_fn(m->nb, g);
		if (to && to->name && !spgo_kmap_find(&m->index, &g))
			set_renamed(m, e, to->name);
	}
	VEC_FREE(&buf);
	spgo_kmap_free(&mods);
}

static void find_renamed(struct matcher *m)
{
	for (size_t a = 0; a < m->funcs.n; a++) {
		struct spgo_stale_func *e = &m->funcs.v[a];
		if (!(e->status & SPGO_STALE_GONE) || !e->samples)
			continue;
		const struct stale_fn *to = NULL;
		if (m->probe)
			to = renamed_by_checksum(m, e->profile_checksum);
		else if (m->first_top.v[a] != SPGO_NONE)
			to = renamed_by_anchors(m, m->first_top.v[a]);
		if (!to && !m->md5)
			to = renamed_by_stem(m, e->name);
		if (to && to->name)
			set_renamed(m, e, to->name);
	}
	if (!m->md5)
		renamed_by_module(m);
}

/* ---- OLD against NEW ---------------------------------------------------------- */

static void compare_old(struct matcher *m)
{
	for (size_t a = 0; a < m->funcs.n; a++) {
		struct spgo_stale_func *e = &m->funcs.v[a];
		const struct stale_fn *of = stale_build_fn(m->ob, e->guid), *nf = stale_build_fn(m->nb, e->guid);
		if (of) {
			e->old_checksum = of->checksum;
			e->old_size = of->size;
			e->old_locs = of->nlocs;
		}
		if (nf) {
			e->new_size = nf->size;
			e->new_locs = nf->nlocs;
		}
		if (!of || !nf)
			continue;
		int changed = m->probe ? of->checksum != nf->checksum
				       : of->size != nf->size || of->nlocs != nf->nlocs || of->loc_hash != nf->loc_hash;
		if (changed) {
			e->status |= SPGO_STALE_CHANGED;
			m->r->changed++;
		}
	}
	for (size_t i = 0; i < m->nb->fns.n; i++)
		m->r->added += !stale_build_fn(m->ob, m->nb->fns.v[i].guid);
	for (size_t i = 0; i < m->ob->fns.n; i++)
		m->r->removed += !stale_build_fn(m->nb, m->ob->fns.v[i].guid);
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct spgo_stale_func *a = pa, *b = pb;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The matching itself, on profile p and the builds. */
static int match_all(struct matcher *m)
{
	struct spgo_profile *p = m->p;
	m->guid_of = xcalloc(p->names.n + 1, sizeof *m->guid_of);
	m->guid_known = xcalloc(p->names.n + 1, 1);
	spgo_kmap_init(&m->index, 1);
	spgo_kmap_init(&m->stems, 1);
	int rc = 0;
	for (size_t i = 0; i < p->top.n && rc == 0; i++)
		rc = match_func(m, p->top.v[i], 0, 0);
	if (rc == 0 && m->r->samples == 0)
		rc = spgo_error("%s: the profile has no body samples: nothing to match", m->r->profile);
	if (rc == 0 && m->ob && m->r->old_matched * 2 < m->r->samples)
		rc = spgo_error("%s: the profile does not belong to the old binary %s (%.1f%% of its samples "
				"match it): --old-binary must be the build the profile was collected on",
				m->r->profile, m->r->old_binary,
				100.0 * (double)m->r->old_matched / (double)m->r->samples);
	if (rc == 0) {
		find_renamed(m);
		if (m->ob)
			compare_old(m);
	}
	m->r->dropped = m->r->samples - m->r->matched;
	free(m->guid_of);
	free(m->guid_known);
	spgo_kmap_free(&m->index);
	spgo_kmap_free(&m->stems);
	VEC_FREE(&m->first_top);
	return rc;
}

int spgo_stale_check(const struct spgo_stale_opts *o, struct spgo_stale_report *r)
{
	memset(r, 0, sizeof *r);
	enum spgo_format fmt;
	struct spgo_profile *p = spgo_profile_read(o->profile, &fmt);
	if (!p)
		return -1;
	struct matcher m = {.p = p, .r = r};
	m.probe = !!(p->flags & SPGO_PROF_PROBE);
	m.md5 = !!(p->flags & SPGO_PROF_MD5);
	int gcc = fmt == SPGO_FMT_GCOV;
	r->profile = xstrdup(o->profile);
	r->binary = xstrdup(o->binary);
	r->old_binary = o->old_binary ? xstrdup(o->old_binary) : NULL;
	r->probe = m.probe;
	r->have_old = o->old_binary != NULL;
	struct stale_build nb, ob;
	int rc = -1;
	if (stale_build_open(&nb, o->binary, m.probe, gcc, "new") == 0) {
		m.nb = &nb;
		if (!o->old_binary || stale_build_open(&ob, o->old_binary, m.probe, gcc, "old") == 0) {
			m.ob = o->old_binary ? &ob : NULL;
			rc = match_all(&m);
			if (m.ob)
				stale_build_close(&ob);
		}
		stale_build_close(&nb);
	}
	spgo_profile_free(p);
	r->funcs = m.funcs.v;
	r->nfuncs = m.funcs.n;
	if (rc < 0) {
		spgo_stale_report_free(r);
		return -1;
	}
	spgo_sort(r->funcs, r->nfuncs, sizeof *r->funcs, cmp_func);
	for (size_t i = 0; i < r->nfuncs; i++)
		r->nstale += (r->funcs[i].status & ~(unsigned)SPGO_STALE_CHANGED) != 0;
	return 0;
}

void spgo_stale_report_free(struct spgo_stale_report *r)
{
	for (size_t i = 0; i < r->nfuncs; i++) {
		free(r->funcs[i].name);
		free(r->funcs[i].renamed_to);
	}
	free(r->funcs);
	free(r->profile);
	free(r->binary);
	free(r->old_binary);
	memset(r, 0, sizeof *r);
}
