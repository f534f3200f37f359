/*
 * A wrong answer shown (see diff.h).
 */
#include "diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR 8  /* the neighbourhood of a large output: NEAR x NEAR */
#define TILE 32 /* the tile every tiled solution here uses */

/* The output and what the pattern tests need of it. */
struct outview {
	const uint32_t *in, *exp, *got;
	int64_t rows, cols;
	size_t n;
	size_t wrong, first;
};

static uint32_t at(const uint32_t *p, const struct outview *o, int64_t r,
		   int64_t c)
{
	return p[(size_t)r * (size_t)o->cols + (size_t)c];
}

void diff_out_dims(const struct exercise *ex, struct exercise_shape s,
		   int64_t *rows, int64_t *cols)
{
	*rows = ex->out_transposed ? s.n : s.m;
	*cols = ex->out_transposed ? s.m : s.n;
}

/* got read as cols x rows equals expected transposed. */
static int is_transposed(const struct outview *o)
{
	for (int64_t r = 0; r < o->rows; r++)
		for (int64_t c = 0; c < o->cols; c++)
			if (o->got[(size_t)c * (size_t)o->rows + (size_t)r] !=
			    at(o->exp, o, r, c))
				return 0;
	return 1;
}

/* Every wrong cell is the poison, and how many there are. */
static int all_poison(const struct outview *o)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->got[i] != o->exp[i] && o->got[i] != DIFF_POISON)
			return 0;
	return 1;
}

/* Every wrong cell is in the last row or column (edge 0), or in the
 * partial tile past the last whole one of some dimension (edge 1). */
static int only_at(const struct outview *o, int partial)
{
	int64_t fr = o->rows / TILE * TILE, fc = o->cols / TILE * TILE;
	int pr = fr && o->rows % TILE, pc = fc && o->cols % TILE;

	if (partial && !pr && !pc)
		return 0;
	for (size_t i = 0; i < o->n; i++) {
		int64_t r = (int64_t)(i / (size_t)o->cols);
		int64_t c = (int64_t)(i % (size_t)o->cols);
		int edge;

		if (o->got[i] == o->exp[i])
			continue;
		if (partial)
			edge = (pr && r >= fr) || (pc && c >= fc);
		else
			edge = r == o->rows - 1 || c == o->cols - 1;
		if (!edge)
			return 0;
	}
	return 1;
}

static void classify(const struct outview *o, struct failure *f)
{
	const char *name = "", *why = "";
	char buf[sizeof(f->pattern_why)];

	if (!memcmp(o->got, o->in, o->n * 4)) {
		name = "input_echoed";
		why = "the output is the input, element for element: the "
		      "data was copied, not rearranged";
	} else if (all_poison(o)) {
		snprintf(buf, sizeof(buf), "never written: %zu of the %zu "
			 "output elements still hold the poison 0x%08X, so no "
			 "thread stores to them", o->wrong, o->n, DIFF_POISON);
		name = "untouched";
		why = buf;
	} else if (o->rows > 1 && o->cols > 1 && is_transposed(o)) {
		name = "transposed";
		why = "the output is the expected one transposed: the row "
		      "and column indices are swapped";
	} else if (o->wrong < o->n && o->rows > 1 && o->cols > 1 &&
		   only_at(o, 0)) {
		name = "tile_edge";
		why = "only the last row or column of the output is wrong: "
		      "an off-by-one in a bound";
	} else if (o->wrong < o->n && only_at(o, 1)) {
		snprintf(buf, sizeof(buf), "only the partial tile at the "
			 "edge is wrong (past row %" PRId64 " or column %"
			 PRId64 " of the %" PRId64 "x%" PRId64 " output): the "
			 "bounds of the last %dx%d tile", o->rows / TILE *
			 TILE, o->cols / TILE * TILE, o->rows, o->cols, TILE,
			 TILE);
		name = "tile_edge";
		why = buf;
	}
	snprintf(f->pattern, sizeof(f->pattern), "%s", name);
	snprintf(f->pattern_why, sizeof(f->pattern_why), "%s", why);
}

/* The whole output when small, else NEAR x NEAR around the first
 * wrong cell. */
static void window(const struct outview *o, struct failure_window *w)
{
	int small = o->rows <= FAILURE_WINDOW && o->cols <= FAILURE_WINDOW;
	int64_t h = small ? o->rows : (o->rows < NEAR ? o->rows : NEAR);
	int64_t k = small ? o->cols : (o->cols < NEAR ? o->cols : NEAR);

	w->present = 1;
	w->out_rows = o->rows;
	w->out_cols = o->cols;
	w->row = (int64_t)(o->first / (size_t)o->cols);
	w->col = (int64_t)(o->first % (size_t)o->cols);
	w->row0 = w->row - h / 2 < 0 ? 0 : w->row - h / 2;
	w->col0 = w->col - k / 2 < 0 ? 0 : w->col - k / 2;
	if (w->row0 + h > o->rows)
		w->row0 = o->rows - h;
	if (w->col0 + k > o->cols)
		w->col0 = o->cols - k;
	w->rows = (int)h;
	w->cols = (int)k;
	for (int r = 0; r < w->rows; r++)
		for (int c = 0; c < w->cols; c++) {
			w->expected[r * w->cols + c] =
				at(o->exp, o, w->row0 + r, w->col0 + c);
			w->got[r * w->cols + c] =
				at(o->got, o, w->row0 + r, w->col0 + c);
		}
}

void diff_describe(const struct exercise *ex, struct exercise_shape s,
		   const void *in, const void *expected, const void *got,
		   struct failure *f)
{
	struct outview o;

	if (ex->elem_size != 4)
		return;
	memset(&o, 0, sizeof(o));
	o.in = in;
	o.exp = expected;
	o.got = got;
	diff_out_dims(ex, s, &o.rows, &o.cols);
	o.n = exercise_shape_elems(s);
	o.first = o.n;
	for (size_t i = 0; i < o.n; i++)
		if (o.got[i] != o.exp[i]) {
			o.wrong++;
			if (o.first == o.n)
				o.first = i;
		}
	if (!o.wrong || !o.cols)
		return;
	window(&o, &f->win);
	classify(&o, f);
}

void diff_cell(const struct exercise *ex, uint32_t bits, int exact,
	       char *buf, size_t len)
{
	float v;

	if (bits == DIFF_POISON) {
		snprintf(buf, len, exact ? "0x%08x" : "----", bits);
		return;
	}
	if (!ex->elem_is_float) {
		snprintf(buf, len, "%" PRId32, (int32_t)bits);
		return;
	}
	memcpy(&v, &bits, 4);
	snprintf(buf, len, exact ? "%.9g" : "%.4g", (double)v);
}

int diff_parse_cell(const struct exercise *ex, const char *s,
		    uint32_t *bits)
{
	char *end;

	if (!strncmp(s, "0x", 2)) {
		unsigned long long v = strtoull(s + 2, &end, 16);

		*bits = (uint32_t)v;
		return *end || v > UINT32_MAX || end == s + 2 ? -1 : 0;
	}
	if (ex->elem_is_float) {
		float v = strtof(s, &end);

		memcpy(bits, &v, 4);
	} else {
		long long v = strtoll(s, &end, 10);

		*bits = (uint32_t)(int32_t)v;
		if (v < INT32_MIN || v > INT32_MAX)
			return -1;
	}
	return *end || end == s ? -1 : 0;
}
