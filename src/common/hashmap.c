/* Fixed-key open-addressing hash map and string interning: see spgo/common.h. */
#include "spgo/common.h"

#include <stdlib.h>
#include <string.h>

uint64_t spgo_hash_bytes(const void *p, size_t n)
{
	/* FNV-1a over bytes, finished with the 64-bit mixer. */
	const uint8_t *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return spgo_hash64(h);
}

static uint64_t key_hash(const uint64_t *key, unsigned kw)
{
	uint64_t h = 0;
	for (unsigned i = 0; i < kw; i++)
		h = spgo_hash64(h ^ key[i]) + i;
	return h;
}

void spgo_kmap_init(struct spgo_kmap *m, unsigned key_words)
{
	memset(m, 0, sizeof *m);
	m->kw = key_words;
}

void spgo_kmap_free(struct spgo_kmap *m)
{
	free(m->slots);
	free(m->used);
	unsigned kw = m->kw;
	memset(m, 0, sizeof *m);
	m->kw = kw;
}

static size_t probe(const struct spgo_kmap *m, const uint64_t *key)
{
	size_t mask = m->cap - 1, i = key_hash(key, m->kw) & mask;
	size_t row = m->kw + 1;
	unsigned kw = m->kw;
	for (;; i = (i + 1) & mask) {
		if (!m->used[i])
			return i;
		const uint64_t *k = &m->slots[i * row];
		unsigned w = 0;
		while (w < kw && k[w] == key[w]) /* (no memcmp call: keys are 1-3 words) */
			w++;
		if (w == kw)
			return i;
	}
}

static void grow(struct spgo_kmap *m)
{
	struct spgo_kmap old = *m;
	size_t row = m->kw + 1;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = xmalloc(m->cap * row * sizeof(uint64_t));
	m->used = xcalloc(m->cap, 1);
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.used[i])
			continue;
		size_t j = probe(m, &old.slots[i * row]);
		memcpy(&m->slots[j * row], &old.slots[i * row], row * 8);
		m->used[j] = 1;
	}
	free(old.slots);
	free(old.used);
}

uint64_t *spgo_kmap_upsert(struct spgo_kmap *m, const uint64_t *key)
{
	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	size_t row = m->kw + 1, i = probe(m, key);
	uint64_t *slot = &m->slots[i * row];
	if (!m->used[i]) {
		m->used[i] = 1;
		memcpy(slot, key, m->kw * 8);
		slot[m->kw] = 0;
		m->n++;
	}
	return &slot[m->kw];
}

uint64_t *spgo_kmap_find(const struct spgo_kmap *m, const uint64_t *key)
{
	if (!m->cap)
		return NULL;
	size_t i = probe(m, key);
	return m->used[i] ? &m->slots[i * (m->kw + 1) + m->kw] : NULL;
}

int spgo_kmap_next(const struct spgo_kmap *m, size_t *iter, const uint64_t **key, uint64_t **val)
{
	size_t row = m->kw + 1;
	for (size_t i = *iter; i < m->cap; i++) {
		if (m->used[i]) {
			*key = &m->slots[i * row];
			*val = &m->slots[i * row + m->kw];
			*iter = i + 1;
			return 1;
		}
	}
	*iter = m->cap;
	return 0;
}

static _Thread_local unsigned sort_kw;
static int cmp_rows(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	for (unsigned i = 0; i < sort_kw; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

uint64_t *spgo_kmap_sorted(const struct spgo_kmap *m)
{
	size_t row = m->kw + 1, k = 0;
	uint64_t *out = xmalloc((m->n ? m->n : 1) * row * 8);
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			memcpy(&out[k++ * row], &m->slots[i * row], row * 8);
	sort_kw = m->kw;
	spgo_sort(out, m->n, row * 8, cmp_rows);
	return out;
}

void spgo_strtab_init(struct spgo_strtab *t)
{
	memset(t, 0, sizeof *t);
	spgo_kmap_init(&t->index, 1);
}

void spgo_strtab_free(struct spgo_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->next);
	spgo_kmap_free(&t->index);
	memset(t, 0, sizeof *t);
}

uint32_t spgo_strtab_intern(struct spgo_strtab *t, const char *s, size_t len)
{
	uint64_t h = spgo_hash_bytes(s, len);
	uint64_t *head = spgo_kmap_upsert(&t->index, &h);
	for (uint64_t id1 = *head; id1; id1 = t->next[id1 - 1]) {
		const char *c = t->strs[id1 - 1];
		if (strncmp(c, s, len) == 0 && c[len] == 0)
			return (uint32_t)(id1 - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
		t->next = xrealloc(t->next, t->cap * sizeof *t->next);
	}
	uint32_t id = (uint32_t)t->n++;
	t->strs[id] = xstrndup(s, len);
	t->next[id] = (uint32_t)*head;
	*head = (uint64_t)id + 1;
	return id;
}
