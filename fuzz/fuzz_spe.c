/* Arm SPE packets (spgo/perf_spe.h): the input is one AUX buffer of
 * packets: the record decoder, every packet's description, and the raw
 * dump of spgo script --spe-packets.  SPE inside perf.data (the reader's
 * samples and the aggregate's range inference) is fuzzed by perf_data,
 * from the seed spgo emulate --spe writes. */
#include <string.h>

#include "fuzz.h"
#include "spgo/perf_spe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	spgo_quiet = 1;
	struct spgo_spe_decoder d;
	struct spgo_spe_record rec;
	spgo_spe_decoder_init(&d, data, size);
	uint64_t n = 0;
	while (spgo_spe_next(&d, &rec) > 0)
		n++;
	if (n > d.st.records || d.pos != size)
		abort(); /* every record counted, every byte consumed */
	char desc[256];
	for (size_t pos = 0; pos < size;) {
		struct spgo_spe_packet p;
		int k = spgo_spe_packet(data + pos, size - pos, &p);
		if (k > 0) {
			spgo_spe_packet_desc(&p, desc, sizeof desc);
			if (strlen(desc) >= sizeof desc)
				abort();
		}
		pos += k > 0 ? (size_t)k : 1;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (fp) {
		spgo_spe_dump(data, size, fp);
		fclose(fp);
	}
	free(buf);
	return 0;
}
