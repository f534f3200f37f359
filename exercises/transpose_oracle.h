/*
 * The oracle functions the exercises share: three of the four compute a
 * transpose of a dense row-major matrix (AoS->SoA is the transpose of a
 * count x fields matrix), the fourth a reversal of every row.
 */
#ifndef TRANSPOSE_ORACLE_H
#define TRANSPOSE_ORACLE_H

#include "exercise.h"

/* out[c*m + r] = in[r*n + c] for 4-byte elements */
void oracle_transpose32(const void *in, void *out, struct exercise_shape s);
/* out[r*n + c] = in[r*n + (n-1-c)] for 4-byte elements */
void oracle_reverse_rows32(const void *in, void *out,
			   struct exercise_shape s);
/* The edge shapes both transpose exercises use (oracles.c checks the
 * count at compile time). */
#define ORACLE_TRANSPOSE_NEDGES 7
extern const struct exercise_edge
	oracle_transpose_edges[ORACLE_TRANSPOSE_NEDGES];

void oracle_generate_float(uint64_t seed, size_t index,
			   struct exercise_shape s, void *in);
void oracle_generate_int(uint64_t seed, size_t index,
			 struct exercise_shape s, void *in);

#endif
