/*
 * The exercise table: what every part of warpgrade knows about an exercise.
 *
 * Each exercise folder provides one `const struct exercise` (its oracle and
 * its spec); exercises/exercises.c lists them.  The table is plain C with no
 * CUDA in it, so the grader (trusted, never touches CUDA) and the runner
 * (untrusted side) link the very same code: the runner generates inputs
 * with ex->generate and the grader regenerates them to compute the expected
 * output with ex->expected.  Correctness is never decided by the runner.
 *
 * Shapes are (m, n): rows x cols for matrices, count x fields for AoS->SoA.
 * The correctness domain of every exercise is all 1 <= m, n <= 64 (the
 * "sweep", 4,096 shapes, in index order m-major: index = (m-1)*64 + (n-1)),
 * then the exercise's edge shapes, then EXERCISE_MEASURED shapes drawn
 * from the run's seed inside the exercise's measure range: the measured
 * calls, whose launch records the grader replays for the technique checks
 * and the emulator's performance figure.  They are checked like every
 * other shape and run at positions the seed chooses, so a launcher can
 * neither know their sizes in advance nor tell them apart by call count.
 */
#ifndef EXERCISE_H
#define EXERCISE_H

#include <stddef.h>
#include <stdint.h>

#define EXERCISE_SWEEP_MAX 64
#define EXERCISE_SWEEP_COUNT (EXERCISE_SWEEP_MAX * EXERCISE_SWEEP_MAX)

/* Technique checks an exercise asks for (bit set). */
#define EXERCISE_TECH_COALESCED     0x1u /* global sectors/request near ideal */
#define EXERCISE_TECH_NO_CONFLICTS  0x2u /* zero shared-memory bank conflicts */
#define EXERCISE_TECH_DYNAMIC_SHARED 0x4u /* extern __shared__ sized at launch */

/* Edge-shape flags. */
#define EXERCISE_EDGE_GPU_ONLY 0x1u /* too large to interpret: GPU backend only */
#define EXERCISE_SHAPE_MEASURED 0x2u /* a measured call (drawn from the seed) */

/* Measured shapes per run: one with both dimensions multiples of 32 where
 * the range allows, the others anywhere in the range. */
#define EXERCISE_MEASURED 3

struct exercise_shape {
	int64_t m;
	int64_t n;
};

struct exercise_edge {
	struct exercise_shape shape;
	unsigned flags;
	const char *why; /* one line: what this shape catches */
};

struct exercise {
	const char *name;      /* folder and file stem, e.g. "padded_tile" */
	const char *launcher;  /* student launcher symbol (C linkage) */
	const char *title;     /* one line for reports */
	const char *dim_m;     /* "rows" or "count" */
	const char *dim_n;     /* "cols" or "fields" */
	size_t elem_size;      /* bytes per element (4 for every exercise now) */
	int elem_is_float;     /* 1: float, 0: int32 (for printing values) */

	/* Fill in[0 .. m*n) for shape index `index` of a run seeded `seed`.
	 * Deterministic: same (seed, index, shape) gives the same bytes. */
	void (*generate)(uint64_t seed, size_t index, struct exercise_shape s,
			 void *in);
	/* out[0 .. m*n) = the exercise's function of in. */
	void (*expected)(const void *in, void *out, struct exercise_shape s);

	const struct exercise_edge *edges;
	size_t nedges;
	struct exercise_shape perf_shape;    /* ~256 MB per buffer, GPU timing */
	/* Inclusive range of the measured shapes: large enough for the
	 * traffic of many blocks, small enough to interpret twice. */
	struct exercise_shape measure_lo, measure_hi;
	unsigned techniques;                 /* EXERCISE_TECH_* */

	/* The output is n x m (the transposes, AoS->SoA) rather than
	 * m x n: how a report draws it as a matrix. */
	int out_transposed;
	/* Feedback in the exercise's terms, one clause each (NULL: none):
	 * what a strided load or store usually is here and the cure; the
	 * same for a bank conflict and for static shared memory. */
	const char *hint_loads;
	const char *hint_stores;
	const char *hint_conflicts;
	const char *hint_dynamic;
};

/* The table, in report order; exercise_count() entries. */
extern const struct exercise *const exercise_table[];
size_t exercise_count(void);

/* Lookup by folder name; NULL when unknown. */
const struct exercise *exercise_find(const char *name);

/* Number of fixed correctness shapes: the sweep plus the edges. */
size_t exercise_nshapes(const struct exercise *ex);
/* Shape number `index` of the fixed domain (sweep first, then edges).
 * *flags receives the edge flags (0 for sweep shapes); it may be NULL. */
struct exercise_shape exercise_shape_at(const struct exercise *ex,
					size_t index, unsigned *flags);
/* Every shape of a run: the fixed ones and the measured ones. */
size_t exercise_nshapes_all(const struct exercise *ex);
/* Shape `index` < exercise_nshapes_all of a run seeded `seed`: fixed
 * shapes as exercise_shape_at, measured ones (flag EXERCISE_SHAPE_MEASURED)
 * drawn from the seed. */
struct exercise_shape exercise_shape_of(const struct exercise *ex,
					uint64_t seed, size_t index,
					unsigned *flags);
/* The order a runner calls the launcher in: order[i] is the shape index
 * of call i (exercise_nshapes_all entries): the fixed shapes in index
 * order with the measured ones inserted where the seed says. */
void exercise_call_order(const struct exercise *ex, uint64_t seed,
			 size_t *order);

/* Elements in a shape (m*n). */
static inline size_t exercise_shape_elems(struct exercise_shape s)
{
	return (size_t)s.m * (size_t)s.n;
}

/* Shared helpers for generators and the harness. */
uint64_t exercise_mix64(uint64_t x); /* splitmix64 finaliser */
/* Finite floats, mixed signs and magnitudes, no NaN/Inf/denormal. */
void exercise_fill_float(uint64_t seed, size_t index, float *p, size_t n);
void exercise_fill_int(uint64_t seed, size_t index, int32_t *p, size_t n);
/* 64-bit FNV-1a over bytes, used for the "input unchanged" check. */
uint64_t exercise_hash(const void *p, size_t n);

/*
 * A digest of n bytes that a GPU computes in parallel: exercise_hash of
 * each EXERCISE_DIGEST_BLOCK bytes (the last block shorter), then those
 * block hashes folded in order into one value with n (exercise_digest_
 * fold).  A GPU runner sends the digests of a large output and its input
 * instead of their bytes (harness/runner_kernels.cu hashes the blocks
 * the same way); the grader compares them with its own oracle's.
 */
#define EXERCISE_DIGEST_BLOCK ((size_t)64 * 1024)
uint64_t exercise_digest(const void *p, size_t n);
/* The digest of n bytes from the hashes of their blocks, in order. */
uint64_t exercise_digest_fold(const uint64_t *block_hash, size_t n);
/* How many blocks n bytes have. */
static inline size_t exercise_digest_blocks(size_t n)
{
	return (n + EXERCISE_DIGEST_BLOCK - 1) / EXERCISE_DIGEST_BLOCK;
}

#endif
