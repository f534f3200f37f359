/*
 * The exercise table, shape lists and CPU oracles.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"

START_TEST(table_is_complete)
{
	static const char *const names[] = { "coalesced_transpose",
		"padded_tile", "aos_to_soa", "dynamic_reverse" };
	static const char *const launchers[] = { "coalesced_transpose",
		"padded_tile_transpose", "aos_to_soa", "reverse_rows" };

	ck_assert_uint_eq(exercise_count(), 4);
	for (int i = 0; i < 4; i++) {
		const struct exercise *ex = exercise_find(names[i]);

		ck_assert_ptr_nonnull(ex);
		ck_assert_ptr_eq(ex, exercise_table[i]);
		ck_assert_str_eq(ex->launcher, launchers[i]);
		ck_assert_uint_eq(ex->elem_size, 4);
		ck_assert_ptr_nonnull(ex->generate);
		ck_assert_ptr_nonnull(ex->expected);
		ck_assert(ex->techniques & 1u); /* all check coalescing */
	}
	ck_assert_ptr_null(exercise_find("nope"));
	ck_assert(exercise_find("padded_tile")->techniques &
		  EXERCISE_TECH_NO_CONFLICTS);
	ck_assert(exercise_find("dynamic_reverse")->techniques &
		  EXERCISE_TECH_DYNAMIC_SHARED);
}
END_TEST

START_TEST(sweep_covers_every_shape_once)
{
	const struct exercise *ex = exercise_table[_i];
	static unsigned char seen[65][65];

	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < EXERCISE_SWEEP_COUNT; i++) {
		unsigned flags = 9;
		struct exercise_shape s = exercise_shape_at(ex, i, &flags);

		ck_assert(s.m >= 1 && s.m <= 64 && s.n >= 1 && s.n <= 64);
		ck_assert_uint_eq(flags, 0);
		ck_assert_int_eq(seen[s.m][s.n], 0);
		seen[s.m][s.n] = 1;
		/* index order: m-major */
		ck_assert_uint_eq(i, (size_t)(s.m - 1) * 64 + (size_t)s.n - 1);
	}
	ck_assert_uint_eq(exercise_nshapes(ex),
			  EXERCISE_SWEEP_COUNT + ex->nedges);
}
END_TEST

START_TEST(edges_as_specified)
{
	const struct exercise *ex = exercise_table[_i];
	int huge_m = 0, huge_n = 0, perf = 0, past_pow2 = 0;

	for (size_t i = 0; i < ex->nedges; i++) {
		struct exercise_shape s = ex->edges[i].shape;
		unsigned flags;
		struct exercise_shape t = exercise_shape_at(ex,
			EXERCISE_SWEEP_COUNT + i, &flags);

		ck_assert(s.m == t.m && s.n == t.n);
		ck_assert_uint_eq(flags, ex->edges[i].flags);
		ck_assert_ptr_nonnull(ex->edges[i].why);
		huge_m |= s.m > 65535 && s.n == 1;
		huge_n |= s.n > 65535 && s.m == 1;
		perf |= s.m == ex->perf_shape.m && s.n == ex->perf_shape.n &&
			(flags & EXERCISE_EDGE_GPU_ONLY);
		past_pow2 |= ((s.m - 1) & (s.m - 2)) == 0 && s.m > 64;
	}
	ck_assert(huge_m);
	ck_assert(huge_n);
	ck_assert(perf);
	ck_assert(past_pow2);
	/* about 256 MB per buffer at the performance shape */
	ck_assert_uint_ge(exercise_shape_elems(ex->perf_shape) * 4,
			  192u << 20);
	ck_assert_uint_le(exercise_shape_elems(ex->perf_shape) * 4,
			  256u << 20);
}
END_TEST

START_TEST(generator_is_deterministic_and_seeded)
{
	const struct exercise *ex = exercise_table[_i];
	struct exercise_shape s = { 37, 53 };
	size_t n = exercise_shape_elems(s);
	uint32_t *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
	size_t same = 0;

	ex->generate(99, 5, s, a);
	ex->generate(99, 5, s, b);
	ck_assert_mem_eq(a, b, n * 4);
	ex->generate(100, 5, s, c);
	for (size_t i = 0; i < n; i++)
		same += a[i] == c[i];
	ck_assert_uint_lt(same, n / 100 + 1);
	ex->generate(99, 6, s, c); /* another shape index */
	same = 0;
	for (size_t i = 0; i < n; i++)
		same += a[i] == c[i];
	ck_assert_uint_lt(same, n / 100 + 1);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_ne(a[i], 0xA5A5A5A5u); /* never the poison */
		if (ex->elem_is_float) {
			float f;

			memcpy(&f, &a[i], 4);
			ck_assert(isfinite(f) && fpclassify(f) == FP_NORMAL);
		}
	}
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(transpose_oracle)
{
	const struct exercise *ex = exercise_find("coalesced_transpose");
	struct exercise_shape s = { 3, 70 }; /* crosses a 32-block edge */
	uint32_t in[210], out[210];

	for (uint32_t i = 0; i < 210; i++)
		in[i] = i;
	ex->expected(in, out, s);
	for (uint32_t r = 0; r < 3; r++)
		for (uint32_t c = 0; c < 70; c++)
			ck_assert_uint_eq(out[c * 3 + r], in[r * 70 + c]);
}
END_TEST

