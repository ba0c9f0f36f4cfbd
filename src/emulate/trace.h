/*
 * trace.h: the two files the QEMU plugin (emulate/spgo_emu.c) hands
 * to `spgo emulate`, which turns them into perf.data and the ground-truth
 * file.  Internal to spgo: both sides are built from the same tree, so the
 * layout is host byte order and versioned only by the magic numbers.
 *
 * Trace file: the magic, then records { u32 type; u32 size; ... } whose size
 * (header included) is a multiple of 8, in the order the plugin saw them.
 *
 * Counts file (written at exit when ground truth is asked for): the magic,
 * then u64 n_blocks and that many blocks { u64 start, count; u32 n_insns,
 * pad; n_insns x { u16 offset; u8 size; u8 cls } padded to 8 bytes }, then
 * u64 n_edges and that many { u64 from, to, count }.  A block is one QEMU
 * translation block (the same address may appear in several: merge them);
 * an edge goes from the last instruction of a block to the start of the
 * block executed next on the same thread.
 *
 * Context-sensitive counts file (cscounts=, written at exit): the magic,
 * then u64 n_contexts and that many { u64 len; len x u64 call site }
 * (root first; context 0 is empty), u64 n_pairs and that many { u32 fp,
 * tv } (context ids of the frame-pointer and true views), u64 n_blocks and
 * that many { u64 start; u32 n_insns, index; n_insns x u32 as above,
 * padded to 8 bytes }, u64 n_counts and that many { u32 block index, pair;
 * u64 count }, u64 n_edges and that many { u64 from, to, pair, count }
 * (pair: the context of the block that ran `from`; fall-throughs of
 * conditional branches are left out: spgo derives them from the counts).
 */
#ifndef SPGO_EMULATE_TRACE_H
#define SPGO_EMULATE_TRACE_H

#include <stdint.h>

#define EMU_TRACE_MAGIC 0x3254524f55454753ULL  /* "SGEUORT2" */
#define EMU_COUNTS_MAGIC 0x31544e4355454753ULL /* "SGEUCNT1" */
#define EMU_CSCOUNTS_MAGIC 0x3143534355454753ULL /* "SGEUCSC1" */

enum emu_rec_type {
	EMU_REC_START = 1,  /* the main thread's first instruction */
	EMU_REC_MMAP = 2,   /* an executable file mapping made by the guest */
	EMU_REC_THREAD = 3, /* a new thread's first instruction */
	EMU_REC_SAMPLE = 4,
	EMU_REC_CHILD = 5,  /* the guest started a process (fork) or a program
			     * (execve) the emulation does not follow */
	EMU_REC_EXIT = 6,   /* exit_group(code) */
};

struct emu_rec {
	uint32_t type, size;
	uint64_t time; /* CLOCK_MONOTONIC nanoseconds, taken as the record is
			* written (under the lock): never going back */
	uint32_t pid, tid;
};

struct emu_start {
	struct emu_rec h;
	uint64_t first_pc;   /* where the first executed block started */
	uint64_t start_code; /* qemu_plugin_start_code() etc. of the main binary */
	uint64_t end_code;
	uint64_t entry_code;
	uint32_t e_machine;  /* the guest's ISA (emulate/isa.h) */
	uint32_t pad;
	char path[]; /* qemu_plugin_path_to_binary(), NUL-terminated */
};

struct emu_mmap {
	struct emu_rec h;
	uint64_t addr, len, pgoff;
	uint32_t prot, flags;
	uint32_t maj, min;
	uint64_t ino;
	char path[]; /* NUL-terminated */
};

struct emu_thread {
	struct emu_rec h;
	uint32_t ppid, ptid;
};

struct emu_sample {
	struct emu_rec h;
	uint64_t ip, period;
	uint32_t n_stack; /* return addresses, innermost first */
	uint32_t n_br;    /* branch records, newest first */
	uint64_t data[];  /* n_stack addresses, then n_br x { from, to, class } */
};

struct emu_child {
	struct emu_rec h;
	uint32_t exec; /* 1: execve (the trace ends here), 0: fork */
	uint32_t pad;
};

struct emu_exit {
	struct emu_rec h;
	int32_t code;
	uint32_t pad;
};

/* Classes of a block's last instruction (what the LBR and stacks need). */
enum emu_cls {
	EMU_CLS_OTHER = 0, /* not a branch: the block just ended */
	EMU_CLS_COND,      /* jcc, loop, jrcxz */
	EMU_CLS_JUMP,      /* jmp rel */
	EMU_CLS_IJUMP,     /* jmp *x */
	EMU_CLS_CALL,      /* call rel */
	EMU_CLS_ICALL,     /* call *x */
	EMU_CLS_RET,       /* ret */
	EMU_CLS_SYSCALL,   /* syscall/int/svc: a record to the kernel (to = 0)
			    * where the ISA's hardware keeps one (isa.h) */
	EMU_CLS_ERET,      /* a record of the return from the kernel (from = 0) */
	EMU_CLS_WRONG_PATH, /* a conditional branch's record on a mispredicted
			     * path: it fell through, the record says it went
			     * to its taken target (AMD LbrExtV2's spec bits) */
};

#endif
