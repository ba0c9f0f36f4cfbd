/*
 * AArch64 behind struct spgo_arch_ops: the instruction classes of
 * capstone's ARM64 decoder, the branch encodings capstone 4 does not know,
 * the PLT stub form, perf's register numbering
 * (arch/arm64/include/uapi/asm/perf_regs.h) and the 64 KiB page alignment
 * AArch64 linkers give load segments.
 *
 * Classes, as llvm-objdump names the mnemonics: B.cond, BC.cond, CBZ,
 * CBNZ, TBZ and TBNZ are conditional branches; B a jump, BL a call; BR
 * (and the pointer-authenticating BRAA, BRAB, BRAAZ, BRABZ) an indirect
 * jump, also `br x30`: like llvm-profgen, the class is the opcode's, not
 * the register's; BLR (BLRAA, ...) an indirect call; RET, RETAA, RETAB
 * (any register) and ERET returns; BRK, HLT and UDF traps.
 *
 * AArch64 instructions are one 32-bit word each.  Capstone 4 predates SVE,
 * MTE, some atomics, pointer authentication's branches and UDF: a word it
 * does not decode is still listed (falling through, so that ranges across
 * it stay whole), classified from its encoding when it is in the branch
 * or exception space (Arm ARM, "Branches, Exception Generating and System
 * instructions").
 *
 * Jump tables: gcc and clang dispatch through a table of offsets from a
 * base label, in units of 4 bytes:
 *     adrp xT, TABLE ; add xT, xT, :lo12:TABLE   (clang may hoist these)
 *     cmp wI, #N ; b.hi DEFAULT                  (gcc: b.ls to the table code)
 *     ldrb|ldrh|ldr wO, [xT, xI|wI, uxtw|lsl #s]
 *     adr xB, BASE ; add xR, xB, xO|wO, lsl|sxtb|sxth #2 ; br xR
 * clang's entries are unsigned, gcc's signed (its add says sxtb or sxth).
 * The instructions are found by walking back from the `br` through the
 * function (the nearest write of each register), the bound by the
 * compare of the index register
 * before the load or by a conditional branch to the block that loads it;
 * every target must be an instruction of the same function.
 *
 * PLT stubs: `[bti c] adrp x16, PAGE ; ldr x17, [x16, #OFF] ; add x16,
 * x16, #OFF ; br x17`, the GOT slot PAGE + OFF named by an
 * R_AARCH64_JUMP_SLOT or R_AARCH64_GLOB_DAT relocation.
 */
#include <capstone/capstone.h>
#include <gelf.h>
#include <string.h>

#include "binary/binary_impl.h"

#ifndef R_AARCH64_GLOB_DAT
#define R_AARCH64_GLOB_DAT 1025
#define R_AARCH64_JUMP_SLOT 1026
#endif

