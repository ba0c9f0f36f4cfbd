/*
 * Our own reader of a compile unit's DIE tree (DWARF 2 to 5), for the one
 * job of dwarf.c's DIE walk: find every subprogram and inlined subroutine
 * with its name, decl line, call site and address ranges.  libdw does the
 * same through a call per attribute, which on a big CU is most of the time
 * spent building the tables; this reader decodes each DIE's attributes in
 * one pass straight from the section bytes.
 *
 * It handles the forms of DWARF 2 to 5 as GCC and clang emit them for
 * executables.  Anything else (split units, dwz's supplementary forms, a
 * reference outside the CU for a name) makes it return -1 or defer to libdw
 * for that one name, so the result is always the same as libdw's walk.
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "binary/binary_impl.h"

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

struct rd {
	const uint8_t *p, *end;
	int bad;
};

static inline uint64_t rd_fixed(struct rd *r, unsigned n)
{
	if (SPGO_UNLIKELY((size_t)(r->end - r->p) < n)) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static inline uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (SPGO_LIKELY(r->p < r->end)) {
		uint8_t b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return v;
}

static inline int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;
	do {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
	} else {
		r->p += n;
	}
}

/* ---- abbreviations --------------------------------------------------------- */

struct attr_spec {
	uint32_t name, form;
	int64_t implicit;
};

struct abbrev {
	uint32_t tag;
	uint8_t children;
	uint32_t spec_begin, nspecs;
};

struct abbrevs {
	VEC(struct abbrev) byc; /* by code; tag 0 = no such code */
	VEC(struct attr_spec) specs;
};

static int read_abbrevs(const struct spgo_info_sections *sec, uint64_t off, struct abbrevs *ab)
{
	if (!sec->abbrev.data || off >= sec->abbrev.size)
		return -1;
	struct rd r = {sec->abbrev.data + off, sec->abbrev.data + sec->abbrev.size, 0};
	for (;;) {
		uint64_t code = rd_uleb(&r);
		if (r.bad)
			return -1;
		if (code == 0)
			return 0;
		if (code > 1u << 20)
			return -1; /* not dense: leave it to libdw */
		struct abbrev a = {(uint32_t)rd_uleb(&r), 0, (uint32_t)ab->specs.n, 0};
		a.children = (uint8_t)rd_fixed(&r, 1);
		for (;;) {
			struct attr_spec s = {(uint32_t)rd_uleb(&r), (uint32_t)rd_uleb(&r), 0};
			if (r.bad)
				return -1;
			if (s.name == 0 && s.form == 0)
				break;
			if (s.form == DW_FORM_implicit_const)
				s.implicit = rd_sleb(&r);
			VEC_PUSH(&ab->specs, s);
			a.nspecs++;
		}
		if (code >= ab->byc.n) {
			size_t old = ab->byc.n;
			VEC_GROW(&ab->byc, code + 1);
			memset(ab->byc.v + old, 0, (code + 1 - old) * sizeof *ab->byc.v);
			ab->byc.n = code + 1;
		}
		ab->byc.v[code] = a;
	}
}

/* ---- the unit ------------------------------------------------------------------ */

struct unit {
	const struct spgo_info_sections *sec;
	uint64_t off, end; /* [header, end) in .debug_info */
	unsigned version, off_size, addr_size;
	uint64_t str_offsets_base, addr_base, rnglists_base, base_address;
	struct abbrevs ab;
};

/* A decoded attribute value. */
struct val {
	uint64_t u;     /* number, address, offset, or reference (global) */
	const char *s;  /* string forms */
	int is_addr;    /* an address form (for DW_AT_high_pc) */
};

static const char *str_in(const struct spgo_debug_str *s, uint64_t off)
{
	if (!s->data || off >= s->size || !memchr(s->data + off, 0, s->size - off))
		return NULL;
	return (const char *)s->data + off;
}

