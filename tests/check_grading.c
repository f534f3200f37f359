/*
 * The grader's own decisions: verdict ordering, scoring arithmetic,
 * verification of runner frames against the oracle (bit-exact outputs,
 * guard bands, input hashes, errors, crashes, protocol abuse), and the
 * JSON view.  No GPU and no runner: frames are built here.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"
#include "lacks.h"
#include "protocol.h"
#include "result.h"
#include "report.h"
#include "result_json.h"
#include "sandbox.h"
#include "score.h"
#include "verify.h"
#include "schemas/validate.h"

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

/* ---- verification with synthetic frames ---- */

struct fixture {
	struct score_config cfg;
	struct exercise_result res;
	struct verify v;
	const struct exercise *ex;
};

static void feed(struct verify *v, struct proto_buf *b, int want)
{
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t n;
	int rc = 0;

	proto_decoder_init(&d, 0);
	proto_decoder_feed(&d, b->data, b->len);
	while (proto_decoder_next(&d, &t, &p, &n) == 1)
		if (verify_frame(v, t, p, n))
			rc = -1;
	ck_assert_int_eq(rc, want);
	proto_decoder_release(&d);
	proto_buf_release(b);
}

/* Send shape `index` as a correct runner would, then let `mutate` spoil
 * the region (offsets in bytes from the start of the guarded region). */
static void send_shape(struct fixture *fx, size_t index, long mutate_at,
		       int spoil_input)
{
	const struct exercise *ex = fx->ex;
	struct exercise_shape s = exercise_shape_of(ex, fx->v.seed, index,
						    NULL);
	size_t elems = exercise_shape_elems(s), g = PROTO_GUARD_ELEMS;
	size_t total = (elems + 2 * g) * 4;
	unsigned char *region = malloc(total), *in = malloc(elems * 4 + 4);
	struct proto_shape m;
	struct proto_buf b;

	memset(region, PROTO_GUARD_BYTE, total);
	ex->generate(fx->v.seed, index, s, in);
	ex->expected(in, region + g * 4, s);
	if (mutate_at >= 0)
		region[mutate_at] ^= 0x40;
	if (spoil_input)
		in[0] ^= 1;
	m.index = (uint32_t)index;
	m.guard_elems = PROTO_GUARD_ELEMS;
	m.total_bytes = total;
	m.input_hash = exercise_hash(in, elems * 4);
	/* in chunks, as a runner sends a large region */
	for (size_t off = 0; off < total; off += 32u << 20) {
		m.offset = off;
		m.data = region + off;
		m.len = total - off < (32u << 20) ? total - off : 32u << 20;
		proto_buf_init(&b);
		proto_enc_shape(&b, &m);
		feed(&fx->v, &b, 0);
	}
	free(region);
	free(in);
}

/* A verification as for a runner on the emulator (gpu 0: the GPU-only
 * shapes skipped) or on a GPU. */
static void begin_on(struct fixture *fx, const char *name, int gpu)
{
	struct proto_buf b;
	struct proto_hello h = { "cuda", "test", 9, 0, 132, 0, 0 };
	struct proto_phase_msg ph = { PROTO_PHASE_CORRECTNESS, 0 };

	memset(fx, 0, sizeof(*fx));
	score_config_default(&fx->cfg);
	fx->ex = exercise_find(name);
	verify_init(&fx->v, fx->ex, &fx->cfg, 4242, !gpu, &fx->res, NULL);
	/* these runners record nothing: checks not measured */
	snprintf(fx->v.unmeasured_why, sizeof(fx->v.unmeasured_why),
		 "synthetic frames");
	verify_process_begin(&fx->v, PROTO_PHASE_CORRECTNESS,
			     gpu ? 0 : PROTO_JOB_SKIP_GPU_ONLY);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	proto_enc_phase(&b, &ph);
	feed(&fx->v, &b, 0);
}

static void begin(struct fixture *fx, const char *name)
{
	begin_on(fx, name, 0);
}

