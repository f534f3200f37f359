/*
 * The memory API of the emulator's runtime: cudaMalloc and cudaFree and
 * their pitched, stream-ordered and pooled forms, host memory the
 * device sees at its own address (pinned, registered, managed), copies
 * and memsets (1D and 2D, to and from __device__ variables), and what
 * a pointer is.  Device memory itself is devmem.c's; this file checks
 * a call's arguments, writes it into an open launch record, keeps it in
 * a dry call (dry.c) and advances the emulator's clock by a copy's
 * modelled time.  Every call is synchronous, the Async forms included.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/rt/graph.h"
#include "emu/rt/rt.h"
#include "emu/perf/runtime_perf.h"
#include "emu/trace.h"

/* ---- allocation ---- */
static cudaError_t cudaMalloc_locked(void **devPtr, size_t size)
{
	struct emu_alloc *a;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!devPtr)
		return rt_fail(cudaErrorInvalidValue);
	/* zeroed as a GPU's fresh memory, or poisoned as its recycled */
	a = emu_mem_alloc(size, 0, emu_rt_lazy() || !emu_mem_recycle(size));
	if (!a)
		return rt_fail(cudaErrorMemoryAllocation);
	*devPtr = (void *)(uintptr_t)a->dev;
	rt_trace_simple(TR_MALLOC, a->dev, size);
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	RT_LOCKED(cudaMalloc_locked(devPtr, size));
}

static cudaError_t cudaFree_locked(void *devPtr)
{
	struct emu_alloc *a;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!devPtr)
		return cudaSuccess;
	a = emu_mem_at((uint64_t)(uintptr_t)devPtr);
	if (!a || a->is_var || a->is_heap || (a->is_host && a->owned != 2))
		return rt_fail(cudaErrorInvalidValue);
	if (!a->is_host)
		rt_trace_simple(TR_FREE, a->dev, 0);
	emu_mem_free(a);
	return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
	RT_LOCKED(cudaFree_locked(devPtr));
}

/* Stream-ordered allocation: everything is in order here. */
static cudaError_t cudaMallocAsync_locked(void **devPtr, size_t size,
					  cudaStream_t hStream)
{
	(void)hStream;
	return cudaMalloc(devPtr, size);
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
	if (emu_stream_capture(hStream))
		return emu_capture_malloc(hStream, devPtr, size);
	RT_LOCKED(cudaMallocAsync_locked(devPtr, size, hStream));
}

static cudaError_t cudaFreeAsync_locked(void *devPtr, cudaStream_t hStream)
{
	(void)hStream;
	return cudaFree(devPtr);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
	if (emu_stream_capture(hStream))
		return emu_capture_free(hStream, devPtr);
	RT_LOCKED(cudaFreeAsync_locked(devPtr, hStream));
}

/* Pitched memory: rows padded to 512 bytes, as the GPU's
 * texturePitchAlignment. */
static cudaError_t cudaMallocPitch_locked(void **devPtr, size_t *pitch,
					  size_t width, size_t height)
{
	size_t p = (width + 511) & ~(size_t)511;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!p)
		p = 512;
	if (height && p > SIZE_MAX / height)
		return rt_fail(cudaErrorMemoryAllocation);
	*pitch = p;
	return cudaMalloc(devPtr, p * height);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
			    size_t height)
{
	RT_LOCKED(cudaMallocPitch_locked(devPtr, pitch, width, height));
}

/* ---- host memory the device sees ---- */
/* Pinned host memory: with unified addressing a kernel may use it at
 * its own address, so it is mapped as well as allocated. */
static cudaError_t cudaMallocHost_locked(void **ptr, size_t size)
{
	void *p;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!ptr)
		return rt_fail(cudaErrorInvalidValue);
	p = malloc(size ? size : 1);
	if (!p)
		return rt_fail(cudaErrorMemoryAllocation);
	if (!emu_mem_map_host(p, size ? size : 1, 1)) {
		free(p);
		return rt_fail(cudaErrorMemoryAllocation);
	}
	*ptr = p;
	return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	RT_LOCKED(cudaMallocHost_locked(ptr, size));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	(void)flags;
	return cudaMallocHost(pHost, size);
}

