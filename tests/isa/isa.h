/*
 * The ISA conformance cases (tests/isa/gen.py writes them): reading
 * them, and comparing two runs' outputs (tests/isa/run.c writes them).
 */
#ifndef ISA_H
#define ISA_H

#include <stddef.h>
#include <stdint.h>

#define ISA_LANES 128
#define ISA_IN_BYTES (ISA_LANES * 3 * 8)
#define ISA_OUT_BYTES (ISA_LANES * 16)
#define ISA_CASE_BYTES (1 + ISA_OUT_BYTES)  /* status, then the lanes */

enum { ISA_RAN = 0, ISA_NO_LOAD = 1, ISA_NO_RUN = 2 };

struct isa_cases {
	size_t n;
	char **ptx;      /* each case's whole module */
	char **name;     /* its kernel */
	char **res;      /* what it stores: a type, "pred" or "pred2" */
	char **form;     /* the instruction, '~' ending an approximate one */
	char **srcs;     /* its operands' types, by commas */
	unsigned char *in;
	char *text;      /* isa.ptx, which ptx[] point into */
	char *list;      /* isa.cases, which name[], res[], form[] do */
};

/* Read DIR/isa.ptx, isa.cases and isa.in; 0, or -1. */
int isa_read(const char *dir, struct isa_cases *c);
void isa_release(struct isa_cases *c);

/*
 * Compare case i of two runs (ISA_CASE_BYTES each, a the reference):
 * 0 alike; 1 they differ, why says how (the first lane that differs,
 * its inputs and both results); -1 the reference did not run the case
 * (not a form the reference takes).  An approximate form ('~') is alike
 * within the error the PTX ISA allows its instruction.  A NaN result
 * of two or more NaN operands is alike any NaN: which of them an
 * instruction passes on follows the operand order ptxas chose, which
 * is the compiler's and not the instruction's.
 */
int isa_compare(const struct isa_cases *c, size_t i, const unsigned char *a,
		const unsigned char *b, char *why, size_t len);

#endif
