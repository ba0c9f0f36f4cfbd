/*
 * obuf.c: the output buffer of the symbolizer (obuf.h): a writer thread
 * writes one buffer while the next one fills.
 */
#include <stdlib.h>

#include "binary/obuf.h"

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
		int bad = fwrite(p, 1, len, o->fp) != len || fflush(o->fp) != 0;
		pthread_mutex_lock(&o->mu);
		o->write_error |= bad;
		o->pending = NULL;
		pthread_cond_broadcast(&o->cv);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

void spgo_ob_init(struct obuf *o, FILE *fp, int threads)
{
	memset(o, 0, sizeof *o);
	o->fp = fp;
	o->cap = OBUF_SIZE;
	o->buf = xmalloc(OBUF_SIZE);
	o->other = xmalloc(OBUF_SIZE);
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	o->threaded = threads && pthread_create(&o->thread, NULL, writer, o) == 0;
}

void spgo_ob_init_grow(struct obuf *o, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->grow = 1;
	o->cap = cap ? cap : 1;
	o->buf = xmalloc(o->cap);
}

void spgo_ob_flush(struct obuf *o)
{
	o->flushes++;
	if (!o->n)
		return;
	if (!o->threaded) {
		/* Flushed too: a coprocess waits for each answer. */
		o->write_error |= fwrite(o->buf, 1, o->n, o->fp) != o->n || fflush(o->fp) != 0;
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

void spgo_ob_drain(struct obuf *o)
{
	spgo_ob_flush(o);
	if (!o->threaded)
		return;
	pthread_mutex_lock(&o->mu);
	while (o->pending)
		pthread_cond_wait(&o->cv, &o->mu);
	pthread_mutex_unlock(&o->mu);
}

int spgo_ob_finish(struct obuf *o)
{
	spgo_ob_flush(o);
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

void spgo_ob_mem_slow(struct obuf *o, const char *s, size_t len)
{
	if (o->grow) {
		while (o->cap - o->n < len)
			o->cap *= 2;
		o->buf = xrealloc(o->buf, o->cap);
	} else {
		spgo_ob_flush(o);
		while (len > o->cap) {
			memcpy(o->buf, s, o->cap);
			o->n = o->cap;
			spgo_ob_flush(o);
			s += o->cap;
			len -= o->cap;
		}
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}
