/*
 * Batch grading (see batch.h).  The batch process is a small scheduler:
 * it never grades in its own address space.  A few worker threads each
 * run one `warpgrade grade` child per submission through the sandbox
 * module (own process group, capped output, killed with its group on
 * timeout or when the batch is interrupted), and turn each child's JSON
 * into the stored result.
 */
#include "batch.h"
#include "batch_status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "formats.h"
#include "grade.h"
#include "pool.h"
#include "result_json.h"
#include "sandbox.h"
#include "score.h"
#include "util.h"

#define LOG_CAP (64u << 10)

struct entry {
	char *file;   /* entry name in the submissions directory */
	char *name;   /* result name */
};

/* One finished `warpgrade grade` child. */
struct child {
	size_t entry;
	double started;
	const struct sandbox_result *res;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static const char *const archive_suffixes[] = {
	".tar.gz", ".tgz", ".tar", ".zip", ".cu", NULL
};

char *batch_entry_name(const char *entry)
{
	size_t n = strlen(entry);

	for (size_t i = 0; archive_suffixes[i]; i++) {
		size_t k = strlen(archive_suffixes[i]);

		if (n > k && !strcasecmp(entry + n - k, archive_suffixes[i]))
			return xstrfmt("%.*s", (int)(n - k), entry);
	}
	return xstrdup(entry);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->file,
		      ((const struct entry *)b)->file);
}

/* The entries to grade, sorted; names made unique.  The results
 * directory, when it sits among the submissions, is not one. */
static int list_entries(const char *dir, const char *results,
			struct entry **out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct entry *v = NULL;
	struct stat rs;
	size_t cap = 0, k = 0;
	int have_rs = !stat(results, &rs);

	if (!d)
		return error("cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (de->d_name[0] == '.')
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		if (!lstat(path, &st) && have_rs && st.st_dev == rs.st_dev &&
		    st.st_ino == rs.st_ino) {
			free(path);
			continue;
		}
		if (lstat(path, &st) ||
		    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
			warning("skipping '%s': not a file or directory",
				path);
			free(path);
			continue;
		}
		free(path);
		if (k == cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[k].file = xstrdup(de->d_name);
		v[k].name = batch_entry_name(de->d_name);
		k++;
	}
	closedir(d);
	if (k)
		qsort(v, k, sizeof(*v), cmp_entry);
	/* alice.zip and alice.tar.gz: both keep their full names */
	{
		unsigned char *clash = xcalloc(k ? k : 1, 1);

		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				if (i != j && !strcmp(v[i].name, v[j].name))
					clash[i] = 1;
		for (size_t i = 0; i < k; i++)
			if (clash[i]) {
				free(v[i].name);
				v[i].name = xstrdup(v[i].file);
			}
		free(clash);
	}
	*out = v;
	*n = k;
	return 0;
}

static void free_entries(struct entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].file);
		free(v[i].name);
	}
	free(v);
}

static char *result_path(const struct batch_opts *o, const char *name,
			 enum format_kind k)
{
	return xstrfmt("%s/%s%s", o->out, name, formats_suffix(k));
}

/* The archive document with "grader_exit" added (owned), or NULL. */
static char *with_exit(const char *doc, int exit_status)
{
	json_error_t je;
	json_t *root = json_loads(doc, 0, &je);
	char *s, *out;

	if (!root)
		return NULL;
	json_object_set_new(root, "grader_exit", json_integer(exit_status));
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			     JSON_REAL_PRECISION(10));
	json_decref(root);
	if (!s)
		return NULL;
	out = xstrfmt("%s\n", s);
	free(s);
	return out;
}

/* Write the extra views of a stored result; 0 or -1. */
static int write_views(const struct batch_opts *o,
		       const struct score_config *cfg, const char *name,
		       const struct grade_result *r, int exit_status,
		       int only_missing)
{
	int rc = 0;

	for (int k = 0; k < FORMAT_COUNT; k++) {
		char *path, *doc;

		if (k == FORMAT_JSON || !(o->formats & (1u << k)))
			continue;
		path = result_path(o, name, k);
		if (only_missing && !access(path, F_OK)) {
			free(path);
			continue;
		}
		doc = formats_render(k, r, cfg, exit_status, 0);
		if (write_file_atomic(path, doc, strlen(doc)))
			rc = -1;
		free(doc);
		free(path);
	}
	return rc;
}

