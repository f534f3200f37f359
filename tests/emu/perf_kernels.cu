// Kernels of the performance model's tests (tests/check_perf.c): the
// seed's three transposes, a tiled transpose over a capped grid, one
// a single block does, one with grid barriers, one with many registers.
// PTX in perf_kernels.ptx (tests/emu/gen-ptx).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// reads coalesced, writes 4*rows bytes apart
extern "C" __global__ void naive_read_coalesced(float *out, const float *in,
						int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// writes coalesced, reads 4*cols bytes apart
extern "C" __global__ void naive_write_coalesced(float *out, const float *in,
						 int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	int c = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// 32x32 padded tile, 32x8 threads, four elements each
extern "C" __global__ void tiled(float *out, const float *in, int rows,
				 int cols)
{
	__shared__ float t[32][33];
	int c = blockIdx.x * 32 + threadIdx.x, r0 = blockIdx.y * 32;

	for (int j = threadIdx.y; j < 32; j += 8)
		if (r0 + j < rows && c < cols)
			t[j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
	__syncthreads();
	int r = r0 + threadIdx.x, c0 = blockIdx.x * 32;
	for (int j = threadIdx.y; j < 32; j += 8)
		if (c0 + j < cols && r < rows)
			out[(size_t)(c0 + j) * rows + r] = t[threadIdx.x][j];
}

// the same tile walked grid-stride by gridDim.x blocks
extern "C" __global__ void tiled_stride(float *out, const float *in, int rows,
					int cols)
{
	__shared__ float t[32][33];
	int tx = (cols + 31) / 32, ty = (rows + 31) / 32;

	for (int k = blockIdx.x; k < tx * ty; k += gridDim.x) {
		int c0 = k % tx * 32, r0 = k / tx * 32, c = c0 + threadIdx.x;

		for (int j = threadIdx.y; j < 32; j += 8)
			if (r0 + j < rows && c < cols)
				t[j][threadIdx.x] =
					in[(size_t)(r0 + j) * cols + c];
		__syncthreads();
		int r = r0 + threadIdx.x;
		for (int j = threadIdx.y; j < 32; j += 8)
			if (c0 + j < cols && r < rows)
				out[(size_t)(c0 + j) * rows + r] =
					t[threadIdx.x][j];
		__syncthreads();
	}
}

// a 16-byte copy, one float4 per thread: bound by DRAM bandwidth
extern "C" __global__ void copy4(float4 *out, const float4 *in, int rows,
				 int cols)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (size_t)rows * cols / 4)
		out[i] = in[i];
}

// a row reverse, an int4 a thread: nvcc writes the reversed int4 as four
// 32-bit stores 4 bytes apart a lane, each a quarter of 16 sectors; an
// H100 runs it as fast as one 16-byte store a lane (check_perf.c)
extern "C" __global__ void reverse4_split(int *out, const int *in, int rows,
					  int cols)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t per_row = (size_t)cols / 4;

	if (g >= per_row * rows)
		return;
	size_t r = g / per_row, cv = g % per_row;
	int4 v = *(const int4 *)(in + r * cols + cols - (cv + 1) * 4);

	*(int4 *)(out + r * cols + cv * 4) = make_int4(v.w, v.z, v.y, v.x);
}

// the same with the int4 stored whole (one 16-byte store a lane)
extern "C" __global__ void reverse4_whole(int *out, const int *in, int rows,
					  int cols)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t per_row = (size_t)cols / 4;

	if (g >= per_row * rows)
		return;
	size_t r = g / per_row, cv = g % per_row;
	int4 v = *(const int4 *)(in + r * cols + cols - (cv + 1) * 4);

	*(int4 *)(out + r * cols + cv * 4) = v;
}

// tiled_stride's work done by one block, `who`, walking every tile; the
// other blocks return at once (the sample must find it: check_perf.c)
extern "C" __global__ void one_block_tiled(float *out, const float *in,
					   int rows, int cols, int who)
{
	__shared__ float t[32][33];
	int tx = (cols + 31) / 32, ty = (rows + 31) / 32;

	if ((int)blockIdx.x != who)
		return;
	for (int k = 0; k < tx * ty; k++) {
		int c0 = k % tx * 32, r0 = k / tx * 32, c = c0 + threadIdx.x;

		for (int j = threadIdx.y; j < 32; j += 8)
			if (r0 + j < rows && c < cols)
				t[j][threadIdx.x] =
					in[(size_t)(r0 + j) * cols + c];
		__syncthreads();
		int r = r0 + threadIdx.x;
		for (int j = threadIdx.y; j < 32; j += 8)
			if (c0 + j < cols && r < rows)
				out[(size_t)(c0 + j) * rows + r] =
					t[threadIdx.x][j];
		__syncthreads();
	}
}

// tiled_stride with a grid barrier after each round of tiles, for a
// cooperative launch
extern "C" __global__ void tiled_stride_sync(float *out, const float *in,
					     int rows, int cols)
{
	cg::grid_group g = cg::this_grid();
	__shared__ float t[32][33];
	int tx = (cols + 31) / 32, ty = (rows + 31) / 32;

	for (int k0 = 0; k0 < tx * ty; k0 += gridDim.x) {
		int k = k0 + blockIdx.x;

		if (k < tx * ty) {
			int c0 = k % tx * 32, r0 = k / tx * 32;
			int c = c0 + threadIdx.x, r = r0 + threadIdx.x;

			for (int j = threadIdx.y; j < 32; j += 8)
				if (r0 + j < rows && c < cols)
					t[j][threadIdx.x] =
					    in[(size_t)(r0 + j) * cols + c];
			__syncthreads();
			for (int j = threadIdx.y; j < 32; j += 8)
				if (c0 + j < cols && r < rows)
					out[(size_t)(c0 + j) * rows + r] =
					    t[threadIdx.x][j];
		}
		g.sync();
	}
}

// 64 floats kept live across a chain of 64 loads, each address made from
// the value the last returned: ptxas gives it over 64 registers a
// thread, so fewer blocks fit an SM than with 32, and the chain's
// latency bounds it -- fewer warps in flight, a slower launch.  rows *
// cols must be a power of two.
extern "C" __global__ void live64(float *out, const float *in, int rows,
				  int cols)
{
	size_t mask = (size_t)rows * cols - 1;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, j = i;
	float v[64], s = 0;

	for (int k = 0; k < 64; k++) {
		v[k] = in[j & mask];
		j += (size_t)__float_as_uint(v[k]) + 65536;
	}
	for (int k = 0; k < 64; k++)
		s += v[k] * v[63 - k];
	out[i & mask] = s;
}
