/*
 * The grading pipeline (see grade.h): intake, the backend, the reference
 * objects, then the exercises -- built in threads (grade_build.c) and run
 * and verified (grade_exec.c): on the emulator each exercise runs as soon
 * as it is built, side by side with the others; on a GPU too, where
 * their correctness sweeps share the GPU and their timed phases take
 * turns on it through the GPU lock (gpulock.h) -- the batch's, or one
 * private to the grade -- each exercise's emulator work following its
 * runs.  With --jobs 1, one build at a time, then the runs in turn.
 */
#include "grade.h"

#include <errno.h>
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
#include "gpukeep.h"
#include "gpulock.h"
#include "gputurns.h"
#include "probe_ahead.h"
#include "gpus.h"
#include "grade_build.h"
#include "grade_exec.h"
#include "grade_task.h"
#include "intake.h"
#include "pool.h"
#include "timings.h"
#include "util.h"

static int selected(const struct grade_opts *o, const struct exercise *ex)
{
	if (!o->nonly)
		return 1;
	for (size_t i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], ex->name))
			return 1;
	return 0;
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

/* The report's isolation line: the last runner's, and the first
 * compiler's when it ran under another kind of protection. */
static char *isolation_line(const struct task *t, size_t n)
{
	const char *run = NULL, *cc = NULL, *open_ref;

	for (size_t i = 0; i < n; i++) {
		if (t[i].run_isolation)
			run = t[i].run_isolation;
		if (!cc && t[i].cc_isolation)
			cc = t[i].cc_isolation;
	}
	open_ref = geteuid() && cc && !strncmp(cc, "rlimits", 7) ?
		   ", so it could read the reference sources" : "";
	if (!cc || (run && !*open_ref &&
		    !strncmp(run, cc, strcspn(cc, "("))))
		return xstrdup(run ? run : "no student code was run");
	return xstrfmt("%s; compiler: %s%s", run ? run :
		       "no student code was run", cc, open_ref);
}

static uint64_t draw_seed(const struct grade_opts *o)
{
	uint64_t seed;

	if (o->has_seed)
		seed = o->seed;
	else if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	return seed & ((1ULL << 53) - 1); /* exact in JSON numbers */
}

/* One task per selected exercise, its file found in the kept tree or
 * T_MISSING with a near miss named.  Returns how many are present. */
static size_t find_tasks(const struct grade_opts *o, struct intake *in,
			 struct grade_result *r, struct task **tasks)
{
	size_t n = 0, present = 0;

	for (size_t i = 0; i < exercise_count(); i++)
		n += selected(o, exercise_table[i]);
	*tasks = xcalloc(n ? n : 1, sizeof(**tasks));
	r->ex = xcalloc(n ? n : 1, sizeof(*r->ex));
	r->nex = n;
	n = 0;
	for (size_t i = 0; i < exercise_count(); i++) {
		const struct exercise *ex = exercise_table[i];
		struct task *k;
		char file[128];

		if (!selected(o, ex))
			continue;
		k = &(*tasks)[n];
		k->ex = ex;
		k->res = &r->ex[n++];
		k->res->ex = ex;
		if (o->timings)
			timings_enable(&k->res->timings);
		snprintf(file, sizeof(file), "%s.cu", ex->name);
		k->root = in->dir;
		if (intake_find(in, file, k->src, sizeof(k->src)) == 0) {
			k->state = T_READY;
			present++;
		} else {
			k->state = T_MISSING;
			intake_near_miss(in, file, k->why, sizeof(k->why));
		}
	}
	return present;
}

/* The unusable submission's one line: no file of the selected
 * exercises, with the near misses as notes. */
static void nothing_found(const struct grade_opts *o, const struct task *t,
			  struct grade_result *r)
{
	char names[512] = "";

	for (size_t i = 0; i < r->nex; i++)
		if (*t[i].why)
			result_add_note(r, t[i].why);
	for (size_t i = 0; i < exercise_count(); i++)
		if (selected(o, exercise_table[i]))
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s.cu",
				 *names ? ", " : "", exercise_table[i]->name);
	r->error = xstrfmt("no exercise file in '%s' (expected %s)",
			   o->submission, names);
}

/* The grading backend (--backend, else the GPU when usable); NULL with
 * r->error set when there is none. */
