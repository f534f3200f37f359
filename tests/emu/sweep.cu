/* Benchmark of the emulator: the correctness sweep of a tiled transpose
 * over every shape 1..64 x 1..64 plus a few ~262,147-element edge shapes,
 * one launch each (the obvious loop: allocate, copy in, launch, copy out,
 * check, free).  Prints the time and lane-instructions per second.
 * With -DSWEEP_NAIVE the transpose is the naive one, each store right
 * after the load it stores (into another allocation: no warp gives
 * way, sched.c, but every store is checked for it).
 * Build: nvcc $(EMU_NVCC_FLAGS) -c, link with $(EMU_LINK_LIBS). */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>
#include "emu/wgemu.h"

#define TILE 32
#define ROWS 8

#ifdef SWEEP_NAIVE
__global__ void transpose_any(float *out, const float *in, int rows,
			      int cols)
{
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			out[x * rows + y + j] = in[(y + j) * cols + x];
}
#else
__global__ void transpose_any(float *out, const float *in, int rows,
			      int cols)
{
	__shared__ float t[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			t[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = t[threadIdx.x][threadIdx.y + j];
}
#endif

static int one(int rows, int cols)
{
	size_t n = (size_t)rows * cols, bad = 0;
	float *h = (float *)malloc(n * 4), *o = (float *)malloc(n * 4);
	float *a, *b;

	for (size_t i = 0; i < n; i++)
		h[i] = (float)i;
	cudaMalloc(&a, n * 4);
	cudaMalloc(&b, n * 4);
	cudaMemcpy(a, h, n * 4, cudaMemcpyHostToDevice);
	dim3 g((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose_any<<<g, dim3(TILE, ROWS)>>>(b, a, rows, cols);
	cudaMemcpy(o, b, n * 4, cudaMemcpyDeviceToHost);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			bad += o[(size_t)c * rows + r] != h[(size_t)r * cols + c];
	cudaFree(a);
	cudaFree(b);
	free(h);
	free(o);
	return bad != 0 || cudaGetLastError() != cudaSuccess;
}

int main(void)
{
	struct timespec t0, t1;
	int fails = 0;
	unsigned long long li = 0;
	static const int edge[][2] = {
		{ 1, 262147 }, { 262147, 1 }, { 511, 513 }, { 65, 4033 }
	};

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int r = 1; r <= 64; r++)
		for (int c = 1; c <= 64; c++)
			fails += one(r, c);
	for (unsigned i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		fails += one(edge[i][0], edge[i][1]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (size_t i = 0; i < wgemu_launch_count(); i++) {
		struct wgemu_launch l;

		wgemu_launch_get(i, &l);
		li += l.counters.lane_instructions;
	}
	double s = (double)(t1.tv_sec - t0.tv_sec) +
		   (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("launches %zu failures %d time %.3f s lane-instructions "
	       "%llu (%.1f M/s)\n", wgemu_launch_count(), fails, s, li,
	       (double)li / s / 1e6);
	return fails != 0;
}
