/* Probe of the emulator against a real GPU (tests/gpu/emu-ncu.sh):
 * 'counters' runs kernels whose traffic the emulator models (Set A tiles,
 * partial warps, divergence, 8- and 16-byte shared accesses, partial
 * tiles, multi-block dynamic shared memory) for ncu to measure;
 * 'errors' prints the cudaError of bad launch configurations and of a
 * kernel fault, and whether it is sticky. */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "../emu/kernels.cu"

__global__ void wide_shared(float *out, int stride)
{
	__shared__ __align__(16) float s[4096];
	int t = threadIdx.x;
	float2 *p2 = (float2 *)(s + t * stride);
	float4 *p4 = (float4 *)(s + 4 * t);
	*p2 = make_float2(t, t);
	*p4 = make_float4(t, t, t, t);
	__syncthreads();
	float2 a = *(float2 *)(s + t * stride);
	double *pd = (double *)s;
	out[t] = a.x + (float)pd[t & 7];
}

__global__ void dyn_blocks(int *d, int n)
{
	extern __shared__ int sh[];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	sh[t] = i < n ? d[i] : 0;
	__syncthreads();
	if (i < n)
		d[i] = sh[blockDim.x - 1 - t];
}

__global__ void oob(int *d)
{
	d[threadIdx.x + 1000000] = 1;
}

static void counters(void)
{
	float *a, *b;
	int n = 256, *d, *o;
	double *dd, *di;
	cudaMalloc(&a, 256 * 256 * 4);
	cudaMalloc(&b, 256 * 256 * 4);
	cudaMemset(a, 0, 256 * 256 * 4);
	tile<0><<<dim3(8, 8), dim3(32, 8)>>>(b, a, n);
	tile<1><<<dim3(8, 8), dim3(32, 8)>>>(b, a, n);
	transpose_any<<<dim3(2, 2), dim3(32, 8)>>>(b, a, 33, 45);
	cudaMalloc(&d, 4096 * 4);
	cudaMemset(d, 0, 4096 * 4);
	reverse<<<1, 48, 48 * 4>>>(d, 48);
	dyn_blocks<<<10, 96, 96 * 4>>>(d, 900);
	wide_shared<<<1, 32>>>(b, 2);
	wide_shared<<<1, 32>>>(b, 4);
	cudaMalloc(&o, 65 * 4);
	cudaMalloc(&dd, 64 * 8);
	cudaMalloc(&di, 64 * 8);
	cudaMemset(o, 0, 65 * 4);
	cudaMemset(di, 0, 64 * 8);
	diverge<<<1, 64>>>(o, dd, di);
	printf("counters: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}

static void errors(void)
{
	int *d;
	cudaMalloc(&d, 1024);
	reverse<<<1, 1025>>>(d, 32);
	printf("block 1025: %d\n", (int)cudaGetLastError());
	reverse<<<dim3(1, 65536), 32>>>(d, 32);
	printf("grid.y 65536: %d\n", (int)cudaGetLastError());
	reverse<<<1, 32, 50000>>>(d, 32);
	printf("dyn 50000: %d\n", (int)cudaGetLastError());
	cudaFuncSetAttribute(reverse,
			     cudaFuncAttributeMaxDynamicSharedMemorySize,
			     100000);
	reverse<<<1, 32, 50000>>>(d, 32);
	printf("dyn 50000 opted in: %d\n", (int)cudaGetLastError());
	printf("attr 232449: %d\n", (int)cudaFuncSetAttribute(reverse,
			     cudaFuncAttributeMaxDynamicSharedMemorySize,
			     232449));
	cudaGetLastError();
	oob<<<1, 32>>>(d);
	printf("oob launch: %d\n", (int)cudaGetLastError());
	printf("oob sync: %d\n", (int)cudaDeviceSynchronize());
	printf("after: last %d last %d malloc %d\n", (int)cudaGetLastError(),
	       (int)cudaGetLastError(), (int)cudaMalloc(&d, 16));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "errors"))
		errors();
	else
		counters();
	return 0;
}
