/*
 * Pseudo-probes: .pseudo_probe_desc and .pseudo_probe decoded into the
 * binary model (see spgo/probe.h for what is kept and the contract).
 *
 * The encoding, as clang writes it (LLVM's MCPseudoProbe.h is the spec):
 *
 * .pseudo_probe_desc: one entry per function, back to back:
 *     GUID       u64, little-endian
 *     HASH       u64, little-endian: the CFG checksum
 *     NAMESIZE   ULEB128
 *     NAME       NAMESIZE bytes, no NUL
 *
 * .pseudo_probe: top-level function records, back to back.  A record:
 *     CALLSITE   ULEB128, in inlined records only: the probe id of the call
 *                in the parent record's function it was inlined at
 *     GUID       u64 LE
 *     NPROBES    ULEB128 (a sentinel probe counts)
 *     NINLINED   ULEB128
 *     NPROBES probes:
 *         INDEX   ULEB128, the probe id
 *         KIND    u8: bits 0-3 type (0 block, 1 indirect call, 2 direct
 *                 call), bits 4-6 attributes (1 reserved, 2 sentinel,
 *                 4 has a discriminator), bit 7 the address is a delta
 *         ADDRESS bit 7 set: SLEB128, the delta from the previous probe's
 *                 address (the previous one in the section, whatever
 *                 record it was in); bit 7 clear: u64 LE, an absolute
 *                 address (the legacy encoding), or for a sentinel the
 *                 GUID of the symbol of the split part the record is for
 *         DISCRIM ULEB128, only if attribute 4
 *     NINLINED records (each with its CALLSITE), depth first, in the
 *     order of (GUID, CALLSITE)
 *
 * Where addresses start: in the newer encoding (deltas only), the previous
 * address at a top-level record is the start of the symbol whose MD5 GUID
 * is the record's GUID (foo's record in foo's section).  A record for a
 * split part (foo's probes in foo.cold) begins with a sentinel probe whose
 * "address" is the GUID of "foo.cold": the deltas then count from that
 * symbol.  The first absolute address of a non-sentinel probe marks the
 * legacy encoding, where every function's first probe is absolute and
 * records are not re-based.  This is what llvm-profgen does, except that a
 * record whose function part has no symbol is left out here (llvm-profgen
 * goes on from the previous record's last address and places its probes in
 * some other function).
 *
 * Both sections are read twice: first to check every field and count
 * (nothing is allocated from a count read from the file before the bytes
 * that back it are known to be there), then to fill arrays of that size.
 * The inline tree is walked with an explicit stack: a crafted section
 * cannot exhaust the C stack.
 */
#include <gelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"
#include "common/bytes.h"

#define DESC_SECTION ".pseudo_probe_desc"
#define PROBE_SECTION ".pseudo_probe"

/* The smallest encodings: a probe is INDEX, KIND and a one-byte delta; an
 * inlined record is CALLSITE, GUID, NPROBES and NINLINED. */
#define MIN_PROBE_BYTES 3
#define MIN_INLINED_BYTES 11

/* ---- reading fields ------------------------------------------------------ */

/* A cursor over one section (common/bytes.h); failures name the file,
 * section and the offset in the section of the field that failed. */
struct pcur {
	struct rd in;
	const char *path, *section;
};

SPGO_PRINTF(3, 4) static int pfail(const struct pcur *r, const uint8_t *at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return spgo_error("%s: section %s offset 0x%zx: %s", r->path, r->section, (size_t)(at - r->in.base), msg);
}

static int get_u8(struct pcur *r, uint8_t *v, const char *what)
{
	const uint8_t *at = r->in.p;
	*v = rd_u8(&r->in);
	return r->in.bad ? pfail(r, at, "truncated %s: the section ends", what) : 0;
}

static int get_u64(struct pcur *r, uint64_t *v, const char *what)
{
	const uint8_t *at = r->in.p;
	size_t left = rd_left(&r->in);
	*v = rd_u64(&r->in);
	return r->in.bad ? pfail(r, at, "truncated %s: 8 bytes needed, %zu left", what, left) : 0;
}

