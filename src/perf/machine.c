/*
 * Processes and their mappings, as perf tracks them: see the "processes and
 * their mappings" part of spgo/perf.h.  A process is a sorted array of
 * non-overlapping mappings; a new mapping cuts whatever it covers, so the
 * array always says what was mapped where at this point of the recording.
 */
#include <stdlib.h>
#include <string.h>

#include "perf/perf_impl.h"

struct proc {
	uint32_t pid;
	VEC(struct spgo_perf_map) maps; /* sorted by start, disjoint */
};

struct spgo_perf_machine {
	VEC(struct spgo_perf_dso) dsos; /* index = strtab id of the name */
	struct spgo_strtab names;
	VEC(struct proc *) procs;
	struct spgo_kmap pid2proc; /* pid -> index in procs */
	struct proc kernel;
	struct proc *last;
};

struct spgo_perf_machine *spgo_perf_machine_new(void)
{
	struct spgo_perf_machine *m = xcalloc(1, sizeof *m);
	spgo_strtab_init(&m->names);
	spgo_kmap_init(&m->pid2proc, 1);
	return m;
}

void spgo_perf_machine_free(struct spgo_perf_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->procs.n; i++) {
		VEC_FREE(&m->procs.v[i]->maps);
		free(m->procs.v[i]);
	}
	VEC_FREE(&m->procs);
	VEC_FREE(&m->kernel.maps);
	VEC_FREE(&m->dsos);
	spgo_strtab_free(&m->names);
	spgo_kmap_free(&m->pid2proc);
	free(m);
}

size_t spgo_perf_machine_nprocs(const struct spgo_perf_machine *m) { return m->procs.n; }

const struct spgo_perf_map *spgo_perf_machine_proc(const struct spgo_perf_machine *m, size_t i,
						   uint32_t *pid, size_t *nmaps)
{
	*pid = m->procs.v[i]->pid;
	*nmaps = m->procs.v[i]->maps.n;
	return m->procs.v[i]->maps.v;
}

struct spgo_perf_dso *spgo_perf_machine_dsos(struct spgo_perf_machine *m, size_t *n)
{
	*n = m->dsos.n;
	return m->dsos.v;
}

/* perf maps these names 1:1 (no file behind them). */
static int is_anon(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "[stack", 6) ||
	       !strncmp(name, "/SYSV", 5) || !strcmp(name, "[heap]");
}

static uint32_t dso_of(struct spgo_perf_machine *m, const char *name, int kernel)
{
	uint32_t id = spgo_strtab_intern(&m->names, name, strlen(name));
	while (m->dsos.n <= id) {
		struct spgo_perf_dso d = {0};
		d.name = (char *)spgo_strtab_get(&m->names, (uint32_t)m->dsos.n);
		d.anon = (uint8_t)is_anon(d.name);
		VEC_PUSH(&m->dsos, d);
	}
	if (kernel)
		m->dsos.v[id].kernel = 1;
	return id;
}

static struct proc *proc_get(struct spgo_perf_machine *m, uint32_t pid, int create)
{
	if (m->last && m->last->pid == pid)
		return m->last;
	uint64_t key = pid;
	uint64_t *idx = spgo_kmap_find(&m->pid2proc, &key);
	if (!idx) {
		if (!create)
			return NULL;
		struct proc *p = xcalloc(1, sizeof *p);
		p->pid = pid;
		*spgo_kmap_upsert(&m->pid2proc, &key) = m->procs.n;
		VEC_PUSH(&m->procs, p);
		return m->last = p;
	}
	return m->last = m->procs.v[*idx];
}

