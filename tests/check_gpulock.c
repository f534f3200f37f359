/*
 * The GPU lock (grader/gpulock.c) and the batch that shares one: timed
 * (exclusive) holds never overlap each other or a shared hold, shared
 * holds overlap, shared holders that keep coming do not starve a waiting
 * timed one, a dead holder's lock is free again, and two handles in one
 * process exclude each other.  The holds are read back from the lock's
 * own trace (WARPGRADE_GPU_LOCK_TRACE), written by every process.
 *
 * The grade command holds it shared around its GPU probe, and cannot
 * grade without it when it is given one.  A batch on "the GPU" with a
 * fake grader shows the plumbing: the children run side by side, each is
 * given the batch's lock, and their timed holds (this binary run as
 * `check_gpulock hold MODE SECONDS FILE`, standing in for the runners)
 * take turns.  The batch's GPU keeper (grader/gpukeep.c) holds on from
 * gpukeep_start to gpukeep_stop, and not longer.
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "build.h"
#include "gpukeep.h"
#include "gpulock.h"
#include "gputurns.h"
#include "probe_ahead.h"
#include "protocol.h"
#include "result_json.h"
#include "sample_results.h"
#include "util.h"

#define MAX_HOLDS 256

struct hold {
	long pid;
	char mode;
	double req, acq, rel;
};

static char root[64], lockp[128], tracep[128];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/wg-gpulock-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(lockp, sizeof(lockp), "%s/gpu.lock", root);
	snprintf(tracep, sizeof(tracep), "%s/trace", root);
	setenv("WARPGRADE_GPU_LOCK_TRACE", tracep, 1);
}

static void teardown(void)
{
	unsetenv("WARPGRADE_GPU_LOCK_TRACE");
	remove_tree(root);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (long)s) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

/* In a child process: hold the lock in mode m for secs, n times. */
static pid_t holder(enum gpulock_mode m, double secs, int n, double delay)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	sleep_s(delay);
	for (int i = 0; i < n; i++) {
		struct gpulock *l = gpulock_open(lockp);

		if (!l || gpulock_acquire(l, m))
			_exit(1);
		sleep_s(secs);
		gpulock_free(l);
	}
	_exit(0);
}

static void wait_ok(pid_t pid)
{
	int ws;

	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
		      "holder %d failed", (int)pid);
}

static size_t read_trace(struct hold *h)
{
	FILE *f = fopen(tracep, "r");
	size_t n = 0;

	ck_assert_ptr_nonnull(f);
	/* the last field is the lock file's name */
	while (n < MAX_HOLDS && fscanf(f, "%ld %c %lf %lf %lf %*s", &h[n].pid,
				       &h[n].mode, &h[n].req, &h[n].acq,
				       &h[n].rel) == 5)
		n++;
	fclose(f);
	return n;
}

static int overlap(const struct hold *a, const struct hold *b)
{
	return a->acq < b->rel && b->acq < a->rel;
}

/* No exclusive hold overlaps any other hold; returns the holds seen. */
static size_t check_exclusive(struct hold *h)
{
	size_t n = read_trace(h);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && (h[i].mode == 'X' || h[j].mode == 'X'))
				ck_assert_msg(!overlap(&h[i], &h[j]),
					      "holds %c [%f, %f] and %c "
					      "[%f, %f] overlap", h[i].mode,
					      h[i].acq, h[i].rel, h[j].mode,
					      h[j].acq, h[j].rel);
	return n;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* ---- the plan ---- */

