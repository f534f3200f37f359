/*
 * resusage: ptxas -v's messages, as ptxas 13 wrote them for sm_90
 * (tests/fixtures/ptxas/), parsed kernel by kernel.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resusage.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = calloc(1, 1 << 16);
	size_t n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	n = fread(s, 1, (1 << 16) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* transpose_shfl.cu under __launch_bounds__(256, 8): 32 registers and
 * the rest spilled */
START_TEST(spilling_kernel)
{
	struct resusage u;
	char *s = slurp("tests/fixtures/ptxas/shfl-lb8.txt");
	const struct resusage_kernel *k;

	ck_assert_int_eq(resusage_parse(&u, s), 1);
	k = resusage_find(&u, "_Z14transpose_shflPfPKfii");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->regs, 32);
	ck_assert_uint_eq(k->spill_stores, 424);
	ck_assert_uint_eq(k->stack, 128);
	ck_assert_uint_eq(k->smem, 0);
	free(s);
}
END_TEST

/* two kernels, one with shared memory, one calling a function whose
 * own properties follow and are not a kernel's */
START_TEST(two_kernels_and_a_function)
{
	struct resusage u;
	char *s = slurp("tests/fixtures/ptxas/two.txt");
	const struct resusage_kernel *k;

	ck_assert_int_eq(resusage_parse(&u, s), 2);
	k = resusage_find(&u, "_Z5tiledPf");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->regs, 14);
	ck_assert_uint_eq(k->smem, 4224);
	k = resusage_find(&u, "_Z9with_callPf");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->regs, 32);
	ck_assert_uint_eq(k->stack, 256);
	ck_assert_uint_eq(k->spill_stores, 0);
	ck_assert_ptr_null(resusage_find(&u, "_Z6helperPfi"));
	free(s);
}
END_TEST

START_TEST(not_ptxas_output)
{
	struct resusage u;

	ck_assert_int_eq(resusage_parse(&u, ""), 0);
	ck_assert_int_eq(resusage_parse(&u, "ptxas fatal   : Unresolved "
					"extern function 'f'\n"), 0);
	/* an entry cut short before its register line */
	ck_assert_int_eq(resusage_parse(&u, "ptxas info    : Compiling "
					"entry function '_Z1kv' for "
					"'sm_90'\n"), -1);
	ck_assert_uint_eq(u.n, 0);
	/* a name too long to keep: left out, the others kept */
	{
		char big[1024];

		snprintf(big, sizeof(big), "ptxas info    : Compiling entry "
			 "function '%0300d' for 'sm_90'\nptxas info    : "
			 "Used 8 registers\nptxas info    : Compiling entry "
			 "function '_Z1kv' for 'sm_90'\nptxas info    : "
			 "Used 9 registers\n", 0);
		ck_assert_int_eq(resusage_parse(&u, big), 1);
		ck_assert_uint_eq(resusage_find(&u, "_Z1kv")->regs, 9);
	}
}
END_TEST

static Suite *resusage_suite(void)
{
	Suite *s = suite_create("resusage");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, spilling_kernel);
	tcase_add_test(tc, two_kernels_and_a_function);
	tcase_add_test(tc, not_ptxas_output);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(resusage_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
