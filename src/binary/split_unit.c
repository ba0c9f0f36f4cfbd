/*
 * Split DWARF: one split unit's DIEs (see split.c for how the unit is
 * found and split_impl.h for what the two share): abbrevs and every form of DWARF 4 and 5 and the GNU split
 * forms; for each subprogram and inlined subroutine: names through
 * abstract_origin/specification, decl_line, call_file/line/column,
 * DW_AT_GNU_discriminator, low/high pc (addrx through the binary's
 * .debug_addr at the skeleton's addr_base) or ranges (DWARF 5
 * .debug_rnglists.dwo, rnglistx or offset; DWARF 4 the binary's
 * .debug_ranges at the skeleton's DW_AT_GNU_ranges_base), with the
 * skeleton's low_pc as the base address, all as LLVM's DWARFUnit reads
 * them.
 *
 * Every size and offset is checked against its section; the first thing
 * found wrong is kept in the unit (fail()) for split.c to report.
 */
#include <stdlib.h>

#include "binary/split_impl.h"

/* A NUL-terminated string at off of s, or NULL. */
static const char *span_str(struct span s, uint64_t off)
{
	if (off >= s.n || !memchr(s.p + off, 0, s.n - off))
		return NULL;
	return (const char *)s.p + off;
}

/* The unit length of a DWARF header (32- or 64-bit format): sets *offsz to
 * 4 or 8; 0 (and bad) when it is neither. */
static uint64_t rd_length(struct rd *r, unsigned *offsz)
{
	uint64_t len = rd_le(r, 4);
	*offsz = 4;
	if (len == 0xffffffffu) {
		len = rd_le(r, 8);
		*offsz = 8;
	} else if (len >= 0xfffffff0u) {
		r->bad = 1;
		return 0;
	}
	return len;
}


static int fail(struct unit *u, uint64_t off, const char *what)
{
	if (!u->err)
		u->err = what, u->err_off = off;
	return -1;
}

/* The bytes of one contribution of a .dwp unit's row, or the whole section
 * of a .dwo; 0, or -1 when the index points outside the section. */
static int contribution(const struct dwo_file *f, uint32_t row, int s, struct span *out)
{
	*out = f->sect[s];
	if (!f->index.n)
		return 0;
	if (f->col[s] < 0) {
		out->n = 0;
		return 0;
	}
	uint64_t base = 16 + (uint64_t)f->nslots * 12 + (uint64_t)f->ncols * 4;
	uint64_t cell = ((uint64_t)(row - 1) * f->ncols + (uint64_t)f->col[s]) * 4;
	struct rd o = rd_at(f->index, base + cell);
	struct rd z = rd_at(f->index, base + (uint64_t)f->nunits * f->ncols * 4 + cell);
	uint64_t off = rd_le(&o, 4), size = rd_le(&z, 4);
	if (o.bad || z.bad || off > f->sect[s].n || size > f->sect[s].n - off)
		return -1;
	out->p = f->sect[s].p + off;
	out->n = size;
	return 0;
}

/* The unit's abbrev table, from its offset in u->abbrev to the 0 code. */
static int read_abbrevs(struct unit *u)
{
	struct rd r = rd_at(u->abbrev, 0);
	for (;;) {
		uint64_t code = rd_uleb(&r);
		if (r.bad)
			return fail(u, 0, "abbrev table runs past .debug_abbrev.dwo");
		if (code == 0)
			return 0;
		struct abbrev a = {code, (uint32_t)rd_uleb(&r), 0, (uint32_t)u->sp->specs.n, 0};
		a.children = (uint8_t)rd_le(&r, 1);
		for (;;) {
			struct attr_spec s = {0, 0, 0};
			s.at = (uint32_t)rd_uleb(&r);
			s.form = (uint32_t)rd_uleb(&r);
			if (r.bad)
				return fail(u, code, "abbrev runs past .debug_abbrev.dwo");
			if (s.at == 0 && s.form == 0)
				break;
			if (s.form == DW_FORM_implicit_const)
				s.implicit = rd_sleb(&r);
			VEC_PUSH(&u->sp->specs, s);
			a.n++;
		}
		VEC_PUSH(&u->sp->abbrevs, a);
	}
}

/*
 * The abbrev of code, or NULL.  Producers number a table's abbrevs 1, 2,
 * 3...: then the code is the index; else the first of that code in the
 * table (LLVM's DWARFAbbreviationDeclarationSet searches the same way).
 */
