/*
 * Kernel launches of the emulator's runtime: <<<...>>> (nvcc's push and
 * pop of the configuration, then __cudaLaunchKernel), cudaLaunchKernel,
 * cooperative launches and wgemu.h's launches of a recorded parameter
 * buffer.  Every launch goes the same way, under the runtime's lock:
 *
 *   check       the kernel loads, the grid and block fit the device's
 *               limits (hw.h), and so does its shared memory
 *   parameters  the runtime's one pointer per parameter packed into the
 *               kernel's parameter buffer, at the PTX's offsets
 *   record      the launch written into an open launch record (trace.h)
 *   run         the interpreter (emu_run) runs every block; what it
 *               counted becomes a launch record of wgemu.h, its fault
 *               the sticky error
 *
 * unless a dry call keeps it instead of running it (dry.c).  A launch is
 * synchronous: it has run when the call returns, but its fault shows at
 * the next call, as an asynchronous launch's does on a GPU.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/rt/graph.h"
#include "emu/rt/rt.h"
#include "emu/perf/runtime_perf.h"

/* nvcc's launch hooks (declared in crt/host_runtime.h and
 * crt/device_functions.h, which are C++ only) */
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
				     size_t sharedMem,
				     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
				       size_t *sharedMem, void *stream);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
			       dim3 blockDim, void **args, size_t sharedMem,
			       cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
				    dim3 blockDim, void **args,
				    size_t sharedMem, cudaStream_t stream);

/* ---- <<<...>>> configurations ---- */
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
				     size_t sharedMem,
				     struct CUstream_st *stream)
{
	struct rt_thread *t = &emu_rt_thread;

	if (t->ncfg == 16)
		return 1;
	t->cfg[t->ncfg].grid = gridDim;
	t->cfg[t->ncfg].block = blockDim;
	t->cfg[t->ncfg].smem = sharedMem;
	t->cfg[t->ncfg].stream = stream;
	t->ncfg++;
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
				       size_t *sharedMem, void *stream)
{
	struct rt_thread *t = &emu_rt_thread;

	if (!t->ncfg)
		return rt_fail(cudaErrorMissingConfiguration);
	t->ncfg--;
	*gridDim = t->cfg[t->ncfg].grid;
	*blockDim = t->cfg[t->ncfg].block;
	*sharedMem = t->cfg[t->ncfg].smem;
	memcpy(stream, &t->cfg[t->ncfg].stream, sizeof(cudaStream_t));
	return cudaSuccess;
}

/* ---- check ---- */
/* The launch of k, of static_smem bytes of static shared memory,
 * against the device's limits: cudaSuccess, or cudaErrorInvalidValue
 * with a note that says why (what CUDA 13 returns on an H200,
 * tests/gpu/emu-ncu.sh; CUDA does not say why). */
