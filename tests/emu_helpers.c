/*
 * What the emulator's Check tests share (emu_helpers.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "emu/wgemu.h"
#include "emu_helpers.h"

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open '%s'", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert(buf != NULL);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

void load(const char *path)
{
	char err[512];
	size_t len;
	char *ptx = slurp(path, &len);

	ck_assert_msg(wgemu_load_ptx(ptx, len, err, sizeof(err)) >= 0,
		      "%s: %s", path, err);
	free(ptx);
}

cudaError_t launch(const char *kernel, unsigned gx, unsigned gy,
		   unsigned bx, unsigned by, size_t smem, void **args)
{
	const void *k = wgemu_kernel(kernel);
	dim3 g = { gx, gy, 1 }, b = { bx, by, 1 };

	ck_assert_msg(k != NULL, "no kernel '%s'", kernel);
	return cudaLaunchKernel(k, g, b, args, smem, NULL);
}

void *dalloc(size_t n)
{
	void *p = NULL;

	ck_assert_int_eq(cudaMalloc(&p, n), cudaSuccess);
	ck_assert_int_eq(cudaMemset(p, 0, n), cudaSuccess);
	return p;
}

struct wgemu_counters last_counters(void)
{
	struct wgemu_launch l;

	ck_assert_int_ge(wgemu_launch_count(), 1);
	ck_assert_int_eq(wgemu_launch_get(wgemu_launch_count() - 1, &l), 0);
	return l.counters;
}

int emu_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	setenv("WGEMU_QUIET", "1", 1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
