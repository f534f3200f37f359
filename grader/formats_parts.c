/*
 * A result as a list of tests with markdown output, what Gradescope and
 * PrairieLearn show (formats_view.h): per exercise, correctness (the
 * verdict, the first failure drawn, the compiler's and the program's
 * output), each technique check (its value, the lines it blames) and
 * performance; and the summary at the top of a report.  Text from the
 * submission goes through formats_md_text or a code fence longer than
 * any run of backticks in it, so it never becomes markdown.
 */
#include "formats_view.h"

#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* Points each part of an exercise is worth.  The configuration's split,
 * scaled to the exercise's max_score when it was graded with another. */
struct part_max {
	double correctness, technique, performance;
};

static struct part_max part_max(const struct score_config *cfg,
				const struct exercise_result *e)
{
	struct part_max p;
	double total = score_max(cfg), k = 1;

	if (total > 0 && e->max_score > 0 &&
	    fabs(total - e->max_score) > 1e-9)
		k = e->max_score / total;
	p.correctness = (cfg->sweep_points + cfg->edge_points) * k;
	p.technique = cfg->technique_points * k;
	p.performance = cfg->performance_points * k;
	return p;
}

static const char *check_mark(int passed)
{
	return passed == 1 ? "pass" : passed == 0 ? "FAIL" : "not measured";
}

