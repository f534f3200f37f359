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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exercise.h"
#include "launches.h"
#include "protocol.h"
#include "runner_entry.h"
#include "runner_kernels.h"
#include "emu/wgemu.h"

#define OUT_FD 3
#define GUARD_ELEMS PROTO_GUARD_ELEMS
#define POISON_BYTE PROTO_POISON_BYTE
#define GUARD_BYTE PROTO_GUARD_BYTE
#define MAX_ERROR_FRAMES 32
#define CHUNK_BYTES (32u << 20)

/* Present only when linked against the emulator. */
#pragma weak wgemu_launch_count
#pragma weak wgemu_launch_get
#pragma weak wgemu_launches_reset
#pragma weak wgemu_last_fault

/* Present only when the runner kernels are linked (GPU build). */
#pragma weak wgrun_fill
#pragma weak wgrun_compare
#pragma weak wgrun_empty

typedef void (*launcher_fn)(void *out, const void *in, int m, int n,
			    cudaStream_t stream);

struct runner {
	struct proto_job job;
	const struct exercise *ex;
	launcher_fn student;
	launcher_fn reference;
	cudaStream_t stream;
	int emu;
	int errors_sent;
};

static int send(struct proto_buf *b)
{
	int rc = 0;

	if (b->oom || proto_write_all(OUT_FD, b->data, b->len))
		rc = -1;
	proto_buf_release(b);
	return rc;
}

static void die_internal(const char *msg)
{
	struct proto_buf b;
	struct proto_error e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "runner");
	snprintf(e.message, sizeof(e.message), "%s", msg);
	e.fault_kind = 0;
	e.cuda_code = -1;
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	send(&b);
	fprintf(stderr, "runner: %s\n", msg);
	_exit(3);
}

static int send_cuda_error(struct runner *r, unsigned phase, size_t index,
			   cudaError_t err, const char *where)
{
	struct proto_error e;
	struct proto_buf b;
	char fault[400] = "";

	if (r->errors_sent++ >= MAX_ERROR_FRAMES)
		return 0;
	memset(&e, 0, sizeof(e));
	e.phase = phase;
	e.index = (uint32_t)index;
	e.cuda_code = (int32_t)err;
	snprintf(e.name, sizeof(e.name), "%s", cudaGetErrorName(err));
	if (wgemu_last_fault)
		e.fault_kind = (uint32_t)wgemu_last_fault(fault,
							  sizeof(fault));
	snprintf(e.message, sizeof(e.message), "%s: %s%s%s", where,
		 cudaGetErrorString(err), fault[0] ? ": " : "", fault);
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	return send(&b);
}

static void send_phase(unsigned phase, unsigned count)
{
	struct proto_phase_msg m = { phase, count };
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_phase(&b, &m);
	send(&b);
}

static void send_done(unsigned phase, unsigned completed)
{
	struct proto_done m = { phase, completed };
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_done(&b, &m);
	send(&b);
}

