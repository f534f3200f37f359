/*
 * Scoring (see score.h).  Default scheme, per exercise of 25 points:
 * correctness 15 (10 x sweep fraction + 5 x edge fraction), technique 4
 * (only once the whole sweep passes, so an empty stub earns nothing for
 * moving no data), performance 6 x min(1, speedup) only when every
 * correctness shape passed and no measurement flag was raised.
 */
#include "score.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox.h"

void score_config_default(struct score_config *c)
{
	memset(c, 0, sizeof(*c));
	c->sweep_points = 10;
	c->edge_points = 5;
	c->technique_points = 4;
	c->performance_points = 6;
	c->coalescing_limit = 1.25;
	c->floor_tolerance = 0.95;
	c->perf_reps = 30;
	c->compile_timeout_s = 120;
	c->compile_data_limit_bytes = 4ULL << 30;
	c->correctness_timeout_s = 120;
	c->perf_timeout_s = 180;
	c->counters_timeout_s = 120;
	c->cpu_factor = 1.0;
	c->data_limit_bytes = 16ULL << 30;
	c->nproc_limit = 256;
	c->fsize_limit_bytes = 64ULL << 20;
	c->nofile_limit = 256;
	c->output_cap_bytes = 64 << 10;
	snprintf(c->predict_gpu, sizeof(c->predict_gpu), "H100");
}

void score_runner_limits(const struct score_config *c, double wall_s,
			 struct sandbox_limits *l)
{
	sandbox_limits_profile(SANDBOX_PROFILE_RUNNER, wall_s, l);
	l->cpu_s = wall_s * c->cpu_factor;
	l->data_bytes = c->data_limit_bytes;
	l->nproc = c->nproc_limit;
	l->fsize_bytes = c->fsize_limit_bytes;
	l->nofile = c->nofile_limit;
	l->out_cap = c->output_cap_bytes;
}

/* "predict_gpu": a GPU the emulator's performance model knows. */
static int load_predict_gpu(struct score_config *c, const char *path,
			    json_t *v, char *err, size_t errlen)
{
	const char *s = json_is_string(v) ? json_string_value(v) : "";

	if (strcmp(s, "H100") && strcmp(s, "H200")) {
		snprintf(err, errlen, "config '%s': 'predict_gpu' must be "
			 "\"H100\" or \"H200\"", path);
		return -1;
	}
	snprintf(c->predict_gpu, sizeof(c->predict_gpu), "%s", s);
	return 0;
}

double score_max(const struct score_config *c)
{
	return c->sweep_points + c->edge_points + c->technique_points +
	       c->performance_points;
}

struct key {
	const char *name;
	char type; /* d: double >= 0, u: unsigned, z: size */
	size_t off;
	double max;
};

#define K(n, t, f, m) { n, t, offsetof(struct score_config, f), m }
static const struct key keys[] = {
	K("sweep_points", 'd', sweep_points, 1e6),
	K("edge_points", 'd', edge_points, 1e6),
	K("technique_points", 'd', technique_points, 1e6),
	K("performance_points", 'd', performance_points, 1e6),
	K("coalescing_limit", 'd', coalescing_limit, 100),
	K("floor_tolerance", 'd', floor_tolerance, 1),
	K("perf_reps", 'u', perf_reps, 1000),
	K("compile_timeout_s", 'd', compile_timeout_s, 86400),
	K("compile_data_limit_bytes", 'U', compile_data_limit_bytes, 1e15),
	K("correctness_timeout_s", 'd', correctness_timeout_s, 86400),
	K("perf_timeout_s", 'd', perf_timeout_s, 86400),
	K("counters_timeout_s", 'd', counters_timeout_s, 86400),
	K("cpu_factor", 'd', cpu_factor, 64),
	K("data_limit_bytes", 'U', data_limit_bytes, 1e15),
	K("nproc_limit", 'u', nproc_limit, 1e6),
	K("fsize_limit_bytes", 'U', fsize_limit_bytes, 1e15),
	K("nofile_limit", 'u', nofile_limit, 1e6),
	K("output_cap_bytes", 'z', output_cap_bytes, 1e9),
};

