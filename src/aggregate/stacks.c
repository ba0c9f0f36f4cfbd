/*
 * The distinct call stacks of an aggregate (see spgo/aggregate.h: stacks,
 * spgo_agg_on_stack): a pool of entries [count, nframes | nbranches << 32,
 * frames..., branch pairs...] indexed by a hash of their words, counted
 * in place, and, when a consumer takes them (spgo_agg_on_stack), handed
 * over in batches, on the reading thread or on a thread of its own
 * (spgo_agg_on_stack_thread).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate_impl.h"

/* Call fn on each distinct stack of a pool [count, hdr, words...]... */
static void hand_over(spgo_agg_stack_fn fn, void *ctx, const uint64_t *pool, size_t n)
{
	for (size_t at = 0; at < n;) {
		const uint64_t *e = pool + at;
		struct spgo_agg_stack s = {e[0], e + 2, (uint32_t)e[1], (uint32_t)(e[1] >> 32),
					   e + 2 + (uint32_t)e[1]};
		fn(ctx, &s);
		at += 2 + s.nframes + 2 * (size_t)s.nbranches;
	}
}

/*
 * The on_stack callback's own thread (spgo_agg_on_stack_thread).  Reading
 * appends each stack sample as it comes ([count, hdr, words...]) to a raw
 * chunk; a full chunk goes to the worker, which keeps the distinct ones in
 * the pool (count_stack) and, when the pool is full, swaps it with its
 * second buffer and runs fn on each stack of that batch, a slice at a time,
 * taking in the next raw chunk between slices: reading waits only when
 * the worker has not taken the previous chunk yet.  The pool fills and is
 * handed over exactly as in the reading thread: fn sees the same calls in
 * the same order.  While the worker runs, only it touches the pool and
 * stack_index.
 */
#define WORKER_SLICE 256 /* stacks unwound between looks at the raw chunks */
struct stack_worker {
	struct spgo_agg_impl *I;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t *raw; /* the chunk handed over (while raw_pending), else free */
	size_t raw_n, raw_cap;
	int raw_pending, done;
	uint64_t *v;   /* the batch being handed to fn: [at, n) left */
	size_t at, n, cap;
};

static void count_stack(struct spgo_agg_impl *I, const uint64_t *w, size_t nw, uint64_t hdr,
			uint64_t times);

/* Worker: fn on the next slice of the batch (up to max stacks). */
static void worker_slice(struct stack_worker *w, size_t max)
{
	struct spgo_agg_impl *I = w->I;
	for (size_t k = 0; k < max && w->at < w->n; k++) {
		const uint64_t *e = w->v + w->at;
		struct spgo_agg_stack s = {e[0], e + 2, (uint32_t)e[1], (uint32_t)(e[1] >> 32),
					   e + 2 + (uint32_t)e[1]};
		I->on_stack(I->on_stack_ctx, &s);
		w->at += 2 + s.nframes + 2 * (size_t)s.nbranches;
	}
}

/* Worker: the pool is full: finish the batch in hand, make the pool the
 * next batch (flush_stacks with a worker). */
static void worker_take_pool(struct stack_worker *w)
{
	struct spgo_agg_impl *I = w->I;
	worker_slice(w, SIZE_MAX);
	uint64_t *v = w->v;
	size_t cap = w->cap;
	w->v = I->pool.v;
	w->n = I->pool.n;
	w->cap = I->pool.cap;
	w->at = 0;
	I->pool.v = v;
	I->pool.n = 0;
	I->pool.cap = cap;
}

