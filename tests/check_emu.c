/*
 * Check tests of the emulator (harness/emu): the PTX parser (instruction
 * forms, malformed input), post-dominators, divergence and reconvergence,
 * barriers, memory faults and races, the counters against
 * ground-truth.md, the runtime API, grid barriers and mbarriers (sync),
 * and 'warpgrade emu' end to end.
 *
 * Kernels come as PTX in tests/emu/ (regenerate with tests/emu/gen-ptx),
 * loaded with wgemu_load_ptx, so only the end-to-end case needs nvcc.
 * Check forks each test, so a kernel fault (sticky, as on a GPU) never
 * leaks into the next test.
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

static char *slurp(const char *path, size_t *len)
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

static void load(const char *path)
{
	char err[512];
	size_t len;
	char *ptx = slurp(path, &len);

	ck_assert_msg(wgemu_load_ptx(ptx, len, err, sizeof(err)) >= 0,
		      "%s: %s", path, err);
	free(ptx);
}

static cudaError_t launch(const char *kernel, unsigned gx, unsigned gy,
			  unsigned bx, unsigned by, size_t smem, void **args)
{
	const void *k = wgemu_kernel(kernel);
	dim3 g = { gx, gy, 1 }, b = { bx, by, 1 };

	ck_assert_msg(k != NULL, "no kernel '%s'", kernel);
	return cudaLaunchKernel(k, g, b, args, smem, NULL);
}

static void *dalloc(size_t n)
{
	void *p = NULL;

	ck_assert_int_eq(cudaMalloc(&p, n), cudaSuccess);
	ck_assert_int_eq(cudaMemset(p, 0, n), cudaSuccess);
	return p;
}

static struct wgemu_counters last_counters(void)
{
	struct wgemu_launch l;

	ck_assert_int_ge(wgemu_launch_count(), 1);
	ck_assert_int_eq(wgemu_launch_get(wgemu_launch_count() - 1, &l), 0);
	return l.counters;
}

#define CK_COUNTERS(c, a, b, cc, d, e, f, g, h) do { \
	ck_assert_uint_eq((c).global_load_requests, (a)); \
	ck_assert_uint_eq((c).global_load_sectors, (b)); \
	ck_assert_uint_eq((c).global_store_requests, (cc)); \
	ck_assert_uint_eq((c).global_store_sectors, (d)); \
	ck_assert_uint_eq((c).shared_load_wavefronts, (e)); \
	ck_assert_uint_eq((c).shared_load_bank_conflicts, (f)); \
	ck_assert_uint_eq((c).shared_store_wavefronts, (g)); \
	ck_assert_uint_eq((c).shared_store_bank_conflicts, (h)); \
} while (0)

/* ---- parser ---- */
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

/* What each thread t of tests/emu/uniform.ptx stores c-th, for k. */
static uint32_t uniform_want(int c, uint32_t t, uint32_t k)
{
	uint32_t odd = t & 1, c0 = (k + 1 + (odd ? 7 : 0)) * 3;

	switch (c) {
	case 0: return c0;
	case 1: return t + 1;
	case 2: return c0 + 2;
	case 3: return (odd ? 9 : 5) + k;
	case 4: return (odd ? 1 : 2) + k + 10;
	case 5: return 2 * k + 2 * t;
	case 6: return 80 + (odd ? 80 : 70);
	default: return t < 48 ? 2 * (k + 100 + odd) : 0;
	}
}

/* Registers that hold one value in every lane are computed once; every
 * write that may leave them different in some lane ends that. */
