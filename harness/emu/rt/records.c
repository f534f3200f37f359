/*
 * What the emulator's runtime records of a run, three ways:
 *
 *   launch records  (trace.h) while the runner has one open
 *                   (wgemu_record_begin): every allocation, free, memset,
 *                   copy and launch of a call, for a replay in another
 *                   process (harness/replay.c)
 *   launches        (wgemu.h's struct wgemu_launch) every launch since
 *                   start: its configuration, what it counted in all
 *                   and per source line, and its prediction
 *   the record file ($WGEMU_RECORD, written at exit) those launches
 *                   and the first fault as text lines, for 'warpgrade
 *                   emu' (grader/cmd_emu.c), in the format wgemu.h gives
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/rt/rt.h"
#include "emu/rt/texture.h"
#include "emu/trace.h"

/* ---- launch records (trace.h) ---- */
/* The allocations alive (but module variables, which TR_VAR entries
 * carry), every loaded module's variables and the live texture objects
 * open the record, so that a replay starts from the same state. */
void wgemu_record_begin(const void *in, size_t in_bytes, const void *out,
			size_t out_bytes)
{
	struct emu_trace_head h;
	int i;

	memset(&h, 0, sizeof(h));
	h.in = (uint64_t)(uintptr_t)in;
	h.in_bytes = in_bytes;
	h.out = (uint64_t)(uintptr_t)out;
	h.out_bytes = out_bytes;
	emu_trace_open(&h);
	for (i = 0; i < emu_mem_count(); i++)
		if (!emu_mem_get(i)->is_var)
			rt_trace_simple(TR_ALLOC, emu_mem_get(i)->dev,
					emu_mem_get(i)->size);
	for (i = 0; i < emu_rt.nmods; i++)
		rt_trace_vars(i);
	emu_tex_trace_live();
}

int wgemu_record_end(unsigned char **buf, size_t *len)
{
	return emu_trace_close(buf, len);
}

void rt_trace_simple(enum emu_trace_kind kind, uint64_t a, uint64_t n)
{
	struct emu_trace_op op;

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	op.kind = kind;
	op.a = a;
	op.n = n;
	emu_trace_put(&op);
}

void rt_trace_copy(int dir, uint64_t dst, uint64_t src, const void *data,
		   uint64_t n)
{
	struct emu_trace_op op;

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_COPY;
	op.copy = (uint32_t)dir;
	op.a = dst;
	op.b = src;
	op.n = n;
	if (dir == TR_H2D) {
		op.data = data;
		op.ndata = n;
	}
	emu_trace_put(&op);
}

/* A module's variables as they are now (when a record opens, or when
 * the module loads while one is open), so a replay starts from the same
 * state; value carries the module's fingerprint. */
void rt_trace_vars(int mi)
{
	const struct emu_module *m = emu_rt.mods[mi].m;
	struct emu_trace_op op;
	int i;

	if (!emu_trace_on() || !m)
		return;
	for (i = 0; i < m->nsyms; i++) {
		const struct emu_sym *sy = &m->syms[i];
		struct emu_alloc *a;

		if (sy->kind != SYM_GLOBAL && sy->kind != SYM_CONST)
			continue;
		a = emu_mem_find(sy->dev, sy->size ? sy->size : 1);
		memset(&op, 0, sizeof(op));
		op.kind = TR_VAR;
		op.value = emu_rt.mods[mi].hash;
		op.name = sy->name;
		op.a = sy->dev;
		op.n = sy->size;
		if (a && sy->size <= EMU_TRACE_MAX_VAR_BYTES) {
			op.data = a->host + (sy->dev - a->dev);
			op.ndata = sy->size;
		}
		emu_trace_put(&op);
	}
}

/* a launch into the record; a = 1 for a cooperative one */
void rt_trace_launch(const struct rt_kernel *k, dim3 grid, dim3 block,
		     size_t smem, const uint8_t *params, size_t n,
		     int cooperative)
{
	struct emu_trace_op op;

	if (!emu_trace_on())
		return;
	memset(&op, 0, sizeof(op));
	op.kind = TR_LAUNCH;
	op.value = emu_rt.mods[k->mod].hash;
	op.name = k->name;
	op.grid[0] = grid.x;
	op.grid[1] = grid.y;
	op.grid[2] = grid.z;
	op.block[0] = block.x;
	op.block[1] = block.y;
	op.block[2] = block.z;
	op.n = smem;
	op.a = (uint64_t)cooperative;
	op.data = params;
	op.ndata = n;
	emu_trace_put(&op);
}

void wgemu_watch_output(const void *out, size_t out_bytes,
			size_t guard_bytes, size_t elem_bytes)
{
	uint64_t o = (uint64_t)(uintptr_t)out;

	memset(&emu_watch, 0, sizeof(emu_watch));
	if (!out || !elem_bytes)
		return;
	emu_watch.lo = o - guard_bytes;
	emu_watch.out = o;
	emu_watch.end = o + out_bytes;
	emu_watch.hi = o + out_bytes + guard_bytes;
	emu_watch.elem = elem_bytes;
}

