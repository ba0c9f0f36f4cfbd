/*
 * Control-flow facts the instruction table alone does not give: the targets
 * of indirect jumps through jump tables, and which calls never return.
 *
 * Jump tables (x86-64).  The instructions before an indirect jump are
 * decoded again, with capstone's operand details, only when someone asks
 * (the instruction table stays lean), and matched against the patterns
 * gcc and clang emit for a switch:
 *
 *   absolute (non-PIE)    jmp *TABLE(,%idx,8)
 *                         or  mov TABLE(,%idx,8),%r ; jmp *%r
 *   relative (PIE, pic)   lea TABLE(%rip),%base
 *                         movslq (%base,%idx,4),%r ; add %base,%r ; jmp *%r
 *
 * The number of entries comes from the bound check that precedes the
 * dispatch in straight-line code: `cmp $N,%idx` followed by ja/jbe (N + 1
 * entries) or jae/jb (N entries), the index possibly copied or
 * zero-extended on the way (mov, movzx, movsxd).  A table is accepted only
 * when every entry lands on an instruction of the same function (or one of
 * its split parts); otherwise the answer is "unknown".
 *
 * Noreturn calls.  A call does not return when its target is a known
 * noreturn function by name (exit, abort, __assert_fail, ...), reached
 * directly, through an alias, or through a PLT stub (the stub's jmp
 * *GOT(%rip) slot names the symbol through .rela.plt / .rela.dyn), or when
 * it is a local function every path of which ends in a trap or another
 * noreturn call (no return, no unresolved indirect jump, no tail call to a
 * function that returns).
 */
#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"

#define WINDOW 48           /* instructions looked at before an indirect jump */
#define MAX_ENTRIES 65536   /* larger bounds are not believed */
#define MAX_NORET_INSNS 20000 /* larger functions are assumed to return */
#define MAX_NORET_DEPTH 24

/* ---- decoding on demand ---------------------------------------------------- */

/* Bytes of the binary at [addr, addr + len) from an allocated section with
 * contents; NULL if no section holds them all. */
static const uint8_t *vaddr_bytes(struct spgo_binary *bin, uint64_t addr, size_t len)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + len > d->d_size)
			return NULL;
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

/* The capstone handle for details, opened on first use; 0 if unavailable. */
static int detail_open(struct spgo_binary *bin)
{
	if (bin->cf_state == 0) {
		bin->cf_state = -1;
		csh h;
		if (bin->machine == EM_X86_64 && cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK) {
			cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
			bin->cf_cs = (size_t)h;
			bin->cf_insn = cs_malloc(h);
			bin->cf_state = 1;
		}
	}
	return bin->cf_state == 1;
}

/* Decode the one instruction at addr into bin->cf_insn; NULL on failure. */
static const cs_insn *decode_at(struct spgo_binary *bin, uint64_t addr)
{
	if (!detail_open(bin))
		return NULL;
	size_t avail = 15;
	const uint8_t *p = NULL;
	while (avail && !(p = vaddr_bytes(bin, addr, avail)))
		avail--;
	if (!p)
		return NULL;
	uint64_t a = addr;
	cs_insn *in = bin->cf_insn;
	if (!cs_disasm_iter((csh)bin->cf_cs, &p, &avail, &a, in))
		return NULL;
	return in;
}

void spgo_binary_free_cflow(struct spgo_binary *bin)
{
	if (bin->cf_state == 1) {
		csh h = (csh)bin->cf_cs;
		cs_free(bin->cf_insn, 1);
		cs_close(&h);
	}
	bin->cf_state = 0;
	if (bin->plt_loaded) {
		spgo_kmap_free(&bin->plt_slots);
		spgo_kmap_free(&bin->noret_memo);
	}
	bin->plt_loaded = 0;
}

/* ---- registers --------------------------------------------------------------- */

