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
	.out_transposed = 1,
	.hint_loads =
		"a thread per element reading `in[r * cols + c]` with "
		"threadIdx.x running over r steps down a column of `in`, "
		"4·cols bytes from its neighbour: let threadIdx.x run over "
		"the column index c",
	.hint_stores =
		"a thread per element writing `out[c * rows + r]` steps "
		"down a column of `out`, 4·rows bytes from its neighbour: "
		"stage a 32x32 tile in shared memory and write it out with "
		"threadIdx.x along a row of `out`",
};
