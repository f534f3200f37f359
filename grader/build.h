/*
 * Building a submission: choosing the backend, compiling each exercise
 * file with nvcc (one compile error costs one exercise), checking every
 * student object's symbols before anything runs, and linking the runner
 * with the reference objects, which are built once per GPU architecture
 * (or for the emulator) and kept under build/cache/.
 *
 * Every child process (nvcc, nm, the linker) runs through sandbox_run
 * with a timeout; nothing here calls CUDA.
 */
#ifndef BUILD_H
#define BUILD_H

#include <limits.h>
#include <stddef.h>

#include "exercise.h"
#include "gpus.h"
#include "resusage.h"
#include "score.h"

enum build_backend { BUILD_CUDA, BUILD_EMU };

struct build_target {
	enum build_backend backend;
	char arch[16];        /* "sm_90", or "emu" */
	char device[128];     /* the probe's description */
	char cache[PATH_MAX]; /* build/cache/<arch> */
};

struct build_env {
	const struct score_config *cfg;
	int have_gpu;
	int have_emu;
	struct build_target gpu; /* valid when have_gpu */
	struct build_target emu; /* valid when have_emu */
	char why_no_gpu[256];
	char why_no_emu[256];
	/* the GPUs the probe lists (gpus.h), device 0 -- the one it opened,
	 * gpu above -- first; none without a usable GPU */
	struct gpu_info gpus[GPUS_MAX];
	size_t ngpus;
};

/* The registers ptxas gives the reference kernels compiled for the
 * emulator target t (build_prepare keeps its words beside each object),
 * into *u (emptied first); the number of kernels, 0 when none is known
 * (the model then assumes 32). */
int build_reference_usage(const struct build_target *t,
			  struct resusage *u);

/* Probe for a usable GPU (by running build/wg-probe, never CUDA in this
 * process, with the grader's CUDA_VISIBLE_DEVICES) and for the emulator.
 * 0, or -1 when the tree is broken. */
int build_env_init(struct build_env *env, const struct score_config *cfg);

/* build_env_init in two halves.  build_probe_answer runs build/wg-probe
 * and returns what it printed, with "!" before it when it failed; NULL
 * when the probe is not built.  build_env_from fills env from such an
 * answer (a fresh one, or one remembered from an earlier probe). */
char *build_probe_answer(void);
int build_env_from(struct build_env *env, const struct score_config *cfg,
		   const char *answer);

/* 1 when the reference kernel of ex is part of this tree (a student kit
 * has none: performance is then measured against copy bandwidth). */
int build_has_reference(const struct exercise *ex);

/* 1 when the emulator can run submissions in this build. */
int build_emu_available(char *why, size_t len);

/* Compile the reference objects and the runner kernels for a target if
 * they are not cached yet (serialised with a lock file).  0 or -1 with
 * err set. */
int build_prepare(const struct build_target *t,
		  const struct score_config *cfg, char *err, size_t len);

/* nvcc arguments for a target (the architecture and -O3, or the
 * emulator's PTX flags) into argv (at most max); *storage holds their
 * text, owned by the caller.  Returns how many. */
size_t build_target_flags(const struct build_target *t, const char **argv,
			  size_t max, char **storage);
/* The same for one nvcc run that serves a GPU target and the emulator
 * (also, may be NULL): the GPU's code and the emulator's PTX in one
 * object (-gencode for each, -lineinfo and -no-compress, which leave
 * the GPU's machine code as it is). */
size_t build_target_flags_also(const struct build_target *t,
			       const struct build_target *also,
			       const char **argv, size_t max,
			       char **storage);
/* Run a symbol lister (nm) and keep all of its output or fail: a list
 * cut in the middle would hide symbols.  0, or -1 with why set. */
int build_listing(const char *const *argv, char **output, char *why,
		  size_t len);
/* Check a student object (symbols.c): it defines its launcher, defines nothing that a
 * system library or warpgrade defines, and references only the CUDA
 * runtime and the C/C++ standard libraries.  0: fine; 1: rejected (why
 * names the symbol); -1: grader failure. */
int build_check_symbols(const struct exercise *ex, const char *obj,
			char *why, size_t len);

/* The replay program of the emulator target (build_prepare links it)
 * into buf: 1 when it exists. */
int build_replay_path(const struct build_target *t, char *buf, size_t len);

/* Link a runner for the exercises given (parallel arrays of n entries;
 * objs[i] is the student object of exs[i]) into out, without symbols
 * (no names for a submission to look up), and the same executable with
 * its symbols and debug information into out + BUILD_DEBUG_SUFFIX,
 * readable by the grader's user only: what a host crash is mapped to
 * the student's line with (hostcrash.c).  0, or -1 with *log set (owned
 * by the caller). */
#define BUILD_DEBUG_SUFFIX ".debug"
int build_link(const struct build_target *t, const struct score_config *cfg,
	       const struct exercise *const *exs, const char *const *objs,
	       size_t n, const char *workdir, const char *out, char **log);

/* Run argv (a trusted tool) in cwd with a timeout, collecting stdout and
 * stderr together into *output (owned by the caller).  Returns the exit
 * status, 124 on timeout, 128+signal, or -1 when it could not start. */
int build_run(const char *const *argv, const char *cwd, double timeout_s,
	      char **output);

/* Why a runner did not link, for the report: the functions the link
 * log says are undefined (the student's code calls them and neither the
 * CUDA runtime nor, on the emulator, warpgrade's runtime provides them),
 * else the log's start.  emu: 0 the GPU's runner, 1 the emulator's when
 * grading on it, 2 the emulator's that counts traffic for a GPU grade. */
void build_link_why(const char *log, int emu, char *buf, size_t len);

#endif
