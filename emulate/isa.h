/*
 * isa.h: what the QEMU plugin (spgo_emu.c) knows of a guest instruction set,
 * as one table per ISA (isa_x86.c, isa_aarch64.c), chosen by QEMU's
 * target name at install time.  Nothing else in the plugin depends on the
 * ISA: the taken-branch rule, the shadow stack, the branch records and the
 * counts work on the classes of trace.h.
 *
 * The classifiers look at an instruction's bytes only (QEMU 7.2's plugin
 * API shows bytes, not decoded instructions); they are plain functions
 * without QEMU, so that fuzz/fuzz_a64_classify.c can check the AArch64
 * one against spgo's binary model (capstone and its own encodings).
 */
#ifndef SPGO_EMULATE_ISA_H
#define SPGO_EMULATE_ISA_H

#include <stddef.h>
#include <stdint.h>

struct emu_isa {
	const char *target;  /* QEMU's qemu_info_t.target_name */
	unsigned e_machine;  /* ELF e_machine of its programs */
	unsigned max_branches; /* the largest branch stack of its hardware */
	/* The class (enum emu_cls) of the instruction at b[0..n). */
	uint8_t (*classify)(const uint8_t *b, size_t n);
	/* A system call records a branch to the kernel whose target is not
	 * recorded (to = 0), and its return one from the kernel (from = 0),
	 * as Arm's BRBE does in a user-only session; x86 LBR records
	 * neither with the user filter. */
	int syscall_records;
	/* The guest's system call numbers the plugin follows (-1: none). */
	int64_t sys_mmap, sys_clone, sys_fork, sys_vfork, sys_execve, sys_execveat,
		sys_exit_group;
};

extern const struct emu_isa emu_isa_x86_64, emu_isa_aarch64;

uint8_t emu_classify_x86_64(const uint8_t *b, size_t n);
uint8_t emu_classify_aarch64(const uint8_t *b, size_t n);

#endif
