/*
 * What the emulator cannot run in a student's object, as the grader's
 * own PTX check found it (compile.c runs `wg-replay --check` on the
 * object, sandboxed), kernel by kernel, and the one question it answers:
 * does a fault that names such an instruction show the emulator's limit
 * (XX: regraded, not held against the student) or the student's error
 * (RE)?  The emulator's only when the check listed that instruction in
 * that kernel.  A runner shares its process with the submission, which
 * can write any fault it likes into the runner's stream: its word alone
 * never makes the grader's fault (docs/SECURITY.md); the trusted replay
 * is matched the same way.
 *
 * An object whose kernels hold such instructions is graded on the
 * emulator all the same: a kernel never launched, or a branch never
 * taken, costs nothing.
 */
#ifndef LACKS_H
#define LACKS_H

#include <stddef.h>

struct lack {
	char kernel[256];    /* mangled, as the PTX names it */
	char name[128];      /* as a fault names it (demangled, cut) */
	char what[256];      /* "the instruction 'multimem.ld_reduce...'" */
	char where[96];      /* "coalesced_transpose.cu:54", or "" */
};

struct lacks {
	struct lack *v;
	size_t n;
};

/* The check's output into l (empty before): zero or more lines
 * "lacks\tMANGLED\tNAME\tWHAT\tWHERE", then "ok".  0, or -1 when the
 * output is not of that form (l is then empty). */
int lacks_parse(struct lacks *l, const char *output);

/* The entry of l that fault (an emulator fault message, "kernel 'NAME'
 * at file:line, ...: the emulator cannot run WHAT", anywhere in it)
 * names, or NULL: then the fault is not the emulator's limit.  l may be
 * NULL (no check ran: nothing is). */
const struct lack *lacks_match(const struct lacks *l, const char *fault);

/* A verdict's message for an entry the grader matched. */
void lacks_describe(const struct lack *k, char *buf, size_t len);

void lacks_release(struct lacks *l);

#endif
