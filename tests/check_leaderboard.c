/*
 * Leaderboards (grader/leaderboard.c): pseudonyms against a published
 * HMAC-SHA256 vector, boards kept apart per device, ranking, the CSV and
 * markdown renderings, hostile names (escape sequences, formulas,
 * markup) made inert in every view, the command, and the HTML page in
 * real headless Chromium (tests/browser/check-html): the tables sort when
 * a header is clicked, the SVG chart draws its bars, the page fits a
 * phone's width, and screenshots are kept in build/tests/browser/.
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
#include "result_json.h"
#include "sample_results.h"

static char dir[64];

static void put(const char *name, struct grade_result *r, int exit_status)
{
	char path[256];
	char *doc = result_json(r);

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

/* ---- hostile names ---- */

/* Names a submitter picks (a result's name is its file name, which may
 * hold any byte but '/'): terminal escapes (colour, window title, a
 * bell, CSI as a lone C1 byte and as UTF-8), DEL, spreadsheet formulas
 * behind blanks, a pipe and a newline, markdown and HTML markup, and a
 * plain non-ASCII name, which must survive.  A name cannot hold the '/'
 * of "=cmd|' /C calc'!A0"; a device can. */
static const char *const hostile[] = {
	"\x1b[31mred", "\x1b]0;title\x07", "ding\x07", "csi\x9b" "2J",
	"utf8csi\xc2\x9b" "2J", "del\x7f", "\t=cmd|' C calc'!A0", " +1+1",
	"-2", "@SUM(1)", "\r=1+1", "\n-1", "pipe|and\nnewline",
	"[x](javascript:alert(1))", "<script>alert(1)", "Zo\xc3\xab \xc5\x81ukasz",
};

#define EVIL_DEVICE "GPU\x1b[2J\t| x\n## y"
#define FORMULA_DEVICE "\t=cmd|' /C calc'!A0"
#define EVIL_BACKEND "<b>\x1b]8;;x\x07"

static void setup_hostile(void)
{
	struct grade_result r;

	snprintf(dir, sizeof(dir), "/tmp/wg-lb-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		sample_result(&r, hostile[i], "cuda", H100, sample_all_ok,
			      0.5 + 0.03 * (double)i);
		put(hostile[i], &r, 0);
	}
	sample_result(&r, "on-evil-device", "cuda", EVIL_DEVICE,
		      sample_all_ok, 0.7);
	put("on-evil-device", &r, 0);
	sample_result(&r, "on-formula-device", "cuda", FORMULA_DEVICE,
		      sample_all_ok, 0.7);
	put("on-formula-device", &r, 0);
	sample_result(&r, "on-evil-backend", EVIL_BACKEND, H100,
		      sample_all_ok, 0.7);
	put("on-evil-backend", &r, 0);
	sample_unusable(&r, "\x1b[5m=gone|\n");
	put("\x1b[5m=gone|\n", &r, 1);
}

/* Valid UTF-8 without a control character (C0, DEL, C1) but newlines,
 * and CR only as the CR LF that ends a CSV row. */
