/*
 * The turns of one grade's own runners on one GPU, for a grade alone on
 * it (no lock shared with other graders) that runs its exercises side by
 * side.  Each exercise's runner sweeps and then times in one process
 * (PROTO_JOB_TIMED_TURN); its timed phase waits for a turn, which comes
 * only when every other runner of the grade on this GPU is gone, waiting
 * for a turn itself, or idle after its own, and no turn is held.  So, as
 * under the GPU lock, no sweep, rerun or other timed phase of the grade
 * runs while one is timed; but a runner needs no second process (its
 * start, its context, its exit) to be timed.
 *
 * Why this is as safe as the lock here: the runners that wait while one
 * is timed belong to the same submission.  Whatever a dishonest one does
 * meanwhile disturbs its own grade only, which its own timed phase could
 * already forge (docs/SECURITY.md, "What no design here can prevent").
 * Between graders (a batch's children) the lock and its two processes
 * per exercise stay (gpulock.h).
 *
 * No runner process starts while a turn is held or awaited, so sweeps
 * that keep arriving never starve a waiting turn.  A turn ends when its
 * runner is done timing (gputurns_done).  No context is torn down while
 * another is timed: a runner done while others wait for a turn stays,
 * idle, and is released (its *release set: the grader then closes its
 * stdin, and it exits) only once no turn is held or awaited; a released
 * runner counts as running until it is gone, so the next turn waits for
 * its exit.  The turns hand over from one timed phase to the next
 * without waiting for a process to end.  The grade's exercise threads
 * share one gputurns; a runner is known by its release flag.
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

/* The runner (entered; release its flag, 0) asks to be timed: waits
 * until no other entered runner is running (each is gone, waiting for a
 * turn or idle after its own) and no turn is held, then holds the
 * turn. */
void gputurns_take(struct gputurns *t, int *release);

/* The runner holding the turn is done timing: the turn ends.  *release
 * becomes 1 (read it with __atomic_load_n) now when no other runner
 * waits for a turn, else when the last of those is done. */
void gputurns_done(struct gputurns *t, int *release);

/* The runner's process is gone, wherever it was: running, holding the
 * turn, idle after it or released. */
void gputurns_leave(struct gputurns *t, int *release);

#endif
