/*
 * A reader of `perf script` text (see spgo/perf.h): the lines llvm-profgen
 * reads, turned back into the records the perf.data reader gives.
 *
 *   sample, LBR only:      [pid] ip 0xFROM/0xTO/P/-/-/0/ ...
 *   sample, IP only:       [pid] ip
 *   sample with a stack:   [pid] (a line; may be empty, or "%5d " with pid)
 *                          \tADDR          (one per frame, leaf first)
 *                          [ 0xFROM/0xTO/... LBR line]  or an empty line
 *   mmap events:           [pid] PERF_RECORD_MMAP2 PID/TID: [0xS(0xL) @ 0xP ...]: r-xp NAME
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_impl.h"

struct spgo_perf_text {
	char *path;
	FILE *fp;
	char *line;
	size_t line_cap;
	uint64_t lineno, bytes;
	VEC(uint64_t) frames;
	VEC(struct perf_branch_entry) br;
	uint32_t pid;
	int have_pid, in_stack;
	char name[4096];
	/* A sample finished by a line that also starts the next thing. */
	char *pending;
};

int spgo_perf_text_open(struct spgo_perf_text **out, const char *path)
{
	*out = NULL;
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!fp)
		return spgo_error("%s: %s", path, strerror(errno));
	struct spgo_perf_text *t = xcalloc(1, sizeof *t);
	t->path = xstrdup(path);
	t->fp = fp;
	*out = t;
	return 0;
}

void spgo_perf_text_close(struct spgo_perf_text *t)
{
	if (!t)
		return;
	if (t->fp && t->fp != stdin)
		fclose(t->fp);
	free(t->line);
	free(t->path);
	free(t->pending);
	VEC_FREE(&t->frames);
	VEC_FREE(&t->br);
	free(t);
}

