/*
 * Where a binary's DWARF is: the binary itself, the separate debug file
 * given (--debug-binary), else, when the binary has no .debug_info of its
 * own, a separate debug file found on local paths the way gdb finds one
 * (the gdb manual's "Separate Debug Files"), in this order:
 *
 *   by build-id        DIR/.build-id/ab/cdef....debug (ab the build-id's
 *                      first byte in hex, cdef... the rest);
 *   by .gnu_debuglink  the name NAME the section holds, in the binary's
 *                      directory BINDIR: BINDIR/NAME, BINDIR/.debug/NAME,
 *                      then DIR/REALDIR/NAME (REALDIR: BINDIR made
 *                      absolute, symbolic links resolved);
 *
 *   by debuginfod      when none of those is there and $DEBUGINFOD_URLS
 *                      names servers: the build-id asked of them (see
 *                      ask_debuginfod()), as gdb, perf and the elfutils
 *                      tools do;
 *
 * DIR being the global debug directory, /usr/lib/debug or $SPGO_DEBUG_ROOT.
 * A candidate is taken when it is an ELF file with a .debug_info section,
 * has the binary's build-id when both have one, and, found by the
 * .gnu_debuglink, has the CRC32 the section holds (zlib's crc32 of the
 * whole file).  Every path looked at (and server asked), and why a file
 * there was refused, is kept for the message when none is taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <zlib.h>

#include "binary/binary_impl.h"

static int has_debug_info(Elf *elf)
{
	return spgo_elf_section(elf, ".debug_info", NULL) != NULL;
}

/* Append to the growing string *s (NULL at first). */
static void vappend(char **s, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return;
	size_t old = *s ? strlen(*s) : 0;
	*s = xrealloc(*s, old + (size_t)n + 1);
	vsnprintf(*s + old, (size_t)n + 1, fmt, ap);
}

static void append(char **s, const char *fmt, ...) SPGO_PRINTF(2, 3);
static void append(char **s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vappend(s, fmt, ap);
	va_end(ap);
}

/* The search so far: the paths looked at ("A, B"), and what was wrong with
 * the files found there ("A: why; B: why"). */
struct search {
	char *looked;
	char *refused;
};

static void refuse(struct search *s, const char *path, const char *fmt, ...) SPGO_PRINTF(3, 4);
static void refuse(struct search *s, const char *path, const char *fmt, ...)
{
	va_list ap;
	append(&s->refused, "%s%s: ", s->refused ? "; " : "", path);
	va_start(ap, fmt);
	vappend(&s->refused, fmt, ap);
	va_end(ap);
}

/* The CRC32 of the whole file open at fd, as .gnu_debuglink keeps it
 * (zlib's crc32, from 0): 0, or -1 when it cannot be read. */
