/*
 * The JUnit XML view, for CI systems and test dashboards: one testsuite
 * per exercise with its points as properties, and one testcase each for
 * correctness, every technique check and performance.  The student's
 * faults are failures, the grader's own (XX) an error, what did not run
 * or was not measured skipped.  Schema: tests/schemas/junit.xsd.
 */
#include "formats_view.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static void xml_prop(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	formats_markup_text(f, value);
	fputs("\"/>\n", f);
}

static void junit_case(FILE *f, const struct exercise_result *e,
		       const char *name, const char *kind, const char *msg,
		       const char *body, double secs)
{
	fprintf(f, "    <testcase classname=\"warpgrade.%s\" name=\"",
		e->ex->name);
	formats_markup_text(f, name);
	fprintf(f, "\" time=\"%.3f\"", secs);
	if (!kind) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (!strcmp(kind, "skipped")) {
		fputs("      <skipped message=\"", f);
		formats_markup_text(f, msg);
		fputs("\"/>\n", f);
	} else {
		fprintf(f, "      <%s message=\"", kind);
		formats_markup_text(f, msg);
		fprintf(f, "\" type=\"%s\">", status_name(e->status));
		formats_markup_text(f, body && *body ? body : msg);
		fprintf(f, "</%s>\n", kind);
	}
	fputs("    </testcase>\n", f);
}

static void junit_counts(const struct exercise_result *e, size_t *tests,
			 size_t *fail, size_t *err, size_t *skip)
{
	*tests = 3 + (e->nchecks ? e->nchecks - 1 : 0);
	*fail = *err = *skip = 0;
	if (e->status == STATUS_XX) {
		*err = 1;
		*skip = *tests - 1;
		return;
	}
	if (!formats_ran(e)) {
		*fail = 1;
		*skip = *tests - 1;
		return;
	}
	if (!(e->total && e->passed == e->total))
		(*fail)++;
	for (size_t k = 0; k < e->nchecks; k++) {
		if (e->checks[k].passed == 0)
			(*fail)++;
		else if (e->checks[k].passed < 0)
			(*skip)++;
	}
	if (!e->nchecks)
		(*skip)++;
	if (e->nflags)
		(*fail)++;
	else if (isnan(e->speedup) && isnan(e->bandwidth_fraction))
		(*skip)++;
}

/* The opening tag of an exercise's testsuite and its properties: the
 * points of each part, the figures, where it ran. */
static void junit_properties(FILE *f, const struct grade_result *r,
			     const struct exercise_result *e)
{
	size_t tests, fail, err, skip;
	char buf[256];

	junit_counts(e, &tests, &fail, &err, &skip);
	fprintf(f, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"", e->ex->name,
		tests, fail, err, skip, isfinite(e->seconds) ?
		e->seconds : 0.0);
	if (r->generated && *r->generated) {
		/* JUnit timestamps carry no zone designator */
		snprintf(buf, sizeof(buf), "%.19s", r->generated);
		fputs(" timestamp=\"", f);
		formats_markup_text(f, buf);
		fputc('"', f);
	}
	fputs(">\n    <properties>\n", f);
	xml_prop(f, "status", status_name(e->status));
	snprintf(buf, sizeof(buf), "%.2f", e->score);
	xml_prop(f, "score", buf);
	snprintf(buf, sizeof(buf), "%.2f", e->max_score);
	xml_prop(f, "max_score", buf);
	snprintf(buf, sizeof(buf), "%.2f", e->score_correctness);
	xml_prop(f, "points_correctness", buf);
	snprintf(buf, sizeof(buf), "%.2f", e->score_technique);
	xml_prop(f, "points_technique", buf);
	snprintf(buf, sizeof(buf), "%.2f", e->score_performance);
	xml_prop(f, "points_performance", buf);
	if (isfinite(e->speedup)) {
		snprintf(buf, sizeof(buf), "%.4g", e->speedup);
		xml_prop(f, "speedup", buf);
	}
	if (isfinite(e->bandwidth_fraction)) {
		snprintf(buf, sizeof(buf), "%.4g", e->bandwidth_fraction);
		xml_prop(f, "bandwidth_fraction", buf);
	}
	xml_prop(f, "backend", r->backend ? r->backend : "none");
	xml_prop(f, "device", r->device ? r->device : "none");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->seed);
	xml_prop(f, "seed", buf);
	fputs("    </properties>\n", f);
}

/* The correctness testcase: an error when the grader failed, a failure
 * (with the compiler's output or the first failure) when the student's
 * code did. */
