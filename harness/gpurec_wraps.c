/*
 * The runtime calls a GPU's runner wraps for its recorder (gpurec.h,
 * WRAPS_RECORD in wraps.h): each calls the real function, then tells the
 * recorder what happened -- only what succeeded, as the GPU did it.  A
 * copy or memset into a stream being captured is a graph node, written
 * when the graph is launched (gpurec_graph.c); calls a record cannot
 * describe are written as untraced.  The kernel launch calls are
 * wrapped by launches.c and launches_ext.c, which call the recorder.
 */
#include "gpurec.h"

#include "launches.h"

#define REAL(ret, name, ...) \
	ret __real_##name(__VA_ARGS__); \
	ret __wrap_##name(__VA_ARGS__)

/* ---- what the process registers ---- */

REAL(void **, __cudaRegisterFatBinary, void *fatCubin);
void **__wrap___cudaRegisterFatBinary(void *fatCubin)
{
	void **h = __real___cudaRegisterFatBinary(fatCubin);

	gpurec_module(h, fatCubin);
	return h;
}

REAL(void, __cudaRegisterFunction, void **handle, const char *hostFun,
     char *deviceFun, const char *deviceName, int thread_limit, uint3 *tid,
     uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
void __wrap___cudaRegisterFunction(void **handle, const char *hostFun,
				   char *deviceFun, const char *deviceName,
				   int thread_limit, uint3 *tid, uint3 *bid,
				   dim3 *bDim, dim3 *gDim, int *wSize)
{
	__real___cudaRegisterFunction(handle, hostFun, deviceFun, deviceName,
				      thread_limit, tid, bid, bDim, gDim,
				      wSize);
	gpurec_function(handle, hostFun, deviceFun);
}

REAL(void, __cudaRegisterVar, void **handle, char *hostVar,
     char *deviceAddress, const char *deviceName, int ext, size_t size,
     int constant, int global);
void __wrap___cudaRegisterVar(void **handle, char *hostVar,
			      char *deviceAddress, const char *deviceName,
			      int ext, size_t size, int constant, int global)
{
	__real___cudaRegisterVar(handle, hostVar, deviceAddress, deviceName,
				 ext, size, constant, global);
	gpurec_var(handle, hostVar, deviceAddress, size);
}

REAL(cudaError_t, __cudaGetKernel, cudaKernel_t *kernel, const void *fun);
cudaError_t __wrap___cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
	cudaError_t err = __real___cudaGetKernel(kernel, fun);

	if (err == cudaSuccess && kernel)
		gpurec_kernel_handle(*kernel, fun);
	return err;
}

/* ---- device memory ---- */

REAL(cudaError_t, cudaMalloc, void **p, size_t n);
cudaError_t __wrap_cudaMalloc(void **p, size_t n)
{
	cudaError_t err = __real_cudaMalloc(p, n);

	if (err == cudaSuccess)
		gpurec_alloc(*p, n);
	return err;
}

REAL(cudaError_t, cudaMallocAsync, void **p, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	cudaError_t err = __real_cudaMallocAsync(p, n, s);

	if (err == cudaSuccess)
		gpurec_alloc(*p, n);
	return err;
}

REAL(cudaError_t, cudaMallocPitch, void **p, size_t *pitch, size_t w,
     size_t h);
cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t w,
				   size_t h)
{
	cudaError_t err = __real_cudaMallocPitch(p, pitch, w, h);

	if (err == cudaSuccess)
		gpurec_alloc(*p, *pitch * h);
	return err;
}

REAL(cudaError_t, cudaMallocManaged, void **p, size_t n,
     unsigned int flags);
cudaError_t __wrap_cudaMallocManaged(void **p, size_t n, unsigned int flags)
{
	cudaError_t err = __real_cudaMallocManaged(p, n, flags);

	/* the host reads and writes it without the runtime */
	if (err == cudaSuccess) {
		gpurec_alloc(*p, n);
		gpurec_untraced("managed memory");
	}
	return err;
}

REAL(cudaError_t, cudaFree, void *p);
cudaError_t __wrap_cudaFree(void *p)
{
	cudaError_t err = __real_cudaFree(p);

	if (err == cudaSuccess)
		gpurec_free(p);
	return err;
}

REAL(cudaError_t, cudaFreeAsync, void *p, cudaStream_t s);
cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s)
{
	cudaError_t err = __real_cudaFreeAsync(p, s);

	if (err == cudaSuccess)
		gpurec_free(p);
	return err;
}

/* ---- copies and memsets ---- */

REAL(cudaError_t, cudaMemcpy, void *d, const void *s, size_t n,
     enum cudaMemcpyKind k);
cudaError_t __wrap_cudaMemcpy(void *d, const void *s, size_t n,
			      enum cudaMemcpyKind k)
{
	cudaError_t err = __real_cudaMemcpy(d, s, n, k);

