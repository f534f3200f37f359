/*
 * The GPUs of a GPU batch (see batch_gpus.h).
 */
#include "batch_gpus.h"

#include <stdlib.h>
#include <string.h>

#include "gpukeep.h"
#include "util.h"

void batch_gpus_init(struct batch_gpus *g, const char *base,
		     const struct gpu_info *list, size_t n)
{
	size_t k = n > 1 ? n : 1;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	g->v = xcalloc(k, sizeof(*g->v));
	g->n = k;
	for (size_t i = 0; i < k; i++) {
		struct batch_gpu *x = &g->v[i];

		if (n > 1) {
			x->lock = xstrfmt("%s-%s", base, list[i].uuid);
			x->env = gpus_env_entry(&list[i]);
		} else {
			x->lock = xstrdup(base);
		}
		x->environ = gpus_environ(x->env ? x->env :
					  gpus_env_inherited());
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
		if (!best || g->v[i].busy < best->busy)
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
		free(g->v[i].environ);
	}
	free(g->v);
	pthread_mutex_destroy(&g->mu);
	memset(g, 0, sizeof(*g));
}
