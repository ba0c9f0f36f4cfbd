/*
 * binary_impl.h: the inside of struct spgo_binary, shared by the files of
 * src/binary only.  Everyone else goes through spgo/binary.h.
 *
 * Files of src/binary:
 *   elf.c      ELF identity, sections
 *   debug_file.c  where the DWARF is: the binary, --debug-binary, or a
 *              separate debug file found by build-id or .gnu_debuglink,
 *              or from a debuginfod server
 *   symtab.c   .symtab/.dynsym and the function table (DWARF + symbols)
 *   dwarf.c    builds the address-sorted debug tables (DIEs through libdw)
 *   debug_line.c  spgo's own .debug_line reader, for dwarf.c
 *   scopes.c   the inline tree's scopes and their ranges, for dwarf.c
 *   split.c    split DWARF: the split units of skeletons (.dwo, .dwp)
 *   lines.c    lookups in those tables: spgo_binary_symbolize()
 *   disasm.c   instruction table with capstone
 *   cflow.c    jump tables, PLT names and noreturn functions (on demand)
 *   arch_x86.c, arch_aarch64.c  what an instruction set adds to those two,
 *              behind struct spgo_arch_ops (below), chosen by e_machine
 *   probe.c    pseudo-probes: .pseudo_probe and .pseudo_probe_desc
 *   demangle.c Itanium names in source form, as llvm-symbolizer prints them
 */
#ifndef SPGO_BINARY_IMPL_H
#define SPGO_BINARY_IMPL_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/probe.h"

/* A line table row, in the order of the line program; an end-of-sequence
 * row has file == SPGO_NO_FILE. */
#define SPGO_NO_FILE UINT32_MAX
#define SPGO_BAD_FILE (UINT32_MAX - 1) /* a row whose file index is invalid */
struct spgo_line_row {
	uint64_t addr;
	uint32_t line;
	uint32_t file; /* file_strs id of the full path, or SPGO_NO_FILE */
	uint32_t column;
	uint32_t discriminator;
};

/* A subprogram or inlined subroutine DIE (a "scope" of the inline tree). */
struct spgo_scope {
	int32_t parent;   /* enclosing scope, -1 at the top */
	uint32_t name;    /* strtab id, or SPGO_NO_FILE when the DIE has no name */
	uint32_t decl_line;
	uint32_t call_file; /* DW_AT_call_file: index into the CU's files */
	uint32_t call_line, call_column, call_discriminator;
	uint8_t inlined;
};

/* A piece of the address space whose innermost scope is `scope`. */
struct spgo_scope_range {
	uint64_t lo, hi;
	uint32_t scope;
};

/*
 * A sequence of the line program: rows [row_begin, row_end) of bin->rows,
 * the last one its end, covering [lo, hi).  A CU's sequences are sorted by
 * hi and a lookup takes the first with hi > addr, as LLVM's
 * DWARFDebugLine::LineTable::lookupAddress does.
 */
struct spgo_line_seq {
	uint64_t lo, hi;
	size_t row_begin, row_end;
};

typedef VEC(struct spgo_line_row) spgo_row_vec;
typedef VEC(struct spgo_line_seq) spgo_seq_vec;

/* A compile unit: its slices of the sequence and scope-range tables, and
 * its file table (DWARF file index -> file_strs id or SPGO_NO_FILE). */
struct spgo_cu {
	size_t seq_begin, seq_end;
	size_t range_begin, range_end;
	uint32_t *files;
	size_t nfiles;
	uint8_t line_error; /* its line table could not be read in full */
	uint8_t producer;   /* enum spgo_producer of its DW_AT_producer */
	char *name;         /* DW_AT_name (the file given to the compiler), or NULL */
};

/* A piece of the address space and the CU that owns it. */
struct spgo_cu_range {
	uint64_t lo, hi;
	uint32_t cu;
};

struct cs_insn; /* capstone's decoded instruction (capstone/capstone.h) */

/*
 * What the stages need to know of one instruction set.  Each ISA is one
 * file, src/binary/arch_<isa>.c, defining one of these; the binary model
 * picks it by e_machine when the file is opened (spgo_arch_of()), and
 * nothing outside src/binary tests EM_* itself.  A NULL hook means the ISA
 * has no such pattern (its answer is "unknown").
 */
