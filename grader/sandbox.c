/*
 * The process sandbox (see sandbox.h for the contract and the trust
 * model).  Everything the child needs is prepared before fork -- argv for
 * bubblewrap (bwrap.c), the environment, rlimit values -- so that between
 * fork and exec the child only makes async-signal-safe system calls: the
 * grader may be multi-threaded.  Failures before exec travel back through
 * a close-on-exec pipe, so the parent can tell "could not start the
 * runner" (the grader's fault) from anything the runner does once it runs
 * (the student's).
 *
 * run_child is the one loop, in steps: prepare (pipes, the child's plan) and
 * spawn; then turns of tick -- sample the tree's CPU and memory
 * (proctree.c), reap, enforce the wall clock and the caller's cancel -- and
 * pump -- poll, stdin out, stdout and stderr into capped head+tail buffers
 * (capbuf.c), the protocol fd to the caller as bytes and as decoded frames
 * -- until the child is reaped and its pipes are drained; then decode how it
 * ended.  The parent owns the clock: on a timeout, too much memory or a
 * callback veto it kills the whole process group, and under bubblewrap the
 * pid namespace takes down whatever left the group.  Untrusted code as a uid
 * of its own is sandbox_guest.c, on top of sandbox_run.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwrap.h"
#include "capbuf.h"
#include "proctree.h"
#include "util.h"

/* One read from a child's pipe; the protocol pipe is as large (a runner
 * sends hundreds of megabytes through it: fewer, larger reads), no
 * larger: an unprivileged user's pipes share 64 MB by default before
 * new ones shrink to a page. */
#define CHUNK (256 * 1024)
#define TICK_MS 50
/* After the child is reaped, how long escaped holders of our pipes may
 * keep them open before we stop reading. */
#define DRAIN_S 0.25
#define DEFAULT_OUT_CAP (64 * 1024)

/* ---- small helpers ---- */

static int set_error(struct sandbox_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int set_error(struct sandbox_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
	return -1;
}

/* strerror, lowercased as our messages are. */
static const char *errstr(int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(e));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && buf[1] >= 'a' && buf[1] <= 'z')
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

/*
 * The limit profiles (sandbox.h): CPU seconds per second of wall clock,
 * then the rlimits and the capture cap; 0 is no limit.
 */
static const struct profile {
	double cpu_per_wall;
	uint64_t data_bytes;
	unsigned nproc;
	uint64_t fsize_bytes;
	unsigned nofile;
	size_t out_cap;
} profiles[] = {
	/* data: big enough for the 256 MB-per-buffer performance shape
	 * with pinned host copies; RLIMIT_DATA leaves CUDA's address-space
	 * reservations alone */
	[SANDBOX_PROFILE_RUNNER] = { 2, (uint64_t)16 << 30, 256,
				     (uint64_t)64 << 20, 256,
				     DEFAULT_OUT_CAP },
	/* nvcc runs several processes, each with the CPU limit */
	[SANDBOX_PROFILE_COMPILER] = { 4, (uint64_t)4 << 30, 64,
				       (uint64_t)256 << 20, 1024,
				       (size_t)64 << 10 },
	/* nproc: bubblewrap needs three processes, and the zombies of the
	 * guest run before this one under the same uid count until the
	 * host's init reaps them */
	[SANDBOX_PROFILE_HELPER] = { 1, (uint64_t)1 << 30, 16,
				     (uint64_t)1 << 20, 64,
				     (size_t)64 << 10 },
	/* compilers and linkers of trusted input: no memory cap */
	[SANDBOX_PROFILE_TOOL] = { 4, 0, 0, (uint64_t)1 << 30, 1024,
				   (size_t)256 << 10 },
	[SANDBOX_PROFILE_TRUSTED] = { 0, 0, 0, 0, 0, DEFAULT_OUT_CAP },
};

void sandbox_limits_profile(enum sandbox_profile p, double wall_s,
			    struct sandbox_limits *l)
{
	const struct profile *t;

	if ((unsigned)p >= sizeof(profiles) / sizeof(profiles[0]))
		BUG("no limit profile %d", (int)p);
	t = &profiles[p];
	l->wall_s = wall_s;
	l->cpu_s = wall_s * t->cpu_per_wall;
	l->data_bytes = t->data_bytes;
	l->nproc = t->nproc;
	l->fsize_bytes = t->fsize_bytes;
	l->nofile = t->nofile;
	l->out_cap = t->out_cap;
}

void sandbox_limits_default(struct sandbox_limits *l)
{
	sandbox_limits_profile(SANDBOX_PROFILE_RUNNER, 60.0, l);
}

