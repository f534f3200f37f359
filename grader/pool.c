/*
 * The thread pool (see pool.h).  Its threads wait on one queue of job
 * indices: pool_run fills it at once, pool_pipeline one index at a
 * time as the first stages finish, then closes it.
 */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work;  /* an index was queued, or the queue closed */
	pthread_cond_t taken; /* a thread took an index */
	pool_job job;
	void *ctx;
	size_t *queue;        /* the indices; NULL: 0, 1, 2, ... */
	size_t queued, next;  /* indices queued, and taken */
	int closed;           /* no index will be queued */
};

static void pool_init(struct pool *p, pool_job job, void *ctx)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->taken, NULL);
	p->job = job;
	p->ctx = ctx;
}

static void pool_release(struct pool *p)
{
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->taken);
	free(p->queue);
}

/* The next index to run into *i, waiting for one while the queue is
 * open; 0 when there is none left. */
static int take(struct pool *p, size_t *i)
{
	int got = 0;

	pthread_mutex_lock(&p->mu);
	while (p->next == p->queued && !p->closed)
		pthread_cond_wait(&p->work, &p->mu);
	if (p->next < p->queued) {
		*i = p->queue ? p->queue[p->next] : p->next;
		p->next++;
		got = 1;
		pthread_cond_signal(&p->taken);
	}
	pthread_mutex_unlock(&p->mu);
	return got;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while (take(p, &i))
		p->job(p->ctx, i);
	return NULL;
}

/* Start k threads into th; how many started (fewer: said why). */
static unsigned start(struct pool *p, pthread_t *th, unsigned k)
{
	unsigned n;
	int rc = 0;

	for (n = 0; n < k; n++) {
		rc = pthread_create(&th[n], NULL, worker, p);
		if (rc)
			break;
	}
	if (rc)
		error("cannot start a worker thread (%u of %u started): %s",
		      n, k, strerror(rc));
	return n;
}

static void join(pthread_t *th, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/* Threads for n jobs over at most k. */
static unsigned threads(size_t n, unsigned k)
{
	if (!k)
		k = 1;
	return n < k ? (unsigned)n : k;
}

int pool_run(size_t n, unsigned k, pool_job job, void *ctx)
{
	struct pool p;
	unsigned want = threads(n, k), started;
	pthread_t *th;

	if (!n)
		return 0;
	pool_init(&p, job, ctx);
	p.queued = n;
	p.closed = 1;
	th = xcalloc(want, sizeof(*th));
	started = start(&p, th, want);
	if (started < want)
		worker(&p); /* in the place of the thread that did not start */
	join(th, started);
	pool_release(&p);
	return started < want ? -1 : 0;
}

int pool_pipeline(size_t n, unsigned k, pool_first first, pool_job then,
		  void *ctx)
{
	struct pool p;
	unsigned want = threads(n, k), started;
	pthread_t *th;

	if (!n)
		return 0;
	pool_init(&p, then, ctx);
	p.queue = xcalloc(n, sizeof(*p.queue));
	th = xcalloc(want, sizeof(*th));
	started = start(&p, th, want);
	for (size_t i = 0; i < n; i++) {
		if (!first(ctx, i))
			continue;
		if (!started) {
			then(ctx, i);
			continue;
		}
		pthread_mutex_lock(&p.mu);
		p.queue[p.queued++] = i;
		pthread_cond_signal(&p.work);
		while (p.next < p.queued)
			pthread_cond_wait(&p.taken, &p.mu);
		pthread_mutex_unlock(&p.mu);
	}
	pthread_mutex_lock(&p.mu);
	p.closed = 1;
	pthread_cond_broadcast(&p.work);
	pthread_mutex_unlock(&p.mu);
	join(th, started);
	pool_release(&p);
	return started < want ? -1 : 0;
}
