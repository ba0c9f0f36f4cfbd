/* Errors, warnings and out-of-memory handling: see spgo/common.h. */
#include "spgo/common.h"

#include <stdlib.h>
#include <string.h>

int spgo_quiet;
int spgo_verbose;

static _Thread_local char errbuf[1024];

int spgo_verror(const char *fmt, va_list ap)
{
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	return -1;
}

int spgo_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	spgo_verror(fmt, ap);
	va_end(ap);
	return -1;
}

const char *spgo_errmsg(void)
{
	return errbuf;
}

void spgo_warn(const char *fmt, ...)
{
	va_list ap;
	if (spgo_quiet)
		return;
	va_start(ap, fmt);
	fputs("spgo: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void spgo_info(const char *fmt, ...)
{
	va_list ap;
	if (!spgo_verbose)
		return;
	va_start(ap, fmt);
	fputs("spgo: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void spgo_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("spgo: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void oom(size_t n)
{
	fprintf(stderr, "spgo: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}
