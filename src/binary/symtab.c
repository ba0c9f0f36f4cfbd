/*
 * Symbols (.symtab, else .dynsym) and the function table built from the
 * DWARF subprograms plus the symbols DWARF does not cover.
 *
 * Which symbols count follows llvm-symbolizer: defined symbols of allocated
 * sections whose type is FUNC, OBJECT, NOTYPE or GNU_IFUNC; per address the
 * one with the largest size (the last in table order among equals) names
 * it; a local symbol carries the name of the STT_FILE symbol before it.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"

struct sym_tmp {
	struct spgo_symbol s;
	uint32_t index; /* position in the symbol table: keeps the sort stable */
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym_tmp *x = a, *y = b;
	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	if (x->s.size != y->s.size)
		return x->s.size < y->s.size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static Elf_Scn *find_symtab(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

static void load_symbols(struct spgo_binary *bin)
{
	bin->syms_loaded = 1;
	Elf_Scn *scn = find_symtab(bin->elf, SHT_SYMTAB);
	if (!scn)
		scn = find_symtab(bin->elf, SHT_DYNSYM);
	if (!scn)
		return;
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!gelf_getshdr(scn, &sh) || !data || !sh.sh_entsize)
		return;
	size_t n = sh.sh_size / sh.sh_entsize;
	VEC(struct sym_tmp) tmp = {0};
	const char *file = NULL;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		const char *name = elf_strptr(bin->elf, sh.sh_link, sym.st_name);
		if (!name)
			name = "";
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if (type == STT_FILE) {
			/* ld's own STT_FILE has an empty name: no file, "??" as
			 * llvm-symbolizer prints it, not an empty name. */
			file = *name ? name : NULL;
			continue;
		}
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		if (type != STT_NOTYPE && type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC)
			continue;
		Elf_Scn *sec = elf_getscn(bin->elf, sym.st_shndx);
		GElf_Shdr ssh;
		if (!sec || !gelf_getshdr(sec, &ssh) || !(ssh.sh_flags & SHF_ALLOC))
			continue;
		/* AArch64 mapping symbols mark code and data, they name nothing. */
		if (bin->machine == EM_AARCH64 && (!strncmp(name, "$x", 2) || !strncmp(name, "$d", 2)))
			continue;
		struct sym_tmp t = {{0}, (uint32_t)i};
		t.s.addr = sym.st_value + (bin->kind == SPGO_ELF_REL ? ssh.sh_addr : 0);
		t.s.size = sym.st_size;
		t.s.name = spgo_strtab_get(&bin->strs, spgo_strtab_intern(&bin->strs, name, strlen(name)));
		t.s.file = bind == STB_LOCAL && file ? spgo_strtab_get(&bin->strs, spgo_strtab_intern(&bin->strs, file, strlen(file))) : NULL;
		t.s.type = (uint8_t)type;
		t.s.bind = (uint8_t)bind;
		VEC_PUSH(&tmp, t);
	}
	if (tmp.n > 1)
		spgo_sort(tmp.v, tmp.n, sizeof *tmp.v, cmp_sym);
	VEC_GROW(&bin->syms, tmp.n);
	for (size_t i = 0; i < tmp.n; i++) {
		bin->syms.v[bin->syms.n++] = tmp.v[i].s;
		if (i + 1 == tmp.n || tmp.v[i + 1].s.addr != tmp.v[i].s.addr)
			VEC_PUSH(&bin->llvm_syms, (uint32_t)i);
	}
	VEC_FREE(&tmp);
}

const struct spgo_symbol *spgo_binary_symbols(struct spgo_binary *bin, size_t *n)
{
	if (!bin->syms_loaded)
		load_symbols(bin);
	*n = bin->syms.n;
	return bin->syms.v;
}

const struct spgo_symbol *spgo_binary_symbol_at(struct spgo_binary *bin, uint64_t addr)
{
	uint64_t until;
	return spgo_binary_symbol_at_until(bin, NULL, addr, &until);
}

