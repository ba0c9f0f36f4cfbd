/*
 * perf.data printed as `perf script` prints it, byte for byte (see
 * spgo/perf_script.h): the fields ip, brstack, pid, tid, call stacks and
 * --show-mmap-events, formatted by hand into a large buffer.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spgo/common.h"
#include "spgo/perf.h"
#include "spgo/perf_script.h"

enum {
	F_IP = SPGO_PERF_SCRIPT_IP,
	F_BRSTACK = SPGO_PERF_SCRIPT_BRSTACK,
	F_PID = SPGO_PERF_SCRIPT_PID,
	F_TID = SPGO_PERF_SCRIPT_TID,
};

/* A large output buffer with hand-made hex formatting: perf script's text
 * is mostly hex numbers, and printf is the bottleneck of a naive writer. */
struct obuf {
	FILE *fp;
	char *b;
	size_t n, cap;
};

static void ob_flush(struct obuf *o)
{
	fwrite(o->b, 1, o->n, o->fp);
	o->n = 0;
}

static inline void ob_reserve(struct obuf *o, size_t k)
{
	if (SPGO_UNLIKELY(o->n + k > o->cap))
		ob_flush(o);
}

static inline void ob_ch(struct obuf *o, char c)
{
	ob_reserve(o, 1);
	o->b[o->n++] = c;
}

/* The 8 hex digits of a 32-bit value as 8 ASCII bytes, first digit in the
 * lowest byte (a little-endian store writes them in reading order). */
static inline uint64_t hex8(uint32_t v)
{
	uint64_t x = v;
	x = ((x & 0xffff0000ULL) << 16) | (x & 0xffffULL);
	x = ((x & 0x0000ff000000ff00ULL) << 8) | (x & 0x000000ff000000ffULL);
	x = ((x & 0x00f000f000f000f0ULL) << 4) | (x & 0x000f000f000f000fULL);
	/* a nibble per byte, the most significant in the highest byte */
	uint64_t letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + letters * 39;
	return __builtin_bswap64(x);
}

/* Write v in lower-case hex at p (no prefix, no padding); returns the end.
 * Stores up to 16 bytes at p (room must be reserved), without loops or
 * libc calls: formatting hex is most of what spgo script does. */
static inline char *put_hex(char *p, uint64_t v)
{
	int k = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	uint64_t lo = hex8((uint32_t)v);
	if (k <= 8) {
		lo >>= 8 * (8 - k); /* drop the leading zero digits */
		memcpy(p, &lo, 8);
	} else {
		uint64_t hi = hex8((uint32_t)(v >> 32)) >> (8 * (16 - k));
		memcpy(p, &hi, 8);
		memcpy(p + k - 8, &lo, 8);
	}
	return p + k;
}

/* "%16lx" */
static inline void ob_hex16(struct obuf *o, uint64_t v)
{
	ob_reserve(o, 16);
	char *p = o->b + o->n;
	memcpy(p, "                ", 16);
	int k = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	put_hex(p + 16 - k, v);
	o->n += 16;
}

static void ob_printf(struct obuf *o, const char *fmt, ...) SPGO_PRINTF(2, 3);
static void ob_printf(struct obuf *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ob_reserve(o, 8192);
	int k = vsnprintf(o->b + o->n, 8192, fmt, ap);
	va_end(ap);
	if (k > 8191)
		k = 8191;
	if (k > 0)
		o->n += (size_t)k;
}

/* perf's names of branch types (PERF_BR_*), "" for unknown. */
static const char *branch_type_name(unsigned type, unsigned new_type)
{
	static const char *const names[] = {
		"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
		"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", NULL,
	};
	static const char *const new_names[] = {"FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
						 "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5"};
	if (type == 15) /* PERF_BR_EXTEND_ABI */
		return new_type < 8 ? new_names[new_type] : "";
	return type < 15 ? names[type] : "";
}

static void print_brstack(struct obuf *o, const struct spgo_perf_sample *s)
{
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const struct perf_branch_entry *e = &s->branches[i];
		ob_reserve(o, 128);
		char *p = o->b + o->n;
		*p++ = ' ';
		*p++ = '0';
		*p++ = 'x';
		p = put_hex(p, e->from);
		*p++ = '/';
		*p++ = '0';
		*p++ = 'x';
		p = put_hex(p, e->to);
		*p++ = '/';
		*p++ = (!e->mispred && !e->predicted) ? '-' : e->predicted ? 'P' : 'M';
		if (SPGO_PERF_BRANCH_NOT_TAKEN(e)) /* SPE's not taken, as perf 6.13+ prints it */
			*p++ = 'N';
		*p++ = '/';
		*p++ = e->in_tx ? 'X' : '-';
		*p++ = '/';
		*p++ = e->abort ? 'A' : '-';
		*p++ = '/';
		/* cycles, in decimal */
		unsigned c = (unsigned)e->cycles;
		if (c < 10) {
			*p++ = (char)('0' + c);
		} else {
			char d[8];
			int k = 8;
			do {
				d[--k] = (char)('0' + c % 10);
				c /= 10;
			} while (c);
			while (k < 8)
				*p++ = d[k++];
		}
		*p++ = '/';
		if (e->type) {
			for (const char *tn = branch_type_name(e->type, e->new_type); *tn; tn++)
				*p++ = *tn;
		}
		*p++ = ' ';
		o->n = (size_t)(p - o->b);
	}
}

