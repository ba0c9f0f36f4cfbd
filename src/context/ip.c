/*
 * Context-sensitive profiles from IP samples with call stacks and no
 * branch stacks (LBR): `perf record -e cpu-clock --call-graph fp` on a
 * machine without a PMU (spgo/context.h states the contract).
 *
 * Contexts.  A sample's stack is its leaf (the sampled ip) and the return
 * addresses of its frame-pointer chain; each return address becomes the
 * call instruction before it (llvm-profgen's getCallAddrFromFrameAddr, as
 * the LBR unwinder does), an address outside the program's functions or a
 * return address that follows no call starts the context afresh below it
 * (external frames, a broken chain), and recursion is compressed on the
 * call sites (the LBR path's rule; with the default, no size limit, the
 * same contexts as compressing the expanded frames).  The call sites, root
 * first, are a path in a frame trie of the same layout the LBR unwinder
 * builds, so that profile.c and probe.c expand them to inline frames
 * (DWARF, or the probes' inline tree) exactly as for LBR data.  A sample
 * whose leaf is outside the program, or in a prologue or epilogue (a frame
 * pointer chain there misses the caller's frame), gives no count.
 *
 * Counts.  An IP sample is one hit of an instruction; every instruction of
 * a basic block runs equally often, so per unit -- a call-site path and
 * the function the leaf is in -- each block of the function's binary CFG
 * (spgo_cfg_from_binary, the CFG of IP mode) gets the average of its
 * instructions' hits (in 1/16 sample, as IP mode), prologue and epilogue
 * instructions left out of the average (their samples were dropped).  The
 * stacks add what they prove: a call site on a stack ran in its context,
 * so its block, if it got no hit of its own, takes the entry count already
 * estimated for the callee's context (units are done callees first).  Then
 * profile inference (profi by default; the algorithm of `spgo gen
 * --infer`, none: the averages) makes the block counts a flow on the CFG,
 * per unit; if the flow keeps under a quarter of the sampled weight, min-
 * cost flow is tried, then the averages (as IP mode guards it).
 *
 * Every block with a count becomes a range on the unit's path (in the
 * DWARF layout, split by inline context on leaf frames), every call in it
 * a branch to its callee with the block's count (an indirect call's count
 * split among the callees its stacks show, in their shares; a direct jump
 * to another function's entry is a tail call): the trie then holds what
 * LBR unwinding would have recorded, and the profile generators, the pre-
 * inliner and cold-context merging run on it unchanged.  So head samples
 * of a probe-based context come from its own entry block, call targets
 * from the caller's call block; a line-based context's head samples are
 * its callers' call-block counts (profile.c's rule for branches).
 */
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"
#include "spgo/infer.h"

/* Block counts in 1/CS_IP_SCALE sample, as spgo gen's IP mode (gen_impl.h). */
#define CS_IP_SCALE 16
/* Inference works in 1/256 sample: at 1/16 a context's sparse weights are
 * so small (one sample in a block of 8 instructions: 2) that profi's
 * decrease floor rounds to 0 and dropping a block is cheaper than routing
 * its flow. */
#define CS_IP_FINE 256

struct cs_ip {
	const struct spgo_cs_code *code;
	struct spgo_cs_stats *st;
	struct spgo_cs_trie t;   /* call-site paths; leaf frames, ranges, branches later */
	struct spgo_kmap hits;   /* {path node, instruction index} -> samples */
	struct spgo_kmap sites;  /* {path node, call site} -> samples below it */
	struct spgo_kmap icalls; /* {path node, indirect call site, callee function} -> samples */
	VEC(uint64_t) path;      /* scratch: one sample's call sites */
	int compress;
};

struct cs_ip *cs_ip_new(const struct spgo_cs_code *code, const struct spgo_cs_opts *o,
			struct spgo_cs_stats *st)
{
	struct cs_ip *ip = xcalloc(1, sizeof *ip);
	ip->code = code;
	ip->st = st;
	ip->compress = o->compress_recursion;
	spgo_cs_trie_init(&ip->t, code, o, st);
	spgo_kmap_init(&ip->hits, 2);
	spgo_kmap_init(&ip->sites, 2);
	spgo_kmap_init(&ip->icalls, 3);
	return ip;
}

void cs_ip_free(struct cs_ip *ip)
{
	if (!ip)
		return;
	spgo_cs_trie_free(&ip->t);
	spgo_kmap_free(&ip->hits);
	spgo_kmap_free(&ip->sites);
	spgo_kmap_free(&ip->icalls);
	VEC_FREE(&ip->path);
	free(ip);
}

