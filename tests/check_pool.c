/*
 * The grader's thread pool (grader/pool.c): every job exactly once, no
 * more threads than asked or than jobs, one thread in order, nothing
 * for no jobs; the two-stage pipeline's order and its bound; and no job
 * lost when threads cannot be started (pthread_create fails here on
 * demand: this file's definition stands in for the C library's).
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"

/* ---- pthread_create, failing on demand ---- */

/* Creates that succeed before the rest fail; -1: all succeed. */
static int creates_left = -1;
static atomic_int creates_tried;

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
			 void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	create_fn real = (create_fn)(uintptr_t)dlsym(RTLD_NEXT,
						     "pthread_create");

	atomic_fetch_add(&creates_tried, 1);
	if (creates_left == 0)
		return EAGAIN;
	if (creates_left > 0)
		creates_left--;
	return real(t, attr, fn, arg);
}

/* ---- what the jobs saw ---- */

#define MAX_JOBS 256

struct seen {
	pthread_mutex_t mu;
	atomic_int runs[MAX_JOBS];
	size_t order[MAX_JOBS], norder;
	pthread_t threads[MAX_JOBS];
	size_t nthreads;
	atomic_int running, most;
	useconds_t nap;          /* each job sleeps this long */
	pthread_t caller;
	int on_caller;           /* jobs run in the calling thread */
	/* the pipeline's */
	int skip_every;          /* first(i) returns 0 when i % it == 1 */
	atomic_int firsts_done, thens_done, thens_queued;
	int most_unfinished;     /* second stages queued, not finished,
				  * as a first stage began */
	int then_before_first;   /* a then(i) began before first(i) ended */
	atomic_int first_ended[MAX_JOBS];
};

static struct seen sn;

static void seen_init(useconds_t nap)
{
	memset(&sn, 0, sizeof(sn));
	pthread_mutex_init(&sn.mu, NULL);
	sn.nap = nap;
	sn.caller = pthread_self();
	creates_left = -1;
	atomic_store(&creates_tried, 0);
}

static void note_thread(void)
{
	pthread_t self = pthread_self();
	size_t i;

	if (pthread_equal(self, sn.caller))
		sn.on_caller++;
	for (i = 0; i < sn.nthreads; i++)
		if (pthread_equal(sn.threads[i], self))
			return;
	sn.threads[sn.nthreads++] = self;
}

static void job(void *ctx, size_t i)
{
	int now = atomic_fetch_add(&sn.running, 1) + 1, most;

	ck_assert_ptr_eq(ctx, &sn);
	ck_assert_uint_lt(i, MAX_JOBS);
	most = atomic_load(&sn.most);
	while (now > most && !atomic_compare_exchange_weak(&sn.most, &most,
							   now))
		;
	atomic_fetch_add(&sn.runs[i], 1);
	pthread_mutex_lock(&sn.mu);
	sn.order[sn.norder++] = i;
	note_thread();
	pthread_mutex_unlock(&sn.mu);
	if (sn.nap)
		usleep(sn.nap);
	atomic_fetch_sub(&sn.running, 1);
}

static void each_ran_once(size_t n)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(atomic_load(&sn.runs[i]) == 1,
			      "job %zu ran %d times", i,
			      atomic_load(&sn.runs[i]));
	for (size_t i = n; i < MAX_JOBS; i++)
		ck_assert_int_eq(atomic_load(&sn.runs[i]), 0);
	ck_assert_uint_eq(sn.norder, n);
}

/* ---- pool_run ---- */

START_TEST(every_job_once)
{
	seen_init(2000);
	ck_assert_int_eq(pool_run(40, 4, job, &sn), 0);
	each_ran_once(40);
	ck_assert_int_le(atomic_load(&sn.most), 4);
	ck_assert_int_ge(atomic_load(&sn.most), 2);
	ck_assert_uint_le(sn.nthreads, 4);
	ck_assert_int_eq(sn.on_caller, 0);

	/* and many quick ones */
	seen_init(0);
	ck_assert_int_eq(pool_run(MAX_JOBS, 8, job, &sn), 0);
	each_ran_once(MAX_JOBS);
	ck_assert_int_le(atomic_load(&sn.most), 8);
}
END_TEST

START_TEST(one_thread_in_order)
{
	seen_init(0);
	ck_assert_int_eq(pool_run(100, 1, job, &sn), 0);
	each_ran_once(100);
	for (size_t i = 0; i < 100; i++)
		ck_assert_uint_eq(sn.order[i], i);
	ck_assert_uint_eq(sn.nthreads, 1);
	ck_assert_int_eq(atomic_load(&sn.most), 1);

	/* k 0 is one thread too */
	seen_init(0);
	ck_assert_int_eq(pool_run(20, 0, job, &sn), 0);
	each_ran_once(20);
	for (size_t i = 0; i < 20; i++)
		ck_assert_uint_eq(sn.order[i], i);
	ck_assert_uint_eq(sn.nthreads, 1);
}
END_TEST

