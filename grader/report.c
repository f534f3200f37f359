/*
 * The text view of the grading result (see report.h); the JSON one is
 * result_json.c's, the HTML one report_html.c's.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "formats.h"
#include "util.h"

int report_want_colour(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (nc && *nc)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(fileno(f));
}

static const char *status_colour(enum status s)
{
	switch (s) {
	case STATUS_OK:
		return "\033[1;32m";
	case STATUS_TECH:
		return "\033[1;33m";
	case STATUS_XX:
		return "\033[1;35m";
	default:
		return "\033[1;31m";
	}
}

/* Text a submission can influence (its output, file names, the
 * runner's error strings, and any string of a result read back from an
 * archive): control characters, C1 ones included, print as '?'
 * (newlines and tabs kept), so escape sequences never rewrite a report
 * line or the terminal's title. */
static void puts_clean(FILE *f, const char *s)
{
	char *clean = formats_inert(s, "\t\n", "?");

	fputs(clean, f);
	free(clean);
}

static void put_clean(FILE *f, const char *s, size_t len)
{
	char *part = xstrfmt("%.*s", (int)len, s);

	puts_clean(f, part);
	free(part);
}

static void indent_block(FILE *f, const char *text, size_t max_lines)
{
	size_t lines = 0;
	const char *p = text;

	while (*p && lines < max_lines) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		fputs("      | ", f);
		put_clean(f, p, len);
		fputc('\n', f);
		lines++;
		p += len + (nl ? 1 : 0);
	}
	if (*p)
		fprintf(f, "      | ...\n");
}

/* The emulator's messages, one line per distinct one. */
static void text_warnings(FILE *f, const struct exercise_result *e,
			  const char *dim, const char *off)
{
	if (!e->nwarnings)
		return;
	fprintf(f, "      emulator messages (the first of each kind, with "
		"how many launches printed it):\n");
	for (size_t i = 0; i < e->nwarnings; i++) {
		fprintf(f, "      %s%5lu x%s ", dim, e->warnings[i].count, off);
		puts_clean(f, e->warnings[i].text);
		fputc('\n', f);
	}
}

/* What intake skipped or ignored, one line each. */
static void text_notes(FILE *f, const struct grade_result *r,
		       const char *dim, const char *off)
{
	for (size_t i = 0; i < r->nnotes; i++) {
		fprintf(f, "  %snote: ", dim);
		puts_clean(f, r->notes[i]);
		fprintf(f, "%s\n", off);
	}
}

/* One row of a window's grid: cells of vals, wrong ones marked '*'. */
static void grid_row(FILE *f, const struct exercise *ex,
		     const struct failure_window *w, int r, int got)
{
	const uint32_t *vals = got ? w->got : w->expected;

	for (int c = 0; c < w->cols; c++) {
		uint32_t v = vals[r * w->cols + c];
		int wrong = w->got[r * w->cols + c] !=
			    w->expected[r * w->cols + c];
		char cell[32];

		diff_cell(ex, v, 0, cell, sizeof(cell));
		fprintf(f, " %c%10s", got && wrong ? '*' : ' ', cell);
	}
}

static void grid_header(FILE *f, const struct failure_window *w, int side)
{
	fputs("             ", f);
	for (int k = 0; k < (side ? 2 : 1); k++) {
		if (k)
			fputs("   |", f);
		for (int c = 0; c < w->cols; c++) {
			char col[24];

			snprintf(col, sizeof(col), "c%lld",
				 (long long)(w->col0 + c));
			fprintf(f, " %11s", col);
		}
	}
	fputc('\n', f);
}

/* The expected and the produced output, side by side when they fit in
 * a terminal, else one above the other. */
static void text_window(FILE *f, const struct exercise *ex,
			const struct failure_window *w)
{
	int side = w->cols <= 5;

	fprintf(f, "        %s of the %lldx%lld output (row r, column c), "
		"%s; * marks a wrong cell:\n",
		w->rows == w->out_rows && w->cols == w->out_cols ? "all" :
		"around the first wrong cell", (long long)w->out_rows,
		(long long)w->out_cols, side ? "expected | got" :
		"expected, then got");
	for (int g = 0; g < (side ? 1 : 2); g++) {
		if (!side)
			fprintf(f, "        %s:\n", g ? "got" : "expected");
		grid_header(f, w, side);
		for (int r = 0; r < w->rows; r++) {
			fprintf(f, "        r%-4lld", (long long)(w->row0 + r));
			grid_row(f, ex, w, r, side ? 0 : g);
			if (side) {
				fputs("   |", f);
				grid_row(f, ex, w, r, 1);
			}
			fputc('\n', f);
		}
	}
}