struct spgo_cs_trie *cs_ip_trie(struct cs_ip *ip)
{
	return &ip->t;
}

static uint32_t ip_child(struct spgo_cs_trie *t, uint32_t parent, uint64_t addr)
{
	uint64_t key[2] = {parent, addr};
	uint64_t *v = spgo_kmap_upsert(&t->index, key);
	if (!*v) {
		struct spgo_cs_node nd = {addr, parent};
		VEC_PUSH(&t->nodes, nd);
		*v = t->nodes.n;
	}
	return (uint32_t)(*v - 1);
}

/* An instruction start inside a function: its index, else -1. */
static long code_index(const struct spgo_cs_code *c, uint64_t addr)
{
	if (addr == SPGO_AGG_EXTERNAL)
		return -1;
	long k = cs_insn_index(c, addr);
	if (k < 0 || (c->nfuncs && cs_func_of(c, addr) < 0))
		return -1;
	return k;
}

void cs_ip_add(struct cs_ip *ip, const struct spgo_agg_stack *s)
{
	const struct spgo_cs_code *c = ip->code;
	struct spgo_cs_stats *st = ip->st;
	uint64_t cnt = s->count;
	st->ip_samples += cnt;
	long leaf = s->nframes ? code_index(c, s->frames[0]) : -1;
	if (leaf < 0) {
		st->ip_ext_leaf += cnt;
		return;
	}
	if (c->flags[leaf] & CS_PROEPI) {
		st->ip_proepi += cnt;
		return;
	}
	/* Call sites root first; an external frame or a broken chain starts
	 * the context again below it. */
	ip->path.n = 0;
	int cut = 0;
	for (uint32_t i = s->nframes; i-- > 1;) {
		uint64_t a = s->frames[i];
		uint64_t site = cs_return_site(c, a);
		if (!site) {
			/* the outermost frame external is the normal case
			 * (libc's start code, a thread's start) */
			if (a != SPGO_AGG_EXTERNAL || ip->path.n)
				cut = 1;
			ip->path.n = 0;
			continue;
		}
		VEC_PUSH(&ip->path, site);
	}
	if (cut)
		st->stack_cut += cnt;
	size_t n = ip->path.n;
	if (n && ip->compress)
		n = spgo_cs_compress(ip->path.v, n, sizeof *ip->path.v, ip->compress);
	if (n)
		st->ip_callers += cnt;
	uint32_t x = SPGO_CS_ROOT;
	for (size_t i = 0; i < n; i++) {
		uint64_t site = ip->path.v[i];
		uint64_t k2[2] = {x, site};
		*spgo_kmap_upsert(&ip->sites, k2) += cnt;
		long k = cs_insn_index(c, site);
		if (k >= 0 && c->insns[k].cls == SPGO_INSN_INDIRECT_CALL) {
			uint64_t next = i + 1 < n ? ip->path.v[i + 1] : c->insns[leaf].addr;
			long callee = cs_func_of(c, next);
			if (callee >= 0) {
				uint64_t k3[3] = {x, site, (uint64_t)callee};
				*spgo_kmap_upsert(&ip->icalls, k3) += cnt;
			}
		}
		x = ip_child(&ip->t, x, site);
	}
	uint64_t kh[2] = {x, (uint64_t)leaf};
	*spgo_kmap_upsert(&ip->hits, kh) += cnt;
	st->ip_counted += cnt;
}

/* ---- block counts per unit ----------------------------------------------------------- */

/* A function's CFG, built once, and per block its instructions. */
struct fcfg {
	struct spgo_cfg cfg;
	uint32_t *first, *ninsns, *nobs; /* first instruction, instructions, those not
					    in a prologue or epilogue */
	int ok;
};

/* One row of a unit: a hit (instruction index) or a call site. */
struct urow {
	long func;
	uint64_t what; /* instruction index (hit) or site address */
	uint64_t count;
	int site;
};

static int cmp_urow(const void *x, const void *y)
{
	const struct urow *a = x, *b = y;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->site != b->site)
		return a->site - b->site;
	return a->what < b->what ? -1 : a->what > b->what;
}

struct ipgen {
	struct cs_ip *ip;
	struct spgo_binary *bin;
	const struct spgo_cs_code *c;
	struct spgo_cs_stats *st;
	int probes;
	int algo; /* enum spgo_algo */
	struct spgo_bb_addr_map bbmap;
	struct spgo_kmap cfg_of;  /* function -> fcfgs index + 1 */
	VEC(struct fcfg) fcfgs;
	struct spgo_kmap entry_of; /* path node -> its callees' entry counts */
	const uint64_t *icalls;    /* sorted icall rows (4 words) */
	size_t nicalls;
	VEC(uint64_t) bs;          /* per block: hits */
	VEC(uint64_t) wsave;       /* per block: the weights given */
};

