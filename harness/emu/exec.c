/*
 * The interpreter of the emulator: runs one kernel launch over the
 * pre-decoded PTX of ptx.c.  Blocks run one after the other; inside a
 * block, warps of 32 lanes run in lockstep one at a time up to the next
 * bar.sync, so results and counters are deterministic.  Divergence is
 * handled with a SIMT stack whose entries reconverge at the immediate
 * post-dominator the parser computed for each branch.
 *
 * Every memory access is checked against the allocation, the shared memory
 * of the launch or the thread's local memory, and every warp-level global
 * or shared access is counted the way Nsight Compute counts it (sectors of
 * 32 bytes; shared wavefronts per bank).  Shared memory carries a shadow
 * word per 4 bytes (epoch and warp of the last write and reads) that finds
 * reads of never-written words and races between warps of a block.
 */
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"
#include "emu/half.h"
#include "emu/perf.h"
#include "emu/race.h"
#include "emu/texture.h"
#include "emu/wmma.h"

#define FULL 0xffffffffu
#define MAXFRAMES 64

struct sentry {
	int32_t pc, rpc;
	uint32_t mask;
};

struct frame {
	const struct emu_func *f;
	size_t roff, poff, paoff;
	uint32_t local_base, local_top;
	int depth;
	int call_pc;                  /* in the caller */
	uint32_t call_mask;
};

enum { W_RUN, W_BAR, W_DONE };

struct warp {
	int id;
	uint32_t init, live;
	int state;
	int bar_pc;
	uint32_t bar_mask;
	uint32_t bar_red;             /* bar.red: this warp's share */
	struct sentry *stack;
	int sp, cap;
	struct frame fr[MAXFRAMES];
	int nf;
	uint64_t *regs;
	size_t rcap, rtop;
	uint32_t *preds;
	size_t pcap, ptop;
	uint8_t *params;
	size_t pacap, patop;
	uint8_t *local;               /* 32 lanes x lcap bytes */
};

struct xctx {
	const struct emu_module *m;
	const struct emu_func *k;
	const struct emu_launch_cfg *cfg;
	struct emu_result *res;
	struct emu_line_counters *lines;
	const char *kname;
	uint64_t *symaddr;
	uint8_t *smem;
	uint32_t smem_size, dyn_base;
	struct race_shadow *sh;       /* race tracking (race.c) */
	uint32_t epoch, block_epoch;
	uint32_t lcap;
	struct warp *warps;
	int nwarps;
	unsigned bid[3];
	unsigned nthreads;
	uint64_t lane_insns, limit;
	struct emu_alloc *cache;
	uint64_t sink[32];
	uint64_t clock;
	int checks;
	int warned_uninit;            /* one warning per launch */
	int warned_guard;             /* the same for the guard bands */
	const uint8_t (*stv)[16];     /* do_st: the bytes each lane stores */
	size_t printf_bytes;          /* device printf output this launch */
	struct perf_collect *perf;    /* the block is sampled (perf.h) */
};

/* epochs only grow, so shadow entries of earlier blocks and launches
 * read as "never written" without clearing the shadow */
static uint32_t g_epoch = 1;

static inline float u2f(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint64_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline double u2d(uint64_t v)
{
	double d;

	memcpy(&d, &v, 8);
	return d;
}

static inline uint64_t d2u(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

static inline uint64_t trunc_sz(uint64_t v, int sz)
{
	switch (sz) {
	case 1: return (uint8_t)v;
	case 2: return (uint16_t)v;
	case 4: return (uint32_t)v;
	default: return v;
	}
}

static inline int64_t sx(uint64_t v, int sz)
{
	switch (sz) {
	case 1: return (int8_t)v;
	case 2: return (int16_t)v;
	case 4: return (int32_t)v;
	default: return (int64_t)v;
	}
}

/* run body for every lane of m */
#define LANES(...) do { \
	if (m == FULL) { \
		for (int l = 0; l < 32; l++) { __VA_ARGS__; } \
	} else { \
		for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) { \
			int l = __builtin_ctz(mm_); \
			__VA_ARGS__; \
		} \
	} \
} while (0)

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void thread_of(struct xctx *x, int warp, int lane, unsigned t[3])
{
	unsigned id = (unsigned)warp * 32 + (unsigned)lane;
	const unsigned *b = x->cfg->block;

	t[0] = id % b[0];
	t[1] = id / b[0] % b[1];
	t[2] = id / (b[0] * b[1]);
}

static int where(struct xctx *x, const struct emu_insn *in, char *buf,
		 size_t len)
{
	if (in && in->line >= 0 && in->line < x->m->nlines) {
		const struct emu_line *ln = &x->m->lines[in->line];
		const char *file = ln->file >= 0 && ln->file < x->m->nfiles &&
				   x->m->files[ln->file] ?
				   base_name(x->m->files[ln->file]) : "?";

		return snprintf(buf, len, "%s:%d", file, ln->line);
	}
	return snprintf(buf, len, "?:?");
}

/* Record a fault: "kernel 'k' at file:line, thread (x,y,z) of block
 * (x,y,z): what". */
static int fault(struct xctx *x, enum wgemu_fault_kind kind,
		 const struct emu_insn *in, int warp, int lane,
		 const char *fmt, ...)
{
	char loc[256], what[320];
	unsigned t[3];
	va_list ap;

	if (x->res->fault != WGEMU_FAULT_NONE)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	where(x, in, loc, sizeof(loc));
	x->res->fault = kind;
	if (warp >= 0 && lane >= 0) {
		thread_of(x, warp, lane, t);
		snprintf(x->res->msg, sizeof(x->res->msg),
			 "kernel '%.120s' at %.80s, thread (%u,%u,%u) of "
			 "block (%u,%u,%u): %.300s", x->kname, loc, t[0], t[1], t[2],
			 x->bid[0], x->bid[1], x->bid[2], what);
	} else {
		snprintf(x->res->msg, sizeof(x->res->msg),
			 "kernel '%.120s' at %.80s, block (%u,%u,%u): %.300s",
			 x->kname,
			 loc, x->bid[0], x->bid[1], x->bid[2], what);
	}
	return -1;
}

/* The uninitialised reads warned about: per instruction, once per
 * process, with the count of later launches that did it again. */
static struct {
	const struct emu_insn *in;
	char where[200];
	unsigned long again;
} g_warned[32];
static int g_nwarned;

static void report_warned(void)
{
	for (int i = 0; i < g_nwarned; i++)
		if (g_warned[i].again)
			fprintf(stderr, "warpgrade emulator: warning: the read "
				"of unwritten shared memory at %s happened "
				"in %lu more launch%s\n", g_warned[i].where,
				g_warned[i].again,
				g_warned[i].again == 1 ? "" : "es");
}

/* A finding that is not an error on a GPU (the value read is garbage
 * there, poison here): printed once per instruction (counted again once
 * per launch), execution goes on. */
static void warn_uninit(struct xctx *x, const struct emu_insn *in,
			int warp, int lane, uint32_t off)
{
	char loc[256];
	unsigned t[3];
	int i;

	if (x->warned_uninit)
		return;
	x->warned_uninit = 1;
	if (getenv("WGEMU_QUIET"))
		return;
	for (i = 0; i < g_nwarned && g_warned[i].in != in; i++)
		;
	if (i < g_nwarned) {
		g_warned[i].again++;
		return;
	}
	where(x, in, loc, sizeof(loc));
	if (g_nwarned < 32) {
		g_warned[g_nwarned].in = in;
		snprintf(g_warned[g_nwarned].where,
			 sizeof(g_warned[g_nwarned].where), "%.80s in '%.100s'",
			 loc, x->kname);
		if (!g_nwarned++)
			atexit(report_warned);
	}
	thread_of(x, warp, lane, t);
	fprintf(stderr, "warpgrade emulator: warning: kernel '%.120s' at "
		"%.80s, thread (%u,%u,%u) of block (%u,%u,%u): read of "
		"shared memory at offset %u that no thread of the block "
		"wrote (its value is undefined on a GPU)\n", x->kname, loc,
		t[0], t[1], t[2], x->bid[0], x->bid[1], x->bid[2], off);
}

struct emu_watch emu_watch;

/* A store into the guard bands around the watched output: reported once
 * per launch, like warn_uninit; execution goes on. */
static void warn_guard(struct xctx *x, const struct emu_insn *in, int warp,
		       int lane, uint64_t a)
{
	const struct emu_watch *g = &emu_watch;
	char loc[256];
	unsigned t[3];
	int after = a >= g->end;
	uint64_t k = after ? (a - g->end) / g->elem :
			     (g->out - a + g->elem - 1) / g->elem;

	if (x->warned_guard)
		return;
	x->warned_guard = 1;
	if (getenv("WGEMU_QUIET"))
		return;
	where(x, in, loc, sizeof(loc));
	thread_of(x, warp, lane, t);
	fprintf(stderr, "warpgrade emulator: warning: kernel '%.120s' at "
		"%.80s, thread (%u,%u,%u) of block (%u,%u,%u): store outside "
		"the output: element %llu %s\n", x->kname, loc, t[0], t[1],
		t[2], x->bid[0], x->bid[1], x->bid[2], (unsigned long long)k,
		after ? "past its end" : "before its start");
}

/* ---- per-warp storage ---- */
static int ensure(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t nc = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	np = realloc(*p, nc * sz);
	if (!np)
		return -1;
	memset((char *)np + *cap * sz, 0, (nc - *cap) * sz);
	*p = np;
	*cap = nc;
	return 0;
}

static void init_specials(struct xctx *x, struct warp *w, uint64_t *R,
			  uint64_t used)
{
	const unsigned *b = x->cfg->block, *g = x->cfg->grid;
	int l;

	if (!used)
		return;
	for (l = 0; l < 32; l++) {
		unsigned t[3];
		uint32_t lm = 1u << l;

		thread_of(x, w->id, l, t);
#define SET(sr, v) if (used & (1ull << (sr))) R[(sr) * 32 + l] = (v)
		SET(SR_TID_X, t[0]);
		SET(SR_TID_Y, t[1]);
		SET(SR_TID_Z, t[2]);
		SET(SR_NTID_X, b[0]);
		SET(SR_NTID_Y, b[1]);
		SET(SR_NTID_Z, b[2]);
		SET(SR_CTAID_X, x->bid[0]);
		SET(SR_CTAID_Y, x->bid[1]);
		SET(SR_CTAID_Z, x->bid[2]);
		SET(SR_NCTAID_X, g[0]);
		SET(SR_NCTAID_Y, g[1]);
		SET(SR_NCTAID_Z, g[2]);
		SET(SR_LANEID, (unsigned)l);
		SET(SR_WARPID, (unsigned)w->id);
		SET(SR_NWARPID, 64u);
		SET(SR_SMID, 0u);
		SET(SR_NSMID, 132u);
		SET(SR_GRIDID, 1u);
		SET(SR_LANEMASK_EQ, lm);
		SET(SR_LANEMASK_LT, lm - 1);
		SET(SR_LANEMASK_LE, lm | (lm - 1));
		SET(SR_LANEMASK_GT, ~(lm | (lm - 1)));
		SET(SR_LANEMASK_GE, ~(lm - 1));
		SET(SR_DYN_SMEM, x->cfg->dyn_smem);
		SET(SR_TOTAL_SMEM, x->smem_size);
#undef SET
	}
}

/* Push a frame for f; 0, or -1 when out of memory or too deep. */
static int push_frame(struct xctx *x, struct warp *w,
		      const struct emu_func *f, const struct emu_insn *in)
{
	struct frame *fr, *up = w->nf ? &w->fr[w->nf - 1] : NULL;
	size_t roff = up ? up->roff + (size_t)up->f->nregs * 32 : 0;
	size_t poff = up ? up->poff + (size_t)up->f->npreds : 0;
	size_t paoff = up ? up->paoff + (size_t)up->f->param_bytes * 32 : 0;
	uint32_t lb = up ? up->local_top : 0;

	if (w->nf == MAXFRAMES)
		return fault(x, WGEMU_FAULT_LIMIT, in, w->id,
			     __builtin_ctz(w->live | 1u << 31),
			     "call stack deeper than %d frames", MAXFRAMES);
	if (ensure(&w->regs, &w->rcap, roff + (size_t)f->nregs * 32,
		   sizeof(uint64_t)) ||
	    ensure(&w->preds, &w->pcap, poff + (size_t)f->npreds + 1,
		   sizeof(uint32_t)) ||
	    ensure(&w->params, &w->pacap,
		   paoff + (size_t)f->param_bytes * 32 + 1, 1))
		return fault(x, WGEMU_FAULT_RESOURCES, in, -1, -1,
			     "out of host memory");
	lb = (lb + 15) & ~15u;
	if ((uint64_t)lb + f->depot_bytes > x->lcap)
		return fault(x, WGEMU_FAULT_RESOURCES, in, w->id,
			     __builtin_ctz(w->live | 1u << 31),
			     "local memory exhausted (recursion too deep)");
	fr = &w->fr[w->nf++];
	fr->f = f;
	fr->roff = roff;
	fr->poff = poff;
	fr->paoff = paoff;
	fr->local_base = lb;
	fr->local_top = lb + f->depot_bytes;
	fr->depth = w->sp;
	fr->call_pc = -1;
	fr->call_mask = 0;
	init_specials(x, w, w->regs + roff, f->sr_used);
	return 0;
}

