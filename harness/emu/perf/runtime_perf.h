/*
 * What the runtime (harness/emu/rt) asks of the performance model while a
 * prediction is open (wgemu_perf_begin): the public half is in wgemu.h.
 */
#ifndef EMU_RUNTIME_PERF_H
#define EMU_RUNTIME_PERF_H

#include <stddef.h>
#include <stdint.h>

struct emu_launch_cfg;
struct perf_collect;

/* 1 while a prediction is open; emu_perf_only: and launches run only
 * their sample, copies and memsets move nothing. */
int emu_perf_on(void);
int emu_perf_only(void);

/* Before a launch: a collector for it in cfg (NULL when off). */
struct perf_collect *emu_perf_prepare(struct emu_launch_cfg *cfg,
				      size_t static_smem);
/* After it: simulate, record the prediction, free the collector; the
 * predicted milliseconds, or -1 when there is none.  With a prediction,
 * limit gets what bounds it and *regs (unless NULL) the registers a
 * thread it took (0: none known, 32 assumed). */
double emu_perf_finish(struct perf_collect *pc, const char *mangled,
		       const char *demangled,
		       const struct emu_launch_cfg *cfg, size_t static_smem,
		       char *limit, size_t limitlen, unsigned *regs);

enum { EMU_PERF_MEMSET, EMU_PERF_D2D, EMU_PERF_HOST };
/* A memset or copy of bytes: its modelled time. */
void emu_perf_transfer(int kind, uint64_t bytes);

/* For the calibration tool (bench/corpus/fit.c): keep every launch's
 * collector and shape instead of freeing them, to simulate again with
 * other constants. */
struct perf_launch;
void emu_perf_keep(int on);
size_t emu_perf_kept_count(void);
const struct perf_collect *emu_perf_kept(size_t i, struct perf_launch *l);

#endif
