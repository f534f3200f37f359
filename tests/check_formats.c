/*
 * The integration views (grader/formats.c): each one rendered from
 * constructed results covering every status and hostile text, parsed back
 * and validated against the schema written down from the platform's
 * specification in tests/schemas/; the JSON archive read back into the
 * same result; the grade command writing the views for an unusable
 * submission (no backend needed).
 */
#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats.h"
#include "grade.h"
#include "result_json.h"
#include "sample_results.h"
#include "schemas/validate.h"

enum sample { S_OK, S_MIXED, S_CE, S_INTERNAL, S_UNUSABLE, S_EMU, NSAMPLES };

static int sample_status(int which)
{
	return which == S_INTERNAL ? GRADE_INTERNAL :
	       which == S_UNUSABLE ? GRADE_UNUSABLE : GRADE_OK;
}

static void sample(int which, struct grade_result *r)
{
	ck_assert_uint_eq(exercise_count(), 4);
	switch (which) {
	case S_OK:
		sample_result(r, "alice", "cuda", "NVIDIA H100 80GB HBM3",
			      sample_all_ok, 0.9);
		break;
	case S_MIXED:
		sample_result(r, "bob " SAMPLE_HOSTILE, "cuda",
			      "NVIDIA H100 80GB HBM3", sample_mixed, 0.7);
		break;
	case S_CE:
		sample_result(r, "carol", "cuda", "NVIDIA H100 80GB HBM3",
			      sample_all_ce, 1);
		break;
	case S_INTERNAL:
		sample_result(r, "dave", "cuda", "NVIDIA H100 80GB HBM3",
			      sample_internal, 1.2);
		break;
	case S_UNUSABLE:
		sample_unusable(r, "erin");
		break;
	default:
		sample_result(r, "frank", "emu",
			      "warpgrade emulator (sm_90 model)",
			      sample_mixed, 1.1);
	}
}

static json_t *parse_json(const char *doc)
{
	json_error_t je;
	json_t *v = json_loads(doc, 0, &je);

	ck_assert_msg(v != NULL, "not JSON: %s (line %d)", je.text, je.line);
	return v;
}

static void validate(const char *schema, json_t *v)
{
	char path[256], err[512];

	snprintf(path, sizeof(path), "tests/schemas/%s", schema);
	ck_assert_msg(!schema_validate(path, v, err, sizeof(err)),
		      "%s: %s", schema, err);
}

/* ---- the archive format ---- */

START_TEST(archive_round_trip)
{
	struct grade_result r, back;
	char *a, *b, err[256];
	int st = -1;

	sample(_i, &r);
	a = result_json(&r);
	{
		json_t *v = parse_json(a);

		validate("result.schema.json", v);
		json_decref(v);
	}
	result_init(&back);
	ck_assert_msg(!result_json_parse(a, &back, &st, err, sizeof(err)), "%s",
		      err);
	b = result_json(&back);
	ck_assert_str_eq(a, b);
	/* with no grader_exit member, the status is what the result says */
	ck_assert_int_eq(st, sample_status(_i));
	ck_assert_uint_eq(back.nex, r.nex);
	for (size_t i = 0; i < r.nex; i++) {
		ck_assert_ptr_eq(back.ex[i].ex, r.ex[i].ex);
		ck_assert_int_eq(back.ex[i].status, r.ex[i].status);
		ck_assert(isnan(r.ex[i].speedup) ==
			  isnan(back.ex[i].speedup));
	}
	free(a);
	free(b);
	result_release(&r);
	result_release(&back);
}
END_TEST

