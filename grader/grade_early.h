/*
 * What runs beside an exercise's GPU runner, in threads of its own, so
 * that little is left once the runner is gone: the link of the
 * emulator's counters runner (from the first run's start), the replays
 * of the measured calls (once the correctness sweep is done: their
 * records came with it) and the replay of the performance call (once
 * the timed phase is done: its record came with the timed run).
 * measure.h says why a replay may run while a runner's frames are
 * verified; the performance call's replay follows the measured calls'
 * (they share the oracle's scratch), and is joined before the runner's
 * end is verified.  The thread that owns the task calls all of these.
 */
#ifndef GRADE_EARLY_H
#define GRADE_EARLY_H

#include <pthread.h>

#include "grade.h"
#include "grade_task.h"

struct grade_early {
	const struct grade_opts *o;
	struct task *k;
	const struct grade_targets *g;
	pthread_t calls, perf;
	int calls_started, perf_started;
};

/* The counters' runner linked in a thread (grade_build_counters), when
 * it is still to be linked. */
void grade_early_link_start(struct grade_early *e);

/* Joined, or linked here when no thread did: k->emu_ok is known. */
void grade_early_link_join(struct grade_early *e);

/* The measured calls' replays in a thread (the link joined first), when
 * there is an emulator to replay them and they have not run. */
void grade_early_calls_start(struct grade_early *e);

/* The performance call's replay in a thread, after the measured calls'
 * (started here if they were not), when its record can be replayed. */
void grade_early_perf_start(struct grade_early *e);

/* The performance call's replay joined (and so the measured calls'
 * too, when it ran). */
void grade_early_perf_join(struct grade_early *e);

/* Both replays' threads joined: what they found is in k->v. */
void grade_early_join(struct grade_early *e);

#endif
