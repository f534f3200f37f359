/*
 * The scalar form of each instruction (emu.h, SC_*): which instructions
 * the interpreter may compute once, on 64-bit scalars, when every live
 * lane runs them on warp-uniform sources (vm/scalar.c).  A kernel's
 * index arithmetic is mostly such instructions -- the block's offsets,
 * a grid-stride loop's counter, the bounds it compares with -- and the
 * general path (vm/exec.c) spends most of their time finding out what
 * they are.
 *
 * An instruction gets a form only when vm/scalar.c computes exactly the
 * bits alu.c and exec.c do for it: integers of 2, 4 or 8 bytes, no .sat,
 * .cc, .hi or .relu, sources of registers, constants and symbols, and a
 * register destination (a predicate for setp); and ld.param of one value
 * of a kernel parameter named by its symbol.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"
#include "emu/ptx/opcodes.h"

/* an integer type vm/scalar.c computes in (no SIMD pairs) */
static int int_type(int t)
{
	int sz = emu_type_size[t];

	return emu_type_kind[t] != 'f' && t != T_PRED && t != T_U16X2 &&
	       t != T_S16X2 && (sz == 2 || sz == 4 || sz == 8);
}

/* the first n sources are registers, constants or symbols */
static int plain_srcs(const struct emu_insn *in, int n)
{
	for (int i = 0; i < n; i++) {
		int k = in->s[i].kind;

		if (k != OK_REG && k != OK_CONST && k != OK_SYM)
			return 0;
	}
	return 1;
}

/* one register destination */
static int reg_dst(const struct emu_insn *in)
{
	return in->ndst == 1 && in->d[0].kind == OK_REG;
}

/* mul and mad: .lo (or no modifier) and .wide of 32-bit factors */
static int mul_form(const struct emu_insn *in)
{
	int mad = in->op == OP_MAD, s = emu_type_kind[in->type] == 's';

	if (in->flags == F_WIDE && emu_type_size[in->type] == 4)
		return mad ? (s ? SC_MAD_WIDE_S : SC_MAD_WIDE_U) :
			     (s ? SC_MUL_WIDE_S : SC_MUL_WIDE_U);
	if (in->flags == F_LO || in->flags == 0)
		return mad ? SC_MAD_LO : SC_MUL_LO;
	return SC_NONE;
}

/* the integer operations of CLASS_ALU */
static int alu_form(const struct emu_insn *in)
{
	int s = emu_type_kind[in->type] == 's';

	if (!int_type(in->type) || !reg_dst(in) || in->sub ||
	    !plain_srcs(in, in->nsrc))
		return SC_NONE;
	if (in->op == OP_MUL || in->op == OP_MAD)
		return mul_form(in);
	if (in->flags)
		return SC_NONE;
	switch (in->op) {
	case OP_ADD: return SC_ADD;
	case OP_SUB: return SC_SUB;
	case OP_SHL: return SC_SHL;
	case OP_SHR: return s ? SC_SHR_S : SC_SHR_U;
	case OP_AND: return SC_AND;
	case OP_OR: return SC_OR;
	case OP_XOR: return SC_XOR;
	case OP_NOT: return SC_NOT;
	case OP_NEG: return SC_NEG;
	case OP_MIN: return s ? SC_MIN_S : SC_MIN_U;
	case OP_MAX: return s ? SC_MAX_S : SC_MAX_U;
	case OP_DIV: return s ? SC_DIV_S : SC_DIV_U;
	case OP_REM: return s ? SC_REM_S : SC_REM_U;
	default: return SC_NONE;
	}
}

