/*
 * symbolize_out.c: the symbolizer's output (spgo/symbolize.h): addresses
 * -> inline frames as llvm-symbolizer prints them, pseudo-probes as
 * llvm-profgen prints them, and the instruction, function and probe
 * listings; the output buffer with its writer thread, and the pool of two
 * formatting threads with their ordered writer.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary_impl.h"
#include "spgo/binary.h"
#include "spgo/common.h"
#include "spgo/probe.h"
#include "spgo/symbolize.h"

#include "binary/obuf.h"

#define MAX_FRAMES 256

enum { PLAIN = SPGO_SYM_PLAIN, DISCRIMINATORS = SPGO_SYM_DISCRIMINATORS, VERBOSE = SPGO_SYM_VERBOSE,
       PROBES = SPGO_SYM_PROBES };

/*
 * A formatter: what one thread needs to turn addresses into text.
 *
 * Neighbouring instructions mostly share their frames, so the text of the
 * previous answer is kept: reused without a lookup while the address stays
 * below where the binary says the answer may change (`until`), and after a
 * lookup when the frames and symbol are the same as before (frames[!cur]
 * holds those).  Allocated zeroed, so that the frames' padding stays zero
 * for memcmp.
 */
struct fmt {
	struct spgo_binary *bin;
	struct spgo_cursor cursor;
	int mode;
	int cur;
	struct spgo_frame frames[2][MAX_FRAMES];
	struct {
		int n;
		const struct spgo_symbol *sym;
		uint64_t lo, until; /* the text answers every address in [lo, until) */
		char text[8192];
		size_t len;
		size_t callers; /* where the text of frames[1..] starts in it */
	} memo;
	/* Names and paths repeat from one address to the next: the length of
	 * the last few strings, instead of measuring them again. */
	const char *seen[256];
	size_t seen_len[256];
	/* Function names in source form (llvm-symbolizer demangles by
	 * default): the last few, by the stored name's address. */
	int demangle;
	const char *dm_name[64];
	char *dm_text[64]; /* NULL: printed as stored */
};

/* mode: an spgo_sym_mode, with SPGO_SYM_RAW_NAMES or not. */
static struct fmt *fmt_new(struct spgo_binary *bin, int mode)
{
	struct fmt *f = xcalloc(1, sizeof *f);
	f->bin = bin;
	f->mode = mode & ~SPGO_SYM_RAW_NAMES;
	f->demangle = !(mode & SPGO_SYM_RAW_NAMES);
	f->memo.n = -1;
	return f;
}

static void fmt_free(struct fmt *f)
{
	for (int i = 0; i < 64; i++)
		free(f->dm_text[i]);
	free(f);
}

static void fmt_name(struct fmt *f, struct obuf *o, const char *s)
{
	size_t h = ((uintptr_t)s >> 3) * 0x9e3779b1u >> 24 & 255;
	if (f->seen[h] != s) {
		f->seen[h] = s;
		f->seen_len[h] = strlen(s);
	}
	ob_mem(o, s, f->seen_len[h]);
}

/* A function's name, demangled unless --no-demangle (the names live as
 * long as the binary: their addresses key the cache). */
static void fmt_func(struct fmt *f, struct obuf *o, const char *s)
{
	if (!f->demangle || !spgo_name_mangled(s)) {
		fmt_name(f, o, s);
		return;
	}
	size_t h = ((uintptr_t)s >> 3) * 0x9e3779b1u >> 26 & 63;
	if (f->dm_name[h] != s) {
		free(f->dm_text[h]);
		f->dm_text[h] = spgo_demangle(s);
		f->dm_name[h] = s;
	}
	ob_str(o, f->dm_text[h] ? f->dm_text[h] : s);
}

/* ---- pseudo-probes ---------------------------------------------------------- */

/* A probe's function: its descriptor's name, else the GUID in decimal (as
 * llvm-profgen prints GUIDs). */
static void probe_name(struct obuf *o, const struct spgo_probe_frame *fr)
{
	if (fr->function)
		ob_str(o, fr->function);
	else
		ob_u64(o, fr->guid);
}

