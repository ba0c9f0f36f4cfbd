/*
 * The scopes of the inline tree, from the DIEs of each compile unit: every
 * subprogram and inlined-subroutine DIE with its name, decl line, call site
 * and enclosing scope (bin->scopes), and per compile unit the address space
 * cut into pieces labelled with their innermost scope (bin->ranges; the
 * deepest DIE wins, as in LLVM's DWARFUnit address-to-DIE map).  libdw
 * walks the DIEs (dwarf_child, dwarf_siblingof, dwarf_getattrs, ranges with
 * dwarf_ranges); dwarf.c calls this on a helper thread.  A skeleton unit of
 * split DWARF has its DIEs in a split unit, which split.c reads: its scopes
 * are added the same way (add_split_scopes).
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136 /* GCC: discriminator of an inlined call */
#endif

#include "binary/binary_impl.h"

/* A scope range before flattening: its DIE's preorder number decides. */
struct raw_range {
	uint64_t lo, hi;
	uint32_t scope, order;
};
typedef VEC(struct raw_range) raw_range_vec;

/* The attributes of a subprogram or inlined subroutine DIE that we use,
 * gathered in one pass over its attributes. */
struct scope_attrs {
	const char *mips, *linkage, *name;
	int has_decl_line, has_origin, has_ranges, has_low, has_high;
	uint32_t decl_line;
	Dwarf_Attribute origin, low, high;
	uint32_t call_file, call_line, call_column, call_discriminator;
};

static uint32_t udata32(Dwarf_Attribute *a)
{
	Dwarf_Word w = 0;
	return dwarf_formudata(a, &w) == 0 && w < UINT32_MAX ? (uint32_t)w : 0;
}

static int scope_attr(Dwarf_Attribute *a, void *arg)
{
	struct scope_attrs *sa = arg;
	switch (dwarf_whatattr(a)) {
	case DW_AT_name: sa->name = dwarf_formstring(a); break;
	case DW_AT_linkage_name: sa->linkage = dwarf_formstring(a); break;
	case DW_AT_MIPS_linkage_name: sa->mips = dwarf_formstring(a); break;
	case DW_AT_decl_line: sa->decl_line = udata32(a), sa->has_decl_line = 1; break;
	case DW_AT_abstract_origin:
	case DW_AT_specification:
		if (!sa->has_origin)
			sa->origin = *a, sa->has_origin = 1;
		break;
	case DW_AT_low_pc: sa->low = *a, sa->has_low = 1; break;
	case DW_AT_high_pc: sa->high = *a, sa->has_high = 1; break;
	case DW_AT_ranges: sa->has_ranges = 1; break;
	case DW_AT_call_file: {
		Dwarf_Word w;
		sa->call_file = dwarf_formudata(a, &w) == 0 && w < UINT32_MAX ? (uint32_t)w : UINT32_MAX;
		break;
	}
	case DW_AT_call_line: sa->call_line = udata32(a); break;
	case DW_AT_call_column: sa->call_column = udata32(a); break;
	case DW_AT_GNU_discriminator: sa->call_discriminator = udata32(a); break;
	}
	return DWARF_CB_OK;
}

static uint32_t intern_name(struct spgo_binary *bin, const char *mips, const char *linkage, const char *name)
{
	const char *s = mips ? mips : linkage ? linkage : name;
	return s ? spgo_strtab_intern(&bin->strs, s, strlen(s)) : SPGO_NO_FILE;
}

static const char *die_string(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(die, at, &a));
}

/*
 * Linkage name (else name) and decl line, through abstract origins and
 * specifications (dwarf_attr_integrate), as LLVM's
 * DWARFDie::getName(LinkageName) finds them.  A DIE with no naming
 * attribute of its own takes its origin's, looked up once per origin in
 * `names` (origin offset + 1 -> name id + 1 | decl_line << 32).
 */
static void die_name(struct spgo_binary *bin, struct spgo_kmap *names, Dwarf_Die *die, struct scope_attrs *sa,
		     uint32_t *name, uint32_t *decl_line)
{
	if (!sa->has_origin) {
		*name = intern_name(bin, sa->mips, sa->linkage, sa->name);
		*decl_line = sa->decl_line;
		return;
	}
	uint64_t key = 0;
	if (!sa->mips && !sa->linkage && !sa->name && !sa->has_decl_line) {
		Dwarf_Die origin;
		if (dwarf_formref_die(&sa->origin, &origin)) {
			key = dwarf_dieoffset(&origin) + 1;
			uint64_t *v = spgo_kmap_find(names, &key);
			if (v) {
				*name = (uint32_t)(*v & 0xffffffffu) - 1;
				*decl_line = (uint32_t)(*v >> 32);
				return;
			}
		}
	}
	*name = intern_name(bin, die_string(die, DW_AT_MIPS_linkage_name), die_string(die, DW_AT_linkage_name),
			    die_string(die, DW_AT_name));
	Dwarf_Attribute a;
	*decl_line = udata32(dwarf_attr_integrate(die, DW_AT_decl_line, &a));
	if (key)
		*spgo_kmap_upsert(names, &key) = ((uint64_t)*decl_line << 32) | (uint64_t)(*name + 1u);
}

