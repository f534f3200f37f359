/*
 * Verification of what a runner sends (see verify.h).  The runner is
 * untrusted: every frame is decoded defensively, must fit the exercise's
 * shapes, and counts for nothing until checked here against the oracle.
 */
#include "verify.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/wgemu.h"
#include "util.h"

#define CUDA_ERROR_ILLEGAL_ADDRESS 700

void verify_init(struct verify *v, const struct exercise *ex,
		 const struct score_config *cfg, uint64_t seed,
		 int skip_gpu_only, struct exercise_result *res)
{
	memset(v, 0, sizeof(*v));
	v->ex = ex;
	v->cfg = cfg;
	v->seed = seed;
	v->skip_gpu_only = skip_gpu_only;
	v->res = res;
	v->nshapes = exercise_nshapes(ex);
	v->state = xcalloc(v->nshapes, 1);
	v->worst = STATUS_OK;
	v->cur = -1;
	v->last_shape = -1;
	res->ex = ex;
	res->speedup = res->ci_low = res->ci_high = NAN;
	res->student_ms = res->reference_ms = NAN;
	res->bandwidth_fraction = NAN;
	res->first_failure.index = -1;
}

void verify_release(struct verify *v)
{
	free(v->state);
	free(v->region);
	free(v->in_buf);
	free(v->exp_buf);
	free(v->perf);
	free(v->counters[0]);
	free(v->counters[1]);
	memset(v, 0, sizeof(*v));
}

void verify_process_begin(struct verify *v, uint32_t phases)
{
	v->phases = phases;
	v->have_hello = 0; /* a new process says hello again */
	v->done = 0;
	v->current_phase = 0;
	v->runner_internal = 0;
	v->errors = 0;
	v->cur = -1;
	v->filled = 0;
}

void verify_format_value(const struct exercise *ex, const void *p,
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
	struct exercise_shape s = exercise_shape_at(v->ex, index, NULL);

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
	free(v->in_buf);
	free(v->exp_buf);
	v->in_buf = xmalloc(bytes);
	v->exp_buf = xmalloc(bytes);
	v->scratch_cap = bytes;
}

/* A whole guarded region has arrived: check it. */
static void check_region(struct verify *v, size_t index)
{
	const struct exercise *ex = v->ex;
	struct exercise_shape s = exercise_shape_at(ex, index, NULL);
	size_t elems = exercise_shape_elems(s), es = ex->elem_size;
	size_t g = PROTO_GUARD_ELEMS;
	const unsigned char *out = v->region + g * es;
	struct failure *f;

	if (v->state[index] == 2)
		return; /* already failed (an error at this shape) */
	/* guard bands first: a write outside the output is the worst */
	for (size_t i = 0; i < g * es; i++) {
		size_t before = g * es - 1 - i; /* scan outward-in */

		if (v->region[before] != PROTO_GUARD_BYTE) {
			f = fail_shape(v, index, STATUS_OOB);
			if (f)
				snprintf(f->reason, sizeof(f->reason),
					 "wrote outside the output: %zu "
					 "element(s) before its start",
					 (g * es - before + es - 1) / es);
			return;
		}
	}
	for (size_t i = 0; i < g * es; i++) {
		size_t after = (g + elems) * es + g * es - 1 - i;

		if (v->region[after] != PROTO_GUARD_BYTE) {
			f = fail_shape(v, index, STATUS_OOB);
			if (f)
				snprintf(f->reason, sizeof(f->reason),
					 "wrote outside the output: element "
					 "%zu past its end",
					 (after - (g + elems) * es) / es);
			return;
		}
	}
	ensure_scratch(v, elems * es);
	ex->generate(v->seed, index, s, v->in_buf);
	if (exercise_hash(v->in_buf, elems * es) != v->input_hash) {
		f = fail_shape(v, index, STATUS_WA);
		if (f)
			snprintf(f->reason, sizeof(f->reason),
				 "input modified: the input buffer differs "
				 "after the launch");
		return;
	}
	ex->expected(v->in_buf, v->exp_buf, s);
	if (memcmp(out, v->exp_buf, elems * es)) {
		size_t i = 0;

		while (i < elems && !memcmp(out + i * es, v->exp_buf + i * es,
					    es))
			i++;
		f = fail_shape(v, index, STATUS_WA);
		if (f) {
			f->index = (long long)i;
			verify_format_value(ex, v->exp_buf + i * es,
					    f->expected, sizeof(f->expected));
			verify_format_value(ex, out + i * es, f->got,
					    sizeof(f->got));
			snprintf(f->reason, sizeof(f->reason),
				 "wrong value at element %zu", i);
		}
		return;
	}
	v->state[index] = 1;
}

