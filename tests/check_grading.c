/*
 * The grader's own decisions: verdict ordering, scoring arithmetic and
 * the JSON view.  The verification of runner frames is in
 * tests/check_verify.c, technique and prediction in
 * tests/check_technique.c.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"
#include "result.h"
#include "result_json.h"
#include "sandbox.h"
#include "score.h"

/* ---- verdicts and scoring ---- */

START_TEST(status_order)
{
	static const char *const order[] = { "CE", "MISSING", "REJECTED",
		"TO", "SG", "RE", "OOB", "RACE", "WA", "TECH", "OK" };

	for (int i = 0; i < 11; i++) {
		ck_assert_int_eq(status_parse(order[i]), i);
		ck_assert_str_eq(status_name((enum status)i), order[i]);
		if (i)
			ck_assert_int_eq(status_worse((enum status)i,
						      (enum status)(i - 1)),
					 i - 1);
	}
	ck_assert_int_eq(status_worse(STATUS_OK, STATUS_XX), STATUS_XX);
	ck_assert_int_eq(status_worse(STATUS_CE, STATUS_XX), STATUS_XX);
	ck_assert_int_eq(status_parse("nope"), -1);
}
END_TEST

static struct exercise_result fresh(void)
{
	struct exercise_result e;

	memset(&e, 0, sizeof(e));
	e.ex = exercise_find("padded_tile");
	e.status = STATUS_OK;
	e.speedup = e.ci_low = e.ci_high = NAN;
	e.sweep_total = 4096;
	e.edge_total = 7;
	return e;
}

START_TEST(default_scoring)
{
	struct score_config c;
	struct exercise_result e = fresh();

	score_config_default(&c);
	ck_assert(score_max(&c) == 25);
	/* all correct, technique passed, half the reference's speed */
	e.sweep_passed = 4096;
	e.edge_passed = 7;
	e.passed = e.total = 4103;
	result_add_check(&e, "a")->passed = 1;
	result_add_check(&e, "b")->passed = 1;
	e.speedup = 0.5;
	score_exercise(&c, &e);
	ck_assert_int_eq(e.status, STATUS_OK);
	ck_assert(fabs(e.score - (15 + 4 + 3)) < 1e-9);
	/* faster than the reference: capped at 6 */
	e = fresh();
	e.sweep_passed = 4096;
	e.edge_passed = 7;
	e.passed = e.total = 4103;
	e.speedup = 1.7;
	score_exercise(&c, &e);
	ck_assert(fabs(e.score_performance - 6) < 1e-9);
}
END_TEST

START_TEST(partial_correctness_no_perf)
{
	struct score_config c;
	struct exercise_result e = fresh();

	score_config_default(&c);
	e.status = STATUS_WA;
	e.sweep_passed = 2048;
	e.edge_passed = 0;
	e.passed = 2048;
	e.total = 4103;
	e.speedup = 1.0;
	result_add_check(&e, "a")->passed = 1;
	score_exercise(&c, &e);
	ck_assert(fabs(e.score_correctness - 5) < 1e-9);
	ck_assert(e.score_technique == 0); /* sweep incomplete */
	ck_assert(e.score_performance == 0);
	ck_assert_int_eq(e.status, STATUS_WA);
}
END_TEST

START_TEST(technique_failure_is_tech)
{
	struct score_config c;
	struct exercise_result e = fresh();

	score_config_default(&c);
	e.sweep_passed = 4096;
	e.edge_passed = 7;
	e.passed = e.total = 4103;
	result_add_check(&e, "coalesced")->passed = 1;
	result_add_check(&e, "conflicts")->passed = 0;
	e.speedup = 1.0;
	score_exercise(&c, &e);
	ck_assert_int_eq(e.status, STATUS_TECH);
	ck_assert(fabs(e.score - (15 + 2 + 6)) < 1e-9);
}
END_TEST

