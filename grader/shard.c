/*
 * Shards of a batch (see shard.h): parsing K/N, the Slurm array
 * variables, and which entries a shard owns.
 */
#include "shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void shard_init(struct shard *sh)
{
	sh->k = 0;
	sh->n = 1;
}

/* A decimal number, digits only, at most SHARD_MAX; 0 or -1. */
static int parse_count(const char *s, size_t len, unsigned long *v)
{
	unsigned long x = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (unsigned long)(s[i] - '0');
		if (x > SHARD_MAX)
			return -1;
	}
	*v = x;
	return 0;
}

int shard_parse(struct shard *sh, const char *text, char *err, size_t len)
{
	const char *slash = strchr(text, '/');
	unsigned long k, n;

	if (!slash || parse_count(text, (size_t)(slash - text), &k) ||
	    parse_count(slash + 1, strlen(slash + 1), &n)) {
		snprintf(err, len, "bad shard '%s': expected K/N, two numbers "
			 "up to %u (K counts from 0)", text, SHARD_MAX);
		return -1;
	}
	if (n == 0) {
		snprintf(err, len, "bad shard '%s': N must be at least 1",
			 text);
		return -1;
	}
	if (k >= n) {
		snprintf(err, len, "bad shard '%s': K must be 0 to %lu "
			 "(K counts from 0)", text, n - 1);
		return -1;
	}
	sh->k = (unsigned)k;
	sh->n = (unsigned)n;
	return 0;
}

/* The value of a Slurm variable as a number; -1 (with err) when it is set
 * but not a number, 1 when unset and not required. */
static int env_number(const char *name, int required, unsigned long *v,
		      char *err, size_t len)
{
	const char *s = getenv(name);

	if (!s || !*s) {
		if (!required)
			return 1;
		snprintf(err, len, "SLURM_ARRAY_TASK_ID is set but %s is "
			 "not: pass --shard K/N", name);
		return -1;
	}
	if (parse_count(s, strlen(s), v)) {
		snprintf(err, len, "bad %s '%s': expected a number up to %u",
			 name, s, SHARD_MAX);
		return -1;
	}
	return 0;
}

int shard_from_env(struct shard *sh, char *err, size_t len)
{
	unsigned long id, count, min = 0, step = 1;
	int r;

	r = env_number("SLURM_ARRAY_TASK_ID", 0, &id, err, len);
	if (r)
		return r > 0 ? 0 : -1;
	if (env_number("SLURM_ARRAY_TASK_COUNT", 1, &count, err, len) ||
	    env_number("SLURM_ARRAY_TASK_MIN", 0, &min, err, len) < 0 ||
	    env_number("SLURM_ARRAY_TASK_STEP", 0, &step, err, len) < 0)
		return -1;
	if (!step)
		step = 1;
	if (!count || id < min || (id - min) % step ||
	    (id - min) / step >= count) {
		snprintf(err, len, "cannot take the shard from the Slurm array "
			 "(task %lu, %lu tasks from %lu in steps of %lu): the "
			 "array is not a range of tasks; pass --shard K/N",
			 id, count, min, step);
		return -1;
	}
	sh->k = (unsigned)((id - min) / step);
	sh->n = (unsigned)count;
	return 1;
}

int shard_owns(const struct shard *sh, size_t index)
{
	return sh->n <= 1 || index % sh->n == sh->k;
}

size_t shard_count(const struct shard *sh, size_t total)
{
	if (sh->n <= 1)
		return total;
	return total / sh->n + (sh->k < total % sh->n);
}

char *shard_file(const struct shard *sh, const char *out, const char *base)
{
	if (sh->n <= 1)
		return xstrfmt("%s/%s", out, base);
	return xstrfmt("%s/%s-%u-of-%u", out, base, sh->k, sh->n);
}

void shard_format(const struct shard *sh, char *buf, size_t len)
{
	snprintf(buf, len, "%u/%u", sh->k, sh->n);
}