static cudaError_t cudaFreeHost_locked(void *ptr)
{
	struct emu_alloc *a;

	if (!ptr)
		return emu_rt.sticky;
	a = emu_mem_at((uint64_t)(uintptr_t)ptr);
	if (!a || !a->is_host || a->owned != 1)
		return rt_fail(cudaErrorInvalidValue);
	emu_mem_free(a);
	return emu_rt.sticky;
}

cudaError_t cudaFreeHost(void *ptr)
{
	RT_LOCKED(cudaFreeHost_locked(ptr));
}

static cudaError_t cudaHostRegister_locked(void *ptr, size_t size,
					   unsigned int flags)
{
	(void)flags;
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!ptr || !size)
		return rt_fail(cudaErrorInvalidValue);
	if (!emu_mem_map_host(ptr, size, 0))
		return rt_fail(cudaErrorHostMemoryAlreadyRegistered);
	return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	RT_LOCKED(cudaHostRegister_locked(ptr, size, flags));
}

static cudaError_t cudaHostUnregister_locked(void *ptr)
{
	struct emu_alloc *a = emu_mem_at((uint64_t)(uintptr_t)ptr);

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!a || !a->is_host || a->owned)
		return rt_fail(cudaErrorHostMemoryNotRegistered);
	emu_mem_free(a);
	return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
	RT_LOCKED(cudaHostUnregister_locked(ptr));
}

static cudaError_t cudaHostGetDevicePointer_locked(void **pDevice,
						   void *pHost,
						   unsigned int flags)
{
	struct emu_alloc *a = emu_mem_find((uint64_t)(uintptr_t)pHost, 1);

	(void)flags;
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!pDevice || !a || !a->is_host)
		return rt_fail(cudaErrorInvalidValue);
	*pDevice = pHost;
	return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
				     unsigned int flags)
{
	RT_LOCKED(cudaHostGetDevicePointer_locked(pDevice, pHost, flags));
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
	struct emu_alloc *a = emu_mem_find((uint64_t)(uintptr_t)pHost, 1);

	if (!pFlags || !a || !a->is_host)
		return rt_fail(cudaErrorInvalidValue);
	*pFlags = cudaHostAllocMapped | cudaHostAllocPortable;
	return cudaSuccess;
}

/* Managed memory: one address for host and device, which here are the
 * same memory; zero-filled, as fresh pages are. */
static cudaError_t cudaMallocManaged_locked(void **devPtr, size_t size,
					    unsigned int flags)
{
	void *p;

	(void)flags;
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!devPtr || !size)
		return rt_fail(cudaErrorInvalidValue);
	if (size > emu_mem_free_bytes())
		return rt_fail(cudaErrorMemoryAllocation);
	p = aligned_alloc(256, (size + 255) / 256 * 256);
	if (!p)
		return rt_fail(cudaErrorMemoryAllocation);
	memset(p, 0, size);
	if (!emu_mem_map_host(p, size, 2)) {
		free(p);
		return rt_fail(cudaErrorMemoryAllocation);
	}
	*devPtr = p;
	return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	RT_LOCKED(cudaMallocManaged_locked(devPtr, size, flags));
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
				 struct cudaMemLocation location,
				 unsigned int flags, cudaStream_t stream)
{
	(void)devPtr, (void)count, (void)location, (void)flags, (void)stream;
	return emu_rt.sticky;
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
			  enum cudaMemoryAdvise advice,
			  struct cudaMemLocation location)
{
	(void)devPtr, (void)count, (void)advice, (void)location;
	return emu_rt.sticky;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr,
				     size_t length, unsigned int flags)
{
	(void)stream, (void)devPtr, (void)length, (void)flags;
	return emu_rt.sticky;
}

/* ---- copies and memsets ---- */
/* Host pointer of device range [p, p+n), or NULL. */
uint8_t *rt_dev_ptr(const void *p, size_t n)
{
	return emu_mem_host((uint64_t)(uintptr_t)p, n);
}

static int is_dev(const void *p)
{
	return emu_mem_find((uint64_t)(uintptr_t)p, 1) != NULL;
}

