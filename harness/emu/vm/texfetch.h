/*
 * Texture and surface objects as kernels see them (texfetch.c): the
 * table of objects, handles 1, 2, ... into it, which the runtime fills
 * (rt/texture.h: the API that creates them), and the lane operations of
 * tex, suld and sust the interpreter calls (exec.c).  An array is host
 * memory of its own, row-major, width x height x depth elements of the
 * channel format's size.  Pitched and linear resources read the device
 * allocation they name when a kernel samples them.
 */
#ifndef EMU_TEXFETCH_H
#define EMU_TEXFETCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* A CUDA array: host memory of its own, row-major, w x h x d elements of
 * esize bytes.  A layered array's layers and a cubemap's faces (6 per
 * layer) are its d slices; flags are cudaMalloc3DArray's. */
struct cudaArray {
	struct cudaChannelFormatDesc desc;
	size_t w, h, d, esize;
	unsigned flags;
	uint8_t *data;
};

/* An object of the table: a texture or (is_surf) a surface over the
 * resource res, read as tex says (a texture's). */
struct emu_texobj {
	int used, is_surf;
	struct cudaResourceDesc res;
	struct cudaTextureDesc tex;
};

/* Slot i of the table (handle i + 1), the table grown to hold it, a
 * fresh slot unused; NULL out of memory. */
struct emu_texobj *emu_tex_slot(size_t i);
/* The slots the table has (used or not). */
size_t emu_tex_count(void);
/* The live texture (is_surf 0) or surface object of handle h, or NULL. */
struct emu_texobj *emu_tex_obj(uint64_t h, int is_surf);
/* Bytes of an element of format d (0 for none). */
size_t emu_tex_elem_size(const struct cudaChannelFormatDesc *d);

/* tex geometries (sub of OP_TEX, OP_SULD, OP_SUST; suld and sust take
 * only the first three): layered ones take the layer first, cubemaps a
 * direction (x, y, z) */
enum {
	TG_1D = 1, TG_2D = 2, TG_3D = 3, TG_A1D, TG_A2D, TG_CUBE, TG_ACUBE
};

/* The geometry a PTX modifier names ("2d", "a2d", "cube", ...), 0 for
 * none; the number of coordinates it takes. */
int emu_tex_geom(const char *s);
int emu_tex_ncoords(int geom);

/* Sample texture object tex at coordinates c (float bits when cfloat,
 * else integers; a layer index is an integer) into out[4] (float bits
 * for a float result, else integers).  *addr receives the device
 * address of the (first) texel read when the object is over device
 * memory (0 over an array or for a border texel), *texel_bytes its
 * size: the load a GPU makes through the texture path.  0, or -1 when
 * tex is no texture object. */
int emu_tex_sample(uint64_t tex, int geom, int cfloat, const uint64_t *c,
		   int rfloat, uint32_t out[4], uint64_t *addr,
		   int *texel_bytes);

/* Address of bytes of surface surf at byte x and rows y, z (suld and
 * sust .b): host pointer, or NULL (no such surface, or outside it). */
uint8_t *emu_surf_addr(uint64_t surf, int geom, int64_t x, int64_t y,
		       int64_t z, int bytes);

#endif
