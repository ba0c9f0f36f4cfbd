/*
 * Unsymbolized profiles: unwound contexts (spgo/unsym.h), llvm-profgen's
 * "[context]" blocks of --skip-symbolization on data with call stacks.
 * Each section keeps them by key, each with its ranges and branches.
 */
#include <stdlib.h>
#include <string.h>

#include "unsym_impl.h"

int unsym_ctx_key_ok(const char *key, size_t len)
{
	if (len > MAX_CTX_KEY)
		return 0;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
			return 0;
	return 1;
}

struct spgo_unsym_ctx *spgo_unsym_context(struct spgo_unsym_bin *s, const char *key, size_t len)
{
	if (!s->ctx_index.kw)
		spgo_kmap_init(&s->ctx_index, 2);
	uint64_t h = spgo_hash_bytes(key, len);
	for (uint64_t salt = 0;; salt++) {
		uint64_t k[2] = {h, salt};
		uint64_t *v = spgo_kmap_find(&s->ctx_index, k);
		if (!v) {
			*spgo_kmap_upsert(&s->ctx_index, k) = s->ctxs.n;
			struct spgo_unsym_ctx c = {xstrndup(key, len), {0}, {0}};
			spgo_kmap_init(&c.ranges, 2);
			spgo_kmap_init(&c.branches, 2);
			VEC_PUSH(&s->ctxs, c);
			s->kinds |= SPGO_UNSYM_CTX;
			return &s->ctxs.v[s->ctxs.n - 1];
		}
		struct spgo_unsym_ctx *c = &s->ctxs.v[*v];
		if (strlen(c->key) == len && !memcmp(c->key, key, len))
			return c;
	}
}

static int cmp_ctx(const void *x, const void *y)
{
	const struct spgo_unsym_ctx *a = *(const struct spgo_unsym_ctx *const *)x;
	const struct spgo_unsym_ctx *b = *(const struct spgo_unsym_ctx *const *)y;
	return strcmp(a->key, b->key); /* (bytes as unsigned char: llvm-profgen's std::map order) */
}

struct spgo_unsym_ctx **unsym_sorted_ctxs(const struct spgo_unsym_bin *s)
{
	struct spgo_unsym_ctx **v = xmalloc((s->ctxs.n + 1) * sizeof *v);
	for (size_t i = 0; i < s->ctxs.n; i++)
		v[i] = &s->ctxs.v[i];
	spgo_sort(v, s->ctxs.n, sizeof *v, cmp_ctx);
	return v;
}

void unsym_ctxs_free(struct spgo_unsym_bin *s)
{
	for (size_t i = 0; i < s->ctxs.n; i++) {
		free(s->ctxs.v[i].key);
		spgo_kmap_free(&s->ctxs.v[i].ranges);
		spgo_kmap_free(&s->ctxs.v[i].branches);
	}
	VEC_FREE(&s->ctxs);
	spgo_kmap_free(&s->ctx_index);
}

uint64_t unsym_ctxs_trim(struct spgo_unsym_bin *s, uint64_t (*trim)(struct spgo_kmap *, double), double eps)
{
	uint64_t dropped = 0;
	for (size_t i = 0; i < s->ctxs.n; i++)
		dropped += trim(&s->ctxs.v[i].ranges, eps) + trim(&s->ctxs.v[i].branches, eps);
	return dropped;
}