/* ULEB128 whose value must fit in 32 bits. */
static int get_uleb32(struct pcur *r, uint32_t *v, const char *what)
{
	const uint8_t *at = r->in.p;
	uint64_t x = rd_uleb(&r->in);
	if (r->in.bad == RD_OVERFLOW)
		return pfail(r, at, "%s: ULEB128 overflows 64 bits", what);
	if (r->in.bad)
		return pfail(r, at, "truncated %s: the ULEB128 runs past the end of the section", what);
	if (x > UINT32_MAX)
		return pfail(r, at, "%s %llu does not fit in 32 bits", what, (unsigned long long)x);
	*v = (uint32_t)x;
	return 0;
}

/* SLEB128 (a signed 64-bit value). */
static int get_sleb64(struct pcur *r, int64_t *v, const char *what)
{
	const uint8_t *at = r->in.p;
	*v = rd_sleb(&r->in);
	if (r->in.bad == RD_OVERFLOW)
		return pfail(r, at, "%s: SLEB128 overflows 64 bits", what);
	if (r->in.bad)
		return pfail(r, at, "truncated %s: the SLEB128 runs past the end of the section", what);
	return 0;
}

/* ---- symbols by GUID -------------------------------------------------------- */

/* A code symbol and the GUID of its name. */
struct sym_guid {
	uint64_t guid, addr;
	uint32_t name;  /* bin->strs id */
	uint32_t order; /* position in the symbol table */
};

typedef VEC(struct sym_guid) sym_guid_vec;

static int cmp_sym_guid(const void *a, const void *b)
{
	const struct sym_guid *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The defined symbols of executable sections (.symtab, else .dynsym), by
 * GUID.  Of several symbols with one name (static functions of different
 * files) the last in the table is kept, as llvm-profgen does; *dups counts
 * the names that had another address.
 */
static void read_symbol_guids(struct spgo_binary *bin, sym_guid_vec *out, size_t *dups)
{
	*dups = 0;
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && !tab)
			tab = scn;
		else if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && !dyn)
			dyn = scn;
	}
	scn = tab ? tab : dyn;
	GElf_Shdr sh;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_value == 0)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE)
			continue;
		Elf_Scn *sec = elf_getscn(bin->elf, sym.st_shndx);
		GElf_Shdr ssh;
		if (!sec || !gelf_getshdr(sec, &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(bin->elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		size_t len = strlen(name);
		struct sym_guid s = {spgo_md5_guid(name, len), sym.st_value,
				     spgo_strtab_intern(&bin->strs, name, len), (uint32_t)i};
		VEC_PUSH(out, s);
	}
	if (out->n > 1)
		spgo_sort(out->v, out->n, sizeof *out->v, cmp_sym_guid);
	/* Keep the last of each GUID. */
	size_t k = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (k && out->v[k - 1].guid == out->v[i].guid) {
			*dups += out->v[k - 1].addr != out->v[i].addr;
			out->v[k - 1] = out->v[i];
		} else {
			out->v[k++] = out->v[i];
		}
	}
	out->n = k;
}

static const struct sym_guid *find_symbol(const struct sym_guid *syms, size_t n, uint64_t guid)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, syms, n, guid, guid);
	return lo < n && syms[lo].guid == guid ? &syms[lo] : NULL;
}

/* ---- .pseudo_probe_desc ----------------------------------------------------- */

/* Index of guid in the GUID-sorted descriptors, or -1. */
static int32_t find_desc(const struct spgo_binary *bin, uint64_t guid)
{
	size_t lo, n = bin->probe_descs.n;
	SPGO_LOWER_BOUND(lo, bin->probe_descs.v, n, guid, guid);
	return lo < n && bin->probe_descs.v[lo].guid == guid ? (int32_t)lo : -1;
}

/* A descriptor while reading: its offset keeps the sort stable and names
 * it in warnings. */
struct desc_tmp {
	struct spgo_probe_desc d;
	size_t off;
};

