/*
 * Block signatures of a probe build (stale_impl.h), for spgo carry: what
 * pairs the block probes of a function whose CFG changed when no call
 * anchors them (the stale matching of BOLT, Ayupov, Panchenko and
 * Pupyrev, CC 2024, with probes in the place of BOLT's blocks).
 *
 * A probe's block is the code from its address to the first of: the next
 * address holding a probe (of any function: an inlinee's code is its
 * own), the end of its function, and the first instruction that does not
 * fall through (a branch, a jump, a return; included).  Of its
 * instructions, each gives a token: its opcode (the instruction set's
 * mnemonic id, whatever the registers, immediates and addresses), a
 * conditional branch the token "branch" (which way it tests changes
 * with the layout), a call "call" (its callee is the anchor's business);
 * unconditional direct jumps and no-ops (padding) give none: both come
 * and go with the layout.  Two signatures (BOLT's opcode hash and its
 * successors' hashes):
 *  - the code hash: the block's tokens in order (stale_build.wsigs);
 *  - the block hash (stale_build.sigs): that mixed with the code hashes of
 *    its successors (the fall-through and the branch target, in either
 *    order: a layout may swap them; up to SUCC_TOKENS tokens each): small
 *    blocks of the same code differ by where they go.
 * A probe in several places (a duplicated block, inlined copies) takes
 * the place in its own function's out-of-line body first, else its
 * lowest address.  The start of that place's straight run is kept too
 * (stale_build.blocks): probes with no branch and no branch target
 * between them are in one block of the build (blocks merged, calls in a
 * block), and a profile of the build gives each the block's samples.  A
 * probe the build does not hold (optimized away) has no signature, nor
 * has a block of no token.
 */
#include "spgo/probe.h"
#include "stale/stale_impl.h"

enum { TOK_BRANCH = 0x10001, TOK_CALL, TOK_ICALL, TOK_IJUMP, TOK_RET, TOK_TRAP };

/* The token of an instruction, 0: none. */
static uint64_t token(const struct spgo_insn *in)
{
	switch (in->cls) {
	case SPGO_INSN_COND_BRANCH: return TOK_BRANCH;
	case SPGO_INSN_JUMP: return 0;
	case SPGO_INSN_CALL: return TOK_CALL;
	case SPGO_INSN_INDIRECT_CALL: return TOK_ICALL;
	case SPGO_INSN_INDIRECT_JUMP: return TOK_IJUMP;
	case SPGO_INSN_RETURN: return TOK_RET;
	case SPGO_INSN_TRAP: return TOK_TRAP;
	default: return in->op;
	}
}

static int falls_through(const struct spgo_insn *in)
{
	return in->cls == SPGO_INSN_OTHER || in->cls == SPGO_INSN_CALL || in->cls == SPGO_INSN_INDIRECT_CALL;
}

#define SUCC_TOKENS 16 /* the most tokens of a successor's code hashed */

/* The hash of the tokens of the code from in on, up to limit, the first
 * instruction that does not fall through (included) or max tokens; *end:
 * the instruction after the last one read. */
static uint64_t code_hash(const struct spgo_insn *in, const struct spgo_insn *stop, uint64_t limit, size_t max,
			  const struct spgo_insn **end, size_t *ntok)
{
	uint64_t h = 0x243f6a8885a308d3ULL;
	size_t n = 0;
	for (; in < stop && in->addr < limit && n < max; in++) {
		uint64_t t = token(in);
		if (t) {
			h = spgo_hash64(h ^ t) + 0x9e3779b97f4a7c15ULL;
			n++;
		}
		if (!falls_through(in)) {
			in++;
			break;
		}
	}
	*end = in;
	*ntok = n;
	return n ? h | 1 : 0;
}

/* The hash of the code at addr (a successor of a block), 0 if none. */
static uint64_t succ_hash(struct spgo_binary *bin, uint64_t addr, const struct spgo_insn *stop)
{
	const struct spgo_insn *in = addr ? spgo_binary_insn_at(bin, addr) : NULL, *end;
	size_t n;
	return in ? code_hash(in, stop, UINT64_MAX, SUCC_TOKENS, &end, &n) : 0;
}

/* The two signatures of the block at addr, up to limit: its own code's
 * hash (*own), and that mixed with its successors' (*hash: the fall-through
 * and the branch target, in either order: a layout may swap them); 0 when
 * the block has no token. */
