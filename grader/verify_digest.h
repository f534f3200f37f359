/*
 * What a GPU runner's DIGEST frame (PROTO_JOB_DIGESTS) must say for its
 * output to be the oracle's: the digest (exercise_digest) of the guarded
 * region that holds the expected output between guard bands, and of the
 * input.  A digest stands for the bytes it was computed from: a runner
 * that could send the expected digest could as well send the expected
 * bytes, so a match proves what a byte-for-byte match proves.  On a
 * mismatch the grader asks for the bytes, and judges them as always.
 */
#ifndef VERIFY_DIGEST_H
#define VERIFY_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* exercise_digest of the guarded region of an output of elems elements
 * of es bytes (out) between guard bands of PROTO_GUARD_ELEMS elements of
 * PROTO_GUARD_BYTE, without building the region: only the few blocks
 * that straddle a band are copied. */
uint64_t verify_region_digest(const unsigned char *out, size_t elems,
			      size_t es);

#endif