static int read_job(struct proto_job *job)
{
	unsigned char buf[4096];
	size_t len = 0;
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t n;
	int rc = -1;

	for (;;) {
		ssize_t k = read(0, buf + len, sizeof(buf) - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
		if (len == sizeof(buf))
			break;
	}
	proto_decoder_init(&d, sizeof(buf));
	if (proto_decoder_feed(&d, buf, len) == 0 &&
	    proto_decoder_next(&d, &t, &p, &n) == 1 && t == PROTO_JOB &&
	    proto_dec_job(p, n, job) == 0)
		rc = 0;
	proto_decoder_release(&d);
	return rc;
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

/* Run one launcher call with launch recording around it. */
static void call_launcher(struct runner *r, launcher_fn f, void *out,
			  const void *in, struct exercise_shape s,
			  unsigned phase, size_t index, int report)
{
	struct proto_launches l;
	struct proto_buf b;

	launches_begin(r->stream);
	f(out, in, (int)s.m, (int)s.n, r->stream);
	launches_end(&l);
	if (!report)
		return;
	l.phase = phase;
	l.index = (uint32_t)index;
	proto_buf_init(&b);
	proto_enc_launches(&b, &l);
	send(&b);
}

/* After an error, is the context still usable?  Non-sticky errors (a bad
 * launch configuration) clear; a kernel fault poisons the context. */
static int context_alive(void)
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

static int send_shape(size_t index, const unsigned char *region,
		      size_t total, uint64_t input_hash)
{
	size_t off = 0;

	do {
		struct proto_shape m;
		struct proto_buf b;
		size_t len = total - off < CHUNK_BYTES ? total - off :
							  CHUNK_BYTES;

		m.index = (uint32_t)index;
		m.guard_elems = GUARD_ELEMS;
		m.total_bytes = total;
		m.offset = off;
		m.input_hash = input_hash;
		m.data = region + off;
		m.len = len;
		proto_buf_init(&b);
		proto_enc_shape(&b, &m);
		if (send(&b))
			return -1;
		off += len;
	} while (off < total);
	return 0;
}

/*
 * Correctness: every shape of the spec.  Inputs for all shapes are
 * generated on the host and copied in one go into one allocation; outputs
 * live in one allocation too, each shape's region poisoned and framed by
 * guard bands.  Each shape is launched and synchronised on its own so that
 * an error is pinned to its shape, then its region is copied back (the
 * copy-back is per shape because a later fault can lose the context).
 */
static int phase_correctness(struct runner *r)
{
	const struct exercise *ex = r->ex;
	size_t nshapes = exercise_nshapes(ex);
	size_t es = ex->elem_size;
	size_t *in_off = NULL, *out_off = NULL;
	unsigned char *skip = NULL;
	size_t in_total = 0, out_total = 0, max_region = 0, done = 0;
	unsigned char *h_in = NULL, *h_region = NULL, *h_check = NULL;
	unsigned char *d_in = NULL, *d_out = NULL;
	cudaError_t err;
	int rc = -1;

	in_off = calloc(nshapes, sizeof(*in_off));
	out_off = calloc(nshapes, sizeof(*out_off));
	skip = calloc(nshapes, 1);
	if (!in_off || !out_off || !skip)
		die_internal("out of host memory for the shape table");
	for (size_t i = 0; i < nshapes; i++) {
		unsigned flags;
		struct exercise_shape s = exercise_shape_at(ex, i, &flags);
		size_t elems = exercise_shape_elems(s);
		size_t region = (elems + 2 * GUARD_ELEMS) * es;

		if ((flags & EXERCISE_EDGE_GPU_ONLY) &&
		    (r->job.flags & PROTO_JOB_SKIP_GPU_ONLY)) {
			skip[i] = 1;
			elems = 0;
			region = 0;
		}
		in_off[i] = in_total;
		out_off[i] = out_total;
		/* keep every input 256-byte aligned, as cudaMalloc's are */
		in_total += (elems * es + 255) & ~(size_t)255;
		out_total += (region + 255) & ~(size_t)255;
		if (region > max_region)
			max_region = region;
	}
	h_in = malloc(in_total ? in_total : 1);
	h_region = malloc(max_region);
	h_check = malloc(in_total ? in_total : 1);
	if (!h_in || !h_region || !h_check)
		die_internal("out of host memory for the correctness inputs");
	for (size_t i = 0; i < nshapes; i++) {
		struct exercise_shape s = exercise_shape_at(ex, i, NULL);

		if (!skip[i])
			ex->generate(r->job.seed, i, s, h_in + in_off[i]);
	}

	send_phase(PROTO_PHASE_CORRECTNESS, (unsigned)nshapes);
	err = cudaMalloc((void **)&d_in, in_total ? in_total : 1);
	if (err == cudaSuccess)
		err = cudaMalloc((void **)&d_out, out_total ? out_total : 1);
	/* every copy goes on the job's stream and is waited for: the
	 * stream does not synchronise with the legacy default stream, and a
	 * pageable cudaMemcpy may return before its data has landed */
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(d_in, h_in, in_total,
				      cudaMemcpyHostToDevice, r->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(r->stream);
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS, 0, err,
				"setting up the correctness buffers");
		goto out;
	}
	for (size_t i = 0; i < nshapes; i++) {
		struct exercise_shape s = exercise_shape_at(ex, i, NULL);
		size_t elems = exercise_shape_elems(s);
		size_t region = (elems + 2 * GUARD_ELEMS) * es;
		unsigned char *d_region = d_out + out_off[i];

		if (skip[i])
			continue; /* GPU-only shape on the emulator */
		/* a fresh poisoned, guarded region: whatever an earlier
		 * shape scribbled here is gone */
		memset(h_region, GUARD_BYTE, GUARD_ELEMS * es);
		memset(h_region + GUARD_ELEMS * es, POISON_BYTE, elems * es);
		memset(h_region + (GUARD_ELEMS + elems) * es, GUARD_BYTE,
		       GUARD_ELEMS * es);
		err = cudaMemcpyAsync(d_region, h_region, region,
				      cudaMemcpyHostToDevice, r->stream);
		if (err == cudaSuccess)
			err = cudaStreamSynchronize(r->stream);
		if (err != cudaSuccess) {
			send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
					"poisoning the output");
			goto out;
		}
		call_launcher(r, r->student, d_region + GUARD_ELEMS * es,
			      d_in + in_off[i], s, PROTO_PHASE_CORRECTNESS, i,
			      1);
		err = cudaGetLastError();
		if (err == cudaSuccess)
			err = cudaDeviceSynchronize();
		if (err != cudaSuccess) {
			send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
					"running the launcher");
			if (!context_alive())
				goto out; /* sticky: the phase ends here */
		}
		err = cudaMemcpy(h_region, d_region, region,
				 cudaMemcpyDeviceToHost);
		if (err == cudaSuccess)
			err = cudaMemcpy(h_check + in_off[i], d_in + in_off[i],
					 elems * es, cudaMemcpyDeviceToHost);
		if (err != cudaSuccess) {
			send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
					"copying the output back");
			goto out;
		}
		if (send_shape(i, h_region, region,
			       exercise_hash(h_check + in_off[i], elems * es)))
			goto out;
		done++;
	}
	send_done(PROTO_PHASE_CORRECTNESS, (unsigned)done);
	rc = 0;
