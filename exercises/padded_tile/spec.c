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
	.hint_conflicts =
		"a column of a [32][32] float tile lies in one bank, so a "
		"warp reading or writing down a column is served one thread "
		"at a time: pad each row of the tile to 33 floats",
};
