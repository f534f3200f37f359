/*
 * Technique and the prediction from the measured calls' replays
 * (grader/technique.c through verify.h): checks passed and failed,
 * copies that do not dilute, the timed call measured, the emulator's
 * prediction stated or not.  Replays are stood in for by their findings
 * (verify_fixture.h).
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"
#include "lacks.h"
#include "protocol.h"
#include "result.h"
#include "report.h"
#include "result_json.h"
#include "score.h"
#include "verify.h"
#include "verify_fixture.h"
#include "schemas/validate.h"

/* ---- technique from the measured calls ---- */

/* Every shape right, and every measured call recorded and replayed with
 * traffic t of its own size (sectors, staging bytes scaled to it). */
static void measured_fixture(struct fixture *fx, const char *name)
{
	begin(fx, name);
	fx->v.unmeasured_why[0] = '\0';
	for (size_t i = 0; i < exercise_nshapes_all(fx->ex); i++) {
		unsigned flags;

		exercise_shape_of(fx->ex, fx->v.seed, i, &flags);
		if (!(flags & EXERCISE_EDGE_GPU_ONLY))
			send_shape(fx, i, -1, 0);
	}
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		struct measured_call *mc = &fx->v.measured[k];
		uint64_t bytes = exercise_shape_elems(mc->shape) * 4;
		uint64_t sec = (bytes + 31) / 32;

		mc->record_complete = 1;
		mc->replayed = mc->have_stu = mc->have_ref = 1;
		mc->output = STATUS_OK;
		mc->stu.launches = mc->ref.launches = 1;
		mc->stu.dynamic_smem_launches = 1;
		mc->stu.c[PC_GLD_SEC] = mc->stu.c[PC_GST_SEC] = sec;
		mc->stu.c[PC_GLD_REQ] = mc->stu.c[PC_GST_REQ] = sec / 4;
		mc->stu.c[PC_SLD_BYTES] = mc->stu.c[PC_SST_BYTES] = bytes;
		mc->stu.c[PC_DSLD_BYTES] = mc->stu.c[PC_DSST_BYTES] = bytes;
		mc->stu.c[PC_DS_MOVED] = bytes;
		mc->ref = mc->stu;
		mc->ref.who = 1;
	}
	/* and the performance call predicted at 0.8 of the reference */
	fx->v.perf_call.record_complete = 1;
	fx->v.perf_call.replayed = 1;
	fx->v.have_prediction = 1;
	fx->v.prediction.student_ms = 0.25;
	fx->v.prediction.reference_ms = 0.2;
	fx->v.prediction.launches = 1;
	snprintf(fx->v.prediction.gpu, sizeof(fx->v.prediction.gpu),
		 "NVIDIA H100 SXM");
}

static const struct check_result *check_named(const struct fixture *fx,
					      const char *name)
{
	for (size_t i = 0; i < fx->res.nchecks; i++)
		if (!strcmp(fx->res.checks[i].name, name))
			return &fx->res.checks[i];
	ck_abort_msg("no check '%s'", name);
	return NULL;
}

START_TEST(measured_calls_pass)
{
	struct fixture fx;

	measured_fixture(&fx, "padded_tile");
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_OK);
	ck_assert_int_eq(check_named(&fx, "no shared-memory bank "
				     "conflicts")->passed, 1);
	ck_assert_double_eq_tol(fx.res.speedup, 0.8, 1e-9);
	ck_assert_str_eq(fx.res.perf_model, "predicted");
	ck_assert_double_eq_tol(fx.res.score_performance, 4.8, 1e-9);
	release(&fx);
}
END_TEST