/* A first failure's picture: where, the pattern, the cells, the line. */
static void text_failure(FILE *f, const struct exercise *ex,
			 const struct failure *ff, const char *bold,
			 const char *off)
{
	(void)ex;
	const struct failure_location *l = &ff->loc;

	if (ff->win.present)
		fprintf(f, "        at row %lld, column %lld of the %lldx%lld "
			"output\n", (long long)ff->win.row,
			(long long)ff->win.col, (long long)ff->win.out_rows,
			(long long)ff->win.out_cols);
	if (ff->pattern[0]) {
		fprintf(f, "        %spattern: ", bold);
		puts_clean(f, ff->pattern);
		fprintf(f, "%s: ", off);
		puts_clean(f, ff->pattern_why);
		fputc('\n', f);
	}
	if (l->file[0]) {
		fprintf(f, "        at %s", bold);
		puts_clean(f, l->file);
		fprintf(f, ":%d%s", l->line, off);
		if (l->thread[0]) {
			fputs(", thread ", f);
			puts_clean(f, l->thread);
			fputs(" of block ", f);
			puts_clean(f, l->block);
		}
		if (l->what[0]) {
			fputs(": ", f);
			puts_clean(f, l->what);
		}
		fputc('\n', f);
		if (l->source[0]) {
			fputs("          | ", f);
			puts_clean(f, l->source);
			fputc('\n', f);
		}
		if (l->found_by[0]) {
			fputs("          (found by ", f);
			puts_clean(f, l->found_by);
			fputs(")\n", f);
		}
	}
	if (ff->sanitizer[0]) {
		fputs("        compute-sanitizer on this shape:\n", f);
		indent_block(f, ff->sanitizer, 20);
	}
}

void report_failure_grid(FILE *f, const struct exercise *ex,
			 const struct failure *ff)
{
	if (ff->win.present)
		text_window(f, ex, &ff->win);
}

/* Does check k read like the next one (same verdict, same detail, no
 * lines of its own)? */
static int same_as_next(const struct exercise_result *e, size_t k)
{
	const struct check_result *a = &e->checks[k], *b = a + 1;

	return k + 1 < e->nchecks && !a->nlines && a->passed == b->passed &&
	       !strcmp(a->detail, b->detail);
}

/* A line a failed check blames: where, its traffic, its text, why. */
static void text_line(FILE *f, const struct line_finding *l,
		      const char *bold, const char *off)
{
	fprintf(f, "        at %s", bold);
	puts_clean(f, l->file);
	fprintf(f, ":%d%s: ", l->line, off);
	if (!isnan(l->sectors))
		fprintf(f, "%.0f sectors in %.0f requests (%.2f per request, "
			"ideal %.0f)", l->sectors, l->requests,
			l->requests > 0 ? l->sectors / l->requests : 0,
			l->requests > 0 ? l->ideal / l->requests : 0);
	else if (!isnan(l->wavefronts))
		fprintf(f, "%.0f bank conflicts in %.0f wavefronts (ideal "
			"%.0f)", l->conflicts, l->wavefronts, l->ideal);
	else
		fputs("static shared memory", f);
	fputc('\n', f);
	if (l->source[0]) {
		fputs("          | ", f);
		puts_clean(f, l->source);
		fputc('\n', f);
	}
	fputs("          ", f);
	puts_clean(f, l->why);
	fputc('\n', f);
}

/* Escape sequences of the text view: none without colour. */
struct text_style {
	int colour;
	const char *bold, *dim, *off;
};

