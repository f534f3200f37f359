/*
 * The grading pipeline (see grade.h).  Trusted code: it compiles and runs
 * the submission only through build.c and sandbox.c, and takes nothing
 * from the runner but frames, which verify.c checks.
 */
#include "grade.h"

#include <errno.h>
#include <pthread.h>
#include <grp.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "compile.h"
#include "digest.h"
#include "gpulock.h"
#include "hostcrash.h"
#include "intake.h"
#include "measure.h"
#include "paths.h"
#include "protocol.h"
#include "rerun.h"
#include "sandbox.h"
#include "util.h"
#include "verify.h"

#define WG_VERSION_STR "0.1.0"
/* the student's file kept for the source view and the blamed lines */
#define GRADE_SOURCE_MAX (256u << 10)

enum task_state { T_MISSING, T_CE, T_REJECTED, T_XX, T_READY };

struct task {
	const struct exercise *ex;
	struct exercise_result *res;
	char src[PATH_MAX];
	const char *root;        /* the submission's kept tree */
	char obj[2][PATH_MAX];   /* primary target, emulator for counters */
	char runner[2][PATH_MAX]; /* a runner of its own for each */
	enum task_state state;
	int emu_ok;              /* the counters object built and passed */
	char emu_why[512];       /* why not, when it did not */
	char *log;
	char why[512];
};

struct run_ctx {
	struct proto_decoder dec;
	const struct proto_buf *job; /* sent once the runner says hello */
	int job_sent;
	struct verify *v;
	const struct grade_opts *o;
	double phase_timeout[8];
	int killed;
	size_t shapes_seen;
	const char *name;
};

static void progress(const struct grade_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct grade_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->progress)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/* Answer a timed repetition's key request with a fresh key. */
static int send_key(struct sandbox_run *sb, const unsigned char *p,
		    size_t n)
{
	struct proto_key k;
	struct proto_buf b;
	int rc;

	if (proto_dec_key(p, n, PROTO_KEY_REQUEST, &k))
		return -1;
	if (getrandom(&k.key, sizeof(k.key), 0) != sizeof(k.key))
		k.key = (uint64_t)now_s() * 0x9e3779b97f4a7c15ULL ^ k.rep;
	proto_buf_init(&b);
	proto_enc_key(&b, PROTO_KEY, &k);
	rc = b.oom ? -1 : sandbox_send(sb, b.data, b.len);
	proto_buf_release(&b);
	return rc;
}

static int on_data(struct sandbox_run *sb, void *arg,
		   const unsigned char *p, size_t n)
{
	struct run_ctx *c = arg;
	enum proto_type t;
	const unsigned char *payload;
	size_t len;
	int r;

	if (proto_decoder_feed(&c->dec, p, n))
		goto bad;
	while ((r = proto_decoder_next(&c->dec, &t, &payload, &len)) == 1) {
		if (verify_frame(c->v, t, payload, len))
			goto bad;
		if (t == PROTO_HELLO && !c->job_sent) {
			/* main() is running: student constructors are done,
			 * so the seed can go out now; stdin stays open for
			 * the keys of timed repetitions */
			if (sandbox_send(sb, c->job->data, c->job->len))
				goto bad;
			if (!(c->v->phases & PROTO_PHASE_PERF))
				sandbox_close_input(sb);
			c->job_sent = 1;
		}
		if (t == PROTO_KEY_REQUEST && send_key(sb, payload, len))
			goto bad;
		if (t == PROTO_PHASE) {
			double limit = c->phase_timeout[
				c->v->current_phase & 7];

			if (limit > 0)
				sandbox_set_deadline(sb, limit);
		}
		if (t == PROTO_SHAPE && c->o->progress &&
		    c->v->cur < 0 && (++c->shapes_seen % 128) == 0)
			progress(c->o, "%s: %zu/%zu shapes checked", c->name,
				 c->shapes_seen, c->v->nshapes);
	}
	if (r < 0) {
		snprintf(c->v->protocol_error, sizeof(c->v->protocol_error),
			 "%s", c->dec.error);
		goto bad;
	}
	return 0;
bad:
	c->killed = 1;
	return -1;
}

/* What isolation the last runner and the first compiler had, for the
 * report. */
static char *last_isolation, *compile_isolation;

