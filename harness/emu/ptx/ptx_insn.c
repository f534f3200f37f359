/*
 * The PTX parser's instructions: after the mnemonic (ptx_mnem.c), the
 * operands to their fixed-size form by the opcode's shape or its own
 * decoder, calls, and the checks of types.  An instruction or modifier
 * the interpreter does not know becomes OP_UNSUP naming it, so that
 * only a launch that reaches it fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/ptx/ptx.h"
#include "emu/vm/half.h"
#include "emu/vm/texfetch.h"
#include "emu/vm/wmma.h"

int add_str(struct parser *p, const char *s)
{
	struct emu_module *m = p->m;

	if (grow(&m->strs, &p->capstrs, m->nstrs + 1, sizeof(char *)))
		return -1;
	m->strs[m->nstrs] = strdup(s);
	if (!m->strs[m->nstrs])
		return -1;
	return m->nstrs++;
}

/*
 * tex.geom.v4.dtype.ctype d, [tex, {c...}];
 * suld.b.geom[.vec].type.mode d, [surf, {x, y...}];
 * sust.b.geom[.vec].type.mode [surf, {x, y...}], v.
 * The handle is a register (areg), the coordinates s[0..], the values
 * d[0..] (sources for sust).
 */
static int decode_texsurf(struct parser *p, struct fbuild *fb,
			  struct emu_insn *in, const struct rop *ops, int n,
			  int line)
{
	const struct rop *a = &ops[in->op == OP_SUST ? 0 : 1];
	const struct rop *v = &ops[in->op == OP_SUST ? 1 : 0];
	struct emu_opnd h;
	int k, ct = in->op == OP_TEX ? in->type2 : T_B32;
	int nc = emu_tex_ncoords(in->sub);

	if (n != 2 || a->kind != RO_ADDR || !a->has_base || !nc ||
	    a->n < nc || a->n > 4)
		return perr(p, line, "'%s' takes a value and [handle, "
			    "{coordinates}]", emu_op_name[in->op]);
	{
		struct rop b;

		rop_init(&b);
		b.kind = RO_NAME;
		memcpy(b.name, a->name, sizeof(b.name));
		if (resolve_val(p, fb, &b, T_U64, &h, line))
			return -1;
	}
	if (h.kind != OK_REG)
		return perr(p, line, "texture references are not supported "
			    "(use texture objects)");
	in->areg = h.idx;
	in->ak = AK_REG;
	in->nsrc = (uint8_t)nc;
	for (int i = 0; i < nc; i++)
		if (want_val(p, fb, &a->sub[i], i == 0 && (in->sub == TG_A1D ||
			     in->sub == TG_A2D || in->sub == TG_ACUBE) ?
			     T_S32 : ct, &in->s[i], line))
			return -1;
	k = want_regs(p, fb, v, in->d, 4, line);
	if (k < 0)
		return -1;
	in->ndst = (uint8_t)k;
	if (in->op == OP_TEX && (in->type2 == T_NONE || in->vec != 4 ||
				 k != 4))
		return perr(p, line, "tex needs .v4, two types and four "
			    "results");
	return 0;
}

/*
 * wmma.load.{a,b,c}... {regs}, [addr]{, stride};
 * wmma.store.d... [addr], {regs}{, stride};
 * wmma.mma... {d}, {a}, {b}, {c}.
 * The register lists go to an emu_wmma of the function (in->call), the
 * address to the instruction's, the stride to s[0].
 */
static int decode_wmma(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, char **parts, int nparts,
		       const struct rop *ops, int n, int line)
{
	struct emu_func *f = fb->f;
	struct emu_opnd o[8];
	struct emu_wmma w;
	const char *why;
	int cap = f->nwmma, mma, st, nl, i, k;

	if (emu_wmma_parse(&w, parts, nparts, &why))
		return perr(p, line, "%s", why);
	mma = w.kind == WM_MMA;
	st = w.kind == WM_STORE_D;
	nl = mma ? 4 : 1;
	if (n < (mma ? 4 : 2) || n > (mma ? 4 : 3))
		return perr(p, line, "wmma: wrong number of operands");
	for (i = 0; i < nl; i++) {
		k = want_regs(p, fb, &ops[mma ? i : st], o, 8, line);
		if (k < 0)
			return -1;
		w.nreg[i] = (uint8_t)k;
		for (int j = 0; j < k; j++)
			w.reg[i][j] = o[j].idx;
		if (!emu_wmma_fits(&w, i))
			return perr(p, line, "wmma: too few registers");
	}
	if (!mma && want_addr(p, fb, &ops[st ? 0 : 1], in, line))
		return -1;
	if (n == 3 && want_val(p, fb, &ops[2], T_U32, &in->s[0], line))
		return -1;
	in->nsrc = (uint8_t)(n == 3);
	if (grow(&f->wmma, &cap, f->nwmma + 1, sizeof(*f->wmma)))
		return perr(p, line, "out of memory");
	f->wmma[f->nwmma] = w;
	in->call = f->nwmma++;
	return 0;
}

