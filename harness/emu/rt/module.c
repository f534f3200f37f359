/*
 * Modules, kernels and variables of the emulator's runtime: the
 * fatbinaries nvcc's host code registers (harness/fatbin.c reads them,
 * as the GPU runner does), the kernels and __device__ variables it
 * registers in them, and what wgemu.h adds (PTX given as text, a kernel
 * by name, a variable placed where a record had it).  A module is
 * parsed at the first launch of one of its kernels (or the first use of
 * one of its variables): a program pays only for what it runs.  Its
 * variables are placed in device memory as zero pages then.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/rt/rt.h"
#include "fatbin.h"

/* nvcc's registration hooks (declared in crt/host_runtime.h, which is
 * C++ only) */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun,
			    char *deviceFun, const char *deviceName,
			    int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size,
		       int constant, int global);
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
			      char *deviceAddress, const char *deviceName,
			      int ext, size_t size, int constant, int global);
char __cudaInitModule(void **handle);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun);

/* ---- fatbinaries ---- */
/* Copy the newest PTX entry of a registered fatbinary into *ptx. */
static int module_ptx(const void *fatbin, char **ptx, char *err,
		      size_t errlen)
{
	const char *p;
	size_t n;
	int rc = fatbin_wrapper_ptx(fatbin, &p, &n);

	if (rc) {
		snprintf(err, errlen, "%s", rc == FATBIN_COMPRESSED ?
			 "the PTX in the fatbinary is compressed: compile "
			 "with the flags in EMU_NVCC_FLAGS (-no-compress)" :
			 rc == FATBIN_NO_PTX ? "no PTX in the fatbinary: "
			 "compile with the flags in EMU_NVCC_FLAGS "
			 "(code=compute_90)" : "not a fatbinary nvcc wrote");
		return -1;
	}
	*ptx = malloc(n + 1);
	if (!*ptx) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(*ptx, p, n);
	(*ptx)[n] = 0;
	return 0;
}

int rt_module_load(int mi)
{
	struct rt_module *md = &emu_rt.mods[mi];
	int i;

	if (md->loaded)
		return md->m ? 0 : -1;
	md->loaded = 1;
	md->load_error = cudaErrorInvalidPtx;
	if (!md->ptx && module_ptx(md->fatbin, &md->ptx, md->err,
				   sizeof(md->err)))
		return -1;
	/* the same text has the same name in every process: how a replay
	 * finds the module of a record */
	md->hash = fatbin_ptx_hash(md->ptx, strlen(md->ptx));
	md->m = emu_ptx_parse(md->ptx, strlen(md->ptx), md->err,
			      sizeof(md->err));
	if (!md->m)
		return -1;
	/* __device__ and __constant__ variables: zero pages, so that one
	 * nothing touches costs nothing, as on a GPU; more than the
	 * device's memory fails the load, as a GPU's does */
	for (i = 0; i < md->m->nsyms; i++) {
		struct emu_sym *s = &md->m->syms[i];
		struct emu_alloc *a;

		if (s->kind != SYM_GLOBAL && s->kind != SYM_CONST)
			continue;
		a = emu_mem_alloc(s->size, 0, 1);
		if (a)
			a->is_var = 1;
		if (!a) {
			int big = s->size > emu_mem_free_bytes();

			snprintf(md->err, sizeof(md->err), "out of %smemory "
				 "for the variable '%.200s' (%llu bytes%s)",
				 big ? "device " : "host ", s->name,
				 (unsigned long long)s->size, big ?
				 ", more than the device has free" : "");
			md->load_error = cudaErrorMemoryAllocation;
			emu_module_free(md->m);
			md->m = NULL;
			return -1;
		}
		if (s->init)
			memcpy(a->host, s->init, s->size);
		s->dev = a->dev;
	}
	rt_trace_vars(mi);
	return 0;
}

/* ---- registration ---- */
void **__cudaRegisterFatBinary(void *fatCubin)
{
	struct rt_module *nm = realloc(emu_rt.mods, (size_t)(emu_rt.nmods + 1) *
				    sizeof(*emu_rt.mods));

	rt_atexit();
	if (!nm) {
		rt_note("out of memory registering a fatbinary");
		return NULL;
	}
	emu_rt.mods = nm;
	memset(&emu_rt.mods[emu_rt.nmods], 0, sizeof(emu_rt.mods[0]));
	emu_rt.mods[emu_rt.nmods].fatbin = fatCubin;
	emu_rt.nmods++;
	/* the handle is the module number + 1, never dereferenced by nvcc */
	return (void **)(uintptr_t)emu_rt.nmods;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
	(void)handle;
}

void __cudaUnregisterFatBinary(void **handle)
{
	(void)handle;
}

char __cudaInitModule(void **handle)
{
	(void)handle;
	return 1;
}

static int handle_mod(void **handle)
{
	int mi = (int)(uintptr_t)handle - 1;

	return mi >= 0 && mi < emu_rt.nmods ? mi : -1;
}

