/*
 * The GPU lock: which runner may use the GPU when, among the grade
 * processes that share one lock file (the children of one batch, given
 * `grade --gpu-lock FILE`).  Timed runs need the device to themselves;
 * everything else -- compiles, correctness sweeps, the emulator's
 * recording runs and replays -- may overlap.
 *
 * The rule is kept by the trusted grader, never by the runner: a GPU
 * runner process is started only once its grader holds the lock, and the
 * lock is released only after the process (and its group) is gone.  A
 * runner that times holds it exclusively; any other GPU runner (a
 * correctness sweep, the first failure's rerun under compute-sanitizer)
 * and the GPU probe hold it shared.  So while one
 * runner is timed no other runner of these graders exists on the device,
 * whatever the runners do; a runner can only waste its own time.  A lock
 * never changes mode under a live process (a runner between modes would
 * be a GPU user holding nothing), hence on a GPU with a lock the sweep and
 * the timed phase run in two processes (gpulock_plan).  A grade alone on
 * its GPUs needs no lock: its own exercises take turns (gputurns.h).
 *
 * Fairness: a waiting exclusive holder is never starved by shared ones
 * that keep arriving.  Every acquisition first passes a turnstile (byte 0
 * of the file, held exclusively for a moment); an exclusive waiter keeps
 * the turnstile until it has the device (byte 1), so new shared holders
 * queue behind it while the current ones drain.
 *
 * The locks are Linux open-file-description locks (F_OFD_SETLKW): they
 * belong to one gpulock handle, so two handles exclude each other within
 * one process as between processes, and the kernel drops them when the
 * holding process dies.
 *
 * Trace: when WARPGRADE_GPU_LOCK_TRACE names a file, every release
 * appends one line "PID MODE REQUESTED ACQUIRED RELEASED LOCK" (MODE S or
 * X, times in seconds of CLOCK_MONOTONIC, LOCK the lock file's name: one
 * per GPU), for measuring how a batch used the device and for checking
 * that exclusive holds never overlapped.
 */
#ifndef GPULOCK_H
#define GPULOCK_H

#include <stddef.h>
#include <stdint.h>

enum gpulock_mode {
	GPULOCK_NONE = -1,   /* (gpulock_plan) no lock held */
	GPULOCK_SHARED = 0,
	GPULOCK_EXCLUSIVE = 1
};

struct gpulock;

/* Open (creating it 0600) the lock file at path.  NULL, with an error
 * printed, when it cannot be opened.  Owned by the caller: gpulock_free. */
struct gpulock *gpulock_open(const char *path);

/* Wait for the lock in mode m (not held by this handle yet).  0, or -1
 * with an error printed (the lock is then not held). */
int gpulock_acquire(struct gpulock *l, enum gpulock_mode m);

/* Release what gpulock_acquire took; a no-op when nothing is held. */
void gpulock_release(struct gpulock *l);

/* Release and close; NULL is a no-op. */
void gpulock_free(struct gpulock *l);

/* One runner process of an exercise on the grading backend. */
struct gpulock_run {
	uint32_t phases;        /* PROTO_PHASE_* bits of its job */
	uint32_t job_flags;     /* PROTO_JOB_TIMED_TURN or 0 */
	enum gpulock_mode mode; /* held for its whole life */
};

/* How a GPU grade orders its runners on one GPU. */
enum gpulock_order {
	GPULOCK_ALONE,  /* nothing else runs there: no order needed */
	GPULOCK_TURNS,  /* the grade's exercises side by side, nobody
			 * else's: turns among them (gputurns.h) */
	GPULOCK_LOCKED  /* a lock shared with other graders */
};

/* The runner processes of one exercise, in order, and the lock each
 * holds: on a GPU with a lock, the correctness sweep shared and the timed
 * phase exclusive, each in a process of its own; on a GPU without one,
 * one process for both, whose timed phase waits for its turn when the
 * grade's other exercises run beside it; on the emulator (nothing timed)
 * the sweep, unlocked.  Returns how many (at most 2). */
size_t gpulock_plan(int gpu, enum gpulock_order order,
		    struct gpulock_run runs[2]);

#endif