START_TEST(more_threads_than_jobs)
{
	seen_init(5000);
	ck_assert_int_eq(pool_run(3, 64, job, &sn), 0);
	each_ran_once(3);
	/* no thread is started for nothing */
	ck_assert_int_eq(atomic_load(&creates_tried), 3);
	ck_assert_uint_le(sn.nthreads, 3);
}
END_TEST

START_TEST(zero_jobs)
{
	seen_init(0);
	ck_assert_int_eq(pool_run(0, 4, job, &sn), 0);
	ck_assert_uint_eq(sn.norder, 0);
	ck_assert_int_eq(atomic_load(&creates_tried), 0);
	ck_assert_int_eq(pool_pipeline(0, 4, NULL, job, &sn), 0);
	ck_assert_uint_eq(sn.norder, 0);
	ck_assert_int_eq(atomic_load(&creates_tried), 0);
}
END_TEST

/* ---- threads that cannot be started ---- */

START_TEST(no_thread_runs_inline)
{
	seen_init(0);
	creates_left = 0;
	ck_assert_int_eq(pool_run(30, 4, job, &sn), -1);
	each_ran_once(30);
	/* in the calling thread, in order */
	ck_assert_int_eq(sn.on_caller, 30);
	for (size_t i = 0; i < 30; i++)
		ck_assert_uint_eq(sn.order[i], i);
}
END_TEST

START_TEST(some_threads_and_the_caller)
{
	seen_init(2000);
	creates_left = 1;
	ck_assert_int_eq(pool_run(30, 3, job, &sn), -1);
	each_ran_once(30);
	/* the one thread and the caller; never more than asked */
	ck_assert_uint_le(sn.nthreads, 2);
	ck_assert_int_le(atomic_load(&sn.most), 3);
	ck_assert_int_gt(sn.on_caller, 0);
}
END_TEST

/* ---- pool_pipeline ---- */

static int first(void *ctx, size_t i)
{
	int unfinished;

	ck_assert_ptr_eq(ctx, &sn);
	ck_assert(pthread_equal(pthread_self(), sn.caller));
	/* in order */
	ck_assert_int_eq(atomic_load(&sn.firsts_done), (int)i);
	unfinished = atomic_load(&sn.thens_queued) -
		     atomic_load(&sn.thens_done);
	if (unfinished > sn.most_unfinished)
		sn.most_unfinished = unfinished;
	usleep(300);
	atomic_store(&sn.first_ended[i], 1);
	atomic_fetch_add(&sn.firsts_done, 1);
	if (sn.skip_every && i % sn.skip_every == 1)
		return 0;
	atomic_fetch_add(&sn.thens_queued, 1);
	return 1;
}

static void then(void *ctx, size_t i)
{
	if (!atomic_load(&sn.first_ended[i]))
		sn.then_before_first = 1;
	job(ctx, i);
	atomic_fetch_add(&sn.thens_done, 1);
}

START_TEST(pipeline_order_and_bound)
{
	seen_init(3000);
	sn.skip_every = 3;
	ck_assert_int_eq(pool_pipeline(30, 2, first, then, &sn), 0);
	ck_assert_int_eq(atomic_load(&sn.firsts_done), 30);
	for (size_t i = 0; i < 30; i++)
		ck_assert_int_eq(atomic_load(&sn.runs[i]), i % 3 != 1);
	ck_assert_int_eq(sn.then_before_first, 0);
	ck_assert_int_le(atomic_load(&sn.most), 2);
	/* the caller waits for a thread before it goes on */
	ck_assert_int_le(sn.most_unfinished, 2);
	ck_assert_int_eq(sn.on_caller, 0);
}
END_TEST

START_TEST(pipeline_one_thread)
{
	seen_init(2000);
	ck_assert_int_eq(pool_pipeline(12, 1, first, then, &sn), 0);
	each_ran_once(12);
	for (size_t i = 0; i < 12; i++)
		ck_assert_uint_eq(sn.order[i], i);
	ck_assert_int_le(sn.most_unfinished, 1);
	ck_assert_uint_eq(sn.nthreads, 1);
	ck_assert_int_eq(sn.on_caller, 0);
}
END_TEST

START_TEST(pipeline_without_threads)
{
	seen_init(0);
	creates_left = 0;
	ck_assert_int_eq(pool_pipeline(10, 2, first, then, &sn), -1);
	each_ran_once(10);
	ck_assert_int_eq(sn.on_caller, 10);
	/* each second stage right after its first */
	ck_assert_int_eq(sn.most_unfinished, 0);
}
END_TEST

static Suite *pool_suite(void)
{
	Suite *s = suite_create("pool");
	TCase *tc;

	tc = tcase_create("run");
	tcase_add_test(tc, every_job_once);
	tcase_add_test(tc, one_thread_in_order);
	tcase_add_test(tc, more_threads_than_jobs);
	tcase_add_test(tc, zero_jobs);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads refused");
	tcase_add_test(tc, no_thread_runs_inline);
	tcase_add_test(tc, some_threads_and_the_caller);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("pipeline");
	tcase_add_test(tc, pipeline_order_and_bound);
	tcase_add_test(tc, pipeline_one_thread);
	tcase_add_test(tc, pipeline_without_threads);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pool_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
