/* A sample profile of any format (LLVM text, extended binary, GCC gcov):
 * read, then written in each format and read back (a second reading of
 * what spgo writes must succeed). */
#include <string.h>

#include "fuzz.h"
#include "spgo/profile.h"

static void round_trip(struct spgo_profile *p, enum spgo_format fmt, int md5)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct spgo_write_opts o;
	memset(&o, 0, sizeof o);
	o.md5 = md5;
	int rc = fmt == SPGO_FMT_TEXT ? spgo_write_text(p, fp)
		 : fmt == SPGO_FMT_EXTBINARY ? spgo_write_extbinary(p, fp, &o)
						 : spgo_write_gcov(p, fp, &o);
	fclose(fp);
	if (rc == 0) {
		struct spgo_profile *q = spgo_profile_new();
		int back = fmt == SPGO_FMT_TEXT ? spgo_read_text(q, "back", (uint8_t *)buf, len)
			   : fmt == SPGO_FMT_EXTBINARY ? spgo_read_extbinary(q, "back", (uint8_t *)buf, len)
							   : spgo_read_gcov(q, "back", (uint8_t *)buf, len);
		if (back != 0) {
			fprintf(stderr, "spgo could not read back what it wrote (%s): %s\n",
				spgo_format_name(fmt), spgo_errmsg());
			fwrite(buf, 1, len, stderr);
			abort();
		}
		spgo_profile_free(q);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spgo_profile *p = spgo_profile_read(fuzz_path(data, size), NULL);
	if (!p)
		return 0;
	round_trip(p, SPGO_FMT_TEXT, 0);
	round_trip(p, SPGO_FMT_EXTBINARY, 0);
	round_trip(p, SPGO_FMT_EXTBINARY, 1);
	round_trip(p, SPGO_FMT_GCOV, 0);
	spgo_profile_free(p);
	return 0;
}
