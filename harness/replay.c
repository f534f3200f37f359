/*
 * The replay: technique and emulator performance measured where student
 * code cannot reach.  A process of its own, linked with the emulator,
 * the exercise table and the reference launchers -- and nothing of the
 * student's but the PTX it reads from the student's compiled object.
 * It gets from the grader (framed, on stdin) which measured call of a
 * run to replay and that call's launch record (emu/trace.h, written by
 * the emulator in the runner while the student's launcher ran), and:
 *
 *   1. runs the reference launcher at the call's shape on fresh input,
 *      and reports its traffic;
 *   2. re-creates the device state the record describes, puts the
 *      input the grader's seed gives into the call's input buffer and a
 *      poisoned, guarded region where its output goes, and re-runs every
 *      recorded allocation, copy, memset and launch of the student's
 *      kernels in order -- no student host code runs here;
 *   3. reports the output region (the grader checks it against its
 *      oracle: a record that does not compute the output earns nothing),
 *      the traffic of every launch, copy and memset summed and per source
 *      line, and what the call moved between host and device.
 *
 * The performance call (index exercise_nshapes_all: the launcher at the
 * performance shape, recorded without running) is instead predicted:
 * the reference's time and the record's on the job's GPU (emu/perf.h),
 * from a sample of each launch's blocks drawn from the job's seed --
 * or, where the model cannot predict it, a NOTE saying why: a launch
 * past its caps, or launches whose samples, scaled to their grids, do
 * not move the call's data even once every sample is extended.
 *
 * A record it cannot replay gets a NOTE saying why, never a crash: the
 * record is the student's word.  `wg-replay --check OBJECT [PTX]`
 * instead says whether the emulator can run the object's PTX at all,
 * and writes that PTX to the file PTX, for ptxas to count its kernels'
 * registers (compile.c).  A job may carry those counts; the prediction
 * gives them to the model (wgemu_perf_regs), which assumes 32 for a
 * kernel without one.
 */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/perf.h"
#include "emu/trace.h"
#include "emu/wgemu.h"
#include "emufault.h"
#include "exercise.h"
#include "objptx.h"
#include "protocol.h"
#include "runner_entry.h"

#define OUT_FD 3
#define CHUNK_BYTES (32u << 20)
/* a copy engine moves whole sectors */
#define SECTOR 32u

typedef void (*launcher_fn)(void *out, const void *in, int m, int n,
			    cudaStream_t stream);

struct replay {
	struct proto_replay job;
	const struct exercise *ex;
	struct exercise_shape shape;
	unsigned char *rec;
	size_t rec_len;
	int mod;               /* the student's module */
	uint32_t hash;
	struct proto_traffic t;
	struct proto_note note;
	struct proto_kernels kernels; /* launched by the replayed call */
};

static int send(struct proto_buf *b)
{
	int rc = b->oom || proto_write_all(OUT_FD, b->data, b->len) ? -1 : 0;

	proto_buf_release(b);
	return rc;
}

static void die(const char *what)
{
	fprintf(stderr, "wg-replay: %s\n", what);
	exit(3);
}

/* ---- input ---- */

/* Read the job and the record (RECORD frames up to its length). */
static void read_input(struct replay *r)
{
	unsigned char *buf = malloc(PROTO_MAX_PAYLOAD);
	enum proto_type t;
	size_t n, filled = 0;
	int have_job = 0;
	char why[160], msg[200];

	if (!buf)
		die("out of memory");
	for (;;) {
		struct proto_record m;
		int got = proto_read_frame(0, &t, buf, PROTO_MAX_PAYLOAD, &n,
					   why, sizeof(why));

		if (got < 0) {
			snprintf(msg, sizeof(msg), "malformed input: %s", why);
			die(msg);
		}
		if (got == 0)
			break;
		if (t == PROTO_REPLAY && !have_job) {
			if (proto_dec_replay(buf, n, &r->job))
				die("malformed job");
			have_job = 1;
			continue;
		}
		if (t != PROTO_RECORD || !have_job ||
		    proto_dec_record(buf, n, &m) || m.offset != filled ||
		    (r->rec && m.total_bytes != r->rec_len))
			die("malformed record");
		if (!r->rec) {
			r->rec_len = m.total_bytes;
			r->rec = malloc(r->rec_len ? r->rec_len : 1);
			if (!r->rec)
				die("out of memory");
		}
		memcpy(r->rec + filled, m.data, m.len);
		filled += m.len;
	}
	if (!have_job || filled != r->rec_len)
		die("no job, or a record cut short");
	free(buf);
}

