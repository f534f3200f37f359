/*
 * aos_to_soa: soa[f*count + i] = aos[i*fields + f] -- the transpose of a
 * count x fields matrix, with records usually narrow (3 fields) and, at the
 * edges, wider than shared memory can stage.
 */
#include "transpose_oracle.h"

static const struct exercise_edge edges[] = {
	{ { 262147, 1 }, 0, "many one-field records" },
	{ { 1, 262147 }, 0, "one record of 262,147 fields: wider than any "
			    "block's shared memory" },
	{ { 5, 16384 }, 0, "records of 64 KiB: wider than the 48 KiB a block "
			   "gets by default" },
	{ { 65537, 3 }, 0, "just past a power of two, 12-byte records" },
	{ { 4097, 5 }, 0, "just past a power of two, 20-byte records" },
	{ { 1025, 4 }, 0, "just past a power of two, 16-byte records" },
	{ { 1 << 24, 3 }, EXERCISE_EDGE_GPU_ONLY, "the performance shape" },
};

const struct exercise exercise_aos_to_soa = {
	.name = "aos_to_soa",
	.launcher = "aos_to_soa",
	.title = "Array of structures to structure of arrays",
	.dim_m = "count",
	.dim_n = "fields",
	.elem_size = 4,
	.elem_is_float = 1,
	.generate = oracle_generate_float,
	.expected = oracle_transpose32,
	.edges = edges,
	.nedges = sizeof(edges) / sizeof(edges[0]),
	.perf_shape = { 1 << 24, 3 },
	.measure_lo = { 6000, 2 },
	.measure_hi = { 24000, 8 },
	.techniques = EXERCISE_TECH_COALESCED,
	.out_transposed = 1,
	.hint_loads =
		"a thread per record reading field f of `aos[i * fields + "
		"f]` steps 4·fields bytes from its neighbour: read whole "
		"runs of records into shared memory with consecutive "
		"threads on consecutive floats",
	.hint_stores =
		"consecutive threads should write consecutive records of "
		"one field, `soa[f * count + i]` with threadIdx.x running "
		"over i",
};
