/*
 * The emulated device's attributes (device.h): one table indexed by
 * enum cudaDeviceAttr holding what an H100 SXM5 80GB reports, read by
 * cudaDeviceGetAttribute and, through the same table, by
 * cudaGetDeviceProperties.  Samples and helper headers query attributes
 * by number and abort on the first error, so every number the enum
 * defines has an answer; reserved numbers answer 0.  Then the runtime
 * API that asks about the device and sets its preferences: the device
 * count, versions, a kernel's attributes, occupancy, cache
 * configurations and limits (cudaDeviceSetLimit).
 */
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include "emu/rt/device.h"
#include "emu/rt/rt.h"

#define A(name, v) [cudaDevAttr##name] = { 1, (v) }

struct attr {
	int known;
	int value;
};

static const struct attr attrs[] = {
	A(MaxThreadsPerBlock, EMU_MAX_BLOCK_THREADS),
	A(MaxBlockDimX, EMU_MAX_BLOCK_X),
	A(MaxBlockDimY, EMU_MAX_BLOCK_Y),
	A(MaxBlockDimZ, EMU_MAX_BLOCK_Z),
	A(MaxGridDimX, EMU_MAX_GRID_X),
	A(MaxGridDimY, EMU_MAX_GRID_Y),
	A(MaxGridDimZ, EMU_MAX_GRID_Z),
	A(MaxSharedMemoryPerBlock, EMU_SMEM_DEFAULT),
	A(TotalConstantMemory, 65536),
	A(WarpSize, EMU_WARP_SIZE),
	A(MaxPitch, 2147483647),
	A(MaxRegistersPerBlock, 65536),
	A(ClockRate, 1980000),                 /* kHz, boost */
	A(TextureAlignment, EMU_ALLOC_ALIGN),
	A(GpuOverlap, 1),
	A(MultiProcessorCount, EMU_SM_COUNT),
	A(KernelExecTimeout, 0),
	A(Integrated, 0),
	A(CanMapHostMemory, 1),
	A(ComputeMode, cudaComputeModeDefault),
	A(MaxTexture1DWidth, 131072),
	A(MaxTexture2DWidth, 131072),
	A(MaxTexture2DHeight, 65536),
	A(MaxTexture3DWidth, 16384),
	A(MaxTexture3DHeight, 16384),
	A(MaxTexture3DDepth, 16384),
	A(MaxTexture2DLayeredWidth, 32768),
	A(MaxTexture2DLayeredHeight, 32768),
	A(MaxTexture2DLayeredLayers, 2048),
	A(SurfaceAlignment, EMU_ALLOC_ALIGN),
	A(ConcurrentKernels, 1),
	A(EccEnabled, 1),
	A(PciBusId, 0),                         /* the emulator's */
	A(PciDeviceId, 0),                      /* the emulator's */
	A(TccDriver, 0),
	A(MemoryClockRate, 2619000),            /* kHz */
	A(GlobalMemoryBusWidth, 5120),
	A(L2CacheSize, 50 * 1024 * 1024),
	A(MaxThreadsPerMultiProcessor, EMU_MAX_SM_THREADS),
	A(AsyncEngineCount, 3),
	A(UnifiedAddressing, 1),
	A(MaxTexture1DLayeredWidth, 32768),
	A(MaxTexture1DLayeredLayers, 2048),
	A(MaxTexture2DGatherWidth, 32768),
	A(MaxTexture2DGatherHeight, 32768),
	A(MaxTexture3DWidthAlt, 8192),
	A(MaxTexture3DHeightAlt, 8192),
	A(MaxTexture3DDepthAlt, 32768),
	A(PciDomainId, 0),                      /* the emulator's */
	A(TexturePitchAlignment, EMU_TEXTURE_PITCH_ALIGN),
	A(MaxTextureCubemapWidth, 32768),
	A(MaxTextureCubemapLayeredWidth, 32768),
	A(MaxTextureCubemapLayeredLayers, 2046),
	A(MaxSurface1DWidth, 32768),
	A(MaxSurface2DWidth, 131072),
	A(MaxSurface2DHeight, 65536),
	A(MaxSurface3DWidth, 16384),
	A(MaxSurface3DHeight, 16384),
	A(MaxSurface3DDepth, 16384),
	A(MaxSurface1DLayeredWidth, 32768),
	A(MaxSurface1DLayeredLayers, 2048),
	A(MaxSurface2DLayeredWidth, 32768),
	A(MaxSurface2DLayeredHeight, 32768),
	A(MaxSurface2DLayeredLayers, 2048),
	A(MaxSurfaceCubemapWidth, 32768),
	A(MaxSurfaceCubemapLayeredWidth, 32768),
	A(MaxSurfaceCubemapLayeredLayers, 2046),
	A(MaxTexture1DLinearWidth, 268435456),
	A(MaxTexture2DLinearWidth, 131072),
	A(MaxTexture2DLinearHeight, 65000),
	A(MaxTexture2DLinearPitch, 2097120),
	A(MaxTexture2DMipmappedWidth, 32768),
	A(MaxTexture2DMipmappedHeight, 32768),
	A(ComputeCapabilityMajor, 9),
	A(ComputeCapabilityMinor, 0),
	A(MaxTexture1DMipmappedWidth, 32768),
	A(StreamPrioritiesSupported, 1),
	A(GlobalL1CacheSupported, 1),
	A(LocalL1CacheSupported, 1),
	A(MaxSharedMemoryPerMultiprocessor, EMU_SMEM_PER_SM),
	A(MaxRegistersPerMultiprocessor, 65536),
	A(ManagedMemory, 1),
	A(IsMultiGpuBoard, 0),
	A(MultiGpuBoardGroupID, 0),
	A(HostNativeAtomicSupported, 0),
	A(SingleToDoublePrecisionPerfRatio, 2),
	A(PageableMemoryAccess, 0),
	A(ConcurrentManagedAccess, 1),
	A(ComputePreemptionSupported, 1),
	A(CanUseHostPointerForRegisteredMem, 1),
	A(Reserved92, 0),
	A(Reserved93, 0),
	A(Reserved94, 0),
	A(CooperativeLaunch, 1),
	A(Reserved96, 0),
	A(MaxSharedMemoryPerBlockOptin, EMU_SMEM_OPTIN),
	A(CanFlushRemoteWrites, 0),
	A(HostRegisterSupported, 1),
	A(PageableMemoryAccessUsesHostPageTables, 0),
	A(DirectManagedMemAccessFromHost, 0),
	A(MaxBlocksPerMultiprocessor, EMU_MAX_SM_BLOCKS),
	A(MaxPersistingL2CacheSize, 32505856),
	A(MaxAccessPolicyWindowSize, 134213632),
	A(ReservedSharedMemoryPerBlock, EMU_SMEM_RESERVED),
	A(SparseCudaArraySupported, 1),
	A(HostRegisterReadOnlySupported, 1),
	A(TimelineSemaphoreInteropSupported, 1),
	A(MemoryPoolsSupported, 1),
	A(GPUDirectRDMASupported, 1),
	A(GPUDirectRDMAFlushWritesOptions, 1),
	A(GPUDirectRDMAWritesOrdering, 100),
	A(MemoryPoolSupportedHandleTypes, 9),
	A(ClusterLaunch, 1),
	A(DeferredMappingCudaArraySupported, 1),
	A(Reserved122, 0),
	A(Reserved123, 0),
	A(Reserved124, 0),
	A(IpcEventSupport, 1),
	A(MemSyncDomainCount, 4),
	A(Reserved127, 0),
	A(Reserved128, 0),
	A(Reserved129, 0),
	A(NumaConfig, 0),
	A(NumaId, -1),
	A(Reserved132, 0),
	A(MpsEnabled, 0),
	A(HostNumaId, -1),
	A(D3D12CigSupported, 0),
	A(VulkanCigSupported, 0),
	A(GpuPciDeviceId, 0x233010de),
	A(GpuPciSubsystemId, 0x16c110de),
	A(Reserved141, 0),
	A(HostNumaMemoryPoolsSupported, 0),
	A(HostNumaMultinodeIpcSupported, 0),
	A(HostMemoryPoolsSupported, 0),
	A(Reserved145, 0),
	A(OnlyPartialHostNativeAtomicSupported, 0),
};

