/*
 * Build the address-sorted debug tables of a binary from its DWARF, once:
 *
 *   rows        every line table row of every CU (libdw hands them sorted by
 *               address, end-of-sequence rows first at equal addresses);
 *   scopes      every subprogram and inlined-subroutine DIE, with its name,
 *               decl line, call site and enclosing scope;
 *   ranges      per CU, the address space cut into pieces, each labelled with
 *               its innermost scope (the deepest DIE wins, as in LLVM's
 *               DWARFUnit address-to-DIE map);
 *   cu_ranges   the address space cut into pieces labelled with their CU,
 *               from .debug_aranges and, for CUs it misses, the CU DIE's
 *               ranges (the lowest CU offset wins on overlap, like LLVM's
 *               DWARFDebugAranges).
 *
 * After this, lines.c answers an address with binary searches only.
 * File names are composed the way llvm-symbolizer prints them: an entry's
 * directory joined with its name, and the CU's DW_AT_comp_dir in front of a
 * path that is still relative.
 */
#include <fcntl.h>
#include <pthread.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <zstd.h>

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136 /* GCC: discriminator of an inlined call */
#endif

#include "binary/binary_impl.h"

static uint32_t intern(struct spgo_binary *bin, const char *s)
{
	return spgo_strtab_intern(&bin->strs, s, strlen(s));
}

/* ---- finding the DWARF ---------------------------------------------------- */

static int has_debug_info(Elf *elf)
{
	return spgo_elf_section(elf, ".debug_info", NULL) != NULL;
}

static int open_debug_file(struct spgo_binary *bin, const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return spgo_error("%s: debug file is not an ELF file", path);
	}
	bin->dbg_fd = fd;
	bin->dbg_elf = elf;
	return 0;
}

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

/*
 * libdw inflates zlib-compressed debug sections itself, but the elfutils of
 * Debian 12 (0.188) does not know zstd (clang -gz=zstd, lld
 * --compress-debug-sections=zstd).  Inflate those in memory first, so libdw
 * sees plain sections: the buffers live until the binary is closed.
 */
static int inflate_zstd_sections(struct spgo_binary *bin, Elf *elf, const char *path)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		GElf_Chdr ch;
		if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZSTD)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t hdr = gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
		if (!d || d->d_size < hdr)
			return spgo_error("%s: offset 0x%llx: corrupt compressed section", path,
					  (unsigned long long)sh.sh_offset);
		void *out = xmalloc(ch.ch_size ? ch.ch_size : 1);
		size_t got = ZSTD_decompress(out, ch.ch_size, (const char *)d->d_buf + hdr, d->d_size - hdr);
		if (ZSTD_isError(got) || got != ch.ch_size) {
			free(out);
			return spgo_error("%s: offset 0x%llx: cannot inflate zstd-compressed section", path,
					  (unsigned long long)sh.sh_offset);
		}
		VEC_PUSH(&bin->inflated, out);
		d->d_buf = out;
		d->d_size = ch.ch_size;
		d->d_type = ELF_T_BYTE;
		d->d_align = ch.ch_addralign ? ch.ch_addralign : 1;
		sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
		sh.sh_size = ch.ch_size;
		gelf_update_shdr(scn, &sh);
	}
	return 0;
}

