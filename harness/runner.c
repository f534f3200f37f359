/*
 * The runner: the untrusted side of warpgrade.  One process per job, exec'd
 * fresh by the grader inside the sandbox, linked with one submission's
 * objects, the reference objects and either NVIDIA's runtime or the
 * emulator's (harness/emu).  It reads one JOB frame on stdin -- after every
 * global constructor of the student's code has run, so the seed cannot be
 * seen before main -- runs the phases asked for and writes frames on fd 3.
 *
 * It decides nothing: outputs, guard bands, input hashes, timings and
 * counters go back raw and the grader verifies them against its own
 * oracle.  Nothing here forks (CUDA does not survive fork).
 */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crashlog.h"
#include "emufault.h"
#include "exercise.h"
#include "launches.h"
#include "protocol.h"
#include "runner.h"
#include "runner_entry.h"
#include "runner_kernels.h"
#include "emu/wgemu.h"

#define OUT_FD 3
#define MAX_ERROR_FRAMES 32
#define CHUNK_BYTES (32u << 20)
#define MAX_JOB_BYTES 4096

/* Present only when the runner kernels are linked (GPU build). */
#pragma weak wgrun_fill
#pragma weak wgrun_compare
#pragma weak wgrun_empty

static int send(struct proto_buf *b)
{
	int rc = 0;

	if (b->oom || proto_write_all(OUT_FD, b->data, b->len))
		rc = -1;
	proto_buf_release(b);
	return rc;
}

void runner_die_internal(const char *msg)
{
	struct proto_buf b;
	struct proto_error e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "runner");
	snprintf(e.message, sizeof(e.message), "%s", msg);
	e.fault_kind = PROTO_FAULT_NONE;
	e.cuda_code = -1;
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	send(&b);
	fprintf(stderr, "runner: %s\n", msg);
	_exit(3);
}

int runner_send_cuda_error(struct runner *r, unsigned phase, size_t index,
			   cudaError_t err, const char *where)
{
	struct proto_error e;
	struct proto_buf b;
	char fault[512] = "";
	enum wgemu_fault_kind kind = WGEMU_FAULT_NONE;

	if (r->errors_sent++ >= MAX_ERROR_FRAMES)
		return 0;
	memset(&e, 0, sizeof(e));
	e.phase = phase;
	e.index = (uint32_t)index;
	e.cuda_code = (int32_t)err;
	snprintf(e.name, sizeof(e.name), "%s", cudaGetErrorName(err));
	if (wgemu_last_fault)
		kind = wgemu_last_fault(fault, sizeof(fault));
	e.fault_kind = emufault_to_proto(kind);
	snprintf(e.message, sizeof(e.message), "%s: %s%s%s", where,
		 cudaGetErrorString(err), fault[0] ? ": " : "", fault);
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	return send(&b);
}

void runner_send_phase(unsigned phase, unsigned count)
{
	struct proto_phase_msg m = { phase, count };
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_phase(&b, &m);
	send(&b);
}

void runner_send_done(unsigned phase, unsigned completed)
{
	struct proto_done m = { phase, completed };
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_done(&b, &m);
	send(&b);
}

/* One frame of type `want` from standard input (the grader keeps it
 * open: the keys of timed repetitions come later), its payload into
 * buf; the payload's length, or -1. */
static long read_frame(enum proto_type want, unsigned char *buf, size_t cap)
{
	enum proto_type t;
	size_t n;

	if (proto_read_frame(0, &t, buf, cap, &n, NULL, 0) != 1 || t != want)
		return -1;
	return (long)n;
}

static int read_job(struct proto_job *job)
{
	unsigned char buf[MAX_JOB_BYTES];
	long n = read_frame(PROTO_JOB, buf, sizeof(buf));

	return n < 0 || proto_dec_job(buf, (size_t)n, job) ? -1 : 0;
}

static void send_hello(struct runner *r)
{
	struct proto_hello h;
	struct cudaDeviceProp prop;
	struct proto_buf b;
	cudaError_t err;

	memset(&h, 0, sizeof(h));
	snprintf(h.backend, sizeof(h.backend), "%s", r->emu ? "emu" : "cuda");
	err = cudaGetDeviceProperties(&prop, 0);
	if (err == cudaSuccess) {
		snprintf(h.device, sizeof(h.device), "%.127s", prop.name);
		h.cc_major = (uint32_t)prop.major;
		h.cc_minor = (uint32_t)prop.minor;
		h.sm_count = (uint32_t)prop.multiProcessorCount;
		h.l2_bytes = (uint64_t)prop.l2CacheSize;
		h.global_mem_bytes = (uint64_t)prop.totalGlobalMem;
	} else {
		snprintf(h.device, sizeof(h.device), "unavailable (%s)",
			 cudaGetErrorString(err));
	}
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	send(&b);
}

