/*
 * Merged accesses: which adjacent scalar loads and stores ptxas turns
 * into one vector instruction, so that the interpreter counts memory
 * traffic as the hardware executes it.  `s[2*t] = x; s[2*t+1] = 0;` is
 * two st.shared.f32 in the PTX but one STS.64 in the SASS, and Nsight
 * Compute counts one 8-byte store per warp.
 *
 * The rule (docs/EMULATOR.md, "Merged accesses"): in one basic block,
 * loads (or stores) of one state space, each of w = 4 or 8 bytes, at
 * offsets o, o+w, ... from one base register (or symbol) that nothing
 * in between changes, under one guard, with only arithmetic between
 * them, merge into one access of 16 bytes (4 or 2 of them) or 8 bytes
 * (2 of 4 bytes) when the first address is provably a multiple of that
 * size.  What is provable comes from a known-alignment analysis of the
 * registers (known low zero bits, flow-insensitive, to a fixed point):
 * dynamic shared memory starts at a 16-byte boundary, and so does a
 * kernel's static shared variable when it is the only one (ptxas puts
 * it at offset 0); with several, ptxas packs them in an order of its
 * own (a float[3] then a float[] starts the second at byte 12, measured
 * on an H100), so each has only its declared alignment; other symbols
 * have their declared alignment, kernel
 * parameters and loaded values are unknown.  A merged group is marked
 * on its instructions: the first carries the merged width, the others
 * MERGE_FOLLOW; each still executes and is checked alone.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"

#define ALIGN_MAX 6        /* log2 of the largest alignment tracked */

static int tz(uint64_t v)
{
	return v ? (__builtin_ctzll(v) < ALIGN_MAX ? __builtin_ctzll(v)
						    : ALIGN_MAX) : ALIGN_MAX;
}

static int lg(uint64_t v)
{
	int e = 0;

	while (e < ALIGN_MAX && (1ull << (e + 1)) <= v)
		e++;
	return e;
}

static int min_i(int a, int b)
{
	return a < b ? a : b;
}

/* Static shared variables function f can see (its own and the
 * module's). */
static int shared_vars(const struct emu_module *m, const struct emu_func *f)
{
	int fi = (int)(f - m->funcs), n = 0;

	for (int i = 0; i < m->nsyms; i++)
		n += m->syms[i].kind == SYM_SHARED &&
		     (m->syms[i].owner == fi || m->syms[i].owner < 0);
	return n;
}

static int sym_align(const struct emu_module *m, const struct emu_func *f,
		     int si)
{
	const struct emu_sym *s = &m->syms[si];
	int declared = lg(s->align ? s->align : 1);

	if (s->kind == SYM_EXTERN_SHARED ||
	    (s->kind == SYM_SHARED && shared_vars(m, f) == 1))
		return 4 > declared ? 4 : declared;
	return declared;
}

/* known log2 alignment of an operand's value */
static int opnd_align(const struct emu_module *m, const struct emu_func *f,
		      const uint8_t *al, const struct emu_opnd *o)
{
	switch (o->kind) {
	case OK_REG: return al[o->idx];
	case OK_CONST: return tz(f->consts[(size_t)o->idx * EMU_WARP_SIZE]);
	case OK_SYM: return sym_align(m, f, o->idx);
	default: return 0;
	}
}

/* known alignment of what in writes to d[0] */
static int transfer(const struct emu_module *m, const struct emu_func *f,
		    const uint8_t *al, const struct emu_insn *in)
{
	int a = in->nsrc > 0 ? opnd_align(m, f, al, &in->s[0]) : 0;
	int b = in->nsrc > 1 ? opnd_align(m, f, al, &in->s[1]) : 0;
	int c = in->nsrc > 2 ? opnd_align(m, f, al, &in->s[2]) : 0;

	switch (in->op) {
	case OP_MOV: case OP_CVTA: case OP_CVT: case OP_NEG:
		return emu_type_kind[in->type] == 'f' ? 0 : a;
	case OP_ADD: case OP_SUB: case OP_OR: case OP_XOR: case OP_SELP:
		return emu_type_kind[in->type] == 'f' ? 0 : min_i(a, b);
	case OP_AND:
		return a > b ? a : b;
	case OP_MUL:
		return in->flags & F_HI || emu_type_kind[in->type] == 'f' ? 0
		       : min_i(a + b, ALIGN_MAX);
	case OP_MAD:
		return in->flags & F_HI || emu_type_kind[in->type] == 'f' ? 0
		       : min_i(min_i(a + b, ALIGN_MAX), c);
	case OP_SHL:
		if (in->s[1].kind != OK_CONST)
			return a;
		return min_i(a + (int)(f->consts[(size_t)in->s[1].idx *
						 EMU_WARP_SIZE] & 63),
			     ALIGN_MAX);
	default:
		return 0;
	}
}

/* al[r]: known log2 alignment of register r over every definition */
static void align_regs(const struct emu_module *m, const struct emu_func *f,
		       uint8_t *al)
{
	int changed = 1;

	memset(al, ALIGN_MAX, (size_t)f->nregs);
	memset(al, 0, SR_COUNT);
	while (changed) {
		changed = 0;
		for (int i = 0; i < f->ninsns; i++) {
			const struct emu_insn *in = &f->insns[i];

			for (int d = 0; d < in->ndst && d < 4; d++) {
				int r = in->d[d].idx, v;

				if (in->d[d].kind != OK_REG)
					continue;
				v = d == 0 ? transfer(m, f, al, in) : 0;
				if (v < al[r]) {
					al[r] = (uint8_t)v;
					changed = 1;
				}
			}
		}
	}
}

