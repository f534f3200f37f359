/*
 * Verification of what a runner sends (see verify.h).  The runner is
 * untrusted: every frame is decoded defensively, must come where the
 * protocol puts it, must fit the exercise's shapes, and counts for
 * nothing until checked here against the oracle.
 */
#include "verify.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bigbuf.h"
#include "diff.h"
#include "lacks.h"
#include "technique.h"
#include "util.h"
#include "verify_digest.h"

#define CUDA_ERROR_ILLEGAL_ADDRESS 700

/* ---- the frame trace (WARPGRADE_FRAME_TRACE, verify.h) ---- */

static FILE *trace_file;
static pthread_once_t trace_once = PTHREAD_ONCE_INIT;

static void trace_open(void)
{
	const char *path = getenv("WARPGRADE_FRAME_TRACE");

	if (path && *path && (trace_file = fopen(path, "ae")))
		setvbuf(trace_file, NULL, _IOLBF, 0);
}

/* One line "SECONDS EXERCISE WHAT INDEX GRADER" (CLOCK_MONOTONIC
 * seconds; GRADER the grader's pid, which tells a batch's children
 * apart in one file). */
static void trace(const struct verify *v, const char *what, long index)
{
	pthread_once(&trace_once, trace_open);
	if (trace_file)
		fprintf(trace_file, "%.6f %s %s %ld %ld\n", now_s(),
			v->ex->name, what, index, (long)getpid());
}

/* On a GPU, the largest shape's oracle is computed while the runner
 * starts (verify_ahead.h), when it is large enough to matter. */
#define AHEAD_MIN_BYTES (16u << 20)

static void start_ahead(struct verify *v)
{
	size_t best = 0, most = 0;

	if (v->skip_gpu_only)
		return;
	for (size_t i = 0; i < v->nshapes; i++) {
		struct exercise_shape s = exercise_shape_of(v->ex, v->seed, i,
							    NULL);

		if (exercise_shape_elems(s) > most) {
			most = exercise_shape_elems(s);
			best = i;
		}
	}
	if (most * v->ex->elem_size >= AHEAD_MIN_BYTES)
		verify_ahead_start(&v->ahead, v->ex, v->seed, best,
				   (most + 2 * PROTO_GUARD_ELEMS) *
				   v->ex->elem_size);
}

void verify_init(struct verify *v, const struct exercise *ex,
		 const struct score_config *cfg, uint64_t seed,
		 int skip_gpu_only, struct exercise_result *res,
		 const struct lacks *lacks)
{
	memset(v, 0, sizeof(*v));
	v->ex = ex;
	v->lacks = lacks;
	v->cfg = cfg;
	v->seed = seed;
	v->skip_gpu_only = skip_gpu_only;
	v->res = res;
	v->nshapes = exercise_nshapes_all(ex);
	v->state = xcalloc(v->nshapes, 1);
	v->sent = xcalloc(v->nshapes, 1);
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		struct measured_call *mc = &v->measured[k];

		mc->index = exercise_nshapes(ex) + k;
		mc->shape = exercise_shape_of(ex, seed, mc->index, NULL);
		mc->output = STATUS_XX;
	}
	v->worst = STATUS_OK;
	v->cur = -1;
	v->last_shape = -1;
	res->ex = ex;
	res->speedup = res->ci_low = res->ci_high = NAN;
	res->student_ms = res->reference_ms = NAN;
	res->bandwidth_fraction = NAN;
	res->first_failure.index = -1;
	start_ahead(v);
}

void verify_release(struct verify *v)
{
	free(v->state);
	bigbuf_free(v->region, v->region_len);
	bigbuf_free(v->in_buf, v->scratch_cap);
	bigbuf_free(v->exp_buf, v->scratch_cap);
	verify_ahead_release(&v->ahead);
	free(v->perf);
	free(v->sent);
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		free(v->measured[k].record);
		free(v->measured[k].lines);
		free(v->measured[k].kernels);
	}
	free(v->perf_call.record);
	free(v->perf_call.lines);
	free(v->perf_call.kernels);
	memset(v, 0, sizeof(*v));
}

void verify_job(const struct verify *v, uint32_t phases, uint32_t flags,
		struct proto_job *job)
{
	memset(job, 0, sizeof(*job));
	snprintf(job->exercise, sizeof(job->exercise), "%s", v->ex->name);
	job->seed = v->seed;
	job->phases = phases;
	job->perf_reps = v->cfg->perf_reps;
	job->flags = flags;
}

int verify_wants_keys(const struct verify *v)
{
	return (v->phases & PROTO_PHASE_PERF) != 0;
}

int verify_wants_input(const struct verify *v)
{
	return verify_wants_keys(v) || (v->job_flags & PROTO_JOB_DIGESTS);
}

