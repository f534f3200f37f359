/*
 * The process sandbox (see sandbox.h for the contract and the trust
 * model).  Everything the child needs is prepared before fork -- argv for
 * bubblewrap, the environment, rlimit values -- so that between fork and
 * exec the child only makes async-signal-safe system calls: the grader
 * may be multi-threaded.  Failures before exec travel back through a
 * close-on-exec pipe, so the parent can tell "could not start the runner"
 * (the grader's fault) from anything the runner does once it runs (the
 * student's).  The parent then pumps four pipes with poll -- stdin out,
 * stdout and stderr into capped head+tail buffers, the protocol fd to the
 * callback -- and owns the clock: on a timeout or a callback veto it kills
 * the whole process group, and under bubblewrap the pid namespace takes
 * down whatever left the group.
 */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
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

#include "capbuf.h"
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
}

/* ---- growable argv ---- */

struct strv {
	char **v;
	size_t n, cap;
	int oom;
};

static void strv_add(struct strv *s, const char *str)
{
	char **nv;

	if (s->oom)
		return;
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		nv = realloc(s->v, s->cap * sizeof(*nv));
		if (!nv) {
			s->oom = 1;
			return;
		}
		s->v = nv;
	}
	s->v[s->n] = strdup(str);
	if (!s->v[s->n]) {
		s->oom = 1;
		return;
	}
	s->n++;
	s->v[s->n] = NULL;
}

static void strv_add3(struct strv *s, const char *a, const char *b,
		      const char *c)
{
	strv_add(s, a);
	strv_add(s, b);
	if (c)
		strv_add(s, c);
}

static void strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- the run ---- */

