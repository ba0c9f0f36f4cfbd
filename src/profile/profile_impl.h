/* Internal to src/profile: constants shared by the format readers/writers. */
#ifndef SPGO_PROFILE_IMPL_H
#define SPGO_PROFILE_IMPL_H

#include <stdint.h>

/* LLVM's SPMagic(SPF_Ext_Binary) and SPVersion(). */
#define SPGO_EXTBIN_MAGIC 0x5350524f46343204ULL
#define SPGO_EXTBIN_VERSION 103

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