uint32_t verify_current_phase(const struct verify *v)
{
	return v->current_phase;
}

int verify_shape_arriving(const struct verify *v)
{
	return v->cur >= 0;
}

int verify_phase_done(const struct verify *v, uint32_t phase)
{
	return (v->done & phase) != 0;
}

void verify_stream_error(struct verify *v, const char *why)
{
	snprintf(v->protocol_error, sizeof(v->protocol_error), "%s", why);
}

void verify_not_run(struct verify *v, const char *why)
{
	v->res->status = STATUS_XX;
	v->worst = STATUS_XX;
	result_set_message(v->res, "%s", why);
}

void verify_unmeasured(struct verify *v, const char *why)
{
	snprintf(v->unmeasured_why, sizeof(v->unmeasured_why), "%s", why);
}

void verify_process_begin(struct verify *v, uint32_t phases,
			  uint32_t job_flags)
{
	v->phases = phases;
	v->job_flags = job_flags;
	v->have_hello = 0; /* a new process says hello again */
	v->done = 0;
	v->current_phase = 0;
	v->phase_open = 0;
	v->runner_internal = 0;
	v->errors = 0;
	v->cur = -1;
	v->filled = 0;
	v->keys_asked = 0;
	v->turn_asked = 0;
	v->have_perf_frame = 0;
	v->digest_pending = 0;
	v->last_shape = -1;
	memset(v->sent, 0, v->nshapes);
	trace(v, "process", (long)phases);
	/* a record is one process's word: a later process that runs the
	 * same phase sends its own (the measured calls' come with the
	 * correctness phase, and so does the emulator's performance call;
	 * a GPU's timed call comes with the performance phase) */
	for (size_t k = 0; k <= EXERCISE_MEASURED; k++) {
		struct measured_call *mc = k < EXERCISE_MEASURED ?
					   &v->measured[k] : &v->perf_call;
		int mine = k < EXERCISE_MEASURED ||
			   (job_flags & PROTO_JOB_PERF_RECORD) ?
			   (phases & PROTO_PHASE_CORRECTNESS) :
			   (phases & PROTO_PHASE_PERF);

		if (!mine)
			continue;
		free(mc->record);
		mc->record = NULL;
		mc->record_len = mc->record_filled = 0;
		mc->record_complete = 0;
	}
}

/* A 4-byte value of the output as the report prints it. */
static void format_value(const struct exercise *ex, const void *p,
			 char *buf, size_t len)
{
	uint32_t bits;

	memcpy(&bits, p, 4);
	if (bits == 0xA5A5A5A5u) {
		snprintf(buf, len, "0x%08x (never written)", bits);
	} else if (ex->elem_is_float) {
		float f;

		memcpy(&f, p, 4);
		snprintf(buf, len, "%.9g (0x%08x)", (double)f, bits);
	} else {
		snprintf(buf, len, "%d", (int32_t)bits);
	}
}

/* Record a failing shape: the first one (by index) is kept for the
 * report; the worst status decides the exercise's verdict. */
static struct failure *fail_shape(struct verify *v, size_t index,
				  enum status st)
{
	struct failure *f = &v->res->first_failure;
	struct exercise_shape s = exercise_shape_of(v->ex, v->seed, index,
						    NULL);

	if (v->state[index] == 2)
		return NULL;
	v->state[index] = 2;
	v->any_failure = 1;
	v->worst = status_worse(v->worst, st);
	if (f->present && f->shape_index < index)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->present = 1;
	f->shape_index = index;
	f->m = s.m;
	f->n = s.n;
	f->index = -1;
	return f;
}

static int proto_fail(struct verify *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int proto_fail(struct verify *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->protocol_error, sizeof(v->protocol_error), fmt, ap);
	va_end(ap);
	return -1;
}

static void ensure_scratch(struct verify *v, size_t bytes)
{
	if (bytes <= v->scratch_cap)
		return;
	bigbuf_free(v->in_buf, v->scratch_cap);
	bigbuf_free(v->exp_buf, v->scratch_cap);
	v->in_buf = bigbuf_alloc(bytes);
	v->exp_buf = bigbuf_alloc(bytes);
	if (!v->in_buf || !v->exp_buf)
		die("out of memory (%zu bytes)", bytes);
	v->scratch_cap = bytes;
}

/* The verdict on one guarded output region of shape index: STATUS_OK,
 * or the failure with *f describing it (reason, element, values, and
 * for a wrong value the picture and pattern of diff.h). */
