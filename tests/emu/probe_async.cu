// Staging through shared memory with asynchronous copies (cp.async):
// cooperative groups' memcpy_async and the pipeline primitives, with a
// partial last copy (src-size < cp-size zero-fills).  The output must be
// the same on a GPU and on the emulator (tests/gpu/emu-vs-gpu.sh).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void reverse_cg(int *out, const int *in, int n)
{
	extern __shared__ int s[];
	cg::thread_block b = cg::this_thread_block();

	cg::memcpy_async(b, s, in + (size_t)blockIdx.x * n, sizeof(int) * n);
	cg::wait(b);
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		out[(size_t)blockIdx.x * n + i] = s[n - 1 - i];
}

__global__ void reverse_pipeline(int *out, const int *in, int n)
{
	extern __shared__ int s[];

	for (int i = threadIdx.x; i < n; i += blockDim.x)
		__pipeline_memcpy_async(&s[i], &in[(size_t)blockIdx.x * n + i],
					sizeof(int));
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		out[(size_t)blockIdx.x * n + i] = s[n - 1 - i];
}

__global__ void zero_fill(int4 *out, const int4 *in)
{
	__shared__ int4 s[32];
	// copy 16 bytes of which only threadIdx.x % 5 * 4 come from memory
	unsigned src = (threadIdx.x % 5) * 4;
	unsigned dst = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
		     :: "r"(dst), "l"(&in[threadIdx.x]), "r"(src));
	asm volatile("cp.async.wait_all;\n" ::);
	__syncthreads();
	out[threadIdx.x] = s[31 - threadIdx.x];
}

int main()
{
	const int rows = 3, n = 1000;
	int h[rows * n], o[rows * n], *d, *e;
	long long sum = 0;

	for (int i = 0; i < rows * n; i++)
		h[i] = i * 7 + 1;
	cudaMalloc(&d, sizeof(h));
	cudaMalloc(&e, sizeof(h));
	cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
	reverse_cg<<<rows, 128, n * sizeof(int)>>>(e, d, n);
	cudaMemcpy(o, e, sizeof(o), cudaMemcpyDeviceToHost);
	int ok = 1;
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < n; i++)
			ok &= o[r * n + i] == h[r * n + n - 1 - i];
	printf("memcpy_async: %s\n", ok ? "right" : "wrong");
	cudaMemset(e, 0, sizeof(h));
	reverse_pipeline<<<rows, 96, n * sizeof(int)>>>(e, d, n);
	cudaMemcpy(o, e, sizeof(o), cudaMemcpyDeviceToHost);
	ok = 1;
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < n; i++)
			ok &= o[r * n + i] == h[r * n + n - 1 - i];
	printf("pipeline: %s\n", ok ? "right" : "wrong");
	zero_fill<<<1, 32>>>((int4 *)e, (const int4 *)d);
	cudaMemcpy(o, e, 32 * 16, cudaMemcpyDeviceToHost);
	for (int i = 0; i < 128; i++)
		sum += (long long)o[i] * (i + 1);
	printf("zero fill: %lld, %s\n", sum,
	       cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
