// A program whose output must be the same on a GPU and on the emulator
// (tests/gpu/emu-vs-gpu.sh): warpSize, __nanosleep, __match_any_sync,
// half and bfloat16 arithmetic, virtual functions and function pointers,
// device malloc and new, mapped host and managed memory, host functions
// on a stream, device attributes the CUDA samples ask for.
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct shape {
	__device__ virtual int f(int x) { return x + 1; }
};
struct square : shape {
	__device__ int f(int x) override { return x * 2; }
};
__device__ int sq(int x) { return x * x; }
__device__ int neg(int x) { return -x; }
__device__ int (*fn_table[2])(int) = { sq, neg };

__global__ void breadth(int *o, float *f)
{
	int t = threadIdx.x;
	__half h = __float2half(t * 0.5f);
	__half2 h2 = __floats2half2_rn(t * 0.25f, -t);
	__nv_bfloat16 b = __float2bfloat16(t * 2.0f);
	shape *s = t & 1 ? new square() : new shape();
	int *heap = (int *)malloc(8);

	__nanosleep(100);
	heap[1] = t;
	o[t] = __match_any_sync(0xffffffff, t % 3) ^ warpSize;
	o[32 + t] = s->f(t) + fn_table[t % 2](t) + heap[1];
	h = __hfma(h, h, __float2half(1.0f)) - __float2half(0.5f);
	h2 = __hadd2(__hmul2(h2, h2), h2);
	b = __hmul(b, b) + b;
	f[t] = __half2float(h) + __low2float(h2) + __high2float(h2) +
	       __bfloat162float(b);
	delete s;
	free(heap);
}

__global__ void add_one(int *p)
{
	p[threadIdx.x] += 1;
}

static void CUDART_CB host_fn(void *p)
{
	printf("host function %d\n", *(int *)p);
}

int main()
{
	int *o, h[64], *mapped, *dmapped, *man, attr[4];
	float *f, hf[32];
	static int reg[32];
	long sum = 0;
	double fsum = 0;

	cudaDeviceGetAttribute(&attr[0], cudaDevAttrComputeMode, 0);
	cudaDeviceGetAttribute(&attr[1], cudaDevAttrClockRate, 0);
	cudaDeviceGetAttribute(&attr[2], cudaDevAttrMultiProcessorCount, 0);
	cudaDeviceGetAttribute(&attr[3], cudaDevAttrWarpSize, 0);
	printf("attributes %d %d %d %d, last error %d\n", attr[0], attr[1],
	       attr[2], attr[3], (int)cudaGetLastError());
	cudaMalloc(&o, sizeof(h));
	cudaMalloc(&f, sizeof(hf));
	breadth<<<1, 32>>>(o, f);
	cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost);
	cudaMemcpy(hf, f, sizeof(hf), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 64; i++)
		sum += (long)h[i] * (i + 1);
	for (int i = 0; i < 32; i++)
		fsum += hf[i] * (i + 1);
	printf("breadth %ld %.4f %s\n", sum, fsum,
	       cudaGetErrorString(cudaGetLastError()));
	cudaHostAlloc(&mapped, 32 * sizeof(int), cudaHostAllocMapped);
	cudaHostGetDevicePointer(&dmapped, mapped, 0);
	cudaHostRegister(reg, sizeof(reg), cudaHostRegisterDefault);
	cudaMallocManaged(&man, 32 * sizeof(int));
	for (int i = 0; i < 32; i++)
		mapped[i] = reg[i] = man[i] = i;
	add_one<<<1, 32>>>(dmapped);
	add_one<<<1, 32>>>(reg);
	add_one<<<1, 32>>>(man);
	cudaLaunchHostFunc(0, host_fn, &attr[3]);
	cudaDeviceSynchronize();
	printf("mapped %d registered %d managed %d\n", mapped[31], reg[31],
	       man[31]);
	cudaHostUnregister(reg);
	cudaFreeHost(mapped);
	cudaFree(man);
	printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
	return 0;
}
