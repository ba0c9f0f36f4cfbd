/*
 * The perf.data reader: file and pipe headers, attributes, feature sections,
 * the record stream (with zstd-COMPRESSED records unpacked in line) and the
 * optional time ordering.  Record bodies are decoded in decode.c.
 *
 * Input is read through one buffer with read(2), never mapped whole, so a
 * pipe and a 100 GiB file cost the same memory.  The buffer always holds at
 * least one whole record (a record is at most 64 KiB: its size is a u16).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perf/perf_impl.h"

#define MAGIC2 0x32454c4946524550ULL	    /* "PERFILE2" little-endian */
#define MAGIC2_SWAPPED 0x50455246494c4532ULL /* the same, other byte order */
#define BUF_SIZE (1u << 20)
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16

/* Feature bits of the file header (perf's HEADER_* numbering). */
enum { FEAT_BUILD_ID = 2, FEAT_ARCH = 6, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12 };

/* ---- input buffer ------------------------------------------------------ */

/* Make at least `want` unread bytes available; returns how many are. */
static size_t fill(struct spgo_perf_reader *r, size_t want)
{
	size_t have = r->len - r->pos;
	if (have >= want || r->eof)
		return have;
	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, have);
		r->buf_off += r->pos;
		r->pos = 0;
		r->len = have;
	}
	while (r->len < want && !r->eof) {
		size_t room = r->cap - r->len;
		uint64_t left = r->data_end - (r->buf_off + r->len);
		if (left < room)
			room = (size_t)left;
		if (room == 0) {
			r->eof = 1;
			break;
		}
		ssize_t n = read(r->fd, r->buf + r->len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->read_errno = errno;
			r->eof = 1;
			break;
		}
		if (n == 0) {
			r->eof = 1;
			r->hit_eof_early = r->data_end != UINT64_MAX;
			break;
		}
		r->len += (size_t)n;
		r->bytes_read += (uint64_t)n;
	}
	return r->len - r->pos;
}

