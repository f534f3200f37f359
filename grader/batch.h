/*
 * Batch grading: every entry of a submissions directory (archive, folder
 * or .cu file) graded by a child `warpgrade grade` process, one JSON
 * archive result per submission written atomically into a results
 * directory, plus the other views asked for.  A child that crashes, hangs
 * or is killed costs only its own submission (which gets a result saying
 * so, counted as an internal error and regraded on the next run); killing
 * the batch loses nothing but the submissions in flight, because a result
 * exists only once it is complete and a rerun skips what is graded.
 *
 * Scheduling (batch_plan): `jobs` children grade side by side, one core
 * each.  On a GPU they share a lock file (gpulock.h, RESULTS_DIR/.gpu-lock
 * or the shard's own), which every child's grader holds exclusively while
 * one of its runners is timed and shared while one sweeps: timed runs
 * never share the device, and everything else of the other submissions
 * (compiles, correctness sweeps, the emulator's runs) goes on meanwhile.
 * On a host with several GPUs each child grades on one of them, and each
 * GPU has its own lock (batch_gpus.h, .gpu-lock-<uuid>).
 * On the emulator nothing is timed (performance is the traffic model):
 * no lock.  `--serial` grades one submission at a time instead, compiling
 * on `jobs` cores.
 *
 * Layout of RESULTS_DIR: <name>.json (the archive, with "grader_exit"
 * added: the child's exit status), <name><suffix> per extra format
 * (formats_suffix), <name>.log (the child's output, when it did not end
 * normally), .work/ (results being written), .lock (one batch at a time;
 * a shard has its own .work-K-of-N/ and .lock-K-of-N, shard.h), and what
 * `batch --status` reads (.manifest.json, .shards/, batch_status.h).
 * <name> is the entry name without its .tar.gz/.tgz/.tar/.zip/.cu suffix.
 */
#ifndef BATCH_H
#define BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "batch_gpus.h"
#include "shard.h"

struct batch_opts {
	const char *submissions; /* directory of submissions */
	const char *out;         /* results directory (created) */
	const char *warpgrade;   /* executable run as `<it> grade ...` */
	const char *backend;     /* "auto", "cuda" or "emu" */
	const char *config;      /* --config for the children, or NULL */
	int has_seed;
	uint64_t seed;
	unsigned jobs;           /* CPU cores to use (>= 1) */
	int regrade;             /* grade again what is already graded */
	unsigned formats;        /* extra views: bit (1 << format_kind) */
	double timeout_s;        /* per submission; 0: derived from cfg */
	int progress;            /* progress lines on stderr */
	int timings;             /* each result with its phases' times */
	/* 0: one at a time (--serial); otherwise `jobs` children side by
	 * side, timed runs serialised by the GPU lock */
	int parallel;
	/* the GPU lock file; NULL: RESULTS_DIR/.gpu-lock (the shard's) */
	const char *gpu_lock;
	/* the slice of the directory to grade (shard.h); all zero: the
	 * whole directory */
	struct shard shard;
};

struct batch_stats {
	size_t total;     /* entries found */
	size_t skipped;   /* already graded */
	size_t graded;    /* graded now */
	size_t unusable;  /* of all results: the submission's fault */
	size_t internal;  /* of all results: the grader's fault (regrade) */
	double seconds;
};

#define BATCH_OK 0          /* every submission has a result */
#define BATCH_USAGE 2       /* bad directories, options */
#define BATCH_INTERNAL 3    /* some results are internal errors */
#define BATCH_INTERRUPTED 130

/* How the children run: decided once per batch from the options and
 * whether the children grade on a GPU. */
struct batch_plan {
	unsigned slots;       /* children at once */
	unsigned child_jobs;  /* each child's --jobs */
	/* side by side on a GPU: the GPUs, each child's --gpu-lock and
	 * CUDA_VISIBLE_DEVICES (none: no lock) */
	struct batch_gpus gpus;
};

/* gpu: the children grade on a GPU; list, n: the host's GPUs (gpus.h),
 * to spread them over when n is above 1. */
void batch_plan_init(struct batch_plan *p, const struct batch_opts *o,
		     int gpu, const struct gpu_info *list, size_t n);
void batch_plan_release(struct batch_plan *p);

/* Grade the directory; st may be NULL.  Returns a BATCH_* status. */
int batch_run(const struct batch_opts *o, struct batch_stats *st);

/* The command: `warpgrade batch SUBMISSIONS_DIR --out RESULTS_DIR ...`;
 * returns the exit status. */
int batch_main(int argc, char **argv);

/* The result name of a submissions-directory entry: its name without the
 * archive or .cu suffix.  Owned by the caller. */
char *batch_entry_name(const char *entry);

#endif
