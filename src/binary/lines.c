/*
 * Address -> inline frames, by binary searches in the tables dwarf.c built:
 * the CU owning the address, the line row at it (the last row of that CU at
 * or before it), the innermost scope covering it, then the chain of scopes
 * outward to the out-of-line subprogram.  This follows what
 * llvm-symbolizer --inlines reports.
 */
#include "binary/binary_impl.h"

static const char *name_or_null(const struct spgo_binary *bin, uint32_t id)
{
	return id >= SPGO_BAD_FILE ? NULL : spgo_strtab_get(&bin->strs, id);
}

static const char *file_or_null(const struct spgo_binary *bin, uint32_t id)
{
	return id >= SPGO_BAD_FILE ? NULL : spgo_strtab_get(&bin->file_strs, id);
}

/* The path of file index idx of the CU, or NULL. */
static const char *cu_file(const struct spgo_binary *bin, const struct spgo_cu *cu, uint32_t idx)
{
	return idx < cu->nfiles ? file_or_null(bin, cu->files[idx]) : NULL;
}

/*
 * Each search first tries the answer of the previous lookup and the one
 * after it: addresses usually come in order (instructions of a function,
 * sorted samples), and then a lookup touches two cache lines instead of
 * twenty.
 */

/*
 * Each also lowers *until to the first address above addr where its answer
 * may change (spgo_binary_symbolize_until()).
 */
static void lower(uint64_t *until, uint64_t a)
{
	if (a < *until)
		*until = a;
}

