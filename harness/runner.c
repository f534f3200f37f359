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

#include "bigbuf.h"
#include "crashlog.h"
#include "exercise.h"
#include "hostbuf.h"
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
#define MAX_JOB_BYTES 4096

/* Present only when linked against the emulator. */
#pragma weak wgemu_last_fault
#pragma weak wgemu_record_begin
#pragma weak wgemu_record_end
#pragma weak wgemu_dry
#pragma weak wgemu_watch_output

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

/* Read exactly n bytes of standard input; 0, or -1 at its end. */
static int read_exactly(unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = read(0, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* One frame of type `want` from standard input (the grader keeps it
 * open: the keys of timed repetitions come later), its payload into
 * buf; the payload's length, or -1. */
static long read_frame(enum proto_type want, unsigned char *buf, size_t cap)
{
	unsigned char h[PROTO_HEADER_SIZE];
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t len, n;
	long rc = -1;

	if (read_exactly(h, sizeof(h)))
		return -1;
	len = (size_t)h[8] | (size_t)h[9] << 8 | (size_t)h[10] << 16 |
	      (size_t)h[11] << 24;
	if (len > cap || read_exactly(buf, len))
		return -1;
	proto_decoder_init(&d, cap);
	if (proto_decoder_feed(&d, h, sizeof(h)) == 0 &&
	    proto_decoder_feed(&d, buf, len) == 0 &&
	    proto_decoder_next(&d, &t, &p, &n) == 1 && t == want) {
		memmove(buf, p, n);
		rc = (long)n;
	}
	proto_decoder_release(&d);
	return rc;
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

/* Send the launch record of the measured call at shape index, in
 * chunks; nothing when there is none (a GPU runner). */
static int send_record(size_t index)
{
	unsigned char *rec = NULL;
	size_t len = 0, off = 0;
	int rc = 0;

	if (!wgemu_record_end || wgemu_record_end(&rec, &len))
		return 0;
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

/* The correctness buffers: every shape's input packed in one
 * allocation, every shape's guarded output region in another. */
struct corr_plan {
	size_t nshapes;
	size_t *order;          /* call i runs shape order[i] */
	size_t *in_off, *out_off;
	unsigned char *skip;    /* not run by this runner */
	size_t in_total, out_total, max_region, max_input;
};

static void plan_release(struct corr_plan *pl)
{
	free(pl->order);
	free(pl->in_off);
	free(pl->out_off);
	free(pl->skip);
}

static void plan_shapes(struct runner *r, struct corr_plan *pl)
{
	const struct exercise *ex = r->ex;
	size_t es = ex->elem_size;

	memset(pl, 0, sizeof(*pl));
	pl->nshapes = exercise_nshapes_all(ex);
	pl->order = calloc(pl->nshapes, sizeof(*pl->order));
	pl->in_off = calloc(pl->nshapes, sizeof(*pl->in_off));
	pl->out_off = calloc(pl->nshapes, sizeof(*pl->out_off));
	pl->skip = calloc(pl->nshapes, 1);
	if (!pl->order || !pl->in_off || !pl->out_off || !pl->skip)
		die_internal("out of host memory for the shape table");
	exercise_call_order(ex, r->job.seed, pl->order);
	for (size_t i = 0; i < pl->nshapes; i++) {
		unsigned flags;
		struct exercise_shape s = exercise_shape_of(ex, r->job.seed, i,
							    &flags);
		size_t elems = exercise_shape_elems(s);
		size_t region = (elems + 2 * GUARD_ELEMS) * es;

		if (((flags & EXERCISE_EDGE_GPU_ONLY) &&
		     (r->job.flags & PROTO_JOB_SKIP_GPU_ONLY)) ||
		    (!(flags & EXERCISE_SHAPE_MEASURED) &&
		     (r->job.flags & PROTO_JOB_MEASURED_ONLY)) ||
		    ((r->job.flags & PROTO_JOB_ONE_SHAPE) &&
		     i != r->job.shape)) {
			pl->skip[i] = 1;
			elems = 0;
			region = 0;
		}
		pl->in_off[i] = pl->in_total;
		pl->out_off[i] = pl->out_total;
		/* keep every input 256-byte aligned, as cudaMalloc's are */
		pl->in_total += (elems * es + 255) & ~(size_t)255;
		pl->out_total += (region + 255) & ~(size_t)255;
		if (region > pl->max_region)
			pl->max_region = region;
		if (elems * es > pl->max_input)
			pl->max_input = elems * es;
	}
}

/* A call for compute-sanitizer's eyes (PROTO_JOB_BARE_OUTPUT): the
 * output alone in an allocation of its size.  0; 1 the context is lost. */
static int run_bare(struct runner *r, size_t i, unsigned char *d_in)
{
	struct exercise_shape s = exercise_shape_of(r->ex, r->job.seed, i,
						    NULL);
	size_t bytes = exercise_shape_elems(s) * r->ex->elem_size;
	void *out = NULL;
	cudaError_t err = cudaMalloc(&out, bytes ? bytes : 1);

	if (err == cudaSuccess)
		err = cudaMemset(out, POISON_BYTE, bytes);
	if (err == cudaSuccess) {
		call_launcher(r, r->student, out, d_in, s,
			      PROTO_PHASE_CORRECTNESS, i, 0);
		err = cudaGetLastError();
		if (err == cudaSuccess)
			err = cudaDeviceSynchronize();
	}
	if (err != cudaSuccess)
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				"running the launcher");
	cudaFree(out);
	return context_alive() ? 0 : 1;
}

/* Poison an output region of elems elements and frame it with guard
 * bands, on the device, on the runner's stream.  Whoever enqueues it
 * waits for the stream before the launcher is called: the launcher may
 * use any stream, so the region must be ready by then. */
static cudaError_t poison_region(struct runner *r, unsigned char *d_region,
				 size_t elems)
{
	size_t es = r->ex->elem_size, guard = GUARD_ELEMS * es;
	cudaError_t err;

	err = cudaMemsetAsync(d_region, GUARD_BYTE, guard, r->stream);
	if (err == cudaSuccess)
		err = cudaMemsetAsync(d_region + guard, POISON_BYTE,
				      elems * es, r->stream);
	if (err == cudaSuccess)
		err = cudaMemsetAsync(d_region + guard + elems * es,
				      GUARD_BYTE, guard, r->stream);
	return err;
}

/* The shape called after the one running, whose region its copy-back
 * poisons (region NULL: none); ready tells the caller it was done. */
struct next_shape {
	unsigned char *region;
	size_t elems;
	int ready;
};

/* The region and the input, as the launcher left them, into host
 * memory (pinned where it could be had: the copies are then DMA), and
 * the next shape's region poisoned behind them: one wait for both.  The
 * launcher has finished (the whole device was waited for), so nothing
 * it started can write the next region after its poison. */
static cudaError_t copy_back(struct runner *r, unsigned char *h_region,
			     const unsigned char *d_region, size_t region,
			     unsigned char *h_check, const unsigned char *d_in,
			     size_t in_bytes, struct next_shape *next)
{
	cudaError_t err;

	err = cudaMemcpyAsync(h_region, d_region, region,
			      cudaMemcpyDeviceToHost, r->stream);
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(h_check, d_in, in_bytes,
				      cudaMemcpyDeviceToHost, r->stream);
	if (err == cudaSuccess && next->region)
		err = poison_region(r, next->region, next->elems);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(r->stream);
	next->ready = err == cudaSuccess && next->region;
	return err;
}

/* One correctness call: a fresh poisoned, guarded region (poisoned
 * already when `poisoned`), the launcher (with a launch record around a
 * measured call), the region and the input's hash back to the grader.
 * Two waits: for the whole device after the launcher (whatever streams
 * it used), and for the copies and the next shape's poison; a third for
 * the poison of a region not poisoned already.  0; 1 the context is
 * lost (the phase ends); -1 the grader cannot be written to. */
static int run_shape(struct runner *r, size_t i, unsigned char *d_in,
		     unsigned char *d_region, int poisoned,
		     struct next_shape *next, struct hostbuf *h_regions,
		     struct hostbuf *h_inputs)
{
	const struct exercise *ex = r->ex;
	unsigned flags;
	struct exercise_shape s = exercise_shape_of(ex, r->job.seed, i,
						    &flags);
	size_t elems = exercise_shape_elems(s), es = ex->elem_size;
	size_t region = (elems + 2 * GUARD_ELEMS) * es;
	int measured = (flags & EXERCISE_SHAPE_MEASURED) &&
		       wgemu_record_begin;
	unsigned char *h_region = hostbuf_get(h_regions, region);
	unsigned char *h_check = hostbuf_get(h_inputs, elems * es);
	cudaError_t err;

	next->ready = 0;
	if (r->job.flags & PROTO_JOB_BARE_OUTPUT)
		return run_bare(r, i, d_in);
	err = cudaSuccess;
	if (!poisoned) {
		err = poison_region(r, d_region, elems);
		if (err == cudaSuccess)
			err = cudaStreamSynchronize(r->stream);
	}
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				"poisoning the output");
		return 1;
	}
	if (wgemu_watch_output)
		wgemu_watch_output(d_region + GUARD_ELEMS * es, elems * es,
				   GUARD_ELEMS * es, es);
	if (measured)
		wgemu_record_begin(d_in, elems * es, d_region, region);
	call_launcher(r, r->student, d_region + GUARD_ELEMS * es, d_in, s,
		      PROTO_PHASE_CORRECTNESS, i, 1);
	if (measured && send_record(i))
		return -1;
	err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				"running the launcher");
		if (!context_alive())
			return 1; /* sticky: the phase ends here */
	}
	err = copy_back(r, h_region, d_region, region, h_check, d_in,
			elems * es, next);
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				"copying the output back");
		return 1;
	}
	return send_shape(i, h_region, region, exercise_hash(h_check,
							     elems * es));
}

