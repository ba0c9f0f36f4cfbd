/*
 * spgo/binary.h: the binary model.  An ELF file (and its separate debug file)
 * as the rest of spgo sees it: its identity (build-id), its loadable
 * segments (to map runtime addresses back to the file's virtual addresses),
 * and, built on top, functions, source lines, inline frames and instructions.
 *
 * Contract
 *  - Limits on input: a zstd-compressed debug section must claim the size
 *    its zstd frame holds, and at most 4 GiB, before anything is allocated
 *    for it; every size and offset read from DWARF line tables and probe
 *    sections is checked against its section before use.
 *  - spgo_binary_open() reads the ELF headers eagerly and everything else
 *    lazily; it fails with an spgo_error() naming the file and what is wrong
 *    (not ELF, truncated, unsupported machine).
 *  - Addresses are the binary's own virtual addresses (p_vaddr space) unless
 *    a name says "runtime".  A relocatable object (ET_REL: a kernel module,
 *    SPGO_ELF_REL) has none: it is laid out in memory as the kernel loads a
 *    module and relocated (src/binary/reloc.c); its segments are then its
 *    executable sections (not .init.*), in section order, and those
 *    addresses are its own.
 *  - Returned pointers stay valid until spgo_binary_close().
 *  - One struct spgo_binary is for one thread at a time: tables are built
 *    lazily and lookups keep a hint (the previous answer) to make runs of
 *    nearby addresses cheap.  The one exception: once spgo_binary_load_debug()
 *    and spgo_binary_symbols() have been called, several threads may call
 *    spgo_binary_symbolize_until() and spgo_binary_symbol_at_until() at the
 *    same time, each with a struct spgo_cursor of its own.
 */
#ifndef SPGO_BINARY_H
#define SPGO_BINARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	SPGO_ELF_REL,  /* ET_REL: a kernel module (.ko), laid out as the kernel
			  loads it (src/binary/reloc.c) */
};

struct spgo_binary;

/*
 * Open PATH; debug_path (may be NULL) names a separate debug file.  Without
 * one, the DWARF is the binary's own, else (a stripped binary) that of a
 * separate debug file found on local paths as gdb finds it: by build-id in
 * the global debug directory (/usr/lib/debug, or $SPGO_DEBUG_ROOT:
 * DIR/.build-id/ab/cdef....debug), then by the name in .gnu_debuglink in the
 * binary's directory, its .debug/ and DIR/<its absolute directory>/, where
 * the file's CRC32 must be the one the section holds; a file found must
 * also have the binary's build-id when both have one; then, when
 * $DEBUGINFOD_URLS names debuginfod servers, by build-id from them
 * (elfutils' client and its cache), the file checked likewise.  The
 * search is done when the DWARF is first needed, and its answer said on
 * the binary's notes (spgo_binary_set_notes()).
 */
int spgo_binary_open(struct spgo_binary **out, const char *path, const char *debug_path);
void spgo_binary_close(struct spgo_binary *bin);

const char *spgo_binary_path(const struct spgo_binary *bin);
enum spgo_elf_kind spgo_binary_kind(const struct spgo_binary *bin);
/* ELF e_machine (EM_X86_64, EM_AARCH64, ...). */
unsigned spgo_binary_machine(const struct spgo_binary *bin);
/* Its name as messages give it ("x86-64", "AArch64", "unknown"). */
const char *spgo_binary_machine_name(const struct spgo_binary *bin);
/* The architecture perf.data records (HEADER_ARCH, uname -m) on a machine
 * that runs this binary natively ("x86_64", "aarch64"); NULL when spgo
 * does not support the machine. */
const char *spgo_binary_perf_arch(const struct spgo_binary *bin);
/* ELF e_entry: where the program starts (0: none, as in most libraries). */
uint64_t spgo_binary_entry(const struct spgo_binary *bin);
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

/*
 * 0 if spgo can symbolize and decode this machine (x86-64 and AArch64: the
 * instruction sets of src/binary/arch_*.c), else -1 with an spgo_error
 * naming the file and the machine.
 */
int spgo_binary_check_machine(const struct spgo_binary *bin);

