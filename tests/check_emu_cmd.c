/*
 * Check tests of the emulator (harness/emu), 'warpgrade emu' end to end:
 * a program built against the emulator with nvcc (skipped without it),
 * run, and its counters written as JSON.
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

START_TEST(test_cmd_emu)
{
	char cwd[4096], out[] = "/tmp/wg-emu-test-XXXXXX";
	char *argv[] = { "emu", "tests/emu/program.cu", "--counters", out,
			 "--", "fail", NULL };
	json_error_t je;
	json_t *root, *l;
	int fd, rc;

	if (access("/usr/local/cuda/bin/nvcc", X_OK) && !getenv("CUDA_HOME"))
		return;   /* no toolkit: nothing to build with */
	ck_assert(getcwd(cwd, sizeof(cwd)) != NULL);
	setenv("WARPGRADE_ROOT", cwd, 1);
	fd = mkstemp(out);
	ck_assert_int_ge(fd, 0);
	close(fd);
	rc = cmd_emu(6, argv);
	ck_assert_int_eq(rc, 3);   /* the program's own exit status */
	root = json_load_file(out, 0, &je);
	ck_assert_msg(root != NULL, "%s", je.text);
	ck_assert_int_eq(json_array_size(json_object_get(root, "launches")),
			 6);
	l = json_array_get(json_object_get(root, "launches"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(l, "kernel")),
			 "tile<0>");
	ck_assert_int_eq(json_integer_value(json_object_get(l,
				"shared_load_bank_conflicts")), 63488);
	l = json_array_get(json_object_get(root, "launches"), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(l,
				"dynamic_shared_bytes")), 256);
	json_decref(root);
	unlink(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_cmd");
	TCase *tc;

	tc = tcase_create("cmd_emu");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cmd_emu);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
