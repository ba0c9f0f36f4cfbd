/*
 * Property tests over thousands of random CFGs: random shapes (forward
 * edges that make every block reachable, back edges, self loops, extra
 * exits, unreachable blocks), weights from a random ground-truth flow by
 * binomial-like thinning, plus pure noise, zeros and dangling blocks.
 *  - every algorithm returns a valid, connected flow (spgo_flow_check:
 *    conservation, every positive block reached from the entry, flow
 *    entering there), profi also with cyclic dangling subgraphs rebalanced;
 *  - profi's L1 cost (the paper's objective, profi's coefficients) is never
 *    above mcf's, and profi's total is below mcf's.  Before connectivity
 *    profi's flow is a minimum of that objective (mcf's, on symmetric
 *    costs, is not); joining islands is a heuristic (a connected minimum is
 *    APX-hard, Theorem 3.1), which join.c makes a local minimum (negative
 *    cycles cancelled while the flow stays connected, and a pass that never
 *    drops an island when the first one did).  Soaked at 100,000 CFGs
 *    (SPGO_TEST_ITERS): 0 cases where profi is costlier; L1 totals over
 *    the 100,000: profi 7,342,002,639, mcf 21,337,096,623 (SPGO_TEST_DUMP=DIR
 *    writes the CFGs of such cases).  The two costlier cases it had were
 *    both joins that dropped an island a cheaper join existed for (the
 *    solve's flow was cheaper than mcf's in both; rebalancing changed
 *    nothing): seed 0x8cc4adb8c983af8c (was 114 vs mcf 108, now 93) had
 *    island 7 <-> 11, priced only by forward marginals (entry -> 7 -> exit,
 *    39) against dropping (28), while the join that takes the unit off the
 *    loop 1 -> 5 -> 17 -> 1 (which only raised block 5) costs 18: join.c's
 *    residual_call prices that on the residual graph before dropping.
 *    Seed 0x4ec39cf292efe39d (was 230 vs 228, now 227) had the self loop
 *    17 -> 17 as island; the cheapest cycle rerouted it over 17 -> 29 ->
 *    17 (no progress) and pin_cut then froze 29, which the joining cycle
 *    through 13 -> 23 -> 27 -> 29 -> 17 -> 13 (27) needs too: pin_cut now
 *    takes the +1 arc off such edges before it freezes blocks;
 *  - on exact weights with nothing dangling, profi returns them unchanged.
 * A fixed seed keeps failures reproducible (the failing case is printed).
 */
#include "harness.h"
#include "spgo/common.h"
#include "spgo/infer.h"

/* SPGO_TEST_ITERS overrides the number of CFGs (for longer soak runs). */
static int ITERS = 2000;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static uint32_t below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* A random CFG; truth[] gets block counts of random walks from the entry. */
static void random_cfg(struct spgo_cfg *c, uint64_t *truth)
{
	spgo_cfg_init(c);
	uint32_t nb = 2 + below(30);
	for (uint32_t b = 0; b < nb; b++)
		spgo_cfg_add_block(c, 0, 0);
	uint32_t unreachable = below(4) == 0 ? 1 + below(nb - 1) : nb;
	for (uint32_t b = 1; b < nb; b++) {
		if (b >= unreachable && below(2)) {
			if (b + 1 < nb)
				spgo_cfg_add_edge(c, b, b + 1 + below(nb - b - 1), SPGO_EDGE_OTHER);
			continue;
		}
		spgo_cfg_add_edge(c, below(b < unreachable ? b : nb), b, SPGO_EDGE_OTHER);
	}
	uint32_t extra = below(nb + 1);
	for (uint32_t k = 0; k < extra; k++) {
		uint32_t u = below(nb), v = below(nb);
		if (below(8) == 0)
			v = u; /* self loop */
		spgo_cfg_add_edge(c, u, v, SPGO_EDGE_OTHER);
	}
	for (uint32_t b = 0; b < nb; b++)
		if (below(6) == 0)
			c->blocks[b].flags |= SPGO_BLOCK_EXIT;
	spgo_cfg_finalize(c);
	/* Ground truth: walks from the entry, stopping at exits. */
	memset(truth, 0, nb * sizeof *truth);
	uint32_t walks = below(50);
	uint32_t path[400];
	for (uint32_t w = 0; w < walks; w++) {
		uint32_t b = c->entry, len = 0;
		int done = 0;
		while (len < 400 && !done) {
			path[len++] = b;
			const struct spgo_cfg_block *bl = &c->blocks[b];
			if (bl->nout == 0 || ((bl->flags & SPGO_BLOCK_EXIT) && below(3) == 0))
				done = 1;
			else
				b = c->edges[c->succ[bl->out + below(bl->nout)]].dst;
		}
		for (uint32_t k = 0; done && k < len; k++) /* only walks that returned */
			truth[path[k]]++;
	}
}