static int on_shape(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_shape m;
	struct exercise_shape s;
	uint64_t want;
	unsigned flags;

	if (proto_dec_shape(p, n, &m))
		return proto_fail(v, "malformed shape frame");
	if (v->current_phase != PROTO_PHASE_CORRECTNESS)
		return proto_fail(v, "shape frame outside the correctness "
				     "phase");
	if (m.index >= v->nshapes)
		return proto_fail(v, "shape index %u out of range", m.index);
	s = exercise_shape_at(v->ex, m.index, &flags);
	if ((flags & EXERCISE_EDGE_GPU_ONLY) && v->skip_gpu_only)
		return proto_fail(v, "shape %u was not asked for", m.index);
	want = (exercise_shape_elems(s) + 2 * PROTO_GUARD_ELEMS) *
	       v->ex->elem_size;
	if (m.guard_elems != PROTO_GUARD_ELEMS || m.total_bytes != want)
		return proto_fail(v, "shape %u: region of %llu bytes, "
				     "expected %llu", m.index,
				  (unsigned long long)m.total_bytes,
				  (unsigned long long)want);
	if (m.offset == 0) {
		if (v->state[m.index] == 1)
			return proto_fail(v, "shape %u sent twice", m.index);
		if (v->region_len < want) {
			free(v->region);
			v->region = xmalloc(want);
			v->region_len = want;
		}
		v->cur = m.index;
		v->filled = 0;
		v->input_hash = m.input_hash;
	}
	if (v->cur != (int64_t)m.index || m.offset != v->filled ||
	    m.input_hash != v->input_hash)
		return proto_fail(v, "shape %u: chunks out of order", m.index);
	memcpy(v->region + m.offset, m.data, m.len);
	v->filled += m.len;
	v->last_shape = m.index;
	if (v->filled == want) {
		check_region(v, m.index);
		v->cur = -1;
	}
	return 0;
}