static double default_timeout(const struct score_config *c)
{
	/* every exercise at every limit, plus slack for the compiles of
	 * the reference objects on a first run */
	return (double)exercise_count() *
	       (c->compile_timeout_s + 4 * c->correctness_timeout_s +
		c->perf_timeout_s + c->counters_timeout_s) + 600;
}

static void fmt_duration(char *buf, size_t len, double s)
{
	long t = lround(s);

	if (s < 0 || !isfinite(s))
		snprintf(buf, len, "--");
	else if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

/* ---- the children ---- */

/* The command line of the child that grades entry e into tmp, on gpu
 * (NULL: none). */
static void child_argv(const struct batch_opts *o, const char *sub,
		       const char *jobs, const char *seed, const char *tmp,
		       const struct batch_gpu *gpu, const char **argv)
{
	int n = 0;

	argv[n++] = o->warpgrade;
	argv[n++] = "grade";
	argv[n++] = sub;
	argv[n++] = "--format";
	argv[n++] = "json";
	argv[n++] = "--output";
	argv[n++] = tmp;
	argv[n++] = "--quiet";
	argv[n++] = "--backend";
	argv[n++] = o->backend;
	argv[n++] = "--jobs";
	argv[n++] = jobs;
	if (o->config) {
		argv[n++] = "--config";
		argv[n++] = o->config;
	}
	if (o->has_seed) {
		argv[n++] = "--seed";
		argv[n++] = seed;
	}
	if (o->timings)
		argv[n++] = "--timings";
	if (gpu) {
		argv[n++] = "--gpu-lock";
		argv[n++] = gpu->lock;
	}
	if (gpu && gpu->timer) {
		argv[n++] = "--timing-gpu";
		argv[n++] = gpu->timer->spec;
		argv[n++] = "--timing-gpu-lock";
		argv[n++] = gpu->timer->lock;
	}
	argv[n] = NULL;
}

/* Run the child for entry e to its end, on gpu (NULL: none); 0, or -1
 * when it could not be started (res->error). */
static int run_child(const struct batch_opts *o, const struct entry *e,
		     const struct batch_plan *plan,
		     const struct batch_gpu *gpu, double timeout,
		     const char *tmp, struct sandbox_result *res)
{
	extern char **environ;
	char *sub = xstrfmt("%s/%s", o->submissions, e->file);
	char jobs[16], seed[32];
	const char *argv[28];
	char cwd[PATH_MAX];
	struct sandbox_spec spec;
	int rc;

	snprintf(jobs, sizeof(jobs), "%u", plan->child_jobs);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->seed);
	child_argv(o, sub, jobs, seed, tmp, gpu, argv);
	/* the grader itself, trusted: its own environment (on its GPU) and
	 * directory, no limit but the batch's timeout */
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = gpu ? gpu->environ : (const char *const *)environ;
	if (!getcwd(cwd, sizeof(cwd))) {
		snprintf(res->error, sizeof(res->error), "cannot find the "
			 "current directory: %s", strerror(errno));
		free(sub);
		return -1;
	}
	spec.workdir = cwd;
	spec.isolation = SANDBOX_ISOLATE_NONE;
	sandbox_limits_profile(SANDBOX_PROFILE_TRUSTED, timeout, &spec.limits);
	spec.limits.out_cap = LOG_CAP;
	spec.cancel = &interrupted;
	rc = sandbox_run(&spec, res);
	free(sub);
	return rc;
}

/* ---- the scheduler ---- */

struct sched {
	const struct batch_opts *o;
	struct score_config cfg;
	struct entry *v;
	size_t n;
	char *work;
	double timeout;
	double t0;
	size_t done_now;       /* graded by this run */
	size_t to_grade;       /* queued by this run */
	size_t finished;       /* skipped + graded, for the progress */
	struct batch_stats *st;
};

