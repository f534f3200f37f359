/*
 * Launch records on a GPU: what a launcher asks of NVIDIA's runtime,
 * written as the launch record (emu/trace.h) the emulator's runtime
 * writes, so that the grader's replay measures technique on the GPU's
 * own launches and a launcher that asks whether it runs on the emulator
 * gains nothing.
 *
 * Linked into a GPU's runner only, with -Wl,--wrap= for the calls in
 * WRAPS_RECORD (wraps.h): gpurec_wraps.c turns each wrapped call into
 * the functions below.  The recorder keeps, for the process's life, the
 * device allocations, the registered modules (named by the hash of
 * their PTX, fatbin.h), kernels and variables, the kernel handles and
 * the texture objects; while a record is open it writes every
 * allocation, free, memset, copy (with the bytes of host-to-device
 * copies), texture object and kernel launch, in call order, and a call
 * it cannot describe as an untraced entry naming it.
 *
 * Call order: gpurec_begin before the launcher call, gpurec_end after
 * it (the runner's stream synchronised around it).  Not thread-safe:
 * the runner calls launchers from its one thread.
 */
#ifndef GPUREC_H
#define GPUREC_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* Open a record of a call whose input and guarded output region are
 * given; the allocations, variables (with their contents) and texture
 * objects alive now go into it first. */
void gpurec_begin(const void *in, size_t in_bytes, const void *out,
		  size_t out_bytes);
/* Close it: *buf (malloc'd, the caller's) and *len; -1 when none was
 * open. */
int gpurec_end(unsigned char **buf, size_t *len);
int gpurec_on(void);

/* ---- what the process has (always kept) ---- */
void gpurec_module(void **handle, const void *fatbin_wrapper);
void gpurec_function(void **handle, const void *host_fun,
		     const char *device_name);
void gpurec_kernel_handle(cudaKernel_t k, const void *host_fun);
void gpurec_var(void **handle, const void *host_var,
		const char *device_name, size_t size);
void gpurec_alloc(const void *p, size_t n);
void gpurec_free(const void *p);
/* 1 when p is in a device allocation or variable the recorder knows */
int gpurec_is_device(const void *p);
void gpurec_texture(unsigned long long h, int is_surf,
		    const struct cudaResourceDesc *res,
		    const struct cudaTextureDesc *tex);
void gpurec_texture_gone(unsigned long long h);

/* ---- what a call does (written while a record is open) ---- */
/* a copy of n bytes, dir a cudaMemcpyKind (Default looked up) */
void gpurec_copy(int kind, const void *dst, const void *src, size_t n);
void gpurec_copy2d(int kind, void *dst, size_t dpitch, const void *src,
		   size_t spitch, size_t width, size_t height);
void gpurec_memset(const void *p, int value, size_t n);
/* a kernel launch by host function or handle; args as the runtime
 * takes them */
void gpurec_launch(const void *host_fun, dim3 grid, dim3 block,
		   void **args, size_t smem, int cooperative);
void gpurec_launch_handle(cudaKernel_t k, dim3 grid, dim3 block,
			  void **args, size_t smem);
/* the kernels, memsets and copies of graph g (NULL: not known) */
void gpurec_graph(cudaGraph_t g);
void gpurec_untraced(const char *what);

#endif
