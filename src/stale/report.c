/*
 * The staleness report as text: the figures, the functions, the changes
 * between OLD and NEW, and last the one line a release process gates on,
 * "matched: 97.3% of samples; fresh" (or "stale", or "no match").
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "stale/stale_impl.h"

/* part of whole in percent, rounded down to 0.1 so that only all of it
 * reads 100.0. */
static double pct(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	return floor(1000.0 * (double)part / (double)whole) / 10;
}

double spgo_stale_matched_pct(const struct spgo_stale_report *r)
{
	return r->samples ? 100.0 * (double)r->matched / (double)r->samples : 0;
}

int spgo_stale_verdict(const struct spgo_stale_report *r, double threshold)
{
	if (spgo_stale_matched_pct(r) < SPGO_STALE_NO_MATCH_PCT)
		return 2;
	return spgo_stale_matched_pct(r) >= threshold ? 0 : 1;
}

/* What happened to function f, in words, into buf. */
static const char *status_text(const struct spgo_stale_func *f, int probe, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
#define SAY(...) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__), n = n < size ? n : size - 1)
	if (f->status & SPGO_STALE_RENAMED)
		SAY("renamed to %s", f->renamed_to);
	else if (f->status & SPGO_STALE_GONE)
		SAY("gone");
	if (f->status & SPGO_STALE_CHECKSUM)
		SAY("%sCFG checksum changed (clang drops it)", n ? "; " : "");
	if (f->status & SPGO_STALE_LINES)
		SAY("%sline offsets moved", n ? "; " : "");
	if (f->status & SPGO_STALE_CALLS)
		SAY("%scall sites changed", n ? "; " : "");
	if (f->status & SPGO_STALE_NOW_INLINED)
		SAY("%snow inlined everywhere", n ? "; " : "");
	if (f->status & SPGO_STALE_NOT_INLINED)
		SAY("%sno longer inlined at a call site", n ? "; " : "");
	if (!n)
		SAY(f->status & SPGO_STALE_CHANGED ? "changed, still matches" : probe ? "checksum matches" : "matches");
#undef SAY
	return buf;
}

static void print_functions(const struct spgo_stale_report *r, FILE *fp, size_t top)
{
	fprintf(fp, "functions: %zu, of which %zu stale (hottest first%s)\n", r->nfuncs, r->nstale,
		top ? ", then the hottest stale ones" : "");
	fprintf(fp, "  %12s %8s %8s  %-32s %s\n", "samples", "matched", "calls", "function", "what changed");
	size_t stale_rank = 0;
	char what[512];
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct spgo_stale_func *f = &r->funcs[i];
		int stale = (f->status & ~(unsigned)SPGO_STALE_CHANGED) != 0;
		int show = !top || i < top || (stale && stale_rank < top);
		stale_rank += stale;
		if (!show)
			continue;
		char m[16], c[16];
		snprintf(m, sizeof m, "%.1f%%", pct(f->matched, f->samples));
		if (f->call_samples)
			snprintf(c, sizeof c, "%.1f%%", pct(f->call_matched, f->call_samples));
		else
			snprintf(c, sizeof c, "-");
		fprintf(fp, "  %12" PRIu64 " %8s %8s  %-32s %s\n", f->samples, f->samples ? m : "-", c, f->name,
			status_text(f, r->probe, what, sizeof what));
	}
}

static void print_old(const struct spgo_stale_report *r, FILE *fp, size_t top)
{
	fprintf(fp, "old binary: %s (%.1f%% of the profile's samples match it)\n", r->old_binary,
		pct(r->old_matched, r->samples));
	fprintf(fp, "  profiled functions changed between old and new: %zu; functions added: %zu, removed: %zu\n",
		r->changed, r->added, r->removed);
	size_t shown = 0;
	for (size_t i = 0; i < r->nfuncs && (!top || shown < top); i++) {
		const struct spgo_stale_func *f = &r->funcs[i];
		if (f->old_size == 0 && f->old_locs == 0 && !f->old_checksum)
			continue;
		if (f->status & SPGO_STALE_CHANGED) {
			if (r->probe)
				fprintf(fp, "  %-32s CFG checksum 0x%" PRIx64 " -> 0x%" PRIx64 "\n", f->name,
					f->old_checksum, f->new_checksum);
			else
				fprintf(fp, "  %-32s %" PRIu64 " -> %" PRIu64 " bytes, %u -> %u line locations\n",
					f->name, f->old_size, f->new_size, f->old_locs, f->new_locs);
			shown++;
		} else if (f->status & SPGO_STALE_GONE) {
			fprintf(fp, "  %-32s removed%s%s\n", f->name, f->renamed_to ? ", renamed to " : "",
				f->renamed_to ? f->renamed_to : "");
			shown++;
		}
	}
}

