/*
 * The reference-kernel benchmark behind `make bench` (bench/run-bench builds
 * and runs it).  A standalone program: CUDA runtime plus the four reference
 * objects, none of warpgrade's libraries, so it runs on a bare GPU machine.
 *
 * For each exercise it
 *   1. checks the reference launcher bit for bit against a CPU computation
 *      on every shape 1..64 x 1..64 plus the edge shapes below: fresh random
 *      bit patterns, outputs poisoned and followed by poisoned guard words,
 *      all shapes packed into one allocation each way, input re-read after;
 *   2. times, at the performance shape, a device-to-device cudaMemcpyAsync
 *      of the same byte count (the practical ceiling), the reference and the
 *      textbook kernels of bench/simple_kernels.cuh (median of --reps
 *      event-timed runs after warm-up, L2 flushed before each run, see
 *      bench_common.cuh), then checks each timed kernel's output again.
 * It prints a table and, with --md FILE, writes it as Markdown.
 *
 * --check-only stops after step 1 (for compute-sanitizer); --small then
 * checks only a subset (dimensions around 1, 4, 8, 16, 32, 64 and the
 * smaller edge shapes), for racecheck, which is slow per launch.
 * --ncu runs each reference and textbook kernel once at the counter shapes
 * (nothing else launches a kernel in that mode) for bench/run-bench to
 * profile; --labels FILE receives one line per launch, in launch order.
 *
 * Exit status: 0 all correct, 1 a wrong result, 2 a CUDA error, 3 no usable
 * GPU.
 */
#include "bench_common.cuh"
#include "simple_kernels.cuh"

#include <time.h>

extern "C" {
void wgref_coalesced_transpose(float *out, const float *in, int rows,
			       int cols, cudaStream_t stream);
void wgref_padded_tile_transpose(float *out, const float *in, int rows,
				 int cols, cudaStream_t stream);
void wgref_aos_to_soa(float *soa, const float *aos, int count, int fields,
		      cudaStream_t stream);
void wgref_reverse_rows(int *out, const int *in, int rows, int cols,
			cudaStream_t stream);
}

/* Every exercise moves 4-byte words; launchers are called through this. */
typedef void (*launch_fn)(void *out, const void *in, int m, int n,
			  cudaStream_t s);
typedef void (*cpu_fn)(const uint32_t *in, uint32_t *out, int m, int n);

#define WRAP(fn, T)                                                       \
	static void fn##_w(void *o, const void *i, int m, int n,          \
			   cudaStream_t s)                                \
	{                                                                 \
		fn((T *)o, (const T *)i, m, n, s);                        \
	}
WRAP(wgref_coalesced_transpose, float)
WRAP(wgref_padded_tile_transpose, float)
WRAP(wgref_aos_to_soa, float)
WRAP(wgref_reverse_rows, int)
WRAP(simple_tile32x8_launch, float)
WRAP(simple_naive_launch, float)
WRAP(simple_aos_launch, float)
WRAP(simple_reverse_launch, int)

/* out[c*m + r] = in[r*n + c]: the transposes, and AoS->SoA with m = count,
 * n = fields. */
