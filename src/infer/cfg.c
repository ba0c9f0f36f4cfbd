/*
 * The CFG type: building, finalizing, flow validity, the L1 objective and
 * the overlap measures of the paper.  See spgo/infer.h.
 */
#include "infer/infer_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"

void spgo_cfg_init(struct spgo_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
}

void spgo_cfg_free(struct spgo_cfg *cfg)
{
	free(cfg->blocks);
	free(cfg->edges);
	free(cfg->succ);
	free(cfg->pred);
	free(cfg->name);
	memset(cfg, 0, sizeof *cfg);
}

uint32_t spgo_cfg_add_block(struct spgo_cfg *cfg, uint64_t addr, uint64_t size)
{
	if (cfg->nblocks == cfg->cap_blocks) {
		cfg->cap_blocks = cfg->cap_blocks ? 2 * cfg->cap_blocks : 16;
		cfg->blocks = xrealloc(cfg->blocks, cfg->cap_blocks * sizeof *cfg->blocks);
	}
	struct spgo_cfg_block *b = &cfg->blocks[cfg->nblocks];
	memset(b, 0, sizeof *b);
	b->addr = addr;
	b->size = size;
	b->weight = SPGO_WEIGHT_UNKNOWN;
	b->name = (uint32_t)cfg->nblocks;
	cfg->finalized = 0;
	return (uint32_t)cfg->nblocks++;
}

uint32_t spgo_cfg_add_edge(struct spgo_cfg *cfg, uint32_t src, uint32_t dst, enum spgo_edge_kind kind)
{
	if (cfg->nedges == cfg->cap_edges) {
		cfg->cap_edges = cfg->cap_edges ? 2 * cfg->cap_edges : 16;
		cfg->edges = xrealloc(cfg->edges, cfg->cap_edges * sizeof *cfg->edges);
	}
	struct spgo_cfg_edge *e = &cfg->edges[cfg->nedges];
	e->src = src;
	e->dst = dst;
	e->kind = kind;
	e->against_layout = 0;
	e->prob = -1;
	e->count = 0;
	cfg->finalized = 0;
	return (uint32_t)cfg->nedges++;
}

/* 1 if edge e leaves a two-way branch of a binary CFG (addresses known,
 * one successor falls through) on the side its layout predicts against:
 * the target of a forward branch, the fall-through of a backward one.
 * (succ must be filled.) */
static int against_layout(const struct spgo_cfg *cfg, uint32_t e)
{
	const struct spgo_cfg_edge *ed = &cfg->edges[e];
	const struct spgo_cfg_block *s = &cfg->blocks[ed->src];
	if (s->nout != 2 || s->size == 0)
		return 0;
	uint32_t e0 = cfg->succ[s->out], other = e0 == e ? cfg->succ[s->out + 1] : e0;
	uint64_t ft = s->addr + s->size;
	int e_ft = cfg->blocks[ed->dst].addr == ft, o_ft = cfg->blocks[cfg->edges[other].dst].addr == ft;
	if (e_ft == o_ft)
		return 0;
	uint32_t target = e_ft ? cfg->edges[other].dst : ed->dst;
	int backward = cfg->blocks[target].addr <= s->addr;
	return e_ft ? backward : !backward;
}

/* Counting sort of edge ids by src (succ) and by dst (pred); then each
 * edge's against_layout. */
int spgo_cfg_finalize(struct spgo_cfg *cfg)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	if (nb == 0)
		return spgo_error("%s: CFG has no blocks", cfg->name ? cfg->name : "cfg");
	if (cfg->entry >= nb)
		return spgo_error("%s: entry block %u out of range", cfg->name ? cfg->name : "cfg",
				  cfg->entry);
	for (size_t e = 0; e < ne; e++)
		if (cfg->edges[e].src >= nb || cfg->edges[e].dst >= nb)
			return spgo_error("%s: edge %zu names a missing block", cfg->name ? cfg->name : "cfg",
					  e);
	free(cfg->succ);
	free(cfg->pred);
	cfg->succ = xmalloc((ne + 1) * sizeof *cfg->succ);
	cfg->pred = xmalloc((ne + 1) * sizeof *cfg->pred);
	for (size_t b = 0; b < nb; b++)
		cfg->blocks[b].nout = cfg->blocks[b].nin = 0;
	for (size_t e = 0; e < ne; e++) {
		cfg->blocks[cfg->edges[e].src].nout++;
		cfg->blocks[cfg->edges[e].dst].nin++;
	}
	uint32_t o = 0, i = 0;
	for (size_t b = 0; b < nb; b++) {
		cfg->blocks[b].out = o;
		cfg->blocks[b].in = i;
		o += cfg->blocks[b].nout;
		i += cfg->blocks[b].nin;
		cfg->blocks[b].nout = cfg->blocks[b].nin = 0;
	}
	for (size_t e = 0; e < ne; e++) {
		struct spgo_cfg_block *s = &cfg->blocks[cfg->edges[e].src];
		struct spgo_cfg_block *d = &cfg->blocks[cfg->edges[e].dst];
		cfg->succ[s->out + s->nout++] = (uint32_t)e;
		cfg->pred[d->in + d->nin++] = (uint32_t)e;
	}
	for (size_t e = 0; e < ne; e++)
		cfg->edges[e].against_layout = (uint8_t)against_layout(cfg, (uint32_t)e);
	cfg->finalized = 1;
	return 0;
}