static const struct build_target *choose_target(const struct grade_opts *o,
						struct gpulock *lock,
						struct build_env *env,
						struct grade_targets *g,
						struct grade_result *r)
{
	/* the probe creates a CUDA context: a GPU user like a runner, so
	 * it holds the lock shared when there is one; it may answer while
	 * the builds go on (probe_ahead.h) */
	if (probe_ahead_env(env, o->cfg, lock, g->guess, &g->ahead)) {
		r->error = xstrdup("cannot inspect the build environment");
		return NULL;
	}
	if (!strcmp(o->backend, "cuda")) {
		if (env->have_gpu)
			return &env->gpu;
		r->error = xstrfmt("--backend cuda: %s", env->why_no_gpu);
	} else if (!strcmp(o->backend, "emu")) {
		if (env->have_emu)
			return &env->emu;
		r->error = xstrfmt("--backend emu: emulator not available: "
				   "%s", env->why_no_emu);
	} else if (env->have_gpu) {
		return &env->gpu;
	} else if (env->have_emu) {
		return &env->emu;
	} else {
		r->error = xstrfmt("no GPU; emulator not available (%s; %s)",
				   env->why_no_gpu, env->why_no_emu);
	}
	return NULL;
}

/* The grade's private directory (0711: guests pass through it to their
 * own exercise's directory), the reference objects, the grader's secrets
 * closed, the replay staged: g filled in.  0, or -1 with r->error. */
static int prepare(const struct grade_opts *o, struct build_env *env,
		   const struct build_target *tgt, struct grade_targets *g,
		   struct grade_result *r)
{
	char err[1024], replay_path[PATH_MAX];
	char *dir = xstrfmt("%s/warpgrade-build-XXXXXX", grade_tmp_dir(o));

	if (!mkdtemp(dir) || chmod(dir, 0711)) {
		r->error = xstrfmt("cannot create a build directory: %s",
				   strerror(errno));
		free(dir);
		return -1;
	}
	g->workdir = dir;
	g->primary = tgt;
	g->counters = tgt->backend == BUILD_CUDA && env->have_emu ?
		      &env->emu : NULL;
	grade_progress(o, "preparing the reference objects for %s",
		       tgt->arch);
	if (build_prepare(tgt, o->cfg, err, sizeof(err))) {
		r->error = xstrdup(err);
		return -1;
	}
	if (g->counters && build_prepare(g->counters, o->cfg, err,
					 sizeof(err))) {
		warning("technique checks unavailable: %s", err);
		g->counters = NULL;
	}
	if (compile_protect(o->config_path, err, sizeof(err)))
		result_add_note(r, err);
	if (env->have_emu && (g->counters || tgt == &env->emu) &&
	    build_replay_path(&env->emu, replay_path, sizeof(replay_path)))
		g->replay = private_replay(replay_path, dir);
	return 0;
}

/* The GPUs of a GPU grade (g->gpus): the one a batch gave it
 * (--gpu-lock, with the batch's CUDA_VISIBLE_DEVICES), else with --jobs
 * above 1 every GPU the probe listed, else the probe's; a grade alone
 * keeps each one up from before its compiles (gpukeep.h).  given is the
 * handle on --gpu-lock, now the first slot's. */
static void plan_gpus(const struct grade_opts *o, const struct build_env *env,
		      struct grade_targets *g, struct gpulock *given)
{
	size_t n = !o->gpu_lock && o->jobs > 1 && env->ngpus > 1 ?
		   env->ngpus : 1;

	g->gpus = xcalloc(n, sizeof(*g->gpus));
	g->ngpus = n;
	g->gpus[0].lock_path = o->gpu_lock;
	g->gpus[0].lock = given;
	for (size_t i = 0; i < n; i++) {
		struct gpu_slot *s = &g->gpus[i];

		if (n > 1)
			s->env = gpus_env_entry(&env->gpus[i]);
		s->dev_minor = -1;
		if (env->ngpus) {
			s->label = gpus_label(&env->gpus[i]);
			s->dev_minor = env->gpus[i].dev_minor;
		}
		if (!o->gpu_lock)
			s->keeper = gpukeep_start(s->env);
	}
}

/* The GPU the timed runs go to (--timing-gpu), with the grade's handle
 * on its lock; 0, or -1 with r->error when its description does not
 * parse or the lock cannot be opened. */
