/*
 * convert.c: turn the QEMU plugin's trace and counts files (see
 * trace.h) into a perf.data (spgo/perf_write.h) and a ground-truth
 * file (spgo/ground_truth.h).
 *
 * The plugin sees the guest's own mmap() calls (shared objects mapped by the
 * dynamic loader) but not the two images QEMU maps itself: the main program
 * and its ELF interpreter.  Their load biases come from the plugin's START
 * record: the program's entry (qemu_plugin_entry_code() minus e_entry) and
 * the first block executed (the interpreter's entry, or the program's when
 * it is static).
 *
 * The guest's ISA comes from the START record: the perf.data says aarch64
 * or x86_64 (HEADER_ARCH, as `perf record` on such a machine writes it),
 * and the ELF interpreter of a foreign guest is looked up in its sysroot,
 * where qemu found it (-L).  The branch records take the shape asked for
 * (spgo/emulate.h): their depth, and the fields of struct
 * perf_branch_entry the machine's PMU fills: BRBE's type and privilege
 * (branch_sample_type TYPE_SAVE and PRIV_SAVE, as perf asks on arm64),
 * LbrExtV2's speculation bits, none but the addresses for BRS.
 */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "emulate/spe_out.h"
#include "emulate/trace.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/emulate.h"
#include "spgo/ground_truth.h"
#include "spgo/perf.h"
#include "spgo/perf_write.h"

#define PAGE 4096ULL

/* A binary the run mapped, and where. */
struct dso {
	char *path;
	struct spgo_binary *bin; /* NULL if it could not be opened */
	const uint8_t *build_id;
	size_t build_id_len;
	int is_main;
};

struct mapping {
	uint64_t start, end, pgoff;
	size_t dso;
};

struct conv {
	const struct spgo_emu_options *opt;
	VEC(struct dso) dsos;
	VEC(struct mapping) maps;
	struct spgo_perf_writer *w;
	struct spe_out *spe; /* --spe: samples go there */
	uint32_t pid;
	unsigned machine; /* the guest's e_machine */
	uint64_t nsamples, threads, forks, execs;
	int exited, exit_code; /* the program's exit_group() */
};

static size_t dso_get(struct conv *c, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < c->dsos.n; i++)
		if (strcmp(c->dsos.v[i].path, real) == 0)
			return i;
	struct dso d = {.path = xstrdup(real)};
	if (spgo_binary_open(&d.bin, real, NULL) < 0) {
		spgo_warn("%s", spgo_errmsg());
		d.bin = NULL;
	} else {
		d.build_id = spgo_binary_build_id(d.bin, &d.build_id_len);
	}
	VEC_PUSH(&c->dsos, d);
	return c->dsos.n - 1;
}

/* Read e_entry and PT_INTERP of an ELF file. */
static int elf_entry_interp(const char *path, uint64_t *entry, char *interp, size_t cap)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return spgo_error("%s: cannot open", path);
	Elf64_Ehdr eh;
	int rc = -1;
	interp[0] = 0;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		spgo_error("%s: offset 0: not a 64-bit ELF file", path);
		goto out;
	}
	*entry = eh.e_entry;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		off_t off = (off_t)(eh.e_phoff + i * sizeof ph);
		if (pread(fd, &ph, sizeof ph, off) != (ssize_t)sizeof ph) {
			spgo_error("%s: offset 0x%llx: truncated program header", path, (unsigned long long)off);
			goto out;
		}
		if (ph.p_type == PT_INTERP && ph.p_filesz < cap) {
			if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
				spgo_error("%s: offset 0x%llx: truncated PT_INTERP", path,
					   (unsigned long long)ph.p_offset);
				goto out;
			}
			interp[ph.p_filesz] = 0;
		}
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static int emit_mmap(struct conv *c, size_t di, uint32_t tid, uint64_t time, uint64_t start,
		     uint64_t len, uint64_t pgoff, uint32_t prot, uint32_t flags, uint32_t maj,
		     uint32_t min, uint64_t ino)
{
	struct dso *d = &c->dsos.v[di];
	struct mapping m = {start, start + len, pgoff, di};
	VEC_PUSH(&c->maps, m);
	struct spgo_pw_mmap2 r = {
		.pid = c->pid, .tid = tid, .start = start, .len = len, .pgoff = pgoff,
		.maj = maj, .min = min, .ino = ino, .prot = prot, .flags = flags,
		.build_id = d->build_id, .build_id_len = d->build_id_len, .filename = d->path,
	};
	struct spgo_pw_sample_id sid = {.pid = c->pid, .tid = tid, .time = time};
	return spgo_pw_mmap2(c->w, &r, &sid);
}

