/*
 * Slurm job arrays that grade a class: the script `warpgrade slurm`
 * writes or submits.  Task K of an N-task array runs
 *
 *   warpgrade batch SUBMISSIONS --out RESULTS --shard K/N ...
 *
 * (shard.h), so the tasks need no merge step and resubmitting the array,
 * or one task with `sbatch --array=K`, grades only what is missing.  N is
 * written into the script rather than taken from SLURM_ARRAY_TASK_COUNT
 * for that reason: a resubmitted task still grades its own slice.
 *
 * Timed runs need a GPU to themselves: with a GPU each task asks for one
 * (--gres=gpu:1) and its batch grades one submission at a time on it; on
 * the emulator nothing is timed and no GPU is requested.  The per-task
 * output and error files go to RESULTS/.slurm/, which must exist before
 * the array starts (Slurm does not create it): slurm_prepare makes it.
 *
 * Everything that reaches the script is checked first (slurm_check):
 * #SBATCH values are restricted to characters that need no quoting, the
 * command line is single-quoted, so no option can inject a line.
 */
#ifndef SLURM_H
#define SLURM_H

#include <stddef.h>

#define SLURM_MAX_EXTRA 16
#define SLURM_MAX_FORMATS 8

struct slurm_opts {
	/* what to grade: absolute paths once slurm_prepare has run */
	const char *submissions;
	const char *out;
	const char *warpgrade;     /* the executable the tasks run */
	/* the array */
	const char *job_name;      /* default "warpgrade" */
	const char *partition;     /* NULL: the cluster's default */
	const char *account;
	const char *time;          /* per task, Slurm's time format */
	const char *mem;           /* per task, e.g. "16G" */
	const char *gpu_type;      /* gres type, e.g. "h100"; NULL: any */
	unsigned array_size;       /* tasks; 0: from the submission count */
	unsigned throttle;         /* at most this many at once; 0: no limit */
	int gpus;                  /* 0 or 1 per task; -1: from the backend */
	unsigned cpus;             /* per task; also the batch's --jobs */
	const char *extra[SLURM_MAX_EXTRA]; /* more sbatch options */
	size_t nextra;
	/* passed to each task's batch */
	const char *backend;       /* auto, cuda or emu */
	const char *config;        /* absolute once prepared, or NULL */
	const char *seed;          /* decimal, or NULL */
	const char *timeout;       /* per submission, seconds, or NULL */
	const char *formats[SLURM_MAX_FORMATS];
	size_t nformats;
	int regrade;
};

/* Defaults: job name "warpgrade", backend auto, 4 CPUs a task, GPUs
 * from the backend, array size from the submission count. */
void slurm_opts_init(struct slurm_opts *o);

/* Check every value that will reach the script; 0, or -1 with a message
 * naming the option, the value and the reason in err. */
int slurm_check(const struct slurm_opts *o, char *err, size_t len);

/* 1 when t is a time Slurm's --time takes: M, M:S, H:M:S, D-H, D-H:M,
 * D-H:M:S (digits), or unlimited / infinite. */
int slurm_time_ok(const char *t);

/* The array size for nsubs submissions when none is given: about ten
 * submissions a task, at least one task, at most 1000 (Slurm's default
 * MaxArraySize is 1001). */
unsigned slurm_default_tasks(size_t nsubs);

/* The GPUs a task asks for: o->gpus, or 0 on the emulator, else 1. */
int slurm_gpus(const struct slurm_opts *o);

/* The job-array script for nsubs submissions, owned by the caller.
 * Expects a checked o with array_size set. */
char *slurm_script(const struct slurm_opts *o, size_t nsubs);

/* The directory of the tasks' output files: RESULTS/.slurm (owned). */
char *slurm_log_dir(const char *out);

#endif
