/*
 * The CUDA runtime symbols a runner's link wraps (-Wl,--wrap=NAME), so
 * that every call of them in the process -- the student's object's,
 * the reference's and the harness's -- passes through the harness
 * first.  grader/build.c links runners with these lists; the wrappers
 * are in launches.c (both backends), launches_ext.c and gpurec.c (a
 * GPU's runner only).  A name here without its wrapper, or the other
 * way round, fails the link.
 */
#ifndef WRAPS_H
#define WRAPS_H

/* launches.c: launches, stream order, graphs */
#define WRAPS_LAUNCHES \
	"__cudaLaunchKernel", "__cudaLaunchKernel_ptsz", "cudaLaunchKernel", \
	"cudaEventRecord", "cudaEventRecordWithFlags", \
	"cudaStreamWaitEvent", "cudaGraphLaunch", "cudaGraphInstantiate", \
	"cudaGraphInstantiateWithFlags"

/* a GPU's runner only: launches_ext.c, launch calls only NVIDIA's
 * runtime has; gpurec_wraps.c, what the recorder of launch records
 * must see */
#define WRAPS_GPU \
	"cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", \
	"__cudaRegisterFatBinary", "__cudaRegisterFunction", \
	"__cudaRegisterVar", "__cudaGetKernel", \
	"cudaMalloc", "cudaMallocAsync", "cudaMallocPitch", \
	"cudaMallocManaged", "cudaFree", "cudaFreeAsync", \
	"cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", \
	"cudaMemcpy2DAsync", "cudaMemcpyToSymbol", \
	"cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol", \
	"cudaMemcpyFromSymbolAsync", "cudaMemset", "cudaMemsetAsync", \
	"cudaMemset2D", "cudaMemset2DAsync", "cudaCreateTextureObject", \
	"cudaDestroyTextureObject", "cudaCreateSurfaceObject", \
	"cudaDestroySurfaceObject", "cudaMemcpy3D", "cudaMemcpy3DAsync", \
	"cudaLaunchHostFunc"

#endif
