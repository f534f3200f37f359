/*
 * Untrusted code as a uid of its own (see sandbox.h, sandbox_run_guest),
 * on top of sandbox_run.  A grader running as root runs untrusted code
 * (runners, replays, the compiler) as an unprivileged uid of its own:
 * RLIMIT_NPROC does not apply to root, and a root guest without
 * bubblewrap could signal or ptrace the grader and read every file.  The
 * uid is unassigned and distinct per run (a batch grades in parallel;
 * nproc counts per uid), the paths the guest needs are group-owned by it
 * and closed to everyone else, and whatever the run leaves behind is
 * killed by uid afterwards.  Namespaces are worth more than the uid:
 * where bubblewrap works only as root (no unprivileged user namespaces),
 * the guest stays root under bubblewrap.
 */
#include "sandbox.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
