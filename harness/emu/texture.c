/*
 * CUDA arrays, texture and surface objects (texture.h).  Sampling
 * follows the CUDA programming guide's texture fetching appendix:
 * normalised coordinates scaled by the size, addressing (clamp, wrap,
 * mirror, border) per dimension, nearest-point or linear filtering with
 * the weights in 1.8 fixed point as the hardware has them, and
 * integer texels returned as they are or as normalised floats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"
#include "emu/half.h"
#include "emu/rt.h"
#include "emu/texture.h"
#include "emu/trace.h"
#include "emu/wgemu.h"

struct tobj {
	int used, is_surf;
	struct cudaResourceDesc res;
	struct cudaTextureDesc tex;
};

static struct tobj *g_objs;
static size_t g_nobjs;

static size_t elem_size(const struct cudaChannelFormatDesc *d)
{
	return (size_t)(d->x + d->y + d->z + d->w) / 8;
}

static int channels(const struct cudaChannelFormatDesc *d)
{
	return (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
}

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

	if (!array || !desc || !elem_size(desc) || !extent.width)
		return rt_fail(cudaErrorInvalidValue);
	a = calloc(1, sizeof(*a));
	if (!a)
		return rt_fail(cudaErrorMemoryAllocation);
	a->desc = *desc;
	a->esize = elem_size(desc);
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

/* Slot i (handle i + 1), grown when needed; NULL out of memory. */
static struct tobj *slot(size_t i)
{
	if (i >= g_nobjs) {
		size_t n = (i + 16) / 16 * 16;
		struct tobj *v = realloc(g_objs, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + g_nobjs, 0, (n - g_nobjs) * sizeof(*v));
		g_objs = v;
		g_nobjs = n;
	}
	return &g_objs[i];
}

/* Object i into an open launch record: a replay re-creates it under
 * the same handle.  One over a CUDA array cannot be: the array's
 * contents are not in the record. */
static void trace_obj(size_t i)
{
	const struct tobj *o = &g_objs[i];
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
	for (size_t i = 0; i < g_nobjs; i++)
		if (g_objs[i].used)
			trace_obj(i);
}

static void set_obj(struct tobj *o, int is_surf,
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
	struct tobj *o;

	if (!h || !res || !resource_ok(res, is_surf))
		return rt_fail(cudaErrorInvalidValue);
	for (i = 0; i < g_nobjs && g_objs[i].used; i++)
		;
	o = slot(i);
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
	struct tobj *o;

	if (!handle || handle > 1u << 20 || n != EMU_TRACE_TEXTURE_BYTES)
		return -1;
	memcpy(&res, data, sizeof(res));
	memcpy(&tex, (const unsigned char *)data + sizeof(res), sizeof(tex));
	if (res.resType == cudaResourceTypeArray ||
	    !resource_ok(&res, is_surf) || !(o = slot(handle - 1)))
		return -1;
	set_obj(o, is_surf, &res, is_surf ? NULL : &tex);
	return 0;
}

static struct tobj *obj(uint64_t h, int is_surf)
{
	if (!h || h > g_nobjs || !g_objs[h - 1].used ||
	    g_objs[h - 1].is_surf != is_surf)
		return NULL;
	return &g_objs[h - 1];
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
	struct tobj *o = obj(texObject, 0);

	if (o)
		o->used = 0;
	return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *d,
					     cudaTextureObject_t texObject)
{
	struct tobj *o = obj(texObject, 0);

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
	struct tobj *o = obj(surfObject, 1);

	if (o)
		o->used = 0;
	return cudaSuccess;
}

/* ---- sampling ---- */
/* the texels of a resource: base, format, size, row and slice bytes */
struct texels {
	const uint8_t *base;
	uint64_t dev;               /* base's device address; 0: an array */
	struct cudaChannelFormatDesc desc;
	size_t esize, w, h, d, pitch, slice;
};

