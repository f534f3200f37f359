/*
 * The oracle of an exercise's largest shape, computed ahead.  On a GPU
 * the performance shape's input and expected output are hundreds of
 * megabytes, and computing them when the runner's output arrives put
 * that CPU time on every grade's critical path; they depend only on the
 * seed, so a thread computes them (and maps the buffer the output will
 * arrive in) while the runner starts, with the digests a runner may send
 * instead of that output's bytes (verify_digest.h).  verify.c takes them
 * when that shape arrives.
 */
#ifndef VERIFY_AHEAD_H
#define VERIFY_AHEAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "exercise.h"

struct verify_ahead {
	pthread_t thread;
	int started;          /* a thread was started and not joined */
	int ready;            /* joined: the fields below are valid */
	const struct exercise *ex;
	uint64_t seed;
	size_t index;
	struct exercise_shape shape;
	size_t bytes;         /* of the input and of the output */
	unsigned char *in, *exp;
	uint64_t hash;        /* exercise_hash of the input */
	uint64_t in_digest;   /* exercise_digest of the input */
	uint64_t region_digest; /* of the expected guarded region */
	unsigned char *region; /* room for the guarded output region */
	size_t region_len;
};

/* Start computing shape index's input, hash, expected output and
 * digests, and
 * mapping region_len bytes; a no-op (nothing started) when a thread
 * cannot be had. */
void verify_ahead_start(struct verify_ahead *a, const struct exercise *ex,
			uint64_t seed, size_t index, size_t region_len);

/* 1, waiting for the thread, when index is the shape computed ahead and
 * its buffers are there; 0 otherwise. */
int verify_ahead_take(struct verify_ahead *a, size_t index);

/* For shape index's output: the mapped region (of at least want bytes),
 * now the caller's (free it with bigbuf_free(p, *len)); NULL when index
 * is not the shape computed ahead or there is none. */
unsigned char *verify_ahead_region(struct verify_ahead *a, size_t index,
				   size_t want, size_t *len);

/* Wait for the thread and free what is left; a zeroed a is a no-op. */
void verify_ahead_release(struct verify_ahead *a);

#endif
