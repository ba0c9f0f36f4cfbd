/*
 * Binary CFGs: one function's instructions -> basic blocks and edges.
 *
 * Leaders (first instructions of blocks) are the entry, the first listed
 * instruction, any instruction not contiguous with the one before it, the
 * targets of direct branches and of recovered jump tables, the instruction
 * after a branch, jump, return, trap or noreturn call, and the caller's exact
 * block starts (.llvm_bb_addr_map).  Calls that return do not end a block:
 * profiles count them as straight-line code, as the compiler does.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/infer.h"

#define MAX_TABLE 4096

static size_t find_insn(const struct spgo_insn *insns, size_t n, uint64_t addr)
{
	size_t lo;
	SPGO_LOWER_BOUND(lo, insns, n, addr, addr);
	return lo < n && insns[lo].addr == addr ? lo : (size_t)-1;
}

static int cmp_insn_addr(const void *a, const void *b)
{
	const struct spgo_insn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int noreturn_call(const struct spgo_insn *in, const struct spgo_bincfg_opts *o)
{
	return in->cls == SPGO_INSN_CALL && o && o->is_noreturn && o->is_noreturn(o->ctx, in->target);
}

/* Jump-table targets per indirect jump: (insn index << 32 | target index),
 * by instruction. */
typedef VEC(uint64_t) table_targets;

/* Mark the leaders (see the top of the file); the recovered jump tables'
 * targets go to tables. */
static void mark_leaders(const struct spgo_insn *insns, size_t n, size_t ei, const struct spgo_bincfg_opts *o,
			 uint8_t *leader, table_targets *tables)
{
	uint64_t *tbuf = xmalloc(MAX_TABLE * sizeof *tbuf);
	leader[0] = leader[ei] = 1;
	for (size_t i = 0; i < n; i++) {
		const struct spgo_insn *in = &insns[i];
		int ends = 0;
		if (i > 0 && insns[i - 1].addr + insns[i - 1].size != in->addr)
			leader[i] = 1;
		switch (in->cls) {
		case SPGO_INSN_COND_BRANCH:
		case SPGO_INSN_JUMP: {
			size_t t = find_insn(insns, n, in->target);
			if (t != (size_t)-1)
				leader[t] = 1;
			ends = 1;
			break;
		}
		case SPGO_INSN_INDIRECT_JUMP: {
			size_t nt = o && o->jump_table ? o->jump_table(o->ctx, in, tbuf, MAX_TABLE) : 0;
			for (size_t k = 0; k < nt && k < MAX_TABLE; k++) {
				size_t t = find_insn(insns, n, tbuf[k]);
				if (t == (size_t)-1)
					continue;
				leader[t] = 1;
				VEC_PUSH(tables, ((uint64_t)i << 32) | t);
			}
			ends = 1;
			break;
		}
		case SPGO_INSN_RETURN:
		case SPGO_INSN_TRAP:
			ends = 1;
			break;
		case SPGO_INSN_CALL:
			ends = noreturn_call(in, o);
			break;
		default:
			break;
		}
		if (ends && i + 1 < n)
			leader[i + 1] = 1;
	}
	for (size_t k = 0; o && k < o->nblock_starts; k++) {
		size_t t = find_insn(insns, n, o->block_starts[k]);
		if (t != (size_t)-1)
			leader[t] = 1;
	}
	free(tbuf);
}

/*
 * The edges out of block b, whose last instruction is insns[i], or its
 * flags when it leaves the function.  *ti walks tables along with i.
 * Returns 1 for an indirect jump with no known target (unresolved).
 */