struct spgo_arch_ops {
	unsigned machine;   /* ELF e_machine */
	const char *name;   /* "x86-64", "AArch64" */
	const char *perf_arch; /* perf.data's HEADER_ARCH of such a machine (uname -m) */
	int supported;      /* spgo_binary_check_machine() accepts it */
	int cs_arch, cs_mode; /* capstone's cs_arch and cs_mode */
	unsigned insn_align;  /* bytes skipped where nothing decodes */
	unsigned max_insn;    /* the longest instruction, bytes */
	uint64_t max_page;    /* largest page size load segments are aligned for */
	/* Class and direct target of an instruction decoded with details
	 * (out->cls and out->target; the rest is set). */
	void (*classify)(const struct cs_insn *in, struct spgo_insn *out);
	/* Length of an instruction capstone does not decode at p[0..n)
	 * (out->addr), with its class and target in *out, or 0. */
	size_t (*undecoded)(const uint8_t *p, size_t n, struct spgo_insn *out);
	/* spgo_binary_jump_table() and spgo_binary_is_tail_call() for the
	 * indirect jump jmp (cflow.c has checked its class). */
	int (*jump_table)(struct spgo_binary *bin, const struct spgo_insn *jmp, uint64_t *targets, size_t max);
	int (*is_tail_call)(struct spgo_binary *bin, const struct spgo_insn *jmp);
	/* The GOT slot the PLT stub at addr (in a .plt* section) jumps
	 * through, or 0 when addr is no stub of the known forms. */
	uint64_t (*plt_slot)(struct spgo_binary *bin, uint64_t addr);
	unsigned reloc_jump_slot, reloc_glob_dat; /* the dynamic relocations naming GOT slots */
	/* Local functions are searched for paths that return (cflow.c) when
	 * the ISA's calls, jumps and traps are classified with confidence. */
	int noreturn_analysis;
	/* perf's register numbering and the return-address rule. */
	struct spgo_arch_regs regs;
	/* perf's user register index of DWARF register r, or -1. */
	int (*perf_reg_of_dwarf)(unsigned r);
};

extern const struct spgo_arch_ops spgo_arch_x86_64, spgo_arch_i386, spgo_arch_aarch64;
/* The ops of ELF machine m, or NULL when spgo knows nothing of it. */
const struct spgo_arch_ops *spgo_arch_of(unsigned m);

/*
 * cflow.c's decoding on demand, for the arch files: the capstone handle
 * with details (bin->cf_cs, opened on first use), the one instruction at
 * addr decoded into bin->cf_insn (NULL on failure), the bytes of the
 * binary at [addr, addr + len) (NULL unless one allocated section holds
 * them), the addresses of the straight-line instructions before the one
 * at index j of the instruction table, nearest first, inside [lo, j), and
 * the root function index of the function part holding addr (or -1).
 */
#define SPGO_CF_WINDOW 48
int spgo_cf_open(struct spgo_binary *bin);
const struct cs_insn *spgo_cf_decode(struct spgo_binary *bin, uint64_t addr);
const uint8_t *spgo_vaddr_bytes(struct spgo_binary *bin, uint64_t addr, size_t len);
size_t spgo_cf_window(const struct spgo_binary *bin, size_t j, uint64_t lo, uint64_t *addrs);
long spgo_cf_root_of(struct spgo_binary *bin, uint64_t addr);

struct spgo_binary {
	char *path;
	char *debug_path; /* separate debug file given by the user, or NULL */
	char *dwp_path;   /* DWARF package given by the user, or NULL */
	VEC(char *) dwo_dirs; /* more directories to look for .dwo files in */
	int fd;
	Elf *elf;
	enum spgo_elf_kind kind;
	unsigned machine;
	const struct spgo_arch_ops *arch; /* by machine; NULL when unknown */
	uint64_t entry; /* e_entry */
	uint8_t build_id[64];
	size_t build_id_len;
	VEC(struct spgo_segment) segments;

	struct spgo_strtab strs;      /* names of functions and symbols */
	struct spgo_strtab file_strs; /* source paths */

	/* Symbols (symtab.c). */
	int syms_loaded;
	VEC(struct spgo_symbol) syms;      /* all, sorted by (addr, size) */
	VEC(uint32_t) llvm_syms;           /* one per address, as llvm-symbolizer keeps */

	/* Functions (symtab.c). */
	int funcs_loaded;
	VEC(struct spgo_function) funcs;

