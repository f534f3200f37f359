/*
 * The interpreter's scalar forms (harness/emu/ptx/scalar.c,
 * harness/emu/vm/scalar.c, harness/emu/vm/lanes.c) against its general
 * path, bit for bit.  Each form runs twice in one kernel on the same
 * values: on kernel parameters (uniform, so computed once on scalars,
 * scalar.c) and on values each lane loads from global memory (not marked
 * uniform, so computed lane by lane, lanes.c).  The same kernel loaded
 * with WGEMU_SCALAR=0 runs both copies on the general path (alu.c and
 * exec.c).  Every lane's results must be the general path's, for every
 * pair of a list of edge values.  40 threads: the second warp has 8
 * live lanes, so a uniform value's lane 0 is not the only lane that
 * reads it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu_helpers.h"

#define THREADS 40

/* a form: the instruction (d, a, b, c stand for its operands) and the
 * bits of the registers of d, a, b and c (0: a's) */
struct form {
	const char *text;
	int dbits, abits, bbits, cbits;
};

static const struct form forms[] = {
	{ "mov.u32 d, a", 32, 32, 0, 0 },
	{ "mov.b64 d, a", 64, 64, 0, 0 },
	{ "mov.u16 d, a", 16, 16, 0, 0 },
	{ "add.s32 d, a, b", 32, 32, 0, 0 },
	{ "add.u64 d, a, b", 64, 64, 0, 0 },
	{ "add.u16 d, a, b", 16, 16, 0, 0 },
	{ "add.s32 d, a, 7", 32, 32, 0, 0 },
	{ "sub.s32 d, a, b", 32, 32, 0, 0 },
	{ "sub.s64 d, a, b", 64, 64, 0, 0 },
	{ "mul.lo.s32 d, a, b", 32, 32, 0, 0 },
	{ "mul.lo.u64 d, a, b", 64, 64, 0, 0 },
	{ "mul.wide.s32 d, a, b", 64, 32, 0, 0 },
	{ "mul.wide.u32 d, a, b", 64, 32, 0, 0 },
	{ "mad.lo.s32 d, a, b, c", 32, 32, 0, 0 },
	{ "mad.lo.u64 d, a, b, c", 64, 64, 0, 0 },
	{ "mad.wide.s32 d, a, b, c", 64, 32, 32, 64 },
	{ "mad.wide.u32 d, a, b, c", 64, 32, 32, 64 },
	{ "shl.b32 d, a, b", 32, 32, 0, 0 },
	{ "shl.b64 d, a, b", 64, 64, 32, 0 },
	{ "shr.u32 d, a, b", 32, 32, 0, 0 },
	{ "shr.s32 d, a, b", 32, 32, 0, 0 },
	{ "shr.s64 d, a, b", 64, 64, 32, 0 },
	{ "shr.u64 d, a, b", 64, 64, 32, 0 },
	{ "shr.s16 d, a, b", 16, 16, 32, 0 },
	{ "and.b32 d, a, b", 32, 32, 0, 0 },
	{ "or.b64 d, a, b", 64, 64, 0, 0 },
	{ "xor.b32 d, a, b", 32, 32, 0, 0 },
	{ "not.b32 d, a", 32, 32, 0, 0 },
	{ "not.b64 d, a", 64, 64, 0, 0 },
	{ "neg.s32 d, a", 32, 32, 0, 0 },
	{ "neg.s64 d, a", 64, 64, 0, 0 },
	{ "min.s32 d, a, b", 32, 32, 0, 0 },
	{ "min.u32 d, a, b", 32, 32, 0, 0 },
	{ "max.s64 d, a, b", 64, 64, 0, 0 },
	{ "max.u64 d, a, b", 64, 64, 0, 0 },
	{ "div.s32 d, a, b", 32, 32, 0, 0 },
	{ "div.u32 d, a, b", 32, 32, 0, 0 },
	{ "div.s64 d, a, b", 64, 64, 0, 0 },
	{ "div.u64 d, a, b", 64, 64, 0, 0 },
	{ "rem.s32 d, a, b", 32, 32, 0, 0 },
	{ "rem.u64 d, a, b", 64, 64, 0, 0 },
	{ "cvt.s64.s32 d, a", 64, 32, 0, 0 },
	{ "cvt.u64.u32 d, a", 64, 32, 0, 0 },
	{ "cvt.u32.u64 d, a", 32, 64, 0, 0 },
	{ "cvt.s32.s64 d, a", 32, 64, 0, 0 },
	{ "cvt.s32.s16 d, a", 32, 16, 0, 0 },
	{ "cvt.u16.u32 d, a", 16, 32, 0, 0 },
	{ "cvt.u64.s32 d, a", 64, 32, 0, 0 },
	{ "cvt.s64.u32 d, a", 64, 32, 0, 0 },
	{ "cvt.s16.u32 d, a", 16, 32, 0, 0 },
	{ "cvt.u32.s16 d, a", 32, 16, 0, 0 },
	{ "cvta.to.global.u64 d, a", 64, 64, 0, 0 },
	{ "cvta.to.shared.u64 d, a", 64, 64, 0, 0 },
	{ "cvta.shared.u64 d, a", 64, 64, 0, 0 },
	{ "setp.lt.s32 p, a, b", 1, 32, 0, 0 },
	{ "setp.ge.u32 p, a, b", 1, 32, 0, 0 },
	{ "setp.eq.s64 p, a, b", 1, 64, 0, 0 },
	{ "setp.hi.u64 p, a, b", 1, 64, 0, 0 },
	{ "setp.le.s16 p, a, b", 1, 16, 0, 0 },
	{ "setp.ne.and.s32 p, a, b, q", 1, 32, 0, 0 },
	{ "setp.gt.or.u32 p, a, b, !q", 1, 32, 0, 0 },
	{ "setp.lt.xor.s64 p|r, a, b, q", 1, 64, 0, 0 },
	{ "setp.ne.and.s32 p|r, a, b, q", 1, 32, 0, 0 },
	{ "setp.gt.or.u32 p|r, a, b, !q", 1, 32, 0, 0 },
	{ "selp.b32 d, a, b, q", 32, 32, 0, 0 },
	{ "selp.u64 d, a, b, q", 64, 64, 0, 0 },
};
#define NFORMS (sizeof(forms) / sizeof(forms[0]))

