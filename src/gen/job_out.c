/*
 * The finished profile of a gen job (spgo_gen_job_run, job.c): llvm-profgen's
 * options on it (--show-density, --trim-cold-profile,
 * --populate-profile-symbol-list), and its outputs, with those of the
 * job's tap, written together (spgo/gen.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/gen.h"
#include "spgo/profile.h"
#include "gen_impl.h"

/* ---- llvm-profgen's options on the finished profile ---------------------- */

/* Body samples and body entries of profile f and its inlinees (llvm-profgen's
 * calculateBodySamplesAndSize: the entries stand for its size). */
static void body_and_size(const struct spgo_profile *p, uint32_t f, uint64_t *sum, uint64_t *size)
{
	const struct spgo_func *fn = &p->funcs.v[f];
	*size += fn->nbodies;
	for (uint32_t b = fn->bodies; b != SPGO_NONE; b = p->bodies.v[b].next)
		*sum += p->bodies.v[b].count;
	for (uint32_t c = fn->children; c != SPGO_NONE; c = p->funcs.v[c].sibling)
		body_and_size(p, c, sum, size);
}

struct density { double d; uint64_t sum; };
static int cmp_density(const void *a, const void *b)
{
	const struct density *x = a, *y = b;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return x->sum < y->sum ? -1 : x->sum > y->sum;
}

/*
 * llvm-profgen's --show-density line: top-level profiles by density (body
 * samples per body entry) descending; the density of the one at which they
 * reach cutoff per million of all the body samples (compared in float, as
 * llvm-profgen does).  On stdout, or stderr when the profile goes there.
 */
static void show_density(const struct spgo_gen_job *j, const struct spgo_profile *p)
{
	struct density *v = xmalloc((p->top.n + 1) * sizeof *v);
	size_t n = 0;
	uint64_t all = 0;
	for (size_t i = 0; i < p->top.n; i++) {
		uint64_t sum = 0, size = 0;
		body_and_size(p, p->top.v[i], &sum, &size);
		if (!size)
			continue;
		v[n].d = (double)sum / (double)size;
		v[n++].sum = sum;
		all += sum;
	}
	spgo_sort(v, n, sizeof *v, cmp_density); /* (ties are equal entries) */
	double density = 0;
	uint64_t acc = 0;
	float goal = (float)all * (float)j->density_cutoff / 1000000;
	for (size_t i = 0; (float)acc < goal && i < n; i++) {
		acc += v[i].sum;
		density = v[i].d;
	}
	free(v);
	int to_stdout = !strcmp(j->out, "-");
	for (size_t k = 0; k < j->nmore; k++)
		to_stdout |= !strcmp(j->more[k].out, "-");
	FILE *fp = to_stdout ? stderr : stdout;
	fprintf(fp, "Functions with density >= %.1f account for %.2f%% total sample counts.\n", density,
		(double)j->density_cutoff / 10000);
	fflush(fp);
}

/* Non-CS --trim-cold-profile: top-level profiles under the cold count go
 * (llvm-profgen's ProfileGenerator::trimColdProfiles).  p is finalized;
 * returns the new profile (p freed). */
struct spgo_profile *gen_job_trim_cold(const struct spgo_gen_job *j, struct spgo_profile *p)
{
	uint64_t thr = j->cold_count >= 0 ? (uint64_t)j->cold_count
					   : spgo_summary_min_count(&p->summary, j->cutoff_cold, 0);
	struct spgo_profile *q = spgo_profile_new();
	q->flags = p->flags;
	uint32_t *namemap = xmalloc((p->names.n + 1) * sizeof *namemap);
	memset(namemap, 0xff, (p->names.n + 1) * sizeof *namemap);
	size_t dropped = 0;
	for (size_t i = 0; i < p->top.n; i++) {
		uint32_t f = p->top.v[i];
		const struct spgo_func *fn = spgo_fn(p, f);
		if (fn->total < thr) {
			dropped++;
			continue;
		}
		spgo_func_merge(q, spgo_func_get(q, spgo_name(p, fn->name)), p, f, 1, namemap);
	}
	free(namemap);
	if (j->report)
		fprintf(j->report, "spgo: gen: --trim-cold-profile: %zu function profiles under the cold count "
				   "%llu dropped\n", dropped, (unsigned long long)thr);
	spgo_profile_free(p);
	spgo_profile_finalize(q, 0);
	return q;
}