#define NATTRS ((int)(sizeof(attrs) / sizeof(attrs[0])))

int emu_device_attr(int attr, int *value)
{
	if (attr <= 0 || attr >= NATTRS || !attrs[attr].known)
		return -1;
	*value = attrs[attr].value;
	return 0;
}

static int at(enum cudaDeviceAttr a)
{
	return attrs[a].value;
}

static void props_textures(struct cudaDeviceProp *p)
{
	p->maxTexture1D = at(cudaDevAttrMaxTexture1DWidth);
	p->maxTexture1DMipmap = at(cudaDevAttrMaxTexture1DMipmappedWidth);
	p->maxTexture2D[0] = at(cudaDevAttrMaxTexture2DWidth);
	p->maxTexture2D[1] = at(cudaDevAttrMaxTexture2DHeight);
	p->maxTexture2DMipmap[0] = at(cudaDevAttrMaxTexture2DMipmappedWidth);
	p->maxTexture2DMipmap[1] = at(cudaDevAttrMaxTexture2DMipmappedHeight);
	p->maxTexture2DLinear[0] = at(cudaDevAttrMaxTexture2DLinearWidth);
	p->maxTexture2DLinear[1] = at(cudaDevAttrMaxTexture2DLinearHeight);
	p->maxTexture2DLinear[2] = at(cudaDevAttrMaxTexture2DLinearPitch);
	p->maxTexture2DGather[0] = at(cudaDevAttrMaxTexture2DGatherWidth);
	p->maxTexture2DGather[1] = at(cudaDevAttrMaxTexture2DGatherHeight);
	p->maxTexture3D[0] = at(cudaDevAttrMaxTexture3DWidth);
	p->maxTexture3D[1] = at(cudaDevAttrMaxTexture3DHeight);
	p->maxTexture3D[2] = at(cudaDevAttrMaxTexture3DDepth);
	p->maxTexture3DAlt[0] = at(cudaDevAttrMaxTexture3DWidthAlt);
	p->maxTexture3DAlt[1] = at(cudaDevAttrMaxTexture3DHeightAlt);
	p->maxTexture3DAlt[2] = at(cudaDevAttrMaxTexture3DDepthAlt);
	p->maxTextureCubemap = at(cudaDevAttrMaxTextureCubemapWidth);
	p->maxTexture1DLayered[0] = at(cudaDevAttrMaxTexture1DLayeredWidth);
	p->maxTexture1DLayered[1] = at(cudaDevAttrMaxTexture1DLayeredLayers);
	p->maxTexture2DLayered[0] = at(cudaDevAttrMaxTexture2DLayeredWidth);
	p->maxTexture2DLayered[1] = at(cudaDevAttrMaxTexture2DLayeredHeight);
	p->maxTexture2DLayered[2] = at(cudaDevAttrMaxTexture2DLayeredLayers);
	p->maxTextureCubemapLayered[0] =
		at(cudaDevAttrMaxTextureCubemapLayeredWidth);
	p->maxTextureCubemapLayered[1] =
		at(cudaDevAttrMaxTextureCubemapLayeredLayers);
}

