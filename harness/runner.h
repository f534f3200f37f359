/*
 * Inside the runner (harness/runner.c): what its correctness sweep
 * (runner_sweep.c) shares with the rest of it.  Not a public interface:
 * the runner is one program split along its phases.
 *
 * struct runner is the job being run.  The runner_send_* functions write
 * one frame each to the grader (0, or -1 when it cannot be written to;
 * an error frame is dropped past the per-run limit).  runner_call_launcher
 * calls a launcher with launch recording around it and, with report,
 * sends what it launched; it returns 1 when a launch went to a stream
 * other than the runner's.  runner_context_alive says whether the CUDA
 * context survived an error.  runner_phase_correctness runs the
 * correctness phase: 0, or -1 when the grader cannot be written to.
 */
#ifndef WG_RUNNER_H
#define WG_RUNNER_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "exercise.h"
#include "protocol.h"
#include "emu/wgemu.h"
#include "gpurec.h"

/* The alignment of every buffer a launcher is given: cudaMalloc's
 * on the GPUs graded (512 bytes, their textureAlignment, so that a
 * texture over an input or output is accepted). */
#define RUNNER_ALIGN 512u
_Static_assert(PROTO_GUARD_ELEMS * 4 % RUNNER_ALIGN == 0,
	       "a guard band keeps the output after it aligned");

#define GUARD_ELEMS PROTO_GUARD_ELEMS
#define POISON_BYTE PROTO_POISON_BYTE
#define GUARD_BYTE PROTO_GUARD_BYTE

/* Present only when linked against the emulator. */
#pragma weak wgemu_last_fault
#pragma weak wgemu_record_begin
#pragma weak wgemu_record_end
#pragma weak wgemu_dry
#pragma weak wgemu_dry_inputs
#pragma weak wgemu_watch_output
#pragma weak wgemu_count
/* Present only in a GPU's runner (gpurec.h). */
#pragma weak gpurec_begin
#pragma weak gpurec_end

typedef void (*launcher_fn)(void *out, const void *in, int m, int n,
			    cudaStream_t stream);

struct runner {
	struct proto_job job;
	const struct exercise *ex;
	launcher_fn student;
	launcher_fn reference;
	cudaStream_t stream;
	int emu;
	int errors_sent;
};

void runner_die_internal(const char *msg);
int runner_send_cuda_error(struct runner *r, unsigned phase, size_t index,
			   cudaError_t err, const char *where);
void runner_send_phase(unsigned phase, unsigned count);
void runner_send_done(unsigned phase, unsigned completed);
int runner_send_shape(size_t index, const unsigned char *region,
		      size_t total, uint64_t input_hash);
/* A large region's digests instead of its bytes (PROTO_JOB_DIGESTS),
 * and the grader's reply read: 0 nothing more to send, 1 the bytes are
 * asked for, -1 the grader cannot be written to or did not answer. */
int runner_send_digests(size_t index, uint64_t total, uint64_t input_digest,
			uint64_t region_digest);
/* Launch records of the calls the grader replays: the emulator's, or
 * on a GPU the recorder's (gpurec.h).  runner_can_record says whether
 * this runner has either; runner_record_begin opens one around a call
 * (its input and guarded output region), runner_send_record closes it
 * and sends it as the record of shape index (0, or -1 when the grader
 * cannot be written to); a GPU's runner also records one timed
 * repetition, sent as the performance call's. */
int runner_can_record(void);
void runner_record_begin(const void *in, size_t in_bytes, const void *out,
			 size_t out_bytes);
int runner_send_record(size_t index);
/* The same in two steps: close the record (0 with *rec, malloc'd, and
 * *len; -1 when none was open), send it later (rec is freed). */
int runner_record_end(unsigned char **rec, size_t *len);
int runner_send_record_data(size_t index, unsigned char *rec, size_t len);
int runner_call_launcher(struct runner *r, launcher_fn f, void *out,
			 const void *in, struct exercise_shape s,
			 unsigned phase, size_t index, int report);
int runner_context_alive(void);

/* The job's stream (r->stream), made by runner_stream_start -- on a GPU
 * in a thread of its own, since it creates the context -- and waited for
 * by runner_stream_wait before the first use: 0, or -1 with the error
 * sent (once).  Call start once, wait as often as needed. */
void runner_stream_start(struct runner *r);
int runner_stream_wait(struct runner *r);

int runner_phase_correctness(struct runner *r);

#endif
