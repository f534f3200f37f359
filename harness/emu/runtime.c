/*
 * The CUDA runtime of the emulator: the subset of NVIDIA's runtime API the
 * harness and ordinary student launchers use, plus the registration hooks
 * nvcc's host stubs call, implemented over harness/emu's interpreter.  A
 * program linked with build/libwgemu.a instead of libcudart runs its host
 * code natively; each kernel launch finds the PTX nvcc embedded in the
 * object's fatbinary, parses it once, and interprets it (exec.c).
 *
 * Streams are in order and synchronous: every call completes before it
 * returns.  Events carry the emulator's own clock, which advances by a
 * modelled cost of each launch and copy (docs/EMULATOR.md).  A kernel
 * fault is sticky, as on a GPU: every later call returns its error until
 * cudaDeviceReset().  Launch records and counters are kept for wgemu.h and,
 * when $WGEMU_RECORD names a file, written there at exit for 'warpgrade
 * emu'.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/device.h"
#include "emu/emu.h"
#include "emu/graph.h"
#include "emu/rt.h"
#include "emu/texture.h"
#include "emu/runtime_perf.h"
#include "emu/trace.h"
#include "emu/wgemu.h"


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


static void dump_records(void);

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

int emu_rt_fail(int e)
{
	return rt_fail((cudaError_t)e);
}

/* A runtime function the emulator does not implement was called
 * (harness/emu/stubs): say which, once per function, and fail the call. */
int emu_rt_unsupported(const char *name);
int emu_rt_unsupported(const char *name)
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

void rt_atexit(void)
{
	if (!emu_rt.atexit_set) {
		emu_rt.atexit_set = 1;
		atexit(dump_records);
	}
}

/* ---- launch records (trace.h) ---- */
void rt_trace_simple(enum emu_trace_kind kind, uint64_t a, uint64_t n)
{
	struct emu_trace_op op;

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	op.kind = kind;
	op.a = a;
	op.n = n;
	emu_trace_put(&op);
}

void rt_trace_copy(int dir, uint64_t dst, uint64_t src, const void *data,
		   uint64_t n)
{
	struct emu_trace_op op;

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_COPY;
	op.copy = (uint32_t)dir;
	op.a = dst;
	op.b = src;
	op.n = n;
	if (dir == TR_H2D) {
		op.data = data;
		op.ndata = n;
	}
	emu_trace_put(&op);
}

/* A module's variables as they are now (when a record opens, or when
 * the module loads while one is open), so a replay starts from the same
 * state; value carries the module's fingerprint. */
void rt_trace_vars(int mi)
{
	const struct emu_module *m = emu_rt.mods[mi].m;
	struct emu_trace_op op;
	int i;

	if (!emu_trace_on() || !m)
		return;
	for (i = 0; i < m->nsyms; i++) {
		const struct emu_sym *sy = &m->syms[i];
		struct emu_alloc *a;

		if (sy->kind != SYM_GLOBAL && sy->kind != SYM_CONST)
			continue;
		a = emu_mem_find(sy->dev, sy->size ? sy->size : 1);
		memset(&op, 0, sizeof(op));
		op.kind = TR_VAR;
		op.value = emu_rt.mods[mi].hash;
		op.name = sy->name;
		op.a = sy->dev;
		op.n = sy->size;
		if (a && sy->size <= EMU_TRACE_MAX_VAR_BYTES) {
			op.data = a->host + (sy->dev - a->dev);
			op.ndata = sy->size;
		}
		emu_trace_put(&op);
	}
}

/* a launch into the record; a = 1 for a cooperative one */
void rt_trace_launch(const struct rt_kernel *k, dim3 grid, dim3 block,
		     size_t smem, const uint8_t *params, size_t n,
		     int cooperative)
{
	struct emu_trace_op op;

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_LAUNCH;
	op.value = emu_rt.mods[k->mod].hash;
	op.name = k->name;
	op.grid[0] = grid.x;
	op.grid[1] = grid.y;
	op.grid[2] = grid.z;
	op.block[0] = block.x;
	op.block[1] = block.y;
	op.block[2] = block.z;
	op.n = smem;
	op.a = (uint64_t)cooperative;
	op.data = params;
	op.ndata = n;
	emu_trace_put(&op);
}

/* ---- launches ---- */

