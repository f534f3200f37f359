/*
 * The replays of the measured calls (see measure.h).
 */
#include "measure.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox.h"
#include "util.h"

#define CHUNK_BYTES (32u << 20)

/* One replay's stream as it arrives. */
struct replay_ctx {
	struct verify *v;
	size_t k;
	struct measured_call *mc;
	int hello, done;
	unsigned char *region;
	uint64_t region_len, filled, input_hash;
	char error[256];
};

static int bad(struct replay_ctx *c, const char *what)
{
	if (!c->error[0])
		snprintf(c->error, sizeof(c->error), "the replay sent %s",
			 what);
	return -1;
}

static int on_shape(struct replay_ctx *c, const unsigned char *p, size_t n)
{
	struct proto_shape m;

	if (proto_dec_shape(p, n, &m) || m.index != c->mc->index)
		return bad(c, "a malformed output");
	if (m.offset == 0 && !c->region) {
		if (m.total_bytes > ((uint64_t)1 << 32))
			return bad(c, "an output too large");
		c->region_len = m.total_bytes;
		c->region = xmalloc(m.total_bytes ? m.total_bytes : 1);
		c->input_hash = m.input_hash;
	}
	if (!c->region || m.offset != c->filled ||
	    m.total_bytes != c->region_len)
		return bad(c, "its output out of order");
	memcpy(c->region + m.offset, m.data, m.len);
	c->filled += m.len;
	if (c->filled == c->region_len)
		verify_measured_region(c->v, c->k, c->region, c->region_len,
				       c->input_hash);
	return 0;
}

static int on_frame(struct sandbox_run *sb, void *arg, enum proto_type t,
		    const unsigned char *p, size_t n)
{
	struct replay_ctx *c = arg;
	struct measured_call *mc = c->mc;
	struct proto_traffic tr;

	if (c->done || (t == PROTO_HELLO) == c->hello)
		return bad(c, "frames out of order");
	switch (t) {
	case PROTO_HELLO:
		c->hello = 1;
		return 0;
	case PROTO_SHAPE:
		return on_shape(c, p, n);
	case PROTO_TRAFFIC:
		if (proto_dec_traffic(p, n, &tr) || tr.index != mc->index ||
		    (tr.who ? mc->have_ref : mc->have_stu))
			return bad(c, "malformed traffic");
		if (tr.who) {
			mc->ref = tr;
			mc->have_ref = 1;
		} else {
			mc->stu = tr;
			mc->have_stu = 1;
		}
		return 0;
	case PROTO_LINES:
		if (mc->lines)
			return bad(c, "a second line table");
		mc->lines = xmalloc(sizeof(*mc->lines));
		return proto_dec_lines(p, n, mc->lines) ||
		       mc->lines->index != mc->index ?
		       bad(c, "a malformed line table") : 0;
	case PROTO_KERNELS:
		if (mc->kernels)
			return bad(c, "a second kernel list");
		mc->kernels = xmalloc(sizeof(*mc->kernels));
		return proto_dec_kernels(p, n, mc->kernels) ||
		       mc->kernels->index != mc->index ?
		       bad(c, "a malformed kernel list") : 0;
	case PROTO_NOTE:
		return proto_dec_note(p, n, &mc->note) || mc->note.index !=
		       mc->index ? bad(c, "a malformed note") : 0;
	case PROTO_PREDICTION:
		if (mc != &c->v->perf_call || c->v->have_prediction ||
		    proto_dec_prediction(p, n, &c->v->prediction))
			return bad(c, "a malformed prediction");
		c->v->have_prediction = 1;
		return 0;
	case PROTO_DONE:
		c->done = 1;
		return 0;
	default:
		return bad(c, "an unexpected frame");
	}
}

/* ptxas's registers of u's kernels into the job, as far as they fit */
static void add_regs(struct proto_replay *job, const struct resusage *u)
{
	for (size_t i = 0; u && i < u->n && job->nregs < PROTO_MAX_REGS;
	     i++) {
		snprintf(job->regs[job->nregs].name,
			 sizeof(job->regs[0].name), "%s", u->k[i].name);
		job->regs[job->nregs++].regs = u->k[i].regs;
	}
}

/* The replay's stdin: the job, then the record in chunks. */
static void job_input(const struct verify *v, const struct measured_call *mc,
		      const char *object, const char *gpu,
		      struct proto_buf *b)
{
	struct proto_replay job;
	uint64_t off = 0;