/* One runner process: its job, its sandbox, its frames into v. */
static int run_runner(const struct grade_opts *o, struct verify *v,
		      const char *runner, const char *workdir, int gpu,
		      uint32_t phases, uint32_t flags, char **output)
{
	const char *argv[2] = { runner, NULL };
	char home[PATH_MAX + 8];
	const char *env[5];
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
	memset(&job, 0, sizeof(job));
	proto_buf_init(&jb);
	snprintf(job.exercise, sizeof(job.exercise), "%s", v->ex->name);
	job.seed = v->seed;
	job.phases = phases;
	job.perf_reps = cfg->perf_reps;
	job.flags = flags;
	proto_enc_job(&jb, &job);

	/* a private, empty working directory for each run */
	dir = xstrfmt("%s/run-%s-%u-%u", workdir, v->ex->name, phases, flags);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		error("cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	snprintf(home, sizeof(home), "HOME=%s", dir);
	env[0] = "PATH=/usr/bin:/bin";
	env[1] = home;
	env[2] = "LANG=C";
	env[3] = "TMPDIR=/tmp";
	env[4] = NULL;
	ro[0] = runner;
	ro[1] = NULL;

	proto_decoder_init(&ctx.dec, 0);
	ctx.v = v;
	ctx.o = o;
	ctx.job = &jb;
	ctx.name = v->ex->name;
	if (!gpu)
		corr *= 4; /* interpretation is slower than a GPU */
	ctx.phase_timeout[PROTO_PHASE_CORRECTNESS] = corr;
	ctx.phase_timeout[PROTO_PHASE_PERF] = cfg->perf_timeout_s;

	spec.argv = argv;
	spec.env = env;
	spec.workdir = dir;
	spec.private_workdir = 1;
	spec.ro_paths = ro;
	spec.gpu = gpu;
	spec.isolation = SANDBOX_ISOLATE_AUTO;
	spec.hold_stdin = 1;
	spec.on_data = on_data;
	spec.ctx = &ctx;
	/* start-up (CUDA initialisation) gets the counter-phase limit */
	spec.limits.wall_s = cfg->counters_timeout_s;
	spec.limits.cpu_s = (corr + cfg->perf_timeout_s +
			     cfg->counters_timeout_s) * cfg->cpu_factor;
	spec.limits.data_bytes = cfg->data_limit_bytes;
	spec.limits.nproc = cfg->nproc_limit;
	spec.limits.fsize_bytes = cfg->fsize_limit_bytes;
	spec.limits.nofile = cfg->nofile_limit;
	spec.limits.out_cap = cfg->output_cap_bytes;

	verify_process_begin(v, phases, flags);
	if (sandbox_run_guest(&spec, &res, grant)) {
		error("cannot run the runner for %s: %s", v->ex->name,
		      res.error);
		goto out;
	}
	memset(&x, 0, sizeof(x));
	x.timed_out = res.timed_out;
	x.signal = ctx.killed ? 0 : res.signal;
	x.exited = res.exited || ctx.killed;
	x.exit_code = res.exit_code;
	x.killed_by_grader = ctx.killed;
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
	free(last_isolation);
	last_isolation = xstrdup(res.isolation);
	rc = 0;
out:
	sandbox_result_release(&res);
	proto_decoder_release(&ctx.dec);
	proto_buf_release(&jb);
	free(dir);
	return rc;
}

/* One runner process of the plan (gpulock_plan), started only once its
 * lock is held and released only when the process is gone; 0, or -1 when
 * the lock or the process could not be had. */
static int run_planned(const struct grade_opts *o, struct verify *v,
		       const char *runner, const char *workdir, int gpu,
		       const struct gpulock_run *run, struct gpulock *lock,
		       char **output)
{
	uint32_t flags = gpu ? 0 : PROTO_JOB_SKIP_GPU_ONLY |
				   PROTO_JOB_PERF_RECORD;
	int rc;

	if (run->mode != GPULOCK_NONE && gpulock_acquire(lock, run->mode))
		return -1;
	rc = run_runner(o, v, runner, workdir, gpu, run->phases, flags,
			output);
	gpulock_release(lock);
	return rc;
}

/*
 * Run one exercise and verify it: the runner on the grading backend (on a
 * GPU: correctness, then the timed phase, in one process or, sharing the
 * GPU with other graders, in two); on a GPU host, the measured calls once
 * more on the emulator, whose runner records them; then the replays of
 * the records (measure.c), which the technique checks and the emulator's
 * performance figure come from.
 */
static void run_exercise(const struct grade_opts *o, struct task *k,
			 const struct build_target *tgt, const char *replay,
			 uint64_t seed, const char *workdir,
			 struct gpulock *lock)
{
	struct exercise_result *e = k->res;
	int gpu = tgt->backend == BUILD_CUDA;
	const char *emu_obj = gpu ? k->obj[1] : k->obj[0];
	struct gpulock_run runs[2];
	size_t nruns = gpulock_plan(gpu, lock != NULL, runs);
	struct verify v;

	progress(o, "%s: running on %s", k->ex->name, tgt->arch);
	verify_init(&v, k->ex, o->cfg, seed, !gpu, e);
	for (size_t i = 0; i < nruns; i++) {
		/* the timed phase follows a sweep that ran to its end, as
		 * it does within one runner */
		if (i && !(v.done & PROTO_PHASE_CORRECTNESS))
			break;
		if (run_planned(o, &v, k->runner[0], workdir, gpu, &runs[i],
				lock, &e->runner_output)) {
			e->status = STATUS_XX;
			v.worst = STATUS_XX;
			result_set_message(e, "the runner could not be "
					   "started");
			goto out;
		}
	}
	if (gpu && !k->emu_ok) {
		snprintf(v.unmeasured_why, sizeof(v.unmeasured_why), "%s",
			 k->emu_why[0] ? k->emu_why : "no emulator here to "
			 "replay the measured calls");
		goto out;
	}
	if (gpu) {
		progress(o, "%s: recording the measured calls", k->ex->name);
		run_runner(o, &v, k->runner[1], workdir, 0,
			   PROTO_PHASE_CORRECTNESS, PROTO_JOB_SKIP_GPU_ONLY |
			   PROTO_JOB_MEASURED_ONLY, NULL);
	}
	if (!replay) {
		snprintf(v.unmeasured_why, sizeof(v.unmeasured_why), "the "
			 "replay program is not built");
		goto out;
	}
	progress(o, "%s: replaying the measured calls", k->ex->name);
	measure_exercise(&v, o->cfg, replay, emu_obj, workdir);
out:
	verify_finish(&v);
	verify_release(&v);
}

/*
 * Say where the first failure happened when the run did not: a host
 * crash from the runner's crash line, and on a GPU (or when the tests
 * force it) the first failing shape once more on the emulator and under
 * compute-sanitizer -- a GPU runner, so it holds the GPU lock shared when
 * there is one.  Then the output is digested.
 */
static void locate_failure(const struct grade_opts *o, struct task *k,
			   const struct build_target *tgt, uint64_t seed,
			   const char *workdir, struct gpulock *lock)
{
	struct exercise_result *e = k->res;
	int gpu = tgt->backend == BUILD_CUDA;
	const struct rerun_job job = {
		o->cfg, seed, gpu ? (k->emu_ok ? k->runner[1] : NULL) :
		k->runner[0], gpu ? k->runner[0] : NULL, workdir
	};
	char *debug = xstrfmt("%s%s", k->runner[0], BUILD_DEBUG_SUFFIX);

	hostcrash_locate(e, debug, workdir);
	free(debug);
	if (rerun_wanted(e, gpu)) {
		progress(o, "%s: rerunning shape #%zu to locate it",
			 k->ex->name, e->first_failure.shape_index);
		if (!(gpu && lock) || !gpulock_acquire(lock, GPULOCK_SHARED))
			rerun_first_failure(&job, e);
		gpulock_release(lock);
	}
	digest_output(e);
}

static int selected(const struct grade_opts *o, const struct exercise *ex)
{
	if (!o->nonly)
		return 1;
	for (size_t i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], ex->name))
			return 1;
	return 0;
}