/* MMAP2 records for an image QEMU mapped itself: its executable segments. */
static int map_image(struct conv *c, const char *path, uint64_t bias, uint32_t tid, uint64_t time)
{
	size_t di = dso_get(c, path);
	struct dso *d = &c->dsos.v[di];
	if (!d->bin)
		return 0;
	size_t n;
	const struct spgo_segment *seg = spgo_binary_segments(d->bin, &n);
	for (size_t i = 0; i < n; i++) {
		if (!(seg[i].flags & PF_X))
			continue;
		uint64_t start = (bias + seg[i].vaddr) & ~(PAGE - 1);
		uint64_t end = (bias + seg[i].vaddr + seg[i].memsz + PAGE - 1) & ~(PAGE - 1);
		uint64_t pgoff = seg[i].offset & ~(PAGE - 1);
		if (emit_mmap(c, di, tid, time, start, end - start, pgoff, 5 /* r-x */, 2 /* private */,
			      0, 0, 0) < 0)
			return -1;
	}
	return 0;
}

static const char *const shape_names[] = {"auto", "lbr", "brbe", "brs", "amd-lbr"};

const char *spgo_emu_shape_name(enum spgo_emu_shape shape)
{
	return (unsigned)shape < SPGO_ARRAY_LEN(shape_names) ? shape_names[shape] : "?";
}

int spgo_emu_shape_of(const char *name)
{
	for (size_t i = 0; i < SPGO_ARRAY_LEN(shape_names); i++)
		if (!strcmp(name, shape_names[i]))
			return (int)i;
	return -1;
}

int spgo_emu_settle(struct spgo_emu_options *opt, unsigned m)
{
	static const unsigned depth[] = {0, 32, 64, 16, 16};
	int a64 = m == EM_AARCH64;
	if (opt->shape == SPGO_EMU_SHAPE_AUTO)
		opt->shape = a64 ? SPGO_EMU_SHAPE_BRBE : SPGO_EMU_SHAPE_LBR;
	if (a64 != (opt->shape == SPGO_EMU_SHAPE_BRBE))
		return spgo_error("--branch-shape %s: %s records are %s's, the program is %s",
				  spgo_emu_shape_name(opt->shape), spgo_emu_shape_name(opt->shape),
				  a64 ? "x86-64" : "AArch64", a64 ? "AArch64" : "x86-64");
	unsigned max = depth[opt->shape];
	if (!opt->lbr)
		opt->lbr = max;
	if (opt->lbr > max)
		return spgo_error("--lbr %u: %s records hold at most %u branches", opt->lbr,
				  spgo_emu_shape_name(opt->shape), max);
	if (opt->wrong_path > 0 && opt->shape != SPGO_EMU_SHAPE_AMD_LBR)
		return spgo_error("--wrong-path: only AMD's LbrExtV2 (--branch-shape amd-lbr) records "
				  "mispredicted paths");
	if (opt->wrong_path < 0)
		opt->wrong_path = opt->shape == SPGO_EMU_SHAPE_AMD_LBR ? 32 : 0;
	if (a64 && !opt->sysroot)
		opt->sysroot = spgo_emu_sysroot_for(m);
	return 0;
}