START_TEST(test_uniform_registers)
{
	uint32_t got[8 * 64], k = 1000;
	void *d, *args[2];

	load("tests/emu/uniform.ptx");
	d = dalloc(sizeof(got));
	args[0] = &d;
	args[1] = &k;
	ck_assert_int_eq(launch("uniform_cases", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(got, d, sizeof(got),
				    cudaMemcpyDeviceToHost), cudaSuccess);
	for (int c = 0; c < 8; c++)
		for (uint32_t t = 0; t < 64; t++)
			ck_assert_msg(got[c * 64 + t] == uniform_want(c, t, k),
				      "store %d of thread %u: %u, want %u", c,
				      t, got[c * 64 + t], uniform_want(c, t, k));
}
END_TEST

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

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

/* ---- control flow ---- */
START_TEST(test_postdominators)
{
	static const char ptx[] = HDR
		".visible .entry cfg(.param .u32 n)\n{\n"
		"\t.reg .pred %p<3>;\n\t.reg .b32 %r<5>;\n"
		"\tld.param.u32 %r1, [n];\n"          /* 0 */
		"\tsetp.eq.s32 %p1, %r1, 0;\n"        /* 1 */
		"\t@%p1 bra ELSE;\n"                  /* 2 */
		"\tadd.s32 %r2, %r1, 1;\n"            /* 3 */
		"\tbra.uni JOIN;\n"                   /* 4 */
		"ELSE:\n\tadd.s32 %r2, %r1, 2;\n"     /* 5 */
		"JOIN:\n\tmov.u32 %r3, 0;\n"          /* 6 */
		"LOOP:\n\tadd.s32 %r3, %r3, 1;\n"     /* 7 */
		"\tsetp.lt.s32 %p2, %r3, %r2;\n"      /* 8 */
		"\t@%p2 bra LOOP;\n"                  /* 9 */
		"\t@%p1 ret;\n"                       /* 10 */
		"\tmov.u32 %r4, 1;\n"                 /* 11 */
		"\tret;\n}\n";                        /* 12 */
	char err[256];
	struct emu_module *m = emu_ptx_parse(ptx, strlen(ptx), err,
					     sizeof(err));
	const struct emu_func *f;

	ck_assert_msg(m != NULL, "%s", err);
	f = &m->funcs[emu_module_find(m, "cfg")];
	ck_assert_int_eq(f->ninsns, 13);
	ck_assert_int_eq(emu_func_rpc(f, 2), 6);    /* if/else joins */
	ck_assert_int_eq(emu_func_rpc(f, 9), 10);   /* loop exit */
	ck_assert_int_eq(emu_func_rpc(f, 10), 13);  /* only the exit */
	emu_module_free(m);
}
END_TEST

static int collatz(int v)
{
	int s = 0;

	while (v != 1) {
		v = (v & 1) ? 3 * v + 1 : v / 2;
		s++;
	}
	return s;
}

/* collatz loops diverge per lane inside a called function, then shfl,
 * ballot, f64 math and an atomic */
START_TEST(test_divergence)
{
	int *o, r[65], w, l;
	double *dout, *din, h[64], dd[64];
	void *args[3];

	load("tests/emu/kernels.ptx");
	o = dalloc(65 * 4);
	dout = dalloc(512);
	din = dalloc(512);
	for (l = 0; l < 64; l++)
		h[l] = l * 1.5;
	cudaMemcpy(din, h, 512, cudaMemcpyHostToDevice);
	args[0] = &o;
	args[1] = &dout;
	args[2] = &din;
	ck_assert_int_eq(launch("_Z7divergePiPdPKd", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(r, o, sizeof(r), cudaMemcpyDeviceToHost);
	cudaMemcpy(dd, dout, 512, cudaMemcpyDeviceToHost);
	for (w = 0; w < 2; w++) {
		int v[32], v2[32];
		unsigned b = 0;

		for (l = 0; l < 32; l++)
			v[l] = collatz(w * 32 + l + 1);
		for (l = 0; l < 32; l++)
			v2[l] = v[l] + (l < 31 ? v[l + 1] : v[l]);
		for (l = 0; l < 32; l++)
			if (v2[l] & 1)
				b |= 1u << l;
		for (l = 0; l < 32; l++)
			ck_assert_int_eq(r[w * 32 + l],
					 v2[l] + __builtin_popcount(b));
	}
	ck_assert_int_eq(r[64], 64);
	for (l = 0; l < 64; l++)
		ck_assert(dd[l] == __builtin_fma(__builtin_sqrt(h[l]), 2.5,
						 h[l] / 3.0));
}
END_TEST

/* partial tiles and partial warps: every shape up to 40 x 40 */
START_TEST(test_transpose_shapes)
{
	float *a, *b, h[48 * 48], o[48 * 48];
	int rows, cols, i;

	load("tests/emu/kernels.ptx");
	a = dalloc(sizeof(h));
	b = dalloc(sizeof(o));
	for (i = 0; i < 48 * 48; i++)
		h[i] = (float)i;
	cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice);
	for (rows = 1; rows <= 40; rows += 3)
		for (cols = 1; cols <= 40; cols += 3) {
			void *args[4] = { &b, &a, &rows, &cols };

			ck_assert_int_eq(launch("_Z13transpose_anyPfPKfii",
						(unsigned)(cols + 31) / 32,
						(unsigned)(rows + 31) / 32, 32,
						8, 0, args), cudaSuccess);
			cudaMemcpy(o, b, sizeof(o), cudaMemcpyDeviceToHost);
			for (i = 0; i < rows * cols; i++)
				ck_assert(o[(i % cols) * rows + i / cols] ==
					  h[i]);
		}
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

START_TEST(test_partial_warp_reverse)
{
	int *d, h[48], o[48], n = 48, i;
	void *args[2];

	load("tests/emu/kernels.ptx");
	d = dalloc(sizeof(h));
	for (i = 0; i < n; i++)
		h[i] = i * 7;
	cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
	args[0] = &d;
	args[1] = &n;
	ck_assert_int_eq(launch("_Z7reversePii", 1, 1, 48, 1, 192, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(o[i], h[n - 1 - i]);
	/* 2 warps (32 + 16 lanes): 2 + 1 sectors... one request each */
	ck_assert_uint_eq(last_counters().global_load_requests, 2);
	ck_assert_uint_eq(last_counters().global_load_sectors, 4 + 2);
}
END_TEST

/* bfind (behind __ffs), redux.sync (__reduce_*_sync) and tanh.approx,
 * against the host's arithmetic */
START_TEST(test_intrinsics)
{
	int h[32], o[224], *d, *di, add = 0, mn = INT32_MAX, orr = 0, xr = 0;
	unsigned mx = 0;
	float *df, fo[32];
	void *args[3];

	load("tests/emu/kernels.ptx");
	for (int i = 0; i < 32; i++) {
		h[i] = i == 0 ? 0 : i == 1 ? -8 :
		       (int)((i * 2654435761u) >> 7);
		add += h[i];
		mn = h[i] < mn ? h[i] : mn;
		mx = (unsigned)h[i] > mx ? (unsigned)h[i] : mx;
		orr |= h[i];
		xr ^= h[i];
	}
	d = dalloc(sizeof(o));
	di = dalloc(sizeof(h));
	df = dalloc(sizeof(fo));
	cudaMemcpy(di, h, sizeof(h), cudaMemcpyHostToDevice);
	args[0] = &d;
	args[1] = &di;
	args[2] = &df;
	ck_assert_int_eq(launch("_Z10intrinsicsPiPKiPf", 1, 1, 32, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	cudaMemcpy(fo, df, sizeof(fo), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 32; i++) {
		ck_assert_int_eq(o[i], __builtin_ffs(h[i]));
		if (h[i])
			ck_assert_int_eq(o[32 + i],
					 31 - __builtin_clz((unsigned)h[i]));
		ck_assert_int_eq(o[64 + i], add);
		ck_assert_int_eq(o[96 + i], mn);
		ck_assert_uint_eq((unsigned)o[128 + i], mx);
		ck_assert_int_eq(o[160 + i], orr);
		ck_assert_int_eq(o[192 + i], xr);
		ck_assert_float_eq_tol(fo[i], tanhf((float)h[i] * 0.001f),
				       1e-6);
	}
}
END_TEST

/* __syncthreads_count/_and/_or over two warps (bar.red) */
START_TEST(test_block_votes)
{
	int h[64], o[64], *d, *di;
	void *args[2];

	load("tests/emu/kernels.ptx");
	for (int i = 0; i < 64; i++)
		h[i] = i;		/* 60 of them > 3; none > 60 but 3 */
	d = dalloc(sizeof(o));
	di = dalloc(sizeof(h));
	cudaMemcpy(di, h, sizeof(h), cudaMemcpyHostToDevice);
	args[0] = &d;
	args[1] = &di;
	ck_assert_int_eq(launch("_Z11block_votesPiPKi", 1, 1, 64, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(o[i], 60 * 100 + 10 + 1);
	h[0] = -5;		/* the and fails; count and or unchanged */
	cudaMemcpy(di, h, sizeof(h), cudaMemcpyHostToDevice);
	ck_assert_int_eq(launch("_Z11block_votesPiPKi", 1, 1, 64, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	ck_assert_int_eq(o[40], 60 * 100 + 0 + 1);
}
END_TEST

/* cp.async: the copies land in shared memory before the wait, src-size
 * zero-fills the rest, and they count as global loads and shared
 * stores (one 16-byte request per warp each way) */
START_TEST(test_async_copy)
{
	int h[128], o[128], *d, *di;
	void *args[2];
	struct wgemu_counters c;

	load("tests/emu/kernels.ptx");
	for (int i = 0; i < 128; i++)
		h[i] = i * 3 + 1;
	d = dalloc(sizeof(o));
	di = dalloc(sizeof(h));
	cudaMemcpy(di, h, sizeof(h), cudaMemcpyHostToDevice);
	args[0] = &d;
	args[1] = &di;
	ck_assert_int_eq(launch("_Z10async_copyP4int4PKS_", 1, 1, 32, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (int t = 0; t < 32; t++) {
		int s = 31 - t, keep = s < 16 ? 4 : s % 5;

		for (int k = 0; k < 4; k++)
			ck_assert_int_eq(o[t * 4 + k],
					 k < keep ? h[s * 4 + k] : 0);
	}
	c = last_counters();
	ck_assert_uint_eq(c.global_load_requests, 2);  /* two halves */
	ck_assert_uint_eq(c.global_load_sectors, 16);
}
END_TEST

/* ---- faults ---- */
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

/* ---- counters (ground-truth.md) ---- */
START_TEST(test_counters_set_a)
{
	float *a, *b;
	int n = 256;
	void *args[3];
	struct wgemu_counters c;

	load("tests/emu/kernels.ptx");
	a = dalloc(256 * 256 * 4);
	b = dalloc(256 * 256 * 4);
	args[0] = &b;
	args[1] = &a;
	args[2] = &n;
	launch("_Z15naive_transposePfPKfi", 8, 8, 32, 8, 0, args);
	c = last_counters();
	CK_COUNTERS(c, 2048, 8192, 2048, 65536, 0, 0, 0, 0);
	launch("tile<0>", 8, 8, 32, 8, 0, args);
	c = last_counters();
	CK_COUNTERS(c, 2048, 8192, 2048, 8192, 65536, 63488, 2048, 0);
	launch("tile<1>", 8, 8, 32, 8, 0, args);
	c = last_counters();
	CK_COUNTERS(c, 2048, 8192, 2048, 8192, 2048, 0, 2048, 0);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

START_TEST(test_counters_set_b)
{
	void *r, *xs, *ys, *zs, *ids, *d;
	int n = 32 * 256, m = 64;
	void *a1[6] = { &xs, &ys, &zs, &ids, &r, &n };
	void *a2[3] = { &xs, &r, &n };
	void *a3[2] = { &d, &m };
	struct wgemu_counters c;

	load("tests/emu/kernels.ptx");
	r = dalloc((size_t)n * 16);
	xs = dalloc((size_t)n * 16);
	ys = dalloc((size_t)n * 4);
	zs = dalloc((size_t)n * 4);
	ids = dalloc((size_t)n * 4);
	d = dalloc(256);
	launch("aos_soa", 32, 1, 256, 1, 0, a1);
	c = last_counters();
	CK_COUNTERS(c, 1024, 16384, 1024, 4096, 0, 0, 0, 0);
	launch("copy4", 32, 1, 256, 1, 0, a2);
	c = last_counters();
	CK_COUNTERS(c, 256, 4096, 256, 4096, 0, 0, 0, 0);
	launch("reverse", 1, 1, 64, 1, 256, a3);
	c = last_counters();
	CK_COUNTERS(c, 2, 8, 2, 8, 2, 0, 2, 0);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

/* Staging: a reverse moves every element between threads through the
 * dynamic window; a round trip through each thread's own word moves
 * none, though the same bytes pass through. */
START_TEST(test_staging_moves_between_threads)
{
	void *d, *in;
	int n = 64;
	void *rev[2] = { &d, &n }, *own[3] = { &d, &in, &n };
	struct wgemu_counters c;

	load("tests/emu/kernels.ptx");
	d = dalloc(256);
	in = dalloc(256);
	launch("reverse", 1, 1, 64, 1, 256, rev);
	c = last_counters();
	ck_assert_uint_eq(c.dynamic_shared_load_bytes, 256);
	ck_assert_uint_eq(c.dynamic_shared_moved_bytes, 256);
	n = 63;
	launch("reverse", 1, 1, 63, 1, 256, rev);
	c = last_counters();
	ck_assert_uint_eq(c.dynamic_shared_moved_bytes, 62 * 4);
	n = 64;
	launch("own_word", 1, 1, 64, 1, 256, own);
	c = last_counters();
	ck_assert_uint_eq(c.dynamic_shared_load_bytes, 256);
	ck_assert_uint_eq(c.dynamic_shared_store_bytes, 256);
	ck_assert_uint_eq(c.dynamic_shared_moved_bytes, 0);
	/* a second block overwrites the words: nothing of the first
	 * block's counts as moved in it */
	launch("own_word", 2, 1, 64, 1, 256, own);
	c = last_counters();
	ck_assert_uint_eq(c.dynamic_shared_moved_bytes, 0);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

START_TEST(test_counters_per_line)
{
	float *a, *b;
	int n = 256;
	void *args[3];
	struct wgemu_line ln;
	size_t i, found = 0;

	load("tests/emu/kernels.ptx");
	a = dalloc(256 * 256 * 4);
	b = dalloc(256 * 256 * 4);
	args[0] = &b;
	args[1] = &a;
	args[2] = &n;
	launch("tile<0>", 8, 8, 32, 8, 0, args);
	ck_assert_int_eq(wgemu_line_count(0), 2);
	for (i = 0; i < wgemu_line_count(0); i++) {
		ck_assert_int_eq(wgemu_line_get(0, i, &ln), 0);
		ck_assert_str_eq(ln.file, "kernels.cu");
		if (ln.line == 27) {
			found++;
			ck_assert_uint_eq(ln.counters.shared_load_bank_conflicts,
					  63488);
			ck_assert_uint_eq(ln.counters.global_store_sectors,
					  8192);
		}
	}
	ck_assert_int_eq(found, 1);
}
END_TEST

/* 8- and 16-byte shared accesses: phases of 16 and 8 lanes */
START_TEST(test_counters_wide_shared)
{
	static const char ptx[] = HDR
		".visible .entry wide(.param .u32 stride)\n{\n"
		"\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<3>;\n\t.reg .f32 %f<5>;\n"
		"\t.shared .align 16 .b8 sm[8192];\n"
		"\tld.param.u32 %r1, [stride];\n"
		"\tmov.u32 %r2, %tid.x;\n"
		"\tmul.lo.s32 %r3, %r2, %r1;\n"
		"\tmov.u32 %r4, sm;\n"
		"\tadd.s32 %r5, %r4, %r3;\n"
		"\tst.shared.v2.f32 [%r5], {%f1, %f2};\n"
		"\tshl.b32 %r3, %r2, 4;\n"
		"\tadd.s32 %r5, %r4, %r3;\n"
		"\tst.shared.v4.f32 [%r5], {%f1, %f2, %f3, %f4};\n"
		"\tret;\n}\n";
	char err[256];
	int stride = 8;
	void *args[1] = { &stride };
	struct wgemu_counters c;

	ck_assert_int_ge(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)),
			 0);
	/* contiguous 8-byte: 2 wavefronts (half-warps); contiguous
	 * 16-byte: 4 (quarter-warps) */
	launch("wide", 1, 1, 32, 1, 0, args);
	c = last_counters();
	ck_assert_uint_eq(c.shared_store_wavefronts, 2 + 4);
	ck_assert_uint_eq(c.shared_store_bank_conflicts, 0);
	stride = 16;   /* 8-byte at 16-byte stride: 2-way conflicts */
	launch("wide", 1, 1, 32, 1, 0, args);
	c = last_counters();
	ck_assert_uint_eq(c.shared_store_wavefronts, 4 + 4);
	ck_assert_uint_eq(c.shared_store_bank_conflicts, 2);
}
END_TEST

/* Adjacent scalar accesses ptxas merges (harness/emu/ptx/merge.c) count as
 * the one vector access the hardware executes. */
START_TEST(test_counters_merged)
{
	static const char ptx[] = HDR
		".visible .entry merged(.param .u64 p)\n{\n"
		"\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<5>;\n"
		"\t.shared .align 4 .b8 sm[4096];\n"
		"\tld.param.u64 %rd1, [p];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tshl.b32 %r2, %r1, 3;\n"
		"\tmov.u32 %r3, sm;\n"
		"\tadd.s32 %r4, %r3, %r2;\n"
		"\tmov.f32 %f1, 0f3F800000;\n"
		"\tst.shared.f32 [%r4], %f1;\n"
		"\tmov.b32 %r5, 0;\n"
		"\tst.shared.u32 [%r4+4], %r5;\n"
		"\tbar.sync 0;\n"
		"\tst.shared.f32 [%r4+4], %f1;\n"
		"\tst.shared.f32 [%r4+8], %f1;\n"
		"\tshl.b32 %r6, %r1, 2;\n"
		"\tand.b32 %r6, %r6, 48;\n"
		"\tadd.s32 %r7, %r3, %r6;\n"
		"\tbar.sync 0;\n"
		"\tld.shared.f32 %f1, [%r7];\n"
		"\tld.shared.f32 %f2, [%r7+4];\n"
		"\tadd.f32 %f1, %f1, %f2;\n"
		"\tld.shared.f32 %f3, [%r7+8];\n"
		"\tld.shared.f32 %f4, [%r7+12];\n"
		"\tcvt.u64.u32 %rd2, %r2;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.f32 [%rd3], %f1;\n"
		"\tst.global.f32 [%rd3+4], %f2;\n"
		"\tret;\n}\n";
	char err[256];
	void *d = dalloc(32 * 8);
	void *args[1] = { &d };
	struct wgemu_counters c;

	ck_assert_int_ge(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)),
			 0);
	launch("merged", 1, 1, 32, 1, 0, args);
	c = last_counters();
	/* sm + 8t: one 8-byte store, 2 wavefronts; sm + 8t + 4 is not
	 * 8-byte aligned: two 4-byte stores at stride 8, 2 wavefronts and
	 * 1 conflict each */
	ck_assert_uint_eq(c.shared_store_wavefronts, 2 + 4);
	ck_assert_uint_eq(c.shared_store_bank_conflicts, 2);
	/* sm + (4t & 48): one 16-byte load of 4 distinct addresses, each
	 * broadcast to 8 lanes: one wavefront per quarter-warp */
	ck_assert_uint_eq(c.shared_load_wavefronts, 4);
	ck_assert_uint_eq(c.shared_load_bank_conflicts, 0);
	/* a parameter's alignment is unknown: two 4-byte global stores */
	ck_assert_uint_eq(c.global_store_requests, 2);
	ck_assert_uint_eq(c.global_store_sectors, 16);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

/* warpSize, __nanosleep, __match_any_sync, half and bfloat16 arithmetic
 * (kernels.cu, breadth) */
START_TEST(test_breadth)
{
	int o[64];
	uint16_t h[32], h2[64], b[32], b2[64];
	void *dO = dalloc(sizeof(o)), *dh = dalloc(sizeof(h)),
	     *dh2 = dalloc(sizeof(h2)), *db = dalloc(sizeof(b)),
	     *db2 = dalloc(sizeof(b2));
	void *args[5] = { &dO, &dh, &dh2, &db, &db2 };

	for (int t = 0; t < 32; t++) {
		h[t] = emu_f32_to_f16(t * 0.5f);
		h2[2 * t] = emu_f32_to_f16(t * 0.25f);
		h2[2 * t + 1] = emu_f32_to_f16(-t * 1.0f);
		b[t] = emu_f32_to_bf16(t * 2.0f);
		b2[2 * t] = emu_f32_to_bf16(t - 16.0f);
		b2[2 * t + 1] = emu_f32_to_bf16(t - 16.0f);
	}
	cudaMemcpy(dh, h, sizeof(h), cudaMemcpyHostToDevice);
	cudaMemcpy(dh2, h2, sizeof(h2), cudaMemcpyHostToDevice);
	cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice);
	cudaMemcpy(db2, b2, sizeof(b2), cudaMemcpyHostToDevice);
	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(launch("breadth", 1, 1, 32, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, dO, sizeof(o), cudaMemcpyDeviceToHost);
	cudaMemcpy(h, dh, sizeof(h), cudaMemcpyDeviceToHost);
	cudaMemcpy(h2, dh2, sizeof(h2), cudaMemcpyDeviceToHost);
	cudaMemcpy(b, db, sizeof(b), cudaMemcpyDeviceToHost);
	cudaMemcpy(b2, db2, sizeof(b2), cudaMemcpyDeviceToHost);
	for (int t = 0; t < 32; t++) {
		float x = t * 0.5f, y = x * x + 0.5f, q = t * 0.25f;
		float r = -t * 1.0f, bb = t * 2.0f, c = t - 16.0f;

		ck_assert_int_eq(o[t], (int)(0x11111111u << (t & 3)));
		ck_assert_int_eq(o[32 + t], 32);
		ck_assert_msg(emu_f16_to_f32(h[t]) == (y < 2 ? -y : y),
			      "h[%d] = %g", t, emu_f16_to_f32(h[t]));
		ck_assert(emu_f16_to_f32(h2[2 * t]) ==
			  emu_f16_to_f32(emu_f32_to_f16(q * q + q)));
		ck_assert(emu_f16_to_f32(h2[2 * t + 1]) == r * r + r);
		ck_assert(emu_bf16_to_f32(b[t]) ==
			  emu_bf16_to_f32(emu_f32_to_bf16(
				  emu_bf16_to_f32(emu_f32_to_bf16(bb * bb)) +
				  bb)));
		/* __floats2bfloat162_rn(3, -1): 3 in the low half (.x) */
		ck_assert(emu_bf16_to_f32(b2[2 * t]) == (c > 3 ? c : 3));
		ck_assert(emu_bf16_to_f32(b2[2 * t + 1]) == (c > -1 ? c : -1));
	}
}
END_TEST

/* malloc and free, new and delete in a kernel (kernels.cu, heap) */
START_TEST(test_device_heap)
{
	int o[64], *d = dalloc(sizeof(o));
	void *args[1] = { &d };
	size_t before, after, total;

	load("tests/emu/kernels.ptx");
	cudaMemGetInfo(&before, &total);
	ck_assert_int_eq(launch("heap", 1, 1, 64, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (int t = 0; t < 64; t++)
		ck_assert_int_eq(o[t], t + 101);
	cudaMemGetInfo(&after, &total);
	ck_assert_uint_eq(before, after);   /* all freed */
}
END_TEST

/* virtual functions and function pointers, divergent across lanes
 * (kernels.cu, indirect) */
START_TEST(test_indirect_calls)
{
	int o[64], *d = dalloc(sizeof(o));
	void *args[1] = { &d };

	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(launch("indirect", 1, 1, 32, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (int t = 0; t < 32; t++) {
		ck_assert_int_eq(o[t], t & 1 ? 2 * t : t + 1);
		ck_assert_int_eq(o[32 + t], t % 2 ? -t : t * t);
	}
}
END_TEST

/* texture objects on a CUDA array (linear filtering, clamped) and a
 * surface object written by the kernel (kernels.cu, texsurf) */
/* A texture over linear device memory: it must start at a multiple of
 * the texture alignment, as an H100 wants (a 4 or 256-byte offset is
 * refused there); its fetches are the global loads they are; and a
 * launch record carries it, so that a replay can make it again under
 * its handle. */
START_TEST(test_texture_linear_recorded)
{
	struct cudaResourceDesc rd;
	struct cudaTextureDesc td;
	cudaTextureObject_t t = 0;
	float *buf, *o, h[64], got[64];
	void *args[2] = { &o, &t };
	unsigned char *rec = NULL;
	size_t len = 0;
	struct emu_trace_reader rr;
	struct emu_trace_head hd;
	struct emu_trace_op op;
	struct wgemu_counters c;
	int found = 0;

	load("tests/emu/kernels.ptx");
	buf = dalloc(4096);
	o = dalloc(256);
	for (int i = 0; i < 64; i++)
		h[i] = (float)i * 0.5f;
	ck_assert_int_eq(cudaMemcpy(buf, h, sizeof(h),
				    cudaMemcpyHostToDevice), cudaSuccess);
	memset(&rd, 0, sizeof(rd));
	rd.resType = cudaResourceTypeLinear;
	rd.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0,
						   cudaChannelFormatKindFloat);
	rd.res.linear.sizeInBytes = 256;
	memset(&td, 0, sizeof(td));
	td.readMode = cudaReadModeElementType;
	rd.res.linear.devPtr = buf + 1;
	ck_assert_int_eq(cudaCreateTextureObject(&t, &rd, &td, NULL),
			 cudaErrorInvalidValue);
	cudaGetLastError();
	rd.res.linear.devPtr = buf + 64;
	ck_assert_int_eq(cudaCreateTextureObject(&t, &rd, &td, NULL),
			 cudaErrorInvalidValue);
	cudaGetLastError();
	rd.res.linear.devPtr = buf;
	ck_assert_int_eq(cudaCreateTextureObject(&t, &rd, &td, NULL),
			 cudaSuccess);

	wgemu_record_begin(buf, 256, o, 256);
	ck_assert_int_eq(launch("_Z8texfetchPfy", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(wgemu_record_end(&rec, &len), 0);
	c = last_counters();
	ck_assert_uint_eq(c.global_load_requests, 2);
	ck_assert_uint_eq(c.global_load_sectors, 8);
	ck_assert_int_eq(cudaMemcpy(got, o, sizeof(got),
				    cudaMemcpyDeviceToHost), cudaSuccess);
	ck_assert(!memcmp(got, h, sizeof(h)));

	/* the object alive when the record opened is in it */
	ck_assert_int_eq(emu_trace_read_head(&rr, rec, len, &hd), 0);
	while (emu_trace_next(&rr, &op) == 1)
		if (op.kind == TR_TEXTURE && op.a == t) {
			found = 1;
			/* made again under another handle, it reads alike */
			ck_assert_int_eq(wgemu_texture_at(t + 5, 0, op.data,
				(size_t)op.ndata), 0);
			ck_assert_int_eq(wgemu_texture_at(t + 5, 0, op.data,
				(size_t)op.ndata - 1), -1);
		}
	ck_assert_int_eq(found, 1);
	free(rec);
	t += 5;
	ck_assert_int_eq(cudaMemset(o, 0, 256), cudaSuccess);
	ck_assert_int_eq(launch("_Z8texfetchPfy", 1, 1, 64, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(got, o, sizeof(got),
				    cudaMemcpyDeviceToHost), cudaSuccess);
	ck_assert(!memcmp(got, h, sizeof(h)));
}
END_TEST

static void fill_sevens(void *ctx, void *in, size_t n)
{
	(void)ctx;
	memset(in, 7, n);
}

/* A dry call that records keeps its launches; reading device memory
 * back makes it real from there: what it kept runs first, on the input
 * the runner fills, and the copy back sees the result. */
START_TEST(test_dry_call_observed_runs)
{
	int *d, *in, h[64], n = 64, dry;
	void *args[3] = { &d, &in, &n };
	unsigned char *rec = NULL;
	size_t len = 0;

	load("tests/emu/kernels.ptx");
	d = dalloc(256);
	in = dalloc(256);
	/* unobserved: nothing runs */
	wgemu_dry(2);
	wgemu_dry_inputs(in, 256, d, 256, fill_sevens, NULL);
	wgemu_record_begin(in, 256, d, 256);
	ck_assert_int_eq(launch("own_word", 1, 1, 64, 1, 256, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemset(d, 1, 4), cudaSuccess);
	ck_assert_int_eq(wgemu_record_end(&rec, &len), 0);
	free(rec);
	dry = wgemu_dry_forced();
	wgemu_dry(0);
	ck_assert_int_eq(dry, 0);
	ck_assert_int_eq(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	ck_assert_int_eq(h[0], 0);
	ck_assert_int_eq(h[5], 0);

	/* observed: the kept launch and memset run, in order, on the
	 * filled input, then the copy back */
	wgemu_dry(2);
	wgemu_dry_inputs(in, 256, d, 256, fill_sevens, NULL);
	wgemu_record_begin(in, 256, d, 256);
	ck_assert_int_eq(launch("own_word", 1, 1, 64, 1, 256, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemset(d, 1, 4), cudaSuccess);
	memset(h, 0, sizeof(h));
	ck_assert_int_eq(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	ck_assert_int_eq(wgemu_record_end(&rec, &len), 0);
	free(rec);
	dry = wgemu_dry_forced();
	wgemu_dry(0);
	ck_assert_int_eq(dry, 1);
	ck_assert_int_eq(h[0], 0x01010101);
	ck_assert_int_eq(h[5], 0x07070707);
}
END_TEST

/* `if (i >= n) return; __syncthreads();` with a partial last block:
 * whole warps that returned, and the returned lanes of a warp, leave
 * the barrier to those still running. */
START_TEST(test_barrier_after_early_return)
{
	int *o, n = 300, h[300];
	void *args[2] = { &o, &n };

	load("tests/emu/kernels.ptx");
	o = dalloc(sizeof(h));
	ck_assert_int_eq(launch("_Z12early_returnPii", 2, 1, 256, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(h[i], i + 1);
}
END_TEST

/* Paired f16/bf16 comparisons compare each half on its own: set gives
 * 1.0 or a 0xffff mask per half, setp p|q one predicate per half
 * (unordered forms true on a NaN).  They used to compare the register
 * as one f32: a silent wrong answer. */
START_TEST(test_half_pair_compares)
{
	unsigned *o, h[10];
	uint32_t a = 0x42003c00u, b = 0x40004000u;      /* (1, 3), (2, 2) */
	uint32_t c = 0xbf8040a0u, d = 0x00004080u;      /* (5, -1), (4, 0) */
	uint32_t n = 0x3c007e00u;                       /* (NaN, 1) */
	void *args[6] = { &o, &a, &b, &c, &d, &n };
	static const unsigned want[10] = {
		0x3c000000u, 0, 0xffff0000u, 0, 0x00003f80u, 0xffff0000u, 1,
		0x3c003c00u, 0x3c000000u, 1
	};

	load("tests/emu/kernels.ptx");
	o = dalloc(sizeof(h));
	ck_assert_int_eq(launch("_Z10half_pairsPj7__half2S0_14__nv_bfloat162"
				"S1_S0_", 1, 1, 1, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (int i = 0; i < 10; i++)
		ck_assert_msg(h[i] == want[i], "o[%d] = 0x%08x, want 0x%08x",
			      i, h[i], want[i]);
}
END_TEST

/* The toolkit's half and bfloat16 math functions (their inline PTX
 * writes ".reg.b32" in one token and declares the same names in sibling
 * blocks) parse and compute, to half precision. */
START_TEST(test_half_math_inline_ptx)
{
	float *o, h[16];
	uint16_t a = 0x3800;                      /* 0.5 */
	uint32_t b = 0x40003c00u;                 /* (1, 2) */
	uint16_t c = 0x3f00;                      /* bf16 0.5 */
	uint32_t d = 0x40003f80u;                 /* bf16 (1, 2) */
	void *args[5] = { &o, &a, &b, &c, &d };
	const double want[16] = {
		exp(0.5), exp(1.0), exp(2.0), exp(0.5), log(0.5), sqrt(0.5),
		2.0, sin(0.5), cos(0.5), exp2(0.5), pow(10, 0.5), -1.0,
		log(0.5), sqrt(0.5), exp(1.0), tanh(0.5)
	};

	load("tests/emu/kernels.ptx");
	o = dalloc(sizeof(h));
	ck_assert_int_eq(launch("_Z9half_mathPf6__half7__half213__nv_bfloat16"
				"14__nv_bfloat162", 1, 1, 1, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (int i = 0; i < 16; i++)
		/* bf16 keeps 8 bits of mantissa, f16 11 */
		ck_assert_msg(fabs(h[i] - want[i]) <= fabs(want[i]) / 128,
			      "o[%d] = %g, want %g", i, h[i], want[i]);
}
END_TEST

/* Registers declared in a { } block leave scope when it closes; an
 * inner name hides an outer one inside its block only, and sibling
 * blocks may declare the same names. */
START_TEST(test_reg_scopes)
{
	static const char ptx[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".visible .entry scopes(.param .u64 o)\n{\n"
		".reg .b32 x;\n.reg .b64 %rd<3>;\n"
		"ld.param.u64 %rd1, [o];\n"
		"mov.b32 x, 1;\n"
		"{ .reg.b32 x, y;\n mov.b32 x, 10;\n mov.b32 y, x;\n"
		"  st.global.u32 [%rd1+4], y;\n }\n"
		"{ .reg .b32 x;\n mov.b32 x, 20;\n"
		"  st.global.u32 [%rd1+8], x;\n }\n"
		"st.global.u32 [%rd1], x;\n"
		"ret;\n}\n";
	char err[256];
	unsigned *o, h[3];
	void *args[1] = { &o };

	ck_assert_msg(wgemu_load_ptx(ptx, sizeof(ptx) - 1, err,
				     sizeof(err)) >= 0, "%s", err);
	o = dalloc(sizeof(h));
	ck_assert_int_eq(launch("scopes", 1, 1, 1, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	ck_assert_uint_eq(h[0], 1);
	ck_assert_uint_eq(h[1], 10);
	ck_assert_uint_eq(h[2], 20);
}
END_TEST

/* The SIMD intrinsics (lop3, dp4a, dp2a, vabsdiff4, .u16x2 arithmetic)
 * run, each against its definition worked out by hand. */
START_TEST(test_simd_intrinsics)
{
	unsigned *o, h[18], a = 0x7f80ff01u, b = 0x0181fe7fu, c = 0x12345678u;
	void *args[4] = { &o, &a, &b, &c };
	static const unsigned want[18] = {
		0x7f81ff7fu, 0x0180fe01u, 0x8001fd80u, 0x7eff0182u,
		0x7e01017eu, 0xff00ff00u, 0x123496f8u, 0x123594f8u,
		0x1232d8f7u, 0x12b55579u, 0x7f80ff01u, 0x4080fe40u,
		0x000000feu, 0x7f800101u, 0x808000ffu, 0x01000100u,
		0x6c355706u, 0x1380fe79u
	};

	load("tests/emu/kernels.ptx");
	o = dalloc(sizeof(h));
	ck_assert_int_eq(launch("_Z8simd_opsPjjjj", 1, 1, 1, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (int i = 0; i < 18; i++)
		ck_assert_msg(h[i] == want[i], "o[%d] = 0x%08x, want 0x%08x",
			      i, h[i], want[i]);
}
END_TEST

/* Shared memory starts as poison: a float computed from a word no
 * thread wrote is NaN, an int is INT_MAX, as garbage on a GPU makes a
 * result wrong (the read still gets its warning). */
START_TEST(test_shared_starts_as_poison)
{
	float *o, h[64];
	int *io, hi[64];
	void *args[2] = { &o, &io };

	load("tests/emu/kernels.ptx");
	o = dalloc(sizeof(h));
	io = dalloc(sizeof(hi));
	ck_assert_int_eq(launch("_Z13uninit_sharedPfPi", 1, 1, 64, 1, 0,
				args), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(hi, io, sizeof(hi),
				    cudaMemcpyDeviceToHost), cudaSuccess);
	ck_assert(isnan(h[0]));
	ck_assert(isnan(h[40]));
	ck_assert_int_eq(hi[0], 0x7fffffff);
	ck_assert_int_eq(hi[40], 1);
}
END_TEST

START_TEST(test_texture_surface)
{
	float h[16], o[32], back[16], *d = dalloc(sizeof(o));
	struct cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0,
		cudaChannelFormatKindFloat);
	cudaArray_t in, out;
	struct cudaResourceDesc rd;
	struct cudaTextureDesc td;
	cudaTextureObject_t t;
	cudaSurfaceObject_t su;
	void *args[3] = { &d, &t, &su };

	for (int i = 0; i < 16; i++)
		h[i] = (float)i;
	ck_assert_int_eq(cudaMallocArray(&in, &fd, 4, 4, 0), cudaSuccess);
	ck_assert_int_eq(cudaMallocArray(&out, &fd, 4, 4,
					 cudaArraySurfaceLoadStore),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy2DToArray(in, 0, 0, h, 16, 16, 4,
					     cudaMemcpyHostToDevice),
			 cudaSuccess);
	memset(&rd, 0, sizeof(rd));
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = in;
	memset(&td, 0, sizeof(td));
	td.filterMode = cudaFilterModeLinear;
	td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
	td.readMode = cudaReadModeElementType;
	ck_assert_int_eq(cudaCreateTextureObject(&t, &rd, &td, NULL),
			 cudaSuccess);
	rd.res.array.array = out;
	ck_assert_int_eq(cudaCreateSurfaceObject(&su, &rd), cudaSuccess);
	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(launch("texsurf", 1, 1, 4, 4, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	ck_assert_int_eq(cudaMemcpy2DFromArray(back, 16, out, 0, 0, 16, 4,
					       cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 4; x++) {
			float v = (float)(y * 4 + x);

			ck_assert(o[y * 4 + x] == v);
			/* halfway to the next texel; the edge clamps */
			ck_assert(o[16 + y * 4 + x] == (x < 3 ? v + 0.5f : v));
			ck_assert(back[y * 4 + x] == 2 * v);
		}
	cudaDestroyTextureObject(t);
	cudaDestroySurfaceObject(su);
	cudaFreeArray(in);
	cudaFreeArray(out);
}
END_TEST

/* redux, ballot and vote over per-lane member masks (kernels.cu, groups) */
START_TEST(test_warp_groups)
{
	int o[96], *d = dalloc(sizeof(o));
	void *args[1] = { &d };

	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(launch("groups", 1, 1, 32, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (int t = 0; t < 32; t++) {
		unsigned g = 0, odd;

		for (int k = t % 3; k < 32; k += 3)
			g |= 1u << k;
		odd = g & 0xaaaaaaaau;
		ck_assert_int_eq(o[t], 31 - (31 - t % 3) % 3);
		ck_assert_uint_eq((unsigned)o[32 + t], odd);
		ck_assert_int_eq(o[64 + t], t % 3 == 1);
	}
}
END_TEST

/* Forms cub's kernels use: bmsk, a predicate constant of -1,
 * griddepcontrol (programmatic dependent launch: nothing to wait for);
 * and vabsdiff4 (stereoDisparity) */
START_TEST(test_cub_forms)
{
	static const char ptx[] = HDR
		".visible .entry forms(.param .u64 p)\n{\n"
		"\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n"
		"\tld.param.u64 %rd1, [p];\n"
		"\tgriddepcontrol.wait;\n"
		"\tmov.u32 %r1, 4;\n\tmov.u32 %r2, 8;\n"
		"\tbmsk.clamp.b32 %r3, %r1, %r2;\n"
		"\tmov.u32 %r1, 30;\n"
		"\tbmsk.clamp.b32 %r4, %r1, %r2;\n"
		"\tmov.pred %p1, -1;\n"
		"\tselp.u32 %r5, 7, 9, %p1;\n"
		"\tst.global.u32 [%rd1], %r3;\n"
		"\tst.global.u32 [%rd1+4], %r4;\n"
		"\tst.global.u32 [%rd1+8], %r5;\n"
		"\tmov.u32 %r1, 0x10203040;\n\tmov.u32 %r2, 0x40302010;\n"
		"\tvabsdiff4.u32.u32.u32.add %r5, %r1, %r2, 5;\n"
		"\tst.global.u32 [%rd1+12], %r5;\n"
		"\tgriddepcontrol.launch_dependents;\n"
		"\tret;\n}\n";
	char err[256];
	unsigned h[4];
	void *d = dalloc(sizeof(h));
	void *args[1] = { &d };

	ck_assert_int_ge(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)),
			 0);
	ck_assert_int_eq(launch("forms", 1, 1, 1, 1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
	ck_assert_uint_eq(h[0], 0xff0u);
	ck_assert_uint_eq(h[1], 0xc0000000u);
	ck_assert_uint_eq(h[2], 7);
	ck_assert_uint_eq(h[3], 0x30 + 0x10 + 0x10 + 0x30 + 5);
}
END_TEST

/* ---- runtime API ---- */
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

/* ---- tensor cores, layered and cubemap textures, graphs ---- */
START_TEST(test_wmma)
{
	uint16_t ha[256], hb[256];
	float hc[256], d[256], t[32], *dd = dalloc(sizeof(d));
	float *dt = dalloc(sizeof(t)), *dc = dalloc(sizeof(hc));
	void *da = dalloc(sizeof(ha)), *db = dalloc(sizeof(hb));
	void *args[5] = { &dd, &da, &db, &dc, &dt };

	for (int i = 0; i < 256; i++) {
		ha[i] = emu_f32_to_f16((float)(i % 7 - 3));
		hb[i] = emu_f32_to_f16((float)(i % 5 - 2));
		hc[i] = (float)(i % 3);
	}
	for (int i = 0; i < 32; i++)
		t[i] = 1.0f;
	t[0] = 1.0f + 0x1p-11f;     /* a tie: away from zero */
	t[1] = 1.0f + 0x1p-12f;
	t[2] = -1.0f - 0x1p-11f;
	cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice);
	cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice);
	cudaMemcpy(dc, hc, sizeof(hc), cudaMemcpyHostToDevice);
	cudaMemcpy(dt, t, sizeof(t), cudaMemcpyHostToDevice);
	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(launch("_Z9wmma_tilePfPK6__halfS2_PKfS_", 1, 1, 32,
				1, 0, args), cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(d, dd, sizeof(d), cudaMemcpyDeviceToHost);
	cudaMemcpy(t, dt, sizeof(t), cudaMemcpyDeviceToHost);
	for (int r = 0; r < 16; r++)
		for (int q = 0; q < 16; q++) {
			float e = 2.0f * hc[r * 16 + q];

			/* b is column-major: (k, q) at q * 16 + k */
			for (int k = 0; k < 16; k++)
				e += (float)((r * 16 + k) % 7 - 3) *
				     (float)((q * 16 + k) % 5 - 2);
			ck_assert_float_eq(d[r * 16 + q], e);
		}
	ck_assert_float_eq(t[0], 1.0f + 0x1p-10f);
	ck_assert_float_eq(t[1], 1.0f);
	ck_assert_float_eq(t[2], -1.0f - 0x1p-10f);
}
END_TEST

/* A float array of w x h x d made with flags, filled from host by
 * cudaMemcpy3D. */
static cudaArray_t array3d(const float *h, size_t w, size_t hh, size_t d,
			   unsigned flags)
{
	struct cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0,
		cudaChannelFormatKindFloat);
	struct cudaMemcpy3DParms p;
	cudaArray_t a;

	struct cudaExtent ext = { w, hh, d };

	ck_assert_int_eq(cudaMalloc3DArray(&a, &fd, ext, flags), cudaSuccess);
	memset(&p, 0, sizeof(p));
	p.srcPtr = (struct cudaPitchedPtr){ (void *)h, w * 4, w, hh };
	p.dstArray = a;
	p.extent = ext;
	p.kind = cudaMemcpyHostToDevice;
	ck_assert_int_eq(cudaMemcpy3D(&p), cudaSuccess);
	return a;
}

static cudaTextureObject_t tex_on(cudaArray_t a, int normalized)
{
	struct cudaResourceDesc rd;
	struct cudaTextureDesc td;
	cudaTextureObject_t t;

	memset(&rd, 0, sizeof(rd));
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	memset(&td, 0, sizeof(td));
	td.normalizedCoords = normalized;
	td.readMode = cudaReadModeElementType;
	ck_assert_int_eq(cudaCreateTextureObject(&t, &rd, &td, NULL),
			 cudaSuccess);
	return t;
}

START_TEST(test_texture_layered_cube)
{
	float lay[32], cube[96], o[22], *d = dalloc(sizeof(o));
	cudaTextureObject_t tl, tc;
	void *args[3] = { &d, &tl, &tc };

	for (int i = 0; i < 32; i++)
		lay[i] = (float)i;
	for (int i = 0; i < 96; i++)
		cube[i] = (float)(i / 16 * 100 + i % 16);
	tl = tex_on(array3d(lay, 4, 4, 2, cudaArrayLayered), 0);
	tc = tex_on(array3d(cube, 4, 4, 6, cudaArrayCubemap), 1);
	load("tests/emu/kernels.ptx");
	ck_assert_int_eq(launch("_Z12layered_cubePfyy", 1, 1, 4, 4, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
	cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 16; i++)
		ck_assert_float_eq(o[i], 16.0f + (float)i);
	/* a face's centre is texel (2, 2) */
	for (int f = 0; f < 6; f++)
		ck_assert_float_eq(o[16 + f], (float)(f * 100 + 10));
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

/* ---- 'warpgrade emu' end to end (needs nvcc) ---- */
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

/* ---- grid barriers and mbarriers (probe_sync.cu) ---- */
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
	ck_assert_int_eq(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
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

static Suite *emu_suite(void)
{
	Suite *s = suite_create("emu");
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

	tc = tcase_create("control_flow");
	tcase_add_test(tc, test_postdominators);
	tcase_add_test(tc, test_divergence);
	tcase_add_test(tc, test_uniform_registers);
	tcase_add_test(tc, test_transpose_shapes);
	tcase_add_test(tc, test_partial_warp_reverse);
	tcase_add_test(tc, test_staging_moves_between_threads);
	tcase_add_test(tc, test_texture_linear_recorded);
	tcase_add_test(tc, test_dry_call_observed_runs);
	tcase_add_test(tc, test_barrier_after_early_return);
	tcase_add_test(tc, test_half_pair_compares);
	tcase_add_test(tc, test_half_math_inline_ptx);
	tcase_add_test(tc, test_reg_scopes);
	tcase_add_test(tc, test_simd_intrinsics);
	tcase_add_test(tc, test_shared_starts_as_poison);
	tcase_add_test(tc, test_intrinsics);
	tcase_add_test(tc, test_block_votes);
	tcase_add_test(tc, test_async_copy);
	suite_add_tcase(s, tc);

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

	tc = tcase_create("counters");
	tcase_add_test(tc, test_counters_set_a);
	tcase_add_test(tc, test_counters_set_b);
	tcase_add_test(tc, test_counters_per_line);
	tcase_add_test(tc, test_counters_wide_shared);
	tcase_add_test(tc, test_counters_merged);
	tcase_add_test(tc, test_breadth);
	tcase_add_test(tc, test_device_heap);
	tcase_add_test(tc, test_indirect_calls);
	tcase_add_test(tc, test_texture_surface);
	tcase_add_test(tc, test_texture_layered_cube);
	tcase_add_test(tc, test_wmma);
	tcase_add_test(tc, test_warp_groups);
	tcase_add_test(tc, test_cub_forms);
	suite_add_tcase(s, tc);

	tc = tcase_create("runtime_api");
	tcase_add_test(tc, test_api_launch_config);
	tcase_add_test(tc, test_api_memory);
	tcase_add_test(tc, test_api_device);
	tcase_add_test(tc, test_api_more);
	tcase_add_test(tc, test_api_host_memory);
	tcase_add_test(tc, test_api_graph);
	tcase_add_test(tc, test_api_capture);
	suite_add_tcase(s, tc);

	tc = tcase_create("sync");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_grid_sync);
	tcase_add_test(tc, test_coop_too_large);
	tcase_add_test(tc, test_coop_record);
	tcase_add_test(tc, test_ordinary_launch_blocks_together);
	tcase_add_test(tc, test_grid_sync_not_cooperative);
	tcase_add_test(tc, test_spin);
	tcase_add_test(tc, test_spin_sleeping);
	tcase_add_test(tc, test_mbarrier);
	tcase_add_test(tc, test_mbarrier_deadlock);
	tcase_add_test(tc, test_async_copy_barrier);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmd_emu");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cmd_emu);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(emu_suite());
	int failed;

	/* the faults are expected: keep the runtime's notes off stderr */
	setenv("WGEMU_QUIET", "1", 1);

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