static void props_surfaces(struct cudaDeviceProp *p)
{
	p->maxSurface1D = at(cudaDevAttrMaxSurface1DWidth);
	p->maxSurface2D[0] = at(cudaDevAttrMaxSurface2DWidth);
	p->maxSurface2D[1] = at(cudaDevAttrMaxSurface2DHeight);
	p->maxSurface3D[0] = at(cudaDevAttrMaxSurface3DWidth);
	p->maxSurface3D[1] = at(cudaDevAttrMaxSurface3DHeight);
	p->maxSurface3D[2] = at(cudaDevAttrMaxSurface3DDepth);
	p->maxSurface1DLayered[0] = at(cudaDevAttrMaxSurface1DLayeredWidth);
	p->maxSurface1DLayered[1] = at(cudaDevAttrMaxSurface1DLayeredLayers);
	p->maxSurface2DLayered[0] = at(cudaDevAttrMaxSurface2DLayeredWidth);
	p->maxSurface2DLayered[1] = at(cudaDevAttrMaxSurface2DLayeredHeight);
	p->maxSurface2DLayered[2] = at(cudaDevAttrMaxSurface2DLayeredLayers);
	p->maxSurfaceCubemap = at(cudaDevAttrMaxSurfaceCubemapWidth);
	p->maxSurfaceCubemapLayered[0] =
		at(cudaDevAttrMaxSurfaceCubemapLayeredWidth);
	p->maxSurfaceCubemapLayered[1] =
		at(cudaDevAttrMaxSurfaceCubemapLayeredLayers);
	p->surfaceAlignment = (size_t)at(cudaDevAttrSurfaceAlignment);
}