out:
	if (d_in)
		cudaFree(d_in);
	if (d_out)
		cudaFree(d_out);
	free(h_in);
	free(h_region);
	free(h_check);
	free(in_off);
	free(out_off);
	free(skip);
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
	call_launcher(r, r->reference, out, in, r->ex->perf_shape, 0, 0, 0);
	err = cudaEventRecord(e1, r->stream);
	if (err == cudaSuccess)
		err = cudaEventSynchronize(e1);
	if (err == cudaSuccess)
		err = cudaEventElapsedTime(&ms, e0, e1);
	*ms_out = ms;
	return err;
}

#define PERF_CHECK(expr, what) do { \
		err = (expr); \
		if (err != cudaSuccess) { \
			send_cuda_error(r, PROTO_PHASE_PERF, rep, err, what); \
			goto out; \
		} \
	} while (0)

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
	const struct exercise *ex = r->ex;
	struct exercise_shape s = ex->perf_shape;
	size_t elems = exercise_shape_elems(s);
	size_t bytes = elems * ex->elem_size;
	struct proto_perf *pm = NULL;
	unsigned char *d_in = NULL, *d_ref = NULL, *d_stu = NULL;
	unsigned char *d_flush = NULL;
	unsigned long long *d_count = NULL, h_count[2];
	cudaEvent_t e0 = NULL, e1 = NULL;
	size_t flush_bytes;
	unsigned reps = r->job.perf_reps ? r->job.perf_reps : 30;
	double *tmp = NULL, *host = NULL;
	struct cudaDeviceProp prop;
	struct proto_buf b;
	cudaError_t err;
	size_t rep = 0;
	float ms;
	int rc = -1;

	if (!wgrun_fill || !wgrun_compare || !wgrun_empty)
		die_internal("performance phase without the runner kernels");
	if (reps > PROTO_MAX_REPS)
		reps = PROTO_MAX_REPS;
	pm = calloc(1, sizeof(*pm));
	tmp = calloc(reps + 32, sizeof(*tmp));
	host = calloc(reps, sizeof(*host));
	if (!pm || !tmp || !host)
		die_internal("out of host memory for timings");
	send_phase(PROTO_PHASE_PERF, reps);
	PERF_CHECK(cudaGetDeviceProperties(&prop, 0), "device properties");
	flush_bytes = (size_t)prop.l2CacheSize * 2;
	PERF_CHECK(cudaMalloc((void **)&d_in, bytes), "allocating input");
	PERF_CHECK(cudaMalloc((void **)&d_ref, bytes), "allocating output");
	PERF_CHECK(cudaMalloc((void **)&d_stu, bytes), "allocating output");
	PERF_CHECK(cudaMalloc((void **)&d_flush, flush_bytes),
		   "allocating the L2 flush buffer");
	PERF_CHECK(cudaMalloc((void **)&d_count, 2 * sizeof(*d_count)),
		   "allocating a counter");
	PERF_CHECK(cudaEventCreate(&e0), "creating an event");
	PERF_CHECK(cudaEventCreate(&e1), "creating an event");

	/* the physical ceiling: a device-to-device copy of the same size */
	for (unsigned i = 0; i < 12; i++) {
		PERF_CHECK(cudaMemsetAsync(d_flush, i, flush_bytes, r->stream),
			   "flushing L2");
		PERF_CHECK(cudaEventRecord(e0, r->stream), "event");
		PERF_CHECK(cudaMemcpyAsync(d_ref, d_in, bytes,
					   cudaMemcpyDeviceToDevice, r->stream),
			   "timing a device copy");
		PERF_CHECK(cudaEventRecord(e1, r->stream), "event");
		PERF_CHECK(cudaEventSynchronize(e1), "event");
		PERF_CHECK(cudaEventElapsedTime(&ms, e0, e1), "event");
		if (i >= 2)
			tmp[i - 2] = ms;
	}
	pm->copy_gbps = 2.0 * (double)bytes / (median(tmp, 10) * 1e6);
	for (unsigned i = 0; i < 22; i++) {
		PERF_CHECK(cudaEventRecord(e0, r->stream), "event");
		PERF_CHECK(wgrun_empty(r->stream), "empty launch");
		PERF_CHECK(cudaEventRecord(e1, r->stream), "event");
		PERF_CHECK(cudaEventSynchronize(e1), "event");
		PERF_CHECK(cudaEventElapsedTime(&ms, e0, e1), "event");
		if (i >= 2)
			tmp[i - 2] = ms;
	}
	pm->empty_launch_ms = median(tmp, 20);
	pm->bytes_moved = 2 * (uint64_t)bytes;

	/* warm-up: module load and first-touch stay out of the numbers */
	for (int i = 0; i < 2; i++) {
		if (r->reference)
			call_launcher(r, r->reference, d_ref, d_in, s, 0, 0,
				      0);
		call_launcher(r, r->student, d_stu, d_in, s, 0, 0, 0);
		PERF_CHECK(cudaDeviceSynchronize(), "warm-up run");
	}

	for (rep = 0; rep < reps; rep++) {
		double t0;

		PERF_CHECK(wgrun_fill((uint32_t *)d_in, elems,
				      r->job.seed + 0x1000 + rep,
				      ex->elem_is_float, r->stream),
			   "generating input");
		/* reference (absent in a student kit: the student is timed
		 * alone and nothing is compared) */
		pm->reference_ms[rep] = NAN;
		if (r->reference) {
			err = time_reference(r, d_ref, d_in, bytes, d_flush,
					     flush_bytes, (int)rep, e0, e1,
					     &pm->reference_ms[rep]);
			if (err != cudaSuccess) {
				send_cuda_error(r, PROTO_PHASE_PERF, rep, err,
						"timing the reference");
				goto out;
			}
		}
		/* student */
		PERF_CHECK(cudaMemsetAsync(d_stu, POISON_BYTE, bytes,
					   r->stream), "poisoning");
		PERF_CHECK(cudaMemsetAsync(d_flush, (int)rep + 1, flush_bytes,
					   r->stream), "flushing L2");
		PERF_CHECK(cudaMemsetAsync(d_count, 0, 2 * sizeof(*d_count),
					   r->stream), "zeroing");
		PERF_CHECK(cudaStreamSynchronize(r->stream), "setting up");
		t0 = now_ms();
		PERF_CHECK(cudaEventRecord(e0, r->stream), "event");
		call_launcher(r, r->student, d_stu, d_in, s, PROTO_PHASE_PERF,
			      rep, rep == 0);
		PERF_CHECK(cudaGetLastError(), "student launch");
		PERF_CHECK(cudaEventRecord(e1, r->stream), "event");
		/* compared as soon as the stream says it is done */
		if (r->reference)
			PERF_CHECK(wgrun_compare((uint32_t *)d_stu,
						 (uint32_t *)d_ref, elems,
						 d_count, r->stream),
				   "comparing");
		PERF_CHECK(cudaEventSynchronize(e1), "student run");
		PERF_CHECK(cudaDeviceSynchronize(), "student run");
		host[rep] = now_ms() - t0;
		PERF_CHECK(cudaEventElapsedTime(&ms, e0, e1), "event");
		pm->student_ms[rep] = ms;
		/* and again once everything on the device has finished */
		if (r->reference)
			PERF_CHECK(wgrun_compare((uint32_t *)d_stu,
						 (uint32_t *)d_ref, elems,
						 d_count + 1, r->stream),
				   "comparing");
		PERF_CHECK(cudaMemcpy(h_count, d_count, sizeof(h_count),
				      cudaMemcpyDeviceToHost), "reading");
		if (h_count[1])
			pm->mismatched_runs++;
		else if (h_count[0])
			pm->outside_stream_runs++;
	}
	pm->reps = reps;
	pm->host_sync_ms = median(host, reps);
	proto_buf_init(&b);
	proto_enc_perf(&b, pm);
	send(&b);
	send_done(PROTO_PHASE_PERF, reps);
	rc = 0;
out:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	cudaFree(d_in);
	cudaFree(d_ref);
	cudaFree(d_stu);
	cudaFree(d_flush);
	cudaFree(d_count);
	free(pm);
	free(tmp);
	free(host);
	return rc;
}

/* Counters (emulator only): one call of each launcher at the counter
 * shape, with the emulator's traffic counts of every launch it made. */
static int counters_of(struct runner *r, launcher_fn f, unsigned who,
		       const unsigned char *d_in, unsigned char *d_out)
{
	struct exercise_shape s = r->ex->counter_shape;
	struct proto_counters *m = calloc(1, sizeof(*m));
	struct proto_buf b;
	cudaError_t err;
	size_t n;

	if (!m)
		die_internal("out of host memory for counters");
	wgemu_launches_reset();
	call_launcher(r, f, d_out, d_in, s, PROTO_PHASE_COUNTERS, who, 0);
	err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_COUNTERS, who, err,
				who ? "reference at the counter shape" :
				      "launcher at the counter shape");
		free(m);
		return -1;
	}
	n = wgemu_launch_count();
	m->who = who;
	m->m = (uint64_t)s.m;
	m->n = (uint64_t)s.n;
	m->total = (uint32_t)n;
	for (size_t i = 0; i < n && i < PROTO_MAX_LAUNCHES; i++) {
		struct wgemu_launch l;
		struct proto_counter_launch *c = &m->launch[m->count];

		if (wgemu_launch_get(i, &l))
			break;
		snprintf(c->kernel, sizeof(c->kernel), "%s", l.kernel);
		for (int k = 0; k < 3; k++) {
			c->grid[k] = l.grid[k];
			c->block[k] = l.block[k];
		}
		c->dynamic_shared_bytes = l.dynamic_shared_bytes;
		c->c[0] = l.counters.global_load_requests;
		c->c[1] = l.counters.global_load_sectors;
		c->c[2] = l.counters.global_store_requests;
		c->c[3] = l.counters.global_store_sectors;
		c->c[4] = l.counters.shared_load_wavefronts;
		c->c[5] = l.counters.shared_load_bank_conflicts;
		c->c[6] = l.counters.shared_store_wavefronts;
		c->c[7] = l.counters.shared_store_bank_conflicts;
		c->c[8] = l.counters.lane_instructions;
		m->count++;
	}
	proto_buf_init(&b);
	proto_enc_counters(&b, m);
	free(m);
	return send(&b);
}

