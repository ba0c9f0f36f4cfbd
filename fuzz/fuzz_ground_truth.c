/* The exact counts of `spgo emulate --ground-truth` (text). */
#include "fuzz.h"
#include "spgo/ground_truth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spgo_ground_truth gt;
	if (spgo_gt_read(&gt, fuzz_path(data, size)) == 0)
		spgo_gt_free(&gt);
	return 0;
}