/* [lo, hi) from DW_AT_low_pc and DW_AT_high_pc (an address or, from DWARF
 * 4, an offset from low_pc); 0 if they do not make a range. */
static int low_high(struct scope_attrs *sa, Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	if (!sa->has_low || !sa->has_high || dwarf_formaddr(&sa->low, lo) != 0)
		return 0;
	switch (dwarf_whatform(&sa->high)) {
	case DW_FORM_addr:
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		return dwarf_formaddr(&sa->high, hi) == 0;
	default: {
		Dwarf_Word w;
		if (dwarf_formudata(&sa->high, &w) != 0)
			return 0;
		*hi = *lo + w;
		return 1;
	}
	}
}

static int cmp_raw_lo(const void *a, const void *b)
{
	const struct raw_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Max-heap of raw ranges by preorder number. */
static void heap_push(struct raw_range *h, size_t *n, struct raw_range r)
{
	size_t i = (*n)++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (h[p].order >= r.order)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = r;
}

static void heap_pop(struct raw_range *h, size_t *n)
{
	struct raw_range last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].order > h[c].order)
			c++;
		if (h[c].order <= last.order)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static void emit_range(struct spgo_binary *bin, size_t first, uint64_t lo, uint64_t hi, uint32_t scope)
{
	if (lo >= hi)
		return;
	if (bin->ranges.n > first) {
		struct spgo_scope_range *last = &bin->ranges.v[bin->ranges.n - 1];
		if (last->hi == lo && last->scope == scope) {
			last->hi = hi;
			return;
		}
	}
	struct spgo_scope_range r = {lo, hi, scope};
	VEC_PUSH(&bin->ranges, r);
}

/*
 * Cut the address space into pieces, each owned by the range of highest
 * preorder number covering it (the deepest DIE for nested DWARF): a sweep
 * over the ranges sorted by start, with a heap of the open ones.
 */
static void flatten(struct spgo_binary *bin, struct raw_range *rr, size_t n)
{
	if (!n)
		return;
	qsort(rr, n, sizeof *rr, cmp_raw_lo);
	struct raw_range *heap = xmalloc(n * sizeof *heap);
	size_t hn = 0, i = 0, first = bin->ranges.n;
	uint64_t pos = rr[0].lo;
	while (i < n || hn) {
		while (hn && heap[0].hi <= pos)
			heap_pop(heap, &hn);
		if (!hn) {
			if (i >= n)
				break;
			if (pos < rr[i].lo)
				pos = rr[i].lo;
		}
		while (i < n && rr[i].lo <= pos) {
			if (rr[i].hi > pos)
				heap_push(heap, &hn, rr[i]);
			i++;
		}
		if (!hn)
			continue;
		uint64_t next = heap[0].hi;
		if (i < n && rr[i].lo < next)
			next = rr[i].lo;
		emit_range(bin, first, pos, next, heap[0].scope);
		pos = next;
	}
	free(heap);
}

/* DIEs whose children can hold no code: not worth walking. */
static int leaf_tag(int tag)
{
	switch (tag) {
	case DW_TAG_variable:
	case DW_TAG_formal_parameter:
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_typedef:
	case DW_TAG_member:
	case DW_TAG_enumeration_type:
	case DW_TAG_array_type:
	case DW_TAG_subrange_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_call_site:
	case DW_TAG_GNU_call_site:
	case DW_TAG_label:
	case DW_TAG_unspecified_parameters:
	case DW_TAG_template_type_parameter:
	case DW_TAG_template_value_parameter:
		return 1;
	}
	return 0;
}

/* Add a subprogram or inlined subroutine DIE to bin->scopes, its ranges to
 * rr (numbered `order`) and, out of line, to bin->subprograms. */
