/*
 * CUDA arrays and the texture and surface object API of the emulator's
 * runtime (texture.c), over the table kernels read (texfetch.h).
 */
#ifndef EMU_TEXTURE_H
#define EMU_TEXTURE_H

#include <stddef.h>
#include <stdint.h>
#include "emu/vm/texfetch.h"

/* Host memory of n bytes at p, one side of a copy of kind (a
 * cudaMemcpyKind; cudaMemcpyDefault looks p up): device memory is
 * looked up, host memory is p itself.  NULL when p is device memory
 * outside every allocation. */
uint8_t *emu_copy_mem(const void *p, size_t n, int kind, int is_dst);

/* Every live texture and surface object into the open launch record
 * (trace.h), when one opens. */
void emu_tex_trace_live(void);

#endif