static const struct abbrev *find_abbrev(const struct unit *u, uint64_t code)
{
	const struct abbrev *v = u->sp->abbrevs.v;
	size_t n = u->sp->abbrevs.n;
	if (code - 1 < n && v[code - 1].code == code)
		return &v[code - 1];
	for (size_t i = 0; i < n; i++)
		if (v[i].code == code)
			return &v[i];
	return NULL;
}

/* A form's value as far as the walk needs it. */
enum { V_NONE, V_CONST, V_ADDR, V_ADDRX, V_STR, V_STRX, V_STRP, V_REF, V_SECOFF, V_INDEX };
struct val {
	int kind;
	uint64_t u;
	const char *s;
};

/* Read one value of form `form` at r (depth guards DW_FORM_indirect). */
static int read_value(struct unit *u, struct rd *r, uint32_t form, int64_t implicit, struct val *v, int depth)
{
	unsigned os = u->offset_size;
	v->kind = V_NONE;
	v->s = NULL;
	switch (form) {
	case DW_FORM_addr: v->kind = V_ADDR, v->u = rd_le(r, u->addr_size); break;
	case DW_FORM_data1: v->kind = V_CONST, v->u = rd_le(r, 1); break;
	case DW_FORM_data2: v->kind = V_CONST, v->u = rd_le(r, 2); break;
	case DW_FORM_data4: v->kind = V_CONST, v->u = rd_le(r, 4); break;
	case DW_FORM_data8: v->kind = V_CONST, v->u = rd_le(r, 8); break;
	case DW_FORM_data16: rd_skip(r, 16); break;
	case DW_FORM_udata: v->kind = V_CONST, v->u = rd_uleb(r); break;
	case DW_FORM_sdata: v->kind = V_CONST, v->u = (uint64_t)rd_sleb(r); break;
	case DW_FORM_implicit_const: v->kind = V_CONST, v->u = (uint64_t)implicit; break;
	case DW_FORM_flag: rd_skip(r, 1); break;
	case DW_FORM_flag_present: break;
	case DW_FORM_block1: rd_skip(r, rd_le(r, 1)); break;
	case DW_FORM_block2: rd_skip(r, rd_le(r, 2)); break;
	case DW_FORM_block4: rd_skip(r, rd_le(r, 4)); break;
	case DW_FORM_block:
	case DW_FORM_exprloc: rd_skip(r, rd_uleb(r)); break;
	case DW_FORM_string: {
		const uint8_t *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
		if (!nul)
			return fail(u, (uint64_t)(r->p - u->info.p), "unterminated string in .debug_info.dwo");
		v->kind = V_STR, v->s = (const char *)r->p;
		r->p = nul + 1;
		break;
	}
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_GNU_strp_alt:
		v->kind = form == DW_FORM_strp ? V_STRP : V_NONE, v->u = rd_le(r, os);
		break;
	case DW_FORM_strx:
	case DW_FORM_GNU_str_index: v->kind = V_STRX, v->u = rd_uleb(r); break;
	case DW_FORM_strx1: v->kind = V_STRX, v->u = rd_le(r, 1); break;
	case DW_FORM_strx2: v->kind = V_STRX, v->u = rd_le(r, 2); break;
	case DW_FORM_strx3: v->kind = V_STRX, v->u = rd_le(r, 3); break;
	case DW_FORM_strx4: v->kind = V_STRX, v->u = rd_le(r, 4); break;
	case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index: v->kind = V_ADDRX, v->u = rd_uleb(r); break;
	case DW_FORM_addrx1: v->kind = V_ADDRX, v->u = rd_le(r, 1); break;
	case DW_FORM_addrx2: v->kind = V_ADDRX, v->u = rd_le(r, 2); break;
	case DW_FORM_addrx3: v->kind = V_ADDRX, v->u = rd_le(r, 3); break;
	case DW_FORM_addrx4: v->kind = V_ADDRX, v->u = rd_le(r, 4); break;
	case DW_FORM_ref1: v->kind = V_REF, v->u = rd_le(r, 1); break;
	case DW_FORM_ref2: v->kind = V_REF, v->u = rd_le(r, 2); break;
	case DW_FORM_ref4: v->kind = V_REF, v->u = rd_le(r, 4); break;
	case DW_FORM_ref8: v->kind = V_REF, v->u = rd_le(r, 8); break;
	case DW_FORM_ref_udata: v->kind = V_REF, v->u = rd_uleb(r); break;
	case DW_FORM_ref_addr: rd_skip(r, u->version <= 2 ? u->addr_size : os); break;
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_sec_offset: v->kind = form == DW_FORM_sec_offset ? V_SECOFF : V_NONE, v->u = rd_le(r, os); break;
	case DW_FORM_strp_sup: rd_skip(r, os); break;
	case DW_FORM_ref_sup4: rd_skip(r, 4); break;
	case DW_FORM_ref_sup8:
	case DW_FORM_ref_sig8: rd_skip(r, 8); break;
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx: v->kind = V_INDEX, v->u = rd_uleb(r); break;
	case DW_FORM_indirect:
		if (depth > 4)
			return fail(u, (uint64_t)(r->p - u->info.p), "DW_FORM_indirect loop");
		return read_value(u, r, (uint32_t)rd_uleb(r), implicit, v, depth + 1);
	default: return fail(u, form, "unknown attribute form");
	}
	if (r->bad)
		return fail(u, (uint64_t)(r->p - u->info.p), "attribute runs past the unit");
	return 0;
}

