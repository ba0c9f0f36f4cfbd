/*
 * A profile as text for people, in the layout of llvm-profdata show
 * --sample (LLVM's FunctionSamples::print and showHotFunctionList), so that
 * what users compare against llvm-profdata-19 reads the same:
 *
 *   Function: main: TOTAL, HEAD, N sampled lines
 *   Samples collected in the function's body {
 *     LINE[.DISC]: COUNT[, calls: CALLEE:COUNT ...]
 *   }
 *   Samples collected in inlined callsites {
 *     LINE[.DISC]: inlined callee: NAME: TOTAL, HEAD, N sampled lines
 *       ... (the same, indented)
 *   }
 *
 * Bodies and callsites in (line, discriminator) order, inlinees of one
 * callsite by name, call targets by count descending then name (the
 * order of spgo_func_bodies, _children and spgo_body_targets).
 */
#include <stdio.h>
#include <stdlib.h>

#include "spgo/profile.h"

static void loc(FILE *fp, uint32_t line, uint32_t disc)
{
	fprintf(fp, "%u", line);
	if (disc)
		fprintf(fp, ".%u", disc);
}

/* The record of f after its name: counts, bodies, inlinees at indent. */
static void dump_record(const struct spgo_profile *p, uint32_t f, int indent, FILE *fp)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	uint32_t *bb = NULL, *tb = NULL, *cb = NULL;
	size_t bc = 0, tc = 0, cc = 0;
	size_t nb = spgo_func_bodies(p, f, &bb, &bc);
	fprintf(fp, "%llu, %llu, %zu sampled lines\n", (unsigned long long)fn->total,
		(unsigned long long)fn->head, nb);
	if (nb) {
		fprintf(fp, "%*sSamples collected in the function's body {\n", indent, "");
		for (size_t i = 0; i < nb; i++) {
			const struct spgo_body *b = &p->bodies.v[bb[i]];
			fprintf(fp, "%*s", indent + 2, "");
			loc(fp, b->line, b->disc);
			fprintf(fp, ": %llu", (unsigned long long)b->count);
			size_t nt = spgo_body_targets(p, bb[i], &tb, &tc);
			for (size_t j = 0; j < nt; j++)
				fprintf(fp, "%s %s:%llu", j ? "" : ", calls:", spgo_name(p, p->targets.v[tb[j]].name),
					(unsigned long long)p->targets.v[tb[j]].count);
			fprintf(fp, "\n");
		}
		fprintf(fp, "%*s}\n", indent, "");
	} else {
		fprintf(fp, "%*sNo samples collected in the function's body\n", indent, "");
	}
	size_t nc = spgo_func_children(p, f, &cb, &cc);
	if (nc) {
		fprintf(fp, "%*sSamples collected in inlined callsites {\n", indent, "");
		for (size_t i = 0; i < nc; i++) {
			const struct spgo_func *c = &p->funcs.v[cb[i]];
			fprintf(fp, "%*s", indent + 2, "");
			loc(fp, c->line, c->disc);
			fprintf(fp, ": inlined callee: %s: ", spgo_name(p, c->name));
			dump_record(p, cb[i], indent + 4, fp);
		}
		fprintf(fp, "%*s}\n", indent, "");
	} else {
		fprintf(fp, "%*sNo inlined callsites in this function\n", indent, "");
	}
	free(bb);
	free(tb);
	free(cb);
}

void spgo_profile_dump_func(const struct spgo_profile *p, uint32_t f, FILE *fp)
{
	fprintf(fp, "Function: %s: ", spgo_func_key(p, f));
	dump_record(p, f, 0, fp);
}

void spgo_profile_dump(const struct spgo_profile *p, FILE *fp)
{
	uint32_t *order = spgo_profile_sorted(p);
	for (size_t i = 0; i < p->top.n; i++)
		spgo_profile_dump_func(p, order[i], fp);
	free(order);
}

void spgo_profile_dump_summary(const struct spgo_profile *p, FILE *fp)
{
	const struct spgo_summary *s = &p->summary;
	fprintf(fp, "Total functions: %llu\nMaximum function count: %llu\nMaximum block count: %llu\n"
		    "Total number of blocks: %llu\nTotal count: %llu\nDetailed summary:\n",
		(unsigned long long)s->num_funcs, (unsigned long long)s->max_func_count,
		(unsigned long long)s->max_count, (unsigned long long)s->num_counts,
		(unsigned long long)s->total);
	for (unsigned i = 0; i < s->nentries; i++)
		fprintf(fp, "%llu blocks with count >= %llu account for %g percentage of the total counts.\n",
			(unsigned long long)s->entries[i].num_counts,
			(unsigned long long)s->entries[i].min_count, s->entries[i].cutoff / 1e4);
}

