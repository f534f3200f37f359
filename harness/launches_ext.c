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