/* the operand count of in must lie in [lo, hi] */
#define NOPS(lo, hi) do { if (n < (lo) || n > (hi)) \
	return perr(p, line, "'%s' takes %d operands, not %d", \
		    emu_op_name[in->op], (lo), n); } while (0)

/* The predicate after '|' of a destination "d|p" (setp, shfl, match)
 * into d[1]; ndst becomes 1 or 2. */
static int want_second_pred(struct parser *p, struct fbuild *fb,
			    const struct rop *r, struct emu_insn *in, int line)
{
	struct rop q;

	in->ndst = 1;
	if (!r->name2[0])
		return 0;
	q = *r;
	memcpy(q.name, q.name2, sizeof(q.name));
	if (want_pred(p, fb, &q, &in->d[1], line))
		return -1;
	in->ndst = 2;
	return 0;
}

/* A destination "d|p" of shfl and match: the register d, then p. */
static int want_reg_pred(struct parser *p, struct fbuild *fb,
			 const struct rop *r, struct emu_insn *in, int line)
{
	struct rop a = *r;

	a.name2[0] = 0;
	if (want_reg(p, fb, &a, &in->d[0], line))
		return -1;
	return want_second_pred(p, fb, r, in, line);
}

/* control: nop, membar, ret, exit, trap, bra, bar, bar.red, bar.warp */
static int decode_ctrl(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, struct rop *ops, int n, int line)
{
	int i;

	switch (in->op) {
	case OP_NOP:
		NOPS(0, 1);   /* prefetch names an operand */
		return 0;
	case OP_NANOSLEEP:
		NOPS(1, 1);
		in->nsrc = 1;
		return want_val(p, fb, &ops[0], T_U32, &in->s[0], line);
	case OP_BRA:
		NOPS(1, 1);
		if (ops[0].kind != RO_NAME)
			return perr(p, line, "branch target is not a label");
		fb->targets[fb->f->ninsns] = strdup(ops[0].name);
		if (!fb->targets[fb->f->ninsns])
			return perr(p, line, "out of memory");
		return 0;
	case OP_BAR:
		NOPS(1, 2);
		in->nsrc = (uint8_t)n;
		for (i = 0; i < n; i++)
			if (want_val(p, fb, &ops[i], T_U32, &in->s[i], line))
				return -1;
		return 0;
	case OP_BARRED:
		/* bar.red.popc.u32 d, a{, b}, c / bar.red.{and,or}.pred */
		NOPS(3, 4);
		in->ndst = 1;
		in->nsrc = (uint8_t)(n - 1);
		if (in->sub == BR_POPC ?
		    want_reg(p, fb, &ops[0], &in->d[0], line) :
		    want_pred(p, fb, &ops[0], &in->d[0], line))
			return -1;
		for (i = 1; i < n - 1; i++)
			if (want_val(p, fb, &ops[i], T_U32, &in->s[i - 1],
				     line))
				return -1;
		return want_pred(p, fb, &ops[n - 1], &in->s[n - 2], line);
	case OP_WARPSYNC:
		NOPS(1, 1);
		in->nsrc = 1;
		return want_val(p, fb, &ops[0], T_U32, &in->s[0], line);
	default:	/* membar, ret, exit, trap */
		NOPS(0, 0);
		return 0;
	}
}

/* [a] of a register or symbol, without offset, as the value s */
static int want_base(struct parser *p, struct fbuild *fb, const struct rop *r,
		     struct emu_opnd *s, int line)
{
	struct rop nm;

	if (r->kind != RO_ADDR || !r->has_base || r->ival)
		return perr(p, line, "expected [register] or [symbol]");
	rop_init(&nm);
	nm.kind = RO_NAME;
	memcpy(nm.name, r->name, strlen(r->name) + 1);
	return want_val(p, fb, &nm, T_U64, s, line);
}

/* cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
 * [dst], [src], size, [mbar]{, cache-policy}: dst in the address fields,
 * src in s[0] (offset in target), size in s[1], mbar in s[2] */