void sandbox_spec_init(struct sandbox_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	sandbox_limits_default(&spec->limits);
	spec->isolation = SANDBOX_ISOLATE_AUTO;
	spec->uid = SANDBOX_KEEP_ID;
	spec->gid = SANDBOX_KEEP_ID;
	spec->gpu_minor = -1;
}

/* ---- the child's side ---- */

/* Everything the child needs, computed before fork. */
struct child_plan {
	const char *path;
	char *const *argv;
	char *const *envp;
	const char *workdir;
	int fd_in, fd_out, fd_err, fd_proto, fd_report;
	pid_t parent;
	int nlim;
	int lim_res[8];
	struct rlimit lim_val[8];
	long uid, gid;
};

/* What the child reports through the close-on-exec pipe. */
struct child_report {
	int stage;
	int err;
};

static const char *const stage_names[] = {
	"start a session for", "set up descriptors for", "set limits for",
	"enter the working directory of", "drop privileges for",
	"set no_new_privs for", "run"
};

static void child_report(const struct child_plan *c, int stage)
{
	struct child_report r;
	ssize_t w;

	r.stage = stage;
	r.err = errno;
	w = write(c->fd_report, &r, sizeof(r));
	(void)w;
	_exit(127);
}

static void move_fd(const struct child_plan *c, int from, int to)
{
	if (dup2(from, to) < 0)
		child_report(c, 1);
}

/* Runs in the forked child: async-signal-safe calls only. */
static void child_exec(const struct child_plan *c)
{
	struct sigaction sa;
	sigset_t none;
	int i, sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (setsid() < 0)
		child_report(c, 0);
	/* The grader dying must not leave the runner behind. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != c->parent)
		_exit(127);
	/* All pipe ends are >= 10 (see hi_fd), so these cannot clash. */
	move_fd(c, c->fd_in, 0);
	move_fd(c, c->fd_out, 1);
	move_fd(c, c->fd_err, 2);
	move_fd(c, c->fd_proto, 3);
	if (syscall(SYS_close_range, 4U, ~0U, 4U /* CLOEXEC */) < 0) {
		struct rlimit rl;
		int max = 65536;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur < (rlim_t)max)
			max = (int)rl.rlim_cur;
		for (i = 4; i < max; i++)
			if (i != c->fd_report)
				(void)fcntl(i, F_SETFD, FD_CLOEXEC);
	}
	if (chdir(c->workdir) < 0)
		child_report(c, 3);
	for (i = 0; i < c->nlim; i++)
		if (setrlimit(c->lim_res[i], &c->lim_val[i]) < 0)
			child_report(c, 2);
	if (c->gid != SANDBOX_KEEP_ID &&
	    (setgroups(0, NULL) < 0 || setgid((gid_t)c->gid) < 0))
		child_report(c, 4);
	if (c->uid != SANDBOX_KEEP_ID && setuid((uid_t)c->uid) < 0)
		child_report(c, 4);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_report(c, 5);
	execve(c->path, c->argv, c->envp);
	child_report(c, 6);
}

/* rlimits from a table; a 0 limit is not applied. */
static void plan_limits(struct child_plan *c, const struct sandbox_limits *l)
{
	struct {
		int res;
		uint64_t soft, hard;
	} t[] = {
		{ RLIMIT_DATA, l->data_bytes, l->data_bytes },
		{ RLIMIT_NPROC, l->nproc, l->nproc },
		{ RLIMIT_FSIZE, l->fsize_bytes, l->fsize_bytes },
		{ RLIMIT_NOFILE, l->nofile, l->nofile },
		/* SIGXCPU at the limit, SIGKILL a second later if caught. */
		{ RLIMIT_CPU, (uint64_t)ceil(l->cpu_s),
		  (uint64_t)ceil(l->cpu_s) + 1 },
		{ RLIMIT_CORE, 0, 0 },
	};
	struct rlimit cur;
	size_t i;

	c->nlim = 0;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].soft == 0 && t[i].res != RLIMIT_CORE)
			continue;
		/* Without privilege a hard limit can only go down. */
		if (getrlimit(t[i].res, &cur) == 0 &&
		    cur.rlim_max != RLIM_INFINITY) {
			if (t[i].hard > cur.rlim_max)
				t[i].hard = cur.rlim_max;
			if (t[i].soft > t[i].hard)
				t[i].soft = t[i].hard;
		}
		c->lim_res[c->nlim] = t[i].res;
		c->lim_val[c->nlim].rlim_cur = (rlim_t)t[i].soft;
		c->lim_val[c->nlim].rlim_max = (rlim_t)t[i].hard;
		c->nlim++;
	}
}

/* Move fd to a number >= 10, close-on-exec (see child_exec). */
static int hi_fd(int fd)
{
	int n;

	if (fd < 0 || fd >= 10)
		return fd;
	n = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	close(fd);
	return n;
}