static void progress_line(struct sched *s, const char *name,
			  const struct grade_result *r, int exit_status,
			  double secs)
{
	char el[32], eta[32], line[160] = "";
	double elapsed = now_s() - s->t0;
	size_t left = s->to_grade - s->done_now;
	size_t pos = 0;

	if (!s->o->progress)
		return;
	fmt_duration(el, sizeof(el), elapsed);
	fmt_duration(eta, sizeof(eta), s->done_now ?
		     elapsed / (double)s->done_now * (double)left : -1);
	if (results_internal(r, exit_status))
		snprintf(line, sizeof(line), "internal error (regraded on "
			 "the next run)");
	else if (r->error)
		snprintf(line, sizeof(line), "unusable");
	else
		for (size_t i = 0; i < r->nex && pos < sizeof(line) - 12;
		     i++)
			pos += (size_t)snprintf(line + pos,
						sizeof(line) - pos, "%s%s",
						i ? " " : "",
						status_name(r->ex[i].status));
	fprintf(stderr, "[%*zu/%zu] %-24s %7.2f/%-4.0f %-24s %6.1fs | "
		"elapsed %s, ETA %s\n", (int)snprintf(NULL, 0, "%zu", s->n),
		s->finished, s->n, name, r->score, r->max_score, line, secs,
		el, eta);
}

static void count_result(struct batch_stats *st,
			 const struct grade_result *r, int exit_status)
{
	if (results_internal(r, exit_status))
		st->internal++;
	else if (r->error)
		st->unusable++;
}

/* A finished child: its result stored, whatever happened to it. */
static void finish_child(struct sched *s, const struct child *c)
{
	const struct entry *e = &s->v[c->entry];
	char *tmp = xstrfmt("%s/%s.json", s->work, e->name);
	char *final = result_path(s->o, e->name, FORMAT_JSON);
	char *text = NULL, *doc = NULL, err[256] = "";
	const struct sandbox_result *res = c->res;
	struct grade_result r;
	int exit_status = -1, code = res->exited ? res->exit_code : -1;
	size_t len = 0;

	result_init(&r);
	if (!res->timed_out && (code == GRADE_OK || code == GRADE_UNUSABLE ||
			      code == GRADE_INTERNAL))
		text = read_file(tmp, 64u << 20, &len);
	if (text && !result_json_parse(text, &r, NULL, err, sizeof(err))) {
		exit_status = code;
		doc = with_exit(text, exit_status);
	}
	if (!doc) {
		/* the grader itself did not finish: the grader's fault */
		char how[200];

		result_release(&r);
		result_init(&r);
		if (res->timed_out)
			snprintf(how, sizeof(how), "timed out after %.0f s",
				 s->timeout);
		else if (!res->exited)
			snprintf(how, sizeof(how), "killed by %s",
				 sandbox_signal_name(res->signal));
		else if (err[0])
			snprintf(how, sizeof(how), "exit %d, unreadable "
				 "result: %.150s", code, err);
		else
			snprintf(how, sizeof(how), "exit %d, no result",
				 code);
		r.submission = xstrdup(e->file);
		r.backend = xstrdup("none");
		r.device = xstrdup("none");
		r.isolation = xstrdup("");
		r.error = xstrfmt("the grader did not finish (%s); see %s.log",
				  how, e->name);
		{
			char buf[32];
			time_t now = time(NULL);
			struct tm tm;

			gmtime_r(&now, &tm);
			strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
			r.generated = xstrdup(buf);
		}
		r.seconds = now_s() - c->started;
		exit_status = GRADE_INTERNAL;
		{
			char *raw = result_json(&r);

			doc = with_exit(raw, exit_status);
			free(raw);
		}
	}
	if (code != exit_status || (exit_status == GRADE_INTERNAL &&
				    res->out_total + res->err_total)) {
		char *logp = xstrfmt("%s/%s.log", s->o->out, e->name);
		char *logdoc = xstrfmt("%s%s", res->out ? res->out : "",
				       res->err ? res->err : "");

		write_file_atomic(logp, logdoc, strlen(logdoc));
		free(logdoc);
		free(logp);
	}
	if (doc && !write_file_atomic(final, doc, strlen(doc)))
		write_views(s->o, &s->cfg, e->name, &r, exit_status, 0);
	unlink(tmp);
	s->done_now++;
	s->finished++;
	s->st->graded++;
	count_result(s->st, &r, exit_status);
	progress_line(s, e->name, &r, exit_status, now_s() - c->started);
	result_release(&r);
	free(text);
	free(doc);
	free(tmp);
	free(final);
}

