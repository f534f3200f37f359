/*
 * CUDA graphs (graph.h): building them by hand or by stream capture,
 * instantiating, updating and launching them.  A graph owns its nodes; a
 * node owns a copy of what its call took (kernel arguments copied when
 * the node is made, as CUDA does).  An executable graph is a clone of the
 * graph it was made from, so node i of the one is node i of the other
 * (cudaGraphExecKernelNodeSetParams names a node of the graph).
 * Launching runs the nodes through the ordinary runtime calls on the
 * legacy stream, one at a time, in a topological order; the first error
 * stops the launch and is its result.
 *
 * A memory-allocation node reserves its address when it is added (an
 * allocation made and freed: the emulator never reuses addresses) and
 * allocates there each time it runs; a free node frees it.  So a kernel
 * that touches graph memory outside its lifetime faults as on a GPU.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"
#include "emu/rt/graph.h"
#include "emu/rt/rt.h"
#include "emu/trace.h"
#include "emu/wgemu.h"

#define MAX_KERNEL_ARGS 256

enum node_kind {
	N_KERNEL, N_MEMCPY, N_MEMCPY1D, N_MEMSET, N_HOST, N_EMPTY,
	N_ALLOC, N_FREE, N_CHILD
};

struct kernel_node {
	const void *func;
	dim3 grid, block;
	size_t smem;
	int nargs;
	uint8_t *buf;           /* the arguments, one after another */
	void **argv;            /* nargs pointers into buf */
	size_t bytes;
};

struct copy1d {
	void *dst;
	const void *src;
	size_t count;
	enum cudaMemcpyKind kind;
};

struct graph_mem {
	void *dptr;
	size_t size;
};

struct CUgraphNode_st {
	cudaGraph_t graph;
	int index;              /* in graph->nodes */
	enum node_kind kind;
	int *deps, ndeps;       /* indices of the nodes it waits for */
	union {
		struct kernel_node k;
		struct cudaMemcpy3DParms cp;
		struct copy1d c1;
		struct cudaMemsetParams ms;
		struct cudaHostNodeParams host;
		struct graph_mem mem;
		cudaGraph_t child;
	} u;
};

struct CUgraph_st {
	struct CUgraphNode_st **nodes;
	int n, cap;
};

struct CUgraphExec_st {
	cudaGraph_t g;
};

/* bytes of graph allocations alive now, and the most ever */
static uint64_t g_mem_now, g_mem_high;

static cudaError_t sticky_or(cudaError_t e)
{
	int s = emu_rt_sticky();

	return s ? (cudaError_t)s : e;
}

/* ---- nodes ---- */
static void node_release(struct CUgraphNode_st *n);

static void kernel_free(struct kernel_node *k)
{
	free(k->buf);
	free(k->argv);
	k->buf = NULL;
	k->argv = NULL;
}

/* Copy the arguments of a launch of k->func (args as cudaLaunchKernel
 * takes them) into k. */
static cudaError_t kernel_set_args(struct kernel_node *k, void **args)
{
	size_t sizes[MAX_KERNEL_ARGS], off = 0;
	int n = emu_rt_kernel_params(k->func, sizes, MAX_KERNEL_ARGS);
	int i;

	if (n < 0)
		return cudaErrorInvalidDeviceFunction;
	if (n > MAX_KERNEL_ARGS || (n && !args))
		return rt_fail(cudaErrorInvalidValue);
	for (i = 0; i < n; i++)
		off += sizes[i];
	k->buf = malloc(off ? off : 1);
	k->argv = calloc((size_t)n + 1, sizeof(*k->argv));
	if (!k->buf || !k->argv) {
		kernel_free(k);
		return rt_fail(cudaErrorMemoryAllocation);
	}
	k->nargs = n;
	k->bytes = off;
	for (off = 0, i = 0; i < n; off += sizes[i], i++) {
		memcpy(k->buf + off, args[i], sizes[i]);
		k->argv[i] = k->buf + off;
	}
	return cudaSuccess;
}