static void props_limits(struct cudaDeviceProp *p)
{
	p->totalGlobalMem = (size_t)EMU_TOTAL_MEM;
	p->sharedMemPerBlock = (size_t)at(cudaDevAttrMaxSharedMemoryPerBlock);
	p->regsPerBlock = at(cudaDevAttrMaxRegistersPerBlock);
	p->warpSize = at(cudaDevAttrWarpSize);
	p->memPitch = (size_t)at(cudaDevAttrMaxPitch);
	p->maxThreadsPerBlock = at(cudaDevAttrMaxThreadsPerBlock);
	p->maxThreadsDim[0] = at(cudaDevAttrMaxBlockDimX);
	p->maxThreadsDim[1] = at(cudaDevAttrMaxBlockDimY);
	p->maxThreadsDim[2] = at(cudaDevAttrMaxBlockDimZ);
	p->maxGridSize[0] = at(cudaDevAttrMaxGridDimX);
	p->maxGridSize[1] = at(cudaDevAttrMaxGridDimY);
	p->maxGridSize[2] = at(cudaDevAttrMaxGridDimZ);
	p->totalConstMem = (size_t)at(cudaDevAttrTotalConstantMemory);
	p->major = at(cudaDevAttrComputeCapabilityMajor);
	p->minor = at(cudaDevAttrComputeCapabilityMinor);
	p->textureAlignment = (size_t)at(cudaDevAttrTextureAlignment);
	p->texturePitchAlignment = (size_t)at(cudaDevAttrTexturePitchAlignment);
	p->multiProcessorCount = at(cudaDevAttrMultiProcessorCount);
	p->memoryBusWidth = at(cudaDevAttrGlobalMemoryBusWidth);
	p->l2CacheSize = at(cudaDevAttrL2CacheSize);
	p->persistingL2CacheMaxSize = at(cudaDevAttrMaxPersistingL2CacheSize);
	p->maxThreadsPerMultiProcessor =
		at(cudaDevAttrMaxThreadsPerMultiProcessor);
	p->sharedMemPerMultiprocessor =
		(size_t)at(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
	p->regsPerMultiprocessor = at(cudaDevAttrMaxRegistersPerMultiprocessor);
	p->sharedMemPerBlockOptin =
		(size_t)at(cudaDevAttrMaxSharedMemoryPerBlockOptin);
	p->maxBlocksPerMultiProcessor =
		at(cudaDevAttrMaxBlocksPerMultiprocessor);
	p->accessPolicyMaxWindowSize = at(cudaDevAttrMaxAccessPolicyWindowSize);
	p->reservedSharedMemPerBlock =
		(size_t)at(cudaDevAttrReservedSharedMemoryPerBlock);
}

static void props_features(struct cudaDeviceProp *p)
{
	p->integrated = at(cudaDevAttrIntegrated);
	p->canMapHostMemory = at(cudaDevAttrCanMapHostMemory);
	p->concurrentKernels = at(cudaDevAttrConcurrentKernels);
	p->ECCEnabled = at(cudaDevAttrEccEnabled);
	p->pciBusID = at(cudaDevAttrPciBusId);
	p->pciDeviceID = at(cudaDevAttrPciDeviceId);
	p->pciDomainID = at(cudaDevAttrPciDomainId);
	p->tccDriver = at(cudaDevAttrTccDriver);
	p->asyncEngineCount = at(cudaDevAttrAsyncEngineCount);
	p->unifiedAddressing = at(cudaDevAttrUnifiedAddressing);
	p->streamPrioritiesSupported = at(cudaDevAttrStreamPrioritiesSupported);
	p->globalL1CacheSupported = at(cudaDevAttrGlobalL1CacheSupported);
	p->localL1CacheSupported = at(cudaDevAttrLocalL1CacheSupported);
	p->managedMemory = at(cudaDevAttrManagedMemory);
	p->isMultiGpuBoard = at(cudaDevAttrIsMultiGpuBoard);
	p->multiGpuBoardGroupID = at(cudaDevAttrMultiGpuBoardGroupID);
	p->hostNativeAtomicSupported = at(cudaDevAttrHostNativeAtomicSupported);
	p->pageableMemoryAccess = at(cudaDevAttrPageableMemoryAccess);
	p->concurrentManagedAccess = at(cudaDevAttrConcurrentManagedAccess);
	p->computePreemptionSupported =
		at(cudaDevAttrComputePreemptionSupported);
	p->canUseHostPointerForRegisteredMem =
		at(cudaDevAttrCanUseHostPointerForRegisteredMem);
	p->cooperativeLaunch = at(cudaDevAttrCooperativeLaunch);
	p->pageableMemoryAccessUsesHostPageTables =
		at(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
	p->directManagedMemAccessFromHost =
		at(cudaDevAttrDirectManagedMemAccessFromHost);
	p->hostRegisterSupported = at(cudaDevAttrHostRegisterSupported);
	p->sparseCudaArraySupported = at(cudaDevAttrSparseCudaArraySupported);
	p->hostRegisterReadOnlySupported =
		at(cudaDevAttrHostRegisterReadOnlySupported);
	p->timelineSemaphoreInteropSupported =
		at(cudaDevAttrTimelineSemaphoreInteropSupported);
	p->memoryPoolsSupported = at(cudaDevAttrMemoryPoolsSupported);
	p->gpuDirectRDMASupported = at(cudaDevAttrGPUDirectRDMASupported);
	p->gpuDirectRDMAFlushWritesOptions =
		(unsigned)at(cudaDevAttrGPUDirectRDMAFlushWritesOptions);
	p->gpuDirectRDMAWritesOrdering =
		at(cudaDevAttrGPUDirectRDMAWritesOrdering);
	p->memoryPoolSupportedHandleTypes =
		(unsigned)at(cudaDevAttrMemoryPoolSupportedHandleTypes);
	p->deferredMappingCudaArraySupported =
		at(cudaDevAttrDeferredMappingCudaArraySupported);
	p->ipcEventSupported = at(cudaDevAttrIpcEventSupport);
	p->clusterLaunch = at(cudaDevAttrClusterLaunch);
	p->unifiedFunctionPointers = 1;
	p->deviceNumaConfig = at(cudaDevAttrNumaConfig);
	p->deviceNumaId = at(cudaDevAttrNumaId);
	p->mpsEnabled = at(cudaDevAttrMpsEnabled);
	p->hostNumaId = at(cudaDevAttrHostNumaId);
	p->gpuPciDeviceID = (unsigned)at(cudaDevAttrGpuPciDeviceId);
	p->gpuPciSubsystemID = (unsigned)at(cudaDevAttrGpuPciSubsystemId);
	p->hostNumaMultinodeIpcSupported =
		at(cudaDevAttrHostNumaMultinodeIpcSupported);
}

void emu_device_props(struct cudaDeviceProp *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "warpgrade emulator (sm_90)");
	memcpy(p->uuid.bytes, "warpgrade-emu-90", 16);
	props_limits(p);
	props_textures(p);
	props_surfaces(p);
	props_features(p);
}

/* ---- the runtime API: the device ---- */
cudaError_t cudaGetDeviceCount(int *count)
{
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	*device = 0;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	return device == 0 ? emu_rt.sticky : rt_fail(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
	if (device != 0)
		return rt_fail(cudaErrorInvalidDevice);
	if (!p)
		return rt_fail(cudaErrorInvalidValue);
	emu_device_props(p);
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
				   int device)
{
	if (device != 0)
		return rt_fail(cudaErrorInvalidDevice);
	if (!value || emu_device_attr((int)attr, value))
		return rt_fail(cudaErrorInvalidValue);
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func,
				 enum cudaFuncAttribute attr, int value)
{
	struct rt_kernel *k = rt_kernel_find(func);

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
		size_t st = 0;

		if (!rt_kernel_load(k))
			st = emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
		if (value < 0 || (size_t)value + st > EMU_SMEM_OPTIN)
			return rt_fail(cudaErrorInvalidValue);
		k->max_dyn = (size_t)value;
		return cudaSuccess;
	}
	if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
		return value >= -1 && value <= 100 ? cudaSuccess :
		       rt_fail(cudaErrorInvalidValue);
	return rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
				  const void *func)
{
	struct rt_kernel *k = rt_kernel_find(func);
	const struct emu_func *f;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k || rt_kernel_load(k))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	f = &emu_rt.mods[k->mod].m->funcs[k->fi];
	memset(attr, 0, sizeof(*attr));
	attr->sharedSizeBytes = emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
	attr->constSizeBytes = 0;
	attr->localSizeBytes = f->depot_bytes;
	attr->maxThreadsPerBlock = EMU_MAX_BLOCK_THREADS;
	attr->numRegs = 32;
	attr->ptxVersion = 90;
	attr->binaryVersion = 90;
	attr->maxDynamicSharedSizeBytes = (int)k->max_dyn;
	return cudaSuccess;
}

