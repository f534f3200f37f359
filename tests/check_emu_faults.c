/*
 * Check tests of the emulator (harness/emu), kernel faults and warnings:
 * out-of-bounds global and shared accesses, reads of shared memory no
 * thread wrote (a warning), races per word and per byte, divergent and
 * early-exit barriers, the instruction budget, misaligned accesses,
 * trap, assert, and device printf.
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

static void expect_fault(const char *kernel, unsigned threads, size_t smem,
			 void **args, enum wgemu_fault_kind kind,
			 cudaError_t err, const char *where)
{
	char msg[800];

	load("tests/emu/faults.ptx");
	ck_assert_int_eq(launch(kernel, 1, 1, threads, 1, smem, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), err);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)), kind);
	ck_assert_msg(strstr(msg, where) != NULL, "'%s' lacks '%s'", msg,
		      where);
	/* sticky, as on a GPU */
	ck_assert_int_eq(cudaGetLastError(), err);
	ck_assert_int_eq(cudaGetLastError(), err);
	{
		void *p;

		ck_assert_int_eq(cudaMalloc(&p, 16), err);
	}
	ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}

START_TEST(test_fault_oob_global)
{
	int *d = dalloc(100 * 4), n = 100;
	void *args[2] = { &d, &n };

	expect_fault("_Z9oob_writePii", 128, 0, args,
		     WGEMU_FAULT_OUT_OF_BOUNDS, cudaErrorIllegalAddress,
		     "faults.cu:10, thread (100,0,0) of block (0,0,0)");
}
END_TEST

START_TEST(test_fault_oob_shared)
{
	int *d = dalloc(64 * 4), n = 64;
	void *args[2] = { &d, &n };

	expect_fault("_Z10oob_sharedPii", 64, 256, args,
		     WGEMU_FAULT_OUT_OF_BOUNDS, cudaErrorIllegalAddress,
		     "faults.cu:18, thread (0,0,0)");
}
END_TEST

/* Reading shared memory no thread wrote is garbage on a GPU, not an
 * error (correct kernels do it and discard the value): a warning, and the
 * launch goes on with the poison pattern. */
START_TEST(test_uninit_is_a_warning)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };
	char msg[800];

	load("tests/emu/faults.ptx");
	ck_assert_int_eq(launch("_Z13uninit_sharedPi", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_NONE);
}
END_TEST

START_TEST(test_fault_race)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };

	expect_fault("_Z4racePi", 64, 0, args, WGEMU_FAULT_RACE,
		     cudaErrorLaunchFailure, "faults.cu:39, thread (32,0,0)");
}
END_TEST

/* Race tracking is per byte: warps writing different bytes or halves
 * of one word are correct code; two warps on one byte are a race. */
