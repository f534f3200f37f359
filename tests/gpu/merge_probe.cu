/* Merged accesses (tests/gpu/emu-merge.sh): adjacent scalar shared and
 * global loads and stores, 2 and 4 wide, at addresses ptxas can prove
 * aligned to the merged width and at addresses it cannot.  ptxas turns
 * the first kind into one vector instruction (STS.64, LDS.128, ...), and
 * the hardware counts that one instruction; the emulator must count the
 * same.  Every kernel runs as 2 blocks of 128 threads, and prints
 * nothing; the host prints the sum of the results, the same on a GPU and
 * on the emulator. */
#include <cstdio>
#include <cuda_runtime.h>

#define T 128
__device__ float gvar[4 * 2 * T + 8];

__global__ void sh_st2(float *out, float x)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	s[2 * t] = x + t;
	s[2 * t + 1] = 0;
	__syncthreads();
	out[blockIdx.x * T + t] = s[t];
}

__global__ void sh_st2u(float *out, float x)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	s[2 * t + 1] = x + t;
	s[2 * t + 2] = 0;
	__syncthreads();
	out[blockIdx.x * T + t] = s[t + 1];
}

__global__ void sh_st4(float *out, float x)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	s[4 * t] = x + t;
	s[4 * t + 1] = 1;
	s[4 * t + 2] = 2;
	s[4 * t + 3] = 3;
	__syncthreads();
	out[blockIdx.x * T + t] = s[t];
}

__global__ void sh_st4u(float *out, float x)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	s[4 * t + 2] = x + t;
	s[4 * t + 3] = 1;
	s[4 * t + 4] = 2;
	s[4 * t + 5] = 3;
	__syncthreads();
	out[blockIdx.x * T + t] = s[t + 2];
}

/* a second shared array after one of 12 bytes: aligned only if ptxas
 * places it so */
__global__ void sh_st2_second(float *out, float x)
{
	__shared__ float a[3];
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	if (t < 3)
		a[t] = x;
	s[2 * t] = x + t;
	s[2 * t + 1] = 0;
	__syncthreads();
	out[blockIdx.x * T + t] = s[t] + a[t % 3];
}

/* doubles: two 8-byte stores to one 16-byte aligned pair */
__global__ void sh_st2d(float *out, float x)
{
	__shared__ double s[2 * T + 2];
	int t = threadIdx.x;
	s[2 * t] = x + t;
	s[2 * t + 1] = 0;
	__syncthreads();
	out[blockIdx.x * T + t] = (float)s[t];
}

__global__ void sh_ld2(float *out, const float *in)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	for (int i = t; i < 4 * T + 4; i += T)
		s[i] = in[i];
	__syncthreads();
	out[blockIdx.x * T + t] = s[2 * t] * 3 + s[2 * t + 1];
}

__global__ void sh_ld2u(float *out, const float *in)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	for (int i = t; i < 4 * T + 4; i += T)
		s[i] = in[i];
	__syncthreads();
	out[blockIdx.x * T + t] = s[2 * t + 1] * 3 + s[2 * t + 2];
}

__global__ void sh_ld4(float *out, const float *in)
{
	__shared__ float s[4 * T + 4];
	int t = threadIdx.x;
	for (int i = t; i < 4 * T + 4; i += T)
		s[i] = in[i];
	__syncthreads();
	out[blockIdx.x * T + t] = s[4 * t] * 5 + s[4 * t + 1] * 3 +
				  s[4 * t + 2] * 2 + s[4 * t + 3];
}

__global__ void sh_ld4u(float *out, const float *in)
{
	__shared__ float s[4 * T + 8];
	int t = threadIdx.x;
	for (int i = t; i < 4 * T + 8; i += T)
		s[i] = in[i];
	__syncthreads();
	out[blockIdx.x * T + t] = s[4 * t + 2] * 5 + s[4 * t + 3] * 3 +
				  s[4 * t + 4] * 2 + s[4 * t + 5];
}

__global__ void sh_dyn_st2(float *out, float x)
{
	extern __shared__ float d[];
	int t = threadIdx.x;
	d[2 * t] = x + t;
	d[2 * t + 1] = 0;
	__syncthreads();
	out[blockIdx.x * T + t] = d[t];
}