void rt_record_add(const struct rt_record *r)
{
	if (emu_rt.nrecs == emu_rt.caprecs) {
		size_t nc = emu_rt.caprecs ? emu_rt.caprecs * 2 : 64;
		struct rt_record *nr = realloc(emu_rt.recs,
					       nc * sizeof(*emu_rt.recs));

		if (!nr) {
			free(r->lines);
			return;
		}
		emu_rt.recs = nr;
		emu_rt.caprecs = nc;
	}
	emu_rt.recs[emu_rt.nrecs++] = *r;
}

/* Stream attributes (access policy windows, priorities) tune caches and
 * scheduling, which the emulator does not model: kept, not acted on. */
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream,
				   cudaLaunchAttributeID attr,
				   const cudaLaunchAttributeValue *value)
{
	(void)hStream, (void)attr;
	return value ? emu_rt.sticky : rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream,
				   cudaLaunchAttributeID attr,
				   cudaLaunchAttributeValue *value_out)
{
	(void)hStream, (void)attr;
	if (!value_out)
		return rt_fail(cudaErrorInvalidValue);
	memset(value_out, 0, sizeof(*value_out));
	return emu_rt.sticky;
}

/* A texel format, for the array and texture API (whose other functions
 * are stubs: textures are not emulated). */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z,
						   int w,
						   enum cudaChannelFormatKind f)
{
	struct cudaChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
	return emu_rt.sticky;
}

/* ---- device ---- */
cudaError_t cudaGetDeviceCount(int *count)
{
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	*device = 0;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	return device == 0 ? emu_rt.sticky : rt_fail(cudaErrorInvalidDevice);
}

/*
 * What cudaDeviceReset() does to the runtime's state, every field of
 * struct rt_state named: the device's memory and the sticky error go,
 * what the program registered and what the emulator has recorded of its
 * run survive.  Streams, events, graphs and texture objects are their
 * files' own (stream.c, graph.c, texture.c) and survive too.
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

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
	if (device != 0)
		return rt_fail(cudaErrorInvalidDevice);
	if (!p)
		return rt_fail(cudaErrorInvalidValue);
	emu_device_props(p);
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
				   int device)
{
	if (device != 0)
		return rt_fail(cudaErrorInvalidDevice);
	if (!value || emu_device_attr((int)attr, value))
		return rt_fail(cudaErrorInvalidValue);
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func,
				 enum cudaFuncAttribute attr, int value)
{
	struct rt_kernel *k = rt_kernel_find(func);

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
		size_t st = 0;

		if (!rt_kernel_load(k))
			st = emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
		if (value < 0 || (size_t)value + st > EMU_SMEM_OPTIN)
			return rt_fail(cudaErrorInvalidValue);
		k->max_dyn = (size_t)value;
		return cudaSuccess;
	}
	if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
		return value >= -1 && value <= 100 ? cudaSuccess :
		       rt_fail(cudaErrorInvalidValue);
	return rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
				  const void *func)
{
	struct rt_kernel *k = rt_kernel_find(func);
	const struct emu_func *f;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k || rt_kernel_load(k))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	f = &emu_rt.mods[k->mod].m->funcs[k->fi];
	memset(attr, 0, sizeof(*attr));
	attr->sharedSizeBytes = emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
	attr->constSizeBytes = 0;
	attr->localSizeBytes = f->depot_bytes;
	attr->maxThreadsPerBlock = 1024;
	attr->numRegs = 32;
	attr->ptxVersion = 90;
	attr->binaryVersion = 90;
	attr->maxDynamicSharedSizeBytes = (int)k->max_dyn;
	return cudaSuccess;
}

/* Blocks of k (NULL: one with no static shared memory) resident on
 * one SM at once: the least the SM's warps, blocks and shared memory
 * allow (1 KB of it reserved per block), 0 when one does not fit. */
int rt_blocks_per_sm(struct rt_kernel *k, unsigned threads, size_t dyn)
{
	unsigned warps = (threads + EMU_WARP_SIZE - 1) / EMU_WARP_SIZE;
	size_t smem = dyn + EMU_SMEM_RESERVED;
	unsigned n = EMU_MAX_SM_WARPS / warps;

	if (k && !rt_kernel_load(k))
		smem += emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
	if (n > EMU_MAX_SM_BLOCKS)
		n = EMU_MAX_SM_BLOCKS;
	if (n > EMU_SMEM_PER_SM / smem)
		n = (unsigned)(EMU_SMEM_PER_SM / smem);
	return (int)n;
}