/* Entry idx of the binary's .debug_addr for the skeleton's addr_base. */
static int addr_at(struct unit *u, uint64_t idx, uint64_t *out)
{
	const struct span *a = &u->sp->addr;
	uint64_t off = u->sk->addr_base;
	if (off > a->n || idx > (a->n - off) / u->addr_size || a->n - off - idx * u->addr_size < u->addr_size)
		return fail(u, idx, "address index outside the binary's .debug_addr");
	struct rd r = rd_at(*a, off + idx * u->addr_size);
	*out = rd_le(&r, u->addr_size);
	return 0;
}

static int value_addr(struct unit *u, const struct val *v, uint64_t *out)
{
	if (v->kind == V_ADDR) {
		*out = v->u;
		return 0;
	}
	if (v->kind == V_ADDRX)
		return addr_at(u, v->u, out);
	return -1;
}

/* A string value, or NULL (a bad index or offset is an error). */
static const char *value_str(struct unit *u, const struct val *v)
{
	const struct span *str = &u->f->sect[S_STR];
	switch (v->kind) {
	case V_STR: return v->s;
	case V_STRP: {
		const char *s = span_str(*str, v->u);
		if (!s)
			fail(u, v->u, "string offset outside .debug_str.dwo");
		return s;
	}
	case V_STRX: {
		uint64_t n = u->str_offsets.n;
		if (!n) { /* gcc and llvm-dwp keep it; a stripped .dwo may not */
			fail(u, v->u, "string index but no .debug_str_offsets.dwo");
			return NULL;
		}
		if (u->str_base > n || v->u > (n - u->str_base) / u->str_size) {
			fail(u, v->u, "string index outside .debug_str_offsets.dwo");
			return NULL;
		}
		struct rd r = rd_at(u->str_offsets, u->str_base + v->u * u->str_size);
		uint64_t off = rd_le(&r, u->str_size);
		const char *s = r.bad ? NULL : span_str(*str, off);
		if (!s)
			fail(u, v->u, "string index outside .debug_str_offsets.dwo or .debug_str.dwo");
		return s;
	}
	}
	return NULL;
}

/* The attributes of a scope DIE that matter, in one pass. */
struct die_attrs {
	const char *name, *linkage, *mips;
	int has_decl_line;
	uint32_t decl_line;
	int64_t origin, spec; /* unit offsets of DW_AT_abstract_origin and
				 DW_AT_specification, or -1 */
	struct val low, high, ranges;
	uint32_t call_file, call_line, call_column, call_discriminator;
};

static uint32_t const32(const struct val *v)
{
	return v->kind == V_CONST && v->u < UINT32_MAX ? (uint32_t)v->u : 0;
}

/*
 * The DIE at unit offset *off: its abbrev (NULL for a 0 code, the end of
 * children), and, when attrs is not NULL, its attributes; *off moves past
 * it.  -1 on corrupt input.
 */
