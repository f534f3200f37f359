/*
 * build/wg-probe: is there a usable GPU?  The grader never calls CUDA
 * itself (it forks children), so it runs this small program instead.
 * It sees the devices its environment's CUDA_VISIBLE_DEVICES shows it.
 *
 * When device 0 works (a context and an allocation on it), it prints
 * "sm <major> <minor> <name>" for device 0, then one line per usable
 * device (device 0 first),
 *
 *     gpu <index> <uuid> <pci bus id> <major> <minor> <name>
 *
 * (the uuid as nvidia-smi prints it, "GPU-" and 32 hex digits in five
 * groups; CUDA_VISIBLE_DEVICES accepts it), and exits 0.  Otherwise it
 * prints one line saying why and exits 1.  A device is listed when it
 * is usable as device 0 is: an allocation on it succeeds (the others
 * are tried side by side, in threads), for a grader that spreads its
 * work over the host's GPUs (grader/gpus.h).
 *
 * `wg-probe --hold` lists nothing but keeps its context on device 0,
 * submitting nothing, until it is killed: a batch keeps the GPU
 * initialised with it (grader/gpukeep.h).
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEVICES 16 /* grader/gpus.h's GPUS_MAX */

static void print_uuid(const cudaUUID_t *u)
{
	const unsigned char *b = (const unsigned char *)u->bytes;

	printf("GPU-");
	for (int i = 0; i < 16; i++)
		printf("%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ?
		       "-" : "", b[i]);
}

/* Device i usable: not in a prohibited compute mode, and a context and
 * an allocation can be had on it (a device another process holds in
 * exclusive mode cannot).  Each checked in a thread of its own, so that
 * the contexts are created side by side. */
struct check {
	pthread_t thread;
	int index, started, usable;
	struct cudaDeviceProp prop;
};

static void *check_device(void *arg)
{
	struct check *c = arg;
	int mode = 0;
	void *p = NULL;

	if (cudaGetDeviceProperties(&c->prop, c->index) != cudaSuccess ||
	    cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode,
				   c->index) != cudaSuccess ||
	    mode == cudaComputeModeProhibited)
		return NULL;
	if (c->index == 0) {
		c->usable = 1; /* main opened it already */
		return NULL;
	}
	if (cudaSetDevice(c->index) == cudaSuccess &&
	    cudaMalloc(&p, 1 << 20) == cudaSuccess) {
		cudaFree(p);
		c->usable = 1;
	}
	return NULL;
}

static void list_devices(int n)
{
	struct check c[MAX_DEVICES];

	if (n > MAX_DEVICES)
		n = MAX_DEVICES;
	memset(c, 0, sizeof(c));
	for (int i = 0; i < n; i++) {
		c[i].index = i;
		c[i].started = !pthread_create(&c[i].thread, NULL,
					       check_device, &c[i]);
		if (!c[i].started)
			check_device(&c[i]);
	}
	for (int i = 0; i < n; i++) {
		if (c[i].started)
			pthread_join(c[i].thread, NULL);
		if (!c[i].usable)
			continue;
		printf("gpu %d ", i);
		print_uuid(&c[i].prop.uuid);
		printf(" %04x:%02x:%02x.0 %d %d %s\n", c[i].prop.pciDomainID,
		       c[i].prop.pciBusID, c[i].prop.pciDeviceID,
		       c[i].prop.major, c[i].prop.minor, c[i].prop.name);
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
	if (argc > 1 && !strcmp(argv[1], "--hold")) {
		/* a keeper holds device 0 alone: no context on the others */
		fflush(stdout);
		for (;;)
			pause();
	}
	list_devices(n);
	return 0;
}