static int make_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	p[0] = hi_fd(p[0]);
	p[1] = hi_fd(p[1]);
	return p[0] < 0 || p[1] < 0 ? -1 : 0;
}

/* The grader's own 0, 1 and 2 for the child (spec->inherit_stdio):
 * copies at >= 10 in the slots the child moves into place; the other
 * ends stay -1, so nothing is written to or captured from them. */
static int inherit_stdio(int in[2], int out[2], int err[2])
{
	in[0] = hi_fd(fcntl(0, F_DUPFD_CLOEXEC, 10));
	out[1] = hi_fd(fcntl(1, F_DUPFD_CLOEXEC, 10));
	err[1] = hi_fd(fcntl(2, F_DUPFD_CLOEXEC, 10));
	return in[0] < 0 || out[1] < 0 || err[1] < 0 ? -1 : 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ---- bubblewrap: does it work here? ---- */

static int run_child(const struct sandbox_spec *spec,
		     struct sandbox_result *res, const char *bwrap);

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
/* Per slot (0: the grader's ids, 1: dropped ids, where bwrap runs
 * unprivileged and may be refused a user namespace): 0 unknown, 1 works,
 * -1 does not. */
static int probe_state[2];
static char probe_msg[2][128];

/*
 * Does bubblewrap work here?  Run /usr/bin/true under the same options
 * and ids (it fails where user namespaces are forbidden), once per
 * process.  Without this, a bwrap that cannot start would look like a
 * runner exiting with code 1: the student's fault instead of ours.
 */
static int probe_bwrap(const char *bwrap, const struct sandbox_spec *spec,
		       const char **why)
{
	static const char *const argv[] = { "/usr/bin/true", NULL };
	struct sandbox_spec ps;
	struct sandbox_result pr;
	int slot = spec->uid != SANDBOX_KEEP_ID, state;

	pthread_mutex_lock(&probe_lock);
	if (probe_state[slot] == 0) {
		sandbox_spec_init(&ps);
		ps.argv = argv;
		ps.workdir = spec->workdir;
		ps.uid = spec->uid;
		ps.gid = spec->gid;
		ps.limits.wall_s = 20;
		if (run_child(&ps, &pr, bwrap) == 0 && pr.exited &&
		    pr.exit_code == 0) {
			probe_state[slot] = 1;
		} else {
			const char *msg = pr.error[0] ? pr.error :
					  pr.err && pr.err[0] ? pr.err :
					  "setup failed";

			snprintf(probe_msg[slot], sizeof(probe_msg[slot]),
				 "%.*s", (int)strcspn(msg, "\n"), msg);
			probe_state[slot] = -1;
		}
		sandbox_result_release(&pr);
	}
	state = probe_state[slot];
	*why = probe_msg[slot];
	pthread_mutex_unlock(&probe_lock);
	return state;
}

/* ---- sandbox_run ---- */

int sandbox_run(const struct sandbox_spec *spec, struct sandbox_result *res)
{
	const char *bwrap = NULL, *why = NULL, *msg = NULL;
	const char *const *ro;
	struct stat st;
	char buf[128];
	int ret;

	memset(res, 0, sizeof(*res));
	if (!spec->argv || !spec->argv[0] || spec->argv[0][0] != '/')
		return set_error(res, "cannot run the runner: argv[0] must "
				 "be an absolute path");
	if (!spec->workdir || spec->workdir[0] != '/')
		return set_error(res, "cannot run '%s': workdir must be an "
				 "absolute path", spec->argv[0]);
	if (access(spec->argv[0], X_OK) < 0)
		return set_error(res, "cannot run '%s': %s", spec->argv[0],
				 errstr(errno, buf, sizeof(buf)));
	/* bwrap would fail on these inside, looking like the runner's exit
	 * code 1; catch them here as the grader's own errors. */
	for (ro = spec->ro_paths; ro && *ro; ro++)
		if (stat(*ro, &st) < 0)
			return set_error(res, "cannot expose '%s' to the "
					 "runner: %s", *ro,
					 errstr(errno, buf, sizeof(buf)));
	if (stat(spec->workdir, &st) < 0)
		return set_error(res, "cannot use working directory '%s': %s",
				 spec->workdir, errstr(errno, buf, sizeof(buf)));
	if (!S_ISDIR(st.st_mode))
		return set_error(res, "cannot use working directory '%s': "
				 "not a directory", spec->workdir);
	if (spec->isolation != SANDBOX_ISOLATE_NONE) {
		bwrap = bwrap_find();
		if (!bwrap)
			why = getenv("WARPGRADE_SANDBOX") ?
			      "WARPGRADE_SANDBOX=rlimits" :
			      "bubblewrap not installed";
		else if (probe_bwrap(bwrap, spec, &msg) < 0)
			why = msg;
		if (why && spec->isolation == SANDBOX_ISOLATE_BWRAP)
			return set_error(res, "cannot isolate '%s': %s",
					 spec->argv[0], why);
		if (why)
			bwrap = NULL;
	}
	ret = run_child(spec, res, bwrap);
	if (bwrap)
		snprintf(res->isolation, sizeof(res->isolation),
			 "bubblewrap (user, pid, net, ipc namespaces; no "
			 "capabilities; read-only system; private /tmp%s%s)",
			 spec->private_workdir ? " and working directory" : "",
			 spec->gpu ? "; GPU devices" : "");
	else
		snprintf(res->isolation, sizeof(res->isolation),
			 "rlimits only (%.60s): it can read what its user "
			 "can read", why ? why : "isolation off");
	return ret;
}

/* Has pid exited?  Leaves it a zombie (WNOWAIT), see run_child. */
static int child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

/* ---- the run ---- */

/* The child's stdin, stdout, stderr and protocol pipes, and the one its
 * setup failures come back through. */
enum { P_IN, P_OUT, P_ERR, P_PROTO, P_REP, P_COUNT };

/* A pipe the parent reads. */
struct pump {
	int fd;			/* -1 once closed */
	struct capbuf *cap;	/* NULL: the protocol stream */
};

/*
 * One child from the pipes made before fork to the status decoded after
 * reaping: the state the steps of run_child pass around.  The callbacks
 * see it only as the handle of sandbox.h (stdin queue and clock).
 */
struct sandbox_run {
	const struct sandbox_spec *spec;
	struct sandbox_result *res;
	const char *bwrap;		/* NULL: argv[0] runs bare */
	char **wrapped;			/* bwrap's options, then argv */
	struct child_plan plan;
	/* pipes (P_...): [0] read end, [1] write end; -1 once closed or
	 * handed on */
	int p[P_COUNT][2];
	sigset_t pipe_set, old_mask;
	int had_sigpipe, mask_set;
	pid_t pid;			/* -1: nothing to kill or reap */
	double t0;			/* fork */
	/* stdin: queued bytes, written as the child takes them */
	int in_fd;			/* -1 once closed */
	unsigned char *pending;
	size_t pending_len, pending_off;
	int close_input;		/* close stdin once pending is out */
	double deadline;		/* monotonic; 0: none */
	/* stdout, stderr, protocol */
	struct capbuf out, err;
	struct pump pumps[3];
	unsigned char *chunk;		/* one read */
	struct proto_decoder dec;	/* the protocol stream, for on_frame */
	/* the watch */
	double next_sample, sampled_cpu;
	long page_size;
	int killed;			/* we sent the group SIGKILL */
	int reaped, status;
	struct rusage ru;
	double drain_until;
};

void sandbox_set_deadline(struct sandbox_run *run, double wall_s)
{
	run->deadline = wall_s > 0 ? now_s() + wall_s : 0;
}

int sandbox_send(struct sandbox_run *run, const void *p, size_t n)
{
	unsigned char *np;
	size_t keep = run->pending_len - run->pending_off;

	if (run->in_fd < 0 || run->close_input)
		return -1;
	np = malloc(keep + n ? keep + n : 1);
	if (!np)
		return -1;
	if (keep)
		memcpy(np, run->pending + run->pending_off, keep);
	if (n)
		memcpy(np + keep, p, n);
	free(run->pending);
	run->pending = np;
	run->pending_len = keep + n;
	run->pending_off = 0;
	return 0;
}

void sandbox_close_input(struct sandbox_run *run)
{
	run->close_input = 1;
}

/* Every descriptor and pointer starts empty, so one cleanup fits every
 * failure. */
static void run_init(struct sandbox_run *run, const struct sandbox_spec *spec,
		     struct sandbox_result *res, const char *bwrap)
{
	memset(res, 0, sizeof(*res));
	memset(run, 0, sizeof(*run));
	run->spec = spec;
	run->res = res;
	run->bwrap = bwrap;
	for (int i = 0; i < P_COUNT; i++)
		run->p[i][0] = run->p[i][1] = -1;
	run->pid = -1;
	run->in_fd = -1;
	for (int i = 0; i < 3; i++)
		run->pumps[i].fd = -1;
	run->page_size = sysconf(_SC_PAGESIZE);
	proto_decoder_init(&run->dec, spec->max_payload);
}

/* The pipes and the child's plan, all before fork: between fork and exec
 * the child may only make async-signal-safe calls. */
static int run_prepare(struct sandbox_run *run)
{
	static const char *const no_env[] = { NULL };
	const struct sandbox_spec *spec = run->spec;
	size_t cap = spec->limits.out_cap ? spec->limits.out_cap :
		     DEFAULT_OUT_CAP;
	struct child_plan *plan = &run->plan;
	char ebuf[128];

	if (capbuf_init(&run->out, cap) < 0 || capbuf_init(&run->err, cap) < 0)
		return set_error(run->res, "cannot run '%s': out of memory",
				 spec->argv[0]);
	run->chunk = malloc(CHUNK);
	if (run->bwrap)
		run->wrapped = bwrap_argv(run->bwrap, spec);
	if ((run->bwrap && !run->wrapped) || !run->chunk)
		return set_error(run->res, "cannot run '%s': out of memory",
				 spec->argv[0]);
	if ((spec->inherit_stdio ?
	     inherit_stdio(run->p[P_IN], run->p[P_OUT], run->p[P_ERR]) :
	     make_pipe(run->p[P_IN]) < 0 || make_pipe(run->p[P_OUT]) < 0 ||
	     make_pipe(run->p[P_ERR]) < 0) ||
	    make_pipe(run->p[P_PROTO]) < 0 || make_pipe(run->p[P_REP]) < 0)
		return set_error(run->res, "cannot run '%s': pipe: %s",
				 spec->argv[0],
				 errstr(errno, ebuf, sizeof(ebuf)));
	/* a hint: the default 64 KB stays when the system caps pipes lower */
	(void)fcntl(run->p[P_PROTO][0], F_SETPIPE_SZ, CHUNK);
	if (spec->uid != SANDBOX_KEEP_ID &&
	    chown(spec->workdir, (uid_t)spec->uid,
		  spec->gid != SANDBOX_KEEP_ID ? (gid_t)spec->gid :
		  (gid_t)-1) < 0)
		return set_error(run->res, "cannot hand '%s' to uid %ld: %s",
				 spec->workdir, spec->uid,
				 errstr(errno, ebuf, sizeof(ebuf)));

	plan->path = run->bwrap ? run->bwrap : spec->argv[0];
	plan->argv = run->bwrap ? run->wrapped : (char *const *)spec->argv;
	plan->envp = (char *const *)(spec->env ? spec->env : no_env);
	plan->workdir = spec->cwd ? spec->cwd : spec->workdir;
	plan->fd_in = run->p[P_IN][0];
	plan->fd_out = run->p[P_OUT][1];
	plan->fd_err = run->p[P_ERR][1];
	plan->fd_proto = run->p[P_PROTO][1];
	plan->fd_report = run->p[P_REP][1];
	plan->parent = getpid();
	plan->uid = spec->uid;
	plan->gid = spec->gid;
	plan_limits(plan, &spec->limits);
	return 0;
}

/* A child that closes stdin early must cost us EPIPE, not death. */
static void block_sigpipe(struct sandbox_run *run)
{
	sigset_t pend;

	sigemptyset(&run->pipe_set);
	sigaddset(&run->pipe_set, SIGPIPE);
	sigpending(&pend);
	run->had_sigpipe = sigismember(&pend, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &run->pipe_set, &run->old_mask);
	run->mask_set = 1;
}

/* The caller's mask back, minus the SIGPIPE our own writes raised. */
static void restore_sigpipe(struct sandbox_run *run)
{
	struct timespec zero = { 0, 0 };
	sigset_t pend;

	if (!run->mask_set)
		return;
	sigpending(&pend);
	if (!run->had_sigpipe && sigismember(&pend, SIGPIPE))
		(void)sigtimedwait(&run->pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &run->old_mask, NULL);
}

/* Fork and exec; a failure before exec comes back through the report
 * pipe, so that it is the grader's error and not the child's exit. */
static int run_spawn(struct sandbox_run *run)
{
	struct child_report rep;
	char ebuf[128];
	ssize_t r;

	run->t0 = now_s();
	run->pid = fork();
	if (run->pid < 0)
		return set_error(run->res, "cannot run '%s': fork: %s",
				 run->spec->argv[0],
				 errstr(errno, ebuf, sizeof(ebuf)));
	if (run->pid == 0)
		child_exec(&run->plan);
	run->res->pid = run->pid;
	close_fd(&run->p[P_IN][0]);
	close_fd(&run->p[P_OUT][1]);
	close_fd(&run->p[P_ERR][1]);
	close_fd(&run->p[P_PROTO][1]);
	close_fd(&run->p[P_REP][1]);
	do {
		r = read(run->p[P_REP][0], &rep, sizeof(rep));
	} while (r < 0 && errno == EINTR);
	close_fd(&run->p[P_REP][0]);
	if (r != (ssize_t)sizeof(rep))
		return 0;
	while (waitpid(run->pid, &run->status, 0) < 0 && errno == EINTR)
		;
	run->pid = -1;
	return set_error(run->res, "cannot %s '%s': %s",
			 stage_names[rep.stage < 0 || rep.stage > 6 ? 6 :
				     rep.stage],
			 run->plan.path, errstr(rep.err, ebuf, sizeof(ebuf)));
}

/* The parent's ends, non-blocking: the job queued for stdin, the clock
 * started, the three pipes to read. */
static int run_start_io(struct sandbox_run *run)
{
	const struct sandbox_spec *spec = run->spec;

	run->in_fd = run->p[P_IN][1];
	run->p[P_IN][1] = -1;
	set_nonblock(run->in_fd);
	if (spec->input_len && sandbox_send(run, spec->input,
					    spec->input_len) < 0)
		return set_error(run->res, "cannot run '%s': out of memory",
				 spec->argv[0]);
	if (!spec->hold_stdin)
		run->close_input = 1;
	sandbox_set_deadline(run, spec->limits.wall_s);
	run->pumps[0].fd = run->p[P_OUT][0];
	run->pumps[0].cap = &run->out;
	run->pumps[1].fd = run->p[P_ERR][0];
	run->pumps[1].cap = &run->err;
	run->pumps[2].fd = run->p[P_PROTO][0];
	run->pumps[2].cap = NULL;
	run->p[P_OUT][0] = run->p[P_ERR][0] = run->p[P_PROTO][0] = -1;
	for (int i = 0; i < 3; i++)
		set_nonblock(run->pumps[i].fd);
	return 0;
}

/* The whole group: what the child started dies with it. */
static void kill_group(struct sandbox_run *run)
{
	killpg(run->pid, SIGKILL);
	run->killed = 1;
}

/* The tree's CPU and memory, once a tick and not at every chunk of
 * output (a 256 MB region is a thousand of them): CPU that bubblewrap
 * hides from rusage, memory that RLIMIT_DATA misses. */
static void run_sample(struct sandbox_run *run)
{
	uint64_t limit = run->spec->limits.data_bytes;
	unsigned long long rss = 0;
	int budget = 512;
	double t;

	run->next_sample = now_s() + TICK_MS / 1000.0;
	t = proctree_cpu(run->pid, &budget, &rss);
	if (t > run->sampled_cpu)
		run->sampled_cpu = t;
	/* over the limit: ends like a failed allocation would, by a
	 * signal */
	budget = 512;
	if (!run->killed && limit &&
	    rss * (unsigned long long)run->page_size > limit &&
	    proctree_pss(run->pid, &budget) * 1024 > limit) {
		kill_group(run);
		run->res->memory_exceeded = 1;
	}
}

/* The child exited: reap it, and read on for DRAIN_S what its escaped
 * descendants still write. */
static void run_reap(struct sandbox_run *run)
{
	run->res->wall_s = now_s() - run->t0;
	/* Whatever stayed in the group goes too; the zombie leader keeps
	 * the group id from being reused. */
	killpg(run->pid, SIGKILL);
	while (wait4(run->pid, &run->status, 0, &run->ru) < 0 &&
	       errno == EINTR)
		;
	run->reaped = 1;
	run->drain_until = now_s() + DRAIN_S;
}

/* One turn of the clock: sample, reap, enforce the wall clock and the
 * caller's cancel.  1 when the run is over (reaped and drained). */
static int run_tick(struct sandbox_run *run)
{
	const volatile sig_atomic_t *cancel = run->spec->cancel;
	double t;

	if (!run->reaped && now_s() >= run->next_sample)
		run_sample(run);
	if (!run->reaped && child_exited(run->pid))
		run_reap(run);
	t = now_s();
	if (!run->reaped && !run->killed && run->deadline &&
	    t >= run->deadline) {
		kill_group(run);
		run->res->timed_out = SANDBOX_TIMEOUT_WALL;
	}
	if (!run->reaped && !run->killed && cancel && *cancel) {
		kill_group(run);
		run->res->cancelled = 1;
	}
	if (!run->close_input && run->spec->close_input_when &&
	    __atomic_load_n(run->spec->close_input_when, __ATOMIC_ACQUIRE)) {
		run->close_input = 1;
		if (run->spec->close_input_wall_s > 0)
			sandbox_set_deadline(run,
					     run->spec->close_input_wall_s);
	}
	return run->reaped && t >= run->drain_until;
}

/* What to wait for: stdin while bytes are queued, each open pipe.  1
 * when there is nothing left (reaped, every pipe closed). */
static int run_poll_set(struct sandbox_run *run, struct pollfd pfd[4])
{
	int open_fds = 0;

	if (run->in_fd >= 0 && run->close_input &&
	    run->pending_off == run->pending_len)
		close_fd(&run->in_fd);
	pfd[0].fd = run->in_fd >= 0 && run->pending_off < run->pending_len ?
		    run->in_fd : -1;
	pfd[0].events = POLLOUT;
	for (int i = 0; i < 3; i++) {
		pfd[i + 1].fd = run->pumps[i].fd;
		pfd[i + 1].events = POLLIN;
		open_fds += run->pumps[i].fd >= 0;
	}
	return run->reaped && !open_fds;
}

/* A tick, or less when the wall clock runs out sooner. */
static int run_poll_timeout(const struct sandbox_run *run)
{
	double t;

	if (run->reaped || run->killed || !run->deadline)
		return TICK_MS;
	t = (run->deadline - now_s()) * 1000.0 + 1;
	if (t >= TICK_MS)
		return TICK_MS;
	return t < 0 ? 0 : (int)t;
}

/* Stdin: what the child takes of the queue. */
static void pump_stdin(struct sandbox_run *run)
{
	ssize_t r = write(run->in_fd, run->pending + run->pending_off,
			  run->pending_len - run->pending_off);

	if (r > 0) {
		run->pending_off += (size_t)r;
	} else if (r < 0 && errno != EAGAIN && errno != EINTR) {
		/* The child closed stdin: its choice. */
		close_fd(&run->in_fd);
		run->pending_off = run->pending_len;
	}
}

/* The frames a read completed, to on_frame in order; -1 on a veto or a
 * stream the decoder rejects (its reason kept for the caller). */
static int pump_frames(struct sandbox_run *run, size_t n)
{
	const struct sandbox_spec *spec = run->spec;
	const unsigned char *payload;
	enum proto_type type;
	size_t len;
	int r = -1;

	if (proto_decoder_feed(&run->dec, run->chunk, n) == 0)
		while ((r = proto_decoder_next(&run->dec, &type, &payload,
					       &len)) == 1)
			if (spec->on_frame(run, spec->ctx, type, payload,
					   len) < 0)
				return -1;
	if (r == 0)
		return 0;
	snprintf(run->res->frame_error, sizeof(run->res->frame_error), "%s",
		 run->dec.error);
	return -1;
}

/* The protocol stream to the caller, as bytes and as frames; a veto or
 * a corrupt stream kills the group. */
static void pump_proto(struct sandbox_run *run, size_t n)
{
	const struct sandbox_spec *spec = run->spec;

	if (run->res->killed_by_callback)
		return;
	if ((spec->on_data &&
	     spec->on_data(run, spec->ctx, run->chunk, n) < 0) ||
	    (spec->on_frame && pump_frames(run, n) < 0)) {
		run->res->killed_by_callback = 1;
		if (!run->reaped)
			kill_group(run);
	}
}

/* One read of a pipe: into its capture, or to the protocol's callback. */
static void pump_read(struct sandbox_run *run, struct pump *pp)
{
	ssize_t r = read(pp->fd, run->chunk, CHUNK);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0)
		close_fd(&pp->fd);
	else if (pp->cap)
		capbuf_add(pp->cap, run->chunk, (size_t)r);
	else
		pump_proto(run, (size_t)r);
}