/* A shape this runner does not run (a GPU-only shape on the emulator, or
 * an unmeasured one in a runner that records the measured calls): the
 * launcher is still called, dry, so that it sees the same sequence of
 * calls on every backend -- a launcher that counts its calls cannot
 * tell which ones are measured.  Its errors are not reported. */
static void dry_shape(struct runner *r, size_t i, unsigned char *d_in,
		      unsigned char *d_out)
{
	struct exercise_shape s = exercise_shape_of(r->ex, r->job.seed, i,
						    NULL);

	if (!wgemu_dry)
		return;
	wgemu_dry(1);
	call_launcher(r, r->student, d_out, d_in, s,
		      PROTO_PHASE_CORRECTNESS, i, 0);
	cudaStreamSynchronize(r->stream);
	cudaGetLastError();
	wgemu_dry(0);
}

/*
 * The performance call on the emulator: the launcher once more at the
 * performance shape after every correctness shape, as the GPU's timed
 * runs call it after them, with nothing run
 * and nothing allocated for real (wgemu_dry(2)); its record goes to the
 * grader, whose replay predicts its time (emu/perf.h).
 */
static void record_perf_call(struct runner *r)
{
	struct exercise_shape s = r->ex->perf_shape;
	size_t bytes = exercise_shape_elems(s) * r->ex->elem_size;
	unsigned char *d_in = NULL, *d_out = NULL;

	if (!wgemu_dry || !wgemu_record_begin)
		return;
	wgemu_dry(2);
	if (cudaMalloc((void **)&d_in, bytes) == cudaSuccess &&
	    cudaMalloc((void **)&d_out, bytes) == cudaSuccess) {
		wgemu_record_begin(d_in, bytes, d_out, bytes);
		call_launcher(r, r->student, d_out, d_in, s, PROTO_PHASE_PERF,
			      0, 0);
		cudaStreamSynchronize(r->stream);
		cudaGetLastError();
		send_record(exercise_nshapes_all(r->ex));
	}
	wgemu_dry(0);
	cudaFree(d_in);
	cudaFree(d_out);
}