static struct fcfg *cfg_for(struct ipgen *g, long f)
{
	uint64_t key = (uint64_t)f;
	uint64_t *v = spgo_kmap_upsert(&g->cfg_of, &key);
	if (*v)
		return &g->fcfgs.v[*v - 1];
	struct fcfg fc;
	memset(&fc, 0, sizeof fc);
	const struct spgo_cs_code *c = g->c;
	if (spgo_cfg_from_binary(&fc.cfg, g->bin, c->funcs[f].start, &g->bbmap) == 0 &&
	    fc.cfg.nblocks) {
		size_t nb = fc.cfg.nblocks;
		fc.first = xcalloc(nb, sizeof *fc.first);
		fc.ninsns = xcalloc(nb, sizeof *fc.ninsns);
		fc.nobs = xcalloc(nb, sizeof *fc.nobs);
		fc.ok = 1;
		for (size_t b = 0; b < nb; b++) {
			const struct spgo_cfg_block *blk = &fc.cfg.blocks[b];
			long k = cs_insn_index(c, blk->addr);
			if (k < 0)
				continue;
			fc.first[b] = (uint32_t)k;
			for (size_t i = (size_t)k; i < c->ninsns && c->insns[i].addr < blk->addr + blk->size;
			     i++) {
				fc.ninsns[b]++;
				fc.nobs[b] += !(c->flags[i] & CS_PROEPI);
			}
		}
	} else {
		spgo_cfg_free(&fc.cfg);
		g->st->ip_no_cfg++;
	}
	VEC_PUSH(&g->fcfgs, fc);
	*v = g->fcfgs.n;
	return &g->fcfgs.v[g->fcfgs.n - 1];
}

/* The branch of a call: on the path node (probe layout) or on the leaf
 * frame of the call (DWARF layout). */
static void add_branch(struct ipgen *g, uint32_t x, uint64_t from, uint64_t to, uint64_t count)
{
	struct spgo_cs_trie *t = &g->ip->t;
	uint32_t at = g->probes ? x : ip_child(t, x, from);
	uint64_t key[3] = {at, from, to};
	*spgo_kmap_upsert(&t->branches, key) += count;
}

static void add_range(struct ipgen *g, uint32_t x, size_t ib, size_t ie, uint64_t count)
{
	struct spgo_cs_trie *t = &g->ip->t;
	const struct spgo_cs_code *c = g->c;
	if (g->probes) {
		uint64_t key[3] = {x, c->insns[ib].addr, c->insns[ie].addr};
		*spgo_kmap_upsert(&t->ranges, key) += count;
		return;
	}
	/* DWARF: one piece per inline context, on the frame of its first
	 * instruction (the LBR unwinder's layout). */
	size_t e = ie;
	for (size_t k = ie + 1; k-- > ib;) {
		if (k > ib) {
			uint64_t kk = cs_insn_key(c, k), kp = cs_insn_key(c, k - 1);
			if (kk && kk == kp)
				continue;
		}
		uint64_t key[3] = {ip_child(t, x, c->insns[k].addr), c->insns[k].addr, c->insns[e].addr};
		*spgo_kmap_upsert(&t->ranges, key) += count;
		e = k - 1;
	}
}

/* The calls of block instructions [ib, ie] of unit (x, f), count each. */
static void block_calls(struct ipgen *g, uint32_t x, size_t ib, size_t ie, long f, uint64_t count)
{
	const struct spgo_cs_code *c = g->c;
	for (size_t k = ib; k <= ie; k++) {
		const struct spgo_insn *in = &c->insns[k];
		if (in->cls == SPGO_INSN_CALL ||
		    (in->cls == SPGO_INSN_JUMP && cs_func_of(c, in->target) != f &&
		     cs_entry_at(g->bin, in->target, 0))) {
			if (cs_func_of(c, in->target) >= 0)
				add_branch(g, x, in->addr, in->target, count);
			continue;
		}
		if (in->cls != SPGO_INSN_INDIRECT_CALL)
			continue;
		/* the callees its stacks show, in their shares */
		size_t lo = 0, hi = g->nicalls;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const uint64_t *r = g->icalls + 4 * mid;
			if (r[0] < x || (r[0] == x && r[1] < in->addr))
				lo = mid + 1;
			else
				hi = mid;
		}
		uint64_t total = 0;
		size_t e = lo;
		for (; e < g->nicalls && g->icalls[4 * e] == x && g->icalls[4 * e + 1] == in->addr; e++)
			total += g->icalls[4 * e + 3];
		for (size_t r = lo; r < e; r++) {
			uint64_t share = (count * g->icalls[4 * r + 3] + total / 2) / total;
			if (share)
				add_branch(g, x, in->addr, c->funcs[g->icalls[4 * r + 2]].start, share);
		}
	}
}