struct sandbox_run {
	double deadline;		/* monotonic; 0: none */
	unsigned char *pending;		/* queued stdin bytes */
	size_t pending_len, pending_off;
	int close_input;		/* close stdin once pending is out */
	int in_fd;			/* -1 once closed */
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

/* ---- bubblewrap ---- */

static const char *find_bwrap(void)
{
	static const char *const where[] = {
		"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"
	};
	const char *mode = getenv("WARPGRADE_SANDBOX");
	size_t i;

	/* the fallback on demand: to test it, or where bwrap misbehaves */
	if (mode && !strcmp(mode, "rlimits"))
		return NULL;
	/* Fixed places only: never the PATH of whoever runs the grader. */
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

static void bwrap_args(struct strv *a, const char *bwrap,
		       const struct sandbox_spec *spec)
{
	static const char *const top[] = {
		"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"
	};
	/* Only what the dynamic loader and libc need from /etc. */
	static const char *const etc[] = {
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
		"/etc/alternatives", "/etc/localtime"
	};
	const char *const *p;
	struct stat st;
	char link[4096], tmpfs_size[32];
	ssize_t n;
	size_t i;
	glob_t g;

	strv_add(a, bwrap);
	strv_add(a, "--unshare-all");
	strv_add(a, "--die-with-parent");
	strv_add(a, "--new-session");
	strv_add3(a, "--cap-drop", "ALL", NULL);
	strv_add3(a, "--ro-bind", "/usr", "/usr");
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		if (lstat(top[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(top[i], link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			strv_add3(a, "--symlink", link, top[i]);
		} else if (S_ISDIR(st.st_mode)) {
			strv_add3(a, "--ro-bind", top[i], top[i]);
		}
	}
	for (i = 0; i < sizeof(etc) / sizeof(etc[0]); i++)
		strv_add3(a, "--ro-bind-try", etc[i], etc[i]);
	/* tmpfs pages are memory outside RLIMIT_DATA: the writable ones
	 * get a size, and /dev (a tmpfs too) becomes read-only */
	snprintf(tmpfs_size, sizeof(tmpfs_size), "%llu",
		 (unsigned long long)(spec->limits.fsize_bytes ?
				      4 * spec->limits.fsize_bytes :
				      (uint64_t)256 << 20));
	strv_add3(a, "--proc", "/proc", NULL);
	strv_add3(a, "--dev", "/dev", NULL);
	strv_add3(a, "--size", tmpfs_size, NULL);
	strv_add3(a, "--tmpfs", "/dev/shm", NULL);
	if (spec->gpu) {
		/* The device nodes (and /dev/nvidia-caps), bound before /dev
		 * turns read-only: bwrap makes a mount point for each. */
		if (glob(spec->gpu_nodes ? spec->gpu_nodes : "/dev/nvidia*",
			 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				const char *base = strrchr(g.gl_pathv[i], '/');

				snprintf(link, sizeof(link), "/dev/%s",
					 base ? base + 1 : g.gl_pathv[i]);
				strv_add3(a, "--dev-bind", g.gl_pathv[i],
					  link);
			}
			globfree(&g);
		}
		/* The driver reads PCI topology and capabilities here. */
		strv_add3(a, "--ro-bind-try", "/sys", "/sys");
	}
	strv_add3(a, "--remount-ro", "/dev", NULL);
	strv_add3(a, "--size", tmpfs_size, NULL);
	strv_add3(a, "--tmpfs", "/tmp", NULL);
	for (p = spec->ro_paths; p && *p; p++)
		strv_add3(a, "--ro-bind", *p, *p);
	if (spec->private_workdir) {
		strv_add3(a, "--size", tmpfs_size, NULL);
		strv_add3(a, "--tmpfs", spec->workdir, NULL);
	} else {
		strv_add3(a, "--bind", spec->workdir, spec->workdir);
	}
	strv_add3(a, "--chdir", spec->cwd ? spec->cwd : spec->workdir, NULL);
	/* The sandbox's own root (mount points bwrap made) stays
	 * read-only; the workdir and /tmp are separate mounts. */
	strv_add3(a, "--remount-ro", "/", NULL);
	strv_add(a, "--");
}

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
		bwrap = find_bwrap();
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

/*
 * CPU seconds (user+system, plus reaped children) of pid and all its
 * descendants, from /proc; bounded so a fork bomb cannot make sampling
 * expensive.  Needed because under bubblewrap the runner's usage does
 * not reach the rusage of the bwrap process we wait for.  Adds their
 * resident pages to *rss: shared mappings (MAP_SHARED|MAP_ANONYMOUS,
 * memfd, System V segments while attached) are host memory that
 * RLIMIT_DATA does not count.
 */
static double tree_cpu(pid_t pid, int *budget, unsigned long long *rss)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst, pages;
	long child;
	double sum = 0;
	struct dirent *de;
	DIR *d;
	FILE *f;
	int fd, n;

	if (--*budget < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Fields after the command name, which may contain anything. */
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			"%*u %llu %llu %llu %llu %*d %*d %*d %*d %*u %*u "
			"%llu", &ut, &st, &cut, &cst, &pages) == 5) {
		sum = (double)(ut + st + cut + cst) /
		      (double)sysconf(_SC_CLK_TCK);
		*rss += pages;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return sum;
	for (;;) {
		de = readdir(d);
		if (!de)
			break;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fscanf(f, "%ld", &child) == 1 && *budget > 0)
			sum += tree_cpu((pid_t)child, budget, rss);
		fclose(f);
	}
	closedir(d);
	return sum;
}

/*
 * Proportional set size (kB) of pid and its descendants: the resident
 * sum of tree_cpu counts pages shared after fork() once per process, so
 * a tree over the limit by that measure is weighed again here (slower:
 * smaps_rollup walks the page tables).
 */
static unsigned long long tree_pss(pid_t pid, int *budget)
{
	char path[64], line[256];
	unsigned long long sum = 0, kb;
	long child;
	struct dirent *de;
	DIR *d;
	FILE *f;

	if (--*budget < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Pss: %llu kB", &kb) == 1) {
			sum += kb;
			break;
		}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		while (f && fscanf(f, "%ld", &child) == 1 && *budget > 0)
			sum += tree_pss((pid_t)child, budget);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return sum;
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

struct pump {
	int fd;
	struct capbuf *cap;	/* NULL: the protocol stream */
};

static int run_child(const struct sandbox_spec *spec,
		     struct sandbox_result *res, const char *bwrap)
{
	static const char *const no_env[] = { NULL };
	struct strv args = { 0 };
	struct child_plan plan;
	struct sandbox_run run;
	struct capbuf cout, cerr;
	struct child_report rep;
	struct rusage ru;
	struct pollfd pfd[4];
	struct pump pumps[3];
	sigset_t pipe_set, old_mask, pend;
	int p_in[2] = { -1, -1 }, p_out[2] = { -1, -1 };
	int p_err[2] = { -1, -1 }, p_proto[2] = { -1, -1 };
	int p_rep[2] = { -1, -1 };
	int status = 0, reaped = 0, killed = 0, had_sigpipe = 0, mask_set = 0;
	int ret = -1, i, n;
	double t0, drain_until = 0, t, sampled_cpu = 0, next_sample = 0;
	size_t cap = spec->limits.out_cap ? spec->limits.out_cap :
		     DEFAULT_OUT_CAP;
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned char *chunk = NULL;
	pid_t pid = -1;
	ssize_t r;
	char ebuf[128];

	memset(res, 0, sizeof(*res));
	memset(&run, 0, sizeof(run));
	memset(&plan, 0, sizeof(plan));
	memset(&ru, 0, sizeof(ru));
	memset(&cout, 0, sizeof(cout));
	memset(&cerr, 0, sizeof(cerr));
	run.in_fd = -1;
	for (i = 0; i < 3; i++)
		pumps[i].fd = -1;
	if (capbuf_init(&cout, cap) < 0 || capbuf_init(&cerr, cap) < 0) {
		set_error(res, "cannot run '%s': out of memory",
			  spec->argv[0]);
		goto out;
	}
	chunk = malloc(CHUNK);
	if (bwrap)
		bwrap_args(&args, bwrap, spec);
	for (i = 0; spec->argv[i]; i++)
		strv_add(&args, spec->argv[i]);
	if (args.oom || !chunk) {
		set_error(res, "cannot run '%s': out of memory",
			  spec->argv[0]);
		goto out;
	}
	if ((spec->inherit_stdio ? inherit_stdio(p_in, p_out, p_err) :
	     make_pipe(p_in) < 0 || make_pipe(p_out) < 0 ||
	     make_pipe(p_err) < 0) ||
	    make_pipe(p_proto) < 0 || make_pipe(p_rep) < 0) {
		set_error(res, "cannot run '%s': pipe: %s", spec->argv[0],
			  errstr(errno, ebuf, sizeof(ebuf)));
		goto out;
	}
	/* a hint: the default 64 KB stays when the system caps pipes lower */
	(void)fcntl(p_proto[0], F_SETPIPE_SZ, CHUNK);
	if (spec->uid != SANDBOX_KEEP_ID &&
	    chown(spec->workdir, (uid_t)spec->uid,
		  spec->gid != SANDBOX_KEEP_ID ? (gid_t)spec->gid :
		  (gid_t)-1) < 0) {
		set_error(res, "cannot hand '%s' to uid %ld: %s",
			  spec->workdir, spec->uid,
			  errstr(errno, ebuf, sizeof(ebuf)));
		goto out;
	}

	plan.path = bwrap ? bwrap : spec->argv[0];
	plan.argv = args.v;
	plan.envp = (char *const *)(spec->env ? spec->env : no_env);
	plan.workdir = spec->cwd ? spec->cwd : spec->workdir;
	plan.fd_in = p_in[0];
	plan.fd_out = p_out[1];
	plan.fd_err = p_err[1];
	plan.fd_proto = p_proto[1];
	plan.fd_report = p_rep[1];
	plan.parent = getpid();
	plan.uid = spec->uid;
	plan.gid = spec->gid;
	plan_limits(&plan, &spec->limits);

	/* A child that closes stdin early must cost us EPIPE, not death. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pend);
	had_sigpipe = sigismember(&pend, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
	mask_set = 1;

	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		set_error(res, "cannot run '%s': fork: %s", spec->argv[0],
			  errstr(errno, ebuf, sizeof(ebuf)));
		goto out;
	}
	if (pid == 0)
		child_exec(&plan);
	res->pid = pid;

	close_fd(&p_in[0]);
	close_fd(&p_out[1]);
	close_fd(&p_err[1]);
	close_fd(&p_proto[1]);
	close_fd(&p_rep[1]);
	do {
		r = read(p_rep[0], &rep, sizeof(rep));
	} while (r < 0 && errno == EINTR);
	close_fd(&p_rep[0]);
	if (r == (ssize_t)sizeof(rep)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		pid = -1;
		set_error(res, "cannot %s '%s': %s",
			  stage_names[rep.stage < 0 || rep.stage > 6 ? 6 :
				      rep.stage],
			  plan.path, errstr(rep.err, ebuf, sizeof(ebuf)));
		goto out;
	}

	run.in_fd = p_in[1];
	p_in[1] = -1;
	set_nonblock(run.in_fd);
	if (spec->input_len && sandbox_send(&run, spec->input,
					    spec->input_len) < 0) {
		set_error(res, "cannot run '%s': out of memory",
			  spec->argv[0]);
		goto out;
	}
	if (!spec->hold_stdin)
		run.close_input = 1;
	sandbox_set_deadline(&run, spec->limits.wall_s);
	pumps[0].fd = p_out[0];
	pumps[0].cap = &cout;
	pumps[1].fd = p_err[0];
	pumps[1].cap = &cerr;
	pumps[2].fd = p_proto[0];
	pumps[2].cap = NULL;
	p_out[0] = p_err[0] = p_proto[0] = -1;
	for (i = 0; i < 3; i++)
		set_nonblock(pumps[i].fd);

	for (;;) {
		int timeout = TICK_MS, open_fds = 0, budget = 512;

		/* the tree's CPU and memory once a tick, not at every
		 * chunk of output (a 256 MB region is a thousand of them) */
		if (!reaped && now_s() >= next_sample) {
			unsigned long long rss = 0;

			next_sample = now_s() + TICK_MS / 1000.0;
			t = tree_cpu(pid, &budget, &rss);
			if (t > sampled_cpu)
				sampled_cpu = t;
			/* memory RLIMIT_DATA misses: ends like a failed
			 * allocation would, by a signal */
			budget = 512;
			if (!killed && spec->limits.data_bytes &&
			    rss * (unsigned long long)page_size >
			    spec->limits.data_bytes &&
			    tree_pss(pid, &budget) * 1024 >
			    spec->limits.data_bytes) {
				killpg(pid, SIGKILL);
				killed = 1;
				res->memory_exceeded = 1;
			}
		}
		if (!reaped && child_exited(pid)) {
			res->wall_s = now_s() - t0;
			/* Whatever stayed in the group goes too; the zombie
			 * leader keeps the group id from being reused. */
			killpg(pid, SIGKILL);
			while (wait4(pid, &status, 0, &ru) < 0 &&
			       errno == EINTR)
				;
			reaped = 1;
			drain_until = now_s() + DRAIN_S;
		}
		t = now_s();
		if (!reaped && !killed && run.deadline && t >= run.deadline) {
			killpg(pid, SIGKILL);
			killed = 1;
			res->timed_out = SANDBOX_TIMEOUT_WALL;
		}
		if (!reaped && !killed && spec->cancel && *spec->cancel) {
			killpg(pid, SIGKILL);
			killed = 1;
			res->cancelled = 1;
		}
		if (reaped && t >= drain_until)
			break;
		if (run.in_fd >= 0 && run.close_input &&
		    run.pending_off == run.pending_len)
			close_fd(&run.in_fd);
		pfd[0].fd = run.in_fd >= 0 &&
			    run.pending_off < run.pending_len ? run.in_fd : -1;
		pfd[0].events = POLLOUT;
		for (i = 0; i < 3; i++) {
			pfd[i + 1].fd = pumps[i].fd;
			pfd[i + 1].events = POLLIN;
			open_fds += pumps[i].fd >= 0;
		}
		if (reaped && !open_fds)
			break;
		if (!reaped && !killed && run.deadline) {
			t = (run.deadline - now_s()) * 1000.0 + 1;
			if (t < timeout)
				timeout = t < 0 ? 0 : (int)t;
		}
		n = poll(pfd, 4, timeout);
		if (n < 0 && errno != EINTR) {
			set_error(res, "cannot watch '%s': poll: %s",
				  spec->argv[0],
				  errstr(errno, ebuf, sizeof(ebuf)));
			goto out;
		}
		if (n <= 0)
			continue;
		if (pfd[0].fd >= 0 && pfd[0].revents) {
			r = write(run.in_fd, run.pending + run.pending_off,
				  run.pending_len - run.pending_off);
			if (r > 0) {
				run.pending_off += (size_t)r;
			} else if (r < 0 && errno != EAGAIN &&
				   errno != EINTR) {
				/* The child closed stdin: its choice. */
				close_fd(&run.in_fd);
				run.pending_off = run.pending_len;
			}
		}
		for (i = 0; i < 3; i++) {
			struct pump *pp = &pumps[i];

			if (pp->fd < 0 || !pfd[i + 1].revents)
				continue;
			r = read(pp->fd, chunk, CHUNK);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				close_fd(&pp->fd);
				continue;
			}
			if (pp->cap) {
				capbuf_add(pp->cap, chunk, (size_t)r);
				continue;
			}
			if (!spec->on_data || res->killed_by_callback)
				continue;
			if (spec->on_data(&run, spec->ctx, chunk,
					  (size_t)r) < 0) {
				res->killed_by_callback = 1;
				if (!reaped) {
					killpg(pid, SIGKILL);
					killed = 1;
				}
			}
		}
	}

	res->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (sampled_cpu > res->cpu_s)
		res->cpu_s = sampled_cpu;
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(status);
		/* bwrap reports a death by signal N as exit 128+N. */
		if (bwrap && res->exit_code > 128 && res->exit_code <= 192) {
			res->exited = 0;
			res->signal = res->exit_code - 128;
		}
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
		res->exit_code = 128 + res->signal;
	}
	if (!res->timed_out && spec->limits.cpu_s > 0 &&
	    (res->signal == SIGXCPU ||
	     (res->signal == SIGKILL && !killed &&
	      res->cpu_s >= spec->limits.cpu_s)))
		res->timed_out = SANDBOX_TIMEOUT_CPU;
	pid = -1;
	ret = 0;
out:
	if (pid > 0) {
		/* A grader-side failure mid-run: leave nothing behind. */
		killpg(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (ret == 0 || cout.head)
		res->out = capbuf_finish(&cout);
	if (ret == 0 || cerr.head)
		res->err = capbuf_finish(&cerr);
	res->out_total = cout.total;
	res->err_total = cerr.total;
	close_fd(&run.in_fd);
	for (i = 0; i < 3; i++)
		close_fd(&pumps[i].fd);
	close_fd(&p_in[0]);
	close_fd(&p_in[1]);
	close_fd(&p_out[0]);
	close_fd(&p_out[1]);
	close_fd(&p_err[0]);
	close_fd(&p_err[1]);
	close_fd(&p_proto[0]);
	close_fd(&p_proto[1]);
	close_fd(&p_rep[0]);
	close_fd(&p_rep[1]);
	if (mask_set) {
		struct timespec zero = { 0, 0 };

		/* Swallow the SIGPIPE our own writes raised, if any. */
		sigpending(&pend);
		if (!had_sigpipe && sigismember(&pend, SIGPIPE))
			(void)sigtimedwait(&pipe_set, NULL, &zero);
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	}
	free(run.pending);
	free(chunk);
	capbuf_release(&cout);
	capbuf_release(&cerr);
	strv_free(&args);
	return ret;
}

/* ---- guests: untrusted code as a uid of its own ---- */

/*
 * A grader running as root runs untrusted code (runners, replays, the
 * compiler) as an unprivileged uid of its own: RLIMIT_NPROC does not
 * apply to root, and a root guest without bubblewrap could signal or
 * ptrace the grader and read every file.  The uid is unassigned and
 * distinct per run (a batch grades in parallel; nproc counts per uid),
 * the paths the guest needs are group-owned by it and closed to everyone
 * else, and whatever the run leaves behind is killed by uid afterwards.
 * Namespaces are worth more than the uid: where bubblewrap works only as
 * root (no unprivileged user namespaces), the guest stays root under
 * bubblewrap.
 */
/* Guest uids: GUEST_ID_BASE + pid * GUEST_SLOTS + slot, where the slot
 * is free among this process's running guests.  With pids below 2^22
 * (the kernel's largest pid_max) every id stays below 2^31 and no two
 * processes on the host ever share one. */
#define GUEST_ID_BASE 2000000000L
#define GUEST_SLOTS 32

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t slots_busy;

/* A slot no other running guest of this process holds, round robin:
 * a uid is used again only 32 runs later, when the processes of its last
 * run (which count against RLIMIT_NPROC until the kernel releases them)
 * are long gone.  The next slot anyway when all are busy (never with
 * GUEST_SLOTS jobs or fewer). */
static int guest_slot_take(void)
{
	static int last = GUEST_SLOTS - 1;
	int k = last;

	pthread_mutex_lock(&slot_lock);
	for (int i = 0; i < GUEST_SLOTS; i++) {
		k = (last + 1 + i) % GUEST_SLOTS;
		if (!(slots_busy >> k & 1))
			break;
	}
	slots_busy |= 1u << k;
	last = k;
	pthread_mutex_unlock(&slot_lock);
	return k;
}

static void guest_slot_give(int k)
{
	pthread_mutex_lock(&slot_lock);
	slots_busy &= ~(1u << k);
	pthread_mutex_unlock(&slot_lock);
}

/* Kill every process of uid id: what a guest left behind after its
 * process group was killed (children that called setsid), which would
 * otherwise eat the next guest's process cap.  A child takes the uid,
 * so kill(-1) reaches exactly that uid's processes. */
void sandbox_sweep_uid(long id)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(0, NULL) || setgid((gid_t)id) ||
		    setuid((uid_t)id))
			_exit(1);
		kill(-1, SIGKILL);
		_exit(0);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Add who the guest ran as to the isolation line, inside its closing
 * parenthesis when it has one: "bubblewrap (...; as uid 2000001)". */
static void note_identity(struct sandbox_result *res, const char *who)
{
	size_t n = strlen(res->isolation);
	int paren = n && res->isolation[n - 1] == ')';

	if (paren)
		res->isolation[--n] = '\0';
	snprintf(res->isolation + n, sizeof(res->isolation) - n, "%s%s%s",
		 paren ? "; " : " (", who, ")");
}

static int run_as_guest(struct sandbox_spec *spec,
			struct sandbox_result *res,
			const struct sandbox_grant *grant, long id)
{
	static const struct {
		int drop;
		enum sandbox_isolation_mode mode;
	} tries[] = {
		{ 1, SANDBOX_ISOLATE_BWRAP },
		{ 0, SANDBOX_ISOLATE_BWRAP },
		{ 1, SANDBOX_ISOLATE_NONE },
	};
	char buf[64];
	int rc = -1;

	if (geteuid() != 0 || spec->isolation != SANDBOX_ISOLATE_AUTO) {
		rc = sandbox_run(spec, res);
		if (!rc && geteuid() == 0)
			note_identity(res, "as root (no process cap)");
		return rc;
	}
	for (const struct sandbox_grant *g = grant; g && g->path; g++)
		if (chown(g->path, 0, (gid_t)id) ||
		    chmod(g->path, g->mode)) {
			rc = sandbox_run(spec, res);
			if (!rc)
				note_identity(res, "as root: its paths could "
					      "not be handed to a guest uid");
			return rc;
		}
	for (size_t i = 0; rc && i < sizeof(tries) / sizeof(tries[0]); i++) {
		spec->uid = spec->gid = tries[i].drop ? id : SANDBOX_KEEP_ID;
		spec->isolation = tries[i].mode;
		if (i)
			sandbox_result_release(res);
		rc = sandbox_run(spec, res);
	}
	if (spec->uid != SANDBOX_KEEP_ID)
		sandbox_sweep_uid(id);
	if (!rc && spec->isolation == SANDBOX_ISOLATE_NONE)
		snprintf(res->isolation, sizeof(res->isolation), "rlimits "
			 "only (no usable bubblewrap): it can read what every "
			 "user can read");
	if (!rc && spec->uid != SANDBOX_KEEP_ID) {
		snprintf(buf, sizeof(buf), "as uid %ld", spec->uid);
		note_identity(res, buf);
	} else if (!rc) {
		note_identity(res, "as root (no process cap)");
	}
	return rc;
}

int sandbox_run_guest(struct sandbox_spec *spec, struct sandbox_result *res,
		      const struct sandbox_grant *grant)
{
	int slot = guest_slot_take();
	int rc = run_as_guest(spec, res, grant, GUEST_ID_BASE +
			      (long)getpid() * GUEST_SLOTS + slot);

	guest_slot_give(slot);
	return rc;
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
