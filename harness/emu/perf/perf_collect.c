/*
 * The performance model's eyes (perf.h): each warp of a sampled block
 * as a list of events.
 *
 * Caches.  A load's sectors first meet the block's L1: a small
 * set-associative array of sector tags (4 ways, its capacity the L1
 * left beside the shared memory of the blocks resident with it), so a
 * sector that several warps of a block read costs L2 traffic once --
 * which is how one thread per AoS record gets away with strided loads.
 * A sector the block has not touched before comes from DRAM; one it
 * touched and lost from L1 is an L2 hit.  A sector the block reads
 * only partly and whose neighbours it does not touch (a column of a 2D
 * tile: a naive transpose's strided reads, each block a few columns of
 * the same rows) is charged DRAM, at the block's end on the load that
 * brought it, only the bytes the block read or wrote: the blocks that
 * tile the next columns run at about the same time and find the rest
 * in L2.  One in a run of sectors the block reads with holes (a field
 * of an array of records) stays whole: its holes are other passes',
 * long gone from L2 (Nsight Compute's DRAM bytes show both).  Stores
 * go through to L2 (each instruction's sectors), and DRAM is charged
 * the bytes the block writes for the first time, so a sector written a
 * quarter at a time by four warps costs DRAM one sector but L2 four
 * partial writes.  At the block's end its DRAM pages are counted too
 * (count_pages).
 *
 * Dependences.  A load's destination registers are pending until an
 * instruction reads (or overwrites) one of them: there the warp waits
 * for that load, and for every older one, since a warp's loads are
 * taken to complete in order.  The number of loads issued before the
 * first wait is the warp's memory-level parallelism, as executed.
 *
 * Grid barriers.  A cooperative launch's grid.sync() is, in nvcc's
 * code, a block barrier, one thread's atomic on the grid workspace, a
 * loop of loads of it until every block has arrived, and a block
 * barrier: the atomic becomes a PE_GBAR, and the spin that follows,
 * whose length is the emulator's turn order, not the GPU's, is left
 * out of the events until the warp's next barrier.
 *
 * Limits.  A block keeps at most PERF_BLOCK_EVENTS events; past them
 * (a block that does the work of many) its instructions are counted
 * and the rest is not recorded: at its end each warp's list is cut at
 * a barrier every warp reached, and the block's reps say how many
 * times the simulation replays them.  Its table of sectors is an L2
 * of sorts: emptied when full (SECTOR_TABLE_MAX), after which a sector
 * comes from DRAM again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/perf.h"

#define MAX_PENDING 64
#define L1_WAYS 4
/* slots of a block's sector table (16 bytes each): half of them hold
 * 32 MiB of the block's data */
#define SECTOR_TABLE_MAX (1u << 21)

struct pending {
	uint32_t reg, id;
};

/* The sectors a warp's last store wrote only part of: a vector store
 * that nvcc split into scalar ones (four st.global.u32 at +0, +4, +8,
 * +12 a lane) writes each sector a part at a time, one instruction after
 * another, and the GPU takes that at the cost of whole sectors -- an
 * int4 row reverse so written runs on an H100 as fast as one 16-byte
 * store (bench/corpus rev_vec4_*), where each part charged as a partial
 * write made it 3.3 times as slow.  A sector the next store of the warp
 * writes on is counted once, in that store's event. */
#define MAX_OPEN 64

struct open_sectors {
	size_t ev;            /* the warp's event that wrote them, + 1 */
	int n;
	uint64_t s[MAX_OPEN];
	uint32_t m[MAX_OPEN]; /* the bytes written so far */
};

struct warp_state {
	struct open_sectors open;
	struct pending p[MAX_PENDING];
	int np;
	/* registers computed from a loaded value: an address made of one
	 * pins its load in place */
	uint32_t derived[MAX_PENDING];
	int nd, nd_next;
	uint32_t waited;      /* the last load waited for */
	uint32_t next_id;     /* loads issued so far */
	uint32_t issue;       /* instructions not yet in an event */
	int in_gbar;          /* between its grid barrier's arrival and
			       * its next block barrier */
	int retry;            /* its next instruction was seen already
			       * (perf_on_retry) */
};

/* a sector the block touched: its address + 1 (0: empty slot), the
 * bytes it wrote and the bytes it read (one bit a byte), and the load
 * that brought it from DRAM: its warp and event index + 1 (0: none) */
struct sector_slot {
	uint64_t key;
	uint32_t written, read;
	uint32_t ev;
	uint16_t warp;
};

