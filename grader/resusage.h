/*
 * What ptxas says of each kernel it compiles for sm_90 (`ptxas -v`):
 * registers per thread, static shared memory, spill stores and stack.
 * The emulator's performance model needs the registers for its
 * occupancy (wgemu_perf_regs); without them it assumes 32.
 *
 * The numbers come from ptxas run by the grader on the PTX of the
 * object it compiled (compile.c, sandboxed as the compiler is: ptxas
 * reads what the student wrote), never from the student's process.
 */
#ifndef RESUSAGE_H
#define RESUSAGE_H

#include <stddef.h>

#define RESUSAGE_MAX 32u      /* kernels kept; more are left out */
#define RESUSAGE_NAME 256u    /* a mangled name, NUL included */

struct resusage_kernel {
	char name[RESUSAGE_NAME];   /* mangled, as the PTX names it */
	unsigned regs;              /* per thread */
	unsigned smem;              /* static shared bytes per block */
	unsigned spill_stores;      /* bytes per thread */
	unsigned stack;             /* frame bytes per thread */
};

struct resusage {
	struct resusage_kernel k[RESUSAGE_MAX];
	size_t n;
};

/*
 * Parse ptxas's -v messages (text: what it wrote to stderr, NUL
 * terminated) into *u, emptied first: one entry per "Compiling entry
 * function" with its "Used N registers" line; lines of other kinds are
 * skipped, and a name too long to keep leaves its kernel out.  Returns
 * the number of kernels, or -1 when an entry function has no register
 * line (the text is not ptxas's -v output, or cut short); *u is then
 * empty.
 */
int resusage_parse(struct resusage *u, const char *text);

/* The entry of u for a mangled name, NULL when none. */
const struct resusage_kernel *resusage_find(const struct resusage *u,
					    const char *name);

#endif