/* An exercise's correctness line and its first failure. */
static void text_correctness(FILE *f, const struct exercise_result *e,
			     const struct text_style *st)
{
	const struct failure *ff = &e->first_failure;

	fprintf(f, "      correctness %zu/%zu shapes (sweep %zu/%zu, "
		"edges %zu/%zu)  %.2f pts\n", e->passed, e->total,
		e->sweep_passed, e->sweep_total, e->edge_passed,
		e->edge_total, e->score_correctness);
	if (!ff->present)
		return;
	fprintf(f, "      first failure: shape #%zu (%s=%lld, %s=%lld): ",
		ff->shape_index, e->ex->dim_m, (long long)ff->m,
		e->ex->dim_n, (long long)ff->n);
	puts_clean(f, ff->reason);
	fputc('\n', f);
	if (ff->index >= 0) {
		fprintf(f, "        element %lld: expected ", ff->index);
		puts_clean(f, ff->expected);
		fputs(", got ", f);
		puts_clean(f, ff->got);
		fputc('\n', f);
	}
	text_failure(f, e->ex, ff, st->bold, st->off);
	if (ff->win.present)
		text_window(f, e->ex, &ff->win);
}

/* An exercise's technique checks and their points. */
static void text_technique(FILE *f, const struct exercise_result *e,
			   const struct text_style *st)
{
	for (size_t k = 0; k < e->nchecks; k++) {
		const struct check_result *c = &e->checks[k];
		const char *mark = c->passed == 1 ? "pass" :
				   c->passed == 0 ? "FAIL" : "not measured";
		char *name = formats_inert(c->name, "", "?");

		fprintf(f, "      technique: %-32s %s", name, mark);
		free(name);
		if (!isnan(c->value))
			fprintf(f, " (%.3g, limit %.3g)", c->value, c->limit);
		fprintf(f, "\n");
		if (c->has_shape)
			fprintf(f, "        first failing shape: #%zu "
				"(%s=%lld, %s=%lld)\n", c->shape_index,
				e->ex->dim_m, (long long)c->m,
				e->ex->dim_n, (long long)c->n);
		/* checks that fail for one reason say it once */
		if (c->detail[0] && !same_as_next(e, k)) {
			fprintf(f, "        %s", st->dim);
			puts_clean(f, c->detail);
			fprintf(f, "%s\n", st->off);
		}
		for (size_t j = 0; j < c->nlines; j++)
			text_line(f, &c->lines[j], st->bold, st->off);
	}
	fprintf(f, "      technique %.2f pts", e->score_technique);
	if (e->sweep_passed < e->sweep_total)
		fprintf(f, " %s(counted once the sweep passes)%s", st->dim,
			st->off);
	fprintf(f, "\n");
}

/* The speedup line of an exercise, by the model that measured it. */
static void text_speedup(FILE *f, const struct exercise_result *e,
			 const struct text_style *st)
{
	if (!strcmp(e->perf_model, "time")) {
		fprintf(f, "      performance: %.3f ms vs reference %.3f ms: "
			"speedup %.2fx [%.2f, %.2f]", e->student_ms,
			e->reference_ms, e->speedup, e->ci_low, e->ci_high);
		if (!isnan(e->bandwidth_fraction))
			fprintf(f, ", %.0f%% of copy bandwidth",
				100 * e->bandwidth_fraction);
		fprintf(f, "\n");
		if (e->perf_gpu[0]) {
			fprintf(f, "        %stimed on ", st->dim);
			puts_clean(f, e->perf_gpu);
			fprintf(f, "%s\n", st->off);
		}
	} else if (!strcmp(e->perf_model, "predicted")) {
		fputs("      performance: predicted ", f);
		puts_clean(f, e->perf_gpu);
		fprintf(f, " time %.3f ms (reference %.3f ms): %.2fx -- a "
			"prediction of the emulator's model, not a "
			"measurement\n", e->student_ms, e->reference_ms,
			e->speedup);
		if (e->perf_why[0]) {
			fprintf(f, "        %s", st->dim);
			puts_clean(f, e->perf_why);
			fprintf(f, "%s\n", st->off);
		}
	}
}

