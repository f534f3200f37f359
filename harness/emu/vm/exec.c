/*
 * The interpreter's instruction loop: one warp, its 32 lanes in lockstep,
 * runs the pre-decoded PTX of ptx.c from its SIMT stack's top entry
 * until it exits, reaches a barrier (sched.c releases it), gives way
 * (a failed mbarrier wait, nanosleep, the end of its time slice in a
 * cooperative launch) or faults.
 * Operands are read as 32-wide columns (registers, the constant pool,
 * symbols), the guard predicate narrows the active mask, and each
 * instruction goes, in one dispatch, to the exec_ function opcodes.h
 * names for it, which hands it to the ALU (alu.c), memory (memory.c),
 * the SIMT stack (simt.c, reconv.c), the warp operations (warpops.c) or
 * runs it here (the lane operations).  See exec.h for the map of the
 * interpreter.
 */
#include <math.h>
#include <string.h>
#include "emu/vm/exec.h"
#include "emu/vm/half.h"
#include "emu/perf.h"
#include "emu/vm/simd.h"
#include "emu/vm/texfetch.h"
#include "emu/vm/wmma.h"

const uint64_t *exec_src(struct xctx *x, struct warp *w,
			 const uint64_t *R, const struct emu_func *f,
			 const struct emu_opnd *o, uint64_t *tmp)
{
	uint64_t v;
	int l;

	switch (o->kind) {
	case OK_REG:
		return R + (size_t)o->idx * EMU_WARP_SIZE;
	case OK_CONST:
		return f->consts + (size_t)o->idx * EMU_WARP_SIZE;
	case OK_SYM:
		v = sym_value(x, w, o->idx);
		for (l = 0; l < EMU_WARP_SIZE; l++)
			tmp[l] = v;
		return tmp;
	default:
		memset(tmp, 0, EMU_WARP_SIZE * sizeof(*tmp));
		return tmp;
	}
}

static float relu(const struct emu_insn *in, float v)
{
	return (in->sub & SUB_RELU) && v <= 0 ? 0.0f : v;
}

/* arithmetic on .f16, .bf16 and their pairs, lane by lane (half.c) */
static void do_half(struct xctx *x, struct warp *w, const struct emu_insn *in,
		    uint32_t m, uint64_t *R, uint32_t *P,
		    const struct emu_func *f)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	const uint64_t *A = exec_src(x, w, R, f, &in->s[0], t0);
	const uint64_t *B = in->nsrc > 1 ? exec_src(x, w, R, f, &in->s[1], t1) :
		A;
	const uint64_t *C = in->nsrc > 2 ? exec_src(x, w, R, f, &in->s[2], t2) :
		A;
	int mods = (in->flags & F_FTZ ? HALF_FTZ : 0) |
		   (in->flags & F_SAT ? HALF_SAT : 0) |
		   (in->sub & SUB_RELU ? HALF_RELU : 0) |
		   (in->sub & FMA_NEG_AB ? HALF_NEG_AB : 0) |
		   (in->sub & FMA_NEG_C ? HALF_NEG_C : 0);
	uint64_t *D;
	uint32_t pv = 0;

	if (in->hop == OP_SETP) {
		LANES(pv |= (uint32_t)emu_half_cmp(in->cmp, in->type,
						   (uint32_t)A[l],
						   (uint32_t)B[l]) << l);
		pred_set(P, &in->d[0], m, pv);
		return;
	}
	D = dst(x, R, &in->d[0]);
	if (in->hop == OP_CVT) {	/* .relu: a negative float is 0 */
		LANES(D[l] = alu_to_half(in->type, relu(in, u2f(B[l])),
					 in->rnd) |
			     alu_to_half(in->type, relu(in, u2f(A[l])),
					 in->rnd) << 16);
		return;
	}
	if (in->hop == OP_MIN || in->hop == OP_MAX)
		mods |= (in->sub & MM_NAN ? HALF_NAN : 0) |
			(in->sub & MM_XORSIGN ? HALF_XORSIGN : 0);
	LANES(D[l] = emu_half_alu(in->hop, in->type, mods, (uint32_t)A[l],
				  (uint32_t)B[l], (uint32_t)C[l]));
}

/* tex: each lane samples its texture object (texfetch.c); texels of
 * device memory are counted as the global loads they are */
static int do_tex(struct xctx *x, struct warp *w, const struct emu_insn *in,
		  uint32_t m, uint64_t *R, const struct emu_func *f)
{
	uint64_t tmp[4][EMU_WARP_SIZE], addr[EMU_WARP_SIZE];
	const uint64_t *C[4] = { NULL, NULL, NULL, NULL };
	const uint64_t *H = R + (size_t)in->areg * EMU_WARP_SIZE;
	uint64_t *D[4];
	int cf = emu_type_kind[in->type2] == 'f';
	int rf = emu_type_kind[in->type] == 'f';
	int bytes = 0;
	uint32_t gm = 0;

	for (int i = 0; i < in->nsrc; i++)
		C[i] = exec_src(x, w, R, f, &in->s[i], tmp[i]);
	for (int i = 0; i < 4; i++)
		D[i] = dst(x, R, &in->d[i]);
	LANES({
		uint64_t c[4] = { 0, 0, 0, 0 };
		uint32_t out[4];
		int tb = 0;

		for (int i = 0; i < in->nsrc; i++)
			c[i] = C[i][l];
		if (emu_tex_sample(H[l], in->sub, cf, c, rf, out, &addr[l],
				   &tb))
			return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					 w->id, l, "tex on %llu, which is no "
					 "texture object",
					 (unsigned long long)H[l]);
		if (addr[l] && (!bytes || tb == bytes)) {
			gm |= 1u << l;
			bytes = tb;
		}
		for (int i = 0; i < 4; i++)
			D[i][l] = out[i];
	});
	if (gm)
		count_access(x, in, addr, gm, 0, bytes, ACC_LOAD);
	return 0;
}