/*
 * A copy to the host of device memory that nothing wrote since it was
 * handed out again: cudaMalloc's memory is zeros, as a GPU's fresh
 * memory, but memory the process freed and allocates again holds the
 * fill 0xcb here (devmem.h, emu_mem_recycle) where a GPU's holds what
 * it held, so a program whose output depends on it agrees with a GPU by
 * luck or not at all.  Said once (then counted, rt_note) when the copy
 * has a whole aligned word of the fill: a value a program computes is
 * seldom those four bytes.
 */
static void note_unwritten(const uint8_t *s, size_t count)
{
	size_t k = (4 - ((uintptr_t)s & 3)) & 3;

	for (; k + 4 <= count; k += 4) {
		uint32_t w;

		memcpy(&w, s + k, 4);
		if (w == 0xcbcbcbcbu) {
			rt_note("a copy to the host read device memory that "
				"nothing wrote (memory freed and allocated "
				"again, holding the emulator's fill, 0xcb; "
				"on a GPU it holds what it held before): the "
				"program's result may depend on memory it "
				"never set");
			return;
		}
	}
}

static cudaError_t cudaMemcpy_locked(void *dst, const void *src,
				     size_t count, enum cudaMemcpyKind kind)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!count || emu_rt.dry == 1)
		return cudaSuccess;
	if (kind == cudaMemcpyDefault)
		kind = is_dev(dst) ? (is_dev(src) ? cudaMemcpyDeviceToDevice :
				      cudaMemcpyHostToDevice) :
		       (is_dev(src) ? cudaMemcpyDeviceToHost :
			cudaMemcpyHostToHost);
	if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
		d = rt_dev_ptr(dst, count);
	if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice)
		s = rt_dev_ptr(src, count);
	if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice)
		return rt_fail(cudaErrorInvalidMemcpyDirection);
	if (!d || !s)
		return rt_fail(cudaErrorInvalidValue);
	if (kind != cudaMemcpyHostToHost)
		rt_trace_copy(kind, (uint64_t)(uintptr_t)dst,
			   (uint64_t)(uintptr_t)src, src, count);
	if (kind != cudaMemcpyHostToHost)
		emu_perf_transfer(kind == cudaMemcpyDeviceToDevice ?
				  EMU_PERF_D2D : EMU_PERF_HOST, count);
	/* reading device memory back observes a dry call: it runs */
	if (emu_rt.dry == 2 && kind == cudaMemcpyDeviceToHost)
		rt_dry_force();
	if (emu_rt.dry == 2 && kind != cudaMemcpyHostToHost)
		return rt_dry_keep_copy(d, s, count, kind) ?
		       rt_fail(cudaErrorMemoryAllocation) : cudaSuccess;
	if (emu_rt.dry || emu_perf_only())
		return cudaSuccess;
	if (kind == cudaMemcpyDeviceToHost)
		note_unwritten(s, count);
	memmove(d, s, count);
	emu_rt.clock_ms += 0.002 + (double)count /
		      (kind == cudaMemcpyDeviceToDevice ? 1.5e9 : 2.5e7);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
		       enum cudaMemcpyKind kind)
{
	RT_LOCKED(cudaMemcpy_locked(dst, src, count, kind));
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
			    enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return emu_capture_memcpy(stream, dst, src, count, kind);
	return cudaMemcpy(dst, src, count, kind);
}

static cudaError_t cudaMemset_locked(void *devPtr, int value, size_t count)
{
	uint8_t *d;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!count || emu_rt.dry == 1)
		return cudaSuccess;
	d = rt_dev_ptr(devPtr, count);
	if (!d)
		return rt_fail(cudaErrorInvalidValue);
	if (emu_trace_on()) {
		struct emu_trace_op op;

		memset(&op, 0, sizeof(op));
		op.kind = TR_MEMSET;
		op.a = (uint64_t)(uintptr_t)devPtr;
		op.value = (uint32_t)(value & 0xff);
		op.n = count;
		emu_trace_put(&op);
	}
	emu_perf_transfer(EMU_PERF_MEMSET, count);
	if (emu_rt.dry == 2)
		return rt_dry_keep_memset(d, value, count) ?
		       rt_fail(cudaErrorMemoryAllocation) : cudaSuccess;
	if (emu_rt.dry || emu_perf_only())
		return cudaSuccess;
	memset(d, value, count);
	emu_rt.clock_ms += 0.002 + (double)count / 1.5e9;
	return cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	RT_LOCKED(cudaMemset_locked(devPtr, value, count));
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
			    cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return emu_capture_memset(stream, devPtr, value, count);
	return cudaMemset(devPtr, value, count);
}