/*
 * The contents of the section called name (".text", ".pseudo_probe", ...),
 * decompressed if it is SHF_COMPRESSED; sets *addr to its sh_addr and *size.
 * Looked up in the binary, then in its debug file if one is loaded.  NULL
 * (no spgo_error) when there is no such section with contents.
 */
const uint8_t *spgo_binary_section(struct spgo_binary *bin, const char *name, uint64_t *addr, size_t *size);

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
	uint16_t op;     /* the instruction set's opcode id (capstone's: the
			  * mnemonic, whatever the operands); 0 for a no-op
			  * (padding) and for what capstone did not decode */
};

/*
 * Every instruction of the executable sections, sorted by address (built on
 * first use).  Decoding restarts at every symbol, as llvm-objdump -d does;
 * VEX/EVEX instructions capstone 4 cannot decode are listed as
 * SPGO_INSN_OTHER with their length; other bytes that do not decode are
 * skipped and not listed.
 */
const struct spgo_insn *spgo_binary_insns(struct spgo_binary *bin, size_t *n);
/* Decode only the code between the symbols around the n intervals [lo, hi)
 * of iv (2n words, any order): every part of code (symbol to next symbol)
 * that one overlaps, whole, and nothing else.  For a big binary of which
 * a profile touches a little (a vmlinux: 6 million instructions, most of
 * the time of spgo gen --kernel when all were decoded).  Before the
 * instructions are first asked for; no effect after. */
void spgo_binary_restrict_code(struct spgo_binary *bin, const uint64_t *iv, size_t n);
/* The instruction starting exactly at addr, or NULL. */
const struct spgo_insn *spgo_binary_insn_at(struct spgo_binary *bin, uint64_t addr);
/*
 * Is addr an instruction of the code llvm-profgen disassembles (what its
 * addressIsCode answers yes for)?  It decodes each executable section but
 * .plt symbol by symbol, from each .symtab symbol of the section (of any
 * type and size: crt's _init, frame_dummy, register_tm_clones have size 0)
 * to the next or the section's end: a section from its first symbol on.
 * A section without one (.plt.sec, .plt.got) is not, nor is any of a
 * binary without .symtab.
 */
int spgo_binary_profgen_code(struct spgo_binary *bin, uint64_t addr);

/*
 * Jump tables (x86-64): the targets of the indirect jump at insn_addr when
 * it dispatches through a switch table of the forms gcc and clang emit
 * (absolute `jmp *T(,%idx,8)`, PIE-relative `lea T(%rip); movslq
 * (%base,%idx,4); add; jmp *%r`), bounded by the `cmp $N,%idx; ja` before
 * it; without one (the check in another block, or only an `and $2^k-1`
 * mask over a shorter table) by the table's contents, as BOLT reads it:
 * entries while each is an instruction of the function, up to the next
 * table another indirect jump of the function reads.  Fills
 * targets[0..min(count, max)) in table order (duplicates kept: holes of
 * the switch point at its default) and returns count, or -1 when the jump
 * is not a recognized table (a tail call through a pointer, an unknown
 * pattern, an entry outside the function).  The few instructions needed
 * are decoded again with operand details on each call; the instruction
 * table is not changed.
 */
int spgo_binary_jump_table(struct spgo_binary *bin, uint64_t insn_addr, uint64_t *targets, size_t max);

/*
 * 1 if the indirect jump at insn_addr is a tail call through a function
 * pointer rather than a jump inside the function: no recognized jump table,
 * and it jumps through memory without an index register (`jmp
 * *off(%rip)`, `jmp *off(%rdi)`), or through a register last loaded from
 * such memory just before (`mov off(%rdi),%rax; jmp *%rax`).  0 otherwise
 * (unknown: a register from elsewhere, a computed goto).
 */
int spgo_binary_is_tail_call(struct spgo_binary *bin, uint64_t insn_addr);

/*
 * 1 if a call to addr never returns: a function known not to return by its
 * name (spgo_noreturn_name(): exit, abort, __assert_fail, ...), called
 * directly, through an alias or through a PLT stub, or a function of this
 * binary every path of which ends in a trap (ud2, hlt) or such a call.
 * Answers are remembered per address.
 */