/* suld.b / sust.b: bytes at byte x, rows y and z of a surface object;
 * out of range: a fault (.trap), the edge (.clamp) or nothing (.zero) */
static int do_surf(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const struct emu_func *f)
{
	uint64_t tmp[4][EMU_WARP_SIZE], vt[4][EMU_WARP_SIZE];
	const uint64_t *C[4] = { NULL, NULL, NULL, NULL }, *V[4];
	const uint64_t *H = R + (size_t)in->areg * EMU_WARP_SIZE;
	int esz = emu_type_size[in->type], bytes = esz * in->ndst;
	int st = in->op == OP_SUST;

	for (int i = 0; i < in->nsrc; i++)
		C[i] = exec_src(x, w, R, f, &in->s[i], tmp[i]);
	for (int i = 0; i < in->ndst; i++)
		V[i] = st ? exec_src(x, w, R, f, &in->d[i], vt[i]) :
			    dst(x, R, &in->d[i]);
	LANES({
		int64_t c[3] = { 0, 0, 0 };
		uint8_t *p;

		for (int i = 0; i < in->nsrc && i < 3; i++)
			c[i] = (int32_t)C[i][l];
		p = emu_surf_addr(H[l], in->sub, c[0], c[1], c[2], bytes);
		if (!p && in->cmp == SU_CLAMP) {
			for (int i = 0; i < 3; i++)
				c[i] = c[i] < 0 ? 0 : c[i];
			p = emu_surf_addr(H[l], in->sub, c[0], c[1], c[2],
					  bytes);
		}
		if (!p && in->cmp == SU_TRAP)
			return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					 w->id, l, "surface %s at (%lld, %lld, "
					 "%lld) outside surface object %llu",
					 st ? "store" : "load", (long long)c[0],
					 (long long)c[1], (long long)c[2],
					 (unsigned long long)H[l]);
		for (int i = 0; i < in->ndst; i++) {
			uint64_t v = 0;

			if (st && p)
				memcpy(p + i * esz, &V[i][l], (size_t)esz);
			if (!st) {
				if (p)
					memcpy(&v, p + i * esz, (size_t)esz);
				((uint64_t *)V[i])[l] = v;
			}
		}
	});
	return 0;
}

/* an OP_UNSUP reached: an unknown instruction, or a function body the
 * parser could not read (ptx.c, keep_broken); check.c words both */
static int unsupported(struct xctx *x, struct warp *w,
		       const struct emu_func *f, const struct emu_insn *in,
		       uint32_t m)
{
	return emu_fault_unsupported(x, f, in, w->id, __builtin_ctz(m),
				     "an unknown instruction");
}

/* The instruction being run: its warp and frame, m (the lanes that run
 * it: the entry's mask narrowed by the guard) and, for control flow, the
 * SIMT stack's top entry e, the pc and the entry's mask. */
struct ictx {
	struct xctx *x;
	struct warp *w;
	const struct emu_func *f;
	const struct emu_insn *in;
	uint64_t *R;
	uint32_t *P;
	uint8_t *U;                   /* the frame's uniform marks (exec.h) */
	uint32_t m;
	struct sentry *e;
	int pc;
	uint32_t mask;
	int uni_kept;                 /* the instruction set its
				       * destinations' marks itself */
};

/* What an exec_ function leaves run_entry to do: go on at the next pc
 * or at the one it set, take the SIMT stack's new top entry, stop at a
 * barrier, give way to the other warps (the warp goes on later at the
 * SIMT entry's pc; w->yield says why), or stop with a fault (emu_fault's
 * -1). */
enum {
	GO_NEXT = 0, GO_JUMP, GO_SWITCH, GO_BARRIER, GO_YIELD, GO_FAULT = -1
};

/* source i of the instruction, with tmp for a broadcast value */
static inline const uint64_t *opnd(struct ictx *o, int i, uint64_t *tmp)
{
	return exec_src(o->x, o->w, o->R, o->f, &o->in->s[i], tmp);
}

static inline uint64_t *dest(struct ictx *o, int i)
{
	return dst(o->x, o->R, &o->in->d[i]);
}

/* the first n sources are uniform, and so one value in every lane of m */
static inline int uniform_in(const struct ictx *o, int n)
{
	return !(o->m & ~o->w->live) && uniform_srcs(o->U, o->in, n);
}