static int read_die(struct unit *u, uint64_t *off, const struct abbrev **out, struct die_attrs *da)
{
	struct rd r = rd_at(u->info, *off);
	uint64_t code = rd_uleb(&r);
	if (r.bad)
		return fail(u, *off, "DIE runs past the unit");
	*out = NULL;
	if (code == 0) {
		*off = (uint64_t)(r.p - u->info.p);
		return 0;
	}
	const struct abbrev *a = find_abbrev(u, code);
	if (!a)
		return fail(u, *off, "DIE with an undefined abbrev code");
	*out = a;
	if (da) {
		memset(da, 0, sizeof *da);
		da->origin = da->spec = -1;
		da->call_file = UINT32_MAX;
	}
	for (uint32_t i = 0; i < a->n; i++) {
		const struct attr_spec *s = &u->sp->specs.v[a->first + i];
		struct val v;
		if (read_value(u, &r, s->form, s->implicit, &v, 0) < 0)
			return -1;
		if (!da)
			continue;
		switch (s->at) {
		case DW_AT_name: da->name = value_str(u, &v); break;
		case DW_AT_linkage_name: da->linkage = value_str(u, &v); break;
		case DW_AT_MIPS_linkage_name: da->mips = value_str(u, &v); break;
		case DW_AT_decl_line: da->decl_line = const32(&v), da->has_decl_line = 1; break;
		case DW_AT_abstract_origin:
			if (v.kind == V_REF)
				da->origin = (int64_t)v.u;
			break;
		case DW_AT_specification:
			if (v.kind == V_REF)
				da->spec = (int64_t)v.u;
			break;
		case DW_AT_low_pc: da->low = v; break;
		case DW_AT_high_pc: da->high = v; break;
		case DW_AT_ranges: da->ranges = v; break;
		case DW_AT_call_file:
			da->call_file = v.kind == V_CONST && v.u < UINT32_MAX ? (uint32_t)v.u : UINT32_MAX;
			break;
		case DW_AT_call_line: da->call_line = const32(&v); break;
		case DW_AT_call_column: da->call_column = const32(&v); break;
		case DW_AT_GNU_discriminator: da->call_discriminator = const32(&v); break;
		}
		if (u->err)
			return -1;
	}
	*off = (uint64_t)(r.p - u->info.p);
	return 0;
}

/*
 * Fill what da lacks from its origin chain, as libdw's
 * dwarf_attr_integrate does for each attribute (DW_AT_abstract_origin, else
 * DW_AT_specification, at most 16 steps): the origins' names are
 * remembered per unit.
 */
static int resolve(struct unit *u, const struct die_attrs *da, struct resolved *out, int depth)
{
	out->mips = da->mips;
	out->linkage = da->linkage;
	out->name = da->name;
	out->decl_line = da->decl_line;
	out->has_decl_line = da->has_decl_line;
	int64_t ref = da->origin >= 0 ? da->origin : da->spec;
	if (ref < 0 || (out->mips && out->linkage && out->name && out->has_decl_line))
		return 0;
	if (depth >= 16)
		return 0;
	struct spgo_split *sp = u->sp;
	uint64_t key = (uint64_t)ref + 1;
	uint64_t *memo = spgo_kmap_find(&sp->names, &key);
	struct resolved o;
	if (memo) {
		o = sp->resolved.v[*memo - 1];
	} else {
		if ((uint64_t)ref < u->die_off || (uint64_t)ref >= u->info.n)
			return fail(u, (uint64_t)ref, "DIE reference outside the unit");
		uint64_t off = (uint64_t)ref;
		const struct abbrev *a;
		struct die_attrs oa;
		if (read_die(u, &off, &a, &oa) < 0)
			return -1;
		if (!a)
			return fail(u, (uint64_t)ref, "DIE reference to a null entry");
		if (resolve(u, &oa, &o, depth + 1) < 0)
			return -1;
		VEC_PUSH(&sp->resolved, o);
		*spgo_kmap_upsert(&sp->names, &key) = sp->resolved.n;
	}
	if (!out->mips)
		out->mips = o.mips;
	if (!out->linkage)
		out->linkage = o.linkage;
	if (!out->name)
		out->name = o.name;
	if (!out->has_decl_line) {
		out->decl_line = o.decl_line;
		out->has_decl_line = o.has_decl_line;
	}
	return 0;
}

/* Append a range list's [lo, hi) pairs to out. */
typedef spgo_u64_vec u64_vec;

