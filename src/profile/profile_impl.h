/* Internal to src/profile: constants and helpers shared by the readers,
 * writers and transformations of profiles. */
#ifndef SPGO_PROFILE_IMPL_H
#define SPGO_PROFILE_IMPL_H

#include <stdint.h>

#include "spgo/common.h"
#include "spgo/profile.h"

/* LLVM's SPMagic(SPF_Ext_Binary) and SPVersion(). */
#define SPGO_EXTBIN_MAGIC 0x5350524f46343204ULL
#define SPGO_EXTBIN_VERSION 103

/* One frame of a calling context "main:12 @ bar:3.1 @ foo": the function's
 * name id and the call site in it (line, discriminator; 0 for the leaf). */
struct spgo_ctx_frame {
	uint32_t name, line, disc;
};
typedef VEC(struct spgo_ctx_frame) spgo_ctx_frames;
/* Split a context into its frames, outermost first, names interned in p;
 * -1 (spgo_error) for a frame without a well-formed location. */
int spgo_ctx_split(struct spgo_profile *p, const char *ctx, spgo_ctx_frames *out);
/* LLVM's order of CS contexts (SampleContext::operator<) on their texts:
 * frame by frame, the name (as strings), then the location as numbers
 * (line, discriminator); a prefix first.  <0, 0, >0 as strcmp. */
int spgo_ctx_cmp(const char *a, const char *b);
/* One frame of a context text at *s: its name [*s, *name_end) and call
 * site (0, 0 for the leaf); *s moves past it and its " @ " (to the
 * terminating NUL after the leaf). */
void spgo_ctx_next_frame(const char **s, const char **name_end, unsigned long *line,
			 unsigned long *disc);

/* spgo_callsite_hash of a name given as a string of len bytes. */
uint64_t spgo_callsite_hash_str(const char *s, size_t len, uint32_t line, uint32_t disc);

/* LLVM 19's hash_combine_range over n 64-bit values (a context's key in a
 * SampleProfileMap: the frames' hash codes). */
uint64_t spgo_llvm_hash_u64s(const uint64_t *v, size_t n);

/* A libstdc++ std::unordered_map keyed by 64-bit integers, kept only for
 * its iteration order (llvm_map.c).  Node 0 is the list head. */
struct spgo_map_node {
	uint64_t key;
	uint32_t next, tag;
};
struct spgo_map {
	VEC(struct spgo_map_node) nodes;
	uint32_t *bkt; /* bucket -> node before its first node, or UINT32_MAX */
	size_t nbkt, count;
};
void spgo_map_init(struct spgo_map *m);
void spgo_map_free(struct spgo_map *m);
/* 1 inserted, 0 the key was there, -1 beyond the bucket counts known. */
int spgo_map_insert(struct spgo_map *m, uint64_t key, uint32_t tag);
void spgo_map_erase(struct spgo_map *m, uint64_t key);
int spgo_map_has(const struct spgo_map *m, uint64_t key);
/* A fresh map m made the map whose nodes iterate as keys[0..n) (tags
 * SPGO_NONE) over nbkt buckets: a libstdc++ map's whole state. */
void spgo_map_restore(struct spgo_map *m, const uint64_t *keys, size_t n, size_t nbkt);
/* The nodes in iteration order: first, next; UINT32_MAX at the end. */
uint32_t spgo_map_first(const struct spgo_map *m);
uint32_t spgo_map_next(const struct spgo_map *m, uint32_t node);

/* GCC's gcov tags for AutoFDO profiles. */
#define SPGO_GCOV_MAGIC 0x67636461u /* "gcda" */
#define SPGO_GCOV_TAG_NAMES 0xaa000000u
#define SPGO_GCOV_TAG_FUNCTION 0xac000000u
#define SPGO_GCOV_TAG_MODULE 0xae000000u
#define SPGO_GCOV_TAG_WORKING_SET 0xaf000000u
#define SPGO_GCOV_VERSION_AUTOFDO 0x3430372au /* "*704", what autofdo tools use */

/* A count read from a file, times the profile's read weight (saturating). */
static inline uint64_t spgo_wcount(uint64_t w, uint64_t c)
{
	if (w == 1)
		return c;
	if (c && w > UINT64_MAX / c)
		return UINT64_MAX;
	return c * w;
}

#endif
