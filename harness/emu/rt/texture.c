/*
 * CUDA arrays and the texture and surface object API of the emulator's
 * runtime (texture.h): arrays and the copies to and from them, objects
 * checked as a GPU checks them and kept in the table kernels read
 * (texfetch.c), and each object written into an open launch record so
 * that a replay makes it again under the same handle.
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"
#include "emu/rt/rt.h"
#include "emu/rt/texture.h"
#include "emu/trace.h"
#include "emu/wgemu.h"

/* A texel format, for the array and texture API. */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z,
						   int w,
						   enum cudaChannelFormatKind f)
{
	struct cudaChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

/* ---- arrays ---- */
cudaError_t cudaMalloc3DArray(cudaArray_t *array,
			      const struct cudaChannelFormatDesc *desc,
			      struct cudaExtent extent, unsigned int flags)
{
	struct cudaArray *a;
	size_t n;

	if (!array || !desc || !emu_tex_elem_size(desc) || !extent.width)
		return rt_fail(cudaErrorInvalidValue);
	a = calloc(1, sizeof(*a));
	if (!a)
		return rt_fail(cudaErrorMemoryAllocation);
	a->desc = *desc;
	a->esize = emu_tex_elem_size(desc);
	a->w = extent.width;
	a->h = extent.height ? extent.height : 1;
	a->d = extent.depth ? extent.depth : 1;
	a->flags = flags;
	n = a->w * a->h * a->d * a->esize;
	a->data = malloc(n);
	if (!a->data) {
		free(a);
		return rt_fail(cudaErrorMemoryAllocation);
	}
	memset(a->data, 0, n);
	*array = a;
	return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array,
			    const struct cudaChannelFormatDesc *desc,
			    size_t width, size_t height, unsigned int flags)
{
	struct cudaExtent e = { width, height, 0 };

	return cudaMalloc3DArray(array, desc, e, flags);
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
	if (array) {
		free(array->data);
		free(array);
	}
	return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
			     struct cudaExtent *extent, unsigned int *flags,
			     cudaArray_t array)
{
	if (!array)
		return rt_fail(cudaErrorInvalidValue);
	if (desc)
		*desc = array->desc;
	if (extent) {
		extent->width = array->w;
		extent->height = array->h > 1 ? array->h : 0;
		extent->depth = array->d > 1 ? array->d : 0;
	}
	if (flags)
		*flags = 0;
	return cudaSuccess;
}

/* host memory of a pointer a copy names: device memory is looked up,
 * host memory is itself */
static uint8_t *mem_of(const void *p, size_t n, int dev)
{
	struct emu_alloc *a;

	if (!dev)
		return (uint8_t *)p;
	a = emu_mem_find((uint64_t)(uintptr_t)p, n ? n : 1);
	return a ? a->host + ((uint64_t)(uintptr_t)p - a->dev) : NULL;
}

static int src_is_dev(enum cudaMemcpyKind kind, const void *p)
{
	if (kind == cudaMemcpyDefault)
		return emu_mem_find((uint64_t)(uintptr_t)p, 1) != NULL;
	return kind == cudaMemcpyDeviceToDevice ||
	       kind == cudaMemcpyDeviceToHost;
}

static int dst_is_dev(enum cudaMemcpyKind kind, const void *p)
{
	if (kind == cudaMemcpyDefault)
		return emu_mem_find((uint64_t)(uintptr_t)p, 1) != NULL;
	return kind == cudaMemcpyDeviceToDevice ||
	       kind == cudaMemcpyHostToDevice;
}

uint8_t *emu_copy_mem(const void *p, size_t n, int kind, int is_dst)
{
	enum cudaMemcpyKind k = (enum cudaMemcpyKind)kind;

	return mem_of(p, n, is_dst ? dst_is_dev(k, p) : src_is_dev(k, p));
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset,
				size_t hOffset, const void *src,
				size_t spitch, size_t width, size_t height,
				enum cudaMemcpyKind kind)
{
	const uint8_t *s;
	size_t rowb;