static const char *comm_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static int on_start(struct conv *c, const struct emu_start *s, const char *trace)
{
	uint64_t entry;
	char interp[PATH_MAX];
	c->pid = s->h.pid;
	struct spgo_pw_sample_id sid = {.pid = s->h.pid, .tid = s->h.tid, .time = s->h.time};
	if (spgo_pw_comm(c->w, s->h.pid, s->h.tid, comm_of(s->path), 1, &sid) < 0)
		return -1;
	c->machine = s->e_machine;
	if (elf_entry_interp(s->path, &entry, interp, sizeof interp) < 0)
		return -1;
	size_t main_di = dso_get(c, s->path);
	struct dso *d = &c->dsos.v[main_di];
	d->is_main = 1;
	if (!d->bin)
		return spgo_error("%s: %s", trace, spgo_errmsg());
	/* QEMU's start_code is the lowest executable segment's runtime
	 * address; its entry_code is the interpreter's entry when there is one. */
	size_t n;
	const struct spgo_segment *seg = spgo_binary_segments(d->bin, &n);
	uint64_t lowest = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		if ((seg[i].flags & PF_X) && seg[i].vaddr < lowest)
			lowest = seg[i].vaddr;
	if (lowest == UINT64_MAX)
		return spgo_error("%s: no executable segment", s->path);
	if (map_image(c, s->path, s->start_code - lowest, s->h.tid, s->h.time) < 0)
		return -1;
	(void)entry;
	if (interp[0]) {
		uint64_t ientry;
		char *ipath = c->opt->sysroot && interp[0] == '/' ? xasprintf("%s%s", c->opt->sysroot, interp)
								    : xstrdup(interp);
		int irc = elf_entry_interp(ipath, &ientry, (char[8]){0}, 8) < 0 ||
				  map_image(c, ipath, s->entry_code - ientry, s->h.tid, s->h.time) < 0
			  ? -1 : 0;
		free(ipath);
		if (irc < 0)
			return -1;
	}
	return 0;
}

/* perf's branch type (PERF_BR_*) of a record of class cls. */
static unsigned perf_br_type(unsigned cls)
{
	switch (cls) {
	case EMU_CLS_COND: return PERF_BR_COND;
	case EMU_CLS_JUMP: return PERF_BR_UNCOND;
	case EMU_CLS_IJUMP: return PERF_BR_IND;
	case EMU_CLS_CALL: return PERF_BR_CALL;
	case EMU_CLS_ICALL: return PERF_BR_IND_CALL;
	case EMU_CLS_RET: return PERF_BR_RET;
	case EMU_CLS_SYSCALL: return PERF_BR_SYSCALL;
	case EMU_CLS_ERET: return PERF_BR_ERET;
	default: return PERF_BR_UNKNOWN;
	}
}

/* The shape's fields of one branch record (see the top). */
static void branch_fields(enum spgo_emu_shape shape, unsigned cls, struct perf_branch_entry *b)
{
	switch (shape) {
	case SPGO_EMU_SHAPE_BRBE:
		b->predicted = 1;
		b->type = perf_br_type(cls) & 15;
		b->priv = PERF_BR_PRIV_USER;
		break;
	case SPGO_EMU_SHAPE_AMD_LBR:
		b->predicted = 1;
		b->spec = cls == EMU_CLS_WRONG_PATH ? PERF_BR_SPEC_WRONG_PATH : PERF_BR_NON_SPEC_CORRECT_PATH;
		break;
	case SPGO_EMU_SHAPE_BRS: /* BRS records no prediction */
		break;
	default:
		b->predicted = 1;
	}
}

static int on_sample(struct conv *c, const struct emu_sample *s, int attr)
{
	if (c->spe)
		return spe_out_sample(c->spe, s);
	uint64_t chain[1 + 1 + 1024];
	struct perf_branch_entry br[64];
	size_t n = 0;
	chain[n++] = PERF_CONTEXT_USER;
	chain[n++] = s->ip;
	for (uint32_t i = 0; i < s->n_stack && n < SPGO_ARRAY_LEN(chain); i++)
		chain[n++] = s->data[i];
	uint32_t nb = s->n_br < 64 ? s->n_br : 64;
	memset(br, 0, sizeof br);
	for (uint32_t i = 0; i < nb; i++) {
		br[i].from = s->data[s->n_stack + 3 * i];
		br[i].to = s->data[s->n_stack + 3 * i + 1];
		branch_fields(c->opt->shape, (unsigned)s->data[s->n_stack + 3 * i + 2], &br[i]);
	}
	int stacks = c->opt->shape != SPGO_EMU_SHAPE_BRS && c->opt->shape != SPGO_EMU_SHAPE_AMD_LBR;
	struct spgo_pw_sample ps = {
		.ip = s->ip, .pid = s->h.pid, .tid = s->h.tid, .time = s->h.time,
		.period = s->period, .callchain = stacks ? chain : NULL, .nr_callchain = stacks ? n : 0,
		.branches = br, .nr_branches = nb,
	};
	c->nsamples++;
	return spgo_pw_sample(c->w, attr, &ps);
}

