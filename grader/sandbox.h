/*
 * The process sandbox: the one place where the grader starts another process
 * -- the compiler and the replay on student input, the runner with the
 * student's object in it, the tools run on the grader's own files, batch's
 * `warpgrade grade` children, sbatch for `warpgrade slurm --submit` and the
 * program `warpgrade emu` runs for its user (the last three without
 * isolation).  sandbox_run forks and execs at once, puts the child in its
 * own session and process group, applies rlimits from a table, feeds the job
 * message on stdin, passes the protocol stream from the child's fd 3 to the
 * caller as it arrives (raw bytes, or whole frames through a decoder it
 * owns), captures stdout and stderr into capped buffers (capbuf.h: head and
 * tail kept), enforces wall-clock and CPU timeouts by killing the whole
 * group, and reports how the child ended in terms that keep fault ownership
 * clear: anything the child does (crash, timeout, flood, early exit) is a
 * result (return 0); only the grader's own failures (fork, pipe, exec,
 * requested isolation unavailable) return -1.
 *
 * Isolation.  With bubblewrap usable (SANDBOX_ISOLATE_AUTO or _BWRAP) the
 * child runs in new user, pid, network, ipc, uts and cgroup namespaces,
 * with no capabilities, a read-only view of /usr (and /bin, /lib, ...
 * as links or read-only binds), a few files of /etc, the ro_paths, the
 * workdir read-write, a private /tmp, a fresh /proc and a minimal /dev
 * (plus /dev/nvidia* and /sys read-only when gpu is set), and the
 * sandbox's own root read-only.  Nothing else of the host's files is
 * visible, and there is no network.  bwrap adds PWD (= workdir) to the
 * environment.  Whether bwrap
 * works is probed once per process (it fails in containers that forbid
 * user namespaces); AUTO then falls back to rlimits only and says so in
 * res->isolation, BWRAP makes sandbox_run return -1.
 *
 * What is contained without bubblewrap: rlimits, timeouts, the process
 * group kill, a clean environment, closed descriptors and the working
 * directory -- but the runner can read every file the grader's user can
 * read, and can reach the network.
 *
 * Fork bombs.  RLIMIT_NPROC counts all processes (and threads) of the
 * child's real uid across the host, and the kernel ignores it entirely
 * for uid 0: a grader running as root gets no process cap from nproc.
 * What still contains a fork bomb then: the wall and CPU timeouts, after
 * which the whole group is killed; under bubblewrap the pid namespace
 * (when its first process dies, the kernel kills every process in it, so
 * even children that left the group with setsid() die), together with
 * --die-with-parent.  To get a real process cap as root, set spec->uid and
 * spec->gid to a dedicated unprivileged account (sandbox_run then also
 * hands the workdir to it): the child drops to it before exec, and nproc
 * applies.  Without bubblewrap, processes that escaped the group with
 * setsid() survive the kill; a distinct uid per concurrent job lets the
 * caller sweep them up (kill(-1) as that uid).
 *
 * Descriptors: the child gets exactly 0 (stdin pipe), 1 and 2 (capture
 * pipes) and 3 (protocol pipe); every other descriptor of the grader is
 * closed at exec (close_range), whether or not it was O_CLOEXEC.
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"

/* res->timed_out */
#define SANDBOX_TIMEOUT_NONE 0
#define SANDBOX_TIMEOUT_WALL 1
#define SANDBOX_TIMEOUT_CPU 2

/* spec->uid / spec->gid: keep the grader's own ids. */
#define SANDBOX_KEEP_ID ((long)-1)

