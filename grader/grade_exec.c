/*
 * Running and verifying one exercise (see grade_exec.h).  Trusted code:
 * the runner and the replays run only through sandbox.c, and nothing is
 * taken from them but frames, which verify.c and measure.c check.
 */
#include "grade_exec.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "gpulock.h"
#include "grade_build.h"
#include "grade_early.h"
#include "gputurns.h"
#include "gpus.h"
#include "hostcrash.h"
#include "measure.h"
#include "protocol.h"
#include "rerun.h"
#include "sandbox.h"
#include "timings.h"
#include "util.h"
#include "verify.h"

/* the student's file kept for the source view and the blamed lines */
#define GRADE_SOURCE_MAX (256u << 10)

struct run_ctx {
	const struct proto_buf *job; /* sent once the runner says hello */
	int job_sent;
	struct verify *v;
	const struct grade_opts *o;
	double phase_timeout[8];
	size_t shapes_seen, nshapes;
	const char *name;
	struct gputurns *turns; /* the grade's turns on its GPU, or NULL */
	int took_turn;          /* its timed phase took one */
	int release;            /* its turn's end: set when it may go */
	struct grade_early *early; /* a GPU run's replays beside it, or NULL */
	uint32_t phases;           /* its job's */
};

/* Answer a timed repetition's key request with a fresh key; a request
 * for the timed phase's turn (PROTO_TURN_REP), once the turn has come,
 * with key 0 and the phase's clock started afresh. */
static int send_key(struct sandbox_run *sb, struct run_ctx *c,
		    const unsigned char *p, size_t n)
{
	struct proto_key k;
	struct proto_buf b;
	int rc;

	if (proto_dec_key(p, n, PROTO_KEY_REQUEST, &k))
		return -1;
	if (k.rep == PROTO_TURN_REP) {
		if (!c->turns || c->took_turn)
			return -1;
		gputurns_take(c->turns, &c->release);
		c->took_turn = 1;
		k.key = 0;
		sandbox_set_deadline(sb, c->phase_timeout[PROTO_PHASE_PERF]);
	} else if (getrandom(&k.key, sizeof(k.key), 0) != sizeof(k.key)) {
		k.key = (uint64_t)now_s() * 0x9e3779b97f4a7c15ULL ^ k.rep;
	}
	proto_buf_init(&b);
	proto_enc_key(&b, PROTO_KEY, &k);
	rc = b.oom ? -1 : sandbox_send(sb, b.data, b.len);
	proto_buf_release(&b);
	return rc;
}

/* Answer a DIGEST frame that verify accepted: send the region's bytes,
 * or nothing more. */
static int send_digest_reply(struct sandbox_run *sb, struct run_ctx *c)
{
	struct proto_digest_reply r;
	struct proto_buf b;
	int rc;

	if (!verify_digest_reply(c->v, &r))
		return 0;
	proto_buf_init(&b);
	proto_enc_digest_reply(&b, &r);
	rc = b.oom ? -1 : sandbox_send(sb, b.data, b.len);
	proto_buf_release(&b);
	return rc;
}

/* WARPGRADE_TURN_HANDOFF=exit: a timed turn ends when its runner's
 * process is gone, not when it is done timing (to measure what the
 * hand-over saves). */
static int handoff_at_exit(void)
{
	const char *s = getenv("WARPGRADE_TURN_HANDOFF");

	return s && !strcmp(s, "exit");
}

/* A phase of a GPU runner is done (verified): after the sweep, the
 * measured calls' replays begin; after the timed phase, the turn passes
 * on -- the runner waits, idle and with no clock, until released
 * (gputurns.h), then has the phase's time to exit -- and, when the same
 * process swept, the performance call's replay begins. */