static int is_access(const struct emu_insn *in)
{
	return (in->op == OP_LD || in->op == OP_ST) &&
	       (in->space == SP_SHARED || in->space == SP_GLOBAL ||
		in->space == SP_GENERIC) &&
	       !(in->flags & F_VOLATILE) && in->ak != AK_ABS;
}

static int width(const struct emu_insn *in)
{
	return emu_type_size[in->type] * in->vec;
}

/* may an instruction stand between two members of a group? */
static int transparent(const struct emu_insn *in, const struct emu_insn *lead)
{
	switch (in->op) {
	case OP_LD: case OP_ST: case OP_ATOM: case OP_RED: case OP_BAR:
	case OP_BARRED: case OP_WARPSYNC: case OP_BRA: case OP_CALL:
	case OP_RET: case OP_EXIT: case OP_TRAP: case OP_MEMBAR:
	case OP_CPASYNC: case OP_UNSUP: case OP_SHFL: case OP_VOTE:
	case OP_REDUX: case OP_TEX: case OP_SULD: case OP_SUST:
	case OP_MBAR: case OP_NANOSLEEP:
		return 0;
	}
	for (int d = 0; d < in->ndst && d < 4; d++) {
		if (in->d[d].kind == OK_REG && lead->ak == AK_REG &&
		    in->d[d].idx == lead->areg)
			return 0;
		if (in->d[d].kind == OK_PRED && in->d[d].idx == lead->guard)
			return 0;
	}
	return 1;
}

static int same_group(const struct emu_insn *a, const struct emu_insn *b,
		      int k)
{
	return b->op == a->op && b->space == a->space &&
	       width(b) == width(a) && b->ak == a->ak &&
	       (a->ak == AK_REG ? b->areg == a->areg : b->asym == a->asym) &&
	       b->guard == a->guard && b->guard_neg == a->guard_neg &&
	       b->aoff == a->aoff + (int64_t)k * width(a) &&
	       !(b->flags & F_VOLATILE);
}

static int writes_base(const struct emu_insn *in, const struct emu_insn *lead)
{
	if (in->op != OP_LD || lead->ak != AK_REG)
		return 0;
	for (int d = 0; d < in->ndst && d < 4; d++)
		if (in->d[d].kind == OK_REG && in->d[d].idx == lead->areg)
			return 1;
	return 0;
}

/* the members of a run starting at pc i (up to 4), by pc */
static int collect(const struct emu_func *f, const char *target, int i,
		   int *mem)
{
	const struct emu_insn *lead = &f->insns[i];
	int n = 1;

	mem[0] = i;
	if (writes_base(lead, lead))
		return 1;
	for (int j = i + 1; j < f->ninsns && n < 4; j++) {
		const struct emu_insn *in = &f->insns[j];

		if (target[j])
			break;
		if (same_group(lead, in, n) && !in->merge) {
			mem[n++] = j;
			if (writes_base(in, lead))
				break;
			continue;
		}
		if (!transparent(in, lead))
			break;
	}
	return n;
}

static void mark(struct emu_func *f, const int *mem, int n, int bytes)
{
	f->insns[mem[0]].merge = (uint8_t)bytes;
	for (int k = 1; k < n; k++)
		f->insns[mem[k]].merge = MERGE_FOLLOW;
}

/* group the members of one run by the alignment of their addresses */
static void group(const struct emu_module *m, struct emu_func *f,
		  const uint8_t *al, const int *mem, int n)
{
	const struct emu_insn *lead = &f->insns[mem[0]];
	int w = width(lead), base;

	if (w != 4 && w != 8)
		return;
	base = lead->ak == AK_REG ? al[lead->areg] :
	       sym_align(m, f, lead->asym);
	for (int i = 0; i < n;) {
		int a = min_i(base, tz((uint64_t)f->insns[mem[i]].aoff));

		if (a >= 4 && (n - i) * w >= 16) {
			mark(f, mem + i, 16 / w, 16);
			i += 16 / w;
		} else if (w == 4 && a >= 3 && n - i >= 2) {
			mark(f, mem + i, 2, 8);
			i += 2;
		} else {
			i++;
		}
	}
}

int emu_merge_mark(const struct emu_module *m, struct emu_func *f)
{
	uint8_t *al = malloc((size_t)f->nregs + SR_COUNT + 1);
	char *target = calloc((size_t)f->ninsns + 1, 1);
	int mem[4];

	if (!al || !target) {
		free(al);
		free(target);
		return -1;
	}
	for (int i = 0; i < f->ninsns; i++)
		if (f->insns[i].op == OP_BRA && f->insns[i].target >= 0 &&
		    f->insns[i].target < f->ninsns)
			target[f->insns[i].target] = 1;
	align_regs(m, f, al);
	for (int i = 0; i < f->ninsns; i++) {
		if (!is_access(&f->insns[i]) || f->insns[i].merge)
			continue;
		group(m, f, al, mem, collect(f, target, i, mem));
	}
	free(al);
	free(target);
	return 0;
}