static enum status judge_region(struct verify *v, size_t index,
				const unsigned char *region,
				uint64_t input_hash, struct failure *f)
{
	const struct exercise *ex = v->ex;
	struct exercise_shape s = exercise_shape_of(ex, v->seed, index, NULL);
	size_t elems = exercise_shape_elems(s), es = ex->elem_size;
	size_t g = PROTO_GUARD_ELEMS;
	const unsigned char *out = region + g * es;
	unsigned char *in, *exp;
	uint64_t hash;
	int ahead;

	memset(f, 0, sizeof(*f));
	f->index = -1;
	/* guard bands first: a write outside the output is the worst */
	for (size_t i = 0; i < g * es; i++) {
		size_t before = g * es - 1 - i; /* scan outward-in */

		if (region[before] != PROTO_GUARD_BYTE) {
			snprintf(f->reason, sizeof(f->reason), "wrote outside "
				 "the output: %zu element(s) before its start",
				 (g * es - before + es - 1) / es);
			return STATUS_OOB;
		}
	}
	for (size_t i = 0; i < g * es; i++) {
		size_t after = (g + elems) * es + g * es - 1 - i;

		if (region[after] != PROTO_GUARD_BYTE) {
			snprintf(f->reason, sizeof(f->reason), "wrote outside "
				 "the output: element %zu past its end",
				 (after - (g + elems) * es) / es);
			return STATUS_OOB;
		}
	}
	ahead = verify_ahead_take(&v->ahead, index);
	if (ahead) {
		in = v->ahead.in;
		exp = v->ahead.exp;
		hash = v->ahead.hash;
	} else {
		ensure_scratch(v, elems * es);
		in = v->in_buf;
		exp = v->exp_buf;
		ex->generate(v->seed, index, s, in);
		hash = exercise_hash(in, elems * es);
	}
	if (hash != input_hash) {
		snprintf(f->reason, sizeof(f->reason), "input modified: the "
			 "input buffer differs after the launch");
		return STATUS_WA;
	}
	if (!ahead)
		ex->expected(in, exp, s);
	if (memcmp(out, exp, elems * es)) {
		size_t i = 0;

		while (i < elems && !memcmp(out + i * es, exp + i * es, es))
			i++;
		f->index = (long long)i;
		format_value(ex, exp + i * es, f->expected,
			     sizeof(f->expected));
		format_value(ex, out + i * es, f->got, sizeof(f->got));
		snprintf(f->reason, sizeof(f->reason), "wrong value at element "
			 "%zu", i);
		diff_describe(ex, s, in, exp, out, f);
		return STATUS_WA;
	}
	return STATUS_OK;
}

/* A whole guarded region from the runner has arrived: check it. */
static void check_region(struct verify *v, size_t index)
{
	struct failure got, *f;
	enum status st;

	if (v->state[index] == 2)
		return; /* already failed (an error at this shape) */
	st = judge_region(v, index, v->region, v->input_hash, &got);
	if (st == STATUS_OK) {
		v->state[index] = 1;
		return;
	}
	f = fail_shape(v, index, st);
	if (f) {
		got.present = 1;
		got.shape_index = f->shape_index;
		got.m = f->m;
		got.n = f->n;
		*f = got;
	}
}

/* Is shape index one the current process was asked to run? */
static int asked(const struct verify *v, size_t index)
{
	unsigned flags;

	exercise_shape_of(v->ex, v->seed, index, &flags);
	if ((flags & EXERCISE_EDGE_GPU_ONLY) && v->skip_gpu_only)
		return 0;
	return !(v->job_flags & PROTO_JOB_MEASURED_ONLY) ||
	       (flags & EXERCISE_SHAPE_MEASURED);
}

/* The bytes of shape index's guarded region: its output between two
 * guard bands. */
static uint64_t region_bytes(const struct verify *v, size_t index)
{
	struct exercise_shape s = exercise_shape_of(v->ex, v->seed, index,
						    NULL);

	return (exercise_shape_elems(s) + 2 * PROTO_GUARD_ELEMS) *
	       v->ex->elem_size;
}

static int on_shape(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_shape m;
	uint64_t want;

	if (proto_dec_shape(p, n, &m))
		return proto_fail(v, "malformed shape frame");
	if (m.index >= v->nshapes || !asked(v, m.index))
		return proto_fail(v, "shape %u was not asked for", m.index);
	want = region_bytes(v, m.index);
	if (m.guard_elems != PROTO_GUARD_ELEMS || m.total_bytes != want)
		return proto_fail(v, "shape %u: region of %llu bytes, "
				     "expected %llu", m.index,
				  (unsigned long long)m.total_bytes,
				  (unsigned long long)want);
	if (m.offset == 0) {
		if (v->sent[m.index] & 1)
			return proto_fail(v, "shape %u sent twice", m.index);
		v->sent[m.index] |= 1;
		if (v->region_len < want) {
			size_t len = want;
			unsigned char *room = verify_ahead_region(&v->ahead,
								  m.index, want,
								  &len);

			bigbuf_free(v->region, v->region_len);
			v->region = room ? room : bigbuf_alloc(want);
			if (!v->region)
				die("out of memory (%llu bytes)",
				    (unsigned long long)want);
			v->region_len = len;
		}
		v->cur = m.index;
		v->filled = 0;
		trace(v, "shape", (long)m.index);
		v->input_hash = m.input_hash;
	}
	if (v->cur != (int64_t)m.index || m.offset != v->filled ||
	    m.input_hash != v->input_hash)
		return proto_fail(v, "shape %u: chunks out of order", m.index);
	memcpy(v->region + m.offset, m.data, m.len);
	v->filled += m.len;
	if (v->filled == want) {
		check_region(v, m.index);
		trace(v, "checked", (long)m.index);
		v->cur = -1;
		v->last_shape = m.index;
	}
	return 0;
}

