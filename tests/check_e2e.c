/*
 * End-to-end grading cases as data: every tests/fixtures/<case>/ holds a
 * submission and the verdicts it must get (`expected`: lines
 * "<exercise> <STATUS>" and "score <exercise> <min> <max>").  Each case
 * is graded by bin/warpgrade in a child process (the test never calls
 * CUDA) on the emulator, or on the GPU when WARPGRADE_TEST_BACKEND=cuda.
 * The student template's stubs must fail honestly.
 */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"

#define MAX_CASES 64

static char *cases[MAX_CASES];
static int ncases;
static const char *backend = "emu";

static json_t *grade(const char *submission, int *rc)
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
		execl("bin/warpgrade", "warpgrade", "grade", submission,
		      "--backend", backend, "--format", "json", "--output",
		      out, "--seed", "20261121", "--quiet", (char *)NULL);
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

START_TEST(fixture_case)
{
	const char *name = cases[_i];
	char path[512], line[256];
	FILE *f;
	json_t *root;
	int rc, lines = 0;

	snprintf(path, sizeof(path), "tests/fixtures/%s/submission", name);
	root = grade(path, &rc);
	ck_assert_msg(rc == 0, "%s: exit status %d", name, rc);
	snprintf(path, sizeof(path), "tests/fixtures/%s/expected", name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char a[64], b[64];
		double lo, hi;
		json_t *e;

		if (sscanf(line, "score %63s %lf %lf", a, &lo, &hi) == 3) {
			double s;

			e = find_exercise(root, a);
			ck_assert_msg(e != NULL, "%s: no %s", name, a);
			s = json_number_value(json_object_get(e, "score"));
			ck_assert_msg(s >= lo && s <= hi,
				      "%s: %s scored %.2f, expected %g..%g",
				      name, a, s, lo, hi);
			lines++;
		} else if (sscanf(line, "%63s %63s", a, b) == 2 &&
			   a[0] != '#') {
			const char *got;

			e = find_exercise(root, a);
			ck_assert_msg(e != NULL, "%s: no %s", name, a);
			got = json_string_value(json_object_get(e, "status"));
			ck_assert_msg(!strcmp(got, b), "%s: %s is %s (%s), "
				      "expected %s", name, a, got,
				      json_string_value(json_object_get(e,
					"message")), b);
			lines++;
		}
	}
	fclose(f);
	ck_assert_int_gt(lines, 0);
	json_decref(root);
}
END_TEST

START_TEST(stubs_fail_honestly)
{
	json_t *root, *e;
	size_t i;
	int rc;

	root = grade("student_template", &rc);
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

	root = grade("tests/fixtures", &rc); /* no exercise file at top */
	ck_assert_int_eq(rc, 1);
	ck_assert_ptr_nonnull(json_object_get(root, "error"));
	json_decref(root);
}
END_TEST

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
		if (e->d_name[0] != '.' && !access(p, R_OK))
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