static int plan_timing(const struct grade_opts *o, struct grade_targets *g,
		       struct grade_result *r)
{
	struct gpu_info gi;

	if (!o->timing_gpu)
		return 0;
	if (gpus_from_spec(o->timing_gpu, &gi)) {
		r->error = xstrfmt("--timing-gpu: cannot read '%s' (expected "
				   "\"UUID PCI MAJOR MINOR NAME\")",
				   o->timing_gpu);
		return -1;
	}
	g->timing = xcalloc(1, sizeof(*g->timing));
	g->timing->lock_path = o->timing_gpu_lock;
	g->timing->env = gpus_env_entry(&gi);
	g->timing->label = gpus_label(&gi);
	g->timing->dev_minor = gi.dev_minor;
	if (!(g->timing->lock = gpulock_open(o->timing_gpu_lock))) {
		r->error = xstrfmt("cannot open the GPU lock '%s'",
				   o->timing_gpu_lock);
		return -1;
	}
	return 0;
}

/* A GPU grade that runs its exercises side by side (--jobs above 1) and
 * is given no lock orders their runners by turns of its own on each GPU
 * (gputurns.h). */
static void private_turns(const struct grade_opts *o, struct grade_targets *g)
{
	for (size_t i = 0; i < g->ngpus && o->jobs > 1; i++)
		if (!g->gpus[i].lock_path)
			g->gpus[i].turns = gputurns_new();
}

/* Spread the exercises that will run over the grade's GPUs, in turn. */
static void assign_gpus(struct task *t, size_t n,
			const struct grade_targets *g)
{
	size_t j = 0;

	for (size_t i = 0; i < n && g->ngpus; i++)
		if (t[i].state != T_MISSING)
			t[i].gpu = &g->gpus[j++ % g->ngpus];
}

/* Undo plan_gpus and private_turns; the keepers last. */
static void release_gpus(struct grade_targets *g)
{
	for (size_t i = 0; i < g->ngpus; i++) {
		struct gpu_slot *s = &g->gpus[i];

		gpulock_free(s->lock);
		gputurns_free(s->turns);
		free(s->env);
		free(s->label);
	}
	for (size_t i = 0; i < g->ngpus; i++) /* not waited for */
		gpukeep_leave(g->gpus[i].keeper);
	free(g->gpus);
	g->gpus = NULL;
	g->ngpus = 0;
	if (g->timing) {
		gpulock_free(g->timing->lock);
		free(g->timing->env);
		free(g->timing->label);
		free(g->timing);
		g->timing = NULL;
	}
}

/* The verdict of a task that was not run: missing, not compiled,
 * rejected, or the grader's fault. */
static void settle_unbuilt(const struct grade_opts *o, struct task *k)
{
	struct exercise_result *e = k->res;

	switch (k->state) {
	case T_MISSING:
		e->status = STATUS_MISSING;
		result_set_message(e, "%s.cu is not in the submission%s%s",
				   k->ex->name, *k->why ? ": " : "", k->why);
		break;
	case T_CE:
		e->status = STATUS_CE;
		e->compile_log = k->log;
		k->log = NULL;
		/* a link that the student's object broke says so */
		if (*k->why)
			result_set_message(e, "%s", k->why);
		else
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
		return;
	}
	e->ex = k->ex;
	e->max_score = score_max(o->cfg);
	e->technique_passed = -1;
	e->speedup = e->ci_low = e->ci_high = NAN;
	e->student_ms = e->reference_ms = NAN;
	e->bandwidth_fraction = NAN;
}

struct pipeline {
	const struct grade_opts *o;
	const struct grade_targets *g;
	uint64_t seed;
	struct task *t;
};

/* On the emulator: run an exercise in the worker that built it. */
static void run_when_built(struct task *k, void *ctx)
{
	const struct pipeline *p = ctx;

	if (probe_ahead_agrees(p->g->ahead))
		grade_exec_exercise(p->o, k, p->g, p->seed);
}

/* A handle of k's own on the lock at path; NULL, with k an XX, when it
 * cannot be opened. */
static struct gpulock *open_lock(struct task *k, const char *path)
{
	struct gpulock *l = gpulock_open(path);