static int phase_counters(struct runner *r)
{
	struct exercise_shape s = r->ex->counter_shape;
	size_t bytes = exercise_shape_elems(s) * r->ex->elem_size;
	unsigned char *h_in = malloc(bytes), *d_in = NULL, *d_out = NULL;
	cudaError_t err;
	int rc = -1;

	if (!wgemu_launch_count)
		die_internal("counters phase without the emulator runtime");
	if (!h_in)
		die_internal("out of host memory");
	send_phase(PROTO_PHASE_COUNTERS, 2);
	r->ex->generate(r->job.seed, (size_t)-1, s, h_in);
	err = cudaMalloc((void **)&d_in, bytes);
	if (err == cudaSuccess)
		err = cudaMalloc((void **)&d_out, bytes);
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice,
				      r->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(r->stream);
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_COUNTERS, 0, err,
				"setting up the counter run");
		goto out;
	}
	/* the reference first: a student fault leaves the context dead */
	if (r->reference && counters_of(r, r->reference, 1, d_in, d_out))
		goto out;
	if (counters_of(r, r->student, 0, d_in, d_out))
		goto out;
	send_done(PROTO_PHASE_COUNTERS, 2);
	rc = 0;
out:
	cudaFree(d_in);
	cudaFree(d_out);
	free(h_in);
	return rc;
}

