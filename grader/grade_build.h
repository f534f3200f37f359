/*
 * Building the exercises of a grade (grade_task.h): for each present
 * file, one sandboxed nvcc run (the primary target and, on a GPU host,
 * the emulator's PTX in the same object), the sandboxed PTX check when
 * the emulator will run it, the symbol check, and a runner of its own
 * per target -- so that two files defining the same kernel name, or one
 * that does not link, cost nothing to the others.
 *
 * Builds run in up to o->jobs threads (pool.h).  A caller that runs an exercise
 * as soon as it is built (the emulator; a GPU whose timed runs a lock
 * keeps apart) passes a `then` callback, which the worker calls for each
 * task it built; otherwise every build is done when grade_build_all
 * returns.
 */
#ifndef GRADE_BUILD_H
#define GRADE_BUILD_H

#include <stddef.h>

#include "grade_task.h"

/* Called in the worker that built t, for every task it took. */
typedef void (*grade_build_then)(struct task *t, void *ctx);

/* Build every T_READY task of t[0..n): object and runner paths under
 * g->workdir, states, logs and reasons into each task (T_CE, T_REJECTED,
 * T_XX; counters.pending for the counters target).  then (may be
 * NULL) runs after each build in the same worker. */
void grade_build_all(const struct grade_opts *o, struct task *t, size_t n,
		     const struct grade_targets *g, grade_build_then then,
		     void *ctx);

/* On a GPU grade, the counters' runner (the emulator's) of a task that
 * built: linked later than the task's own, beside its first run, since
 * nothing needs it before the replays.  Sets emu_ok, or emu_why; a no-op
 * when there is none to link. */
void grade_build_counters(const struct grade_opts *o, struct task *k,
			  const struct grade_targets *g);

#endif
