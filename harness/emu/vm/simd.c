/*
 * Integer SIMD within a register, lane by lane: what nvcc emits for the
 * SIMD intrinsics (__vmaxs4, __vabsdiffu4, __dp4a, ...) and for bit
 * logic it folds into one instruction.
 *
 *   lop3.b32 d, a, b, c, lut   each bit of d is lut's bit (a << 2 |
 *                              b << 1 | c) of the bits of a, b, c
 *   dp4a.at.bt d, a, b, c      c + the four products of a's and b's
 *                              bytes (signed by .s32)
 *   dp2a.{lo,hi}.at.bt         c + the two products of a's halves and
 *                              b's bytes 0, 1 (.lo) or 2, 3 (.hi)
 *   vabsdiff4, vabsdiff2       the bytes' (halves') absolute differences,
 *                              packed, or with .add their sum plus c
 *   add, sub, min, max on .u16x2 and .s16x2: each half on its own,
 *   wrapping; min and max .relu: a negative half is 0
 */
#include "emu/vm/exec.h"
#include "emu/vm/simd.h"

int simd_lop3(uint32_t m, uint64_t *D, const uint64_t *A, const uint64_t *B,
	      const uint64_t *C, const uint64_t *L)
{
	LANES({
		uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
		uint32_t c = (uint32_t)C[l], lut = (uint32_t)L[l] & 0xff;
		uint32_t r = 0;

		/* the sum of the minterms lut selects */
		for (int i = 0; i < 8; i++)
			if (lut >> i & 1)
				r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) &
				     (i & 1 ? c : ~c);
		D[l] = r;
	});
	return 0;
}

static int32_t byte_of(uint32_t v, int i, int sgn)
{
	uint32_t b = v >> (8 * i) & 0xff;

	return sgn ? (int8_t)b : (int32_t)b;
}

static int32_t half_of(uint32_t v, int i, int sgn)
{
	uint32_t h = v >> (16 * i) & 0xffff;

	return sgn ? (int16_t)h : (int32_t)h;
}

int simd_dot(const struct emu_insn *in, uint32_t m, uint64_t *D,
	     const uint64_t *A, const uint64_t *B, const uint64_t *C)
{
	int sa = emu_type_kind[in->type] == 's';
	int sb = emu_type_kind[in->type2] == 's';

	LANES({
		uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
		uint32_t sum = (uint32_t)C[l];

		if (in->op == OP_DP4A)
			for (int i = 0; i < 4; i++)
				sum += (uint32_t)(byte_of(a, i, sa) *
						  byte_of(b, i, sb));
		else
			for (int i = 0; i < 2; i++)
				sum += (uint32_t)(half_of(a, i, sa) *
						  byte_of(b, 2 * in->sub + i,
							  sb));
		D[l] = sum;
	});
	return 0;
}

int simd_absdiff(const struct emu_insn *in, uint32_t m, uint64_t *D,
		 const uint64_t *A, const uint64_t *B, const uint64_t *C)
{
	int sgn = in->cmp & 1, halves = in->op == OP_VABSDIFF2;
	int n = halves ? 2 : 4, bits = halves ? 16 : 8;

	LANES({
		uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
		uint32_t r = in->sub ? (uint32_t)C[l] : 0;

		for (int i = 0; i < n; i++) {
			int32_t x = halves ? half_of(a, i, sgn) :
				    byte_of(a, i, sgn);
			int32_t y = halves ? half_of(b, i, sgn) :
				    byte_of(b, i, sgn);
			uint32_t d = (uint32_t)(x > y ? x - y : y - x);

			r += in->sub ? d : (d & ((1u << bits) - 1)) <<
					   (bits * i);
		}
		D[l] = r;
	});
	return 0;
}

static uint32_t one16(int op, int relu, int32_t a, int32_t b)
{
	int32_t r;

	switch (op) {
	case OP_ADD: r = a + b; break;
	case OP_SUB: r = a - b; break;
	case OP_MIN: r = a < b ? a : b; break;
	default: r = a > b ? a : b; break;
	}
	if (relu && r < 0)
		r = 0;
	return (uint32_t)r & 0xffff;
}

int simd_int16x2(const struct emu_insn *in, uint32_t m, uint64_t *D,
		 const uint64_t *A, const uint64_t *B)
{
	int sgn = in->type == T_S16X2, relu = (in->sub & SUB_RELU) != 0;

	if (in->op != OP_ADD && in->op != OP_SUB && in->op != OP_MIN &&
	    in->op != OP_MAX)
		return -1;
	LANES({
		uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];

		D[l] = one16(in->op, relu, half_of(a, 0, sgn),
			     half_of(b, 0, sgn)) |
		       one16(in->op, relu, half_of(a, 1, sgn),
			     half_of(b, 1, sgn)) << 16;
	});
	return 0;
}