static void end(struct fixture *fx, int done)
{
	struct verify_exit x;

	if (done) {
		struct proto_buf b;
		struct proto_done d = { PROTO_PHASE_CORRECTNESS, 0 };

		proto_buf_init(&b);
		proto_enc_done(&b, &d);
		feed(&fx->v, &b, 0);
	}
	memset(&x, 0, sizeof(x));
	x.exited = 1;
	verify_process_end(&fx->v, &x);
	verify_finish(&fx->v);
}

static void release(struct fixture *fx)
{
	verify_release(&fx->v);
	free(fx->res.message);
}

START_TEST(all_shapes_correct)
{
	struct fixture fx;

	begin(&fx, "dynamic_reverse");
	for (size_t i = 0; i < exercise_nshapes_all(fx.ex); i++) {
		unsigned flags;

		exercise_shape_of(fx.ex, fx.v.seed, i, &flags);
		if (!(flags & EXERCISE_EDGE_GPU_ONLY))
			send_shape(&fx, i, -1, 0);
	}
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_OK);
	ck_assert_uint_eq(fx.res.passed, fx.res.total);
	ck_assert_uint_eq(fx.res.sweep_passed, 4096);
	ck_assert(fx.res.score >= 15);
	ck_assert_int_eq(fx.res.first_failure.present, 0);
	release(&fx);
}
END_TEST

START_TEST(wrong_value_is_wa_with_details)
{
	struct fixture fx;
	size_t g = PROTO_GUARD_ELEMS * 4;

	begin(&fx, "coalesced_transpose");
	send_shape(&fx, 0, -1, 0);
	send_shape(&fx, 70, (long)(g + 4 * 5), 0); /* element 5 */
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_WA);
	ck_assert_int_eq(fx.res.first_failure.present, 1);
	ck_assert_uint_eq(fx.res.first_failure.shape_index, 70);
	ck_assert_int_eq(fx.res.first_failure.index, 5);
	ck_assert_int_eq(fx.res.first_failure.m, 2);
	ck_assert_int_eq(fx.res.first_failure.n, 7);
	ck_assert_uint_eq(fx.res.passed, 1);
	ck_assert_ptr_nonnull(strstr(fx.res.message, "rows=2"));
	release(&fx);
}
END_TEST

/* On a GPU the performance shape's oracle is computed ahead, while the
 * runner starts (verify_ahead.h), and judges that shape as the oracle
 * computed on arrival would: right, a wrong element, a changed input. */
START_TEST(performance_shape_judged_from_its_oracle_ahead)
{
	size_t g = PROTO_GUARD_ELEMS * 4, perf = 0, most = 0;
	struct fixture fx;

	begin_on(&fx, "aos_to_soa", 1);
	for (size_t i = 0; i < exercise_nshapes_all(fx.ex); i++) {
		size_t e = exercise_shape_elems(exercise_shape_of(fx.ex,
						fx.v.seed, i, NULL));

		if (e > most) {
			most = e;
			perf = i;
		}
	}
	send_shape(&fx, perf, -1, 0);
	ck_assert_int_eq(fx.v.ahead.ready, 1); /* the oracle came ahead */
	ck_assert_int_eq(fx.v.state[perf], 1);
	send_shape(&fx, 3, -1, 1);             /* on arrival, as before */
	ck_assert_int_eq(fx.v.state[3], 2);
	end(&fx, 0);
	release(&fx);

	begin_on(&fx, "aos_to_soa", 1);
	send_shape(&fx, perf, (long)(g + 4 * 12345), 0);
	ck_assert_int_eq(fx.v.state[perf], 2);
	end(&fx, 0);
	ck_assert_int_eq(fx.res.first_failure.index, 12345);
	release(&fx);

	begin_on(&fx, "aos_to_soa", 1);
	send_shape(&fx, perf, -1, 1);
	ck_assert_int_eq(fx.v.state[perf], 2);
	end(&fx, 0);
	ck_assert_ptr_nonnull(strstr(fx.res.first_failure.reason,
				     "input modified"));
	release(&fx);
}
END_TEST