static cudaError_t kernel_set(struct kernel_node *k,
			      const struct cudaKernelNodeParams *p)
{
	struct kernel_node nk;
	cudaError_t e;

	if (!p || !p->func || p->extra)
		return rt_fail(cudaErrorInvalidValue);
	memset(&nk, 0, sizeof(nk));
	nk.func = p->func;
	nk.grid = p->gridDim;
	nk.block = p->blockDim;
	nk.smem = p->sharedMemBytes;
	e = kernel_set_args(&nk, p->kernelParams);
	if (e)
		return e;
	kernel_free(k);
	*k = nk;
	return cudaSuccess;
}

/* A new node of kind in g after the deps; NULL (the last error set)
 * when a dependency is not a node of g or memory runs out. */
static struct CUgraphNode_st *node_add(cudaGraph_t g, enum node_kind kind,
				       const cudaGraphNode_t *deps,
				       size_t ndeps)
{
	struct CUgraphNode_st *n;
	size_t i;

	if (!g || (ndeps && !deps)) {
		rt_fail(cudaErrorInvalidValue);
		return NULL;
	}
	for (i = 0; i < ndeps; i++)
		if (!deps[i] || deps[i]->graph != g) {
			rt_fail(cudaErrorInvalidValue);
			return NULL;
		}
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 16;
		void *v = realloc(g->nodes, (size_t)cap * sizeof(*g->nodes));

		if (!v) {
			rt_fail(cudaErrorMemoryAllocation);
			return NULL;
		}
		g->nodes = v;
		g->cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (n && ndeps)
		n->deps = malloc(ndeps * sizeof(*n->deps));
	if (!n || (ndeps && !n->deps)) {
		free(n);
		rt_fail(cudaErrorMemoryAllocation);
		return NULL;
	}
	for (i = 0; i < ndeps; i++)
		n->deps[i] = deps[i]->index;
	n->ndeps = (int)ndeps;
	n->graph = g;
	n->kind = kind;
	n->index = g->n;
	g->nodes[g->n++] = n;
	return n;
}

/* Undo the last node_add of g (its parameters were refused). */
static void node_drop_last(cudaGraph_t g)
{
	struct CUgraphNode_st *n = g->nodes[--g->n];

	free(n->deps);
	free(n);
}

static void node_release(struct CUgraphNode_st *n)
{
	if (n->kind == N_KERNEL)
		kernel_free(&n->u.k);
	else if (n->kind == N_CHILD)
		cudaGraphDestroy(n->u.child);
	free(n->deps);
}

/* ---- graphs ---- */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
	if (!pGraph || flags)
		return rt_fail(cudaErrorInvalidValue);
	*pGraph = calloc(1, sizeof(**pGraph));
	return *pGraph ? cudaSuccess : rt_fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	int i;

	if (!graph)
		return rt_fail(cudaErrorInvalidValue);
	for (i = 0; i < graph->n; i++) {
		node_release(graph->nodes[i]);
		free(graph->nodes[i]);
	}
	free(graph->nodes);
	free(graph);
	return cudaSuccess;
}

