// What a timed runner's CUDA context costs while other processes use
// another GPU of the host, without the grader: tests/gpu/
// context-contention.sh runs one `create` beside each kind of load.
//
//   context_cost create GPU N     N processes one after another, each
//       seeing only GPU (CUDA_VISIBLE_DEVICES), each creating its
//       context, allocating what a timed runner does (three 256 MB
//       buffers, the 100 MB L2 flush buffer), setting them once and
//       exiting without the runtime's teardown: prints the median, 10th
//       and 90th percentile milliseconds of the context, the
//       allocations and the exit (the process gone, as the grader
//       waits for it)
//   context_cost churn GPU SECONDS   processes like a correctness sweep,
//       one after another: a context, two 256 MB buffers, 16 MB of
//       pinned host memory, 256 MB in and out, 4,096 tiny launches each
//       waited for, exit
//   context_cost bare GPU SECONDS    processes that only create a
//       context and exit
//   context_cost busy GPU SECONDS    one process, one context, copies
//       and launches without a pause (no driver calls but submissions)
//   context_cost hold GPU SECONDS    a context that does nothing (a
//       batch's keeper)
//   context_cost cpu SECONDS         a busy loop on the CPU
//
// nvcc -O2 -arch=sm_90 -o context_cost tests/gpu/context_cost.cu
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void tiny(float *p) { p[threadIdx.x] += 1.0f; }

static double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(
		steady_clock::now().time_since_epoch()).count();
}

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "context_cost: %s: %s\n", what,
			cudaGetErrorString(e));
		_exit(1);
	}
}

static void see_only(const char *gpu)
{
	setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
}

// One timed-runner-like process; writes its two times to fd.
static void timed_child(const char *gpu, int fd)
{
	double t[3];
	void *p[4];
	const size_t big = 256u << 20, flush = 100u << 20;

	see_only(gpu);
	t[0] = now_ms();
	check(cudaFree(0), "context");
	t[1] = now_ms();
	for (int i = 0; i < 4; i++) {
		check(cudaMalloc(&p[i], i < 3 ? big : flush), "malloc");
		check(cudaMemset(p[i], i, i < 3 ? big : flush), "memset");
	}
	check(cudaDeviceSynchronize(), "sync");
	t[2] = now_ms();
	double d[2] = { t[1] - t[0], t[2] - t[1] };
	if (write(fd, d, sizeof(d)) != sizeof(d))
		_exit(1);
	_exit(0);
}

static double pct(std::vector<double> v, double q)
{
	std::sort(v.begin(), v.end());
	return v[std::min(v.size() - 1, (size_t)(q * v.size()))];
}

static void print(const char *what, const std::vector<double> &v)
{
	printf("%-12s median %7.1f ms  p10 %7.1f  p90 %7.1f  (n=%zu)\n",
	       what, pct(v, 0.5), pct(v, 0.1), pct(v, 0.9), v.size());
}

static int create(const char *gpu, int n)
{
	std::vector<double> ctx, alloc, exit_ms, whole;

	for (int i = 0; i < n; i++) {
		int fds[2];
		double d[2], t0 = now_ms(), t1;

		if (pipe(fds))
			return 1;
		pid_t pid = fork();
		if (pid == 0) {
			close(fds[0]);
			timed_child(gpu, fds[1]);
		}
		close(fds[1]);
		if (read(fds[0], d, sizeof(d)) != sizeof(d)) {
			fprintf(stderr, "context_cost: a child failed\n");
			return 1;
		}
		t1 = now_ms();
		waitpid(pid, NULL, 0);
		close(fds[0]);
		ctx.push_back(d[0]);
		alloc.push_back(d[1]);
		exit_ms.push_back(now_ms() - t1);
		whole.push_back(now_ms() - t0);
	}
	print("context", ctx);
	print("allocations", alloc);
	print("exit", exit_ms);
	print("whole", whole);
	return 0;
}

static void churn_child(const char *gpu, int bare)
{
	see_only(gpu);
	check(cudaFree(0), "context");
	if (bare)
		_exit(0);
	const size_t big = 256u << 20;
	float *d_in, *d_out;
	unsigned char *pinned;
	unsigned char *host = (unsigned char *)malloc(big);

	memset(host, 1, big);
	check(cudaMalloc(&d_in, big), "malloc");
	check(cudaMalloc(&d_out, big), "malloc");
	check(cudaMallocHost(&pinned, 16u << 20), "pinned");
	check(cudaMemcpy(d_in, host, big, cudaMemcpyHostToDevice), "in");
	for (int i = 0; i < 4096; i++) {
		tiny<<<1, 32>>>(d_out);
		check(cudaMemcpy(pinned, d_out, 128, cudaMemcpyDeviceToHost),
		      "back");
	}
	check(cudaMemcpy(host, d_in, big, cudaMemcpyDeviceToHost), "out");
	_exit(0);
}

static int churn(const char *gpu, double seconds, int bare)
{
	double end = now_ms() + seconds * 1000;
	int n = 0;

	while (now_ms() < end) {
		pid_t pid = fork();
		if (pid == 0)
			churn_child(gpu, bare);
		waitpid(pid, NULL, 0);
		n++;
	}
	printf("%s: %d processes in %.0f s\n", bare ? "bare" : "churn", n,
	       seconds);
	return 0;
}

static int busy(const char *gpu, double seconds)
{
	const size_t big = 256u << 20;
	double end = now_ms() + seconds * 1000;
	float *a, *b;
	int n = 0;

	see_only(gpu);
	check(cudaMalloc(&a, big), "malloc");
	check(cudaMalloc(&b, big), "malloc");
	while (now_ms() < end) {
		check(cudaMemcpy(b, a, big, cudaMemcpyDeviceToDevice), "copy");
		for (int i = 0; i < 64; i++)
			tiny<<<1, 32>>>(b);
		check(cudaDeviceSynchronize(), "sync");
		n++;
	}
	printf("busy: %d rounds\n", n);
	return 0;
}

static int hold(const char *gpu, double seconds)
{
	see_only(gpu);
	check(cudaFree(0), "context");
	usleep((useconds_t)(seconds * 1e6));
	return 0;
}

static int cpu(double seconds)
{
	double end = now_ms() + seconds * 1000;
	volatile unsigned long x = 0;

	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x += i;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "create"))
		return create(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "churn"))
		return churn(argv[2], atof(argv[3]), 0);
	if (argc == 4 && !strcmp(argv[1], "bare"))
		return churn(argv[2], atof(argv[3]), 1);
	if (argc == 4 && !strcmp(argv[1], "busy"))
		return busy(argv[2], atof(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], atof(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "cpu"))
		return cpu(atof(argv[2]));
	fprintf(stderr, "usage: context_cost create|churn|bare|busy|hold GPU "
		"N|SECONDS, or cpu SECONDS\n");
	return 2;
}
