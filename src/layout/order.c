/*
 * order.c: a function order for the linker by call-chain clustering (C3:
 * Ottoni and Maher, "Optimizing Function Placement for Large-Scale
 * Data-Center Applications", CGO 2017; the function order HFSort, BOLT's
 * hfsort+ and Propeller build on).
 *
 * Weights.  LBR: a call edge caller -> callee counts the taken branches
 * from a call instruction (or a jump, a tail call) of one function to the
 * start of another; a function's weight is the number of fall-through
 * ranges that ran in it plus the branches into it (how often control was
 * there).  IP samples: a function's weight is its samples, and there are no
 * edges (the order is then by density alone).
 *
 * C3.  Every sampled function starts as a cluster of its own.  Taking the
 * functions from the heaviest down, each one's cluster is appended to the
 * cluster of its heaviest caller, unless they are already one or the
 * merged cluster would exceed C3_MAX_CLUSTER bytes (a page: the point is
 * that a caller and its hot callees share pages and i-TLB entries).  The
 * clusters are then laid out by density (weight per byte), densest first;
 * functions without samples are left to the linker, after these.
 *
 * Outputs: one symbol a line (lld and gold --symbol-ordering-file; lld
 * needs -ffunction-sections objects to move functions), or a GNU ld script
 * fragment for `-Wl,-T,FILE` with -ffunction-sections objects: an output
 * section that collects .text.NAME (and gcc's .text.hot.NAME,
 * .text.unlikely.NAME, .text.startup.NAME) in this order, INSERTed before
 * .text so the default script still applies (binutils before 2.43 has no
 * section ordering file).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_impl.h"

#define C3_MAX_CLUSTER 4096

struct c3 {
	size_t n;          /* functions */
	uint64_t *weight;  /* per function */
	uint64_t *size;
	long *cluster;     /* function -> its cluster (the id of its first function) */
	long *next;        /* function -> the next function of its cluster, -1 */
	long *tail;        /* cluster id -> its last function */
	uint64_t *cweight, *csize; /* per cluster id */
	long *best_caller; /* function -> heaviest caller, -1 */
	uint64_t *best_count;
};

static void c3_weights(struct lay *L, struct c3 *C)
{
	const uint64_t *k;
	uint64_t *v;
	if (!L->lbr_mode) {
		if (L->ip_event < 0)
			return;
		for (size_t it = 0; spgo_kmap_next(&L->agg->events.v[(size_t)L->ip_event].ips, &it, &k, &v);) {
			long f = lay_func_at(L, k[0]);
			if (f >= 0)
				C->weight[f] += *v;
		}
		return;
	}
	for (size_t it = 0; spgo_kmap_next(&L->lbr.traces, &it, &k, &v);) {
		long f = lay_func_at(L, k[0]);
		if (f >= 0)
			C->weight[f] += *v;
	}
	for (size_t it = 0; spgo_kmap_next(&L->lbr.taken, &it, &k, &v);) {
		long ft = k[1] == SPGO_AGG_EXTERNAL ? -1 : lay_func_at(L, k[1]);
		if (ft < 0)
			continue;
		C->weight[ft] += *v;
	}
}

/* The heaviest caller of each function, from the call edges summed per
 * (caller, callee). */
static void c3_callers(struct lay *L, struct c3 *C)
{
	struct spgo_kmap edges; /* {caller, callee} -> calls */
	spgo_kmap_init(&edges, 2);
	const uint64_t *k;
	uint64_t *v;
	for (size_t it = 0; spgo_kmap_next(&L->lbr.taken, &it, &k, &v);) {
		if (k[0] == SPGO_AGG_EXTERNAL || k[1] == SPGO_AGG_EXTERNAL)
			continue;
		long ff = lay_func_at(L, k[0]), ft = lay_func_at(L, k[1]);
		if (ff < 0 || ft < 0 || ff == ft || L->fns.v[ft].plt || L->fns.v[ff].plt ||
		    k[1] != L->fns.v[ft].start)
			continue;
		const struct spgo_insn *in = spgo_binary_insn_at(L->bin, k[0]);
		if (!in || (in->cls != SPGO_INSN_CALL && in->cls != SPGO_INSN_INDIRECT_CALL &&
			    in->cls != SPGO_INSN_JUMP && in->cls != SPGO_INSN_INDIRECT_JUMP))
			continue;
		uint64_t key[2] = {(uint64_t)ff, (uint64_t)ft};
		*spgo_kmap_upsert(&edges, key) += *v;
	}
	uint64_t *rows = spgo_kmap_sorted(&edges); /* sorted: ties go to the first caller */
	for (size_t i = 0; i < edges.n; i++) {
		const uint64_t *r = &rows[3 * i];
		if (r[2] > C->best_count[r[1]])
			C->best_count[r[1]] = r[2], C->best_caller[r[1]] = (long)r[0];
	}
	free(rows);
	spgo_kmap_free(&edges);
}

