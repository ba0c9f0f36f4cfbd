/*
 * The instruction table: every instruction of the executable sections,
 * decoded with capstone, with its control-flow class and direct target.
 *
 * Decoding is a linear sweep that restarts at every symbol inside a section
 * (as llvm-objdump -d does), and skips one unit (a byte on x86, a word on
 * AArch64) where nothing decodes.
 * What is the instruction set's own (capstone's mode, the classes, the
 * step over bytes that do not decode) comes from the binary's struct
 * spgo_arch_ops (arch_<isa>.c), chosen by e_machine.
 */
#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"

const char *spgo_insn_class_name(unsigned cls)
{
	static const char *const names[] = {
		"other", "cond_branch", "jump", "indirect_jump", "call", "indirect_call", "return", "trap",
	};
	return cls < SPGO_ARRAY_LEN(names) ? names[cls] : "?";
}

/* Open capstone for the binary's machine; -1 with spgo_error if unsupported. */
static int open_capstone(struct spgo_binary *bin, csh *h)
{
	const struct spgo_arch_ops *A = bin->arch;
	if (!A)
		return spgo_error("%s: cannot disassemble machine %u", bin->path, bin->machine);
	if (cs_open((cs_arch)A->cs_arch, (cs_mode)A->cs_mode, h) != CS_ERR_OK)
		return spgo_error("%s: capstone cannot open this architecture", bin->path);
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_insn(const void *a, const void *b)
{
	const struct spgo_insn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void decode_range(struct spgo_binary *bin, csh h, cs_insn *in, const uint8_t *bytes, uint64_t addr,
			 uint64_t end)
{
	const struct spgo_arch_ops *A = bin->arch;
	while (addr < end) {
		const uint8_t *code = bytes;
		size_t size = (size_t)(end - addr);
		uint64_t a = addr;
		if (!cs_disasm_iter(h, &code, &size, &a, in)) {
			struct spgo_insn v = {addr, 0, 0, SPGO_INSN_OTHER, 0};
			size_t vlen = A->undecoded ? A->undecoded(bytes, (size_t)(end - addr), &v) : 0;
			if (vlen) {
				v.size = (uint8_t)vlen;
				VEC_PUSH(&bin->insns, v);
				bytes += vlen;
				addr += vlen;
				continue;
			}
			/* Undecodable: skip a byte (an AArch64 word). */
			size_t skip = A->insn_align;
			if (skip > end - addr)
				skip = (size_t)(end - addr);
			bytes += skip;
			addr += skip;
			continue;
		}
		struct spgo_insn out = {in->address, 0, (uint8_t)in->size, SPGO_INSN_OTHER, (uint16_t)in->id};
		A->classify(in, &out); /* (clears op of a no-op) */
		VEC_PUSH(&bin->insns, out);
		bytes += in->size;
		addr += in->size;
	}
}

static void load_insns(struct spgo_binary *bin)
{
	bin->insns_loaded = 1;
	csh h;
	if (open_capstone(bin, &h) < 0)
		return;
	size_t nsyms;
	const struct spgo_symbol *syms = spgo_binary_symbols(bin, &nsyms);
	cs_insn *in = cs_malloc(h);
	Elf_Scn *scn = NULL;
	VEC(uint64_t) cuts = {0};
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size == 0)
			continue;
		uint64_t lo = sh.sh_addr, hi = sh.sh_addr + data->d_size;
		if (hi < lo) /* a corrupt address at the top of the address space */
			continue;
		/* Decoding restarts at each symbol of the section. */
		cuts.n = 0;
		VEC_PUSH(&cuts, lo);
		for (size_t i = 0; i < nsyms; i++)
			if (syms[i].addr > lo && syms[i].addr < hi &&
			    (syms[i].type == STT_FUNC || syms[i].type == STT_NOTYPE || syms[i].type == STT_GNU_IFUNC))
				VEC_PUSH(&cuts, syms[i].addr);
		VEC_PUSH(&cuts, hi);
		if (cuts.n > 1)
			spgo_sort(cuts.v, cuts.n, sizeof *cuts.v, cmp_u64);
		size_t r = 0; /* (spgo_binary_restrict_code: the next interval) */
		for (size_t i = 0; i + 1 < cuts.n; i++) {
			if (cuts.v[i] == cuts.v[i + 1])
				continue;
			if (bin->code_only.n) {
				while (r < bin->code_only.n && bin->code_only.v[r + 1] <= cuts.v[i])
					r += 2;
				if (r >= bin->code_only.n || bin->code_only.v[r] >= cuts.v[i + 1])
					continue; /* no interval overlaps this part */
			}
			decode_range(bin, h, in, (const uint8_t *)data->d_buf + (cuts.v[i] - lo), cuts.v[i], cuts.v[i + 1]);
		}
	}
	VEC_FREE(&cuts);
	/* Sections come in header order; the table is by address (already,
	 * mostly: a vmlinux's six million instructions took a tenth of
	 * spgo gen --kernel's time to sort in order). */
	size_t k = 1;
	while (k < bin->insns.n && bin->insns.v[k - 1].addr <= bin->insns.v[k].addr)
		k++;
	if (k < bin->insns.n)
		spgo_sort(bin->insns.v, bin->insns.n, sizeof *bin->insns.v, cmp_insn);
	cs_free(in, 1);
	cs_close(&h);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

void spgo_binary_restrict_code(struct spgo_binary *bin, const uint64_t *iv, size_t n)
{
	if (bin->insns_loaded || !n)
		return;
	VEC_GROW(&bin->code_only, 2 * n);
	memcpy(bin->code_only.v, iv, 2 * n * sizeof *iv);
	spgo_sort(bin->code_only.v, n, 2 * sizeof *iv, cmp_pair);
	size_t k = 0; /* merged in place */
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = bin->code_only.v[2 * i], hi = bin->code_only.v[2 * i + 1];
		if (k && lo <= bin->code_only.v[k - 1]) {
			if (hi > bin->code_only.v[k - 1])
				bin->code_only.v[k - 1] = hi;
			continue;
		}
		bin->code_only.v[k++] = lo;
		bin->code_only.v[k++] = hi;
	}
	bin->code_only.n = k;
}

