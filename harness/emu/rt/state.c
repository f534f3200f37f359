/*
 * The emulator's runtime (harness/emu/rt): its state, what a reset does
 * to it, its messages and its errors.  The rest of the CUDA runtime API
 * is in the files beside this one (docs/EMULATOR.md's file map).  A
 * program linked with build/libwgemu.a instead of libcudart runs its
 * host code natively; each kernel launch finds the PTX nvcc embedded in
 * the program's fatbinary, parses it once, and interprets it.
 *
 * Streams are in order and synchronous: every call completes before it
 * returns.  Events carry the emulator's own clock, which advances by a
 * modelled cost of each launch and copy (docs/EMULATOR.md).  A kernel
 * fault is sticky, as on a GPU: every later call returns its error until
 * cudaDeviceReset().
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/rt/rt.h"
#include "emu/wgemu.h"
#include "emu/perf/runtime_perf.h"

struct rt_state emu_rt = {
	.sticky = cudaSuccess,
	.fault_kind = WGEMU_FAULT_NONE,
	/* H100 defaults; a limit 0 is valid for the persisting L2 size
	 * only */
	.limits = {
		[cudaLimitStackSize] = 1024,
		[cudaLimitPrintfFifoSize] = 1u << 20,
		[cudaLimitMallocHeapSize] = 8u << 20,
		[cudaLimitDevRuntimeSyncDepth] = 2,
		[cudaLimitDevRuntimePendingLaunchCount] = 2048,
		[cudaLimitMaxL2FetchGranularity] = 64,
		[cudaLimitPersistingL2CacheSize] = 0,
	},
	/* host threads may call the runtime at once, as CUDA's */
	.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
};
__thread struct rt_thread emu_rt_thread;

/* ---- messages ---- */
/* Messages said so far: a program that repeats a failing launch (or
 * call) gets each message once, and the count of repeats at exit. */
static void report_repeats(void)
{
	for (int i = 0; i < emu_rt.nsaid; i++)
		if (emu_rt.said[i].repeats)
			fprintf(stderr, "wgemu: (%lu more time%s) %s\n",
				emu_rt.said[i].repeats,
				emu_rt.said[i].repeats == 1 ? "" : "s",
				emu_rt.said[i].text);
}

void rt_note(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int i;

	if (getenv("WGEMU_QUIET"))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < emu_rt.nsaid; i++)
		if (!strcmp(emu_rt.said[i].text, buf)) {
			emu_rt.said[i].repeats++;
			return;
		}
	if (emu_rt.nsaid < 64) {
		emu_rt.said[emu_rt.nsaid].text = strdup(buf);
		if (emu_rt.said[emu_rt.nsaid].text && !emu_rt.nsaid++)
			atexit(report_repeats);
	}
	fprintf(stderr, "wgemu: %s\n", buf);
}

cudaError_t rt_fail(cudaError_t e)
{
	if (e != cudaSuccess)
		emu_rt_thread.last = e;
	return e;
}

/* A runtime function the emulator does not implement was called
 * (harness/emu/stubs): say which, once per function, and fail the call. */
int wgemu_unsupported(const char *name)
{
	int i;

	for (i = 0; i < emu_rt.nunsupported &&
	     emu_rt.unsupported[i] != name; i++)
		;
	if (i == emu_rt.nunsupported) {
		if (emu_rt.nunsupported < 64)
			emu_rt.unsupported[emu_rt.nunsupported++] = name;
		rt_note("%s: not implemented by the emulator "
			"(cudaErrorNotSupported)", name);
	}
	return rt_fail(cudaErrorNotSupported);
}

int emu_rt_sticky(void)
{
	return emu_rt.sticky;
}

double emu_rt_now_ms(void)
{
	return emu_rt.clock_ms;
}

void emu_rt_lock(void)
{
	pthread_mutex_lock(&emu_rt.lock);
}

void emu_rt_unlock(void)
{
	pthread_mutex_unlock(&emu_rt.lock);
}

int emu_rt_lazy(void)
{
	return emu_rt.dry || emu_perf_only();
}

/* ---- reset ---- */
/*
 * What cudaDeviceReset() does to the runtime's state, every field of
 * struct rt_state named: the device's memory and the sticky error go,
 * what the program registered and what the emulator has recorded of its
 * run survive.  Streams, events, graphs and texture objects are their
 * files' own (stream.c, graph.c, vm/texfetch.c) and survive too.
 */
