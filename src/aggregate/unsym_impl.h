/*
 * Unsymbolized profiles, private to src/aggregate: what the model
 * (unsym.c) shares with the readers and writers of the binary form
 * (unsym_bin.c) and the text forms (unsym_text.c).
 */
#ifndef SPGO_UNSYM_IMPL_H
#define SPGO_UNSYM_IMPL_H

#include <stdio.h>

#include "spgo/unsym.h"

#define MAGIC "SPGO-UNS"
#define MAGIC_LEN 8
#define VERSION 1
#define VERSION_CTX 2 /* written when a section has contexts: their list ends it */
#define MAX_CTX_KEY (1u << 20)
#define MAX_STR 4096
#define MAX_WORDS (1u << 16) /* frames + 2 x branches of one stack sample */
#define TEXT_HEAD "# spgo-unsymbolized"
/* newer llvm-profgen's (--basic-events): "# llvm-profgen-content: basic-event" */
#define PROFGEN_CONTENT "# llvm-profgen-content:"

/* The model (unsym.c). */
struct spgo_unsym_event *unsym_event_named(struct spgo_unsym_bin *s, const char *name);
int unsym_set_base(struct spgo_unsym_bin *s, uint64_t base, const char *where);
/* Sorted views every writer goes through; the caller frees the array. */
struct spgo_unsym_bin **unsym_sorted_bins(const struct spgo_unsym *u);
struct spgo_unsym_event **unsym_sorted_events(const struct spgo_unsym_bin *s);
size_t *unsym_sorted_stacks(const struct spgo_unsym_bin *s);
int unsym_str_ok(const char *s, size_t n);

/* Contexts (unsym_ctx.c): a key the text forms can carry (no control
 * bytes); the contexts sorted by key (the caller frees the array); freed;
 * trimmed as the other maps. */
int unsym_ctx_key_ok(const char *key, size_t len);
struct spgo_unsym_ctx **unsym_sorted_ctxs(const struct spgo_unsym_bin *s);
void unsym_ctxs_free(struct spgo_unsym_bin *s);
uint64_t unsym_ctxs_trim(struct spgo_unsym_bin *s, uint64_t (*trim)(struct spgo_kmap *, double), double eps);
int unsym_hex_id(const char *id);

/* The binary form (unsym_bin.c). */
int unsym_read_bin(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
		   uint64_t weight);
void unsym_write_bin(FILE *fp, struct spgo_unsym_bin *const *bins, size_t n);

/* The text forms (unsym_text.c): spgo's, and llvm-profgen's when profgen. */
int unsym_read_text(struct spgo_unsym *u, const char *name, const uint8_t *data, size_t size,
		    uint64_t weight);
void unsym_write_text(FILE *fp, const struct spgo_unsym_bin *s, int profgen);

#endif
