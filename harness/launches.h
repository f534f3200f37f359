/*
 * Launch observation.  The runner is linked with
 * -Wl,--wrap=__cudaLaunchKernel (and the other launch entry points,
 * event records and waits, graph launches and instantiations: the list
 * is in wraps.h), so every kernel launch in the process passes
 * through launches.c first.  While recording is on (only around a call
 * of the student's or the reference's launcher) each launch's
 * configuration is kept, and when the call ends each launch is marked
 * on the given stream or not by stream order (launches.c).
 */
#ifndef LAUNCHES_H
#define LAUNCHES_H

#include <cuda_runtime_api.h>

#include "protocol.h"

/* Start recording; launches on a stream other than `given` are marked
 * unless stream order joins them to it. */
void launches_begin(cudaStream_t given);
/* Stop recording and describe what was launched into *out (phase and
 * index are set by the caller). */
void launches_end(struct proto_launches *out);

/* Called by the wrappers: what a launch asked for, and what the runtime
 * answered (returned as is; a refusal is logged, see crashlog.h). */
void launches_note(dim3 grid, dim3 block, size_t smem, cudaStream_t s);
cudaError_t launches_result(cudaError_t err);

/* 1 while stream s is being captured: what is put on it becomes a node
 * of a graph, not work. */
int launches_capturing(cudaStream_t s);

/* The graph an executable graph was instantiated from (NULL when not
 * seen). */
cudaGraph_t launches_graph_of(cudaGraphExec_t e);

/* launches_ext.c (GPU runner only; NULL elsewhere): note the kernels of
 * graph g, launched on s. */
void launches_graph_kernels(cudaGraph_t g, cudaStream_t s)
	__attribute__((weak));

#endif