static int texels_of(const struct tobj *o, struct texels *t)
{
	const struct cudaResourceDesc *r = &o->res;
	const struct emu_alloc *a;

	memset(t, 0, sizeof(*t));
	if (r->resType == cudaResourceTypeArray) {
		const struct cudaArray *ar = r->res.array.array;

		t->base = ar->data;
		t->desc = ar->desc;
		t->w = ar->w;
		t->h = ar->h;
		t->d = ar->d;
		t->esize = ar->esize;
		t->pitch = ar->w * ar->esize;
	} else {
		int lin = r->resType == cudaResourceTypeLinear;

		t->desc = lin ? r->res.linear.desc : r->res.pitch2D.desc;
		t->esize = elem_size(&t->desc);
		if (!t->esize)
			return -1;
		a = emu_mem_find((uint64_t)(uintptr_t)(lin ?
				 r->res.linear.devPtr :
				 r->res.pitch2D.devPtr), 1);
		if (!a)
			return -1;
		t->dev = (uint64_t)(uintptr_t)(lin ? r->res.linear.devPtr :
					       r->res.pitch2D.devPtr);
		t->base = a->host + (t->dev - a->dev);
		t->w = lin ? r->res.linear.sizeInBytes / t->esize :
			     r->res.pitch2D.width;
		t->h = lin ? 1 : r->res.pitch2D.height;
		t->d = 1;
		t->pitch = lin ? t->w * t->esize : r->res.pitch2D.pitchInBytes;
	}
	t->slice = t->pitch * t->h;
	return 0;
}

/* one channel of a texel as a float (normalised for integer formats when
 * norm) or as an integer */
static void read_texel(const struct texels *t, long x, long y, long z,
		       int norm, float f[4], uint32_t u[4])
{
	const uint8_t *p = t->base + (size_t)z * t->slice +
			   (size_t)y * t->pitch + (size_t)x * t->esize;
	int bits = t->desc.x, n = channels(&t->desc), k = t->desc.f;

	for (int c = 0; c < 4; c++) {
		uint32_t v = 0;

		f[c] = c == 3 ? 1.0f : 0.0f;
		u[c] = c == 3 ? 1 : 0;
		if (c >= n)
			continue;
		memcpy(&v, p + c * (bits / 8), (size_t)bits / 8);
		if (k == cudaChannelFormatKindFloat) {
			f[c] = bits == 32 ? ((union { uint32_t u; float f; })
					     { v }).f :
			       emu_f16_to_f32((uint16_t)v);
			memcpy(&u[c], &f[c], 4);
		} else if (k == cudaChannelFormatKindSigned) {
			int32_t s = bits == 8 ? (int8_t)v : bits == 16 ?
				    (int16_t)v : (int32_t)v;

			u[c] = (uint32_t)s;
			f[c] = norm ? fmaxf((float)s / (float)((1u << (bits -
					    1)) - 1), -1.0f) : (float)s;
		} else {
			u[c] = v;
			f[c] = norm ? (float)v / (float)(bits == 32 ?
					4294967295.0 : (double)((1ull << bits) -
					1)) : (float)v;
		}
	}
}

/* a texel coordinate after addressing; -1 for a border texel */
static long address(long i, long n, int mode)
{
	if (i >= 0 && i < n)
		return i;
	switch (mode) {
	case cudaAddressModeWrap:
		i %= n;
		return i < 0 ? i + n : i;
	case cudaAddressModeMirror: {
		long m = i < 0 ? -i - 1 : i, r = m % (2 * n);

		return r < n ? r : 2 * n - 1 - r;
	}
	case cudaAddressModeBorder:
		return -1;
	default:
		return i < 0 ? 0 : n - 1;
	}
}

/* the addressing mode of dimension k: wrap and mirror need normalised
 * coordinates, and are clamp without them */