static int32_t add_scope(struct spgo_binary *bin, struct spgo_kmap *names, Dwarf_Die *die, int tag,
			 int32_t parent, uint32_t order, raw_range_vec *rr)
{
	struct spgo_scope s = {0};
	struct scope_attrs sa;
	memset(&sa, 0, sizeof sa);
	sa.call_file = UINT32_MAX;
	dwarf_getattrs(die, scope_attr, &sa, 0);
	s.parent = parent;
	s.inlined = tag == DW_TAG_inlined_subroutine;
	die_name(bin, names, die, &sa, &s.name, &s.decl_line);
	s.call_file = UINT32_MAX;
	if (s.inlined) {
		s.call_file = sa.call_file;
		s.call_line = sa.call_line;
		s.call_column = sa.call_column;
		s.call_discriminator = sa.call_discriminator;
	}
	int32_t scope = (int32_t)bin->scopes.n;
	VEC_PUSH(&bin->scopes, s);
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int one = low_high(&sa, &lo, &hi);
	/* A low/high pair (as LLVM's getAddressRanges takes it first), else
	 * DW_AT_ranges. */
	while (one || (!(sa.has_low && sa.has_high) && sa.has_ranges &&
		       (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)) {
		one = 0;
		if (lo >= hi)
			continue;
		struct raw_range r = {lo, hi, (uint32_t)scope, order};
		VEC_PUSH(rr, r);
		if (!s.inlined) {
			struct spgo_scope_range sr = {lo, hi, (uint32_t)scope};
			VEC_PUSH(&bin->subprograms, sr);
		}
	}
	return scope;
}

#define MAX_DEPTH 512

/* Every scope DIE of the CU, in preorder, then its flattened ranges. */
static void read_scopes(struct spgo_binary *bin, struct spgo_kmap *names, Dwarf_Die *cudie, raw_range_vec *rr)
{
	Dwarf_Die stack[MAX_DEPTH];
	int32_t outer[MAX_DEPTH];
	uint32_t order = 0;
	int d = 0;
	rr->n = 0;
	if (dwarf_child(cudie, &stack[0]) != 0)
		return;
	outer[0] = -1;
	for (;;) {
		Dwarf_Die *die = &stack[d];
		int tag = dwarf_tag(die);
		int32_t scope = outer[d];
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			scope = add_scope(bin, names, die, tag, outer[d], order++, rr);
		if (!leaf_tag(tag) && d + 1 < MAX_DEPTH && dwarf_haschildren(die) > 0 &&
		    dwarf_child(die, &stack[d + 1]) == 0) {
			outer[++d] = scope;
			continue;
		}
		/* Next sibling, climbing up as levels run out. */
		while (dwarf_siblingof(&stack[d], &stack[d]) != 0)
			if (d-- == 0)
				goto done;
	}
done:
	flatten(bin, rr->v, rr->n);
}

/* The scopes split.c read from a split unit, as add_scope() adds those of
 * libdw's DIEs (numbered in preorder the same way), then their ranges. */
static void add_split_scopes(struct spgo_binary *bin, const struct spgo_split_unit *su, raw_range_vec *rr)
{
	int32_t first = (int32_t)bin->scopes.n;
	rr->n = 0;
	for (size_t k = 0; k < su->scopes.n; k++) {
		const struct spgo_split_scope *x = &su->scopes.v[k];
		struct spgo_scope s = {0};
		s.parent = x->parent < 0 ? -1 : first + x->parent;
		s.name = x->name ? spgo_strtab_intern(&bin->strs, x->name, strlen(x->name)) : SPGO_NO_FILE;
		s.decl_line = x->decl_line;
		s.inlined = x->inlined;
		s.call_file = x->call_file;
		s.call_line = x->call_line;
		s.call_column = x->call_column;
		s.call_discriminator = x->call_discriminator;
		uint32_t scope = (uint32_t)bin->scopes.n;
		VEC_PUSH(&bin->scopes, s);
		for (size_t j = x->range_begin; j + 1 < x->range_end; j += 2) {
			uint64_t lo = su->ranges.v[j], hi = su->ranges.v[j + 1];
			if (lo >= hi)
				continue;
			struct raw_range r = {lo, hi, scope, (uint32_t)k};
			VEC_PUSH(rr, r);
			if (!s.inlined) {
				struct spgo_scope_range sr = {lo, hi, scope};
				VEC_PUSH(&bin->subprograms, sr);
			}
		}
	}
	flatten(bin, rr->v, rr->n);
}

void spgo_read_scopes(struct spgo_binary *bin, Dwarf *dw, const Dwarf_Off *cu_offs, size_t n, size_t *bounds)
{
	struct spgo_kmap names;
	spgo_kmap_init(&names, 1);
	raw_range_vec rr = {0};
	struct spgo_split *split = NULL; /* made at the first skeleton unit */
	struct spgo_split_unit su = {0};
	for (size_t i = 0; i < n; i++) {
		Dwarf_Die cudie;
		bounds[2 * i] = bin->ranges.n;
		if (dwarf_offdie(dw, cu_offs[i], &cudie)) {
			/* A skeleton whose split unit cannot be read keeps
			 * its own DIEs (as in LLVM), usually none. */
			if (spgo_split_is_skeleton(&cudie)) {
				if (!split)
					split = spgo_split_begin(bin, dwarf_getelf(dw));
				if (spgo_split_read(split, &cudie, &su) > 0) {
					add_split_scopes(bin, &su, &rr);
					bounds[2 * i + 1] = bin->ranges.n;
					continue;
				}
			}
			read_scopes(bin, &names, &cudie, &rr);
		}
		bounds[2 * i + 1] = bin->ranges.n;
	}
	spgo_split_end(split);
	VEC_FREE(&su.scopes);
	VEC_FREE(&su.ranges);
	VEC_FREE(&rr);
	spgo_kmap_free(&names);
}