START_TEST(archive_rejects)
{
	static const char *const bad[] = {
		"",
		"[1, 2]",
		"{\"tool\": \"other\", \"exercises\": []}",
		"{\"tool\": \"warpgrade\"}",
		"{\"tool\": \"warpgrade\", \"exercises\": "
		"[{\"name\": \"no_such_exercise\", \"status\": \"OK\"}]}",
		"{\"tool\": \"warpgrade\", \"exercises\": "
		"[{\"name\": \"padded_tile\", \"status\": \"GREAT\"}]}",
		"{\"tool\": \"warpgrade\", \"score\": \"lots\", "
		"\"exercises\": []}",
		/* scores every view prints: missing is not a result (found
		 * by fuzzing: the JSON view aborted on a NaN max_score) */
		"{\"tool\": \"warpgrade\", \"score\": 1, "
		"\"exercises\": []}",
		"{\"tool\": \"warpgrade\", \"score\": 1, \"max_score\": "
		"100, \"exercises\": [{\"name\": \"padded_tile\", "
		"\"status\": \"OK\", \"max_score\": 25}]}",
		"{\"tool\": \"warpgrade\", \"exercises\": [{\"name\": "
		"\"padded_tile\", \"status\": \"OK\", \"performance\": "
		"{\"speedup\": \"fast\"}}]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct grade_result r;
		char err[256] = "";

		result_init(&r);
		ck_assert_msg(result_json_parse(bad[i], &r, NULL, err,
					    sizeof(err)) == -1,
			      "accepted: %s", bad[i]);
		ck_assert_msg(err[0], "no reason for: %s", bad[i]);
		ck_assert_ptr_null(r.ex);
	}
}
END_TEST

START_TEST(archive_grader_exit)
{
	struct grade_result r;
	char err[256];
	int st = -1;
	const char *doc = "{\"tool\": \"warpgrade\", \"exercises\": [], "
			  "\"score\": 0, \"max_score\": 0, "
			  "\"error\": \"the grader did not finish\", "
			  "\"grader_exit\": 3}";

	result_init(&r);
	ck_assert(!result_json_parse(doc, &r, &st, err, sizeof(err)));
	ck_assert_int_eq(st, 3);
	ck_assert_str_eq(r.error, "the grader did not finish");
	result_release(&r);
}
END_TEST

/* ---- Gradescope ---- */

START_TEST(gradescope_schema)
{
	struct grade_result r;
	struct score_config cfg;
	json_t *v, *tests, *t;
	char *doc;
	double sum = 0, max = 0;
	size_t i;

	score_config_default(&cfg);
	sample(_i, &r);
	doc = formats_gradescope(&r, &cfg, sample_status(_i));
	v = parse_json(doc);
	validate("gradescope.schema.json", v);
	ck_assert_double_eq_tol(json_number_value(json_object_get(v,
				"score")), r.score, 0.005);
	tests = json_object_get(v, "tests");
	ck_assert_uint_gt(json_array_size(tests), 0);
	json_array_foreach(tests, i, t) {
		sum += json_number_value(json_object_get(t, "score"));
		max += json_number_value(json_object_get(t, "max_score"));
		ck_assert(json_number_value(json_object_get(t, "score")) <=
			  json_number_value(json_object_get(t, "max_score")) +
			  1e-9);
	}
	/* the tests add up to the result, to the rounding of each part */
	ck_assert_double_eq_tol(sum, r.score, 0.01 * (double)i + 0.005);
	ck_assert_double_eq_tol(max, r.max_score, 0.01 * (double)i + 0.005);
	ck_assert_uint_eq(json_array_size(json_object_get(v,
			  "leaderboard")), 3);
	if (_i == S_UNUSABLE) {
		ck_assert_uint_eq(json_array_size(tests), 1);
		ck_assert_str_eq(json_string_value(json_object_get(
			json_array_get(tests, 0), "status")), "failed");
	} else {
		/* one test per exercise part and technique check */
		size_t want = 0;

		for (size_t k = 0; k < r.nex; k++)
			want += 2 + (r.ex[k].nchecks ? r.ex[k].nchecks : 1);
		ck_assert_uint_eq(json_array_size(tests), want);
	}
	json_decref(v);
	free(doc);
	result_release(&r);
}
END_TEST

START_TEST(gradescope_markdown_fence)
{
	struct grade_result r;
	struct score_config cfg;
	json_t *v, *t;
	const char *out;
	char *doc;

	score_config_default(&cfg);
	sample(S_MIXED, &r); /* exercise 0 is CE with ``` in its log */
	doc = formats_gradescope(&r, &cfg, GRADE_OK);
	v = parse_json(doc);
	t = json_array_get(json_object_get(v, "tests"), 0);
	out = json_string_value(json_object_get(t, "output"));
	/* the compiler's ``` cannot close the block: the fence is longer */
	ck_assert_ptr_nonnull(strstr(out, "````\n"));
	ck_assert_str_eq(json_string_value(json_object_get(t,
			 "output_format")), "md");
	json_decref(v);
	free(doc);
	result_release(&r);
}
END_TEST

