/*
 * dynamic_reverse: out[r*cols + c] = in[r*cols + (cols-1-c)] for int
 * matrices, staged through dynamic (extern __shared__) shared memory.
 */
#include "transpose_oracle.h"

static const struct exercise_edge edges[] = {
	{ { 1, 262147 }, 0, "one row of 1 MiB: more than one block's shared "
			    "memory" },
	{ { 262147, 1 }, 0, "many one-element rows: a grid taller than "
			    "65,535 rows must be handled" },
	{ { 3, 65537 }, 0, "rows of 256 KiB + 4 bytes: wider than a block's "
			   "shared memory, odd length" },
	{ { 65, 1025 }, 0, "just past powers of two" },
	{ { 257, 129 }, 0, "just past powers of two, narrow rows" },
	{ { 8192, 8192 }, EXERCISE_EDGE_GPU_ONLY, "the performance shape" },
};

const struct exercise exercise_dynamic_reverse = {
	.name = "dynamic_reverse",
	.launcher = "reverse_rows",
	.title = "Row reverse through dynamic shared memory",
	.dim_m = "rows",
	.dim_n = "cols",
	.elem_size = 4,
	.elem_is_float = 0,
	.generate = oracle_generate_int,
	.expected = oracle_reverse_rows32,
	.edges = edges,
	.nedges = sizeof(edges) / sizeof(edges[0]),
	.perf_shape = { 8192, 8192 },
	.measure_lo = { 48, 256 },
	.measure_hi = { 300, 3000 },
	.techniques = EXERCISE_TECH_COALESCED | EXERCISE_TECH_DYNAMIC_SHARED,
	.hint_loads =
		"consecutive threads should read consecutive elements of a "
		"row of `in`",
	.hint_stores =
		"consecutive threads should write consecutive elements of a "
		"row of `out`: reverse the order inside shared memory, not "
		"in global memory",
	.hint_dynamic =
		"declare the buffer `extern __shared__ int buf[];` and give "
		"its size in bytes as the launch's third parameter, "
		"`<<<grid, block, bytes, stream>>>`",
};
