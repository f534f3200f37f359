/*
 * The interpreter's uniform runs (harness/emu/ptx/urun.c plans them,
 * harness/emu/vm/urun.c runs them): where they are cut, and that a
 * kernel computes the same outputs and counts the same lane
 * instructions with them as without them (WGEMU_URUN=0), for every
 * thread of blocks of one, two and three warps, the last one partial,
 * on a grid-stride loop whose block-wide arithmetic changes with the
 * block and the iteration.  The last warp of each block diverges before
 * a run that reads what it wrote on both paths: that run must not take
 * the outputs the other warps left.  A symbol's address is one of the
 * loop run's inputs, and the run is cut where it would write a ninth
 * register.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/ptx/opcodes.h"
#include "emu_helpers.h"

/* out[b * ntid + t] for b = blockIdx.x, blockIdx.x + gridDim.x, ... < n:
 * ((t >= ntid - 5 ? 100 : 200) + b / k * 1000 + b % k +
 * (b % k < 3 ? 7 : 11)) * 3 + t */
#define KERNEL(name) \
	".shared .align 4 .b8 sdata_" name "[16];\n" \
	".visible .entry " name "(.param .u64 out, .param .u32 n, " \
	".param .u32 k)\n{\n" \
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<23>;\n\t.reg .b64 %rd<5>;\n" \
	"\tld.param.u64 %rd1, [out];\n" \
	"\tld.param.u32 %r1, [n];\n" \
	"\tld.param.u32 %r2, [k];\n" \
	"\tcvta.to.global.u64 %rd2, %rd1;\n" \
	"\tmov.u32 %r3, %ctaid.x;\n" \
	"\tmov.u32 %r4, %nctaid.x;\n" \
	"\tmov.u32 %r5, %tid.x;\n" \
	"\tmov.u32 %r6, %ntid.x;\n" \
	"\tsub.s32 %r19, %r6, 5;\n" \
	"\tmov.u32 %r7, %r3;\n" \
	"$L_loop:\n" \
	"\tsetp.ge.u32 %p1, %r7, %r1;\n" \
	"\t@%p1 bra $L_done;\n" \
	"\tdiv.u32 %r8, %r7, %r2;\n" \
	"\trem.u32 %r9, %r7, %r2;\n" \
	"\tmul.lo.s32 %r10, %r8, 1000;\n" \
	"\tadd.s32 %r11, %r10, %r9;\n" \
	"\tsetp.lt.u32 %p2, %r9, 3;\n" \
	"\tselp.b32 %r12, 7, 11, %p2;\n" \
	"\tadd.s32 %r13, %r11, %r12;\n" \
	"\tmov.u32 %r20, sdata_" name ";\n" \
	"\tsub.s32 %r21, %r20, %r20;\n" \
	"\tadd.s32 %r22, %r13, %r21;\n" \
	"\tsetp.ge.u32 %p3, %r5, %r19;\n" \
	"\t@%p3 bra $L_small;\n" \
	"\tmov.u32 %r14, 200;\n" \
	"\tbra.uni $L_join;\n" \
	"$L_small:\n" \
	"\tmov.u32 %r14, 100;\n" \
	"$L_join:\n" \
	"\tadd.s32 %r15, %r14, %r22;\n" \
	"\tmul.lo.s32 %r16, %r15, 3;\n" \
	"\tmad.lo.s32 %r17, %r7, %r6, %r5;\n" \
	"\tadd.s32 %r18, %r16, %r5;\n" \
	"\tmul.wide.u32 %rd3, %r17, 4;\n" \
	"\tadd.s64 %rd4, %rd2, %rd3;\n" \
	"\tst.global.u32 [%rd4], %r18;\n" \
	"\tadd.s32 %r7, %r7, %r4;\n" \
	"\tbra.uni $L_loop;\n" \
	"$L_done:\n" \
	"\tret;\n}\n"

static const char with_runs[] = HDR KERNEL("uni_runs");
static const char without_runs[] = HDR KERNEL("uni_plain");

/* the pc of the first instruction of op in f at or after pc from */
static int find_op(const struct emu_func *f, int op, int from)
{
	for (int i = from; i < f->ninsns; i++)
		if (f->insns[i].op == op)
			return i;
	ck_abort_msg("no instruction %d from pc %d", op, from);
	return -1;
}

/* the run that holds pc, or NULL */
static const struct emu_urun *run_at(const struct emu_func *f, int pc)
{
	for (int i = 0; i < f->nuruns; i++)
		if (pc >= f->uruns[i].start &&
		    pc < f->uruns[i].start + f->uruns[i].len)
			return &f->uruns[i];
	return NULL;
}

/* The block-wide arithmetic is in runs; what reads %tid, directly or
 * not, is not; a branch target starts a run; WGEMU_URUN=0 plans none. */
