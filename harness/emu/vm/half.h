/*
 * Half-precision arithmetic of the interpreter: IEEE binary16 (f16) and
 * bfloat16 (bf16), scalar and packed in pairs (f16x2, bf16x2, the low
 * half in bits 0-15).  Each operation is done in single precision and
 * rounded once to the half format, to nearest even, as the hardware
 * rounds its half results; the only difference can be a double rounding
 * of an fma or add whose exact result needs more than 24 bits.
 */
#ifndef EMU_HALF_H
#define EMU_HALF_H

#include <stdint.h>

float emu_f16_to_f32(uint16_t h);
uint16_t emu_f32_to_f16(float v);
float emu_bf16_to_f32(uint16_t h);
/* cvt.rna.tf32.f32: float bits rounded to tf32's 10 mantissa bits,
 * to nearest with ties away from zero, the low 13 bits zero. */
uint32_t emu_f32_to_tf32(uint32_t f);
uint16_t emu_f32_to_bf16(float v);

/* Is type t (enum emu_type) one whose arithmetic is half.c's? */
int emu_half_type(int t);

/* One lane of OP_HALF: op is the original opcode (OP_ADD, OP_SUB,
 * OP_MUL, OP_FMA, OP_MAD, OP_MIN, OP_MAX, OP_NEG, OP_ABS, OP_EX2,
 * OP_TANH), t the type (T_F16, T_F16X2, T_BF16, T_BF16X2), a b c the
 * operands' bits; returns the result's bits. */
uint32_t emu_half_alu(int op, int t, int ftz, uint32_t a, uint32_t b,
		      uint32_t c);

/* setp.cmp on a half type (scalar) */
int emu_half_cmp(int cmp, int t, uint32_t a, uint32_t b);
/* setp and set on a pair (T_F16X2, T_BF16X2): each half compared on
 * its own -- bit 0 the low halves', bit 1 the high halves' -- subnormal
 * f16 inputs as zero with ftz. */
int emu_half_cmp2(int cmp, int t, int ftz, uint32_t a, uint32_t b);

#endif