/* destination i now holds one value in every lane of m */
static inline void uniform_out(struct ictx *o, int i)
{
	uniform_mark(o->U, o->w, &o->in->d[i], o->m);
	o->uni_kept = 1;
}

/* The marks of an instruction's register destinations, after it wrote
 * them without setting them. */
static inline void uniform_clear(struct ictx *o)
{
	const struct emu_insn *in = o->in;

	for (uint32_t r = in->regops >> 4 & 15u; r; r &= r - 1)
		o->U[in->d[__builtin_ctz(r)].idx] = 0;
}

/* Every register the instruction names, its value in every lane's slot
 * (exec.h, UNI_LANE0) before the general path reads or writes it: its
 * sources and destinations (a surface store reads its d), the address
 * base (loads, stores, textures, calls through a register), and every
 * register of the frame for wmma, whose lists are its own. */
static inline void spread_operands(struct ictx *o)
{
	const struct emu_insn *in = o->in;

	for (uint32_t r = in->regops; r; r &= r - 1) {
		int i = __builtin_ctz(r);

		uniform_spread(o->w, o->R, o->U, i < 4 ? in->s[i].idx : i < 8 ?
			       in->d[i - 4].idx : in->areg);
	}
	if (emu_op_exec[in->op] == EXEC_wmma)
		scalar_spread_frame(o->w);
}

/* nop, membar, bar.warp.sync: nothing to do in a lockstep warp */
static int exec_nop(struct ictx *o)
{
	return GO_NEXT;
}

/* an opcode the parser knows and the interpreter does not run (dp4a) */
static int exec_unknown(struct ictx *o)
{
	return emu_fault_unsupported(o->x, o->f, o->in, o->w->id,
				     __builtin_ctz(o->m), "the instruction "
				     "'%s'", emu_op_name[o->in->op]);
}

/* ---- lane by lane (alu.c for the arithmetic) ---- */
/* and, or, xor, not on predicates */
static void exec_pred_logic(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint32_t a = pred_src(o->P, o->f, &in->s[0]);
	uint32_t b = in->nsrc > 1 ? pred_src(o->P, o->f, &in->s[1]) : 0;
	uint32_t r = in->op == OP_AND ? a & b : in->op == OP_OR ? a | b :
		     in->op == OP_XOR ? a ^ b : ~a;

	pred_set(o->P, &in->d[0], o->m, r);
}

/* CLASS_ALU: integer and float arithmetic (alu.c) */
static inline __attribute__((always_inline)) int exec_alu(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	const uint64_t *A, *B, *C;
	uint64_t *D;
	char k = emu_type_kind[in->type];
	uint32_t m;
	int rc, uni;

	if (in->type == T_PRED && (in->op == OP_AND || in->op == OP_OR ||
				   in->op == OP_XOR || in->op == OP_NOT)) {
		exec_pred_logic(o);
		return 0;
	}
	A = opnd(o, 0, t0);
	B = in->nsrc > 1 ? opnd(o, 1, t1) : NULL;
	C = in->nsrc > 2 ? opnd(o, 2, t2) : NULL;
	D = dest(o, 0);
	uni = uniform_in(o, in->nsrc);
	m = uni ? o->m & -o->m : o->m;	/* uniform: the lowest lane */
	if (k == 'f')
		rc = alu_float(o->x, in, m, D, A, B, C);
	else
		rc = alu_int(in, m, D, A, B ? B : A, C ? C : A);
	if (!rc && uni) {
		uniform_fill(D, o->m, __builtin_ctz(m));
		uniform_out(o, 0);
	}
	if (rc)
		return emu_fault_unsupported(o->x, o->f, in, o->w->id,
					     __builtin_ctz(o->m),
					     "a form of '%s.%s'",
					     emu_op_name[in->op],
					     k ? (const char[]){ k, 0 } : "");
	return 0;
}

static int exec_mov(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	int sz = emu_type_size[in->type];
	uint64_t t0[EMU_WARP_SIZE], *D;
	const uint64_t *A;
	uint32_t m = o->m;

	if (in->type == T_PRED) {
		pred_set(o->P, &in->d[0], m, pred_src(o->P, o->f, &in->s[0]));
		return 0;
	}
	A = opnd(o, 0, t0);
	D = dest(o, 0);
	if (sz == 8)
		LANES(D[l] = A[l]);
	else
		LANES(D[l] = trunc_sz(A[l], sz));
	if (uniform_in(o, 1))
		uniform_out(o, 0);
	return 0;
}

/* %clock, %clock64, %globaltimer: lane instructions plus 4 a read */
static int exec_clock(struct ictx *o)
{
	uint64_t *D = dest(o, 0);
	uint32_t m = o->m;
	struct xctx *x = o->x;

	x->clock += 4;
	LANES(D[l] = x->lane_insns + x->clock);
	if (o->in->type != T_U64 && o->in->type != T_B64)
		LANES(D[l] = (uint32_t)D[l]);
	return 0;
}

/* x combined with predicate c by the instruction's .and/.or/.xor */
static uint32_t boolop(const struct emu_insn *in, uint32_t x, uint32_t c)
{
	switch (in->boolop) {
	case BO_AND: return x & c;
	case BO_OR: return x | c;
	case BO_XOR: return x ^ c;
	default: return x;
	}
}

