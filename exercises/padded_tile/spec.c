/*
 * padded_tile: the transpose again, through a shared-memory tile that
 * must be free of bank conflicts.
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

const struct exercise exercise_padded_tile = {
	.name = "padded_tile",
	.launcher = "padded_tile_transpose",
	.title = "Padded shared-memory tile transpose",
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
	.techniques = EXERCISE_TECH_COALESCED | EXERCISE_TECH_NO_CONFLICTS,
};