static enum status error_status(const struct proto_error *e)
{
	switch (e->fault_kind) {
	case WGEMU_FAULT_OUT_OF_BOUNDS:
		return STATUS_OOB;
	case WGEMU_FAULT_RACE:
		return STATUS_RACE;
	case WGEMU_FAULT_LIMIT:
		return STATUS_TO;
	case WGEMU_FAULT_UNSUPPORTED:
		return STATUS_XX;
	case WGEMU_FAULT_NONE:
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

	if (proto_dec_error(p, n, &e))
		return proto_fail(v, "malformed error frame");
	if (!strcmp(e.name, "runner")) {
		/* the harness's own failure: not the student's fault */
		v->runner_internal = 1;
		snprintf(v->runner_error, sizeof(v->runner_error), "%s",
			 e.message);
		return 0;
	}
	st = error_status(&e);
	v->errors++;
	if (e.phase == PROTO_PHASE_CORRECTNESS) {
		if (e.index >= v->nshapes)
			return proto_fail(v, "error at shape %u out of range",
					  e.index);
		v->last_shape = e.index;
		f = fail_shape(v, e.index, st);
		if (f)
			snprintf(f->reason, sizeof(f->reason), "%s (%s)",
				 e.message, e.name);
		return 0;
	}
	/* performance or counter phase: the verdict still applies, and the
	 * message says where it happened */
	v->worst = status_worse(v->worst, st);
	v->any_failure = 1;
	if (!v->res->message || !*v->res->message)
		result_set_message(v->res, "%s phase: %s (%s)",
				   e.phase == PROTO_PHASE_PERF ?
				   "performance" : "counter", e.message,
				   e.name);
	return 0;
}

static int on_launches(struct verify *v, const unsigned char *p, size_t n)
{
	struct proto_launches l;

	if (proto_dec_launches(p, n, &l))
		return proto_fail(v, "malformed launches frame");
	v->launches += l.total;
	if (!l.total && l.phase == PROTO_PHASE_CORRECTNESS)
		v->zero_launch_calls++;
	for (uint32_t i = 0; i < l.count; i++) {
		if (l.launch[i].dynamic_shared_bytes)
			v->dynamic_shared_used = 1;
		if (!l.launch[i].on_given_stream)
			v->off_stream_launch = 1;
	}
	if (l.phase == PROTO_PHASE_CORRECTNESS && l.index < v->nshapes)
		v->last_shape = l.index;
	return 0;
}

int verify_frame(struct verify *v, enum proto_type t,
		 const unsigned char *p, size_t n)
{
	struct proto_phase_msg ph;
	struct proto_done d;

	/* the runner says hello once, first: a constructor that says it
	 * earlier would get the job (and the seed) before main */
	if ((t == PROTO_HELLO) == v->have_hello)
		return proto_fail(v, v->have_hello ? "a second hello frame" :
				  "a frame before the hello frame");
	switch (t) {
	case PROTO_HELLO:
		if (proto_dec_hello(p, n, &v->hello))
			return proto_fail(v, "malformed hello frame");
		v->have_hello = 1;
		return 0;
	case PROTO_PHASE:
		if (proto_dec_phase(p, n, &ph))
			return proto_fail(v, "malformed phase frame");
		if (!(ph.phase & v->phases) ||
		    (ph.phase & (ph.phase - 1)))
			return proto_fail(v, "phase %u was not asked for",
					  ph.phase);
		v->current_phase = ph.phase;
		return 0;
	case PROTO_SHAPE:
		return on_shape(v, p, n);
	case PROTO_LAUNCHES:
		return on_launches(v, p, n);
	case PROTO_ERROR:
		return on_error(v, p, n);
	case PROTO_PERF: {
		/* decoded aside: a malformed frame must leave nothing that
		 * verify_finish would read */
		struct proto_perf *pf = xmalloc(sizeof(*pf));

		if (v->current_phase != PROTO_PHASE_PERF ||
		    proto_dec_perf(p, n, pf)) {
			free(pf);
			return proto_fail(v, "malformed perf frame");
		}
		free(v->perf);
		v->perf = pf;
		return 0;
	}
	case PROTO_COUNTERS: {
		struct proto_counters *c = xmalloc(sizeof(*c));

		if (v->current_phase != PROTO_PHASE_COUNTERS ||
		    proto_dec_counters(p, n, c)) {
			free(c);
			return proto_fail(v, "malformed counters frame");
		}
		free(v->counters[c->who]);
		v->counters[c->who] = c;
		return 0;
	}
	case PROTO_DONE:
		if (proto_dec_done(p, n, &d))
			return proto_fail(v, "malformed done frame");
		if (d.phase != v->current_phase)
			return proto_fail(v, "done for a phase not running");
		v->done |= d.phase;
		return 0;
	default:
		return proto_fail(v, "unexpected %s frame",
				  proto_type_name(t));
	}
}

static const char *phase_name(uint32_t phase)
{
	switch (phase) {
	case PROTO_PHASE_CORRECTNESS:
		return "correctness";
	case PROTO_PHASE_PERF:
		return "performance";
	case PROTO_PHASE_COUNTERS:
		return "counter";
	}
	return "start-up";
}

void verify_process_end(struct verify *v, const struct verify_exit *x)
{
	uint32_t missing = v->phases & ~v->done;
	enum status st;
	char where[160];

	if (!missing && !x->timed_out && !x->killed_by_grader)
		return;
	/* a phase that ended on a reported CUDA error (the context is lost)
	 * is explained by that error already */
	if (x->exited && !x->exit_code && v->errors &&
	    !x->timed_out && !x->killed_by_grader && !v->runner_internal)
		return;
	snprintf(where, sizeof(where), "in the %s phase",
		 phase_name(v->current_phase));
	if (v->current_phase == PROTO_PHASE_CORRECTNESS &&
	    v->last_shape >= 0) {
		struct exercise_shape s = exercise_shape_at(
			v->ex, (size_t)v->last_shape, NULL);

		snprintf(where, sizeof(where), "at shape %lld (%s=%lld, "
			 "%s=%lld)", (long long)v->last_shape, v->ex->dim_m,
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
	/* a shape cut short by the crash is the shape that failed */
	if (v->current_phase == PROTO_PHASE_CORRECTNESS && v->last_shape >= 0
	    && v->state[v->last_shape] != 1) {
		struct failure *f = fail_shape(v, (size_t)v->last_shape, st);

		if (f)
			snprintf(f->reason, sizeof(f->reason), "%s",
				 v->res->message);
	}
}

/* Global accesses must move at most limit x the sectors the data needs
 * (and at least those: fewer means the work was not done). */
static void coalescing_check(struct verify *v, const char *name,
			     const struct proto_counters *c, double sectors,
			     double requests, double min_sectors)
{
	struct check_result *k = result_add_check(v->res, name);

	k->limit = v->cfg->coalescing_limit;
	if (!c)
		return;
	k->value = sectors / min_sectors;
	k->passed = sectors >= min_sectors && k->value <= k->limit;
	snprintf(k->detail, sizeof(k->detail), "%.0f sectors in %.0f requests "
		 "(%.2f per request) for %.0f sectors of data", sectors,
		 requests, requests ? sectors / requests : 0, min_sectors);
}

static void technique(struct verify *v)
{
	struct exercise_result *r = v->res;
	const struct exercise *ex = v->ex;
	const struct proto_counters *c = v->counters[0];
	double ld_sec = 0, st_sec = 0, ld_req = 0, st_req = 0;
	double sld = 0, sst = 0, sldc = 0, sstc = 0;
	double bytes, min_sectors;

	if (c) {
		for (uint32_t i = 0; i < c->count; i++) {
			ld_req += (double)c->launch[i].c[0];
			ld_sec += (double)c->launch[i].c[1];
			st_req += (double)c->launch[i].c[2];
			st_sec += (double)c->launch[i].c[3];
			sld += (double)c->launch[i].c[4];
			sldc += (double)c->launch[i].c[5];
			sst += (double)c->launch[i].c[6];
			sstc += (double)c->launch[i].c[7];
		}
	}
	bytes = (double)exercise_shape_elems(ex->counter_shape) *
		(double)ex->elem_size;
	min_sectors = ceil(bytes / 32);
	if (ex->techniques & EXERCISE_TECH_COALESCED) {
		coalescing_check(v, "coalesced global loads", c, ld_sec,
				 ld_req, min_sectors);
		coalescing_check(v, "coalesced global stores", c, st_sec,
				 st_req, min_sectors);
	}
	if (ex->techniques & EXERCISE_TECH_NO_CONFLICTS) {
		struct check_result *k = result_add_check(r,
			"no shared-memory bank conflicts");

		k->limit = 0;
		if (c) {
			k->value = sldc + sstc;
			k->passed = k->value == 0;
			snprintf(k->detail, sizeof(k->detail),
				 "%.0f load and %.0f store conflicts in %.0f "
				 "wavefronts", sldc, sstc, sld + sst);
		}
	}
	if (ex->techniques & EXERCISE_TECH_DYNAMIC_SHARED) {
		struct check_result *k = result_add_check(r,
			"dynamic shared memory used");

		k->limit = 1;
		/* launch records exist on every backend */
		if (v->launches) {
			k->value = v->dynamic_shared_used;
			k->passed = v->dynamic_shared_used &&
				    (!c || sld + sst > 0);
			snprintf(k->detail, sizeof(k->detail), "%s",
				 !v->dynamic_shared_used ?
				 "no launch asked for dynamic shared memory" :
				 k->passed ? "launched with dynamic shared "
					     "memory and used it" :
				 "dynamic shared memory requested but never "
				 "accessed");
		}
	}
	for (size_t i = 0; i < r->nchecks; i++)
		if (r->checks[i].passed < 0 && !r->checks[i].detail[0])
			snprintf(r->checks[i].detail,
				 sizeof(r->checks[i].detail),
				 "not measured: no traffic counters from "
				 "this run");
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

static void performance(struct verify *v)
{
	struct exercise_result *r = v->res;
	const struct proto_perf *p = v->perf;

	if (p && p->reps) {
		double floor_ms, bytes;

		r->student_ms = median(p->student_ms, p->reps);
		if (isnan(p->reference_ms[0])) {
			/* no reference (a student kit): measured against the
			 * device's copy bandwidth only */
			snprintf(r->perf_model, sizeof(r->perf_model),
				 "bandwidth");
		} else {
			snprintf(r->perf_model, sizeof(r->perf_model),
				 "time");
			score_speedup(p->reference_ms, p->student_ms,
				      p->reps, &r->speedup, &r->ci_low,
				      &r->ci_high);
			r->reference_ms = median(p->reference_ms, p->reps);
		}
		/* the bytes one call must move are the grader's to know:
		 * the input read once and the output written once */
		bytes = 2.0 * (double)exercise_shape_elems(
			v->ex->perf_shape) * (double)v->ex->elem_size;
		if (p->copy_gbps > 0 && r->student_ms > 0) {
			r->bandwidth_fraction = bytes /
				(r->student_ms * 1e6) / p->copy_gbps;
			floor_ms = bytes / (p->copy_gbps * 1e6);
			if (r->student_ms < v->cfg->floor_tolerance * floor_ms)
				result_add_flag(r, "below the physical floor");
		}
		if (p->mismatched_runs)
			result_add_flag(r, "stale or skipped output");
		if (p->outside_stream_runs ||
		    p->host_sync_ms > 1.5 * r->student_ms + 0.2)
			result_add_flag(r, "work outside the stream");
		if (v->off_stream_launch)
			result_add_flag(r, "launch on another stream");
		return;
	}
	/* the traffic model stands in for time only when the grader ran
	 * the submission on the emulator (never on the runner's word) */
	if (v->counters[0] && v->counters[1] && v->skip_gpu_only) {
		double cost[2];

		for (int w = 0; w < 2; w++) {
			double sec = 0, wf = 0;

			for (uint32_t i = 0; i < v->counters[w]->count; i++) {
				const uint64_t *k = v->counters[w]->launch[i].c;

				sec += (double)(k[1] + k[3]);
				wf += (double)(k[4] + k[6]);
			}
			cost[w] = score_traffic_cost(sec, wf);
		}
		snprintf(r->perf_model, sizeof(r->perf_model), "traffic");
		if (cost[0] > 0)
			r->speedup = cost[1] / cost[0];
	}
	/* the launch records exist on every backend: work put on another
	 * stream breaks the contract even where nothing is timed */
	if (v->off_stream_launch)
		result_add_flag(r, "launch on another stream");
}

void verify_finish(struct verify *v)
{
	struct exercise_result *r = v->res;
	size_t sweep_total = 0, edge_total = 0;

	for (size_t i = 0; i < v->nshapes; i++) {
		unsigned flags;

		exercise_shape_at(v->ex, i, &flags);
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
	technique(v);
	performance(v);
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