	/* Debug tables (dwarf.c). */
	int debug_state;  /* 0 not loaded, 1 loaded, -1 failed */
	int debug_absent; /* failed because there is no DWARF at all */
	char *debug_err;  /* the message of the failure */
	char *dwarf_path; /* file the DWARF came from */
	char *debug_search; /* where a separate debug file was looked for, when none was found */
	FILE *notes;      /* where to say which debug file was found, or NULL */
	int dbg_fd;       /* separate debug file, or -1 */
	Elf *dbg_elf;
	Dwarf *dwarf;
	VEC(void *) inflated; /* zstd sections inflated in memory */
	spgo_row_vec rows;
	spgo_seq_vec seqs;
	VEC(struct spgo_scope) scopes;
	VEC(struct spgo_scope_range) ranges;
	VEC(struct spgo_cu) cus;
	VEC(struct spgo_cu_range) cu_ranges;
	size_t line_errors; /* CUs whose line table could not be read in full */
	/* The compiler of most of the code (spgo_binary_producer()) and its
	 * DW_AT_producer string, "" if none. */
	int producer;
	char *producer_name;
	int disc_kind;      /* enum spgo_disc_kind, -1 before it is known */
	struct spgo_cursor cursor; /* lookups without a cursor of their own (lines.c, symtab.c) */
	/* Out-of-line subprogram parts found in DWARF, for the function table. */
	VEC(struct spgo_scope_range) subprograms;

	/* Instructions (disasm.c). */
	int insns_loaded;
	VEC(uint64_t) code_only; /* spgo_binary_restrict_code: [lo, hi) pairs, sorted */
	VEC(struct spgo_insn) insns;
	int pg_code_loaded;	 /* spgo_binary_profgen_code's intervals: */
	VEC(uint64_t) pg_code;	 /* [lo, hi) pairs, sorted */

	/* Control-flow facts (cflow.c). */
	int cf_state;    /* capstone with details: 0 not opened, 1 open, -1 unavailable */
	size_t cf_cs;    /* its csh */
	void *cf_insn;   /* one cs_insn for decoding on demand */
	int plt_loaded;
	struct spgo_kmap plt_slots;  /* GOT slot address -> strs id + 1 */
	struct spgo_kmap noret_memo; /* function address -> 1 returns, 2 noreturn */

	/* Pseudo-probes (probe.c). */
	int probe_state;  /* 0 not loaded, 1 loaded, -1 failed */
	int has_probes;   /* 1 if the binary has the probe sections */
	char *probe_err;  /* the message of the failure */
	VEC(struct spgo_probe) probes;            /* sorted by address */
	VEC(struct spgo_probe_node) probe_nodes;  /* section order */
	VEC(struct spgo_probe_desc) probe_descs;  /* sorted by GUID */
	VEC(struct spgo_probe_part) probe_parts;  /* sorted by (guid, start) */
	struct spgo_probe_stats probe_stats;
};

/*
 * debug_line.c: the line table of one compile unit.  in holds the
 * sections a table refers to (any may be NULL), u what the CU's DIE says
 * of it; the CU's file table goes to cu->files (DWARF file index ->
 * file_strs id, SPGO_NO_FILE where there is none), its rows and
 * sequences are appended to out (the CU's sequences sorted by end, in
 * cu->seq_begin..seq_end).  Returns 0, or -1 after one warning naming the
 * file, the CU and what is wrong (cu->line_error set; the sequences
 * completed before the damage are kept).  Reads only in, so several
 * threads may read tables at once into outputs of their own.
 */
struct spgo_line_input {
	const uint8_t *line, *line_str, *str; /* .debug_line, .debug_line_str, .debug_str */
	size_t line_size, line_str_size, str_size;
	const char *path; /* the file, for messages */
};
struct spgo_line_unit {
	uint64_t cu_off;      /* the CU's offset in .debug_info, for messages */
	uint64_t stmt_list;   /* DW_AT_stmt_list: the table's offset */
	const char *comp_dir; /* DW_AT_comp_dir, or NULL */
};
struct spgo_line_output {
	struct spgo_strtab *file_strs;
	spgo_row_vec *rows;
	spgo_seq_vec *seqs;
};
int spgo_read_line_table(const struct spgo_line_input *in, const struct spgo_line_unit *u,
			 const struct spgo_line_output *out, struct spgo_cu *cu);

/* Section of `elf` by name, or NULL; decompresses SHF_COMPRESSED sections. */
Elf_Scn *spgo_elf_section(Elf *elf, const char *name, Elf_Data **data);
/* The GNU build-id of elf into id[0..max): its length, or 0 if none fits. */
size_t spgo_elf_build_id(Elf *elf, uint8_t *id, size_t max);

