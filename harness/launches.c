/*
 * Launch observation by link-time wrapping (see launches.h).  nvcc 13's
 * host stubs launch through __cudaLaunchKernel (or its _ptsz twin for
 * per-thread default streams); programs may also call cudaLaunchKernel.
 * The wrappers for cudaLaunchKernelExC and cudaLaunchCooperativeKernel
 * live in launches_ext.c, linked only against NVIDIA's runtime.
 */
#include "launches.h"

#include <string.h>

#include "crashlog.h"

static int recording;
static cudaStream_t given_stream;
static struct proto_launches current;

void launches_begin(cudaStream_t given)
{
	memset(&current, 0, sizeof(current));
	given_stream = given;
	recording = 1;
}

void launches_end(struct proto_launches *out)
{
	recording = 0;
	*out = current;
}

void launches_note(dim3 grid, dim3 block, size_t smem, cudaStream_t s)
{
	struct proto_launch *l;

	if (!recording)
		return;
	current.total++;
	if (current.count >= PROTO_MAX_LAUNCHES)
		return;
	l = &current.launch[current.count++];
	l->grid[0] = grid.x;
	l->grid[1] = grid.y;
	l->grid[2] = grid.z;
	l->block[0] = block.x;
	l->block[1] = block.y;
	l->block[2] = block.z;
	l->dynamic_shared_bytes = smem;
	l->on_given_stream = s == given_stream;
}

/* A launch the runtime refused: where it was asked for (crashlog.h). */
cudaError_t launches_result(cudaError_t err)
{
	if (err != cudaSuccess)
		crashlog_launch_refused(cudaGetErrorName(err));
	return err;
}

cudaError_t __real___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **,
				      size_t, cudaStream_t);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void **,
					   size_t, cudaStream_t);
cudaError_t __real_cudaLaunchKernel(const void *, dim3, dim3, void **,
				    size_t, cudaStream_t);
cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **,
				      size_t, cudaStream_t);
cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void **,
					   size_t, cudaStream_t);
cudaError_t __wrap_cudaLaunchKernel(const void *, dim3, dim3, void **,
				    size_t, cudaStream_t);

cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b,
				      void **args, size_t smem,
				      cudaStream_t s)
{
	launches_note(g, b, smem, s);
	return launches_result(__real___cudaLaunchKernel(k, g, b, args,
							   smem, s));
}

cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b,
					   void **args, size_t smem,
					   cudaStream_t s)
{
	launches_note(g, b, smem, s);
	return launches_result(__real___cudaLaunchKernel_ptsz(k, g, b,
								 args, smem, s));
}

cudaError_t __wrap_cudaLaunchKernel(const void *f, dim3 g, dim3 b,
				    void **args, size_t smem, cudaStream_t s)
{
	launches_note(g, b, smem, s);
	return launches_result(__real_cudaLaunchKernel(f, g, b, args, smem,
							 s));
}