void spgo_stale_print(const struct spgo_stale_report *r, FILE *fp, size_t top, double threshold)
{
	fprintf(fp, "profile: %s (%s), %" PRIu64 " samples in %zu functions\n", r->profile,
		r->probe ? "probe-based" : "line-based", r->samples, r->nfuncs);
	fprintf(fp, "new binary: %s\n", r->binary);
	fprintf(fp, "  in functions still there:  %5.1f%% of samples\n", pct(r->exists, r->samples));
	fprintf(fp, "  %s %5.1f%% of samples\n",
		r->probe ? "CFG checksums match:      " : "line offsets match:       ", pct(r->matched, r->samples));
	if (r->call_samples)
		fprintf(fp, "  call sites still there:    %5.1f%% of call samples\n",
			pct(r->call_matched, r->call_samples));
	fprintf(fp, "  inlined differently:       %5.1f%% of samples (not lost)\n", pct(r->moved_inline, r->samples));
	fprintf(fp, "  in renamed functions:      %5.1f%% of samples (lost; a carried profile keeps them)\n",
		pct(r->renamed, r->samples));
	fprintf(fp, "  clang drops:               %5.1f%% of samples%s\n", pct(r->dropped, r->samples),
		r->probe ? " (unless -salvage-stale-profile recovers some)" : "");
	print_functions(r, fp, top);
	if (r->have_old)
		print_old(r, fp, top);
	int v = spgo_stale_verdict(r, threshold);
	fprintf(fp, "matched: %.1f%% of samples; %s\n", pct(r->matched, r->samples),
		v == 0 ? "fresh" : v == 1 ? "stale" : "no match: the profile does not describe this build");
}

/* ---- spgo carry ------------------------------------------------------------ */

void spgo_carry_print(const struct spgo_carry_report *r, FILE *fp)
{
	const struct spgo_stale_report *b = &r->before;
	fprintf(fp, "profile: %s (%s), %" PRIu64 " samples in %zu functions\n", b->profile,
		r->probe ? "probe-based" : "line-based", b->samples, b->nfuncs);
	fprintf(fp, "old binary: %s; new binary: %s\n", b->old_binary, b->binary);
	fprintf(fp, "as it is (spgo stale):\n");
	fprintf(fp, "  in functions still there:  %5.1f%% of samples\n", pct(b->exists, b->samples));
	fprintf(fp, "  %s %5.1f%% of samples\n",
		r->probe ? "CFG checksums match:      " : "line offsets match:       ", pct(b->matched, b->samples));
	if (b->call_samples)
		fprintf(fp, "  call sites still there:    %5.1f%% of call samples\n",
			pct(b->call_matched, b->call_samples));
	fprintf(fp, "  in renamed functions:      %5.1f%% of samples\n", pct(b->renamed, b->samples));
	fprintf(fp, "  clang drops:               %5.1f%% of samples\n", pct(b->dropped, b->samples));
	fprintf(fp, "carried:\n");
	fprintf(fp, "  functions aligned:         %zu (renamed: %zu)\n", r->funcs_aligned, r->funcs_renamed);
	if (r->contexts || r->contexts_dropped)
		fprintf(fp, "  contexts carried:          %zu (dropped: %zu)\n", r->contexts, r->contexts_dropped);
	fprintf(fp, "  at the same location:      %5.1f%% of samples\n", pct(r->as_is, r->samples));
	fprintf(fp, "  moved by a call anchor:    %5.1f%% of samples\n", pct(r->by_anchor, r->samples));
	if (!r->probe) {
		fprintf(fp, "  moved by an instruction row: %3.1f%% of samples\n", pct(r->by_row, r->samples));
	} else {
		fprintf(fp, "  moved by a block hash:     %5.1f%% of samples\n", pct(r->by_hash, r->samples));
		fprintf(fp, "  moved by a block's code:   %5.1f%% of samples\n", pct(r->by_row, r->samples));
		fprintf(fp, "  in order by code (a guess): %3.1f%% of samples\n", pct(r->by_gap, r->samples));
	}
	fprintf(fp, "  moved by the nearer delta: %5.1f%% of samples\n", pct(r->by_shift, r->samples));
	fprintf(fp, "  under a renamed function:  %5.1f%% of samples\n", pct(r->renamed, r->samples));
	if (r->call_samples)
		fprintf(fp, "  call sites carried:        %5.1f%% of call samples\n",
			pct(r->call_carried, r->call_samples));
	fprintf(fp, "  dropped (no place in new): %5.1f%% of samples\n", pct(r->dropped, r->samples));
	if (r->probe)
		fprintf(fp, "  inferred on the new CFG:   %zu probes in %zu functions, %" PRIu64 " samples (%zu changed)\n",
			r->inferred.probes, r->inferred.funcs, r->inferred.samples, r->inferred.changed);
	if (r->probe && r->inferred.left)
		fprintf(fp, "  not inferred:              %zu functions left as matched (no CFG in the new "
			    "binary, counts over 2^40, or the flow lost most of the matched counts)\n",
			r->inferred.left);
	if (r->funcs_kept)
		fprintf(fp, "  kept as it is (unsure):    %5.1f%% of samples, %zu functions\n", pct(r->kept, r->samples),
			r->funcs_kept);
	fprintf(fp, "carried: %.1f%% of samples (as it is: %.1f%%)\n", pct(r->carried, r->samples),
		pct(b->matched, b->samples));
}