	if (err == cudaSuccess)
		gpurec_copy(k, d, s, n);
	return err;
}

REAL(cudaError_t, cudaMemcpyAsync, void *d, const void *s, size_t n,
     enum cudaMemcpyKind k, cudaStream_t st);
cudaError_t __wrap_cudaMemcpyAsync(void *d, const void *s, size_t n,
				   enum cudaMemcpyKind k, cudaStream_t st)
{
	int node = launches_capturing(st);
	cudaError_t err = __real_cudaMemcpyAsync(d, s, n, k, st);

	if (err == cudaSuccess && !node)
		gpurec_copy(k, d, s, n);
	return err;
}

REAL(cudaError_t, cudaMemcpy2D, void *d, size_t dp, const void *s,
     size_t sp, size_t w, size_t h, enum cudaMemcpyKind k);
cudaError_t __wrap_cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp,
				size_t w, size_t h, enum cudaMemcpyKind k)
{
	cudaError_t err = __real_cudaMemcpy2D(d, dp, s, sp, w, h, k);

	if (err == cudaSuccess)
		gpurec_copy2d(k, d, dp, s, sp, w, h);
	return err;
}

REAL(cudaError_t, cudaMemcpy2DAsync, void *d, size_t dp, const void *s,
     size_t sp, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st);
cudaError_t __wrap_cudaMemcpy2DAsync(void *d, size_t dp, const void *s,
				     size_t sp, size_t w, size_t h,
				     enum cudaMemcpyKind k, cudaStream_t st)
{
	int node = launches_capturing(st);
	cudaError_t err = __real_cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, st);

	if (err == cudaSuccess && !node)
		gpurec_copy2d(k, d, dp, s, sp, w, h);
	return err;
}

/* A symbol's device address plus offset; NULL when unknown. */
static char *symbol_at(const void *symbol, size_t offset)
{
	void *p = NULL;

	if (cudaGetSymbolAddress(&p, symbol) != cudaSuccess)
		return NULL;
	return (char *)p + offset;
}

REAL(cudaError_t, cudaMemcpyToSymbol, const void *sym, const void *s,
     size_t n, size_t off, enum cudaMemcpyKind k);
cudaError_t __wrap_cudaMemcpyToSymbol(const void *sym, const void *s,
				      size_t n, size_t off,
				      enum cudaMemcpyKind k)
{
	cudaError_t err = __real_cudaMemcpyToSymbol(sym, s, n, off, k);

	if (err == cudaSuccess && gpurec_on())
		gpurec_copy(k == cudaMemcpyDeviceToDevice ? k :
			    cudaMemcpyHostToDevice, symbol_at(sym, off), s, n);
	return err;
}

REAL(cudaError_t, cudaMemcpyToSymbolAsync, const void *sym, const void *s,
     size_t n, size_t off, enum cudaMemcpyKind k, cudaStream_t st);
cudaError_t __wrap_cudaMemcpyToSymbolAsync(const void *sym, const void *s,
					   size_t n, size_t off,
					   enum cudaMemcpyKind k,
					   cudaStream_t st)
{
	int node = launches_capturing(st);
	cudaError_t err = __real_cudaMemcpyToSymbolAsync(sym, s, n, off, k,
							 st);

	if (err == cudaSuccess && gpurec_on() && !node)
		gpurec_copy(k == cudaMemcpyDeviceToDevice ? k :
			    cudaMemcpyHostToDevice, symbol_at(sym, off), s, n);
	return err;
}

REAL(cudaError_t, cudaMemcpyFromSymbol, void *d, const void *sym, size_t n,
     size_t off, enum cudaMemcpyKind k);
cudaError_t __wrap_cudaMemcpyFromSymbol(void *d, const void *sym, size_t n,
					size_t off, enum cudaMemcpyKind k)
{
	cudaError_t err = __real_cudaMemcpyFromSymbol(d, sym, n, off, k);

	if (err == cudaSuccess && gpurec_on())
		gpurec_copy(k == cudaMemcpyDeviceToDevice ? k :
			    cudaMemcpyDeviceToHost, d, symbol_at(sym, off), n);
	return err;
}

REAL(cudaError_t, cudaMemcpyFromSymbolAsync, void *d, const void *sym,
     size_t n, size_t off, enum cudaMemcpyKind k, cudaStream_t st);
cudaError_t __wrap_cudaMemcpyFromSymbolAsync(void *d, const void *sym,
					     size_t n, size_t off,
					     enum cudaMemcpyKind k,
					     cudaStream_t st)
{
	int node = launches_capturing(st);
	cudaError_t err = __real_cudaMemcpyFromSymbolAsync(d, sym, n, off, k,
							   st);

	if (err == cudaSuccess && gpurec_on() && !node)
		gpurec_copy(k == cudaMemcpyDeviceToDevice ? k :
			    cudaMemcpyDeviceToHost, d, symbol_at(sym, off), n);
	return err;
}

