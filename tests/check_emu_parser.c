/*
 * Check tests of the emulator (harness/emu), the PTX parser: every
 * instruction form of ops.ptx computes what a GPU computes, malformed
 * PTX is refused with its line and reason, a kernel whose body does not
 * parse fails alone, labels are scoped to their function, long names,
 * instructions the interpreter lacks are kept until reached, nvcc's real
 * PTX parses, and kernel names demangle as a programmer writes them.
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

START_TEST(test_parse_forms)
{
	static const uint32_t want[44] = {
		(uint32_t)-3, (uint32_t)-1, 15, (uint32_t)-7, 0xfffffff9u, 7,
		(uint32_t)-4, 15, 30, 24, 0x80000000u, 0xbc, 0xffffffffu,
		0xf00, 0x66552211u, 79, (uint32_t)-7000000, 0xffffffffu,
		0xc0e00000u, 0x41200000u, 7, 2, (uint32_t)-3, 2, 30,
		0x3fc00000u, (uint32_t)-7000000, 0x1f, 5, 77, 42, 0x2345,
		(uint32_t)-16, 14, 0x41000000u, 0x41000000u, 0x3fc00000u,
		0x3e800000u, 3, 4, 0x3f800000u, 0xffff0f0fu, (uint32_t)-7,
		0x7fffffffu
	};
	uint32_t got[64];
	void *d;
	void *args[1];
	int i;

	load("tests/emu/ops.ptx");
	d = dalloc(256);
	args[0] = &d;
	ck_assert_int_eq(launch("ops", 1, 1, 32, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(got, d, 256, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (i = 0; i < 44; i++)
		ck_assert_msg(got[i] == want[i], "word %d: 0x%x, want 0x%x",
			      i, got[i], want[i]);
}
END_TEST

static const struct {
	const char *ptx;
	const char *msg;
} bad_ptx[] = {
	{ HDR ".visible .entry k()\n{\n\tadd.s32 %r1, %r2, 1;\n}\n",
	  "line 6: unknown name '%r1'" },
	{ HDR ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
	  "\tadd.s32 %r1, %r2;\n}\n", "line 7: 'add' takes 3 operands" },
	{ HDR ".visible .entry k()\n{\n\tret\n}\n", "line 7:" },
	{ HDR ".visible .entry k()\n{\n\tret;\n", "line 7: missing '}'" },
	{ HDR ".visible .entry k()\n{\n\t.reg .f32 %f<2>;\n"
	  "\tmov.f32 %f1, 0f3F80;\n\tret;\n}\n", "line 7: bad float" },
	{ HDR ".visible .entry k()\n{\n\tbra.uni NOWHERE;\n}\n",
	  "unknown label 'NOWHERE'" },
	{ HDR ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
	  "\t.reg .b64 %rd<2>;\n\tld.global.u32 %r1, %rd1;\n}\n",
	  "line 8: expected an address" },
	{ HDR ".bogus 1;\n", "line 4: unknown directive '.bogus'" },
	{ HDR "#include\n", "line 4: unexpected character '#'" },
	{ HDR ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
	  "\t.reg .pred %p<2>;\n\tsetp.lt.s32 %r1, %r1, 0;\n}\n",
	  "line 8: '%r1' is not a predicate" },
	{ HDR ".visible .entry k(.param .u32 a)\n{\n\t.reg .b32 %r<2>;\n"
	  "\tst.param.u32 [a], %r1;\n}\n", "line 7: store to a kernel" },
	{ HDR ".visible .entry k()\n{\n/* never closed\n", "line 6: "
	  "unterminated comment" },
};

/* A body the parser cannot read fails its function alone: the module
 * loads, and the check (like a launch) names the error; what is wrong
 * outside a body fails the module. */