/* An exercise's performance, its flags and their points. */
static void text_performance(FILE *f, const struct exercise_result *e,
			     const struct text_style *st)
{
	if (!strcmp(e->perf_model, "bandwidth") &&
	    !isnan(e->bandwidth_fraction))
		fprintf(f, "      performance: %.3f ms, %.0f%% of the "
			"device's copy bandwidth (no reference kernels here: "
			"measured against copy bandwidth, not the "
			"reference)\n", e->student_ms,
			100 * e->bandwidth_fraction);
	if (isnan(e->speedup) && !strcmp(e->perf_model, "predicted")) {
		fprintf(f, "      performance: ");
		puts_clean(f, e->perf_why);
		fprintf(f, " -- no performance points\n");
	}
	if (!isnan(e->speedup))
		text_speedup(f, e, st);
	for (size_t k = 0; k < e->nflags; k++) {
		fprintf(f, "      %sflag:%s ", st->colour ? "\033[1;31m" : "",
			st->off);
		puts_clean(f, e->flags[k]);
		fprintf(f, " (no performance credit)\n");
	}
	fprintf(f, "      performance %.2f pts", e->score_performance);
	if (e->passed < e->total)
		fprintf(f, " %s(counted once every shape passes)%s", st->dim,
			st->off);
	fprintf(f, "\n");
}

static void text_exercise(FILE *f, const struct exercise_result *e,
			  const struct text_style *st)
{
	fprintf(f, "\n  %s%-8s%s %s%-20s%s %6.2f / %.0f\n",
		st->colour ? status_colour(e->status) : "",
		status_name(e->status), st->off, st->bold, e->ex->name,
		st->off, e->score, e->max_score);
	if (e->message && *e->message && e->status != STATUS_OK) {
		fputs("      ", f);
		puts_clean(f, e->message);
		fputc('\n', f);
	}
	if (e->compile_log && *e->compile_log)
		indent_block(f, e->compile_log, 20);
	if (e->runner_output && *e->runner_output) {
		fprintf(f, "      output of the program (stdout, stderr):\n");
		indent_block(f, e->runner_output, 12);
	}
	text_warnings(f, e, st->dim, st->off);
	if (e->status == STATUS_CE || e->status == STATUS_MISSING ||
	    e->status == STATUS_REJECTED || e->status == STATUS_XX)
		return;
	text_correctness(f, e, st);
	text_technique(f, e, st);
	text_performance(f, e, st);
}

void report_text(FILE *f, const struct grade_result *r, int colour)
{
	const struct text_style st = {
		colour, colour ? "\033[1m" : "", colour ? "\033[2m" : "",
		colour ? "\033[0m" : ""
	};
	const char *bold = st.bold, *dim = st.dim, *off = st.off;

	fprintf(f, "%swarpgrade %s%s: ", bold, WG_VERSION, off);
	puts_clean(f, r->submission ? r->submission : "?");
	fputc('\n', f);
	if (r->error) {
		fprintf(f, "  %serror:%s ", colour ? "\033[1;31m" : "", off);
		puts_clean(f, r->error);
		fputc('\n', f);
		text_notes(f, r, dim, off);
		return;
	}
	fprintf(f, "  %sbackend ", dim);
	puts_clean(f, r->backend);
	fputs(" on ", f);
	puts_clean(f, r->device);
	fprintf(f, ", seed %llu%s\n", (unsigned long long)r->seed, off);
	fprintf(f, "  %sisolation: ", dim);
	puts_clean(f, r->isolation);
	fprintf(f, "%s\n", off);
	text_notes(f, r, dim, off);
	if (r->backend && !strcmp(r->backend, "emu"))
		fprintf(f, "  %sno GPU: correctness and technique are exact; "
			"performance is the emulator's prediction of the "
			"time on a GPU, not a measurement%s\n", dim, off);
	for (size_t i = 0; i < r->nex; i++)
		text_exercise(f, &r->ex[i], &st);
	fprintf(f, "\n  %stotal %.2f / %.0f%s  %s(%.1f s)%s\n", bold,
		r->score, r->max_score, off, dim, r->seconds, off);
}

void report_timings(FILE *f, const struct grade_result *r)
{
	if (!r->timings.n)
		return;
	fprintf(f, "timings (wall seconds; builds of different exercises "
		"overlap)\n");
	timings_print(f, r->submission ? r->submission : "submission",
		      &r->timings);
	for (size_t i = 0; i < r->nex; i++)
		timings_print(f, r->ex[i].ex ? r->ex[i].ex->name : "?",
			      &r->ex[i].timings);
	fprintf(f, "  total %.2f s\n", r->seconds);
}
