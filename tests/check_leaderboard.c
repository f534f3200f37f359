/*
 * Leaderboards (grader/leaderboard.c): pseudonyms against a published
 * HMAC-SHA256 vector, boards kept apart per device, ranking, the CSV and
 * markdown renderings, the command, and the HTML page in real headless
 * Chromium (tests/browser/check-html): the tables sort when a header is
 * clicked, the SVG chart draws its bars, the page fits a phone's width,
 * and screenshots are kept in build/tests/browser/.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats.h"
#include "grade.h"
#include "leaderboard.h"
#include "report.h"
#include "sample_results.h"

static char dir[64];

static void put(const char *name, struct grade_result *r, int exit_status)
{
	char path[256];
	char *doc = report_json(r);

	if (exit_status >= 0) {
		/* as batch stores it */
		json_t *v = json_loads(doc, 0, NULL);

		json_object_set_new(v, "grader_exit",
				    json_integer(exit_status));
		free(doc);
		doc = json_dumps(v, JSON_INDENT(2));
		json_decref(v);
	}
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	ck_assert_int_eq(write_file_atomic(path, doc, strlen(doc)), 0);
	free(doc);
	result_release(r);
}

#define H100 "NVIDIA H100 80GB HBM3"
#define A100 "NVIDIA A100-SXM4-40GB"
#define EMU "warpgrade emulator (sm_90 model)"

static void setup(void)
{
	struct grade_result r;

	snprintf(dir, sizeof(dir), "/tmp/wg-lb-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	sample_result(&r, "alice", "cuda", H100, sample_all_ok, 0.95);
	put("alice", &r, 0);
	sample_result(&r, "bob", "cuda", H100, sample_all_ok, 0.6);
	put("bob", &r, 0);
	/* same score as bob (capped performance), faster: ranks first */
	sample_result(&r, "carol", "cuda", H100, sample_mixed, 0.8);
	put("carol", &r, 0);
	sample_result(&r, "dave", "cuda", A100, sample_all_ok, 0.99);
	put("dave", &r, 0);
	sample_result(&r, "erin", "emu", EMU, sample_all_ok, 1.0);
	put("erin", &r, 0);
	sample_result(&r, "=frank<script>", "emu", EMU, sample_mixed, 0.9);
	put("=frank<script>", &r, 0);
	sample_unusable(&r, "gina");
	put("gina", &r, 1);
	sample_result(&r, "hank", "cuda", H100, sample_internal, 1);
	put("hank", &r, 3);
	/* other views and stray files are not results */
	{
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/alice.gradescope.json", dir);
		f = fopen(path, "w");
		fputs("{\"score\": 1}", f);
		fclose(f);
		snprintf(path, sizeof(path), "%s/.lock", dir);
		f = fopen(path, "w");
		fclose(f);
	}
}

static void teardown(void)
{
	remove_tree(dir);
}

static const struct lb_board *board(const struct leaderboard *lb,
				    const char *device)
{
	for (size_t i = 0; i < lb->nboards; i++)
		if (!strcmp(lb->boards[i].device, device))
			return &lb->boards[i];
	return NULL;
}

START_TEST(pseudonym_vector)
{
	char p[LB_PSEUDONYM_LEN], q[LB_PSEUDONYM_LEN];

	/* HMAC-SHA256("key", "The quick brown fox jumps over the lazy
	 * dog") = f7bc83f430538424b13298e6aa6fb143... */
	leaderboard_pseudonym("key", 3,
			      "The quick brown fox jumps over the lazy dog",
			      p);
	ck_assert_str_eq(p, "anon-f7bc83f430");
	leaderboard_pseudonym("key2", 4, "alice", p);
	leaderboard_pseudonym("key2", 4, "alice", q);
	ck_assert_str_eq(p, q);
	leaderboard_pseudonym("key3", 4, "alice", q);
	ck_assert_str_ne(p, q);
}
END_TEST

START_TEST(boards_per_device)
{
	struct leaderboard lb;
	const struct lb_board *b;

	ck_assert_int_eq(leaderboard_load(&lb, dir, NULL, 0), 0);
	ck_assert_uint_eq(lb.nentries, 8);
	ck_assert_uint_eq(lb.nboards, 3);
	ck_assert_uint_eq(lb.nunranked, 2);
	ck_assert_str_eq(lb.unranked[0]->name, "gina");
	ck_assert_str_eq(lb.unranked[1]->name, "hank");
	b = board(&lb, H100);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->n, 3);
	for (size_t i = 0; i + 1 < b->n; i++) {
		/* score, then geometric-mean speedup */
		ck_assert(b->e[i]->r.score >= b->e[i + 1]->r.score);
		if (b->e[i]->r.score == b->e[i + 1]->r.score)
			ck_assert(b->e[i]->geomean >= b->e[i + 1]->geomean);
		ck_assert_int_eq(b->e[i]->rank, (int)i + 1);
	}
	ck_assert_str_eq(b->e[0]->name, "alice");
	b = board(&lb, A100);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->n, 1);
	ck_assert_int_eq(b->e[0]->rank, 1);
	b = board(&lb, EMU);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->n, 2);
	ck_assert_str_eq(b->backend, "emu");
	leaderboard_release(&lb);
}
END_TEST

