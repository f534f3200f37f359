// Probe: wmma (f16 inputs, f32 accumulator), tf32 rounding, layered and
// cubemap textures; prints the same on the emulator and on a GPU
// (tests/gpu/emu-vs-gpu.sh tests/emu/probe_tensor.cu).
#include <cstdio>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void tile(float *d, const half *a, const half *b, float *t)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;

	wmma::fill_fragment(fc, 1.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
	t[threadIdx.x] = wmma::__float_to_tf32(t[threadIdx.x]);
}

__global__ void sample(float *o, cudaTextureObject_t lay,
		       cudaTextureObject_t cube)
{
	int x = threadIdx.x;
	float d[6][3] = { { 1, .2f, .3f }, { -1, .2f, .3f }, { .2f, 1, .3f },
			  { .2f, -1, .3f }, { .2f, .3f, 1 }, { .2f, .3f, -1 } };

	o[x] = tex2DLayered<float>(lay, x % 4 + .5f, x / 4 % 4 + .5f, x / 16);
	if (x < 6)
		o[32 + x] = texCubemap<float>(cube, d[x][0], d[x][1], d[x][2]);
}

static cudaTextureObject_t tex(const float *h, int d, unsigned flags,
			       int norm)
{
	cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
	cudaArray_t a;
	cudaMalloc3DArray(&a, &fd, make_cudaExtent(4, 4, d), flags);
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr((void *)h, 16, 4, 4);
	p.dstArray = a;
	p.extent = make_cudaExtent(4, 4, d);
	p.kind = cudaMemcpyHostToDevice;
	cudaMemcpy3D(&p);
	cudaResourceDesc rd = {};
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	cudaTextureDesc td = {};
	td.normalizedCoords = norm;
	cudaTextureObject_t t;
	cudaCreateTextureObject(&t, &rd, &td, nullptr);
	return t;
}

int main()
{
	half ha[256], hb[256];
	float d[256], t[32], *dd, *dt, o[38], *dout, lay[32], cube[96];
	half *da, *db;

	for (int i = 0; i < 256; i++) {
		ha[i] = __float2half((float)(i % 7 - 3));
		hb[i] = __float2half((float)(i % 5 - 2) * 0.5f);
	}
	for (int i = 0; i < 32; i++)
		t[i] = 1.0f + (float)i * 0x1p-13f;
	cudaMalloc(&da, sizeof(ha));
	cudaMalloc(&db, sizeof(hb));
	cudaMalloc(&dd, sizeof(d));
	cudaMalloc(&dt, sizeof(t));
	cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice);
	cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice);
	cudaMemcpy(dt, t, sizeof(t), cudaMemcpyHostToDevice);
	tile<<<1, 32>>>(dd, da, db, dt);
	cudaMemcpy(d, dd, sizeof(d), cudaMemcpyDeviceToHost);
	cudaMemcpy(t, dt, sizeof(t), cudaMemcpyDeviceToHost);
	printf("wmma:");
	for (int i = 0; i < 256; i += 17)
		printf(" %g", d[i]);
	printf("\ntf32:");
	for (int i = 0; i < 32; i += 3)
		printf(" %a", t[i]);
	printf("\n");

	for (int i = 0; i < 32; i++)
		lay[i] = (float)i;
	for (int i = 0; i < 96; i++)
		cube[i] = (float)(i / 16 * 100 + i % 16);
	cudaMalloc(&dout, sizeof(o));
	sample<<<1, 32>>>(dout, tex(lay, 2, cudaArrayLayered, 0),
			  tex(cube, 6, cudaArrayCubemap, 1));
	cudaMemcpy(o, dout, sizeof(o), cudaMemcpyDeviceToHost);
	printf("layered:");
	for (int i = 0; i < 32; i += 5)
		printf(" %g", o[i]);
	printf("\ncube:");
	for (int i = 32; i < 38; i++)
		printf(" %g", o[i]);
	printf("\n%s\n", cudaGetErrorName(cudaGetLastError()));
	return 0;
}
