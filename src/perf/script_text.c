/*
 * A reader of `perf script` text (see spgo/perf.h): the lines llvm-profgen
 * reads, turned back into the records the perf.data reader gives.
 *
 *   sample, LBR only:      [pid[/tid]] [event:] ip 0xFROM/0xTO/P/-/-/0/ ...
 *   sample, IP only:       [pid[/tid]] [event:] ip
 *   sample with a stack:   a line that opens it: empty, or "%5d " (pid),
 *                          or the fields before the ip ("pid event: ")
 *                          ADDR            (one per line, leaf first,
 *                                           indented by a tab or spaces)
 *                          the LBR line " 0xFROM/0xTO/..." or an empty line
 *                          (perf prints the stack first; the LBR line may
 *                          also come first, then the stack, then an empty
 *                          line)
 *   aggregated input:      a line of a decimal count alone, then the sample
 *                          it weighs (llvm-profgen's aggregated perf script)
 *   mmap events:           [pid] PERF_RECORD_MMAP2 PID/TID: [0xS(0xL) @ 0xP ...]: r-xp NAME
 *
 * Any address (ip, stack line, LBR end) may carry a build-id, newer
 * llvm-profgen's "BUILDID:0xADDR": an address of another build-id than the
 * profiled binary's is handed out as SPGO_PERF_TEXT_FOREIGN (see spgo/perf.h).
 *
 * Addresses indented by spaces without an opening line are ambiguous: perf
 * prints an IP-only sample as "%16lx" (blanks first), and hand-made or
 * re-indented files hold call stacks that way (llvm-profgen reads any run
 * of addresses as a stack, wherever it starts).  Such a run is a call stack
 * if an LBR line or an empty line ends it, else one IP sample per line.
 *
 * A sample ends where the next begins (its first line, an empty line, a
 * count, an mmap event) or at its LBR line after a stack, so the line that
 * ends one may be the start of the next: it is kept for the next call.
 * Lines of no known shape (comments, perf's header, a wrapper's banner,
 * other PERF_RECORD_ events) are skipped and counted; one warning at the
 * end names the first.  Malformed data inside a sample (a bad branch entry)
 * is an error naming the line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf/perf_impl.h"

struct spgo_perf_text {
	char *path;
	FILE *fp;
	char *line;
	size_t line_cap;
	uint64_t lineno, bytes;
	uint64_t offset;   /* of the current line in the input */
	uint64_t line_len; /* its length, newline included */
	/* The sample being gathered. */
	VEC(uint64_t) frames;
	VEC(struct perf_branch_entry) br;
	uint64_t ip, count;
	uint32_t pid, tid;
	int started;  /* something of it was read */
	int open;     /* an opening line was read: stack lines may follow */
	int have_ip, have_pid;
	int run;	   /* frames is a run of space-indented addresses with no
			      opening line: a stack or IP samples (see the top) */
	size_t run_next;   /* IP samples of a run handed out so far */
	const struct spgo_perf_attr *attr; /* its event column, or NULL */
	uint64_t next_count;		   /* from a count line: the next sample's */
	uint64_t first_line;		   /* where it started */
	int held;     /* t->line is read but not yet handled (it ended the
			 sample handed out last) */
	int reset;    /* the sample handed out last is still in frames/br */
	char name[4096];
	/* Events named in the event column, in order of appearance. */
	VEC(struct spgo_perf_attr *) attrs;
	/* Lines skipped: how many, the first of them. */
	uint64_t skipped, skipped_line, samples;
	int warned;
	char skipped_text[64];
	char build_id[129]; /* the profiled binary's, for keyed addresses */
};

void spgo_perf_text_build_id(struct spgo_perf_text *t, const char *hex_id)
{
	snprintf(t->build_id, sizeof t->build_id, "%s", hex_id);
}

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
	for (size_t i = 0; i < t->attrs.n; i++) {
		free(t->attrs.v[i]->name);
		free(t->attrs.v[i]);
	}
	VEC_FREE(&t->attrs);
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

