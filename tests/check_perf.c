/*
 * Check tests of the emulator's performance model (harness/emu/perf*.c):
 * what it must get right whatever its fitted constants -- the seed's
 * ordering of the transposes, a capped grid against a full one, the
 * H200 against the H100, determinism, sampling -- on the kernels of
 * tests/emu/perf_kernels.cu at the performance shape (8192 x 8192).
 * How close it comes to an H100 is the corpus's business
 * (bench/corpus/run-fit, docs/EMULATOR.md), not a unit test's.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "emu/perf.h"
#include "emu/wgemu.h"

#define N 8192

static void load(void)
{
	FILE *f = fopen("tests/emu/perf_kernels.ptx", "rb");
	char err[512], *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open tests/emu/perf_kernels.ptx");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert(buf != NULL);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	ck_assert_msg(wgemu_load_ptx(buf, (size_t)n, err, sizeof(err)) >= 0,
		      "%s", err);
	free(buf);
}

/* The predicted time of one launch of kernel on 8192 x 8192 floats. */
static double predict(const char *gpu, const char *kernel, unsigned gx,
		      unsigned gy, unsigned bx, unsigned by,
		      struct wgemu_perf_launch *out)
{
	const void *k;
	void *in = NULL, *o = NULL;
	int rows = N, cols = N;
	void *args[] = { &o, &in, &rows, &cols };
	dim3 g = { gx, gy, 1 }, b = { bx, by, 1 };
	struct wgemu_perf_launch l;

	ck_assert_int_eq(wgemu_perf_begin(gpu, 1), 0);
	ck_assert_int_eq(cudaMalloc(&in, (size_t)N * N * 4), cudaSuccess);
	ck_assert_int_eq(cudaMalloc(&o, (size_t)N * N * 4), cudaSuccess);
	k = wgemu_kernel(kernel);
	ck_assert_msg(k != NULL, "no kernel '%s'", kernel);
	ck_assert_int_eq(cudaLaunchKernel(k, g, b, args, 0, NULL),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_uint_eq(wgemu_perf_count(), 1);
	ck_assert_int_eq(wgemu_perf_get(0, &l), 0);
	wgemu_perf_end();
	cudaFree(in);
	cudaFree(o);
	if (out)
		*out = l;
	return l.ms;
}

/* Write-coalesced naive transpose faster than read-coalesced, both far
 * slower than the tiled one: the ordering the seed article measured. */
START_TEST(seed_ordering)
{
	double tiled, wr, rd;

	load();
	tiled = predict("H100", "tiled", N / 32, N / 32, 32, 8, NULL);
	wr = predict("H100", "naive_write_coalesced", N / 32, N / 8, 32, 8,
		     NULL);
	rd = predict("H100", "naive_read_coalesced", N / 32, N / 8, 32, 8,
		     NULL);
	ck_assert_msg(wr < rd, "write-coalesced %.3f ms, read-coalesced "
		      "%.3f ms", wr, rd);
	ck_assert_msg(wr > 1.5 * tiled && rd > 3 * tiled, "tiled %.3f, "
		      "write-coalesced %.3f, read-coalesced %.3f ms", tiled,
		      wr, rd);
	/* the tiled one is near a copy of 512 MiB at 3 TB/s */
	ck_assert_msg(tiled > 0.15 && tiled < 0.3, "tiled %.3f ms", tiled);
}
END_TEST

/* Half the SMs idle and a few warps each: latency, not bandwidth. */
START_TEST(capped_grid)
{
	struct wgemu_perf_launch few, full;

	load();
	predict("H100", "tiled_stride", 66, 1, 32, 8, &few);
	predict("H100", "tiled_stride", 1056, 1, 32, 8, &full);
	ck_assert_int_eq(few.active_sms, 66);
	ck_assert_int_eq(full.active_sms, 132);
	ck_assert_int_eq(full.resident_blocks, 8);
	ck_assert_msg(few.ms > 3 * full.ms, "66 blocks %.3f ms, 1056 blocks "
		      "%.3f ms", few.ms, full.ms);
	ck_assert_msg(strstr(few.limit, "latency") != NULL, "%s", few.limit);
}
END_TEST

/* More DRAM bandwidth, the same SMs: a kernel bound by DRAM bandwidth
 * is faster on the H200, and the names are what reports show. */
START_TEST(h200_profile)
{
	struct wgemu_perf_launch h100, h200;

	load();
	predict("H100", "copy4", N * N / 4 / 256, 1, 256, 1, &h100);
	predict("h200", "copy4", N * N / 4 / 256, 1, 256, 1, &h200);
	ck_assert_str_eq(h100.limit, "DRAM bandwidth");
	ck_assert_msg(h200.ms < 0.85 * h100.ms, "H100 %.3f ms, H200 %.3f ms",
		      h100.ms, h200.ms);
	ck_assert_ptr_nonnull(perf_gpu_find("NVIDIA H100 SXM"));
	ck_assert_ptr_null(perf_gpu_find("H1000"));
	ck_assert_int_eq(wgemu_perf_begin("A100", 1), -1);
}
END_TEST

/* The same launch, the same prediction; a sample of the grid, not all
 * of it; nothing runs outside the sample. */
START_TEST(deterministic_sample)
{
	struct wgemu_perf_launch a, b;

	load();
	predict("H100", "naive_read_coalesced", N / 32, N / 8, 32, 8, &a);
	predict("H100", "naive_read_coalesced", N / 32, N / 8, 32, 8, &b);
	ck_assert(a.ms == b.ms);
	ck_assert_uint_eq(a.sampled, PERF_SAMPLE_MAX);
	ck_assert_uint_eq(a.blocks_per_sm, (N / 32 * N / 8 + 131) / 132);
	ck_assert_str_eq(a.kernel, "naive_read_coalesced");
}
END_TEST

/* The sample is spread: distinct blocks, inside the grid, the first
 * few already far apart. */
START_TEST(sample_spread)
{
	uint64_t nb = 65536, seen[PERF_SAMPLE_MAX];
	size_t n = perf_sample_count(nb);

	ck_assert_uint_eq(n, PERF_SAMPLE_MAX);
	for (size_t i = 0; i < n; i++) {
		seen[i] = perf_sample_block(nb, i);
		ck_assert_uint_lt(seen[i], nb);
		for (size_t j = 0; j < i; j++)
			ck_assert_uint_ne(seen[i], seen[j]);
	}
	ck_assert_uint_lt(seen[0], nb / 2);
	ck_assert_uint_ge(seen[1], nb / 2);
	ck_assert_uint_eq(perf_sample_count(5), 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(perf_sample_block(5, i), i);
}
END_TEST

static Suite *perf_suite(void)
{
	Suite *s = suite_create("perf");
	TCase *tc = tcase_create("model");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, seed_ordering);
	tcase_add_test(tc, capped_grid);
	tcase_add_test(tc, h200_profile);
	tcase_add_test(tc, deterministic_sample);
	tcase_add_test(tc, sample_spread);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(perf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