/* The digests the oracle gives shape index: the input's and the
 * expected guarded region's (verify_digest.h), from the oracle computed
 * ahead when it is that shape's. */
static void oracle_digests(struct verify *v, size_t index, uint64_t *in_d,
			   uint64_t *region_d)
{
	const struct exercise *ex = v->ex;
	struct exercise_shape s = exercise_shape_of(ex, v->seed, index, NULL);
	size_t elems = exercise_shape_elems(s), es = ex->elem_size;

	if (verify_ahead_take(&v->ahead, index)) {
		*in_d = v->ahead.in_digest;
		*region_d = v->ahead.region_digest;
		return;
	}
	ensure_scratch(v, elems * es);
	ex->generate(v->seed, index, s, v->in_buf);
	*in_d = exercise_digest(v->in_buf, elems * es);
	ex->expected(v->in_buf, v->exp_buf, s);
	*region_d = verify_region_digest(v->exp_buf, elems, es);
}

/* A large region's digests (PROTO_JOB_DIGESTS): the oracle's, and the
 * shape has passed; else its bytes are asked for (verify_digest_reply)
 * and judged when they come, as any region's. */
static int on_digest(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_digest m;
	uint64_t want, in_d, region_d;

	if (proto_dec_digest(p, n, &m))
		return proto_fail(v, "malformed digest frame");
	if (!(v->job_flags & PROTO_JOB_DIGESTS) || m.index >= v->nshapes ||
	    !asked(v, m.index) || v->cur >= 0)
		return proto_fail(v, "digest of shape %u out of place",
				  m.index);
	want = region_bytes(v, m.index);
	if (m.guard_elems != PROTO_GUARD_ELEMS || m.total_bytes != want ||
	    want < PROTO_DIGEST_MIN_BYTES)
		return proto_fail(v, "digest of shape %u: region of %llu "
				     "bytes, expected %llu (at least %llu)",
				  m.index, (unsigned long long)m.total_bytes,
				  (unsigned long long)want,
				  (unsigned long long)PROTO_DIGEST_MIN_BYTES);
	if (v->sent[m.index] & (1 | 4))
		return proto_fail(v, "shape %u sent twice", m.index);
	v->sent[m.index] |= 4;
	trace(v, "digest", (long)m.index);
	oracle_digests(v, m.index, &in_d, &region_d);
	v->digest_pending = 1;
	v->digest_reply.index = m.index;
	v->digest_reply.send_bytes = in_d != m.input_digest ||
				     region_d != m.region_digest;
	if (v->digest_reply.send_bytes)
		return 0;
	v->sent[m.index] |= 1;	/* no bytes follow */
	if (v->state[m.index] == 0)
		v->state[m.index] = 1;
	trace(v, "checked", (long)m.index);
	v->last_shape = m.index;
	return 0;
}

int verify_digest_reply(struct verify *v, struct proto_digest_reply *r)
{
	if (!v->digest_pending)
		return 0;
	v->digest_pending = 0;
	*r = v->digest_reply;
	return 1;
}

/* The verdict an error frame stands for.  "The emulator cannot run
 * this" is never the runner's alone to say: an UNSUPPORTED fault is the
 * emulator's limit (XX, *lk the entry) only when a runner on the
 * emulator names a kernel and an instruction that the grader's own PTX
 * check listed before anything ran (lacks.h); any other is a runtime
 * error like any other. */
static enum status error_status(const struct verify *v,
				const struct proto_error *e,
				const struct lack **lk)
{
	*lk = NULL;
	switch (e->fault_kind) {
	case PROTO_FAULT_UNSUPPORTED:
		/* the emulator's processes skip the GPU-only shapes */
		if (v->job_flags & PROTO_JOB_SKIP_GPU_ONLY)
			*lk = lacks_match(v->lacks, e->message);
		return *lk ? STATUS_XX : STATUS_RE;
	case PROTO_FAULT_OUT_OF_BOUNDS:
		return STATUS_OOB;
	case PROTO_FAULT_RACE:
		return STATUS_RACE;
	case PROTO_FAULT_LIMIT:
		return STATUS_TO;
	case PROTO_FAULT_NONE:
		break;
	default:
		return STATUS_RE;
	}
	return e->cuda_code == CUDA_ERROR_ILLEGAL_ADDRESS ? STATUS_OOB :
							     STATUS_RE;
}