static cudaError_t occupancy_locked(int *numBlocks, const void *func,
				    int blockSize, size_t dynamicSMemSize)
{
	if (blockSize <= 0 || blockSize > 1024)
		return rt_fail(cudaErrorInvalidValue);
	*numBlocks = rt_blocks_per_sm(rt_kernel_find(func), (unsigned)blockSize,
				   dynamicSMemSize);
	return emu_rt.sticky;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
		const void *func, int blockSize, size_t dynamicSMemSize)
{
	RT_LOCKED(occupancy_locked(numBlocks, func, blockSize,
				dynamicSMemSize));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
		int *numBlocks, const void *func, int blockSize,
		size_t dynamicSMemSize, unsigned int flags)
{
	(void)flags;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func,
			blockSize, dynamicSMemSize);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
		const void *func, int numBlocks, int blockSize)
{
	struct rt_kernel *k = rt_kernel_find(func);
	size_t st = 0, per;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k || rt_kernel_load(k))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	if (numBlocks <= 0 || blockSize <= 0 || blockSize > 1024)
		return rt_fail(cudaErrorInvalidValue);
	st = emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
	/* 228 KB per SM, 1 KB of it reserved per block */
	per = (EMU_SMEM_PER_SM / (unsigned)numBlocks);
	per = per > 1024 ? per - 1024 : 0;
	per = per > st ? per - st : 0;
	if (per > k->max_dyn)
		per = k->max_dyn;
	*dynamicSmemSize = per;
	return cudaSuccess;
}

/* Cache and shared-memory preferences: accepted, no effect (as on
 * devices where the split is fixed). */
cudaError_t cudaFuncSetCacheConfig(const void *func,
				   enum cudaFuncCache cacheConfig)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!rt_kernel_find(func))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	return cacheConfig >= cudaFuncCachePreferNone &&
	       cacheConfig <= cudaFuncCachePreferEqual ? cudaSuccess :
	       rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	return cacheConfig >= cudaFuncCachePreferNone &&
	       cacheConfig <= cudaFuncCachePreferEqual ? cudaSuccess :
	       rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	*pCacheConfig = cudaFuncCachePreferNone;
	return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if ((unsigned)limit >= RT_NLIMITS)
		return rt_fail(cudaErrorUnsupportedLimit);
	emu_rt.limits[limit] = value;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if ((unsigned)limit >= RT_NLIMITS)
		return rt_fail(cudaErrorUnsupportedLimit);
	*pValue = emu_rt.limits[limit];
	return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
					     int *greatestPriority)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = -5;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	*flags = cudaDeviceScheduleAuto;
	return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	(void)flags;
	return emu_rt.sticky;
}

/* cuda_profiler_api.h: nothing to profile. */
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

cudaError_t cudaProfilerStart(void)
{
	return emu_rt.sticky;
}

