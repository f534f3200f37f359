/*
 * Large buffers (harness/bigbuf.h) and the runner's copy-back buffers
 * (harness/hostbuf.h, here over the emulator's cudaMallocHost): every
 * size class gives memory that holds what is written to it, and each
 * copy goes to the buffer of its size.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bigbuf.h"
#include "hostbuf.h"

/* Write a pattern over p[0..n) and read it back. */
static int holds(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4093)
		p[i] = (unsigned char)(i * 7 + 1);
	if (n)
		p[n - 1] = 0xA5;
	for (size_t i = 0; i + 1 < n; i += 4093)
		if (p[i] != (unsigned char)(i * 7 + 1))
			return 0;
	return !n || p[n - 1] == 0xA5;
}

START_TEST(bigbuf_sizes)
{
	static const size_t sizes[] = { 0, 1, 4095, (4u << 20) - 1,
					4u << 20, (64u << 20) + 3 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned char *p = bigbuf_alloc(sizes[k]);

		ck_assert_msg(p != NULL, "size %zu", sizes[k]);
		ck_assert_msg(holds(p, sizes[k]), "size %zu", sizes[k]);
		bigbuf_free(p, sizes[k]);
	}
	bigbuf_free(NULL, 1u << 30);
}
END_TEST

START_TEST(hostbuf_small_only)
{
	struct hostbuf h;

	ck_assert_int_eq(hostbuf_init(&h, 20000), 0);
	ck_assert_ptr_nonnull(h.pinned);
	ck_assert_ptr_null(h.big);
	ck_assert_ptr_eq(hostbuf_get(&h, 20000), h.pinned);
	ck_assert(holds(hostbuf_get(&h, 20000), 20000));
	hostbuf_release(&h);
}
END_TEST

START_TEST(hostbuf_small_and_large)
{
	size_t max = (16u << 20) + 12;
	struct hostbuf h;
	unsigned char *small, *large;

	ck_assert_int_eq(hostbuf_init(&h, max), 0);
	small = hostbuf_get(&h, 4096);
	large = hostbuf_get(&h, max);
	ck_assert_ptr_nonnull(small);
	ck_assert_ptr_nonnull(large);
	ck_assert_ptr_ne(small, large);
	ck_assert_ptr_eq(hostbuf_get(&h, h.pinned_cap), small);
	ck_assert_ptr_eq(hostbuf_get(&h, h.pinned_cap + 1), large);
	ck_assert(holds(small, h.pinned_cap));
	ck_assert(holds(large, max));
	hostbuf_release(&h);
}
END_TEST

static Suite *buffers_suite(void)
{
	Suite *s = suite_create("buffers");
	TCase *tc = tcase_create("sizes");

	tcase_add_test(tc, bigbuf_sizes);
	tcase_add_test(tc, hostbuf_small_only);
	tcase_add_test(tc, hostbuf_small_and_large);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(buffers_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
