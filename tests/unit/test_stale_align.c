/*
 * test_stale_align.c: stale_align_blocks(), the pairing of block probes
 * between an OLD and a NEW build of one function (src/stale/align.c).
 */
#include "harness.h"
#include "stale/stale_impl.h"

static struct loc_row row(uint32_t id, uint64_t sig, uint64_t wsig, uint64_t blk)
{
	struct loc_row r = {stale_loc(id, 0), 0, sig, wsig, blk};
	return r;
}

/* Nine block probes on each side, five in place (unique signatures A, D,
 * E, F, G at ids 1, 4, 6, 7, 8), and two crossed: OLD 5 has NEW 9's
 * signature, OLD 9 NEW 5's.  NEW 5 also has OLD 5's own code (a look-
 * alike, as the copies of one macro are): the neighbour rule would take
 * OLD 5 for NEW 5, but OLD 5 is the only row of NEW 9's signature, which
 * pairs it too.  An OLD probe must not go to two NEW probes that way: the
 * unique signatures keep their pairs. */
static void test_lookalike_held_by_own_signature(void)
{
	struct loc_row o[9], w[9];
	for (uint32_t k = 0; k < 9; k++) {
		o[k] = row(k + 1, 0, 0x100 + 2 * k, 0x1000 + k);
		w[k] = row(k + 1, 0, 0x200 + 2 * k, 0x2000 + k);
	}
	const uint64_t A = 0x11, D = 0x41, E = 0x61, F = 0x71, G = 0x81, S = 0x501, X = 0x901;
	o[0].sig = w[0].sig = A;
	o[3].sig = w[3].sig = D;
	o[5].sig = w[5].sig = E;
	o[6].sig = w[6].sig = F;
	o[7].sig = w[7].sig = G;
	o[4].sig = w[8].sig = S;
	o[8].sig = w[4].sig = X;
	o[4].wsig = w[4].wsig = 0xabc;
	struct fn_map fm = {0};
	stale_align_blocks(o, 9, w, 9, &fm);
	int old_used[10] = {0}, new_used[10] = {0}, old_of[10] = {0};
	for (size_t k = 0; k < fm.pairs.n; k++) {
		uint32_t f = (uint32_t)(fm.pairs.v[k].from >> 32), t = (uint32_t)(fm.pairs.v[k].to >> 32);
		REQUIRE(f >= 1 && f <= 9 && t >= 1 && t <= 9);
		old_used[f]++, new_used[t]++, old_of[t] = (int)f;
	}
	for (int k = 1; k <= 9; k++) {
		CHECK(old_used[k] <= 1);
		CHECK(new_used[k] <= 1);
	}
	CHECK(old_of[9] == 5);
	CHECK(old_of[5] == 9);
	VEC_FREE(&fm.pairs);
	VEC_FREE(&fm.shadows);
}

int main(void)
{
	RUN(test_lookalike_held_by_own_signature);
	DONE();
}