static const uint64_t values[] = {
	0, 1, 2, 7, 31, 32, 63, 64, 0x7fff, 0x8000, 0x7fffffff, 0x80000000,
	0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xfffffffffffffffeull, 0xffffffffffffffffull,
	0xdeadbeefcafef00dull,
};
#define NVALUES (sizeof(values) / sizeof(values[0]))

/* the bits of source i (0 a, 1 b, 2 c) of fm */
static int src_bits(const struct form *fm, int i)
{
	int b = i == 1 ? fm->bbits : i == 2 ? fm->cbits : 0;

	return b ? b : fm->abits;
}

/* the register of copy x (u: uniform, l: lane by lane) holding
 * operand o (d, a, b, c) of bits, or predicate o (p, q, r) */
static void name(char *out, size_t cap, int bits, char x, char o)
{
	if (o == 'p' || o == 'q' || o == 'r')
		snprintf(out, cap, "%%p%c%c", x, o);
	else
		snprintf(out, cap, "%%%s%c%c", bits == 64 ? "rd" : bits == 32 ?
			 "r" : "h", x, o);
}

/* the form's text with its operands named for copy x */
static void spell(const struct form *fm, char x, char *out, size_t cap)
{
	size_t n = 0;

	for (const char *t = fm->text; *t && n + 16 < cap; t++) {
		int alone = t > fm->text && strchr(" ,!|", t[-1]) &&
			    strchr(",|", t[1]);
		const char *o = alone ? strchr("dabcpqr", *t) : NULL;

		if (o && *t)
			name(out + n, cap - n, *t == 'd' ? fm->dbits :
			     src_bits(fm, (int)(o - "dabcpqr") - 1), x, *t);
		else
			out[n] = *t, out[n + 1] = 0;
		n = strlen(out);
	}
}

