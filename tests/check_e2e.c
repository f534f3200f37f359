/*
 * End-to-end grading cases as data: every tests/fixtures/<case>/ holds a
 * submission and the verdicts it must get (`expected`: lines
 * "<exercise> <STATUS>" and "score <exercise> <min> <max>").  Each case
 * is graded by bin/warpgrade in a child process (the test never calls
 * CUDA) on the emulator, or on the GPU when WARPGRADE_TEST_BACKEND=cuda.
 * The student template's stubs must fail honestly.  Each case's text
 * report is rendered from its JSON read back, and the lines naming a
 * source line, a first failure or a pattern are checked in both; a
 * source line must come with the shape that failed there.  "env
 * NAME=VALUE" in `expected` grades the case with that in the grader's
 * environment.  Each result's "timings" (--timings) name the phases each
 * exercise went through.
 * WARPGRADE_TEST_CASES (names separated by spaces or commas) runs only
 * those cases.
 */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "formats.h"
#include "result.h"
#include "result_json.h"
#include "score.h"

#define MAX_CASES 64

static char *cases[MAX_CASES];
static int ncases;
static const char *backend = "emu";

static json_t *grade(const char *submission, const char *env, int *rc)
{
	char out[] = "/tmp/wg-e2e-XXXXXX";
	int fd = mkstemp(out);
	pid_t pid;
	int status;
	json_error_t je;
	json_t *root;

	ck_assert_int_ge(fd, 0);
	close(fd);
	pid = fork();
	if (pid == 0) {
		/* --timings prints on stderr: the JSON is what is checked */
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 2);
		if (env && *env)
			putenv((char *)env);
		execl("bin/warpgrade", "warpgrade", "grade", submission,
		      "--backend", backend, "--format", "json", "--output",
		      out, "--seed", "20261121", "--quiet", "--timings",
		      (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	*rc = WEXITSTATUS(status);
	root = json_load_file(out, 0, &je);
	ck_assert_msg(root != NULL, "%s: no JSON result (%s), exit %d",
		      submission, je.text, *rc);
	unlink(out);
	return root;
}

static json_t *find_exercise(json_t *root, const char *name)
{
	json_t *arr = json_object_get(root, "exercises"), *e;
	size_t i;

	json_array_foreach(arr, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")),
			    name))
			return e;
	return NULL;
}

/* The text view of a result, rendered from its JSON as batch does. */
static char *text_of(json_t *root)
{
	struct grade_result r;
	struct score_config cfg;
	char *json = json_dumps(root, 0), *text, err[256];

	score_config_default(&cfg);
	result_init(&r);
	ck_assert_msg(!result_json_parse(json, &r, NULL, err, sizeof(err)),
		      "the result does not read back: %s", err);
	text = formats_render(FORMAT_TEXT, &r, &cfg, 0, 0);
	result_release(&r);
	free(json);
	return text;
}

/* No line of the program's output ("      | ...") or of the emulator's
 * messages ("   12 x ...") shows more than three times in a report. */
static void no_line_repeated(const char *name, const char *text)
{
	for (const char *p = text; *p; p += strcspn(p, "\n"),
	     p += *p == '\n') {
		size_t n = strcspn(p, "\n"), copies = 0;

		unsigned long k;
		char x[3];

		/* the program's lines, the emulator's messages */
		if (strncmp(p, "      | ", 8) &&
		    sscanf(p, " %lu %2s ", &k, x) != 2)
			continue;
		if ((strncmp(p, "      | ", 8) && strcmp(x, "x")) ||
		    !strncmp(p, "      | ...", 11))
			continue;
		for (const char *q = text; (q = strstr(q, p)) != NULL; q++)
			if ((q == text || q[-1] == '\n') &&
			    !strncmp(q, p, n) && (q[n] == '\n' || !q[n]))
				copies++;
		ck_assert_msg(copies <= 3, "%s: the report repeats '%.*s' %zu "
			      "times", name, (int)n, p, copies);
	}
}

/* Within one exercise's part of the report (from its status line to
 * the next), no line shows more than three times. */
static void no_line_repeated_in_exercise(const char *name, const char *text)
{
	const char *sec = text;

	while (sec && *sec) {
		const char *end = strstr(sec + 1, "\n\n  ");
		size_t len = end ? (size_t)(end - sec) : strlen(sec);

		for (const char *p = sec; p < sec + len; p += strcspn(p, "\n"),
		     p += *p == '\n') {
			size_t n = strcspn(p, "\n"), copies = 0;

			if (!n)
				continue;
			for (const char *q = sec; q < sec + len;
			     q += strcspn(q, "\n"), q += *q == '\n')
				copies += strcspn(q, "\n") == n &&
					  !strncmp(q, p, n);
			ck_assert_msg(copies <= 3, "%s: one exercise's report "
				      "repeats '%.*s' %zu times", name, (int)n,
				      p, copies);
		}
		sec = end ? end + 2 : NULL;
	}
}

/* Does some failed check, or the first failure's location, name
 * file:line in the JSON?  The check (NULL: the location) into *by. */
static int json_names_line(json_t *e, const char *file, long line,
			   json_t **by)
{
	json_t *checks = json_object_get(json_object_get(e, "technique"),
					 "checks"), *c, *l, *loc;
	size_t i, j;

	*by = NULL;
	json_array_foreach(checks, i, c)
		json_array_foreach(json_object_get(c, "lines"), j, l)
			if (!strcmp(json_string_value(json_object_get(l,
				    "file")), file) &&
			    json_integer_value(json_object_get(l, "line")) ==
			    line) {
				*by = c;
				return 1;
			}
	loc = json_object_get(json_object_get(json_object_get(e,
		"correctness"), "first_failure"), "location");
	return loc && json_string_value(json_object_get(loc, "file")) &&
	       !strcmp(json_string_value(json_object_get(loc, "file")),
		       file) &&
	       json_integer_value(json_object_get(loc, "line")) == line;
}

/* The text names shape #index (m x n) after `lead` on one line. */
static void text_names_shape(const char *name, const char *text,
			     const char *lead, json_t *o, const char *key)
{
	long long idx = json_integer_value(json_object_get(o, key));
	long long m = json_integer_value(json_object_get(o, "m"));
	long long n = json_integer_value(json_object_get(o, "n"));
	char want[96], dims[64];
	const char *at, *eol;

	ck_assert_msg(json_is_integer(json_object_get(o, key)), "%s: no %s "
		      "in the JSON", name, key);
	snprintf(want, sizeof(want), "%s #%lld (", lead, idx);
	at = strstr(text, want);
	ck_assert_msg(at != NULL, "%s: the text does not say '%s':\n%s",
		      name, want, text);
	eol = at + strcspn(at, "\n");
	snprintf(dims, sizeof(dims), "=%lld, ", m);
	ck_assert_msg(strstr(at, dims) && strstr(at, dims) < eol,
		      "%s: '%s' without m=%lld", name, want, m);
	snprintf(dims, sizeof(dims), "=%lld)", n);
	ck_assert_msg(strstr(at, dims) && strstr(at, dims) < eol,
		      "%s: '%s' without n=%lld", name, want, n);
}

/* One line of `expected` against the result; 1 when it was an item. */
static int check_item(const char *name, json_t *root, const char *text,
		      const char *line)
{
	char a[64], b[64], c[64];
	double lo, hi;
	long n;
	json_t *e, *ff;

	if (sscanf(line, "score %63s %lf %lf", a, &lo, &hi) == 3) {
		double s;

		e = find_exercise(root, a);
		ck_assert_msg(e != NULL, "%s: no %s", name, a);
		s = json_number_value(json_object_get(e, "score"));
		ck_assert_msg(s >= lo && s <= hi, "%s: %s scored %.2f, "
			      "expected %g..%g", name, a, s, lo, hi);
		return 1;
	}
	if (sscanf(line, "line %63s %ld", a, &n) == 2) {
		char file[80], where[96];
		json_t *by;

		e = find_exercise(root, a);
		ck_assert_msg(e != NULL, "%s: no %s", name, a);
		snprintf(file, sizeof(file), "%s.cu", a);
		snprintf(where, sizeof(where), "%s:%ld", file, n);
		ck_assert_msg(json_names_line(e, file, n, &by), "%s: the JSON "
			      "of %s does not name %s", name, a, where);
		ck_assert_msg(strstr(text, where), "%s: the text does not "
			      "name %s:\n%s", name, where, text);
		/* and the shape that failed there, with its index */
		if (by)
			text_names_shape(name, text, "first failing shape:",
					 by, "shape_index");
		else
			text_names_shape(name, text, "first failure: shape",
					 json_object_get(json_object_get(e,
					 "correctness"), "first_failure"),
					 "index");
		return 1;
	}
	if (sscanf(line, "found_by %63s", a) == 1) {
		const char *t = line + 9 + strlen(a), *got;
		char want[160];

		t += strspn(t, " ");
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(t, "\n"), t);
		e = find_exercise(root, a);
		ck_assert_msg(e != NULL, "%s: no %s", name, a);
		got = json_string_value(json_object_get(json_object_get(
			json_object_get(json_object_get(e, "correctness"),
			"first_failure"), "location"), "found_by"));
		ck_assert_msg(got && strstr(got, want), "%s: %s's location "
			      "was found by '%s', expected '%s'", name, a,
			      got ? got : "the run", want);
		ck_assert_msg(strstr(text, want), "%s: the text does not say "
			      "'%s':\n%s", name, want, text);
		return 1;
	}
	if (sscanf(line, "failure %63s %63s %63s", a, b, c) == 3) {
		char want[96];

		e = find_exercise(root, a);
		ck_assert_msg(e != NULL, "%s: no %s", name, a);
		ff = json_object_get(json_object_get(e, "correctness"),
				     "first_failure");
		ck_assert_msg(json_is_object(ff), "%s: %s has no first "
			      "failure", name, a);
		ck_assert_msg(!strcmp(json_string_value(json_object_get(ff,
			      "shape")), b), "%s: %s first fails at %s, "
			      "expected %s", name, a, json_string_value(
			      json_object_get(ff, "shape")), b);
		text_names_shape(name, text, "first failure: shape", ff,
				 "index");
		if (strcmp(c, "-")) {
			ck_assert_msg(json_integer_value(json_object_get(ff,
				      "element")) == atoll(c), "%s: %s first "
				      "fails at element %lld, expected %s",
				      name, a, (long long)json_integer_value(
				      json_object_get(ff, "element")), c);
			snprintf(want, sizeof(want), "element %s", c);
			ck_assert_msg(strstr(text, want), "%s: the text does "
				      "not name %s:\n%s", name, want, text);
		}
		return 1;
	}
	if (sscanf(line, "pattern %63s %63s", a, b) == 2) {
		char want[96];
		const char *got;

		e = find_exercise(root, a);
		ck_assert_msg(e != NULL, "%s: no %s", name, a);
		ff = json_object_get(json_object_get(e, "correctness"),
				     "first_failure");
		got = json_string_value(json_object_get(ff, "pattern"));
		ck_assert_msg(got && !strcmp(got, b), "%s: %s's pattern is "
			      "%s, expected %s", name, a, got ? got : "none",
			      b);
		snprintf(want, sizeof(want), "pattern: %s", b);
		ck_assert_msg(strstr(text, want), "%s: the text does not say "
			      "%s:\n%s", name, want, text);
		return 1;
	}
	if (!strncmp(line, "says", 4) && (line[4] == ' ' || line[4] == '@')) {
		const char *t = line + 5;
		char want[256];

		if (line[4] == '@') {
			size_t k = strcspn(t, " ");

			if (strlen(backend) != k || strncmp(t, backend, k))
				return 1; /* said on another backend only */
			t += k + (t[k] == ' ');
		}
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(t, "\n"), t);
		ck_assert_msg(strstr(text, want), "%s: the text does not say "
			      "'%s':\n%s", name, want, text);
		return 1;
	}
	if (sscanf(line, "backend %63s", a) == 1 ||
	    sscanf(line, "env %63s", a) == 1)
		return 1; /* fixture_case read it before grading */
	if (sscanf(line, "%63s %63s", a, b) == 2 && a[0] != '#') {
		const char *got;

		e = find_exercise(root, a);
		ck_assert_msg(e != NULL, "%s: no %s", name, a);
		got = json_string_value(json_object_get(e, "status"));
		ck_assert_msg(!strcmp(got, b), "%s: %s is %s (%s), expected "
			      "%s", name, a, got, json_string_value(
			      json_object_get(e, "message")), b);
		return 1;
	}
	return 0;
}