/* Where staging and build directories go. */
static const char *tmp_dir(const struct grade_opts *o)
{
	const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

/* Exit codes of a build child. */
enum { BUILD_OK, BUILD_CE, BUILD_REJECTED, BUILD_FAILED, BUILD_LINK,
       BUILD_UNEMULABLE };

/* In a child process: compile one exercise for one target, check its
 * symbols (once, for the primary target) and link a runner of its own --
 * one runner per exercise, so that two files defining the same kernel
 * name, or one that does not link, cost nothing to the others.  The log
 * goes to a file; the exit status says what happened. */
static int build_task(const struct grade_opts *o, struct task *k,
		      const struct build_target *tgt, int which,
		      const char *workdir, const char *replay)
{
	char *log = NULL, why[512] = "";
	char *lp = xstrfmt("%s/%s.%s.log", workdir, k->ex->name, tgt->arch);
	const char *obj = k->obj[which];
	char iso[256] = "";
	const struct compile_job job = {
		tgt, o->cfg, k->ex, k->root, k->src, obj, tmp_dir(o),
		tgt->backend == BUILD_EMU ? replay : NULL
	};
	int rc = compile_student(&job, &log, iso, sizeof(iso));
	int emulable = rc != 2;
	char *ip = xstrfmt("%s/%s.%s.iso", workdir, k->ex->name, tgt->arch);

	write_file_atomic(ip, iso, strlen(iso));
	free(ip);
	if (rc < 0)
		rc = BUILD_FAILED;
	else if (rc == 1)
		rc = BUILD_CE;
	else if (which == 0 &&
		 (rc = build_check_symbols(k->ex, obj, why, sizeof(why)))) {
		/* a refused symbol is the student's, before anything the
		 * emulator lacks */
		free(log);
		log = xstrdup(why);
		rc = rc > 0 ? BUILD_REJECTED : BUILD_FAILED;
	} else if (!emulable) {
		/* the grader's own look at the PTX decided what the
		 * emulator cannot run, before anything runs; log says */
		rc = BUILD_UNEMULABLE;
	} else {
		free(log);
		log = NULL;
		rc = build_link(tgt, o->cfg, &k->ex, &obj, 1, workdir,
				k->runner[which], &log) ? BUILD_LINK : 0;
	}
	if (log)
		write_file_atomic(lp, log, strlen(log));
	free(log);
	free(lp);
	return rc;
}

/* Record what a build child reported. */
static void build_done(struct task *k, const struct build_target *tgt,
		       int which, int code, const char *workdir)
{
	char *lp = xstrfmt("%s/%s.%s.log", workdir, k->ex->name, tgt->arch);
	char *log = read_file(lp, 64 << 10, NULL);
	char *ip = xstrfmt("%s/%s.%s.iso", workdir, k->ex->name, tgt->arch);
	char *iso = read_file(ip, 1024, NULL);

	free(lp);
	free(ip);
	if (iso && *iso && !compile_isolation)
		compile_isolation = iso;
	else
		free(iso);
	if (which == 1) {
		/* the emulator's counter runner: technique checks only */
		k->emu_ok = code == BUILD_OK;
		if (code == BUILD_UNEMULABLE)
			snprintf(k->emu_why, sizeof(k->emu_why), "%.400s",
				 log ? log : "");
		else if (code == BUILD_LINK)
			build_link_why(log, 2, k->emu_why,
					 sizeof(k->emu_why));
		else if (code != BUILD_OK)
			snprintf(k->emu_why, sizeof(k->emu_why), "%.400s",
				 log ? log : "it did not build");
		free(log);
		return;
	}
	free(k->log);
	k->log = log;
	switch (code) {
	case BUILD_OK:
		break;
	case BUILD_CE:
		k->state = T_CE;
		break;
	case BUILD_REJECTED:
		k->state = T_REJECTED;
		snprintf(k->why, sizeof(k->why), "%s", log ? log : "");
		break;
	case BUILD_LINK:
		k->state = T_XX;
		build_link_why(log, tgt->backend == BUILD_EMU, k->why,
				 sizeof(k->why));
		break;
	case BUILD_UNEMULABLE:
		k->state = T_XX;
		snprintf(k->why, sizeof(k->why), "%.400s (grade it on a GPU, "
			 "or do without)", log ? log : "");
		break;
	default:
		k->state = T_XX;
		snprintf(k->why, sizeof(k->why), "could not compile or check: "
			 "%.400s", log ? log : "");
	}
}

/* The builds of one target, shared by the threads that run them. */
struct build_pool {
	const struct grade_opts *o;
	struct task *t;
	size_t n;
	const struct build_target *tgt;
	int which;
	const char *workdir, *replay;
	int *code;		/* per task: build_task's result */
	pthread_mutex_t mu;
	size_t next;
};

static void *build_worker(void *arg)
{
	struct build_pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->mu);
		while (p->next < p->n && p->t[p->next].state != T_READY)
			p->next++;
		i = p->next < p->n ? p->next++ : p->n;
		pthread_mutex_unlock(&p->mu);
		if (i == p->n)
			return NULL;
		p->code[i] = build_task(p->o, &p->t[i], p->tgt, p->which,
					p->workdir, p->replay);
	}
}

