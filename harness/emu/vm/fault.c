/*
 * Faults and warnings of a launch: where an instruction is (file:line
 * from .loc), which thread ran it, the one fault a launch records (the
 * first; a kernel stops there) and the warnings that let it go on -- a
 * read of shared memory no thread wrote, a store into the guard bands
 * around the watched output -- each printed once per instruction and
 * counted again at exit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"

const char *emu_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int emu_where(struct xctx *x, const struct emu_insn *in, char *buf,
	      size_t len)
{
	if (in && in->line >= 0 && in->line < x->m->nlines) {
		const struct emu_line *ln = &x->m->lines[in->line];
		const char *file = ln->file >= 0 && ln->file < x->m->nfiles &&
				   x->m->files[ln->file] ?
				   emu_base_name(x->m->files[ln->file]) : "?";

		return snprintf(buf, len, "%s:%d", file, ln->line);
	}
	return snprintf(buf, len, "?:?");
}

/* Record a fault: "kernel 'k' at file:line, thread (x,y,z) of block
 * (x,y,z): what" (k demangled, cut at WGEMU_FAULT_NAME_MAX). */
int emu_fault(struct xctx *x, enum wgemu_fault_kind kind,
	      const struct emu_insn *in, int warp, int lane,
	      const char *fmt, ...)
{
	char loc[256], what[320];
	unsigned t[3];
	va_list ap;

	if (x->res->fault != WGEMU_FAULT_NONE)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	emu_where(x, in, loc, sizeof(loc));
	x->res->fault = kind;
	if (warp >= 0 && lane >= 0) {
		thread_of(x, warp, lane, t);
		snprintf(x->res->msg, sizeof(x->res->msg),
			 "kernel '%.*s' at %.80s, thread (%u,%u,%u) of "
			 "block (%u,%u,%u): %.300s", WGEMU_FAULT_NAME_MAX,
			 x->kname, loc, t[0], t[1], t[2],
			 x->bid[0], x->bid[1], x->bid[2], what);
	} else {
		snprintf(x->res->msg, sizeof(x->res->msg),
			 "kernel '%.*s' at %.80s, block (%u,%u,%u): %.300s",
			 WGEMU_FAULT_NAME_MAX, x->kname,
			 loc, x->bid[0], x->bid[1], x->bid[2], what);
	}
	return -1;
}

/* A warp reached an instruction the interpreter cannot run.  The fault
 * names it as the grader's check lists it (emu_insn_unsupported), which
 * is how the grader knows the fault for the emulator's own; the site's
 * words (fmt) stand in only where the check does not mirror the site,
 * a gap of check.c's. */
int emu_fault_unsupported(struct xctx *x, const struct emu_func *f,
			  const struct emu_insn *in, int warp, int lane,
			  const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (!emu_insn_unsupported(x->m, f, in, what, sizeof(what))) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
	}
	return emu_fault(x, WGEMU_FAULT_UNSUPPORTED, in, warp, lane,
			 "the emulator cannot run %s", what);
}

/* The uninitialised reads warned about: per instruction, once per
 * process, with the count of later launches that did it again. */
#define MAX_WARNED 32

static struct {
	const struct emu_insn *in;
	char where[200];
	unsigned long again;
} g_warned[MAX_WARNED];

static int g_nwarned;

static void report_warned(void)
{
	for (int i = 0; i < g_nwarned; i++)
		if (g_warned[i].again)
			fprintf(stderr, "warpgrade emulator: warning: the read "
				"of unwritten shared memory at %s happened "
				"in %lu more launch%s\n", g_warned[i].where,
				g_warned[i].again,
				g_warned[i].again == 1 ? "" : "es");
}

/* A finding that is not an error on a GPU (the value read is garbage
 * there, poison here): printed once per instruction (counted again once
 * per launch), execution goes on. */
void emu_warn_uninit(struct xctx *x, const struct emu_insn *in,
		     int warp, int lane, uint32_t off)
{
	char loc[256];
	unsigned t[3];
	int i;

	if (x->warned_uninit)
		return;
	x->warned_uninit = 1;
	if (getenv("WGEMU_QUIET"))
		return;
	for (i = 0; i < g_nwarned && g_warned[i].in != in; i++)
		;
	if (i < g_nwarned) {
		g_warned[i].again++;
		return;
	}
	emu_where(x, in, loc, sizeof(loc));
	if (g_nwarned < MAX_WARNED) {
		g_warned[g_nwarned].in = in;
		snprintf(g_warned[g_nwarned].where,
			 sizeof(g_warned[g_nwarned].where), "%.80s in '%.100s'",
			 loc, x->kname);
		if (!g_nwarned++)
			atexit(report_warned);
	}
	thread_of(x, warp, lane, t);
	fprintf(stderr, "warpgrade emulator: warning: kernel '%.120s' at "
		"%.80s, thread (%u,%u,%u) of block (%u,%u,%u): read of "
		"shared memory at offset %u that no thread of the block "
		"wrote (its value is undefined on a GPU)\n", x->kname, loc,
		t[0], t[1], t[2], x->bid[0], x->bid[1], x->bid[2], off);
}

struct emu_watch emu_watch;

/* A store into the guard bands around the watched output: reported once
 * per launch, like warn_uninit; execution goes on. */
void emu_warn_guard(struct xctx *x, const struct emu_insn *in, int warp,
		    int lane, uint64_t a)
{
	const struct emu_watch *g = &emu_watch;
	char loc[256];
	unsigned t[3];
	int after = a >= g->end;
	uint64_t k = after ? (a - g->end) / g->elem :
			     (g->out - a + g->elem - 1) / g->elem;

	if (x->warned_guard)
		return;
	x->warned_guard = 1;
	if (getenv("WGEMU_QUIET"))
		return;
	emu_where(x, in, loc, sizeof(loc));
	thread_of(x, warp, lane, t);
	fprintf(stderr, "warpgrade emulator: warning: kernel '%.120s' at "
		"%.80s, thread (%u,%u,%u) of block (%u,%u,%u): store outside "
		"the output: element %llu %s\n", x->kname, loc, t[0], t[1],
		t[2], x->bid[0], x->bid[1], x->bid[2], (unsigned long long)k,
		after ? "past its end" : "before its start");
}