static void classify_arm64(const cs_insn *in, struct spgo_insn *out)
{
	const cs_detail *d = in->detail;
	const cs_arm64 *a = &d->arm64;
	if (in->id == ARM64_INS_NOP) /* padding: no opcode of the code's own */
		out->op = 0;
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

/* The signed field of `bits` bits at bit `lo` of w, times 4: a branch offset. */
static uint64_t branch_offset(uint32_t w, unsigned lo, unsigned bits)
{
	int64_t v = (int64_t)((w >> lo) & ((1u << bits) - 1));
	if (v & ((int64_t)1 << (bits - 1)))
		v -= (int64_t)1 << bits;
	return (uint64_t)(v * 4);
}

/*
 * A word capstone did not decode: its class and target from the encoding
 * where it is a branch or a trap, else "other".  Always one word.
 */
static size_t a64_undecoded(const uint8_t *p, size_t n, struct spgo_insn *out)
{
	if (n < 4)
		return 0;
	uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if ((w & 0x7c000000u) == 0x14000000u) { /* B, BL: imm26 */
		out->cls = w >> 31 ? SPGO_INSN_CALL : SPGO_INSN_JUMP;
		out->target = out->addr + branch_offset(w, 0, 26);
	} else if ((w & 0xff000000u) == 0x54000000u) { /* B.cond, BC.cond: imm19 */
		out->cls = SPGO_INSN_COND_BRANCH;
		out->target = out->addr + branch_offset(w, 5, 19);
	} else if ((w & 0x7e000000u) == 0x34000000u) { /* CBZ, CBNZ: imm19 */
		out->cls = SPGO_INSN_COND_BRANCH;
		out->target = out->addr + branch_offset(w, 5, 19);
	} else if ((w & 0x7e000000u) == 0x36000000u) { /* TBZ, TBNZ: imm14 */
		out->cls = SPGO_INSN_COND_BRANCH;
		out->target = out->addr + branch_offset(w, 5, 14);
	} else if ((w & 0xfe000000u) == 0xd6000000u && ((w >> 16) & 0x1f) == 0x1f) {
		/* Unconditional branch (register): opc in bits 24:21. */
		switch ((w >> 21) & 0xf) {
		case 0: case 8: out->cls = SPGO_INSN_INDIRECT_JUMP; break; /* BR, BRAA(Z), BRAB(Z) */
		case 1: case 9: out->cls = SPGO_INSN_INDIRECT_CALL; break; /* BLR, BLRAA(Z), ... */
		case 2: case 4: out->cls = SPGO_INSN_RETURN; break;        /* RET(AA|AB), ERET(AA|AB) */
		default: break;
		}
	} else if ((w >> 16) == 0 || (w & 0xffe0001fu) == 0xd4200000u || (w & 0xffe0001fu) == 0xd4400000u) {
		out->cls = SPGO_INSN_TRAP; /* UDF, BRK, HLT */
	}
	return 4;
}

/* The GOT slot of `[bti] adrp x16, P; ldr x17, [x16, #off]; add; br x17`. */
static uint64_t a64_plt_slot(struct spgo_binary *bin, uint64_t addr)
{
	uint64_t a = addr, page = 0, slot = 0;
	int state = 0; /* 0: adrp next (after hints); 1: ldr; 2: add or br */
	for (int i = 0; i < 5; i++, a += 4) {
		const cs_insn *in = spgo_cf_decode(bin, a);
		if (!in)
			return 0;
		const cs_arm64 *d = &in->detail->arm64;
		const cs_arm64_op *o0 = d->op_count > 0 ? &d->operands[0] : NULL;
		const cs_arm64_op *o1 = d->op_count > 1 ? &d->operands[1] : NULL;
		if (state == 0 && (in->id == ARM64_INS_HINT || in->id == ARM64_INS_NOP))
			continue; /* bti c */
		if (state == 0 && in->id == ARM64_INS_ADRP && o0 && o0->type == ARM64_OP_REG &&
		    o0->reg == ARM64_REG_X16 && o1 && o1->type == ARM64_OP_IMM) {
			page = (uint64_t)o1->imm;
			state = 1;
		} else if (state == 1 && in->id == ARM64_INS_LDR && o0 && o0->type == ARM64_OP_REG &&
			   o0->reg == ARM64_REG_X17 && o1 && o1->type == ARM64_OP_MEM && o1->mem.base == ARM64_REG_X16 &&
			   o1->mem.index == ARM64_REG_INVALID) {
			slot = page + (uint64_t)(int64_t)o1->mem.disp;
			state = 2;
		} else if (state == 2 && (in->id == ARM64_INS_ADD || in->id == ARM64_INS_HINT)) {
			continue; /* add x16, x16, #off; autia1716 */
		} else if (state == 2 && in->id == ARM64_INS_BR && o0 && o0->type == ARM64_OP_REG &&
			   o0->reg == ARM64_REG_X17) {
			return slot;
		} else {
			return 0;
		}
	}
	return 0;
}

/* ---- jump tables ---------------------------------------------------------------------- */

#define A64_MAX_ENTRIES 4096
#define A64_SCAN 4096 /* instructions walked back from the br */

/* Register family: 1 + n for wn and xn (x29 fp, x30 lr), else 0. */
static int a64_family(unsigned r)
{
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0) + 1;
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0) + 1;
	if (r == ARM64_REG_X29)
		return 30;
	if (r == ARM64_REG_X30)
		return 31;
	return 0;
}

/* What the walk needs of one instruction, copied: spgo_cf_decode()
 * decodes into one buffer, which the next call overwrites. */