__global__ void gl_st2(float *p, float x)
{
	int t = blockIdx.x * T + threadIdx.x;
	p[2 * t] = x + t;
	p[2 * t + 1] = 0;
}

__global__ void gl_st2u(float *p, float x)
{
	int t = blockIdx.x * T + threadIdx.x;
	p[2 * t + 1] = x + t;
	p[2 * t + 2] = 0;
}

__global__ void gl_st4(float *p, float x)
{
	int t = blockIdx.x * T + threadIdx.x;
	p[4 * t] = x + t;
	p[4 * t + 1] = 1;
	p[4 * t + 2] = 2;
	p[4 * t + 3] = 3;
}

__global__ void gl_ld2(float *out, const float *in)
{
	int t = blockIdx.x * T + threadIdx.x;
	out[t] = in[2 * t] * 3 + in[2 * t + 1];
}

__global__ void gl_ld4(float *out, const float *in)
{
	int t = blockIdx.x * T + threadIdx.x;
	out[t] = in[4 * t] * 5 + in[4 * t + 1] * 3 + in[4 * t + 2] * 2 +
		 in[4 * t + 3];
}

__global__ void gl_var_st2(float x)
{
	int t = blockIdx.x * T + threadIdx.x;
	gvar[2 * t] = x + t;
	gvar[2 * t + 1] = 0;
}

__global__ void gl_var_ld4(float *out)
{
	int t = blockIdx.x * T + threadIdx.x;
	out[t] = gvar[4 * t] * 5 + gvar[4 * t + 1] * 3 + gvar[4 * t + 2] * 2 +
		 gvar[4 * t + 3];
}

__global__ void gl_f2_st2(float2 *q, float x)
{
	int t = blockIdx.x * T + threadIdx.x;
	float *p = (float *)q;
	p[2 * t] = x + t;
	p[2 * t + 1] = 0;
}

__global__ void gl_assume_st4(float *p0, float x)
{
	float *p = (float *)__builtin_assume_aligned(p0, 16);
	int t = blockIdx.x * T + threadIdx.x;
	p[4 * t] = x + t;
	p[4 * t + 1] = 1;
	p[4 * t + 2] = 2;
	p[4 * t + 3] = 3;
}

int main()
{
	const int n = 4 * 2 * T + 64;
	float *in, *out, h[n], sum = 0;

	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 17);
	cudaMalloc(&in, n * 4);
	cudaMalloc(&out, n * 4);
	cudaMemcpy(in, h, n * 4, cudaMemcpyHostToDevice);
	cudaMemset(out, 0, n * 4);
	cudaMemcpyToSymbol(gvar, h, sizeof(gvar));
	sh_st2<<<2, T>>>(out, 1);
	sh_st2u<<<2, T>>>(out, 1);
	sh_st4<<<2, T>>>(out, 1);
	sh_st4u<<<2, T>>>(out, 1);
	sh_st2_second<<<2, T>>>(out, 1);
	sh_st2d<<<2, T>>>(out, 1);
	sh_ld2<<<2, T>>>(out, in);
	sh_ld2u<<<2, T>>>(out, in);
	sh_ld4<<<2, T>>>(out, in);
	sh_ld4u<<<2, T>>>(out, in);
	sh_dyn_st2<<<2, T, 2 * T * 4>>>(out, 1);
	gl_st2<<<2, T>>>(out, 1);
	gl_st2u<<<2, T>>>(out, 1);
	gl_st4<<<2, T>>>(out, 1);
	gl_ld2<<<2, T>>>(out, in);
	gl_ld4<<<2, T>>>(out, in);
	gl_var_st2<<<2, T>>>(1);
	gl_var_ld4<<<2, T>>>(out);
	gl_f2_st2<<<2, T>>>((float2 *)out, 1);
	gl_assume_st4<<<2, T>>>(out, 1);
	cudaMemcpy(h, out, n * 4, cudaMemcpyDeviceToHost);
	for (int i = 0; i < n; i++)
		sum += h[i];
	printf("merge_probe: %s, sum %.1f\n",
	       cudaGetErrorString(cudaGetLastError()), sum);
	return 0;
}
