/*
 * spgo/common.h: the few things every stage of spgo shares.
 *
 * Contract
 *  - Errors.  A library function that can fail returns a negative value (or
 *    NULL) after calling spgo_error() with one line that names the file and,
 *    where there is one, the byte offset or line: "FILE: offset 0x1a2b: what".
 *    The message is kept per thread and read back with spgo_errmsg(); the
 *    command line prints it as "spgo: <message>" and exits non-zero.  Library
 *    code never prints errors itself and never exits, except on out-of-memory.
 *  - Warnings go through spgo_warn(), which prints "spgo: warning: ..." to
 *    stderr unless spgo_quiet is set.
 *  - Memory.  xmalloc/xcalloc/xrealloc/xstrdup abort with a message when the
 *    system is out of memory; nothing else in spgo checks for NULL from them.
 *  - Output files are written to a temporary file beside the target and
 *    renamed into place only when complete (spgo_out_*), so a failed run never
 *    leaves a half-written profile; devices, FIFOs and the shell's
 *    descriptors are written in place, never replaced.
 */
#ifndef SPGO_COMMON_H
#define SPGO_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define SPGO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SPGO_NORETURN __attribute__((noreturn))
#define SPGO_LIKELY(x) __builtin_expect(!!(x), 1)
#define SPGO_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* lo = the first index i in [0, n) with arr[i].field >= key, or n: the
 * binary search over the address-sorted tables (arr sorted by field). */
#define SPGO_LOWER_BOUND(lo, arr, n, field, key)                \
	do {                                                    \
		size_t hi_ = (n);                               \
		(lo) = 0;                                       \
		while ((lo) < hi_) {                            \
			size_t mid_ = (lo) + (hi_ - (lo)) / 2;  \
			if ((arr)[mid_].field < (key))          \
				(lo) = mid_ + 1;                \
			else                                    \
				hi_ = mid_;                     \
		}                                               \
	} while (0)
#else
#define SPGO_PRINTF(a, b)
#define SPGO_NORETURN
#define SPGO_LIKELY(x) (x)
#define SPGO_UNLIKELY(x) (x)
#endif

#define SPGO_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors and warnings ---------------------------------------------- */

/* Record the error message of the current thread; always returns -1. */
int spgo_error(const char *fmt, ...) SPGO_PRINTF(1, 2);
int spgo_verror(const char *fmt, va_list ap);
/* The last message recorded by spgo_error() on this thread ("" if none). */
const char *spgo_errmsg(void);
/* Print "spgo: warning: ..." to stderr (unless spgo_quiet). */
void spgo_warn(const char *fmt, ...) SPGO_PRINTF(1, 2);
/* Print "spgo: ..." to stderr when spgo_verbose is set. */
void spgo_info(const char *fmt, ...) SPGO_PRINTF(1, 2);
/* Print "spgo: <message>" and exit(1); for the command line only. */
SPGO_NORETURN void spgo_die(const char *fmt, ...) SPGO_PRINTF(1, 2);

extern int spgo_quiet;   /* suppress warnings */
extern int spgo_verbose; /* print spgo_info() messages */

/* ---- memory ------------------------------------------------------------ */

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) SPGO_PRINTF(1, 2);
/*
 * Grow malloc's heap by about `bytes` now and ask the kernel to back it with
 * transparent huge pages: far fewer page faults for a command about to
 * allocate that much in small blocks (libdw loading a large binary's DWARF).
 * Changes malloc's settings for the whole process (top pad, trim and mmap
 * thresholds, one arena for all threads): for commands to call once at
 * start, never library code.
 */
void spgo_heap_reserve(size_t bytes);

/*
 * Growable arrays: a struct with `T *v; size_t n, cap;`, declared with
 * VEC(T).  VEC_PUSH appends (amortized O(1)); VEC_FREE releases.
 *
 *     VEC(uint64_t) addrs = {0};
 *     VEC_PUSH(&addrs, 0x401000);
 */
#define VEC(T)                                                                 \
	struct {                                                               \
		T *v;                                                          \
		size_t n, cap;                                                 \
	}
