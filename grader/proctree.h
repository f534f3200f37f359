/*
 * A process tree weighed from /proc: what the sandbox's watch samples
 * once a tick (sandbox.c).  Under bubblewrap the runner's CPU time never
 * reaches the rusage of the bwrap process the grader waits for, and
 * memory that RLIMIT_DATA does not count -- shared mappings
 * (MAP_SHARED|MAP_ANONYMOUS, memfd, System V segments while attached) --
 * is still the host's memory.
 *
 * Both walks follow /proc/PID/task/TID/children from pid down and visit
 * at most *budget processes (each visit takes one), so a fork bomb cannot
 * make a sample expensive.  A process that is gone, or vanishes during
 * the walk, counts as nothing; neither call fails.
 */
#ifndef PROCTREE_H
#define PROCTREE_H

#include <sys/types.h>

/* CPU seconds (user+system, plus reaped children) of pid and all its
 * descendants; adds their resident pages to *rss. */
double proctree_cpu(pid_t pid, int *budget, unsigned long long *rss);

/*
 * Proportional set size (kB) of pid and its descendants: the resident
 * sum of proctree_cpu counts pages shared after fork() once per process,
 * so a tree over a limit by that measure is weighed again here (slower:
 * smaps_rollup walks the page tables).
 */
unsigned long long proctree_pss(pid_t pid, int *budget);

#endif
