/*
 * The JSON archive format, written and read back (see result_json.h).
 * The writer keeps key order and prints unmeasured numbers as null; the
 * reader accepts documents from before a member existed (an absent
 * member reads as "not measured" or empty) but never one of the wrong
 * type.  tests/schemas/result.schema.json describes the document.
 */
#include "result_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "grade.h"
#include "util.h"

/* ---- the writer ---- */

json_t *result_json_text(const char *s)
{
	json_t *j;
	char *clean;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	clean = utf8_sanitize(s);
	j = json_string(clean);
	free(clean);
	return j ? j : json_string("");
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Set key to v when v is a number (the line's kind decides which). */
static void set_num(json_t *o, const char *key, double v)
{
	if (!isnan(v))
		json_object_set_new(o, key, json_real(v));
}

static json_t *line_json(const struct line_finding *l)
{
	json_t *o = json_pack("{s:o, s:i, s:o}",
			      "file", result_json_text(l->file),
			      "line", l->line,
			      "source", result_json_text(l->source));

	set_num(o, "requests", l->requests);
	set_num(o, "sectors", l->sectors);
	set_num(o, "wavefronts", l->wavefronts);
	set_num(o, "conflicts", l->conflicts);
	set_num(o, "ideal", l->ideal);
	json_object_set_new(o, "why", result_json_text(l->why));
	return o;
}

static json_t *check_json(const struct check_result *c)
{
	json_t *lines = json_array(), *o;
	char shape[64];

	for (size_t i = 0; i < c->nlines; i++)
		json_array_append_new(lines, line_json(&c->lines[i]));
	o = json_pack("{s:s, s:o, s:o, s:o, s:s, s:o}", "name", c->name,
		      "passed", c->passed < 0 ? json_null() :
				json_boolean(c->passed),
		      "value", num_or_null(c->value),
		      "limit", num_or_null(c->limit),
		      "detail", c->detail, "lines", lines);
	if (c->has_shape) {
		snprintf(shape, sizeof(shape), "%lldx%lld", (long long)c->m,
			 (long long)c->n);
		json_object_set_new(o, "shape", json_string(shape));
		json_object_set_new(o, "shape_index",
				    json_integer((json_int_t)c->shape_index));
		json_object_set_new(o, "m", json_integer(c->m));
		json_object_set_new(o, "n", json_integer(c->n));
	}
	return o;
}

/* The per-line traffic of the student's file (the source view). */
static json_t *profile_json(const struct exercise_result *e)
{
	json_t *a = json_array();

	for (size_t i = 0; i < e->nprofile; i++) {
		const struct line_traffic *t = &e->profile[i];

		json_array_append_new(a, json_pack(
			"{s:i, s:f, s:f, s:f, s:f, s:f, s:f}",
			"line", t->line, "load_requests", t->ld_req,
			"load_sectors", t->ld_sec, "store_requests",
			t->st_req, "store_sectors", t->st_sec,
			"shared_wavefronts", t->sh_wf,
			"shared_conflicts", t->sh_conf));
	}
	return a;
}

/* Rows of cells, each as diff_cell's exact text. */
static json_t *grid_json(const struct exercise *ex,
			 const struct failure_window *w, const uint32_t *v)
{
	json_t *rows = json_array();

	for (int r = 0; r < w->rows; r++) {
		json_t *row = json_array();

		for (int c = 0; c < w->cols; c++) {
			char cell[32];

			diff_cell(ex, v[r * w->cols + c], 1, cell,
				  sizeof(cell));
			json_array_append_new(row, json_string(cell));
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

/* The picture of a first failure: where, the pattern, the cells. */
static void failure_json(const struct exercise *ex, const struct failure *f,
			 json_t *ff)
{
	const struct failure_window *w = &f->win;
	const struct failure_location *l = &f->loc;

	if (f->pattern[0]) {
		json_object_set_new(ff, "pattern", json_string(f->pattern));
		json_object_set_new(ff, "pattern_why",
				    result_json_text(f->pattern_why));
	}
	if (w->present) {
		json_object_set_new(ff, "row", json_integer(w->row));
		json_object_set_new(ff, "col", json_integer(w->col));
		json_object_set_new(ff, "diff", json_pack(
			"{s:I, s:I, s:I, s:I, s:i, s:i, s:o, s:o}",
			"out_rows", (json_int_t)w->out_rows,
			"out_cols", (json_int_t)w->out_cols,
			"row0", (json_int_t)w->row0,
			"col0", (json_int_t)w->col0,
			"rows", w->rows, "cols", w->cols,
			"expected", grid_json(ex, w, w->expected),
			"got", grid_json(ex, w, w->got)));
	}
	if (l->file[0])
		json_object_set_new(ff, "location", json_pack(
			"{s:o, s:i, s:o, s:o, s:o, s:o}",
			"file", result_json_text(l->file), "line", l->line,
			"source", result_json_text(l->source),
			"thread", result_json_text(l->thread),
			"block", result_json_text(l->block),
			"what", result_json_text(l->what)));
	if (l->file[0] && l->found_by[0])
		json_object_set_new(json_object_get(ff, "location"),
				    "found_by", result_json_text(l->found_by));
	if (f->sanitizer[0])
		json_object_set_new(ff, "sanitizer",
				    result_json_text(f->sanitizer));
}

/* {"phase": seconds, ...} in the order recorded */
static json_t *timings_json(const struct timings *t)
{
	json_t *o = json_object();

	for (size_t i = 0; i < t->n; i++)
		json_object_set_new(o, t->t[i].phase,
				    json_real(t->t[i].seconds));
	return o;
}

static json_t *exercise_json(const struct exercise_result *e)
{
	json_t *o, *checks, *flags, *ff = json_null(), *corr, *tech, *perf;
	const struct failure *f = &e->first_failure;

	if (f->present) {
		char shape[64];

		snprintf(shape, sizeof(shape), "%lldx%lld", (long long)f->m,
			 (long long)f->n);
		ff = json_pack("{s:s, s:I, s:o, s:o, s:o, s:I, s:I}",
			       "shape", shape,
			       "index", (json_int_t)f->shape_index,
			       "expected", f->index >= 0 ?
				       json_string(f->expected) : json_null(),
			       "got", f->index >= 0 ?
				       json_string(f->got) : json_null(),
			       "reason", result_json_text(f->reason),
			       "m", (json_int_t)f->m, "n", (json_int_t)f->n);
		if (f->index >= 0)
			json_object_set_new(ff, "element",
					    json_integer(f->index));
		failure_json(e->ex, f, ff);
	}
	corr = json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I}",
			 "passed", (json_int_t)e->passed,
			 "total", (json_int_t)e->total,
			 "first_failure", ff,
			 "sweep_passed", (json_int_t)e->sweep_passed,
			 "sweep_total", (json_int_t)e->sweep_total,
			 "edge_passed", (json_int_t)e->edge_passed,
			 "edge_total", (json_int_t)e->edge_total);
	checks = json_array();
	for (size_t i = 0; i < e->nchecks; i++)
		json_array_append_new(checks, check_json(&e->checks[i]));
	tech = json_pack("{s:o, s:o}", "passed",
			 e->technique_passed < 0 ? json_null() :
			 json_boolean(e->technique_passed), "checks", checks);
	flags = json_array();
	for (size_t i = 0; i < e->nflags; i++)
		json_array_append_new(flags, json_string(e->flags[i]));
	perf = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "speedup", num_or_null(e->speedup),
			 "ci_low", num_or_null(e->ci_low),
			 "ci_high", num_or_null(e->ci_high),
			 "student_ms", num_or_null(e->student_ms),
			 "reference_ms", num_or_null(e->reference_ms),
			 "bandwidth_fraction",
			 num_or_null(e->bandwidth_fraction),
			 "flags", flags,
			 "model", e->perf_model[0] ?
				  json_string(e->perf_model) : json_null());
	if (e->perf_gpu[0])
		json_object_set_new(perf, "gpu", json_string(e->perf_gpu));
	if (!strcmp(e->perf_model, "predicted"))
		json_object_set_new(perf, "why", json_string(e->perf_why));
	o = json_pack("{s:s, s:s, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o}",
		      "name", e->ex->name,
		      "status", status_name(e->status),
		      "score", e->score,
		      "max_score", e->max_score,
		      "message",
		      result_json_text(e->message ? e->message : ""),
		      "correctness", corr,
		      "technique", tech,
		      "performance", perf,
		      "points", json_pack("{s:f, s:f, s:f}",
					  "correctness", e->score_correctness,
					  "technique", e->score_technique,
					  "performance",
					  e->score_performance),
		      "compile_log", result_json_text(e->compile_log));
	if (e->runner_output && *e->runner_output)
		json_object_set_new(o, "output",
				    result_json_text(e->runner_output));
	if (e->nwarnings) {
		json_t *w = json_array();

		for (size_t i = 0; i < e->nwarnings; i++)
			json_array_append_new(w, json_pack("{s:I, s:o}",
				"count", (json_int_t)e->warnings[i].count,
				"message",
				result_json_text(e->warnings[i].text)));
		json_object_set_new(o, "warnings", w);
	}
	if (e->source)
		json_object_set_new(o, "source", result_json_text(e->source));
	if (e->nprofile)
		json_object_set_new(o, "profile", profile_json(e));
	if (e->timings.n)
		json_object_set_new(o, "timings", timings_json(&e->timings));
	return o;
}

char *result_json(const struct grade_result *r)
{
	json_t *root, *arr;

	arr = json_array();
	for (size_t i = 0; i < r->nex; i++)
		json_array_append_new(arr, exercise_json(&r->ex[i]));
	root = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:f, s:f, "
			 "s:o, s:o, s:f}",
			 "tool", WG_TOOL, "version", WG_VERSION,
			 "submission", result_json_text(r->submission ?
							r->submission : ""),
			 "backend", result_json_text(r->backend ?
						     r->backend : "none"),
			 "device", result_json_text(r->device ?
						    r->device : "none"),
			 "isolation", result_json_text(r->isolation ?
						       r->isolation : ""),
			 "seed", (json_int_t)r->seed,
			 "score", r->score, "max_score", r->max_score,
			 "exercises", arr,
			 "generated", result_json_text(r->generated ?
						       r->generated : ""),
			 "seconds", r->seconds);
	if (!root)
		BUG("cannot build the JSON result");
	if (r->error)
		json_object_set_new(root, "error",
				    result_json_text(r->error));
	if (r->nnotes) {
		json_t *notes = json_array();

		for (size_t i = 0; i < r->nnotes; i++)
			json_array_append_new(notes,
					      result_json_text(r->notes[i]));
		json_object_set_new(root, "notes", notes);
	}
	if (r->timings.n)
		json_object_set_new(root, "timings", timings_json(&r->timings));
	return result_json_dump(root);
}

char *result_json_dump(json_t *root)
{
	char *s, *out;

	if (!root)
		BUG("cannot build a JSON document");
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			     JSON_REAL_PRECISION(10));
	json_decref(root);
	if (!s)
		BUG("cannot serialise a JSON document");
	out = xstrfmt("%s\n", s);
	free(s);
	return out;
}

