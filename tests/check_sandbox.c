/*
 * Check tests for grader/sandbox: tests/sandbox/fake_runner.c, compiled
 * with cc at test time, plays a runner that behaves (protocol bytes on
 * fd 3) or misbehaves (hangs, spins, forks, floods, crashes, exits early,
 * pokes at descriptors, the environment, files and the network).  Most
 * cases run twice: loop index 0 without isolation, 1 under bubblewrap
 * (skipped, with a note, where bubblewrap cannot run).  No GPU needed.
 */
#include "sandbox.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char top[PATH_MAX];		/* mkdtemp */
static char bindir[PATH_MAX + 8];	/* top/bin: the runner */
static char runner[PATH_MAX + 32];
static char work[PATH_MAX + 8];		/* top/work: the workdir */
static char secret[PATH_MAX + 16];	/* top/secret.txt */
static char env_home[PATH_MAX + 16];
static int bwrap_ok;

static const char *env_clean[] = {
	"PATH=/usr/bin:/bin", env_home, "LANG=C", NULL
};

static int rm_cb(const char *p, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* A collected protocol stream. */
struct proto {
	char buf[4096];
	size_t len;
	int restart;		/* phases: restart the clock on "phase" */
	int veto;		/* return -1 on anything */
	int send_seed;		/* answer "ready" with the job */
};

static int collect(struct sandbox_run *run, void *ctx,
		   const unsigned char *p, size_t n)
{
	struct proto *pr = ctx;
	size_t k = sizeof(pr->buf) - 1 - pr->len;

	if (k > n)
		k = n;
	memcpy(pr->buf + pr->len, p, k);
	pr->len += k;
	pr->buf[pr->len] = '\0';
	if (pr->veto)
		return -1;
	if (pr->restart)
		sandbox_set_deadline(run, 0.7);
	if (pr->send_seed && strstr(pr->buf, "ready\n")) {
		pr->send_seed = 0;
		ck_assert_int_eq(sandbox_send(run, "seed=42\n", 8), 0);
		sandbox_close_input(run);
		ck_assert_int_eq(sandbox_send(run, "late", 4), -1);
	}
	return 0;
}

/*
 * Set up spec for loop index i (0: no isolation, 1: bubblewrap); returns
 * 0 when that mode cannot run here.  argv must outlive the run.
 */
static int setup(struct sandbox_spec *spec, int i, const char **argv,
		 struct proto *pr)
{
	static const char *ro[2];

	sandbox_spec_init(spec);
	if (i == 1 && !bwrap_ok)
		return 0;
	ro[0] = bindir;
	ro[1] = NULL;
	spec->argv = argv;
	spec->env = env_clean;
	spec->workdir = work;
	spec->ro_paths = ro;
	spec->isolation = i ? SANDBOX_ISOLATE_BWRAP : SANDBOX_ISOLATE_NONE;
	spec->limits.wall_s = 10;
	spec->limits.cpu_s = 10;
	if (pr) {
		memset(pr, 0, sizeof(*pr));
		spec->on_data = collect;
		spec->ctx = pr;
	}
	return 1;
}

static void run_ok(const struct sandbox_spec *spec,
		   struct sandbox_result *res)
{
	int rc = sandbox_run(spec, res);

	ck_assert_msg(rc == 0, "sandbox_run failed: %s", res->error);
}

/*
 * Live (not zombie) members of process group pgid, from /proc.  A killed
 * member that was orphaned stays a zombie until init reaps it, which in
 * a container may take a while (or never happen): it runs nothing, so it
 * does not count.
 */
static int live_members(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int live = 0;

	if (!d)
		return kill(-pgid, 0) == 0;
	while ((e = readdir(d))) {
		char path[300], buf[512], state;
		const char *rp;
		long pgrp;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		rp = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (rp && sscanf(rp, ") %c %*d %ld", &state, &pgrp) == 2 &&
		    pgrp == pgid && state != 'Z' && state != 'X')
			live++;
	}
	closedir(d);
	return live;
}

/* The group is gone (under bubblewrap, allow the namespace a moment). */
static void assert_group_gone(pid_t pgid)
{
	int i, live = 0;

	for (i = 0; i < 250; i++) {
		live = live_members(pgid);
		if (!live)
			return;
		usleep(20000);
	}
	ck_abort_msg("process group %d: %d members still alive", (int)pgid,
		     live);
}

/* ---- the runner behaves ---- */

START_TEST(test_normal_exit)
{
	const char *argv[] = { runner, "ok", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto pr;
	static const char job[] = "job message: exercise=padded_tile";
	char want[64];

	if (!setup(&spec, _i, argv, &pr))
		return;
	spec.input = job;
	spec.input_len = strlen(job);
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exited, 1);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_int_eq(res.signal, 0);
	ck_assert_int_eq(res.timed_out, SANDBOX_TIMEOUT_NONE);
	ck_assert_str_eq(pr.buf, job);
	snprintf(want, sizeof(want), "read %zu bytes\n", strlen(job));
	ck_assert_str_eq(res.out, want);
	ck_assert_str_eq(res.err, "all good\n");
	ck_assert_int_eq(res.out_total, 14);
	ck_assert(res.wall_s >= 0 && res.wall_s < 5);
	if (_i)
		ck_assert_msg(strncmp(res.isolation, "bubblewrap", 10) == 0,
			      "%s", res.isolation);
	else
		ck_assert_msg(strncmp(res.isolation, "rlimits only", 12) == 0,
			      "%s", res.isolation);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_exit_codes)
{
	const char *argv[] = { runner, "exitcode", "5", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char d[128];

	if (!setup(&spec, _i, argv, NULL))
		return;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exited, 1);
	ck_assert_int_eq(res.exit_code, 5);
	ck_assert_str_eq(sandbox_describe(&res, &spec.limits, d, sizeof(d)),
			 "exited with code 5");
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_hold_stdin)
{
	const char *argv[] = { runner, "ready", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto pr;

	if (!setup(&spec, _i, argv, &pr))
		return;
	spec.hold_stdin = 1;
	pr.send_seed = 1;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_str_eq(pr.buf, "ready\nseed=42\n");
	sandbox_result_release(&res);
}
END_TEST

/* ---- timeouts ---- */

START_TEST(test_hang_wall_timeout)
{
	const char *argv[] = { runner, "hang", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char d[128];

	if (!setup(&spec, _i, argv, NULL))
		return;
	spec.limits.wall_s = 0.5;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.timed_out, SANDBOX_TIMEOUT_WALL);
	ck_assert_int_eq(res.exited, 0);
	ck_assert_int_eq(res.signal, SIGKILL);
	ck_assert_int_eq(res.exit_code, 128 + SIGKILL);
	ck_assert_msg(res.wall_s >= 0.45 && res.wall_s < 3, "%.2f",
		      res.wall_s);
	ck_assert_str_eq(sandbox_describe(&res, &spec.limits, d, sizeof(d)),
			 "wall-clock timeout (0.5 s)");
	assert_group_gone(res.pid);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_spin_cpu_timeout)
{
	const char *argv[] = { runner, "spin", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;

	if (!setup(&spec, _i, argv, NULL))
		return;
	spec.limits.cpu_s = 1;
	spec.limits.wall_s = 20;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.timed_out, SANDBOX_TIMEOUT_CPU);
	ck_assert_int_eq(res.exited, 0);
	ck_assert_msg(res.signal == SIGXCPU || res.signal == SIGKILL, "%d",
		      res.signal);
	ck_assert_msg(res.cpu_s >= 0.9, "cpu %.2f", res.cpu_s);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_phases_restart_clock)
{
	const char *argv[] = { runner, "phases", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto pr;

	/* 3 phases of 0.4 s under a 0.7 s clock restarted per phase. */
	if (!setup(&spec, _i, argv, &pr))
		return;
	spec.limits.wall_s = 0.7;
	pr.restart = 1;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.timed_out, SANDBOX_TIMEOUT_NONE);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_str_eq(pr.buf, "phase\nphase\nphase\ndone\n");
	sandbox_result_release(&res);

	/* The same without restarting: the clock runs out. */
	setup(&spec, _i, argv, &pr);
	spec.limits.wall_s = 0.7;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.timed_out, SANDBOX_TIMEOUT_WALL);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_callback_kill)
{
	const char *argv[] = { runner, "corrupt", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto pr;

	if (!setup(&spec, _i, argv, &pr))
		return;
	pr.veto = 1;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.killed_by_callback, 1);
	ck_assert_int_eq(res.timed_out, 0);
	ck_assert_int_eq(res.signal, SIGKILL);
	ck_assert(res.wall_s < 5);
	sandbox_result_release(&res);
}
END_TEST

/* Frames as on_frame saw them. */
struct frames {
	int n;
	enum proto_type type[8];
	char payload[8][16];
	int veto_at;		/* return -1 on this frame (1-based) */
};

static int take_frame(struct sandbox_run *run, void *ctx,
		      enum proto_type type, const unsigned char *p,
		      size_t len)
{
	struct frames *f = ctx;

	(void)run;
	ck_assert_int_lt(f->n, 8);
	f->type[f->n] = type;
	snprintf(f->payload[f->n], sizeof(f->payload[0]), "%.*s", (int)len,
		 (const char *)p);
	return ++f->n == f->veto_at ? -1 : 0;
}

/* HELLO, NOTE "abc", DONE, then tail; the runner echoes it to fd 3. */
static void frame_input(struct proto_buf *b, const char *tail)
{
	proto_buf_init(b);
	proto_frame(b, PROTO_HELLO, NULL, 0);
	proto_frame(b, PROTO_NOTE, "abc", 3);
	proto_frame(b, PROTO_DONE, NULL, 0);
	proto_put_bytes(b, tail, strlen(tail));
	ck_assert(!b->oom);
}

/* The runner echoes in to fd 3; on_frame (vetoing frame veto_at, 0:
 * none) fills *f. */
static void run_frames(int i, struct proto_buf *in, struct frames *f,
		       size_t max_payload, int veto_at,
		       struct sandbox_result *res)
{
	const char *argv[] = { runner, "ok", NULL };
	struct sandbox_spec spec;

	memset(f, 0, sizeof(*f));
	f->veto_at = veto_at;
	setup(&spec, i, argv, NULL);
	spec.input = in->data;
	spec.input_len = in->len;
	spec.on_frame = take_frame;
	spec.max_payload = max_payload;
	spec.ctx = f;
	run_ok(&spec, res);
}

START_TEST(test_frames)
{
	struct sandbox_result res;
	struct proto_buf in;
	struct frames f;

	if (_i && !bwrap_ok)
		return;
	/* whole frames, in order, however the pipe splits them */
	frame_input(&in, "");
	run_frames(_i, &in, &f, 0, 0, &res);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_int_eq(res.killed_by_callback, 0);
	ck_assert_str_eq(res.frame_error, "");
	ck_assert_int_eq(f.n, 3);
	ck_assert_int_eq(f.type[0], PROTO_HELLO);
	ck_assert_int_eq(f.type[1], PROTO_NOTE);
	ck_assert_str_eq(f.payload[1], "abc");
	ck_assert_int_eq(f.type[2], PROTO_DONE);
	sandbox_result_release(&res);

	/* a veto: no frame after it, and no decoder error */
	run_frames(_i, &in, &f, 0, 2, &res);
	ck_assert_int_eq(res.killed_by_callback, 1);
	ck_assert_str_eq(res.frame_error, "");
	ck_assert_int_eq(f.n, 2);
	sandbox_result_release(&res);

	/* a payload over the caller's cap */
	run_frames(_i, &in, &f, 2, 0, &res);
	ck_assert_int_eq(res.killed_by_callback, 1);
	ck_assert_msg(strstr(res.frame_error, "exceeds the 2-byte cap"),
		      "%s", res.frame_error);
	ck_assert_int_eq(f.n, 1);
	sandbox_result_release(&res);
	proto_buf_release(&in);

	/* a corrupt stream: the frames before it, then the decoder's
	 * reason */
	frame_input(&in, "garbage, not a frame header");
	run_frames(_i, &in, &f, 0, 0, &res);
	ck_assert_int_eq(res.killed_by_callback, 1);
	ck_assert_str_eq(res.frame_error, "bad frame magic");
	ck_assert_int_eq(f.n, 3);
	sandbox_result_release(&res);
	proto_buf_release(&in);
}
END_TEST

/* Both callbacks, one ctx. */
struct bytes_and_frames {
	struct proto pr;
	struct frames f;
};

static int both_data(struct sandbox_run *run, void *ctx,
		     const unsigned char *p, size_t n)
{
	return collect(run, &((struct bytes_and_frames *)ctx)->pr, p, n);
}

static int both_frame(struct sandbox_run *run, void *ctx,
		      enum proto_type type, const unsigned char *p,
		      size_t len)
{
	return take_frame(run, &((struct bytes_and_frames *)ctx)->f, type, p,
			  len);
}

/* on_data and on_frame together: every byte, and the frames. */
START_TEST(test_bytes_and_frames)
{
	const char *argv[] = { runner, "ok", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto_buf in;
	struct bytes_and_frames b;

	if (!setup(&spec, _i, argv, NULL))
		return;
	memset(&b, 0, sizeof(b));
	frame_input(&in, "");
	spec.input = in.data;
	spec.input_len = in.len;
	spec.on_data = both_data;
	spec.on_frame = both_frame;
	spec.ctx = &b;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.killed_by_callback, 0);
	ck_assert_uint_eq(b.pr.len, in.len);
	ck_assert(memcmp(b.pr.buf, in.data, in.len) == 0);
	ck_assert_int_eq(b.f.n, 3);
	ck_assert_str_eq(b.f.payload[1], "abc");
	sandbox_result_release(&res);
	proto_buf_release(&in);
}
END_TEST

/* ---- exhaustion ---- */

START_TEST(test_fork_bomb)
{
	const char *argv[] = { runner, "forkbomb", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto pr;

	if (!setup(&spec, _i, argv, &pr))
		return;
	spec.limits.wall_s = 1.5;
	spec.limits.nproc = 64;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.timed_out, SANDBOX_TIMEOUT_WALL);
	ck_assert_msg(res.wall_s < 8, "%.2f", res.wall_s);
	assert_group_gone(res.pid);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_fork_bomb_nproc_uid)
{
	const char *argv[] = { runner, "forkbomb", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct proto pr;
	int forks = -1, fails = -1;

	/* As root nproc is ignored; dropping to a spare uid applies it.  A
	 * uid of this test's own: the zombies of an earlier run, which count
	 * against nproc until init reaps them, must not eat its cap. */
	if (getuid() != 0 || !setup(&spec, _i, argv, &pr))
		return;
	spec.uid = (uid_t)(2100000000L + (getpid() % 1000000) * 2 + _i);
	spec.gid = spec.uid;
	spec.limits.wall_s = 1.5;
	spec.limits.nproc = 16;
	run_ok(&spec, &res);
	ck_assert_msg(sscanf(pr.buf, "forks=%d fails=%d", &forks,
			     &fails) == 2, "proto '%s' err '%s'", pr.buf,
		      res.err);
	ck_assert_msg(forks < 16 && fails > 0, "forks %d", forks);
	assert_group_gone(res.pid);
	sandbox_result_release(&res);
	ck_assert_int_eq(chown(work, 0, 0), 0);
}
END_TEST

START_TEST(test_output_flood)
{
	const char *argv[] = { runner, "flood", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;

	if (!setup(&spec, _i, argv, NULL))
		return;
	spec.limits.out_cap = 4096;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_int_gt(res.out_total, (4u << 20) - 300);
	ck_assert_int_gt(res.err_total, (3u << 20) - 300);
	ck_assert(strncmp(res.out, "OUT-HEAD\n", 9) == 0);
	ck_assert(strncmp(res.err, "ERR-HEAD\n", 9) == 0);
	ck_assert_ptr_nonnull(strstr(res.out, " bytes omitted "));
	ck_assert(strcmp(res.out + strlen(res.out) - 9, "OUT-TAIL\n") == 0);
	ck_assert(strcmp(res.err + strlen(res.err) - 9, "ERR-TAIL\n") == 0);
	ck_assert_int_le(strlen(res.out), 4096 + 64);
	ck_assert_int_le(strlen(res.err), 4096 + 64);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_fsize_limit)
{
	const char *argv[] = { runner, "fsize", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char p[PATH_MAX * 2];
	struct stat st;

	if (!setup(&spec, _i, argv, NULL))
		return;
	spec.limits.fsize_bytes = 1 << 20;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.signal, SIGXFSZ);
	snprintf(p, sizeof(p), "%s/big.out", work);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_le(st.st_size, 1 << 20);
	unlink(p);
	sandbox_result_release(&res);
}
END_TEST

/* ---- dying ---- */

static const struct {
	const char *mode;
	int sig;
	const char *name;
} deaths[] = {
	{ "segv", SIGSEGV, "SIGSEGV" },
	{ "fpe", SIGFPE, "SIGFPE" },
	{ "abort", SIGABRT, "SIGABRT" },
};

START_TEST(test_signals)
{
	int mode = _i / 2, k = _i % 2;
	const char *argv[] = { runner, deaths[mode].mode, NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char d[128];

	if (!setup(&spec, k, argv, NULL))
		return;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exited, 0);
	ck_assert_int_eq(res.signal, deaths[mode].sig);
	ck_assert_int_eq(res.exit_code, 128 + deaths[mode].sig);
	ck_assert_int_eq(res.timed_out, 0);
	ck_assert_str_eq(sandbox_signal_name(res.signal), deaths[mode].name);
	sandbox_describe(&res, &spec.limits, d, sizeof(d));
	ck_assert_msg(strstr(d, deaths[mode].name) != NULL, "%s", d);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_exit_early)
{
	const char *argv[] = { runner, "exit", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	static char big[1 << 20];

	/* 1 MiB for a child that never reads: EPIPE, not our death. */
	if (!setup(&spec, _i, argv, NULL))
		return;
	spec.input = big;
	spec.input_len = sizeof(big);
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exited, 1);
	ck_assert_int_eq(res.exit_code, 3);
	sandbox_result_release(&res);
}
END_TEST

/* ---- what the child can see ---- */

START_TEST(test_fds_closed)
{
	const char *argv[] = { runner, "fds", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	int leak1, leak2;

	if (!setup(&spec, _i, argv, NULL))
		return;
	/* Descriptors the grader forgot to mark close-on-exec. */
	leak1 = open("/dev/null", O_RDONLY);
	leak2 = open(secret, O_RDONLY);
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, "open 3\ncount 1\n");
	close(leak1);
	close(leak2);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_clean_env)
{
	const char *argv[] = { runner, "env", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char want[PATH_MAX * 4];

	if (!setup(&spec, _i, argv, NULL))
		return;
	setenv("WG_SECRET_SEED", "1234", 1);
	run_ok(&spec, &res);
	/* bwrap --chdir adds PWD (the workdir): harmless. */
	snprintf(want, sizeof(want), "PATH=/usr/bin:/bin\n%s\nLANG=C\n"
		 "%s%s%scwd=%s\n", env_home, _i ? "PWD=" : "", _i ? work : "",
		 _i ? "\n" : "", work);
	ck_assert_str_eq(res.out, want);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_files_and_network)
{
	const char *rd[] = { runner, "read", secret, NULL };
	char outside[PATH_MAX * 2], port[16];
	const char *wr[] = { runner, "write", outside, NULL };
	char in_bin[PATH_MAX * 2];
	const char *wr_usr[] = { runner, "write", in_bin, NULL };
	const char *wt[] = { runner, "write", "/tmp/wg-sandbox-tmp", NULL };
	const char *net[] = { runner, "net", port, NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int s;

	if (!setup(&spec, _i, rd, NULL))
		return;
	run_ok(&spec, &res);
	/* Without isolation the runner reads what the grader can (the
	 * documented limit); under bubblewrap it cannot see the file. */
	ck_assert_str_eq(res.out, _i ? "unreadable\n" : "readable\n");
	sandbox_result_release(&res);

	snprintf(outside, sizeof(outside), "%s/planted.txt", top);
	snprintf(in_bin, sizeof(in_bin), "%s/planted.txt", bindir);
	setup(&spec, _i, wr, NULL);
	run_ok(&spec, &res);
	/* Under bubblewrap the path lies in the private /tmp: whatever the
	 * runner wrote there never reaches the host. */
	ck_assert_str_eq(res.out, "writable\n");
	ck_assert_int_eq(access(outside, F_OK), _i ? -1 : 0);
	sandbox_result_release(&res);
	unlink(outside);

	setup(&spec, _i, wr_usr, NULL);
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, _i ? "unwritable\n" : "writable\n");
	sandbox_result_release(&res);
	unlink(in_bin);

	setup(&spec, _i, wt, NULL);
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, "writable\n");
	sandbox_result_release(&res);
	if (_i)		/* the private /tmp is gone with the sandbox */
		ck_assert_int_ne(access("/tmp/wg-sandbox-tmp", F_OK), 0);
	else
		unlink("/tmp/wg-sandbox-tmp");

	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sa, &sl), 0);
	snprintf(port, sizeof(port), "%d", ntohs(sa.sin_port));
	setup(&spec, _i, net, NULL);
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, _i ? "no network\n" : "connected\n");
	sandbox_result_release(&res);
	close(s);
}
END_TEST