/*
 * One probe as llvm-profgen-19 --show-pseudo-probe prints it, with single
 * spaces and no trailing one: "FUNC: name Index: N [Discriminator: N]
 * Type: T [Inlined: @ outer:callsite @ ... @ caller:callsite]".  Attributes
 * other than has-discriminator (which clang does not write on real probes)
 * are added as "Attributes: N".  Fills frames (max MAX_FRAMES) and returns
 * their number.
 */
static int probe_text(struct obuf *o, struct spgo_binary *bin, const struct spgo_probe *p,
		      struct spgo_probe_frame *frames)
{
	int n = spgo_probe_inline_chain(bin, p, frames, MAX_FRAMES);
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	ob_str(o, "FUNC: ");
	probe_name(o, &frames[0]);
	ob_str(o, " Index: ");
	ob_u64(o, p->index);
	if (p->discriminator) {
		ob_str(o, " Discriminator: ");
		ob_u64(o, p->discriminator);
	}
	ob_str(o, " Type: ");
	ob_str(o, spgo_probe_type_name(p->type));
	if (p->attr & ~SPGO_PROBE_ATTR_DISCRIMINATOR) {
		ob_str(o, " Attributes: ");
		ob_u64(o, p->attr);
	}
	if (n > 1) {
		ob_str(o, " Inlined: @ ");
		for (int i = n - 1; i >= 1; i--) {
			probe_name(o, &frames[i]);
			ob_char(o, ':');
			ob_u64(o, frames[i].probe);
			if (i > 1)
				ob_str(o, " @ ");
		}
	}
	ob_char(o, '\n');
	return n;
}

/* The probes at addr, each followed by its frames; a blank line after. */
static void probes_one(struct fmt *f, uint64_t addr, struct obuf *o)
{
	static _Thread_local struct spgo_probe_frame frames[MAX_FRAMES];
	size_t n;
	const struct spgo_probe *p = spgo_binary_probes_at(f->bin, addr, &n);
	for (size_t i = 0; i < n; i++) {
		int nf = probe_text(o, f->bin, &p[i], frames);
		for (int k = 0; k < nf; k++) {
			ob_str(o, "  ");
			probe_name(o, &frames[k]);
			ob_char(o, ':');
			ob_u64(o, frames[k].probe);
			ob_char(o, '\n');
		}
	}
	ob_char(o, '\n');
}

/* Every probe, by address: "0xADDR FUNC: ...". */
static int list_probes(struct spgo_binary *bin, struct obuf *o)
{
	struct spgo_probe_frame frames[MAX_FRAMES];
	size_t n;
	const struct spgo_probe *p = spgo_binary_probes(bin, &n);
	for (size_t i = 0; i < n; i++) {
		ob_hex(o, p[i].addr);
		ob_char(o, ' ');
		probe_text(o, bin, &p[i], frames);
	}
	return 0;
}

/* The descriptors: GUID name checksum probes=N max_index=N [start=]
 * [parts=]. */
static int list_probe_functions(struct spgo_binary *bin, struct obuf *o)
{
	size_t n, nparts;
	const struct spgo_probe_desc *d = spgo_binary_probe_descs(bin, &n);
	const struct spgo_probe_part *parts = spgo_binary_probe_parts(bin, &nparts);
	for (size_t i = 0; i < n; i++) {
		ob_u64(o, d[i].guid);
		ob_char(o, ' ');
		ob_str(o, d[i].name);
		ob_char(o, ' ');
		ob_u64(o, d[i].checksum);
		ob_str(o, " probes=");
		ob_u64(o, d[i].nprobes);
		ob_str(o, " max_index=");
		ob_u64(o, d[i].max_index);
		if (d[i].start) {
			ob_str(o, " start=");
			ob_hex(o, d[i].start);
		}
		for (uint32_t k = 0; k < d[i].nparts; k++) {
			const struct spgo_probe_part *pt = &parts[d[i].part + k];
			ob_str(o, k ? "," : " parts=");
			if (pt->symbol)
				ob_str(o, pt->symbol);
			else
				ob_u64(o, pt->part_guid);
			ob_char(o, '@');
			ob_hex(o, pt->start);
		}
		ob_char(o, '\n');
	}
	return 0;
}