int score_config_load(struct score_config *c, const char *path, char *err,
		      size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	const char *k;
	json_t *v;
	int rc = -1;

	if (!root) {
		snprintf(err, errlen, "cannot read config '%s': %s (line %d)",
			 path, je.text, je.line);
		return -1;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "config '%s': top level is not an object",
			 path);
		goto out;
	}
	json_object_foreach(root, k, v) {
		const struct key *key = NULL;
		double d;

		if (!strcmp(k, "predict_gpu")) {
			if (load_predict_gpu(c, path, v, err, errlen))
				goto out;
			continue;
		}
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(keys[i].name, k))
				key = &keys[i];
		if (!key) {
			snprintf(err, errlen, "config '%s': unknown key '%s'",
				 path, k);
			goto out;
		}
		if (!json_is_number(v)) {
			snprintf(err, errlen,
				 "config '%s': '%s' is not a number", path, k);
			goto out;
		}
		d = json_number_value(v);
		if (!(d >= 0 && d <= key->max) ||
		    (key->type != 'd' && d != floor(d))) {
			snprintf(err, errlen,
				 "config '%s': '%s' out of range (%g)", path,
				 k, d);
			goto out;
		}
		switch (key->type) {
		case 'd':
			*(double *)((char *)c + key->off) = d;
			break;
		case 'u':
			*(unsigned *)((char *)c + key->off) = (unsigned)d;
			break;
		case 'U':
			*(unsigned long long *)((char *)c + key->off) =
				(unsigned long long)d;
			break;
		default:
			*(size_t *)((char *)c + key->off) = (size_t)d;
		}
	}
	if (c->perf_reps < 5) {
		snprintf(err, errlen, "config '%s': 'perf_reps' must be >= 5",
			 path);
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (!n)
		return NAN;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void score_speedup(const double *ref, const double *student, size_t n,
		   double *speedup, double *lo, double *hi)
{
	double *a = calloc(n ? n : 1, sizeof(double));
	double *b = calloc(n ? n : 1, sizeof(double));
	double *ratio = calloc(n ? n : 1, sizeof(double));
	double half;
	long l, h;

	*speedup = *lo = *hi = NAN;
	if (!a || !b || !ratio || !n)
		goto out;
	for (size_t i = 0; i < n; i++) {
		a[i] = ref[i];
		b[i] = student[i];
		ratio[i] = student[i] > 0 ? ref[i] / student[i] : INFINITY;
	}
	*speedup = median_of(a, n) / median_of(b, n);
	/* order statistics bracketing the median with ~95% coverage
	 * (normal approximation of the binomial, n >= 5) */
	qsort(ratio, n, sizeof(double), cmp_double);
	half = 0.98 * sqrt((double)n);
	l = (long)floor((double)n / 2 - half);
	h = (long)ceil((double)n / 2 + half);
	if (l < 0)
		l = 0;
	if (h > (long)n - 1)
		h = (long)n - 1;
	*lo = ratio[l];
	*hi = ratio[h];
out:
	free(a);
	free(b);
	free(ratio);
}

void score_exercise(const struct score_config *c, struct exercise_result *e)
{
	int complete;

	e->max_score = score_max(c);
	e->score_correctness = e->score_technique = 0;
	e->score_performance = 0;
	switch (e->status) {
	case STATUS_CE:
	case STATUS_MISSING:
	case STATUS_REJECTED:
	case STATUS_XX:
		e->score = 0;
		return;
	default:
		break;
	}
	if (e->sweep_total)
		e->score_correctness += c->sweep_points *
			(double)e->sweep_passed / (double)e->sweep_total;
	if (e->edge_total)
		e->score_correctness += c->edge_points *
			(double)e->edge_passed / (double)e->edge_total;
	complete = e->total && e->passed == e->total;

	/* technique */
	e->technique_passed = e->nchecks ? 1 : -1;
	for (size_t i = 0; i < e->nchecks; i++) {
		if (e->checks[i].passed == 0)
			e->technique_passed = 0;
		else if (e->checks[i].passed < 0 && e->technique_passed == 1)
			e->technique_passed = -1;
	}
	if (e->sweep_total && e->sweep_passed == e->sweep_total &&
	    e->nchecks) {
		size_t ok = 0;

		for (size_t i = 0; i < e->nchecks; i++)
			ok += e->checks[i].passed == 1;
		e->score_technique = c->technique_points * (double)ok /
				     (double)e->nchecks;
	}

	/* performance: against the reference, or -- without one, in a
	 * student kit -- against 90% of the copy bandwidth, the level the
	 * reference kernels reach */
	if (complete && !e->nflags) {
		double ratio = NAN;

		if (isfinite(e->speedup) && e->speedup > 0)
			ratio = e->speedup;
		else if (!strcmp(e->perf_model, "bandwidth") &&
			 isfinite(e->bandwidth_fraction))
			ratio = e->bandwidth_fraction / 0.9;
		if (isfinite(ratio))
			e->score_performance = c->performance_points *
				(ratio < 1 ? ratio : 1);
	}

	if (e->status == STATUS_OK && complete && e->technique_passed == 0)
		e->status = STATUS_TECH;
	if (e->status == STATUS_OK && !complete)
		e->status = STATUS_WA; /* shapes not run count as failed */
	e->score = e->score_correctness + e->score_technique +
		   e->score_performance;
	/* two decimals in every report */
	e->score = round(e->score * 100) / 100;
}
