/*
 * The source lines behind the technique checks.  The replays report the
 * traffic of each measured call per source line (PROTO_LINES, from the
 * .loc of the student's PTX); this module sums them over the measured
 * calls into the exercise's profile (the gutter of a source view) and,
 * for a failed check, names the lines it blames, worst first, each with
 * the text of that line in the student's file and one sentence of why in
 * the exercise's terms.  Like every technique figure, it comes from the
 * replays only, never from the runner (technique.h).
 *
 * Call order: technique_evaluate calls lines_profile once the replays
 * are in, then lines_blame for each failed check.  The student's source
 * is v->res->source (grade.c keeps it; NULL leaves the text out).
 */
#ifndef LINES_H
#define LINES_H

#include <stddef.h>

#include "verify.h"

enum lines_check {
	LINES_LOADS,     /* coalesced global loads */
	LINES_STORES,    /* coalesced global stores */
	LINES_CONFLICTS, /* no shared-memory bank conflicts */
	LINES_DYNAMIC,   /* dynamic shared memory used */
};

/* Fill v->res->profile: the lines of the student's file with their
 * traffic over every replayed measured call, in line order. */
void lines_profile(struct verify *v);

/* Add to check k the lines (at most RESULT_MAX_LINES) whose traffic
 * makes it fail, worst first; none when no line stands out. */
void lines_blame(struct verify *v, struct check_result *k,
		 enum lines_check which);

/* Line `line` (from 1) of source, blanks trimmed at both ends and
 * control characters dropped, into buf ("" when there is no such
 * line). */
void lines_source_text(const char *source, int line, char *buf,
		       size_t len);

#endif