static void block_sigs(struct spgo_binary *bin, uint64_t addr, uint64_t limit, uint64_t *hash, uint64_t *own)
{
	*hash = *own = 0;
	size_t ni, n;
	const struct spgo_insn *all = spgo_binary_insns(bin, &ni), *end;
	const struct spgo_insn *in = spgo_binary_insn_at(bin, addr);
	if (!in)
		return;
	uint64_t h = code_hash(in, all + ni, limit, SIZE_MAX, &end, &n);
	if (!h)
		return;
	const struct spgo_insn *last = end - 1;
	uint64_t s = 0;
	if (falls_through(last)) { /* (cut by the next probe) */
		s = succ_hash(bin, end < all + ni ? end->addr : 0, all + ni);
	} else {
		if (last->cls == SPGO_INSN_COND_BRANCH)
			s = succ_hash(bin, last->addr + last->size, all + ni);
		if (last->cls == SPGO_INSN_COND_BRANCH || last->cls == SPGO_INSN_JUMP)
			s += succ_hash(bin, last->target, all + ni);
	}
	*own = h;
	*hash = spgo_hash64(h ^ spgo_hash64(s + 0x6a09e667f3bcc909ULL)) | 1;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* Do the probes at a and at b > a lie in one straight run of code: no
 * instruction in [a, b) that does not fall through, no branch target in
 * (a, b] (targets: sorted)? */
static int straight(struct spgo_binary *bin, uint64_t a, uint64_t b, const uint64_t *targets, size_t nt)
{
	size_t lo = 0, hi = nt;
	while (lo < hi) { /* the first target above a */
		size_t mid = lo + (hi - lo) / 2;
		if (targets[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nt && targets[lo] <= b)
		return 0;
	size_t ni;
	const struct spgo_insn *all = spgo_binary_insns(bin, &ni);
	const struct spgo_insn *in = spgo_binary_insn_at(bin, a);
	if (!in)
		return 0;
	for (; in < all + ni && in->addr < b; in++)
		if (!falls_through(in))
			return 0;
	return 1;
}

/* The start of each probe's straight run (a probe's block of the build:
 * profiling gives each of its probes the same samples), into run[]. */
static void runs(struct spgo_binary *bin, const struct spgo_probe *p, size_t np, uint64_t *run)
{
	size_t ni;
	const struct spgo_insn *all = spgo_binary_insns(bin, &ni);
	VEC(uint64_t) t = {0};
	for (size_t i = 0; i < ni; i++)
		if (all[i].target && (all[i].cls == SPGO_INSN_COND_BRANCH || all[i].cls == SPGO_INSN_JUMP))
			VEC_PUSH(&t, all[i].target);
	spgo_sort(t.v, t.n, sizeof *t.v, cmp_u64);
	for (size_t i = 0; i < np; i++) {
		if (i && p[i].addr == p[i - 1].addr) {
			run[i] = run[i - 1];
			continue;
		}
		const struct spgo_function *f = i ? spgo_binary_function_at(bin, p[i].addr) : NULL;
		run[i] = p[i].addr;
		if (i && f && p[i - 1].addr >= f->start && straight(bin, p[i - 1].addr, p[i].addr, t.v, t.n))
			run[i] = run[i - 1];
	}
	VEC_FREE(&t);
}

void stale_probe_block_sigs(struct stale_build *b)
{
	size_t np, nn;
	const struct spgo_probe *p = spgo_binary_probes(b->bin, &np);
	const struct spgo_probe_node *nodes = spgo_binary_probe_nodes(b->bin, &nn);
	uint64_t *run = xcalloc(np ? np : 1, sizeof *run);
	runs(b->bin, p, np, run);
	/* two passes: the out-of-line copies, then the others; each probe's
	 * lowest address first (the probes are sorted by address) */
	for (int pass = 0; pass < 2; pass++) {
		size_t next = 0; /* the first probe at a higher address */
		for (size_t i = 0; i < np; i++) {
			if (next <= i)
				for (next = i + 1; next < np && p[next].addr == p[i].addr;)
					next++;
			int top = p[i].node < nn && nodes[p[i].node].parent < 0;
			if (top != !pass)
				continue;
			uint64_t key[2] = {p[i].guid, stale_loc(p[i].index, p[i].discriminator)};
			uint64_t *hv = spgo_kmap_upsert(&b->sigs, key);
			if (*hv)
				continue;
			const struct spgo_function *f = spgo_binary_function_at(b->bin, p[i].addr);
			uint64_t limit = next < np ? p[next].addr : UINT64_MAX;
			if (f && f->end < limit)
				limit = f->end;
			uint64_t h, s;
			block_sigs(b->bin, p[i].addr, limit, &h, &s);
			*hv = h ? h : STALE_NO_SIG;
			*spgo_kmap_upsert(&b->wsigs, key) = s;
			*spgo_kmap_upsert(&b->blocks, key) = run[i];
		}
	}
	free(run);
}