/* ---- the reader ---- */

struct rd {
	char *err;
	size_t len;
	int failed;
};

static void rd_fail(struct rd *d, const char *fmt, const char *what)
{
	if (!d->failed)
		snprintf(d->err, d->len, fmt, what);
	d->failed = 1;
}

static char *rd_str(struct rd *d, json_t *o, const char *key, int need)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		if (need)
			rd_fail(d, "missing member '%s'", key);
		return NULL;
	}
	if (!json_is_string(v)) {
		rd_fail(d, "member '%s' is not a string", key);
		return NULL;
	}
	return xstrdup(json_string_value(v));
}

static void rd_strbuf(struct rd *d, json_t *o, const char *key, char *buf,
		      size_t len)
{
	char *s = rd_str(d, o, key, 0);

	snprintf(buf, len, "%s", s ? s : "");
	free(s);
}

static double rd_num(struct rd *d, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NAN;
	if (!json_is_number(v)) {
		rd_fail(d, "member '%s' is not a number", key);
		return NAN;
	}
	return json_number_value(v);
}

/* A member every result has (scores): present and finite. */
static double rd_need_num(struct rd *d, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		rd_fail(d, "missing member '%s'", key);
		return 0;
	}
	if (!json_is_number(v) || !isfinite(json_number_value(v))) {
		rd_fail(d, "member '%s' is not a number", key);
		return 0;
	}
	return json_number_value(v);
}