/* Read exactly n bytes at absolute offset off (file mode headers only). */
static int pread_all(struct spgo_perf_reader *r, void *dst, size_t n, uint64_t off)
{
	uint8_t *p = dst;
	while (n > 0) {
		ssize_t k = pread(r->fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* ---- attributes -------------------------------------------------------- */

/* Add an event from its on-disk attr (size bytes) and id list. */
static struct spgo_perf_attr *add_attr(struct spgo_perf_reader *r, const uint8_t *attr,
				       size_t size, const uint64_t *ids, size_t nids)
{
	struct spgo_perf_attr *a = xcalloc(1, sizeof *a);
	memcpy(&a->attr, attr, size < sizeof a->attr ? size : sizeof a->attr);
	if (a->attr.size == 0)
		a->attr.size = PERF_ATTR_SIZE_VER0;
	a->ids = xmalloc((nids ? nids : 1) * sizeof *a->ids);
	memcpy(a->ids, ids, nids * sizeof *ids);
	a->nids = nids;
	a->index = r->attrs.n;
	VEC_PUSH(&r->attrs, a);
	for (size_t i = 0; i < nids; i++)
		*spgo_kmap_upsert(&r->id2attr, &ids[i]) = a->index;
	perf_layout_attrs(r);
	return a;
}

/* Where the event id sits, from the first event's sample_type. */
void perf_layout_attrs(struct spgo_perf_reader *r)
{
	r->id_pos = r->id_pos_end = -1;
	if (r->attrs.n == 0)
		return;
	uint64_t t = r->attrs.v[0]->attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		r->id_pos = 0;
		r->id_pos_end = 1;
	} else if (t & PERF_SAMPLE_ID) {
		int pos = 0;
		pos += !!(t & PERF_SAMPLE_IP);
		pos += !!(t & PERF_SAMPLE_TID);
		pos += !!(t & PERF_SAMPLE_TIME);
		pos += !!(t & PERF_SAMPLE_ADDR);
		r->id_pos = pos;
		/* trailer: TID TIME ID STREAM_ID CPU (IDENTIFIER) counted from the end */
		int end = 1;
		end += !!(t & PERF_SAMPLE_CPU);
		end += !!(t & PERF_SAMPLE_STREAM_ID);
		r->id_pos_end = end;
	}
}

/* Read a perf "string" (u32 length, then that many bytes, NUL inside). */
static char *feat_string(const uint8_t *p, size_t n, size_t *pos)
{
	if (*pos + 4 > n)
		return NULL;
	uint32_t len;
	memcpy(&len, p + *pos, 4);
	*pos += 4;
	if (len > n - *pos)
		return NULL;
	char *s = xstrndup((const char *)p + *pos, len);
	*pos += len;
	return s;
}

static void parse_build_ids(struct spgo_perf_reader *r, const uint8_t *p, size_t n)
{
	size_t pos = 0;
	while (pos + 8 + 4 + 24 <= n) {
		struct perf_event_header h;
		memcpy(&h, p + pos, sizeof h);
		if (h.size < 8 + 4 + 24 || h.size > n - pos)
			break;
		struct spgo_perf_build_id b = {0};
		memcpy(&b.pid, p + pos + 8, 4);
		memcpy(b.id, p + pos + 12, 20);
		b.size = 20;
		if (h.misc & (1u << 15)) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
			b.size = p[pos + 32] <= 20 ? p[pos + 32] : 20;
		b.misc = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
		b.filename = xstrndup((const char *)p + pos + 36, h.size - 36u);
		VEC_PUSH(&r->build_ids, b);
		pos += h.size;
	}
}

static void parse_event_desc(struct spgo_perf_reader *r, const uint8_t *p, size_t n)
{
	uint32_t nr, sz;
	if (n < 8)
		return;
	memcpy(&nr, p, 4);
	memcpy(&sz, p + 4, 4);
	size_t pos = 8;
	for (uint32_t i = 0; i < nr && pos + sz + 4 <= n; i++) {
		pos += sz;
		uint32_t nids;
		memcpy(&nids, p + pos, 4);
		pos += 4;
		char *name = feat_string(p, n, &pos);
		if (!name || nids > (n - pos) / 8) {
			free(name);
			return;
		}
		if (i < r->attrs.n && !r->attrs.v[i]->name)
			r->attrs.v[i]->name = name;
		else
			free(name);
		pos += (size_t)nids * 8;
	}
}

static void parse_cmdline(struct spgo_perf_reader *r, const uint8_t *p, size_t n)
{
	uint32_t nr;
	if (n < 4)
		return;
	memcpy(&nr, p, 4);
	size_t pos = 4;
	VEC(char) line = {0};
	for (uint32_t i = 0; i < nr; i++) {
		char *s = feat_string(p, n, &pos);
		if (!s)
			break;
		if (line.n)
			VEC_PUSH(&line, ' ');
		for (const char *c = s; *c; c++)
			VEC_PUSH(&line, *c);
		free(s);
	}
	VEC_PUSH(&line, '\0');
	r->cmdline = line.v;
}

/* A feature section in file or pipe mode. */
void perf_feature(struct spgo_perf_reader *r, unsigned feat, const uint8_t *p, size_t n)
{
	switch (feat) {
	case FEAT_BUILD_ID:
		parse_build_ids(r, p, n);
		break;
	case FEAT_CMDLINE:
		if (!r->cmdline)
			parse_cmdline(r, p, n);
		break;
	case FEAT_ARCH:
		if (!r->arch) {
			size_t pos = 0;
			r->arch = feat_string(p, n, &pos);
			r->arch_off = r->feat_off;
		}
		break;
	case FEAT_EVENT_DESC:
		parse_event_desc(r, p, n);
		break;
	default:
		break; /* unknown or unneeded: skipped by its size */
	}
}

/* ---- opening ----------------------------------------------------------- */

/* The file ends inside its feature sections (once per file): the build-ids,
 * command line and event names there are not known. */
static void warn_features_cut(struct spgo_perf_reader *r, uint64_t off, const char *where)
{
	if (r->warned_features)
		return;
	r->warned_features = 1;
	spgo_warn("%s: offset 0x%llx: the file is cut short inside %s; read without them "
		  "(the build-ids, command line and event names they hold)", r->path,
		  (unsigned long long)off, where);
}

static int open_file_mode(struct spgo_perf_reader *r, const uint8_t *h, uint64_t file_size)
{
	uint64_t attr_size, attrs_off, attrs_size, data_off, data_size, feats[4];
	memcpy(&attr_size, h + 16, 8);
	memcpy(&attrs_off, h + 24, 8);
	memcpy(&attrs_size, h + 32, 8);
	memcpy(&data_off, h + 40, 8);
	memcpy(&data_size, h + 48, 8);
	memcpy(feats, h + 72, 32);

	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > 4096)
		return spgo_error("%s: offset 0x10: bad attribute size %llu", r->path,
				  (unsigned long long)attr_size);
	if (attrs_off > file_size || attrs_size > file_size - attrs_off ||
	    attrs_size % attr_size)
		return spgo_error("%s: offset 0x18: attribute section out of the file", r->path);
	if (data_off < FILE_HEADER_SIZE || data_off > file_size)
		return spgo_error("%s: offset 0x28: data section starts outside the file",
				  r->path);

	size_t nattr = (size_t)(attrs_size / attr_size);
	uint8_t *ab = xmalloc(attr_size);
	for (size_t i = 0; i < nattr; i++) {
		uint64_t off = attrs_off + i * attr_size, ids_off, ids_size;
		if (pread_all(r, ab, attr_size, off) < 0)
			goto trunc;
		memcpy(&ids_off, ab + attr_size - 16, 8);
		memcpy(&ids_size, ab + attr_size - 8, 8);
		if (ids_off > file_size || ids_size > file_size - ids_off || ids_size % 8) {
			free(ab);
			return spgo_error("%s: offset 0x%llx: event %zu's id list is out of the file",
					  r->path, (unsigned long long)(off + attr_size - 16), i);
		}
		uint64_t *ids = xmalloc(ids_size + 8);
		if (pread_all(r, ids, ids_size, ids_off) < 0) {
			free(ids);
			goto trunc;
		}
		add_attr(r, ab, attr_size - 16, ids, ids_size / 8);
		free(ids);
	}
	free(ab);
	if (nattr == 0)
		return spgo_error("%s: offset 0x18: no events in the file", r->path);

	/* The data section; perf killed before it rewrote the header leaves
	 * data_size 0: then the data runs to the end of the file. */
	r->data_end = data_size ? data_off + data_size : file_size;
	if (!data_size) {
		spgo_warn("%s: the header gives no data size (perf did not finish); "
			  "reading to the end of the file", r->path);
		r->warned_trunc = 0;
	}

	/* Feature sections follow the data: their table (16 bytes per
	 * feature bit set), then each section where the table says.  A file
	 * cut short there is read without them, with a warning (as a file cut
	 * inside its data is). */
	uint64_t foff = data_off + data_size;
	if (data_size) {
		for (unsigned bit = 0; bit < 256; bit++) {
			if (!(feats[bit / 64] >> (bit % 64) & 1))
				continue;
			uint64_t sec[2];
			if (foff >= file_size || pread_all(r, sec, 16, foff) < 0) {
				warn_features_cut(r, foff, "the table of its feature sections");
				break;
			}
			foff += 16;
			if (sec[0] > file_size || sec[1] > file_size - sec[0]) {
				warn_features_cut(r, sec[0], "a feature section");
				continue;
			}
			if (sec[1] > (64u << 20) ||
			    (bit != FEAT_BUILD_ID && bit != FEAT_ARCH && bit != FEAT_CMDLINE && bit != FEAT_EVENT_DESC))
				continue;
			r->feat_off = sec[0];
			uint8_t *fb = xmalloc(sec[1] + 1);
			if (pread_all(r, fb, sec[1], sec[0]) == 0)
				perf_feature(r, bit, fb, sec[1]);
			else
				warn_features_cut(r, sec[0], "a feature section");
			free(fb);
		}
	}
	if (lseek(r->fd, (off_t)data_off, SEEK_SET) < 0)
		return spgo_error("%s: %s", r->path, strerror(errno));
	r->buf_off = data_off;
	return 0;
trunc:
	free(ab);
	return spgo_error("%s: the file ends inside its attribute section", r->path);
}

/* Read a regular file through one read-only mapping (see perf_impl.h). */
static void map_whole(struct spgo_perf_reader *r, size_t size)
{
	if (size == 0 || getenv("SPGO_PERF_NO_MMAP"))
		return;
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return; /* read() it is */
	madvise(m, size, MADV_SEQUENTIAL);
	spgo_map_track(m, size, r->path); /* a file truncated meanwhile: an error, not SIGBUS */
	uint64_t data_off = r->buf_off;
	free(r->buf);
	r->buf = m;
	r->mapped = 1;
	r->map_size = size;
	r->buf_off = 0;
	r->pos = (size_t)data_off;
	r->len = r->data_end < size ? (size_t)r->data_end : size;
	if (r->len < r->pos)
		r->len = r->pos;
	r->hit_eof_early = r->data_end != UINT64_MAX && r->data_end > size;
	r->eof = 1;
	r->bytes_read = r->len - r->pos;
	r->released = 0;
	r->touch_lo = SIZE_MAX;
	r->delivered = 0;
}

/* Give back the pages of the mapping below the read position (see
 * perf_impl.h): queued records there are read again when they go out. */
void perf_release_pages(struct spgo_perf_reader *r)
{
	if (r->pos - r->released < RELEASE_STEP && r->delivered < RELEASE_STEP)
		return;
	size_t lo = r->released < r->touch_lo ? r->released : r->touch_lo;
	lo &= ~(size_t)4095;
	size_t hi = r->pos & ~(size_t)4095;
	if (hi > lo)
		madvise(r->buf + lo, hi - lo, MADV_DONTNEED);
	if (hi > r->released)
		r->released = hi;
	r->touch_lo = SIZE_MAX;
	r->delivered = 0;
}

/* n bytes of printable ASCII, blanks and line ends: text, not perf.data. */
static int looks_like_text(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' && p[i] != '\r') || p[i] >= 0x7f)
			return 0;
	return 1;
}

int spgo_perf_open(struct spgo_perf_reader **out, const char *path, unsigned flags)
{
	*out = NULL;
	int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY);
	if (fd < 0)
		return spgo_error("%s: %s", path, strerror(errno));
	struct spgo_perf_reader *r = xcalloc(1, sizeof *r);
	r->path = xstrdup(path);
	r->fd = fd;
	r->flags = flags;
	r->cap = BUF_SIZE;
	r->buf = xmalloc(r->cap);
	r->data_end = UINT64_MAX;
	spgo_kmap_init(&r->id2attr, 1);
	r->id_pos = r->id_pos_end = -1;

	struct stat st;
	int have_st = fstat(fd, &st) == 0;
	int regular = have_st && S_ISREG(st.st_mode);
	if (have_st && S_ISDIR(st.st_mode)) {
		spgo_error("%s: is a directory", path);
		goto fail;
	}
	/* Read the first 16 bytes through the buffer (works for pipes too). */
	if (fill(r, PIPE_HEADER_SIZE) < PIPE_HEADER_SIZE) {
		if (r->read_errno)
			spgo_error("%s: %s", path, strerror(r->read_errno));
		else
			spgo_error("%s: offset 0: too short for a perf.data header", path);
		goto fail;
	}
	uint64_t magic, hsize;
	memcpy(&magic, r->buf, 8);
	memcpy(&hsize, r->buf + 8, 8);
	if (magic == MAGIC2_SWAPPED) {
		spgo_error("%s: offset 0: perf.data of the other byte order (big-endian) "
			   "is not supported", path);
		goto fail;
	}
	if (magic != MAGIC2) {
		if (!memcmp(r->buf, "PERFFILE", 8))
			spgo_error("%s: offset 0: perf.data version 1 is not supported", path);
		else if (looks_like_text(r->buf, PIPE_HEADER_SIZE))
			spgo_error("%s: offset 0: not a perf.data file but text (perf script output? "
				   "spgo gen and aggregate read that with --perf-script)", path);
		else
			spgo_error("%s: offset 0: not a perf.data file (bad magic)", path);
		goto fail;
	}
	if (hsize == PIPE_HEADER_SIZE) {
		r->pipe = 1;
		r->pos = PIPE_HEADER_SIZE;
	} else if (hsize == FILE_HEADER_SIZE && regular) {
		uint8_t h[FILE_HEADER_SIZE];
		if (pread_all(r, h, sizeof h, 0) < 0) {
			spgo_error("%s: offset 0: the file ends inside its header", path);
			goto fail;
		}
		r->pos = r->len = 0;
		r->eof = 0;
		r->bytes_read = 0;
		if (open_file_mode(r, h, (uint64_t)st.st_size) < 0)
			goto fail;
		map_whole(r, (size_t)st.st_size);
	} else if (hsize == FILE_HEADER_SIZE) {
		spgo_error("%s: a perf.data in file format cannot be read from a pipe; "
			   "record with `-o -` for pipe format", path);
		goto fail;
	} else {
		spgo_error("%s: offset 0x8: bad header size %llu", path, (unsigned long long)hsize);
		goto fail;
	}
	*out = r;
	return 0;
fail:
	spgo_perf_close(r);
	return -1;
}