struct perf_collect_state {
	struct warp_state *w;
	int nwarps;
	size_t nev;           /* events kept */
	int cut;              /* PERF_BLOCK_EVENTS reached */
	uint64_t insns;       /* warp instructions, all of them */
	struct sector_slot *tab;
	size_t tab_cap, tab_used;
	uint64_t *l1;         /* sets x L1_WAYS tags (sector + 1) */
	uint16_t *l1_warp;    /* the load that brought it: warp, id */
	uint32_t *l1_id;
	uint32_t *l1_next;    /* round-robin victim per set */
	size_t l1_sets;
};

/* ---- the block's sector table (open addressing, doubling) ---- */

static size_t slot_hash(uint64_t s, size_t cap)
{
	s ^= s >> 29;
	s *= 0xbf58476d1ce4e5b9ull;
	s ^= s >> 32;
	return (size_t)s & (cap - 1);
}

static int tab_grow(struct perf_collect_state *st)
{
	size_t cap = st->tab_cap ? st->tab_cap * 2 : 4096;
	struct sector_slot *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < st->tab_cap; i++) {
		size_t h;

		if (!st->tab[i].key)
			continue;
		h = slot_hash(st->tab[i].key, cap);
		while (t[h].key)
			h = (h + 1) & (cap - 1);
		t[h] = st->tab[i];
	}
	free(st->tab);
	st->tab = t;
	st->tab_cap = cap;
	return 0;
}

/* The slot of sector s, created empty when new; NULL when out of
 * memory.  *fresh says whether it was new. */
static struct sector_slot *sector(struct perf_collect_state *st, uint64_t s,
				  int *fresh)
{
	size_t h;

	if ((st->tab_used + 1) * 2 > st->tab_cap) {
		if (st->tab_cap < SECTOR_TABLE_MAX) {
			if (tab_grow(st))
				return NULL;
		} else {
			memset(st->tab, 0, st->tab_cap * sizeof(*st->tab));
			st->tab_used = 0;
		}
	}
	h = slot_hash(s + 1, st->tab_cap);
	while (st->tab[h].key && st->tab[h].key != s + 1)
		h = (h + 1) & (st->tab_cap - 1);
	*fresh = !st->tab[h].key;
	if (*fresh) {
		st->tab[h].key = s + 1;
		st->tab_used++;
	}
	return &st->tab[h];
}

/* ---- the block's L1 ---- */

/* The way holding sector s when it is in L1 (-1: it is not, and is
 * brought in by load id of warp). */
static long l1_lookup(struct perf_collect_state *st, uint64_t s, int warp,
		      uint32_t id)
{
	size_t set = slot_hash(s, st->l1_sets), v;
	uint64_t *ways = st->l1 + set * L1_WAYS;

	for (int i = 0; i < L1_WAYS; i++)
		if (ways[i] == s + 1)
			return (long)(set * L1_WAYS + (size_t)i);
	v = set * L1_WAYS + st->l1_next[set];
	st->l1[v] = s + 1;
	st->l1_warp[v] = (uint16_t)warp;
	st->l1_id[v] = id;
	st->l1_next[set] = (st->l1_next[set] + 1) % L1_WAYS;
	return -1;
}

/* ---- events ---- */

static struct perf_event *push(struct perf_collect *pc, int warp)
{
	struct perf_block *b = &pc->blocks[pc->cur];
	struct perf_warp *w = &b->warps[warp];
	struct warp_state *ws = &b->st->w[warp];

	if (b->st->nev + 2 > PERF_BLOCK_EVENTS) {
		b->st->cut = 1;
		return NULL;
	}
	b->st->nev += 1 + (ws->issue != 0);
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct perf_event *e = realloc(w->ev, cap * sizeof(*e));

		if (!e)
			return NULL;
		w->ev = e;
		w->cap = cap;
	}
	if (ws->issue) {
		struct perf_event *e = &w->ev[w->n++];

		memset(e, 0, sizeof(*e));
		e->kind = PE_ISSUE;
		e->n = ws->issue;
		ws->issue = 0;
	}
	memset(&w->ev[w->n], 0, sizeof(w->ev[0]));
	return &w->ev[w->n++];
}

static struct perf_collect_state *cur(const struct perf_collect *pc)
{
	return pc->blocks[pc->cur].st;
}

static void emit_wait(struct perf_collect *pc, uint32_t id, int hard)
{
	struct warp_state *ws = &cur(pc)->w[pc->warp];
	struct perf_event *e = push(pc, pc->warp);
	int j = 0;

	if (e) {
		e->kind = PE_WAIT;
		e->lines = (uint8_t)hard;
		e->n = id;
	}
	if (id > ws->waited)
		ws->waited = id;
	for (int i = 0; i < ws->np; i++)
		if (ws->p[i].id > id)
			ws->p[j++] = ws->p[i];
	ws->np = j;
}