int spgo_binary_is_noreturn(struct spgo_binary *bin, uint64_t addr);
/* The dynamic symbol a PLT stub at addr jumps to ("exit"), or NULL. */
const char *spgo_binary_plt_name(struct spgo_binary *bin, uint64_t addr);
/* 1 if name (optionally with an @VERSION suffix) is a function known never
 * to return. */
int spgo_noreturn_name(const char *name);
/* 1 if name is an Itanium-mangled (C++) linkage name, "_Z...". */
static inline int spgo_name_mangled(const char *name)
{
	return name && name[0] == '_' && name[1] == 'Z';
}

/* ---- functions --------------------------------------------------------- */

struct spgo_function {
	uint64_t start, end; /* [start, end) of this part of the function */
	const char *name;    /* linkage name (what profiles are keyed on) */
	uint32_t decl_line;  /* DW_AT_decl_line: AutoFDO line offsets count from it */
	int32_t parent;      /* index of the function a split part (foo.cold,
				foo.part.N) belongs to, or -1 */
	const char *symbol;  /* the ELF symbol naming this part ("foo.cold"),
				or name when no symbol starts it */
	uint8_t has_debug;   /* 1 if the part comes from a DWARF subprogram,
				0 if only from the symbol table */
};

/* All functions (one entry per contiguous part), sorted by start address. */
const struct spgo_function *spgo_binary_functions(struct spgo_binary *bin, size_t *n);
/* The function whose part contains addr, or NULL. */
const struct spgo_function *spgo_binary_function_at(struct spgo_binary *bin, uint64_t addr);

/* ---- symbols ----------------------------------------------------------- */

/* A defined symbol of .symtab (or .dynsym when there is no .symtab). */
struct spgo_symbol {
	uint64_t addr, size;
	const char *name;
	const char *file; /* for a local symbol, the STT_FILE before it, else NULL */
	uint8_t type;     /* STT_FUNC, STT_OBJECT, STT_NOTYPE, STT_GNU_IFUNC */
	uint8_t bind;     /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
};

/*
 * The symbols, sorted by address and then size; aliases (several names at
 * one address) are all listed.  Only symbols of allocated sections.
 */
const struct spgo_symbol *spgo_binary_symbols(struct spgo_binary *bin, size_t *n);
/*
 * The symbol that names addr the way llvm-symbolizer picks it: of the
 * symbols starting at the highest address <= addr, the one with the largest
 * size (the last listed among equals); it must cover addr unless its size is
 * 0.  NULL if none.
 */
const struct spgo_symbol *spgo_binary_symbol_at(struct spgo_binary *bin, uint64_t addr);

/*
 * Where a thread's previous lookup ended, so the next one starts there:
 * zero it before the first use.  NULL where a function takes one means the
 * binary's own (one thread).
 */
struct spgo_cursor {
	size_t cu, seq, row, range, sym;
};

/* spgo_binary_symbol_at(), and sets *until (> addr) so that every address in
 * [addr, *until) has the same answer. */
const struct spgo_symbol *spgo_binary_symbol_at_until(struct spgo_binary *bin, struct spgo_cursor *cur, uint64_t addr,
						      uint64_t *until);

/* ---- source lines and inline frames ------------------------------------ */

/*
 * One frame of the inline stack at an address.  frames[0] is the innermost
 * (the code actually at the address), the last one the out-of-line function
 * that holds it.  For frame i > 0, file/line/column/discriminator are the call
 * site of frame i - 1 in it (DW_AT_call_*); frame i - 1 carries the same
 * values as call_*.
 */
struct spgo_frame {
	const char *function;  /* linkage name (DW_AT_linkage_name, else DW_AT_name,
				  through abstract origins), or NULL */
	const char *file;      /* full path as llvm-symbolizer prints it, or NULL */
	uint32_t decl_line;    /* DW_AT_decl_line of the subprogram (0 if absent) */
	uint32_t line, column; /* 0 if unknown */
	uint32_t discriminator;      /* raw DWARF value */
	uint32_t base_discriminator; /* as LLVM's sample profile loader reads it,
					for the binary's kind (spgo_binary_disc_kind()) */
	uint32_t dup_factor;         /* LLVM's duplication factor, likewise */
	/* For an inlined frame: the call site in the caller (frame i + 1). */
	const char *call_file;
	uint32_t call_line, call_column, call_discriminator;
	uint8_t inlined; /* 1 if this frame is a DW_TAG_inlined_subroutine */
};

