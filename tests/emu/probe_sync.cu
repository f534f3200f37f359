// Synchronisation beyond __syncthreads: grid-wide barriers of a
// cooperative launch (cooperative groups' grid.sync()) and mbarrier
// objects (cuda::barrier and the PTX mbarrier instructions).  The
// output must be the same on a GPU and on the emulator
// (tests/gpu/emu-vs-gpu.sh); check_emu_sync.c runs the kernels from
// probe_sync.ptx (tests/emu/gen-ptx) and checks their results.
#include <cooperative_groups.h>
#include <cuda/barrier>
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

// Each block writes its word, waits at its barrier, then reads its
// neighbour's (block b ^ 1): on a GPU the blocks of a small grid run side
// by side, so the neighbour's word is written by then, whichever block
// got ahead (Rodinia's particlefilter_float depends on it).
extern "C" __global__ void read_neighbour(volatile int *a, int *seen)
{
	if (threadIdx.x == 0)
		a[blockIdx.x] = 1 + blockIdx.x;
	__syncthreads();
	if (threadIdx.x == 0)
		seen[blockIdx.x] = a[blockIdx.x ^ 1];
}

// The same, sleeping between tries.
extern "C" __global__ void wait_other_block_sleep(volatile int *flag,
						  int *out)
{
	if (threadIdx.x)
		return;
	if (blockIdx.x == 1) {
		*flag = 1;
		return;
	}
	while (*flag == 0)
		__nanosleep(100);
	*out = 8;
}

// Warp 0 waits for a flag warp 1 sets, with no barrier or sleep between:
// fine on a GPU, whose warps run at once (the emulator's spinning warp
// gives way).
extern "C" __global__ void wait_other_warp(int *out)
{
	__shared__ int flag;

	if (threadIdx.x == 0)
		flag = 0;
	__syncthreads();
	if (threadIdx.x == 0) {
		while (*(volatile int *)&flag == 0)
			;
		out[0] = flag;
	}
	if (threadIdx.x == 32)
		atomicExch(&flag, 5);
}

// Every warp of a 32 x 8 block adds row i of a into x[i]: threadIdx.y
// is not in the index, so the block's eight warps do the same sum into
// the same word with no barrier, as PolyBench's mvt does.  nvcc loads
// x[i] once and stores each partial sum; a GPU's warps all load it
// before any stores, so x[i] ends as x[i] plus one row's sum (an H100:
// 64.5 for n 64, a all 1, x 0.5, five runs of five), where warps run
// one after the other would add eight (512.5).
extern "C" __global__ void row_sums(int n, const float *a, float *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		for (int j = 0; j < n; j++)
			x[i] += a[i * n + j];
}

// cuda::barrier: each warp writes its slot, all arrive and wait, then
// each thread reads another warp's slot; several phases.
extern "C" __global__ void aw_barrier(int *out, int phases)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	__shared__ int slot[32];
	unsigned w = threadIdx.x / 32, nw = blockDim.x / 32;
	int acc = 0;

	if (threadIdx.x == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	for (int p = 0; p < phases; p++) {
		if (threadIdx.x % 32 == 0)
			slot[w] = p * 100 + (int)w;
		bar.arrive_and_wait();
		acc += slot[(w + 1) % nw];
		bar.arrive_and_wait();
	}
	out[threadIdx.x] = acc;
}

__device__ unsigned mb_addr(unsigned long long *bar)
{
	return (unsigned)__cvta_generic_to_shared(bar);
}

__device__ unsigned long long mb_arrive(unsigned long long *bar,
					unsigned count)
{
	unsigned long long st;

	asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;"
		     : "=l"(st) : "r"(mb_addr(bar)), "r"(count) : "memory");
	return st;
}

__device__ int mb_test(unsigned long long *bar, unsigned long long st)
{
	unsigned ok;

	asm volatile("{ .reg .pred p;\n"
		     "mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n"
		     "selp.u32 %0, 1, 0, p; }"
		     : "=r"(ok) : "r"(mb_addr(bar)), "l"(st) : "memory");
	return (int)ok;
}

__device__ int mb_test_parity(unsigned long long *bar, unsigned parity)
{
	unsigned ok;

	asm volatile("{ .reg .pred p;\n"
		     "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
		     "selp.u32 %0, 1, 0, p; }"
		     : "=r"(ok) : "r"(mb_addr(bar)), "r"(parity) : "memory");
	return (int)ok;
}