START_TEST(test_escaped_grandchild)
{
	char alive[PATH_MAX * 2];
	const char *argv[] = { runner, "escape", alive, NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct stat st1, st2;

	/* Only the pid namespace catches a setsid() escape (sandbox.h). */
	if (_i == 0 || !setup(&spec, _i, argv, NULL))
		return;
	snprintf(alive, sizeof(alive), "%s/alive.txt", work);
	unlink(alive);
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exit_code, 0);
	usleep(200000);
	ck_assert_int_eq(stat(alive, &st1), 0);
	usleep(300000);
	ck_assert_int_eq(stat(alive, &st2), 0);
	ck_assert_int_eq(st1.st_size, st2.st_size);
	unlink(alive);
	sandbox_result_release(&res);
}
END_TEST

/* Resident memory RLIMIT_DATA misses is watched: over the limit, the
 * run is killed and the result says why. */
START_TEST(test_memory_limit)
{
	const char *argv[] = { runner, "shmhog", "256", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char why[128];

	if (!setup(&spec, _i, argv, NULL))
		return;
	spec.limits.data_bytes = (uint64_t)64 << 20;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exited, 0);
	ck_assert_int_eq(res.signal, SIGKILL);
	ck_assert_int_eq(res.memory_exceeded, 1);
	ck_assert_int_eq(res.timed_out, 0);
	ck_assert_str_eq(res.out, "");
	ck_assert_str_eq(sandbox_describe(&res, &spec.limits, why,
					  sizeof(why)),
			 "killed: memory over the limit (64 MiB)");
	sandbox_result_release(&res);
}
END_TEST