static cudaError_t node_copy(struct CUgraphNode_st *d,
			     const struct CUgraphNode_st *s)
{
	const struct kernel_node *k = &s->u.k;

	d->kind = s->kind;
	d->u = s->u;
	if (s->kind == N_KERNEL) {
		memset(&d->u.k, 0, sizeof(d->u.k));
		d->u.k.func = k->func;
		d->u.k.grid = k->grid;
		d->u.k.block = k->block;
		d->u.k.smem = k->smem;
		return kernel_set_args(&d->u.k, k->argv);
	}
	if (s->kind == N_CHILD)
		return cudaGraphClone(&d->u.child, s->u.child);
	return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone,
			   cudaGraph_t originalGraph)
{
	cudaGraph_t g = NULL;
	cudaError_t e;
	int i;

	if (!pGraphClone || !originalGraph)
		return rt_fail(cudaErrorInvalidValue);
	e = cudaGraphCreate(&g, 0);
	for (i = 0; !e && i < originalGraph->n; i++) {
		const struct CUgraphNode_st *s = originalGraph->nodes[i];
		struct CUgraphNode_st *n = node_add(g, N_EMPTY, NULL, 0);

		if (!n) {
			e = cudaErrorMemoryAllocation;
			break;
		}
		n->deps = s->ndeps ? malloc((size_t)s->ndeps *
					    sizeof(*n->deps)) : NULL;
		if (s->ndeps && !n->deps) {
			e = rt_fail(cudaErrorMemoryAllocation);
			break;
		}
		if (s->ndeps)
			memcpy(n->deps, s->deps, (size_t)s->ndeps *
			       sizeof(*n->deps));
		n->ndeps = s->ndeps;
		e = node_copy(n, s);
		if (e)
			n->kind = N_EMPTY;
	}
	if (e) {
		if (g)
			cudaGraphDestroy(g);
		return e;
	}
	*pGraphClone = g;
	return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
			      size_t *numNodes)
{
	size_t i;

	if (!graph || !numNodes)
		return rt_fail(cudaErrorInvalidValue);
	if (!nodes) {
		*numNodes = (size_t)graph->n;
		return cudaSuccess;
	}
	for (i = 0; i < *numNodes && i < (size_t)graph->n; i++)
		nodes[i] = graph->nodes[i];
	*numNodes = i;
	return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph,
				  cudaGraphNode_t *pRootNodes,
				  size_t *pNumRootNodes)
{
	size_t k = 0;
	int i;

	if (!graph || !pNumRootNodes)
		return rt_fail(cudaErrorInvalidValue);
	for (i = 0; i < graph->n; i++) {
		if (graph->nodes[i]->ndeps)
			continue;
		if (pRootNodes && k < *pNumRootNodes)
			pRootNodes[k] = graph->nodes[i];
		k++;
	}
	if (pRootNodes && k > *pNumRootNodes)
		k = *pNumRootNodes;
	*pNumRootNodes = k;
	return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
				 enum cudaGraphNodeType *pType)
{
	static const enum cudaGraphNodeType type[] = {
		[N_KERNEL] = cudaGraphNodeTypeKernel,
		[N_MEMCPY] = cudaGraphNodeTypeMemcpy,
		[N_MEMCPY1D] = cudaGraphNodeTypeMemcpy,
		[N_MEMSET] = cudaGraphNodeTypeMemset,
		[N_HOST] = cudaGraphNodeTypeHost,
		[N_EMPTY] = cudaGraphNodeTypeEmpty,
		[N_ALLOC] = cudaGraphNodeTypeMemAlloc,
		[N_FREE] = cudaGraphNodeTypeMemFree,
		[N_CHILD] = cudaGraphNodeTypeGraph,
	};

	if (!node || !pType)
		return rt_fail(cudaErrorInvalidValue);
	*pType = type[node->kind];
	return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph,
				     const cudaGraphNode_t *from,
				     const cudaGraphNode_t *to,
				     const cudaGraphEdgeData *edgeData,
				     size_t numDependencies)
{
	size_t i;

	(void)edgeData;
	if (!graph || (numDependencies && (!from || !to)))
		return rt_fail(cudaErrorInvalidValue);
	for (i = 0; i < numDependencies; i++) {
		struct CUgraphNode_st *t = to[i];
		int *v;

		if (!from[i] || !t || from[i]->graph != graph ||
		    t->graph != graph)
			return rt_fail(cudaErrorInvalidValue);
		v = realloc(t->deps, (size_t)(t->ndeps + 1) * sizeof(*v));
		if (!v)
			return rt_fail(cudaErrorMemoryAllocation);
		t->deps = v;
		t->deps[t->ndeps++] = from[i]->index;
	}
	return cudaSuccess;
}