/* A part's points: 0 when absent. */
static double rd_points(struct rd *d, json_t *o, const char *key)
{
	double v = rd_num(d, o, key);

	return isnan(v) ? 0 : v;
}

static long long rd_int(struct rd *d, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v)) {
		rd_fail(d, "member '%s' is not an integer", key);
		return 0;
	}
	return json_integer_value(v);
}

static int rd_tristate(struct rd *d, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return -1;
	if (!json_is_boolean(v)) {
		rd_fail(d, "member '%s' is not a boolean", key);
		return -1;
	}
	return json_is_true(v);
}

static json_t *rd_obj(struct rd *d, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v && !json_is_object(v) && !json_is_null(v)) {
		rd_fail(d, "member '%s' is not an object", key);
		return NULL;
	}
	return json_is_object(v) ? v : NULL;
}

/* Rows of diff_cell texts into a window's cells. */
static void rd_grid(struct rd *d, json_t *rows, const struct exercise *ex,
		    struct failure_window *w, uint32_t *cells)
{
	for (int r = 0; r < w->rows; r++) {
		json_t *row = json_array_get(rows, (size_t)r);

		for (int c = 0; c < w->cols; c++) {
			json_t *v = json_array_get(row, (size_t)c);

			if (!ex || !json_is_string(v) ||
			    json_array_size(row) != (size_t)w->cols ||
			    diff_parse_cell(ex, json_string_value(v),
					    &cells[r * w->cols + c])) {
				rd_fail(d, "bad cell in '%s'", "diff");
				return;
			}
		}
	}
}

