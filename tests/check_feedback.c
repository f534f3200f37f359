/*
 * Feedback that points at the line, without a backend: the program's
 * output digested (digest.h), wrong outputs drawn and classified
 * (diff.h), source lines cut from the student's file (lines.h).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "digest.h"
#include "exercise.h"
#include "hostcrash.h"
#include "lines.h"
#include "rerun.h"
#include "result.h"
#include "util.h"

#define WARN "warpgrade emulator: warning: "

static void exercise_with_output(struct exercise_result *e,
				 const char *output)
{
	memset(e, 0, sizeof(*e));
	e->ex = exercise_find("coalesced_transpose");
	e->runner_output = xstrdup(output);
}

static void exercise_release(struct exercise_result *e)
{
	free(e->runner_output);
	free(e->warnings);
	free(e->source);
}

START_TEST(warnings_summarised)
{
	struct exercise_result e;
	char out[8192] = "";

	for (int i = 0; i < 12; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out),
			 WARN "kernel 't' at a.cu:26, thread (%d,0,0) of "
			 "block (0,%d,0): read of shared memory at offset %d "
			 "that no thread of the block wrote\nmy line\n", i,
			 i, 4 * i);
	strcat(out, "wgemu: kernel 't' at a.cu:31, thread (0,0,0) of block "
		    "(1,0,0): out-of-bounds global store of 4 bytes at "
		    "address 0x7000abc0 (outside every allocation)\n");
	strcat(out, "wgemu: launch of 'k' refused: grid (9,1,1), block "
		    "(2048,1,1): a block has 1 to 1024 threads\n"
		    "wgemu: launch of 'k' refused: grid (3,1,1), block "
		    "(1025,1,1): a block has 1 to 1024 threads\n");
	exercise_with_output(&e, out);
	digest_output(&e);
	ck_assert_uint_eq(e.nwarnings, 3);
	ck_assert_uint_eq(e.warnings[2].count, 2);
	ck_assert_uint_eq(e.warnings[0].count, 12);
	ck_assert_ptr_nonnull(strstr(e.warnings[0].text, "thread (0,0,0) of "
				     "block (0,0,0): read of shared"));
	ck_assert_uint_eq(e.warnings[1].count, 1);
	ck_assert_str_eq(e.runner_output, "my line\nmy line\nmy line\n"
			 "[9 more copies of the lines above left out]\n");
	exercise_release(&e);
}
END_TEST

START_TEST(cut_output)
{
	struct exercise_result e;

	exercise_with_output(&e, "head\nwgemu: kernel 't' at a.c\n"
			     "[\xe2\x80\xa6 100 bytes omitted \xe2\x80\xa6]\n"
			     "t 3 past its end\ntail\n");
	digest_output(&e);
	ck_assert_uint_eq(e.nwarnings, 0);
	ck_assert_str_eq(e.runner_output, "head\n[\xe2\x80\xa6 100 bytes "
			 "omitted \xe2\x80\xa6]\ntail\n");
	exercise_release(&e);
}
END_TEST

START_TEST(writer_named)
{
	struct exercise_result e;
	struct failure_location *l = &e.first_failure.loc;

	exercise_with_output(&e, "hello\n" WARN "kernel 't' at "
			     "/tmp/x/coalesced_transpose.cu:3, thread (1,2,0) "
			     "of block (4,0,0): store outside the output: "
			     "element 7 past its end\n");
	e.status = STATUS_OOB;
	e.first_failure.present = 1;
	e.source = xstrdup("a\nb\n\t  out[i] = x;  \nd\n");
	digest_output(&e);
	ck_assert_str_eq(l->file, "coalesced_transpose.cu");
	ck_assert_int_eq(l->line, 3);
	ck_assert_str_eq(l->source, "out[i] = x;");
	ck_assert_str_eq(l->thread, "(1,2,0)");
	ck_assert_str_eq(l->block, "(4,0,0)");
	ck_assert_str_eq(l->what, "store outside the output: element 7 past "
			 "its end");
	exercise_release(&e);
}
END_TEST

START_TEST(source_lines)
{
	char buf[16];

	lines_source_text("one\n  two  \nthree", 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "two");
	lines_source_text("one\n", 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	lines_source_text(NULL, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	lines_source_text("a\x1b[31mb", 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a[31mb");
}
END_TEST

/* A 3x5 input, its transpose (5x3) as the oracle computes it. */
static void transpose_case(uint32_t *in, uint32_t *exp)
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 5; c++) {
			in[r * 5 + c] = (uint32_t)(100 + r * 5 + c);
			exp[c * 3 + r] = in[r * 5 + c];
		}
}

