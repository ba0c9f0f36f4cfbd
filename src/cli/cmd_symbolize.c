/*
 * spgo symbolize: addresses -> inline frames, printed the way
 * `llvm-symbolizer --inlines --functions=linkage` prints them: per frame,
 * innermost first, the function's linkage name, then file:line:column; a
 * blank line after each address.  As llvm-symbolizer does, the outermost
 * frame is named by the ELF symbol covering the address when there is one
 * ("foo.cold" rather than DWARF's "foo").
 *
 * --all-instructions lists every instruction of the executable sections:
 * address, size, class and (for direct branches and calls) target;
 * --functions the function table.
 *
 * Environment: SPGO_THREADS=1 runs without helper threads, SPGO_VERBOSE=1
 * reports the size of the tables built.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "spgo/binary.h"
#include "spgo/common.h"

static const char usage[] =
	"usage: spgo symbolize --binary FILE [--debug-binary FILE] [--discriminators|--verbose] [ADDR...]\n"
	"       spgo symbolize --binary FILE --all-instructions | --functions\n"
	"\n"
	"Print the inline frames at each address (arguments, else one per line on\n"
	"stdin; 0x-prefixed hex or decimal), innermost first: the function's linkage\n"
	"name, then file:line:column, and a blank line after each address, as\n"
	"llvm-symbolizer --inlines --functions=linkage does.\n"
	"  --binary FILE        the ELF binary (addresses are its virtual addresses)\n"
	"  --debug-binary FILE  read DWARF from FILE (default: the binary, else\n"
	"                       /usr/lib/debug/.build-id/xx/yyyy.debug)\n"
	"  --discriminators     append \" (discriminator N)\" where N is not 0\n"
	"  --verbose            per frame, the fields of llvm-symbolizer --verbose that\n"
	"                       profiles use: Filename, Function start line (the\n"
	"                       subprogram's DW_AT_decl_line), Line, Column, Discriminator\n"
	"  --all-instructions   list every instruction: address size class [target]\n"
	"  --functions          list the function table: start end name symbol\n"
	"                       decl_line=N [parent=SYMBOL of a split part]\n";

/*
 * The output buffer.  Symbolizing many addresses is mostly printing, and
 * the kernel's copy of the text into the output file costs as much as
 * making it: a writer thread writes one buffer while the next one fills.
 */
