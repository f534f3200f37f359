/*
 * Where a grade's time goes: the wall seconds of each phase (intake, the
 * probe, the reference objects, and per exercise each compile, the PTX
 * check, the symbol check, the link, the runner, the replays ...), for
 * `warpgrade grade --timings` and the "timings" field of the JSON result.
 *
 * A struct timings is a fixed-size list inside a result: no allocation,
 * nothing to release.  Recording is off until timings_enable(); while off,
 * timings_add() does nothing, so the pipeline records unconditionally.
 * One writer at a time per list (an exercise's list is written by the one
 * thread that builds or runs that exercise); a phase recorded twice under
 * one name (a compile retried, a runner run twice) adds up.
 */
#ifndef TIMINGS_H
#define TIMINGS_H

#include <stddef.h>
#include <stdio.h>

#define TIMINGS_MAX 24

struct timing {
	char phase[48];
	double seconds;
};

struct timings {
	int on;
	size_t n;
	struct timing t[TIMINGS_MAX];
};

/* Start recording into t (zeroed, as result_init leaves it). */
void timings_enable(struct timings *t);

/* Add seconds to phase (created in order of first use; phases past
 * TIMINGS_MAX are dropped).  No-op when t is NULL or not enabled. */
void timings_add(struct timings *t, const char *phase, double seconds);

/* The seconds since start (now_s()) added to phase; returns now_s(), so
 * that consecutive phases chain: t0 = timings_lap(t, "a", t0). */
double timings_lap(struct timings *t, const char *phase, double start);

/* Sum of the recorded phases. */
double timings_total(const struct timings *t);

/* One block of text: "  <title>" then one line per phase, right-aligned
 * seconds; nothing when t recorded nothing. */
void timings_print(FILE *f, const char *title, const struct timings *t);

#endif