static int file_crc32(int fd, uint32_t *crc)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = xmalloc(CHUNK);
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;
	while ((n = pread(fd, buf, CHUNK, off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	int err = errno;
	free(buf);
	errno = err;
	*crc = (uint32_t)c;
	return n < 0 ? -1 : 0;
}

/*
 * Take the file open at fd (found at path) as bin's separate debug file if
 * it is one (see the top): 0 with bin->dbg_fd and bin->dbg_elf set; -1
 * otherwise, with why in s and fd closed.  crc: the CRC32 it must have, or
 * NULL.
 */
static int check_candidate(struct spgo_binary *bin, struct search *s, int fd, const char *path,
			   const uint32_t *crc)
{
	struct stat st, self;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		refuse(s, path, "not a regular file");
		close(fd);
		return -1;
	}
	/* (a debug link naming the binary itself) */
	if (fstat(bin->fd, &self) == 0 && st.st_dev == self.st_dev && st.st_ino == self.st_ino) {
		close(fd);
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint8_t id[sizeof bin->build_id];
	size_t idlen = elf && elf_kind(elf) == ELF_K_ELF ? spgo_elf_build_id(elf, id, sizeof id) : 0;
	char mine[2 * sizeof bin->build_id + 1], theirs[2 * sizeof id + 1];
	spgo_build_id_hex(bin->build_id, bin->build_id_len, mine);
	spgo_build_id_hex(id, idlen, theirs);
	uint32_t have = 0;
	int ok = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		refuse(s, path, "not an ELF file");
	else if (bin->build_id_len && idlen && strcmp(mine, theirs) != 0)
		refuse(s, path, "its build-id %s is not the %s of %s", theirs, mine, bin->path);
	else if (!has_debug_info(elf))
		refuse(s, path, "no DWARF debug info (no .debug_info section)");
	else if (crc && file_crc32(fd, &have) < 0) /* (last: it reads the whole file) */
		refuse(s, path, "%s", strerror(errno));
	else if (crc && have != *crc)
		refuse(s, path, "its CRC32 is 0x%08x, not the 0x%08x of %s's .gnu_debuglink", have, *crc,
		       bin->path);
	else
		ok = 1;
	if (!ok) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	bin->dbg_fd = fd;
	bin->dbg_elf = elf;
	return 0;
}

/* Open path as bin's separate debug file if it is one: check_candidate(),
 * a missing file being no reason worth telling. */
static int try_candidate(struct spgo_binary *bin, struct search *s, const char *path, const uint32_t *crc)
{
	append(&s->looked, "%s%s", s->looked ? ", " : "", path);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			refuse(s, path, "%s", strerror(errno));
		return -1;
	}
	return check_candidate(bin, s, fd, path, crc);
}

/*
 * The .gnu_debuglink section: a file name (no directory), its NUL, zero to
 * three bytes of padding to a multiple of 4, and the CRC32 of the debug
 * file in the binary's byte order.  1 with *name (into the section) and
 * *crc set; 0 when there is none; -1 when it is malformed (why in s).
 */
static int read_debuglink(struct spgo_binary *bin, struct search *s, const char **name, uint32_t *crc)
{
	Elf_Data *d;
	Elf_Scn *scn = spgo_elf_section(bin->elf, ".gnu_debuglink", &d);
	if (!scn)
		return 0;
	const unsigned char *p = d->d_buf;
	size_t size = d->d_buf ? d->d_size : 0;
	const unsigned char *nul = size ? memchr(p, 0, size) : NULL;
	size_t len = nul ? (size_t)(nul - p) : 0;
	size_t at = (len + 1 + 3) & ~(size_t)3; /* where the CRC is */
	const char *why = !nul ? "no NUL-terminated file name"
			  : !len ? "an empty file name"
			  : memchr(p, '/', len) ? "a file name with a directory"
			  : at > size || size - at < 4 ? "no CRC32 after the file name" : NULL;
	if (why) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		append(&s->refused, "%s%s: offset 0x%llx: malformed .gnu_debuglink section (%s)",
		       s->refused ? "; " : "", bin->path, (unsigned long long)sh.sh_offset, why);
		return -1;
	}
	const unsigned char *c = p + at;
	if (elf_getident(bin->elf, NULL)[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
	else
		*crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
	*name = (const char *)p;
	return 1;
}

/* Look for bin's separate debug file on the local paths (see the top); 0
 * when found, with *how set ("build-id", ".gnu_debuglink"). */
static int search_local(struct spgo_binary *bin, struct search *s, char **path, const char **how)
{
	const char *root = getenv("SPGO_DEBUG_ROOT");
	if (!root || !*root)
		root = "/usr/lib/debug";
	if (bin->build_id_len >= 2) {
		char hex[2 * sizeof bin->build_id + 1];
		spgo_build_id_hex(bin->build_id, bin->build_id_len, hex);
		*path = xasprintf("%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
		*how = "build-id";
		if (try_candidate(bin, s, *path, NULL) == 0)
			return 0;
		free(*path);
	}
	const char *name;
	uint32_t crc;
	if (read_debuglink(bin, s, &name, &crc) != 1)
		return -1;
	*how = ".gnu_debuglink";
	/* BINDIR as given ("" for a bare file name), then made absolute. */
	const char *slash = strrchr(bin->path, '/');
	int dirlen = slash ? (int)(slash - bin->path + 1) : 0;
	*path = xasprintf("%.*s%s", dirlen, bin->path, name);
	if (try_candidate(bin, s, *path, &crc) == 0)
		return 0;
	free(*path);
	*path = xasprintf("%.*s.debug/%s", dirlen, bin->path, name);
	if (try_candidate(bin, s, *path, &crc) == 0)
		return 0;
	free(*path);
	char *dir = dirlen ? xstrndup(bin->path, (size_t)dirlen) : xstrdup(".");
	char *real = realpath(dir, NULL);
	free(dir);
	if (real) {
		*path = xasprintf("%s%s/%s", root, strcmp(real, "/") ? real : "", name);
		free(real);
		if (try_candidate(bin, s, *path, &crc) == 0)
			return 0;
		free(*path);
	}
	return -1;
}

/* What a debuginfod query's error code (a negated errno) means. */
static const char *debuginfod_answer(int rc)
{
	switch (-rc) {
	case ENOENT:
		return "not found"; /* (HTTP 404: the server has no such build-id) */
	case ENOSYS:
		return "no server URL in DEBUGINFOD_URLS";
	default:
		return strerror(-rc);
	}
}

/* The servers of $DEBUGINFOD_URLS as one line ("A B"), for the messages;
 * NULL when there is none. */
static char *debuginfod_urls(void)
{
	const char *env = getenv(DEBUGINFOD_URLS_ENV_VAR);
	char *urls = NULL;
	for (const char *p = env ? env : ""; *(p += strspn(p, " \t\n"));) {
		size_t n = strcspn(p, " \t\n");
		append(&urls, "%s%.*s", urls ? " " : "", (int)n, p);
		p += n;
	}
	return urls;
}

/*
 * Ask the debuginfod servers of $DEBUGINFOD_URLS (space-separated URLs)
 * for bin's debug file by its build-id, with elfutils' client library as
 * gdb and perf use it: it answers from its cache when it can
 * ($DEBUGINFOD_CACHE_PATH, default ~/.cache/debuginfod_client), else asks
 * the servers in parallel, keeping the first file one has; a server that
 * makes no progress for $DEBUGINFOD_TIMEOUT seconds (default 90) is given
 * up, after $DEBUGINFOD_RETRY_LIMIT retries.  The file then passes the
 * checks of a local one.  0 with *path (in the cache) and *how (the server,
 * or the cache) set; -1 with the servers and their answer in s.  A note
 * says the query is made: it may take a while.
 */
/*
 * The client library, loaded on first use (as elfutils' own libdwfl loads
 * it): linked in, it brings libcurl and its TLS stack, some 28 shared
 * libraries and 6 MB of resident memory, into every spgo command, which
 * almost never asks a server.  The header gives the types; dlsym the
 * functions.  NULL members when the library is not installed.
 */
static struct {
	int tried;
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	const char *(*get_url)(debuginfod_client *);
	void (*end)(debuginfod_client *);
} dfd;

static int load_debuginfod(void)
{
	if (dfd.tried)
		return dfd.begin ? 0 : -1;
	dfd.tried = 1;
	void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&dfd.begin = dlsym(h, "debuginfod_begin");
	*(void **)&dfd.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&dfd.get_url = dlsym(h, "debuginfod_get_url");
	*(void **)&dfd.end = dlsym(h, "debuginfod_end");
	if (!dfd.begin || !dfd.find_debuginfo || !dfd.end) {
		dfd.begin = NULL;
		return -1;
	}
	return 0;
}

static int ask_debuginfod(struct spgo_binary *bin, struct search *s, char **path, char **how)
{
	char *urls = debuginfod_urls();
	if (!urls || bin->build_id_len == 0) {
		free(urls);
		return -1;
	}
	char hex[2 * sizeof bin->build_id + 1];
	spgo_build_id_hex(bin->build_id, bin->build_id_len, hex);
	append(&s->looked, "%sdebuginfod %s", s->looked ? ", " : "", urls);
	if (bin->notes && !spgo_quiet)
		fprintf(bin->notes, "spgo: note: %s: no local debug file, asking debuginfod %s for build-id %s\n",
			bin->path, urls, hex);
	if (load_debuginfod() < 0) {
		append(&s->refused, "%sdebuginfod %s: the client library (libdebuginfod.so.1, Debian's "
		       "libdebuginfod1) is not installed", s->refused ? "; " : "", urls);
		free(urls);
		return -1;
	}
	debuginfod_client *client = dfd.begin();
	if (!client) {
		append(&s->refused, "%sdebuginfod %s: the client library could not start", s->refused ? "; " : "",
		       urls);
		free(urls);
		return -1;
	}
	char *found = NULL;
	int fd = dfd.find_debuginfo(client, bin->build_id, (int)bin->build_id_len, &found);
	int rc = -1;
	if (fd < 0) {
		append(&s->refused, "%sdebuginfod %s: %s", s->refused ? "; " : "", urls, debuginfod_answer(fd));
	} else {
		/* The server that had it: the URL of the transfer, less its
		 * "/buildid/HEX/debuginfo"; none when no transfer was needed
		 * (the file was in the cache already). */
		const char *url = dfd.get_url ? dfd.get_url(client) : NULL;
		const char *tail = url ? strstr(url, "/buildid/") : NULL;
		int len = url ? (int)(tail ? (size_t)(tail - url) : strlen(url)) : 0;
		char *from = url ? xasprintf("debuginfod %.*s", len, url)
				 : xasprintf("the debuginfod cache, servers %s", urls);
		char *named = xasprintf("%s (from %s)", found, from); /* (for a refusal) */
		if (check_candidate(bin, s, fd, named, NULL) == 0) {
			*how = xasprintf("build-id %s %s", url ? "from" : "in", from);
			*path = found;
			found = NULL;
			rc = 0;
		}
		free(named);
		free(from);
	}
	free(found);
	dfd.end(client);
	free(urls);
	return rc;
}

/* Look for bin's separate debug file (see the top); 0 when found, with
 * *path and *how (allocated) set. */
static int search(struct spgo_binary *bin, struct search *s, char **path, char **how)
{
	const char *local;
	if (search_local(bin, s, path, &local) == 0) {
		*how = xstrdup(local);
		return 0;
	}
	return ask_debuginfod(bin, s, path, how);
}

/* Open the explicit debug file: it is taken whatever its build-id, but
 * one that differs from the binary's is warned about (its DWARF describes
 * other code: a wrong profile, unless the user knows better). */
static int open_given(struct spgo_binary *bin)
{
	const char *path = bin->debug_path;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return spgo_error("%s: cannot open the debug file: %s", path, strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return spgo_error("%s: debug file is not an ELF file", path);
	}
	bin->dbg_fd = fd;
	bin->dbg_elf = elf;
	if (!has_debug_info(elf))
		return spgo_error("%s: no DWARF debug info (no .debug_info section)", path);
	uint8_t id[sizeof bin->build_id];
	size_t idlen = spgo_elf_build_id(elf, id, sizeof id);
	if (bin->build_id_len && idlen &&
	    (idlen != bin->build_id_len || memcmp(id, bin->build_id, idlen) != 0)) {
		char mine[2 * sizeof bin->build_id + 1], theirs[2 * sizeof id + 1];
		spgo_build_id_hex(bin->build_id, bin->build_id_len, mine);
		spgo_build_id_hex(id, idlen, theirs);
		spgo_warn("%s: build-id %s is not the %s of %s: its debug information is of another "
			  "build, and a profile from it maps samples to the wrong lines",
			  path, theirs, mine, bin->path);
	}
	return 0;
}

int spgo_binary_open_debug(struct spgo_binary *bin)
{
	if (bin->debug_path) {
		if (open_given(bin) < 0)
			return -1;
		bin->dwarf_path = xstrdup(bin->debug_path);
		return 0;
	}
	if (has_debug_info(bin->elf)) {
		bin->dwarf_path = xstrdup(bin->path);
		return 0;
	}
	struct search s = {0};
	char *path, *how;
	if (search(bin, &s, &path, &how) == 0) {
		bin->dwarf_path = path;
		if (bin->notes && !spgo_quiet)
			fprintf(bin->notes, "spgo: note: %s: no DWARF of its own, reading the separate debug "
					    "file %s (found by %s)\n",
				bin->path, path, how);
		free(how);
		free(s.looked);
		free(s.refused);
		return 0;
	}
	free(bin->debug_search);
	bin->debug_search = NULL;
	if (s.looked)
		bin->debug_search = xasprintf("looked for %s%s%s", s.looked, s.refused ? "; " : "",
					      s.refused ? s.refused : "");
	else if (s.refused)
		bin->debug_search = xstrdup(s.refused);
	else
		bin->debug_search = xstrdup("no build-id or .gnu_debuglink to find a separate debug file by");
	free(s.looked);
	free(s.refused);
	bin->debug_absent = 1;
	return spgo_error("%s: no debug info (no .debug_info section, no separate debug file given, none "
			  "found: %s)",
			  bin->path, bin->debug_search);
}

const char *spgo_binary_debug_search(const struct spgo_binary *bin)
{
	return bin->debug_search ? bin->debug_search : "";
}

void spgo_binary_set_notes(struct spgo_binary *bin, FILE *fp)
{
	bin->notes = fp;
}