void wgemu_replay_mode(void)
{
	emu_mem_replay_mode();
}

int wgemu_alloc_at(uint64_t addr, uint64_t size, int zeroed)
{
	return emu_mem_alloc_at(addr, size, zeroed || emu_rt_lazy() ||
				!emu_mem_recycle(size)) ? 0 : -1;
}

/* ---- launches counted (wgemu.h) ---- */
void rt_record_add(const struct rt_record *r)
{
	if (emu_rt.nrecs == emu_rt.caprecs) {
		size_t nc = emu_rt.caprecs ? emu_rt.caprecs * 2 : 64;
		struct rt_record *nr = realloc(emu_rt.recs,
					       nc * sizeof(*emu_rt.recs));

		if (!nr) {
			free(r->lines);
			return;
		}
		emu_rt.recs = nr;
		emu_rt.caprecs = nc;
	}
	emu_rt.recs[emu_rt.nrecs++] = *r;
}

size_t wgemu_launch_count(void)
{
	return emu_rt.nrecs;
}

int wgemu_launch_get(size_t i, struct wgemu_launch *out)
{
	if (i >= emu_rt.nrecs)
		return -1;
	*out = emu_rt.recs[i].l;
	return 0;
}

void wgemu_count(int on)
{
	emu_rt.uncounted = !on;
}

void wgemu_launches_reset(void)
{
	size_t i;

	for (i = 0; i < emu_rt.nrecs; i++)
		free(emu_rt.recs[i].lines);
	emu_rt.nrecs = 0;
}

size_t wgemu_line_count(size_t i)
{
	return i < emu_rt.nrecs ? (size_t)emu_rt.recs[i].nlines : 0;
}

int wgemu_line_get(size_t i, size_t j, struct wgemu_line *out)
{
	const struct emu_line_counters *l;
	const struct emu_module *m;

	if (i >= emu_rt.nrecs || j >= (size_t)emu_rt.recs[i].nlines)
		return -1;
	l = &emu_rt.recs[i].lines[j];
	m = emu_rt.recs[i].m;
	snprintf(out->file, sizeof(out->file), "%s",
		 l->file >= 0 && l->file < m->nfiles && m->files[l->file] ?
		 m->files[l->file] : "?");
	out->line = l->line;
	out->counters = l->c;
	return 0;
}

enum wgemu_fault_kind wgemu_last_fault(char *msg, size_t msglen)
{
	if (msg && msglen)
		snprintf(msg, msglen, "%s", emu_rt.fault_msg);
	return emu_rt.fault_kind;
}

/* ---- the record file for 'warpgrade emu' (its format: wgemu.h) ---- */
static void put_counters(FILE *f, const struct wgemu_counters *c)
{
	fprintf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu",
		(unsigned long long)c->global_load_requests,
		(unsigned long long)c->global_load_sectors,
		(unsigned long long)c->global_store_requests,
		(unsigned long long)c->global_store_sectors,
		(unsigned long long)c->shared_load_wavefronts,
		(unsigned long long)c->shared_load_bank_conflicts,
		(unsigned long long)c->shared_store_wavefronts,
		(unsigned long long)c->shared_store_bank_conflicts,
		(unsigned long long)c->lane_instructions);
}

void rt_records_dump(void)
{
	const char *path = getenv("WGEMU_RECORD");
	FILE *f;
	size_t i;
	int j;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < emu_rt.nrecs; i++) {
		const struct wgemu_launch *l = &emu_rt.recs[i].l;

		fprintf(f, "L\t%s\t%u %u %u\t%u %u %u\t%zu\t%zu\t", l->kernel,
			l->grid[0], l->grid[1], l->grid[2], l->block[0],
			l->block[1], l->block[2], l->dynamic_shared_bytes,
			l->static_shared_bytes);
		put_counters(f, &l->counters);
		fputc('\n', f);
		if (emu_rt.recs[i].predicted_ms >= 0)
			fprintf(f, "P\t%.6f\t%s\t%s\t%u\n",
				emu_rt.recs[i].predicted_ms, wgemu_perf_gpu(),
				emu_rt.recs[i].limit, emu_rt.recs[i].regs);
		for (j = 0; j < emu_rt.recs[i].nlines; j++) {
			const struct emu_line_counters *c =
				&emu_rt.recs[i].lines[j];
			const struct emu_module *m = emu_rt.recs[i].m;
			const char *file = c->file >= 0 && c->file < m->nfiles
					   && m->files[c->file] ?
					   m->files[c->file] : "?";

			fprintf(f, "S\t%s\t%d\t", file, c->line);
			put_counters(f, &c->c);
			fputc('\n', f);
		}
	}
	if (emu_rt.fault_kind != WGEMU_FAULT_NONE)
		fprintf(f, "F\t%d\t%s\n", (int)emu_rt.fault_kind,
			emu_rt.fault_msg);
	fclose(f);
}

void rt_atexit(void)
{
	if (!emu_rt.atexit_set) {
		emu_rt.atexit_set = 1;
		atexit(rt_records_dump);
	}
}
