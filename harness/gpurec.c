/*
 * Launch records on a GPU (see gpurec.h): the process's registries and
 * the record's entries.  The recorder's own calls of the runtime go to
 * the real functions (__real_*), never through the wrappers.
 */
#include "gpurec.h"

#include <stdlib.h>
#include <string.h>

#include "emu/trace.h"
#include "fatbin.h"

cudaError_t __real_cudaMemcpyFromSymbol(void *, const void *, size_t,
					size_t, enum cudaMemcpyKind);

struct module {
	void **handle;
	uint32_t hash;
};

#define MAX_KERNEL_PARAMS 1024

struct function {
	const void *host;
	uint32_t hash;          /* its module's */
	char *name;             /* mangled */
	/* its parameters' layout, asked once: -1 not yet, then how many
	 * (offsets and sizes in off, size) */
	int nparams;
	size_t *off, *size, bytes;
};

struct var {
	const void *host;
	uint32_t hash;
	char *name;
	size_t size;
	uint64_t dev;           /* 0 until asked */
};

struct alloc {
	uint64_t dev, size;
};

struct texture {
	unsigned long long h;
	int is_surf;
	struct cudaResourceDesc res;
	struct cudaTextureDesc tex;
};

struct handle {
	cudaKernel_t k;
	const void *host;
};

/* a growable array of T: v, n, cap */
#define VEC(T) struct { T *v; size_t n, cap; }

static struct {
	VEC(struct module) mods;
	VEC(struct function) funcs;
	VEC(struct var) vars;
	VEC(struct alloc) allocs;
	VEC(struct texture) texs;
	VEC(struct handle) handles;
	int on;
} R;

/* Room for one more element of a VEC; NULL out of memory (the element
 * is then not kept: a record that needs it says what is missing). */
static void *grow(void **v, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *p = realloc(*v, c * sz);

		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	return (char *)*v + (*n)++ * sz;
}

#define PUSH(vec) grow((void **)&(vec).v, &(vec).n, &(vec).cap, \
		       sizeof(*(vec).v))

/* The recorder's own runtime calls may fail (a parameter index past
 * the last is how the runtime says there are no more): the error they
 * leave is cleared -- which would lose one of the program's, so such a
 * call is made only when none is pending.  quiet_begin says whether one
 * may be; quiet_end clears. */
static int quiet_begin(void)
{
	return cudaPeekAtLastError() == cudaSuccess;
}

static void quiet_end(void)
{
	cudaGetLastError();
}

/* ---- registries ---- */

void gpurec_module(void **handle, const void *fatbin_wrapper)
{
	struct module *m = PUSH(R.mods);
	const char *ptx;
	size_t len;

	if (!m)
		return;
	m->handle = handle;
	m->hash = fatbin_wrapper_ptx(fatbin_wrapper, &ptx, &len) ? 0 :
		  fatbin_ptx_hash(ptx, len);
}

static uint32_t module_hash(void **handle)
{
	for (size_t i = 0; i < R.mods.n; i++)
		if (R.mods.v[i].handle == handle)
			return R.mods.v[i].hash;
	return 0;
}

void gpurec_function(void **handle, const void *host_fun,
		     const char *device_name)
{
	struct function *f = PUSH(R.funcs);

	if (!f)
		return;
	memset(f, 0, sizeof(*f));
	f->host = host_fun;
	f->hash = module_hash(handle);
	f->name = strdup(device_name ? device_name : "");
	f->nparams = -1;
}

static struct function *function_of(const void *host)
{
	for (size_t i = 0; i < R.funcs.n; i++)
		if (R.funcs.v[i].host == host)
			return &R.funcs.v[i];
	return NULL;
}

void gpurec_kernel_handle(cudaKernel_t k, const void *host_fun)
{
	struct handle *h;

	for (size_t i = 0; i < R.handles.n; i++)
		if (R.handles.v[i].k == k)
			return;
	h = PUSH(R.handles);
	if (h) {
		h->k = k;
		h->host = host_fun;
	}
}

void gpurec_var(void **handle, const void *host_var,
		const char *device_name, size_t size)
{
	struct var *v = PUSH(R.vars);

	if (!v)
		return;
	memset(v, 0, sizeof(*v));
	v->host = host_var;
	v->hash = module_hash(handle);
	v->name = strdup(device_name ? device_name : "");
	v->size = size;
}

void gpurec_alloc(const void *p, size_t n)
{
	struct alloc *a;

	if (!p)
		return;
	a = PUSH(R.allocs);
	if (a) {
		a->dev = (uint64_t)(uintptr_t)p;
		a->size = n;
	}
	if (R.on) {
		struct emu_trace_op op;

		memset(&op, 0, sizeof(op));
		op.kind = TR_MALLOC;
		op.a = (uint64_t)(uintptr_t)p;
		op.n = n;
		emu_trace_put(&op);
	}
}

