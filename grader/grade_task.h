/*
 * One exercise of a grade as the pipeline carries it (grade.c): found by
 * intake, built (grade_build.c), run and verified (grade_exec.c).
 * Internal to those three files.  What they share lives here and in
 * grade_task.c, which calls none of them: grade.c drives the other two,
 * and they call back only into this file.
 *
 * Threads: a task is touched by one thread at a time -- the worker that
 * builds it (and, on the emulator, runs it straight after), or the main
 * thread once the workers are joined.  Nothing in a task is shared with
 * another task, so tasks need no lock.
 */
#ifndef GRADE_TASK_H
#define GRADE_TASK_H

#include <limits.h>
#include <pthread.h>

#include "build.h"
#include "grade.h"
#include "lacks.h"
#include "resusage.h"
#include "result.h"

struct gpukeep;
struct gpulock;
struct verify;

enum task_state { T_MISSING, T_CE, T_REJECTED, T_XX, T_READY };

struct gputurns;
struct probe_ahead;

/* One GPU a grade's runners use. */
struct gpu_slot {
	/* its lock (gpulock.h): the file shared with other graders of
	 * this GPU (--gpu-lock); NULL when there is none */
	const char *lock_path;
	struct gpulock *lock;  /* the grade's handle on it (probe, reruns) */
	struct gputurns *turns; /* without a lock, while the grade's
				 * exercises run side by side: their turns
				 * (gputurns.h); else NULL */
	char *env;             /* "CUDA_VISIBLE_DEVICES=..." for the
				* processes on it, or NULL: the grader's */
	char *label;           /* the GPU as reports name it, or NULL */
	int dev_minor;         /* its /dev/nvidiaN, the one node its
				* runners see; -1: every node */
	struct gpukeep *keeper;
};

struct task {
	const struct exercise *ex;
	struct exercise_result *res;
	char src[PATH_MAX];
	const char *root;         /* the submission's kept tree */
	char dir[PATH_MAX];       /* its own directory in the grade's */
	char obj[2][PATH_MAX];    /* primary target, emulator for counters
				   * (one file when one nvcc run made both) */
	char runner[2][PATH_MAX]; /* a runner of its own for each */
	enum task_state state;
	int emu_ok;               /* the counters object built and passed */
	/* the counters' runner, linked beside the first run (grade_exec.c):
	 * whether it is still to link, what the PTX check said, the link's
	 * thread */
	struct {
		int pending, emulable, started;
		char *log;
		pthread_t thread;
	} counters;
	char emu_why[512];        /* why not, when it did not */
	struct lacks lacks;       /* what the emulator cannot run in its
				   * kernels, as the PTX check found */
	struct resusage usage;    /* its kernels' registers, as ptxas
				   * says (emulator targets) */
	struct resusage ref_usage; /* the reference kernels' */
	char *log;
	char why[512];
	char *cc_isolation;       /* what the compiler ran under */
	char *run_isolation;      /* what its last runner ran under */
	int ran;                  /* grade_exec_primary has run */
	const struct gpu_slot *gpu; /* the GPU its runners use, or NULL */
	struct gpulock *lock;     /* its own handle on its GPU's lock while
				   * exercises run side by side, or NULL */
	struct gpulock *timing_lock; /* and on the timing GPU's, where the
				      * grade has one (grade_targets) */
	struct verify *v;         /* its verification, between the runs */
	int measure;              /* replays are still to come */
	int calls_measured;       /* the measured calls' replays are done
				   * (early, beside the timed phase) */
	int perf_measured;        /* the performance call's too (early,
				   * once the timed phase was done) */
	int verified;             /* grade_exec_measure has run */
	double started, lap;      /* its runs' start, the last phase's end */
};

/* What a grade builds for and runs with. */
struct grade_targets {
	const struct build_target *primary; /* the grading backend */
	/* the emulator, when a GPU grade counts traffic there too: the same
	 * nvcc run compiles for both and a second runner is linked */
	const struct build_target *counters;
	const char *replay;  /* the replay program, or NULL */
	const char *workdir; /* the grade's private directory */
	/* the GPUs its runners use: one, or on a host with several, a grade
	 * alone with --jobs spreads its exercises over them; none on the
	 * emulator */
	struct gpu_slot *gpus;
	size_t ngpus;
	/* the GPU the timed runs go to, with a lock of its own
	 * (--timing-gpu-lock), or NULL: each exercise's own */
	struct gpu_slot *timing;
	/* the grade went on with the probe's remembered answer (guess) and
	 * this probe answers beside the builds; no runner starts before it
	 * agrees (probe_ahead.h) */
	int guess;
	struct probe_ahead *ahead;
};

/* Where staging and build directories go: o->tmpdir, else $TMPDIR,
 * else /tmp. */
const char *grade_tmp_dir(const struct grade_opts *o);

/* A progress line on stderr when o->progress. */
void grade_progress(const struct grade_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Free what the build and the runs left in t (its log, its isolation
 * lines, its lacks), once its result is settled. */
void grade_task_release(struct task *t);

#endif
