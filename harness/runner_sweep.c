/*
 * The runner's correctness phase (runner.h): every shape of the run, in
 * the seed's call order, each call's guarded output region and input
 * hash back to the grader -- one call at a time, or on a GPU the small
 * shapes a batch at a time -- and on the emulator the launch records of
 * the measured calls and of the performance call.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "bigbuf.h"
#include "exercise.h"
#include "hostbuf.h"
#include "runner.h"
#include "runner_kernels.h"

/* Present only when the runner kernels are linked (GPU build). */
#pragma weak wgrun_digest_blocks

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
		runner_die_internal("out of host memory for the shape table");
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
		/* every input and output as aligned as a cudaMalloc's:
		 * textures need RUNNER_ALIGN (the guard is a multiple) */
		pl->in_total += (elems * es + RUNNER_ALIGN - 1) &
				~(size_t)(RUNNER_ALIGN - 1);
		pl->out_total += (region + RUNNER_ALIGN - 1) &
				 ~(size_t)(RUNNER_ALIGN - 1);
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
		runner_call_launcher(r, r->student, out, d_in, s,
				     PROTO_PHASE_CORRECTNESS, i, 0);
		err = cudaGetLastError();
		if (err == cudaSuccess)
			err = cudaDeviceSynchronize();
	}
	if (err != cudaSuccess)
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				       "running the launcher");
	cudaFree(out);
	return runner_context_alive() ? 0 : 1;
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

/* exercise_digest of the n bytes at d (device memory, 8-byte aligned):
 * the blocks hashed on the device, folded here.  After the stream's
 * queued work; cudaSuccess with *digest, or the error. */
static cudaError_t device_digest(struct runner *r, const unsigned char *d,
				 size_t n, uint64_t *digest)
{
	size_t nb = exercise_digest_blocks(n);
	uint64_t *d_bh = NULL, *bh = calloc(nb ? nb : 1, sizeof(*bh));
	cudaError_t err = bh ? cudaMalloc((void **)&d_bh,
					  (nb ? nb : 1) * sizeof(*d_bh)) :
			       cudaErrorMemoryAllocation;

	if (err == cudaSuccess)
		err = wgrun_digest_blocks(d, n, EXERCISE_DIGEST_BLOCK, d_bh,
					  r->stream);
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(bh, d_bh, nb * sizeof(*bh),
				      cudaMemcpyDeviceToHost, r->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(r->stream);
	if (err == cudaSuccess)
		*digest = exercise_digest_fold(bh, n);
	cudaFree(d_bh);
	free(bh);
	return err;
}

/* A large region's digests instead of its bytes (PROTO_JOB_DIGESTS; the
 * launcher has finished), the next shape's region poisoned first.  0
 * the grader has what it needs; 2 it asks for the bytes; 1 the context
 * is lost (the phase ends); -1 the grader cannot be written to. */
static int send_digests(struct runner *r, size_t i,
			const unsigned char *d_region, size_t region,
			const unsigned char *d_in, size_t in_bytes,
			struct next_shape *next)
{
	uint64_t in_d = 0, region_d = 0;
	cudaError_t err = cudaSuccess;
	int rc;

	if (next->region)
		err = poison_region(r, next->region, next->elems);
	if (err == cudaSuccess)
		err = device_digest(r, d_in, in_bytes, &in_d);
	if (err == cudaSuccess)
		err = device_digest(r, d_region, region, &region_d);
	next->ready = err == cudaSuccess && next->region;
	if (err != cudaSuccess) {
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				       "digesting the output");
		return 1;
	}
	rc = runner_send_digests(i, region, in_d, region_d);
	return rc < 0 ? -1 : rc ? 2 : 0;
}