/* Infer the block counts of one unit: (x, f) with rows[0..n) (hits first,
 * then sites, in order). */
static void do_unit(struct ipgen *g, uint32_t x, long f, const struct urow *rows, size_t n)
{
	const struct spgo_cs_code *c = g->c;
	struct spgo_cs_stats *st = g->st;
	struct fcfg *fc = cfg_for(g, f);
	st->ip_units++;
	if (!fc->ok) {
		/* No CFG: each hit instruction on its own (no averaging). */
		for (size_t r = 0; r < n; r++)
			if (!rows[r].site)
				add_range(g, x, (size_t)rows[r].what, (size_t)rows[r].what,
					  rows[r].count * CS_IP_SCALE);
		return;
	}
	struct spgo_cfg *cfg = &fc->cfg;
	size_t nb = cfg->nblocks;
	VEC_GROW(&g->bs, nb);
	VEC_GROW(&g->wsave, nb);
	uint64_t *bs = g->bs.v;
	memset(bs, 0, nb * sizeof *bs);
	for (size_t r = 0; r < n && !rows[r].site; r++) {
		uint32_t b = spgo_cfg_block_at(cfg, c->insns[rows[r].what].addr);
		if (b == SPGO_NONE) {
			st->ip_unblocked += rows[r].count;
			continue;
		}
		bs[b] += rows[r].count;
	}
	/* Each block's average over its instructions outside prologues and
	 * epilogues (none of those: unknown). */
	for (size_t b = 0; b < nb; b++) {
		struct spgo_cfg_block *blk = &cfg->blocks[b];
		blk->cost_scale = 0;
		blk->weight = fc->nobs[b] ? (bs[b] * CS_IP_FINE + fc->nobs[b] / 2) / fc->nobs[b]
					  : SPGO_WEIGHT_UNKNOWN;
	}
	/* Call sites on the stacks ran: a block without hits of its own takes
	 * the callees' entry estimate. */
	for (size_t r = 0; r < n; r++) {
		if (!rows[r].site)
			continue;
		uint32_t b = spgo_cfg_block_at(cfg, rows[r].what);
		if (b == SPGO_NONE || bs[b])
			continue;
		uint64_t key[2] = {x, rows[r].what};
		const uint64_t *y = spgo_kmap_find(&g->ip->t.index, key);
		const uint64_t *e = y ? spgo_kmap_find(&g->entry_of, (const uint64_t[]){*y - 1}) : NULL;
		uint64_t est = (e && *e ? *e : 1) * (CS_IP_FINE / CS_IP_SCALE);
		struct spgo_cfg_block *blk = &cfg->blocks[b];
		if (blk->weight == SPGO_WEIGHT_UNKNOWN || blk->weight < est) {
			blk->weight = est;
			st->ip_site_blocks++;
		}
	}
	uint64_t wsum = 0;
	for (size_t b = 0; b < nb; b++) {
		g->wsave.v[b] = cfg->blocks[b].weight;
		if (cfg->blocks[b].weight != SPGO_WEIGHT_UNKNOWN)
			wsum += cfg->blocks[b].weight * fc->ninsns[b];
	}
	int done = 0;
	if (g->algo != SPGO_ALGO_NONE) {
		int tries[2] = {g->algo, SPGO_ALGO_MCF};
		for (int t = 0; t < 2 && !done; t++) {
			if (t && tries[t] == g->algo)
				break;
			struct spgo_infer_opts io;
			spgo_infer_defaults(&io, (enum spgo_algo)tries[t]);
			for (size_t b = 0; b < nb; b++)
				cfg->blocks[b].weight = g->wsave.v[b];
			spgo_infer(cfg, &io);
			uint64_t fsum = 0;
			for (size_t b = 0; b < nb; b++)
				fsum += cfg->blocks[b].count * fc->ninsns[b];
			done = fsum >= wsum / 4;
			if (!done)
				st->ip_infer_lost++;
		}
	}
	if (!done)
		for (size_t b = 0; b < nb; b++)
			cfg->blocks[b].count = g->wsave.v[b] == SPGO_WEIGHT_UNKNOWN ? 0 : g->wsave.v[b];
	const uint64_t down = CS_IP_FINE / CS_IP_SCALE;
	for (size_t b = 0; b < nb; b++) {
		uint64_t cnt = cfg->blocks[b].count;
		cnt = cnt ? (cnt + down / 2) / down : 0;
		if (cnt == 0 && cfg->blocks[b].count)
			cnt = 1;
		cfg->blocks[b].count = cnt;
		if (!cnt || !fc->ninsns[b])
			continue;
		size_t ib = fc->first[b], ie = ib + fc->ninsns[b] - 1;
		add_range(g, x, ib, ie, cnt);
		block_calls(g, x, ib, ie, f, cnt);
	}
	*spgo_kmap_upsert(&g->entry_of, (const uint64_t[]){x}) += cfg->blocks[cfg->entry].count;
}

