/*
 * Grading one submission end to end: intake, build, one sandboxed runner
 * per exercise (so a hang or crash costs only that exercise), verification
 * against the oracles, scoring.  The result is filled in whatever happens;
 * the return value says what the command's exit status should be.
 */
#ifndef GRADE_H
#define GRADE_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "score.h"

struct grade_opts {
	const char *submission;
	const char *const *only; /* --exercise names; NULL/0 = all */
	size_t nonly;
	const char *backend;     /* "auto", "cuda" or "emu" */
	int has_seed;
	uint64_t seed;
	const struct score_config *cfg;
	const char *config_path; /* the --config file, closed to others */
	unsigned jobs;           /* parallel compiles */
	int progress;            /* progress lines on stderr */
	const char *tmpdir;      /* NULL: $TMPDIR or /tmp */
	int timings;             /* record the phases (timings.h) */
	/* the lock file shared with other graders of this GPU (gpulock.h),
	 * or NULL: nothing else runs on it */
	const char *gpu_lock;
	/* with gpu_lock: the GPU the timed runs go to (gpus_spec), and the
	 * lock shared with the other graders timing there (batch_gpus.h);
	 * NULL: the timed runs go where the rest does */
	const char *timing_gpu, *timing_gpu_lock;
};

#define GRADE_OK 0
#define GRADE_UNUSABLE 1
#define GRADE_INTERNAL 3

/* Grade; r must be result_init'ed.  Returns GRADE_OK (graded, whatever
 * the score), GRADE_UNUSABLE (r->error says why) or GRADE_INTERNAL (the
 * grader could not do its job: r->error, or XX on an exercise). */
int grade_run(const struct grade_opts *o, struct grade_result *r);

#endif
