/*
 * Build the address-sorted debug tables of a binary from its DWARF, once
 * (the scopes in scopes.c):
 *
 *   rows        every line table row of every CU, per sequence in the
 *               order of the line program;
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
 * The line tables are read by spgo's own reader (debug_line.c); libdw
 * reads the rest (DIEs with dwarf_child/dwarf_siblingof/dwarf_getattrs,
 * ranges with dwarf_ranges, .debug_aranges with dwarf_getaranges), and
 * spgo only copies what it needs into its own tables, in two passes over
 * the CUs: the line tables, and the DIEs, on two threads (see struct load).
 * After this, lines.c answers an address with binary searches only.
 */
#include <gelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <zstd.h>

#include "binary/binary_impl.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif
/* The most a compressed debug section may inflate to (binary.h). */
#define SPGO_MAX_INFLATE ((uint64_t)4 << 30)

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
		/* The size claimed must be what the zstd frame holds, and at
		 * most SPGO_MAX_INFLATE: checked before allocating it. */
		const char *z = (const char *)d->d_buf + hdr;
		unsigned long long frame = ZSTD_getFrameContentSize(z, d->d_size - hdr);
		if (frame == ZSTD_CONTENTSIZE_ERROR || (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != ch.ch_size) ||
		    ch.ch_size > SPGO_MAX_INFLATE)
			return spgo_error("%s: offset 0x%llx: compressed section claims %llu bytes, %s", path,
					  (unsigned long long)sh.sh_offset, (unsigned long long)ch.ch_size,
					  frame == ZSTD_CONTENTSIZE_ERROR ? "and holds no zstd frame"
					  : ch.ch_size > SPGO_MAX_INFLATE ? "over spgo's limit of 4 GiB"
									  : "not what its zstd frame holds");
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

/* Open the DWARF where it is (debug_file.c) with libdw. */
static int open_dwarf(struct spgo_binary *bin)
{
	if (spgo_binary_open_debug(bin) < 0)
		return -1;
	Elf *elf = bin->dbg_elf ? bin->dbg_elf : bin->elf;
	if (inflate_zstd_sections(bin, elf, bin->dwarf_path) < 0)
		return -1;
	bin->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!bin->dwarf)
		return spgo_error("%s: cannot read DWARF: %s", bin->dwarf_path, dwarf_errmsg(-1));
	return 0;
}

/* ---- line tables ------------------------------------------------------------ */

/* The contents of a debug section of elf, decompressed (also the GNU
 * .zdebug_ form), or NULL and *size = 0. */
static const uint8_t *debug_section(Elf *elf, const char *name, size_t *size)
{
	Elf_Data *d = NULL;
	*size = 0;
	if (!spgo_elf_section(elf, name, &d)) {
		char z[64];
		snprintf(z, sizeof z, ".z%s", name + 1);
		Elf_Scn *scn = spgo_elf_section(elf, z, NULL);
		if (!scn || elf_compress_gnu(scn, 0, 0) < 0 || !(d = elf_getdata(scn, NULL)))
			return NULL;
	}
	if (!d || !d->d_buf)
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}

/* Where a line pass puts file names, rows and sequences: the binary's own
 * tables, or the helper thread's until they are merged (see struct load). */
typedef struct spgo_line_output line_dest;

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
 * Two threads share the load.  The helper walks the DIEs of every compile
 * unit (the scopes) on a libdw handle of its own (libdw 0.188 is not safe
 * for two threads on one handle), then joins the main thread in reading
 * line tables: the two take compile units from one queue, largest first,
 * so the main thread starts on the largest at once.  Line tables are read
 * by spgo's own reader from the section bytes, which both threads only
 * read.  The main thread's tables go straight into the binary's, the
 * helper's into its own, merged after.  Each thread writes only its own
 * compile units' entries of bin->cus, and only the helper touches
 * bin->strs, bin->scopes, bin->ranges and bin->subprograms.  With one
 * thread the main thread does both passes in turn.
 */
struct unit {
	Dwarf_Off die_off;
	struct spgo_line_unit line; /* line.stmt_list is UINT64_MAX without one */
	uint8_t by_helper;          /* 1 if the helper read its line table */
	const char *producer;       /* DW_AT_producer (libdw's memory), or NULL */
	const char *name;           /* DW_AT_name (libdw's memory), or NULL */
};

struct load {
	struct spgo_binary *bin;
	struct unit *units; /* the compile units, in .debug_info order */
	Dwarf_Off *cu_offs; /* their DIEs' offsets */
	size_t n;
	size_t *queue;      /* unit indices, largest first, for the line pass */
	atomic_size_t next; /* the next queue entry to take */
	struct spgo_line_input in; /* the sections line tables refer to */
	/* The helper thread's: its handle, scope slices, and line tables. */
	Elf *elf;
	Dwarf *dwarf;
	size_t *bounds; /* per unit: begin, end in bin->ranges */
	struct spgo_strtab file_strs;
	spgo_row_vec rows;
	spgo_seq_vec seqs;
};