void gpurec_free(const void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;

	for (size_t i = 0; i < R.allocs.n; i++)
		if (R.allocs.v[i].dev == a) {
			R.allocs.v[i] = R.allocs.v[--R.allocs.n];
			break;
		}
	if (R.on && p) {
		struct emu_trace_op op;

		memset(&op, 0, sizeof(op));
		op.kind = TR_FREE;
		op.a = a;
		emu_trace_put(&op);
	}
}

static uint64_t var_address(struct var *v)
{
	void *p = NULL;

	if (v->dev || !quiet_begin())
		return v->dev;
	if (cudaGetSymbolAddress(&p, v->host) == cudaSuccess)
		v->dev = (uint64_t)(uintptr_t)p;
	quiet_end();
	return v->dev;
}

int gpurec_is_device(const void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;

	for (size_t i = 0; i < R.allocs.n; i++)
		if (a - R.allocs.v[i].dev < R.allocs.v[i].size)
			return 1;
	for (size_t i = 0; i < R.vars.n; i++)
		if (var_address(&R.vars.v[i]) &&
		    a - R.vars.v[i].dev < R.vars.v[i].size)
			return 1;
	return 0;
}

/* ---- texture objects ---- */

static void put_texture(const struct texture *t)
{
	unsigned char data[EMU_TRACE_TEXTURE_BYTES];
	struct emu_trace_op op;

	if (t->res.resType != cudaResourceTypeLinear &&
	    t->res.resType != cudaResourceTypePitch2D) {
		gpurec_untraced("a texture or surface object over a CUDA "
				"array");
		return;
	}
	memcpy(data, &t->res, sizeof(t->res));
	memcpy(data + sizeof(t->res), &t->tex, sizeof(t->tex));
	memset(&op, 0, sizeof(op));
	op.kind = TR_TEXTURE;
	op.a = t->h;
	op.value = (uint32_t)t->is_surf;
	op.data = data;
	op.ndata = sizeof(data);
	emu_trace_put(&op);
}

void gpurec_texture(unsigned long long h, int is_surf,
		    const struct cudaResourceDesc *res,
		    const struct cudaTextureDesc *tex)
{
	struct texture *t = PUSH(R.texs);

	if (!t)
		return;
	memset(t, 0, sizeof(*t));
	t->h = h;
	t->is_surf = is_surf;
	t->res = *res;
	if (tex)
		t->tex = *tex;
	if (R.on)
		put_texture(t);
}

void gpurec_texture_gone(unsigned long long h)
{
	for (size_t i = 0; i < R.texs.n; i++)
		if (R.texs.v[i].h == h) {
			R.texs.v[i] = R.texs.v[--R.texs.n];
			return;
		}
}

/* ---- the record ---- */

int gpurec_on(void)
{
	return R.on;
}

/* A variable and its contents now, as the emulator's runtime writes
 * one when a record opens. */
static void put_var(struct var *v)
{
	struct emu_trace_op op;
	void *data = NULL;

	memset(&op, 0, sizeof(op));
	op.kind = TR_VAR;
	op.value = v->hash;
	op.name = v->name;
	op.a = var_address(v);
	op.n = v->size;
	if (!op.a)
		return;
	if (v->size <= EMU_TRACE_MAX_VAR_BYTES && quiet_begin() &&
	    (data = malloc(v->size ? v->size : 1))) {
		if (__real_cudaMemcpyFromSymbol(data, v->host, v->size, 0,
						cudaMemcpyDeviceToHost) ==
		    cudaSuccess) {
			op.data = data;
			op.ndata = v->size;
		}
		quiet_end();
	}
	emu_trace_put(&op);
	free(data);
}

void gpurec_begin(const void *in, size_t in_bytes, const void *out,
		  size_t out_bytes)
{
	struct emu_trace_head h;
	struct emu_trace_op op;

	memset(&h, 0, sizeof(h));
	h.in = (uint64_t)(uintptr_t)in;
	h.in_bytes = in_bytes;
	h.out = (uint64_t)(uintptr_t)out;
	h.out_bytes = out_bytes;
	emu_trace_open(&h);
	R.on = 1;
	for (size_t i = 0; i < R.allocs.n; i++) {
		memset(&op, 0, sizeof(op));
		op.kind = TR_ALLOC;
		op.a = R.allocs.v[i].dev;
		op.n = R.allocs.v[i].size;
		emu_trace_put(&op);
	}
	for (size_t i = 0; i < R.vars.n; i++)
		put_var(&R.vars.v[i]);
	for (size_t i = 0; i < R.texs.n; i++)
		put_texture(&R.texs.v[i]);
}

int gpurec_end(unsigned char **buf, size_t *len)
{
	if (!R.on)
		return -1;
	R.on = 0;
	return emu_trace_close(buf, len);
}

void gpurec_untraced(const char *what)
{
	struct emu_trace_op op;

	if (!R.on)
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_UNTRACED;
	op.name = what;
	emu_trace_put(&op);
}