static const struct c3 *sort_ctx;

static int by_weight(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	uint64_t wx = sort_ctx->weight[x], wy = sort_ctx->weight[y];
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Denser first: cweight/csize compared as cross products (no rounding). */
static int by_density(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	unsigned __int128 dx = (unsigned __int128)sort_ctx->cweight[x] * sort_ctx->csize[y];
	unsigned __int128 dy = (unsigned __int128)sort_ctx->cweight[y] * sort_ctx->csize[x];
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void put_symbol(FILE *fp, const char *name, int ld_script)
{
	if (!ld_script) {
		fprintf(fp, "%s\n", name);
		return;
	}
	fprintf(fp, "    *(.text.%s .text.hot.%s .text.unlikely.%s .text.startup.%s)\n", name, name, name, name);
}

int lay_write_order(struct lay *L, FILE *fp, int ld_script)
{
	size_t n = L->fns.n;
	struct c3 C = {.n = n};
	C.weight = xcalloc(n + 1, sizeof *C.weight);
	C.size = xcalloc(n + 1, sizeof *C.size);
	C.cluster = xcalloc(n + 1, sizeof *C.cluster);
	C.next = xcalloc(n + 1, sizeof *C.next);
	C.tail = xcalloc(n + 1, sizeof *C.tail);
	C.cweight = xcalloc(n + 1, sizeof *C.cweight);
	C.csize = xcalloc(n + 1, sizeof *C.csize);
	C.best_caller = xcalloc(n + 1, sizeof *C.best_caller);
	C.best_count = xcalloc(n + 1, sizeof *C.best_count);
	c3_weights(L, &C);
	for (size_t i = 0; i < n; i++) {
		C.size[i] = L->fns.v[i].end - L->fns.v[i].start;
		C.cluster[i] = (long)i, C.next[i] = -1, C.tail[i] = (long)i, C.best_caller[i] = -1;
		C.cweight[i] = C.weight[i], C.csize[i] = C.size[i] ? C.size[i] : 1;
	}
	if (L->lbr_mode)
		c3_callers(L, &C);
	long *order = xcalloc(n + 1, sizeof *order);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (C.weight[i] && !L->fns.v[i].plt)
			order[m++] = (long)i;
	sort_ctx = &C;
	qsort(order, m, sizeof *order, by_weight);
	for (size_t i = 0; i < m; i++) {
		long f = order[i], caller = C.best_caller[f];
		if (caller < 0 || !C.weight[caller])
			continue;
		long cf = C.cluster[f], cc = C.cluster[caller];
		if (cf == cc || C.csize[cc] + C.csize[cf] > C3_MAX_CLUSTER)
			continue;
		/* append f's cluster to its caller's */
		C.next[C.tail[cc]] = cf;
		C.tail[cc] = C.tail[cf];
		for (long g = cf; g >= 0; g = C.next[g])
			C.cluster[g] = cc;
		C.cweight[cc] += C.cweight[cf], C.csize[cc] += C.csize[cf];
	}
	/* the clusters (ids: their first function), densest first */
	size_t nc = 0;
	for (size_t i = 0; i < m; i++)
		if (C.cluster[order[i]] == order[i])
			order[nc++] = order[i];
	qsort(order, nc, sizeof *order, by_density);
	if (ld_script)
		fputs("/* Function order by spgo (call-chain clustering of sampled calls).\n"
		      "   GNU ld: objects built with -ffunction-sections, link with -Wl,-T,THIS_FILE\n"
		      "   (INSERT keeps the default linker script). */\n"
		      "SECTIONS\n{\n  .text.spgo_order :\n  {\n", fp);
	/* each name once: static functions of different files may share one
	 * (lld warns "duplicate ordered symbol"; it orders every symbol of the
	 * name at the first place anyway) */
	struct spgo_strtab printed;
	spgo_strtab_init(&printed);
	for (size_t c = 0; c < nc; c++)
		for (long g = order[c]; g >= 0; g = C.next[g]) {
			const char *name = L->fns.v[g].symbol;
			size_t before = printed.n;
			spgo_strtab_intern(&printed, name, strlen(name));
			if (printed.n > before)
				put_symbol(fp, name, ld_script);
		}
	spgo_strtab_free(&printed);
	if (ld_script)
		fputs("  }\n}\nINSERT BEFORE .text;\n", fp);
	free(order);
	free(C.weight), free(C.size), free(C.cluster), free(C.next), free(C.tail);
	free(C.cweight), free(C.csize), free(C.best_caller), free(C.best_count);
	return 0;
}
