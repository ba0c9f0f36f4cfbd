/* perf.data (file and pipe format, compressed records): the reader, then
 * the aggregation of its samples against this harness's own binary. */
#include "fuzz.h"
#include "spgo/aggregate.h"
#include "spgo/perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path(data, size);
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) == 0) {
		struct spgo_perf_record rec;
		for (int i = 0; i < 100000 && spgo_perf_next(r, &rec) > 0; i++)
			;
		spgo_perf_close(r);
	}
	struct spgo_aggregate *agg;
	if (spgo_agg_new(&agg, "/proc/self/exe", NULL) == 0) {
		spgo_agg_read_perf(agg, path);
		spgo_agg_free(agg);
	}
	return 0;
}