static int on_error(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_error e;
	enum status st;
	struct failure *f;
	const struct lack *lk;

	if (proto_dec_error(p, n, &e))
		return proto_fail(v, "malformed error frame");
	if (strcmp(e.name, "runner") &&
	    (!v->phase_open || e.phase != v->current_phase))
		return proto_fail(v, "an error frame for another phase");
	if (!strcmp(e.name, "runner")) {
		/* the harness's own failure: not the student's fault */
		v->runner_internal = 1;
		snprintf(v->runner_error, sizeof(v->runner_error), "%s",
			 e.message);
		return 0;
	}
	st = error_status(v, &e, &lk);
	if (lk && v->worst != STATUS_XX) {
		char why[640];

		lacks_describe(lk, why, sizeof(why));
		result_set_message(v->res, "%s", why);
	}
	v->errors++;
	if (e.phase == PROTO_PHASE_CORRECTNESS) {
		if (e.index >= v->nshapes || !asked(v, e.index))
			return proto_fail(v, "error at shape %u out of range",
					  e.index);
		f = fail_shape(v, e.index, st);
		if (f)
			snprintf(f->reason, sizeof(f->reason), "%s (%s)",
				 e.message, e.name);
		return 0;
	}
	/* performance phase: the verdict still applies, and the message
	 * says where it happened */
	v->worst = status_worse(v->worst, st);
	v->any_failure = 1;
	if (!v->res->message || !*v->res->message)
		result_set_message(v->res, "performance phase: %s (%s)",
				   e.message, e.name);
	return 0;
}

static int on_launches(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_launches l;

	if (proto_dec_launches(p, n, &l))
		return proto_fail(v, "malformed launches frame");
	if (l.phase != v->current_phase)
		return proto_fail(v, "a launches frame for another phase");
	if (l.phase == PROTO_PHASE_CORRECTNESS) {
		if (l.index >= v->nshapes || !asked(v, l.index) ||
		    (v->sent[l.index] & 2))
			return proto_fail(v, "launches of shape %u out of "
					  "place", l.index);
		v->sent[l.index] |= 2;
	} else if (l.index != 0 || v->keys_asked != 1) {
		/* the first timed repetition's, once */
		return proto_fail(v, "launches of repetition %u out of "
				  "place", l.index);
	}
	for (uint32_t i = 0; i < l.count; i++)
		if (!l.launch[i].on_given_stream)
			v->off_stream_launch = 1;
	return 0;
}

/* A chunk of a measured call's launch record. */
static int on_record(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_record m;
	struct measured_call *mc;
	size_t k;

	if (proto_dec_record(p, n, &m))
		return proto_fail(v, "malformed record frame");
	k = m.index - exercise_nshapes(v->ex);
	/* the performance call's: the emulator's after the sweep, a GPU's
	 * of one timed repetition */
	if (m.index == exercise_nshapes_all(v->ex) &&
	    ((v->job_flags & PROTO_JOB_PERF_RECORD) ?
	     v->current_phase == PROTO_PHASE_CORRECTNESS :
	     v->current_phase == PROTO_PHASE_PERF)) {
		mc = &v->perf_call;
		mc->index = m.index;
		mc->shape = v->ex->perf_shape;
	} else if (v->current_phase != PROTO_PHASE_CORRECTNESS ||
		   m.index < exercise_nshapes(v->ex) ||
		   k >= EXERCISE_MEASURED || !asked(v, m.index)) {
		return proto_fail(v, "a record of shape %u, which is not a "
				  "measured call", m.index);
	} else {
		mc = &v->measured[k];
	}
	if (mc->record_complete || m.offset != mc->record_filled ||
	    (mc->record && m.total_bytes != mc->record_len))
		return proto_fail(v, "record of shape %u out of place",
				  m.index);
	if (!mc->record) {
		mc->record_len = m.total_bytes;
		mc->record = xmalloc(mc->record_len ? mc->record_len : 1);
	}
	memcpy(mc->record + m.offset, m.data, m.len);
	mc->record_filled += m.len;
	mc->record_complete = mc->record_filled == mc->record_len;
	return 0;
}