START_TEST(ties_share_a_rank)
{
	struct leaderboard lb;
	struct grade_result r;
	const struct lb_board *b;

	sample_result(&r, "zed", "cuda", A100, sample_all_ok, 0.99);
	put("zed", &r, 0);
	ck_assert_int_eq(leaderboard_load(&lb, dir, NULL, 0), 0);
	b = board(&lb, A100);
	ck_assert_uint_eq(b->n, 2);
	ck_assert_int_eq(b->e[0]->rank, 1);
	ck_assert_int_eq(b->e[1]->rank, 1);
	ck_assert_str_eq(b->e[0]->name, "dave");
	leaderboard_release(&lb);
}
END_TEST

START_TEST(pseudonyms_hide_names)
{
	struct leaderboard lb;
	char *html, *csv, *md;
	static const char *const real[] = { "alice", "bob", "carol", "dave",
					    "erin", "frank", "gina", "hank" };

	ck_assert_int_eq(leaderboard_load(&lb, dir, "s3cret", 6), 0);
	html = leaderboard_html(&lb);
	csv = leaderboard_csv(&lb);
	md = leaderboard_md(&lb);
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		ck_assert_msg(!strstr(html, real[i]), "%s in html", real[i]);
		ck_assert_msg(!strstr(csv, real[i]), "%s in csv", real[i]);
		ck_assert_msg(!strstr(md, real[i]), "%s in md", real[i]);
	}
	ck_assert_ptr_nonnull(strstr(html, "anon-"));
	free(html);
	free(csv);
	free(md);
	leaderboard_release(&lb);
}
END_TEST

START_TEST(csv_rows)
{
	struct leaderboard lb;
	char *csv;
	size_t rows = 0, cols = 1;

	ck_assert_int_eq(leaderboard_load(&lb, dir, NULL, 0), 0);
	csv = leaderboard_csv(&lb);
	for (const char *p = csv; *p; p++)
		rows += *p == '\n';
	ck_assert_uint_eq(rows, 1 + lb.nentries);
	for (const char *p = csv; *p != '\r'; p++)
		cols += *p == ',';
	ck_assert_uint_eq(cols, 9 + 4 * exercise_count());
	/* a name starting with '=' is not a spreadsheet formula */
	ck_assert_ptr_nonnull(strstr(csv, ",\"'=frank<script>\","));
	free(csv);
	leaderboard_release(&lb);
}
END_TEST

START_TEST(html_self_contained)
{
	struct leaderboard lb;
	char *html;

	ck_assert_int_eq(leaderboard_load(&lb, dir, NULL, 0), 0);
	html = leaderboard_html(&lb);
	ck_assert_ptr_null(strstr(html, "http://"));
	ck_assert_ptr_null(strstr(html, "https://"));
	ck_assert_ptr_null(strstr(html, " src="));
	ck_assert_ptr_null(strstr(html, "<link"));
	/* the hostile name is text, not markup */
	ck_assert_ptr_null(strstr(html, "<script>\""));
	ck_assert_ptr_null(strstr(html, "=frank<script>"));
	ck_assert_ptr_nonnull(strstr(html, "=frank&lt;script&gt;"));
	ck_assert_ptr_nonnull(strstr(html, "name=\"viewport\""));
	ck_assert_uint_eq(lb.nboards, 3);
	free(html);
	leaderboard_release(&lb);
}
END_TEST

START_TEST(command)
{
	char secret[256], out_html[256], out_csv[256], out_md[256];
	char *argv[12];
	FILE *f;
	int n = 0;

	snprintf(secret, sizeof(secret), "%s.secret", dir);
	f = fopen(secret, "w");
	fputs("course secret\n", f);
	fclose(f);
	snprintf(out_html, sizeof(out_html), "%s.html", dir);
	snprintf(out_csv, sizeof(out_csv), "%s.csv", dir);
	snprintf(out_md, sizeof(out_md), "%s.md", dir);
	argv[n++] = "leaderboard";
	argv[n++] = dir;
	argv[n++] = "--html";
	argv[n++] = out_html;
	argv[n++] = "--csv";
	argv[n++] = out_csv;
	argv[n++] = "--md";
	argv[n++] = out_md;
	argv[n++] = "--secret-file";
	argv[n++] = secret;
	argv[n] = NULL;
	ck_assert_int_eq(leaderboard_main(n, argv), 0);
	ck_assert_int_eq(access(out_html, R_OK), 0);
	ck_assert_int_eq(access(out_csv, R_OK), 0);
	ck_assert_int_eq(access(out_md, R_OK), 0);
	{
		char *md = read_file(out_md, 1 << 20, NULL);
		char p[LB_PSEUDONYM_LEN];

		/* the trailing newline is not part of the secret */
		leaderboard_pseudonym("course secret", 13, "alice", p);
		ck_assert_ptr_nonnull(strstr(md, p));
		free(md);
	}
	/* an empty secret is refused */
	f = fopen(secret, "w");
	fclose(f);
	ck_assert_int_eq(leaderboard_main(n, argv), 2);
	unlink(secret);
	unlink(out_html);
	unlink(out_csv);
	unlink(out_md);
	argv[1] = "/nonexistent/results";
	ck_assert_int_eq(leaderboard_main(2, argv), 2);
}
END_TEST