/* ---- the collector ---- */

struct perf_collect *perf_collect_new(const struct perf_gpu *g,
				      unsigned threads_per_block,
				      size_t smem_per_block)
{
	struct perf_collect *pc = calloc(1, sizeof(*pc));
	unsigned warps = (threads_per_block + 31) / 32;
	unsigned resident = warps ? (unsigned)g->max_warps_per_sm / warps : 1;
	size_t l1;

	if (!pc)
		return NULL;
	pc->g = g;
	pc->cur = -1;
	if (smem_per_block && resident > g->smem_per_sm /
			      (smem_per_block + g->smem_reserved_per_block))
		resident = (unsigned)(g->smem_per_sm / (smem_per_block +
					g->smem_reserved_per_block));
	if (resident > (unsigned)g->max_blocks_per_sm)
		resident = (unsigned)g->max_blocks_per_sm;
	if (!resident)
		resident = 1;
	/* the L1 the shared memory leaves, shared by the resident blocks */
	l1 = smem_per_block * resident < g->l1_bytes - 32768 ?
	     g->l1_bytes - smem_per_block * resident : 32768;
	pc->l1_sets = 1;
	while (pc->l1_sets * L1_WAYS * PERF_SECTOR * 2 <= l1 / resident)
		pc->l1_sets *= 2;
	return pc;
}

static void state_free(struct perf_collect_state *st)
{
	if (!st)
		return;
	free(st->w);
	free(st->tab);
	free(st->l1);
	free(st->l1_warp);
	free(st->l1_id);
	free(st->l1_next);
	free(st);
}

static struct perf_collect_state *state_new(const struct perf_collect *pc,
					    int nwarps)
{
	struct perf_collect_state *st = calloc(1, sizeof(*st));
	size_t ways = pc->l1_sets * L1_WAYS;

	if (!st)
		return NULL;
	st->nwarps = nwarps;
	st->l1_sets = pc->l1_sets;
	st->w = calloc((size_t)nwarps, sizeof(*st->w));
	st->l1 = calloc(ways, sizeof(*st->l1));
	st->l1_warp = calloc(ways, sizeof(*st->l1_warp));
	st->l1_id = calloc(ways, sizeof(*st->l1_id));
	st->l1_next = calloc(pc->l1_sets, sizeof(*st->l1_next));
	if (!st->w || !st->l1 || !st->l1_next || !st->l1_warp ||
	    !st->l1_id) {
		state_free(st);
		return NULL;
	}
	return st;
}

void perf_collect_free(struct perf_collect *pc)
{
	if (!pc)
		return;
	for (size_t b = 0; b < pc->nblocks; b++) {
		for (int w = 0; w < pc->blocks[b].nwarps; w++)
			free(pc->blocks[b].warps[w].ev);
		free(pc->blocks[b].warps);
		state_free(pc->blocks[b].st);
	}
	free(pc->blocks);
	free(pc);
}

int perf_block_begin(struct perf_collect *pc, uint64_t id, int nwarps)
{
	struct perf_block *b;

	if (pc->nblocks == pc->cap) {
		size_t cap = pc->cap ? pc->cap * 2 : 16;
		struct perf_block *nb = realloc(pc->blocks,
						cap * sizeof(*nb));

		if (!nb)
			return -1;
		pc->blocks = nb;
		pc->cap = cap;
	}
	b = &pc->blocks[pc->nblocks];
	memset(b, 0, sizeof(*b));
	b->warps = calloc((size_t)nwarps, sizeof(*b->warps));
	b->st = state_new(pc, nwarps);
	if (!b->warps || !b->st) {
		free(b->warps);
		state_free(b->st);
		return -1;
	}
	b->nwarps = nwarps;
	b->id = id;
	b->reps = 1;
	pc->cur = (int)pc->nblocks++;
	pc->warp = 0;
	return pc->cur;
}

void perf_block_enter(struct perf_collect *pc, int b)
{
	pc->cur = b;
	pc->warp = 0;
}

#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))

void perf_count_block(struct perf_collect *pc, const struct perf_work *w)
{
	struct perf_work *c = &pc->counted, *m = &pc->most;

	c->lane_insns += w->lane_insns;
	c->ld_sectors += w->ld_sectors;
	c->st_sectors += w->st_sectors;
	c->ld_bytes += w->ld_bytes;
	c->st_bytes += w->st_bytes;
	m->lane_insns = MAX_OF(m->lane_insns, w->lane_insns);
	m->ld_sectors = MAX_OF(m->ld_sectors, w->ld_sectors);
	m->st_sectors = MAX_OF(m->st_sectors, w->st_sectors);
	m->ld_bytes = MAX_OF(m->ld_bytes, w->ld_bytes);
	m->st_bytes = MAX_OF(m->st_bytes, w->st_bytes);
	pc->ncounted++;
}