/* The next shape after call c that runs, into *next: its region is
 * poisoned by this call's copy-back.  next->ready is left alone. */
static void plan_next(struct runner *r,
				    const struct corr_plan *pl, size_t c,
				    unsigned char *d_out,
				    struct next_shape *next)
{
	next->region = NULL;
	for (size_t k = c + 1; k < pl->nshapes; k++) {
		size_t j = pl->order[k];

		if (pl->skip[j])
			continue;
		next->region = d_out + pl->out_off[j];
		next->elems = exercise_shape_elems(exercise_shape_of(
			r->ex, r->job.seed, j, NULL));
		break;
	}
}

/*
 * Small shapes on a GPU, a batch at a time.  Every wait for the device
 * is a round trip, and where other processes use the GPU too (the other
 * exercises of a grade, the other grades of a batch) each one waits for
 * the time slices of their contexts: 1.1 ms a shape instead of 26 us
 * with four processes (tests/gpu/sweep-contention.sh).  So up to
 * BATCH_SHAPES consecutive calls whose regions are small share three
 * waits: for their regions' poison; for the whole device after all their
 * launchers; then nothing more, as each call's region and input were
 * copied back behind it.  Behind each call, on the legacy default
 * stream (after the runner's stream's work, through an event, and after
 * every blocking stream's): its copies into pinned memory, then a flag
 * set in pinned memory.  When a kernel faults, the context is lost but
 * the flags say which calls completed: their results are sent, and the
 * fault is pinned to the first call whose flag is unset -- the same
 * shape the one-at-a-time path names.
 */
