/*
 * DWARF discriminators, decoded the way each consumer of a profile reads
 * them.  The DWARF line table holds one 32-bit value per row; what it
 * means depends on who wrote it:
 *
 *  - clang (-fdebug-info-for-profiling): up to three components, each
 *    prefix-encoded (Support/Discriminator.h): the base discriminator,
 *    the duplication factor (loop unrolling, vectorization), the copy
 *    identifier.  LLVM's sample loader keys a line on the base and scales
 *    an instruction's count by the duplication factor.
 *  - clang -fpseudo-probe-for-profiling: bits [2:0] all set mark a
 *    pseudo-probe discriminator (IR/PseudoProbe.h in LLVM 19): probe id in
 *    [18:3], distribution factor [25:19], probe type [27:26], attributes
 *    [31:29]; with bit 28 set the id shrinks to [15:3] and [18:16] keeps
 *    the DWARF base discriminator.  The base is then that kept value, or
 *    else the probe id (DILocation::getBaseDiscriminatorFromDiscriminator).
 *  - flow-sensitive AutoFDO (-mllvm -enable-fs-discriminator=true; the
 *    binary defines __llvm_fs_discriminator__): the raw value is the
 *    discriminator (llvm-profgen keeps it whole), duplication factor 1.
 *  - gcc: the raw value, duplication factor 1.
 */
#include <string.h>

#include "binary/binary_impl.h"

/* LLVM's getUnsignedFromPrefixEncoding: a set low bit means "none". */
static uint32_t prefix_value(uint32_t u)
{
	if (u & 1)
		return 0;
	u >>= 1;
	return (u & 0x20) ? (((u >> 1) & 0xfe0) | (u & 0x1f)) : (u & 0x1f);
}

/* LLVM's getNextComponentInDiscriminator: skip one component. */
static uint32_t next_component(uint32_t d)
{
	if ((d & 1) == 0)
		return d >> ((d & 0x40) ? 14 : 7);
	return d >> 1;
}

void spgo_disc_decode(uint32_t raw, enum spgo_disc_kind kind, struct spgo_disc *d)
{
	*d = (struct spgo_disc){.base = raw, .dup_factor = 1, .probe_dwarf_base = -1};
	if ((raw & 7) == 7 && kind != SPGO_DISC_GCC) {
		d->is_probe = 1;
		if (raw & 0x10000000u) {
			d->probe_id = (raw >> 3) & 0x1fff;
			d->probe_dwarf_base = (int8_t)((raw >> 16) & 7);
		} else {
			d->probe_id = (raw >> 3) & 0xffff;
		}
		d->probe_factor = (raw >> 19) & 0x7f;
		d->probe_type = (raw >> 26) & 3;
		d->probe_attr = (raw >> 29) & 7;
	}
	if (kind != SPGO_DISC_LLVM)
		return;
	/* LLVM without FS discriminators (what llvm-profgen 19 and clang's
	 * sample loader compute, probe discriminators included: the
	 * duplication factor is decoded from them as from any other). */
	if (d->is_probe)
		d->base = d->probe_dwarf_base >= 0 ? (uint32_t)d->probe_dwarf_base : d->probe_id;
	else
		d->base = prefix_value(raw);
	uint32_t f = prefix_value(next_component(raw));
	d->dup_factor = f ? f : 1;
	d->copy_id = prefix_value(next_component(next_component(raw)));
}

uint32_t spgo_base_discriminator(uint32_t raw)
{
	struct spgo_disc d;
	spgo_disc_decode(raw, SPGO_DISC_LLVM, &d);
	return d.base;
}

enum spgo_disc_kind spgo_binary_disc_kind(struct spgo_binary *bin)
{
	if (bin->disc_kind < 0) {
		size_t n;
		const struct spgo_symbol *s = spgo_binary_symbols(bin, &n);
		bin->disc_kind = SPGO_DISC_LLVM;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(s[i].name, "__llvm_fs_discriminator__"))
				bin->disc_kind = SPGO_DISC_LLVM_FS;
	}
	return (enum spgo_disc_kind)bin->disc_kind;
}
