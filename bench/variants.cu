/*
 * Tuning sweep for the reference kernels: times the parameter variants of
 * each reference kernel (tile side, threads per block, elements per thread,
 * vector or scalar path) at the performance shapes, next to the copy
 * ceiling and the textbook kernels, and checks every variant's output.  It
 * compiles the reference sources into itself to reach their internal
 * templates, so it is built alone, never linked with the reference objects:
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -o variants bench/variants.cu
 *
 * docs/PERFORMANCE.md records what it measured and which variant won.
 * `variants [REPS]` times; `variants --ncu LABELS` instead launches each
 * vec4 variant once at a counter shape (for Nsight Compute) and writes one
 * "sweep<TAB>variant<TAB>shape" line per launch to LABELS.
 */
#include "../reference/coalesced_transpose.cu"
#include "../reference/padded_tile.cu"
#include "../reference/aos_to_soa.cu"
#include "../reference/dynamic_reverse.cu"

#include "bench_common.cuh"
#include "simple_kernels.cuh"

typedef std::function<void(void *, const void *, int, int, cudaStream_t)>
	vfn;

struct var {
	std::string name;
	vfn fn;
};

static void cpu_transpose(const uint32_t *in, uint32_t *out, int m, int n)
{
	for (int r0 = 0; r0 < m; r0 += 32)
		for (int c0 = 0; c0 < n; c0 += 32)
			for (int r = r0; r < m && r < r0 + 32; r++)
				for (int c = c0; c < n && c < c0 + 32; c++)
					out[(size_t)c * m + r] =
						in[(size_t)r * n + c];
}

static void cpu_reverse(const uint32_t *in, uint32_t *out, int m, int n)
{
	for (int r = 0; r < m; r++)
		for (int c = 0; c < n; c++)
			out[(size_t)r * n + c] =
				in[(size_t)r * n + (n - 1 - c)];
}

