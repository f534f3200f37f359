/*
 * The interpreter's internal interface (harness/emu/vm): a launch's
 * context (struct xctx), a warp with its SIMT stack and call frames, the
 * lane loop LANES and the helpers every operation uses.  One launch runs
 * at a time (the runtime calls emu_run under its lock, rt/rt.h);
 * nothing here is thread-safe.
 *
 *   sched.c       blocks, warps to the next barrier or a store that
 *                 gives way, barriers, a launch's setup, the
 *                 performance model's sample
 *   sched_coop.c  a cooperative launch: every block resident, in turns
 *   mbarrier.c    mbarrier objects: phases, arrivals, transaction bytes
 *   spin.c        a warp spinning: the same state at a branch, nothing
 *                 written
 *   exec.c        a warp's instruction loop: operands, one dispatch an
 *                 instruction through the opcode table (run_entry)
 *   simt.c        the SIMT stack and call frames
 *   reconv.c      where divergent lanes meet again (immediate
 *                 post-dominators)
 *   warpops.c     vote, redux and match across a warp's lanes
 *   alu.c         integer, float and conversion arithmetic (half.c,
 *                 simd.c: half precision and SIMD video forms)
 *   scalar.c      a uniform instruction of index arithmetic, computed
 *                 once on scalars (lanes.c: the same forms lane by
 *                 lane)
 *   memory.c      address spaces, checks, ld/st/atom/cp.async
 *   wmma.c        the warp matrix instructions' fragments
 *   texfetch.c    tex, suld and sust on the texture object table
 *   count.c       traffic counters (sectors, wavefronts, bank conflicts)
 *   race.c        shared-memory race tracking
 *   devlib.c      printf, assert, malloc/free on the device
 *   fault.c       faults and warnings
 *   check.c       what the interpreter cannot run, before any launch
 *
 * Below them all, device memory (devmem.h) and kernel names
 * (demangle.c), which the runtime uses too.
 */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

#include <stdint.h>
#include <string.h>
#include "emu/emu.h"

struct race_shadow;

#define FULL EMU_FULL_MASK
/* allocations a warp's run remembers loading from (interleaving) */
#define EMU_RUN_LOADS 4
/* the deepest call stack of a warp (the emulator's limit) */
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

/* Why a running warp gave the others a turn (it stays W_RUN and goes on
 * where it stopped): a failed mbarrier wait, a nanosleep, the end of its
 * time slice in a cooperative launch (sched_coop.c), a spin (spin.c), a
 * global store into memory it loaded from in this run while other warps
 * of its block run (sched.c, "interleaving"). */
enum { Y_NONE, Y_WAIT, Y_SLEEP, Y_SLICE, Y_SPIN, Y_STORE };

/* spin.c's check of the running warp */
struct spin_state {
	uint64_t next;                /* lane instructions: next check */
	int watching;                 /* copied: watching for pc */
	int pc, nf, sp, seen;
	const struct emu_func *f;
	uint64_t written;
	uint8_t *copy, *copy2;        /* the state then, and now */
	size_t cap, cap2, len;
};

