/*
 * The runtime's side of the performance model (perf.h, wgemu.h): while
 * a prediction is open, every launch is sampled and simulated on the
 * chosen GPU, and copies and memsets are charged what they move.  The
 * prediction's plan -- the sample's seed, whether to extend every
 * launch's sample, its cap on interpretation -- goes to each launch's
 * collector; the first launch that has no prediction stops it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/perf.h"
#include "emu/perf/runtime_perf.h"
#include "emu/wgemu.h"

#define MAX_REGS 256   /* kernels with a register count */

static struct {
	const struct perf_gpu *g;   /* NULL: off */
	int only;
	struct wgemu_perf_launch *v;
	size_t n, cap;
	double total_ms;
	struct {
		char *name;
		unsigned regs;
	} regs[MAX_REGS];
	size_t nregs;
	int keep;
	int program;                /* opened from $WGEMU_PREDICT */
	/* the plan (wgemu_perf_sample) and what was interpreted */
	uint64_t seed, budget, spent;
	int extend;
	char why[256];              /* no prediction: why ("" while none) */
	struct kept {
		struct perf_collect *pc;
		struct perf_launch l;
	} *kept;
	size_t nkept, capkept;
} P;

void emu_perf_keep(int on)
{
	P.keep = on;
}

size_t emu_perf_kept_count(void)
{
	return P.nkept;
}

const struct perf_collect *emu_perf_kept(size_t i, struct perf_launch *l)
{
	if (i >= P.nkept)
		return NULL;
	*l = P.kept[i].l;
	return P.kept[i].pc;
}

/* 1 when pc is now kept (and must not be freed). */
static int keep(struct perf_collect *pc, const struct perf_launch *l)
{
	if (!P.keep)
		return 0;
	if (P.nkept == P.capkept) {
		size_t cap = P.capkept ? P.capkept * 2 : 64;
		struct kept *k = realloc(P.kept, cap * sizeof(*k));

		if (!k)
			return 0;
		P.kept = k;
		P.capkept = cap;
	}
	P.kept[P.nkept].pc = pc;
	P.kept[P.nkept++].l = *l;
	return 1;
}

int wgemu_perf_begin(const char *gpu, int sampled_only)
{
	const struct perf_gpu *g = perf_gpu_find(gpu ? gpu : "H100");

	if (!g)
		return -1;
	P.g = g;
	P.only = sampled_only;
	P.n = 0;
	P.total_ms = 0;
	P.seed = 0;
	P.extend = 0;
	P.budget = PERF_PREDICTION_CAP;
	P.spent = 0;
	P.why[0] = '\0';
	return 0;
}

void wgemu_perf_sample(uint64_t seed, int extend, uint64_t budget)
{
	P.seed = seed;
	P.extend = extend;
	P.budget = budget ? budget : PERF_PREDICTION_CAP;
}

uint64_t wgemu_perf_interpreted(void)
{
	return P.spent;
}

const char *wgemu_perf_why(void)
{
	return P.g && P.why[0] ? P.why : NULL;
}

int wgemu_perf_coverage(double in_bytes, double out_bytes, char *why,
			size_t len)
{
	double ld = 0, st = 0;
	int store;

	for (size_t i = 0; i < P.n; i++) {
		ld += P.v[i].load_bytes;
		st += P.v[i].store_bytes;
	}
	if (st >= PERF_COVERAGE * out_bytes && ld >= PERF_COVERAGE * in_bytes)
		return 0;
	store = st < PERF_COVERAGE * out_bytes;
	snprintf(why, len, "the performance call's launches, as sampled, "
		 "%s %.1f MiB of the %.0f MiB %s: the sample does not show "
		 "where the work is done", store ? "store" : "load",
		 (store ? st : ld) / 1048576,
		 (store ? out_bytes : in_bytes) / 1048576,
		 store ? "output" : "input");
	return 1;
}

void wgemu_perf_end(void)
{
	P.g = NULL;
}

double wgemu_perf_total_ms(void)
{
	return P.total_ms;
}

size_t wgemu_perf_count(void)
{
	return P.n;
}

int wgemu_perf_get(size_t i, struct wgemu_perf_launch *out)
{
	if (i >= P.n)
		return -1;
	*out = P.v[i];
	return 0;
}

const char *wgemu_perf_gpu(void)
{
	return P.g ? P.g->long_name : NULL;
}

void wgemu_perf_regs(const char *mangled, unsigned regs)
{
	for (size_t i = 0; i < P.nregs; i++)
		if (!strcmp(P.regs[i].name, mangled)) {
			P.regs[i].regs = regs;
			return;
		}
	if (P.nregs < MAX_REGS && (P.regs[P.nregs].name = strdup(mangled)))
		P.regs[P.nregs++].regs = regs;
}

/* The counts 'warpgrade emu' got from ptxas for the program
 * ($WGEMU_REGS, wgemu.h): a line "<regs>\t<mangled name>" a kernel;
 * other lines are skipped, and a file that cannot be read gives none
 * (32 assumed). */
static void load_regs(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *end;
		unsigned long n = strtoul(line, &end, 10);

		line[strcspn(line, "\n")] = '\0';
		if (!tab || end != tab || !n || n > 255 || !tab[1])
			continue;
		wgemu_perf_regs(tab + 1, (unsigned)n);
	}
	fclose(f);
}

static unsigned regs_of(const char *mangled)
{
	for (size_t i = 0; i < P.nregs; i++)
		if (!strcmp(P.regs[i].name, mangled))
			return P.regs[i].regs;
	return 0;
}