static int is_hex(const char *s, size_t n)
{
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

static int is_dec(const char *s, size_t n)
{
	if (n == 0 || n > 10)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int bad(struct spgo_perf_text *t, const char *what)
{
	return spgo_error("%s: line %llu: %s", t->path, (unsigned long long)t->lineno, what);
}

/* "0xFROM/0xTO/M/X/A/CYCLES/TYPE" */
static int parse_branch(struct spgo_perf_text *t, const char *s, size_t n)
{
	struct perf_branch_entry e;
	memset(&e, 0, sizeof e);
	char buf[160];
	if (n >= sizeof buf)
		return bad(t, "branch entry too long");
	memcpy(buf, s, n);
	buf[n] = 0;
	char *f[8] = {0};
	int nf = 0;
	for (char *p = buf, *save = NULL, *tok = strtok_r(p, "/", &save); tok && nf < 8;
	     tok = strtok_r(NULL, "/", &save))
		f[nf++] = tok;
	if (nf < 2 || !is_hex(f[0], strlen(f[0])) || !is_hex(f[1], strlen(f[1])))
		return bad(t, "bad branch entry (want 0xFROM/0xTO/...)");
	e.from = strtoull(f[0], NULL, 16);
	e.to = strtoull(f[1], NULL, 16);
	if (nf > 2) {
		e.mispred = f[2][0] == 'M';
		e.predicted = f[2][0] == 'P';
	}
	if (nf > 3)
		e.in_tx = f[3][0] == 'X';
	if (nf > 4)
		e.abort = f[4][0] == 'A';
	if (nf > 5)
		e.cycles = (uint16_t)strtoul(f[5], NULL, 10);
	VEC_PUSH(&t->br, e);
	return 0;
}

/* "PERF_RECORD_MMAP[2] PID/TID: [0xS(0xL) @ 0xP ...]: PROT NAME" */
static int parse_mmap(struct spgo_perf_text *t, const char *s, struct spgo_perf_record *rec)
{
	memset(rec, 0, sizeof *rec);
	int mmap2 = !strncmp(s, "PERF_RECORD_MMAP2", 17);
	const char *p = s + (mmap2 ? 17 : 16);
	int pid, tid;
	unsigned long long start, len, pgoff;
	int used = 0;
	if (sscanf(p, " %d/%d: [%llx(%llx) @ %llx%n", &pid, &tid, &start, &len, &pgoff, &used) < 5)
		return bad(t, "bad PERF_RECORD_MMAP line");
	const char *close = strstr(p + used, "]: ");
	if (!close)
		return bad(t, "bad PERF_RECORD_MMAP line");
	const char *prot = close + 3, *name = strchr(prot, ' ');
	if (!name)
		return bad(t, "bad PERF_RECORD_MMAP line");
	name++;
	size_t nl = strcspn(name, "\n");
	if (nl >= sizeof t->name)
		nl = sizeof t->name - 1;
	memcpy(t->name, name, nl);
	t->name[nl] = 0;
	rec->type = mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
	rec->misc = PERF_RECORD_MISC_USER;
	if (pid == -1)
		rec->misc = PERF_RECORD_MISC_KERNEL;
	struct spgo_perf_mmap *m = &rec->u.mmap;
	m->pid = (uint32_t)pid;
	m->tid = (uint32_t)tid;
	m->start = start;
	m->len = len;
	m->pgoff = pgoff;
	m->prot = (prot[0] == 'r') | (mmap2 && prot[2] == 'x') << 2;
	m->filename = t->name;
	rec->sample.pid = (uint32_t)pid;
	rec->sample.tid = (uint32_t)tid;
	return 1;
}

/* Fill rec with the sample gathered so far, and reset. */
static void emit(struct spgo_perf_text *t, struct spgo_perf_record *rec, int have_ip, uint64_t ip)
{
	memset(rec, 0, sizeof *rec);
	rec->type = PERF_RECORD_SAMPLE;
	struct spgo_perf_sample *s = &rec->sample;
	s->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	if (!have_ip && t->frames.n)
		ip = t->frames.v[0];
	s->ip = ip;
	s->pid = s->tid = t->have_pid ? t->pid : 0;
	s->cpumode = ip >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	if (t->frames.n) {
		s->sample_type |= PERF_SAMPLE_CALLCHAIN | SPGO_PERF_SAMPLE_TEXT_FRAMES;
		s->callchain = t->frames.v;
		s->callchain_nr = t->frames.n;
	}
	if (t->br.n) {
		s->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		s->branches = t->br.v;
		s->branch_nr = t->br.n;
	}
	s->branch_hw_idx = ~0ULL;
	rec->offset = t->lineno;
	rec->size = (uint16_t)(t->bytes > 65535 ? 65535 : t->bytes);
	t->bytes = 0;
	t->in_stack = 0;
	t->have_pid = 0;
}

int spgo_perf_text_next(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	/* The previous call handed out frames/branches: start afresh. */
	if (!t->in_stack) {
		t->frames.n = 0;
		t->br.n = 0;
	}
	for (;;) {
		ssize_t len = getline(&t->line, &t->line_cap, t->fp);
		if (len < 0) {
			if (ferror(t->fp))
				return spgo_error("%s: %s", t->path, strerror(errno));
			if (t->in_stack && t->frames.n) {
				emit(t, rec, 0, 0);
				return 1;
			}
			return 0;
		}
		t->lineno++;
		t->bytes += (uint64_t)len;
		char *s = t->line;
		while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
			s[--len] = 0;
		int tab = s[0] == '\t';
		char *mm = strstr(s, "PERF_RECORD_MMAP");
		if (mm) {
			if (t->in_stack && t->frames.n) {
				/* cannot hand out two records at once: drop the
				 * unterminated stack (perf never prints this) */
				t->in_stack = 0;
				t->frames.n = 0;
			}
			return parse_mmap(t, mm, rec) < 0 ? -1 : 1;
		}
		if (!strncmp(s, "PERF_RECORD_", 12) || s[0] == '#')
			continue;
		/* Split into tokens. */
		const char *tok[64];
		size_t tl[64];
		int nt = 0;
		for (char *p = s; *p;) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			char *b = p;
			while (*p && *p != ' ' && *p != '\t')
				p++;
			if (nt < 64) {
				tok[nt] = b;
				tl[nt] = (size_t)(p - b);
				nt++;
			}
		}
		if (tab && nt == 1 && is_hex(tok[0], tl[0])) {
			VEC_PUSH(&t->frames, strtoull(tok[0], NULL, 16));
			t->in_stack = 1;
			continue;
		}
		int first_br = nt;
		for (int i = 0; i < nt; i++)
			if (memchr(tok[i], '/', tl[i])) {
				first_br = i;
				break;
			}
		if (nt == 0) {
			if (t->in_stack && t->frames.n) {
				emit(t, rec, 0, 0);
				return 1;
			}
			t->in_stack = 1; /* a stack may follow */
			continue;
		}
		/* Leading plain tokens: [pid] [ip]. */
		int have_ip = 0;
		uint64_t ip = 0;
		int plain = first_br;
		if (plain > 2)
			return bad(t, "unrecognised line (want [pid] ip [brstack])");
		if (plain == 2) {
			if (!is_dec(tok[0], tl[0]) || !is_hex(tok[1], tl[1]))
				return bad(t, "unrecognised line (want [pid] ip [brstack])");
			t->pid = (uint32_t)strtoul(tok[0], NULL, 10);
			t->have_pid = 1;
			ip = strtoull(tok[1], NULL, 16);
			have_ip = 1;
		} else if (plain == 1) {
			if (!is_hex(tok[0], tl[0]))
				return bad(t, "unrecognised line (want [pid] ip [brstack])");
			/* "%7d \n" alone opens a stack sample with a pid */
			if (first_br == nt && len > 0 && s[len - 1] == ' ' && is_dec(tok[0], tl[0]) &&
			    !t->frames.n) {
				t->pid = (uint32_t)strtoul(tok[0], NULL, 10);
				t->have_pid = 1;
				t->in_stack = 1;
				continue;
			}
			ip = strtoull(tok[0], NULL, 16);
			have_ip = 1;
		}
		for (int i = first_br; i < nt; i++)
			if (parse_branch(t, tok[i], tl[i]) < 0)
				return -1;
		if (!have_ip && t->br.n && !t->frames.n)
			return bad(t, "branch stack without an ip");
		emit(t, rec, have_ip, ip);
		return 1;
	}
}
