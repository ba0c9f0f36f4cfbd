/*
 * Aligning the locations of one function between two builds (stale_impl.h),
 * for spgo carry.
 *
 * stale_lcs(): a weighted longest common subsequence of two location lists
 * (line builds: call anchors and instruction rows).
 *
 * stale_align_blocks(): the probes of a function whose CFG checksum
 * changed, the stale matching of BOLT (Ayupov, Panchenko, Pupyrev, CC
 * 2024) with probes in the place of BOLT's blocks, and clang's rule
 * (LLVM 19's SampleProfileMatcher) for what it leaves.  A NEW probe takes
 * the samples of the OLD probe found for it:
 *  1. keys, aligned as a patience diff: the call anchors (a call probe with
 *     its callee, an indirect call "some callee"; an inline site with its
 *     inlinee) and the block probes whose block hash (blocks.c: the
 *     block's opcodes and its successors') is unique in the function on
 *     both sides, paired by a longest common subsequence (of equal ones,
 *     the one of small deltas); then each gap between two pairs the same
 *     way, with the hashes unique in the gap; a small gap with none, on
 *     all its hashes;
 *  2. blocks moved out of that order: a block hash unique in the function,
 *     then a block's own code unique among the probes left, on both
 *     sides; a probe next to such a pair with the one next to its partner.
 *     Such a pair must be anchored by its neighbours (neighbours_agree():
 *     its id delta that of the pairs around it, or the probes next to it
 *     paired with each other or of the same code); when it is not, a
 *     look-alike of the same code left unpaired where the pairs around
 *     say, whose neighbours agree, is taken instead, and a pair by the
 *     code alone more than 64 ids off them is not made.  The look-alike
 *     copies of a macro (pcre2's RMATCH) have the same code and differ by
 *     their successors only: on pcre2grep 10.42 -> 10.46 a unique block
 *     hash paired match()'s backtracking loop with a cold copy 70 ids
 *     away, and the delta rule around it sent 3.7% of the fresh samples
 *     to probes carried at zero (1.0% with the rule);
 *  3. in order by code: between two pairs of 1 (in order) whose deltas
 *     differ (code inserted or removed between them), the block probes
 *     left on both sides, in id order, paired by a weighted longest
 *     common subsequence of their code (the same block hash 2, the same
 *     code 1): a row of look-alike blocks no hash tells apart (the cases
 *     of an interpreter's switch), blocks inserted in it.  A guess
 *     (HOW_GAP: not counted placed by code), but a better one than a
 *     delta: on pcre2grep 10.42 -> 10.46 the delta rule sent 561k of
 *     match()'s fresh samples to a wrong OLD probe (by the builds' source
 *     lines), the two rules together 116k;
 *  4. a NEW probe in one block of NEW (one straight run of code) with a
 *     paired block probe takes that one's OLD probe: a profile of NEW
 *     gives every probe of a block the same count;
 *  5. every other NEW block probe, clang's rule: the OLD probe at its id
 *     plus the delta (OLD id - NEW id) of the nearer pair around it (a
 *     pair 0 -> 0 before the first); where OLD has no code at that id (a
 *     block merged into another: clang 19 numbers a function's probes in
 *     block order), the OLD block probe before it, within the gap.
 *     Where a pair of 3 is the nearer one and gives no OLD probe, the
 *     nearer pair of the other rules does (what this rule gave without
 *     3).  A call probe left takes what a block probe of its block took.
 * An OLD probe no NEW one takes, in a block of OLD one of whose probes is
 * taken, is a shadow: its samples are that one's (counted carried, not
 * written).
 */
#include <stdlib.h>
#include <string.h>

#include "stale/stale_impl.h"

#define ANCHOR_WEIGHT 4

/* The weight of pairing a with b: anchors with the same callees, or, in
 * mode LCS_ROWS, rows without sites with the same instructions; 0: no
 * pair. */
static unsigned pair_weight(const struct loc_row *a, const struct loc_row *b, int mode)
{
	if (a->anchor || b->anchor)
		return a->anchor == b->anchor ? ANCHOR_WEIGHT : 0;
	return mode == LCS_ROWS && a->sig && a->sig == b->sig && (uint32_t)a->loc == (uint32_t)b->loc ? 1 : 0;
}