/* setp and set on half pairs: each half compared on its own; setp sets
 * p from the low halves and q from the high ones, set puts 1.0 (a pair
 * destination) or 0xffff (an integer one) in each half that holds */
static int exec_setp_pair(struct ictx *o, int ty)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1);
	uint32_t lo = 0, hi = 0, c = 0, m = o->m;
	int ftz = (in->flags & F_FTZ) != 0;

	LANES({
		int r = emu_half_cmp2(in->cmp, ty, ftz, (uint32_t)A[l],
				      (uint32_t)B[l]);

		lo |= (uint32_t)(r & 1) << l;
		hi |= (uint32_t)(r >> 1 & 1) << l;
	});
	if (in->nsrc == 3) {
		c = pred_src(o->P, o->f, &in->s[2]);
		lo = boolop(in, lo, c);
		hi = boolop(in, hi, c);
	}
	if (in->op == OP_SETP) {
		pred_set(o->P, &in->d[0], m, lo);
		if (in->ndst == 2)
			pred_set(o->P, &in->d[1], m, hi);
	} else {
		uint64_t one = in->type == T_F16X2 ? 0x3c00u :
			       in->type == T_BF16X2 ? 0x3f80u : 0xffffu;
		uint64_t *D = dest(o, 0);

		LANES(D[l] = ((lo >> l & 1) ? one : 0) |
			     ((hi >> l & 1) ? one : 0) << 16);
	}
	return 0;
}

/* setp and set: a comparison, combined with a predicate by .and/.or/.xor */
static int exec_setp(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	int ty = in->op == OP_SET ? in->type2 : in->type;
	char k = emu_type_kind[ty];
	int sz = emu_type_size[ty];
	uint32_t r = 0, c = 0, p, q, m = o->m;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	const uint64_t *A, *B;

	if (ty == T_F16X2 || ty == T_BF16X2)
		return exec_setp_pair(o, ty);
	A = opnd(o, 0, t0);
	B = opnd(o, 1, t1);
	if (uniform_in(o, 2)) {	/* one comparison for every lane */
		int l = __builtin_ctz(m);

		r = alu_compare(in->cmp, ty, A[l], B[l]) ? m : 0;
	} else if (k == 's' && sz == 4 && in->cmp == C_LT)
		LANES(r |= (uint32_t)((int32_t)A[l] < (int32_t)B[l]) << l);
	else if (k == 's' && sz == 4 && in->cmp == C_GE)
		LANES(r |= (uint32_t)((int32_t)A[l] >= (int32_t)B[l]) << l);
	else
		LANES(r |= (uint32_t)alu_compare(in->cmp, ty, A[l], B[l]) <<
		      l);
	if (in->nsrc == 3)
		c = pred_src(o->P, o->f, &in->s[2]);
	p = boolop(in, r, c);
	q = boolop(in, ~r, c);
	if (in->op == OP_SETP) {
		pred_set(o->P, &in->d[0], m, p);
		if (in->ndst == 2)
			pred_set(o->P, &in->d[1], m, q);
	} else {
		uint64_t one = in->type == T_F32 ? 0x3f800000u :
			       in->type == T_F16 ? 0x3c00u :
			       in->type == T_BF16 ? 0x3f80u : 0xffffffffu;
		uint64_t *D = dest(o, 0);

		LANES(D[l] = (p >> l & 1) ? one : 0);
	}
	return 0;
}

/* selp (by a predicate) and slct (by the sign of a third value) */
static int exec_select(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1), *C;
	uint64_t *D = dest(o, 0);
	uint32_t m = o->m;

	if (in->op == OP_SELP) {
		uint32_t c = pred_src(o->P, o->f, &in->s[2]);

		LANES(D[l] = (c >> l & 1) ? A[l] : B[l]);
		if (uniform_in(o, 2) && ((c & m) == m || !(c & m)))
			uniform_out(o, 0);
		return 0;
	}
	C = opnd(o, 2, t2);
	LANES({	/* .ftz: a subnormal c is a zero, never below it */
		float c = in->flags & F_FTZ && !(C[l] & 0x7f800000) ?
			  0.0f : u2f(C[l]);
		int ge = in->type2 == T_F32 ? c >= 0.0f : (int32_t)C[l] >= 0;
		D[l] = ge ? A[l] : B[l];
	});
	return 0;
}

static int exec_testp(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0);
	uint32_t r = 0, m = o->m;

	LANES(r |= (uint32_t)alu_testp(in->sub, in->type, A[l]) << l);
	pred_set(o->P, &in->d[0], m, r);
	return 0;
}

static int exec_cvt(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0);
	uint64_t *D = dest(o, 0);
	uint32_t m = o->m;

	if (uniform_in(o, 1)) {	/* one conversion for every lane */
		int l0 = __builtin_ctz(m);

		D[l0] = alu_cvt(in, A[l0]);
		uniform_fill(D, m, l0);
		uniform_out(o, 0);
	} else if (in->type == T_U64 && in->type2 == T_U32)
		LANES(D[l] = (uint32_t)A[l]);
	else if (in->type == T_S64 && in->type2 == T_S32)
		LANES(D[l] = (uint64_t)(int64_t)(int32_t)A[l]);
	else
		LANES(D[l] = alu_cvt(in, A[l]));
	return 0;
}

