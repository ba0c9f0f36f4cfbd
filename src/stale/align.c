/*
 * Aligning the locations of one function between two builds (stale_impl.h),
 * for spgo carry.
 *
 * stale_lcs(): a weighted longest common subsequence of two location lists
 * (line builds: call anchors and instruction rows; probe builds: the call
 * anchors alone).
 *
 * stale_align_probes(): the matching of clang's -salvage-stale-profile
 * (LLVM's SampleProfileMatcher, for a function whose CFG checksum
 * changed), with OLD's probes in the place of the profile's:
 *  - anchors are call sites: a call probe with its callee (an indirect
 *    call: "some callee", which pairs with any other indirect call) or an
 *    inline site with its inlinee; OLD's and NEW's anchors, in probe id
 *    order, are paired by a longest common subsequence on the callees;
 *  - every other NEW probe (a block, or an anchor left unpaired) takes the
 *    OLD probe at its own id plus a delta: the delta (OLD id - NEW id) of
 *    the paired anchor before it (0 before the first), except for the
 *    second half of a run of such probes between two paired anchors,
 *    which take the delta of the anchor after them.
 * clang 19 numbers a function's probes in block order, each block's call
 * probes right after its block probe, so a block inserted between two
 * calls shifts the ids after it, and the delta of the nearer call puts
 * them back.  Clang reads the profile this way in NEW's compilation (a
 * NEW probe pulls the OLD one); spgo carry does the same ahead of time and
 * writes each NEW probe's samples at its id, under NEW's checksum.
 */
#include <stdlib.h>

#include "stale/stale_impl.h"

#define ANCHOR_WEIGHT 4

/* The weight of pairing a with b: anchors with the same callees, or rows
 * without sites with the same instructions; 0: no pair. */
static unsigned pair_weight(const struct loc_row *a, const struct loc_row *b, int anchors_only)
{
	if (a->anchor || b->anchor)
		return a->anchor == b->anchor ? ANCHOR_WEIGHT : 0;
	return !anchors_only && a->sig && a->sig == b->sig && (uint32_t)a->loc == (uint32_t)b->loc ? 1 : 0;
}

/* Weighted LCS of o[0..n) and w[0..m): the pairs, in order.  Of equal
 * alignments the one pairing the latest locations is taken: code is
 * mostly inserted, and the old code after the insertion point is then
 * paired with itself rather than with a look-alike inserted before it. */
void stale_lcs(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, int anchors_only,
	       struct fn_map *fm)
{
	size_t cols = m + 1;
	uint32_t *s = xcalloc((n + 1) * cols, sizeof *s); /* s[i][j]: best of o[..i), w[..j) */
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			uint32_t best = s[(i - 1) * cols + j] > s[i * cols + j - 1] ? s[(i - 1) * cols + j]
										: s[i * cols + j - 1];
			unsigned wt = pair_weight(&o[i - 1], &w[j - 1], anchors_only);
			if (wt && s[(i - 1) * cols + j - 1] + wt > best)
				best = s[(i - 1) * cols + j - 1] + wt;
			s[i * cols + j] = best;
		}
	size_t first = fm->pairs.n;
	for (size_t i = n, j = m; i > 0 && j > 0;) {
		unsigned wt = pair_weight(&o[i - 1], &w[j - 1], anchors_only);
		if (wt && s[i * cols + j] == s[(i - 1) * cols + j - 1] + wt) {
			struct loc_pair pr = {o[i - 1].loc, w[j - 1].loc, o[i - 1].anchor ? HOW_ANCHOR : HOW_ROW};
			if (pr.from == pr.to)
				pr.how = HOW_SAME;
			VEC_PUSH(&fm->pairs, pr);
			i--, j--;
		} else if (s[(i - 1) * cols + j] >= s[i * cols + j - 1]) {
			i--;
		} else {
			j--;
		}
	}
	for (size_t a = first, b = fm->pairs.n; a + 1 < b; a++, b--) { /* into OLD line order */
		struct loc_pair t = fm->pairs.v[a];
		fm->pairs.v[a] = fm->pairs.v[b - 1];
		fm->pairs.v[b - 1] = t;
	}
	free(s);
}

