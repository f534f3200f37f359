/*
 * padded_tile: the transpose again, through a shared-memory tile that
 * must be free of bank conflicts.
 */
#include "transpose_oracle.h"

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
	.edges = oracle_transpose_edges,
	.nedges = ORACLE_TRANSPOSE_NEDGES,
	.perf_shape = { 8192, 8192 },
	.measure_lo = { 160, 160 },
	.measure_hi = { 520, 520 },
	.techniques = EXERCISE_TECH_COALESCED | EXERCISE_TECH_NO_CONFLICTS,
};