/* The text and JSON reports of fx's exercise (its result moved out). */
static void reports(struct fixture *fx, char **text, json_t **perf)
{
	struct grade_result r;
	json_error_t je;
	json_t *root;
	size_t len;
	FILE *f;
	char *s, err[512];

	result_init(&r);
	r.submission = strdup("alice");
	r.backend = strdup("emu");
	r.device = strdup("warpgrade emulator");
	r.isolation = strdup("rlimits");
	r.nex = 1;
	r.ex = calloc(1, sizeof(*r.ex));
	r.ex[0] = fx->res;
	memset(&fx->res, 0, sizeof(fx->res));
	f = open_memstream(text, &len);
	report_text(f, &r, 0);
	fclose(f);
	s = result_json(&r);
	root = json_loads(s, 0, &je);
	ck_assert_msg(root != NULL, "invalid JSON: %s", je.text);
	ck_assert_msg(!schema_validate("tests/schemas/result.schema.json",
				       root, err, sizeof(err)), "%s", err);
	*perf = json_incref(json_object_get(json_array_get(json_object_get(
		root, "exercises"), 0), "performance"));
	json_decref(root);
	free(s);
	result_release(&r);
}

/* On the emulator a performance call that cannot be predicted earns no
 * performance points and says why -- in the result, the JSON and the
 * text -- never a silent stand-in. */
START_TEST(no_prediction_is_stated)
{
	static const struct {
		uint32_t note;
		int record;
		const char *message, *why;
	} c[] = {
		{ NOTE_NO_PREDICTION, 1, "the performance call's launches, as "
		  "sampled, store 0.3 MiB of the 256 MiB output: the sample "
		  "does not show where the work is done", "no prediction: "
		  "the performance call's launches, as sampled, store 0.3 "
		  "MiB" },
		{ NOTE_FAULT, 1, "its launches did not finish in the replay's "
		  "10 s", "no prediction: a replayed launch faulted: its "
		  "launches did not finish" },
		{ 0, 0, "", "no prediction: no launch record of the "
		  "performance call" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fixture fx;
		char *text = NULL;
		json_t *perf;

		measured_fixture(&fx, "coalesced_transpose");
		fx.v.have_prediction = 0;
		fx.v.perf_call.record_complete = c[i].record;
		fx.v.perf_call.note.kind = c[i].note;
		snprintf(fx.v.perf_call.note.message,
			 sizeof(fx.v.perf_call.note.message), "%s",
			 c[i].message);
		end(&fx, 1);
		ck_assert_int_eq(fx.res.status, STATUS_OK);
		ck_assert_str_eq(fx.res.perf_model, "predicted");
		ck_assert(isnan(fx.res.speedup));
		ck_assert_double_eq(fx.res.score_performance, 0);
		ck_assert_msg(strstr(fx.res.perf_why, c[i].why) ==
			      fx.res.perf_why, "%s", fx.res.perf_why);
		reports(&fx, &text, &perf);
		ck_assert_str_eq(json_string_value(json_object_get(perf,
				 "model")), "predicted");
		ck_assert(json_is_null(json_object_get(perf, "speedup")));
		ck_assert_msg(strstr(json_string_value(json_object_get(perf,
			      "why")), c[i].why) != NULL, "%s", c[i].why);
		ck_assert_msg(strstr(text, "performance: no prediction: ") !=
			      NULL, "%s", text);
		json_decref(perf);
		free(text);
		release(&fx);
	}
}
END_TEST

/* The replay of the performance call failing is the grader's fault. */
START_TEST(prediction_replay_failure_is_ours)
{
	struct fixture fx;

	measured_fixture(&fx, "coalesced_transpose");
	fx.v.have_prediction = 0;
	snprintf(fx.v.perf_call.replay_error,
		 sizeof(fx.v.perf_call.replay_error), "the replay crashed");
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_XX);
	ck_assert_ptr_nonnull(strstr(fx.res.message, "performance call"));
	release(&fx);
}
END_TEST

START_TEST(measured_call_with_host_work_earns_nothing)
{
	struct fixture fx;

	measured_fixture(&fx, "coalesced_transpose");
	fx.v.measured[1].stu.d2h_bytes = 1 << 20;
	fx.v.measured[1].stu.h2d_bytes = 1 << 20;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_ptr_nonnull(strstr(fx.res.checks[0].detail,
				     "between host and device"));
	ck_assert_uint_eq(fx.res.nflags, 1);
	ck_assert_double_eq(fx.res.score_performance, 0);
	release(&fx);
}
END_TEST

