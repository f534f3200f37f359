/* A complete CUDA program for 'warpgrade emu' (check_emu_cmd.c runs
 * it): the ground-truth.md Set A and Set B launches.  Exits with status 3
 * when a transpose is wrong, so the test can check exit-status passing. */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "kernels.cu"

int main(int argc, char **argv)
{
	const int N = 256;
	size_t bytes = (size_t)N * N * 4;
	float *a, *b, *h = (float *)malloc(bytes), *o = (float *)malloc(bytes);
	struct rec *r;
	float *xs, *ys, *zs;
	int *ids, *d, n = 32 * 256, bad = 0;

	for (int i = 0; i < N * N; i++)
		h[i] = (float)i;
	cudaMalloc(&a, bytes);
	cudaMalloc(&b, bytes);
	cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice);
	naive_transpose<<<dim3(8, 8), dim3(32, 8)>>>(b, a, N);
	tile<0><<<dim3(8, 8), dim3(32, 8)>>>(b, a, N);
	tile<1><<<dim3(8, 8), dim3(32, 8)>>>(b, a, N);
	cudaMemcpy(o, b, bytes, cudaMemcpyDeviceToHost);
	for (int y = 0; y < N; y++)
		for (int x = 0; x < N; x++)
			bad += o[x * N + y] != h[y * N + x];
	cudaMalloc(&r, n * 16);
	cudaMemset(r, 0, n * 16);
	cudaMalloc(&xs, n * 4);
	cudaMalloc(&ys, n * 4);
	cudaMalloc(&zs, n * 4);
	cudaMalloc(&ids, n * 4);
	aos_soa<<<32, 256>>>(xs, ys, zs, ids, r, n);
	copy4<<<32, 256>>>((float4 *)b, (const float4 *)a, n);
	cudaMalloc(&d, 256);
	cudaMemset(d, 0, 256);
	reverse<<<1, 64, 256>>>(d, 64);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 4;
	printf("transposes %s\n", bad ? "wrong" : "right");
	if (argc > 1 && !strcmp(argv[1], "fail"))
		return 3;
	return bad ? 3 : 0;
}
