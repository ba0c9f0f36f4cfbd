/*
 * llvm-profgen's --skip-symbolization of LBR samples with call stacks (see
 * spgo/context.h): after unwinding, each trie frame's ranges and branches
 * under the key of its context, as llvm-profgen 19's
 * writeUnsymbolizedProfile keys its sample counters:
 *  - a binary with pseudo-probes (the trie keeps ranges on the frame of the
 *    leaf's call sites): the call-site addresses root first, as offsets
 *    from the preferred base, "0x347 @ 0x37c" (AddressStack: recursion
 *    compressed, --csprof-max-context-depth applied; tail-call frames are
 *    inferred later, when a profile is made);
 *  - DWARF lines: the context text of the profile (profile.c), "main:12 @
 *    compile:6 @ next", the leaf without a location;
 *  - "" (written "[]") for the root: samples without a caller context.
 * Frames with equal keys add up.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"

typedef VEC(uint64_t) addr_vec;
typedef VEC(char) char_vec;

/* The probe-build key of node x into *buf (its call sites, root first). */
static void probe_key(const struct spgo_cs_trie *t, uint32_t x, uint64_t base, const struct spgo_cs_opts *o,
		      addr_vec *addrs, char_vec *buf)
{
	addrs->n = 0;
	for (uint32_t y = x; y != SPGO_CS_ROOT; y = t->nodes.v[y].parent) {
		uint64_t a = t->nodes.v[y].addr;
		if (a == SPGO_AGG_EXTERNAL)
			break;
		VEC_PUSH(addrs, a);
	}
	size_t n = addrs->n;
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t a = addrs->v[i];
		addrs->v[i] = addrs->v[n - 1 - i];
		addrs->v[n - 1 - i] = a;
	}
	n = spgo_cs_compress(addrs->v, n, sizeof *addrs->v, o->compress_recursion);
	n = cs_trim_depth(addrs->v, n, sizeof *addrs->v, o->max_context_depth);
	buf->n = 0;
	for (size_t i = 0; i < n; i++) {
		char one[32];
		int len = snprintf(one, sizeof one, "%s0x%" PRIx64, i ? " @ " : "", addrs->v[i] - base);
		VEC_GROW(buf, buf->n + (size_t)len + 1);
		for (int k = 0; k < len; k++)
			buf->v[buf->n++] = one[k];
	}
	VEC_GROW(buf, buf->n + 1);
	buf->v[buf->n] = '\0';
}

void cs_unsym_contexts(struct spgo_binary *bin, struct spgo_cs_code *code, struct spgo_cs_trie *trie,
		       const struct spgo_cs_opts *o, struct spgo_cs_stats *st, int probes,
		       struct spgo_unsym_bin *s)
{
	const uint64_t base = s->base, ext = 1 - base;
	char **keys = probes ? xcalloc(trie->nodes.n, sizeof *keys) : cs_line_keys(bin, code, trie, o, st);
	addr_vec addrs = {0};
	char_vec buf = {0};
	const struct spgo_kmap *m[2] = {&trie->ranges, &trie->branches};
	const uint64_t *key;
	uint64_t *val;
	for (int k = 0; k < 2; k++)
		for (size_t it = 0; spgo_kmap_next(m[k], &it, &key, &val);) {
			uint32_t x = (uint32_t)key[0];
			if (!keys[x]) {
				probe_key(trie, x, base, o, &addrs, &buf);
				keys[x] = xstrdup(buf.v);
			}
			struct spgo_unsym_ctx *c = spgo_unsym_context(s, keys[x], strlen(keys[x]));
			uint64_t off[2];
			for (int e = 0; e < 2; e++)
				off[e] = key[1 + e] == SPGO_AGG_EXTERNAL ? ext : key[1 + e] - base;
			*spgo_kmap_upsert(k ? &c->branches : &c->ranges, off) += *val;
		}
	for (size_t i = 0; i < trie->nodes.n; i++)
		free(keys[i]);
	free(keys);
	VEC_FREE(&addrs);
	VEC_FREE(&buf);
}

/* ---- the other way: contexts read back into the trie -------------------------------- */

