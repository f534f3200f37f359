/*
 * The interpreter's instruction loop: one warp, its 32 lanes in lockstep,
 * runs the pre-decoded PTX of ptx.c from its SIMT stack's top entry
 * until it exits, reaches a barrier (sched.c releases it) or faults.
 * Operands are read as 32-wide columns (registers, the constant pool,
 * symbols), the guard predicate narrows the active mask, and each
 * instruction goes to its class's code (opcodes.h): the ALU (alu.c),
 * memory (memory.c), the SIMT stack (simt.c, reconv.c), or the lane and
 * warp operations here.  See exec.h for the map of the interpreter.
 */
#include <math.h>
#include <string.h>
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/texture.h"

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

/*
 * The .sync warp operations (vote, redux, match) take a member mask per
 * lane: lanes that run one instruction together but name different
 * masks (the groups of a cooperative-groups labeled_partition) each
 * compute over their own group, the active lanes of their mask.
 */
static uint32_t group_of(const uint64_t *M, int l, uint32_t m)
{
	return m & (M ? (uint32_t)M[l] : FULL);
}

static void do_vote(struct xctx *x, struct warp *w, const struct emu_insn *in,
		    uint32_t m, uint64_t *R, uint32_t *P,
		    const struct emu_func *f, uint64_t *tmp)
{
	uint32_t pv = pred_src(P, f, &in->s[0]) & m, r = 0;
	const uint64_t *M = in->nsrc > 1 ? exec_src(x, w, R, f, &in->s[1], tmp)
					 : NULL;
	uint64_t *D;

	if (in->sub == VO_BALLOT) {
		D = dst(x, R, &in->d[0]);
		LANES(D[l] = pv & group_of(M, l, m));
		return;
	}
	LANES({
		uint32_t g = group_of(M, l, m), v = pv & g;
		int ok = in->sub == VO_ANY ? v != 0 : in->sub == VO_ALL ?
			 v == g : (v == 0 || v == g);

		r |= (uint32_t)ok << l;
	});
	pred_set(P, &in->d[0], m, r);
}

/* redux.sync.op: the reduction over each lane's group (32-bit) */
static void do_redux(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     uint32_t m, uint64_t *R, const struct emu_func *f,
		     uint64_t *t0, uint64_t *t1)
{
	const uint64_t *A = exec_src(x, w, R, f, &in->s[0], t0);
	const uint64_t *M = in->nsrc > 1 ? exec_src(x, w, R, f, &in->s[1], t1)
					 : NULL;
	uint64_t *D = dst(x, R, &in->d[0]);
	int sg = emu_type_kind[in->type] == 's';
	uint32_t last = 0, acc = 0;

	LANES({
		uint32_t g = group_of(M, l, m);

		if (g != last || l == __builtin_ctz(m)) {
			int first = 1;

			last = g;
			for (uint32_t mm = g; mm; mm &= mm - 1) {
				uint32_t v = (uint32_t)A[__builtin_ctz(mm)];

				if (first) {
					acc = v;
					first = 0;
					continue;
				}
				switch (in->sub) {
				case 0: acc += v; break;
				case 1: acc = sg ? ((int32_t)v < (int32_t)acc ?
					v : acc) : (v < acc ? v : acc); break;
				case 2: acc = sg ? ((int32_t)v > (int32_t)acc ?
					v : acc) : (v > acc ? v : acc); break;
				case 3: acc &= v; break;
				case 4: acc |= v; break;
				default: acc ^= v; break;
				}
			}
		}
		D[l] = acc;
	});
}

/* match.any.sync: each lane gets the lanes of m (and the member mask)
 * holding its value; match.all: all of them when every one holds the
 * same value, else 0, and the predicate says which */
