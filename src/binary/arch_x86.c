/*
 * x86-64 (and i386, for disassembly only) behind struct spgo_arch_ops: the
 * instruction classes of capstone's x86 decoder, the lengths of the VEX and
 * EVEX instructions capstone 4 does not know, the switch-table and
 * tail-call patterns of gcc and clang, the PLT stub form, and perf's
 * register numbering (arch/x86/include/uapi/asm/perf_regs.h).
 *
 * Jump tables.  The instructions before an indirect jump are decoded again,
 * with capstone's operand details (cflow.c's spgo_cf_decode()), and matched
 * against the patterns gcc and clang emit for a switch:
 *
 *   absolute (non-PIE)    jmp *TABLE(,%idx,8)
 *                         or  mov TABLE(,%idx,8),%r ; jmp *%r
 *   relative (PIE, pic)   lea TABLE(%rip),%base
 *                         movslq (%base,%idx,4),%r ; add %base,%r ; jmp *%r
 *
 * The number of entries comes from the bound check that precedes the
 * dispatch in straight-line code: `cmp $N,%idx` followed by ja/jbe (N + 1
 * entries) or jae/jb (N entries), the index possibly copied or
 * zero-extended on the way (mov, movzx, movsxd).  A table is accepted only
 * when every entry lands on an instruction of the same function (or one of
 * its split parts); otherwise the answer is "unknown".
 *
 * PLT stubs: `[endbr64] [bnd] jmp *SLOT(%rip)`, the slot named by an
 * R_X86_64_JUMP_SLOT or R_X86_64_GLOB_DAT relocation.
 */
#include <capstone/capstone.h>
#include <gelf.h>
#include <string.h>

#include "binary/binary_impl.h"

#define MAX_ENTRIES 65536 /* larger bounds are not believed */

/* ---- instruction classes ------------------------------------------------------ */

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
	if (in->id == X86_INS_NOP) /* padding: no opcode of the code's own */
		out->op = 0;
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

/* Lengths of the x86-64 instructions capstone 4 may not decode (none of
 * them a branch: *out stays "other"). */
static size_t x86_fallback_length(const uint8_t *p, size_t n, struct spgo_insn *out)
{
	(void)out;
	/* 0f 01 with a register ModRM: system instructions of three bytes
	 * (rdpkru, wrpkru, xgetbv, xend, rdtscp, ...). */
	if (n >= 3 && p[0] == 0x0f && p[1] == 0x01 && p[2] >= 0xc0)
		return 3;
	return vex_length(p, n);
}

/* ---- registers --------------------------------------------------------------- */

/* The 64-bit register family of an x86 general register (1..16), else 0. */
static int family(unsigned r)
{
	switch (r) {
	case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: case X86_REG_EAX: case X86_REG_RAX: return 1;
	case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: case X86_REG_EBX: case X86_REG_RBX: return 2;
	case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: case X86_REG_ECX: case X86_REG_RCX: return 3;
	case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: case X86_REG_EDX: case X86_REG_RDX: return 4;
	case X86_REG_SIL: case X86_REG_SI: case X86_REG_ESI: case X86_REG_RSI: return 5;
	case X86_REG_DIL: case X86_REG_DI: case X86_REG_EDI: case X86_REG_RDI: return 6;
	case X86_REG_BPL: case X86_REG_BP: case X86_REG_EBP: case X86_REG_RBP: return 7;
	case X86_REG_SPL: case X86_REG_SP: case X86_REG_ESP: case X86_REG_RSP: return 8;
	case X86_REG_R8B: case X86_REG_R8W: case X86_REG_R8D: case X86_REG_R8: return 9;
	case X86_REG_R9B: case X86_REG_R9W: case X86_REG_R9D: case X86_REG_R9: return 10;
	case X86_REG_R10B: case X86_REG_R10W: case X86_REG_R10D: case X86_REG_R10: return 11;
	case X86_REG_R11B: case X86_REG_R11W: case X86_REG_R11D: case X86_REG_R11: return 12;
	case X86_REG_R12B: case X86_REG_R12W: case X86_REG_R12D: case X86_REG_R12: return 13;
	case X86_REG_R13B: case X86_REG_R13W: case X86_REG_R13D: case X86_REG_R13: return 14;
	case X86_REG_R14B: case X86_REG_R14W: case X86_REG_R14D: case X86_REG_R14: return 15;
	case X86_REG_R15B: case X86_REG_R15W: case X86_REG_R15D: case X86_REG_R15: return 16;
	default: return 0;
	}
}

