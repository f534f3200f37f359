/*
 * Check tests of the emulator (harness/emu), grid barriers and mbarriers
 * (probe_sync.cu): cooperative launches and their limit, their records,
 * the blocks of an ordinary launch that wait on each other or read what
 * others wrote before their barriers, grid.sync()
 * outside a cooperative launch, spinning warps (awake and sleeping),
 * warps of a block interleaved where they load and store one word,
 * mbarriers and their deadlock, and asynchronous copies completing on a
 * barrier.
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

static cudaError_t launch_coop(const char *kernel, unsigned blocks,
			       unsigned threads, void **args)
{
	const void *k = wgemu_kernel(kernel);
	dim3 g = { blocks, 1, 1 }, b = { threads, 1, 1 };

	ck_assert_msg(k != NULL, "no kernel '%s'", kernel);
	return cudaLaunchCooperativeKernel(k, g, b, args, 0, NULL);
}

/* the first n ints of device memory d */
static void fetch(int *h, const int *d, size_t n)
{
	ck_assert_int_eq(cudaMemcpy(h, d, n * sizeof(int),
				    cudaMemcpyDeviceToHost), cudaSuccess);
}

/* grid.sync(): a rotation through every block's threads, five rounds,
 * is right only if no block runs ahead of the others; a reduction over
 * the blocks after the barrier; a block waiting for a flag another sets */
START_TEST(test_grid_sync)
{
	enum { N = 16 * 256 };
	static int h[N];
	int *a = dalloc(N * 4), *b = dalloc(N * 4), *c = dalloc(64);
	int rounds = 5, n = N, sum = 0;
	void *rot[3] = { &a, &b, &rounds }, *red[4] = { &a, &b, &c, &n };
	void *wait[2] = { &a, &c };

	load("tests/emu/probe_sync.ptx");
	for (int i = 0; i < N; i++)
		h[i] = i;
	cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
	ck_assert_int_eq(launch_coop("grid_rotate", 16, 256, rot),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	fetch(h, a, N);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(h[i], (i + 5) % N + 5);
	for (int i = 0; i < N; i++)
		h[i] = i % 7;
	cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
	ck_assert_int_eq(launch_coop("grid_sum", 12, 128, red), cudaSuccess);
	fetch(&sum, c, 1);
	ck_assert_int_eq(sum, 12285);
	cudaMemset(a, 0, 4);
	ck_assert_int_eq(launch_coop("wait_other_block", 2, 32, wait),
			 cudaSuccess);
	fetch(&sum, c, 1);
	ck_assert_int_eq(sum, 7);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

/* A launch record marks a cooperative launch (a = 1), and the replay's
 * raw launch runs it as one: a grid rotation right again */
START_TEST(test_coop_record)
{
	enum { N = 4 * 64 };
	int h[N], *a = dalloc(N * 4), *b = dalloc(N * 4), rounds = 3;
	void *rot[3] = { &a, &b, &rounds }, *aw[2] = { &b, &rounds };
	struct emu_trace_reader rd;
	struct emu_trace_head head;
	struct emu_trace_op op;
	unsigned char *buf = NULL, params[24];
	size_t len = 0;
	int launches = 0;

	load("tests/emu/probe_sync.ptx");
	for (int i = 0; i < N; i++)
		h[i] = i;
	cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
	wgemu_record_begin(a, sizeof(h), b, sizeof(h));
	ck_assert_int_eq(launch_coop("grid_rotate", 4, 64, rot), cudaSuccess);
	ck_assert_int_eq(launch("aw_barrier", 1, 1, 32, 1, 0, aw),
			 cudaSuccess);
	ck_assert_int_eq(wgemu_record_end(&buf, &len), 0);
	ck_assert_int_eq(emu_trace_read_head(&rd, buf, len, &head), 0);
	while (emu_trace_next(&rd, &op) == 1) {
		if (op.kind != TR_LAUNCH)
			continue;
		ck_assert_int_eq(op.a, launches == 0);
		launches++;
	}
	ck_assert_int_eq(launches, 2);
	free(buf);
	/* the parameters as the PTX lays them out: a, b, rounds */
	memcpy(params, &a, 8);
	memcpy(params + 8, &b, 8);
	memcpy(params + 16, &rounds, 4);
	ck_assert_int_eq(wgemu_launch_raw_cooperative(
		wgemu_kernel("grid_rotate"), (unsigned[3]){ 4, 1, 1 },
		(unsigned[3]){ 64, 1, 1 }, 0, params, 20), cudaSuccess);
	fetch(h, a, N);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(h[i], (i + 6) % N + 6);
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

/* Occupancy counts warps, blocks and shared memory per SM; a
 * cooperative grid must fit on the device at once, as on an H100 */
START_TEST(test_coop_too_large)
{
	const void *k;
	int per = 0, rounds = 1, *a = dalloc(4096), *b = dalloc(4096);
	void *args[3] = { &a, &b, &rounds };

	load("tests/emu/probe_sync.ptx");
	k = wgemu_kernel("grid_rotate");
	ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per,
			 k, 1024, 8192), cudaSuccess);
	ck_assert_int_eq(per, 2);
	ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per,
			 k, 32, 0), cudaSuccess);
	ck_assert_int_eq(per, 32);
	ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per,
			 k, 128, 100000), cudaSuccess);
	ck_assert_int_eq(per, 2);
	ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per,
			 k, 256, 0), cudaSuccess);
	ck_assert_int_eq(per, 8);
	ck_assert_int_eq(launch_coop("grid_rotate", 8 * 132 + 1, 256, args),
			 cudaErrorCooperativeLaunchTooLarge);
	ck_assert_int_eq(cudaGetLastError(),
			 cudaErrorCooperativeLaunchTooLarge);
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);   /* not sticky */
	ck_assert_str_eq(cudaGetErrorName(cudaErrorCooperativeLaunchTooLarge),
			 "cudaErrorCooperativeLaunchTooLarge");
}
END_TEST