static int push_entry(struct warp *w, int pc, int rpc, uint32_t mask)
{
	if (w->sp == w->cap) {
		size_t c = (size_t)w->cap;

		if (ensure(&w->stack, &c, (size_t)w->sp + 1, sizeof(*w->stack)))
			return -1;
		w->cap = (int)c;
	}
	w->stack[w->sp].pc = pc;
	w->stack[w->sp].rpc = rpc;
	w->stack[w->sp].mask = mask;
	w->sp++;
	return 0;
}

/* ---- operands ---- */
static uint64_t sym_value(struct xctx *x, struct warp *w, int s)
{
	const struct emu_sym *sy = &x->m->syms[s];

	if (sy->kind == SYM_LOCAL)
		return w->fr[w->nf - 1].local_base + sy->off;
	return x->symaddr[s];
}

static const uint64_t *src(struct xctx *x, struct warp *w,
			   const uint64_t *R, const struct emu_func *f,
			   const struct emu_opnd *o, uint64_t *tmp)
{
	uint64_t v;
	int l;

	switch (o->kind) {
	case OK_REG:
		return R + (size_t)o->idx * 32;
	case OK_CONST:
		return f->consts + (size_t)o->idx * 32;
	case OK_SYM:
		v = sym_value(x, w, o->idx);
		for (l = 0; l < 32; l++)
			tmp[l] = v;
		return tmp;
	default:
		memset(tmp, 0, 32 * sizeof(*tmp));
		return tmp;
	}
}

static uint32_t pred_src(const uint32_t *P, const struct emu_func *f,
			 const struct emu_opnd *o)
{
	uint32_t v;

	if (o->kind == OK_CONST)
		return f->consts[(size_t)o->idx * 32] ? FULL : 0;
	if (o->kind != OK_PRED)
		return 0;
	v = P[o->idx];
	return o->neg ? ~v : v;
}

static void pred_set(uint32_t *P, const struct emu_opnd *o, uint32_t m,
		     uint32_t v)
{
	if (o->kind == OK_PRED)
		P[o->idx] = (P[o->idx] & ~m) | (v & m);
}

/* ---- floating point helpers ---- */
static inline float ftz32(float f)
{
	if (fpclassify(f) == FP_SUBNORMAL)
		return copysignf(0.0f, f);
	return f;
}

static inline double ftz64(double d)
{
	if (fpclassify(d) == FP_SUBNORMAL)
		return copysign(0.0, d);
	return d;
}

