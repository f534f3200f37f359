/*
 * mbarrier objects (cuda::barrier, the pipeline and TMA primitives): a
 * 64-bit word of shared memory holding, as the PTX ISA describes it, the
 * current phase, the pending and expected arrival counts and the
 * transaction count.  A phase completes when its pending count and its
 * transaction count are both 0: the phase advances, pending becomes the
 * expected count again (less the arrivals dropped), and the block's race
 * epoch advances, since what threads wrote before arriving is what the
 * waiters may read.  Waits do not block: a wait that fails makes the
 * warp give way (sched.c runs the others and comes back), and a block
 * whose every warp keeps failing its waits with no mbarrier changing is
 * a deadlock.  Lanes act in lane order, as atomics do.
 *
 * The word's layout is the emulator's own (the ISA calls it opaque):
 * bits 0-20 pending, 21-41 expected, 42-62 the transaction count (signed:
 * complete_tx may come before expect_tx), 63 the phase's parity.  The
 * state an arrive returns: the parity of its phase in bit 63 and the
 * pending count before it in bits 0-20 (mbarrier.pending_count).
 *
 * cp.async.mbarrier.arrive makes a barrier wait for the thread's
 * cp.async copies, which here are done when issued: its arrive-on is at
 * once, and without .noinc it is matched by the pending count's
 * increment, so only the .noinc form changes the barrier.
 */
#include "emu/vm/exec.h"

#define MB_BITS 21
#define MB_MASK ((1u << MB_BITS) - 1)
/* the largest count init, arrive and the transaction operations take */
#define MB_MAX_COUNT ((1u << 20) - 1)

struct mbar {
	uint32_t pending, expected;
	int32_t tx;
	unsigned phase;
};

static struct mbar mb_get(const uint8_t *p)
{
	struct mbar b;
	uint64_t v;
	uint32_t t;

	memcpy(&v, p, 8);
	b.pending = (uint32_t)v & MB_MASK;
	b.expected = (uint32_t)(v >> MB_BITS) & MB_MASK;
	t = (uint32_t)(v >> (2 * MB_BITS)) & MB_MASK;
	b.tx = (int32_t)(t << (32 - MB_BITS)) >> (32 - MB_BITS);
	b.phase = (unsigned)(v >> 63);
	return b;
}

static void mb_put(uint8_t *p, const struct mbar *b)
{
	uint64_t v = (uint64_t)(b->pending & MB_MASK) |
		     (uint64_t)(b->expected & MB_MASK) << MB_BITS |
		     (uint64_t)((uint32_t)b->tx & MB_MASK) << (2 * MB_BITS) |
		     (uint64_t)(b->phase & 1) << 63;

	memcpy(p, &v, 8);
}

/* b's transaction count plus d, 0 or -1 (a fault of lane l) when it
 * leaves the range the ISA gives it, +-(2^20 - 1) */
static int mb_tx_add(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     int l, struct mbar *b, int64_t d)
{
	int64_t t = (int64_t)b->tx + d;

	if (t > (int64_t)MB_MAX_COUNT || t < -(int64_t)MB_MAX_COUNT)
		return emu_fault(x, WGEMU_FAULT_BARRIER, in, w->id, l,
				 "mbarrier: transaction count %lld out of "
				 "range", (long long)t);
	b->tx = (int32_t)t;
	return 0;
}

/* the phase is over when nothing more is pending */
static void mb_settle(struct xctx *x, struct mbar *b)
{
	if (b->pending || b->tx)
		return;
	b->phase ^= 1;
	b->pending = b->expected;
	sched_new_epoch(x);
}

/* arrive and arrive_drop of lane l: count arrivals (1 with .expect_tx,
 * whose operand is the transaction bytes) */
static int mb_arrive(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     int l, uint8_t *p, uint32_t n, uint64_t *state)
{
	struct mbar b = mb_get(p);
	uint32_t count = in->cmp & MBF_EXPECT_TX ? 1 : n;

	if ((in->cmp & MBF_EXPECT_TX) && mb_tx_add(x, w, in, l, &b, n))
		return -1;
	if (count > b.pending || (in->sub == MB_ARRIVE_DROP &&
				  count > b.expected))
		return emu_fault(x, WGEMU_FAULT_BARRIER, in, w->id, l,
				 "mbarrier: %u arrivals where %u are pending "
				 "(more arrivals than the count it was "
				 "initialised with)", count, b.pending);
	*state = (uint64_t)b.phase << 63 | b.pending;
	b.pending -= count;
	if (in->sub == MB_ARRIVE_DROP)
		b.expected -= count;
	if (!b.pending && !b.tx && (in->cmp & MBF_NOCOMPLETE))
		return emu_fault(x, WGEMU_FAULT_BARRIER, in, w->id, l,
				 "mbarrier: an arrive.noComplete completed the "
				 "phase");
	mb_settle(x, &b);
	mb_put(p, &b);
	return 0;
}