static int decode_bulk(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, struct rop *ops, int n, int line)
{
	NOPS(4, 5);
	if (in->space != SP_SHARED || in->cmp != 3)
		return perr(p, line, "cp.async.bulk other than from global to "
			    "shared memory, completing on an mbarrier");
	if (want_addr(p, fb, &ops[0], in, line) ||
	    want_base(p, fb, &ops[1], &in->s[0], line) ||
	    want_val(p, fb, &ops[2], T_U32, &in->s[1], line) ||
	    want_base(p, fb, &ops[3], &in->s[2], line))
		return -1;
	in->target = 0;
	in->nsrc = 3;
	return 0;
}

/* cp.async [dst], [src], cp-size{, src-size}, commit_group, wait_group */
static int decode_cpasync(struct parser *p, struct fbuild *fb,
			  struct emu_insn *in, struct rop *ops, int n,
			  int line)
{
	struct rop nm;

	if (!(in->flags & F_ASYNC))
		return perr(p, line, "cp without .async");
	if (in->sub == CA_COMMIT || in->sub == CA_WAIT_ALL) {
		NOPS(0, 0);
		return 0;
	}
	if (in->sub == CA_WAIT) {
		NOPS(1, 1);
		return 0;
	}
	if (in->sub == CA_MBAR_ARRIVE) {
		NOPS(1, 1);
		return want_addr(p, fb, &ops[0], in, line);
	}
	if (in->sub == CA_BULK)
		return decode_bulk(p, fb, in, ops, n, line);
	/* [dst] in the address fields; [src]: base in s[0], offset in
	 * target; cp-size in s[1], src-size in s[2] */
	NOPS(3, 5);
	if (in->space != SP_SHARED || in->cmp != 1)
		return perr(p, line, "cp.async other than .shared.global");
	if (want_addr(p, fb, &ops[0], in, line))
		return -1;
	if (ops[1].kind != RO_ADDR || !ops[1].has_base ||
	    ops[1].ival < INT32_MIN || ops[1].ival > INT32_MAX)
		return perr(p, line, "bad cp.async source address");
	rop_init(&nm);
	nm.kind = RO_NAME;
	memcpy(nm.name, ops[1].name, strlen(ops[1].name) + 1);
	if (want_val(p, fb, &nm, T_U64, &in->s[0], line))
		return -1;
	in->target = (int32_t)ops[1].ival;
	if (want_val(p, fb, &ops[2], T_U32, &in->s[1], line))
		return -1;
	in->nsrc = 2;
	if (n >= 4) {
		if (want_val(p, fb, &ops[3], T_U32, &in->s[2], line))
			return -1;
		in->nsrc = 3;
	}
	return 0;
}

/* The values of ld (registers, into d) or st (values, into s): one,
 * or {...} for a vector. */
static int want_data(struct parser *p, struct fbuild *fb,
		     struct emu_insn *in, const struct rop *r, int st,
		     int line)
{
	const struct rop *v = r->kind == RO_VEC ? r->sub : r;
	int i, n = r->kind == RO_VEC ? r->n : 1;

	if (r->kind != RO_VEC && in->vec != 1)
		return perr(p, line, "vector %s needs {...}", st ? "st" : "ld");
	if (r->kind == RO_VEC && r->n != in->vec)
		return perr(p, line, "vector size mismatch");
	for (i = 0; i < n; i++)
		if (st ? want_val(p, fb, &v[i], in->type, &in->s[i], line) :
		    want_reg(p, fb, &v[i], &in->d[i], line))
			return -1;
	return 0;
}

/*
 * mbarrier.init [a], count; .inval [a]; .expect_tx/.complete_tx [a], tx;
 * .arrive{_drop} state, [a]{, count or tx}; .test_wait/.try_wait p, [a],
 * state or parity{, time hint}; .pending_count count, state.  The
 * destination in d[0], the value operand in s[0].
 */