static int fe_mode(int rnd)
{
	switch (rnd) {
	case R_RZ: case R_RZI: return FE_TOWARDZERO;
	case R_RM: case R_RMI: return FE_DOWNWARD;
	case R_RP: case R_RPI: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

static double round_int(double v, int rnd)
{
	switch (rnd) {
	case R_RZI: return trunc(v);
	case R_RMI: return floor(v);
	case R_RPI: return ceil(v);
	case R_RNI: return nearbyint(v);
	default: return v;
	}
}

/* a float op of one or two or three operands in f32 or f64 */
static int float_op(struct xctx *x, const struct emu_insn *in, uint32_t m,
		    uint64_t *D, const uint64_t *A, const uint64_t *B,
		    const uint64_t *C)
{
	int op = in->op, dbl = in->type == T_F64;
	int ftz = (in->flags & F_FTZ) != 0, sat = (in->flags & F_SAT) != 0;
	int mode = fe_mode(in->rnd), old = 0;

	if (in->type == T_F16)
		return -1;
	if (mode != FE_TONEAREST) {
		old = fegetround();
		fesetround(mode);
	}
	if (!dbl) {
		LANES({
			volatile float a = u2f(A[l]), b = 0, c = 0, r;

			if (B)
				b = u2f(B[l]);
			if (C)
				c = u2f(C[l]);
			if (ftz) {
				a = ftz32(a);
				b = ftz32(b);
				c = ftz32(c);
			}
			switch (op) {
			case OP_ADD: r = a + b; break;
			case OP_SUB: r = a - b; break;
			case OP_MUL: r = a * b; break;
			case OP_FMA: case OP_MAD: r = fmaf(a, b, c); break;
			case OP_DIV: r = a / b; break;
			case OP_MIN: r = fminf(a, b); break;
			case OP_MAX: r = fmaxf(a, b); break;
			case OP_ABS: r = fabsf(a); break;
			case OP_NEG: r = -a; break;
			case OP_SQRT: r = sqrtf(a); break;
			case OP_RSQRT: r = 1.0f / sqrtf(a); break;
			case OP_RCP: r = 1.0f / a; break;
			case OP_EX2: r = exp2f(a); break;
			case OP_LG2: r = log2f(a); break;
			case OP_SIN: r = sinf(a); break;
			case OP_TANH: r = tanhf(a); break;
			case OP_COS: r = cosf(a); break;
			case OP_COPYSIGN: r = copysignf(b, a); break;
			default: r = 0; break;
			}
			if (ftz)
				r = ftz32(r);
			if (sat)
				r = isnan(r) ? 0.0f : r < 0 ? 0.0f :
				    r > 1 ? 1.0f : r;
			D[l] = f2u(r);
		});
	} else {
		LANES({
			volatile double a = u2d(A[l]), b = 0, c = 0, r;

			if (B)
				b = u2d(B[l]);
			if (C)
				c = u2d(C[l]);
			if (ftz) {
				a = ftz64(a);
				b = ftz64(b);
			}
			switch (op) {
			case OP_ADD: r = a + b; break;
			case OP_SUB: r = a - b; break;
			case OP_MUL: r = a * b; break;
			case OP_FMA: case OP_MAD: r = fma(a, b, c); break;
			case OP_DIV: r = a / b; break;
			case OP_MIN: r = fmin(a, b); break;
			case OP_MAX: r = fmax(a, b); break;
			case OP_ABS: r = fabs(a); break;
			case OP_NEG: r = -a; break;
			case OP_SQRT: r = sqrt(a); break;
			case OP_RSQRT: r = 1.0 / sqrt(a); break;
			case OP_RCP: r = 1.0 / a; break;
			case OP_EX2: r = exp2(a); break;
			case OP_LG2: r = log2(a); break;
			case OP_SIN: r = sin(a); break;
			case OP_TANH: r = tanh(a); break;
			case OP_COS: r = cos(a); break;
			case OP_COPYSIGN: r = copysign(b, a); break;
			default: r = 0; break;
			}
			if (sat)
				r = isnan(r) ? 0.0 : r < 0 ? 0.0 :
				    r > 1 ? 1.0 : r;
			D[l] = d2u(r);
		});
	}
	if (mode != FE_TONEAREST)
		fesetround(old);
	(void)x;
	return 0;
}

/* IEEE half to single (half.c) */
static float h2f(uint16_t h)
{
	return emu_f16_to_f32(h);
}

/* a float to the half type t (T_F16 or T_BF16) */
static uint64_t to_half(int t, float v)
{
	return t == T_BF16 ? emu_f32_to_bf16(v) : emu_f32_to_f16(v);
}

/* cvt of one value; returns the destination bits */
static uint64_t cvt_one(const struct emu_insn *in, uint64_t a)
{
	int dt = in->type, st = in->type2;
	char dk = emu_type_kind[dt], sk = emu_type_kind[st];
	int dsz = emu_type_size[dt], ssz = emu_type_size[st];
	int sat = (in->flags & F_SAT) != 0, ftz = (in->flags & F_FTZ) != 0;

	if (in->sub == CVT_TF32)
		return emu_f32_to_tf32((uint32_t)a);
	if (sk != 'f' && dk != 'f') {
		int64_t sv = sk == 's' ? sx(a, ssz) : (int64_t)trunc_sz(a, ssz);

		if (sat && dsz < 8) {
			int64_t lo = dk == 's' ? -(1ll << (dsz * 8 - 1)) : 0;
			int64_t hi = dk == 's' ? (1ll << (dsz * 8 - 1)) - 1 :
				     (int64_t)((1ull << (dsz * 8)) - 1);

			if (sk == 'u' && ssz == 8 && (uint64_t)sv > (uint64_t)hi)
				sv = hi;
			else if (sv < lo)
				sv = lo;
			else if (sv > hi)
				sv = hi;
		} else if (sat && dk == 'u' && sk == 's' && sv < 0) {
			sv = 0;
		} else if (sat && dk == 's' && sk == 'u' && sv < 0) {
			sv = INT64_MAX;
		}
		return dk == 's' ? (uint64_t)sx((uint64_t)sv, dsz)
				 : trunc_sz((uint64_t)sv, dsz);
	}
	if (sk == 'f') {
		double v = st == T_F64 ? u2d(a) : st == T_F32 ?
			   (double)(ftz ? ftz32(u2f(a)) : u2f(a)) :
			   st == T_BF16 ? (double)emu_bf16_to_f32((uint16_t)a) :
			   (double)h2f((uint16_t)a);

		if (dk != 'f') {
			double lo, hi;

			if (isnan(v))
				return 0;
			v = round_int(v, in->rnd ? in->rnd : R_RZI);
			if (dk == 's') {
				lo = -ldexp(1, dsz * 8 - 1);
				hi = ldexp(1, dsz * 8 - 1) - 1;
			} else {
				lo = 0;
				hi = ldexp(1, dsz * 8) - 1;
			}
			if (v <= lo)
				return dk == 's' ? (uint64_t)sx((uint64_t)
					(-(1ull << (dsz * 8 - 1))), dsz) : 0;
			if (v >= hi)
				return dk == 's' ? trunc_sz((1ull << (dsz * 8 -
						1)) - 1, dsz)
						 : trunc_sz(~0ull, dsz);
			return dk == 's' ? (uint64_t)sx((uint64_t)(int64_t)v,
							dsz)
					 : trunc_sz((uint64_t)v, dsz);
		}
		if (in->rnd >= R_RNI)
			v = round_int(v, in->rnd);
		if (dt == T_F64) {
			if (sat)
				v = isnan(v) ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
			return d2u(v);
		}
		if (dt == T_F32) {
			volatile float r;
			int mode = fe_mode(in->rnd), old = fegetround();

			if (in->rnd >= R_RNI || mode == FE_TONEAREST) {
				r = (float)v;
			} else {
				fesetround(mode);
				r = (float)v;
				fesetround(old);
			}
			if (ftz)
				r = ftz32(r);
			if (sat)
				r = isnan(r) ? 0 : r < 0 ? 0 : r > 1 ? 1 : r;
			return f2u(r);
		}
		return to_half(dt, (float)v);
	}
	/* integer to float */
	{
		int mode = fe_mode(in->rnd), old = fegetround();
		uint64_t r;

		if (mode != FE_TONEAREST)
			fesetround(mode);
		if (dt == T_F64) {
			volatile double d = sk == 's' ? (double)sx(a, ssz) :
					    (double)trunc_sz(a, ssz);
			r = d2u(d);
		} else {
			volatile float f = sk == 's' ? (float)sx(a, ssz) :
					   (float)trunc_sz(a, ssz);
			r = dt == T_F32 ? f2u(f) : to_half(dt, f);
		}
		if (mode != FE_TONEAREST)
			fesetround(old);
		return r;
	}
}

static int compare(int cmp, char k, int sz, uint64_t a, uint64_t b)
{
	if (k == 'f') {
		double x = sz == 8 ? u2d(a) : sz == 4 ? (double)u2f(a) :
			   (double)h2f((uint16_t)a);
		double y = sz == 8 ? u2d(b) : sz == 4 ? (double)u2f(b) :
			   (double)h2f((uint16_t)b);
		int un = isnan(x) || isnan(y);

		switch (cmp) {
		case C_EQ: return !un && x == y;
		case C_NE: return !un && x != y;
		case C_LT: return !un && x < y;
		case C_LE: return !un && x <= y;
		case C_GT: return !un && x > y;
		case C_GE: return !un && x >= y;
		case C_EQU: return un || x == y;
		case C_NEU: return un || x != y;
		case C_LTU: return un || x < y;
		case C_LEU: return un || x <= y;
		case C_GTU: return un || x > y;
		case C_GEU: return un || x >= y;
		case C_NUM: return !un;
		case C_NAN: return un;
		default: return 0;
		}
	}
	if (k == 's') {
		int64_t x = sx(a, sz), y = sx(b, sz);

		switch (cmp) {
		case C_EQ: return x == y;
		case C_NE: return x != y;
		case C_LT: case C_LO: return x < y;
		case C_LE: case C_LS: return x <= y;
		case C_GT: case C_HI: return x > y;
		case C_GE: case C_HS: return x >= y;
		default: return 0;
		}
	} else {
		uint64_t x = trunc_sz(a, sz), y = trunc_sz(b, sz);

		switch (cmp) {
		case C_EQ: return x == y;
		case C_NE: return x != y;
		case C_LT: case C_LO: return x < y;
		case C_LE: case C_LS: return x <= y;
		case C_GT: case C_HI: return x > y;
		case C_GE: case C_HS: return x >= y;
		default: return 0;
		}
	}
}

/* ---- integer ops ---- */
static int int_op(const struct emu_insn *in, uint32_t m, uint64_t *D,
		  const uint64_t *A, const uint64_t *B, const uint64_t *C)
{
	int t = in->type, sz = emu_type_size[t], s = emu_type_kind[t] == 's';
	int bits = sz * 8;

	switch (in->op) {
	case OP_ADD:
		if (sz == 4)
			LANES(D[l] = (uint32_t)(A[l] + B[l]));
		else
			LANES(D[l] = trunc_sz(A[l] + B[l], sz));
		if (in->flags & F_SAT && s && sz == 4)
			LANES({
				int64_t r = (int64_t)(int32_t)A[l] +
					    (int32_t)B[l];
				r = r > INT32_MAX ? INT32_MAX :
				    r < INT32_MIN ? INT32_MIN : r;
				D[l] = (uint32_t)r;
			});
		return 0;
	case OP_SUB:
		LANES(D[l] = trunc_sz(A[l] - B[l], sz));
		if (in->flags & F_SAT && s && sz == 4)
			LANES({
				int64_t r = (int64_t)(int32_t)A[l] -
					    (int32_t)B[l];
				r = r > INT32_MAX ? INT32_MAX :
				    r < INT32_MIN ? INT32_MIN : r;
				D[l] = (uint32_t)r;
			});
		return 0;
	case OP_MUL: case OP_MAD:
		if (in->flags & F_WIDE) {
			if (sz == 4 && s)
				LANES(D[l] = (uint64_t)((int64_t)(int32_t)A[l] *
					(int32_t)B[l]));
			else if (sz == 4)
				LANES(D[l] = (uint64_t)(uint32_t)A[l] *
					(uint32_t)B[l]);
			else if (sz == 2 && s)
				LANES(D[l] = (uint32_t)((int32_t)(int16_t)A[l] *
					(int16_t)B[l]));
			else if (sz == 2)
				LANES(D[l] = (uint32_t)((uint16_t)A[l] *
					(uint32_t)(uint16_t)B[l]));
			else
				return -1;
			if (in->op == OP_MAD)
				LANES(D[l] = trunc_sz(D[l] + C[l], sz * 2));
			return 0;
		}
		if (in->flags & F_HI) {
			if (sz == 8 && s)
				LANES(D[l] = (uint64_t)(((__int128)(int64_t)A[l] *
					(int64_t)B[l]) >> 64));
			else if (sz == 8)
				LANES(D[l] = (uint64_t)(((unsigned __int128)A[l] *
					B[l]) >> 64));
			else if (s)
				LANES(D[l] = trunc_sz((uint64_t)((sx(A[l], sz) *
					sx(B[l], sz)) >> bits), sz));
			else
				LANES(D[l] = trunc_sz((trunc_sz(A[l], sz) *
					trunc_sz(B[l], sz)) >> bits, sz));
		} else if (sz == 4) {
			LANES(D[l] = (uint32_t)(A[l] * B[l]));
		} else {
			LANES(D[l] = trunc_sz(A[l] * B[l], sz));
		}
		if (in->op == OP_MAD)
			LANES(D[l] = trunc_sz(D[l] + C[l], sz));
		return 0;
	case OP_MUL24: case OP_MAD24:
		if (in->flags & F_HI)
			return -1;
		if (s)
			LANES(D[l] = (uint32_t)(((int64_t)A[l] << 40 >> 40) *
				((int64_t)B[l] << 40 >> 40)));
		else
			LANES(D[l] = (uint32_t)((A[l] & 0xffffff) *
				(B[l] & 0xffffff)));
		if (in->op == OP_MAD24)
			LANES(D[l] = (uint32_t)(D[l] + C[l]));
		return 0;
	case OP_SAD:
		if (s)
			LANES({
				int64_t a = sx(A[l], sz), b = sx(B[l], sz);
				D[l] = trunc_sz((uint64_t)(a > b ? a - b : b - a)
						+ C[l], sz);
			});
		else
			LANES({
				uint64_t a = trunc_sz(A[l], sz),
					 b = trunc_sz(B[l], sz);
				D[l] = trunc_sz((a > b ? a - b : b - a) + C[l],
						sz);
			});
		return 0;
	case OP_DIV: case OP_REM:
		LANES({
			uint64_t r;

			if (s) {
				int64_t a = sx(A[l], sz), b = sx(B[l], sz);

				if (b == 0)
					r = in->op == OP_DIV ? ~0ull :
					    (uint64_t)a;
				else if (b == -1)
					r = in->op == OP_DIV ? (uint64_t)-a : 0;
				else
					r = (uint64_t)(in->op == OP_DIV ?
						a / b : a % b);
			} else {
				uint64_t a = trunc_sz(A[l], sz),
					 b = trunc_sz(B[l], sz);

				if (b == 0)
					r = in->op == OP_DIV ? ~0ull : a;
				else
					r = in->op == OP_DIV ? a / b : a % b;
			}
			D[l] = trunc_sz(r, sz);
		});
		return 0;
	case OP_MIN: case OP_MAX:
		LANES({
			int lt;

			if (s)
				lt = sx(A[l], sz) < sx(B[l], sz);
			else
				lt = trunc_sz(A[l], sz) < trunc_sz(B[l], sz);
			D[l] = trunc_sz((lt == (in->op == OP_MIN)) ? A[l] : B[l],
					sz);
		});
		return 0;
	case OP_ABS:
		LANES({
			int64_t a = sx(A[l], sz);
			D[l] = trunc_sz((uint64_t)(a < 0 ? -a : a), sz);
		});
		return 0;
	case OP_NEG:
		LANES(D[l] = trunc_sz(-A[l], sz));
		return 0;
	case OP_AND:
		LANES(D[l] = trunc_sz(A[l] & B[l], sz));
		return 0;
	case OP_OR:
		LANES(D[l] = trunc_sz(A[l] | B[l], sz));
		return 0;
	case OP_XOR:
		LANES(D[l] = trunc_sz(A[l] ^ B[l], sz));
		return 0;
	case OP_NOT:
		LANES(D[l] = trunc_sz(~A[l], sz));
		return 0;
	case OP_CNOT:
		LANES(D[l] = trunc_sz(A[l], sz) == 0);
		return 0;
	case OP_SHL:
		LANES({
			uint32_t n = (uint32_t)B[l];
			D[l] = n >= (uint32_t)bits ? 0 :
			       trunc_sz(A[l] << n, sz);
		});
		return 0;
	case OP_SHR:
		if (s)
			LANES({
				uint32_t n = (uint32_t)B[l];
				int64_t a = sx(A[l], sz);
				D[l] = trunc_sz((uint64_t)(a >> (n >= (uint32_t)
					bits ? bits - 1 : (int)n)), sz);
			});
		else
			LANES({
				uint32_t n = (uint32_t)B[l];
				D[l] = n >= (uint32_t)bits ? 0 :
				       trunc_sz(A[l], sz) >> n;
			});
		return 0;
	case OP_POPC:
		LANES(D[l] = (uint64_t)__builtin_popcountll(trunc_sz(A[l],
								      sz)));
		return 0;
	case OP_BFIND:
		/* the most significant non-sign bit, or its distance from
		 * the top with .shiftamt; 0xffffffff when there is none */
		LANES({
			uint64_t a = trunc_sz(A[l], sz);
			int pos;

			if (s && (a >> (bits - 1) & 1))
				a = trunc_sz(~a, sz);
			pos = a ? 63 - __builtin_clzll(a) : -1;
			D[l] = pos < 0 ? 0xffffffffu :
			       (uint32_t)(in->flags & F_SHIFTAMT ?
					  bits - 1 - pos : pos);
		});
		return 0;
	case OP_CLZ:
		LANES({
			uint64_t a = trunc_sz(A[l], sz);
			D[l] = a ? (uint64_t)(__builtin_clzll(a) - (64 - bits))
				 : (uint64_t)bits;
		});
		return 0;
	case OP_BREV:
		LANES({
			uint64_t a = A[l], r = 0;
			for (int i = 0; i < bits; i++)
				r |= ((a >> i) & 1) << (bits - 1 - i);
			D[l] = r;
		});
		return 0;
	case OP_BFE:
		LANES({
			uint32_t pos = (uint32_t)B[l] & 0xff,
				 len = (uint32_t)C[l] & 0xff;
			uint64_t a = trunc_sz(A[l], sz), r = 0, sbit = 0;
			int msb = bits - 1;

			if (s && len) {
				uint32_t sb = pos + len - 1;
				sbit = (a >> (sb > (uint32_t)msb ? msb :
					      (int)sb)) & 1;
			}
			for (int i = 0; i <= msb; i++) {
				uint64_t bit = ((uint32_t)i < len &&
						pos + (uint32_t)i <= (uint32_t)msb) ?
					       (a >> (pos + i)) & 1 : sbit;
				r |= bit << i;
			}
			D[l] = r;
		});
		return 0;
	case OP_PRMT:
		if (in->sub)
			return -1;
		LANES({
			uint64_t v = (uint32_t)A[l] |
				     ((uint64_t)(uint32_t)B[l] << 32);
			uint32_t c = (uint32_t)C[l], r = 0;
			for (int i = 0; i < 4; i++) {
				uint32_t sel = (c >> (4 * i)) & 0xf;
				uint32_t byte = (uint32_t)(v >> ((sel & 7) * 8))
						& 0xff;
				if (sel & 8)
					byte = (byte & 0x80) ? 0xff : 0;
				r |= byte << (8 * i);
			}
			D[l] = r;
		});
		return 0;
	case OP_SHF:
		LANES({
			uint32_t n = (uint32_t)C[l];
			uint64_t v = (uint32_t)A[l] |
				     ((uint64_t)(uint32_t)B[l] << 32);
			n = (in->flags & F_WRAP) ? n & 31 : (n > 32 ? 32 : n);
			if (in->flags & F_LEFT)
				D[l] = (uint32_t)((v << n) >> 32);
			else
				D[l] = (uint32_t)(v >> n);
		});
		return 0;
	default:
		return -1;
	}
}

static int bfi_op(const struct emu_insn *in, uint32_t m, uint64_t *D,
		  const uint64_t *A, const uint64_t *B, const uint64_t *C,
		  const uint64_t *E)
{
	int bits = emu_type_size[in->type] * 8;

	LANES({
		uint32_t pos = (uint32_t)C[l] & 0xff, len = (uint32_t)E[l] & 0xff;
		uint64_t r = trunc_sz(B[l], bits / 8);
		for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++)
			r = (r & ~(1ull << (pos + i))) |
			    (((A[l] >> i) & 1) << (pos + i));
		D[l] = r;
	});
	return 0;
}

/* ---- memory ---- */
enum { MK_GLOBAL, MK_SHARED, MK_LOCAL, MK_PARAM, MK_KPARAM, MK_CONST };

static const char *const mk_name[] = {
	"global", "shared", "local", "param", "param", "constant"
};

/* distinct elements of a small array (sorted in place) */
static int count_distinct(uint64_t *v, int n)
{
	int i, j, d = 0;

	for (i = 1; i < n; i++) {
		uint64_t k = v[i];

		for (j = i - 1; j >= 0 && v[j] > k; j--)
			v[j + 1] = v[j];
		v[j + 1] = k;
	}
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			d++;
	return d;
}

static int global_sectors(const uint64_t *addr, uint32_t m, int bytes)
{
	uint64_t s[32 * 2];
	int n = 0;

	LANES({
		uint64_t a = addr[l] >> 5, b = (addr[l] + (uint64_t)bytes - 1)
					       >> 5;
		s[n++] = a;
		if (b != a && n < 64)
			s[n++] = b;
	});
	return count_distinct(s, n);
}

/* wavefronts of a shared access; *ideal receives the conflict-free
 * count (one per phase of lanes with an active lane) */
static int shared_wavefronts(const uint64_t *addr, uint32_t m, int bytes,
			     int *ideal)
{
	int per = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
	int words = bytes <= 4 ? 1 : bytes / 4, total = 0, ph;

	*ideal = 0;
	for (ph = 0; ph < 32; ph += per) {
		uint32_t pm = m & (per == 32 ? FULL : ((1u << per) - 1) << ph);
		uint64_t w[32 * 4];
		int n = 0, i, cnt[32], mx = 0;

		if (!pm)
			continue;
		(*ideal)++;
		for (uint32_t mm = pm; mm; mm &= mm - 1) {
			int l = __builtin_ctz(mm);

			for (i = 0; i < words; i++)
				w[n++] = (addr[l] >> 2) + (uint64_t)i;
		}
		count_distinct(w, n);
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			if (i == 0 || w[i] != w[i - 1]) {
				int b = (int)(w[i] & 31);

				if (++cnt[b] > mx)
					mx = cnt[b];
			}
		total += mx;
	}
	return total;
}

static struct emu_alloc *global_lookup(struct xctx *x, uint64_t a,
				       uint64_t len)
{
	struct emu_alloc *c = x->cache;

	if (c && a >= c->dev && a + len <= c->dev + c->size && a + len >= a)
		return c;
	c = emu_mem_find(a, len);
	if (c)
		x->cache = c;
	return c;
}

/* Race checks of a shared access of lane l (race.c), reported here: a
 * read of unwritten memory as a warning, a race as a fault. */
static int shadow(struct xctx *x, const struct emu_insn *in, int warp,
		  int lane, uint32_t off, int bytes, int is_store, int atomic)
{
	struct race_hit h;
	char loc[128];
	struct emu_insn tmp;

	if (!race_access(x->sh, x->epoch, x->block_epoch, warp, in->line, off,
			 bytes, is_store, atomic, x->smem,
			 x->stv ? x->stv[lane] : NULL, &h)) {
		if (h.uninit)
			warn_uninit(x, in, warp, lane, h.uninit_off);
		return 0;
	}
	if (h.kind == RACE_AFTER_READ)
		return fault(x, WGEMU_FAULT_RACE, in, warp, lane,
			     "shared-memory race at offset %u: written by "
			     "warp %d after %s read it with no barrier "
			     "between", h.off, warp, h.other_warp == 0xffff ?
			     "other warps" : "another warp");
	tmp.line = h.other_line;
	where(x, &tmp, loc, sizeof(loc));
	return fault(x, WGEMU_FAULT_RACE, in, warp, lane,
		     "shared-memory race at offset %u: %s by warp %d, "
		     "written at %s by warp %d with no barrier between", h.off,
		     is_store ? "written" : "read", warp, loc, h.other_warp);
}

/* The space a generic address falls in; *a becomes the offset into the
 * shared or local window. */
static inline int generic_kind(uint64_t *a)
{
	if (*a - EMU_SHARED_WIN < EMU_WIN_SIZE) {
		*a -= EMU_SHARED_WIN;
		return MK_SHARED;
	}
	if (*a - EMU_LOCAL_WIN < EMU_WIN_SIZE) {
		*a -= EMU_LOCAL_WIN;
		return MK_LOCAL;
	}
	return MK_GLOBAL;
}

/* Resolve the host pointers of the active lanes' accesses. */
static int resolve(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, const uint64_t *addr, int bytes, int is_store,
		   int atomic, uint8_t **hp, uint32_t *gmask, uint32_t *smask)
{
	struct frame *fr = &w->fr[w->nf - 1];
	int sp = in->space;

	*gmask = *smask = 0;
	for (uint32_t mm = m; mm; mm &= mm - 1) {
		int l = __builtin_ctz(mm), kind;
		uint64_t a = addr[l];

		switch (sp) {
		case SP_GLOBAL: kind = MK_GLOBAL; break;
		case SP_CONST: kind = MK_CONST; break;
		case SP_SHARED: kind = MK_SHARED; a = (uint32_t)a; break;
		case SP_LOCAL: kind = MK_LOCAL; a = (uint32_t)a; break;
		case SP_PARAM: kind = MK_PARAM; break;
		case SP_KPARAM: kind = MK_KPARAM; break;
		default:
			kind = generic_kind(&a);
			break;
		}
		if (a & (uint64_t)(bytes - 1))
			return fault(x, WGEMU_FAULT_MISALIGNED, in, w->id, l,
				     "misaligned %s access of %d bytes at "
				     "0x%llx", mk_name[kind], bytes,
				     (unsigned long long)addr[l]);
		switch (kind) {
		case MK_GLOBAL: case MK_CONST: {
			struct emu_alloc *al = global_lookup(x, a,
							     (uint64_t)bytes);

			if (!al)
				return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					     w->id, l, "out-of-bounds %s %s "
					     "of %d bytes at address 0x%llx "
					     "(outside every allocation)",
					     mk_name[kind], is_store ? "store"
					     : "load", bytes,
					     (unsigned long long)a);
			if (al->is_const && (is_store || atomic))
				return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					     w->id, l, "store to constant "
					     "memory at 0x%llx",
					     (unsigned long long)a);
			hp[l] = al->host + (a - al->dev);
			if (!al->is_const)
				*gmask |= 1u << l;
			if (is_store && a + (uint64_t)bytes > emu_watch.lo &&
			    a < emu_watch.hi && (a < emu_watch.out ||
			    a + (uint64_t)bytes > emu_watch.end))
				warn_guard(x, in, w->id, l, a < emu_watch.out ?
					   a : a + (uint64_t)bytes - 1);
			break;
		}
		case MK_SHARED:
			if (a + (uint64_t)bytes > x->smem_size)
				return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					     w->id, l, "out-of-bounds shared "
					     "%s of %d bytes at offset %llu "
					     "(the block has %u bytes of "
					     "shared memory)", is_store ?
					     "store" : "load", bytes,
					     (unsigned long long)a,
					     x->smem_size);
			if (x->checks && shadow(x, in, w->id, l, (uint32_t)a,
						bytes, is_store, atomic))
				return -1;
			hp[l] = x->smem + a;
			*smask |= 1u << l;
			break;
		case MK_LOCAL:
			if (a + (uint64_t)bytes > x->lcap)
				return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					     w->id, l, "out-of-bounds local "
					     "%s of %d bytes at offset %llu",
					     is_store ? "store" : "load", bytes,
					     (unsigned long long)a);
			hp[l] = w->local + (size_t)l * x->lcap + a;
			break;
		case MK_PARAM:
			if (a + (uint64_t)bytes > fr->f->param_bytes)
				return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					     w->id, l, "parameter access "
					     "out of range");
			hp[l] = w->params + fr->paoff +
				(size_t)l * fr->f->param_bytes + a;
			break;
		default:
			if (a + (uint64_t)bytes > x->k->kparam_bytes)
				return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in,
					     w->id, l, "kernel parameter "
					     "access out of range");
			hp[l] = (uint8_t *)x->cfg->params + a;
			break;
		}
	}
	return 0;
}