/* DWARF 4: a list of the binary's .debug_ranges at ranges_base + off. */
static int ranges_v4(struct unit *u, uint64_t off, u64_vec *out)
{
	const struct span *s = &u->sp->ranges;
	unsigned as = u->addr_size;
	uint64_t at = u->sk->ranges_base + off;
	if (at < off || at > s->n)
		return fail(u, off, "range list offset outside the binary's .debug_ranges");
	struct rd r = rd_at(*s, at);
	uint64_t base = u->sk->base_addr, all = as == 8 ? UINT64_MAX : 0xffffffffu;
	for (;;) {
		uint64_t a = rd_le(&r, as), b = rd_le(&r, as);
		if (r.bad)
			return fail(u, off, "range list runs past the binary's .debug_ranges");
		if (a == 0 && b == 0)
			return 0;
		if (a == all) {
			base = b;
			continue;
		}
		VEC_PUSH(out, base + a);
		VEC_PUSH(out, base + b);
	}
}

/* DWARF 5: a list of .debug_rnglists.dwo at off in the unit's contribution. */
static int ranges_v5(struct unit *u, uint64_t off, u64_vec *out)
{
	if (off > u->rnglists.n)
		return fail(u, off, "range list offset outside .debug_rnglists.dwo");
	struct rd r = rd_at(u->rnglists, off);
	uint64_t base = u->sk->base_addr, a, b;
	for (;;) {
		uint8_t kind = (uint8_t)rd_le(&r, 1);
		int have = 1;
		switch (kind) {
		case DW_RLE_end_of_list: have = 0; break;
		case DW_RLE_base_addressx:
			if (addr_at(u, rd_uleb(&r), &base) < 0)
				return -1;
			have = 0;
			break;
		case DW_RLE_startx_endx:
			if (addr_at(u, rd_uleb(&r), &a) < 0 || addr_at(u, rd_uleb(&r), &b) < 0)
				return -1;
			break;
		case DW_RLE_startx_length:
			if (addr_at(u, rd_uleb(&r), &a) < 0)
				return -1;
			b = a + rd_uleb(&r);
			break;
		case DW_RLE_offset_pair:
			a = base + rd_uleb(&r);
			b = base + rd_uleb(&r);
			break;
		case DW_RLE_base_address:
			base = rd_le(&r, u->addr_size);
			have = 0;
			break;
		case DW_RLE_start_end:
			a = rd_le(&r, u->addr_size);
			b = rd_le(&r, u->addr_size);
			break;
		case DW_RLE_start_length:
			a = rd_le(&r, u->addr_size);
			b = a + rd_uleb(&r);
			break;
		default: return fail(u, off, "unknown range list entry in .debug_rnglists.dwo");
		}
		if (r.bad)
			return fail(u, off, "range list runs past .debug_rnglists.dwo");
		if (kind == DW_RLE_end_of_list)
			return 0;
		if (have) {
			VEC_PUSH(out, a);
			VEC_PUSH(out, b);
		}
	}
}

/* The scope's ranges: low/high pc (as LLVM takes them first), else
 * DW_AT_ranges. */
static int scope_ranges(struct unit *u, const struct die_attrs *da, u64_vec *out)
{
	if (da->low.kind != V_NONE && da->high.kind != V_NONE) {
		uint64_t lo, hi;
		if (value_addr(u, &da->low, &lo) < 0)
			return u->err ? -1 : 0;
		if (da->high.kind == V_CONST) {
			hi = lo + da->high.u;
		} else if (value_addr(u, &da->high, &hi) < 0) {
			return u->err ? -1 : 0;
		}
		VEC_PUSH(out, lo);
		VEC_PUSH(out, hi);
		return 0;
	}
	if (da->ranges.kind == V_NONE)
		return 0;
	if (u->version < 5)
		return da->ranges.kind == V_SECOFF || da->ranges.kind == V_CONST ? ranges_v4(u, da->ranges.u, out) : 0;
	uint64_t off = da->ranges.u;
	if (da->ranges.kind == V_INDEX) {
		/* rnglistx: an entry of the offset table after the header. */
		if (off >= u->rng_count)
			return fail(u, off, "range list index outside .debug_rnglists.dwo");
		struct rd r = rd_at(u->rnglists, u->rng_base + off * u->rng_offsize);
		off = u->rng_base + rd_le(&r, u->rng_offsize);
		if (r.bad)
			return fail(u, off, "range list index outside .debug_rnglists.dwo");
	} else if (da->ranges.kind != V_SECOFF) {
		return 0;
	}
	return ranges_v5(u, off, out);
}

