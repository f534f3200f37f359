/*
 * The 3-field AoS->SoA kernels with 16-byte accesses on both sides: the
 * candidates for the performance shape of reference/aos_to_soa.cu (2^24
 * records of 3 floats), and the table that numbers them
 * (WG_AOS3_VARIANTS), from which the reference takes the one chosen with
 * WG_AOS3_VARIANT and bench/aos_candidates.cu times them all.
 *
 * Four consecutive records are three float4s of the AoS array and one
 * float4 of each SoA field, so a thread that holds the three float4s of
 * four records writes each field with one float4 store.  The records are
 * staged through shared memory so that both global sides are coalesced:
 * consecutive threads load consecutive float4s of the chunk (16 sectors
 * per warp request) and store them to shared memory in order; then each
 * thread reads back the three float4s of its four records -- a stride of
 * 48 bytes across lanes, so each quarter-warp's 8 lanes cover the 32 banks
 * exactly once: no conflict -- and stores one float4 per field, consecutive
 * threads on consecutive float4s of the field.  Every thread issues all
 * its loads before its first shared-memory store.
 *
 * Two ways to share the staging:
 *   block  a block's chunk is 4*G*NT records, one barrier between the
 *          loads and the stores (aos3_block_kernel);
 *   warp   each warp stages 128*G records of its own and waits only for
 *          its own lanes (__syncwarp), so warps never wait for each other
 *          (aos3_warp_kernel).
 * HINT 1 adds streaming cache hints (ld.global.cs, st.global.cs): every
 * byte is touched once.
 *
 * Preconditions (aos3_vec_fits): aos and soa 16-byte aligned, count a
 * multiple of 4 (so every field starts 16-byte aligned).  The last chunk,
 * when shorter, is moved with scalar accesses, as coalesced.
 */
#ifndef WG_AOS3_VEC_CUH
#define WG_AOS3_VEC_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* id, staging, threads per block, groups of 4 records per thread, hints */
#define WG_AOS3_VARIANTS(V)                 \
	V(1, AOS3_BLOCK, 128, 1, 0)         \
	V(2, AOS3_BLOCK, 128, 2, 0)         \
	V(3, AOS3_BLOCK, 256, 1, 0)         \
	V(4, AOS3_BLOCK, 256, 2, 0)         \
	V(5, AOS3_BLOCK, 256, 4, 0)         \
	V(6, AOS3_BLOCK, 512, 1, 0)         \
	V(7, AOS3_BLOCK, 512, 2, 0)         \
	V(8, AOS3_BLOCK, 128, 2, 1)         \
	V(9, AOS3_BLOCK, 256, 2, 1)         \
	V(10, AOS3_WARP, 128, 1, 0)         \
	V(11, AOS3_WARP, 128, 2, 0)         \
	V(12, AOS3_WARP, 128, 4, 0)         \
	V(13, AOS3_WARP, 128, 8, 0)         \
	V(14, AOS3_WARP, 256, 2, 0)         \
	V(15, AOS3_WARP, 256, 4, 0)         \
	V(16, AOS3_WARP, 128, 4, 1)         \
	V(17, AOS3_WARP, 256, 4, 1)