/* A private working directory under bubblewrap: the sum of the files
 * is capped (4 x the file size limit), and none reaches the host. */
START_TEST(test_private_workdir)
{
	const char *argv[] = { runner, "fill", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char first[PATH_MAX + 16];

	if (!setup(&spec, 1, argv, NULL))
		return;
	snprintf(first, sizeof(first), "%s/fill-0", work);
	spec.private_workdir = 1;
	spec.limits.fsize_bytes = (uint64_t)4 << 20;
	spec.limits.wall_s = 20;
	run_ok(&spec, &res);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_msg(atoi(res.out) >= 8 && atoi(res.out) <= 16,
		      "wrote %s MiB", res.out);
	ck_assert_msg(access(first, F_OK) != 0, "'%s' reached the host",
		      first);
	sandbox_result_release(&res);
}
END_TEST

/* The GPU's device nodes under bubblewrap: a directory among them
 * (/dev/nvidia-caps on real hosts) and a node appear in the sandbox's
 * /dev, which stays read-only.  Stand-ins from the test's directory play
 * the nodes: the sandbox binds them wherever they come from. */
START_TEST(test_gpu_nodes)
{
	char dev[PATH_MAX + 8], caps[PATH_MAX + 32], node[PATH_MAX + 32];
	char glob_pat[PATH_MAX + 16];
	const char *ex[] = { runner, "exists", "/dev/nvidia-caps",
			     "/dev/nvidia0", "/dev/null", NULL };
	const char *wr[] = { runner, "write", "/dev/planted", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	int fd;

	if (!setup(&spec, 1, ex, NULL))
		return;
	snprintf(dev, sizeof(dev), "%s/dev", top);
	snprintf(caps, sizeof(caps), "%s/nvidia-caps", dev);
	snprintf(node, sizeof(node), "%s/nvidia0", dev);
	snprintf(glob_pat, sizeof(glob_pat), "%s/nvidia*", dev);
	ck_assert_int_eq(mkdir(dev, 0755), 0);
	ck_assert_int_eq(mkdir(caps, 0755), 0);
	fd = open(node, O_WRONLY | O_CREAT, 0666);
	ck_assert_int_ge(fd, 0);
	close(fd);
	spec.gpu = 1;
	spec.gpu_nodes = glob_pat;
	run_ok(&spec, &res);
	ck_assert_msg(res.exit_code == 0, "exit %d: %s", res.exit_code,
		      res.err ? res.err : "");
	ck_assert_str_eq(res.out, "yes yes yes\n");
	sandbox_result_release(&res);

	setup(&spec, 1, wr, NULL);
	spec.gpu = 1;
	spec.gpu_nodes = glob_pat;
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, "unwritable\n");
	sandbox_result_release(&res);
	unlink(node);
	rmdir(caps);
	rmdir(dev);
}
END_TEST

/* A runner given one GPU (gpu_minor) sees that GPU's node, the control
 * and uvm nodes and the caps, and no other GPU's node. */
START_TEST(test_gpu_nodes_one_gpu)
{
	static const char *const names[] = { "nvidia0", "nvidia1",
					     "nvidia12", "nvidiactl",
					     "nvidia-uvm" };
	char dev[PATH_MAX + 8], path[PATH_MAX + 32];
	char glob_pat[PATH_MAX + 16];
	const char *ex[] = { runner, "exists", "/dev/nvidia0", "/dev/nvidia1",
			     "/dev/nvidia12", "/dev/nvidiactl",
			     "/dev/nvidia-uvm", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;

	if (!setup(&spec, 1, ex, NULL))
		return;
	snprintf(dev, sizeof(dev), "%s/dev", top);
	ck_assert_int_eq(mkdir(dev, 0755), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dev, names[i]);
		fd = open(path, O_WRONLY | O_CREAT, 0666);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	snprintf(glob_pat, sizeof(glob_pat), "%s/nvidia*", dev);
	spec.gpu = 1;
	spec.gpu_nodes = glob_pat;
	spec.gpu_minor = 1;
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, "no yes no yes yes\n");
	sandbox_result_release(&res);

	setup(&spec, 1, ex, NULL); /* -1: every node, as before */
	spec.gpu = 1;
	spec.gpu_nodes = glob_pat;
	run_ok(&spec, &res);
	ck_assert_str_eq(res.out, "yes yes yes yes yes\n");
	sandbox_result_release(&res);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dev, names[i]);
		unlink(path);
	}
	rmdir(dev);
}
END_TEST