static void weights(struct spgo_cfg *c, const uint64_t *truth, int mode)
{
	for (size_t b = 0; b < c->nblocks; b++) {
		uint64_t w;
		switch (mode) {
		case 0: /* exact */
			w = truth[b];
			break;
		case 1: /* thinned: each execution kept with p = 1/2, then scaled */
			w = 0;
			for (uint64_t k = 0; k < truth[b]; k++)
				w += below(2);
			w *= 2;
			break;
		default: /* noise */
			w = below(4) == 0 ? 0 : below(1000);
			break;
		}
		c->blocks[b].weight = mode > 0 && below(10) < 3 ? SPGO_WEIGHT_UNKNOWN : w;
	}
}

/* With SPGO_TEST_DUMP=DIR, failing CFGs are written there as text. */
static void dump(const struct spgo_cfg *c, const char *what)
{
	static int n;
	const char *dir = getenv("SPGO_TEST_DUMP");
	if (!dir)
		return;
	char path[512];
	snprintf(path, sizeof path, "%s/%s-%d.cfg", dir, what, n++);
	FILE *fp = fopen(path, "w");
	if (fp) {
		spgo_cfg_write(fp, c, NULL);
		fclose(fp);
	}
}

static void test_random_cfgs(void)
{
	static const enum spgo_algo algos[] = {SPGO_ALGO_PROFI, SPGO_ALGO_MCF, SPGO_ALGO_FP, SPGO_ALGO_QUADRATIC};
	struct spgo_infer_opts opts[4], po;
	for (int a = 0; a < 4; a++)
		spgo_infer_defaults(&opts[a], algos[a]);
	spgo_infer_defaults(&po, SPGO_ALGO_PROFI);
	int invalid = 0, worse = 0, changed = 0, cases = 0;
	double total_profi = 0, total_mcf = 0;
	uint64_t truth[64];
	for (int iter = 0; iter < ITERS; iter++) {
		uint64_t seed = rng;
		struct spgo_cfg c;
		random_cfg(&c, truth);
		int mode = iter % 3;
		weights(&c, truth, mode);
		double cost[4];
		for (int a = 0; a < 4; a++) {
			for (size_t e = 0; e < c.nedges; e++)
				c.edges[e].prob = -1;
			spgo_infer(&c, &opts[a]);
			char why[200];
			if (spgo_flow_check(&c, why, sizeof why)) {
				if (invalid++ < 5) {
					fprintf(stderr, "seed %#llx %s: %s\n", (unsigned long long)seed,
						spgo_algo_name(algos[a]), why);
					dump(&c, "invalid");
				}
			}
			cost[a] = spgo_flow_cost_l1(&c, &po);
			if (mode == 0 && a == 0)
				for (size_t b = 0; b < c.nblocks; b++)
					if (c.blocks[b].count != truth[b] && changed++ < 5) {
						fprintf(stderr, "seed %#llx: exact weights changed at block %zu\n",
							(unsigned long long)seed, b);
						dump(&c, "changed");
					}
		}
		/* profi with cyclic dangling subgraphs rebalanced too: valid */
		struct spgo_infer_opts cyc = opts[0];
		cyc.rebalance_cyclic = 1;
		spgo_infer(&c, &cyc);
		char why2[200];
		if (spgo_flow_check(&c, why2, sizeof why2) && invalid++ < 5)
			fprintf(stderr, "seed %#llx profi+cyclic: %s\n", (unsigned long long)seed, why2);
		total_profi += cost[0];
		total_mcf += cost[1];
		if (cost[0] > cost[1] && worse++ < 5) {
			fprintf(stderr, "seed %#llx: profi cost %.0f > mcf %.0f\n", (unsigned long long)seed, cost[0],
				cost[1]);
			dump(&c, "worse");
		}
		cases++;
		spgo_cfg_free(&c);
	}
	printf("random CFGs: %d, invalid flows: %d, profi costlier than mcf: %d, exact weights changed: %d, "
	       "L1 cost in all: profi %.0f, mcf %.0f\n",
	       cases, invalid, worse, changed, total_profi, total_mcf);
	CHECK(cases == ITERS);
	CHECK(invalid == 0);
	CHECK(worse == 0);
	CHECK(total_profi < total_mcf);
	CHECK(changed == 0);
}