#define OBUF_SIZE (1u << 20)
struct obuf {
	char *buf; /* being filled */
	size_t n;
	unsigned long flushes;
	char *other; /* being written (while pending) or free */
	const char *pending;
	size_t pending_n;
	int threaded, done, write_error;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void *writer(void *arg)
{
	struct obuf *o = arg;
	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (!o->pending && !o->done)
			pthread_cond_wait(&o->cv, &o->mu);
		if (!o->pending)
			break;
		const char *p = o->pending;
		size_t len = o->pending_n;
		pthread_mutex_unlock(&o->mu);
		int bad = fwrite(p, 1, len, stdout) != len || fflush(stdout) != 0;
		pthread_mutex_lock(&o->mu);
		o->write_error |= bad;
		o->pending = NULL;
		pthread_cond_broadcast(&o->cv);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

static void ob_init(struct obuf *o)
{
	memset(o, 0, sizeof *o);
	o->buf = xmalloc(OBUF_SIZE);
	o->other = xmalloc(OBUF_SIZE);
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	const char *nthreads = getenv("SPGO_THREADS"); /* "1": no writer thread */
	o->threaded = !(nthreads && !strcmp(nthreads, "1")) && pthread_create(&o->thread, NULL, writer, o) == 0;
}

static void ob_flush(struct obuf *o)
{
	o->flushes++;
	if (!o->n)
		return;
	if (!o->threaded) {
		/* Flushed too: a coprocess waits for each answer. */
		o->write_error |= fwrite(o->buf, 1, o->n, stdout) != o->n || fflush(stdout) != 0;
		o->n = 0;
		return;
	}
	pthread_mutex_lock(&o->mu);
	while (o->pending)
		pthread_cond_wait(&o->cv, &o->mu);
	o->pending = o->buf;
	o->pending_n = o->n;
	char *t = o->buf;
	o->buf = o->other;
	o->other = t;
	o->n = 0;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

/* Flush, stop the writer, free; returns non-zero after a write error. */
static int ob_finish(struct obuf *o)
{
	ob_flush(o);
	if (o->threaded) {
		pthread_mutex_lock(&o->mu);
		o->done = 1;
		pthread_cond_broadcast(&o->cv);
		pthread_mutex_unlock(&o->mu);
		pthread_join(o->thread, NULL);
	}
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->cv);
	free(o->buf);
	free(o->other);
	return o->write_error;
}

static void ob_mem(struct obuf *o, const char *s, size_t len)
{
	if (SPGO_LIKELY(len <= OBUF_SIZE - o->n)) {
		memcpy(o->buf + o->n, s, len);
		o->n += len;
		return;
	}
	ob_flush(o);
	while (len > OBUF_SIZE) {
		memcpy(o->buf, s, OBUF_SIZE);
		o->n = OBUF_SIZE;
		ob_flush(o);
		s += OBUF_SIZE;
		len -= OBUF_SIZE;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

/* Names and paths repeat from one address to the next: remember the
 * length of the last few strings instead of measuring them again. */
static void ob_name(struct obuf *o, const char *s)
{
	static const char *seen[256];
	static size_t seen_len[256];
	size_t h = ((uintptr_t)s >> 3) * 0x9e3779b1u >> 24 & 255;
	if (seen[h] != s) {
		seen[h] = s;
		seen_len[h] = strlen(s);
	}
	ob_mem(o, s, seen_len[h]);
}

static void ob_char(struct obuf *o, char c)
{
	if (o->n == OBUF_SIZE)
		ob_flush(o);
	o->buf[o->n++] = c;
}

static void ob_u64(struct obuf *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof tmp;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_mem(o, tmp + i, sizeof tmp - (size_t)i);
}

static void ob_hex(struct obuf *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof tmp;
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	ob_str(o, "0x");
	for (; i < (int)sizeof tmp; i++)
		ob_char(o, tmp[i]);
}

#define MAX_FRAMES 256

enum { PLAIN, DISCRIMINATORS, VERBOSE };

/*
 * Neighbouring instructions mostly share their frames, so the text of the
 * previous answer is kept: reused without a lookup while the address stays
 * below where the binary says the answer may change (`until`), and after a
 * lookup when the frames and symbol are the same as before.  The frame
 * arrays are static so that their padding stays zero for memcmp.
 */
static struct spgo_frame frames_buf[2][MAX_FRAMES];
static struct {
	int n;
	const struct spgo_symbol *sym;
	uint64_t lo, until; /* the text answers every address in [lo, until) */
	char text[8192];
	size_t len;
} memo = {-1, NULL, 0, 0, {0}, 0};

static int symbolize_one(struct spgo_binary *bin, uint64_t addr, int mode, struct obuf *o)
{
	static int cur;
	if (addr >= memo.lo && addr < memo.until) {
		ob_mem(o, memo.text, memo.len);
		return 0;
	}
	struct spgo_frame *frames = frames_buf[cur];
	uint64_t until, sym_until;
	int n = spgo_binary_symbolize_until(bin, addr, frames, MAX_FRAMES, &until);
	if (n < 0)
		return -1;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	if (n == 0) {
		frames[0] = (struct spgo_frame){0};
		n = 1;
	}
	const struct spgo_symbol *sym = spgo_binary_symbol_at_until(bin, addr, &sym_until);
	if (sym_until < until)
		until = sym_until;
	if (n == memo.n && sym == memo.sym && !memcmp(frames, frames_buf[!cur], (size_t)n * sizeof *frames)) {
		memo.lo = addr;
		memo.until = until;
		ob_mem(o, memo.text, memo.len);
		return 0;
	}
	size_t start = o->n;
	unsigned long flushes = o->flushes;
	for (int i = 0; i < n; i++) {
		const struct spgo_frame *f = &frames[i];
		const char *name = f->function ? f->function : "??";
		const char *file = f->file ? f->file : "??";
		if (i == n - 1 && sym) {
			name = sym->name;
			if (!f->file && sym->file)
				file = sym->file;
		}
		ob_name(o, name);
		ob_char(o, '\n');
		if (mode == VERBOSE) {
			ob_str(o, "  Filename: ");
			ob_str(o, file);
			if (f->decl_line) {
				ob_str(o, "\n  Function start line: ");
				ob_u64(o, f->decl_line);
			}
			ob_str(o, "\n  Line: ");
			ob_u64(o, f->line);
			ob_str(o, "\n  Column: ");
			ob_u64(o, f->column);
			if (f->discriminator) {
				ob_str(o, "\n  Discriminator: ");
				ob_u64(o, f->discriminator);
			}
			ob_char(o, '\n');
			continue;
		}
		ob_name(o, file);
		ob_char(o, ':');
		ob_u64(o, f->line);
		ob_char(o, ':');
		ob_u64(o, f->column);
		if (mode == DISCRIMINATORS && f->discriminator) {
			ob_str(o, " (discriminator ");
			ob_u64(o, f->discriminator);
			ob_char(o, ')');
		}
		ob_char(o, '\n');
	}
	ob_char(o, '\n');
	memo.n = -1;
	memo.lo = memo.until = 0;
	if (o->flushes == flushes && o->n - start <= sizeof memo.text) {
		memo.n = n;
		memo.sym = sym;
		memo.lo = addr;
		memo.until = until;
		memo.len = o->n - start;
		memcpy(memo.text, o->buf + start, memo.len);
		cur = !cur;
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

/* One address given as text: 0x-hex, or decimal (as llvm-symbolizer reads
 * it); anything else is unknown, printed as ?? like llvm-symbolizer does. */
static int symbolize_text(struct spgo_binary *bin, char *s, int mode, struct obuf *o)
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
			unsigned c = (unsigned char)s[i], d;
			if (c - '0' < 10)
				d = c - '0';
			else if ((c | 0x20) - 'a' < 6)
				d = (c | 0x20) - 'a' + 10;
			else
				ok = 0, d = 0;
			addr = addr << 4 | d;
		}
	}
	if (!ok && spgo_parse_u64(s, &addr) != 0) {
		/* Not an address (llvm-symbolizer would look it up as a symbol
		 * name, and finds nothing in the forms we are given). */
		ob_str(o, mode == VERBOSE ? "??\n  Filename: ??\n  Line: 0\n  Column: 0\n\n" : "??\n??:0:0\n\n");
		return 0;
	}
	return symbolize_one(bin, addr, mode, o);
}

/* If p starts a line "0x" + 1 to 16 hex digits + "\n" (or the end), set
 * *addr and return the start of the next line; else NULL. */
static char *parse_hex_line(char *p, uint64_t *addr)
{
	if (p[0] != '0' || p[1] != 'x')
		return NULL;
	uint64_t a = 0;
	int i = 2;
	for (;; i++) {
		unsigned c = (unsigned char)p[i], d;
		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		a = a << 4 | d;
	}
	if (i == 2 || i > 18 || (p[i] != '\n' && p[i] != 0))
		return NULL;
	*addr = a;
	return p + i + (p[i] == '\n');
}

static int stdin_is_file(void)
{
	struct stat st;
	return fstat(0, &st) == 0 && S_ISREG(st.st_mode);
}

int cmd_symbolize(int argc, char **argv)
{
	const char *binary = NULL, *debug = NULL;
	int mode = PLAIN, all = 0, funcs = 0, first_addr = argc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--binary") || !strcmp(a, "--debug-binary")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "spgo symbolize: %s needs a file\n", a);
				return 2;
			}
			*(a[2] == 'b' ? &binary : &debug) = argv[++i];
		} else if (!strncmp(a, "--binary=", 9)) {
			binary = a + 9;
		} else if (!strncmp(a, "--debug-binary=", 15)) {
			debug = a + 15;
		} else if (!strcmp(a, "--discriminators")) {
			mode = DISCRIMINATORS;
		} else if (!strcmp(a, "--verbose")) {
			mode = VERBOSE;
		} else if (!strcmp(a, "--all-instructions")) {
			all = 1;
		} else if (!strcmp(a, "--functions")) {
			funcs = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (a[0] == '-' && a[1] == '-') {
			fprintf(stderr, "spgo symbolize: unknown option '%s'\n%s", a, usage);
			return 2;
		} else {
			first_addr = i;
			break;
		}
	}
	if (!binary) {
		fputs(usage, stderr);
		return 2;
	}
	/* SPGO_VERBOSE=1: say how the tables were built (to stderr). */
	const char *verbose = getenv("SPGO_VERBOSE");
	if (verbose && !strcmp(verbose, "1"))
		spgo_verbose = 1;
	/* The DWARF of a large binary takes tens of megabytes of small
	 * blocks in libdw: have them in huge pages (see spgo_heap_reserve). */
	struct stat st;
	if (stat(debug ? debug : binary, &st) == 0)
		spgo_heap_reserve(((size_t)64 << 20) + 8 * (size_t)st.st_size);
	struct spgo_binary *bin;
	if (spgo_binary_open(&bin, binary, debug) < 0)
		return cli_fail();
	if (spgo_binary_check_machine(bin) < 0) {
		spgo_binary_close(bin);
		return cli_fail();
	}
	struct obuf *o = xmalloc(sizeof *o);
	ob_init(o);
	int rc = 0;
	if (all) {
		rc = list_instructions(bin, o);
	} else if (funcs) {
		rc = list_functions(bin, o);
	} else if ((rc = spgo_binary_load_debug(bin)) == 0) {
		if (first_addr < argc) {
			for (int i = first_addr; i < argc && rc == 0; i++)
				rc = symbolize_text(bin, argv[i], mode, o);
		} else if (stdin_is_file()) {
			/* A file of addresses: read it whole, split it in place. */
			struct spgo_file in;
			if ((rc = spgo_file_map(&in, "-")) == 0) {
				char *text = xmalloc(in.size + 1);
				memcpy(text, in.data, in.size);
				text[in.size] = 0;
				spgo_file_unmap(&in);
				for (char *p = text; rc == 0 && *p;) {
					/* The common line, "0x" and hex digits, parsed
					 * here; anything else by symbolize_text(). */
					uint64_t addr;
					char *end = parse_hex_line(p, &addr);
					if (end) {
						rc = symbolize_one(bin, addr, mode, o);
						p = end;
						continue;
					}
					char *nl = strchr(p, '\n');
					if (nl)
						*nl = 0;
					rc = symbolize_text(bin, p, mode, o);
					p = nl ? nl + 1 : p + strlen(p);
				}
				free(text);
			}
		} else {
			char *line = NULL;
			size_t cap = 0;
			while (rc == 0 && getline(&line, &cap, stdin) >= 0) {
				rc = symbolize_text(bin, line, mode, o);
				/* Answer interactive callers line by line: flush when
				 * glibc's stdin buffer holds no further line. */
				if (o->n && !feof(stdin) && stdin->_IO_read_ptr == stdin->_IO_read_end)
					ob_flush(o);
			}
			free(line);
		}
	}
	int werr = ob_finish(o);
	free(o);
	spgo_binary_close(bin);
	if (rc < 0)
		return cli_fail();
	if (werr || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "spgo: <stdout>: write error\n");
		return 1;
	}
	return 0;
}