void spgo_perf_close(struct spgo_perf_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->attrs.n; i++) {
		free(r->attrs.v[i]->ids);
		free(r->attrs.v[i]->name);
		free(r->attrs.v[i]);
	}
	VEC_FREE(&r->attrs);
	for (size_t i = 0; i < r->build_ids.n; i++)
		free(r->build_ids.v[i].filename);
	VEC_FREE(&r->build_ids);
	spgo_kmap_free(&r->id2attr);
	if (r->zds)
		ZSTD_freeDStream(r->zds);
	free(r->zbuf);
	perf_queue_free(r);
	perf_spe_free(r);
	free(r->cmdline);
	free(r->arch);
	if (r->mapped) {
		spgo_map_untrack(r->buf);
		munmap(r->buf, r->map_size);
	} else {
		free(r->buf);
	}
	free(r->path);
	free(r);
}

const char *spgo_perf_path(const struct spgo_perf_reader *r) { return r->path; }
int spgo_perf_is_pipe(const struct spgo_perf_reader *r) { return r->pipe; }
const char *spgo_perf_cmdline(const struct spgo_perf_reader *r) { return r->cmdline; }
const char *spgo_perf_arch(const struct spgo_perf_reader *r, uint64_t *off)
{
	if (off)
		*off = r->arch_off;
	return r->arch;
}
uint64_t spgo_perf_bytes_read(const struct spgo_perf_reader *r) { return r->bytes_read; }