struct a64_ins {
	unsigned id;
	arm64_cc cc;
	uint8_t n;
	cs_arm64_op op[4];
};

static int a64_decode(struct spgo_binary *bin, uint64_t addr, struct a64_ins *out)
{
	const cs_insn *in = spgo_cf_decode(bin, addr);
	if (!in)
		return -1;
	const cs_arm64 *a = &in->detail->arm64;
	out->id = in->id;
	out->cc = a->cc;
	out->n = a->op_count < 4 ? a->op_count : 4;
	memcpy(out->op, a->operands, out->n * sizeof *out->op);
	return 0;
}

static const cs_arm64_op *a64_op(const struct a64_ins *in, int i)
{
	return i < in->n ? &in->op[i] : NULL;
}

static int a64_is_reg(const cs_arm64_op *o, int f)
{
	return o && o->type == ARM64_OP_REG && f && a64_family(o->reg) == f;
}

static int a64_is_imm(const cs_arm64_op *o)
{
	return o && o->type == ARM64_OP_IMM;
}

/* Does in write register family f?  The destination is the first operand
 * but for stores, compares and branches; a load pair writes two.  Calls
 * are not taken as writes: the walk back is blind to paths, and a call
 * on a path that does not reach the jump (gcc's call of a noreturn error
 * function on the default path) must not hide the table's definition; a
 * wrong definition gives targets outside the function, which are
 * refused. */
static int a64_writes(const struct a64_ins *in, int f)
{
	switch (in->id) {
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
	case ARM64_INS_STR: case ARM64_INS_STRB: case ARM64_INS_STRH: case ARM64_INS_STP:
	case ARM64_INS_STUR: case ARM64_INS_STURB: case ARM64_INS_STURH: case ARM64_INS_STNP:
	case ARM64_INS_STLR: case ARM64_INS_STLRB: case ARM64_INS_STLRH:
	case ARM64_INS_CMP: case ARM64_INS_CMN: case ARM64_INS_TST: case ARM64_INS_CCMP: case ARM64_INS_CCMN:
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
	case ARM64_INS_B: case ARM64_INS_BR: case ARM64_INS_RET:
		return 0;
	case ARM64_INS_LDP: case ARM64_INS_LDPSW: case ARM64_INS_LDNP:
		return a64_is_reg(a64_op(in, 0), f) || a64_is_reg(a64_op(in, 1), f);
	default:
		return a64_is_reg(a64_op(in, 0), f);
	}
}

/* The nearest instruction before index j (down to lo) that writes family
 * f, copied into *out: its index in the table, or -1.  Stops at an
 * undecodable one. */
static long a64_def(struct spgo_binary *bin, size_t j, uint64_t lo, int f, struct a64_ins *out)
{
	const struct spgo_insn *v = bin->insns.v;
	for (size_t k = 0; f && j > 0 && k < A64_SCAN && v[j - 1].addr >= lo; k++, j--) {
		if (a64_decode(bin, v[j - 1].addr, out) < 0)
			return -1;
		if (a64_writes(out, f))
			return (long)j - 1;
	}
	return -1;
}

/* The bound (entries) from `cmp wI, #N` and the conditional branch after
 * it: b.hi to the default (N + 1 entries), b.ls to the table. */
static uint64_t a64_bound_at(struct spgo_binary *bin, uint64_t cmp_addr, int idx, int to_table)
{
	struct a64_ins c, b;
	if (a64_decode(bin, cmp_addr, &c) < 0 || c.id != ARM64_INS_CMP || !a64_is_reg(a64_op(&c, 0), idx))
		return 0;
	const cs_arm64_op *imm = a64_op(&c, 1);
	if (!a64_is_imm(imm) || imm->imm < 0 || imm->imm >= A64_MAX_ENTRIES || imm->shift.value)
		return 0;
	if (a64_decode(bin, cmp_addr + 4, &b) < 0 || b.id != ARM64_INS_B)
		return 0;
	if ((!to_table && b.cc == ARM64_CC_HI) || (to_table && b.cc == ARM64_CC_LS))
		return (uint64_t)imm->imm + 1;
	if ((!to_table && b.cc == ARM64_CC_HS) || (to_table && b.cc == ARM64_CC_LO))
		return (uint64_t)imm->imm;
	return 0;
}