static cudaError_t cudaMemcpy2D_locked(void *dst, size_t dpitch,
				       const void *src, size_t spitch,
				       size_t width, size_t height,
				       enum cudaMemcpyKind kind)
{
	cudaError_t e;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (width > dpitch || width > spitch)
		return rt_fail(cudaErrorInvalidPitchValue);
	for (size_t r = 0; r < height; r++) {
		e = cudaMemcpy((char *)dst + r * dpitch,
			       (const char *)src + r * spitch, width, kind);
		if (e)
			return e;
	}
	return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
			 size_t spitch, size_t width, size_t height,
			 enum cudaMemcpyKind kind)
{
	RT_LOCKED(cudaMemcpy2D_locked(dst, dpitch, src, spitch, width, height,
				   kind));
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
			      size_t spitch, size_t width, size_t height,
			      enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

static cudaError_t cudaMemset2D_locked(void *devPtr, size_t pitch,
				       int value, size_t width,
				       size_t height)
{
	cudaError_t e;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (width > pitch)
		return rt_fail(cudaErrorInvalidPitchValue);
	for (size_t r = 0; r < height; r++) {
		e = cudaMemset((char *)devPtr + r * pitch, value, width);
		if (e)
			return e;
	}
	return cudaSuccess;
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
			 size_t height)
{
	RT_LOCKED(cudaMemset2D_locked(devPtr, pitch, value, width, height));
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value,
			      size_t width, size_t height,
			      cudaStream_t stream)
{
	(void)stream;
	return cudaMemset2D(devPtr, pitch, value, width, height);
}

/* ---- variables ---- */
static uint8_t *symbol_ptr(const void *symbol, size_t off, size_t count)
{
	const struct emu_sym *s = rt_symbol(symbol);

	if (!s || off + count > s->size || off + count < off)
		return NULL;
	return rt_dev_ptr((void *)(uintptr_t)(s->dev + off), count);
}

static cudaError_t cudaMemcpyToSymbol_locked(const void *symbol,
					     const void *src, size_t count,
					     size_t offset,
					     enum cudaMemcpyKind kind)
{
	uint8_t *d;
	const uint8_t *s = src;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	d = symbol_ptr(symbol, offset, count);
	if (!d)
		return rt_fail(cudaErrorInvalidSymbol);
	if (kind == cudaMemcpyDeviceToDevice)
		s = rt_dev_ptr(src, count);
	if (!s)
		return rt_fail(cudaErrorInvalidValue);
	rt_trace_copy(kind == cudaMemcpyDeviceToDevice ? TR_D2D : TR_H2D,
		   rt_symbol(symbol)->dev + offset, (uint64_t)(uintptr_t)src,
		   src, count);
	memmove(d, s, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src,
			       size_t count, size_t offset,
			       enum cudaMemcpyKind kind)
{
	RT_LOCKED(cudaMemcpyToSymbol_locked(symbol, src, count, offset, kind));
}

static cudaError_t cudaMemcpyFromSymbol_locked(void *dst,
					       const void *symbol,
					       size_t count, size_t offset,
					       enum cudaMemcpyKind kind)
{
	const uint8_t *s;
	uint8_t *d = dst;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	s = symbol_ptr(symbol, offset, count);
	if (!s)
		return rt_fail(cudaErrorInvalidSymbol);
	if (kind == cudaMemcpyDeviceToDevice)
		d = rt_dev_ptr(dst, count);
	if (!d)
		return rt_fail(cudaErrorInvalidValue);
	rt_trace_copy(kind == cudaMemcpyDeviceToDevice ? TR_D2D : TR_D2H,
		   (uint64_t)(uintptr_t)dst, rt_symbol(symbol)->dev + offset,
		   NULL, count);
	memmove(d, s, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol,
				 size_t count, size_t offset,
				 enum cudaMemcpyKind kind)
{
	RT_LOCKED(cudaMemcpyFromSymbol_locked(dst, symbol, count, offset,
					      kind));
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
				    size_t count, size_t offset,
				    enum cudaMemcpyKind kind,
				    cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol,
				      size_t count, size_t offset,
				      enum cudaMemcpyKind kind,
				      cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
	const struct emu_sym *s;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	s = rt_symbol(symbol);
	if (!s)
		return rt_fail(cudaErrorInvalidSymbol);
	*devPtr = (void *)(uintptr_t)s->dev;
	return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
	const struct emu_sym *s;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	s = rt_symbol(symbol);
	if (!s)
		return rt_fail(cudaErrorInvalidSymbol);
	*size = s->size;
	return cudaSuccess;
}

/* ---- what a pointer is, what is free ---- */
static cudaError_t cudaPointerGetAttributes_locked(
	struct cudaPointerAttributes *attributes, const void *ptr)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	memset(attributes, 0, sizeof(*attributes));
	if (is_dev(ptr)) {
		const struct emu_alloc *a = emu_mem_find(
			(uint64_t)(uintptr_t)ptr, 1);

		attributes->type = !a->is_host ? cudaMemoryTypeDevice :
				   a->owned == 2 ? cudaMemoryTypeManaged :
				   cudaMemoryTypeHost;
		attributes->devicePointer = (void *)ptr;
		if (a->is_host)
			attributes->hostPointer = (void *)ptr;
	} else {
		attributes->type = cudaMemoryTypeUnregistered;
		attributes->hostPointer = (void *)ptr;
	}
	attributes->device = 0;
	return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
				     const void *ptr)
{
	RT_LOCKED(cudaPointerGetAttributes_locked(attributes, ptr));
}

void *wgemu_host_ptr(uint64_t addr, size_t n)
{
	return rt_dev_ptr((const void *)(uintptr_t)addr, n);
}

static cudaError_t cudaMemGetInfo_locked(size_t *free_b, size_t *total)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	*free_b = (size_t)emu_mem_free_bytes();
	*total = (size_t)EMU_TOTAL_MEM;
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
	RT_LOCKED(cudaMemGetInfo_locked(free_b, total));
}

/* ---- memory pools ---- */
/* The device has one pool (a dummy handle), whose attributes are
 * kept; allocations from it are ordinary allocations, freed at once by
 * cudaFreeAsync (there is nothing to release later). */
static struct CUmemPoolHandle_st *const g_pool =
	(struct CUmemPoolHandle_st *)&g_pool;

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
	if (!memPool || device != 0)
		return rt_fail(device ? cudaErrorInvalidDevice :
				     cudaErrorInvalidValue);
	*memPool = g_pool;
	return emu_rt.sticky;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
	return cudaDeviceGetDefaultMemPool(memPool, device);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
	if (device != 0 || memPool != g_pool)
		return rt_fail(cudaErrorInvalidValue);
	return emu_rt.sticky;
}

