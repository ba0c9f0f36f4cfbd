/*
 * clang's basic-block address map, section .llvm_bb_addr_map (type
 * SHT_LLVM_BB_ADDR_MAP), as clang 18 and 19 write it with
 * -fbasic-block-address-map (version 2).  Per function:
 *
 *     u8 version (2), u8 features
 *     [ULEB number of ranges]                  if features & 8 (multi-range)
 *     per range: u64 address, ULEB number of blocks,
 *                per block: ULEB id, ULEB offset from the end of the
 *                previous block (or the range start), ULEB size, ULEB meta
 *     [ULEB entry count]                       if features & 1
 *     per block: [ULEB frequency]              if features & 2
 *                [ULEB n, n x (ULEB id, ULEB probability)]  if features & 4
 *
 * Checked against llvm-readobj-19 --bb-addr-map on clang-19 output.
 *
 * The ELF file and its section are read here, in the binary stage; the
 * CFG builders (src/infer/bincfg.c, cfg_read.c), IP-mode generation
 * (src/gen/gen_ip.c) and CS IP mode (src/context/ip.c) use the parsed map.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "spgo/binary.h"
#include "spgo/common.h"

static int cmp_func(const void *a, const void *b)
{
	const struct spgo_bb_func *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int spgo_bb_addr_map_parse(struct spgo_bb_addr_map *out, const uint8_t *data, size_t len, const char *name)
{
	memset(out, 0, sizeof *out);
	struct rd r = rd_init(data, len);
	VEC(struct spgo_bb_func) funcs = {0};
	while (rd_left(&r)) {
		size_t start = rd_off(&r);
		if (rd_left(&r) < 2)
			goto bad;
		uint8_t version = rd_u8(&r), feat = rd_u8(&r);
		if (version != 2) {
			spgo_bb_addr_map_free(out);
			for (size_t i = 0; i < funcs.n; i++)
				free(funcs.v[i].blocks);
			VEC_FREE(&funcs);
			return spgo_error("%s: offset 0x%zx: bb address map version %u (only 2 is supported)", name,
					  start, version);
		}
		uint64_t nranges = feat & 8 ? rd_uleb(&r) : 1;
		struct spgo_bb_func f = {0};
		VEC(struct spgo_bb_entry) blocks = {0};
		for (uint64_t k = 0; k < nranges && !r.bad; k++) {
			uint64_t base = rd_u64(&r);
			if (k == 0)
				f.addr = base;
			uint64_t nb = rd_uleb(&r), end = base;
			if (nb > len)
				r.bad = 1;
			for (uint64_t j = 0; j < nb && !r.bad; j++) {
				struct spgo_bb_entry e;
				e.id = (uint32_t)rd_uleb(&r);
				e.addr = end + rd_uleb(&r);
				e.size = rd_uleb(&r);
				e.meta = (uint32_t)rd_uleb(&r);
				end = e.addr + e.size;
				VEC_PUSH(&blocks, e);
			}
		}
		if (feat & 1)
			rd_uleb(&r);
		for (size_t j = 0; j < blocks.n && (feat & 6) && !r.bad; j++) {
			if (feat & 2)
				rd_uleb(&r);
			if (feat & 4) {
				uint64_t ns = rd_uleb(&r);
				for (uint64_t s = 0; s < ns && !r.bad; s++) {
					rd_uleb(&r);
					rd_uleb(&r);
				}
			}
		}
		if (r.bad) {
			VEC_FREE(&blocks);
			r.p = r.base + start;
			goto bad;
		}
		f.blocks = blocks.v;
		f.nblocks = blocks.n;
		VEC_PUSH(&funcs, f);
	}
	spgo_sort(funcs.v, funcs.n, sizeof *funcs.v, cmp_func);
	out->funcs = funcs.v;
	out->nfuncs = funcs.n;
	return 0;
bad:
	for (size_t i = 0; i < funcs.n; i++)
		free(funcs.v[i].blocks);
	VEC_FREE(&funcs);
	return spgo_error("%s: offset 0x%zx: %s bb address map entry", name, rd_off(&r),
			  r.bad == RD_OVERFLOW ? "a number over 64 bits in a" : "truncated");
}

int spgo_bb_addr_map_read(struct spgo_bb_addr_map *out, const char *path)
{
	memset(out, 0, sizeof *out);
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return spgo_error("%s: cannot open", path);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return spgo_error("%s: not an ELF file", path);
	}
	size_t shstrndx;
	int rc = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		rc = spgo_error("%s: no section name table", path);
		goto done;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *nm = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!nm || strcmp(nm, ".llvm_bb_addr_map") != 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf) {
			rc = spgo_error("%s: cannot read .llvm_bb_addr_map", path);
			goto done;
		}
		char *name = xasprintf("%s(.llvm_bb_addr_map)", path);
		rc = spgo_bb_addr_map_parse(out, d->d_buf, d->d_size, name);
		free(name);
		break;
	}
done:
	elf_end(elf);
	close(fd);
	return rc;
}

void spgo_bb_addr_map_free(struct spgo_bb_addr_map *m)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		free(m->funcs[i].blocks);
	free(m->funcs);
	memset(m, 0, sizeof *m);
}

const struct spgo_bb_func *spgo_bb_addr_map_find(const struct spgo_bb_addr_map *m, uint64_t addr)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, m->funcs, m->nfuncs, addr, addr);
	return lo < m->nfuncs && m->funcs[lo].addr == addr ? &m->funcs[lo] : NULL;
}