/* A case whose `expected` says "backend emu" holds on that backend only
 * (a missing barrier goes unnoticed on a GPU when the warps happen to
 * run in order). */
static int for_backend(const char *name)
{
	char path[512], line[256], want[64];
	FILE *f;
	int ok = 1;

	snprintf(path, sizeof(path), "tests/fixtures/%s/expected", name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "backend %63s", want) == 1)
			ok = !strcmp(want, backend);
	fclose(f);
	if (!ok)
		printf("SKIP %s: expected on the %s backend only\n", name,
		       want);
	return ok;
}

/* "timings": the submission's phases, and each exercise that was
 * compiled has its compile and (unless it did not compile) its symbol
 * check, every value a number of seconds. */
static void check_timings(const char *name, json_t *root)
{
	json_t *t = json_object_get(root, "timings"), *e, *v;
	const char *k;
	size_t i;

	ck_assert_msg(json_is_object(t) && json_object_get(t, "intake"),
		      "%s: no timings of the submission", name);
	json_array_foreach(json_object_get(root, "exercises"), i, e) {
		const char *st = json_string_value(json_object_get(e,
							"status"));
		int compiled = 0, checked = 0;

		t = json_object_get(e, "timings");
		if (!strcmp(st, "MISSING"))
			continue;
		ck_assert_msg(json_is_object(t), "%s: an exercise without "
			      "timings", name);
		json_object_foreach(t, k, v) {
			ck_assert(json_is_number(v) &&
				  json_number_value(v) >= 0);
			compiled |= !strncmp(k, "compile ", 8);
			checked |= !strcmp(k, "symbol check");
		}
		ck_assert_msg(compiled && (checked || !strcmp(st, "CE")),
			      "%s: timings without a compile or a symbol "
			      "check", name);
	}
}