#define VEC_GROW(vec, want)                                                    \
	do {                                                                   \
		if ((want) > (vec)->cap) {                                     \
			size_t c_ = (vec)->cap ? (vec)->cap * 2 : 16;          \
			while (c_ < (want))                                    \
				c_ *= 2;                                       \
			(vec)->v = xrealloc((vec)->v, c_ * sizeof(*(vec)->v)); \
			(vec)->cap = c_;                                       \
		}                                                              \
	} while (0)
#define VEC_PUSH(vec, x)                                                       \
	do {                                                                   \
		VEC_GROW((vec), (vec)->n + 1);                                 \
		(vec)->v[(vec)->n++] = (x);                                    \
	} while (0)
#define VEC_FREE(vec)                                                          \
	do {                                                                   \
		free((vec)->v);                                                \
		(vec)->v = NULL;                                               \
		(vec)->n = (vec)->cap = 0;                                     \
	} while (0)

/*
 * qsort for arrays that may be empty: C's qsort must not be given a NULL
 * array even with a count of 0, and an empty VEC's array is NULL.
 */
static inline void spgo_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* ---- hashing and hash maps -------------------------------------------- */

/* A fast 64-bit mixer (not cryptographic), for hash tables. */
static inline uint64_t spgo_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}
uint64_t spgo_hash_bytes(const void *p, size_t n);

/* MD5 (RFC 1321) of data[0, len). */
void spgo_md5(const void *data, size_t len, uint8_t out[16]);
/* LLVM's function GUID of a name: the first 8 bytes of MD5(name) read as a
 * little-endian number (what sample profiles with MD5 names, pseudo-probe
 * records and their descriptors key functions on). */
uint64_t spgo_md5_guid(const char *name, size_t len);
/* The same for a NUL-terminated name. */
uint64_t spgo_guid(const char *name);

/*
 * Open-addressing hash map from a fixed-size key (a whole number of uint64_t
 * words, 1 to 4) to a uint64_t value.  Keys are compared word by word, so
 * callers zero any padding.  The map owns its memory; lookups do not
 * allocate, inserts allocate only when the table grows.  Iteration order is
 * the table order (unspecified); use spgo_kmap_sorted() for a stable order.
 */
struct spgo_kmap {
	uint64_t *slots; /* cap * (kw + 1) words: key words, then value */
	uint8_t *used;   /* cap flags */
	size_t cap, n;
	unsigned kw; /* key width in words */
};
void spgo_kmap_init(struct spgo_kmap *m, unsigned key_words);
void spgo_kmap_free(struct spgo_kmap *m);
/* Pointer to the value of key, inserting it with value 0 if absent. */
uint64_t *spgo_kmap_upsert(struct spgo_kmap *m, const uint64_t *key);
/* Pointer to the value of key, or NULL if absent. */
uint64_t *spgo_kmap_find(const struct spgo_kmap *m, const uint64_t *key);
/* Iterate: for (size_t i = 0; spgo_kmap_next(m, &i, &key, &val);) */
int spgo_kmap_next(const struct spgo_kmap *m, size_t *iter, const uint64_t **key, uint64_t **val);
/* The entries as an array of (kw + 1)-word rows sorted by key; caller frees. */
uint64_t *spgo_kmap_sorted(const struct spgo_kmap *m);

/*
 * String interning: equal strings get the same stable pointer and a dense id.
 * Used for function and file names, which repeat millions of times.
 */
struct spgo_strtab {
	struct spgo_kmap index; /* hash -> chain head id + 1 */
	char **strs;            /* id -> string */
	uint32_t *next;         /* id -> next id with same hash + 1 */
	size_t n, cap;
};
void spgo_strtab_init(struct spgo_strtab *t);
void spgo_strtab_free(struct spgo_strtab *t);
uint32_t spgo_strtab_intern(struct spgo_strtab *t, const char *s, size_t len);
static inline const char *spgo_strtab_get(const struct spgo_strtab *t, uint32_t id)
{
	return t->strs[id];
}