/* what a counted access does */
enum { ACC_LOAD, ACC_STORE, ACC_ATOMIC };

static void count_global(struct wgemu_counters *c, int kind, uint64_t s)
{
	switch (kind) {
	case ACC_LOAD:
		c->global_load_requests++;
		c->global_load_sectors += s;
		break;
	case ACC_STORE:
		c->global_store_requests++;
		c->global_store_sectors += s;
		break;
	default:
		c->global_atomic_requests++;
		c->global_atomic_sectors += s;
		break;
	}
}

/* A shared atomic reads and writes its word: it counts as a store. */
static void count_shared(struct wgemu_counters *c, int kind, uint64_t wf,
			 uint64_t conflicts, uint64_t bytes, uint64_t dyn)
{
	if (kind == ACC_LOAD) {
		c->shared_load_wavefronts += wf;
		c->shared_load_bank_conflicts += conflicts;
		c->shared_load_bytes += bytes;
		c->dynamic_shared_load_bytes += dyn;
	} else {
		c->shared_store_wavefronts += wf;
		c->shared_store_bank_conflicts += conflicts;
		c->shared_store_bytes += bytes;
		c->dynamic_shared_store_bytes += dyn;
	}
}

static void count_access(struct xctx *x, const struct emu_insn *in,
			 const uint64_t *addr, uint32_t gm, uint32_t sm,
			 int bytes, int kind)
{
	struct wgemu_counters *t = &x->res->total;
	struct wgemu_counters *ln = in->line >= 0 ?
				    &x->lines[in->line].c : NULL;

	if (gm) {
		uint64_t s = (uint64_t)global_sectors(addr, gm, bytes);

		count_global(t, kind, s);
		if (ln)
			count_global(ln, kind, s);
		if (x->perf)
			perf_on_global(x->perf, kind, addr, gm, bytes);
	}
	if (sm) {
		int ideal, wf;
		uint64_t sa[32], dyn = 0, moved;
		uint32_t m = sm;

		LANES({
			sa[l] = (uint32_t)(addr[l] >= EMU_SHARED_WIN ?
					   addr[l] - EMU_SHARED_WIN : addr[l]);
			if (x->cfg->dyn_smem && sa[l] >= x->dyn_base)
				dyn += (uint64_t)bytes;
		});
		wf = shared_wavefronts(sa, sm, bytes, &ideal);
		moved = (uint64_t)__builtin_popcount(sm) * (uint64_t)bytes;
		count_shared(t, kind, (uint64_t)wf, (uint64_t)(wf - ideal),
			     moved, dyn);
		if (x->perf)
			perf_on_shared(x->perf, kind, wf);
		if (ln)
			count_shared(ln, kind, (uint64_t)wf,
				     (uint64_t)(wf - ideal), moved, dyn);
	}
}

static void lane_addrs(struct xctx *x, struct warp *w, const uint64_t *R,
		       const struct emu_insn *in, uint32_t m, uint64_t *addr)
{
	uint64_t off = (uint64_t)in->aoff, v;

	switch (in->ak) {
	case AK_REG: {
		const uint64_t *A = R + (size_t)in->areg * 32;

		LANES(addr[l] = A[l] + off);
		break;
	}
	case AK_SYM:
		v = sym_value(x, w, in->asym) + off;
		LANES(addr[l] = v);
		break;
	default:
		LANES(addr[l] = off);
		break;
	}
}

static uint64_t *dst(struct xctx *x, uint64_t *R, const struct emu_opnd *o)
{
	return o->kind == OK_REG ? R + (size_t)o->idx * 32 : x->sink;
}

static int do_ld(struct xctx *x, struct warp *w, const struct emu_insn *in,
		 uint32_t m, uint64_t *R)
{
	int esz = emu_type_size[in->type], bytes = esz * in->vec, i;
	char k = emu_type_kind[in->type];
	uint64_t addr[32];
	uint8_t *hp[32];
	uint32_t gm, sm;

	lane_addrs(x, w, R, in, m, addr);
	if (resolve(x, w, in, m, addr, bytes, 0, 0, hp, &gm, &sm))
		return -1;
	for (i = 0; i < in->vec; i++) {
		uint64_t *D = dst(x, R, &in->d[i]);
		int o = i * esz;

		if (esz == 4 && k != 's')
			LANES({
				uint32_t v;
				memcpy(&v, hp[l] + o, 4);
				D[l] = v;
			});
		else
			LANES({
				uint64_t v = 0;
				memcpy(&v, hp[l] + o, (size_t)esz);
				D[l] = k == 's' ? (uint64_t)sx(v, esz) : v;
			});
	}
	if ((gm | sm) && in->merge != MERGE_FOLLOW)
		count_access(x, in, addr, gm, sm, in->merge ? in->merge : bytes,
			     ACC_LOAD);
	if (x->perf && (gm | sm))
		perf_on_load_dst(x->perf, in);
	return 0;
}

/*
 * cp.async.shared.global [dst], [src], cp-size{, src-size}: done at once
 * (commit_group and wait_group are then nothing to wait for).  Counted
 * as the global load and the shared store it is; src-size bytes are
 * copied and the rest of cp-size zero-filled, as the instruction says.
 */
static int do_cpasync(struct xctx *x, struct warp *w,
		      const struct emu_insn *in, uint32_t m, uint64_t *R,
		      const struct emu_func *f)
{
	struct emu_insn ld = *in, st = *in;
	const uint64_t *S, *N, *Z = NULL;
	uint64_t dst_a[32], src_a[32], t0[32], t1[32], t2[32];
	uint8_t *dh[32], *sh[32];
	uint32_t gm, sm, gm2, sm2;
	int bytes;

	S = src(x, w, R, f, &in->s[0], t0);
	N = src(x, w, R, f, &in->s[1], t1);
	if (in->nsrc > 2)
		Z = src(x, w, R, f, &in->s[2], t2);
	bytes = (int)(uint32_t)N[__builtin_ctz(m)];
	if (bytes != 4 && bytes != 8 && bytes != 16)
		return fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
			     __builtin_ctz(m), "cp.async of %d bytes", bytes);
	lane_addrs(x, w, R, in, m, dst_a);
	LANES(src_a[l] = S[l] + (uint64_t)(int64_t)in->target);
	ld.space = SP_GLOBAL;
	st.space = SP_SHARED;
	if (resolve(x, w, &ld, m, src_a, bytes, 0, 0, sh, &gm, &sm) ||
	    resolve(x, w, &st, m, dst_a, bytes, 1, 0, dh, &gm2, &sm2))
		return -1;
	LANES({
		uint32_t n = Z ? (uint32_t)Z[l] : (uint32_t)bytes;

		if (n > (uint32_t)bytes)
			n = (uint32_t)bytes;
		memcpy(dh[l], sh[l], n);
		memset(dh[l] + n, 0, (size_t)bytes - n);
	});
	if (gm)
		count_access(x, &ld, src_a, gm, 0, bytes, ACC_LOAD);
	if (sm2)
		count_access(x, &st, dst_a, 0, sm2, bytes, ACC_STORE);
	return 0;
}