/* ---- the page in a real browser ---- */

static void check_sorted(json_t *arr, int ascending)
{
	for (size_t i = 0; i + 1 < json_array_size(arr); i++) {
		double a = json_number_value(json_array_get(arr, i));
		double b = json_number_value(json_array_get(arr, i + 1));

		ck_assert_msg(ascending ? a <= b : a >= b,
			      "not sorted %s at %zu: %g, %g",
			      ascending ? "ascending" : "descending", i, a, b);
	}
}

START_TEST(browser_renders_and_sorts)
{
	struct leaderboard lb;
	char page[256], cmd[512], *html, *probe;
	const char *outdir = "build/tests/browser";
	json_error_t je;
	json_t *v, *t, *c;
	FILE *p;
	size_t len = 0, i;
	int rc;

	ck_assert_int_eq(leaderboard_load(&lb, dir, NULL, 0), 0);
	html = leaderboard_html(&lb);
	snprintf(page, sizeof(page), "%s/page.html", dir);
	ck_assert_int_eq(write_file_atomic(page, html, strlen(html)), 0);
	free(html);
	snprintf(cmd, sizeof(cmd), "tests/browser/check-html %s %s", page,
		 outdir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	probe = xmalloc(1 << 16);
	len = fread(probe, 1, (1 << 16) - 1, p);
	probe[len] = '\0';
	rc = pclose(p);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
		/* the script printed the SKIP line */
		fputs(probe, stdout);
		goto out;
	}
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
		      "check-html failed (see %s/chromium.log)", outdir);
	v = json_loads(probe, 0, &je);
	ck_assert_msg(v != NULL, "no probe result from the page: '%s'",
		      probe);
	ck_assert_uint_eq(json_array_size(json_object_get(v, "errors")), 0);
	/* every board's table rendered, with every entry, and sorts */
	ck_assert_uint_eq(json_array_size(json_object_get(v, "tables")),
			  lb.nboards);
	json_array_foreach(json_object_get(v, "tables"), i, t) {
		ck_assert_uint_eq(json_integer_value(json_object_get(t,
				  "rows")), lb.boards[i].n);
		ck_assert_uint_eq(json_integer_value(json_object_get(t,
				  "columns")), 5 + 3 * exercise_count());
		ck_assert_str_eq(json_string_value(json_object_get(t,
				 "ascSort")), "ascending");
		ck_assert_str_eq(json_string_value(json_object_get(t,
				 "descSort")), "descending");
		check_sorted(json_object_get(t, "asc"), 1);
		check_sorted(json_object_get(t, "desc"), 0);
		ck_assert(json_number_value(json_object_get(t,
			  "rowHeight")) > 10);
	}
	/* the charts drew a bar per entry where bandwidth is measured */
	ck_assert_uint_eq(json_array_size(json_object_get(v, "charts")),
			  lb.nboards);
	json_array_foreach(json_object_get(v, "charts"), i, c) {
		json_t *bars = json_object_get(c, "bars"), *w;
		size_t k;

		ck_assert(json_number_value(json_object_get(c, "width")) >
			  200);
		ck_assert(json_number_value(json_object_get(c, "height")) >
			  20);
		if (!strcmp(lb.boards[i].backend, "emu")) {
			ck_assert_uint_eq(json_array_size(bars), 0);
			continue;
		}
		ck_assert_uint_eq(json_array_size(bars), lb.boards[i].n);
		json_array_foreach(bars, k, w)
			ck_assert(json_number_value(w) > 1);
	}
	/* on a phone the page itself does not scroll sideways: the wide
	 * tables scroll inside their own box */
	ck_assert_int_le(json_integer_value(json_object_get(v, "pageWidth")),
			 json_integer_value(json_object_get(v, "viewport")));
	{
		char png[256];
		struct stat st;

		snprintf(png, sizeof(png), "%s/leaderboard-phone.png",
			 outdir);
		ck_assert_int_eq(stat(png, &st), 0);
		ck_assert_int_gt(st.st_size, 5000);
		printf("browser: screenshots in %s/\n", outdir);
	}
	json_decref(v);
out:
	free(probe);
	leaderboard_release(&lb);
}
END_TEST

static Suite *leaderboard_suite(void)
{
	Suite *s = suite_create("leaderboard");
	TCase *tc;

	tc = tcase_create("pseudonyms");
	tcase_add_test(tc, pseudonym_vector);
	suite_add_tcase(s, tc);

	tc = tcase_create("ranking");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, boards_per_device);
	tcase_add_test(tc, ties_share_a_rank);
	tcase_add_test(tc, pseudonyms_hide_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("outputs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, csv_rows);
	tcase_add_test(tc, html_self_contained);
	tcase_add_test(tc, command);
	suite_add_tcase(s, tc);

	tc = tcase_create("browser");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, browser_renders_and_sorts);
	tcase_set_timeout(tc, 400);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(leaderboard_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
