/*
 * Reconvergence: where the lanes of a warp that took different paths at
 * a branch run together again.  The scheme is the immediate
 * post-dominator (IPDOM) stack of GPU simulators: at a divergent branch
 * the warp's top SIMT entry becomes the reconvergence entry, waiting at
 * the branch's immediate post-dominator, and the two paths are pushed
 * above it, each to run until it reaches that pc.
 */
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