static void cpu_transpose(const uint32_t *in, uint32_t *out, int m, int n)
{
	const int B = 32;
	for (int r0 = 0; r0 < m; r0 += B)
		for (int c0 = 0; c0 < n; c0 += B)
			for (int r = r0; r < m && r < r0 + B; r++)
				for (int c = c0; c < n && c < c0 + B; c++)
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

struct shape {
	int m, n;
};

struct variant {
	const char *name;
	launch_fn fn;
};

struct exercise {
	const char *name;
	const char *ref_name;
	launch_fn ref;
	cpu_fn cpu;
	std::vector<shape> edges;
	shape perf;
	std::vector<variant> simple; /* timed for comparison */
	std::vector<shape> counter_shapes;
};

static std::vector<exercise> exercises(void)
{
	std::vector<shape> tedges = {
		{1, 262147},   {262147, 1},  {65, 65},     {129, 257},
		{257, 129},    {1025, 4097}, {4097, 1025}, {3, 65537},
		{65537, 3},    {4, 262148},  {262148, 4},  {4096, 4100},
		{63, 8192},    {8193, 33},   {1024, 1024}, {1023, 1025},
		{2049, 2047}};
	return {
		{"coalesced_transpose", "wgref_coalesced_transpose",
		 wgref_coalesced_transpose_w, cpu_transpose, tedges,
		 {8192, 8192},
		 {{"textbook 32x8 padded tile", simple_tile32x8_launch_w},
		  {"naive (writes strided)", simple_naive_launch_w}},
		 {{1024, 1024}, {1023, 1025}}},
		{"padded_tile", "wgref_padded_tile_transpose",
		 wgref_padded_tile_transpose_w, cpu_transpose, tedges,
		 {8192, 8192},
		 {{"textbook 32x8 padded tile", simple_tile32x8_launch_w}},
		 {{1024, 1024}, {1023, 1025}}},
		{"aos_to_soa", "wgref_aos_to_soa", wgref_aos_to_soa_w,
		 cpu_transpose,
		 {{262147, 1},
		  {262147, 3},
		  {100003, 3},
		  {1, 16384},
		  {5, 16384},
		  {64, 16384},
		  {7, 16383},
		  {65537, 2},
		  {1025, 5},
		  {4097, 32},
		  {4097, 33},
		  {1, 262147},
		  {1048576, 3},
		  {1048577, 4}},
		 {1 << 24, 3},
		 {{"one thread per record", simple_aos_launch_w}},
		 {{1048576, 3}, {1048577, 4}}},
		{"dynamic_reverse", "wgref_reverse_rows", wgref_reverse_rows_w,
		 cpu_reverse,
		 {{3, 65537},
		  {1, 262147},
		  {262147, 1},
		  {65, 4097},
		  {2, 65536},
		  {5, 4100},
		  {1, 1048576},
		  {1025, 1027},
		  {1024, 1024}},
		 {8192, 8192},
		 {{"one element per thread", simple_reverse_launch_w}},
		 {{1024, 1024}, {1024, 1023}}},
	};
}

static const uint32_t POISON = 0x7fbadbadu; /* a NaN pattern */
static const size_t ALIGN_WORDS = 64;       /* 256-byte aligned regions */
static const size_t GUARD_WORDS = 64;

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static uint64_t seed_base;

/* Check `fn` on every shape of the sweep plus `edges`; returns the number
 * of shapes that failed. */
static int small_only; /* --small: a subset, for the slow sanitizers */

static int small_dim(int d)
{
	static const int keep[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32,
				   33, 63, 64};
	for (int k : keep)
		if (d == k)
			return 1;
	return 0;
}

static int check_shapes(const char *label, launch_fn fn, cpu_fn cpu,
			const std::vector<shape> &edges, cudaStream_t s)
{
	std::vector<shape> shapes;
	for (int m = 1; m <= 64; m++)
		for (int n = 1; n <= 64; n++)
			if (!small_only || (small_dim(m) && small_dim(n)))
				shapes.push_back({m, n});
	for (shape e : edges)
		if (!small_only || (size_t)e.m * e.n <= 300000)
			shapes.push_back(e);

	std::vector<size_t> off(shapes.size());
	size_t total = 0;
	for (size_t k = 0; k < shapes.size(); k++) {
		off[k] = total;
		total += round_up((size_t)shapes[k].m * shapes[k].n +
					  GUARD_WORDS,
				  ALIGN_WORDS);
	}
	std::vector<uint32_t> hin(total), hout(total, POISON),
		hexp(total, POISON), hback(total);
	uint64_t seed = seed_base ^ bench_hash((uintptr_t)label);
	for (size_t i = 0; i < total; i++)
		hin[i] = bench_hash(seed + i);
	for (size_t k = 0; k < shapes.size(); k++)
		cpu(&hin[off[k]], &hexp[off[k]], shapes[k].m, shapes[k].n);

	uint32_t *din, *dout;
	CK(cudaMalloc(&din, total * 4));
	CK(cudaMalloc(&dout, total * 4));
	CK(cudaMemcpyAsync(din, hin.data(), total * 4, cudaMemcpyHostToDevice,
			   s));
	CK(cudaMemcpyAsync(dout, hout.data(), total * 4,
			   cudaMemcpyHostToDevice, s));
	for (size_t k = 0; k < shapes.size(); k++) {
		fn(dout + off[k], din + off[k], shapes[k].m, shapes[k].n, s);
		cudaError_t e = cudaGetLastError();
		if (e != cudaSuccess) {
			fprintf(stderr, "bench: %s: launch at %dx%d: %s\n",
				label, shapes[k].m, shapes[k].n,
				cudaGetErrorString(e));
			exit(2);
		}
	}
	CK(cudaMemcpyAsync(hout.data(), dout, total * 4,
			   cudaMemcpyDeviceToHost, s));
	CK(cudaMemcpyAsync(hback.data(), din, total * 4,
			   cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));

	int bad = 0;
	for (size_t k = 0; k < shapes.size(); k++) {
		size_t n = (size_t)shapes[k].m * shapes[k].n;
		size_t end = k + 1 < shapes.size() ? off[k + 1] : total;
		for (size_t i = off[k]; i < end; i++)
			if (hout[i] != hexp[i]) {
				if (bad < 10)
					fprintf(stderr,
						"bench: %s WRONG at %dx%d: "
						"word %zu%s: got %08x want "
						"%08x\n",
						label, shapes[k].m,
						shapes[k].n, i - off[k],
						i - off[k] >= n ? " (guard)"
								: "",
						hout[i], hexp[i]);
				bad++;
				break;
			}
	}
	if (memcmp(hin.data(), hback.data(), total * 4) != 0) {
		fprintf(stderr, "bench: %s modified its input\n", label);
		bad++;
	}
	printf("  %-28s %zu shapes (%zu words): %s\n", label, shapes.size(),
	       total, bad ? "FAILED" : "all bit-exact");
	CK(cudaFree(din));
	CK(cudaFree(dout));
	return bad;
}

/* Run fn once at shape sh on poisoned output, compare with exp. */
static int check_one(const char *label, launch_fn fn, uint32_t *dout,
		     const uint32_t *din, shape sh,
		     const std::vector<uint32_t> &exp,
		     std::vector<uint32_t> &host, cudaStream_t s)
{
	size_t n = (size_t)sh.m * sh.n;
	CK(cudaMemsetAsync(dout, 0xff, n * 4, s));
	fn(dout, din, sh.m, sh.n, s);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(host.data(), dout, n * 4, cudaMemcpyDeviceToHost,
			   s));
	CK(cudaStreamSynchronize(s));
	if (memcmp(host.data(), exp.data(), n * 4) != 0) {
		fprintf(stderr, "bench: %s WRONG at the performance shape\n",
			label);
		return 1;
	}
	return 0;
}

