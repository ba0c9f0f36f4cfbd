/*
 * binary_impl.h: the inside of struct spgo_binary, shared by the files of
 * src/binary only.  Everyone else goes through spgo/binary.h.
 *
 * Files of src/binary:
 *   elf.c      ELF identity, sections, separate debug file lookup
 *   symtab.c   .symtab/.dynsym and the function table (DWARF + symbols)
 *   dwarf.c    builds the address-sorted debug tables from libdw
 *   lines.c    lookups in those tables: spgo_binary_symbolize()
 *   disasm.c   instruction table with capstone
 */
#ifndef SPGO_BINARY_IMPL_H
#define SPGO_BINARY_IMPL_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "spgo/binary.h"
#include "spgo/common.h"

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

/* A scope range before flattening: its DIE's preorder number decides. */
struct raw_range {
	uint64_t lo, hi;
	uint32_t scope, order;
};
typedef VEC(struct raw_range) raw_range_vec;

/* Names of abstract origins already looked up. */
struct name_cache {
	struct spgo_kmap map; /* origin DIE offset + 1 -> name id + 1 | decl_line << 32 */
};

/* A compile unit: its slices of the sequence and scope-range tables, and
 * its file table (DWARF file index -> file_strs id or SPGO_NO_FILE). */
struct spgo_cu {
	size_t seq_begin, seq_end;
	size_t range_begin, range_end;
	uint32_t *files;
	size_t nfiles;
};

/* The file table of a CU: DWARF file index -> file_strs id or SPGO_NO_FILE. */
struct spgo_cu_files {
	uint32_t *ids;
	size_t n;
};

/* Debug sections the line program reader needs (data NULL when absent). */
struct spgo_debug_str {
	const uint8_t *data;
	size_t size;
};
struct spgo_line_sections {
	struct spgo_debug_str line, line_str, str;
};

/* A piece of the address space and the CU that owns it. */
struct spgo_cu_range {
	uint64_t lo, hi;
	uint32_t cu;
};

struct spgo_binary {
	char *path;
	char *debug_path; /* separate debug file given by the user, or NULL */
	int fd;
	Elf *elf;
	enum spgo_elf_kind kind;
	unsigned machine;
	uint8_t build_id[64];
	size_t build_id_len;
	VEC(struct spgo_segment) segments;

	struct spgo_strtab strs;      /* names of functions and symbols */
	struct spgo_strtab file_strs; /* source paths (line tables are read
					 in a thread of their own) */

	/* Symbols (symtab.c). */
	int syms_loaded;
	VEC(struct spgo_symbol) syms;      /* all, sorted by (addr, size) */
	VEC(uint32_t) llvm_syms;           /* one per address, as llvm-symbolizer keeps */
	size_t hint_sym;                   /* last answer of spgo_binary_symbol_at */

	/* Functions (symtab.c). */
	int funcs_loaded;
	VEC(struct spgo_function) funcs;

	/* Debug tables (dwarf.c). */
	int debug_state;  /* 0 not loaded, 1 loaded, -1 failed */
	char *debug_err;  /* the message of the failure */
	char *dwarf_path; /* file the DWARF came from */
	int dbg_fd;       /* separate debug file, or -1 */
	Elf *dbg_elf;
	Dwarf *dwarf;
	VEC(void *) inflated; /* zstd sections inflated in memory */
	VEC(struct spgo_line_row) rows;
	VEC(struct spgo_line_seq) seqs;
	VEC(struct spgo_scope) scopes;
	VEC(struct spgo_scope_range) ranges;
	VEC(struct spgo_cu) cus;
	VEC(struct spgo_cu_range) cu_ranges;
	size_t hint_cu, hint_seq, hint_row, hint_range; /* last answers (lines.c) */
	/* Out-of-line subprogram parts found in DWARF, for the function table. */
	VEC(struct spgo_scope_range) subprograms;

	/* Instructions (disasm.c). */
	int insns_loaded;
	VEC(struct spgo_insn) insns;
};

/* Section of `elf` by name, or NULL; decompresses SHF_COMPRESSED sections. */
Elf_Scn *spgo_elf_section(Elf *elf, const char *name, Elf_Data **data);

/*
 * line_program.c: read the line program at `offset` of .debug_line, append
 * its rows to bin->rows and its valid sequences to bin->seqs (unsorted),
 * and fill *files.  -1 if it cannot (unknown form, corrupt): then nothing
 * was appended and dwarf.c asks libdw.
 */
int spgo_read_line_program(struct spgo_binary *bin, const struct spgo_line_sections *sec, uint64_t offset,
			   const char *comp_dir, struct spgo_cu_files *files);

/* Sections the DIE reader needs (data NULL when absent). */
struct spgo_info_sections {
	struct spgo_debug_str info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists;
};

/*
 * die_walk.c: walk the DIEs of the compile unit whose header is at cu_off
 * in .debug_info with our own reader, appending its scopes to bin->scopes
 * (and bin->subprograms) and their ranges to *rr, numbering DIEs from
 * *order.  -1 if it meets what it does not handle (an unknown form, a
 * split or supplementary unit): the caller then rolls back and asks libdw.
 */
int spgo_walk_cu_dies(struct spgo_binary *bin, const struct spgo_info_sections *sec, uint64_t cu_off,
		      struct name_cache *nc, raw_range_vec *rr, uint32_t *order);
/* dwarf.c: name and decl line of the DIE at offset off, through libdw. */
void spgo_die_name_at(struct spgo_binary *bin, uint64_t off, uint32_t *name, uint32_t *decl_line);
/* dwarf.c: DIEs whose children hold no code. */
int spgo_leaf_tag(int tag);

/* Free what dwarf.c, symtab.c and disasm.c built. */
void spgo_binary_free_debug(struct spgo_binary *bin);
void spgo_binary_free_symbols(struct spgo_binary *bin);

#endif
