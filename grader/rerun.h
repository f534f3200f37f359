/*
 * The first failing shape run once more, to say where it failed when the
 * run itself could not.  A GPU reports an out-of-bounds write as bytes
 * found in a guard band and a fault as an error code, with no line; the
 * emulator knows the line.  So, on a GPU host:
 *
 *  - the exercise's emulator runner runs that one shape (a job with
 *    PROTO_JOB_ONE_SHAPE): the first store outside the output, or the
 *    first fault or race it reports, becomes the first failure's
 *    location (file:line, thread, block, how far past the end), marked
 *    as found by the rerun;
 *  - when the toolkit has compute-sanitizer, the GPU runner runs that
 *    shape under it (memcheck for an out-of-bounds write or a runtime
 *    error, racecheck for a wrong answer), the output alone in an
 *    allocation of its size (PROTO_JOB_BARE_OUTPUT: a write past its
 *    end is outside every allocation, not in a guard band), and its
 *    first finding is quoted in first_failure.sanitizer.
 *
 * Both run as untrusted guests in the sandbox, like the runner itself,
 * with the grader's job and the correctness phase's limits.  What they
 * print comes from the student's process: it informs the feedback,
 * never the verdict or the points, which are already decided.
 *
 * On the emulator backend the run's own messages already name the line;
 * WARPGRADE_RERUN=emu in the grader's environment makes it rerun the
 * shape all the same (how the tests exercise this path without a GPU).
 */
#ifndef RERUN_H
#define RERUN_H

#include <stdint.h>

#include "result.h"
#include "score.h"

struct rerun_job {
	const struct score_config *cfg;
	uint64_t seed;
	const char *emu_runner; /* the exercise on the emulator; NULL: none */
	const char *gpu_runner; /* on the GPU; NULL: no compute-sanitizer */
	const char *workdir;    /* the call makes subdirectories here */
	const char *gpu_env;    /* "CUDA_VISIBLE_DEVICES=..." or NULL */
	int gpu_minor;          /* its GPU's /dev/nvidiaN, -1: every node */
};

/* Is a rerun wanted for e's first failure (gpu: graded on a GPU)? */
int rerun_wanted(const struct exercise_result *e, int gpu);

/* Rerun e's first failing shape as above, filling the location (when
 * there is none yet) and the sanitizer's quote.  Failures to run either
 * leave e as it was (a warning is printed). */
void rerun_first_failure(const struct rerun_job *j, struct exercise_result *e);

/* compute-sanitizer's output reduced to its first finding, the
 * directories of the exercise's file cut: a new string, or NULL when it
 * reports no error.  (For the tests.) */
char *rerun_sanitizer_quote(const char *output, const char *file);

#endif
