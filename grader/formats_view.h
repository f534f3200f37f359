/*
 * What the integration views share: formats.c, formats_parts.c and one
 * file per view (formats_gradescope.c, formats_autolab.c,
 * formats_prairielearn.c, formats_junit.c).  Internal to them: the rest
 * of the grader uses formats.h.
 */
#ifndef FORMATS_VIEW_H
#define FORMATS_VIEW_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "formats.h"
#include "result_json.h"

/* A growing string on top of open_memstream (formats.c): init, print to
 * f, finish for the string (the caller's to free).  Out of memory
 * dies. */
struct formats_buf {
	char *buf;
	size_t len;
	FILE *f;
};

void formats_buf_init(struct formats_buf *b);
char *formats_buf_finish(struct formats_buf *b);

/* Points as the platforms show them: two decimals. */
static inline double formats_round2(double v)
{
	return round(v * 100) / 100;
}

/* Did the exercise run (not a compile error, missing, rejected or the
 * grader's own fault)? */
static inline int formats_ran(const struct exercise_result *e)
{
	return e->status != STATUS_CE && e->status != STATUS_MISSING &&
	       e->status != STATUS_REJECTED && e->status != STATUS_XX;
}

/* Text that may come from the submission; NULL is an empty string. */
static inline json_t *formats_jtext(const char *s)
{
	return result_json_text(s ? s : "");
}

/* One test of the flattened list the test-based views share
 * (formats_parts.c): per exercise, correctness, each technique check
 * (or one "technique" when there were none), performance. */
struct formats_part {
	char name[160];
	double score, max;
	int status;      /* 1 passed, 0 failed, -1 neither (informational) */
	char *message;   /* one line */
	char *output;    /* markdown */
};

/* The tests of r, the points of each from cfg; *n receives the count.
 * Free with formats_parts_free. */
struct formats_part *formats_parts(const struct grade_result *r,
				   const struct score_config *cfg, size_t *n);
void formats_parts_free(struct formats_part *p, size_t n);

/* The whole result as markdown, for the top of a report: the score and
 * a table of exercises, or why there is none (whose fault, from
 * exit_status). */
char *formats_summary_md(const struct grade_result *r, int exit_status);

#endif
