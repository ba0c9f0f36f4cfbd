/*
 * A reader of the DWARF line program (.debug_line, versions 2 to 5) that
 * writes rows straight into the binary's row table and notes its
 * sequences.  libdw can do this too (dwarf.c falls back to it), but it
 * allocates every row separately and sorts them all by address, losing the
 * sequences LLVM looks rows up in; on a big CU this reader is several times
 * faster.  It also sees
 * each file entry's directory index, so paths are composed exactly as LLVM's
 * DWARFDebugLine::Prologue::getFileNameByIndex does:
 *
 *   name absolute                    -> name
 *   else dir = the entry's directory (DWARF 5: index into the table, whose
 *        entry 0 is the compilation directory; before: 1-based, 0 = none)
 *        and comp_dir goes first unless dir is absolute or (DWARF 5) the
 *        entry uses directory 0.
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "binary/binary_impl.h"

struct reader {
	const uint8_t *p, *end;
	int bad;
};

static uint8_t u8(struct reader *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static uint64_t fixed(struct reader *r, unsigned n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t uleb(struct reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		uint8_t b = u8(r);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80) || r->bad)
			return v;
	}
}

static int64_t sleb(struct reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		b = u8(r);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !r->bad);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static const char *cstr(struct reader *r)
{
	const uint8_t *s = r->p;
	const uint8_t *nul = memchr(s, 0, (size_t)(r->end - s));
	if (!nul) {
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	r->p = nul + 1;
	return (const char *)s;
}

static const char *str_at(const struct spgo_debug_str *s, uint64_t off)
{
	if (!s->data || off >= s->size || !memchr(s->data + off, 0, s->size - off))
		return NULL;
	return (const char *)s->data + off;
}

/* One attribute of a DWARF 5 directory or file entry. */
static int read_form(struct reader *r, const struct spgo_line_sections *sec, uint64_t form, unsigned off_size,
		     const char **str, uint64_t *num)
{
	*str = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string: *str = cstr(r); break;
	case DW_FORM_line_strp: *str = str_at(&sec->line_str, fixed(r, off_size)); break;
	case DW_FORM_strp: *str = str_at(&sec->str, fixed(r, off_size)); break;
	case DW_FORM_udata: *num = uleb(r); break;
	case DW_FORM_sdata: *num = (uint64_t)sleb(r); break;
	case DW_FORM_data1: *num = fixed(r, 1); break;
	case DW_FORM_data2: *num = fixed(r, 2); break;
	case DW_FORM_data4: *num = fixed(r, 4); break;
	case DW_FORM_data8: *num = fixed(r, 8); break;
	case DW_FORM_data16: fixed(r, 8), fixed(r, 8); break;
	case DW_FORM_block: {
		uint64_t n = uleb(r);
		if (n > (uint64_t)(r->end - r->p))
			return -1;
		r->p += n;
		break;
	}
	default:
		return -1; /* strx and friends: leave it to libdw */
	}
	return r->bad ? -1 : 0;
}

/* LLVM's sys::path::append of one component, POSIX style. */
static void path_append(char *buf, size_t *len, size_t cap, const char *c)
{
	size_t n = *len;
	if (n && buf[n - 1] == '/') {
		while (*c == '/')
			c++;
	} else if (n && *c != '/') {
		if (n + 1 < cap)
			buf[n++] = '/';
	}
	size_t cl = strlen(c);
	if (n + cl >= cap)
		cl = cap - n - 1;
	memcpy(buf + n, c, cl);
	n += cl;
	buf[n] = 0;
	*len = n;
}

struct entry {
	const char *name;
	uint64_t dir;
};

static uint32_t compose(struct spgo_binary *bin, int version, const char *comp_dir, const struct entry *dirs,
			size_t ndirs, const struct entry *f)
{
	if (!f->name)
		return SPGO_NO_FILE;
	if (f->name[0] == '/')
		return spgo_strtab_intern(&bin->file_strs, f->name, strlen(f->name));
	const char *inc = "";
	if (version >= 5) {
		if (f->dir < ndirs && dirs[f->dir].name)
			inc = dirs[f->dir].name;
	} else if (f->dir > 0 && f->dir <= ndirs && dirs[f->dir - 1].name) {
		inc = dirs[f->dir - 1].name;
	}
	char buf[4096];
	size_t len = 0;
	buf[0] = 0;
	if ((version < 5 || f->dir != 0) && comp_dir && comp_dir[0] && inc[0] != '/')
		path_append(buf, &len, sizeof buf, comp_dir);
	if (inc[0])
		path_append(buf, &len, sizeof buf, inc);
	path_append(buf, &len, sizeof buf, f->name);
	return spgo_strtab_intern(&bin->file_strs, buf, len);
}

