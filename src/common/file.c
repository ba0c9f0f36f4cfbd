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
		if (f->mapped)
			munmap((void *)f->data, f->size);
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
#define MAX_PENDING 16
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

void spgo_tmp_track(char *tmp)
{
	static int installed;
	if (!installed) {
		installed = 1;
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

int spgo_out_open(struct spgo_out *o, const char *path)
{
	memset(o, 0, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	o->path = xstrdup(path);
	o->tmp = xasprintf("%s.tmp.XXXXXX", path);
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
		memset(o, 0, sizeof *o);
		return -1;
	}
	fchmod(fd, 0644);
	o->fp = fdopen(fd, "wb");
	return 0;
}

int spgo_out_commit(struct spgo_out *o)
{
	int bad = fflush(o->fp) != 0 || ferror(o->fp);
	if (!o->tmp) { /* stdout */
		memset(o, 0, sizeof *o);
		return bad ? spgo_error("<stdout>: write error") : 0;
	}
	int e = errno;
	if (fclose(o->fp) != 0)
		bad = 1, e = errno;
	o->fp = NULL;
	if (!bad && rename(o->tmp, o->path) != 0)
		bad = 1, e = errno;
	spgo_tmp_untrack(o->tmp);
	if (bad) {
		spgo_error("%s: write failed: %s", o->path, strerror(e));
		unlink(o->tmp);
	}
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
	return bad ? -1 : 0;
}

void spgo_out_abort(struct spgo_out *o)
{
	if (o->tmp) {
		if (o->fp)
			fclose(o->fp);
		unlink(o->tmp);
		spgo_tmp_untrack(o->tmp);
	}
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
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