void perf_stop(struct perf_collect *pc, const char *fmt, ...)
{
	va_list ap;

	if (pc->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(pc->why, sizeof(pc->why), fmt, ap);
	va_end(ap);
}

/* May load event e be issued before event p, which precedes it? */
static int may_pass(const struct perf_event *e, const struct perf_event *p)
{
	switch (p->kind) {
	case PE_ISSUE:
	case PE_GLD:
	case PE_SLD:
		return 1;
	case PE_WAIT:
		return !p->lines;           /* not an address's wait */
	case PE_SST:
		return e->kind == PE_GLD;   /* no alias with global */
	case PE_GST:
		return e->kind == PE_SLD;
	default:
		return 0;                   /* barriers, back edges */
	}
}

#define MAX_HOIST 16 /* loads a compiler keeps in flight, at most */

/*
 * What the compiler's scheduler does to the PTX before it runs: within
 * a loop body, independent loads are issued before the instructions
 * that wait for earlier ones (an unrolled loop's loads all go out
 * first).  Each load moves up past what it may pass, and past at most
 * MAX_HOIST other loads.
 */
static void hoist_loads(struct perf_warp *w)
{
	for (size_t i = 1; i < w->n; i++) {
		struct perf_event e = w->ev[i];
		size_t j = i;
		int loads = 0;

		if (e.kind != PE_GLD && e.kind != PE_SLD)
			continue;
		while (j > 0 && may_pass(&e, &w->ev[j - 1])) {
			if (w->ev[j - 1].kind == PE_GLD ||
			    w->ev[j - 1].kind == PE_SLD) {
				if (++loads > MAX_HOIST)
					break;
			}
			j--;
		}
		/* stay behind the loads already in place above */
		while (j < i && (w->ev[j].kind == PE_GLD ||
				 w->ev[j].kind == PE_SLD))
			j++;
		if (j < i) {
			memmove(&w->ev[j + 1], &w->ev[j],
				(i - j) * sizeof(w->ev[0]));
			w->ev[j] = e;
		}
	}
}

/* A block cut short (PERF_BLOCK_EVENTS): where every warp has a
 * barrier, each warp's list ends after the last barrier all of them
 * reached, so that a replay of the lists stays in step. */
static void cut_at_barrier(struct perf_block *b)
{
	size_t least = SIZE_MAX;

	for (int w = 0; w < b->nwarps; w++) {
		size_t bars = 0;

		for (size_t i = 0; i < b->warps[w].n; i++)
			bars += b->warps[w].ev[i].kind == PE_BAR;
		if (bars < least)
			least = bars;
	}
	if (!least || least == SIZE_MAX)
		return;
	for (int w = 0; w < b->nwarps; w++) {
		struct perf_warp *pw = &b->warps[w];
		size_t bars = 0;

		for (size_t i = 0; i < pw->n; i++)
			if (pw->ev[i].kind == PE_BAR && ++bars == least) {
				pw->n = i + 1;
				break;
			}
	}
}

/* The warp's load ids (one past the highest) and its instructions. */
static uint64_t finish_warp(struct perf_warp *w)
{
	uint64_t insns = 0;

	w->loads = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct perf_event *e = &w->ev[i];

		if (e->kind == PE_ISSUE)
			insns += e->n;
		else if ((e->kind == PE_GLD || e->kind == PE_SLD) &&
			 e->n + 1 > w->loads)
			w->loads = e->n + 1;
	}
	return insns;
}

static void refund_partial_reads(struct perf_block *b,
				 const struct perf_collect_state *st);
static void count_pages(struct perf_block *b,
			const struct perf_collect_state *st);

void perf_block_end(struct perf_collect *pc, int k,
		    const struct perf_work *work)
{
	struct perf_block *b = &pc->blocks[k];
	struct perf_collect_state *st = b->st;
	uint64_t kept = 0;

	pc->cur = k;
	for (int w = 0; w < b->nwarps; w++)
		if (st->w[w].issue && push(pc, w))
			b->warps[w].n--; /* push flushed the issue run */
	refund_partial_reads(b, st);
	count_pages(b, st);
	if (st->cut)
		cut_at_barrier(b);
	for (int w = 0; w < b->nwarps; w++) {
		hoist_loads(&b->warps[w]);
		kept += finish_warp(&b->warps[w]);
	}
	if (st->cut && kept)
		b->reps = (double)st->insns / (double)kept;
	b->work = *work;
	state_free(st);
	b->st = NULL;
	pc->cur = -1;
}

