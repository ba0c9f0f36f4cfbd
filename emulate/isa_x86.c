/*
 * isa_x86.c: x86-64 for the QEMU plugin (isa.h): control flow from the
 * opcode bytes (prefixes and REX skipped), Linux x86-64 system call numbers.
 */
#include "isa.h"
#include "trace.h"

uint8_t emu_classify_x86_64(const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && (b[i] == 0xf0 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e ||
			 b[i] == 0x36 || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x64 ||
			 b[i] == 0x65 || b[i] == 0x66 || b[i] == 0x67))
		i++;
	if (i < n && (b[i] & 0xf0) == 0x40) /* REX */
		i++;
	if (i >= n)
		return EMU_CLS_OTHER;
	uint8_t op = b[i];
	if (op >= 0x70 && op <= 0x7f)
		return EMU_CLS_COND;
	if (op >= 0xe0 && op <= 0xe3) /* loopne, loope, loop, jrcxz */
		return EMU_CLS_COND;
	switch (op) {
	case 0xeb:
	case 0xe9:
		return EMU_CLS_JUMP;
	case 0xe8:
		return EMU_CLS_CALL;
	case 0xc3:
	case 0xc2:
		return EMU_CLS_RET;
	case 0xcd: /* int n */
		return EMU_CLS_SYSCALL;
	case 0x0f:
		if (i + 1 < n && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f)
			return EMU_CLS_COND;
		if (i + 1 < n && (b[i + 1] == 0x05 || b[i + 1] == 0x34))
			return EMU_CLS_SYSCALL;
		return EMU_CLS_OTHER;
	case 0xff:
		if (i + 1 < n) {
			unsigned reg = (b[i + 1] >> 3) & 7;
			if (reg == 2 || reg == 3)
				return EMU_CLS_ICALL;
			if (reg == 4 || reg == 5)
				return EMU_CLS_IJUMP;
		}
		return EMU_CLS_OTHER;
	}
	return EMU_CLS_OTHER;
}

/* arch/x86/entry/syscalls/syscall_64.tbl */
const struct emu_isa emu_isa_x86_64 = {
	.target = "x86_64",
	.e_machine = 62, /* EM_X86_64 */
	.max_branches = 32,
	.classify = emu_classify_x86_64,
	.syscall_records = 0,
	.sys_mmap = 9, .sys_clone = 56, .sys_fork = 57, .sys_vfork = 58,
	.sys_execve = 59, .sys_execveat = 322, .sys_exit_group = 231,
};