/* The largest count of f's bodies and its inlinees' (LLVM's
 * getMaxCountInside). */
static uint64_t max_inside(const struct spgo_profile *p, uint32_t f)
{
	uint64_t m = 0;
	const struct spgo_func *fn = &p->funcs.v[f];
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		if (p->bodies.v[b].count > m)
			m = p->bodies.v[b].count;
	for (uint32_t c = fn->children; c != SPGO_NONE; c = p->funcs.v[c].sibling) {
		uint64_t mc = max_inside(p, c);
		if (mc > m)
			m = mc;
	}
	return m;
}

/* The entry count as LLVM estimates it (getEntrySamples): the first
 * location's samples, a body's or the callees' there; at least 1 when
 * the function has samples.  (For CS profiles LLVM takes the head.) */
static uint64_t entry_samples(const struct spgo_profile *p, uint32_t f)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	if ((p->flags & SPGO_PROF_CS) && fn->head)
		return fn->head;
	uint32_t *bb = NULL, *cb = NULL;
	size_t bc = 0, cc = 0, nb = spgo_func_bodies(p, f, &bb, &bc);
	size_t nc = spgo_func_children(p, f, &cb, &cc);
	uint64_t n = 0;
	const struct spgo_body *b = nb ? &p->bodies.v[bb[0]] : NULL;
	const struct spgo_func *c = nc ? &p->funcs.v[cb[0]] : NULL;
	if (b && (!c || b->line < c->line || (b->line == c->line && b->disc < c->disc))) {
		n = b->count;
	} else if (c) { /* every callee at the first callsite */
		for (size_t i = 0; i < nc; i++) {
			const struct spgo_func *ci = &p->funcs.v[cb[i]];
			if (ci->line != c->line || ci->disc != c->disc)
				break;
			n += entry_samples(p, cb[i]);
		}
	}
	free(bb);
	free(cb);
	return n ? n : fn->total > 0;
}

void spgo_profile_dump_hot(const struct spgo_profile *p, size_t topn, FILE *fp)
{
	/* hot: the 99% cutoff's count of the summary, as the compiler's */
	uint64_t threshold = 0, all = 0, hot_total = 0;
	for (unsigned i = 0; i < p->summary.nentries; i++)
		if (p->summary.entries[i].cutoff == 990000)
			threshold = p->summary.entries[i].min_count;
	uint32_t *order = spgo_profile_sorted(p);
	size_t nhot = 0;
	for (size_t i = 0; i < p->top.n; i++) {
		const struct spgo_func *fn = &p->funcs.v[order[i]];
		all += fn->total;
		if (max_inside(p, order[i]) >= threshold) {
			hot_total += fn->total;
			order[nhot++] = order[i]; /* (in place: i >= nhot) */
		}
	}
	fprintf(fp, "%zu out of %zu functions with profile (%.2f%%) are considered hot functions "
		    "(max sample >= %llu).\n", nhot, p->top.n,
		p->top.n ? 100.0 * (double)nhot / (double)p->top.n : 0.0, (unsigned long long)threshold);
	fprintf(fp, "%llu out of %llu profile counts (%.2f%%) are from hot functions.\n",
		(unsigned long long)hot_total, (unsigned long long)all,
		all ? 100.0 * (double)hot_total / (double)all : 0.0);
	/* columns at 1, 24, 42 and 58, as llvm-profdata's */
	fprintf(fp, " %-22s %-17s %-15s %s\n", "Total sample (%)", "Max sample", "Entry sample", "Function name");
	for (size_t i = 0; i < nhot && i < topn; i++) {
		const struct spgo_func *fn = &p->funcs.v[order[i]];
		char tot[64];
		snprintf(tot, sizeof tot, "%llu (%.2f%%)", (unsigned long long)fn->total,
			 all ? 100.0 * (double)fn->total / (double)all : 0.0);
		fprintf(fp, " %-22s %-17llu %-15llu %s\n", tot, (unsigned long long)max_inside(p, order[i]),
			(unsigned long long)entry_samples(p, order[i]), spgo_func_key(p, order[i]));
	}
	free(order);
}

enum spgo_format spgo_format_merged(const enum spgo_format *fmts, size_t n)
{
	enum spgo_format best = SPGO_FMT_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		int r = fmts[i] == SPGO_FMT_EXTBINARY ? 3 : fmts[i] == SPGO_FMT_TEXT ? 2 : fmts[i] == SPGO_FMT_GCOV;
		int rb = best == SPGO_FMT_EXTBINARY ? 3 : best == SPGO_FMT_TEXT ? 2 : best == SPGO_FMT_GCOV;
		if (r > rb)
			best = fmts[i];
	}
	return best;
}