static void on_done(struct sandbox_run *sb, struct run_ctx *c)
{
	int timed = verify_phase_done(c->v, PROTO_PHASE_PERF);

	if (timed && c->took_turn && handoff_at_exit()) {
		/* the turn ends with the process (a baseline) */
		__atomic_store_n(&c->release, 1, __ATOMIC_RELEASE);
	} else if (timed && c->took_turn) {
		sandbox_set_deadline(sb, 0);
		gputurns_done(c->turns, &c->release);
	}
	if (verify_phase_done(c->v, PROTO_PHASE_CORRECTNESS) &&
	    !verify_wants_keys(c->v))
		sandbox_close_input(sb);	/* no more digest replies */
	if (c->early && verify_phase_done(c->v, PROTO_PHASE_CORRECTNESS))
		grade_early_calls_start(c->early);
	/* (a timed phase alone in its process holds the GPU lock until
	 * the process is gone: its replay waits for that) */
	if (c->early && timed && (c->phases & PROTO_PHASE_CORRECTNESS))
		grade_early_perf_start(c->early);
}

/* One frame of the runner's: verified, then answered. */
static int on_frame(struct sandbox_run *sb, void *arg, enum proto_type t,
		    const unsigned char *payload, size_t len)
{
	struct run_ctx *c = arg;

	/* nothing comes after the timed phase's end, whose replay may be
	 * reading what was verified */
	if (c->early && c->early->perf_started)
		return -1;
	if (verify_frame(c->v, t, payload, len))
		return -1;
	if (t == PROTO_HELLO && !c->job_sent) {
		/* main() is running: student constructors are done, so the
		 * seed can go out now; stdin stays open for the keys of
		 * timed repetitions and the replies to digests */
		if (sandbox_send(sb, c->job->data, c->job->len))
			return -1;
		if (!verify_wants_input(c->v))
			sandbox_close_input(sb);
		c->job_sent = 1;
	}
	if (t == PROTO_KEY_REQUEST && send_key(sb, c, payload, len))
		return -1;
	if (t == PROTO_DIGEST && send_digest_reply(sb, c))
		return -1;
	if (t == PROTO_DONE)
		on_done(sb, c);
	if (t == PROTO_PHASE) {
		double limit = c->phase_timeout[
			verify_current_phase(c->v) & 7];

		if (limit > 0)
			sandbox_set_deadline(sb, limit);
	}
	if (t == PROTO_SHAPE && c->o->progress &&
	    !verify_shape_arriving(c->v) && (++c->shapes_seen % 128) == 0)
		grade_progress(c->o, "%s: %zu/%zu shapes checked", c->name,
			       c->shapes_seen, c->nshapes);
	return 0;
}

/* One runner process, on GPU slot (NULL: the emulator or the grader's
 * own GPU): its job, its sandbox, its frames into v. */
static int run_runner(const struct grade_opts *o, struct verify *v,
		      struct task *k, const struct gpu_slot *slot, int gpu,
		      uint32_t phases, uint32_t flags,
		      struct grade_early *early, char **output)
{
	const char *runner = k->runner[0], *workdir = k->dir;
	const char *name = k->ex->name;
	const char *argv[2] = { runner, NULL };
	char home[PATH_MAX + 8];
	const char *env[7];
	size_t ne = 0;
	const char *ro[3];
	const struct sandbox_grant grant[] = {
		{ workdir, 0710 }, { runner, 0750 }, { NULL, 0 }
	};
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto_job job;
	struct proto_buf jb;
	struct run_ctx ctx;
	struct verify_exit x;
	char *dir = NULL;
	const struct score_config *cfg = o->cfg;
	double corr = cfg->correctness_timeout_s;
	int rc = -1;

	sandbox_spec_init(&spec);
	memset(&res, 0, sizeof(res));
	memset(&ctx, 0, sizeof(ctx));
	proto_buf_init(&jb);
	verify_job(v, phases, flags, &job);
	proto_enc_job(&jb, &job);