static void assert_inert(const char *doc, const char *what, int crlf)
{
	const unsigned char *p = (const unsigned char *)doc;

	while (*p) {
		size_t off = (size_t)(p - (const unsigned char *)doc);
		unsigned cp = *p;
		int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 :
			  (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 :
			  0;

		ck_assert_msg(len, "%s: invalid UTF-8 at byte %zu", what, off);
		if (len > 1)
			cp &= 0x3F >> (len - 1);
		for (int k = 1; k < len; k++) {
			ck_assert_msg((p[k] & 0xC0) == 0x80, "%s: invalid "
				      "UTF-8 at byte %zu", what, off);
			cp = cp << 6 | (p[k] & 0x3F);
		}
		if (!(cp == '\n' || (crlf && cp == '\r' && p[1] == '\n')))
			ck_assert_msg(cp >= 0x20 && !(cp >= 0x7F && cp < 0xA0),
				      "%s: control character U+%04X at byte "
				      "%zu", what, cp, off);
		p += len;
	}
}

/* No CSV field is a formula to a spreadsheet, and every row has every
 * column. */
static void assert_no_formula(const char *csv, size_t rows)
{
	char field[512];
	size_t n = 0, cols = 0, nrows = 0;
	int quoted = 0;

	for (const char *p = csv; *p; p++) {
		const char *q;

		ck_assert_uint_lt(n, sizeof(field) - 2);
		if (quoted) {
			if (*p == '"' && p[1] == '"')
				field[n++] = *p++;
			else if (*p == '"')
				quoted = 0;
			else
				field[n++] = *p;
			continue;
		}
		if (*p == '"') {
			quoted = 1;
			continue;
		}
		if (*p != ',' && *p != '\r') {
			field[n++] = *p;
			continue;
		}
		field[n] = '\0';
		q = field + strspn(field, " \t\r\n");
		ck_assert_msg(field[0] != '\t' && field[0] != '\r' &&
			      (!*q || !strchr("=+-@", *q)),
			      "a formula in the CSV: '%s'", field);
		n = 0;
		cols++;
		if (*p == '\r') {
			ck_assert_int_eq(p[1], '\n');
			p++;
			ck_assert_uint_eq(cols, 9 + 4 * exercise_count());
			cols = 0;
			nrows++;
		}
	}
	ck_assert_uint_eq(nrows, rows);
}

/* Every row of every markdown table has all its cells: a name's pipe is
 * escaped and its newline is a space. */
static void assert_md_rows(const char *md)
{
	size_t rows = 0;

	for (const char *l = md; *l; l = strchr(l, '\n') + 1) {
		size_t pipes = 0;

		if (*l == '|') {
			rows++;
			for (const char *p = l; *p && *p != '\n'; p++) {
				if (*p == '\\' && p[1])
					p++;
				else if (*p == '|')
					pipes++;
			}
			ck_assert_uint_eq(pipes, 6 + exercise_count());
		}
		if (!strchr(l, '\n'))
			break;
	}
	ck_assert_uint_gt(rows, 0);
}

START_TEST(hostile_names_inert)
{
	struct leaderboard lb;
	char *html, *csv, *md;
	const char *zoe = "Zo\xc3\xab \xc5\x81ukasz";

	ck_assert_int_eq(leaderboard_load(&lb, dir, NULL, 0), 0);
	ck_assert_uint_eq(lb.nunranked, 1);
	html = leaderboard_html(&lb);
	csv = leaderboard_csv(&lb);
	md = leaderboard_md(&lb);
	assert_inert(html, "html", 0);
	assert_inert(md, "markdown", 0);
	assert_inert(csv, "csv", 1);
	ck_assert_ptr_null(strchr(html, '\t'));
	ck_assert_ptr_null(strchr(md, '\t'));
	ck_assert_ptr_null(strchr(csv, '\t'));
	/* a non-ASCII name is kept as it is */
	ck_assert_ptr_nonnull(strstr(html, zoe));
	ck_assert_ptr_nonnull(strstr(csv, zoe));
	ck_assert_ptr_nonnull(strstr(md, zoe));
	/* an escape sequence loses its ESC and keeps the rest */
	ck_assert_ptr_nonnull(strstr(csv, FORMATS_REPLACEMENT "[31mred"));

	/* the CSV: formulas quoted behind a single quote */
	assert_no_formula(csv, 1 + lb.nentries);
	ck_assert_ptr_nonnull(strstr(csv, ",\"' =cmd|' C calc'!A0\","));
	ck_assert_ptr_nonnull(strstr(csv, "\r\ncuda,\"' =cmd|' /C calc'!A0\","));
	ck_assert_ptr_nonnull(strstr(csv, ",\"' +1+1\","));
	ck_assert_ptr_nonnull(strstr(csv, ",\"'-2\","));
	ck_assert_ptr_nonnull(strstr(csv, ",\"'@SUM(1)\","));
	ck_assert_ptr_nonnull(strstr(csv, ",\"' =1+1\","));
	ck_assert_ptr_nonnull(strstr(csv, ",\"' -1\","));

	/* the markdown: tables whole, no link, no raw HTML */
	assert_md_rows(md);
	ck_assert_ptr_nonnull(strstr(md, "| pipe\\|and newline |"));
	ck_assert_ptr_nonnull(strstr(md, "\\[x\\](javascript:alert(1))"));
	ck_assert_ptr_null(strstr(md, "[x]"));
	ck_assert_ptr_null(strstr(md, "<script>"));
	ck_assert_ptr_null(strstr(md, "<b>"));
	ck_assert_ptr_nonnull(strstr(md, "\\<script\\>alert(1)"));
	/* the device is one heading line, the backend no markup */
	ck_assert_ptr_nonnull(strstr(md, "\n## GPU" FORMATS_REPLACEMENT
				     "\\[2J \\| x \\#\\# y (GPU)\n"));
	ck_assert_ptr_nonnull(strstr(md, "(\\<b\\>" FORMATS_REPLACEMENT
				     "\\]8;;x" FORMATS_REPLACEMENT ")\n"));

	/* the page: text, not markup */
	ck_assert_ptr_null(strstr(html, "<script>alert"));
	ck_assert_ptr_null(strstr(html, "<b>"));
	ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;alert(1)"));
	ck_assert_ptr_nonnull(strstr(html, "<small>(&lt;b&gt;"));
	free(html);
	free(csv);
	free(md);
	leaderboard_release(&lb);
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

	tc = tcase_create("hostile names");
	tcase_add_checked_fixture(tc, setup_hostile, teardown);
	tcase_add_test(tc, hostile_names_inert);
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