static int read_addrx(const struct unit *u, uint64_t idx, uint64_t *out)
{
	const struct spgo_debug_str *a = &u->sec->addr;
	uint64_t off = u->addr_base + idx * u->addr_size;
	if (!a->data || off > a->size || a->size - off < u->addr_size)
		return -1;
	struct rd r = {a->data + off, a->data + a->size, 0};
	*out = rd_fixed(&r, u->addr_size);
	return 0;
}

static const char *read_strx(const struct unit *u, uint64_t idx)
{
	const struct spgo_debug_str *so = &u->sec->str_offsets;
	uint64_t off = u->str_offsets_base + idx * u->off_size;
	if (!so->data || off > so->size || so->size - off < u->off_size)
		return NULL;
	struct rd r = {so->data + off, so->data + so->size, 0};
	return str_in(&u->sec->str, rd_fixed(&r, u->off_size));
}

/*
 * Read (or skip) one attribute value of the given form.  Returns -1 for a
 * form we do not know, or when a value needs what we cannot resolve.
 */
static int read_form(const struct unit *u, struct rd *r, uint32_t form, int64_t implicit, struct val *v)
{
	v->s = NULL;
	v->is_addr = 0;
	switch (form) {
	case DW_FORM_addr: v->u = rd_fixed(r, u->addr_size); v->is_addr = 1; break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1:
		v->u = rd_fixed(r, 1);
		break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		v->u = rd_fixed(r, 2);
		break;
	case DW_FORM_strx3: case DW_FORM_addrx3: v->u = rd_fixed(r, 3); break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
		v->u = rd_fixed(r, 4);
		break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		v->u = rd_fixed(r, 8);
		break;
	case DW_FORM_data16: rd_skip(r, 16); v->u = 0; break;
	case DW_FORM_sdata: v->u = (uint64_t)rd_sleb(r); break;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx:
		v->u = rd_uleb(r);
		break;
	case DW_FORM_string: {
		const uint8_t *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
		if (!nul)
			return -1;
		v->s = (const char *)r->p;
		r->p = nul + 1;
		break;
	}
	case DW_FORM_strp: v->u = rd_fixed(r, u->off_size); v->s = str_in(&u->sec->str, v->u); break;
	case DW_FORM_line_strp: v->u = rd_fixed(r, u->off_size); v->s = str_in(&u->sec->line_str, v->u); break;
	case DW_FORM_sec_offset: v->u = rd_fixed(r, u->off_size); break;
	case DW_FORM_ref_addr: v->u = rd_fixed(r, u->version <= 2 ? u->addr_size : u->off_size); break;
	case DW_FORM_flag_present: v->u = 1; break;
	case DW_FORM_implicit_const: v->u = (uint64_t)implicit; break;
	case DW_FORM_block1: rd_skip(r, rd_fixed(r, 1)); break;
	case DW_FORM_block2: rd_skip(r, rd_fixed(r, 2)); break;
	case DW_FORM_block4: rd_skip(r, rd_fixed(r, 4)); break;
	case DW_FORM_block: case DW_FORM_exprloc: rd_skip(r, rd_uleb(r)); break;
	case DW_FORM_indirect: {
		uint32_t f = (uint32_t)rd_uleb(r);
		if (f == DW_FORM_indirect || f == DW_FORM_implicit_const)
			return -1;
		return read_form(u, r, f, 0, v);
	}
	default:
		return -1;
	}
	return r->bad ? -1 : 0;
}

/* Is this form's value a CU-relative reference? */
static int cu_ref(uint32_t form)
{
	return form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
	       form == DW_FORM_ref_udata;
}

/* ---- one DIE's attributes ---------------------------------------------------------- */

struct die_info {
	uint64_t off;
	uint32_t tag;
	int children;
	int has_sibling;
	uint64_t sibling;
	/* naming */
	const char *mips, *linkage, *name;
	int has_decl_line, name_unresolved;
	uint32_t decl_line;
	int has_origin, has_spec;
	uint64_t origin, spec; /* global offsets; ~0 when not in this CU's reach */
	/* ranges */
	int has_low, has_high, high_is_addr, has_ranges, ranges_is_index;
	uint64_t low, high, ranges;
	/* call site */
	uint32_t call_file, call_line, call_column, call_discriminator;
};