static int on_perf(struct verify *v, const unsigned char *p, size_t n)
{
	/* decoded aside: a malformed frame must leave nothing that
	 * verify_finish would read */
	struct proto_perf *pf;

	if (v->have_perf_frame)
		return proto_fail(v, "a second perf frame");
	pf = xmalloc(sizeof(*pf));
	if (proto_dec_perf(p, n, pf)) {
		free(pf);
		return proto_fail(v, "malformed perf frame");
	}
	free(v->perf);
	v->perf = pf;
	v->have_perf_frame = 1;
	return 0;
}

static int on_key_request(struct verify *v, const unsigned char *p,
			  size_t n)
{
	struct proto_key k;

	if (proto_dec_key(p, n, PROTO_KEY_REQUEST, &k))
		return proto_fail(v, "key request out of place");
	/* with PROTO_JOB_TIMED_TURN: the turn first, once, then the keys */
	if (k.rep == PROTO_TURN_REP) {
		if (!(v->job_flags & PROTO_JOB_TIMED_TURN) || v->turn_asked)
			return proto_fail(v, "turn request out of place");
		v->turn_asked = 1;
		return 0;
	}
	if (k.rep != v->keys_asked || k.rep >= v->cfg->perf_reps ||
	    v->have_perf_frame || ((v->job_flags & PROTO_JOB_TIMED_TURN) &&
				   !v->turn_asked))
		return proto_fail(v, "key request out of place");
	v->keys_asked++;
	return 0;
}

/* Which frames each phase may carry. */
static int allowed(uint32_t phase, enum proto_type t)
{
	switch (t) {
	case PROTO_SHAPE: case PROTO_DIGEST:
		return phase == PROTO_PHASE_CORRECTNESS;
	case PROTO_RECORD:
		return 1; /* on_record says which */
	case PROTO_PERF: case PROTO_KEY_REQUEST:
		return phase == PROTO_PHASE_PERF;
	case PROTO_LAUNCHES: case PROTO_ERROR:
		return 1;
	default:
		return 0;
	}
}

static int on_phase(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_phase_msg ph;

	if (proto_dec_phase(p, n, &ph))
		return proto_fail(v, "malformed phase frame");
	/* the phases asked for, one at a time, in order */
	if (!(ph.phase & v->phases) || (ph.phase & (ph.phase - 1)) ||
	    v->phase_open || ph.phase <= v->current_phase ||
	    (v->phases & (ph.phase - 1) & ~v->done))
		return proto_fail(v, "phase %u out of place", ph.phase);
	v->current_phase = ph.phase;
	v->phase_open = 1;
	return 0;
}

static int on_done(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_done d;

	if (proto_dec_done(p, n, &d))
		return proto_fail(v, "malformed done frame");
	if (!v->phase_open || d.phase != v->current_phase)
		return proto_fail(v, "done for a phase not running");
	if (d.phase == PROTO_PHASE_PERF && !v->have_perf_frame)
		return proto_fail(v, "performance phase done without timings");
	v->done |= d.phase;
	v->phase_open = 0;
	return 0;
}

int verify_frame(struct verify *v, enum proto_type t,
		 const unsigned char *p, size_t n)
{
	/* the runner says hello once, first: a constructor that says it
	 * earlier would get the job (and the seed) before main */
	if ((t == PROTO_HELLO) == v->have_hello)
		return proto_fail(v, v->have_hello ? "a second hello frame" :
				  "a frame before the hello frame");
	if (t != PROTO_SHAPE)
		trace(v, proto_type_name(t), -1);
	if (t == PROTO_HELLO) {
		if (proto_dec_hello(p, n, &v->hello))
			return proto_fail(v, "malformed hello frame");
		v->have_hello = 1;
		return 0;
	}
	/* nothing counts after the work: a frame written once the last
	 * phase asked for is done (by a destructor, say) is ignored -- the
	 * verdict stands on what was verified -- and flagged */
	if ((v->done & v->phases) == v->phases) {
		v->late_frames++;
		return 0;
	}
	if (t == PROTO_PHASE)
		return on_phase(v, p, n);
	if (t == PROTO_DONE)
		return on_done(v, p, n);
	/* the runner's own failure may come at start-up too */
	if (t == PROTO_ERROR && !v->phase_open)
		return on_error(v, p, n);
	if (!v->phase_open || !allowed(v->current_phase, t))
		return proto_fail(v, "unexpected %s frame",
				  proto_type_name(t));
	switch (t) {
	case PROTO_SHAPE:
		return on_shape(v, p, n);
	case PROTO_DIGEST:
		return on_digest(v, p, n);
	case PROTO_LAUNCHES:
		return on_launches(v, p, n);
	case PROTO_ERROR:
		return on_error(v, p, n);
	case PROTO_RECORD:
		return on_record(v, p, n);
	case PROTO_PERF:
		return on_perf(v, p, n);
	default:
		return on_key_request(v, p, n);
	}
}