size_t spgo_perf_nattrs(const struct spgo_perf_reader *r) { return r->attrs.n; }

const struct spgo_perf_attr *spgo_perf_attr(const struct spgo_perf_reader *r, size_t i)
{
	return i < r->attrs.n ? r->attrs.v[i] : NULL;
}

const struct spgo_perf_build_id *spgo_perf_build_ids(const struct spgo_perf_reader *r, size_t *n)
{
	*n = r->build_ids.n;
	return r->build_ids.v;
}

/* ---- the raw record stream --------------------------------------------- */

static void warn_truncated(struct spgo_perf_reader *r, uint64_t off, const char *what)
{
	if (r->warned_trunc)
		return;
	r->warned_trunc = 1;
	spgo_warn("%s: offset 0x%llx: %s; using the %llu complete records before it", r->path,
		  (unsigned long long)off, what, (unsigned long long)r->nrecords);
}

/* Records are read in place; perf's own records may have sizes that are
 * not a multiple of 8, leaving the next one misaligned: copy such a one. */
static inline const uint8_t *aligned(struct spgo_perf_reader *r, const uint8_t *p, size_t n)
{
	if (SPGO_LIKELY(((uintptr_t)p & 7) == 0))
		return p;
	memcpy(r->rec_copy, p, n);
	return (const uint8_t *)r->rec_copy;
}

