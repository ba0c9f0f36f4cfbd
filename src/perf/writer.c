/*
 * writer.c: the perf.data writer of spgo/perf_write.h.
 *
 * The file header is written last: records stream into the temporary output
 * file right after the attrs, and at commit the feature table and payloads
 * follow the data and the header at offset 0 is filled in.  The layout
 * matches tools/perf/util/header.c (perf_session__write_header).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define NAME_ALIGN 64
#define BUILD_ID_MAX 20

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct file_section attrs;
	struct file_section data;
	struct file_section event_types;
	uint64_t adds_features[SPGO_PW_FEAT_MAX / 64];
};

struct pw_attr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t n_ids;
};

/* A byte buffer (the VEC layout, named so functions can take it). */
struct bytes {
	uint8_t *v;
	size_t n, cap;
};

struct pw_feature {
	uint8_t *data;
	size_t size;
	int set;
};

struct spgo_perf_writer {
	struct spgo_out out;
	VEC(struct pw_attr) attrs;
	uint32_t attr_size; /* bytes of each perf_event_attr on disk */
	int started;        /* attrs written, data streaming */
	uint64_t data_offset, data_size;
	struct pw_feature feat[SPGO_PW_FEAT_MAX];
	struct bytes build_ids; /* HEADER_BUILD_ID payload */
	int failed;
};

static int pw_write(struct spgo_perf_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -1;
	if (n && fwrite(p, 1, n, w->out.fp) != n) {
		w->failed = 1;
		return spgo_error("%s: write failed: %s", w->out.path, strerror(errno));
	}
	return 0;
}

int spgo_pw_open(struct spgo_perf_writer **out, const char *path)
{
	*out = NULL;
	if (strcmp(path, "-") == 0)
		return spgo_error("-: perf.data cannot be written to stdout (the header needs a seekable file)");
	struct spgo_perf_writer *w = xcalloc(1, sizeof *w);
	if (spgo_out_open(&w->out, path) < 0) {
		free(w);
		return -1;
	}
	if (spgo_out_seekable(&w->out) < 0) { /* the header is written last */
		spgo_out_abort(&w->out);
		free(w);
		return -1;
	}
	*out = w;
	return 0;
}

void spgo_pw_attr_user_tasks(struct perf_event_attr *attr)
{
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->task = 1;
	attr->inherit = 1;
}

int spgo_pw_add_attr(struct spgo_perf_writer *w, const struct perf_event_attr *attr,
		     const char *name, const uint64_t *ids, size_t n_ids)
{
	if (w->started)
		return spgo_error("%s: perf.data attrs must be added before records", w->out.path);
	uint32_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER7;
	if (size > sizeof(struct perf_event_attr) || size < PERF_ATTR_SIZE_VER0 || size % 8)
		return spgo_error("%s: unsupported perf_event_attr size %u", w->out.path, size);
	if (w->attrs.n && size != w->attr_size)
		return spgo_error("%s: all attrs of a perf.data must have the same size", w->out.path);
	w->attr_size = size;
	struct pw_attr a = {0};
	memcpy(&a.attr, attr, sizeof a.attr);
	a.attr.size = size;
	a.name = name ? xstrdup(name) : NULL;
	if (n_ids) {
		a.ids = xmalloc(n_ids * sizeof *ids);
		memcpy(a.ids, ids, n_ids * sizeof *ids);
	}
	a.n_ids = n_ids;
	VEC_PUSH(&w->attrs, a);
	return (int)w->attrs.n - 1;
}

/* Write the id arrays and the attrs after the (yet empty) file header. */
static int pw_start(struct spgo_perf_writer *w)
{
	if (w->started)
		return w->failed ? -1 : 0;
	w->started = 1;
	if (!w->attrs.n)
		return spgo_error("%s: perf.data needs at least one attr", w->out.path);
	struct file_header zero = {0};
	if (pw_write(w, &zero, sizeof zero) < 0)
		return -1;
	uint64_t off = sizeof zero;
	for (size_t i = 0; i < w->attrs.n; i++) {
		struct pw_attr *a = &w->attrs.v[i];
		if (pw_write(w, a->ids, a->n_ids * sizeof(uint64_t)) < 0)
			return -1;
		off += a->n_ids * sizeof(uint64_t);
	}
	uint64_t ids_off = sizeof zero;
	for (size_t i = 0; i < w->attrs.n; i++) {
		struct pw_attr *a = &w->attrs.v[i];
		struct file_section ids = {a->n_ids ? ids_off : 0, a->n_ids * sizeof(uint64_t)};
		ids_off += ids.size;
		if (pw_write(w, &a->attr, w->attr_size) < 0 || pw_write(w, &ids, sizeof ids) < 0)
			return -1;
		off += w->attr_size + sizeof ids;
	}
	w->data_offset = off;
	return 0;
}