/* Choose where the DWARF comes from and open it with libdw. */
static int open_dwarf(struct spgo_binary *bin)
{
	Elf *elf = NULL;
	if (bin->debug_path) {
		if (open_debug_file(bin, bin->debug_path) < 0) {
			if (bin->dbg_fd < 0 && !bin->dbg_elf && strstr(spgo_errmsg(), bin->debug_path) == NULL)
				return spgo_error("%s: cannot open the debug file", bin->debug_path);
			return -1;
		}
		if (!has_debug_info(bin->dbg_elf))
			return spgo_error("%s: no DWARF debug info (no .debug_info section)", bin->debug_path);
		elf = bin->dbg_elf;
		bin->dwarf_path = xstrdup(bin->debug_path);
	} else if (has_debug_info(bin->elf)) {
		elf = bin->elf;
		bin->dwarf_path = xstrdup(bin->path);
	} else if (bin->build_id_len >= 2) {
		/* /usr/lib/debug/.build-id/ab/cdef....debug, root overridable. */
		const char *root = getenv("SPGO_DEBUG_ROOT");
		char hex[2 * sizeof bin->build_id + 1];
		spgo_build_id_hex(bin->build_id, bin->build_id_len, hex);
		char *p = xasprintf("%s/.build-id/%.2s/%s.debug", root ? root : "/usr/lib/debug", hex, hex + 2);
		if (open_debug_file(bin, p) == 0 && has_debug_info(bin->dbg_elf)) {
			elf = bin->dbg_elf;
			bin->dwarf_path = p;
		} else {
			free(p);
		}
	}
	if (!elf)
		return spgo_error("%s: no debug info (no .debug_info section, and no separate "
				  "debug file given or found by build-id)", bin->path);
	if (inflate_zstd_sections(bin, elf, bin->dwarf_path) < 0)
		return -1;
	bin->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!bin->dwarf)
		return spgo_error("%s: cannot read DWARF: %s", bin->dwarf_path, dwarf_errmsg(-1));
	return 0;
}

/* ---- per-CU file table ------------------------------------------------------ */

/* Join a and b with one '/', like LLVM's sys::path::append. */
static char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	while (la > 1 && a[la - 1] == '/' && *b == '/')
		b++;
	if (la && a[la - 1] == '/') {
		while (*b == '/')
			b++;
		return xasprintf("%s%s", a, b);
	}
	return xasprintf("%s/%s", a, b);
}

static void read_files(struct spgo_binary *bin, Dwarf_Die *cudie, int version, struct spgo_cu_files *cf)
{
	Dwarf_Files *files;
	size_t nfiles;
	cf->ids = NULL;
	cf->n = 0;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		return;
	Dwarf_Attribute a;
	const char *comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	cf->ids = xmalloc((nfiles ? nfiles : 1) * sizeof *cf->ids);
	cf->n = nfiles;
	for (size_t i = 0; i < nfiles; i++) {
		cf->ids[i] = SPGO_NO_FILE;
		/* Before DWARF 5, file 0 does not exist (libdw puts "???" there). */
		if (version < 5 && i == 0)
			continue;
		const char *name = dwarf_filesrc(files, i, NULL, NULL);
		if (!name)
			continue;
		if (name[0] != '/' && comp_dir && comp_dir[0]) {
			char *full = path_join(comp_dir, name);
			cf->ids[i] = spgo_strtab_intern(&bin->file_strs, full, strlen(full));
			free(full);
		} else {
			cf->ids[i] = spgo_strtab_intern(&bin->file_strs, name, strlen(name));
		}
	}
}

static uint32_t file_id(const struct spgo_cu_files *cf, uint64_t idx)
{
	return idx < cf->n ? cf->ids[idx] : SPGO_NO_FILE;
}

static void read_rows(struct spgo_binary *bin, Dwarf_Die *cudie, const struct spgo_cu_files *cf)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return;
	size_t first = bin->rows.n;
	VEC_GROW(&bin->rows, bin->rows.n + n);
	int sorted = 1;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line = 0, col = 0;
		unsigned disc = 0;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &addr) != 0)
			continue;
		dwarf_lineno(l, &line);
		dwarf_linecol(l, &col);
		dwarf_linediscriminator(l, &disc);
		dwarf_lineendsequence(l, &end);
		struct spgo_line_row r = {addr, (uint32_t)line, SPGO_NO_FILE, (uint32_t)col, disc};
		if (!end) {
			Dwarf_Files *f;
			size_t idx;
			r.file = dwarf_line_file(l, &f, &idx) == 0 ? file_id(cf, idx) : SPGO_NO_FILE;
			/* A row whose file index is invalid is still a row (LLVM
			 * then reports no line at all), distinct from an end. */
			if (r.file == SPGO_NO_FILE)
				r.file = SPGO_BAD_FILE;
		}
		if (bin->rows.n > first && bin->rows.v[bin->rows.n - 1].addr > addr)
			sorted = 0;
		bin->rows.v[bin->rows.n++] = r;
	}
	if (!sorted)
		spgo_warn("%s: line table of a CU is not sorted by address", bin->dwarf_path);
	/* libdw merged the sequences in address order: take each run up to an
	 * end row as one. */
	size_t begin = first;
	for (size_t i = first; i < bin->rows.n; i++) {
		if (bin->rows.v[i].file != SPGO_NO_FILE)
			continue;
		if (i > begin && bin->rows.v[begin].addr < bin->rows.v[i].addr) {
			struct spgo_line_seq sq = {bin->rows.v[begin].addr, bin->rows.v[i].addr, begin, i + 1};
			VEC_PUSH(&bin->seqs, sq);
		}
		begin = i + 1;
	}
}