/* Index of the CU owning addr, or -1. */
static long find_cu(const struct spgo_binary *bin, struct spgo_cursor *cur, uint64_t addr, uint64_t *until)
{
	size_t h = cur->cu;
	if (h < bin->cu_ranges.n && bin->cu_ranges.v[h].lo <= addr && addr < bin->cu_ranges.v[h].hi) {
		lower(until, bin->cu_ranges.v[h].hi);
		return (long)bin->cu_ranges.v[h].cu;
	}
	size_t lo = 0, hi = bin->cu_ranges.n;
	while (lo < hi) { /* first range with lo > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (bin->cu_ranges.v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < bin->cu_ranges.n)
		lower(until, bin->cu_ranges.v[lo].lo);
	if (lo == 0)
		return -1;
	const struct spgo_cu_range *r = &bin->cu_ranges.v[lo - 1];
	cur->cu = lo - 1;
	if (addr >= r->hi)
		return -1;
	lower(until, r->hi);
	return (long)r->cu;
}

/*
 * The row at addr: in the CU's first sequence (by end address) ending
 * after addr, if it starts at or before addr, the last row at or before
 * addr (the last of several at one address), never the end row.
 */
static const struct spgo_line_row *find_row(const struct spgo_binary *bin, struct spgo_cursor *cur,
					   const struct spgo_cu *cu, uint64_t addr, uint64_t *until)
{
	const struct spgo_line_seq *seqs = bin->seqs.v;
	size_t s = cur->seq;
	if (!(s >= cu->seq_begin && s < cu->seq_end && seqs[s].lo <= addr && addr < seqs[s].hi &&
	      (s == cu->seq_begin || seqs[s - 1].hi <= addr))) {
		size_t lo = cu->seq_begin, hi = cu->seq_end;
		while (lo < hi) { /* first sequence with hi > addr */
			size_t mid = lo + (hi - lo) / 2;
			if (seqs[mid].hi <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == cu->seq_end)
			return NULL;
		if (seqs[lo].lo > addr) {
			/* Earlier sequences end at or before addr: none is
			 * found until seqs[lo] starts. */
			lower(until, seqs[lo].lo);
			return NULL;
		}
		s = cur->seq = lo;
	}
	const struct spgo_line_row *rows = bin->rows.v;
	size_t first = seqs[s].row_begin, last = seqs[s].row_end - 1; /* rows [first, last) */
	size_t h = cur->row;
	if (h >= first && h < last && rows[h].addr <= addr) {
		/* Walk forward a few rows (several rows often share an address). */
		for (size_t k = 0; k < 16; k++, h++) {
			if (h + 1 == last || rows[h + 1].addr > addr) {
				cur->row = h;
				lower(until, rows[h + 1].addr); /* the end row: the sequence's end */
				return &rows[h];
			}
		}
	}
	size_t lo = first + 1, hi = last;
	while (lo < hi) { /* first row after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	cur->row = lo - 1;
	lower(until, rows[lo].addr);
	return &rows[lo - 1];
}

static long find_scope(const struct spgo_binary *bin, struct spgo_cursor *cur, const struct spgo_cu *cu,
		       uint64_t addr, uint64_t *until)
{
	const struct spgo_scope_range *rg = bin->ranges.v;
	size_t h = cur->range;
	if (h >= cu->range_begin && h < cu->range_end && rg[h].lo <= addr) {
		for (size_t k = 0; k < 16; k++, h++) {
			if (h + 1 == cu->range_end || rg[h + 1].lo > addr) {
				cur->range = h;
				if (h + 1 < cu->range_end)
					lower(until, rg[h + 1].lo);
				if (addr >= rg[h].hi)
					return -1;
				lower(until, rg[h].hi);
				return (long)rg[h].scope;
			}
		}
	}
	size_t lo = cu->range_begin, hi = cu->range_end;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bin->ranges.v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < cu->range_end)
		lower(until, rg[lo].lo);
	if (lo == cu->range_begin)
		return -1;
	const struct spgo_scope_range *r = &rg[lo - 1];
	cur->range = lo - 1;
	if (addr >= r->hi)
		return -1;
	lower(until, r->hi);
	return (long)r->scope;
}

/* The frame's decoded discriminator, as the binary's consumer reads it. */
static void set_disc(const struct spgo_binary *bin, struct spgo_frame *f, uint32_t disc)
{
	struct spgo_disc d;
	f->discriminator = disc;
	spgo_disc_decode(disc, (enum spgo_disc_kind)bin->disc_kind, &d);
	f->base_discriminator = d.base;
	f->dup_factor = d.dup_factor;
}

static void set_location(const struct spgo_binary *bin, struct spgo_frame *f, const char *file, uint32_t line,
			 uint32_t col, uint32_t disc)
{
	f->file = file;
	f->line = file ? line : 0;
	f->column = file ? col : 0;
	set_disc(bin, f, file ? disc : 0);
}

int spgo_binary_symbolize(struct spgo_binary *bin, uint64_t addr, struct spgo_frame *frames, int max)
{
	uint64_t until;
	return spgo_binary_symbolize_until(bin, NULL, addr, frames, max, &until);
}

int spgo_binary_symbolize_until(struct spgo_binary *bin, struct spgo_cursor *cur, uint64_t addr,
				struct spgo_frame *frames, int max, uint64_t *until)
{
	*until = addr + 1;
	if (SPGO_UNLIKELY(bin->debug_state != 1) && spgo_binary_load_debug(bin) < 0)
		return -1;
	if (!cur)
		cur = &bin->cursor;
	*until = UINT64_MAX;
	long cui = find_cu(bin, cur, addr, until);
	if (cui < 0)
		return 0;
	const struct spgo_cu *cu = &bin->cus.v[cui];
	const struct spgo_line_row *row = find_row(bin, cur, cu, addr, until);
	long s = find_scope(bin, cur, cu, addr, until);
	if (s < 0) {
		if (!row)
			return 0;
		/* A line row but no subprogram DIE: one nameless frame. */
		if (max > 0) {
			struct spgo_frame *f = &frames[0];
			*f = (struct spgo_frame){0};
			set_location(bin, f, file_or_null(bin, row->file), row->line, row->column, row->discriminator);
		}
		return 1;
	}
	int n = 0;
	const struct spgo_scope *inner = NULL;
	for (;;) {
		const struct spgo_scope *sc = &bin->scopes.v[s];
		if (n < max) {
			struct spgo_frame *f = &frames[n];
			f->function = name_or_null(bin, sc->name);
			f->decl_line = sc->decl_line;
			f->inlined = sc->inlined;
			if (!inner) {
				if (row)
					set_location(bin, f, file_or_null(bin, row->file), row->line, row->column, row->discriminator);
				else
					set_location(bin, f, NULL, 0, 0, 0);
			} else {
				/* The call site of the frame inside this one; LLVM
				 * keeps line and column even when the file is bad. */
				f->file = cu_file(bin, cu, inner->call_file);
				f->line = inner->call_line;
				f->column = inner->call_column;
				set_disc(bin, f, inner->call_discriminator);
				frames[n - 1].call_file = f->file;
				frames[n - 1].call_line = f->line;
				frames[n - 1].call_column = f->column;
				frames[n - 1].call_discriminator = f->discriminator;
			}
			f->call_file = NULL;
			f->call_line = f->call_column = f->call_discriminator = 0;
		}
		n++;
		inner = sc;
		if (!sc->inlined || sc->parent < 0)
			break;
		s = sc->parent;
	}
	return n;
}

size_t spgo_binary_line_errors(struct spgo_binary *bin)
{
	if (bin->debug_state != 1 && spgo_binary_load_debug(bin) < 0)
		return 0;
	return bin->line_errors;
}

int spgo_binary_line_damaged(struct spgo_binary *bin, uint64_t addr)
{
	if (!spgo_binary_line_errors(bin))
		return 0;
	struct spgo_cursor cur = {0};
	uint64_t until = UINT64_MAX;
	long cui = find_cu(bin, &cur, addr, &until);
	return cui >= 0 && bin->cus.v[cui].line_error;
}
