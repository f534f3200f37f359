/*
 * Verification: the grader's side of the protocol.  The frames a runner
 * sends are fed in as they arrive; each shape's output is compared bit for
 * bit with the exercise oracle's, computed here from the same seed, its
 * guard bands and input hash checked.  The launch records of the measured
 * calls are kept for the replay (measure.c), whose findings come back
 * here too; technique.c turns them into technique checks and the
 * emulator's performance figure, and timings become speedups.  Only what
 * this module verified reaches the score.
 *
 * The runner's stream must follow the protocol exactly (protocol.h):
 * hello first and once; the phases asked for, in order, each opened by
 * PHASE and closed by DONE; in each phase only its frames (one LAUNCHES
 * and one RECORD per call, one PERF); nothing after the last DONE.  A
 * runner never decides that the grader failed: nothing it sends alone
 * makes an exercise XX.  An ERROR frame's fault kind is the wire's
 * (enum proto_fault): PROTO_FAULT_UNSUPPORTED, "the emulator cannot run
 * this", is XX only from a runner on the emulator and only when it names
 * a kernel and an instruction that the grader's own PTX check listed
 * (v->lacks); any other is the runner's word.
 *
 * Trace: when WARPGRADE_FRAME_TRACE names a file, each runner process's
 * start and exit, every frame but a shape's chunks, and the first chunk
 * and the check of every shape append a line "SECONDS EXERCISE WHAT
 * INDEX GRADER" (CLOCK_MONOTONIC seconds, GRADER the grader's pid), for
 * finding where a runner's time goes as the grader sees it.
 *
 * Call order: verify_init, then per runner process verify_job for its
 * job, verify_process_begin, verify_frame for every frame (meanwhile
 * verify_wants_keys, verify_wants_input, verify_digest_reply,
 * verify_current_phase and verify_shape_arriving
 * answer the caller feeding the runner), verify_stream_error when the
 * stream broke below the frames, verify_process_end with how it ended;
 * then the replays, or beside the runner once the frames they read are
 * verified (grade_early.h) (measure.c: verify_measured_replayable and
 * verify_perf_replayable say which calls can be replayed, their
 * findings go into v->measured[] and v->perf_call, the replayed output
 * through verify_measured_region); then verify_finish.  verify_release
 * frees the scratch.
 */
#ifndef VERIFY_H
#define VERIFY_H

#include "verify_ahead.h"
#include <stddef.h>
#include <stdint.h>

#include "exercise.h"
#include "lacks.h"
#include "resusage.h"
#include "protocol.h"
#include "result.h"
#include "score.h"

/* What the grader learned about one measured call. */
struct measured_call {
	size_t index;               /* shape index */
	struct exercise_shape shape;
	/* the launch record, as the runner sent it */
	unsigned char *record;
	uint64_t record_len, record_filled;
	int record_complete;
	/* the replay's findings */
	int replayed;               /* the replay ran to its end */
	int have_ref, have_stu;
	struct proto_traffic ref, stu;
	struct proto_lines *lines;  /* NULL when none came */
	struct proto_kernels *kernels; /* the kernels it launched, or NULL */
	struct proto_note note;     /* kind != 0: could not be replayed */
	enum status output;         /* of the replayed output */
	char output_why[256];
	char replay_error[256];     /* the replay itself failed (ours) */
};

struct verify {
	const struct exercise *ex;
	const struct score_config *cfg;
	uint64_t seed;
	int skip_gpu_only;    /* the grading backend is the emulator */
	struct exercise_result *res;

	/* per shape: 0 not seen, 1 passed, 2 failed */
	unsigned char *state;
	size_t nshapes;
	enum status worst;
	int any_failure;

	/* the shape being assembled from chunks */
	int64_t cur;          /* -1 when none */
	unsigned char *region;
	uint64_t region_len, filled;
	uint64_t input_hash;
	unsigned char *in_buf, *exp_buf;
	size_t scratch_cap;
	struct verify_ahead ahead; /* the largest shape's oracle, on a GPU */

	/* a LAUNCHES frame said a launch went to a stream other than the
	 * one the launcher was given: a flag (no performance credit),
	 * never a verdict */
	int off_stream_launch;

	/* per process */
	uint32_t phases;      /* phases asked of the current process */
	uint32_t job_flags;   /* PROTO_JOB_* of its job */
	uint32_t done;        /* phases it reported complete */
	uint32_t current_phase;
	int phase_open;
	int64_t last_shape;   /* last shape index heard of */
	int runner_internal;  /* the runner reported its own failure */
	int errors;           /* error frames from this process */
	unsigned char *sent;  /* per shape: bit 1 shape, 2 launches,
			       * 4 digest */
	/* the answer a DIGEST frame awaits (verify_digest_reply) */
	int digest_pending;
	struct proto_digest_reply digest_reply;
	uint32_t keys_asked;  /* timed repetitions that asked for a key */
	int turn_asked;       /* the timed phase asked for its turn */
	int have_perf_frame;
	char runner_error[512];