/* Fields printed before the ip: pid, tid (perf_sample__fprintf_start). */
static void print_start(struct obuf *o, unsigned fields, const struct spgo_perf_sample *s)
{
	if ((fields & F_PID) && (fields & F_TID))
		ob_printf(o, "%5d/%-5d ", (int)s->pid, (int)s->tid);
	else if (fields & F_PID)
		ob_printf(o, "%5d ", (int)s->pid);
	else if (fields & F_TID)
		ob_printf(o, "%5d ", (int)s->tid);
}

/*
 * A call stack as perf script prints it: frames leaf first, PERF_CONTEXT_*
 * markers switch kernel/user, at most 127 frames, and user frames found in a
 * file mapping print as the offset in that file (as runtime addresses with
 * --raw-stacks: llvm-profgen takes the frames for addresses).
 */
static void print_callchain(struct obuf *o, struct spgo_perf_machine *m, int raw_stacks,
			    const struct spgo_perf_sample *s)
{
	unsigned cpumode = PERF_RECORD_MISC_USER;
	int frames = 0;
	size_t ndso;
	/* 127 frames fit: no flush in the middle, so a stack can be taken back */
	ob_reserve(o, 128 * 18);
	size_t start = o->n;
	for (uint64_t i = 0; i < s->callchain_nr && frames < 127; i++) {
		uint64_t ip = s->callchain[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			switch ((int64_t)ip) {
			case PERF_CONTEXT_HV: cpumode = PERF_RECORD_MISC_HYPERVISOR; break;
			case PERF_CONTEXT_KERNEL: cpumode = PERF_RECORD_MISC_KERNEL; break;
			case PERF_CONTEXT_USER: cpumode = PERF_RECORD_MISC_USER; break;
			default:
				/* perf takes an unknown context as a corrupt stack
				 * and drops all of it */
				o->n = start;
				return;
			}
			continue;
		}
		frames++;
		uint64_t addr = ip;
		if (cpumode == PERF_RECORD_MISC_USER && !raw_stacks) {
			const struct spgo_perf_map *map = spgo_perf_machine_find(m, s->pid, cpumode, ip);
			if (map) {
				const struct spgo_perf_dso *d = &spgo_perf_machine_dsos(m, &ndso)[map->dso];
				if (!d->kernel && !d->anon)
					addr = ip - map->start + map->pgoff;
			}
		}
		ob_ch(o, '\t');
		ob_hex16(o, addr);
		ob_ch(o, '\n');
	}
}

static void print_mmap(struct obuf *o, unsigned fields, const struct spgo_perf_record *rec)
{
	const struct spgo_perf_mmap *m = &rec->u.mmap;
	struct spgo_perf_sample s = rec->sample;
	if (!rec->attr || !rec->attr->attr.sample_id_all) {
		s.pid = m->pid;
		s.tid = m->tid;
	}
	print_start(o, fields, &s);
	if (rec->type == PERF_RECORD_MMAP) {
		ob_printf(o, "PERF_RECORD_MMAP %d/%d: [%#llx(%#llx) @ %#llx]: %c %s\n", (int)m->pid,
			  (int)m->tid, (unsigned long long)m->start, (unsigned long long)m->len,
			  (unsigned long long)m->pgoff,
			  (rec->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x', m->filename);
		return;
	}
	char mid[128];
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		char hexid[41];
		for (int i = 0; i < m->build_id_size; i++)
			snprintf(hexid + 2 * i, 3, "%02x", m->build_id[i]);
		hexid[2 * m->build_id_size] = 0;
		snprintf(mid, sizeof mid, "<%s>", hexid);
	} else {
		snprintf(mid, sizeof mid, "%02x:%02x %llu %llu", m->maj, m->min,
			 (unsigned long long)m->ino, (unsigned long long)m->ino_generation);
	}
	ob_printf(o, "PERF_RECORD_MMAP2 %d/%d: [%#llx(%#llx) @ %#llx %s]: %c%c%c%c %s\n",
		  (int)m->pid, (int)m->tid, (unsigned long long)m->start,
		  (unsigned long long)m->len, (unsigned long long)m->pgoff, mid,
		  (m->prot & 1) ? 'r' : '-', (m->prot & 2) ? 'w' : '-', (m->prot & 4) ? 'x' : '-',
		  (m->flags & 1) ? 's' : 'p', m->filename);
}

static void print_sample(struct obuf *o, unsigned fields, struct spgo_perf_machine *m,
			 int raw_stacks, const struct spgo_perf_sample *s)
{
	print_start(o, fields, s);
	if (fields & F_IP) {
		if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
			ob_ch(o, '\n');
			print_callchain(o, m, raw_stacks, s);
		} else {
			ob_ch(o, ' ');
			ob_hex16(o, s->ip);
		}
	}
	if (fields & F_BRSTACK)
		print_brstack(o, s);
	ob_ch(o, '\n');
}

