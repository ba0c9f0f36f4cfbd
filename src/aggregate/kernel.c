/*
 * The kernel's code as the profiled binary (spgo/aggregate.h,
 * spgo_agg_space): which mappings of a system-wide capture are the kernel
 * image or a module, how their runtime addresses become the binary's, and
 * what to say when a capture holds none of them.
 *
 * perf records the kernel as a mapping of pid -1 named
 * "[kernel.kallsyms]_text" whose start is the running address of _text
 * (KASLR included) and whose page offset is that address again, not a file
 * offset: llvm-profgen's --kernel takes the start as the first executable
 * segment's address, whatever that segment's file offset, and so does spgo.
 * Modules are mappings of pid -1 too, named by the .ko file perf found
 * under /lib/modules (or "[name]" when it found none), starting at the
 * module's text.
 */
#include <stdlib.h>
#include <string.h>

#include "spgo/aggregate.h"
#include "spgo/binary.h"
#include "aggregate_impl.h"

static int is_kernel_image(const char *name)
{
	return !strcmp(name, "[kernel.kallsyms]_text") || !strcmp(name, "[kernel.kallsyms]_stext") ||
	       !strcmp(name, "[kernel.kallsyms]");
}

void spgo_agg_module_name(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
	size_t len = strlen(b);
	out[0] = '\0';
	if (!n)
		return;
	if (b[0] == '[') { /* perf's name of a module it found no file of */
		const char *close = strchr(b, ']');
		if (!close || close[1] || is_kernel_image(b) || !strncmp(b, "[kernel.", 8))
			return;
		b++;
		len = (size_t)(close - b);
	} else {
		const char *ko = strstr(b, ".ko");
		if (!ko || (ko[3] && ko[3] != '.'))
			return; /* not NAME.ko, NAME.ko.xz, NAME.ko.debug, ... */
		len = (size_t)(ko - b);
	}
	if (!len || len >= n)
		return;
	for (size_t i = 0; i < len; i++)
		out[i] = b[i] == '-' ? '_' : b[i];
	out[len] = '\0';
}

void spgo_agg_space(struct spgo_aggregate *a, enum spgo_agg_space space)
{
	struct spgo_agg_impl *I = a->impl;
	I->space = (int)space;
	I->kbase = 0;
	for (size_t i = 0; i < I->nsegs; i++)
		if (I->segs[i].flags & 1) {
			I->kbase = I->segs[i].vaddr;
			break;
		}
	if (space == SPGO_AGG_SPACE_MODULE) {
		spgo_agg_module_name(spgo_binary_path(a->bin), I->modname, sizeof I->modname);
		if (!I->modname[0]) /* (a module given by another name: its base name) */
			snprintf(I->modname, sizeof I->modname, "%s", I->base);
	}
}

/* The data's build-id of the running kernel (its [kernel.kallsyms] entry),
 * or NULL. */
static const struct spgo_perf_dso *kernel_id(struct spgo_agg_impl *I)
{
	size_t n;
	const struct spgo_perf_dso *d = spgo_perf_machine_dsos(I->machine, &n);
	for (size_t i = 0; i < n; i++)
		if (d[i].build_id_size && is_kernel_image(d[i].name))
			return &d[i];
	return NULL;
}

/* Do the data's build-id d and the binary's agree (on the shorter length:
 * perf pads ids to 20 bytes)? */
static int same_id(const struct spgo_perf_dso *d, const struct spgo_agg_impl *I)
{
	size_t n = d->build_id_size < I->build_id_len ? d->build_id_size : I->build_id_len;
	return !memcmp(d->build_id, I->build_id, n);
}

/* The data's build-id d differs from the binary's: kept for the error
 * spgo_agg_check_matched gives when nothing matched. */
static int id_differs(struct spgo_agg_impl *I, const struct spgo_perf_dso *d)
{
	char hex[41];
	spgo_build_id_hex(d->build_id, d->build_id_size, hex);
	free(I->kernel_id_differs);
	I->kernel_id_differs = xstrdup(hex);
	return VERDICT_NO;
}

int agg_kernel_verdict(struct spgo_aggregate *a, struct spgo_perf_dso *d, const char **how)
{
	struct spgo_agg_impl *I = a->impl;
	if (!d->kernel)
		return VERDICT_NO;
	if (I->space == SPGO_AGG_SPACE_KERNEL) {
		if (!is_kernel_image(d->name))
			return VERDICT_NO;
		*how = "kernel image name";
		const struct spgo_perf_dso *id = kernel_id(I);
		if (id && I->build_id_len) {
			if (!same_id(id, I))
				return id_differs(I, id);
			*how = "kernel image name and build-id";
		}
		return VERDICT_YES;
	}
	char name[sizeof I->modname];
	spgo_agg_module_name(d->name, name, sizeof name);
	if (!name[0] || strcmp(name, I->modname))
		return VERDICT_NO;
	*how = "module name";
	if (d->build_id_size && I->build_id_len) {
		if (!same_id(d, I))
			return id_differs(I, d);
		*how = "module name and build-id";
	}
	return VERDICT_YES;
}