struct warp {
	int id;
	uint32_t init, live;
	int state;
	int yield;                    /* Y_*: why it last gave way */
	int mbar_waiting;             /* its last mbarrier wait failed */
	uint32_t spin_gap;            /* lane instructions to its next
				       * spin check (spin.c) */
	uint64_t sleep_hash;          /* its state at its last nanosleep,
				       * and what had been written then */
	uint64_t sleep_written;
	int bar_pc;
	uint32_t bar_mask;
	uint32_t bar_red;             /* bar.red: this warp's share */
	struct sentry *stack;
	int sp, cap;
	struct frame fr[MAXFRAMES];
	int nf;
	uint64_t *regs;
	size_t rcap, rtop;
	uint8_t *uni;                 /* a byte per register of regs: see
				       * "warp-uniform registers" below */
	size_t ucap;
	uint64_t *uval;               /* a value per register of regs: its
				       * UNI_LANE0 value */
	size_t uvcap;
	uint32_t *preds;
	size_t pcap, ptop;
	uint8_t *params;
	size_t pacap, patop;
	uint8_t *local;               /* 32 lanes x lcap bytes */
	size_t local_cap;             /* bytes allocated at local */
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
	/* lane instructions so far; exec_branch and exec_call stop at
	 * limit, the least of the budget, the end of the running warp's
	 * time slice in a cooperative launch and its next spin check */
	uint64_t lane_insns, limit, budget, slice_end;
	struct spin_state spin;
	uint64_t mbar_changes;        /* mbarrier updates (deadlock test) */
	int stuck;                    /* steps the block made no progress */
	/* interleaving (sched.c): another warp of the block runs; the
	 * allocations the running warp loaded from since its run began
	 * (nloaded past EMU_RUN_LOADS: more than it keeps); a store into
	 * one of them then gives way */
	int others, nloaded;
	const struct emu_alloc *loaded[EMU_RUN_LOADS];
	int idle;                     /* the last step wrote nothing and
				       * all its warps waited (IDLE_WAIT)
				       * or spun (IDLE_SPIN): sched_coop.c */
	/* an ordinary launch's blocks: 1 may run beside others when one
	 * waits on another (run_grid), 2 they do in time slices, 3 in
	 * turns to their next barrier (sched_coop.c) */
	int window;
	struct emu_alloc *cache;
	uint64_t sink[EMU_WARP_SIZE];
	uint64_t clock;
	int checks;
	int warned_uninit;            /* one warning per launch */
	int warned_guard;             /* the same for the guard bands */
	/* mem_st: the bytes each lane stores */
	const uint8_t (*stv)[EMU_MAX_ACCESS_BYTES];
	size_t printf_bytes;          /* device printf output this launch */
	struct perf_collect *perf;    /* the block is sampled (perf.h) */
	/* global bytes the active lanes loaded and stored (an atomic's
	 * both), for the performance model's count of each block */
	uint64_t gld_bytes, gst_bytes;
	/* the budget is the performance model's interpretation cap
	 * (perf.h): 1, and 2 once it ran out (no fault: the prediction
	 * stops, the collector says why) */
	int perf_capped;
	/* the last inputs and outputs of each uniform run of the kernel
	 * (urun.c), made at its first run; 0, or 1 none could be */
	struct urun_memo *urun_memo;
	int urun_none;
};

static inline uint64_t trunc_sz(uint64_t v, int sz)
{
	switch (sz) {
	case 1: return (uint8_t)v;
	case 2: return (uint16_t)v;
	case 4: return (uint32_t)v;
	default: return v;
	}
}

/* v of sz bytes sign-extended */
static inline int64_t sx(uint64_t v, int sz)
{
	if (sz == 1)
		return (int8_t)v;
	if (sz == 2)
		return (int16_t)v;
	if (sz == 4)
		return (int32_t)v;
	return (int64_t)v;
}

/* the thread index of a lane of a warp of the block */
static inline void thread_of(const struct xctx *x, int warp, int lane,
			     unsigned t[3])
{
	unsigned id = (unsigned)warp * EMU_WARP_SIZE + (unsigned)lane;
	const unsigned *b = x->cfg->block;

	t[0] = id % b[0];
	t[1] = id / b[0] % b[1];
	t[2] = id / (b[0] * b[1]);
}

/* the lanes in m, counted inline (without -mpopcnt, __builtin_popcount
 * is a call into libgcc) */