/* Decode the DIE at r->p; -1 on what we do not handle. */
static int read_die(const struct unit *u, struct rd *r, struct die_info *d)
{
	d->off = (uint64_t)(r->p - u->sec->info.data);
	uint64_t code = rd_uleb(r);
	if (r->bad)
		return -1;
	if (code == 0) {
		d->tag = 0;
		return 0;
	}
	if (code >= u->ab.byc.n || u->ab.byc.v[code].tag == 0)
		return -1;
	const struct abbrev *a = &u->ab.byc.v[code];
	d->tag = a->tag;
	d->children = a->children;
	d->has_sibling = 0;
	d->mips = d->linkage = d->name = NULL;
	d->has_decl_line = d->name_unresolved = d->has_origin = d->has_spec = 0;
	d->has_low = d->has_high = d->has_ranges = 0;
	d->call_file = UINT32_MAX;
	d->call_line = d->call_column = d->call_discriminator = 0;
	const struct attr_spec *sp = &u->ab.specs.v[a->spec_begin];
	for (uint32_t i = 0; i < a->nspecs; i++) {
		struct val v;
		if (read_form(u, r, sp[i].form, sp[i].implicit, &v) < 0)
			return -1;
		uint32_t f = sp[i].form;
		switch (sp[i].name) {
		case DW_AT_sibling:
			if (cu_ref(f)) {
				d->has_sibling = 1;
				d->sibling = u->off + v.u;
			}
			break;
		case DW_AT_name:
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name: {
			const char *s = v.s;
			if (f == DW_FORM_strx || f == DW_FORM_strx1 || f == DW_FORM_strx2 || f == DW_FORM_strx3 ||
			    f == DW_FORM_strx4)
				s = read_strx(u, v.u);
			if (!s && f != DW_FORM_string)
				d->name_unresolved = 1; /* e.g. dwz's strp_alt: ask libdw */
			if (sp[i].name == DW_AT_name)
				d->name = s;
			else if (sp[i].name == DW_AT_linkage_name)
				d->linkage = s;
			else
				d->mips = s;
			break;
		}
		case DW_AT_decl_line: d->has_decl_line = 1, d->decl_line = (uint32_t)v.u; break;
		case DW_AT_abstract_origin:
		case DW_AT_specification: {
			uint64_t target = cu_ref(f) ? u->off + v.u : f == DW_FORM_ref_addr ? v.u : UINT64_MAX;
			if (sp[i].name == DW_AT_abstract_origin)
				d->has_origin = 1, d->origin = target;
			else
				d->has_spec = 1, d->spec = target;
			break;
		}
		case DW_AT_low_pc:
			d->has_low = 1;
			d->low = v.u;
			if (f != DW_FORM_addr && read_addrx(u, v.u, &d->low) < 0)
				return -1;
			break;
		case DW_AT_high_pc:
			d->has_high = 1;
			d->high = v.u;
			d->high_is_addr = f == DW_FORM_addr || f == DW_FORM_addrx || f == DW_FORM_addrx1 ||
					  f == DW_FORM_addrx2 || f == DW_FORM_addrx3 || f == DW_FORM_addrx4;
			if (d->high_is_addr && f != DW_FORM_addr && read_addrx(u, v.u, &d->high) < 0)
				return -1;
			break;
		case DW_AT_ranges:
			d->has_ranges = 1;
			d->ranges = v.u;
			d->ranges_is_index = f == DW_FORM_rnglistx;
			break;
		case DW_AT_call_file: d->call_file = v.u < UINT32_MAX ? (uint32_t)v.u : UINT32_MAX; break;
		case DW_AT_call_line: d->call_line = (uint32_t)v.u; break;
		case DW_AT_call_column: d->call_column = (uint32_t)v.u; break;
		case DW_AT_GNU_discriminator: d->call_discriminator = (uint32_t)v.u; break;
		}
	}
	return r->bad ? -1 : 0;
}

/* ---- names -------------------------------------------------------------------------- */