/* ---- adding nodes ---- */
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode,
				   cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies,
				   size_t numDependencies,
				   const struct cudaKernelNodeParams *p)
{
	struct CUgraphNode_st *n;
	cudaError_t e;

	if (!pGraphNode)
		return rt_fail(cudaErrorInvalidValue);
	n = node_add(graph, N_KERNEL, pDependencies, numDependencies);
	if (!n)
		return cudaErrorInvalidValue;
	e = kernel_set(&n->u.k, p);
	if (e) {
		node_drop_last(graph);
		return e;
	}
	*pGraphNode = n;
	return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
					 struct cudaKernelNodeParams *p)
{
	if (!node || !p || node->kind != N_KERNEL)
		return rt_fail(cudaErrorInvalidValue);
	memset(p, 0, sizeof(*p));
	p->func = (void *)node->u.k.func;
	p->gridDim = node->u.k.grid;
	p->blockDim = node->u.k.block;
	p->sharedMemBytes = (unsigned)node->u.k.smem;
	p->kernelParams = node->u.k.argv;
	return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
					 const struct cudaKernelNodeParams *p)
{
	if (!node || node->kind != N_KERNEL)
		return rt_fail(cudaErrorInvalidValue);
	return kernel_set(&node->u.k, p);
}

/* The nodes whose parameters are plain values: copy them in. */
static cudaError_t add_plain(cudaGraphNode_t *out, cudaGraph_t g,
			     const cudaGraphNode_t *deps, size_t ndeps,
			     enum node_kind kind, const void *p, size_t size)
{
	struct CUgraphNode_st *n;

	if (!out || (size && !p))
		return rt_fail(cudaErrorInvalidValue);
	n = node_add(g, kind, deps, ndeps);
	if (!n)
		return cudaErrorInvalidValue;
	if (size)
		memcpy(&n->u, p, size);
	*out = n;
	return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode,
				   cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies,
				   size_t numDependencies,
				   const struct cudaMemcpy3DParms *p)
{
	return add_plain(pGraphNode, graph, pDependencies, numDependencies,
			 N_MEMCPY, p, sizeof(*p));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode,
				     cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies,
				     size_t numDependencies, void *dst,
				     const void *src, size_t count,
				     enum cudaMemcpyKind kind)
{
	struct copy1d c = { dst, src, count, kind };

	return add_plain(pGraphNode, graph, pDependencies, numDependencies,
			 N_MEMCPY1D, &c, sizeof(c));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode,
				   cudaGraph_t graph,
				   const cudaGraphNode_t *pDependencies,
				   size_t numDependencies,
				   const struct cudaMemsetParams *p)
{
	if (p && p->elementSize != 1 && p->elementSize != 2 &&
	    p->elementSize != 4)
		return rt_fail(cudaErrorInvalidValue);
	return add_plain(pGraphNode, graph, pDependencies, numDependencies,
			 N_MEMSET, p, sizeof(*p));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode,
				 cudaGraph_t graph,
				 const cudaGraphNode_t *pDependencies,
				 size_t numDependencies,
				 const struct cudaHostNodeParams *p)
{
	if (p && !p->fn)
		return rt_fail(cudaErrorInvalidValue);
	return add_plain(pGraphNode, graph, pDependencies, numDependencies,
			 N_HOST, p, sizeof(*p));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode,
				  cudaGraph_t graph,
				  const cudaGraphNode_t *pDependencies,
				  size_t numDependencies)
{
	return add_plain(pGraphNode, graph, pDependencies, numDependencies,
			 N_EMPTY, NULL, 0);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode,
				       cudaGraph_t graph,
				       const cudaGraphNode_t *pDependencies,
				       size_t numDependencies,
				       cudaGraph_t childGraph)
{
	cudaGraph_t c = NULL;
	cudaError_t e;

	if (!childGraph)
		return rt_fail(cudaErrorInvalidValue);
	e = cudaGraphClone(&c, childGraph);
	if (!e)
		e = add_plain(pGraphNode, graph, pDependencies,
			      numDependencies, N_CHILD, &c, sizeof(c));
	if (e && c)
		cudaGraphDestroy(c);
	return e;
}