static void do_match(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     uint32_t m, uint64_t *R, uint32_t *P,
		     const struct emu_func *f, uint64_t *tmp)
{
	uint64_t t1[EMU_WARP_SIZE];
	const uint64_t *A = exec_src(x, w, R, f, &in->s[0], tmp);
	const uint64_t *M = exec_src(x, w, R, f, &in->s[1], t1);
	uint64_t vm = emu_type_size[in->type] == 8 ? ~0ull : 0xffffffffull;
	uint64_t *D = dst(x, R, &in->d[0]);
	uint32_t pv = 0;

	LANES({
		uint32_t same = 0, g = group_of(M, l, m);

		for (uint32_t mm = g; mm; mm &= mm - 1) {
			int k = __builtin_ctz(mm);

			if (((A[k] ^ A[l]) & vm) == 0)
				same |= 1u << k;
		}
		if (in->sub == MA_ALL) {
			D[l] = same == g ? g : 0;
			pv |= (uint32_t)(same == g) << l;
		} else {
			D[l] = same;
		}
	});
	if (in->ndst == 2)
		pred_set(P, &in->d[1], m, pv);
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
	int ftz = (in->flags & F_FTZ) != 0;
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
	if (in->hop == OP_CVT) {
		LANES(D[l] = alu_to_half(in->type == T_BF16X2 ? T_BF16 : T_F16,
					 u2f(B[l])) |
			     alu_to_half(in->type == T_BF16X2 ? T_BF16 : T_F16,
					 u2f(A[l])) << 16);
		return;
	}
	LANES(D[l] = emu_half_alu(in->hop, in->type, ftz, (uint32_t)A[l],
				  (uint32_t)B[l], (uint32_t)C[l]));
}

/* tex: each lane samples its texture object (texture.c) */
static int do_tex(struct xctx *x, struct warp *w, const struct emu_insn *in,
		  uint32_t m, uint64_t *R, const struct emu_func *f)
{
	uint64_t tmp[4][EMU_WARP_SIZE];
	const uint64_t *C[4] = { NULL, NULL, NULL, NULL };
	const uint64_t *H = R + (size_t)in->areg * EMU_WARP_SIZE;
	uint64_t *D[4];
	int cf = emu_type_kind[in->type2] == 'f';
	int rf = emu_type_kind[in->type] == 'f';

	for (int i = 0; i < in->nsrc; i++)
		C[i] = exec_src(x, w, R, f, &in->s[i], tmp[i]);
	for (int i = 0; i < 4; i++)
		D[i] = dst(x, R, &in->d[i]);
	LANES({
		uint64_t c[4] = { 0, 0, 0, 0 };
		uint32_t out[4];

		for (int i = 0; i < in->nsrc; i++)
			c[i] = C[i][l];
		if (emu_tex_sample(H[l], in->sub, cf, c, rf, out))
			return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					 w->id, l, "tex on %llu, which is no "
					 "texture object",
					 (unsigned long long)H[l]);
		for (int i = 0; i < 4; i++)
			D[i][l] = out[i];
	});
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
 * parser could not read (ptx.c, keep_broken) */
static int unsupported(struct xctx *x, struct warp *w,
		       const struct emu_func *f, const struct emu_insn *in,
		       uint32_t m)
{
	const char *s = in->target >= 0 && in->target < x->m->nstrs ?
			x->m->strs[in->target] : "?";

	if (in->sub == UNSUP_PARSE)
		return emu_fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
				 __builtin_ctz(m), "PTX that the emulator "
				 "cannot parse: %s (in '%.160s')", s, f->name);
	return emu_fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
			 __builtin_ctz(m), "unsupported PTX instruction '%s'",
			 s);
}