/* ---- files ------------------------------------------------------------- */

/* A whole file mapped read-only (or read, for pipes and small files). */
struct spgo_file {
	const char *path; /* as given; not owned */
	const uint8_t *data;
	size_t size;
	int mapped; /* 1 if data is an mmap, 0 if malloc'd */
};
int spgo_file_map(struct spgo_file *f, const char *path);
void spgo_file_unmap(struct spgo_file *f);
/* A read-only mapping of path (spgo_file_map()'s, the perf reader's): if
 * the file shrinks and a read touches its lost tail (SIGBUS), the run ends
 * with "spgo: PATH: truncated while reading (offset N)", its pending
 * temporary outputs removed, exit status 1.  Untrack before munmap(). */
void spgo_map_track(const void *base, size_t size, const char *path);
void spgo_map_untrack(const void *base);

/*
 * Output written atomically: spgo_out_open() creates "TARGET.tmp.XXXXXX"
 * beside TARGET, which is PATH or, when PATH is a symbolic link, the file
 * the link ends at (or uses stdout for "-"); spgo_out_commit() flushes,
 * checks for write errors and renames it onto TARGET, with the mode and
 * owner of the file it replaces; spgo_out_abort() removes it.  A device, a
 * FIFO, a socket and /dev/stdout, /dev/stderr, /dev/fd/N are never replaced:
 * they are written in place (direct), and a failure there is reported with
 * nothing to remove.
 */
struct spgo_out {
	FILE *fp;
	char *path;    /* as given; NULL for stdout */
	char *tmp;     /* the temporary file, or NULL (stdout, direct) */
	char *target;  /* what tmp is renamed onto */
	int direct;    /* written in place */
	FILE *copy_to; /* spgo_out_seekable(): the direct output fp is copied to */
};
/* Open PATH's output now, before the work, so that an output that cannot be
 * written fails at once; the spgo_out_open() of the same PATH takes it over.
 * A reserved output never opened is removed at exit. */
int spgo_out_reserve(const char *path);
int spgo_out_open(struct spgo_out *o, const char *path);
/* Remove the temporary files of every output not yet committed (async-
 * signal-safe).  spgo_out_open() installs a handler that does this on
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT where their action is the default; a
 * program with handlers of its own calls it from them. */
void spgo_out_remove_pending(void);
/* Any other temporary file (its name buffer must outlive the tracking):
 * removed by that handler too until untracked.  Track before creating it. */
void spgo_tmp_track(char *path);
void spgo_tmp_untrack(const char *path);
/* A writer that seeks (the perf.data header, written last): a direct output
 * that cannot seek (a FIFO, a socket, a terminal) gets fp on a hidden
 * temporary file, copied to it at commit. */
int spgo_out_seekable(struct spgo_out *o);
int spgo_out_commit(struct spgo_out *o);
void spgo_out_abort(struct spgo_out *o);
/* Outputs that go together: after spgo_out_hold(), spgo_out_commit()
 * completes and checks each file but renames none; spgo_out_release(1)
 * renames them all (0, or -1 on the first that fails: the rest are
 * removed), spgo_out_release(0) removes them all.  Outputs written in
 * place (direct) cannot wait: they are written at once. */
void spgo_out_hold(void);
int spgo_out_release(int keep);
/* Do output paths a and b name one file ("./x" and "x", a link and what
 * it names, two hard links), so that one output would replace the
 * other's?  "-" is stdout, one file with itself only. */
int spgo_out_same(const char *a, const char *b);

/* ---- small helpers ----------------------------------------------------- */

/* Parse an unsigned number, decimal or 0x-hex; returns 0 on success. */
int spgo_parse_u64(const char *s, uint64_t *out);
/* Wall clock seconds (monotonic), for progress messages and benchmarks. */
double spgo_now(void);
/* Encode v as unsigned LEB128 at out (room for 10 bytes); the bytes used. */
static inline size_t spgo_uleb_encode(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		out[n++] = c | (v ? 0x80 : 0);
	} while (v);
	return n;
}

#endif