/* Build every ready task for one target, up to o->jobs at a time. */
static void build_all(const struct grade_opts *o, struct task *t, size_t n,
		      const struct build_target *tgt, int which,
		      const char *workdir, const char *replay)
{
	struct build_pool p = { o, t, n, tgt, which, workdir, replay,
				xcalloc(n ? n : 1, sizeof(int)),
				PTHREAD_MUTEX_INITIALIZER, 0 };
	unsigned jobs = o->jobs ? o->jobs : 1, started = 0;
	pthread_t *th = xcalloc(jobs, sizeof(*th));

	for (size_t i = 0; i < n; i++) {
		snprintf(t[i].obj[which], sizeof(t[i].obj[which]),
			 "%s/%s.%s.o", workdir, t[i].ex->name, tgt->arch);
		snprintf(t[i].runner[which], sizeof(t[i].runner[which]),
			 "%s/runner-%s.%s", workdir, t[i].ex->name,
			 tgt->arch);
	}
	for (; started < jobs && started < n; started++)
		if (pthread_create(&th[started], NULL, build_worker, &p))
			break;
	if (!started)
		build_worker(&p);
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	for (size_t i = 0; i < n; i++)
		if (t[i].state == T_READY)
			build_done(&t[i], tgt, which, p.code[i], workdir);
	free(th);
	free(p.code);
}