/* An address for a graph allocation: one the emulator will never give
 * to another allocation (addresses are not reused). */
static void *reserve(size_t size)
{
	void *p = NULL;

	if (cudaMalloc(&p, size ? size : 1))
		return NULL;
	cudaFree(p);
	return p;
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode,
				     cudaGraph_t graph,
				     const cudaGraphNode_t *pDependencies,
				     size_t numDependencies,
				     struct cudaMemAllocNodeParams *p)
{
	struct graph_mem m;
	cudaError_t e;

	if (!p || !p->bytesize)
		return rt_fail(cudaErrorInvalidValue);
	m.size = p->bytesize;
	m.dptr = reserve(p->bytesize);
	if (!m.dptr)
		return rt_fail(cudaErrorMemoryAllocation);
	e = add_plain(pGraphNode, graph, pDependencies, numDependencies,
		      N_ALLOC, &m, sizeof(m));
	if (!e)
		p->dptr = m.dptr;
	return e;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode,
				    cudaGraph_t graph,
				    const cudaGraphNode_t *pDependencies,
				    size_t numDependencies, void *dptr)
{
	struct graph_mem m = { dptr, 0 };

	if (!dptr)
		return rt_fail(cudaErrorInvalidValue);
	return add_plain(pGraphNode, graph, pDependencies, numDependencies,
			 N_FREE, &m, sizeof(m));
}

/* ---- running ---- */
static cudaError_t graph_run(cudaGraph_t g);

/* A memset node.  Bytes, or 2- and 4-byte values whose bytes are alike
 * (a zero, most often), go through cudaMemset2D, which a launch record
 * and a prediction see; other values are written element by element,
 * which a record cannot describe: its replay says so. */
static cudaError_t run_memset(const struct cudaMemsetParams *p)
{
	size_t r, i, row = p->width * p->elementSize;
	unsigned byte = p->value & 0xff, alike = 1;
	uint8_t *d;

	for (i = 1; i < p->elementSize && i < 4; i++)
		alike &= (p->value >> (8 * i) & 0xff) == byte;
	if (alike)
		return cudaMemset2D(p->dst, p->pitch ? p->pitch : row,
				    (int)byte, row, p->height);
	if (emu_trace_on()) {
		struct emu_trace_op op;

		memset(&op, 0, sizeof(op));
		op.kind = TR_UNTRACED;
		op.name = "cudaGraphLaunch with a memset node of a 2- or "
			  "4-byte value whose bytes differ";
		emu_trace_put(&op);
	}
	for (r = 0; r < p->height; r++) {
		emu_rt_lock();
		d = wgemu_host_ptr((uint64_t)(uintptr_t)p->dst + r * p->pitch,
				   row);
		for (i = 0; d && i < p->width; i++)
			memcpy(d + i * p->elementSize, &p->value,
			       p->elementSize);
		emu_rt_unlock();
		if (!d)
			return rt_fail(cudaErrorInvalidValue);
	}
	return sticky_or(cudaSuccess);
}

static cudaError_t run_alloc(void *dptr, size_t size)
{
	uint64_t a = (uint64_t)(uintptr_t)dptr;
	cudaError_t e = cudaSuccess;

	emu_rt_lock();
	if (!emu_mem_find(a, 1)) {
		if (emu_mem_alloc_at(a, size, emu_rt_lazy())) {
			g_mem_now += size;
			if (g_mem_now > g_mem_high)
				g_mem_high = g_mem_now;
		} else {
			e = rt_fail(cudaErrorMemoryAllocation);
		}
	}
	emu_rt_unlock();
	return e;
}

