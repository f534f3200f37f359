/*
 * The threads beside an exercise's GPU runner (see grade_early.h).
 */
#include "grade_early.h"

#include "grade_build.h"
#include "measure.h"
#include "verify.h"

static void *link_counters(void *arg)
{
	struct grade_early *e = arg;

	grade_build_counters(e->o, e->k, e->g);
	return NULL;
}

void grade_early_link_start(struct grade_early *e)
{
	struct task *k = e->k;

	if (k->counters.pending && !k->counters.started &&
	    !pthread_create(&k->counters.thread, NULL, link_counters, e))
		k->counters.started = 1;
}

void grade_early_link_join(struct grade_early *e)
{
	struct task *k = e->k;

	if (k->counters.started)
		pthread_join(k->counters.thread, NULL);
	k->counters.started = 0;
	/* here, when no thread could do it */
	grade_build_counters(e->o, k, e->g);
}

static void *replay_calls(void *arg)
{
	struct grade_early *e = arg;
	struct task *k = e->k;

	measure_calls(k->v, e->o->cfg, e->g->replay, k->obj[1], k->dir);
	return NULL;
}

void grade_early_calls_start(struct grade_early *e)
{
	struct task *k = e->k;

	grade_early_link_join(e);
	if (!e->g->replay || !k->emu_ok || k->calls_measured)
		return;
	e->calls_started = !pthread_create(&e->calls, NULL, replay_calls, e);
	k->calls_measured = e->calls_started;
}

static void calls_join(struct grade_early *e)
{
	if (e->calls_started)
		pthread_join(e->calls, NULL);
	e->calls_started = 0;
}

static void *replay_perf(void *arg)
{
	struct grade_early *e = arg;
	struct task *k = e->k;

	calls_join(e);
	measure_perf(k->v, e->o->cfg, e->g->replay, k->obj[1], k->dir);
	return NULL;
}

void grade_early_perf_start(struct grade_early *e)
{
	struct task *k = e->k;

	grade_early_calls_start(e);
	if (!e->g->replay || !k->emu_ok || k->perf_measured ||
	    !verify_perf_replayable(k->v))
		return;
	e->perf_started = !pthread_create(&e->perf, NULL, replay_perf, e);
	k->perf_measured = e->perf_started;
}

void grade_early_perf_join(struct grade_early *e)
{
	if (e->perf_started)
		pthread_join(e->perf, NULL);
	e->perf_started = 0;
}

void grade_early_join(struct grade_early *e)
{
	grade_early_perf_join(e);
	/* joined by the performance call's thread when it ran */
	calls_join(e);
}
