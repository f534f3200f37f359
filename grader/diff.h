/*
 * A wrong answer shown: where the output first differs from the oracle's
 * as a (row, col) of the output matrix, the cells around it (the whole
 * output when it is small) expected and got side by side, and the shape
 * of the mistake when it clearly is one -- the input echoed, the indices
 * swapped, an untouched (poisoned) region, or wrong cells only at the
 * edge of the output or of its last partial tile.
 *
 * verify.c calls diff_describe on a shape whose output differs; the
 * views format cells with diff_cell and the JSON reader reads them back
 * with diff_parse_cell.  No allocation; nothing here fails.
 */
#ifndef DIFF_H
#define DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "exercise.h"
#include "result.h"

/* The runner's poison: output bytes no thread wrote. */
#define DIFF_POISON 0xA5A5A5A5u

/* Fill f->win, f->pattern and f->pattern_why for shape s whose output
 * got differs from expected (in is the shape's input; all three hold
 * m*n elements of ex->elem_size bytes). */
void diff_describe(const struct exercise *ex, struct exercise_shape s,
		   const void *in, const void *expected, const void *got,
		   struct failure *f);

/* The output's size as a matrix: n x m for the exercises that transpose,
 * else m x n. */
void diff_out_dims(const struct exercise *ex, struct exercise_shape s,
		   int64_t *rows, int64_t *cols);

/* A cell as text.  exact: every bit kept (the JSON archive: "%.9g",
 * "0xa5a5a5a5" for poison); else short for a grid ("%.4g", "----" for
 * poison). */
void diff_cell(const struct exercise *ex, uint32_t bits, int exact,
	       char *buf, size_t len);
/* diff_cell's exact text back to bits; -1 when it is not one. */
int diff_parse_cell(const struct exercise *ex, const char *s,
		    uint32_t *bits);

#endif
