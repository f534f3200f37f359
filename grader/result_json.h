/*
 * The JSON archive format of a grade_result, both directions: the
 * document `warpgrade grade --format json` prints and `warpgrade batch`
 * stores, and the reader that `warpgrade batch` (resuming, its summary,
 * its status) and `warpgrade leaderboard` use to bring a stored result
 * back.  Writer and reader live together so that a member written is a
 * member read: a result read back renders exactly like a fresh one
 * (tests/check_formats.c writes, reads and writes again, and compares).
 *
 * A stored result is input like any other: the reader takes nothing on
 * trust (types checked, sizes capped, exercises and statuses looked up
 * by name) and says which member was wrong.
 *
 * Ownership: every string returned is the caller's to free; the readers
 * fill a result_init'ed grade_result, which the caller releases (on
 * failure they release it themselves).
 */
#ifndef RESULT_JSON_H
#define RESULT_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "result.h"

/* The JSON document of r (ends with a newline). */
char *result_json(const struct grade_result *r);

/* A JSON string of text that may come from the submission (compiler
 * messages, its output): invalid UTF-8 becomes U+FFFD; NULL gives null. */
json_t *result_json_text(const char *s);

/* Serialise root (2-space indent, key order kept) and release it; the
 * string ends with a newline.  The other JSON views (Gradescope,
 * PrairieLearn) are written through it too. */
char *result_json_dump(json_t *root);

/*
 * Read a document of result_json's back into r.  *exit_status (may be
 * NULL) receives the "grader_exit" member batch grading adds, else what
 * the document implies (GRADE_UNUSABLE with an error, GRADE_INTERNAL with
 * an XX exercise, else GRADE_OK).  0, or -1 with err set (not JSON, not a
 * warpgrade result, an unknown exercise or status, a member of the wrong
 * type); r is then released.
 */
int result_json_parse(const char *text, struct grade_result *r,
		      int *exit_status, char *err, size_t errlen);

/* The same from a file (at most 64 MiB, no NUL byte); -1 with error()
 * printed, naming the file. */
int result_json_load(const char *path, struct grade_result *r);
int result_json_load_status(const char *path, struct grade_result *r,
			    int *exit_status);

#endif
