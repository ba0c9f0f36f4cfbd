/* An unsymbolized profile of any form (spgo's binary and text forms,
 * llvm-profgen's text): read, trimmed, then written in each form and read
 * back; the binary form written again from what was read back must be the
 * same bytes (the forms carry the same data). */
#include <string.h>

#include "fuzz.h"
#include "spgo/unsym.h"

static char *to_mem(const struct spgo_unsym *u, enum spgo_unsym_format f, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	int rc = spgo_unsym_write_fp(u, fp, f);
	fclose(fp);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void round_trip(const struct spgo_unsym *u, enum spgo_unsym_format f, const char *ref,
		       size_t nref)
{
	size_t n, n2;
	char *buf = to_mem(u, f, &n);
	if (!buf)
		return; /* profgen with several binaries */
	struct spgo_unsym *v = spgo_unsym_new();
	if (spgo_unsym_read_mem(v, "back", (uint8_t *)buf, n, 1) != 0) {
		fprintf(stderr, "spgo could not read back its unsymbolized form %d: %s\n", f,
			spgo_errmsg());
		fwrite(buf, 1, n, stderr);
		abort();
	}
	if (f != SPGO_UNSYM_PROFGEN) {
		char *again = to_mem(v, SPGO_UNSYM_BIN, &n2);
		if (!again || n2 != nref || memcmp(again, ref, n2)) {
			fprintf(stderr, "form %d does not carry the same data\n", f);
			abort();
		}
		free(again);
	}
	spgo_unsym_free(v);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	spgo_quiet = 1;
	struct spgo_unsym *u = spgo_unsym_new();
	if (spgo_unsym_read_mem(u, "input", data, size, 1) == 0) {
		if (size && (data[0] & 1))
			spgo_unsym_trim(u, 0.01);
		size_t nref;
		char *ref = to_mem(u, SPGO_UNSYM_BIN, &nref);
		round_trip(u, SPGO_UNSYM_BIN, ref, nref);
		round_trip(u, SPGO_UNSYM_TEXT, ref, nref);
		round_trip(u, SPGO_UNSYM_PROFGEN, ref, nref);
		free(ref);
	}
	spgo_unsym_free(u);
	return 0;
}
