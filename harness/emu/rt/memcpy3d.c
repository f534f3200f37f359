/*
 * cudaMemcpy3D: a box of rows between CUDA arrays and pitched memory
 * (host or device), slice after slice, row after row.  With an array on
 * either side, widths and x positions count the array's elements;
 * between pitched pointers they count bytes.  A pitched pointer's slice
 * is ysize rows of pitch bytes.  Synchronous, as every copy here.
 * cudaMalloc3D allocates such memory.
 */
#include <stdint.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"
#include "emu/rt/graph.h"
#include "emu/rt/rt.h"
#include "emu/rt/texture.h"

/* one side of the copy */
struct side {
	struct cudaArray *a;
	struct cudaPitchedPtr p;
	struct cudaPos pos;
	int is_dst;
};

/* Host address of row y of slice z of the box on side s, row bytes
 * long; NULL when outside the array or the allocation. */
static uint8_t *row_at(const struct side *s, size_t y, size_t z,
		       size_t row, size_t esize, int kind)
{
	size_t x = s->pos.x * esize, ry = s->pos.y + y, rz = s->pos.z + z;
	const struct cudaArray *a = s->a;

	if (a) {
		if (x + row > a->w * a->esize || ry >= a->h || rz >= a->d)
			return NULL;
		return a->data + ((rz * a->h + ry) * a->w) * a->esize + x;
	}
	if (x + row > s->p.pitch)
		return NULL;
	return emu_copy_mem((const uint8_t *)s->p.ptr +
			    (rz * s->p.ysize + ry) * s->p.pitch + x, row, kind,
			    s->is_dst);
}

static cudaError_t copy_box(const struct side *src, const struct side *dst,
			    struct cudaExtent e, int kind)
{
	size_t esize = src->a ? src->a->esize : dst->a ? dst->a->esize : 1;
	size_t row = e.width * esize, y, z;
	size_t h = e.height ? e.height : 1, d = e.depth ? e.depth : 1;

	if (src->a && dst->a && src->a->esize != dst->a->esize)
		return rt_fail(cudaErrorInvalidValue);
	for (z = 0; z < d; z++)
		for (y = 0; y < h; y++) {
			const uint8_t *s = row_at(src, y, z, row, esize, kind);
			uint8_t *t = row_at(dst, y, z, row, esize, kind);

			if (!s || !t)
				return rt_fail(cudaErrorInvalidValue);
			memmove(t, s, row);
		}
	return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	struct side src, dst;
	cudaError_t e;

	if (emu_rt_sticky())
		return (cudaError_t)emu_rt_sticky();
	if (!p || (!p->srcArray == !p->srcPtr.ptr) ||
	    (!p->dstArray == !p->dstPtr.ptr))
		return rt_fail(cudaErrorInvalidValue);
	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
	src.a = p->srcArray;
	src.p = p->srcPtr;
	src.pos = p->srcPos;
	dst.a = p->dstArray;
	dst.p = p->dstPtr;
	dst.pos = p->dstPos;
	dst.is_dst = 1;
	if (!src.a && !src.p.ysize)
		src.p.ysize = p->extent.height;
	if (!dst.a && !dst.p.ysize)
		dst.p.ysize = p->extent.height;
	emu_rt_lock();
	e = copy_box(&src, &dst, p->extent, p->kind);
	emu_rt_unlock();
	return e;
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p,
			      cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return emu_capture_memcpy3d(stream, p);
	return cudaMemcpy3D(p);
}

/* Pitched 3D memory: depth slices of height rows, each row padded as
 * cudaMallocPitch pads it. */
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
			 struct cudaExtent extent)
{
	size_t pitch = 0, rows = extent.height * (extent.depth ? extent.depth :
						  1);
	void *p = NULL;
	cudaError_t e;

	if (!pitchedDevPtr)
		return rt_fail(cudaErrorInvalidValue);
	e = cudaMallocPitch(&p, &pitch, extent.width, rows);
	if (e)
		return e;
	pitchedDevPtr->ptr = p;
	pitchedDevPtr->pitch = pitch;
	pitchedDevPtr->xsize = extent.width;
	pitchedDevPtr->ysize = extent.height;
	return cudaSuccess;
}
