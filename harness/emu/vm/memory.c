/*
 * The memory spaces as a warp sees them: every lane's address resolved
 * to host memory (global and constant through the allocation table,
 * generic through the shared and local windows, shared, local and the
 * parameter spaces by offset), checked for alignment and bounds,
 * race-tracked when shared (race.c) and counted (count.c); then ld, st,
 * atom/red and cp.async on the resolved lanes.
 */
#include <stdio.h>
#include <string.h>
#include "emu/vm/exec.h"
#include "emu/perf.h"
#include "emu/vm/race.h"
#include "emu/vm/wmma.h"

enum { MK_GLOBAL, MK_SHARED, MK_LOCAL, MK_PARAM, MK_KPARAM, MK_CONST };

static const char *const mk_name[] = {
	"global", "shared", "local", "param", "param", "constant"
};

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
			emu_warn_uninit(x, in, warp, lane, h.uninit_off);
		return 0;
	}
	if (h.kind == RACE_AFTER_READ)
		return emu_fault(x, WGEMU_FAULT_RACE, in, warp, lane,
				 "shared-memory race at offset %u: written by "
				 "warp %d after %s read it with no barrier "
				 "between", h.off, warp, h.other_warp ==
				 0xffff ? "other warps" : "another warp");
	tmp.line = h.other_line;
	emu_where(x, &tmp, loc, sizeof(loc));
	return emu_fault(x, WGEMU_FAULT_RACE, in, warp, lane, "shared-memory "
			 "race at offset %u: %s by warp %d, written at %s by "
			 "warp %d with no barrier between", h.off, is_store ?
			 "written" : "read", warp, loc, h.other_warp);
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

/* The space an access of state space sp at *a falls in; *a becomes the
 * offset into the shared or local memory. */
static inline int space_kind(int sp, uint64_t *a)
{
	switch (sp) {
	case SP_GLOBAL: return MK_GLOBAL;
	case SP_CONST: return MK_CONST;
	case SP_SHARED: *a = (uint32_t)*a; return MK_SHARED;
	case SP_LOCAL: *a = (uint32_t)*a; return MK_LOCAL;
	case SP_PARAM: return MK_PARAM;
	case SP_KPARAM: return MK_KPARAM;
	default: return generic_kind(a);
	}
}

/* An access of lane l past the end of the shared or local memory. */
static int out_of_window(struct xctx *x, const struct emu_insn *in, int warp,
			 int l, int kind, int is_store, int bytes, uint64_t a)
{
	char size[64] = "";

	if (kind == MK_SHARED)
		snprintf(size, sizeof(size), " (the block has %u bytes of "
			 "shared memory)", x->smem_size);
	return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, warp, l,
			 "out-of-bounds %s %s of %d bytes at offset %llu%s",
			 mk_name[kind], is_store ? "store" : "load", bytes,
			 (unsigned long long)a, size);
}

/* Lane l's global or constant access at a: in one allocation, no store
 * to constant memory, a store into the watched guard bands noted. */
static int resolve_global(struct xctx *x, struct warp *w,
			  const struct emu_insn *in, int l, int kind,
			  uint64_t a, int bytes, int is_store, int atomic,
			  uint8_t **hp, uint32_t *gmask)
{
	struct emu_alloc *al = global_lookup(x, a, (uint64_t)bytes);

	if (!al)
		return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id, l,
				 "out-of-bounds %s %s of %d bytes at address "
				 "0x%llx (outside every allocation)",
				 mk_name[kind], is_store ? "store" : "load",
				 bytes, (unsigned long long)a);
	if (al->is_const && (is_store || atomic))
		return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id, l,
				 "store to constant memory at 0x%llx",
				 (unsigned long long)a);
	hp[l] = al->host + (a - al->dev);
	if (!al->is_const)
		*gmask |= 1u << l;
	if (is_store && a + (uint64_t)bytes > emu_watch.lo &&
	    a < emu_watch.hi && (a < emu_watch.out ||
	    a + (uint64_t)bytes > emu_watch.end))
		emu_warn_guard(x, in, w->id, l, a < emu_watch.out ?
			       a : a + (uint64_t)bytes - 1);
	return 0;
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
		int l = __builtin_ctz(mm);
		uint64_t a = addr[l];
		int kind = space_kind(sp, &a);

		if (a & (uint64_t)(bytes - 1))
			return emu_fault(x, WGEMU_FAULT_MISALIGNED, in, w->id,
					 l, "misaligned %s access of %d bytes "
					 "at 0x%llx", mk_name[kind], bytes,
					 (unsigned long long)addr[l]);
		switch (kind) {
		case MK_GLOBAL: case MK_CONST:
			if (resolve_global(x, w, in, l, kind, a, bytes,
					   is_store, atomic, hp, gmask))
				return -1;
			break;
		case MK_SHARED:
			if (a + (uint64_t)bytes > x->smem_size)
				return out_of_window(x, in, w->id, l, kind,
						     is_store, bytes, a);
			if (x->checks && shadow(x, in, w->id, l, (uint32_t)a,
						bytes, is_store, atomic))
				return -1;
			if (x->cfg->dyn_smem && a >= x->dyn_base &&
			    !x->cfg->uncounted)
				count_staged(x, in, race_stage(x->sh,
					x->block_epoch, (uint32_t)w->id *
					EMU_WARP_SIZE + (uint32_t)l, (uint32_t)a,
					bytes, is_store || atomic));
			hp[l] = x->smem + a;
			*smask |= 1u << l;
			break;
		case MK_LOCAL:
			if (a + (uint64_t)bytes > x->lcap)
				return out_of_window(x, in, w->id, l, kind,
						     is_store, bytes, a);
			hp[l] = w->local + (size_t)l * x->lcap + a;
			break;
		case MK_PARAM:
			if (a + (uint64_t)bytes > fr->f->param_bytes)
				return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS,
						 in, w->id, l, "parameter "
						 "access out of range");
			hp[l] = w->params + fr->paoff +
				(size_t)l * fr->f->param_bytes + a;
			break;
		default:
			if (a + (uint64_t)bytes > x->k->kparam_bytes)
				return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS,
						 in, w->id, l, "kernel "
						 "parameter access out of "
						 "range");
			hp[l] = (uint8_t *)x->cfg->params + a;
			break;
		}
	}
	return 0;
}

