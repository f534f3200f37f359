/*
 * What the emulator's Check tests (tests/check_emu_*.c) share: PTX
 * files of tests/emu/ loaded as modules, launches of their kernels by
 * name, zeroed device memory, the last launch's counters, and a main
 * that runs a suite with the runtime's notes kept off stderr.  Every
 * helper fails the running test (ck_assert) rather than return an
 * error.  The linker sees the helpers with an emu_test_ prefix (as
 * emu/ptx/ptx.h does its parser's), so that no name of the emulator's
 * internals, which the tests link, meets a 'load' or a 'launch'.
 */
#ifndef EMU_HELPERS_H
#define EMU_HELPERS_H

#include <stddef.h>
#include <check.h>
#include <cuda_runtime_api.h>
#include "emu/wgemu.h"

#define slurp emu_test_slurp
#define load emu_test_load
#define launch emu_test_launch
#define dalloc emu_test_dalloc
#define last_counters emu_test_last_counters

/* The first lines of a PTX module, for PTX written inline. */
#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

/* The file at path, NUL-terminated (malloc'd; the caller frees), its
 * length in *len. */
char *slurp(const char *path, size_t *len);
/* Load the PTX file at path as a module of its own (wgemu_load_ptx). */
void load(const char *path);
/* Launch kernel (by name, as wgemu_kernel finds it) on a gx x gy grid
 * of bx x by blocks with smem dynamic shared bytes: what
 * cudaLaunchKernel returns. */
cudaError_t launch(const char *kernel, unsigned gx, unsigned gy,
		   unsigned bx, unsigned by, size_t smem, void **args);
/* n bytes of device memory, zeroed. */
void *dalloc(size_t n);
/* The counters of the last launch. */
struct wgemu_counters last_counters(void);

/* Run suite s (the faults the tests cause are expected: $WGEMU_QUIET
 * keeps the runtime's notes off stderr): main's exit status. */
int emu_test_run(Suite *s);

#endif