int spgo_pw_record(struct spgo_perf_writer *w, const struct perf_event_header *rec)
{
	if (pw_start(w) < 0)
		return -1;
	if (rec->size < sizeof *rec || rec->size % 8)
		return spgo_error("%s: record of type %u has bad size %u", w->out.path, rec->type,
				  rec->size);
	if (pw_write(w, rec, rec->size) < 0)
		return -1;
	w->data_size += rec->size;
	return 0;
}

int spgo_pw_auxtrace_info(struct spgo_perf_writer *w, uint32_t type, const uint64_t *priv, size_t npriv)
{
	uint64_t buf[2 + 32] = {0};
	if (npriv > 32)
		return spgo_error("%s: AUXTRACE_INFO with %zu words", w->out.path, npriv);
	struct perf_event_header h = {SPGO_PERF_RECORD_AUXTRACE_INFO, 0, (uint16_t)(16 + 8 * npriv)};
	memcpy(buf, &h, 8);
	memcpy(buf + 1, &type, 4);
	memcpy(buf + 2, priv, 8 * npriv);
	return spgo_pw_record(w, (const struct perf_event_header *)buf);
}

int spgo_pw_auxtrace(struct spgo_perf_writer *w, const struct spgo_pw_auxtrace *a, const void *data,
		     uint64_t size)
{
	if (size % 8)
		return spgo_error("%s: AUX data of %llu bytes, not a multiple of 8", w->out.path,
				  (unsigned long long)size);
	uint64_t buf[6] = {0};
	struct perf_event_header h = {SPGO_PERF_RECORD_AUXTRACE, 0, 48};
	memcpy(buf, &h, 8);
	buf[1] = size;
	buf[2] = a->offset;
	buf[3] = a->reference;
	uint32_t v[4] = {a->idx, a->tid, a->cpu, 0};
	memcpy(buf + 4, v, 16);
	if (spgo_pw_record(w, (const struct perf_event_header *)buf) < 0 || pw_write(w, data, size) < 0)
		return -1;
	w->data_size += size;
	return 0;
}

/* ---- record building ------------------------------------------------------ */

/* A record under construction: 8-byte words after the header. */
struct rec {
	uint8_t buf[65536];
	size_t n;
};

static void rec_put(struct rec *r, const void *p, size_t n)
{
	if (n)
		memcpy(r->buf + r->n, p, n);
	r->n += n;
}
static void rec_u64(struct rec *r, uint64_t v) { rec_put(r, &v, 8); }
static void rec_u32x2(struct rec *r, uint32_t a, uint32_t b)
{
	rec_put(r, &a, 4);
	rec_put(r, &b, 4);
}
/* A NUL-terminated string padded with zeros to a multiple of 8 bytes. */
static void rec_str(struct rec *r, const char *s)
{
	size_t len = strlen(s) + 1, pad = (len + 7) & ~(size_t)7;
	memset(r->buf + r->n, 0, pad);
	memcpy(r->buf + r->n, s, len);
	r->n += pad;
}

static void rec_sample_id(struct spgo_perf_writer *w, struct rec *r, const struct spgo_pw_sample_id *sid)
{
	const struct perf_event_attr *a = &w->attrs.v[0].attr;
	if (!a->sample_id_all)
		return;
	struct spgo_pw_sample_id z = {0};
	if (!sid)
		sid = &z;
	uint64_t t = a->sample_type;
	if (t & PERF_SAMPLE_TID)
		rec_u32x2(r, sid->pid, sid->tid);
	if (t & PERF_SAMPLE_TIME)
		rec_u64(r, sid->time);
	if (t & PERF_SAMPLE_ID)
		rec_u64(r, sid->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rec_u64(r, sid->stream_id);
	if (t & PERF_SAMPLE_CPU)
		rec_u32x2(r, sid->cpu, 0);
	if (t & PERF_SAMPLE_IDENTIFIER)
		rec_u64(r, sid->id);
}

static int rec_emit(struct spgo_perf_writer *w, struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)r->n};
	memcpy(r->buf, &h, sizeof h);
	return spgo_pw_record(w, (const struct perf_event_header *)r->buf);
}

