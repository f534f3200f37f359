/*
 * Check tests of the emulator (harness/emu), 'warpgrade emu' end to end:
 * a program built against the emulator with nvcc (skipped without it),
 * run, and its counters written as JSON; the registers ptxas gives its
 * kernels, which the predictions take, and 32 assumed where ptxas
 * cannot build a file for sm_90.
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
#include "paths.h"
#include "resusage.h"
#include "util.h"

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

/* cmd_emu(argv) with what it and the program print on stdout kept in
 * out (malloc'd); its exit status. */
static int cmd_emu_output(int argc, char **argv, char **out)
{
	char log[] = "/tmp/wg-emu-out-XXXXXX";
	int fd = mkstemp(log), saved, rc;

	ck_assert_int_ge(fd, 0);
	close(fd);
	fflush(stdout);
	saved = dup(1);
	ck_assert_ptr_nonnull(freopen(log, "w", stdout));
	rc = cmd_emu(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	*out = read_file(log, 1 << 20, NULL);
	ck_assert_ptr_nonnull(*out);
	unlink(log);
	return rc;
}

/* The registers ptxas gives kernel (mangled) of src compiled for sm_90
 * as 'warpgrade emu' compiles it, asked of nvcc here. */
static unsigned ptxas_regs(const char *src, const char *kernel)
{
	char nvcc[4096], err[] = "/tmp/wg-emu-ptxas-XXXXXX", *cmd, *text;
	const struct resusage_kernel *k;
	struct resusage u;
	int fd = mkstemp(err);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(wg_nvcc(nvcc, sizeof(nvcc)), 0);
	cmd = xstrfmt("'%s' -c -gencode arch=compute_90,code=sm_90 "
		      "-lineinfo -Xptxas -v %s -o %s.o 2>%s", nvcc, src, err,
		      err);
	ck_assert_int_eq(system(cmd), 0);
	text = read_file(err, 1 << 20, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_gt(resusage_parse(&u, text), 0);
	k = resusage_find(&u, kernel);
	ck_assert_msg(k != NULL, "ptxas said nothing of %s", kernel);
	free(text);
	free(cmd);
	cmd = xstrfmt("%s.o", err);
	unlink(cmd);
	unlink(err);
	free(cmd);
	return k->regs;
}

/* The registers a thread the report gives kernel (demangled) after
 * its table, and whether they were assumed; 0 when it names none. */
static unsigned reported_regs(const char *out, const char *kernel,
			      int *assumed)
{
	char *key = xstrfmt("\n  %s ", kernel);
	const char *p = strstr(out, key), *eol;
	unsigned n = 0;

	free(key);
	if (!p || sscanf(p + strlen(kernel) + 3, " %u registers a thread",
			 &n) != 1)
		return 0;
	eol = strchr(p + 1, '\n');
	*assumed = !strncmp(eol - 10, " (assumed)", 10);
	return n;
}

/* The predictions take the registers ptxas gives each kernel, and the
 * report and the JSON say them: tile<0> needs 28 under nvcc 13, not
 * the 32 the model assumes without. */
START_TEST(test_cmd_emu_registers)
{
	char cwd[4096], json[] = "/tmp/wg-emu-json-XXXXXX";
	char *argv[] = { "emu", "tests/emu/program.cu", "--counters", json,
			 NULL };
	unsigned tile, naive;
	json_error_t je;
	json_t *root, *l;
	char *out;
	int fd, assumed = -1;

	if (access("/usr/local/cuda/bin/nvcc", X_OK) && !getenv("CUDA_HOME"))
		return;   /* no toolkit: nothing to build with */
	ck_assert(getcwd(cwd, sizeof(cwd)) != NULL);
	setenv("WARPGRADE_ROOT", cwd, 1);
	fd = mkstemp(json);
	ck_assert_int_ge(fd, 0);
	close(fd);
	tile = ptxas_regs("tests/emu/program.cu", "_Z4tileILi0EEvPfPKfi");
	naive = ptxas_regs("tests/emu/program.cu",
			   "_Z15naive_transposePfPKfi");
	ck_assert_uint_ne(tile, 32);   /* else 32 assumed would pass */
	ck_assert_int_eq(cmd_emu_output(4, argv, &out), 0);
	ck_assert_msg(reported_regs(out, "tile<0>", &assumed) == tile &&
		      !assumed, "ptxas: %u registers; the report:\n%s",
		      tile, out);
	ck_assert_msg(reported_regs(out, "naive_transpose", &assumed) ==
		      naive && !assumed, "ptxas: %u registers; the "
		      "report:\n%s", naive, out);
	ck_assert_ptr_null(strstr(out, "(assumed)"));
	root = json_load_file(json, 0, &je);
	ck_assert_msg(root != NULL, "%s", je.text);
	l = json_array_get(json_object_get(root, "launches"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(l, "kernel")),
			 "tile<0>");
	ck_assert_int_eq(json_integer_value(json_object_get(l,
				"predicted_registers")), tile);
	ck_assert(json_is_false(json_object_get(l,
				"predicted_registers_assumed")));
	json_decref(root);
	free(out);
	unlink(json);
}
END_TEST

/* A file whose PTX is good but that ptxas cannot build for sm_90 (a
 * kernel with 52 KB of static shared memory, never launched) still
 * runs, as it did before the counts, its kernels' registers assumed. */
START_TEST(test_cmd_emu_registers_assumed)
{
	static const char prog[] =
		"#include <cstdio>\n"
		"__global__ void big(float *o)\n{\n"
		"\t__shared__ float t[13000];\n"
		"\tt[threadIdx.x] = o[threadIdx.x];\n"
		"\t__syncthreads();\n"
		"\to[threadIdx.x] = t[255 - threadIdx.x];\n}\n"
		"__global__ void small(float *o)\n{\n"
		"\to[threadIdx.x] = 1;\n}\n"
		"int main()\n{\n\tfloat *o;\n\tcudaMalloc(&o, 1024);\n"
		"\tsmall<<<1, 256>>>(o);\n"
		"\treturn cudaDeviceSynchronize() != cudaSuccess;\n}\n";
	char cwd[4096], src[] = "/tmp/wg-emu-big-XXXXXX.cu";
	char *argv[] = { "emu", src, NULL }, *out;
	int fd, assumed = -1;

	if (access("/usr/local/cuda/bin/nvcc", X_OK) && !getenv("CUDA_HOME"))
		return;   /* no toolkit: nothing to build with */
	ck_assert(getcwd(cwd, sizeof(cwd)) != NULL);
	setenv("WARPGRADE_ROOT", cwd, 1);
	fd = mkstemps(src, 3);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, prog, sizeof(prog) - 1),
			 (ssize_t)sizeof(prog) - 1);
	close(fd);
	ck_assert_int_eq(cmd_emu_output(2, argv, &out), 0);
	ck_assert_msg(reported_regs(out, "small", &assumed) == 32 && assumed,
		      "the report:\n%s", out);
	free(out);
	unlink(src);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_cmd");
	TCase *tc;

	tc = tcase_create("cmd_emu");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cmd_emu);
	tcase_add_test(tc, test_cmd_emu_registers);
	tcase_add_test(tc, test_cmd_emu_registers_assumed);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