static void add_features(struct conv *c, int argc, char **argv)
{
	struct utsname u;
	if (uname(&u) == 0) {
		spgo_pw_feature_string(c->w, SPGO_PW_FEAT_HOSTNAME, u.nodename);
		spgo_pw_feature_string(c->w, SPGO_PW_FEAT_OSRELEASE, u.release);
	}
	spgo_pw_feature_string(c->w, SPGO_PW_FEAT_VERSION, "6.1 (spgo emulate)");
	spgo_pw_feature_string(c->w, SPGO_PW_FEAT_ARCH, c->machine == EM_AARCH64 ? "aarch64" : "x86_64");
	spgo_pw_feature_string(c->w, SPGO_PW_FEAT_CPUDESC, "QEMU TCG (spgo emulate)");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	spgo_pw_nrcpus(c->w, (uint32_t)(ncpu > 0 ? ncpu : 1), (uint32_t)(ncpu > 0 ? ncpu : 1));
	spgo_pw_cmdline(c->w, argc, argv);
	spgo_pw_feature_raw(c->w, SPGO_PW_FEAT_BRANCH_STACK, NULL, 0);
	for (size_t i = 0; i < c->dsos.n; i++)
		if (c->dsos.v[i].build_id_len)
			spgo_pw_build_id(c->w, -1, PERF_RECORD_MISC_USER, c->dsos.v[i].build_id,
					 c->dsos.v[i].build_id_len, c->dsos.v[i].path);
}

static void conv_free(struct conv *c)
{
	for (size_t i = 0; i < c->dsos.n; i++) {
		free(c->dsos.v[i].path);
		if (c->dsos.v[i].bin)
			spgo_binary_close(c->dsos.v[i].bin);
	}
	VEC_FREE(&c->dsos);
	VEC_FREE(&c->maps);
}

/* ---- ground truth ---------------------------------------------------------- */

static const struct mapping *map_find(const struct conv *c, uint64_t addr)
{
	for (size_t i = c->maps.n; i-- > 0;) /* later mappings shadow earlier ones */
		if (addr >= c->maps.v[i].start && addr < c->maps.v[i].end)
			return &c->maps.v[i];
	return NULL;
}

/* Runtime address -> (dso, vaddr); returns the dso index or -1. */
static long to_vaddr(const struct conv *c, uint64_t addr, uint64_t *vaddr)
{
	const struct mapping *m = map_find(c, addr);
	if (!m || !c->dsos.v[m->dso].bin)
		return -1;
	size_t n;
	const struct spgo_segment *seg = spgo_binary_segments(c->dsos.v[m->dso].bin, &n);
	if (spgo_segments_map(seg, n, m->start, m->pgoff, addr, vaddr) < 0)
		return -1;
	return (long)m->dso;
}

static const char cls_char[] = {'-', 'j', 'J', 'I', 'c', 'C', 'r', 's'};

static int cmp_insn(const void *a, const void *b)
{
	const struct spgo_gt_insn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}
static int cmp_edge(const void *a, const void *b)
{
	const struct spgo_gt_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->kind - y->kind;
}

/* A raw block of the counts file, found by start address. */
struct rawblock {
	uint64_t start, end, count;
	uint32_t n;
	const uint32_t *insn;
};