static cudaError_t run_free(void *dptr)
{
	struct emu_alloc *a;
	uint64_t size = 0;

	emu_rt_lock();
	a = emu_mem_find((uint64_t)(uintptr_t)dptr, 1);
	if (a)
		size = a->size;
	emu_rt_unlock();
	g_mem_now -= size < g_mem_now ? size : g_mem_now;
	return cudaFree(dptr);
}

static cudaError_t node_run(const struct CUgraphNode_st *n)
{
	const struct kernel_node *k = &n->u.k;
	const struct copy1d *c = &n->u.c1;

	switch (n->kind) {
	case N_KERNEL:
		return cudaLaunchKernel(k->func, k->grid, k->block, k->argv,
					k->smem, 0);
	case N_MEMCPY:
		return cudaMemcpy3D(&n->u.cp);
	case N_MEMCPY1D:
		return cudaMemcpy(c->dst, c->src, c->count, c->kind);
	case N_MEMSET:
		return run_memset(&n->u.ms);
	case N_HOST:
		n->u.host.fn(n->u.host.userData);
		return sticky_or(cudaSuccess);
	case N_ALLOC:
		return run_alloc(n->u.mem.dptr, n->u.mem.size);
	case N_FREE:
		return run_free(n->u.mem.dptr);
	case N_CHILD:
		return graph_run(n->u.child);
	case N_EMPTY:
		break;
	}
	return sticky_or(cudaSuccess);
}

/* Run the nodes of g in a topological order, the earliest-added ready
 * node first; a cycle (cudaGraphAddDependencies can make one) is
 * cudaErrorInvalidValue. */
static cudaError_t graph_run(cudaGraph_t g)
{
	char *done = calloc((size_t)g->n + 1, 1);
	cudaError_t e = cudaSuccess;
	int left = g->n, i, j;

	if (!done)
		return rt_fail(cudaErrorMemoryAllocation);
	while (left && !e) {
		for (i = 0; i < g->n; i++) {
			const struct CUgraphNode_st *n = g->nodes[i];

			for (j = 0; j < n->ndeps && done[n->deps[j]]; j++)
				;
			if (!done[i] && j == n->ndeps)
				break;
		}
		if (i == g->n) {
			e = rt_fail(cudaErrorInvalidValue);
			break;
		}
		e = node_run(g->nodes[i]);
		done[i] = 1;
		left--;
	}
	free(done);
	return e;
}

/* ---- executable graphs ---- */
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
				 cudaGraph_t graph, unsigned long long flags)
{
	struct CUgraphExec_st *x;
	cudaError_t e;

	(void)flags;
	if (!pGraphExec || !graph)
		return rt_fail(cudaErrorInvalidValue);
	x = calloc(1, sizeof(*x));
	if (!x)
		return rt_fail(cudaErrorMemoryAllocation);
	e = cudaGraphClone(&x->g, graph);
	if (e) {
		free(x);
		return e;
	}
	*pGraphExec = x;
	return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
					  cudaGraph_t graph,
					  unsigned long long flags)
{
	return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
	if (!graphExec)
		return rt_fail(cudaErrorInvalidValue);
	cudaGraphDestroy(graphExec->g);
	free(graphExec);
	return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	(void)stream;
	if (!graphExec)
		return rt_fail(cudaErrorInvalidValue);
	return sticky_or(cudaSuccess);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
	if (!graphExec)
		return rt_fail(cudaErrorInvalidValue);
	if (emu_rt_sticky())
		return (cudaError_t)emu_rt_sticky();
	if (emu_stream_capture(stream)) {
		cudaGraphNode_t n;
		cudaGraph_t g = emu_stream_capture(stream);
		cudaGraphNode_t last = g->n ? g->nodes[g->n - 1] : NULL;

		return cudaGraphAddChildGraphNode(&n, g, last ? &last : NULL,
						  last ? 1 : 0, graphExec->g);
	}
	return graph_run(graphExec->g);
}

