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