/* A probe build's key "0x347 @ 0x37c" (frames may carry "BUILDID:") as
 * trie frames under the root: the node of its last call site (the root for
 * ""); a frame of another build-id is external, the context starts below
 * it.  -1 when the key is not call-site offsets. */
static long probe_node(struct spgo_cs_trie *t, const struct spgo_unsym_bin *s, uint64_t base, const char *key)
{
	uint32_t node = SPGO_CS_ROOT;
	const char *p = key;
	while (*p) {
		const char *colon = strchr(p, ':'), *at = strstr(p, " @ ");
		int other = 0;
		if (colon && (!at || colon < at)) {
			other = !*s->build_id || (size_t)(colon - p) != strlen(s->build_id) ||
				strncasecmp(p, s->build_id, (size_t)(colon - p));
			p = colon + 1;
		}
		if (p[0] != '0' || p[1] != 'x')
			return -1;
		char *end;
		uint64_t off = strtoull(p + 2, &end, 16);
		if (end == p + 2 || (*end && strncmp(end, " @ ", 3)))
			return -1;
		node = other ? SPGO_CS_ROOT : cs_trie_child(t, node, off + base);
		p = *end ? end + 3 : end;
	}
	return node;
}

/* A node of its own for a DWARF build's context text key (the root for ""). */
static long dwarf_node(struct spgo_cs_trie *t, const struct spgo_unsym_ctx *c, uint64_t base)
{
	if (!*c->key)
		return SPGO_CS_ROOT;
	if (!strncmp(c->key, "0x", 2))
		return -1; /* call-site offsets: a probe build's */
	/* the frame's address, for what asks one: where its first range or
	 * branch starts */
	uint64_t addr = 0;
	const uint64_t *key;
	uint64_t *val;
	size_t it = 0;
	if (spgo_kmap_next(&c->ranges, &it, &key, &val) || (it = 0, spgo_kmap_next(&c->branches, &it, &key, &val)))
		addr = key[0] + base;
	struct spgo_cs_node nd = {addr, SPGO_CS_ROOT};
	VEC_PUSH(&t->nodes, nd);
	while (t->keys.n < t->nodes.n)
		VEC_PUSH(&t->keys, NULL);
	t->keys.v[t->nodes.n - 1] = xstrdup(c->key);
	t->st->frames++;
	return (long)(t->nodes.n - 1);
}

int cs_trie_add_contexts(struct spgo_cs_trie *t, struct spgo_binary *bin, const struct spgo_unsym_bin *s,
			 int probes)
{
	uint64_t base = s->has_base ? s->base : spgo_unsym_base(bin), ext = 1 - base;
	for (size_t i = 0; i < s->ctxs.n; i++) {
		const struct spgo_unsym_ctx *c = &s->ctxs.v[i];
		long node = probes ? probe_node(t, s, base, c->key) : dwarf_node(t, c, base);
		if (node < 0)
			return spgo_error("%s: the unsymbolized context [%.80s] is not of this binary's kind: "
					  "%s (a file of %s build?)",
					  spgo_binary_path(bin), c->key,
					  probes ? "a build with pseudo-probes has call-site offsets "
						   "(\"0x347 @ 0x37c\")"
						 : "a DWARF build has symbolized frames (\"main:12 @ foo\")",
					  probes ? "a DWARF" : "a probe");
		const struct spgo_kmap *m[2] = {&c->ranges, &c->branches};
		const uint64_t *key;
		uint64_t *val;
		for (int k = 0; k < 2; k++)
			for (size_t it = 0; spgo_kmap_next(m[k], &it, &key, &val);) {
				uint64_t row[3] = {(uint64_t)node, 0, 0};
				for (int e = 0; e < 2; e++)
					row[1 + e] = key[e] == ext || key[e] == UINT64_MAX ? SPGO_AGG_EXTERNAL
											 : key[e] + base;
				if (!k && (row[1] == SPGO_AGG_EXTERNAL || row[2] == SPGO_AGG_EXTERNAL))
					continue;
				uint64_t *slot = spgo_kmap_upsert(k ? &t->branches : &t->ranges, row);
				*slot = *slot + *val < *slot ? UINT64_MAX : *slot + *val;
			}
	}
	return 0;
}
