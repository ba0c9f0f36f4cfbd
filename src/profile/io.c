/*
 * Profile files: format detection by content, and reading/writing any
 * format through one entry point each.
 */
#include "spgo/profile.h"
#include "profile/profile_impl.h"
#include "common/bytes.h"

#include <stdlib.h>
#include <string.h>

/* The ULEB128 number a file starts with (an LLVM binary profile's magic). */
static int uleb_prefix(const uint8_t *d, size_t n, uint64_t *v)
{
	struct rd r = rd_init(d, n);
	*v = rd_uleb(&r);
	return r.bad ? -1 : 0;
}

enum spgo_format spgo_format_detect(const uint8_t *d, size_t n)
{
	uint64_t magic;
	if (n >= 4 && d[0] == 'a' && d[1] == 'd' && d[2] == 'c' && d[3] == 'g')
		return SPGO_FMT_GCOV;
	if (uleb_prefix(d, n, &magic) == 0 && magic == SPGO_EXTBIN_MAGIC)
		return SPGO_FMT_EXTBINARY;
	if (uleb_prefix(d, n, &magic) == 0 && (magic >> 8) == (SPGO_EXTBIN_MAGIC >> 8))
		return SPGO_FMT_UNKNOWN; /* another LLVM binary flavour */
	/* Text: printable ASCII/UTF-8 lines. */
	size_t look = n < 4096 ? n : 4096;
	for (size_t i = 0; i < look; i++)
		if ((d[i] < 0x20 && d[i] != '\n' && d[i] != '\r' && d[i] != '\t') || d[i] == 0x7f)
			return SPGO_FMT_UNKNOWN;
	return SPGO_FMT_TEXT;
}

const char *spgo_format_name(enum spgo_format f)
{
	switch (f) {
	case SPGO_FMT_TEXT: return "text";
	case SPGO_FMT_EXTBINARY: return "extbinary";
	case SPGO_FMT_GCOV: return "gcov";
	default: return "unknown";
	}
}

int spgo_format_parse(const char *s, enum spgo_format *f)
{
	if (!strcmp(s, "text"))
		*f = SPGO_FMT_TEXT;
	else if (!strcmp(s, "extbinary") || !strcmp(s, "ext-binary") || !strcmp(s, "binary"))
		*f = SPGO_FMT_EXTBINARY;
	else if (!strcmp(s, "gcov") || !strcmp(s, "gcc") || !strcmp(s, "afdo"))
		*f = SPGO_FMT_GCOV;
	else
		return spgo_error("unknown profile format '%s' (text, extbinary, gcov)", s);
	return 0;
}

int spgo_profile_read_into(struct spgo_profile *p, const char *path, uint64_t weight,
			   enum spgo_format *fmt_out)
{
	struct spgo_file f;
	if (spgo_file_map(&f, path) < 0)
		return -1;
	/* An empty file is a failed or unfinished write, not an empty
	 * profile: taking it as one hides the failure. */
	if (f.size == 0) {
		spgo_file_unmap(&f);
		return spgo_error("%s: offset 0x0: empty file (0 bytes), not a sample profile", path);
	}
	enum spgo_format fmt = spgo_format_detect(f.data, f.size);
	int rc;
	uint64_t magic;
	p->read_weight = weight ? weight : 1;
	switch (fmt) {
	case SPGO_FMT_TEXT: rc = spgo_read_text(p, path, f.data, f.size); break;
	case SPGO_FMT_EXTBINARY: rc = spgo_read_extbinary(p, path, f.data, f.size); break;
	case SPGO_FMT_GCOV: rc = spgo_read_gcov(p, path, f.data, f.size); break;
	default:
		if (uleb_prefix(f.data, f.size, &magic) == 0 &&
		    (magic >> 8) == (SPGO_EXTBIN_MAGIC >> 8))
			rc = spgo_error("%s: offset 0x0: LLVM sample profile format %u is not supported "
					"(only text and extended binary)", path, (unsigned)(magic & 0xff));
		else
			rc = spgo_error("%s: offset 0x0: not a sample profile (LLVM text or "
					"extended binary, or GCC gcov)", path);
	}
	p->read_weight = 1;
	spgo_file_unmap(&f);
	if (rc == 0 && fmt_out)
		*fmt_out = fmt;
	return rc;
}

struct spgo_profile *spgo_profile_read(const char *path, enum spgo_format *fmt_out)
{
	struct spgo_profile *p = spgo_profile_new();
	if (spgo_profile_read_into(p, path, 1, fmt_out) < 0) {
		spgo_profile_free(p);
		return NULL;
	}
	spgo_profile_finalize(p, 0);
	return p;
}

int spgo_profile_write(struct spgo_profile *p, const char *path, enum spgo_format fmt,
		       const struct spgo_write_opts *o)
{
	struct spgo_out out;
	if (spgo_out_open(&out, path) < 0)
		return -1;
	static char big[1 << 18];
	if (out.tmp)
		setvbuf(out.fp, big, _IOFBF, sizeof big);
	int rc;
	switch (fmt) {
	case SPGO_FMT_TEXT: rc = spgo_write_text(p, out.fp); break;
	case SPGO_FMT_EXTBINARY: rc = spgo_write_extbinary(p, out.fp, o); break;
	case SPGO_FMT_GCOV: rc = spgo_write_gcov(p, out.fp, o); break;
	default: rc = spgo_error("no output format given");
	}
	if (rc < 0) {
		const char *m = spgo_errmsg();
		if (strncmp(m, path, strlen(path)) != 0) { /* name the file */
			char *c = xstrdup(m);
			spgo_error("%s: %s", path, c);
			free(c);
		}
		spgo_out_abort(&out);
		return -1;
	}
	return spgo_out_commit(&out);
}
