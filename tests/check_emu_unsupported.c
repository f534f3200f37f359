/*
 * Check tests of what the emulator cannot run (harness/emu/vm/check.c):
 * PTX with an instruction the interpreter lacks loads, a kernel that
 * never reaches it runs, one that reaches it faults UNSUPPORTED naming
 * the instruction, the kernel and the source line, and the grader's
 * check (wgemu_check_ptx) lists, kernel by kernel, exactly what a fault
 * can name, in the same words.  Also module variables: a __device__
 * array larger than the host's memory loads lazily, one larger than the
 * device's 80 GiB fails the launch with cudaErrorMemoryAllocation.
 * And 'warpgrade emu' says which instruction stopped a program.
 *
 * The kernels are PTX written by hand: multimem.ld_reduce (NVLink
 * multicast memory, which the emulator has no notion of) stands for an
 * instruction nvcc emits and the interpreter does not implement.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "emu/emu.h"
#include "emu/wgemu.h"
#include "cmd_emu.h"

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n" \
	".file 1 \"u.cu\"\n"
#define MULTIMEM "multimem.ld_reduce.relaxed.sys.global.add.f32"

/* Kernel `store42` writes 42 through its pointer; `never` reduces
 * through multicast memory at u.cu:30; `maybe` does so at u.cu:20 only
 * when its flag is set, and writes 7 otherwise; `caller` reaches it in
 * the function `helper` (u.cu:40). */
static const char ptx[] = HDR
	".visible .entry store42(.param .u64 p)\n{\n"
	"\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n"
	"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, 42;\n"
	"\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
	".visible .entry never(.param .u64 p)\n{\n"
	"\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
	"\tld.param.u64 %rd1, [p];\n"
	"\t.loc 1 30 5\n\t" MULTIMEM " %f1, [%rd1];\n"
	"\tst.global.f32 [%rd1], %f1;\n\tret;\n}\n"
	".visible .entry maybe(.param .u64 p, .param .u32 flag)\n{\n"
	"\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<3>;\n\t.reg .f32 %f<2>;\n"
	"\t.reg .pred %p<2>;\n"
	"\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [flag];\n"
	"\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra SKIP;\n"
	"\t.loc 1 20 5\n\t" MULTIMEM " %f1, [%rd1];\n"
	"\tst.global.f32 [%rd1], %f1;\n\tret;\n"
	"SKIP:\n\tmov.u32 %r2, 7;\n\tst.global.u32 [%rd1], %r2;\n"
	"\tret;\n}\n"
	".func helper(.param .b64 q)\n{\n"
	"\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
	"\tld.param.u64 %rd1, [q];\n"
	"\t.loc 1 40 5\n\t" MULTIMEM " %f1, [%rd1];\n"
	"\tst.global.f32 [%rd1], %f1;\n\tret;\n}\n"
	".visible .entry caller(.param .u64 p)\n{\n"
	"\t.reg .b64 %rd<2>;\n"
	"\tld.param.u64 %rd1, [p];\n"
	"\t{\n\t.param .b64 a;\n\tst.param.b64 [a], %rd1;\n"
	"\tcall.uni helper, (a);\n\t}\n\tret;\n}\n";

struct lacks {
	int n;
	char line[16][512];	/* "name|what|where" */
};

static void keep(const struct wgemu_lack *l, void *ctx)
{
	struct lacks *v = ctx;

	ck_assert_int_lt(v->n, 16);
	snprintf(v->line[v->n++], sizeof(v->line[0]), "%s|%s|%s|%s",
		 l->kernel, l->name, l->what, l->where);
}

static void check(const char *text, struct lacks *v)
{
	char err[256];

	memset(v, 0, sizeof(*v));
	ck_assert_msg(wgemu_check_ptx(text, strlen(text), keep, v, err,
				      sizeof(err)) == 0, "%s", err);
}

static void load(const char *text)
{
	char err[256];

	ck_assert_msg(wgemu_load_ptx(text, strlen(text), err,
				     sizeof(err)) >= 0, "%s", err);
}

static cudaError_t launch(const char *kernel, void **args)
{
	const void *k = wgemu_kernel(kernel);
	dim3 g = { 1, 1, 1 }, b = { 32, 1, 1 };

	ck_assert_msg(k != NULL, "no kernel '%s'", kernel);
	return cudaLaunchKernel(k, g, b, args, 0, NULL);
}