int cs_ip_build(struct cs_ip *ip, struct spgo_binary *bin, const struct spgo_cs_opts *o, int probes)
{
	struct ipgen g;
	memset(&g, 0, sizeof g);
	g.ip = ip;
	g.bin = bin;
	g.c = ip->code;
	g.st = ip->st;
	g.probes = probes;
	ip->t.probes = probes;
	const char *aname = o->ip_infer ? o->ip_infer : "profi";
	g.algo = spgo_algo_parse(aname);
	if (g.algo < 0)
		return spgo_error("unknown inference algorithm '%s' (profi, mcf, fp, quadratic, none)", aname);
	if (g.algo != SPGO_ALGO_NONE && spgo_bb_addr_map_read(&g.bbmap, spgo_binary_path(bin)) < 0)
		spgo_bb_addr_map_free(&g.bbmap); /* no block map: the CFG's own block starts */
	spgo_kmap_init(&g.cfg_of, 1);
	spgo_kmap_init(&g.entry_of, 1);
	uint64_t *hr = spgo_kmap_sorted(&ip->hits), *sr = spgo_kmap_sorted(&ip->sites);
	size_t nh = ip->hits.n, ns = ip->sites.n;
	uint64_t *ir = spgo_kmap_sorted(&ip->icalls);
	g.icalls = ir;
	g.nicalls = ip->icalls.n;
	VEC(struct urow) rows = {0};
	/* Path nodes from the deepest (a child comes after its parent in the
	 * trie), so that a caller's unit sees its callees' entry counts. */
	size_t hi = nh, si = ns;
	while (hi || si) {
		uint64_t x = 0;
		if (hi)
			x = hr[3 * (hi - 1)];
		if (si && sr[3 * (si - 1)] > x)
			x = sr[3 * (si - 1)];
		rows.n = 0;
		for (; hi && hr[3 * (hi - 1)] == x; hi--) {
			uint64_t k = hr[3 * (hi - 1) + 1];
			struct urow u = {cs_func_of(g.c, g.c->insns[k].addr), k, hr[3 * (hi - 1) + 2], 0};
			VEC_PUSH(&rows, u);
		}
		for (; si && sr[3 * (si - 1)] == x; si--) {
			uint64_t a = sr[3 * (si - 1) + 1];
			struct urow u = {cs_func_of(g.c, a), a, sr[3 * (si - 1) + 2], 1};
			VEC_PUSH(&rows, u);
		}
		spgo_sort(rows.v, rows.n, sizeof *rows.v, cmp_urow);
		for (size_t r = 0; r < rows.n;) {
			size_t e = r;
			while (e < rows.n && rows.v[e].func == rows.v[r].func)
				e++;
			if (rows.v[r].func >= 0)
				do_unit(&g, (uint32_t)x, rows.v[r].func, rows.v + r, e - r);
			r = e;
		}
	}
	VEC_FREE(&rows);
	free(hr);
	free(sr);
	free(ir);
	for (size_t i = 0; i < g.fcfgs.n; i++) {
		struct fcfg *fc = &g.fcfgs.v[i];
		if (fc->ok)
			spgo_cfg_free(&fc->cfg);
		free(fc->first);
		free(fc->ninsns);
		free(fc->nobs);
	}
	VEC_FREE(&g.fcfgs);
	VEC_FREE(&g.bs);
	VEC_FREE(&g.wsave);
	spgo_kmap_free(&g.cfg_of);
	spgo_kmap_free(&g.entry_of);
	spgo_bb_addr_map_free(&g.bbmap);
	ip->st->frames = ip->t.nodes.n - 1;
	return 0;
}