static int mode_of(const struct tobj *o, int k)
{
	int m = o->tex.addressMode[k];

	if (!o->tex.normalizedCoords && (m == cudaAddressModeWrap ||
					 m == cudaAddressModeMirror))
		return cudaAddressModeClamp;
	return m;
}

static void fetch(const struct tobj *o, const struct texels *t,
		  const long *i, int geom, float f[4], uint32_t u[4],
		  uint64_t *addr)
{
	long x = address(i[0], (long)t->w, mode_of(o, 0));
	long y = geom > 1 ? address(i[1], (long)t->h, mode_of(o, 1)) : 0;
	long z = geom > 2 ? address(i[2], (long)t->d, mode_of(o, 2)) : 0;
	int norm = o->tex.readMode == cudaReadModeNormalizedFloat;

	if (x < 0 || y < 0 || z < 0) {
		for (int c = 0; c < 4; c++) {
			f[c] = o->tex.borderColor[c];
			u[c] = 0;
		}
		return;
	}
	read_texel(t, x, y, z, norm, f, u);
	if (t->dev && !*addr)
		*addr = t->dev + (uint64_t)((size_t)z * t->slice +
			(size_t)y * t->pitch + (size_t)x * t->esize);
}

static void sample(const struct tobj *o, const struct texels *tx, int geom,
		   int cfloat, const uint64_t *c, int rfloat, uint32_t out[4],
		   uint64_t *addr)
{
	struct texels t = *tx;
	size_t dim[3];
	float acc[4] = { 0, 0, 0, 0 }, frac[3] = { 0, 0, 0 }, f[4];
	long base[3] = { 0, 0, 0 };
	uint32_t u[4];
	int linear;

	dim[0] = t.w;
	dim[1] = t.h;
	dim[2] = t.d;
	linear = cfloat && o->tex.filterMode == cudaFilterModeLinear;
	for (int k = 0; k < geom; k++) {
		float x;

		if (!cfloat) {
			base[k] = (long)(int32_t)c[k];
			continue;
		}
		memcpy(&x, &c[k], 4);
		if (o->tex.normalizedCoords)
			x *= (float)dim[k];
		if (linear) {
			x -= 0.5f;
			base[k] = (long)floorf(x);
			/* the weight in 1.8 fixed point */
			frac[k] = roundf((x - floorf(x)) * 256.0f) / 256.0f;
		} else {
			base[k] = (long)floorf(x);
		}
	}
	if (!linear) {
		fetch(o, &t, base, geom, f, u, addr);
		for (int k = 0; k < 4; k++)
			out[k] = rfloat ? ((union { float f; uint32_t u; })
					   { f[k] }).u : u[k];
		return;
	}
	for (int n = 0; n < (1 << geom); n++) {
		long i[3];
		float wgt = 1;

		for (int k = 0; k < geom; k++) {
			int hi = (n >> k) & 1;

			i[k] = base[k] + hi;
			wgt *= hi ? frac[k] : 1 - frac[k];
		}
		fetch(o, &t, i, geom, f, u, addr);
		for (int k = 0; k < 4; k++)
			acc[k] += wgt * f[k];
	}
	for (int k = 0; k < 4; k++)
		memcpy(&out[k], &acc[k], 4);
}

/* Only slice z of t: a layer of a layered array, a cubemap face. */
static void one_slice(struct texels *t, long z)
{
	z = z < 0 ? 0 : z >= (long)t->d ? (long)t->d - 1 : z;
	t->base += (size_t)z * t->slice;
	t->d = 1;
}

static uint64_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* A cubemap direction (x, y, z) to its face and the face's coordinates
 * (s, t), as the programming guide's cubemap fetch table gives them:
 * the major axis picks the face, the other two divided by its
 * magnitude are scaled to [0, 1], then to texels unless normalised. */