/* Load the probes for the command: -1 with an error when there are none. */
static int need_probes(struct spgo_binary *bin)
{
	int rc = spgo_binary_load_probes(bin);
	if (rc == 0)
		return spgo_error("%s: no pseudo-probes (no .pseudo_probe section); build with clang "
				  "-fpseudo-probe-for-profiling", spgo_binary_path(bin));
	return rc < 0 ? -1 : 0;
}

static int symbolize_one(struct fmt *f, uint64_t addr, struct obuf *o)
{
	if (f->mode == PROBES) {
		probes_one(f, addr, o);
		return 0;
	}
	if (addr >= f->memo.lo && addr < f->memo.until) {
		ob_mem(o, f->memo.text, f->memo.len);
		return 0;
	}
	struct spgo_frame *frames = f->frames[f->cur];
	uint64_t until, sym_until;
	int n = spgo_binary_symbolize_until(f->bin, &f->cursor, addr, frames, MAX_FRAMES, &until);
	if (n < 0)
		return -1;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (n == 0) {
		frames[0] = (struct spgo_frame){0};
		n = 1;
	}
	const struct spgo_symbol *sym = spgo_binary_symbol_at_until(f->bin, &f->cursor, addr, &sym_until);
	if (sym_until < until)
		until = sym_until;
	if (n == f->memo.n && sym == f->memo.sym &&
	    !memcmp(frames, f->frames[!f->cur], (size_t)n * sizeof *frames)) {
		f->memo.lo = addr;
		f->memo.until = until;
		ob_mem(o, f->memo.text, f->memo.len);
		return 0;
	}
	/* A new line row under the same inline chain: only the innermost
	 * frame's text is new, the callers' is the previous answer's. */
	int same_callers = n > 1 && n == f->memo.n && sym == f->memo.sym &&
			   !memcmp(frames + 1, f->frames[!f->cur] + 1, (size_t)(n - 1) * sizeof *frames);
	size_t start = o->n, callers = 0;
	unsigned long flushes = o->flushes;
	for (int i = 0; i < n; i++) {
		const struct spgo_frame *fr = &frames[i];
		if (i == 1) {
			callers = o->n - start;
			if (same_callers) {
				ob_mem(o, f->memo.text + f->memo.callers, f->memo.len - f->memo.callers);
				goto done;
			}
		}
		const char *name = fr->function ? fr->function : "??";
		const char *file = fr->file ? fr->file : "??";
		if (i == n - 1 && sym) {
			name = sym->name;
			if (!fr->file && sym->file)
				file = sym->file;
		}
		fmt_func(f, o, name);
		ob_char(o, '\n');
		if (f->mode == VERBOSE) {
			ob_str(o, "  Filename: ");
			ob_str(o, file);
			if (fr->decl_line) {
				ob_str(o, "\n  Function start line: ");
				ob_u64(o, fr->decl_line);
			}
			ob_str(o, "\n  Line: ");
			ob_u64(o, fr->line);
			ob_str(o, "\n  Column: ");
			ob_u64(o, fr->column);
			if (fr->discriminator) {
				ob_str(o, "\n  Discriminator: ");
				ob_u64(o, fr->discriminator);
			}
			ob_char(o, '\n');
			continue;
		}
		fmt_name(f, o, file);
		ob_char(o, ':');
		ob_u64(o, fr->line);
		ob_char(o, ':');
		ob_u64(o, fr->column);
		if (f->mode == DISCRIMINATORS && fr->discriminator) {
			ob_str(o, " (discriminator ");
			ob_u64(o, fr->discriminator);
			ob_char(o, ')');
		}
		ob_char(o, '\n');
	}
	ob_char(o, '\n');
done:
	f->memo.n = -1;
	f->memo.lo = f->memo.until = 0;
	if (o->flushes == flushes && o->n - start <= sizeof f->memo.text) {
		f->memo.n = n;
		f->memo.sym = sym;
		f->memo.lo = addr;
		f->memo.until = until;
		f->memo.len = o->n - start;
		f->memo.callers = n > 1 ? callers : f->memo.len - 1;
		memcpy(f->memo.text, o->buf + start, f->memo.len);
		f->cur = !f->cur;
	}
	return 0;
}