static struct failure classify(const uint32_t *in, const uint32_t *exp,
			       const uint32_t *got)
{
	struct failure f;
	struct exercise_shape s = { 3, 5 };

	memset(&f, 0, sizeof(f));
	diff_describe(exercise_find("coalesced_transpose"), s, in, exp, got,
		      &f);
	return f;
}

START_TEST(patterns)
{
	uint32_t in[15], exp[15], got[15];
	struct failure f;

	transpose_case(in, exp);
	f = classify(in, exp, in);
	ck_assert_str_eq(f.pattern, "input_echoed");
	ck_assert(f.win.present);
	ck_assert_int_eq(f.win.rows, 5);
	ck_assert_int_eq(f.win.cols, 3);

	memcpy(got, exp, sizeof(got));
	got[7] = got[14] = DIFF_POISON;
	f = classify(in, exp, got);
	ck_assert_str_eq(f.pattern, "untouched");
	ck_assert_int_eq(f.win.row, 2);
	ck_assert_int_eq(f.win.col, 1);

	memcpy(got, exp, sizeof(got));
	got[2] = got[5] = 0;
	f = classify(in, exp, got);
	ck_assert_str_eq(f.pattern, "tile_edge");

	memcpy(got, exp, sizeof(got));
	got[0] = 1;
	got[4] = 2;
	f = classify(in, exp, got);
	ck_assert_str_eq(f.pattern, "");
}
END_TEST

START_TEST(cells_round_trip)
{
	const struct exercise *fl = exercise_find("coalesced_transpose");
	const struct exercise *in = exercise_find("dynamic_reverse");
	const uint32_t bits[] = { 0, 0x80000000u, 0x3fc00000u, 0x7f800000u,
				  DIFF_POISON, 0x00000001u, 0xc994b6dau };
	char buf[32];
	uint32_t back;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		diff_cell(fl, bits[i], 1, buf, sizeof(buf));
		ck_assert_int_eq(diff_parse_cell(fl, buf, &back), 0);
		ck_assert_uint_eq(back, bits[i]);
		diff_cell(in, bits[i], 1, buf, sizeof(buf));
		ck_assert_int_eq(diff_parse_cell(in, buf, &back), 0);
		ck_assert_uint_eq(back, bits[i]);
	}
	ck_assert_int_eq(diff_parse_cell(fl, "1.5x", &back), -1);
	ck_assert_int_eq(diff_parse_cell(in, "", &back), -1);
}
END_TEST