/* 1 when the entry has a complete result (not an internal error);
 * missing extra views are rendered from it. */
static int already_graded(struct sched *s, const struct entry *e)
{
	char *path = result_path(s->o, e->name, FORMAT_JSON);
	struct grade_result r;
	int status = -1, done = 0;

	result_init(&r);
	if (!access(path, F_OK)) {
		if (result_json_load_status(path, &r, &status)) {
			warning("regrading '%s': its result is unreadable",
				e->file);
		} else if (!results_internal(&r, status)) {
			done = 1;
			count_result(s->st, &r, status);
			write_views(s->o, &s->cfg, e->name, &r, status, 1);
		}
	}
	result_release(&r);
	free(path);
	return done;
}

/* Keep the shard's slice of the entries (shard.h), once the manifest of
 * them all is written for `batch --status` (batch_status.h). */
static int take_shard(const struct batch_opts *o, struct sched *s)
{
	const char **files = xcalloc(s->n + 1, sizeof(*files));
	const char **names = xcalloc(s->n + 1, sizeof(*names));
	size_t total = s->n, k = 0;
	char label[32];
	int rc;

	for (size_t i = 0; i < total; i++) {
		files[i] = s->v[i].file;
		names[i] = s->v[i].name;
	}
	rc = batch_status_begin(o->out, o->submissions, &o->shard, files,
				names, total, shard_count(&o->shard, total));
	free(files);
	free(names);
	for (size_t i = 0; i < total; i++) {
		if (shard_owns(&o->shard, i)) {
			s->v[k++] = s->v[i];
			continue;
		}
		free(s->v[i].file);
		free(s->v[i].name);
	}
	s->n = k;
	shard_format(&o->shard, label, sizeof(label));
	if (o->progress && o->shard.n > 1)
		fprintf(stderr, "warpgrade batch: shard %s: %zu of the %zu "
			"submissions (positions %u + %ui in name order)\n",
			label, k, total, o->shard.k, o->shard.n);
	return rc;
}

/* Will the children grade on a GPU?  The host's GPUs into list, *n. */
static int children_use_gpu(const struct batch_opts *o,
			    const struct score_config *cfg,
			    struct gpu_info *list, size_t *n)
{
	struct build_env env;

	*n = 0;
	if (!strcmp(o->backend, "emu"))
		return 0;
	/* in doubt the lock, which costs nothing where there is no GPU */
	if (build_env_init(&env, cfg))
		return 1;
	memcpy(list, env.gpus, env.ngpus * sizeof(*list));
	*n = env.ngpus;
	/* auto: the children will use the GPU when there is one */
	return !strcmp(o->backend, "cuda") || env.have_gpu;
}

void batch_plan_init(struct batch_plan *p, const struct batch_opts *o,
		     int gpu, const struct gpu_info *list, size_t n)
{
	unsigned jobs = o->jobs ? o->jobs : 1;
	char *base;

	memset(p, 0, sizeof(*p));
	if (o->parallel == 0) {
		p->slots = 1;
		p->child_jobs = jobs;
		return;
	}
	p->slots = jobs;
	p->child_jobs = 1;
	if (!gpu)
		return;
	base = o->gpu_lock ? xstrdup(o->gpu_lock) :
	       shard_file(&o->shard, o->out, ".gpu-lock");
	batch_gpus_init(&p->gpus, base, list, n);
	free(base);
}

void batch_plan_release(struct batch_plan *p)
{
	batch_gpus_release(&p->gpus);
}

