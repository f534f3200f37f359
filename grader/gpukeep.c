/*
 * The GPU keeper (see gpukeep.h): the probe in hold mode, run by a
 * thread of its own through the sandbox module until the batch cancels it.
 */
#include "gpukeep.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "gpus.h"
#include "paths.h"
#include "sandbox.h"
#include "util.h"

struct gpukeep {
	char probe[PATH_MAX];
	const char **env;
	volatile sig_atomic_t stop;
	pthread_t thread;
	struct sandbox_result res;
	int rc;
	pthread_mutex_t mu;
	int done, left; /* the keeper is gone; nobody waits for it */
};

static void keeper_free(struct gpukeep *k)
{
	sandbox_result_release(&k->res);
	pthread_mutex_destroy(&k->mu);
	free(k->env);
	free(k);
}

static void *keep(void *arg)
{
	struct gpukeep *k = arg;
	const char *argv[3] = { k->probe, "--hold", NULL };
	struct sandbox_spec spec;
	int left;

	/* trusted, ours: the batch's environment, no limit but the end */
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = k->env;
	spec.workdir = "/";
	spec.isolation = SANDBOX_ISOLATE_NONE;
	sandbox_limits_profile(SANDBOX_PROFILE_TRUSTED, 0, &spec.limits);
	spec.limits.out_cap = 4096;
	spec.cancel = &k->stop;
	k->rc = sandbox_run(&spec, &k->res);
	pthread_mutex_lock(&k->mu);
	k->done = 1;
	left = k->left;
	pthread_mutex_unlock(&k->mu);
	if (left) /* gpukeep_leave: ours to free */
		keeper_free(k);
	return NULL;
}

struct gpukeep *gpukeep_start(const char *gpu_env)
{
	struct gpukeep *k = xcalloc(1, sizeof(*k));

	/* NULL: the grader's own view, as it is */
	k->env = gpus_environ(gpu_env ? gpu_env : gpus_env_inherited());
	pthread_mutex_init(&k->mu, NULL);
	if (wg_path(k->probe, sizeof(k->probe), "build/wg-probe") ||
	    pthread_create(&k->thread, NULL, keep, k)) {
		warning("cannot keep the GPU initialised while grading");
		keeper_free(k);
		return NULL;
	}
	return k;
}

void gpukeep_cancel(struct gpukeep *k)
{
	if (k)
		k->stop = 1;
}

void gpukeep_stop(struct gpukeep *k)
{
	if (!k)
		return;
	k->stop = 1;
	pthread_join(k->thread, NULL);
	if (k->rc)
		warning("the GPU keeper did not run: %s", k->res.error);
	keeper_free(k);
}

void gpukeep_leave(struct gpukeep *k)
{
	int done;

	if (!k)
		return;
	pthread_mutex_lock(&k->mu);
	k->stop = 1;
	k->left = 1;
	done = k->done;
	pthread_mutex_unlock(&k->mu);
	pthread_detach(k->thread);
	if (done)
		keeper_free(k);
}