/* Run one launcher call with launch recording around it; 1 when it
 * launched on a stream other than the runner's (or more launches than
 * are described), else 0. */
int runner_call_launcher(struct runner *r, launcher_fn f, void *out,
			 const void *in, struct exercise_shape s,
			 unsigned phase, size_t index, int report)
{
	struct proto_launches l;
	struct proto_buf b;
	int off = 0;

	launches_begin(r->stream);
	f(out, in, (int)s.m, (int)s.n, r->stream);
	launches_end(&l);
	for (uint32_t i = 0; i < l.count; i++)
		off |= !l.launch[i].on_given_stream;
	off |= l.total > l.count;
	if (report) {
		l.phase = phase;
		l.index = (uint32_t)index;
		proto_buf_init(&b);
		proto_enc_launches(&b, &l);
		send(&b);
	}
	return off;
}

/* After an error, is the context still usable?  Non-sticky errors (a bad
 * launch configuration) clear; a kernel fault poisons the context. */
int runner_context_alive(void)
{
	void *p = NULL;
	cudaError_t err;

	cudaGetLastError();
	err = cudaMalloc(&p, 256);
	if (err != cudaSuccess)
		return 0;
	cudaFree(p);
	return cudaDeviceSynchronize() == cudaSuccess;
}

int runner_send_shape(size_t index, const unsigned char *region,
		      size_t total, uint64_t input_hash)
{
	size_t off = 0;

	do {
		struct proto_shape m;
		size_t len = total - off < CHUNK_BYTES ? total - off :
							  CHUNK_BYTES;

		m.index = (uint32_t)index;
		m.guard_elems = GUARD_ELEMS;
		m.total_bytes = total;
		m.offset = off;
		m.input_hash = input_hash;
		m.data = region + off;
		m.len = len;
		if (proto_write_shape(OUT_FD, &m))
			return -1;
		off += len;
	} while (off < total);
	return 0;
}

int runner_send_digests(size_t index, uint64_t total, uint64_t input_digest,
			uint64_t region_digest)
{
	struct proto_digest m = { (uint32_t)index, GUARD_ELEMS, total,
				  input_digest, region_digest };
	struct proto_digest_reply rep;
	struct proto_buf b;
	unsigned char buf[64];
	long n;

	proto_buf_init(&b);
	proto_enc_digest(&b, &m);
	if (send(&b))
		return -1;
	n = read_frame(PROTO_DIGEST_REPLY, buf, sizeof(buf));
	if (n < 0 || proto_dec_digest_reply(buf, (size_t)n, &rep) ||
	    rep.index != index)
		return -1;
	return (int)rep.send_bytes;
}

/* Send the launch record of the measured call at shape index, in
 * chunks; nothing when there is none (a GPU runner). */
int runner_can_record(void)
{
	return wgemu_record_begin || gpurec_begin;
}

void runner_record_begin(const void *in, size_t in_bytes, const void *out,
			 size_t out_bytes)
{
	if (wgemu_record_begin)
		wgemu_record_begin(in, in_bytes, out, out_bytes);
	else if (gpurec_begin)
		gpurec_begin(in, in_bytes, out, out_bytes);
}

int runner_record_end(unsigned char **rec, size_t *len)
{
	return wgemu_record_end ? wgemu_record_end(rec, len) :
	       !gpurec_end || gpurec_end(rec, len) ? -1 : 0;
}

int runner_send_record(size_t index)
{
	unsigned char *rec = NULL;
	size_t len = 0;

	if (runner_record_end(&rec, &len))
		return 0;
	return runner_send_record_data(index, rec, len);
}

