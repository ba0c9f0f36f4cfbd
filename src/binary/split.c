/*
 * Split DWARF (-gsplit-dwarf): the split unit of a skeleton unit, read from
 * its .dwo file or from a .dwp package, for scopes.c.
 *
 * A skeleton unit in the binary keeps the line table (DW_AT_stmt_list), the
 * unit's address ranges, DW_AT_addr_base and the name of its .dwo
 * (DW_AT_dwo_name, DW_AT_GNU_dwo_name before DWARF 5); the DIEs of its
 * functions and inlined calls live in the split unit.  libdw 0.188 opens
 * .dwo files itself, but only beside the binary or at comp_dir/dwo_name,
 * with no search path, and it cannot read .dwp packages (elfutils 0.191
 * added those).  So spgo reads split units itself, with libdw used only on
 * the skeleton's attributes:
 *
 *   where      a .dwp (--dwp FILE, else BINARY.dwp when it exists), the only
 *              source when there is one, as for llvm-symbolizer; else
 *              comp_dir/dwo_name (a relative comp_dir is taken from the
 *              current directory, as LLVM does), then each --dwo-dir DIR:
 *              DIR/dwo_name, DIR/basename(dwo_name), DIR/comp_dir/dwo_name.
 *              The unit must carry the skeleton's DWO id.
 *   .dwp       .debug_cu_index (version 2, GNU DWARF 4, and version 5) gives
 *              each unit's contributions to .debug_info.dwo,
 *              .debug_abbrev.dwo, .debug_str_offsets.dwo and
 *              .debug_rnglists.dwo.
 *   DIEs       split_unit.c.
 *
 * Call files index the skeleton's line table (as in LLVM: the split unit's
 * .debug_line.dwo only names files for types), which dwarf.c reads.
 * Every size and offset read from a .dwo or .dwp is checked against its
 * section: a corrupt file gives one message naming it, and the unit is then
 * read from its skeleton only.  Little-endian files only (x86-64, AArch64).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include "binary/split_impl.h"

/* ---- .dwo and .dwp files ---------------------------------------------------- */

static const char *const sect_names[S_NSECT] = {".debug_info.dwo", ".debug_abbrev.dwo", ".debug_str.dwo",
						  ".debug_str_offsets.dwo", ".debug_rnglists.dwo"};

#define MAX_WARNINGS 8 /* missing units reported one by one; then counted */

static void close_file(struct dwo_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	memset(f, 0, sizeof *f);
	f->fd = -1;
}

/*
 * The bytes of section `name` of elf (decompressed when zlib-compressed);
 * an empty span (at span_none) when there is none.  -1 when it is still
 * compressed (zstd: libelf 0.188 cannot inflate it).
 */
static int get_section(Elf *elf, const char *name, struct span *out)
{
	Elf_Data *d = NULL;
	out->p = span_none;
	out->n = 0;
	Elf_Scn *scn = spgo_elf_section(elf, name, &d);
	GElf_Shdr sh;
	if (!scn || !d || !gelf_getshdr(scn, &sh))
		return 0;
	if (sh.sh_flags & SHF_COMPRESSED)
		return -1;
	if (d->d_buf) {
		out->p = d->d_buf;
		out->n = d->d_size;
	}
	return 0;
}

/*
 * Open path as a .dwo or .dwp: 0 on success, -1 with errno set when it
 * cannot be opened (ENOENT: look elsewhere), -2 with *why set when it is
 * not a usable ELF file.
 */
static int open_file(struct dwo_file *f, const char *path, const char **why)
{
	memset(f, 0, sizeof *f);
	f->fd = -1;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	f->fd = fd;
	f->path = xstrdup(path);
	f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t size;
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !elf_rawfile(f->elf, &size)) {
		*why = "not an ELF file";
		return -2;
	}
	const char *ident = elf_getident(f->elf, NULL);
	if (!ident || ident[EI_DATA] != ELFDATA2LSB) {
		*why = "not a little-endian ELF file";
		return -2;
	}
	/* Section headers and sections must lie inside the file (libelf
	 * maps a truncated file). */
	GElf_Ehdr eh;
	if (!gelf_getehdr(f->elf, &eh) || eh.e_shoff > size ||
	    (uint64_t)eh.e_shnum * eh.e_shentsize > size - eh.e_shoff) {
		*why = "truncated (its section headers lie past its end)";
		return -2;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_NOBITS && (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))) {
			*why = "truncated (a section lies past its end)";
			return -2;
		}
	}
	for (int i = 0; i < S_NSECT; i++) {
		if (get_section(f->elf, sect_names[i], &f->sect[i]) < 0) {
			*why = "compressed debug sections spgo cannot inflate (zstd)";
			return -2;
		}
	}
	if (!f->sect[S_INFO].n || !f->sect[S_ABBREV].n) {
		*why = "no .debug_info.dwo or .debug_abbrev.dwo section";
		return -2;
	}
	return 0;
}

