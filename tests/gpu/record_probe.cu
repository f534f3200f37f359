// What recording launches on a GPU relies on, printed on the device:
// where the runtime puts allocations (the emulator's replay re-creates
// them at the same addresses), kernel parameter layouts from the
// runtime, kernel names from the registration hooks, texture handles,
// and generic shared/local addresses.  Built with
//   nvcc -arch=sm_90 -Xlinker --wrap=__cudaRegisterFunction \
//        -o record_probe tests/gpu/record_probe.cu
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

struct three { float a, b, c; };

__global__ void params(int a, float *p, three t, double d, char c,
		       const float *q)
{
	__shared__ int s[4];
	int l[2];
	if (a == 12345)
		printf("%p %p\n", (void *)s, (void *)l);
}

__global__ void where(unsigned long long *o)
{
	__shared__ int s[4];
	int l[2];
	volatile int *vl = l;
	vl[0] = 1;
	o[0] = (unsigned long long)(uintptr_t)s;
	o[1] = (unsigned long long)(uintptr_t)vl;
	s[threadIdx.x] = 0;
}

extern "C" void __real___cudaRegisterFunction(void **, const char *, char *,
	const char *, int, void *, void *, void *, void *, int *);
extern "C" void __wrap___cudaRegisterFunction(void **h, const char *host,
	char *dev, const char *name, int tl, void *tid, void *bid, void *bd,
	void *gd, int *ws)
{
	printf("registered %p as %s\n", (const void *)host, dev);
	__real___cudaRegisterFunction(h, host, dev, name, tl, tid, bid, bd,
				      gd, ws);
}

int main()
{
	size_t sizes[] = { 256, 65536, 1 << 20, 256u << 20, 1u << 30 };
	void *p;
	cudaDeviceProp prop;

	cudaGetDeviceProperties(&prop, 0);
	printf("device %s textureAlignment %zu texturePitchAlignment %zu\n",
	       prop.name, prop.textureAlignment, prop.texturePitchAlignment);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		cudaError_t e = cudaMalloc(&p, sizes[i]);
		printf("cudaMalloc(%zu) = %p (%s)\n", sizes[i], p,
		       cudaGetErrorName(e));
	}
	if (!cudaMallocAsync(&p, 1 << 20, 0))
		printf("cudaMallocAsync = %p\n", p);
	if (!cudaMallocManaged(&p, 1 << 20))
		printf("cudaMallocManaged = %p\n", p);
	{
		void *h, *d;
		if (!cudaHostAlloc(&h, 4096, cudaHostAllocMapped) &&
		    !cudaHostGetDevicePointer(&d, h, 0))
			printf("cudaHostAlloc mapped host %p device %p\n", h, d);
	}
	for (size_t k = 0;; k++) {
		size_t off, sz;
		cudaError_t e = cudaFuncGetParamInfo((const void *)params, k,
						     &off, &sz);
		if (e) {
			printf("param %zu: %s\n", k, cudaGetErrorName(e));
			break;
		}
		printf("param %zu: offset %zu size %zu\n", k, off, sz);
	}
	{
		const char *n = NULL;
		cudaFuncGetName(&n, (const void *)params);
		printf("cudaFuncGetName: %s\n", n ? n : "(null)");
	}
	{
		float *buf;
		cudaTextureObject_t t = 0;
		cudaResourceDesc r = {};
		cudaTextureDesc td = {};
		cudaMalloc(&buf, 4096);
		r.resType = cudaResourceTypeLinear;
		r.res.linear.devPtr = buf;
		r.res.linear.desc = cudaCreateChannelDesc<float>();
		r.res.linear.sizeInBytes = 4096;
		td.readMode = cudaReadModeElementType;
		cudaError_t e = cudaCreateTextureObject(&t, &r, &td, NULL);
		printf("texture object %llu (%s); offset 4: %s\n",
		       (unsigned long long)t, cudaGetErrorName(e),
		       (r.res.linear.devPtr = buf + 1,
			cudaGetErrorName(cudaCreateTextureObject(&t, &r, &td,
							 NULL))));
		r.res.linear.devPtr = (char *)buf + 256;
		printf("offset 256: %s\n", cudaGetErrorName(
			cudaCreateTextureObject(&t, &r, &td, NULL)));
	}
	{
		unsigned long long *o, h[2];
		cudaMalloc(&o, 16);
		where<<<1, 4>>>(o);
		cudaMemcpy(h, o, 16, cudaMemcpyDeviceToHost);
		printf("generic shared %#llx local %#llx\n", h[0], h[1]);
	}
	return 0;
}
