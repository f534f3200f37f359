/*
 * Contraction: the fused multiply-add ptxas makes of a mul and an add
 * (or sub) that carry no rounding modifier.  The PTX ISA lets the code
 * generator fuse such a pair, rounding once, and ptxas does: `__hmul(a,
 * b) + c` on halves is mul.f16 then add.f16 in the PTX and one HFMA in
 * the SASS (measured on an H100: tests/emu/probe_breadth.cu, whose
 * result differs in the last bits otherwise), and `a*b - c*d` in f32,
 * two mul.f32 then a sub.f32, is fma(a, b, -(c*d)) (measured on an H100:
 * Rodinia's myocyte, whose output is the H100's to the byte only so;
 * tests/check_emu_counters.c, test_f32_contraction).  An instruction
 * with a rounding modifier is never fused.
 *
 * The rule: a mul of f32, f64, f16, f16x2, bf16 or bf16x2 without a
 * rounding modifier or .sat, whose result register exactly one
 * instruction of the function reads -- an add or sub after it in the
 * same basic block, of the same type and .ftz, without a rounding
 * modifier, under the same guard, with nothing between them writing a
 * register or predicate the pair reads -- is folded into that
 * instruction: the add becomes fma(a, b, c) (a*b - c and c - a*b with
 * FMA_NEG_C and FMA_NEG_AB in its sub), the mul a nop.  Of two products
 * one add or sub reads, the first in the code is fused.  A function with
 * wmma instructions is left alone (their operands are lists of their
 * own).
 */
#include <stdlib.h>
#include "emu/emu.h"

/* the op of an arithmetic instruction, half ones included */
static int op_of(const struct emu_insn *in)
{
	return in->op == OP_HALF ? in->hop : in->op;
}

static int fusable_type(int t)
{
	return t == T_F32 || t == T_F64 || t == T_F16 || t == T_F16X2 ||
	       t == T_BF16 || t == T_BF16X2;
}

/* a mul that may be fused: unrounded, unsaturated, of a float type */
static int is_mul(const struct emu_insn *in)
{
	return op_of(in) == OP_MUL && fusable_type(in->type) &&
	       in->rnd == R_NONE && !(in->flags & F_SAT) && in->ndst == 1 &&
	       in->nsrc == 2 && in->d[0].kind == OK_REG;
}

/* the add or sub that may take mul */
static int takes(const struct emu_insn *add, const struct emu_insn *mul)
{
	int op = op_of(add);

	return (op == OP_ADD || op == OP_SUB) &&
	       (add->op == OP_HALF) == (mul->op == OP_HALF) &&
	       add->type == mul->type && add->rnd == R_NONE &&
	       (add->flags & F_FTZ) == (mul->flags & F_FTZ) &&
	       add->nsrc == 2 && add->guard == mul->guard &&
	       add->guard_neg == mul->guard_neg;
}

/* the address register of a memory access or a call through one */
static int address_reg(const struct emu_insn *in)
{
	int cls = emu_op_class[in->op];

	if ((cls == CLASS_MEM || cls == CLASS_TEX) && in->ak == AK_REG)
		return in->areg;
	return in->op == OP_CALL && in->target < 0 ? in->areg : -1;
}

static int reads_reg(const struct emu_insn *in, int reg)
{
	for (int k = 0; k < in->nsrc && k < 4; k++)
		if (in->s[k].kind == OK_REG && in->s[k].idx == reg)
			return 1;
	return address_reg(in) == reg;
}

/* in writes a register or predicate mul reads (or mul's guard) */
static int clobbers(const struct emu_insn *in, const struct emu_insn *mul)
{
	for (int d = 0; d < in->ndst && d < 4; d++) {
		const struct emu_opnd *o = &in->d[d];

		if (o->kind == OK_PRED && o->idx == mul->guard)
			return 1;
		if (o->kind != OK_REG)
			continue;
		for (int k = 0; k < 2; k++)
			if (mul->s[k].kind == OK_REG && mul->s[k].idx == o->idx)
				return 1;
		if (o->idx == mul->d[0].idx)
			return 1;
	}
	return 0;
}

/* the instruction after mul (at i) that reads its result, in its basic
 * block with nothing clobbering the pair between; -1 when none */
static int reader(const struct emu_func *f, const char *leader, int i)
{
	const struct emu_insn *mul = &f->insns[i];

	for (int j = i + 1; j < f->ninsns; j++) {
		const struct emu_insn *in = &f->insns[j];

		if (leader[j])
			return -1;
		if (reads_reg(in, mul->d[0].idx))
			return j;
		if (emu_op_class[in->op] == CLASS_CTRL || clobbers(in, mul))
			return -1;
	}
	return -1;
}

static void fuse(struct emu_insn *mul, struct emu_insn *add)
{
	int k = add->s[1].kind == OK_REG && add->s[1].idx == mul->d[0].idx;
	struct emu_opnd c = add->s[1 - k];

	if (op_of(add) == OP_SUB)
		add->sub |= k ? FMA_NEG_AB : FMA_NEG_C;
	if (add->op == OP_HALF)
		add->hop = OP_FMA;
	else
		add->op = OP_FMA;
	add->s[0] = mul->s[0];
	add->s[1] = mul->s[1];
	add->s[2] = c;
	add->nsrc = 3;
	mul->op = OP_NOP;
	mul->ndst = 0;
	mul->nsrc = 0;
}

int emu_contract(struct emu_func *f)
{
	char *leader = calloc((size_t)f->ninsns + 1, 1);
	int *reads = calloc((size_t)f->nregs + 1, sizeof(int));

	if (!leader || !reads) {
		free(leader);
		free(reads);
		return -1;
	}
	for (int i = 0; i < f->ninsns; i++) {
		const struct emu_insn *in = &f->insns[i];

		if (in->op == OP_BRA && in->target >= 0 &&
		    in->target < f->ninsns)
			leader[in->target] = 1;
		for (int k = 0; k < in->nsrc && k < 4; k++)
			if (in->s[k].kind == OK_REG && in->s[k].idx >= 0 &&
			    in->s[k].idx < f->nregs)
				reads[in->s[k].idx]++;
		if (address_reg(in) >= 0 && address_reg(in) < f->nregs)
			reads[address_reg(in)]++;
	}
	for (int i = 0; i < f->ninsns && !f->nwmma; i++) {
		struct emu_insn *mul = &f->insns[i];
		int j;

		if (!is_mul(mul) || mul->d[0].idx < 0 ||
		    mul->d[0].idx >= f->nregs || reads[mul->d[0].idx] != 1)
			continue;
		j = reader(f, leader, i);
		if (j >= 0 && takes(&f->insns[j], mul))
			fuse(mul, &f->insns[j]);
	}
	free(leader);
	free(reads);
	return 0;
}