	struct proto_hello hello;
	int have_hello;
	struct proto_perf *perf;
	struct measured_call measured[EXERCISE_MEASURED];
	/* the performance call on the emulator (PROTO_JOB_PERF_RECORD):
	 * its record, and the replay's prediction of its time */
	struct measured_call perf_call;
	int have_prediction;
	struct proto_prediction prediction;
	/* verify_unmeasured's reason: no replay can run, so the checks
	 * are "not measured" for it, never failed */
	char unmeasured_why[400];
	/* what the emulator cannot run in the student's kernels, as the
	 * grader's PTX check found (lacks.h), given to verify_init; NULL:
	 * none is the emulator's limit */
	const struct lacks *lacks;
	/* the registers ptxas gives the student's kernels and the
	 * reference's (resusage.h), for the prediction's occupancy; NULL
	 * or empty: 32 assumed */
	const struct resusage *usage;
	const struct resusage *ref_usage;   /* the reference kernels' */
	char protocol_error[256];
	/* frames a runner wrote after its last phase was done (a
	 * destructor's, say): ignored, and flagged */
	size_t late_frames;
};

/* lacks: what the emulator cannot run in the student's kernels (v->lacks;
 * NULL: none is the emulator's limit), the caller's, kept until
 * verify_release. */
void verify_init(struct verify *v, const struct exercise *ex,
		 const struct score_config *cfg, uint64_t seed,
		 int skip_gpu_only, struct exercise_result *res,
		 const struct lacks *lacks);
void verify_release(struct verify *v);

/* The job of a runner process: v's exercise and seed, the phases and
 * PROTO_JOB_* flags given, the configuration's timed repetitions. */
void verify_job(const struct verify *v, uint32_t phases, uint32_t flags,
		struct proto_job *job);
/* Before each runner process: which phases and job flags it was given. */
void verify_process_begin(struct verify *v, uint32_t phases,
			  uint32_t job_flags);
/* One frame; -1 when it is malformed or out of place (the reason is in
 * v->protocol_error; the caller kills the runner).  A KEY_REQUEST frame
 * is checked here; answering it is the caller's. */
int verify_frame(struct verify *v, enum proto_type t,
		 const unsigned char *p, size_t n);

/* What the caller feeding the current runner process asks between its
 * frames: whether its timed phase will ask for keys (so its input stays
 * open); the phase it is in (PROTO_PHASE_*, 0 before the first); whether
 * a shape's output is part way in; whether it completed phase. */
int verify_wants_keys(const struct verify *v);
/* Whether the runner reads its input after the job: for the keys of
 * its timed phase, or for the replies to its DIGEST frames. */
int verify_wants_input(const struct verify *v);
/* After a DIGEST frame (PROTO_JOB_DIGESTS) was accepted: 1 and the
 * reply the runner waits for, which the caller sends on its input; 0
 * when no reply is due. */
int verify_digest_reply(struct verify *v, struct proto_digest_reply *r);
uint32_t verify_current_phase(const struct verify *v);
int verify_shape_arriving(const struct verify *v);
int verify_phase_done(const struct verify *v, uint32_t phase);
/* The runner's stream broke below the frames (why: the framing's
 * reason, sandbox.h's frame_error): its protocol error. */
void verify_stream_error(struct verify *v, const char *why);

/* The grader could not run the runner at all: the exercise is XX, with
 * why as its message, whatever the runs before it said. */
void verify_not_run(struct verify *v, const char *why);
/* No replay can run, for this reason (no emulator on a GPU host, its
 * runner did not build, no replay program): the technique checks are
 * "not measured", never failed. */
void verify_unmeasured(struct verify *v, const char *why);

struct verify_exit {
	int timed_out;      /* 1 wall, 2 CPU */
	int signal;         /* killed by this signal (not by the grader) */
	int exit_code;
	int exited;
	int killed_by_grader; /* protocol violation */
	/* killed for resident memory over memory_limit bytes */
	int memory_exceeded;
	uint64_t memory_limit;
	const char *output; /* the runner's captured stdout+stderr */
};
void verify_process_end(struct verify *v, const struct verify_exit *x);

/* The measured call k: whether its output passed and its record arrived
 * whole (then it can be replayed). */
int verify_measured_replayable(const struct verify *v, size_t k);
/* The performance call's record came whole and every shape run passed:
 * worth predicting its time. */
int verify_perf_replayable(const struct verify *v);
/* Every shape run (GPU-only edges aside where they are skipped)
 * passed. */
int verify_shapes_passed(const struct verify *v);
/* The replayed output region of measured call k (guarded, as a runner
 * sends it), judged like a correctness shape. */
void verify_measured_region(struct verify *v, size_t k,
			    const unsigned char *region, uint64_t len,
			    uint64_t input_hash);

/* Fill in the exercise result (status, correctness, technique,
 * performance) and score it. */
void verify_finish(struct verify *v);

#endif