START_TEST(test_parse_malformed)
{
	char err[256];
	struct emu_module *m;
	struct emu_lack *lacks = NULL;

	m = emu_ptx_parse(bad_ptx[_i].ptx, strlen(bad_ptx[_i].ptx), err,
			  sizeof(err));
	if (m) {
		ck_assert_msg(emu_module_lacks(m, &lacks) == 1,
			      "case %d passed the check", _i);
		snprintf(err, sizeof(err), "%s", lacks[0].what);
		ck_assert_msg(strstr(err, "whose PTX it cannot parse") != NULL,
			      "case %d: got '%s'", _i, err);
		free(lacks);
		emu_module_free(m);
	}
	ck_assert_msg(strstr(err, bad_ptx[_i].msg) != NULL,
		      "case %d: got '%s', want '%s'", _i, err,
		      bad_ptx[_i].msg);
}
END_TEST

/* One kernel the parser cannot read does not take the others down. */
START_TEST(test_parse_one_bad_kernel)
{
	static const char ptx[] = HDR
		".visible .entry bad()\n{\n\t.bogus 3;\n\tret;\n}\n"
		".visible .entry good(.param .u64 p)\n{\n"
		"\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n"
		"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, WARP_SZ;\n"
		"\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
	char err[512];
	int *d = dalloc(4), h = 0;
	void *args[1] = { &d };

	ck_assert_int_ge(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)),
			 0);
	ck_assert_int_eq(launch("good", 1, 1, 1, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
	ck_assert_int_eq(h, 32);
	ck_assert_int_eq(launch("bad", 1, 1, 1, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorNotSupported);
	ck_assert_int_eq(wgemu_last_fault(err, sizeof(err)),
			 WGEMU_FAULT_UNSUPPORTED);
	ck_assert_msg(strstr(err, "the emulator cannot run 'bad', whose PTX "
			     "it cannot parse (line 6: unknown directive "
			     "'.bogus' in function)"), "%s", err);
	cudaDeviceReset();
}
END_TEST

/* A label is known in its { } block only: inline assembly that repeats
 * a label in a block of its own at each use (CUTLASS's "LAB_WAIT:")
 * branches to its own copy; the body's labels are found from inside. */
START_TEST(test_parse_scoped_labels)
{
	static const char ptx[] = HDR
		".visible .entry scoped(.param .u64 p)\n{\n"
		"\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<4>;\n"
		"\t.reg .pred %p<2>;\n"
		"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, 0;\n"
		"\tmov.u32 %r2, 0;\n"
		"\t{\n\tL: add.u32 %r1, %r1, 1;\n"
		"\tsetp.lt.u32 %p1, %r1, 5;\n\t@%p1 bra L;\n\t}\n"
		"\t{\n\tL: add.u32 %r2, %r2, 10;\n"
		"\tsetp.lt.u32 %p1, %r2, 30;\n\t@%p1 bra L;\n"
		"\tbra OUT;\n\t}\n"
		"\tmov.u32 %r2, 1000;\n"
		"OUT:\n\tadd.u32 %r3, %r1, %r2;\n"
		"\tst.global.u32 [%rd1], %r3;\n\tret;\n}\n";
	char err[512];
	int *d = dalloc(4), h = 0;
	void *args[1] = { &d };

	ck_assert_msg(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)) >= 0,
		      "%s", err);
	ck_assert_int_eq(launch("scoped", 1, 1, 1, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
	ck_assert_int_eq(h, 35);
}
END_TEST

/* Template kernels have long mangled names, and their parameters the
 * same name plus "_param_N": such names are kept whole (they once were
 * cut at 127 characters, so two parameters became one), and a name
 * longer than the parser keeps is an error, never a silent cut. */
START_TEST(test_parse_long_names)
{
	char base[400], *ptx, err[256];
	struct emu_module *m;
	size_t cap = 8192;
	int n;

	memset(base, 'x', sizeof(base) - 1);
	base[0] = '_';
	base[sizeof(base) - 1] = '\0';
	ptx = malloc(cap);
	ck_assert_ptr_nonnull(ptx);
	n = snprintf(ptx, cap,
		     ".version 8.0\n.target sm_90\n.address_size 64\n"
		     ".visible .entry %s(.param .u32 %s_param_0, "
		     ".param .u32 %s_param_1)\n{\n.reg .b32 %%r<3>;\n"
		     "ld.param.u32 %%r1, [%s_param_0];\n"
		     "ld.param.u32 %%r2, [%s_param_1];\nret;\n}\n",
		     base, base, base, base, base);
	ck_assert((size_t)n < cap);
	m = emu_ptx_parse(ptx, (size_t)n, err, sizeof(err));
	ck_assert_msg(m != NULL, "%s", err);
	ck_assert_int_eq(m->funcs[0].nparams, 2);
	emu_module_free(m);
	free(ptx);

	ptx = malloc(cap);
	memset(ptx, 'y', 3000);
	memcpy(ptx, ".entry _", 8);
	ptx[3000] = '\0';
	m = emu_ptx_parse(ptx, 3000, err, sizeof(err));
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err, "a name of more than 2047 characters"), "%s",
		      err);
	free(ptx);
}
END_TEST