/* ---- PrairieLearn ---- */

START_TEST(prairielearn_schema)
{
	struct grade_result r;
	struct score_config cfg;
	json_t *v;
	char *doc;
	int gradable;

	score_config_default(&cfg);
	sample(_i, &r);
	doc = formats_prairielearn(&r, &cfg, sample_status(_i));
	v = parse_json(doc);
	validate("prairielearn.schema.json", v);
	gradable = json_is_true(json_object_get(v, "gradable"));
	/* unusable and internal errors are not gradable; a compile error in
	 * every exercise is (a score of zero) */
	ck_assert_int_eq(gradable, _i != S_UNUSABLE && _i != S_INTERNAL);
	if (gradable) {
		ck_assert_double_eq_tol(json_number_value(json_object_get(v,
					"score")), r.score / r.max_score,
					1e-9);
		ck_assert_uint_gt(json_array_size(json_object_get(v,
				  "tests")), 0);
	} else {
		ck_assert_ptr_nonnull(json_object_get(v, "format_errors"));
		ck_assert_ptr_null(json_object_get(v, "score"));
	}
	if (_i == S_CE)
		ck_assert_double_eq(json_number_value(json_object_get(v,
				    "score")), 0);
	ck_assert_uint_lt(strlen(doc), 1u << 20);
	json_decref(v);
	free(doc);
	result_release(&r);
}
END_TEST

/* ---- Autolab ---- */

static const char *last_line(const char *doc)
{
	size_t n = strlen(doc);
	const char *p;

	ck_assert(n > 1 && doc[n - 1] == '\n');
	for (p = doc + n - 2; p > doc && p[-1] != '\n'; p--)
		;
	return p;
}

START_TEST(autolab_last_line)
{
	struct grade_result r;
	struct score_config cfg;
	char *doc;
	const char *line;
	json_t *v, *scores;

	score_config_default(&cfg);
	sample(_i, &r);
	doc = formats_autolab(&r, &cfg, sample_status(_i));
	line = last_line(doc);
	if (_i == S_INTERNAL) {
		/* the grader's fault: no score line, the job fails */
		ck_assert_ptr_null(strstr(doc, "{\"scores\""));
		goto out;
	}
	v = parse_json(line);
	validate("autolab.schema.json", v);
	scores = json_object_get(v, "scores");
	for (size_t i = 0; i < exercise_count(); i++)
		ck_assert_msg(json_object_get(scores,
			      exercise_table[i]->name) != NULL,
			      "no score for %s", exercise_table[i]->name);
	ck_assert_uint_eq(json_array_size(json_object_get(v, "scoreboard")),
			  3 + exercise_count());
	ck_assert_double_eq_tol(json_number_value(json_array_get(
		json_object_get(v, "scoreboard"), 0)), r.score, 0.005);
	/* the score line is the only one */
	ck_assert_ptr_eq(strstr(doc, "{\"scores\""), line);
	json_decref(v);
out:
	free(doc);
	result_release(&r);
}
END_TEST

/* ---- JUnit ---- */

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static int have_xmllint(void)
{
	return !access("/usr/bin/xmllint", X_OK);
}

