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
 * libdw reads all of the DWARF (lines with dwarf_getsrclines, DIEs with
 * dwarf_child/dwarf_siblingof/dwarf_getattrs, ranges with dwarf_ranges,
 * .debug_aranges with dwarf_getaranges); spgo only copies what it needs
 * into its own tables, in two passes over the CUs: the line tables, and the
 * DIEs (on a helper thread with its own libdw handle, at the same time).
 * After this, lines.c answers an address with binary searches only.
 */
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
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

/* ---- line tables ------------------------------------------------------------ */

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

/* Does path p lie in directory dir (p is "dir/...")? */
static int in_dir(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	if (!n || strncmp(p, dir, n) != 0)
		return 0;
	return dir[n - 1] == '/' || p[n] == '/';
}

/*
 * The CU's file table: DWARF file index -> file_strs id of the path as
 * LLVM's Prologue::getFileNameByIndex composes it, or SPGO_NO_FILE.
 * libdw gives the entry's directory joined with its name; LLVM puts the
 * CU's DW_AT_comp_dir in front of a path that is still relative, except
 * (DWARF 5) for an entry of directory 0, which is the compilation
 * directory already.  libdw does not say an entry's directory index: an
 * entry whose path starts with directory 0 is taken to be in it.
 */
static void read_files(struct spgo_binary *bin, Dwarf_Die *cudie, int version, struct spgo_cu *cu)
{
	Dwarf_Files *files;
	size_t nfiles, ndirs = 0;
	const char *const *dirs = NULL;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		return;
	if (version >= 5 && (dwarf_getsrcdirs(files, &dirs, &ndirs) != 0 || !ndirs || !dirs[0]))
		ndirs = 0;
	Dwarf_Attribute a;
	const char *comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	cu->files = xmalloc((nfiles ? nfiles : 1) * sizeof *cu->files);
	cu->nfiles = nfiles;
	for (size_t i = 0; i < nfiles; i++) {
		cu->files[i] = SPGO_NO_FILE;
		/* Before DWARF 5, file 0 does not exist (libdw puts "???" there). */
		if (version < 5 && i == 0)
			continue;
		const char *name = dwarf_filesrc(files, i, NULL, NULL);
		if (!name)
			continue;
		if (name[0] != '/' && comp_dir && comp_dir[0] && !(ndirs && in_dir(name, dirs[0]))) {
			char *full = path_join(comp_dir, name);
			cu->files[i] = spgo_strtab_intern(&bin->file_strs, full, strlen(full));
			free(full);
		} else {
			cu->files[i] = spgo_strtab_intern(&bin->file_strs, name, strlen(name));
		}
	}
}

/*
 * The CU's line rows, appended to bin->rows, and its sequences to
 * bin->seqs.  libdw hands the rows of all sequences merged in address
 * order, an end-of-sequence row first among rows at one address: each run
 * up to an end row is taken as one sequence, kept if it covers addresses.
 */
static void read_rows(struct spgo_binary *bin, Dwarf_Die *cudie, struct spgo_cu *cu)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return;
	size_t first = bin->rows.n;
	VEC_GROW(&bin->rows, bin->rows.n + n);
	struct spgo_line_row *rows = bin->rows.v;
	size_t k = first, begin = first;
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
			/* A row whose file index is invalid is still a row (LLVM
			 * then reports no line at all), distinct from an end. */
			r.file = SPGO_BAD_FILE;
			if (dwarf_line_file(l, &f, &idx) == 0 && idx < cu->nfiles && cu->files[idx] != SPGO_NO_FILE)
				r.file = cu->files[idx];
		}
		rows[k++] = r;
		if (!end)
			continue;
		if (k - 1 > begin && rows[begin].addr < addr) {
			struct spgo_line_seq sq = {rows[begin].addr, addr, begin, k};
			VEC_PUSH(&bin->seqs, sq);
		} else {
			k = begin; /* an empty sequence: forget its rows */
		}
		begin = k;
	}
	bin->rows.n = begin; /* rows after the last end belong to no sequence */
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