static int decode_mbarrier(struct parser *p, struct fbuild *fb,
			   struct emu_insn *in, struct rop *ops, int n,
			   int line)
{
	int k = in->sub, wait = k == MB_TEST_WAIT || k == MB_TRY_WAIT;
	int has_d = k == MB_ARRIVE || k == MB_ARRIVE_DROP || wait ||
		    k == MB_PENDING;
	int t = wait && (in->cmp & MBF_PARITY) ? T_U32 : T_B64;
	int i = has_d;

	if (k == MB_INVAL)
		NOPS(1, 1);
	else if (k == MB_PENDING)
		NOPS(2, 2);
	else if (wait)
		NOPS(3, 4);
	else if (k == MB_ARRIVE || k == MB_ARRIVE_DROP)
		NOPS(in->cmp & MBF_EXPECT_TX ? 3 : 2, 3);
	else
		NOPS(2, 2);
	in->ndst = (uint8_t)has_d;
	if (has_d && (wait ? want_pred(p, fb, &ops[0], &in->d[0], line) :
		      want_reg(p, fb, &ops[0], &in->d[0], line)))
		return -1;
	if (k != MB_PENDING && want_addr(p, fb, &ops[i++], in, line))
		return -1;
	if (i < n) {
		in->nsrc = 1;
		if (want_val(p, fb, &ops[i], k == MB_PENDING ? T_B64 :
			     wait ? t : T_U32, &in->s[0], line))
			return -1;
	}
	return 0;
}

/* memory: ld, st, atom, red, cp.async, mbarrier */
static int decode_mem(struct parser *p, struct fbuild *fb,
		      struct emu_insn *in, struct rop *ops, int n, int line)
{
	int i, t = in->type;

	if (in->op == OP_CPASYNC)
		return decode_cpasync(p, fb, in, ops, n, line);
	if (in->op == OP_MBAR)
		return decode_mbarrier(p, fb, in, ops, n, line);
	switch (in->op) {
	case OP_LD:
		NOPS(2, 2);
		if (t == T_NONE || t == T_PRED)
			return perr(p, line, "ld without a data type");
		if (want_data(p, fb, in, &ops[0], 0, line))
			return -1;
		in->ndst = in->vec;
		return want_addr(p, fb, &ops[1], in, line);
	case OP_ST:
		NOPS(2, 2);
		if (t == T_NONE || t == T_PRED)
			return perr(p, line, "st without a data type");
		if (want_addr(p, fb, &ops[0], in, line) ||
		    want_data(p, fb, in, &ops[1], 1, line))
			return -1;
		in->nsrc = in->vec;
		return 0;
	case OP_ATOM:
		NOPS(3, 4);
		if (in->sub == AT_CAS ? n != 4 : n != 3)
			return perr(p, line, "wrong operand count for atom");
		if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
		    want_addr(p, fb, &ops[1], in, line))
			return -1;
		in->ndst = 1;
		in->nsrc = (uint8_t)(n - 2);
		for (i = 2; i < n; i++)
			if (want_val(p, fb, &ops[i], t, &in->s[i - 2], line))
				return -1;
		return 0;
	default:	/* red [a], b */
		NOPS(2, 2);
		in->nsrc = 1;
		if (want_addr(p, fb, &ops[0], in, line))
			return -1;
		return want_val(p, fb, &ops[1], t, &in->s[0], line);
	}
}

/* comparisons and selections: setp, set, selp, testp; vabsdiff4 */
static int decode_cmp(struct parser *p, struct fbuild *fb,
		      struct emu_insn *in, struct rop *ops, int n, int line)
{
	int i, t = in->type;

	switch (in->op) {
	case OP_SETP:
		NOPS(3, 4);
		if (ops[0].kind != RO_NAME)
			return perr(p, line, "setp needs a predicate");
		if (want_pred(p, fb, &ops[0], &in->d[0], line) ||
		    want_second_pred(p, fb, &ops[0], in, line) ||
		    want_val(p, fb, &ops[1], t, &in->s[0], line) ||
		    want_val(p, fb, &ops[2], t, &in->s[1], line))
			return -1;
		in->nsrc = 2;
		if (n == 4) {
			if (!in->boolop)
				return perr(p, line, "setp with 4 operands "
					    "needs .and/.or/.xor");
			in->nsrc = 3;
			return want_pred(p, fb, &ops[3], &in->s[2], line);
		}
		return 0;
	case OP_SET:
		NOPS(3, 4);
		if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
		    want_val(p, fb, &ops[1], in->type2, &in->s[0], line) ||
		    want_val(p, fb, &ops[2], in->type2, &in->s[1], line))
			return -1;
		in->ndst = 1;
		in->nsrc = 2;
		if (n == 4) {
			in->nsrc = 3;
			return want_pred(p, fb, &ops[3], &in->s[2], line);
		}
		return 0;
	case OP_SELP:
		NOPS(4, 4);
		in->ndst = 1;
		in->nsrc = 3;
		if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
		    want_val(p, fb, &ops[1], t, &in->s[0], line) ||
		    want_val(p, fb, &ops[2], t, &in->s[1], line))
			return -1;
		return want_pred(p, fb, &ops[3], &in->s[2], line);
	case OP_TESTP:
		NOPS(2, 2);
		in->ndst = 1;
		in->nsrc = 1;
		if (want_pred(p, fb, &ops[0], &in->d[0], line))
			return -1;
		return want_val(p, fb, &ops[1], t, &in->s[0], line);
	default:	/* vabsdiff4 and vabsdiff2 d, a, b, c */
		NOPS(4, 4);
		in->ndst = 1;
		in->nsrc = 3;
		if (want_reg(p, fb, &ops[0], &in->d[0], line))
			return -1;
		for (i = 0; i < 3; i++)
			if (want_val(p, fb, &ops[i + 1], T_U32, &in->s[i],
				     line))
				return -1;
		return 0;
	}
}