/* Line tables of compile units from the queue until it is empty. */
static void line_pass(struct load *ld, const line_dest *d, int helper)
{
	for (;;) {
		size_t q = atomic_fetch_add(&ld->next, 1);
		if (q >= ld->n)
			break;
		struct unit *u = &ld->units[ld->queue[q]];
		struct spgo_cu *cu = &ld->bin->cus.v[ld->queue[q]];
		u->by_helper = (uint8_t)helper;
		cu->seq_begin = cu->seq_end = d->seqs->n;
		if (u->line.stmt_list == UINT64_MAX) {
			cu->files = xmalloc(sizeof *cu->files);
			continue;
		}
		if (!ld->in.line) {
			cu->files = xmalloc(sizeof *cu->files);
			cu->line_error = 1;
			spgo_warn("%s: compile unit at 0x%llx has a line table but the file has no .debug_line",
				  ld->in.path, (unsigned long long)u->line.cu_off);
			continue;
		}
		spgo_read_line_table(&ld->in, &u->line, d, cu);
	}
}

static void *helper_run(void *arg)
{
	struct load *ld = arg;
	spgo_read_scopes(ld->bin, ld->dwarf, ld->cu_offs, ld->n, ld->bounds);
	line_dest d = {&ld->file_strs, &ld->rows, &ld->seqs};
	line_pass(ld, &d, 1);
	/* What it keeps is copied out of libdw: end the handle here, off
	 * the main thread's way. */
	dwarf_end(ld->dwarf);
	elf_end(ld->elf);
	return NULL;
}

/*
 * Start the helper thread with its own Elf and Dwarf handle on the DWARF's
 * file: 0 if it runs, -1 if not (SPGO_THREADS=1, zstd sections inflated in
 * memory on the first handle only, a relocatable object relocated on the
 * first handle only, no thread).
 */
static int helper_start(struct load *ld, pthread_t *thread)
{
	struct spgo_binary *bin = ld->bin;
	const char *nthreads = getenv("SPGO_THREADS");
	if ((nthreads && !strcmp(nthreads, "1")) || bin->inflated.n || ld->n == 0 ||
	    (bin->kind == SPGO_ELF_REL && !bin->dbg_elf)) /* (relocated in memory: reloc.c) */
		return -1;
	ld->elf = elf_begin(bin->dbg_elf ? bin->dbg_fd : bin->fd, ELF_C_READ_MMAP, NULL);
	if (ld->elf && (ld->dwarf = dwarf_begin_elf(ld->elf, DWARF_C_READ, NULL)) != NULL &&
	    pthread_create(thread, NULL, helper_run, ld) == 0)
		return 0;
	if (ld->dwarf)
		dwarf_end(ld->dwarf);
	if (ld->elf)
		elf_end(ld->elf);
	ld->dwarf = NULL;
	ld->elf = NULL;
	return -1;
}

/* Move the helper's line tables into the binary's: file names interned
 * again, row and sequence indices shifted. */
static void merge_helper_lines(struct load *ld)
{
	struct spgo_binary *bin = ld->bin;
	uint32_t *id = xmalloc((ld->file_strs.n ? ld->file_strs.n : 1) * sizeof *id);
	for (size_t i = 0; i < ld->file_strs.n; i++) {
		const char *f = spgo_strtab_get(&ld->file_strs, (uint32_t)i);
		id[i] = spgo_strtab_intern(&bin->file_strs, f, strlen(f));
	}
	size_t row0 = bin->rows.n, seq0 = bin->seqs.n;
	VEC_GROW(&bin->rows, row0 + ld->rows.n);
	for (size_t i = 0; i < ld->rows.n; i++) {
		struct spgo_line_row r = ld->rows.v[i];
		if (r.file < SPGO_BAD_FILE)
			r.file = id[r.file];
		bin->rows.v[bin->rows.n++] = r;
	}
	VEC_GROW(&bin->seqs, seq0 + ld->seqs.n);
	for (size_t i = 0; i < ld->seqs.n; i++) {
		struct spgo_line_seq sq = ld->seqs.v[i];
		sq.row_begin += row0;
		sq.row_end += row0;
		bin->seqs.v[bin->seqs.n++] = sq;
	}
	for (size_t u = 0; u < ld->n; u++) {
		struct spgo_cu *cu = &bin->cus.v[u];
		if (!ld->units[u].by_helper)
			continue;
		cu->seq_begin += seq0;
		cu->seq_end += seq0;
		for (size_t k = 0; k < cu->nfiles; k++)
			if (cu->files[k] < SPGO_BAD_FILE)
				cu->files[k] = id[cu->files[k]];
	}
	free(id);
}

