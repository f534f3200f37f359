/*
 * Shards of a batch (grader/shard.c): K/N and the Slurm array variables
 * parsed or refused with the reason, slices that cover the directory
 * exactly once, and sharded batches -- run side by side into one results
 * directory, with a fake grader standing in for `warpgrade grade` -- that
 * give the results of one unsharded batch and resume like it.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"
#include "result_json.h"
#include "sample_results.h"
#include "shard.h"

/* ---- K/N ---- */

START_TEST(parse_good)
{
	struct shard sh;
	char err[256];

	ck_assert_int_eq(shard_parse(&sh, "0/1", err, sizeof(err)), 0);
	ck_assert_uint_eq(sh.k, 0);
	ck_assert_uint_eq(sh.n, 1);
	ck_assert_int_eq(shard_parse(&sh, "3/4", err, sizeof(err)), 0);
	ck_assert_uint_eq(sh.k, 3);
	ck_assert_uint_eq(sh.n, 4);
	ck_assert_int_eq(shard_parse(&sh, "99999/100000", err, sizeof(err)),
			 0);
}
END_TEST

START_TEST(parse_bad)
{
	static const char *const bad[][2] = {
		{ "", "expected K/N" }, { "3", "expected K/N" },
		{ "1/", "expected K/N" }, { "/4", "expected K/N" },
		{ "-1/4", "expected K/N" }, { "1/+4", "expected K/N" },
		{ " 1/4", "expected K/N" }, { "1/4x", "expected K/N" },
		{ "1/2/3", "expected K/N" }, { "0/100001", "expected K/N" },
		{ "0/0", "N must be at least 1" },
		{ "4/4", "K must be 0 to 3" }, { "7/2", "K must be 0 to 1" },
	};
	struct shard sh;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		shard_init(&sh);
		ck_assert_int_eq(shard_parse(&sh, bad[i][0], err,
					     sizeof(err)), -1);
		ck_assert_msg(strstr(err, bad[i][1]) != NULL, "'%s': %s",
			      bad[i][0], err);
		/* the message names the text */
		ck_assert_msg(!*bad[i][0] || strstr(err, bad[i][0]) != NULL,
			      "'%s': %s", bad[i][0], err);
		ck_assert_uint_eq(sh.n, 1);
	}
}
END_TEST

/* ---- the Slurm array variables ---- */

static void slurm_env(const char *id, const char *count, const char *min,
		      const char *step)
{
	const char *names[] = { "SLURM_ARRAY_TASK_ID",
				"SLURM_ARRAY_TASK_COUNT",
				"SLURM_ARRAY_TASK_MIN",
				"SLURM_ARRAY_TASK_STEP" };
	const char *vals[] = { id, count, min, step };

	for (int i = 0; i < 4; i++) {
		if (vals[i])
			setenv(names[i], vals[i], 1);
		else
			unsetenv(names[i]);
	}
}

START_TEST(env_absent)
{
	struct shard sh;
	char err[256];

	slurm_env(NULL, "4", "0", "1");
	shard_init(&sh);
	ck_assert_int_eq(shard_from_env(&sh, err, sizeof(err)), 0);
	ck_assert_uint_eq(sh.k, 0);
	ck_assert_uint_eq(sh.n, 1);
}
END_TEST

START_TEST(env_ranges)
{
	static const struct {
		const char *id, *count, *min, *step;
		unsigned k, n;
	} cases[] = {
		{ "0", "4", "0", "1", 0, 4 },
		{ "3", "4", "0", "1", 3, 4 },
		{ "3", "4", NULL, NULL, 3, 4 },  /* older Slurm: no MIN */
		{ "5", "4", "3", "1", 2, 4 },    /* --array=3-6 */
		{ "7", "3", "1", "3", 2, 3 },    /* --array=1-7:3 */
		{ "12", "1", "12", "1", 0, 1 },  /* one task resubmitted */
	};
	struct shard sh;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		slurm_env(cases[i].id, cases[i].count, cases[i].min,
			  cases[i].step);
		ck_assert_int_eq(shard_from_env(&sh, err, sizeof(err)), 1);
		ck_assert_uint_eq(sh.k, cases[i].k);
		ck_assert_uint_eq(sh.n, cases[i].n);
	}
}
END_TEST

