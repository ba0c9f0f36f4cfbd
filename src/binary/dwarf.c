/*
 * Build the address-sorted debug tables of a binary from its DWARF, once
 * (the scopes in scopes.c):
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
 * DIEs, on two threads (see struct load).
 * After this, lines.c answers an address with binary searches only.
 */
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <zstd.h>

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

/* Where a line pass puts file names, rows and sequences: the binary's own
 * tables, or the helper thread's until they are merged (see struct load). */
struct line_dest {
	struct spgo_strtab *file_strs;
	spgo_row_vec *rows;
	spgo_seq_vec *seqs;
	struct copy_share *share; /* the main thread's, while there is a helper */
};

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
static void read_files(struct line_dest *d, Dwarf_Die *cudie, int version, struct spgo_cu *cu)
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
			cu->files[i] = spgo_strtab_intern(d->file_strs, full, strlen(full));
			free(full);
		} else {
			cu->files[i] = spgo_strtab_intern(d->file_strs, name, strlen(name));
		}
	}
}

/*
 * Copying a large line table's rows out of libdw is shared between the two
 * load threads (see struct load): the main thread posts the table here and
 * copies blocks of rows, and the helper, once it has nothing else to do,
 * copies blocks too.  libdw's accessors of a Dwarf_Lines already built only
 * read it.
 */
#define COPY_BLOCK 16384 /* rows */
struct row_copy {
	Dwarf_Lines *lines;
	const struct spgo_cu *cu;
	struct spgo_line_row *out; /* row i goes to out[i] */
	size_t n;
	atomic_size_t next; /* the next block to take */
	int users;          /* helpers copying now (under copy_share.mu) */
};

struct copy_share {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct row_copy *job; /* the table posted, or NULL */
	unsigned long posts;  /* tables posted so far */
	int closed;           /* the main thread will post no more */
};

/* A row that could not be read, dropped when the rows are cut into
 * sequences. */
#define SKIP_ROW (UINT32_MAX - 2)

/* Rows [a, b) of the table into out[a, b); an end-of-sequence row gets
 * file SPGO_NO_FILE. */
static void copy_rows(const struct row_copy *j, size_t a, size_t b)
{
	const struct spgo_cu *cu = j->cu;
	for (size_t i = a; i < b; i++) {
		Dwarf_Line *l = dwarf_onesrcline(j->lines, i);
		Dwarf_Addr addr;
		int line = 0, col = 0;
		unsigned disc = 0;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &addr) != 0) {
			j->out[i].file = SKIP_ROW;
			continue;
		}
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
		j->out[i] = r;
	}
}

static void copy_blocks(struct row_copy *j)
{
	for (;;) {
		size_t a = atomic_fetch_add(&j->next, 1) * (size_t)COPY_BLOCK;
		if (a >= j->n)
			break;
		copy_rows(j, a, a + COPY_BLOCK < j->n ? a + COPY_BLOCK : j->n);
	}
}

/* The helper's side: copy blocks of each table posted until closed. */
static void help_copy(struct copy_share *sh)
{
	unsigned long seen = 0;
	pthread_mutex_lock(&sh->mu);
	for (;;) {
		while (!sh->closed && (!sh->job || sh->posts == seen))
			pthread_cond_wait(&sh->cv, &sh->mu);
		if (sh->closed)
			break;
		struct row_copy *j = sh->job;
		seen = sh->posts;
		j->users++;
		pthread_mutex_unlock(&sh->mu);
		copy_blocks(j);
		pthread_mutex_lock(&sh->mu);
		j->users--;
		pthread_cond_broadcast(&sh->cv);
	}
	pthread_mutex_unlock(&sh->mu);
}

/* The main thread's side: copy the table, posted for the helper when
 * sh is not NULL and the table is large. */
static void copy_table(struct copy_share *sh, struct row_copy *j)
{
	if (!sh || j->n < 2 * COPY_BLOCK) {
		copy_blocks(j);
		return;
	}
	pthread_mutex_lock(&sh->mu);
	sh->job = j;
	sh->posts++;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
	copy_blocks(j);
	pthread_mutex_lock(&sh->mu);
	sh->job = NULL;
	while (j->users)
		pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
}

