/*
 * What the verification tests (tests/check_verify.c,
 * tests/check_technique.c) share: a verification (verify.h) driven by
 * frames built here as a runner would send them -- no GPU and no
 * runner.  Every helper fails the running test (ck_assert) rather than
 * return an error.  The linker sees them with a verify_test_ prefix, so
 * that no name of the grader's, which the tests link, meets a 'begin'
 * or a 'release'.
 */
#ifndef VERIFY_FIXTURE_H
#define VERIFY_FIXTURE_H

#include <stddef.h>

#include "exercise.h"
#include "protocol.h"
#include "result.h"
#include "score.h"
#include "verify.h"

#define feed verify_test_feed
#define send_shape verify_test_send_shape
#define send_digest verify_test_send_digest
#define begin_on verify_test_begin_on
#define begin verify_test_begin
#define end verify_test_end
#define release verify_test_release
#define check_output verify_test_check_output

struct fixture {
	struct score_config cfg;
	struct exercise_result res;
	struct verify v;
	const struct exercise *ex;
};

/* Decode the frames of b (released) into v; every frame's verdict must
 * be want (0 accepted, -1 refused by verify_frame). */
void feed(struct verify *v, struct proto_buf *b, int want);

/* Send shape index as a correct runner would, in chunks, then spoil the
 * region at byte mutate_at of the guarded region (-1: nothing) and the
 * input's hash when spoil_input. */
void send_shape(struct fixture *fx, size_t index, long mutate_at,
		int spoil_input);

/* Send shape index's digests (PROTO_JOB_DIGESTS) as a correct runner
 * would, the region spoiled at byte mutate_at (-1: nothing) and the
 * input when spoil_input; the grader's reply must be want_bytes. */
void send_digest(struct fixture *fx, size_t index, long mutate_at,
		 int spoil_input, int want_bytes);

/* A verification of exercise name as for a runner on the emulator (gpu
 * 0: the GPU-only shapes skipped) or on a GPU, hello and the correctness
 * phase sent; begin is begin_on for the emulator. */
void begin_on(struct fixture *fx, const char *name, int gpu);
void begin(struct fixture *fx, const char *name);

/* The correctness phase done (when done), the process ended, the
 * verification finished; then release. */
void end(struct fixture *fx, int done);
void release(struct fixture *fx);

/* What the grader's PTX check found in the student's object: one
 * kernel, tile<1>, reaches an instruction the emulator lacks. */
extern const char check_output[];

#define MULTIMEM_FAULT(kernel, insn) "kernel '" kernel "' at " \
	"padded_tile.cu:54, thread (0,0,0) of block (0,0,0): the emulator " \
	"cannot run the instruction '" insn "'"

#endif