static int cmp_seq_hi(const void *a, const void *b)
{
	const struct spgo_line_seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->row_begin < y->row_begin ? -1 : x->row_begin > y->row_begin;
}

/* ---- scopes (subprogram and inlined-subroutine DIEs) ------------------------ */


static const char *die_string(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(die, at, &a));
}

/* Linkage name (else name) and decl line, through abstract origins and
 * specifications, as LLVM's DWARFDie::getName(LinkageName) finds them. */
/* The attributes of a subprogram or inlined subroutine DIE that we use,
 * gathered in one pass over its attributes. */
struct scope_attrs {
	int own_name;     /* has a name, linkage name or decl line of its own */
	int has_origin, has_ranges, has_low, has_high;
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
	case DW_AT_name:
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
	case DW_AT_decl_line: sa->own_name = 1; break;
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

/* Linkage name (else name) and decl line, through abstract origins and
 * specifications, as LLVM's DWARFDie::getName(LinkageName) finds them.
 * A DIE with no naming attribute of its own takes its origin's, which is
 * looked up once per origin. */
static void die_name(struct spgo_binary *bin, struct name_cache *nc, Dwarf_Die *die, struct scope_attrs *sa,
		     uint32_t *name, uint32_t *decl_line)
{
	Dwarf_Attribute a;
	uint64_t key = 0;
	if (!sa->own_name && sa->has_origin) {
		Dwarf_Die origin;
		if (dwarf_formref_die(&sa->origin, &origin)) {
			key = dwarf_dieoffset(&origin) + 1;
			uint64_t *v = spgo_kmap_find(&nc->map, &key);
			if (v) {
				*name = (uint32_t)(*v & 0xffffffffu) - 1;
				*decl_line = (uint32_t)(*v >> 32);
				return;
			}
		}
	}
	const char *s = die_string(die, DW_AT_MIPS_linkage_name);
	if (!s)
		s = die_string(die, DW_AT_linkage_name);
	if (!s)
		s = die_string(die, DW_AT_name);
	*name = s ? intern(bin, s) : SPGO_NO_FILE;
	Dwarf_Word w = 0;
	*decl_line = dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_line, &a), &w) == 0 ? (uint32_t)w : 0;
	if (key)
		*spgo_kmap_upsert(&nc->map, &key) = ((uint64_t)*decl_line << 32) | (uint64_t)(*name + 1u);
}