/*
 * The unit header at info (a .dwp contribution, or the whole .debug_info.dwo
 * of a .dwo from offset at): fills u's shape and sets *next to the next
 * unit; *is_cu is 1 for a (split) compile unit, and *id its DWARF 5 id.
 */
static int read_header(struct unit *u, struct span sec, uint64_t at, uint64_t *next, int *is_cu, uint64_t *id)
{
	struct rd r = rd_at(sec, at);
	unsigned os;
	uint64_t len = rd_length(&r, &os);
	uint64_t hdr = (uint64_t)(r.p - sec.p);
	if (r.bad || len > sec.n - hdr)
		return fail(u, at, "unit header runs past .debug_info.dwo");
	u->info.p = sec.p + at;
	u->info.n = (size_t)(hdr - at + len);
	*next = hdr + len;
	u->offset_size = os;
	u->version = (unsigned)rd_le(&r, 2);
	uint64_t abbrev_off;
	*is_cu = 1;
	*id = 0;
	if (u->version >= 5) {
		unsigned type = (unsigned)rd_le(&r, 1);
		u->addr_size = (unsigned)rd_le(&r, 1);
		abbrev_off = rd_le(&r, os);
		if (type == DW_UT_split_compile || type == DW_UT_skeleton)
			*id = rd_le(&r, 8);
		else if (type == DW_UT_split_type || type == DW_UT_type)
			rd_skip(&r, 8 + os);
		*is_cu = type == DW_UT_split_compile;
	} else {
		abbrev_off = rd_le(&r, os);
		u->addr_size = (unsigned)rd_le(&r, 1);
	}
	if (r.bad || (uint64_t)(r.p - sec.p) > *next)
		return fail(u, at, "unit header runs past .debug_info.dwo");
	if (u->version < 2 || u->version > 5)
		return fail(u, at, "unsupported DWARF version in .debug_info.dwo");
	if (u->addr_size != 4 && u->addr_size != 8)
		return fail(u, at, "unsupported address size in .debug_info.dwo");
	u->die_off = (uint64_t)(r.p - u->info.p);
	if (abbrev_off > u->abbrev.n)
		return fail(u, abbrev_off, "abbrev offset outside .debug_abbrev.dwo");
	u->abbrev.p += abbrev_off;
	u->abbrev.n -= abbrev_off;
	return 0;
}

/* The string offsets and range list tables of the unit (after the DWARF 5
 * headers of their contributions). */
static int read_tables(struct unit *u)
{
	u->str_size = 4;
	u->str_base = 0;
	if (u->version >= 5 && u->str_offsets.n) {
		struct rd r = rd_at(u->str_offsets, 0);
		unsigned os;
		rd_length(&r, &os);
		rd_skip(&r, 4); /* version, padding */
		if (r.bad)
			return fail(u, 0, "truncated .debug_str_offsets.dwo header");
		u->str_size = os;
		u->str_base = (uint64_t)(r.p - u->str_offsets.p);
	}
	u->rng_count = 0;
	if (u->version >= 5 && u->rnglists.n) {
		struct rd r = rd_at(u->rnglists, 0);
		unsigned os;
		rd_length(&r, &os);
		rd_skip(&r, 4); /* version, address size, segment selector size */
		u->rng_count = rd_le(&r, 4);
		if (r.bad)
			return fail(u, 0, "truncated .debug_rnglists.dwo header");
		u->rng_offsize = os;
		u->rng_base = (uint64_t)(r.p - u->rnglists.p);
		if (u->rng_count > (u->rnglists.n - u->rng_base) / os)
			return fail(u, 0, "range list offset table runs past .debug_rnglists.dwo");
	}
	return 0;
}

/* ---- the walk ------------------------------------------------------------------ */