/* across the lanes: shfl, match, vote, activemask */
static int decode_warp(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, struct rop *ops, int n, int line)
{
	int i;

	switch (in->op) {
	case OP_SHFL:
		NOPS(5, 5);
		if (ops[0].kind != RO_NAME)
			return perr(p, line, "shfl needs a register");
		if (want_reg_pred(p, fb, &ops[0], in, line))
			return -1;
		in->nsrc = 4;
		for (i = 1; i < 5; i++)
			if (want_val(p, fb, &ops[i], T_B32, &in->s[i - 1],
				     line))
				return -1;
		return 0;
	case OP_MATCH:
		/* match.any.sync.b32 d, a, mask; match.all: d[|p], a, mask */
		NOPS(3, 3);
		if (want_reg_pred(p, fb, &ops[0], in, line))
			return -1;
		in->nsrc = 2;
		if (want_val(p, fb, &ops[1], in->type, &in->s[0], line))
			return -1;
		return want_val(p, fb, &ops[2], T_B32, &in->s[1], line);
	case OP_VOTE:
		NOPS(3, 3);
		in->ndst = 1;
		in->nsrc = 2;
		if (in->sub == VO_BALLOT) {
			if (want_reg(p, fb, &ops[0], &in->d[0], line))
				return -1;
		} else if (want_pred(p, fb, &ops[0], &in->d[0], line)) {
			return -1;
		}
		if (want_pred(p, fb, &ops[1], &in->s[0], line))
			return -1;
		return want_val(p, fb, &ops[2], T_B32, &in->s[1], line);
	default:	/* activemask d */
		NOPS(1, 1);
		in->ndst = 1;
		return want_reg(p, fb, &ops[0], &in->d[0], line);
	}
}

/* mov of a vector: {a, b} = v unpacks, v = {a, b} packs; 1 when the
 * operands are no vector */
static int decode_mov_vec(struct parser *p, struct fbuild *fb,
			  struct emu_insn *in, struct rop *ops, int n,
			  int line)
{
	int i;

	if (n == 2 && ops[0].kind == RO_VEC) {
		in->op = OP_MOVUNPACK;
		if (ops[0].n < 2 || ops[0].n > 4)
			return perr(p, line, "bad vector in mov");
		in->ndst = (uint8_t)ops[0].n;
		for (i = 0; i < ops[0].n; i++)
			if (want_reg(p, fb, &ops[0].sub[i], &in->d[i], line))
				return -1;
		in->nsrc = 1;
		return want_val(p, fb, &ops[1], in->type, &in->s[0], line);
	}
	if (n == 2 && ops[1].kind == RO_VEC) {
		in->op = OP_MOVPACK;
		if (ops[1].n < 2 || ops[1].n > 4)
			return perr(p, line, "bad vector in mov");
		in->ndst = 1;
		in->nsrc = (uint8_t)ops[1].n;
		if (want_reg(p, fb, &ops[0], &in->d[0], line))
			return -1;
		for (i = 0; i < ops[1].n; i++)
			if (want_val(p, fb, &ops[1].sub[i], T_NONE, &in->s[i],
				     line))
				return -1;
		return 0;
	}
	return 1;
}

/* the type of the i-th source of a plain shape: shift amounts and bit
 * positions are .u32, cvt's source and slct's selector the second type */
static int src_type(const struct emu_insn *in, int i)
{
	if (in->op == OP_CVT || (in->op == OP_SLCT && i == 2))
		return in->type2;
	if ((in->op == OP_SHL || in->op == OP_SHR) && i == 1)
		return T_U32;
	if (in->op == OP_BFE && i > 0)
		return T_U32;
	if (in->op == OP_BFI && i > 1)
		return T_U32;
	return in->type;
}

