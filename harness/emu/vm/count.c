/*
 * Traffic counting, as Nsight Compute counts it: per warp-level access,
 * a global request touches distinct 32-byte sectors; a shared access is
 * split in phases of lanes (EMU_PHASE_LANES) whose wavefronts are the
 * most distinct bank words any one bank serves, and conflicts are the
 * wavefronts beyond one per phase.  Charged to the launch and to the
 * instruction's source line.
 */
#include <string.h>
#include "emu/vm/exec.h"
#include "emu/perf.h"

/* distinct elements of a small array (sorted in place): a warp's
 * addresses are mostly in order already, or in reverse order (a
 * reverse's), which is turned round rather than sorted element by
 * element */
static int count_distinct(uint64_t *v, int n)
{
	int i, j, d = 0, up = 1, down = 1;

	for (i = 1; i < n; i++) {
		up &= v[i] >= v[i - 1];
		down &= v[i] <= v[i - 1];
	}
	if (!up && down) {
		for (i = 0, j = n - 1; i < j; i++, j--) {
			uint64_t k = v[i];

			v[i] = v[j];
			v[j] = k;
		}
	} else if (!up) {
		for (i = 1; i < n; i++) {
			uint64_t k = v[i];

			for (j = i - 1; j >= 0 && v[j] > k; j--)
				v[j + 1] = v[j];
			v[j + 1] = k;
		}
	}
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			d++;
	return d;
}

static int global_sectors(const uint64_t *addr, uint32_t m, int bytes)
{
	uint64_t s[EMU_WARP_SIZE * 2];
	int n = 0;

	LANES({
		uint64_t a = addr[l] >> EMU_SECTOR_SHIFT;
		uint64_t b = (addr[l] + (uint64_t)bytes - 1) >>
			     EMU_SECTOR_SHIFT;

		s[n++] = a;
		if (b != a && n < EMU_WARP_SIZE * 2)
			s[n++] = b;
	});
	return count_distinct(s, n);
}

/* wavefronts of a shared access; *ideal receives the conflict-free
 * count (one per phase of lanes with an active lane) */
static int shared_wavefronts(const uint64_t *addr, uint32_t m, int bytes,
			     int *ideal)
{
	int per = EMU_PHASE_LANES(bytes);
	int words = bytes <= EMU_BANK_BYTES ? 1 : bytes / EMU_BANK_BYTES;
	int total = 0, ph;

	*ideal = 0;
	for (ph = 0; ph < EMU_WARP_SIZE; ph += per) {
		uint32_t pm = m & (per == EMU_WARP_SIZE ? FULL :
				   ((1u << per) - 1) << ph);
		uint64_t w[EMU_WARP_SIZE * 4];
		int n = 0, i, cnt[EMU_BANKS], mx = 0;

		if (!pm)
			continue;
		(*ideal)++;
		for (uint32_t mm = pm; mm; mm &= mm - 1) {
			int l = __builtin_ctz(mm);

			for (i = 0; i < words; i++)
				w[n++] = addr[l] / EMU_BANK_BYTES +
					 (uint64_t)i;
		}
		count_distinct(w, n);
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			if (i == 0 || w[i] != w[i - 1]) {
				int b = (int)(w[i] % EMU_BANKS);

				if (++cnt[b] > mx)
					mx = cnt[b];
			}
		total += mx;
	}
	return total;
}

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

void count_access(struct xctx *x, const struct emu_insn *in,
		  const uint64_t *addr, uint32_t gm, uint32_t sm,
		  int bytes, int kind)
{
	struct wgemu_counters *t = &x->res->total;
	struct wgemu_counters *ln = in->line >= 0 ?
				    &x->lines[in->line].c : NULL;

	if (gm) {
		uint64_t moved = (uint64_t)lanes_in(gm) * (uint64_t)bytes;

		x->gld_bytes += kind != ACC_STORE ? moved : 0;
		x->gst_bytes += kind != ACC_LOAD ? moved : 0;
	}
	if (x->cfg->uncounted)
		return;	/* the bytes moved alone */
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
		uint64_t sa[EMU_WARP_SIZE], dyn = 0, moved;
		uint32_t m = sm;

		LANES({
			sa[l] = (uint32_t)(addr[l] >= EMU_SHARED_WIN ?
					   addr[l] - EMU_SHARED_WIN : addr[l]);
			if (x->cfg->dyn_smem && sa[l] >= x->dyn_base)
				dyn += (uint64_t)bytes;
		});
		wf = shared_wavefronts(sa, sm, bytes, &ideal);
		moved = (uint64_t)lanes_in(sm) * (uint64_t)bytes;
		count_shared(t, kind, (uint64_t)wf, (uint64_t)(wf - ideal),
			     moved, dyn);
		if (x->perf)
			perf_on_shared(x->perf, kind, wf);
		if (ln)
			count_shared(ln, kind, (uint64_t)wf,
				     (uint64_t)(wf - ideal), moved, dyn);
	}
}

void count_staged(struct xctx *x, const struct emu_insn *in, uint32_t bytes)
{
	if (!bytes)
		return;
	x->res->total.dynamic_shared_moved_bytes += bytes;
	if (in->line >= 0)
		x->lines[in->line].c.dynamic_shared_moved_bytes += bytes;
}
