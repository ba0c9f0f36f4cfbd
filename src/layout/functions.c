/*
 * functions.c: the binary's functions and basic blocks as BOLT sees them,
 * so that spgo names and cuts what it writes the way perf2bolt does.
 *
 * Functions: every STT_FUNC symbol in an executable segment with a size,
 * one function per address (the first name in address order names it),
 * every PLT entry whose jump slot names a dynamic symbol ("puts@PLT"), and
 * the lazy-binding header of .plt ("__BOLT_PSEUDO_.plt").
 * BOLT gives local symbols unique names: "name/N", N counting the local
 * symbols called name in address order from 1.
 *
 * Blocks (lay_blocks): BOLT's, as its disassembler builds the CFG: a block
 * starts at the entry, at each target of a direct branch or jump table
 * inside the function, and after each terminator; padding nops are
 * instructions (a nop between a jump and the next target is a block of its
 * own).  An indirect jump spgo cannot resolve (no known jump table, a
 * tail call or not) ends its block, with no successor: perf2bolt-19 still
 * turns the ranges of such a function into fall-throughs (its aggregator
 * runs before llvm-bolt rejects the function's CFG), so spgo does too.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_impl.h"

static int exec_addr(const struct spgo_segment *segs, size_t nseg, uint64_t a)
{
	for (size_t i = 0; i < nseg; i++)
		if ((segs[i].flags & PF_X) && a >= segs[i].vaddr && a - segs[i].vaddr < segs[i].memsz)
			return 1;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct lay_func *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* PLT entries of section sec (entry size esz; skip the first hdr bytes). */
static void add_plt(struct lay *L, const char *sec, uint64_t esz, uint64_t hdr)
{
	uint64_t addr;
	size_t size;
	if (!spgo_binary_section(L->bin, sec, &addr, &size))
		return;
	if (hdr && size >= hdr) { /* the lazy-binding header: BOLT names it after the section */
		struct lay_func f = {.start = addr, .end = addr + hdr, .plt = 1, .simple = 0};
		size_t len = strlen(sec) + 16;
		f.name = xmalloc(len);
		snprintf(f.name, len, "__BOLT_PSEUDO_%s", sec);
		VEC_PUSH(&L->fns, f);
	}
	for (uint64_t a = addr + hdr; a + esz <= addr + size; a += esz) {
		const char *name = spgo_binary_plt_name(L->bin, a);
		if (!name)
			continue;
		size_t n = strlen(name);
		char *s = xmalloc(n + 5);
		memcpy(s, name, n);
		memcpy(s + n, "@PLT", 5);
		struct lay_func f = {.start = a, .end = a + esz, .name = s, .plt = 1, .simple = 0};
		VEC_PUSH(&L->fns, f);
	}
}

int lay_functions_build(struct lay *L)
{
	size_t nsym, nseg;
	const struct spgo_symbol *syms = spgo_binary_symbols(L->bin, &nsym);
	const struct spgo_segment *segs = spgo_binary_segments(L->bin, &nseg);
	/* local name -> how many seen so far (BOLT's "/N") */
	struct spgo_strtab names;
	spgo_strtab_init(&names);
	VEC(uint32_t) seen = {0};
	uint64_t last = UINT64_MAX;
	for (size_t i = 0; i < nsym; i++) {
		const struct spgo_symbol *s = &syms[i];
		uint32_t n = 0;
		if (s->bind == STB_LOCAL) {
			uint32_t id = spgo_strtab_intern(&names, s->name, strlen(s->name));
			while (seen.n <= id)
				VEC_PUSH(&seen, 0);
			n = ++seen.v[id];
		}
		if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) || !s->size || s->addr == last ||
		    !exec_addr(segs, nseg, s->addr))
			continue;
		last = s->addr;
		struct lay_func f = {.start = s->addr, .end = s->addr + s->size, .symbol = s->name, .simple = -1};
		if (n) {
			size_t len = strlen(s->name) + 12;
			f.name = xmalloc(len);
			snprintf(f.name, len, "%s/%u", s->name, n);
		} else {
			f.name = xstrdup(s->name);
		}
		VEC_PUSH(&L->fns, f);
	}
	VEC_FREE(&seen);
	spgo_strtab_free(&names);
	add_plt(L, ".plt", 16, 16);
	add_plt(L, ".plt.sec", 16, 0);
	add_plt(L, ".plt.got", 8, 0);
	if (L->fns.n)
		qsort(L->fns.v, L->fns.n, sizeof *L->fns.v, by_start);
	return 0;
}

void lay_functions_free(struct lay *L)
{
	for (size_t i = 0; i < L->fns.n; i++) {
		struct lay_func *f = &L->fns.v[i];
		free(f->name);
		free(f->blocks);
		free(f->last);
		free(f->falls);
		free(f->ends_in_call);
	}
	VEC_FREE(&L->fns);
}