START_TEST(aos_oracle)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	struct exercise_shape s = { 5, 3 }; /* 5 records of 3 fields */
	uint32_t aos[15], soa[15];

	for (uint32_t i = 0; i < 15; i++)
		aos[i] = 100 + i;
	ex->expected(aos, soa, s);
	/* soa[f*count + i] = aos[i*fields + f] */
	ck_assert_uint_eq(soa[0], 100);      /* x of record 0 */
	ck_assert_uint_eq(soa[1], 103);      /* x of record 1 */
	ck_assert_uint_eq(soa[5], 101);      /* y of record 0 */
	ck_assert_uint_eq(soa[14], 114);     /* z of record 4 */
}
END_TEST

START_TEST(reverse_oracle)
{
	const struct exercise *ex = exercise_find("dynamic_reverse");
	struct exercise_shape s = { 2, 5 };
	int32_t in[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, out[10];
	int32_t want[10] = { 5, 4, 3, 2, 1, 10, 9, 8, 7, 6 };

	ex->expected(in, out, s);
	ck_assert_mem_eq(out, want, sizeof(want));
}
END_TEST

START_TEST(hash_detects_one_bit)
{
	uint32_t a[1000];

	for (int i = 0; i < 1000; i++)
		a[i] = (uint32_t)i * 2654435761u;
	{
		uint64_t h = exercise_hash(a, sizeof(a));

		a[777] ^= 1;
		ck_assert_uint_ne(h, exercise_hash(a, sizeof(a)));
		a[777] ^= 1;
		ck_assert_uint_eq(h, exercise_hash(a, sizeof(a)));
		/* tail bytes count too */
		ck_assert_uint_ne(exercise_hash(a, 3999),
				  exercise_hash(a, 4000));
	}
}
END_TEST

/* exercise_digest: the blocks' exercise_hash folded (as a GPU computes
 * it: blocks hashed apart, folded after), at every kind of length; a
 * bit anywhere and the length change it. */
START_TEST(digest_folds_block_hashes)
{
	const size_t B = EXERCISE_DIGEST_BLOCK;
	const size_t lens[] = { 0, 1, 7, 8, B - 1, B, B + 1, 3 * B + 5 };
	size_t cap = 3 * B + 8;
	unsigned char *p = malloc(cap);
	uint64_t bh[4];

	for (size_t i = 0; i < cap; i++)
		p[i] = (unsigned char)(i * 131 + (i >> 9));
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = lens[k], nb = exercise_digest_blocks(n);
		uint64_t d = exercise_digest(p, n);

		ck_assert_uint_eq(nb, (n + B - 1) / B);
		for (size_t j = 0; j < nb; j++)
			bh[j] = exercise_hash(p + j * B,
					      n - j * B < B ? n - j * B : B);
		ck_assert_uint_eq(d, exercise_digest_fold(bh, n));
		if (n) {
			p[n - 1] ^= 4;
			ck_assert_uint_ne(d, exercise_digest(p, n));
			p[n - 1] ^= 4;
		}
	}
	ck_assert_uint_ne(exercise_digest(p, B), exercise_digest(p, B + 1));
	free(p);
}
END_TEST

static Suite *exercises_suite(void)
{
	Suite *s = suite_create("exercises");
	TCase *t = tcase_create("table");
	TCase *sh = tcase_create("shapes");
	TCase *o = tcase_create("oracles");

	tcase_add_test(t, table_is_complete);
	tcase_add_loop_test(sh, sweep_covers_every_shape_once, 0, 4);
	tcase_add_loop_test(sh, edges_as_specified, 0, 4);
	tcase_add_loop_test(o, generator_is_deterministic_and_seeded, 0, 4);
	tcase_add_test(o, transpose_oracle);
	tcase_add_test(o, aos_oracle);
	tcase_add_test(o, reverse_oracle);
	tcase_add_test(o, hash_detects_one_bit);
	tcase_add_test(o, digest_folds_block_hashes);
	tcase_set_timeout(t, 10);
	tcase_set_timeout(sh, 10);
	tcase_set_timeout(o, 10);
	suite_add_tcase(s, t);
	suite_add_tcase(s, sh);
	suite_add_tcase(s, o);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(exercises_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