struct sandbox_limits {
	double wall_s;		/* wall clock per phase, see set_deadline */
	/*
	 * CPU seconds per process for the whole run (RLIMIT_CPU, rounded up
	 * to whole seconds: SIGXCPU at the limit, SIGKILL one second later).
	 */
	double cpu_s;
	uint64_t data_bytes;	/* RLIMIT_DATA; never RLIMIT_AS (CUDA) */
	unsigned nproc;		/* RLIMIT_NPROC; see "Fork bombs" above */
	uint64_t fsize_bytes;	/* RLIMIT_FSIZE: largest file written */
	unsigned nofile;	/* RLIMIT_NOFILE */
	size_t out_cap;		/* stdout, stderr each: bytes kept */
};
/* A field left 0 is not applied (no limit), except out_cap (then 64 KiB)
 * and wall_s (then no wall clock: never do that with a real runner). */

/*
 * The kinds of child the grader runs, each with its limits named once
 * (the table in sandbox.c).  The wall clock is the caller's (a timeout of
 * the configuration, mostly); the CPU limit is a multiple of it; the rest
 * is fixed per profile.  A caller sets a field after
 * sandbox_limits_profile only where the grading configuration decides it
 * (score.h) or the child's output needs another cap, and says so there.
 */
enum sandbox_profile {
	/* student code (runners): CPU 2 x wall, data 16 GiB, nproc 256,
	 * fsize 64 MiB, nofile 256, out_cap 64 KiB; score.h's runner
	 * limits override them (score_runner_limits) */
	SANDBOX_PROFILE_RUNNER,
	/* the compiler on student text, several processes: CPU 4 x wall,
	 * data 4 GiB (score.h: compile_data_limit_bytes), nproc 64, fsize
	 * 256 MiB, nofile 1024, out_cap 64 KiB */
	SANDBOX_PROFILE_COMPILER,
	/* the grader's helpers on what a student made, one process each
	 * (the replay, the PTX check, addr2line): CPU 1 x wall, data 1 GiB,
	 * nproc 16, fsize 1 MiB, nofile 64, out_cap 64 KiB */
	SANDBOX_PROFILE_HELPER,
	/* the grader's own tools on its own files (the runner's link, nm,
	 * the reference builds): CPU 4 x wall, no data or process cap,
	 * fsize 1 GiB, nofile 1024, out_cap 256 KiB */
	SANDBOX_PROFILE_TOOL,
	/* the grader itself and what it runs for its user (batch's grade
	 * children, the GPU probe, sbatch, `warpgrade emu`): no limit but
	 * the wall clock, out_cap 64 KiB */
	SANDBOX_PROFILE_TRUSTED
};

/* Fill *l with profile p's limits under a wall clock of wall_s (0: none;
 * see above). */
void sandbox_limits_profile(enum sandbox_profile p, double wall_s,
			    struct sandbox_limits *l);

/* The runner profile under a 60 s wall clock: CPU 120 s, data 16 GiB,
 * nproc 256, fsize 64 MiB, nofile 256, out_cap 64 KiB. */
void sandbox_limits_default(struct sandbox_limits *l);

enum sandbox_isolation_mode {
	SANDBOX_ISOLATE_AUTO,	/* bubblewrap if it works, else rlimits */
	SANDBOX_ISOLATE_BWRAP,	/* bubblewrap or fail (-1) */
	SANDBOX_ISOLATE_NONE	/* rlimits only */
};

/* The running child, as seen from spec->on_data and spec->on_frame. */
struct sandbox_run;

