/*
 * The GPUs of a GPU batch.  Each child grades on one GPU of the host --
 * the one with the fewest children when it starts -- and sees it alone
 * through CUDA_VISIBLE_DEVICES (gpus.h).  Each GPU has a lock file of its
 * own (gpulock.h) and a keeper (gpukeep.h): timed runs never share a
 * GPU, and the timed runs of different GPUs go on at the same time.
 *
 * With one GPU nothing is set in the children's environment (they see
 * what the batch sees: a Slurm task's GPU, say) and the lock file is the
 * one named, as before there were several.
 *
 * Sweeping and timing GPUs.  Where the host has several GPUs of one kind,
 * they go in pairs: children start on the first of a pair, which runs
 * their correctness sweeps, reruns and probes, and time on the second
 * (grade --timing-gpu and --timing-gpu-lock; only the timed runners see
 * it).  A timed run then never waits for sweeps to drain from its GPU,
 * nor a sweep for a timed run: only timed runs take turns, on the timing
 * GPU.  With an odd number the last GPU does both, as a lone GPU does.
 * WARPGRADE_GPU_ROLES=shared gives every GPU both roles (each child one
 * GPU), for comparison.
 *
 * Threads: batch_gpus_take and batch_gpus_put may be called from any
 * thread; the rest from the batch's main thread.
 */
#ifndef BATCH_GPUS_H
#define BATCH_GPUS_H

#include <pthread.h>
#include <stddef.h>

#include "gpus.h"

struct gpukeep;

struct batch_gpu {
	char *lock;            /* its lock file, the children's --gpu-lock */
	char *env;             /* "CUDA_VISIBLE_DEVICES=<uuid>", or NULL */
	const char **environ;  /* the children's environment (gpus_environ) */
	char *spec;            /* gpus_spec, or NULL with one GPU */
	struct batch_gpu *timer; /* the GPU its children time on, or NULL:
				  * this one */
	int times_only;        /* a timer: no child starts on it */
	unsigned busy;         /* children grading on it now */
	size_t graded;         /* children it has had */
	struct gpukeep *keeper;
};

struct batch_gpus {
	struct batch_gpu *v;
	size_t n;              /* 0: the children do not use a GPU */
	pthread_mutex_t mu;
};

/* One GPU per entry of list; with n of at most 1, one GPU as the batch
 * sees it.  Lock files: base itself for one GPU, "base-<uuid>" for each
 * of several.  GPUs of one name are paired (above). */
void batch_gpus_init(struct batch_gpus *g, const char *base,
		     const struct gpu_info *list, size_t n);

/* Start a keeper on each GPU. */
void batch_gpus_keep(struct batch_gpus *g);

/* The GPU for a child starting now: the least busy of those children
 * start on, the first of equals; give it back with batch_gpus_put when
 * the child is done. */
struct batch_gpu *batch_gpus_take(struct batch_gpus *g);
void batch_gpus_put(struct batch_gpus *g, struct batch_gpu *x);

/* Stop the keepers and free; a zeroed g is a no-op. */
void batch_gpus_release(struct batch_gpus *g);

#endif
