/*
 * Integration views of the grading result (see formats.h).  The schemas
 * each view follows are written down in tests/schemas/, and
 * tests/check_formats.c parses every view back and validates it against
 * them.
 */
#include "formats.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "report.h"
#include "result_json.h"
#include "util.h"

static const char *const kind_names[FORMAT_COUNT] = {
	[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json",
	[FORMAT_GRADESCOPE] = "gradescope", [FORMAT_AUTOLAB] = "autolab",
	[FORMAT_PRAIRIELEARN] = "prairielearn", [FORMAT_JUNIT] = "junit",
	[FORMAT_HTML] = "html",
};

static const char *const kind_suffixes[FORMAT_COUNT] = {
	[FORMAT_TEXT] = ".txt", [FORMAT_JSON] = ".json",
	[FORMAT_GRADESCOPE] = ".gradescope.json",
	[FORMAT_AUTOLAB] = ".autolab.txt",
	[FORMAT_PRAIRIELEARN] = ".prairielearn.json",
	[FORMAT_JUNIT] = ".junit.xml",
	[FORMAT_HTML] = ".html",
};

int formats_parse(const char *name)
{
	for (int i = 0; i < FORMAT_COUNT; i++)
		if (!strcmp(kind_names[i], name))
			return i;
	return -1;
}

const char *formats_name(enum format_kind k)
{
	return (unsigned)k < FORMAT_COUNT ? kind_names[k] : "?";
}

const char *formats_suffix(enum format_kind k)
{
	return (unsigned)k < FORMAT_COUNT ? kind_suffixes[k] : ".out";
}

/* ---- figures ---- */

double results_geomean_speedup(const struct grade_result *r)
{
	double logsum = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->nex; i++) {
		double s = r->ex[i].speedup;

		if (isfinite(s) && s > 0) {
			logsum += log(s);
			n++;
		}
	}
	return n ? exp(logsum / (double)n) : NAN;
}

double results_best_bandwidth(const struct grade_result *r)
{
	double best = NAN;

	for (size_t i = 0; i < r->nex; i++) {
		double b = r->ex[i].bandwidth_fraction;

		if (isfinite(b) && (isnan(best) || b > best))
			best = b;
	}
	return best;
}