/* The node of x that node (of the graph x was made from) became. */
static struct CUgraphNode_st *exec_node(cudaGraphExec_t x,
					cudaGraphNode_t node)
{
	if (!x || !node || node->index >= x->g->n ||
	    x->g->nodes[node->index]->kind != node->kind)
		return NULL;
	return x->g->nodes[node->index];
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
					     cudaGraphNode_t node,
					     const struct cudaKernelNodeParams
					     *p)
{
	struct CUgraphNode_st *n = exec_node(hGraphExec, node);

	if (!n || n->kind != N_KERNEL)
		return rt_fail(cudaErrorInvalidValue);
	return kernel_set(&n->u.k, p);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
					     cudaGraphNode_t node,
					     const struct cudaMemcpy3DParms
					     *p)
{
	struct CUgraphNode_st *n = exec_node(hGraphExec, node);

	if (!n || n->kind != N_MEMCPY || !p)
		return rt_fail(cudaErrorInvalidValue);
	n->u.cp = *p;
	return cudaSuccess;
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
					     cudaGraphNode_t node,
					     const struct cudaMemsetParams *p)
{
	struct CUgraphNode_st *n = exec_node(hGraphExec, node);

	if (!n || n->kind != N_MEMSET || !p)
		return rt_fail(cudaErrorInvalidValue);
	n->u.ms = *p;
	return cudaSuccess;
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec,
					   cudaGraphNode_t node,
					   const struct cudaHostNodeParams *p)
{
	struct CUgraphNode_st *n = exec_node(hGraphExec, node);

	if (!n || n->kind != N_HOST || !p || !p->fn)
		return rt_fail(cudaErrorInvalidValue);
	n->u.host = *p;
	return cudaSuccess;
}

/* Same nodes, same kinds, same edges: take hGraph's parameters. */
static int same_topology(cudaGraph_t a, cudaGraph_t b)
{
	int i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct CUgraphNode_st *x = a->nodes[i], *y = b->nodes[i];

		if (x->kind != y->kind || x->ndeps != y->ndeps ||
		    (x->ndeps && memcmp(x->deps, y->deps, (size_t)x->ndeps *
					sizeof(*x->deps))))
			return 0;
	}
	return 1;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec,
				cudaGraph_t hGraph,
				cudaGraphExecUpdateResultInfo *resultInfo)
{
	cudaGraph_t c;
	cudaError_t e;

	if (!hGraphExec || !hGraph)
		return rt_fail(cudaErrorInvalidValue);
	if (resultInfo)
		memset(resultInfo, 0, sizeof(*resultInfo));
	if (!same_topology(hGraphExec->g, hGraph)) {
		if (resultInfo)
			resultInfo->result =
				cudaGraphExecUpdateErrorTopologyChanged;
		return rt_fail(cudaErrorGraphExecUpdateFailure);
	}
	e = cudaGraphClone(&c, hGraph);
	if (e)
		return e;
	cudaGraphDestroy(hGraphExec->g);
	hGraphExec->g = c;
	if (resultInfo)
		resultInfo->result = cudaGraphExecUpdateSuccess;
	return cudaSuccess;
}

/* ---- graph memory ---- */
cudaError_t cudaDeviceGraphMemTrim(int device)
{
	if (device)
		return rt_fail(cudaErrorInvalidDevice);
	return sticky_or(cudaSuccess);
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device,
					   enum cudaGraphMemAttributeType
					   attr, void *value)
{
	uint64_t v;

	if (device || !value)
		return rt_fail(cudaErrorInvalidValue);
	switch (attr) {
	case cudaGraphMemAttrUsedMemCurrent:
	case cudaGraphMemAttrReservedMemCurrent:
		v = g_mem_now;
		break;
	case cudaGraphMemAttrUsedMemHigh:
	case cudaGraphMemAttrReservedMemHigh:
		v = g_mem_high;
		break;
	default:
		return rt_fail(cudaErrorInvalidValue);
	}
	memcpy(value, &v, sizeof(v));
	return cudaSuccess;
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device,
					   enum cudaGraphMemAttributeType
					   attr, void *value)
{
	if (device || !value || (attr != cudaGraphMemAttrUsedMemHigh &&
				 attr != cudaGraphMemAttrReservedMemHigh))
		return rt_fail(cudaErrorInvalidValue);
	g_mem_high = g_mem_now;    /* only a reset to 0 is allowed */
	return cudaSuccess;
}