/* ---- output ---- */

static void send_hello(void)
{
	struct proto_hello h;
	struct proto_buf b;

	memset(&h, 0, sizeof(h));
	snprintf(h.backend, sizeof(h.backend), "replay");
	snprintf(h.device, sizeof(h.device), "warpgrade emulator (sm_90)");
	h.cc_major = 9;
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	if (send(&b))
		die("cannot write");
}

static void send_region(const struct replay *r, const unsigned char *reg,
			size_t total, uint64_t input_hash)
{
	size_t off = 0;

	do {
		struct proto_shape m;
		struct proto_buf b;
		size_t n = total - off < CHUNK_BYTES ? total - off :
						       CHUNK_BYTES;

		m.index = r->job.index;
		m.guard_elems = PROTO_GUARD_ELEMS;
		m.total_bytes = total;
		m.offset = off;
		m.input_hash = input_hash;
		m.data = reg + off;
		m.len = n;
		proto_buf_init(&b);
		proto_enc_shape(&b, &m);
		if (send(&b))
			die("cannot write");
		off += n;
	} while (off < total);
}

static void send_traffic(const struct proto_traffic *t)
{
	struct proto_buf b;

	proto_buf_init(&b);
	proto_enc_traffic(&b, t);
	if (send(&b))
		die("cannot write");
}

