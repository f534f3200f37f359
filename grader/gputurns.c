/*
 * The turns of one grade's runners on a GPU (see gputurns.h): a count
 * of running runners, one of those waiting for a turn, the runner
 * holding the turn, and the release flags of those idle after theirs,
 * under one mutex.
 */
#include "gputurns.h"

#include <pthread.h>
#include <stdlib.h>

#include "util.h"

struct gputurns {
	pthread_mutex_t mu;
	pthread_cond_t changed;
	unsigned running; /* entered, neither waiting, holding nor idle */
	unsigned waiting; /* waiting for a turn */
	int *holder;      /* the release flag of the turn's runner, or NULL */
	int **idle;       /* the release flags of those idle after a turn */
	size_t nidle, idle_cap;
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
	free(t->idle);
	free(t);
}

void gputurns_enter(struct gputurns *t)
{
	pthread_mutex_lock(&t->mu);
	while (t->holder || t->waiting)
		pthread_cond_wait(&t->changed, &t->mu);
	t->running++;
	pthread_mutex_unlock(&t->mu);
}

void gputurns_take(struct gputurns *t, int *release)
{
	pthread_mutex_lock(&t->mu);
	t->running--;
	t->waiting++;
	/* others running may be waiting for this count to fall */
	pthread_cond_broadcast(&t->changed);
	while (t->holder || t->running)
		pthread_cond_wait(&t->changed, &t->mu);
	t->waiting--;
	t->holder = release;
	pthread_mutex_unlock(&t->mu);
}

/* Runner r goes: released, it runs (to its exit) from now on. */
static void release_one(struct gputurns *t, int *r)
{
	__atomic_store_n(r, 1, __ATOMIC_RELEASE);
	t->running++;
}

/* With no turn held or awaited, every idle runner goes. */
static void release_idle(struct gputurns *t)
{
	if (t->holder || t->waiting)
		return;
	for (size_t i = 0; i < t->nidle; i++)
		release_one(t, t->idle[i]);
	t->nidle = 0;
}

void gputurns_done(struct gputurns *t, int *release)
{
	pthread_mutex_lock(&t->mu);
	if (t->holder == release) {
		t->holder = NULL;
		if (t->waiting) {
			if (t->nidle == t->idle_cap) {
				t->idle_cap = t->idle_cap ? 2 * t->idle_cap : 4;
				t->idle = xrealloc(t->idle, t->idle_cap *
						   sizeof(*t->idle));
			}
			t->idle[t->nidle++] = release;
		} else {
			release_one(t, release);
		}
		release_idle(t);
		pthread_cond_broadcast(&t->changed);
	}
	pthread_mutex_unlock(&t->mu);
}

/* Whether r is idle after its turn; if so, no longer. */
static int unidle(struct gputurns *t, int *r)
{
	for (size_t i = 0; i < t->nidle; i++)
		if (t->idle[i] == r) {
			t->idle[i] = t->idle[--t->nidle];
			return 1;
		}
	return 0;
}

void gputurns_leave(struct gputurns *t, int *release)
{
	pthread_mutex_lock(&t->mu);
	if (t->holder == release)
		t->holder = NULL;	/* gone within its turn */
	else if (!unidle(t, release))
		t->running--;
	release_idle(t);
	pthread_cond_broadcast(&t->changed);
	pthread_mutex_unlock(&t->mu);
}
