/*
 * The turns of one grade's runners on a GPU (see gputurns.h): a counter
 * of running runners, one of those waiting for a turn, and whether a
 * turn is held, under one mutex.
 */
#include "gputurns.h"

#include <pthread.h>
#include <stdlib.h>

#include "util.h"

struct gputurns {
	pthread_mutex_t mu;
	pthread_cond_t changed;
	unsigned running; /* entered, neither waiting nor holding a turn */
	unsigned waiting; /* waiting for a turn */
	int held;
};

struct gputurns *gputurns_new(void)
{
	struct gputurns *t = xcalloc(1, sizeof(*t));

	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->changed, NULL);
	return t;
}

void gputurns_free(struct gputurns *t)
{
	if (!t)
		return;
	pthread_cond_destroy(&t->changed);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

void gputurns_enter(struct gputurns *t)
{
	pthread_mutex_lock(&t->mu);
	while (t->held || t->waiting)
		pthread_cond_wait(&t->changed, &t->mu);
	t->running++;
	pthread_mutex_unlock(&t->mu);
}

void gputurns_take(struct gputurns *t)
{
	pthread_mutex_lock(&t->mu);
	t->running--;
	t->waiting++;
	/* others running may be waiting for this count to fall */
	pthread_cond_broadcast(&t->changed);
	while (t->held || t->running)
		pthread_cond_wait(&t->changed, &t->mu);
	t->waiting--;
	t->held = 1;
	pthread_mutex_unlock(&t->mu);
}

void gputurns_leave(struct gputurns *t, int took)
{
	pthread_mutex_lock(&t->mu);
	if (took)
		t->held = 0;
	else
		t->running--;
	pthread_cond_broadcast(&t->changed);
	pthread_mutex_unlock(&t->mu);
}