/* Skip n bytes of the input (data that follows some pipe-mode records). */
static int skip_bytes(struct spgo_perf_reader *r, uint64_t n, uint64_t off)
{
	while (n > 0) {
		size_t have = fill(r, 1);
		if (have == 0) {
			warn_truncated(r, off, "the data of a record is cut short");
			return 0;
		}
		size_t k = have < n ? have : (size_t)n;
		r->pos += k;
		n -= k;
	}
	return 1;
}

/* The n bytes of AUX data at file offset off, for the SPE decoder
 * (r->spe.data, .avail): in place in a mapped file, else copied (at most
 * 1 GiB: a larger buffer is skipped and said). */
static void take_aux(struct spgo_perf_reader *r, uint64_t n, uint64_t off)
{
	struct perf_spe *s = &r->spe;
	s->size = n;
	s->data_off = off;
	s->data = NULL;
	s->avail = 0;
	if (r->mapped) {
		size_t have = r->len - r->pos;
		s->data = r->buf + r->pos;
		s->avail = n < have ? n : have;
		skip_bytes(r, n, off);
		return;
	}
	if (n > (1ULL << 30)) {
		spgo_warn("%s: offset 0x%llx: an AUX buffer of %llu bytes (more than 1 GiB) is skipped",
			  r->path, (unsigned long long)off, (unsigned long long)n);
		skip_bytes(r, n, off);
		return;
	}
	if (s->copy_cap < n) {
		free(s->copy);
		s->copy_cap = n;
		s->copy = xmalloc(n ? n : 1);
	}
	while (s->avail < n) {
		size_t have = fill(r, 1);
		if (have == 0) {
			warn_truncated(r, off + s->avail, "the data of a record is cut short");
			break;
		}
		size_t k = have < n - s->avail ? have : (size_t)(n - s->avail);
		memcpy(s->copy + s->avail, r->buf + r->pos, k);
		r->pos += k;
		s->avail += k;
	}
	s->data = s->copy;
}

