/*
 * A relocatable object (ET_REL) as the binary: a Linux kernel module, the
 * .ko the kernel build leaves (or its -dbg package's copy with DWARF).
 * Its sections all start at address 0 and its DWARF holds zeros where
 * relocations put the addresses and the offsets into .debug_str and the
 * others.  So, in memory only (the file is mapped privately):
 *
 *  - sections get addresses as the kernel lays out a module's core
 *    (kernel/module/main.c, layout_sections): the allocated executable
 *    sections but .init.*, in section header order, each at its own
 *    alignment, from REL_BASE; the other allocated sections after them;
 *  - each of those executable sections is an executable segment (in that
 *    order: the first is where the module's mapping starts, see
 *    spgo_agg_space), so runtime addresses map as in any binary;
 *  - the RELA relocations of every section are applied with those
 *    addresses (absolute and PC-relative data relocations of x86-64 and
 *    AArch64; a relocation against an undefined symbol, an export of the
 *    kernel, is left alone).
 *
 * Symbols then take their section's address (symtab.c), DWARF reads as if
 * linked, and disassembly sees the section addresses.
 */
#include <string.h>

#include "binary/binary_impl.h"

#define REL_BASE 0x10000ULL

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* Sections get their addresses; the executable ones of the core become
 * segments. */
static int layout(struct spgo_binary *bin, size_t shstrndx)
{
	uint64_t at = REL_BASE;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			at = align_up(at, 0x1000);
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
				continue;
			const char *name = elf_strptr(bin->elf, shstrndx, sh.sh_name);
			int core_text = (sh.sh_flags & SHF_EXECINSTR) && !(name && !strncmp(name, ".init", 5));
			if (core_text != (pass == 0))
				continue;
			sh.sh_addr = align_up(at, sh.sh_addralign);
			at = sh.sh_addr + sh.sh_size;
			if (!gelf_update_shdr(scn, &sh))
				return spgo_error("%s: cannot lay out section %zu: %s", bin->path, elf_ndxscn(scn),
						  elf_errmsg(-1));
			if (core_text && sh.sh_type == SHT_PROGBITS && sh.sh_size) {
				struct spgo_segment s = {sh.sh_addr, sh.sh_offset, sh.sh_size, sh.sh_size,
							 sh.sh_addralign, PF_R | PF_X};
				VEC_PUSH(&bin->segments, s);
			}
		}
	}
	return 0;
}

/* Width (4 or 8) and whether PC-relative of a data relocation; 0 for one
 * this does not apply. */
static int reloc_kind(unsigned machine, uint32_t type, int *pcrel)
{
	*pcrel = 0;
	if (machine == EM_X86_64) {
		switch (type) {
		case R_X86_64_64: return 8;
		case R_X86_64_32: case R_X86_64_32S: return 4;
		case R_X86_64_PC32: case R_X86_64_PLT32: *pcrel = 1; return 4;
		case R_X86_64_PC64: *pcrel = 1; return 8;
		}
	} else if (machine == EM_AARCH64) {
		switch (type) {
		case R_AARCH64_ABS64: return 8;
		case R_AARCH64_ABS32: return 4;
		case R_AARCH64_PREL32: *pcrel = 1; return 4;
		case R_AARCH64_PREL64: *pcrel = 1; return 8;
		}
	}
	return 0;
}

/* Apply one RELA section to its target section. */
static int apply(struct spgo_binary *bin, Elf_Scn *rscn, const GElf_Shdr *rsh)
{
	Elf_Scn *tscn = elf_getscn(bin->elf, rsh->sh_info), *sscn = elf_getscn(bin->elf, rsh->sh_link);
	GElf_Shdr tsh;
	if (!tscn || !sscn || !gelf_getshdr(tscn, &tsh) || tsh.sh_type == SHT_NOBITS)
		return 0;
	if (tsh.sh_flags & SHF_COMPRESSED)
		elf_compress(tscn, 0, 0);
	Elf_Data *td = elf_getdata(tscn, NULL), *rd = elf_getdata(rscn, NULL), *sd = elf_getdata(sscn, NULL);
	if (!td || !td->d_buf || !rd || !sd || !rsh->sh_entsize)
		return 0;
	size_t n = rsh->sh_size / rsh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r))
			return spgo_error("%s: offset 0x%llx: truncated relocation section", bin->path,
					  (unsigned long long)(rsh->sh_offset + i * rsh->sh_entsize));
		int pcrel, width = reloc_kind(bin->machine, (uint32_t)GELF_R_TYPE(r.r_info), &pcrel);
		if (!width || !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		uint64_t s = sym.st_value;
		if (sym.st_shndx != SHN_ABS && sym.st_shndx < SHN_LORESERVE) {
			GElf_Shdr ssh;
			Elf_Scn *sec = elf_getscn(bin->elf, sym.st_shndx);
			if (!sec || !gelf_getshdr(sec, &ssh))
				continue;
			s += ssh.sh_addr;
		}
		if (r.r_offset > td->d_size || td->d_size - r.r_offset < (uint64_t)width)
			return spgo_error("%s: offset 0x%llx: relocation %zu runs past its section", bin->path,
					  (unsigned long long)(rsh->sh_offset + i * rsh->sh_entsize), i);
		uint64_t v = s + (uint64_t)r.r_addend - (pcrel ? tsh.sh_addr + r.r_offset : 0);
		uint8_t *p = (uint8_t *)td->d_buf + r.r_offset;
		if (width == 8) {
			memcpy(p, &v, 8);
		} else {
			uint32_t v32 = (uint32_t)v;
			memcpy(p, &v32, 4);
		}
	}
	return 0;
}

int spgo_binary_rel_prepare(struct spgo_binary *bin)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(bin->elf, &shstrndx) != 0)
		return spgo_error("%s: no section name table", bin->path);
	if (layout(bin, shstrndx) < 0)
		return -1;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && apply(bin, scn, &sh) < 0)
			return -1;
	}
	return 0;
}
