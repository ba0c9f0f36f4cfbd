/*
 * harness.h: the unit-test harness.  A test file defines test functions,
 * lists them in main() with RUN(), and ends with DONE(), which prints
 * "N passed, N failed" and returns non-zero on any failure.  CHECK() records a
 * failure and goes on; REQUIRE() records it and leaves the test function.
 */
#ifndef SPGO_TEST_HARNESS_H
#define SPGO_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_checks, t_tests_passed, t_tests_failed, t_cur_failed;

#define CHECK(cond)                                                                \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,     \
				__LINE__, #cond);                                  \
			t_failed_checks++;                                         \
			t_cur_failed = 1;                                          \
		}                                                                  \
	} while (0)
#define REQUIRE(cond)                                                              \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                  \
			t_failed_checks++;                                         \
			t_cur_failed = 1;                                          \
			return;                                                    \
		}                                                                  \
	} while (0)
#define CHECK_EQ_U64(a, b)                                                         \
	do {                                                                       \
		uint64_t a_ = (a), b_ = (b);                                       \
		if (a_ != b_) {                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64         \
				" != %" PRIu64 "\n", __FILE__, __LINE__, #a, #b,   \
				a_, b_);                                           \
			t_failed_checks++;                                         \
			t_cur_failed = 1;                                          \
		}                                                                  \
	} while (0)
#define CHECK_STREQ(a, b)                                                          \
	do {                                                                       \
		const char *a_ = (a), *b_ = (b);                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                           \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",\
				__FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)",    \
				b_ ? b_ : "(null)");                               \
			t_failed_checks++;                                         \
			t_cur_failed = 1;                                          \
		}                                                                  \
	} while (0)
#define RUN(fn)                                                                    \
	do {                                                                       \
		t_cur_failed = 0;                                                  \
		fn();                                                              \
		if (t_cur_failed) {                                                \
			t_tests_failed++;                                          \
			fprintf(stderr, "FAIL %s\n", #fn);                         \
		} else {                                                           \
			t_tests_passed++;                                          \
		}                                                                  \
	} while (0)
#define DONE()                                                                     \
	do {                                                                       \
		printf("%d passed, %d failed\n", t_tests_passed, t_tests_failed);  \
		return t_tests_failed ? 1 : 0;                                     \
	} while (0)

/* The shared data folder (../shared next to the source tree), or NULL
 * when it is not there (a clone on its own): the tests that need it say
 * once that they skip. */
static inline const char *test_shared(void)
{
	static int said;
	const char *s = getenv("SPGO_SHARED");
	char probe[4096];
	snprintf(probe, sizeof probe, "%s/data", s ? s : "");
	if (s && access(probe, R_OK) == 0)
		return s;
	if (!said++)
		printf("skip: the shared real captures (%s) are not there; their checks are skipped\n",
		       s ? probe : "SPGO_SHARED unset");
	return NULL;
}

#endif