/* cvta: between a shared or local offset and its generic address */
static int exec_cvta(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t win = cvta_window(in);
	int sz = emu_type_size[in->type];
	uint64_t t0[EMU_WARP_SIZE], *D;
	const uint64_t *A;
	uint32_t m = o->m;

	if (in->space == SP_PARAM)
		return emu_fault_unsupported(o->x, o->f, in, o->w->id,
					     __builtin_ctz(m),
					     "cvta of .param");
	A = opnd(o, 0, t0);
	D = dest(o, 0);
	if (in->flags & F_TO)
		LANES(D[l] = trunc_sz(A[l] - win, sz));
	else
		LANES(D[l] = trunc_sz((uint32_t)A[l] == A[l] && win ?
				      A[l] + win : A[l] + win, sz));
	if (uniform_in(o, 1))
		uniform_out(o, 0);
	return 0;
}

/* mov d, {a, b, ...} and mov {a, b, ...}, d: elements of es bytes */
static int exec_pack(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	int unpack = in->op == OP_MOVUNPACK;
	int es = emu_type_size[in->type] / (unpack ? in->ndst : in->nsrc);
	uint64_t mk = es >= 8 ? ~0ull : (1ull << (es * 8)) - 1;
	uint64_t t0[EMU_WARP_SIZE], t3[EMU_WARP_SIZE], *D;
	const uint64_t *A;
	uint32_t m = o->m;
	int i;

	if (unpack) {
		A = opnd(o, 0, t0);
		LANES(t3[l] = A[l]);
		for (i = 0; i < in->ndst; i++) {
			D = dest(o, i);
			LANES(D[l] = (t3[l] >> (i * es * 8)) & mk);
		}
		return 0;
	}
	D = dest(o, 0);
	LANES(t3[l] = 0);
	for (i = 0; i < in->nsrc; i++) {
		A = opnd(o, i, t0);
		LANES(t3[l] |= (A[l] & mk) << (i * es * 8));
	}
	LANES(D[l] = t3[l]);
	return 0;
}

/* lop3, dp4a and dp2a (simd.c) */
static int exec_lop3(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	uint64_t t2[EMU_WARP_SIZE], t3[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1);
	const uint64_t *C = opnd(o, 2, t2);

	return simd_lop3(o->m, dest(o, 0), A, B, C, opnd(o, 3, t3));
}

static int exec_dot(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1);
	const uint64_t *C = opnd(o, 2, t2);

	return simd_dot(o->in, o->m, dest(o, 0), A, B, C);
}

/* vabsdiff4 and vabsdiff2, packed or .add (simd.c) */
static int exec_vabsdiff4(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1);
	const uint64_t *C = opnd(o, 2, t2);

	return simd_absdiff(o->in, o->m, dest(o, 0), A, B, C);
}

/* bmsk.{clamp,wrap}.b32 d, start, width */
static int exec_bmsk(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	const uint64_t *S = opnd(o, 0, t0), *N = opnd(o, 1, t1);
	uint64_t *D = dest(o, 0);
	uint32_t m = o->m;

	LANES({
		uint32_t a = (uint32_t)S[l], b = (uint32_t)N[l];

		if (in->sub) {
			a &= 31;
			b &= 31;
		} else {
			a = a > 32 ? 32 : a;
			b = b > 32 ? 32 : b;
		}
		D[l] = a >= 32 ? 0 : (uint32_t)((((1ull << b) - 1)) << a);
	});
	return 0;
}

static int exec_bfi(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	uint64_t t2[EMU_WARP_SIZE], t3[EMU_WARP_SIZE];
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1);
	const uint64_t *C = opnd(o, 2, t2);

	alu_bfi(o->in, o->m, dest(o, 0), A, B, C, opnd(o, 3, t3));
	return 0;
}

static int exec_half(struct ictx *o)
{
	do_half(o->x, o->w, o->in, o->m, o->R, o->P, o->f);
	return 0;
}

/* ---- memory (memory.c) ---- */
static int exec_ld(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	int rc;

	if ((in->ak != AK_REG || o->U[in->areg]) && !(o->m & ~o->w->live)) {
		rc = mem_ld_uniform(o->x, o->w, in, o->m, o->R);
		if (rc < 0)
			return GO_FAULT;
		if (rc) {
			for (int i = 0; i < in->vec; i++)
				uniform_out(o, i);
			return GO_NEXT;
		}
	}
	return mem_ld(o->x, o->w, in, o->m, o->R);
}

/* A global store into memory the warp loaded from in this run while
 * another warp of its block runs (sched.c, "interleaving"): the warp
 * gives way before it, uncounted, and runs it first thing in its next
 * run. */
static __attribute__((noinline, cold)) int
store_gives_way(struct xctx *x, struct warp *w, struct sentry *e, int pc,
		uint32_t m)
{
	x->lane_insns -= (uint64_t)lanes_in(m);
	e->pc = pc;
	w->yield = Y_STORE;
	if (x->perf)
		perf_on_retry(x->perf, w->id);
	return GO_YIELD;
}