START_TEST(guard_touched_is_oob)
{
	struct fixture fx;
	size_t g = PROTO_GUARD_ELEMS * 4;
	struct exercise_shape s;

	begin(&fx, "padded_tile");
	s = exercise_shape_at(fx.ex, 100, NULL);
	/* one element past the end */
	send_shape(&fx, 100, (long)(g + exercise_shape_elems(s) * 4), 0);
	/* and one before the start, at a later shape */
	send_shape(&fx, 200, (long)(g - 1), 0);
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_OOB);
	ck_assert_uint_eq(fx.res.first_failure.shape_index, 100);
	ck_assert_ptr_nonnull(strstr(fx.res.first_failure.reason,
				     "past its end"));
	release(&fx);
}
END_TEST

START_TEST(input_modified_is_wa)
{
	struct fixture fx;

	begin(&fx, "aos_to_soa");
	send_shape(&fx, 3, -1, 1);
	end(&fx, 1);
	ck_assert_int_eq(fx.res.status, STATUS_WA);
	ck_assert_ptr_nonnull(strstr(fx.res.first_failure.reason,
				     "input modified"));
	release(&fx);
}
END_TEST

START_TEST(cuda_error_at_shape)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_error e = { PROTO_PHASE_CORRECTNESS, 9, 700, 0,
				 "cudaErrorIllegalAddress",
				 "running the launcher: illegal address" };
	struct proto_error f = { PROTO_PHASE_CORRECTNESS, 4, 9, 0,
				 "cudaErrorInvalidConfiguration",
				 "running the launcher: bad config" };

	begin(&fx, "padded_tile");
	proto_buf_init(&b);
	proto_enc_error(&b, &f);
	proto_enc_error(&b, &e);
	feed(&fx.v, &b, 0);
	end(&fx, 0); /* sticky: the phase never completed */
	/* RE ranks worse than OOB in the verdict order */
	ck_assert_int_eq(fx.res.status, STATUS_RE);
	ck_assert_uint_eq(fx.res.passed, 0);
	ck_assert_uint_eq(fx.res.first_failure.shape_index, 4);
	ck_assert_ptr_nonnull(strstr(fx.res.first_failure.reason,
				     "cudaErrorInvalidConfiguration"));
	release(&fx);
}
END_TEST

START_TEST(crash_and_timeout)
{
	struct fixture fx;
	struct verify_exit x;

	begin(&fx, "padded_tile");
	send_shape(&fx, 0, -1, 0);
	memset(&x, 0, sizeof(x));
	x.signal = 8; /* SIGFPE */
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	ck_assert_int_eq(fx.res.status, STATUS_SG);
	ck_assert_ptr_nonnull(strstr(fx.res.message, "SIGFPE"));
	release(&fx);

	/* killed for memory: says so, with the limit */
	begin(&fx, "padded_tile");
	send_shape(&fx, 0, -1, 0);
	memset(&x, 0, sizeof(x));
	x.signal = 9;
	x.memory_exceeded = 1;
	x.memory_limit = (uint64_t)2 << 30;
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	ck_assert_int_eq(fx.res.status, STATUS_SG);
	ck_assert_msg(strstr(fx.res.message, "more than the 2048 MiB memory "
			     "limit"), "%s", fx.res.message);
	release(&fx);

	begin(&fx, "padded_tile");
	memset(&x, 0, sizeof(x));
	x.timed_out = 1;
	x.exited = 0;
	x.signal = 9;
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	ck_assert_int_eq(fx.res.status, STATUS_TO);
	release(&fx);

	begin(&fx, "padded_tile");
	memset(&x, 0, sizeof(x));
	x.exited = 1;
	x.exit_code = 0;
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	ck_assert_int_eq(fx.res.status, STATUS_RE);
	ck_assert_ptr_nonnull(strstr(fx.res.message, "exited early"));
	release(&fx);
}
END_TEST