/* Longest run of backticks in s, so a code fence can be longer. */
static size_t backtick_run(const char *s)
{
	size_t best = 0, cur = 0;

	for (; *s; s++) {
		cur = *s == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

/* Text the submission may have produced, as a markdown code block. */
static void md_code(FILE *f, const char *text, size_t cap)
{
	char *clean = formats_inert(text, "\t\n\r", FORMATS_REPLACEMENT);
	size_t n = backtick_run(clean) + 1, len = strlen(clean);

	if (n < 3)
		n = 3;
	if (len > cap) {
		/* keep the start: compiler errors come first */
		size_t cut = cap;

		while (cut > 0 && (clean[cut] & 0xC0) == 0x80)
			cut--;
		clean[cut] = '\0';
	}
	fputc('\n', f);
	for (size_t i = 0; i < n; i++)
		fputc('`', f);
	fprintf(f, "\n%s%s\n", clean, len > cap ? "\n[... cut ...]" : "");
	for (size_t i = 0; i < n; i++)
		fputc('`', f);
	fputc('\n', f);
	free(clean);
}

/* Plain text inside markdown (formats.h), under a short name. */
#define md_text formats_md_text

/* Pattern, location and cells of a first failure, in markdown. */
static void md_failure(FILE *f, const struct exercise *ex,
		       const struct failure *ff)
{
	struct formats_buf g;
	char *grid;

	if (ff->pattern[0]) {
		fputs("\nPattern: **", f);
		md_text(f, ff->pattern);
		fputs("**: ", f);
		md_text(f, ff->pattern_why);
		fputc('\n', f);
	}
	if (ff->loc.file[0]) {
		fputs("\nAt ", f);
		md_text(f, ff->loc.file);
		fprintf(f, " line %d", ff->loc.line);
		if (ff->loc.thread[0]) {
			fputs(", thread ", f);
			md_text(f, ff->loc.thread);
			fputs(" of block ", f);
			md_text(f, ff->loc.block);
		}
		if (ff->loc.what[0]) {
			fputs(" (", f);
			md_text(f, ff->loc.what);
			fputc(')', f);
		}
		fputs(":\n", f);
		if (ff->loc.source[0])
			md_code(f, ff->loc.source, sizeof(ff->loc.source));
		if (ff->loc.found_by[0]) {
			fputs("\n(found by ", f);
			md_text(f, ff->loc.found_by);
			fputs(")\n", f);
		}
	}
	if (ff->sanitizer[0]) {
		fputs("\ncompute-sanitizer on this shape:\n", f);
		md_code(f, ff->sanitizer, sizeof(ff->sanitizer));
	}
	if (!ff->win.present)
		return;
	formats_buf_init(&g);
	report_failure_grid(g.f, ex, ff);
	grid = formats_buf_finish(&g);
	md_code(f, grid, 65536);
	free(grid);
}

static void correctness_part(const struct exercise_result *e,
			     const struct part_max *pm, struct formats_part *p)
{
	struct formats_buf b;
	const struct failure *ff = &e->first_failure;

	snprintf(p->name, sizeof(p->name), "%s: correctness", e->ex->name);
	p->score = formats_round2(e->score_correctness);
	p->max = formats_round2(pm->correctness);
	p->status = formats_ran(e) && e->total && e->passed == e->total;
	formats_buf_init(&b);
	fprintf(b.f, "**%s** (%s)", status_name(e->status),
		status_meaning(e->status));
	if (e->message && *e->message && e->status != STATUS_OK &&
	    strcmp(e->message, status_meaning(e->status))) {
		fputs(": ", b.f);
		md_text(b.f, e->message);
	}
	fputs("\n\n", b.f);
	if (formats_ran(e)) {
		fprintf(b.f, "%zu of %zu shapes correct (sweep %zu/%zu, "
			"edge shapes %zu/%zu), compared bit for bit.\n",
			e->passed, e->total, e->sweep_passed, e->sweep_total,
			e->edge_passed, e->edge_total);
		if (ff->present) {
			fprintf(b.f, "\nFirst failure: shape #%zu (%s=%lld, "
				"%s=%lld): ", ff->shape_index, e->ex->dim_m,
				(long long)ff->m, e->ex->dim_n,
				(long long)ff->n);
			md_text(b.f, ff->reason);
			fputc('\n', b.f);
			if (ff->index >= 0) {
				fprintf(b.f, "\nElement %lld: expected ",
					ff->index);
				md_text(b.f, ff->expected);
				fputs(", got ", b.f);
				md_text(b.f, ff->got);
				fputs(".\n", b.f);
			}
			md_failure(b.f, e->ex, ff);
		}
	}
	if (e->compile_log && *e->compile_log) {
		fputs("\nCompiler output:\n", b.f);
		md_code(b.f, e->compile_log, 16384);
	}
	if (e->runner_output && *e->runner_output) {
		fputs("\nOutput of your code:\n", b.f);
		md_code(b.f, e->runner_output, 8192);
	}
	if (e->nwarnings) {
		struct formats_buf w;
		char *t;

		formats_buf_init(&w);
		for (size_t i = 0; i < e->nwarnings; i++)
			fprintf(w.f, "%5lu x %s\n", e->warnings[i].count,
				e->warnings[i].text);
		t = formats_buf_finish(&w);
		fputs("\nThe emulator's messages (the first of each kind, at "
		      "most one per launch):\n", b.f);
		md_code(b.f, t, 8192);
		free(t);
	}
	p->output = formats_buf_finish(&b);
	p->message = xstrfmt("%s: %s", status_name(e->status),
			     formats_ran(e) ? "" : status_meaning(e->status));
	if (formats_ran(e)) {
		free(p->message);
		p->message = xstrfmt("%s: %zu/%zu shapes correct",
				     status_name(e->status), e->passed,
				     e->total);
	}
}

static void check_part(const struct exercise_result *e,
		       const struct part_max *pm, size_t k,
		       struct formats_part *p)
{
	const struct check_result *c = &e->checks[k];
	double each = pm->technique / (double)e->nchecks;
	struct formats_buf b;

	snprintf(p->name, sizeof(p->name), "%s: technique: %s", e->ex->name,
		 c->name);
	/* technique points count once the sweep passes (score.c); they are
	 * shared equally among the passed checks */
	p->score = c->passed == 1 && e->score_technique > 0 ?
		   formats_round2(each) : 0;
	p->max = formats_round2(each);
	p->status = c->passed == 1 ? 1 : 0;
	formats_buf_init(&b);
	fprintf(b.f, "**%s**", check_mark(c->passed));
	if (!isnan(c->value))
		fprintf(b.f, ": %.3g (limit %.3g)", c->value, c->limit);
	fputc('\n', b.f);
	if (c->detail[0]) {
		fputc('\n', b.f);
		md_text(b.f, c->detail);
		fputc('\n', b.f);
	}
	if (c->has_shape)
		fprintf(b.f, "\nFirst failing shape: #%zu (%s=%lld, %s=%lld)\n",
			c->shape_index, e->ex->dim_m, (long long)c->m,
			e->ex->dim_n, (long long)c->n);
	for (size_t i = 0; i < c->nlines; i++) {
		const struct line_finding *l = &c->lines[i];

		fputs("\nAt ", b.f);
		md_text(b.f, l->file);
		fprintf(b.f, " line %d:\n", l->line);
		if (l->source[0])
			md_code(b.f, l->source, sizeof(l->source));
		fputc('\n', b.f);
		md_text(b.f, l->why);
		fputc('\n', b.f);
	}
	if (c->passed == 1 && e->score_technique <= 0)
		fputs("\nTechnique points count once every sweep shape is "
		      "correct.\n", b.f);
	p->output = formats_buf_finish(&b);
	p->message = xstrfmt("%s", check_mark(c->passed));
}

static void technique_missing_part(const struct exercise_result *e,
				   const struct part_max *pm,
				   struct formats_part *p)
{
	snprintf(p->name, sizeof(p->name), "%s: technique", e->ex->name);
	p->score = formats_round2(e->score_technique);
	p->max = formats_round2(pm->technique);
	p->status = 0;
	p->message = xstrfmt("not checked: %s", status_meaning(e->status));
	p->output = xstrfmt("Not checked: the exercise did not run (%s).\n",
			    status_name(e->status));
}

static void performance_part(const struct exercise_result *e,
			     const struct part_max *pm,
			     struct formats_part *p)
{
	struct formats_buf b;

	snprintf(p->name, sizeof(p->name), "%s: performance", e->ex->name);
	p->score = formats_round2(e->score_performance);
	p->max = formats_round2(pm->performance);
	p->status = -1;
	formats_buf_init(&b);
	if (!strcmp(e->perf_model, "time") && isfinite(e->speedup)) {
		fprintf(b.f, "%.3f ms against the reference's %.3f ms: "
			"speedup **%.2fx** (95%% CI %.2f to %.2f).\n",
			e->student_ms, e->reference_ms, e->speedup,
			e->ci_low, e->ci_high);
	} else if (!strcmp(e->perf_model, "predicted") &&
		   isfinite(e->speedup)) {
		fprintf(b.f, "Predicted %s time %.3f ms (reference %.3f ms): "
			"**%.2fx** -- the emulator's performance model, not "
			"a measurement. %s\n", e->perf_gpu, e->student_ms,
			e->reference_ms, e->speedup, e->perf_why);
	} else if (!strcmp(e->perf_model, "predicted")) {
		fprintf(b.f, "No prediction of the %s time, so no "
			"performance points: %s\n", e->perf_gpu,
			e->perf_why + (strncmp(e->perf_why, "no prediction: ",
					       15) ? 0 : 15));
	} else if (!strcmp(e->perf_model, "bandwidth")) {
		fprintf(b.f, "%.3f ms; measured against the device's copy "
			"bandwidth, not the reference.\n", e->student_ms);
	} else {
		fputs("Not measured", b.f);
		if (!formats_ran(e) || e->passed < e->total)
			fputs(": performance counts once every shape is "
			      "correct", b.f);
		fputs(".\n", b.f);
	}
	if (isfinite(e->bandwidth_fraction))
		fprintf(b.f, "\nEffective bandwidth: %.0f%% of the device's "
			"copy bandwidth.\n", 100 * e->bandwidth_fraction);
	for (size_t k = 0; k < e->nflags; k++) {
		fputs("\nFlag (no performance credit): ", b.f);
		md_text(b.f, e->flags[k]);
		fputc('\n', b.f);
	}
	p->output = formats_buf_finish(&b);
	if (isfinite(e->speedup))
		p->message = xstrfmt("speedup %.2fx", e->speedup);
	else if (isfinite(e->bandwidth_fraction))
		p->message = xstrfmt("%.0f%% of copy bandwidth",
				     100 * e->bandwidth_fraction);
	else
		p->message = xstrdup("not measured");
}

/* The flattened tests of a result; *n receives the count. */
struct formats_part *formats_parts(const struct grade_result *r,
				   const struct score_config *cfg, size_t *n)
{
	struct formats_part *p;
	size_t cap = 0, k = 0;

	for (size_t i = 0; i < r->nex; i++)
		cap += 2 + (r->ex[i].nchecks ? r->ex[i].nchecks : 1);
	p = xcalloc(cap ? cap : 1, sizeof(*p));
	for (size_t i = 0; i < r->nex; i++) {
		const struct exercise_result *e = &r->ex[i];
		struct part_max pm = part_max(cfg, e);

		correctness_part(e, &pm, &p[k++]);
		if (e->nchecks)
			for (size_t c = 0; c < e->nchecks; c++)
				check_part(e, &pm, c, &p[k++]);
		else
			technique_missing_part(e, &pm, &p[k++]);
		performance_part(e, &pm, &p[k++]);
	}
	*n = k;
	return p;
}

void formats_parts_free(struct formats_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].message);
		free(p[i].output);
	}
	free(p);
}

