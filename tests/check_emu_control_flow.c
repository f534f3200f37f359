/*
 * Check tests of the emulator (harness/emu), control flow and what
 * kernels compute: immediate post-dominators, divergence and
 * reconvergence, warp-uniform registers, the exercises' shapes
 * (transpose, a partial warp's reverse, staging through shared memory),
 * a texture recorded, a dry call forced when observed, a barrier after
 * an early return, half and SIMD arithmetic, register scopes, shared
 * memory's first contents, intrinsics, block votes and asynchronous
 * copies.
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
	for (int c = 0; c < 8; c++) {
		for (uint32_t t = 0; t < 64; t++) {
			uint32_t want = uniform_want(c, t, k);

			ck_assert_msg(got[c * 64 + t] == want,
				      "store %d of thread %u: %u, want %u", c,
				      t, got[c * 64 + t], want);
		}
	}
}
END_TEST

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

int main(void)
{
	Suite *s = suite_create("emu_control_flow");
	TCase *tc;

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
	return emu_test_run(s);
}