/* Blocks of k (NULL: one with no static shared memory) resident on
 * one SM at once: the least the SM's warps, blocks and shared memory
 * allow (1 KB of it reserved per block), 0 when one does not fit. */
int rt_blocks_per_sm(struct rt_kernel *k, unsigned threads, size_t dyn)
{
	unsigned warps = (threads + EMU_WARP_SIZE - 1) / EMU_WARP_SIZE;
	size_t smem = dyn + EMU_SMEM_RESERVED;
	unsigned n = EMU_MAX_SM_WARPS / warps;

	if (k && !rt_kernel_load(k))
		smem += emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
	if (n > EMU_MAX_SM_BLOCKS)
		n = EMU_MAX_SM_BLOCKS;
	if (n > EMU_SMEM_PER_SM / smem)
		n = (unsigned)(EMU_SMEM_PER_SM / smem);
	return (int)n;
}

static cudaError_t occupancy_locked(int *numBlocks, const void *func,
				    int blockSize, size_t dynamicSMemSize)
{
	if (blockSize <= 0 || blockSize > EMU_MAX_BLOCK_THREADS)
		return rt_fail(cudaErrorInvalidValue);
	*numBlocks = rt_blocks_per_sm(rt_kernel_find(func), (unsigned)blockSize,
				   dynamicSMemSize);
	return emu_rt.sticky;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
		const void *func, int blockSize, size_t dynamicSMemSize)
{
	RT_LOCKED(occupancy_locked(numBlocks, func, blockSize,
				dynamicSMemSize));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
		int *numBlocks, const void *func, int blockSize,
		size_t dynamicSMemSize, unsigned int flags)
{
	(void)flags;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func,
			blockSize, dynamicSMemSize);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
		const void *func, int numBlocks, int blockSize)
{
	struct rt_kernel *k = rt_kernel_find(func);
	size_t st = 0, per;

	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!k || rt_kernel_load(k))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	if (numBlocks <= 0 || blockSize <= 0 ||
	    blockSize > EMU_MAX_BLOCK_THREADS)
		return rt_fail(cudaErrorInvalidValue);
	st = emu_static_smem(emu_rt.mods[k->mod].m, k->fi);
	/* 228 KB per SM, 1 KB of it reserved per block */
	per = (EMU_SMEM_PER_SM / (unsigned)numBlocks);
	per = per > EMU_SMEM_RESERVED ? per - EMU_SMEM_RESERVED : 0;
	per = per > st ? per - st : 0;
	if (per > k->max_dyn)
		per = k->max_dyn;
	*dynamicSmemSize = per;
	return cudaSuccess;
}