int runner_send_record_data(size_t index, unsigned char *rec, size_t len)
{
	size_t off = 0;
	int rc = 0;

	do {
		struct proto_record m;
		struct proto_buf b;
		size_t n = len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES;

		m.index = (uint32_t)index;
		m.total_bytes = len;
		m.offset = off;
		m.data = rec + off;
		m.len = n;
		proto_buf_init(&b);
		proto_enc_record(&b, &m);
		rc = send(&b);
		off += n;
	} while (!rc && off < len);
	free(rec);
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/*
 * The input of timed repetition rep comes from a key the grader sends
 * only when the repetition is about to run: a launcher that reads this
 * process's memory learns each input when it is called with it, never
 * before, so no output can be computed ahead (during warm-up or an
 * earlier repetition) and replayed.
 */
static uint64_t timed_input_key(uint32_t rep)
{
	struct proto_key k = { rep, 0 };
	unsigned char buf[64];
	struct proto_buf b;
	long n;

	proto_buf_init(&b);
	proto_enc_key(&b, PROTO_KEY_REQUEST, &k);
	if (send(&b))
		runner_die_internal("cannot ask for a key");
	n = read_frame(PROTO_KEY, buf, sizeof(buf));
	if (n < 0 || proto_dec_key(buf, (size_t)n, PROTO_KEY, &k) ||
	    k.rep != rep)
		runner_die_internal("no key for a timed repetition");
	return k.key;
}

/* After a timed turn: idle, the context kept, until the grader closes
 * stdin -- which it does once no other runner of the grade waits for a
 * turn, so that no context is torn down while another is timed
 * (grader/gputurns.h). */
static void wait_for_release(void)
{
	unsigned char buf[256];
	ssize_t n;

	do
		n = read(0, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
}

/* One timed reference run: poisoned output, flushed L2, event-timed. */
static cudaError_t time_reference(struct runner *r, unsigned char *out,
				  const unsigned char *in, size_t bytes,
				  unsigned char *flush, size_t flush_bytes,
				  int rep, cudaEvent_t e0, cudaEvent_t e1,
				  double *ms_out)
{
	cudaError_t err;
	float ms = 0;

	err = cudaMemsetAsync(out, PROTO_POISON_BYTE, bytes, r->stream);
	if (err == cudaSuccess)
		err = cudaMemsetAsync(flush, rep, flush_bytes, r->stream);
	if (err == cudaSuccess)
		err = cudaEventRecord(e0, r->stream);
	if (err != cudaSuccess)
		return err;
	runner_call_launcher(r, r->reference, out, in, r->ex->perf_shape, 0, 0,
			     0);
	err = cudaEventRecord(e1, r->stream);
	if (err == cudaSuccess)
		err = cudaEventSynchronize(e1);
	if (err == cudaSuccess)
		err = cudaEventElapsedTime(&ms, e0, e1);
	*ms_out = ms;
	return err;
}

/* A CUDA call of the timed phase: on an error, the error frame (at
 * repetition `rep`, in scope) and -1 from the function. */
#define PERF_CHECK(expr, what) do { \
		cudaError_t err_ = (expr); \
		if (err_ != cudaSuccess) { \
			runner_send_cuda_error(r, PROTO_PHASE_PERF, rep, \
					       err_, what); \
			return -1; \
		} \
	} while (0)

/* What the timed phase holds, on the device and on the host. */
struct perf_bench {
	size_t elems, bytes;
	unsigned reps;
	struct proto_perf *pm;
	unsigned char *d_in, *d_ref, *d_stu;
	unsigned char *d_flush;
	size_t flush_bytes;
	unsigned long long *d_count;
	cudaEvent_t e0, e1;
	double *tmp, *host;
	/* the recorded repetition (UINT_MAX: none) and its record */
	unsigned recorded;
	unsigned char *rec;
	size_t rec_len;
};

/* The sizes and the host's side; the runner dies without memory. */
static void perf_init(struct runner *r, struct perf_bench *b)
{
	memset(b, 0, sizeof(*b));
	b->elems = exercise_shape_elems(r->ex->perf_shape);
	b->bytes = b->elems * r->ex->elem_size;
	b->reps = r->job.perf_reps ? r->job.perf_reps : 30;
	b->recorded = UINT_MAX;
	if (b->reps > PROTO_MAX_REPS)
		b->reps = PROTO_MAX_REPS;
	b->pm = calloc(1, sizeof(*b->pm));
	b->tmp = calloc(b->reps + 32, sizeof(*b->tmp));
	b->host = calloc(b->reps, sizeof(*b->host));
	if (!b->pm || !b->tmp || !b->host)
		runner_die_internal("out of host memory for timings");
}

static void perf_release(struct perf_bench *b)
{
	if (b->e0)
		cudaEventDestroy(b->e0);
	if (b->e1)
		cudaEventDestroy(b->e1);
	cudaFree(b->d_in);
	cudaFree(b->d_ref);
	cudaFree(b->d_stu);
	cudaFree(b->d_flush);
	cudaFree(b->d_count);
	free(b->pm);
	free(b->tmp);
	free(b->host);
	free(b->rec);
}

/* The device's side: input, outputs, the L2 flush buffer, the
 * counters, two events. */
static int perf_alloc(struct runner *r, struct perf_bench *b)
{
	const size_t rep = 0;
	struct cudaDeviceProp prop;

	PERF_CHECK(cudaGetDeviceProperties(&prop, 0), "device properties");
	b->flush_bytes = (size_t)prop.l2CacheSize * 2;
	PERF_CHECK(cudaMalloc((void **)&b->d_in, b->bytes),
		   "allocating input");
	PERF_CHECK(cudaMalloc((void **)&b->d_ref, b->bytes),
		   "allocating output");
	PERF_CHECK(cudaMalloc((void **)&b->d_stu, b->bytes),
		   "allocating output");
	PERF_CHECK(cudaMalloc((void **)&b->d_flush, b->flush_bytes),
		   "allocating the L2 flush buffer");
	PERF_CHECK(cudaMalloc((void **)&b->d_count, 2 * sizeof(*b->d_count)),
		   "allocating a counter");
	PERF_CHECK(cudaEventCreate(&b->e0), "creating an event");
	PERF_CHECK(cudaEventCreate(&b->e1), "creating an event");
	return 0;
}

/* The physical ceiling, a device-to-device copy of the same size, and
 * the time of an empty launch. */
static int perf_ceiling(struct runner *r, struct perf_bench *b)
{
	const size_t rep = 0;
	struct proto_perf *pm = b->pm;
	float ms;

	for (unsigned i = 0; i < 12; i++) {
		PERF_CHECK(cudaMemsetAsync(b->d_flush, i, b->flush_bytes,
					   r->stream), "flushing L2");
		PERF_CHECK(cudaEventRecord(b->e0, r->stream), "event");
		PERF_CHECK(cudaMemcpyAsync(b->d_ref, b->d_in, b->bytes,
					   cudaMemcpyDeviceToDevice, r->stream),
			   "timing a device copy");
		PERF_CHECK(cudaEventRecord(b->e1, r->stream), "event");
		PERF_CHECK(cudaEventSynchronize(b->e1), "event");
		PERF_CHECK(cudaEventElapsedTime(&ms, b->e0, b->e1), "event");
		if (i >= 2)
			b->tmp[i - 2] = ms;
	}
	pm->copy_gbps = 2.0 * (double)b->bytes / (median(b->tmp, 10) * 1e6);
	for (unsigned i = 0; i < 22; i++) {
		PERF_CHECK(cudaEventRecord(b->e0, r->stream), "event");
		PERF_CHECK(wgrun_empty(r->stream), "empty launch");
		PERF_CHECK(cudaEventRecord(b->e1, r->stream), "event");
		PERF_CHECK(cudaEventSynchronize(b->e1), "event");
		PERF_CHECK(cudaEventElapsedTime(&ms, b->e0, b->e1), "event");
		if (i >= 2)
			b->tmp[i - 2] = ms;
	}
	pm->empty_launch_ms = median(b->tmp, 20);
	pm->bytes_moved = 2 * (uint64_t)b->bytes;
	return 0;
}

/* Warm-up: module load and first-touch stay out of the numbers. */
static int perf_warm_up(struct runner *r, struct perf_bench *b)
{
	const size_t rep = 0;
	struct exercise_shape s = r->ex->perf_shape;

	for (int i = 0; i < 2; i++) {
		if (r->reference)
			runner_call_launcher(r, r->reference, b->d_ref,
					     b->d_in, s, 0, 0, 0);
		runner_call_launcher(r, r->student, b->d_stu, b->d_in, s, 0,
				     0, 0);
		PERF_CHECK(cudaDeviceSynchronize(), "warm-up run");
	}
	return 0;
}

/* The student's run of repetition rep, timed by events and by the host,
 * its output compared with the reference's once the stream says it is
 * done and again once the device is idle. */
static int perf_student(struct runner *r, struct perf_bench *b, size_t rep)
{
	struct proto_perf *pm = b->pm;
	unsigned long long h_count[2];
	double t0;
	float ms;

	PERF_CHECK(cudaMemsetAsync(b->d_stu, POISON_BYTE, b->bytes,
				   r->stream), "poisoning");
	PERF_CHECK(cudaMemsetAsync(b->d_flush, (int)rep + 1, b->flush_bytes,
				   r->stream), "flushing L2");
	PERF_CHECK(cudaMemsetAsync(b->d_count, 0, 2 * sizeof(*b->d_count),
				   r->stream), "zeroing");
	PERF_CHECK(cudaStreamSynchronize(r->stream), "setting up");
	if (rep == b->recorded)
		runner_record_begin(b->d_in, b->bytes, b->d_stu, b->bytes);
	t0 = now_ms();
	PERF_CHECK(cudaEventRecord(b->e0, r->stream), "event");
	runner_call_launcher(r, r->student, b->d_stu, b->d_in,
			     r->ex->perf_shape, PROTO_PHASE_PERF, rep,
			     rep == 0);
	if (rep == b->recorded && runner_record_end(&b->rec, &b->rec_len))
		b->rec = NULL;
	PERF_CHECK(cudaGetLastError(), "student launch");
	PERF_CHECK(cudaEventRecord(b->e1, r->stream), "event");
	/* compared as soon as the stream says it is done */
	if (r->reference)
		PERF_CHECK(wgrun_compare((uint32_t *)b->d_stu,
					 (uint32_t *)b->d_ref, b->elems,
					 b->d_count, r->stream), "comparing");
	PERF_CHECK(cudaEventSynchronize(b->e1), "student run");
	PERF_CHECK(cudaDeviceSynchronize(), "student run");
	b->host[rep] = now_ms() - t0;
	PERF_CHECK(cudaEventElapsedTime(&ms, b->e0, b->e1), "event");
	pm->student_ms[rep] = ms;
	/* and again once everything on the device has finished */
	if (r->reference)
		PERF_CHECK(wgrun_compare((uint32_t *)b->d_stu,
					 (uint32_t *)b->d_ref, b->elems,
					 b->d_count + 1, r->stream),
			   "comparing");
	PERF_CHECK(cudaMemcpy(h_count, b->d_count, sizeof(h_count),
			      cudaMemcpyDeviceToHost), "reading");
	if (h_count[1])
		pm->mismatched_runs++;
	else if (h_count[0])
		pm->outside_stream_runs++;
	return 0;
}

/* Repetition rep: a fresh input from its key, the reference timed,
 * then the student; the recorded one's record sent. */
static int perf_rep(struct runner *r, struct perf_bench *b, size_t rep)
{
	uint64_t key = timed_input_key((uint32_t)rep);
	cudaError_t err;
	int failed;

	/* one repetition, which the launcher cannot know ahead, is
	 * recorded: what is timed is what the technique checks see */
	if (rep == 0 && r->reference && runner_can_record())
		b->recorded = (unsigned)(key % b->reps);

	PERF_CHECK(wgrun_fill((uint32_t *)b->d_in, b->elems, key,
			      r->ex->elem_is_float, r->stream),
		   "generating input");
	/* reference (absent in a student kit: the student is timed alone
	 * and nothing is compared) */
	b->pm->reference_ms[rep] = NAN;
	if (r->reference) {
		err = time_reference(r, b->d_ref, b->d_in, b->bytes,
				     b->d_flush, b->flush_bytes, (int)rep,
				     b->e0, b->e1, &b->pm->reference_ms[rep]);
		if (err != cudaSuccess) {
			runner_send_cuda_error(r, PROTO_PHASE_PERF, rep, err,
					       "timing the reference");
			return -1;
		}
	}
	if (perf_student(r, b, rep))
		return -1;
	if (!b->rec)
		return 0;
	/* runner_send_record_data frees it, sent or not */
	failed = runner_send_record_data(exercise_nshapes_all(r->ex), b->rec,
					 b->rec_len);
	b->rec = NULL;
	return failed ? -1 : 0;
}

/*
 * Performance (GPU only): reference and student interleaved at the
 * performance shape.  Every repetition gets fresh input, poisoned outputs
 * and a flushed L2; the student's output is compared on the device with
 * the reference's for the same input, once when its stream reports
 * completion and once after a device-wide synchronisation -- a difference
 * between the two means work was left running outside the stream.
 */
static int phase_perf(struct runner *r)
{
	struct perf_bench b;
	struct proto_buf pb;
	int rc = -1;

	if (!wgrun_fill || !wgrun_compare || !wgrun_empty)
		runner_die_internal("performance phase without the runner "
				    "kernels");
	perf_init(r, &b);
	runner_send_phase(PROTO_PHASE_PERF, b.reps);
	/* the grade's other runners may still be sweeping: the GPU is this
	 * phase's once the grader says so */
	if (r->job.flags & PROTO_JOB_TIMED_TURN)
		(void)timed_input_key(PROTO_TURN_REP);
	if (perf_alloc(r, &b) || perf_ceiling(r, &b) || perf_warm_up(r, &b))
		goto out;
	for (size_t rep = 0; rep < b.reps; rep++)
		if (perf_rep(r, &b, rep))
			goto out;
	b.pm->reps = b.reps;
	b.pm->host_sync_ms = median(b.host, b.reps);
	proto_buf_init(&pb);
	proto_enc_perf(&pb, b.pm);
	send(&pb);
	runner_send_done(PROTO_PHASE_PERF, b.reps);
	rc = 0;
	if (r->job.flags & PROTO_JOB_TIMED_TURN)
		wait_for_release();
out:
	perf_release(&b);
	return rc;
}

/*
 * The job's stream.  Creating the first one creates the CUDA context,
 * mostly a wait on the driver, so on a GPU a thread of its own does it
 * while the main thread makes the correctness inputs; the emulator's is
 * immediate and made in place.
 */
static pthread_t stream_thread;
static int stream_pending;
static cudaError_t stream_err;

static void *create_stream(void *arg)
{
	struct runner *r = arg;

	stream_err = cudaStreamCreateWithFlags(&r->stream,
					       cudaStreamNonBlocking);
	return NULL;
}

void runner_stream_start(struct runner *r)
{
	if (!r->emu && !pthread_create(&stream_thread, NULL, create_stream,
				       r))
		stream_pending = 1;
	else
		create_stream(r);
}

int runner_stream_wait(struct runner *r)
{
	if (stream_pending) {
		pthread_join(stream_thread, NULL);
		stream_pending = 0;
		if (stream_err != cudaSuccess)
			runner_send_cuda_error(r, 0, 0, stream_err,
					       "creating a stream");
	}
	return stream_err != cudaSuccess ? -1 : 0;
}

int main(void)
{
	struct runner r;
	const struct runner_entry *e;

	crashlog_install();
	memset(&r, 0, sizeof(r));
	r.emu = wgemu_record_begin != NULL;
	/* the grader counts traffic in its own replays, never from here */
	if (wgemu_count)
		wgemu_count(0);
	/* hello first: the grader sends the job (and its seed) only now,
	 * after every global constructor of the submission has run */
	send_hello(&r);
	if (read_job(&r.job))
		runner_die_internal("no valid job on standard input");
	r.ex = exercise_find(r.job.exercise);
	if (!r.ex)
		runner_die_internal("unknown exercise in the job");
	for (e = runner_entries; e->name; e++)
		if (!strcmp(e->name, r.ex->name))
			break;
	if (!e->name)
		runner_die_internal("the exercise is not linked into this "
				    "runner");
	r.student = (launcher_fn)e->student;
	r.reference = (launcher_fn)e->reference;
	runner_stream_start(&r);
	if (r.job.phases & PROTO_PHASE_CORRECTNESS)
		if (runner_phase_correctness(&r))
			return 0;
	if (runner_stream_wait(&r))
		return 0;
	if ((r.job.phases & PROTO_PHASE_PERF) && !r.emu)
		phase_perf(&r);
	/* On a GPU the grader holds the device for this process until it
	 * is gone: the driver tears the context down with the process, so
	 * the CUDA runtime's own teardown at exit is skipped (compute-
	 * sanitizer's runs excepted: it reports at exit).  What the
	 * submission printed is flushed first. */
	if (!r.emu && !(r.job.flags & PROTO_JOB_BARE_OUTPUT)) {
		fflush(NULL);
		_exit(0);
	}
	return 0;
}