/* First mapping whose end is above addr (binary search). */
static size_t first_ending_after(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->maps.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps.v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert a mapping, cutting the parts of older ones it covers. */
static void map_insert(struct proc *p, struct spgo_perf_map nm)
{
	if (nm.end <= nm.start)
		return;
	size_t i = first_ending_after(p, nm.start), j = i;
	struct spgo_perf_map keep[2];
	size_t nkeep = 0;
	while (j < p->maps.n && p->maps.v[j].start < nm.end) {
		struct spgo_perf_map o = p->maps.v[j];
		if (o.start < nm.start && nkeep < 2) {
			struct spgo_perf_map b = o;
			b.end = nm.start;
			keep[nkeep++] = b;
		}
		if (o.end > nm.end && nkeep < 2) {
			struct spgo_perf_map a = o;
			a.start = nm.end;
			a.pgoff = o.pgoff + (nm.end - o.start);
			keep[nkeep++] = a;
		}
		j++;
	}
	/* Replace [i, j) with keep[0..] and nm, in address order. */
	struct spgo_perf_map put[3];
	size_t np = 0;
	if (nkeep && keep[0].start < nm.start)
		put[np++] = keep[0];
	put[np++] = nm;
	for (size_t k = 0; k < nkeep; k++)
		if (keep[k].start >= nm.end)
			put[np++] = keep[k];
	size_t removed = j - i, n = p->maps.n;
	VEC_GROW(&p->maps, n - removed + np);
	memmove(p->maps.v + i + np, p->maps.v + j, (n - j) * sizeof *p->maps.v);
	memcpy(p->maps.v + i, put, np * sizeof *put);
	p->maps.n = n - removed + np;
}

void spgo_perf_machine_feed(struct spgo_perf_machine *m, const struct spgo_perf_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const struct spgo_perf_mmap *mm = &rec->u.mmap;
		unsigned mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		int kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL ||
			     mm->pid == UINT32_MAX;
		struct spgo_perf_map nm = {mm->start, mm->start + mm->len, mm->pgoff, 0};
		nm.dso = dso_of(m, mm->filename, kernel);
		struct spgo_perf_dso *d = &m->dsos.v[nm.dso];
		if (mm->build_id_size && !d->build_id_size) {
			memcpy(d->build_id, mm->build_id, mm->build_id_size);
			d->build_id_size = mm->build_id_size;
		}
		if (nm.end < nm.start) /* wraps (old kernels' [kernel.kallsyms]) */
			nm.end = UINT64_MAX;
		map_insert(kernel ? &m->kernel : proc_get(m, mm->pid, 1), nm);
		break;
	}
	case PERF_RECORD_FORK: {
		const struct spgo_perf_task *t = &rec->u.task;
		if (t->pid == t->ppid)
			break; /* a new thread shares its process's maps */
		struct proc *parent = proc_get(m, t->ppid, 0);
		struct proc *child = proc_get(m, t->pid, 1);
		child->maps.n = 0;
		if (parent && parent != child)
			for (size_t i = 0; i < parent->maps.n; i++)
				VEC_PUSH(&child->maps, parent->maps.v[i]);
		break;
	}
	default:
		break;
	}
}

void spgo_perf_machine_build_ids(struct spgo_perf_machine *m, const struct spgo_perf_build_id *ids,
				 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t d = dso_of(m, ids[i].filename, ids[i].misc == PERF_RECORD_MISC_KERNEL);
		struct spgo_perf_dso *dso = &m->dsos.v[d];
		if (!dso->build_id_size && ids[i].size) {
			memcpy(dso->build_id, ids[i].id, ids[i].size);
			dso->build_id_size = ids[i].size;
		}
	}
}

const struct spgo_perf_map *spgo_perf_machine_find(struct spgo_perf_machine *m, uint32_t pid,
						   unsigned cpumode, uint64_t addr)
{
	const struct proc *p;
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		p = &m->kernel;
	else if (!(p = proc_get(m, pid, 0)))
		return NULL;
	size_t i = first_ending_after(p, addr);
	if (i < p->maps.n && p->maps.v[i].start <= addr)
		return &p->maps.v[i];
	return NULL;
}
