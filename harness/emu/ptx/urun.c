/*
 * The uniform runs of a function (emu.h, struct emu_urun): where the
 * warps of a block would each compute the same values, so that the
 * interpreter computes them once (vm/urun.c).
 *
 * A register or predicate is "varying" when its value can differ
 * between the warps of a block: the special registers of a thread, a
 * warp or the clock (%tid, %laneid, %warpid, %lanemask_*, %clock,
 * %globaltimer), what an instruction without a scalar form or with a
 * guard writes (a load, a shuffle, a conditional move), and what a
 * scalar form computes from a varying source -- found over the whole
 * function, whatever the order of its instructions, until nothing
 * changes.  A run is a stretch of two or more consecutive unguarded
 * instructions with a scalar form and no varying source, cut where a
 * branch lands and where its inputs or outputs would exceed what a run
 * records.  Which runs pay is a matter of speed alone: the interpreter
 * checks at each run that its inputs are uniform in the warp, and
 * compares their values before it takes the outputs.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"
#include "emu/ptx/opcodes.h"

/* source k of in is a predicate (setp's combining one, selp's choice) */
static int pred_source(const struct emu_insn *in, int k)
{
	return k == 2 && (in->scalar == SC_SETP || in->scalar == SC_SELP);
}

static int varying_sr(int r)
{
	return r == SR_TID_X || r == SR_TID_Y || r == SR_TID_Z ||
	       r == SR_LANEID || r == SR_WARPID ||
	       (r >= SR_LANEMASK_EQ && r <= SR_LANEMASK_GE) ||
	       r == SR_CLOCK || r == SR_CLOCK64 || r == SR_GLOBALTIMER;
}

/* in reads a varying register or predicate */
static int reads_varying(const struct emu_insn *in, const uint8_t *vreg,
			 const uint8_t *vpred)
{
	for (int k = 0; k < in->nsrc && k < 4; k++) {
		const struct emu_opnd *o = &in->s[k];

		if (o->kind == OK_REG && vreg[o->idx])
			return 1;
		if (o->kind == OK_PRED && pred_source(in, k) && vpred[o->idx])
			return 1;
	}
	return 0;
}

/* Mark what in writes varying when it is; 1 when a mark changed. */
static int spread_varying(const struct emu_insn *in, uint8_t *vreg,
			  uint8_t *vpred)
{
	int changed = 0;

	if (in->scalar != SC_NONE && in->guard < 0 &&
	    !reads_varying(in, vreg, vpred))
		return 0;
	for (int k = 0; k < in->ndst && k < 4; k++) {
		const struct emu_opnd *o = &in->d[k];
		uint8_t *v = o->kind == OK_REG ? &vreg[o->idx] :
			     o->kind == OK_PRED ? &vpred[o->idx] : NULL;

		if (v && !*v) {
			*v = 1;
			changed = 1;
		}
	}
	return changed;
}

static int find32(const int32_t *a, int n, int32_t v)
{
	for (int i = 0; i < n; i++)
		if (a[i] == v)
			return 1;
	return 0;
}

/* register or symbol idx (kind URUN_REG or URUN_SYM) is an input of u */
static int has_input(const struct emu_urun *u, uint8_t kind, int32_t idx)
{
	for (int i = 0; i < u->nin; i++)
		if (u->in[i] == idx && u->in_kind[i] == kind)
			return 1;
	return 0;
}

/* Add in to the run u: 0, or -1 (u unchanged) when that would take more
 * inputs or outputs than a run records. */
