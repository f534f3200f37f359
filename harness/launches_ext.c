/*
 * Wrappers for the launch entry points that only NVIDIA's runtime
 * provides (see launches.c): linked into the GPU runner only.
 */
#include "launches.h"

cudaError_t __real_cudaLaunchKernelExC(const cudaLaunchConfig_t *,
				       const void *, void **);
cudaError_t __real_cudaLaunchCooperativeKernel(const void *, dim3, dim3,
					       void **, size_t,
					       cudaStream_t);
cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t *,
				       const void *, void **);
cudaError_t __wrap_cudaLaunchCooperativeKernel(const void *, dim3, dim3,
					       void **, size_t,
					       cudaStream_t);

cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t *c,
				       const void *f, void **args)
{
	if (c)
		launches_note(c->gridDim, c->blockDim, c->dynamicSmemBytes,
			      c->stream);
	return launches_result(__real_cudaLaunchKernelExC(c, f, args));
}

cudaError_t __wrap_cudaLaunchCooperativeKernel(const void *f, dim3 g,
					       dim3 b, void **args,
					       size_t smem, cudaStream_t s)
{
	launches_note(g, b, smem, s);
	return launches_result(__real_cudaLaunchCooperativeKernel(f, g, b,
								      args, smem, s));
}

/* The kernel nodes of graph g (and of its child graphs), launched on s:
 * a GPU runs them without passing through the launch wrappers. */
void launches_graph_kernels(cudaGraph_t g, cudaStream_t s)
{
	cudaGraphNode_t nodes[256];
	size_t n = 256;

	if (!g || cudaGraphGetNodes(g, nodes, &n) != cudaSuccess) {
		cudaGetLastError();
		return;
	}
	for (size_t i = 0; i < n && i < 256; i++) {
		enum cudaGraphNodeType t;
		struct cudaKernelNodeParams p;
		cudaGraph_t child;

		if (cudaGraphNodeGetType(nodes[i], &t) != cudaSuccess)
			continue;
		if (t == cudaGraphNodeTypeKernel &&
		    cudaGraphKernelNodeGetParams(nodes[i], &p) == cudaSuccess)
			launches_note(p.gridDim, p.blockDim,
				      p.sharedMemBytes, s);
		else if (t == cudaGraphNodeTypeGraph &&
			 cudaGraphChildGraphNodeGetGraph(nodes[i], &child) ==
			 cudaSuccess)
			launches_graph_kernels(child, s);
	}
	cudaGetLastError();
}