long lay_func_at(const struct lay *L, uint64_t addr)
{
	static _Thread_local const struct lay *hint_lay;
	static _Thread_local size_t hint; /* the previous answer: runs of one function are common */
	if (hint_lay == L && hint < L->fns.n && addr - L->fns.v[hint].start < L->fns.v[hint].end - L->fns.v[hint].start)
		return (long)hint;
	size_t lo = 0, hi = L->fns.n;
	while (lo < hi) { /* first function starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (L->fns.v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= L->fns.v[lo - 1].end)
		return -1;
	hint_lay = L, hint = lo - 1;
	return (long)(lo - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int is_terminator(unsigned cls)
{
	return cls == SPGO_INSN_COND_BRANCH || cls == SPGO_INSN_JUMP || cls == SPGO_INSN_INDIRECT_JUMP ||
	       cls == SPGO_INSN_RETURN || cls == SPGO_INSN_TRAP;
}

/* The first instruction at or after addr (index into insns). */
static size_t insn_from(const struct spgo_insn *insns, size_t n, uint64_t addr)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, insns, n, addr, addr);
	return lo;
}

/* Does the jump table of the indirect jump at addr list target? */
static int table_has(struct lay *L, uint64_t addr, uint64_t target)
{
	uint64_t jt[4096];
	int k = spgo_binary_jump_table(L->bin, addr, jt, sizeof jt / sizeof *jt);
	for (int t = 0; t < k && (size_t)t < sizeof jt / sizeof *jt; t++)
		if (jt[t] == target)
			return 1;
	return 0;
}

/*
 * The leaders of f (sorted, unique): entry, branch and table targets, the
 * instruction after a terminator -- except a direct jump right after a
 * conditional branch, which BOLT keeps in the conditional branch's block
 * (a block may end "jcc; jmp").
 */
static void leaders(struct lay *L, struct lay_func *f, const struct spgo_insn *insns, size_t b, size_t e,
		   uint64_t **out, size_t *nout)
{
	VEC(uint64_t) lead = {0};
	VEC_PUSH(&lead, f->start);
	uint64_t jt[4096];
	for (size_t i = b; i < e; i++) {
		const struct spgo_insn *in = &insns[i];
		int local = in->target >= f->start && in->target < f->end;
		if ((in->cls == SPGO_INSN_COND_BRANCH || in->cls == SPGO_INSN_JUMP) && local)
			VEC_PUSH(&lead, in->target);
		if (in->cls == SPGO_INSN_INDIRECT_JUMP) {
			int k = spgo_binary_jump_table(L->bin, in->addr, jt, sizeof jt / sizeof *jt);
			for (int t = 0; t < k && (size_t)t < sizeof jt / sizeof *jt; t++)
				VEC_PUSH(&lead, jt[t]);
		}
		if (!is_terminator(in->cls) || i + 1 >= e)
			continue;
		const struct spgo_insn *nx = &insns[i + 1];
		int jcc_jmp = in->cls == SPGO_INSN_COND_BRANCH && in->target >= f->start && in->target < f->end &&
			      nx->cls == SPGO_INSN_JUMP && nx->target >= f->start && nx->target < f->end;
		if (!jcc_jmp) /* (such a jump that is a target is a leader anyway) */
			VEC_PUSH(&lead, nx->addr);
	}
	qsort(lead.v, lead.n, sizeof *lead.v, cmp_u64);
	size_t m = 0;
	for (size_t i = 0; i < lead.n; i++) /* unique, and only instruction starts */
		if ((!m || lead.v[i] != lead.v[m - 1]) && spgo_binary_insn_at(L->bin, lead.v[i]))
			lead.v[m++] = lead.v[i];
	*out = lead.v;
	*nout = m;
}

void lay_blocks(struct lay *L, struct lay_func *f)
{
	if (f->simple >= 0)
		return;
	size_t n, m;
	const struct spgo_insn *insns = spgo_binary_insns(L->bin, &n);
	size_t b = insn_from(insns, n, f->start), e = insn_from(insns, n, f->end);
	f->simple = 0;
	if (b == e || insns[b].addr != f->start)
		return;
	leaders(L, f, insns, b, e, &f->blocks, &m);
	f->nblocks = (uint32_t)m;
	f->last = xcalloc(m, sizeof *f->last);
	f->falls = xcalloc(m, 1);
	f->ends_in_call = xcalloc(m, 1);
	size_t i = b;
	for (uint32_t k = 0; k < m; k++) {
		uint64_t end = k + 1 < m ? f->blocks[k + 1] : f->end;
		const struct spgo_insn *lastin = NULL, *prev = NULL;
		for (; i < e && insns[i].addr < end; i++)
			if (insns[i].addr >= f->blocks[k])
				prev = lastin, lastin = &insns[i];
		f->last[k] = lastin ? lastin->addr : f->blocks[k];
		if (k + 1 >= m || !lastin)
			continue;
		/* is the next block a successor (BOLT's check before a fall-through)? */
		uint64_t next = f->blocks[k + 1];
		switch (lastin->cls) {
		case SPGO_INSN_RETURN:
		case SPGO_INSN_TRAP: break;
		case SPGO_INSN_JUMP:
			f->falls[k] = lastin->target == next ||
				      (prev && prev->cls == SPGO_INSN_COND_BRANCH && prev->target == next);
			break;
		case SPGO_INSN_INDIRECT_JUMP: f->falls[k] = table_has(L, lastin->addr, next); break;
		default: f->falls[k] = 1; break;
		}
		f->ends_in_call[k] = lastin->cls == SPGO_INSN_CALL || lastin->cls == SPGO_INSN_INDIRECT_CALL;
	}
	f->simple = 1;
}

uint32_t lay_block_at(const struct lay_func *f, uint64_t addr)
{
	uint32_t lo = 0, hi = f->nblocks;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->blocks[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}
