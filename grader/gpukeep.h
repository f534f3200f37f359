/*
 * Keeping the GPU initialised during a GPU batch or grade.  Without the
 * driver's persistence mode, a GPU that no process has open is shut
 * down, and the next process to open it waits for the driver to bring it
 * up again -- which would be every runner of a grade (four exercises, two
 * runners each), and in a batch the timed runner, started alone on the
 * device under the GPU lock (gpulock.h), every time.  So a batch, or a
 * grade run alone, keeps one process of its own holding the device for as
 * long as it runs: the
 * GPU probe (build/wg-probe --hold), which creates a context, then sleeps
 * and submits no work, so it never shares the device with a timed run.
 * It is trusted code and takes no lock.
 *
 * gpukeep_start before the children (or the runners), gpukeep_stop after
 * them; the keeper also dies with the grader (sandbox.c).
 */
#ifndef GPUKEEP_H
#define GPUKEEP_H

struct gpukeep;

/* Start the keeper on the GPU that gpu_env ("CUDA_VISIBLE_DEVICES=...",
 * gpus.h) shows it, or with the grader's own view when NULL; NULL, with
 * a warning, when it cannot be started (the batch goes on without it).
 * Owned by the caller: gpukeep_stop. */
struct gpukeep *gpukeep_start(const char *gpu_env);

/* Tell the keeper to stop, without waiting (it is killed within a tick
 * of the sandbox's clock); gpukeep_stop still frees it.  NULL is a
 * no-op. */
void gpukeep_cancel(struct gpukeep *k);

/* Stop the keeper and free it; NULL is a no-op. */
void gpukeep_stop(struct gpukeep *k);

/* Tell the keeper to stop and leave it to end on its own: nobody waits
 * for its context to be torn down (a grade that is done, whose process
 * may exit meanwhile: the keeper then dies with it).  It frees itself;
 * NULL is a no-op. */
void gpukeep_leave(struct gpukeep *k);

#endif