START_TEST(junit_schema)
{
	struct grade_result r;
	struct score_config cfg;
	char *doc, path[] = "/tmp/wg-junit-XXXXXX";
	char attr[64];
	FILE *f;
	int fd;

	score_config_default(&cfg);
	sample(_i, &r);
	doc = formats_junit(&r, &cfg, sample_status(_i));
	/* no control character survives but tab and newline */
	for (const unsigned char *p = (const unsigned char *)doc; *p; p++)
		ck_assert(*p >= 0x20 || *p == '\n' || *p == '\t');
	/* the totals agree with the elements */
	snprintf(attr, sizeof(attr), "tests=\"%zu\"",
		 count(doc, "<testcase "));
	ck_assert_msg(strstr(doc, attr), "%s not in the root", attr);
	snprintf(attr, sizeof(attr), "failures=\"%zu\"",
		 count(doc, "<failure "));
	ck_assert_msg(strstr(doc, attr), "%s not in the root", attr);
	snprintf(attr, sizeof(attr), "errors=\"%zu\"",
		 count(doc, "<error "));
	ck_assert_msg(strstr(doc, attr), "%s not in the root", attr);
	snprintf(attr, sizeof(attr), "skipped=\"%zu\"",
		 count(doc, "<skipped "));
	ck_assert_msg(strstr(doc, attr), "%s not in the root", attr);
	ck_assert_uint_eq(count(doc, "<testsuite "),
			  r.nex + (r.error ? 1 : 0));
	if (!have_xmllint()) {
		printf("SKIP: junit schema validation (xmllint not "
		       "installed: Debian package libxml2-utils)\n");
		goto out;
	}
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(doc, f);
	fclose(f);
	{
		char cmd[512];
		int rc;

		snprintf(cmd, sizeof(cmd), "xmllint --noout --schema "
			 "tests/schemas/junit.xsd %s 2>/dev/null", path);
		rc = system(cmd);
		if (rc) {
			/* again, for the reasons in the log */
			snprintf(cmd, sizeof(cmd), "xmllint --noout --schema "
				 "tests/schemas/junit.xsd %s", path);
			(void)!system(cmd);
		}
		ck_assert_msg(rc == 0, "xmllint rejected the JUnit XML of "
			      "sample %d", _i);
	}
	unlink(path);
out:
	free(doc);
	result_release(&r);
}
END_TEST

/* ---- the command ---- */