/* The bound of index family idx for the load at index jl: a compare of
 * it in the straight-line code before the load, else one before a
 * conditional branch to the start of that code. */
static uint64_t a64_bound(struct spgo_binary *bin, size_t jl, uint64_t lo, int idx)
{
	const struct spgo_insn *v = bin->insns.v;
	size_t j = jl;
	struct a64_ins in;
	for (size_t k = 0; j > 0 && k < 64 && v[j - 1].addr >= lo; k++, j--) {
		const struct spgo_insn *p = &v[j - 1];
		if (p->cls == SPGO_INSN_COND_BRANCH && j >= 2) {
			/* b.ls forward to the load (gcc), or b.hi away (clang) */
			int to_table = p->target > p->addr && p->target <= v[jl].addr;
			uint64_t n = a64_bound_at(bin, v[j - 2].addr, idx, to_table);
			if (n)
				return n;
		}
		if (a64_decode(bin, p->addr, &in) < 0)
			return 0;
		if (a64_writes(&in, idx))
			break;
		/* the start of the block: below, a branch to it */
		if (p->cls == SPGO_INSN_RETURN || p->cls == SPGO_INSN_JUMP || p->cls == SPGO_INSN_INDIRECT_JUMP ||
		    p->cls == SPGO_INSN_TRAP)
			break;
	}
	/* gcc: `cmp wI, #N; b.ls TABLE_CODE` with the default as fall-through */
	uint64_t start = v[j].addr;
	const struct spgo_insn *first = spgo_binary_insn_at(bin, lo);
	for (size_t i = first ? (size_t)(first - v) : j; i < jl; i++)
		if (v[i].addr >= lo + 4 && v[i].cls == SPGO_INSN_COND_BRANCH && v[i].target == start) {
			uint64_t n = a64_bound_at(bin, v[i].addr - 4, idx, 1);
			if (n)
				return n;
		}
	return 0;
}

/* The table's address: `adrp xT, PAGE; add xT, xT, #lo12`, or `adr xT,
 * TABLE` when it is near (as lld relaxes the pair); 0 if neither. */
static uint64_t a64_table(struct spgo_binary *bin, size_t jl, uint64_t lo, int ft)
{
	struct a64_ins t, p;
	long jt = a64_def(bin, jl, lo, ft, &t);
	if (jt < 0)
		return 0;
	if (t.id == ARM64_INS_ADR && a64_is_imm(a64_op(&t, 1)))
		return (uint64_t)a64_op(&t, 1)->imm;
	if (t.id != ARM64_INS_ADD || !a64_is_reg(a64_op(&t, 1), ft) || !a64_is_imm(a64_op(&t, 2)))
		return 0;
	uint64_t lo12 = (uint64_t)a64_op(&t, 2)->imm;
	if (a64_def(bin, (size_t)jt, lo, ft, &p) < 0 || p.id != ARM64_INS_ADRP || !a64_is_imm(a64_op(&p, 1)))
		return 0;
	return (uint64_t)a64_op(&p, 1)->imm + lo12;
}

