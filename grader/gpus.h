/*
 * The GPUs of this host, as the grader's environment shows them.
 *
 * The probe (build/wg-probe) lists every device its CUDA_VISIBLE_DEVICES
 * lets it see; gpus_parse reads that list.  A process the grader starts
 * on a GPU -- the probe, a runner, a rerun, the keeper, a batch's child
 * -- sees the device it is meant for through CUDA_VISIBLE_DEVICES: the
 * grader's own value (a Slurm task's GPU, say) unless it is given one
 * GPU's uuid (gpus_env_entry), which a batch or a grade spreading its
 * exercises over several GPUs does.
 */
#ifndef GPUS_H
#define GPUS_H

#include <stddef.h>

#define GPUS_MAX 16

struct gpu_info {
	unsigned index;      /* CUDA's ordinal in the probe's view */
	char uuid[48];       /* "GPU-" and 32 hex digits */
	char pci[24];        /* "0000:19:00.0" */
	unsigned major, minor;
	char name[128];
	int dev_minor;       /* its /dev/nvidiaN, -1 when not known */
};

/* The "gpu ..." lines of the probe's output into v (at most GPUS_MAX),
 * each with its device node's minor number from the driver's /proc
 * entry for its PCI address; returns how many.  Lines that do not parse
 * are skipped. */
size_t gpus_parse(const char *probe_output, struct gpu_info *v);

/* The device minor number ("Device Minor:") in the text of the driver's
 * /proc/driver/nvidia/gpus/<pci>/information; -1 when it has none. */
int gpus_minor_in(const char *information);

/* g in one line, "<uuid> <pci> <major> <minor> <name>" (the probe's
 * line without its index), for a grader told to time on g (grade
 * --timing-gpu).  A new string. */
char *gpus_spec(const struct gpu_info *g);

/* The GPU of a gpus_spec line into g, its device node's minor number
 * looked up; 0, or -1 when the line does not parse. */
int gpus_from_spec(const char *spec, struct gpu_info *g);

/* "CUDA_VISIBLE_DEVICES=<uuid>": the environment entry that shows a
 * process g alone.  A new string. */
char *gpus_env_entry(const struct gpu_info *g);

/* The grader's own CUDA_VISIBLE_DEVICES as an environment entry, for the
 * processes it starts with an environment of its making; NULL when the
 * variable is unset.  A static string. */
const char *gpus_env_inherited(void);

/*
 * "CUDA_DEVICE_MAX_CONNECTIONS=1": the environment entry for every CUDA
 * program the grader starts on a GPU (the probe, the runners), or NULL.
 * A context of one hardware connection (work queue) instead of the
 * driver's eight is made in about 85 ms instead of 150 and torn down in
 * 27 instead of 55 (one H100 of a 2 x H100 host), and delays the
 * contexts of the host's other GPUs less: a batch's timed runner,
 * whose context waited for the sweeps' on the other GPU, is timed in
 * half the time (docs/PERFORMANCE.md).  A runner uses one stream (a
 * launch on any other breaks the exercise's contract), so one connection
 * serialises nothing it may do but the parallel branches of a graph,
 * whose kernels at the performance shape (256 MB) each fill the GPU
 * alone anyway.  WARPGRADE_CUDA_CONNECTIONS=N (1 to 32) asks for N
 * instead, 0 for the driver's default (no entry), to measure the
 * difference.  A static string.
 */
const char *gpus_env_connections(void);

/* Append to the environment env, at *n, what a process the grader
 * starts sees of the GPUs: visible (a CUDA_VISIBLE_DEVICES entry; NULL:
 * none) and, for a CUDA program on a GPU (on_gpu), the connections'
 * entry; then end it with NULL.  env has room for three more. */
void gpus_env_append(const char **env, size_t *n, const char *visible,
		     int on_gpu);

/* This process's environment with entry (NULL: none) in place of any
 * CUDA_VISIBLE_DEVICES: a NULL-terminated array whose strings are
 * environ's and entry.  Free the array alone. */
const char **gpus_environ(const char *entry);

/* The GPU as reports name it: "NAME (GPU-..., PCI 0000:19:00.0)".  A
 * new string. */
char *gpus_label(const struct gpu_info *g);

#endif
