/*
 * Check tests of the emulator (harness/emu), the CUDA runtime API:
 * launch configurations and their limits, memory, the device and its
 * attributes, host memory the device sees, graphs and stream capture.
 *
 * Kernels come as PTX in tests/emu/ (regenerate with tests/emu/gen-ptx),
 * loaded with wgemu_load_ptx (emu_helpers.h).  Check forks each test, so
 * a kernel fault (sticky, as on a GPU) never leaks into the next test.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include <jansson.h>

#include "emu/emu.h"
#include "emu/vm/half.h"
#include "emu/trace.h"
#include "emu/wgemu.h"
#include "cmd_emu.h"
#include "emu_helpers.h"

START_TEST(test_api_launch_config)
{
	int *d, n = 64;
	void *args[2];

	load("tests/emu/kernels.ptx");
	d = dalloc(1 << 20);
	args[0] = &d;
	args[1] = &n;
	/* the codes CUDA 13 gives on an H200 (tests/gpu/emu-ncu.sh) */
	ck_assert_int_eq(launch("reverse", 1, 1, 1025, 1, 0, args),
			 cudaErrorInvalidValue);
	ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
	ck_assert_int_eq(launch("reverse", 1, 65536, 32, 1, 0, args),
			 cudaErrorInvalidValue);
	ck_assert_int_eq(launch("reverse", 1, 1, 0, 1, 0, args),
			 cudaErrorInvalidValue);
	cudaGetLastError();
	/* more than 48 KB of dynamic shared memory needs opting in */
	ck_assert_int_eq(launch("reverse", 1, 1, 64, 1, 50000, args),
			 cudaErrorInvalidValue);
	ck_assert_int_eq(cudaFuncSetAttribute(wgemu_kernel("reverse"),
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				100000), cudaSuccess);
	ck_assert_int_eq(launch("reverse", 1, 1, 64, 1, 50000, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaFuncSetAttribute(wgemu_kernel("reverse"),
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				232449), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

START_TEST(test_api_memory)
{
	char h[64], *d = NULL;
	size_t fr, tot;

	ck_assert_int_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
	memset(h, 7, sizeof(h));
	ck_assert_int_eq(cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(d, h, 65, cudaMemcpyHostToDevice),
			 cudaErrorInvalidValue);
	ck_assert_int_eq(cudaMemset(d + 32, 1, 32), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, d, 64, cudaMemcpyDefault),
			 cudaSuccess);
	ck_assert_int_eq(h[0], 7);
	ck_assert_int_eq(h[40], 1);
	ck_assert_int_eq(cudaFree(d + 1), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaMemGetInfo(&fr, &tot), cudaSuccess);
	ck_assert(fr < tot);
	ck_assert_int_eq(cudaFree(d), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost),
			 cudaErrorInvalidValue);
	ck_assert_int_eq(cudaFree(NULL), cudaSuccess);
}
END_TEST

/* cudaMalloc's memory is zeros, as a GPU's driver hands a process
 * cleared memory, until memory the process freed is handed out again:
 * that holds the emulator's fill, as a GPU's holds what it held. */