static int cube_face(const struct tobj *o, const struct texels *t,
		     const uint64_t *c, uint64_t st[2])
{
	float v[3], a[3], m, s, tt;
	int face;

	for (int k = 0; k < 3; k++) {
		memcpy(&v[k], &c[k], 4);
		a[k] = fabsf(v[k]);
	}
	if (a[0] >= a[1] && a[0] >= a[2]) {
		face = v[0] >= 0 ? 0 : 1;
		m = a[0];
		s = v[0] >= 0 ? -v[2] : v[2];
		tt = -v[1];
	} else if (a[1] >= a[2]) {
		face = v[1] >= 0 ? 2 : 3;
		m = a[1];
		s = v[0];
		tt = v[1] >= 0 ? v[2] : -v[2];
	} else {
		face = v[2] >= 0 ? 4 : 5;
		m = a[2];
		s = v[2] >= 0 ? v[0] : -v[0];
		tt = -v[1];
	}
	s = (s / m + 1) * 0.5f;
	tt = (tt / m + 1) * 0.5f;
	if (!o->tex.normalizedCoords) {
		s *= (float)t->w;
		tt *= (float)t->h;
	}
	st[0] = fbits(s);
	st[1] = fbits(tt);
	return face;
}

int emu_tex_sample(uint64_t tex, int geom, int cfloat, const uint64_t *c,
		   int rfloat, uint32_t out[4], uint64_t *addr,
		   int *texel_bytes)
{
	const struct tobj *o = obj(tex, 0);
	struct texels t;
	uint64_t st[2];
	int face;

	*addr = 0;
	if (!o || texels_of(o, &t))
		return -1;
	*texel_bytes = (int)t.esize;
	switch (geom) {
	case TG_A1D:
	case TG_A2D:
		one_slice(&t, (long)(int32_t)c[0]);
		sample(o, &t, geom == TG_A1D ? 1 : 2, cfloat, c + 1, rfloat,
		       out, addr);
		return 0;
	case TG_CUBE:
	case TG_ACUBE:
		if (!cfloat)
			return -1;
		face = cube_face(o, &t, c + (geom == TG_ACUBE), st);
		one_slice(&t, face + (geom == TG_ACUBE ?
				      6 * (long)(int32_t)c[0] : 0));
		sample(o, &t, 2, 1, st, rfloat, out, addr);
		return 0;
	default:
		sample(o, &t, geom, cfloat, c, rfloat, out, addr);
		return 0;
	}
}

int emu_tex_ncoords(int geom)
{
	static const int n[] = {
		[TG_1D] = 1, [TG_2D] = 2, [TG_3D] = 3, [TG_A1D] = 2,
		[TG_A2D] = 3, [TG_CUBE] = 3, [TG_ACUBE] = 4,
	};

	return geom > 0 && geom <= TG_ACUBE ? n[geom] : 0;
}

int emu_tex_geom(const char *s)
{
	static const char *const name[] = {
		[TG_1D] = "1d", [TG_2D] = "2d", [TG_3D] = "3d",
		[TG_A1D] = "a1d", [TG_A2D] = "a2d", [TG_CUBE] = "cube",
		[TG_ACUBE] = "acube",
	};

	for (int g = TG_1D; g <= TG_ACUBE; g++)
		if (!strcmp(s, name[g]))
			return g;
	return 0;
}

uint8_t *emu_surf_addr(uint64_t surf, int geom, int64_t x, int64_t y,
		       int64_t z, int bytes)
{
	const struct tobj *o = obj(surf, 1);
	struct texels t;

	if (!o || texels_of(o, &t))
		return NULL;
	if (x < 0 || (uint64_t)x + (uint64_t)bytes > t.w * t.esize ||
	    (geom > 1 && (y < 0 || (uint64_t)y >= t.h)) ||
	    (geom > 2 && (z < 0 || (uint64_t)z >= t.d)))
		return NULL;
	if (geom < 2)
		y = 0;
	if (geom < 3)
		z = 0;
	return (uint8_t *)t.base + (size_t)z * t.slice + (size_t)y * t.pitch +
	       (size_t)x;
}