struct sandbox_spec {
	/* argv[0] is the executable's absolute path (not searched in PATH);
	 * it must be inside ro_paths or the system dirs under bubblewrap. */
	const char *const *argv;
	/* The complete, NULL-terminated environment: nothing of the
	 * grader's is inherited (e.g. PATH=/usr/bin:/bin, HOME=workdir,
	 * LANG=C).  NULL: empty. */
	const char *const *env;
	/* Existing private directory, becomes the cwd; the only writable
	 * place (plus a private /tmp under bubblewrap). */
	const char *workdir;
	/* A directory at or under workdir to start in; NULL: workdir. */
	const char *cwd;
	/* Under bubblewrap: the child sees an empty, size-capped tmpfs at
	 * workdir instead of the host directory (what it writes there is
	 * gone with the sandbox, and the sum of its files is capped, not
	 * only each file).  Without bubblewrap: ignored. */
	int private_workdir;
	/* NULL-terminated extra paths the child may read (the runner's
	 * directory, CUDA libraries); bind-mounted read-only under
	 * bubblewrap, each must exist.  May be NULL. */
	const char *const *ro_paths;
	int gpu;		/* expose /dev/nvidia*, /sys read-only */
	/* With gpu under bubblewrap: the device nodes to expose, a glob
	 * whose matches appear in the sandbox's /dev under their own
	 * names.  NULL: "/dev/nvidia*". */
	const char *gpu_nodes;
	/* With gpu under bubblewrap: the one GPU node to expose, nvidiaN
	 * with N this minor number, the others of that name left out (the
	 * control and uvm nodes and the caps stay); -1 (the default): every
	 * node.  So a runner given one GPU cannot open another, whatever
	 * its CUDA_VISIBLE_DEVICES says. */
	int gpu_minor;
	enum sandbox_isolation_mode isolation;
	/* Written to the child's stdin, then stdin is closed (unless
	 * hold_stdin).  Not copied: valid until sandbox_run returns. */
	const void *input;
	size_t input_len;
	/* The child gets the grader's own stdin, stdout and stderr
	 * (a program run for a person at a terminal): input is then
	 * ignored and nothing is captured (res->out and res->err are
	 * empty). */
	int inherit_stdio;
	/* Keep stdin open after input until the callback calls
	 * sandbox_close_input (e.g. send the seed only after the runner
	 * said it is ready, so code that runs before main cannot read it). */
	int hold_stdin;
	/*
	 * The child's fd 3 is the write end of the protocol pipe.  Bytes
	 * arriving on it are passed to on_data as they come (any split),
	 * then, when on_frame is set, fed to a frame decoder the sandbox
	 * owns (protocol.h; payloads up to max_payload, 0: up to
	 * PROTO_MAX_PAYLOAD), and on_frame gets each whole frame, in order
	 * (the payload is valid only during the call).  Either returns 0
	 * to go on, -1 to kill the child (res->killed_by_callback); a
	 * stream the decoder rejects kills it the same way, with the
	 * decoder's reason in res->frame_error.  After a kill neither is
	 * called again.  run is valid only during a call: pass it to
	 * sandbox_set_deadline, sandbox_send or sandbox_close_input.  Both
	 * get ctx.  Either may be NULL (both NULL: bytes dropped).
	 */
	int (*on_data)(struct sandbox_run *run, void *ctx,
		       const unsigned char *p, size_t n);
	int (*on_frame)(struct sandbox_run *run, void *ctx,
			enum proto_type type, const unsigned char *payload,
			size_t len);
	size_t max_payload;
	void *ctx;
	struct sandbox_limits limits;
	/* SANDBOX_KEEP_ID, or the account to drop to (root only). */
	long uid, gid;
	/* When *cancel becomes non-zero (a signal handler's flag), the
	 * child's group is killed within a tick and res->cancelled is set.
	 * May be NULL. */
	const volatile sig_atomic_t *cancel;
	/* When *close_input_when becomes non-zero (set by another thread,
	 * read atomically), the child's stdin is closed within a tick,
	 * once the queued bytes are out, and its wall clock restarts with
	 * close_input_wall_s (0: as it was).  May be NULL. */
	int *close_input_when;
	double close_input_wall_s;
};

