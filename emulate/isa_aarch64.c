/*
 * isa_aarch64.c: AArch64 for the QEMU plugin (isa.h).
 *
 * Every instruction is one little-endian 32-bit word; the branch classes
 * come from the encoding groups of the Arm ARM ("Branches, Exception
 * Generating and System instructions"), with the classes spgo's binary
 * model gives (src/binary/arch_aarch64.c, llvm-objdump's mnemonics):
 *   B, B.AL                    jump         BL               call
 *   B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ   conditional
 *   BR, BRAA, BRAAZ, BRAB, BRABZ            indirect jump (also `br x30`)
 *   BLR, BLRAA, BLRAAZ, BLRAB, BLRABZ       indirect call
 *   RET, RETAA, RETAB (any register)        return
 *   SVC                                      system call
 * A call pushes the address after it (BL/BLR write x30), a return pops:
 * what the frame records of the x29 chain hold when every function keeps
 * one.  Linux's generic system call numbers (include/uapi/asm-generic/
 * unistd.h): there is no fork or vfork, only clone and clone3.
 */
#include "isa.h"
#include "trace.h"

uint8_t emu_classify_aarch64(const uint8_t *b, size_t n)
{
	if (n < 4)
		return EMU_CLS_OTHER;
	uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	if ((w & 0x7c000000u) == 0x14000000u) /* B, BL (imm26) */
		return w >> 31 ? EMU_CLS_CALL : EMU_CLS_JUMP;
	if ((w & 0xff00001fu) == 0x5400000eu) /* B.AL: always taken, a jump (as capstone says) */
		return EMU_CLS_JUMP;
	if ((w & 0xff000000u) == 0x54000000u) /* B.cond, BC.cond (imm19) */
		return EMU_CLS_COND;
	if ((w & 0x7e000000u) == 0x34000000u) /* CBZ, CBNZ (imm19) */
		return EMU_CLS_COND;
	if ((w & 0x7e000000u) == 0x36000000u) /* TBZ, TBNZ (imm14) */
		return EMU_CLS_COND;
	if ((w & 0xfe000000u) == 0xd6000000u && ((w >> 16) & 0x1f) == 0x1f) {
		/* Unconditional branch (register): opc in bits 24:21. */
		switch ((w >> 21) & 0xf) {
		case 0: case 8: return EMU_CLS_IJUMP; /* BR, BRAA(Z), BRAB(Z) */
		case 1: case 9: return EMU_CLS_ICALL; /* BLR, BLRAA(Z), BLRAB(Z) */
		case 2: case 4: return EMU_CLS_RET;  /* RET, RETAA, RETAB; ERET (not at EL0) */
		default: return EMU_CLS_OTHER;
		}
	}
	if ((w & 0xffe0001fu) == 0xd4000001u) /* SVC #imm16 */
		return EMU_CLS_SYSCALL;
	return EMU_CLS_OTHER;
}

const struct emu_isa emu_isa_aarch64 = {
	.target = "aarch64",
	.e_machine = 183, /* EM_AARCH64 */
	.max_branches = 64, /* BRBE: up to 64 records */
	.classify = emu_classify_aarch64,
	.syscall_records = 1,
	.sys_mmap = 222, .sys_clone = 220, .sys_fork = -1, .sys_vfork = -1,
	.sys_execve = 221, .sys_execveat = 281, .sys_exit_group = 94,
};