/* Does the instruction read or overwrite register reg? */
static int pending_hit(const struct warp_state *ws, uint32_t reg,
		       uint32_t *id)
{
	int hit = 0;

	for (int i = 0; i < ws->np; i++)
		if (ws->p[i].reg == reg && (!hit || ws->p[i].id > *id)) {
			*id = ws->p[i].id;
			hit = 1;
		}
	return hit;
}

static int is_memory_op(int op)
{
	return op == OP_LD || op == OP_ST || op == OP_ATOM || op == OP_RED ||
	       op == OP_CPASYNC || op == OP_SULD || op == OP_SUST ||
	       op == OP_TEX;
}



static int is_derived(const struct warp_state *ws, uint32_t reg)
{
	for (int i = 0; i < ws->nd; i++)
		if (ws->derived[i] == reg)
			return 1;
	return 0;
}

/* The instruction's destinations are derived from a loaded value when
 * it reads one (or one derived from one), and cease to be otherwise. */
static int track_derived(struct warp_state *ws, const struct emu_insn *in,
			 uint32_t rbase, int read_loaded)
{
	int from = read_loaded, addr = 0;

	for (int i = 0; i < in->nsrc && i < 4 && !from; i++)
		from = in->s[i].kind == OK_REG &&
		       is_derived(ws, rbase + (uint32_t)in->s[i].idx);
	if (is_memory_op(in->op) && in->ak == AK_REG && in->areg >= 0)
		addr = is_derived(ws, rbase + (uint32_t)in->areg);
	for (int i = 0; i < in->ndst && i < 4; i++) {
		uint32_t r = rbase + (uint32_t)in->d[i].idx;

		if (in->d[i].kind != OK_REG)
			continue;
		if (from && !is_derived(ws, r)) {
			ws->derived[ws->nd_next] = r;
			ws->nd_next = (ws->nd_next + 1) % MAX_PENDING;
			if (ws->nd < MAX_PENDING)
				ws->nd++;
		} else if (!from) {
			for (int j = 0; j < ws->nd; j++)
				if (ws->derived[j] == r)
					ws->derived[j] = UINT32_MAX;
		}
	}
	return addr;
}

/* The youngest pending load the instruction reads or overwrites
 * through an operand; 1 when there is one. */
static int operand_wait(const struct warp_state *ws,
			const struct emu_insn *in, uint32_t rbase,
			uint32_t *need)
{
	uint32_t id = 0;
	int any = 0;

	for (int i = 0; i < in->nsrc && i < 4; i++)
		if (in->s[i].kind == OK_REG &&
		    pending_hit(ws, rbase + (uint32_t)in->s[i].idx, &id) &&
		    (!any || id > *need)) {
			*need = id;
			any = 1;
		}
	for (int i = 0; i < in->ndst && i < 4; i++)
		if (in->d[i].kind == OK_REG &&
		    pending_hit(ws, rbase + (uint32_t)in->d[i].idx, &id) &&
		    (!any || id > *need)) {
			*need = id;
			any = 1;
		}
	return any;
}

/*
 * The machine instructions the GPU issues for one PTX instruction: most
 * are one, but ptxas expands a few into several (sm_90 SASS), and issue
 * slots are spent per machine instruction (Nsight Compute's
 * smsp__inst_executed).  An integer division or remainder by a value
 * not known at compile time is a reciprocal in floating point and a
 * chain of integer corrections (I2F, MUFU.RCP, F2I, IMADs, compares and
 * selects: g->udiv_insns of them, g->sdiv_insns signed), a 64-bit
 * one a longer subroutine (three times as many, as counted here);
 * 64-bit integer arithmetic is done in 32-bit halves with a carry.  A
 * kernel parameter is an operand read from the constant bank and a
 * conversion of a global address to generic is nothing on sm_90, so
 * neither issues an instruction of its own.
 */
static unsigned machine_insns(const struct perf_gpu *g,
			      const struct emu_insn *in)
{
	int wide = emu_type_size[in->type] == 8;
	char kind = emu_type_kind[in->type];
	int integer = kind == 'u' || kind == 's' || kind == 'b';

	switch (in->op) {
	case OP_DIV:
	case OP_REM:
		if (!integer)
			return 1;
		return (unsigned)((kind == 's' ? g->sdiv_insns :
					  g->udiv_insns) * (wide ? 3 : 1) + 0.5);
	case OP_ADD:
	case OP_SUB:
	case OP_SHL:
	case OP_SHR:
		return integer && wide ? 2 : 1;
	case OP_MUL:
	case OP_MAD:
		return integer && wide && !(in->flags & F_WIDE) ? 3 : 1;
	case OP_CVTA:
		return 0;
	case OP_LD:
		return in->space == SP_KPARAM || in->space == SP_PARAM ? 0 : 1;
	default:
		return 1;
	}
}

