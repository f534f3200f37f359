/*
 * The HTML report (report_html.c): a constructed result with a failed
 * technique check that blames a source line and a wrong answer drawn as
 * matrices, its text hostile to HTML.  The page must be self-contained
 * and inert (no script, no image, no external resource, a policy that
 * forbids scripts), and in headless Chromium it must render every
 * exercise, highlight the blamed line and its gutter, and mark the wrong
 * cells (tests/browser/check-report; skipped without Chromium).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "formats.h"
#include "result.h"
#include "score.h"
#include "util.h"

#define HOSTILE "</pre></td></tr></table><script>window.pwned=1</script>" \
	"<img src=x onerror=\"window.pwned=1\">"

#define BLAMED 9

static const char source[] =
	"#include \"coalesced_transpose.h\"\n"
	"// " HOSTILE "\n"
	"__global__ void t(float *out, const float *in, int rows, int cols)\n"
	"{\n"
	"\tint c = blockIdx.x * 32 + threadIdx.x;\n"
	"\tint r = blockIdx.y;\n"
	"\n"
	"\tfloat v = in[(size_t)r * cols + c];\n"
	"\tout[(size_t)c * rows + r] = v;\n"
	"}\n";

static void base(struct exercise_result *e, const char *name,
		 enum status st)
{
	memset(e, 0, sizeof(*e));
	e->ex = exercise_find(name);
	e->status = st;
	e->max_score = 25;
	e->speedup = e->ci_low = e->ci_high = NAN;
	e->student_ms = e->reference_ms = e->bandwidth_fraction = NAN;
	e->first_failure.index = -1;
	e->technique_passed = st == STATUS_TECH ? 0 : -1;
	e->sweep_total = e->total = 4096;
	e->passed = e->sweep_passed = st == STATUS_TECH ? 4096 : 100;
}

static void technique_failure(struct exercise_result *e)
{
	struct line_traffic ld = { 8, 100, 400, 0, 0, 0, 0 };
	struct line_traffic st = { BLAMED, 0, 0, 100, 3200, 0, 0 };
	struct check_result *c;
	struct line_finding *l;

	base(e, "coalesced_transpose", STATUS_TECH);
	e->score = 18;
	e->source = xstrdup(source);
	result_add_profile(e, &ld);
	result_add_profile(e, &st);
	c = result_add_check(e, "coalesced global loads");
	c->passed = 1;
	c = result_add_check(e, "coalesced global stores");
	c->passed = 0;
	c->value = 8;
	c->limit = 1.25;
	l = result_add_line(c);
	snprintf(l->file, sizeof(l->file), "coalesced_transpose.cu");
	l->line = BLAMED;
	snprintf(l->source, sizeof(l->source), "out[(size_t)c * rows + r] "
		 "= v;");
	l->requests = 100;
	l->sectors = 3200;
	l->ideal = 400;
	snprintf(l->why, sizeof(l->why), "consecutive threads store 32 or "
		 "more bytes apart %s", HOSTILE);
	result_add_warning(e, 12, "kernel 't' at x.cu:3: " HOSTILE);
}

static void wrong_answer(struct exercise_result *e)
{
	struct failure *f = &e->first_failure;

	base(e, "dynamic_reverse", STATUS_WA);
	e->score = 1;
	e->runner_output = xstrdup("debug " HOSTILE "\n");
	result_set_message(e, "shape 2: %s", HOSTILE);
	f->present = 1;
	f->m = 2;
	f->n = 3;
	f->index = 2;
	snprintf(f->reason, sizeof(f->reason), "wrong value at element 2");
	snprintf(f->pattern, sizeof(f->pattern), "untouched");
	snprintf(f->pattern_why, sizeof(f->pattern_why), "never written %s",
		 HOSTILE);
	f->win.present = 1;
	f->win.out_rows = f->win.rows = 2;
	f->win.out_cols = f->win.cols = 3;
	f->win.col = 2;
	for (int k = 0; k < 6; k++) {
		f->win.expected[k] = (uint32_t)k;
		f->win.got[k] = k % 3 == 2 ? 0xA5A5A5A5u : (uint32_t)k;
	}
}

static char *page(void)
{
	struct grade_result r;
	struct score_config cfg;
	char *html;

	score_config_default(&cfg);
	result_init(&r);
	r.submission = xstrdup("student " HOSTILE);
	r.backend = xstrdup("emu");
	r.device = xstrdup("warpgrade emulator");
	r.isolation = xstrdup("bubblewrap");
	r.nex = 2;
	r.ex = xcalloc(2, sizeof(*r.ex));
	technique_failure(&r.ex[0]);
	wrong_answer(&r.ex[1]);
	r.score = 19;
	r.max_score = 50;
	html = formats_render(FORMAT_HTML, &r, &cfg, 0, 0);
	result_release(&r);
	return html;
}

/* Every tag of the page is one the view writes: the student's text
 * never opens one. */