	/* a private, empty working directory for each run */
	dir = xstrfmt("%s/run-%s-%u-%u", workdir, name, phases, flags);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		error("cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	snprintf(home, sizeof(home), "HOME=%s", dir);
	env[ne++] = "PATH=/usr/bin:/bin";
	env[ne++] = home;
	env[ne++] = "LANG=C";
	env[ne++] = "TMPDIR=/tmp";
	/* the GPU it is to use, and its contexts' connections (gpus.h) */
	gpus_env_append(env, &ne, slot && slot->env ? slot->env :
			gpus_env_inherited(), gpu);
	ro[0] = runner;
	ro[1] = NULL;

	ctx.v = v;
	ctx.o = o;
	ctx.job = &jb;
	ctx.name = name;
	ctx.nshapes = exercise_nshapes_all(k->ex);
	if (!gpu)
		corr *= 4; /* interpretation is slower than a GPU */
	ctx.phase_timeout[PROTO_PHASE_CORRECTNESS] = corr;
	ctx.phase_timeout[PROTO_PHASE_PERF] = cfg->perf_timeout_s;
	ctx.turns = gpu && slot ? slot->turns : NULL;
	ctx.early = gpu ? early : NULL;
	ctx.phases = phases;

	spec.argv = argv;
	spec.env = env;
	spec.workdir = dir;
	spec.private_workdir = 1;
	spec.ro_paths = ro;
	spec.gpu = gpu;
	spec.gpu_minor = gpu && slot ? slot->dev_minor : -1;
	spec.isolation = SANDBOX_ISOLATE_AUTO;
	spec.hold_stdin = 1;
	if (ctx.turns) {
		spec.close_input_when = &ctx.release;
		spec.close_input_wall_s = cfg->perf_timeout_s;
	}
	spec.on_frame = on_frame;
	spec.ctx = &ctx;
	/* start-up (CUDA initialisation) gets the counter-phase limit; the
	 * CPU limit covers every phase */
	score_runner_limits(cfg, cfg->counters_timeout_s, &spec.limits);
	spec.limits.cpu_s = (corr + cfg->perf_timeout_s +
			     cfg->counters_timeout_s) * cfg->cpu_factor;

	verify_process_begin(v, phases, flags);
	if (ctx.turns)
		gputurns_enter(ctx.turns);
	rc = sandbox_run_guest(&spec, &res, grant);
	if (ctx.turns)
		gputurns_leave(ctx.turns, &ctx.release);
	if (ctx.early)
		grade_early_perf_join(ctx.early);
	if (rc) {
		rc = -1;
		error("cannot run the runner for %s: %s", name, res.error);
		goto out;
	}
	if (res.frame_error[0])
		verify_stream_error(v, res.frame_error);
	memset(&x, 0, sizeof(x));
	x.timed_out = res.timed_out;
	x.signal = res.killed_by_callback ? 0 : res.signal;
	x.exited = res.exited || res.killed_by_callback;
	x.exit_code = res.exit_code;
	x.killed_by_grader = res.killed_by_callback;
	x.memory_exceeded = res.memory_exceeded;
	x.memory_limit = spec.limits.data_bytes;
	verify_process_end(v, &x);
	if (output) {
		char *s = xstrfmt("%s%s%s", *output ? *output : "",
				  res.out ? res.out : "",
				  res.err ? res.err : "");
		free(*output);
		*output = s;
	}
	free(k->run_isolation);
	k->run_isolation = xstrdup(res.isolation);
	rc = 0;
out:
	sandbox_result_release(&res);
	proto_buf_release(&jb);
	free(dir);
	return rc;
}

/* Where a run of the plan goes: a timed run alone in its process to the
 * grade's timing GPU, where it has one (grade_targets), else everything
 * to the exercise's GPU and lock. */
static const struct gpu_slot *slot_of(const struct task *k,
				      const struct grade_targets *g,
				      const struct gpulock_run *run,
				      struct gpulock **lock)
{
	if (g->timing && !(run->phases & PROTO_PHASE_CORRECTNESS)) {
		*lock = k->timing_lock ? k->timing_lock : g->timing->lock;
		return g->timing;
	}
	return k->gpu;
}

/* A GPU run's large outputs as digests (PROTO_JOB_DIGESTS) when it
 * sweeps; WARPGRADE_DIGESTS=0 has their bytes sent instead (to measure
 * what the digests save). */
static uint32_t digests(const struct gpulock_run *run)
{
	const char *s = getenv("WARPGRADE_DIGESTS");

	if (!(run->phases & PROTO_PHASE_CORRECTNESS) || (s && !strcmp(s, "0")))
		return 0;
	return PROTO_JOB_DIGESTS;
}

/* One runner process of the plan (gpulock_plan), started only once its
 * lock is held and released only when the process is gone; 0, or -1 when
 * the lock or the process could not be had. */
static int run_planned(const struct grade_opts *o, struct verify *v,
		       struct task *k, const struct grade_targets *g, int gpu,
		       const struct gpulock_run *run, struct gpulock *lock,
		       struct grade_early *early, char **output)
{
	uint32_t flags = gpu ? run->job_flags | digests(run) :
			       PROTO_JOB_SKIP_GPU_ONLY | PROTO_JOB_PERF_RECORD;
	const struct gpu_slot *slot = gpu ? slot_of(k, g, run, &lock) : NULL;
	int rc;

