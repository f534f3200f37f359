/*
 * Shards of a batch: `warpgrade batch --shard K/N` grades the K-th of N
 * slices of the submissions directory, so that N processes -- a Slurm job
 * array's tasks, or hosts sharing a results directory -- grade one class
 * together without talking to each other.
 *
 * The slices are deterministic: the entries are sorted by name (as batch
 * lists them) and entry i, counted from 0, belongs to shard i mod N.
 * Every shard gets the same number of entries give or take one, whatever
 * the names, and the same K/N always takes the same entries for the same
 * directory.  K counts from 0, like a Slurm array `--array=0-(N-1)`.
 *
 * Shards need no merge step: each result is its own atomically written
 * <name>.json, and each shard has its own lock and work directory in the
 * results directory (shard_file), so shards never wait for or clean up
 * after one another.
 */
#ifndef SHARD_H
#define SHARD_H

#include <stddef.h>

struct shard {
	unsigned k;  /* this shard, 0 <= k < n */
	unsigned n;  /* number of shards; 1: the whole directory */
};

#define SHARD_MAX 100000u

/* The whole directory: shard 0 of 1. */
void shard_init(struct shard *sh);

/* Parse "K/N" (decimal, 0 <= K < N <= SHARD_MAX).  0, or -1 with a
 * message naming the text and the reason in err. */
int shard_parse(struct shard *sh, const char *text, char *err, size_t len);

/*
 * The shard of a Slurm array task, from SLURM_ARRAY_TASK_ID,
 * SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_STEP
 * (getenv): K = (ID - MIN) / STEP, N = COUNT, so arrays that start
 * elsewhere than 0 or step work too.  Returns 1 when set from the
 * environment, 0 when SLURM_ARRAY_TASK_ID is not set (sh untouched), -1
 * with a message in err when the variables are inconsistent (an array
 * given as a list, say): pass --shard then.
 */
int shard_from_env(struct shard *sh, char *err, size_t len);

/* 1 when entry `index` of the sorted list belongs to the shard. */
int shard_owns(const struct shard *sh, size_t index);

/* How many of `total` entries the shard owns. */
size_t shard_count(const struct shard *sh, size_t total);

/* The per-shard name of a batch's private file in the results directory:
 * "<out>/<base>" for the whole directory, "<out>/<base>-K-of-N" for a
 * shard (base is ".lock" or ".work").  Owned by the caller. */
char *shard_file(const struct shard *sh, const char *out, const char *base);

/* "K/N" into buf, for messages. */
void shard_format(const struct shard *sh, char *buf, size_t len);

#endif