/*
 * An address "[BUILDID:][0x]HEX" of n bytes at s into *out: 1, or 0 when it
 * is none.  A build-id other than the binary's gives SPGO_PERF_TEXT_FOREIGN.
 */
static int text_addr(const struct spgo_perf_text *t, const char *s, size_t n, uint64_t *out)
{
	const char *colon = memchr(s, ':', n);
	size_t idl = colon ? (size_t)(colon - s) : 0;
	for (size_t i = 0; i < idl; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	if (colon && (idl == 0 || idl > 128))
		return 0;
	const char *a = colon ? colon + 1 : s;
	size_t al = n - (size_t)(a - s);
	if (!is_hex(a, al))
		return 0;
	char buf[24];
	memcpy(buf, a, al);
	buf[al] = 0;
	*out = strtoull(buf, NULL, 16);
	if (colon && (strlen(t->build_id) != idl || strncasecmp(t->build_id, s, idl)))
		*out = SPGO_PERF_TEXT_FOREIGN;
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
	uint64_t from, to;
	if (nf < 2 || !text_addr(t, f[0], strlen(f[0]), &from) ||
	    !text_addr(t, f[1], strlen(f[1]), &to))
		return bad(t, "bad branch entry (want [BUILDID:]0xFROM/[BUILDID:]0xTO/...)");
	e.from = from;
	e.to = to;
	if (nf > 2) {
		e.mispred = f[2][0] == 'M';
		e.predicted = f[2][0] == 'P';
		if (strchr(f[2], 'N')) /* SPE: a conditional branch not taken ("PN", "MN") */
			e.reserved = 1;
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


/* The event of an event-column token ("cpu-clock:", "cycles:u:"): its
 * attribute, made at its first appearance; index = order of appearance. */
static const struct spgo_perf_attr *event_named(struct spgo_perf_text *t, const char *s, size_t n)
{
	for (size_t i = 0; i < t->attrs.n; i++)
		if (strlen(t->attrs.v[i]->name) == n && !memcmp(t->attrs.v[i]->name, s, n))
			return t->attrs.v[i];
	struct spgo_perf_attr *a = xcalloc(1, sizeof *a);
	a->name = xstrndup(s, n);
	a->index = t->attrs.n;
	VEC_PUSH(&t->attrs, a);
	return a;
}

size_t spgo_perf_text_nattrs(const struct spgo_perf_text *t) { return t->attrs.n; }

const struct spgo_perf_attr *spgo_perf_text_attr(const struct spgo_perf_text *t, size_t i)
{
	return i < t->attrs.n ? t->attrs.v[i] : NULL;
}

uint64_t spgo_perf_text_skipped(const struct spgo_perf_text *t, uint64_t *first_line)
{
	if (first_line)
		*first_line = t->skipped_line;
	return t->skipped;
}

/* Count a line that is no part of a sample; remember the first. */
static void skip_line(struct spgo_perf_text *t, const char *s)
{
	if (!t->skipped++) {
		t->skipped_line = t->lineno;
		size_t n = strlen(s);
		if (n >= sizeof t->skipped_text)
			n = sizeof t->skipped_text - 1;
		memcpy(t->skipped_text, s, n);
		t->skipped_text[n] = 0;
		for (char *c = t->skipped_text; *c; c++)
			if (*c == '\t')
				*c = ' ';
	}
}

/*
 * Is the line just read text?  A perf.data, an ELF file or other binary
 * data given as perf script text would otherwise be read as lines of no
 * known form, or fail on a line that happens to hold a '/' ("bad branch
 * entry"): say what the input is and where its binary data is.
 */
static int check_text(struct spgo_perf_text *t, size_t len)
{
	const char *s = t->line;
	if (t->lineno == 1 && len >= 8 && !memcmp(s, "PERFILE2", 8))
		return spgo_error("%s: offset 0: this is a perf.data file, not perf script text: "
				  "use --perf-data", t->path);
	if (t->lineno == 1 && len >= 4 && !memcmp(s, "\177ELF", 4))
		return spgo_error("%s: offset 0: this is an ELF file, not perf script text (the "
				  "program goes to --binary)", t->path);
	const char *nul = memchr(s, 0, len);
	if (nul)
		return spgo_error("%s: line %llu, offset %llu: binary data (a NUL byte), not perf "
				  "script text", t->path, (unsigned long long)t->lineno,
				  (unsigned long long)(t->offset + (uint64_t)(nul - s)));
	return 0;
}

/* Forget the sample being gathered. */
static void clear_sample(struct spgo_perf_text *t)
{
	t->frames.n = 0;
	t->br.n = 0;
	t->started = t->open = t->have_ip = t->have_pid = t->run = 0;
	t->run_next = 0;
	t->attr = NULL;
	t->ip = 0;
	t->count = 0;
}

/* Begin a sample at the current line (it takes the pending count). */
static void start_sample(struct spgo_perf_text *t)
{
	clear_sample(t);
	t->started = 1;
	t->count = t->next_count;
	t->next_count = 0;
	t->first_line = t->lineno;
}

/* Fill rec with the sample gathered (its arrays stay until the next call). */
static void emit(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	memset(rec, 0, sizeof *rec);
	rec->type = PERF_RECORD_SAMPLE;
	rec->attr = t->attr;
	struct spgo_perf_sample *s = &rec->sample;
	s->sample_type = PERF_SAMPLE_IP;
	uint64_t ip = t->have_ip ? t->ip : t->frames.n ? t->frames.v[0] : 0;
	if (!t->have_ip && !t->frames.n && t->br.n)
		ip = t->br.v[0].to; /* a branch stack alone: where it ended */
	s->ip = ip;
	if (t->have_pid) {
		s->sample_type |= PERF_SAMPLE_TID;
		s->pid = t->pid;
		s->tid = t->tid;
	}
	s->cpumode = (uint16_t)spgo_perf_addr_cpumode(ip);
	if (t->frames.n) {
		s->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (!t->have_ip)
			s->sample_type |= SPGO_PERF_SAMPLE_TEXT_FRAMES;
		s->callchain = t->frames.v;
		s->callchain_nr = t->frames.n;
	}
	if (t->br.n) {
		s->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		s->branches = t->br.v;
		s->branch_nr = t->br.n;
	}
	s->branch_hw_idx = ~0ULL;
	s->count = t->count ? t->count : 1;
	rec->offset = t->first_line;
	rec->size = (uint16_t)(t->bytes > 65535 ? 65535 : t->bytes);
	t->bytes = 0;
	t->samples++;
	t->reset = 1;
}

/* Hand out the next address of a run as an IP sample of its own (the run
 * was no stack: see the top); the run stays until its last is out. */
static void emit_run(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	size_t n = t->frames.n;
	t->ip = t->frames.v[t->run_next++];
	t->have_ip = 1;
	t->frames.n = 0;
	emit(t, rec);
	t->frames.n = n;
	t->have_ip = 0;
	t->count = 0;	  /* a count line weighs the first sample only */
	t->first_line++;  /* the next is on the next line */
	if (t->run_next < n)
		t->reset = 0;
}

/* Hand out the sample gathered: a run not ended as a stack is IP samples. */
static void emit_gathered(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	if (t->run)
		emit_run(t, rec);
	else
		emit(t, rec);
}

enum line_kind {
	L_BLANK,   /* empty or blanks only */
	L_COUNT,   /* a decimal count alone: aggregated input */
	L_FRAME,   /* indented, one address: a stack frame (or an IP sample) */
	L_OPEN,    /* pid / event fields without an ip: opens a stack sample */
	L_SAMPLE,  /* [pid] [event:] ip [branches]: an IP or LBR sample */
	L_BRANCH,  /* [pid] [event:] branches without an ip */
	L_OTHER,   /* not part of a sample */
};

/* What one line of perf script text is; fills the fields it carries. */
struct line_info {
	enum line_kind kind;
	int tab;		       /* starts with a tab */
	int have_pid, have_ip;
	uint32_t pid, tid;
	uint64_t ip, count;
	const char *event;	       /* event name (without the ':') */
	size_t event_len;
	const char *br[64];	       /* branch tokens (up to 64: perf's LBRs are 32) */
	size_t brl[64];
	int nbr;
};

static int is_pid_tid(const char *s, size_t n, uint32_t *pid, uint32_t *tid)
{
	const char *slash = memchr(s, '/', n);
	size_t pl = slash ? (size_t)(slash - s) : n;
	if (!is_dec(s, pl) || (slash && !is_dec(slash + 1, n - pl - 1)))
		return 0;
	*pid = (uint32_t)strtoul(s, NULL, 10);
	*tid = slash ? (uint32_t)strtoul(slash + 1, NULL, 10) : *pid;
	return 1;
}

static void classify(const struct spgo_perf_text *t, const char *s, size_t len,
		     struct line_info *li)
{
	memset(li, 0, sizeof *li);
	li->tab = s[0] == '\t';
	const char *tok[72];
	size_t tl[72];
	int nt = 0;
	for (const char *p = s; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *b = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (nt == 72) {
			li->kind = L_OTHER;
			return;
		}
		tok[nt] = b;
		tl[nt] = (size_t)(p - b);
		nt++;
	}
	if (nt == 0) {
		li->kind = L_BLANK;
		return;
	}
	/* llvm-profgen's aggregated count: the whole line is a decimal number */
	if (nt == 1 && tok[0] == s && tl[0] == len && is_dec(s, len) && len <= 19) {
		li->kind = L_COUNT;
		li->count = strtoull(s, NULL, 10);
		return;
	}
	/* [pid[/tid]]: "%5d/%-5d " is told by its slash; a pid alone by what
	 * follows it: an ip, an event, or nothing but the blank perf prints
	 * after it (a line that opens a stack sample). */
	int i = 0;
	if (memchr(tok[0], '/', tl[0])) {
		if (is_pid_tid(tok[0], tl[0], &li->pid, &li->tid))
			li->have_pid = i = 1;
	} else if (is_dec(tok[0], tl[0])) {
		int plain = 0;
		while (plain < nt && !memchr(tok[plain], '/', tl[plain]) &&
		       tok[plain][tl[plain] - 1] != ':')
			plain++;
		int event_next = plain < nt && tok[plain][tl[plain] - 1] == ':';
		if (plain == 2 || (plain == 1 && (event_next || (nt == 1 && s[len - 1] == ' ')))) {
			is_pid_tid(tok[0], tl[0], &li->pid, &li->tid);
			li->have_pid = i = 1;
		}
	}
	/* [event:] */
	uint64_t a;
	if (i < nt && tl[i] > 1 && tok[i][tl[i] - 1] == ':' && !memchr(tok[i], '/', tl[i]) &&
	    !text_addr(t, tok[i], tl[i], &a)) {
		li->event = tok[i];
		li->event_len = tl[i] - 1;
		i++;
	}
	/* [ip] */
	if (i < nt && !memchr(tok[i], '/', tl[i])) {
		if (!text_addr(t, tok[i], tl[i], &li->ip)) {
			li->kind = L_OTHER;
			return;
		}
		li->have_ip = 1;
		i++;
	}
	/* branches: every other token has a '/' */
	for (; i < nt; i++) {
		if (!memchr(tok[i], '/', tl[i]) || li->nbr == 64) {
			li->kind = L_OTHER;
			return;
		}
		li->br[li->nbr] = tok[i];
		li->brl[li->nbr++] = tl[i];
	}
	if (li->have_ip)
		li->kind = !li->have_pid && !li->event && !li->nbr && tok[0] != s ? L_FRAME
										       : L_SAMPLE;
	else if (li->nbr)
		li->kind = L_BRANCH;
	else
		li->kind = L_OPEN;
}

/* Take the branch tokens of a line into the sample. */
static int add_branches(struct spgo_perf_text *t, const struct line_info *li)
{
	for (int i = 0; i < li->nbr; i++)
		if (parse_branch(t, li->br[i], li->brl[i]) < 0)
			return -1;
	return 0;
}

/* The fields before the ip (pid, event) into the sample. */
static void take_fields(struct spgo_perf_text *t, const struct line_info *li)
{
	if (li->have_pid) {
		t->pid = li->pid;
		t->tid = li->tid;
		t->have_pid = 1;
	}
	if (li->event)
		t->attr = event_named(t, li->event, li->event_len);
}

/* Does a new line end the sample gathered so far?  Then hand that out
 * first (1), keeping the line for the next call; else 0. */
static int flush_first(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	if (t->started && (t->have_ip || t->frames.n || t->br.n)) {
		t->held = 1;
		emit_gathered(t, rec);
		return 1;
	}
	return 0;
}

/* The end of the input: the last sample gathered (1), or 0 with the
 * skipped lines reported; an error when nothing in it was a sample. */
static int end_of_input(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	if (t->started && (t->have_ip || t->frames.n || t->br.n)) {
		emit_gathered(t, rec);
		return 1;
	}
	clear_sample(t);
	if (t->skipped && !t->samples)
		return spgo_error("%s: no perf script samples in it (%llu lines of "
				  "no known form, the first at line %llu: '%s'): spgo "
				  "reads the sample's ip, branch stack and call stack "
				  "alone, without symbols, times or other fields: `perf "
				  "script -F ip,brstack --show-mmap-events` (LBR; with "
				  "-g data the call stacks come along), or `perf script "
				  "-F pid,ip --show-mmap-events` (IP samples); or give "
				  "the perf.data itself (--perf-data)",
				  t->path, (unsigned long long)t->skipped,
				  (unsigned long long)t->skipped_line, t->skipped_text);
	if (t->skipped && !t->warned) {
		t->warned = 1;
		spgo_warn("%s: skipped %llu lines that are no samples (the first at "
			  "line %llu: '%s')",
			  t->path, (unsigned long long)t->skipped,
			  (unsigned long long)t->skipped_line, t->skipped_text);
	}
	return 0;
}

/* The next line into t->line (the held one first): its length, -1 at the
 * end of the input, -2 on an error (said). */
static ssize_t next_line(struct spgo_perf_text *t)
{
	if (t->held) {
		t->held = 0;
		return (ssize_t)strlen(t->line);
	}
	ssize_t len = getline(&t->line, &t->line_cap, t->fp);
	if (len < 0) {
		if (ferror(t->fp)) {
			spgo_error("%s: %s", t->path, strerror(errno));
			return -2;
		}
		return -1;
	}
	t->lineno++;
	t->offset += t->line_len;
	t->line_len = (uint64_t)len;
	t->bytes += (uint64_t)len;
	return check_text(t, (size_t)len) < 0 ? -2 : len;
}

/* A line of a sample, classified, into the sample gathered: 0 to read on,
 * 1 when a sample is handed out in rec, -1 on an error. */
static int take_line(struct spgo_perf_text *t, struct spgo_perf_record *rec, const struct line_info *li)
{
	/* An indented address continues an opened or stack sample; else
	 * it is an IP sample of its own (perf prints "%16lx"). */
	int in_stack = t->started && !t->have_ip && (t->open || t->frames.n || t->br.n);
	if (li->kind == L_FRAME && !in_stack && t->started && t->have_ip && li->tab && !t->frames.n)
		in_stack = 1; /* a stack after the ip line */
	switch (li->kind) {
	case L_BLANK: /* ends a sample; a stack may follow */
		t->run = 0; /* a run it ends is a stack */
		if (flush_first(t, rec))
			return 1;
		clear_sample(t);
		t->open = 1;
		return 0;
	case L_COUNT:
		if (flush_first(t, rec))
			return 1;
		clear_sample(t);
		t->next_count = li->count;
		if (!li->count)
			return bad(t, "a sample count of 0");
		return 0;
	case L_FRAME:
		if (in_stack || (t->open && !t->started)) {
			if (!t->started)
				start_sample(t);
			t->open = 1;
			if (li->tab)
				t->run = 0; /* perf's own indent: a stack */
			VEC_PUSH(&t->frames, li->ip);
			return 0;
		}
		if (flush_first(t, rec))
			return 1;
		start_sample(t);
		/* a stack without an opening line (tab), or a run that
		 * may be one (blanks): its end tells */
		t->run = !li->tab;
		t->open = 1;
		VEC_PUSH(&t->frames, li->ip);
		return 0;
	case L_OPEN:
		if (flush_first(t, rec))
			return 1;
		start_sample(t);
		take_fields(t, li);
		t->open = 1;
		return 0;
	case L_SAMPLE:
		if (flush_first(t, rec))
			return 1;
		start_sample(t);
		take_fields(t, li);
		t->ip = li->ip;
		t->have_ip = 1;
		return add_branches(t, li) < 0 ? -1 : 0;
	case L_BRANCH:
		if (t->started && !t->have_ip && t->frames.n && !t->br.n) {
			/* the LBR line after a stack ends the sample */
			t->run = 0;
			take_fields(t, li);
			if (add_branches(t, li) < 0)
				return -1;
			emit(t, rec);
			return 1;
		}
		if (t->started && !t->have_ip && !t->frames.n && !t->br.n) {
			take_fields(t, li); /* after an opening line */
		} else {
			if (flush_first(t, rec))
				return 1;
			start_sample(t);
			take_fields(t, li);
		}
		if (add_branches(t, li) < 0)
			return -1;
		t->open = 1; /* a stack may follow it */
		return 0;
	case L_OTHER:
		break;
	}
	return 0;
}

/* One line of len bytes in t->line: 0 to read on, 1 when a record is
 * handed out in rec, -1 on an error. */
static int handle_line(struct spgo_perf_text *t, struct spgo_perf_record *rec, ssize_t len)
{
	char *s = t->line;
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	char *mm = strstr(s, "PERF_RECORD_MMAP");
	if (mm) {
		if (flush_first(t, rec))
			return 1;
		clear_sample(t);
		return parse_mmap(t, mm, rec) < 0 ? -1 : 1;
	}
	const char *first = s + strspn(s, " \t");
	if (!strncmp(first, "PERF_RECORD_", 12) || first[0] == '#') {
		skip_line(t, s); /* other side-band events, comments */
		return 0;
	}
	struct line_info li;
	classify(t, s, (size_t)len, &li);
	if (li.kind == L_OTHER) {
		skip_line(t, s);
		return 0;
	}
	return take_line(t, rec, &li);
}

int spgo_perf_text_next(struct spgo_perf_text *t, struct spgo_perf_record *rec)
{
	/* The previous call handed out a sample: start afresh. */
	if (t->reset) {
		clear_sample(t);
		t->reset = 0;
	} else if (t->run_next) { /* the rest of a run of IP samples */
		emit_run(t, rec);
		return 1;
	}
	for (;;) {
		ssize_t len = next_line(t);
		if (len == -2)
			return -1;
		if (len == -1)
			return end_of_input(t, rec);
		int r = handle_line(t, rec, len);
		if (r)
			return r;
	}
}
