// Synchronisation beyond __syncthreads: grid-wide barriers of a
// cooperative launch (cooperative groups' grid.sync()).  The
// output must be the same on a GPU and on the emulator
// (tests/gpu/emu-vs-gpu.sh); tests/check_emu.c runs the kernels from
// probe_sync.ptx (tests/emu/gen-ptx) and checks their results.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

// Each round every thread takes the value of the next thread of the
// grid (across blocks): right only if no block starts a round before
// every block has finished the one before.
extern "C" __global__ void grid_rotate(int *a, int *b, int rounds)
{
	cg::grid_group g = cg::this_grid();
	unsigned n = (unsigned)g.size(), i = (unsigned)g.thread_rank();

	for (int r = 0; r < rounds; r++) {
		b[i] = a[(i + 1) % n] + 1;
		g.sync();
		a[i] = b[i];
		g.sync();
	}
}

// Per-block sums, then block 0 adds them up after the grid barrier.
extern "C" __global__ void grid_sum(const int *in, int *part, int *out,
				   int n)
{
	cg::grid_group g = cg::this_grid();
	__shared__ int s;

	if (threadIdx.x == 0)
		s = 0;
	__syncthreads();
	for (unsigned i = (unsigned)g.thread_rank(); i < (unsigned)n;
	     i += (unsigned)g.size())
		atomicAdd(&s, in[i]);
	__syncthreads();
	if (threadIdx.x == 0)
		part[blockIdx.x] = s;
	g.sync();
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		int t = 0;

		for (unsigned k = 0; k < gridDim.x; k++)
			t += part[k];
		*out = t;
	}
}

// Block 0 waits for a flag block 1 sets: fine in a cooperative launch,
// where every block is resident; a hang in an ordinary one whose blocks
// run one after another (the emulator's) or do not fit.
extern "C" __global__ void wait_other_block(volatile int *flag, int *out)
{
	if (threadIdx.x)
		return;
	if (blockIdx.x == 1) {
		*flag = 1;
		return;
	}
	while (*flag == 0)
		;
	*out = 7;
}

static int launch_coop(const void *k, int blocks, int threads, void **args)
{
	cudaError_t e = cudaLaunchCooperativeKernel(k, blocks, threads, args,
						    0, 0);

	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	printf("  launch of %d x %d: %s\n", blocks, threads,
	       cudaGetErrorName(e));
	return e == cudaSuccess;
}

int main()
{
	int per_sm = 0, sms = 0, *a, *b, *c, h[4096];
	const int n = 4096;

	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_rotate,
						      256, 0);
	printf("grid_rotate: %d blocks of 256 per SM\n", per_sm);
	cudaMalloc(&a, sizeof(h));
	cudaMalloc(&b, sizeof(h));
	cudaMalloc(&c, sizeof(h));
	for (int i = 0; i < n; i++)
		h[i] = i;
	cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
	{
		int rounds = 5;
		void *args[] = { &a, &b, &rounds };

		if (launch_coop((const void *)grid_rotate, 16, 256, args)) {
			int ok = 1;

			cudaMemcpy(h, a, sizeof(h), cudaMemcpyDeviceToHost);
			for (int i = 0; i < n; i++)
				ok &= h[i] == (i + 5) % n + 5;
			printf("grid_rotate: %s\n", ok ? "right" : "wrong");
		}
		/* more blocks than fit at once */
		launch_coop((const void *)grid_rotate, per_sm * sms + 1, 256,
			    args);
	}
	{
		int sum = 0, nn = n;
		void *args[] = { &a, &b, &c, &nn };

		for (int i = 0; i < n; i++)
			h[i] = i % 7;
		cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
		if (launch_coop((const void *)grid_sum, 12, 128, args)) {
			cudaMemcpy(&sum, c, sizeof(sum),
				   cudaMemcpyDeviceToHost);
			printf("grid_sum: %d\n", sum);
		}
	}
	{
		int seven = 0;
		void *args[] = { &a, &b };

		cudaMemset(a, 0, 4);
		if (launch_coop((const void *)wait_other_block, 2, 32, args)) {
			cudaMemcpy(&seven, b, sizeof(seven),
				   cudaMemcpyDeviceToHost);
			printf("wait_other_block: %d\n", seven);
		}
	}
	printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
