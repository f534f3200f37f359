/*
 * Check tests for grader/capbuf: what a capped capture keeps of a
 * stream -- all of it up to the cap, else the head, a marker counting
 * the dropped middle and the tail -- whatever the sizes of the writes.
 */
#include "capbuf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK(n) "\n[\xe2\x80\xa6 " n " bytes omitted \xe2\x80\xa6]\n"

/* cap bytes of capture over text, added in writes of step bytes (0: one
 * write); the kept string, owned. */
static char *capture(size_t cap, const char *text, size_t step)
{
	struct capbuf c;
	size_t n = strlen(text), k;
	char *s;

	ck_assert_int_eq(capbuf_init(&c, cap), 0);
	for (size_t o = 0; o < n; o += k) {
		k = step && step < n - o ? step : n - o;
		capbuf_add(&c, text + o, k);
	}
	ck_assert_uint_eq(c.total, n);
	s = capbuf_finish(&c);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(c.head);
	ck_assert_ptr_null(c.tail);
	return s;
}

/* What capbuf.h promises, built the obvious way. */
static char *expected(size_t cap, const char *text)
{
	size_t n = strlen(text), head = cap / 2, tail = cap - head;

	if (n <= cap)
		return strdup(text);
	{
		size_t len = head + 64 + tail + 1;
		char *s = malloc(len);

		ck_assert_ptr_nonnull(s);
		snprintf(s, len, "%.*s\n[\xe2\x80\xa6 %zu bytes omitted "
			 "\xe2\x80\xa6]\n%s", (int)head, text, n - cap,
			 text + n - tail);
		return s;
	}
}

START_TEST(empty)
{
	char *s = capture(8, "", 0);

	ck_assert_str_eq(s, "");
	free(s);
	s = capture(0, "", 0);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(under_the_cap)
{
	char *s = capture(8, "abc", 0);

	ck_assert_str_eq(s, "abc");
	free(s);
	s = capture(8, "abcdefg", 1);
	ck_assert_str_eq(s, "abcdefg");
	free(s);
}
END_TEST

START_TEST(exactly_the_cap)
{
	char *s = capture(8, "abcdefgh", 0);

	/* nothing dropped: no marker */
	ck_assert_str_eq(s, "abcdefgh");
	free(s);
	s = capture(8, "abcdefgh", 3);
	ck_assert_str_eq(s, "abcdefgh");
	free(s);
}
END_TEST

START_TEST(one_past_the_cap)
{
	char *s = capture(8, "abcdefghi", 0);

	ck_assert_str_eq(s, "abcd" MARK("1") "fghi");
	free(s);
	s = capture(8, "abcdefghi", 1);
	ck_assert_str_eq(s, "abcd" MARK("1") "fghi");
	free(s);
}
END_TEST

START_TEST(middle_dropped)
{
	char text[1001];
	char *s;

	for (int i = 0; i < 1000; i++)
		text[i] = (char)('a' + i % 26);
	text[1000] = '\0';
	/* an odd cap: the tail gets the extra byte */
	s = capture(7, text, 0);
	ck_assert_str_eq(s, "abc" MARK("993") "ijkl");
	free(s);
	/* the ring wraps many times in small writes */
	s = capture(7, text, 5);
	ck_assert_str_eq(s, "abc" MARK("993") "ijkl");
	free(s);
	/* a write much larger than the tail */
	s = capture(16, text, 300);
	ck_assert_str_eq(s, "abcdefgh" MARK("984") "efghijkl");
	free(s);
}
END_TEST

/* Every cap and length around the boundaries, in writes of every size:
 * the same string as the model. */
START_TEST(any_split)
{
	static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz";

	for (size_t cap = 0; cap <= 12; cap++)
		for (size_t n = 0; n <= 30; n++)
			for (size_t step = 0; step <= 7; step++) {
				char buf[64], *s, *want;

				snprintf(buf, sizeof(buf), "%.*s", (int)n,
					 text);
				s = capture(cap, buf, step);
				want = expected(cap, buf);
				ck_assert_msg(!strcmp(s, want), "cap %zu, %zu "
					      "bytes in writes of %zu: '%s', "
					      "not '%s'", cap, n, step, s,
					      want);
				free(s);
				free(want);
			}
}
END_TEST

START_TEST(release_without_finish)
{
	struct capbuf c;

	ck_assert_int_eq(capbuf_init(&c, 64), 0);
	capbuf_add(&c, "some output", 11);
	capbuf_release(&c);
	ck_assert_ptr_null(c.head);
	ck_assert_ptr_null(c.tail);
	ck_assert_uint_eq(c.total, 11);
	/* twice is harmless */
	capbuf_release(&c);
}
END_TEST

static Suite *capbuf_suite(void)
{
	Suite *s = suite_create("capbuf");
	TCase *tc = tcase_create("kept bytes");

	tcase_add_test(tc, empty);
	tcase_add_test(tc, under_the_cap);
	tcase_add_test(tc, exactly_the_cap);
	tcase_add_test(tc, one_past_the_cap);
	tcase_add_test(tc, middle_dropped);
	tcase_add_test(tc, any_split);
	tcase_add_test(tc, release_without_finish);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(capbuf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