START_TEST(replay_that_misses_the_output_earns_nothing)
{
	struct fixture fx;

	measured_fixture(&fx, "coalesced_transpose");
	fx.v.measured[2].output = STATUS_WA;
	snprintf(fx.v.measured[2].output_why,
		 sizeof(fx.v.measured[2].output_why), "wrong value at 0");
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_ptr_nonnull(strstr(fx.res.checks[1].detail,
				     "do not compute the output"));
	release(&fx);

	/* a record it could not replay, or none at all */
	measured_fixture(&fx, "coalesced_transpose");
	fx.v.measured[0].note.kind = NOTE_FOREIGN_KERNEL;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	release(&fx);
	measured_fixture(&fx, "coalesced_transpose");
	fx.v.measured[0].record_complete = 0;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_ptr_nonnull(strstr(fx.res.checks[0].detail,
				     "no launch record"));
	release(&fx);
}
END_TEST

START_TEST(copies_never_dilute_the_kernels)
{
	struct fixture fx;

	/* a strided store beside a big whole-sector copy of scratch: the
	 * copy is judged on its own, the kernel still stores 8x */
	measured_fixture(&fx, "coalesced_transpose");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		struct measured_call *mc = &fx.v.measured[k];

		mc->stu.c[PC_GST_SEC] *= 8;
		mc->stu.c[PC_CPY_LD_SEC] = mc->stu.c[PC_CPY_ST_SEC] =
			100 * mc->stu.c[PC_GLD_SEC];
		mc->stu.c[PC_CPY_LD_MIN] = mc->stu.c[PC_CPY_ST_MIN] =
			100 * mc->stu.c[PC_GLD_SEC];
	}
	end(&fx, 1);
	ck_assert_int_eq(check_named(&fx, "coalesced global "
				     "stores")->passed, 0);
	ck_assert_int_eq(check_named(&fx, "coalesced global "
				     "loads")->passed, 1);
	ck_assert_ptr_nonnull(strstr(check_named(&fx, "coalesced global "
		"stores")->detail, "copies and memsets apart"));
	release(&fx);

	/* an honest memset of the output beside a coalesced kernel */
	measured_fixture(&fx, "coalesced_transpose");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		struct measured_call *mc = &fx.v.measured[k];

		mc->stu.c[PC_CPY_ST_SEC] = mc->stu.c[PC_GST_SEC];
		mc->stu.c[PC_CPY_ST_MIN] = mc->stu.c[PC_GST_SEC];
	}
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_OK);
	release(&fx);

	/* the transpose done by a copy of scraps, no kernel traffic */
	measured_fixture(&fx, "coalesced_transpose");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		struct measured_call *mc = &fx.v.measured[k];

		mc->stu.c[PC_CPY_LD_SEC] = mc->stu.c[PC_GLD_SEC];
		mc->stu.c[PC_CPY_LD_MIN] = mc->stu.c[PC_GLD_SEC];
		mc->stu.c[PC_CPY_ST_SEC] = 8 * mc->stu.c[PC_GST_SEC];
		mc->stu.c[PC_CPY_ST_MIN] = mc->stu.c[PC_GST_SEC];
		mc->stu.c[PC_GLD_SEC] = mc->stu.c[PC_GST_SEC] = 0;
	}
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_int_eq(check_named(&fx, "coalesced global "
				     "loads")->passed, 0);
	ck_assert_ptr_nonnull(strstr(check_named(&fx, "coalesced global "
		"loads")->detail, "not done by kernels"));
	release(&fx);
}
END_TEST

/* What is credited is what is timed: the performance call's kernels
 * must be among the measured calls'. */