static int note(struct replay *r, enum proto_note_kind kind,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(struct replay *r, enum proto_note_kind kind,
		const char *fmt, ...)
{
	va_list ap;

	if (r->note.kind)
		return -1; /* the first reason is the one that counts */
	r->note.index = r->job.index;
	r->note.kind = kind;
	va_start(ap, fmt);
	vsnprintf(r->note.message, sizeof(r->note.message), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- counting ---- */

static void add_counters(uint64_t *c, const struct wgemu_counters *w)
{
	const uint64_t v[PC_COUNT] = {
		w->global_load_requests, w->global_load_sectors,
		w->global_store_requests, w->global_store_sectors,
		w->shared_load_wavefronts, w->shared_load_bank_conflicts,
		w->shared_store_wavefronts, w->shared_store_bank_conflicts,
		w->lane_instructions, w->global_atomic_requests,
		w->global_atomic_sectors, w->shared_load_bytes,
		w->shared_store_bytes, w->dynamic_shared_load_bytes,
		w->dynamic_shared_store_bytes, w->dynamic_shared_moved_bytes,
	};

	for (int k = 0; k < PC_COUNT; k++)
		c[k] += v[k];
}

/* The launches since the last reset, summed into t. */
static void sum_launches(struct proto_traffic *t)
{
	struct wgemu_launch l;

	for (size_t i = 0; !wgemu_launch_get(i, &l); i++) {
		add_counters(t->c, &l.counters);
		t->launches++;
		t->dynamic_smem_launches += l.dynamic_shared_bytes > 0;
	}
}

/* A device-side copy or memset, as a copy engine moves it: whole
 * sectors of each side, counted apart from the kernels' traffic. */
static void count_copy(uint64_t *c, uint64_t dst, uint64_t src, uint64_t n,
		       int with_src)
{
	if (!n)
		return;
	c[PC_CPY_ST_SEC] += (dst + n - 1) / SECTOR - dst / SECTOR + 1;
	c[PC_CPY_ST_MIN] += n; /* bytes until copy_minimum */
	if (with_src) {
		c[PC_CPY_LD_SEC] += (src + n - 1) / SECTOR - src / SECTOR + 1;
		c[PC_CPY_LD_MIN] += n;
	}
}

/* The least sectors the call's copies and memsets need, from their
 * bytes in all: a copy scattered in pieces smaller than a sector (a
 * transpose done by cudaMemcpy2D, one element wide) pays for every
 * sector it touches beyond that. */
static void copy_minimum(uint64_t *c)
{
	c[PC_CPY_LD_MIN] = (c[PC_CPY_LD_MIN] + SECTOR - 1) / SECTOR;
	c[PC_CPY_ST_MIN] = (c[PC_CPY_ST_MIN] + SECTOR - 1) / SECTOR;
}

/* Per source line traffic of the launches since the last reset. */
static void send_lines(const struct replay *r)
{
	struct proto_lines *m = calloc(1, sizeof(*m));
	struct wgemu_line ln;
	struct proto_buf b;

	if (!m)
		die("out of memory");
	m->index = r->job.index;
	for (size_t i = 0; i < wgemu_launch_count(); i++)
		for (size_t j = 0; !wgemu_line_get(i, j, &ln); j++) {
			uint32_t k;

			for (k = 0; k < m->count; k++)
				if (m->line[k].line == ln.line &&
				    !strcmp(m->line[k].file, ln.file))
					break;
			if (k == m->count) {
				if (k == PROTO_MAX_LINES)
					continue;
				m->count++;
				snprintf(m->line[k].file,
					 sizeof(m->line[k].file), "%s",
					 ln.file);
				m->line[k].line = ln.line;
			}
			add_counters(m->line[k].c, &ln.counters);
		}
	proto_buf_init(&b);
	proto_enc_lines(&b, m);
	free(m);
	if (send(&b))
		die("cannot write");
}

/* ---- the reference ---- */

static launcher_fn reference_of(const struct exercise *ex)
{
	for (const struct runner_entry *e = runner_entries; e->name; e++)
		if (!strcmp(e->name, ex->name))
			return (launcher_fn)e->reference;
	return NULL;
}

static void run_reference(struct replay *r)
{
	launcher_fn ref = reference_of(r->ex);
	size_t bytes = exercise_shape_elems(r->shape) * r->ex->elem_size;
	struct proto_traffic t;
	unsigned char *h_in = malloc(bytes ? bytes : 1);
	void *d_in = NULL, *d_out = NULL;

	if (!ref || !h_in) {
		free(h_in);
		return; /* a student kit: no reference to compare with */
	}
	r->ex->generate(r->job.seed, r->job.index, r->shape, h_in);
	if (cudaMalloc(&d_in, bytes) || cudaMalloc(&d_out, bytes) ||
	    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice))
		die("cannot set up the reference run");
	wgemu_launches_reset();
	ref(d_out, d_in, (int)r->shape.m, (int)r->shape.n, 0);
	if (cudaDeviceSynchronize())
		die("the reference failed");
	memset(&t, 0, sizeof(t));
	t.who = 1;
	t.index = r->job.index;
	sum_launches(&t);
	send_traffic(&t);
	cudaFree(d_in);
	cudaFree(d_out);
	free(h_in);
	wgemu_launches_reset();
}

/* ---- the student's record ---- */

/* The call's input and poisoned, guarded output where the record says
 * they are. */
static int fill_buffers(struct replay *r, const struct emu_trace_head *h)
{
	size_t es = r->ex->elem_size, elems = exercise_shape_elems(r->shape);
	size_t g = PROTO_GUARD_ELEMS * es;
	unsigned char *in, *out;

	if (h->in_bytes != elems * es || h->out_bytes != elems * es + 2 * g)
		return note(r, NOTE_MISMATCH, "the record's buffers are not "
			    "the call's (%llu input bytes for %zu)",
			    (unsigned long long)h->in_bytes, elems * es);
	in = wgemu_host_ptr(h->in, elems * es);
	out = wgemu_host_ptr(h->out, elems * es + 2 * g);
	if (!in || !out)
		return note(r, NOTE_MISMATCH, "the record's buffers are not "
			    "allocations it lists");
	r->ex->generate(r->job.seed, r->job.index, r->shape, in);
	memset(out, PROTO_GUARD_BYTE, g);
	memset(out + g, PROTO_POISON_BYTE, elems * es);
	memset(out + g + elems * es, PROTO_GUARD_BYTE, g);
	return 0;
}

static int place(struct replay *r, const struct emu_trace_op *op)
{
	int rc = 1;
	unsigned char *p;

	if (op->kind == TR_VAR && op->value == r->hash)
		rc = wgemu_place_var(r->mod, op->name, op->a, op->n,
				     op->data, (size_t)op->ndata);
	if (rc < 0)
		return note(r, NOTE_MISMATCH, "variable '%s' does not fit "
			    "the record", op->name);
	if (rc == 0)
		return 0;
	/* live before the call: only its recorded bytes and the shape's
	 * buffers (fill_buffers) matter, so untouched pages stay unmapped */
	if (wgemu_alloc_at(op->a, op->n, 1))
		return note(r, NOTE_MISMATCH, "allocations that overlap");
	p = wgemu_host_ptr(op->a, (size_t)op->ndata);
	if (op->ndata && op->ndata <= op->n && p)
		memcpy(p, op->data, (size_t)op->ndata);
	return 0;
}

static int do_copy(struct replay *r, const struct emu_trace_op *op)
{
	unsigned char *d, *s;

	switch (op->copy) {
	case TR_H2D:
		r->t.h2d_bytes += op->n;
		d = wgemu_host_ptr(op->a, (size_t)op->n);
		if (!d || op->ndata != op->n)
			return note(r, NOTE_MISMATCH, "a copy to memory the "
				    "record does not allocate");
		memcpy(d, op->data, (size_t)op->n);
		return 0;
	case TR_D2H:
		r->t.d2h_bytes += op->n;
		return 0;
	case TR_D2D:
		d = wgemu_host_ptr(op->a, (size_t)op->n);
		s = wgemu_host_ptr(op->b, (size_t)op->n);
		if (!d || !s)
			return note(r, NOTE_MISMATCH, "a device copy outside "
				    "the record's allocations");
		memmove(d, s, (size_t)op->n);
		r->t.copies++;
		count_copy(r->t.c, op->a, op->b, op->n, 1);
		return 0;
	}
	return note(r, NOTE_MISMATCH, "a copy of unknown direction");
}

/* A kernel the replayed call launched, kept once. */
static void note_kernel(struct replay *r, const char *mangled)
{
	struct proto_kernels *k = &r->kernels;
	uint64_t h = proto_kernel_hash(mangled);

	for (uint32_t i = 0; i < k->count; i++)
		if (k->k[i].hash == h)
			return;
	if (k->count == PROTO_MAX_KERNELS) {
		k->more++;
		return;
	}
	k->k[k->count].hash = h;
	wgemu_demangle(mangled, k->k[k->count].name,
		       sizeof(k->k[k->count].name));
	k->count++;
}

static void send_kernels(struct replay *r)
{
	struct proto_buf b;

	r->kernels.index = r->job.index;
	proto_buf_init(&b);
	proto_enc_kernels(&b, &r->kernels);
	if (send(&b))
		die("cannot write");
}

static int do_launch(struct replay *r, const struct emu_trace_op *op)
{
	const void *k = op->value == r->hash ?
			wgemu_module_kernel(r->mod, op->name) : NULL;
	char fault[512];
	enum proto_fault kind;

	if (!k)
		return note(r, NOTE_FOREIGN_KERNEL, "it launches '%s', which "
			    "is not a kernel of the submission's file",
			    op->name);
	if ((op->a == 1 ? wgemu_launch_raw_cooperative : wgemu_launch_raw)(
		     k, op->grid, op->block, (size_t)op->n, op->data,
		     (size_t)op->ndata) != cudaSuccess)
		return note(r, NOTE_MISMATCH, "a launch of '%s' the emulator "
			    "refuses (%s)", op->name,
			    cudaGetErrorString(cudaGetLastError()));
	kind = emufault_to_proto(wgemu_last_fault(fault, sizeof(fault)));
	if (kind == PROTO_FAULT_UNSUPPORTED)
		return note(r, NOTE_UNSUPPORTED, "%s", fault);
	if (kind != PROTO_FAULT_NONE)
		return note(r, NOTE_FAULT, "%s", fault);
	note_kernel(r, op->name);
	return 0;
}

static int replay_op(struct replay *r, const struct emu_trace_op *op)
{
	unsigned char *p;

	switch (op->kind) {
	case TR_ALLOC: case TR_VAR:
		return place(r, op);
	case TR_MALLOC:
		if (wgemu_alloc_at(op->a, op->n, 0))	/* as the call's */
			return note(r, NOTE_MISMATCH, "allocations that "
				    "overlap");
		return 0;
	case TR_FREE:
		return cudaFree((void *)(uintptr_t)op->a) ?
		       note(r, NOTE_MISMATCH, "a free of memory the record "
			    "does not allocate") : 0;
	case TR_MEMSET:
		p = wgemu_host_ptr(op->a, (size_t)op->n);
		if (!p)
			return note(r, NOTE_MISMATCH, "a memset outside the "
				    "record's allocations");
		memset(p, (int)op->value, (size_t)op->n);
		r->t.copies++;
		count_copy(r->t.c, op->a, 0, op->n, 0);
		return 0;
	case TR_COPY:
		return do_copy(r, op);
	case TR_LAUNCH:
		return do_launch(r, op);
	case TR_UNTRACED:
		return note(r, NOTE_INCOMPLETE, "it uses %s, which a launch "
			    "record cannot describe", op->name);
	case TR_TEXTURE:
		return wgemu_texture_at(op->a, (int)op->value, op->data,
					(size_t)op->ndata) ?
		       note(r, NOTE_MISMATCH, "a texture object the "
			    "emulator cannot re-create") : 0;
	default:
		return note(r, NOTE_MISMATCH, "an unknown entry");
	}
}

static void replay_student(struct replay *r)
{
	struct emu_trace_reader rd;
	struct emu_trace_head h;
	struct emu_trace_op op;
	size_t es = r->ex->elem_size, elems = exercise_shape_elems(r->shape);
	int filled = 0, k = -1;

	memset(&r->t, 0, sizeof(r->t));
	r->t.index = r->job.index;
	wgemu_launches_reset();
	if (emu_trace_read_head(&rd, r->rec, r->rec_len, &h)) {
		note(r, NOTE_MISMATCH, "%s", rd.error);
		return;
	}
	if (h.truncated)
		note(r, NOTE_INCOMPLETE, "the record was cut short at %zu "
		     "MiB", EMU_TRACE_MAX_BYTES >> 20);
	while (!r->note.kind && (k = emu_trace_next(&rd, &op)) == 1) {
		if (!filled && op.kind != TR_ALLOC && op.kind != TR_VAR) {
			if (fill_buffers(r, &h))
				break;
			filled = 1;
		}
		replay_op(r, &op);
	}
	if (k < 0)
		note(r, NOTE_MISMATCH, "%s", rd.error);
	if (!r->note.kind && !filled)
		fill_buffers(r, &h);
	if (r->note.kind) {
		struct proto_buf b;

		proto_buf_init(&b);
		proto_enc_note(&b, &r->note);
		if (send(&b))
			die("cannot write");
		return;
	}
	copy_minimum(r->t.c);
	sum_launches(&r->t);
	send_traffic(&r->t);
	send_lines(r);
	send_kernels(r);
	send_region(r, wgemu_host_ptr(h.out, (size_t)h.out_bytes),
		    (size_t)h.out_bytes, exercise_hash(wgemu_host_ptr(h.in,
		    elems * es), elems * es));
}

/* ---- the performance call: a prediction ---- */

static int load_student(struct replay *r);

/*
 * In a prediction (wgemu_perf_begin, sampled only) a record's memsets
 * and copies go through the runtime, which charges them their modelled
 * time and moves nothing; launches run their sample of blocks.
 */
static int predict_op(struct replay *r, const struct emu_trace_op *op)
{
	static unsigned char sink[1];
	void *a = (void *)(uintptr_t)op->a, *b = (void *)(uintptr_t)op->b;

	switch (op->kind) {
	case TR_MEMSET:
		return cudaMemset(a, (int)op->value, (size_t)op->n) ?
		       note(r, NOTE_MISMATCH, "a memset outside the record's "
			    "allocations") : 0;
	case TR_COPY:
		if (cudaMemcpy(op->copy == TR_D2H ? sink : a,
			       op->copy == TR_H2D ? sink : b, (size_t)op->n,
			       (enum cudaMemcpyKind)op->copy))
			return note(r, NOTE_MISMATCH, "a copy outside the "
				    "record's allocations");
		return 0;
	default:
		return replay_op(r, op);
	}
}

/* The reference launcher at the performance shape, predicted. */
static double predict_reference(struct replay *r)
{
	launcher_fn ref = reference_of(r->ex);
	size_t bytes = exercise_shape_elems(r->shape) * r->ex->elem_size;
	void *d_in = NULL, *d_out = NULL;
	double ms;

	if (!ref)
		return 0; /* a student kit */
	if (wgemu_perf_begin(r->job.gpu, 1))
		die("unknown GPU for the prediction");
	wgemu_perf_sample(r->job.seed, 0, 0);
	if (cudaMalloc(&d_in, bytes) || cudaMalloc(&d_out, bytes))
		die("cannot set up the reference's prediction");
	ref(d_out, d_in, (int)r->shape.m, (int)r->shape.n, 0);
	if (cudaDeviceSynchronize())
		die("the reference failed");
	ms = wgemu_perf_total_ms();
	wgemu_perf_end();
	cudaFree(d_in);
	cudaFree(d_out);
	return ms;
}

/* The timed call's traffic, for the grader to hold against the
 * measured calls': the blocks the prediction interpreted (their shared
 * memory's conflicts and staging), with the global sectors of every
 * kernel launch scaled from its sample to its grid (atomics in both). */
static void send_sampled_traffic(struct replay *r)
{
	struct proto_traffic t;
	struct wgemu_perf_launch l;
	double ld = 0, st = 0;

	memset(&t, 0, sizeof(t));
	t.index = r->job.index;
	sum_launches(&t);
	for (size_t i = 0; !wgemu_perf_get(i, &l); i++)
		if (l.kernel[0] != '(') {   /* not a memset or a copy */
			ld += l.load_sectors;
			st += l.store_sectors;
		}
	t.c[PC_GLD_SEC] = (uint64_t)(ld + 0.5);
	t.c[PC_GST_SEC] = (uint64_t)(st + 0.5);
	t.c[PC_GATOM_SEC] = 0;
	send_traffic(&t);
}

/* The slowest launch of the prediction, in words. */
static void describe(struct proto_prediction *p)
{
	struct wgemu_perf_launch l, worst;
	size_t n = wgemu_perf_count();

	memset(&worst, 0, sizeof(worst));
	for (size_t i = 0; i < n; i++)
		if (!wgemu_perf_get(i, &l) && l.ms > worst.ms)
			worst = l;
	p->launches = (uint32_t)n;
	snprintf(p->kernel, sizeof(p->kernel), "%s", worst.kernel);
	snprintf(p->limit, sizeof(p->limit), "%s", worst.limit);
	p->resident_blocks = (uint32_t)worst.resident_blocks;
	p->active_sms = (uint32_t)worst.active_sms;
	p->sampled = (uint32_t)worst.sampled;
	p->grid_blocks = worst.grid[0] * worst.grid[1] * worst.grid[2];
	p->regs = worst.regs;
}

/* The record's launches, memsets and copies through a prediction
 * (left open), each launch's sample extended when extend, at most
 * budget lane-instructions interpreted (0: the model's cap); 0, or -1
 * with a note. */
static int predict_record(struct replay *r, int extend, uint64_t budget)
{
	struct emu_trace_reader rd;
	struct emu_trace_head h;
	struct emu_trace_op op;
	int k = -1;

	if (wgemu_perf_begin(r->job.gpu, 1))
		die("unknown GPU for the prediction");
	wgemu_perf_sample(r->job.seed, extend, budget);
	wgemu_launches_reset();
	if (emu_trace_read_head(&rd, r->rec, r->rec_len, &h))
		note(r, NOTE_MISMATCH, "%s", rd.error);
	else if (h.truncated)
		note(r, NOTE_INCOMPLETE, "the record was cut short at %zu "
		     "MiB", EMU_TRACE_MAX_BYTES >> 20);
	while (!r->note.kind && !wgemu_perf_why() &&
	       (k = emu_trace_next(&rd, &op)) == 1)
		predict_op(r, &op);
	if (k < 0)
		note(r, NOTE_MISMATCH, "%s", rd.error);
	if (wgemu_perf_why())
		note(r, NOTE_NO_PREDICTION, "%s", wgemu_perf_why());
	return r->note.kind ? -1 : 0;
}

/*
 * The reference's prediction and the record's.  A record whose
 * samples do not show the call moving its data (its input loaded, its
 * output stored: wgemu_perf_coverage) is predicted again -- it is
 * deterministic -- with every launch's sample extended, within what
 * the first pass left of the cap; if that does not show it either,
 * there is no prediction.
 */
static void predict(struct replay *r)
{
	struct proto_prediction p;
	struct proto_buf b;
	char why[sizeof(r->note.message)];
	double bytes = (double)exercise_shape_elems(r->shape) *
		       (double)r->ex->elem_size;
	uint64_t spent;

	memset(&p, 0, sizeof(p));
	for (uint32_t i = 0; i < r->job.nregs; i++)
		wgemu_perf_regs(r->job.regs[i].name, r->job.regs[i].regs);
	p.reference_ms = predict_reference(r);
	if (!predict_record(r, 0, 0)) {
		int short_of = wgemu_perf_coverage(bytes, bytes, why,
						   sizeof(why));

		spent = wgemu_perf_interpreted();
		if (short_of && spent < PERF_PREDICTION_CAP) {
			wgemu_perf_end();
			cudaDeviceReset();
			load_student(r);
			if (!predict_record(r, 1, PERF_PREDICTION_CAP - spent))
				short_of = wgemu_perf_coverage(bytes, bytes,
						why, sizeof(why));
		}
		if (short_of)
			note(r, NOTE_NO_PREDICTION, "%s", why);
	}
	snprintf(p.gpu, sizeof(p.gpu), "%s", wgemu_perf_gpu());
	proto_buf_init(&b);
	if (r->note.kind) {
		proto_enc_note(&b, &r->note);
	} else {
		p.student_ms = wgemu_perf_total_ms();
		describe(&p);
		proto_enc_prediction(&b, &p);
		send_kernels(r);
		send_sampled_traffic(r);
	}
	wgemu_perf_end();
	if (send(&b))
		die("cannot write");
}

/* ---- main ---- */

static int load_student(struct replay *r)
{
	char err[512], *ptx = NULL;
	size_t len;

	if (objptx_read(r->job.object, &ptx, &len, err, sizeof(err)))
		die(err);
	r->mod = wgemu_load_ptx(ptx, len, err, sizeof(err));
	free(ptx);
	if (r->mod < 0)
		die(err);
	r->hash = wgemu_module_hash(r->mod);
	return 0;
}

/* --check OBJECT: 0 the emulator can load it: a line
 * "lacks\tMANGLED\tNAME\tWHAT\tWHERE" for each kernel and instruction
 * it cannot run (wgemu_check_ptx), then "ok".
 * CHECK_CANNOT it cannot load it (the line says why), CHECK_NO_PTX the
 * object has no PTX to read.  Codes no sandbox tool uses for its own
 * failures (bwrap: 1). */
#define CHECK_CANNOT 10
#define CHECK_NO_PTX 11

/* a field of a lacks line: no tab or line end can split it */
static void put_field(const char *s, size_t max)
{
	putchar('\t');
	for (size_t i = 0; s[i] && i < max; i++)
		putchar((unsigned char)s[i] < ' ' || s[i] == 0x7f ? '?' :
			s[i]);
}

static void put_lack(const struct wgemu_lack *l, void *ctx)
{
	(void)ctx;
	fputs("lacks", stdout);
	put_field(l->kernel, 200);
	put_field(l->name, sizeof(l->name));
	put_field(l->what, 256);
	put_field(l->where, 96);
	putchar('\n');
}

static int check(const char *obj, const char *ptx_out)
{
	char err[512], *ptx = NULL;
	size_t len;
	int rc;
	FILE *f;

	if (objptx_read(obj, &ptx, &len, err, sizeof(err))) {
		printf("no PTX: %s\n", err);
		return CHECK_NO_PTX;
	}
	/* no copy for ptxas is no count of registers, not a failure */
	if (ptx_out && (f = fopen(ptx_out, "wb"))) {
		if (fwrite(ptx, 1, len, f) != len)
			unlink(ptx_out);
		if (fclose(f))
			unlink(ptx_out);
	}
	rc = wgemu_check_ptx(ptx, len, put_lack, NULL, err, sizeof(err));
	free(ptx);
	if (rc < 0) {
		printf("the emulator cannot parse the PTX: %s\n", err);
		return CHECK_CANNOT;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct replay r;
	unsigned flags;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--check"))
		return check(argv[2], argc == 4 ? argv[3] : NULL);
	memset(&r, 0, sizeof(r));
	wgemu_replay_mode();
	send_hello();
	read_input(&r);
	r.ex = exercise_find(r.job.exercise);
	if (!r.ex)
		die("unknown exercise");
	if (r.job.index == exercise_nshapes_all(r.ex)) {
		/* the performance call */
		r.shape = r.ex->perf_shape;
		load_student(&r);
		predict(&r);
	} else {
		r.shape = exercise_shape_of(r.ex, r.job.seed, r.job.index,
					    &flags);
		if (!(flags & EXERCISE_SHAPE_MEASURED))
			die("not a measured call");
		load_student(&r);
		run_reference(&r);
		replay_student(&r);
	}
	{
		struct proto_done d = { 0, 1 };
		struct proto_buf b;

		proto_buf_init(&b);
		proto_enc_done(&b, &d);
		if (send(&b))
			die("cannot write");
	}
	free(r.rec);
	return 0;
}