static int exec_st(struct ictx *o)
{
	struct xctx *x = o->x;

	/* x->nloaded counts only while others run (memory.c) */
	if (x->nloaded && o->in->space <= SP_GLOBAL &&
	    mem_st_reloads(x, o->w, o->in, o->m, o->R))
		return store_gives_way(x, o->w, o->e, o->pc, o->m);
	return mem_st(x, o->w, o->in, o->m, o->R, o->f);
}

static int exec_wmma(struct ictx *o)
{
	const struct emu_wmma *wm = &o->f->wmma[o->in->call];

	for (int i = 0; i < 4; i++)	/* the lists it writes, and the rest */
		for (int j = 0; j < wm->nreg[i]; j++)
			o->U[wm->reg[i][j]] = 0;
	return mem_wmma(o->x, o->w, o->in, o->m, o->R, o->f);
}

static int exec_atom(struct ictx *o)
{
	return mem_atom(o->x, o->w, o->in, o->m, o->R, o->f);
}

/* the copy; commit_group and wait_group have nothing to wait for, and
 * the copies an mbarrier is to track are done (mbarrier.c) */
static int exec_cpasync(struct ictx *o)
{
	if (o->in->sub == CA_MBAR_ARRIVE)
		return mbar_cp_arrive(o->x, o->w, o->in, o->m, o->R);
	if (o->in->sub == CA_BULK)
		return mem_bulk_copy(o->x, o->w, o->in, o->m, o->R, o->f) ||
		       mbar_bulk_done(o->x, o->w, o->in, o->m, o->R, o->f) ?
		       GO_FAULT : GO_NEXT;
	if (o->in->sub != CA_COPY)
		return 0;
	return mem_cpasync(o->x, o->w, o->in, o->m, o->R, o->f);
}

/* mbarrier.* (mbarrier.c): a wait that failed gives way, and the warp
 * counts as waiting on an mbarrier until a wait succeeds (sched.c tells
 * a deadlock by it) */
static int exec_mbarrier(struct ictx *o)
{
	int rc = mbar_exec(o->x, o->w, o->in, o->m, o->R, o->P, o->f);

	if (o->in->sub == MB_TEST_WAIT || o->in->sub == MB_TRY_WAIT)
		o->w->mbar_waiting = rc == 1;
	if (rc <= 0)
		return rc;
	o->e->pc = o->pc + 1;
	o->w->yield = Y_WAIT;
	return GO_YIELD;
}

/* ---- across the lanes ---- */
/* shfl.sync: each lane reads lane j of its segment, as the mode and
 * the clamp value c say; p says whether j was in range */
static int exec_shfl(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	uint64_t t3[EMU_WARP_SIZE], *D;
	const uint64_t *A = opnd(o, 0, t0), *B = opnd(o, 1, t1);
	const uint64_t *C = opnd(o, 2, t2);
	uint32_t pv = 0, m = o->m;

	LANES({
		uint32_t b = (uint32_t)B[l], c = (uint32_t)C[l];
		int seg = (int)((c >> 8) & 31);
		int cv = (int)(c & 31);
		int maxl = (l & seg) | (cv & ~seg);
		int minl = l & seg, j, ok;

		switch (in->sub) {
		case SH_UP:
			j = l - (int)b;
			ok = j >= maxl;
			break;
		case SH_DOWN:
			j = l + (int)b;
			ok = j <= maxl;
			break;
		case SH_BFLY:
			j = l ^ (int)b;
			ok = j <= maxl;
			break;
		default:
			j = minl | ((int)b & ~seg);
			ok = j <= maxl;
			break;
		}
		if (!ok || j < 0 || j > 31)
			j = l;
		t3[l] = A[j];
		pv |= (uint32_t)ok << l;
	});
	D = dest(o, 0);
	LANES(D[l] = (uint32_t)t3[l]);
	if (in->ndst == 2)
		pred_set(o->P, &in->d[1], m, pv);
	return 0;
}

static int exec_match(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE];

	warp_match(o->x, o->w, o->in, o->m, o->R, o->P, o->f, t0);
	return 0;
}

static int exec_vote(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE];

	warp_vote(o->x, o->w, o->in, o->m, o->R, o->P, o->f, t0);
	return 0;
}

static int exec_redux(struct ictx *o)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];

	warp_redux(o->x, o->w, o->in, o->m, o->R, o->f, t0, t1);
	return 0;
}

/* the entry's mask: the lanes that run together here */
static int exec_activemask(struct ictx *o)
{
	uint64_t *D = dest(o, 0);
	uint32_t m = o->m;

	LANES(D[l] = o->mask);
	return 0;
}

/* ---- textures and surfaces (texfetch.c) ---- */
static int exec_tex(struct ictx *o)
{
	return do_tex(o->x, o->w, o->in, o->m, o->R, o->f);
}

static int exec_surf(struct ictx *o)
{
	return do_surf(o->x, o->w, o->in, o->m, o->R, o->f);
}

/* ---- control ---- */

/* bar.sync and bar.red: the warp waits at the barrier with its lanes m
 * (sched.c releases the block); every live lane must have come */
