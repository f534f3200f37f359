/*
 * Check tests for grader/proctree: a process tree's CPU time counts its
 * descendants' work, its memory is seen, the budget bounds the walk, and
 * a process that is gone counts as nothing.
 */
#include "proctree.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A child that spins for 0.3 s of CPU, then waits to be weighed. */
static pid_t spinner(int fds[2])
{
	volatile unsigned long x = 0;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		double t0 = cpu_now();

		while (cpu_now() - t0 < 0.3)
			x++;
		if (write(fds[1], "x", 1) == 1)
			pause();
		_exit(0);
	}
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	return pid;
}

static void reap(pid_t pid, int fds[2])
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fds[0]);
	close(fds[1]);
}

START_TEST(descendants_count)
{
	unsigned long long rss = 0;
	int budget = 512, fds[2];
	pid_t pid = spinner(fds);
	double cpu = proctree_cpu(getpid(), &budget, &rss);

	ck_assert_msg(cpu >= 0.25, "tree cpu %.2f s", cpu);
	ck_assert_msg(budget <= 510, "budget %d", budget);
	ck_assert(rss > 0);
	budget = 512;
	ck_assert(proctree_pss(getpid(), &budget) > 0);
	reap(pid, fds);
}
END_TEST

START_TEST(budget_bounds_the_walk)
{
	unsigned long long rss = 0;
	int budget = 0, fds[2];
	pid_t pid = spinner(fds);
	double cpu;

	/* no budget: nothing walked, nothing counted */
	ck_assert(proctree_cpu(getpid(), &budget, &rss) == 0);
	ck_assert(rss == 0);
	budget = 0;
	ck_assert(proctree_pss(getpid(), &budget) == 0);
	/* one process: the child's time is not the test's own */
	budget = 1;
	cpu = proctree_cpu(getpid(), &budget, &rss);
	ck_assert_msg(cpu < 0.25, "own cpu %.2f s", cpu);
	reap(pid, fds);
}
END_TEST

START_TEST(gone_counts_nothing)
{
	unsigned long long rss = 0;
	int budget = 512, fds[2];
	pid_t pid = spinner(fds);

	reap(pid, fds);
	ck_assert(proctree_cpu(pid, &budget, &rss) == 0);
	ck_assert(rss == 0);
	ck_assert(proctree_pss(pid, &budget) == 0);
}
END_TEST

static Suite *proctree_suite(void)
{
	Suite *s = suite_create("proctree");
	TCase *tc = tcase_create("the watch");

	tcase_add_test(tc, descendants_count);
	tcase_add_test(tc, budget_bounds_the_walk);
	tcase_add_test(tc, gone_counts_nothing);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proctree_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