/* How the child ended, in sandbox_result's terms. */
static void run_decode(struct sandbox_run *run)
{
	struct sandbox_result *res = run->res;
	const struct sandbox_limits *l = &run->spec->limits;
	int status = run->status;

	res->cpu_s = (double)run->ru.ru_utime.tv_sec +
		     run->ru.ru_utime.tv_usec / 1e6 +
		     (double)run->ru.ru_stime.tv_sec +
		     run->ru.ru_stime.tv_usec / 1e6;
	if (run->sampled_cpu > res->cpu_s)
		res->cpu_s = run->sampled_cpu;
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(status);
		/* bwrap reports a death by signal N as exit 128+N. */
		if (run->bwrap && res->exit_code > 128 &&
		    res->exit_code <= 192) {
			res->exited = 0;
			res->signal = res->exit_code - 128;
		}
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
		res->exit_code = 128 + res->signal;
	}
	if (!res->timed_out && l->cpu_s > 0 &&
	    (res->signal == SIGXCPU ||
	     (res->signal == SIGKILL && !run->killed &&
	      res->cpu_s >= l->cpu_s)))
		res->timed_out = SANDBOX_TIMEOUT_CPU;
}

/* Leave nothing behind: the group of a run the grader gave up on, the
 * descriptors, the buffers; the captured output to the result. */