void spgo_die_name_at(struct spgo_binary *bin, uint64_t off, uint32_t *name, uint32_t *decl_line)
{
	Dwarf_Die die;
	struct scope_attrs sa;
	memset(&sa, 0, sizeof sa);
	sa.own_name = 1; /* no caching */
	*name = SPGO_NO_FILE;
	*decl_line = 0;
	if (dwarf_offdie(bin->dwarf, off, &die))
		die_name(bin, NULL, &die, &sa, name, decl_line);
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
int spgo_leaf_tag(int tag)
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

#define MAX_DEPTH 512

static int walk_dies(struct spgo_binary *bin, struct name_cache *nc, Dwarf_Die *cudie, raw_range_vec *rr)
{
	Dwarf_Die *stack = xmalloc(MAX_DEPTH * sizeof *stack);
	int32_t *outer = xmalloc(MAX_DEPTH * sizeof *outer);
	uint32_t order = 0;
	int d = 0;
	if (dwarf_child(cudie, &stack[0]) != 0)
		goto done;
	outer[0] = -1;
	for (;;) {
		Dwarf_Die *die = &stack[d];
		int tag = dwarf_tag(die);
		int32_t scope = outer[d];
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			struct spgo_scope s = {0};
			struct scope_attrs sa;
			memset(&sa, 0, sizeof sa);
			sa.call_file = UINT32_MAX;
			dwarf_getattrs(die, scope_attr, &sa, 0);
			s.parent = outer[d];
			s.inlined = tag == DW_TAG_inlined_subroutine;
			die_name(bin, nc, die, &sa, &s.name, &s.decl_line);
			s.call_file = UINT32_MAX;
			if (s.inlined) {
				s.call_file = sa.call_file;
				s.call_line = sa.call_line;
				s.call_column = sa.call_column;
				s.call_discriminator = sa.call_discriminator;
			}
			scope = (int32_t)bin->scopes.n;
			VEC_PUSH(&bin->scopes, s);
			uint32_t me = order++;
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			int one = low_high(&sa, &lo, &hi);
			/* A low/high pair, else DW_AT_ranges through libdw. */
			while (one || (!(sa.has_low && sa.has_high) && sa.has_ranges &&
				       (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)) {
				one = 0;
				if (lo >= hi)
					continue;
				struct raw_range r = {lo, hi, (uint32_t)scope, me};
				VEC_PUSH(rr, r);
				if (!s.inlined) {
					struct spgo_scope_range sr = {lo, hi, (uint32_t)scope};
					VEC_PUSH(&bin->subprograms, sr);
				}
			}
		}
		Dwarf_Die child;
		if (!spgo_leaf_tag(tag) && d + 1 < MAX_DEPTH && dwarf_haschildren(die) > 0 && dwarf_child(die, &child) == 0) {
			stack[++d] = child;
			outer[d] = scope;
			continue;
		}
		/* Next sibling, climbing up as levels run out. */
		for (;;) {
			Dwarf_Die sib;
			int r = dwarf_siblingof(&stack[d], &sib);
			if (r == 0) {
				stack[d] = sib;
				break;
			}
			if (d == 0)
				goto done;
			d--;
		}
	}
done:
	free(stack);
	free(outer);
	return 0;
}

/* ---- CU ranges ----------------------------------------------------------------- */

struct endpoint {
	uint64_t addr;
	uint32_t cu;
	uint8_t start;
};

typedef VEC(struct endpoint) endpoint_vec;

static int cmp_endpoint(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static uint64_t rd(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Parse .debug_aranges (little-endian): ranges of the CUs it names. */
static void read_aranges(struct spgo_binary *bin, Elf *elf, struct spgo_kmap *cu_by_off, uint8_t *covered,
			 endpoint_vec *ep)
{
	Elf_Data *data;
	if (!spgo_elf_section(elf, ".debug_aranges", &data) || !data->d_buf)
		return;
	const uint8_t *p = data->d_buf, *end = p + data->d_size;
	while (end - p >= 4) {
		const uint8_t *set = p;
		uint64_t len = rd(p, 4);
		int off_size = 4;
		p += 4;
		if (len == 0xffffffffu) {
			if (end - p < 8)
				break;
			len = rd(p, 8);
			p += 8;
			off_size = 8;
		}
		if (len > (uint64_t)(end - p))
			break;
		const uint8_t *set_end = p + len;
		if (len < 2u + (unsigned)off_size + 2u) {
			p = set_end;
			continue;
		}
		uint64_t cu_off = rd(p + 2, off_size);
		unsigned asz = p[2 + off_size], ssz = p[3 + off_size];
		const uint8_t *q = p + 4 + off_size;
		p = set_end;
		uint64_t *cu = spgo_kmap_find(cu_by_off, &cu_off);
		if (!cu || (asz != 4 && asz != 8))
			continue;
		covered[*cu] = 1;
		size_t tuple = 2 * asz + ssz;
		size_t hdr = (size_t)(q - set);
		q = set + (hdr + tuple - 1) / tuple * tuple;
		for (; q + tuple <= set_end; q += tuple) {
			uint64_t a = rd(q + ssz, (int)asz), l = rd(q + ssz + asz, (int)asz);
			if (a == 0 && l == 0 && ssz == 0)
				break;
			if (l == 0)
				continue;
			struct endpoint s = {a, (uint32_t)*cu, 1}, e = {a + l, (uint32_t)*cu, 0};
			VEC_PUSH(ep, s);
			VEC_PUSH(ep, e);
		}
	}
}

/*
 * Turn CU range endpoints into disjoint pieces.  Where CUs overlap, the
 * piece goes to the lowest CU index still open (LLVM keeps a multiset of
 * CU offsets and takes the smallest), extending the previous piece when
 * its CU is still open.
 */
static void build_cu_ranges(struct spgo_binary *bin, struct endpoint *ep, size_t n)
{
	if (n > 1)
		qsort(ep, n, sizeof *ep, cmp_endpoint);
	size_t ncu = bin->cus.n;
	uint32_t *open = xcalloc(ncu ? ncu : 1, sizeof *open);
	size_t nopen = 0;
	uint64_t prev = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		if (prev < ep[i].addr && nopen) {
			struct spgo_cu_range *last = bin->cu_ranges.n ? &bin->cu_ranges.v[bin->cu_ranges.n - 1] : NULL;
			if (last && last->hi == prev && open[last->cu]) {
				last->hi = ep[i].addr;
			} else {
				uint32_t lowest = 0;
				while (!open[lowest])
					lowest++;
				struct spgo_cu_range r = {prev, ep[i].addr, lowest};
				VEC_PUSH(&bin->cu_ranges, r);
			}
		}
		if (ep[i].start) {
			open[ep[i].cu]++;
			nopen++;
		} else if (open[ep[i].cu]) {
			open[ep[i].cu]--;
			nopen--;
		}
		prev = ep[i].addr;
	}
	free(open);
}

/* ---- the whole load ------------------------------------------------------------ */

/* What the line-table thread needs to know of each CU. */
struct cu_lines {
	Dwarf_Off hdr_off, die_off;
	int version;
	int has_lines;
	uint64_t stmt_list;
	const char *comp_dir;
	int failed; /* our reader gave up: libdw reads it after the join */
};

struct line_job {
	struct spgo_binary *bin;
	struct spgo_line_sections sec;
	struct cu_lines *cl;
};

/* The line tables of all CUs: runs beside the DIE walk, touching only
 * rows, seqs, file_strs and the CUs' file tables. */
static void *read_all_lines(void *arg)
{
	struct line_job *job = arg;
	struct spgo_binary *bin = job->bin;
	for (size_t i = 0; i < bin->cus.n; i++) {
		struct spgo_cu *cu = &bin->cus.v[i];
		struct cu_lines *cl = &job->cl[i];
		cu->seq_begin = cu->seq_end = bin->seqs.n;
		if (!cl->has_lines)
			continue;
		struct spgo_cu_files cf = {0};
		if (spgo_read_line_program(bin, &job->sec, cl->stmt_list, cl->comp_dir, &cf) < 0) {
			cl->failed = 1;
			continue;
		}
		cu->seq_end = bin->seqs.n;
		cu->files = cf.ids;
		cu->nfiles = cf.n;
	}
	return NULL;
}

static int load(struct spgo_binary *bin)
{
	if (open_dwarf(bin) < 0)
		return -1;
	Elf *elf = bin->dbg_elf ? bin->dbg_elf : bin->elf;
	struct name_cache nc;
	spgo_kmap_init(&nc.map, 1);
	struct spgo_kmap cu_by_off;
	spgo_kmap_init(&cu_by_off, 1);
	VEC(struct cu_lines) cls = {0};
	raw_range_vec rr = {0};

	struct line_job job;
	memset(&job, 0, sizeof job);
	job.bin = bin;
	Elf_Data *d;
	if (spgo_elf_section(elf, ".debug_line", &d) && d->d_buf)
		job.sec.line = (struct spgo_debug_str){d->d_buf, d->d_size};
	if (spgo_elf_section(elf, ".debug_line_str", &d) && d->d_buf)
		job.sec.line_str = (struct spgo_debug_str){d->d_buf, d->d_size};
	if (spgo_elf_section(elf, ".debug_str", &d) && d->d_buf)
		job.sec.str = (struct spgo_debug_str){d->d_buf, d->d_size};

	/* The CUs, and where their line tables are. */
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Half version;
	int units = 0;
	while (dwarf_next_unit(bin->dwarf, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		Dwarf_Off this_off = off;
		off = next;
		units++;
		if (!dwarf_offdie(bin->dwarf, this_off + hsize, &cudie) || dwarf_tag(&cudie) != DW_TAG_compile_unit)
			continue;
		struct cu_lines cl = {this_off, this_off + hsize, version, 0, 0, NULL, 0};
		Dwarf_Attribute a;
		Dwarf_Word stmt_list;
		cl.comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
		if (dwarf_attr(&cudie, DW_AT_stmt_list, &a) && dwarf_formudata(&a, &stmt_list) == 0) {
			cl.has_lines = 1;
			cl.stmt_list = stmt_list;
		}
		uint64_t key = this_off;
		*spgo_kmap_upsert(&cu_by_off, &key) = bin->cus.n;
		struct spgo_cu cu = {0};
		VEC_PUSH(&bin->cus, cu);
		VEC_PUSH(&cls, cl);
	}
	if (units == 0 && dwarf_errno() != 0)
		spgo_warn("%s: %s", bin->dwarf_path, dwarf_errmsg(-1));

	/* Line tables in a second thread, inline scopes in this one. */
	job.cl = cls.v;
	pthread_t lines_thread;
	const char *nthreads = getenv("SPGO_THREADS"); /* "1": no helper threads */
	int threaded = bin->cus.n > 0 && !(nthreads && !strcmp(nthreads, "1")) &&
		       pthread_create(&lines_thread, NULL, read_all_lines, &job) == 0;
	if (!threaded)
		read_all_lines(&job);
	struct spgo_info_sections isec;
	memset(&isec, 0, sizeof isec);
	static const char *const isec_names[] = {".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
						 ".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists"};
	struct spgo_debug_str *isec_v[] = {&isec.info, &isec.abbrev, &isec.str, &isec.line_str,
					   &isec.str_offsets, &isec.addr, &isec.ranges, &isec.rnglists};
	for (size_t k = 0; k < SPGO_ARRAY_LEN(isec_names); k++)
		if (spgo_elf_section(elf, isec_names[k], &d) && d->d_buf)
			*isec_v[k] = (struct spgo_debug_str){d->d_buf, d->d_size};
	const char *slow = getenv("SPGO_LIBDW_WALK"); /* "1": always libdw (for tests) */
	for (size_t i = 0; i < bin->cus.n; i++) {
		Dwarf_Die cudie;
		size_t begin = bin->ranges.n, nscopes = bin->scopes.n, nsub = bin->subprograms.n;
		uint32_t order = 0;
		rr.n = 0;
		/* Our reader first; if it gives up, forget its work and ask libdw. */
		if (!(slow && !strcmp(slow, "1")) &&
		    spgo_walk_cu_dies(bin, &isec, cls.v[i].hdr_off, &nc, &rr, &order) == 0) {
			flatten(bin, rr.v, rr.n);
		} else if (dwarf_offdie(bin->dwarf, cls.v[i].die_off, &cudie)) {
			spgo_info("%s: DIEs of the CU at 0x%llx read by libdw", bin->dwarf_path,
				  (unsigned long long)cls.v[i].hdr_off);
			bin->scopes.n = nscopes;
			bin->subprograms.n = nsub;
			rr.n = 0;
			walk_dies(bin, &nc, &cudie, &rr);
			flatten(bin, rr.v, rr.n);
		}
		/* bin->cus.v is not reallocated while the thread runs. */
		bin->cus.v[i].range_begin = begin;
		bin->cus.v[i].range_end = bin->ranges.n;
	}
	if (threaded)
		pthread_join(lines_thread, NULL);

	/* What our reader could not read, libdw reads; then sort sequences. */
	for (size_t i = 0; i < bin->cus.n; i++) {
		struct spgo_cu *cu = &bin->cus.v[i];
		Dwarf_Die cudie;
		if (cls.v[i].failed && dwarf_offdie(bin->dwarf, cls.v[i].die_off, &cudie)) {
			spgo_info("%s: line table at 0x%llx read by libdw", bin->dwarf_path,
				  (unsigned long long)cls.v[i].stmt_list);
			struct spgo_cu_files cf = {0};
			read_files(bin, &cudie, cls.v[i].version, &cf);
			cu->seq_begin = bin->seqs.n;
			read_rows(bin, &cudie, &cf);
			cu->seq_end = bin->seqs.n;
			cu->files = cf.ids;
			cu->nfiles = cf.n;
		}
		if (cu->seq_end - cu->seq_begin > 1)
			qsort(bin->seqs.v + cu->seq_begin, cu->seq_end - cu->seq_begin, sizeof *bin->seqs.v, cmp_seq_hi);
	}

	/* CU ranges: .debug_aranges first, then the CU DIEs it did not name. */
	endpoint_vec ep = {0};
	uint8_t *covered = xcalloc(bin->cus.n ? bin->cus.n : 1, 1);
	read_aranges(bin, elf, &cu_by_off, covered, &ep);
	for (size_t i = 0; i < bin->cus.n; i++) {
		if (covered[i])
			continue;
		Dwarf_Die cudie;
		if (!dwarf_offdie(bin->dwarf, cls.v[i].die_off, &cudie))
			continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;
		while ((o = dwarf_ranges(&cudie, o, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			struct endpoint s = {lo, (uint32_t)i, 1}, e = {hi, (uint32_t)i, 0};
			VEC_PUSH(&ep, s);
			VEC_PUSH(&ep, e);
		}
	}
	build_cu_ranges(bin, ep.v, ep.n);

	VEC_FREE(&ep);
	free(covered);
	VEC_FREE(&rr);
	VEC_FREE(&cls);
	spgo_kmap_free(&cu_by_off);
	spgo_kmap_free(&nc.map);
	if (bin->cus.n == 0)
		return spgo_error("%s: no compile units in the DWARF", bin->dwarf_path);
	spgo_info("%s: %zu CUs, %zu line rows, %zu scopes, %zu scope ranges", bin->dwarf_path, bin->cus.n,
		  bin->rows.n, bin->scopes.n, bin->ranges.n);
	return 0;
}

int spgo_binary_load_debug(struct spgo_binary *bin)
{
	if (bin->debug_state == 1)
		return 0;
	if (bin->debug_state == -1)
		return spgo_error("%s", bin->debug_err);
	if (load(bin) < 0) {
		bin->debug_state = -1;
		bin->debug_err = xstrdup(spgo_errmsg());
		return -1;
	}
	bin->debug_state = 1;
	return 0;
}

void spgo_binary_free_debug(struct spgo_binary *bin)
{
	if (bin->dwarf)
		dwarf_end(bin->dwarf);
	if (bin->dbg_elf)
		elf_end(bin->dbg_elf);
	if (bin->dbg_fd >= 0)
		close(bin->dbg_fd);
	bin->dwarf = NULL;
	bin->dbg_elf = NULL;
	bin->dbg_fd = -1;
	free(bin->debug_err);
	free(bin->dwarf_path);
	bin->debug_err = bin->dwarf_path = NULL;
	VEC_FREE(&bin->rows);
	VEC_FREE(&bin->seqs);
	VEC_FREE(&bin->scopes);
	VEC_FREE(&bin->ranges);
	for (size_t i = 0; i < bin->cus.n; i++)
		free(bin->cus.v[i].files);
	VEC_FREE(&bin->cus);
	VEC_FREE(&bin->cu_ranges);
	VEC_FREE(&bin->subprograms);
	for (size_t i = 0; i < bin->inflated.n; i++)
		free(bin->inflated.v[i]);
	VEC_FREE(&bin->inflated);
	bin->debug_state = 0;
}