typedef VEC(struct entry) entry_vec;

/* DWARF 5 directory or file table. */
static int read_table_v5(struct reader *r, const struct spgo_line_sections *sec, unsigned off_size, entry_vec *out)
{
	uint8_t nfmt = u8(r);
	uint64_t fmt[2 * 16];
	if (nfmt > 16)
		return -1;
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[2 * i] = uleb(r);
		fmt[2 * i + 1] = uleb(r);
	}
	uint64_t count = uleb(r);
	if (r->bad || count > (uint64_t)(r->end - r->p))
		return -1;
	for (uint64_t k = 0; k < count; k++) {
		struct entry e = {NULL, 0};
		for (unsigned i = 0; i < nfmt; i++) {
			const char *s;
			uint64_t v;
			if (read_form(r, sec, fmt[2 * i + 1], off_size, &s, &v) < 0)
				return -1;
			if (fmt[2 * i] == DW_LNCT_path)
				e.name = s;
			else if (fmt[2 * i] == DW_LNCT_directory_index)
				e.dir = v;
		}
		VEC_PUSH(out, e);
	}
	return 0;
}

int spgo_read_line_program(struct spgo_binary *bin, const struct spgo_line_sections *sec, uint64_t offset,
			   const char *comp_dir, struct spgo_cu_files *cf)
{
	cf->ids = NULL;
	cf->n = 0;
	if (!sec->line.data || offset >= sec->line.size)
		return -1;
	struct reader r = {sec->line.data + offset, sec->line.data + sec->line.size, 0};
	unsigned off_size = 4;
	uint64_t unit_length = fixed(&r, 4);
	if (unit_length == 0xffffffffu) {
		unit_length = fixed(&r, 8);
		off_size = 8;
	}
	if (r.bad || unit_length > (uint64_t)(r.end - r.p))
		return -1;
	r.end = r.p + unit_length;
	int version = (int)fixed(&r, 2);
	if (version < 2 || version > 5)
		return -1;
	if (version >= 5) {
		u8(&r); /* address_size */
		u8(&r); /* segment_selector_size */
	}
	uint64_t header_length = fixed(&r, off_size);
	if (r.bad || header_length > (uint64_t)(r.end - r.p))
		return -1;
	const uint8_t *program = r.p + header_length;
	unsigned min_inst = u8(&r);
	if (version >= 4)
		u8(&r); /* maximum_operations_per_instruction: 1 on our machines */
	u8(&r);         /* default_is_stmt */
	int line_base = (int8_t)u8(&r);
	unsigned line_range = u8(&r);
	unsigned opcode_base = u8(&r);
	if (r.bad || line_range == 0 || opcode_base == 0 || (size_t)(r.end - r.p) < opcode_base - 1)
		return -1;
	const uint8_t *std_len = r.p;
	r.p += opcode_base - 1;

	entry_vec dirs = {0}, files = {0};
	size_t first_seq = bin->seqs.n;
	int rc = -1;
	if (version >= 5) {
		if (read_table_v5(&r, sec, off_size, &dirs) < 0 || read_table_v5(&r, sec, off_size, &files) < 0)
			goto out;
	} else {
		for (;;) {
			const char *d = cstr(&r);
			if (!d || !*d)
				break;
			struct entry e = {d, 0};
			VEC_PUSH(&dirs, e);
		}
		for (;;) {
			const char *f = cstr(&r);
			if (!f || !*f)
				break;
			struct entry e = {f, uleb(&r)};
			uleb(&r);
			uleb(&r);
			VEC_PUSH(&files, e);
		}
	}
	if (r.bad || program > r.end)
		goto out;

	/* The file table, as strtab ids by DWARF file index. */
	size_t base = version >= 5 ? 0 : 1;
	cf->n = files.n + base;
	cf->ids = xmalloc((cf->n ? cf->n : 1) * sizeof *cf->ids);
	for (size_t i = 0; i < base; i++)
		cf->ids[i] = SPGO_NO_FILE;
	for (size_t i = 0; i < files.n; i++)
		cf->ids[i + base] = compose(bin, version, comp_dir, dirs.v, dirs.n, &files.v[i]);

	/* The program. */
	size_t first = bin->rows.n, seq_first = first;
	r.p = program;
	uint64_t addr = 0, file = 1, line = 1, col = 0, disc = 0;
	int tomb = 0;
#define EMIT(is_end)                                                                               \
	do {                                                                                       \
		struct spgo_line_row row_ = {addr, (uint32_t)line, SPGO_NO_FILE, (uint32_t)col,   \
					      (uint32_t)disc};                                     \
		if (!(is_end)) {                                                                   \
			row_.file = file < cf->n ? cf->ids[file] : SPGO_NO_FILE;                   \
			if (row_.file == SPGO_NO_FILE)                                             \
				row_.file = SPGO_BAD_FILE;                                         \
		}                                                                                  \
		VEC_PUSH(&bin->rows, row_);                                                        \
		disc = 0;                                                                          \
	} while (0)
	while (r.p < r.end && !r.bad) {
		unsigned op = u8(&r);
		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;
			addr += (uint64_t)min_inst * (adj / line_range);
			line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
			EMIT(0);
			continue;
		}
		switch (op) {
		case 0: {
			uint64_t len = uleb(&r);
			if (len == 0 || len > (uint64_t)(r.end - r.p)) {
				r.bad = len != 0;
				break;
			}
			const uint8_t *next = r.p + len;
			unsigned sub = u8(&r);
			if (sub == DW_LNE_end_sequence) {
				EMIT(1);
				/* Keep a sequence LLVM would keep (lo < hi), not
				 * a discarded function's (tombstone address). */
				uint64_t lo = bin->rows.v[seq_first].addr;
				if (tomb || bin->rows.n - seq_first < 2 || lo >= addr) {
					bin->rows.n = seq_first;
				} else {
					struct spgo_line_seq sq = {lo, addr, seq_first, bin->rows.n};
					VEC_PUSH(&bin->seqs, sq);
				}
				seq_first = bin->rows.n;
				addr = 0, file = 1, line = 1, col = 0, disc = 0, tomb = 0;
			} else if (sub == DW_LNE_set_address) {
				unsigned n = (unsigned)(len - 1);
				addr = fixed(&r, n > 8 ? 8 : n);
				tomb = n >= 4 && addr == (n >= 8 ? UINT64_MAX : 0xffffffffu);
			} else if (sub == DW_LNE_define_file && version < 5) {
				const char *f = cstr(&r);
				struct entry e = {f, uleb(&r)};
				cf->ids = xrealloc(cf->ids, (cf->n + 1) * sizeof *cf->ids);
				cf->ids[cf->n++] = compose(bin, version, comp_dir, dirs.v, dirs.n, &e);
			} else if (sub == DW_LNE_set_discriminator) {
				disc = uleb(&r);
			}
			r.p = next;
			break;
		}
		case DW_LNS_copy: EMIT(0); break;
		case DW_LNS_advance_pc: addr += (uint64_t)min_inst * uleb(&r); break;
		case DW_LNS_advance_line: line += (uint64_t)sleb(&r); break;
		case DW_LNS_set_file: file = uleb(&r); break;
		case DW_LNS_set_column: col = uleb(&r); break;
		case DW_LNS_negate_stmt:
		case DW_LNS_set_basic_block:
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin: break;
		case DW_LNS_const_add_pc: addr += (uint64_t)min_inst * ((255 - opcode_base) / line_range); break;
		case DW_LNS_fixed_advance_pc: addr += fixed(&r, 2); break;
		default:
			for (unsigned i = 0; i < std_len[op - 1]; i++)
				uleb(&r);
		}
	}
#undef EMIT
	/* Rows after the last end of sequence belong to no sequence. */
	bin->rows.n = seq_first;
	if (r.bad) {
		bin->rows.n = first;
		bin->seqs.n = first_seq;
		free(cf->ids);
		cf->ids = NULL;
		cf->n = 0;
		goto out;
	}
	rc = 0;
out:
	VEC_FREE(&dirs);
	VEC_FREE(&files);
	return rc;
}