/* The symbol of llvm_syms[h] if it covers addr; *until: where that ends. */
static const struct spgo_symbol *symbol_of(const struct spgo_binary *bin, size_t h, uint64_t addr, uint64_t *until)
{
	const struct spgo_symbol *s = &bin->syms.v[bin->llvm_syms.v[h]];
	*until = h + 1 < bin->llvm_syms.n ? bin->syms.v[bin->llvm_syms.v[h + 1]].addr : UINT64_MAX;
	if (s->size == 0)
		return s;
	if (addr - s->addr >= s->size)
		return NULL;
	if (s->addr + s->size < *until)
		*until = s->addr + s->size;
	return s;
}

const struct spgo_symbol *spgo_binary_symbol_at_until(struct spgo_binary *bin, struct spgo_cursor *cur, uint64_t addr,
						      uint64_t *until)
{
	if (!bin->syms_loaded)
		load_symbols(bin);
	if (!cur)
		cur = &bin->cursor;
	/* The previous answer first: addresses often come in order. */
	size_t h = cur->sym, nl = bin->llvm_syms.n;
	if (h < nl && bin->syms.v[bin->llvm_syms.v[h]].addr <= addr &&
	    (h + 1 == nl || bin->syms.v[bin->llvm_syms.v[h + 1]].addr > addr))
		return symbol_of(bin, h, addr, until);
	size_t lo = 0, hi = nl;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bin->syms.v[bin->llvm_syms.v[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) {
		*until = nl ? bin->syms.v[bin->llvm_syms.v[0]].addr : UINT64_MAX;
		return NULL;
	}
	cur->sym = lo - 1;
	return symbol_of(bin, lo - 1, addr, until);
}

/* ---- functions ------------------------------------------------------------ */

static int cmp_func(const void *a, const void *b)
{
	const struct spgo_function *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->has_debug > y->has_debug ? -1 : x->has_debug < y->has_debug;
}

/* The symbol starting exactly at addr that names it, preferring functions. */
static const struct spgo_symbol *symbol_starting_at(struct spgo_binary *bin, uint64_t addr)
{
	const struct spgo_symbol *s = spgo_binary_symbol_at(bin, addr);
	if (!s || s->addr != addr)
		return NULL;
	if (s->type == STT_FUNC || s->type == STT_GNU_IFUNC)
		return s;
	for (const struct spgo_symbol *t = s; t >= bin->syms.v && t->addr == addr; t--)
		if (t->type == STT_FUNC || t->type == STT_GNU_IFUNC)
			return t;
	return s;
}

/* Length of the name without a split-part suffix (".cold", ".cold.N",
 * ".part.N"), or 0 if it has none. */
static size_t split_base_len(const char *name)
{
	const char *c = strstr(name, ".cold");
	const char *p = strstr(name, ".part.");
	const char *cut = c && (!p || c < p) ? c : p;
	if (!cut || cut == name)
		return 0;
	return (size_t)(cut - name);
}

static void load_functions(struct spgo_binary *bin)
{
	bin->funcs_loaded = 1;
	if (!bin->syms_loaded)
		load_symbols(bin);
	/* DWARF parts, if there is debug info (none otherwise, no error). */
	if (bin->debug_state == 0 && spgo_binary_load_debug(bin) < 0 && !bin->debug_absent)
		spgo_warn("%s; functions from the symbol table only", spgo_errmsg());
	/* A subprogram with several ranges (foo and its foo.cold in one DIE):
	 * the first range listed is its entry.  part start -> entry start. */
	struct spgo_kmap first_of_scope, entry_of;
	spgo_kmap_init(&first_of_scope, 1);
	spgo_kmap_init(&entry_of, 1);
	for (size_t i = 0; bin->debug_state == 1 && i < bin->subprograms.n; i++) {
		const struct spgo_scope_range *r = &bin->subprograms.v[i];
		const struct spgo_scope *sc = &bin->scopes.v[r->scope];
		uint64_t key = r->scope;
		uint64_t *first = spgo_kmap_upsert(&first_of_scope, &key);
		if (!*first)
			*first = r->lo + 1;
		key = r->lo;
		*spgo_kmap_upsert(&entry_of, &key) = *first - 1;
		struct spgo_function f = {0};
		f.start = r->lo;
		f.end = r->hi;
		f.name = sc->name < SPGO_BAD_FILE ? spgo_strtab_get(&bin->strs, sc->name) : "";
		f.decl_line = sc->decl_line;
		f.has_debug = 1;
		VEC_PUSH(&bin->funcs, f);
	}
	size_t ndwarf = bin->funcs.n;
	if (ndwarf > 1)
		spgo_sort(bin->funcs.v, ndwarf, sizeof *bin->funcs.v, cmp_func);
	/* Drop DWARF parts overlapping an earlier one (discarded or folded
	 * functions left at address 0, duplicate CUs). */
	size_t k = 0;
	for (size_t i = 0; i < ndwarf; i++) {
		if (k && bin->funcs.v[i].start < bin->funcs.v[k - 1].end)
			continue;
		bin->funcs.v[k++] = bin->funcs.v[i];
	}
	bin->funcs.n = ndwarf = k;
	/* Function symbols in no DWARF part. */
	for (size_t i = 0; i < bin->syms.n; i++) {
		const struct spgo_symbol *s = &bin->syms.v[i];
		if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) || s->size == 0)
			continue;
		size_t lo = 0, hi = ndwarf;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (bin->funcs.v[mid].start <= s->addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && s->addr < bin->funcs.v[lo - 1].end)
			continue;
		if (bin->funcs.n > ndwarf && bin->funcs.v[bin->funcs.n - 1].start == s->addr)
			continue; /* an alias of the previous one */
		struct spgo_function f = {s->addr, s->addr + s->size, s->name, 0, -1, s->name, 0};
		VEC_PUSH(&bin->funcs, f);
	}
	if (bin->funcs.n > 1)
		spgo_sort(bin->funcs.v, bin->funcs.n, sizeof *bin->funcs.v, cmp_func);
	/* Symbols, and the parents of split parts by name. */
	struct spgo_kmap by_symbol;
	spgo_kmap_init(&by_symbol, 1);
	for (size_t i = 0; i < bin->funcs.n; i++) {
		struct spgo_function *f = &bin->funcs.v[i];
		const struct spgo_symbol *s = symbol_starting_at(bin, f->start);
		f->symbol = s ? s->name : f->name;
		f->parent = -1;
		uint64_t key = spgo_strtab_intern(&bin->strs, f->symbol, strlen(f->symbol));
		uint64_t *v = spgo_kmap_upsert(&by_symbol, &key);
		if (!*v)
			*v = i + 1;
	}
	for (size_t i = 0; i < bin->funcs.n; i++) {
		struct spgo_function *f = &bin->funcs.v[i];
		size_t len = split_base_len(f->symbol);
		if (len) {
			uint64_t key = spgo_strtab_intern(&bin->strs, f->symbol, len);
			uint64_t *v = spgo_kmap_find(&by_symbol, &key);
			if (v && *v - 1 != i)
				f->parent = (int32_t)(*v - 1);
		}
		/* No symbol says so (a stripped binary): the DIE's first range. */
		uint64_t key = f->start;
		uint64_t *entry = f->parent < 0 && f->has_debug ? spgo_kmap_find(&entry_of, &key) : NULL;
		if (entry && *entry != f->start) {
			const struct spgo_function *p = spgo_binary_function_at(bin, *entry);
			if (p && p->start == *entry)
				f->parent = (int32_t)(p - bin->funcs.v);
		}
	}
	spgo_kmap_free(&first_of_scope);
	spgo_kmap_free(&entry_of);
	spgo_kmap_free(&by_symbol);
}

const struct spgo_function *spgo_binary_functions(struct spgo_binary *bin, size_t *n)
{
	if (!bin->funcs_loaded)
		load_functions(bin);
	*n = bin->funcs.n;
	return bin->funcs.v;
}

const struct spgo_function *spgo_binary_function_at(struct spgo_binary *bin, uint64_t addr)
{
	if (!bin->funcs_loaded)
		load_functions(bin);
	size_t lo = 0, hi = bin->funcs.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bin->funcs.v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= bin->funcs.v[lo - 1].end)
		return NULL;
	return &bin->funcs.v[lo - 1];
}

void spgo_binary_free_symbols(struct spgo_binary *bin)
{
	VEC_FREE(&bin->syms);
	VEC_FREE(&bin->llvm_syms);
	VEC_FREE(&bin->funcs);
	bin->syms_loaded = bin->funcs_loaded = 0;
}