void __cudaRegisterFunction(void **handle, const char *hostFun,
			    char *deviceFun, const char *deviceName,
			    int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize)
{
	struct rt_kernel *nk;
	int mi = handle_mod(handle);

	(void)deviceFun;
	(void)thread_limit;
	(void)tid;
	(void)bid;
	(void)bDim;
	(void)gDim;
	(void)wSize;
	if (mi < 0)
		return;
	nk = realloc(emu_rt.kerns, (size_t)(emu_rt.nkerns + 1) *
		     sizeof(*emu_rt.kerns));
	if (!nk)
		return;
	emu_rt.kerns = nk;
	nk = &emu_rt.kerns[emu_rt.nkerns];
	nk->host = hostFun;
	nk->name = strdup(deviceName);
	nk->mod = mi;
	nk->fi = -1;
	nk->max_dyn = EMU_SMEM_DEFAULT;
	if (nk->name)
		emu_rt.nkerns++;
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
		       const char *deviceName, int ext, size_t size,
		       int constant, int global)
{
	struct rt_var *nv;
	int mi = handle_mod(handle);

	(void)deviceAddress;
	(void)ext;
	(void)constant;
	(void)global;
	if (mi < 0)
		return;
	nv = realloc(emu_rt.vars, (size_t)(emu_rt.nvars + 1) *
		     sizeof(*emu_rt.vars));
	if (!nv)
		return;
	emu_rt.vars = nv;
	nv = &emu_rt.vars[emu_rt.nvars];
	nv->host = hostVar;
	nv->name = strdup(deviceName);
	nv->mod = mi;
	nv->size = size;
	if (nv->name)
		emu_rt.nvars++;
}

void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
			      char *deviceAddress, const char *deviceName,
			      int ext, size_t size, int constant, int global)
{
	(void)handle;
	(void)hostVarPtrAddress;
	(void)deviceAddress;
	(void)ext;
	(void)size;
	(void)constant;
	(void)global;
	rt_note("__managed__ variable '%s' is not supported", deviceName);
}

struct rt_kernel *rt_kernel_find(const void *fun)
{
	int i;

	for (i = 0; i < emu_rt.nkerns; i++)
		if (emu_rt.kerns[i].host == fun ||
		    (const void *)&emu_rt.kerns[i] == fun)
			return &emu_rt.kerns[i];
	return NULL;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
	struct rt_kernel *k = rt_kernel_find(fun);

	if (!k)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	*kernel = (cudaKernel_t)(void *)k;
	return cudaSuccess;
}

/* ---- kernels ---- */
/* Load k's module if need be: cudaSuccess, or the error a launch
 * returns (cudaErrorInvalidPtx, cudaErrorMemoryAllocation for its
 * variables). */
cudaError_t rt_kernel_load(struct rt_kernel *k)
{
	struct rt_module *md = &emu_rt.mods[k->mod];

	if (k->fi >= 0)
		return cudaSuccess;
	if (rt_module_load(k->mod)) {
		rt_note("cannot load the PTX of kernel '%s': %s", k->name,
		     md->err);
		return md->load_error ? md->load_error : cudaErrorInvalidPtx;
	}
	k->fi = emu_module_find(md->m, k->name);
	if (k->fi < 0 || !md->m->funcs[k->fi].is_entry) {
		rt_note("kernel '%s' is not in its module's PTX", k->name);
		k->fi = -1;
		return cudaErrorInvalidPtx;
	}
	return cudaSuccess;
}

int emu_rt_kernel_params(const void *func, size_t *sizes, int max)
{
	struct rt_kernel *k;
	const struct emu_module *m;
	const struct emu_func *f;
	cudaError_t e;
	int i, r = -1;

	pthread_mutex_lock(&emu_rt.lock);
	k = rt_kernel_find(func);
	if (!k) {
		rt_fail(cudaErrorInvalidDeviceFunction);
		goto out;
	}
	if ((e = rt_kernel_load(k)) != cudaSuccess) {
		rt_fail(e);
		goto out;
	}
	m = emu_rt.mods[k->mod].m;
	f = &m->funcs[k->fi];
	for (i = 0; i < f->nparams && i < max; i++)
		sizes[i] = m->syms[f->params[i]].size;
	r = f->nparams;
out:
	pthread_mutex_unlock(&emu_rt.lock);
	return r;
}

/* ---- variables ---- */
/* The module symbol behind a host shadow of a __device__ or
 * __constant__ variable (its module loaded), or NULL. */
const struct emu_sym *rt_symbol(const void *symbol)
{
	int i, j;

	for (i = 0; i < emu_rt.nvars; i++) {
		struct rt_var *v = &emu_rt.vars[i];
		struct emu_module *m;

		if (v->host != symbol)
			continue;
		if (rt_module_load(v->mod))
			return NULL;
		m = emu_rt.mods[v->mod].m;
		for (j = 0; j < m->nsyms; j++)
			if (m->syms[j].owner < 0 &&
			    !strcmp(m->syms[j].name, v->name) &&
			    (m->syms[j].kind == SYM_GLOBAL ||
			     m->syms[j].kind == SYM_CONST))
				return &m->syms[j];
	}
	return NULL;
}