static void rd_window(struct rd *d, json_t *o, const struct exercise *ex,
		      struct failure_window *w)
{
	w->out_rows = rd_int(d, o, "out_rows");
	w->out_cols = rd_int(d, o, "out_cols");
	w->row0 = rd_int(d, o, "row0");
	w->col0 = rd_int(d, o, "col0");
	w->rows = (int)rd_int(d, o, "rows");
	w->cols = (int)rd_int(d, o, "cols");
	if (w->rows < 1 || w->cols < 1 || w->rows > FAILURE_WINDOW ||
	    w->cols > FAILURE_WINDOW ||
	    json_array_size(json_object_get(o, "expected")) !=
	    (size_t)w->rows ||
	    json_array_size(json_object_get(o, "got")) != (size_t)w->rows) {
		rd_fail(d, "bad member '%s'", "diff");
		return;
	}
	rd_grid(d, json_object_get(o, "expected"), ex, w, w->expected);
	rd_grid(d, json_object_get(o, "got"), ex, w, w->got);
	w->present = !d->failed;
}

/* What the first failure looked like: pattern, cells, location. */
static void rd_failure_picture(struct rd *d, json_t *ff,
			       const struct exercise *ex, struct failure *f)
{
	json_t *diff = rd_obj(d, ff, "diff"), *loc = rd_obj(d, ff,
							      "location");

	rd_strbuf(d, ff, "pattern", f->pattern, sizeof(f->pattern));
	rd_strbuf(d, ff, "pattern_why", f->pattern_why,
		  sizeof(f->pattern_why));
	if (diff) {
		rd_window(d, diff, ex, &f->win);
		f->win.row = rd_int(d, ff, "row");
		f->win.col = rd_int(d, ff, "col");
	}
	if (loc) {
		rd_strbuf(d, loc, "file", f->loc.file, sizeof(f->loc.file));
		f->loc.line = (int)rd_int(d, loc, "line");
		rd_strbuf(d, loc, "source", f->loc.source,
			  sizeof(f->loc.source));
		rd_strbuf(d, loc, "thread", f->loc.thread,
			  sizeof(f->loc.thread));
		rd_strbuf(d, loc, "block", f->loc.block,
			  sizeof(f->loc.block));
		rd_strbuf(d, loc, "what", f->loc.what, sizeof(f->loc.what));
		rd_strbuf(d, loc, "found_by", f->loc.found_by,
			  sizeof(f->loc.found_by));
	}
	rd_strbuf(d, ff, "sanitizer", f->sanitizer, sizeof(f->sanitizer));
}