static void add_endpoints(endpoint_vec *ep, uint64_t lo, uint64_t hi, uint32_t cu)
{
	if (lo >= hi)
		return;
	struct endpoint s = {lo, cu, 1}, e = {hi, cu, 0};
	VEC_PUSH(ep, s);
	VEC_PUSH(ep, e);
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

/*
 * The CUs' address ranges as LLVM's DWARFDebugAranges takes them:
 * .debug_aranges (libdw's dwarf_getaranges), then the CU DIE's ranges of
 * each CU it did not name.  cu_by_die maps a CU DIE offset to its index.
 */
static void read_cu_ranges(struct spgo_binary *bin, Dwarf_Die *cudies, struct spgo_kmap *cu_by_die)
{
	endpoint_vec ep = {0};
	uint8_t *covered = xcalloc(bin->cus.n ? bin->cus.n : 1, 1);
	Dwarf_Aranges *ar;
	size_t nar;
	if (dwarf_getaranges(bin->dwarf, &ar, &nar) == 0) {
		for (size_t i = 0; i < nar; i++) {
			Dwarf_Addr addr;
			Dwarf_Word len;
			Dwarf_Off die_off;
			if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &addr, &len, &die_off) != 0)
				continue;
			uint64_t key = die_off;
			uint64_t *cu = spgo_kmap_find(cu_by_die, &key);
			if (!cu)
				continue;
			covered[*cu] = 1;
			add_endpoints(&ep, addr, addr + len, (uint32_t)*cu);
		}
	}
	for (size_t i = 0; i < bin->cus.n; i++) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;
		while (!covered[i] && (o = dwarf_ranges(&cudies[i], o, &base, &lo, &hi)) > 0)
			add_endpoints(&ep, lo, hi, (uint32_t)i);
	}
	build_cu_ranges(bin, ep.v, ep.n);
	VEC_FREE(&ep);
	free(covered);
}

/* ---- the whole load ------------------------------------------------------------ */

/*
 * The next compile unit at or after *off (skipping type and partial units):
 * 1 and its DIE, DWARF version and DIE offset, or 0 at the end.  *units
 * counts every unit header read.
 */
static int next_cu(Dwarf *dw, Dwarf_Off *off, int *units, Dwarf_Die *cudie, Dwarf_Half *version, Dwarf_Off *die_off)
{
	Dwarf_Off next;
	size_t hsize;
	while (dwarf_next_unit(dw, *off, &next, &hsize, version, NULL, NULL, NULL, NULL, NULL) == 0) {
		*die_off = *off + hsize;
		*off = next;
		++*units;
		if (dwarf_offdie(dw, *die_off, cudie) && dwarf_tag(cudie) == DW_TAG_compile_unit)
			return 1;
	}
	return 0;
}

/*
 * The scopes of every compile unit, walked on `dwarf`: either bin->dwarf,
 * after the line tables, or a second handle on the same file from a helper
 * thread while this one reads the line tables (libdw 0.188 is not safe for
 * two threads on one handle).  The pass only touches what is its own:
 * bin->strs, bin->scopes, bin->ranges, bin->subprograms and `bounds`, the
 * slice of bin->ranges of each compile unit in order (begin, end pairs).
 */
struct scope_pass {
	struct spgo_binary *bin;
	Dwarf *dwarf;
	VEC(size_t) bounds;
};

static void *scope_pass_run(void *arg)
{
	struct scope_pass *sp = arg;
	struct spgo_binary *bin = sp->bin;
	struct spgo_kmap names;
	spgo_kmap_init(&names, 1);
	raw_range_vec rr = {0};
	Dwarf_Off off = 0, die_off;
	Dwarf_Die cudie;
	Dwarf_Half version;
	int units = 0;
	while (next_cu(sp->dwarf, &off, &units, &cudie, &version, &die_off)) {
		VEC_PUSH(&sp->bounds, bin->ranges.n);
		read_scopes(bin, &names, &cudie, &rr);
		VEC_PUSH(&sp->bounds, bin->ranges.n);
	}
	VEC_FREE(&rr);
	spgo_kmap_free(&names);
	return NULL;
}

