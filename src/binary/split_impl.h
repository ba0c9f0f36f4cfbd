/*
 * Split DWARF, private to src/binary: what the finding of split units
 * (split.c: .dwo and .dwp files, the skeleton) shares with the reading of
 * one split unit's DIEs (split_unit.c).
 */
#ifndef SPGO_BINARY_SPLIT_IMPL_H
#define SPGO_BINARY_SPLIT_IMPL_H

#include <gelf.h>
#include <string.h>

#include <dwarf.h>

#include "binary/binary_impl.h"
#include "common/bytes.h"

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif
#ifndef DW_FORM_GNU_addr_index
#define DW_FORM_GNU_addr_index 0x1f01
#define DW_FORM_GNU_str_index 0x1f02
#endif
#ifndef DW_FORM_GNU_ref_alt
#define DW_FORM_GNU_ref_alt 0x1f20
#define DW_FORM_GNU_strp_alt 0x1f21
#endif

/* Bytes of a section, or of one unit's contribution to it.  An absent
 * section is an empty span at span_none, never at NULL: readers do
 * arithmetic on p, and NULL + 0 is undefined in C (clang's UBSan stops on
 * it, e.g. for a .dwo without .debug_str_offsets.dwo). */
struct span {
	const uint8_t *p;
	size_t n;
};
static const uint8_t span_none[1];

/* A reader of a span: reads past the end give 0 and set bad. */
static inline struct rd rd_at(struct span s, uint64_t off)
{
	if (!s.p) /* a span never set (a zeroed struct): empty */
		s.p = span_none, s.n = 0;
	struct rd r = {.p = s.p + s.n, .end = s.p + s.n, .bad = RD_SHORT, .base = s.p};
	if (off <= s.n)
		r.p = s.p + off, r.bad = 0;
	return r;
}


enum { S_INFO, S_ABBREV, S_STR, S_STR_OFFSETS, S_RNGLISTS, S_NSECT };

struct dwo_file {
	char *path;
	int fd;
	Elf *elf;
	struct span sect[S_NSECT];
	/* .dwp only: .debug_cu_index, and the columns of its sections (-1 if
	 * absent; string sections are not indexed). */
	struct span index;
	unsigned version;
	uint32_t ncols, nunits, nslots;
	int col[S_NSECT];
};

struct attr_spec {
	uint32_t at, form;
	int64_t implicit; /* DW_FORM_implicit_const's value */
};

struct abbrev {
	uint64_t code;
	uint32_t tag;
	uint8_t children;
	uint32_t first, n; /* its attr_specs */
};

/* The names of a DIE after following its origins (see resolve()). */
struct resolved {
	const char *mips, *linkage, *name;
	uint32_t decl_line;
	int has_decl_line;
};

/*
 * The state of one scope pass over the skeleton units: the binary's
 * .debug_addr and .debug_ranges, the package when there is one, the .dwo
 * file read last (its strings are what spgo_split_read() returned), the
 * tables of the unit being read, and what is reported at the end.
 */
struct spgo_split {
	struct spgo_binary *bin;
	struct span addr, ranges;
	int dwp_state; /* 0 none, 1 open, -1 unusable (said once) */
	struct dwo_file dwp;
	struct dwo_file dwo; /* fd < 0 when none is open */
	unsigned read, missing, corrupt;
	VEC(struct abbrev) abbrevs; /* the unit's, in table order */
	VEC(struct attr_spec) specs;
	struct spgo_kmap names;     /* DIE offset + 1 -> resolved index + 1 */
	VEC(struct resolved) resolved;
};

/* What the skeleton says about its split unit. */
struct skeleton {
	uint64_t off; /* the skeleton DIE's offset (for messages) */
	const char *name, *dwo_name, *comp_dir;
	unsigned version;
	uint64_t id;
	int has_id;
	uint64_t addr_base, ranges_base, base_addr;
};

struct unit {
	struct spgo_split *sp;
	const struct dwo_file *f;
	const struct skeleton *sk;
	struct span info;    /* the unit: header and DIEs */
	uint64_t die_off;    /* its first DIE, from info.p */
	unsigned version, addr_size, offset_size;
	struct span abbrev;  /* its abbrev table onward */
	struct span str_offsets;
	uint64_t str_base;   /* offset of entry 0 in str_offsets */
	unsigned str_size;   /* size of an entry */
	struct span rnglists;
	uint64_t rng_base, rng_count;
	unsigned rng_offsize;
	const char *err; /* the first thing found wrong */
	uint64_t err_off;
};

/* The row of id in the .dwp index of f (split.c), 0 when absent. */
uint32_t split_index_row(const struct dwo_file *f, uint64_t id);
/* Set up unit u of file f (a .dwp: the row of sk's id; a .dwo: the split
 * compile unit with sk's id) and read its tables: 1 found, 0 not there,
 * -1 corrupt (u->err says what, at u->err_off). */
int split_unit_find(struct unit *u, const struct dwo_file *f, const struct skeleton *sk);
/* The scopes and ranges of the unit found, into out: 0, or -1 corrupt. */
int split_unit_read(struct unit *u, struct spgo_split_unit *out);

#endif