START_TEST(test_parse_unsupported)
{
	static const char ptx[] = HDR
		".file 1 \"u.cu\"\n"
		".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
		"\t.loc 1 12 3\n\tfrobnicate.b32 %r1, %r2;\n\tret;\n}\n";
	char err[256], msg[800];

	ck_assert_int_ge(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)),
			 0);
	ck_assert_int_eq(launch("k", 1, 1, 32, 1, 0, NULL), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorNotSupported);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_UNSUPPORTED);
	ck_assert_msg(strstr(msg, "frobnicate.b32") && strstr(msg, "u.cu:12"),
		      "%s", msg);
}
END_TEST

START_TEST(test_parse_real_ptx)
{
	char err[256];
	size_t len;
	char *ptx = slurp("tests/emu/kernels.ptx", &len);
	struct emu_module *m = emu_ptx_parse(ptx, len, err, sizeof(err));

	ck_assert_msg(m != NULL, "%s", err);
	ck_assert_int_ge(emu_module_find(m, "_Z4tileILi1EEvPfPKfi"), 0);
	ck_assert_int_ge(emu_module_find(m, "_Z7collatzi"), 0);
	ck_assert_int_ge(m->nlines, 10);
	emu_module_free(m);
	free(ptx);
}
END_TEST

/* Kernel names as the counters report them; truncated or hostile
 * mangled names (found by fuzzing: "...IL" at the end) must not overrun. */
START_TEST(test_demangle)
{
	static const char *const bad[] = { "_Z4tileIL", "_Z4tileI",
		"_Z4tileILi", "_Z4tileILin", "_Z", "_Z999x", "" };
	char buf[128];

	emu_demangle("_Z4tileILi1EEvPfPKfii", buf, sizeof(buf));
	ck_assert_str_eq(buf, "tile<1>");
	emu_demangle("_Z9transposePfPKfii", buf, sizeof(buf));
	ck_assert_str_eq(buf, "transpose");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		emu_demangle(bad[i], buf, sizeof(buf));
		ck_assert(strlen(buf) < sizeof(buf));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_parser");
	TCase *tc;

	tc = tcase_create("parser");
	tcase_add_test(tc, test_parse_forms);
	tcase_add_loop_test(tc, test_parse_malformed, 0,
			    (int)(sizeof(bad_ptx) / sizeof(bad_ptx[0])));
	tcase_add_test(tc, test_parse_one_bad_kernel);
	tcase_add_test(tc, test_parse_scoped_labels);
	tcase_add_test(tc, test_parse_long_names);
	tcase_add_test(tc, test_parse_unsupported);
	tcase_add_test(tc, test_parse_real_ptx);
	tcase_add_test(tc, test_demangle);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