/* Weighted LCS of o[0..n) and w[0..m): the pairs, in order.  Of equal
 * alignments the one pairing the latest locations is taken: code is
 * mostly inserted, and the old code after the insertion point is then
 * paired with itself rather than with a look-alike inserted before it. */
void stale_lcs(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, int mode, struct fn_map *fm)
{
	size_t cols = m + 1;
	uint32_t *s = xcalloc((n + 1) * cols, sizeof *s); /* s[i][j]: best of o[..i), w[..j) */
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			uint32_t best = s[(i - 1) * cols + j] > s[i * cols + j - 1] ? s[(i - 1) * cols + j]
										: s[i * cols + j - 1];
			unsigned wt = pair_weight(&o[i - 1], &w[j - 1], mode);
			if (wt && s[(i - 1) * cols + j - 1] + wt > best)
				best = s[(i - 1) * cols + j - 1] + wt;
			s[i * cols + j] = best;
		}
	size_t first = fm->pairs.n;
	for (size_t i = n, j = m; i > 0 && j > 0;) {
		unsigned wt = pair_weight(&o[i - 1], &w[j - 1], mode);
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

/* The longest common subsequence of o[0..n) and w[0..m), weighted by
 * pair_weight() in mode (LCS_ANCHORS: equal callees).  Of equal ones, the
 * one found by walking both in id order (the lower id skipped first when
 * skipping either loses nothing), so a callee called three times in OLD
 * and once in NEW pairs with the call nearest in id, not with the last
 * (LLVM's greedy diff takes the first).  The pairs appended to fm in
 * order. */
static void lcs_earliest(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, int mode,
			 struct fn_map *fm)
{
	size_t cols = m + 1;
	uint32_t *s = xcalloc((n + 1) * cols, sizeof *s); /* s[i][j]: best of o[i..), w[j..) */
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;) {
			uint32_t best = s[(i + 1) * cols + j] > s[i * cols + j + 1] ? s[(i + 1) * cols + j]
										: s[i * cols + j + 1];
			unsigned wt = pair_weight(&o[i], &w[j], mode);
			if (wt && s[(i + 1) * cols + j + 1] + wt > best)
				best = s[(i + 1) * cols + j + 1] + wt;
			s[i * cols + j] = best;
		}
	for (size_t i = 0, j = 0; i < n && j < m;) {
		unsigned wt = pair_weight(&o[i], &w[j], mode);
		if (wt && s[i * cols + j] == s[(i + 1) * cols + j + 1] + wt) {
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

/* The index of the first row at or after loc in r[lo..hi) (hi: none). */
static size_t find_row(const struct loc_row *r, size_t lo, size_t hi, uint64_t loc)
{
	size_t k;
	SPGO_LOWER_BOUND(k, r + lo, hi - lo, loc, loc);
	return lo + k;
}

#define MAX_GAP_DEPTH 16
/* A gap with no unique hash is aligned on all its hashes when it has at
 * most this many cells: in a larger one, look-alike blocks pair at random. */
#define SMALL_GAP_CELLS 1024

/* The state of a block alignment: the row each row is paired with
 * (SIZE_MAX: none). */
struct balign {
	const struct loc_row *o, *w;
	size_t n, m;
	size_t *ow, *wo;
	int *how; /* of w's pairs */
	char *moved; /* o's rows paired by pair_moved() */
};

/* Pair the rows of the gap o[i0..i1), w[j0..j1) (patience diff): the keys
 * of the gap, call anchors (top level only) and block hashes unique in
 * the gap on both sides, aligned by lcs_earliest(); then the gaps between
 * those pairs, the same way. */
static void match_gap(struct balign *a, size_t i0, size_t i1, size_t j0, size_t j1, int depth)
{
	if (i0 >= i1 || j0 >= j1 || depth > MAX_GAP_DEPTH)
		return;
	int all = depth < 0; /* (every hash a key: a small gap of no unique one) */
	struct spgo_kmap cnt; /* hash -> its OLD rows | its NEW rows << 32 */
	spgo_kmap_init(&cnt, 1);
	for (size_t i = i0; i < i1; i++)
		if (!a->o[i].anchor && (a->o[i].sig & 1))
			*spgo_kmap_upsert(&cnt, &a->o[i].sig) += 1;
	for (size_t j = j0; j < j1; j++)
		if (!a->w[j].anchor && (a->w[j].sig & 1))
			*spgo_kmap_upsert(&cnt, &a->w[j].sig) += 1ull << 32;
	VEC(struct loc_row) ok = {0}, wk = {0}; /* the keys: anchor = the key */
	for (int side = 0; side < 2; side++) {
		const struct loc_row *r = side ? a->w : a->o;
		for (size_t x = side ? j0 : i0; x < (side ? j1 : i1); x++) {
			struct loc_row k = r[x];
			if (k.anchor) {
				if (depth)
					continue; /* (left unpaired at the top) */
			} else {
				const uint64_t *v = (k.sig & 1) ? spgo_kmap_find(&cnt, &k.sig) : NULL;
				if (!v || (!all && *v != (1ull | 1ull << 32)))
					continue;
				k.anchor = spgo_hash64(k.sig) | 1;
			}
			if (side)
				VEC_PUSH(&wk, k);
			else
				VEC_PUSH(&ok, k);
		}
	}
	spgo_kmap_free(&cnt);
	struct fn_map pm = {0};
	if (ok.n && wk.n && (uint64_t)ok.n * wk.n <= STALE_MAX_LCS_CELLS)
		lcs_earliest(ok.v, ok.n, wk.v, wk.n, LCS_ANCHORS, &pm);
	VEC_FREE(&ok);
	VEC_FREE(&wk);
	size_t pi = i0, pj = j0; /* the gap after the last pair */
	for (size_t k = 0; k < pm.pairs.n; k++) {
		size_t i = find_row(a->o, i0, i1, pm.pairs.v[k].from), j = find_row(a->w, j0, j1, pm.pairs.v[k].to);
		a->ow[i] = j;
		a->wo[j] = i;
		a->how[j] = a->o[i].anchor ? HOW_ANCHOR : HOW_HASH;
		if (a->o[i].loc == a->w[j].loc)
			a->how[j] = HOW_SAME;
		if (!all)
			match_gap(a, pi, i, pj, j, depth + 1);
		pi = i + 1;
		pj = j + 1;
	}
	if (pm.pairs.n && !all)
		match_gap(a, pi, i1, pj, j1, depth + 1);
	else if (!all && (uint64_t)(i1 - i0) * (j1 - j0) <= SMALL_GAP_CELLS)
		match_gap(a, i0, i1, j0, j1, -1);
	VEC_FREE(&pm.pairs);
}

/* The OLD row a NEW block probe w[j] left unpaired takes: the one at its
 * id plus the delta of the nearer pair around it (by id; a virtual pair
 * 0 -> 0 before the first), as clang's rule; an OLD probe with no code
 * (its block merged into another) stands for the OLD block probe before
 * it, down to the pair before.  prev, next: the NEW rows of those pairs
 * (SIZE_MAX: none).  SIZE_MAX: none. */
static size_t pull(const struct balign *a, size_t j, size_t prev, size_t next)
{
	int64_t y = (int64_t)(a->w[j].loc >> 32), d = 0, py = 0, lo_id = 0;
	if (prev != SIZE_MAX) {
		py = (int64_t)(a->w[prev].loc >> 32);
		lo_id = (int64_t)(a->o[a->wo[prev]].loc >> 32);
		d = lo_id - py;
	}
	if (next != SIZE_MAX) {
		int64_t ny = (int64_t)(a->w[next].loc >> 32);
		if (ny - y < y - py)
			d = (int64_t)(a->o[a->wo[next]].loc >> 32) - ny;
	}
	if (y + d <= 0 || y + d > (int64_t)UINT32_MAX)
		return SIZE_MAX;
	uint64_t t = stale_loc((uint32_t)(y + d), (uint32_t)a->w[j].loc);
	size_t i = find_row(a->o, 0, a->n, t);
	if (i < a->n && a->o[i].loc == t)
		return a->o[i].anchor ? SIZE_MAX : i;
	/* no code of OLD there: the block probe before it */
	if (i == 0 || a->o[i - 1].anchor || (int64_t)(a->o[i - 1].loc >> 32) <= lo_id ||
	    (uint32_t)a->o[i - 1].loc != (uint32_t)t)
		return SIZE_MAX;
	return i - 1;
}

/* The signature of a row that pair_moved() compares: the block hash
 * (weak: the hash of its own code), 0: none. */
static uint64_t sig_of(const struct loc_row *r, int weak)
{
	if (r->anchor)
		return 0;
	return weak ? r->wsig : (r->sig & 1) ? r->sig : 0;
}

/* Neighbour agreement (anchoring a pair of pair_moved()): within this
 * many ids of what the pairs around it say, a pair is in place. */
#define AGREE_TOL 2
/* Pairs around whose deltas differ by at most this many ids span a range
 * of agreeing deltas; further apart, each stands for itself. */
#define AGREE_SPAN 64

/* The id delta (OLD - NEW) of the nearest paired NEW row before w[j]
 * (back) or after it; INT64_MIN: none. */
static int64_t near_delta(const struct balign *a, size_t j, int back)
{
	for (size_t k = j; back ? k-- > 0 : ++k < a->m;)
		if (a->wo[k] != SIZE_MAX)
			return (int64_t)(a->o[a->wo[k]].loc >> 32) - (int64_t)(a->w[k].loc >> 32);
	return INT64_MIN;
}

/* Does delta d (OLD id - NEW id) agree with the pairs around w[j] (p, q:
 * their deltas, from near_delta())? */
static int delta_agrees(int64_t d, int64_t p, int64_t q)
{
	if (p == INT64_MIN)
		p = q;
	if (q == INT64_MIN)
		q = p;
	if (p == INT64_MIN)
		return 0;
	int64_t lo = p < q ? p : q, hi = p < q ? q : p;
	if (hi - lo > AGREE_SPAN)
		return (d >= lo - AGREE_TOL && d <= lo + AGREE_TOL) || (d >= hi - AGREE_TOL && d <= hi + AGREE_TOL);
	return d >= lo - AGREE_TOL && d <= hi + AGREE_TOL;
}

/* Do the rows next to o[i] and w[j] in id order agree: paired with each
 * other, or of the same code (block probes: the code hash; call anchors:
 * the callees)? */
static int rows_agree(const struct balign *a, size_t i, size_t j)
{
	for (int s = -1; s <= 1; s += 2) {
		if ((s < 0 && (!i || !j)) || (s > 0 && (i + 1 >= a->n || j + 1 >= a->m)))
			continue;
		const struct loc_row *x = &a->o[i + s], *y = &a->w[j + s];
		if (a->ow[i + s] == j + s)
			return 1;
		if (x->anchor || y->anchor) {
			if (x->anchor == y->anchor)
				return 1;
		} else if (x->wsig && x->wsig == y->wsig && (uint32_t)x->loc == (uint32_t)y->loc) {
			return 1;
		}
	}
	return 0;
}

/* Is the pair o[i], w[j] anchored by its neighbours: its delta that of
 * the pairs around it (delta_agrees()), or its rows next to it agree
 * (rows_agree())? */
static int neighbours_agree(const struct balign *a, size_t i, size_t j)
{
	int64_t d = (int64_t)(a->o[i].loc >> 32) - (int64_t)(a->w[j].loc >> 32);
	return delta_agrees(d, near_delta(a, j, 1), near_delta(a, j, 0)) || rows_agree(a, i, j);
}

/* An OLD block probe left unpaired with w[j]'s code (code hash and
 * discriminator) whose delta agrees with the pairs around w[j]
 * (delta_agrees()) and whose rows next to it agree with w[j]'s
 * (rows_agree()), the one of the delta nearest theirs; SIZE_MAX: none.
 * A row that pair_moved() holds for a NEW probe of its own signature
 * (in `at`, signatures by sig_of(., weak)) is not a copy to take. */
static size_t agreeing_copy(const struct balign *a, size_t j, const struct spgo_kmap *at, int weak)
{
	int64_t p = near_delta(a, j, 1), q = near_delta(a, j, 0), y = (int64_t)(a->w[j].loc >> 32);
	if (!a->w[j].wsig || (p == INT64_MIN && q == INT64_MIN))
		return SIZE_MAX;
	int64_t lo = p == INT64_MIN ? q : q == INT64_MIN ? p : p < q ? p : q;
	int64_t hi = p == INT64_MIN ? q : q == INT64_MIN ? p : p < q ? q : p;
	int64_t from = y + lo - AGREE_TOL < 1 ? 1 : y + lo - AGREE_TOL;
	if (y + hi + AGREE_TOL < 1 || y + hi + AGREE_TOL > (int64_t)UINT32_MAX)
		return SIZE_MAX;
	size_t best = SIZE_MAX;
	int64_t best_off = INT64_MAX;
	for (size_t i = find_row(a->o, 0, a->n, stale_loc((uint32_t)from, 0));
	     i < a->n && (int64_t)(a->o[i].loc >> 32) <= y + hi + AGREE_TOL; i++) {
		const struct loc_row *x = &a->o[i];
		int64_t d = (int64_t)(x->loc >> 32) - y;
		if (a->ow[i] != SIZE_MAX || x->anchor || x->wsig != a->w[j].wsig ||
		    (uint32_t)x->loc != (uint32_t)a->w[j].loc || !delta_agrees(d, p, q) || !rows_agree(a, i, j))
			continue;
		uint64_t g = sig_of(x, weak);
		const uint64_t *held = g ? spgo_kmap_find(at, &g) : NULL;
		if (held && *held == i + 1)
			continue;
		int64_t off = d < lo ? lo - d : d > hi ? d - hi : 0;
		if (off < best_off)
			best = i, best_off = off;
	}
	return best;
}

/* Is the pair o[i], w[j] more than AGREE_SPAN ids off the deltas of the
 * pairs around w[j] (or are there none)? */
static int far_off(const struct balign *a, size_t i, size_t j)
{
	int64_t d = (int64_t)(a->o[i].loc >> 32) - (int64_t)(a->w[j].loc >> 32);
	int64_t p = near_delta(a, j, 1), q = near_delta(a, j, 0);
	for (int k = 0; k < 2; k++) {
		int64_t e = k ? q : p;
		if (e != INT64_MIN && d - e <= AGREE_SPAN && e - d <= AGREE_SPAN)
			return 0;
	}
	return 1;
}

/* Pair the block probes left unpaired whose signature is the only one of
 * its value on both sides (weak = 0: in the function; 1: the code of the
 * block alone, among the probes left unpaired): a block moved out of the
 * order of the others. */
static void pair_moved(struct balign *a, int weak)
{
	struct spgo_kmap cnt; /* signature -> its OLD rows | its NEW rows << 32 */
	spgo_kmap_init(&cnt, 1);
	for (size_t i = 0; i < a->n; i++) {
		uint64_t g = sig_of(&a->o[i], weak);
		if (g && (!weak || a->ow[i] == SIZE_MAX))
			*spgo_kmap_upsert(&cnt, &g) += 1;
	}
	for (size_t j = 0; j < a->m; j++) {
		uint64_t g = sig_of(&a->w[j], weak);
		if (g && (!weak || a->wo[j] == SIZE_MAX))
			*spgo_kmap_upsert(&cnt, &g) += 1ull << 32;
	}
	struct spgo_kmap at; /* signature -> unpaired OLD row + 1 */
	spgo_kmap_init(&at, 1);
	for (size_t i = 0; i < a->n; i++) {
		uint64_t g = sig_of(&a->o[i], weak);
		const uint64_t *v = g && a->ow[i] == SIZE_MAX ? spgo_kmap_find(&cnt, &g) : NULL;
		if (v && *v == (1ull | 1ull << 32))
			*spgo_kmap_upsert(&at, &g) = i + 1;
	}
	for (size_t j = 0; j < a->m; j++) {
		uint64_t g = sig_of(&a->w[j], weak);
		const uint64_t *v = g && a->wo[j] == SIZE_MAX ? spgo_kmap_find(&at, &g) : NULL;
		if (v && !neighbours_agree(a, (size_t)(*v - 1), j)) {
			/* not anchored: a look-alike of the same code where the
			 * pairs around say, with neighbours that agree; else a
			 * pair by the code alone far from them is none */
			size_t alt = agreeing_copy(a, j, &at, weak);
			if (alt != SIZE_MAX) {
				a->wo[j] = alt;
				a->ow[alt] = j;
				a->how[j] = HOW_ROW;
				continue;
			}
			if (weak && far_off(a, (size_t)(*v - 1), j))
				continue;
		}
		if (v && a->ow[*v - 1] == SIZE_MAX) {
			a->wo[j] = (size_t)(*v - 1);
			a->ow[*v - 1] = j;
			a->moved[*v - 1] = 1;
			a->how[j] = weak ? HOW_ROW : HOW_HASH;
		}
	}
	spgo_kmap_free(&at);
	spgo_kmap_free(&cnt);
}

/* Pair an OLD block probe left unpaired with the NEW one left unpaired
 * right after the NEW probe its predecessor is paired with (right before
 * its successor's) by pair_moved(): a block whose code changed next to
 * one that moved. */
static void pair_neighbours(struct balign *a)
{
	for (int back = 0; back < 2; back++)
		for (size_t k = 0; k < a->n; k++) {
			size_t i = back ? a->n - 1 - k : k;
			if (a->ow[i] != SIZE_MAX || a->o[i].anchor || (back ? i + 1 >= a->n : i == 0))
				continue;
			size_t nb = a->ow[back ? i + 1 : i - 1];
			if (nb == SIZE_MAX || (back && nb == 0) || !a->moved[back ? i + 1 : i - 1])
				continue;
			size_t j = back ? nb - 1 : nb + 1;
			if (j >= a->m || a->wo[j] != SIZE_MAX || a->w[j].anchor ||
			    (uint32_t)a->w[j].loc != (uint32_t)a->o[i].loc)
				continue;
			a->ow[i] = j;
			a->wo[j] = i;
			a->moved[i] = 1;
			a->how[j] = HOW_SHIFT;
		}
}

/* The weight of pairing the block probes a and b of a gap by their code:
 * 2 the same block hash (code and successors), 1 the same code; 0 none. */
static unsigned code_weight(const struct loc_row *a, const struct loc_row *b)
{
	if (a->anchor || b->anchor || !a->wsig || a->wsig != b->wsig || (uint32_t)a->loc != (uint32_t)b->loc)
		return 0;
	return (a->sig & 1) && a->sig == b->sig ? 2 : 1;
}

/* Pair the block probes left unpaired in the gap o(i0..i1), w(j0..j1)
 * (exclusive bounds) by a weighted longest common subsequence of their
 * code (code_weight()). */
static void align_gap_code(struct balign *a, size_t i0, size_t i1, size_t j0, size_t j1)
{
	VEC(size_t) oi = {0}, wj = {0};
	for (size_t i = i0; i < i1; i++)
		if (a->ow[i] == SIZE_MAX && !a->o[i].anchor && a->o[i].wsig)
			VEC_PUSH(&oi, i);
	for (size_t j = j0; j < j1; j++)
		if (a->wo[j] == SIZE_MAX && !a->w[j].anchor && a->w[j].wsig)
			VEC_PUSH(&wj, j);
	size_t n = oi.n, m = wj.n, cols = m + 1;
	if (n && m && (uint64_t)n * m <= STALE_MAX_LCS_CELLS) {
		uint32_t *s = xcalloc((n + 1) * cols, sizeof *s); /* s[x][y]: best of oi[x..), wj[y..) */
		for (size_t x = n; x-- > 0;)
			for (size_t y = m; y-- > 0;) {
				uint32_t best = s[(x + 1) * cols + y] > s[x * cols + y + 1] ? s[(x + 1) * cols + y]
											 : s[x * cols + y + 1];
				unsigned wt = code_weight(&a->o[oi.v[x]], &a->w[wj.v[y]]);
				if (wt && s[(x + 1) * cols + y + 1] + wt > best)
					best = s[(x + 1) * cols + y + 1] + wt;
				s[x * cols + y] = best;
			}
		for (size_t x = 0, y = 0; x < n && y < m;) {
			unsigned wt = code_weight(&a->o[oi.v[x]], &a->w[wj.v[y]]);
			if (wt && s[x * cols + y] == s[(x + 1) * cols + y + 1] + wt) {
				a->ow[oi.v[x]] = wj.v[y];
				a->wo[wj.v[y]] = oi.v[x];
				a->how[wj.v[y]] = HOW_GAP;
				x++, y++;
			} else {
				/* skip what loses nothing; of two, the lower id */
				uint32_t skip_o = s[(x + 1) * cols + y], skip_w = s[x * cols + y + 1];
				if (skip_o > skip_w || (skip_o == skip_w && a->o[oi.v[x]].loc <= a->w[wj.v[y]].loc))
					x++;
				else
					y++;
			}
		}
		free(s);
	}
	VEC_FREE(&oi);
	VEC_FREE(&wj);
}

/* Every gap between two pairs in order (order: NEW's rows' pairs of
 * match_gap(), OLD's increasing) whose two ends have other deltas (OLD id -
 * NEW id; 0 before the first pair; the end of the function: any), aligned
 * by align_gap_code().  A gap with the same delta at both ends holds as
 * many ids on both sides: its code changed in place, nothing was inserted,
 * and the delta rule pairs it id for id (on sqlite 3.40.1 -> 3.46.1 the
 * code's order paired look-alikes of other ids there, and sqlite3VdbeExec's
 * carried profile was 86.2% like the fresh one instead of 86.6%). */
static void align_gaps_code(struct balign *a, const size_t *order)
{
	size_t pi = SIZE_MAX, pj = SIZE_MAX; /* the last pair in order */
	for (size_t j = 0; j <= a->m; j++) {
		size_t i = j < a->m ? order[j] : a->n;
		if (i == SIZE_MAX || (pi != SIZE_MAX && i <= pi))
			continue;
		int64_t d0 = pi == SIZE_MAX ? 0 : (int64_t)(a->o[pi].loc >> 32) - (int64_t)(a->w[pj].loc >> 32);
		int64_t d1 = j < a->m ? (int64_t)(a->o[i].loc >> 32) - (int64_t)(a->w[j].loc >> 32) : d0 - 1;
		if (d0 != d1)
			align_gap_code(a, pi == SIZE_MAX ? 0 : pi + 1, i, pj == SIZE_MAX ? 0 : pj + 1, j);
		pi = i;
		pj = j;
	}
}

/* The OLD probes no NEW probe takes (src: the OLD row of each NEW one)
 * in a block of OLD one of whose probes is taken: fm->shadows. */
static void shadows(const struct balign *a, const size_t *src, struct fn_map *fm)
{
	struct spgo_kmap used; /* OLD block address -> how + 1 */
	spgo_kmap_init(&used, 1);
	char *taken = xcalloc(a->n ? a->n : 1, 1);
	for (size_t j = 0; j < a->m; j++)
		if (src[j] != SIZE_MAX) {
			taken[src[j]] = 1;
			const struct loc_row *r = &a->o[src[j]];
			uint64_t *v = r->blk && !r->anchor ? spgo_kmap_upsert(&used, &r->blk) : NULL;
			if (v && (!*v || (uint64_t)a->how[j] + 1 < *v))
				*v = (uint64_t)a->how[j] + 1;
		}
	for (size_t i = 0; i < a->n; i++) {
		const uint64_t *v = taken[i] || !a->o[i].blk || a->o[i].anchor ? NULL : spgo_kmap_find(&used, &a->o[i].blk);
		if (v) {
			struct loc_pair pr = {a->o[i].loc, 0, (int)(*v - 1)};
			VEC_PUSH(&fm->shadows, pr);
		}
	}
	free(taken);
	spgo_kmap_free(&used);
}

void stale_align_blocks(const struct loc_row *o, size_t n, const struct loc_row *w, size_t m, struct fn_map *fm)
{
	if (!n || !m)
		return;
	struct balign a = {o, w, n, m, xcalloc(n, sizeof(size_t)), xcalloc(m, sizeof(size_t)), xcalloc(m, sizeof(int)),
			   xcalloc(n, 1)};
	memset(a.ow, 0xff, n * sizeof *a.ow);
	memset(a.wo, 0xff, m * sizeof *a.wo);
	match_gap(&a, 0, n, 0, m, 0);
	size_t *order = xcalloc(m, sizeof *order);
	memcpy(order, a.wo, m * sizeof *order);
	pair_moved(&a, 0);
	pair_moved(&a, 1);
	pair_neighbours(&a);
	align_gaps_code(&a, order);
	free(order);
	/* the NEW probes left: a block of NEW with a paired block probe gives
	 * its source (a profile of NEW gives all its probes one count), else
	 * block probes are pulled; then probes still without a source (calls)
	 * take the source of a pulled block probe of their block */
	struct spgo_kmap run, pulled; /* NEW block address -> OLD row + 1 */
	spgo_kmap_init(&run, 1);
	spgo_kmap_init(&pulled, 1);
	for (size_t j = 0; j < m; j++)
		if (a.wo[j] != SIZE_MAX && w[j].blk && !w[j].anchor && !o[a.wo[j]].anchor) {
			uint64_t *v = spgo_kmap_upsert(&run, &w[j].blk);
			if (!*v)
				*v = a.wo[j] + 1;
		}
	/* prev, next: the pairs around; prev_c, next_c: the same but for
	 * those in order by code (HOW_GAP): the delta rule takes the nearer
	 * pair's delta, and where that gives no OLD probe (a pair in order by
	 * code next to it leaves no OLD probe within the gap), the nearer
	 * other pair's */
	size_t *src = xcalloc(m, sizeof *src), prev = SIZE_MAX, next = 0, prev_c = SIZE_MAX, next_c = 0;
	for (size_t j = 0; j < m; j++) {
		src[j] = a.wo[j];
		if (a.wo[j] != SIZE_MAX) {
			prev = j;
			if (a.how[j] != HOW_GAP)
				prev_c = j;
			continue;
		}
		if (next <= j)
			for (next = j + 1; next < m && a.wo[next] == SIZE_MAX;)
				next++;
		if (next_c <= j)
			for (next_c = j + 1; next_c < m && (a.wo[next_c] == SIZE_MAX || a.how[next_c] == HOW_GAP);)
				next_c++;
		a.how[j] = HOW_SHIFT;
		const uint64_t *v = w[j].blk ? spgo_kmap_find(&run, &w[j].blk) : NULL;
		if (v) {
			src[j] = (size_t)(*v - 1);
		} else if (!w[j].anchor) {
			src[j] = pull(&a, j, prev, next < m ? next : SIZE_MAX);
			if (src[j] == SIZE_MAX) /* (what the delta rule gave before) */
				src[j] = pull(&a, j, prev_c, next_c < m ? next_c : SIZE_MAX);
			uint64_t *pv = src[j] != SIZE_MAX && w[j].blk ? spgo_kmap_upsert(&pulled, &w[j].blk) : NULL;
			if (pv && !*pv)
				*pv = src[j] + 1;
		}
	}
	for (size_t j = 0; j < m; j++) {
		const uint64_t *v = src[j] == SIZE_MAX && w[j].blk ? spgo_kmap_find(&pulled, &w[j].blk) : NULL;
		if (v)
			src[j] = (size_t)(*v - 1);
	}
	spgo_kmap_free(&run);
	spgo_kmap_free(&pulled);
	for (size_t j = 0; j < m; j++)
		if (src[j] != SIZE_MAX) {
			struct loc_pair pr = {o[src[j]].loc, w[j].loc, a.how[j]};
			VEC_PUSH(&fm->pairs, pr);
		}
	spgo_sort(fm->pairs.v, fm->pairs.n, sizeof *fm->pairs.v, cmp_pair);
	shadows(&a, src, fm);
	free(src);
	free(a.ow);
	free(a.wo);
	free(a.how);
	free(a.moved);
}