/* Copy x of the form: its sources from the 64-bit %rdXv0..2 in their
 * widths, q (and r) from the third value's low bit, the form, and its
 * result (its predicates p and r as bits 0 and 1) stored at out + off. */
static void copy(const struct form *fm, char x, int off, char *k, size_t cap)
{
	char text[160], r[16];

	for (int i = 0; i < 3; i++) {
		int b = src_bits(fm, i);

		name(r, sizeof(r), b, x, "abc"[i]);
		snprintf(k + strlen(k), cap - strlen(k), "\t%s %s, %%rd%cv%d;\n",
			 b == 64 ? "mov.b64" : b == 32 ? "cvt.u32.u64" :
			 "cvt.u16.u64", r, x, i);
	}
	spell(fm, x, text, sizeof(text));
	snprintf(k + strlen(k), cap - strlen(k),
		 "\tand.b64 %%rd%cq, %%rd%cv2, 1;\n"
		 "\tsetp.ne.u64 %%p%cq, %%rd%cq, 0;\n"
		 "\tsetp.ne.u64 %%p%cr, %%rd%cq, 0;\n\t%s;\n",
		 x, x, x, x, x, x, text);
	name(r, sizeof(r), fm->dbits, x, 'd');
	if (fm->dbits == 1)
		snprintf(k + strlen(k), cap - strlen(k),
			 "\tselp.u64 %%rd%cs, 1, 0, %%p%cp;\n"
			 "\tselp.u64 %%rd%ct, 2, 0, %%p%cr;\n"
			 "\tor.b64 %%rd%cs, %%rd%cs, %%rd%ct;\n",
			 x, x, x, x, x, x, x);
	else
		snprintf(k + strlen(k), cap - strlen(k), "\t%s %%rd%cs, %s;\n",
			 fm->dbits == 64 ? "mov.b64" : fm->dbits == 32 ?
			 "cvt.u64.u32" : "cvt.u64.u16", x, r);
	snprintf(k + strlen(k), cap - strlen(k),
		 "\tst.global.u64 [%%rdo+%d], %%rd%cs;\n", off, x);
}

/* the registers of copy x */
static void regs(char x, char *k, size_t cap)
{
	snprintf(k + strlen(k), cap - strlen(k),
		 "\t.reg .pred %%p%cp, %%p%cq, %%p%cr;\n"
		 "\t.reg .b16 %%h%cd, %%h%ca, %%h%cb, %%h%cc;\n"
		 "\t.reg .b32 %%r%cd, %%r%ca, %%r%cb, %%r%cc;\n"
		 "\t.reg .b64 %%rd%cd, %%rd%ca, %%rd%cb, %%rd%cc, %%rd%cv0, "
		 "%%rd%cv1, %%rd%cv2, %%rd%cs, %%rd%ct, %%rd%cq;\n",
		 x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x,
		 x);
}

/* the kernel name of form fm: parameters out, in (per lane: a, b, c),
 * a, b, c */
static void kernel(const struct form *fm, const char *name, char *k,
		   size_t cap)
{
	snprintf(k, cap, HDR
		 ".visible .entry %s(.param .u64 out, .param .u64 in,\n"
		 "\t.param .u64 a, .param .u64 b, .param .u64 c)\n{\n"
		 "\t.reg .b32 %%r1;\n"
		 "\t.reg .b64 %%rd<5>, %%rdi, %%rdo;\n", name);
	regs('u', k, cap);
	regs('l', k, cap);
	snprintf(k + strlen(k), cap - strlen(k),
		 "\tld.param.u64 %%rd1, [out];\n"
		 "\tld.param.u64 %%rd2, [in];\n"
		 "\tld.param.u64 %%rduv0, [a];\n"
		 "\tld.param.u64 %%rduv1, [b];\n"
		 "\tld.param.u64 %%rduv2, [c];\n"
		 "\tcvta.to.global.u64 %%rdi, %%rd2;\n"
		 "\tld.global.u64 %%rdlv0, [%%rdi];\n"
		 "\tld.global.u64 %%rdlv1, [%%rdi+8];\n"
		 "\tld.global.u64 %%rdlv2, [%%rdi+16];\n"
		 "\tmov.u32 %%r1, %%tid.x;\n"
		 "\tmul.wide.u32 %%rd3, %%r1, 16;\n"
		 "\tcvta.to.global.u64 %%rd4, %%rd1;\n"
		 "\tadd.s64 %%rdo, %%rd4, %%rd3;\n");
	copy(fm, 'u', 0, k, cap);
	copy(fm, 'l', 8, k, cap);
	snprintf(k + strlen(k), cap - strlen(k), "\tret;\n}\n");
}