/* ---- wgemu.h: modules from PTX text, kernels by name ---- */
int wgemu_load_ptx(const char *ptx, size_t len, char *err, size_t errlen)
{
	struct rt_module *nm;
	struct emu_module *m;
	int i, mi;

	nm = realloc(emu_rt.mods, (size_t)(emu_rt.nmods + 1) *
		     sizeof(*emu_rt.mods));
	if (!nm) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	emu_rt.mods = nm;
	mi = emu_rt.nmods++;
	memset(&emu_rt.mods[mi], 0, sizeof(emu_rt.mods[0]));
	emu_rt.mods[mi].ptx = malloc(len + 1);
	if (!emu_rt.mods[mi].ptx) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(emu_rt.mods[mi].ptx, ptx, len);
	emu_rt.mods[mi].ptx[len] = 0;
	if (rt_module_load(mi)) {
		snprintf(err, errlen, "%s", emu_rt.mods[mi].err);
		return -1;
	}
	m = emu_rt.mods[mi].m;
	for (i = 0; i < m->nfuncs; i++) {
		struct rt_kernel *nk;

		if (!m->funcs[i].is_entry)
			continue;
		nk = realloc(emu_rt.kerns, (size_t)(emu_rt.nkerns + 1) *
			     sizeof(*emu_rt.kerns));
		if (!nk)
			return -1;
		emu_rt.kerns = nk;
		nk = &emu_rt.kerns[emu_rt.nkerns++];
		memset(nk, 0, sizeof(*nk));
		nk->name = strdup(m->funcs[i].name);
		nk->host = NULL;
		nk->mod = mi;
		nk->fi = i;
		nk->max_dyn = EMU_SMEM_DEFAULT;
	}
	return mi;
}

const void *wgemu_kernel(const char *name)
{
	int i;

	for (i = emu_rt.nkerns - 1; i >= 0; i--) {
		char d[256];

		if (!strcmp(emu_rt.kerns[i].name, name))
			return &emu_rt.kerns[i];
		emu_demangle(emu_rt.kerns[i].name, d, sizeof(d));
		if (!strcmp(d, name))
			return &emu_rt.kerns[i];
	}
	return NULL;
}

int wgemu_place_var(int mod, const char *name, uint64_t addr, uint64_t size,
		    const void *data, size_t n)
{
	struct emu_module *m;
	struct emu_alloc *a, *old;
	int i;

	if (mod < 0 || mod >= emu_rt.nmods || !(m = emu_rt.mods[mod].m))
		return 1;
	for (i = 0; i < m->nsyms; i++) {
		struct emu_sym *sy = &m->syms[i];

		if ((sy->kind != SYM_GLOBAL && sy->kind != SYM_CONST) ||
		    strcmp(sy->name, name))
			continue;
		if (sy->size != size || n > size)
			return -1;
		a = emu_mem_alloc_at(addr, size, emu_rt_lazy());
		if (!a)
			return -1;
		a->is_var = 1;
		old = emu_mem_at(sy->dev);
		if (old && n < size)
			memcpy(a->host, old->host, (size_t)size);
		if (n)
			memcpy(a->host, data, n);
		if (old)
			emu_mem_free(old);
		sy->dev = addr;
		return 0;
	}
	return 1;
}

uint32_t wgemu_module_hash(int mod)
{
	return mod >= 0 && mod < emu_rt.nmods ? emu_rt.mods[mod].hash : 0;
}

const void *wgemu_module_kernel(int mod, const char *mangled)
{
	int i;

	for (i = 0; i < emu_rt.nkerns; i++)
		if (emu_rt.kerns[i].mod == mod &&
		    !strcmp(emu_rt.kerns[i].name, mangled))
			return &emu_rt.kerns[i];
	return NULL;
}

int wgemu_check_ptx(const char *ptx, size_t len,
		    void (*each)(const struct wgemu_lack *, void *),
		    void *ctx, char *why, size_t wlen)
{
	struct emu_module *m = emu_ptx_parse(ptx, len, why, wlen);
	struct emu_lack *v = NULL;
	char name[256];
	int n;

	if (!m)
		return -1;
	n = emu_module_lacks(m, &v);
	if (n < 0)
		snprintf(why, wlen, "out of memory");
	for (int i = 0; i < n; i++) {
		struct wgemu_lack l;

		l.kernel = m->funcs[v[i].kernel].name;
		/* as emu_fault names it */
		emu_demangle(l.kernel, name, sizeof(name));
		snprintf(l.name, sizeof(l.name), "%.*s",
			 WGEMU_FAULT_NAME_MAX, name);
		l.what = v[i].what;
		l.where = v[i].where;
		each(&l, ctx);
	}
	free(v);
	emu_module_free(m);
	return n < 0 ? -1 : 0;
}

void wgemu_demangle(const char *mangled, char *out, size_t n)
{
	emu_demangle(mangled, out, n);
}