START_TEST(test_api_fresh_memory_is_zero)
{
	unsigned char h[256], *d, *e, *f;
	int k;

	ck_assert_int_eq(cudaMalloc((void **)&d, 256), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, d, 256, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (k = 0; k < 256; k++)
		ck_assert_int_eq(h[k], 0);
	ck_assert_int_eq(cudaMemset(d, 7, 256), cudaSuccess);
	ck_assert_int_eq(cudaFree(d), cudaSuccess);
	ck_assert_int_eq(cudaMalloc((void **)&e, 256), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, e, 256, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (k = 0; k < 256; k++)
		ck_assert_int_eq(h[k], 0xcb);
	/* the 256 bytes freed are handed out: the next is cleared again */
	ck_assert_int_eq(cudaMalloc((void **)&f, 64), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, f, 64, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (k = 0; k < 64; k++)
		ck_assert_int_eq(h[k], 0);
	ck_assert_int_eq(cudaFree(e), cudaSuccess);
	ck_assert_int_eq(cudaFree(f), cudaSuccess);
}
END_TEST

/* A copy to the host of device memory that nothing wrote since it was
 * handed out again (the fill of recycled memory) is noted, once however
 * often it happens; a copy of written memory is not. */
START_TEST(test_api_unwritten_copy)
{
	char path[] = "/tmp/wg-note-XXXXXX", h[64], *d, *said;
	const char *note = "a copy to the host read device memory that "
			   "nothing wrote";
	int fd = mkstemp(path), saved = dup(2);
	size_t n;

	ck_assert(fd >= 0 && saved >= 0);
	unsetenv("WGEMU_QUIET");
	ck_assert_int_ge(dup2(fd, 2), 0);
	ck_assert_int_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
	ck_assert_int_eq(cudaFree(d), cudaSuccess);
	ck_assert_int_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
	ck_assert_int_eq(cudaMemset(d, 1, 32), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, d, 32, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	said = slurp(path, &n);
	ck_assert_msg(n == 0, "a note on written memory: %s", said);
	free(said);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost),
				 cudaSuccess);
	dup2(saved, 2);
	said = slurp(path, &n);
	ck_assert_msg(strstr(said, note) != NULL, "no note: '%s'", said);
	ck_assert_msg(strstr(strstr(said, note) + 1, note) == NULL,
		      "the note twice: '%s'", said);
	free(said);
	unlink(path);
	close(fd);
	ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

START_TEST(test_api_device)
{
	struct cudaDeviceProp p;
	int v, n;
	cudaEvent_t a, b;
	float ms = -1;

	ck_assert_int_eq(cudaGetDeviceCount(&n), cudaSuccess);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
	ck_assert_int_eq(p.multiProcessorCount, 132);
	ck_assert_int_eq(p.major, 9);
	ck_assert_int_eq(p.warpSize, 32);
	ck_assert_uint_eq(p.sharedMemPerBlock, 48 * 1024);
	ck_assert_uint_eq(p.sharedMemPerBlockOptin, 227 * 1024);
	ck_assert_uint_eq(p.sharedMemPerMultiprocessor, 228 * 1024);
	ck_assert_int_eq(p.maxGridSize[0], 2147483647);
	ck_assert_int_eq(p.maxGridSize[1], 65535);
	ck_assert_int_eq(cudaDeviceGetAttribute(&v,
				cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
			 cudaSuccess);
	ck_assert_int_eq(v, 227 * 1024);
	/* what helper_cuda.h asks before anything else */
	ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode,
						0), cudaSuccess);
	ck_assert_int_eq(v, cudaComputeModeDefault);
	ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0),
			 cudaSuccess);
	ck_assert_int_eq(v, 1980000);
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
	/* every attribute the enum names answers, and agrees with the
	 * properties where both have it */
	for (int i = 1; i <= cudaDevAttrOnlyPartialHostNativeAtomicSupported;
	     i++) {
		if (i == 44 || (i >= 102 && i <= 105) || i == 107 ||
		    i == 110 || i == 136 || i == 137 || i == 146)
			continue;   /* numbers the enum skips */
		ck_assert_msg(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)i,
						     0) == cudaSuccess,
			      "attribute %d", i);
	}
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
	ck_assert_int_eq(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)44,
						0), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture2DHeight, 0);
	ck_assert_int_eq(p.maxTexture2D[1], v);
	cudaDeviceGetAttribute(&v, cudaDevAttrAsyncEngineCount, 0);
	ck_assert_int_eq(p.asyncEngineCount, v);
	cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0);
	ck_assert_int_eq(p.l2CacheSize, v);
	ck_assert_int_eq(cudaEventCreate(&a), cudaSuccess);
	ck_assert_int_eq(cudaEventCreate(&b), cudaSuccess);
	cudaEventRecord(a, NULL);
	cudaEventRecord(b, NULL);
	ck_assert_int_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
	ck_assert(ms >= 0);
	ck_assert_str_eq(cudaGetErrorString(cudaErrorIllegalAddress),
			 "an illegal memory access was encountered");
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