int main(void)
{
	struct runner r;
	const struct runner_entry *e;
	cudaError_t err;

	memset(&r, 0, sizeof(r));
	r.emu = wgemu_launch_count != NULL;
	/* hello first: the grader sends the job (and its seed) only now,
	 * after every global constructor of the submission has run */
	send_hello(&r);
	if (read_job(&r.job))
		die_internal("no valid job on standard input");
	r.ex = exercise_find(r.job.exercise);
	if (!r.ex)
		die_internal("unknown exercise in the job");
	for (e = runner_entries; e->name; e++)
		if (!strcmp(e->name, r.ex->name))
			break;
	if (!e->name)
		die_internal("the exercise is not linked into this runner");
	r.student = (launcher_fn)e->student;
	r.reference = (launcher_fn)e->reference;
	err = cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking);
	if (err != cudaSuccess) {
		send_cuda_error(&r, 0, 0, err, "creating a stream");
		return 0;
	}
	if (r.job.phases & PROTO_PHASE_CORRECTNESS)
		if (phase_correctness(&r))
			return 0;
	if ((r.job.phases & PROTO_PHASE_PERF) && !r.emu)
		if (phase_perf(&r))
			return 0;
	if ((r.job.phases & PROTO_PHASE_COUNTERS) && r.emu)
		phase_counters(&r);
	return 0;
}