/* The 64-bit register family of an x86 general register (1..16), else 0. */
static int family(unsigned r)
{
	switch (r) {
	case X86_REG_AL: case X86_REG_AH: case X86_REG_AX: case X86_REG_EAX: case X86_REG_RAX: return 1;
	case X86_REG_BL: case X86_REG_BH: case X86_REG_BX: case X86_REG_EBX: case X86_REG_RBX: return 2;
	case X86_REG_CL: case X86_REG_CH: case X86_REG_CX: case X86_REG_ECX: case X86_REG_RCX: return 3;
	case X86_REG_DL: case X86_REG_DH: case X86_REG_DX: case X86_REG_EDX: case X86_REG_RDX: return 4;
	case X86_REG_SIL: case X86_REG_SI: case X86_REG_ESI: case X86_REG_RSI: return 5;
	case X86_REG_DIL: case X86_REG_DI: case X86_REG_EDI: case X86_REG_RDI: return 6;
	case X86_REG_BPL: case X86_REG_BP: case X86_REG_EBP: case X86_REG_RBP: return 7;
	case X86_REG_SPL: case X86_REG_SP: case X86_REG_ESP: case X86_REG_RSP: return 8;
	case X86_REG_R8B: case X86_REG_R8W: case X86_REG_R8D: case X86_REG_R8: return 9;
	case X86_REG_R9B: case X86_REG_R9W: case X86_REG_R9D: case X86_REG_R9: return 10;
	case X86_REG_R10B: case X86_REG_R10W: case X86_REG_R10D: case X86_REG_R10: return 11;
	case X86_REG_R11B: case X86_REG_R11W: case X86_REG_R11D: case X86_REG_R11: return 12;
	case X86_REG_R12B: case X86_REG_R12W: case X86_REG_R12D: case X86_REG_R12: return 13;
	case X86_REG_R13B: case X86_REG_R13W: case X86_REG_R13D: case X86_REG_R13: return 14;
	case X86_REG_R14B: case X86_REG_R14W: case X86_REG_R14D: case X86_REG_R14: return 15;
	case X86_REG_R15B: case X86_REG_R15W: case X86_REG_R15D: case X86_REG_R15: return 16;
	default: return 0;
	}
}

