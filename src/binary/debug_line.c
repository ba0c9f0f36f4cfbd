/*
 * spgo's own reader of DWARF line tables (.debug_line, DWARF 2 to 5),
 * straight into the binary's row and sequence tables.
 *
 * Why not libdw: elfutils 0.188 (Debian 12) rejects a compile unit's whole
 * line table ("invalid .debug_line section") when a discriminator does not
 * fit its 24-bit field, and clang writes wider ones for pseudo-probes
 * (-fpseudo-probe-for-profiling) and flow-sensitive AutoFDO; its reader
 * also sorts and copies every row, which was most of `spgo symbolize`'s
 * time.  libdw still reads the DIEs, ranges and .debug_aranges.
 *
 * Where the standard leaves room, this follows what llvm-symbolizer
 * (LLVM's DWARFDebugLine) does, since that is what profiles are compared
 * with:
 *  - rows stay in program order; a sequence is the rows from its first row
 *    to its DW_LNE_end_sequence, kept only if it covers addresses;
 *  - rows emitted while the address is the tombstone (all ones: lld's mark
 *    for code it discarded) are dropped, up to the next DW_LNE_set_address;
 *  - the file and column registers are 16 bits, the line and discriminator
 *    registers 32 bits (wider values wrap);
 *  - a file's path is composed as Prologue::getFileNameByIndex composes an
 *    absolute path (see file_path()).
 *
 * Malformed input never reads outside the section: every read goes
 * through struct rd, which stops at the end it was given and records
 * that it did.  A table that cannot be read in full gives one warning
 * naming the file, the CU, the table's offset and what is wrong; the
 * sequences completed before the damage are kept (as LLVM keeps them), and
 * the CU is marked so that profile generation can refuse to trust it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "binary/binary_impl.h"
#include "common/bytes.h"

/* DWARF 5 forms and content types that may be missing from old dwarf.h. */
#ifndef DW_LNCT_path
#define DW_LNCT_path 1
#define DW_LNCT_directory_index 2
#endif
#define FORM_strx 0x1a
#define FORM_strx1 0x25
#define FORM_strx2 0x26
#define FORM_strx3 0x27
#define FORM_strx4 0x28
#define FORM_line_strp 0x1f
#define FORM_data16 0x1e

/* ---- one table -------------------------------------------------------------- */

/* What a table's reading keeps while it runs. */
struct table {
	const struct spgo_line_input *in;
	const struct spgo_line_unit *u;
	uint64_t off;        /* of the table in .debug_line */
	unsigned version;    /* 2..5 */
	unsigned offset_size; /* 4, or 8 in DWARF64 */
	uint8_t min_inst, max_ops, default_is_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *std_lengths; /* opcode_base - 1 operand counts */
	VEC(const char *) dirs;     /* include directories, as the header lists them */
	VEC(uint32_t) files;        /* DWARF file index -> file_strs id or SPGO_NO_FILE */
	struct spgo_strtab *file_strs;
	char *err; /* the first thing wrong, or NULL */
};

static void SPGO_PRINTF(2, 3) table_error(struct table *t, const char *fmt, ...)
{
	if (t->err)
		return;
	va_list ap;
	va_start(ap, fmt);
	char buf[256];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	t->err = xstrdup(buf);
}

/*
 * Append b to the path in buf the way LLVM's sys::path::append does: one
 * '/' between components, none doubled at the joint.
 */
static void path_append(char **buf, size_t *len, size_t *cap, const char *b)
{
	int sep = 0;
	if (*len && (*buf)[*len - 1] == '/') {
		while (*b == '/')
			b++;
	} else if (*len && *b != '/') {
		sep = 1;
	}
	size_t lb = strlen(b);
	if (*len + sep + lb + 1 > *cap) {
		*cap = 2 * (*len + sep + lb + 1);
		*buf = xrealloc(*buf, *cap);
	}
	if (sep)
		(*buf)[(*len)++] = '/';
	memcpy(*buf + *len, b, lb);
	*len += lb;
	(*buf)[*len] = 0;
}

/*
 * The full path of a file entry, as LLVM's Prologue::getFileNameByIndex
 * composes an absolute file path: an absolute name as it is; else the
 * entry's include directory (DWARF 5: any index, 0 being the compilation
 * directory; before: index i > 0 is directory i - 1), preceded by the CU's
 * DW_AT_comp_dir unless that directory is absolute or (DWARF 5) the entry
 * is in directory 0.
 */