static int cmp_desc_tmp(const void *a, const void *b)
{
	const struct desc_tmp *x = a, *y = b;
	if (x->d.guid != y->d.guid)
		return x->d.guid < y->d.guid ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int read_descs(struct spgo_binary *bin, const uint8_t *data, size_t size)
{
	struct pcur r = {rd_init(data, size), bin->path, DESC_SECTION};
	/* First pass: check and count (an entry takes 17 bytes at least, so
	 * the count is bounded by the section's size). */
	size_t n = 0;
	while (r.in.p < r.in.end) {
		uint64_t guid = 0, hash = 0;
		uint32_t len;
		if (get_u64(&r, &guid, "function GUID") < 0 || get_u64(&r, &hash, "CFG checksum") < 0 ||
		    get_uleb32(&r, &len, "name size") < 0)
			return -1;
		if (len > rd_left(&r.in))
			return pfail(&r, r.in.p, "the name of GUID 0x%016llx (%u bytes) runs past the end of the section "
					 "(%zu bytes left)", (unsigned long long)guid, len, rd_left(&r.in));
		r.in.p += len;
		n++;
	}
	struct desc_tmp *tmp = xcalloc(n ? n : 1, sizeof *tmp);
	r.in.p = r.in.base;
	for (size_t i = 0; i < n; i++) {
		struct desc_tmp *t = &tmp[i];
		uint32_t len;
		t->off = rd_off(&r.in);
		get_u64(&r, &t->d.guid, "");
		get_u64(&r, &t->d.checksum, "");
		get_uleb32(&r, &len, "");
		t->d.name = spgo_strtab_get(&bin->strs, spgo_strtab_intern(&bin->strs, (const char *)r.in.p, len));
		r.in.p += len;
	}
	if (n > 1)
		spgo_sort(tmp, n, sizeof *tmp, cmp_desc_tmp);
	/* One per GUID, the first in the section (duplicates come from
	 * functions defined in several files: the same name and hash). */
	size_t conflicts = 0, bad_guid = 0, first_bad = 0;
	const char *conflict_name = NULL, *bad_name = NULL;
	VEC_GROW(&bin->probe_descs, n);
	for (size_t i = 0; i < n; i++) {
		struct spgo_probe_desc *d = &tmp[i].d;
		if (bin->probe_descs.n && bin->probe_descs.v[bin->probe_descs.n - 1].guid == d->guid) {
			const struct spgo_probe_desc *kept = &bin->probe_descs.v[bin->probe_descs.n - 1];
			if (kept->checksum != d->checksum || strcmp(kept->name, d->name) != 0) {
				if (!conflicts++)
					conflict_name = d->name;
			}
			continue;
		}
		if (spgo_md5_guid(d->name, strlen(d->name)) != d->guid && !bad_guid++) {
			bad_name = d->name;
			first_bad = tmp[i].off;
		}
		bin->probe_descs.v[bin->probe_descs.n++] = *d;
	}
	free(tmp);
	bin->probe_stats.desc_bad_guid = bad_guid;
	if (bad_guid)
		spgo_warn("%s: section %s offset 0x%zx: %zu function descriptor(s) (the first named '%s') carry a GUID "
			  "that is not the MD5 of their name", bin->path, DESC_SECTION, first_bad, bad_guid, bad_name);
	if (conflicts)
		spgo_warn("%s: section %s: %zu GUID(s) (the first named '%s') have several descriptors that differ; "
			  "the first is kept", bin->path, DESC_SECTION, conflicts, conflict_name);
	return 0;
}

/* ---- .pseudo_probe ---------------------------------------------------------- */

/* A level of the walk: records still to read at it, and their parent. */
struct level {
	uint32_t left;
	int32_t parent;
};

/* The decoder's state over .pseudo_probe. */
struct dec {
	struct spgo_binary *bin;
	struct pcur r;
	int fill; /* 0: check and count; 1: fill the tables */
	VEC(struct level) stack;
	const struct sym_guid *syms;
	size_t nsyms;
	/* Counted by the first pass. */
	size_t nprobes, nnodes, nsentinels;
	/* Positions, for the warnings of the second pass. */
	size_t unplaced_off, no_desc_off;
	uint64_t unplaced_guid, no_desc_guid;
};

/* One top-level record and, depth first, every record inlined into it. */
static int walk_tree(struct dec *d, uint64_t *last, int *addr_based)
{
	struct pcur *r = &d->r;
	struct spgo_binary *bin = d->bin;
	struct spgo_probe_stats *st = &bin->probe_stats;
	struct level top = {1, -1};
	d->stack.n = 0;
	VEC_PUSH(&d->stack, top);
	int placed = 1;
	size_t tree_probes = 0, tree_off = rd_off(&r->in);
	uint64_t tree_guid = 0;
	while (d->stack.n) {
		struct level *lv = &d->stack.v[d->stack.n - 1];
		if (lv->left == 0) {
			d->stack.n--;
			continue;
		}
		lv->left--;
		int32_t parent = lv->parent;
		const uint8_t *at = r->in.p;
		uint32_t callsite = 0, nprobes, ninlined;
		uint64_t guid = 0;
		if (parent >= 0 && get_uleb32(r, &callsite, "inline call-site probe id") < 0)
			return -1;
		if (get_u64(r, &guid, "function GUID") < 0 || get_uleb32(r, &nprobes, "probe count") < 0 ||
		    get_uleb32(r, &ninlined, "inlinee count") < 0)
			return -1;
		uint64_t need = (uint64_t)nprobes * MIN_PROBE_BYTES + (uint64_t)ninlined * MIN_INLINED_BYTES;
		if (need > (uint64_t)rd_left(&r->in))
			return pfail(r, at, "the record of GUID 0x%016llx claims %u probes and %u inlined records, "
					 "more than the %zu bytes left in the section can hold",
					 (unsigned long long)guid, nprobes, ninlined, rd_left(&r->in));
		if (d->nnodes >= INT32_MAX)
			return pfail(r, at, "more than %d function records", INT32_MAX);
		int32_t node = (int32_t)d->nnodes++;
		if (parent < 0) {
			tree_guid = guid;
			if (d->fill && !*addr_based) {
				/* The newer encoding: deltas count from the
				 * function's symbol (or a sentinel's). */
				const struct sym_guid *s = find_symbol(d->syms, d->nsyms, guid);
				placed = s != NULL;
				if (s)
					*last = s->addr;
			}
		}
		if (d->fill) {
			struct spgo_probe_node nd = {guid, parent, callsite, find_desc(bin, guid)};
			bin->probe_nodes.v[bin->probe_nodes.n++] = nd;
			st->records++;
			st->top_records += parent < 0;
			if (nd.desc < 0 && !st->no_desc++) {
				d->no_desc_off = (size_t)(at - r->in.base);
				d->no_desc_guid = guid;
			}
		}
		for (uint32_t i = 0; i < nprobes; i++) {
			const uint8_t *pat = r->in.p;
			uint32_t index, discriminator = 0;
			uint8_t kind = 0;
			if (get_uleb32(r, &index, "probe id") < 0 || get_u8(r, &kind, "probe kind") < 0)
				return -1;
			unsigned type = kind & 15, attr = kind >> 4 & 7;
			if (type > SPGO_PROBE_DIRECT_CALL)
				return pfail(r, pat, "probe %u of GUID 0x%016llx has unknown type %u", index,
					       (unsigned long long)guid, type);
			uint64_t addr = 0;
			if (kind & 0x80) {
				int64_t delta = 0;
				if (get_sleb64(r, &delta, "probe address delta") < 0)
					return -1;
				addr = *last + (uint64_t)delta;
			} else {
				if (get_u64(r, &addr, attr & SPGO_PROBE_ATTR_SENTINEL ? "sentinel GUID" : "probe address") < 0)
					return -1;
				if (d->fill && (attr & SPGO_PROBE_ATTR_SENTINEL)) {
					/* A split part: its symbol's GUID. */
					const struct sym_guid *s = find_symbol(d->syms, d->nsyms, addr);
					struct spgo_probe_part part = {guid, addr, s ? s->addr : 0,
								       s ? spgo_strtab_get(&bin->strs, s->name) : NULL};
					bin->probe_parts.v[bin->probe_parts.n++] = part;
					st->sentinels++;
					placed = s != NULL;
					addr = s ? s->addr : 0;
				} else if (!(attr & SPGO_PROBE_ATTR_SENTINEL)) {
					*addr_based = 1;
					placed = 1;
				}
			}
			if ((attr & SPGO_PROBE_ATTR_DISCRIMINATOR) && get_uleb32(r, &discriminator, "discriminator") < 0)
				return -1;
			*last = addr;
			if (attr & SPGO_PROBE_ATTR_SENTINEL) {
				d->nsentinels += !d->fill;
				continue;
			}
			if (!d->fill) {
				d->nprobes++;
			} else if (placed) {
				struct spgo_probe p = {addr, guid, index, discriminator, (uint32_t)node, (uint8_t)type,
						       (uint8_t)attr};
				bin->probes.v[bin->probes.n++] = p;
			} else {
				tree_probes++;
			}
		}
		if (ninlined) {
			struct level lv2 = {ninlined, node};
			VEC_PUSH(&d->stack, lv2);
		}
	}
	if (tree_probes) {
		if (!st->unplaced_records++) {
			d->unplaced_off = tree_off;
			d->unplaced_guid = tree_guid;
		}
		st->unplaced_probes += tree_probes;
	}
	return 0;
}

static int walk_probes(struct dec *d)
{
	uint64_t last = 0;
	int addr_based = 0;
	d->r.in.p = d->r.in.base;
	d->nnodes = 0;
	while (d->r.in.p < d->r.in.end)
		if (walk_tree(d, &last, &addr_based) < 0)
			return -1;
	d->bin->probe_stats.address_based = addr_based;
	return 0;
}

/* ---- building the tables ---------------------------------------------------- */

struct addr_pos {
	uint64_t addr, pos;
};

static int cmp_addr_pos(const void *a, const void *b)
{
	const struct addr_pos *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_part(const void *a, const void *b)
{
	const struct spgo_probe_part *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort the probes by address, those at one address in section order. */
static void sort_probes(struct spgo_binary *bin)
{
	size_t n = bin->probes.n;
	if (n < 2)
		return;
	struct addr_pos *keys = xmalloc(n * sizeof *keys);
	int sorted = 1;
	for (size_t i = 0; i < n; i++) {
		keys[i].addr = bin->probes.v[i].addr;
		keys[i].pos = i;
		sorted &= i == 0 || keys[i - 1].addr <= keys[i].addr;
	}
	if (!sorted) {
		spgo_sort(keys, n, sizeof *keys, cmp_addr_pos);
		struct spgo_probe *v = xmalloc(n * sizeof *v);
		for (size_t i = 0; i < n; i++)
			v[i] = bin->probes.v[keys[i].pos];
		free(bin->probes.v);
		bin->probes.v = v;
		bin->probes.cap = n;
	}
	free(keys);
}

/* Is addr in an executable segment? */
static int in_code(const struct spgo_binary *bin, uint64_t addr)
{
	for (size_t i = 0; i < bin->segments.n; i++) {
		const struct spgo_segment *s = &bin->segments.v[i];
		if ((s->flags & PF_X) && addr >= s->vaddr && addr - s->vaddr < s->memsz)
			return 1;
	}
	return 0;
}

static int decode(struct spgo_binary *bin, const uint8_t *desc, size_t desc_size, const uint8_t *probe,
		  size_t probe_size)
{
	if (read_descs(bin, desc, desc_size) < 0)
		return -1;
	sym_guid_vec syms = {0};
	size_t dups;
	read_symbol_guids(bin, &syms, &dups);
	struct dec d = {.bin = bin, .r = {rd_init(probe, probe_size), bin->path, PROBE_SECTION}};
	d.syms = syms.v;
	d.nsyms = syms.n;
	int rc = walk_probes(&d);
	if (rc == 0) {
		VEC_GROW(&bin->probes, d.nprobes);
		VEC_GROW(&bin->probe_nodes, d.nnodes);
		VEC_GROW(&bin->probe_parts, d.nsentinels);
		d.fill = 1;
		rc = walk_probes(&d);
	}
	if (rc < 0) {
		VEC_FREE(&syms);
		VEC_FREE(&d.stack);
		return -1;
	}
	VEC_FREE(&d.stack);
	struct spgo_probe_stats *st = &bin->probe_stats;
	sort_probes(bin);

	/* What the probes say about each function. */
	size_t outside = 0;
	uint64_t first_outside = 0;
	for (size_t i = 0; i < bin->probes.n; i++) {
		const struct spgo_probe *p = &bin->probes.v[i];
		int32_t k = bin->probe_nodes.v[p->node].desc;
		if (k >= 0) {
			struct spgo_probe_desc *ds = &bin->probe_descs.v[k];
			ds->nprobes++;
			if (p->index > ds->max_index)
				ds->max_index = p->index;
		}
		if (!in_code(bin, p->addr) && !outside++)
			first_outside = p->addr;
	}
	for (size_t i = 0; i < bin->probe_descs.n; i++) {
		struct spgo_probe_desc *ds = &bin->probe_descs.v[i];
		const struct sym_guid *s = find_symbol(syms.v, syms.n, ds->guid);
		ds->start = s ? s->addr : 0;
		st->desc_no_symbol += !s;
	}
	/* Split parts, tied to their functions. */
	if (bin->probe_parts.n > 1)
		spgo_sort(bin->probe_parts.v, bin->probe_parts.n, sizeof *bin->probe_parts.v, cmp_part);
	for (size_t i = 0; i < bin->probe_parts.n;) {
		size_t j = i;
		while (j < bin->probe_parts.n && bin->probe_parts.v[j].guid == bin->probe_parts.v[i].guid)
			j++;
		int32_t k = find_desc(bin, bin->probe_parts.v[i].guid);
		if (k >= 0) {
			bin->probe_descs.v[k].part = (uint32_t)i;
			bin->probe_descs.v[k].nparts = (uint32_t)(j - i);
		}
		i = j;
	}
	VEC_FREE(&syms);

	if (st->unplaced_records)
		spgo_warn("%s: section %s offset 0x%zx: %zu function record(s) (the first of GUID 0x%016llx) name "
			  "no symbol of the binary: their %zu probes are left out", bin->path, PROBE_SECTION,
			  d.unplaced_off, st->unplaced_records, (unsigned long long)d.unplaced_guid,
			  st->unplaced_probes);
	if (st->no_desc)
		spgo_warn("%s: section %s offset 0x%zx: %zu function record(s) (the first of GUID 0x%016llx) have "
			  "no entry in %s", bin->path, PROBE_SECTION, d.no_desc_off, st->no_desc,
			  (unsigned long long)d.no_desc_guid, DESC_SECTION);
	if (outside)
		spgo_warn("%s: section %s: %zu probe(s) (the first at 0x%llx) lie outside the executable segments",
			  bin->path, PROBE_SECTION, outside, (unsigned long long)first_outside);
	if (dups)
		spgo_info("%s: %zu symbol name(s) name several addresses; pseudo-probe records of such a GUID "
			  "are placed at the last one in the symbol table", bin->path, dups);
	spgo_info("%s: %zu pseudo-probes in %zu function records (%zu top-level, %zu split parts), "
		  "%zu descriptors (%zu with no symbol: inlined everywhere)%s", bin->path, bin->probes.n,
		  st->records, st->top_records, st->sentinels, bin->probe_descs.n, st->desc_no_symbol,
		  st->address_based ? ", legacy absolute addresses" : "");
	return 0;
}

/* ---- the interface ------------------------------------------------------------ */

int spgo_binary_load_probes(struct spgo_binary *bin)
{
	if (bin->probe_state > 0)
		return bin->has_probes;
	if (bin->probe_state < 0)
		return spgo_error("%s", bin->probe_err);
	uint64_t addr;
	size_t desc_size, probe_size;
	const uint8_t *desc = spgo_binary_section(bin, DESC_SECTION, &addr, &desc_size);
	const uint8_t *probe = spgo_binary_section(bin, PROBE_SECTION, &addr, &probe_size);
	int rc = 0;
	if (desc && probe) {
		rc = decode(bin, desc, desc_size, probe, probe_size);
		bin->has_probes = rc == 0;
	} else if (desc || probe) {
		rc = spgo_error("%s: has a %s section but no %s section (or an empty one)", bin->path,
				desc ? DESC_SECTION : PROBE_SECTION, desc ? PROBE_SECTION : DESC_SECTION);
	}
	if (rc < 0) {
		spgo_binary_free_probes(bin);
		bin->probe_state = -1;
		bin->probe_err = xstrdup(spgo_errmsg());
		return -1;
	}
	bin->probe_state = 1;
	return bin->has_probes;
}

/* Load on first use; on failure the tables stay empty. */
static void need_probes(struct spgo_binary *bin)
{
	if (!bin->probe_state)
		spgo_binary_load_probes(bin);
}

const struct spgo_probe *spgo_binary_probes(struct spgo_binary *bin, size_t *n)
{
	need_probes(bin);
	*n = bin->probes.n;
	return bin->probes.v;
}

const struct spgo_probe *spgo_binary_probes_at(struct spgo_binary *bin, uint64_t addr, size_t *n)
{
	need_probes(bin);
	size_t lo, hi, np = bin->probes.n;
	const struct spgo_probe *v = bin->probes.v;
	SPGO_LOWER_BOUND(lo, v, np, addr, addr);
	for (hi = lo; hi < np && v[hi].addr == addr; hi++)
		;
	*n = hi - lo;
	return hi > lo ? &v[lo] : NULL;
}

const struct spgo_probe_node *spgo_binary_probe_nodes(struct spgo_binary *bin, size_t *n)
{
	need_probes(bin);
	*n = bin->probe_nodes.n;
	return bin->probe_nodes.v;
}

int spgo_probe_inline_chain(struct spgo_binary *bin, const struct spgo_probe *p, struct spgo_probe_frame *frames,
			    int max)
{
	need_probes(bin);
	if (p->node >= bin->probe_nodes.n)
		return 0;
	const struct spgo_probe_node *nodes = bin->probe_nodes.v;
	int n = 0;
	uint32_t id = p->index;
	/* Parents come before their inlinees, so this ends. */
	for (int32_t k = (int32_t)p->node; k >= 0; k = nodes[k].parent) {
		if (n < max) {
			frames[n].guid = nodes[k].guid;
			frames[n].function = nodes[k].desc >= 0 ? bin->probe_descs.v[nodes[k].desc].name : NULL;
			frames[n].probe = id;
		}
		n++;
		id = nodes[k].callsite;
	}
	return n;
}

const struct spgo_probe_desc *spgo_binary_probe_descs(struct spgo_binary *bin, size_t *n)
{
	need_probes(bin);
	*n = bin->probe_descs.n;
	return bin->probe_descs.v;
}

const struct spgo_probe_desc *spgo_binary_probe_desc(struct spgo_binary *bin, uint64_t guid)
{
	need_probes(bin);
	int32_t k = find_desc(bin, guid);
	return k >= 0 ? &bin->probe_descs.v[k] : NULL;
}

const struct spgo_probe_part *spgo_binary_probe_parts(struct spgo_binary *bin, size_t *n)
{
	need_probes(bin);
	*n = bin->probe_parts.n;
	return bin->probe_parts.v;
}

const struct spgo_probe_stats *spgo_binary_probe_stats(struct spgo_binary *bin)
{
	return &bin->probe_stats;
}

const char *spgo_probe_type_name(unsigned type)
{
	static const char *const names[] = {"Block", "IndirectCall", "DirectCall"};
	return type < SPGO_ARRAY_LEN(names) ? names[type] : "?";
}

void spgo_binary_free_probes(struct spgo_binary *bin)
{
	VEC_FREE(&bin->probes);
	VEC_FREE(&bin->probe_nodes);
	VEC_FREE(&bin->probe_descs);
	VEC_FREE(&bin->probe_parts);
	free(bin->probe_err);
	bin->probe_err = NULL;
	memset(&bin->probe_stats, 0, sizeof bin->probe_stats);
	bin->has_probes = 0;
	bin->probe_state = 0;
}