static void *worker_run(void *arg)
{
	struct stack_worker *w = arg;
	struct spgo_agg_impl *I = w->I;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (w->raw_pending) {
			pthread_mutex_unlock(&w->mu);
			for (size_t at = 0; at < w->raw_n;) {
				const uint64_t *e = w->raw + at;
				size_t nw = (uint32_t)e[1] + 2 * (size_t)(uint32_t)(e[1] >> 32);
				count_stack(I, e + 2, nw, e[1], e[0]);
				at += 2 + nw;
			}
			pthread_mutex_lock(&w->mu);
			w->raw_n = 0;
			w->raw_pending = 0;
			pthread_cond_broadcast(&w->cv);
			continue;
		}
		if (w->at < w->n) {
			pthread_mutex_unlock(&w->mu);
			worker_slice(w, WORKER_SLICE);
			pthread_mutex_lock(&w->mu);
			continue;
		}
		if (w->done)
			break;
		pthread_cond_wait(&w->cv, &w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Reading: hand the raw chunk to the worker (once it has taken the
 * previous one) and take its free buffer in exchange. */
static void worker_give(struct spgo_agg_impl *I)
{
	struct stack_worker *w = I->worker;
	if (!I->raw.n)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->raw_pending)
		pthread_cond_wait(&w->cv, &w->mu);
	uint64_t *v = w->raw;
	size_t cap = w->raw_cap;
	w->raw = I->raw.v;
	w->raw_n = I->raw.n;
	w->raw_cap = I->raw.cap;
	I->raw.v = v;
	I->raw.n = 0;
	I->raw.cap = cap;
	w->raw_pending = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* Let the worker finish what it was given (raw chunks, the batch in
 * hand), stop it and free it.  The pool is the reading thread's again. */
void agg_worker_stop(struct spgo_agg_impl *I)
{
	struct stack_worker *w = I->worker;
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->done = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->raw);
	free(w->v);
	free(w);
	I->worker = NULL;
	VEC_FREE(&I->raw);
}

/* Hand the distinct stacks kept so far to the on_stack callback and forget
 * them; with a worker (called from it), they become its next batch. */
static void flush_stacks(struct spgo_agg_impl *I)
{
	if (I->worker) {
		worker_take_pool(I->worker);
	} else {
		hand_over(I->on_stack, I->on_stack_ctx, I->pool.v, I->pool.n);
		I->pool.n = 0;
	}
	spgo_kmap_free(&I->stack_index);
	spgo_kmap_init(&I->stack_index, 2);
}

/* Count one stack(+LBR) key w[0..nw) with header hdr (nframes | nbranches
 * << 32) times times. */
static void count_stack(struct spgo_agg_impl *I, const uint64_t *w, size_t nw, uint64_t hdr,
			uint64_t times)
{
	/* (word-wise: a byte-wise hash of ~70 words was a sixth of the time;
	 * four independent lanes: one lane's chain of multiplies was most of
	 * this function's time.  The hash only finds entries: which samples
	 * are distinct, and their order in the pool, do not depend on it.) */
	uint64_t h0 = spgo_hash64(hdr), h1 = h0 ^ 0x9e3779b97f4a7c15ULL, h2 = h0 + 0x632be59bd9b4e019ULL,
		 h3 = ~h0;
	size_t i = 0;
	for (; i + 4 <= nw; i += 4) {
		h0 = (h0 ^ w[i]) * 0x100000001b3ULL + (h0 >> 29);
		h1 = (h1 ^ w[i + 1]) * 0x100000001b3ULL + (h1 >> 29);
		h2 = (h2 ^ w[i + 2]) * 0x100000001b3ULL + (h2 >> 29);
		h3 = (h3 ^ w[i + 3]) * 0x100000001b3ULL + (h3 >> 29);
	}
	for (; i < nw; i++)
		h0 = (h0 ^ w[i]) * 0x100000001b3ULL + (h0 >> 29);
	uint64_t h = spgo_hash64(h0 ^ spgo_hash64(h1 ^ spgo_hash64(h2 ^ spgo_hash64(h3))));
	for (uint64_t salt = 0;; salt++) {
		uint64_t key[2] = {h, salt};
		uint64_t *v = spgo_kmap_find(&I->stack_index, key);
		if (!v) {
			if (I->on_stack && I->pool.n + 2 + nw > I->on_stack_words)
				flush_stacks(I);
			*spgo_kmap_upsert(&I->stack_index, key) = I->pool.n;
			VEC_GROW(&I->pool, I->pool.n + 2 + nw);
			I->pool.v[I->pool.n++] = times;
			I->pool.v[I->pool.n++] = hdr;
			memcpy(I->pool.v + I->pool.n, w, nw * 8);
			I->pool.n += nw;
			return;
		}
		uint64_t *e = I->pool.v + *v;
		if (e[1] == hdr && !memcmp(e + 2, w, nw * 8)) {
			e[0] += times;
			return;
		}
	}
}

/* One stack(+LBR) sample held in I->scratch: counted, or with a worker
 * appended to the raw chunk. */
void agg_put_stack(struct spgo_agg_impl *I, uint32_t nframes, uint32_t nbranches, uint64_t times)
{
	uint64_t hdr = nframes | (uint64_t)nbranches << 32;
	size_t nw = I->scratch.n;
	if (!I->worker) {
		count_stack(I, I->scratch.v, nw, hdr, times);
		return;
	}
	VEC_GROW(&I->raw, I->raw.n + 2 + nw);
	I->raw.v[I->raw.n++] = times;
	I->raw.v[I->raw.n++] = hdr;
	memcpy(I->raw.v + I->raw.n, I->scratch.v, nw * 8);
	I->raw.n += nw;
	if (I->raw.n >= I->raw_words)
		worker_give(I);
}

void spgo_agg_add_stack(struct spgo_aggregate *a, const uint64_t *frames, uint32_t nframes,
			const uint64_t *branches, uint32_t nbranches, uint64_t count)
{
	struct spgo_agg_impl *I = a->impl;
	size_t nw = nframes + 2 * (size_t)nbranches;
	VEC_GROW(&I->scratch, nw + 1);
	if (nframes)
		memcpy(I->scratch.v, frames, nframes * 8);
	if (nbranches)
		memcpy(I->scratch.v + nframes, branches, 2 * (size_t)nbranches * 8);
	I->scratch.n = nw;
	agg_put_stack(I, nframes, nbranches, count);
}

void spgo_agg_on_stack(struct spgo_aggregate *a, spgo_agg_stack_fn fn, void *ctx, size_t max_bytes)
{
	struct spgo_agg_impl *I = a->impl;
	if (I->on_stack && (!fn || I->worker)) {
		worker_give(I); /* (the last raw chunk, if any) */
		agg_worker_stop(I);
		flush_stacks(I);
		if (!fn)
			VEC_FREE(&I->pool);
	}
	I->on_stack = fn;
	I->on_stack_ctx = ctx;
	I->on_stack_words = max_bytes / 8;
}

int spgo_agg_on_stack_thread(struct spgo_aggregate *a)
{
	struct spgo_agg_impl *I = a->impl;
	if (!I->on_stack)
		return -1;
	if (I->worker)
		return 0;
	struct stack_worker *w = xcalloc(1, sizeof *w);
	w->I = I;
	/* Raw chunks of a quarter of a batch (4 MiB for the context stage's
	 * 16 MiB). */
	I->raw_words = I->on_stack_words / 4 > 64 ? I->on_stack_words / 4 : 64;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->thread, NULL, worker_run, w) != 0) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		return -1;
	}
	I->worker = w;
	return 0;
}

int spgo_agg_next_stack(const struct spgo_aggregate *a, size_t *iter, struct spgo_agg_stack *s)
{
	const struct spgo_agg_impl *I = a->impl;
	if (*iter >= I->pool.n)
		return 0;
	const uint64_t *e = I->pool.v + *iter;
	s->count = e[0];
	s->nframes = (uint32_t)e[1];
	s->nbranches = (uint32_t)(e[1] >> 32);
	s->frames = e + 2;
	s->branches = e + 2 + s->nframes;
	*iter += 2 + s->nframes + 2 * (size_t)s->nbranches;
	return 1;
}