cudaError_t cudaProfilerStop(void)
{
	return emu_rt.sticky;
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

/* ---- wgemu.h ---- */
size_t wgemu_launch_count(void)
{
	return emu_rt.nrecs;
}

int wgemu_launch_get(size_t i, struct wgemu_launch *out)
{
	if (i >= emu_rt.nrecs)
		return -1;
	*out = emu_rt.recs[i].l;
	return 0;
}

void wgemu_launches_reset(void)
{
	size_t i;

	for (i = 0; i < emu_rt.nrecs; i++)
		free(emu_rt.recs[i].lines);
	emu_rt.nrecs = 0;
}

enum wgemu_fault_kind wgemu_last_fault(char *msg, size_t msglen)
{
	if (msg && msglen)
		snprintf(msg, msglen, "%s", emu_rt.fault_msg);
	return emu_rt.fault_kind;
}

size_t wgemu_line_count(size_t i)
{
	return i < emu_rt.nrecs ? (size_t)emu_rt.recs[i].nlines : 0;
}

int wgemu_line_get(size_t i, size_t j, struct wgemu_line *out)
{
	const struct emu_line_counters *l;
	const struct emu_module *m;

	if (i >= emu_rt.nrecs || j >= (size_t)emu_rt.recs[i].nlines)
		return -1;
	l = &emu_rt.recs[i].lines[j];
	m = emu_rt.recs[i].m;
	snprintf(out->file, sizeof(out->file), "%s",
		 l->file >= 0 && l->file < m->nfiles && m->files[l->file] ?
		 m->files[l->file] : "?");
	out->line = l->line;
	out->counters = l->c;
	return 0;
}

/* ---- launch records and their replay ---- */
void wgemu_record_begin(const void *in, size_t in_bytes, const void *out,
			size_t out_bytes)
{
	struct emu_trace_head h;
	int i;

	memset(&h, 0, sizeof(h));
	h.in = (uint64_t)(uintptr_t)in;
	h.in_bytes = in_bytes;
	h.out = (uint64_t)(uintptr_t)out;
	h.out_bytes = out_bytes;
	emu_trace_open(&h);
	for (i = 0; i < emu_mem_count(); i++)
		if (!emu_mem_get(i)->is_var)
			rt_trace_simple(TR_ALLOC, emu_mem_get(i)->dev,
				     emu_mem_get(i)->size);
	for (i = 0; i < emu_rt.nmods; i++)
		rt_trace_vars(i);
	emu_tex_trace_live();
}

void wgemu_watch_output(const void *out, size_t out_bytes,
			size_t guard_bytes, size_t elem_bytes)
{
	uint64_t o = (uint64_t)(uintptr_t)out;

	memset(&emu_watch, 0, sizeof(emu_watch));
	if (!out || !elem_bytes)
		return;
	emu_watch.lo = o - guard_bytes;
	emu_watch.out = o;
	emu_watch.end = o + out_bytes;
	emu_watch.hi = o + out_bytes + guard_bytes;
	emu_watch.elem = elem_bytes;
}

int wgemu_record_end(unsigned char **buf, size_t *len)
{
	return emu_trace_close(buf, len);
}

void wgemu_replay_mode(void)
{
	emu_mem_replay_mode();
}

int wgemu_alloc_at(uint64_t addr, uint64_t size, int zeroed)
{
	return emu_mem_alloc_at(addr, size, zeroed || emu_rt_lazy()) ? 0 : -1;
}

/* ---- the record file for 'warpgrade emu' ---- */
static void put_counters(FILE *f, const struct wgemu_counters *c)
{
	fprintf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu",
		(unsigned long long)c->global_load_requests,
		(unsigned long long)c->global_load_sectors,
		(unsigned long long)c->global_store_requests,
		(unsigned long long)c->global_store_sectors,
		(unsigned long long)c->shared_load_wavefronts,
		(unsigned long long)c->shared_load_bank_conflicts,
		(unsigned long long)c->shared_store_wavefronts,
		(unsigned long long)c->shared_store_bank_conflicts,
		(unsigned long long)c->lane_instructions);
}

static void dump_records(void)
{
	const char *path = getenv("WGEMU_RECORD");
	FILE *f;
	size_t i;
	int j;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < emu_rt.nrecs; i++) {
		const struct wgemu_launch *l = &emu_rt.recs[i].l;

		fprintf(f, "L\t%s\t%u %u %u\t%u %u %u\t%zu\t%zu\t", l->kernel,
			l->grid[0], l->grid[1], l->grid[2], l->block[0],
			l->block[1], l->block[2], l->dynamic_shared_bytes,
			l->static_shared_bytes);
		put_counters(f, &l->counters);
		fputc('\n', f);
		if (emu_rt.recs[i].predicted_ms >= 0)
			fprintf(f, "P\t%.6f\t%s\t%s\n",
				emu_rt.recs[i].predicted_ms, wgemu_perf_gpu(),
				emu_rt.recs[i].limit);
		for (j = 0; j < emu_rt.recs[i].nlines; j++) {
			const struct emu_line_counters *c =
				&emu_rt.recs[i].lines[j];
			const struct emu_module *m = emu_rt.recs[i].m;
			const char *file = c->file >= 0 && c->file < m->nfiles
					   && m->files[c->file] ?
					   m->files[c->file] : "?";

			fprintf(f, "S\t%s\t%d\t", file, c->line);
			put_counters(f, &c->c);
			fputc('\n', f);
		}
	}
	if (emu_rt.fault_kind != WGEMU_FAULT_NONE)
		fprintf(f, "F\t%d\t%s\n", (int)emu_rt.fault_kind,
			emu_rt.fault_msg);
	fclose(f);
}
