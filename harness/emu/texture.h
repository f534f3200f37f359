/*
 * Textures and surfaces of the emulator: CUDA arrays, texture objects
 * and surface objects (the runtime API, texture.c) and the lane
 * operations of tex, suld and sust (called by exec.c).  Objects are
 * handles 1, 2, ... into one table; an array is host memory of its own,
 * row-major, width x height x depth elements of the channel format's
 * size.  Pitched and linear resources read the device allocation they
 * name when a kernel samples them.
 */
#ifndef EMU_TEXTURE_H
#define EMU_TEXTURE_H

#include <stdint.h>

/* tex geometries (sub of OP_TEX, OP_SULD, OP_SUST) */
enum { TG_1D = 1, TG_2D = 2, TG_3D = 3 };

/* Sample texture object tex at coordinates c (float bits when cfloat,
 * else integers) into out[4] (float bits for a float result, else
 * integers).  0, or -1 when tex is no texture object. */
int emu_tex_sample(uint64_t tex, int geom, int cfloat, const uint64_t *c,
		   int rfloat, uint32_t out[4]);

/* Address of bytes of surface surf at byte x and rows y, z (suld and
 * sust .b): host pointer, or NULL (no such surface, or outside it). */
uint8_t *emu_surf_addr(uint64_t surf, int geom, int64_t x, int64_t y,
		       int64_t z, int bytes);

#endif