#define TT(T, NT, L, V)                                                    \
	var{std::string("tile " #T " x" #NT " " #L) +                     \
		    (V ? " vec4" : " scalar"),          \
	    [](void *o, const void *i, int m, int n, cudaStream_t s) {     \
		    tile_transpose_launch<T, NT, L, V>(                    \
			    (float *)o, (const float *)i, m, n, s);        \
	    }}
#define RV(NT, PER, V)                                                     \
	var{std::string("reverse x" #NT " per" #PER) +                    \
		    (V ? " vec4" : " scalar"),         \
	    [](void *o, const void *i, int m, int n, cudaStream_t s) {     \
		    reverse_rows_launch<NT, PER, PER, V>(                  \
			    (int *)o, (const int *)i, m, n, s);            \
	    }}
#define AO(NT, R)                                                          \
	var{"aos3 x" #NT " R" #R,                                          \
	    [](void *o, const void *i, int m, int n, cudaStream_t s) {     \
		    aos3_launch<NT, R>((float *)o, (const float *)i, m, s);  \
	    }}

static int bad;
static FILE *ncu_labels; /* --ncu mode: launch once, record a label */

static void ncu_once(const char *title, int m, int n,
		     const std::vector<var> &vars, cudaStream_t s)
{
	size_t words = (size_t)m * n;
	uint32_t *din, *dout;
	CK(cudaMalloc(&din, words * 4));
	CK(cudaMalloc(&dout, words * 4));
	std::vector<uint32_t> h(words);
	for (size_t i = 0; i < words; i++)
		h[i] = bench_hash(i);
	CK(cudaMemcpy(din, h.data(), words * 4, cudaMemcpyHostToDevice));
	for (const var &v : vars) {
		v.fn(dout, din, m, n, s);
		CK(cudaGetLastError());
		CK(cudaStreamSynchronize(s));
		fprintf(ncu_labels, "%s\t%s\t%dx%d\n", title, v.name.c_str(),
			m, n);
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

static void sweep(const char *title, int m, int n, std::vector<var> vars,
		  void (*cpu)(const uint32_t *, uint32_t *, int, int),
		  bench_flusher &fl, cudaStream_t s, int reps)
{
	size_t words = (size_t)m * n;
	uint32_t *din, *dout;
	CK(cudaMalloc(&din, words * 4));
	CK(cudaMalloc(&dout, words * 4));
	bench_fill(din, words, 12345, s);
	std::vector<uint32_t> hin(words), hexp(words), hout(words);
	CK(cudaMemcpyAsync(hin.data(), din, words * 4, cudaMemcpyDeviceToHost,
			   s));
	CK(cudaStreamSynchronize(s));
	cpu(hin.data(), hexp.data(), m, n);

	char shp[64];
	snprintf(shp, sizeof shp, "%dx%d", m, n);
	std::vector<bench_case> cases;
	cases.push_back({"cudaMemcpyAsync D2D", shp, 8.0 * words,
			 [=](cudaStream_t st) {
				 CK(cudaMemcpyAsync(dout, din, words * 4,
						    cudaMemcpyDeviceToDevice,
						    st));
			 }});
	for (const var &v : vars) {
		vfn fn = v.fn;
		cases.push_back({v.name, shp, 8.0 * words,
				 [=](cudaStream_t st) {
					 fn(dout, din, m, n, st);
				 }});
	}
	bench_time(cases, 3, reps, fl, s);
	std::vector<const char *> ok(cases.size(), "");
	for (size_t k = 0; k < vars.size(); k++) {
		CK(cudaMemsetAsync(dout, 0xff, words * 4, s));
		vars[k].fn(dout, din, m, n, s);
		CK(cudaGetLastError());
		CK(cudaMemcpyAsync(hout.data(), dout, words * 4,
				   cudaMemcpyDeviceToHost, s));
		CK(cudaStreamSynchronize(s));
		if (memcmp(hout.data(), hexp.data(), words * 4)) {
			ok[k + 1] = "  WRONG";
			bad++;
		}
	}
	double copy = bench_gbs(cases[0]);
	printf("\n%s %s\n", title, shp);
	for (size_t k = 0; k < cases.size(); k++) {
		std::vector<float> v = cases[k].ms;
		std::sort(v.begin(), v.end());
		printf("  %-34s %8.4f ms (min %.4f, p90 %.4f) %7.0f GB/s "
		       "%6.1f%%%s\n",
		       cases[k].name.c_str(), cases[k].median, v[0],
		       v[v.size() * 9 / 10], bench_gbs(cases[k]),
		       100.0 * bench_gbs(cases[k]) / copy, ok[k]);
	}
	fflush(stdout);
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 40;
	if (argc > 2 && !strcmp(argv[1], "--ncu")) {
		ncu_labels = fopen(argv[2], "w");
		if (!ncu_labels) {
			fprintf(stderr, "variants: cannot open '%s'\n",
				argv[2]);
			return 2;
		}
		cudaStream_t s;
		CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
		/* Twice each, to show how much the counters vary. */
		for (int k = 0; k < 2; k++)
			ncu_once("transpose", 1024, 1024,
				 {TT(32, 256, TILE_PADDED, true),
				  TT(64, 256, TILE_PADDED, true),
				  TT(64, 512, TILE_PADDED, true),
				  TT(32, 256, TILE_SWIZZLED, true),
				  TT(64, 256, TILE_SWIZZLED, true),
				  TT(64, 512, TILE_SWIZZLED, true)},
				 s);
		ncu_once("reverse", 1024, 1024,
			 {RV(256, 1, true), RV(512, 2, true), RV(256, 4, true),
			  RV(256, 4, false)},
			 s);
		ncu_once("aos_to_soa", 1 << 20, 3,
			 {AO(128, 512), AO(256, 1024)}, s);
		fclose(ncu_labels);
		return 0;
	}
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s, %d SMs, %.0f MB L2\n", prop.name,
	       prop.multiProcessorCount, prop.l2CacheSize / 1e6);
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	bench_flusher fl;
	fl.init();

	sweep("transpose", 8192, 8192,
	      {
		      var{"textbook 32x8 padded",
			  [](void *o, const void *i, int m, int n,
			     cudaStream_t st) {
				  simple_tile32x8_launch((float *)o,
							 (const float *)i, m,
							 n, st);
			  }},
		      TT(32, 128, TILE_PADDED, true),
		      TT(32, 256, TILE_PADDED, true),
		      TT(64, 128, TILE_PADDED, true),
		      TT(64, 256, TILE_PADDED, true),
		      TT(64, 512, TILE_PADDED, true),
		      TT(32, 128, TILE_SWIZZLED, true),
		      TT(32, 256, TILE_SWIZZLED, true),
		      TT(64, 128, TILE_SWIZZLED, true),
		      TT(64, 256, TILE_SWIZZLED, true),
		      TT(64, 512, TILE_SWIZZLED, true),
		      TT(32, 256, TILE_PADDED, false),
		      TT(64, 256, TILE_PADDED, false),
		      TT(64, 512, TILE_PADDED, false),
		      TT(64, 256, TILE_SWIZZLED, false),
	      },
	      cpu_transpose, fl, s, reps);

	sweep("reverse", 8192, 8192,
	      {
		      var{"textbook one per thread",
			  [](void *o, const void *i, int m, int n,
			     cudaStream_t st) {
				  simple_reverse_launch((int *)o,
							(const int *)i, m, n,
							st);
			  }},
		      RV(128, 4, true), RV(128, 8, true), RV(256, 1, true),
		      RV(256, 2, true), RV(256, 4, true), RV(256, 8, true),
		      RV(512, 2, true), RV(512, 4, true), RV(1024, 2, true),
		      RV(256, 1, false), RV(256, 4, false),
		      RV(256, 16, false),
	      },
	      cpu_reverse, fl, s, reps);

	sweep("aos_to_soa", 1 << 24, 3,
	      {
		      var{"one thread per record",
			  [](void *o, const void *i, int m, int n,
			     cudaStream_t st) {
				  simple_aos_launch((float *)o,
						    (const float *)i, m, n,
						    st);
			  }},
		      var{"generic chunk path",
			  [](void *o, const void *i, int m, int n,
			     cudaStream_t st) {
				  aos_generic_launch((float *)o,
						     (const float *)i, m, n,
						     1, st);
			  }},
		      AO(128, 512), AO(128, 1024), AO(128, 2048),
		      AO(256, 1024), AO(256, 2048), AO(256, 4096),
		      AO(512, 2048), AO(512, 4096),
	      },
	      cpu_transpose, fl, s, reps);

	fl.release();
	if (bad)
		printf("\n%d WRONG variant(s)\n", bad);
	return bad ? 1 : 0;
}