/* Host memory the device sees at its own address (registered, pinned,
 * managed), and host work queued on a stream. */
static void CUDART_CB host_fn(void *p)
{
	(*(int *)p)++;
}

static void CUDART_CB stream_cb(cudaStream_t s, cudaError_t e, void *p)
{
	(void)s;
	*(int *)p += e == cudaSuccess ? 10 : 1000;
}

START_TEST(test_api_host_memory)
{
	static int h[64];
	int *dp = NULL, *pinned = NULL, *man = NULL, n = 64, calls = 0;
	void *args[2] = { &dp, &n };
	struct cudaPointerAttributes pa;

	for (int i = 0; i < 64; i++)
		h[i] = i;
	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(cudaHostRegister(h, sizeof(h), 0), cudaSuccess);
	ck_assert_int_eq(cudaHostRegister(h + 8, 8, 0),
			 cudaErrorHostMemoryAlreadyRegistered);
	ck_assert_int_eq(cudaHostGetDevicePointer((void **)&dp, h, 0),
			 cudaSuccess);
	ck_assert_ptr_eq(dp, h);
	ck_assert_int_eq(launch("reverse", 1, 1, 64, 1, 256, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(h[0], 63);
	ck_assert_int_eq(cudaPointerGetAttributes(&pa, h), cudaSuccess);
	ck_assert_int_eq(pa.type, cudaMemoryTypeHost);
	ck_assert_int_eq(cudaHostUnregister(h), cudaSuccess);
	ck_assert_int_eq(cudaHostUnregister(h),
			 cudaErrorHostMemoryNotRegistered);
	cudaGetLastError();
	/* pinned memory above the device's addresses (mmap'd) leaves later
	 * device allocations findable */
	ck_assert_int_eq(cudaMallocHost((void **)&pinned, 1 << 22),
			 cudaSuccess);
	ck_assert_int_eq(cudaMalloc((void **)&dp, 64), cudaSuccess);
	ck_assert_int_eq(cudaMemset(dp, 0, 64), cudaSuccess);
	ck_assert_int_eq(cudaFree(dp), cudaSuccess);
	ck_assert_int_eq(cudaFreeHost(pinned), cudaSuccess);
	ck_assert_int_eq(cudaMallocHost((void **)&pinned, 256), cudaSuccess);
	ck_assert_int_eq(cudaMallocManaged((void **)&man, 256,
					   cudaMemAttachGlobal), cudaSuccess);
	ck_assert_int_eq(man[5], 0);
	for (int i = 0; i < 64; i++)
		man[i] = 2 * i;
	dp = man;
	ck_assert_int_eq(launch("reverse", 1, 1, 64, 1, 256, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(man[0], 126);
	ck_assert_int_eq(cudaPointerGetAttributes(&pa, man), cudaSuccess);
	ck_assert_int_eq(pa.type, cudaMemoryTypeManaged);
	ck_assert_int_eq(cudaFree(pinned), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaFreeHost(pinned), cudaSuccess);
	ck_assert_int_eq(cudaFree(man), cudaSuccess);
	ck_assert_int_eq(cudaLaunchHostFunc(NULL, host_fn, &calls),
			 cudaSuccess);
	ck_assert_int_eq(cudaStreamAddCallback(NULL, stream_cb, &calls, 0),
			 cudaSuccess);
	ck_assert_int_eq(calls, 11);
	cudaGetLastError();
}
END_TEST

/* The rest of the runtime students reach for: pitched copies, limits,
 * occupancy with flags, stream-ordered allocation, priorities. */
START_TEST(test_api_more)
{
	char h[3][100], back[3][100];
	char *d = NULL, *a = NULL;
	size_t pitch = 0, v = 0, dyn = 0;
	int n = 0, lo = 1, hi = 1;

	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 100; c++)
			h[r][c] = (char)(r * 100 + c);
	ck_assert_int_eq(cudaMallocPitch((void **)&d, &pitch, 100, 3),
			 cudaSuccess);
	ck_assert_uint_eq(pitch, 512);
	ck_assert_int_eq(cudaMemset2D(d, pitch, 0, 100, 3), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy2D(d, pitch, h, 100, 100, 3,
				      cudaMemcpyHostToDevice), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy2DAsync(back, 100, d, pitch, 100, 3,
					   cudaMemcpyDeviceToHost, NULL),
			 cudaSuccess);
	ck_assert(!memcmp(h, back, sizeof(h)));
	ck_assert_int_eq(cudaMemcpy2D(d, 50, h, 100, 100, 3,
				      cudaMemcpyHostToDevice),
			 cudaErrorInvalidPitchValue);
	ck_assert_int_eq(cudaFree(d), cudaSuccess);
	ck_assert_int_eq(cudaMallocAsync((void **)&a, 256, NULL), cudaSuccess);
	ck_assert_int_eq(cudaFreeAsync(a, NULL), cudaSuccess);
	ck_assert_int_eq(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize),
			 cudaSuccess);
	ck_assert_uint_eq(v, 1u << 20);
	ck_assert_int_eq(cudaDeviceSetLimit(cudaLimitStackSize, 4096),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceGetLimit(&v, cudaLimitStackSize),
			 cudaSuccess);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(cudaDeviceGetStreamPriorityRange(&lo, &hi),
			 cudaSuccess);
	ck_assert_int_le(hi, lo);
	load("tests/emu/faults.ptx");
	ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
				 &n, wgemu_kernel("_Z8asserterPi"), 256, 0,
				 cudaOccupancyDefault), cudaSuccess);
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn,
				 wgemu_kernel("_Z8asserterPi"), 2, 256),
			 cudaSuccess);
	ck_assert_uint_gt(dyn, 0);
	ck_assert_int_eq(cudaFuncSetCacheConfig(wgemu_kernel("_Z8asserterPi"),
						cudaFuncCachePreferShared),
			 cudaSuccess);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidPitchValue);
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}
END_TEST

