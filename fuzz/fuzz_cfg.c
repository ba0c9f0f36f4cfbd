/* CFG text (spgo infer's input format), then inference by each algorithm
 * on every CFG small enough to keep the fuzzer fast. */
#include "fuzz.h"
#include "spgo/infer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	spgo_quiet = 1;
	struct spgo_cfg_file f;
	if (spgo_cfg_parse(&f, (const char *)data, size, "fuzz") < 0)
		return 0;
	static const enum spgo_algo algos[] = {SPGO_ALGO_PROFI, SPGO_ALGO_MCF, SPGO_ALGO_FP};
	for (size_t i = 0; i < f.n; i++) {
		if (f.cfgs[i].nblocks > 64)
			continue;
		for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
			struct spgo_infer_opts o;
			spgo_infer_defaults(&o, algos[a]);
			spgo_infer(&f.cfgs[i], &o);
		}
	}
	spgo_cfg_file_free(&f);
	return 0;
}