static int do_st(struct xctx *x, struct warp *w, const struct emu_insn *in,
		 uint32_t m, uint64_t *R, const struct emu_func *f)
{
	int esz = emu_type_size[in->type], bytes = esz * in->vec, i;
	uint64_t addr[32], tmp[32];
	uint8_t vals[32][16];
	uint8_t *hp[32];
	uint32_t gm, sm;

	lane_addrs(x, w, R, in, m, addr);
	if (!x->checks || in->space == SP_GLOBAL) {
		/* no race check sees the values: store them directly */
		if (resolve(x, w, in, m, addr, bytes, 1, 0, hp, &gm, &sm))
			return -1;
		for (i = 0; i < in->vec; i++) {
			const uint64_t *A = src(x, w, R, f, &in->s[i], tmp);
			int o = i * esz;

			LANES(memcpy(hp[l] + o, &A[l], (size_t)esz));
		}
		goto count;
	}
	for (i = 0; i < in->vec; i++) {
		const uint64_t *A = src(x, w, R, f, &in->s[i], tmp);
		int o = i * esz;

		LANES(memcpy(&vals[l][o], &A[l], (size_t)esz));
	}
	x->stv = (const uint8_t (*)[16])vals;
	i = resolve(x, w, in, m, addr, bytes, 1, 0, hp, &gm, &sm);
	x->stv = NULL;
	if (i)
		return -1;
	LANES(memcpy(hp[l], vals[l], (size_t)bytes));
count:
	if ((gm | sm) && in->merge != MERGE_FOLLOW)
		count_access(x, in, addr, gm, sm, in->merge ? in->merge : bytes,
			     ACC_STORE);
	return 0;
}

static int do_atom(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const struct emu_func *f)
{
	int esz = emu_type_size[in->type];
	char k = emu_type_kind[in->type];
	uint64_t addr[32], t0[32], t1[32], res[32];
	uint8_t *hp[32];
	uint32_t gm, sm;
	const uint64_t *B = src(x, w, R, f, &in->s[0], t0);
	const uint64_t *C = in->nsrc > 1 ? src(x, w, R, f, &in->s[1], t1) : B;

	if (esz != 4 && esz != 8)
		return fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
			     __builtin_ctz(m), "atomic of %d bytes", esz);
	if (k == 'f' && in->sub != AT_ADD && in->sub != AT_EXCH)
		return fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
			     __builtin_ctz(m), "floating-point atomic other "
			     "than add");
	lane_addrs(x, w, R, in, m, addr);
	if (resolve(x, w, in, m, addr, esz, 1, 1, hp, &gm, &sm))
		return -1;
	LANES({
		uint64_t old = 0, b = B[l], n;

		memcpy(&old, hp[l], (size_t)esz);
		switch (in->sub) {
		case AT_ADD:
			if (k == 'f')
				n = esz == 4 ? f2u(u2f(old) + u2f(b))
					     : d2u(u2d(old) + u2d(b));
			else
				n = old + b;
			break;
		case AT_MIN: case AT_MAX: {
			int lt = k == 's' ? sx(b, esz) < sx(old, esz)
					  : trunc_sz(b, esz) <
					    trunc_sz(old, esz);
			n = (lt == (in->sub == AT_MIN)) ? b : old;
			break;
		}
		case AT_EXCH: n = b; break;
		case AT_CAS:
			n = trunc_sz(old, esz) == trunc_sz(b, esz) ? C[l] : old;
			break;
		case AT_INC:
			n = trunc_sz(old, esz) >= trunc_sz(b, esz) ? 0 : old + 1;
			break;
		case AT_DEC:
			n = (trunc_sz(old, esz) == 0 ||
			     trunc_sz(old, esz) > trunc_sz(b, esz)) ? b :
			    old - 1;
			break;
		case AT_AND: n = old & b; break;
		case AT_OR: n = old | b; break;
		default: n = old ^ b; break;
		}
		memcpy(hp[l], &n, (size_t)esz);
		res[l] = trunc_sz(old, esz);
	});
	if (gm | sm)
		count_access(x, in, addr, gm, sm, esz, ACC_ATOMIC);
	if (in->op == OP_ATOM) {
		uint64_t *D = dst(x, R, &in->d[0]);

		LANES(D[l] = res[l]);
	}
	return 0;
}

static void kill_lanes(struct warp *w, uint32_t m)
{
	int i;

	for (i = 0; i < w->sp; i++)
		w->stack[i].mask &= ~m;
	for (i = 0; i < w->nf; i++)
		w->fr[i].call_mask &= ~m;
	w->live &= ~m;
}

/* Lanes of the kernel's own frame that wait only to leave it (an early
 * return parks them at the function's end, where the others reconverge):
 * as on sm_70 and later, such threads no longer take part in barriers.
 * Returns them when every live lane outside `active` is one; else 0. */
static uint32_t finished_lanes(const struct warp *w, uint32_t active)
{
	const struct emu_func *f = w->fr[0].f;
	uint32_t waiting = w->live & ~active, seen = 0, done = 0;
	int i;

	if (w->nf != 1)
		return 0;
	for (i = w->sp - 2; i >= 0 && seen != waiting; i--) {
		const struct sentry *e = &w->stack[i];
		uint32_t lanes = e->mask & waiting & ~seen;
		int op;

		if (!lanes)
			continue;
		seen |= lanes;
		op = e->pc >= f->ninsns ? OP_RET : (int)f->insns[e->pc].op;
		if (op != OP_RET && op != OP_EXIT)
			return 0;
		done |= lanes;
	}
	return done == waiting ? done : 0;
}

static void do_return(struct xctx *x, struct warp *w)
{
	struct frame *cf = &w->fr[w->nf - 1], *pf = &w->fr[w->nf - 2];
	const struct emu_func *g = cf->f, *f = pf->f;
	const struct emu_call *c = &f->calls[f->insns[cf->call_pc].call];
	int i;

	for (i = 0; i < c->nret && i < g->nrets; i++) {
		const struct emu_sym *to = &x->m->syms[c->ret[i]];
		const struct emu_sym *from = &x->m->syms[g->rets[i]];
		size_t n = to->size < from->size ? to->size : from->size;
		uint32_t m = cf->call_mask;

		LANES(memcpy(w->params + pf->paoff +
			     (size_t)l * f->param_bytes + to->off,
			     w->params + cf->paoff +
			     (size_t)l * g->param_bytes + from->off, n));
	}
	w->nf--;
}

/* ---- built-in device functions: printf, assert ---- */

/* Host pointer to len bytes at generic address a, as lane l sees it;
 * NULL outside memory it can reach. */
static uint8_t *lane_ptr(struct xctx *x, struct warp *w, int l, uint64_t a,
			 uint64_t len)
{
	struct emu_alloc *al;

	switch (generic_kind(&a)) {
	case MK_SHARED:
		return a + len <= x->smem_size ? x->smem + a : NULL;
	case MK_LOCAL:
		return a + len <= x->lcap ?
		       w->local + (size_t)l * x->lcap + a : NULL;
	default:
		al = global_lookup(x, a, len);
		return al ? al->host + (a - al->dev) : NULL;
	}
}

/* The NUL-terminated string at a (at most cap-1 bytes kept); -1 when it
 * runs into memory the lane cannot reach. */
static int lane_str(struct xctx *x, struct warp *w, int l, uint64_t a,
		    char *buf, size_t cap)
{
	size_t i;

	for (i = 0;; i++) {
		const uint8_t *p = lane_ptr(x, w, l, a + i, 1);

		if (!p)
			return -1;
		if (i < cap - 1)
			buf[i] = (char)*p;
		if (!*p)
			break;
	}
	buf[i < cap - 1 ? i : cap - 1] = '\0';
	return 0;
}

/* A call argument (a .param of the caller) of lane l, as 64 bits. */
static uint64_t call_arg(const struct xctx *x, const struct warp *w,
			 const struct emu_call *c, int i, int l)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	const struct emu_sym *s;
	uint64_t v = 0;

	if (i >= c->narg)
		return 0;
	s = &x->m->syms[c->arg[i]];
	memcpy(&v, w->params + fr->paoff + (size_t)l * fr->f->param_bytes +
	       s->off, s->size < 8 ? s->size : 8);
	return v;
}

struct obuf {
	char *p;
	size_t n, cap;
};

static void ob_add(struct obuf *o, const char *s, size_t n)
{
	if (o->n + n + 1 > o->cap) {
		size_t nc = o->cap ? o->cap : 256;
		char *np;

		while (nc < o->n + n + 1)
			nc *= 2;
		np = realloc(o->p, nc);
		if (!np)
			return;
		o->p = np;
		o->cap = nc;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = '\0';
}

/* Fetch the next size-byte argument of a device printf: arguments are
 * packed in order, each aligned to its size.  0, or -1 past memory. */
static int pf_arg(struct xctx *x, struct warp *w, int l, uint64_t args,
		  uint64_t *off, int size, uint64_t *v)
{
	const uint8_t *p;

	*off = (*off + (uint64_t)size - 1) & ~((uint64_t)size - 1);
	p = args ? lane_ptr(x, w, l, args + *off, (uint64_t)size) : NULL;
	if (!p)
		return -1;
	*v = 0;
	memcpy(v, p, (size_t)size);
	*off += (uint64_t)size;
	return 0;
}

/*
 * printf as CUDA's vprintf(fmt, args) does it for lane l: the format's
 * conversions take their values from the argument buffer (ints 4 bytes,
 * long and pointer 8, float promoted to double).  Returns the number of
 * arguments used, as the device's printf does, or -1 for a format it
 * cannot read.
 */
static int device_printf(struct xctx *x, struct warp *w, int l,
			 uint64_t fmt_addr, uint64_t args, struct obuf *o)
{
	char fmt[4096], spec[64], piece[512], str[4096];
	uint64_t off = 0, v;
	int nargs = 0;

	if (!fmt_addr || lane_str(x, w, l, fmt_addr, fmt, sizeof(fmt)))
		return -1;
	for (const char *p = fmt; *p;) {
		const char *q = strchr(p, '%');
		size_t k = 0;
		int size = 4, longs = 0, star;
		char conv;

		if (!q) {
			ob_add(o, p, strlen(p));
			break;
		}
		ob_add(o, p, (size_t)(q - p));
		p = q + 1;
		if (*p == '%') {
			ob_add(o, "%", 1);
			p++;
			continue;
		}
		spec[k++] = '%';
		while (*p && strchr("-+ #0'", *p) && k < 20)
			spec[k++] = *p++;
		/* width and precision: digits or '*' (an int argument) */
		for (int part = 0; part < 2; part++) {
			if (part == 1) {
				if (*p != '.')
					break;
				spec[k++] = *p++;
			}
			star = *p == '*';
			if (star) {
				if (pf_arg(x, w, l, args, &off, 4, &v))
					return nargs;
				nargs++;
				k += (size_t)snprintf(spec + k, sizeof(spec) - k,
						      "%d", (int)(int32_t)v);
				p++;
			}
			while (*p >= '0' && *p <= '9' && k < 40)
				spec[k++] = *p++;
		}
		while (*p && strchr("hlLqjzt", *p)) {
			if (*p == 'l' || *p == 'L' || *p == 'q' ||
			    *p == 'j' || *p == 'z' || *p == 't')
				longs = 1;
			p++;
		}
		conv = *p;
		if (!conv)
			break;
		p++;
		switch (conv) {
		case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
			size = longs ? 8 : 4;
			if (pf_arg(x, w, l, args, &off, size, &v))
				return nargs;
			spec[k++] = 'l';
			spec[k++] = 'l';
			spec[k++] = conv;
			spec[k] = '\0';
			if (conv == 'd' || conv == 'i')
				snprintf(piece, sizeof(piece), spec,
					 size == 8 ? (long long)v :
					 (long long)(int32_t)v);
			else
				snprintf(piece, sizeof(piece), spec,
					 size == 8 ? (unsigned long long)v :
					 (unsigned long long)(uint32_t)v);
			break;
		case 'c':
			if (pf_arg(x, w, l, args, &off, 4, &v))
				return nargs;
			spec[k++] = 'c';
			spec[k] = '\0';
			snprintf(piece, sizeof(piece), spec, (int)(int32_t)v);
			break;
		case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
		case 'a': case 'A':
			if (pf_arg(x, w, l, args, &off, 8, &v))
				return nargs;
			spec[k++] = conv;
			spec[k] = '\0';
			snprintf(piece, sizeof(piece), spec, u2d(v));
			break;
		case 's':
			if (pf_arg(x, w, l, args, &off, 8, &v))
				return nargs;
			spec[k++] = 's';
			spec[k] = '\0';
			if (!v)
				snprintf(str, sizeof(str), "(null)");
			else if (lane_str(x, w, l, v, str, sizeof(str)))
				snprintf(str, sizeof(str), "<unreadable>");
			snprintf(piece, sizeof(piece), spec, str);
			break;
		case 'p':
			if (pf_arg(x, w, l, args, &off, 8, &v))
				return nargs;
			snprintf(piece, sizeof(piece), "0x%llx",
				 (unsigned long long)v);
			break;
		case 'n':
			if (pf_arg(x, w, l, args, &off, 8, &v))
				return nargs;
			piece[0] = '\0';
			break;
		default:	/* not a conversion: printed as written */
			snprintf(piece, sizeof(piece), "%.*s%c", (int)k, spec,
				 conv);
			ob_add(o, piece, strlen(piece));
			continue;
		}
		nargs++;
		ob_add(o, piece, strlen(piece));
	}
	return nargs;
}

/* A GPU keeps device printf output in a FIFO of 1 MB by default
 * (cudaLimitPrintfFifoSize); what does not fit is lost. */
#define PRINTF_FIFO (1u << 20)

static int builtin_vprintf(struct xctx *x, struct warp *w,
			   const struct emu_call *c, uint32_t m)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	struct obuf o = { 0 };

	for (uint32_t mm = m; mm; mm &= mm - 1) {
		int l = __builtin_ctz(mm);
		int32_t r;

		o.n = 0;
		r = device_printf(x, w, l, call_arg(x, w, c, 0, l),
				  call_arg(x, w, c, 1, l), &o);
		if (o.n && x->printf_bytes < PRINTF_FIFO) {
			size_t n = o.n < PRINTF_FIFO - x->printf_bytes ?
				   o.n : PRINTF_FIFO - x->printf_bytes;

			fwrite(o.p, 1, n, stdout);
			x->printf_bytes += n;
		} else if (o.n) {
			r = -2;	/* the FIFO is full */
		}
		if (c->nret > 0) {
			const struct emu_sym *s = &x->m->syms[c->ret[0]];

			memcpy(w->params + fr->paoff +
			       (size_t)l * fr->f->param_bytes + s->off, &r,
			       s->size < 4 ? s->size : 4);
		}
	}
	fflush(stdout);
	free(o.p);
	return 0;
}