static int form_of(const struct emu_insn *in)
{
	switch (in->op) {
	case OP_MOV:
		return in->type != T_PRED && in->type != T_B128 &&
		       emu_type_size[in->type] <= 8 && reg_dst(in) &&
		       in->nsrc == 1 && plain_srcs(in, 1) ? SC_MOV : SC_NONE;
	case OP_CVT:
		return int_type(in->type) && int_type(in->type2) &&
		       !in->flags && !in->sub && reg_dst(in) &&
		       in->nsrc == 1 && plain_srcs(in, 1) ? SC_CVT : SC_NONE;
	case OP_CVTA:
		if (in->space == SP_PARAM || !reg_dst(in) || in->nsrc != 1 ||
		    !plain_srcs(in, 1) || (in->flags & ~F_TO))
			return SC_NONE;
		return in->flags & F_TO ? SC_CVTA_TO : SC_CVTA_FROM;
	case OP_SETP:
		return int_type(in->type) && (in->nsrc == 2 ||
		       (in->nsrc == 3 && (in->s[2].kind == OK_PRED ||
					  in->s[2].kind == OK_CONST))) &&
		       (in->ndst == 1 || in->ndst == 2) &&
		       !(in->flags & ~F_CC) &&	/* F_CC: its cmp was named */
		       plain_srcs(in, 2) ? SC_SETP : SC_NONE;
	case OP_SELP:
		return in->type != T_PRED && in->type != T_B128 &&
		       emu_type_size[in->type] <= 8 && reg_dst(in) &&
		       in->nsrc == 3 && in->s[2].kind == OK_PRED &&
		       plain_srcs(in, 2) ? SC_SELP : SC_NONE;
	case OP_LD:	/* ld.param of a kernel parameter, by its name */
		return in->space == SP_KPARAM && in->ak == AK_SYM &&
		       in->vec == 1 && in->type != T_PRED &&
		       in->type != T_B128 && emu_type_size[in->type] <= 8 &&
		       reg_dst(in) ? SC_LD_KPARAM : SC_NONE;
	default:
		return emu_op_exec[in->op] == EXEC_alu ? alu_form(in) :
							 SC_NONE;
	}
}

/* the operands of in that name a register of the frame (emu.h, regops) */
static uint16_t reg_operands(const struct emu_insn *in, int nregs)
{
	uint16_t r = 0;

	for (int i = 0; i < 4; i++) {
		if (in->s[i].kind == OK_REG)
			r |= (uint16_t)(1u << i);
		if (in->d[i].kind == OK_REG)
			r |= (uint16_t)(1u << (4 + i));
	}
	/* areg is 0 where an instruction has none: no special register
	 * (the first slots) is ever an address, a handle or a callee */
	if (in->areg >= SR_COUNT && in->areg < nregs)
		r |= 1u << 8;
	return r;
}

/* f's instructions moved to memory aligned on a cache line, so that
 * what the interpreter reads of each is one line (emu.h); left where
 * they are when there is no memory for it */
static void align_insns(struct emu_func *f)
{
	size_t bytes = (size_t)f->ninsns * sizeof(*f->insns);
	struct emu_insn *a;

	if (!f->ninsns || !(a = aligned_alloc(64, (bytes + 63) & ~(size_t)63)))
		return;
	memcpy(a, f->insns, bytes);
	free(f->insns);
	f->insns = a;
}

void emu_scalar_mark(struct emu_func *f)
{
	/* WGEMU_SCALAR=0: every instruction on the general path (a check
	 * of the forms, tests/check_emu_scalar.c) */
	const char *env = getenv("WGEMU_SCALAR");
	int on = !env || strcmp(env, "0");

	/* scalar_ready reads a mark for every source, slot 0 for one that
	 * is not a register: the frame has one, and umark holds each */
	if (f->nregs < 1 || f->nregs > UINT16_MAX)
		on = 0;
	for (int i = 0; i < f->ninsns; i++) {
		struct emu_insn *in = &f->insns[i];

		in->scalar = on ? (uint8_t)form_of(in) : SC_NONE;
		in->regops = reg_operands(in, f->nregs);
		for (int k = 0; k < 4; k++)
			in->s[k].umark = in->scalar && in->s[k].kind == OK_REG ?
					 (uint16_t)in->s[k].idx : 0;
	}
	align_insns(f);
}