/* DW_SECT_* column ids of .debug_cu_index (version 2, then 5). */
static int sect_of_column(unsigned version, uint32_t id)
{
	switch (id) {
	case 1: return S_INFO;
	case 3: return S_ABBREV;
	case 6: return S_STR_OFFSETS;
	case 8: return version == 5 ? S_RNGLISTS : -1; /* DW_SECT_MACRO in version 2 */
	}
	return -1;
}

/* Parse and check the .dwp's .debug_cu_index: NULL, or what is wrong. */
static const char *open_index(struct dwo_file *f)
{
	if (get_section(f->elf, ".debug_cu_index", &f->index) < 0)
		return "compressed .debug_cu_index";
	if (!f->index.n)
		return "no .debug_cu_index section";
	struct rd r = rd_at(f->index, 0);
	uint32_t v = (uint32_t)rd_le(&r, 4);
	/* Version 2 is 4 bytes; version 5 is 2 bytes and 2 of padding. */
	f->version = v == 2 ? 2 : (v & 0xffff) == 5 ? 5 : 0;
	f->ncols = (uint32_t)rd_le(&r, 4);
	f->nunits = (uint32_t)rd_le(&r, 4);
	f->nslots = (uint32_t)rd_le(&r, 4);
	if (r.bad)
		return "truncated .debug_cu_index header";
	if (!f->version)
		return "unknown .debug_cu_index version";
	if (f->ncols == 0 || f->ncols > 64)
		return "bad column count in .debug_cu_index";
	/* header, hash table, row indices, column ids, offsets and sizes */
	uint64_t need = 16 + (uint64_t)f->nslots * 12 + (uint64_t)f->ncols * 4 +
			(uint64_t)f->nunits * f->ncols * 8;
	if (need > f->index.n)
		return "truncated .debug_cu_index (its tables run past the section)";
	for (int i = 0; i < S_NSECT; i++)
		f->col[i] = -1;
	struct rd c = rd_at(f->index, 16 + (uint64_t)f->nslots * 12);
	for (uint32_t i = 0; i < f->ncols; i++) {
		int s = sect_of_column(f->version, (uint32_t)rd_le(&c, 4));
		if (s >= 0)
			f->col[s] = (int)i;
	}
	if (f->col[S_INFO] < 0 || f->col[S_ABBREV] < 0)
		return "no info or abbrev column in .debug_cu_index";
	return NULL;
}

/*
 * The row (1-based) of unit id in the index, or 0: the hash lookup of the
 * DWARF 5 spec (section 7.3.5.3), over at most nslots slots; a linear scan
 * when the slot count is not a power of two.
 */
uint32_t split_index_row(const struct dwo_file *f, uint64_t id)
{
	const uint8_t *sigs = f->index.p + 16, *rows = sigs + (size_t)f->nslots * 8;
	struct span ss = {sigs, (size_t)f->nslots * 8}, rs = {rows, (size_t)f->nslots * 4};
	uint32_t n = f->nslots;
	if (n && !(n & (n - 1))) {
		uint64_t mask = n - 1, h = id & mask, step = ((id >> 32) & mask) | 1;
		for (uint32_t k = 0; k < n; k++, h = (h + step) & mask) {
			struct rd a = rd_at(ss, h * 8), b = rd_at(rs, h * 4);
			uint64_t sig = rd_le(&a, 8);
			uint32_t row = (uint32_t)rd_le(&b, 4);
			if (row == 0 && sig == 0)
				return 0;
			if (sig == id && row)
				return row;
		}
		return 0;
	}
	for (uint32_t h = 0; h < n; h++) {
		struct rd a = rd_at(ss, (uint64_t)h * 8), b = rd_at(rs, (uint64_t)h * 4);
		uint64_t sig = rd_le(&a, 8);
		uint32_t row = (uint32_t)rd_le(&b, 4);
		if (sig == id && row)
			return row;
	}
	return 0;
}

