/*
 * propeller.c: Propeller's two outputs from an LBR capture of a binary
 * built with the basic-block address map (clang 19
 * -fbasic-block-sections=labels, clang 20+ -fbasic-block-address-map):
 *
 *  - the cluster profile clang reads with -fbasic-block-sections=list=FILE
 *    (LLVM's BasicBlockSectionsProfileReader, version 1):
 *        v1
 *        f NAME
 *        c ID ID ...
 *    one `f` line per function with samples and one cluster of its hot
 *    blocks (block ids of the map) in ext-TSP order, the entry first; the
 *    blocks left out are cold, and clang moves them to NAME.cold in a
 *    section of their own.  An `f NAME` applies in every module, so a
 *    name that several functions of the binary carry (static functions of
 *    different files) gets an `m FILE` line before it, FILE its compile
 *    unit's DW_AT_name as clang compares it; without DWARF, or when the
 *    units' names do not tell the functions apart, it is left out, with a
 *    note;
 *  - the symbol order for the linker (--symbol-ordering-file), the call-
 *    chain clustering of order.c: the hot parts of the hot functions
 *    together, the cold parts after them where the linker puts what the
 *    file does not name.
 *
 * Counts.  Each fall-through range of the LBR (from the target of one
 * branch to the source of the next, within one function) adds its count
 * to every block it runs through and to the fall-through edge between
 * each pair of them; each taken jump (conditional, unconditional,
 * indirect) within a function adds to the edge from the block of its
 * source to the block of its target.  Calls, returns and recursion are
 * not block edges.  A block is hot when it ran (count or edge above
 * zero).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_impl.h"

/* The counts of one function of the map. */
struct pfunc {
	const struct spgo_bb_func *bf;
	uint32_t *sorted;       /* block indices by address */
	uint64_t *count;        /* per block index */
	struct spgo_kmap edges; /* {src block index, dst block index} -> count */
	uint64_t total;
};

struct prop {
	struct lay *L;
	struct pfunc **pf; /* per lay function, NULL: not in the map or not sampled */
};

static const struct spgo_bb_func *sort_bf;

