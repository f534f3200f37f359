/*
 * The program's output digested.  What a runner prints is the
 * submission's own output mixed with the emulator's messages (lines that
 * start "warpgrade emulator: warning: " or "wgemu: "): each distinct
 * message of the emulator becomes one entry with its count and its first
 * occurrence, and the program's own lines stay, none more than three
 * times.  The first message about a store outside the output names the
 * writer of an out-of-bounds first failure (failure.loc: file, line,
 * the text of that line, thread, block).
 *
 * The runner's output comes from the student's process: a forged
 * message can mislead this feedback, never the verdict or the points,
 * which the grader decides from the output and its guard bands alone.
 *
 * grade.c calls digest_output once an exercise is verified; it rewrites
 * e->runner_output and fills e->warnings.
 */
#ifndef DIGEST_H
#define DIGEST_H

#include "result.h"

#define DIGEST_MAX_REPEATS 3 /* copies of one line a report shows */

void digest_output(struct exercise_result *e);

/* The first emulator message in a program's output text about a store
 * outside the output or every allocation, into loc (with the text of
 * the line when it is in the exercise's file): 0, or -1 when there is
 * none.  For a rerun of one shape (rerun.c). */
int digest_find_writer(const struct exercise_result *e, const char *text,
		       struct failure_location *loc);

/* The kernel, file, line, thread and block of one emulator message
 * ("kernel 'k' at f.cu:12, thread (1,0,0) of block (0,2,0): ...");
 * 0, or -1 when it names none. */
int digest_parse_where(const char *msg, struct failure_location *loc);

#endif