/* ---- finding the split unit ----------------------------------------------------- */

static const char *die_str(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr(die, at, &a));
}

static int die_udata(Dwarf_Die *die, int at, uint64_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, at, &a) || dwarf_formudata(&a, &w) != 0)
		return 0;
	*out = w;
	return 1;
}

/* What the skeleton DIE says; 0 if it is no skeleton (no dwo name). */
static int read_skeleton(Dwarf_Die *cudie, struct skeleton *sk)
{
	memset(sk, 0, sizeof *sk);
	sk->dwo_name = die_str(cudie, DW_AT_dwo_name);
	if (!sk->dwo_name)
		sk->dwo_name = die_str(cudie, DW_AT_GNU_dwo_name);
	if (!sk->dwo_name)
		return 0;
	sk->off = dwarf_dieoffset(cudie);
	sk->name = die_str(cudie, DW_AT_name);
	sk->comp_dir = die_str(cudie, DW_AT_comp_dir);
	Dwarf_Half version = 0;
	uint8_t type = 0;
	uint64_t id = 0;
	if (dwarf_cu_info(cudie->cu, &version, &type, NULL, NULL, &id, NULL, NULL) == 0)
		sk->version = version;
	if (version >= 5 && type == DW_UT_skeleton)
		sk->id = id, sk->has_id = 1;
	else if (die_udata(cudie, DW_AT_GNU_dwo_id, &sk->id))
		sk->has_id = 1;
	if (!die_udata(cudie, DW_AT_addr_base, &sk->addr_base))
		die_udata(cudie, DW_AT_GNU_addr_base, &sk->addr_base);
	die_udata(cudie, DW_AT_GNU_ranges_base, &sk->ranges_base);
	Dwarf_Addr lo;
	if (dwarf_lowpc(cudie, &lo) == 0)
		sk->base_addr = lo;
	return 1;
}

int spgo_split_is_skeleton(Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	return dwarf_attr(cudie, DW_AT_dwo_name, &a) || dwarf_attr(cudie, DW_AT_GNU_dwo_name, &a);
}

static char *skeleton_label(const struct skeleton *sk)
{
	if (sk->name)
		return xasprintf("skeleton CU %s (%s)", sk->name, sk->dwo_name);
	return xasprintf("skeleton CU at 0x%llx (%s)", (unsigned long long)sk->off, sk->dwo_name);
}

/* Report a unit read from the skeleton only (the first few, then counted). */
static void missing(struct spgo_split *sp, const struct skeleton *sk, const char *what)
{
	if (sp->missing++ >= MAX_WARNINGS)
		return;
	char *label = skeleton_label(sk);
	spgo_warn("%s: %s: %s; its line table only (no inline frames)", spgo_binary_path(sp->bin), label, what);
	free(label);
}

static void corrupt(struct spgo_split *sp, const struct skeleton *sk, const char *path, const struct unit *u)
{
	char *label = skeleton_label(sk);
	sp->corrupt++;
	spgo_warn("%s: corrupt split DWARF (%s, at 0x%llx) for the %s; its line table only", path, u->err,
		  (unsigned long long)u->err_off, label);
	free(label);
}


/* Join a and b with one '/'. */
static char *join(const char *a, const char *b)
{
	size_t n = strlen(a);
	return xasprintf("%s%s%s", a, n && a[n - 1] == '/' ? "" : "/", b);
}

typedef VEC(char *) str_vec;

/* The paths where the .dwo of sk may be, most likely first. */
static void dwo_candidates(const struct spgo_binary *bin, const struct skeleton *sk, str_vec *out)
{
	const char *name = sk->dwo_name, *dir = sk->comp_dir;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	if (name[0] != '/' && dir && dir[0])
		VEC_PUSH(out, join(dir, name));
	else
		VEC_PUSH(out, xstrdup(name));
	for (size_t i = 0; i < bin->dwo_dirs.n; i++) {
		const char *d = bin->dwo_dirs.v[i];
		if (name[0] != '/')
			VEC_PUSH(out, join(d, name));
		if (base != name)
			VEC_PUSH(out, join(d, base));
		if (name[0] != '/' && dir && dir[0] && dir[0] != '/') {
			char *cd = join(d, dir);
			VEC_PUSH(out, join(cd, name));
			free(cd);
		}
	}
}