START_TEST(runner_internal_is_not_xx)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_error e = { 0, 0, -1, 0, "runner", "out of memory" };
	struct verify_exit x;

	begin(&fx, "padded_tile");
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	feed(&fx.v, &b, 0);
	memset(&x, 0, sizeof(x));
	x.exited = 1;
	x.exit_code = 3;
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	/* the submission can forge this frame: never a grader fault */
	ck_assert_int_eq(fx.res.status, STATUS_RE);
	release(&fx);
}
END_TEST

START_TEST(protocol_abuse_rejected)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_shape m;
	unsigned char junk[64];

	begin(&fx, "padded_tile");
	memset(junk, 0, sizeof(junk));
	/* wrong region size for the shape */
	m.index = 0;
	m.guard_elems = PROTO_GUARD_ELEMS;
	m.total_bytes = 64;
	m.offset = 0;
	m.input_hash = 0;
	m.data = junk;
	m.len = 64;
	proto_buf_init(&b);
	proto_enc_shape(&b, &m);
	feed(&fx.v, &b, -1);
	/* shape index out of range */
	m.index = 999999;
	proto_buf_init(&b);
	proto_enc_shape(&b, &m);
	feed(&fx.v, &b, -1);
	/* a perf frame during correctness */
	{
		struct proto_perf *p = calloc(1, sizeof(*p));

		proto_buf_init(&b);
		proto_enc_perf(&b, p);
		feed(&fx.v, &b, -1);
		free(p);
	}
	release(&fx);
}
END_TEST

/* Found by fuzzing: a malformed perf frame must leave nothing behind
 * that the end of verification would trust (it once asked for 32 GiB). */
START_TEST(malformed_perf_leaves_nothing)
{
	struct fixture fx;
	struct proto_buf b, m;
	struct proto_phase_msg ph = { PROTO_PHASE_PERF, 5 };
	struct proto_hello h = { "cuda", "test", 9, 0, 132, 0, 0 };
	struct verify_exit x;

	begin(&fx, "padded_tile");
	verify_process_begin(&fx.v, PROTO_PHASE_PERF, 0);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	proto_enc_phase(&b, &ph);
	feed(&fx.v, &b, 0);
	proto_buf_init(&m);
	proto_put_u32(&m, 0xffffffffu);
	proto_buf_init(&b);
	proto_frame(&b, PROTO_PERF, m.data, m.len);
	proto_buf_release(&m);
	feed(&fx.v, &b, -1);
	memset(&x, 0, sizeof(x));
	x.exited = 1;
	x.killed_by_grader = 1;
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	ck_assert(isnan(fx.res.speedup));
	ck_assert_int_eq(fx.res.status, STATUS_RE);
	release(&fx);
}
END_TEST

START_TEST(shape_sent_twice_rejected)
{
	struct fixture fx;
	struct exercise_shape s;
	size_t total;
	unsigned char *region;
	struct proto_shape m;
	struct proto_buf b;

	begin(&fx, "dynamic_reverse");
	send_shape(&fx, 1, -1, 0);
	s = exercise_shape_at(fx.ex, 1, NULL);
	total = (exercise_shape_elems(s) + 2 * PROTO_GUARD_ELEMS) * 4;
	region = calloc(1, total);
	m.index = 1;
	m.guard_elems = PROTO_GUARD_ELEMS;
	m.total_bytes = total;
	m.offset = 0;
	m.input_hash = 0;
	m.data = region;
	m.len = total;
	proto_buf_init(&b);
	proto_enc_shape(&b, &m);
	feed(&fx.v, &b, -1);
	free(region);
	release(&fx);
}
END_TEST

/* ---- the protocol's order ---- */

static void feed_launches(struct fixture *fx, uint32_t phase, uint32_t index,
			  int want)
{
	struct proto_launches l;
	struct proto_buf b;

	memset(&l, 0, sizeof(l));
	l.phase = phase;
	l.index = index;
	l.total = 1;
	l.count = 1;
	l.launch[0].on_given_stream = 1;
	proto_buf_init(&b);
	proto_enc_launches(&b, &l);
	feed(&fx->v, &b, want);
}

