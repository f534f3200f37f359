/*
 * The emulator's correctness sweep, without the grader: every shape of
 * each exercise a CPU runs (the 4,096 small ones, the edges and the
 * measured shapes of seed 1) through
 * a submission's launchers on the interpreter, one after the other, the
 * output checked against the exercise's oracle.  Traffic is not counted,
 * as in the runner (wgemu_count).  Prints the seconds each
 * exercise took and the shapes that failed; exits 1 on any failure.
 *
 * Built and run by bench/emu-sweep, which compiles a submission's four
 * files for the emulator and links them here with libwgemu.a.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "emu/wgemu.h"
#include "exercise.h"
#include "coalesced_transpose.h"
#include "padded_tile.h"
#include "aos_to_soa.h"
#include "dynamic_reverse.h"
}

/* the grade's default seed: the measured shapes it draws */
#define SEED 1

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the exercise's launcher on device buffers */
static void launch(const char *name, void *out, const void *in,
		   struct exercise_shape s)
{
	if (!strcmp(name, "coalesced_transpose"))
		coalesced_transpose((float *)out, (const float *)in, s.m, s.n,
				    0);
	else if (!strcmp(name, "padded_tile"))
		padded_tile_transpose((float *)out, (const float *)in, s.m,
				      s.n, 0);
	else if (!strcmp(name, "aos_to_soa"))
		aos_to_soa((float *)out, (const float *)in, s.m, s.n, 0);
	else
		reverse_rows((int *)out, (const int *)in, s.m, s.n, 0);
}

/* every shape of ex a CPU runs: the failures */
static int sweep(const struct exercise *ex, double *secs)
{
	size_t n = exercise_nshapes_all(ex), cap = 0, es = ex->elem_size;
	unsigned char *h_in = NULL, *h_out = NULL, *h_want = NULL;
	void *d_in = NULL, *d_out = NULL;
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		size_t e = exercise_shape_elems(exercise_shape_of(ex, SEED, i,
								  NULL));
		cap = e > cap ? e : cap;
	}
	h_in = (unsigned char *)malloc(cap * es);
	h_out = (unsigned char *)malloc(cap * es);
	h_want = (unsigned char *)malloc(cap * es);
	if (!h_in || !h_out || !h_want ||
	    cudaMalloc(&d_in, cap * es) != cudaSuccess ||
	    cudaMalloc(&d_out, cap * es) != cudaSuccess) {
		fprintf(stderr, "emu_sweep: out of memory\n");
		exit(2);
	}
	*secs = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned flags;
		struct exercise_shape s = exercise_shape_of(ex, SEED, i,
							    &flags);
		size_t bytes = exercise_shape_elems(s) * es;
		double t;

		if (flags & EXERCISE_EDGE_GPU_ONLY)
			continue;
		ex->generate(SEED, i, s, h_in);
		cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
		cudaMemset(d_out, 0, bytes);
		t = now();
		launch(ex->name, d_out, d_in, s);
		if (cudaDeviceSynchronize() != cudaSuccess) {
			printf("  %s %d x %d: %s\n", ex->name, s.m, s.n,
			       cudaGetErrorString(cudaGetLastError()));
			bad++;
			continue;
		}
		*secs += now() - t;
		cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
		ex->expected(h_in, h_want, s);
		if (memcmp(h_out, h_want, bytes) && bad++ < 5)
			printf("  %s %d x %d: wrong output\n", ex->name, s.m,
			       s.n);
	}
	cudaFree(d_in);
	cudaFree(d_out);
	free(h_in);
	free(h_out);
	free(h_want);
	return bad;
}

int main(int argc, char **argv)
{
	double total = 0;
	int bad = 0;

	wgemu_count(0);

	for (size_t k = 0; k < exercise_count(); k++) {
		const struct exercise *ex = exercise_table[k];
		double secs;
		int b;

		if (argc > 1 && strcmp(argv[1], ex->name))
			continue;
		b = sweep(ex, &secs);
		printf("%-20s %6.3f s%s\n", ex->name, secs,
		       b ? " (FAILED)" : "");
		total += secs;
		bad += b;
	}
	printf("%-20s %6.3f s\n", "all", total);
	return bad ? 1 : 0;
}
