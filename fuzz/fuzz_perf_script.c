/* `perf script` text (ip, brstack, call stacks, mmap events), aggregated
 * against this harness's own binary. */
#include "fuzz.h"
#include "spgo/aggregate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, "/proc/self/exe", NULL) == 0) {
		spgo_agg_read_text(agg, fuzz_path(data, size));
		spgo_agg_free(agg);
	}
	return 0;
}
