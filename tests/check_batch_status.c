/*
 * Progress across shards (grader/batch_status.c): the manifest and shard
 * state files a batch run writes, and `warpgrade batch --status` reading
 * them back -- done / total, the verdicts, what failed to grade, what is
 * missing and which shard owes it, and its exit status.  The results are
 * written here directly, the way batch stores them.
 */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch_status.h"
#include "result_json.h"
#include "sample_results.h"

static char root[64], res[128];
static char *out_text;

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/wg-status-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(res, sizeof(res), "%s/results", root);
	ck_assert_int_eq(mkdir(res, 0755), 0);
	out_text = NULL;
}

static void teardown(void)
{
	free(out_text);
	remove_tree(root);
}

/* `warpgrade batch ARGS...`, through batch_status_main in a child with
 * its stdout in out_text; returns the exit status. */
static int status_cmd(const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { "batch", (char *)a1, (char *)a2, (char *)a3, NULL };
	int argc = a3 ? 4 : a2 ? 3 : a1 ? 2 : 1;
	char path[256];
	pid_t pid;
	int ws;

	ck_assert(batch_status_wanted(argc, argv));
	snprintf(path, sizeof(path), "%s/stdout", root);
	fflush(stdout);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int rc;

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(99);
		rc = batch_status_main(argc, argv);
		fflush(stdout);
		_exit(rc);
	}
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	free(out_text);
	out_text = read_file(path, 1 << 20, NULL);
	ck_assert_ptr_nonnull(out_text);
	return WEXITSTATUS(ws);
}

static void has(const char *want)
{
	ck_assert_msg(strstr(out_text, want) != NULL, "'%s' not in:\n%s",
		      want, out_text);
}

/* A stored result: which 0 graded, 1 unusable, 3 internal error. */
static void store(const char *name, int which)
{
	struct grade_result r;
	char path[256], *doc;
	json_t *v;

	if (which == 1)
		sample_unusable(&r, name);
	else if (which == 3)
		sample_result(&r, name, "emu", "warpgrade emulator",
			      sample_internal, 1);
	else
		sample_result(&r, name, "emu", "warpgrade emulator",
			      which == 2 ? sample_mixed : sample_all_ok, 1);
	doc = result_json(&r);
	v = json_loads(doc, 0, NULL);
	ck_assert_ptr_nonnull(v);
	json_object_set_new(v, "grader_exit", json_integer(which == 2 ?
							   0 : which));
	snprintf(path, sizeof(path), "%s/%s.json", res, name);
	ck_assert_int_eq(json_dump_file(v, path, 0), 0);
	json_decref(v);
	free(doc);
	result_release(&r);
}

static const char *const files[] = { "ann.zip", "bob.tar.gz", "cat.cu",
				     "dan", "eve.zip", "fay.zip" };
static const char *const names[] = { "ann", "bob", "cat", "dan", "eve",
				     "fay" };

/* Shards 0/2 and 1/2 of the six entries; the first has finished. */
static void two_shards(void)
{
	struct shard a = { 0, 2 }, b = { 1, 2 };
	struct batch_stats st;

	ck_assert_int_eq(batch_status_begin(res, root, &a, files, names, 6,
					    3), 0);
	memset(&st, 0, sizeof(st));
	st.graded = 3;
	st.internal = 1;
	batch_status_end(res, &a, &st, BATCH_INTERNAL);
	ck_assert_int_eq(batch_status_begin(res, root, &b, files, names, 6,
					    3), 0);
}

START_TEST(wanted)
{
	char *a[] = { "batch", "subs", "--out", "r", NULL };
	char *b[] = { "batch", "--quiet", "--status=r", NULL };
	char *c[] = { "batch", "--", "--status", NULL };

	ck_assert(!batch_status_wanted(4, a));
	ck_assert(batch_status_wanted(3, b));
	ck_assert(!batch_status_wanted(3, c));
}
END_TEST

START_TEST(no_batch_here)
{
	ck_assert_int_eq(status_cmd("--status", res, NULL), 2);
	ck_assert_int_eq(status_cmd("--status", NULL, NULL), 2);
	ck_assert_int_eq(status_cmd("--status", res, "extra"), 2);
}
END_TEST

