/*
 * The GPU probe beside the builds.  The probe (build/wg-probe: a CUDA
 * context, an allocation on every GPU) takes a few tenths of a second,
 * and everything a grade does after it -- the reference objects, the
 * compiles -- depends on what it says.  Its answer rarely changes on a
 * host, so the grade goes on with the answer the last probe gave under
 * the same CUDA_VISIBLE_DEVICES (kept under build/cache/probe/, the
 * grader's own), while the probe runs again in a thread.  No runner
 * starts before that probe has answered: when its answer differs (a GPU
 * gone, another card), the grade is done again from the start on the
 * new answer, which is remembered for the next grade.
 *
 * Without a remembered answer, or with WARPGRADE_PROBE_CACHE=0 in the
 * environment, the probe runs first, as it always did.
 */
#ifndef PROBE_AHEAD_H
#define PROBE_AHEAD_H

#include "build.h"
#include "gpulock.h"

struct probe_ahead;

/* env for a grade.  From the remembered answer, with the probe started
 * in a thread (*ahead set, for probe_ahead_agrees), when guess and an
 * answer is remembered; else from the probe run now (*ahead NULL), whose
 * answer is remembered.  The probe holds lock (NULL: none) shared while
 * it runs.  0, or -1 when the tree is broken or the lock fails. */
int probe_ahead_env(struct build_env *env, const struct score_config *cfg,
		    struct gpulock *lock, int guess,
		    struct probe_ahead **ahead);

/* Whether the probe answered as remembered: waits for it, once (any
 * thread may ask; later calls return the same).  1 for NULL. */
int probe_ahead_agrees(struct probe_ahead *a);

/* Where the answer for this process's CUDA_VISIBLE_DEVICES is
 * remembered (its directories created); 0 or -1. */
int probe_ahead_path(char *path, size_t n);

/* Wait for the probe if need be; free.  NULL is a no-op. */
void probe_ahead_free(struct probe_ahead *a);

#endif