/* 1 if the instruction writes register family f (explicitly or not). */
static int writes(struct spgo_binary *bin, const cs_insn *in, int f)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	if (f == 0)
		return 0;
	if (cs_regs_access((csh)bin->cf_cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return 1;
	for (unsigned i = 0; i < nwr; i++)
		if (family(wr[i]) == f)
			return 1;
	return 0;
}

static const cs_x86_op *op(const cs_insn *in, int i)
{
	return i < in->detail->x86.op_count ? &in->detail->x86.operands[i] : NULL;
}

static int is_reg(const cs_x86_op *o)
{
	return o && o->type == X86_OP_REG;
}

/* ---- jump tables --------------------------------------------------------------- */

/* The instruction addresses of the window before the one at index j of the
 * instruction table, nearest first, contiguous and inside [lo, j). */
static size_t window(const struct spgo_binary *bin, size_t j, uint64_t lo, uint64_t *addrs)
{
	size_t n = 0;
	const struct spgo_insn *v = bin->insns.v;
	while (j > 0 && n < WINDOW) {
		const struct spgo_insn *p = &v[j - 1];
		if (p->addr < lo || p->addr + p->size != v[j].addr)
			break;
		addrs[n++] = p->addr;
		j--;
	}
	return n;
}

static int same_mem(const x86_op_mem *a, const x86_op_mem *b)
{
	return a->segment == b->segment && a->base == b->base && a->index == b->index && a->scale == b->scale &&
	       a->disp == b->disp;
}

/*
 * The number of entries from the bound check of index family idx in the
 * window, or 0 if none is found.  The index may have been copied from
 * another register or loaded from memory (`cmpb $N,M; ja; movzbl M,%idx`).
 */
static uint64_t find_bound(struct spgo_binary *bin, const uint64_t *addrs, size_t k0, size_t n, int idx)
{
	x86_op_mem mem = {0}; /* tracked memory operand, when idx < 0 */
	for (size_t k = k0; k < n; k++) {
		const cs_insn *in = decode_at(bin, addrs[k]);
		if (!in)
			return 0;
		const cs_x86_op *o0 = op(in, 0), *o1 = op(in, 1);
		int match = idx > 0 ? is_reg(o0) && family(o0->reg) == idx
				    : o0 && o0->type == X86_OP_MEM && same_mem(&o0->mem, &mem);
		if (in->id == X86_INS_CMP && match && o1 && o1->type == X86_OP_IMM) {
			int64_t imm = o1->imm;
			/* The conditional branch right after it (nearer the jump). */
			if (k == 0 || imm < 0 || imm >= MAX_ENTRIES)
				return 0;
			const cs_insn *br = decode_at(bin, addrs[k - 1]);
			if (!br)
				return 0;
			switch (br->id) {
			case X86_INS_JA:
			case X86_INS_JBE:
				return (uint64_t)imm + 1;
			case X86_INS_JAE:
			case X86_INS_JB:
				return (uint64_t)imm;
			default:
				return 0;
			}
		}
		if (idx < 0) {
			/* A store or call may change the memory: give up. */
			if (in->id == X86_INS_CALL || (o0 && o0->type == X86_OP_MEM && (o0->access & CS_AC_WRITE)))
				return 0;
			continue;
		}
		if (!writes(bin, in, idx))
			continue;
		int copy = in->id == X86_INS_MOV || in->id == X86_INS_MOVZX || in->id == X86_INS_MOVSXD ||
			   in->id == X86_INS_MOVSX;
		/* The index copied or extended from another register ... */
		if (copy && match && is_reg(o1) && family(o1->reg)) {
			idx = family(o1->reg);
			continue;
		}
		/* ... or loaded from memory. */
		if (copy && match && o1 && o1->type == X86_OP_MEM) {
			mem = o1->mem;
			idx = -1;
			continue;
		}
		if (in->id == X86_INS_AND && match && o1 && o1->type == X86_OP_IMM && o1->imm >= 0 &&
		    o1->imm < MAX_ENTRIES && ((o1->imm + 1) & o1->imm) == 0)
			return (uint64_t)o1->imm + 1; /* idx & (2^k - 1) */
		return 0;
	}
	return 0;
}

/* Root function index of the function part holding addr, or -1. */
static long root_of(struct spgo_binary *bin, uint64_t addr)
{
	size_t nf;
	const struct spgo_function *fs = spgo_binary_functions(bin, &nf);
	const struct spgo_function *f = spgo_binary_function_at(bin, addr);
	if (!f)
		return -1;
	return f->parent >= 0 ? f->parent : (long)(f - fs);
}

int spgo_binary_jump_table(struct spgo_binary *bin, uint64_t insn_addr, uint64_t *targets, size_t max)
{
	const struct spgo_insn *jmp = spgo_binary_insn_at(bin, insn_addr);
	if (!jmp || jmp->cls != SPGO_INSN_INDIRECT_JUMP || bin->machine != EM_X86_64)
		return -1;
	const struct spgo_function *fn = spgo_binary_function_at(bin, insn_addr);
	uint64_t lo = fn ? fn->start : 0;
	long root = root_of(bin, insn_addr);
	uint64_t addrs[WINDOW];
	size_t n = window(bin, (size_t)(jmp - bin->insns.v), lo, addrs);

	const cs_insn *in = decode_at(bin, insn_addr);
	if (!in)
		return -1;
	const cs_x86_op *o = op(in, 0);
	uint64_t table = 0;
	int idx = 0, relative = 0;
	size_t k0 = 0; /* where in the window the index is last used */
	if (o && o->type == X86_OP_MEM && o->mem.base == X86_REG_INVALID && o->mem.scale == 8 &&
	    family(o->mem.index)) {
		table = (uint64_t)o->mem.disp;
		idx = family(o->mem.index);
	} else if (is_reg(o) && family(o->reg)) {
		/* Walk back to the definition of the jump register. */
		int r = family(o->reg), s = 0, base = 0;
		int state = 0; /* 0: def of r; 1: movslq into r or s; 2: lea of base */
		for (size_t k = 0; k < n; k++) {
			const cs_insn *d = decode_at(bin, addrs[k]);
			if (!d)
				return -1;
			const cs_x86_op *d0 = op(d, 0), *d1 = op(d, 1);
			if (state == 0) {
				if (!writes(bin, d, r))
					continue;
				if (d->id == X86_INS_ADD && is_reg(d0) && is_reg(d1) && family(d0->reg) == r &&
				    family(d1->reg)) {
					s = family(d1->reg);
					state = 1;
					continue;
				}
				if (d->id == X86_INS_MOV && is_reg(d0) && d1 && d1->type == X86_OP_MEM &&
				    d1->mem.base == X86_REG_INVALID && d1->mem.scale == 8 && family(d1->mem.index)) {
					table = (uint64_t)d1->mem.disp;
					idx = family(d1->mem.index);
					k0 = k + 1;
					break;
				}
				return -1;
			} else if (state == 1) {
				int wr = writes(bin, d, r), ws = writes(bin, d, s);
				if (!wr && !ws)
					continue;
				if (d->id == X86_INS_MOVSXD && is_reg(d0) && d1 && d1->type == X86_OP_MEM &&
				    d1->mem.scale == 4 && d1->mem.disp == 0 && family(d1->mem.index)) {
					int dst = family(d0->reg), b = family(d1->mem.base);
					if ((dst == r && b == s) || (dst == s && b == r)) {
						base = b;
						idx = family(d1->mem.index);
						k0 = k + 1;
						state = 2;
						continue;
					}
				}
				return -1;
			} else {
				if (!writes(bin, d, base))
					continue;
				if (d->id == X86_INS_LEA && is_reg(d0) && family(d0->reg) == base && d1 &&
				    d1->type == X86_OP_MEM && d1->mem.base == X86_REG_RIP && d1->mem.index == X86_REG_INVALID) {
					table = d->address + d->size + (uint64_t)d1->mem.disp;
					relative = 1;
					break;
				}
				return -1;
			}
		}
		if (!table)
			return -1;
	} else {
		return -1;
	}
	/* The bound: searched back from the load of the table entry. */
	uint64_t nent = find_bound(bin, addrs, k0, n, idx);
	if (nent == 0)
		return -1;
	size_t esize = relative ? 4 : 8;
	const uint8_t *p = vaddr_bytes(bin, table, (size_t)nent * esize);
	if (!p)
		return -1;
	for (uint64_t e = 0; e < nent; e++) {
		uint64_t t;
		if (relative) {
			int32_t v;
			memcpy(&v, p + e * 4, 4);
			t = table + (uint64_t)(int64_t)v;
		} else {
			memcpy(&t, p + e * 8, 8);
		}
		if (!spgo_binary_insn_at(bin, t) || (root >= 0 && root_of(bin, t) != root))
			return -1;
		if (e < max)
			targets[e] = t;
	}
	return (int)nent;
}

/*
 * A tail call through a pointer: `jmp *off(%base)` / `jmp *off(%rip)` (no
 * index register), or `jmp *%r` where %r was last loaded from such memory
 * in the straight-line code before it (`mov off(%rdi),%rax; jmp *%rax`).
 */
int spgo_binary_is_tail_call(struct spgo_binary *bin, uint64_t insn_addr)
{
	const struct spgo_insn *jmp = spgo_binary_insn_at(bin, insn_addr);
	if (!jmp || jmp->cls != SPGO_INSN_INDIRECT_JUMP || bin->machine != EM_X86_64)
		return 0;
	uint64_t t;
	if (spgo_binary_jump_table(bin, insn_addr, &t, 1) >= 0)
		return 0;
	const struct spgo_function *fn = spgo_binary_function_at(bin, insn_addr);
	uint64_t addrs[WINDOW];
	size_t n = window(bin, (size_t)(jmp - bin->insns.v), fn ? fn->start : 0, addrs);
	const cs_insn *in = decode_at(bin, insn_addr);
	if (!in)
		return 0;
	const cs_x86_op *o = op(in, 0);
	if (o && o->type == X86_OP_MEM)
		return o->mem.index == X86_REG_INVALID && o->mem.base != X86_REG_INVALID;
	if (!is_reg(o) || !family(o->reg))
		return 0;
	int r = family(o->reg);
	for (size_t k = 0; k < n; k++) {
		const cs_insn *d = decode_at(bin, addrs[k]);
		if (!d)
			return 0;
		if (!writes(bin, d, r))
			continue;
		const cs_x86_op *d0 = op(d, 0), *d1 = op(d, 1);
		return d->id == X86_INS_MOV && is_reg(d0) && family(d0->reg) == r && d1 && d1->type == X86_OP_MEM &&
		       d1->mem.index == X86_REG_INVALID && d1->mem.base != X86_REG_INVALID;
	}
	return 0;
}

/* ---- noreturn --------------------------------------------------------------------- */

int spgo_noreturn_name(const char *name)
{
	static const char *const names[] = {
		"exit", "_exit", "_Exit", "quick_exit", "abort", "__assert_fail", "__assert_perror_fail",
		"__assert", "__stack_chk_fail", "__stack_chk_fail_local", "__fortify_fail", "__chk_fail",
		"__libc_fatal", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "err", "errx", "verr",
		"verrx", "pthread_exit", "thrd_exit", "__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast",
		"__cxa_bad_typeid", "__cxa_throw_bad_array_new_length", "__cxa_pure_virtual",
		"__cxa_deleted_virtual", "__cxa_call_unexpected", "__cxa_call_terminate", "_Unwind_Resume",
		"_ZSt9terminatev", "__ubsan_handle_builtin_unreachable", "__ubsan_handle_missing_return",
	};
	if (!name)
		return 0;
	size_t len = strcspn(name, "@"); /* exit@GLIBC_2.2.5 */
	for (size_t i = 0; i < SPGO_ARRAY_LEN(names); i++)
		if (strlen(names[i]) == len && !strncmp(name, names[i], len))
			return 1;
	/* std::__throw_*(...) */
	if (!strncmp(name, "_ZSt", 4) && strstr(name, "__throw_"))
		return 1;
	/* UBSan's -fsanitize-trap=none handlers that abort */
	if (!strncmp(name, "__ubsan_handle_", 15) && len > 6 && !strncmp(name + len - 6, "_abort", 6))
		return 1;
	return 0;
}

/* GOT slot -> dynamic symbol name, from the JUMP_SLOT / GLOB_DAT relocations. */
static void load_plt(struct spgo_binary *bin)
{
	bin->plt_loaded = 1;
	spgo_kmap_init(&bin->plt_slots, 1);
	spgo_kmap_init(&bin->noret_memo, 1);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh, lsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		Elf_Scn *symscn = elf_getscn(bin->elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &lsh) || lsh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL), *sd = elf_getdata(symscn, NULL);
		if (!d || !sd || !sh.sh_entsize)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym s;
			if (!gelf_getrela(d, (int)i, &r))
				break;
			unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
			size_t si = GELF_R_SYM(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || si == 0 ||
			    !gelf_getsym(sd, (int)si, &s))
				continue;
			const char *name = elf_strptr(bin->elf, lsh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			uint64_t key = r.r_offset;
			*spgo_kmap_upsert(&bin->plt_slots, &key) =
				(uint64_t)spgo_strtab_intern(&bin->strs, name, strlen(name)) + 1;
		}
	}
}