START_TEST(nothing_counts_after_the_work)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_done d = { PROTO_PHASE_CORRECTNESS, 0 };

	begin(&fx, "padded_tile");
	send_shape(&fx, 0, -1, 0);
	proto_buf_init(&b);
	proto_enc_done(&b, &d);
	feed(&fx.v, &b, 0);
	/* a destructor's frames once the last phase is done: ignored,
	 * counted, never an error of the run */
	feed_launches(&fx, PROTO_PHASE_CORRECTNESS, 1, 0);
	feed_launches(&fx, PROTO_PHASE_CORRECTNESS, 2, 0);
	ck_assert_str_eq(fx.v.protocol_error, "");
	ck_assert_uint_eq(fx.v.late_frames, 2);
	release(&fx);
}
END_TEST

START_TEST(one_launches_frame_per_call)
{
	struct fixture fx;

	begin(&fx, "padded_tile");
	feed_launches(&fx, PROTO_PHASE_CORRECTNESS, 5, 0);
	feed_launches(&fx, PROTO_PHASE_CORRECTNESS, 5, -1);
	release(&fx);
	/* and none for a phase that is not running */
	begin(&fx, "padded_tile");
	feed_launches(&fx, PROTO_PHASE_PERF, 0, -1);
	release(&fx);
}
END_TEST

START_TEST(phases_in_order_and_asked_for)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_hello h = { "cuda", "test", 9, 0, 132, 0, 0 };
	struct proto_phase_msg perf = { PROTO_PHASE_PERF, 3 };

	begin(&fx, "padded_tile");
	/* a second correctness phase was not asked for */
	{
		struct proto_phase_msg c = { PROTO_PHASE_CORRECTNESS, 0 };

		proto_buf_init(&b);
		proto_enc_phase(&b, &c);
		feed(&fx.v, &b, -1);
	}
	release(&fx);
	/* the timed phase before correctness is done */
	begin(&fx, "padded_tile");
	verify_process_begin(&fx.v, PROTO_PHASE_CORRECTNESS |
			     PROTO_PHASE_PERF, 0);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	proto_enc_phase(&b, &perf);
	feed(&fx.v, &b, -1);
	release(&fx);
}
END_TEST

START_TEST(keys_in_order)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_hello h = { "cuda", "test", 9, 0, 132, 0, 0 };
	struct proto_phase_msg perf = { PROTO_PHASE_PERF, 3 };
	struct proto_key k0 = { 0, 0 }, k2 = { 2, 0 };

	begin(&fx, "padded_tile");
	verify_process_begin(&fx.v, PROTO_PHASE_PERF, 0);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	proto_enc_phase(&b, &perf);
	proto_enc_key(&b, PROTO_KEY_REQUEST, &k0);
	feed(&fx.v, &b, 0);
	/* repetition 1 was skipped */
	proto_buf_init(&b);
	proto_enc_key(&b, PROTO_KEY_REQUEST, &k2);
	feed(&fx.v, &b, -1);
	release(&fx);
}
END_TEST

START_TEST(unsupported_from_a_runner_is_re)
{
	struct fixture fx;
	struct proto_buf b;
	struct proto_error e = { PROTO_PHASE_CORRECTNESS, 9, 801,
				 PROTO_FAULT_UNSUPPORTED,
				 "cudaErrorNotSupported", "the instruction "
				 "'mbarrier.init' is not implemented" };

	begin(&fx, "padded_tile");
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	feed(&fx.v, &b, 0);
	end(&fx, 0);
	ck_assert_int_eq(fx.res.status, STATUS_RE);
	release(&fx);
}
END_TEST

/* What the grader's PTX check found in the student's object: one
 * kernel, tile<1>, reaches an instruction the emulator lacks. */
static const char check_output[] =
	"lacks\t_Z4tileILi1EEvPfPKfii\ttile<1>\tthe instruction "
	"'multimem.ld_reduce.relaxed.sys.global.add.f32'\tpadded_tile.cu:54\n"
	"ok\n";

