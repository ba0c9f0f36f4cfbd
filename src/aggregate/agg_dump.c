/*
 * The aggregate as text, for tests and debugging (`spgo aggregate`):
 * spgo_agg_dump and spgo_agg_map_samples, see spgo/aggregate.h.
 */
#include <stdlib.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "aggregate_impl.h"

static void dump_map(FILE *fp, const char *tag, const struct spgo_kmap *m)
{
	uint64_t *rows = spgo_kmap_sorted(m);
	unsigned w = m->kw + 1;
	for (size_t i = 0; i < m->n; i++) {
		fprintf(fp, "%s", tag);
		for (unsigned k = 0; k < m->kw; k++) {
			uint64_t x = rows[i * w + k];
			if (x == SPGO_AGG_EXTERNAL)
				fprintf(fp, " ext");
			else
				fprintf(fp, " %llx", (unsigned long long)x);
		}
		fprintf(fp, " %llu\n", (unsigned long long)rows[i * w + m->kw]);
	}
	free(rows);
}

static const uint64_t *g_pool;
static int cmp_stack(const void *x, const void *y)
{
	const uint64_t *a = g_pool + *(const size_t *)x, *b = g_pool + *(const size_t *)y;
	size_t na = 2 * (a[1] >> 32) + (uint32_t)a[1], nb = 2 * (b[1] >> 32) + (uint32_t)b[1];
	if (a[1] != b[1])
		return a[1] < b[1] ? -1 : 1;
	for (size_t i = 0; i < na && i < nb; i++)
		if (a[2 + i] != b[2 + i])
			return a[2 + i] < b[2 + i] ? -1 : 1;
	return 0;
}

void spgo_agg_dump(const struct spgo_aggregate *a, FILE *fp)
{
	const struct spgo_agg_stats *s = &a->stats;
	fprintf(fp, "# spgo aggregate of %s\n", spgo_binary_path(a->bin));
	size_t nm;
	const struct spgo_agg_match *m = spgo_agg_matches(a, &nm);
	for (size_t i = 0; i < nm; i++)
		fprintf(fp, "# matched %s by %s\n", m[i].name, m[i].how);
	fprintf(fp,
		"stats samples %llu matched %llu unmatched %llu unmapped %llu lbr %llu "
		"branches %llu ranges %llu reversed %llu external %llu crossing %llu stacks %llu "
		"lost %llu\n",
		(unsigned long long)s->samples, (unsigned long long)s->samples_matched,
		(unsigned long long)s->samples_unmatched, (unsigned long long)s->samples_unmapped,
		(unsigned long long)s->lbr_samples, (unsigned long long)s->branches,
		(unsigned long long)s->ranges, (unsigned long long)s->ranges_reversed,
		(unsigned long long)s->ranges_external, (unsigned long long)s->ranges_crossing,
		(unsigned long long)s->stack_samples,
		(unsigned long long)s->lost);
	for (size_t i = 0; i < a->events.n; i++)
		fprintf(fp, "# event %zu: %s, %llu samples, period %llu\n", i, a->events.v[i].name,
			(unsigned long long)a->events.v[i].samples,
			(unsigned long long)a->events.v[i].period);
	dump_map(fp, "range", &a->ranges);
	dump_map(fp, "branch", &a->branches);
	for (size_t i = 0; i < a->events.n; i++) {
		char *tag = xasprintf("ip %zu", i);
		dump_map(fp, tag, &a->events.v[i].ips);
		free(tag);
	}
	VEC(size_t) offs = {0};
	for (size_t it = 0; it < a->impl->pool.n;) {
		VEC_PUSH(&offs, it);
		struct spgo_agg_stack st;
		spgo_agg_next_stack(a, &it, &st);
	}
	g_pool = a->impl->pool.v;
	if (offs.n)
		spgo_sort(offs.v, offs.n, sizeof *offs.v, cmp_stack);
	for (size_t i = 0; i < offs.n; i++) {
		size_t it = offs.v[i];
		struct spgo_agg_stack st = {0};
		spgo_agg_next_stack(a, &it, &st);
		fprintf(fp, "stack %llu", (unsigned long long)st.count);
		for (uint32_t k = 0; k < st.nframes; k++) {
			if (st.frames[k] == SPGO_AGG_EXTERNAL)
				fprintf(fp, " ext");
			else
				fprintf(fp, " %llx", (unsigned long long)st.frames[k]);
		}
		fprintf(fp, " |");
		for (uint32_t k = 0; k < 2 * st.nbranches; k++) {
			if (st.branches[k] == SPGO_AGG_EXTERNAL)
				fprintf(fp, "%sext", k % 2 ? "/" : " ");
			else
				fprintf(fp, "%s%llx", k % 2 ? "/" : " ", (unsigned long long)st.branches[k]);
		}
		fprintf(fp, "\n");
	}
	VEC_FREE(&offs);
}

int spgo_agg_map_samples(struct spgo_aggregate *a, const char *path, FILE *fp)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	if (spgo_agg_begin(a, r) < 0) {
		spgo_perf_close(r);
		return -1;
	}
	struct spgo_perf_record rec;
	int rc;
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		spgo_agg_feed(a, &rec);
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		uint64_t v;
		if (spgo_agg_map(a, rec.sample.pid, rec.sample.cpumode, rec.sample.ip, &v) == 0)
			fprintf(fp, "%llx\n", (unsigned long long)v);
		else
			fputs("-\n", fp);
	}
	spgo_perf_close(r);
	return rc < 0 ? -1 : 0;
}