static int by_addr(const void *a, const void *b)
{
	const struct spgo_bb_entry *x = &sort_bf->blocks[*(const uint32_t *)a];
	const struct spgo_bb_entry *y = &sort_bf->blocks[*(const uint32_t *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1; /* (zero-size blocks first) */
}

/* The counts of the function containing addr, made on first use; NULL when
 * the map does not describe it. */
static struct pfunc *pfunc_at(struct prop *P, uint64_t addr, long *fi)
{
	long f = lay_func_at(P->L, addr);
	*fi = f;
	if (f < 0 || P->L->fns.v[f].plt)
		return NULL;
	if (P->pf[f])
		return P->pf[f];
	const struct spgo_bb_func *bf = spgo_bb_addr_map_find(&P->L->bbmap, P->L->fns.v[f].start);
	if (!bf || !bf->nblocks)
		return NULL;
	struct pfunc *p = xcalloc(1, sizeof *p);
	p->bf = bf;
	p->sorted = xcalloc(bf->nblocks, sizeof *p->sorted);
	p->count = xcalloc(bf->nblocks, sizeof *p->count);
	for (size_t i = 0; i < bf->nblocks; i++)
		p->sorted[i] = (uint32_t)i;
	sort_bf = bf;
	qsort(p->sorted, bf->nblocks, sizeof *p->sorted, by_addr);
	spgo_kmap_init(&p->edges, 2);
	P->pf[f] = p;
	return p;
}

/* The position in p->sorted of the block holding addr (the last block
 * starting at or before it), or -1 when addr is outside every block. */
static long block_pos(const struct pfunc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->bf->nblocks; /* first block starting after addr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->bf->blocks[p->sorted[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	const struct spgo_bb_entry *b = &p->bf->blocks[p->sorted[lo - 1]];
	return addr < b->addr + (b->size ? b->size : 1) ? (long)lo - 1 : -1;
}

static void add_edge(struct pfunc *p, uint32_t src, uint32_t dst, uint64_t n)
{
	uint64_t key[2] = {src, dst};
	*spgo_kmap_upsert(&p->edges, key) += n;
}

/* Block and edge counts from the LBR tables of layout.c. */
static void count_blocks(struct prop *P)
{
	struct lay *L = P->L;
	const uint64_t *k;
	uint64_t *v;
	long f;
	for (size_t it = 0; spgo_kmap_next(&L->lbr.traces, &it, &k, &v);) {
		struct pfunc *p = pfunc_at(P, k[0], &f);
		long i = p ? block_pos(p, k[0]) : -1;
		if (i < 0 || k[1] < k[0])
			continue;
		for (;;) {
			const struct spgo_bb_entry *b = &p->bf->blocks[p->sorted[i]];
			p->count[p->sorted[i]] += *v;
			p->total += *v;
			if (b->addr + b->size > k[1] || (size_t)i + 1 >= p->bf->nblocks)
				break;
			const struct spgo_bb_entry *nb = &p->bf->blocks[p->sorted[i + 1]];
			if (nb->addr > k[1] || nb->addr < b->addr + b->size)
				break; /* (another range of the function) */
			add_edge(p, p->sorted[i], p->sorted[i + 1], *v);
			i++;
		}
	}
	for (size_t it = 0; spgo_kmap_next(&L->lbr.taken, &it, &k, &v);) {
		if (k[0] == SPGO_AGG_EXTERNAL || k[1] == SPGO_AGG_EXTERNAL)
			continue;
		struct pfunc *p = pfunc_at(P, k[0], &f);
		if (!p || lay_func_at(L, k[1]) != f)
			continue;
		const struct spgo_insn *in = spgo_binary_insn_at(L->bin, k[0]);
		if (!in || (in->cls != SPGO_INSN_COND_BRANCH && in->cls != SPGO_INSN_JUMP &&
			    in->cls != SPGO_INSN_INDIRECT_JUMP))
			continue;
		long s = block_pos(p, k[0]), d = block_pos(p, k[1]);
		if (s < 0 || d < 0)
			continue;
		add_edge(p, p->sorted[s], p->sorted[d], *v);
		p->total += *v;
	}
}

/* One function's cluster line: its hot blocks in ext-TSP order. */
static void write_cluster(struct pfunc *p, FILE *fp, double *before, double *after)
{
	const struct spgo_bb_func *bf = p->bf;
	size_t nb = bf->nblocks;
	long *node = xcalloc(nb, sizeof *node); /* block index -> node, -1 cold */
	uint8_t *hot = xcalloc(nb, 1);
	const uint64_t *k;
	uint64_t *v;
	for (size_t i = 0; i < nb; i++)
		hot[i] = p->count[i] > 0;
	for (size_t it = 0; spgo_kmap_next(&p->edges, &it, &k, &v);)
		if (*v)
			hot[k[0]] = hot[k[1]] = 1;
	/* node 0: the entry block (the one at the function's address) */
	uint32_t entry = 0;
	for (size_t i = 0; i < nb; i++)
		if (bf->blocks[i].addr == bf->addr) {
			entry = (uint32_t)i;
			break;
		}
	hot[entry] = 1;
	size_t n = 0;
	VEC(uint32_t) block_of = {0};
	node[entry] = (long)n++;
	VEC_PUSH(&block_of, entry);
	for (size_t s = 0; s < nb; s++) { /* in address order: the original layout */
		uint32_t i = p->sorted[s];
		node[i] = -1;
		if (i == entry)
			node[i] = 0;
		else if (hot[i]) {
			node[i] = (long)n++;
			VEC_PUSH(&block_of, i);
		}
	}
	uint64_t *size = xcalloc(n, sizeof *size), *count = xcalloc(n, sizeof *count);
	for (size_t i = 0; i < n; i++)
		size[i] = bf->blocks[block_of.v[i]].size, count[i] = p->count[block_of.v[i]];
	VEC(struct lay_xt_jump) jumps = {0};
	uint64_t *rows = spgo_kmap_sorted(&p->edges); /* (a stable order) */
	for (size_t i = 0; i < p->edges.n; i++) {
		const uint64_t *r = &rows[3 * i];
		if (r[2] && node[r[0]] >= 0 && node[r[1]] >= 0 && r[0] != r[1])
			VEC_PUSH(&jumps, ((struct lay_xt_jump){node[r[0]], node[r[1]], r[2]}));
	}
	free(rows);
	struct lay_xt_graph g = {.n = n, .size = size, .count = count, .jumps = jumps.v, .njumps = jumps.n};
	long *order = xcalloc(n, sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = (long)i; /* the original order of the hot blocks */
	*before += lay_exttsp_score(&g, order);
	lay_exttsp(&g, order);
	*after += lay_exttsp_score(&g, order);
	fputs("c", fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, " %" PRIu32, bf->blocks[block_of.v[order[i]]].id);
	fputc('\n', fp);
	free(order), free(size), free(count), free(node), free(hot);
	VEC_FREE(&jumps);
	VEC_FREE(&block_of);
}

/* The compile unit name of f for an `m` line, as clang compares it (a
 * leading "./" dropped), or NULL when there is none or it has a blank. */
static const char *module_of(struct lay *L, size_t f)
{
	const char *m = spgo_binary_cu_name(L->bin, L->fns.v[f].start);
	while (m && m[0] == '.' && m[1] == '/')
		for (m += 2; *m == '/'; m++)
			;
	return m && *m && !strpbrk(m, " \t") ? m : NULL;
}

/* Whether f can have a profile, and with which `m` line (*module, NULL
 * for none): a name no other function of the binary carries needs none;
 * a shared one needs its unit's name, different from those of the other
 * functions of that name (clang matches `f NAME` in every module). */
static int profile_name(struct lay *L, size_t f, const char **module)
{
	const char *name = L->fns.v[f].symbol;
	*module = NULL;
	for (size_t i = 0; i < L->fns.n; i++) {
		if (i == f || !L->fns.v[i].symbol || strcmp(L->fns.v[i].symbol, name))
			continue;
		if (!*module && !(*module = module_of(L, f)))
			return 0;
		const char *other = module_of(L, i);
		if (other && !strcmp(other, *module))
			return 0;
	}
	return 1;
}

int lay_write_propeller(struct lay *L, FILE *fp, FILE *ld)
{
	struct prop P = {.L = L};
	P.pf = xcalloc(L->fns.n + 1, sizeof *P.pf);
	count_blocks(&P);
	size_t nfuncs = 0, shared = 0;
	double before = 0, after = 0;
	fputs("v1\n", fp);
	for (size_t f = 0; f < L->fns.n; f++) {
		struct pfunc *p = P.pf[f];
		if (!p || !p->total)
			continue;
		const char *module;
		if (!profile_name(L, f, &module)) {
			spgo_info("%s: %s: more than one function of this name, and no compile unit name "
				  "that tells them apart; left out of the cluster profile",
				  L->job->binary, L->fns.v[f].symbol);
			shared++;
			continue;
		}
		if (module)
			fprintf(fp, "m %s\n", module);
		fprintf(fp, "f %s\n", L->fns.v[f].symbol);
		write_cluster(p, fp, &before, &after);
		nfuncs++;
	}
	int rc = 0;
	if (!nfuncs)
		rc = spgo_error("%s: no LBR samples in the functions of the basic-block address map of %s",
				L->job->perf_data, L->job->binary);
	if (rc == 0)
		rc = lay_write_order(L, ld, 0);
	if (rc == 0 && L->job->report)
		fprintf(L->job->report, "spgo: gen: %s: %zu functions laid out (%zu left out: names not told apart); "
					"ext-TSP score %.0f -> %.0f\n", L->out, nfuncs, shared, before, after);
	for (size_t f = 0; f < L->fns.n; f++)
		if (P.pf[f]) {
			spgo_kmap_free(&P.pf[f]->edges);
			free(P.pf[f]->sorted), free(P.pf[f]->count), free(P.pf[f]);
		}
	free(P.pf);
	return rc;
}
