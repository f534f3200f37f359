// Every cudaDeviceAttr of device 0, and the fields of cudaDeviceProp
// that mirror them, one per line: the same program prints the same on a
// GPU and on the emulator for the values docs/EMULATOR.md calls hardware
// facts.  "attr N = V" or "attr N error E" (E: the call's status, then
// cudaGetLastError's).
#include <cstdio>
#include <cuda_runtime.h>

int main()
{
	for (int a = 1; a <= 150; a++) {
		int v = -12345;
		cudaError_t e = cudaDeviceGetAttribute(
			&v, (cudaDeviceAttr)a, 0);
		cudaError_t last = cudaGetLastError();

		if (e == cudaSuccess && last == cudaSuccess)
			printf("attr %d = %d\n", a, v);
		else
			printf("attr %d error %d %d\n", a, (int)e, (int)last);
	}
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
		return 1;
	printf("totalGlobalMem %zu\nsharedMemPerBlock %zu\n"
	       "regsPerBlock %d\nmemPitch %zu\ntotalConstMem %zu\n"
	       "textureAlignment %zu\nmultiProcessorCount %d\n"
	       "canMapHostMemory %d\nmaxTexture2D %d %d\n"
	       "asyncEngineCount %d\nmemoryBusWidth %d\nl2CacheSize %d\n"
	       "persistingL2CacheMaxSize %d\nmanagedMemory %d\n"
	       "concurrentManagedAccess %d\npageableMemoryAccess %d\n"
	       "cooperativeLaunch %d\nsharedMemPerBlockOptin %zu\n"
	       "accessPolicyMaxWindowSize %d\nreservedSharedMemPerBlock %zu\n"
	       "memoryPoolsSupported %d\nclusterLaunch %d\n"
	       "gpuPciDeviceID %x\ngpuPciSubsystemID %x\n",
	       p.totalGlobalMem, p.sharedMemPerBlock, p.regsPerBlock,
	       p.memPitch, p.totalConstMem, p.textureAlignment,
	       p.multiProcessorCount, p.canMapHostMemory, p.maxTexture2D[0],
	       p.maxTexture2D[1], p.asyncEngineCount, p.memoryBusWidth,
	       p.l2CacheSize, p.persistingL2CacheMaxSize, p.managedMemory,
	       p.concurrentManagedAccess, p.pageableMemoryAccess,
	       p.cooperativeLaunch, p.sharedMemPerBlockOptin,
	       p.accessPolicyMaxWindowSize, p.reservedSharedMemPerBlock,
	       p.memoryPoolsSupported, p.clusterLaunch, p.gpuPciDeviceID,
	       p.gpuPciSubsystemID);
	printf("name %s\n", p.name);
	return 0;
}
