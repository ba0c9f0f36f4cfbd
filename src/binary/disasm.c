/*
 * The instruction table: every instruction of the executable sections,
 * decoded with capstone, with its control-flow class and direct target.
 *
 * Decoding is a linear sweep that restarts at every symbol inside a section
 * (as llvm-objdump -d does), and skips one byte where nothing decodes.
 * The architecture comes from e_machine: x86-64 (and i386) now, AArch64
 * classified too so later stages can grow into it.
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

static int has_group(const cs_detail *d, uint8_t g)
{
	for (unsigned i = 0; i < d->groups_count; i++)
		if (d->groups[i] == g)
			return 1;
	return 0;
}

static void classify_x86(const cs_insn *in, struct spgo_insn *out)
{
	const cs_detail *d = in->detail;
	const cs_x86 *x = &d->x86;
	int imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
	switch (in->id) {
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
		out->cls = SPGO_INSN_RETURN;
		return;
	case X86_INS_UD2:
	case X86_INS_HLT:
	case X86_INS_INT3:
		out->cls = SPGO_INSN_TRAP;
		return;
	case X86_INS_JMP:
	case X86_INS_LJMP:
		out->cls = imm ? SPGO_INSN_JUMP : SPGO_INSN_INDIRECT_JUMP;
		break;
	case X86_INS_CALL:
	case X86_INS_LCALL:
		out->cls = imm ? SPGO_INSN_CALL : SPGO_INSN_INDIRECT_CALL;
		break;
	case X86_INS_XBEGIN: /* jumps only when a transaction aborts */
		return;
	default:
		if (has_group(d, CS_GRP_JUMP))
			out->cls = SPGO_INSN_COND_BRANCH;
		else
			return;
	}
	if (imm && out->cls != SPGO_INSN_INDIRECT_JUMP && out->cls != SPGO_INSN_INDIRECT_CALL)
		out->target = (uint64_t)x->operands[0].imm;
}

static void classify_arm64(const cs_insn *in, struct spgo_insn *out)
{
	const cs_detail *d = in->detail;
	const cs_arm64 *a = &d->arm64;
	switch (in->id) {
	case ARM64_INS_RET:
	case ARM64_INS_ERET:
		out->cls = SPGO_INSN_RETURN;
		return;
	case ARM64_INS_BR:
		out->cls = SPGO_INSN_INDIRECT_JUMP;
		return;
	case ARM64_INS_BLR:
		out->cls = SPGO_INSN_INDIRECT_CALL;
		return;
	case ARM64_INS_BL:
		out->cls = SPGO_INSN_CALL;
		break;
	case ARM64_INS_BRK:
	case ARM64_INS_HLT:
		out->cls = SPGO_INSN_TRAP;
		return;
	case ARM64_INS_B:
		out->cls = a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL ? SPGO_INSN_JUMP : SPGO_INSN_COND_BRANCH;
		break;
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		out->cls = SPGO_INSN_COND_BRANCH;
		break;
	default:
		return;
	}
	for (int i = a->op_count - 1; i >= 0; i--)
		if (a->operands[i].type == ARM64_OP_IMM) {
			out->target = (uint64_t)a->operands[i].imm;
			break;
		}
}