/* __assertfail(message, file, line, function, char size): the kernel
 * stops with cudaErrorAssert, naming the assertion. */
static int builtin_assertfail(struct xctx *x, struct warp *w,
			      const struct emu_insn *in,
			      const struct emu_call *c, uint32_t m)
{
	int l = __builtin_ctz(m);
	char msg[256], file[256], func[256];

	if (lane_str(x, w, l, call_arg(x, w, c, 0, l), msg, sizeof(msg)))
		snprintf(msg, sizeof(msg), "?");
	if (lane_str(x, w, l, call_arg(x, w, c, 1, l), file, sizeof(file)))
		snprintf(file, sizeof(file), "?");
	if (lane_str(x, w, l, call_arg(x, w, c, 3, l), func, sizeof(func)))
		snprintf(func, sizeof(func), "?");
	return fault(x, WGEMU_FAULT_ASSERT, in, w->id, l,
		     "assertion `%s' failed (%s:%u, in %s)", msg,
		     base_name(file), (unsigned)call_arg(x, w, c, 2, l), func);
}

/* malloc(size) and free(ptr) on the device heap, lane by lane in lane
 * order (runtime.c keeps the heap) */
static int builtin_heap(struct xctx *x, struct warp *w,
			const struct emu_call *c, uint32_t m, int is_free)
{
	const struct frame *fr = &w->fr[w->nf - 1];

	for (uint32_t mm = m; mm; mm &= mm - 1) {
		int l = __builtin_ctz(mm);
		uint64_t a = call_arg(x, w, c, 0, l);

		if (is_free) {
			emu_heap_free(a);
			continue;
		}
		a = emu_heap_alloc(a);
		if (c->nret > 0) {
			const struct emu_sym *s = &x->m->syms[c->ret[0]];

			memcpy(w->params + fr->paoff +
			       (size_t)l * fr->f->param_bytes + s->off, &a,
			       s->size < 8 ? s->size : 8);
		}
	}
	return 0;
}

/* the external functions the interpreter provides */
static int is_builtin(const char *name)
{
	return !strcmp(name, "vprintf") || !strcmp(name, "__assertfail") ||
	       !strcmp(name, "malloc") || !strcmp(name, "free");
}

/*
 * The callee of a call through a register (a function pointer, a
 * virtual function): its index, or -1 after splitting the warp when the
 * active lanes point at different functions.  Lanes holding the first
 * lane's pointer call now; the others are pushed to run the same call
 * after them, and all reconverge after it, as for a divergent branch.
 * -2 with a fault for a pointer to no function.
 */
static int indirect_callee(struct xctx *x, struct warp *w,
			   const struct emu_insn *in, uint32_t m, int pc)
{
	const uint64_t *A = w->regs + w->fr[w->nf - 1].roff +
			    (size_t)in->areg * 32;
	int l0 = __builtin_ctz(m);
	uint64_t v = A[l0], k = (v - EMU_FUNC_BASE) / 16;
	uint32_t same = 0;

	if (v < EMU_FUNC_BASE || (v - EMU_FUNC_BASE) % 16 ||
	    k >= (uint64_t)x->m->nfuncs || x->m->funcs[k].is_entry) {
		fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id, l0, "call "
		      "through 0x%llx, which is no function's address",
		      (unsigned long long)v);
		return -2;
	}
	LANES(same |= (uint32_t)(A[l] == v) << l);
	if (same == m)
		return (int)k;
	w->stack[w->sp - 1].pc = pc + 1;
	if (push_entry(w, pc, pc + 1, m & ~same) ||
	    push_entry(w, pc, pc + 1, same)) {
		fault(x, WGEMU_FAULT_RESOURCES, in, -1, -1,
		      "out of host memory");
		return -2;
	}
	return -1;
}

static int do_call(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, int pc)
{
	const struct emu_func *g;
	const struct emu_func *f = w->fr[w->nf - 1].f;
	const struct emu_call *c = &f->calls[in->call];
	struct frame *cf, *pf;
	int i = in->target;

	if (i < 0) {
		i = indirect_callee(x, w, in, m, pc);
		if (i < 0)
			return i == -1 ? 0 : -1;
	}
	g = &x->m->funcs[i];

	if (g->is_decl && !strcmp(g->name, "vprintf")) {
		w->stack[w->sp - 1].pc = pc + 1;
		return builtin_vprintf(x, w, c, m);
	}
	if (g->is_decl && !strcmp(g->name, "__assertfail"))
		return builtin_assertfail(x, w, in, c, m);
	if (g->is_decl && (!strcmp(g->name, "malloc") ||
			   !strcmp(g->name, "free"))) {
		w->stack[w->sp - 1].pc = pc + 1;
		return builtin_heap(x, w, c, m, g->name[0] == 'f');
	}
	if (g->is_decl || g->is_entry)
		return fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
			     __builtin_ctz(m), "call to %s function '%s'",
			     g->is_entry ? "kernel" : "external", g->name);
	w->stack[w->sp - 1].pc = pc + 1;
	if (push_frame(x, w, g, in))
		return -1;
	cf = &w->fr[w->nf - 1];
	pf = &w->fr[w->nf - 2];
	cf->call_pc = pc;
	cf->call_mask = m;
	for (i = 0; i < c->narg && i < g->nparams; i++) {
		const struct emu_sym *from = &x->m->syms[c->arg[i]];
		const struct emu_sym *to = &x->m->syms[g->params[i]];
		size_t n = to->size < from->size ? to->size : from->size;

		LANES(memcpy(w->params + cf->paoff +
			     (size_t)l * g->param_bytes + to->off,
			     w->params + pf->paoff +
			     (size_t)l * f->param_bytes + from->off, n));
	}
	if (push_entry(w, 0, g->ninsns, m))
		return fault(x, WGEMU_FAULT_RESOURCES, in, -1, -1,
			     "out of host memory");
	return 0;
}

static int testp(int mode, double v)
{
	switch (mode) {
	case 0: return isfinite(v);
	case 1: return isinf(v);
	case 2: return !isnan(v);
	case 3: return isnan(v);
	case 4: return isnormal(v);
	default: return fpclassify(v) == FP_SUBNORMAL;
	}
}

/* Diverge at a branch of pc whose taken lanes are taken (neither none
 * nor all of mask). */
static int diverge(struct warp *w, const struct emu_insn *in, int pc,
		   int target, uint32_t mask, uint32_t taken)
{
	struct sentry *e = &w->stack[w->sp - 1];
	struct frame *fr = &w->fr[w->nf - 1];
	int r = in->rpc;

	if (e->rpc == r && w->sp - 1 > fr->depth) {
		/* the reconvergence entry below already waits at r */
		w->sp--;
	} else {
		e->pc = r;
	}
	if (pc + 1 != r && push_entry(w, pc + 1, r, mask & ~taken))
		return -1;
	if (target != r && push_entry(w, target, r, taken))
		return -1;
	return 0;
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
	const uint64_t *M = in->nsrc > 1 ? src(x, w, R, f, &in->s[1], tmp)
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
	const uint64_t *A = src(x, w, R, f, &in->s[0], t0);
	const uint64_t *M = in->nsrc > 1 ? src(x, w, R, f, &in->s[1], t1)
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
	uint64_t t1[32];
	const uint64_t *A = src(x, w, R, f, &in->s[0], tmp);
	const uint64_t *M = src(x, w, R, f, &in->s[1], t1);
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
	uint64_t t0[32], t1[32], t2[32];
	const uint64_t *A = src(x, w, R, f, &in->s[0], t0);
	const uint64_t *B = in->nsrc > 1 ? src(x, w, R, f, &in->s[1], t1) : A;
	const uint64_t *C = in->nsrc > 2 ? src(x, w, R, f, &in->s[2], t2) : A;
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
		LANES(D[l] = to_half(in->type == T_BF16X2 ? T_BF16 : T_F16,
				     u2f(B[l])) |
			     to_half(in->type == T_BF16X2 ? T_BF16 : T_F16,
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
	uint64_t tmp[4][32];
	const uint64_t *C[4] = { NULL, NULL, NULL, NULL };
	const uint64_t *H = R + (size_t)in->areg * 32;
	uint64_t *D[4];
	int cf = emu_type_kind[in->type2] == 'f';
	int rf = emu_type_kind[in->type] == 'f';

	for (int i = 0; i < in->nsrc; i++)
		C[i] = src(x, w, R, f, &in->s[i], tmp[i]);
	for (int i = 0; i < 4; i++)
		D[i] = dst(x, R, &in->d[i]);
	LANES({
		uint64_t c[4] = { 0, 0, 0, 0 };
		uint32_t out[4];

		for (int i = 0; i < in->nsrc; i++)
			c[i] = C[i][l];
		if (emu_tex_sample(H[l], in->sub, cf, c, rf, out))
			return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id,
				     l, "tex on %llu, which is no texture "
				     "object", (unsigned long long)H[l]);
		for (int i = 0; i < 4; i++)
			D[i][l] = out[i];
	});
	return 0;
}

/* wmma (wmma.c): each element access of the warp checked and counted as
 * an instruction of its own */
struct wmma_ctx {
	struct xctx *x;
	struct warp *w;
	const struct emu_insn *in;
	uint32_t m;
};

static int wmma_access(void *ctx, const uint64_t *a, int bytes,
		       int is_store, uint8_t **hp)
{
	struct wmma_ctx *c = ctx;
	uint32_t gm, sm;

	memset(hp, 0, 32 * sizeof(*hp));
	if (resolve(c->x, c->w, c->in, c->m, a, bytes, is_store, 0, hp, &gm,
		    &sm))
		return -1;
	if (gm | sm)
		count_access(c->x, c->in, a, gm, sm, bytes,
			     is_store ? ACC_STORE : ACC_LOAD);
	return 0;
}

static int do_wmma(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const struct emu_func *f)
{
	struct wmma_ctx c = { x, w, in, m };
	struct emu_wmma_io io;
	uint64_t tmp[32];

	memset(&io, 0, sizeof(io));
	io.R = R;
	io.access = wmma_access;
	io.ctx = &c;
	lane_addrs(x, w, R, in, m, io.addr);
	if (in->nsrc)
		io.ldm = src(x, w, R, f, &in->s[0], tmp)[__builtin_ctz(m)];
	if (emu_wmma_run(&f->wmma[in->call], &io))
		return x->res->fault ? -1 : fault(x, WGEMU_FAULT_LIMIT, in,
						  w->id, 0, "out of memory");
	return 0;
}

/* suld.b / sust.b: bytes at byte x, rows y and z of a surface object;
 * out of range: a fault (.trap), the edge (.clamp) or nothing (.zero) */
static int do_surf(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const struct emu_func *f)
{
	uint64_t tmp[4][32], vt[4][32];
	const uint64_t *C[4] = { NULL, NULL, NULL, NULL }, *V[4];
	const uint64_t *H = R + (size_t)in->areg * 32;
	int esz = emu_type_size[in->type], bytes = esz * in->ndst;
	int st = in->op == OP_SUST;

	for (int i = 0; i < in->nsrc; i++)
		C[i] = src(x, w, R, f, &in->s[i], tmp[i]);
	for (int i = 0; i < in->ndst; i++)
		V[i] = st ? src(x, w, R, f, &in->d[i], vt[i]) :
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
			return fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id,
				     l, "surface %s at (%lld, %lld, %lld) "
				     "outside surface object %llu",
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
		return fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
			     __builtin_ctz(m), "PTX that the emulator cannot "
			     "parse: %s (in '%.160s')", s, f->name);
	return fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id, __builtin_ctz(m),
		     "unsupported PTX instruction '%s'", s);
}

