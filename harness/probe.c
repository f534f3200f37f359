/*
 * build/wg-probe: is there a usable GPU?  The grader never calls CUDA
 * itself (it forks children), so it runs this small program instead.
 * Prints "sm <major> <minor> <name>" and exits 0 when device 0 works,
 * otherwise one line saying why and exits 1.
 *
 * `wg-probe --hold` then keeps its context, submitting nothing, until it
 * is killed: a batch keeps the GPU initialised with it (grader/gpukeep.h).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct cudaDeviceProp prop;
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);
	void *p = NULL;

	if (err != cudaSuccess) {
		printf("%s\n", cudaGetErrorString(err));
		return 1;
	}
	if (n < 1) {
		printf("no CUDA device\n");
		return 1;
	}
	err = cudaGetDeviceProperties(&prop, 0);
	if (err == cudaSuccess)
		err = cudaMalloc(&p, 1 << 20);
	if (err != cudaSuccess) {
		printf("%s\n", cudaGetErrorString(err));
		return 1;
	}
	cudaFree(p);
	printf("sm %d %d %s\n", prop.major, prop.minor, prop.name);
	if (argc > 1 && !strcmp(argv[1], "--hold")) {
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