/* Open capstone for the binary's machine; -1 with spgo_error if unsupported. */
static int open_capstone(struct spgo_binary *bin, csh *h)
{
	cs_arch arch;
	cs_mode mode;
	switch (bin->machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86, mode = CS_MODE_64;
		break;
	case EM_386:
		arch = CS_ARCH_X86, mode = CS_MODE_32;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64, mode = CS_MODE_ARM;
		break;
	default:
		return spgo_error("%s: cannot disassemble machine %u", bin->path, bin->machine);
	}
	if (cs_open(arch, mode, h) != CS_ERR_OK)
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

/*
 * Length of a VEX (c4, c5) or EVEX (62) encoded instruction in 64-bit
 * mode, or 0.  Capstone 4 does not know every AVX-512 instruction (kmov,
 * some mask compares), and skipping byte by byte would then make garbage
 * (a "ret" out of the middle of an instruction).  None of these is a
 * branch, so their length is all we need: prefix, opcode, ModRM, SIB,
 * displacement and the immediate of map 0F3A and of a few 0F opcodes.
 */
static size_t vex_length(const uint8_t *p, size_t n)
{
	size_t i;
	unsigned map;
	if (n >= 2 && p[0] == 0xc5) {
		map = 1, i = 2;
	} else if (n >= 3 && p[0] == 0xc4) {
		map = p[1] & 0x1f, i = 3;
	} else if (n >= 4 && p[0] == 0x62) {
		map = p[1] & 0x07, i = 4;
	} else {
		return 0;
	}
	if (map < 1 || map > 6 || map == 4 || i >= n)
		return 0;
	unsigned op = p[i++];
	if (map == 1 && op == 0x77 && p[0] != 0x62)
		return i; /* vzeroupper, vzeroall: no ModRM */
	if (i >= n)
		return 0;
	unsigned modrm = p[i++], mod = modrm >> 6, rm = modrm & 7;
	if (mod != 3 && rm == 4) {
		if (i >= n)
			return 0;
		unsigned sib = p[i++];
		if (mod == 0 && (sib & 7) == 5)
			i += 4;
	}
	if (mod == 0 && rm == 5)
		i += 4;
	else if (mod == 1)
		i += 1;
	else if (mod == 2)
		i += 4;
	if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))))
		i += 1;
	return i <= n ? i : 0;
}

/* Lengths of the x86-64 instructions capstone 4 may not decode. */
static size_t x86_fallback_length(const uint8_t *p, size_t n)
{
	/* 0f 01 with a register ModRM: system instructions of three bytes
	 * (rdpkru, wrpkru, xgetbv, xend, rdtscp, ...). */
	if (n >= 3 && p[0] == 0x0f && p[1] == 0x01 && p[2] >= 0xc0)
		return 3;
	return vex_length(p, n);
}

static void decode_range(struct spgo_binary *bin, csh h, cs_insn *in, const uint8_t *bytes, uint64_t addr,
			 uint64_t end)
{
	int arm = bin->machine == EM_AARCH64;
	while (addr < end) {
		const uint8_t *code = bytes;
		size_t size = (size_t)(end - addr);
		uint64_t a = addr;
		if (!cs_disasm_iter(h, &code, &size, &a, in)) {
			size_t vlen = arm || bin->machine != EM_X86_64 ? 0 : x86_fallback_length(bytes, (size_t)(end - addr));
			if (vlen) {
				struct spgo_insn v = {addr, 0, (uint8_t)vlen, SPGO_INSN_OTHER};
				VEC_PUSH(&bin->insns, v);
				bytes += vlen;
				addr += vlen;
				continue;
			}
			/* Undecodable: skip a byte (an AArch64 word). */
			size_t skip = arm ? 4 : 1;
			if (skip > end - addr)
				skip = (size_t)(end - addr);
			bytes += skip;
			addr += skip;
			continue;
		}
		struct spgo_insn out = {in->address, 0, (uint8_t)in->size, SPGO_INSN_OTHER};
		if (arm)
			classify_arm64(in, &out);
		else
			classify_x86(in, &out);
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
		for (size_t i = 0; i + 1 < cuts.n; i++) {
			if (cuts.v[i] == cuts.v[i + 1])
				continue;
			decode_range(bin, h, in, (const uint8_t *)data->d_buf + (cuts.v[i] - lo), cuts.v[i], cuts.v[i + 1]);
		}
	}
	VEC_FREE(&cuts);
	/* Sections come in header order; the table is by address. */
	if (bin->insns.n > 1)
		spgo_sort(bin->insns.v, bin->insns.n, sizeof *bin->insns.v, cmp_insn);
	cs_free(in, 1);
	cs_close(&h);
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