static inline int lanes_in(uint32_t m)
{
	m = m - ((m >> 1) & 0x55555555u);
	m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
	return (int)((((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* run the body for every lane of m (the variable m in scope) */
#define LANES(...) do { \
	if (m == FULL) { \
		for (int l = 0; l < EMU_WARP_SIZE; l++) { __VA_ARGS__; } \
	} else { \
		for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) { \
			int l = __builtin_ctz(mm_); \
			__VA_ARGS__; \
		} \
	} \
} while (0)

static inline uint64_t sym_value(struct xctx *x, struct warp *w, int s)
{
	const struct emu_sym *sy = &x->m->syms[s];

	if (sy->kind == SYM_LOCAL)
		return w->fr[w->nf - 1].local_base + sy->off;
	return x->symaddr[s];
}

static inline uint32_t pred_src(const uint32_t *P, const struct emu_func *f,
				const struct emu_opnd *o)
{
	uint32_t v;

	if (o->kind == OK_CONST)
		return f->consts[(size_t)o->idx * EMU_WARP_SIZE] ? FULL : 0;
	if (o->kind != OK_PRED)
		return 0;
	v = P[o->idx];
	return o->neg ? ~v : v;
}

static inline void pred_set(uint32_t *P, const struct emu_opnd *o, uint32_t m,
			    uint32_t v)
{
	if (o->kind == OK_PRED)
		P[o->idx] = (P[o->idx] & ~m) | (v & m);
}

static inline uint64_t *dst(struct xctx *x, uint64_t *R,
			    const struct emu_opnd *o)
{
	return o->kind == OK_REG ? R + (size_t)o->idx * EMU_WARP_SIZE : x->sink;
}

/*
 * Warp-uniform registers.  uni[r] is set when register r (of the warp's
 * regs, frame offsets included) holds one value in every live lane.
 * Arithmetic, conversions, moves and kernel-parameter loads whose
 * sources are all uniform compute their result once, for the lowest lane
 * of their mask, and copy it to the others: the same lanes get the same
 * values as when each computes its own.  Their destination becomes
 * uniform when the mask is every live lane.  Every other write loses the
 * mark: run_entry clears an instruction's register destinations unless
 * the instruction kept them (ictx.uni_kept), wmma its register lists.  A
 * new frame starts with no mark but on the special registers that are
 * one value per warp (simt.c).
 *
 * The marks: UNI_NO, or one value in every live lane, held in every
 * lane's slot (UNI_ALL) or, written by a scalar form (scalar.c), in the
 * warp's uval beside its mark alone (UNI_LANE0: a uniform value costs
 * one store, not 32, to an array small enough to stay in the host's
 * first-level cache).  Only scalar.c reads a UNI_LANE0 register as it
 * is: run_entry spreads the value to every lane's slot (uniform_spread)
 * of each register an instruction of the general path names, before it
 * runs, lanes.c each one it reads or writes part of, and spin.c every
 * register of the frame before it compares a warp's state.
 */
enum { UNI_NO, UNI_ALL, UNI_LANE0 };

/* the uniform values (uval) of the frame of w whose marks are U */
static inline uint64_t *uniform_values(const struct warp *w,
				       const uint8_t *U)
{
	return w->uval + (U - w->uni);
}

/* register r of w's frame (registers R, marks U) in every lane's slot */
static inline void uniform_spread(const struct warp *w, uint64_t *R,
				  uint8_t *U, int r)
{
	if (U[r] == UNI_LANE0) {
		uint64_t *C = R + (size_t)r * EMU_WARP_SIZE;
		uint64_t v = uniform_values(w, U)[r];

		for (int l = 0; l < EMU_WARP_SIZE; l++)
			C[l] = v;
		U[r] = UNI_ALL;
	}
}

static inline int uniform_opnd(const uint8_t *U, const struct emu_opnd *o)
{
	return o->kind != OK_REG || U[o->idx];
}

/* the first n sources of in are uniform */
static inline int uniform_srcs(const uint8_t *U, const struct emu_insn *in,
			       int n)
{
	for (int i = 0; i < n; i++)
		if (!uniform_opnd(U, &in->s[i]))
			return 0;
	return 1;
}

/* lanes m of D all take the value of its lane l */
static inline void uniform_fill(uint64_t *D, uint32_t m, int l0)
{
	uint64_t v = D[l0];

	LANES(D[l] = v);
}

/* the mark of destination o after a write of one value to the lanes m */
static inline void uniform_mark(uint8_t *U, const struct warp *w,
				const struct emu_opnd *o, uint32_t m)
{
	if (o->kind == OK_REG)
		U[o->idx] = m == w->live;
}

/* the shared or local window cvta moves an address by */
static inline uint64_t cvta_window(const struct emu_insn *in)
{
	return in->space == SP_SHARED ? EMU_SHARED_WIN :
	       in->space == SP_LOCAL ? EMU_LOCAL_WIN : 0;
}

/* what a counted access does */
enum { ACC_LOAD, ACC_STORE, ACC_ATOMIC };

/* ---- fault.c ---- */
const char *emu_base_name(const char *p);
int emu_where(struct xctx *x, const struct emu_insn *in, char *buf,
	      size_t len);
int emu_fault(struct xctx *x, enum wgemu_fault_kind kind,
	      const struct emu_insn *in, int warp, int lane,
	      const char *fmt, ...);
int emu_fault_unsupported(struct xctx *x, const struct emu_func *f,
			  const struct emu_insn *in, int warp, int lane,
			  const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void emu_warn_uninit(struct xctx *x, const struct emu_insn *in,
		     int warp, int lane, uint32_t off);
void emu_warn_guard(struct xctx *x, const struct emu_insn *in, int warp,
		    int lane, uint64_t a);

/* ---- simt.c ---- */
int simt_grow(void *pp, size_t *cap, size_t need, size_t sz);
int simt_push_frame(struct xctx *x, struct warp *w,
		    const struct emu_func *f, const struct emu_insn *in);
int simt_push(struct warp *w, int pc, int rpc, uint32_t mask);
void simt_kill(struct warp *w, uint32_t m);
uint32_t simt_finished(const struct warp *w, uint32_t active);
void simt_return(struct xctx *x, struct warp *w);
int simt_call(struct xctx *x, struct warp *w, const struct emu_insn *in,
	      uint32_t m, int pc);

/* ---- alu.c ---- */
int alu_float(struct xctx *x, const struct emu_insn *in, uint32_t m,
	      uint64_t *D, const uint64_t *A, const uint64_t *B,
	      const uint64_t *C);
/* v rounded to the half type t in the rounding mode rnd (half.c) */
uint64_t alu_to_half(int t, double v, int rnd);
uint64_t alu_cvt(const struct emu_insn *in, uint64_t a);
/* cvt between integer types without .sat (alu_cvt's, the scalar forms'):
 * the source's bits extended by its sign or zeros, then the
 * destination's */
static inline uint64_t alu_cvt_int(const struct emu_insn *in, uint64_t a)
{
	int ssz = emu_type_size[in->type2], dsz = emu_type_size[in->type];
	uint64_t v = emu_type_kind[in->type2] == 's' ? (uint64_t)sx(a, ssz) :
		     trunc_sz(a, ssz);

	return emu_type_kind[in->type] == 's' ? (uint64_t)sx(v, dsz) :
	       trunc_sz(v, dsz);
}
/* setp's comparison cmp of a and b of type t: 0 or 1 */
int alu_compare(int cmp, int t, uint64_t a, uint64_t b);
/* div (rem 0) or rem (rem 1) of the sz-byte integers a and b, signed
 * when sgn: by zero all ones, a signed one by -1 the negation (no
 * trap), as a GPU gives them */
uint64_t alu_divide(int rem, int sgn, uint64_t a, uint64_t b, int sz);
int alu_int(const struct emu_insn *in, uint32_t m, uint64_t *D,
	    const uint64_t *A, const uint64_t *B, const uint64_t *C);
int alu_bfi(const struct emu_insn *in, uint32_t m, uint64_t *D,
	    const uint64_t *A, const uint64_t *B, const uint64_t *C,
	    const uint64_t *E);
/* testp's class mode (finite, infinite, number, notanumber, normal,
 * subnormal) of the f32 or f64 (type) bits: 0 or 1 */
int alu_testp(int mode, int type, uint64_t bits);

/* ---- count.c ---- */
/* The counters of one warp-level access (ACC_*) of the lanes gm to
 * global and sm to shared memory at addr, of bytes each: the launch's
 * and the instruction's line's, and the performance model's; only the
 * global bytes moved when the launch is uncounted (emu.h). */
void count_access(struct xctx *x, const struct emu_insn *in,
		  const uint64_t *addr, uint32_t gm, uint32_t sm,
		  int bytes, int kind);
/* bytes of dynamic shared memory a lane loaded that another thread of
 * its block stored (race_stage): none is nothing */
void count_staged(struct xctx *x, const struct emu_insn *in, uint32_t bytes);

/* ---- memory.c ---- */
int mem_ld(struct xctx *x, struct warp *w, const struct emu_insn *in,
	   uint32_t m, uint64_t *R);
int mem_ld_uniform(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R);
int mem_cpasync(struct xctx *x, struct warp *w,
		const struct emu_insn *in, uint32_t m, uint64_t *R,
		const struct emu_func *f);
int mem_bulk_copy(struct xctx *x, struct warp *w, const struct emu_insn *in,
		  uint32_t m, uint64_t *R, const struct emu_func *f);
int mem_st(struct xctx *x, struct warp *w, const struct emu_insn *in,
	   uint32_t m, uint64_t *R, const struct emu_func *f);
/* 1 when the store in of the lanes m writes global memory (its lowest
 * lane's address) in an allocation of x->loaded, else 0 */
int mem_st_reloads(struct xctx *x, struct warp *w,
		   const struct emu_insn *in, uint32_t m, uint64_t *R);
/* wmma.load, wmma.store, wmma.mma, run by wmma.c: each element access
 * checked and counted here as an instruction of its own */
int mem_wmma(struct xctx *x, struct warp *w, const struct emu_insn *in,
	     uint32_t m, uint64_t *R, const struct emu_func *f);
int mem_atom(struct xctx *x, struct warp *w, const struct emu_insn *in,
	     uint32_t m, uint64_t *R, const struct emu_func *f);
uint8_t *mem_lane_ptr(struct xctx *x, struct warp *w, int l, uint64_t a,
		      uint64_t len);

/* The lanes' shared-memory addresses of a ld/st-like instruction (its
 * address fields), resolved and checked for bytes each, for race
 * tracking as an atomic access (vals NULL) or as a store of vals[l]
 * (storing what memory holds is no race); hp[l] gets lane l's host
 * pointer.  0, or -1 at a fault (an address outside shared memory
 * included); nothing is written. */
int mem_shared_lanes(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     uint32_t m, uint64_t *R, int bytes,
		     const uint8_t (*vals)[EMU_MAX_ACCESS_BYTES], uint8_t **hp);

/* ---- mbarrier.c ---- */
/* mbarrier.* on the lanes m; 0, 1 when the warp must give way (a wait
 * that failed), or -1 at a fault. */
int mbar_exec(struct xctx *x, struct warp *w, const struct emu_insn *in,
	      uint32_t m, uint64_t *R, uint32_t *P, const struct emu_func *f);
/* cp.async.mbarrier.arrive{.noinc}: the lanes' earlier cp.async are
 * done (at issue), so the arrive-on happens now; 0 or -1 */
int mbar_cp_arrive(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R);
/* the bulk copy's complete_tx: the size (s[1]) of each lane's copy off
 * the transaction count of its mbarrier (s[2]); 0 or -1 */
int mbar_bulk_done(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const struct emu_func *f);

/* ---- sched.c ---- */
/* A new race epoch for the running block: what a barrier does, and an
 * mbarrier phase's completion. */
void sched_new_epoch(struct xctx *x);
/* The blocks of a launch, as sched_coop.c runs them: start one (x->bid
 * set, x->warps, x->smem and x->sh its own), and run each of its warps
 * once until it stops or gives way, releasing a barrier all reached:
 * STEP_DONE when every warp has exited, STEP_MORE otherwise, -1 at a
 * fault (a deadlock included); STEP_BLOCKED when the block of an
 * ordinary launch that may run beside others (x->window 1) waits on
 * memory nothing of it changes. */
enum { STEP_MORE, STEP_DONE, STEP_BLOCKED };
int sched_block_start(struct xctx *x);
int sched_block_step(struct xctx *x);
/* The fault of a deadlocked block (x's), by why: its warps wait on
 * mbarriers, spin on memory nothing running changes, or (a cooperative
 * launch) every block's do; returns -1. */
enum { DL_MBAR, DL_SPIN, DL_GRID, DL_WINDOW };
enum { IDLE_NO, IDLE_WAIT, IDLE_SPIN };
/* idle steps in a row that make a deadlock where some warps wait on an
 * mbarrier: far more than the 16 tries libcu++ makes before it backs
 * off to sleep between them (one of pure spins is a fixed point) */
#define STUCK_STEPS 1024
int sched_deadlock(struct xctx *x, int why);
/* local memory of n warps (x->lcap bytes a lane), zeroed when new and
 * kept as it is when large enough (a GPU's holds what it held); 0 or
 * -1 */
int sched_reserve_local(struct xctx *x, struct warp *warps, int n);
/* the local memory of n warps freed (at a launch's end) */
void sched_free_local(struct warp *warps, int n);
/* The performance model's count of a block (perf.h): the launch's
 * counters now, and what they grew by since from, added to *to. */
struct perf_work;
void sched_work_now(const struct xctx *x, struct perf_work *w);
void sched_work_add(const struct xctx *x, const struct perf_work *from,
		    struct perf_work *to);
/* In a prediction's sample alone (perf_only), the budget lowered to
 * cap more lane-instructions, the interpreter's run then ending
 * without a fault when they are spent (x->perf_capped 2); returns the
 * budget to restore. */
uint64_t sched_perf_cap(struct xctx *x, uint64_t cap);

/* ---- spin.c ---- */
/* at the start of a block: no warp checked yet */
void spin_reset(struct warp *w);
/* at the start of a warp's run: its first check; x->limit */
void spin_arm(struct xctx *x, struct warp *w);
/* x->limit from the budget, the slice's end and the next check */
void spin_limit(struct xctx *x);
/* at a branch or call at pc past the next check: 1 when the warp
 * spins (it must give way), 0 to go on */
int spin_check(struct xctx *x, struct warp *w, int pc);
/* what the launch has written so far, as a count that only grows */
uint64_t spin_written(const struct xctx *x);
/* at a nanosleep at pc: 1 when the warp's state and what was written
 * are as at its last one there (it spins, sleeping), else 0 */
int spin_sleep(struct xctx *x, struct warp *w, int pc);
void spin_release(struct xctx *x);

/* ---- sched_coop.c ---- */
/* Every block of a cooperative launch, resident at once and run in
 * turns of a time slice each; 0, or -1 at the first fault. */
int coop_run_grid(struct xctx *x);
/* the time slice of the warp about to run: x->slice_end */
void coop_slice(struct xctx *x);
/* The rest of an ordinary launch whose block `first` (x's, running)
 * waits on another: its blocks resident together from there, as many
 * as fit on the device, in turns; 0, or -1 at the first fault. */
int coop_run_window(struct xctx *x, uint64_t first);
/* Every block of an ordinary launch from the first, as many resident
 * at once as fit on the device, in turns of a step (to the next
 * barrier) each; a block that spins makes the turns time slices
 * (x->window 3, then 2); 0, or -1 at the first fault. */
int coop_run_phases(struct xctx *x);

/* ---- devlib.c ---- */
int devlib_vprintf(struct xctx *x, struct warp *w,
		   const struct emu_call *c, uint32_t m);
int devlib_assertfail(struct xctx *x, struct warp *w,
		      const struct emu_insn *in,
		      const struct emu_call *c, uint32_t m);
int devlib_heap(struct xctx *x, struct warp *w,
		const struct emu_call *c, uint32_t m, int is_free);
int devlib_is_builtin(const char *name);

/* ---- warpops.c ---- */
/* vote.sync (any, all, uni: predicate d[0]; ballot: register d[0]) of
 * the lanes m, tmp a column for the member mask */
void warp_vote(struct xctx *x, struct warp *w, const struct emu_insn *in,
	       uint32_t m, uint64_t *R, uint32_t *P, const struct emu_func *f,
	       uint64_t *tmp);
/* redux.sync.op: each lane gets the reduction over its group (32-bit);
 * t0, t1 columns for the value and the member mask */
void warp_redux(struct xctx *x, struct warp *w, const struct emu_insn *in,
		uint32_t m, uint64_t *R, const struct emu_func *f, uint64_t *t0,
		uint64_t *t1);
/* match.any.sync and match.all.sync (the predicate d[1] when there is
 * one) of the lanes m, tmp a column for the value */
void warp_match(struct xctx *x, struct warp *w, const struct emu_insn *in,
		uint32_t m, uint64_t *R, uint32_t *P, const struct emu_func *f,
		uint64_t *tmp);

/* ---- reconv.c ---- */
/* Diverge at the branch in (at pc, to target) of the lanes mask whose
 * lanes taken take it (neither none nor all of mask): both paths pushed
 * to meet at the branch's reconvergence pc, as the IPDOM stack
 * discipline says; 0, or -1 out of memory. */
int reconv_diverge(struct warp *w, const struct emu_insn *in, int pc,
		   int target, uint32_t mask, uint32_t taken);

/* ---- scalar.c ---- */
/* the sources of in (with a scalar form) are uniform: the registers of
 * s[0..2] (regops) marked.  Without a branch: a source that is not a
 * register reads the mark of slot 0 (its umark, emu.h), which its clear
 * bit of regops overrides. */
static inline int scalar_ready(const struct emu_insn *in, const uint8_t *U)
{
	uint32_t r = in->regops;

	return ((U[in->s[0].umark] != 0) | !(r & 1u)) &
	       ((U[in->s[1].umark] != 0) | !(r & 2u)) &
	       ((U[in->s[2].umark] != 0) | !(r & 4u));
}

/* The instruction in with a scalar form (in->scalar) and uniform sources
 * (scalar_ready), run by the lanes m, every live lane of w, in the frame
 * of registers R, predicates P and uniform marks U: computed once, its
 * destination written in the warp's uval and marked UNI_LANE0; 1 when done
 * so, 0 when the general path must run it (a selp whose lanes choose
 * differently, a parameter load that faults). */
int scalar_exec(struct xctx *x, struct warp *w, const struct emu_func *f,
		const struct emu_insn *in, uint32_t m, uint64_t *R,
		uint32_t *P, uint8_t *U);
/* every register of the warp's current frame spread (uniform_spread) */
void scalar_spread_frame(struct warp *w);
/* the division of the scalar forms SC_DIV_S .. SC_REM_U (alu_divide) */
static inline uint64_t scalar_divide(int form, uint64_t a, uint64_t b,
				     int sz)
{
	return alu_divide(form == SC_REM_S || form == SC_REM_U,
			  form == SC_DIV_S || form == SC_REM_S, a, b, sz);
}
/* setp's predicates from r, the lanes of m where the comparison holds,
 * combined with its third source by .and/.or/.xor */
void scalar_setp(const struct emu_insn *in, const struct emu_func *f,
		 uint32_t *P, uint32_t m, uint32_t r);

/* ---- lanes.c ---- */
/* The instruction in with a scalar form, run lane by lane by the lanes
 * m, its sources spread (exec.h) and its destination's mark cleared; 1
 * when done so, 0 when the general path must run it (a parameter
 * load). */
int lanes_exec(struct xctx *x, struct warp *w, const struct emu_func *f,
	       const struct emu_insn *in, uint32_t m, uint64_t *R,
	       uint32_t *P, uint8_t *U);

/* ---- urun.c ---- */
/* The uniform run u of the kernel (emu.h), run by the lanes m of w --
 * every live lane, its registers R, predicates P and marks U -- whose
 * SIMT entry reconverges at rpc: the outputs its inputs gave last time,
 * or its instructions run on the scalar path.  The instructions done
 * (u->len, fewer when one must take the general path), or 0 when the
 * run does not apply: an input not uniform, rpc within it. */
int urun_exec(struct xctx *x, struct warp *w, const struct emu_urun *u,
	      uint32_t m, uint64_t *R, uint32_t *P, uint8_t *U, int rpc);
/* what urun_exec kept for the launch, freed */
void urun_release(struct xctx *x);

/* ---- exec.c ---- */
const uint64_t *exec_src(struct xctx *x, struct warp *w,
			 const uint64_t *R, const struct emu_func *f,
			 const struct emu_opnd *o, uint64_t *tmp);
int exec_warp(struct xctx *x, struct warp *w);

#endif