START_TEST(flag_removes_perf_credit)
{
	struct score_config c;
	struct exercise_result e = fresh();

	score_config_default(&c);
	e.sweep_passed = 4096;
	e.edge_passed = 7;
	e.passed = e.total = 4103;
	e.speedup = 3.0;
	result_add_flag(&e, "below the physical floor");
	score_exercise(&c, &e);
	ck_assert(e.score_performance == 0);
	ck_assert(e.score_technique == 0); /* no checks: not measured */
	ck_assert_int_eq(e.technique_passed, -1);
	ck_assert_int_eq(e.status, STATUS_OK);
}
END_TEST

START_TEST(unbuilt_statuses_score_zero)
{
	struct score_config c;
	enum status sts[] = { STATUS_CE, STATUS_MISSING, STATUS_REJECTED };

	score_config_default(&c);
	for (int i = 0; i < 3; i++) {
		struct exercise_result e = fresh();

		e.status = sts[i];
		e.sweep_passed = 4096;
		score_exercise(&c, &e);
		ck_assert(e.score == 0);
		ck_assert_int_eq(e.status, sts[i]);
	}
}
END_TEST

START_TEST(speedup_and_interval)
{
	double ref[31], stu[31], s, lo, hi;

	for (int i = 0; i < 31; i++) {
		ref[i] = 1.0 + 0.01 * (i % 5);
		stu[i] = 2.0 + 0.02 * (i % 7);
	}
	score_speedup(ref, stu, 31, &s, &lo, &hi);
	ck_assert(s > 0.45 && s < 0.55);
	ck_assert(lo <= s && s <= hi);
	ck_assert(lo > 0.4 && hi < 0.6);
}
END_TEST

/* A runner's limits are the configuration's, whatever the profile says. */
START_TEST(runner_limits_from_config)
{
	struct score_config c;
	struct sandbox_limits l;

	score_config_default(&c);
	score_runner_limits(&c, 60, &l);
	ck_assert(l.wall_s == 60 && l.cpu_s == 60);
	ck_assert_uint_eq(l.data_bytes, 16ULL << 30);
	ck_assert_uint_eq(l.nproc, 256);
	ck_assert_uint_eq(l.fsize_bytes, 64ULL << 20);
	ck_assert_uint_eq(l.nofile, 256);
	ck_assert_uint_eq(l.out_cap, 64 << 10);
	c.cpu_factor = 2.5;
	c.data_limit_bytes = 3ULL << 30;
	c.nproc_limit = 7;
	c.fsize_limit_bytes = 5 << 20;
	c.nofile_limit = 33;
	c.output_cap_bytes = 1000;
	score_runner_limits(&c, 10, &l);
	ck_assert(l.wall_s == 10 && l.cpu_s == 25);
	ck_assert_uint_eq(l.data_bytes, 3ULL << 30);
	ck_assert_uint_eq(l.nproc, 7);
	ck_assert_uint_eq(l.fsize_bytes, 5 << 20);
	ck_assert_uint_eq(l.nofile, 33);
	ck_assert_uint_eq(l.out_cap, 1000);
}
END_TEST

