/*
 * Reconvergence: where the lanes of a warp that took different paths at
 * a branch run together again.  The scheme is immediate post-dominator
 * (IPDOM) reconvergence on a SIMT stack, as GPU simulators and pre-Volta
 * hardware do it:
 *
 * - at load, for every function, the basic blocks and the immediate
 *   post-dominator of each, by the iterative algorithm of Cooper, Harvey
 *   and Kennedy ("A Simple, Fast Dominance Algorithm") run on the reverse
 *   control-flow graph from a virtual exit that ret, exit and trap
 *   reach; every instruction records the pc of its block's immediate
 *   post-dominator (emu_insn.rpc, the function's end for the exit);
 * - at run time, at a divergent branch the warp's top SIMT entry becomes
 *   the reconvergence entry, waiting at the branch's rpc (or is dropped
 *   when the entry below already waits there, so loops do not grow the
 *   stack), and the two paths are pushed above it, each running until
 *   it reaches that pc.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/exec.h"

/* Diverge at a branch of pc whose taken lanes are taken (neither none
 * nor all of mask). */
int reconv_diverge(struct warp *w, const struct emu_insn *in, int pc,
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
	if (pc + 1 != r && simt_push(w, pc + 1, r, mask & ~taken))
		return -1;
	if (target != r && simt_push(w, target, r, taken))
		return -1;
	return 0;
}

static int ends_block(const struct emu_insn *in)
{
	return in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT ||
	       in->op == OP_TRAP;
}

int emu_reconv_compute(struct emu_func *f)
{
	int n = f->ninsns, nb = 0, i, rc = -1, changed, exitb;
	int *bstart = NULL, *blk = NULL, *ipdom = NULL, *order = NULL;
	int *po = NULL, *succ = NULL, *stack = NULL, *predn = NULL;
	int *preds = NULL, *predoff = NULL;
	char *leader = NULL, *seen = NULL;

	leader = calloc((size_t)n + 1, 1);
	blk = calloc((size_t)n + 1, sizeof(int));
	if (!leader || !blk)
		goto out;
	leader[0] = 1;
	for (i = 0; i < n; i++) {
		const struct emu_insn *in = &f->insns[i];

		if (in->op == OP_BRA)
			leader[in->target] = 1;
		if (ends_block(in))
			leader[i + 1] = 1;
	}
	bstart = calloc((size_t)n + 2, sizeof(int));
	if (!bstart)
		goto out;
	for (i = 0; i < n; i++) {
		if (leader[i])
			bstart[nb++] = i;
		blk[i] = nb - 1;
	}
	exitb = nb;            /* virtual exit node */
	bstart[nb] = n;
	succ = malloc(((size_t)nb + 1) * 2 * sizeof(int));
	ipdom = malloc(((size_t)nb + 1) * sizeof(int));
	po = malloc(((size_t)nb + 1) * sizeof(int));
	order = malloc(((size_t)nb + 1) * sizeof(int));
	stack = malloc(((size_t)nb + 1) * 2 * sizeof(int));
	predn = calloc((size_t)nb + 2, sizeof(int));
	predoff = calloc((size_t)nb + 2, sizeof(int));
	preds = malloc(((size_t)nb + 1) * 2 * sizeof(int));
	seen = calloc((size_t)nb + 1, 1);
	if (!succ || !ipdom || !po || !order || !stack || !predn ||
	    !predoff || !preds || !seen)
		goto out;
	for (i = 0; i < nb; i++) {
		int last = (i + 1 < nb ? bstart[i + 1] : n) - 1;
		const struct emu_insn *in = &f->insns[last];

		succ[2 * i] = succ[2 * i + 1] = -1;
		if (in->op == OP_BRA) {
			succ[2 * i] = blk[in->target];
			if (in->guard >= 0)
				succ[2 * i + 1] = last + 1 < n ?
						  blk[last + 1] : exitb;
		} else if (ends_block(in)) {
			succ[2 * i] = exitb;
		} else {
			succ[2 * i] = last + 1 < n ? blk[last + 1] : exitb;
		}
	}
	for (i = 0; i < 2 * nb; i++)
		if (succ[i] >= 0)
			predn[succ[i]]++;
	for (i = 1; i <= nb + 1; i++)
		predoff[i] = predoff[i - 1] + predn[i - 1];
	memset(predn, 0, ((size_t)nb + 2) * sizeof(int));
	for (i = 0; i < 2 * nb; i++)
		if (succ[i] >= 0) {
			int s = succ[i];

			preds[predoff[s] + predn[s]++] = i / 2;
		}
	/* postorder of the reverse graph from the exit */
	{
		int sp = 0, cnt = 0;

		stack[sp++] = exitb;
		stack[sp++] = 0;
		seen[exitb] = 1;
		while (sp) {
			int v = stack[sp - 2], k = stack[sp - 1];

			if (k < predn[v]) {
				int u = preds[predoff[v] + k];

				stack[sp - 1]++;
				if (!seen[u]) {
					seen[u] = 1;
					stack[sp++] = u;
					stack[sp++] = 0;
				}
			} else {
				po[v] = cnt;
				order[cnt++] = v;
				sp -= 2;
			}
		}
		for (i = 0; i <= nb; i++)
			ipdom[i] = -1;
		ipdom[exitb] = exitb;
		do {
			int j;

			changed = 0;
			for (j = cnt - 2; j >= 0; j--) {
				int b = order[j], nd = -1, k;

				for (k = 0; k < 2; k++) {
					int s = succ[2 * b + k];

					if (s < 0 || !seen[s] || ipdom[s] < 0)
						continue;
					if (nd < 0) {
						nd = s;
						continue;
					}
					{
						int x = s, y = nd;

						while (x != y) {
							while (po[x] < po[y])
								x = ipdom[x];
							while (po[y] < po[x])
								y = ipdom[y];
						}
						nd = x;
					}
				}
				if (nd >= 0 && ipdom[b] != nd) {
					ipdom[b] = nd;
					changed = 1;
				}
			}
		} while (changed);
	}
	for (i = 0; i < n; i++) {
		int b = blk[i], d = ipdom[b];

		f->insns[i].rpc = d < 0 || d == exitb ? n : bstart[d];
	}
	rc = 0;
out:
	free(leader);
	free(blk);
	free(bstart);
	free(succ);
	free(ipdom);
	free(po);
	free(order);
	free(stack);
	free(predn);
	free(predoff);
	free(preds);
	free(seen);
	return rc;
}

int emu_func_rpc(const struct emu_func *f, int pc)
{
	if (pc < 0 || pc >= f->ninsns)
		return -1;
	return f->insns[pc].rpc;
}