/* ---- grader-side failures ---- */

START_TEST(test_grader_failures)
{
	const char *missing[] = { "/nonexistent/runner", NULL };
	const char *relative[] = { "fake_runner", NULL };
	char notexe[PATH_MAX * 2];
	const char *bad[] = { notexe, NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	FILE *f;

	setup(&spec, 0, missing, NULL);
	ck_assert_int_eq(sandbox_run(&spec, &res), -1);
	ck_assert_msg(strstr(res.error, "cannot run '/nonexistent/runner'")
		      && strstr(res.error, "no such file"), "%s", res.error);
	sandbox_result_release(&res);

	setup(&spec, 0, relative, NULL);
	ck_assert_int_eq(sandbox_run(&spec, &res), -1);
	sandbox_result_release(&res);

	/* exec itself fails: reported through the close-on-exec pipe */
	snprintf(notexe, sizeof(notexe), "%s/garbage", bindir);
	f = fopen(notexe, "w");
	ck_assert_ptr_nonnull(f);
	fputs("\x7f" "ELF garbage", f);
	fclose(f);
	chmod(notexe, 0755);
	setup(&spec, 0, bad, NULL);
	ck_assert_int_eq(sandbox_run(&spec, &res), -1);
	ck_assert_msg(strstr(res.error, "cannot run"), "%s", res.error);
	sandbox_result_release(&res);

	/* A missing read-only path is the grader's error, not exit 1. */
	setup(&spec, 0, missing, NULL);
	spec.argv = (const char *const[]){ runner, "ok", NULL };
	spec.ro_paths = (const char *const[]){ "/nonexistent/lib", NULL };
	ck_assert_int_eq(sandbox_run(&spec, &res), -1);
	ck_assert_msg(strstr(res.error, "/nonexistent/lib"), "%s", res.error);
	sandbox_result_release(&res);

	setup(&spec, 0, missing, NULL);
	spec.argv = (const char *const[]){ runner, "ok", NULL };
	spec.workdir = "/nonexistent/work";
	ck_assert_int_eq(sandbox_run(&spec, &res), -1);
	ck_assert_msg(strstr(res.error, "working directory"), "%s",
		      res.error);
	sandbox_result_release(&res);
}
END_TEST

START_TEST(test_auto_mode)
{
	const char *argv[] = { runner, "exitcode", "0", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;

	setup(&spec, 0, argv, NULL);
	spec.isolation = SANDBOX_ISOLATE_AUTO;
	run_ok(&spec, &res);
	ck_assert_msg(strncmp(res.isolation, bwrap_ok ? "bubblewrap" :
			      "rlimits only", 10) == 0, "%s", res.isolation);
	sandbox_result_release(&res);
}
END_TEST

/* The profiles' limits, as sandbox.h lists them. */
START_TEST(test_profiles)
{
	struct sandbox_limits l, d;

	sandbox_limits_profile(SANDBOX_PROFILE_RUNNER, 60, &l);
	sandbox_limits_default(&d);
	ck_assert(l.wall_s == d.wall_s && l.cpu_s == d.cpu_s &&
		  l.data_bytes == d.data_bytes && l.nproc == d.nproc &&
		  l.fsize_bytes == d.fsize_bytes && l.nofile == d.nofile &&
		  l.out_cap == d.out_cap);
	ck_assert(d.wall_s == 60 && d.cpu_s == 120);
	ck_assert_uint_eq(d.data_bytes, 16ULL << 30);
	ck_assert_uint_eq(d.nproc, 256);
	ck_assert_uint_eq(d.fsize_bytes, 64ULL << 20);
	ck_assert_uint_eq(d.nofile, 256);
	ck_assert_uint_eq(d.out_cap, 64 << 10);

	sandbox_limits_profile(SANDBOX_PROFILE_COMPILER, 120, &l);
	ck_assert(l.wall_s == 120 && l.cpu_s == 480);
	ck_assert_uint_eq(l.data_bytes, 4ULL << 30);
	ck_assert_uint_eq(l.nproc, 64);
	ck_assert_uint_eq(l.fsize_bytes, 256ULL << 20);
	ck_assert_uint_eq(l.nofile, 1024);
	ck_assert_uint_eq(l.out_cap, 64 << 10);

	sandbox_limits_profile(SANDBOX_PROFILE_HELPER, 30, &l);
	ck_assert(l.wall_s == 30 && l.cpu_s == 30);
	ck_assert_uint_eq(l.data_bytes, 1ULL << 30);
	ck_assert_uint_eq(l.nproc, 16);
	ck_assert_uint_eq(l.fsize_bytes, 1 << 20);
	ck_assert_uint_eq(l.nofile, 64);
	ck_assert_uint_eq(l.out_cap, 64 << 10);

	sandbox_limits_profile(SANDBOX_PROFILE_TOOL, 60, &l);
	ck_assert(l.wall_s == 60 && l.cpu_s == 240);
	ck_assert_uint_eq(l.data_bytes, 0);
	ck_assert_uint_eq(l.nproc, 0);
	ck_assert_uint_eq(l.fsize_bytes, 1ULL << 30);
	ck_assert_uint_eq(l.nofile, 1024);
	ck_assert_uint_eq(l.out_cap, 256 << 10);

	/* nothing but the wall clock, or not even that */
	sandbox_limits_profile(SANDBOX_PROFILE_TRUSTED, 5, &l);
	ck_assert(l.wall_s == 5 && l.cpu_s == 0);
	ck_assert_uint_eq(l.data_bytes, 0);
	ck_assert_uint_eq(l.nproc, 0);
	ck_assert_uint_eq(l.fsize_bytes, 0);
	ck_assert_uint_eq(l.nofile, 0);
	ck_assert_uint_eq(l.out_cap, 64 << 10);
	sandbox_limits_profile(SANDBOX_PROFILE_TRUSTED, 0, &l);
	ck_assert(l.wall_s == 0 && l.cpu_s == 0);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(sandbox_signal_name(SIGSEGV), "SIGSEGV");
	ck_assert_str_eq(sandbox_signal_name(SIGFPE), "SIGFPE");
	ck_assert_str_eq(sandbox_signal_name(99), "signal 99");
}
END_TEST

/* ---- setup ---- */

static int find_source(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	snprintf(buf, len, "tests/sandbox/fake_runner.c");
	if (access(buf, R_OK) == 0)
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/../../tests/sandbox/fake_runner.c", exe);
	return access(buf, R_OK);
}

static int prepare(void)
{
	char src[PATH_MAX * 2], cmd[PATH_MAX * 5];
	const char *tmp = getenv("TMPDIR");
	const char *argv[] = { NULL, "exitcode", "0", NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	FILE *f;

	snprintf(top, sizeof(top), "%s/wg-check-sandbox-XXXXXX",
		 tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(top))
		return -1;
	/* Traversable, so the test that drops to a spare uid can run. */
	chmod(top, 0755);
	snprintf(bindir, sizeof(bindir), "%s/bin", top);
	snprintf(work, sizeof(work), "%s/work", top);
	snprintf(runner, sizeof(runner), "%s/fake_runner", bindir);
	snprintf(secret, sizeof(secret), "%s/secret.txt", top);
	snprintf(env_home, sizeof(env_home), "HOME=%s", work);
	if (mkdir(bindir, 0755) < 0 || mkdir(work, 0755) < 0)
		return -1;
	f = fopen(secret, "w");
	if (!f)
		return -1;
	fputs("reference solution\n", f);
	fclose(f);
	if (find_source(src, sizeof(src)) < 0) {
		fprintf(stderr, "check_sandbox: tests/sandbox/fake_runner.c "
			"not found\n");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "${CC:-cc} -O1 -o '%s' '%s'", runner, src);
	if (system(cmd) != 0)
		return -1;

	argv[0] = runner;
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.workdir = work;
	spec.ro_paths = (const char *const[]){ bindir, NULL };
	spec.isolation = SANDBOX_ISOLATE_BWRAP;
	bwrap_ok = sandbox_run(&spec, &res) == 0 && res.exit_code == 0;
	if (!bwrap_ok)
		fprintf(stderr, "check_sandbox: bubblewrap unusable here (%s); "
			"its cases are skipped\n", res.error);
	sandbox_result_release(&res);
	return 0;
}

static Suite *sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc;

	tc = tcase_create("normal runs");
	tcase_set_timeout(tc, 20);
	tcase_add_loop_test(tc, test_normal_exit, 0, 2);
	tcase_add_loop_test(tc, test_exit_codes, 0, 2);
	tcase_add_loop_test(tc, test_hold_stdin, 0, 2);
	tcase_add_test(tc, test_auto_mode);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_profiles);
	suite_add_tcase(s, tc);

	tc = tcase_create("timeouts");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_hang_wall_timeout, 0, 2);
	tcase_add_loop_test(tc, test_spin_cpu_timeout, 0, 2);
	tcase_add_loop_test(tc, test_phases_restart_clock, 0, 2);
	tcase_add_loop_test(tc, test_callback_kill, 0, 2);
	tcase_add_loop_test(tc, test_frames, 0, 2);
	tcase_add_loop_test(tc, test_bytes_and_frames, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("exhaustion");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_fork_bomb, 0, 2);
	tcase_add_loop_test(tc, test_fork_bomb_nproc_uid, 0, 2);
	tcase_add_loop_test(tc, test_output_flood, 0, 2);
	tcase_add_loop_test(tc, test_fsize_limit, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("crashes");
	tcase_set_timeout(tc, 20);
	tcase_add_loop_test(tc, test_signals, 0, 6);
	tcase_add_loop_test(tc, test_exit_early, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("isolation");
	tcase_set_timeout(tc, 20);
	tcase_add_loop_test(tc, test_fds_closed, 0, 2);
	tcase_add_loop_test(tc, test_clean_env, 0, 2);
	tcase_add_loop_test(tc, test_files_and_network, 0, 2);
	tcase_add_loop_test(tc, test_escaped_grandchild, 0, 2);
	tcase_add_test(tc, test_gpu_nodes);
	tcase_add_test(tc, test_gpu_nodes_one_gpu);
	tcase_add_test(tc, test_private_workdir);
	tcase_add_loop_test(tc, test_memory_limit, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("grader failures");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_grader_failures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (prepare() < 0) {
		fprintf(stderr, "check_sandbox: cannot build the fake "
			"runner\n");
		return 1;
	}
	sr = srunner_create(sandbox_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	nftw(top, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	return failed ? 1 : 0;
}