/* An error frame at shape 9 whose message ends in fault. */
static void send_unsupported(struct fixture *fx, const char *fault)
{
	struct proto_error e = { PROTO_PHASE_CORRECTNESS, 9, 801,
				 PROTO_FAULT_UNSUPPORTED,
				 "cudaErrorNotSupported", "" };
	struct proto_buf b;

	snprintf(e.message, sizeof(e.message), "launcher: operation not "
		 "supported: %s", fault);
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	feed(&fx->v, &b, 0);
}

#define MULTIMEM_FAULT(kernel, insn) "kernel '" kernel "' at " \
	"padded_tile.cu:54, thread (0,0,0) of block (0,0,0): the emulator " \
	"cannot run the instruction '" insn "'"

/* The emulator's limit, where the grader's own check listed that
 * instruction in that kernel: XX naming both; the same fault claimed
 * for another kernel or another instruction, or by a runner on a GPU,
 * stays the student's RE. */
START_TEST(unsupported_listed_by_the_check_is_xx)
{
	static const struct {
		const char *fault;
		uint32_t flags;
		enum status want;
	} cases[] = {
		{ MULTIMEM_FAULT("tile<1>", "multimem.ld_reduce.relaxed.sys."
				 "global.add.f32"), PROTO_JOB_SKIP_GPU_ONLY,
		  STATUS_XX },
		{ MULTIMEM_FAULT("tile<0>", "multimem.ld_reduce.relaxed.sys."
				 "global.add.f32"), PROTO_JOB_SKIP_GPU_ONLY,
		  STATUS_RE },
		{ MULTIMEM_FAULT("tile<1>", "multimem.ld_reduce.relaxed.sys."
				 "global.min.u32"), PROTO_JOB_SKIP_GPU_ONLY,
		  STATUS_RE },
		{ MULTIMEM_FAULT("tile<1>", "multimem.ld_reduce.relaxed.sys."
				 "global.add.f32"), 0, STATUS_RE },
	};
	struct lacks l;

	ck_assert_int_eq(lacks_parse(&l, check_output), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx;

		begin(&fx, "padded_tile");
		fx.v.lacks = &l;
		verify_process_begin(&fx.v, PROTO_PHASE_CORRECTNESS,
				     cases[i].flags);
		{
			struct proto_buf b;
			struct proto_hello h = { "cuda", "test", 9, 0, 132,
						 0, 0 };
			struct proto_phase_msg ph = {
				PROTO_PHASE_CORRECTNESS, 0 };

			proto_buf_init(&b);
			proto_enc_hello(&b, &h);
			proto_enc_phase(&b, &ph);
			feed(&fx.v, &b, 0);
		}
		send_unsupported(&fx, cases[i].fault);
		end(&fx, 0);
		ck_assert_msg(fx.res.status == cases[i].want, "case %zu: %s",
			      i, status_name(fx.res.status));
		if (cases[i].want == STATUS_XX)
			ck_assert_str_eq(fx.res.message, "the emulator cannot "
					 "run the instruction 'multimem."
					 "ld_reduce.relaxed.sys.global.add."
					 "f32' (padded_tile.cu:54), which "
					 "kernel 'tile<1>' reached: the "
					 "emulator's limit, not the "
					 "submission's fault (grade it on a "
					 "GPU, or do without)");
		release(&fx);
	}
	lacks_release(&l);
}
END_TEST

