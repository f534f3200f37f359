/*
 * Measuring: the replays of an exercise's measured calls.  For every
 * measured call whose output passed and whose launch record arrived
 * whole (verify.h), the replay program (harness/replay.c, built by
 * build_prepare for the emulator) runs in the sandbox as a guest, sees
 * only itself and the student's object, gets the job and the record on
 * stdin, and reports the reference's and the replayed call's traffic,
 * the replayed output and any reason the record could not be replayed;
 * everything it says is decoded defensively and handed to verify.c.
 *
 * A replay that does not finish in time is the record's fault (it is the
 * student's word about what to run) and earns nothing; a replay that
 * crashes or breaks its protocol is the grader's (the measured call's
 * replay_error, an internal error of the exercise).
 */
#ifndef MEASURE_H
#define MEASURE_H

#include "score.h"
#include "verify.h"

/* Replay the measured calls of v.  replay is the replay program, object
 * the student's object (its PTX is what runs), workdir a private
 * directory of the grader's to make run directories in.  Findings go to
 * v->measured[]; returns the number of calls replayed. */
size_t measure_exercise(struct verify *v, const struct score_config *cfg,
			const char *replay, const char *object,
			const char *workdir);

/* The same in two parts: the measured calls (whose records come with the
 * correctness phase), and the performance call (whose record, on a GPU,
 * comes with the timed phase).  measure_calls touches only v->measured[]
 * and the oracle's scratch, so it may run in another thread while a
 * runner's timed phase is verified; measure_perf the same (its slot of
 * v->measured[] and the scratch), once the timed phase's frames are
 * verified and the measured calls' replays are over
 * (grade_early.h). */
size_t measure_calls(struct verify *v, const struct score_config *cfg,
		     const char *replay, const char *object,
		     const char *workdir);
size_t measure_perf(struct verify *v, const struct score_config *cfg,
		    const char *replay, const char *object,
		    const char *workdir);

#endif