void perf_on_insn(struct perf_collect *pc, int warp,
		  const struct emu_insn *in, uint32_t rbase)
{
	struct perf_collect_state *st = cur(pc);
	struct warp_state *ws = &st->w[warp];
	uint32_t need = 0, id = 0;
	int any, hard;

	pc->warp = warp;
	pc->rbase = rbase;
	if (ws->retry) {
		ws->retry = 0;
		return;
	}
	if (ws->in_gbar)
		return;
	st->insns++;
	if (st->cut)
		return;
	ws->issue += machine_insns(pc->g, in);
	if (!ws->np && !ws->nd)
		return;
	any = ws->np && operand_wait(ws, in, rbase, &need);
	/* an address that is, or is computed from, a loaded value pins the
	 * access below the wait for it */
	hard = track_derived(ws, in, rbase, any);
	if (is_memory_op(in->op) && in->ak == AK_REG && in->areg >= 0 &&
	    pending_hit(ws, rbase + (uint32_t)in->areg, &id)) {
		hard = 1;
		if (!any || id > need)
			need = id;
		any = 1;
	}
	if (hard && (!any || ws->waited > need))
		need = ws->waited;
	if (any || hard)
		emit_wait(pc, need, hard);
}

void perf_on_retry(struct perf_collect *pc, int warp)
{
	cur(pc)->w[warp].retry = 1;
}

/* The distinct sectors of a warp's access, sorted; their count. */
static int distinct_sectors(const uint64_t *addr, uint32_t m, int bytes,
			    uint64_t *s)
{
	int n = 0;

	for (int l = 0; l < 32; l++) {
		if (!(m >> l & 1))
			continue;
		for (uint64_t x = addr[l] / PERF_SECTOR;
		     x <= (addr[l] + (uint64_t)bytes - 1) / PERF_SECTOR &&
		     n < 64; x++)
			s[n++] = x;
	}
	for (int i = 1; i < n; i++) {
		uint64_t v = s[i];
		int j = i;

		while (j > 0 && s[j - 1] > v) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = v;
	}
	{
		int k = 0;

		for (int i = 0; i < n; i++)
			if (!k || s[k - 1] != s[i])
				s[k++] = s[i];
		n = k;
	}
	return n;
}

static int distinct_lines(const uint64_t *s, int n)
{
	int lines = 0;

	for (int i = 0; i < n; i++)
		if (!i || s[i] / 4 != s[i - 1] / 4)
			lines++;
	return lines;
}

/* The bytes of sector s that the active lanes write, as a mask. */
static uint32_t write_mask(const uint64_t *addr, uint32_t m, int bytes,
			   uint64_t s)
{
	uint64_t lo = s * PERF_SECTOR, hi = lo + PERF_SECTOR;
	uint32_t mask = 0;

	for (int l = 0; l < 32; l++) {
		uint64_t a, e;

		if (!(m >> l & 1))
			continue;
		a = addr[l] > lo ? addr[l] : lo;
		e = addr[l] + (uint64_t)bytes < hi ? addr[l] + (uint64_t)bytes
						   : hi;
		for (; a < e; a++)
			mask |= 1u << (a - lo);
	}
	return mask;
}

/* A load's sector that missed L1: the bytes it brings from DRAM, the
 * whole sector where the block never touched it (its loads record the
 * load as ev, the index + 1 of its event in warp's list). */
static unsigned read_fetch(struct sector_slot *t, int fresh, int warp,
			   size_t ev)
{
	if (!t)
		return fresh ? PERF_SECTOR : 0;
	if (!fresh)
		return 0;
	t->ev = (uint32_t)ev;
	t->warp = (uint16_t)warp;
	return PERF_SECTOR;
}

/* Did the block touch the sector whose key (address + 1) is key? */
static int touched(const struct perf_collect_state *st, uint64_t key)
{
	size_t h = slot_hash(key, st->tab_cap);

	while (st->tab[h].key && st->tab[h].key != key)
		h = (h + 1) & (st->tab_cap - 1);
	return key && st->tab[h].key == key;
}

/*
 * At the block's end: each sector a load brought from DRAM that the
 * block used only part of, and none of whose two neighbours it
 * touched, costs DRAM only that part, taken off the load's charge --
 * the blocks that read the rest (the neighbouring columns) find it in
 * L2.  (Sectors lost when the table was emptied stay whole.)
 */