/* ---- stream capture: each node after the one captured before ---- */
static cudaError_t capture_add(cudaStream_t s, enum node_kind kind,
			       const void *p, size_t size,
			       struct CUgraphNode_st **out)
{
	cudaGraph_t g = emu_stream_capture(s);
	cudaGraphNode_t last = g->n ? g->nodes[g->n - 1] : NULL, n = NULL;
	cudaError_t e;

	e = add_plain(&n, g, last ? &last : NULL, last ? 1 : 0, kind, p,
		      size);
	if (!e && out)
		*out = n;
	return e;
}

cudaError_t emu_capture_kernel(cudaStream_t s, const void *func, dim3 grid,
			       dim3 block, void **args, size_t smem)
{
	struct CUgraphNode_st *n;
	cudaGraph_t g = emu_stream_capture(s);
	cudaError_t e = capture_add(s, N_KERNEL, NULL, 0, &n);

	if (e)
		return e;
	n->u.k.func = func;
	n->u.k.grid = grid;
	n->u.k.block = block;
	n->u.k.smem = smem;
	e = kernel_set_args(&n->u.k, args);
	if (e)
		node_drop_last(g);
	return e;
}

cudaError_t emu_capture_memcpy(cudaStream_t s, void *dst, const void *src,
			       size_t count, enum cudaMemcpyKind kind)
{
	struct copy1d c = { dst, src, count, kind };

	return capture_add(s, N_MEMCPY1D, &c, sizeof(c), NULL);
}

cudaError_t emu_capture_memcpy3d(cudaStream_t s,
				 const struct cudaMemcpy3DParms *p)
{
	if (!p)
		return rt_fail(cudaErrorInvalidValue);
	return capture_add(s, N_MEMCPY, p, sizeof(*p), NULL);
}

cudaError_t emu_capture_memset(cudaStream_t s, void *dst, int value,
			       size_t count)
{
	struct cudaMemsetParams m;

	memset(&m, 0, sizeof(m));
	m.dst = dst;
	m.value = (unsigned)value & 0xff;
	m.elementSize = 1;
	m.width = count;
	m.height = 1;
	m.pitch = count;
	return capture_add(s, N_MEMSET, &m, sizeof(m), NULL);
}

cudaError_t emu_capture_host(cudaStream_t s, cudaHostFn_t fn, void *data)
{
	struct cudaHostNodeParams h = { fn, data };

	return capture_add(s, N_HOST, &h, sizeof(h), NULL);
}

cudaError_t emu_capture_malloc(cudaStream_t s, void **p, size_t size)
{
	struct graph_mem m = { NULL, size };
	cudaError_t e;

	if (!p || !size)
		return rt_fail(cudaErrorInvalidValue);
	m.dptr = reserve(size);
	if (!m.dptr)
		return rt_fail(cudaErrorMemoryAllocation);
	e = capture_add(s, N_ALLOC, &m, sizeof(m), NULL);
	if (!e)
		*p = m.dptr;
	return e;
}

cudaError_t emu_capture_free(cudaStream_t s, void *p)
{
	struct graph_mem m = { p, 0 };

	if (!p)
		return rt_fail(cudaErrorInvalidValue);
	return capture_add(s, N_FREE, &m, sizeof(m), NULL);
}