static const char *phase_name(uint32_t phase)
{
	switch (phase) {
	case PROTO_PHASE_CORRECTNESS:
		return "correctness";
	case PROTO_PHASE_PERF:
		return "performance";
	}
	return "start-up";
}

/* The shape a runner was at when it stopped in its correctness phase:
 * the one whose output was arriving or whose launcher had returned, else
 * the next one in the call order after the last complete output (the
 * launcher that never returned), -1 when it had finished them all. */
static int64_t running_shape(const struct verify *v)
{
	size_t *order, i, n = v->nshapes;
	int64_t next = -1;

	if (v->cur >= 0)
		return v->cur;
	for (i = 0; i < n; i++)
		if ((v->sent[i] & 2) && !(v->sent[i] & 1))
			return (int64_t)i;
	order = xcalloc(n, sizeof(*order));
	exercise_call_order(v->ex, v->seed, order);
	for (i = 0; i < n; i++)
		if (v->last_shape < 0 || order[i] == (size_t)v->last_shape)
			break;
	/* the call after the last complete one (or the first call) */
	for (i = v->last_shape < 0 ? 0 : i + 1; i < n; i++)
		if (asked(v, order[i]) && !(v->sent[order[i]] & 1)) {
			next = (int64_t)order[i];
			break;
		}
	free(order);
	return next;
}

