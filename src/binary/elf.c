/*
 * ELF identity of a binary: kind, machine, build-id, loadable segments, and
 * the runtime-to-file address mapping.  See spgo/binary.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/binary_impl.h"

const char *spgo_binary_debug_path(const struct spgo_binary *bin)
{
	return bin->dwarf_path;
}

static int elf_fail(const char *path, const char *what)
{
	return spgo_error("%s: %s (%s)", path, what, elf_errmsg(-1));
}

size_t spgo_elf_build_id(Elf *elf, uint8_t *id, size_t max)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 &&
			    nh.n_descsz > 0 && nh.n_descsz <= max) {
				memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/*
 * A file cut short still opens in libelf (it maps what is there), so check
 * that the section headers and every section with file contents lie inside
 * the file: later reads would fail in confusing ways otherwise.
 */
static int check_sections(struct spgo_binary *bin)
{
	size_t size;
	if (!elf_rawfile(bin->elf, &size))
		return elf_fail(bin->path, "cannot read the file");
	GElf_Ehdr eh;
	gelf_getehdr(bin->elf, &eh);
	/* The raw header fields first: libelf quietly sees no sections when
	 * their table lies past the end of the file. */
	uint64_t phend = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
	if (eh.e_phnum && phend > size)
		return spgo_error("%s: offset 0x%llx: truncated ELF file: the program header table "
				  "ends past the end of the file (size 0x%zx)",
				  bin->path, (unsigned long long)eh.e_phoff, size);
	uint64_t shend = eh.e_shoff + (uint64_t)(eh.e_shnum ? eh.e_shnum : 1) * eh.e_shentsize;
	if (eh.e_shoff && shend > size)
		return spgo_error("%s: offset 0x%llx: truncated ELF file: the section header table "
				  "ends past the end of the file (size 0x%zx)",
				  bin->path, (unsigned long long)eh.e_shoff, size);
	size_t shnum;
	if (elf_getshdrnum(bin->elf, &shnum) != 0)
		return spgo_error("%s: offset 0x%llx: truncated or corrupt section header table",
				  bin->path, (unsigned long long)eh.e_shoff);
	if (shnum && eh.e_shoff + (uint64_t)shnum * eh.e_shentsize > size)
		return spgo_error("%s: offset 0x%llx: truncated ELF file: the section header table "
				  "ends past the end of the file (size 0x%zx)",
				  bin->path, (unsigned long long)eh.e_shoff, size);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return elf_fail(bin->path, "corrupt section header");
		if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL)
			continue;
		if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
			return spgo_error("%s: offset 0x%llx: truncated ELF file: section %zu "
					  "(0x%llx bytes) ends past the end of the file (size 0x%zx)",
					  bin->path, (unsigned long long)sh.sh_offset, elf_ndxscn(scn),
					  (unsigned long long)sh.sh_size, size);
	}
	return 0;
}

Elf_Scn *spgo_elf_section(Elf *elf, const char *name, Elf_Data **data)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n || strcmp(n, name) != 0)
			continue;
		if (sh.sh_type == SHT_NOBITS)
			return NULL;
		if (data) {
			if (sh.sh_flags & SHF_COMPRESSED)
				elf_compress(scn, 0, 0);
			*data = elf_getdata(scn, NULL);
			if (!*data)
				return NULL;
		}
		return scn;
	}
	return NULL;
}

int spgo_binary_open(struct spgo_binary **out, const char *path, const char *debug_path)
{
	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return spgo_error("libelf: %s", elf_errmsg(-1));
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return spgo_error("%s: %s", path, strerror(errno));
	struct spgo_binary *bin = xcalloc(1, sizeof *bin);
	bin->path = xstrdup(path);
	bin->debug_path = debug_path ? xstrdup(debug_path) : NULL;
	bin->fd = fd;
	bin->dbg_fd = -1;
	bin->notes = stderr;
	bin->disc_kind = -1;
	spgo_strtab_init(&bin->strs);
	spgo_strtab_init(&bin->file_strs);
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		spgo_error("%s: is a directory", path);
		goto fail;
	}
	bin->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!bin->elf || elf_kind(bin->elf) != ELF_K_ELF) {
		unsigned char magic[4];
		if (pread(fd, magic, 4, 0) == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0)
			spgo_error("%s: offset 0x0: truncated ELF file: the ELF header is incomplete (%lld bytes)",
				   path, (long long)st.st_size);
		else
			spgo_error("%s: not an ELF file", path);
		goto fail;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(bin->elf, &eh)) {
		elf_fail(path, "cannot read the ELF header");
		goto fail;
	}
	if (check_sections(bin) < 0)
		goto fail;
	bin->machine = eh.e_machine;
	bin->arch = spgo_arch_of(eh.e_machine);
	bin->entry = eh.e_entry;
	bin->kind = eh.e_type == ET_EXEC ? SPGO_ELF_EXEC : eh.e_type == ET_DYN ? SPGO_ELF_DYN : SPGO_ELF_OTHER;
	if (eh.e_type == ET_REL) { /* a kernel module: laid out and relocated in a private copy */
		elf_end(bin->elf);
		bin->elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
		if (!bin->elf) {
			elf_fail(path, "cannot map the relocatable object");
			goto fail;
		}
		bin->kind = SPGO_ELF_REL;
		if (spgo_binary_rel_prepare(bin) < 0)
			goto fail;
	}
	size_t phnum;
	if (elf_getphdrnum(bin->elf, &phnum) != 0) {
		elf_fail(path, "cannot read the program headers");
		goto fail;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(bin->elf, (int)i, &ph)) {
			elf_fail(path, "truncated program header table");
			goto fail;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		struct spgo_segment s = {ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_align, ph.p_flags};
		VEC_PUSH(&bin->segments, s);
	}
	bin->build_id_len = spgo_elf_build_id(bin->elf, bin->build_id, sizeof bin->build_id);
	*out = bin;
	return 0;