static int write_truth(struct conv *c, const char *counts, const char *out)
{
	struct spgo_file f;
	if (spgo_file_map(&f, counts) < 0)
		return -1;
	int rc = -1;
	size_t pos = 16;
	uint64_t magic, nb;
	struct spgo_kmap insn_count, insn_info, edge_count, last_cls;
	spgo_kmap_init(&insn_count, 1); /* runtime addr -> count */
	spgo_kmap_init(&insn_info, 1);  /* runtime addr -> size << 8 | cls */
	spgo_kmap_init(&edge_count, 2); /* (from, to) -> count */
	spgo_kmap_init(&last_cls, 1);   /* last insn of a block -> end << 8 | cls */
	struct spgo_ground_truth gt = {0};
	if (f.size < 16) {
		spgo_error("%s: offset 0: truncated counts file", counts);
		goto out;
	}
	memcpy(&magic, f.data, 8);
	memcpy(&nb, f.data + 8, 8);
	if (magic != EMU_COUNTS_MAGIC) {
		spgo_error("%s: offset 0: not a spgo emulate counts file", counts);
		goto out;
	}
	for (uint64_t b = 0; b < nb; b++) {
		uint64_t hdr[3];
		if (pos + 24 > f.size)
			goto trunc;
		memcpy(hdr, f.data + pos, 24);
		uint32_t n = (uint32_t)hdr[2];
		size_t bytes = ((size_t)n * 4 + 7) & ~(size_t)7;
		if (pos + 24 + bytes > f.size)
			goto trunc;
		const uint8_t *ins = f.data + pos + 24;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t w;
			memcpy(&w, ins + 4 * i, 4);
			uint64_t a = hdr[0] + (w >> 16);
			*spgo_kmap_upsert(&insn_count, &a) += hdr[1];
			*spgo_kmap_upsert(&insn_info, &a) = w & 0xffff;
			if (i == n - 1)
				*spgo_kmap_upsert(&last_cls, &a) = (a + ((w >> 8) & 0xff)) << 8 | (w & 0xff);
		}
		pos += 24 + bytes;
	}
	uint64_t ne;
	if (pos + 8 > f.size)
		goto trunc;
	memcpy(&ne, f.data + pos, 8);
	pos += 8;
	if (ne > (f.size - pos) / 24)
		goto trunc;
	for (uint64_t i = 0; i < ne; i++, pos += 24) {
		uint64_t e[3];
		memcpy(e, f.data + pos, 24);
		*spgo_kmap_upsert(&edge_count, e) += e[2];
	}

	/* Which dsos go in: the main program, or all with --ground-truth-all. */
	gt.n_dsos = 0;
	gt.dsos = xcalloc(c->dsos.n ? c->dsos.n : 1, sizeof *gt.dsos);
	long *slot = xmalloc((c->dsos.n + 1) * sizeof *slot);
	for (size_t i = 0; i < c->dsos.n; i++) {
		slot[i] = -1;
		if (!c->dsos.v[i].bin || !(c->dsos.v[i].is_main || c->opt->truth_all))
			continue;
		struct spgo_gt_dso *d = &gt.dsos[gt.n_dsos];
		d->path = xstrdup(c->dsos.v[i].path);
		d->build_id_len = c->dsos.v[i].build_id_len;
		memcpy(d->build_id, c->dsos.v[i].build_id, d->build_id_len);
		slot[i] = (long)gt.n_dsos++;
	}
	VEC(struct spgo_gt_insn) *iv = xcalloc(gt.n_dsos + 1, sizeof *iv);
	VEC(struct spgo_gt_edge) *ev = xcalloc(gt.n_dsos + 1, sizeof *ev);
	const uint64_t *key;
	uint64_t *val;
	for (size_t it = 0; spgo_kmap_next(&insn_count, &it, &key, &val);) {
		uint64_t va;
		long di = to_vaddr(c, key[0], &va);
		if (di < 0 || slot[di] < 0)
			continue;
		uint64_t info = *spgo_kmap_find(&insn_info, key);
		struct spgo_gt_insn in = {va, *val, (uint8_t)(info >> 8), cls_char[info & 7]};
		VEC_PUSH(&iv[slot[di]], in);
	}
	for (size_t it = 0; spgo_kmap_next(&edge_count, &it, &key, &val);) {
		uint64_t from = key[0], to = key[1], fva = 0, tva = 0;
		uint64_t *lc = spgo_kmap_find(&last_cls, &from);
		uint64_t end = lc ? *lc >> 8 : 0;
		unsigned cls = lc ? *lc & 0xff : 0;
		char kind;
		if (cls == EMU_CLS_CALL || cls == EMU_CLS_ICALL || cls == EMU_CLS_JUMP ||
		    cls == EMU_CLS_IJUMP || cls == EMU_CLS_RET)
			kind = 'T';
		else if (cls == EMU_CLS_COND)
			kind = to == end ? 'F' : 'T';
		else if (to == end)
			continue; /* a block split: sequential flow, not an edge */
		else
			kind = 'X';
		long fd = to_vaddr(c, from, &fva), td = to_vaddr(c, to, &tva);
		for (int side = 0; side < 2; side++) {
			long di = side ? td : fd;
			if (di < 0 || slot[di] < 0 || (side && td == fd))
				continue;
			struct spgo_gt_edge e = {
				.from = fd == di ? fva : SPGO_GT_OUTSIDE,
				.to = td == di ? tva : SPGO_GT_OUTSIDE,
				.count = *val,
				.kind = kind,
			};
			VEC_PUSH(&ev[slot[di]], e);
		}
	}
	for (size_t d = 0; d < gt.n_dsos; d++) {
		spgo_sort(iv[d].v, iv[d].n, sizeof *iv[d].v, cmp_insn);
		spgo_sort(ev[d].v, ev[d].n, sizeof *ev[d].v, cmp_edge);
		/* Merge edges that became equal (several outside ends). */
		size_t k = 0;
		for (size_t i = 0; i < ev[d].n; i++) {
			if (k && cmp_edge(&ev[d].v[k - 1], &ev[d].v[i]) == 0)
				ev[d].v[k - 1].count += ev[d].v[i].count;
			else
				ev[d].v[k++] = ev[d].v[i];
		}
		gt.dsos[d].insns = iv[d].v, gt.dsos[d].n_insns = iv[d].n;
		gt.dsos[d].edges = ev[d].v, gt.dsos[d].n_edges = k;
	}
	free(iv);
	free(ev);
	free(slot);
	rc = spgo_gt_write(&gt, out);
	goto out;