uint32_t spgo_cfg_block_at(const struct spgo_cfg *cfg, uint64_t addr)
{
	size_t lo = 0, hi = cfg->nblocks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cfg->blocks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return SPGO_NONE;
	const struct spgo_cfg_block *b = &cfg->blocks[lo - 1];
	return addr < b->addr + b->size ? (uint32_t)(lo - 1) : SPGO_NONE;
}

/* ---- validity ------------------------------------------------------------ */

int spgo_flow_check(const struct spgo_cfg *cfg, char *why, size_t why_len)
{
	size_t nb = cfg->nblocks;
	if (!cfg->finalized) {
		snprintf(why, why_len, "CFG not finalized");
		return -1;
	}
	for (size_t b = 0; b < nb; b++) {
		const struct spgo_cfg_block *bl = &cfg->blocks[b];
		uint64_t in = 0, out = 0;
		for (uint32_t k = 0; k < bl->nin; k++)
			in += cfg->edges[cfg->pred[bl->in + k]].count;
		for (uint32_t k = 0; k < bl->nout; k++)
			out += cfg->edges[cfg->succ[bl->out + k]].count;
		int ok_in = b == cfg->entry ? in <= bl->count : in == bl->count;
		int ok_out = spgo_cfg_is_exit(cfg, (uint32_t)b) ? out <= bl->count : out == bl->count;
		if (!ok_in || !ok_out) {
			snprintf(why, why_len, "block %zu: count %llu, in %llu, out %llu", b,
				 (unsigned long long)bl->count, (unsigned long long)in,
				 (unsigned long long)out);
			return -1;
		}
	}
	/* Connectivity: a search from the entry along positive edges, when
	 * flow enters there (a circulation through the entry that nothing
	 * enters is an island too: no call runs it). */
	uint8_t *seen = xcalloc(nb, 1);
	uint32_t *stack = xmalloc(nb * sizeof *stack);
	size_t sp = 0;
	const struct spgo_cfg_block *eb = &cfg->blocks[cfg->entry];
	uint64_t entry_in = 0;
	for (uint32_t k = 0; k < eb->nin; k++)
		entry_in += cfg->edges[cfg->pred[eb->in + k]].count;
	if (eb->count > entry_in) {
		seen[cfg->entry] = 1;
		stack[sp++] = cfg->entry;
	}
	while (sp) {
		const struct spgo_cfg_block *bl = &cfg->blocks[stack[--sp]];
		for (uint32_t k = 0; k < bl->nout; k++) {
			const struct spgo_cfg_edge *e = &cfg->edges[cfg->succ[bl->out + k]];
			if (e->count > 0 && !seen[e->dst]) {
				seen[e->dst] = 1;
				stack[sp++] = e->dst;
			}
		}
	}
	int rc = 0;
	for (size_t b = 0; b < nb; b++)
		if (cfg->blocks[b].count > 0 && !seen[b]) {
			snprintf(why, why_len, "block %zu: count %llu but not reachable from the entry%s", b,
				 (unsigned long long)cfg->blocks[b].count,
				 eb->count > entry_in ? "" : " (nothing enters the function)");
			rc = -1;
			break;
		}
	free(seen);
	free(stack);
	return rc;
}

double spgo_flow_cost_l1(const struct spgo_cfg *cfg, const struct spgo_infer_opts *o)
{
	double c = 0;
	for (size_t b = 0; b < cfg->nblocks; b++)
		c += block_cost_at(cfg, o, (uint32_t)b, cfg->blocks[b].count);
	for (size_t e = 0; e < cfg->nedges && o->k_layout; e++)
		if (edge_against_layout(cfg, (uint32_t)e))
			c += (double)o->k_layout * (double)cfg->edges[e].count;
	return c;
}

/* ---- overlap ------------------------------------------------------------- */

double spgo_flow_overlap_vec(const uint64_t *f, const uint64_t *gt, size_t n)
{
	double sf = 0, sg = 0;
	for (size_t i = 0; i < n; i++) {
		sf += (double)f[i];
		sg += (double)gt[i];
	}
	if (sf == 0 || sg == 0)
		return sf == sg ? 1.0 : 0.0;
	double o = 0;
	for (size_t i = 0; i < n; i++)
		o += fmin((double)f[i] / sf, (double)gt[i] / sg);
	return o;
}

double spgo_flow_coverage_vec(const uint64_t *f, const uint64_t *gt, size_t n)
{
	size_t pos = 0, hit = 0;
	for (size_t i = 0; i < n; i++)
		if (gt[i] > 0) {
			pos++;
			hit += f[i] > 0;
		}
	return pos ? (double)hit / (double)pos : 1.0;
}

void spgo_flow_overlap(const struct spgo_cfg *cfg, const uint64_t *gt_block, const uint64_t *gt_edge,
		  struct spgo_flow_overlap *out)
{
	size_t nb = cfg->nblocks, ne = cfg->nedges;
	uint64_t *f = xmalloc((nb > ne ? nb : ne) * sizeof *f + 1);
	for (size_t b = 0; b < nb; b++)
		f[b] = cfg->blocks[b].count;
	out->vertex = spgo_flow_overlap_vec(f, gt_block, nb);
	out->coverage = spgo_flow_coverage_vec(f, gt_block, nb);
	for (size_t e = 0; e < ne; e++)
		f[e] = cfg->edges[e].count;
	out->edge = gt_edge ? spgo_flow_overlap_vec(f, gt_edge, ne) : 0;
	free(f);
}