static int cmp_unit_size(const void *a, const void *b, void *arg)
{
	const uint64_t *size = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (size[x] != size[y])
		return size[x] > size[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The compiler a DW_AT_producer names (spgo/binary.h). */
static enum spgo_producer producer_kind(const char *p)
{
	if (!p)
		return SPGO_PRODUCER_UNKNOWN;
	if (!strncmp(p, "GNU ", 4) && strncmp(p, "GNU AS", 6))
		return SPGO_PRODUCER_GCC; /* GNU C17, GNU C++17, GNU Fortran2008, ... */
	if (strstr(p, "clang") || strstr(p, "LLVM"))
		return SPGO_PRODUCER_LLVM; /* clang, and rustc's "clang LLVM (rustc ...)" */
	return SPGO_PRODUCER_UNKNOWN;
}

/* The compiler of most of the code: the bytes of code of each compile unit
 * (its address ranges) added up per producer kind. */
static void find_producer(struct spgo_binary *bin, const struct unit *units, size_t n)
{
	uint64_t bytes[3] = {0};
	for (size_t i = 0; i < bin->cu_ranges.n; i++) {
		const struct spgo_cu_range *r = &bin->cu_ranges.v[i];
		if (r->cu < bin->cus.n)
			bytes[bin->cus.v[r->cu].producer] += r->hi - r->lo;
	}
	int best = bytes[SPGO_PRODUCER_GCC] > bytes[SPGO_PRODUCER_LLVM] ? SPGO_PRODUCER_GCC
		   : bytes[SPGO_PRODUCER_LLVM] ? SPGO_PRODUCER_LLVM
					       : SPGO_PRODUCER_UNKNOWN;
	bin->producer = best;
	free(bin->producer_name);
	bin->producer_name = NULL;
	for (size_t i = 0; i < n && best && !bin->producer_name; i++)
		if (bin->cus.v[i].producer == best)
			bin->producer_name = xstrdup(units[i].producer);
}

enum spgo_producer spgo_binary_producer(struct spgo_binary *bin, const char **name)
{
	*name = "";
	if (spgo_binary_load_debug(bin) < 0)
		return SPGO_PRODUCER_UNKNOWN;
	if (bin->producer_name)
		*name = bin->producer_name;
	return (enum spgo_producer)bin->producer;
}

const char *spgo_binary_cu_name(struct spgo_binary *bin, uint64_t addr)
{
	if (spgo_binary_load_debug(bin) < 0)
		return NULL;
	size_t lo = 0, hi = bin->cu_ranges.n; /* the first piece starting after addr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (bin->cu_ranges.v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= bin->cu_ranges.v[lo - 1].hi)
		return NULL;
	return bin->cus.v[bin->cu_ranges.v[lo - 1].cu].name;
}

static int load(struct spgo_binary *bin)
{
	if (open_dwarf(bin) < 0)
		return -1;
	Elf *elf = bin->dbg_elf ? bin->dbg_elf : bin->elf;
	/* The compile units, their DIEs on the main handle and their sizes. */
	struct load ld = {.bin = bin};
	ld.in.path = bin->dwarf_path;
	ld.in.line = debug_section(elf, ".debug_line", &ld.in.line_size);
	ld.in.line_str = debug_section(elf, ".debug_line_str", &ld.in.line_str_size);
	ld.in.str = debug_section(elf, ".debug_str", &ld.in.str_size);
	VEC(struct unit) units = {0};
	VEC(Dwarf_Die) cudies = {0};
	VEC(uint64_t) sizes = {0};
	struct spgo_kmap cu_by_die;
	spgo_kmap_init(&cu_by_die, 1);
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Half version;
	int more;
	while ((more = dwarf_next_unit(bin->dwarf, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL)) == 0) {
		Dwarf_Die cudie;
		struct unit u = {.die_off = off + hsize};
		uint64_t size = next - off;
		u.line.cu_off = off;
		off = next;
		if (!dwarf_offdie(bin->dwarf, u.die_off, &cudie))
			continue;
		int tag = dwarf_tag(&cudie);
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_skeleton_unit)
			continue;
		Dwarf_Attribute a;
		Dwarf_Word stmt;
		u.line.stmt_list = UINT64_MAX;
		if (dwarf_attr(&cudie, DW_AT_stmt_list, &a) && dwarf_formudata(&a, &stmt) == 0)
			u.line.stmt_list = stmt;
		u.line.comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
		u.producer = dwarf_formstring(dwarf_attr(&cudie, DW_AT_producer, &a));
		u.name = dwarf_formstring(dwarf_attr(&cudie, DW_AT_name, &a));
		uint64_t key = u.die_off;
		*spgo_kmap_upsert(&cu_by_die, &key) = units.n;
		VEC_PUSH(&units, u);
		VEC_PUSH(&cudies, cudie);
		VEC_PUSH(&sizes, size);
	}
	if (more < 0) {
		/* Read the error once: dwarf_errno() also clears it. */
		int e = dwarf_errno();
		spgo_warn("%s: .debug_info at 0x%llx: %s; the compile units after it are not read", bin->dwarf_path,
			  (unsigned long long)off, e ? dwarf_errmsg(e) : "unreadable unit header");
	}
	ld.units = units.v;
	ld.n = units.n;
	ld.queue = xmalloc((ld.n ? ld.n : 1) * sizeof *ld.queue);
	ld.cu_offs = xmalloc((ld.n ? ld.n : 1) * sizeof *ld.cu_offs);
	ld.bounds = xcalloc(2 * ld.n + 1, sizeof *ld.bounds);
	for (size_t i = 0; i < ld.n; i++) {
		ld.queue[i] = i;
		ld.cu_offs[i] = ld.units[i].die_off;
	}
	if (ld.n > 1)
		qsort_r(ld.queue, ld.n, sizeof *ld.queue, cmp_unit_size, sizes.v);
	atomic_init(&ld.next, 0);
	VEC_GROW(&bin->cus, ld.n);
	if (ld.n)
		memset(bin->cus.v, 0, ld.n * sizeof *bin->cus.v);
	bin->cus.n = ld.n;
	spgo_strtab_init(&ld.file_strs);

	pthread_t helper;
	int threaded = helper_start(&ld, &helper) == 0;
	line_dest own = {&bin->file_strs, &bin->rows, &bin->seqs};
	line_pass(&ld, &own, 0);
	read_cu_ranges(bin, cudies.v, &cu_by_die);
	if (threaded) {
		pthread_join(helper, NULL);
		merge_helper_lines(&ld);
	} else {
		spgo_read_scopes(bin, bin->dwarf, ld.cu_offs, ld.n, ld.bounds);
	}
	for (size_t i = 0; i < ld.n; i++) {
		bin->cus.v[i].range_begin = ld.bounds[2 * i];
		bin->cus.v[i].range_end = ld.bounds[2 * i + 1];
		bin->line_errors += bin->cus.v[i].line_error;
		bin->cus.v[i].producer = (uint8_t)producer_kind(ld.units[i].producer);
		bin->cus.v[i].name = ld.units[i].name ? xstrdup(ld.units[i].name) : NULL;
	}
	find_producer(bin, ld.units, ld.n);
	free(ld.bounds);
	free(ld.cu_offs);
	VEC_FREE(&ld.rows);
	VEC_FREE(&ld.seqs);
	spgo_strtab_free(&ld.file_strs);
	free(ld.queue);
	VEC_FREE(&units);
	VEC_FREE(&cudies);
	VEC_FREE(&sizes);
	spgo_kmap_free(&cu_by_die);
	/* Everything kept is copied out of libdw: its memory is free again
	 * for what comes next. */
	dwarf_end(bin->dwarf);
	bin->dwarf = NULL;
	if (bin->cus.n == 0)
		return spgo_error("%s: no compile units in the DWARF", bin->dwarf_path);
	spgo_info("%s: %zu CUs, %zu line rows, %zu scopes, %zu scope ranges (%s)", bin->dwarf_path, bin->cus.n,
		  bin->rows.n, bin->scopes.n, bin->ranges.n, threaded ? "two threads" : "one thread");
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
	spgo_binary_disc_kind(bin);
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
	free(bin->debug_search);
	free(bin->producer_name);
	bin->producer_name = NULL;
	bin->debug_err = bin->dwarf_path = bin->debug_search = NULL;
	VEC_FREE(&bin->rows);
	VEC_FREE(&bin->seqs);
	VEC_FREE(&bin->scopes);
	VEC_FREE(&bin->ranges);
	for (size_t i = 0; i < bin->cus.n; i++)
		free(bin->cus.v[i].files), free(bin->cus.v[i].name);
	VEC_FREE(&bin->cus);
	VEC_FREE(&bin->cu_ranges);
	VEC_FREE(&bin->subprograms);
	bin->line_errors = 0;
	for (size_t i = 0; i < bin->inflated.n; i++)
		free(bin->inflated.v[i]);
	VEC_FREE(&bin->inflated);
	bin->debug_state = 0;
}