/* --populate-profile-symbol-list (extbinary): the name of every function
 * with debug information, as llvm-profgen's populateSymbolListFromDWARF,
 * so that the compiler knows the functions the profile has no samples of
 * were there (and are cold) rather than new. */
static void add_symbols(struct spgo_profile *p, struct spgo_binary *bin)
{
	size_t n;
	const struct spgo_function *f = spgo_binary_functions(bin, &n);
	struct spgo_kmap seen;
	spgo_kmap_init(&seen, 1);
	for (size_t i = 0; i < n; i++) {
		if (!f[i].has_debug)
			continue;
		uint32_t id = spgo_name_id(p, f[i].name, strlen(f[i].name));
		uint64_t k = id;
		uint64_t *v = spgo_kmap_upsert(&seen, &k);
		if (!*v) {
			*v = 1;
			VEC_PUSH(&p->symbols, id);
		}
	}
	spgo_kmap_free(&seen);
}

/* The format of the job's output k (0: out, then more[]). */
static enum spgo_format out_fmt(const struct spgo_gen_job *j, size_t k)
{
	return k && j->more[k - 1].fmt != SPGO_FMT_UNKNOWN ? j->more[k - 1].fmt : j->fmt;
}

static const char *out_path(const struct spgo_gen_job *j, size_t k)
{
	return k ? j->more[k - 1].out : j->out;
}

/* The other outputs' formats, once out's is chosen: one profile, so gcov
 * (GCC's conventions) with none of LLVM's.  0, or -1 with spgo_error(). */
int gen_job_check_more(const struct spgo_gen_job *j)
{
	for (size_t k = 1; k <= j->nmore; k++)
		if ((out_fmt(j, k) == SPGO_FMT_GCOV) != (j->fmt == SPGO_FMT_GCOV))
			return spgo_error("gen: %s (%s) and %s (%s) are two profiles (gcov is made by GCC's "
					  "conventions): one of them per run", out_path(j, 0),
					  spgo_format_name(j->fmt), out_path(j, k), spgo_format_name(out_fmt(j, k)));
	return 0;
}

/*
 * p (which this frees) written to each of the job's outputs (symbols: the
 * binary's for an extbinary one, --populate-profile-symbol-list), and the
 * tap's: all complete before any is renamed into place (see spgo/gen.h).
 * Files first, text before extbinary (the symbol list is added to p for
 * the latter), stdout last.
 */
static int write_all(const struct spgo_gen_job *j, struct spgo_profile *p, struct spgo_binary *bin)
{
	int together = j->nmore || j->tap;
	if (together)
		spgo_out_hold();
	int rc = j->tap ? j->tap->end(j->tap->ctx) : 0;
	for (int pass = 0; pass < 3 && rc == 0; pass++) {
		if (pass == 1 && bin && j->symbol_list)
			for (size_t k = 0; k <= j->nmore; k++)
				if (out_fmt(j, k) == SPGO_FMT_EXTBINARY) {
					add_symbols(p, bin);
					break;
				}
		for (size_t k = 0; k <= j->nmore && rc == 0; k++) {
			const char *path = out_path(j, k);
			int std = !strcmp(path, "-"), ext = out_fmt(j, k) == SPGO_FMT_EXTBINARY;
			if (pass == (std ? 2 : ext))
				rc = spgo_profile_write(p, path, out_fmt(j, k), &j->wo);
		}
	}
	if (together && spgo_out_release(rc == 0) < 0)
		rc = -1;
	spgo_profile_free(p);
	return rc;
}

/* The options above on p, then p (which this frees) written to the job's
 * outputs. */
int gen_job_finish_out(const struct spgo_gen_job *j, struct spgo_profile *p, struct spgo_binary *bin)
{
	if (j->show_density)
		show_density(j, p);
	return write_all(j, p, bin);
}

/* Write p (which this frees) to the job's outputs. */
int gen_job_write_out(const struct spgo_gen_job *j, struct spgo_profile *p)
{
	return write_all(j, p, NULL);
}