/*
 * Fill frames[0..max) with the inline stack at addr, innermost first.
 * Returns the number of frames (which may exceed max: then only max are
 * filled), 0 if no debug information covers addr, -1 when the debug
 * information is missing or unreadable (spgo_error set, the same on every
 * call).  The tables are built on first use; after that a call allocates
 * nothing.  A frame with function == NULL but a file/line means the address
 * has a line row but no subprogram DIE.  Names are DWARF's: the outermost
 * frame of an address in foo.cold is "foo" (llvm-symbolizer, and spgo
 * symbolize, print the ELF symbol there; see spgo_binary_symbol_at()).
 */
int spgo_binary_symbolize(struct spgo_binary *bin, uint64_t addr, struct spgo_frame *frames, int max);
/*
 * The same, and sets *until (> addr) so that every address in [addr,
 * *until) has the same frames: the end of the line row, of the innermost
 * scope's range and of the CU's range at addr.  Callers symbolizing runs of
 * ascending addresses (all instructions, sorted samples) reuse an answer
 * while the next address is below *until.
 */
int spgo_binary_symbolize_until(struct spgo_binary *bin, struct spgo_cursor *cur, uint64_t addr,
				struct spgo_frame *frames, int max, uint64_t *until);

/* Build the debug tables now (else done on first use); -1 with spgo_error set
 * when the binary and its debug file have no DWARF or it is unreadable. */
int spgo_binary_load_debug(struct spgo_binary *bin);

/*
 * Compile units whose line table could not be read in full (each was
 * warned about, with the file, the CU and what is wrong, when the tables
 * were built): their count, and whether addr lies in one of them.  Lines
 * there may be missing; a profile must not be made from them.
 */
size_t spgo_binary_line_errors(struct spgo_binary *bin);
int spgo_binary_line_damaged(struct spgo_binary *bin, uint64_t addr);

/*
 * Split DWARF (-gsplit-dwarf): the inline frames and function names of a
 * skeleton unit are in its split unit, read from a DWARF package (path, or
 * by default BINARY.dwp when it exists; the package is then the only
 * source, as for llvm-symbolizer), else from the .dwo file named by the
 * skeleton: DW_AT_comp_dir/DW_AT_dwo_name, then in each directory added
 * with spgo_binary_add_dwo_dir() (dir/dwo_name, dir/basename(dwo_name),
 * dir/comp_dir/dwo_name).  A unit whose split unit is missing or corrupt
 * gets a warning naming the skeleton and the files looked for, and keeps
 * its line table only.  Call these before the debug tables are loaded.
 */
void spgo_binary_set_dwp(struct spgo_binary *bin, const char *path);
void spgo_binary_add_dwo_dir(struct spgo_binary *bin, const char *dir);

/* The path of the file the DWARF was read from (the binary itself, the
 * --debug-binary file or one found by build-id or .gnu_debuglink), or NULL
 * before loading. */
const char *spgo_binary_debug_path(const struct spgo_binary *bin);
/*
 * When the DWARF could not be loaded because the binary has none and no
 * separate debug file was given or found: where one was looked for, and
 * why the files there were refused ("looked for A, B; B: its CRC32 is
 * ..."), for the caller's message.  "" otherwise.
 */
const char *spgo_binary_debug_search(const struct spgo_binary *bin);
/*
 * Where the binary model says which separate debug file it found for a
 * stripped binary ("spgo: note: ..." when the DWARF is first loaded):
 * stderr unless set here; NULL for nowhere (a command's --quiet).
 */
void spgo_binary_set_notes(struct spgo_binary *bin, FILE *fp);

/* ---- code size per inline context ------------------------------------ */

/*
 * The bytes of code each calling context holds (src/binary/inline_size.c;
 * the CSSPGO paper's Algorithm 3, llvm-profgen 19's BinarySizeContextTracker):
 * the out-of-line body of a function and each of its inlined copies,
 * counted per DWARF inline chain, for the CSSPGO pre-inliner's costs.
 *
 * A context is given leaf first: ctx[0] the function (its location is not
 * used), ctx[i] for i > 0 the function ctx[i - 1] was inlined into (or
 * called from), with the call site in it: (line - decl_line) & 0xffff and
 * the DWARF discriminator, or with probe_sites the call's probe id (and
 * discriminator 0) as in probe-based profiles.  Names are linkage names.
 */