struct row {
	std::string exercise, kernel, shape;
	double ms, gbs, pct;
};

static int run_ncu(const char *labels_path, cudaStream_t s)
{
	FILE *lf = labels_path ? fopen(labels_path, "w") : nullptr;
	if (labels_path && !lf) {
		fprintf(stderr, "bench: cannot open '%s'\n", labels_path);
		return 2;
	}
	for (const exercise &ex : exercises())
		for (shape sh : ex.counter_shapes) {
			size_t n = (size_t)sh.m * sh.n;
			std::vector<uint32_t> h(n);
			for (size_t i = 0; i < n; i++)
				h[i] = bench_hash(seed_base + i);
			uint32_t *din, *dout;
			CK(cudaMalloc(&din, n * 4));
			CK(cudaMalloc(&dout, n * 4));
			CK(cudaMemcpy(din, h.data(), n * 4,
				      cudaMemcpyHostToDevice));
			std::vector<variant> vs = {{"reference", ex.ref}};
			vs.insert(vs.end(), ex.simple.begin(), ex.simple.end());
			for (const variant &v : vs) {
				v.fn(dout, din, sh.m, sh.n, s);
				CK(cudaGetLastError());
				CK(cudaStreamSynchronize(s));
				if (lf)
					fprintf(lf, "%s\t%s\t%dx%d\n", ex.name,
						v.name, sh.m, sh.n);
			}
			CK(cudaFree(din));
			CK(cudaFree(dout));
		}
	if (lf)
		fclose(lf);
	return 0;
}