START_TEST(plan_by_backend)
{
	struct gpulock_run r[2];

	ck_assert_uint_eq(gpulock_plan(0, GPULOCK_ALONE, r), 1);
	ck_assert_uint_eq(r[0].phases, PROTO_PHASE_CORRECTNESS);
	ck_assert_int_eq(r[0].mode, GPULOCK_NONE);
	ck_assert_uint_eq(gpulock_plan(0, GPULOCK_LOCKED, r), 1);
	ck_assert_int_eq(r[0].mode, GPULOCK_NONE);
	ck_assert_uint_eq(r[0].job_flags, 0);
	/* a GPU alone: one process, both phases */
	ck_assert_uint_eq(gpulock_plan(1, GPULOCK_ALONE, r), 1);
	ck_assert_uint_eq(r[0].phases,
			  PROTO_PHASE_CORRECTNESS | PROTO_PHASE_PERF);
	ck_assert_int_eq(r[0].mode, GPULOCK_NONE);
	ck_assert_uint_eq(r[0].job_flags, 0);
	/* the grade's exercises side by side: one process each, whose
	 * timed phase waits for its turn */
	ck_assert_uint_eq(gpulock_plan(1, GPULOCK_TURNS, r), 1);
	ck_assert_uint_eq(r[0].phases,
			  PROTO_PHASE_CORRECTNESS | PROTO_PHASE_PERF);
	ck_assert_int_eq(r[0].mode, GPULOCK_NONE);
	ck_assert_uint_eq(r[0].job_flags, PROTO_JOB_TIMED_TURN);
	/* a shared GPU: the sweep shared, the timed phase alone, each
	 * process born under its mode */
	ck_assert_uint_eq(gpulock_plan(1, GPULOCK_LOCKED, r), 2);
	ck_assert_uint_eq(r[0].phases, PROTO_PHASE_CORRECTNESS);
	ck_assert_int_eq(r[0].mode, GPULOCK_SHARED);
	ck_assert_uint_eq(r[1].phases, PROTO_PHASE_PERF);
	ck_assert_int_eq(r[1].mode, GPULOCK_EXCLUSIVE);
	ck_assert_uint_eq(r[0].job_flags | r[1].job_flags, 0);
}
END_TEST

/* ---- a grade's own turns ---- */

/* A runner of one grade, in a thread: it enters, sweeps for sweep_s,
 * takes its turn, is timed for timed_s, is done, waits idle until
 * released, exits in exit_s, leaves.  Times in seconds of
 * CLOCK_MONOTONIC. */