/* Unpack one COMPRESSED record's payload into zbuf (after what is left). */
static int decompress(struct spgo_perf_reader *r, const uint8_t *p, size_t n, uint64_t off)
{
	if (!r->zds) {
		r->zds = ZSTD_createDStream();
		ZSTD_initDStream(r->zds);
	}
	if (r->zpos > 0) {
		memmove(r->zbuf, r->zbuf + r->zpos, r->zlen - r->zpos);
		r->zlen -= r->zpos;
		r->zpos = 0;
	}
	ZSTD_inBuffer in = {p, n, 0};
	while (in.pos < in.size) {
		if (r->zcap - r->zlen < (1u << 16)) {
			if (r->zcap > (64u << 20))
				return spgo_error("%s: offset 0x%llx: compressed data expands "
						  "without bound", r->path, (unsigned long long)off);
			r->zcap = r->zcap ? r->zcap * 2 : (1u << 20);
			r->zbuf = xrealloc(r->zbuf, r->zcap);
		}
		ZSTD_outBuffer o = {r->zbuf + r->zlen, r->zcap - r->zlen, 0};
		size_t in_before = in.pos;
		size_t ret = ZSTD_decompressStream(r->zds, &o, &in);
		if (ZSTD_isError(ret))
			return spgo_error("%s: offset 0x%llx: bad compressed record: %s", r->path,
					  (unsigned long long)off, ZSTD_getErrorName(ret));
		r->zlen += o.pos;
		if (o.pos == 0 && in.pos == in_before)
			return spgo_error("%s: offset 0x%llx: compressed record makes no progress",
					  r->path, (unsigned long long)off);
	}
	r->zoff = off;
	return 0;
}

/*
 * The next raw record in input order: 1 with *p, *hdr, *off set; 0 at the
 * end; -1 on error.  COMPRESSED records are unpacked and their contents
 * returned in their place.
 */