static cudaError_t launch_check(const struct rt_kernel *k, dim3 grid,
				dim3 block, size_t smem, size_t static_smem)
{
	uint64_t nthreads = (uint64_t)block.x * block.y * block.z;
	char d[256];

	if (!grid.x || !grid.y || !grid.z || !nthreads ||
	    nthreads > EMU_MAX_BLOCK_THREADS || block.x > EMU_MAX_BLOCK_X ||
	    block.y > EMU_MAX_BLOCK_Y || block.z > EMU_MAX_BLOCK_Z ||
	    grid.x > EMU_MAX_GRID_X || grid.y > EMU_MAX_GRID_Y ||
	    grid.z > EMU_MAX_GRID_Z) {
		emu_demangle(k->name, d, sizeof(d));
		rt_note("launch of '%.120s' refused: grid (%u,%u,%u), block "
			"(%u,%u,%u): a block has 1 to %d threads (x and y at "
			"most %d, z at most %d), a grid at most %d blocks in "
			"y and z", d, grid.x, grid.y, grid.z, block.x,
			block.y, block.z, EMU_MAX_BLOCK_THREADS,
			EMU_MAX_BLOCK_X, EMU_MAX_BLOCK_Z, EMU_MAX_GRID_Y);
		return rt_fail(cudaErrorInvalidValue);
	}
	if (static_smem > EMU_SMEM_DEFAULT ||
	    smem > EMU_SMEM_OPTIN - static_smem || smem > k->max_dyn) {
		emu_demangle(k->name, d, sizeof(d));
		rt_note("launch of '%.120s' refused: %zu bytes of static and "
			"%zu of dynamic shared memory; a block may have %u "
			"static and %zu dynamic bytes (more dynamic bytes, up "
			"to %u in all, after cudaFuncSetAttribute)", d,
			static_smem, smem, EMU_SMEM_DEFAULT, k->max_dyn,
			EMU_SMEM_OPTIN);
		return rt_fail(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

/* ---- parameters ---- */
/* Function f's parameter buffer (malloc'd, 8 bytes of slack, zeroed)
 * packed from the runtime's one pointer per parameter; NULL with *e the
 * error when an argument is missing or memory ran out. */
static uint8_t *launch_params(const struct emu_module *m,
			      const struct emu_func *f, void **args,
			      cudaError_t *e)
{
	uint8_t *params = calloc(1, f->kparam_bytes + 8);

	*e = cudaErrorMemoryAllocation;
	if (!params)
		return NULL;
	for (int i = 0; i < f->nparams; i++) {
		const struct emu_sym *s = &m->syms[f->params[i]];

		if (!args || !args[i]) {
			free(params);
			*e = cudaErrorInvalidValue;
			return NULL;
		}
		memcpy(params + s->off, args[i], s->size);
	}
	*e = cudaSuccess;
	return params;
}

/* ---- a launch ---- */
/* A launch, checked and run (or kept, in a dry call); coop_ws is the
 * grid workspace of a cooperative launch, 0 for an ordinary one. */
static cudaError_t launch_locked(struct rt_kernel *k, dim3 grid, dim3 block,
				 void **args, size_t smem, uint64_t coop_ws)
{
	struct emu_launch_cfg cfg;
	const struct emu_module *m;
	const struct emu_func *f;
	uint8_t *params;
	unsigned nthreads = block.x * block.y * block.z;
	size_t st;
	cudaError_t e;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	e = rt_kernel_load(k);
	if (e != cudaSuccess)
		return rt_fail(e);
	m = emu_rt.mods[k->mod].m;
	f = &m->funcs[k->fi];
	st = emu_static_smem(m, k->fi);
	e = launch_check(k, grid, block, smem, st);
	if (e != cudaSuccess)
		return e;
	params = launch_params(m, f, args, &e);
	if (!params)
		return rt_fail(e);
	memset(&cfg, 0, sizeof(cfg));
	cfg.grid[0] = grid.x;
	cfg.grid[1] = grid.y;
	cfg.grid[2] = grid.z;
	cfg.block[0] = block.x;
	cfg.block[1] = block.y;
	cfg.block[2] = block.z;
	cfg.dyn_smem = smem;
	cfg.params = params;
	cfg.cooperative = coop_ws != 0;
	cfg.grid_ws = coop_ws;
	cfg.resident = (unsigned)(rt_blocks_per_sm(k, nthreads, smem) *
				  EMU_SM_COUNT);
	/* a dry call that only records (1) has no record to write */
	if (emu_rt.dry != 1)
		rt_trace_launch(k, grid, block, smem, params, f->kparam_bytes,
				cfg.cooperative);
	if (emu_rt.dry) {
		if (emu_rt.dry != 2 || rt_dry_keep_launch(k, &cfg, st))
			free(params);
		emu_rt.clock_ms += 0.003;
		return cudaSuccess;
	}
	rt_launch_run(k, &cfg, st);
	return cudaSuccess;
}

/* ---- run, and its record ---- */
static cudaError_t fault_error(enum wgemu_fault_kind k)
{
	switch (k) {
	case WGEMU_FAULT_OUT_OF_BOUNDS: return cudaErrorIllegalAddress;
	case WGEMU_FAULT_MISALIGNED: return cudaErrorMisalignedAddress;
	case WGEMU_FAULT_LIMIT: return cudaErrorLaunchTimeout;
	case WGEMU_FAULT_RESOURCES: return cudaErrorLaunchOutOfResources;
	case WGEMU_FAULT_UNSUPPORTED: return cudaErrorNotSupported;
	case WGEMU_FAULT_TRAP: return cudaErrorLaunchFailure;
	case WGEMU_FAULT_ASSERT: return cudaErrorAssert;
	default: return cudaErrorLaunchFailure;
	}
}

/* Keep only the lines a launch touched. */
static int compact_lines(struct emu_line_counters *l, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		const struct wgemu_counters *c = &l[i].c;

		if (c->global_load_requests || c->global_store_requests ||
		    c->global_atomic_requests ||
		    c->shared_load_wavefronts || c->shared_store_wavefronts)
			l[k++] = l[i];
	}
	return k;
}

/* What the launch of k counted (res, whose lines are taken) and the
 * performance model predicted of it (pc, finished here), kept as its
 * launch record. */
static void launch_record(const struct rt_kernel *k,
			  const struct emu_launch_cfg *cfg,
			  struct emu_result *res, struct perf_collect *pc)
{
	const struct emu_module *m = emu_rt.mods[k->mod].m;
	struct rt_record rec;

	memset(&rec, 0, sizeof(rec));
	emu_demangle(k->name, rec.l.kernel, sizeof(rec.l.kernel));
	memcpy(rec.l.grid, cfg->grid, sizeof(cfg->grid));
	memcpy(rec.l.block, cfg->block, sizeof(cfg->block));
	rec.l.dynamic_shared_bytes = cfg->dyn_smem;
	rec.l.static_shared_bytes = res->static_smem;
	rec.l.counters = res->total;
	rec.m = m;
	rec.lines = res->lines;
	rec.nlines = res->lines ? compact_lines(res->lines, m->nlines) : 0;
	rec.predicted_ms = emu_perf_finish(pc, k->name, rec.l.kernel, cfg,
					   res->static_smem, rec.limit,
					   sizeof(rec.limit), &rec.regs);
	rt_record_add(&rec);
}

void rt_launch_run(struct rt_kernel *k, struct emu_launch_cfg *cfg,
		   size_t static_smem)
{
	const struct emu_module *m = emu_rt.mods[k->mod].m;
	struct emu_result res;
	struct perf_collect *pc;
	double bytes;

	/* the heap's size when it runs, not when it was kept */
	cfg->heap_limit = emu_rt.limits[cudaLimitMallocHeapSize];
	pc = emu_perf_prepare(cfg, static_smem);
	cfg->uncounted = emu_rt.uncounted && !cfg->perf;
	emu_run(m, k->fi, cfg, &res);
	free((void *)cfg->params);
	cfg->params = NULL;
	launch_record(k, cfg, &res, pc);
	/* the modelled time: DRAM sectors (uncounted, the bytes the lanes
	 * moved) at 3 TB/s plus 3 us of launch */
	bytes = cfg->uncounted ? (double)res.global_bytes :
		32.0 * (double)(res.total.global_load_sectors +
				res.total.global_store_sectors);
	emu_rt.clock_ms += 0.003 + bytes / 3e9;
	if (res.fault != WGEMU_FAULT_NONE) {
		emu_rt.sticky = fault_error(res.fault);
		emu_rt_thread.last = emu_rt.sticky;
		if (emu_rt.fault_kind == WGEMU_FAULT_NONE) {
			emu_rt.fault_kind = res.fault;
			snprintf(emu_rt.fault_msg, sizeof(emu_rt.fault_msg),
				 "%s", res.msg);
		}
		rt_note("%s", res.msg);
	}
	/* launches are asynchronous on a GPU: the fault shows later */
}

/* ---- cooperative launches ---- */
/* The grid workspace of cooperative launches (%envreg1/%envreg2): the
 * grid barrier's counter at +4.  One allocation, made again after
 * cudaDeviceReset freed it; the barrier works from any value.  Its
 * address, or 0 out of memory. */
static uint64_t grid_workspace(void)
{
	struct emu_alloc *ws;

	ws = emu_rt.grid_ws ? emu_mem_find(emu_rt.grid_ws, 16) : NULL;
	if (!ws) {
		ws = emu_mem_alloc(16, 0, emu_rt_lazy());
		if (!ws)
			return 0;
		ws->is_var = 1;
		memset(ws->host, 0, 16);
		emu_rt.grid_ws = ws->dev;
	}
	return emu_rt.grid_ws;
}

static cudaError_t launch_coop_locked(struct rt_kernel *k, dim3 grid,
				      dim3 block, void **args, size_t smem)
{
	uint64_t nb = (uint64_t)grid.x * grid.y * grid.z;
	uint64_t nt = (uint64_t)block.x * block.y * block.z;
	uint64_t ws;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (k && nt && nt <= EMU_MAX_BLOCK_THREADS &&
	    nb > (uint64_t)rt_blocks_per_sm(k, (unsigned)nt, smem) *
		 EMU_SM_COUNT) {
		char d[256];

		emu_demangle(k->name, d, sizeof(d));
		rt_note("cooperative launch of '%.120s' refused: %llu blocks "
			"of %llu threads and %zu bytes of dynamic shared "
			"memory, where %d fit on the device at once", d,
			(unsigned long long)nb, (unsigned long long)nt, smem,
			rt_blocks_per_sm(k, (unsigned)nt, smem) *
			EMU_SM_COUNT);
		return rt_fail(cudaErrorCooperativeLaunchTooLarge);
	}
	ws = grid_workspace();
	if (!ws)
		return rt_fail(cudaErrorMemoryAllocation);
	return launch_locked(k, grid, block, args, smem, ws);
}

/* ---- the runtime API's launches ---- */
static cudaError_t launch(struct rt_kernel *k, dim3 grid, dim3 block,
			  void **args, size_t smem)
{
	RT_LOCKED(launch_locked(k, grid, block, args, smem, 0));
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
			       dim3 blockDim, void **args, size_t sharedMem,
			       cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return emu_capture_kernel(stream, (const void *)kernel,
					  gridDim, blockDim, args, sharedMem);
	return launch(rt_kernel_find((const void *)kernel), gridDim,
		      blockDim, args, sharedMem);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
				    dim3 blockDim, void **args,
				    size_t sharedMem, cudaStream_t stream)
{
	return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem,
				  stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
			     void **args, size_t sharedMem,
			     cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return emu_capture_kernel(stream, func, gridDim, blockDim, args,
					  sharedMem);
	return launch(rt_kernel_find(func), gridDim, blockDim, args,
		      sharedMem);
}

/* A cooperative launch: every block resident at once, taking turns
 * (sched_coop.c), so grid.sync() works; refused with
 * cudaErrorCooperativeLaunchTooLarge when the grid does not fit on the
 * device at once, as CUDA does.  Captured into a graph it is an ordinary
 * kernel node. */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim,
					dim3 blockDim, void **args,
					size_t sharedMem, cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return emu_capture_kernel(stream, func, gridDim, blockDim, args,
					  sharedMem);
	RT_LOCKED(launch_coop_locked(rt_kernel_find(func), gridDim, blockDim,
				     args, sharedMem));
}

/* cudaLaunchKernelEx (the header's template, which thrust and cub use):
 * the configuration's attributes (clusters, priorities, programmatic
 * serialisation) change nothing when blocks run one after another; the
 * cooperative one makes it cudaLaunchCooperativeKernel. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
				const void *func, void **args)
{
	if (!config)
		return rt_fail(cudaErrorInvalidValue);
	if (emu_stream_capture(config->stream))
		return emu_capture_kernel(config->stream, func, config->gridDim,
					  config->blockDim, args,
					  config->dynamicSmemBytes);
	for (unsigned i = 0; config->attrs && i < config->numAttrs; i++)
		if (config->attrs[i].id == cudaLaunchAttributeCooperative &&
		    config->attrs[i].val.cooperative)
			return cudaLaunchCooperativeKernel(func,
				config->gridDim, config->blockDim, args,
				config->dynamicSmemBytes, config->stream);
	return launch(rt_kernel_find(func), config->gridDim, config->blockDim,
		      args, config->dynamicSmemBytes);
}

/* Host work queued on a stream: every stream is synchronous, so it runs
 * at once, after everything queued before it, as the stream orders. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
			       void *userData)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!fn)
		return rt_fail(cudaErrorInvalidValue);
	if (emu_stream_capture(stream))
		return emu_capture_host(stream, fn, userData);
	fn(userData);
	return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream,
				  cudaStreamCallback_t callback,
				  void *userData, unsigned int flags)
{
	if (!callback || flags)
		return rt_fail(cudaErrorInvalidValue);
	callback(stream, emu_rt.sticky, userData);
	return emu_rt.sticky;
}

/* ---- wgemu.h: a recorded launch again ---- */
static int launch_raw(const void *kernel, const unsigned grid[3],
		      const unsigned block[3], size_t dyn_smem,
		      const void *params, size_t n, int cooperative)
{
	struct rt_kernel *k = rt_kernel_find(kernel);
	const struct emu_module *m;
	const struct emu_func *f;
	void **args;
	const uint8_t *p = params;
	dim3 g, b;
	int i, rc;

	if (!k || rt_kernel_load(k))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	m = emu_rt.mods[k->mod].m;
	f = &m->funcs[k->fi];
	if (n != f->kparam_bytes)
		return rt_fail(cudaErrorInvalidValue);
	/* the launch was accepted where it was recorded (a GPU, or this
	 * runtime checking the kernel's cudaFuncSetAttribute): allow what
	 * the device allows */
	k->max_dyn = EMU_SMEM_OPTIN;
	/* the runtime takes one pointer per parameter: point into the
	 * buffer at each parameter's offset */
	args = calloc((size_t)f->nparams + 1, sizeof(*args));
	if (!args)
		return rt_fail(cudaErrorMemoryAllocation);
	for (i = 0; i < f->nparams; i++)
		args[i] = (void *)(p + m->syms[f->params[i]].off);
	g.x = grid[0];
	g.y = grid[1];
	g.z = grid[2];
	b.x = block[0];
	b.y = block[1];
	b.z = block[2];
	if (cooperative) {
		pthread_mutex_lock(&emu_rt.lock);
		rc = launch_coop_locked(k, g, b, args, dyn_smem);
		pthread_mutex_unlock(&emu_rt.lock);
	} else {
		rc = launch(k, g, b, args, dyn_smem);
	}
	free(args);
	return rc;
}

int wgemu_launch_raw(const void *kernel, const unsigned grid[3],
		     const unsigned block[3], size_t dyn_smem,
		     const void *params, size_t n)
{
	return launch_raw(kernel, grid, block, dyn_smem, params, n, 0);
}

int wgemu_launch_raw_cooperative(const void *kernel, const unsigned grid[3],
				 const unsigned block[3], size_t dyn_smem,
				 const void *params, size_t n)
{
	return launch_raw(kernel, grid, block, dyn_smem, params, n, 1);
}