struct spgo_size_frame {
	const char *name;
	uint32_t line, disc;
};
struct spgo_inline_sizes;
/* zero_callers: every caller context of an instruction is known, 0 when it
 * holds no code of its own (the paper's rule; llvm-profgen leaves them
 * unknown).  Names point into the binary: free before closing it. */
struct spgo_inline_sizes *spgo_inline_sizes_new(struct spgo_binary *bin, int probe_sites,
						int zero_callers);
void spgo_inline_sizes_free(struct spgo_inline_sizes *s);
/* Count every instruction starting in [start, end) (a function part). */
int spgo_inline_sizes_add_range(struct spgo_inline_sizes *s, uint64_t start, uint64_t end);
/* Binaries with pseudo-probes: every record of the probe inline tree under
 * the top-level records of function guid that holds probes is known, size
 * 0 unless instructions say more (inlinees optimized away entirely). */
void spgo_inline_sizes_add_probe_tree(struct spgo_inline_sizes *s, uint64_t guid);
/* The size of ctx[0..n): that of the longest prefix (leaf first) with a
 * known size; with none, of the nearest known context below the deepest
 * match by LLVM's call-site hash order, as llvm-profgen; -1 when there is
 * nothing.  *exact (may be NULL): the whole context had a known size. */
int64_t spgo_inline_sizes_get(const struct spgo_inline_sizes *s, const struct spgo_size_frame *ctx,
			      size_t n, int *exact);
/* Every known context "outer:loc @ ... @ leaf SIZE", one a line, in the
 * order first seen (fp NULL: none); returns how many. */
size_t spgo_inline_sizes_print(const struct spgo_inline_sizes *s, FILE *fp);

/* ---- basic-block address map ------------------------------------------ */

/*
 * clang's basic-block address map (-fbasic-block-address-map, section
 * .llvm_bb_addr_map, SHT_LLVM_BB_ADDR_MAP; version 2, as clang 18 and 19
 * write it, with the multi-range and PGO-analysis features): per function,
 * its blocks' [addr, addr+size) and metadata bits.  Other versions are
 * refused with an error naming the offset.
 */
struct spgo_bb_entry {
	uint64_t addr, size;
	uint32_t id, meta; /* meta: 1 return, 2 tail call, 4 EH pad, 8 can fall
			      through, 16 indirect branch */
};
struct spgo_bb_func {
	uint64_t addr;               /* function entry */
	struct spgo_bb_entry *blocks; /* in address order within each range */
	size_t nblocks;
};
struct spgo_bb_addr_map {
	struct spgo_bb_func *funcs;
	size_t nfuncs;
};
/* Decode a section's bytes (name is used in errors). */
int spgo_bb_addr_map_parse(struct spgo_bb_addr_map *out, const uint8_t *data, size_t len, const char *name);
/* Read the section from the ELF file at path; no section = 0 with nfuncs = 0. */
int spgo_bb_addr_map_read(struct spgo_bb_addr_map *out, const char *path);
void spgo_bb_addr_map_free(struct spgo_bb_addr_map *m);
/* The function entry at addr, or NULL (funcs are sorted by addr). */
const struct spgo_bb_func *spgo_bb_addr_map_find(const struct spgo_bb_addr_map *m, uint64_t addr);

/* ---- call frame information ------------------------------------------ */

/*
 * The binary's call frame information (.eh_frame, or .debug_frame, as libdw
 * finds it in the file at spgo_binary_path()), for unwinding one frame.
 * spgo_cfi_open() returns NULL, without an error, when the file has none or
 * cannot be read as ELF; the handle is the caller's until spgo_cfi_close()
 * and independent of bin's lifetime.
 */
struct spgo_cfi;
struct spgo_cfi *spgo_cfi_open(const struct spgo_binary *bin);
void spgo_cfi_close(struct spgo_cfi *cfi);
/* The rule of the canonical frame address at addr: CFA = the value of DWARF
 * register *reg + *off; -1 when the CFI has no rule of that form there. */
int spgo_cfi_cfa(struct spgo_cfi *cfi, uint64_t addr, unsigned *reg, int64_t *off);