	if (!l) {
		k->state = T_XX;
		snprintf(k->why, sizeof(k->why), "cannot open the GPU lock "
			 "'%.400s'", path);
	}
	return l;
}

/* On a GPU: the same, with a lock handle of the exercise's own, so that
 * the lock orders its runners against the other exercises' as against
 * other graders' (or, without a lock, the grade's turns do); where
 * failures happened is looked for afterwards, in order (a rerun may use
 * the GPU). */
static void run_gpu_when_built(struct task *k, void *ctx)
{
	const struct pipeline *p = ctx;

	if (k->ran || k->state != T_READY || !probe_ahead_agrees(p->g->ahead))
		return;
	if ((k->gpu->lock_path &&
	     !(k->lock = open_lock(k, k->gpu->lock_path))) ||
	    (p->g->timing &&
	     !(k->timing_lock = open_lock(k, p->g->timing->lock_path)))) {
		gpulock_free(k->lock);
		k->lock = NULL;
		return;
	}
	grade_exec_primary(p->o, k, p->g, p->seed);
	grade_exec_measure(p->o, k, p->g);
	gpulock_free(k->lock);
	gpulock_free(k->timing_lock);
	k->lock = k->timing_lock = NULL;
}

/* A first stage of run_in_turn: exercise i's runner, when it has not
 * run; 1 when its emulator work is to follow. */
static int run_one(void *ctx, size_t i)
{
	const struct pipeline *p = ctx;
	struct task *k = &p->t[i];

	if (k->ran)
		return 0;
	grade_exec_primary(p->o, k, p->g, p->seed);
	return k->v != NULL; /* not run, or nothing to finish */
}

/* Its second stage, in a thread of the pool. */
static void measure_one(void *ctx, size_t i)
{
	const struct pipeline *p = ctx;

	grade_exec_measure(p->o, &p->t[i], p->g);
}

/* With --jobs 1 (on a GPU, or on the emulator): each exercise's runner
 * one at a time, and meanwhile the previous ones' emulator work -- the
 * record of the measured calls, the replays -- in the pool's threads,
 * at most o->jobs at once; then, in order, where their failures happened
 * (a rerun may use the GPU). */
static void run_in_turn(const struct grade_opts *o, struct task *t, size_t n,
			const struct grade_targets *g, uint64_t seed)
{
	const struct pipeline p = { o, g, seed, t };

	pool_pipeline(n, o->jobs, run_one, measure_one, (void *)&p);
	for (size_t i = 0; i < n; i++)
		grade_exec_locate(o, &t[i], g, seed);
}

/* Build every present exercise and run each that built: as soon as it
 * is built, in the worker that built it (on the emulator; on a GPU when
 * a lock orders the runners), or once all are built, one at a time. */
static void build_and_run(const struct grade_opts *o, struct task *t,
			  size_t n, const struct grade_targets *g,
			  struct grade_result *r)
{
	const struct pipeline p = { o, g, r->seed, t };
	int gpu = g->primary->backend == BUILD_CUDA;
	/* --jobs 1: one build at a time, then the runs in turn */
	int side_by_side = o->jobs > 1 &&
			   (!gpu || g->gpus[0].lock_path || g->gpus[0].turns);
	double t0 = now_s();

	assign_gpus(t, n, g);
	grade_progress(o, "building %zu file(s)", n);
	grade_build_all(o, t, n, g, !side_by_side ? NULL :
			gpu ? run_gpu_when_built : run_when_built,
			(void *)&p);
	t0 = timings_lap(&r->timings, side_by_side ?
			 "builds and runs, side by side" : "builds", t0);
	if (!probe_ahead_agrees(g->ahead)) {
		/* nothing runs: the grade is done again (grade_run) */
	} else if (!side_by_side) {
		run_in_turn(o, t, n, g, r->seed);
		timings_lap(&r->timings, "runs, one at a time", t0);
	} else if (gpu) {
		for (size_t i = 0; i < n; i++)
			grade_exec_locate(o, &t[i], g, r->seed);
		timings_lap(&r->timings, "locating failures", t0);
	}
	for (size_t i = 0; i < n; i++)
		settle_unbuilt(o, &t[i]);
}