__device__ void mb_wait_parity(unsigned long long *bar, unsigned parity)
{
	unsigned ok;

	do
		asm volatile("{ .reg .pred p;\n"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], "
			     "%2;\n"
			     "selp.u32 %0, 1, 0, p; }"
			     : "=r"(ok) : "r"(mb_addr(bar)), "r"(parity)
			     : "memory");
	while (!ok);
}

// The PTX instructions one by one, single-threaded where counts are
// checked: out[] gets what each step observed.
extern "C" __global__ void mbarrier_ops(int *out)
{
	__shared__ unsigned long long bar;
	unsigned long long st;
	unsigned pc;

	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
			     :: "r"(mb_addr(&bar)), "r"(3u) : "memory");
		asm volatile("mbarrier.arrive.noComplete.shared::cta.b64 %0, "
			     "[%1], 1;" : "=l"(st) : "r"(mb_addr(&bar))
			     : "memory");
		asm volatile("mbarrier.pending_count.b64 %0, %1;"
			     : "=r"(pc) : "l"(st));
		out[0] = (int)pc;                /* 3 before it arrived */
		out[1] = mb_test(&bar, st);      /* 0: phase 0 open */
		out[2] = mb_test_parity(&bar, 0);
		mb_arrive(&bar, 2);              /* completes phase 0 */
		out[3] = mb_test(&bar, st);      /* 1 */
		out[4] = mb_test_parity(&bar, 0);/* 1 */
		out[5] = mb_test_parity(&bar, 1);/* 0: phase 1 open */
		/* arrive_drop: phase 1 needs 3, later phases 2 */
		asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1];"
			     : "=l"(st) : "r"(mb_addr(&bar)) : "memory");
		mb_arrive(&bar, 2);
		out[6] = mb_test_parity(&bar, 1);/* 1: phase 1 complete */
		mb_arrive(&bar, 1);
		out[7] = mb_test_parity(&bar, 0);/* 0: phase 2 needs 2 */
		mb_arrive(&bar, 1);
		out[8] = mb_test_parity(&bar, 0);/* 1 */
		/* transaction bytes hold the phase until they complete */
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, "
			     "[%1], 64;" : "=l"(st)
			     : "r"(mb_addr(&bar)) : "memory");
		mb_arrive(&bar, 1);
		out[9] = mb_test_parity(&bar, 1);/* 0: 64 bytes pending */
		asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 64;"
			     :: "r"(mb_addr(&bar)) : "memory");
		out[10] = mb_test_parity(&bar, 1);/* 1 */
		out[11] = mb_test(&bar, st);     /* 1: phase 3 complete */
		asm volatile("mbarrier.inval.shared::cta.b64 [%0];"
			     :: "r"(mb_addr(&bar)) : "memory");
	}
}

// Producer and consumers on two mbarriers with parity waits: warp 0
// fills a buffer, the other warps read it, for several rounds.
extern "C" __global__ void mbarrier_pipe(int *out, int rounds)
{
	__shared__ unsigned long long full, empty;
	__shared__ int buf[32];
	unsigned w = threadIdx.x / 32, nw = blockDim.x / 32;
	int acc = 0;

	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
			     :: "r"(mb_addr(&full)), "r"(32u) : "memory");
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
			     :: "r"(mb_addr(&empty)), "r"((nw - 1) * 32)
			     : "memory");
	}
	__syncthreads();
	for (int r = 0; r < rounds; r++) {
		if (w == 0) {
			if (r)
				mb_wait_parity(&empty, (unsigned)(r - 1) & 1);
			buf[threadIdx.x] = r * 1000 + (int)threadIdx.x;
			mb_arrive(&full, 1);
		} else {
			mb_wait_parity(&full, (unsigned)r & 1);
			acc += buf[(threadIdx.x + r) % 32];
			mb_arrive(&empty, 1);
		}
	}
	out[threadIdx.x] = acc;
}

// cuda::memcpy_async into shared memory completing on a cuda::barrier
// (cp.async and cp.async.mbarrier.arrive), then the same with the
// .noinc form, whose arrival is one of those the barrier expects.
extern "C" __global__ void async_copy_barrier(int *out, const int *in, int n)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	extern __shared__ int s[];
	cg::thread_block b = cg::this_thread_block();

	if (b.thread_rank() == 0)
		init(&bar, b.size());
	b.sync();
	cuda::memcpy_async(b, s, in, sizeof(int) * n, bar);
	bar.arrive_and_wait();
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		out[i] = s[n - 1 - i];
}