static void progress_plan(const struct sched *s,
			  const struct batch_plan *plan)
{
	char mode[160];

	if (plan->slots == 1)
		snprintf(mode, sizeof(mode), "one at a time, %u compiles "
			 "each", plan->child_jobs);
	else if (plan->gpus.n > 1 && plan->gpus.v[0].timer)
		snprintf(mode, sizeof(mode), "%u side by side on %zu GPUs, "
			 "in pairs: sweeps on one, timed runs one at a time "
			 "on the other: locks %s and the like", plan->slots,
			 plan->gpus.n, plan->gpus.v[0].lock);
	else if (plan->gpus.n > 1)
		snprintf(mode, sizeof(mode), "%u side by side on %zu GPUs, "
			 "timed runs one at a time on each: locks %s and "
			 "the like", plan->slots, plan->gpus.n,
			 plan->gpus.v[0].lock);
	else if (plan->gpus.n)
		snprintf(mode, sizeof(mode), "%u side by side, timed runs "
			 "one at a time on the GPU: lock %s", plan->slots,
			 plan->gpus.v[0].lock);
	else
		snprintf(mode, sizeof(mode), "%u side by side: nothing is "
			 "timed on the emulator", plan->slots);
	fprintf(stderr, "warpgrade batch: %zu submissions, %zu already "
		"graded, %zu to grade (%s)\n", s->n, s->st->skipped,
		s->to_grade, mode);
}

/* ---- the workers ---- */

/* The entries being graded, shared by the pool's threads. */
struct grading {
	struct sched *s;
	const unsigned char *todo;
	struct batch_plan *plan;
	pthread_mutex_t mu;	/* guards failed and the sched */
	int failed;		/* a child could not be started */
};

static void grade_entry(struct grading *p, size_t i)
{
	struct sched *s = p->s;
	char *tmp = xstrfmt("%s/%s.json", s->work, s->v[i].name);
	struct sandbox_result res;
	struct child c = { i, now_s(), &res };
	struct batch_gpu *gpu;
	int rc;

	unlink(tmp);
	gpu = p->plan->gpus.n ? batch_gpus_take(&p->plan->gpus) : NULL;
	rc = run_child(s->o, &s->v[i], p->plan, gpu, s->timeout, tmp, &res);
	batch_gpus_put(&p->plan->gpus, gpu);
	pthread_mutex_lock(&p->mu);
	if (rc) {
		error("cannot grade '%s': %s", s->v[i].file, res.error);
		p->failed = 1;
	} else if (!res.cancelled) {
		finish_child(s, &c); /* a cancelled one: not its result */
	}
	pthread_mutex_unlock(&p->mu);
	sandbox_result_release(&res);
	free(tmp);
}

/* A pool job: entry i, when it is to be graded and the batch goes on
 * (not interrupted, every child so far started). */
static void grade_one(void *arg, size_t i)
{
	struct grading *p = arg;
	int go;

	pthread_mutex_lock(&p->mu);
	go = p->todo[i] && !interrupted && !p->failed;
	pthread_mutex_unlock(&p->mu);
	if (go)
		grade_entry(p, i);
}

/* Grade the entries marked in todo as the plan says; 0, or -1 when a
 * child could not be started. */
static int run_pool(struct sched *s, const unsigned char *todo,
		    struct batch_plan *plan)
{
	struct grading p = { s, todo, plan, PTHREAD_MUTEX_INITIALIZER, 0 };

	pool_run(s->n, plan->slots, grade_one, &p);
	return p.failed ? -1 : 0;
}