static int list_instructions(struct spgo_binary *bin, struct obuf *o)
{
	size_t n;
	const struct spgo_insn *in = spgo_binary_insns(bin, &n);
	if (n == 0)
		return spgo_error("%s: no instructions decoded in the executable sections", spgo_binary_path(bin));
	for (size_t i = 0; i < n; i++) {
		ob_hex(o, in[i].addr);
		ob_char(o, ' ');
		ob_u64(o, in[i].size);
		ob_char(o, ' ');
		ob_str(o, spgo_insn_class_name(in[i].cls));
		if (in[i].cls == SPGO_INSN_JUMP || in[i].cls == SPGO_INSN_COND_BRANCH || in[i].cls == SPGO_INSN_CALL) {
			ob_char(o, ' ');
			ob_hex(o, in[i].target);
		}
		ob_char(o, '\n');
	}
	return 0;
}

static int list_functions(struct spgo_binary *bin, struct obuf *o)
{
	size_t n;
	const struct spgo_function *fn = spgo_binary_functions(bin, &n);
	if (n == 0)
		return spgo_error("%s: no functions (no DWARF subprograms and no function symbols)",
				  spgo_binary_path(bin));
	for (size_t i = 0; i < n; i++) {
		ob_hex(o, fn[i].start);
		ob_char(o, ' ');
		ob_hex(o, fn[i].end);
		ob_char(o, ' ');
		ob_str(o, fn[i].name);
		ob_char(o, ' ');
		ob_str(o, fn[i].symbol);
		ob_str(o, " decl_line=");
		ob_u64(o, fn[i].decl_line);
		if (fn[i].parent >= 0) {
			ob_str(o, " parent=");
			ob_str(o, fn[fn[i].parent].symbol);
		}
		ob_str(o, fn[i].has_debug ? "\n" : " (symbol only)\n");
	}
	return 0;
}

/* The value of a hex digit c, or -1. */
static int hex_digit(unsigned c)
{
	if (c - '0' < 10)
		return (int)(c - '0');
	if ((c | 0x20) - 'a' < 6)
		return (int)((c | 0x20) - 'a' + 10);
	return -1;
}

/* One address given as text: 0x-hex, or decimal (as llvm-symbolizer reads
 * it); anything else is unknown, printed as ?? like llvm-symbolizer does. */
static int symbolize_text(struct fmt *f, char *s, struct obuf *o)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		s[--len] = 0;
	uint64_t addr = 0;
	int ok = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && len > 2 && len <= 18) {
		/* The common case, parsed inline. */
		ok = 1;
		for (size_t i = 2; i < len && ok; i++) {
			int d = hex_digit((unsigned char)s[i]);
			ok = d >= 0;
			addr = addr << 4 | (uint64_t)(ok ? d : 0);
		}
	}
	if (!ok && spgo_parse_u64(s, &addr) != 0) {
		/* Not an address (llvm-symbolizer would look it up as a symbol
		 * name, and finds nothing in the forms we are given). */
		ob_str(o, f->mode == VERBOSE  ? "??\n  Filename: ??\n  Line: 0\n  Column: 0\n\n"
			  : f->mode == PROBES ? "\n"
					      : "??\n??:0:0\n\n");
		return 0;
	}
	return symbolize_one(f, addr, o);
}

/* If p starts a line "0x" + 1 to 16 hex digits + "\n" (or the end), set
 * *addr and return the start of the next line; else NULL. */
static char *parse_hex_line(char *p, uint64_t *addr)
{
	if (p[0] != '0' || p[1] != 'x')
		return NULL;
	uint64_t a = 0;
	int i = 2;
	for (int d; (d = hex_digit((unsigned char)p[i])) >= 0; i++)
		a = a << 4 | (uint64_t)d;
	if (i == 2 || i > 18 || (p[i] != '\n' && p[i] != 0))
		return NULL;
	*addr = a;
	return p + i + (p[i] == '\n');
}

/* Symbolize the lines of text [p, end) (whole lines, NUL at end). */
static int symbolize_lines(struct fmt *f, char *p, char *end, struct obuf *o)
{
	int rc = 0;
	while (rc == 0 && p < end) {
		/* The common line, "0x" and hex digits, parsed here; anything
		 * else by symbolize_text(). */
		uint64_t addr;
		char *next = parse_hex_line(p, &addr);
		if (next) {
			rc = symbolize_one(f, addr, o);
			p = next;
			continue;
		}
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl)
			*nl = 0;
		rc = symbolize_text(f, p, o);
		p = nl ? nl + 1 : end;
	}
	return rc;
}

