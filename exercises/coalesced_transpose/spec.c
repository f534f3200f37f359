/*
 * coalesced_transpose: out[c*rows + r] = in[r*cols + c] for float matrices.
 * Technique: coalesced global loads and stores.
 */
#include "transpose_oracle.h"

static const struct exercise_edge edges[] = {
	{ { 1, 262147 }, 0, "one row, huge: many partial tiles in x" },
	{ { 262147, 1 }, 0, "one column, huge: a grid taller than 65,535 "
			    "rows of threads must be handled" },
	{ { 65, 65 }, 0, "just past a power of two: partial tiles both ways" },
	{ { 129, 257 }, 0, "just past powers of two, not square" },
	{ { 1025, 33 }, 0, "tall, just past powers of two" },
	{ { 33, 1025 }, 0, "wide, just past powers of two" },
	{ { 8192, 8192 }, EXERCISE_EDGE_GPU_ONLY, "the performance shape" },
};

const struct exercise exercise_coalesced_transpose = {
	.name = "coalesced_transpose",
	.launcher = "coalesced_transpose",
	.title = "Coalesced transpose",
	.dim_m = "rows",
	.dim_n = "cols",
	.elem_size = 4,
	.elem_is_float = 1,
	.generate = oracle_generate_float,
	.expected = oracle_transpose32,
	.edges = edges,
	.nedges = sizeof(edges) / sizeof(edges[0]),
	.perf_shape = { 8192, 8192 },
	.counter_shape = { 256, 256 },
	.techniques = EXERCISE_TECH_COALESCED,
};