static void run_release(struct sandbox_run *run, int ret)
{
	struct sandbox_result *res = run->res;

	if (run->pid > 0) {
		killpg(run->pid, SIGKILL);
		while (waitpid(run->pid, &run->status, 0) < 0 &&
		       errno == EINTR)
			;
	}
	if (ret == 0 || run->out.head)
		res->out = capbuf_finish(&run->out);
	if (ret == 0 || run->err.head)
		res->err = capbuf_finish(&run->err);
	res->out_total = run->out.total;
	res->err_total = run->err.total;
	close_fd(&run->in_fd);
	for (int i = 0; i < 3; i++)
		close_fd(&run->pumps[i].fd);
	for (int i = 0; i < P_COUNT; i++) {
		close_fd(&run->p[i][0]);
		close_fd(&run->p[i][1]);
	}
	restore_sigpipe(run);
	free(run->pending);
	free(run->chunk);
	proto_decoder_release(&run->dec);
	capbuf_release(&run->out);
	capbuf_release(&run->err);
	bwrap_argv_free(run->wrapped);
}

/*
 * The child from fork to status: spawn, then turns of tick (the clock,
 * the watch, reaping) and pump (poll, then stdin out, output in) until
 * it is reaped and its pipes are drained, then decode how it ended.
 */