static struct rec *rec_new(void)
{
	struct rec *r = xmalloc(sizeof *r);
	r->n = sizeof(struct perf_event_header);
	return r;
}

int spgo_pw_comm(struct spgo_perf_writer *w, uint32_t pid, uint32_t tid, const char *comm, int exec,
		 const struct spgo_pw_sample_id *sid)
{
	if (pw_start(w) < 0)
		return -1;
	struct rec *r = rec_new();
	char name[16] = {0};
	strncpy(name, comm, sizeof name - 1);
	rec_u32x2(r, pid, tid);
	rec_str(r, name);
	rec_sample_id(w, r, sid);
	int rc = rec_emit(w, r, PERF_RECORD_COMM,
			  PERF_RECORD_MISC_USER | (exec ? PERF_RECORD_MISC_COMM_EXEC : 0));
	free(r);
	return rc;
}

static int pw_task(struct spgo_perf_writer *w, uint32_t type, uint32_t pid, uint32_t ppid,
		   uint32_t tid, uint32_t ptid, uint64_t time, const struct spgo_pw_sample_id *sid)
{
	if (pw_start(w) < 0)
		return -1;
	struct rec *r = rec_new();
	rec_u32x2(r, pid, ppid);
	rec_u32x2(r, tid, ptid);
	rec_u64(r, time);
	rec_sample_id(w, r, sid);
	int rc = rec_emit(w, r, type, PERF_RECORD_MISC_USER);
	free(r);
	return rc;
}

int spgo_pw_fork(struct spgo_perf_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid, uint64_t time, const struct spgo_pw_sample_id *sid)
{
	return pw_task(w, PERF_RECORD_FORK, pid, ppid, tid, ptid, time, sid);
}

int spgo_pw_exit(struct spgo_perf_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid, uint64_t time, const struct spgo_pw_sample_id *sid)
{
	return pw_task(w, PERF_RECORD_EXIT, pid, ppid, tid, ptid, time, sid);
}

int spgo_pw_mmap2(struct spgo_perf_writer *w, const struct spgo_pw_mmap2 *m,
		  const struct spgo_pw_sample_id *sid)
{
	if (pw_start(w) < 0)
		return -1;
	if (strlen(m->filename) > 4096)
		return spgo_error("%s: mmap file name too long", w->out.path);
	if (m->build_id_len > BUILD_ID_MAX)
		return spgo_error("%s: build-id longer than %d bytes", w->out.path, BUILD_ID_MAX);
	struct rec *r = rec_new();
	uint16_t misc = PERF_RECORD_MISC_USER;
	rec_u32x2(r, m->pid, m->tid);
	rec_u64(r, m->start);
	rec_u64(r, m->len);
	rec_u64(r, m->pgoff);
	if (m->build_id_len) {
		/* u8 build_id_size, u8 reserved[3], u8 build_id[20] in place of
		 * maj, min, ino, ino_generation (24 bytes). */
		uint8_t b[24] = {0};
		b[0] = (uint8_t)m->build_id_len;
		memcpy(b + 4, m->build_id, m->build_id_len);
		rec_put(r, b, sizeof b);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		rec_u32x2(r, m->maj, m->min);
		rec_u64(r, m->ino);
		rec_u64(r, m->ino_generation);
	}
	rec_u32x2(r, m->prot, m->flags);
	rec_str(r, m->filename);
	rec_sample_id(w, r, sid);
	int rc = rec_emit(w, r, PERF_RECORD_MMAP2, misc);
	free(r);
	return rc;
}

