/*
 * A graph launched while a record is open (gpurec.h): a GPU runs its
 * nodes without passing through the wrapped calls, so the recorder
 * writes them itself, from the graph's description, in an order its
 * dependencies allow -- each kernel as a launch, each memset and copy
 * row by row, child graphs in place.  Nodes a record cannot describe (a
 * host function, memory allocated in the graph, a copy to or from a
 * CUDA array) are written as untraced.
 */
#include "gpurec.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NODES 1024
#define MAX_DEPTH 8

static void walk(cudaGraph_t g, int depth);

static void kernel_node(cudaGraphNode_t node)
{
	struct cudaKernelNodeParams p;
	cudaLaunchAttributeValue v;
	int coop = 0;

	if (cudaGraphKernelNodeGetParams(node, &p) != cudaSuccess ||
	    p.extra) {
		gpurec_untraced("a graph kernel node whose parameters are "
				"not a list of arguments");
		return;
	}
	memset(&v, 0, sizeof(v));
	if (cudaGraphKernelNodeGetAttribute(node,
		cudaLaunchAttributeCooperative, &v) == cudaSuccess)
		coop = v.cooperative != 0;
	gpurec_launch(p.func, p.gridDim, p.blockDim, p.kernelParams,
		      p.sharedMemBytes, coop);
}

static void memset_node(cudaGraphNode_t node)
{
	struct cudaMemsetParams m;
	unsigned char b;

	if (cudaGraphMemsetNodeGetParams(node, &m) != cudaSuccess)
		return;
	b = (unsigned char)m.value;
	/* a record's memset sets bytes: a wider value must be one byte
	 * repeated */
	if ((m.elementSize >= 2 && (m.value >> 8 & 0xff) != b) ||
	    (m.elementSize == 4 && (m.value >> 16 != (m.value & 0xffff)))) {
		gpurec_untraced("a graph memset of 2- or 4-byte values");
		return;
	}
	for (size_t y = 0; y < (m.height ? m.height : 1); y++)
		gpurec_memset((char *)m.dst + y * m.pitch, b,
			      m.width * m.elementSize);
}

static void copy_node(cudaGraphNode_t node)
{
	struct cudaMemcpy3DParms c;
	const struct cudaPitchedPtr *s, *d;
	size_t h, depth;

	if (cudaGraphMemcpyNodeGetParams(node, &c) != cudaSuccess)
		return;
	if (c.srcArray || c.dstArray) {
		gpurec_untraced("a graph copy to or from a CUDA array");
		return;
	}
	s = &c.srcPtr;
	d = &c.dstPtr;
	h = c.extent.height ? c.extent.height : 1;
	depth = c.extent.depth ? c.extent.depth : 1;
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < h; y++) {
			size_t so = ((z + c.srcPos.z) * s->ysize + y +
				     c.srcPos.y) * s->pitch + c.srcPos.x;
			size_t dof = ((z + c.dstPos.z) * d->ysize + y +
				      c.dstPos.y) * d->pitch + c.dstPos.x;

			gpurec_copy(c.kind, (char *)d->ptr + dof,
				    (const char *)s->ptr + so,
				    c.extent.width);
		}
}

static void node_ops(cudaGraphNode_t node, int depth)
{
	enum cudaGraphNodeType t;
	cudaGraph_t child;

	if (cudaGraphNodeGetType(node, &t) != cudaSuccess)
		return;
	switch (t) {
	case cudaGraphNodeTypeKernel:
		kernel_node(node);
		break;
	case cudaGraphNodeTypeMemset:
		memset_node(node);
		break;
	case cudaGraphNodeTypeMemcpy:
		copy_node(node);
		break;
	case cudaGraphNodeTypeGraph:
		if (cudaGraphChildGraphNodeGetGraph(node, &child) ==
		    cudaSuccess)
			walk(child, depth + 1);
		break;
	case cudaGraphNodeTypeEmpty:
	case cudaGraphNodeTypeWaitEvent:
	case cudaGraphNodeTypeEventRecord:
		break;
	case cudaGraphNodeTypeHost:
		gpurec_untraced("a host function in a graph");
		break;
	default:
		gpurec_untraced("a graph node of a kind a record cannot "
				"describe");
		break;
	}
}

/* Is every node node i depends on done? */
static int ready(cudaGraphNode_t node, cudaGraphNode_t *all, size_t n,
		 const unsigned char *done)
{
	cudaGraphNode_t deps[64];
	size_t k = 64;

	if (cudaGraphNodeGetDependencies(node, deps, NULL, &k) !=
	    cudaSuccess || k > 64)
		return 1; /* unknown: in creation order */
	for (size_t j = 0; j < k; j++)
		for (size_t i = 0; i < n; i++)
			if (all[i] == deps[j] && !done[i])
				return 0;
	return 1;
}

static void walk(cudaGraph_t g, int depth)
{
	cudaGraphNode_t *nodes = NULL;
	unsigned char *done = NULL;
	size_t n = 0, left;

	if (depth > MAX_DEPTH || cudaGraphGetNodes(g, NULL, &n) !=
	    cudaSuccess || n > MAX_NODES) {
		gpurec_untraced("a graph too deep or too large to record");
		return;
	}
	nodes = calloc(n ? n : 1, sizeof(*nodes));
	done = calloc(n ? n : 1, 1);
	if (!nodes || !done || cudaGraphGetNodes(g, nodes, &n) !=
	    cudaSuccess) {
		gpurec_untraced("a graph the runtime did not describe");
		goto out;
	}
	/* Kahn's order, the lowest ready node first; a cycle cannot be
	 * instantiated, so some node is always ready */
	for (left = n; left; left--) {
		size_t i;

		for (i = 0; i < n; i++)
			if (!done[i] && ready(nodes[i], nodes, n, done))
				break;
		if (i == n)
			break;
		node_ops(nodes[i], depth);
		done[i] = 1;
	}
out:
	free(nodes);
	free(done);
}

void gpurec_graph(cudaGraph_t g)
{
	if (!gpurec_on())
		return;
	if (!g) {
		gpurec_untraced("a graph instantiated where the recorder "
				"did not see it");
		return;
	}
	walk(g, 0);
}
