/*
 * Verification of runner frames against the oracle (grader/verify.c):
 * bit-exact outputs, guard bands, input hashes, errors, crashes, the
 * protocol's order and its abuse, the emulator's limits.  No GPU and no
 * runner: frames are built here (verify_fixture.h).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"
#include "lacks.h"
#include "protocol.h"
#include "result.h"
#include "score.h"
#include "verify.h"
#include "verify_fixture.h"

/* ---- verification with synthetic frames ---- */

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

/* A DIGEST frame for shape index, of the size its region has, that
 * verify refuses. */
static void send_digest_refused(struct fixture *fx, size_t index)
{
	struct exercise_shape s = exercise_shape_of(fx->ex, fx->v.seed,
						    index, NULL);
	struct proto_digest m = {
		(uint32_t)index, PROTO_GUARD_ELEMS,
		(exercise_shape_elems(s) + 2 * PROTO_GUARD_ELEMS) * 4, 1, 2
	};
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_digest(&b, &m);
	feed(&fx->v, &b, -1);
}

/* The first chunk of shape index's bytes (poison), which verify
 * refuses. */
static void send_chunk_refused(struct fixture *fx, size_t index)
{
	struct exercise_shape s = exercise_shape_of(fx->ex, fx->v.seed,
						    index, NULL);
	unsigned char chunk[4096];
	struct proto_shape m = {
		(uint32_t)index, PROTO_GUARD_ELEMS,
		(exercise_shape_elems(s) + 2 * PROTO_GUARD_ELEMS) * 4, 0, 0,
		chunk, sizeof(chunk)
	};
	struct proto_buf b;

	memset(chunk, PROTO_GUARD_BYTE, sizeof(chunk));
	proto_buf_init(&b);
	proto_enc_shape(&b, &m);
	feed(&fx->v, &b, -1);
}

/* The performance shape's index. */
static size_t largest_shape(const struct fixture *fx)
{
	size_t best = 0, most = 0;

	for (size_t i = 0; i < exercise_nshapes_all(fx->ex); i++) {
		size_t e = exercise_shape_elems(exercise_shape_of(fx->ex,
						fx->v.seed, i, NULL));

		if (e > most) {
			most = e;
			best = i;
		}
	}
	return best;
}

/* A large region's digests (PROTO_JOB_DIGESTS): the oracle's pass the
 * shape with no bytes asked for, and bytes sent after them are refused;
 * a wrong output or input has its bytes asked for, and the bytes are
 * judged as always (a wrong element named). */
START_TEST(digests_stand_for_the_bytes)
{
	size_t g = PROTO_GUARD_ELEMS * 4, perf;
	struct fixture fx;

	begin_on(&fx, "coalesced_transpose", 1);
	fx.v.job_flags |= PROTO_JOB_DIGESTS;
	perf = largest_shape(&fx);
	send_digest(&fx, perf, -1, 0, 0);
	ck_assert_int_eq(fx.v.state[perf], 1);
	send_chunk_refused(&fx, perf);
	end(&fx, 0);
	ck_assert_int_eq(fx.v.state[perf], 1);
	release(&fx);

	begin_on(&fx, "coalesced_transpose", 1);
	fx.v.job_flags |= PROTO_JOB_DIGESTS;
	send_digest(&fx, perf, (long)(g + 4 * 777), 0, 1);
	ck_assert_int_eq(fx.v.state[perf], 0);	/* judged on the bytes */
	send_shape(&fx, perf, (long)(g + 4 * 777), 0);
	ck_assert_int_eq(fx.v.state[perf], 2);
	end(&fx, 0);
	ck_assert_int_eq(fx.res.first_failure.index, 777);
	release(&fx);

	begin_on(&fx, "coalesced_transpose", 1);
	fx.v.job_flags |= PROTO_JOB_DIGESTS;
	send_digest(&fx, perf, (long)(g - 1), 0, 1);	/* a guard band */
	send_digest_refused(&fx, perf);			/* twice */
	release(&fx);

	begin_on(&fx, "coalesced_transpose", 1);
	fx.v.job_flags |= PROTO_JOB_DIGESTS;
	send_digest(&fx, perf, -1, 1, 1);		/* the input */
	send_shape(&fx, perf, -1, 0);	/* bytes that are right after all */
	ck_assert_int_eq(fx.v.state[perf], 1);
	end(&fx, 0);
	release(&fx);
}
END_TEST

