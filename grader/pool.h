/*
 * The grader's one thread pool: a batch's children side by side, a
 * grade's builds, a grade's emulator work beside its runs.  A job is a
 * callback and an index; the pool owns nothing of what the jobs touch,
 * so a job that shares state with others locks it itself.
 *
 * Jobs are taken in the order of their index, each by the first thread
 * free, and each runs exactly once.  A thread that cannot be started is
 * reported (error()); no job is lost for it, and no more than k run at
 * once all the same.
 */
#ifndef POOL_H
#define POOL_H

#include <stddef.h>

typedef void (*pool_job)(void *ctx, size_t i);
typedef int (*pool_first)(void *ctx, size_t i);

/* Run job(ctx, i) for every i in [0, n) in at most k threads (k 0
 * counts as 1, and no more threads than jobs are started); returns once
 * every job has returned.  When a thread cannot be started, the calling
 * thread works beside those that were.  0, or -1 when one could not be
 * (every job ran all the same). */
int pool_run(size_t n, unsigned k, pool_job job, void *ctx);

/* Two stages: first(ctx, i) in the calling thread, for each i in order;
 * when it returns nonzero, then(ctx, i) in one of at most k threads,
 * the calling thread going on to first(ctx, i + 1) only once a thread
 * has taken it -- so one first stage runs beside at most k second
 * stages, and no more than k wait to be finished.
 * Returns once every stage has returned; 0, or -1 as pool_run.  With
 * fewer threads than k, fewer second stages run at once; with none,
 * then(ctx, i) runs in the calling thread right after first(ctx, i). */
int pool_pipeline(size_t n, unsigned k, pool_first first, pool_job then,
		  void *ctx);

#endif