trunc:
	spgo_error("%s: offset 0x%zx: truncated counts file", counts, pos);
out:
	spgo_gt_free(&gt);
	spgo_kmap_free(&insn_count);
	spgo_kmap_free(&insn_info);
	spgo_kmap_free(&edge_count);
	spgo_kmap_free(&last_cls);
	spgo_file_unmap(&f);
	return rc;
}

/* The context-sensitive ground truth (src/aggregate/ground_truth_cs.c):
 * addresses map into the main program only. */
static int map_main(void *arg, uint64_t addr, uint64_t *vaddr)
{
	const struct conv *c = arg;
	long di = to_vaddr(c, addr, vaddr);
	return di >= 0 && c->dsos.v[di].is_main;
}

static int write_truth_cs(struct conv *c)
{
	for (size_t i = 0; i < c->dsos.n; i++)
		if (c->dsos.v[i].is_main)
			return spgo_gt_cs_convert(c->opt->cscounts, map_main, c, c->dsos.v[i].path,
						  c->dsos.v[i].build_id, c->dsos.v[i].build_id_len,
						  c->opt->max_stack > 1 ? c->opt->max_stack - 1 : 1,
						  c->opt->truth_cs);
	return spgo_error("%s: the main program was not found in the trace", c->opt->cscounts);
}

/* The decoded instructions at a runtime address, for spe_out.c. */
static int spe_code(void *arg, uint64_t addr, const struct spgo_insn **insns, size_t *n, uint64_t *bias)
{
	const struct conv *c = arg;
	uint64_t va;
	long di = to_vaddr(c, addr, &va);
	if (di < 0)
		return -1;
	*insns = spgo_binary_insns(c->dsos.v[di].bin, n);
	*bias = addr - va;
	return 0;
}

/* ---- the trace ---------------------------------------------------------------- */

/* The one event of the perf.data: branches or instructions, sampled with
 * call stacks (but for AMD's shapes, recorded with -b alone) and branch
 * stacks; its attribute index, or -1. */
