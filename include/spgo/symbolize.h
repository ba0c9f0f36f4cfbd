/*
 * spgo/symbolize.h: the symbolizer's output, beside the binary model
 * (spgo/binary.h) it prints: what `spgo symbolize` writes.
 *
 * Per address, its inline frames the way `llvm-symbolizer --inlines
 * --functions=linkage` prints them: innermost first, the function's linkage
 * name (demangled, unless SPGO_SYM_RAW_NAMES), then file:line:column; a blank line after each address.  The
 * outermost frame is named by the ELF symbol covering the address when
 * there is one ("foo.cold" rather than DWARF's "foo"), as llvm-symbolizer
 * does.  Modes add discriminators, print llvm-symbolizer's --verbose
 * fields, or show clang's pseudo-probes instead (as llvm-profgen
 * --show-pseudo-probe prints them).  Listings: every instruction, the
 * function table, every probe, the probe descriptors.
 *
 * Contract
 *  - Text goes to one FILE; a writer thread writes one 1 MiB buffer while
 *    the next fills (threads = 0: no thread, and each buffer is flushed as
 *    soon as it is written, for a coprocess waiting on every answer).
 *  - A large block of addresses (spgo_symout_text) is formatted by two
 *    threads in chunks, written in input order by a third: the output is
 *    the same, byte for byte, as one thread's.
 *  - An address that is not a number prints as llvm-symbolizer prints an
 *    unknown one ("??").
 *  - Errors: -1 with spgo_error(); output already written stays written.
 *    A failed write is reported by spgo_symout_finish().
 *
 * Owns src/binary/symbolize_out.c; depends on spgo/binary.h, spgo/probe.h
 * and spgo/common.h.
 */
#ifndef SPGO_SYMBOLIZE_H
#define SPGO_SYMBOLIZE_H

#include <stddef.h>
#include <stdio.h>

struct spgo_binary;

enum spgo_sym_mode {
	SPGO_SYM_PLAIN,
	SPGO_SYM_DISCRIMINATORS, /* " (discriminator N)" where N is not 0 */
	SPGO_SYM_VERBOSE,        /* llvm-symbolizer --verbose's fields profiles use */
	SPGO_SYM_PROBES,         /* pseudo-probes instead of DWARF frames */
	/* A flag, or'ed with one of the above: function names as stored
	 * (llvm-symbolizer --no-demangle); by default an Itanium-mangled
	 * name (_Z...) prints in source form, as llvm-symbolizer prints it
	 * ("_ZL3midi.__uniq.1691" as "mid(int) (.__uniq.1691)"). */
	SPGO_SYM_RAW_NAMES = 0x100,
};

struct spgo_symout;

/* Print for bin (which must stay open) to out; threads: 0 or 1 (helper
 * threads allowed). */
struct spgo_symout *spgo_symout_new(struct spgo_binary *bin, enum spgo_sym_mode mode, FILE *out,
				    int threads);
/* Flush, stop the threads, free: 0, or -1 with spgo_error() after a failed
 * write. */
int spgo_symout_finish(struct spgo_symout *s);

/* One address given as text: 0x-hex or decimal, blanks around allowed. */
int spgo_symout_addr(struct spgo_symout *s, char *text);
/* The lines of text[0, len) (text[len] must be writable; lines are cut in
 * place), one address each; many of them on the threads. */
int spgo_symout_text(struct spgo_symout *s, char *text, size_t len);
/* The lines of in as they come, flushing whenever in has no further line
 * buffered (an interactive caller gets each answer at once). */
int spgo_symout_stream(struct spgo_symout *s, FILE *in);

/* Every instruction of the executable sections ("0xADDR SIZE CLASS
 * [0xTARGET]"), or in probe mode every probe ("0xADDR FUNC: ..."). */
int spgo_symout_list_insns(struct spgo_symout *s);
/* The function table ("0xSTART 0xEND name symbol decl_line=N
 * [parent=SYMBOL]"), or in probe mode the descriptors ("GUID name checksum
 * probes=N max_index=N [start=0xADDR] [parts=SYM@0xADDR,...]"). */
int spgo_symout_list_functions(struct spgo_symout *s);

#endif