	memset(&job, 0, sizeof(job));
	snprintf(job.exercise, sizeof(job.exercise), "%s", v->ex->name);
	job.seed = v->seed;
	job.index = (uint32_t)mc->index;
	snprintf(job.object, sizeof(job.object), "%s", object);
	snprintf(job.gpu, sizeof(job.gpu), "%s", gpu);
	add_regs(&job, v->usage);
	add_regs(&job, v->ref_usage);
	proto_enc_replay(b, &job);
	do {
		struct proto_record m;

		m.index = (uint32_t)mc->index;
		m.total_bytes = mc->record_len;
		m.offset = off;
		m.data = mc->record + off;
		m.len = mc->record_len - off < CHUNK_BYTES ?
			mc->record_len - off : CHUNK_BYTES;
		proto_enc_record(b, &m);
		off += m.len;
	} while (off < mc->record_len);
}

/* Replay measured call k, or the performance call when k is
 * EXERCISE_MEASURED. */
static void replay_one(struct verify *v, const struct score_config *cfg,
		       size_t k, const char *replay, const char *object,
		       const char *workdir)
{
	struct measured_call *mc = k < EXERCISE_MEASURED ? &v->measured[k] :
				   &v->perf_call;
	const char *argv[2] = { replay, NULL };
	const char *ro[3] = { replay, object, NULL };
	const char *env[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
	struct sandbox_grant grant[] = {
		{ workdir, 0710 }, { object, 0640 }, { NULL, 0 }
	};
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct replay_ctx c;
	struct proto_buf in;
	char *dir = xstrfmt("%s/replay-%s-%zu", workdir, v->ex->name, k);
	char how[160];

	memset(&c, 0, sizeof(c));
	memset(&res, 0, sizeof(res));
	proto_buf_init(&in);
	c.v = v;
	c.k = k;
	c.mc = mc;
	job_input(v, mc, object, cfg->predict_gpu, &in);
	if ((mkdir(dir, 0700) && errno != EEXIST) || in.oom) {
		snprintf(mc->replay_error, sizeof(mc->replay_error), "cannot "
			 "prepare the replay: %s", strerror(errno));
		goto out;
	}
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = env;
	spec.workdir = dir;
	spec.private_workdir = 1;
	spec.ro_paths = ro;
	spec.input = in.data;
	spec.input_len = in.len;
	spec.on_frame = on_frame;
	spec.ctx = &c;
	/* a helper, but it runs the student's kernels: the CPU factor and
	 * the memory of a runner */
	sandbox_limits_profile(SANDBOX_PROFILE_HELPER, cfg->counters_timeout_s,
			       &spec.limits);
	spec.limits.cpu_s = cfg->counters_timeout_s * cfg->cpu_factor;
	spec.limits.data_bytes = cfg->data_limit_bytes;
	if (sandbox_run_guest(&spec, &res, grant)) {
		snprintf(mc->replay_error, sizeof(mc->replay_error), "cannot "
			 "run the replay: %.200s", res.error);
		goto out;
	}
	if (res.frame_error[0])
		bad(&c, "a corrupt stream");
	if (res.timed_out) {
		/* the record says what to run: a record that runs too long
		 * is the student's */
		mc->note.kind = NOTE_FAULT;
		snprintf(mc->note.message, sizeof(mc->note.message), "its "
			 "launches did not finish in the replay's %.0f s",
			 cfg->counters_timeout_s);
	} else if (c.error[0] || !res.exited || res.exit_code || !c.done) {
		const char *err = res.err && *res.err ? res.err : "";

		if (c.error[0])
			snprintf(mc->replay_error, sizeof(mc->replay_error),
				 "%.200s", c.error);
		else
			snprintf(mc->replay_error, sizeof(mc->replay_error),
				 "the replay %.60s%s%.*s", sandbox_describe(&res,
				 &spec.limits, how, sizeof(how)),
				 *err ? ": " : "", (int)strcspn(err, "\n") <
				 150 ? (int)strcspn(err, "\n") : 150, err);
	} else {
		mc->replayed = 1;
	}
out:
	sandbox_result_release(&res);
	proto_buf_release(&in);
	free(c.region);
	free(dir);
}

size_t measure_calls(struct verify *v, const struct score_config *cfg,
		     const char *replay, const char *object,
		     const char *workdir)
{
	size_t n = 0;

	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		if (!verify_measured_replayable(v, k))
			continue;
		replay_one(v, cfg, k, replay, object, workdir);
		n++;
	}
	return n;
}

size_t measure_perf(struct verify *v, const struct score_config *cfg,
		    const char *replay, const char *object,
		    const char *workdir)
{
	if (!verify_perf_replayable(v))
		return 0;
	replay_one(v, cfg, EXERCISE_MEASURED, replay, object, workdir);
	return 1;
}

size_t measure_exercise(struct verify *v, const struct score_config *cfg,
			const char *replay, const char *object,
			const char *workdir)
{
	return measure_calls(v, cfg, replay, object, workdir) +
	       measure_perf(v, cfg, replay, object, workdir);
}