/* In an ordinary launch a block that waits on another runs beside the
 * others, as many as fit on the device, as a GPU runs them: block 0
 * waiting for block 1's flag finishes.  Where every resident block
 * waits on memory nothing running changes, it is a deadlock that says
 * so. */
START_TEST(test_ordinary_launch_blocks_together)
{
	static const char ptx[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".visible .entry never(.param .u64 f)\n{\n"
		".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n"
		"ld.param.u64 %rd1, [f];\n"
		"$L_spin:\n"
		"ld.volatile.global.u32 %r1, [%rd1];\n"
		"setp.eq.s32 %p1, %r1, 0;\n"
		"@%p1 bra $L_spin;\n"
		"ret;\n}\n";
	int *a = dalloc(1024), *c = dalloc(1024), h = 0;
	void *wait[2] = { &a, &c }, *never[1] = { &a };
	char msg[800], err[256];

	load("tests/emu/probe_sync.ptx");
	ck_assert_int_eq(launch("wait_other_block", 2, 1, 32, 1, 0, wait),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	fetch(&h, c, 1);
	ck_assert_int_eq(h, 7);
	/* three blocks that all wait for a flag nobody sets */
	ck_assert_msg(wgemu_load_ptx(ptx, sizeof(ptx) - 1, err,
				     sizeof(err)) >= 0, "%s", err);
	cudaMemset(a, 0, 4);
	ck_assert_int_eq(launch("never", 3, 1, 32, 1, 0, never),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_LIMIT);
	ck_assert_msg(strstr(msg, "deadlock: every block left waits") &&
		      strstr(msg, "run beside it"), "%s", msg);
}
END_TEST

/* The blocks of a kernel with barriers take turns to their next
 * barrier: each reads the word its neighbour wrote before its barrier,
 * in a grid of 4 and in one of 40, larger than the blocks run side by
 * side, whose first ones give their places to the next. */
START_TEST(test_blocks_in_phases)
{
	enum { N = 40 };
	static const int grids[2] = { 4, N };
	int *a = dalloc(N * 4), *seen = dalloc(N * 4), h[N];
	void *args[2] = { &a, &seen };

	load("tests/emu/probe_sync.ptx");
	for (int i = 0; i < 2; i++) {
		int n = grids[i];

		cudaMemset(a, 0, N * 4);
		ck_assert_int_eq(launch("read_neighbour", (unsigned)n, 1, 64,
					1, 0, args), cudaSuccess);
		fetch(h, seen, (size_t)n);
		for (int b = 0; b < n; b++)
			ck_assert_msg(h[b] == 1 + (b ^ 1), "%d blocks: block "
				      "%d saw %d", n, b, h[b]);
	}
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

/* A warp spinning on a flag another warp of its block sets gives way
 * (spin.c), so the other runs; a cooperative launch in which a block
 * waits for one that exited is a deadlock, found at once */
START_TEST(test_spin)
{
	int *a = dalloc(1024), *c = dalloc(1024), h = 0;
	void *one[1] = { &c }, *wait[2] = { &a, &c };
	char msg[800];

	load("tests/emu/probe_sync.ptx");
	ck_assert_int_eq(launch("wait_other_warp", 1, 1, 64, 1, 0, one),
			 cudaSuccess);
	fetch(&h, c, 1);
	ck_assert_int_eq(h, 5);
	/* one block: block 1, which would set the flag, is not there */
	ck_assert_int_eq(launch_coop("wait_other_block", 1, 32, wait),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_LIMIT);
	ck_assert_msg(strstr(msg, "deadlock: every block left waits") &&
		      strstr(msg, "probe_sync.cu:"), "%s", msg);
	ck_assert_uint_lt(wgemu_launch_count(), 3);
}
END_TEST

/* The eight warps of a 32 x 8 block add the same row into the same
 * word, loaded once and stored at every step, with no barrier
 * (PolyBench's mvt): on a GPU, whose warps run side by side, they all
 * load it before any stores, and an H100 gives 0.5 + 64 in every word;
 * warps run one after the other would give 0.5 + 8 x 64 = 512.5.  Each
 * warp gives way before it stores into memory it loaded (sched.c). */
START_TEST(test_interleaved_warps)
{
	enum { N = 64 };
	static float a[N * N], x[N];
	float *da = dalloc(sizeof(a)), *dx = dalloc(sizeof(x));
	int n = N;
	void *args[3] = { &n, &da, &dx };

	load("tests/emu/probe_sync.ptx");
	for (int i = 0; i < N * N; i++)
		a[i] = 1.0f;
	for (int i = 0; i < N; i++)
		x[i] = 0.5f;
	cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice);
	cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice);
	ck_assert_int_eq(launch("row_sums", N / 32, 1, 32, 8, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(x, dx, sizeof(x), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (int i = 0; i < N; i++)
		ck_assert_msg(x[i] == 64.5f, "x[%d] %g, not 64.5", i, x[i]);
	/* a warp is counted once for the store it gave way at */
	ck_assert_uint_eq(last_counters().global_store_requests,
			  N / 32 * 8 * N);
}
END_TEST

/* A block waiting for another with __nanosleep between tries: right in
 * a cooperative launch and in an ordinary one, whose blocks then run
 * together (the warp's state repeats from one sleep to the next: it
 * spins) */
START_TEST(test_spin_sleeping)
{
	int *a = dalloc(1024), *c = dalloc(1024), h = 0;
	void *wait[2] = { &a, &c };

	load("tests/emu/probe_sync.ptx");
	ck_assert_int_eq(launch_coop("wait_other_block_sleep", 2, 32, wait),
			 cudaSuccess);
	fetch(&h, c, 1);
	ck_assert_int_eq(h, 8);
	cudaMemset(a, 0, 4);
	h = 0;
	ck_assert_int_eq(launch("wait_other_block_sleep", 2, 1, 32, 1, 0,
				wait), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	fetch(&h, c, 1);
	ck_assert_int_eq(h, 8);
}
END_TEST

/* grid.sync() in an ordinary launch finds no grid workspace and traps,
 * as on a GPU; the fault says what it needs */
START_TEST(test_grid_sync_not_cooperative)
{
	int *a = dalloc(1024), *c = dalloc(1024), rounds = 1;
	void *rot[3] = { &a, &c, &rounds };
	char msg[800];

	load("tests/emu/probe_sync.ptx");
	ck_assert_int_eq(launch("grid_rotate", 2, 1, 32, 1, 0, rot),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_TRAP);
	ck_assert_msg(strstr(msg, "needs cudaLaunchCooperativeKernel") !=
		      NULL, "%s", msg);
}
END_TEST

/* cuda::barrier and the mbarrier instructions: phases, counts, drops,
 * transaction bytes, parity waits, a producer and its consumers */
START_TEST(test_mbarrier)
{
	static const int ops[12] = { 3, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1 };
	int h[256], *d = dalloc(sizeof(h)), phases = 4, rounds = 6;
	void *aw[2] = { &d, &phases }, *one[1] = { &d };
	void *pipe[2] = { &d, &rounds };

	load("tests/emu/probe_sync.ptx");
	ck_assert_int_eq(launch("aw_barrier", 1, 1, 256, 1, 0, aw),
			 cudaSuccess);
	fetch(h, d, 256);
	for (int t = 0; t < 256; t++)
		ck_assert_int_eq(h[t], 600 + 4 * ((t / 32 + 1) % 8));
	ck_assert_int_eq(launch("mbarrier_ops", 1, 1, 32, 1, 0, one),
			 cudaSuccess);
	fetch(h, d, 12);
	for (int i = 0; i < 12; i++)
		ck_assert_msg(h[i] == ops[i], "mbarrier_ops[%d]: %d, not %d",
			      i, h[i], ops[i]);
	ck_assert_int_eq(launch("mbarrier_pipe", 1, 1, 128, 1, 0, pipe),
			 cudaSuccess);
	fetch(h, d, 128);
	for (int t = 0; t < 128; t++) {
		int want = 0;

		for (int r = 0; t >= 32 && r < rounds; r++)
			want += r * 1000 + (t + r) % 32;
		ck_assert_int_eq(h[t], want);
	}
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

/* cuda::memcpy_async completing on a cuda::barrier, the .noinc form of
 * cp.async.mbarrier.arrive, and a bulk copy whose bytes the barrier
 * waits for */
START_TEST(test_async_copy_barrier)
{
	static int h[1024];
	int *in = dalloc(sizeof(h)), *out = dalloc(sizeof(h)), n = 1000;
	void *cg[3] = { &out, &in, &n }, *noinc[2] = { &out, &in };

	load("tests/emu/probe_sync.ptx");
	for (int i = 0; i < n; i++)
		h[i] = 3 * i + 1;
	cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice);
	ck_assert_int_eq(launch("async_copy_barrier", 1, 1, 128, 1,
				sizeof(h), cg), cudaSuccess);
	fetch(h, out, 1000);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(h[i], 3 * (n - 1 - i) + 1);
	cudaMemset(out, 0, sizeof(h));
	ck_assert_int_eq(launch("async_copy_noinc", 1, 1, 256, 1, 0, noinc),
			 cudaSuccess);
	fetch(h, out, 256);
	for (int i = 0; i < 256; i++)
		ck_assert_int_eq(h[i], 3 * (255 - i) + 1);
	cudaMemset(out, 0, sizeof(h));
	ck_assert_int_eq(launch("bulk_copy_barrier", 1, 1, 128, 1, 0, noinc),
			 cudaSuccess);
	fetch(h, out, 1000);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(h[i], i < 24 ? 0 : 3 * (1023 - i) + 1);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

/* every thread waits for an arrival that never comes: a deadlock,
 * reported at once rather than at the end of the budget */
START_TEST(test_mbarrier_deadlock)
{
	int *d = dalloc(1024);
	void *args[1] = { &d };
	char msg[800];

	load("tests/emu/probe_sync.ptx");
	ck_assert_int_eq(launch("mbarrier_stuck", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_LIMIT);
	ck_assert_msg(strstr(msg, "deadlock: 64 threads") != NULL &&
		      strstr(msg, "thread (0,0,0) of block (0,0,0)") != NULL,
		      "%s", msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_sync");
	TCase *tc;

	tc = tcase_create("sync");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_grid_sync);
	tcase_add_test(tc, test_coop_too_large);
	tcase_add_test(tc, test_coop_record);
	tcase_add_test(tc, test_ordinary_launch_blocks_together);
	tcase_add_test(tc, test_blocks_in_phases);
	tcase_add_test(tc, test_grid_sync_not_cooperative);
	tcase_add_test(tc, test_spin);
	tcase_add_test(tc, test_spin_sleeping);
	tcase_add_test(tc, test_interleaved_warps);
	tcase_add_test(tc, test_mbarrier);
	tcase_add_test(tc, test_mbarrier_deadlock);
	tcase_add_test(tc, test_async_copy_barrier);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
