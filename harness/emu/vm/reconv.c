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
#include "emu/vm/exec.h"

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

/* A function's control-flow graph: its basic blocks, block nb the
 * virtual exit; two successors a block (-1: none), the predecessors of
 * block v at preds[predoff[v] .. + predn[v]]; for the reverse graph,
 * the postorder number of each block and the blocks in postorder. */
struct cfg {
	int n, nb, exitb;
	char *leader;       /* per pc: a block starts there */
	int *blk;           /* per pc: its block */
	int *bstart;        /* per block: its first pc */
	int *succ, *predn, *predoff, *preds;
	int *po, *order, *stack, *ipdom;
	char *seen;         /* reached from the exit */
};

static void cfg_release(struct cfg *g)
{
	void *all[] = {
		g->leader, g->blk, g->bstart, g->succ, g->ipdom, g->po,
		g->order, g->stack, g->predn, g->predoff, g->preds, g->seen
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
}

/* the basic blocks: a branch target or the pc after a branch, ret,
 * exit or trap starts one */
static int cfg_blocks(struct cfg *g, const struct emu_func *f)
{
	int i, n = g->n;

	g->leader = calloc((size_t)n + 1, 1);
	g->blk = calloc((size_t)n + 1, sizeof(int));
	g->bstart = calloc((size_t)n + 2, sizeof(int));
	if (!g->leader || !g->blk || !g->bstart)
		return -1;
	g->leader[0] = 1;
	for (i = 0; i < n; i++) {
		const struct emu_insn *in = &f->insns[i];

		if (in->op == OP_BRA)
			g->leader[in->target] = 1;
		if (ends_block(in))
			g->leader[i + 1] = 1;
	}
	for (i = 0; i < n; i++) {
		if (g->leader[i])
			g->bstart[g->nb++] = i;
		g->blk[i] = g->nb - 1;
	}
	g->exitb = g->nb;
	g->bstart[g->nb] = n;
	return 0;
}

/* the successors of every block and, from them, the predecessors */
static void cfg_edges(struct cfg *g, const struct emu_func *f)
{
	int i, n = g->n, nb = g->nb, *succ = g->succ;

	for (i = 0; i < nb; i++) {
		int last = (i + 1 < nb ? g->bstart[i + 1] : n) - 1;
		int after = last + 1 < n ? g->blk[last + 1] : g->exitb;
		const struct emu_insn *in = &f->insns[last];

		succ[2 * i] = succ[2 * i + 1] = -1;
		if (in->op == OP_BRA) {
			succ[2 * i] = g->blk[in->target];
			if (in->guard >= 0)
				succ[2 * i + 1] = after;
		} else {
			succ[2 * i] = ends_block(in) ? g->exitb : after;
		}
	}
	for (i = 0; i < 2 * nb; i++)
		if (succ[i] >= 0)
			g->predn[succ[i]]++;
	for (i = 1; i <= nb + 1; i++)
		g->predoff[i] = g->predoff[i - 1] + g->predn[i - 1];
	memset(g->predn, 0, ((size_t)nb + 2) * sizeof(int));
	for (i = 0; i < 2 * nb; i++)
		if (succ[i] >= 0) {
			int s = succ[i];

			g->preds[g->predoff[s] + g->predn[s]++] = i / 2;
		}
}

/* postorder of the reverse graph from the exit (a depth-first search
 * with an explicit stack of (block, next predecessor)); its length */
static int cfg_postorder(struct cfg *g)
{
	int sp = 0, cnt = 0, *stack = g->stack;

	stack[sp++] = g->exitb;
	stack[sp++] = 0;
	g->seen[g->exitb] = 1;
	while (sp) {
		int v = stack[sp - 2], k = stack[sp - 1];

		if (k < g->predn[v]) {
			int u = g->preds[g->predoff[v] + k];

			stack[sp - 1]++;
			if (!g->seen[u]) {
				g->seen[u] = 1;
				stack[sp++] = u;
				stack[sp++] = 0;
			}
		} else {
			g->po[v] = cnt;
			g->order[cnt++] = v;
			sp -= 2;
		}
	}
	return cnt;
}

/* the nearest common post-dominator of x and y ("intersect") */
static int cfg_meet(const struct cfg *g, int x, int y)
{
	while (x != y) {
		while (g->po[x] < g->po[y])
			x = g->ipdom[x];
		while (g->po[y] < g->po[x])
			y = g->ipdom[y];
	}
	return x;
}

/* Cooper, Harvey and Kennedy: iterate, in reverse postorder, the
 * meet of each block's processed successors until nothing changes */
static void cfg_ipdom(struct cfg *g, int cnt)
{
	int changed, i;

	for (i = 0; i <= g->nb; i++)
		g->ipdom[i] = -1;
	g->ipdom[g->exitb] = g->exitb;
	do {
		changed = 0;
		for (int j = cnt - 2; j >= 0; j--) {
			int b = g->order[j], nd = -1;

			for (int k = 0; k < 2; k++) {
				int s = g->succ[2 * b + k];

				if (s < 0 || !g->seen[s] || g->ipdom[s] < 0)
					continue;
				nd = nd < 0 ? s : cfg_meet(g, s, nd);
			}
			if (nd >= 0 && g->ipdom[b] != nd) {
				g->ipdom[b] = nd;
				changed = 1;
			}
		}
	} while (changed);
}

int emu_reconv_compute(struct emu_func *f)
{
	struct cfg g = { .n = f->ninsns };
	int i, rc = -1;
	size_t nb;

	if (cfg_blocks(&g, f))
		goto out;
	nb = (size_t)g.nb;
	g.succ = malloc((nb + 1) * 2 * sizeof(int));
	g.ipdom = malloc((nb + 1) * sizeof(int));
	g.po = malloc((nb + 1) * sizeof(int));
	g.order = malloc((nb + 1) * sizeof(int));
	g.stack = malloc((nb + 1) * 2 * sizeof(int));
	g.predn = calloc(nb + 2, sizeof(int));
	g.predoff = calloc(nb + 2, sizeof(int));
	g.preds = malloc((nb + 1) * 2 * sizeof(int));
	g.seen = calloc(nb + 1, 1);
	if (!g.succ || !g.ipdom || !g.po || !g.order || !g.stack ||
	    !g.predn || !g.predoff || !g.preds || !g.seen)
		goto out;
	cfg_edges(&g, f);
	cfg_ipdom(&g, cfg_postorder(&g));
	for (i = 0; i < g.n; i++) {
		int d = g.ipdom[g.blk[i]];

		f->insns[i].rpc = d < 0 || d == g.exitb ? g.n : g.bstart[d];
	}
	rc = 0;
out:
	cfg_release(&g);
	return rc;
}

int emu_func_rpc(const struct emu_func *f, int pc)
{
	if (pc < 0 || pc >= f->ninsns)
		return -1;
	return f->insns[pc].rpc;
}