/*
 * What an unwinder needs of the binary's instruction set: perf's numbering
 * of the user registers (the architecture's perf_regs.h, the bits of
 * sample_regs_user) and where a call leaves its return address.  The
 * binary model knows it by e_machine; NULL for a machine it does not know.
 */
struct spgo_arch_regs {
	int perf_sp, perf_fp, perf_ip, perf_lr; /* perf register index, -1 if none */
	unsigned dwarf_sp, dwarf_fp, dwarf_ra;  /* DWARF register numbers */
	/* The return address is at CFA + ra_cfa_offset on entry to the callee
	 * (x86-64: -8, pushed by the call); 0 when the call leaves it in a
	 * register (AArch64: x30), where only the CFI says where it went. */
	int ra_cfa_offset;
	/* The sizes a call instruction may have, for finding the call that
	 * ends at a return address. */
	uint8_t call_min, call_max;
};
const struct spgo_arch_regs *spgo_binary_arch_regs(const struct spgo_binary *bin);
/* perf's user register index of DWARF register r on the binary's machine,
 * or -1. */
int spgo_binary_perf_reg(const struct spgo_binary *bin, unsigned r);

/* ---- discriminators -------------------------------------------------- */

/* Who reads a discriminator (see src/binary/discriminator.c). */
enum spgo_disc_kind {
	SPGO_DISC_LLVM,    /* clang's prefix-encoded components, or a pseudo-probe value */
	SPGO_DISC_LLVM_FS, /* flow-sensitive AutoFDO: the raw value, factor 1 */
	SPGO_DISC_GCC,     /* gcc: the raw value, factor 1 */
};

/* A raw DWARF discriminator, decoded. */
struct spgo_disc {
	uint32_t base;       /* what a profile keys the line on */
	uint32_t dup_factor; /* the count of an instruction is scaled by it */
	uint32_t copy_id;    /* LLVM's copy identifier (0 if none) */
	/* A pseudo-probe discriminator (bits [2:0] all set; not for GCC): */
	uint8_t is_probe;
	uint8_t probe_type;      /* 0 block, 1 indirect call, 2 direct call */
	uint8_t probe_attr;      /* bits [31:29] */
	uint8_t probe_factor;    /* distribution factor, percent */
	uint16_t probe_id;       /* the probe index */
	int8_t probe_dwarf_base; /* the DWARF base discriminator kept, or -1 */
};

void spgo_disc_decode(uint32_t raw, enum spgo_disc_kind kind, struct spgo_disc *d);
/* The base discriminator as LLVM 19 reads it without flow-sensitive
 * discriminators (DILocation::getBaseDiscriminatorFromDiscriminator). */
uint32_t spgo_base_discriminator(uint32_t raw);
/* SPGO_DISC_LLVM_FS when the binary defines __llvm_fs_discriminator__ (as
 * llvm-profgen decides), else SPGO_DISC_LLVM. */
enum spgo_disc_kind spgo_binary_disc_kind(struct spgo_binary *bin);

/* ---- the compiler ---------------------------------------------------- */

/* The compiler that built the code, from the compile units'
 * DW_AT_producer ("GNU C17 12.2.0 ..." for gcc; clang's "... clang version
 * 19.1.7 ..."; the assembler's "GNU AS" counts as neither). */
enum spgo_producer {
	SPGO_PRODUCER_UNKNOWN,
	SPGO_PRODUCER_GCC,
	SPGO_PRODUCER_LLVM,
};
/* The compiler of most of the binary's code (weighed by the bytes of code
 * of each compile unit), and one producer string of it in *name ("" when
 * unknown).  Loads the debug information; SPGO_PRODUCER_UNKNOWN without. */
enum spgo_producer spgo_binary_producer(struct spgo_binary *bin, const char **name);
/* The DW_AT_name of the compile unit that holds addr (the source file as
 * given to the compiler), or NULL (no DWARF, no unit there, no name).
 * Loads the debug information; valid until spgo_binary_close(). */
const char *spgo_binary_cu_name(struct spgo_binary *bin, uint64_t addr);

/* Short name of an instruction class ("cond_branch", "call", ...). */
const char *spgo_insn_class_name(unsigned cls);

#endif