START_TEST(timed_kernel_must_be_measured)
{
	struct fixture fx;
	struct proto_kernels *mk[EXERCISE_MEASURED], *pk;

	measured_fixture(&fx, "coalesced_transpose");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		mk[k] = calloc(1, sizeof(*mk[k]));
		mk[k]->count = 1;
		mk[k]->k[0].hash = 11;
		strcpy(mk[k]->k[0].name, "transpose_tiled");
		fx.v.measured[k].kernels = mk[k];
	}
	pk = calloc(1, sizeof(*pk));
	pk->count = 1;
	pk->k[0].hash = 11;
	fx.v.perf_call.kernels = pk;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_OK);
	release(&fx);

	measured_fixture(&fx, "coalesced_transpose");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		mk[k] = calloc(1, sizeof(*mk[k]));
		mk[k]->count = 1;
		mk[k]->k[0].hash = 11;
		fx.v.measured[k].kernels = mk[k];
	}
	pk = calloc(1, sizeof(*pk));
	pk->count = 2;
	pk->k[0].hash = 11;
	pk->k[1].hash = 12;
	strcpy(pk->k[1].name, "transpose_naive");
	fx.v.perf_call.kernels = pk;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_ptr_nonnull(strstr(check_named(&fx, "coalesced global "
		"loads")->detail, "launches 'transpose_naive', which no "
		"measured call launched"));
	release(&fx);
}
END_TEST

/* The timed call must also work as the measured calls did: its
 * kernels' sectors, scaled from the prediction's sample, within the
 * limit of what the performance shape's data needs. */
START_TEST(timed_traffic_must_be_measured)
{
	struct fixture fx;
	const struct exercise *ex = exercise_find("coalesced_transpose");
	uint64_t min = exercise_shape_elems(ex->perf_shape) * 4 / 32;

	for (int strided = 0; strided < 2; strided++) {
		measured_fixture(&fx, "coalesced_transpose");
		for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
			fx.v.measured[k].kernels = calloc(1,
				sizeof(*fx.v.measured[k].kernels));
			fx.v.measured[k].kernels->count = 1;
			fx.v.measured[k].kernels->k[0].hash = 11;
		}
		fx.v.perf_call.kernels = calloc(1,
						sizeof(*fx.v.perf_call.kernels));
		fx.v.perf_call.kernels->count = 1;
		fx.v.perf_call.kernels->k[0].hash = 11;
		fx.v.perf_call.have_stu = 1;
		fx.v.perf_call.stu.c[PC_GLD_SEC] = min;
		fx.v.perf_call.stu.c[PC_GST_SEC] = strided ? 8 * min : min;
		end(&fx, 1);
		ck_assert_int_eq(fx.res.status, strided ? STATUS_TECH :
				 STATUS_OK);
		if (strided)
			ck_assert_ptr_nonnull(strstr(check_named(&fx,
				"coalesced global stores")->detail,
				"works otherwise than the kernel measured"));
		release(&fx);
	}
}
END_TEST

START_TEST(replay_failure_is_ours)
{
	struct fixture fx;

	measured_fixture(&fx, "coalesced_transpose");
	snprintf(fx.v.measured[0].replay_error,
		 sizeof(fx.v.measured[0].replay_error), "the replay crashed");
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_XX);
	release(&fx);
}
END_TEST

/* A replay that stops at what the check listed in the kernel it ran is
 * the emulator's limit (XX); at anything else, the student's record
 * earns nothing. */