static int cmp_pair(const void *pa, const void *pb)
{
	const struct loc_pair *a = pa, *b = pb;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* NEW location loc moved by delta (OLD id - NEW id), its discriminator kept;
 * 0 when the id would leave the probe range. */
static uint64_t shifted(uint64_t loc, int64_t delta)
{
	int64_t id = (int64_t)(loc >> 32) + delta;
	if (id <= 0 || id > (int64_t)UINT32_MAX)
		return 0;
	return stale_loc((uint32_t)id, (uint32_t)loc);
}

/* The longest common subsequence of anchors o[0..n) and w[0..m) (equal
 * callees).  Of equal ones, the one found by walking both in id order
 * (the lower id skipped first when skipping either loses nothing), so a
 * callee called three times in OLD and once in NEW pairs with the call
 * nearest in id, not with the last (LLVM's greedy diff takes the first).
 * The pairs appended to fm in order. */
static void lcs_earliest(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, struct fn_map *fm)
{
	size_t cols = m + 1;
	uint32_t *s = xcalloc((n + 1) * cols, sizeof *s); /* s[i][j]: best of o[i..), w[j..) */
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;) {
			uint32_t best = s[(i + 1) * cols + j] > s[i * cols + j + 1] ? s[(i + 1) * cols + j]
										: s[i * cols + j + 1];
			if (o[i].anchor == w[j].anchor && s[(i + 1) * cols + j + 1] + 1 > best)
				best = s[(i + 1) * cols + j + 1] + 1;
			s[i * cols + j] = best;
		}
	for (size_t i = 0, j = 0; i < n && j < m;) {
		if (o[i].anchor == w[j].anchor && s[i * cols + j] == s[(i + 1) * cols + j + 1] + 1) {
			struct loc_pair pr = {o[i].loc, w[j].loc, o[i].loc == w[j].loc ? HOW_SAME : HOW_ANCHOR};
			VEC_PUSH(&fm->pairs, pr);
			i++, j++;
		} else {
			/* skip what loses nothing; of two, the one of the lower id
			 * (a merge of the two id sequences: small deltas) */
			uint32_t skip_o = s[(i + 1) * cols + j], skip_w = s[i * cols + j + 1];
			if (skip_o > skip_w || (skip_o == skip_w && o[i].loc <= w[j].loc))
				i++;
			else
				j++;
		}
	}
	free(s);
}

void stale_align_probes(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, struct fn_map *fm)
{
	VEC(struct loc_row) oa = {0}, wa = {0};
	for (size_t i = 0; i < n; i++)
		if (o[i].anchor)
			VEC_PUSH(&oa, o[i]);
	for (size_t j = 0; j < m; j++)
		if (w[j].anchor)
			VEC_PUSH(&wa, w[j]);
	struct fn_map anchors = {0};
	if (oa.n && wa.n && (uint64_t)oa.n * wa.n <= STALE_MAX_LCS_CELLS)
		lcs_earliest(oa.v, oa.n, wa.v, wa.n, &anchors);
	VEC_FREE(&oa);
	VEC_FREE(&wa);
	/* the pairs are in OLD order, hence in NEW order too */
	uint64_t *src = xcalloc(m ? m : 1, sizeof *src);
	int *how = xcalloc(m ? m : 1, sizeof *how);
	int64_t delta = 0;
	size_t k = 0, run = 0; /* run: first NEW probe after the last paired anchor */
	for (size_t j = 0; j < m; j++) {
		if (k < anchors.pairs.n && anchors.pairs.v[k].to == w[j].loc) {
			const struct loc_pair *a = &anchors.pairs.v[k++];
			src[j] = a->from;
			how[j] = a->from == a->to ? HOW_SAME : HOW_ANCHOR;
			delta = (int64_t)(a->from >> 32) - (int64_t)(a->to >> 32);
			/* the second half of the run since the last anchor: this one's delta */
			for (size_t i = run + (j - run + 1) / 2; i < j; i++) {
				src[i] = shifted(w[i].loc, delta);
				how[i] = src[i] == w[i].loc ? HOW_SAME : HOW_SHIFT;
			}
			run = j + 1;
			continue;
		}
		src[j] = shifted(w[j].loc, delta);
		how[j] = src[j] == w[j].loc ? HOW_SAME : HOW_SHIFT;
	}
	for (size_t j = 0; j < m; j++)
		if (src[j]) {
			struct loc_pair p = {src[j], w[j].loc, how[j]};
			VEC_PUSH(&fm->pairs, p);
		}
	spgo_sort(fm->pairs.v, fm->pairs.n, sizeof *fm->pairs.v, cmp_pair);
	free(src);
	free(how);
	VEC_FREE(&anchors.pairs);
}