/* Whether a guarded region of `region` bytes goes as digests. */
static int digests_wanted(const struct runner *r, size_t region)
{
	return (r->job.flags & PROTO_JOB_DIGESTS) && wgrun_digest_blocks &&
	       region >= PROTO_DIGEST_MIN_BYTES;
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
		       runner_can_record();
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
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				       "poisoning the output");
		return 1;
	}
	if (wgemu_watch_output)
		wgemu_watch_output(d_region + GUARD_ELEMS * es, elems * es,
				   GUARD_ELEMS * es, es);
	if (measured)
		runner_record_begin(d_in, elems * es, d_region, region);
	runner_call_launcher(r, r->student, d_region + GUARD_ELEMS * es, d_in,
			     s, PROTO_PHASE_CORRECTNESS, i, 1);
	if (measured && runner_send_record(i))
		return -1;
	err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	if (err != cudaSuccess) {
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				       "running the launcher");
		if (!runner_context_alive())
			return 1; /* sticky: the phase ends here */
	}
	if (digests_wanted(r, region)) {
		int rc = send_digests(r, i, d_region, region, d_in,
				      elems * es, next);

		if (rc != 2)
			return rc;
	}
	err = copy_back(r, h_region, d_region, region, h_check, d_in,
			elems * es, next);
	if (err != cudaSuccess) {
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i, err,
				       "copying the output back");
		return 1;
	}
	return runner_send_shape(i, h_region, region,
				 exercise_hash(h_check, elems * es));
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
	runner_call_launcher(r, r->student, d_out, d_in, s,
			     PROTO_PHASE_CORRECTNESS, i, 0);
	cudaStreamSynchronize(r->stream);
	cudaGetLastError();
	wgemu_dry(0);
}

/* The performance call's input, should the launcher read it back. */
static void fill_perf_input(void *ctx, void *in, size_t n)
{
	struct runner *r = ctx;

	(void)n;
	r->ex->generate(r->job.seed, exercise_nshapes_all(r->ex),
			r->ex->perf_shape, in);
}

/*
 * The performance call on the emulator: the launcher once more at the
 * performance shape after every correctness shape, as the GPU's timed
 * runs call it after them, with nothing run
 * and nothing allocated for real (wgemu_dry(2)); its record goes to the
 * grader, whose replay predicts its time (emu/perf.h).  A launcher that
 * reads device memory back makes the rest of the call real, on real
 * input (wgemu_dry_inputs): it cannot tell the dry call from a real one.
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
		if (wgemu_dry_inputs)
			wgemu_dry_inputs(d_in, bytes, d_out, bytes,
					 fill_perf_input, r);
		wgemu_record_begin(d_in, bytes, d_out, bytes);
		runner_call_launcher(r, r->student, d_out, d_in, s,
				     PROTO_PHASE_PERF, 0, 0);
		cudaStreamSynchronize(r->stream);
		cudaGetLastError();
		runner_send_record(exercise_nshapes_all(r->ex));
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
#define BATCH_SHAPES 1024
#define BATCH_REGION_MAX (64 * 1024)   /* bytes of a region in a batch */
/* pinned bytes of a batch's regions and inputs: the 4,096 shapes
 * 1..64 x 1..64 of 4-byte elements in four batches, 12 waits where 64
 * shapes a batch made 192 */
#define BATCH_HOST_BYTES (16u << 20)