/* and, or, xor, not and mov on predicates */
static int decode_pred_logic(struct parser *p, struct fbuild *fb,
			     struct emu_insn *in, struct rop *ops, int ns,
			     int line)
{
	int i;

	if (in->op != OP_MOV && in->op != OP_AND && in->op != OP_OR &&
	    in->op != OP_XOR && in->op != OP_NOT)
		return perr(p, line, "'%s' on predicates",
			    emu_op_name[in->op]);
	if (want_pred(p, fb, &ops[0], &in->d[0], line))
		return -1;
	if (in->d[0].kind != OK_PRED)
		return perr(p, line, "bad predicate destination");
	for (i = 0; i < ns; i++)
		if (want_pred(p, fb, &ops[i + 1], &in->s[i], line))
			return -1;
	return 0;
}

/* the plain shapes (opcodes.h): d and ns sources of the type */
static int decode_plain(struct parser *p, struct fbuild *fb,
			struct emu_insn *in, struct rop *ops, int n, int line)
{
	int i, ns = emu_op_shape[in->op];

	if (in->op == OP_MOV) {
		int rc = decode_mov_vec(p, fb, in, ops, n, line);

		if (rc <= 0)
			return rc;
	}
	NOPS(ns + 1, ns + 1);
	if (in->type == T_NONE)
		return perr(p, line, "'%s' without a type",
			    emu_op_name[in->op]);
	in->ndst = 1;
	in->nsrc = (uint8_t)ns;
	if (in->type == T_PRED)
		return decode_pred_logic(p, fb, in, ops, ns, line);
	if (want_reg(p, fb, &ops[0], &in->d[0], line))
		return -1;
	for (i = 0; i < ns; i++)
		if (want_val(p, fb, &ops[i + 1], src_type(in, i), &in->s[i],
			     line))
			return -1;
	if (in->op == OP_MOV && in->s[0].kind == OK_REG &&
	    (in->s[0].idx == SR_CLOCK || in->s[0].idx == SR_CLOCK64 ||
	     in->s[0].idx == SR_GLOBALTIMER))
		in->op = OP_CLOCK;
	return 0;
}

/* Fill the operands of in from the written operands ops[0..n): by the
 * opcode's shape, or by the decoder of its class. */
static int decode_operands(struct parser *p, struct fbuild *fb,
			   struct emu_insn *in, struct rop *ops, int n,
			   int line)
{
	if (emu_op_shape[in->op] != SHAPE_OWN)
		return decode_plain(p, fb, in, ops, n, line);
	switch (emu_op_class[in->op]) {
	case CLASS_MEM:
		return decode_mem(p, fb, in, ops, n, line);
	case CLASS_WARP:
		return decode_warp(p, fb, in, ops, n, line);
	case CLASS_TEX:
		return decode_texsurf(p, fb, in, ops, n, line);
	case CLASS_LANE:
		return decode_cmp(p, fb, in, ops, n, line);
	default:
		return decode_ctrl(p, fb, in, ops, n, line);
	}
}
#undef NOPS

static int check_types(struct parser *p, struct emu_insn *in, int line)
{
	int t = in->type, k = emu_type_kind[t];

	switch (in->op) {
	case OP_CVT:
		if (in->type2 == T_NONE || in->type2 == T_PRED ||
		    t == T_PRED || t == T_B128 || in->type2 == T_B128)
			return perr(p, line, "cvt needs two data types");
		break;
	case OP_SET: case OP_SLCT:
		if (in->type2 == T_NONE || in->type2 == T_PRED)
			return perr(p, line, "'%s' needs two types",
				    emu_op_name[in->op]);
		break;
	case OP_SETP: case OP_SELP:
		if (t == T_NONE || t == T_PRED || t == T_B128)
			return perr(p, line, "'%s' needs a data type",
				    emu_op_name[in->op]);
		break;
	case OP_LD: case OP_ST:
		if (t == T_B128)
			return perr(p, line, ".b128 is not supported");
		if (in->vec * emu_type_size[t] > 16)
			return perr(p, line, "vector too wide");
		break;
	default:
		if (t == T_B128)
			return perr(p, line, ".b128 is not supported");
		break;
	}
	(void)k;
	return 0;
}

/* The .param symbols a call names as return values or arguments (the
 * list r) into out, counting them in *count; 0 or -1. */
