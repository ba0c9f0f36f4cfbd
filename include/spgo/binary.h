/*
 * spgo/binary.h: the binary model.  An ELF file (and its separate debug file)
 * as the rest of spgo sees it: its identity (build-id), its loadable
 * segments (to map runtime addresses back to the file's virtual addresses),
 * and, built on top, functions, source lines, inline frames and instructions.
 *
 * Contract
 *  - spgo_binary_open() reads the ELF headers eagerly and everything else
 *    lazily; it fails with an spgo_error() naming the file and what is wrong
 *    (not ELF, truncated, unsupported machine).
 *  - Addresses are the binary's own virtual addresses (p_vaddr space) unless
 *    a name says "runtime".
 *  - Returned pointers stay valid until spgo_binary_close().
 */
#ifndef SPGO_BINARY_H
#define SPGO_BINARY_H

#include <stddef.h>
#include <stdint.h>

/* A loadable (PT_LOAD) segment, as its program header says. */
struct spgo_segment {
	uint64_t vaddr;  /* p_vaddr */
	uint64_t offset; /* p_offset */
	uint64_t filesz; /* p_filesz */
	uint64_t memsz;  /* p_memsz */
	uint64_t align;  /* p_align */
	uint32_t flags;  /* PF_X | PF_W | PF_R */
};

enum spgo_elf_kind {
	SPGO_ELF_EXEC, /* ET_EXEC: fixed addresses */
	SPGO_ELF_DYN,  /* ET_DYN: PIE or shared object, relocated at load */
	SPGO_ELF_OTHER,
};

struct spgo_binary;

/* Open PATH; debug_path (may be NULL) names a separate debug file. */
int spgo_binary_open(struct spgo_binary **out, const char *path, const char *debug_path);
void spgo_binary_close(struct spgo_binary *bin);

const char *spgo_binary_path(const struct spgo_binary *bin);
enum spgo_elf_kind spgo_binary_kind(const struct spgo_binary *bin);
/* ELF e_machine (EM_X86_64, EM_AARCH64, ...). */
unsigned spgo_binary_machine(const struct spgo_binary *bin);
/* The GNU build-id note's bytes, or NULL (and *len = 0) if there is none. */
const uint8_t *spgo_binary_build_id(const struct spgo_binary *bin, size_t *len);
/* The PT_LOAD segments in program-header order. */
const struct spgo_segment *spgo_binary_segments(const struct spgo_binary *bin, size_t *n);

/*
 * Map a runtime address to the binary's virtual address, given the mapping
 * it fell in (as an MMAP/MMAP2 record gives it: start address and file
 * offset of the mapping).  The file offset of the runtime address selects the
 * executable segment holding it, whose p_vaddr/p_offset give the answer;
 * this is right for ET_EXEC, PIE, shared objects and lld layouts where
 * p_vaddr - p_offset differs between segments.  Returns 0 and sets *vaddr,
 * or -1 when no segment holds that file offset (no spgo_error set).
 */
int spgo_segments_map(const struct spgo_segment *segs, size_t n, uint64_t map_start,
		      uint64_t map_pgoff, uint64_t runtime_addr, uint64_t *vaddr);

/* Format a build-id as lower-case hex into buf (at least 2 * len + 1 bytes). */
void spgo_build_id_hex(const uint8_t *id, size_t len, char *buf);

/* ---- instructions (disassembly) --------------------------------------- */

/* What an instruction does to control flow (the classes LBR cares about). */
enum spgo_insn_class {
	SPGO_INSN_OTHER = 0,     /* falls through */
	SPGO_INSN_COND_BRANCH,   /* conditional direct branch (jcc, jrcxz, loop) */
	SPGO_INSN_JUMP,          /* unconditional direct jump */
	SPGO_INSN_INDIRECT_JUMP, /* jmp *reg / jmp *mem (jump tables, tail calls) */
	SPGO_INSN_CALL,          /* direct call */
	SPGO_INSN_INDIRECT_CALL, /* call *reg / call *mem */
	SPGO_INSN_RETURN,        /* ret */
	SPGO_INSN_TRAP,          /* ud2, hlt, int3: no successor */
};

struct spgo_insn {
	uint64_t addr;   /* virtual address */
	uint64_t target; /* direct branch/call target, else 0 */
	uint8_t size;    /* bytes */
	uint8_t cls;     /* enum spgo_insn_class */
};

/*
 * Every instruction of the executable sections, sorted by address (built on
 * first use).  Bytes that do not decode are skipped and not listed.
 */
const struct spgo_insn *spgo_binary_insns(struct spgo_binary *bin, size_t *n);
/* The instruction starting exactly at addr, or NULL. */
const struct spgo_insn *spgo_binary_insn_at(struct spgo_binary *bin, uint64_t addr);

/* ---- functions --------------------------------------------------------- */

struct spgo_function {
	uint64_t start, end; /* [start, end) of this part of the function */
	const char *name;    /* linkage name (what profiles are keyed on) */
	uint32_t decl_line;  /* DW_AT_decl_line: AutoFDO line offsets count from it */
	int32_t parent;      /* index of the function a split part (foo.cold,
				foo.part.N) belongs to, or -1 */
};

/* All functions (one entry per contiguous part), sorted by start address. */
const struct spgo_function *spgo_binary_functions(struct spgo_binary *bin, size_t *n);
/* The function whose part contains addr, or NULL. */
const struct spgo_function *spgo_binary_function_at(struct spgo_binary *bin, uint64_t addr);

#endif
