/*
 * Control-flow facts the instruction table alone does not give: the targets
 * of indirect jumps through jump tables, and which calls never return.
 *
 * Jump tables and tail calls through pointers are the instruction set's
 * patterns (struct spgo_arch_ops: arch_x86.c); an ISA without them answers
 * "unknown".  The instructions before an indirect jump are decoded again,
 * with capstone's operand details, only when someone asks (the instruction
 * table stays lean), by the helpers here.
 *
 * Noreturn calls.  A call does not return when its target is a known
 * noreturn function by name (exit, abort, __assert_fail, ...), reached
 * directly, through an alias, or through a PLT stub (the GOT slot the stub
 * jumps through names the symbol through .rela.plt / .rela.dyn), or when
 * it is a local function every path of which ends in a trap or another
 * noreturn call (no return, no unresolved indirect jump, no tail call to a
 * function that returns).
 */
#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"

#define MAX_NORET_INSNS 20000 /* larger functions are assumed to return */
#define MAX_NORET_DEPTH 24

/* ---- decoding on demand ---------------------------------------------------- */

/* Bytes of the binary at [addr, addr + len) from an allocated section with
 * contents; NULL if no section holds them all. */
const uint8_t *spgo_vaddr_bytes(struct spgo_binary *bin, uint64_t addr, size_t len)
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
int spgo_cf_open(struct spgo_binary *bin)
{
	if (bin->cf_state == 0) {
		bin->cf_state = -1;
		csh h;
		if (bin->arch && cs_open((cs_arch)bin->arch->cs_arch, (cs_mode)bin->arch->cs_mode, &h) == CS_ERR_OK) {
			cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
			bin->cf_cs = (size_t)h;
			bin->cf_insn = cs_malloc(h);
			bin->cf_state = 1;
		}
	}
	return bin->cf_state == 1;
}

/* Decode the one instruction at addr into bin->cf_insn; NULL on failure. */
const cs_insn *spgo_cf_decode(struct spgo_binary *bin, uint64_t addr)
{
	if (!spgo_cf_open(bin))
		return NULL;
	size_t avail = bin->arch->max_insn;
	const uint8_t *p = NULL;
	while (avail && !(p = spgo_vaddr_bytes(bin, addr, avail)))
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

/* ---- jump tables --------------------------------------------------------------- */

/* The instruction addresses of the window before the one at index j of the
 * instruction table, nearest first, contiguous and inside [lo, j). */
size_t spgo_cf_window(const struct spgo_binary *bin, size_t j, uint64_t lo, uint64_t *addrs)
{
	size_t n = 0;
	const struct spgo_insn *v = bin->insns.v;
	while (j > 0 && n < SPGO_CF_WINDOW) {
		const struct spgo_insn *p = &v[j - 1];
		if (p->addr < lo || p->addr + p->size != v[j].addr)
			break;
		addrs[n++] = p->addr;
		j--;
	}
	return n;
}

/* Root function index of the function part holding addr, or -1. */
long spgo_cf_root_of(struct spgo_binary *bin, uint64_t addr)
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
	if (!jmp || jmp->cls != SPGO_INSN_INDIRECT_JUMP || !bin->arch || !bin->arch->jump_table)
		return -1;
	return bin->arch->jump_table(bin, jmp, targets, max);
}

int spgo_binary_is_tail_call(struct spgo_binary *bin, uint64_t insn_addr)
{
	const struct spgo_insn *jmp = spgo_binary_insn_at(bin, insn_addr);
	if (!jmp || jmp->cls != SPGO_INSN_INDIRECT_JUMP || !bin->arch || !bin->arch->is_tail_call)
		return 0;
	return bin->arch->is_tail_call(bin, jmp);
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
	const struct spgo_arch_ops *A = bin->arch;
	if (!A || !A->plt_slot)
		return;
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
			if ((type != A->reloc_jump_slot && type != A->reloc_glob_dat) || si == 0 ||
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
	if (!bin->arch || !bin->arch->plt_slot)
		return NULL;
	if (!bin->plt_loaded)
		load_plt(bin);
	const char *sec = section_name_at(bin, addr);
	if (!sec || strncmp(sec, ".plt", 4) != 0)
		return NULL;
	uint64_t slot = bin->arch->plt_slot(bin, addr);
	uint64_t *v = slot ? spgo_kmap_find(&bin->plt_slots, &slot) : NULL;
	return v ? spgo_strtab_get(&bin->strs, (uint32_t)(*v - 1)) : NULL;
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
		else if (bin->arch && bin->arch->noreturn_analysis) {
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