int batch_run(const struct batch_opts *o, struct batch_stats *stp)
{
	struct batch_stats dummy;
	struct sched s;
	struct sigaction sa, old_int, old_term, old_hup;
	struct batch_plan plan;
	char *lockp = NULL;
	int lockfd = -1, rc = BATCH_USAGE, failed;
	unsigned char *todo = NULL;
	struct gpu_info gpus[GPUS_MAX];
	size_t ngpus = 0;
	int gpu = 0;

	memset(&s, 0, sizeof(s));
	memset(&plan, 0, sizeof(plan));
	s.st = stp ? stp : &dummy;
	memset(s.st, 0, sizeof(*s.st));
	s.o = o;
	s.t0 = now_s();
	score_config_default(&s.cfg);
	if (o->config) {
		char err[512];

		if (score_config_load(&s.cfg, o->config, err, sizeof(err))) {
			error("%s", err);
			return BATCH_USAGE;
		}
	}
	if (mkdir_p(o->out, 0755)) {
		error("cannot create '%s': %s", o->out, strerror(errno));
		return BATCH_USAGE;
	}
	if (list_entries(o->submissions, o->out, &s.v, &s.n))
		return BATCH_USAGE;
	lockp = shard_file(&o->shard, o->out, ".lock");
	lockfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0 || flock(lockfd, LOCK_EX | LOCK_NB)) {
		error("cannot lock '%s': %s", lockp, errno == EWOULDBLOCK ?
		      "another batch is writing to this directory" :
		      strerror(errno));
		goto out;
	}
	if (take_shard(o, &s))
		goto out;
	s.work = shard_file(&o->shard, o->out, ".work");
	remove_tree(s.work); /* what a killed run left half-written */
	if (mkdir_p(s.work, 0755)) {
		error("cannot create '%s': %s", s.work, strerror(errno));
		goto out;
	}
	s.timeout = o->timeout_s > 0 ? o->timeout_s : default_timeout(&s.cfg);
	s.st->total = s.n;

	todo = xcalloc(s.n ? s.n : 1, 1);
	for (size_t i = 0; i < s.n; i++) {
		if (!o->regrade && already_graded(&s, &s.v[i])) {
			s.st->skipped++;
			s.finished++;
			continue;
		}
		todo[i] = 1;
		s.to_grade++;
	}
	if (s.to_grade && o->parallel)
		gpu = children_use_gpu(o, &s.cfg, gpus, &ngpus);
	batch_plan_init(&plan, o, gpu, gpus, ngpus);
	if (o->progress)
		progress_plan(&s, &plan);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	batch_gpus_keep(&plan.gpus);
	failed = run_pool(&s, todo, &plan);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	remove_tree(s.work);
	s.st->seconds = now_s() - s.t0;
	if (interrupted > 0) {
		fprintf(stderr, "warpgrade batch: interrupted; %zu graded "
			"this run are kept, run again to go on\n",
			s.st->graded);
		rc = BATCH_INTERRUPTED;
	} else if (failed) {
		rc = BATCH_INTERNAL;
	} else {
		rc = s.st->internal ? BATCH_INTERNAL : BATCH_OK;
	}
	if (o->progress) {
		char el[32];

		fmt_duration(el, sizeof(el), s.st->seconds);
		fprintf(stderr, "warpgrade batch: %zu results in '%s' (%zu "
			"graded now in %s, %zu skipped): %zu unusable, %zu "
			"internal errors%s\n", s.st->graded + s.st->skipped,
			o->out, s.st->graded, el, s.st->skipped,
			s.st->unusable, s.st->internal, s.st->internal ?
			" (run again to regrade them)" : "");
	}
	batch_status_end(o->out, &o->shard, s.st, rc);
out:
	batch_plan_release(&plan);
	free(todo);
	free(s.work);
	if (lockfd >= 0)
		close(lockfd);
	free(lockp);
	free_entries(s.v, s.n);
	return rc;
}

/* ---- the command ---- */

static const char usage_batch[] =
	"usage: warpgrade batch SUBMISSIONS_DIR --out RESULTS_DIR [options]\n"
	"\n"
	"  --out DIR            results directory (one <name>.json each)\n"
	"  --jobs N             CPU cores, submissions side by side (default:\n"
	"                       all online); on a GPU timed runs take turns\n"
	"  --serial             one submission at a time, compiling on --jobs\n"
	"                       cores\n"
	"  --gpu-lock FILE      the lock timed runs take turns with (default:\n"
	"                       RESULTS_DIR/.gpu-lock; FILE-<uuid> for each of\n"
	"                       several GPUs); share it between batches\n"
	"  --backend B          auto (default), cuda or emu\n"
	"  --format F           also write this view per submission\n"
	"                       (gradescope, autolab, prairielearn, junit,\n"
	"                       text or html: <name>.html, a page each;\n"
	"                       repeatable)\n"
	"  --config FILE        grading configuration (JSON, see README)\n"
	"  --seed N             one input seed for every submission\n"
	"  --timeout S          limit per submission (default: from the\n"
	"                       configuration's limits)\n"
	"  --regrade            grade again what is already graded\n"
	"  --shard K/N          grade only the K-th of N slices (K from 0;\n"
	"                       default: the Slurm array task's, if any)\n"
	"  --quiet              no progress lines\n"
	"  --timings            each result with \"timings\": the wall\n"
	"                       seconds of its grading phases\n"
	"\n"
	"       warpgrade batch --status RESULTS_DIR [--verbose]\n"
	"                       progress across all shards\n"
	"\n"
	"exit status: 0 every submission has a result, 2 usage error,\n"
	"3 some results are internal errors (run again to regrade them),\n"
	"130 interrupted (run again to go on)\n";