static uint32_t file_path(struct table *t, const char *name, uint64_t dir)
{
	if (name[0] == '/')
		return spgo_strtab_intern(t->file_strs, name, strlen(name));
	const char *inc = NULL;
	if (t->version >= 5) {
		if (dir < t->dirs.n)
			inc = t->dirs.v[dir];
	} else if (dir > 0 && dir <= t->dirs.n) {
		inc = t->dirs.v[dir - 1];
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	const char *comp = t->u->comp_dir;
	if ((t->version < 5 || dir != 0) && comp && comp[0] && !(inc && inc[0] == '/'))
		path_append(&buf, &len, &cap, comp);
	if (inc)
		path_append(&buf, &len, &cap, inc);
	path_append(&buf, &len, &cap, name);
	uint32_t id = spgo_strtab_intern(t->file_strs, buf, len);
	free(buf);
	return id;
}

/* A string of a DWARF 5 entry in form `form`, or NULL (and the error). */
static const char *form_string(struct table *t, struct rd *c, uint64_t form)
{
	const uint8_t *sec = NULL;
	size_t size = 0;
	const char *what = NULL;
	switch (form) {
	case DW_FORM_string:
		return rd_cstr(c);
	case FORM_line_strp:
		sec = t->in->line_str, size = t->in->line_str_size, what = ".debug_line_str";
		break;
	case DW_FORM_strp:
		sec = t->in->str, size = t->in->str_size, what = ".debug_str";
		break;
	default:
		table_error(t, "a path in form 0x%llx, which spgo does not read in a line table header",
			    (unsigned long long)form);
		c->bad = 1;
		return NULL;
	}
	uint64_t o = rd_le(c, t->offset_size);
	if (c->bad)
		return NULL;
	if (!sec || o >= size || !memchr(sec + o, 0, size - o)) {
		table_error(t, "a path at offset 0x%llx of %s, %s", (unsigned long long)o, what,
			    sec ? "past its end" : "which the file does not have");
		c->bad = 1;
		return NULL;
	}
	return (const char *)sec + o;
}

/* Skip a value of form `form` (DWARF 5 entry fields spgo does not use);
 * an unsigned constant's value goes to *val. */
static int form_skip(struct table *t, struct rd *c, uint64_t form, uint64_t *val)
{
	*val = 0;
	switch (form) {
	case DW_FORM_data1: case DW_FORM_flag: case FORM_strx1:
		*val = rd_le(c, 1);
		break;
	case DW_FORM_data2: case FORM_strx2:
		*val = rd_le(c, 2);
		break;
	case FORM_strx3:
		*val = rd_le(c, 3);
		break;
	case DW_FORM_data4: case FORM_strx4:
		*val = rd_le(c, 4);
		break;
	case DW_FORM_data8:
		*val = rd_le(c, 8);
		break;
	case FORM_data16:
		rd_skip(c, 16);
		break;
	case DW_FORM_udata: case FORM_strx:
		*val = rd_uleb(c);
		break;
	case DW_FORM_sdata:
		rd_sleb(c);
		break;
	case DW_FORM_string:
		rd_cstr(c);
		break;
	case DW_FORM_strp: case FORM_line_strp: case DW_FORM_sec_offset:
		rd_skip(c, t->offset_size);
		break;
	case DW_FORM_block:
		rd_skip(c, rd_uleb(c));
		break;
	case DW_FORM_block1:
		rd_skip(c, rd_le(c, 1));
		break;
	case DW_FORM_block2:
		rd_skip(c, rd_le(c, 2));
		break;
	case DW_FORM_block4:
		rd_skip(c, rd_le(c, 4));
		break;
	default:
		table_error(t, "an entry field in form 0x%llx, which spgo does not know", (unsigned long long)form);
		c->bad = 1;
		return -1;
	}
	return c->bad ? -1 : 0;
}

/* A DWARF 5 entry format: (content type, form) pairs. */
struct entry_format {
	uint8_t n;
	uint64_t type[32], form[32];
};

static int read_format(struct table *t, struct rd *c, struct entry_format *f, const char *what)
{
	unsigned n = rd_u8(c);
	if (n > 32) {
		table_error(t, "%u fields in the %s entry format (at most 32 are read)", n, what);
		return -1;
	}
	f->n = (uint8_t)n;
	int has_path = 0;
	for (unsigned i = 0; i < n; i++) {
		f->type[i] = rd_uleb(c);
		f->form[i] = rd_uleb(c);
		has_path |= f->type[i] == DW_LNCT_path;
	}
	if (c->bad) {
		table_error(t, "the %s entry format runs past the header", what);
		return -1;
	}
	if (!has_path) {
		table_error(t, "the %s entry format has no path", what);
		return -1;
	}
	return 0;
}

/* DWARF 5 directory and file tables. */
static int read_v5_entries(struct table *t, struct rd *c)
{
	struct entry_format f;
	if (read_format(t, c, &f, "directory") < 0)
		return -1;
	uint64_t n = rd_uleb(c);
	if (n > (uint64_t)(c->end - c->p)) { /* each entry takes a byte at least */
		table_error(t, "%llu directories in a header of %zu bytes", (unsigned long long)n,
			    (size_t)(c->end - c->p));
		return -1;
	}
	for (uint64_t i = 0; i < n && !c->bad; i++) {
		const char *path = NULL;
		for (unsigned k = 0; k < f.n && !c->bad; k++) {
			uint64_t v;
			if (f.type[k] == DW_LNCT_path)
				path = form_string(t, c, f.form[k]);
			else if (form_skip(t, c, f.form[k], &v) < 0)
				return -1;
		}
		VEC_PUSH(&t->dirs, path ? path : "");
	}
	if (c->bad || read_format(t, c, &f, "file name") < 0) {
		table_error(t, "the directory table runs past the header");
		return -1;
	}
	n = rd_uleb(c);
	if (n > (uint64_t)(c->end - c->p)) {
		table_error(t, "%llu file names in a header of %zu bytes", (unsigned long long)n,
			    (size_t)(c->end - c->p));
		return -1;
	}
	for (uint64_t i = 0; i < n && !c->bad; i++) {
		const char *path = NULL;
		uint64_t dir = 0;
		for (unsigned k = 0; k < f.n && !c->bad; k++) {
			uint64_t v;
			if (f.type[k] == DW_LNCT_path) {
				path = form_string(t, c, f.form[k]);
			} else {
				if (form_skip(t, c, f.form[k], &v) < 0)
					return -1;
				if (f.type[k] == DW_LNCT_directory_index)
					dir = v;
			}
		}
		if (c->bad)
			break;
		VEC_PUSH(&t->files, path ? file_path(t, path, dir) : SPGO_NO_FILE);
	}
	if (c->bad) {
		table_error(t, "the file name table runs past the header");
		return -1;
	}
	return 0;
}

/* DWARF 2 to 4 directory and file tables; file index 0 does not exist. */
static int read_v2_entries(struct table *t, struct rd *c)
{
	for (;;) {
		const char *d = rd_cstr(c);
		if (!d) {
			table_error(t, "the include directory table is not terminated in the header");
			return -1;
		}
		if (!*d)
			break;
		VEC_PUSH(&t->dirs, d);
	}
	VEC_PUSH(&t->files, SPGO_NO_FILE);
	for (;;) {
		const char *name = rd_cstr(c);
		if (name && !*name)
			break;
		uint64_t dir = rd_uleb(c);
		rd_uleb(c); /* modification time */
		rd_uleb(c); /* length */
		if (!name || c->bad) {
			table_error(t, "the file name table is not terminated in the header");
			return -1;
		}
		VEC_PUSH(&t->files, file_path(t, name, dir));
	}
	return 0;
}

/*
 * The header up to the line program.  On return *prog holds the program's
 * bytes.  -1 when the program cannot be run (t->err says why).
 */
static int read_header(struct table *t, struct rd *prog)
{
	const struct spgo_line_input *in = t->in;
	if (t->off >= in->line_size) {
		table_error(t, "the table's offset is past the end of .debug_line (%zu bytes)", in->line_size);
		return -1;
	}
	struct rd c = {.p = in->line + t->off, .end = in->line + in->line_size, .base = in->line};
	uint64_t len = rd_le(&c, 4);
	t->offset_size = 4;
	if (len == 0xffffffff) {
		len = rd_le(&c, 8);
		t->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		table_error(t, "reserved unit length 0x%llx", (unsigned long long)len);
		return -1;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p)) {
		table_error(t, "the table claims %llu bytes, %zu are left in .debug_line", (unsigned long long)len,
			    (size_t)(c.end - c.p));
		return -1;
	}
	c.end = c.p + len;
	t->version = (unsigned)rd_le(&c, 2);
	if (t->version < 2 || t->version > 5) {
		table_error(t, "line table version %u (spgo reads 2 to 5)", t->version);
		return -1;
	}
	if (t->version >= 5) {
		unsigned asz = rd_u8(&c);
		rd_u8(&c); /* segment selector size */
		if (asz != 4 && asz != 8 && !c.bad) {
			table_error(t, "address size %u", asz);
			return -1;
		}
	}
	uint64_t hlen = rd_le(&c, t->offset_size);
	if (c.bad || hlen > (uint64_t)(c.end - c.p)) {
		table_error(t, "the header claims %llu bytes, %zu are left in the table", (unsigned long long)hlen,
			    (size_t)(c.end - c.p));
		return -1;
	}
	*prog = (struct rd){.p = c.p + hlen, .end = c.end, .base = in->line};
	struct rd h = {.p = c.p, .end = c.p + hlen, .base = in->line};
	t->min_inst = rd_u8(&h);
	t->max_ops = t->version >= 4 ? rd_u8(&h) : 1;
	t->default_is_stmt = rd_u8(&h);
	t->line_base = (int8_t)rd_u8(&h);
	t->line_range = rd_u8(&h);
	t->opcode_base = rd_u8(&h);
	t->std_lengths = h.p;
	if (t->opcode_base > 0)
		rd_skip(&h, t->opcode_base - 1u);
	if (h.bad) {
		table_error(t, "the header is too short for its fixed fields");
		return -1;
	}
	if (t->max_ops == 0)
		t->max_ops = 1; /* invalid; LLVM assumes 1 too */
	return t->version >= 5 ? read_v5_entries(t, &h) : read_v2_entries(t, &h);
}

