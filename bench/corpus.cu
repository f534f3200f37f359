/*
 * Times the performance-model corpus (bench/corpus/LIST) on a GPU: every
 * variant and the reference of its exercise at the exercise's
 * performance shape, interleaved, L2 flushed before each run, the median
 * of REPS event-timed runs after warm-up; each variant's output is
 * checked against the reference's.  bench/run-corpus builds it with the
 * variants' objects and the generated table (corpus_table.inc: one
 * V(name, exercise, set) per variant, whose launcher is wgv_<name>).
 *
 * `corpus --once` instead launches the reference and each variant once
 * per exercise, in table order, for Nsight Compute to profile.
 *
 * Output: CSV on stdout, one line per variant:
 *   exercise,variant,set,ms,reference_ms,speedup,correct
 * Exit status: 0, 1 a variant was wrong, 2 a CUDA error, 3 no GPU.
 */
#include "bench_common.cuh"

#include <cstring>

extern "C" {
void wgref_coalesced_transpose(float *, const float *, int, int,
			       cudaStream_t);
void wgref_aos_to_soa(float *, const float *, int, int, cudaStream_t);
void wgref_reverse_rows(int *, const int *, int, int, cudaStream_t);
}

typedef void (*launch_fn)(void *, const void *, int, int, cudaStream_t);

#define V(name, ex, set)                                                   \
	extern "C" void wgv_##name(void *, const void *, int, int,        \
				   cudaStream_t);
#include "corpus_table.inc"
#undef V

struct variant {
	const char *name, *exercise, *set;
	launch_fn fn;
};

static const variant table[] = {
#define V(name, ex, set) { #name, #ex, #set, (launch_fn)wgv_##name },
#include "corpus_table.inc"
#undef V
};

struct exercise_case {
	const char *name;
	int m, n;
	launch_fn ref;
};

static const exercise_case exercises[] = {
	{ "coalesced_transpose", 8192, 8192,
	  (launch_fn)wgref_coalesced_transpose },
	{ "aos_to_soa", 1 << 24, 3, (launch_fn)wgref_aos_to_soa },
	{ "dynamic_reverse", 8192, 8192, (launch_fn)wgref_reverse_rows },
};

/* --once: one launch each, reference first, in table order. */
static void launch_once(const exercise_case &e, cudaStream_t s)
{
	size_t words = (size_t)e.m * e.n, bytes = words * 4;
	void *in, *out;

	CK(cudaMalloc(&in, bytes));
	CK(cudaMalloc(&out, bytes));
	bench_fill(in, words, 20261124, s);
	e.ref(out, in, e.m, e.n, s);
	for (const variant &v : table)
		if (!strcmp(v.exercise, e.name))
			v.fn(out, in, e.m, e.n, s);
	CK(cudaStreamSynchronize(s));
	CK(cudaGetLastError());
	cudaFree(in);
	cudaFree(out);
}

static int time_exercise(const exercise_case &e, int reps,
			 bench_flusher &fl, cudaStream_t s)
{
	size_t words = (size_t)e.m * e.n, bytes = words * 4;
	void *in, *out, *want;
	std::vector<bench_case> cases;
	std::vector<const variant *> vs;
	std::vector<int> ok;
	int bad = 0;

	CK(cudaMalloc(&in, bytes));
	CK(cudaMalloc(&out, bytes));
	CK(cudaMalloc(&want, bytes));
	bench_fill(in, words, 20261124, s);
	e.ref(want, in, e.m, e.n, s);
	CK(cudaStreamSynchronize(s));
	cases.push_back({ "reference", "", 2.0 * bytes,
			  [&](cudaStream_t st) { e.ref(out, in, e.m, e.n,
						       st); } });
	for (const variant &v : table) {
		if (strcmp(v.exercise, e.name))
			continue;
		vs.push_back(&v);
		/* correct at the timed shape? */
		CK(cudaMemset(out, 0xa5, bytes));
		v.fn(out, in, e.m, e.n, s);
		CK(cudaStreamSynchronize(s));
		CK(cudaGetLastError());
		std::vector<char> a(bytes), b(bytes);
		CK(cudaMemcpy(a.data(), out, bytes, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(b.data(), want, bytes, cudaMemcpyDeviceToHost));
		ok.push_back(!memcmp(a.data(), b.data(), bytes));
		bad |= !ok.back();
		launch_fn fn = v.fn;
		cases.push_back({ v.name, "", 2.0 * bytes,
				  [=](cudaStream_t st) { fn(out, in, e.m, e.n,
							    st); } });
	}
	bench_time(cases, 3, reps, fl, s);
	for (size_t i = 0; i < vs.size(); i++)
		printf("%s,%s,%s,%.5f,%.5f,%.4f,%d\n", e.name, vs[i]->name,
		       vs[i]->set, cases[i + 1].median, cases[0].median,
		       cases[0].median / cases[i + 1].median, ok[i]);
	fflush(stdout);
	cudaFree(in);
	cudaFree(out);
	cudaFree(want);
	return bad;
}

int main(int argc, char **argv)
{
	int once = argc > 1 && !strcmp(argv[1], "--once");
	int reps = argc > 1 && !once ? atoi(argv[1]) : 30, dev = 0, bad = 0;
	cudaDeviceProp p;
	cudaStream_t s;

	if (cudaGetDeviceCount(&dev) != cudaSuccess || dev < 1) {
		fprintf(stderr, "corpus: no usable GPU\n");
		return 3;
	}
	CK(cudaGetDeviceProperties(&p, 0));
	fprintf(stderr, "corpus: %s, %d reps\n", p.name, reps);
	CK(cudaStreamCreate(&s));
	if (once) {
		for (const exercise_case &e : exercises)
			launch_once(e, s);
		return 0;
	}
	bench_flusher fl;
	fl.init();
	printf("exercise,variant,set,ms,reference_ms,speedup,correct\n");
	for (const exercise_case &e : exercises)
		bad |= time_exercise(e, reps, fl, s);
	fl.release();
	return bad ? 1 : 0;
}