	if (run->mode != GPULOCK_NONE && gpulock_acquire(lock, run->mode))
		return -1;
	rc = run_runner(o, v, k, slot, gpu, run->phases, flags, early,
			output);
	gpulock_release(lock);
	return rc;
}

/* The plan of k's runner processes (gpulock.h): under a lock shared
 * with other graders, turns among the grade's own exercises, or
 * alone. */
static size_t plan_runs(const struct task *k, int gpu,
			const struct gpulock *lock, struct gpulock_run runs[2])
{
	return gpulock_plan(gpu, lock ? GPULOCK_LOCKED :
			    k->gpu && k->gpu->turns ? GPULOCK_TURNS :
			    GPULOCK_ALONE, runs);
}

/* The runner on the grading backend (on a GPU: correctness, then the
 * timed phase, in one process or, under a GPU lock shared with other
 * graders, in two): the part that needs the GPU.  k->v is set up for
 * grade_exec_measure; k->measure is 0 when nothing is left to
 * measure. */
static void run_primary(const struct grade_opts *o, struct task *k,
			const struct grade_targets *g, uint64_t seed)
{
	const struct build_target *tgt = g->primary;
	struct exercise_result *e = k->res;
	int gpu = tgt->backend == BUILD_CUDA;
	struct verify *v = xcalloc(1, sizeof(*v));
	struct gpulock *lock = k->lock ? k->lock :
			       k->gpu ? k->gpu->lock : NULL;
	struct gpulock_run runs[2];
	size_t nruns = plan_runs(k, gpu, lock, runs);
	const struct gpu_slot *timer = g->timing ? g->timing : k->gpu;
	char phase[48];
	int failed = 0;
	struct grade_early early = { .o = o, .k = k, .g = g };

	grade_early_link_start(&early);
	k->v = v;
	k->measure = 1;
	grade_progress(o, "%s: running on %s", k->ex->name, tgt->arch);
	/* what the emulator runs of this object (its runner on the
	 * emulator, the replays) may stop at what it lacks */
	verify_init(v, k->ex, o->cfg, seed, !gpu, e, &k->lacks);
	/* the registers of the kernels a prediction runs */
	if (!gpu)
		build_reference_usage(tgt, &k->ref_usage);
	v->usage = &k->usage;
	v->ref_usage = &k->ref_usage;
	for (size_t i = 0; i < nruns && !failed; i++) {
		/* the timed phase follows a sweep that ran to its end, as
		 * it does within one runner */
		if (i && !verify_phase_done(v, PROTO_PHASE_CORRECTNESS))
			break;
		if (i)
			grade_early_calls_start(&early);
		failed = run_planned(o, v, k, g, gpu, &runs[i], lock,
				     &early, &e->runner_output);
	}
	grade_early_link_join(&early);
	grade_early_join(&early);
	snprintf(phase, sizeof(phase), "runner %s%s", tgt->arch,
		 gpu ? " (correctness, timing)" : " (correctness)");
	k->lap = timings_lap(&e->timings, phase, k->lap);
	if (gpu && timer && timer->label) /* the GPU that timed it */
		snprintf(e->perf_gpu, sizeof(e->perf_gpu), "%s", timer->label);
	if (failed) {
		verify_not_run(v, "the runner could not be started");
		k->measure = 0;
	} else if (gpu && !k->emu_ok) {
		verify_unmeasured(v, k->emu_why[0] ? k->emu_why : "no "
				  "emulator here to replay the measured calls");
		k->measure = 0;
	}
}

/* The trusted replays (measure.c) of the records the runner made of
 * the measured calls and of the performance call -- on a GPU, records
 * of the GPU's own launches (harness/gpurec.h) -- which the technique
 * checks and the emulator's performance figure come from. */
static void run_measured(const struct grade_opts *o, struct task *k,
			 const struct grade_targets *g)
{
	int gpu = g->primary->backend == BUILD_CUDA;
	struct timings *tm = &k->res->timings;
	struct verify *v = k->v;

	if (!g->replay) {
		verify_unmeasured(v, "the replay program is not built");
		return;
	}
	grade_progress(o, "%s: replaying the measured calls", k->ex->name);
	if (!k->calls_measured)
		measure_calls(v, o->cfg, g->replay,
			      gpu ? k->obj[1] : k->obj[0], k->dir);
	if (!k->perf_measured)
		measure_perf(v, o->cfg, g->replay,
			     gpu ? k->obj[1] : k->obj[0], k->dir);
	k->lap = timings_lap(tm, "replays (technique, traffic)", k->lap);
}

void grade_exec_primary(const struct grade_opts *o, struct task *k,
			const struct grade_targets *g, uint64_t seed)
{
	struct exercise_result *e = k->res;

	k->ran = 1;
	if (k->state != T_READY)
		return;
	k->started = k->lap = now_s();
	snprintf(k->dir, sizeof(k->dir), "%s/x-%s", g->workdir, k->ex->name);
	if (mkdir(k->dir, 0700) && errno != EEXIST) {
		e->status = STATUS_XX;
		result_set_message(e, "cannot create '%s': %s", k->dir,
				   strerror(errno));
		return;
	}
	e->source = read_file(k->src, GRADE_SOURCE_MAX, NULL);
	run_primary(o, k, g, seed);
}

void grade_exec_measure(const struct grade_opts *o, struct task *k,
			const struct grade_targets *g)
{
	struct exercise_result *e = k->res;

	if (!k->v)
		return;
	if (k->measure)
		run_measured(o, k, g);
	verify_finish(k->v);
	verify_release(k->v);
	free(k->v);
	k->v = NULL;
	k->lap = timings_lap(&e->timings, "verdict and score", k->lap);
	k->verified = 1;
}

void grade_exec_locate(const struct grade_opts *o, struct task *k,
		       const struct grade_targets *g, uint64_t seed)
{
	struct exercise_result *e = k->res;
	int gpu = g->primary->backend == BUILD_CUDA;
	struct gpulock *lock = gpu && k->gpu ? k->gpu->lock : NULL;
	struct gputurns *turns = gpu && k->gpu ? k->gpu->turns : NULL;
	const struct rerun_job job = {
		o->cfg, seed, gpu ? (k->emu_ok ? k->runner[1] : NULL) :
		k->runner[0], gpu ? k->runner[0] : NULL, k->dir,
		k->gpu && k->gpu->env ? k->gpu->env : gpus_env_inherited(),
		k->gpu ? k->gpu->dev_minor : -1
	};
	char *debug;

	if (!k->verified)
		return;
	debug = xstrfmt("%s%s", k->runner[0], BUILD_DEBUG_SUFFIX);
	hostcrash_locate(e, debug, k->dir);
	free(debug);
	if (rerun_wanted(e, gpu)) {
		grade_progress(o, "%s: rerunning shape #%zu to locate it",
			       k->ex->name, e->first_failure.shape_index);
		if (turns)
			gputurns_enter(turns);
		if (!lock || !gpulock_acquire(lock, GPULOCK_SHARED))
			rerun_first_failure(&job, e);
		gpulock_release(lock);
		if (turns)
			gputurns_leave(turns, 0);
	}
	digest_output(e);
	timings_lap(&e->timings, "locating the failure", k->lap);
	e->seconds = now_s() - k->started;
}

void grade_exec_exercise(const struct grade_opts *o, struct task *k,
			 const struct grade_targets *g, uint64_t seed)
{
	grade_exec_primary(o, k, g, seed);
	grade_exec_measure(o, k, g);
	grade_exec_locate(o, k, g, seed);
}