/* A digest is refused without PROTO_JOB_DIGESTS, for a region under
 * PROTO_DIGEST_MIN_BYTES, and after the shape's bytes. */
START_TEST(digests_out_of_place)
{
	struct fixture fx;
	size_t perf;

	begin_on(&fx, "coalesced_transpose", 1);
	perf = largest_shape(&fx);
	send_digest_refused(&fx, perf);
	release(&fx);

	begin_on(&fx, "coalesced_transpose", 1);
	fx.v.job_flags |= PROTO_JOB_DIGESTS;
	send_digest_refused(&fx, 5);
	release(&fx);

	begin_on(&fx, "coalesced_transpose", 1);
	fx.v.job_flags |= PROTO_JOB_DIGESTS;
	send_shape(&fx, perf, -1, 0);
	send_digest_refused(&fx, perf);
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

/* A timed process of padded_tile, with job flags, past its hello and
 * its performance phase's start. */
static void timed_process(struct fixture *fx, uint32_t flags)
{
	struct proto_buf b;
	struct proto_hello h = { "cuda", "test", 9, 0, 132, 0, 0 };
	struct proto_phase_msg perf = { PROTO_PHASE_PERF, 3 };

	begin(fx, "padded_tile");
	verify_process_begin(&fx->v, PROTO_PHASE_PERF, flags);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	proto_enc_phase(&b, &perf);
	feed(&fx->v, &b, 0);
}

/* One key request, expected to pass (want 0) or to be refused (-1). */
static void ask(struct fixture *fx, const struct proto_key *k, int want)
{
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_key(&b, PROTO_KEY_REQUEST, k);
	feed(&fx->v, &b, want);
}

START_TEST(the_turn_before_the_keys)
{
	struct fixture fx;
	const struct proto_key turn = { PROTO_TURN_REP, 0 }, k0 = { 0, 0 };

	/* a job with its turn: the turn first, then the keys; not twice */
	timed_process(&fx, PROTO_JOB_TIMED_TURN);
	ask(&fx, &turn, 0);
	ask(&fx, &k0, 0);
	ask(&fx, &turn, -1);
	release(&fx);
	/* a key before the turn */
	timed_process(&fx, PROTO_JOB_TIMED_TURN);
	ask(&fx, &k0, -1);
	release(&fx);
	/* a turn the job did not give */
	timed_process(&fx, 0);
	ask(&fx, &turn, -1);
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

static Suite *verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *f = tcase_create("verification");

	tcase_add_test(f, all_shapes_correct);
	tcase_add_test(f, wrong_value_is_wa_with_details);
	tcase_add_test(f, performance_shape_judged_from_its_oracle_ahead);
	tcase_add_test(f, guard_touched_is_oob);
	tcase_add_test(f, input_modified_is_wa);
	tcase_add_test(f, cuda_error_at_shape);
	tcase_add_test(f, crash_and_timeout);
	tcase_add_test(f, digests_stand_for_the_bytes);
	tcase_add_test(f, digests_out_of_place);
	tcase_add_test(f, runner_internal_is_not_xx);
	tcase_add_test(f, protocol_abuse_rejected);
	tcase_add_test(f, shape_sent_twice_rejected);
	tcase_add_test(f, malformed_perf_leaves_nothing);
	tcase_add_test(f, nothing_counts_after_the_work);
	tcase_add_test(f, one_launches_frame_per_call);
	tcase_add_test(f, phases_in_order_and_asked_for);
	tcase_add_test(f, keys_in_order);
	tcase_add_test(f, the_turn_before_the_keys);
	tcase_add_test(f, unsupported_from_a_runner_is_re);
	tcase_add_test(f, unsupported_listed_by_the_check_is_xx);
	tcase_add_test(f, check_output_parsed_strictly);
	tcase_add_test(f, crash_names_the_shape_that_ran);
	tcase_set_timeout(f, 60);
	suite_add_tcase(s, f);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verify_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