/*
 * Two threads symbolizing a large file of addresses, a third writing.  The
 * text is cut into chunks of whole lines; each formatting thread takes the
 * next chunk not yet taken and formats it into a buffer of its own (with a
 * formatter and a lookup cursor of its own: the binary's tables are only
 * read), and the writer thread writes the finished chunks in input order,
 * handing their buffers back for reuse.  The output is the same as one
 * thread's, byte for byte.
 */
#define CHUNK_BYTES (32u << 10) /* about 4000 addresses */
struct chunk {
	char *begin, *end;
	struct obuf out;
	int done, rc;
	char *err; /* the message of a failure */
};

struct pool {
	FILE *fp;
	struct spgo_binary *bin;
	int mode;
	struct chunk *chunks;
	size_t n, next, written;
	VEC(char *) spare; /* written chunks' buffers (of spare_cap bytes) */
	size_t spare_cap;
	int failed, write_error;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* The writer: the chunks in order as they are finished; it stops after one
 * that failed, as one thread stops at the first failure. */
static void *pool_writer(void *arg)
{
	struct pool *p = arg;
	pthread_mutex_lock(&p->mu);
	while (p->written < p->n && !p->failed) {
		struct chunk *c = &p->chunks[p->written];
		while (!c->done)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		int bad = fwrite(c->out.buf, 1, c->out.n, p->fp) != c->out.n;
		pthread_mutex_lock(&p->mu);
		p->write_error |= bad;
		p->failed = c->rc < 0;
		if (c->out.cap == p->spare_cap) {
			VEC_PUSH(&p->spare, c->out.buf);
			c->out.buf = NULL;
		}
		p->written++;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* A formatting thread: chunks until none is left. */
static void *pool_work(void *arg)
{
	struct pool *p = arg;
	struct fmt *f = fmt_new(p->bin, p->mode);
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next++;
		char *buf = i < p->n && p->spare.n ? p->spare.v[--p->spare.n] : NULL;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		struct chunk *c = &p->chunks[i];
		if (buf) {
			memset(&c->out, 0, sizeof c->out);
			c->out.grow = 1;
			c->out.buf = buf;
			c->out.cap = p->spare_cap;
		} else {
			spgo_ob_init_grow(&c->out, p->spare_cap);
		}
		int rc = symbolize_lines(f, c->begin, c->end, &c->out);
		char *err = rc < 0 ? xstrdup(spgo_errmsg()) : NULL;
		pthread_mutex_lock(&p->mu);
		c->rc = rc;
		c->err = err;
		c->done = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	fmt_free(f);
	return NULL;
}

/* Symbolize the lines of text[0, len) on two threads, writing to fp:
 * 0, or -1 with spgo_error set; 1 if the threads could not be started
 * (nothing done then).  *write_error is set after a failed write. */
static int symbolize_parallel(struct spgo_binary *bin, int mode, char *text, size_t len, FILE *fp,
			      int *write_error)
{
	struct pool p = {.fp = fp, .bin = bin, .mode = mode};
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	VEC(struct chunk) chunks = {0};
	char *end = text + len;
	for (char *b = text; b < end;) {
		char *e = end;
		if ((size_t)(end - b) > CHUNK_BYTES) {
			char *nl = memchr(b + CHUNK_BYTES, '\n', (size_t)(end - b - CHUNK_BYTES));
			e = nl ? nl + 1 : end;
		}
		struct chunk c = {b, e, {0}, 0, 0, NULL};
		VEC_PUSH(&chunks, c);
		b = e;
	}
	p.chunks = chunks.v;
	p.n = chunks.n;
	/* Buffers for the text of a chunk, sized for a few frames per
	 * address; one that grows beyond is not reused. */
	p.spare_cap = 24 * (size_t)CHUNK_BYTES;
	/* Both tables are built before two threads read them. */
	size_t nsyms;
	spgo_binary_symbols(bin, &nsyms);
	int rc = spgo_binary_load_debug(bin);
	pthread_t helper, writer;
	if (rc == 0 && pthread_create(&writer, NULL, pool_writer, &p) != 0)
		rc = 1;
	if (rc == 0) {
		int two = pthread_create(&helper, NULL, pool_work, &p) == 0;
		pool_work(&p);
		if (two)
			pthread_join(helper, NULL);
		pthread_join(writer, NULL);
		if (p.failed) {
			rc = -1;
			spgo_error("%s", p.chunks[p.written - 1].err);
		}
	}
	for (size_t i = 0; i < p.n; i++) {
		free(p.chunks[i].out.buf);
		free(p.chunks[i].err);
	}
	for (size_t i = 0; i < p.spare.n; i++)
		free(p.spare.v[i]);
	VEC_FREE(&p.spare);
	VEC_FREE(&chunks);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	*write_error = p.write_error;
	return rc;
}

/* ---- the interface ----------------------------------------------------------- */

struct spgo_symout {
	struct spgo_binary *bin;
	int mode, threads;
	int raw; /* SPGO_SYM_RAW_NAMES or 0 */
	int loaded;    /* 1: what addresses need is loaded, -1: failed */
	int write_error;
	struct obuf o; /* one thread's output; the pool writes on its own */
	struct fmt *f;
};

struct spgo_symout *spgo_symout_new(struct spgo_binary *bin, enum spgo_sym_mode mode, FILE *out,
				    int threads)
{
	struct spgo_symout *s = xcalloc(1, sizeof *s);
	s->bin = bin;
	s->mode = (int)mode & ~SPGO_SYM_RAW_NAMES;
	s->raw = (int)mode & SPGO_SYM_RAW_NAMES;
	s->threads = threads;
	spgo_ob_init(&s->o, out, threads);
	s->f = fmt_new(bin, s->mode | s->raw);
	return s;
}

int spgo_symout_finish(struct spgo_symout *s)
{
	int werr = spgo_ob_finish(&s->o) | s->write_error;
	FILE *fp = s->o.fp;
	fmt_free(s->f);
	free(s);
	if (werr || fflush(fp) != 0 || ferror(fp))
		return spgo_error("<output>: write error");
	return 0;
}

/* Load what addresses need (the probes, or the debug information) once. */
static int prepare(struct spgo_symout *s)
{
	if (!s->loaded)
		s->loaded = (s->mode == PROBES ? need_probes(s->bin) : spgo_binary_load_debug(s->bin)) < 0
				    ? -1 : 1;
	return s->loaded < 0 ? -1 : 0;
}

int spgo_symout_addr(struct spgo_symout *s, char *text)
{
	if (prepare(s) < 0)
		return -1;
	return symbolize_text(s->f, text, &s->o);
}

int spgo_symout_text(struct spgo_symout *s, char *text, size_t len)
{
	if (prepare(s) < 0)
		return -1;
	int rc = 1;
	/* Nothing of this block is buffered yet: the pool can write to the
	 * file itself once what is buffered is out. */
	if (len > 2 * CHUNK_BYTES && s->threads && s->mode != PROBES) {
		spgo_ob_drain(&s->o);
		rc = symbolize_parallel(s->bin, s->mode | s->raw, text, len, s->o.fp, &s->write_error);
	}
	if (rc == 1)
		rc = symbolize_lines(s->f, text, text + len, &s->o);
	return rc;
}

int spgo_symout_stream(struct spgo_symout *s, FILE *in)
{
	if (prepare(s) < 0)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, in) >= 0) {
		rc = symbolize_text(s->f, line, &s->o);
		/* Answer interactive callers line by line: flush when
		 * glibc's buffer of in holds no further line. */
		if (s->o.n && !feof(in) && in->_IO_read_ptr == in->_IO_read_end)
			spgo_ob_flush(&s->o);
	}
	free(line);
	return rc;
}

int spgo_symout_list_insns(struct spgo_symout *s)
{
	if (s->mode == PROBES)
		return need_probes(s->bin) < 0 ? -1 : list_probes(s->bin, &s->o);
	return list_instructions(s->bin, &s->o);
}

int spgo_symout_list_functions(struct spgo_symout *s)
{
	if (s->mode == PROBES)
		return need_probes(s->bin) < 0 ? -1 : list_probe_functions(s->bin, &s->o);
	return list_functions(s->bin, &s->o);
}
