/*
 * Wrappers for the launch entry points that only NVIDIA's runtime
 * provides (see launches.c), which the recorder also writes (gpurec.h):
 * linked into a GPU's runner only.
 */
#include "launches.h"

#include "gpurec.h"

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

/* Is a launch with config c cooperative? */
static int cooperative(const cudaLaunchConfig_t *c)
{
	for (unsigned i = 0; i < c->numAttrs; i++)
		if (c->attrs[i].id == cudaLaunchAttributeCooperative &&
		    c->attrs[i].val.cooperative)
			return 1;
	return 0;
}

cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t *c,
				       const void *f, void **args)
{
	cudaError_t err;

	if (c)
		launches_note(c->gridDim, c->blockDim, c->dynamicSmemBytes,
			      c->stream);
	err = __real_cudaLaunchKernelExC(c, f, args);
	if (c && err == cudaSuccess && !launches_capturing(c->stream))
		gpurec_launch(f, c->gridDim, c->blockDim, args,
			      c->dynamicSmemBytes, cooperative(c));
	return launches_result(err);
}

cudaError_t __wrap_cudaLaunchCooperativeKernel(const void *f, dim3 g,
					       dim3 b, void **args,
					       size_t smem, cudaStream_t s)
{
	cudaError_t err;

	launches_note(g, b, smem, s);
	err = __real_cudaLaunchCooperativeKernel(f, g, b, args, smem, s);
	if (err == cudaSuccess && !launches_capturing(s))
		gpurec_launch(f, g, b, args, smem, 1);
	return launches_result(err);
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