START_TEST(test_race_bytes)
{
	int h[128], *d = dalloc(128 * 4);
	void *args[1] = { &d };
	char msg[800];

	load("tests/emu/faults.ptx");
	ck_assert_int_eq(launch("_Z13bytes_no_racePi", 1, 1, 128, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_NONE);
	cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
	/* byte t holds thread (t % 4) * 32 + t / 4; half t of the first 64
	 * holds thread (t % 2) * 32 + t / 2 */
	for (int t = 0; t < 128; t++)
		ck_assert_int_eq(h[t], (t % 4) * 32 + t / 4 +
				 (t < 64 ? (t % 2) * 32 + t / 2 : 0));
	ck_assert_int_eq(launch("_Z4pollPi", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_NONE);
	ck_assert_int_eq(launch("_Z10same_valuePi", 1, 1, 128, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_NONE);
	expect_fault("_Z9byte_racePi", 64, 0, args, WGEMU_FAULT_RACE,
		     cudaErrorLaunchFailure, "shared-memory race at offset 0: "
		     "written by warp 1");
}
END_TEST

START_TEST(test_fault_divergent_barrier)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };

	expect_fault("_Z17divergent_barrierPi", 64, 0, args,
		     WGEMU_FAULT_BARRIER, cudaErrorLaunchFailure,
		     "faults.cu:50");
}
END_TEST

/* Threads that returned before a barrier no longer take part in it, as
 * on sm_70 and later: the others pass it and compute the right result. */
START_TEST(test_early_exit_before_barrier)
{
	int h[64], *d = dalloc(64 * 4), n = 40;
	void *args[2] = { &d, &n };

	for (int i = 0; i < 64; i++)
		h[i] = 1000 + i;
	cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
	load("tests/emu/faults.ptx");
	ck_assert_int_eq(launch("_Z10early_exitPii", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
	for (int t = 0; t < n; t++)
		ck_assert_int_eq(h[t], 1000 + n - 1 - t);
	ck_assert_int_eq(h[50], 1050); /* exited threads wrote nothing */
}
END_TEST

START_TEST(test_barrier_ok)
{
	int *d = dalloc(64 * 4), n = 64;
	void *args[2] = { &d, &n };

	load("tests/emu/faults.ptx");
	ck_assert_int_eq(launch("_Z10early_exitPii", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

START_TEST(test_fault_endless)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };

	setenv("WGEMU_INSN_LIMIT", "2000000", 1);
	expect_fault("_Z7endlessPi", 32, 0, args, WGEMU_FAULT_LIMIT,
		     cudaErrorLaunchTimeout, "faults.cu:69");
}
END_TEST

START_TEST(test_fault_misaligned)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };

	expect_fault("_Z10misalignedPi", 32, 0, args,
		     WGEMU_FAULT_MISALIGNED, cudaErrorMisalignedAddress,
		     "faults.cu:76");
}
END_TEST

START_TEST(test_fault_trap)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };

	expect_fault("_Z7trapperPi", 32, 0, args, WGEMU_FAULT_TRAP,
		     cudaErrorLaunchFailure, "thread (5,0,0)");
}
END_TEST

/* assert() in a kernel: cudaErrorAssert, naming the assertion */
START_TEST(test_fault_assert)
{
	int *d = dalloc(64 * 4);
	void *args[1] = { &d };

	expect_fault("_Z8asserterPi", 32, 0, args, WGEMU_FAULT_ASSERT,
		     cudaErrorAssert, "assertion `threadIdx.x != 5' failed "
		     "(faults.cu:");
}
END_TEST

/* printf in a kernel prints what the host's printf would, lane by lane,
 * on the program's stdout */
START_TEST(test_device_printf)
{
	int *d = dalloc(64 * 4), h[2] = { -3, 17 };
	double x = 2.5;
	long long q = -1234567890123ll;
	void *args[3] = { &d, &x, &q };
	char out[] = "/tmp/wg-printf-XXXXXX", want[512], *got;
	int fd = mkstemp(out), saved;
	size_t len;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice),
			 cudaSuccess);
	load("tests/emu/faults.ptx");
	fflush(stdout);
	saved = dup(1);
	ck_assert_int_eq(dup2(fd, 1), 1);
	ck_assert_int_eq(launch("_Z7printerPKidx", 1, 1, 32, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	got = slurp(out, &len);
	unlink(out);
	snprintf(want, sizeof(want),
		 "t0 d=-3 x=2.500 q=-1234567890123 c=A s=zero u=4000000000 "
		 "h=ff w=   42|7  |   9 %% %e\n"
		 "t1 d=17 x=2.500 q=-1234567890123 c=B s=one u=4000000000 "
		 "h=ff w=   42|7  |   9 %% %e\n", 1.5, 1.5);
	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_faults");
	TCase *tc;

	tc = tcase_create("faults");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_fault_oob_global);
	tcase_add_test(tc, test_fault_oob_shared);
	tcase_add_test(tc, test_uninit_is_a_warning);
	tcase_add_test(tc, test_fault_race);
	tcase_add_test(tc, test_race_bytes);
	tcase_add_test(tc, test_fault_divergent_barrier);
	tcase_add_test(tc, test_early_exit_before_barrier);
	tcase_add_test(tc, test_barrier_ok);
	tcase_add_test(tc, test_fault_endless);
	tcase_add_test(tc, test_fault_misaligned);
	tcase_add_test(tc, test_fault_trap);
	tcase_add_test(tc, test_fault_assert);
	tcase_add_test(tc, test_device_printf);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