/* The check's output, strictly: lines of five fields, then "ok". */
START_TEST(check_output_parsed_strictly)
{
	static const char *const bad[] = {
		"",
		"lacks\tk\tk\tthe instruction 'x'\tu.cu:1\n",
		"lacks\tk\tk\tthe instruction 'x'\n" "ok\n",
		"lacks\tk\tk\tthe instruction 'x'\tu.cu:1\tmore\n" "ok\n",
		"lacks\t\tk\tthe instruction 'x'\tu.cu:1\n" "ok\n",
		"ok\nlacks\tk\tk\tthe instruction 'x'\tu.cu:1\n",
		"the emulator cannot parse the PTX: line 3: bad\n",
	};
	struct lacks l;

	ck_assert_int_eq(lacks_parse(&l, "ok\n"), 0);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(lacks_match(&l, MULTIMEM_FAULT("k", "x")));
	ck_assert_int_eq(lacks_parse(&l, "lacks\tk\tk\tthe instruction "
				     "'x'\t\nok\n"), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].where, "");
	ck_assert_ptr_nonnull(lacks_match(&l, MULTIMEM_FAULT("k", "x")));
	ck_assert_ptr_null(lacks_match(NULL, MULTIMEM_FAULT("k", "x")));
	lacks_release(&l);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(lacks_parse(&l, bad[i]) == -1, "case %zu", i);
		ck_assert_uint_eq(l.n, 0);
	}
}
END_TEST

START_TEST(crash_names_the_shape_that_ran)
{
	struct fixture fx;
	struct verify_exit x;
	size_t *order;
	size_t n;

	begin(&fx, "coalesced_transpose");
	n = exercise_nshapes_all(fx.ex);
	order = calloc(n, sizeof(*order));
	exercise_call_order(fx.ex, fx.v.seed, order);
	/* the first three calls return, the fourth never does */
	for (size_t i = 0; i < 3; i++)
		send_shape(&fx, order[i], -1, 0);
	memset(&x, 0, sizeof(x));
	x.timed_out = 1;
	x.signal = 9;
	verify_process_end(&fx.v, &x);
	verify_finish(&fx.v);
	ck_assert_int_eq(fx.res.status, STATUS_TO);
	ck_assert_uint_eq(fx.res.first_failure.shape_index, order[3]);
	free(order);
	release(&fx);
}
END_TEST

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
	TCase *f = tcase_create("verification");
	TCase *j = tcase_create("json");
	TCase *t = tcase_create("technique");
	TCase *p = tcase_create("prediction");

	tcase_add_test(v, status_order);
	tcase_add_test(v, default_scoring);
	tcase_add_test(v, partial_correctness_no_perf);
	tcase_add_test(v, technique_failure_is_tech);
	tcase_add_test(v, flag_removes_perf_credit);
	tcase_add_test(v, unbuilt_statuses_score_zero);
	tcase_add_test(v, speedup_and_interval);
	tcase_add_test(v, config_file);
	tcase_add_test(v, runner_limits_from_config);
	tcase_add_test(f, all_shapes_correct);
	tcase_add_test(f, wrong_value_is_wa_with_details);
	tcase_add_test(f, performance_shape_judged_from_its_oracle_ahead);
	tcase_add_test(f, guard_touched_is_oob);
	tcase_add_test(f, input_modified_is_wa);
	tcase_add_test(f, cuda_error_at_shape);
	tcase_add_test(f, crash_and_timeout);
	tcase_add_test(f, runner_internal_is_not_xx);
	tcase_add_test(f, protocol_abuse_rejected);
	tcase_add_test(f, shape_sent_twice_rejected);
	tcase_add_test(f, malformed_perf_leaves_nothing);
	tcase_add_test(f, nothing_counts_after_the_work);
	tcase_add_test(f, one_launches_frame_per_call);
	tcase_add_test(f, phases_in_order_and_asked_for);
	tcase_add_test(f, keys_in_order);
	tcase_add_test(f, unsupported_from_a_runner_is_re);
	tcase_add_test(f, unsupported_listed_by_the_check_is_xx);
	tcase_add_test(f, check_output_parsed_strictly);
	tcase_add_test(f, crash_names_the_shape_that_ran);
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
	tcase_add_test(j, json_has_the_documented_fields);
	tcase_set_timeout(v, 10);
	tcase_set_timeout(f, 60);
	tcase_set_timeout(j, 10);
	tcase_set_timeout(t, 120);
	tcase_set_timeout(p, 120);
	suite_add_tcase(s, v);
	suite_add_tcase(s, f);
	suite_add_tcase(s, t);
	suite_add_tcase(s, p);
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