struct spgo_split *spgo_split_begin(struct spgo_binary *bin, Elf *elf)
{
	struct spgo_split *sp = xcalloc(1, sizeof *sp);
	sp->bin = bin;
	sp->dwo.fd = sp->dwp.fd = -1;
	spgo_kmap_init(&sp->names, 1);
	if (get_section(elf, ".debug_addr", &sp->addr) < 0 || get_section(elf, ".debug_ranges", &sp->ranges) < 0)
		spgo_warn("%s: compressed .debug_addr or .debug_ranges spgo cannot inflate", spgo_binary_path(bin));
	/* The package: --dwp FILE, else BINARY.dwp when there is one. */
	char *dflt = bin->dwp_path ? NULL : xasprintf("%s.dwp", bin->path);
	const char *dwp = bin->dwp_path ? bin->dwp_path : dflt;
	struct stat st;
	if (bin->dwp_path || stat(dwp, &st) == 0) {
		const char *why = NULL;
		int r = open_file(&sp->dwp, dwp, &why);
		if (r == 0)
			why = open_index(&sp->dwp);
		if (r == -1)
			why = strerror(errno);
		if (why) {
			spgo_warn("%s: cannot use the DWARF package: %s; split units are not read (their "
				  "skeletons' line tables only)", dwp, why);
			close_file(&sp->dwp);
			sp->dwp_state = -1;
		} else {
			sp->dwp_state = 1;
		}
	}
	free(dflt);
	return sp;
}

/* Fill out from the unit u found in f; 1, or -1 reported corrupt. */
static int read_unit(struct spgo_split *sp, struct unit *u, const struct dwo_file *f, const struct skeleton *sk,
		     struct spgo_split_unit *out)
{
	if (split_unit_read(u, out) < 0) {
		corrupt(sp, sk, f->path, u);
		out->scopes.n = out->ranges.n = 0;
		return -1;
	}
	sp->read++;
	return 1;
}

/* The split unit of sk from the package. */
static int read_from_dwp(struct spgo_split *sp, struct unit *u, const struct skeleton *sk, struct spgo_split_unit *out)
{
	u->f = &sp->dwp;
	int r = split_unit_find(u, &sp->dwp, sk);
	if (r > 0)
		return read_unit(sp, u, &sp->dwp, sk, out);
	if (r < 0) {
		corrupt(sp, sk, sp->dwp.path, u);
	} else {
		char *what = xasprintf("no unit with id 0x%llx in %s", (unsigned long long)sk->id, sp->dwp.path);
		missing(sp, sk, what);
		free(what);
	}
	return -1;
}

/* The split unit of sk from the first .dwo candidate that has it; the
 * file stays open in sp->dwo. */
static int read_from_dwo(struct spgo_split *sp, struct unit *u, const struct skeleton *sk, struct spgo_split_unit *out)
{
	str_vec paths = {0};
	dwo_candidates(sp->bin, sk, &paths);
	char *tried = xstrdup("");
	int rc = 0; /* 0 not found, 1 read, -1 corrupt (reported) */
	for (size_t i = 0; i < paths.n && rc == 0; i++) {
		const char *why = "no unit with the skeleton's id";
		int r = open_file(&sp->dwo, paths.v[i], &why);
		char *t = xasprintf("%s%s%s (%s)", tried, *tried ? ", " : "", paths.v[i], r == -1 ? strerror(errno) : why);
		free(tried);
		tried = t;
		if (r == 0) {
			memset(u, 0, sizeof *u);
			u->sp = sp, u->sk = sk, u->f = &sp->dwo;
			r = split_unit_find(u, &sp->dwo, sk);
			if (r < 0)
				corrupt(sp, sk, sp->dwo.path, u);
			rc = r > 0 ? read_unit(sp, u, &sp->dwo, sk, out) : r;
		}
		if (rc == 0)
			close_file(&sp->dwo);
	}
	if (rc == 0) {
		char *what = xasprintf("no .dwo found: looked for %s", tried);
		missing(sp, sk, what);
		free(what);
	}
	free(tried);
	for (size_t i = 0; i < paths.n; i++)
		free(paths.v[i]);
	VEC_FREE(&paths);
	return rc > 0 ? 1 : -1;
}

