/*
 * coalesced_transpose: out[c*rows + r] = in[r*cols + c] for float matrices.
 * Technique: coalesced global loads and stores.
 */
#include "transpose_oracle.h"

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
	.edges = oracle_transpose_edges,
	.nedges = ORACLE_TRANSPOSE_NEDGES,
	.perf_shape = { 8192, 8192 },
	.measure_lo = { 160, 160 },
	.measure_hi = { 520, 520 },
	.techniques = EXERCISE_TECH_COALESCED,
};