START_TEST(env_inconsistent)
{
	static const struct {
		const char *id, *count, *min, *step, *why;
	} cases[] = {
		{ "2", NULL, "0", "1", "SLURM_ARRAY_TASK_COUNT is not" },
		{ "x", "4", "0", "1", "bad SLURM_ARRAY_TASK_ID 'x'" },
		{ "2", "four", "0", "1", "bad SLURM_ARRAY_TASK_COUNT" },
		{ "9", "3", "1", "1", "not a range" },  /* --array=1,5,9 */
		{ "1", "3", "2", "1", "not a range" },
		{ "4", "3", "1", "2", "not a range" },
		{ "2", "0", "0", "1", "not a range" },
	};
	struct shard sh;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		slurm_env(cases[i].id, cases[i].count, cases[i].min,
			  cases[i].step);
		shard_init(&sh);
		ck_assert_int_eq(shard_from_env(&sh, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, cases[i].why) != NULL, "%zu: %s",
			      i, err);
		ck_assert_uint_eq(sh.n, 1);
	}
}
END_TEST

/* ---- slices ---- */

START_TEST(slices_cover_once)
{
	for (unsigned n = 1; n <= 9; n++)
		for (size_t total = 0; total <= 30; total++) {
			size_t owners[30] = { 0 }, sum = 0;

			for (unsigned k = 0; k < n; k++) {
				struct shard sh = { k, n };
				size_t mine = 0;

				for (size_t i = 0; i < total; i++)
					if (shard_owns(&sh, i)) {
						owners[i]++;
						mine++;
					}
				ck_assert_uint_eq(mine,
						  shard_count(&sh, total));
				/* balanced within one */
				ck_assert_uint_le(mine, total / n + 1);
				ck_assert_uint_ge(mine, total / n);
				sum += mine;
			}
			ck_assert_uint_eq(sum, total);
			for (size_t i = 0; i < total; i++)
				ck_assert_uint_eq(owners[i], 1);
		}
}
END_TEST

START_TEST(private_files)
{
	struct shard whole, one = { 2, 5 }, zero = { 0, 0 };
	char *p;

	shard_init(&whole);
	p = shard_file(&whole, "res", ".lock");
	ck_assert_str_eq(p, "res/.lock");
	free(p);
	p = shard_file(&zero, "res", ".work");
	ck_assert_str_eq(p, "res/.work");
	free(p);
	p = shard_file(&one, "res", ".work");
	ck_assert_str_eq(p, "res/.work-2-of-5");
	free(p);
}
END_TEST

/* ---- sharded batches ---- */

/* `fake grade SUB --format json --output OUT ...`: copies SUB (a JSON
 * result) to OUT after a short nap and logs the submission's name. */
static const char fake_script[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")\n"
	"sub=$2; out=; prev=\n"
	"for a in \"$@\"; do\n"
	"  [ \"$prev\" = --output ] && out=$a\n"
	"  prev=$a\n"
	"done\n"
	"sleep 0.05\n"
	"echo \"$(basename \"$sub\")\" >> \"$D/calls\"\n"
	"cp \"$sub\" \"$out\"\n";

static char root[64], subs[128], fake[128];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/wg-shard-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(subs, sizeof(subs), "%s/subs", root);
	snprintf(fake, sizeof(fake), "%s/fake-warpgrade", root);
	ck_assert_int_eq(mkdir(subs, 0755), 0);
	write_text(fake, fake_script);
	ck_assert_int_eq(chmod(fake, 0755), 0);
	/* 11 submissions, mixed statuses and scores */
	for (int i = 0; i < 11; i++) {
		struct grade_result r;
		char name[32], path[256], *doc;

		snprintf(name, sizeof(name), "student%02d", i);
		if (i == 7)
			sample_unusable(&r, name);
		else
			sample_result(&r, name, "emu", "warpgrade emulator",
				      i % 3 ? sample_all_ok : sample_mixed,
				      0.1 * (double)i);
		doc = result_json(&r);
		snprintf(path, sizeof(path), "%s/%s.cu", subs, name);
		write_text(path, doc);
		free(doc);
		result_release(&r);
	}
}

static void teardown(void)
{
	remove_tree(root);
}

static void opts(struct batch_opts *o, const char *out)
{
	memset(o, 0, sizeof(*o));
	shard_init(&o->shard);
	o->submissions = subs;
	o->out = out;
	o->warpgrade = fake;
	o->backend = "emu";
	o->jobs = 1;
	o->parallel = 1;
	o->timeout_s = 20;
}