const struct spgo_insn *spgo_binary_insns(struct spgo_binary *bin, size_t *n)
{
	if (!bin->insns_loaded)
		load_insns(bin);
	*n = bin->insns.n;
	return bin->insns.v;
}

const struct spgo_insn *spgo_binary_insn_at(struct spgo_binary *bin, uint64_t addr)
{
	if (!bin->insns_loaded)
		load_insns(bin);
	size_t lo;
	SPGO_LOWER_BOUND(lo, bin->insns.v, bin->insns.n, addr, addr);
	return lo < bin->insns.n && bin->insns.v[lo].addr == addr ? &bin->insns.v[lo] : NULL;
}

/* ---- llvm-profgen's code ------------------------------------------------- */

/*
 * The intervals of spgo_binary_profgen_code: per executable section but
 * .plt, [its lowest .symtab symbol, its end).  llvm-profgen takes every
 * symbol whose section is that section (a section symbol included, a file
 * or an absolute one not); the address of a relocatable file's symbol is
 * its section's, as load_symbols (symtab.c) lays them out.
 */
struct pg_sec {
	size_t index;
	uint64_t addr, end, first;
};

static void load_profgen_code(struct spgo_binary *bin)
{
	bin->pg_code_loaded = 1;
	size_t shstr = 0;
	if (elf_getshdrstrndx(bin->elf, &shstr) < 0)
		return;
	VEC(struct pg_sec) secs = {0}; /* in index order */
	Elf_Scn *scn = NULL, *symtab = NULL;
	GElf_Shdr sh, symsh;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symsh = sh;
		}
		const char *name = elf_strptr(bin->elf, shstr, sh.sh_name);
		if (!(sh.sh_flags & SHF_EXECINSTR) || (name && !strcmp(name, ".plt")) ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr) /* (a corrupt size) */
			continue;
		struct pg_sec x = {elf_ndxscn(scn), sh.sh_addr, sh.sh_addr + sh.sh_size, UINT64_MAX};
		VEC_PUSH(&secs, x);
	}
	Elf_Data *data = symtab ? elf_getdata(symtab, NULL) : NULL;
	size_t nsym = data && symsh.sh_entsize ? symsh.sh_size / symsh.sh_entsize : 0;
	for (size_t i = 1; i < nsym && secs.n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		/* (an index in SHT_SYMTAB_SHNDX, past 65279 sections: left out) */
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		size_t lo = 0, hi = secs.n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (secs.v[mid].index < sym.st_shndx)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == secs.n || secs.v[lo].index != sym.st_shndx)
			continue;
		uint64_t a = sym.st_value + (bin->kind == SPGO_ELF_REL ? secs.v[lo].addr : 0);
		if (a < secs.v[lo].first)
			secs.v[lo].first = a;
	}
	for (size_t i = 0; i < secs.n; i++) {
		const struct pg_sec *x = &secs.v[i];
		uint64_t lo = x->first > x->addr ? x->first : x->addr;
		if (x->first != UINT64_MAX && lo < x->end) {
			VEC_PUSH(&bin->pg_code, lo);
			VEC_PUSH(&bin->pg_code, x->end);
		}
	}
	VEC_FREE(&secs);
	if (bin->pg_code.n > 2)
		spgo_sort(bin->pg_code.v, bin->pg_code.n / 2, 2 * sizeof *bin->pg_code.v, cmp_pair);
}

int spgo_binary_profgen_code(struct spgo_binary *bin, uint64_t addr)
{
	if (!bin->pg_code_loaded)
		load_profgen_code(bin);
	const uint64_t *v = bin->pg_code.v;
	size_t lo = 0, hi = bin->pg_code.n / 2;
	while (lo < hi) { /* the last interval starting at or before addr */
		size_t mid = lo + (hi - lo) / 2;
		if (v[2 * mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < v[2 * lo - 1] && spgo_binary_insn_at(bin, addr) != NULL;
}