static int a64_jump_table(struct spgo_binary *bin, const struct spgo_insn *jmp, uint64_t *targets, size_t max)
{
	const struct spgo_function *fn = spgo_binary_function_at(bin, jmp->addr);
	if (!fn)
		return -1;
	uint64_t lo = fn->start;
	long root = spgo_cf_root_of(bin, jmp->addr);
	size_t jj = (size_t)(jmp - bin->insns.v);
	struct a64_ins br, a, b, l;
	if (a64_decode(bin, jmp->addr, &br) < 0 || br.id != ARM64_INS_BR || !a64_op(&br, 0))
		return -1;
	/* add xR, xB, xO|wO, lsl|sxtb|sxth #2 */
	long ja = a64_def(bin, jj, lo, a64_family(a64_op(&br, 0)->reg), &a);
	if (ja < 0 || a.id != ARM64_INS_ADD || a.n != 3 || a.op[1].type != ARM64_OP_REG || a.op[2].type != ARM64_OP_REG)
		return -1;
	const cs_arm64_op *oo = &a.op[2];
	int sgn = oo->ext == ARM64_EXT_SXTB || oo->ext == ARM64_EXT_SXTH || oo->ext == ARM64_EXT_SXTW;
	if (oo->shift.value != 2 || (oo->ext != ARM64_EXT_INVALID && !sgn && oo->ext != ARM64_EXT_UXTW))
		return -1;
	/* adr xB, BASE */
	if (a64_def(bin, (size_t)ja, lo, a64_family(a.op[1].reg), &b) < 0 || b.id != ARM64_INS_ADR ||
	    !a64_is_imm(a64_op(&b, 1)))
		return -1;
	uint64_t base = (uint64_t)b.op[1].imm;
	/* ldrb|ldrh|ldr wO, [xT, xI, ...] */
	long jl = a64_def(bin, (size_t)ja, lo, a64_family(oo->reg), &l);
	if (jl < 0)
		return -1;
	size_t esize = l.id == ARM64_INS_LDRB ? 1 : l.id == ARM64_INS_LDRH ? 2 : l.id == ARM64_INS_LDR ? 4 : 0;
	const cs_arm64_op *m = a64_op(&l, 1);
	if (!esize || !m || m->type != ARM64_OP_MEM || m->mem.index == ARM64_REG_INVALID || m->mem.disp)
		return -1;
	int ft = a64_family(m->mem.base), fi = a64_family(m->mem.index);
	uint64_t table = ft ? a64_table(bin, (size_t)jl, lo, ft) : 0;
	uint64_t nent = table && fi ? a64_bound(bin, (size_t)jl, lo, fi) : 0;
	if (!nent)
		return -1;
	const uint8_t *p = spgo_vaddr_bytes(bin, table, (size_t)nent * esize);
	if (!p)
		return -1;
	for (uint64_t e = 0; e < nent; e++) {
		int64_t off;
		if (esize == 1) {
			off = sgn ? (int8_t)p[e] : (int64_t)p[e];
		} else if (esize == 2) {
			uint16_t h;
			memcpy(&h, p + 2 * e, 2);
			off = sgn ? (int16_t)h : (int64_t)h;
		} else {
			int32_t w;
			memcpy(&w, p + 4 * e, 4);
			off = sgn ? w : (int64_t)(uint32_t)w;
		}
		uint64_t t = base + (uint64_t)(off * 4);
		if (!spgo_binary_insn_at(bin, t) || (root >= 0 && spgo_cf_root_of(bin, t) != root))
			return -1;
		if (e < max)
			targets[e] = t;
	}
	return (int)nent;
}

/* perf's arm64 user register index of DWARF register r: x0..x30 and sp
 * (31) are numbered alike in both. */
static int a64_perf_reg_of_dwarf(unsigned r)
{
	return r <= 31 ? (int)r : -1;
}

const struct spgo_arch_ops spgo_arch_aarch64 = {
	.machine = EM_AARCH64,
	.name = "AArch64",
	.supported = 1,
	.perf_arch = "aarch64",
	.cs_arch = CS_ARCH_ARM64,
	.cs_mode = CS_MODE_ARM,
	.insn_align = 4,
	.max_insn = 4,
	.max_page = 65536,
	.classify = classify_arm64,
	.undecoded = a64_undecoded,
	.plt_slot = a64_plt_slot,
	.jump_table = a64_jump_table,
	.reloc_jump_slot = R_AARCH64_JUMP_SLOT,
	.reloc_glob_dat = R_AARCH64_GLOB_DAT,
	.noreturn_analysis = 1,
	/* perf_regs.h: x0..x29, lr 30, sp 31, pc 32.  The return address is
	 * in x30 after a call: the CFI says where a callee saves it. */
	.regs = {.perf_sp = 31, .perf_fp = 29, .perf_ip = 32, .perf_lr = 30,
		 .dwarf_sp = 31, .dwarf_fp = 29, .dwarf_ra = 30,
		 .ra_cfa_offset = 0, .call_min = 4, .call_max = 4},
	.perf_reg_of_dwarf = a64_perf_reg_of_dwarf,
};