	if (!dst || wOffset + width > dst->w * dst->esize ||
	    hOffset + height > dst->h * dst->d || width > spitch)
		return rt_fail(cudaErrorInvalidValue);
	s = mem_of(src, spitch * (height ? height - 1 : 0) + width,
		   src_is_dev(kind, src));
	if (!s)
		return rt_fail(cudaErrorInvalidValue);
	rowb = dst->w * dst->esize;
	for (size_t r = 0; r < height; r++)
		memcpy(dst->data + (hOffset + r) * rowb + wOffset,
		       s + r * spitch, width);
	return cudaSuccess;
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch,
				  cudaArray_const_t src, size_t wOffset,
				  size_t hOffset, size_t width, size_t height,
				  enum cudaMemcpyKind kind)
{
	uint8_t *d;
	size_t rowb;

	if (!src || wOffset + width > src->w * src->esize ||
	    hOffset + height > src->h * src->d || width > dpitch)
		return rt_fail(cudaErrorInvalidValue);
	d = mem_of(dst, dpitch * (height ? height - 1 : 0) + width,
		   dst_is_dev(kind, dst));
	if (!d)
		return rt_fail(cudaErrorInvalidValue);
	rowb = src->w * src->esize;
	for (size_t r = 0; r < height; r++)
		memcpy(d + r * dpitch,
		       src->data + (hOffset + r) * rowb + wOffset, width);
	return cudaSuccess;
}

/* the deprecated linear forms: count bytes from (wOffset, hOffset) on,
 * row after row */
static cudaError_t to_array(cudaArray_t dst, size_t wOffset, size_t hOffset,
			    const void *src, size_t count,
			    enum cudaMemcpyKind kind)
{
	const uint8_t *s;
	size_t off;

	if (!dst)
		return rt_fail(cudaErrorInvalidValue);
	off = hOffset * dst->w * dst->esize + wOffset;
	if (off + count > dst->w * dst->h * dst->d * dst->esize)
		return rt_fail(cudaErrorInvalidValue);
	s = mem_of(src, count, src_is_dev(kind, src));
	if (!s)
		return rt_fail(cudaErrorInvalidValue);
	memcpy(dst->data + off, s, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
			      const void *src, size_t count,
			      enum cudaMemcpyKind kind)
{
	return to_array(dst, wOffset, hOffset, src, count, kind);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src,
				size_t wOffset, size_t hOffset, size_t count,
				enum cudaMemcpyKind kind)
{
	uint8_t *d;
	size_t off;