static int g_host_calls;

static void CUDART_CB count_call(void *p)
{
	(void)p;
	g_host_calls++;
}

/* Graph nodes: copy in, reverse, copy out, count; an executable graph
 * runs them in order at every launch. */
START_TEST(test_api_graph)
{
	int h[64], back[64], *d = dalloc(sizeof(h)), n = 64;
	void *args[2] = { &d, &n };
	struct cudaKernelNodeParams kp;
	struct cudaHostNodeParams hp = { count_call, NULL };
	cudaGraphNode_t in, k, out, host;
	cudaGraph_t g;
	cudaGraphExec_t x;
	size_t nn = 0;

	for (int i = 0; i < 64; i++)
		h[i] = i;
	load("tests/emu/kernels.ptx");
	memset(&kp, 0, sizeof(kp));
	kp.func = (void *)wgemu_kernel("_Z7reversePii");
	kp.gridDim = (dim3){ 1, 1, 1 };
	kp.blockDim = (dim3){ 64, 1, 1 };
	kp.sharedMemBytes = sizeof(h);
	kp.kernelParams = args;
	ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
	ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&in, g, NULL, 0, d, h,
		sizeof(h), cudaMemcpyHostToDevice), cudaSuccess);
	ck_assert_int_eq(cudaGraphAddKernelNode(&k, g, &in, 1, &kp),
			 cudaSuccess);
	ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&out, g, &k, 1, back, d,
		sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
	ck_assert_int_eq(cudaGraphAddHostNode(&host, g, &out, 1, &hp),
			 cudaSuccess);
	ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &nn), cudaSuccess);
	ck_assert_int_eq(nn, 4);
	ck_assert_int_eq(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	n = 0;   /* the node copied the arguments when it was added */
	g_host_calls = 0;
	ck_assert_int_eq(cudaGraphLaunch(x, NULL), cudaSuccess);
	ck_assert_int_eq(cudaGraphLaunch(x, NULL), cudaSuccess);
	ck_assert_int_eq(g_host_calls, 2);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(back[i], 63 - i);
	ck_assert_int_eq(cudaGraphExecDestroy(x), cudaSuccess);
	ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
}
END_TEST