namespace {

enum aos3_staging { AOS3_BLOCK, AOS3_WARP };

template <int HINT>
static __device__ __forceinline__ float4 aos3_load(const float4 *p)
{
	return HINT ? __ldcs(p) : *p;
}

/* Records i..i+3 (a, b, c: their 12 floats in AoS order) to the three
 * fields, one float4 store each. */
template <int HINT>
static __device__ __forceinline__ void aos3_put(float *soa, int count,
						size_t i, float4 a, float4 b,
						float4 c)
{
	const float4 f[3] = { make_float4(a.x, a.w, b.z, c.y),
			      make_float4(a.y, b.x, b.w, c.z),
			      make_float4(a.z, b.y, c.x, c.w) };

#pragma unroll
	for (int k = 0; k < 3; k++) {
		float4 *p = reinterpret_cast<float4 *>(soa + (size_t)k * count +
						       i);
		if (HINT)
			__stcs(p, f[k]);
		else
			*p = f[k];
	}
}

/* A short last chunk: nrec records from src, through stage, by `step`
 * threads of which this is `lane` (a block's, or one warp's). */
template <bool WARP>
static __device__ void aos3_tail(float *soa, const float *src, size_t i0,
				 int nrec, int count, float *stage, int lane,
				 int step)
{
	for (int p = lane; p < 3 * nrec; p += step)
		stage[p] = src[p];
	if (WARP)
		__syncwarp();
	else
		__syncthreads();
	for (int f = 0; f < 3; f++)
		for (int i = lane; i < nrec; i += step)
			soa[(size_t)f * count + i0 + i] = stage[3 * i + f];
}

template <int NT, int G, int HINT>
static __global__ void __launch_bounds__(NT)
aos3_block_kernel(float *__restrict__ soa, const float *__restrict__ aos,
		  int count)
{
	constexpr int R = 4 * G * NT; /* records per block */
	constexpr int V = 3 * G;      /* float4s per thread */
	__shared__ float4 stage[V * NT];
	const size_t i0 = (size_t)blockIdx.x * R;
	const float4 *src = reinterpret_cast<const float4 *>(aos + 3 * i0);
	float4 v[V];

	if (i0 + R > (size_t)count) {
		aos3_tail<false>(soa, aos + 3 * i0, i0, (int)(count - i0),
				 count, reinterpret_cast<float *>(stage),
				 threadIdx.x, NT);
		return;
	}
#pragma unroll
	for (int k = 0; k < V; k++)
		v[k] = aos3_load<HINT>(src + threadIdx.x + k * NT);
#pragma unroll
	for (int k = 0; k < V; k++)
		stage[threadIdx.x + k * NT] = v[k];
	__syncthreads();
#pragma unroll
	for (int g = 0; g < G; g++) {
		const int q = g * NT + threadIdx.x; /* the group of 4 */

		aos3_put<HINT>(soa, count, i0 + 4 * (size_t)q, stage[3 * q],
			       stage[3 * q + 1], stage[3 * q + 2]);
	}
}

template <int NT, int G, int HINT>
static __global__ void __launch_bounds__(NT)
aos3_warp_kernel(float *__restrict__ soa, const float *__restrict__ aos,
		 int count)
{
	constexpr int W = NT / 32;   /* warps per block */
	constexpr int R = 128 * G;   /* records per warp */
	constexpr int V = 3 * G;     /* float4s per lane */
	__shared__ float4 stage[W][32 * V];
	const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
	const size_t i0 = ((size_t)blockIdx.x * W + w) * R;
	const float4 *src = reinterpret_cast<const float4 *>(aos + 3 * i0);
	float4 *my = stage[w];
	float4 v[V];

	if (i0 >= (size_t)count)
		return;
	if (i0 + R > (size_t)count) {
		aos3_tail<true>(soa, aos + 3 * i0, i0, (int)(count - i0),
				count, reinterpret_cast<float *>(my), lane,
				32);
		return;
	}
#pragma unroll
	for (int k = 0; k < V; k++)
		v[k] = aos3_load<HINT>(src + lane + 32 * k);
#pragma unroll
	for (int k = 0; k < V; k++)
		my[lane + 32 * k] = v[k];
	__syncwarp();
#pragma unroll
	for (int g = 0; g < G; g++) {
		const int q = 32 * g + lane;

		aos3_put<HINT>(soa, count, i0 + 4 * (size_t)q, my[3 * q],
			       my[3 * q + 1], my[3 * q + 2]);
	}
}

/* Launch one candidate (see the preconditions above). */
template <int S, int NT, int G, int HINT>
static void aos3_vec_launch(float *soa, const float *aos, int count,
			    cudaStream_t stream)
{
	static_assert(NT % 32 == 0 && 3 * G * NT * 16 <= 48 * 1024,
		      "whole warps; static shared memory within 48 KB");
	const size_t per_block = S == AOS3_BLOCK ? 4u * G * NT : 128u * G *
						   (NT / 32);
	const unsigned blocks = (unsigned)((count + per_block - 1) /
					   per_block);

	if constexpr (S == AOS3_BLOCK)
		aos3_block_kernel<NT, G, HINT>
			<<<blocks, NT, 0, stream>>>(soa, aos, count);
	else
		aos3_warp_kernel<NT, G, HINT>
			<<<blocks, NT, 0, stream>>>(soa, aos, count);
}

static inline bool aos3_vec_fits(const float *soa, const float *aos,
				 int count)
{
	return (uintptr_t)soa % 16 == 0 && (uintptr_t)aos % 16 == 0 &&
	       count % 4 == 0;
}

/* The rows of the table, for picking one at compile time. */
struct aos3_variant {
	int id, staging, threads, groups, hint;
};

static constexpr aos3_variant aos3_table[] = {
#define WG_AOS3_ROW(ID, S, NT, G, HINT) { ID, S, NT, G, HINT },
	WG_AOS3_VARIANTS(WG_AOS3_ROW)
#undef WG_AOS3_ROW
};

static constexpr aos3_variant aos3_row(int id)
{
	for (const aos3_variant &v : aos3_table)
		if (v.id == id)
			return v;
	return aos3_variant{ 0, 0, 0, 0, 0 };
}

/* Launch candidate ID; only its kernel is compiled. */
template <int ID>
static void aos3_variant_launch(float *soa, const float *aos, int count,
				cudaStream_t stream)
{
	constexpr aos3_variant v = aos3_row(ID);

	static_assert(v.id == ID, "no such row in WG_AOS3_VARIANTS");
	if constexpr (v.staging == AOS3_BLOCK)
		aos3_vec_launch<AOS3_BLOCK, v.threads, v.groups, v.hint>(
			soa, aos, count, stream);
	else
		aos3_vec_launch<AOS3_WARP, v.threads, v.groups, v.hint>(
			soa, aos, count, stream);
}

} /* namespace */

#endif /* WG_AOS3_VEC_CUH */
