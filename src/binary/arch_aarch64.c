/*
 * AArch64 behind struct spgo_arch_ops: the instruction classes of
 * capstone's ARM64 decoder.
 */
#include <capstone/capstone.h>
#include <gelf.h>

#include "binary/binary_impl.h"

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

const struct spgo_arch_ops spgo_arch_aarch64 = {
	.machine = EM_AARCH64,
	.name = "AArch64",
	.cs_arch = CS_ARCH_ARM64,
	.cs_mode = CS_MODE_ARM,
	.insn_align = 4,
	.max_insn = 4,
	.max_page = 65536,
	.classify = classify_arm64,
	.regs = {.perf_sp = -1, .perf_fp = -1, .perf_ip = -1, .perf_lr = -1},
};