/* Cache and shared-memory preferences: accepted, no effect (as on
 * devices where the split is fixed). */
cudaError_t cudaFuncSetCacheConfig(const void *func,
				   enum cudaFuncCache cacheConfig)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (!rt_kernel_find(func))
		return rt_fail(cudaErrorInvalidDeviceFunction);
	return cacheConfig >= cudaFuncCachePreferNone &&
	       cacheConfig <= cudaFuncCachePreferEqual ? cudaSuccess :
	       rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	return cacheConfig >= cudaFuncCachePreferNone &&
	       cacheConfig <= cudaFuncCachePreferEqual ? cudaSuccess :
	       rt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	*pCacheConfig = cudaFuncCachePreferNone;
	return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if ((unsigned)limit >= RT_NLIMITS)
		return rt_fail(cudaErrorUnsupportedLimit);
	emu_rt.limits[limit] = value;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if ((unsigned)limit >= RT_NLIMITS)
		return rt_fail(cudaErrorUnsupportedLimit);
	*pValue = emu_rt.limits[limit];
	return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
					     int *greatestPriority)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = -5;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	if (emu_rt.sticky)
		return emu_rt.sticky;
	*flags = cudaDeviceScheduleAuto;
	return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	(void)flags;
	return emu_rt.sticky;
}

/* cuda_profiler_api.h: nothing to profile. */
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

cudaError_t cudaProfilerStart(void)
{
	return emu_rt.sticky;
}

cudaError_t cudaProfilerStop(void)
{
	return emu_rt.sticky;
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
	return emu_rt.sticky;
}