static int exec_barrier(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	struct warp *w = o->w;
	uint32_t m = o->m;

	if (in->op == OP_BARRED) {
		/* a barrier that also reduces a predicate over the block:
		 * this warp's share now, the result when the block is
		 * released (sched.c) */
		uint32_t pv = pred_src(o->P, o->f, &in->s[in->nsrc - 1]) & m;

		w->bar_red = in->sub == BR_POPC ?
			     (uint32_t)__builtin_popcount(pv) :
			     in->sub == BR_AND ? pv == m : pv != 0;
	}
	if (m != w->live && simt_finished(w, m))
		simt_kill(w, w->live & ~m);
	if (m != w->live)
		return emu_fault(o->x, WGEMU_FAULT_BARRIER, in, w->id,
				 __builtin_ctz(m), "divergent barrier: "
				 "bar.sync reached by %d of the %d threads of "
				 "warp %d", __builtin_popcount(m),
				 __builtin_popcount(w->live), w->id);
	o->e->pc = o->pc + 1;
	if (o->x->perf)
		perf_on_barrier(o->x->perf);
	w->state = W_BAR;
	w->bar_pc = o->pc;
	w->bar_mask = m;
	return GO_BARRIER;
}

/* nanosleep: a spinning warp's hint; it gives way to the others, as
 * one that spins when nothing changed since its last sleep (spin.c) */
static int exec_nanosleep(struct ictx *o)
{
	o->e->pc = o->pc + 1;
	o->w->yield = spin_sleep(o->x, o->w, o->pc) ? Y_SPIN : Y_SLEEP;
	return GO_YIELD;
}

/* A branch or call (in, at pc, lanes m) past x->limit: the end of the
 * warp's time slice in a cooperative launch (it gives way before the
 * instruction, which runs again, and is counted then), or the end of
 * the instruction budget.  Not given the ictx, whose address would keep
 * run_entry's from living in registers. */
static __attribute__((noinline, cold)) int
over_limit(struct xctx *x, struct warp *w, struct sentry *e,
	   const struct emu_insn *in, int pc, uint32_t m)
{
	const unsigned *g = x->cfg->grid;

	if (x->lane_insns <= x->budget) {
		int why = x->lane_insns > x->slice_end ? Y_SLICE :
			  spin_check(x, w, pc) ? Y_SPIN : Y_NONE;

		if (why == Y_NONE)
			return GO_NEXT;   /* the branch goes on */
		x->lane_insns -= (uint64_t)lanes_in(m);
		e->pc = pc;
		w->yield = why;
		return GO_YIELD;
	}
	if (x->perf_capped) {
		/* the model's cap, not the kernel's fault (sched.c) */
		x->perf_capped = 2;
		return GO_FAULT;
	}
	if (x->cfg->cooperative || (uint64_t)g[0] * g[1] * g[2] == 1)
		return emu_fault(x, WGEMU_FAULT_LIMIT, in, w->id,
				 __builtin_ctz(m), "instruction budget of "
				 "%llu exhausted (endless loop%s? "
				 "WGEMU_INSN_LIMIT raises the budget)",
				 (unsigned long long)x->budget,
				 x->cfg->cooperative ? ", or blocks waiting "
				 "for one that never comes" : "");
	return emu_fault(x, WGEMU_FAULT_LIMIT, in, w->id,
			 __builtin_ctz(m), "instruction budget of %llu "
			 "exhausted (endless loop? or a block waiting for "
			 "another that never comes; WGEMU_INSN_LIMIT raises "
			 "the budget)", (unsigned long long)x->budget);
}

/* bra and ret: to the target, or a divergence (reconv.c) */
static int exec_branch(struct ictx *o)
{
	const struct emu_insn *in = o->in;
	struct xctx *x = o->x;
	int target = in->op == OP_BRA ? in->target : o->f->ninsns, rc;

	if (x->lane_insns > x->limit &&
	    (rc = over_limit(x, o->w, o->e, o->in, o->pc, o->m)) != GO_NEXT)
		return rc;
	if (x->perf && target <= o->pc)
		perf_on_backedge(x->perf);
	if (o->m == o->mask) {
		o->pc = target;
		return GO_JUMP;
	}
	o->e->pc = o->pc;
	if (reconv_diverge(o->w, in, o->pc, target, o->mask, o->m))
		return emu_fault(x, WGEMU_FAULT_LIMIT, in, -1, -1,
				 "out of memory");
	return GO_SWITCH;
}

/* exit: the lanes leave the warp everywhere */
static int exec_exit(struct ictx *o)
{
	o->mask &= ~o->m;
	o->e->pc = o->pc + 1;
	simt_kill(o->w, o->m);
	return o->mask ? GO_NEXT : GO_SWITCH;
}

static int exec_call(struct ictx *o)
{
	struct xctx *x = o->x;
	int rc;

	if (x->lane_insns > x->limit &&
	    (rc = over_limit(x, o->w, o->e, o->in, o->pc, o->m)) != GO_NEXT)
		return rc;
	/* no register of this frame is written, and the new frame may move
	 * the marks (o->U): nothing for run_entry to clear */
	o->uni_kept = 1;
	if (simt_call(x, o->w, o->in, o->m, o->pc))
		return GO_FAULT;
	return GO_SWITCH;
}

