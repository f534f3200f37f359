/*
 * build/wg-probe: is there a usable GPU?  The grader never calls CUDA
 * itself (it forks children), so it runs this small program instead.
 * It sees the devices its environment's CUDA_VISIBLE_DEVICES shows it.
 *
 * When device 0 works (a context and an allocation on it), it prints
 * "sm <major> <minor> <name>" for device 0, then one line per device
 * that is not in a prohibited compute mode, device 0 first,
 *
 *     gpu <index> <uuid> <pci bus id> <major> <minor> <name>
 *
 * (the uuid as nvidia-smi prints it, "GPU-" and 32 hex digits in five
 * groups; CUDA_VISIBLE_DEVICES accepts it), and exits 0.  Otherwise it
 * prints one line saying why and exits 1.  Only device 0 is opened: the
 * others are listed from their properties, for a grader that spreads
 * its work over the host's GPUs (grader/gpus.h).
 *
 * `wg-probe --hold` then keeps its context, submitting nothing, until it
 * is killed: a batch keeps the GPU initialised with it (grader/gpukeep.h).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void print_uuid(const cudaUUID_t *u)
{
	const unsigned char *b = (const unsigned char *)u->bytes;

	printf("GPU-");
	for (int i = 0; i < 16; i++)
		printf("%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ?
		       "-" : "", b[i]);
}

static void list_devices(int n)
{
	struct cudaDeviceProp prop;

	for (int i = 0; i < n; i++) {
		int mode = 0;

		if (cudaGetDeviceProperties(&prop, i) != cudaSuccess ||
		    cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode,
					   i) != cudaSuccess ||
		    mode == cudaComputeModeProhibited)
			continue;
		printf("gpu %d ", i);
		print_uuid(&prop.uuid);
		printf(" %04x:%02x:%02x.0 %d %d %s\n", prop.pciDomainID,
		       prop.pciBusID, prop.pciDeviceID, prop.major,
		       prop.minor, prop.name);
	}
}

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
	list_devices(n);
	if (argc > 1 && !strcmp(argv[1], "--hold")) {
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
