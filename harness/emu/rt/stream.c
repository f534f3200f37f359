/*
 * Streams and events of the emulator's runtime, and stream capture.
 * Every stream is synchronous and in order (the runtime runs each call
 * to completion), so a stream is only what CUDA lets a program ask of it:
 * its flags, its priority and, while it captures, the graph its work
 * goes to (graph.h).  An event holds the emulator's clock when it was
 * recorded.  The legacy and per-thread default streams (NULL, 0x1, 0x2)
 * are no objects: they never capture.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"
#include "emu/rt/graph.h"
#include "emu/rt/rt.h"

struct CUstream_st {
	unsigned flags;
	int priority;
	cudaGraph_t capture;          /* NULL unless capturing */
	int capture_origin;           /* began the capture */
	struct CUstream_st *next;     /* every stream, for ending a capture */
};

struct CUevent_st {
	double t_ms;
	int recorded;
	cudaGraph_t capture;          /* recorded in a capture into it */
};

static struct CUstream_st *g_streams;
static __thread enum cudaStreamCaptureMode g_capture_mode;

static struct CUstream_st *stream_obj(cudaStream_t s)
{
	uintptr_t v = (uintptr_t)s;

	return v > (uintptr_t)cudaStreamPerThread ? s : NULL;
}

cudaGraph_t emu_stream_capture(cudaStream_t s)
{
	struct CUstream_st *o = stream_obj(s);

	return o ? o->capture : NULL;
}

/* ---- streams ---- */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
					 unsigned int flags, int priority)
{
	struct CUstream_st *s;

	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!pStream)
		return rt_fail(cudaErrorInvalidValue);
	s = calloc(1, sizeof(*s));
	if (!s)
		return rt_fail(cudaErrorMemoryAllocation);
	s->flags = flags;
	/* the device's range is 0 (least) to -5 (greatest) */
	s->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
	emu_rt_lock();
	s->next = g_streams;
	g_streams = s;
	emu_rt_unlock();
	*pStream = s;
	return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
				      unsigned int flags)
{
	return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	struct CUstream_st *s = stream_obj(stream), **p;

	if (!s)
		return emu_rt_sticky();
	emu_rt_lock();
	for (p = &g_streams; *p && *p != s; p = &(*p)->next)
		;
	if (*p)
		*p = s->next;
	emu_rt_unlock();
	free(s);
	return emu_rt_sticky();
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return rt_fail(cudaErrorStreamCaptureUnsupported);
	return emu_rt_sticky();
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	if (emu_stream_capture(stream))
		return rt_fail(cudaErrorStreamCaptureUnsupported);
	return emu_rt_sticky();
}

/* Waiting on an event recorded in a capture makes the stream join that
 * capture (how captures fork onto other streams). */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
				unsigned int flags)
{
	struct CUstream_st *s = stream_obj(stream);

	(void)flags;
	if (!event)
		return rt_fail(cudaErrorInvalidResourceHandle);
	if (s && event->capture && !s->capture)
		s->capture = event->capture;
	return emu_rt_sticky();
}

cudaError_t cudaDeviceSynchronize(void)
{
	return emu_rt_sticky();
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
	struct CUstream_st *s = stream_obj(hStream);

	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!flags)
		return rt_fail(cudaErrorInvalidValue);
	*flags = s ? s->flags : cudaStreamDefault;
	return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
	struct CUstream_st *s = stream_obj(hStream);

	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!priority)
		return rt_fail(cudaErrorInvalidValue);
	*priority = s ? s->priority : 0;
	return cudaSuccess;
}

/* ---- capture ---- */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
				   enum cudaStreamCaptureMode mode)
{
	struct CUstream_st *s = stream_obj(stream);
	cudaError_t e;

	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!s)    /* the legacy stream cannot capture */
		return rt_fail(cudaErrorStreamCaptureUnsupported);
	if (s->capture)
		return rt_fail(cudaErrorIllegalState);
	e = cudaGraphCreate(&s->capture, 0);
	if (e)
		return e;
	s->capture_origin = 1;
	g_capture_mode = mode;
	return cudaSuccess;
}

/* The graph goes to the caller; every stream that joined the capture
 * stops capturing with the one that began it. */
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
	struct CUstream_st *s = stream_obj(stream), *o;
	cudaGraph_t g;

	if (!s || !s->capture || !s->capture_origin)
		return rt_fail(cudaErrorIllegalState);
	if (!pGraph)
		return rt_fail(cudaErrorInvalidValue);
	g = s->capture;
	emu_rt_lock();
	for (o = g_streams; o; o = o->next)
		if (o->capture == g) {
			o->capture = NULL;
			o->capture_origin = 0;
		}
	emu_rt_unlock();
	*pGraph = g;
	return emu_rt_sticky();
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
				  enum cudaStreamCaptureStatus *pCaptureStatus)
{
	if (!pCaptureStatus)
		return rt_fail(cudaErrorInvalidValue);
	*pCaptureStatus = emu_stream_capture(stream) ?
			  cudaStreamCaptureStatusActive :
			  cudaStreamCaptureStatusNone;
	return emu_rt_sticky();
}

cudaError_t cudaThreadExchangeStreamCaptureMode(
	enum cudaStreamCaptureMode *mode)
{
	enum cudaStreamCaptureMode old = g_capture_mode;

	if (!mode)
		return rt_fail(cudaErrorInvalidValue);
	g_capture_mode = *mode;
	*mode = old;
	return cudaSuccess;
}

/* ---- events ---- */
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	struct CUevent_st *e;

	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!event)
		return rt_fail(cudaErrorInvalidValue);
	e = calloc(1, sizeof(*e));
	if (!e)
		return rt_fail(cudaErrorMemoryAllocation);
	*event = e;
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	(void)flags;
	return cudaEventCreate(event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	free(event);
	return emu_rt_sticky();
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!event)
		return rt_fail(cudaErrorInvalidResourceHandle);
	event->capture = emu_stream_capture(stream);
	if (event->capture)
		return cudaSuccess;
	event->t_ms = emu_rt_now_ms();
	event->recorded = 1;
	return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
				     unsigned int flags)
{
	(void)flags;
	return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	(void)event;
	return emu_rt_sticky();
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	(void)event;
	return emu_rt_sticky();
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
				 cudaEvent_t end)
{
	if (emu_rt_sticky())
		return emu_rt_sticky();
	if (!start || !end || !ms)
		return rt_fail(cudaErrorInvalidResourceHandle);
	if (!start->recorded || !end->recorded)
		return rt_fail(cudaErrorInvalidResourceHandle);
	*ms = (float)(end->t_ms - start->t_ms);
	return cudaSuccess;
}

/* Stream attributes (access policy windows, priorities) tune caches and
 * scheduling, which the emulator does not model: kept, not acted on. */
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream,
				   cudaLaunchAttributeID attr,
				   const cudaLaunchAttributeValue *value)
{
	(void)hStream, (void)attr;
	if (!value)
		return rt_fail(cudaErrorInvalidValue);
	return emu_rt_sticky();
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream,
				   cudaLaunchAttributeID attr,
				   cudaLaunchAttributeValue *value_out)
{
	(void)hStream, (void)attr;
	if (!value_out)
		return rt_fail(cudaErrorInvalidValue);
	memset(value_out, 0, sizeof(*value_out));
	return emu_rt_sticky();
}
