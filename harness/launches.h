/*
 * Launch observation.  The runner is linked with
 * -Wl,--wrap=__cudaLaunchKernel (and the other launch entry points), so
 * every kernel launch in the process passes through launches.c first.
 * While recording is on (only around a call of the student's or the
 * reference's launcher) each launch's configuration is kept.
 */
#ifndef LAUNCHES_H
#define LAUNCHES_H

#include <cuda_runtime_api.h>

#include "protocol.h"

/* Start recording; launches on a stream other than `given` are marked. */
void launches_begin(cudaStream_t given);
/* Stop recording and describe what was launched into *out (phase and
 * index are set by the caller). */
void launches_end(struct proto_launches *out);

/* Called by the wrappers: what a launch asked for, and what the runtime
 * answered (returned as is; a refusal is logged, see crashlog.h). */
void launches_note(dim3 grid, dim3 block, size_t smem, cudaStream_t s);
cudaError_t launches_result(cudaError_t err);

#endif