static void only_known_tags(const char *html)
{
	static const char *const known[] = {
		"!DOCTYPE", "html", "head", "meta", "title", "style", "body",
		"header", "section", "h1", "h2", "h3", "p", "table", "thead",
		"tbody", "tfoot", "tr", "th", "td", "caption", "a", "span",
		"b", "code", "pre", "ul", "li", "div", "br",
	};

	for (const char *p = strchr(html, '<'); p; p = strchr(p + 1, '<')) {
		const char *name = p + 1 + (p[1] == '/');
		size_t n = strcspn(name, " >"), i;

		for (i = 0; i < sizeof(known) / sizeof(*known); i++)
			if (strlen(known[i]) == n &&
			    !strncmp(known[i], name, n))
				break;
		ck_assert_msg(i < sizeof(known) / sizeof(*known),
			      "unexpected tag <%.*s", (int)n, name);
	}
}

START_TEST(page_is_inert)
{
	char *html = page();

	only_known_tags(html);
	ck_assert_ptr_null(strstr(html, "url("));
	ck_assert_ptr_nonnull(strstr(html, "default-src 'none'"));
	ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;"));
	free(html);
}
END_TEST

/* Run check-report on the page; its probe as JSON, or NULL when the
 * browser is not installed. */
static json_t *probe(const char *outdir)
{
	char path[256], cmd[512], *out, *html = page();
	json_error_t je;
	json_t *v;
	FILE *p;
	size_t len;
	int rc;

	ck_assert_int_eq(mkdir_p(outdir, 0755), 0);
	snprintf(path, sizeof(path), "%s/page.html", outdir);
	ck_assert_int_eq(write_file_atomic(path, html, strlen(html)), 0);
	free(html);
	snprintf(cmd, sizeof(cmd), "tests/browser/check-report %s %s", path,
		 outdir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	out = xmalloc(1 << 16);
	len = fread(out, 1, (1 << 16) - 1, p);
	out[len] = '\0';
	rc = pclose(p);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
		fputs(out, stdout); /* the SKIP line */
		free(out);
		return NULL;
	}
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
		      "check-report failed (see %s/chromium.log)", outdir);
	v = json_loads(out, 0, &je);
	ck_assert_msg(v != NULL, "no probe result from the page: '%s'", out);
	free(out);
	return v;
}

START_TEST(browser_renders_hot_line)
{
	json_t *v = probe("build/tests/report-html"), *s, *t;
	const char *hot, *plain;

	if (!v)
		return;
	ck_assert_uint_eq(json_array_size(json_object_get(v, "errors")), 0);
	ck_assert(json_is_false(json_object_get(v, "pwned")));
	ck_assert_int_eq(json_integer_value(json_object_get(v, "scripts")),
			 1); /* the probe itself */
	ck_assert_int_eq(json_integer_value(json_object_get(v, "images")), 0);
	s = json_object_get(v, "sections");
	ck_assert_uint_eq(json_array_size(s), 2);
	t = json_array_get(s, 0);
	ck_assert_str_eq(json_string_value(json_object_get(t, "id")),
			 "coalesced_transpose");
	/* every source line is shown, the blamed one highlighted */
	ck_assert_int_eq(json_integer_value(json_object_get(t, "lines")), 10);
	ck_assert_uint_eq(json_array_size(json_object_get(t, "hot")), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(
		json_object_get(t, "hot"), 0)), BLAMED);
	hot = json_string_value(json_array_get(json_object_get(t, "hotBg"),
					       0));
	plain = json_string_value(json_object_get(t, "plainBg"));
	ck_assert_str_ne(hot, plain);
	ck_assert_str_ne(hot, "rgba(0, 0, 0, 0)");
	ck_assert_str_ne(json_string_value(json_array_get(
		json_object_get(t, "gutterBg"), 0)), "");
	t = json_array_get(s, 1);
	/* the wrong answer: both matrices, its two wrong cells marked */
	ck_assert_int_eq(json_integer_value(json_object_get(t, "grids")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(t, "badCells")),
			 2);
	ck_assert_int_le(json_integer_value(json_object_get(v, "pageWidth")),
			 json_integer_value(json_object_get(v, "viewport")));
	json_decref(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_html");
	TCase *p = tcase_create("page");
	TCase *b = tcase_create("browser");
	SRunner *sr;
	int failed;

	tcase_add_test(p, page_is_inert);
	tcase_add_test(b, browser_renders_hot_line);
	tcase_set_timeout(p, 10);
	tcase_set_timeout(b, 300);
	suite_add_tcase(s, p);
	suite_add_tcase(s, b);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
