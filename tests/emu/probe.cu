// A program whose output must be the same on a GPU and on the emulator:
// warp intrinsics, cooperative groups, vector loads, atomics, fast math,
// a non-inlined call.  tests/gpu/emu-vs-gpu.sh runs it on both.
#include <cstdio>
#include <cstdint>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ __noinline__ int helper(int a, int b) { return a * 3 + b; }

__device__ int table[10];

template <typename T>
__device__ T warp_sum(T v) {
	for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
	return v;
}

__global__ void k(const float4 *in4, float *out, int *cnt, unsigned *bal, int n)
{
	extern __shared__ __align__(16) unsigned char raw[];
	float *s = reinterpret_cast<float *>(raw);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 v = i < n ? __ldg(&in4[i]) : make_float4(0, 0, 0, 0);
	s[threadIdx.x] = v.x + v.y + v.z + v.w;
	__syncthreads();
	float t = warp_sum(s[threadIdx.x]);
	unsigned b = __ballot_sync(__activemask(), v.x > 2.0f);
	__syncwarp();
	if ((threadIdx.x & 31) == 0) { atomicAdd(cnt, 1); bal[threadIdx.x / 32] = b; out[threadIdx.x / 32] = t; }
	int lane = threadIdx.x & 31;
	int x = __shfl_xor_sync(0xffffffff, lane, 1);
	if (lane == 3 && blockIdx.x == 0 && threadIdx.x == 3) out[100] = (float)helper(x, __popc(b)) + (float)__clz(1) + __brev(1u) * 0.0f + __ffs(8);
	cg::thread_block tb = cg::this_thread_block();
	cg::thread_block_tile<32> w = cg::tiled_partition<32>(tb);
	int r = cg::reduce(w, lane, cg::plus<int>());
	if (threadIdx.x == 0) out[101] = (float)r;
	float m = fmaxf(__expf(0.0f), rsqrtf(4.0f)) + __fdividef(1.0f, 2.0f) + sinf(0.0f) + __saturatef(2.0f);
	if (threadIdx.x == 0) out[102] = m;
	// one lane only: which of several lanes' atomics to one address
	// goes first is not specified
	if (threadIdx.x == 0) {
		unsigned long long big = atomicCAS((unsigned long long *)&bal[8], 0ull, 5ull);
		big += atomicCAS((unsigned long long *)&bal[8], 5ull, 7ull);
		out[103] = (float)big;
	}
	out[104 + (threadIdx.x & 0)] = __int_as_float(__float_as_int(1.0f));
}

__global__ void votes(int *out, const int *in)
{
	int t = threadIdx.x;
	out[t] = __syncthreads_count(in[t] > 3) * 100 +
		 __syncthreads_and(in[t] > -1) * 10 +
		 __syncthreads_or(in[t] > 60);
}

int main()
{
	int n = 64;
	float4 h[64];
	for (int i = 0; i < n; i++) h[i] = make_float4(i, 1, 1, 1);
	float4 *d; float *o; int *c; unsigned *b;
	cudaMalloc(&d, sizeof(h)); cudaMalloc(&o, 200 * 4); cudaMalloc(&c, 4); cudaMalloc(&b, 80);
	cudaMemset(c, 0, 4); cudaMemset(b, 0, 80); cudaMemset(o, 0, 800);
	cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
	k<<<1, 64, 64 * 4>>>(d, o, c, b, n);
	cudaError_t e = cudaDeviceSynchronize();
	float ho[200]; int hc; unsigned hb[20];
	cudaMemcpy(ho, o, 800, cudaMemcpyDeviceToHost); cudaMemcpy(&hc, c, 4, cudaMemcpyDeviceToHost); cudaMemcpy(hb, b, 80, cudaMemcpyDeviceToHost);
	printf("err=%s cnt=%d sum0=%g sum1=%g bal0=%08x bal1=%08x h=%g r=%g m=%g cas=%g one=%g\n", cudaGetErrorString(e), hc, ho[0], ho[1], hb[0], hb[1], ho[100], ho[101], ho[102], ho[103], ho[104]);
	// barriers that reduce (bar.red) over 3 warps, the last partial
	int vin[80], vout[80], *dvi, *dvo;
	for (int i = 0; i < 80; i++) vin[i] = i % 70;
	cudaMalloc(&dvi, sizeof(vin));
	cudaMalloc(&dvo, sizeof(vout));
	cudaMemcpy(dvi, vin, sizeof(vin), cudaMemcpyHostToDevice);
	votes<<<1, 80>>>(dvo, dvi);
	cudaMemcpy(vout, dvo, sizeof(vout), cudaMemcpyDeviceToHost);
	printf("votes: %d %d %s\n", vout[0], vout[79],
	       cudaGetErrorName(cudaGetLastError()));
	// module variables through the symbol API
	size_t tsz = 0;
	int th[10], back[10], *tp = nullptr;
	for (int i = 0; i < 10; i++) th[i] = i * i;
	cudaGetSymbolSize(&tsz, table);
	cudaMemcpyToSymbol(table, th, sizeof(th));
	cudaGetSymbolAddress((void **)&tp, table);
	cudaMemcpy(back, tp + 3, 4 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("table: %zu bytes, [3..6] = %d %d %d %d, %s\n", tsz, back[0],
	       back[1], back[2], back[3], cudaGetErrorName(cudaGetLastError()));
	return 0;
}