/*
 * debug_file.c, for dwarf.c: decide which file the DWARF is read from (the
 * --debug-binary file, the binary, or a separate debug file found by
 * build-id or .gnu_debuglink or from a debuginfod server, then named on
 * bin->notes) and open it: bin->dwarf_path set, and bin->dbg_fd/dbg_elf when it is not the binary.
 * -1 with spgo_error set when there is none (bin->debug_absent then, and
 * bin->debug_search says where it was looked for) or it is not usable.
 */
int spgo_binary_open_debug(struct spgo_binary *bin);

/*
 * scopes.c: the subprogram and inlined-subroutine DIEs of the compile units
 * whose DIEs are at cu_offs[0..n), walked on dw, appended to bin->scopes,
 * bin->ranges (flattened per unit) and bin->subprograms; unit i's slice of
 * bin->ranges is [bounds[2i], bounds[2i + 1]).  Of bin it touches nothing
 * else but bin->strs, so it can run beside dwarf.c's line pass.  A skeleton
 * unit's scopes come from its split unit (split.c), read on the same thread.
 */
void spgo_read_scopes(struct spgo_binary *bin, Dwarf *dw, const Dwarf_Off *cu_offs, size_t n, size_t *bounds);

/*
 * split.c: the split units of -gsplit-dwarf skeleton units, for scopes.c.
 * A scope pass makes one struct spgo_split (on the thread of the pass; elf
 * is the file of the skeletons, for its .debug_addr and .debug_ranges),
 * calls spgo_split_read() for each skeleton and spgo_split_end() at the
 * end, which also reports how many units could not be read beyond the
 * first few warnings.
 */
typedef VEC(uint64_t) spgo_u64_vec;

/* A subprogram or inlined subroutine DIE of a split unit, in preorder. */
struct spgo_split_scope {
	int32_t parent;   /* index of the enclosing scope in the unit's list, or -1 */
	const char *name; /* linkage name, else name, through origins; or NULL */
	uint32_t decl_line;
	uint32_t call_file; /* DW_AT_call_file (an index of the skeleton's line
			       table), UINT32_MAX if none */
	uint32_t call_line, call_column, call_discriminator;
	uint8_t inlined;
	size_t range_begin, range_end; /* its [lo, hi) pairs: ranges.v[begin, end) */
};

struct spgo_split_unit {
	VEC(struct spgo_split_scope) scopes;
	spgo_u64_vec ranges;
};

struct spgo_split;
struct spgo_split *spgo_split_begin(struct spgo_binary *bin, Elf *elf);
/* 1 if cudie has a DW_AT_dwo_name or DW_AT_GNU_dwo_name. */
int spgo_split_is_skeleton(Dwarf_Die *cudie);
/*
 * The scopes of the split unit of skeleton cudie into out (emptied first):
 * 1 when read; 0 when cudie is no skeleton; -1 when the split unit was not
 * found or is corrupt (a warning was given, or counted past the first
 * few), out then empty.  The names stay valid until the next call.
 */
int spgo_split_read(struct spgo_split *sp, Dwarf_Die *cudie, struct spgo_split_unit *out);
void spgo_split_end(struct spgo_split *sp);
/*
 * Every split compile unit of the .dwo or .dwp at path, read as a skeleton
 * would have it read, with a .debug_addr of zeros (a .dwo: its first unit;
 * a .dwp: the unit of each id of its index), no message given: the way in
 * of the fuzz harness fuzz_dwo.  The number of units read whole, or -1
 * when path is no usable .dwo/.dwp.
 */
int spgo_split_read_file(const char *path);

/* Free what dwarf.c, symtab.c and disasm.c built. */
void spgo_binary_free_debug(struct spgo_binary *bin);
void spgo_binary_free_symbols(struct spgo_binary *bin);
void spgo_binary_free_cflow(struct spgo_binary *bin);
/* reloc.c: a relocatable object (a kernel module) laid out and relocated
 * in memory as the kernel loads it; its executable sections become its
 * segments.  bin->elf must be mapped privately (writable).  0, or -1. */
int spgo_binary_rel_prepare(struct spgo_binary *bin);
void spgo_binary_free_probes(struct spgo_binary *bin);

/* The source form of an Itanium-mangled name (_Z...) as llvm-symbolizer
 * prints it, allocated; NULL when it is not one or uses a part of the
 * grammar demangle.c does not read (print it as stored). */
char *spgo_demangle(const char *mangled);

#endif