int agg_kernel_map(struct spgo_agg_impl *I, const struct spgo_perf_map *m, uint64_t addr,
		   uint64_t *vaddr)
{
	uint64_t v = addr - m->start + I->kbase;
	for (size_t i = 0; i < I->nsegs; i++) {
		const struct spgo_segment *s = &I->segs[i];
		if (!(s->flags & 1) || v < s->vaddr || v - s->vaddr >= s->memsz)
			continue;
		uint64_t lo = m->start + (s->vaddr - I->kbase), hi = lo + s->memsz;
		if (lo < m->start)
			lo = m->start;
		if (hi > m->end || hi < lo)
			hi = m->end;
		*vaddr = v;
		I->c_in = 1;
		I->c_lo = lo;
		I->c_len = hi - lo;
		I->c_delta = I->kbase - m->start;
		return 0;
	}
	return -1;
}

/* Is there a kernel image mapping among the data's files? */
static int has_kernel_map(struct spgo_agg_impl *I, int modules)
{
	size_t n;
	const struct spgo_perf_dso *d = spgo_perf_machine_dsos(I->machine, &n);
	for (size_t i = 0; i < n; i++) {
		char name[128];
		spgo_agg_module_name(d[i].name, name, sizeof name);
		if (d[i].kernel && (modules ? name[0] != 0 : is_kernel_image(d[i].name)))
			return 1;
	}
	return 0;
}

int agg_kernel_unmatched(struct spgo_aggregate *a, const char *files)
{
	struct spgo_agg_impl *I = a->impl;
	const struct spgo_agg_stats *s = &a->stats;
	const char *bin = spgo_binary_path(a->bin);
	if (I->space == SPGO_AGG_SPACE_USER) {
		/* A kernel image, or a capture of the kernel alone (its events
		 * exclude user space: :k), given a user-space reading: say
		 * --kernel. */
		int kernel_image = 0;
		for (size_t i = 0; i < I->nsegs; i++)
			kernel_image |= (I->segs[i].flags & 1) && I->segs[i].vaddr >> 63;
		int kernel_only = I->excl_user && !I->incl_user && s->samples_kernel == s->samples;
		if (!s->samples_kernel || !(kernel_image || kernel_only))
			return 0;
		return spgo_error("%s: no sample falls in it, and %llu of the %llu samples are in the "
				  "kernel%s: for the kernel's profile give --kernel (with --binary vmlinux); "
				  "the data has %s", bin, (unsigned long long)s->samples_kernel,
				  (unsigned long long)s->samples,
				  kernel_only ? " (the capture's events exclude user space)" : "", files);
	}
	const char *what = I->space == SPGO_AGG_SPACE_KERNEL ? "the kernel" : "the module";
	if (I->kernel_id_differs)
		return spgo_error("%s: its build-id is not that of %s recorded (%s in the data): the "
				  "profile would be of another build; give the vmlinux (or .ko) of the "
				  "kernel that ran", bin, what, I->kernel_id_differs);
	if (s->samples && !s->samples_kernel && I->excl_kernel && !I->incl_kernel)
		return spgo_error("%s: no kernel samples: the capture was recorded without the kernel "
				  "(its events exclude it: record with a :k event, e.g. perf record -e "
				  "BR_INST_RETIRED.NEAR_TAKEN:k -a -N -b -c 500009, as root or with "
				  "kernel.perf_event_paranoid <= 1)", bin);
	if (s->samples && !s->samples_kernel)
		return spgo_error("%s: the capture is user space only (%llu samples, none in the kernel): "
				  "record with a :k event and -a for %s's profile", bin,
				  (unsigned long long)s->samples, what);
	if (!has_kernel_map(I, I->space == SPGO_AGG_SPACE_MODULE))
		return spgo_error("%s: the capture has %llu kernel samples but no mapping of %s "
				  "([kernel.kallsyms]_text%s of pid -1): perf could not read the kernel's "
				  "addresses (kernel.kptr_restrict) or the records were lost; record as "
				  "root", bin, (unsigned long long)s->samples_kernel, what,
				  I->space == SPGO_AGG_SPACE_MODULE ? ", or the module's .ko" : "");
	if (I->space == SPGO_AGG_SPACE_MODULE)
		return spgo_error("%s: no sample falls in module '%s'; the data has %s", bin, I->modname,
				  files);
	return 0;
}
