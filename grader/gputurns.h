/*
 * The turns of one grade's own runners on one GPU, for a grade alone on
 * it (no lock shared with other graders) that runs its exercises side by
 * side.  Each exercise's runner sweeps and then times in one process
 * (PROTO_JOB_TIMED_TURN); its timed phase waits for a turn, which comes
 * only when every other runner of the grade on this GPU is gone or is
 * itself waiting for a turn, and no turn is held.  So, as under the GPU
 * lock, no sweep, rerun or other timed phase of the grade runs while one
 * is timed; but a runner needs no second process (its start, its
 * context, its exit) to be timed.
 *
 * Why this is as safe as the lock here: the runners that wait while one
 * is timed belong to the same submission.  Whatever a dishonest one does
 * meanwhile disturbs its own grade only, which its own timed phase could
 * already forge (docs/SECURITY.md, "What no design here can prevent").
 * Between graders (a batch's children) the lock and its two processes
 * per exercise stay (gpulock.h).
 *
 * No runner process starts while a turn is held or awaited, so sweeps
 * that keep arriving never starve a waiting turn; a turn ends when its
 * runner process is gone, so no context is torn down while another is
 * timed.  The grade's exercise threads share one gputurns.
 */
#ifndef GPUTURNS_H
#define GPUTURNS_H

struct gputurns;

/* A fresh one: no runner, no turn.  Owned by the caller: gputurns_free. */
struct gputurns *gputurns_new(void);

/* NULL is a no-op. */
void gputurns_free(struct gputurns *t);

/* A GPU runner process of the grade is about to start: waits while a
 * turn is held or awaited. */
void gputurns_enter(struct gputurns *t);

/* The runner (entered) asks to be timed: waits until no other entered
 * runner is running (each is gone or waiting for a turn) and no turn is
 * held, then holds the turn. */
void gputurns_take(struct gputurns *t);

/* Its process is gone; took says whether it took a turn (which ends
 * now). */
void gputurns_leave(struct gputurns *t, int took);

#endif
