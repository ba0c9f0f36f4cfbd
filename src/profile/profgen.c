/*
 * llvm-profgen's conventions: the source-level rules by which llvm-profgen
 * 19 names, filters and spells what it writes (spgo/profile.h states each).
 * They live here once so that the AutoFDO generator (src/gen), the context
 * stage (src/context) and the ground-truth generators agree by construction,
 * not by copies kept in step.
 */
#include "spgo/profile.h"

#include <stdio.h>
#include <string.h>

size_t spgo_profgen_canonical_len(const char *name, size_t len)
{
	static const char *const suffixes[] = {".llvm.", ".part."};
	size_t cand = len;
	for (size_t s = 0; s < SPGO_ARRAY_LEN(suffixes); s++) {
		size_t sl = strlen(suffixes[s]);
		/* The last occurrence of the suffix, stripped only when its
		 * closing dot is the last dot of the name. */
		size_t at = (size_t)-1;
		for (size_t i = 0; i + sl <= cand; i++)
			if (!memcmp(name + i, suffixes[s], sl))
				at = i;
		if (at == (size_t)-1)
			continue;
		size_t lastdot = (size_t)-1;
		for (size_t i = 0; i < cand; i++)
			if (name[i] == '.')
				lastdot = i;
		if (lastdot == at + sl - 1)
			cand = at;
	}
	return cand;
}

int spgo_profgen_ambiguous(const char *name)
{
	return !strncmp(name, "__cxx_global_var_init", 21) || !strncmp(name, "__tls_init", 10);
}

void spgo_profgen_raise_to_targets(struct spgo_profile *p)
{
	for (size_t b = 0; b < p->bodies.n; b++) {
		struct spgo_body *body = &p->bodies.v[b];
		if (p->funcs.v[body->func].parent != SPGO_NONE)
			continue;
		uint64_t sum = 0;
		for (uint32_t t = body->targets; t != SPGO_NONE; t = p->targets.v[t].next)
			sum += p->targets.v[t].count;
		if (sum > body->count)
			body->count = sum;
	}
}

int spgo_profgen_loc(char *buf, size_t size, uint32_t line, uint32_t disc, const char *sep)
{
	int k = disc ? snprintf(buf, size, ":%u.%u%s", line, disc, sep) : snprintf(buf, size, ":%u%s", line, sep);
	return k < 0 ? 0 : (size_t)k < size ? k : (int)size - 1;
}

uint64_t spgo_callsite_hash_str(const char *s, size_t len, uint32_t line, uint32_t disc)
{
	size_t i = 0;
	uint64_t h = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		h = h * 10 + (uint64_t)(s[i++] - '0');
	if (!len || i != len)
		h = spgo_md5_guid(s, len);
	uint64_t loc = (uint64_t)disc << 32 | line;
	return h + (loc << 5) + loc;
}

uint64_t spgo_callsite_hash(const struct spgo_profile *p, uint32_t name, uint32_t line, uint32_t disc)
{
	return spgo_callsite_hash_str(spgo_name(p, name), spgo_name_len(p, name), line, disc);
}