void emu_rt_reset(void)
{
	struct rt_state *s = &emu_rt;

	/* mods, nmods: the registered fatbinaries stay registered; each
	 * is parsed again at its next launch, the old parse kept, as
	 * launch records still point into it */
	for (int i = 0; i < s->nmods; i++) {
		s->mods[i].m = NULL;
		s->mods[i].loaded = 0;
	}
	/* kerns, nkerns: registered still, found again in the new parse,
	 * their cudaFuncSetAttribute forgotten */
	for (int i = 0; i < s->nkerns; i++) {
		s->kerns[i].fi = -1;
		s->kerns[i].max_dyn = EMU_SMEM_DEFAULT;
	}
	/* vars, nvars: registered still (their memory goes below) */
	/* device memory (devmem.c, below the runtime): every allocation
	 * freed -- cudaMalloc's, module variables, pinned, managed and
	 * registered host memory, the grid workspace, the device-side
	 * heap -- and no address reused */
	emu_mem_reset();
	/* recs, nrecs, caprecs: kept (wgemu_launches_reset clears them) */
	/* sticky: cleared, with the calling thread's last error (other
	 * threads keep theirs, as CUDA's do) */
	s->sticky = cudaSuccess;
	emu_rt_thread.last = cudaSuccess;
	/* fault_kind, fault_msg: kept, the first fault since start */
	/* clock_ms: kept, so events order across a reset */
	/* atexit_set: kept, the record file's writer is registered */
	/* dry, dryq: kept, a dry call spans its launcher's call */
	/* uncounted: kept, the program's choice */
	/* grid_ws: kept; its allocation is gone, so the next cooperative
	 * launch makes another */
	/* pool_attr, limits: kept */
	/* said, nsaid, unsupported, nunsupported: kept, each message is
	 * said once a process */
	/* lock: held by the caller */
	/* the calling thread's cfg, ncfg: kept (pushed by <<<...>>>) */
}

static cudaError_t cudaDeviceReset_locked(void)
{
	emu_rt_reset();
	return cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
	RT_LOCKED(cudaDeviceReset_locked());
}

/* ---- errors ---- */
cudaError_t cudaGetLastError(void)
{
	cudaError_t e = emu_rt.sticky ? emu_rt.sticky : emu_rt_thread.last;

	if (!emu_rt.sticky)
		emu_rt_thread.last = cudaSuccess;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	return emu_rt.sticky ? emu_rt.sticky : emu_rt_thread.last;
}

struct errname {
	cudaError_t e;
	const char *name, *text;
};

static const struct errname errnames[] = {
	{ cudaSuccess, "cudaSuccess", "no error" },
	{ cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
	{ cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation",
	  "out of memory" },
	{ cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
	  "invalid configuration argument" },
	{ cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol",
	  "invalid device symbol" },
	{ cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
	  "invalid copy direction for memcpy" },
	{ cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration",
	  "__global__ function call is not configured" },
	{ cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
	  "invalid device function" },
	{ cudaErrorInvalidDevice, "cudaErrorInvalidDevice",
	  "invalid device ordinal" },
	{ cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	  "invalid resource handle" },
	{ cudaErrorInvalidPtx, "cudaErrorInvalidPtx",
	  "a PTX JIT compilation failed" },
	{ cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
	  "an illegal memory access was encountered" },
	{ cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout",
	  "the launch timed out and was terminated" },
	{ cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
	  "too many resources requested for launch" },
	{ cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress",
	  "misaligned address" },
	{ cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered" },
	{ cudaErrorLaunchFailure, "cudaErrorLaunchFailure",
	  "unspecified launch failure" },
	{ cudaErrorNotSupported, "cudaErrorNotSupported",
	  "operation not supported" },
	{ cudaErrorNoDevice, "cudaErrorNoDevice",
	  "no CUDA-capable device is detected" },
	{ cudaErrorCooperativeLaunchTooLarge,
	  "cudaErrorCooperativeLaunchTooLarge",
	  "too many blocks in cooperative launch" },
};

const char *cudaGetErrorString(cudaError_t error)
{
	size_t i;

	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].e == error)
			return errnames[i].text;
	return "unknown error";
}

const char *cudaGetErrorName(cudaError_t error)
{
	size_t i;

	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].e == error)
			return errnames[i].name;
	return "cudaErrorUnknown";
}