START_TEST(replay_at_what_the_emulator_lacks)
{
	struct fixture fx;
	struct lacks l;
	struct proto_note *n;

	ck_assert_int_eq(lacks_parse(&l, check_output), 0);
	for (int listed = 1; listed >= 0; listed--) {
		measured_fixture(&fx, "padded_tile");
		fx.v.lacks = &l;
		n = &fx.v.measured[1].note;
		n->kind = NOTE_UNSUPPORTED;
		snprintf(n->message, sizeof(n->message), "%s", listed ?
			 MULTIMEM_FAULT("tile<1>", "multimem.ld_reduce.relaxed."
					"sys.global.add.f32") :
			 MULTIMEM_FAULT("tile<2>", "multimem.ld_reduce.relaxed."
					"sys.global.add.f32"));
		end(&fx, 1);
		if (listed) {
			ck_assert_int_eq(fx.res.status, STATUS_XX);
			ck_assert_ptr_nonnull(strstr(fx.res.message,
				"which kernel 'tile<1>' reached"));
		} else {
			ck_assert_int_eq(fx.res.status, STATUS_TECH);
			ck_assert_ptr_nonnull(strstr(fx.res.checks[0].detail,
				"reached what the emulator cannot run"));
		}
		release(&fx);
	}
	/* the performance call's, where it predicts the time */
	measured_fixture(&fx, "padded_tile");
	fx.v.lacks = &l;
	n = &fx.v.perf_call.note;
	n->kind = NOTE_UNSUPPORTED;
	snprintf(n->message, sizeof(n->message), "%s", MULTIMEM_FAULT(
		 "tile<1>", "multimem.ld_reduce.relaxed.sys.global.add.f32"));
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_XX);
	release(&fx);
	lacks_release(&l);
}
END_TEST

START_TEST(staging_checks_need_the_data_to_pass_through)
{
	struct fixture fx;

	/* a tile that stages nothing: no conflicts, but no tile either */
	measured_fixture(&fx, "padded_tile");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++)
		fx.v.measured[k].stu.c[PC_SLD_BYTES] = 4;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_int_eq(check_named(&fx, "no shared-memory bank "
				     "conflicts")->passed, 0);
	ck_assert_ptr_nonnull(strstr(check_named(&fx, "no shared-memory "
		"bank conflicts")->detail, "no shared-memory tile"));
	release(&fx);

	/* 4 unused dynamic bytes beside static staging */
	measured_fixture(&fx, "dynamic_reverse");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++)
		fx.v.measured[k].stu.c[PC_DSLD_BYTES] = 4;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_int_eq(check_named(&fx, "dynamic shared memory "
				     "used")->passed, 0);
	release(&fx);

	/* every element round-trips through its own dynamic word: the
	 * bytes pass through, none moves between threads */
	measured_fixture(&fx, "dynamic_reverse");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++)
		fx.v.measured[k].stu.c[PC_DS_MOVED] = 4;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_int_eq(check_named(&fx, "dynamic shared memory "
				     "used")->passed, 0);
	ck_assert_ptr_nonnull(strstr(check_named(&fx, "dynamic shared "
		"memory used")->detail, "moves the data between threads"));
	release(&fx);

	/* a strided store: 8 sectors where 1 would do */
	measured_fixture(&fx, "coalesced_transpose");
	for (size_t k = 0; k < EXERCISE_MEASURED; k++)
		fx.v.measured[k].stu.c[PC_GST_SEC] *= 8;
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_TECH);
	ck_assert_int_eq(check_named(&fx, "coalesced global "
				     "stores")->passed, 0);
	ck_assert_int_eq(check_named(&fx, "coalesced global "
				     "loads")->passed, 1);
	release(&fx);
}
END_TEST

static Suite *technique_suite(void)
{
	Suite *s = suite_create("technique");
	TCase *t = tcase_create("technique");
	TCase *p = tcase_create("prediction");

	tcase_add_test(t, measured_calls_pass);
	tcase_add_test(t, measured_call_with_host_work_earns_nothing);
	tcase_add_test(t, replay_that_misses_the_output_earns_nothing);
	tcase_add_test(t, replay_failure_is_ours);
	tcase_add_test(t, copies_never_dilute_the_kernels);
	tcase_add_test(t, timed_kernel_must_be_measured);
	tcase_add_test(t, timed_traffic_must_be_measured);
	tcase_add_test(t, replay_at_what_the_emulator_lacks);
	tcase_add_test(t, staging_checks_need_the_data_to_pass_through);
	tcase_add_test(p, no_prediction_is_stated);
	tcase_add_test(p, prediction_replay_failure_is_ours);
	tcase_set_timeout(t, 120);
	tcase_set_timeout(p, 120);
	suite_add_tcase(s, t);
	suite_add_tcase(s, p);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(technique_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