static int run_child(const struct sandbox_spec *spec,
		     struct sandbox_result *res, const char *bwrap)
{
	struct sandbox_run run;
	struct pollfd pfd[4];
	char ebuf[128];
	int ret = -1, n;

	run_init(&run, spec, res, bwrap);
	if (run_prepare(&run))
		goto out;
	block_sigpipe(&run);
	if (run_spawn(&run) || run_start_io(&run))
		goto out;
	while (!run_tick(&run) && !run_poll_set(&run, pfd)) {
		n = poll(pfd, 4, run_poll_timeout(&run));
		if (n < 0 && errno != EINTR) {
			set_error(res, "cannot watch '%s': poll: %s",
				  spec->argv[0],
				  errstr(errno, ebuf, sizeof(ebuf)));
			goto out;
		}
		if (n <= 0)
			continue;
		if (pfd[0].fd >= 0 && pfd[0].revents)
			pump_stdin(&run);
		for (int i = 0; i < 3; i++)
			if (run.pumps[i].fd >= 0 && pfd[i + 1].revents)
				pump_read(&run, &run.pumps[i]);
	}
	run_decode(&run);
	run.pid = -1;
	ret = 0;
out:
	run_release(&run, ret);
	return ret;
}

void sandbox_result_release(struct sandbox_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

const char *sandbox_signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} t[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
		{ SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" },
		{ SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
		{ SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
		{ SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" },
		{ SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
		{ SIGTERM, "SIGTERM" }, { SIGSTKFLT, "SIGSTKFLT" },
		{ SIGCHLD, "SIGCHLD" }, { SIGCONT, "SIGCONT" },
		{ SIGSTOP, "SIGSTOP" }, { SIGTSTP, "SIGTSTP" },
		{ SIGTTIN, "SIGTTIN" }, { SIGTTOU, "SIGTTOU" },
		{ SIGURG, "SIGURG" }, { SIGXCPU, "SIGXCPU" },
		{ SIGXFSZ, "SIGXFSZ" }, { SIGVTALRM, "SIGVTALRM" },
		{ SIGPROF, "SIGPROF" }, { SIGWINCH, "SIGWINCH" },
		{ SIGIO, "SIGIO" }, { SIGPWR, "SIGPWR" }, { SIGSYS, "SIGSYS" },
	};
	static _Thread_local char buf[32];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].sig == sig)
			return t[i].name;
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

const char *sandbox_describe(const struct sandbox_result *r,
			     const struct sandbox_limits *l, char *buf,
			     size_t len)
{
	char what[64];

	if (r->timed_out == SANDBOX_TIMEOUT_WALL)
		snprintf(buf, len, "wall-clock timeout (%.1f s)",
			 l ? l->wall_s : r->wall_s);
	else if (r->timed_out == SANDBOX_TIMEOUT_CPU)
		snprintf(buf, len, "CPU time limit exceeded (%.0f s)",
			 l ? ceil(l->cpu_s) : r->cpu_s);
	else if (r->killed_by_callback)
		snprintf(buf, len, "stopped by the grader: corrupt protocol "
			 "stream");
	else if (r->memory_exceeded && l)
		snprintf(buf, len, "killed: memory over the limit (%llu MiB)",
			 (unsigned long long)(l->data_bytes >> 20));
	else if (r->memory_exceeded)
		snprintf(buf, len, "killed: memory over the limit");
	else if (r->exited)
		snprintf(buf, len, "exited with code %d", r->exit_code);
	else if (r->signal == SIGXFSZ)
		snprintf(buf, len, "killed by SIGXFSZ (file size limit)");
	else {
		snprintf(what, sizeof(what), "%s", strsignal(r->signal));
		if (what[0] >= 'A' && what[0] <= 'Z' && what[1] >= 'a')
			what[0] = (char)(what[0] - 'A' + 'a');
		snprintf(buf, len, "killed by %s (%s)",
			 sandbox_signal_name(r->signal), what);
	}
	return buf;
}