static int run_add(struct emu_urun *u, const struct emu_insn *in)
{
	struct emu_urun t = *u;
	uint8_t kind;

	for (int k = 0; k < in->nsrc && k < 4; k++) {
		const struct emu_opnd *o = &in->s[k];

		if (pred_source(in, k)) {
			if (o->kind != OK_PRED || find32(t.pout, t.npout,
							 o->idx) ||
			    find32(t.pin, t.npin, o->idx))
				continue;
			if (t.npin == URUN_PRED)
				return -1;
			t.pin[t.npin++] = o->idx;
			continue;
		}
		if (o->kind != OK_REG && o->kind != OK_SYM)
			continue;
		kind = o->kind == OK_REG ? URUN_REG : URUN_SYM;
		if ((o->kind == OK_REG && find32(t.out, t.nout, o->idx)) ||
		    has_input(&t, kind, o->idx))
			continue;	/* computed earlier, or read already */
		if (t.nin == URUN_IN)
			return -1;
		t.in_kind[t.nin] = kind;
		t.in[t.nin++] = o->idx;
	}
	for (int k = 0; k < in->ndst && k < 4; k++) {
		const struct emu_opnd *o = &in->d[k];

		if (o->kind == OK_REG && !find32(t.out, t.nout, o->idx)) {
			if (t.nout == URUN_OUT)
				return -1;
			t.out[t.nout++] = o->idx;
		} else if (o->kind == OK_PRED &&
			   !find32(t.pout, t.npout, o->idx)) {
			if (t.npout == URUN_PRED)
				return -1;
			t.pout[t.npout++] = o->idx;
		}
	}
	if (t.len == UINT16_MAX)
		return -1;
	t.len++;
	*u = t;
	return 0;
}

/* the pcs a branch lands on */
static uint8_t *branch_targets(const struct emu_func *f)
{
	uint8_t *t = calloc((size_t)f->ninsns + 1, 1);

	if (!t)
		return NULL;
	for (int i = 0; i < f->ninsns; i++) {
		const struct emu_insn *in = &f->insns[i];

		if (emu_op_exec[in->op] == EXEC_branch && in->target >= 0 &&
		    in->target < f->ninsns)
			t[in->target] = 1;
	}
	return t;
}

/* the runs of f, given what is varying and where branches land */
static void cut_runs(struct emu_func *f, const uint8_t *vreg,
		     const uint8_t *vpred, const uint8_t *target)
{
	struct emu_urun cur;
	int open = 0;

	for (int i = 0; i <= f->ninsns; i++) {
		const struct emu_insn *in = i < f->ninsns ? &f->insns[i] :
					    NULL;
		int fits = in && in->scalar != SC_NONE && in->guard < 0 &&
			   !reads_varying(in, vreg, vpred);

		if (open && (!fits || target[i] || run_add(&cur, in))) {
			if (cur.len >= 2) {
				f->urun_at[cur.start] = f->nuruns;
				f->uruns[f->nuruns++] = cur;
			}
			open = 0;
		} else if (open) {
			continue;	/* added */
		}
		if (!fits)
			continue;
		memset(&cur, 0, sizeof(cur));
		cur.start = i;
		open = !run_add(&cur, in);
	}
}

void emu_urun_plan(struct emu_func *f)
{
	const char *env = getenv("WGEMU_URUN");
	uint8_t *vreg, *vpred, *target;
	int changed = 1;

	f->uruns = NULL;
	f->urun_at = NULL;
	f->nuruns = 0;
	/* wmma writes register lists of its own */
	if ((env && !strcmp(env, "0")) || f->ninsns < 2 || f->nwmma)
		return;
	vreg = calloc((size_t)f->nregs + 1, 1);
	vpred = calloc((size_t)f->npreds + 1, 1);
	target = branch_targets(f);
	f->uruns = calloc((size_t)f->ninsns / 2 + 1, sizeof(*f->uruns));
	f->urun_at = malloc((size_t)f->ninsns * sizeof(*f->urun_at));
	if (!vreg || !vpred || !target || !f->uruns || !f->urun_at)
		goto out;
	for (int r = 0; r < SR_COUNT && r < f->nregs; r++)
		vreg[r] = (uint8_t)varying_sr(r);
	while (changed) {
		changed = 0;
		for (int i = 0; i < f->ninsns; i++)
			changed |= spread_varying(&f->insns[i], vreg, vpred);
	}
	for (int i = 0; i < f->ninsns; i++)
		f->urun_at[i] = -1;
	cut_runs(f, vreg, vpred, target);
	if (f->nuruns) {	/* room was made for ninsns / 2 */
		struct emu_urun *fit = realloc(f->uruns, (size_t)f->nuruns *
					       sizeof(*f->uruns));

		if (fit)
			f->uruns = fit;
	}
out:
	if (!f->nuruns) {
		free(f->uruns);
		free(f->urun_at);
		f->uruns = NULL;
		f->urun_at = NULL;
	}
	free(vreg);
	free(vpred);
	free(target);
}
