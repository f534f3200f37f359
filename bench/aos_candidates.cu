/*
 * The AoS->SoA reference candidates (reference/aos3_vec.cuh, numbered by
 * WG_AOS3_VARIANTS) timed in one run at the performance shape, 2^24
 * records x 3 fields, against what they must beat: one thread per record
 * (bench/corpus/aos_per_record.cu itself, BLOCK=128 and BLOCK=256,
 * linked in by bench/run-aos as wgv_aos_rec128 and wgv_aos_rec256), the
 * current reference kernel (WG_AOS3_VARIANT 0) and the device-to-device
 * copy of the same bytes.  It compiles reference/aos_to_soa.cu into
 * itself to reach the candidates' templates, so it is never linked with
 * the reference object.
 *
 * Method (bench_common.cuh): all kernels interleaved, the L2 flushed by a
 * read before every run, ROUNDS rounds of REPS event-timed runs each after
 * warm-up; the figure is the median of all runs, and each round's median
 * is shown to judge the noise.  Every kernel's output is checked bit for
 * bit against the CPU at the performance shape, and every candidate's at
 * counts whose last chunk is short.
 *
 *   aos_candidates [REPS [ROUNDS]]     (defaults 40 and 3; REPS >= 30)
 *   aos_candidates --small             only the short-chunk checks, at
 *                                      counts up to 2^20 + 4 (for the
 *                                      emulator: `warpgrade emu`)
 *
 * Output: a table sorted by time on stdout, then one CSV line per kernel
 * ("csv,name,variant,median_ms,gbs,pct_copy,vs_per_record,correct,
 * round medians...") and the winning variant.  Exit status: 0; 1 an
 * output was wrong; 2 a CUDA error; 3 no GPU.
 */
#include "../reference/aos_to_soa.cu"

#include "bench_common.cuh"

/* weak: absent where only the candidates are built (--small) */
extern "C" {
void wgv_aos_rec128(float *, const float *, int, int, cudaStream_t)
	__attribute__((weak));
void wgv_aos_rec256(float *, const float *, int, int, cudaStream_t)
	__attribute__((weak));
}

#define COUNT (1 << 24)
#define FIELDS 3

typedef void (*aos_fn)(float *, const float *, int, cudaStream_t);

struct kernel {
	const char *name;
	int variant;   /* WG_AOS3_VARIANT that selects it; -1 none */
	aos_fn fn;     /* NULL: the copy */
	bool linked;   /* one thread per record: linked in by run-aos */
};

static void rec128(float *o, const float *i, int n, cudaStream_t s)
{
	wgv_aos_rec128(o, i, n, FIELDS, s);
}

static void rec256(float *o, const float *i, int n, cudaStream_t s)
{
	wgv_aos_rec256(o, i, n, FIELDS, s);
}

static void chunk128(float *o, const float *i, int n, cudaStream_t s)
{
	aos3_launch<128, 512>(o, i, n, s);
}

static void chunk256(float *o, const float *i, int n, cudaStream_t s)
{
	aos3_launch<256, 1024>(o, i, n, s);
}

#define CANDIDATE(ID, S, NT, G, HINT)                                     \
	{ #S " " #NT " threads x " #G " groups" " hint " #HINT, ID,        \
	  aos3_variant_launch<ID>, false },

static const kernel kernels[] = {
	{ "cudaMemcpyAsync D2D", -1, NULL, false },
	{ "one thread per record, BLOCK=128", -1, rec128, true },
	{ "one thread per record, BLOCK=256", -1, rec256, true },
	{ "reference now: chunk 128 threads x 512", 0, chunk128, false },
	{ "chunk 256 threads x 1024", -1, chunk256, false },
	WG_AOS3_VARIANTS(CANDIDATE)
};
#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))

static void cpu_aos_to_soa(const uint32_t *aos, uint32_t *soa, int count)
{
	for (int i = 0; i < count; i++)
		for (int f = 0; f < FIELDS; f++)
			soa[(size_t)f * count + i] =
				aos[(size_t)i * FIELDS + f];
}

