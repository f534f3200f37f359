// Probe: CUDA graphs built by hand and by stream capture, and
// cudaMemcpy3D; prints the same on the emulator and on a GPU
// (tests/gpu/emu-vs-gpu.sh tests/emu/probe_graphs.cu).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(int *d, int k)
{
	d[threadIdx.x] *= k;
}

static int calls;
static void CUDART_CB count(void *) { calls++; }

int main()
{
	int h[32], back[32], *d, k = 3;
	void *args[2] = { &d, &k };
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaGraphNode_t n[4];
	cudaKernelNodeParams kp = {};
	cudaHostNodeParams hp = { count, nullptr };
	cudaStream_t s;
	size_t nn = 0;

	for (int i = 0; i < 32; i++)
		h[i] = i;
	cudaMalloc(&d, sizeof(h));
	kp.func = (void *)scale;
	kp.gridDim = dim3(1);
	kp.blockDim = dim3(32);
	kp.kernelParams = args;
	cudaGraphCreate(&g, 0);
	cudaGraphAddMemcpyNode1D(&n[0], g, nullptr, 0, d, h, sizeof(h),
				 cudaMemcpyHostToDevice);
	cudaGraphAddKernelNode(&n[1], g, &n[0], 1, &kp);
	cudaGraphAddMemcpyNode1D(&n[2], g, &n[1], 1, back, d, sizeof(h),
				 cudaMemcpyDeviceToHost);
	cudaGraphAddHostNode(&n[3], g, &n[2], 1, &hp);
	cudaGraphGetNodes(g, nullptr, &nn);
	cudaGraphInstantiate(&x, g, 0);
	cudaGraphLaunch(x, 0);
	cudaDeviceSynchronize();
	printf("manual: %zu nodes, %d %d %d, host calls %d\n", nn, back[0],
	       back[1], back[31], calls);
	k = 5;
	cudaGraphExecKernelNodeSetParams(x, n[1], &kp);
	cudaGraphLaunch(x, 0);
	cudaDeviceSynchronize();
	printf("updated: %d %d\n", back[1], back[31]);

	cudaStreamCreate(&s);
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	int *t;
	cudaMallocAsync(&t, sizeof(h), s);
	cudaMemcpyAsync(t, h, sizeof(h), cudaMemcpyHostToDevice, s);
	scale<<<1, 32, 0, s>>>(t, 7);
	cudaMemcpyAsync(back, t, sizeof(h), cudaMemcpyDeviceToHost, s);
	cudaFreeAsync(t, s);
	cudaLaunchHostFunc(s, count, nullptr);
	cudaGraph_t cg;
	cudaGraphExec_t cx;
	printf("capture: %s\n", cudaGetErrorName(cudaStreamEndCapture(s, &cg)));
	cudaGraphGetNodes(cg, nullptr, &nn);
	cudaGraphInstantiate(&cx, cg, 0);
	cudaGraphLaunch(cx, s);
	cudaStreamSynchronize(s);
	printf("captured: %zu nodes, %d %d, host calls %d\n", nn, back[1],
	       back[31], calls);

	// cudaMemcpy3D: a 4x3x2 box of ints into a pitched allocation and
	// back out of its middle
	int box[24], out[6] = {};
	cudaPitchedPtr p;
	for (int i = 0; i < 24; i++)
		box[i] = 100 + i;
	cudaMalloc3D(&p, make_cudaExtent(4 * sizeof(int), 3, 2));
	cudaMemcpy3DParms c = {};
	c.srcPtr = make_cudaPitchedPtr(box, 4 * sizeof(int), 4, 3);
	c.dstPtr = p;
	c.extent = make_cudaExtent(4 * sizeof(int), 3, 2);
	c.kind = cudaMemcpyHostToDevice;
	printf("3d in: %s\n", cudaGetErrorName(cudaMemcpy3D(&c)));
	c = {};
	c.srcPtr = p;
	c.srcPos = make_cudaPos(sizeof(int), 1, 0);
	c.dstPtr = make_cudaPitchedPtr(out, 3 * sizeof(int), 3, 1);
	c.extent = make_cudaExtent(3 * sizeof(int), 1, 2);
	c.kind = cudaMemcpyDeviceToHost;
	printf("3d out: %s", cudaGetErrorName(cudaMemcpy3D(&c)));
	for (int i = 0; i < 6; i++)
		printf(" %d", out[i]);
	printf("\n");
	return 0;
}