/* Name of the section holding addr, or NULL. */
static const char *section_name_at(struct spgo_binary *bin, uint64_t addr)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(bin->elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(bin->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && addr >= sh.sh_addr &&
		    addr - sh.sh_addr < sh.sh_size)
			return elf_strptr(bin->elf, shstrndx, sh.sh_name);
	}
	return NULL;
}

const char *spgo_binary_plt_name(struct spgo_binary *bin, uint64_t addr)
{
	if (bin->machine != EM_X86_64)
		return NULL;
	if (!bin->plt_loaded)
		load_plt(bin);
	const char *sec = section_name_at(bin, addr);
	if (!sec || strncmp(sec, ".plt", 4) != 0)
		return NULL;
	/* endbr64 / bnd prefixes first, then jmp *slot(%rip). */
	uint64_t a = addr;
	for (int i = 0; i < 3; i++) {
		const cs_insn *in = decode_at(bin, a);
		if (!in)
			return NULL;
		const cs_x86_op *o = op(in, 0);
		if (in->id == X86_INS_JMP) {
			if (!o || o->type != X86_OP_MEM || o->mem.base != X86_REG_RIP)
				return NULL;
			uint64_t slot = in->address + in->size + (uint64_t)o->mem.disp;
			uint64_t *v = spgo_kmap_find(&bin->plt_slots, &slot);
			return v ? spgo_strtab_get(&bin->strs, (uint32_t)(*v - 1)) : NULL;
		}
		if (in->id != X86_INS_ENDBR64 && in->id != X86_INS_NOP)
			return NULL;
		a += in->size;
	}
	return NULL;
}