/*
 * flow_solve's two ways of labelling paths give the same flows: lengths
 * cost * H + 1 (a shortest search finds a fewest-arc path, flow.c's
 * choose_lengths) and, when costs are too large for that, the bare costs
 * (extract_dag's hop levels pick the fewest-arc paths).  Scaling every
 * block cost by 2^44 (cost_scale) forces the second and leaves the
 * optimum as it was (the edge costs, dangling and layout, are off); the
 * solve alone (no join, no rebalancing: their sums are in doubles).
 */
static void test_label_modes(void)
{
	struct spgo_infer_opts o;
	spgo_infer_defaults(&o, SPGO_ALGO_PROFI);
	o.k_unknown_inc = 0, o.k_layout = 0, o.join_islands = 0, o.rebalance = 0;
	uint64_t truth[64], counts[64 + 128];
	int differ = 0, n = ITERS / 2;
	for (int iter = 0; iter < n; iter++) {
		uint64_t seed = rng;
		struct spgo_cfg c;
		random_cfg(&c, truth);
		weights(&c, truth, 1 + iter % 2);
		spgo_infer(&c, &o);
		size_t nb = c.nblocks, ne = c.nedges;
		REQUIRE(nb + ne <= SPGO_ARRAY_LEN(counts));
		for (size_t b = 0; b < nb; b++)
			counts[b] = c.blocks[b].count;
		for (size_t e = 0; e < ne; e++)
			counts[nb + e] = c.edges[e].count;
		for (size_t b = 0; b < nb; b++)
			c.blocks[b].cost_scale = 0x1p44;
		spgo_infer(&c, &o);
		int same = 1;
		for (size_t b = 0; b < nb; b++)
			same &= c.blocks[b].count == counts[b];
		for (size_t e = 0; e < ne; e++)
			same &= c.edges[e].count == counts[nb + e];
		if (!same && differ++ < 5) {
			fprintf(stderr, "seed %#llx: the flows of the two label modes differ\n", (unsigned long long)seed);
			dump(&c, "labels");
		}
		spgo_cfg_free(&c);
	}
	printf("label modes: %d CFGs, %d with different flows\n", n, differ);
	CHECK(differ == 0);
}

int main(void)
{
	spgo_quiet = 1;
	if (getenv("SPGO_TEST_ITERS"))
		ITERS = atoi(getenv("SPGO_TEST_ITERS"));
	RUN(test_random_cfgs);
	RUN(test_label_modes);
	DONE();
}
