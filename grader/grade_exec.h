/*
 * Running one built exercise (grade_task.h) and verifying it: the runner
 * on the grading backend (on a GPU: correctness, then the timed phase);
 * on a GPU host the measured calls once more on the emulator, whose
 * runner records them; then the trusted replays of those records
 * (measure.c), which the technique checks and the emulator's
 * performance figure come from.  Fills k->res, k->run_isolation.
 *
 * Each exercise runs in a directory of its own (k->dir, under the
 * grade's, which guests may pass through but not read), so exercises
 * may run side by side where nothing is timed, and one exercise's
 * emulator work may go on while the next one is timed on the GPU.
 */
#ifndef GRADE_EXEC_H
#define GRADE_EXEC_H

#include <stdint.h>

#include "grade_task.h"

/* The first part, when k is T_READY: its directory and the runner on
 * the grading backend -- on a GPU the part that needs the GPU to itself
 * (correctness, then timing).  Sets k->ran either way. */
void grade_exec_primary(const struct grade_opts *o, struct task *k,
			const struct grade_targets *g, uint64_t seed);

/* The rest, after grade_exec_primary, in any one thread (it uses the
 * GPU no more): on a GPU host the emulator's record of the measured
 * calls; the replays; the verdict.  Nothing when there is nothing to
 * finish. */
void grade_exec_measure(const struct grade_opts *o, struct task *k,
			const struct grade_targets *g);

/* Last, once verified: where the first failure happened when the run
 * did not say -- a host crash from the runner's crash line, and on a GPU
 * (or when the tests force it) the first failing shape once more on the
 * emulator and under compute-sanitizer (a GPU runner: not while another
 * exercise is timed; it holds the GPU lock shared when there is one);
 * then the output is digested. */
void grade_exec_locate(const struct grade_opts *o, struct task *k,
		       const struct grade_targets *g, uint64_t seed);

/* All three, one after the other. */
void grade_exec_exercise(const struct grade_opts *o, struct task *k,
			 const struct grade_targets *g, uint64_t seed);

#endif