/* The whole result as markdown, for the top of a report. */
char *formats_summary_md(const struct grade_result *r, int exit_status)
{
	struct formats_buf b;

	formats_buf_init(&b);
	if (r->error) {
		if (results_internal(r, exit_status))
			fputs("**Internal error of the grader** (not your "
			      "submission's fault; it will be regraded): ",
			      b.f);
		else
			fputs("**Your submission could not be graded**: ",
			      b.f);
		md_text(b.f, r->error);
		fputc('\n', b.f);
		return formats_buf_finish(&b);
	}
	fprintf(b.f, "**%.2f / %.0f** on %s (", r->score, r->max_score,
		r->backend && !strcmp(r->backend, "emu") ?
		"the emulator" : "the GPU");
	md_text(b.f, r->device);
	fprintf(b.f, "), seed %llu.\n\n", (unsigned long long)r->seed);
	fputs("| exercise | status | points |\n|---|---|---|\n", b.f);
	for (size_t i = 0; i < r->nex; i++) {
		const struct exercise_result *e = &r->ex[i];

		fprintf(b.f, "| %s | %s | %.2f / %.0f |\n", e->ex->name,
			status_name(e->status), e->score, e->max_score);
	}
	if (r->backend && !strcmp(r->backend, "emu"))
		fputs("\nNo GPU: correctness and technique are exact; "
		      "performance is the emulator's prediction of the time "
		      "on a GPU, not a measurement.\n", b.f);
	if (results_internal(r, exit_status))
		fputs("\n**An exercise hit an internal error of the grader "
		      "(XX)**: not your fault; it will be regraded.\n", b.f);
	return formats_buf_finish(&b);
}