	if (!src)
		return rt_fail(cudaErrorInvalidValue);
	off = hOffset * src->w * src->esize + wOffset;
	if (off + count > src->w * src->h * src->d * src->esize)
		return rt_fail(cudaErrorInvalidValue);
	d = mem_of(dst, count, dst_is_dev(kind, dst));
	if (!d)
		return rt_fail(cudaErrorInvalidValue);
	memcpy(d, src->data + off, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset,
				     size_t hOffset, const void *src,
				     size_t spitch, size_t width,
				     size_t height, enum cudaMemcpyKind kind,
				     cudaStream_t stream)
{
	(void)stream;
	return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width,
				   height, kind);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset,
				   size_t hOffset, const void *src,
				   size_t count, enum cudaMemcpyKind kind,
				   cudaStream_t stream)
{
	(void)stream;
	return to_array(dst, wOffset, hOffset, src, count, kind);
}

/* ---- objects ---- */

/* A resource a texture may read, as a GPU checks it: a linear or
 * pitched one starts at a multiple of the texture alignment (a pitched
 * one's rows at the pitch alignment). */
static int resource_ok(const struct cudaResourceDesc *res, int is_surf)
{
	uintptr_t p;

	switch (res->resType) {
	case cudaResourceTypeArray:
		return res->res.array.array != NULL;
	case cudaResourceTypeLinear:
		p = (uintptr_t)res->res.linear.devPtr;
		return !is_surf && p % EMU_ALLOC_ALIGN == 0;
	case cudaResourceTypePitch2D:
		p = (uintptr_t)res->res.pitch2D.devPtr;
		return !is_surf && p % EMU_ALLOC_ALIGN == 0 &&
		       res->res.pitch2D.pitchInBytes %
		       EMU_TEXTURE_PITCH_ALIGN == 0;
	default:
		return 0;
	}
}

/* Object i into an open launch record: a replay re-creates it under
 * the same handle.  One over a CUDA array cannot be: the array's
 * contents are not in the record. */
static void trace_obj(size_t i)
{
	const struct emu_texobj *o = emu_tex_slot(i);
	struct emu_trace_op op;
	unsigned char data[EMU_TRACE_TEXTURE_BYTES];

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	if (o->res.resType == cudaResourceTypeArray) {
		op.kind = TR_UNTRACED;
		op.name = "a texture or surface object over a CUDA array";
		emu_trace_put(&op);
		return;
	}
	memcpy(data, &o->res, sizeof(o->res));
	memcpy(data + sizeof(o->res), &o->tex, sizeof(o->tex));
	op.kind = TR_TEXTURE;
	op.a = i + 1;
	op.value = (uint32_t)o->is_surf;
	op.data = data;
	op.ndata = sizeof(data);
	emu_trace_put(&op);
}

void emu_tex_trace_live(void)
{
	for (size_t i = 0; i < emu_tex_count(); i++)
		if (emu_tex_slot(i)->used)
			trace_obj(i);
}

static void set_obj(struct emu_texobj *o, int is_surf,
		    const struct cudaResourceDesc *res,
		    const struct cudaTextureDesc *tex)
{
	o->used = 1;
	o->is_surf = is_surf;
	o->res = *res;
	if (tex)
		o->tex = *tex;
	else
		memset(&o->tex, 0, sizeof(o->tex));
}

static cudaError_t new_obj(unsigned long long *h, int is_surf,
			   const struct cudaResourceDesc *res,
			   const struct cudaTextureDesc *tex)
{
	size_t i;
	struct emu_texobj *o;

	if (!h || !res || !resource_ok(res, is_surf))
		return rt_fail(cudaErrorInvalidValue);
	for (i = 0; i < emu_tex_count() && emu_tex_slot(i)->used; i++)
		;
	o = emu_tex_slot(i);
	if (!o)
		return rt_fail(cudaErrorMemoryAllocation);
	set_obj(o, is_surf, res, tex);
	*h = i + 1;
	trace_obj(i);
	return cudaSuccess;
}

int wgemu_texture_at(uint64_t handle, int is_surf, const void *data,
		     size_t n)
{
	struct cudaResourceDesc res;
	struct cudaTextureDesc tex;
	struct emu_texobj *o;

	if (!handle || handle > 1u << 20 || n != EMU_TRACE_TEXTURE_BYTES)
		return -1;
	memcpy(&res, data, sizeof(res));
	memcpy(&tex, (const unsigned char *)data + sizeof(res), sizeof(tex));
	if (res.resType == cudaResourceTypeArray ||
	    !resource_ok(&res, is_surf) || !(o = emu_tex_slot(handle - 1)))
		return -1;
	set_obj(o, is_surf, &res, is_surf ? NULL : &tex);
	return 0;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
				    const struct cudaResourceDesc *pResDesc,
				    const struct cudaTextureDesc *pTexDesc,
				    const struct cudaResourceViewDesc *view)
{
	(void)view;
	if (!pTexDesc)
		return rt_fail(cudaErrorInvalidValue);
	return new_obj(pTexObject, 0, pResDesc, pTexDesc);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
	struct emu_texobj *o = emu_tex_obj(texObject, 0);

	if (o)
		o->used = 0;
	return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *d,
					     cudaTextureObject_t texObject)
{
	struct emu_texobj *o = emu_tex_obj(texObject, 0);

	if (!o || !d)
		return rt_fail(cudaErrorInvalidValue);
	*d = o->res;
	return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
				    const struct cudaResourceDesc *pResDesc)
{
	return new_obj(pSurfObject, 1, pResDesc, NULL);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
	struct emu_texobj *o = emu_tex_obj(surfObject, 1);

	if (o)
		o->used = 0;
	return cudaSuccess;
}

