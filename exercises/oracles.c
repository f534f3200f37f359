/*
 * CPU oracles shared by the exercises (see transpose_oracle.h).  They run
 * in the grader on hundreds of megabytes for the performance shape, so the
 * transpose goes by 16x16 blocks, each written a whole output row segment
 * at a time: with a power-of-two row length, walking an input row's block
 * instead writes 16 or 32 lines a multiple of 4 KB apart, which share a
 * set of the L1 cache and evict each other (8192 x 8192 on the
 * development machine: 0.5 to 1.0 s that way, 0.1 to 0.17 s this way).
 */
#include "transpose_oracle.h"

#include <stdint.h>

void oracle_transpose32(const void *in, void *out, struct exercise_shape s)
{
	const uint32_t *src = in;
	uint32_t *dst = out;
	size_t m = (size_t)s.m, n = (size_t)s.n;
	const size_t B = 16;

	for (size_t c0 = 0; c0 < n; c0 += B)
		for (size_t r0 = 0; r0 < m; r0 += B) {
			size_t r1 = r0 + B < m ? r0 + B : m;
			size_t c1 = c0 + B < n ? c0 + B : n;

			for (size_t c = c0; c < c1; c++)
				for (size_t r = r0; r < r1; r++)
					dst[c * m + r] = src[r * n + c];
		}
}

void oracle_reverse_rows32(const void *in, void *out,
			   struct exercise_shape s)
{
	const uint32_t *src = in;
	uint32_t *dst = out;
	size_t m = (size_t)s.m, n = (size_t)s.n;

	for (size_t r = 0; r < m; r++)
		for (size_t c = 0; c < n; c++)
			dst[r * n + c] = src[r * n + (n - 1 - c)];
}

void oracle_generate_float(uint64_t seed, size_t index,
			   struct exercise_shape s, void *in)
{
	exercise_fill_float(seed, index, in, exercise_shape_elems(s));
}

void oracle_generate_int(uint64_t seed, size_t index,
			 struct exercise_shape s, void *in)
{
	exercise_fill_int(seed, index, in, exercise_shape_elems(s));
}

const struct exercise_edge oracle_transpose_edges[ORACLE_TRANSPOSE_NEDGES] =
{
	{ { 1, 262147 }, 0, "one row, huge: many partial tiles in x" },
	{ { 262147, 1 }, 0, "one column, huge: a grid taller than 65,535 "
			    "rows of threads must be handled" },
	{ { 65, 65 }, 0, "just past a power of two: partial tiles both ways" },
	{ { 129, 257 }, 0, "just past powers of two, not square" },
	{ { 1025, 33 }, 0, "tall, just past powers of two" },
	{ { 33, 1025 }, 0, "wide, just past powers of two" },
	{ { 8192, 8192 }, EXERCISE_EDGE_GPU_ONLY, "the performance shape" },
};

_Static_assert(sizeof(oracle_transpose_edges) /
	       sizeof(oracle_transpose_edges[0]) == ORACLE_TRANSPOSE_NEDGES &&
	       ORACLE_TRANSPOSE_NEDGES > 0, "edge count");