static int add_event(struct conv *c)
{
	const struct spgo_emu_options *opt = c->opt;
	struct perf_event_attr attr = {0};
	int amd = opt->shape == SPGO_EMU_SHAPE_BRS || opt->shape == SPGO_EMU_SHAPE_AMD_LBR;
	const char *name = opt->instructions ? "instructions:u" : "branches:u";
	attr.size = PERF_ATTR_SIZE_VER7;
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = opt->instructions ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	if (amd && !opt->instructions) {
		/* AMD's recipe: --pfm-events RETIRED_TAKEN_BRANCH_INSTRUCTIONS
		 * (PMCx0C4), a raw event */
		attr.type = PERF_TYPE_RAW;
		attr.config = 0xc4;
		name = "RETIRED_TAKEN_BRANCH_INSTRUCTIONS:u";
	}
	attr.sample_period = opt->period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			   (amd ? 0 : PERF_SAMPLE_CALLCHAIN) | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	if (opt->shape == SPGO_EMU_SHAPE_BRBE)
		attr.branch_sample_type |= PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_PRIV_SAVE;
	spgo_pw_attr_user_tasks(&attr);
	/* BRBE and BRS have no precise IP (perf falls back to 0 on them) */
	attr.precise_ip = opt->skid || opt->shape == SPGO_EMU_SHAPE_BRBE || opt->shape == SPGO_EMU_SHAPE_BRS ? 0 : 2;
	return spgo_pw_add_attr(c->w, &attr, name, NULL, 0);
}

/* One record of the trace (h its header, r the record, in place; ai the
 * event): 0, 1 when it is malformed, -1 on an error (said). */
static int on_record(struct conv *c, const struct emu_rec *h, const void *r, const char *trace, int ai)
{
	int bad = 0;
	switch (h->type) {
	case EMU_REC_START:
		bad = h->size < sizeof(struct emu_start) + 1 ||
		      memchr((const char *)r + sizeof(struct emu_start), 0, h->size - sizeof(struct emu_start)) ==
			      NULL;
		if (!bad && on_start(c, r, trace) < 0)
			return -1;
		break;
	case EMU_REC_MMAP: {
		const struct emu_mmap *m = r;
		bad = h->size < sizeof *m + 1 || memchr(m->path, 0, h->size - sizeof *m) == NULL;
		if (bad)
			break;
		size_t di = dso_get(c, m->path);
		if (emit_mmap(c, di, h->tid, h->time, m->addr, m->len, m->pgoff, m->prot, m->flags, m->maj,
			      m->min, m->ino) < 0)
			return -1;
		break;
	}
	case EMU_REC_THREAD: {
		const struct emu_thread *t = r;
		struct spgo_pw_sample_id sid = {.pid = h->pid, .tid = h->tid, .time = h->time};
		bad = h->size < sizeof *t;
		c->threads++;
		if (!bad && (spgo_pw_fork(c->w, h->pid, h->pid, h->tid, t->ptid, h->time, &sid) < 0 ||
			     spgo_pw_comm(c->w, h->pid, h->tid, c->dsos.n ? comm_of(c->dsos.v[0].path) : "?", 0,
					  &sid) < 0))
			return -1;
		break;
	}
	case EMU_REC_SAMPLE: {
		const struct emu_sample *s = r;
		bad = h->size < sizeof *s || (h->size - sizeof *s) / 8 < (uint64_t)s->n_stack + 3 * (uint64_t)s->n_br;
		if (!bad && on_sample(c, s, ai) < 0)
			return -1;
		break;
	}
	case EMU_REC_CHILD: {
		const struct emu_child *ch = r;
		bad = h->size < sizeof *ch;
		if (!bad)
			*(ch->exec ? &c->execs : &c->forks) += 1;
		break;
	}
	case EMU_REC_EXIT: {
		const struct emu_exit *e = r;
		bad = h->size < sizeof *e;
		if (!bad)
			c->exit_code = e->code, c->exited = 1;
		break;
	}
	default:
		bad = 1;
	}
	return bad;
}

/*
 * perf record ends each pass over its buffers with a FINISHED_ROUND: what
 * came before the round before it is older than anything after, so a
 * reader sorts and hands out records a round at a time instead of holding
 * the whole file.  The trace's times never go back (the plugin takes them
 * under its lock), so a round ends after each ROUND_BYTES of it (the
 * plugin's buffer); should they go back, no more rounds end.
 */