static int run_warp(struct xctx *x, struct warp *w)
{
	uint64_t t0[32], t1[32], t2[32], t3[32];

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
				do_return(x, w);
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
			if (x->perf)
				perf_on_insn(x->perf, w->id, in,
					     (uint32_t)((R - w->regs) / 32));
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
				A = src(x, w, R, f, &in->s[0], t0);
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

				A = src(x, w, R, f, &in->s[0], t0);
				B = in->nsrc > 1 ?
				    src(x, w, R, f, &in->s[1], t1) : NULL;
				C = in->nsrc > 2 ?
				    src(x, w, R, f, &in->s[2], t2) : NULL;
				D = dst(x, R, &in->d[0]);
				if (emu_type_kind[in->type] == 'f')
					rc = float_op(x, in, m, D, A, B, C);
				else
					rc = int_op(in, m, D, A, B ? B : A,
						    C ? C : A);
				if (rc)
					return fault(x,
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
				A = src(x, w, R, f, &in->s[0], t0);
				B = src(x, w, R, f, &in->s[1], t1);
				C = src(x, w, R, f, &in->s[2], t2);
				bfi_op(in, m, dst(x, R, &in->d[0]), A, B, C,
				       src(x, w, R, f, &in->s[3], t3));
				break;
			case OP_SETP: case OP_SET: {
				int ty = in->op == OP_SET ? in->type2 : in->type;
				char k = emu_type_kind[ty];
				int sz = emu_type_size[ty];
				uint32_t r = 0, c = 0, p, q;

				A = src(x, w, R, f, &in->s[0], t0);
				B = src(x, w, R, f, &in->s[1], t1);
				if (k == 's' && sz == 4 && in->cmp == C_LT)
					LANES(r |= (uint32_t)((int32_t)A[l] <
						(int32_t)B[l]) << l);
				else if (k == 's' && sz == 4 && in->cmp == C_GE)
					LANES(r |= (uint32_t)((int32_t)A[l] >=
						(int32_t)B[l]) << l);
				else
					LANES(r |= (uint32_t)compare(in->cmp,
						k, sz, A[l], B[l]) << l);
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

				A = src(x, w, R, f, &in->s[0], t0);
				B = src(x, w, R, f, &in->s[1], t1);
				D = dst(x, R, &in->d[0]);
				LANES(D[l] = (c >> l & 1) ? A[l] : B[l]);
				break;
			}
			case OP_SLCT:
				A = src(x, w, R, f, &in->s[0], t0);
				B = src(x, w, R, f, &in->s[1], t1);
				C = src(x, w, R, f, &in->s[2], t2);
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

				A = src(x, w, R, f, &in->s[0], t0);
				LANES(r |= (uint32_t)testp(in->sub,
					in->type == T_F64 ? u2d(A[l]) :
					(double)u2f(A[l])) << l);
				pred_set(P, &in->d[0], m, r);
				break;
			}
			case OP_CVT:
				A = src(x, w, R, f, &in->s[0], t0);
				D = dst(x, R, &in->d[0]);
				if (in->type == T_U64 && in->type2 == T_U32)
					LANES(D[l] = (uint32_t)A[l]);
				else if (in->type == T_S64 &&
					 in->type2 == T_S32)
					LANES(D[l] = (uint64_t)(int64_t)
						(int32_t)A[l]);
				else
					LANES(D[l] = cvt_one(in, A[l]));
				break;
			case OP_CVTA: {
				uint64_t win = in->space == SP_SHARED ?
					EMU_SHARED_WIN : in->space == SP_LOCAL ?
					EMU_LOCAL_WIN : 0;
				int sz = emu_type_size[in->type];

				if (in->space == SP_PARAM)
					return fault(x,
						WGEMU_FAULT_UNSUPPORTED, in,
						w->id, __builtin_ctz(m),
						"cvta of .param");
				A = src(x, w, R, f, &in->s[0], t0);
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
					A = src(x, w, R, f, &in->s[i], t0);
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

				A = src(x, w, R, f, &in->s[0], t0);
				LANES(t3[l] = A[l]);
				for (i = 0; i < in->ndst; i++) {
					D = dst(x, R, &in->d[i]);
					LANES(D[l] = (t3[l] >> (i * es * 8)) &
					      mk);
				}
				break;
			}
			case OP_LD:
				if (do_ld(x, w, in, m, R))
					return -1;
				break;
			case OP_CPASYNC:
				if (in->sub == CA_COPY &&
				    do_cpasync(x, w, in, m, R, f))
					return -1;
				break;
			case OP_ST:
				if (do_st(x, w, in, m, R, f))
					return -1;
				break;
			case OP_ATOM: case OP_RED:
				if (do_atom(x, w, in, m, R, f))
					return -1;
				break;
			case OP_SHFL: {
				uint32_t pv = 0;

				A = src(x, w, R, f, &in->s[0], t0);
				B = src(x, w, R, f, &in->s[1], t1);
				C = src(x, w, R, f, &in->s[2], t2);
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
			case OP_WMMA:
				if (do_wmma(x, w, in, m, R, f))
					return -1;
				break;
			case OP_VABSDIFF4: {
				/* the sum of the four bytes' |a - b|, plus c */
				A = src(x, w, R, f, &in->s[0], t0);
				B = src(x, w, R, f, &in->s[1], t1);
				C = src(x, w, R, f, &in->s[2], t2);
				if (!in->sub)
					return fault(x, WGEMU_FAULT_UNSUPPORTED,
						     in, w->id, __builtin_ctz(m),
						     "vabsdiff4 without .add");
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
				const uint64_t *S = src(x, w, R, f, &in->s[0],
							t0);
				const uint64_t *N = src(x, w, R, f, &in->s[1],
							t1);

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
					return fault(x, WGEMU_FAULT_LIMIT, in,
						     w->id, __builtin_ctz(m),
						     "instruction budget of "
						     "%llu exhausted (endless "
						     "loop?)", (unsigned long long)
						     x->limit);
				if (x->perf && target <= pc)
					perf_on_backedge(x->perf);
				if (m == mask) {
					pc = target;
					continue;
				}
				e->pc = pc;
				if (diverge(w, in, pc, target, mask, m))
					return fault(x, WGEMU_FAULT_LIMIT, in,
						     -1, -1, "out of memory");
				goto next_entry;
			}
			case OP_EXIT:
				mask &= ~m;
				e->pc = pc + 1;
				kill_lanes(w, m);
				if (!mask)
					goto next_entry;
				break;
			case OP_CALL:
				if (x->lane_insns > x->limit)
					return fault(x, WGEMU_FAULT_LIMIT, in,
						     w->id, __builtin_ctz(m),
						     "instruction budget "
						     "exhausted");
				if (do_call(x, w, in, m, pc))
					return -1;
				goto next_entry;
			case OP_BARRED: {
				/* a barrier that also reduces a predicate over
				 * the block: this warp's share now, the result
				 * when the block is released (run_block) */
				uint32_t pv = pred_src(P, f, &in->s[in->nsrc - 1])
					      & m;

				w->bar_red = in->sub == BR_POPC ?
					     (uint32_t)__builtin_popcount(pv) :
					     in->sub == BR_AND ? pv == m :
					     pv != 0;
			}
				/* fall through */
			case OP_BAR:
				if (m != w->live && finished_lanes(w, m))
					kill_lanes(w, w->live & ~m);
				if (m != w->live)
					return fault(x, WGEMU_FAULT_BARRIER, in,
						     w->id, __builtin_ctz(m),
						     "divergent barrier: "
						     "bar.sync reached by %d "
						     "of the %d threads of "
						     "warp %d",
						     __builtin_popcount(m),
						     __builtin_popcount(
							     w->live), w->id);
				e->pc = pc + 1;
				if (x->perf)
					perf_on_barrier(x->perf);
				w->state = W_BAR;
				w->bar_pc = pc;
				w->bar_mask = m;
				return 0;
			case OP_TRAP:
				return fault(x, WGEMU_FAULT_TRAP, in, w->id,
					     __builtin_ctz(m), "trap "
					     "(assertion or __trap())");
			case OP_UNSUP:
				return unsupported(x, w, f, in, m);
			default:
				return fault(x, WGEMU_FAULT_UNSUPPORTED, in,
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

/* ---- blocks and launches ---- */
static struct warp g_warps[32];
static uint8_t *g_smem;
static size_t g_smem_cap;
static struct race_shadow g_shadow;

/* Every warp waits at a barrier: let them go on, giving those at a
 * bar.red the block's reduction. */
static void release_barrier(struct xctx *x)
{
	uint32_t sum = 0, all = 1, any = 0;
	int i;

	for (i = 0; i < x->nwarps; i++) {
		const struct warp *w = &x->warps[i];

		if (w->state != W_BAR ||
		    w->fr[w->nf - 1].f->insns[w->bar_pc].op != OP_BARRED)
			continue;
		sum += w->bar_red;
		all &= w->bar_red != 0;
		any |= w->bar_red != 0;
	}
	for (i = 0; i < x->nwarps; i++) {
		struct warp *w = &x->warps[i];
		const struct frame *fr = &w->fr[w->nf - 1];
		const struct emu_insn *in = &fr->f->insns[w->bar_pc];
		uint32_t m = w->bar_mask;

		if (w->state != W_BAR)
			continue;
		w->state = W_RUN;
		if (in->op != OP_BARRED)
			continue;
		if (in->sub == BR_POPC) {
			uint64_t *D = dst(x, w->regs + fr->roff, &in->d[0]);

			LANES(D[l] = sum);
		} else {
			pred_set(w->preds + fr->poff, &in->d[0], m,
				 (in->sub == BR_AND ? all : any) ? FULL : 0);
		}
	}
}

static int run_block(struct xctx *x)
{
	int i;

	x->epoch = g_epoch++;
	x->block_epoch = x->epoch;
	if (x->smem_size)
		memset(x->smem, 0xcb, x->smem_size);
	for (i = 0; i < x->nwarps; i++) {
		struct warp *w = &x->warps[i];
		unsigned lanes = x->nthreads - (unsigned)i * 32;

		w->id = i;
		w->init = lanes >= 32 ? FULL : (1u << lanes) - 1;
		w->live = w->init;
		w->state = W_RUN;
		w->sp = 0;
		w->nf = 0;
		if (push_frame(x, w, x->k, NULL) ||
		    push_entry(w, 0, x->k->ninsns, w->init))
			return fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				     "out of host memory");
	}
	for (;;) {
		unsigned arrived = 0;
		int nbar = 0;
		struct warp *wb = NULL;

		for (i = 0; i < x->nwarps; i++) {
			struct warp *w = &x->warps[i];

			if (w->state == W_RUN && run_warp(x, w))
				return -1;
		}
		for (i = 0; i < x->nwarps; i++) {
			struct warp *w = &x->warps[i];

			if (w->state == W_BAR) {
				arrived += (unsigned)__builtin_popcount(
					w->bar_mask);
				nbar++;
				wb = w;
			}
		}
		if (!nbar)
			return 0;
		/* as on sm_70 and later, threads that have exited do not
		 * take part in a barrier: only those still running must all
		 * have arrived */
		{
			unsigned live = 0;

			for (i = 0; i < x->nwarps; i++)
				live += (unsigned)__builtin_popcount(
					x->warps[i].live);
			if (arrived == live)
				arrived = x->nthreads;
		}
		if (arrived != x->nthreads) {
			const struct emu_insn *in =
				&wb->fr[wb->nf - 1].f->insns[wb->bar_pc];

			return fault(x, WGEMU_FAULT_BARRIER, in, -1, -1,
				     "barrier reached by %u of the %u "
				     "threads of the block (the others "
				     "exited or wait elsewhere)", arrived,
				     x->nthreads);
		}
		x->epoch = g_epoch++;
		release_barrier(x);
	}
}

static int run_grid(struct xctx *x)
{
	const struct emu_launch_cfg *cfg = x->cfg;

	for (unsigned bz = 0; bz < cfg->grid[2]; bz++)
		for (unsigned by = 0; by < cfg->grid[1]; by++)
			for (unsigned bx = 0; bx < cfg->grid[0]; bx++) {
				x->bid[0] = bx;
				x->bid[1] = by;
				x->bid[2] = bz;
				if (run_block(x))
					return -1;
			}
	return 0;
}

/* One block, collected for the performance model. */
static int run_collected(struct xctx *x, uint64_t b)
{
	const struct emu_launch_cfg *cfg = x->cfg;
	uint64_t gx = cfg->grid[0], gy = cfg->grid[1];
	int rc;

	x->bid[0] = (unsigned)(b % gx);
	x->bid[1] = (unsigned)(b / gx % gy);
	x->bid[2] = (unsigned)(b / gx / gy);
	if (perf_block_begin(cfg->perf, x->nwarps))
		return fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
			     "out of host memory");
	x->perf = cfg->perf;
	rc = run_block(x);
	perf_block_end(cfg->perf);
	x->perf = NULL;
	return rc;
}

/*
 * The performance model's sample (perf.h): blocks spread over the grid,
 * until PERF_SAMPLE_MAX blocks or PERF_SAMPLE_BUDGET lane-instructions.
 * With cfg->perf_only nothing else runs (the output is incomplete);
 * otherwise every block runs and only the sampled ones are collected.
 */
static int run_sampled(struct xctx *x)
{
	const struct emu_launch_cfg *cfg = x->cfg;
	uint64_t nb = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
	size_t n = perf_sample_count(nb), k = 0;
	uint64_t *pick = calloc(n ? n : 1, sizeof(*pick));
	int rc = 0;

	if (!pick)
		return fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
			     "out of host memory");
	for (size_t i = 0; i < n; i++) {
		if (i >= PERF_SAMPLE_MIN && x->lane_insns > PERF_SAMPLE_BUDGET)
			break;
		pick[k++] = perf_sample_block(nb, i);
		if (cfg->perf_only && (rc = run_collected(x, pick[k - 1])))
			break;
	}
	if (!cfg->perf_only && !rc) {
		uint64_t b = 0;

		for (unsigned bz = 0; bz < cfg->grid[2] && !rc; bz++)
			for (unsigned by = 0; by < cfg->grid[1] && !rc; by++)
				for (unsigned bx = 0; bx < cfg->grid[0] && !rc;
				     bx++, b++) {
					int in = 0;

					for (size_t i = 0; i < k && !in; i++)
						in = pick[i] == b;
					if (in) {
						rc = run_collected(x, b);
						continue;
					}
					x->bid[0] = bx;
					x->bid[1] = by;
					x->bid[2] = bz;
					rc = run_block(x);
				}
	}
	free(pick);
	return rc;
}

