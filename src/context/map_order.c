/*
 * The order of a flat CS profile's top-level profiles in llvm-profgen-19's
 * output.  llvm-profgen keeps the profiles in a SampleProfileMap, a
 * std::unordered_map keyed by each context's hash, and its extbinary
 * writer emits the function metadata section (checksums, context
 * attributes) by walking that map, while the profiles themselves are
 * written sorted.  For the same bytes as llvm-profgen, spgo replays the
 * map's insertions and erasures as CSProfileGenerator makes them
 * (convertToProfileMap from the context trie, the SampleContextTrimmer's
 * cold merge and trim, filterAmbiguousProfile) on a model of libstdc++'s
 * hashtable (spgo_pmap_*, src/profile/pmap.c over llvm_map.c, checked
 * against the real one by tests/unit/test_llvm_map.c), and puts q's top
 * list in the order the map ends in; the CS nesting (csnest.c) goes on
 * from that map (its order and bucket count) for a nested profile.
 */
#include <stdlib.h>
#include <string.h>

#include "context/context_impl.h"

/*
 * q's top-level profiles in the order llvm-profgen-19's SampleProfileMap
 * ends in, which its extbinary writer follows for the function metadata
 * (spgo_pmap_*): p's contexts inserted from the context trie
 * (convertToProfileMap); when the trimmer runs (thr), the cold ones
 * (colds, by p's top index), in the map's order, merged into a second map
 * by their last `depth` frames (0: no merging) and erased; that map's
 * contexts inserted in its order, but for a merged profile under thr
 * trimmed where no profile was; last, the ambiguous ones erased (an erase
 * moves no other entry).  q's top takes that order, flagged
 * SPGO_PROF_MAP_ORDER; left alone if the replay fails.
 */
void cs_map_order(struct spgo_profile *q, const struct spgo_profile *p, const uint8_t *colds, uint64_t thr,
		  int depth, int trim)
{
	uint32_t *fill = spgo_pmap_trie_order(p), *tags = NULL, *top = NULL;
	if (!fill)
		return;
	size_t ntop = p->top.n, n = 0;
	struct spgo_pmap *pm = spgo_pmap_new(), *mm = spgo_pmap_new();
	struct spgo_strtab to;
	spgo_strtab_init(&to);
	VEC(uint64_t) totals = {0};
	for (size_t i = 0; i < ntop; i++)
		spgo_pmap_insert(pm, spgo_func_key(p, p->top.v[fill[i]]), fill[i]);
	if (thr && (depth || trim)) {
		if (!(tags = spgo_pmap_tags(pm, &n)))
			goto out;
		for (size_t i = 0; i < n; i++) {
			if (!colds[tags[i]])
				continue;
			const char *key = spgo_func_key(p, p->top.v[tags[i]]);
			if (depth) {
				const char *t = cs_last_frames(key, depth);
				uint32_t id = spgo_strtab_intern(&to, t, strlen(t));
				if (id == totals.n)
					VEC_PUSH(&totals, 0);
				uint64_t s = totals.v[id] + p->funcs.v[p->top.v[tags[i]]].total;
				totals.v[id] = s < totals.v[id] ? UINT64_MAX : s;
				spgo_pmap_insert(mm, t, id);
			}
			spgo_pmap_erase(pm, key);
		}
		free(tags);
		if (!(tags = spgo_pmap_tags(mm, &n)))
			goto out;
		for (size_t i = 0; i < n; i++) {
			const char *t = spgo_strtab_get(&to, tags[i]);
			if (!(trim && totals.v[tags[i]] < thr && !spgo_pmap_has(pm, t)))
				spgo_pmap_insert(pm, t, (uint32_t)ntop + tags[i]);
		}
		free(tags);
	}
	if (!(tags = spgo_pmap_tags(pm, &n)))
		goto out;
	top = xmalloc((n + 1) * sizeof *top);
	uint8_t *seen = xcalloc(q->funcs.n + 1, 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *key = tags[i] < ntop ? spgo_func_key(p, p->top.v[tags[i]])
						 : spgo_strtab_get(&to, tags[i] - (uint32_t)ntop);
		if (spgo_profgen_ambiguous(cs_last_frames(key, 1)))
			continue;
		uint32_t f = spgo_func_find_ctx(q, spgo_strtab_intern(&q->contexts, key, strlen(key)));
		if (f == SPGO_NONE || seen[f])
			break;
		seen[f] = 1;
		top[k++] = f;
	}
	free(seen);
	if (k == q->top.n) {
		if (k) /* (an empty profile: top.v NULL) */
			memcpy(q->top.v, top, k * sizeof *top);
		q->flags |= SPGO_PROF_MAP_ORDER;
		q->map_buckets = spgo_pmap_buckets(pm);
	}
out:
	free(top);
	free(tags);
	free(fill);
	VEC_FREE(&totals);
	spgo_strtab_free(&to);
	spgo_pmap_free(pm);
	spgo_pmap_free(mm);
}