struct batch {
	size_t n, call[BATCH_SHAPES];
	struct exercise_shape shape[BATCH_SHAPES];
	size_t in_bytes[BATCH_SHAPES];  /* the shape's input; its region
					 * has the guard bands too */
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
	if (cudaMallocHost((void **)&bt->host, BATCH_HOST_BYTES) !=
	    cudaSuccess ||
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

/* The pinned bytes call c of the plan needs in a batch (its region and
 * its input), or 0 when it goes alone: a batch holds small regions on a
 * GPU, in a sweep that sends every output (not compute-sanitizer's bare
 * one). */
static size_t batch_bytes(const struct runner *r, const struct corr_plan *pl,
			  size_t c, const struct batch *bt)
{
	size_t i = pl->order[c];
	unsigned flags;
	struct exercise_shape s = exercise_shape_of(r->ex, r->job.seed, i,
						    &flags);
	size_t in = exercise_shape_elems(s) * r->ex->elem_size;
	size_t region = in + 2 * GUARD_ELEMS * r->ex->elem_size;

	/* a measured call runs alone, inside its launch record */
	if (!bt->host || r->emu || pl->skip[i] ||
	    (r->job.flags & PROTO_JOB_BARE_OUTPUT) ||
	    (flags & EXERCISE_SHAPE_MEASURED) || region > BATCH_REGION_MAX)
		return 0;
	return region + in;
}

/* The calls from c of the plan that go in one batch: into bt->call,
 * their number into bt->n. */
static void batch_fill(const struct runner *r, const struct corr_plan *pl,
		       size_t c, struct batch *bt)
{
	size_t used = 0, b;

	for (bt->n = 0; c + bt->n < pl->nshapes && bt->n < BATCH_SHAPES;
	     bt->n++) {
		b = batch_bytes(r, pl, c + bt->n, bt);
		if (!b || used + b > BATCH_HOST_BYTES)
			break;
		used += b;
		bt->call[bt->n] = c + bt->n;
	}
}

/* The calls of bt behind one another, each followed by its copies back
 * and its flag; an error the runtime gives at a call is kept for it.  A
 * call that launched on a stream of its own is waited for at once: the
 * legacy stream is ordered after blocking streams only.  (Work other
 * than kernels on a non-blocking stream of the launcher's, with no
 * kernel there, is not seen: its copies could race the output's.) */
static void batch_launch(struct runner *r, const struct corr_plan *pl,
			 struct batch *bt, unsigned char *d_in,
			 unsigned char *d_out)
{
	size_t es = r->ex->elem_size, g = GUARD_ELEMS * es;
	int off;

	for (size_t k = 0; k < bt->n; k++) {
		size_t i = pl->order[bt->call[k]], in = bt->in_bytes[k];
		unsigned char *h = bt->host + bt->host_off[k];

		off = runner_call_launcher(r, r->student,
					   d_out + pl->out_off[i] + g,
					   d_in + pl->in_off[i], bt->shape[k],
					   PROTO_PHASE_CORRECTNESS, i, 1);
		bt->launch_err[k] = cudaGetLastError();
		if (off) {	/* maybe a non-blocking stream: wait here */
			cudaError_t e = cudaDeviceSynchronize();

			if (bt->launch_err[k] == cudaSuccess)
				bt->launch_err[k] = e;
		}
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
		size_t i = pl->order[bt->call[k]], in;

		bt->shape[k] = exercise_shape_of(r->ex, r->job.seed, i, NULL);
		in = bt->in_bytes[k] = exercise_shape_elems(bt->shape[k]) * es;
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
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS,
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
		size_t i = pl->order[bt->call[k]], in = bt->in_bytes[k];
		size_t region = in + 2 * GUARD_ELEMS * es;
		unsigned char *h = bt->host + bt->host_off[k];

		if (err != cudaSuccess && k == upto) {
			runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i,
					       err, "running the launcher");
			return 1;  /* a fault: the phase ends here */
		}
		if (bt->launch_err[k] != cudaSuccess)
			runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, i,
					       bt->launch_err[k],
					       "running the launcher");
		if (runner_send_shape(i, h, region,
				      exercise_hash(h + region, in)))
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
int runner_phase_correctness(struct runner *r)
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

	memset(&h_region, 0, sizeof(h_region));
	memset(&h_check, 0, sizeof(h_check));
	plan_shapes(r, &pl);
	h_in = bigbuf_alloc(pl.in_total);
	if (!h_in)
		runner_die_internal("out of host memory for the correctness "
				    "inputs");
	for (size_t i = 0; i < pl.nshapes; i++)
		if (!pl.skip[i])
			ex->generate(r->job.seed, i,
				     exercise_shape_of(ex, r->job.seed, i,
						       NULL),
				     h_in + pl.in_off[i]);
	/* the inputs were made while the context was being created */
	if (runner_stream_wait(r))
		goto out;
	if (hostbuf_init(&h_region, pl.max_region) ||
	    hostbuf_init(&h_check, pl.max_input))
		runner_die_internal("out of host memory for the correctness "
				    "inputs");

	runner_send_phase(PROTO_PHASE_CORRECTNESS, (unsigned)pl.nshapes);
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
		runner_send_cuda_error(r, PROTO_PHASE_CORRECTNESS, 0, err,
				       "setting up the correctness buffers");
		goto out;
	}
	if (!r->emu && batch_init(&bt))
		batch_release(&bt); /* no pinned memory: one at a time */
	for (size_t c = 0; c < pl.nshapes; c++) {
		size_t i = pl.order[c];
		int k, poisoned;

		batch_fill(r, &pl, c, &bt);
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
	runner_send_done(PROTO_PHASE_CORRECTNESS, (unsigned)done);
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
