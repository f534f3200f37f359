/*
 * The GPU's special-function unit (MUFU), bit for bit: the approximate
 * instructions rcp, rsqrt, sqrt, ex2, lg2 and div.approx of f32, and
 * rcp.approx.ftz.f64, as an H100 computes them (mufu_model.h says how;
 * docs/CONFORMANCE.md, "The special-function unit").
 */
#ifndef WG_EMU_MUFU_H
#define WG_EMU_MUFU_H

#include <stdint.h>

#include "emu/emu.h"

/*
 * The lanes M of approximate instruction IN on operands A and B into D
 * (registers' bits), if it is one of those above: returns 1 when it was,
 * 0 when IN is another instruction (left to the host's arithmetic), and
 * -1 when its table could not be read (the reason printed once).
 */
int mufu_lanes(const struct emu_insn *in, uint32_t m, uint64_t *D,
	       const uint64_t *A, const uint64_t *B);

#endif