START_TEST(test_runs_are_cut_where_warps_differ)
{
	char err[256];
	struct emu_module *m = emu_ptx_parse(with_runs, strlen(with_runs),
					     err, sizeof(err));
	const struct emu_func *f;
	const struct emu_urun *u;
	int div, mad, tsetp, join;

	ck_assert_msg(m != NULL, "%s", err);
	f = &m->funcs[emu_module_find(m, "uni_runs")];
	ck_assert_int_gt(f->nuruns, 0);
	div = find_op(f, OP_DIV, 0);
	u = run_at(f, div);
	/* cut before its ninth register output: the add after it is a run
	 * of one, which is none */
	ck_assert_msg(u && u->start == div && u->len == 9,
		      "the run of the loop's arithmetic: %d, %d",
		      u ? u->start : -1, u ? u->len : 0);
	ck_assert_int_eq(u->nin, 3);     /* the counter, k, sdata */
	ck_assert_int_eq(u->in_kind[2], URUN_SYM);
	ck_assert_int_eq(u->npout, 1);   /* %p2 */
	ck_assert_int_eq(u->nout, URUN_OUT);
	ck_assert_ptr_null(run_at(f, div + 9));
	tsetp = div + 10;                /* setp on %tid.x */
	ck_assert_ptr_null(run_at(f, tsetp));
	mad = find_op(f, OP_MAD, 0);
	ck_assert_ptr_null(run_at(f, mad));
	ck_assert_ptr_null(run_at(f, mad + 1)); /* adds %tid.x */
	join = mad - 2;                  /* $L_join: add, mul */
	u = run_at(f, join);
	ck_assert_msg(u && u->start == join && u->len == 2,
		      "the run after the join");
	ck_assert_int_eq(f->urun_at[join], (int)(u - f->uruns));
	emu_module_free(m);

	setenv("WGEMU_URUN", "0", 1);
	m = emu_ptx_parse(with_runs, strlen(with_runs), err, sizeof(err));
	unsetenv("WGEMU_URUN");
	ck_assert_msg(m != NULL, "%s", err);
	f = &m->funcs[emu_module_find(m, "uni_runs")];
	ck_assert_int_eq(f->nuruns, 0);
	ck_assert_ptr_null(f->urun_at);
	emu_module_free(m);
}
END_TEST

static uint32_t expected(unsigned b, unsigned t, unsigned ntid, unsigned k)
{
	unsigned r = b % k;

	return ((t >= ntid - 5 ? 100u : 200u) + b / k * 1000u + r +
		(r < 3 ? 7u : 11u)) * 3u + t;
}

/* Every thread's output, with runs and without, and the lane
 * instructions the two counted. */
START_TEST(test_runs_match_the_instructions)
{
	static const unsigned blocks[] = { 32, 40, 64, 96, 33 };
	static const unsigned grids[] = { 1, 3, 7 };
	const unsigned n = 23, k = 4;
	char err[256];
	uint32_t *d, *got = malloc(n * 96 * sizeof(*got));

	ck_assert_ptr_nonnull(got);
	ck_assert_msg(wgemu_load_ptx(with_runs, strlen(with_runs), err,
				     sizeof(err)) >= 0, "%s", err);
	setenv("WGEMU_URUN", "0", 1);
	ck_assert_msg(wgemu_load_ptx(without_runs, strlen(without_runs), err,
				     sizeof(err)) >= 0, "%s", err);
	unsetenv("WGEMU_URUN");
	d = dalloc(n * 96 * sizeof(*d));
	for (size_t bi = 0; bi < sizeof(blocks) / sizeof(blocks[0]); bi++)
		for (size_t gi = 0; gi < sizeof(grids) / sizeof(grids[0]);
		     gi++) {
			unsigned bx = blocks[bi], gx = grids[gi];
			void *args[3] = { &d, (void *)&n, (void *)&k };
			uint64_t lanes[2];

			for (int pass = 0; pass < 2; pass++) {
				ck_assert_int_eq(cudaMemset(d, 0, n * 96 *
							    sizeof(*d)),
						 cudaSuccess);
				ck_assert_int_eq(launch(pass ? "uni_plain" :
							"uni_runs", gx, 1, bx,
							1, 0, args),
						 cudaSuccess);
				lanes[pass] =
					last_counters().lane_instructions;
				ck_assert_int_eq(cudaMemcpy(got, d, n * bx *
							    sizeof(*got),
							    cudaMemcpyDeviceToHost),
						 cudaSuccess);
				for (unsigned b = 0; b < n; b++)
					for (unsigned t = 0; t < bx; t++)
						ck_assert_msg(got[b * bx + t] ==
							      expected(b, t,
								       bx, k),
							      "%s, grid %u, "
							      "block %u: "
							      "b %u t %u: %u",
							      pass ? "without "
							      "runs" :
							      "with runs", gx,
							      bx, b, t,
							      got[b * bx + t]);
			}
			ck_assert_msg(lanes[0] == lanes[1], "grid %u, block "
				      "%u: %llu lane instructions with runs, "
				      "%llu without", gx, bx,
				      (unsigned long long)lanes[0],
				      (unsigned long long)lanes[1]);
		}
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_urun");
	TCase *tc = tcase_create("urun");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_runs_are_cut_where_warps_differ);
	tcase_add_test(tc, test_runs_match_the_instructions);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
