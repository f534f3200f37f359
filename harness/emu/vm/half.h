/*
 * Half-precision arithmetic of the interpreter: IEEE binary16 (f16) and
 * bfloat16 (bf16), scalar and packed in pairs (f16x2, bf16x2, the low
 * half in bits 0-15).  Each operation is done in double precision,
 * rounded to odd, and rounded once to the half format: the correctly
 * rounded result the hardware gives.  Where the GPU's bits are not
 * IEEE's choice they are the GPU's (tests/isa holds them to it): every
 * NaN a half operation or conversion produces is 0x7fff, .sat turns a
 * NaN and -0 into +0, min and max take -0 below +0.
 */
#ifndef EMU_HALF_H
#define EMU_HALF_H

#include <stdint.h>

float emu_f16_to_f32(uint16_t h);
/* v rounded to the half type t (T_F16, T_BF16 or their pairs) in the
 * rounding mode rnd (R_RN, R_RZ, R_RM, R_RP, R_RNA; R_NONE is R_RN),
 * overflowing to infinity or, rounding toward zero, the greatest finite
 * value; a NaN is 0x7fff. */
uint16_t emu_round_half(int t, double v, int rnd);
/* the NaN of the half type t that cvt makes of the f64 NaN bits: quiet,
 * of the same sign, the top of the payload kept */
uint16_t emu_half_from_nan64(int t, uint64_t bits);
/* emu_round_half to nearest */
uint16_t emu_f32_to_f16(float v);
float emu_bf16_to_f32(uint16_t h);
/* cvt.rna.tf32.f32: float bits rounded to tf32's 10 mantissa bits,
 * to nearest with ties away from zero, the low 13 bits zero. */
uint32_t emu_f32_to_tf32(uint32_t f);
uint16_t emu_f32_to_bf16(float v);

/* Is type t (enum emu_type) one whose arithmetic is half.c's? */
int emu_half_type(int t);
/* Is h a NaN of the half type t? */
int emu_half_nan(int t, uint16_t h);

/* the modifiers of a half operation (emu_half_alu's mods) */
enum {
	HALF_FTZ = 1, HALF_SAT = 2, HALF_NAN = 4, HALF_XORSIGN = 8,
	HALF_RELU = 16,	/* a negative result or -0 is +0 */
	HALF_NEG_AB = 32, HALF_NEG_C = 64	/* fma: -(a*b) + c, a*b - c */
};

/* One lane of OP_HALF: op is the original opcode (OP_ADD, OP_SUB,
 * OP_MUL, OP_FMA, OP_MAD, OP_MIN, OP_MAX, OP_NEG, OP_ABS, OP_EX2,
 * OP_TANH), t the type (T_F16, T_F16X2, T_BF16, T_BF16X2), mods its
 * HALF_* modifiers, a b c the operands' bits; returns the result's
 * bits. */
uint32_t emu_half_alu(int op, int t, int mods, uint32_t a, uint32_t b,
		      uint32_t c);

/* setp.cmp on a half type (scalar) */
int emu_half_cmp(int cmp, int t, uint32_t a, uint32_t b);
/* setp and set on a pair (T_F16X2, T_BF16X2): each half compared on
 * its own -- bit 0 the low halves', bit 1 the high halves' -- subnormal
 * f16 inputs as zero with ftz. */
int emu_half_cmp2(int cmp, int t, int ftz, uint32_t a, uint32_t b);

#endif