/*
 * The CU's line rows, appended to d->rows, and its sequences to
 * d->seqs.  libdw hands the rows of all sequences merged in address
 * order, an end-of-sequence row first among rows at one address: each run
 * up to an end row is taken as one sequence, kept if it covers addresses.
 */
static void read_rows(struct line_dest *d, Dwarf_Die *cudie, struct spgo_cu *cu)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return;
	size_t first = d->rows->n;
	VEC_GROW(d->rows, d->rows->n + n);
	struct spgo_line_row *rows = d->rows->v;
	struct row_copy j = {lines, cu, rows + first, n, 0, 0};
	copy_table(d->share, &j);
	size_t k = first, begin = first;
	for (size_t i = first; i < first + n; i++) {
		struct spgo_line_row r = rows[i];
		if (r.file == SKIP_ROW)
			continue;
		rows[k++] = r;
		if (r.file != SPGO_NO_FILE)
			continue;
		if (k - 1 > begin && rows[begin].addr < r.addr) {
			struct spgo_line_seq sq = {rows[begin].addr, r.addr, begin, k};
			VEC_PUSH(d->seqs, sq);
		} else {
			k = begin; /* an empty sequence: forget its rows */
		}
		begin = k;
	}
	d->rows->n = begin; /* rows after the last end belong to no sequence */
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

/* The CU's file table, rows and sequences (sorted by end) into d. */
static void read_cu_lines(struct line_dest *d, Dwarf_Die *cudie, int version, struct spgo_cu *cu)
{
	read_files(d, cudie, version, cu);
	cu->seq_begin = d->seqs->n;
	read_rows(d, cudie, cu);
	cu->seq_end = d->seqs->n;
	if (cu->seq_end - cu->seq_begin > 1)
		qsort(d->seqs->v + cu->seq_begin, cu->seq_end - cu->seq_begin, sizeof *d->seqs->v, cmp_seq_hi);
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
 * Two threads share the load, each with its own libdw handle on the file
 * (libdw 0.188 is not safe for two threads on one handle).  The helper
 * walks the DIEs of every compile unit (the scopes), then joins the main
 * thread in reading line tables: the two take compile units from one
 * queue, largest first, so the main thread starts on the largest at once.
 * The main thread's line tables go straight into the binary's tables, the
 * helper's into its own, merged after; when the queue is empty the helper
 * helps copy the rows of the main thread's large tables (struct
 * copy_share).  Each thread writes only its own
 * compile units' entries of bin->cus, and only the helper touches
 * bin->strs, bin->scopes, bin->ranges and bin->subprograms.  With one
 * thread the main thread does both passes in turn.
 */
struct unit {
	Dwarf_Off die_off;
	Dwarf_Half version;
	uint8_t by_helper; /* 1 if the helper read its line table */
};

struct load {
	struct spgo_binary *bin;
	struct unit *units; /* the compile units, in .debug_info order */
	Dwarf_Off *cu_offs; /* their DIEs' offsets */
	size_t n;
	size_t *queue;      /* unit indices, largest first, for the line pass */
	atomic_size_t next; /* the next queue entry to take */
	/* The helper thread's: its handle, scope slices, and line tables. */
	Elf *elf;
	Dwarf *dwarf;
	size_t *bounds; /* per unit: begin, end in bin->ranges */
	struct spgo_strtab file_strs;
	spgo_row_vec rows;
	spgo_seq_vec seqs;
	struct copy_share share; /* copying the main thread's large tables */
};

/* Line tables of compile units from the queue until it is empty. */
static void line_pass(struct load *ld, Dwarf *dw, struct line_dest *d, int helper)
{
	for (;;) {
		size_t q = atomic_fetch_add(&ld->next, 1);
		if (q >= ld->n)
			break;
		struct unit *u = &ld->units[ld->queue[q]];
		Dwarf_Die cudie;
		if (!dwarf_offdie(dw, u->die_off, &cudie))
			continue;
		read_cu_lines(d, &cudie, u->version, &ld->bin->cus.v[ld->queue[q]]);
		u->by_helper = (uint8_t)helper;
	}
}