static int call_params(struct parser *p, struct fbuild *fb,
		       const struct rop *r, const char *what, int32_t *out,
		       int *count, int line)
{
	for (int i = 0; i < r->n; i++) {
		const struct rop *e = &r->sub[i];
		int s = e->kind == RO_NAME ? find_sym(p, fb, e->name) : -1;

		if (s < 0 || p->m->syms[s].kind != SYM_PARAM)
			return perr(p, line, "call %s is not a .param", what);
		out[(*count)++] = s;
	}
	return 0;
}

/* "call[.uni] (ret), func, (args);" */
static int parse_call(struct parser *p, struct fbuild *fb,
		      struct emu_insn *in, struct rop *ops, int n, int line)
{
	struct emu_func *f = fb->f;
	struct emu_call *c;
	int i = 0, fi, cap = f->ncalls;
	struct rop *rets = NULL, *args = NULL, *fn;

	if (n >= 1 && ops[0].kind == RO_LIST)
		rets = &ops[i++];
	if (i >= n || ops[i].kind != RO_NAME)
		return perr(p, line, "call without a function name");
	fn = &ops[i++];
	if (i < n && ops[i].kind == RO_LIST)
		args = &ops[i++];
	if (find_reg(fb, fn->name, &fi) == 1) {
		/* through a register, with the prototype's name last */
		in->areg = fi;
		fi = -1;
		if (i < n && ops[i].kind == RO_NAME)
			i++;
	} else {
		fi = find_or_add_func(p, fn->name);
		if (fi < 0)
			return perr(p, line, "out of memory");
	}
	if (i != n)
		return perr(p, line, "bad call operands");
	/* find_or_add_func may move the function array */
	f = fb->f = &p->m->funcs[fb->fi];
	cap = f->ncalls;
	if (grow(&f->calls, &cap, f->ncalls + 1, sizeof(*f->calls)))
		return perr(p, line, "out of memory");
	c = &f->calls[f->ncalls];
	memset(c, 0, sizeof(*c));
	in->target = fi;
	in->call = f->ncalls++;
	if (rets) {
		if (rets->n > 4)
			return perr(p, line, "too many return values");
		if (call_params(p, fb, rets, "return", c->ret, &c->nret,
				line))
			return -1;
	}
	if (args && args->n) {
		c->arg = calloc((size_t)args->n, sizeof(int32_t));
		if (!c->arg)
			return perr(p, line, "out of memory");
		if (call_params(p, fb, args, "argument", c->arg, &c->narg,
				line))
			return -1;
	}
	return 0;
}

/* Arithmetic on half types is half.c's (OP_HALF); setp on .f16 is the
 * generic compare's. */
static int half_arith(const struct emu_insn *in)
{
	if (!emu_half_type(in->type))
		return 0;
	switch (in->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_MAD:
	case OP_MIN: case OP_MAX: case OP_NEG: case OP_ABS: case OP_EX2:
	case OP_TANH:
		return 1;
	case OP_SETP:
		return in->type == T_BF16 && in->ndst == 1 &&
		       in->boolop == BO_NONE;
	default:
		return 0;
	}
}

/* cvt.rn.f16x2.f32 d, a, b: a rounded to the upper half, b the lower */
static int decode_cvt_pair(struct parser *p, struct fbuild *fb,
			   struct emu_insn *in, const struct rop *ops, int n,
			   int line)
{
	if (n != 3 || in->type2 != T_F32)
		return perr(p, line, "cvt to a half pair takes d, a, b of "
			    ".f32");
	in->ndst = 1;
	in->nsrc = 2;
	in->hop = OP_CVT;
	in->op = OP_HALF;
	if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
	    want_val(p, fb, &ops[1], T_F32, &in->s[0], line))
		return -1;
	return want_val(p, fb, &ops[2], T_F32, &in->s[1], line);
}

/* "@p" or "@!p" before an instruction: its guard */
static int parse_guard(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, int line)
{
	struct rop g;
	struct emu_opnd o;

	next(p);
	if (parse_operand(p, &g, 0)) {
		rop_free(&g);
		return -1;
	}
	if (g.kind != RO_NAME || want_pred(p, fb, &g, &o, line) ||
	    o.kind != OK_PRED) {
		rop_free(&g);
		return perr(p, line, "bad guard predicate");
	}
	in->guard = o.idx;
	in->guard_neg = o.neg;
	return 0;
}

/* The operands up to ';' into ops (at most 8); *nops counts those to
 * free, a failed one included. */