/*
 * How many times perf delivers a sample with PERF_SAMPLE_READ: once per
 * counter value (each group member with a group read) whose event is known
 * and whose value moved since that id's last sample.
 */
static int read_deliveries(struct spgo_perf_reader *r, struct spgo_kmap *last,
			   const struct spgo_perf_record *rec)
{
	const struct spgo_perf_sample *s = &rec->sample;
	if (!rec->attr || !s->read)
		return 1;
	uint64_t f = rec->attr->attr.read_format;
	size_t fixed = !!(f & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t per = 1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST);
	const uint64_t *v = s->read;
	size_t nr = 1, at;
	if (f & PERF_FORMAT_GROUP) {
		nr = v[0];
		at = 1 + fixed;
	} else {
		at = 0;
	}
	int times = 0;
	for (size_t i = 0; i < nr; i++) {
		size_t base = at + i * per, need = base + per;
		if (!(f & PERF_FORMAT_GROUP))
			need = fixed + per;
		if (need > s->read_words)
			break;
		uint64_t value = v[base];
		uint64_t id = (f & PERF_FORMAT_ID)
				      ? v[(f & PERF_FORMAT_GROUP) ? base + 1 : fixed + 1]
				      : s->id;
		int known = 0;
		for (size_t k = 0; k < spgo_perf_nattrs(r) && !known; k++) {
			const struct spgo_perf_attr *a = spgo_perf_attr(r, k);
			for (size_t j = 0; j < a->nids && !known; j++)
				known = a->ids[j] == id;
		}
		uint64_t *prev = spgo_kmap_upsert(last, &id);
		uint64_t period = value - *prev;
		*prev = value;
		if (known && period)
			times++;
	}
	return times;
}

int spgo_perf_script_fields(const char *spec, unsigned *fields)
{
	*fields = 0;
	char *copy = xstrdup(spec), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "ip"))
			*fields |= F_IP;
		else if (!strcmp(t, "brstack"))
			*fields |= F_BRSTACK;
		else if (!strcmp(t, "pid"))
			*fields |= F_PID;
		else if (!strcmp(t, "tid"))
			*fields |= F_TID;
		else {
			spgo_error("field '%s' is not supported (ip, brstack, pid, tid)", t);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

int spgo_perf_script(const char *path, FILE *out, const struct spgo_perf_script_opts *opts)
{
	struct spgo_perf_reader *r;
	if (spgo_perf_open(&r, path, SPGO_PERF_ORDERED) < 0)
		return -1;
	struct obuf o = {out, xmalloc(1 << 20), 0, 1 << 20};
	/* Into a pipe: a 1 MiB pipe buffer saves most of the context switches
	 * with the reader (best effort; the system may refuse). */
	struct stat st;
	int fd = fileno(out);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
	struct spgo_perf_machine *m = spgo_perf_machine_new();
	struct spgo_perf_record rec;
	struct spgo_kmap last_value; /* sample id -> last counter value */
	spgo_kmap_init(&last_value, 1);
	int have_fields = !(opts->fields & SPGO_PERF_SCRIPT_AUTO), rc;
	unsigned fields = have_fields ? opts->fields : 0;
	while ((rc = spgo_perf_next(r, &rec)) > 0) {
		/* perf's default fields: by the first event (known once the
		 * first record is read, in pipe mode too) */
		if (!have_fields && spgo_perf_nattrs(r)) {
			const struct spgo_perf_attr *a = spgo_perf_attr(r, 0);
			fields = F_IP | ((a->attr.sample_type & PERF_SAMPLE_BRANCH_STACK) ? F_BRSTACK : 0);
			have_fields = 1;
		}
		switch (rec.type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			spgo_perf_machine_feed(m, &rec);
			if (opts->show_mmap)
				print_mmap(&o, fields, &rec);
			break;
		case PERF_RECORD_FORK:
			spgo_perf_machine_feed(m, &rec);
			break;
		case PERF_RECORD_SAMPLE: {
			const struct spgo_perf_sample *s = &rec.sample;
			int times = 1;
			if (s->sample_type & PERF_SAMPLE_READ)
				times = read_deliveries(r, &last_value, &rec);
			for (int k = 0; k < times; k++)
				print_sample(&o, fields, m, opts->raw_stacks, s);
			break;
		}
		default:
			break;
		}
	}
	spgo_kmap_free(&last_value);
	spgo_perf_machine_free(m);
	spgo_perf_close(r);
	ob_flush(&o);
	free(o.b);
	return rc < 0 ? -1 : 0;
}