#define BATCH_SHAPES 64
#define BATCH_REGION_MAX (64 * 1024)   /* bytes of a region in a batch */

struct batch {
	size_t n, call[BATCH_SHAPES];
	cudaError_t launch_err[BATCH_SHAPES];
	size_t host_off[BATCH_SHAPES];
	unsigned char *host;            /* pinned: regions and inputs */
	volatile uint32_t *done;        /* pinned: set behind each call */
	uint32_t *d_one;                /* a device word holding 1 */
	cudaEvent_t ev;
};

static int batch_init(struct batch *bt)
{
	const uint32_t one = 1;

	memset(bt, 0, sizeof(*bt));
	if (cudaMallocHost((void **)&bt->host, BATCH_SHAPES * 2 *
			   (size_t)BATCH_REGION_MAX) != cudaSuccess ||
	    cudaMallocHost((void **)&bt->done, BATCH_SHAPES *
			   sizeof(uint32_t)) != cudaSuccess ||
	    cudaMalloc((void **)&bt->d_one, sizeof(one)) != cudaSuccess ||
	    cudaMemcpy(bt->d_one, &one, sizeof(one),
		       cudaMemcpyHostToDevice) != cudaSuccess ||
	    cudaEventCreateWithFlags(&bt->ev, cudaEventDisableTiming) !=
	    cudaSuccess)
		return -1;
	return 0;
}

static void batch_release(struct batch *bt)
{
	if (bt->host)
		cudaFreeHost(bt->host);
	if (bt->done)
		cudaFreeHost((void *)bt->done);
	if (bt->d_one)
		cudaFree(bt->d_one);
	if (bt->ev)
		cudaEventDestroy(bt->ev);
	memset(bt, 0, sizeof(*bt));
}

/* Does call c of the plan go in a batch?  Small regions on a GPU, in a
 * sweep that sends every output (not compute-sanitizer's bare one). */
static int batchable(const struct runner *r, const struct corr_plan *pl,
		     size_t c, const struct batch *bt)
{
	size_t i = pl->order[c];
	struct exercise_shape s = exercise_shape_of(r->ex, r->job.seed, i,
						    NULL);
	size_t in = exercise_shape_elems(s) * r->ex->elem_size;

	return bt->host && !r->emu && !pl->skip[i] &&
	       !(r->job.flags & PROTO_JOB_BARE_OUTPUT) &&
	       in + 2 * GUARD_ELEMS * r->ex->elem_size <= BATCH_REGION_MAX;
}

/* The calls of bt behind one another, each followed by its copies back
 * and its flag; an error the runtime gives at a call is kept for it. */