/* form fm's results for vals (a, b, c): got[2t] thread t's uniform
 * copy's, got[2t + 1] its lane copy's, by the kernel named name */
static void run(const char *name, const uint64_t vals[3],
		uint64_t got[2 * THREADS], uint64_t *d_in, uint64_t *d_out)
{
	void *args[5] = { &d_out, &d_in, (void *)&vals[0], (void *)&vals[1],
			  (void *)&vals[2] };

	ck_assert_int_eq(cudaMemcpy(d_in, vals, 3 * sizeof(*vals),
				    cudaMemcpyHostToDevice), cudaSuccess);
	ck_assert_int_eq(launch(name, 1, 1, THREADS, 1, 0, args),
			 cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(got, d_out, 2 * THREADS * sizeof(*got),
				    cudaMemcpyDeviceToHost), cudaSuccess);
}

/* form fm's kernel loaded as name, with the scalar forms or without */
static void load_form(const struct form *fm, const char *name, int forms_on)
{
	static char k[8192];
	char err[512];

	kernel(fm, name, k, sizeof(k));
	if (!forms_on)
		setenv("WGEMU_SCALAR", "0", 1);
	ck_assert_msg(wgemu_load_ptx(k, strlen(k), err, sizeof(err)) >= 0,
		      "%s: %s\n%s", fm->text, err, k);
	unsetenv("WGEMU_SCALAR");
}

/* Every form, on every pair of values (c from the second): the scalar
 * and the lane-by-lane forms give in every lane what the general path
 * gives for the same kernel loaded with WGEMU_SCALAR=0. */
START_TEST(test_scalar_forms_match_general_path)
{
	uint64_t got[2 * THREADS], want[2 * THREADS], vals[3];
	uint64_t *d_in = dalloc(3 * sizeof(*vals));
	uint64_t *d_out = dalloc(sizeof(got));

	for (size_t f = 0; f < NFORMS; f++) {
		load_form(&forms[f], "form_general", 0);
		load_form(&forms[f], "form_scalar", 1);
		for (size_t i = 0; i < NVALUES * NVALUES; i++) {
			vals[0] = values[i / NVALUES];
			vals[1] = values[i % NVALUES];
			vals[2] = ~vals[1] ^ (uint64_t)i;
			run("form_general", vals, want, d_in, d_out);
			run("form_scalar", vals, got, d_in, d_out);
			for (int j = 0; j < 2 * THREADS; j++)
				ck_assert_msg(got[j] == want[j],
					      "%s on 0x%llx, 0x%llx, 0x%llx, "
					      "thread %d, %s copy: 0x%llx, "
					      "the general path 0x%llx",
					      forms[f].text,
					      (unsigned long long)vals[0],
					      (unsigned long long)vals[1],
					      (unsigned long long)vals[2],
					      j / 2, j % 2 ? "lane" : "uniform",
					      (unsigned long long)got[j],
					      (unsigned long long)want[j]);
		}
	}
}
END_TEST

/* The uniform copies do go through the scalar forms: the parser marks
 * each form's instruction (so the test above compares two paths). */