/* The total, and GRADE_INTERNAL when an exercise is XX. */
static int sum_up(struct grade_result *r)
{
	int rc = GRADE_OK;

	for (size_t i = 0; i < r->nex; i++) {
		r->score += r->ex[i].score;
		r->max_score += r->ex[i].max_score;
		if (r->ex[i].status == STATUS_XX)
			rc = GRADE_INTERNAL;
	}
	r->score = round(r->score * 100) / 100;
	return rc;
}

/* grade_once's: the probe answered otherwise than remembered */
#define GRADE_AGAIN (-1)

/* One grade; guess: it may go on with the probe's remembered answer. */
static int grade_once(const struct grade_opts *o, struct grade_result *r,
		      int guess)
{
	struct intake in;
	struct intake_limits lim;
	struct build_env env;
	struct grade_targets g;
	const struct build_target *tgt = NULL;
	struct task *tasks = NULL;
	struct gpulock *given = NULL;
	struct timings *tm = &r->timings;
	double t0 = now_s(), t = t0;
	size_t nsel;
	int rc = GRADE_INTERNAL;

	memset(&in, 0, sizeof(in));
	memset(&g, 0, sizeof(g));
	g.guess = guess;
	if (o->timings)
		timings_enable(tm);
	r->submission = submission_name(o->submission);
	r->generated = iso_now();
	r->seed = draw_seed(o);

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
	if (!find_tasks(o, &in, r, &tasks)) {
		nothing_found(o, tasks, r);
		rc = GRADE_UNUSABLE;
		goto out;
	}
	t = timings_lap(tm, "intake", t);
	if (o->gpu_lock && !(given = gpulock_open(o->gpu_lock))) {
		r->error = xstrfmt("cannot open the GPU lock '%s'",
				   o->gpu_lock);
		goto out;
	}
	if (!(tgt = choose_target(o, given, &env, &g, r)))
		goto out;
	t = timings_lap(tm, "backend probe", t);
	r->backend = xstrdup(tgt->backend == BUILD_CUDA ? "cuda" : "emu");
	r->device = xstrdup(tgt->device);
	if (tgt->backend == BUILD_CUDA) {
		plan_gpus(o, &env, &g, given);
		given = NULL;
		if (plan_timing(o, &g, r))
			goto out;
	}
	if (prepare(o, &env, tgt, &g, r))
		goto out;
	private_turns(o, &g);
	t = timings_lap(tm, "reference objects, staging", t);
	build_and_run(o, tasks, r->nex, &g, r);
	t = now_s();
	r->isolation = isolation_line(tasks, r->nex);
	rc = sum_up(r);
out:
	/* whatever came of it, it came from a wrong guess of the GPUs */
	if (g.ahead && !probe_ahead_agrees(g.ahead))
		rc = GRADE_AGAIN;
	nsel = r->nex;
	if (rc == GRADE_UNUSABLE) {
		/* nothing was graded: no exercise entries at all */
		free(r->ex);
		r->ex = NULL;
		r->nex = 0;
	}
	if (o->progress) /* clear the progress line */
		fputs("\r\033[K", stderr);
	if (!r->backend)
		r->backend = xstrdup("none");
	if (!r->device)
		r->device = xstrdup("none");
	if (!r->isolation)
		r->isolation = xstrdup("no student code was run");
	if (!r->max_score)
		r->max_score = score_max(o->cfg) * (double)(nsel ? nsel :
			exercise_count());
	for (size_t i = 0; i < g.ngpus; i++) /* they die meanwhile */
		gpukeep_cancel(g.gpus[i].keeper);
	for (size_t i = 0; tasks && i < nsel; i++)
		grade_task_release(&tasks[i]);
	free(tasks);
	if (g.workdir && !getenv("WARPGRADE_KEEP"))
		remove_tree(g.workdir);
	free((char *)g.workdir);
	intake_release(&in);
	probe_ahead_free(g.ahead); /* its lock is given's, or gpus[0]'s */
	gpulock_free(given);
	release_gpus(&g);
	timings_lap(tm, "clean up", t);
	r->seconds = now_s() - t0;
	return rc;
}

int grade_run(const struct grade_opts *o, struct grade_result *r)
{
	int rc = grade_once(o, r, 1);

	if (rc != GRADE_AGAIN)
		return rc;
	/* the GPUs are not what the last probe said: again, on the new
	 * answer */
	result_release(r);
	result_init(r);
	return grade_once(o, r, 0);
}