/* inval, expect_tx, complete_tx of lane l with operand n */
static int mb_update(struct xctx *x, struct warp *w, const struct emu_insn *in,
		     int l, uint8_t *p, uint32_t n)
{
	struct mbar b = mb_get(p);

	switch (in->sub) {
	case MB_INVAL:
		memset(&b, 0, sizeof(b));
		break;
	case MB_EXPECT_TX:
		if (mb_tx_add(x, w, in, l, &b, n))
			return -1;
		break;
	default:	/* complete_tx */
		if (mb_tx_add(x, w, in, l, &b, -(int64_t)n))
			return -1;
		mb_settle(x, &b);
		break;
	}
	mb_put(p, &b);
	return 0;
}

/* mbarrier.init: a store of the initial word (no read of it before, and
 * threads that all initialise it alike do not race: race.c) */
static int mb_init(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const uint64_t *S)
{
	uint8_t vals[EMU_WARP_SIZE][EMU_MAX_ACCESS_BYTES];
	uint8_t *hp[EMU_WARP_SIZE];

	LANES({
		uint32_t n = (uint32_t)S[l];
		struct mbar b = { n, n, 0, 0 };

		if (!n || n > MB_MAX_COUNT)
			return emu_fault(x, WGEMU_FAULT_BARRIER, in, w->id, l,
					 "mbarrier.init with a count of %u "
					 "(1 to %u)", n, MB_MAX_COUNT);
		mb_put(vals[l], &b);
	});
	if (mem_shared_lanes(x, w, in, m, R, 8,
			     (const uint8_t (*)[EMU_MAX_ACCESS_BYTES])vals, hp))
		return -1;
	x->mbar_changes++;
	LANES(memcpy(hp[l], vals[l], 8));
	return 0;
}

/* test_wait and try_wait: whether the phase of each lane's state (or of
 * the parity operand) has completed; the lanes whose has not */
static uint32_t mb_wait(const struct emu_insn *in, uint32_t m, uint8_t **hp,
			const uint64_t *S, uint32_t *P)
{
	uint32_t done = 0;

	LANES({
		unsigned par = in->cmp & MBF_PARITY ? (unsigned)S[l] & 1 :
			       (unsigned)(S[l] >> 63);

		if (mb_get(hp[l]).phase != par)
			done |= 1u << l;
	});
	pred_set(P, &in->d[0], m, done);
	return m & ~done;
}

int mbar_exec(struct xctx *x, struct warp *w, const struct emu_insn *in,
	      uint32_t m, uint64_t *R, uint32_t *P, const struct emu_func *f)
{
	uint64_t t0[EMU_WARP_SIZE], *D;
	uint8_t *hp[EMU_WARP_SIZE];
	const uint64_t *S = in->nsrc ? exec_src(x, w, R, f, &in->s[0], t0) :
				       NULL;

	if (in->sub == MB_PENDING) {
		D = dst(x, R, &in->d[0]);
		LANES(D[l] = S[l] & MB_MASK);
		return 0;
	}
	if (in->sub == MB_INIT)
		return mb_init(x, w, in, m, R, S);
	if (mem_shared_lanes(x, w, in, m, R, 8, NULL, hp))
		return -1;
	if (in->sub == MB_TEST_WAIT || in->sub == MB_TRY_WAIT)
		return mb_wait(in, m, hp, S, P) ? 1 : 0;
	x->mbar_changes++;
	if (in->sub == MB_ARRIVE || in->sub == MB_ARRIVE_DROP) {
		D = dst(x, R, &in->d[0]);
		LANES({
			if (mb_arrive(x, w, in, l, hp[l],
				      S ? (uint32_t)S[l] : 1, &D[l]))
				return -1;
		});
		return 0;
	}
	LANES({
		if (mb_update(x, w, in, l, hp[l], S ? (uint32_t)S[l] : 0))
			return -1;
	});
	return 0;
}

int mbar_cp_arrive(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R)
{
	struct emu_insn a = *in;
	uint8_t *hp[EMU_WARP_SIZE];
	uint64_t state;

	a.op = OP_MBAR;
	a.sub = MB_ARRIVE;
	a.cmp = 0;
	if (mem_shared_lanes(x, w, &a, m, R, 8, NULL, hp))
		return -1;
	if (!(in->cmp & MBF_NOINC))
		return 0;
	x->mbar_changes++;
	LANES({
		if (mb_arrive(x, w, &a, l, hp[l], 1, &state))
			return -1;
	});
	return 0;
}

int mbar_bulk_done(struct xctx *x, struct warp *w, const struct emu_insn *in,
		   uint32_t m, uint64_t *R, const struct emu_func *f)
{
	struct emu_insn a = *in;
	uint64_t t0[EMU_WARP_SIZE];
	const uint64_t *N = exec_src(x, w, R, f, &in->s[1], t0);
	uint8_t *hp[EMU_WARP_SIZE];

	/* the mbarrier's address, as mem_shared_lanes reads one */
	a.op = OP_MBAR;
	a.sub = MB_COMPLETE_TX;
	a.space = SP_SHARED;
	a.aoff = 0;
	a.ak = in->s[2].kind == OK_SYM ? AK_SYM : AK_REG;
	a.areg = a.asym = in->s[2].idx;
	if (mem_shared_lanes(x, w, &a, m, R, 8, NULL, hp))
		return -1;
	x->mbar_changes++;
	LANES({
		if (mb_update(x, w, &a, l, hp[l], (uint32_t)N[l]))
			return -1;
	});
	return 0;
}
