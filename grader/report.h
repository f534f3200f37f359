/*
 * The views of a grade_result that people read: text in a terminal (and
 * in the Autolab and PrairieLearn views, which embed it) and one HTML
 * page (report_html.c).  The JSON archive format is result_json.h's,
 * the integration views formats.h's.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#include "result.h"

/* Human text; colour when `colour` is set. */
void report_text(FILE *f, const struct grade_result *r, int colour);

/* The phases' wall seconds (--timings): the submission's, then each
 * exercise's; nothing when none were recorded. */
void report_timings(FILE *f, const struct grade_result *r);

/* The cells of a first failure (expected and got, wrong ones marked) as
 * the text view draws them; nothing when it has none. */
void report_failure_grid(FILE *f, const struct exercise *ex,
			 const struct failure *ff);

/* One self-contained HTML page (report_html.c): the summary, and per
 * exercise the first failure as matrices, the checks with the lines
 * they blame, hints, and the source with its measured traffic. */
void report_html(FILE *f, const struct grade_result *r);

/* Colour for a stream: a terminal, NO_COLOR unset or empty, TERM not
 * "dumb". */
int report_want_colour(FILE *f);

#endif