/* Run k at count and compare with the CPU; 1 when they agree. */
static int check(const kernel &k, const float *din, float *dout, int count,
		 const std::vector<uint32_t> &in, std::vector<uint32_t> &want,
		 std::vector<uint32_t> &got, cudaStream_t s)
{
	size_t words = (size_t)count * FIELDS;

	CK(cudaMemsetAsync(dout, 0xa5, words * 4, s));
	if (k.fn)
		k.fn(dout, din, count, s);
	else
		CK(cudaMemcpyAsync(dout, din, words * 4,
				   cudaMemcpyDeviceToDevice, s));
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(got.data(), dout, words * 4,
			   cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	if (!k.fn)
		return !memcmp(got.data(), in.data(), words * 4);
	cpu_aos_to_soa(in.data(), want.data(), count);
	return !memcmp(got.data(), want.data(), words * 4);
}

static bool have(const kernel &k)
{
	if (!k.linked)
		return true;
	return k.fn == rec128 ? wgv_aos_rec128 != NULL :
				wgv_aos_rec256 != NULL;
}

/* Correctness: the performance shape for all (unless small), and counts
 * with a short last chunk (multiples of 4: the candidates'
 * precondition) for the reference kernels.  din holds max records.
 * Returns the number of wrong kernels; ok[k] per kernel. */
static int check_all(const float *din, float *dout, int max, bool small,
		     std::vector<int> &ok, cudaStream_t s)
{
	static const int counts[] = { 4, 8, 128, 132, 508, 516, 2044, 2052,
				      6000, 65540, (1 << 20) + 4 };
	size_t words = (size_t)max * FIELDS;
	std::vector<uint32_t> in(words), want(words), got(words);
	int bad = 0;

	CK(cudaMemcpyAsync(in.data(), din, words * 4, cudaMemcpyDeviceToHost,
			   s));
	CK(cudaStreamSynchronize(s));
	for (size_t k = 0; k < NKERNELS; k++) {
		ok[k] = 1;
		if (!have(kernels[k]))
			continue;
		if (!small)
			ok[k] = check(kernels[k], din, dout, COUNT, in, want,
				      got, s);
		for (int c : counts)
			if (kernels[k].variant >= 0 && c <= max)
				ok[k] &= check(kernels[k], din, dout, c, in,
					       want, got, s);
		if (small)
			printf("%-44s %s\n", kernels[k].name,
			       ok[k] ? "ok" : "WRONG");
		bad += !ok[k];
	}
	return bad;
}

/* --small: every reference kernel at the short-chunk counts. */
static int small_checks(void)
{
	const int max = (1 << 20) + 4;
	std::vector<int> ok(NKERNELS);
	float *din, *dout;
	cudaStream_t s;
	int bad;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&din, (size_t)max * FIELDS * 4));
	CK(cudaMalloc(&dout, (size_t)max * FIELDS * 4));
	bench_fill(din, (size_t)max * FIELDS, 20261124, s);
	bad = check_all(din, dout, max, true, ok, s);
	printf("%s\n", bad ? "some kernel is WRONG" : "all correct");
	cudaFree(din);
	cudaFree(dout);
	return bad ? 1 : 0;
}