START_TEST(state_files)
{
	char path[256];
	json_t *m, *s;

	two_shards();
	snprintf(path, sizeof(path), "%s/.manifest.json", res);
	m = json_load_file(path, 0, NULL);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(json_array_size(json_object_get(m, "entries")), 6);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(m, "entries"), 1), "file")), "bob.tar.gz");
	json_decref(m);
	snprintf(path, sizeof(path), "%s/.shards/0-of-2.json", res);
	s = json_load_file(path, 0, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_string_value(json_object_get(s, "state")),
			 "finished");
	ck_assert_int_eq(json_integer_value(json_object_get(s, "graded")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "exit")),
			 BATCH_INTERNAL);
	json_decref(s);
	snprintf(path, sizeof(path), "%s/.shards/1-of-2.json", res);
	s = json_load_file(path, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(s, "state")),
			 "running");
	ck_assert_int_eq(json_integer_value(json_object_get(s, "pid")),
			 getpid());
	json_decref(s);
}
END_TEST

START_TEST(partial_progress)
{
	char path[256];

	two_shards();
	store("ann", 0);  /* shard 0 */
	store("bob", 2);  /* shard 1: CE TECH WA OK */
	store("cat", 3);  /* shard 0: internal error */
	store("eve", 1);  /* shard 0: unusable */
	/* fay: a half-written file is never there; a foreign one is */
	snprintf(path, sizeof(path), "%s/fay.json", res);
	{
		FILE *f = fopen(path, "w");

		fputs("{\"not\": \"a result\"}\n", f);
		fclose(f);
	}
	ck_assert_int_eq(status_cmd("--status", res, NULL), 1);
	has("3 of 6 submissions done");
	has("graded           2");
	has("unusable         1");
	has("failed to grade  1");
	has("unreadable       1");
	has("missing          1");
	has("coalesced_transpose    CE 1 OK 1");
	has("  dynamic_reverse        OK 2\n");
	has("0/2     finished, 3 entries");
	has("3 graded, 0 skipped, 1 failed to grade");
	has("1/2     running, 3 entries");
	/* who owes what */
	has("  cat  (shard 0/2)  see cat.json and cat.log");
	has("missing (1):\n  dan  (shard 1/2)");
	has("  fay  (shard 1/2)");
}
END_TEST

START_TEST(vanished_shard)
{
	struct shard sh = { 1, 3 };
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* a shard that starts and is killed before it ends */
		batch_status_begin(res, root, &sh, files, names, 6, 2);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_int_eq(status_cmd("--status", res, NULL), 1);
	has("1/3     running but its process is gone: rerun the shard");
}
END_TEST

START_TEST(all_done)
{
	char *argv[] = { "batch", "--status", res, NULL };

	two_shards();
	for (int i = 0; i < 6; i++)
		store(names[i], i == 4 ? 1 : 0);
	ck_assert_int_eq(status_cmd("--status", res, NULL), 0);
	has("6 of 6 submissions done");
	has("missing          0");
	ck_assert_ptr_null(strstr(out_text, "missing ("));
	(void)argv;
}
END_TEST

START_TEST(long_lists_are_cut)
{
	const char *f[30], *n[30];
	char buf[30][16];
	struct shard whole = { 0, 1 };

	for (int i = 0; i < 30; i++) {
		snprintf(buf[i], sizeof(buf[i]), "s%02d", i);
		f[i] = n[i] = buf[i];
	}
	ck_assert_int_eq(batch_status_begin(res, root, &whole, f, n, 30, 30),
			 0);
	ck_assert_int_eq(status_cmd("--status", res, NULL), 1);
	has("missing (30):");
	has("  s19\n  ... and 10 more (--verbose lists them all)");
	ck_assert_ptr_null(strstr(out_text, "(shard"));
	ck_assert_int_eq(status_cmd("--status", res, "--verbose"), 1);
	has("  s29\n");
}
END_TEST

static Suite *status_suite(void)
{
	Suite *s = suite_create("batch_status");
	TCase *tc;

	tc = tcase_create("command");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, wanted);
	tcase_add_test(tc, no_batch_here);
	suite_add_tcase(s, tc);

	tc = tcase_create("progress");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, state_files);
	tcase_add_test(tc, partial_progress);
	tcase_add_test(tc, vanished_shard);
	tcase_add_test(tc, all_done);
	tcase_add_test(tc, long_lists_are_cut);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(status_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