int spgo_split_read(struct spgo_split *sp, Dwarf_Die *cudie, struct spgo_split_unit *out)
{
	struct skeleton sk;
	out->scopes.n = out->ranges.n = 0;
	if (!read_skeleton(cudie, &sk))
		return 0;
	close_file(&sp->dwo); /* the previous unit's strings go with it */
	spgo_kmap_free(&sp->names);
	spgo_kmap_init(&sp->names, 1);
	sp->resolved.n = 0;
	struct unit u = {.sp = sp, .sk = &sk};
	if (sp->dwp_state == -1)
		return -1; /* said once already */
	if (sp->dwp_state == 1)
		return read_from_dwp(sp, &u, &sk, out);
	return read_from_dwo(sp, &u, &sk, out);
}

/* Read unit u of f for sk into out: 1 read, 0 none there, -1 corrupt. */
static int read_one(struct spgo_split *sp, const struct dwo_file *f, const struct skeleton *sk,
		    struct spgo_split_unit *out)
{
	struct unit u = {.sp = sp, .sk = sk, .f = f};
	spgo_kmap_free(&sp->names);
	spgo_kmap_init(&sp->names, 1);
	sp->resolved.n = 0;
	out->scopes.n = out->ranges.n = 0;
	int r = split_unit_find(&u, f, sk);
	return r > 0 ? (split_unit_read(&u, out) < 0 ? -1 : 1) : r;
}

int spgo_split_read_file(const char *path)
{
	/* The binary's .debug_addr and .debug_ranges, stood in for by zeros:
	 * address indexes up to 8191 read 0, range lists are empty. */
	static const uint8_t zeros[1 << 16];
	struct spgo_split sp = {0};
	sp.dwo.fd = sp.dwp.fd = -1;
	sp.addr = sp.ranges = (struct span){zeros, sizeof zeros};
	spgo_kmap_init(&sp.names, 1);
	struct dwo_file f;
	struct spgo_split_unit out = {0};
	struct skeleton sk = {.name = path, .dwo_name = path, .version = 5};
	const char *why = NULL;
	int n = -1;
	elf_version(EV_CURRENT); /* no binary was opened before */
	if (open_file(&f, path, &why) == 0) {
		why = open_index(&f);
		if (!f.index.n) { /* a .dwo */
			n = read_one(&sp, &f, &sk, &out) > 0;
		} else if (!why) { /* a .dwp: each id of its hash table */
			n = 0;
			struct span ss = {f.index.p + 16, (size_t)f.nslots * 8};
			for (uint32_t h = 0; h < f.nslots; h++) {
				struct rd a = rd_at(ss, (uint64_t)h * 8);
				sk.id = rd_le(&a, 8), sk.has_id = 1;
				n += read_one(&sp, &f, &sk, &out) > 0;
			}
		}
	}
	close_file(&f);
	VEC_FREE(&out.scopes);
	VEC_FREE(&out.ranges);
	spgo_kmap_free(&sp.names);
	VEC_FREE(&sp.resolved);
	VEC_FREE(&sp.abbrevs);
	VEC_FREE(&sp.specs);
	return n;
}

void spgo_split_end(struct spgo_split *sp)
{
	if (!sp)
		return;
	if (sp->missing > MAX_WARNINGS)
		spgo_warn("%s: %u more skeleton units whose split unit was not found", spgo_binary_path(sp->bin),
			  sp->missing - MAX_WARNINGS);
	spgo_info("%s: split DWARF: %u split units read, %u not found, %u corrupt%s%s", spgo_binary_path(sp->bin),
		  sp->read, sp->missing, sp->corrupt, sp->dwp_state == 1 ? ", from " : "",
		  sp->dwp_state == 1 ? sp->dwp.path : "");
	close_file(&sp->dwo);
	close_file(&sp->dwp);
	spgo_kmap_free(&sp->names);
	VEC_FREE(&sp->resolved);
	VEC_FREE(&sp->abbrevs);
	VEC_FREE(&sp->specs);
	free(sp);
}
