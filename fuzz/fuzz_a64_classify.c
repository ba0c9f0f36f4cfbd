/*
 * The AArch64 branch classifiers, against each other: the input's words
 * (little-endian, up to 4096) become the .text of a small AArch64 ELF
 * program that spgo's binary model decodes (capstone, then
 * src/binary/arch_aarch64.c's classes and its own encodings of what
 * capstone 4 does not know), and the QEMU plugin's classifier
 * (emulate/isa_aarch64.c, what `spgo emulate` records BRBE types from)
 * classifies each word alone.  Both must agree on every word (a trap and
 * a system call are "other" branches to the binary model), and each
 * instruction is one word with a word-aligned direct target.  A
 * disagreement aborts: the emulated captures and the profiles built from
 * them would see different branches.
 */
#include <string.h>

#include "fuzz.h"
#include "spgo/binary.h"

#include "../emulate/isa_aarch64.c"

#define TEXT_VADDR 0x400000u
#define TEXT_OFF 0x1000u

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A little-endian ELF64 AArch64 executable: one PT_LOAD (r-x) holding
 * .text at TEXT_VADDR, section headers for .text and .shstrtab. */
static size_t make_elf(uint8_t *out, const uint8_t *text, size_t n)
{
	static const char shstr[] = "\0.text\0.shstrtab";
	size_t shstr_off = TEXT_OFF + n, sh_off = (shstr_off + sizeof shstr + 7) & ~(size_t)7;
	size_t total = sh_off + 3 * 64;
	memset(out, 0, total);
	memcpy(out, "\177ELF", 4);
	out[4] = 2, out[5] = 1, out[6] = 1; /* ELFCLASS64, little-endian, version */
	put16(out + 16, 2);                 /* ET_EXEC */
	put16(out + 18, 183);               /* EM_AARCH64 */
	put32(out + 20, 1);
	put64(out + 24, TEXT_VADDR);        /* e_entry */
	put64(out + 32, 64);                /* e_phoff */
	put64(out + 40, sh_off);            /* e_shoff */
	put16(out + 52, 64), put16(out + 54, 56), put16(out + 56, 1);
	put16(out + 58, 64), put16(out + 60, 3), put16(out + 62, 2);
	uint8_t *ph = out + 64;
	put32(ph, 1), put32(ph + 4, 5);     /* PT_LOAD, R+X */
	put64(ph + 8, TEXT_OFF), put64(ph + 16, TEXT_VADDR), put64(ph + 24, TEXT_VADDR);
	put64(ph + 32, n), put64(ph + 40, n), put64(ph + 48, 0x10000);
	memcpy(out + TEXT_OFF, text, n);
	memcpy(out + shstr_off, shstr, sizeof shstr);
	uint8_t *sh = out + sh_off + 64;    /* [1] .text */
	put32(sh, 1), put32(sh + 4, 1);     /* SHT_PROGBITS */
	put64(sh + 8, 6);                   /* SHF_ALLOC | SHF_EXECINSTR */
	put64(sh + 16, TEXT_VADDR), put64(sh + 24, TEXT_OFF), put64(sh + 32, n), put64(sh + 48, 4);
	sh += 64;                           /* [2] .shstrtab */
	put32(sh, 7), put32(sh + 4, 3);     /* SHT_STRTAB */
	put64(sh + 24, shstr_off), put64(sh + 32, sizeof shstr), put64(sh + 48, 1);
	return total;
}

/* The plugin's class as the binary model names it. */
static unsigned model_class(uint8_t emu)
{
	switch (emu) {
	case EMU_CLS_COND: return SPGO_INSN_COND_BRANCH;
	case EMU_CLS_JUMP: return SPGO_INSN_JUMP;
	case EMU_CLS_IJUMP: return SPGO_INSN_INDIRECT_JUMP;
	case EMU_CLS_CALL: return SPGO_INSN_CALL;
	case EMU_CLS_ICALL: return SPGO_INSN_INDIRECT_CALL;
	case EMU_CLS_RET: return SPGO_INSN_RETURN;
	default: return SPGO_INSN_OTHER;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t elf[TEXT_OFF + 4 * 4096 + 512];
	spgo_quiet = 1;
	size_t n = size / 4 * 4;
	if (n > 4 * 4096)
		n = 4 * 4096;
	if (!n)
		return 0;
	size_t total = make_elf(elf, data, n);
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, fuzz_path(elf, total), NULL) < 0) {
		fprintf(stderr, "fuzz_a64_classify: the made ELF does not open: %s\n", spgo_errmsg());
		abort();
	}
	size_t ni;
	const struct spgo_insn *in = spgo_binary_insns(bin, &ni);
	if (ni != n / 4) {
		fprintf(stderr, "fuzz_a64_classify: %zu words, %zu instructions\n", n / 4, ni);
		abort();
	}
	for (size_t i = 0; i < ni; i++) {
		const uint8_t *w = data + 4 * i;
		unsigned model = in[i].cls == SPGO_INSN_TRAP ? SPGO_INSN_OTHER : in[i].cls;
		unsigned emu = model_class(emu_classify_aarch64(w, 4));
		uint32_t word;
		memcpy(&word, w, 4);
		if (in[i].addr != TEXT_VADDR + 4 * i || in[i].size != 4 || model != emu ||
		    (in[i].target & 3) != 0) {
			fprintf(stderr, "fuzz_a64_classify: word %08x at 0x%llx: binary model %s (size %u, target "
					"0x%llx), plugin %s\n", word, (unsigned long long)in[i].addr,
				spgo_insn_class_name(in[i].cls), in[i].size, (unsigned long long)in[i].target,
				spgo_insn_class_name(emu));
			abort();
		}
		/* the tail-call and jump-table questions on indirect jumps */
		if (in[i].cls == SPGO_INSN_INDIRECT_JUMP) {
			uint64_t targets[16];
			spgo_binary_jump_table(bin, in[i].addr, targets, 16);
			spgo_binary_is_tail_call(bin, in[i].addr);
		}
	}
	spgo_binary_close(bin);
	return 0;
}