static void batch_launch(struct runner *r, const struct corr_plan *pl,
			 struct batch *bt, unsigned char *d_in,
			 unsigned char *d_out)
{
	size_t es = r->ex->elem_size, g = GUARD_ELEMS * es;

	for (size_t k = 0; k < bt->n; k++) {
		size_t i = pl->order[bt->call[k]];
		struct exercise_shape s = exercise_shape_of(r->ex,
							    r->job.seed, i,
							    NULL);
		size_t in = exercise_shape_elems(s) * es;
		unsigned char *h = bt->host + bt->host_off[k];

		call_launcher(r, r->student, d_out + pl->out_off[i] + g,
			      d_in + pl->in_off[i], s,
			      PROTO_PHASE_CORRECTNESS, i, 1);
		bt->launch_err[k] = cudaGetLastError();
		cudaEventRecord(bt->ev, r->stream);
		cudaStreamWaitEvent(cudaStreamLegacy, bt->ev, 0);
		cudaMemcpyAsync(h, d_out + pl->out_off[i], in + 2 * g,
				cudaMemcpyDeviceToHost, cudaStreamLegacy);
		cudaMemcpyAsync(h + in + 2 * g, d_in + pl->in_off[i], in,
				cudaMemcpyDeviceToHost, cudaStreamLegacy);
		cudaMemcpyAsync((void *)&bt->done[k], bt->d_one,
				sizeof(uint32_t), cudaMemcpyDeviceToHost,
				cudaStreamLegacy);
	}
}

/* Run the calls of bt; their results and errors go to the grader in
 * call order.  0; 1 the context is lost (the phase ends); -1 the grader
 * cannot be written to. */
static int run_batch(struct runner *r, const struct corr_plan *pl,
		     struct batch *bt, unsigned char *d_in,
		     unsigned char *d_out)
{
	size_t es = r->ex->elem_size, off = 0, k, upto;
	cudaError_t err = cudaSuccess;

	for (k = 0; k < bt->n; k++) {
		size_t i = pl->order[bt->call[k]];
		size_t in = exercise_shape_elems(exercise_shape_of(
			r->ex, r->job.seed, i, NULL)) * es;

		bt->done[k] = 0;
		bt->host_off[k] = off;
		off += 2 * in + 2 * GUARD_ELEMS * es;
		if (err == cudaSuccess)
			err = poison_region(r, d_out + pl->out_off[i],
					    in / es);
	}
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(r->stream);
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS,
				pl->order[bt->call[0]], err,
				"poisoning the output");
		return 1;
	}
	batch_launch(r, pl, bt, d_in, d_out);
	err = cudaDeviceSynchronize();
	/* the calls whose copies landed; with a fault, the first one whose
	 * did not is where it happened (the last, if every flag is set:
	 * the launcher's own non-blocking stream, ordered after nothing) */
	for (upto = 0; upto < bt->n && bt->done[upto]; upto++)
		;
	if (err != cudaSuccess && upto == bt->n)
		upto = bt->n - 1;
	for (k = 0; k < bt->n; k++) {
		size_t i = pl->order[bt->call[k]];
		size_t in = exercise_shape_elems(exercise_shape_of(
			r->ex, r->job.seed, i, NULL)) * es;
		size_t region = in + 2 * GUARD_ELEMS * es;
		unsigned char *h = bt->host + bt->host_off[k];

		if (err != cudaSuccess && k == upto) {
			send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
					"running the launcher");
			return 1;  /* a fault: the phase ends here */
		}
		if (bt->launch_err[k] != cudaSuccess)
			send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i,
					bt->launch_err[k],
					"running the launcher");
		if (send_shape(i, h, region, exercise_hash(h + region, in)))
			return -1;
	}
	return 0;
}

/*
 * Correctness: every shape of the run, in the seed's call order.  Inputs
 * for all shapes are generated on the host and copied in one go into one
 * allocation; outputs live in one allocation too, each shape's region
 * poisoned and framed by guard bands.  Each shape is launched and
 * synchronised on its own so that an error is pinned to its shape, then
 * its region is copied back (per shape, because a later fault can lose
 * the context) while the next shape's region is poisoned.
 */