static int run_grade(const char *sub, const char *format, const char *out)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl("bin/warpgrade", "warpgrade", "grade", sub, "--format",
		      format, "--output", out, "--quiet", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

START_TEST(cli_unusable_views)
{
	char dir[] = "/tmp/wg-formats-XXXXXX", sub[256], out[256];
	FILE *f;
	json_t *v;
	json_error_t je;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/broken.zip", dir);
	f = fopen(sub, "w");
	fputs("PK\003\004 this is not a zip archive", f);
	fclose(f);

	snprintf(out, sizeof(out), "%s/gs.json", dir);
	ck_assert_int_eq(run_grade(sub, "gradescope", out), 1);
	v = json_load_file(out, 0, &je);
	ck_assert_ptr_nonnull(v);
	validate("gradescope.schema.json", v);
	ck_assert_double_eq(json_number_value(json_object_get(v, "score")),
			    0);
	json_decref(v);

	snprintf(out, sizeof(out), "%s/pl.json", dir);
	ck_assert_int_eq(run_grade(sub, "prairielearn", out), 1);
	v = json_load_file(out, 0, &je);
	ck_assert_ptr_nonnull(v);
	validate("prairielearn.schema.json", v);
	ck_assert(json_is_false(json_object_get(v, "gradable")));
	json_decref(v);

	snprintf(out, sizeof(out), "%s/al.txt", dir);
	ck_assert_int_eq(run_grade(sub, "autolab", out), 1);
	{
		char *doc = read_file(out, 1 << 20, NULL);

		ck_assert_ptr_nonnull(doc);
		v = parse_json(last_line(doc));
		validate("autolab.schema.json", v);
		json_decref(v);
		free(doc);
	}

	snprintf(out, sizeof(out), "%s/ju.xml", dir);
	ck_assert_int_eq(run_grade(sub, "junit", out), 1);
	ck_assert_int_eq(access(out, R_OK), 0);

	ck_assert_int_eq(run_grade(sub, "yaml", out), 2);
	remove_tree(dir);
}
END_TEST

/* The text view shows the program's output, and nothing a submission
 * wrote (escape sequences, carriage returns) reaches the terminal raw */
START_TEST(text_view_is_inert)
{
	struct grade_result r;
	struct score_config cfg;
	char *doc;

	score_config_default(&cfg);
	sample(S_MIXED, &r);
	for (int colour = 0; colour < 2; colour++) {
		doc = formats_render(FORMAT_TEXT, &r, &cfg, GRADE_OK, colour);
		ck_assert_ptr_nonnull(strstr(doc, "output of the program"));
		ck_assert_ptr_nonnull(strstr(doc, "| debug print ``` <b>"));
		ck_assert_ptr_null(strchr(doc, '\x01'));
		ck_assert_ptr_null(strchr(doc, '\r'));
		if (!colour)
			ck_assert_ptr_null(strchr(doc, '\x1b'));
		else	/* the report's own colours only */
			ck_assert_ptr_null(strstr(doc, "\x1b[31m "));
		free(doc);
	}
	result_release(&r);
}
END_TEST

/* The shared helper: C0, DEL and C1 controls and the XML-illegal
 * noncharacters replaced, kept whitespace kept, other text intact. */
START_TEST(inert_replaces_controls)
{
	static const struct {
		const char *in, *keep, *out;
	} cases[] = {
		{ "plain", "", "plain" },
		{ "\x1b[31mred\x1b[0m", "", "?[31mred?[0m" },
		{ "\x1b]0;title\x07", "", "?]0;title?" },
		{ "a\tb\nc\rd", "\t\n", "a\tb\nc?d" },
		{ "a\tb\nc\rd", "", "a?b?c?d" },
		{ "del\x7f", "", "del?" },
		/* C1 as UTF-8 and as a lone byte (invalid UTF-8) */
		{ "csi\xc2\x9b" "2J", "", "csi?2J" },
		{ "csi\x9b" "2J", "", "csi\xef\xbf\xbd" "2J" },
		{ "nonchar \xef\xbf\xbe \xef\xbf\xbf", "", "nonchar ? ?" },
		/* the neighbours of those stay */
		{ "\xc2\xa0 \xc2\x7f", "", "\xc2\xa0 \xef\xbf\xbd?" },
		{ "Zo\xc3\xab \xe6\x9d\x8e \xef\xbf\xbd \xf0\x9f\x98\x80", "",
		  "Zo\xc3\xab \xe6\x9d\x8e \xef\xbf\xbd \xf0\x9f\x98\x80" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = formats_inert(cases[i].in, cases[i].keep, "?");

		ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: '%s'",
			      i, got);
		free(got);
	}
	{
		char *got = formats_inert(NULL, "", "?");

		ck_assert_str_eq(got, "");
		free(got);
		got = formats_inert("\x01\x02", "", FORMATS_REPLACEMENT);
		ck_assert_str_eq(got, FORMATS_REPLACEMENT
				 FORMATS_REPLACEMENT);
		free(got);
	}
}
END_TEST

/* Fail unless doc is valid UTF-8 whose only control characters are the
 * ASCII ones in keep, without DEL, C1 controls, U+FFFE or U+FFFF. */
static void assert_no_controls(const char *doc, const char *keep,
			       const char *what)
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
		ck_assert_msg((cp >= 0x20 || strchr(keep, (int)cp)) &&
			      !(cp >= 0x7F && cp < 0xA0) && cp != 0xFFFE &&
			      cp != 0xFFFF, "%s: U+%04X at byte %zu", what,
			      cp, off);
		p += len;
	}
}

/* What the grader wrote itself (a device, a check name, a cell value) is
 * the archive's word once a result is read back: the text, JUnit and
 * markdown views print it inert too.  Valid UTF-8, as every string of
 * an archive is (jansson reads no other). */
#define NASTY "\x1b]0;t\x07 \xc2\x9b" "2J \x7f \xef\xbf\xbe"