#define ROUND_BYTES (1u << 20)

static int end_round(struct conv *c)
{
	struct perf_event_header h = {.type = SPGO_PERF_RECORD_FINISHED_ROUND, .size = sizeof h};
	return spgo_pw_record(c->w, &h);
}

/* The trace's records after its magic, in order: 0 or -1 (said). */
static int read_trace(struct conv *c, const struct spgo_file *f, const char *trace, int ai)
{
	size_t pos = 8, round_end = ROUND_BYTES;
	uint64_t last = 0;
	int rounds = 1;
	while (pos < f->size) {
		struct emu_rec h;
		if (pos + sizeof h > f->size)
			return spgo_error("%s: offset 0x%zx: truncated record", trace, pos);
		memcpy(&h, f->data + pos, sizeof h);
		if (h.size < sizeof h || h.size % 8 || h.size > f->size - pos)
			return spgo_error("%s: offset 0x%zx: bad record size %u", trace, pos, h.size);
		rounds &= h.time >= last;
		last = h.time;
		if (rounds && pos >= round_end) {
			if (end_round(c) < 0)
				return -1;
			round_end = pos + ROUND_BYTES;
		}
		/* Records are 8-aligned in a mapped file: read them in place. */
		int bad = on_record(c, &h, f->data + pos, trace, ai);
		if (bad < 0)
			return -1;
		if (bad)
			return spgo_error("%s: offset 0x%zx: malformed record of type %u", trace, pos, h.type);
		pos += h.size;
	}
	if (!c->pid)
		return spgo_error("%s: the program executed no instruction", trace);
	return 0;
}

int spgo_emu_convert(const struct spgo_emu_options *opt, const char *trace, const char *counts,
		     int argc, char **argv, struct spgo_emu_stats *st)
{
	struct conv c = {.opt = opt};
	struct spgo_file f;
	if (spgo_file_map(&f, trace) < 0)
		return -1;
	int rc = -1;
	uint64_t magic = 0;
	if (f.size >= 8)
		memcpy(&magic, f.data, 8);
	if (magic != EMU_TRACE_MAGIC) {
		spgo_error("%s: offset 0: not a spgo emulate trace", trace);
		goto out_nowriter;
	}
	/* The perf.data and the ground truth go together: both or neither. */
	spgo_out_hold();
	if (spgo_pw_open(&c.w, opt->output) < 0)
		goto out_nowriter;
	int ai;
	if (opt->spe) {
		c.spe = spe_out_new(c.w, opt->spe > 1, spe_code, &c);
		ai = spe_out_begin(c.spe, opt->period);
	} else {
		ai = add_event(&c);
	}
	if (ai < 0 || read_trace(&c, &f, trace, ai) < 0 || (c.spe && spe_out_flush(c.spe) < 0))
		goto out;
	if (c.spe)
		c.nsamples = spe_out_records(c.spe);
	add_features(&c, argc, argv);
	rc = spgo_pw_commit(c.w);
	c.w = NULL;
	if (rc == 0)
		spgo_info("%s: %" PRIu64 " samples", opt->output, c.nsamples);
	if (rc == 0 && opt->truth)
		rc = write_truth(&c, counts, opt->truth);
	if (rc == 0 && opt->truth_cs)
		rc = write_truth_cs(&c);
	if (rc == 0 && st) {
		st->samples = c.nsamples;
		st->threads = c.threads + 1;
		st->forks = c.forks;
		st->execs = c.execs;
		st->exited = c.exited;
		st->exit_code = c.exit_code;
	}
out:
	if (c.w)
		spgo_pw_abort(c.w);
out_nowriter:
	/* Every output complete: renamed together, or all removed. */
	if (spgo_out_release(rc == 0) < 0)
		rc = -1;
	struct stat sb;
	if (rc == 0 && st)
		st->bytes = stat(opt->output, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	spe_out_free(c.spe);
	conv_free(&c);
	spgo_file_unmap(&f);
	return rc;
}