static int add_block_edges(struct spgo_cfg *cfg, const struct spgo_insn *insns, size_t n, size_t i,
			   const uint32_t *block_of, const table_targets *tables, size_t *ti,
			   const struct spgo_bincfg_opts *o)
{
	const struct spgo_insn *in = &insns[i];
	uint32_t b = block_of[i];
	int next = i + 1 < n && insns[i].addr + insns[i].size == insns[i + 1].addr;
	uint32_t *fl = &cfg->blocks[b].flags;
	switch (in->cls) {
	case SPGO_INSN_COND_BRANCH:
	case SPGO_INSN_JUMP: {
		size_t t = find_insn(insns, n, in->target);
		if (t != (size_t)-1)
			spgo_cfg_add_edge(cfg, b, block_of[t], in->cls == SPGO_INSN_JUMP ? SPGO_EDGE_JUMP : SPGO_EDGE_TAKEN);
		else
			*fl |= SPGO_BLOCK_EXIT; /* a (conditional) tail call */
		if (in->cls == SPGO_INSN_COND_BRANCH) {
			if (next)
				spgo_cfg_add_edge(cfg, b, block_of[i + 1], SPGO_EDGE_NOT_TAKEN);
			else
				*fl |= SPGO_BLOCK_EXIT;
		}
		return 0;
	}
	case SPGO_INSN_INDIRECT_JUMP: {
		size_t added = 0;
		while (*ti < tables->n && (tables->v[*ti] >> 32) < i)
			++*ti;
		for (; *ti < tables->n && (tables->v[*ti] >> 32) == i; ++*ti) {
			uint32_t d = block_of[tables->v[*ti] & 0xffffffffu];
			int dup = 0;
			for (size_t k = cfg->nedges - added; k < cfg->nedges; k++)
				dup |= cfg->edges[k].dst == d;
			if (!dup) {
				spgo_cfg_add_edge(cfg, b, d, SPGO_EDGE_TABLE);
				added++;
			}
		}
		if (!added && o && o->is_tail_call && o->is_tail_call(o->ctx, in)) {
			*fl |= SPGO_BLOCK_EXIT; /* leaves through a pointer */
		} else if (!added) {
			*fl |= SPGO_BLOCK_UNKNOWN_SUCCS | SPGO_BLOCK_EXIT;
			return 1;
		}
		return 0;
	}
	case SPGO_INSN_RETURN:
		*fl |= SPGO_BLOCK_EXIT | SPGO_BLOCK_RETURN;
		return 0;
	case SPGO_INSN_TRAP:
		*fl |= SPGO_BLOCK_EXIT | SPGO_BLOCK_NORETURN;
		return 0;
	default:
		if (noreturn_call(in, o))
			*fl |= SPGO_BLOCK_EXIT | SPGO_BLOCK_NORETURN;
		else if (next)
			spgo_cfg_add_edge(cfg, b, block_of[i + 1], SPGO_EDGE_FALLTHROUGH);
		else
			*fl |= SPGO_BLOCK_EXIT; /* falls off the listed code */
		return 0;
	}
}

/* Unresolved indirect jumps may go to any block nobody else enters. */
static void guess_unresolved(struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint8_t *has_pred = xcalloc(nb, 1);
	for (size_t e = 0; e < ne; e++)
		has_pred[cfg->edges[e].dst] = 1;
	for (uint32_t u = 0; u < nb; u++) {
		if (!(cfg->blocks[u].flags & SPGO_BLOCK_UNKNOWN_SUCCS))
			continue;
		for (uint32_t v = 0; v < nb; v++)
			if (!has_pred[v] && v != cfg->entry)
				spgo_cfg_add_edge(cfg, u, v, SPGO_EDGE_GUESSED);
	}
	free(has_pred);
}

int spgo_cfg_from_insns(struct spgo_cfg *cfg, const struct spgo_insn *insns, size_t n, uint64_t entry,
			const struct spgo_bincfg_opts *o)
{
	spgo_cfg_init(cfg);
	size_t ei = find_insn(insns, n, entry);
	if (n == 0 || ei == (size_t)-1)
		return spgo_error("CFG of 0x%llx: the entry is not an instruction address",
				  (unsigned long long)entry);
	uint8_t *leader = xcalloc(n, 1);
	uint32_t *block_of = xmalloc(n * sizeof *block_of);
	table_targets tables = {0};
	mark_leaders(insns, n, ei, o, leader, &tables);
	/* Blocks. */
	for (size_t i = 0; i < n; i++) {
		if (leader[i])
			spgo_cfg_add_block(cfg, insns[i].addr, 0);
		uint32_t b = (uint32_t)cfg->nblocks - 1;
		block_of[i] = b;
		cfg->blocks[b].size = insns[i].addr + insns[i].size - cfg->blocks[b].addr;
	}
	cfg->entry = block_of[ei];
	/* Edges, from each block's last instruction. */
	size_t nunresolved = 0, ti = 0;
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || leader[i + 1])
			nunresolved += add_block_edges(cfg, insns, n, i, block_of, &tables, &ti, o);
	if (nunresolved)
		guess_unresolved(cfg);
	free(leader);
	free(block_of);
	VEC_FREE(&tables);
	return spgo_cfg_finalize(cfg);
}