static double median_of(std::vector<float> v)
{
	size_t n = v.size();

	std::sort(v.begin(), v.end());
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 40;
	int rounds = argc > 2 ? atoi(argv[2]) : 3, ndev = 0, bad;
	size_t words = (size_t)COUNT * FIELDS, bytes = words * 4;
	std::vector<std::vector<float>> all(NKERNELS), per_round(NKERNELS);
	std::vector<int> ok(NKERNELS);
	std::vector<size_t> order(NKERNELS);
	std::vector<bench_case> cases;
	cudaDeviceProp prop;
	float *din, *dout;
	cudaStream_t s;
	double best_rec, copy;
	size_t win = 0;

	if (argc > 1 && !strcmp(argv[1], "--small"))
		return small_checks();
	if (reps < 30 || rounds < 1) {
		fprintf(stderr, "usage: aos_candidates [REPS>=30 [ROUNDS]]\n");
		return 2;
	}
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
		fprintf(stderr, "aos_candidates: no usable GPU\n");
		return 3;
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s (sm_%d%d, %d SMs, %.0f MB L2)\n", prop.name,
	       prop.major, prop.minor, prop.multiProcessorCount,
	       prop.l2CacheSize / 1e6);
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&din, bytes));
	CK(cudaMalloc(&dout, bytes));
	bench_fill(din, words, 20261124, s);
	bad = check_all(din, dout, COUNT, false, ok, s);

	bench_flusher fl;
	fl.init();
	for (size_t k = 0; k < NKERNELS; k++) {
		aos_fn fn = kernels[k].fn;

		if (!have(kernels[k])) {
			fprintf(stderr, "aos_candidates: %s is not linked in "
				"(bench/run-aos links it)\n", kernels[k].name);
			return 2;
		}
		cases.push_back({ kernels[k].name, "16777216x3", 2.0 * bytes,
				  [=](cudaStream_t st) {
					  if (fn)
						  fn(dout, din, COUNT, st);
					  else
						  CK(cudaMemcpyAsync(dout, din,
							bytes,
							cudaMemcpyDeviceToDevice,
							st));
				  } });
	}
	for (int r = 0; r < rounds; r++) {
		for (bench_case &c : cases)
			c.ms.clear();
		bench_time(cases, 5, reps, fl, s);
		for (size_t k = 0; k < NKERNELS; k++) {
			per_round[k].push_back((float)cases[k].median);
			all[k].insert(all[k].end(), cases[k].ms.begin(),
				      cases[k].ms.end());
		}
	}
	fl.release();

	std::vector<double> med(NKERNELS);
	for (size_t k = 0; k < NKERNELS; k++)
		med[k] = median_of(all[k]);
	copy = med[0];
	best_rec = std::min(med[1], med[2]);
	for (size_t k = 0; k < NKERNELS; k++)
		order[k] = k;
	std::sort(order.begin(), order.end(),
		  [&](size_t a, size_t b) { return med[a] < med[b]; });
	printf("timing: median of %d x %d event-timed runs each, L2 "
	       "flushed, kernels interleaved\n\n", rounds, reps);
	printf("%-3s %-44s %9s %7s %7s %9s  %s\n", "var", "kernel",
	       "ms", "GB/s", "%copy", "vs rec", "round medians, check");
	for (size_t i = 0; i < NKERNELS; i++) {
		size_t k = order[i];
		char var[8] = "-";

		if (kernels[k].variant >= 0)
			snprintf(var, sizeof(var), "%d", kernels[k].variant);
		printf("%-3s %-44s %9.4f %7.0f %6.1f%% %+8.2f%% ", var,
		       kernels[k].name, med[k], 2.0 * bytes / med[k] / 1e6,
		       100 * copy / med[k], 100 * (best_rec / med[k] - 1));
		for (float m : per_round[k])
			printf(" %.4f", m);
		printf("%s\n", ok[k] ? "" : "  WRONG");
		if (kernels[k].variant >= 0 && ok[k] &&
		    (!win || med[k] < med[win]))
			win = k;
	}
	printf("\n");
	for (size_t k = 0; k < NKERNELS; k++) {
		printf("csv,%s,%d,%.5f,%.0f,%.2f,%.3f,%d", kernels[k].name,
		       kernels[k].variant, med[k],
		       2.0 * bytes / med[k] / 1e6, 100 * copy / med[k],
		       100 * (best_rec / med[k] - 1), ok[k]);
		for (float m : per_round[k])
			printf(",%.5f", m);
		printf("\n");
	}
	if (win)
		printf("\nfastest correct reference candidate: "
		       "WG_AOS3_VARIANT=%d (%s), %.4f ms, %+.2f%% against "
		       "the best one thread per record (%.4f ms)\n",
		       kernels[win].variant, kernels[win].name, med[win],
		       100 * (best_rec / med[win] - 1), best_rec);
	if (bad)
		printf("\n%d WRONG kernel(s)\n", bad);
	cudaFree(din);
	cudaFree(dout);
	return bad ? 1 : 0;
}