static int noreturn_at(struct spgo_binary *bin, uint64_t addr, int depth);

/* 1 if every path of the function starting at addr ends in a trap or a
 * noreturn call. */
static int analyze(struct spgo_binary *bin, uint64_t addr, int depth)
{
	const struct spgo_function *f = spgo_binary_function_at(bin, addr);
	const struct spgo_insn *first = spgo_binary_insn_at(bin, addr);
	if (!f || f->start != addr || !first)
		return 0;
	size_t i0 = (size_t)(first - bin->insns.v), i1 = i0;
	while (i1 < bin->insns.n && bin->insns.v[i1].addr < f->end)
		i1++;
	size_t n = i1 - i0;
	if (n == 0 || n > MAX_NORET_INSNS)
		return 0;
	const struct spgo_insn *v = bin->insns.v + i0;
	uint8_t *seen = xcalloc(n, 1);
	VEC(size_t) work = {0};
	uint64_t tbuf[256];
	int returns = 0;
	VEC_PUSH(&work, 0);
	seen[0] = 1;
#define GO(addr_)                                                                                  \
	do {                                                                                       \
		uint64_t a_ = (addr_);                                                             \
		if (a_ >= f->start && a_ < f->end) {                                               \
			const struct spgo_insn *t_ = spgo_binary_insn_at(bin, a_);                 \
			if (!t_) {                                                                 \
				returns = 1;                                                       \
			} else if (!seen[t_ - v]) {                                                \
				seen[t_ - v] = 1;                                                  \
				VEC_PUSH(&work, (size_t)(t_ - v));                                 \
			}                                                                          \
		} else if (!noreturn_at(bin, a_, depth + 1)) {                                     \
			returns = 1; /* a tail call to a function that returns */                  \
		}                                                                                  \
	} while (0)
	while (work.n && !returns) {
		size_t i = work.v[--work.n];
		const struct spgo_insn *in = &v[i];
		uint64_t next = in->addr + in->size;
		switch (in->cls) {
		case SPGO_INSN_RETURN:
			returns = 1;
			break;
		case SPGO_INSN_TRAP:
			break;
		case SPGO_INSN_JUMP:
			GO(in->target);
			break;
		case SPGO_INSN_COND_BRANCH:
			GO(in->target);
			GO(next);
			break;
		case SPGO_INSN_INDIRECT_JUMP: {
			int nt = spgo_binary_jump_table(bin, in->addr, tbuf, SPGO_ARRAY_LEN(tbuf));
			if (nt < 0 || nt > (int)SPGO_ARRAY_LEN(tbuf)) {
				returns = 1;
				break;
			}
			for (int k = 0; k < nt; k++)
				GO(tbuf[k]);
			break;
		}
		case SPGO_INSN_CALL:
			if (noreturn_at(bin, in->target, depth + 1))
				break;
			GO(next);
			break;
		default:
			GO(next);
			break;
		}
	}
#undef GO
	free(seen);
	VEC_FREE(&work);
	return !returns;
}