/* A check's blamed lines (absent in results from before they existed). */
static void rd_lines(struct rd *d, json_t *arr, struct check_result *c)
{
	size_t i;
	json_t *v;

	if (arr && !json_is_array(arr)) {
		rd_fail(d, "member '%s' is not an array", "lines");
		return;
	}
	json_array_foreach(arr, i, v) {
		struct line_finding *l = result_add_line(c);

		if (!l)
			break;
		if (!json_is_object(v)) {
			rd_fail(d, "bad entry in '%s'", "lines");
			return;
		}
		rd_strbuf(d, v, "file", l->file, sizeof(l->file));
		l->line = (int)rd_int(d, v, "line");
		rd_strbuf(d, v, "source", l->source, sizeof(l->source));
		l->requests = rd_num(d, v, "requests");
		l->sectors = rd_num(d, v, "sectors");
		l->wavefronts = rd_num(d, v, "wavefronts");
		l->conflicts = rd_num(d, v, "conflicts");
		l->ideal = rd_num(d, v, "ideal");
		rd_strbuf(d, v, "why", l->why, sizeof(l->why));
	}
}

static void rd_warnings(struct rd *d, json_t *arr, struct exercise_result *e)
{
	size_t i;
	json_t *v;

	if (arr && !json_is_array(arr)) {
		rd_fail(d, "member '%s' is not an array", "warnings");
		return;
	}
	json_array_foreach(arr, i, v) {
		char text[sizeof(e->warnings[0].text)];
		long long n;

		if (!json_is_object(v)) {
			rd_fail(d, "bad entry in '%s'", "warnings");
			return;
		}
		n = rd_int(d, v, "count");
		rd_strbuf(d, v, "message", text, sizeof(text));
		result_add_warning(e, n > 0 ? (unsigned long)n : 0, text);
	}
}

/* A number of a profile row: 0 when absent or not finite. */
static double rd_count(struct rd *d, json_t *o, const char *key)
{
	double v = rd_num(d, o, key);

	return isfinite(v) ? v : 0;
}

static void rd_profile(struct rd *d, json_t *arr, struct exercise_result *e)
{
	size_t i;
	json_t *v;

	if (arr && !json_is_array(arr)) {
		rd_fail(d, "member '%s' is not an array", "profile");
		return;
	}
	json_array_foreach(arr, i, v) {
		struct line_traffic t;

		if (!json_is_object(v) || i >= RESULT_MAX_PROFILE) {
			rd_fail(d, "bad entry in '%s'", "profile");
			return;
		}
		t.line = (int)rd_int(d, v, "line");
		t.ld_req = rd_count(d, v, "load_requests");
		t.ld_sec = rd_count(d, v, "load_sectors");
		t.st_req = rd_count(d, v, "store_requests");
		t.st_sec = rd_count(d, v, "store_sectors");
		t.sh_wf = rd_count(d, v, "shared_wavefronts");
		t.sh_conf = rd_count(d, v, "shared_conflicts");
		result_add_profile(e, &t);
	}
}

/* The correctness member (may be NULL): counts and the first failure. */
static void rd_correctness(struct rd *d, json_t *corr,
			   struct exercise_result *e)
{
	struct failure *f = &e->first_failure;
	json_t *ff, *v;

