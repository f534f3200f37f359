/*
 * Launch observation by link-time wrapping (see launches.h).  nvcc 13's
 * host stubs launch through __cudaLaunchKernel (or its _ptsz twin for
 * per-thread default streams); programs may also call cudaLaunchKernel.
 * The wrappers for cudaLaunchKernelExC and cudaLaunchCooperativeKernel,
 * and the description of a graph's kernels on a GPU, live in
 * launches_ext.c, linked only against NVIDIA's runtime.
 *
 * Whether a launch is on the given stream is decided when the call
 * ends, by stream order: a launch on another stream counts as on it
 * when an event recorded on that stream after the launch is waited
 * for, directly or through other streams, by the given stream
 * (cudaEventRecord, cudaStreamWaitEvent).  A launch into a stream that
 * is being captured is a node of a graph, not a launch; a graph
 * launched on a stream launches its kernels on that stream.
 */
#include "launches.h"

#include <string.h>

#include "crashlog.h"
#include "gpurec.h"

/* the GPU's recorder, linked into a GPU's runner only (gpurec.h) */
#pragma weak gpurec_launch
#pragma weak gpurec_launch_handle
#pragma weak gpurec_graph

/* steps of one call, in order, for the stream-order rule */
#define MAX_STEPS 4096
#define MAX_STREAMS 64
#define MAX_GRAPHS 256

enum step_kind { STEP_LAUNCH, STEP_RECORD, STEP_WAIT };

struct step {
	enum step_kind kind;
	cudaStream_t s;
	cudaEvent_t e;
	uint32_t launch;     /* STEP_LAUNCH: its index in current */
};

static int recording;
static cudaStream_t given_stream;
static struct proto_launches current;
static struct step steps[MAX_STEPS];
static size_t nsteps;
static int steps_lost;      /* more steps than kept: the plain rule */
static int graph_depth;     /* inside cudaGraphLaunch */
static cudaStream_t graph_stream;
static struct {
	cudaGraphExec_t exec;
	cudaGraph_t graph;
} graphs[MAX_GRAPHS];
static size_t ngraphs;

void launches_begin(cudaStream_t given)
{
	memset(&current, 0, sizeof(current));
	given_stream = given;
	nsteps = 0;
	steps_lost = 0;
	recording = 1;
}

static void add_step(enum step_kind kind, cudaStream_t s, cudaEvent_t e,
		     uint32_t launch)
{
	if (nsteps == MAX_STEPS) {
		steps_lost = 1;
		return;
	}
	steps[nsteps].kind = kind;
	steps[nsteps].s = s;
	steps[nsteps].e = e;
	steps[nsteps].launch = launch;
	nsteps++;
}

/* The index of stream s among ids (added when new); -1 when full. */
static int stream_id(cudaStream_t *ids, size_t *n, cudaStream_t s)
{
	for (size_t i = 0; i < *n; i++)
		if (ids[i] == s)
			return (int)i;
	if (*n == MAX_STREAMS)
		return -1;
	ids[*n] = s;
	return (int)(*n)++;
}

/*
 * The stream-order rule: horizon[X] is how many of the call's steps on
 * stream X come before the given stream's end.  The given stream's own
 * are all; a wait of a stream S (before S's horizon) on an event last
 * recorded on X at step j brings X's horizon to j; repeated until
 * nothing moves.
 */
static void order_by_events(void)
{
	cudaStream_t ids[MAX_STREAMS];
	size_t nids = 0, horizon[MAX_STREAMS];
	int moved = 1;

	memset(horizon, 0, sizeof(horizon));
	if (stream_id(ids, &nids, given_stream) < 0)
		return;
	horizon[0] = nsteps;
	while (moved) {
		moved = 0;
		for (size_t i = 0; i < nsteps; i++) {
			int w = stream_id(ids, &nids, steps[i].s), x;
			size_t j = i;

			if (w < 0 || steps[i].kind != STEP_WAIT ||
			    i >= horizon[w])
				continue;
			while (j-- > 0)
				if (steps[j].kind == STEP_RECORD &&
				    steps[j].e == steps[i].e)
					break;
			if (j == (size_t)-1)
				continue;
			x = stream_id(ids, &nids, steps[j].s);
			if (x >= 0 && horizon[x] < j) {
				horizon[x] = j;
				moved = 1;
			}
		}
	}
	for (size_t i = 0; i < nsteps; i++) {
		int x = stream_id(ids, &nids, steps[i].s);

		if (steps[i].kind == STEP_LAUNCH && x >= 0 &&
		    steps[i].launch < current.count)
			current.launch[steps[i].launch].on_given_stream =
				i < horizon[x];
	}
}

void launches_end(struct proto_launches *out)
{
	recording = 0;
	if (!steps_lost)
		order_by_events();
	*out = current;
}

