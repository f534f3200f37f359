/*
 * The GPU lock (see gpulock.h): a reader-writer lock with a turnstile,
 * made of two open-file-description locks on one file.
 */
#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include "util.h"

#define TURNSTILE 0 /* byte offsets in the lock file */
#define DEVICE 1

struct gpulock {
	int fd;
	char *path;
	int held;                /* the device byte is ours */
	enum gpulock_mode mode;
	double requested, acquired;
};

struct gpulock *gpulock_open(const char *path)
{
	struct gpulock *l;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		error("cannot open the GPU lock '%s': %s", path,
		      strerror(errno));
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	l->fd = fd;
	l->path = xstrdup(path);
	return l;
}

/* Set (F_WRLCK, F_RDLCK) or clear (F_UNLCK) the lock on one byte,
 * waiting as long as it takes; 0 or -1. */
static int lock_byte(int fd, off_t at, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = at;
	fl.l_len = 1;
	while (fcntl(fd, F_OFD_SETLKW, &fl)) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

int gpulock_acquire(struct gpulock *l, enum gpulock_mode m)
{
	short type = m == GPULOCK_EXCLUSIVE ? F_WRLCK : F_RDLCK;
	int rc;

	if (l->held)
		BUG("the GPU lock is already held by this handle");
	l->requested = now_s();
	if (lock_byte(l->fd, TURNSTILE, F_WRLCK))
		return error("cannot lock '%s': %s", l->path,
			     strerror(errno));
	rc = lock_byte(l->fd, DEVICE, type);
	if (rc)
		error("cannot lock '%s': %s", l->path, strerror(errno));
	lock_byte(l->fd, TURNSTILE, F_UNLCK);
	if (rc)
		return -1;
	l->held = 1;
	l->mode = m;
	l->acquired = now_s();
	return 0;
}

/* One line of the trace, when one is asked for (gpulock.h). */
static void trace(const struct gpulock *l, double released)
{
	const char *path = getenv("WARPGRADE_GPU_LOCK_TRACE");
	const char *base = strrchr(l->path, '/');
	char line[256];
	int fd, n;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%ld %c %.6f %.6f %.6f %.100s\n",
		     (long)getpid(), l->mode == GPULOCK_EXCLUSIVE ? 'X' : 'S',
		     l->requested, l->acquired, released,
		     base ? base + 1 : l->path);
	/* one write of O_APPEND: lines of several processes never mix */
	if (write(fd, line, (size_t)n) != n)
		warning("cannot write the GPU lock trace '%s'", path);
	close(fd);
}

void gpulock_release(struct gpulock *l)
{
	double t;

	if (!l || !l->held)
		return;
	t = now_s(); /* before another holder can have it */
	if (lock_byte(l->fd, DEVICE, F_UNLCK))
		BUG("cannot unlock the GPU lock");
	l->held = 0;
	trace(l, t);
}

void gpulock_free(struct gpulock *l)
{
	if (!l)
		return;
	gpulock_release(l);
	close(l->fd);
	free(l->path);
	free(l);
}

size_t gpulock_plan(int gpu, enum gpulock_order order,
		    struct gpulock_run runs[2])
{
	memset(runs, 0, 2 * sizeof(*runs));
	if (!gpu) {
		runs[0].phases = PROTO_PHASE_CORRECTNESS;
		runs[0].mode = GPULOCK_NONE;
		return 1;
	}
	if (order != GPULOCK_LOCKED) {
		runs[0].phases = PROTO_PHASE_CORRECTNESS | PROTO_PHASE_PERF;
		runs[0].mode = GPULOCK_NONE;
		if (order == GPULOCK_TURNS)
			runs[0].job_flags = PROTO_JOB_TIMED_TURN;
		return 1;
	}
	runs[0].phases = PROTO_PHASE_CORRECTNESS;
	runs[0].mode = GPULOCK_SHARED;
	runs[1].phases = PROTO_PHASE_PERF;
	runs[1].mode = GPULOCK_EXCLUSIVE;
	return 2;
}
