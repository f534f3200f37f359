/*
 * Scoring: the grading configuration (defaults, or a JSON file given with
 * --config) and the arithmetic that turns verified evidence into points
 * and a final status.  Nothing here looks at what the runner claims; it
 * reads only an exercise_result that verify.c filled in.
 */
#ifndef SCORE_H
#define SCORE_H

#include <stddef.h>

#include "result.h"

struct score_config {
	double sweep_points;      /* 10: x fraction of the 4,096 sweep */
	double edge_points;       /* 5: x fraction of the edge shapes */
	double technique_points;  /* 4 */
	double performance_points; /* 6: x min(1, speedup) */
	double coalescing_limit;  /* 1.25: sectors / minimum sectors */
	double floor_tolerance;   /* 0.95: flag times below this x floor */
	unsigned perf_reps;       /* 30 timed repetitions */
	double compile_timeout_s; /* 120 */
	/* the compiler's RLIMIT_DATA and resident memory, nvcc and all its
	 * children (4 GiB) */
	unsigned long long compile_data_limit_bytes;
	double correctness_timeout_s; /* 120 (GPU), emulator: x4 */
	double perf_timeout_s;    /* 180 */
	double counters_timeout_s; /* 120 */
	double cpu_factor;        /* CPU limit = wall limit x this (1.0) */
	unsigned long long data_limit_bytes; /* runner RLIMIT_DATA */
	unsigned nproc_limit;
	unsigned long long fsize_limit_bytes;
	unsigned nofile_limit;
	size_t output_cap_bytes;  /* runner stdout/stderr kept, each */
	/* the GPU whose time the emulator predicts: "H100" or "H200" */
	char predict_gpu[16];
};

void score_config_default(struct score_config *c);

struct sandbox_limits;
/* A runner's limits (sandbox.h, SANDBOX_PROFILE_RUNNER) as configured:
 * the wall clock wall_s, CPU wall_s x cpu_factor (a caller whose child
 * runs several phases sets its own), data, nproc, fsize, nofile and the
 * output cap from c. */
void score_runner_limits(const struct score_config *c, double wall_s,
			 struct sandbox_limits *l);
/* Load a JSON configuration over the defaults; -1 with err set naming the
 * key and the reason. */
int score_config_load(struct score_config *c, const char *path, char *err,
		      size_t errlen);

/* Points per exercise with this configuration. */
double score_max(const struct score_config *c);

/* Final status and points of one exercise from its verified evidence. */
void score_exercise(const struct score_config *c,
		    struct exercise_result *e);

/* Speedup (median(ref) / median(student)) and a distribution-free 95%
 * confidence interval of the per-repetition ratio ref[i] / student[i]. */
void score_speedup(const double *ref, const double *student, size_t n,
		   double *speedup, double *lo, double *hi);

#endif