START_TEST(crash_lines)
{
	struct hostcrash_line c;
	struct exercise_result e;

	ck_assert_int_eq(hostcrash_parse("warpgrade runner: crash: SIGSEGV "
					 "pc 0x1a2b calls 0x30 0x4f", &c), 0);
	ck_assert(!c.launch);
	ck_assert_str_eq(c.what, "SIGSEGV");
	ck_assert_uint_eq(c.pc, 0x1a2b);
	ck_assert_uint_eq(c.ncalls, 2);
	ck_assert_uint_eq(c.calls[1], 0x4f);
	ck_assert_int_eq(hostcrash_parse("warpgrade runner: refused launch: "
					 "cudaErrorInvalidValue pc - calls "
					 "0x10", &c), 0);
	ck_assert(c.launch);
	ck_assert_str_eq(c.what, "cudaErrorInvalidValue");
	ck_assert_uint_eq(c.pc, 0);
	/* anything else is no crash line */
	ck_assert_int_eq(hostcrash_parse("warpgrade runner: crash: SIGKILL "
					 "pc - calls", &c), -1);
	ck_assert_int_eq(hostcrash_parse("warpgrade runner: crash: SIGSEGV "
					 "pc 0x1 calls 0xzz", &c), -1);
	ck_assert_int_eq(hostcrash_parse("warpgrade runner: refused launch: "
					 "cudaError;rm pc - calls", &c), -1);
	ck_assert_int_eq(hostcrash_parse("warpgrade runner: refused launch: "
					 "cudaErrorX pc 0x10 calls", &c), -1);
	ck_assert_int_eq(hostcrash_parse("warpgrade runner: crash: SIGSEGV "
					 "pc 0x1000000000000 calls", &c), -1);
	/* and the output shown leaves them out */
	exercise_with_output(&e, "mine\nwarpgrade runner: crash: SIGSEGV pc "
			     "0x10 calls\nwarpgrade runner: refused launch: "
			     "cudaErrorInvalidValue pc - calls 0x20\n");
	digest_output(&e);
	ck_assert_str_eq(e.runner_output, "mine\n");
	exercise_release(&e);
}
END_TEST

START_TEST(rerun_writer_and_sanitizer)
{
	struct exercise_result e;
	struct failure_location l;
	char *q;

	exercise_with_output(&e, "");
	e.source = xstrdup("a\n  out[j] = v;\n");
	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(digest_find_writer(&e, "x\n" WARN "kernel 't' at "
		"/s/coalesced_transpose.cu:2, thread (3,0,0) of block "
		"(1,0,0): store outside the output: element 5 past its end\n",
		&l), 0);
	ck_assert_int_eq(l.line, 2);
	ck_assert_str_eq(l.source, "out[j] = v;");
	ck_assert_str_eq(l.thread, "(3,0,0)");
	ck_assert_int_eq(digest_find_writer(&e, WARN "kernel 't' at a.cu:2, "
		"thread (0,0,0) of block (0,0,0): read of shared memory\n",
		&l), -1);
	q = rerun_sanitizer_quote(
		"========= COMPUTE-SANITIZER\n"
		"student line\n"
		"========= Invalid __global__ write of size 4 bytes\n"
		"=========     at transpose(float *)+0x1b0 in "
		"/tmp/w/stage/coalesced_transpose.cu:26\n"
		"=========     by thread (1,0,0) in block (0,0,0)\n"
		"=========\n"
		"========= Invalid __global__ write of size 4 bytes\n"
		"========= ERROR SUMMARY: 2 errors\n", "coalesced_transpose.cu");
	ck_assert_str_eq(q, "Invalid __global__ write of size 4 bytes\n"
			 "    at transpose(float *)+0x1b0 in "
			 "coalesced_transpose.cu:26\n"
			 "    by thread (1,0,0) in block (0,0,0)\n"
			 "ERROR SUMMARY: 2 errors\n");
	free(q);
	ck_assert_ptr_null(rerun_sanitizer_quote(
		"========= COMPUTE-SANITIZER\n"
		"========= ERROR SUMMARY: 0 errors\n", "a.cu"));
	exercise_release(&e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("feedback");
	TCase *d = tcase_create("digest");
	TCase *w = tcase_create("wrong answers");
	SRunner *sr;
	int failed;

	tcase_add_test(d, warnings_summarised);
	tcase_add_test(d, cut_output);
	tcase_add_test(d, writer_named);
	tcase_add_test(d, source_lines);
	tcase_add_test(d, crash_lines);
	tcase_add_test(d, rerun_writer_and_sanitizer);
	tcase_add_test(w, patterns);
	tcase_add_test(w, cells_round_trip);
	tcase_set_timeout(d, 10);
	tcase_set_timeout(w, 10);
	suite_add_tcase(s, d);
	suite_add_tcase(s, w);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