static size_t calls(void)
{
	char path[256], *text;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/calls", root);
	text = read_file(path, 1 << 20, NULL);
	if (!text)
		return 0;
	for (char *p = text; *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

/* The stored result without what differs between two runs of the same
 * grading (the time it was written). */
static json_t *stored(const char *dir, const char *name)
{
	char path[512];
	json_t *v;

	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	v = json_load_file(path, 0, NULL);
	ck_assert_msg(v != NULL, "no result %s", path);
	json_object_del(v, "generated");
	return v;
}

/* Run the N shards of a batch at once, each in its own process. */
static void run_shards(const char *out, unsigned n)
{
	pid_t pids[16];

	for (unsigned k = 0; k < n; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (!pids[k]) {
			struct batch_opts o;
			struct batch_stats st;
			int rc;

			opts(&o, out);
			o.shard.k = k;
			o.shard.n = n;
			rc = batch_run(&o, &st);
			/* each shard grades its own slice only */
			_exit(rc == BATCH_OK &&
			      st.total == shard_count(&o.shard, 11) ? 0 : 1);
		}
	}
	for (unsigned k = 0; k < n; k++) {
		int ws;

		ck_assert_int_eq(waitpid(pids[k], &ws, 0), pids[k]);
		ck_assert_msg(WIFEXITED(ws) && !WEXITSTATUS(ws),
			      "shard %u/%u failed", k, n);
	}
}

START_TEST(shards_equal_one_batch)
{
	char whole[256], sharded[256];
	struct batch_opts o;

	snprintf(whole, sizeof(whole), "%s/whole", root);
	snprintf(sharded, sizeof(sharded), "%s/sharded", root);
	opts(&o, whole);
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_OK);
	ck_assert_uint_eq(calls(), 11);
	run_shards(sharded, 4);
	/* every submission graded once more, by exactly one shard */
	ck_assert_uint_eq(calls(), 22);
	for (int i = 0; i < 11; i++) {
		char name[32];
		json_t *a, *b;

		snprintf(name, sizeof(name), "student%02d", i);
		a = stored(whole, name);
		b = stored(sharded, name);
		ck_assert_msg(json_equal(a, b), "%s differs", name);
		json_decref(a);
		json_decref(b);
	}
	/* no shard left its private files behind but its lock */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/.work-1-of-4", sharded);
		ck_assert_int_ne(access(path, F_OK), 0);
		snprintf(path, sizeof(path), "%s/.shards/3-of-4.json",
			 sharded);
		ck_assert_int_eq(access(path, R_OK), 0);
	}
	/* a rerun of every shard grades nothing */
	run_shards(sharded, 4);
	ck_assert_uint_eq(calls(), 22);
}
END_TEST

START_TEST(rerun_of_one_shard_resumes)
{
	char out[256], path[512];
	struct batch_opts o;
	struct batch_stats st;

	snprintf(out, sizeof(out), "%s/res", root);
	run_shards(out, 3);
	ck_assert_uint_eq(calls(), 11);
	/* lose two results of shard 1 (entries 1, 4, 7, 10) and one of
	 * shard 2 */
	snprintf(path, sizeof(path), "%s/student04.json", out);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/student10.json", out);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/student05.json", out);
	ck_assert_int_eq(unlink(path), 0);
	opts(&o, out);
	o.shard.k = 1;
	o.shard.n = 3;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	ck_assert_uint_eq(st.total, 4);
	ck_assert_uint_eq(st.skipped, 2);
	ck_assert_uint_eq(st.graded, 2);
	ck_assert_uint_eq(calls(), 13);
	/* shard 2's loss is its own business */
	ck_assert_int_ne(access(path, F_OK), 0);
	/* the unsharded batch picks up whatever is left */
	opts(&o, out);
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	ck_assert_uint_eq(st.graded, 1);
	ck_assert_uint_eq(calls(), 14);
}
END_TEST

START_TEST(more_shards_than_submissions)
{
	char out[256];
	struct batch_opts o;
	struct batch_stats st;

	snprintf(out, sizeof(out), "%s/res", root);
	opts(&o, out);
	o.shard.k = 12;
	o.shard.n = 16;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	ck_assert_uint_eq(st.total, 0);
	ck_assert_uint_eq(calls(), 0);
}
END_TEST

static Suite *shard_suite(void)
{
	Suite *s = suite_create("shard");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("slurm");
	tcase_add_test(tc, env_absent);
	tcase_add_test(tc, env_ranges);
	tcase_add_test(tc, env_inconsistent);
	suite_add_tcase(s, tc);

	tc = tcase_create("slices");
	tcase_add_test(tc, slices_cover_once);
	tcase_add_test(tc, private_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("batch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, shards_equal_one_batch);
	tcase_add_test(tc, rerun_of_one_shard_resumes);
	tcase_add_test(tc, more_shards_than_submissions);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(shard_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
