/*
 * Call frame information: the rule of a frame's canonical frame address
 * (CFA) at an instruction, from the binary's .eh_frame (or .debug_frame)
 * through libdw, for unwinding one frame of a sample (src/gen/gen_icall.c:
 * the caller of the sampled function, from the user registers and stack).
 *
 * The file is opened a second time, apart from the binary model's own ELF
 * handle, so that the CFI's lifetime is the caller's and not the model's.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "spgo/binary.h"
#include "spgo/common.h"

struct spgo_cfi {
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
};

struct spgo_cfi *spgo_cfi_open(const struct spgo_binary *bin)
{
	elf_version(EV_CURRENT);
	int fd = open(spgo_binary_path(bin), O_RDONLY);
	if (fd < 0)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	if (!cfi) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	struct spgo_cfi *c = xcalloc(1, sizeof *c);
	c->fd = fd;
	c->elf = elf;
	c->cfi = cfi;
	return c;
}

void spgo_cfi_close(struct spgo_cfi *c)
{
	if (!c)
		return;
	dwarf_cfi_end(c->cfi);
	elf_end(c->elf);
	close(c->fd);
	free(c);
}

int spgo_cfi_cfa(struct spgo_cfi *c, uint64_t addr, unsigned *reg, int64_t *off)
{
	Dwarf_Frame *fr;
	if (dwarf_cfi_addrframe(c->cfi, addr, &fr) != 0)
		return -1;
	Dwarf_Op *ops;
	size_t nops;
	int ok = dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1;
	if (ok && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
	} else if (ok && ops[0].atom == DW_OP_bregx) {
		*reg = (unsigned)ops[0].number;
		*off = (int64_t)ops[0].number2;
	} else {
		ok = 0;
	}
	free(fr);
	return ok ? 0 : -1;
}