int exec_warp(struct xctx *x, struct warp *w)
{
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	uint64_t t2[EMU_WARP_SIZE], t3[EMU_WARP_SIZE];

	for (;;) {
		struct sentry *e;
		struct frame *fr;
		const struct emu_func *f;
		uint64_t *R;
		uint32_t *P, mask;
		int pc, rpc;

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
		f = fr->f;
		R = w->regs + fr->roff;
		P = w->preds + fr->poff;
		pc = e->pc;
		rpc = e->rpc;
		mask = e->mask;
		for (;;) {
			const struct emu_insn *in;
			uint32_t m = mask;
			const uint64_t *A, *B, *C;
			uint64_t *D;

			if (pc == rpc || (unsigned)pc >= (unsigned)f->ninsns) {
				e->pc = pc;
				if (pc != rpc)
					e->rpc = pc;
				break;
			}
			in = &f->insns[pc];
			if (in->guard >= 0) {
				uint32_t g = P[in->guard];

				m &= in->guard_neg ? ~g : g;
			}
			if (!m) {
				pc++;
				continue;
			}
			x->lane_insns += (uint64_t)__builtin_popcount(m);
			switch (in->op) {
			case OP_NOP: case OP_MEMBAR: case OP_WARPSYNC:
				break;
			case OP_MOV: {
				int sz = emu_type_size[in->type];

				if (in->type == T_PRED) {
					pred_set(P, &in->d[0], m,
						 pred_src(P, f, &in->s[0]));
					break;
				}
				A = exec_src(x, w, R, f, &in->s[0], t0);
				D = dst(x, R, &in->d[0]);
				if (sz == 8)
					LANES(D[l] = A[l]);
				else
					LANES(D[l] = trunc_sz(A[l], sz));
				break;
			}
			case OP_CLOCK:
				D = dst(x, R, &in->d[0]);
				x->clock += 4;
				LANES(D[l] = x->lane_insns + x->clock);
				if (in->type != T_U64 && in->type != T_B64)
					LANES(D[l] = (uint32_t)D[l]);
				break;
			case OP_ACTIVEMASK:
				D = dst(x, R, &in->d[0]);
				LANES(D[l] = mask);
				break;
			case OP_AND: case OP_OR: case OP_XOR: case OP_NOT:
				if (in->type == T_PRED) {
					uint32_t a = pred_src(P, f, &in->s[0]);
					uint32_t b = in->nsrc > 1 ?
						pred_src(P, f, &in->s[1]) : 0;
					uint32_t r = in->op == OP_AND ? a & b :
						     in->op == OP_OR ? a | b :
						     in->op == OP_XOR ? a ^ b :
						     ~a;
					pred_set(P, &in->d[0], m, r);
					break;
				}
				/* fall through */
			case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD:
			case OP_FMA: case OP_DIV: case OP_REM: case OP_MIN:
			case OP_MAX: case OP_ABS: case OP_NEG: case OP_CNOT:
			case OP_SHL: case OP_SHR: case OP_POPC: case OP_CLZ:
			case OP_BFIND: case OP_TANH:
			case OP_BREV: case OP_BFE: case OP_PRMT: case OP_SHF:
			case OP_SQRT: case OP_RSQRT: case OP_RCP: case OP_EX2:
			case OP_LG2: case OP_SIN: case OP_COS: case OP_MUL24:
			case OP_MAD24: case OP_SAD: case OP_COPYSIGN: {
				int rc;

				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = in->nsrc > 1 ?
				    exec_src(x, w, R, f, &in->s[1], t1) : NULL;
				C = in->nsrc > 2 ?
				    exec_src(x, w, R, f, &in->s[2], t2) : NULL;
				D = dst(x, R, &in->d[0]);
				if (emu_type_kind[in->type] == 'f')
					rc = alu_float(x, in, m, D, A, B, C);
				else
					rc = alu_int(in, m, D, A, B ? B : A,
						     C ? C : A);
				if (rc)
					return emu_fault(x,
						WGEMU_FAULT_UNSUPPORTED, in,
						w->id, __builtin_ctz(m),
						"unsupported form of '%s.%s'",
						emu_op_name[in->op],
						emu_type_kind[in->type] ?
						(const char[]){
						emu_type_kind[in->type], 0 } :
						"");
				break;
			}
			case OP_BFI:
				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = exec_src(x, w, R, f, &in->s[1], t1);
				C = exec_src(x, w, R, f, &in->s[2], t2);
				alu_bfi(in, m, dst(x, R, &in->d[0]), A, B, C,
					exec_src(x, w, R, f, &in->s[3], t3));
				break;
			case OP_SETP: case OP_SET: {
				int ty = in->op == OP_SET ? in->type2 : in->type;
				char k = emu_type_kind[ty];
				int sz = emu_type_size[ty];
				uint32_t r = 0, c = 0, p, q;

				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = exec_src(x, w, R, f, &in->s[1], t1);
				if (k == 's' && sz == 4 && in->cmp == C_LT)
					LANES(r |= (uint32_t)((int32_t)A[l] <
						(int32_t)B[l]) << l);
				else if (k == 's' && sz == 4 && in->cmp == C_GE)
					LANES(r |= (uint32_t)((int32_t)A[l] >=
						(int32_t)B[l]) << l);
				else
					LANES(r |=
					      (uint32_t)alu_compare(in->cmp, k,
								    sz, A[l],
								    B[l]) << l);
				if (in->nsrc == 3)
					c = pred_src(P, f, &in->s[2]);
				p = r;
				q = ~r;
				if (in->boolop == BO_AND) {
					p &= c;
					q &= c;
				} else if (in->boolop == BO_OR) {
					p |= c;
					q |= c;
				} else if (in->boolop == BO_XOR) {
					p ^= c;
					q ^= c;
				}
				if (in->op == OP_SETP) {
					pred_set(P, &in->d[0], m, p);
					if (in->ndst == 2)
						pred_set(P, &in->d[1], m, q);
				} else {
					uint64_t one = in->type == T_F32 ?
						0x3f800000u : 0xffffffffu;

					D = dst(x, R, &in->d[0]);
					LANES(D[l] = (p >> l & 1) ? one : 0);
				}
				break;
			}
			case OP_SELP: {
				uint32_t c = pred_src(P, f, &in->s[2]);

				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = exec_src(x, w, R, f, &in->s[1], t1);
				D = dst(x, R, &in->d[0]);
				LANES(D[l] = (c >> l & 1) ? A[l] : B[l]);
				break;
			}
			case OP_SLCT:
				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = exec_src(x, w, R, f, &in->s[1], t1);
				C = exec_src(x, w, R, f, &in->s[2], t2);
				D = dst(x, R, &in->d[0]);
				LANES({
					int ge = in->type2 == T_F32 ?
						 u2f(C[l]) >= 0.0f :
						 (int32_t)C[l] >= 0;
					D[l] = ge ? A[l] : B[l];
				});
				break;
			case OP_TESTP: {
				uint32_t r = 0;

				A = exec_src(x, w, R, f, &in->s[0], t0);
				LANES(r |= (uint32_t)alu_testp(in->sub,
					in->type == T_F64 ? u2d(A[l]) :
					(double)u2f(A[l])) << l);
				pred_set(P, &in->d[0], m, r);
				break;
			}
			case OP_CVT:
				A = exec_src(x, w, R, f, &in->s[0], t0);
				D = dst(x, R, &in->d[0]);
				if (in->type == T_U64 && in->type2 == T_U32)
					LANES(D[l] = (uint32_t)A[l]);
				else if (in->type == T_S64 &&
					 in->type2 == T_S32)
					LANES(D[l] = (uint64_t)(int64_t)
						(int32_t)A[l]);
				else
					LANES(D[l] = alu_cvt(in, A[l]));
				break;
			case OP_CVTA: {
				uint64_t win = in->space == SP_SHARED ?
					EMU_SHARED_WIN : in->space == SP_LOCAL ?
					EMU_LOCAL_WIN : 0;
				int sz = emu_type_size[in->type];

				if (in->space == SP_PARAM)
					return emu_fault(x,
						WGEMU_FAULT_UNSUPPORTED, in,
						w->id, __builtin_ctz(m),
						"cvta of .param");
				A = exec_src(x, w, R, f, &in->s[0], t0);
				D = dst(x, R, &in->d[0]);
				if (in->flags & F_TO)
					LANES(D[l] = trunc_sz(A[l] - win, sz));
				else
					LANES(D[l] = trunc_sz((uint32_t)A[l] ==
						A[l] && win ? A[l] + win :
						A[l] + win, sz));
				break;
			}
			case OP_MOVPACK: {
				int es = emu_type_size[in->type] / in->nsrc;
				uint64_t mk = es >= 8 ? ~0ull :
					      (1ull << (es * 8)) - 1;
				int i;

				D = dst(x, R, &in->d[0]);
				LANES(t3[l] = 0);
				for (i = 0; i < in->nsrc; i++) {
					A = exec_src(x, w, R, f, &in->s[i], t0);
					LANES(t3[l] |= (A[l] & mk) <<
					      (i * es * 8));
				}
				LANES(D[l] = t3[l]);
				break;
			}
			case OP_MOVUNPACK: {
				int es = emu_type_size[in->type] / in->ndst;
				uint64_t mk = es >= 8 ? ~0ull :
					      (1ull << (es * 8)) - 1;
				int i;

				A = exec_src(x, w, R, f, &in->s[0], t0);
				LANES(t3[l] = A[l]);
				for (i = 0; i < in->ndst; i++) {
					D = dst(x, R, &in->d[i]);
					LANES(D[l] = (t3[l] >> (i * es * 8)) &
					      mk);
				}
				break;
			}
			case OP_LD:
				if (mem_ld(x, w, in, m, R))
					return -1;
				break;
			case OP_CPASYNC:
				if (in->sub == CA_COPY &&
				    mem_cpasync(x, w, in, m, R, f))
					return -1;
				break;
			case OP_ST:
				if (mem_st(x, w, in, m, R, f))
					return -1;
				break;
			case OP_ATOM: case OP_RED:
				if (mem_atom(x, w, in, m, R, f))
					return -1;
				break;
			case OP_SHFL: {
				uint32_t pv = 0;

				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = exec_src(x, w, R, f, &in->s[1], t1);
				C = exec_src(x, w, R, f, &in->s[2], t2);
				LANES({
					uint32_t b = (uint32_t)B[l],
						 c = (uint32_t)C[l];
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
				D = dst(x, R, &in->d[0]);
				LANES(D[l] = (uint32_t)t3[l]);
				if (in->ndst == 2)
					pred_set(P, &in->d[1], m, pv);
				break;
			}
			case OP_MATCH:
				do_match(x, w, in, m, R, P, f, t0);
				break;
			case OP_HALF:
				do_half(x, w, in, m, R, P, f);
				break;
			case OP_VABSDIFF4: {
				/* the sum of the four bytes' |a - b|, plus c */
				A = exec_src(x, w, R, f, &in->s[0], t0);
				B = exec_src(x, w, R, f, &in->s[1], t1);
				C = exec_src(x, w, R, f, &in->s[2], t2);
				if (!in->sub)
					return emu_fault(x,
						WGEMU_FAULT_UNSUPPORTED, in,
							 w->id,
							 __builtin_ctz(m),
							 "vabsdiff4 without "
							 ".add");
				D = dst(x, R, &in->d[0]);
				LANES({
					uint32_t sum = (uint32_t)C[l];

					for (int k = 0; k < 32; k += 8) {
						int a = (int)(A[l] >> k & 255);
						int b = (int)(B[l] >> k & 255);

						if (in->cmp & 1) {
							a = (int8_t)a;
							b = (int8_t)b;
						}
						sum += (uint32_t)(a > b ? a - b :
								  b - a);
					}
					D[l] = sum;
				});
				break;
			}
			case OP_BMSK: {
				/* bmsk.{clamp,wrap}.b32 d, start, width */
				const uint64_t *S = exec_src(x, w, R, f,
							     &in->s[0], t0);
				const uint64_t *N = exec_src(x, w, R, f,
							     &in->s[1], t1);

				D = dst(x, R, &in->d[0]);
				LANES({
					uint32_t a = (uint32_t)S[l],
						 b = (uint32_t)N[l];

					if (in->sub) {
						a &= 31;
						b &= 31;
					} else {
						a = a > 32 ? 32 : a;
						b = b > 32 ? 32 : b;
					}
					D[l] = a >= 32 ? 0 : (uint32_t)
					       ((((1ull << b) - 1)) << a);
				});
				break;
			}
			case OP_TEX:
				if (do_tex(x, w, in, m, R, f))
					return -1;
				break;
			case OP_SULD: case OP_SUST:
				if (do_surf(x, w, in, m, R, f))
					return -1;
				break;
			case OP_REDUX:
				do_redux(x, w, in, m, R, f, t0, t1);
				break;
			case OP_VOTE:
				do_vote(x, w, in, m, R, P, f, t0);
				break;
			case OP_BRA: case OP_RET: {
				int target = in->op == OP_BRA ? in->target :
					     f->ninsns;

				if (x->lane_insns > x->limit)
					return emu_fault(x, WGEMU_FAULT_LIMIT,
							 in, w->id,
							 __builtin_ctz(m),
							 "instruction budget "
							 "of %llu exhausted "
							 "(endless loop?)",
							 (unsigned long long)
							 x->limit);
				if (m == mask) {
					pc = target;
					continue;
				}
				e->pc = pc;
				if (reconv_diverge(w, in, pc, target, mask, m))
					return emu_fault(x, WGEMU_FAULT_LIMIT,
							 in, -1, -1,
							 "out of memory");
				goto next_entry;
			}
			case OP_EXIT:
				mask &= ~m;
				e->pc = pc + 1;
				simt_kill(w, m);
				if (!mask)
					goto next_entry;
				break;
			case OP_CALL:
				if (x->lane_insns > x->limit)
					return emu_fault(x, WGEMU_FAULT_LIMIT,
							 in, w->id,
							 __builtin_ctz(m),
							 "instruction budget "
							 "exhausted");
				if (simt_call(x, w, in, m, pc))
					return -1;
				goto next_entry;
			case OP_BARRED: {
				/* a barrier that also reduces a predicate over
				 * the block: this warp's share now, the result
				 * when the block is released (sched.c) */
				uint32_t pv = pred_src(P, f, &in->s[in->nsrc - 1])
					      & m;

				w->bar_red = in->sub == BR_POPC ?
					     (uint32_t)__builtin_popcount(pv) :
					     in->sub == BR_AND ? pv == m :
					     pv != 0;
			}
				/* fall through */
			case OP_BAR:
				if (m != w->live && simt_finished(w, m))
					simt_kill(w, w->live & ~m);
				if (m != w->live)
					return emu_fault(x, WGEMU_FAULT_BARRIER,
							 in, w->id,
							 __builtin_ctz(m),
							 "divergent barrier: "
							 "bar.sync reached by "
							 "%d of the %d threads "
							 "of warp %d",
							 __builtin_popcount(m),
							 __builtin_popcount(
						w->live), w->id);
				e->pc = pc + 1;
				w->state = W_BAR;
				w->bar_pc = pc;
				w->bar_mask = m;
				return 0;
			case OP_TRAP:
				return emu_fault(x, WGEMU_FAULT_TRAP, in, w->id,
						 __builtin_ctz(m), "trap "
						 "(assertion or __trap())");
			case OP_UNSUP:
				return unsupported(x, w, f, in, m);
			default:
				return emu_fault(x, WGEMU_FAULT_UNSUPPORTED, in,
						 w->id, __builtin_ctz(m),
						 "unsupported PTX instruction "
						 "'%s'", emu_op_name[in->op]);
			}
			pc++;
		}
next_entry:
		;
	}
}
