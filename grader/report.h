/*
 * Views of a grade_result: human text and the JSON archive format.  The
 * JSON is what `warpgrade batch` and `warpgrade leaderboard` read back
 * (report_json_parse), so the two directions live together.
 */
#ifndef REPORT_H
#define REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "result.h"

#define WG_TOOL "warpgrade"
#define WG_VERSION "0.1.0"

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

/* The JSON document (owned string, ends with a newline). */
char *report_json(const struct grade_result *r);

/* A JSON string of text that may come from the submission (compiler
 * messages, its output): invalid UTF-8 becomes U+FFFD; NULL gives null. */
json_t *report_json_text(const char *s);
/* Serialise (2-space indent, key order kept) and release root; the
 * string is owned by the caller and ends with a newline. */
char *report_json_dump(json_t *root);

/* Colour for a stream: a terminal, NO_COLOR unset, TERM not "dumb". */
int report_want_colour(FILE *f);

#endif