static int parse_operands(struct parser *p, struct rop *ops, int *nops,
			  const char *mn, int line)
{
	struct tok *t;

	if (is_p(peek(p), ';')) {
		next(p);
		return 0;
	}
	for (;;) {
		if (*nops == 8)
			return perr(p, line, "too many operands");
		if (parse_operand(p, &ops[(*nops)++], 0))
			return -1;
		t = next(p);
		if (is_p(t, ';'))
			return 0;
		if (!is_p(t, ','))
			return perr(p, t->line, "expected ',' or ';' after "
				    "operand of '%s'", mn);
	}
}

/* The operands as the opcode reads them; an instruction it does not
 * know becomes OP_UNSUP naming the mnemonic. */
static int decode_insn(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, struct rop *ops, int nops,
		       struct mnemonic *mn, int unsup, int line)
{
	if (unsup) {
		in->op = OP_UNSUP;
		in->target = add_str(p, mn->whole);
		if (in->target < 0)
			return perr(p, line, "out of memory");
		return 0;
	}
	if (in->op == OP_CALL)
		return parse_call(p, fb, in, ops, nops, line);
	if (in->op == OP_WMMA)
		return decode_wmma(p, fb, in, mn->parts, mn->n, ops, nops,
				   line);
	if (in->op == OP_CVT && (in->type == T_F16X2 || in->type == T_BF16X2))
		return decode_cvt_pair(p, fb, in, ops, nops, line);
	if (decode_operands(p, fb, in, ops, nops, line) ||
	    check_types(p, in, line))
		return -1;
	if (half_arith(in)) {
		in->hop = in->op;
		in->op = OP_HALF;
	}
	return 0;
}

/* ld and st of .param: a kernel's own parameters are read-only
 * (SP_KPARAM), a function's need a symbol; and a symbol an access
 * names must lie in the space it accesses. */
static int check_param_access(struct parser *p, const struct emu_func *f,
			      struct emu_insn *in, int unsup, int line)
{
	if (!unsup && (in->op == OP_LD || in->op == OP_ST) &&
	    in->space == SP_PARAM) {
		int kp = in->ak == AK_SYM ?
			 p->m->syms[in->asym].kind == SYM_KPARAM :
			 f->is_entry;

		if (kp && in->op == OP_ST)
			return perr(p, line, "store to a kernel parameter");
		if (kp)
			in->space = SP_KPARAM;
		else if (in->ak != AK_SYM)
			return perr(p, line, "per-thread .param access needs "
				    "a symbol");
	}
	if (in->ak == AK_SYM && (in->op == OP_LD || in->op == OP_ST ||
				 in->op == OP_ATOM || in->op == OP_RED)) {
		struct emu_sym *s = &p->m->syms[in->asym];

		if ((in->space == SP_PARAM || in->space == SP_KPARAM) !=
		    (s->kind == SYM_PARAM || s->kind == SYM_KPARAM))
			return perr(p, line, "'%s' is not in the accessed "
				    "space", s->name);
	}
	return 0;
}

int parse_insn(struct parser *p, struct fbuild *fb)
{
	struct emu_func *f = fb->f;
	struct emu_insn *in;
	struct rop ops[8];
	struct mnemonic mn;
	int nops = 0, i, line = peek(p)->line, rc = -1, unsup = 0;

	if (grow(&f->insns, &fb->capinsns, f->ninsns + 1, sizeof(*in)) ||
	    grow(&fb->targets, &fb->captargets, f->ninsns + 1,
		 sizeof(char *)))
		return perr(p, line, "out of memory");
	fb->targets[f->ninsns] = NULL;
	in = &f->insns[f->ninsns];
	memset(in, 0, sizeof(*in));
	in->guard = -1;
	in->vec = 1;
	in->line = fb->cur_line;
	in->call = -1;
	in->target = -1;
	if (is_p(peek(p), '@') && parse_guard(p, fb, in, line))
		return -1;
	if (parse_mnemonic(p, in, &mn, &unsup, line))
		return -1;
	if (!unsup && in->op == OP_CVT && in->type2 == T_NONE)
		unsup = 1;
	/* parse_call may move the function (fb->f) */
	if (!parse_operands(p, ops, &nops, mn.whole, line) &&
	    !decode_insn(p, fb, in, ops, nops, &mn, unsup, line) &&
	    !check_param_access(p, fb->f, in, unsup, line)) {
		fb->f->ninsns++;
		rc = 0;
	}
	for (i = 0; i < nops; i++)
		rop_free(&ops[i]);
	return rc;
}