	if (!corr)
		return;
	e->passed = (size_t)rd_int(d, corr, "passed");
	e->total = (size_t)rd_int(d, corr, "total");
	e->sweep_passed = (size_t)rd_int(d, corr, "sweep_passed");
	e->sweep_total = (size_t)rd_int(d, corr, "sweep_total");
	e->edge_passed = (size_t)rd_int(d, corr, "edge_passed");
	e->edge_total = (size_t)rd_int(d, corr, "edge_total");
	ff = rd_obj(d, corr, "first_failure");
	if (!ff)
		return;
	f->present = 1;
	f->m = rd_int(d, ff, "m");
	f->n = rd_int(d, ff, "n");
	f->shape_index = (size_t)rd_int(d, ff, "index");
	v = json_object_get(ff, "element");
	f->index = json_is_integer(v) ? json_integer_value(v) : -1;
	rd_strbuf(d, ff, "expected", f->expected, sizeof(f->expected));
	rd_strbuf(d, ff, "got", f->got, sizeof(f->got));
	rd_strbuf(d, ff, "reason", f->reason, sizeof(f->reason));
	rd_failure_picture(d, ff, e->ex, f);
}

/* The technique member (may be NULL): the verdict and every check. */
static void rd_technique(struct rd *d, json_t *tech,
			 struct exercise_result *e)
{
	size_t i;
	json_t *v;

	if (!tech)
		return;
	e->technique_passed = rd_tristate(d, tech, "passed");
	json_array_foreach(json_object_get(tech, "checks"), i, v) {
		struct check_result *c;
		char *cn;

		if (!json_is_object(v) || e->nchecks >= RESULT_MAX_CHECKS) {
			rd_fail(d, "bad technique check in '%s'",
				e->ex ? e->ex->name : "?");
			break;
		}
		cn = rd_str(d, v, "name", 1);
		c = result_add_check(e, cn ? cn : "?");
		free(cn);
		c->passed = rd_tristate(d, v, "passed");
		c->value = rd_num(d, v, "value");
		c->limit = rd_num(d, v, "limit");
		rd_strbuf(d, v, "detail", c->detail, sizeof(c->detail));
		rd_lines(d, json_object_get(v, "lines"), c);
		if (json_object_get(v, "shape_index")) {
			c->has_shape = 1;
			c->shape_index = (size_t)rd_int(d, v, "shape_index");
			c->m = rd_int(d, v, "m");
			c->n = rd_int(d, v, "n");
		}
	}
}

/* The performance member (may be NULL). */
static void rd_performance(struct rd *d, json_t *perf,
			   struct exercise_result *e)
{
	size_t i;
	json_t *v;

	if (!perf)
		return;
	e->speedup = rd_num(d, perf, "speedup");
	e->ci_low = rd_num(d, perf, "ci_low");
	e->ci_high = rd_num(d, perf, "ci_high");
	e->student_ms = rd_num(d, perf, "student_ms");
	e->reference_ms = rd_num(d, perf, "reference_ms");
	e->bandwidth_fraction = rd_num(d, perf, "bandwidth_fraction");
	rd_strbuf(d, perf, "model", e->perf_model, sizeof(e->perf_model));
	if (json_object_get(perf, "gpu"))
		rd_strbuf(d, perf, "gpu", e->perf_gpu, sizeof(e->perf_gpu));
	if (json_object_get(perf, "why"))
		rd_strbuf(d, perf, "why", e->perf_why, sizeof(e->perf_why));
	json_array_foreach(json_object_get(perf, "flags"), i, v)
		if (json_is_string(v))
			result_add_flag(e, json_string_value(v));
}

static void rd_exercise(struct rd *d, json_t *o, struct exercise_result *e)
{
	json_t *pts;
	char *name = rd_str(d, o, "name", 1), *status;
	int s;

	e->speedup = e->ci_low = e->ci_high = NAN;
	e->student_ms = e->reference_ms = e->bandwidth_fraction = NAN;
	e->technique_passed = -1;
	e->first_failure.index = -1;
	if (!name)
		return;
	e->ex = exercise_find(name);
	if (!e->ex)
		rd_fail(d, "unknown exercise '%s'", name);
	free(name);
	status = rd_str(d, o, "status", 1);
	s = status ? status_parse(status) : -1;
	if (status && s < 0)
		rd_fail(d, "unknown status '%s'", status);
	free(status);
	e->status = s < 0 ? STATUS_XX : (enum status)s;
	e->score = rd_need_num(d, o, "score");
	e->max_score = rd_need_num(d, o, "max_score");
	e->message = rd_str(d, o, "message", 0);
	e->compile_log = rd_str(d, o, "compile_log", 0);
	e->runner_output = rd_str(d, o, "output", 0);
	e->seconds = rd_num(d, o, "seconds");
	if (isnan(e->seconds))
		e->seconds = 0;

	rd_correctness(d, rd_obj(d, o, "correctness"), e);
	rd_technique(d, rd_obj(d, o, "technique"), e);
	e->source = rd_str(d, o, "source", 0);
	rd_warnings(d, json_object_get(o, "warnings"), e);
	rd_profile(d, json_object_get(o, "profile"), e);
	rd_performance(d, rd_obj(d, o, "performance"), e);
	pts = rd_obj(d, o, "points");
	if (pts) {
		e->score_correctness = rd_points(d, pts, "correctness");
		e->score_technique = rd_points(d, pts, "technique");
		e->score_performance = rd_points(d, pts, "performance");
	}
}