struct sandbox_result {
	int exited;		/* 1: exited normally; 0: killed by signal */
	int exit_code;		/* exit status, or 128+signal */
	int signal;		/* the signal, 0 if none */
	int timed_out;		/* SANDBOX_TIMEOUT_... */
	int killed_by_callback;	/* a veto, or a corrupt frame stream */
	int cancelled;		/* killed because *spec->cancel was set */
	/* Killed (SIGKILL) because the resident memory of the child's
	 * processes passed limits.data_bytes: memory RLIMIT_DATA does not
	 * count (shared mappings, System V segments). */
	int memory_exceeded;
	/* The child's pid, also its process group id (for logs and tests;
	 * reaped already: do not signal it) */
	pid_t pid;
	/* cpu_s: user+system time of the child and its descendants, from
	 * the rusage of the child or, when larger, from sampling /proc
	 * every 50 ms (bubblewrap hides the runner's rusage) */
	double wall_s, cpu_s;
	/* Captured output, NUL-terminated, owned: all of it when it fits
	 * out_cap, else head + "\n[… N bytes omitted …]\n" + tail
	 * (the ellipses are UTF-8 U+2026; capbuf.h). */
	char *out, *err;
	size_t out_total, err_total;	/* bytes the child wrote */
	char isolation[256];	/* what protection was in force */
	/* Why the decoder rejected the protocol stream (on_frame: "bad
	 * frame magic", a payload over max_payload, ...); "" when it did
	 * not. */
	char frame_error[128];
	char error[256];	/* grader-side failure: sandbox_run is -1 */
};

/* A spec with defaults: limits, AUTO isolation, ids kept. */
void sandbox_spec_init(struct sandbox_spec *spec);

/*
 * Run spec->argv to completion and fill *res (overwritten; release it
 * with sandbox_result_release in every case).  Returns 0 when the child
 * ran, whatever its fate; -1 on a grader-side failure (res->error).
 *
 * Under bubblewrap the exit status passes through bwrap, which turns a
 * death by signal N into exit code 128+N; sandbox_run maps such codes
 * (129..192) back to a signal.  A runner must therefore not exit with
 * those codes itself.  The caller's signal dispositions are untouched:
 * SIGPIPE is blocked in the calling thread while the child's stdin is
 * written (a pending SIGPIPE caused by us is consumed), the child starts
 * with default dispositions and an empty signal mask.  Callable from
 * several threads at once (one child each).
 */
int sandbox_run(const struct sandbox_spec *spec, struct sandbox_result *res);

/* From on_data: restart the wall clock, wall_s from now (a new phase). */
void sandbox_set_deadline(struct sandbox_run *run, double wall_s);
/* From on_data: queue bytes for the child's stdin (copied); -1 if stdin
 * is already closed or out of memory. */
int sandbox_send(struct sandbox_run *run, const void *p, size_t n);
/* From on_data: close stdin once the queued bytes are written. */
void sandbox_close_input(struct sandbox_run *run);

void sandbox_result_release(struct sandbox_result *r);

/* A path an untrusted guest needs: handed to its group with this mode
 * (e.g. 0710 for a directory it enters, 0750 for a program it runs). */
struct sandbox_grant {
	const char *path;  /* NULL ends a list */
	unsigned mode;
};

/*
 * sandbox_run for untrusted code.  When the grader runs as root and
 * spec->isolation is AUTO, the guest runs as an unassigned uid of its
 * own (distinct per run, so RLIMIT_NPROC is a real cap and leftovers can
 * be swept), the granted paths group-owned by it and closed to others;
 * it tries bubblewrap with that uid, then bubblewrap as root (where user
 * namespaces need root), then the uid without bubblewrap, and kills
 * whatever of the uid survives.  spec->uid and spec->isolation are
 * overwritten; res->isolation ends with the uid it ran as.  Returns as
 * sandbox_run.
 */
int sandbox_run_guest(struct sandbox_spec *spec, struct sandbox_result *res,
		      const struct sandbox_grant *grant);
/* Kill every process of uid id (as root). */
void sandbox_sweep_uid(long id);

/* "SIGSEGV", "SIGFPE", ...; "signal N" for unknown ones.  Static. */
const char *sandbox_signal_name(int sig);
/* One line on how the child ended: "exited with code 3", "killed by
 * SIGSEGV (segmentation fault)", "wall-clock timeout (5.0 s)", ...
 * into buf; returns buf. */
const char *sandbox_describe(const struct sandbox_result *r,
			     const struct sandbox_limits *l, char *buf,
			     size_t len);

#endif
