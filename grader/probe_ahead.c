/*
 * The GPU probe beside the builds (see probe_ahead.h).
 */
#include "probe_ahead.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

struct probe_ahead {
	struct gpulock *lock;
	char *guess;   /* the remembered answer the grade went on with */
	char *answer;  /* the probe's, once joined */
	int probe_rc;  /* -1: the lock could not be had */
	pthread_t thread;
	pthread_mutex_t mu;
	int joined, agrees;
};

/* build/cache/probe/<FNV-1a of CUDA_VISIBLE_DEVICES> into path; 0 or
 * -1.  mkdirs: create the directories. */
static int answer_path(char *path, size_t n, int mkdirs)
{
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	uint64_t h = 0xcbf29ce484222325ULL;
	char rel[64];

	/* unset and empty differ: empty shows no GPU */
	for (const char *c = vis ? vis : "(unset)"; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	/* a tree it may not write to (installed read-only) remembers
	 * nothing, and says nothing of it */
	if (mkdirs) {
		if (wg_path(path, n, "build/cache") ||
		    (mkdir(path, 0700) && errno != EEXIST) ||
		    wg_path(path, n, "build/cache/probe") ||
		    (mkdir(path, 0700) && errno != EEXIST) ||
		    access(path, W_OK))
			return -1;
	}
	snprintf(rel, sizeof(rel), "build/cache/probe/%016" PRIx64, h);
	return wg_path(path, n, rel);
}

int probe_ahead_path(char *path, size_t n)
{
	return answer_path(path, n, 1);
}

static char *remembered(void)
{
	char path[4096];

	if (answer_path(path, sizeof(path), 0))
		return NULL;
	return read_file(path, 1 << 16, NULL);
}

static void remember(const char *answer)
{
	char path[4096];

	if (answer && !answer_path(path, sizeof(path), 1))
		(void)write_file_atomic(path, answer, strlen(answer));
}

/* The probe under the lock, shared: its answer, or -1. */
static int probe_locked(struct gpulock *lock, char **answer)
{
	if (lock && gpulock_acquire(lock, GPULOCK_SHARED))
		return -1;
	*answer = build_probe_answer();
	gpulock_release(lock);
	return 0;
}

static void *probe_thread(void *arg)
{
	struct probe_ahead *a = arg;

	a->probe_rc = probe_locked(a->lock, &a->answer);
	return NULL;
}

static int cache_on(void)
{
	const char *s = getenv("WARPGRADE_PROBE_CACHE");

	return !s || strcmp(s, "0");
}

int probe_ahead_env(struct build_env *env, const struct score_config *cfg,
		    struct gpulock *lock, int guess,
		    struct probe_ahead **ahead)
{
	char *answer = NULL;
	int rc;

	*ahead = NULL;
	if (guess && cache_on() && (answer = remembered())) {
		struct probe_ahead *a = xcalloc(1, sizeof(*a));

		a->lock = lock;
		a->guess = answer;
		pthread_mutex_init(&a->mu, NULL);
		if (!pthread_create(&a->thread, NULL, probe_thread, a)) {
			*ahead = a;
			return build_env_from(env, cfg, answer);
		}
		pthread_mutex_destroy(&a->mu);
		free(a);
		free(answer);
	}
	if (probe_locked(lock, &answer))
		return -1;
	rc = build_env_from(env, cfg, answer);
	if (cache_on())
		remember(answer);
	free(answer);
	return rc;
}

int probe_ahead_agrees(struct probe_ahead *a)
{
	int agrees;

	if (!a)
		return 1;
	pthread_mutex_lock(&a->mu);
	if (!a->joined) {
		pthread_join(a->thread, NULL);
		a->joined = 1;
		a->agrees = !a->probe_rc && a->answer &&
			    !strcmp(a->answer, a->guess);
		if (!a->agrees)
			remember(a->answer);
	}
	agrees = a->agrees;
	pthread_mutex_unlock(&a->mu);
	return agrees;
}

void probe_ahead_free(struct probe_ahead *a)
{
	if (!a)
		return;
	(void)probe_ahead_agrees(a);
	pthread_mutex_destroy(&a->mu);
	free(a->guess);
	free(a->answer);
	free(a);
}
