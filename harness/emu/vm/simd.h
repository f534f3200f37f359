/*
 * Integer SIMD within a register (simd.c): lop3, dp4a, dp2a, vabsdiff4
 * and vabsdiff2, and add, sub, min, max on .u16x2 and .s16x2, lane by
 * lane over the active lanes m.  Each returns 0, or -1 for a form it
 * does not know (the interpreter then says so).
 */
#ifndef EMU_SIMD_H
#define EMU_SIMD_H

#include <stdint.h>

struct emu_insn;

int simd_lop3(uint32_t m, uint64_t *D, const uint64_t *A, const uint64_t *B,
	      const uint64_t *C, const uint64_t *L);
/* dp4a, or dp2a (.hi: in->sub 1) */
int simd_dot(const struct emu_insn *in, uint32_t m, uint64_t *D,
	     const uint64_t *A, const uint64_t *B, const uint64_t *C);
/* vabsdiff4 and vabsdiff2 (in->op), .add (in->sub 1) adding c, the
 * elements signed when in->cmp's bit 0 says */
int simd_absdiff(const struct emu_insn *in, uint32_t m, uint64_t *D,
		 const uint64_t *A, const uint64_t *B, const uint64_t *C);
int simd_int16x2(const struct emu_insn *in, uint32_t m, uint64_t *D,
		 const uint64_t *A, const uint64_t *B);

#endif