START_TEST(views_print_archive_text_inert)
{
	struct grade_result r;
	struct score_config cfg;
	char *doc;
	json_t *v, *t;
	size_t i;

	score_config_default(&cfg);
	sample(S_MIXED, &r);
	free(r.device);
	r.device = xstrdup("H100 " NASTY);
	free(r.isolation);
	r.isolation = xstrdup("bubblewrap " NASTY);
	result_add_note(&r, "note " NASTY);
	for (i = 0; i < r.nex; i++) {
		struct exercise_result *e = &r.ex[i];

		result_set_message(e, "message %s", NASTY);
		snprintf(e->first_failure.expected,
			 sizeof(e->first_failure.expected), "1 %s", NASTY);
		snprintf(e->first_failure.reason,
			 sizeof(e->first_failure.reason), "why %s", NASTY);
		for (size_t k = 0; k < e->nchecks; k++)
			snprintf(e->checks[k].name, sizeof(e->checks[k].name),
				 "check %s", NASTY);
	}

	doc = formats_render(FORMAT_TEXT, &r, &cfg, GRADE_OK, 0);
	assert_no_controls(doc, "\t\n", "text");
	ck_assert_ptr_nonnull(strstr(doc, "backend cuda on H100 ?]0;t? ?2J "
				     "? ?, seed"));
	ck_assert_ptr_nonnull(strstr(doc, "expected 1 ?]0;t?"));
	ck_assert_ptr_nonnull(strstr(doc, "technique: check ?]0;t?"));
	free(doc);

	doc = formats_junit(&r, &cfg, GRADE_OK);
	assert_no_controls(doc, "\t\n", "junit");
	if (have_xmllint()) {
		char path[] = "/tmp/wg-junit-XXXXXX", cmd[256];
		int fd = mkstemp(path);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, doc, strlen(doc)),
				 (ssize_t)strlen(doc));
		close(fd);
		snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
		ck_assert_msg(system(cmd) == 0, "xmllint rejected %s", path);
		unlink(path);
	}
	free(doc);

	doc = formats_gradescope(&r, &cfg, GRADE_OK);
	v = parse_json(doc);
	assert_no_controls(json_string_value(json_object_get(v, "output")),
			   "\n", "gradescope output");
	json_array_foreach(json_object_get(v, "tests"), i, t)
		assert_no_controls(json_string_value(json_object_get(t,
				   "output")), "\t\n\r", "gradescope test");
	json_decref(v);
	free(doc);
	result_release(&r);
}
END_TEST

START_TEST(names_and_suffixes)
{
	for (int k = 0; k < FORMAT_COUNT; k++) {
		ck_assert_int_eq(formats_parse(formats_name(k)), k);
		ck_assert_str_ne(formats_suffix(k), "");
	}
	ck_assert_int_eq(formats_parse("xml"), -1);
	ck_assert_str_eq(formats_suffix(FORMAT_JSON), ".json");
}
END_TEST


/* ---- the Gradescope autograder ---- */

/* Run run_autograder against a fake /autograder whose source is this
 * tree, with this tree's grader for the installed one (tests/install
 * runs it with a real installation); returns its exit status. */
static int run_autograder(const char *ag)
{
	char cmd[1024], cwd[400];
	int rc;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(cmd, sizeof(cmd), "AUTOGRADER_ROOT=%s "
		 "WARPGRADE=%s/bin/warpgrade "
		 "integrations/gradescope/run_autograder > %s/stdout 2>&1",
		 ag, cwd, ag);
	rc = system(cmd);
	ck_assert(WIFEXITED(rc));
	return WEXITSTATUS(rc);
}

static void fake_autograder(char *ag, size_t len)
{
	char path[512], cwd[400];

	snprintf(ag, len, "/tmp/wg-ag-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ag));
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(path, sizeof(path), "%s/source", ag);
	ck_assert_int_eq(symlink(cwd, path), 0);
	snprintf(path, sizeof(path), "%s/submission", ag);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

START_TEST(autograder_unusable_upload)
{
	char ag[64], path[512];
	FILE *f;
	json_error_t je;
	json_t *v;

	fake_autograder(ag, sizeof(ag));
	snprintf(path, sizeof(path), "%s/submission/submission.zip", ag);
	f = fopen(path, "w");
	fputs("PK\003\004 not really", f);
	fclose(f);
	/* an unusable upload is graded: zero, with the reason */
	ck_assert_int_eq(run_autograder(ag), 0);
	snprintf(path, sizeof(path), "%s/results/results.json", ag);
	v = json_load_file(path, 0, &je);
	ck_assert_msg(v != NULL, "no results.json: %s", je.text);
	validate("gradescope.schema.json", v);
	ck_assert_double_eq(json_number_value(json_object_get(v, "score")),
			    0);
	json_decref(v);
	remove_tree(ag);
}
END_TEST

START_TEST(autograder_grades_or_fails_loudly)
{
	char ag[64], path[512], cmd[700];
	json_error_t je;
	json_t *v;
	int rc;

	fake_autograder(ag, sizeof(ag));
	/* one exercise that does not compile: quick on any backend */
	snprintf(cmd, sizeof(cmd), "cp tests/fixtures/compile_error/"
		 "submission/aos_to_soa.cu %s/submission/", ag);
	ck_assert_int_eq(system(cmd), 0);
	rc = run_autograder(ag);
	snprintf(path, sizeof(path), "%s/results/results.json", ag);
	if (rc) {
		/* no backend here: an internal error, and then no score at
		 * all rather than a zero */
		ck_assert_int_ne(access(path, F_OK), 0);
		printf("SKIP: gradescope autograder grading (no backend; "
		       "checked that an internal error leaves no "
		       "results.json)\n");
		remove_tree(ag);
		return;
	}
	v = json_load_file(path, 0, &je);
	ck_assert_msg(v != NULL, "no results.json: %s", je.text);
	validate("gradescope.schema.json", v);
	ck_assert_double_eq(json_number_value(json_object_get(v, "score")),
			    0);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(v,
				     "output")), "CE"));
	json_decref(v);
	remove_tree(ag);
}
END_TEST