int main(int argc, char **argv)
{
	int reps = 50, warm = 5, ncu = 0, check_only = 0;
	const char *md = nullptr, *labels = nullptr, *only = nullptr;
	seed_base = (uint64_t)time(nullptr) * 0x9e3779b97f4a7c15ULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--md") && i + 1 < argc)
			md = argv[++i];
		else if (!strcmp(argv[i], "--ncu"))
			ncu = 1;
		else if (!strcmp(argv[i], "--check-only"))
			check_only = 1;
		else if (!strcmp(argv[i], "--small"))
			small_only = 1;
		else if (!strcmp(argv[i], "--labels") && i + 1 < argc)
			labels = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed_base = strtoull(argv[++i], nullptr, 0);
		else {
			fprintf(stderr,
				"usage: bench [--reps N] [--md FILE] "
				"[--only EXERCISE] [--seed N] "
				"[--check-only [--small]] "
				"[--ncu [--labels FILE]]\n");
			return 2;
		}
	}
	if (reps < 30)
		reps = 30;

	int ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev == 0) {
		fprintf(stderr, "bench: no usable CUDA device: %s\n",
			e != cudaSuccess ? cudaGetErrorString(e)
					 : "none found");
		return 3;
	}
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	int drv = 0, rt = 0;
	CK(cudaDriverGetVersion(&drv));
	CK(cudaRuntimeGetVersion(&rt));
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

	if (ncu)
		return run_ncu(labels, s);

	printf("device: %s, sm_%d%d, %d SMs, %.0f MB L2, CUDA driver API "
	       "%d.%d, runtime %d.%d\n",
	       prop.name, prop.major, prop.minor, prop.multiProcessorCount,
	       prop.l2CacheSize / 1e6, drv / 1000, drv % 1000 / 10,
	       rt / 1000, rt % 1000 / 10);
	printf("seed: 0x%llx\n\ncorrectness (sweep 1..64 x 1..64 + edges):\n",
	       (unsigned long long)seed_base);

	int bad = 0;
	std::vector<exercise> exs = exercises();
	for (const exercise &ex : exs) {
		if (only && strcmp(only, ex.name))
			continue;
		bad += check_shapes(ex.ref_name, ex.ref, ex.cpu, ex.edges, s);
	}
	if (check_only)
		return bad ? 1 : 0;

	bench_flusher fl;
	fl.init();
	std::vector<row> rows;
	printf("\ntiming (median of %d runs, L2 flushed before each):\n",
	       reps);
	for (const exercise &ex : exs) {
		if (only && strcmp(only, ex.name))
			continue;
		shape sh = ex.perf;
		size_t n = (size_t)sh.m * sh.n;
		uint32_t *din, *dout;
		CK(cudaMalloc(&din, n * 4));
		CK(cudaMalloc(&dout, n * 4));
		bench_fill(din, n, seed_base ^ 0xabcdef, s);
		std::vector<uint32_t> hin(n), hexp(n), hout(n);
		CK(cudaMemcpyAsync(hin.data(), din, n * 4,
				   cudaMemcpyDeviceToHost, s));
		CK(cudaStreamSynchronize(s));
		ex.cpu(hin.data(), hexp.data(), sh.m, sh.n);

		char shp[64];
		snprintf(shp, sizeof shp, "%dx%d", sh.m, sh.n);
		double bytes = 2.0 * n * 4;
		std::vector<bench_case> cases;
		cases.push_back({"cudaMemcpyAsync D2D", shp, bytes,
				 [=](cudaStream_t st) {
					 CK(cudaMemcpyAsync(
						 dout, din, n * 4,
						 cudaMemcpyDeviceToDevice, st));
				 }});
		std::vector<variant> vs = {{ex.ref_name, ex.ref}};
		vs.insert(vs.end(), ex.simple.begin(), ex.simple.end());
		for (const variant &v : vs) {
			launch_fn fn = v.fn;
			cases.push_back({v.name, shp, bytes,
					 [=](cudaStream_t st) {
						 fn(dout, din, sh.m, sh.n, st);
					 }});
		}
		bench_time(cases, warm, reps, fl, s);
		for (const variant &v : vs)
			bad += check_one(v.name, v.fn, dout, din, sh, hexp, hout,
					 s);
		double copy = bench_gbs(cases[0]);
		for (const bench_case &c : cases) {
			row r = {ex.name, c.name, c.shape, c.median,
				 bench_gbs(c), 100.0 * bench_gbs(c) / copy};
			rows.push_back(r);
			printf("  %-20s %-30s %-11s %8.4f ms %7.0f GB/s "
			       "%6.1f%%\n",
			       r.exercise.c_str(), r.kernel.c_str(),
			       r.shape.c_str(), r.ms, r.gbs, r.pct);
		}
		CK(cudaFree(din));
		CK(cudaFree(dout));
	}
	fl.release();

	if (md) {
		FILE *f = fopen(md, "w");
		if (!f) {
			fprintf(stderr, "bench: cannot write '%s'\n", md);
			return 2;
		}
		fprintf(f,
			"Device: %s (sm_%d%d, %d SMs, %.0f MB L2), CUDA "
			"driver API %d.%d, CUDA runtime %d.%d.\n\n",
			prop.name, prop.major, prop.minor,
			prop.multiProcessorCount, prop.l2CacheSize / 1e6,
			drv / 1000, drv % 1000 / 10, rt / 1000,
			rt % 1000 / 10);
		fprintf(f,
			"Correctness: every reference bit-exact on all "
			"1..64 x 1..64 shapes, the edge shapes listed in "
			"bench/bench.cu and the performance shape%s.\n\n",
			bad ? " -- **FAILED, see the log**" : "");
		fprintf(f, "Timing: median of %d event-timed runs per kernel "
			   "after %d warm-up runs, L2 flushed before each run, "
			   "kernels interleaved; GB/s counts bytes read plus "
			   "bytes written.\n\n",
			reps, warm);
		fprintf(f, "| exercise | kernel | shape | median ms | GB/s | "
			   "%% of copy |\n| --- | --- | --- | ---: | ---: | "
			   "---: |\n");
		for (const row &r : rows)
			fprintf(f, "| %s | %s | %s | %.4f | %.0f | %.1f%% |\n",
				r.exercise.c_str(), r.kernel.c_str(),
				r.shape.c_str(), r.ms, r.gbs, r.pct);
		fclose(f);
	}
	CK(cudaStreamDestroy(s));
	if (bad) {
		fprintf(stderr, "bench: %d wrong result(s)\n", bad);
		return 1;
	}
	return 0;
}