static int noreturn_at(struct spgo_binary *bin, uint64_t addr, int depth)
{
	if (!bin->plt_loaded)
		load_plt(bin);
	uint64_t key = addr;
	uint64_t *m = spgo_kmap_find(&bin->noret_memo, &key);
	if (m)
		return *m == 2; /* 1 returns, 2 noreturn, 3 being analyzed: returns */
	if (depth > MAX_NORET_DEPTH)
		return 0;
	int res = 0;
	size_t ns;
	const struct spgo_symbol *syms = spgo_binary_symbols(bin, &ns);
	/* Every alias at addr. */
	size_t lo;
	SPGO_LOWER_BOUND(lo, syms, ns, addr, addr);
	for (size_t i = lo; i < ns && syms[i].addr == addr && !res; i++)
		res = spgo_noreturn_name(syms[i].name);
	if (!res) {
		const char *plt = spgo_binary_plt_name(bin, addr);
		if (plt)
			res = spgo_noreturn_name(plt);
		else if (bin->machine == EM_X86_64) {
			*spgo_kmap_upsert(&bin->noret_memo, &key) = 3;
			res = analyze(bin, addr, depth);
		}
	}
	*spgo_kmap_upsert(&bin->noret_memo, &key) = res ? 2 : 1;
	return res;
}

int spgo_binary_is_noreturn(struct spgo_binary *bin, uint64_t addr)
{
	if (!bin->insns_loaded) {
		size_t n;
		spgo_binary_insns(bin, &n);
	}
	return noreturn_at(bin, addr, 0);
}
