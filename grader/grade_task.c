/*
 * What the stages of a grade share (see grade_task.h): where their
 * files go, their progress line, a task's leftovers freed.  A leaf:
 * grade_build.c and grade_exec.c call into it, it calls into neither
 * of them nor into grade.c.
 */
#include "grade_task.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void grade_progress(const struct grade_opts *o, const char *fmt, ...)
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

const char *grade_tmp_dir(const struct grade_opts *o)
{
	const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

void grade_task_release(struct task *t)
{
	free(t->log);
	t->log = NULL;
	free(t->counters.log);
	t->counters.log = NULL;
	free(t->cc_isolation);
	t->cc_isolation = NULL;
	free(t->run_isolation);
	t->run_isolation = NULL;
	lacks_release(&t->lacks);
}
