// The CUDA math library's float and double functions, as nvcc builds
// them (no fast-math), on 2,048 inputs each: every result printed in
// hex, so that tests/gpu/emu-vs-gpu.sh finds the first input where the
// emulator and the GPU part.  The library is made of instructions the
// emulator implements (fma, ex2.approx, lg2.approx, rcp.approx.f64,
// ...); a difference here names an instruction that is not bit exact.
#include <cstdio>
#include <cstring>
#include <cstdint>

#define N 2048
#define NF 13
#define ND 9

__device__ float ffun(int f, float x, float y)
{
	switch (f) {
	case 0: return expf(x);
	case 1: return logf(y);
	case 2: return powf(y, 2.0f);
	case 3: return powf(y, x * 0.25f);
	case 4: return sqrtf(y);
	case 5: return x / y;
	case 6: return exp2f(x);
	case 7: return log2f(y);
	case 8: return sinf(x);
	case 9: return cosf(x);
	case 10: return tanhf(x * 0.1f);
	case 11: return rsqrtf(y);
	default: return log10f(y);
	}
}

__device__ double dfun(int f, double x, double y)
{
	switch (f) {
	case 0: return exp(x);
	case 1: return log(y);
	case 2: return pow(y, 2.0);
	case 3: return pow(y, x * 0.25);
	case 4: return sqrt(y);
	case 5: return x / y;
	case 6: return 1.0 / y;
	case 7: return sin(x);
	default: return tanh(x * 0.1);
	}
}

__global__ void run(const float *xf, const float *yf, float *of,
		    const double *xd, const double *yd, double *od)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= N)
		return;
	for (int f = 0; f < NF; f++)
		of[f * N + i] = ffun(f, xf[i], yf[i]);
	for (int f = 0; f < ND; f++)
		od[f * N + i] = dfun(f, xd[i], yd[i]);
}

int main()
{
	static float xf[N], yf[N], of[NF * N];
	static double xd[N], yd[N], od[ND * N];
	uint64_t s = 88172645463325252ull;
	float *dxf, *dyf, *dof;
	double *dxd, *dyd, *dod;

	for (int i = 0; i < N; i++) {
		/* xorshift: x in [-40, 40), y positive over many octaves */
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		double u = (double)(s >> 11) / 9007199254740992.0;
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		double v = (double)(s >> 11) / 9007199254740992.0;
		xd[i] = (u - 0.5) * 80.0;
		yd[i] = ldexp(0.5 + v, (int)(s % 60) - 30);
		xf[i] = (float)xd[i];
		yf[i] = (float)yd[i];
	}
	cudaMalloc(&dxf, sizeof(xf));
	cudaMalloc(&dyf, sizeof(yf));
	cudaMalloc(&dof, sizeof(of));
	cudaMalloc(&dxd, sizeof(xd));
	cudaMalloc(&dyd, sizeof(yd));
	cudaMalloc(&dod, sizeof(od));
	cudaMemcpy(dxf, xf, sizeof(xf), cudaMemcpyHostToDevice);
	cudaMemcpy(dyf, yf, sizeof(yf), cudaMemcpyHostToDevice);
	cudaMemcpy(dxd, xd, sizeof(xd), cudaMemcpyHostToDevice);
	cudaMemcpy(dyd, yd, sizeof(yd), cudaMemcpyHostToDevice);
	run<<<N / 128, 128>>>(dxf, dyf, dof, dxd, dyd, dod);
	cudaMemcpy(of, dof, sizeof(of), cudaMemcpyDeviceToHost);
	cudaMemcpy(od, dod, sizeof(od), cudaMemcpyDeviceToHost);
	for (int f = 0; f < NF; f++)
		for (int i = 0; i < N; i++) {
			uint32_t b;
			memcpy(&b, &of[f * N + i], 4);
			printf("f%d %d %08x\n", f, i, b);
		}
	for (int f = 0; f < ND; f++)
		for (int i = 0; i < N; i++) {
			uint64_t b;
			memcpy(&b, &od[f * N + i], 8);
			printf("d%d %d %016llx\n", f, i, (unsigned long long)b);
		}
	return 0;
}
