/*
 * The device the emulator presents: an NVIDIA H100 SXM5 80GB (sm_90).
 * Every cudaDeviceAttr has its value in one table (device.c), from which
 * cudaDeviceGetAttribute and cudaGetDeviceProperties both answer, so the
 * two never disagree.  The values are what an H100 SXM5 reports, except
 * where docs/EMULATOR.md ("The device") says a value is the emulator's
 * own (memory size, PCI location, the name).
 */
#ifndef EMU_DEVICE_H
#define EMU_DEVICE_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "emu/vm/devmem.h"
#include "emu/hw.h"

/* 0 and *value set for an attribute of enum cudaDeviceAttr (reserved
 * numbers answer 0); -1 for a number the enum does not have. */
int emu_device_attr(int attr, int *value);

/* Fill *p (all of it) from the attribute table. */
void emu_device_props(struct cudaDeviceProp *p);

#endif
