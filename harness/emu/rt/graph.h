/*
 * CUDA graphs and stream capture (graph.c, stream.c).  A graph is its
 * nodes in the order they were added, each with the nodes it depends on;
 * launching an executable graph runs the nodes one at a time in a
 * topological order (the earliest-added ready node first) through the
 * ordinary runtime calls, which are synchronous.  A stream that captures
 * (cudaStreamBeginCapture, or a stream that waits on an event recorded
 * in a capturing one) turns the work queued on it into nodes of the
 * capture's graph, each depending on the node captured before it.
 */
#ifndef EMU_GRAPH_H
#define EMU_GRAPH_H

#include <cuda_runtime_api.h>

/* The graph stream s is capturing into, or NULL (stream.c). */
cudaGraph_t emu_stream_capture(cudaStream_t s);

/* Work queued on a capturing stream s becomes a node of its graph
 * (graph.c): the arguments as the runtime call took them; kernel
 * arguments and memcpy sources are copied or referenced as CUDA does
 * (arguments copied now, memory read at launch).  cudaSuccess, or the
 * error recorded as the last error. */
cudaError_t emu_capture_kernel(cudaStream_t s, const void *func, dim3 grid,
			       dim3 block, void **args, size_t smem);
cudaError_t emu_capture_memcpy(cudaStream_t s, void *dst, const void *src,
			       size_t count, enum cudaMemcpyKind kind);
cudaError_t emu_capture_memcpy3d(cudaStream_t s,
				 const struct cudaMemcpy3DParms *p);
cudaError_t emu_capture_memset(cudaStream_t s, void *dst, int value,
			       size_t count);
cudaError_t emu_capture_host(cudaStream_t s, cudaHostFn_t fn, void *data);
/* A stream-ordered allocation in a capture: *p gets the address the
 * graph's allocation will have when it runs. */
cudaError_t emu_capture_malloc(cudaStream_t s, void **p, size_t size);
cudaError_t emu_capture_free(cudaStream_t s, void *p);

#endif