/* Stream capture: work queued on a capturing stream (and on a stream
 * that joins it through an event) runs only when the graph launches;
 * graph memory lives from its allocation node to its free node. */
START_TEST(test_api_capture)
{
	int h[32], back[32], n = 32, *t = NULL;
	void *args[2] = { &t, &n };
	cudaStream_t s, s2;
	cudaEvent_t e;
	cudaGraph_t g;
	cudaGraphExec_t x;
	enum cudaStreamCaptureStatus st;
	size_t nn = 0;
	const void *rev;

	for (int i = 0; i < 32; i++)
		h[i] = 10 * i;
	memset(back, 0, sizeof(back));
	load("tests/emu/kernels.ptx");
	rev = wgemu_kernel("_Z7reversePii");
	ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
	ck_assert_int_eq(cudaStreamCreate(&s2), cudaSuccess);
	ck_assert_int_eq(cudaEventCreate(&e), cudaSuccess);
	ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal),
			 cudaSuccess);
	ck_assert_int_eq(cudaMallocAsync((void **)&t, sizeof(h), s),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpyAsync(t, h, sizeof(h),
		cudaMemcpyHostToDevice, s), cudaSuccess);
	ck_assert_int_eq(cudaLaunchKernel(rev, (dim3){ 1, 1, 1 },
					  (dim3){ 32, 1, 1 }, args, sizeof(h),
					  s), cudaSuccess);
	ck_assert_int_eq(cudaEventRecord(e, s), cudaSuccess);
	ck_assert_int_eq(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
	ck_assert_int_eq(cudaStreamIsCapturing(s2, &st), cudaSuccess);
	ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
	ck_assert_int_eq(cudaMemcpyAsync(back, t, sizeof(h),
		cudaMemcpyDeviceToHost, s2), cudaSuccess);
	ck_assert_int_eq(cudaFreeAsync(t, s2), cudaSuccess);
	ck_assert_int_eq(back[0], 0);    /* nothing ran yet */
	ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
	ck_assert_int_eq(cudaStreamIsCapturing(s2, &st), cudaSuccess);
	ck_assert_int_eq(st, cudaStreamCaptureStatusNone);
	ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &nn), cudaSuccess);
	ck_assert_int_eq(nn, 5);
	ck_assert_int_eq(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
	ck_assert_int_eq(cudaGraphLaunch(x, s), cudaSuccess);
	ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(back[i], 10 * (31 - i));
	ck_assert(wgemu_host_ptr((uint64_t)(uintptr_t)t, 4) == NULL);
	cudaGraphExecDestroy(x);
	cudaGraphDestroy(g);
	cudaEventDestroy(e);
	cudaStreamDestroy(s2);
	cudaStreamDestroy(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_runtime_api");
	TCase *tc;

	tc = tcase_create("runtime_api");
	tcase_add_test(tc, test_api_launch_config);
	tcase_add_test(tc, test_api_memory);
	tcase_add_test(tc, test_api_fresh_memory_is_zero);
	tcase_add_test(tc, test_api_unwritten_copy);
	tcase_add_test(tc, test_api_device);
	tcase_add_test(tc, test_api_more);
	tcase_add_test(tc, test_api_host_memory);
	tcase_add_test(tc, test_api_graph);
	tcase_add_test(tc, test_api_capture);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