void gpurec_copy(int kind, const void *dst, const void *src, size_t n)
{
	struct emu_trace_op op;

	if (!R.on || !n)
		return;
	if (kind == cudaMemcpyDefault)
		kind = gpurec_is_device(dst) ?
		       (gpurec_is_device(src) ? cudaMemcpyDeviceToDevice :
			cudaMemcpyHostToDevice) :
		       (gpurec_is_device(src) ? cudaMemcpyDeviceToHost :
			cudaMemcpyHostToHost);
	if (kind == cudaMemcpyHostToHost)
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_COPY;
	op.copy = (uint32_t)kind;
	op.a = (uint64_t)(uintptr_t)dst;
	op.b = (uint64_t)(uintptr_t)src;
	op.n = n;
	if (kind == cudaMemcpyHostToDevice) {
		op.data = src;
		op.ndata = n;
	}
	emu_trace_put(&op);
}

void gpurec_copy2d(int kind, void *dst, size_t dpitch, const void *src,
		   size_t spitch, size_t width, size_t height)
{
	for (size_t y = 0; y < height && R.on; y++)
		gpurec_copy(kind, (char *)dst + y * dpitch,
			    (const char *)src + y * spitch, width);
}

void gpurec_memset(const void *p, int value, size_t n)
{
	struct emu_trace_op op;

	if (!R.on || !n)
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_MEMSET;
	op.a = (uint64_t)(uintptr_t)p;
	op.value = (uint32_t)(value & 0xff);
	op.n = n;
	emu_trace_put(&op);
}

/* The kernel's parameter layout, from the runtime's own description
 * (cudaFuncGetParamInfo), asked at its first recorded launch; 0, or -1
 * when it cannot be had now. */
static int param_layout(struct function *f)
{
	size_t off[MAX_KERNEL_PARAMS], size[MAX_KERNEL_PARAMS];
	int n = 0;

	if (f->nparams >= 0)
		return 0;
	if (!quiet_begin())
		return -1;
	while (n < MAX_KERNEL_PARAMS &&
	       cudaFuncGetParamInfo(f->host, (size_t)n, &off[n],
				    &size[n]) == cudaSuccess)
		n++;
	quiet_end();
	f->off = malloc((size_t)(n ? n : 1) * sizeof(*f->off));
	f->size = malloc((size_t)(n ? n : 1) * sizeof(*f->size));
	if (!f->off || !f->size) {
		free(f->off);
		free(f->size);
		f->off = f->size = NULL;
		return -1;
	}
	f->bytes = 0;
	for (int i = 0; i < n; i++) {
		f->off[i] = off[i];
		f->size[i] = size[i];
		if (off[i] + size[i] > f->bytes)
			f->bytes = off[i] + size[i];
	}
	f->nparams = n;
	return 0;
}

/* The kernel's parameters laid out as its PTX declares them; NULL when
 * they cannot be. */
static unsigned char *param_buffer(struct function *f, void **args)
{
	unsigned char *buf;

	if (param_layout(f) || f->bytes > EMU_TRACE_MAX_PARAMS ||
	    (f->nparams && !args))
		return NULL;
	buf = calloc(1, f->bytes ? f->bytes : 1);
	if (!buf)
		return NULL;
	for (int i = 0; i < f->nparams; i++)
		memcpy(buf + f->off[i], args[i], f->size[i]);
	return buf;
}

void gpurec_launch(const void *host_fun, dim3 grid, dim3 block,
		   void **args, size_t smem, int cooperative)
{
	struct function *f;
	struct emu_trace_op op;
	unsigned char *params;

	if (!R.on)
		return;
	f = function_of(host_fun);
	if (!f) {
		gpurec_untraced("a kernel the runtime did not register");
		return;
	}
	params = param_buffer(f, args);
	if (!params) {
		gpurec_untraced("a kernel whose parameters the runtime "
				"does not describe");
		return;
	}
	memset(&op, 0, sizeof(op));
	op.kind = TR_LAUNCH;
	op.value = f->hash;
	op.name = f->name;
	op.grid[0] = grid.x;
	op.grid[1] = grid.y;
	op.grid[2] = grid.z;
	op.block[0] = block.x;
	op.block[1] = block.y;
	op.block[2] = block.z;
	op.n = smem;
	op.a = (uint64_t)cooperative;
	op.data = params;
	op.ndata = f->bytes;
	emu_trace_put(&op);
	free(params);
}

void gpurec_launch_handle(cudaKernel_t k, dim3 grid, dim3 block,
			  void **args, size_t smem)
{
	for (size_t i = 0; i < R.handles.n; i++)
		if (R.handles.v[i].k == k) {
			gpurec_launch(R.handles.v[i].host, grid, block, args,
				      smem, 0);
			return;
		}
	gpurec_untraced("a kernel handle the runtime did not give out");
}