START_TEST(test_forms_are_marked)
{
	static char k[4096];
	char err[256], text[160];

	for (size_t f = 0; f < NFORMS; f++) {
		struct emu_module *m;
		const struct emu_func *fn;

		snprintf(k, sizeof(k), HDR ".visible .entry form()\n{\n");
		regs('u', k, sizeof(k));
		spell(&forms[f], 'u', text, sizeof(text));
		snprintf(k + strlen(k), sizeof(k) - strlen(k),
			 "\t%s;\n\tret;\n}\n", text);
		m = emu_ptx_parse(k, strlen(k), err, sizeof(err));
		ck_assert_msg(m != NULL, "%s: %s", forms[f].text, err);
		fn = &m->funcs[emu_module_find(m, "form")];
		ck_assert_msg(fn->insns[0].scalar != SC_NONE, "%s",
			      forms[f].text);
		emu_module_free(m);
	}
}
END_TEST

/* each thread's x + 1000 y + 100000 z of its %tid, computed by scalar
 * forms on the %tid registers, stored at its linear index */
static const char tids_ptx[] = HDR
	".visible .entry tids(.param .u64 out)\n{\n"
	"\t.reg .b32 %r<11>;\n\t.reg .b64 %rd<5>;\n"
	"\tld.param.u64 %rd1, [out];\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n"
	"\tmov.u32 %r3, %tid.z;\n\tmov.u32 %r4, %ntid.x;\n"
	"\tmov.u32 %r5, %ntid.y;\n"
	"\tmad.lo.s32 %r6, %r3, %r5, %r2;\n"
	"\tmad.lo.s32 %r7, %r6, %r4, %r1;\n"
	"\tmul.lo.s32 %r8, %r2, 1000;\n"
	"\tmad.lo.s32 %r9, %r3, 100000, %r8;\n"
	"\tadd.s32 %r10, %r9, %r1;\n"
	"\tmul.wide.u32 %rd3, %r7, 4;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tst.global.u32 [%rd4], %r10;\n\tret;\n}\n";

/* A %tid component is one value per warp only in some block shapes
 * (tid.y where ntid.x is a multiple of 32): in every shape, and in warps
 * that straddle a row or a plane, each thread gets its own. */
START_TEST(test_tid_marks)
{
	static const unsigned shapes[][3] = {
		{ 32, 8, 1 }, { 16, 4, 1 }, { 48, 2, 1 }, { 32, 2, 2 },
		{ 8, 2, 3 }, { 1, 64, 1 }, { 32, 3, 1 }, { 64, 1, 2 },
		{ 2, 16, 2 }, { 1, 1, 64 }, { 24, 4, 2 },
	};
	char err[256];
	uint32_t *d = dalloc(1024 * sizeof(uint32_t)), got[1024];
	void *args[1] = { &d };
	const void *k;

	ck_assert_msg(wgemu_load_ptx(tids_ptx, strlen(tids_ptx), err,
				     sizeof(err)) >= 0, "%s", err);
	k = wgemu_kernel("tids");
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const unsigned *b = shapes[s];
		dim3 g = { 1, 1, 1 }, bd = { b[0], b[1], b[2] };
		unsigned n = b[0] * b[1] * b[2];

		ck_assert_int_eq(cudaLaunchKernel(k, g, bd, args, 0, NULL),
				 cudaSuccess);
		ck_assert_int_eq(cudaMemcpy(got, d, n * sizeof(*got),
					    cudaMemcpyDeviceToHost),
				 cudaSuccess);
		for (unsigned t = 0; t < n; t++) {
			unsigned x = t % b[0], y = t / b[0] % b[1],
				 z = t / (b[0] * b[1]);

			ck_assert_msg(got[t] == x + 1000 * y + 100000 * z,
				      "block %ux%ux%u, thread %u: %u",
				      b[0], b[1], b[2], t, got[t]);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu_scalar");
	TCase *tc = tcase_create("scalar");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_scalar_forms_match_general_path);
	tcase_add_test(tc, test_forms_are_marked);
	tcase_add_test(tc, test_tid_marks);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