/*
 * Linkage name (else name) and decl line through abstract origins and
 * specifications, the way libdw's dwarf_attr_integrate walks them: each
 * step follows DW_AT_abstract_origin, else DW_AT_specification.  Returns -1
 * when the chain leaves this unit or needs what we did not decode.
 */
static int chain_name(struct spgo_binary *bin, const struct unit *u, const struct die_info *first, uint32_t *name,
		      uint32_t *decl_line)
{
	const char *mips = NULL, *linkage = NULL, *nm = NULL;
	int have_decl = 0;
	uint32_t decl = 0;
	struct die_info d = *first;
	for (int step = 0;; step++) {
		if (d.name_unresolved)
			return -1;
		if (!mips)
			mips = d.mips;
		if (!linkage)
			linkage = d.linkage;
		if (!nm)
			nm = d.name;
		if (!have_decl && d.has_decl_line)
			have_decl = 1, decl = d.decl_line;
		uint64_t next = d.has_origin ? d.origin : d.has_spec ? d.spec : UINT64_MAX;
		if (!d.has_origin && !d.has_spec)
			break;
		if (step >= 16 || next < u->off || next >= u->end)
			return -1;
		struct rd r = {u->sec->info.data + next, u->sec->info.data + u->end, 0};
		if (read_die(u, &r, &d) < 0 || d.tag == 0)
			return -1;
	}
	const char *s = mips ? mips : linkage ? linkage : nm;
	*name = s ? spgo_strtab_intern(&bin->strs, s, strlen(s)) : SPGO_NO_FILE;
	*decl_line = have_decl ? decl : 0;
	return 0;
}

static void die_name(struct spgo_binary *bin, const struct unit *u, struct name_cache *nc, const struct die_info *d,
		     uint32_t *name, uint32_t *decl_line)
{
	uint64_t key = 0;
	int own = d->mips || d->linkage || d->name || d->has_decl_line || d->name_unresolved;
	if (!own && (d->has_origin || d->has_spec)) {
		uint64_t target = d->has_origin ? d->origin : d->spec;
		if (target != UINT64_MAX) {
			key = target + 1;
			uint64_t *v = spgo_kmap_find(&nc->map, &key);
			if (v) {
				*name = (uint32_t)(*v & 0xffffffffu) - 1;
				*decl_line = (uint32_t)(*v >> 32);
				return;
			}
		}
	}
	if (chain_name(bin, u, d, name, decl_line) < 0)
		spgo_die_name_at(bin, d->off, name, decl_line);
	if (key)
		*spgo_kmap_upsert(&nc->map, &key) = ((uint64_t)*decl_line << 32) | (uint64_t)(*name + 1u);
}

/* ---- ranges ------------------------------------------------------------------------- */

typedef void range_fn(uint64_t lo, uint64_t hi, void *arg);

