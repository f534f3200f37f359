/*
 * The .sync operations across a warp's lanes: vote (any, all, uni,
 * ballot), redux and match, each over the group of lanes its member
 * mask names (exec.h).
 */
#include "emu/vm/exec.h"

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

void warp_vote(struct xctx *x, struct warp *w, const struct emu_insn *in,
	       uint32_t m, uint64_t *R, uint32_t *P, const struct emu_func *f,
	       uint64_t *tmp)
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
void warp_redux(struct xctx *x, struct warp *w, const struct emu_insn *in,
		uint32_t m, uint64_t *R, const struct emu_func *f, uint64_t *t0,
		uint64_t *t1)
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
void warp_match(struct xctx *x, struct warp *w, const struct emu_insn *in,
		uint32_t m, uint64_t *R, uint32_t *P, const struct emu_func *f,
		uint64_t *tmp)
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