/* The case's "env NAME=VALUE" line, if any, into env. */
static void case_env(const char *name, char *env, size_t len)
{
	char path[512], line[256];
	FILE *f;

	*env = '\0';
	snprintf(path, sizeof(path), "tests/fixtures/%s/expected", name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "env ", 4))
			snprintf(env, len, "%.*s", (int)strcspn(line + 4,
				 "\n"), line + 4);
	fclose(f);
}

START_TEST(fixture_case)
{
	const char *name = cases[_i];
	char path[512], line[256], env[256];
	FILE *f;
	json_t *root;
	char *text;
	int rc, lines = 0;

	if (!for_backend(name))
		return;
	case_env(name, env, sizeof(env));
	snprintf(path, sizeof(path), "tests/fixtures/%s/submission", name);
	root = grade(path, env, &rc);
	ck_assert_msg(rc == 0, "%s: exit status %d", name, rc);
	check_timings(name, root);
	text = text_of(root);
	no_line_repeated(name, text);
	no_line_repeated_in_exercise(name, text);
	snprintf(path, sizeof(path), "tests/fixtures/%s/expected", name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		lines += check_item(name, root, text, line);
	fclose(f);
	ck_assert_int_gt(lines, 0);
	free(text);
	json_decref(root);
}
END_TEST

START_TEST(stubs_fail_honestly)
{
	json_t *root, *e;
	size_t i;
	int rc;

	root = grade("student_template", NULL, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(json_array_size(json_object_get(root,
		"exercises")), 4);
	json_array_foreach(json_object_get(root, "exercises"), i, e) {
		const char *st = json_string_value(json_object_get(e,
			"status"));

		ck_assert_msg(strcmp(st, "OK") && strcmp(st, "TECH") &&
			      strcmp(st, "XX") && strcmp(st, "CE"),
			      "stub %s is %s",
			      json_string_value(json_object_get(e, "name")),
			      st);
		ck_assert(json_number_value(json_object_get(e, "score")) < 1);
	}
	json_decref(root);
}
END_TEST

START_TEST(unusable_submissions)
{
	json_t *root;
	int rc;

	root = grade("tests/fixtures", NULL, &rc); /* no exercise file at top */
	ck_assert_int_eq(rc, 1);
	ck_assert_ptr_nonnull(json_object_get(root, "error"));
	json_decref(root);
}
END_TEST

/* WARPGRADE_TEST_CASES="a b": only those fixtures (all when unset). */
static int wanted(const char *name)
{
	const char *only = getenv("WARPGRADE_TEST_CASES");
	size_t n = strlen(name);

	for (const char *p = only; p && *p; p += strcspn(p, " ,")) {
		p += strspn(p, " ,");
		if (!strncmp(p, name, n) && (p[n] == '\0' || p[n] == ' ' ||
					     p[n] == ','))
			return 1;
	}
	return !only || !*only;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	Suite *s = suite_create("end to end");
	TCase *t = tcase_create("fixtures");
	TCase *u = tcase_create("unusable");
	SRunner *sr;
	DIR *d;
	struct dirent *e;
	char why[256];
	const char *env = getenv("WARPGRADE_TEST_BACKEND");
	int failed;

	char cwd[4096];

	/* the tests run from the tree root: make paths.c see it */
	if (getcwd(cwd, sizeof(cwd)))
		setenv("WARPGRADE_ROOT", cwd, 0);
	if (env && *env)
		backend = env;
	if (!strcmp(backend, "emu") && !build_emu_available(why,
							     sizeof(why))) {
		printf("SKIP end-to-end grading: emulator not available: "
		       "%s\n", why);
		return 0;
	}
	d = opendir("tests/fixtures");
	while (d && (e = readdir(d)) != NULL && ncases < MAX_CASES) {
		char p[512];

		snprintf(p, sizeof(p), "tests/fixtures/%s/expected",
			 e->d_name);
		if (e->d_name[0] != '.' && !access(p, R_OK) &&
		    wanted(e->d_name))
			cases[ncases++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	qsort(cases, (size_t)ncases, sizeof(char *), cmp);
	tcase_add_loop_test(t, fixture_case, 0, ncases);
	tcase_add_test(t, stubs_fail_honestly);
	tcase_add_test(u, unusable_submissions);
	tcase_set_timeout(t, 900);
	tcase_set_timeout(u, 60);
	suite_add_tcase(s, t);
	suite_add_tcase(s, u);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
