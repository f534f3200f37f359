/*
 * Texture and surface objects as kernels see them (texfetch.h): the
 * table of objects the runtime creates (rt/texture.c), and the lane
 * operations of tex, suld and sust the interpreter calls (exec.c).
 * Sampling follows the CUDA programming guide's texture fetching
 * appendix: normalised coordinates scaled by the size, addressing
 * (clamp, wrap, mirror, border) per dimension, nearest-point or linear
 * filtering with the weights in 1.8 fixed point as the hardware has
 * them, and integer texels returned as they are or as normalised
 * floats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"
#include "emu/vm/half.h"
#include "emu/vm/texfetch.h"

/* the objects: handle i + 1 is g_objs[i] */
static struct emu_texobj *g_objs;
static size_t g_nobjs;

/* ---- the table ---- */
struct emu_texobj *emu_tex_slot(size_t i)
{
	if (i >= g_nobjs) {
		size_t n = (i + 16) / 16 * 16;
		struct emu_texobj *v = realloc(g_objs, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + g_nobjs, 0, (n - g_nobjs) * sizeof(*v));
		g_objs = v;
		g_nobjs = n;
	}
	return &g_objs[i];
}

size_t emu_tex_count(void)
{
	return g_nobjs;
}

struct emu_texobj *emu_tex_obj(uint64_t h, int is_surf)
{
	if (!h || h > g_nobjs || !g_objs[h - 1].used ||
	    g_objs[h - 1].is_surf != is_surf)
		return NULL;
	return &g_objs[h - 1];
}

size_t emu_tex_elem_size(const struct cudaChannelFormatDesc *d)
{
	return (size_t)(d->x + d->y + d->z + d->w) / 8;
}

static int channels(const struct cudaChannelFormatDesc *d)
{
	return (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
}

/* ---- sampling ---- */
/* the texels of a resource: base, format, size, row and slice bytes */
struct texels {
	const uint8_t *base;
	uint64_t dev;               /* base's device address; 0: an array */
	struct cudaChannelFormatDesc desc;
	size_t esize, w, h, d, pitch, slice;
};

static int texels_of(const struct emu_texobj *o, struct texels *t)
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
		t->esize = emu_tex_elem_size(&t->desc);
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
static int mode_of(const struct emu_texobj *o, int k)
{
	int m = o->tex.addressMode[k];

	if (!o->tex.normalizedCoords && (m == cudaAddressModeWrap ||
					 m == cudaAddressModeMirror))
		return cudaAddressModeClamp;
	return m;
}

static void fetch(const struct emu_texobj *o, const struct texels *t,
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

static void sample(const struct emu_texobj *o, const struct texels *tx,
		   int geom, int cfloat, const uint64_t *c, int rfloat,
		   uint32_t out[4], uint64_t *addr)
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
static int cube_face(const struct emu_texobj *o, const struct texels *t,
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
	const struct emu_texobj *o = emu_tex_obj(tex, 0);
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
	const struct emu_texobj *o = emu_tex_obj(surf, 1);
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