/* attributes are int or uint64_t (the sizes and the watermarks) */
static int pool_attr_is_int(enum cudaMemPoolAttr attr)
{
	return attr < cudaMemPoolAttrReleaseThreshold;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool,
				    enum cudaMemPoolAttr attr, void *value)
{
	if (memPool != g_pool || !value || (unsigned)attr >= 16)
		return rt_fail(cudaErrorInvalidValue);
	if (pool_attr_is_int(attr))
		emu_rt.pool_attr[attr] = (uint64_t)*(int *)value;
	else
		memcpy(&emu_rt.pool_attr[attr], value, 8);
	return emu_rt.sticky;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool,
				    enum cudaMemPoolAttr attr, void *value)
{
	if (memPool != g_pool || !value || (unsigned)attr >= 16)
		return rt_fail(cudaErrorInvalidValue);
	if (pool_attr_is_int(attr))
		*(int *)value = (int)emu_rt.pool_attr[attr];
	else
		memcpy(value, &emu_rt.pool_attr[attr], 8);
	return emu_rt.sticky;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
	(void)minBytesToKeep;
	if (memPool != g_pool)
		return rt_fail(cudaErrorInvalidValue);
	return emu_rt.sticky;
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size,
				    cudaMemPool_t memPool, cudaStream_t stream)
{
	if (memPool != g_pool)
		return rt_fail(cudaErrorInvalidValue);
	return cudaMallocAsync(ptr, size, stream);
}