/* The replay program, copied into the grade's working directory, which
 * each guest run is let into: the tree it was built in may be closed to
 * other users (a checkout under a private home).  Its path (static), or
 * the original when the copy fails. */
static const char *private_replay(const char *path, const char *workdir)
{
	static char copy[PATH_MAX];

	if (snprintf(copy, sizeof(copy), "%s/wg-replay", workdir) >=
	    (int)sizeof(copy) || copy_program(path, copy)) {
		warning("cannot copy the replay program into '%s': %s",
			workdir, strerror(errno));
		return path;
	}
	return copy;
}

/* The submission's name in reports: the last component of its path
 * ("hw/alice/" and "hw/alice" are both "alice"). */
static char *submission_name(const char *path)
{
	char *copy = xstrdup(path), *end = copy + strlen(copy), *start;

	while (end > copy + 1 && end[-1] == '/')
		*--end = '\0';
	start = strrchr(copy, '/');
	start = start && start[1] ? start + 1 : copy;
	memmove(copy, start, strlen(start) + 1);
	return copy;
}

static char *iso_now(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

/* The report's isolation line: the runner's, and the compiler's when it
 * ran under another kind of protection. */
static char *isolation_line(void)
{
	const char *run = last_isolation ? last_isolation :
			  "no student code was run";
	const char *cc = compile_isolation;

	const char *open_ref = geteuid() && cc && !strncmp(cc, "rlimits", 7) ?
			       ", so it could read the reference sources" : "";

	if (!cc || (last_isolation && !*open_ref &&
		    !strncmp(run, cc, strcspn(cc, "("))))
		return xstrdup(run);
	return xstrfmt("%s; compiler: %s%s", run, cc, open_ref);
}

/* build_env_init, whose probe creates a CUDA context: a GPU user like a
 * runner, so it holds the lock shared when there is one.  0 or -1. */
static int probe_env(const struct grade_opts *o, struct gpulock *lock,
		     struct build_env *env)
{
	int rc;

	if (lock && gpulock_acquire(lock, GPULOCK_SHARED))
		return -1;
	rc = build_env_init(env, o->cfg);
	gpulock_release(lock);
	return rc;
}

int grade_run(const struct grade_opts *o, struct grade_result *r)
{
	struct intake in;
	struct intake_limits lim;
	struct build_env env;
	const struct build_target *tgt = NULL;
	struct task *tasks = NULL;
	size_t ntasks = 0, present = 0;
	char *workdir = NULL;
	char err[1024];
	double t0 = now_s();
	int use_emu_counters = 0, rc = GRADE_INTERNAL;
	char replay_path[PATH_MAX];
	const char *replay = NULL;
	struct gpulock *lock = NULL;

	memset(&in, 0, sizeof(in));
	r->submission = submission_name(o->submission);
	r->generated = iso_now();
	if (o->has_seed) {
		r->seed = o->seed;
	} else if (getrandom(&r->seed, sizeof(r->seed), 0) !=
		   sizeof(r->seed)) {
		r->seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	}
	r->seed &= (1ULL << 53) - 1; /* exact in JSON numbers */

	/* intake: the submission must be usable before anything else */
	intake_limits_default(&lim);
	if (intake_open(&in, o->submission, &lim, o->tmpdir)) {
		r->error = xstrdup(in.error);
		/* a full disk is not the student's fault */
		rc = in.status == INTAKE_E_INTERNAL ? GRADE_INTERNAL :
						      GRADE_UNUSABLE;
		goto out;
	}
	for (size_t i = 0; i < in.nnotes; i++)
		result_add_note(r, in.notes[i]);
	for (size_t i = 0; i < exercise_count(); i++)
		if (selected(o, exercise_table[i]))
			ntasks++;
	tasks = xcalloc(ntasks ? ntasks : 1, sizeof(*tasks));
	r->ex = xcalloc(ntasks ? ntasks : 1, sizeof(*r->ex));
	r->nex = ntasks;
	ntasks = 0;
	for (size_t i = 0; i < exercise_count(); i++) {
		const struct exercise *ex = exercise_table[i];
		struct task *k;
		char file[128];

		if (!selected(o, ex))
			continue;
		k = &tasks[ntasks];
		k->ex = ex;
		k->res = &r->ex[ntasks++];
		k->res->ex = ex;
		snprintf(file, sizeof(file), "%s.cu", ex->name);
		k->root = in.dir;
		if (intake_find(&in, file, k->src, sizeof(k->src)) == 0) {
			k->state = T_READY;
			present++;
		} else {
			k->state = T_MISSING;
			intake_near_miss(&in, file, k->why, sizeof(k->why));
		}
	}
	if (!present) {
		char names[512] = "";

		for (size_t i = 0; i < ntasks; i++)
			if (*tasks[i].why)
				result_add_note(r, tasks[i].why);
		for (size_t i = 0; i < exercise_count(); i++)
			if (selected(o, exercise_table[i]))
				snprintf(names + strlen(names),
					 sizeof(names) - strlen(names),
					 "%s%s.cu", *names ? ", " : "",
					 exercise_table[i]->name);
		r->error = xstrfmt("no exercise file in '%s' (expected %s)",
				   o->submission, names);
		rc = GRADE_UNUSABLE;
		goto out;
	}

	/* backend */
	if (o->gpu_lock && !(lock = gpulock_open(o->gpu_lock))) {
		r->error = xstrfmt("cannot open the GPU lock '%s'",
				   o->gpu_lock);
		goto out;
	}
	if (probe_env(o, lock, &env)) {
		r->error = xstrdup("cannot inspect the build environment");
		goto out;
	}
	if (!strcmp(o->backend, "cuda")) {
		if (!env.have_gpu) {
			r->error = xstrfmt("--backend cuda: %s",
					   env.why_no_gpu);
			goto out;
		}
		tgt = &env.gpu;
	} else if (!strcmp(o->backend, "emu")) {
		if (!env.have_emu) {
			r->error = xstrfmt("--backend emu: emulator not "
					   "available: %s", env.why_no_emu);
			goto out;
		}
		tgt = &env.emu;
	} else if (env.have_gpu) {
		tgt = &env.gpu;
	} else if (env.have_emu) {
		tgt = &env.emu;
	} else {
		r->error = xstrfmt("no GPU; emulator not available (%s; %s)",
				   env.why_no_gpu, env.why_no_emu);
		goto out;
	}
	use_emu_counters = tgt->backend == BUILD_CUDA && env.have_emu;
	r->backend = xstrdup(tgt->backend == BUILD_CUDA ? "cuda" : "emu");
	r->device = xstrdup(tgt->device);

	/* build */
	{
		char *tmpl = xstrfmt("%s/warpgrade-build-XXXXXX", tmp_dir(o));

		if (!mkdtemp(tmpl)) {
			r->error = xstrfmt("cannot create a build directory: "
					   "%s", strerror(errno));
			free(tmpl);
			goto out;
		}
		workdir = tmpl;
	}
	progress(o, "preparing the reference objects for %s", tgt->arch);
	if (build_prepare(tgt, o->cfg, err, sizeof(err))) {
		r->error = xstrdup(err);
		goto out;
	}
	if (use_emu_counters &&
	    build_prepare(&env.emu, o->cfg, err, sizeof(err))) {
		warning("technique checks unavailable: %s", err);
		use_emu_counters = 0;
	}
	if (compile_protect(o->config_path, err, sizeof(err)))
		result_add_note(r, err);
	if (env.have_emu && (use_emu_counters || tgt == &env.emu) &&
	    build_replay_path(&env.emu, replay_path, sizeof(replay_path)))
		replay = private_replay(replay_path, workdir);
	progress(o, "building %zu file(s)", present);
	build_all(o, tasks, ntasks, tgt, 0, workdir, replay);
	if (use_emu_counters)
		build_all(o, tasks, ntasks, &env.emu, 1, workdir, replay);

	/* run and verify, one exercise at a time (timings must not share
	 * the GPU) */
	for (size_t i = 0; i < ntasks; i++) {
		struct task *k = &tasks[i];
		struct exercise_result *e = k->res;
		double te = now_s();

		switch (k->state) {
		case T_MISSING:
			e->status = STATUS_MISSING;
			result_set_message(e, "%s.cu is not in the submission"
					   "%s%s", k->ex->name,
					   *k->why ? ": " : "", k->why);
			break;
		case T_CE:
			e->status = STATUS_CE;
			e->compile_log = k->log;
			k->log = NULL;
			result_set_message(e, "%s.cu does not compile",
					   k->ex->name);
			break;
		case T_REJECTED:
			e->status = STATUS_REJECTED;
			result_set_message(e, "%s", k->why);
			break;
		case T_XX:
			e->status = STATUS_XX;
			result_set_message(e, "%s", k->why);
			break;
		case T_READY:
			break;
		}
		if (k->state != T_READY) {
			e->ex = k->ex;
			e->max_score = score_max(o->cfg);
			e->technique_passed = -1;
			e->speedup = e->ci_low = e->ci_high = NAN;
			e->student_ms = e->reference_ms = NAN;
			e->bandwidth_fraction = NAN;
			continue;
		}
		e->source = read_file(k->src, GRADE_SOURCE_MAX, NULL);
		run_exercise(o, k, tgt, replay, r->seed, workdir, lock);
		locate_failure(o, k, tgt, r->seed, workdir, lock);
		e->seconds = now_s() - te;
	}
	r->isolation = isolation_line();
	rc = GRADE_OK;
	for (size_t i = 0; i < r->nex; i++) {
		r->score += r->ex[i].score;
		r->max_score += r->ex[i].max_score;
		if (r->ex[i].status == STATUS_XX)
			rc = GRADE_INTERNAL;
	}
	r->score = round(r->score * 100) / 100;
out:
	if (rc == GRADE_UNUSABLE) {
		/* nothing was graded: no exercise entries at all */
		free(r->ex);
		r->ex = NULL;
		r->nex = 0;
	}
	if (o->progress) /* clear the progress line */
		fputs("\r\033[K", stderr);
	if (!r->backend)
		r->backend = xstrdup(tgt ? (tgt->backend == BUILD_CUDA ?
					    "cuda" : "emu") : "none");
	if (!r->device)
		r->device = xstrdup("none");
	if (!r->isolation)
		r->isolation = xstrdup("no student code was run");
	if (!r->max_score)
		r->max_score = score_max(o->cfg) * (double)(ntasks ? ntasks :
			exercise_count());
	for (size_t i = 0; i < ntasks; i++)
		free(tasks[i].log);
	free(tasks);
	if (workdir && !getenv("WARPGRADE_KEEP"))
		remove_tree(workdir);
	free(workdir);
	free(last_isolation);
	last_isolation = NULL;
	free(compile_isolation);
	compile_isolation = NULL;
	intake_release(&in);
	gpulock_free(lock);
	r->seconds = now_s() - t0;
	return rc;
}