fail:
	spgo_binary_close(bin);
	return -1;
}

void spgo_binary_close(struct spgo_binary *bin)
{
	if (!bin)
		return;
	spgo_binary_free_cflow(bin);
	spgo_binary_free_probes(bin);
	spgo_binary_free_debug(bin);
	spgo_binary_free_symbols(bin);
	VEC_FREE(&bin->insns);
	VEC_FREE(&bin->code_only);
	VEC_FREE(&bin->pg_code);
	spgo_strtab_free(&bin->strs);
	spgo_strtab_free(&bin->file_strs);
	if (bin->elf)
		elf_end(bin->elf);
	if (bin->fd >= 0)
		close(bin->fd);
	VEC_FREE(&bin->segments);
	free(bin->path);
	free(bin->debug_path);
	free(bin->dwp_path);
	for (size_t i = 0; i < bin->dwo_dirs.n; i++)
		free(bin->dwo_dirs.v[i]);
	VEC_FREE(&bin->dwo_dirs);
	free(bin);
}

void spgo_binary_set_dwp(struct spgo_binary *bin, const char *path)
{
	free(bin->dwp_path);
	bin->dwp_path = path ? xstrdup(path) : NULL;
}

void spgo_binary_add_dwo_dir(struct spgo_binary *bin, const char *dir)
{
	VEC_PUSH(&bin->dwo_dirs, xstrdup(dir));
}

const char *spgo_binary_path(const struct spgo_binary *bin)
{
	return bin->path;
}

enum spgo_elf_kind spgo_binary_kind(const struct spgo_binary *bin)
{
	return bin->kind;
}

unsigned spgo_binary_machine(const struct spgo_binary *bin)
{
	return bin->machine;
}

uint64_t spgo_binary_entry(const struct spgo_binary *bin)
{
	return bin->entry;
}

const uint8_t *spgo_binary_build_id(const struct spgo_binary *bin, size_t *len)
{
	*len = bin->build_id_len;
	return bin->build_id_len ? bin->build_id : NULL;
}

const struct spgo_segment *spgo_binary_segments(const struct spgo_binary *bin, size_t *n)
{
	*n = bin->segments.n;
	return bin->segments.v;
}

int spgo_segments_map(const struct spgo_segment *segs, size_t n, uint64_t map_start,
		      uint64_t map_pgoff, uint64_t runtime_addr, uint64_t *vaddr)
{
	if (runtime_addr < map_start)
		return -1;
	uint64_t file_off = runtime_addr - map_start + map_pgoff;
	for (size_t i = 0; i < n; i++) {
		const struct spgo_segment *s = &segs[i];
		if (!(s->flags & PF_X))
			continue;
		if (file_off >= s->offset && file_off < s->offset + s->filesz) {
			*vaddr = file_off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -1;
}

void spgo_build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = 0;
}

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "AArch64";
	case EM_ARM: return "ARM";
	case EM_RISCV: return "RISC-V";
	case EM_PPC64: return "PowerPC64";
	case EM_S390: return "s390";
	case EM_MIPS: return "MIPS";
	default: return "unknown";
	}
}

const struct spgo_arch_ops *spgo_arch_of(unsigned m)
{
	static const struct spgo_arch_ops *const all[] = {&spgo_arch_x86_64, &spgo_arch_i386, &spgo_arch_aarch64};
	for (size_t i = 0; i < SPGO_ARRAY_LEN(all); i++)
		if (all[i]->machine == m)
			return all[i];
	return NULL;
}

int spgo_binary_check_machine(const struct spgo_binary *bin)
{
	if (bin->arch && bin->arch->supported)
		return 0;
	return spgo_error("%s: unsupported machine %s (e_machine %u); spgo supports x86-64 and AArch64 binaries",
			  bin->path, machine_name(bin->machine), bin->machine);
}

const char *spgo_binary_perf_arch(const struct spgo_binary *bin)
{
	return bin->arch && bin->arch->supported ? bin->arch->perf_arch : NULL;
}

const char *spgo_binary_machine_name(const struct spgo_binary *bin)
{
	return machine_name(bin->machine);
}

const struct spgo_arch_regs *spgo_binary_arch_regs(const struct spgo_binary *bin)
{
	return bin->arch && bin->arch->supported ? &bin->arch->regs : NULL;
}

int spgo_binary_perf_reg(const struct spgo_binary *bin, unsigned r)
{
	return bin->arch && bin->arch->perf_reg_of_dwarf ? bin->arch->perf_reg_of_dwarf(r) : -1;
}

const uint8_t *spgo_binary_section(struct spgo_binary *bin, const char *name, uint64_t *addr, size_t *size)
{
	Elf *elfs[2] = {bin->elf, bin->dbg_elf};
	for (int i = 0; i < 2; i++) {
		Elf_Data *d;
		Elf_Scn *scn = elfs[i] ? spgo_elf_section(elfs[i], name, &d) : NULL;
		GElf_Shdr sh;
		if (!scn || !d->d_buf || !gelf_getshdr(scn, &sh))
			continue;
		*addr = sh.sh_addr;
		*size = d->d_size;
		return d->d_buf;
	}
	*addr = 0;
	*size = 0;
	return NULL;
}