/* ---- straight from the binary model ---------------------------------------- */

static size_t binary_table_cb(void *ctx, const struct spgo_insn *jmp, uint64_t *targets, size_t max)
{
	int n = spgo_binary_jump_table(ctx, jmp->addr, targets, max);
	return n < 0 ? 0 : (size_t)n < max ? (size_t)n : max;
}

static int binary_noreturn_cb(void *ctx, uint64_t target)
{
	return spgo_binary_is_noreturn(ctx, target);
}

static int binary_tail_call_cb(void *ctx, const struct spgo_insn *jmp)
{
	return spgo_binary_is_tail_call(ctx, jmp->addr);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int spgo_cfg_from_binary(struct spgo_cfg *cfg, struct spgo_binary *bin, uint64_t entry,
			 const struct spgo_bb_addr_map *bbmap)
{
	spgo_cfg_init(cfg);
	size_t nf, ni;
	const struct spgo_function *fs = spgo_binary_functions(bin, &nf);
	const struct spgo_insn *insns = spgo_binary_insns(bin, &ni);
	const struct spgo_function *fn = spgo_binary_function_at(bin, entry);
	if (!fn || fn->start != entry)
		return spgo_error("%s: no function starts at 0x%llx", spgo_binary_path(bin),
				  (unsigned long long)entry);
	int32_t root = fn->parent >= 0 ? fn->parent : (int32_t)(fn - fs);
	/* The instructions of the function and of its split parts. */
	VEC(uint64_t) parts = {0}; /* start, end pairs */
	for (size_t i = 0; i < nf; i++)
		if ((int32_t)i == root || fs[i].parent == root || fs + i == fn) {
			VEC_PUSH(&parts, fs[i].start);
			VEC_PUSH(&parts, fs[i].end);
		}
	VEC(struct spgo_insn) v = {0};
	for (size_t p = 0; p < parts.n; p += 2) {
		size_t lo = 0, hi = ni;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (insns[mid].addr < parts.v[p])
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ni && insns[lo].addr < parts.v[p + 1]; lo++)
			if (!v.n || insns[lo].addr != v.v[v.n - 1].addr)
				VEC_PUSH(&v, insns[lo]);
	}
	/* Parts come in function-table order, which is by address; overlapping
	 * entries (a symbol inside a DWARF range) were skipped above only when
	 * adjacent, so sort and drop duplicates. */
	spgo_sort(v.v, v.n, sizeof *v.v, cmp_insn_addr);
	size_t w = 0;
	for (size_t i = 0; i < v.n; i++)
		if (w == 0 || v.v[i].addr != v.v[w - 1].addr)
			v.v[w++] = v.v[i];
	v.n = w;
	VEC(uint64_t) starts = {0};
	const struct spgo_bb_func *bf = bbmap ? spgo_bb_addr_map_find(bbmap, entry) : NULL;
	for (size_t k = 0; bf && k < bf->nblocks; k++)
		VEC_PUSH(&starts, bf->blocks[k].addr);
	if (starts.n > 1)
		spgo_sort(starts.v, starts.n, sizeof *starts.v, cmp_u64);
	struct spgo_bincfg_opts o = {
		.block_starts = starts.v,
		.nblock_starts = starts.n,
		.jump_table = binary_table_cb,
		.is_noreturn = binary_noreturn_cb,
		.ctx = bin,
		.is_tail_call = binary_tail_call_cb,
	};
	int rc = spgo_cfg_from_insns(cfg, v.v, v.n, entry, &o);
	if (rc == 0)
		cfg->name = xstrdup(fs[root].name && *fs[root].name ? fs[root].name : fs[root].symbol);
	VEC_FREE(&parts);
	VEC_FREE(&v);
	VEC_FREE(&starts);
	return rc;
}