/* DW_AT_ranges: .debug_ranges (before DWARF 5) or .debug_rnglists. */
static int each_range(const struct unit *u, const struct die_info *d, range_fn *fn, void *arg)
{
	uint64_t base = u->base_address;
	if (u->version < 5) {
		const struct spgo_debug_str *s = &u->sec->ranges;
		if (!s->data || d->ranges >= s->size)
			return -1;
		struct rd r = {s->data + d->ranges, s->data + s->size, 0};
		uint64_t maxa = u->addr_size == 4 ? 0xffffffffu : UINT64_MAX;
		for (;;) {
			uint64_t a = rd_fixed(&r, u->addr_size), b = rd_fixed(&r, u->addr_size);
			if (r.bad)
				return -1;
			if (a == 0 && b == 0)
				return 0;
			if (a == maxa) {
				base = b;
				continue;
			}
			fn(base + a, base + b, arg);
		}
	}
	const struct spgo_debug_str *s = &u->sec->rnglists;
	if (!s->data)
		return -1;
	uint64_t off = d->ranges;
	if (d->ranges_is_index) {
		uint64_t at = u->rnglists_base + d->ranges * u->off_size;
		if (at > s->size || s->size - at < u->off_size)
			return -1;
		struct rd r = {s->data + at, s->data + s->size, 0};
		off = u->rnglists_base + rd_fixed(&r, u->off_size);
	}
	if (off >= s->size)
		return -1;
	struct rd r = {s->data + off, s->data + s->size, 0};
	for (;;) {
		unsigned kind = (unsigned)rd_fixed(&r, 1);
		uint64_t a, b;
		switch (kind) {
		case DW_RLE_end_of_list: return r.bad ? -1 : 0;
		case DW_RLE_base_addressx:
			if (read_addrx(u, rd_uleb(&r), &base) < 0)
				return -1;
			break;
		case DW_RLE_startx_endx:
			if (read_addrx(u, rd_uleb(&r), &a) < 0 || read_addrx(u, rd_uleb(&r), &b) < 0)
				return -1;
			fn(a, b, arg);
			break;
		case DW_RLE_startx_length:
			if (read_addrx(u, rd_uleb(&r), &a) < 0)
				return -1;
			fn(a, a + rd_uleb(&r), arg);
			break;
		case DW_RLE_offset_pair:
			a = rd_uleb(&r);
			b = rd_uleb(&r);
			fn(base + a, base + b, arg);
			break;
		case DW_RLE_base_address: base = rd_fixed(&r, u->addr_size); break;
		case DW_RLE_start_end:
			a = rd_fixed(&r, u->addr_size);
			b = rd_fixed(&r, u->addr_size);
			fn(a, b, arg);
			break;
		case DW_RLE_start_length:
			a = rd_fixed(&r, u->addr_size);
			fn(a, a + rd_uleb(&r), arg);
			break;
		default: return -1;
		}
		if (r.bad)
			return -1;
	}
}

struct range_sink {
	struct spgo_binary *bin;
	raw_range_vec *rr;
	uint32_t scope, order;
	int inlined;
};

static void add_range(uint64_t lo, uint64_t hi, void *arg)
{
	struct range_sink *k = arg;
	if (lo >= hi)
		return;
	struct raw_range r = {lo, hi, k->scope, k->order};
	VEC_PUSH(k->rr, r);
	if (!k->inlined) {
		struct spgo_scope_range sr = {lo, hi, k->scope};
		VEC_PUSH(&k->bin->subprograms, sr);
	}
}

/* ---- the walk ------------------------------------------------------------------------- */

static int parse_header(const struct spgo_info_sections *sec, uint64_t cu_off, struct unit *u, struct rd *r)
{
	const struct spgo_debug_str *info = &sec->info;
	if (!info->data || cu_off >= info->size)
		return -1;
	*r = (struct rd){info->data + cu_off, info->data + info->size, 0};
	uint64_t len = rd_fixed(r, 4);
	u->off_size = 4;
	if (len == 0xffffffffu) {
		len = rd_fixed(r, 8);
		u->off_size = 8;
	}
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return -1;
	r->end = r->p + len;
	u->end = (uint64_t)(r->end - info->data);
	u->off = cu_off;
	u->version = (unsigned)rd_fixed(r, 2);
	uint64_t abbrev_off;
	if (u->version >= 2 && u->version <= 4) {
		abbrev_off = rd_fixed(r, u->off_size);
		u->addr_size = (unsigned)rd_fixed(r, 1);
	} else if (u->version == 5) {
		unsigned type = (unsigned)rd_fixed(r, 1);
		if (type != DW_UT_compile)
			return -1;
		u->addr_size = (unsigned)rd_fixed(r, 1);
		abbrev_off = rd_fixed(r, u->off_size);
	} else {
		return -1;
	}
	if (r->bad || (u->addr_size != 4 && u->addr_size != 8))
		return -1;
	u->sec = sec;
	return read_abbrevs(sec, abbrev_off, &u->ab);
}

int spgo_walk_cu_dies(struct spgo_binary *bin, const struct spgo_info_sections *sec, uint64_t cu_off,
		      struct name_cache *nc, raw_range_vec *rr, uint32_t *order)
{
	struct unit u;
	memset(&u, 0, sizeof u);
	struct rd r;
	int rc = -1;
	VEC(int32_t) outer = {0}; /* per depth: the enclosing scope */
	VEC(uint8_t) skip = {0};  /* per depth: inside a leaf DIE's subtree */
	if (parse_header(sec, cu_off, &u, &r) < 0)
		goto out;