static int phase_correctness(struct runner *r)
{
	const struct exercise *ex = r->ex;
	struct next_shape next = { NULL, 0, 0 };
	struct batch bt = { 0 };
	struct corr_plan pl;
	unsigned char *h_in = NULL;
	struct hostbuf h_region, h_check;
	unsigned char *d_in = NULL, *d_out = NULL;
	size_t done = 0;
	cudaError_t err;
	int rc = -1;

	plan_shapes(r, &pl);
	h_in = bigbuf_alloc(pl.in_total);
	if (!h_in || hostbuf_init(&h_region, pl.max_region) ||
	    hostbuf_init(&h_check, pl.max_input))
		die_internal("out of host memory for the correctness inputs");
	for (size_t i = 0; i < pl.nshapes; i++)
		if (!pl.skip[i])
			ex->generate(r->job.seed, i, exercise_shape_of(ex,
				     r->job.seed, i, NULL), h_in + pl.in_off[i]);

	send_phase(PROTO_PHASE_CORRECTNESS, (unsigned)pl.nshapes);
	err = cudaMalloc((void **)&d_in, pl.in_total ? pl.in_total : 1);
	if (err == cudaSuccess)
		err = cudaMalloc((void **)&d_out,
				 pl.out_total ? pl.out_total : 1);
	/* every copy goes on the job's stream and is waited for: the
	 * stream does not synchronise with the legacy default stream, and a
	 * pageable cudaMemcpy may return before its data has landed */
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(d_in, h_in, pl.in_total,
				      cudaMemcpyHostToDevice, r->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(r->stream);
	if (err != cudaSuccess) {
		send_cuda_error(r, PROTO_PHASE_CORRECTNESS, 0, err,
				"setting up the correctness buffers");
		goto out;
	}
	if (!r->emu && batch_init(&bt))
		batch_release(&bt); /* no pinned memory: one at a time */
	for (size_t c = 0; c < pl.nshapes; c++) {
		size_t i = pl.order[c];
		int k, poisoned;

		for (bt.n = 0; c + bt.n < pl.nshapes && bt.n < BATCH_SHAPES &&
		     batchable(r, &pl, c + bt.n, &bt); bt.n++)
			bt.call[bt.n] = c + bt.n;
		if (bt.n > 1) {
			k = run_batch(r, &pl, &bt, d_in, d_out);
			if (k)
				goto out;
			done += bt.n;
			c += bt.n - 1;
			next.ready = 0;
			continue;
		}
		if (pl.skip[i]) {
			dry_shape(r, i, d_in + pl.in_off[i],
				  d_out + pl.out_off[i]);
			continue;
		}
		poisoned = next.ready;
		plan_next(r, &pl, c, d_out, &next);
		k = run_shape(r, i, d_in + pl.in_off[i], d_out + pl.out_off[i],
			      poisoned, &next, &h_region, &h_check);
		if (k)
			goto out;
		done++;
	}
	if ((r->job.flags & PROTO_JOB_PERF_RECORD) && r->emu)
		record_perf_call(r);
	send_done(PROTO_PHASE_CORRECTNESS, (unsigned)done);
	rc = 0;
out:
	if (d_in)
		cudaFree(d_in);
	if (d_out)
		cudaFree(d_out);
	batch_release(&bt);
	bigbuf_free(h_in, pl.in_total);
	hostbuf_release(&h_region);
	hostbuf_release(&h_check);
	plan_release(&pl);
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
		die_internal("cannot ask for a key");
	n = read_frame(PROTO_KEY, buf, sizeof(buf));
	if (n < 0 || proto_dec_key(buf, (size_t)n, PROTO_KEY, &k) ||
	    k.rep != rep)
		die_internal("no key for a timed repetition");
	return k.key;
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
		uint64_t key = timed_input_key((uint32_t)rep);

		PERF_CHECK(wgrun_fill((uint32_t *)d_in, elems, key,
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

int main(void)
{
	struct runner r;
	const struct runner_entry *e;
	cudaError_t err;

	crashlog_install();
	memset(&r, 0, sizeof(r));
	r.emu = wgemu_record_begin != NULL;
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
		phase_perf(&r);
	return 0;
}