extern "C" __global__ void async_copy_noinc(int *out, const int *in)
{
	__shared__ unsigned long long bar;
	__shared__ int s[256];

	if (threadIdx.x == 0)
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
			     :: "r"(mb_addr(&bar)), "r"(2 * blockDim.x)
			     : "memory");
	__syncthreads();
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
		     :: "r"((unsigned)__cvta_generic_to_shared(
			     &s[threadIdx.x])), "l"(&in[threadIdx.x])
		     : "memory");
	asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];"
		     :: "r"(mb_addr(&bar)) : "memory");
	mb_arrive(&bar, 1);
	mb_wait_parity(&bar, 0);
	out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// cuda::memcpy_async of 16-byte multiples by one thread: a bulk copy
// (cp.async.bulk) whose bytes the barrier's phase waits for
// (mbarrier.expect_tx, complete_tx).
extern "C" __global__ void bulk_copy_barrier(int *out, const int *in)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	__shared__ alignas(16) int s[1024];

	if (threadIdx.x == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	if (threadIdx.x == 0)
		cuda::memcpy_async(s, in, cuda::aligned_size_t<16>(sizeof(s)),
				   bar);
	bar.arrive_and_wait();
	for (int i = threadIdx.x; i < 1024; i += blockDim.x)
		out[i] = s[1023 - i];
}

// Every thread waits on a phase that needs one arrival more than there
// are threads: a deadlock the emulator reports.
extern "C" __global__ void mbarrier_stuck(int *out)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;

	if (threadIdx.x == 0)
		init(&bar, blockDim.x + 1);
	__syncthreads();
	bar.arrive_and_wait();
	out[threadIdx.x] = 1;
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
	wait_other_warp<<<1, 64>>>(c);
	cudaMemcpy(h, c, sizeof(int), cudaMemcpyDeviceToHost);
	printf("wait_other_warp: %d\n", h[0]);
	{
		static float fa[64 * 64], fx[64];

		for (int i = 0; i < 64 * 64; i++)
			fa[i] = 1.0f;
		for (int i = 0; i < 64; i++)
			fx[i] = 0.5f;
		cudaMemcpy(a, fa, sizeof(fa), cudaMemcpyHostToDevice);
		cudaMemcpy(b, fx, sizeof(fx), cudaMemcpyHostToDevice);
		row_sums<<<2, dim3(32, 8)>>>(64, (float *)a, (float *)b);
		cudaMemcpy(fx, b, sizeof(fx), cudaMemcpyDeviceToHost);
		printf("row_sums: %g %g\n", fx[0], fx[63]);
	}
	{
		int eight = 0;
		void *args[] = { &a, &b };

		cudaMemset(a, 0, 4);
		if (launch_coop((const void *)wait_other_block_sleep, 2, 32,
				args)) {
			cudaMemcpy(&eight, b, sizeof(eight),
				   cudaMemcpyDeviceToHost);
			printf("wait_other_block_sleep: %d\n", eight);
		}
	}
	aw_barrier<<<1, 256>>>(c, 4);
	cudaMemcpy(h, c, 256 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("aw_barrier: %d %d %d\n", h[0], h[100], h[255]);
	mbarrier_ops<<<1, 32>>>(c);
	cudaMemcpy(h, c, 12 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("mbarrier_ops:");
	for (int i = 0; i < 12; i++)
		printf(" %d", h[i]);
	printf("\n");
	mbarrier_pipe<<<1, 128>>>(c, 6);
	cudaMemcpy(h, c, 128 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("mbarrier_pipe: %d %d %d\n", h[0], h[40], h[127]);
	for (int i = 0; i < n; i++)
		h[i] = 3 * i;
	cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
	async_copy_barrier<<<1, 128, 1000 * sizeof(int)>>>(c, a, 1000);
	cudaMemcpy(h, c, 1000 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("async_copy_barrier: %d %d %d\n", h[0], h[500], h[999]);
	async_copy_noinc<<<1, 256>>>(c, a);
	cudaMemcpy(h, c, 256 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("async_copy_noinc: %d %d %d\n", h[0], h[100], h[255]);
	bulk_copy_barrier<<<1, 128>>>(c, a);
	cudaMemcpy(h, c, 1024 * sizeof(int), cudaMemcpyDeviceToHost);
	printf("bulk_copy_barrier: %d %d %d\n", h[0], h[500], h[1023]);
	printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