int perf_raw_next(struct spgo_perf_reader *r, const uint8_t **p, struct perf_event_header *hdr,
		  uint64_t *off)
{
	for (;;) {
		/* Records unpacked from a COMPRESSED record come first. */
		if (r->zlen - r->zpos >= sizeof *hdr) {
			memcpy(hdr, r->zbuf + r->zpos, sizeof *hdr);
			if (hdr->size < sizeof *hdr || (hdr->size % 8 && hdr->type < 64))
				return spgo_error("%s: offset 0x%llx: bad record size %u inside a "
						  "compressed record", r->path,
						  (unsigned long long)r->zoff, hdr->size);
			if (hdr->size <= r->zlen - r->zpos) {
				*p = r->zbuf + r->zpos;
				*off = r->zoff;
				r->zpos += hdr->size;
				r->nrecords++;
				*p = aligned(r, *p, hdr->size);
				return 1;
			}
		}
		if (r->ended)
			return 0;
		uint64_t at = r->buf_off + r->pos;
		size_t have = fill(r, sizeof *hdr);
		if (have < sizeof *hdr) {
			if (r->read_errno)
				return spgo_error("%s: offset 0x%llx: %s", r->path,
						  (unsigned long long)at, strerror(r->read_errno));
			if (have > 0 || r->hit_eof_early)
				warn_truncated(r, at, "the data stops inside a record");
			r->ended = 1;
			if (r->zlen > r->zpos)
				warn_truncated(r, r->zoff, "compressed data stops inside a record");
			return 0;
		}
		memcpy(hdr, r->buf + r->pos, sizeof *hdr);
		if (hdr->size < sizeof *hdr || (hdr->size % 8 && hdr->type < 64))
			return spgo_error("%s: offset 0x%llx: bad record size %u (type %u)", r->path,
					  (unsigned long long)at, hdr->size, hdr->type);
		if (fill(r, hdr->size) < hdr->size) {
			if (r->read_errno)
				return spgo_error("%s: offset 0x%llx: %s", r->path,
						  (unsigned long long)at, strerror(r->read_errno));
			warn_truncated(r, at, "the data stops inside a record");
			r->ended = 1;
			continue; /* nothing more in zbuf either: returns 0 */
		}
		*p = r->buf + r->pos;
		*off = at;
		r->pos += hdr->size;
		if (hdr->type == SPGO_PERF_RECORD_COMPRESSED) {
			if (decompress(r, *p + 8, hdr->size - 8u, at) < 0)
				return -1;
			continue;
		}
		r->nrecords++;
		*p = aligned(r, *p, hdr->size);
		if (hdr->type == SPGO_PERF_RECORD_HEADER_TRACING_DATA && hdr->size >= 12) {
			uint32_t n;
			memcpy(&n, *p + 8, 4);
			/* The caller sees the record, the data after it is skipped;
			 * copy the record out first since skipping refills the buffer. */
			if (*p != (const uint8_t *)r->rec_copy)
				memcpy(r->rec_copy, *p, hdr->size);
			*p = (const uint8_t *)r->rec_copy;
			skip_bytes(r, n, at);
		} else if (hdr->type == SPGO_PERF_RECORD_AUXTRACE && hdr->size >= 16) {
			uint64_t n;
			memcpy(&n, *p + 8, 8);
			if (*p != (const uint8_t *)r->rec_copy)
				memcpy(r->rec_copy, *p, hdr->size);
			*p = (const uint8_t *)r->rec_copy;
			if (r->spe.active && !(r->flags & SPGO_PERF_RAW_AUX))
				take_aux(r, n, at + hdr->size);
			else
				skip_bytes(r, n, at);
		}
		return 1;
	}
}

/* Pipe-mode header records that change what the reader knows. */
int perf_user_record(struct spgo_perf_reader *r, const uint8_t *p,
		     const struct perf_event_header *h, uint64_t off)
{
	switch (h->type) {
	case SPGO_PERF_RECORD_HEADER_ATTR: {
		if (h->size < 8 + PERF_ATTR_SIZE_VER0)
			return spgo_error("%s: offset 0x%llx: attribute record too short", r->path,
					  (unsigned long long)off);
		uint32_t asz;
		memcpy(&asz, p + 8 + 4, 4); /* attr.size */
		if (asz == 0)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz < PERF_ATTR_SIZE_VER0 || asz > h->size - 8u)
			return spgo_error("%s: offset 0x%llx: bad attribute size %u", r->path,
					  (unsigned long long)off, asz);
		size_t nids = (h->size - 8u - asz) / 8;
		uint64_t ids[8192 / 8];
		memcpy(ids, p + 8 + asz, nids * 8);
		add_attr(r, p + 8, asz, ids, nids);
		break;
	}
	case SPGO_PERF_RECORD_HEADER_BUILD_ID:
		parse_build_ids(r, p, h->size);
		break;
	case SPGO_PERF_RECORD_HEADER_FEATURE:
		if (h->size >= 16) {
			uint64_t feat;
			memcpy(&feat, p + 8, 8);
			r->feat_off = off + 16;
			perf_feature(r, (unsigned)feat, p + 16, h->size - 16u);
		}
		break;
	case SPGO_PERF_RECORD_EVENT_UPDATE:
		/* { header; u64 type; u64 id; payload }: type 1 = name. */
		if (h->size > 24) {
			uint64_t type, id;
			memcpy(&type, p + 8, 8);
			memcpy(&id, p + 16, 8);
			uint64_t *idx = spgo_kmap_find(&r->id2attr, &id);
			if (type == 1 && idx && !r->attrs.v[*idx]->name)
				r->attrs.v[*idx]->name =
					xstrndup((const char *)p + 24, h->size - 24u);
		}
		break;
	default:
		break;
	}
	return 0;
}