/* The state machine's registers. */
struct regs {
	uint64_t addr;
	uint32_t line, disc;
	uint16_t file, column;
	uint8_t op_index;
};

static void regs_reset(struct regs *r)
{
	*r = (struct regs){.line = 1, .file = 1};
}

/* Run the line program, appending rows and sequences. */
static void run_program(struct table *t, struct rd *c, const struct spgo_line_output *out)
{
	spgo_row_vec *rows = out->rows;
	struct regs r;
	regs_reset(&r);
	/* Room for the rows at once: a row takes 3 to 4 bytes of program in
	 * large tables (sqlite3.c: 918 KB for 247k rows), and growing the
	 * table by doubling would copy it again and again. */
	VEC_GROW(rows, rows->n + (size_t)(c->end - c->p) / 3 + 1);
	size_t begin = rows->n; /* the current sequence's first row */
	int tombstone = 0;
	uint8_t adjust_255 = (uint8_t)(255 - t->opcode_base);
	const uint8_t *prog_start = c->p;

	while (c->p < c->end && !c->bad) {
		const uint8_t *op_at = c->p;
		uint8_t op = *c->p++;
		int emit = 0, end_seq = 0;
		if (op >= t->opcode_base) {
			/* A special opcode: advance address and line, emit. */
			uint8_t adj = (uint8_t)(op - t->opcode_base);
			if (t->line_range) {
				uint64_t adv = r.op_index + adj / t->line_range;
				r.addr += t->min_inst * (adv / t->max_ops);
				r.op_index = (uint8_t)(adv % t->max_ops);
				r.line += (uint32_t)(int32_t)(t->line_base + adj % t->line_range);
			}
			emit = 1;
		} else if (op == 0) {
			uint64_t len = rd_uleb(c);
			if (c->bad)
				break;
			if (len == 0)
				continue; /* tolerated, as LLVM does */
			if (len > (uint64_t)(c->end - c->p)) {
				table_error(t, "an extended opcode at 0x%llx runs past the table",
					    (unsigned long long)(op_at - t->in->line));
				c->bad = 1;
				break;
			}
			const uint8_t *next = c->p + len;
			struct rd e = {.p = c->p, .end = next, .base = c->base};
			uint8_t sub = rd_u8(&e);
			switch (sub) {
			case DW_LNE_end_sequence:
				emit = end_seq = 1;
				break;
			case DW_LNE_set_address: {
				uint64_t n = len - 1;
				if (n == 1 || n == 2 || n == 4 || n == 8) {
					r.addr = rd_le(&e, (unsigned)n);
					r.op_index = 0;
					tombstone = r.addr == (n == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * n)) - 1);
				}
				break;
			}
			case DW_LNE_define_file: {
				const char *name = rd_cstr(&e);
				uint64_t dir = rd_uleb(&e);
				if (name && !e.bad)
					VEC_PUSH(&t->files, file_path(t, name, dir));
				break;
			}
			case DW_LNE_set_discriminator:
				r.disc = (uint32_t)rd_uleb(&e);
				break;
			default:
				break; /* unknown: skipped by its length */
			}
			c->p = next;
		} else {
			switch (op) {
			case DW_LNS_copy:
				emit = 1;
				break;
			case DW_LNS_advance_pc: {
				uint64_t adv = r.op_index + rd_uleb(c);
				r.addr += t->min_inst * (adv / t->max_ops);
				r.op_index = (uint8_t)(adv % t->max_ops);
				break;
			}
			case DW_LNS_advance_line:
				r.line += (uint32_t)rd_sleb(c);
				break;
			case DW_LNS_set_file:
				r.file = (uint16_t)rd_uleb(c);
				break;
			case DW_LNS_set_column:
				r.column = (uint16_t)rd_uleb(c);
				break;
			case DW_LNS_negate_stmt:
			case DW_LNS_set_basic_block:
			case DW_LNS_set_prologue_end:
			case DW_LNS_set_epilogue_begin:
				break;
			case DW_LNS_const_add_pc:
				if (t->line_range) {
					uint64_t adv = r.op_index + adjust_255 / t->line_range;
					r.addr += t->min_inst * (adv / t->max_ops);
					r.op_index = (uint8_t)(adv % t->max_ops);
				}
				break;
			case DW_LNS_fixed_advance_pc:
				r.addr += rd_le(c, 2);
				r.op_index = 0;
				break;
			case DW_LNS_set_isa:
				rd_uleb(c);
				break;
			default:
				/* Unknown standard opcode: skip its ULEB operands. */
				for (unsigned k = 0; k < t->std_lengths[op - 1]; k++)
					rd_uleb(c);
				break;
			}
		}
		if (!emit || tombstone) {
			if (end_seq) {
				rows->n = begin; /* a sequence of discarded code */
				regs_reset(&r);
			}
			continue;
		}
		struct spgo_line_row row = {r.addr, r.line, SPGO_NO_FILE, r.column, r.disc};
		if (!end_seq)
			row.file = r.file < t->files.n && t->files.v[r.file] != SPGO_NO_FILE ? t->files.v[r.file]
											     : SPGO_BAD_FILE;
		VEC_PUSH(rows, row);
		r.disc = 0;
		if (end_seq) {
			/* Keep the sequence if it covers addresses. */
			if (rows->n - 1 > begin && rows->v[begin].addr < row.addr) {
				struct spgo_line_seq sq = {rows->v[begin].addr, row.addr, begin, rows->n};
				VEC_PUSH(out->seqs, sq);
			} else {
				rows->n = begin;
			}
			begin = rows->n;
			regs_reset(&r);
		}
	}
	if (c->bad)
		table_error(t, "the line program is cut short (at 0x%llx, %zu bytes into it)",
			    (unsigned long long)(c->p - t->in->line), (size_t)(c->p - prog_start));
	else if (rows->n > begin)
		table_error(t, "the last sequence is not terminated (%zu rows after the last "
			    "DW_LNE_end_sequence)", rows->n - begin);
	/* Rows after the last end of sequence belong to no sequence. */
	rows->n = begin;
}

