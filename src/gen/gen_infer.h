/*
 * gen_infer.h: the generator's door to profile inference (spgo/infer.h),
 * kept in its own file because infer.h and profile.h both define a
 * struct spgo_overlap (gen_infer.c includes only the former).
 */
#ifndef SPGO_GEN_INFER_H
#define SPGO_GEN_INFER_H

#include <stddef.h>
#include <stdint.h>

struct spgo_insn;

#define GEN_WEIGHT_UNKNOWN UINT64_MAX

/* The sample weight of the block ins[first .. first + count), or
 * GEN_WEIGHT_UNKNOWN. */
typedef uint64_t (*gen_weight_fn)(void *ctx, size_t first, size_t count);

/*
 * Build the CFG of the instructions ins[0 .. n) (one function, its parts in
 * address order) entered at entry, weigh its blocks with weight(), infer
 * with the algorithm named algo (spgo_algo_parse's names), and write every
 * instruction's inferred count to counts[].  Returns 1 on success, 0 when
 * spgo was built without inference, -1 when the CFG could not be built
 * (counts untouched).
 */
int gen_infer_counts(const struct spgo_insn *ins, size_t n, uint64_t entry, const char *algo,
		     gen_weight_fn weight, void *ctx, uint64_t *counts, size_t *nblocks);
/* 0 if algo names an inference algorithm, else -1 with an spgo_error. */
int gen_infer_check(const char *algo);

#endif
