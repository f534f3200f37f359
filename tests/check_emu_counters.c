/*
 * Check tests of the emulator (harness/emu), the memory-traffic counters
 * against ground-truth.md: sectors and requests of global accesses,
 * wavefronts and bank conflicts of shared ones, per source line, wide
 * and merged accesses, the breadth probe, the device heap, indirect
 * calls, textures and surfaces, tensor cores, warp groups and cub's
 * forms.
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

/* tests/emu/kernels.ptx loaded, and the arguments of its 256 x 256
 * transposes: out b, in a, n (the caller's, which must outlive them) */
static void transpose_args(float **a, float **b, int *n, void *args[3])
{
	load("tests/emu/kernels.ptx");
	*n = 256;
	*a = dalloc(256 * 256 * 4);
	*b = dalloc(256 * 256 * 4);
	args[0] = b;
	args[1] = a;
	args[2] = n;
}

START_TEST(test_counters_set_a)
{
	float *a, *b;
	int n;
	void *args[3];
	struct wgemu_counters c;

	transpose_args(&a, &b, &n, args);
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

/* wgemu_count(0): the next launches count nothing but their lane
 * instructions, and their staging; wgemu_count(1) counts again */
START_TEST(test_counting_off)
{
	float *a, *b;
	int n;
	void *args[3];
	struct wgemu_counters c;
	uint64_t insns;

	transpose_args(&a, &b, &n, args);
	launch("tile<0>", 8, 8, 32, 8, 0, args);
	insns = last_counters().lane_instructions;
	wgemu_count(0);
	launch("tile<0>", 8, 8, 32, 8, 0, args);
	c = last_counters();
	CK_COUNTERS(c, 0, 0, 0, 0, 0, 0, 0, 0);
	ck_assert_uint_eq(c.shared_load_bytes + c.shared_store_bytes, 0);
	ck_assert_uint_eq(c.lane_instructions, insns);
	wgemu_count(1);
	launch("tile<0>", 8, 8, 32, 8, 0, args);
	c = last_counters();
	CK_COUNTERS(c, 2048, 8192, 2048, 8192, 65536, 63488, 2048, 0);
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
			ck_assert_uint_eq(
				ln.counters.shared_load_bank_conflicts, 63488);
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
		/* b * b + b: the mul and add fused, rounded once (ptxas
		 * contracts them; bb * bb + bb is exact in float) */
		ck_assert(emu_bf16_to_f32(b[t]) ==
			  emu_bf16_to_f32(emu_f32_to_bf16(bb * bb + bb)));
		/* __floats2bfloat162_rn(3, -1): 3 in the low half (.x) */
		ck_assert(emu_bf16_to_f32(b2[2 * t]) == (c > 3 ? c : 3));
		ck_assert(emu_bf16_to_f32(b2[2 * t + 1]) == (c > -1 ? c : -1));
	}
}
END_TEST

/* Two f32 products subtracted, as nvcc leaves them in the PTX for ptxas
 * to contract (Rodinia's myocyte, kernel_ecc.cu line 854): the first is
 * fused into the sub, the second rounded on its own.  The operands are
 * that line's at myocyte's first step, and 0x3eed6bbe is what an H100
 * computed there (unfused: 0x3eed6bbd). */
START_TEST(test_f32_contraction)
{
	static const char ptx[] = HDR
		".visible .entry pq(.param .u64 p)\n{\n"
		"\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n"
		"\tld.param.u64 %rd1, [p];\n"
		"\tld.global.f32 %f1, [%rd1];\n"
		"\tld.global.f32 %f2, [%rd1+4];\n"
		"\tld.global.f32 %f3, [%rd1+8];\n"
		"\tld.global.f32 %f4, [%rd1+12];\n"
		"\tmul.f32 %f5, %f1, %f2;\n"
		"\tmul.f32 %f6, %f3, %f4;\n"
		"\tsub.f32 %f7, %f5, %f6;\n"
		"\tst.global.f32 [%rd1+16], %f7;\n"
		"\tret;\n}\n";
	static const uint32_t in[5] = { 0x3f5e8b66, 0x3f0c31fb, 0x3c1bbba6,
					0x3fa66666, 0 };
	uint32_t out[5];
	float f[4];
	char err[256];
	void *d = dalloc(sizeof(in));
	void *args[1] = { &d };

	ck_assert_int_ge(wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)),
			 0);
	cudaMemcpy(d, in, sizeof(in), cudaMemcpyHostToDevice);
	ck_assert_int_eq(launch("pq", 1, 1, 1, 1, 0, args), cudaSuccess);
	cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost);
	memcpy(f, in, sizeof(f));
	ck_assert_msg(out[4] == 0x3eed6bbeu, "a*b - c*d gave %#x", out[4]);
	ck_assert(out[4] == (union { float f; uint32_t u; }){
		  fmaf(f[0], f[1], -(f[2] * f[3])) }.u);
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

int main(void)
{
	Suite *s = suite_create("emu_counters");
	TCase *tc;

	tc = tcase_create("counters");
	tcase_add_test(tc, test_counters_set_a);
	tcase_add_test(tc, test_counting_off);
	tcase_add_test(tc, test_counters_set_b);
	tcase_add_test(tc, test_counters_per_line);
	tcase_add_test(tc, test_counters_wide_shared);
	tcase_add_test(tc, test_f32_contraction);
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
	return emu_test_run(s);
}