int result_json_parse(const char *text, struct grade_result *r,
		      int *exit_status, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je), *arr, *v, *tool;
	struct rd d = { err, errlen, 0 };
	size_t i;
	int status = 0;

	if (!root) {
		snprintf(err, errlen, "not JSON: %s (line %d)", je.text,
			 je.line);
		return -1;
	}
	tool = json_object_get(root, "tool");
	arr = json_object_get(root, "exercises");
	if (!json_is_object(root) || !json_is_string(tool) ||
	    strcmp(json_string_value(tool), WG_TOOL) ||
	    !json_is_array(arr)) {
		snprintf(err, errlen, "not a %s result", WG_TOOL);
		json_decref(root);
		return -1;
	}
	r->submission = rd_str(&d, root, "submission", 0);
	r->backend = rd_str(&d, root, "backend", 0);
	r->device = rd_str(&d, root, "device", 0);
	r->isolation = rd_str(&d, root, "isolation", 0);
	r->error = rd_str(&d, root, "error", 0);
	v = json_object_get(root, "notes");
	for (i = 0; json_is_array(v) && i < json_array_size(v); i++)
		if (json_is_string(json_array_get(v, i)))
			result_add_note(r, json_string_value(
					json_array_get(v, i)));
	r->generated = rd_str(&d, root, "generated", 0);
	r->seed = (uint64_t)rd_int(&d, root, "seed");
	r->score = rd_need_num(&d, root, "score");
	r->max_score = rd_need_num(&d, root, "max_score");
	r->seconds = rd_num(&d, root, "seconds");
	if (isnan(r->seconds))
		r->seconds = 0;
	r->nex = json_array_size(arr);
	r->ex = xcalloc(r->nex ? r->nex : 1, sizeof(*r->ex));
	json_array_foreach(arr, i, v) {
		if (!json_is_object(v)) {
			rd_fail(&d, "exercise entry %s is not an object",
				"");
			break;
		}
		rd_exercise(&d, v, &r->ex[i]);
	}
	v = json_object_get(root, "grader_exit");
	if (json_is_integer(v)) {
		status = (int)json_integer_value(v);
	} else {
		status = r->error ? GRADE_UNUSABLE : GRADE_OK;
		for (i = 0; i < r->nex; i++)
			if (r->ex[i].status == STATUS_XX)
				status = GRADE_INTERNAL;
	}
	json_decref(root);
	if (d.failed) {
		result_release(r);
		return -1;
	}
	if (exit_status)
		*exit_status = status;
	return 0;
}

int result_json_load_status(const char *path, struct grade_result *r,
			    int *exit_status)
{
	char err[256];
	size_t len;
	char *text = read_file(path, 64u << 20, &len);

	if (!text)
		return error("cannot read '%s': %s", path, strerror(errno));
	if (strlen(text) != len) {
		free(text);
		return error("'%s': not a warpgrade result (NUL byte)", path);
	}
	if (result_json_parse(text, r, exit_status, err, sizeof(err))) {
		free(text);
		return error("'%s': %s", path, err);
	}
	free(text);
	return 0;
}

int result_json_load(const char *path, struct grade_result *r)
{
	return result_json_load_status(path, r, NULL);
}
