/*
 * The integration views of a grading result: Gradescope results.json,
 * Autolab autoresult, PrairieLearn results.json and JUnit XML, next to the
 * text view of report.h and the JSON archive format of result_json.h
 * (which also reads a stored result back).  Every view is computed from
 * a grade_result alone (plus the scoring configuration, for the points
 * each part is worth), so a result read back from an archive renders
 * exactly like a fresh one.
 *
 * Fault ownership carries through every view.  `exit_status` is the
 * grade command's exit status (GRADE_OK, GRADE_UNUSABLE, GRADE_INTERNAL):
 * an unusable submission is the student's problem (zero points, the reason
 * shown), an internal error is the grader's and never becomes a zero where
 * the platform can express that (PrairieLearn: gradable false; Autolab:
 * no score line, so the job is reported as failed; see docs/INTEGRATIONS.md).
 *
 * Ownership: every formats_* string is the caller's to free.
 */
#ifndef FORMATS_H
#define FORMATS_H

#include <stddef.h>

#include <stdio.h>

#include "result.h"
#include "score.h"

enum format_kind {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_GRADESCOPE,
	FORMAT_AUTOLAB,
	FORMAT_PRAIRIELEARN,
	FORMAT_JUNIT,
	FORMAT_HTML,
	FORMAT_COUNT
};

/* "text", "json", "gradescope", "autolab", "prairielearn", "junit",
 * "html";
 * formats_parse returns -1 for an unknown name. */
int formats_parse(const char *name);
const char *formats_name(enum format_kind k);
/* File name suffix batch grading uses for a format: ".json" for the
 * archive, ".gradescope.json", ".autolab.txt", ".prairielearn.json",
 * ".junit.xml", ".txt", ".html". */
const char *formats_suffix(enum format_kind k);

/* Any view, as a document ending with a newline.  colour applies to text
 * only.  cfg gives the points of each part (correctness, technique,
 * performance); results graded with another configuration are scaled to
 * their max_score. */
char *formats_render(enum format_kind k, const struct grade_result *r,
		     const struct score_config *cfg, int exit_status,
		     int colour);

char *formats_gradescope(const struct grade_result *r,
			 const struct score_config *cfg, int exit_status);
char *formats_autolab(const struct grade_result *r,
		      const struct score_config *cfg, int exit_status);
char *formats_prairielearn(const struct grade_result *r,
			   const struct score_config *cfg, int exit_status);
char *formats_junit(const struct grade_result *r,
		    const struct score_config *cfg, int exit_status);

/*
 * Text a submission can influence (a name, a message, its output), made
 * inert for a view read by people or by other programs: invalid UTF-8
 * becomes U+FFFD (utf8_sanitize), then every control character (C0, DEL,
 * the C1 controls U+0080-U+009F) and the noncharacters U+FFFE and
 * U+FFFF, which XML 1.0 cannot carry, become rep.  The ASCII controls
 * listed in keep stay ("\t\n" in a terminal, "" for none).  NULL reads
 * as "".  The text view, the views below and the leaderboards print
 * every string of a result through it, so no escape sequence or bell
 * reaches a terminal, a spreadsheet or a browser.  Owned by the caller.
 */
char *formats_inert(const char *s, const char *keep, const char *rep);

/* U+FFFD, what the views print for a byte or control they cannot show. */
#define FORMATS_REPLACEMENT "\xEF\xBF\xBD"

/* Text as XML 1.0 / HTML character data: inert (tab, newline and
 * carriage return kept), the five special characters escaped.  NULL
 * prints nothing. */
void formats_markup_text(FILE *f, const char *s);

/* Text as one line of markdown (a paragraph, a table cell, a heading):
 * inert, tab, newline and carriage return as spaces, so it never ends
 * a table row or starts a block, and the characters markdown gives a
 * meaning to (\ ` * _ [ ] < > # | &) backslash-escaped, so it never
 * becomes a link, an image, raw HTML or emphasis.  NULL prints
 * nothing. */
void formats_md_text(FILE *f, const char *s);

/* Figures the leaderboards rank by.  Geometric mean of the measured
 * speedups (NAN when none was measured); best and mean bandwidth as a
 * fraction of the device's copy bandwidth (NAN when none). */
double results_geomean_speedup(const struct grade_result *r);
double results_best_bandwidth(const struct grade_result *r);
double results_mean_bandwidth(const struct grade_result *r);
/* 1 when the result is the grader's fault (an XX exercise, or
 * exit_status GRADE_INTERNAL). */
int results_internal(const struct grade_result *r, int exit_status);

#endif