size_t emu_static_smem(const struct emu_module *m, int k)
{
	const struct emu_func *f = &m->funcs[k];
	uint64_t off = 0;
	int i;

	for (i = 0; i < f->nshared_syms; i++) {
		const struct emu_sym *s = &m->syms[f->shared_syms[i]];

		off = (off + s->align - 1) / s->align * s->align + s->size;
	}
	return (size_t)off;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 0);
	return *end ? def : (uint64_t)v;
}

/* ---- what the interpreter cannot run, found before any launch ---- */

static int alu_form_supported(const struct emu_insn *in)
{
	static uint64_t dummy[32];
	struct xctx x;

	memset(&x, 0, sizeof(x));
	/* the ALU refuses a form by its op, type and flags alone, before
	 * touching a lane: a dry run on no lanes asks it */
	if (emu_type_kind[in->type] == 'f')
		return float_op(&x, in, 0, dummy, dummy, dummy, dummy) == 0;
	return int_op(in, 0, dummy, dummy, dummy, dummy) == 0;
}

static int is_alu(const struct emu_insn *in)
{
	switch (in->op) {
	case OP_AND: case OP_OR: case OP_XOR: case OP_NOT:
		return in->type != T_PRED;
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD:
	case OP_FMA: case OP_DIV: case OP_REM: case OP_MIN:
	case OP_MAX: case OP_ABS: case OP_NEG: case OP_CNOT:
	case OP_SHL: case OP_SHR: case OP_POPC: case OP_CLZ:
	case OP_BFIND: case OP_TANH:
	case OP_BREV: case OP_BFE: case OP_PRMT: case OP_SHF:
	case OP_SQRT: case OP_RSQRT: case OP_RCP: case OP_EX2:
	case OP_LG2: case OP_SIN: case OP_COS: case OP_MUL24:
	case OP_MAD24: case OP_SAD: case OP_COPYSIGN:
		return 1;
	default:
		return 0;
	}
}

/* 1 and why when run_warp would stop at `in` with
 * WGEMU_FAULT_UNSUPPORTED; every such fault is mirrored here, so a
 * module that passes emu_module_check never raises one. */
static int insn_unsupported(const struct emu_module *m,
			    const struct emu_func *f,
			    const struct emu_insn *in, char *why, size_t len)
{
	int esz = emu_type_size[in->type];

	if (in->op == OP_UNSUP) {
		snprintf(why, len, in->sub == UNSUP_PARSE ?
			 "PTX it cannot parse (%s)" : "the instruction '%s'",
			 in->target >= 0 && in->target < m->nstrs ?
			 m->strs[in->target] : "?");
		return 1;
	}
	if (is_alu(in) && !alu_form_supported(in)) {
		snprintf(why, len, "the form '%s.%c%d' of %s",
			 emu_op_name[in->op], emu_type_kind[in->type] ?
			 emu_type_kind[in->type] : 'b', esz * 8,
			 emu_op_name[in->op]);
		return 1;
	}
	if (in->op == OP_CVTA && in->space == SP_PARAM) {
		snprintf(why, len, "cvta of .param");
		return 1;
	}
	if ((in->op == OP_ATOM || in->op == OP_RED) &&
	    ((esz != 4 && esz != 8) ||
	     (emu_type_kind[in->type] == 'f' && in->sub != AT_ADD &&
	      in->sub != AT_EXCH))) {
		snprintf(why, len, "the atomic '%s' on %d-byte %s values",
			 emu_op_name[in->op], esz,
			 emu_type_kind[in->type] == 'f' ? "floating-point" :
			 "integer");
		return 1;
	}
	if (in->op == OP_CPASYNC && in->sub == CA_COPY &&
	    in->s[1].kind == OK_CONST) {
		uint64_t n = f->consts[(size_t)in->s[1].idx * 32];

		if (n != 4 && n != 8 && n != 16) {
			snprintf(why, len, "cp.async of %llu bytes",
				 (unsigned long long)n);
			return 1;
		}
	}
	if (in->op == OP_CALL && in->target >= 0 && in->target < m->nfuncs) {
		const struct emu_func *g = &m->funcs[in->target];

		if ((g->is_decl && !is_builtin(g->name)) || g->is_entry) {
			snprintf(why, len, "a call to the %s function '%s'",
				 g->is_entry ? "kernel" : "external", g->name);
			return 1;
		}
	}
	return 0;
}

int emu_module_check(const struct emu_module *m, char *why, size_t len)
{
	char what[256];

	for (int i = 0; i < m->nfuncs; i++) {
		const struct emu_func *f = &m->funcs[i];

		for (int pc = 0; pc < f->ninsns; pc++) {
			const struct emu_insn *in = &f->insns[pc];
			char loc[160] = "";

			if (!insn_unsupported(m, f, in, what, sizeof(what)))
				continue;
			if (in->line >= 0 && in->line < m->nlines &&
			    m->lines[in->line].file >= 0 &&
			    m->lines[in->line].file < m->nfiles &&
			    m->files[m->lines[in->line].file])
				snprintf(loc, sizeof(loc), " at %s:%d",
					 base_name(m->files[
					 m->lines[in->line].file]),
					 m->lines[in->line].line);
			snprintf(why, len, "%s in '%s'%s", what, f->name,
				 loc);
			return 1;
		}
	}
	return 0;
}

int emu_run(const struct emu_module *m, int k,
	    const struct emu_launch_cfg *cfg, struct emu_result *res)
{
	struct xctx x;
	const struct emu_func *f = &m->funcs[k];
	char kname[256];
	uint64_t off = 0, dyn_align = 16, lcap;
	int i, rc = -1;

	memset(res, 0, sizeof(*res));
	memset(&x, 0, sizeof(x));
	x.m = m;
	x.k = f;
	x.cfg = cfg;
	x.res = res;
	x.warps = g_warps;
	emu_demangle(f->name, kname, sizeof(kname));
	x.kname = kname;
	x.symaddr = calloc((size_t)m->nsyms + 1, sizeof(uint64_t));
	x.lines = calloc((size_t)m->nlines + 1, sizeof(*x.lines));
	if (!x.symaddr || !x.lines) {
		snprintf(res->msg, sizeof(res->msg), "out of host memory");
		res->fault = WGEMU_FAULT_RESOURCES;
		goto out;
	}
	for (i = 0; i < m->nlines; i++) {
		x.lines[i].file = m->lines[i].file;
		x.lines[i].line = m->lines[i].line;
	}
	for (i = 0; i < f->nshared_syms; i++) {
		const struct emu_sym *s = &m->syms[f->shared_syms[i]];

		off = (off + s->align - 1) / s->align * s->align;
		x.symaddr[f->shared_syms[i]] = off;
		off += s->size;
	}
	res->static_smem = (size_t)off;
	for (i = 0; i < m->nsyms; i++) {
		const struct emu_sym *s = &m->syms[i];

		if (s->kind == SYM_EXTERN_SHARED && s->align > dyn_align)
			dyn_align = s->align;
	}
	x.dyn_base = (uint32_t)((off + dyn_align - 1) / dyn_align * dyn_align);
	for (i = 0; i < m->nsyms; i++) {
		const struct emu_sym *s = &m->syms[i];

		if (s->kind == SYM_EXTERN_SHARED)
			x.symaddr[i] = x.dyn_base;
		else if (s->kind == SYM_GLOBAL || s->kind == SYM_CONST)
			x.symaddr[i] = s->dev;
		else if (s->kind == SYM_KPARAM || s->kind == SYM_PARAM)
			x.symaddr[i] = s->off;
	}
	x.smem_size = cfg->dyn_smem ? x.dyn_base + (uint32_t)cfg->dyn_smem
				    : (uint32_t)off;
	if (x.smem_size + 64 > g_smem_cap) {
		size_t n = x.smem_size + 64;
		void *a = realloc(g_smem, n);

		if (a)
			g_smem = a;
		if (!a || race_reserve(&g_shadow, n)) {
			res->fault = WGEMU_FAULT_RESOURCES;
			snprintf(res->msg, sizeof(res->msg),
				 "out of host memory");
			goto out;
		}
		g_smem_cap = n;
	}
	x.smem = g_smem;
	x.sh = &g_shadow;
	lcap = 0;
	for (i = 0; i < m->nfuncs; i++)
		if (i == k || !m->funcs[i].is_entry)
			lcap += (m->funcs[i].depot_bytes + 15u) & ~15u;
	lcap += lcap ? 4096 : 0;
	x.lcap = (uint32_t)lcap;
	x.nthreads = cfg->block[0] * cfg->block[1] * cfg->block[2];
	x.nwarps = (int)((x.nthreads + 31) / 32);
	for (i = 0; i < x.nwarps; i++) {
		struct warp *w = &g_warps[i];
		size_t need = (size_t)lcap * 32;
		size_t have = 0;

		if (need && ensure(&w->local, &have, need, 1)) {
			res->fault = WGEMU_FAULT_RESOURCES;
			snprintf(res->msg, sizeof(res->msg),
				 "out of host memory");
			goto out;
		}
	}
	x.limit = cfg->insn_limit ? cfg->insn_limit :
		  env_u64("WGEMU_INSN_LIMIT", 20000000000ull);
	x.checks = env_u64("WGEMU_CHECKS", 1) != 0 &&
		   !(cfg->perf && cfg->perf_only);
	if (cfg->perf ? run_sampled(&x) : run_grid(&x))
		goto done;
	rc = 0;
done:
	res->total.lane_instructions = x.lane_insns;
	res->lines = x.lines;
	x.lines = NULL;
out:
	for (i = 0; i < 32; i++) {
		/* local memory is reallocated per launch: free it */
		free(g_warps[i].local);
		g_warps[i].local = NULL;
	}
	free(x.symaddr);
	free(x.lines);
	return rc;
}