struct turn_runner {
	struct gputurns *t;
	double sweep_s, timed_s, exit_s;
	double start, swept, turn, done, released, left;
	int release;
	pthread_t thread;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *turn_runner_main(void *arg)
{
	struct turn_runner *r = arg;

	gputurns_enter(r->t);
	r->start = mono_s();
	sleep_s(r->sweep_s);
	r->swept = mono_s();
	gputurns_take(r->t, &r->release);
	r->turn = mono_s();
	sleep_s(r->timed_s);
	r->done = mono_s();
	gputurns_done(r->t, &r->release);
	while (!__atomic_load_n(&r->release, __ATOMIC_ACQUIRE))
		sleep_s(0.001);
	r->released = mono_s();
	sleep_s(r->exit_s);
	r->left = mono_s();
	gputurns_leave(r->t, &r->release);
	return NULL;
}

START_TEST(a_turn_waits_for_every_sweep_of_the_grade)
{
	struct gputurns *t = gputurns_new();
	struct turn_runner r[4];

	for (int i = 0; i < 4; i++) {
		r[i] = (struct turn_runner){ .t = t, .sweep_s = 0.05 + 0.1 * i,
					     .timed_s = 0.05, .exit_s = 0.1 };
		ck_assert_int_eq(pthread_create(&r[i].thread, NULL,
						turn_runner_main, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(r[i].thread, NULL);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			if (i == j)
				continue;
			/* while i is timed, j neither sweeps, is timed,
			 * nor exits */
			ck_assert_msg(r[i].done <= r[j].start ||
				      r[i].turn >= r[j].swept,
				      "runner %d timed during %d's sweep", i,
				      j);
			ck_assert_msg(r[i].done <= r[j].turn ||
				      r[j].done <= r[i].turn,
				      "runners %d and %d timed at once", i, j);
			ck_assert_msg(r[i].done <= r[j].released ||
				      r[j].left <= r[i].turn,
				      "runner %d timed while %d exited", i, j);
		}
	/* all four started at once: the first turn waited for the last
	 * sweep (0.35 s); the turns then followed each other without
	 * waiting for an exit, and the runners were released at the end */
	for (int i = 0; i < 4; i++) {
		ck_assert_double_ge(r[i].turn, r[3].swept);
		for (int j = 0; j < 4; j++) {
			ck_assert_double_ge(r[i].released, r[j].done);
			if (r[j].turn > r[i].turn)
				ck_assert_double_lt(r[j].turn, r[i].left);
		}
	}
	gputurns_free(t);
}
END_TEST

/* A runner done with nobody waiting goes at once, and a turn asked for
 * while it exits waits for it to be gone. */
START_TEST(a_turn_waits_for_a_released_runner)
{
	struct gputurns *t = gputurns_new();
	struct turn_runner a = { .t = t, .timed_s = 0.1, .exit_s = 0.2 };
	struct turn_runner b = { .t = t, .sweep_s = 0.05, .timed_s = 0.05 };

	ck_assert_int_eq(pthread_create(&a.thread, NULL, turn_runner_main,
					&a), 0);
	sleep_s(0.05); /* a holds its turn: b starts once it is done */
	ck_assert_int_eq(pthread_create(&b.thread, NULL, turn_runner_main,
					&b), 0);
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
	ck_assert_double_ge(b.start, a.done);
	ck_assert_double_lt(a.released - a.done, 0.05);
	ck_assert_double_ge(b.turn, a.left);
	gputurns_free(t);
}
END_TEST

START_TEST(no_runner_starts_while_a_turn_is_awaited)
{
	struct gputurns *t = gputurns_new();
	struct turn_runner a = { .t = t, .timed_s = 0.1 };
	struct turn_runner late = { .t = t, .sweep_s = 0.05, .timed_s = 0.05 };
	int sweep = 0;

	gputurns_enter(t); /* a sweep of the grade's, here */
	ck_assert_int_eq(pthread_create(&a.thread, NULL, turn_runner_main,
					&a), 0);
	sleep_s(0.1); /* a has swept and waits for its turn */
	ck_assert_int_eq(pthread_create(&late.thread, NULL,
					turn_runner_main, &late), 0);
	sleep_s(0.2);
	ck_assert_double_eq(a.turn, 0);
	ck_assert_double_eq(late.start, 0);
	gputurns_leave(t, &sweep); /* the sweep is gone */
	pthread_join(a.thread, NULL);
	pthread_join(late.thread, NULL);
	/* the late runner started only once a's turn was over */
	ck_assert_double_gt(a.turn, 0);
	ck_assert_double_ge(late.start, a.done);
	gputurns_free(t);
}
END_TEST

/* ---- the lock ---- */

START_TEST(exclusive_holds_take_turns)
{
	struct hold h[MAX_HOLDS];
	pid_t p[4];

	for (int i = 0; i < 4; i++)
		p[i] = holder(GPULOCK_EXCLUSIVE, 0.02, 5, 0);
	for (int i = 0; i < 4; i++)
		wait_ok(p[i]);
	ck_assert_uint_eq(check_exclusive(h), 20);
}
END_TEST

START_TEST(shared_holds_overlap)
{
	struct hold h[MAX_HOLDS];
	pid_t p[3];
	double last_acq = 0, first_rel = 1e300;

	for (int i = 0; i < 3; i++)
		p[i] = holder(GPULOCK_SHARED, 0.5, 1, 0);
	for (int i = 0; i < 3; i++)
		wait_ok(p[i]);
	ck_assert_uint_eq(read_trace(h), 3);
	for (int i = 0; i < 3; i++) {
		last_acq = h[i].acq > last_acq ? h[i].acq : last_acq;
		first_rel = h[i].rel < first_rel ? h[i].rel : first_rel;
	}
	ck_assert_msg(last_acq < first_rel, "shared holds did not overlap");
}
END_TEST

START_TEST(mixed_holds_exclude)
{
	struct hold h[MAX_HOLDS];
	pid_t p[6];

	for (int i = 0; i < 3; i++)
		p[i] = holder(GPULOCK_SHARED, 0.03, 6, 0.01 * i);
	for (int i = 3; i < 6; i++)
		p[i] = holder(GPULOCK_EXCLUSIVE, 0.02, 4, 0.01 * i);
	for (int i = 0; i < 6; i++)
		wait_ok(p[i]);
	ck_assert_uint_eq(check_exclusive(h), 30);
}
END_TEST

START_TEST(shared_holders_do_not_starve_a_timed_one)
{
	struct hold h[MAX_HOLDS];
	pid_t p[4];
	size_t n;
	int seen = 0;

	/* three readers that overlap one another for about 3 s: without
	 * the turnstile the lock is never free for a writer till they
	 * stop */
	for (int i = 0; i < 3; i++)
		p[i] = holder(GPULOCK_SHARED, 0.15, 20, 0.05 * i);
	p[3] = holder(GPULOCK_EXCLUSIVE, 0.01, 1, 0.4);
	for (int i = 0; i < 4; i++)
		wait_ok(p[i]);
	n = check_exclusive(h);
	for (size_t i = 0; i < n; i++) {
		double last_rel = 0;

		if (h[i].mode != 'X')
			continue;
		seen = 1;
		ck_assert_msg(h[i].acq - h[i].req < 1.0, "the timed hold "
			      "waited %.2f s", h[i].acq - h[i].req);
		for (size_t j = 0; j < n; j++)
			if (h[j].rel > last_rel)
				last_rel = h[j].rel;
		ck_assert_msg(h[i].rel < last_rel - 0.5, "the timed hold "
			      "came only once the readers were gone");
	}
	ck_assert(seen);
}
END_TEST

START_TEST(a_dead_holder_frees_the_lock)
{
	struct gpulock *l;
	pid_t p = fork();
	int ws;

	ck_assert_int_ge(p, 0);
	if (!p) {
		l = gpulock_open(lockp);
		if (!l || gpulock_acquire(l, GPULOCK_EXCLUSIVE))
			_exit(1);
		pause(); /* killed holding it */
		_exit(2);
	}
	sleep_s(0.3);
	ck_assert_int_eq(kill(p, SIGKILL), 0);
	ck_assert_int_eq(waitpid(p, &ws, 0), p);
	ck_assert(WIFSIGNALED(ws));
	l = gpulock_open(lockp);
	ck_assert_ptr_nonnull(l);
	alarm(10); /* a lock left held would hang here */
	ck_assert_int_eq(gpulock_acquire(l, GPULOCK_EXCLUSIVE), 0);
	alarm(0);
	gpulock_free(l);
}
END_TEST

struct waiter {
	struct gpulock *l;
	volatile int got;
};

static void *take(void *arg)
{
	struct waiter *w = arg;

	if (!gpulock_acquire(w->l, GPULOCK_SHARED))
		w->got = 1;
	return NULL;
}

START_TEST(two_handles_in_one_process_exclude)
{
	struct gpulock *a = gpulock_open(lockp), *b = gpulock_open(lockp);
	struct waiter w = { b, 0 };
	pthread_t t;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(gpulock_acquire(a, GPULOCK_EXCLUSIVE), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, take, &w), 0);
	sleep_s(0.3);
	ck_assert_int_eq(w.got, 0);
	gpulock_release(a);
	pthread_join(t, NULL);
	ck_assert_int_eq(w.got, 1);
	gpulock_free(a);
	gpulock_free(b);
}
END_TEST

START_TEST(unopenable_lock_is_an_error)
{
	ck_assert_ptr_null(gpulock_open("/nonexistent-dir/gpu.lock"));
}
END_TEST

/* ---- a batch sharing one ---- */

/*
 * The fake grader: takes the --gpu-lock it is given and holds it shared
 * ("the sweep"), then exclusive ("the timed phase"), as grade does with
 * its runners, then copies its submission (a JSON result) to --output.
 */
static const char fake_script[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")\n"
	"sub=$2; out=; lock=; prev=\n"
	"for a in \"$@\"; do\n"
	"  [ \"$prev\" = --output ] && out=$a\n"
	"  [ \"$prev\" = --gpu-lock ] && lock=$a\n"
	"  prev=$a\n"
	"done\n"
	"echo \"$*\" >> \"$D/calls\"\n"
	"[ -n \"$lock\" ] || exit 2\n"
	"\"$D/hold\" hold S 0.1 \"$lock\" || exit 2\n"
	"\"$D/hold\" hold X 0.05 \"$lock\" || exit 2\n"
	"cp \"$sub\" \"$out\"\n";

START_TEST(batch_children_take_turns_on_the_gpu)
{
	char subs[128], res[128], fake[128], hold[128], path[256];
	struct hold h[MAX_HOLDS];
	struct batch_opts o;
	struct batch_stats st;
	char *calls;
	size_t n, x = 0;
	int side_by_side = 0;

	snprintf(subs, sizeof(subs), "%s/subs", root);
	snprintf(res, sizeof(res), "%s/results", root);
	snprintf(fake, sizeof(fake), "%s/fake-warpgrade", root);
	snprintf(hold, sizeof(hold), "%s/hold", root);
	ck_assert_int_eq(mkdir(subs, 0755), 0);
	write_text(fake, fake_script);
	ck_assert_int_eq(chmod(fake, 0755), 0);
	{
		char self[4096];
		ssize_t k = readlink("/proc/self/exe", self,
				     sizeof(self) - 1);

		ck_assert_int_gt(k, 0);
		self[k] = '\0';
		ck_assert_int_eq(symlink(self, hold), 0);
	}
	for (int i = 0; i < 6; i++) {
		struct grade_result r;
		char name[32], *doc;

		snprintf(name, sizeof(name), "ok-%d", i);
		if (i == 5)
			sample_unusable(&r, name);
		else
			sample_result(&r, name, "cuda",
				      "NVIDIA H100 80GB HBM3", sample_all_ok,
				      0.7);
		doc = result_json(&r);
		snprintf(path, sizeof(path), "%s/%s", subs, name);
		write_text(path, doc);
		free(doc);
		result_release(&r);
	}
	memset(&o, 0, sizeof(o));
	o.submissions = subs;
	o.out = res;
	o.warpgrade = fake;
	o.backend = "cuda";
	o.jobs = 3;
	o.parallel = -1;
	o.timeout_s = 30;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	ck_assert_uint_eq(st.graded, 6);
	snprintf(path, sizeof(path), "%s/calls", root);
	calls = read_file(path, 1 << 20, NULL);
	ck_assert_ptr_nonnull(calls);
	snprintf(path, sizeof(path), "--gpu-lock %s/.gpu-lock", res);
	ck_assert_msg(strstr(calls, path) != NULL, "no lock given: %s",
		      calls);
	ck_assert_ptr_nonnull(strstr(calls, "--jobs 1"));
	free(calls);
	n = check_exclusive(h);
	ck_assert_uint_eq(n, 12);
	/* side by side: some shared holds (sweeps) overlapped */
	for (size_t i = 0; i < n; i++) {
		x += h[i].mode == 'X';
		for (size_t j = i + 1; j < n; j++)
			side_by_side |= h[i].mode == 'S' && h[j].mode == 'S' &&
					overlap(&h[i], &h[j]);
	}
	ck_assert_uint_eq(x, 6);
	ck_assert_msg(side_by_side, "no two children swept at once");
}
END_TEST

/* ---- the grade command ---- */

/* bin/warpgrade grade ARGS...; its exit status. */
static int grade(const char *const *args)
{
	const char *argv[24];
	pid_t pid;
	int ws, n = 0;

	argv[n++] = "bin/warpgrade";
	argv[n++] = "grade";
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	return WEXITSTATUS(ws);
}

START_TEST(grade_holds_it_shared_around_the_probe)
{
	struct hold h[MAX_HOLDS];
	char out[160], why[256];
	const char *args[] = { "tests/fixtures/compile_error/submission",
			       "--exercise", "aos_to_soa", "--backend", "emu",
			       "--quiet", "--format", "json", "--output", out,
			       "--gpu-lock", lockp, NULL };

	if (!build_emu_available(why, sizeof(why))) {
		printf("SKIP: grade --gpu-lock (%s)\n", why);
		return;
	}
	snprintf(out, sizeof(out), "%s/result.json", root);
	/* a compile error: nothing runs, only the probe touches the GPU */
	ck_assert_int_eq(grade(args), 0);
	ck_assert_uint_eq(read_trace(h), 1);
	ck_assert_int_eq(h[0].mode, 'S');
}
END_TEST

START_TEST(a_wrong_remembered_probe_is_graded_again)
{
	char out[160], why[256], path[4096], vis[64], *doc, *answer;
	const char *args[] = { "tests/fixtures/good/submission",
			       "--exercise", "aos_to_soa", "--quiet",
			       "--format", "json", "--output", out, NULL };
	FILE *f;

	if (!build_emu_available(why, sizeof(why))) {
		printf("SKIP: a remembered probe (%s)\n", why);
		return;
	}
	/* an answer of its own: no GPU is called that, here or anywhere */
	snprintf(vis, sizeof(vis), "wg-test-%ld", (long)getpid());
	setenv("CUDA_VISIBLE_DEVICES", vis, 1);
	ck_assert_int_eq(probe_ahead_path(path, sizeof(path)), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("sm 9 0 A GPU that is not there\n", f);
	fclose(f);
	snprintf(out, sizeof(out), "%s/result.json", root);
	/* the grade goes on for that GPU until the probe says otherwise,
	 * then again on the emulator */
	ck_assert_int_eq(grade(args), 0);
	unsetenv("CUDA_VISIBLE_DEVICES");
	doc = read_file(out, 1 << 20, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_msg(strstr(doc, "\"backend\": \"emu\"") != NULL, "%s", doc);
	ck_assert_ptr_nonnull(strstr(doc, "\"status\": \"OK\""));
	free(doc);
	/* the probe's own answer is remembered now */
	answer = read_file(path, 1 << 16, NULL);
	ck_assert_ptr_nonnull(answer);
	ck_assert_int_eq(answer[0], '!');
	free(answer);
	unlink(path);
}
END_TEST

START_TEST(grade_without_its_lock_is_an_internal_error)
{
	char out[160];
	const char *args[] = { "tests/fixtures/compile_error/submission",
			       "--backend", "emu", "--quiet", "--format",
			       "json", "--output", out, "--gpu-lock",
			       "/nonexistent-dir/gpu.lock", NULL };
	char *doc;

	snprintf(out, sizeof(out), "%s/result.json", root);
	ck_assert_int_eq(grade(args), 3);
	doc = read_file(out, 1 << 20, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_ptr_nonnull(strstr(doc, "cannot open the GPU lock"));
	free(doc);
}
END_TEST

/* ---- the batch's GPU keeper ---- */

/* A keeper whose probe (a script in a tree of its own) records its pid
 * and holds on; that pid in *pid. */
static struct gpukeep *fake_keeper(long *pid)
{
	char dir[160], probe[200], pidp[200], *text;
	const char *old = getenv("WARPGRADE_ROOT");
	char *saved = old ? xstrdup(old) : NULL;
	struct gpukeep *k;

	snprintf(dir, sizeof(dir), "%s/build", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(probe, sizeof(probe), "%s/wg-probe", dir);
	snprintf(pidp, sizeof(pidp), "%s/keeper.pid", root);
	text = xstrfmt("#!/bin/sh\n[ \"$1\" = --hold ] || exit 1\n"
		       "echo $$ > %s.tmp && mv %s.tmp %s\nexec sleep 100\n",
		       pidp, pidp, pidp);
	write_text(probe, text);
	free(text);
	ck_assert_int_eq(chmod(probe, 0755), 0);
	setenv("WARPGRADE_ROOT", root, 1);
	k = gpukeep_start(NULL);
	ck_assert_ptr_nonnull(k);
	for (int i = 0; i < 100 && access(pidp, F_OK); i++)
		sleep_s(0.05);
	text = read_file(pidp, 64, NULL);
	ck_assert_ptr_nonnull(text);
	*pid = atol(text);
	free(text);
	ck_assert_int_gt(*pid, 1);
	if (saved)
		setenv("WARPGRADE_ROOT", saved, 1);
	else
		unsetenv("WARPGRADE_ROOT");
	free(saved);
	return k;
}

START_TEST(the_keeper_lives_as_long_as_asked)
{
	long pid = 0;
	struct gpukeep *k = fake_keeper(&pid);

	sleep_s(0.2);
	ck_assert_int_eq(kill((pid_t)pid, 0), 0); /* still holding */
	gpukeep_stop(k);
	ck_assert_int_ne(kill((pid_t)pid, 0), 0); /* gone, reaped */
}
END_TEST

START_TEST(a_keeper_left_ends_on_its_own)
{
	long pid = 0;
	struct gpukeep *k = fake_keeper(&pid);
	int gone = 0;

	sleep_s(0.2);
	ck_assert_int_eq(kill((pid_t)pid, 0), 0);
	gpukeep_leave(k); /* returns at once */
	for (int i = 0; i < 100 && !gone; i++) {
		gone = kill((pid_t)pid, 0) != 0; /* killed and reaped */
		sleep_s(0.05);
	}
	ck_assert_msg(gone, "the keeper left behind is still there");
}
END_TEST

static Suite *gpulock_suite(void)
{
	Suite *s = suite_create("gpulock");
	TCase *tc;

	tc = tcase_create("plan");
	tcase_add_test(tc, plan_by_backend);
	suite_add_tcase(s, tc);

	tc = tcase_create("lock");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, exclusive_holds_take_turns);
	tcase_add_test(tc, shared_holds_overlap);
	tcase_add_test(tc, mixed_holds_exclude);
	tcase_add_test(tc, shared_holders_do_not_starve_a_timed_one);
	tcase_add_test(tc, a_dead_holder_frees_the_lock);
	tcase_add_test(tc, two_handles_in_one_process_exclude);
	tcase_add_test(tc, unopenable_lock_is_an_error);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("turns");
	tcase_add_test(tc, a_turn_waits_for_every_sweep_of_the_grade);
	tcase_add_test(tc, a_turn_waits_for_a_released_runner);
	tcase_add_test(tc, no_runner_starts_while_a_turn_is_awaited);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("grade");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, grade_holds_it_shared_around_the_probe);
	tcase_add_test(tc, grade_without_its_lock_is_an_internal_error);
	tcase_add_test(tc, a_wrong_remembered_probe_is_graded_again);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);

	tc = tcase_create("keeper");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_keeper_lives_as_long_as_asked);
	tcase_add_test(tc, a_keeper_left_ends_on_its_own);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("batch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, batch_children_take_turns_on_the_gpu);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

/* `check_gpulock hold S|X SECONDS FILE`: the fake grader's runner. */
static int hold_main(char **argv)
{
	struct gpulock *l = gpulock_open(argv[4]);

	if (!l || gpulock_acquire(l, argv[2][0] == 'X' ? GPULOCK_EXCLUSIVE :
				  GPULOCK_SHARED))
		return 1;
	sleep_s(atof(argv[3]));
	gpulock_free(l);
	return 0;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	char cwd[4096];
	int failed;

	if (argc == 5 && !strcmp(argv[1], "hold"))
		return hold_main(argv);
	/* the tree is the working directory (make check runs from it) */
	if (getcwd(cwd, sizeof(cwd)))
		setenv("WARPGRADE_ROOT", cwd, 1);
	sr = srunner_create(gpulock_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
