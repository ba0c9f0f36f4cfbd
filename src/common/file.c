/* Mapped input files, atomic output files, small helpers: see spgo/common.h. */
#include "spgo/common.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * A mapped file that shrinks while spgo reads it (a perf.data truncated in
 * place, a profile rewritten by another program) makes the next read of
 * its lost tail a SIGBUS.  The mappings are kept in a fixed table; the
 * SIGBUS handler finds the one the faulting address lies in and ends the
 * run as an error would, "spgo: FILE: truncated while reading (offset N)",
 * after removing the pending temporary outputs, with exit status 1.  A
 * fault outside any of them is not ours: it takes its default course.
 * The handler uses write(), unlink() and _exit() only (async-signal-safe).
 */
#define MAX_MAPPED 64
static struct mapped_file {
	const uint8_t *volatile base;
	size_t size;
	char *path; /* owned: the caller's may go before the mapping */
} mapped[MAX_MAPPED];

/* Append the decimal digits of v to buf at n; the new length. */
static size_t fmt_u64(char *buf, size_t n, uint64_t v)
{
	char d[20];
	size_t k = 0;
	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k)
		buf[n++] = d[--k];
	return n;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	const uint8_t *a = si->si_addr;
	long page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < MAX_MAPPED; i++) {
		const uint8_t *b = mapped[i].base;
		if (!b || a < b || (size_t)(a - b) >= mapped[i].size + (size_t)page)
			continue;
		char msg[512];
		size_t n = 0, len = strlen(mapped[i].path);
		if (len > sizeof msg - 80)
			len = sizeof msg - 80;
		memcpy(msg, "spgo: ", 6), n = 6;
		memcpy(msg + n, mapped[i].path, len), n += len;
		memcpy(msg + n, ": truncated while reading (offset ", 34), n += 34;
		n = fmt_u64(msg, n, (uint64_t)(a - b));
		memcpy(msg + n, ")\n", 2), n += 2;
		ssize_t w = write(2, msg, n);
		(void)w;
		spgo_out_remove_pending();
		_exit(1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void spgo_map_track(const void *base, size_t size, const char *path)
{
	static int installed;
	if (!installed) {
		installed = 1;
		struct sigaction old, sa;
		if (sigaction(SIGBUS, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
			memset(&sa, 0, sizeof sa);
			sa.sa_sigaction = on_sigbus;
			sa.sa_flags = SA_SIGINFO;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, NULL);
		}
	}
	for (int i = 0; i < MAX_MAPPED; i++)
		if (!mapped[i].base) {
			mapped[i].size = size;
			mapped[i].path = xstrdup(path);
			mapped[i].base = base; /* last: the handler reads base first */
			return;
		}
}

void spgo_map_untrack(const void *base)
{
	for (int i = 0; i < MAX_MAPPED; i++)
		if (mapped[i].base == base) {
			mapped[i].base = NULL;
			free(mapped[i].path);
			mapped[i].path = NULL;
			return;
		}
}

int spgo_file_map(struct spgo_file *f, const char *path)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY);
	if (fd < 0)
		return spgo_error("%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return spgo_error("%s: %s", path, strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return spgo_error("%s: is a directory", path);
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			f->data = p;
			f->size = (size_t)st.st_size;
			f->mapped = 1;
			spgo_map_track(p, f->size, path);
			return 0;
		}
	}
	/* A pipe, an empty file, or a file mmap refused: read it all. */
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = xmalloc(cap);
	for (;;) {
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return spgo_error("%s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	f->data = buf;
	f->size = n;
	return 0;
}

void spgo_file_unmap(struct spgo_file *f)
{
	if (f->data) {
		if (f->mapped) {
			spgo_map_untrack(f->data);
			munmap((void *)f->data, f->size);
		}
		else
			free((void *)f->data);
	}
	f->data = NULL;
	f->size = 0;
}

/*
 * Temporary files (of outputs not yet committed, and any other a command
 * tracks with spgo_tmp_track(): spgo record's probe file), removed by the handler of
 * the signals that end a run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) before the
 * signal takes its default course: a killed spgo leaves no PATH.tmp.XXXXXX
 * behind.  A fixed table (a process writes a few outputs at a time), read
 * by the handler with unlink() only, which is async-signal-safe.
 */
#define MAX_PENDING 32
static char *volatile pending[MAX_PENDING];

void spgo_out_remove_pending(void)
{
	for (int i = 0; i < MAX_PENDING; i++) {
		char *t = pending[i];
		if (t)
			unlink(t);
	}
}

static void on_fatal_signal(int sig)
{
	spgo_out_remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* At exit: the temporary files of outputs reserved or opened and never
 * committed (a command that failed after spgo_out_reserve()).  Only in the
 * process that tracked them, not in a forked child that exits. */
static pid_t tracker;

static void remove_pending_at_exit(void)
{
	if (getpid() == tracker)
		spgo_out_remove_pending();
}

void spgo_tmp_track(char *tmp)
{
	static int installed;
	if (!installed) {
		installed = 1;
		tracker = getpid();
		atexit(remove_pending_at_exit);
		static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
		for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
			struct sigaction old, sa;
			/* Only where nobody chose otherwise (an ignored SIGHUP
			 * under nohup stays ignored). */
			if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
				continue;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_fatal_signal;
			sigemptyset(&sa.sa_mask);
			sigaction(sigs[i], &sa, NULL);
		}
	}
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
}

void spgo_tmp_untrack(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

/*
 * Where an output goes.  `-o` must never destroy what it names:
 *  - a character or block device, a FIFO, a socket, and /dev/stdout,
 *    /dev/stderr, /dev/fd/N (the shell's descriptors) are written in place,
 *    streaming: renaming a file onto them would replace the node (as root,
 *    /dev/null itself), and a FIFO's reader would get nothing;
 *  - a symbolic link is followed: the temporary file is made beside its
 *    target and renamed onto the target, so the link stays a link;
 *  - an existing regular file is replaced by a temporary file given its
 *    mode and owner first (a 0600 profile stays 0600);
 *  - a new file gets 0666 less the umask, as the shell's `>` would.
 */

/* The descriptor named by /dev/stdout, /dev/stderr, /dev/fd/N or
 * /proc/self/fd/N, or -1 for any other path. */
static int std_fd(const char *path)
{
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	const char *n = !strncmp(path, "/dev/fd/", 8) ? path + 8
			: !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
	if (!n || *n < '0' || *n > '9')
		return -1;
	char *end;
	long v = strtol(n, &end, 10);
	return *end || v > 1 << 20 ? -1 : (int)v;
}

/* The file a chain of symbolic links ends at (which may not exist yet: the
 * link is dangling and the output will create it), malloc'd; NULL with
 * errno on a loop or an error. */
static char *link_target(const char *path)
{
	char *cur = xstrdup(path);
	for (int hops = 0; hops < 40; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur; /* the end of the chain, existing or not */
		char buf[4096];
		ssize_t n = readlink(cur, buf, sizeof buf - 1);
		if (n < 0) {
			free(cur);
			return NULL;
		}
		buf[n] = 0;
		char *next;
		const char *slash = strrchr(cur, '/');
		if (buf[0] == '/' || !slash)
			next = xstrdup(buf); /* absolute, or relative to the current directory as cur is */
		else
			next = xasprintf("%.*s/%s", (int)(slash - cur + 1), cur, buf);
		free(cur);
		cur = next;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/* Write in place to fd (a device, FIFO, socket or inherited descriptor). */
static int out_direct(struct spgo_out *o, const char *path, int fd)
{
	if (fd < 0)
		return spgo_error("%s: cannot open output: %s", path, strerror(errno));
	o->path = xstrdup(path);
	o->direct = 1;
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		int e = errno;
		close(fd);
		free(o->path);
		memset(o, 0, sizeof *o);
		return spgo_error("%s: cannot open output: %s", path, strerror(e));
	}
	return 0;
}

/* The output's mode when new: 0666 less the umask. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

/* Open o for path: in place, or as a temporary file beside its target. */
static int out_create(struct spgo_out *o, const char *path)
{
	memset(o, 0, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	int sfd = std_fd(path);
	if (sfd >= 0)
		return out_direct(o, path, fcntl(sfd, F_DUPFD_CLOEXEC, 3));
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return spgo_error("%s: cannot write output: is a directory", path);
		/* A device, a FIFO (waits for its reader, as the shell's `>`
		 * does) or a socket. */
		return out_direct(o, path, open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY));
	}
	char *target = link_target(path);
	if (!target)
		return spgo_error("%s: cannot resolve the output's symbolic link: %s", path, strerror(errno));
	int exists = stat(target, &st) == 0;
	o->path = xstrdup(path);
	o->target = target;
	o->tmp = xasprintf("%s.tmp.XXXXXX", target);
	/* Tracked (and the handlers installed) before the file exists: a
	 * signal right after mkstemp() must find it to remove. */
	spgo_tmp_track(o->tmp);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;
		spgo_tmp_untrack(o->tmp);
		spgo_error("%s: cannot create output: %s", path, strerror(e));
		free(o->path);
		free(o->tmp);
		free(o->target);
		memset(o, 0, sizeof *o);
		return -1;
	}
	if (exists) {
		/* The owner first: chown clears the set-id bits chmod restores. */
		if (fchown(fd, st.st_uid, st.st_gid) != 0 && st.st_uid != geteuid())
			spgo_warn("%s: its owner (uid %u) cannot be kept: %s", path, (unsigned)st.st_uid,
				  strerror(errno));
		fchmod(fd, st.st_mode & 07777);
	} else {
		fchmod(fd, new_file_mode());
	}
	o->fp = fdopen(fd, "wb");
	return 0;
}

/*
 * Outputs opened before the work (spgo_out_reserve), handed over by path to
 * the spgo_out_open() that writes them.  Their temporary files are pending
 * like any other; one never written is removed at exit.
 */
#define MAX_RESERVED 16
static struct spgo_out reserved[MAX_RESERVED];

int spgo_out_reserve(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return 0;
	for (int i = 0; i < MAX_RESERVED; i++)
		if (reserved[i].path && !strcmp(reserved[i].path, path))
			return 0;
	for (int i = 0; i < MAX_RESERVED; i++)
		if (!reserved[i].path)
			return out_create(&reserved[i], path);
	return 0; /* more than a command has: opened when written */
}

int spgo_out_open(struct spgo_out *o, const char *path)
{
	for (int i = 0; i < MAX_RESERVED; i++)
		if (reserved[i].path && !strcmp(reserved[i].path, path)) {
			*o = reserved[i];
			memset(&reserved[i], 0, sizeof reserved[i]);
			return 0;
		}
	return out_create(o, path);
}

int spgo_out_seekable(struct spgo_out *o)
{
	if (!o->direct || o->copy_to || lseek(fileno(o->fp), 0, SEEK_CUR) == 0)
		return 0;
	/* A FIFO, a socket or a terminal: write a hidden file (unlinked at
	 * once) and copy it to the output at commit. */
	FILE *hidden = tmpfile();
	if (!hidden)
		return spgo_error("%s: cannot create a temporary file: %s", o->path, strerror(errno));
	o->copy_to = o->fp;
	o->fp = hidden;
	return 0;
}

/* Copy the hidden file of spgo_out_seekable() to the output; 0 or errno. */
static int copy_hidden(struct spgo_out *o)
{
	char buf[1 << 16];
	size_t n;
	if (fflush(o->fp) != 0 || fseek(o->fp, 0, SEEK_SET) != 0)
		return errno ? errno : EIO;
	while ((n = fread(buf, 1, sizeof buf, o->fp)) > 0)
		if (fwrite(buf, 1, n, o->copy_to) != n)
			return errno ? errno : EIO;
	int e = ferror(o->fp) ? EIO : 0;
	fclose(o->fp);
	o->fp = o->copy_to;
	o->copy_to = NULL;
	return e;
}

static void out_free(struct spgo_out *o)
{
	free(o->path);
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
}

/*
 * Outputs that go together (spgo emulate's perf.data and its ground
 * truth): between spgo_out_hold() and spgo_out_release(), a commit
 * completes the temporary file (flushed, closed, checked) but leaves it
 * pending; the release renames them all, or removes them all.  Every
 * output is complete before the first rename: both or neither.
 */
static int holding;
static struct spgo_out held[MAX_RESERVED];

void spgo_out_hold(void)
{
	holding = 1;
}

int spgo_out_release(int keep)
{
	int rc = 0;
	holding = 0;
	for (int i = 0; i < MAX_RESERVED; i++) {
		struct spgo_out *o = &held[i];
		if (!o->tmp)
			continue;
		if (keep && rc == 0 && rename(o->tmp, o->target) != 0)
			rc = spgo_error("%s: write failed: %s", o->path, strerror(errno));
		if (!keep || rc < 0)
			unlink(o->tmp);
		spgo_tmp_untrack(o->tmp);
		out_free(o);
	}
	return rc;
}

/* Hold o's completed temporary file; 0, or -1 when the table is full. */
static int out_hold(struct spgo_out *o)
{
	for (int i = 0; i < MAX_RESERVED; i++)
		if (!held[i].tmp) {
			held[i] = *o;
			memset(o, 0, sizeof *o);
			return 0;
		}
	return -1;
}

int spgo_out_commit(struct spgo_out *o)
{
	if (!o->path) { /* stdout */
		int bad = fflush(o->fp) != 0 || ferror(o->fp);
		memset(o, 0, sizeof *o);
		return bad ? spgo_error("<stdout>: write error") : 0;
	}
	int e = o->copy_to ? copy_hidden(o) : 0;
	int bad = e != 0;
	if (fflush(o->fp) != 0 || ferror(o->fp))
		bad = 1, e = e ? e : errno;
	if (fclose(o->fp) != 0 && !bad)
		bad = 1, e = errno;
	o->fp = NULL;
	if (o->direct) {
		if (bad)
			spgo_error("%s: write failed: %s (written in place: nothing to remove)", o->path,
				   strerror(e));
		out_free(o);
		return bad ? -1 : 0;
	}
	if (!bad && holding && out_hold(o) == 0)
		return 0;
	if (!bad && rename(o->tmp, o->target) != 0)
		bad = 1, e = errno;
	spgo_tmp_untrack(o->tmp);
	if (bad) {
		spgo_error("%s: write failed: %s", o->path, strerror(e));
		unlink(o->tmp);
	}
	out_free(o);
	return bad ? -1 : 0;
}

void spgo_out_abort(struct spgo_out *o)
{
	if (o->copy_to) {
		fclose(o->copy_to);
		o->copy_to = NULL;
	}
	if (o->path && o->fp)
		fclose(o->fp);
	if (o->tmp) {
		unlink(o->tmp);
		spgo_tmp_untrack(o->tmp);
	}
	out_free(o);
}

/* path with its directory resolved (symbolic links, "." and ".."), and
 * path itself when it exists (what a link names): allocated. */
static char *canonical(const char *path)
{
	char *c = realpath(path, NULL);
	if (c)
		return c;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path + 1)) : xstrdup(".");
	char *d = realpath(dir, NULL);
	c = d ? xasprintf("%s/%s", d, slash ? slash + 1 : path) : xstrdup(path);
	free(d);
	free(dir);
	return c;
}

/* (the same path resolved, or the same inode) */
int spgo_out_same(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return 1;
	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return 0;
	struct stat x, y;
	if (stat(a, &x) == 0 && stat(b, &y) == 0)
		return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
	char *ca = canonical(a), *cb = canonical(b);
	int same = !strcmp(ca, cb);
	free(ca);
	free(cb);
	return same;
}

int spgo_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || *s == '-')
		return -1;
	*out = v;
	return 0;
}

double spgo_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