START_TEST(autograder_zip)
{
	char out[] = "/tmp/wg-gs-XXXXXX", zip[64], cmd[256];
	struct archive *a;
	struct archive_entry *ae;
	int setup = 0, run = 0, ref = 0;

	ck_assert_ptr_nonnull(mkdtemp(out));
	snprintf(zip, sizeof(zip), "%s/ag.zip", out);
	snprintf(cmd, sizeof(cmd), "integrations/gradescope/make-zip %s "
		 ">/dev/null", zip);
	ck_assert_int_eq(system(cmd), 0);
	a = archive_read_new();
	archive_read_support_format_zip(a);
	ck_assert_int_eq(archive_read_open_filename(a, zip, 1 << 16),
			 ARCHIVE_OK);
	while (archive_read_next_header(a, &ae) == ARCHIVE_OK) {
		const char *n = archive_entry_pathname(ae);
		int x = (archive_entry_perm(ae) & 0100) != 0;

		/* at the root of the zip, executable */
		if (!strcmp(n, "setup.sh"))
			setup = x;
		if (!strcmp(n, "run_autograder"))
			run = x;
		ref |= !strncmp(n, "reference/", 10);
		ck_assert_msg(strncmp(n, "tests/", 6), "%s shipped", n);
	}
	archive_read_free(a);
	ck_assert(setup && run && ref);
	remove_tree(out);
}
END_TEST

static Suite *formats_suite(void)
{
	Suite *s = suite_create("formats");
	TCase *tc;

	tc = tcase_create("archive");
	tcase_add_loop_test(tc, archive_round_trip, 0, NSAMPLES);
	tcase_add_test(tc, archive_rejects);
	tcase_add_test(tc, archive_grader_exit);
	tcase_add_test(tc, text_view_is_inert);
	tcase_add_test(tc, inert_replaces_controls);
	tcase_add_test(tc, views_print_archive_text_inert);
	tcase_add_test(tc, names_and_suffixes);
	suite_add_tcase(s, tc);

	tc = tcase_create("gradescope");
	tcase_add_loop_test(tc, gradescope_schema, 0, NSAMPLES);
	tcase_add_test(tc, gradescope_markdown_fence);
	suite_add_tcase(s, tc);

	tc = tcase_create("prairielearn");
	tcase_add_loop_test(tc, prairielearn_schema, 0, NSAMPLES);
	suite_add_tcase(s, tc);

	tc = tcase_create("autolab");
	tcase_add_loop_test(tc, autolab_last_line, 0, NSAMPLES);
	suite_add_tcase(s, tc);

	tc = tcase_create("junit");
	tcase_add_loop_test(tc, junit_schema, 0, NSAMPLES);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("gradescope autograder");
	tcase_add_test(tc, autograder_zip);
	tcase_add_test(tc, autograder_unusable_upload);
	tcase_add_test(tc, autograder_grades_or_fails_loudly);
	tcase_set_timeout(tc, 900);
	suite_add_tcase(s, tc);

	tc = tcase_create("command");
	tcase_add_test(tc, cli_unusable_views);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(formats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
