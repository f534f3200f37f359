/*
 * What a program linked against the emulator runtime (harness/emu, built
 * as build/libwgemu.a in place of NVIDIA's libcudart) can ask the emulator
 * beyond the CUDA runtime API: the memory-traffic counters of each launch
 * and the details of a kernel fault.
 *
 * The runner declares these functions weak: when it is linked with the real
 * libcudart they resolve to NULL and the runner knows it runs on a GPU.
 * Nothing here is thread-safe; the runner calls it from its one thread.
 */
#ifndef WGEMU_H
#define WGEMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counted per warp-level instruction over its active lanes, as Nsight
 * Compute counts them (see docs/EMULATOR.md). */
struct wgemu_counters {
	uint64_t global_load_requests;
	uint64_t global_load_sectors;
	uint64_t global_store_requests;
	uint64_t global_store_sectors;
	uint64_t shared_load_wavefronts;
	uint64_t shared_load_bank_conflicts;
	uint64_t shared_store_wavefronts;
	uint64_t shared_store_bank_conflicts;
	uint64_t lane_instructions; /* executed instructions x active lanes */
};

struct wgemu_launch {
	char kernel[128];      /* demangled, no return type or parameters */
	unsigned grid[3];
	unsigned block[3];
	size_t dynamic_shared_bytes;
	size_t static_shared_bytes;
	struct wgemu_counters counters;
};

/* Launches recorded since start or the last wgemu_launches_reset(). */
size_t wgemu_launch_count(void);
/* Copy launch number i (0-based, launch order); -1 when out of range. */
int wgemu_launch_get(size_t i, struct wgemu_launch *out);
void wgemu_launches_reset(void);

/* Kinds of kernel fault; the runner maps them to verdicts. */
enum wgemu_fault_kind {
	WGEMU_FAULT_NONE = 0,
	WGEMU_FAULT_OUT_OF_BOUNDS,   /* global/shared/local access outside */
	WGEMU_FAULT_RACE,            /* shared-memory race between warps */
	WGEMU_FAULT_UNINIT_SHARED,   /* read of shared memory never written */
	WGEMU_FAULT_BARRIER,         /* divergent or missing bar.sync */
	WGEMU_FAULT_UNSUPPORTED,     /* PTX the emulator does not implement */
	WGEMU_FAULT_MISALIGNED,      /* misaligned address */
	WGEMU_FAULT_TRAP,            /* trap / assert / other kernel error */
	WGEMU_FAULT_LIMIT,           /* instruction budget exhausted (hang) */
	WGEMU_FAULT_ASSERT           /* a failed assert() in a kernel */
};

/* The first fault since start (faults are sticky, as on a GPU): its kind
 * and a one-line message naming kernel, source file:line, thread and
 * address.  Returns WGEMU_FAULT_NONE and leaves msg empty when none. */
enum wgemu_fault_kind wgemu_last_fault(char *msg, size_t msglen);

/* Per source line counters of launch i (lines its memory instructions
 * touched, in first-seen order of the PTX): count and copy. */
struct wgemu_line {
	char file[256];
	int line;
	struct wgemu_counters counters;
};
size_t wgemu_line_count(size_t i);
int wgemu_line_get(size_t i, size_t j, struct wgemu_line *out);

/* For tests and tools: load PTX text as a module of its own (its kernels
 * become launchable through cudaLaunchKernel with the handle that
 * wgemu_kernel returns for a mangled or demangled name).  Returns the
 * module number, or -1 with the reason ("line N: ...") in err. */
int wgemu_load_ptx(const char *ptx, size_t len, char *err, size_t errlen);
const void *wgemu_kernel(const char *name);

#ifdef __cplusplus
}
#endif

#endif
