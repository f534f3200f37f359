/*
 * The ISA conformance driver (tests/isa/gen.py writes its input): runs
 * every case's kernel over its inputs and writes what it stored, on a
 * GPU (built with -DISA_GPU against the CUDA driver API, each case's
 * PTX JIT-compiled by the driver) or on the emulator (linked with
 * build/libwgemu.a, each case's PTX loaded by wgemu_load_ptx).  The two
 * outputs are compared bit for bit by isa-compare (tests/isa/compare.c) or, against
 * a GPU's stored outputs, by tests/check_isa.c.
 *
 *   isa-run DIR        reads DIR/isa.ptx, isa.cases, isa.in
 *                      writes DIR/isa.<backend>.out
 *   isa-run -O0 DIR    (GPU) JIT-compiles without optimisation, and
 *                      writes DIR/isa.gpu-O0.out: what the hardware's
 *                      instructions compute when ptxas folds and fuses
 *                      none of them (a chain of conversions of 8- and
 *                      16-bit values is where its optimiser departs
 *                      from the PTX, see docs/CONFORMANCE.md)
 *
 * The output holds, per case, one status byte (ISA_RAN, ISA_NO_LOAD:
 * the PTX was refused, ISA_NO_RUN: the launch failed) and then each
 * lane's 16-byte slot, poisoned with 0xa5 before the launch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

#ifdef ISA_GPU
#include <cuda.h>
#define BACKEND "gpu"

static CUdeviceptr d_in, d_out;
static int jit_o0;	/* -O0: ptxas at optimisation level 0 */

static int setup(void)
{
	CUdevice dev;
	CUcontext ctx;

	return cuInit(0) || cuDeviceGet(&dev, 0) ||
	       cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx) ||
	       cuMemAlloc(&d_in, ISA_IN_BYTES) ||
	       cuMemAlloc(&d_out, ISA_OUT_BYTES) ? -1 : 0;
}

/* one case: 0 ran, ISA_NO_LOAD, ISA_NO_RUN */
static int run_case(const char *ptx, const char *name, const void *in,
		    void *out)
{
	CUmodule mod;
	CUfunction f;
	void *args[2] = { &d_in, &d_out };
	int rc = 0;

	CUjit_option opt = CU_JIT_OPTIMIZATION_LEVEL;
	void *level = (void *)(uintptr_t)0;

	if ((jit_o0 ? cuModuleLoadDataEx(&mod, ptx, 1, &opt, &level) :
	     cuModuleLoadData(&mod, ptx)) != CUDA_SUCCESS)
		return ISA_NO_LOAD;
	if (cuModuleGetFunction(&f, mod, name) ||
	    cuMemcpyHtoD(d_in, in, ISA_IN_BYTES) ||
	    cuMemsetD8(d_out, 0xa5, ISA_OUT_BYTES) ||
	    cuLaunchKernel(f, 1, 1, 1, ISA_LANES, 1, 1, 0, 0, args, NULL) ||
	    cuCtxSynchronize() || cuMemcpyDtoH(out, d_out, ISA_OUT_BYTES))
		rc = ISA_NO_RUN;
	cuModuleUnload(mod);
	return rc;
}
#else
#include <cuda_runtime_api.h>
#include "emu/wgemu.h"
#define BACKEND "emu"

static void *d_in, *d_out;

static int setup(void)
{
	return cudaMalloc(&d_in, ISA_IN_BYTES) ||
	       cudaMalloc(&d_out, ISA_OUT_BYTES) ? -1 : 0;
}

static int run_case(const char *ptx, const char *name, const void *in,
		    void *out)
{
	char err[256];
	const void *k;
	void *args[2] = { &d_in, &d_out };
	dim3 g = { 1, 1, 1 }, b = { ISA_LANES, 1, 1 };

	if (wgemu_load_ptx(ptx, strlen(ptx), err, sizeof(err)) < 0 ||
	    !(k = wgemu_kernel(name)))
		return ISA_NO_LOAD;
	if (cudaMemcpy(d_in, in, ISA_IN_BYTES, cudaMemcpyHostToDevice) ||
	    cudaMemset(d_out, 0xa5, ISA_OUT_BYTES) ||
	    cudaLaunchKernel(k, g, b, args, 0, NULL) ||
	    cudaDeviceSynchronize() ||
	    cudaMemcpy(out, d_out, ISA_OUT_BYTES, cudaMemcpyDeviceToHost)) {
		/* a fault is sticky: start again for the next case */
		cudaDeviceReset();
		if (setup())
			return -1;
		return ISA_NO_RUN;
	}
	return 0;
}
#endif

int main(int argc, char **argv)
{
	struct isa_cases c;
	unsigned char *out = malloc(ISA_OUT_BYTES);
	char path[4096];
	FILE *f;

	const char *suffix = "";

#ifdef ISA_GPU
	if (argc == 3 && !strcmp(argv[1], "-O0")) {
		jit_o0 = 1;
		suffix = "-O0";
		argv++;
		argc--;
	}
#endif
	if (argc != 2) {
		fprintf(stderr, "usage: isa-run [-O0] DIR\n");
		return 2;
	}
	if (!out || isa_read(argv[1], &c) || setup()) {
		fprintf(stderr, "isa-run: cannot read the cases in '%s' or set "
			"up the device\n", argv[1]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/isa.%s%s.out", argv[1], BACKEND,
		 suffix);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "isa-run: cannot write '%s'\n", path);
		return 1;
	}
	for (size_t i = 0; i < c.n; i++) {
		int rc;
		unsigned char st;

		memset(out, 0, ISA_OUT_BYTES);
		rc = run_case(c.ptx[i], c.name[i], c.in + i * ISA_IN_BYTES,
			      out);
		if (rc < 0) {
			fprintf(stderr, "isa-run: the device is lost\n");
			return 1;
		}
		st = (unsigned char)rc;
		if (fwrite(&st, 1, 1, f) != 1 ||
		    fwrite(out, 1, ISA_OUT_BYTES, f) != ISA_OUT_BYTES) {
			fprintf(stderr, "isa-run: cannot write '%s'\n", path);
			return 1;
		}
	}
	isa_release(&c);
	free(out);
	return fclose(f) ? 1 : 0;
}