/*
 * Start the scope pass on a helper thread with its own Elf and Dwarf handle
 * on the DWARF's file; 0 if it runs, -1 if it cannot (SPGO_THREADS=1, zstd
 * sections inflated in memory on the first handle only, no thread).
 */
static int scope_pass_start(struct scope_pass *sp, Elf **elf, pthread_t *thread)
{
	struct spgo_binary *bin = sp->bin;
	const char *nthreads = getenv("SPGO_THREADS");
	if ((nthreads && !strcmp(nthreads, "1")) || bin->inflated.n)
		return -1;
	*elf = elf_begin(bin->dbg_elf ? bin->dbg_fd : bin->fd, ELF_C_READ_MMAP, NULL);
	if (*elf && (sp->dwarf = dwarf_begin_elf(*elf, DWARF_C_READ, NULL)) != NULL &&
	    pthread_create(thread, NULL, scope_pass_run, sp) == 0)
		return 0;
	if (sp->dwarf)
		dwarf_end(sp->dwarf);
	if (*elf)
		elf_end(*elf);
	sp->dwarf = NULL;
	*elf = NULL;
	return -1;
}

static int load(struct spgo_binary *bin)
{
	if (open_dwarf(bin) < 0)
		return -1;
	struct scope_pass sp = {bin, NULL, {0}};
	Elf *sp_elf = NULL;
	pthread_t sp_thread;
	int threaded = scope_pass_start(&sp, &sp_elf, &sp_thread) == 0;

	/* Each compile unit's line table. */
	VEC(Dwarf_Die) cudies = {0};
	struct spgo_kmap cu_by_die;
	spgo_kmap_init(&cu_by_die, 1);
	Dwarf_Off off = 0, die_off;
	Dwarf_Die cudie;
	Dwarf_Half version;
	int units = 0;
	while (next_cu(bin->dwarf, &off, &units, &cudie, &version, &die_off)) {
		uint64_t key = die_off;
		*spgo_kmap_upsert(&cu_by_die, &key) = bin->cus.n;
		VEC_PUSH(&cudies, cudie);
		struct spgo_cu cu = {0};
		read_files(bin, &cudie, version, &cu);
		cu.seq_begin = bin->seqs.n;
		read_rows(bin, &cudie, &cu);
		cu.seq_end = bin->seqs.n;
		if (cu.seq_end - cu.seq_begin > 1)
			qsort(bin->seqs.v + cu.seq_begin, cu.seq_end - cu.seq_begin, sizeof *bin->seqs.v, cmp_seq_hi);
		VEC_PUSH(&bin->cus, cu);
	}
	if (units == 0 && dwarf_errno() != 0)
		spgo_warn("%s: %s", bin->dwarf_path, dwarf_errmsg(-1));
	read_cu_ranges(bin, cudies.v, &cu_by_die);
	VEC_FREE(&cudies);
	spgo_kmap_free(&cu_by_die);

	/* Each compile unit's scopes. */
	if (threaded) {
		pthread_join(sp_thread, NULL);
		dwarf_end(sp.dwarf);
		elf_end(sp_elf);
	} else {
		sp.dwarf = bin->dwarf;
		scope_pass_run(&sp);
	}
	int same = sp.bounds.n == 2 * bin->cus.n;
	for (size_t i = 0; same && i < bin->cus.n; i++) {
		bin->cus.v[i].range_begin = sp.bounds.v[2 * i];
		bin->cus.v[i].range_end = sp.bounds.v[2 * i + 1];
	}
	VEC_FREE(&sp.bounds);
	if (!same)
		return spgo_error("%s: the compile units changed between two reads of the DWARF", bin->dwarf_path);
	if (bin->cus.n == 0)
		return spgo_error("%s: no compile units in the DWARF", bin->dwarf_path);
	spgo_info("%s: %zu CUs, %zu line rows, %zu scopes, %zu scope ranges (%s)", bin->dwarf_path, bin->cus.n,
		  bin->rows.n, bin->scopes.n, bin->ranges.n,
		  threaded ? "scopes on a helper thread" : "one thread");
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