static void junit_correctness(FILE *f, const struct exercise_result *e)
{
	const struct failure *ff = &e->first_failure;
	char buf[256];
	char *body;

	if (e->status == STATUS_XX) {
		junit_case(f, e, "correctness", "error",
			   "internal error of the grader (not the "
			   "submission's fault)", e->message, e->seconds);
	} else if (!formats_ran(e)) {
		body = xstrfmt("%s%s%s", e->message ? e->message : "",
			       e->compile_log ? "\n" : "",
			       e->compile_log ? e->compile_log : "");
		junit_case(f, e, "correctness", "failure",
			   status_meaning(e->status), body, e->seconds);
		free(body);
	} else if (e->total && e->passed == e->total) {
		junit_case(f, e, "correctness", NULL, NULL, NULL,
			   e->seconds);
	} else {
		snprintf(buf, sizeof(buf), "%s: %zu/%zu shapes correct",
			 status_name(e->status), e->passed, e->total);
		body = ff->present ?
			xstrfmt("first failure: shape #%zu (%s=%lld, "
				"%s=%lld): %s%s%s%s%s\n%s",
				ff->shape_index, e->ex->dim_m,
				(long long)ff->m, e->ex->dim_n,
				(long long)ff->n, ff->reason,
				ff->index >= 0 ? "; expected " : "",
				ff->index >= 0 ? ff->expected : "",
				ff->index >= 0 ? ", got " : "",
				ff->index >= 0 ? ff->got : "",
				e->runner_output ? e->runner_output : "") :
			xstrdup(e->message ? e->message : buf);
		junit_case(f, e, "correctness", "failure", buf, body, 0);
		free(body);
	}
}

/* A testcase per technique check, then the performance testcase. */
static void junit_technique_performance(FILE *f,
					const struct exercise_result *e)
{
	char buf[256];

	for (size_t k = 0; k < e->nchecks; k++) {
		const struct check_result *c = &e->checks[k];
		char *name = xstrfmt("technique: %s", c->name);

		if (!formats_ran(e))
			junit_case(f, e, name, "skipped", "not run", NULL, 0);
		else if (c->passed == 1)
			junit_case(f, e, name, NULL, NULL, NULL, 0);
		else if (c->passed < 0)
			junit_case(f, e, name, "skipped", "not measured",
				   NULL, 0);
		else
			junit_case(f, e, name, "failure", c->detail[0] ?
				   c->detail : "technique check failed",
				   NULL, 0);
		free(name);
	}
	if (!e->nchecks)
		junit_case(f, e, "technique", "skipped", formats_ran(e) ?
			   "not measured" : "not run", NULL, 0);

	if (!formats_ran(e)) {
		junit_case(f, e, "performance", "skipped", "not run", NULL,
			   0);
	} else if (e->nflags) {
		snprintf(buf, sizeof(buf), "no performance credit: %s",
			 e->flags[0]);
		junit_case(f, e, "performance", "failure", buf, NULL, 0);
	} else if (isnan(e->speedup) && isnan(e->bandwidth_fraction)) {
		junit_case(f, e, "performance", "skipped", "not measured",
			   NULL, 0);
	} else {
		junit_case(f, e, "performance", NULL, NULL, NULL, 0);
	}
}

static void junit_exercise(FILE *f, const struct grade_result *r,
			   const struct exercise_result *e)
{
	junit_properties(f, r, e);
	junit_correctness(f, e);
	junit_technique_performance(f, e);
	if (e->runner_output && *e->runner_output) {
		fputs("    <system-out>", f);
		formats_markup_text(f, e->runner_output);
		fputs("</system-out>\n", f);
	}
	fputs("  </testsuite>\n", f);
}

char *formats_junit(const struct grade_result *r,
		    const struct score_config *cfg, int exit_status)
{
	struct formats_buf b;
	size_t tests = 0, fail = 0, err = 0, skip = 0;

	(void)cfg; /* the points are the result's own */
	formats_buf_init(&b);
	for (size_t i = 0; i < r->nex; i++) {
		size_t t, fl, er, sk;

		junit_counts(&r->ex[i], &t, &fl, &er, &sk);
		tests += t;
		fail += fl;
		err += er;
		skip += sk;
	}
	if (r->error) {
		tests++;
		if (results_internal(r, exit_status))
			err++;
		else
			fail++;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", b.f);
	fprintf(b.f, "<testsuites name=\"warpgrade: ");
	formats_markup_text(b.f, r->submission ? r->submission : "?");
	fprintf(b.f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"skipped=\"%zu\" time=\"%.3f\">\n", tests, fail, err, skip,
		isfinite(r->seconds) ? r->seconds : 0.0);
	if (r->error) {
		int internal = results_internal(r, exit_status);

		fprintf(b.f, "  <testsuite name=\"submission\" tests=\"1\" "
			"failures=\"%d\" errors=\"%d\" skipped=\"0\" "
			"time=\"%.3f\">\n", !internal, internal,
			isfinite(r->seconds) ? r->seconds : 0.0);
		fputs("    <properties>\n", b.f);
		xml_prop(b.f, "score", "0.00");
		xml_prop(b.f, "max_score", "0.00");
		fputs("    </properties>\n", b.f);
		fputs("    <testcase classname=\"warpgrade.submission\" "
		      "name=\"intake\" time=\"0.000\">\n", b.f);
		fprintf(b.f, "      <%s message=\"", internal ? "error" :
			"failure");
		formats_markup_text(b.f, r->error);
		fprintf(b.f, "\" type=\"%s\">", internal ? "XX" :
			"unusable");
		formats_markup_text(b.f, r->error);
		fprintf(b.f, "</%s>\n    </testcase>\n  </testsuite>\n",
			internal ? "error" : "failure");
	}
	for (size_t i = 0; i < r->nex; i++)
		junit_exercise(b.f, r, &r->ex[i]);
	fputs("</testsuites>\n", b.f);
	return formats_buf_finish(&b);
}