/* trap; cooperative groups trap where a grid-wide operation finds no
 * grid workspace (%envreg1/%envreg2 read 0): say so */
static int exec_trap(struct ictx *o)
{
	if (!o->x->cfg->cooperative &&
	    (o->f->sr_used & (1ull << SR_ENVREG1 | 1ull << SR_ENVREG2)))
		return emu_fault(o->x, WGEMU_FAULT_TRAP, o->in, o->w->id,
				 __builtin_ctz(o->m), "trap (assertion, "
				 "__trap(), or grid.sync() in a launch that is "
				 "not cooperative: it needs "
				 "cudaLaunchCooperativeKernel)");
	return emu_fault(o->x, WGEMU_FAULT_TRAP, o->in, o->w->id,
			 __builtin_ctz(o->m), "trap (assertion or __trap())");
}

static int exec_unsup(struct ictx *o)
{
	return unsupported(o->x, o->w, o->f, o->in, o->m);
}

/* Run the SIMT stack's top entry e (of frame fr) from its pc until it
 * reaches its reconvergence pc or the stack changes (GO_SWITCH), or
 * the warp stops at a barrier or a fault.  One dispatch an
 * instruction, on its exec_ function (opcodes.h). */
static inline __attribute__((always_inline)) int
run_entry(struct xctx *x, struct warp *w, struct sentry *e,
		     const struct frame *fr)
{
	struct ictx o = {
		.x = x, .w = w, .f = fr->f, .R = w->regs + fr->roff,
		.P = w->preds + fr->poff,
		.U = w->uni + fr->roff / EMU_WARP_SIZE,
		.e = e, .pc = e->pc, .mask = e->mask
	};
	int rpc = e->rpc, rc;
	uint32_t counted = 0;         /* the mask nmask counts */
	uint64_t nmask = 0;

	for (;;) {
		if (o.pc == rpc || (unsigned)o.pc >= (unsigned)o.f->ninsns) {
			e->pc = o.pc;
			if (o.pc != rpc)
				e->rpc = o.pc;
			return GO_SWITCH;
		}
		if (o.f->urun_at && o.f->urun_at[o.pc] >= 0 && o.f == x->k &&
		    !x->perf) {
			int n = urun_exec(x, w, &o.f->uruns[o.f->urun_at[o.pc]],
					  o.mask, o.R, o.P, o.U, rpc);

			if (n) {
				o.pc += n;
				continue;
			}
		}
		o.in = &o.f->insns[o.pc];
		o.m = o.mask;
		if (o.in->guard >= 0) {
			uint32_t g = o.P[o.in->guard];

			o.m &= o.in->guard_neg ? ~g : g;
		}
		if (!o.m) {
			o.pc++;
			continue;
		}
		if (o.m == o.mask) {	/* most are unguarded: counted once */
			if (counted != o.mask) {
				counted = o.mask;
				nmask = (uint64_t)lanes_in(o.mask);
			}
			x->lane_insns += nmask;
		} else {
			x->lane_insns += (uint64_t)lanes_in(o.m);
		}
		if (x->perf)
			perf_on_insn(x->perf, w->id, o.in, (uint32_t)
				     ((o.R - w->regs) / EMU_WARP_SIZE));
		if (o.in->scalar &&
		    ((o.m == w->live && scalar_ready(o.in, o.U) &&
		      scalar_exec(x, w, o.f, o.in, o.m, o.R, o.P, o.U)) ||
		     lanes_exec(x, w, o.f, o.in, o.m, o.R, o.P, o.U))) {
			o.pc++;
			continue;
		}
		spread_operands(&o);
		switch (emu_op_exec[o.in->op]) {
#define DISPATCH(fn) case EXEC_##fn: rc = exec_##fn(&o); break;
		EMU_EXECS(DISPATCH)
#undef DISPATCH
		default:	/* no function of the table: cannot happen */
			rc = emu_fault(x, WGEMU_FAULT_UNSUPPORTED, o.in, w->id,
				       __builtin_ctz(o.m), "opcode %d",
				       o.in->op);
			break;
		}
		if (o.uni_kept)
			o.uni_kept = 0;
		else
			uniform_clear(&o);
		if (rc == GO_NEXT)
			o.pc++;
		else if (rc != GO_JUMP)
			return rc;
	}
}

int exec_warp(struct xctx *x, struct warp *w)
{
	for (;;) {
		struct sentry *e;
		struct frame *fr;
		int rc;

		if (w->sp == 0 || !w->live) {
			w->state = W_DONE;
			return 0;
		}
		e = &w->stack[w->sp - 1];
		fr = &w->fr[w->nf - 1];
		if (e->pc == e->rpc || !e->mask) {
			w->sp--;
			if (w->sp <= fr->depth) {
				if (w->nf == 1) {
					w->state = W_DONE;
					return 0;
				}
				simt_return(x, w);
			}
			continue;
		}
		rc = run_entry(x, w, e, fr);
		if (rc != GO_SWITCH)
			return rc < 0 ? -1 : 0;   /* a barrier, giving way */
	}
}