/* Every subprogram and inlined subroutine DIE of the unit, in preorder. */
static int walk(struct unit *u, struct spgo_split_unit *out)
{
	VEC(int32_t) outer = {0}; /* per depth: the innermost scope around it */
	uint64_t off = u->die_off;
	const struct abbrev *a;
	struct die_attrs da;
	/* The unit DIE: its children are what we walk. */
	if (read_die(u, &off, &a, NULL) < 0)
		return -1;
	if (!a || !a->children)
		return 0;
	VEC_PUSH(&outer, -1);
	while (outer.n && off < u->info.n) {
		if (read_die(u, &off, &a, &da) < 0)
			break;
		if (!a) { /* end of the current children */
			outer.n--;
			continue;
		}
		int32_t scope = outer.v[outer.n - 1];
		if (a->tag == DW_TAG_subprogram || a->tag == DW_TAG_inlined_subroutine) {
			struct resolved rs;
			if (resolve(u, &da, &rs, 0) < 0)
				break;
			struct spgo_split_scope s = {0};
			s.parent = scope;
			s.name = rs.mips ? rs.mips : rs.linkage ? rs.linkage : rs.name;
			s.decl_line = rs.decl_line;
			s.inlined = a->tag == DW_TAG_inlined_subroutine;
			s.call_file = UINT32_MAX;
			if (s.inlined) {
				s.call_file = da.call_file;
				s.call_line = da.call_line;
				s.call_column = da.call_column;
				s.call_discriminator = da.call_discriminator;
			}
			s.range_begin = out->ranges.n;
			if (scope_ranges(u, &da, &out->ranges) < 0)
				break;
			s.range_end = out->ranges.n;
			scope = (int32_t)out->scopes.n;
			VEC_PUSH(&out->scopes, s);
		}
		if (a->children)
			VEC_PUSH(&outer, scope);
	}
	VEC_FREE(&outer);
	return u->err ? -1 : 0;
}

/* ---- finding the unit in its file -------------------------------------------- */

int split_unit_find(struct unit *u, const struct dwo_file *f, const struct skeleton *sk)
{
	struct span info;
	if (f->index.n) {
		uint32_t row = sk->has_id ? split_index_row(f, sk->id) : 0;
		if (!row)
			return 0;
		if (row > f->nunits)
			return fail(u, row, "row outside .debug_cu_index");
		if (contribution(f, row, S_INFO, &info) < 0 || contribution(f, row, S_ABBREV, &u->abbrev) < 0 ||
		    contribution(f, row, S_STR_OFFSETS, &u->str_offsets) < 0 ||
		    contribution(f, row, S_RNGLISTS, &u->rnglists) < 0)
			return fail(u, row, "contribution outside its section in .debug_cu_index");
		uint64_t next, id;
		int is_cu;
		if (read_header(u, info, 0, &next, &is_cu, &id) < 0)
			return -1;
		if (u->version >= 5 && (!is_cu || id != sk->id))
			return fail(u, row, "the unit at the index's row is not the one with its id");
		return read_tables(u) < 0 ? -1 : 1;
	}
	/* A .dwo: the split compile unit with the skeleton's id. */
	info = f->sect[S_INFO];
	for (uint64_t at = 0, next; at < info.n; at = next) {
		uint64_t id;
		int is_cu;
		u->abbrev = f->sect[S_ABBREV];
		u->str_offsets = f->sect[S_STR_OFFSETS];
		u->rnglists = f->sect[S_RNGLISTS];
		if (read_header(u, info, at, &next, &is_cu, &id) < 0)
			return -1;
		if (!is_cu)
			continue;
		if (u->version < 5 && sk->has_id) {
			/* Before DWARF 5 the id is DW_AT_GNU_dwo_id of the unit DIE. */
			u->sp->abbrevs.n = u->sp->specs.n = 0;
			if (read_abbrevs(u) < 0)
				return -1;
			uint64_t off = u->die_off;
			struct rd r = rd_at(u->info, off);
			uint64_t code = rd_uleb(&r);
			id = ~sk->id;
			off = (uint64_t)(r.p - u->info.p);
			const struct abbrev *a = code ? find_abbrev(u, code) : NULL;
			if (a) {
				r = rd_at(u->info, off);
				for (uint32_t i = 0; i < a->n; i++) {
					const struct attr_spec *s = &u->sp->specs.v[a->first + i];
					struct val v;
					if (read_value(u, &r, s->form, s->implicit, &v, 0) < 0)
						return -1;
					if (s->at == DW_AT_GNU_dwo_id && v.kind == V_CONST)
						id = v.u;
				}
			}
		}
		if (!sk->has_id || id == sk->id)
			return read_tables(u) < 0 ? -1 : 1;
	}
	return 0;
}

int split_unit_read(struct unit *u, struct spgo_split_unit *out)
{
	u->sp->abbrevs.n = u->sp->specs.n = 0;
	return read_abbrevs(u) < 0 || walk(u, out) < 0 ? -1 : 0;
}