static int parse_num(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* A bad value for the option just read; the exit status. */
static int bad_value(char **argv)
{
	fprintf(stderr, "warpgrade: bad value '%s' for --%s\n\n%s", optarg,
		argv[optind - 1][0] == '-' ? argv[optind - 1] + 2 : "?",
		usage_batch);
	return BATCH_USAGE;
}

/* `batch`'s command line as parsed. */
struct batch_cli {
	struct batch_opts o;
	int quiet, have_shard;
};

/* One option of `batch` into b: -1 to go on, else the exit status it
 * ends the command with (a usage error, --help). */
static int batch_option(int c, struct batch_cli *b, char **argv)
{
	struct batch_opts *o = &b->o;
	unsigned long long v;
	char err[256];

	switch (c) {
	case 'o':
		o->out = optarg;
		return -1;
	case 'j':
		if (parse_num(optarg, &v) || v < 1 || v > 256)
			return bad_value(argv);
		o->jobs = (unsigned)v;
		return -1;
	case 'b':
		if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") &&
		    strcmp(optarg, "emu"))
			return bad_value(argv);
		o->backend = optarg;
		return -1;
	case 'f':
		c = formats_parse(optarg);
		if (c < 0)
			return bad_value(argv);
		o->formats |= 1u << c;
		return -1;
	case 'c':
		o->config = optarg;
		return -1;
	case 's':
		if (parse_num(optarg, &v))
			return bad_value(argv);
		o->has_seed = 1;
		o->seed = v;
		return -1;
	case 't':
		if (parse_num(optarg, &v) || v < 1)
			return bad_value(argv);
		o->timeout_s = (double)v;
		return -1;
	case 'r':
		o->regrade = 1;
		return -1;
	case 'S':
		o->parallel = 0;
		return -1;
	case 'l':
		o->gpu_lock = optarg;
		return -1;
	case 'k':
		if (shard_parse(&o->shard, optarg, err, sizeof(err))) {
			fprintf(stderr, "warpgrade: %s\n\n%s", err,
				usage_batch);
			return BATCH_USAGE;
		}
		b->have_shard = 1;
		return -1;
	case 'q':
		b->quiet = 1;
		return -1;
	case 'T':
		o->timings = 1;
		return -1;
	case 'h':
		fputs(usage_batch, stdout);
		return 0;
	default:
		fprintf(stderr, "\n%s", usage_batch);
		return BATCH_USAGE;
	}
}

int batch_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "backend", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "regrade", no_argument, NULL, 'r' },
		{ "serial", no_argument, NULL, 'S' },
		{ "gpu-lock", required_argument, NULL, 'l' },
		{ "shard", required_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "timings", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct batch_cli b;
	struct batch_opts *o = &b.o;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char self[4096], err[256];
	ssize_t n;
	int c, rc;

	memset(&b, 0, sizeof(b));
	shard_init(&o->shard);
	o->backend = "auto";
	o->jobs = cores > 0 ? (unsigned)cores : 1;
	o->parallel = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		rc = batch_option(c, &b, argv);
		if (rc >= 0)
			return rc;
	}
	if (optind != argc - 1 || !o->out) {
		fprintf(stderr, "warpgrade: %s\n\n%s", !o->out ?
			"--out RESULTS_DIR is required" : optind >= argc ?
			"no submissions directory given" :
			"more than one submissions directory given",
			usage_batch);
		return BATCH_USAGE;
	}
	o->submissions = argv[optind];
	o->progress = !b.quiet;
	if (!b.have_shard &&
	    shard_from_env(&o->shard, err, sizeof(err)) < 0) {
		fprintf(stderr, "warpgrade: %s\n", err);
		return BATCH_USAGE;
	}
	/* the children are this very executable */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		die("cannot find the warpgrade executable");
	self[n] = '\0';
	o->warpgrade = self;
	return batch_run(o, NULL);
}
