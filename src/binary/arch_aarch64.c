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
 * Jump tables: gcc and clang dispatch through `adr`/`ldrb|ldrh` of
 * relative offsets and `br`; not recovered yet (the answer is "unknown").
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