REAL(cudaError_t, cudaMemset, void *p, int v, size_t n);
cudaError_t __wrap_cudaMemset(void *p, int v, size_t n)
{
	cudaError_t err = __real_cudaMemset(p, v, n);

	if (err == cudaSuccess)
		gpurec_memset(p, v, n);
	return err;
}

REAL(cudaError_t, cudaMemsetAsync, void *p, int v, size_t n,
     cudaStream_t st);
cudaError_t __wrap_cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t st)
{
	int node = launches_capturing(st);
	cudaError_t err = __real_cudaMemsetAsync(p, v, n, st);

	if (err == cudaSuccess && !node)
		gpurec_memset(p, v, n);
	return err;
}

static void memset_rows(void *p, size_t pitch, int v, size_t w, size_t h)
{
	for (size_t y = 0; y < h && gpurec_on(); y++)
		gpurec_memset((char *)p + y * pitch, v, w);
}

REAL(cudaError_t, cudaMemset2D, void *p, size_t pitch, int v, size_t w,
     size_t h);
cudaError_t __wrap_cudaMemset2D(void *p, size_t pitch, int v, size_t w,
				size_t h)
{
	cudaError_t err = __real_cudaMemset2D(p, pitch, v, w, h);

	if (err == cudaSuccess)
		memset_rows(p, pitch, v, w, h);
	return err;
}

REAL(cudaError_t, cudaMemset2DAsync, void *p, size_t pitch, int v, size_t w,
     size_t h, cudaStream_t st);
cudaError_t __wrap_cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w,
				     size_t h, cudaStream_t st)
{
	int node = launches_capturing(st);
	cudaError_t err = __real_cudaMemset2DAsync(p, pitch, v, w, h, st);

	if (err == cudaSuccess && !node)
		memset_rows(p, pitch, v, w, h);
	return err;
}

/* ---- texture and surface objects ---- */

REAL(cudaError_t, cudaCreateTextureObject, cudaTextureObject_t *t,
     const struct cudaResourceDesc *r, const struct cudaTextureDesc *d,
     const struct cudaResourceViewDesc *v);
cudaError_t __wrap_cudaCreateTextureObject(cudaTextureObject_t *t,
	const struct cudaResourceDesc *r, const struct cudaTextureDesc *d,
	const struct cudaResourceViewDesc *v)
{
	cudaError_t err = __real_cudaCreateTextureObject(t, r, d, v);

	if (err == cudaSuccess)
		gpurec_texture(*t, 0, r, d);
	return err;
}

REAL(cudaError_t, cudaDestroyTextureObject, cudaTextureObject_t t);
cudaError_t __wrap_cudaDestroyTextureObject(cudaTextureObject_t t)
{
	gpurec_texture_gone(t);
	return __real_cudaDestroyTextureObject(t);
}

REAL(cudaError_t, cudaCreateSurfaceObject, cudaSurfaceObject_t *s,
     const struct cudaResourceDesc *r);
cudaError_t __wrap_cudaCreateSurfaceObject(cudaSurfaceObject_t *s,
					   const struct cudaResourceDesc *r)
{
	cudaError_t err = __real_cudaCreateSurfaceObject(s, r);

	if (err == cudaSuccess)
		gpurec_texture(*s, 1, r, NULL);
	return err;
}

REAL(cudaError_t, cudaDestroySurfaceObject, cudaSurfaceObject_t s);
cudaError_t __wrap_cudaDestroySurfaceObject(cudaSurfaceObject_t s)
{
	gpurec_texture_gone(s);
	return __real_cudaDestroySurfaceObject(s);
}

/* ---- calls a record cannot describe ---- */

REAL(cudaError_t, cudaMemcpy3D, const struct cudaMemcpy3DParms *p);
cudaError_t __wrap_cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	gpurec_untraced("cudaMemcpy3D");
	return __real_cudaMemcpy3D(p);
}

REAL(cudaError_t, cudaMemcpy3DAsync, const struct cudaMemcpy3DParms *p,
     cudaStream_t st);
cudaError_t __wrap_cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p,
				     cudaStream_t st)
{
	if (!launches_capturing(st))
		gpurec_untraced("cudaMemcpy3DAsync");
	return __real_cudaMemcpy3DAsync(p, st);
}

REAL(cudaError_t, cudaLaunchHostFunc, cudaStream_t st, cudaHostFn_t fn,
     void *data);
cudaError_t __wrap_cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn,
				      void *data)
{
	if (!launches_capturing(st))
		gpurec_untraced("cudaLaunchHostFunc");
	return __real_cudaLaunchHostFunc(st, fn, data);
}