static void *helper_run(void *arg)
{
	struct load *ld = arg;
	spgo_read_scopes(ld->bin, ld->dwarf, ld->cu_offs, ld->n, ld->bounds);
	struct line_dest d = {&ld->file_strs, &ld->rows, &ld->seqs, NULL};
	line_pass(ld, ld->dwarf, &d, 1);
	help_copy(&ld->share);
	/* What it keeps is copied out of libdw: end the handle here, off
	 * the main thread's way. */
	dwarf_end(ld->dwarf);
	elf_end(ld->elf);
	return NULL;
}

/*
 * Start the helper thread with its own Elf and Dwarf handle on the DWARF's
 * file: 0 if it runs, -1 if not (SPGO_THREADS=1, zstd sections inflated in
 * memory on the first handle only, no thread).
 */
static int helper_start(struct load *ld, pthread_t *thread)
{
	struct spgo_binary *bin = ld->bin;
	const char *nthreads = getenv("SPGO_THREADS");
	if ((nthreads && !strcmp(nthreads, "1")) || bin->inflated.n || ld->n == 0)
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

static int load(struct spgo_binary *bin)
{
	if (open_dwarf(bin) < 0)
		return -1;
	/* The compile units, their DIEs on the main handle and their sizes. */
	struct load ld = {.bin = bin};
	VEC(struct unit) units = {0};
	VEC(Dwarf_Die) cudies = {0};
	VEC(uint64_t) sizes = {0};
	struct spgo_kmap cu_by_die;
	spgo_kmap_init(&cu_by_die, 1);
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Half version;
	int nunits = 0;
	while (dwarf_next_unit(bin->dwarf, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		struct unit u = {off + hsize, version, 0};
		uint64_t size = next - off;
		off = next;
		nunits++;
		/* Skeleton units of split DWARF too: their line tables are
		 * here, their scopes in split units (scopes.c, split.c). */
		if (!dwarf_offdie(bin->dwarf, u.die_off, &cudie) ||
		    (dwarf_tag(&cudie) != DW_TAG_compile_unit && dwarf_tag(&cudie) != DW_TAG_skeleton_unit))
			continue;
		uint64_t key = u.die_off;
		*spgo_kmap_upsert(&cu_by_die, &key) = units.n;
		VEC_PUSH(&units, u);
		VEC_PUSH(&cudies, cudie);
		VEC_PUSH(&sizes, size);
	}
	if (nunits == 0 && dwarf_errno() != 0)
		spgo_warn("%s: %s", bin->dwarf_path, dwarf_errmsg(-1));
	ld.units = units.v;
	ld.n = units.n;
	ld.queue = xmalloc((ld.n ? ld.n : 1) * sizeof *ld.queue);
	ld.cu_offs = xmalloc((ld.n ? ld.n : 1) * sizeof *ld.cu_offs);
	ld.bounds = xcalloc(2 * ld.n + 1, sizeof *ld.bounds);
	for (size_t i = 0; i < ld.n; i++) {
		ld.queue[i] = i;
		ld.cu_offs[i] = ld.units[i].die_off;
	}
	qsort_r(ld.queue, ld.n, sizeof *ld.queue, cmp_unit_size, sizes.v);
	atomic_init(&ld.next, 0);
	VEC_GROW(&bin->cus, ld.n);
	memset(bin->cus.v, 0, ld.n * sizeof *bin->cus.v);
	bin->cus.n = ld.n;
	spgo_strtab_init(&ld.file_strs);
	pthread_mutex_init(&ld.share.mu, NULL);
	pthread_cond_init(&ld.share.cv, NULL);

	pthread_t helper;
	int threaded = helper_start(&ld, &helper) == 0;
	struct line_dest own = {&bin->file_strs, &bin->rows, &bin->seqs, threaded ? &ld.share : NULL};
	line_pass(&ld, bin->dwarf, &own, 0);
	pthread_mutex_lock(&ld.share.mu);
	ld.share.closed = 1;
	pthread_cond_broadcast(&ld.share.cv);
	pthread_mutex_unlock(&ld.share.mu);
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
	}
	pthread_mutex_destroy(&ld.share.mu);
	pthread_cond_destroy(&ld.share.cv);
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
	/* Everything kept is copied out of libdw: its memory (the line tables
	 * above all) is free again for what comes next. */
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