int launches_capturing(cudaStream_t s)
{
	enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;

	if (cudaStreamIsCapturing(s, &st) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return st == cudaStreamCaptureStatusActive;
}

void launches_note(dim3 grid, dim3 block, size_t smem, cudaStream_t s)
{
	struct proto_launch *l;

	if (!recording)
		return;
	if (graph_depth)
		s = graph_stream;
	else if (launches_capturing(s))
		return;
	current.total++;
	if (current.count >= PROTO_MAX_LAUNCHES)
		return;
	add_step(STEP_LAUNCH, s, NULL, current.count);
	l = &current.launch[current.count++];
	l->grid[0] = grid.x;
	l->grid[1] = grid.y;
	l->grid[2] = grid.z;
	l->block[0] = block.x;
	l->block[1] = block.y;
	l->block[2] = block.z;
	l->dynamic_shared_bytes = smem;
	l->on_given_stream = s == given_stream;
}

/* A launch the runtime refused: where it was asked for (crashlog.h). */
cudaError_t launches_result(cudaError_t err)
{
	if (err != cudaSuccess)
		crashlog_launch_refused(cudaGetErrorName(err));
	return err;
}

cudaGraph_t launches_graph_of(cudaGraphExec_t e)
{
	for (size_t i = 0; i < ngraphs; i++)
		if (graphs[i].exec == e)
			return graphs[i].graph;
	return NULL;
}

static void keep_graph(cudaGraphExec_t e, cudaGraph_t g)
{
	for (size_t i = 0; i < ngraphs; i++)
		if (graphs[i].exec == e) {
			graphs[i].graph = g;
			return;
		}
	if (ngraphs < MAX_GRAPHS) {
		graphs[ngraphs].exec = e;
		graphs[ngraphs++].graph = g;
	}
}

cudaError_t __real___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **,
				      size_t, cudaStream_t);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void **,
					   size_t, cudaStream_t);
cudaError_t __real_cudaLaunchKernel(const void *, dim3, dim3, void **,
				    size_t, cudaStream_t);
cudaError_t __real_cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t __real_cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t,
					    unsigned int);
cudaError_t __real_cudaStreamWaitEvent(cudaStream_t, cudaEvent_t,
				       unsigned int);
cudaError_t __real_cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t __real_cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t,
					unsigned long long);
cudaError_t __real_cudaGraphInstantiateWithFlags(cudaGraphExec_t *,
						 cudaGraph_t,
						 unsigned long long);
cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **,
				      size_t, cudaStream_t);
cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void **,
					   size_t, cudaStream_t);
cudaError_t __wrap_cudaLaunchKernel(const void *, dim3, dim3, void **,
				    size_t, cudaStream_t);
cudaError_t __wrap_cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t __wrap_cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t,
					    unsigned int);
cudaError_t __wrap_cudaStreamWaitEvent(cudaStream_t, cudaEvent_t,
				       unsigned int);
cudaError_t __wrap_cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t __wrap_cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t,
					unsigned long long);
cudaError_t __wrap_cudaGraphInstantiateWithFlags(cudaGraphExec_t *,
						 cudaGraph_t,
						 unsigned long long);

/* A launch the GPU's recorder must write: it ran, and not into a
 * graph being captured (a graph's kernels are written when it is
 * launched). */
static int to_record(cudaError_t err, cudaStream_t s)
{
	return err == cudaSuccess && !graph_depth && !launches_capturing(s);
}

cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b,
				      void **args, size_t smem,
				      cudaStream_t s)
{
	cudaError_t err;

	launches_note(g, b, smem, s);
	err = __real___cudaLaunchKernel(k, g, b, args, smem, s);
	if (gpurec_launch_handle && to_record(err, s))
		gpurec_launch_handle(k, g, b, args, smem);
	return launches_result(err);
}

cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b,
					   void **args, size_t smem,
					   cudaStream_t s)
{
	cudaError_t err;

	launches_note(g, b, smem, s);
	err = __real___cudaLaunchKernel_ptsz(k, g, b, args, smem, s);
	if (gpurec_launch_handle && to_record(err, s))
		gpurec_launch_handle(k, g, b, args, smem);
	return launches_result(err);
}

cudaError_t __wrap_cudaLaunchKernel(const void *f, dim3 g, dim3 b,
				    void **args, size_t smem, cudaStream_t s)
{
	cudaError_t err;

	launches_note(g, b, smem, s);
	err = __real_cudaLaunchKernel(f, g, b, args, smem, s);
	if (gpurec_launch && to_record(err, s))
		gpurec_launch(f, g, b, args, smem, 0);
	return launches_result(err);
}

cudaError_t __wrap_cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	if (recording && !graph_depth && !launches_capturing(s))
		add_step(STEP_RECORD, s, e, 0);
	return __real_cudaEventRecord(e, s);
}

cudaError_t __wrap_cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s,
					    unsigned int flags)
{
	if (recording && !graph_depth && !launches_capturing(s))
		add_step(STEP_RECORD, s, e, 0);
	return __real_cudaEventRecordWithFlags(e, s, flags);
}

cudaError_t __wrap_cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e,
				       unsigned int flags)
{
	if (recording && !graph_depth && !launches_capturing(s))
		add_step(STEP_WAIT, s, e, 0);
	return __real_cudaStreamWaitEvent(s, e, flags);
}

/* A graph launched on s: its kernels are launches on s.  The emulator
 * runs them through the wrapped launch calls (noted on s here); a GPU
 * does not, so they are described from the graph's nodes. */
cudaError_t __wrap_cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
	uint32_t before = current.total;
	int live = recording && !launches_capturing(s);
	cudaError_t err;

	if (live && gpurec_graph)
		gpurec_graph(launches_graph_of(x));
	if (live) {
		graph_depth++;
		graph_stream = s;
	}
	err = __real_cudaGraphLaunch(x, s);
	if (live) {
		graph_depth--;
		if (current.total == before && !err &&
		    launches_graph_kernels)
			launches_graph_kernels(launches_graph_of(x), s);
	}
	return err;
}

cudaError_t __wrap_cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g,
					unsigned long long flags)
{
	cudaError_t err = __real_cudaGraphInstantiate(x, g, flags);

	if (!err && x)
		keep_graph(*x, g);
	return err;
}

cudaError_t __wrap_cudaGraphInstantiateWithFlags(cudaGraphExec_t *x,
						 cudaGraph_t g,
						 unsigned long long flags)
{
	cudaError_t err = __real_cudaGraphInstantiateWithFlags(x, g, flags);

	if (!err && x)
		keep_graph(*x, g);
	return err;
}
