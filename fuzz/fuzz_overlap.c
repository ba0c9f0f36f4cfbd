/* Two sample profiles through spgo overlap: the input is BASE, a line
 * "%%", then TEST (no such line: the input against itself).  Both the
 * llvm-profdata measures and the CS block overlap (each way round, both
 * views), whose figures are fractions: one outside [0, 1] (or NaN) is a
 * finding -- counts near 2^64 once wrapped their sums to -200%. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "spgo/profile.h"

static void in_unit(double v, const char *what)
{
	if (!(v >= -1e-9 && v <= 1 + 1e-9)) {
		fprintf(stderr, "overlap: %s is %g, outside [0, 1]\n", what, v);
		abort();
	}
}

static struct spgo_profile *read_part(const uint8_t *data, size_t size)
{
	return spgo_profile_read(fuzz_path(data, size), NULL);
}

static void plain(struct spgo_profile *a, struct spgo_profile *b)
{
	struct spgo_overlap o;
	if (spgo_profile_overlap(a, b, &o) < 0)
		return;
	in_unit(o.similarity, "similarity");
	in_unit(o.sample_overlap, "sample overlap");
	in_unit(o.base_unique, "base unique");
	in_unit(o.test_unique, "test unique");
	in_unit(o.func_overlap, "function overlap");
	in_unit(o.base_zero, "base samples where test has zero");
	in_unit(o.test_zero, "test samples where base has zero");
	for (size_t i = 0; i < o.nfuncs; i++) {
		in_unit(o.funcs[i].similarity, "function similarity");
		in_unit(o.funcs[i].base_weight, "function base weight");
		in_unit(o.funcs[i].test_weight, "function test weight");
		in_unit(o.funcs[i].overlap_frac, "function overlap");
		in_unit(o.funcs[i].base_zero_frac, "function base samples where test has zero");
		in_unit(o.funcs[i].test_zero_frac, "function test samples where base has zero");
	}
	spgo_overlap_free(&o);
}

static void cs(struct spgo_profile *ref, struct spgo_profile *p)
{
	for (int view = SPGO_CSO_CONTEXT; view <= SPGO_CSO_INLINE; view++) {
		struct spgo_cs_overlap o;
		if (spgo_cs_overlap(ref, p, view, SPGO_CSO_INLINE_MARKED, &o) < 0)
			continue; /* nothing to free (LeakSanitizer checks) */
		in_unit(o.overlap, "CS block overlap");
		in_unit(o.ref_weighted, "CS block overlap by the reference");
		for (size_t i = 0; i < o.n_units; i++)
			in_unit(o.units[i].overlap, "CS unit overlap");
		spgo_cs_overlap_free(&o);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = size >= 4 ? memmem(data, size, "\n%%\n", 4) : NULL;
	size_t na = sep ? (size_t)(sep - data) + 1 : size;
	struct spgo_profile *a = read_part(data, na), *b = NULL;
	if (a && sep)
		b = read_part(sep + 4, size - na - 3);
	if (a && (b || !sep)) {
		struct spgo_profile *t = b ? b : a;
		plain(a, t);
		plain(t, a);
		cs(a, t);
		cs(t, a);
	}
	spgo_profile_free(a);
	spgo_profile_free(b);
	return 0;
}