	/* The CU DIE: first the bases its attributes give (an addrx low_pc
	 * needs addr_base), then the DIE itself for its base address. */
	struct die_info d;
	const uint8_t *cu_die = r.p;
	{
		struct rd r2 = {cu_die, r.end, 0};
		uint64_t code = rd_uleb(&r2);
		if (r2.bad || code >= u.ab.byc.n || u.ab.byc.v[code].tag != DW_TAG_compile_unit)
			goto out;
		const struct abbrev *a = &u.ab.byc.v[code];
		const struct attr_spec *sp = &u.ab.specs.v[a->spec_begin];
		for (uint32_t i = 0; i < a->nspecs; i++) {
			struct val v;
			if (read_form(&u, &r2, sp[i].form, sp[i].implicit, &v) < 0)
				goto out;
			switch (sp[i].name) {
			case DW_AT_str_offsets_base: u.str_offsets_base = v.u; break;
			case DW_AT_addr_base: u.addr_base = v.u; break;
			case DW_AT_rnglists_base: u.rnglists_base = v.u; break;
			case DW_AT_GNU_addr_base:
			case DW_AT_GNU_ranges_base:
			case DW_AT_GNU_dwo_id:
			case DW_AT_dwo_name:
			case DW_AT_GNU_dwo_name: goto out; /* split DWARF: libdw's job */
			}
		}
	}
	if (read_die(&u, &r, &d) < 0)
		goto out;
	u.base_address = d.has_low ? d.low : 0;
	if (!d.children) {
		rc = 0;
		goto out;
	}
	VEC_PUSH(&outer, -1);
	VEC_PUSH(&skip, 0);
	while (outer.n) {
		if (r.p >= r.end)
			goto out; /* children not closed */
		if (read_die(&u, &r, &d) < 0)
			goto out;
		if (d.tag == 0) { /* end of this level's children */
			outer.n--;
			skip.n--;
			continue;
		}
		int32_t scope = outer.v[outer.n - 1];
		int skipping = skip.v[skip.n - 1];
		if (!skipping && (d.tag == DW_TAG_subprogram || d.tag == DW_TAG_inlined_subroutine)) {
			struct spgo_scope s = {0};
			s.parent = scope;
			s.inlined = d.tag == DW_TAG_inlined_subroutine;
			die_name(bin, &u, nc, &d, &s.name, &s.decl_line);
			s.call_file = UINT32_MAX;
			if (s.inlined) {
				s.call_file = d.call_file;
				s.call_line = d.call_line;
				s.call_column = d.call_column;
				s.call_discriminator = d.call_discriminator;
			}
			scope = (int32_t)bin->scopes.n;
			VEC_PUSH(&bin->scopes, s);
			struct range_sink k = {bin, rr, (uint32_t)scope, (*order)++, s.inlined};
			/* low_pc/high_pc first, as LLVM's getAddressRanges and
			 * libdw's dwarf_ranges take them, else DW_AT_ranges. */
			if (d.has_low && d.has_high) {
				add_range(d.low, d.high_is_addr ? d.high : d.low + d.high, &k);
			} else if (d.has_ranges) {
				if (each_range(&u, &d, add_range, &k) < 0)
					goto out;
			}
		}
		if (d.children) {
			int leaf = skipping || spgo_leaf_tag((int)d.tag);
			if (leaf && d.has_sibling && d.sibling > d.off && d.sibling <= u.end) {
				r.p = sec->info.data + d.sibling; /* skip the subtree */
				continue;
			}
			VEC_PUSH(&outer, scope);
			VEC_PUSH(&skip, (uint8_t)leaf);
		}
	}
	rc = 0;
out:
	VEC_FREE(&outer);
	VEC_FREE(&skip);
	VEC_FREE(&u.ab.byc);
	VEC_FREE(&u.ab.specs);
	return rc;
}