static int cmp_seq_hi(const void *a, const void *b)
{
	const struct spgo_line_seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->row_begin < y->row_begin ? -1 : x->row_begin > y->row_begin;
}

int spgo_read_line_table(const struct spgo_line_input *in, const struct spgo_line_unit *u,
			 const struct spgo_line_output *out, struct spgo_cu *cu)
{
	struct table t = {.in = in, .u = u, .off = u->stmt_list, .file_strs = out->file_strs};
	struct rd prog;
	cu->seq_begin = out->seqs->n;
	int ok = read_header(&t, &prog) == 0;
	/* The file table, as far as it was read: call sites use it too. */
	cu->nfiles = t.files.n;
	cu->files = t.files.v ? t.files.v : xmalloc(sizeof *cu->files);
	t.files.v = NULL;
	if (ok) {
		/* define_file may grow the table while the program runs. */
		t.files.v = cu->files;
		t.files.n = t.files.cap = cu->nfiles;
		run_program(&t, &prog, out);
		cu->files = t.files.v;
		cu->nfiles = t.files.n;
	}
	cu->seq_end = out->seqs->n;
	if (cu->seq_end - cu->seq_begin > 1)
		spgo_sort(out->seqs->v + cu->seq_begin, cu->seq_end - cu->seq_begin, sizeof *out->seqs->v, cmp_seq_hi);
	VEC_FREE(&t.dirs);
	if (!t.err)
		return 0;
	cu->line_error = 1;
	spgo_warn("%s: compile unit at 0x%llx: .debug_line table at 0x%llx: %s", in->path,
		  (unsigned long long)u->cu_off, (unsigned long long)u->stmt_list, t.err);
	free(t.err);
	return -1;
}
