/*
 * CPU oracles shared by the exercises (see transpose_oracle.h).  They run
 * in the grader on hundreds of megabytes for the performance shape, so the
 * transpose goes by 32x32 blocks to stay cache-friendly.
 */
#include "transpose_oracle.h"

#include <stdint.h>

void oracle_transpose32(const void *in, void *out, struct exercise_shape s)
{
	const uint32_t *src = in;
	uint32_t *dst = out;
	size_t m = (size_t)s.m, n = (size_t)s.n;
	const size_t B = 32;

	for (size_t r0 = 0; r0 < m; r0 += B)
		for (size_t c0 = 0; c0 < n; c0 += B) {
			size_t r1 = r0 + B < m ? r0 + B : m;
			size_t c1 = c0 + B < n ? c0 + B : n;

			for (size_t r = r0; r < r1; r++)
				for (size_t c = c0; c < c1; c++)
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
