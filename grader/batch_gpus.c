/*
 * The GPUs of a GPU batch (see batch_gpus.h).
 */
#include "batch_gpus.h"

#include <stdlib.h>
#include <string.h>

#include "gpukeep.h"
#include "util.h"

/* Are the n GPUs of list to go in pairs (batch_gpus.h)? */
static int split_roles(const struct gpu_info *list, size_t n)
{
	const char *roles = getenv("WARPGRADE_GPU_ROLES");

	if (n < 2 || (roles && !strcmp(roles, "shared")))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (strcmp(list[i].name, list[0].name))
			return 0;
	return 1;
}

/* One GPU of several: its lock file, the environment that shows it
 * alone, and its description for a child that times on it. */
static void init_one(struct batch_gpu *x, const char *base,
		     const struct gpu_info *gi)
{
	x->lock = xstrfmt("%s-%s", base, gi->uuid);
	x->env = gpus_env_entry(gi);
	x->environ = gpus_environ(x->env);
	x->spec = gpus_spec(gi);
}

void batch_gpus_init(struct batch_gpus *g, const char *base,
		     const struct gpu_info *list, size_t n)
{
	size_t k = n > 1 ? n : 1;
	int pairs = split_roles(list, n);

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	g->v = xcalloc(k, sizeof(*g->v));
	g->n = k;
	if (n <= 1) {
		g->v[0].lock = xstrdup(base);
		g->v[0].environ = gpus_environ(gpus_env_inherited());
		return;
	}
	for (size_t i = 0; i < k; i++)
		init_one(&g->v[i], base, &list[i]);
	for (size_t i = 0; pairs && i + 1 < k; i += 2) {
		g->v[i].timer = &g->v[i + 1];
		g->v[i + 1].times_only = 1;
	}
}

void batch_gpus_keep(struct batch_gpus *g)
{
	for (size_t i = 0; i < g->n; i++)
		g->v[i].keeper = gpukeep_start(g->v[i].env);
}

struct batch_gpu *batch_gpus_take(struct batch_gpus *g)
{
	struct batch_gpu *best = NULL;

	pthread_mutex_lock(&g->mu);
	for (size_t i = 0; i < g->n; i++)
		if (!g->v[i].times_only &&
		    (!best || g->v[i].busy < best->busy))
			best = &g->v[i];
	if (best) {
		best->busy++;
		best->graded++;
	}
	pthread_mutex_unlock(&g->mu);
	return best;
}

void batch_gpus_put(struct batch_gpus *g, struct batch_gpu *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&g->mu);
	x->busy--;
	pthread_mutex_unlock(&g->mu);
}

void batch_gpus_release(struct batch_gpus *g)
{
	if (!g->v)
		return;
	for (size_t i = 0; i < g->n; i++) {
		gpukeep_stop(g->v[i].keeper);
		free(g->v[i].lock);
		free(g->v[i].env);
		free(g->v[i].spec);
		free(g->v[i].environ);
	}
	free(g->v);
	pthread_mutex_destroy(&g->mu);
	memset(g, 0, sizeof(*g));
}