static void refund_partial_reads(struct perf_block *b,
				 const struct perf_collect_state *st)
{
	for (size_t i = 0; i < st->tab_cap; i++) {
		const struct sector_slot *t = &st->tab[i];
		struct perf_warp *pw;
		struct perf_event *e;
		unsigned unused;

		if (!t->key || !t->ev || t->warp >= b->nwarps ||
		    touched(st, t->key + 1) || touched(st, t->key - 1))
			continue;
		pw = &b->warps[t->warp];
		if (t->ev > pw->n || pw->ev[t->ev - 1].kind != PE_GLD)
			continue;
		e = &pw->ev[t->ev - 1];
		unused = (PERF_SECTOR - (unsigned)__builtin_popcount(
				t->read | t->written)) / 4;
		e->dram = (uint16_t)(e->dram > unused ? e->dram - unused : 0);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * At the block's end: its DRAM bytes, and the DRAM pages it touched
 * only part of.  Where the blocks that touch the rest of such a page
 * run in step -- neighbours in launch order, resident together -- the
 * page is opened once for all of them; where they do not (long-lived
 * blocks of a grid-stride loop, each at its own pace), each opens it
 * for its own few sectors (perf_sim.c, page_surcharge).  Counted from
 * the sector table (sectors lost when it was emptied are not).
 */
static void count_pages(struct perf_block *b,
			const struct perf_collect_state *st)
{
	const uint64_t per_page = PERF_DRAM_PAGE / PERF_SECTOR;
	uint64_t *page = malloc((st->tab_used + 1) * sizeof(*page));
	size_t n = 0, run = 0;

	b->dram_bytes = 0;
	for (int w = 0; w < b->nwarps; w++)
		for (size_t i = 0; i < b->warps[w].n; i++) {
			const struct perf_event *e = &b->warps[w].ev[i];

			if (e->kind == PE_GLD || e->kind == PE_GST)
				b->dram_bytes += 4.0 * e->dram;
		}
	b->part_pages = 0;
	if (!page)
		return;
	for (size_t i = 0; i < st->tab_cap && n <= st->tab_used; i++)
		if (st->tab[i].key)
			page[n++] = (st->tab[i].key - 1) / per_page;
	qsort(page, n, sizeof(*page), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		run++;
		if (i + 1 == n || page[i + 1] != page[i]) {
			b->part_pages += run < per_page;
			run = 0;
		}
	}
	free(page);
}

/* An access to the grid workspace: a grid barrier's arrival (its
 * atomic) or its spin, which the events leave out.  1 when it was. */
static int grid_barrier(struct perf_collect *pc, struct warp_state *ws,
			int kind, const uint64_t *addr, uint32_t m)
{
	uint64_t a = addr[__builtin_ctz(m)];
	struct perf_event *e;

	if (!pc->grid_ws || a < pc->grid_ws || a >= pc->grid_ws + 16)
		return 0;
	if (kind == 2 && !ws->in_gbar && (e = push(pc, pc->warp))) {
		e->kind = PE_GBAR;
		ws->in_gbar = 1;
	}
	return 1;
}

/* The mask of sector x in the warp's open sectors (open_sectors), and
 * its place; -1 when it is not open. */
static int open_find(const struct open_sectors *o, uint64_t x)
{
	for (int j = 0; j < o->n; j++)
		if (o->s[j] == x)
			return j;
	return -1;
}

/* A store's sectors against the warp's open ones: into *l2 and *partial
 * its own count, the sectors it carries on from the previous store taken
 * out of that store's event (so counted once), and the open set
 * replaced by what this store leaves partial.  ev is its event's index,
 * pushed already. */
static void merge_open(struct perf_collect *pc, struct warp_state *ws,
		       const uint64_t *s, const uint32_t *w, int n,
		       size_t ev, int *l2, unsigned *partial)
{
	struct perf_warp *pw = &pc->blocks[pc->cur].warps[pc->warp];
	struct perf_event *prev = ws->open.ev ? &pw->ev[ws->open.ev - 1] :
						NULL;
	struct open_sectors next;

	next.ev = ev + 1;
	next.n = 0;
	for (int i = 0; i < n; i++) {
		int j = prev ? open_find(&ws->open, s[i]) : -1;
		uint32_t all = w[i] | (j >= 0 ? ws->open.m[j] : 0);

		if (j >= 0 && prev->l2 && prev->partial) {
			prev->l2--;
			prev->partial--;
		}
		(*l2)++;
		if (all != 0xffffffffu) {
			(*partial)++;
			if (next.n < MAX_OPEN) {
				next.s[next.n] = s[i];
				next.m[next.n++] = all;
			}
		}
	}
	/* only what is set: most stores leave nothing open */
	ws->open.ev = next.ev;
	ws->open.n = next.n;
	memcpy(ws->open.s, next.s, (size_t)next.n * sizeof(next.s[0]));
	memcpy(ws->open.m, next.m, (size_t)next.n * sizeof(next.m[0]));
}

void perf_on_global(struct perf_collect *pc, int kind,
		    const uint64_t *addr, uint32_t m, int bytes)
{
	struct perf_collect_state *st = cur(pc);
	struct warp_state *ws = &st->w[pc->warp];
	uint64_t s[64];
	uint32_t wmask[64];
	int n, l2 = 0, fresh = 0;
	unsigned dram = 0, partial = 0;
	size_t at;
	long hit = -1;
	struct perf_event *e;

	if (st->cut || !m || grid_barrier(pc, ws, kind, addr, m))
		return;
	ws->in_gbar = 0;
	n = distinct_sectors(addr, m, bytes, s);
	/* this access's event index + 1, once pushed */
	at = pc->blocks[pc->cur].warps[pc->warp].n + (ws->issue != 0) + 1;
	for (int i = 0; i < n; i++) {
		struct sector_slot *t = sector(st, s[i], &fresh);

		if (t && kind != 1)
			t->read |= write_mask(addr, m, bytes, s[i]);

		if (kind == 1) {
			uint32_t w = write_mask(addr, m, bytes, s[i]);

			if (t) {
				dram += (unsigned)__builtin_popcount(
					w & ~t->written);
				t->written |= w;
			}
			wmask[i] = w;
		} else if (kind == 2) {
			l2++;
			dram += read_fetch(t, fresh, pc->warp, at);
		} else {
			long h = l1_lookup(st, s[i], pc->warp, ws->next_id);

			if (h < 0) {
				l2++;
				dram += read_fetch(t, fresh, pc->warp, at);
			} else {
				hit = h;
			}
		}
	}
	e = push(pc, pc->warp);
	if (!e)
		return;
	if (kind == 1)
		merge_open(pc, ws, s, wmask, n,
			   pc->blocks[pc->cur].warps[pc->warp].n - 1, &l2,
			   &partial);
	e->lines = (uint8_t)distinct_lines(s, n);
	e->l2 = (uint16_t)l2;
	if (kind == 1) {
		e->kind = PE_GST;
		e->dram = (uint16_t)((dram + 3) / 4);
		e->partial = (uint16_t)partial;
	} else {
		e->kind = PE_GLD;
		e->dram = (uint16_t)((dram + 3) / 4);
		e->n = ws->next_id++;
		if (hit >= 0) {
			/* its hits arrive with the load that brought them */
			e->partial = (uint16_t)(st->l1_warp[hit] + 1);
			e->dep = st->l1_id[hit];
		}
	}
}

void perf_on_shared(struct perf_collect *pc, int kind, int wavefronts)
{
	struct warp_state *ws = &cur(pc)->w[pc->warp];
	struct perf_event *e;

	if (cur(pc)->cut || ws->in_gbar || !(e = push(pc, pc->warp)))
		return;
	e->lines = (uint8_t)(wavefronts > 255 ? 255 : wavefronts);
	if (kind == 0) {
		e->kind = PE_SLD;
		e->n = ws->next_id++;
	} else {
		e->kind = PE_SST;
	}
}

void perf_on_load_dst(struct perf_collect *pc, const struct emu_insn *in)
{
	struct warp_state *ws = &cur(pc)->w[pc->warp];
	uint32_t id;

	if (!ws->next_id || ws->in_gbar || cur(pc)->cut)
		return;
	id = ws->next_id - 1;
	for (int i = 0; i < in->ndst && i < 4; i++) {
		if (in->d[i].kind != OK_REG)
			continue;
		if (ws->np == MAX_PENDING)
			emit_wait(pc, ws->p[0].id, 0);
		ws->p[ws->np].reg = pc->rbase + (uint32_t)in->d[i].idx;
		ws->p[ws->np].id = id;
		ws->np++;
	}
}

void perf_on_backedge(struct perf_collect *pc)
{
	struct perf_event *e;

	if (cur(pc)->w[pc->warp].in_gbar || cur(pc)->cut)
		return;
	e = push(pc, pc->warp);
	if (e)
		e->kind = PE_LOOP;
}

void perf_on_barrier(struct perf_collect *pc)
{
	struct perf_event *e;

	cur(pc)->w[pc->warp].in_gbar = 0;
	if (cur(pc)->cut)
		return;
	e = push(pc, pc->warp);
	if (e)
		e->kind = PE_BAR;
}
