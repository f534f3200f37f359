/*
 * What the runtime's files (runtime.c, stream.c, graph.c, memcpy3d.c,
 * texture.c) share beyond emu.h: the sticky error, the emulator's clock,
 * the runtime lock and what a kernel's parameters are.  Everything here
 * is for the runtime API's implementation; programs see only the CUDA
 * API and wgemu.h.
 */
#ifndef EMU_RT_H
#define EMU_RT_H

#include <stddef.h>

/* The sticky error of an earlier kernel fault (a cudaError_t), 0 when
 * none: every runtime call returns it until cudaDeviceReset(). */
int emu_rt_sticky(void);
/* The emulator's clock in milliseconds (what events record). */
double emu_rt_now_ms(void);
/* The lock that makes calls touching device memory, the allocation table
 * or the interpreter run one at a time (recursive). */
void emu_rt_lock(void);
void emu_rt_unlock(void);
/* The sizes in bytes of the parameters of the kernel whose host stub is
 * func, in sizes[0..max-1]: their number, or -1 (a cudaError_t recorded
 * as the last error) when func is no kernel or its PTX does not load. */
int emu_rt_kernel_params(const void *func, size_t *sizes, int max);

#endif