START_TEST(config_file)
{
	struct score_config c;
	char err[256], path[] = "/tmp/wgcfgXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs("{\"performance_points\": 10, \"perf_reps\": 50}", f);
	fclose(f);
	score_config_default(&c);
	ck_assert_int_eq(score_config_load(&c, path, err, sizeof(err)), 0);
	ck_assert(c.performance_points == 10);
	ck_assert_uint_eq(c.perf_reps, 50);
	ck_assert(score_max(&c) == 29);
	f = fopen(path, "w");
	fputs("{\"perf_points\": 10}", f);
	fclose(f);
	ck_assert_int_eq(score_config_load(&c, path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown key 'perf_points'"));
	f = fopen(path, "w");
	fputs("{\"perf_reps\": -3}", f);
	fclose(f);
	ck_assert_int_eq(score_config_load(&c, path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "out of range"));
	f = fopen(path, "w");
	fputs("{\"perf_reps\": ", f);
	fclose(f);
	ck_assert_int_eq(score_config_load(&c, path, err, sizeof(err)), -1);
	unlink(path);
}
END_TEST

/* ---- JSON ---- */

START_TEST(json_has_the_documented_fields)
{
	struct grade_result r;
	json_t *root, *ex, *e0;
	json_error_t je;
	char *s;

	result_init(&r);
	r.submission = strdup("alice.tar.gz");
	r.backend = strdup("cuda");
	r.device = strdup("NVIDIA H200");
	r.isolation = strdup("bubblewrap");
	r.seed = 77;
	r.score = 40;
	r.max_score = 100;
	r.nex = 1;
	r.ex = calloc(1, sizeof(*r.ex));
	r.ex[0].ex = exercise_find("padded_tile");
	r.ex[0].status = STATUS_WA;
	r.ex[0].speedup = NAN;
	r.ex[0].ci_low = r.ex[0].ci_high = NAN;
	r.ex[0].student_ms = r.ex[0].reference_ms = NAN;
	r.ex[0].bandwidth_fraction = NAN;
	r.ex[0].technique_passed = -1;
	r.ex[0].first_failure.present = 1;
	r.ex[0].first_failure.m = 3;
	r.ex[0].first_failure.n = 4;
	r.ex[0].first_failure.index = 2;
	strcpy(r.ex[0].first_failure.expected, "1.5");
	strcpy(r.ex[0].first_failure.got, "2");
	strcpy(r.ex[0].first_failure.reason, "wrong value \xff here");
	r.ex[0].message = strdup("bad \xc3\x28 utf8");
	s = result_json(&r);
	root = json_loads(s, 0, &je);
	ck_assert_msg(root != NULL, "invalid JSON: %s", je.text);
	for (const char *const *k = (const char *const[]){ "tool", "version",
		"submission", "backend", "device", "isolation", "seed",
		"score", "max_score", "exercises", NULL }; *k; k++)
		ck_assert_msg(json_object_get(root, *k) != NULL, "no %s", *k);
	ex = json_object_get(root, "exercises");
	e0 = json_array_get(ex, 0);
	for (const char *const *k = (const char *const[]){ "name", "status",
		"score", "max_score", "message", "correctness", "technique",
		"performance", "compile_log", NULL }; *k; k++)
		ck_assert_msg(json_object_get(e0, *k) != NULL, "no %s", *k);
	ck_assert_str_eq(json_string_value(json_object_get(e0, "status")),
			 "WA");
	ck_assert(json_is_null(json_object_get(json_object_get(e0,
		"performance"), "speedup")));
	ck_assert(json_is_null(json_object_get(json_object_get(e0,
		"technique"), "passed")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(e0, "correctness"), "first_failure"),
		"shape")), "3x4");
	json_decref(root);
	free(s);
	/* an unusable submission still gives an object with error */
	free(r.error);
	r.error = strdup("cannot open 'x.zip': not an archive");
	s = result_json(&r);
	root = json_loads(s, 0, &je);
	ck_assert_ptr_nonnull(root);
	ck_assert_ptr_nonnull(json_object_get(root, "error"));
	json_decref(root);
	free(s);
	result_release(&r);
}
END_TEST

static Suite *grading_suite(void)
{
	Suite *s = suite_create("grading");
	TCase *v = tcase_create("verdicts and scores");
	TCase *j = tcase_create("json");

	tcase_add_test(v, status_order);
	tcase_add_test(v, default_scoring);
	tcase_add_test(v, partial_correctness_no_perf);
	tcase_add_test(v, technique_failure_is_tech);
	tcase_add_test(v, flag_removes_perf_credit);
	tcase_add_test(v, unbuilt_statuses_score_zero);
	tcase_add_test(v, speedup_and_interval);
	tcase_add_test(v, config_file);
	tcase_add_test(v, runner_limits_from_config);
	tcase_add_test(j, json_has_the_documented_fields);
	tcase_set_timeout(v, 10);
	tcase_set_timeout(j, 10);
	suite_add_tcase(s, v);
	suite_add_tcase(s, j);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(grading_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