int spgo_pw_sample(struct spgo_perf_writer *w, int attr_index, const struct spgo_pw_sample *s)
{
	if (pw_start(w) < 0)
		return -1;
	if (attr_index < 0 || (size_t)attr_index >= w->attrs.n)
		return spgo_error("%s: sample of unknown attr %d", w->out.path, attr_index);
	const struct perf_event_attr *a = &w->attrs.v[attr_index].attr;
	uint64_t t = a->sample_type;
	const uint64_t known = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT |
			       PERF_SAMPLE_DATA_SRC;
	if (t & ~known)
		return spgo_error("%s: sample_type 0x%llx has fields the writer cannot encode",
				  w->out.path, (unsigned long long)t);
	size_t need = 16 * 8 + 8 * s->nr_callchain + sizeof(struct perf_branch_entry) * s->nr_branches;
	if (need > 65535)
		return spgo_error("%s: sample too large (%zu bytes)", w->out.path, need);
	struct rec *r = rec_new();
	if (t & PERF_SAMPLE_IDENTIFIER)
		rec_u64(r, s->id);
	if (t & PERF_SAMPLE_IP)
		rec_u64(r, s->ip);
	if (t & PERF_SAMPLE_TID)
		rec_u32x2(r, s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		rec_u64(r, s->time);
	if (t & PERF_SAMPLE_ADDR)
		rec_u64(r, s->addr);
	if (t & PERF_SAMPLE_ID)
		rec_u64(r, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rec_u64(r, s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		rec_u32x2(r, s->cpu, 0);
	if (t & PERF_SAMPLE_PERIOD)
		rec_u64(r, s->period);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		rec_u64(r, s->nr_callchain);
		rec_put(r, s->callchain, 8 * s->nr_callchain);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		rec_u64(r, s->nr_branches);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			rec_u64(r, s->hw_idx);
		rec_put(r, s->branches, sizeof(struct perf_branch_entry) * s->nr_branches);
	}
	if (t & PERF_SAMPLE_WEIGHT)
		rec_u64(r, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		rec_u64(r, s->data_src);
	int rc = rec_emit(w, r, PERF_RECORD_SAMPLE, s->misc ? s->misc : PERF_RECORD_MISC_USER);
	free(r);
	return rc;
}

/* ---- features --------------------------------------------------------------- */

int spgo_pw_feature_raw(struct spgo_perf_writer *w, unsigned feat, const void *data, size_t size)
{
	if (feat == 0 || feat >= SPGO_PW_FEAT_MAX)
		return spgo_error("%s: bad perf.data feature number %u", w->out.path, feat);
	struct pw_feature *f = &w->feat[feat];
	free(f->data);
	f->data = size ? xmalloc(size) : NULL;
	if (size)
		memcpy(f->data, data, size);
	f->size = size;
	f->set = 1;
	return 0;
}

/* perf's "struct perf_header_string": u32 len (padded), then the bytes. */
static void put_header_string(struct bytes *v, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;
	uint32_t padded = (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	VEC_GROW(v, v->n + 4 + padded);
	memcpy(v->v + v->n, &padded, 4);
	memset(v->v + v->n + 4, 0, padded);
	memcpy(v->v + v->n + 4, s, len);
	v->n += 4 + padded;
}

static void put_bytes(struct bytes *v, const void *p, size_t n)
{
	if (!n)
		return;
	VEC_GROW(v, v->n + n);
	memcpy(v->v + v->n, p, n);
	v->n += n;
}

int spgo_pw_feature_string(struct spgo_perf_writer *w, enum spgo_pw_feature feat, const char *s)
{
	struct bytes v = {0};
	put_header_string(&v, s);
	int rc = spgo_pw_feature_raw(w, feat, v.v, v.n);
	VEC_FREE(&v);
	return rc;
}

int spgo_pw_cmdline(struct spgo_perf_writer *w, int argc, char *const *argv)
{
	struct bytes v = {0};
	uint32_t n = (uint32_t)argc;
	put_bytes(&v, &n, 4);
	for (int i = 0; i < argc; i++)
		put_header_string(&v, argv[i]);
	int rc = spgo_pw_feature_raw(w, SPGO_PW_FEAT_CMDLINE, v.v, v.n);
	VEC_FREE(&v);
	return rc;
}

int spgo_pw_nrcpus(struct spgo_perf_writer *w, uint32_t avail, uint32_t online)
{
	uint32_t v[2] = {avail, online};
	return spgo_pw_feature_raw(w, SPGO_PW_FEAT_NRCPUS, v, sizeof v);
}

int spgo_pw_build_id(struct spgo_perf_writer *w, int32_t pid, uint16_t misc, const uint8_t *id,
		     size_t len, const char *filename)
{
	if (len > BUILD_ID_MAX)
		return spgo_error("%s: build-id longer than %d bytes", w->out.path, BUILD_ID_MAX);
	/* struct build_id_event: header, pid, build_id[24] (20 bytes, size, 3
	 * reserved), filename padded to NAME_ALIGN. */
	size_t flen = strlen(filename) + 1;
	size_t fpad = (flen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	struct perf_event_header h = {
		.type = 0,
		.misc = (uint16_t)(misc | (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */),
		.size = (uint16_t)(sizeof h + 4 + 24 + fpad),
	};
	uint8_t bid[24] = {0};
	if (len)
		memcpy(bid, id, len);
	bid[20] = (uint8_t)len;
	put_bytes(&w->build_ids, &h, sizeof h);
	put_bytes(&w->build_ids, &pid, 4);
	put_bytes(&w->build_ids, bid, sizeof bid);
	VEC_GROW(&w->build_ids, w->build_ids.n + fpad);
	memset(w->build_ids.v + w->build_ids.n, 0, fpad);
	memcpy(w->build_ids.v + w->build_ids.n, filename, flen);
	w->build_ids.n += fpad;
	w->feat[SPGO_PW_FEAT_BUILD_ID].set = 1;
	return 0;
}

/* HEADER_EVENT_DESC: nr, attr size, then per attr: attr, nr_ids, name, ids. */
static void build_event_desc(struct spgo_perf_writer *w)
{
	for (size_t i = 0; i < w->attrs.n; i++)
		if (!w->attrs.v[i].name)
			return;
	struct bytes v = {0};
	uint32_t nr = (uint32_t)w->attrs.n, sz = w->attr_size;
	put_bytes(&v, &nr, 4);
	put_bytes(&v, &sz, 4);
	for (size_t i = 0; i < w->attrs.n; i++) {
		struct pw_attr *a = &w->attrs.v[i];
		uint32_t nids = (uint32_t)a->n_ids;
		put_bytes(&v, &a->attr, sz);
		put_bytes(&v, &nids, 4);
		put_header_string(&v, a->name);
		put_bytes(&v, a->ids, a->n_ids * 8);
	}
	spgo_pw_feature_raw(w, SPGO_PW_FEAT_EVENT_DESC, v.v, v.n);
	VEC_FREE(&v);
}

static void pw_free(struct spgo_perf_writer *w)
{
	for (size_t i = 0; i < w->attrs.n; i++) {
		free(w->attrs.v[i].name);
		free(w->attrs.v[i].ids);
	}
	VEC_FREE(&w->attrs);
	for (unsigned f = 0; f < SPGO_PW_FEAT_MAX; f++)
		free(w->feat[f].data);
	VEC_FREE(&w->build_ids);
	free(w);
}

int spgo_pw_commit(struct spgo_perf_writer *w)
{
	if (pw_start(w) < 0)
		goto fail;
	if (w->feat[SPGO_PW_FEAT_BUILD_ID].set && !w->feat[SPGO_PW_FEAT_BUILD_ID].data)
		spgo_pw_feature_raw(w, SPGO_PW_FEAT_BUILD_ID, w->build_ids.v, w->build_ids.n);
	if (!w->feat[SPGO_PW_FEAT_EVENT_DESC].set)
		build_event_desc(w);

	struct file_header h = {
		.magic = PERF_MAGIC2,
		.size = sizeof h,
		.attr_size = w->attr_size + sizeof(struct file_section),
		.attrs = {w->data_offset - w->attrs.n * (w->attr_size + sizeof(struct file_section)),
			  w->attrs.n * (w->attr_size + sizeof(struct file_section))},
		.data = {w->data_offset, w->data_size},
	};
	/* Feature table (one section per set bit, in bit order), then payloads. */
	size_t nfeat = 0;
	for (unsigned f = 0; f < SPGO_PW_FEAT_MAX; f++)
		if (w->feat[f].set) {
			h.adds_features[f / 64] |= 1ULL << (f % 64);
			nfeat++;
		}
	uint64_t off = w->data_offset + w->data_size + nfeat * sizeof(struct file_section);
	for (unsigned f = 0; f < SPGO_PW_FEAT_MAX; f++)
		if (w->feat[f].set) {
			struct file_section s = {off, w->feat[f].size};
			if (pw_write(w, &s, sizeof s) < 0)
				goto fail;
			off += w->feat[f].size;
		}
	for (unsigned f = 0; f < SPGO_PW_FEAT_MAX; f++)
		if (w->feat[f].set && pw_write(w, w->feat[f].data, w->feat[f].size) < 0)
			goto fail;
	if (fflush(w->out.fp) != 0 || fseek(w->out.fp, 0, SEEK_SET) != 0) {
		spgo_error("%s: write failed: %s", w->out.path, strerror(errno));
		goto fail;
	}
	if (pw_write(w, &h, sizeof h) < 0)
		goto fail;
	int rc = spgo_out_commit(&w->out);
	pw_free(w);
	return rc;
fail:
	spgo_out_abort(&w->out);
	pw_free(w);
	return -1;
}

void spgo_pw_abort(struct spgo_perf_writer *w)
{
	if (!w)
		return;
	spgo_out_abort(&w->out);
	pw_free(w);
}
