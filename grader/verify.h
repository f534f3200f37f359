/*
 * Verification: the grader's side of the protocol.  The frames a runner
 * sends are fed in as they arrive; each shape's output is compared bit for
 * bit with the exercise oracle's, computed here from the same seed, its
 * guard bands and input hash checked.  Timings and counters are turned into
 * speedups and technique checks.  Only what this module verified reaches
 * the score.
 *
 * Call order: verify_init, then verify_frame for every frame of one runner
 * process, verify_process_end with how that process ended, repeat for a
 * further process of the same exercise (e.g. the emulator's counter run on
 * a GPU host), then verify_finish.  verify_release frees the scratch.
 */
#ifndef VERIFY_H
#define VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "exercise.h"
#include "protocol.h"
#include "result.h"
#include "score.h"

struct verify_shape;

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

	/* launches */
	unsigned long long launches;
	int dynamic_shared_used;
	int off_stream_launch;
	int zero_launch_calls;

	/* per process */
	uint32_t phases;      /* phases asked of the current process */
	uint32_t done;        /* phases it reported complete */
	uint32_t current_phase;
	int64_t last_shape;   /* last shape index heard of */
	int runner_internal;  /* the runner reported its own failure */
	int errors;           /* error frames from this process */
	char runner_error[512];

	struct proto_hello hello;
	int have_hello;
	struct proto_perf *perf;
	struct proto_counters *counters[2]; /* student, reference */
	char protocol_error[256];
};

void verify_init(struct verify *v, const struct exercise *ex,
		 const struct score_config *cfg, uint64_t seed,
		 int skip_gpu_only, struct exercise_result *res);
void verify_release(struct verify *v);

/* Before each runner process: which phases it was asked for. */
void verify_process_begin(struct verify *v, uint32_t phases);
/* One frame; -1 when it is malformed or out of place (the reason is in
 * v->protocol_error; the caller kills the runner). */
int verify_frame(struct verify *v, enum proto_type t,
		 const unsigned char *p, size_t n);

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

/* Fill in the exercise result (status, correctness, technique,
 * performance) and score it. */
void verify_finish(struct verify *v);

/* Exposed for tests: describe a 4-byte value as the report prints it. */
void verify_format_value(const struct exercise *ex, const void *p,
			 char *buf, size_t len);

#endif