/* 1 if the instruction writes register family f (explicitly or not). */
static int writes(struct spgo_binary *bin, const cs_insn *in, int f)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	if (f == 0)
		return 0;
	if (cs_regs_access((csh)bin->cf_cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return 1;
	for (unsigned i = 0; i < nwr; i++)
		if (family(wr[i]) == f)
			return 1;
	return 0;
}

static const cs_x86_op *op(const cs_insn *in, int i)
{
	return i < in->detail->x86.op_count ? &in->detail->x86.operands[i] : NULL;
}

static int is_reg(const cs_x86_op *o)
{
	return o && o->type == X86_OP_REG;
}

/* perf's x86-64 user register index of DWARF register r (rax rdx rcx rbx
 * rsi rdi rbp rsp r8..r15), or -1. */
static int perf_reg_of_dwarf(unsigned r)
{
	static const int map[8] = {0, 3, 2, 1, 4, 5, 6, 7};
	if (r < 8)
		return map[r];
	if (r < 16)
		return 16 + (int)(r - 8);
	return -1;
}

/* ---- jump tables --------------------------------------------------------------- */

static int same_mem(const x86_op_mem *a, const x86_op_mem *b)
{
	return a->segment == b->segment && a->base == b->base && a->index == b->index && a->scale == b->scale &&
	       a->disp == b->disp;
}

/*
 * The number of entries from the bound check of index family idx in the
 * window, or 0 if none is found.  The index may have been copied from
 * another register or loaded from memory (`cmpb $N,M; ja; movzbl M,%idx`).
 */
static uint64_t find_bound(struct spgo_binary *bin, const uint64_t *addrs, size_t k0, size_t n, int idx,
			   int *masked)
{
	*masked = 0;
	x86_op_mem mem = {0}; /* tracked memory operand, when idx < 0 */
	for (size_t k = k0; k < n; k++) {
		const cs_insn *in = spgo_cf_decode(bin, addrs[k]);
		if (!in)
			return 0;
		const cs_x86_op *o0 = op(in, 0), *o1 = op(in, 1);
		int match = idx > 0 ? is_reg(o0) && family(o0->reg) == idx
				    : o0 && o0->type == X86_OP_MEM && same_mem(&o0->mem, &mem);
		if (in->id == X86_INS_CMP && match && o1 && o1->type == X86_OP_IMM) {
			int64_t imm = o1->imm;
			/* The conditional branch right after it (nearer the jump). */
			if (k == 0 || imm < 0 || imm >= MAX_ENTRIES)
				return 0;
			const cs_insn *br = spgo_cf_decode(bin, addrs[k - 1]);
			if (!br)
				return 0;
			switch (br->id) {
			case X86_INS_JA:
			case X86_INS_JBE:
				return (uint64_t)imm + 1;
			case X86_INS_JAE:
			case X86_INS_JB:
				return (uint64_t)imm;
			default:
				return 0;
			}
		}
		if (idx < 0) {
			/* A store or call may change the memory: give up. */
			if (in->id == X86_INS_CALL || (o0 && o0->type == X86_OP_MEM && (o0->access & CS_AC_WRITE)))
				return 0;
			continue;
		}
		if (!writes(bin, in, idx))
			continue;
		int copy = in->id == X86_INS_MOV || in->id == X86_INS_MOVZX || in->id == X86_INS_MOVSXD ||
			   in->id == X86_INS_MOVSX;
		/* The index copied or extended from another register ... */
		if (copy && match && is_reg(o1) && family(o1->reg)) {
			idx = family(o1->reg);
			continue;
		}
		/* ... or loaded from memory. */
		if (copy && match && o1 && o1->type == X86_OP_MEM) {
			mem = o1->mem;
			idx = -1;
			continue;
		}
		if (in->id == X86_INS_AND && match && o1 && o1->type == X86_OP_IMM && o1->imm >= 0 &&
		    o1->imm < MAX_ENTRIES && ((o1->imm + 1) & o1->imm) == 0) {
			*masked = 1; /* idx & (2^k - 1): at most, the table may be shorter */
			return (uint64_t)o1->imm + 1;
		}
		return 0;
	}
	return 0;
}

/*
 * Walk back from `jmp *%r` (r's family) to the definition of r: the table
 * load of an absolute table, or the movslq/add/lea of a relative one.
 * Sets *table, *idx, *relative and *k0 (where in the window the index is
 * last used); -1 when the pattern is not there.
 */
static int find_table_load(struct spgo_binary *bin, const uint64_t *addrs, size_t n, int r, uint64_t *table,
			   int *idx, int *relative, size_t *k0)
{
	int s = 0, base = 0;
	int state = 0; /* 0: def of r; 1: movslq into r or s; 2: lea of base */
	for (size_t k = 0; k < n; k++) {
		const cs_insn *d = spgo_cf_decode(bin, addrs[k]);
		if (!d)
			return -1;
		const cs_x86_op *d0 = op(d, 0), *d1 = op(d, 1);
		if (state == 0) {
			if (!writes(bin, d, r))
				continue;
			if (d->id == X86_INS_ADD && is_reg(d0) && is_reg(d1) && family(d0->reg) == r &&
			    family(d1->reg)) {
				s = family(d1->reg);
				state = 1;
				continue;
			}
			if (d->id == X86_INS_MOV && is_reg(d0) && d1 && d1->type == X86_OP_MEM &&
			    d1->mem.base == X86_REG_INVALID && d1->mem.scale == 8 && family(d1->mem.index)) {
				*table = (uint64_t)d1->mem.disp;
				*idx = family(d1->mem.index);
				*k0 = k + 1;
				return 0;
			}
			return -1;
		} else if (state == 1) {
			int wr = writes(bin, d, r), ws = writes(bin, d, s);
			if (!wr && !ws)
				continue;
			if (d->id == X86_INS_MOVSXD && is_reg(d0) && d1 && d1->type == X86_OP_MEM &&
			    d1->mem.scale == 4 && d1->mem.disp == 0 && family(d1->mem.index)) {
				int dst = family(d0->reg), b = family(d1->mem.base);
				if ((dst == r && b == s) || (dst == s && b == r)) {
					base = b;
					*idx = family(d1->mem.index);
					*k0 = k + 1;
					state = 2;
					continue;
				}
			}
			return -1;
		} else {
			if (!writes(bin, d, base))
				continue;
			if (d->id == X86_INS_LEA && is_reg(d0) && family(d0->reg) == base && d1 &&
			    d1->type == X86_OP_MEM && d1->mem.base == X86_REG_RIP && d1->mem.index == X86_REG_INVALID) {
				*table = d->address + d->size + (uint64_t)d1->mem.disp;
				*relative = 1;
				return 0;
			}
			return -1;
		}
	}
	return -1;
}

/* The table an indirect jump reads (absolute `jmp *T(,%i,8)` or through a
 * register loaded from one), or 0; *relative for 4-byte offsets. */
static uint64_t table_of(struct spgo_binary *bin, const struct spgo_insn *jmp, int *relative, int *idx, size_t *k0)
{
	const struct spgo_function *fn = spgo_binary_function_at(bin, jmp->addr);
	uint64_t addrs[SPGO_CF_WINDOW], table = 0;
	size_t n = spgo_cf_window(bin, (size_t)(jmp - bin->insns.v), fn ? fn->start : 0, addrs);
	const cs_insn *in = spgo_cf_decode(bin, jmp->addr);
	const cs_x86_op *o = in ? op(in, 0) : NULL;
	*relative = 0, *idx = 0, *k0 = 0;
	if (o && o->type == X86_OP_MEM && o->mem.base == X86_REG_INVALID && o->mem.scale == 8 &&
	    family(o->mem.index)) {
		*idx = family(o->mem.index);
		return (uint64_t)o->mem.disp;
	}
	if (is_reg(o) && family(o->reg) &&
	    find_table_load(bin, addrs, n, family(o->reg), &table, idx, relative, k0) == 0)
		return table;
	return 0;
}

/*
 * The entries of a table whose bound check is not in the straight-line
 * code before the jump (clang moves `cmp; ja` into a block of its own that
 * jumps to the dispatch): as BOLT reads a table, entries while each is an
 * instruction of the jump's function, up to the next table another
 * indirect jump of that function reads.  0 if there is none.
 */
static uint64_t bound_by_contents(struct spgo_binary *bin, const struct spgo_insn *jmp, uint64_t table,
				  int relative)
{
	const struct spgo_function *fn = spgo_binary_function_at(bin, jmp->addr);
	if (!fn)
		return 0;
	long root = spgo_cf_root_of(bin, jmp->addr);
	size_t ni, esize = relative ? 4 : 8;
	const struct spgo_insn *insns = spgo_binary_insns(bin, &ni);
	uint64_t limit = table + MAX_ENTRIES * esize;
	size_t i = (size_t)(jmp - insns);
	while (i > 0 && insns[i - 1].addr >= fn->start)
		i--;
	for (; i < ni && insns[i].addr < fn->end; i++) {
		int rel, ix;
		size_t k0;
		uint64_t t;
		if (insns[i].cls == SPGO_INSN_INDIRECT_JUMP && &insns[i] != jmp &&
		    (t = table_of(bin, &insns[i], &rel, &ix, &k0)) > table && t < limit)
			limit = t;
	}
	uint64_t e = 0;
	for (; table + (e + 1) * esize <= limit; e++) {
		const uint8_t *p = spgo_vaddr_bytes(bin, table + e * esize, esize);
		uint64_t t;
		if (!p)
			break;
		if (relative) {
			int32_t v;
			memcpy(&v, p, 4);
			t = table + (uint64_t)(int64_t)v;
		} else {
			memcpy(&t, p, 8);
		}
		if (!spgo_binary_insn_at(bin, t) || spgo_cf_root_of(bin, t) != root)
			break;
	}
	return e;
}

static int x86_jump_table(struct spgo_binary *bin, const struct spgo_insn *jmp, uint64_t *targets, size_t max)
{
	const struct spgo_function *fn = spgo_binary_function_at(bin, jmp->addr);
	long root = spgo_cf_root_of(bin, jmp->addr);
	uint64_t addrs[SPGO_CF_WINDOW];
	size_t n = spgo_cf_window(bin, (size_t)(jmp - bin->insns.v), fn ? fn->start : 0, addrs);
	int idx, relative;
	size_t k0; /* where in the window the index is last used */
	uint64_t table = table_of(bin, jmp, &relative, &idx, &k0);
	if (!table)
		return -1;
	/* The bound: searched back from the load of the table entry. */
	int mask;
	uint64_t nent = find_bound(bin, addrs, k0, n, idx, &mask);
	if (nent == 0 || mask) {
		/* no check, or only a mask: the bound is the table's contents */
		uint64_t c = bound_by_contents(bin, jmp, table, relative);
		nent = mask && c > nent ? nent : c;
	}
	if (nent == 0)
		return -1;
	size_t esize = relative ? 4 : 8;
	const uint8_t *p = spgo_vaddr_bytes(bin, table, (size_t)nent * esize);
	if (!p)
		return -1;
	for (uint64_t e = 0; e < nent; e++) {
		uint64_t t;
		if (relative) {
			int32_t v;
			memcpy(&v, p + e * 4, 4);
			t = table + (uint64_t)(int64_t)v;
		} else {
			memcpy(&t, p + e * 8, 8);
		}
		if (!spgo_binary_insn_at(bin, t) || (root >= 0 && spgo_cf_root_of(bin, t) != root))
			return -1;
		if (e < max)
			targets[e] = t;
	}
	return (int)nent;
}

/*
 * A tail call through a pointer: `jmp *off(%base)` / `jmp *off(%rip)` (no
 * index register), or `jmp *%r` where %r was last loaded from such memory
 * in the straight-line code before it (`mov off(%rdi),%rax; jmp *%rax`).
 */
static int x86_is_tail_call(struct spgo_binary *bin, const struct spgo_insn *jmp)
{
	uint64_t insn_addr = jmp->addr, t;
	if (spgo_binary_jump_table(bin, insn_addr, &t, 1) >= 0)
		return 0;
	const struct spgo_function *fn = spgo_binary_function_at(bin, insn_addr);
	uint64_t addrs[SPGO_CF_WINDOW];
	size_t n = spgo_cf_window(bin, (size_t)(jmp - bin->insns.v), fn ? fn->start : 0, addrs);
	const cs_insn *in = spgo_cf_decode(bin, insn_addr);
	if (!in)
		return 0;
	const cs_x86_op *o = op(in, 0);
	if (o && o->type == X86_OP_MEM)
		return o->mem.index == X86_REG_INVALID && o->mem.base != X86_REG_INVALID;
	if (!is_reg(o) || !family(o->reg))
		return 0;
	int r = family(o->reg);
	for (size_t k = 0; k < n; k++) {
		const cs_insn *d = spgo_cf_decode(bin, addrs[k]);
		if (!d)
			return 0;
		if (!writes(bin, d, r))
			continue;
		const cs_x86_op *d0 = op(d, 0), *d1 = op(d, 1);
		return d->id == X86_INS_MOV && is_reg(d0) && family(d0->reg) == r && d1 && d1->type == X86_OP_MEM &&
		       d1->mem.index == X86_REG_INVALID && d1->mem.base != X86_REG_INVALID;
	}
	return 0;
}

/* ---- PLT stubs ------------------------------------------------------------------ */

/* endbr64 / bnd prefixes first, then jmp *slot(%rip). */
static uint64_t x86_plt_slot(struct spgo_binary *bin, uint64_t addr)
{
	uint64_t a = addr;
	for (int i = 0; i < 3; i++) {
		const cs_insn *in = spgo_cf_decode(bin, a);
		if (!in)
			return 0;
		const cs_x86_op *o = op(in, 0);
		if (in->id == X86_INS_JMP) {
			if (!o || o->type != X86_OP_MEM || o->mem.base != X86_REG_RIP)
				return 0;
			return in->address + in->size + (uint64_t)o->mem.disp;
		}
		if (in->id != X86_INS_ENDBR64 && in->id != X86_INS_NOP)
			return 0;
		a += in->size;
	}
	return 0;
}

/* ---- the ops ------------------------------------------------------------------- */

const struct spgo_arch_ops spgo_arch_x86_64 = {
	.machine = EM_X86_64,
	.name = "x86-64",
	.supported = 1,
	.perf_arch = "x86_64",
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_64,
	.insn_align = 1,
	.max_insn = 15,
	.max_page = 4096,
	.classify = classify_x86,
	.undecoded = x86_fallback_length,
	.jump_table = x86_jump_table,
	.is_tail_call = x86_is_tail_call,
	.plt_slot = x86_plt_slot,
	.reloc_jump_slot = R_X86_64_JUMP_SLOT,
	.reloc_glob_dat = R_X86_64_GLOB_DAT,
	.noreturn_analysis = 1,
	/* perf_regs.h: AX BX CX DX SI DI BP SP IP ...; DWARF: rsp 7, rbp 6,
	 * the return address column 16. */
	.regs = {.perf_sp = 7, .perf_fp = 6, .perf_ip = 8, .perf_lr = -1,
		 .dwarf_sp = 7, .dwarf_fp = 6, .dwarf_ra = 16,
		 .ra_cfa_offset = -8, .call_min = 2, .call_max = 7},
	.perf_reg_of_dwarf = perf_reg_of_dwarf,
};

/* i386: decoded and classified for the instruction table only. */
const struct spgo_arch_ops spgo_arch_i386 = {
	.machine = EM_386,
	.name = "i386",
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_32,
	.insn_align = 1,
	.max_insn = 15,
	.max_page = 4096,
	.classify = classify_x86,
	.regs = {.perf_sp = -1, .perf_fp = -1, .perf_ip = -1, .perf_lr = -1},
};