int emu_perf_on(void)
{
	return P.g != NULL;
}

int emu_perf_only(void)
{
	return P.g && P.only;
}

static struct wgemu_perf_launch *add(void)
{
	if (P.n == P.cap) {
		size_t cap = P.cap ? P.cap * 2 : 16;
		struct wgemu_perf_launch *v = realloc(P.v, cap * sizeof(*v));

		if (!v)
			return NULL;
		P.v = v;
		P.cap = cap;
	}
	memset(&P.v[P.n], 0, sizeof(P.v[0]));
	return &P.v[P.n++];
}

/* A program run by 'warpgrade emu' with $WGEMU_PREDICT naming a GPU has
 * its launches predicted, all its blocks run, up to this many. */
#define PROGRAM_MAX_PREDICTIONS 1000

struct perf_collect *emu_perf_prepare(struct emu_launch_cfg *cfg,
				      size_t static_smem)
{
	static int env_checked;
	unsigned threads;

	if (!P.g && !env_checked) {
		const char *gpu = getenv("WGEMU_PREDICT");

		env_checked = 1;
		if (gpu && *gpu && wgemu_perf_begin(gpu, 0) == 0) {
			P.program = 1;
			if (getenv("WGEMU_REGS"))
				load_regs(getenv("WGEMU_REGS"));
		}
	}
	if (!P.g || (P.program && P.n >= PROGRAM_MAX_PREDICTIONS))
		return NULL;
	threads = cfg->block[0] * cfg->block[1] * cfg->block[2];
	cfg->perf = perf_collect_new(P.g, threads,
				     static_smem + cfg->dyn_smem);
	cfg->perf_only = P.only;
	if (!cfg->perf)
		return NULL;
	cfg->perf->seed = P.seed;
	cfg->perf->extend = P.extend;
	cfg->perf->left = P.budget > P.spent ? P.budget - P.spent : 0;
	cfg->perf->block_cap = PERF_BLOCK_CAP;
	if (P.only && P.why[0])
		perf_stop(cfg->perf, "%s", P.why); /* nothing runs */
	return cfg->perf;
}

double emu_perf_finish(struct perf_collect *pc, const char *mangled,
		       const char *demangled,
		       const struct emu_launch_cfg *cfg, size_t static_smem,
		       char *limit, size_t limitlen, unsigned *regs)
{
	struct perf_launch l;
	struct perf_estimate e;
	struct wgemu_perf_launch *r;
	double ms = -1;

	if (!pc)
		return -1;
	memset(&l, 0, sizeof(l));
	l.nblocks = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
	l.threads = cfg->block[0] * cfg->block[1] * cfg->block[2];
	l.smem = static_smem + cfg->dyn_smem;
	l.regs = regs_of(mangled);
	P.spent += pc->counted.lane_insns;
	if (!pc->why[0] && perf_simulate(P.g, pc, &l, &e))
		perf_stop(pc, "the launch of '%.100s' could not be predicted: "
			  "no block of its sample ran to its end", demangled);
	if (pc->why[0] && !P.why[0])
		snprintf(P.why, sizeof(P.why), "%s", pc->why);
	if (!pc->why[0] && (r = add())) {
		snprintf(r->kernel, sizeof(r->kernel), "%s", demangled);
		memcpy(r->grid, cfg->grid, sizeof(r->grid));
		memcpy(r->block, cfg->block, sizeof(r->block));
		r->ms = e.ms;
		r->dram_bytes = e.dram_bytes;
		r->resident_blocks = e.resident_blocks;
		r->active_sms = e.active_sms;
		r->blocks_per_sm = e.blocks_per_sm;
		r->sampled = e.sampled;
		r->regs = l.regs;
		r->lane_insns = e.work.lane_insns;
		r->load_bytes = e.work.ld_bytes;
		r->store_bytes = e.work.st_bytes;
		r->load_sectors = e.work.ld_sectors;
		r->store_sectors = e.work.st_sectors;
		snprintf(r->limit, sizeof(r->limit), "%s", e.limit);
		P.total_ms += e.ms;
		ms = e.ms;
		if (limit)
			snprintf(limit, limitlen, "%s", e.limit);
		if (regs)
			*regs = l.regs;
	}
	if (!keep(pc, &l))
		perf_collect_free(pc);
	return ms;
}

void emu_perf_transfer(int kind, uint64_t bytes)
{
	struct wgemu_perf_launch *r;
	double gbps;

	if (!P.g || !(r = add()))
		return;
	switch (kind) {
	case EMU_PERF_MEMSET:
		snprintf(r->kernel, sizeof(r->kernel), "(memset)");
		gbps = P.g->dram_gbps;
		break;
	case EMU_PERF_D2D:
		snprintf(r->kernel, sizeof(r->kernel), "(copy on device)");
		gbps = P.g->dram_gbps / 2;
		break;
	default:
		snprintf(r->kernel, sizeof(r->kernel),
			 "(copy between host and device)");
		gbps = P.g->pcie_gbps;
		break;
	}
	r->ms = P.g->launch_us / 1e3 + (double)bytes / (gbps * 1e6);
	r->dram_bytes = (double)bytes * (kind == EMU_PERF_D2D ? 2 : 1);
	r->store_bytes = kind == EMU_PERF_HOST ? 0 : (double)bytes;
	r->load_bytes = kind == EMU_PERF_D2D ? (double)bytes : 0;
	snprintf(r->limit, sizeof(r->limit), "%s",
		 kind == EMU_PERF_HOST ? "PCIe" : "DRAM bandwidth");
	P.total_ms += r->ms;
}