double results_mean_bandwidth(const struct grade_result *r)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->nex; i++) {
		double b = r->ex[i].bandwidth_fraction;

		if (isfinite(b)) {
			sum += b;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

int results_internal(const struct grade_result *r, int exit_status)
{
	if (exit_status == GRADE_INTERNAL)
		return 1;
	for (size_t i = 0; i < r->nex; i++)
		if (r->ex[i].status == STATUS_XX)
			return 1;
	return 0;
}

/* ---- shared helpers ---- */

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

static double round2(double v)
{
	return round(v * 100) / 100;
}

/* Text that may come from the submission; NULL is an empty string. */
static json_t *jtext(const char *s)
{
	return result_json_text(s ? s : "");
}

/* A growing string on top of open_memstream. */
struct sbuf {
	char *buf;
	size_t len;
	FILE *f;
};

static void sb_init(struct sbuf *b)
{
	b->buf = NULL;
	b->len = 0;
	b->f = open_memstream(&b->buf, &b->len);
	if (!b->f)
		die("out of memory");
}

static char *sb_finish(struct sbuf *b)
{
	if (fclose(b->f))
		die("out of memory");
	return b->buf;
}

static int ran(const struct exercise_result *e)
{
	return e->status != STATUS_CE && e->status != STATUS_MISSING &&
	       e->status != STATUS_REJECTED && e->status != STATUS_XX;
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

/* Bytes of the control character or noncharacter formats_inert
 * replaces at p (valid UTF-8), or 0. */
static size_t inert_len(const unsigned char *p)
{
	if (*p < 0x20 || *p == 0x7f)
		return 1;
	if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
		return 2;
	if (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
		return 3;
	return 0;
}

char *formats_inert(const char *s, const char *keep, const char *rep)
{
	char *clean = utf8_sanitize(s ? s : "");
	size_t rl = strlen(rep);
	char *out = xmalloc(strlen(clean) * (rl > 1 ? rl : 1) + 1), *o = out;
	const unsigned char *p = (const unsigned char *)clean;

	while (*p) {
		size_t n = inert_len(p);

		if (n == 1 && strchr(keep, *p))
			n = 0;
		if (!n) {
			*o++ = (char)*p++;
			continue;
		}
		memcpy(o, rep, rl);
		o += rl;
		p += n;
	}
	*o = '\0';
	free(clean);
	return out;
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

void formats_md_text(FILE *f, const char *s)
{
	char *clean = formats_inert(s, "\t\n\r", FORMATS_REPLACEMENT);

	for (const char *p = clean; *p; p++) {
		if (strchr("\t\n\r", *p)) {
			fputc(' ', f);
			continue;
		}
		if (strchr("\\`*_[]<>#|&", *p))
			fputc('\\', f);
		fputc(*p, f);
	}
	free(clean);
}

/* Plain text inside markdown (formats.h), under a short name. */
#define md_text formats_md_text

/* ---- the parts of an exercise, as tests ---- */

/* One test of the flattened list all test-based views share:
 * correctness, each technique check, performance. */
struct part {
	char name[160];
	double score, max;
	int status;      /* 1 passed, 0 failed, -1 neither (informational) */
	char *message;   /* one line */
	char *output;    /* markdown */
};

/* Pattern, location and cells of a first failure, in markdown. */
static void md_failure(FILE *f, const struct exercise *ex,
		       const struct failure *ff)
{
	struct sbuf g;
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
	sb_init(&g);
	report_failure_grid(g.f, ex, ff);
	grid = sb_finish(&g);
	md_code(f, grid, 65536);
	free(grid);
}

static void correctness_part(const struct exercise_result *e,
			     const struct part_max *pm, struct part *p)
{
	struct sbuf b;
	const struct failure *ff = &e->first_failure;

	snprintf(p->name, sizeof(p->name), "%s: correctness", e->ex->name);
	p->score = round2(e->score_correctness);
	p->max = round2(pm->correctness);
	p->status = ran(e) && e->total && e->passed == e->total;
	sb_init(&b);
	fprintf(b.f, "**%s** (%s)", status_name(e->status),
		status_meaning(e->status));
	if (e->message && *e->message && e->status != STATUS_OK &&
	    strcmp(e->message, status_meaning(e->status))) {
		fputs(": ", b.f);
		md_text(b.f, e->message);
	}
	fputs("\n\n", b.f);
	if (ran(e)) {
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
		struct sbuf w;
		char *t;

		sb_init(&w);
		for (size_t i = 0; i < e->nwarnings; i++)
			fprintf(w.f, "%5lu x %s\n", e->warnings[i].count,
				e->warnings[i].text);
		t = sb_finish(&w);
		fputs("\nThe emulator's messages (the first of each kind, at "
		      "most one per launch):\n", b.f);
		md_code(b.f, t, 8192);
		free(t);
	}
	p->output = sb_finish(&b);
	p->message = xstrfmt("%s: %s", status_name(e->status),
			     ran(e) ? "" : status_meaning(e->status));
	if (ran(e)) {
		free(p->message);
		p->message = xstrfmt("%s: %zu/%zu shapes correct",
				     status_name(e->status), e->passed,
				     e->total);
	}
}

static void check_part(const struct exercise_result *e,
		       const struct part_max *pm, size_t k, struct part *p)
{
	const struct check_result *c = &e->checks[k];
	double each = pm->technique / (double)e->nchecks;
	struct sbuf b;

	snprintf(p->name, sizeof(p->name), "%s: technique: %s", e->ex->name,
		 c->name);
	/* technique points count once the sweep passes (score.c); they are
	 * shared equally among the passed checks */
	p->score = c->passed == 1 && e->score_technique > 0 ? round2(each) :
		   0;
	p->max = round2(each);
	p->status = c->passed == 1 ? 1 : 0;
	sb_init(&b);
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
	p->output = sb_finish(&b);
	p->message = xstrfmt("%s", check_mark(c->passed));
}

static void technique_missing_part(const struct exercise_result *e,
				   const struct part_max *pm, struct part *p)
{
	snprintf(p->name, sizeof(p->name), "%s: technique", e->ex->name);
	p->score = round2(e->score_technique);
	p->max = round2(pm->technique);
	p->status = 0;
	p->message = xstrfmt("not checked: %s", status_meaning(e->status));
	p->output = xstrfmt("Not checked: the exercise did not run (%s).\n",
			    status_name(e->status));
}

static void performance_part(const struct exercise_result *e,
			     const struct part_max *pm, struct part *p)
{
	struct sbuf b;

	snprintf(p->name, sizeof(p->name), "%s: performance", e->ex->name);
	p->score = round2(e->score_performance);
	p->max = round2(pm->performance);
	p->status = -1;
	sb_init(&b);
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
	} else if (!strcmp(e->perf_model, "traffic") &&
		   isfinite(e->speedup)) {
		fprintf(b.f, "Emulator traffic model (no GPU): **%.2fx** "
			"the reference's efficiency (global sectors and "
			"shared wavefronts, not time).\n", e->speedup);
	} else if (!strcmp(e->perf_model, "bandwidth")) {
		fprintf(b.f, "%.3f ms; measured against the device's copy "
			"bandwidth, not the reference.\n", e->student_ms);
	} else {
		fputs("Not measured", b.f);
		if (!ran(e) || e->passed < e->total)
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
	p->output = sb_finish(&b);
	if (isfinite(e->speedup))
		p->message = xstrfmt("speedup %.2fx", e->speedup);
	else if (isfinite(e->bandwidth_fraction))
		p->message = xstrfmt("%.0f%% of copy bandwidth",
				     100 * e->bandwidth_fraction);
	else
		p->message = xstrdup("not measured");
}

/* The flattened tests of a result; *n receives the count. */
static struct part *parts_of(const struct grade_result *r,
			     const struct score_config *cfg, size_t *n)
{
	struct part *p;
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

static void parts_free(struct part *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].message);
		free(p[i].output);
	}
	free(p);
}

/* The whole result as markdown, for the top of a report. */
static char *summary_md(const struct grade_result *r, int exit_status)
{
	struct sbuf b;

	sb_init(&b);
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
		return sb_finish(&b);
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
	return sb_finish(&b);
}

/* ---- Gradescope ---- */

static json_t *num_or_zero(double v)
{
	return json_real(isfinite(v) ? round(v * 1000) / 1000 : 0);
}

char *formats_gradescope(const struct grade_result *r,
			 const struct score_config *cfg, int exit_status)
{
	json_t *root, *tests, *board, *extra;
	struct part *p;
	size_t n = 0;
	char *summary = summary_md(r, exit_status);
	double best = results_best_bandwidth(r);

	tests = json_array();
	if (r->error) {
		json_array_append_new(tests, json_pack(
			"{s:s, s:f, s:f, s:s, s:o, s:s, s:s}",
			"name", "submission", "score", 0.0,
			"max_score", r->max_score, "status", "failed",
			"output", jtext(summary), "output_format", "md",
			"visibility", "visible"));
	}
	p = r->error ? NULL : parts_of(r, cfg, &n);
	for (size_t i = 0; i < n; i++) {
		char tag[160], *colon;
		json_t *t;

		/* the tag is the exercise: the test name up to ':' */
		snprintf(tag, sizeof(tag), "%s", p[i].name);
		colon = strchr(tag, ':');
		if (colon)
			*colon = '\0';
		t = json_pack("{s:s, s:f, s:f, s:o, s:s, s:s, s:[s]}",
			      "name", p[i].name, "score", p[i].score,
			      "max_score", p[i].max,
			      "output", jtext(p[i].output),
			      "output_format", "md", "visibility", "visible",
			      "tags", tag);
		if (p[i].status >= 0)
			json_object_set_new(t, "status", json_string(
				p[i].status ? "passed" : "failed"));
		json_array_append_new(tests, t);
	}
	parts_free(p, n);
	board = json_pack("[{s:s, s:o, s:s}, {s:s, s:o, s:s}, "
			  "{s:s, s:o, s:s}]",
			  "name", "Total score", "value",
			  num_or_zero(r->score), "order", "desc",
			  "name", "Speedup (geometric mean)", "value",
			  num_or_zero(results_geomean_speedup(r)),
			  "order", "desc",
			  "name", "Best bandwidth %", "value",
			  num_or_zero(isfinite(best) ? 100 * best : NAN),
			  "order", "desc");
	extra = json_pack("{s:s, s:s, s:s, s:I, s:i}",
			  "tool", WG_TOOL " " WG_VERSION,
			  "backend", r->backend ? r->backend : "none",
			  "device", r->device ? r->device : "none",
			  "seed", (json_int_t)r->seed,
			  "exit_status", exit_status);
	root = json_pack("{s:f, s:i, s:o, s:s, s:s, s:s, s:s, s:o, s:o, "
			 "s:o}",
			 "score", round2(r->score),
			 "execution_time", (int)lround(r->seconds),
			 "output", jtext(summary),
			 "output_format", "md",
			 "test_output_format", "md",
			 "visibility", "visible",
			 "stdout_visibility", "hidden",
			 "tests", tests,
			 "leaderboard", board,
			 "extra_data", extra);
	free(summary);
	return result_json_dump(root);
}

/* ---- Autolab ---- */

char *formats_autolab(const struct grade_result *r,
		      const struct score_config *cfg, int exit_status)
{
	struct sbuf b;
	json_t *scores, *board, *line;
	char *s;
	double g = results_geomean_speedup(r);
	double best = results_best_bandwidth(r);

	(void)cfg;
	sb_init(&b);
	report_text(b.f, r, 0);
	if (results_internal(r, exit_status)) {
		/* no score line: Autolab then reports the job as failed
		 * instead of recording a zero, and it can be regraded */
		fputs("\nwarpgrade: internal error of the grader; no score "
		      "recorded (regrade this submission)\n", b.f);
		return sb_finish(&b);
	}
	scores = json_object();
	if (r->nex) {
		for (size_t i = 0; i < r->nex; i++)
			json_object_set_new(scores, r->ex[i].ex->name,
					    json_real(round2(
						    r->ex[i].score)));
	} else {
		for (size_t i = 0; i < exercise_count(); i++)
			json_object_set_new(scores, exercise_table[i]->name,
					    json_real(0));
	}
	board = json_pack("[f, f, f]", round2(r->score),
			  isfinite(g) ? round(g * 1000) / 1000 : 0.0,
			  isfinite(best) ? round(best * 1000) / 10 : 0.0);
	for (size_t i = 0; i < exercise_count(); i++) {
		double v = 0;

		for (size_t k = 0; k < r->nex; k++)
			if (r->ex[k].ex == exercise_table[i])
				v = r->ex[k].score;
		json_array_append_new(board, json_real(round2(v)));
	}
	line = json_pack("{s:o, s:o}", "scores", scores, "scoreboard", board);
	s = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER |
			     JSON_REAL_PRECISION(10));
	json_decref(line);
	if (!s)
		BUG("cannot serialise the Autolab score line");
	/* the score line is the last line of the autoresult */
	fprintf(b.f, "%s\n", s);
	free(s);
	return sb_finish(&b);
}

/* ---- PrairieLearn ---- */

char *formats_prairielearn(const struct grade_result *r,
			   const struct score_config *cfg, int exit_status)
{
	json_t *root, *tests;
	struct part *p;
	size_t n = 0;
	char *summary = summary_md(r, exit_status);
	char *text = NULL;
	struct sbuf b;

	sb_init(&b);
	report_text(b.f, r, 0);
	text = sb_finish(&b);
	if (r->error || results_internal(r, exit_status)) {
		/* not gradable: no points awarded or lost, no attempt used
		 * (the grader's fault, or nothing to grade at all) */
		const char *why = r->error ? r->error :
			"an exercise hit an internal error of the grader";
		char *fe = results_internal(r, exit_status) ?
			xstrfmt("internal error of the grader (not your "
				"submission's fault): %s", why) :
			xstrdup(why);

		root = json_pack("{s:b, s:[o], s:o, s:o}",
				 "gradable", 0,
				 "format_errors", jtext(fe),
				 "message", jtext(fe),
				 "output", jtext(text));
		free(fe);
		goto out;
	}
	tests = json_array();
	p = parts_of(r, cfg, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(tests, json_pack(
			"{s:s, s:f, s:f, s:o, s:o}",
			"name", p[i].name, "points", p[i].score,
			"max_points", p[i].max,
			"message", jtext(p[i].message),
			"output", jtext(p[i].output)));
	parts_free(p, n);
	root = json_pack("{s:b, s:f, s:o, s:o, s:o}",
			 "gradable", 1,
			 "score", r->max_score > 0 ?
				  fmin(1, fmax(0, r->score / r->max_score)) :
				  0.0,
			 "message", jtext(summary),
			 "output", jtext(text),
			 "tests", tests);
out:
	free(summary);
	free(text);
	return result_json_dump(root);
}

/* ---- JUnit XML ---- */

void formats_markup_text(FILE *f, const char *s)
{
	char *clean = formats_inert(s, "\t\n\r", FORMATS_REPLACEMENT);

	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
	free(clean);
}

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
	if (!ran(e)) {
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

static void junit_exercise(FILE *f, const struct grade_result *r,
			   const struct exercise_result *e,
			   const struct score_config *cfg)
{
	size_t tests, fail, err, skip;
	struct part_max pm = part_max(cfg, e);
	char buf[256];
	char *body;
	const struct failure *ff = &e->first_failure;

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

	/* correctness */
	if (e->status == STATUS_XX) {
		junit_case(f, e, "correctness", "error",
			   "internal error of the grader (not the "
			   "submission's fault)", e->message, e->seconds);
	} else if (!ran(e)) {
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

	/* technique */
	for (size_t k = 0; k < e->nchecks; k++) {
		const struct check_result *c = &e->checks[k];
		char *name = xstrfmt("technique: %s", c->name);

		if (!ran(e))
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
		junit_case(f, e, "technique", "skipped", ran(e) ?
			   "not measured" : "not run", NULL, 0);

	/* performance */
	if (!ran(e)) {
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
	(void)pm;
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
	struct sbuf b;
	size_t tests = 0, fail = 0, err = 0, skip = 0;

	sb_init(&b);
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
		junit_exercise(b.f, r, &r->ex[i], cfg);
	fputs("</testsuites>\n", b.f);
	return sb_finish(&b);
}

char *formats_render(enum format_kind k, const struct grade_result *r,
		     const struct score_config *cfg, int exit_status,
		     int colour)
{
	struct sbuf b;

	switch (k) {
	case FORMAT_TEXT:
		sb_init(&b);
		report_text(b.f, r, colour);
		return sb_finish(&b);
	case FORMAT_JSON:
		return result_json(r);
	case FORMAT_GRADESCOPE:
		return formats_gradescope(r, cfg, exit_status);
	case FORMAT_AUTOLAB:
		return formats_autolab(r, cfg, exit_status);
	case FORMAT_PRAIRIELEARN:
		return formats_prairielearn(r, cfg, exit_status);
	case FORMAT_JUNIT:
		return formats_junit(r, cfg, exit_status);
	case FORMAT_HTML:
		sb_init(&b);
		report_html(b.f, r);
		return sb_finish(&b);
	default:
		BUG("unknown format %d", (int)k);
	}
}