/* A global load of the running warp (interleaving, sched.c): the
 * allocation its last lane read, x->cache, among those it loaded from
 * in this run; past EMU_RUN_LOADS of them, any. */
static void note_load(struct xctx *x)
{
	for (int i = 0; i < x->nloaded && i < EMU_RUN_LOADS; i++)
		if (x->loaded[i] == x->cache)
			return;
	if (x->nloaded < EMU_RUN_LOADS)
		x->loaded[x->nloaded] = x->cache;
	if (x->nloaded <= EMU_RUN_LOADS)
		x->nloaded++;
}

static void lane_addrs(struct xctx *x, struct warp *w, const uint64_t *R,
		       const struct emu_insn *in, uint32_t m, uint64_t *addr)
{
	uint64_t off = (uint64_t)in->aoff, v;

	switch (in->ak) {
	case AK_REG: {
		const uint64_t *A = R + (size_t)in->areg * EMU_WARP_SIZE;

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

int mem_ld(struct xctx *x, struct warp *w, const struct emu_insn *in,
	   uint32_t m, uint64_t *R)
{
	int esz = emu_type_size[in->type], bytes = esz * in->vec, i;
	char k = emu_type_kind[in->type];
	uint64_t addr[EMU_WARP_SIZE];
	uint8_t *hp[EMU_WARP_SIZE];
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
	if (gm && x->others)
		note_load(x);
	return 0;
}

/*
 * A load of a kernel parameter or of constant memory at one address in
 * every lane (the caller knows it is): resolved and read for the lowest
 * lane of m, the values copied to the others.  Returns 1 when done so, 0
 * when the load is not of that kind (mem_ld must do it), -1 on a fault
 * (the one the lowest lane would have met first in mem_ld).
 */
int mem_ld_uniform(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R)
{
	int esz = emu_type_size[in->type], bytes = esz * in->vec;
	int l0 = __builtin_ctz(m), i;
	uint32_t one = 1u << l0, gm, sm;
	uint64_t addr[EMU_WARP_SIZE];
	uint8_t *hp[EMU_WARP_SIZE];

	if (in->space != SP_KPARAM && in->space != SP_CONST)
		return 0;
	lane_addrs(x, w, R, in, one, addr);
	if (resolve(x, w, in, one, addr, bytes, 0, 0, hp, &gm, &sm))
		return -1;
	if (gm | sm)	/* counted: constant space in an ordinary allocation */
		return 0;
	for (i = 0; i < in->vec; i++) {
		uint64_t *D = dst(x, R, &in->d[i]), v = 0;

		memcpy(&v, hp[l0] + i * esz, (size_t)esz);
		D[l0] = emu_type_kind[in->type] == 's' ?
			(uint64_t)sx(v, esz) : v;
		uniform_fill(D, m, l0);
	}
	return 1;
}

/*
 * cp.async.shared.global [dst], [src], cp-size{, src-size}: done at once
 * (commit_group and wait_group are then nothing to wait for).  Counted
 * as the global load and the shared store it is; src-size bytes are
 * copied and the rest of cp-size zero-filled, as the instruction says.
 */
int mem_cpasync(struct xctx *x, struct warp *w,
		const struct emu_insn *in, uint32_t m, uint64_t *R,
		const struct emu_func *f)
{
	struct emu_insn ld = *in, st = *in;
	const uint64_t *S, *N, *Z = NULL;
	uint64_t dst_a[EMU_WARP_SIZE], src_a[EMU_WARP_SIZE];
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE], t2[EMU_WARP_SIZE];
	uint8_t *dh[EMU_WARP_SIZE], *sh[EMU_WARP_SIZE];
	uint32_t gm, sm, gm2, sm2;
	int bytes;

	S = exec_src(x, w, R, f, &in->s[0], t0);
	N = exec_src(x, w, R, f, &in->s[1], t1);
	if (in->nsrc > 2)
		Z = exec_src(x, w, R, f, &in->s[2], t2);
	bytes = (int)(uint32_t)N[__builtin_ctz(m)];
	if (bytes != 4 && bytes != 8 && bytes != 16)
		return emu_fault_unsupported(x, f, in, w->id,
					     __builtin_ctz(m),
					     "cp.async of %d bytes", bytes);
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

/*
 * cp.async.bulk [dst], [src], size, [mbar] (the copy; the mbarrier's
 * transaction bytes are mbarrier.c's): done at issue, 16 bytes at a
 * time, each piece checked and counted as a 16-byte global load and
 * shared store of the lane.  Size and both addresses must be multiples
 * of 16, as the instruction requires.
 */
int mem_bulk_copy(struct xctx *x, struct warp *w, const struct emu_insn *in,
		  uint32_t m, uint64_t *R, const struct emu_func *f)
{
	struct emu_insn ld = *in, st = *in;
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	uint64_t dst_a[EMU_WARP_SIZE], da[EMU_WARP_SIZE], sa[EMU_WARP_SIZE];
	const uint64_t *S = exec_src(x, w, R, f, &in->s[0], t0);
	const uint64_t *N = exec_src(x, w, R, f, &in->s[1], t1);
	uint8_t *dh[EMU_WARP_SIZE], *sh[EMU_WARP_SIZE];
	uint32_t gm, sm, gm2, sm2;

	ld.space = SP_GLOBAL;
	st.space = SP_SHARED;
	lane_addrs(x, w, R, in, m, dst_a);
	LANES({
		uint32_t n = (uint32_t)N[l], bit = 1u << l;

		if ((n | dst_a[l] | S[l]) & 15)
			return emu_fault(x, WGEMU_FAULT_MISALIGNED, in, w->id,
					 l, "cp.async.bulk of %u bytes from "
					 "0x%llx to 0x%llx: size and addresses "
					 "must be multiples of 16", n,
					 (unsigned long long)S[l],
					 (unsigned long long)dst_a[l]);
		for (uint32_t o = 0; o < n; o += 16) {
			sa[l] = S[l] + o;
			da[l] = dst_a[l] + o;
			if (resolve(x, w, &ld, bit, sa, 16, 0, 0, sh, &gm,
				    &sm) ||
			    resolve(x, w, &st, bit, da, 16, 1, 0, dh, &gm2,
				    &sm2))
				return -1;
			memcpy(dh[l], sh[l], 16);
			if (gm)
				count_access(x, &ld, sa, gm, 0, 16, ACC_LOAD);
			if (sm2)
				count_access(x, &st, da, 0, sm2, 16,
					     ACC_STORE);
		}
	});
	return 0;
}

int mem_st_reloads(struct xctx *x, struct warp *w,
		   const struct emu_insn *in, uint32_t m, uint64_t *R)
{
	uint64_t a = (uint64_t)in->aoff;
	const struct emu_alloc *al;

	if (in->space != SP_GENERIC && in->space != SP_GLOBAL)
		return 0;
	/* the lowest lane's address, as lane_addrs computes it */
	if (in->ak == AK_REG)
		a += R[(size_t)in->areg * EMU_WARP_SIZE + __builtin_ctz(m)];
	else if (in->ak == AK_SYM)
		a += sym_value(x, w, in->asym);
	if (in->space == SP_GENERIC && generic_kind(&a) != MK_GLOBAL)
		return 0;
	if (x->nloaded > EMU_RUN_LOADS)
		return 1;
	al = global_lookup(x, a, 1);
	for (int i = 0; i < x->nloaded; i++)
		if (x->loaded[i] == al)
			return 1;
	return 0;
}

int mem_st(struct xctx *x, struct warp *w, const struct emu_insn *in,
	   uint32_t m, uint64_t *R, const struct emu_func *f)
{
	int esz = emu_type_size[in->type], bytes = esz * in->vec, i;
	uint64_t addr[EMU_WARP_SIZE], tmp[EMU_WARP_SIZE];
	uint8_t vals[EMU_WARP_SIZE][EMU_MAX_ACCESS_BYTES];
	uint8_t *hp[EMU_WARP_SIZE];
	uint32_t gm, sm;

	lane_addrs(x, w, R, in, m, addr);
	if (!x->checks || in->space == SP_GLOBAL) {
		/* no race check sees the values: store them directly */
		if (resolve(x, w, in, m, addr, bytes, 1, 0, hp, &gm, &sm))
			return -1;
		for (i = 0; i < in->vec; i++) {
			const uint64_t *A = exec_src(x, w, R, f, &in->s[i],
						     tmp);
			int o = i * esz;

			LANES(memcpy(hp[l] + o, &A[l], (size_t)esz));
		}
		goto count;
	}
	for (i = 0; i < in->vec; i++) {
		const uint64_t *A = exec_src(x, w, R, f, &in->s[i], tmp);
		int o = i * esz;

		LANES(memcpy(&vals[l][o], &A[l], (size_t)esz));
	}
	x->stv = (const uint8_t (*)[EMU_MAX_ACCESS_BYTES])vals;
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

int mem_atom(struct xctx *x, struct warp *w, const struct emu_insn *in,
	     uint32_t m, uint64_t *R, const struct emu_func *f)
{
	int esz = emu_type_size[in->type];
	char k = emu_type_kind[in->type];
	uint64_t addr[EMU_WARP_SIZE], res[EMU_WARP_SIZE];
	uint64_t t0[EMU_WARP_SIZE], t1[EMU_WARP_SIZE];
	uint8_t *hp[EMU_WARP_SIZE];
	uint32_t gm, sm;
	const uint64_t *B = exec_src(x, w, R, f, &in->s[0], t0);
	const uint64_t *C = in->nsrc > 1 ? exec_src(x, w, R, f, &in->s[1], t1) :
		B;

	if (esz != 4 && esz != 8)
		return emu_fault_unsupported(x, f, in, w->id,
					     __builtin_ctz(m),
					     "an atomic of %d bytes", esz);
	if (k == 'f' && in->sub != AT_ADD && in->sub != AT_EXCH)
		return emu_fault_unsupported(x, f, in, w->id,
					     __builtin_ctz(m), "a floating-"
					     "point atomic other than add");
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

int mem_shared_lanes(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     uint32_t m, uint64_t *R, int bytes,
		     const uint8_t (*vals)[EMU_MAX_ACCESS_BYTES], uint8_t **hp)
{
	uint64_t addr[EMU_WARP_SIZE];
	uint32_t gm, sm;
	int rc;

	lane_addrs(x, w, R, in, m, addr);
	x->stv = vals;
	rc = resolve(x, w, in, m, addr, bytes, 1, !vals, hp, &gm, &sm);
	x->stv = NULL;
	if (rc)
		return -1;
	if (sm != m) {
		int l = __builtin_ctz(m & ~sm);

		return emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id, l,
				 "%s on address 0x%llx, outside shared memory",
				 emu_op_name[in->op],
				 (unsigned long long)addr[l]);
	}
	return 0;
}

/* Host pointer to len bytes at generic address a, as lane l sees it;
 * NULL outside memory it can reach. */
uint8_t *mem_lane_ptr(struct xctx *x, struct warp *w, int l, uint64_t a,
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

	memset(hp, 0, EMU_WARP_SIZE * sizeof(*hp));
	if (resolve(c->x, c->w, c->in, c->m, a, bytes, is_store, 0, hp, &gm,
		    &sm))
		return -1;
	if (gm | sm)
		count_access(c->x, c->in, a, gm, sm, bytes,
			     is_store ? ACC_STORE : ACC_LOAD);
	return 0;
}

int mem_wmma(struct xctx *x, struct warp *w, const struct emu_insn *in,
	     uint32_t m, uint64_t *R, const struct emu_func *f)
{
	struct wmma_ctx c = { x, w, in, m };
	struct emu_wmma_io io;
	uint64_t tmp[EMU_WARP_SIZE];

	memset(&io, 0, sizeof(io));
	io.R = R;
	io.access = wmma_access;
	io.ctx = &c;
	lane_addrs(x, w, R, in, m, io.addr);
	if (in->nsrc)
		io.ldm = exec_src(x, w, R, f, &in->s[0], tmp)[__builtin_ctz(m)];
	if (emu_wmma_run(&f->wmma[in->call], &io))
		return x->res->fault ? -1 : emu_fault(x, WGEMU_FAULT_LIMIT, in,
						      w->id, 0,
						      "out of memory");
	return 0;
}