void verify_process_end(struct verify *v, const struct verify_exit *x)
{
	uint32_t missing = v->phases & ~v->done;
	enum status st;
	char where[160];
	int64_t running;

	trace(v, "exit", (long)missing);
	if (!missing && !x->timed_out && !x->killed_by_grader)
		return;
	/* a phase that ended on a reported CUDA error (the context is lost)
	 * is explained by that error already */
	if (x->exited && !x->exit_code && v->errors &&
	    !x->timed_out && !x->killed_by_grader && !v->runner_internal)
		return;
	snprintf(where, sizeof(where), "in the %s phase",
		 phase_name(v->current_phase));
	running = v->current_phase == PROTO_PHASE_CORRECTNESS &&
		  v->phase_open ? running_shape(v) : -1;
	if (running >= 0) {
		struct exercise_shape s = exercise_shape_of(
			v->ex, v->seed, (size_t)running, NULL);

		snprintf(where, sizeof(where), "at shape %lld (%s=%lld, "
			 "%s=%lld)", (long long)running, v->ex->dim_m,
			 (long long)s.m, v->ex->dim_n, (long long)s.n);
	}
	if (x->killed_by_grader) {
		/* a submission can write to fd 3 itself, and the grader's own
		 * runner is tested to speak the protocol: the student's */
		st = STATUS_RE;
		result_set_message(v->res, "the runner's output stream was "
				   "corrupted %s: %s", where,
				   v->protocol_error);
	} else if (x->timed_out) {
		st = STATUS_TO;
		result_set_message(v->res, "timed out %s (%s limit)", where,
				   x->timed_out == 2 ? "CPU" : "wall-clock");
	} else if (!x->exited && x->memory_exceeded) {
		st = STATUS_SG;
		result_set_message(v->res, "killed for using more than the "
				   "%.0f MiB memory limit %s",
				   (double)x->memory_limit / (1 << 20), where);
	} else if (!x->exited) {
		const char *abbrev = sigabbrev_np(x->signal);

		st = STATUS_SG;
		if (abbrev)
			result_set_message(v->res, "killed by SIG%s %s",
					   abbrev, where);
		else
			result_set_message(v->res, "killed by signal %d %s",
					   x->signal, where);
	} else if (v->runner_internal) {
		/* the runner shares its process with the submission, whose
		 * constructors run before it and can take its job from
		 * stdin or write this very frame: a runner's word about its
		 * own failure cannot make it the grader's (SECURITY.md) */
		st = STATUS_RE;
		result_set_message(v->res, "the runner could not go on %s: %s "
				   "(the submission runs in its process)",
				   where, v->runner_error);
	} else {
		st = STATUS_RE;
		result_set_message(v->res, "the program exited early (exit "
				   "status %d) %s", x->exit_code, where);
	}
	v->worst = status_worse(v->worst, st);
	v->any_failure = 1;
	/* the shape the process died in is the shape that failed */
	if (running >= 0 && v->state[running] != 1) {
		struct failure *f = fail_shape(v, (size_t)running, st);

		if (f)
			snprintf(f->reason, sizeof(f->reason), "%s",
				 v->res->message);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, size_t n)
{
	double *s = xcalloc(n, sizeof(double)), m;

	memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

/* Timings of the performance phase (GPU), turned into a speedup. */
static void timing(struct verify *v)
{
	struct exercise_result *r = v->res;
	const struct proto_perf *p = v->perf;
	double floor_ms, bytes;

	if (!p || !p->reps)
		return;
	r->student_ms = median(p->student_ms, p->reps);
	if (isnan(p->reference_ms[0])) {
		/* no reference (a student kit): measured against the
		 * device's copy bandwidth only */
		snprintf(r->perf_model, sizeof(r->perf_model), "bandwidth");
	} else {
		snprintf(r->perf_model, sizeof(r->perf_model), "time");
		score_speedup(p->reference_ms, p->student_ms, p->reps,
			      &r->speedup, &r->ci_low, &r->ci_high);
		r->reference_ms = median(p->reference_ms, p->reps);
	}
	/* the bytes one call must move are the grader's to know: the
	 * input read once and the output written once */
	bytes = 2.0 * (double)exercise_shape_elems(v->ex->perf_shape) *
		(double)v->ex->elem_size;
	if (p->copy_gbps > 0 && r->student_ms > 0) {
		r->bandwidth_fraction = bytes / (r->student_ms * 1e6) /
					p->copy_gbps;
		floor_ms = bytes / (p->copy_gbps * 1e6);
		if (r->student_ms < v->cfg->floor_tolerance * floor_ms)
			result_add_flag(r, "below the physical floor");
	}
	if (p->mismatched_runs)
		result_add_flag(r, "stale or skipped output");
	if (p->outside_stream_runs ||
	    p->host_sync_ms > 1.5 * r->student_ms + 0.2)
		result_add_flag(r, "work outside the stream");
}

int verify_perf_replayable(const struct verify *v)
{
	return v->perf_call.record_complete && verify_shapes_passed(v);
}

int verify_shapes_passed(const struct verify *v)
{
	for (size_t i = 0; i < v->nshapes; i++) {
		unsigned flags;

		exercise_shape_of(v->ex, v->seed, i, &flags);
		if (!((flags & EXERCISE_EDGE_GPU_ONLY) && v->skip_gpu_only) &&
		    v->state[i] != 1)
			return 0;
	}
	return 1;
}

int verify_measured_replayable(const struct verify *v, size_t k)
{
	const struct measured_call *mc = &v->measured[k];

	return k < EXERCISE_MEASURED && v->state[mc->index] == 1 &&
	       mc->record_complete;
}

void verify_measured_region(struct verify *v, size_t k,
			    const unsigned char *region, uint64_t len,
			    uint64_t input_hash)
{
	struct measured_call *mc = &v->measured[k];
	size_t want = (exercise_shape_elems(mc->shape) +
		       2 * PROTO_GUARD_ELEMS) * v->ex->elem_size;
	struct failure f;

	if (len != want) {
		mc->output = STATUS_WA;
		snprintf(mc->output_why, sizeof(mc->output_why), "an output "
			 "region of %llu bytes", (unsigned long long)len);
		return;
	}
	mc->output = judge_region(v, mc->index, region, input_hash, &f);
	snprintf(mc->output_why, sizeof(mc->output_why), "%.250s", f.reason);
}

void verify_finish(struct verify *v)
{
	struct exercise_result *r = v->res;
	size_t sweep_total = 0, edge_total = 0;

	for (size_t i = 0; i < v->nshapes; i++) {
		unsigned flags;

		exercise_shape_of(v->ex, v->seed, i, &flags);
		if ((flags & EXERCISE_EDGE_GPU_ONLY) && v->skip_gpu_only)
			continue;
		if (i < EXERCISE_SWEEP_COUNT) {
			sweep_total++;
			r->sweep_passed += v->state[i] == 1;
		} else {
			edge_total++;
			r->edge_passed += v->state[i] == 1;
		}
	}
	r->sweep_total = sweep_total;
	r->edge_total = edge_total;
	r->total = sweep_total + edge_total;
	r->passed = r->sweep_passed + r->edge_passed;
	r->status = v->worst;
	if (r->status == STATUS_OK && r->passed < r->total)
		r->status = STATUS_WA;
	timing(v);
	technique_evaluate(v);
	/* the launch records exist on every backend: work put on another
	 * stream breaks the contract even where nothing is timed */
	if (v->off_stream_launch)
		result_add_flag(r, "launch on another stream");
	if (v->late_frames)
		result_add_flag(r, "frames after the run");
	if (r->status != STATUS_XX)
		score_exercise(v->cfg, r);
	else
		r->max_score = score_max(v->cfg);
	if (!r->message || !*r->message) {
		const struct failure *f = &r->first_failure;

		if (f->present)
			result_set_message(r, "shape %zu (%s=%lld, %s=%lld): %s",
					   f->shape_index, v->ex->dim_m,
					   (long long)f->m, v->ex->dim_n,
					   (long long)f->n, f->reason);
		else
			result_set_message(r, "%s", status_meaning(r->status));
	}
}