static uint32_t *dalloc(void)
{
	void *p = NULL;

	ck_assert_int_eq(cudaMalloc(&p, 64), cudaSuccess);
	ck_assert_int_eq(cudaMemset(p, 0, 64), cudaSuccess);
	return p;
}

static uint32_t read_back(const uint32_t *d)
{
	uint32_t h = 0;

	ck_assert_int_eq(cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	return h;
}

/* The fault's message, checked to name kernel, line and what. */
static void expect_fault(const char *kernel, const char *where,
			 const char *what)
{
	char msg[800], want[400];

	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorNotSupported);
	ck_assert_int_eq(wgemu_last_fault(msg, sizeof(msg)),
			 WGEMU_FAULT_UNSUPPORTED);
	snprintf(want, sizeof(want), "kernel '%s' at %s, ", kernel, where);
	ck_assert_msg(strstr(msg, want) == msg, "%s", msg);
	snprintf(want, sizeof(want), ": the emulator cannot run %s", what);
	ck_assert_msg(strlen(msg) > strlen(want) &&
		      !strcmp(msg + strlen(msg) - strlen(want), want),
		      "%s does not end in %s", msg, want);
}

/* ---- parse and run ---- */

/* A kernel never launched may hold what the emulator lacks. */
START_TEST(test_unlaunched_kernel)
{
	uint32_t *d;
	void *args[1];

	load(ptx);
	d = dalloc();
	args[0] = &d;
	ck_assert_int_eq(launch("store42", args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_uint_eq(read_back(d), 42);
	ck_assert_int_eq(wgemu_last_fault(NULL, 0), WGEMU_FAULT_NONE);
}
END_TEST

/* A branch not taken costs nothing; taken, it faults naming all. */
START_TEST(test_branch_not_taken)
{
	uint32_t *d, flag = 0;
	void *args[2];

	load(ptx);
	d = dalloc();
	args[0] = &d;
	args[1] = &flag;
	ck_assert_int_eq(launch("maybe", args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_uint_eq(read_back(d), 7);
	flag = 1;
	ck_assert_int_eq(launch("maybe", args), cudaSuccess);
	expect_fault("maybe", "u.cu:20", "the instruction '" MULTIMEM "'");
}
END_TEST

/* Reached in a function it calls, the fault names the kernel launched
 * and the function's line. */
START_TEST(test_reached_in_callee)
{
	uint32_t *d;
	void *args[1];

	load(ptx);
	d = dalloc();
	args[0] = &d;
	ck_assert_int_eq(launch("caller", args), cudaSuccess);
	expect_fault("caller", "u.cu:40", "the instruction '" MULTIMEM "'");
}
END_TEST

/* Text that does not parse at all still fails the module. */
START_TEST(test_garbage_stays_an_error)
{
	static const char bad[] = HDR ".visible .entry k()\n{\n\tret;\n}\n"
		"}}}\n";
	struct lacks v;
	char err[256];

	memset(&v, 0, sizeof(v));
	ck_assert_int_eq(wgemu_check_ptx(bad, strlen(bad), keep, &v, err,
					 sizeof(err)), -1);
	ck_assert_msg(strstr(err, "line 9") != NULL, "%s", err);
	ck_assert_int_lt(wgemu_load_ptx(bad, strlen(bad), err, sizeof(err)),
			 0);
}
END_TEST

/* ---- the grader's check ---- */

/* Kernel by kernel: what each can reach, its own or its callees'. */
START_TEST(test_check_lists_kernels)
{
	static const char *const want[] = {
		"never|never|the instruction '" MULTIMEM "'|u.cu:30",
		"maybe|maybe|the instruction '" MULTIMEM "'|u.cu:20",
		"caller|caller|the instruction '" MULTIMEM "'|u.cu:40",
	};
	struct lacks v;

	check(ptx, &v);
	ck_assert_int_eq(v.n, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(v.line[i], want[i]);
}
END_TEST

/* The name a fault gives a templated kernel is the name listed. */
START_TEST(test_check_demangles)
{
	static const char text[] = HDR
		".visible .entry _Z4tileILi1EEvPf(.param .u64 p)\n{\n"
		"\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
		"\tld.param.u64 %rd1, [p];\n"
		"\t.loc 1 9 1\n\t" MULTIMEM " %f1, [%rd1];\n\tret;\n}\n";
	struct lacks v;
	uint32_t *d;
	void *args[1];

	check(text, &v);
	ck_assert_int_eq(v.n, 1);
	ck_assert_str_eq(v.line[0], "_Z4tileILi1EEvPf|tile<1>|the "
			 "instruction '" MULTIMEM "'|u.cu:9");
	load(text);
	d = dalloc();
	args[0] = &d;
	ck_assert_int_eq(launch("_Z4tileILi1EEvPf", args), cudaSuccess);
	expect_fault("tile<1>", "u.cu:9", "the instruction '" MULTIMEM "'");
}
END_TEST

/* A call through a pointer may reach any function, the same
 * instruction twice is listed once, a kernel that calls no such
 * function lacks nothing, and a kernel called is not followed: the call
 * itself is what the caller lacks. */
START_TEST(test_check_follows_calls)
{
	static const char text[] = HDR
		".func twice()\n{\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
		"\t.loc 1 7 1\n\t" MULTIMEM " %f1, [%rd1];\n"
		"\t.loc 1 8 1\n\t" MULTIMEM " %f1, [%rd1];\n\tret;\n}\n"
		".func clean()\n{\n\tret;\n}\n"
		".visible .entry other()\n{\n\t.reg .b64 %rd<2>;\n"
		"\t.reg .f32 %f<2>;\n"
		"\t.loc 1 12 1\n\t" MULTIMEM " %f1, [%rd1];\n\tret;\n}\n"
		".visible .entry ptr(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n"
		"\tld.param.u64 %rd1, [p];\n\t{\n"
		"\tproto : .callprototype ()_ ();\n"
		"\tcall %rd1, (), proto;\n\t}\n\tret;\n}\n"
		".visible .entry plain()\n{\n\tcall.uni clean, ();\n"
		"\tret;\n}\n"
		".visible .entry calls_kernel()\n{\n"
		"\t.loc 1 30 1\n\tcall.uni other, ();\n\tret;\n}\n";
	static const char *const want[] = {
		"other|other|the instruction '" MULTIMEM "'|u.cu:12",
		"ptr|ptr|the instruction '" MULTIMEM "'|u.cu:7",
		"calls_kernel|calls_kernel|a call to the kernel function "
		"'other'|u.cu:30",
	};
	struct lacks v;

	check(text, &v);
	ck_assert_int_eq(v.n, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(v.line[i], want[i]);
}
END_TEST

/* The list stops at 1024 entries, however many kernels there are. */
START_TEST(test_check_is_capped)
{
	size_t cap = 1100 * 160, n = 0;
	char *text = malloc(cap);
	struct emu_module *m;
	struct emu_lack *l = NULL;
	char err[256];

	ck_assert_ptr_nonnull(text);
	n += (size_t)snprintf(text, cap, HDR);
	for (int k = 0; k < 1100; k++)
		n += (size_t)snprintf(text + n, cap - n, ".visible .entry "
				      "k%d()\n{\n\tfrob%d.b32;\n\tret;\n}\n",
				      k, k);
	m = emu_ptx_parse(text, n, err, sizeof(err));
	ck_assert_msg(m != NULL, "%s", err);
	ck_assert_int_eq(emu_module_lacks(m, &l), EMU_LACKS_MAX);
	ck_assert_str_eq(l[EMU_LACKS_MAX - 1].what, "the instruction "
			 "'frob1023.b32'");
	free(l);
	emu_module_free(m);
	free(text);
}
END_TEST

/* Every kind of instruction the interpreter refuses: the check lists
 * it, and a launch that reaches it faults in the check's own words.
 * Each is the one instruction of a kernel k(p) at u.cu:5. */
static const struct {
	const char *regs, *insn, *what;
} forms[] = {
	{ ".reg .f32 %f<2>;", MULTIMEM " %f1, [%rd1];",
	  "the instruction '" MULTIMEM "'" },
	{ ".reg .b32 %r<5>;", "prmt.b32.f4e %r1, %r2, %r3, %r4;",
	  "the instruction 'prmt.b32.f4e'" },
	{ ".reg .b32 %r<5>;", "mul24.hi.s32 %r1, %r2, %r3;",
	  "the form 'mul24.s32' of mul24" },
	{ ".reg .b64 %x<3>;", "cvta.param.u64 %x1, %x2;",
	  "cvta of .param" },
	{ ".reg .f32 %f<3>;", "atom.global.max.f32 %f1, [%rd1], %f2;",
	  "the atomic 'atom' on 4-byte floating-point values" },
	{ "", "call.uni ext;", "a call to the external function 'ext'" },
	{ "", ".bogus 1;",
	  "'k', whose PTX it cannot parse (line 12: unknown directive "
	  "'.bogus' in function)" },
};

START_TEST(test_fault_says_what_check_lists)
{
	char text[1024], want[512];
	struct lacks v;
	uint32_t *d;
	void *args[1];

	snprintf(text, sizeof(text), HDR ".extern .func ext();\n"
		 ".visible .entry k(.param .u64 p)\n{\n"
		 "\t.reg .b64 %%rd<2>;\n\t%s\n"
		 "\tld.param.u64 %%rd1, [p];\n\t.loc 1 5 1\n\t%s\n"
		 "\tret;\n}\n", forms[_i].regs, forms[_i].insn);
	check(text, &v);
	ck_assert_msg(v.n == 1, "%d lacks for '%s'", v.n, forms[_i].insn);
	snprintf(want, sizeof(want), "k|k|%s|%s", forms[_i].what,
		 strstr(forms[_i].insn, "bogus") ? "" : "u.cu:5");
	ck_assert_str_eq(v.line[0], want);
	load(text);
	d = dalloc();
	args[0] = &d;
	ck_assert_int_eq(launch("k", args), cudaSuccess);
	expect_fault("k", strstr(forms[_i].insn, "bogus") ? "?:?" : "u.cu:5",
		     forms[_i].what);
}
END_TEST

/* ---- module variables ---- */

/* 20 GiB of __device__ array nothing touches: it loads (on no more host
 * memory than a GPU has device memory for it) and the kernel runs. */
START_TEST(test_huge_device_array_loads)
{
	static const char text[] = HDR
		".global .align 4 .b8 big[21474836480];\n"
		".visible .entry k(.param .u64 p)\n{\n"
		"\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<2>;\n"
		"\tld.param.u64 %rd1, [p];\n\tmov.u64 %rd2, big;\n"
		"\tld.global.u32 %r1, [%rd2+4096];\n\tadd.u32 %r1, %r1, 5;\n"
		"\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
	struct lacks v;
	uint32_t *d;
	void *args[1];

	check(text, &v);
	ck_assert_int_eq(v.n, 0);
	load(text);
	d = dalloc();
	args[0] = &d;
	ck_assert_int_eq(launch("k", args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_uint_eq(read_back(d), 5);
}
END_TEST

/* The runtime's registration hooks, which nvcc's host code calls. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **handle, const char *hostFun,
			    char *deviceFun, const char *deviceName,
			    int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bDim, dim3 *gDim, int *wSize);

/* Register text as nvcc's host code registers a module: a fatbinary
 * with one uncompressed PTX entry, loaded at its first launch; its
 * kernel `name` gets the host stub `stub`. */
static void register_ptx(const char *text, char *name, const void *stub)
{
	static uint8_t bin[4096];
	static struct {
		uint32_t magic, version;
		const void *data, *rest;
	} wrap = { 0x466243b1u, 1, bin, NULL };
	uint64_t n = strlen(text) + 1, total = 64 + n;
	uint32_t magic = 0xba55ed50u, hsize = 64, arch = 90;
	uint16_t version = 1, head = 16, kind = 1;
	void **h;

	ck_assert_uint_le(16 + total, sizeof(bin));
	memset(bin, 0, sizeof(bin));
	memcpy(bin, &magic, 4);
	memcpy(bin + 4, &version, 2);
	memcpy(bin + 6, &head, 2);
	memcpy(bin + 8, &total, 8);
	memcpy(bin + 16, &kind, 2);
	memcpy(bin + 16 + 4, &hsize, 4);
	memcpy(bin + 16 + 8, &n, 8);
	memcpy(bin + 16 + 28, &arch, 4);
	memcpy(bin + 16 + 64, text, n);
	h = __cudaRegisterFatBinary(&wrap);
	ck_assert_ptr_nonnull(h);
	__cudaRegisterFunction(h, stub, name, name, -1, NULL, NULL, NULL,
			       NULL, NULL);
}

/* More than the device's 80 GiB fails the module's load as a GPU's
 * does: the launch returns cudaErrorMemoryAllocation (and loading the
 * PTX at once says why). */
START_TEST(test_device_array_beyond_device)
{
	static const char text[] = HDR
		".global .align 4 .b8 big[107374182400];\n"
		".visible .entry k()\n{\n\tret;\n}\n";
	static const char stub = 0;
	static char name[] = "k";
	struct lacks v;
	char err[256];
	dim3 one = { 1, 1, 1 };

	check(text, &v);
	ck_assert_int_eq(v.n, 0);
	register_ptx(text, name, &stub);
	ck_assert_int_eq(cudaLaunchKernel(&stub, one, one, NULL, 0, NULL),
			 cudaErrorMemoryAllocation);
	ck_assert_int_lt(wgemu_load_ptx(text, strlen(text), err,
					sizeof(err)), 0);
	ck_assert_str_eq(err, "out of device memory for the variable 'big' "
			 "(107374182400 bytes, more than the device has "
			 "free)");
}
END_TEST

/* ---- 'warpgrade emu' (needs nvcc) ---- */

/* A program whose kernel reaches what the emulator lacks on its second
 * launch only: the first runs, the second fails, and the command says
 * which instruction, kernel and line stopped it. */
START_TEST(test_cmd_emu_names_it)
{
	static const char prog[] =
		"#include <cstdio>\n"
		"__global__ void peek(float *out, int go)\n{\n"
		"\tfloat r = 1;\n"
		"\tif (go)\n"
		"\t\tasm volatile(\"" MULTIMEM " %0, [%1];\"\n"
		"\t\t\t     : \"=f\"(r) : \"l\"(out));\n"
		"\tout[threadIdx.x] = r;\n}\n"
		"int main()\n{\n\tfloat *d;\n\tcudaMalloc(&d, 128);\n"
		"\tpeek<<<1, 32>>>(d, 0);\n"
		"\tprintf(\"first: %s\\n\", cudaGetErrorString("
		"cudaDeviceSynchronize()));\n"
		"\tpeek<<<1, 32>>>(d, 1);\n"
		"\tprintf(\"second: %s\\n\", cudaGetErrorString("
		"cudaDeviceSynchronize()));\n\treturn 0;\n}\n";
	char cwd[4096], dir[] = "/tmp/wg-emu-unsup-XXXXXX", src[64], log[64];
	char *argv[] = { "emu", src, NULL }, text[8192];
	FILE *f;
	size_t n;
	int saved;

	if (access("/usr/local/cuda/bin/nvcc", X_OK) && !getenv("CUDA_HOME"))
		return;   /* no toolkit: nothing to build with */
	ck_assert(getcwd(cwd, sizeof(cwd)) != NULL);
	setenv("WARPGRADE_ROOT", cwd, 1);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/prog.cu", dir);
	snprintf(log, sizeof(log), "%s/out", dir);
	f = fopen(src, "w");
	ck_assert_ptr_nonnull(f);
	fputs(prog, f);
	fclose(f);
	/* what it prints, and the program's own lines */
	fflush(stdout);
	saved = dup(1);
	ck_assert_ptr_nonnull(freopen(log, "w", stdout));
	ck_assert_int_eq(cmd_emu(2, argv), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fopen(log, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(text, "first: no error") &&
		      strstr(text, "second: operation not supported") &&
		      strstr(text, "kernel fault: kernel 'peek' at prog.cu:7, "
			     "thread (0,0,0) of block (0,0,0): the emulator "
			     "cannot run the instruction '" MULTIMEM "'"),
		      "%s", text);
	unlink(src);
	unlink(log);
	rmdir(dir);
}
END_TEST

static Suite *unsupported_suite(void)
{
	Suite *s = suite_create("emu_unsupported");
	TCase *tc;

	tc = tcase_create("run");
	tcase_add_test(tc, test_unlaunched_kernel);
	tcase_add_test(tc, test_branch_not_taken);
	tcase_add_test(tc, test_reached_in_callee);
	tcase_add_test(tc, test_garbage_stays_an_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_test(tc, test_check_lists_kernels);
	tcase_add_test(tc, test_check_demangles);
	tcase_add_test(tc, test_check_follows_calls);
	tcase_add_test(tc, test_check_is_capped);
	tcase_add_loop_test(tc, test_fault_says_what_check_lists, 0,
			    sizeof(forms) / sizeof(forms[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("variables");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_huge_device_array_loads);
	tcase_add_test(tc, test_device_array_beyond_device);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmd_emu");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cmd_emu_names_it);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(unsupported_suite());
	int failed;

	/* the faults are expected: keep the runtime's notes off stderr */
	setenv("WGEMU_QUIET", "1", 1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
